use super::{cast_if, pad_rank, require_dtype, view_of};
use crate::backend::{BinaryOp, UnaryOp};
use crate::{shape, DType, Engine, Result, TensorId};

impl UnaryOp {
    /// The tfjs op name, used in error messages.
    pub fn op_name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Square => "square",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Abs => "abs",
            UnaryOp::Relu => "relu",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Tanh => "tanh",
        }
    }
}

impl Engine {
    /// Elementwise unary op. sqrt/log/sigmoid/tanh need float32 (as in tfjs), exp turns any
    /// dtype into float32, the others keep the input dtype.
    pub fn unary(&mut self, op: UnaryOp, x: TensorId) -> Result<TensorId> {
        let x = self.input(x)?;
        let out = match op {
            UnaryOp::Sqrt | UnaryOp::Log | UnaryOp::Sigmoid | UnaryOp::Tanh => {
                require_dtype(op.op_name(), "x", DType::Float32, x.dtype)?;
                DType::Float32
            }
            UnaryOp::Exp => DType::Float32,
            UnaryOp::Neg | UnaryOp::Square | UnaryOp::Abs | UnaryOp::Relu => x.dtype,
        };
        let storage = self.backend()?.unary(op, x.view(), out)?;
        self.output(storage, x.shape.clone(), out)
    }

    /// Elementwise binary op with broadcasting. Inputs are upcast to a common dtype
    /// (tfjs `makeTypesMatch`); `div` of int32 is floor division; maximum/minimum of bool give int32.
    pub fn binary(&mut self, op: BinaryOp, a: TensorId, b: TensorId) -> Result<TensorId> {
        let a = self.input(a)?;
        let b = self.input(b)?;
        let out_shape = shape::broadcast(&a.shape, &b.shape)?;
        let dtype = DType::upcast(a.dtype, b.dtype);
        let (op, out) = match (op, dtype) {
            (BinaryOp::Div, DType::Int32) => (BinaryOp::FloorDiv, DType::Int32),
            (BinaryOp::Maximum | BinaryOp::Minimum, DType::Bool) => (op, DType::Int32),
            _ => (op, dtype),
        };
        self.check_size(&out_shape, out)?;
        let backend = self.backend()?;
        let (ca, cb) = (cast_if(&*backend, &a, dtype)?, cast_if(&*backend, &b, dtype)?);
        let rank = out_shape.len();
        let (sa, sb) = (pad_rank(&a.shape, rank), pad_rank(&b.shape, rank));
        let storage =
            backend.binary(op, view_of(&a, &ca, &sa, dtype), view_of(&b, &cb, &sb, dtype), &out_shape, out)?;
        self.output(storage, out_shape, out)
    }
}
