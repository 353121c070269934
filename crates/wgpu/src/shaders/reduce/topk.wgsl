// tf.topk's indices, one thread per row: k times, the element that ranks first among those
// ranking after the previous pick. The order: NaN above everything, then larger values, equal
// values by lower index. p0: rows, p1: row length, p2: k. $T is the compute type.
fn ranks_before(a: $T, ia: u32, b: $T, ib: u32) -> bool {
    let na = isnan_t(a);
    let nb = isnan_t(b);
    if (na != nb) { return na; }
    if (!na && a != b) { return a > b; }
    return ia < ib;
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let row = flat(wid, nwg) * 64u + li;
    if (row >= p(0u)) { return; }
    let len = p(1u);
    let k = p(2u);
    let base = row * len;
    var prev = ld0(base);
    var prev_i = 0u;
    for (var t = 0u; t < k; t++) {
        var best = ld0(base);
        var best_i = len;
        for (var j = 0u; j < len; j++) {
            let v = ld0(base + j);
            if (t > 0u && !ranks_before(prev, prev_i, v, j)) { continue; }
            if (best_i == len || ranks_before(v, j, best, best_i)) {
                best = v;
                best_i = j;
            }
        }
        Y[row * k + t] = i32(best_i);
        prev = best;
        prev_i = best_i;
    }
}
