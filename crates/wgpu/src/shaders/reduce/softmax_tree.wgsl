// Softmax over rows of X0 seen as [rows, len], one workgroup per row:
// m = max (NaN if any NaN), e = exp(x - m), Y = e / sum(e). p0: rows, p1: len.
var<workgroup> sh: array<f32, 256>;

fn max_nan(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) { return nan_f(); }
    return select(a, b, b > a);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let row = flat(wid, nwg);
    if (row >= p(0u)) { return; }
    let len = p(1u);
    let base = row * len;
    var m = -inf_f();
    for (var j = li; j < len; j += 256u) { m = max_nan(m, X0[base + j]); }
    sh[li] = m;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (li < s) { sh[li] = max_nan(sh[li], sh[li + s]); }
        workgroupBarrier();
    }
    m = sh[0];
    workgroupBarrier();
    var sum = 0.0;
    for (var j = li; j < len; j += 256u) { sum += exp_acc(X0[base + j] - m); }
    sh[li] = sum;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (li < s) { sh[li] = sh[li] + sh[li + s]; }
        workgroupBarrier();
    }
    let total = sh[0];
    for (var j = li; j < len; j += 256u) { Y[base + j] = exp_acc(X0[base + j] - m) / total; }
}
