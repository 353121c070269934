//! Creation kernels: fill, oneHot.

use std::sync::Arc;

use tidytensor_core::{DType, Result, Storage};

use super::{bind, launch, run1d, sbind, shader, u32_of, value_bits};
use crate::device::{Gpu, RawBuf, State, WG};
use crate::WgpuStorage;

const FILL: &str = include_str!("../shaders/creation/fill.wgsl");
const ONE_HOT: &str = include_str!("../shaders/creation/one_hot.wgsl");

/// Fills the first `n` words of `out` with `bits` (also used for kernels' empty cases).
pub(crate) fn fill_raw(gpu: &Gpu, st: &mut State, out: &RawBuf, n: usize, bits: u32) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let src = || shader(&[], "u32", "", FILL);
    run1d(gpu, st, "fill", src, &[], bind(out), &[u32_of(n, "size")?, bits], n, WG)
}

pub(crate) fn fill(gpu: &Arc<Gpu>, len: usize, value: f64, dtype: DType) -> Result<Box<dyn Storage>> {
    let bits = value_bits(value, dtype);
    launch(gpu, len, dtype, |g, st, out| fill_raw(g, st, out, len, bits))
}

/// int32 `idx` → `[len, depth]` of `on` where the column is the index, else `off`.
pub(crate) fn one_hot(
    gpu: &Arc<Gpu>,
    idx: &WgpuStorage,
    depth: usize,
    on: f64,
    off: f64,
    dtype: DType,
) -> Result<Box<dyn Storage>> {
    let n = idx.len * depth;
    let params = [u32_of(n, "size")?, u32_of(depth, "depth")?, value_bits(on, dtype), value_bits(off, dtype)];
    launch(gpu, n, dtype, |g, st, o| {
        let src = || shader(&["i32"], "u32", "", ONE_HOT);
        run1d(g, st, "one_hot", src, &[sbind(idx)], bind(o), &params, n, WG)
    })
}
