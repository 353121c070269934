//! Elementwise kernels: cast, the unary and binary op tables, broadcasting.

use rayon::prelude::*;
use tidytensor_core::{bail, Activation, BinaryOp, DType, Result, UnaryOp};

use crate::convert::{with_out, Num, OutElem};
use crate::pool::{self, Pooled};
use crate::{HostData, PAR_CHUNK, PAR_THRESHOLD};

/// `f` over every element into a (pooled) buffer, on threads when the tensor is large.
#[inline]
pub(crate) fn map1<T: Copy + Sync, O: Pooled>(x: &[T], f: impl Fn(T) -> O + Sync + Send) -> Vec<O> {
    let mut out = pool::take(x.len());
    if x.len() >= PAR_THRESHOLD {
        out.par_chunks_mut(PAR_CHUNK).zip(x.par_chunks(PAR_CHUNK)).for_each(|(o, x)| apply(o, x, &f));
    } else {
        apply(&mut out, x, &f);
    }
    out
}

/// The loop of [`map1`], compiled for AVX2 and AVX-512 too and picked at run time: the op's
/// body is inlined into each version, so it vectorises as wide as the CPU allows. Pass an
/// `#[inline(always)]` fn, not a closure, when the body is more than a few instructions: a
/// closure is compiled apart, without the version's features, and a large one is called
/// per element instead of inlined (`exp` ran 10 times slower than `neg` that way).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn apply<T: Copy, O, F: Fn(T) -> O>(out: &mut [O], x: &[T], f: &F) {
    for (o, &v) in out.iter_mut().zip(x) {
        *o = f(v);
    }
}

