// tf.where: Y[i] = X0[ic] != 0 ? X1[ia] : X2[ib], a and b of the output's dtype.
// p0: element count; p1: rank; p2..7 dims; p8..13, p14..19, p20..25 strides of the condition,
// a and b (0 on broadcast dims).
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    var ic = 0u;
    var ia = 0u;
    var ib = 0u;
    var r = i;
    for (var d = p(1u); d > 0u; d--) {
        let k = d - 1u;
        let size = p(2u + k);
        let c = r % size;
        r = r / size;
        ic += c * p(8u + k);
        ia += c * p(14u + k);
        ib += c * p(20u + k);
    }
    Y[i] = select(X2[ib], X1[ia], X0[ic] != 0u);
}
