// Broadcasting binary op: Y[i] = conv(op(ld0(ia), ld1(ib))).
// p0: element count; p1: rank of the collapsed broadcast (0: both inputs have the output's
// shape, index them directly); p2..7 dims; p8..13 strides of a; p14..19 strides of b
// (0 on broadcast dims).
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    var ia = i;
    var ib = i;
    let rank = p(1u);
    if (rank > 0u) {
        ia = 0u;
        ib = 0u;
        var r = i;
        for (var d = rank; d > 0u; d--) {
            let k = d - 1u;
            let size = p(2u + k);
            let c = r % size;
            r = r / size;
            ia += c * p(8u + k);
            ib += c * p(14u + k);
        }
    }
    Y[i] = conv(op(ld0(ia), ld1(ib)));
}
