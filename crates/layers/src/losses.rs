//! Training losses by tfjs-layers' names (`compile({loss: 'categoricalCrossentropy'})`). Each
//! gives one value per sample (the mean or sum over the last axis), computed as tfjs-layers
//! computes it; the model averages them over the batch.

use crate::ops::Ops;
use tidytensor_core::{bail, shape, BinaryOp, DType, Engine, ReduceOp, Result, TensorId, UnaryOp};

/// tfjs-layers' `epsilon()` on float32 backends.
pub const EPSILON: f64 = 1e-7;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loss {
    MeanSquaredError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError,
    SquaredHinge,
    Hinge,
    CategoricalHinge,
    Logcosh,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    BinaryCrossentropy,
    KullbackLeiblerDivergence,
    Poisson,
    CosineProximity,
}

impl Loss {
    pub const ALL: [Loss; 14] = [
        Loss::MeanSquaredError,
        Loss::MeanAbsoluteError,
        Loss::MeanAbsolutePercentageError,
        Loss::MeanSquaredLogarithmicError,
        Loss::SquaredHinge,
        Loss::Hinge,
        Loss::CategoricalHinge,
        Loss::Logcosh,
        Loss::CategoricalCrossentropy,
        Loss::SparseCategoricalCrossentropy,
        Loss::BinaryCrossentropy,
        Loss::KullbackLeiblerDivergence,
        Loss::Poisson,
        Loss::CosineProximity,
    ];

    pub fn name(self) -> &'static str {
        use Loss::*;
        match self {
            MeanSquaredError => "meanSquaredError",
            MeanAbsoluteError => "meanAbsoluteError",
            MeanAbsolutePercentageError => "meanAbsolutePercentageError",
            MeanSquaredLogarithmicError => "meanSquaredLogarithmicError",
            SquaredHinge => "squaredHinge",
            Hinge => "hinge",
            CategoricalHinge => "categoricalHinge",
            Logcosh => "logcosh",
            CategoricalCrossentropy => "categoricalCrossentropy",
            SparseCategoricalCrossentropy => "sparseCategoricalCrossentropy",
            BinaryCrossentropy => "binaryCrossentropy",
            KullbackLeiblerDivergence => "kullbackLeiblerDivergence",
            Poisson => "poisson",
            CosineProximity => "cosineProximity",
        }
    }

    /// tfjs-layers' `losses.get(name)`, with its error texts.
    pub fn named(name: &str) -> Result<Loss> {
        if let Some(l) = Loss::ALL.iter().find(|l| l.name() == name) {
            return Ok(*l);
        }
        if name.to_lowercase().contains("softmaxcrossentropy") {
            bail!("Unknown loss {name}. Use \"categoricalCrossentropy\" as the string name for tf.losses.softmaxCrossEntropy");
        }
        bail!("Unknown loss {name}")
    }

    /// The loss of each sample.
    pub fn compute(self, e: &mut Engine, y_true: TensorId, y_pred: TensorId) -> Result<TensorId> {
        use Loss::*;
        let mean_last = |e: &mut Engine, x: TensorId| e.reduce(ReduceOp::Mean, x, Some(&[-1]), false);
        match self {
            MeanSquaredError => {
                let d = e.sub(y_pred, y_true)?;
                let s = e.unary(UnaryOp::Square, d)?;
                mean_last(e, s)
            }
            MeanAbsoluteError => {
                let d = e.sub(y_pred, y_true)?;
                let a = e.unary(UnaryOp::Abs, d)?;
                mean_last(e, a)
            }
            MeanAbsolutePercentageError => {
                let diff = e.sub(y_true, y_pred)?;
                let a = e.unary(UnaryOp::Abs, y_true)?;
                let clipped = e.clip_by_value(a, EPSILON, f64::MAX)?;
                let q = e.div(diff, clipped)?;
                let r = e.unary(UnaryOp::Abs, q)?;
                let m = mean_last(e, r)?;
                e.mul_s(m, 100.0)
            }
            MeanSquaredLogarithmicError => {
                let p = e.clip_by_value(y_pred, EPSILON, f64::MAX)?;
                let p = e.add_s(p, 1.0)?;
                let first = e.unary(UnaryOp::Log, p)?;
                let t = e.clip_by_value(y_true, EPSILON, f64::MAX)?;
                let t = e.add_s(t, 1.0)?;
                let second = e.unary(UnaryOp::Log, t)?;
                let d = e.sub(first, second)?;
                let s = e.unary(UnaryOp::Square, d)?;
                mean_last(e, s)
            }
            SquaredHinge | Hinge => {
                let m = e.mul(y_true, y_pred)?;
                let r = e.rsub_s(1.0, m)?;
                let mut h = e.binary_s(BinaryOp::Maximum, r, 0.0)?;
                if self == SquaredHinge {
                    h = e.unary(UnaryOp::Square, h)?;
                }
                mean_last(e, h)
            }
            CategoricalHinge => {
                let tp = e.mul(y_true, y_pred)?;
                let pos = e.reduce(ReduceOp::Sum, tp, Some(&[-1]), false)?;
                let inv = e.rsub_s(1.0, y_true)?;
                let np = e.mul(inv, y_pred)?;
                let neg = e.reduce(ReduceOp::Max, np, Some(&[-1]), false)?;
                let d = e.sub(neg, pos)?;
                let d = e.add_s(d, 1.0)?;
                e.binary_s(BinaryOp::Maximum, d, 0.0)
            }
            Logcosh => {
                let d = e.sub(y_pred, y_true)?;
                let m = e.mul_s(d, -2.0)?;
                let sp = e.unary(UnaryOp::Softplus, m)?;
                let a = e.add(d, sp)?;
                let r = e.binary_s(BinaryOp::Sub, a, std::f64::consts::LN_2)?;
                mean_last(e, r)
            }
            CategoricalCrossentropy => categorical_crossentropy(e, y_true, y_pred, false),
            SparseCategoricalCrossentropy => {
                let out_shape = e.shape(y_pred)?.to_vec();
                let flat = e.reshape(y_true, &[-1])?;
                let fl = e.unary(UnaryOp::Floor, flat)?;
                let idx = e.cast(fl, DType::Int32)?;
                let clipped = e.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)?;
                let classes = *out_shape.last().unwrap_or(&1);
                let oh = e.one_hot(idx, classes as f64, 1.0, 0.0, DType::Int32)?;
                let oh = e.reshape(oh, &crate::layer::dims(&out_shape))?;
                categorical_crossentropy(e, oh, clipped, false)
            }
            BinaryCrossentropy => {
                let y = e.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)?;
                let inv = e.rsub_s(1.0, y)?;
                let q = e.div(y, inv)?;
                let logits = e.unary(UnaryOp::Log, q)?;
                let l = sigmoid_cross_entropy_with_logits(e, y_true, logits)?;
                mean_last(e, l)
            }
            KullbackLeiblerDivergence => {
                let t = e.clip_by_value(y_true, EPSILON, 1.0)?;
                let p = e.clip_by_value(y_pred, EPSILON, 1.0)?;
                let q = e.div(t, p)?;
                let l = e.unary(UnaryOp::Log, q)?;
                let m = e.mul(y_true, l)?;
                e.reduce(ReduceOp::Sum, m, Some(&[-1]), false)
            }
            Poisson => {
                let p = e.add_s(y_pred, EPSILON)?;
                let lp = e.unary(UnaryOp::Log, p)?;
                let m = e.mul(y_true, lp)?;
                let d = e.sub(y_pred, m)?;
                mean_last(e, d)
            }
            CosineProximity => {
                let t = l2_normalize(e, y_true)?;
                let p = l2_normalize(e, y_pred)?;
                let m = e.mul(t, p)?;
                let s = e.reduce(ReduceOp::Sum, m, Some(&[-1]), false)?;
                e.neg(s)
            }
        }
    }
}

