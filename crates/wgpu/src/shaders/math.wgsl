// Scalar helpers of the elementwise kernels, with the semantics of the cpu backend (JavaScript
// numbers as tfjs computes them).

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

// int32 pow as the cpu backend computes it (Math.pow, then ToInt32): exact while |a^b| < 2^53,
// computed with wrapping multiplication (the cpu backend rounds to f64 beyond that).
fn ipow(a: i32, b: i32) -> i32 {
    if (b < 0) {
        if (a == 1) { return 1; }
        if (a == -1) { return select(1, -1, (b & 1) != 0); }
        return 0; // |a| >= 2 gives |r| < 1; 0 ** -n is Infinity: both store as 0
    }
    var r = 1;
    var base = a;
    var e = u32(b);
    loop {
        if (e == 0u) { break; }
        if ((e & 1u) == 1u) { r = r * base; }
        base = base * base;
        e = e >> 1u;
    }
    return r;
}

// tfjs floorDiv of int32: floor(a / b); a / 0 is +-Infinity or NaN, stored as 0.
fn floordiv_i(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    var q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) { q = q - 1; }
    return q;
}
