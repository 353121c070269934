//! Shapes and indexing: clone, reshape, expandDims, squeeze, transpose, concat, stack, slice,
//! gather.

use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi]
pub fn clone(x: f64) -> Result<f64> {
    make(|e| e.clone_tensor(id(x)))
}

#[napi]
pub fn reshape(x: f64, shape: Vec<i64>) -> Result<f64> {
    make(|e| e.reshape(id(x), &shape))
}

#[napi]
pub fn expand_dims(x: f64, axis: i64) -> Result<f64> {
    make(|e| e.expand_dims(id(x), axis))
}

#[napi]
pub fn squeeze(x: f64, axes: Option<Vec<i64>>) -> Result<f64> {
    make(|e| e.squeeze(id(x), axes.as_deref()))
}

#[napi]
pub fn transpose(x: f64, perm: Option<Vec<i64>>) -> Result<f64> {
    make(|e| e.transpose(id(x), perm.as_deref()))
}

#[napi]
pub fn concat(xs: Vec<f64>, axis: i64) -> Result<f64> {
    let ids: Vec<_> = xs.into_iter().map(id).collect();
    make(|e| e.concat(&ids, axis))
}

#[napi]
pub fn stack(xs: Vec<f64>, axis: i64) -> Result<f64> {
    let ids: Vec<_> = xs.into_iter().map(id).collect();
    make(|e| e.stack(&ids, axis))
}

#[napi]
pub fn slice(x: f64, begin: Vec<i64>, size: Vec<i64>) -> Result<f64> {
    make(|e| e.slice(id(x), &begin, &size))
}

/// `tf.scatterND` (no base) and `tf.tensorScatterUpdate` on rows (see `Engine::scatter_rows`).
#[napi]
pub fn scatter_rows(base: Option<f64>, rows: f64, updates: f64, num_rows: f64) -> Result<f64> {
    make(|e| e.scatter_rows(base.map(id), id(rows), id(updates), num_rows as usize))
}

#[napi]
pub fn gather(x: f64, indices: f64, axis: i64, batch_dims: i64) -> Result<f64> {
    make(|e| e.gather(id(x), id(indices), axis, batch_dims))
}
