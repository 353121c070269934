// The elementwise ops, one function per op and compute type, named after the op's JS name:
// `<op>_f32` for float32 and, for ops that compute int32 (and bool as 0/1) in integers,
// `<op>_i32` (the unary launcher uses it wherever it exists). Unary float ops never see NaN
// (the kernel passes it through), except predicates and sign. Helpers follow, with the
// semantics of the cpu backend (JavaScript numbers as tfjs computes them).

// ---- unary ----
fn abs_f32(x: f32) -> f32 { return abs(x); }
fn abs_i32(x: i32) -> i32 { return abs(x); }
fn acos_f32(x: f32) -> f32 {
    if (abs(x) > 1.0) { return nan_f(); }
    if (x < -0.5) { return 3.14159265 - 2.0 * asin_f32(sqrt(0.5 * (1.0 + x))); }
    if (x > 0.5) { return 2.0 * asin_f32(sqrt(0.5 * (1.0 - x))); }
    return 1.57079633 - asin_f32(x);
}
fn acosh_f32(x: f32) -> f32 {
    if (x < 1.0) { return nan_f(); }
    if (is_inf(x)) { return x; }
    // ln(x + sqrt(x^2 - 1)), without overflow for large x.
    if (x > 1e18) { return log_acc(x) + 0.6931472; }
    return log1p_f32((x - 1.0) + sqrt((x - 1.0) * (x + 1.0)));
}
// asin and atan as Cephes computes them in single precision (a few ulp): drivers' builtins
// can be far less accurate (lavapipe's acos is off by 4e-5).
fn asin_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1.0) { return nan_f(); }
    var z: f32;
    var v: f32;
    if (a > 0.5) { z = 0.5 * (1.0 - a); v = sqrt(z); } else { z = a * a; v = a; }
    var y = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z
        + 1.6666752422e-1) * z * v + v;
    if (a > 0.5) { y = 1.57079633 - 2.0 * y; }
    return select(y, -y, x < 0.0);
}
fn asinh_f32(x: f32) -> f32 {
    if (is_inf(x)) { return x; }
    let a = abs(x);
    var r: f32;
    if (a > 1e18) { r = log_acc(a) + 0.6931472; } else { r = log1p_f32(a + a * a / (1.0 + sqrt(1.0 + a * a))); }
    return select(r, -r, x < 0.0);
}
fn atan_f32(x: f32) -> f32 {
    var a = abs(x);
    var y = 0.0;
    if (a > 2.414213562373095) { y = 1.57079633; a = -1.0 / a; }
    else if (a > 0.4142135623730950) { y = 0.78539816; a = (a - 1.0) / (a + 1.0); }
    let z = a * a;
    y += (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * a + a;
    return select(y, -y, x < 0.0);
}
fn atanh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1.0) { return nan_f(); }
    if (a == 1.0) { return select(inf_f(), -inf_f(), x < 0.0); }
    let r = 0.5 * log1p_f32(2.0 * a / (1.0 - a));
    return select(r, -r, x < 0.0);
}
fn ceil_f32(x: f32) -> f32 { return ceil(x); }
fn cos_f32(x: f32) -> f32 {
    if (is_inf(x)) { return nan_f(); }
    let rq = reduce_pio2(abs(x));
    let q = u32(rq.y);
    let y = select(cos_poly(rq.x), sin_poly(rq.x), (q & 1u) == 1u);
    return select(y, -y, q == 1u || q == 2u);
}
fn cosh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 10.0) { let h = exp_acc(0.5 * a); return (0.5 * h) * h; } // e^a / 2 without overflow
    let e = exp_acc(a);
    return 0.5 * e + 0.5 / e;
}
fn elu_f32(x: f32) -> f32 { if (x >= 0.0) { return x; } return expm1_f32(x); }
fn erf_f32(x: f32) -> f32 {
    let v = abs(x);
    if (v < 0.5) {
        // Its Taylor series (error below 1e-9 here): no cancellation near 0.
        let z = x * x;
        return 1.1283791670955126 * x * (1.0 - z * (1.0 / 3.0 - z * (0.1 - z * (1.0 / 42.0 - z * (1.0 / 216.0
            - z * (1.0 / 1320.0 - z / 9360.0))))));
    }
    // Abramowitz and Stegun 7.1.26 beyond (absolute error below 1.5e-7, erf > 0.5).
    let t = 1.0 / (1.0 + 0.3275911 * v);
    let p = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t;
    let r = 1.0 - p * exp_acc(-v * v);
    return select(r, -r, x < 0.0);
}
fn exp_f32(x: f32) -> f32 { return exp_acc(x); }
// expm1 and log1p without forming 1 + x near 0, where it rounds x away (and a compiler may
// reassociate the usual correction terms): series there, exp and log beyond.
fn expm1_f32(x: f32) -> f32 {
    if (abs(x) < 0.35) {
        return x * (1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0 * (1.0 + x / 5.0 * (1.0 + x / 6.0
            * (1.0 + x / 7.0 * (1.0 + x / 8.0 * (1.0 + x / 9.0))))))));
    }
    return exp_acc(x) - 1.0;
}
fn floor_f32(x: f32) -> f32 { return floor(x); }
fn isFinite_f32(x: f32) -> f32 { return select(0.0, 1.0, !is_nan(x) && !is_inf(x)); }
fn isInf_f32(x: f32) -> f32 { return select(0.0, 1.0, is_inf(x)); }
fn isNaN_f32(x: f32) -> f32 { return select(0.0, 1.0, is_nan(x)); }
fn log_f32(x: f32) -> f32 {
    if (x < 0.0) { return nan_f(); }
    if (x == 0.0) { return -inf_f(); }
    if (is_inf(x)) { return x; }
    return log_acc(x);
}
fn log1p_f32(x: f32) -> f32 {
    if (x < -1.0) { return nan_f(); }
    if (x > -0.29 && x < 0.41) {
        // 2 atanh(s), s = x / (2 + x), |s| < 0.172.
        let t = x / (2.0 + x);
        let z = t * t;
        return 2.0 * t * (1.0 + z * (1.0 / 3.0 + z * (0.2 + z * (1.0 / 7.0 + z * (1.0 / 9.0 + z / 11.0)))));
    }
    return log_acc(1.0 + x);
}
fn logicalNot_i32(x: i32) -> i32 { return select(0, 1, x == 0); }
fn neg_f32(x: f32) -> f32 { return -x; }
fn neg_i32(x: i32) -> i32 { return -x; }
fn reciprocal_f32(x: f32) -> f32 { return 1.0 / x; }
fn relu_f32(x: f32) -> f32 { return select(x, 0.0, x < 0.0); }
fn relu_i32(x: i32) -> i32 { return max(x, 0); }
fn relu6_f32(x: f32) -> f32 { return clamp(x, 0.0, 6.0); }
fn relu6_i32(x: i32) -> i32 { return clamp(x, 0, 6); }
fn round_f32(x: f32) -> f32 { return round(x); } // WGSL rounds half to even
fn round_i32(x: i32) -> i32 { return x; }
fn rsqrt_f32(x: f32) -> f32 { return 1.0 / sqrt_f32(x); }
fn selu_f32(x: f32) -> f32 {
    if (x >= 0.0) { return 1.0507009873554805 * x; }
    return 1.7580993408473769 * expm1_f32(x);
}
fn sigmoid_f32(x: f32) -> f32 { return 1.0 / (1.0 + exp_acc(-x)); }
fn sign_f32(x: f32) -> f32 { if (x < 0.0) { return -1.0; } if (x > 0.0) { return 1.0; } return 0.0; }
fn sign_i32(x: i32) -> i32 { return sign(x); }
fn sin_f32(x: f32) -> f32 {
    if (is_inf(x)) { return nan_f(); }
    if (abs(x) <= 0.78539816) { return sin_poly(x); }
    let rq = reduce_pio2(abs(x));
    let q = u32(rq.y);
    var y = select(sin_poly(rq.x), cos_poly(rq.x), (q & 1u) == 1u);
    y = select(y, -y, q >= 2u);
    return select(y, -y, x < 0.0);
}
fn sinh_f32(x: f32) -> f32 {
    let a = abs(x);
    var r: f32;
    if (a < 1.0) {
        let e = expm1_f32(a);
        r = 0.5 * (e + e / (e + 1.0));
    } else if (a > 10.0) {
        let h = exp_acc(0.5 * a);
        r = (0.5 * h) * h; // e^a / 2 without overflow
    } else {
        let e = exp_acc(a);
        r = 0.5 * e - 0.5 / e;
    }
    return select(r, -r, x < 0.0);
}
fn softplus_f32(x: f32) -> f32 {
    // tfjs's thresholds: x itself above, e^x below, where ln(1 + e^x) would only round.
    let threshold = -13.942385; // ln(float32 epsilon) + 2
    if (x < threshold) { return exp_acc(x); }
    if (x > -threshold) { return x; }
    return log1p_f32(exp_acc(x));
}
fn sqrt_f32(x: f32) -> f32 { if (x < 0.0) { return nan_f(); } return sqrt(x); }
fn square_f32(x: f32) -> f32 { return x * x; }
fn square_i32(x: i32) -> i32 { return x * x; }
fn tan_f32(x: f32) -> f32 {
    if (is_inf(x)) { return nan_f(); }
    if (abs(x) <= 0.78539816) { return tan_poly(x); }
    let rq = reduce_pio2(abs(x));
    var y = tan_poly(rq.x);
    if ((u32(rq.y) & 1u) == 1u) { y = -1.0 / y; }
    return select(y, -y, x < 0.0);
}
fn tanh_f32(x: f32) -> f32 { return tanh_js(x); }

