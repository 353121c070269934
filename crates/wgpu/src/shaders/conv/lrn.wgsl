// Local response normalization, one thread per element. p0: elements, p1: channels (the last
// axis), p2: radius, p3..p5: bias, alpha, beta (f32 bits).
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    let channels = p(1u);
    let c = i % channels;
    let row = i - c;
    let lo = select(0u, c - p(2u), c >= p(2u));
    let hi = min(c + p(2u), channels - 1u);
    var sum = 0.0;
    for (var j = lo; j <= hi; j++) {
        let v = X0[row + j];
        sum = fma(v, v, sum);
    }
    let base = bitcast<f32>(p(3u)) + bitcast<f32>(p(4u)) * sum;
    Y[i] = X0[i] * exp_acc(-bitcast<f32>(p(5u)) * log_f32(base));
}
