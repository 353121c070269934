//! `tf.losses`: each loss composed of ops as tfjs 4.22 composes it (the same values, checks and
//! texts), then reduced by `computeWeightedLoss`. (tfjs-layers' losses, which `compile` takes
//! by name, are the layers crate's.)

use crate::{bail, BinaryOp as B, DType, Engine, ReduceOp, Result, TensorId, UnaryOp as U};

/// tfjs's `Reduction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
    SumByNonzeroWeights,
}

impl Reduction {
    /// tfjs's enum value (`Reduction.NONE` is 0 ...).
    pub fn from_number(v: f64) -> Result<Reduction> {
        Ok(match v {
            0.0 => Reduction::None,
            1.0 => Reduction::Mean,
            2.0 => Reduction::Sum,
            3.0 => Reduction::SumByNonzeroWeights,
            _ => bail!("Unknown reduction: {}", crate::js::number(v)),
        })
    }
}

/// The losses of (labels, predictions) pairs.
#[derive(Clone, Debug, PartialEq)]
pub enum PairLoss {
    AbsoluteDifference,
    MeanSquaredError,
    Hinge,
    Huber { delta: f64 },
    Log { epsilon: f64 },
    CosineDistance { axes: Option<Vec<i64>> },
}

impl PairLoss {
    fn name(&self) -> &'static str {
        match self {
            PairLoss::AbsoluteDifference => "absoluteDifference",
            PairLoss::MeanSquaredError => "meanSquaredError",
            PairLoss::Hinge => "hingeLoss",
            PairLoss::Huber { .. } => "huberLoss",
            PairLoss::Log { .. } => "logLoss",
            PairLoss::CosineDistance { .. } => "cosineDistance",
        }
    }
}

fn shapes_match(e: &Engine, a: TensorId, b: TensorId, name: &str) -> Result<()> {
    let (sa, sb) = (e.shape(a)?, e.shape(b)?);
    if sa != sb {
        bail!("Error in {name}:  Shapes {} and {} must match", crate::shape::fmt(sa), crate::shape::fmt(sb));
    }
    Ok(())
}

impl Engine {
    /// `tf.losses.computeWeightedLoss`.
    pub fn compute_weighted_loss(
        &mut self,
        losses: TensorId,
        weights: Option<TensorId>,
        reduction: Reduction,
    ) -> Result<TensorId> {
        self.composed(|e| {
            let weighted = match weights {
                Some(w) => e.mul(losses, w)?,
                None => losses,
            };
            let sum = |e: &mut Engine, t: TensorId| e.reduce(ReduceOp::Sum, t, None, false);
            match reduction {
                Reduction::None => {
                    if weighted == losses {
                        e.clone_tensor(losses)
                    } else {
                        Ok(weighted)
                    }
                }
                Reduction::Sum => sum(e, weighted),
                Reduction::Mean => match weights {
                    None => e.reduce(ReduceOp::Mean, weighted, None, false),
                    Some(w) => {
                        let factor =
                            crate::shape::size(e.shape(losses)?) as f64 / crate::shape::size(e.shape(w)?) as f64;
                        let (s, sw) = (sum(e, weighted)?, sum(e, w)?);
                        let result = e.div(s, sw)?;
                        if factor > 1.0 {
                            let f = e.scalar(factor)?;
                            e.div(result, f)
                        } else {
                            Ok(result)
                        }
                    }
                },
                Reduction::SumByNonzeroWeights => {
                    let s = sum(e, weighted)?;
                    match weights {
                        None => {
                            let n = e.scalar(crate::shape::size(e.shape(losses)?) as f64)?;
                            e.div(s, n)
                        }
                        Some(w) => {
                            let ls = e.shape(losses)?.to_vec();
                            let ones = e.fill(&ls, 1.0, DType::Float32)?;
                            let broadcast = e.mul(w, ones)?;
                            let zero = e.scalar(0.0)?;
                            let nz = e.binary(B::NotEqual, broadcast, zero)?;
                            let nz = e.reduce(ReduceOp::Sum, nz, None, false)?;
                            let nz = e.cast(nz, DType::Float32)?;
                            e.div(s, nz)
                        }
                    }
                }
            }
        })
    }