/// e^x in float32 to about 1 ulp, as Cephes' `expf` computes it: x = n ln2 + r with |r| ≤ ln2/2
/// (Cody–Waite), a degree-6 polynomial for e^r, and 2^n built from exponent bits. Pure
/// arithmetic with no branch or call, so a loop of it vectorises (the C library's `expf` is a
/// call per element, several times slower).
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    const HI: f32 = 88.72284;
    const LO: f32 = -103.97208;
    // Selects, not `clamp` and `as i32` (their panics and saturation keep LLVM from vectorising).
    let xc = if x > HI {
        HI
    } else if x < LO {
        LO
    } else if x.is_nan() {
        0.0
    } else {
        x
    };
    // Round to nearest with the 1.5 * 2^23 trick: the sum's low mantissa bits hold n as an
    // integer (|n| < 2^22), so no SSE4.1 `round` and no float-to-int conversion is needed.
    const MAGIC: f32 = 12582912.0;
    let t = xc * std::f32::consts::LOG2_E + MAGIC;
    let n = t - MAGIC;
    let r = (xc - n * 0.693_359_4) + n * 2.121_944_4e-4;
    let z = r * r;
    let p = (((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r + 0.166_666_65)
        * r
        + 0.5)
        * z
        + r
        + 1.0;
    // 2^n in two factors: n spans [-150, 128], beyond one exponent field.
    let k = (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
    let half = k >> 1;
    let s1 = f32::from_bits(((half + 127) as u32) << 23);
    let s2 = f32::from_bits(((k - half + 127) as u32) << 23);
    let y = p * s1 * s2;
    if x > HI {
        f32::INFINITY
    } else if x < LO {
        0.0
    } else if x.is_nan() {
        x
    } else {
        y
    }
}

pub(crate) fn cast(x: &HostData, dtype: DType) -> HostData {
    if x.dtype() == dtype {
        return x.clone();
    }
    match x {
        HostData::F32(v) => cast_vec(v, dtype),
        HostData::I32(v) => cast_vec(v, dtype),
        HostData::Bool(v) => cast_vec(v, dtype),
    }
}

fn cast_vec<T: Num>(v: &[T], dtype: DType) -> HostData {
    match dtype {
        DType::Bool => HostData::Bool(map1(v, T::to_bool)),
        _ => with_out!(dtype, O => map1(v, O::from_num)),
    }
}

/// The CPU body of every unary op, one line each, in three groups:
/// - `f32`: `|a| float32 body`, then `int |a| body` for the ops that keep integer dtypes
///   (`Same`: int32, and bool as 0/1, computed in i32);
/// - `f64`: `|a| body` computed in f64 on the value, as tfjs computes with JavaScript numbers,
///   then stored as the input's dtype (float32; int32 by ToInt32; bool as a Uint8Array byte);
/// - `test`: `|a| bool body` on the value as f64, stored as bool.
macro_rules! unary_kernels {
    (
        f32: { $($op:ident => |$a:ident| $f:expr $(, int |$ai:ident| $i:expr)?;)* }
        f64: { $($op2:ident => |$a2:ident| $f2:expr;)* }
        test: { $($op3:ident => |$a3:ident| $f3:expr;)* }
    ) => {
        pub(crate) fn unary(op: UnaryOp, x: &HostData) -> Result<HostData> {
            Ok(match op {
                $(UnaryOp::$op => match x {
                    HostData::F32(v) => {
                        #[inline(always)]
                        fn body($a: f32) -> f32 {
                            $f
                        }
                        HostData::F32(map1(v, body))
                    }
                    HostData::I32(v) => HostData::I32(unary_int(op, v)?),
                    HostData::Bool(v) => HostData::Bool(unary_int(op, v)?),
                },)*
                $(UnaryOp::$op2 => {
                    let f = |$a2: f64| -> f64 { $f2 };
                    match x {
                        HostData::F32(v) => HostData::F32(map1(v, |v: f32| f(v as f64) as f32)),
                        HostData::I32(v) => HostData::I32(map1(v, |v: i32| i32::from_num(f(v as f64)))),
                        HostData::Bool(v) => HostData::Bool(map1(v, |v: u8| u8::from_num(f(v as f64)))),
                    }
                })*
                $(UnaryOp::$op3 => {
                    let f = |$a3: f64| -> bool { $f3 };
                    HostData::Bool(match x {
                        HostData::F32(v) => map1(v, |v: f32| f(v as f64) as u8),
                        HostData::I32(v) => map1(v, |v: i32| f(v as f64) as u8),
                        HostData::Bool(v) => map1(v, |v: u8| f(v as f64) as u8),
                    })
                })*
            })
        }

        fn unary_int<T: Num, O: OutElem + Pooled>(op: UnaryOp, x: &[T]) -> Result<Vec<O>> {
            #[allow(unreachable_patterns)]
            Ok(match op {
                $($(UnaryOp::$op => map1(x, |v: T| { let $ai = v.to_i32(); O::from_num($i) }),)?)*
                _ => bail!("cpu backend: {} has no integer kernel", op.js_name()),
            })
        }
    };
}

unary_kernels! {
    f32: {
        Abs => |a| a.abs(), int |a| a.wrapping_abs();
        Erf => |a| erf_f32(a);
        Exp => |a| exp_f32(a);
        Log => |a| a.ln();
        LogicalNot => |a| (a == 0.0) as u8 as f32, int |a| (a == 0) as i32;
        Neg => |a| -a, int |a| a.wrapping_neg();
        Relu => |a| if a < 0.0 { 0.0 } else { a }, int |a| a.max(0);
        Rsqrt => |a| 1.0 / a.sqrt();
        Sigmoid => |a| 1.0 / (1.0 + exp_f32(-a));
        Sqrt => |a| a.sqrt();
        Square => |a| a * a, int |a| a.wrapping_mul(a);
        Tanh => |a| a.tanh();
    }
    f64: {
        Acos => |a| a.acos();
        Acosh => |a| a.acosh();
        Asin => |a| a.asin();
        Asinh => |a| a.asinh();
        Atan => |a| a.atan();
        Atanh => |a| a.atanh();
        Ceil => |a| a.ceil();
        Cos => |a| a.cos();
        Cosh => |a| a.cosh();
        Elu => |a| if a >= 0.0 { a } else { a.exp_m1() };
        Expm1 => |a| a.exp_m1();
        Floor => |a| a.floor();
        Log1p => |a| a.ln_1p();
        Reciprocal => |a| 1.0 / a;
        Relu6 => |a| a.clamp(0.0, 6.0);
        Round => |a| round_half_even(a);
        Selu => |a| if a >= 0.0 { SELU_SCALE * a } else { SELU_SCALE_ALPHA * a.exp_m1() };
        Sign => |a| if a < 0.0 { -1.0 } else if a > 0.0 { 1.0 } else { 0.0 };
        Sin => |a| a.sin();
        Sinh => |a| a.sinh();
        Softplus => |a| softplus(a);
        Tan => |a| a.tan();
    }
    test: {
        IsFinite => |a| a.is_finite();
        IsInf => |a| a.is_infinite();
        IsNaN => |a| a.is_nan();
    }
}

/// erf in float32 arithmetic, so that it vectorises (GELU runs it on every hidden unit): its
/// Taylor series below 0.5 (no cancellation near 0), Abramowitz and Stegun 7.1.26 beyond (the
/// formula tfjs's erf kernel uses; absolute error below 1.5e-7). The wgpu shader's erf is the
/// same.
#[inline(always)]
fn erf_f32(x: f32) -> f32 {
    // Both branches, then a select: branch-free, so the loop vectorises.
    let v = x.abs();
    let z = x * x;
    let near = std::f32::consts::FRAC_2_SQRT_PI
        * x
        * (1.0 - z * (1.0 / 3.0 - z * (0.1 - z * (1.0 / 42.0 - z * (1.0 / 216.0 - z * (1.0 / 1320.0 - z / 9360.0))))));
    let t = 1.0 / (1.0 + 0.327_591_1 * v);
    let p = ((((1.061_405_4 * t - 1.453_152) * t + 1.421_413_8) * t - 0.284_496_74) * t + 0.254_829_6) * t;
    let r = 1.0 - p * exp_f32(-z);
    let far = if x < 0.0 { -r } else { r };
    if v < 0.5 {
        near
    } else {
        far
    }
}

/// tfjs's SELU constants.
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;
const SELU_SCALE_ALPHA: f64 = 1.758_099_340_847_376_9;

/// Rounds half to even, with tfjs's sign of zero (`round(-0.5)` is +0).
#[inline]
fn round_half_even(a: f64) -> f64 {
    let base = a.floor();
    let d = a - base;
    if d < 0.5 {
        base
    } else if d > 0.5 {
        a.ceil()
    } else if base % 2.0 == 0.0 {
        base
    } else {
        base + 1.0
    }
}

/// tfjs's softplus: `x` itself above, `e^x` below the float32 epsilon thresholds, where
/// `ln(1 + e^x)` would only round.
#[inline]
fn softplus(a: f64) -> f64 {
    let threshold = (f32::EPSILON as f64).ln() + 2.0;
    if a < threshold {
        a.exp()
    } else if a > -threshold {
        a
    } else {
        (1.0 + a.exp()).ln()
    }
}

/// JavaScript `Math.pow`, which differs from IEEE `pow` on `1 ** NaN` and `(±1) ** ±Infinity`
/// (both NaN in JavaScript).
#[inline]
pub(crate) fn js_pow(a: f64, b: f64) -> f64 {
    if b.is_nan() || (b.is_infinite() && a.abs() == 1.0) {
        f64::NAN
    } else {
        a.powf(b)
    }
}

/// JavaScript `Math.max` / `Math.min` on f32: NaN wins.
#[inline(always)]
fn js_max(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else if b >= a {
        b
    } else {
        f32::NAN
    }
}

#[inline(always)]
fn js_min(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else if b <= a {
        b
    } else {
        f32::NAN
    }
}

/// The CPU body of every binary op, one line each: `|a, b| float32 body, int |a, b| i32 body`
/// (int32, and bool as 0/1). Results are stored as the output dtype.
macro_rules! binary_kernels {
    ($($op:ident => |$a:ident, $b:ident| $f:expr, int |$ai:ident, $bi:ident| $i:expr;)*) => {
        pub(crate) fn binary(op: BinaryOp, x: &HostData, y: &HostData, s: &Shapes, out: DType) -> Result<HostData> {
            Ok(match (x, y) {
                (HostData::F32(x), HostData::F32(y)) => match op {
                    $(BinaryOp::$op => with_out!(out, O => broadcast_map(x, y, s, |$a: f32, $b: f32| O::from_num($f))),)*
                },
                (HostData::I32(x), HostData::I32(y)) => binary_int(op, x, y, s, out),
                (HostData::Bool(x), HostData::Bool(y)) => binary_int(op, x, y, s, out),
                _ => bail!("cpu backend: {} of {} and {} tensors", op.js_name(), x.dtype().name(), y.dtype().name()),
            })
        }

        fn binary_int<T: Num>(op: BinaryOp, x: &[T], y: &[T], s: &Shapes, out: DType) -> HostData {
            match op {
                $(BinaryOp::$op => with_out!(out, O => broadcast_map(x, y, s, |p: T, q: T| {
                    let ($ai, $bi) = (p.to_i32(), q.to_i32());
                    O::from_num($i)
                })),)*
            }
        }
    };
}

binary_kernels! {
    Add => |a, b| a + b, int |a, b| a.wrapping_add(b);
    Atan2 => |a, b| (a as f64).atan2(b as f64), int |a, b| (a as f64).atan2(b as f64);
    Div => |a, b| a / b, int |a, b| a as f64 / b as f64;
    DivNoNan => |a, b| if b == 0.0 { 0.0 } else { a / b }, int |a, b| if b == 0 { 0.0 } else { (a as f64 / b as f64).floor() };
    Equal => |a, b| (a == b) as u8, int |a, b| (a == b) as u8;
    FloorDiv => |a, b| (a as f64 / b as f64).floor(), int |a, b| (a as f64 / b as f64).floor();
    Greater => |a, b| (a > b) as u8, int |a, b| (a > b) as u8;
    GreaterEqual => |a, b| (a >= b) as u8, int |a, b| (a >= b) as u8;
    Less => |a, b| (a < b) as u8, int |a, b| (a < b) as u8;
    LessEqual => |a, b| (a <= b) as u8, int |a, b| (a <= b) as u8;
    LogicalAnd => |a, b| (a != 0.0 && b != 0.0) as u8, int |a, b| (a != 0 && b != 0) as u8;
    LogicalOr => |a, b| (a != 0.0 || b != 0.0) as u8, int |a, b| (a != 0 || b != 0) as u8;
    LogicalXor => |a, b| ((a != 0.0) != (b != 0.0)) as u8, int |a, b| ((a != 0) != (b != 0)) as u8;
    Maximum => |a, b| js_max(a, b), int |a, b| a.max(b);
    Minimum => |a, b| js_min(a, b), int |a, b| a.min(b);
    Mod => |a, b| js_mod(a as f64, b as f64), int |a, b| js_mod(a as f64, b as f64);
    Mul => |a, b| a * b, int |a, b| a.wrapping_mul(b);
    NotEqual => |a, b| (a != b) as u8, int |a, b| (a != b) as u8;
    Pow => |a, b| js_pow(a as f64, b as f64) as f32, int |a, b| js_pow(a as f64, b as f64);
    Prelu => |a, b| if a < 0.0 { a * b } else { a }, int |a, b| if a < 0 { a.wrapping_mul(b) } else { a };
    SquaredDifference => |a, b| (a - b) * (a - b), int |a, b| a.wrapping_sub(b).wrapping_mul(a.wrapping_sub(b));
    Sub => |a, b| a - b, int |a, b| a.wrapping_sub(b);
}

/// tfjs's mod: the remainder with the divisor's sign, `(a % b + b) % b` where signs differ.
#[inline]
fn js_mod(a: f64, b: f64) -> f64 {
    let rem = a % b;
    if (a < 0.0 && b < 0.0) || (a >= 0.0 && b >= 0.0) {
        rem
    } else {
        (rem + b) % b
    }
}

/// `tf.where`: `a` where `cond` is nonzero, else `b`; shapes padded to `out`'s rank.
pub(crate) fn select(
    cond: &HostData,
    a: &HostData,
    b: &HostData,
    shapes: [&[usize]; 3],
    out: &[usize],
) -> Result<HostData> {
    let HostData::Bool(c) = cond else { bail!("cpu select: the condition must be bool") };
    Ok(match (a, b) {
        (HostData::F32(a), HostData::F32(b)) => HostData::F32(select_typed(c, a, b, shapes, out)),
        (HostData::I32(a), HostData::I32(b)) => HostData::I32(select_typed(c, a, b, shapes, out)),
        (HostData::Bool(a), HostData::Bool(b)) => HostData::Bool(select_typed(c, a, b, shapes, out)),
        _ => bail!("cpu select: a and b must have one dtype"),
    })
}

fn select_typed<T: Copy + Send + Sync + Pooled>(
    c: &[u8],
    a: &[T],
    b: &[T],
    shapes: [&[usize]; 3],
    out: &[usize],
) -> Vec<T> {
    let n: usize = out.iter().product();
    if c.len() == n && a.len() == n && b.len() == n {
        let mut y = pool::take(n);
        for (((y, &c), &a), &b) in y.iter_mut().zip(c).zip(a).zip(b) {
            *y = if c != 0 { a } else { b };
        }
        return y;
    }
    // An odometer over the output; each input steps by its stride (0 on broadcast dims).
    let strides = shapes.map(|s| {
        let full = tidytensor_core::shape::strides(s);
        s.iter().zip(out).zip(full).map(|((&d, &o), st)| if d == o { st } else { 0 }).collect::<Vec<_>>()
    });
    let rank = out.len();
    let mut idx = vec![0usize; rank];
    let mut off = [0usize; 3];
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        y.push(if c[off[0]] != 0 { a[off[1]] } else { b[off[2]] });
        for k in (0..rank).rev() {
            idx[k] += 1;
            for (o, st) in off.iter_mut().zip(&strides) {
                *o += st[k];
            }
            if idx[k] < out[k] {
                break;
            }
            for (o, st) in off.iter_mut().zip(&strides) {
                *o -= st[k] * out[k];
            }
            idx[k] = 0;
        }
    }
    y
}

