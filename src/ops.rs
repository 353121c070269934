//! Ops: one exported function per tfjs op, each a thin call into the engine's front-end.

use crate::{id, make, parse_dtype};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::{ArgOp, BinaryOp, ReduceOp, UnaryOp};

macro_rules! unary {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[napi]
        pub fn $name(x: f64) -> Result<f64> {
            make(|e| e.unary(UnaryOp::$op, id(x)))
        }
    )*};
}
unary!(neg => Neg, square => Square, sqrt => Sqrt, exp => Exp, log => Log, abs => Abs,
       relu => Relu, sigmoid => Sigmoid, tanh => Tanh);

macro_rules! binary {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[napi]
        pub fn $name(a: f64, b: f64) -> Result<f64> {
            make(|e| e.binary(BinaryOp::$op, id(a), id(b)))
        }
    )*};
}
binary!(add => Add, sub => Sub, mul => Mul, div => Div, maximum => Maximum, minimum => Minimum, pow => Pow);

macro_rules! reduce {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[napi]
        pub fn $name(x: f64, axes: Option<Vec<i64>>, keep_dims: bool) -> Result<f64> {
            make(|e| e.reduce(ReduceOp::$op, id(x), axes.as_deref(), keep_dims))
        }
    )*};
}
reduce!(sum => Sum, mean => Mean, max => Max, min => Min);

#[napi]
pub fn arg_max(x: f64, axis: i64) -> Result<f64> {
    make(|e| e.arg_reduce(ArgOp::ArgMax, id(x), axis))
}

#[napi]
pub fn arg_min(x: f64, axis: i64) -> Result<f64> {
    make(|e| e.arg_reduce(ArgOp::ArgMin, id(x), axis))
}

#[napi]
pub fn softmax(logits: f64, dim: i64) -> Result<f64> {
    make(|e| e.softmax(id(logits), dim))
}

#[napi]
pub fn mat_mul(a: f64, b: f64, transpose_a: bool, transpose_b: bool) -> Result<f64> {
    make(|e| e.matmul(id(a), id(b), transpose_a, transpose_b))
}

#[napi]
pub fn clone(x: f64) -> Result<f64> {
    make(|e| e.clone_tensor(id(x)))
}

#[napi]
pub fn cast(x: f64, dtype: String) -> Result<f64> {
    make(|e| e.cast(id(x), parse_dtype(&dtype)?))
}

#[napi]
pub fn reshape(x: f64, shape: Vec<i64>) -> Result<f64> {
    make(|e| e.reshape(id(x), &shape))
}

#[napi]
pub fn expand_dims(x: f64, axis: i64) -> Result<f64> {
    make(|e| e.expand_dims(id(x), axis))
}

#[napi]
pub fn squeeze(x: f64, axes: Option<Vec<i64>>) -> Result<f64> {
    make(|e| e.squeeze(id(x), axes.as_deref()))
}

#[napi]
pub fn transpose(x: f64, perm: Option<Vec<i64>>) -> Result<f64> {
    make(|e| e.transpose(id(x), perm.as_deref()))
}

#[napi]
pub fn concat(xs: Vec<f64>, axis: i64) -> Result<f64> {
    let ids: Vec<_> = xs.into_iter().map(id).collect();
    make(|e| e.concat(&ids, axis))
}

#[napi]
pub fn stack(xs: Vec<f64>, axis: i64) -> Result<f64> {
    let ids: Vec<_> = xs.into_iter().map(id).collect();
    make(|e| e.stack(&ids, axis))
}

#[napi]
pub fn slice(x: f64, begin: Vec<i64>, size: Vec<i64>) -> Result<f64> {
    make(|e| e.slice(id(x), &begin, &size))
}

#[napi]
pub fn gather(x: f64, indices: f64, axis: i64, batch_dims: i64) -> Result<f64> {
    make(|e| e.gather(id(x), id(indices), axis, batch_dims))
}
