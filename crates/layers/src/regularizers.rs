//! Weight regularizers (`tf.regularizers`: l1, l2, l1l2) and constraints (`tf.constraints`:
//! maxNorm, unitNorm, nonNeg, minMaxNorm), with tfjs's defaults and arithmetic.

use crate::config::{class_and_config, Cfg};
use crate::ops::Ops;
use serde_json::{json, Value};
use tidytensor_core::{bail, Engine, ReduceOp, Result, TensorId, UnaryOp};

/// `l1 * sum(|x|) + l2 * sum(x²)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Regularizer {
    pub l1: f64,
    pub l2: f64,
}

impl Regularizer {
    /// `'l1'`, `'l2'`, `'l1l2'` or `{className: 'L1L2', config: {l1, l2}}`.
    pub fn parse(v: &Value) -> Result<Regularizer> {
        let (class, config) = class_and_config(v)?;
        let c = Cfg::of(&config)?;
        Ok(match class.as_str() {
            "l1" | "L1" => Regularizer { l1: c.f64_or("l1", 0.01)?, l2: 0.0 },
            "l2" | "L2" => Regularizer { l1: 0.0, l2: c.f64_or("l2", 0.01)? },
            "l1l2" | "L1L2" | "l1_l2" => Regularizer { l1: c.f64_or("l1", 0.01)?, l2: c.f64_or("l2", 0.01)? },
            _ => bail!("Unknown regularizer: {class}"),
        })
    }

    pub fn from_cfg(c: Cfg, key: &str) -> Result<Option<Regularizer>> {
        c.get(key).map(Regularizer::parse).transpose()
    }

    pub fn to_json(&self) -> Value {
        json!({"className": "L1L2", "config": {"l1": self.l1, "l2": self.l2}})
    }

    /// The penalty of `x` (a scalar), in tfjs's order: `sum(l1 * |x|) + sum(l2 * x²)`.
    pub fn penalty(&self, e: &mut Engine, x: TensorId) -> Result<TensorId> {
        let mut total = e.fill(&[1], 0.0, tidytensor_core::DType::Float32)?;
        for (factor, op) in [(self.l1, UnaryOp::Abs), (self.l2, UnaryOp::Square)] {
            if factor != 0.0 {
                let a = e.unary(op, x)?;
                let p = e.mul_s(a, factor)?;
                let s = e.reduce(ReduceOp::Sum, p, None, false)?;
                total = e.add(total, s)?;
            }
        }
        e.reshape(total, &[])
    }
}

/// A weight constraint, applied when weights are set.
#[derive(Clone, Debug, PartialEq)]
pub enum Constraint {
    MaxNorm { max: f64, axis: i64 },
    UnitNorm { axis: i64 },
    NonNeg,
    MinMaxNorm { min: f64, max: f64, rate: f64, axis: i64 },
}

impl Constraint {
    pub fn parse(v: &Value) -> Result<Constraint> {
        let (class, config) = class_and_config(v)?;
        let c = Cfg::of(&config)?;
        let axis = c.f64_or("axis", 0.0)? as i64;
        Ok(match class.as_str() {
            "maxNorm" | "MaxNorm" | "max_norm" => Constraint::MaxNorm { max: c.f64_or("maxValue", 2.0)?, axis },
            "unitNorm" | "UnitNorm" | "unit_norm" => Constraint::UnitNorm { axis },
            "nonNeg" | "NonNeg" | "non_neg" => Constraint::NonNeg,
            "minMaxNorm" | "MinMaxNorm" | "min_max_norm" => Constraint::MinMaxNorm {
                min: c.f64_or("minValue", 0.0)?,
                max: c.f64_or("maxValue", 1.0)?,
                rate: c.f64_or("rate", 1.0)?,
                axis,
            },
            _ => bail!("Unknown constraint: {class}"),
        })
    }

    pub fn from_cfg(c: Cfg, key: &str) -> Result<Option<Constraint>> {
        c.get(key).map(Constraint::parse).transpose()
    }

    pub fn to_json(&self) -> Value {
        match self {
            Constraint::MaxNorm { max, axis } => {
                json!({"className": "MaxNorm", "config": {"maxValue": max, "axis": axis}})
            }
            Constraint::UnitNorm { axis } => json!({"className": "UnitNorm", "config": {"axis": axis}}),
            Constraint::NonNeg => json!({"className": "NonNeg", "config": {}}),
            Constraint::MinMaxNorm { min, max, rate, axis } => {
                json!({"className": "MinMaxNorm", "config": {"minValue": min, "maxValue": max, "rate": rate, "axis": axis}})
            }
        }
    }

    /// The constrained value of `w` (tfjs's formulas, epsilon 1e-7).
    pub fn apply(&self, e: &mut Engine, w: TensorId) -> Result<TensorId> {
        const EPS: f64 = 1e-7;
        let norms = |e: &mut Engine, axis: i64| -> Result<TensorId> {
            let sq = e.unary(UnaryOp::Square, w)?;
            let s = e.reduce(ReduceOp::Sum, sq, Some(&[axis]), true)?;
            e.unary(UnaryOp::Sqrt, s)
        };
        match *self {
            // tfjs's relu(w) (a negative value becomes 0, not -0).
            Constraint::NonNeg => e.unary(UnaryOp::Relu, w),
            Constraint::MaxNorm { max, axis } => {
                let n = norms(e, axis)?;
                let desired = e.clip_by_value(n, 0.0, max)?;
                let d = e.add_s(n, EPS)?;
                let f = e.div(desired, d)?;
                e.mul(w, f)
            }
            Constraint::UnitNorm { axis } => {
                let n = norms(e, axis)?;
                let d = e.add_s(n, EPS)?;
                e.div(w, d)
            }
            Constraint::MinMaxNorm { min, max, rate, axis } => {
                let n = norms(e, axis)?;
                let c = e.clip_by_value(n, min, max)?;
                let a = e.mul_s(c, rate)?;
                let b = e.mul_s(n, 1.0 - rate)?;
                let desired = e.add(a, b)?;
                let d = e.add_s(n, EPS)?;
                let f = e.div(desired, d)?;
                e.mul(w, f)
            }
        }
    }
}