/// The shapes of a broadcast: inputs padded to the output's rank.
pub(crate) struct Shapes<'a> {
    pub a: &'a [usize],
    pub b: &'a [usize],
    pub out: &'a [usize],
}

/// `f` over the broadcast of `a` and `b` (shapes already checked against `s.out`).
fn broadcast_map<T: Copy + Send + Sync, O: Pooled>(
    a: &[T],
    b: &[T],
    s: &Shapes,
    f: impl Fn(T, T) -> O + Sync + Send + Copy,
) -> Vec<O> {
    let n: usize = s.out.iter().product();
    if n == 0 {
        return Vec::new();
    }
    if a.len() == n && b.len() == n {
        // Same shape (equal sizes after a checked broadcast imply equal shapes).
        let mut out = pool::take(n);
        if n >= PAR_THRESHOLD {
            out.par_chunks_mut(PAR_CHUNK).zip(a.par_chunks(PAR_CHUNK).zip(b.par_chunks(PAR_CHUNK))).for_each(
                |(o, (a, b))| {
                    for ((o, &p), &q) in o.iter_mut().zip(a).zip(b) {
                        *o = f(p, q);
                    }
                },
            );
        } else {
            for ((o, &p), &q) in out.iter_mut().zip(a).zip(b) {
                *o = f(p, q);
            }
        }
        return out;
    }
    if a.len() == 1 && b.len() == n {
        let p = a[0];
        return map1(b, move |q| f(p, q));
    }
    if b.len() == 1 && a.len() == n {
        let q = b[0];
        return map1(a, move |p| f(p, q));
    }
    general_broadcast(a, b, s, n, f)
}

