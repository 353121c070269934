// The elementwise ops, one function per op and compute type, named after the op's JS name:
// `<op>_f32` for float32 and, for ops that keep integer dtypes, `<op>_i32` (int32, and bool as
// 0/1). Unary float ops never see NaN (the kernel passes it through). Helpers follow, with the
// semantics of the cpu backend (JavaScript numbers as tfjs computes them).

// ---- unary ----
fn abs_f32(x: f32) -> f32 { return abs(x); }
fn abs_i32(x: i32) -> i32 { return abs(x); }
fn exp_f32(x: f32) -> f32 { return exp(x); }
fn log_f32(x: f32) -> f32 {
    if (x < 0.0) { return nan_f(); }
    if (x == 0.0) { return -inf_f(); }
    if (is_inf(x)) { return x; }
    return log(x);
}
fn neg_f32(x: f32) -> f32 { return -x; }
fn neg_i32(x: i32) -> i32 { return -x; }
fn relu_f32(x: f32) -> f32 { return select(x, 0.0, x < 0.0); }
fn relu_i32(x: i32) -> i32 { return max(x, 0); }
fn rsqrt_f32(x: f32) -> f32 { return 1.0 / sqrt_f32(x); }
fn sigmoid_f32(x: f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }
fn sqrt_f32(x: f32) -> f32 { if (x < 0.0) { return nan_f(); } return sqrt(x); }
fn square_f32(x: f32) -> f32 { return x * x; }
fn square_i32(x: i32) -> i32 { return x * x; }
fn tanh_f32(x: f32) -> f32 { return tanh_js(x); }

// ---- binary ----
fn add_f32(a: f32, b: f32) -> f32 { return a + b; }
fn add_i32(a: i32, b: i32) -> i32 { return a + b; }
fn div_f32(a: f32, b: f32) -> f32 { return a / b; }
fn div_i32(a: i32, b: i32) -> i32 { return f2i(f32(a) / f32(b)); }
fn floorDiv_f32(a: f32, b: f32) -> f32 { return floordiv_f(a, b); }
fn floorDiv_i32(a: i32, b: i32) -> i32 { return floordiv_i(a, b); }
fn maximum_f32(a: f32, b: f32) -> f32 { return max_js(a, b); }
fn maximum_i32(a: i32, b: i32) -> i32 { return max(a, b); }
fn minimum_f32(a: f32, b: f32) -> f32 { return min_js(a, b); }
fn minimum_i32(a: i32, b: i32) -> i32 { return min(a, b); }
fn mul_f32(a: f32, b: f32) -> f32 { return a * b; }
fn mul_i32(a: i32, b: i32) -> i32 { return a * b; }
fn pow_f32(a: f32, b: f32) -> f32 { return pow_js(a, b); }
fn pow_i32(a: i32, b: i32) -> i32 { return ipow(a, b); }
fn squaredDifference_f32(a: f32, b: f32) -> f32 { let d = a - b; return d * d; }
fn squaredDifference_i32(a: i32, b: i32) -> i32 { let d = a - b; return d * d; }
fn sub_f32(a: f32, b: f32) -> f32 { return a - b; }
fn sub_i32(a: i32, b: i32) -> i32 { return a - b; }

// ---- helpers ----

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
    let t = exp(-2.0 * ax);
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
