//! The ragged ops (crates/core/src/ops/ragged.rs).

use super::layout::ids;
use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// The output's nested splits, then its dense values.
#[napi]
pub fn ragged_gather(splits: Vec<f64>, values: f64, indices: f64) -> Result<Vec<f64>> {
    let splits: Vec<_> = splits.into_iter().map(id).collect();
    ids(|e| e.ragged_gather(&splits, id(values), id(indices)))
}

/// The splits and the dense values.
#[napi]
pub fn ragged_range(starts: f64, limits: f64, deltas: f64) -> Result<Vec<f64>> {
    ids(|e| e.ragged_range(id(starts), id(limits), id(deltas)))
}

#[napi]
pub fn ragged_tensor_to_tensor(
    shape: f64,
    values: f64,
    default_value: f64,
    partitions: Vec<f64>,
    types: Vec<String>,
) -> Result<f64> {
    let partitions: Vec<_> = partitions.into_iter().map(id).collect();
    make(|e| e.ragged_tensor_to_tensor(id(shape), id(values), id(default_value), &partitions, &types))
}