fn general_broadcast<T: Copy + Send + Sync, O: Pooled>(
    a: &[T],
    b: &[T],
    s: &Shapes,
    n: usize,
    f: impl Fn(T, T) -> O + Sync + Send + Copy,
) -> Vec<O> {
    let (dims, sa, sb) = tidytensor_core::shape::collapse_broadcast(s.a, s.b, s.out);
    let Some(&inner) = dims.last() else {
        // Every dim is 1: one element.
        return vec![f(a[0], b[0])];
    };
    let k = dims.len() - 1;
    let g = Walk { od: &dims[..k], oa: &sa[..k], ob: &sb[..k], inner, ia: sa[k], ib: sb[k] };
    let mut out = pool::take(n);
    if n >= PAR_THRESHOLD {
        let rows_per_task = PAR_CHUNK.div_ceil(inner).max(1);
        out.par_chunks_mut(rows_per_task * inner)
            .enumerate()
            .for_each(|(t, chunk)| g.fill(a, b, chunk, t * rows_per_task, f));
    } else {
        g.fill(a, b, &mut out, 0, f);
    }
    out
}

/// Walks output rows (the innermost collapsed dim) of a broadcast.
struct Walk<'a> {
    od: &'a [usize],
    oa: &'a [usize],
    ob: &'a [usize],
    inner: usize,
    ia: usize,
    ib: usize,
}

