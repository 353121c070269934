//! fill, cast, unary and broadcasting binary kernels.

use rayon::prelude::*;
use tidytensor_core::{bail, BinaryOp, DType, Result, UnaryOp};

use crate::convert::{with_out, Num, OutElem};
use crate::pool::{self, Pooled};
use crate::{HostData, PAR_CHUNK, PAR_THRESHOLD};
use tidytensor_core::js_to_int32;

pub(crate) fn fill(len: usize, value: f64, dtype: DType) -> HostData {
    match dtype {
        DType::Float32 => HostData::F32(vec![value as f32; len]),
        DType::Int32 => HostData::I32(vec![js_to_int32(value); len]),
        DType::Bool => HostData::Bool(vec![(value != 0.0) as u8; len]),
    }
}

/// `f` over every element into a (pooled) buffer, on threads when the tensor is large.
#[inline]
pub(crate) fn map1<T: Copy + Sync, O: Pooled>(x: &[T], f: impl Fn(T) -> O + Sync + Send) -> Vec<O> {
    let mut out = pool::take(x.len());
    if x.len() >= PAR_THRESHOLD {
        out.par_chunks_mut(PAR_CHUNK).zip(x.par_chunks(PAR_CHUNK)).for_each(|(o, x)| {
            for (o, &v) in o.iter_mut().zip(x) {
                *o = f(v);
            }
        });
    } else {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = f(v);
        }
    }
    out
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

fn run_unary<T: Num, R: Num>(x: &[T], out: DType, f: impl Fn(T) -> R + Sync + Send + Copy) -> HostData {
    with_out!(out, O => map1(x, move |v| O::from_num(f(v))))
}

pub(crate) fn unary(op: UnaryOp, x: &HostData, out: DType) -> HostData {
    match x {
        HostData::F32(v) => unary_float(op, v, out),
        HostData::I32(v) => unary_int(op, v, out),
        HostData::Bool(v) => unary_int(op, v, out),
    }
}

fn unary_float(op: UnaryOp, x: &[f32], out: DType) -> HostData {
    use UnaryOp::*;
    match op {
        Neg => run_unary(x, out, |a: f32| -a),
        Square => run_unary(x, out, |a: f32| a * a),
        Sqrt => run_unary(x, out, |a: f32| a.sqrt()),
        Exp => run_unary(x, out, |a: f32| a.exp()),
        Log => run_unary(x, out, |a: f32| a.ln()),
        Abs => run_unary(x, out, |a: f32| a.abs()),
        Relu => run_unary(x, out, |a: f32| if a < 0.0 { 0.0 } else { a }),
        Sigmoid => run_unary(x, out, |a: f32| 1.0 / (1.0 + (-a).exp())),
        Tanh => run_unary(x, out, |a: f32| a.tanh()),
    }
}

