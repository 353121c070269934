// argMax/argMin over a long axis, one workgroup per output: each thread scans a strided part
// of the axis, skipping NaN, then a shared-memory tree keeps the best value with the lowest
// index. A NaN first element gives index 0 (it is never replaced in a sequential scan).
// p0: outputs, p1: axis, p2: inner.
const NONE: u32 = 0xffffffffu;
var<workgroup> sv: array<$VT, 256>;
var<workgroup> si: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let o = flat(wid, nwg);
    if (o >= p(0u)) { return; }
    let axis = p(1u);
    let inner = p(2u);
    let base = (o / inner) * axis * inner + o % inner;
    var bv = ld0(base);
    var bi = NONE;
    for (var a = li; a < axis; a += 256u) {
        let v = ld0(base + a * inner);
        if (!vnan(v) && (bi == NONE || better(v, bv))) {
            bv = v;
            bi = a;
        }
    }
    sv[li] = bv;
    si[li] = bi;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (li < s) {
            let ov = sv[li + s];
            let oi = si[li + s];
            let mi = si[li];
            let mv = sv[li];
            if (oi != NONE && (mi == NONE || better(ov, mv) || (!better(mv, ov) && oi < mi))) {
                sv[li] = ov;
                si[li] = oi;
            }
        }
        workgroupBarrier();
    }
    if (li == 0u) {
        var r = si[0];
        if (r == NONE || vnan(ld0(base))) { r = 0u; }
        Y[o] = i32(r);
    }
}
