// Convolution as the tiled GEMM (matmul.wgsl) over an implicit im2col: for batch item z,
// A[m, k] is the input value that output pixel m reads at tap k / in_channels, channel
// k % in_channels (0 in the padding); B is the filter [taps * in_channels, out_channels].
fn load_a(z: u32, m: u32, k: u32) -> f32 {
    let cin = p(7u);
    let c = k % cin;
    let tap = k / cin;
    let t = tap_zyx(tap);
    let o = pixel_zyx(m, 8u);
    let iz = in_coord(0u, o.x, t.x);
    let iy = in_coord(1u, o.y, t.y);
    let ix = in_coord(2u, o.z, t.z);
    if (iz < 0 || iy < 0 || ix < 0) { return 0.0; }
    return X0[in_pixel(z, u32(iz), u32(iy), u32(ix)) * cin + c];
}
fn load_b(z: u32, k: u32, n: u32) -> f32 { return X1[k * p(11u) + n]; }
