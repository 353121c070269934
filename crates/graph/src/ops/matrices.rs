//! tfjs-converter's `matrices_executor.ts`. `_FusedMatMul` runs the product, the bias and the
//! activation as one kernel (the core's `fused_matmul`).

use super::{not_here, Ctx};
use tidytensor_core::ops::Fused;
use tidytensor_core::{bail, Activation, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "BatchMatMul",
    "BatchMatMulV2",
    "BatchMatMulV3",
    "MatMul",
    "Transpose",
    "_FusedMatMul",
    "Einsum",
    "MatrixBandPart",
];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    Ok(vec![match op {
        "MatMul" => e.matmul(c.t(0)?, c.t(1)?, a.bool("transpose_a", false), a.bool("transpose_b", false))?,
        "BatchMatMul" | "BatchMatMulV2" | "BatchMatMulV3" => {
            e.matmul(c.t(0)?, c.t(1)?, a.bool("adj_x", false), a.bool("adj_y", false))?
        }
        "Transpose" => {
            let perm = super::ints(&c.nums(e, 1)?, "Transpose perm")?;
            e.transpose(c.t(0)?, Some(&perm))?
        }
        "_FusedMatMul" => {
            let fused_ops = a.strings("fused_ops").unwrap_or_default();
            let extra = fused_ops.first().map(String::as_str);
            let activation = fused_ops.get(1).map_or("linear", String::as_str);
            let is_prelu = activation == "prelu";
            let num_args = a.number("num_args", 0.0);
            if extra == Some("biasadd") {
                if is_prelu && num_args != 2.0 {
                    bail!("Fused MatMul with BiasAdd and Prelu must have two extra arguments: bias and alpha.");
                }
                if !is_prelu && num_args != 1.0 {
                    bail!("Fused MatMul with BiasAdd must have one extra argument: bias.");
                }
            }
            let args = c.tensors(2, 0);
            let (bias, prelu) = (args.first().copied(), args.get(1).copied());
            let leaky_alpha = a.number("leakyrelu_alpha", 0.2);
            let (ta, tb) = (a.bool("transpose_a", false), a.bool("transpose_b", false));
            match Activation::parse(activation, leaky_alpha) {
                // One kernel (the core composes it while a gradient is recorded).
                Ok(act) => e.fused_matmul(c.t(0)?, c.t(1)?, ta, tb, &Fused { bias, activation: act, alpha: prelu })?,
                Err(_) => {
                    let y = e.matmul(c.t(0)?, c.t(1)?, ta, tb)?;
                    e.fused_finish(y, bias, activation, prelu, leaky_alpha, false)?
                }
            }
        }
        "Einsum" => {
            let equation = a.string("equation").unwrap_or_default();
            e.einsum(&equation, &c.tensors(0, 0))?
        }
        // TensorFlow's inputs: num_lower, then num_upper (tfjs's op list reads input 1 for both).
        "MatrixBandPart" => e.band_part(c.t(0)?, c.num(e, 1)?, c.num(e, 2)?)?,
        _ => return not_here(op),
    }])
}