/// `-sum(target * log(p))` over the last axis, `p` the output rescaled to sum to 1 (or the
/// softmax of logits) and clipped to `[eps, 1 - eps]`.
pub fn categorical_crossentropy(
    e: &mut Engine,
    target: TensorId,
    output: TensorId,
    from_logits: bool,
) -> Result<TensorId> {
    let p = if from_logits {
        e.softmax(output, -1)?
    } else {
        let s = e.reduce(ReduceOp::Sum, output, Some(&[-1]), true)?;
        e.div(output, s)?
    };
    let p = e.clip_by_value(p, EPSILON, 1.0 - EPSILON)?;
    let t = e.cast(target, DType::Float32)?;
    let l = e.unary(UnaryOp::Log, p)?;
    let m = e.mul(t, l)?;
    let s = e.reduce(ReduceOp::Sum, m, Some(&[-1]), false)?;
    e.neg(s)
}

/// `max(x, 0) - x * z + log(1 + exp(-|x|))`.
pub fn sigmoid_cross_entropy_with_logits(e: &mut Engine, labels: TensorId, logits: TensorId) -> Result<TensorId> {
    let (ls, gs) = (e.shape(labels)?.to_vec(), e.shape(logits)?.to_vec());
    if ls != gs {
        bail!(
            "logits and labels must have the same shape, but got shapes [{}] and [{}]",
            shape::fmt(&ls),
            shape::fmt(&gs)
        );
    }
    let r = e.unary(UnaryOp::Relu, logits)?;
    let a = e.unary(UnaryOp::Abs, logits)?;
    let na = e.neg(a)?;
    let ex = e.unary(UnaryOp::Exp, na)?;
    let lp = e.unary(UnaryOp::Log1p, ex)?;
    let xz = e.mul(logits, labels)?;
    let d = e.sub(r, xz)?;
    e.add(d, lp)
}

/// `x / sqrt(max(sum(x², -1), eps))`.
pub fn l2_normalize(e: &mut Engine, x: TensorId) -> Result<TensorId> {
    let x = e.cast(x, DType::Float32)?;
    let sq = e.unary(UnaryOp::Square, x)?;
    let s = e.reduce(ReduceOp::Sum, sq, Some(&[-1]), true)?;
    let m = e.binary_s(BinaryOp::Maximum, s, EPSILON)?;
    let n = e.unary(UnaryOp::Sqrt, m)?;
    e.div(x, n)
}
