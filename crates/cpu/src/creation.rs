//! Creation kernels: fill, oneHot.

use tidytensor_core::{bail, js_to_int32, DType, Result};

use crate::HostData;

pub(crate) fn fill(len: usize, value: f64, dtype: DType) -> HostData {
    match dtype {
        DType::Float32 => HostData::F32(vec![value as f32; len]),
        DType::Int32 => HostData::I32(vec![js_to_int32(value); len]),
        DType::Bool => HostData::Bool(vec![(value != 0.0) as u8; len]),
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
