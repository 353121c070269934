//! The ops whose output shape depends on input values (crates/core/src/ops/dynamic.rs).

use super::layout::ids;
use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::NmsOutputs;

/// `tf.image.nonMaxSuppression*`: `outputs` "indices", "scores" or "padded" (`pad`: to the
/// maximum output size).
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn non_max_suppression(
    boxes: f64,
    scores: f64,
    max_output_size: f64,
    iou_threshold: f64,
    score_threshold: f64,
    soft_nms_sigma: f64,
    outputs: String,
    pad: bool,
) -> Result<Vec<f64>> {
    let outputs = match outputs.as_str() {
        "scores" => NmsOutputs::Scores,
        "padded" => NmsOutputs::Padded(pad),
        _ => NmsOutputs::Indices,
    };
    ids(|e| {
        e.non_max_suppression(
            id(boxes),
            id(scores),
            max_output_size,
            iou_threshold,
            score_threshold,
            soft_nms_sigma,
            outputs,
        )
    })
}

/// `tf.whereAsync`'s coordinates.
#[napi]
pub fn where_true(condition: f64) -> Result<f64> {
    make(|e| e.where_true(id(condition)))
}

/// `tf.booleanMaskAsync`, once lib/ops/layout.js has awaited the mask's values.
#[napi]
pub fn boolean_mask(x: f64, mask: f64, axis: f64) -> Result<f64> {
    make(|e| e.boolean_mask(id(x), id(mask), axis))
}

/// `tf.setdiff1dAsync`: the values and their indices.
#[napi(js_name = "setdiff1d")]
pub fn setdiff1d(x: f64, y: f64) -> Result<Vec<f64>> {
    ids(|e| e.setdiff1d(id(x), id(y)))
}

/// `tf.unique`: the values and the indices.
#[napi]
pub fn unique(x: f64, axis: i64) -> Result<Vec<f64>> {
    ids(|e| e.unique(id(x), axis))
}

/// The selection of `tf.kernel_impls.nonMaxSuppressionV3Impl`..`V5Impl`, on plain values
/// (unchecked, as tfjs's): the indices and their scores in doubles.
#[napi(object)]
pub struct NmsSelection {
    pub indices: Vec<i32>,
    pub scores: Vec<f64>,
}

#[napi]
pub fn nms_select(
    boxes: Vec<f64>,
    scores: Vec<f64>,
    max_output_size: f64,
    iou_threshold: f64,
    score_threshold: f64,
    soft_nms_sigma: f64,
) -> Result<NmsSelection> {
    if boxes.len() < 4 * scores.len() {
        return Err(Error::from_reason(format!("nms: {} box values for {} scores", boxes.len(), scores.len())));
    }
    let r = tidytensor_core::ops::nms_select(
        &boxes,
        &scores,
        max_output_size,
        iou_threshold,
        score_threshold,
        soft_nms_sigma,
        false,
    );
    Ok(NmsSelection { indices: r.indices, scores: r.scores })
}
