//! Reductions over the inner axis, arg-reductions over a middle axis, softmax.

use rayon::prelude::*;
use tidytensor_core::{bail, js_to_int32, ArgOp, CumOp, DType, ReduceOp, Result};

use crate::convert::{with_out, Num, OutElem};
use crate::{HostData, PAR_CHUNK, PAR_THRESHOLD};

pub(crate) fn reduce(op: ReduceOp, x: &HostData, outer: usize, inner: usize, out: DType) -> Result<HostData> {
    Ok(match x {
        HostData::F32(v) => reduce_f32(op, v, outer, inner, out),
        HostData::I32(v) => reduce_int(op, v, outer, inner, out),
        HostData::Bool(v) => reduce_int(op, v, outer, inner, out),
    })
}

/// Sum in f64 (as tfjs sums in JavaScript numbers); compiled for AVX2 and AVX-512 too and
/// picked at run time (as are `max_row`, `min_row`).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn sum_f32(row: &[f32]) -> f64 {
    sum_lanes(row)
}

/// The sum of [`sum_f32`], over 8 independent lanes so that it vectorises.
#[inline(always)]
fn sum_lanes(row: &[f32]) -> f64 {
    let mut acc = [0f64; 8];
    let chunks = row.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            acc[i] += c[i] as f64;
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for &v in rest {
        s += v as f64;
    }
    s
}

/// Max with NaN propagation (tfjs: `if (isNaN(v) || v > max)`); -Infinity when empty.
#[inline(always)]
fn max_f32(row: &[f32]) -> f32 {
    extreme(row, f32::NEG_INFINITY, |v, m| v > m)
}

/// Min with NaN propagation; Infinity when empty.
#[inline(always)]
fn min_f32(row: &[f32]) -> f32 {
    extreme(row, f32::INFINITY, |v, m| v < m)
}

/// The value that `better` prefers over all others (NaN if any is NaN), over 16 independent
/// lanes: a single running extreme is a reduction LLVM will not reorder (its result with NaNs
/// would depend on the order), 16 lanes are elementwise and vectorise.
#[inline(always)]
fn extreme(row: &[f32], start: f32, better: impl Fn(f32, f32) -> bool) -> f32 {
    const L: usize = 16;
    let mut lanes = [start; L];
    let mut nan = [false; L];
    let chunks = row.chunks_exact(L);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..L {
            lanes[k] = if better(c[k], lanes[k]) { c[k] } else { lanes[k] };
            nan[k] |= c[k].is_nan();
        }
    }
    let mut m = start;
    for &v in lanes.iter().chain(rest) {
        m = if better(v, m) { v } else { m };
    }
    if nan.iter().any(|&n| n) || rest.iter().any(|v| v.is_nan()) {
        f32::NAN
    } else {
        m
    }
}

/// [`max_f32`] compiled for AVX2 and AVX-512 too (the reductions call it once per row).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn max_row(row: &[f32]) -> f32 {
    max_f32(row)
}

/// [`min_f32`] compiled for AVX2 and AVX-512 too.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn min_row(row: &[f32]) -> f32 {
    min_f32(row)
}

/// `f` over each row of `[outer, inner]`, rows in parallel when the tensor is large.
fn per_row<T: Sync, R: Num, O: OutElem>(
    v: &[T],
    outer: usize,
    inner: usize,
    f: impl Fn(&[T]) -> R + Sync + Send,
) -> Vec<O> {
    if outer > 1 && v.len() >= PAR_THRESHOLD {
        let min_rows = PAR_CHUNK.div_ceil(inner).max(1);
        v.par_chunks(inner).with_min_len(min_rows).map(|r| O::from_num(f(r))).collect()
    } else {
        v.chunks_exact(inner).map(|r| O::from_num(f(r))).collect()
    }
}

