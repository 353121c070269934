// Resampling, one thread per output element [b, i, j, c]. X1 holds the taps: row lo, hi and
// frac (f32 bits) for the p3 output rows, then the same for the p2 output columns.
// p0: elements, p1: channels, p2: output width, p3: output height, p4: input height,
// p5: input width.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let idx = flat(wid, nwg) * 256u + li;
    if (idx >= p(0u)) { return; }
    let c = p(1u);
    let nw = p(2u);
    let nh = p(3u);
    let ch = idx % c;
    let j = (idx / c) % nw;
    let i = (idx / (c * nw)) % nh;
    let b = idx / (c * nw * nh);
    let r0 = X1[i];
    let r1 = X1[nh + i];
    let fr = bitcast<f32>(X1[2u * nh + i]);
    let c0 = X1[3u * nh + j];
    let c1 = X1[3u * nh + nw + j];
    let fc = bitcast<f32>(X1[3u * nh + 2u * nw + j]);
    let base = b * p(4u) * p(5u);
    let tl = X0[((base + r0 * p(5u) + c0) * c) + ch];
    let tr = X0[((base + r0 * p(5u) + c1) * c) + ch];
    let bl = X0[((base + r1 * p(5u) + c0) * c) + ch];
    let br = X0[((base + r1 * p(5u) + c1) * c) + ch];
    let top = tl + (tr - tl) * fc;
    let bottom = bl + (br - bl) * fc;
    Y[idx] = top + (bottom - top) * fr;
}
