//! The counting ops tfjs composes: unsortedSegmentSum, bincount, denseBincount and
//! searchSorted (lowerBound, upperBound), of comparisons, reductions and the row scatter.
//! tf.*, the graph executor and the layers share them; each runs in a scope of its own.

use crate::js::number as js;
use crate::{bail, BinaryOp, DType, Engine, ReduceOp, Result, TensorId};

fn shape_text(s: &[usize]) -> String {
    format!("[{}]", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","))
}

impl Engine {
    /// Sums rows of `rows` ([n, ...rest]) into `num` rows by the int32 `ids` ([n]), dropping
    /// ids out of range (the row scatter adds duplicates up).
    fn segment_scatter(&mut self, ids: TensorId, rows: TensorId, num: usize, rest: &[usize]) -> Result<TensorId> {
        let n = self.shape(ids)?[0];
        let mut out_shape = vec![num];
        out_shape.extend_from_slice(rest);
        let dtype = self.dtype(rows)?;
        if num == 0 || n == 0 {
            return self.fill(&out_shape, 0.0, dtype);
        }
        self.composed(|e| {
            let zero = e.fill(&[], 0.0, DType::Int32)?;
            let limit = e.fill(&[], num as f64, DType::Int32)?;
            let ge = e.binary(BinaryOp::GreaterEqual, ids, zero)?;
            let lt = e.binary(BinaryOp::Less, ids, limit)?;
            let valid = e.binary(BinaryOp::LogicalAnd, ge, lt)?;
            let zeros = e.fill_like(ids, 0.0)?;
            let at = e.select(valid, ids, zeros)?;
            let mut mask_shape = vec![n as i64];
            mask_shape.extend(rest.iter().map(|_| 1));
            let mask = e.reshape(valid, &mask_shape)?;
            let no_rows = e.fill_like(rows, 0.0)?;
            let upd = e.select(mask, rows, no_rows)?;
            let at = e.reshape(at, &[-1, 1])?;
            let shape: Vec<f64> = out_shape.iter().map(|&d| d as f64).collect();
            e.scatter_nd(at, upd, &shape)
        })
    }

    /// `tf.unsortedSegmentSum`: rows of `x` summed by segment id; ids outside
    /// `[0, num_segments)` are dropped. float32, as tfjs's kernels multiply by a float32 mask.
    pub fn unsorted_segment_sum(&mut self, x: TensorId, segment_ids: TensorId, num_segments: f64) -> Result<TensorId> {
        super::require_dtype("unsortedSegmentSum", "segmentIds", DType::Int32, self.dtype(segment_ids)?)?;
        if num_segments.fract() != 0.0 || !num_segments.is_finite() {
            bail!("numSegments must be of dtype int");
        }
        if num_segments < 0.0 {
            bail!("numSegments must be non-negative, but got {}", js(num_segments));
        }
        let (xs, is) = (self.shape(x)?.to_vec(), self.shape(segment_ids)?.to_vec());
        if is.len() > xs.len() || is.iter().zip(&xs).any(|(a, b)| a != b) {
            bail!("segmentIds.shape {} must be a prefix of x.shape {}", shape_text(&is), shape_text(&xs));
        }
        let rest = xs[is.len()..].to_vec();
        self.composed(|e| {
            let ids = e.reshape(segment_ids, &[-1])?;
            let xf = e.cast(x, DType::Float32)?;
            let mut rows_shape = vec![ids_len(&is) as i64];
            rows_shape.extend(rest.iter().map(|&d| d as i64));
            let rows = e.reshape(xf, &rows_shape)?;
            e.segment_scatter(ids, rows, num_segments as usize, &rest)
        })
    }

