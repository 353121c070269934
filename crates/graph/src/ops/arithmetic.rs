//! tfjs-converter's `arithmetic_executor.ts`.

use super::{not_here, Ctx};
use tidytensor_core::{BinaryOp, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "BiasAdd",
    "AddV2",
    "Add",
    "AddN",
    "FloorMod",
    "Mod",
    "Mul",
    "RealDiv",
    "Div",
    "DivNoNan",
    "FloorDiv",
    "Sub",
    "Minimum",
    "Maximum",
    "Pow",
    "SquaredDifference",
];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    if op == "AddN" {
        return Ok(vec![e.add_n(&c.tensors(0, 0))?]);
    }
    let b = match op {
        // BiasAdd's data_format is not read: the bias broadcasts over the last axis.
        "BiasAdd" | "AddV2" | "Add" => BinaryOp::Add,
        "FloorMod" | "Mod" => BinaryOp::Mod,
        "Mul" => BinaryOp::Mul,
        "RealDiv" | "Div" => BinaryOp::Div,
        "DivNoNan" => BinaryOp::DivNoNan,
        "FloorDiv" => BinaryOp::FloorDiv,
        "Sub" => BinaryOp::Sub,
        "Minimum" => BinaryOp::Minimum,
        "Maximum" => BinaryOp::Maximum,
        "Pow" => BinaryOp::Pow,
        "SquaredDifference" => BinaryOp::SquaredDifference,
        _ => return not_here(op),
    };
    Ok(vec![e.binary(b, c.t(0)?, c.t(1)?)?])
}
