//! Training metrics by tfjs-layers' names, and how `compile({metrics})` resolves them:
//! `'accuracy'` becomes binary, sparse or categorical accuracy after the loss and the output
//! shape, and is logged as `acc`.

use crate::losses::Loss;
use tidytensor_core::{bail, BinaryOp, DType, Engine, ReduceOp, Result, TensorId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    Precision,
    Recall,
    /// tf.metrics.r2Score: 1 - (residual sum of squares) / (total sum of squares), one value.
    R2Score,
    /// A loss used as a metric (`'mse'`, `'categoricalCrossentropy'`, ...).
    Loss(Loss),
}

impl Metric {
    /// The metric for the name given to `compile` and the name it is logged under, as
    /// tfjs's `handleMetrics` resolves them for an output of `last_dim` values trained with
    /// `loss` (`None`: a JavaScript loss function, which tfjs treats as neither binary nor
    /// sparse).
    pub fn resolve(name: &str, loss: Option<Loss>, last_dim: Option<usize>) -> Result<(Metric, String)> {
        let binary = last_dim == Some(1) || loss == Some(Loss::BinaryCrossentropy);
        let sparse = loss == Some(Loss::SparseCategoricalCrossentropy);
        Ok(match name {
            "accuracy" | "acc" => {
                let m = if binary {
                    Metric::BinaryAccuracy
                } else if sparse {
                    Metric::SparseCategoricalAccuracy
                } else {
                    Metric::CategoricalAccuracy
                };
                (m, "acc".into())
            }
            "crossentropy" | "ce" => {
                let l = if binary {
                    Loss::BinaryCrossentropy
                } else if sparse {
                    Loss::SparseCategoricalCrossentropy
                } else {
                    Loss::CategoricalCrossentropy
                };
                (Metric::Loss(l), "ce".into())
            }
            _ => (Metric::named(name)?, name.to_string()),
        })
    }

    /// tfjs-layers' `metrics.get(name)` (its `metricsMap`, plus the names `tf.metrics` gives
    /// the functions that map leaves out, so passing those functions works too).
    pub fn named(name: &str) -> Result<Metric> {
        Ok(match name {
            "binaryAccuracy" => Metric::BinaryAccuracy,
            "categoricalAccuracy" => Metric::CategoricalAccuracy,
            "sparseCategoricalAccuracy" => Metric::SparseCategoricalAccuracy,
            "precision" => Metric::Precision,
            "recall" => Metric::Recall,
            "r2Score" => Metric::R2Score,
            "categoricalCrossentropy" => Metric::Loss(Loss::CategoricalCrossentropy),
            "sparseCategoricalCrossentropy" => Metric::Loss(Loss::SparseCategoricalCrossentropy),
            "binaryCrossentropy" => Metric::Loss(Loss::BinaryCrossentropy),
            "mse" | "MSE" | "meanSquaredError" => Metric::Loss(Loss::MeanSquaredError),
            "mae" | "MAE" | "meanAbsoluteError" => Metric::Loss(Loss::MeanAbsoluteError),
            "mape" | "MAPE" | "meanAbsolutePercentageError" => Metric::Loss(Loss::MeanAbsolutePercentageError),
            "cosine" | "cosineProximity" => Metric::Loss(Loss::CosineProximity),
            _ => bail!("Unknown metric {name}"),
        })
    }