    /// `tf.bincount` (`dense`: `tf.denseBincount`, rank 1 or 2, `binary_output` for rank 2): counts, or
    /// weight sums, of each value of `x` in `[0, size)`, as the weights' dtype; values out of
    /// range are ignored.
    pub fn bincount(
        &mut self,
        x: TensorId,
        weights: TensorId,
        size: f64,
        dense: bool,
        binary_output: bool,
    ) -> Result<TensorId> {
        let op = if dense { "denseBincount" } else { "bincount" };
        let (xd, xs) = (self.dtype(x)?, self.shape(x)?.to_vec());
        if dense && xd != DType::Int32 {
            bail!("Error in denseBincount: input dtype must be int32, but got {}", xd.name());
        }
        if dense && xs.len() > 2 {
            bail!("Error in denseBincount: input must be at most rank 2, but got rank {}.", xs.len());
        }
        if xd != DType::Int32 {
            bail!("Error in {op}: input dtype must be int32, but got {}", xd.name());
        }
        if !(size >= 0.0) {
            bail!("size must be non-negative, but got {}.", js(size));
        }
        if size.fract() != 0.0 || !size.is_finite() {
            bail!("size must be an integer, but got {}.", js(size));
        }
        let (ws, wd) = (self.shape(weights)?.to_vec(), self.dtype(weights)?);
        let (xn, wn) = (ids_len(&xs), ids_len(&ws));
        if wn != xn && wn != 0 {
            let (what, xname) = if dense {
                ("the same shape as x or ", "x shape")
            } else {
                ("the same size as input or", "input shape")
            };
            bail!(
                "Error in {op}: weights must have {what}0-length, but got {xname}: {}, weights shape: {}.",
                crate::shape::fmt(&xs),
                crate::shape::fmt(&ws)
            );
        }
        let size = size as usize;
        let rows = if dense && xs.len() == 2 { xs[0] } else { 0 };
        // tfjs's kernels apply binaryOutput to 2-D input only.
        let binary = rows > 0 && binary_output;
        let Some(total) = (if rows > 0 { rows.checked_mul(size) } else { Some(size) }) else {
            bail!("Error in {op}: {rows} rows of {size} counts are too many.")
        };
        self.composed(|e| {
            let flat = e.reshape(x, &[-1])?;
            let w = if binary || wn == 0 { e.fill(&[xn], 1.0, wd)? } else { e.reshape(weights, &[-1])? };
            let mut ids = flat;
            if rows > 0 {
                // 2-D: row r's values go to segment r * size + value (out-of-range values
                // dropped first).
                let zero = e.fill(&[], 0.0, DType::Int32)?;
                let limit = e.fill(&[], size as f64, DType::Int32)?;
                let ge = e.binary(BinaryOp::GreaterEqual, flat, zero)?;
                let lt = e.binary(BinaryOp::Less, flat, limit)?;
                let in_range = e.binary(BinaryOp::LogicalAnd, ge, lt)?;
                let positions = e.range(0.0, xn as f64, 1.0, DType::Int32)?;
                let width = e.fill(&[], xs[1] as f64, DType::Int32)?;
                let row = e.binary(BinaryOp::FloorDiv, positions, width)?;
                let sz = e.fill(&[], size as f64, DType::Int32)?;
                let base = e.mul(row, sz)?;
                let at = e.add(base, flat)?;
                let dropped = e.fill(&[xn], -1.0, DType::Int32)?;
                ids = e.select(in_range, at, dropped)?;
            }
            let mut out = e.segment_scatter(ids, w, total, &[])?;
            if binary {
                let zero = e.fill(&[], 0.0, wd)?;
                let any = e.binary(BinaryOp::Greater, out, zero)?;
                out = e.cast(any, wd)?;
            }
            if rows > 0 {
                e.reshape(out, &[rows as i64, size as i64])
            } else {
                Ok(out)
            }
        })
    }

    /// `tf.searchSorted`: for each value, how many entries of its row of the sorted sequence
    /// are below it (`right` false: tf.lowerBound) or at most it (`right`: tf.upperBound).
    pub fn search_sorted(&mut self, sorted: TensorId, values: TensorId, right: bool) -> Result<TensorId> {
        let (ss, vs) = (self.shape(sorted)?.to_vec(), self.shape(values)?.to_vec());
        if ss.is_empty() {
            bail!("Sorted input argument must be at least 2-dimensional");
        }
        let (seq_len, val_len) = (ss[ss.len() - 1], vs.last().copied().unwrap_or(1));
        let (sd, vd) = (self.dtype(sorted)?, self.dtype(values)?);
        self.composed(|e| {
            let s2 = e.reshape(sorted, &[-1, seq_len as i64])?;
            let v2 = e.reshape(values, &[-1, val_len as i64])?;
            if e.shape(s2)?[0] != e.shape(v2)?[0] {
                bail!("Leading dimension of 'sortedSequence' and 'values' must match.");
            }
            let dtype = if sd == DType::Float32 || vd == DType::Float32 { DType::Float32 } else { DType::Int32 };
            let a = e.cast(s2, dtype)?;
            let b = e.cast(v2, dtype)?;
            // [rows, values, sequence] comparisons, counted along the sequence.
            let a = e.expand_dims(a, 1)?;
            let b = e.expand_dims(b, 2)?;
            let op = if right { BinaryOp::LessEqual } else { BinaryOp::Less };
            let hits = e.binary(op, a, b)?;
            let hits = e.cast(hits, DType::Int32)?;
            e.reduce(ReduceOp::Sum, hits, Some(&[2]), false)
        })
    }
}

fn ids_len(s: &[usize]) -> usize {
    s.iter().product()
}

/// `tf.norm`'s order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    /// 1, 2, ±Infinity, or any other number (an error, as tfjs).
    Number(f64),
    Euclidean,
    Fro,
}

/// `shape` with a 1 at each of `axes` (the reduced ones), as `keepDims` gives it.
fn keep_dims_shape(shape: &[usize], axes: &[usize]) -> Vec<i64> {
    let mut out = Vec::with_capacity(shape.len() + axes.len());
    let mut j = 0;
    for i in 0..shape.len() + axes.len() {
        if axes.contains(&i) {
            out.push(1);
        } else {
            out.push(shape.get(j).copied().unwrap_or(1) as i64);
            j += 1;
        }
    }
    out
}

