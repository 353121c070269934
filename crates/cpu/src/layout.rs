//! Data movement: transpose, slice, concat, gather.

use rayon::prelude::*;
use tidytensor_core::{bail, shape, DType, Result};

use crate::{map_data, HostData, PAR_CHUNK, PAR_THRESHOLD};

pub(crate) fn transpose(x: &HostData, shape: &[usize], perm: &[usize]) -> HostData {
    let in_strides = shape::strides(shape);
    // Output dims with their input strides, size-1 dims dropped and contiguous runs merged.
    let (dims, strides) = shape::collapse_strided(
        &perm.iter().map(|&p| shape[p]).collect::<Vec<_>>(),
        &perm.iter().map(|&p| in_strides[p]).collect::<Vec<_>>(),
    );
    map_data!(x, v => permute(v, &dims, &strides))
}

/// Rows of the output grouped this many at a time, so strided reads of neighbouring rows
/// share cache lines (a tiled transpose).
const TILE: usize = 16;

fn permute<T: Copy + Send + Sync + Default>(x: &[T], dims: &[usize], strides: &[usize]) -> Vec<T> {
    let n: usize = dims.iter().product();
    if n == 0 || x.is_empty() {
        return Vec::new();
    }
    let (Some(&inner), Some(&is)) = (dims.last(), strides.last()) else {
        return x.to_vec();
    };
    if dims.len() == 1 && is == 1 {
        return x.to_vec();
    }
    let k = dims.len() - 1;
    let w = RowWalk { od: &dims[..k], os: &strides[..k], inner, is };
    let mut out = vec![T::default(); n];
    if n >= PAR_THRESHOLD {
        let rows_per_task = (PAR_CHUNK.div_ceil(inner).div_ceil(TILE) * TILE).max(TILE);
        out.par_chunks_mut(rows_per_task * inner)
            .enumerate()
            .for_each(|(t, chunk)| w.fill(x, chunk, t * rows_per_task));
    } else {
        w.fill(x, &mut out, 0);
    }
    out
}

/// Output rows of `inner` elements, each starting at an input offset given by a multi-index
/// over the outer dims, read with stride `is`.
struct RowWalk<'a> {
    od: &'a [usize],
    os: &'a [usize],
    inner: usize,
    is: usize,
}

impl RowWalk<'_> {
    fn fill<T: Copy>(&self, x: &[T], out: &mut [T], first_row: usize) {
        let k = self.od.len();
        let mut idx = vec![0usize; k];
        let mut off = 0usize;
        let mut rem = first_row;
        for j in (0..k).rev() {
            idx[j] = rem % self.od[j];
            rem /= self.od[j];
            off += idx[j] * self.os[j];
        }
        let mut next = |off: &mut usize| {
            for j in (0..k).rev() {
                idx[j] += 1;
                *off += self.os[j];
                if idx[j] < self.od[j] {
                    return;
                }
                *off -= self.os[j] * self.od[j];
                idx[j] = 0;
            }
        };
        let inner = self.inner;
        if self.is == 1 {
            for row in out.chunks_exact_mut(inner) {
                row.copy_from_slice(&x[off..off + inner]);
                next(&mut off);
            }
            return;
        }
        let is = self.is;
        let mut offs = [0usize; TILE];
        for group in out.chunks_mut(TILE * inner) {
            let rows = group.len() / inner;
            for o in offs.iter_mut().take(rows) {
                *o = off;
                next(&mut off);
            }
            for c0 in (0..inner).step_by(TILE) {
                let c1 = (c0 + TILE).min(inner);
                for (r, &ro) in offs.iter().enumerate().take(rows) {
                    let dst = &mut group[r * inner + c0..r * inner + c1];
                    for (c, d) in (c0..c1).zip(dst.iter_mut()) {
                        *d = x[ro + c * is];
                    }
                }
            }
        }
    }
}

pub(crate) fn slice(x: &HostData, shape: &[usize], begin: &[usize], size: &[usize]) -> HostData {
    map_data!(x, v => slice_typed(v, shape, begin, size))
}

fn slice_typed<T: Copy>(x: &[T], shape: &[usize], begin: &[usize], size: &[usize]) -> Vec<T> {
    let n: usize = size.iter().product();
    if n == 0 {
        return Vec::new();
    }
    let rank = shape.len();
    if rank == 0 {
        return x.to_vec();
    }
    // Dims j.. form contiguous runs: every dim after j is taken whole.
    let mut j = rank - 1;
    while j > 0 && size[j] == shape[j] {
        j -= 1;
    }
    let run: usize = size[j..].iter().product();
    let strides = shape::strides(shape);
    let start: usize = (0..rank).map(|i| begin[i] * strides[i]).sum();
    let (od, os) = (&size[..j], &strides[..j]);
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; j];
    let mut off = start;
    for _ in 0..n / run {
        out.extend_from_slice(&x[off..off + run]);
        for d in (0..j).rev() {
            idx[d] += 1;
            off += os[d];
            if idx[d] < od[d] {
                break;
            }
            off -= os[d] * od[d];
            idx[d] = 0;
        }
    }
    out
}

