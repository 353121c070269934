// X0 int32 indices [len] -> Y [len, depth]: on where the index matches, else off (out-of-range
// and negative indices match nothing). p0: output count, p1: depth, p2: on bits, p3: off bits.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    let depth = p(1u);
    Y[i] = select(p(3u), p(2u), X0[i / depth] == i32(i % depth));
}