// ---- binary ----
// Comparisons test NaN themselves: WGSL lets a compiler assume floats are never NaN.
fn add_f32(a: f32, b: f32) -> f32 { return a + b; }
fn add_i32(a: i32, b: i32) -> i32 { return a + b; }
fn atan2_f32(a: f32, b: f32) -> f32 {
    // Math.atan2(y = a, x = b), signed zeros and infinities included.
    if (is_nan(a) || is_nan(b)) { return nan_f(); }
    let sy = select(1.0, -1.0, (bitcast<u32>(a) & 0x80000000u) != 0u);
    let xneg = (bitcast<u32>(b) & 0x80000000u) != 0u;
    if (is_inf(a) && is_inf(b)) { return sy * select(0.78539816, 2.35619449, xneg); }
    if (is_inf(b) || a == 0.0) { return sy * select(0.0, 3.14159265, xneg); }
    if (is_inf(a) || b == 0.0) { return sy * 1.57079633; }
    let ay = abs(a);
    let ax = abs(b);
    var r: f32;
    if (ay <= ax) { r = atan_f32(ay / ax); } else { r = 1.57079633 - atan_f32(ax / ay); }
    if (xneg) { r = 3.14159265 - r; }
    return sy * r;
}
fn atan2_i32(a: i32, b: i32) -> i32 { return f2i(atan2_f32(f32(a), f32(b))); }
fn div_f32(a: f32, b: f32) -> f32 { return a / b; }
fn div_i32(a: i32, b: i32) -> i32 { return f2i(f32(a) / f32(b)); }
fn divNoNan_f32(a: f32, b: f32) -> f32 { if (b == 0.0) { return 0.0; } return a / b; }
fn divNoNan_i32(a: i32, b: i32) -> i32 { return floordiv_i(a, b); }
fn equal_f32(a: f32, b: f32) -> f32 { return select(0.0, 1.0, !is_nan(a) && !is_nan(b) && a == b); }
fn equal_i32(a: i32, b: i32) -> i32 { return select(0, 1, a == b); }
fn floorDiv_f32(a: f32, b: f32) -> f32 { return floordiv_f(a, b); }
fn floorDiv_i32(a: i32, b: i32) -> i32 { return floordiv_i(a, b); }
fn greater_f32(a: f32, b: f32) -> f32 { return select(0.0, 1.0, !is_nan(a) && !is_nan(b) && a > b); }
fn greater_i32(a: i32, b: i32) -> i32 { return select(0, 1, a > b); }
fn greaterEqual_f32(a: f32, b: f32) -> f32 { return select(0.0, 1.0, !is_nan(a) && !is_nan(b) && a >= b); }
fn greaterEqual_i32(a: i32, b: i32) -> i32 { return select(0, 1, a >= b); }
fn less_f32(a: f32, b: f32) -> f32 { return select(0.0, 1.0, !is_nan(a) && !is_nan(b) && a < b); }
fn less_i32(a: i32, b: i32) -> i32 { return select(0, 1, a < b); }
fn lessEqual_f32(a: f32, b: f32) -> f32 { return select(0.0, 1.0, !is_nan(a) && !is_nan(b) && a <= b); }
fn lessEqual_i32(a: i32, b: i32) -> i32 { return select(0, 1, a <= b); }
fn logicalAnd_i32(a: i32, b: i32) -> i32 { return select(0, 1, a != 0 && b != 0); }
fn logicalOr_i32(a: i32, b: i32) -> i32 { return select(0, 1, a != 0 || b != 0); }
fn logicalXor_i32(a: i32, b: i32) -> i32 { return select(0, 1, (a != 0) != (b != 0)); }
fn maximum_f32(a: f32, b: f32) -> f32 { return max_js(a, b); }
fn maximum_i32(a: i32, b: i32) -> i32 { return max(a, b); }
fn minimum_f32(a: f32, b: f32) -> f32 { return min_js(a, b); }
fn minimum_i32(a: i32, b: i32) -> i32 { return min(a, b); }
fn mod_f32(a: f32, b: f32) -> f32 {
    // tfjs: a % b, and (a % b + b) % b where the signs differ.
    if (is_nan(a) || is_nan(b) || is_inf(a) || b == 0.0) { return nan_f(); }
    let same = (a < 0.0 && b < 0.0) || (a >= 0.0 && b >= 0.0);
    if (is_inf(b)) { return select(nan_f(), a, same); }
    let rem = fmod_exact(a, b);
    if (same) { return rem; }
    return fmod_exact(rem + b, b);
}
fn mod_i32(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) { return r + b; }
    return r;
}
fn mul_f32(a: f32, b: f32) -> f32 { return a * b; }
fn mul_i32(a: i32, b: i32) -> i32 { return a * b; }
fn notEqual_f32(a: f32, b: f32) -> f32 { return select(0.0, 1.0, is_nan(a) || is_nan(b) || a != b); }
fn notEqual_i32(a: i32, b: i32) -> i32 { return select(0, 1, a != b); }
fn pow_f32(a: f32, b: f32) -> f32 { return pow_js(a, b); }
fn pow_i32(a: i32, b: i32) -> i32 { return ipow(a, b); }
fn prelu_f32(a: f32, b: f32) -> f32 { return select(a, a * b, a < 0.0); }
fn squaredDifference_f32(a: f32, b: f32) -> f32 { let d = a - b; return d * d; }
fn squaredDifference_i32(a: i32, b: i32) -> i32 { let d = a - b; return d * d; }
fn sub_f32(a: f32, b: f32) -> f32 { return a - b; }
fn sub_i32(a: i32, b: i32) -> i32 { return a - b; }

