//! tfjs-converter's `transformation_executor.ts`.

use super::pairs;
use super::{ints, not_here, want_dtype, Ctx};
use tidytensor_core::{bail, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "Cast",
    "ExpandDims",
    "Squeeze",
    "Reshape",
    "EnsureShape",
    "MirrorPad",
    "PadV2",
    "Pad",
    "SpaceToBatchND",
    "BatchToSpaceND",
    "DepthToSpace",
    "BroadcastTo",
    "BroadcastArgs",
];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    Ok(vec![match op {
        "Cast" => {
            let dtype = want_dtype(c, "DstT", None)?;
            e.cast(c.t(0)?, dtype)?
        }
        "ExpandDims" => {
            let axis = ints(&[c.num(e, 1)?], "axis")?[0];
            e.expand_dims(c.t(0)?, axis)?
        }
        // An empty list squeezes every dimension of 1, as no list does.
        "Squeeze" => {
            let axes = a.numbers("axis").or_else(|| a.numbers("squeeze_dims")).unwrap_or_default();
            let axes = ints(&axes, "axis")?;
            e.squeeze(c.t(0)?, (!axes.is_empty()).then_some(&axes[..]))?
        }
        "Reshape" => {
            let s = c.nums(e, 1)?;
            if !s.iter().all(|&d| d.fract() == 0.0 && d.is_finite()) {
                bail!(
                    "The new shape must be a list of integers (-1 for one inferred dimension) but got [{}]",
                    super::js_list(&s)
                );
            }
            let s: Vec<i64> = s.iter().map(|&d| d as i64).collect();
            e.reshape(c.t(0)?, &s)?
        }
        // tfjs returns the input itself.
        "EnsureShape" => {
            let x = c.t(0)?;
            let want = c.nums(e, 1)?;
            let got = e.shape(x)?.to_vec();
            let ok = want.len() == got.len() && want.iter().zip(&got).all(|(&w, &g)| w == g as f64 || w == -1.0);
            if !ok {
                let got: Vec<String> = got.iter().map(|d| d.to_string()).collect();
                bail!(
                    "EnsureShape: Shape of tensor {} is not compatible with expected shape {}",
                    got.join(","),
                    super::js_list(&want)
                );
            }
            x
        }
        "MirrorPad" => {
            let p = pairs(&c.nums(e, 1)?);
            let mode = a.string("mode").unwrap_or_default();
            e.mirror_pad(c.t(0)?, &p, &mode)?
        }
        "Pad" | "PadV2" => {
            let p = pairs(&c.nums(e, 1)?);
            let value = if op == "PadV2" { c.num(e, 2)? } else { a.number("constant_value", 0.0) };
            e.pad(c.t(0)?, &p, value)?
        }
        "BroadcastTo" => e.broadcast_to_shape(c.t(0)?, &c.nums(e, 1)?)?,
        "BroadcastArgs" => e.broadcast_args(c.t(0)?, c.t(1)?)?,
        "SpaceToBatchND" => {
            let (block, p) = (c.nums(e, 1)?, pairs(&c.nums(e, 2)?));
            e.space_to_batch_nd(c.t(0)?, &block, &p)?
        }
        "BatchToSpaceND" => {
            let (block, p) = (c.nums(e, 1)?, pairs(&c.nums(e, 2)?));
            e.batch_to_space_nd(c.t(0)?, &block, &p)?
        }
        "DepthToSpace" => {
            let format = a.string("data_format").unwrap_or_else(|| "nhwc".into()).to_uppercase();
            e.depth_to_space(c.t(0)?, a.number("block_size", 0.0), &format)?
        }
        _ => return not_here(op),
    }])
}