fn reduce_f32(op: ReduceOp, v: &[f32], outer: usize, inner: usize, out: DType) -> HostData {
    // One huge row: split the row itself across threads.
    if outer == 1 && inner >= PAR_THRESHOLD {
        let parts = v.par_chunks(PAR_CHUNK);
        let r: f64 = match op {
            ReduceOp::Sum => parts.map(sum_f32).sum(),
            ReduceOp::Mean => parts.map(sum_f32).sum::<f64>() / inner as f64,
            ReduceOp::Max => max_f32(&parts.map(max_row).collect::<Vec<_>>()) as f64,
            ReduceOp::Min => min_f32(&parts.map(min_row).collect::<Vec<_>>()) as f64,
            ReduceOp::Prod => parts.map(prod::<f32>).product(),
            // The engine gives all/any bool tensors only; for floats they would test != 0.
            ReduceOp::All => v.par_iter().all(|&x| x != 0.0) as u8 as f64,
            ReduceOp::Any => v.par_iter().any(|&x| x != 0.0) as u8 as f64,
        };
        return match op {
            // Max/min are exact f32 values; sums round once from f64.
            ReduceOp::Max | ReduceOp::Min => with_out!(out, O => vec![O::from_num(r as f32)]),
            _ => with_out!(out, O => vec![O::from_num(r)]),
        };
    }
    match op {
        ReduceOp::Sum => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, sum_f32)),
        ReduceOp::Mean => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, |r| {
            sum_f32(r) / inner as f64
        })),
        ReduceOp::Max => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, max_row)),
        ReduceOp::Min => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, min_row)),
        ReduceOp::Prod => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, prod::<f32>)),
        ReduceOp::All => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, |r: &[f32]| {
            r.iter().all(|&x| x != 0.0) as u8
        })),
        ReduceOp::Any => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, |r: &[f32]| {
            r.iter().any(|&x| x != 0.0) as u8
        })),
    }
}

/// tfjs's `moments` over the middle axis of float32 `x` seen as `[outer, n, inner]` (`n` ≥ 1):
/// the mean (summed in f64, as `Mean`), then the mean of the float32 squared differences
/// (summed in f64). Two reads of `x` and nothing else written, where the composed ops move,
/// subtract and square all of it first.
pub(crate) fn moments(x: &[f32], outer: usize, n: usize, inner: usize) -> (Vec<f32>, Vec<f32>) {
    let scale = |s: f64| (s / n as f64) as f32;
    if inner == 1 {
        let row_moments = |row: &[f32]| {
            let mean = scale(sum_f32(row));
            (mean, scale(sq_dev_sum(row, mean)))
        };
        let pairs: Vec<(f32, f32)> = if outer > 1 && x.len() >= PAR_THRESHOLD {
            x.par_chunks(n).with_min_len(PAR_CHUNK.div_ceil(n).max(1)).map(row_moments).collect()
        } else if outer == 1 && n >= PAR_THRESHOLD {
            let mean = scale(x.par_chunks(PAR_CHUNK).map(sum_f32).sum());
            vec![(mean, scale(x.par_chunks(PAR_CHUNK).map(|c| sq_dev_sum(c, mean)).sum()))]
        } else {
            x.chunks_exact(n).map(row_moments).collect()
        };
        return pairs.into_iter().unzip();
    }
    let (mut means, mut vars) = (Vec::with_capacity(outer * inner), Vec::with_capacity(outer * inner));
    for block in x.chunks_exact(n * inner) {
        let mean: Vec<f32> = column_sums(block, inner, None).into_iter().map(scale).collect();
        vars.extend(column_sums(block, inner, Some(&mean)).into_iter().map(scale));
        means.extend(mean);
    }
    (means, vars)
}

/// The f64 sum of `(v - mean)²` over a row, each square in float32 (tfjs's `square(sub(..))`).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn sq_dev_sum(row: &[f32], mean: f32) -> f64 {
    let mut acc = [0f64; 8];
    let chunks = row.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..8 {
            let d = c[i] - mean;
            acc[i] += (d * d) as f64;
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for &v in rest {
        let d = v - mean;
        s += (d * d) as f64;
    }
    s
}