    /// The name [`Metric::named`] knows this metric by.
    pub fn name(self) -> &'static str {
        match self {
            Metric::BinaryAccuracy => "binaryAccuracy",
            Metric::CategoricalAccuracy => "categoricalAccuracy",
            Metric::SparseCategoricalAccuracy => "sparseCategoricalAccuracy",
            Metric::Precision => "precision",
            Metric::Recall => "recall",
            Metric::R2Score => "r2Score",
            Metric::Loss(l) => l.name(),
        }
    }

    /// The metric's values (per sample, or one value for precision and recall); the model
    /// takes their mean.
    pub fn compute(self, e: &mut Engine, y_true: TensorId, y_pred: TensorId) -> Result<TensorId> {
        match self {
            Metric::Loss(l) => l.compute(e, y_true, y_pred),
            Metric::BinaryAccuracy => {
                let half = e.scalar(0.5)?;
                let g = e.binary(BinaryOp::Greater, y_pred, half)?;
                let t = e.dtype(y_true)?;
                let g = e.cast(g, t)?;
                let eq = e.binary(BinaryOp::Equal, y_true, g)?;
                e.reduce(ReduceOp::Mean, eq, Some(&[-1]), false)
            }
            Metric::CategoricalAccuracy => {
                let a = e.arg_reduce(tidytensor_core::ArgOp::ArgMax, y_true, -1)?;
                let b = e.arg_reduce(tidytensor_core::ArgOp::ArgMax, y_pred, -1)?;
                let eq = e.binary(BinaryOp::Equal, a, b)?;
                e.cast(eq, DType::Float32)
            }
            Metric::SparseCategoricalAccuracy => {
                let (rt, rp) = (e.shape(y_true)?.len(), e.shape(y_pred)?.len());
                sparse_categorical_accuracy(e, y_true, y_pred, rt == rp)
            }
            Metric::R2Score => {
                let d = e.sub(y_true, y_pred)?;
                let d = e.unary(tidytensor_core::UnaryOp::Square, d)?;
                let residuals = e.reduce(ReduceOp::Sum, d, None, false)?;
                let m = e.reduce(ReduceOp::Mean, y_true, None, false)?;
                let c = e.sub(y_true, m)?;
                let c = e.unary(tidytensor_core::UnaryOp::Square, c)?;
                let total = e.reduce(ReduceOp::Sum, c, None, false)?;
                let q = e.div(residuals, total)?;
                let one = e.scalar(1.0)?;
                e.sub(one, q)
            }
            Metric::Precision | Metric::Recall => {
                let count = |e: &mut Engine, t: f64, p: f64| -> Result<TensorId> {
                    let (st, sp) = (e.scalar(t)?, e.scalar(p)?);
                    let a = e.binary(BinaryOp::Equal, y_true, st)?;
                    let b = e.binary(BinaryOp::Equal, y_pred, sp)?;
                    let both = e.binary(BinaryOp::LogicalAnd, a, b)?;
                    let s = e.reduce(ReduceOp::Sum, both, None, false)?;
                    e.cast(s, DType::Float32)
                };
                let tp = count(e, 1.0, 1.0)?;
                let other = if self == Metric::Precision { count(e, 0.0, 1.0)? } else { count(e, 1.0, 0.0)? };
                let den = e.add(tp, other)?;
                let zero = e.scalar(0.0)?;
                let pos = e.binary(BinaryOp::Greater, den, zero)?;
                let q = e.div(tp, den)?;
                e.select(pos, q, zero)
            }
        }
    }
}

/// tfjs's sparseCategoricalAccuracy: the labels' last axis squeezed when `squeeze` (tfjs
/// squeezes when the labels and predictions have the same rank, which a TensorLike prediction
/// has not), compared with the predictions' argMax.
pub fn sparse_categorical_accuracy(
    e: &mut Engine,
    y_true: TensorId,
    y_pred: TensorId,
    squeeze: bool,
) -> Result<TensorId> {
    let rt = e.shape(y_true)?.len();
    let t = if squeeze { e.squeeze(y_true, Some(&[rt as i64 - 1]))? } else { y_true };
    let p = e.arg_reduce(tidytensor_core::ArgOp::ArgMax, y_pred, -1)?;
    let td = e.dtype(t)?;
    let p = if td != DType::Int32 { e.cast(p, td)? } else { p };
    let eq = e.binary(BinaryOp::Equal, t, p)?;
    e.cast(eq, DType::Float32)
}
