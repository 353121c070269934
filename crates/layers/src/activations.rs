//! Layer activations by tfjs's names (`'relu'`, `'hardSigmoid'`; Keras's `'hard_sigmoid'`
//! too), computed as tfjs-layers computes each.

use crate::ops::Ops;
use serde_json::Value;
use tidytensor_core::{bail, BinaryOp, Engine, Result, TensorId, UnaryOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Linear,
    Elu,
    Selu,
    Relu,
    Relu6,
    Sigmoid,
    HardSigmoid,
    Softplus,
    Softsign,
    Tanh,
    Softmax,
    LogSoftmax,
    Swish,
    Mish,
    Gelu,
    GeluNew,
}

impl Activation {
    /// From a name or a `{className}` object; `null` is linear.
    pub fn parse(v: Option<&Value>) -> Result<Activation> {
        let name = match v {
            None | Some(Value::Null) => return Ok(Activation::Linear),
            Some(Value::String(s)) => s.as_str(),
            Some(Value::Object(m)) => {
                m.get("className").or_else(|| m.get("class_name")).and_then(Value::as_str).unwrap_or("")
            }
            Some(other) => bail!("Unknown activation: {other}"),
        };
        Activation::named(name)
    }

    pub fn named(name: &str) -> Result<Activation> {
        use Activation::*;
        Ok(match name {
            "linear" => Linear,
            "elu" => Elu,
            "selu" => Selu,
            "relu" => Relu,
            "relu6" => Relu6,
            "sigmoid" => Sigmoid,
            "hardSigmoid" | "hard_sigmoid" => HardSigmoid,
            "softplus" => Softplus,
            "softsign" => Softsign,
            "tanh" => Tanh,
            "softmax" => Softmax,
            "logSoftmax" | "log_softmax" => LogSoftmax,
            "swish" => Swish,
            "mish" => Mish,
            "gelu" => Gelu,
            "gelu_new" => GeluNew,
            _ => bail!("Unknown activation: {name}. This may be due to one of the following reasons:\n1. The activation is defined in Python, in which case it needs to be ported to TensorFlow.js or your JavaScript code.\n2. The custom activation is defined in JavaScript, but is not registered properly with tf.serialization.registerClass()."),
        })
    }

    /// tfjs's name (what `getConfig` reports).
    pub fn name(self) -> &'static str {
        use Activation::*;
        match self {
            Linear => "linear",
            Elu => "elu",
            Selu => "selu",
            Relu => "relu",
            Relu6 => "relu6",
            Sigmoid => "sigmoid",
            HardSigmoid => "hardSigmoid",
            Softplus => "softplus",
            Softsign => "softsign",
            Tanh => "tanh",
            Softmax => "softmax",
            LogSoftmax => "logSoftmax",
            Swish => "swish",
            Mish => "mish",
            Gelu => "gelu",
            GeluNew => "gelu_new",
        }
    }

    /// The activation of `x` (a new tensor; `x` itself for linear, cloned so that the caller
    /// may dispose it either way).
    pub fn apply(self, e: &mut Engine, x: TensorId) -> Result<TensorId> {
        use Activation::*;
        match self {
            Linear => e.clone_tensor(x),
            Elu => e.unary(UnaryOp::Elu, x),
            Selu => e.unary(UnaryOp::Selu, x),
            Relu => e.unary(UnaryOp::Relu, x),
            Relu6 => {
                let r = e.unary(UnaryOp::Relu, x)?;
                e.binary_s(BinaryOp::Minimum, r, 6.0)
            }
            Sigmoid => e.unary(UnaryOp::Sigmoid, x),
            HardSigmoid => {
                let y = e.mul_s(x, 0.2)?;
                let y = e.add_s(y, 0.5)?;
                e.clip_by_value(y, 0.0, 1.0)
            }
            Softplus => e.unary(UnaryOp::Softplus, x),
            Softsign => {
                let a = e.unary(UnaryOp::Abs, x)?;
                let d = e.add_s(a, 1.0)?;
                e.div(x, d)
            }
            Tanh => e.unary(UnaryOp::Tanh, x),
            Softmax => e.softmax(x, -1),
            LogSoftmax => e.log_softmax(x, -1.0),
            Swish => {
                let s = e.unary(UnaryOp::Sigmoid, x)?;
                e.mul(s, x)
            }
            Mish => {
                let s = e.unary(UnaryOp::Softplus, x)?;
                let t = e.unary(UnaryOp::Tanh, s)?;
                e.mul(x, t)
            }
            Gelu => {
                let d = e.mul_s(x, 1.0 / std::f64::consts::SQRT_2)?;
                let f = e.unary(UnaryOp::Erf, d)?;
                let f = e.add_s(f, 1.0)?;
                let cdf = e.mul_s(f, 0.5)?;
                e.mul(x, cdf)
            }
            GeluNew => {
                let cube = e.binary_s(BinaryOp::Pow, x, 3.0)?;
                let c = e.mul_s(cube, 0.044715)?;
                let s = e.add(x, c)?;
                let s = e.mul_s(s, (2.0 / std::f64::consts::PI).sqrt())?;
                let t = e.unary(UnaryOp::Tanh, s)?;
                let t = e.add_s(t, 1.0)?;
                let y = e.mul(x, t)?;
                e.mul_s(y, 0.5)
            }
        }
    }
}
