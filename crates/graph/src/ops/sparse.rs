//! tfjs-converter's `sparse_executor.ts`: tf.sparse's ops (the core's `ops/sparse.rs`).

use super::{not_here, Ctx};
use tidytensor_core::{Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &["SparseFillEmptyRows", "SparseReshape", "SparseSegmentMean", "SparseSegmentSum"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    match op {
        "SparseSegmentSum" => Ok(vec![e.sparse_segment_reduction(c.t(0)?, c.t(1)?, c.t(2)?, false)?]),
        "SparseSegmentMean" => Ok(vec![e.sparse_segment_reduction(c.t(0)?, c.t(1)?, c.t(2)?, true)?]),
        "SparseReshape" => e.sparse_reshape(c.t(0)?, c.t(1)?, c.t(2)?),
        "SparseFillEmptyRows" => e.sparse_fill_empty_rows(c.t(0)?, c.t(1)?, c.t(2)?, c.t(3)?),
        _ => not_here(op),
    }
}
