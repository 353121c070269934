//! onnxruntime's contrib ops that common exports (its transformer optimizer, PyTorch exports
//! through it) put in models: the GELU forms, FusedMatMul and the fused layer norms. Those of
//! the `com.microsoft` domain are `onnx::com.microsoft.<Op>` nodes; SimplifiedLayerNormalization,
//! which onnxruntime registers in the default domain, is found there.

use super::norm::{layer_norm_of, rms_norm};
use super::*;

/// The domain, as node op types carry it.
pub(crate) const DOMAIN: &str = "com.microsoft";

/// Every `com.microsoft` op run here.
pub(crate) const OPS: &[&str] = &[
    "BiasGelu",
    "FastGelu",
    "FusedMatMul",
    "Gelu",
    "QuickGelu",
    "SimplifiedLayerNormalization",
    "SkipLayerNormalization",
];

/// The contrib ops onnxruntime registers in the default domain.
pub(crate) const DEFAULT_DOMAIN_OPS: &[&str] = &["SimplifiedLayerNormalization"];

pub(super) fn run(e: &mut Engine, c: &Ctx, op: &str) -> Result<Vec<TensorId>> {
    let x = c.t(0)?;
    Ok(vec![match op {
        "Gelu" => gelu(e, x, false)?,
        "BiasGelu" => {
            let s = e.add(x, c.t(1)?)?;
            gelu(e, s, false)?
        }
        "FastGelu" => {
            let s = match c.opt(1) {
                Some(b) => e.add(x, b)?,
                None => x,
            };
            gelu(e, s, true)?
        }
        "QuickGelu" => {
            let alpha = e.scalar(c.float("alpha", 1.702))?;
            let ax = e.mul(x, alpha)?;
            let s = e.unary(UnaryOp::Sigmoid, ax)?;
            e.mul(x, s)?
        }
        "FusedMatMul" => {
            if c.int("transBatchA", 0) != 0 || c.int("transBatchB", 0) != 0 {
                bail!("ONNX node '{}': FusedMatMul with transBatchA/B is not supported yet", c.node.name);
            }
            let (ta, tb) = (c.int("transA", 0) != 0, c.int("transB", 0) != 0);
            let b = c.t(1)?;
            let y = if ta || tb {
                if rank(e, x)? < 2 || rank(e, b)? < 2 {
                    bail!("ONNX node '{}': FusedMatMul transposes matrices of rank 2 or more", c.node.name);
                }
                e.matmul(x, b, ta, tb)?
            } else {
                matmul(e, x, b)?
            };
            let alpha = c.float("alpha", 1.0);
            if alpha == 1.0 {
                y
            } else {
                let s = e.scalar(alpha)?;
                e.mul(y, s)?
            }
        }
        "SimplifiedLayerNormalization" => {
            if c.outputs() > 1 {
                bail!("ONNX node '{}': SimplifiedLayerNormalization's second output is not supported yet", c.node.name);
            }
            let from = axis(c.int("axis", -1), rank(e, x)?, &c.node.name)?;
            rms_norm(e, x, c.t(1)?, from, c.float("epsilon", 1e-5))?
        }
        // (input, skip, gamma[, beta][, bias]) → (output, mean, 1 / std, input + skip + bias),
        // over the last axis.
        _ => {
            let mut sum = e.add(x, c.t(1)?)?;
            if let Some(b) = c.opt(4) {
                sum = e.add(sum, b)?;
            }
            let from = rank(e, sum)?.saturating_sub(1);
            let mut out = layer_norm_of(e, sum, c.t(2)?, c.opt(3), from, c.float("epsilon", 1e-12), 3)?;
            out.push(sum);
            out.truncate(c.outputs().max(1));
            return Ok(out);
        }
    }])
}
