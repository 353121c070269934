//! tfjs-converter's `ragged_executor.ts` (the core's `ops/ragged.rs`). tfjs 4.22 does not load
//! this op list, so its executor reports these ops unknown; tidytensor runs them.

use super::{not_here, Ctx};
use tidytensor_core::{Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &["RaggedGather", "RaggedRange", "RaggedTensorToTensor"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    match op {
        // The splits are every input but the last two (the dense values and the indices).
        "RaggedGather" => e.ragged_gather(&c.tensors(0, -2), c.t(-2)?, c.t(-1)?),
        "RaggedRange" => e.ragged_range(c.t(0)?, c.t(1)?, c.t(2)?),
        "RaggedTensorToTensor" => {
            // (The attribute reader lower-cases strings, as tfjs does; the type names are
            // TensorFlow's upper-case ones.)
            let types: Vec<String> =
                c.attrs().strings("row_partition_types").unwrap_or_default().iter().map(|t| t.to_uppercase()).collect();
            Ok(vec![e.ragged_tensor_to_tensor(c.t(0)?, c.t(1)?, c.t(2)?, &c.tensors(3, 0), &types)?])
        }
        _ => not_here(op),
    }
}