/// The f64 sums down the columns of `block` (rows of `inner` values): of the values, or with
/// `mean`, of their float32 squared differences from it. Big blocks are split by rows across
/// threads.
fn column_sums(block: &[f32], inner: usize, mean: Option<&[f32]>) -> Vec<f64> {
    let rows_per_task = PAR_CHUNK.div_ceil(inner).max(1) * inner;
    let sum_part = |part: &[f32]| {
        let mut acc = vec![0f64; inner];
        accumulate_columns(&mut acc, part, mean);
        acc
    };
    if block.len() < PAR_THRESHOLD {
        return sum_part(block);
    }
    block.par_chunks(rows_per_task).map(sum_part).reduce(
        || vec![0f64; inner],
        |mut a, b| {
            a.iter_mut().zip(&b).for_each(|(a, b)| *a += b);
            a
        },
    )
}

#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn accumulate_columns(acc: &mut [f64], part: &[f32], mean: Option<&[f32]>) {
    let inner = acc.len();
    match mean {
        None => {
            for row in part.chunks_exact(inner) {
                acc.iter_mut().zip(row).for_each(|(a, &v)| *a += v as f64);
            }
        }
        Some(mean) => {
            for row in part.chunks_exact(inner) {
                acc.iter_mut().zip(row.iter().zip(mean)).for_each(|(a, (&v, &m))| {
                    let d = v - m;
                    *a += (d * d) as f64;
                });
            }
        }
    }
}

/// The product of a row in f64, as tfjs multiplies JavaScript numbers (int32 results are then
/// stored by ToInt32, not wrapped step by step).
fn prod<T: Num>(r: &[T]) -> f64 {
    r.iter().fold(1.0, |p, &x| p * x.to_f64())
}

/// int32 and bool (as 0/1): sums are exact in i64 and wrap when stored as int32; an int32
/// mean truncates toward zero; max/min of an empty row are ∓Infinity (0 as int32).
fn reduce_int<T: Num>(op: ReduceOp, v: &[T], outer: usize, inner: usize, out: DType) -> HostData {
    fn sum<T: Num>(r: &[T]) -> i64 {
        r.iter().fold(0i64, |s, &x| s.wrapping_add(x.to_i32() as i64))
    }
    match op {
        ReduceOp::Sum => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, sum::<T>)),
        ReduceOp::Mean => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, |r| {
            sum(r) as f64 / inner as f64
        })),
        ReduceOp::Max => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, |r: &[T]| {
            match r.iter().map(|x| x.to_i32()).max() {
                Some(m) => m as f64,
                None => f64::NEG_INFINITY,
            }
        })),
        ReduceOp::Min => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, |r: &[T]| {
            match r.iter().map(|x| x.to_i32()).min() {
                Some(m) => m as f64,
                None => f64::INFINITY,
            }
        })),
        ReduceOp::Prod => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, prod::<T>)),
        ReduceOp::All => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, |r: &[T]| {
            r.iter().all(|x| x.to_i32() != 0) as u8
        })),
        ReduceOp::Any => with_out!(out, O => per_row::<_, _, O>(v, outer, inner, |r: &[T]| {
            r.iter().any(|x| x.to_i32() != 0) as u8
        })),
    }
}

pub(crate) fn arg_reduce(op: ArgOp, x: &HostData, outer: usize, axis: usize, inner: usize) -> Result<HostData> {
    let max = op == ArgOp::ArgMax;
    Ok(HostData::I32(match x {
        HostData::F32(v) => {
            if max {
                arg_typed(v, outer, axis, inner, |a, b| a > b)
            } else {
                arg_typed(v, outer, axis, inner, |a, b| a < b)
            }
        }
        HostData::I32(v) => {
            if max {
                arg_typed(v, outer, axis, inner, |a, b| a > b)
            } else {
                arg_typed(v, outer, axis, inner, |a, b| a < b)
            }
        }
        HostData::Bool(v) => {
            if max {
                arg_typed(v, outer, axis, inner, |a, b| a > b)
            } else {
                arg_typed(v, outer, axis, inner, |a, b| a < b)
            }
        }
    }))
}