impl Walk<'_> {
    fn fill<T: Copy, O: Copy>(&self, a: &[T], b: &[T], out: &mut [O], first_row: usize, f: impl Fn(T, T) -> O + Copy) {
        let k = self.od.len();
        let mut idx = [0usize; 16];
        let mut idx_vec;
        let idx: &mut [usize] = if k <= 16 {
            &mut idx[..k]
        } else {
            idx_vec = vec![0usize; k];
            &mut idx_vec
        };
        let (mut pa, mut pb) = (0usize, 0usize);
        let mut rem = first_row;
        for j in (0..k).rev() {
            idx[j] = rem % self.od[j];
            rem /= self.od[j];
            pa += idx[j] * self.oa[j];
            pb += idx[j] * self.ob[j];
        }
        let inner = self.inner;
        for row in out.chunks_exact_mut(inner) {
            match (self.ia, self.ib) {
                (1, 1) => {
                    for ((o, &p), &q) in row.iter_mut().zip(&a[pa..pa + inner]).zip(&b[pb..pb + inner]) {
                        *o = f(p, q);
                    }
                }
                (1, 0) => {
                    let q = b[pb];
                    for (o, &p) in row.iter_mut().zip(&a[pa..pa + inner]) {
                        *o = f(p, q);
                    }
                }
                (0, 1) => {
                    let p = a[pa];
                    for (o, &q) in row.iter_mut().zip(&b[pb..pb + inner]) {
                        *o = f(p, q);
                    }
                }
                (ia, ib) => {
                    for (i, o) in row.iter_mut().enumerate() {
                        *o = f(a[pa + i * ia], b[pb + i * ib]);
                    }
                }
            }
            for j in (0..k).rev() {
                idx[j] += 1;
                pa += self.oa[j];
                pb += self.ob[j];
                if idx[j] < self.od[j] {
                    break;
                }
                pa -= self.oa[j] * self.od[j];
                pb -= self.ob[j] * self.od[j];
                idx[j] = 0;
            }
        }
    }
}

