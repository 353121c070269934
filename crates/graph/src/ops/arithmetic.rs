//! tfjs-converter's `arithmetic_executor.ts`: the ops of the core's elementwise tables (see
//! `basic_math.rs`), BiasAdd and AddN.

use super::basic_math::{table_op, with_table, TABLE_LEN};
use super::Ctx;
use tidytensor_core::{BinaryOp, Engine, Result, TensorId};

const OWN: &[&str] = &["BiasAdd", "AddN"];

pub(crate) const OPS: &[&str] = &with_table::<{ OWN.len() + TABLE_LEN }>(OWN);

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    match c.node.op.as_str() {
        "AddN" => Ok(vec![e.add_n(&c.tensors(0, 0))?]),
        // BiasAdd's data_format is not read: the bias broadcasts over the last axis.
        "BiasAdd" => Ok(vec![e.binary(BinaryOp::Add, c.t(0)?, c.t(1)?)?]),
        _ => table_op(e, c),
    }
}
