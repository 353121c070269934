// X0 seen as [outer, axis, inner], X1 int32 indices (checked in range by the engine):
// Y[o, j, k] = X0[o, X1[j], k]. p0: output count, p1: number of indices, p2: axis, p3: inner.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    let inner = p(3u);
    let k = i % inner;
    let t = i / inner;
    let j = t % p(1u);
    let o = t / p(1u);
    Y[i] = X0[(o * p(2u) + u32(X1[j])) * inner + k];
}
