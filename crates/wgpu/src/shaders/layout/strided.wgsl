// Strided gather of 32-bit elements (transpose, slice): Y[i] = X0[offset + sum(idx_d * stride_d)]
// where idx is i unravelled over the output dims. p0: count, p1: rank (<= 6), p2: offset,
// p3..8: output dims, p9..14: input strides.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    var r = i;
    var src = p(2u);
    for (var d = p(1u); d > 0u; d--) {
        let k = d - 1u;
        let size = p(3u + k);
        src += (r % size) * p(9u + k);
        r = r / size;
    }
    Y[i] = X0[src];
}