// ---- helpers ----

// a % b exactly (JavaScript's %: the sign of a), for finite a and finite nonzero b: subtract
// b scaled by powers of two, each subtraction exact (Sterbenz), at most ~280 steps.
fn fmod_exact(a: f32, b: f32) -> f32 {
    let ab = abs(b);
    var r = abs(a);
    for (var i = 0; i < 300 && r >= ab; i++) {
        var bb = ldexp(frexp(ab).fract, frexp(r).exp);
        if (bb > r) { bb = bb * 0.5; }
        r = r - bb;
    }
    return select(r, -r, a < 0.0 || (a == 0.0 && (bitcast<u32>(a) & 0x80000000u) != 0u));
}

// sin, cos and tan for every float32 argument: |x| = (q + f) pi/2 by Payne-Hanek reduction
// (|x| times 2/pi in exact integer arithmetic, from 2/pi's bits), then Cephes's polynomials on
// |f pi/2| <= pi/4. Drivers' builtins reduce poorly far from 0 (lavapipe's sin(2^31) is -1).
var<private> TWO_OVER_PI: array<u32, 9> = array<u32, 9>(0u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u,
    0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u);

// 32 bits of 2/pi from bit 32 i + s (after 32 zero bits: 2/pi's integer part).
fn two_over_pi_bits(i: u32, s: u32) -> u32 {
    if (s == 0u) { return TWO_OVER_PI[i]; }
    return (TWO_OVER_PI[i] << s) | (TWO_OVER_PI[i + 1u] >> (32u - s));
}