/// tfjs's batch norm, one pass over `x` (`channels` values a row): per element
/// `(x - mean) * scale / sqrt(variance + eps) + offset`, in the float32 steps of the composed
/// ops (so both ways give the same values). Each parameter holds `channels` values or 1.
pub(crate) fn batch_norm(
    x: &[f32],
    channels: usize,
    mean: &[f32],
    variance: &[f32],
    offset: Option<&[f32]>,
    scale: Option<&[f32]>,
    eps: f32,
) -> Vec<f32> {
    let row = |v: &[f32]| if v.len() == channels { v.to_vec() } else { vec![v[0]; channels] };
    let mean = row(mean);
    let root: Vec<f32> = row(variance).iter().map(|&v| (v + eps).sqrt()).collect();
    let scale = scale.map(row);
    let offset = offset.map(row);
    let mut out = crate::pool::take::<f32>(x.len());
    // Absent factors as 1 and -0 give the same float32 values (`t * 1`, `t + -0` are exact), and
    // a branch-free row loop vectorises.
    let scale = scale.unwrap_or_else(|| vec![1.0; channels]);
    let offset = offset.unwrap_or_else(|| vec![-0.0; channels]);
    let run = |(xs, ys): (&[f32], &mut [f32])| batch_norm_rows(xs, ys, &mean, &scale, &root, &offset);
    if x.len() >= PAR_THRESHOLD {
        let rows_per_task = PAR_CHUNK.div_ceil(channels).max(1) * channels;
        x.par_chunks(rows_per_task).zip(out.par_chunks_mut(rows_per_task)).for_each(run);
    } else {
        run((x, &mut out[..]));
    }
    out
}