/// Inputs of one dtype, each seen as `[outer, inner_i]`.
pub(crate) fn concat(inputs: &[&HostData], outer: usize) -> Result<HostData> {
    let Some(first) = inputs.first() else {
        bail!("cpu concat: no inputs");
    };
    let dtype = first.dtype();
    let inners: Vec<usize> = inputs.iter().map(|d| d.len().checked_div(outer).unwrap_or(0)).collect();
    macro_rules! cat {
        ($variant:ident) => {{
            let parts: Vec<&[_]> = inputs
                .iter()
                .map(|d| match d {
                    HostData::$variant(v) => Ok(v.as_slice()),
                    _ => bail!("cpu concat: inputs of different dtypes"),
                })
                .collect::<Result<_>>()?;
            HostData::$variant(concat_typed(&parts, &inners, outer))
        }};
    }
    Ok(match dtype {
        DType::Float32 => cat!(F32),
        DType::Int32 => cat!(I32),
        DType::Bool => cat!(Bool),
        d => tidytensor_core::numeric_only(d),
    })
}

fn concat_typed<T: Copy>(parts: &[&[T]], inners: &[usize], outer: usize) -> Vec<T> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut out = Vec::with_capacity(total);
    if outer == 1 {
        for p in parts {
            out.extend_from_slice(p);
        }
        return out;
    }
    for o in 0..outer {
        for (p, &w) in parts.iter().zip(inners) {
            out.extend_from_slice(&p[o * w..(o + 1) * w]);
        }
    }
    out
}

/// `x` as `[batch, outer, axis, inner]`, int32 `indices` as `[batch, n]`, each in
/// `[0, axis)` (the core's `gather` checks them for every backend).
pub(crate) fn gather(x: &HostData, indices: &HostData, dims: [usize; 4]) -> Result<HostData> {
    let HostData::I32(idx) = indices else { bail!("cpu gather: indices must be int32") };
    Ok(map_data!(x, v => gather_typed(v, idx, dims)))
}

fn gather_typed<T: Copy>(x: &[T], idx: &[i32], [batch, outer, axis, inner]: [usize; 4]) -> Vec<T> {
    let n = idx.len() / batch.max(1);
    let mut out = Vec::with_capacity(batch * outer * n * inner);
    for b in 0..batch {
        let rows = &idx[b * n..(b + 1) * n];
        for o in 0..outer {
            let base = (b * outer + o) * axis;
            if inner == 1 {
                out.extend(rows.iter().map(|&r| x[base + r as usize]));
            } else {
                for &r in rows {
                    let s = (base + r as usize) * inner;
                    out.extend_from_slice(&x[s..s + inner]);
                }
            }
        }
    }
    out
}

/// Rows of `updates` written to `rows` of a `[num_rows, slice]` output starting as `base` (or
/// zeros): summed (bool: or) or assigned, in update order. Each row is in `[0, num_rows)` (the
/// core's `scatter_rows` checks them for every backend).
pub(crate) fn scatter(
    base: Option<&HostData>,
    rows: &HostData,
    updates: &HostData,
    num_rows: usize,
    sum: bool,
) -> Result<HostData> {
    let HostData::I32(rows) = rows else { bail!("cpu scatter: row indices must be int32") };
    fn go<T: Copy + Default>(
        base: Option<&[T]>,
        rows: &[i32],
        u: &[T],
        num_rows: usize,
        add: impl Fn(T, T) -> T,
    ) -> Vec<T> {
        let slice = u.len().checked_div(rows.len()).unwrap_or(0);
        let mut out = match base {
            Some(b) => b.to_vec(),
            None => vec![T::default(); num_rows * slice],
        };
        for (j, &r) in rows.iter().enumerate() {
            let (dst, src) = (&mut out[r as usize * slice..][..slice], &u[j * slice..][..slice]);
            for (d, &s) in dst.iter_mut().zip(src) {
                *d = add(*d, s);
            }
        }
        out
    }
    Ok(match (updates, base) {
        (HostData::F32(u), b) => {
            let b = match b {
                Some(HostData::F32(b)) => Some(&b[..]),
                _ => None,
            };
            HostData::F32(go(b, rows, u, num_rows, |d, s| if sum { d + s } else { s }))
        }
        (HostData::I32(u), b) => {
            let b = match b {
                Some(HostData::I32(b)) => Some(&b[..]),
                _ => None,
            };
            HostData::I32(go(b, rows, u, num_rows, |d: i32, s| if sum { d.wrapping_add(s) } else { s }))
        }
        (HostData::Bool(u), b) => {
            let b = match b {
                Some(HostData::Bool(b)) => Some(&b[..]),
                _ => None,
            };
            HostData::Bool(go(b, rows, u, num_rows, |d: u8, s| if sum { d | s } else { s }))
        }
    })
}