/// `better(candidate, best)` replaces the best so far; strict, so ties keep the first index,
/// and a NaN never replaces anything (nor is replaced once it is first), as in tfjs.
fn arg_typed<T: Copy + Send + Sync>(
    v: &[T],
    outer: usize,
    axis: usize,
    inner: usize,
    better: impl Fn(T, T) -> bool + Sync + Send + Copy,
) -> Vec<i32> {
    let mut out = vec![0i32; outer * inner];
    if axis <= 1 || out.is_empty() {
        return out;
    }
    let block = axis * inner;
    if inner == 1 {
        let one = |(o, slot): (usize, &mut i32)| {
            let row = &v[o * axis..(o + 1) * axis];
            let mut best = row[0];
            let mut bi = 0usize;
            for (i, &x) in row.iter().enumerate().skip(1) {
                if better(x, best) {
                    best = x;
                    bi = i;
                }
            }
            *slot = bi as i32;
        };
        if v.len() >= PAR_THRESHOLD && outer > 1 {
            let min = PAR_CHUNK.div_ceil(axis).max(1);
            out.par_iter_mut().enumerate().with_min_len(min).for_each(one);
        } else {
            out.iter_mut().enumerate().for_each(one);
        }
        return out;
    }
    // Scan rows of `inner` values, keeping the best per column: contiguous, cache-friendly.
    let one = |best: &mut Vec<T>, (o, orow): (usize, &mut [i32])| {
        let base = o * block;
        best.clear();
        best.extend_from_slice(&v[base..base + inner]);
        for a in 1..axis {
            let row = &v[base + a * inner..base + (a + 1) * inner];
            for ((b, slot), &x) in best.iter_mut().zip(orow.iter_mut()).zip(row) {
                if better(x, *b) {
                    *b = x;
                    *slot = a as i32;
                }
            }
        }
    };
    if v.len() >= PAR_THRESHOLD && outer > 1 {
        out.par_chunks_mut(inner).enumerate().for_each_init(|| Vec::with_capacity(inner), one);
    } else {
        let mut best = Vec::with_capacity(inner);
        for item in out.chunks_mut(inner).enumerate() {
            one(&mut best, item);
        }
    }
    out
}

pub(crate) fn softmax(x: &HostData, outer: usize, inner: usize) -> Result<HostData> {
    let HostData::F32(v) = x else { bail!("cpu softmax: logits must be float32") };
    let mut out = crate::pool::take::<f32>(v.len());
    if v.is_empty() {
        return Ok(HostData::F32(out));
    }
    if v.len() >= PAR_THRESHOLD && outer > 1 {
        let min = PAR_CHUNK.div_ceil(inner).max(1);
        out.par_chunks_mut(inner).zip(v.par_chunks(inner)).with_min_len(min).for_each(|(y, x)| softmax_row(y, x));
    } else {
        out.chunks_mut(inner).zip(v.chunks(inner)).for_each(|(y, x)| softmax_row(y, x));
    }
    Ok(HostData::F32(out))
}

/// One softmax row, as tfjs computes it: exp(x - max(x)) / sum(exp(x - max(x))). Compiled for
/// AVX2 and AVX-512 too and picked at run time; the body is here (not in a closure) so that
/// every clone vectorises the exponentials with its own instruction set. The sum runs in f64
/// (as tfjs sums), in a pass of its own (in the exponentials' pass it slowed them down).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn softmax_row(y: &mut [f32], x: &[f32]) {
    let m = max_f32(x);
    for (o, &xi) in y.iter_mut().zip(x) {
        *o = crate::elementwise::exp_f32(xi - m);
    }
    let s = sum_lanes(y) as f32;
    // A division per value, as tfjs divides (a product with 1/s can differ in the last bit).
    for o in y.iter_mut() {
        *o /= s;
    }
}