// (r, q) with |x| = q pi/2 + r (mod 2 pi), q in 0..3 and |r| <= pi/4, for finite x >= 0.
fn reduce_pio2(ax: f32) -> vec2<f32> {
    if (ax <= 0.78539816) { return vec2(ax, 0.0); }
    // ax = m 2^e with a 24-bit integer m; bits of 2/pi worth 4 and more times m drop out (mod 4),
    // so a 96-bit window of them from bit e - 1 gives m W 2^-94: 2 bits of q, then the fraction.
    let bits = bitcast<u32>(ax);
    let m = (bits & 0x7fffffu) | 0x800000u;
    let o = (bits >> 23u) - 120u;
    let i = o >> 5u;
    let s = o & 31u;
    let p0 = mul_wide(m, two_over_pi_bits(i, s));
    let p1 = mul_wide(m, two_over_pi_bits(i + 1u, s));
    let p2 = mul_wide(m, two_over_pi_bits(i + 2u, s));
    // mul_wide gives (low, high) words.
    let r1 = p2.y + p1.x;
    let r2 = p1.y + p0.x + select(0u, 1u, r1 < p2.y);
    var q = (r2 >> 30u) & 3u;
    // The fraction's top 62 bits; from one half up it is taken as (fraction - 1), negated in
    // integers: in floats the subtraction would cancel what rounding kept.
    var hi = r2 & 0x3fffffffu;
    var lo = r1;
    var sign = 1.0;
    if ((hi & 0x20000000u) != 0u) {
        hi = 0x3fffffffu - hi;
        lo = ~lo;
        sign = -1.0;
        q = (q + 1u) & 3u;
    }
    let f = sign * (f32(hi) * 9.313225746154785e-10 + f32(lo) * 2.168404344971009e-19);
    return vec2(f * 1.5707963267948966, f32(q));
}

