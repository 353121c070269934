// A convolution's input gradient as the tiled GEMM (matmul.wgsl): for batch item z, input
// pixel m and input channel n, the sum over k = tap * out_channels + co of
// dy[output pixel that reads m at tap, co] * filter[tap, n, co].
fn load_a(z: u32, m: u32, k: u32) -> f32 {
    let cout = p(11u);
    let co = k % cout;
    let tap = k / cout;
    let t = tap_zyx(tap);
    let i = pixel_zyx(m, 4u);
    let oz = out_coord(0u, i.x, t.x);
    let oy = out_coord(1u, i.y, t.y);
    let ox = out_coord(2u, i.z, t.z);
    if (oz < 0 || oy < 0 || ox < 0) { return 0.0; }
    return X0[(((z * p(8u) + u32(oz)) * p(9u) + u32(oy)) * p(10u) + u32(ox)) * cout + co];
}
fn load_b(z: u32, k: u32, n: u32) -> f32 {
    let cout = p(11u);
    return X1[((k / cout) * p(7u) + n) * cout + k % cout];
}
