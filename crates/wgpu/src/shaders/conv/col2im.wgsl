// A convolution's input gradient as the tiled GEMM (matmul.wgsl): for batch item z, input
// pixel m and input channel n, the sum over k = tap * out_channels + co of
// dy[output pixel that reads m at tap, co] * filter[tap, n, co].
fn load_a(z: u32, m: u32, k: u32) -> f32 {
    let cout = p(11u);
    let co = k % cout;
    let tap = k / cout;
    let tx = tap % p(14u);
    let ty = (tap / p(14u)) % p(13u);
    let tz = tap / (p(14u) * p(13u));
    let ix = m % p(6u);
    let iy = (m / p(6u)) % p(5u);
    let iz = m / (p(6u) * p(5u));
    let oz = out_coord(0u, iz, tz);
    let oy = out_coord(1u, iy, ty);
    let ox = out_coord(2u, ix, tx);
    if (oz < 0 || oy < 0 || ox < 0) { return 0.0; }
    return X0[(((z * p(8u) + u32(oz)) * p(9u) + u32(oy)) * p(10u) + u32(ox)) * cout + co];
}
fn load_b(z: u32, k: u32, n: u32) -> f32 {
    let cout = p(11u);
    return X1[((k / cout) * p(7u) + n) * cout + k % cout];
}