/// int32 and bool (as 0/1) inputs: integer ops wrap, the others compute in f64.
fn unary_int<T: Num>(op: UnaryOp, x: &[T], out: DType) -> HostData {
    use UnaryOp::*;
    match op {
        Neg => run_unary(x, out, |a: T| a.to_i32().wrapping_neg()),
        Square => run_unary(x, out, |a: T| {
            let a = a.to_i32();
            a.wrapping_mul(a)
        }),
        Abs => run_unary(x, out, |a: T| a.to_i32().wrapping_abs()),
        Relu => run_unary(x, out, |a: T| a.to_i32().max(0)),
        Sqrt => run_unary(x, out, |a: T| a.to_f64().sqrt()),
        Exp => run_unary(x, out, |a: T| a.to_f64().exp()),
        Log => run_unary(x, out, |a: T| a.to_f64().ln()),
        Sigmoid => run_unary(x, out, |a: T| 1.0 / (1.0 + (-a.to_f64()).exp())),
        Tanh => run_unary(x, out, |a: T| a.to_f64().tanh()),
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

pub(crate) fn binary(
    op: BinaryOp,
    a: &HostData,
    a_shape: &[usize],
    b: &HostData,
    b_shape: &[usize],
    out_shape: &[usize],
    out: DType,
) -> Result<HostData> {
    check_broadcast(a_shape, b_shape, out_shape)?;
    let s = Shapes { a: a_shape, b: b_shape, out: out_shape };
    Ok(match (a, b) {
        (HostData::F32(x), HostData::F32(y)) => binary_float(op, x, y, &s, out),
        (HostData::I32(x), HostData::I32(y)) => binary_int(op, x, y, &s, out),
        (HostData::Bool(x), HostData::Bool(y)) => binary_int(op, x, y, &s, out),
        _ => {
            // The engine always gives both sides one dtype; cope anyway by upcasting.
            let dt = DType::upcast(a.dtype(), b.dtype());
            return binary(op, &cast(a, dt), a_shape, &cast(b, dt), b_shape, out_shape, out);
        }
    })
}

fn check_broadcast(a: &[usize], b: &[usize], out: &[usize]) -> Result<()> {
    if a.len() != out.len() || b.len() != out.len() {
        bail!("cpu binary kernel: input ranks {} and {} differ from output rank {}", a.len(), b.len(), out.len());
    }
    for i in 0..out.len() {
        if (a[i] != out[i] && a[i] != 1) || (b[i] != out[i] && b[i] != 1) {
            bail!(
                "cpu binary kernel: shapes [{}] and [{}] do not broadcast to [{}]",
                tidytensor_core::shape::fmt(a),
                tidytensor_core::shape::fmt(b),
                tidytensor_core::shape::fmt(out)
            );
        }
    }
    Ok(())
}

struct Shapes<'a> {
    a: &'a [usize],
    b: &'a [usize],
    out: &'a [usize],
}

fn run_binary<T: Num, R: Num>(
    x: &[T],
    y: &[T],
    s: &Shapes,
    out: DType,
    f: impl Fn(T, T) -> R + Sync + Send + Copy,
) -> HostData {
    with_out!(out, O => broadcast_map(x, y, s, move |p, q| O::from_num(f(p, q))))
}

fn binary_float(op: BinaryOp, x: &[f32], y: &[f32], s: &Shapes, out: DType) -> HostData {
    use BinaryOp::*;
    match op {
        Add => run_binary(x, y, s, out, |a: f32, b: f32| a + b),
        Sub => run_binary(x, y, s, out, |a: f32, b: f32| a - b),
        Mul => run_binary(x, y, s, out, |a: f32, b: f32| a * b),
        Div => run_binary(x, y, s, out, |a: f32, b: f32| a / b),
        FloorDiv => run_binary(x, y, s, out, |a: f32, b: f32| (a / b).floor()),
        Maximum => run_binary(x, y, s, out, js_max),
        Minimum => run_binary(x, y, s, out, js_min),
        Pow => run_binary(x, y, s, out, |a: f32, b: f32| js_pow(a as f64, b as f64) as f32),
    }
}

/// int32 and bool (as 0/1) inputs: add/sub/mul wrap, division and pow go through f64 and are
/// then stored as tfjs stores them (`Int32Array`: NaN and ±Infinity become 0).
fn binary_int<T: Num>(op: BinaryOp, x: &[T], y: &[T], s: &Shapes, out: DType) -> HostData {
    use BinaryOp::*;
    match op {
        Add => run_binary(x, y, s, out, |a: T, b: T| a.to_i32().wrapping_add(b.to_i32())),
        Sub => run_binary(x, y, s, out, |a: T, b: T| a.to_i32().wrapping_sub(b.to_i32())),
        Mul => run_binary(x, y, s, out, |a: T, b: T| a.to_i32().wrapping_mul(b.to_i32())),
        Div => run_binary(x, y, s, out, |a: T, b: T| a.to_f64() / b.to_f64()),
        FloorDiv => run_binary(x, y, s, out, |a: T, b: T| (a.to_f64() / b.to_f64()).floor()),
        Maximum => run_binary(x, y, s, out, |a: T, b: T| a.to_i32().max(b.to_i32())),
        Minimum => run_binary(x, y, s, out, |a: T, b: T| a.to_i32().min(b.to_i32())),
        Pow => run_binary(x, y, s, out, |a: T, b: T| js_pow(a.to_f64(), b.to_f64())),
    }
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
