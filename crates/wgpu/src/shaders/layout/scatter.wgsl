// Scatter rows of X1 ([m, slice]) to rows X0 (int32 [m]) of Y ([rows, slice]), starting from
// start(i) (the base tensor, or 0): comb(acc, v) sums or assigns, in update order.
// p0: output size, p1: slice size, p2: number of updates.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    let slice = p(1u);
    let row = i32(i / slice);
    let col = i % slice;
    var acc = start(i);
    for (var j = 0u; j < p(2u); j++) {
        if (X0[j] == row) { acc = comb(acc, X1[j * slice + col]); }
    }
    Y[i] = acc;
}
