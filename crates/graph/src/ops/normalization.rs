//! tfjs-converter's `normalization_executor.ts`.

use super::ints;
use super::{not_here, Ctx};
use tidytensor_core::ops::NormOrd;
use tidytensor_core::{Engine, Result, TensorId};

pub(crate) const OPS: &[&str] =
    &["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3", "LRN", "Softmax", "LogSoftmax", "EuclideanNorm"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    Ok(vec![match op {
        // Inputs x, scale, offset, mean, variance; only the first output (tfjs's batchNorm).
        "FusedBatchNorm" | "FusedBatchNormV2" | "FusedBatchNormV3" => {
            let eps = a.number("epsilon", 0.001);
            e.batch_norm(c.t(0)?, c.t(3)?, c.t(4)?, Some(c.t(2)?), Some(c.t(1)?), eps)?
        }
        "LRN" => e.lrn(
            c.t(0)?,
            a.number("depth_radius", 5.0),
            a.number("bias", 1.0),
            a.number("alpha", 1.0),
            a.number("beta", 0.5),
        )?,
        "Softmax" => e.softmax(c.t(0)?, -1)?,
        "LogSoftmax" => e.log_softmax(c.t(0)?, -1.0)?,
        "EuclideanNorm" => {
            let axes = ints(&c.nums(e, 1)?, "axis")?;
            let keep = c.attrs().bool("keep_dims", false);
            e.norm(c.t(0)?, NormOrd::Euclidean, Some(&axes), keep)?
        }
        _ => return not_here(op),
    }])
}
