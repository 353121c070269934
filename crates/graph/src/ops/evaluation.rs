//! tfjs-converter's `evaluation_executor.ts`.

use super::{not_here, Ctx};
use tidytensor_core::{bail, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &["TopKV2"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    match op {
        // Always sorted: an unsorted result may come in any order, and sorted is one.
        "TopKV2" => {
            let k = c.num(e, 1)?;
            if k.fract() != 0.0 || !k.is_finite() {
                bail!("'k' passed to topk() must be an integer but got {}", super::js_list(&[k]));
            }
            e.topk(c.t(0)?, k as i64)
        }
        _ => not_here(op),
    }
}
