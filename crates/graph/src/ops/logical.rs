//! tfjs-converter's `logical_executor.ts`.

use super::{not_here, Ctx};
use tidytensor_core::{BinaryOp, Engine, Result, TensorId, UnaryOp};

pub(crate) const OPS: &[&str] = &[
    "Equal",
    "NotEqual",
    "Greater",
    "GreaterEqual",
    "Less",
    "LessEqual",
    "LogicalAnd",
    "LogicalNot",
    "LogicalOr",
    "Select",
    "SelectV2",
    "BitwiseAnd",
];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let b = match op {
        "Equal" => BinaryOp::Equal,
        "NotEqual" => BinaryOp::NotEqual,
        "Greater" => BinaryOp::Greater,
        "GreaterEqual" => BinaryOp::GreaterEqual,
        "Less" => BinaryOp::Less,
        "LessEqual" => BinaryOp::LessEqual,
        "LogicalAnd" => BinaryOp::LogicalAnd,
        "LogicalOr" => BinaryOp::LogicalOr,
        "LogicalNot" => return Ok(vec![e.unary(UnaryOp::LogicalNot, c.t(0)?)?]),
        "Select" | "SelectV2" => return Ok(vec![e.select(c.t(0)?, c.t(1)?, c.t(2)?)?]),
        // (tfjs's executor reads inputs named a and b that its op list calls x and y, and
        // fails; this computes the op.)
        "BitwiseAnd" => return Ok(vec![e.bitwise_and(c.t(0)?, c.t(1)?)?]),
        _ => return not_here(op),
    };
    Ok(vec![e.binary(b, c.t(0)?, c.t(1)?)?])
}