/// The reduced axes, non-negative (all of them for `None`).
fn reduced_axes(axes: Option<&[i64]>, rank: usize) -> Vec<usize> {
    match axes {
        None => (0..rank).collect(),
        Some(a) => a.iter().map(|&x| if x < 0 { (x + rank as i64).max(0) as usize } else { x as usize }).collect(),
    }
}

impl Engine {
    /// `tf.logSumExp`: log(sum(exp(x))) without overflow, composed as tfjs composes it.
    pub fn log_sum_exp(&mut self, x: TensorId, axes: Option<&[i64]>, keep_dims: bool) -> Result<TensorId> {
        let rank = self.shape(x)?.len();
        self.composed(|e| {
            let x_max = e.reduce(ReduceOp::Max, x, axes, true)?;
            let d = e.sub(x, x_max)?;
            let d = e.unary(crate::UnaryOp::Exp, d)?;
            let d = e.reduce(ReduceOp::Sum, d, axes, false)?;
            let d = e.unary(crate::UnaryOp::Log, d)?;
            let ds: Vec<i64> = e.shape(d)?.iter().map(|&v| v as i64).collect();
            let m = e.reshape(x_max, &ds)?;
            let res = e.add(m, d)?;
            if keep_dims {
                let s = e.shape(res)?.to_vec();
                e.reshape(res, &keep_dims_shape(&s, &reduced_axes(axes, rank)))
            } else {
                Ok(res)
            }
        })
    }

    /// `tf.norm` (and `tf.euclideanNorm`): vector norms over no axis (all values), one axis, or
    /// matrix norms over two.
    pub fn norm(&mut self, x: TensorId, ord: NormOrd, axes: Option<&[i64]>, keep_dims: bool) -> Result<TensorId> {
        let rank = self.shape(x)?.len();
        self.composed(|e| {
            let n = e.norm_of(x, ord, axes)?;
            if keep_dims {
                let s = e.shape(n)?.to_vec();
                e.reshape(n, &keep_dims_shape(&s, &reduced_axes(axes, rank)))
            } else {
                Ok(n)
            }
        })
    }

    fn norm_of(&mut self, x: TensorId, ord: NormOrd, axes: Option<&[i64]>) -> Result<TensorId> {
        use crate::UnaryOp::{Abs, Sqrt, Square};
        let rank = self.shape(x)?.len();
        let bad_ord = || -> crate::Error {
            let shown = match ord {
                NormOrd::Number(p) => js(p),
                NormOrd::Euclidean => "euclidean".into(),
                NormOrd::Fro => "fro".into(),
            };
            crate::Error::new(format!("Error in norm: invalid ord value: {shown}"))
        };
        if rank == 0 {
            return self.unary(Abs, x);
        }
        if rank != 1 && axes.is_none() {
            let flat = self.reshape(x, &[-1])?;
            return self.norm_of(flat, ord, None);
        }
        let single = rank == 1 || axes.is_some_and(|a| a.len() == 1);
        if single {
            let a = self.unary(Abs, x)?;
            return match ord {
                NormOrd::Number(1.0) => self.reduce(ReduceOp::Sum, a, axes, false),
                NormOrd::Number(f64::INFINITY) => self.reduce(ReduceOp::Max, a, axes, false),
                NormOrd::Number(f64::NEG_INFINITY) => self.reduce(ReduceOp::Min, a, axes, false),
                NormOrd::Euclidean | NormOrd::Number(2.0) => {
                    let two = self.fill(&[], 2.0, DType::Int32)?;
                    let sq = self.binary(BinaryOp::Pow, a, two)?;
                    let s = self.reduce(ReduceOp::Sum, sq, axes, false)?;
                    self.unary(Sqrt, s)
                }
                _ => Err(bad_ord()),
            };
        }
        if let Some(&[a0, a1]) = axes {
            let abs_sum = |e: &mut Engine, axis: i64| -> Result<TensorId> {
                let a = e.unary(Abs, x)?;
                e.reduce(ReduceOp::Sum, a, Some(&[axis]), false)
            };
            return match ord {
                NormOrd::Number(1.0) => {
                    let s = abs_sum(self, a0)?;
                    self.reduce(ReduceOp::Max, s, Some(&[a1 - 1]), false)
                }
                NormOrd::Number(f64::INFINITY) => {
                    let s = abs_sum(self, a1)?;
                    self.reduce(ReduceOp::Max, s, Some(&[a0]), false)
                }
                NormOrd::Number(f64::NEG_INFINITY) => {
                    let s = abs_sum(self, a1)?;
                    self.reduce(ReduceOp::Min, s, Some(&[a0]), false)
                }
                NormOrd::Fro | NormOrd::Euclidean => {
                    let sq = self.unary(Square, x)?;
                    let s = self.reduce(ReduceOp::Sum, sq, axes, false)?;
                    self.unary(Sqrt, s)
                }
                _ => Err(bad_ord()),
            };
        }
        let shown = axes.map(|a| a.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")).unwrap_or_default();
        bail!("Error in norm: invalid axis: {shown}")
    }
}
