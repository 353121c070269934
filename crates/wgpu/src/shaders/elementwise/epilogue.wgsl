// The fused ops' epilogue, in place on the product Y: Y[i] = act(bias(Y[i], c), c), where c is
// i's channel (the last axis). p0: element count, p1: channels, p2: bias length, p3: alpha
// length (1 or channels), p4: leakyrelu's alpha bits.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    let c = i % p(1u);
    Y[i] = act(bias(Y[i], c), c);
}
