// Prepended to every kernel. Bindings: inputs X0..Xn-1 (read-only storage), output Y, and
// the 256-byte parameter block P (uniform, dynamic offset). Words 0..59 are the kernel's own
// parameters; words 60/61 hold NaN and +Infinity, passed in at run time because WGSL constant
// expressions may not produce them.
@group(0) @binding($PB) var<uniform> P: array<vec4<u32>, 16>;

fn p(i: u32) -> u32 { return P[i >> 2u][i & 3u]; }
fn nan_f() -> f32 { return bitcast<f32>(P[15].x); }
fn inf_f() -> f32 { return bitcast<f32>(P[15].y); }

// NaN/Infinity tests on the bits: comparisons may be optimised on the assumption of no NaN.
fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn is_inf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }

// JavaScript ToInt32 (what storing into an Int32Array does): truncate toward zero, wrap
// modulo 2^32, NaN and +-Infinity become 0. WGSL's i32(f32) saturates instead.
fn f2i(x: f32) -> i32 {
    if ((bitcast<u32>(x) & 0x7fffffffu) >= 0x7f800000u) { return 0; }
    if (abs(x) < 2147483648.0) { return i32(x); }
    // |x| >= 2^31 is an integer; every step below is exact in f32.
    let r = x - floor(x / 4294967296.0) * 4294967296.0;
    return bitcast<i32>(u32(r));
}

// cast to bool: x != 0 (NaN is true).
fn f2b(x: f32) -> u32 { return select(0u, 1u, (bitcast<u32>(x) & 0x7fffffffu) != 0u); }
// A computed value stored in a bool tensor, as a Uint8Array stores it: NaN is 0.
// A computed value stored in a bool tensor: nonzero as a Uint8Array byte (see the cpu backend).
fn f2b_store(x: f32) -> u32 {
    if (is_nan(x) || is_inf(x)) { return 0u; }
    let t = trunc(x);
    return select(0u, 1u, t - 256.0 * floor(t / 256.0) != 0.0);
}
fn i2b(x: i32) -> u32 { return select(0u, 1u, x != 0); }

// Workgroup number in a 1-D launch spread over a 2-D grid (>65,535 workgroups).
fn flat(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.y * nwg.x + wid.x; }

// e^x to about 1 ulp, as Cephes computes it in single precision: drivers' builtins can be
// far less accurate (lavapipe's exp is off by 3e-6 at -60).
fn exp_acc(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    if (x > 88.72284) { return inf_f(); }
    if (x < -103.97208) { return 0.0; }
    // x = n ln2 + r, |r| <= ln2 / 2 (Cody-Waite: ln2 in two parts, n * hi exact).
    let n = round(x * 1.44269504);
    let r = (x - n * 0.693359375) + n * 2.12194440e-4;
    let z = r * r;
    let p = (((((1.9875691500e-4 * r + 1.3981999507e-3) * r + 8.3334519073e-3) * r + 4.1665795894e-2) * r
        + 1.6666665459e-1) * r + 5.0000001201e-1) * z + r + 1.0;
    // 2^n in two steps: 2^128 itself is not a float.
    let k = i32(n);
    return ldexp(ldexp(p, k / 2), k - k / 2);
}
