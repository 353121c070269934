//! tfjs-converter's `basic_math_executor.ts`.

use super::{not_here, Ctx};
use tidytensor_core::{BinaryOp, Engine, Result, TensorId, UnaryOp};

pub(crate) const OPS: &[&str] = &[
    "Abs",
    "ComplexAbs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atan2",
    "Atanh",
    "Ceil",
    "Complex",
    "Cos",
    "Cosh",
    "Elu",
    "Erf",
    "Exp",
    "Expm1",
    "Floor",
    "Log",
    "Log1p",
    "Imag",
    "Neg",
    "Reciprocal",
    "Real",
    "Relu",
    "Round",
    "Selu",
    "Sigmoid",
    "Sin",
    "Sign",
    "Sinh",
    "Softplus",
    "Sqrt",
    "Square",
    "Tanh",
    "Tan",
    "ClipByValue",
    "Relu6",
    "Rsqrt",
    "LeakyRelu",
    "Prelu",
    "IsNan",
    "IsInf",
    "IsFinite",
];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let u = match op {
        "Abs" | "ComplexAbs" => UnaryOp::Abs,
        "Acos" => UnaryOp::Acos,
        "Acosh" => UnaryOp::Acosh,
        "Asin" => UnaryOp::Asin,
        "Asinh" => UnaryOp::Asinh,
        "Atan" => UnaryOp::Atan,
        "Atanh" => UnaryOp::Atanh,
        "Ceil" => UnaryOp::Ceil,
        "Cos" => UnaryOp::Cos,
        "Cosh" => UnaryOp::Cosh,
        "Elu" => UnaryOp::Elu,
        "Erf" => UnaryOp::Erf,
        "Exp" => UnaryOp::Exp,
        "Expm1" => UnaryOp::Expm1,
        "Floor" => UnaryOp::Floor,
        "Log" => UnaryOp::Log,
        "Log1p" => UnaryOp::Log1p,
        "Neg" => UnaryOp::Neg,
        "Reciprocal" => UnaryOp::Reciprocal,
        "Relu" => UnaryOp::Relu,
        "Round" => UnaryOp::Round,
        "Selu" => UnaryOp::Selu,
        "Sigmoid" => UnaryOp::Sigmoid,
        "Sin" => UnaryOp::Sin,
        "Sign" => UnaryOp::Sign,
        "Sinh" => UnaryOp::Sinh,
        "Softplus" => UnaryOp::Softplus,
        "Sqrt" => UnaryOp::Sqrt,
        "Square" => UnaryOp::Square,
        "Tanh" => UnaryOp::Tanh,
        "Tan" => UnaryOp::Tan,
        "Relu6" => UnaryOp::Relu6,
        "Rsqrt" => UnaryOp::Rsqrt,
        "IsNan" => UnaryOp::IsNaN,
        "IsInf" => UnaryOp::IsInf,
        "IsFinite" => UnaryOp::IsFinite,
        "Atan2" => return Ok(vec![e.binary(BinaryOp::Atan2, c.t(0)?, c.t(1)?)?]),
        "Complex" => return Ok(vec![e.complex(c.t(0)?, c.t(1)?)?]),
        "Real" => return Ok(vec![e.complex_part(c.t(0)?, false)?]),
        "Imag" => return Ok(vec![e.complex_part(c.t(0)?, true)?]),
        "ClipByValue" => {
            let (lo, hi) = (c.num(e, 1)?, c.num(e, 2)?);
            return Ok(vec![e.clip_by_value(c.t(0)?, lo, hi)?]);
        }
        "LeakyRelu" => {
            let alpha = c.attrs().number("alpha", 0.2);
            return Ok(vec![e.leaky_relu(c.t(0)?, alpha)?]);
        }
        "Prelu" => return Ok(vec![e.binary(BinaryOp::Prelu, c.t(0)?, c.t(1)?)?]),
        _ => return not_here(op),
    };
    Ok(vec![e.unary(u, c.t(0)?)?])
}
