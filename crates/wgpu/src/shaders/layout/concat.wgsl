// One input of a concat: X0 seen as [outer, w] goes to columns [off, off + w) of Y seen as
// [outer, total]. p0: outer * w, p1: w, p2: total, p3: off.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    let w = p(1u);
    Y[(i / w) * p(2u) + p(3u) + i % w] = X0[i];
}
