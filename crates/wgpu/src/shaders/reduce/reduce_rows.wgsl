// Row reduction, one thread per row (short rows, or the last pass over partials):
// X0 seen as [rows, len] -> Y[rows]. p0: rows, p1: len, p4: the original row length (mean).
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let r = flat(wid, nwg) * 64u + li;
    if (r >= p(0u)) { return; }
    let len = p(1u);
    var acc = ident();
    for (var j = 0u; j < len; j++) {
        acc = comb(acc, ld0(r * len + j));
    }
    Y[r] = fin(acc);
}
