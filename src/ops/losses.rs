//! `tf.losses` (crates/core/src/ops/losses.rs).

use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::{PairLoss, Reduction};

/// `reduction`: tfjs's `Reduction` number.
#[napi]
pub fn compute_weighted_loss(losses: f64, weights: Option<f64>, reduction: f64) -> Result<f64> {
    make(|e| e.compute_weighted_loss(id(losses), weights.map(id), Reduction::from_number(reduction)?))
}

/// `loss`: the tf.losses name (absoluteDifference, meanSquaredError, hingeLoss, huberLoss,
/// logLoss, cosineDistance); `param`: huberLoss's delta, logLoss's epsilon; `axes`:
/// cosineDistance's.
#[napi]
pub fn pair_loss(
    loss: String,
    labels: f64,
    predictions: f64,
    weights: Option<f64>,
    reduction: f64,
    param: f64,
    axes: Option<Vec<i64>>,
) -> Result<f64> {
    let loss = match loss.as_str() {
        "absoluteDifference" => PairLoss::AbsoluteDifference,
        "meanSquaredError" => PairLoss::MeanSquaredError,
        "hingeLoss" => PairLoss::Hinge,
        "huberLoss" => PairLoss::Huber { delta: param },
        "logLoss" => PairLoss::Log { epsilon: param },
        "cosineDistance" => PairLoss::CosineDistance { axes },
        other => return Err(Error::from_reason(format!("unknown loss {other}"))),
    };
    make(|e| e.pair_loss(&loss, id(labels), id(predictions), weights.map(id), Reduction::from_number(reduction)?))
}

/// `softmax`: softmaxCrossEntropy, else sigmoidCrossEntropy.
#[napi]
pub fn cross_entropy_loss(
    softmax: bool,
    labels: f64,
    logits: f64,
    weights: Option<f64>,
    label_smoothing: f64,
    reduction: f64,
) -> Result<f64> {
    make(|e| {
        let r = Reduction::from_number(reduction)?;
        let w = weights.map(id);
        if softmax {
            e.softmax_cross_entropy(id(labels), id(logits), w, label_smoothing, r)
        } else {
            e.sigmoid_cross_entropy(id(labels), id(logits), w, label_smoothing, r)
        }
    })
}