/// Running sums or products along each row of `[outer, len]`, accumulated as tfjs's kernels
/// accumulate them: in float32, or in int32 (sums wrap; a product is the f64 product stored by
/// ToInt32).
pub(crate) fn cumulative(
    op: CumOp,
    x: &HostData,
    outer: usize,
    len: usize,
    flags: (bool, bool),
    out: DType,
) -> HostData {
    match (x, out) {
        (HostData::F32(v), DType::Float32) => HostData::F32(match op {
            CumOp::Sum => scan(v, outer, len, flags, 0.0, |acc, x| acc + x),
            CumOp::Prod => scan(v, outer, len, flags, 1.0, |acc, x| acc * x),
        }),
        _ => {
            let ints: Vec<i32> = match x {
                HostData::F32(v) => v.iter().map(|&f| js_to_int32(f as f64)).collect(),
                HostData::I32(v) => v.clone(),
                HostData::Bool(v) => v.iter().map(|&b| b as i32).collect(),
            };
            HostData::I32(match op {
                CumOp::Sum => scan(&ints, outer, len, flags, 0, i32::wrapping_add),
                CumOp::Prod => scan(&ints, outer, len, flags, 1, |acc, x| js_to_int32(acc as f64 * x as f64)),
            })
        }
    }
}

fn scan<T: Copy + Send + Sync>(
    v: &[T],
    outer: usize,
    len: usize,
    (exclusive, reverse): (bool, bool),
    ident: T,
    f: impl Fn(T, T) -> T + Sync,
) -> Vec<T> {
    let mut out = vec![ident; outer * len];
    let row = |(o, x): (&mut [T], &[T])| {
        let mut acc = ident;
        for j in 0..len {
            let k = if reverse { len - 1 - j } else { j };
            if exclusive {
                o[k] = acc;
                acc = f(acc, x[k]);
            } else {
                acc = f(acc, x[k]);
                o[k] = acc;
            }
        }
    };
    if outer > 1 && v.len() >= PAR_THRESHOLD {
        out.par_chunks_mut(len).zip(v.par_chunks(len)).for_each(row);
    } else {
        out.chunks_mut(len).zip(v.chunks(len)).for_each(row);
    }
    out
}

/// The `k` largest values of each row of `[rows, len]` (NaN above everything, ties by lower
/// index), descending, and their indices.
pub(crate) fn topk(x: &HostData, rows: usize, len: usize, k: usize) -> (HostData, Vec<i32>) {
    fn typed<T: Copy + Num>(v: &[T], rows: usize, len: usize, k: usize) -> (Vec<T>, Vec<i32>) {
        let (mut values, mut indices) = (Vec::with_capacity(rows * k), Vec::with_capacity(rows * k));
        let mut order: Vec<u32> = Vec::with_capacity(len);
        for row in v.chunks_exact(len).take(rows) {
            order.clear();
            order.extend(0..len as u32);
            let key = |&i: &u32| {
                let f = row[i as usize].to_f64();
                (if f.is_nan() { f64::INFINITY } else { f }, f.is_nan())
            };
            // Descending: NaN first, then larger values; equal values by lower index.
            let cmp = |a: &u32, b: &u32| {
                let ((va, na), (vb, nb)) = (key(a), key(b));
                nb.cmp(&na).then(vb.partial_cmp(&va).unwrap_or(std::cmp::Ordering::Equal)).then(a.cmp(b))
            };
            if k < len {
                order.select_nth_unstable_by(k, cmp);
                order.truncate(k);
            }
            order.sort_unstable_by(cmp);
            values.extend(order.iter().map(|&i| row[i as usize]));
            indices.extend(order.iter().map(|&i| i as i32));
        }
        (values, indices)
    }
    match x {
        HostData::F32(v) => {
            let (a, b) = typed(v, rows, len, k);
            (HostData::F32(a), b)
        }
        HostData::I32(v) => {
            let (a, b) = typed(v, rows, len, k);
            (HostData::I32(a), b)
        }
        HostData::Bool(v) => {
            let (a, b) = typed(v, rows, len, k);
            (HostData::Bool(a), b)
        }
    }
}
