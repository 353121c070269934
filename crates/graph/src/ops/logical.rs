//! tfjs-converter's `logical_executor.ts`: the ops of the core's elementwise tables (see
//! `basic_math.rs`), Select and BitwiseAnd.

use super::basic_math::{table_op, with_table, TABLE_LEN};
use super::Ctx;
use tidytensor_core::{Engine, Result, TensorId};

const OWN: &[&str] = &["Select", "SelectV2", "BitwiseAnd"];

pub(crate) const OPS: &[&str] = &with_table::<{ OWN.len() + TABLE_LEN }>(OWN);

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    match c.node.op.as_str() {
        "Select" | "SelectV2" => Ok(vec![e.select(c.t(0)?, c.t(1)?, c.t(2)?)?]),
        // (tfjs's executor reads inputs named a and b that its op list calls x and y, and
        // fails; this computes the op.)
        "BitwiseAnd" => Ok(vec![e.bitwise_and(c.t(0)?, c.t(1)?)?]),
        _ => table_op(e, c),
    }
}
