//! Elementwise ops. The unary and binary op tables live in the core; JavaScript reads them
//! through [`elementwise_ops`] and calls every op through [`unary`] and [`binary`] with its
//! index, so a new op needs no line here.

use crate::{id, make, parse_dtype};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::{BinaryOp, BinaryRule, DtypeRule, UnaryOp};

#[napi(object)]
pub struct UnaryOpInfo {
    pub name: String,
    /// How JavaScript converts a non-tensor argument: 'float32', 'bool' or 'numeric'.
    pub parse_as: String,
}

#[napi(object)]
pub struct BinaryOpInfo {
    pub name: String,
    pub a: String,
    pub b: String,
    /// How JavaScript converts non-tensor arguments: 'bool', 'string_or_numeric' or 'numeric'.
    pub parse_as: String,
}

#[napi(object)]
pub struct ElementwiseOps {
    pub unary: Vec<UnaryOpInfo>,
    pub binary: Vec<BinaryOpInfo>,
}

/// The core's op tables; the index of an op is its code in [`unary`] / [`binary`].
#[napi]
pub fn elementwise_ops() -> ElementwiseOps {
    let unary = UnaryOp::ALL
        .iter()
        .map(|op| UnaryOpInfo {
            name: op.js_name().into(),
            parse_as: match op.dtype_rule() {
                DtypeRule::Float => "float32",
                DtypeRule::Bool => "bool",
                _ => "numeric",
            }
            .into(),
        })
        .collect();
    let binary = BinaryOp::ALL
        .iter()
        .map(|op| {
            let (a, b) = op.arg_names();
            let parse_as = match op.rule() {
                BinaryRule::Logical => "bool",
                // tfjs compares strings too.
                BinaryRule::Compare => "string_or_numeric",
                _ => "numeric",
            }
            .into();
            BinaryOpInfo { name: op.js_name().into(), a: a.into(), b: b.into(), parse_as }
        })
        .collect();
    ElementwiseOps { unary, binary }
}

fn op_at<T: Copy>(all: &[T], code: u32) -> tidytensor_core::Result<T> {
    all.get(code as usize).copied().ok_or_else(|| tidytensor_core::Error::new(format!("unknown op code {code}")))
}

#[napi]
pub fn unary(op: u32, x: f64) -> Result<f64> {
    make(|e| e.unary(op_at(UnaryOp::ALL, op)?, id(x)))
}

/// `tf.where`.
/// `tf.clipByValue` (the bounds as numbers, after lib/ops/elementwise.js's checks).
#[napi]
pub fn clip_by_value(x: f64, lo: f64, hi: f64) -> Result<f64> {
    make(|e| e.clip_by_value(id(x), lo, hi))
}

#[napi]
pub fn leaky_relu(x: f64, alpha: f64) -> Result<f64> {
    make(|e| e.leaky_relu(id(x), alpha))
}

#[napi]
pub fn step(x: f64, alpha: f64) -> Result<f64> {
    make(|e| e.step(id(x), alpha))
}

#[napi]
pub fn log_sigmoid(x: f64) -> Result<f64> {
    make(|e| e.log_sigmoid(id(x)))
}

/// `tf.movingAverage` (`step` only when zero-debiased).
#[napi]
pub fn moving_average(v: f64, x: f64, decay: f64, step: Option<f64>, zero_debias: bool) -> Result<f64> {
    make(|e| e.moving_average(id(v), id(x), id(decay), step.map(id), zero_debias))
}

#[napi]
pub fn add_n(xs: Vec<f64>) -> Result<f64> {
    make(|e| e.add_n(&xs.iter().map(|&x| id(x)).collect::<Vec<_>>()))
}

/// `tf.batchNorm` (after lib/ops/elementwise.js's conversions): one `FusedBatchNorm` kernel
/// where it applies, else the ops tfjs composes.
#[napi]
pub fn batch_norm(x: f64, mean: f64, variance: f64, offset: Option<f64>, scale: Option<f64>, eps: f64) -> Result<f64> {
    make(|e| e.batch_norm(id(x), id(mean), id(variance), offset.map(id), scale.map(id), eps))
}

#[napi]
pub fn select(condition: f64, a: f64, b: f64) -> Result<f64> {
    make(|e| e.select(id(condition), id(a), id(b)))
}

#[napi]
pub fn binary(op: u32, a: f64, b: f64) -> Result<f64> {
    make(|e| e.binary(op_at(BinaryOp::ALL, op)?, id(a), id(b)))
}

#[napi]
pub fn cast(x: f64, dtype: String) -> Result<f64> {
    make(|e| e.cast(id(x), parse_dtype(&dtype)?))
}

#[napi]
pub fn bitwise_and(x: f64, y: f64) -> Result<f64> {
    make(|e| e.bitwise_and(id(x), id(y)))
}