#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn batch_norm_rows(xs: &[f32], ys: &mut [f32], mean: &[f32], scale: &[f32], root: &[f32], offset: &[f32]) {
    let channels = mean.len();
    for (xr, yr) in xs.chunks_exact(channels).zip(ys.chunks_exact_mut(channels)) {
        for c in 0..channels {
            yr[c] = (xr[c] - mean[c]) * scale[c] / root[c] + offset[c];
        }
    }
}

/// The fused ops' epilogue, in place on the product `y` (`channels` values a row): the bias,
/// then the activation, in one pass, with the formulas of the unary and prelu kernels above.
/// `bias` and `alpha` hold `channels` values or 1.
pub(crate) fn fused_epilogue(
    y: &mut [f32],
    channels: usize,
    bias: Option<&[f32]>,
    act: Activation,
    alpha: Option<&[f32]>,
) {
    Epilogue::new(channels, bias, act, alpha).apply_all(y);
}

/// The fused ops' epilogue with its bias and alpha spread to a value per channel: for the whole
/// product ([`Epilogue::apply_all`]) or, by a kernel, on each tile of its output while the tile
/// is still in cache ([`Epilogue::apply_tile`]).
pub(crate) struct Epilogue {
    channels: usize,
    /// Empty where there is no bias.
    bias: Vec<f32>,
    /// prelu's and leakyrelu's per channel; empty for the other activations.
    alpha: Vec<f32>,
    act: Activation,
}

impl Epilogue {
    pub(crate) fn new(channels: usize, bias: Option<&[f32]>, act: Activation, alpha: Option<&[f32]>) -> Epilogue {
        let row = |v: &[f32]| {
            if v.len() == channels {
                v.to_vec()
            } else {
                vec![v.first().copied().unwrap_or(0.0); channels]
            }
        };
        let alpha = match act {
            Activation::LeakyRelu(a) => vec![a; channels],
            Activation::Prelu => alpha.map_or_else(|| vec![0.0; channels], row),
            _ => Vec::new(),
        };
        Epilogue { channels, bias: bias.map_or_else(Vec::new, row), alpha, act }
    }

