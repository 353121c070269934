// Unary ops and casts: Y[i] = conv(op(ld0(i))). p0: element count.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    Y[i] = conv(op(ld0(i)));
}
