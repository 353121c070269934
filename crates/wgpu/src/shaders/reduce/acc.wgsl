// The reductions' accumulators, one set per op and accumulator type, named `<op>_<acc>_*`:
// `from` turns an input element into an accumulator, `ident` is the identity, `comb` combines
// two partial results, `fin` gives the final value. Accumulators: `f32` for float32 input,
// `i32` for int32 and bool (as 0/1), and `i64` for the mean of integers: exact 64-bit sums as
// vec2<u32> (low, high) words, divided once at the end (p4 is the row length).

fn sum_f32_from(v: f32) -> f32 { return v; }
fn sum_f32_ident() -> f32 { return 0.0; }
fn sum_f32_comb(a: f32, b: f32) -> f32 { return a + b; }
fn sum_f32_fin(a: f32) -> f32 { return a; }

fn mean_f32_from(v: f32) -> f32 { return v; }
fn mean_f32_ident() -> f32 { return 0.0; }
fn mean_f32_comb(a: f32, b: f32) -> f32 { return a + b; }
fn mean_f32_fin(a: f32) -> f32 { return a / f32(p(4u)); }

// Max and min propagate NaN, as tfjs's `isNaN(v) || v > max` does.
fn max_f32_from(v: f32) -> f32 { return v; }
fn max_f32_ident() -> f32 { return -inf_f(); }
fn max_f32_comb(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) { return nan_f(); }
    return select(a, b, b > a);
}
fn max_f32_fin(a: f32) -> f32 { return a; }

fn min_f32_from(v: f32) -> f32 { return v; }
fn min_f32_ident() -> f32 { return inf_f(); }
fn min_f32_comb(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) { return nan_f(); }
    return select(a, b, b < a);
}
fn min_f32_fin(a: f32) -> f32 { return a; }

fn prod_f32_from(v: f32) -> f32 { return v; }
fn prod_f32_ident() -> f32 { return 1.0; }
fn prod_f32_comb(a: f32, b: f32) -> f32 { return a * b; }
fn prod_f32_fin(a: f32) -> f32 { return a; }

fn sum_i32_from(v: i32) -> i32 { return v; }
fn sum_i32_ident() -> i32 { return 0; }
fn sum_i32_comb(a: i32, b: i32) -> i32 { return a + b; }
fn sum_i32_fin(a: i32) -> i32 { return a; }

fn prod_i32_from(v: i32) -> i32 { return v; }
fn prod_i32_ident() -> i32 { return 1; }
fn prod_i32_comb(a: i32, b: i32) -> i32 { return a * b; }
fn prod_i32_fin(a: i32) -> i32 { return a; }

// all / any of bool values (0/1).
fn all_i32_from(v: i32) -> i32 { return select(0, 1, v != 0); }
fn all_i32_ident() -> i32 { return 1; }
fn all_i32_comb(a: i32, b: i32) -> i32 { return a & b; }
fn all_i32_fin(a: i32) -> i32 { return a; }

fn any_i32_from(v: i32) -> i32 { return select(0, 1, v != 0); }
fn any_i32_ident() -> i32 { return 0; }
fn any_i32_comb(a: i32, b: i32) -> i32 { return a | b; }
fn any_i32_fin(a: i32) -> i32 { return a; }

fn max_i32_from(v: i32) -> i32 { return v; }
fn max_i32_ident() -> i32 { return bitcast<i32>(0x80000000u); }
fn max_i32_comb(a: i32, b: i32) -> i32 { return max(a, b); }
fn max_i32_fin(a: i32) -> i32 { return a; }

fn min_i32_from(v: i32) -> i32 { return v; }
fn min_i32_ident() -> i32 { return 2147483647; }
fn min_i32_comb(a: i32, b: i32) -> i32 { return min(a, b); }
fn min_i32_fin(a: i32) -> i32 { return a; }

fn mean_i64_from(v: i32) -> vec2<u32> { return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0)); }
fn mean_i64_ident() -> vec2<u32> { return vec2<u32>(0u, 0u); }
fn mean_i64_comb(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}
fn mean_i64_fin(a: vec2<u32>) -> f32 {
    let neg = (a.y >> 31u) == 1u;
    var lo = a.x;
    var hi = a.y;
    if (neg) { lo = ~a.x + 1u; hi = ~a.y + select(0u, 1u, lo == 0u); }
    let m = f32(hi) * 4294967296.0 + f32(lo);
    return select(m, -m, neg) / f32(p(4u));
}

// argMax / argMin: whether `a` beats the best so far `b`, and whether a value is NaN (NaN
// wins, at its first index, as in tfjs).
fn argMax_f32_better(a: f32, b: f32) -> bool { return a > b; }
fn argMin_f32_better(a: f32, b: f32) -> bool { return a < b; }
fn argMax_i32_better(a: i32, b: i32) -> bool { return a > b; }
fn argMin_i32_better(a: i32, b: i32) -> bool { return a < b; }
fn vnan_f32(v: f32) -> bool { return is_nan(v); }
fn vnan_i32(v: i32) -> bool { return false; }
