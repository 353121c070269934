// The window geometry of every conv kernel (p3..p23, see kernels/conv.rs): input size
// d, h, w (p4..p6) and channels (p7), output size (p8..p10) and channels (p11), filter size
// (p12..p14), strides (p15..p17), dilations (p18..p20) and leading pads (p21..p23, as i32).

// The input coordinate on axis `a` (0: depth, 1: height, 2: width) that output `o` reads at
// tap `t`; -1 outside the input.
fn in_coord(a: u32, o: u32, t: u32) -> i32 {
    let i = i32(o * p(15u + a)) - bitcast<i32>(p(21u + a)) + i32(t * p(18u + a));
    if (i < 0 || i >= i32(p(4u + a))) { return -1; }
    return i;
}

// The output coordinate on axis `a` whose window reads input `i` at tap `t`; -1 for none.
fn out_coord(a: u32, i: u32, t: u32) -> i32 {
    let num = i32(i) + bitcast<i32>(p(21u + a)) - i32(t * p(18u + a));
    let s = i32(p(15u + a));
    if (num < 0 || num % s != 0) { return -1; }
    let o = num / s;
    if (o >= i32(p(8u + a))) { return -1; }
    return o;
}

// Pixel index (without channels) of input position (b, z, y, x).
fn in_pixel(b: u32, z: u32, y: u32, x: u32) -> u32 {
    return ((b * p(4u) + z) * p(5u) + y) * p(6u) + x;
}

// Tap index of filter position (z, y, x).
fn tap_of(z: u32, y: u32, x: u32) -> u32 {
    return (z * p(13u) + y) * p(14u) + x;
}

// Filter position (z, y, x) of tap `t`.
fn tap_zyx(t: u32) -> vec3<u32> {
    return vec3<u32>(t / (p(14u) * p(13u)), (t / p(14u)) % p(13u), t % p(14u));
}

// Position (z, y, x) of pixel `m` of one image of spatial size (d, h, w) = (p(b), p(b+1), p(b+2)).
fn pixel_zyx(m: u32, b: u32) -> vec3<u32> {
    return vec3<u32>(m / (p(b + 2u) * p(b + 1u)), (m / p(b + 2u)) % p(b + 1u), m % p(b + 2u));
}
