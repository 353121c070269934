//! Data movement: transpose and slice (strided copies), concat, gather.

use std::sync::Arc;

use tidytensor_core::{bail, DType, Result, Storage};

use super::{bind, launch, run1d, sbind, shader, sty, u32_of, MAX_RANK};
use crate::device::{Gpu, WG};
use crate::WgpuStorage;

const STRIDED: &str = include_str!("../shaders/layout/strided.wgsl");
const CONCAT: &str = include_str!("../shaders/layout/concat.wgsl");
const GATHER: &str = include_str!("../shaders/layout/gather.wgsl");
const SCATTER: &str = include_str!("../shaders/layout/scatter.wgsl");

/// Y[i] = X[offset + strided index of i over `dims`]: a buffer copy when that is contiguous.
fn strided_copy(
    gpu: &Arc<Gpu>,
    x: &WgpuStorage,
    offset: usize,
    dims: &[usize],
    strides: &[usize],
) -> Result<Box<dyn Storage>> {
    let n: usize = dims.iter().product();
    let (d, s) = tidytensor_core::shape::collapse_strided(dims, strides);
    let dtype = x.dtype;
    if d.is_empty() || (d.len() == 1 && s[0] == 1) {
        return launch(gpu, n, dtype, |g, st, o| {
            g.copy(st, &x.raw.buf, offset as u64 * 4, &o.buf, 0, n as u64 * 4);
            Ok(())
        });
    }
    if d.len() > MAX_RANK {
        bail!("wgpu backend: strided copy of rank {} is not supported (max {MAX_RANK})", d.len());
    }
    let mut params = vec![0u32; 15];
    params[0] = u32_of(n, "size")?;
    params[1] = d.len() as u32;
    params[2] = u32_of(offset, "offset")?;
    for k in 0..d.len() {
        params[3 + k] = d[k] as u32;
        params[9 + k] = s[k] as u32;
    }
    launch(gpu, n, dtype, |g, st, o| {
        let src = || shader(&["u32"], "u32", "", STRIDED);
        run1d(g, st, "strided", src, &[sbind(x)], bind(o), &params, n, WG)
    })
}

pub(crate) fn transpose(gpu: &Arc<Gpu>, x: &WgpuStorage, shape: &[usize], perm: &[usize]) -> Result<Box<dyn Storage>> {
    let strides = tidytensor_core::shape::strides(shape);
    let dims: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let st: Vec<usize> = perm.iter().map(|&p| strides[p]).collect();
    strided_copy(gpu, x, 0, &dims, &st)
}

pub(crate) fn slice(
    gpu: &Arc<Gpu>,
    x: &WgpuStorage,
    shape: &[usize],
    begin: &[usize],
    size: &[usize],
) -> Result<Box<dyn Storage>> {
    let rank = shape.len();
    let strides = tidytensor_core::shape::strides(shape);
    let n: usize = size.iter().product();
    let offset = if n == 0 { 0 } else { (0..rank).map(|i| begin[i] * strides[i]).sum() };
    strided_copy(gpu, x, offset, size, &strides)
}

pub(crate) fn concat(gpu: &Arc<Gpu>, inputs: &[&WgpuStorage], outer: usize) -> Result<Box<dyn Storage>> {
    let Some(first) = inputs.first() else { bail!("wgpu concat: no inputs") };
    let dtype = first.dtype;
    let widths: Vec<usize> = inputs.iter().map(|s| s.len.checked_div(outer).unwrap_or(0)).collect();
    let total: usize = widths.iter().sum();
    let n = outer * total;
    launch(gpu, n, dtype, |g, st, o| {
        let mut off = 0usize;
        for (s, &w) in inputs.iter().zip(&widths) {
            if w > 0 {
                if outer == 1 {
                    g.copy(st, &s.raw.buf, 0, &o.buf, off as u64 * 4, w as u64 * 4);
                } else {
                    let params = [u32_of(outer * w, "size")?, w as u32, u32_of(total, "size")?, off as u32];
                    let src = || shader(&["u32"], "u32", "", CONCAT);
                    run1d(g, st, "concat", src, &[sbind(s)], bind(o), &params, outer * w, WG)?;
                }
            }
            off += w;
        }
        Ok(())
    })
}

/// `x` as `[batch, outer, axis, inner]`, int32 `idx` as `[batch, n]`; an index outside
/// `[0, axis)` gives zeros (as tfjs's GPU backends), since checking it would cost a readback.
pub(crate) fn gather(gpu: &Arc<Gpu>, x: &WgpuStorage, idx: &WgpuStorage, dims: [usize; 4]) -> Result<Box<dyn Storage>> {
    let [batch, outer, axis, inner] = dims;
    let per_batch = idx.len.checked_div(batch).unwrap_or(0);
    let n = batch * outer * per_batch * inner;
    let params = [
        u32_of(n, "size")?,
        u32_of(per_batch, "index count")?,
        u32_of(axis, "axis")?,
        u32_of(inner, "inner size")?,
        u32_of(outer, "outer size")?,
    ];
    launch(gpu, n, x.dtype, |g, st, o| {
        let src = || shader(&["u32", "i32"], "u32", "", GATHER);
        run1d(g, st, "gather", src, &[sbind(x), sbind(idx)], bind(o), &params, n, WG)
    })
}

/// Scatter, one thread per output element: it walks the updates for its row (O(outputs ×
/// updates), no atomics; a row outside the output matches no element and is skipped).
pub(crate) fn scatter(
    gpu: &Arc<Gpu>,
    base: Option<&WgpuStorage>,
    rows: &WgpuStorage,
    (updates, slice): (&WgpuStorage, usize),
    num_rows: usize,
    sum: bool,
) -> Result<Box<dyn Storage>> {
    let (m, dtype) = (rows.len, updates.dtype);
    let n = num_rows * slice;
    let params = [u32_of(n, "size")?, u32_of(slice.max(1), "slice")?, u32_of(m, "updates")?];
    let key = format!("scatter:{dtype:?}:{sum}:{}", base.is_some());
    launch(gpu, n, dtype, |g, st, o| {
        let src = || {
            let t = sty(dtype);
            let comb = match (sum, dtype) {
                (false, _) => "v",
                (true, DType::Bool) => "acc | v",
                (true, _) => "acc + v",
            };
            let start = if base.is_some() { "X2[i]".to_string() } else { format!("{t}(0)") };
            let helpers = format!("fn start(i: u32) -> {t} {{ return {start}; }}\nfn comb(acc: {t}, v: {t}) -> {t} {{ return {comb}; }}\n");
            let mut inputs = vec!["i32", t, t];
            if base.is_none() {
                inputs.pop();
            }
            shader(&inputs, t, &helpers, SCATTER)
        };
        let mut binds = vec![sbind(rows), sbind(updates)];
        if let Some(b) = base {
            binds.push(sbind(b));
        }
        run1d(g, st, &key, src, &binds, bind(o), &params, n, WG)
    })
}