fn sin_poly(r: f32) -> f32 {
    let z = r * r;
    return ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
}
fn cos_poly(r: f32) -> f32 {
    let z = r * r;
    return ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
}
fn tan_poly(r: f32) -> f32 {
    if (abs(r) < 1e-4) { return r; }
    let z = r * r;
    return (((((9.38540185543e-3 * z + 3.11992232697e-3) * z + 2.44301354525e-2) * z + 5.34112807005e-2) * z
        + 1.33387994085e-1) * z + 3.33331568548e-1) * z * r + r;
}

// ln x to about 1 ulp, as Cephes computes it in single precision: drivers' builtins can be
// far less accurate (lavapipe's log is off by 2e-5 near 1). exp_acc is in common.wgsl.
fn log_acc(x: f32) -> f32 {
    if (is_nan(x) || x < 0.0) { return nan_f(); }
    if (x == 0.0) { return -inf_f(); }
    if (is_inf(x)) { return x; }
    let fr = frexp(x); // x = m 2^e, m in [0.5, 1)
    var e = f32(fr.exp);
    var m = fr.fract;
    if (m < 0.70710678) { e -= 1.0; m = m + m - 1.0; } else { m = m - 1.0; }
    let z = m * m;
    var y = ((((((((7.0376836292e-2 * m - 1.1514610310e-1) * m + 1.1676998740e-1) * m - 1.2420140846e-1) * m
        + 1.4249322787e-1) * m - 1.6668057665e-1) * m + 2.0000714765e-1) * m - 2.4999993993e-1) * m
        + 3.3333331174e-1) * m * z;
    y += -2.12194440e-4 * e;
    y += -0.5 * z;
    return (m + y) + 0.693359375 * e;
}

// Math.max / Math.min: NaN wins; otherwise as the cpu backend picks (a if strictly greater).
fn max_js(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) { return nan_f(); }
    return select(b, a, a > b);
}
fn min_js(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) { return nan_f(); }
    return select(b, a, a < b);
}

// tanh without overflow and accurate near 0: Lambert's continued fraction for |x| < 0.625,
// (1 - e^-2|x|) / (1 + e^-2|x|) beyond (no cancellation there, and e^-2|x| cannot overflow).
fn tanh_js(x: f32) -> f32 {
    let ax = abs(x);
    if (ax < 0.625) {
        let x2 = x * x;
        return x / (1.0 + x2 / (3.0 + x2 / (5.0 + x2 / (7.0 + x2 / (9.0 + x2 / (11.0 + x2 / 13.0))))));
    }
    let t = exp_acc(-2.0 * ax);
    let r = (1.0 - t) / (1.0 + t);
    return select(r, -r, x < 0.0);
}

