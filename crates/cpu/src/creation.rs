//! Creation kernels: fill, oneHot.

use tidytensor_core::{bail, js_to_int32, DType, Result};

use crate::HostData;

/// `len` copies of `value`. Every element is written, zeros too: `vec![0; n]` would take
/// zeroed pages the OS grants lazily, which the free-memory check of the next large tensor
/// cannot see (two such tensors could each pass it, and the process die filling them).
pub(crate) fn fill(len: usize, value: f64, dtype: DType) -> HostData {
    fn filled<T: Copy>(len: usize, v: T) -> Vec<T> {
        let mut out = Vec::with_capacity(len);
        out.resize(len, v);
        out
    }
    match dtype {
        DType::Float32 => HostData::F32(filled(len, value as f32)),
        DType::Int32 => HostData::I32(filled(len, js_to_int32(value))),
        DType::Bool => HostData::Bool(filled(len, (value != 0.0) as u8)),
        d => tidytensor_core::numeric_only(d),
    }
}

/// Rows of `depth` values: `on` where the column is the index, else `off` (so an index out of
/// range gives a row of `off`).
pub(crate) fn one_hot(indices: &HostData, depth: usize, on: f64, off: f64, dtype: DType) -> Result<HostData> {
    let HostData::I32(idx) = indices else { bail!("cpu oneHot: indices must be int32") };
    fn build<T: Copy>(idx: &[i32], depth: usize, on: T, off: T) -> Vec<T> {
        let mut out = vec![off; idx.len() * depth];
        for (r, &i) in idx.iter().enumerate() {
            if i >= 0 && (i as usize) < depth {
                out[r * depth + i as usize] = on;
            }
        }
        out
    }
    Ok(match dtype {
        DType::Float32 => HostData::F32(build(idx, depth, on as f32, off as f32)),
        DType::Int32 => HostData::I32(build(idx, depth, js_to_int32(on), js_to_int32(off))),
        DType::Bool => HostData::Bool(build(idx, depth, (on != 0.0) as u8, (off != 0.0) as u8)),
        d => tidytensor_core::numeric_only(d),
    })
}
