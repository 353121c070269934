// Running sums or products, one thread per row. p0: rows, p1: row length, p2: exclusive (the
// identity first), p3: reverse (from the row's end).
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let row = flat(wid, nwg) * 64u + li;
    if (row >= p(0u)) { return; }
    let len = p(1u);
    var acc = ident();
    for (var j = 0u; j < len; j++) {
        let idx = row * len + select(j, len - 1u - j, p(3u) == 1u);
        if (p(2u) == 1u) {
            Y[idx] = acc;
            acc = comb(acc, ld0(idx));
        } else {
            acc = comb(acc, ld0(idx));
            Y[idx] = acc;
        }
    }
}
