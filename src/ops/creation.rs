//! Creation: fill, zerosLike/onesLike, range, linspace, eye, oneHot, random tensors.

use crate::{id, make, parse_dtype};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::Random;
use tidytensor_core::shape;

fn dims(shape: &[i64]) -> tidytensor_core::Result<Vec<usize>> {
    shape::from_user(shape)
}

#[napi]
pub fn fill(shape: Vec<i64>, value: f64, dtype: String) -> Result<f64> {
    make(|e| e.fill(&dims(&shape)?, value, parse_dtype(&dtype)?))
}

/// `tf.zeros` / `tf.ones`: made from values, not by a kernel (as in tfjs).
#[napi]
pub fn filled(shape: Vec<i64>, value: f64, dtype: String) -> Result<f64> {
    make(|e| e.filled(&dims(&shape)?, value, parse_dtype(&dtype)?))
}

/// `tf.zerosLike` (value 0) and `tf.onesLike` (value 1).
#[napi]
pub fn fill_like(x: f64, value: f64) -> Result<f64> {
    make(|e| e.fill_like(id(x), value))
}

#[napi]
pub fn range(start: f64, stop: f64, step: f64, dtype: String) -> Result<f64> {
    make(|e| e.range(start, stop, step, parse_dtype(&dtype)?))
}

#[napi]
pub fn linspace(start: f64, stop: f64, num: f64) -> Result<f64> {
    make(|e| e.linspace(start, stop, num as i64))
}

#[napi]
pub fn eye(num_rows: f64, num_columns: Option<f64>, batch_shape: Option<Vec<i64>>, dtype: String) -> Result<f64> {
    make(|e| {
        e.eye(
            num_rows as i64,
            num_columns.map(|c| c as i64),
            batch_shape.as_deref().unwrap_or(&[]),
            parse_dtype(&dtype)?,
        )
    })
}

#[napi]
pub fn one_hot(indices: f64, depth: f64, on_value: f64, off_value: f64, dtype: String) -> Result<f64> {
    make(|e| e.one_hot(id(indices), depth, on_value, off_value, parse_dtype(&dtype)?))
}

#[napi]
pub fn random_normal(shape: Vec<i64>, mean: f64, std_dev: f64, dtype: String, seed: Option<String>) -> Result<f64> {
    make(|e| e.random(&dims(&shape)?, Random::Normal { mean, std_dev }, parse_dtype(&dtype)?, seed.as_deref()))
}

#[napi]
pub fn truncated_normal(shape: Vec<i64>, mean: f64, std_dev: f64, dtype: String, seed: Option<String>) -> Result<f64> {
    make(|e| e.random(&dims(&shape)?, Random::TruncatedNormal { mean, std_dev }, parse_dtype(&dtype)?, seed.as_deref()))
}

#[napi]
pub fn random_uniform(shape: Vec<i64>, minval: f64, maxval: f64, dtype: String, seed: Option<String>) -> Result<f64> {
    make(|e| {
        e.random(&dims(&shape)?, Random::Uniform { min: minval, max: maxval }, parse_dtype(&dtype)?, seed.as_deref())
    })
}

#[napi]
pub fn random_gamma(shape: Vec<i64>, alpha: f64, beta: f64, dtype: String, seed: Option<String>) -> Result<f64> {
    make(|e| e.random(&dims(&shape)?, Random::Gamma { alpha, beta }, parse_dtype(&dtype)?, seed.as_deref()))
}

#[napi]
pub fn multinomial(logits: f64, num_samples: f64, seed: Option<String>, normalized: bool) -> Result<f64> {
    make(|e| e.multinomial(id(logits), num_samples, seed.as_deref(), normalized))
}

/// `tf.meshgrid` of two tensors (`ij`: tfjs's indexing 'ij', else 'xy').
#[napi]
pub fn meshgrid(x: f64, y: f64, ij: bool) -> Result<Vec<f64>> {
    super::layout::ids(|e| e.meshgrid(id(x), id(y), ij))
}

#[napi]
pub fn diag(x: f64) -> Result<f64> {
    make(|e| e.diag(id(x)))
}

/// `noise_shape`: tfjs's noiseShape (null entries are x's dimensions), `seed` as a string.
#[napi]
pub fn dropout(x: f64, rate: f64, noise_shape: Option<Vec<Option<f64>>>, seed: Option<String>) -> Result<f64> {
    make(|e| e.dropout(id(x), rate, noise_shape.as_deref(), seed.as_deref()))
}
