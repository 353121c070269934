// X0 seen as [batch, outer, axis, inner], X1 int32 indices as [batch, n]:
// Y[b, o, j, k] = X0[b, o, X1[b, j], k], or 0 where X1[b, j] is outside [0, axis).
// p0: output count, p1: n, p2: axis, p3: inner, p4: outer.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    let inner = p(3u);
    let k = i % inner;
    let t = i / inner;
    let j = t % p(1u);
    let bo = t / p(1u);
    let b = bo / p(4u);
    let r = X1[b * p(1u) + j];
    if (r < 0 || u32(r) >= p(2u)) { Y[i] = 0u; return; }
    Y[i] = X0[(bo * p(2u) + u32(r)) * inner + k];
}
