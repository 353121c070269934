//! tfjs-converter's `dynamic_executor.ts`: the ops whose output shape depends on input values
//! (the core's `ops/dynamic.rs`). tfjs runs them only in `executeAsync`; so does
//! [`crate::Graph`].

use super::{not_here, Ctx};
use tidytensor_core::ops::NmsOutputs;
use tidytensor_core::{Engine, Result, TensorId};

pub(crate) const OPS: &[&str] =
    &["NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5", "Where", "ListDiff"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    match op {
        "NonMaxSuppressionV2" | "NonMaxSuppressionV3" | "NonMaxSuppressionV4" | "NonMaxSuppressionV5" => {
            // tfjs's nmsParams; V2 has no score threshold input (undefined: the default).
            let score_threshold = if op == "NonMaxSuppressionV2" { f64::NEG_INFINITY } else { c.num(e, 4)? };
            let soft_nms_sigma = if op == "NonMaxSuppressionV5" { c.num(e, 5)? } else { 0.0 };
            let outputs = match op {
                "NonMaxSuppressionV5" => NmsOutputs::Scores,
                "NonMaxSuppressionV4" => NmsOutputs::Padded(c.attrs().bool("pad_to_max_output_size", false)),
                _ => NmsOutputs::Indices,
            };
            let (max, iou) = (c.num(e, 2)?, c.num(e, 3)?);
            e.non_max_suppression(c.t(0)?, c.t(1)?, max, iou, score_threshold, soft_nms_sigma, outputs)
        }
        // ops.cast(condition, 'bool') then whereAsync: the same coordinates.
        "Where" => Ok(vec![e.where_true(c.t(0)?)?]),
        "ListDiff" => e.setdiff1d(c.t(0)?, c.t(1)?),
        _ => not_here(op),
    }
}
