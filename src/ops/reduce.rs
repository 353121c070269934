//! Reductions, arg-reductions, softmax.

use crate::{engine, id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::NormOrd;
use tidytensor_core::{ArgOp, CumOp, ReduceOp};

macro_rules! reduce {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[napi]
        pub fn $name(x: f64, axes: Option<Vec<i64>>, keep_dims: bool) -> Result<f64> {
            make(|e| e.reduce(ReduceOp::$op, id(x), axes.as_deref(), keep_dims))
        }
    )*};
}
reduce!(sum => Sum, mean => Mean, max => Max, min => Min, prod => Prod, all => All, any => Any);

#[napi]
pub fn arg_max(x: f64, axis: i64) -> Result<f64> {
    make(|e| e.arg_reduce(ArgOp::ArgMax, id(x), axis))
}

#[napi]
pub fn arg_min(x: f64, axis: i64) -> Result<f64> {
    make(|e| e.arg_reduce(ArgOp::ArgMin, id(x), axis))
}

/// `tf.topk`: the ids of the values and indices tensors (JavaScript reads each one's shape
/// with `tensorMeta`).
#[napi]
pub fn topk(x: f64, k: i64) -> Result<Vec<f64>> {
    engine(|e| Ok(e.topk(id(x), k)?.into_iter().map(|t| t as f64).collect()))
}

/// `tf.moments`: the ids of the mean and variance tensors.
#[napi]
pub fn moments(x: f64, axes: Option<Vec<i64>>, keep_dims: bool) -> Result<Vec<f64>> {
    engine(|e| {
        let (mean, variance) = e.moments(id(x), axes.as_deref(), keep_dims)?;
        Ok(vec![mean as f64, variance as f64])
    })
}

/// `tf.cumsum` and `tf.cumprod`.
#[napi]
pub fn cumulative(prod: bool, x: f64, axis: i64, exclusive: bool, reverse: bool) -> Result<f64> {
    let op = if prod { CumOp::Prod } else { CumOp::Sum };
    make(|e| e.cumulative(op, id(x), axis, exclusive, reverse))
}

#[napi]
pub fn log_softmax(logits: f64, axis: f64) -> Result<f64> {
    make(|e| e.log_softmax(id(logits), axis))
}

#[napi]
pub fn softmax(logits: f64, dim: i64) -> Result<f64> {
    make(|e| e.softmax(id(logits), dim))
}

#[napi]
pub fn unsorted_segment_sum(x: f64, segment_ids: f64, num_segments: f64) -> Result<f64> {
    make(|e| e.unsorted_segment_sum(id(x), id(segment_ids), num_segments))
}

/// `tf.bincount` (`dense`: `tf.denseBincount`).
#[napi]
pub fn bincount(x: f64, weights: f64, size: f64, dense: bool, binary_output: bool) -> Result<f64> {
    make(|e| e.bincount(id(x), id(weights), size, dense, binary_output))
}

/// `tf.searchSorted` (`right`: upper bounds).
#[napi]
pub fn search_sorted(sorted_sequence: f64, values: f64, right: bool) -> Result<f64> {
    make(|e| e.search_sorted(id(sorted_sequence), id(values), right))
}

#[napi]
pub fn log_sum_exp(x: f64, axes: Option<Vec<i64>>, keep_dims: bool) -> Result<f64> {
    make(|e| e.log_sum_exp(id(x), axes.as_deref(), keep_dims))
}

/// `tf.norm`: `ord` a number, or `ord_name` 'euclidean' / 'fro'.
#[napi]
pub fn norm(
    x: f64,
    ord: Option<f64>,
    ord_name: Option<String>,
    axes: Option<Vec<i64>>,
    keep_dims: bool,
) -> Result<f64> {
    let ord = match ord_name.as_deref() {
        Some("euclidean") => NormOrd::Euclidean,
        Some("fro") => NormOrd::Fro,
        Some(other) => return Err(Error::from_reason(format!("Error in norm: invalid ord value: {other}"))),
        None => NormOrd::Number(ord.unwrap_or(f64::NAN)),
    };
    make(|e| e.norm(id(x), ord, axes.as_deref(), keep_dims))
}
