//! tfjs-converter's `evaluation_executor.ts`.

use super::{not_here, Ctx};
use tidytensor_core::{bail, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &["TopKV2", "LowerBound", "UpperBound", "Unique", "UniqueV2"];

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
        "LowerBound" => Ok(vec![e.search_sorted(c.t(0)?, c.t(1)?, false)?]),
        "UpperBound" => Ok(vec![e.search_sorted(c.t(0)?, c.t(1)?, true)?]),
        "Unique" => e.unique(c.t(0)?, 0),
        // The first value of the axis tensor (none: the default, 0).
        "UniqueV2" => {
            let axis = c.nums(e, 1)?.first().copied().unwrap_or(0.0);
            e.unique(c.t(0)?, axis as i64)
        }
        _ => not_here(op),
    }
}