    /// On the whole product, rows of `channels` values.
    pub(crate) fn apply_all(&self, y: &mut [f32]) {
        let channels = self.channels;
        if channels == 0 || y.is_empty() {
            return;
        }
        let run = |y: &mut [f32]| {
            // SAFETY: `y` holds whole rows of `channels` values.
            unsafe { self.apply_tile(y.as_mut_ptr(), y.len() / channels, channels, channels, 0) }
        };
        if y.len() >= PAR_THRESHOLD {
            let rows_per_task = PAR_CHUNK.div_ceil(channels).max(1);
            y.par_chunks_mut(rows_per_task * channels).for_each(run);
        } else {
            run(y);
        }
    }

    /// On `rows` rows of `cols` values `stride` apart from `y`, the first value of each row in
    /// channel `c0`.
    ///
    /// # Safety
    /// Each row's `cols` values must be the caller's to write, and `c0 + cols <= channels`.
    pub(crate) unsafe fn apply_tile(&self, y: *mut f32, rows: usize, cols: usize, stride: usize, c0: usize) {
        let bias = if self.bias.is_empty() { &[][..] } else { &self.bias[c0..c0 + cols] };
        let alpha = if self.alpha.is_empty() { &[][..] } else { &self.alpha[c0..c0 + cols] };
        let tile = Tile { y, rows, cols, stride };
        match self.act {
            Activation::Linear => epilogue_tile(tile, bias, alpha, act_linear),
            Activation::Relu => epilogue_tile(tile, bias, alpha, act_relu),
            Activation::Relu6 => epilogue_tile(tile, bias, alpha, act_relu6),
            Activation::Elu => epilogue_tile(tile, bias, alpha, act_elu),
            Activation::Sigmoid => epilogue_tile(tile, bias, alpha, act_sigmoid),
            Activation::LeakyRelu(_) | Activation::Prelu => epilogue_tile(tile, bias, alpha, act_prelu),
        }
    }
}

/// Rows of an output being written: `rows` of `cols` values, `stride` apart from `y`.
#[derive(Clone, Copy)]
struct Tile {
    y: *mut f32,
    rows: usize,
    cols: usize,
    stride: usize,
}

#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn epilogue_tile<F: Fn(f32, f32) -> f32>(t: Tile, bias: &[f32], alpha: &[f32], f: F) {
    for i in 0..t.rows {
        // SAFETY: the caller of `apply_tile` owns each row's `cols` values.
        let row = unsafe { std::slice::from_raw_parts_mut(t.y.add(i * t.stride), t.cols) };
        if !bias.is_empty() {
            for (v, &b) in row.iter_mut().zip(bias) {
                *v += b;
            }
        }
        if alpha.is_empty() {
            for v in row.iter_mut() {
                *v = f(*v, 0.0);
            }
        } else {
            for (v, &a) in row.iter_mut().zip(alpha) {
                *v = f(*v, a);
            }
        }
    }
}

#[inline(always)]
fn act_linear(x: f32, _: f32) -> f32 {
    x
}
#[inline(always)]
fn act_relu(x: f32, _: f32) -> f32 {
    if x < 0.0 {
        0.0
    } else {
        x
    }
}
#[inline(always)]
fn act_relu6(x: f32, _: f32) -> f32 {
    x.clamp(0.0, 6.0)
}
#[inline(always)]
fn act_elu(x: f32, _: f32) -> f32 {
    if x >= 0.0 {
        x
    } else {
        (x as f64).exp_m1() as f32
    }
}
#[inline(always)]
fn act_sigmoid(x: f32, _: f32) -> f32 {
    1.0 / (1.0 + exp_f32(-x))
}
#[inline(always)]
fn act_prelu(x: f32, a: f32) -> f32 {
    if x < 0.0 {
        x * a
    } else {
        x
    }
}
