//! `tf.sparse` (crates/core/src/ops/sparse.rs).

use super::layout::ids;
use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// `sparseSegmentSum` (`mean`: `sparseSegmentMean`).
#[napi]
pub fn sparse_segment_reduction(data: f64, indices: f64, segment_ids: f64, mean: bool) -> Result<f64> {
    make(|e| e.sparse_segment_reduction(id(data), id(indices), id(segment_ids), mean))
}

/// The new indices and the output shape.
#[napi]
pub fn sparse_reshape(input_indices: f64, input_shape: f64, new_shape: f64) -> Result<Vec<f64>> {
    ids(|e| e.sparse_reshape(id(input_indices), id(input_shape), id(new_shape)))
}

/// Output indices, values, the empty-row indicator and the reverse index map.
#[napi]
pub fn sparse_fill_empty_rows(indices: f64, values: f64, dense_shape: f64, default_value: f64) -> Result<Vec<f64>> {
    ids(|e| e.sparse_fill_empty_rows(id(indices), id(values), id(dense_shape), id(default_value)))
}
