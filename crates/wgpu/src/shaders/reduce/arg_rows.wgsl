// argMax/argMin, one thread per output: X0 seen as [outer, axis, inner] -> Y[outer * inner].
// Sequential scan with a strict comparison, exactly like the cpu backend: ties keep the first
// index, NaN never wins, a NaN first element is never replaced. p0: outputs, p1: axis, p2: inner.
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let o = flat(wid, nwg) * 64u + li;
    if (o >= p(0u)) { return; }
    let axis = p(1u);
    let inner = p(2u);
    let base = (o / inner) * axis * inner + o % inner;
    var best = ld0(base);
    var bi = 0u;
    for (var a = 1u; a < axis; a++) {
        let v = ld0(base + a * inner);
        if (better(v, best)) {
            best = v;
            bi = a;
        }
    }
    Y[o] = i32(bi);
}