// JavaScript Math.pow: negative bases with integer exponents, 1 ** NaN = NaN,
// (+-1) ** +-Infinity = NaN, x ** 0 = 1 (even for NaN). Small integer exponents multiply
// (exact to a few ulp); others go through exp2(b * log2|a|).
fn pow_js(a: f32, b: f32) -> f32 {
    if (is_nan(b)) { return nan_f(); }
    if (b == 0.0) { return 1.0; }
    if (is_nan(a)) { return nan_f(); }
    let ab = abs(a);
    if (is_inf(b)) {
        if (ab == 1.0) { return nan_f(); }
        if ((ab > 1.0) == (b > 0.0)) { return inf_f(); }
        return 0.0;
    }
    let is_int = floor(b) == b;
    if (a < 0.0 && !is_int) { return nan_f(); }
    let odd = is_int && abs(b) < 16777216.0 && (u32(abs(b)) & 1u) == 1u;
    let neg = odd && (bitcast<u32>(a) >> 31u) == 1u;
    var r: f32;
    if (ab == 0.0) {
        r = select(0.0, inf_f(), b < 0.0);
    } else if (is_inf(ab)) {
        r = select(inf_f(), 0.0, b < 0.0);
    } else if (is_int && abs(b) <= 64.0) {
        var e = u32(abs(b));
        var base = ab;
        r = 1.0;
        loop {
            if (e == 0u) { break; }
            if ((e & 1u) == 1u) { r = r * base; }
            base = base * base;
            e = e >> 1u;
        }
        if (b < 0.0) { r = 1.0 / r; }
    } else {
        r = exp2(b * log2(ab));
    }
    return select(r, -r, neg);
}

// Full 64-bit product of two u32s as (lo, hi).
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// int32 pow exactly as the cpu backend computes it: Math.pow in f64, then ToInt32. |a|^b is
// computed exactly in 96 bits, rounded to f64's 53 significant bits (ties to even), and its low
// 32 bits kept; from 2^84 up (Infinity included) every f64 is a multiple of 2^32, i.e. 0.
fn ipow(a: i32, b: i32) -> i32 {
    if (b == 0) { return 1; }
    if (b < 0) {
        if (a == 1) { return 1; }
        if (a == -1) { return select(1, -1, (b & 1) != 0); }
        return 0; // |a| >= 2 gives |r| < 1; 0 ** -n is Infinity: both store as 0
    }
    let neg = a < 0 && (b & 1) == 1;
    let m = select(u32(a), 0u - bitcast<u32>(a), a < 0);
    if (m <= 1u) { return select(i32(m), -i32(m), neg); }
    var x0 = 1u;
    var x1 = 0u;
    var x2 = 0u;
    for (var i = 0; i < b; i++) {
        let p0 = mul_wide(x0, m);
        let p1 = mul_wide(x1, m);
        let p2 = mul_wide(x2, m);
        x0 = p0.x;
        let t = p0.y + p1.x;
        x2 = p1.y + p2.x + select(0u, 1u, t < p0.y);
        x1 = t;
        if (x2 >= (1u << 20u)) { return 0; } // >= 2^84 (m >= 2, so at most 84 rounds)
    }
    var h: u32;
    if (x2 != 0u) { h = 64u + firstLeadingBit(x2); } else if (x1 != 0u) { h = 32u + firstLeadingBit(x1); } else { h = firstLeadingBit(x0); }
    var low = x0;
    if (h > 52u) {
        let shift = h - 52u; // 1..31
        let rem = x0 & ((1u << shift) - 1u);
        let half = 1u << (shift - 1u);
        let odd = ((x0 >> shift) & 1u) == 1u;
        low = x0 - rem;
        if (rem > half || (rem == half && odd)) { low = low + (1u << shift); }
    }
    if (neg) { low = 0u - low; }
    return bitcast<i32>(low);
}

// floor(a / b) of the exact quotient, as tfjs's cpu backend gets it dividing in float64: the
// float32 quotient can round up onto an integer (1 / 0.1 gives 10.0, the floor is 9), so the
// remainder a - q*b is computed exactly (Dekker's product) and q lowered when its sign is
// wrong. Quotients of 2^24 and more are left as float32 computes them.
fn floordiv_f(a: f32, b: f32) -> f32 {
    let q = floor(a / b);
    if (is_nan(q) || is_inf(q) || abs(q) >= 16777216.0) { return q; }
    let p = q * b;
    let sq = split12(q);
    let sb = split12(b);
    let err = ((sq.x * sb.x - p) + sq.x * sb.y + sq.y * sb.x) + sq.y * sb.y;
    let r = (a - p) - err;
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) { return q - 1.0; }
    return q;
}

// x as hi + lo with 12 significant bits each (Veltkamp), so their products are exact.
fn split12(x: f32) -> vec2<f32> {
    let c = 4097.0 * x;
    let hi = c - (c - x);
    return vec2<f32>(hi, x - hi);
}

// tfjs floorDiv of int32: floor(a / b); a / 0 is +-Infinity or NaN, stored as 0.
fn floordiv_i(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    var q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) { q = q - 1; }
    return q;
}