    /// `tf.losses.absoluteDifference`, `meanSquaredError`, `hingeLoss`, `huberLoss`, `logLoss`,
    /// `cosineDistance`: the loss of each pair, then [`Engine::compute_weighted_loss`].
    pub fn pair_loss(
        &mut self,
        loss: &PairLoss,
        labels: TensorId,
        predictions: TensorId,
        weights: Option<TensorId>,
        reduction: Reduction,
    ) -> Result<TensorId> {
        shapes_match(self, labels, predictions, loss.name())?;
        self.composed(|e| {
            let (l, p) = (labels, predictions);
            let losses = match loss {
                PairLoss::AbsoluteDifference => {
                    let d = e.sub(l, p)?;
                    e.unary(U::Abs, d)?
                }
                PairLoss::MeanSquaredError => e.binary(B::SquaredDifference, l, p)?,
                PairLoss::Hinge => {
                    // relu(1 - (2 l - 1) p)
                    let (one, two) = (e.scalar(1.0)?, e.scalar(2.0)?);
                    let t = e.mul(two, l)?;
                    let t = e.sub(t, one)?;
                    let t = e.mul(t, p)?;
                    let t = e.sub(one, t)?;
                    e.unary(U::Relu, t)?
                }
                PairLoss::Huber { delta } => {
                    let d = e.scalar(*delta)?;
                    let error = e.sub(p, l)?;
                    let error = e.unary(U::Abs, error)?;
                    let quadratic = e.binary(B::Minimum, error, d)?;
                    let linear = e.sub(error, quadratic)?;
                    let half = e.scalar(0.5)?;
                    let q2 = e.unary(U::Square, quadratic)?;
                    let a = e.mul(half, q2)?;
                    let b = e.mul(d, linear)?;
                    e.add(a, b)?
                }
                PairLoss::Log { epsilon } => {
                    // -(l log(p + eps)) - (1 - l) log(1 - p + eps)
                    let (one, eps) = (e.scalar(1.0)?, e.scalar(*epsilon)?);
                    let pe = e.add(p, eps)?;
                    let lg = e.unary(U::Log, pe)?;
                    let l1 = e.mul(l, lg)?;
                    let l1 = e.neg(l1)?;
                    let ol = e.sub(one, l)?;
                    let op = e.sub(one, p)?;
                    let ope = e.add(op, eps)?;
                    let lg2 = e.unary(U::Log, ope)?;
                    let l2 = e.mul(ol, lg2)?;
                    e.sub(l1, l2)?
                }
                PairLoss::CosineDistance { axes } => {
                    let one = e.scalar(1.0)?;
                    let lp = e.mul(l, p)?;
                    let s = e.reduce(ReduceOp::Sum, lp, axes.as_deref(), true)?;
                    e.sub(one, s)?
                }
            };
            e.compute_weighted_loss(losses, weights, reduction)
        })
    }

    /// `tf.losses.sigmoidCrossEntropy`: max(z, 0) - z y + log(1 + e^-|z|), labels smoothed
    /// toward 1/2 by `label_smoothing`.
    pub fn sigmoid_cross_entropy(
        &mut self,
        labels: TensorId,
        logits: TensorId,
        weights: Option<TensorId>,
        label_smoothing: f64,
        reduction: Reduction,
    ) -> Result<TensorId> {
        shapes_match(self, labels, logits, "sigmoidCrossEntropy")?;
        self.composed(|e| {
            let mut y = labels;
            if label_smoothing > 0.0 {
                let (s, one, half) = (e.scalar(label_smoothing)?, e.scalar(1.0)?, e.scalar(0.5)?);
                let keep = e.sub(one, s)?;
                let a = e.mul(y, keep)?;
                let b = e.mul(half, s)?;
                y = e.add(a, b)?;
            }
            let z = logits;
            let r = e.unary(U::Relu, z)?;
            let zy = e.mul(z, y)?;
            let a = e.sub(r, zy)?;
            let abs = e.unary(U::Abs, z)?;
            let neg = e.neg(abs)?;
            let ex = e.unary(U::Exp, neg)?;
            let lg = e.unary(U::Log1p, ex)?;
            let losses = e.add(a, lg)?;
            e.compute_weighted_loss(losses, weights, reduction)
        })
    }

    /// `tf.losses.softmaxCrossEntropy`: -sum(y log softmax(z)) over the last axis, labels
    /// smoothed toward 1/classes by `label_smoothing`.
    pub fn softmax_cross_entropy(
        &mut self,
        labels: TensorId,
        logits: TensorId,
        weights: Option<TensorId>,
        label_smoothing: f64,
        reduction: Reduction,
    ) -> Result<TensorId> {
        shapes_match(self, labels, logits, "softmaxCrossEntropy")?;
        self.composed(|e| {
            let mut y = labels;
            if label_smoothing > 0.0 {
                let classes = e.shape(y)?.get(1).copied().unwrap_or(1) as f64;
                let (s, one, n) = (e.scalar(label_smoothing)?, e.scalar(1.0)?, e.scalar(classes)?);
                let keep = e.sub(one, s)?;
                let a = e.mul(y, keep)?;
                let b = e.div(s, n)?;
                y = e.add(a, b)?;
            }
            let dim = e.shape(logits)?.len() as i64 - 1;
            let zf = e.cast(logits, DType::Float32)?;
            let lse = e.log_sum_exp(logits, Some(&[dim]), true)?;
            let log_result = e.sub(zf, lse)?;
            let prod = e.mul(log_result, y)?;
            let neg = e.neg(prod)?;
            let losses = e.reduce(ReduceOp::Sum, neg, Some(&[dim]), false)?;
            e.compute_weighted_loss(losses, weights, reduction)
        })
    }
}
