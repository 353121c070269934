//! Shorthands for composing ops with numbers (`x * 0.2`), which layers do all the time.

use tidytensor_core::{BinaryOp, Engine, Result, TensorId};

pub trait Ops {
    fn binary_s(&mut self, op: BinaryOp, x: TensorId, v: f64) -> Result<TensorId>;
    fn mul_s(&mut self, x: TensorId, v: f64) -> Result<TensorId> {
        self.binary_s(BinaryOp::Mul, x, v)
    }
    fn add_s(&mut self, x: TensorId, v: f64) -> Result<TensorId> {
        self.binary_s(BinaryOp::Add, x, v)
    }
    /// `v - x`.
    fn rsub_s(&mut self, v: f64, x: TensorId) -> Result<TensorId>;
}

impl Ops for Engine {
    fn binary_s(&mut self, op: BinaryOp, x: TensorId, v: f64) -> Result<TensorId> {
        let s = self.scalar(v)?;
        self.binary(op, x, s)
    }
    fn rsub_s(&mut self, v: f64, x: TensorId) -> Result<TensorId> {
        let s = self.scalar(v)?;
        self.sub(s, x)
    }
}
