// Softmax over short rows, one thread per row. p0: rows, p1: len.
fn max_nan(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) { return nan_f(); }
    return select(a, b, b > a);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let row = flat(wid, nwg) * 64u + li;
    if (row >= p(0u)) { return; }
    let len = p(1u);
    let base = row * len;
    var m = -inf_f();
    for (var j = 0u; j < len; j++) { m = max_nan(m, X0[base + j]); }
    var sum = 0.0;
    for (var j = 0u; j < len; j++) { sum += exp_acc(X0[base + j] - m); }
    for (var j = 0u; j < len; j++) { Y[base + j] = exp_acc(X0[base + j] - m) / sum; }
}
