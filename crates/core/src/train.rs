//! Optimizers (tfjs's `tf.train.*`), usable from Rust: each holds its state in non-trainable
//! variables, one set per position of the gradient list (tfjs keys state by position), made
//! on first use and disposed with the optimizer. An update is written in ops, so it runs on
//! every backend, inside a scope: nothing but the new variable values remains.
//!
//! The rules and their state, as tfjs names them (`<variable>/<suffix>`):
//! - `Sgd`: none. `value -= lr * g`.
//! - `Momentum`: `momentum`.
//! - `Adagrad`: `accumulator` (starts at `initial_accumulator`).
//! - `Adadelta`: `accum_grad`, `accum_var`.
//! - `Adam`: `m`, `v`, and two trainable scalars for beta1^t and beta2^t (as tfjs makes them).
//! - `Adamax`: `m`, `v`, and scalars for the iteration and beta1^t.
//! - `RmsProp`: `rms`, `momentum`, and `mg` when centered.

use crate::{bail, BinaryOp, DType, Engine, Result, TensorId, UnaryOp};

/// tfjs's `backend.epsilon()` for float32 backends: the default epsilon of the rules.
pub const EPSILON: f64 = 1e-7;

#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    Sgd,
    Momentum { momentum: f64, nesterov: bool },
    Adagrad { initial_accumulator: f64 },
    Adadelta { rho: f64, epsilon: f64 },
    Adam { beta1: f64, beta2: f64, epsilon: f64 },
    Adamax { beta1: f64, beta2: f64, epsilon: f64, decay: f64 },
    RmsProp { decay: f64, momentum: f64, epsilon: f64, centered: bool },
}

impl Rule {
    /// The state each variable gets: its name suffix and starting value.
    fn slots(&self) -> Vec<(&'static str, f64)> {
        match self {
            Rule::Sgd => vec![],
            Rule::Momentum { .. } => vec![("momentum", 0.0)],
            Rule::Adagrad { initial_accumulator } => vec![("accumulator", *initial_accumulator)],
            Rule::Adadelta { .. } => vec![("accum_grad", 0.0), ("accum_var", 0.0)],
            Rule::Adam { .. } | Rule::Adamax { .. } => vec![("m", 0.0), ("v", 0.0)],
            Rule::RmsProp { centered, .. } => {
                let mut s = vec![("rms", 0.0), ("momentum", 0.0)];
                if *centered {
                    s.push(("mg", 0.0));
                }
                s
            }
        }
    }
}

/// One variable's state.
struct Slot {
    /// `<variable>/<suffix>`, the name `getWeights` reports.
    names: Vec<String>,
    vars: Vec<TensorId>,
}

pub struct Optimizer {
    pub rule: Rule,
    pub learning_rate: f64,
    /// Steps taken (`optimizer.iterations`).
    pub iterations: u64,
    slots: Vec<Option<Slot>>,
    /// Adam: beta1^t, beta2^t; Adamax: the iteration, beta1^t; Momentum: the momentum.
    globals: Vec<TensorId>,
}

impl Optimizer {
    pub fn new(e: &mut Engine, rule: Rule, learning_rate: f64) -> Result<Optimizer> {
        let globals = match &rule {
            Rule::Adam { beta1, beta2, .. } => vec![scalar_variable(e, *beta1, true)?, scalar_variable(e, *beta2, true)?],
            Rule::Adamax { beta1, .. } => vec![scalar_variable(e, 0.0, true)?, scalar_variable(e, *beta1, true)?],
            // tfjs's momentum optimizer holds its momentum as a tensor.
            Rule::Momentum { momentum, .. } => {
                let m = e.scalar(*momentum)?;
                e.keep(m);
                vec![m]
            }
            _ => vec![],
        };
        Ok(Optimizer { rule, learning_rate, iterations: 0, slots: Vec::new(), globals })
    }

    /// Updates each named variable with its gradient (`None`: skipped, its state still made),
    /// as tfjs's `applyGradients`.
    pub fn apply_gradients(&mut self, e: &mut Engine, grads: &[(String, Option<TensorId>)]) -> Result<()> {
        let mut vars = Vec::with_capacity(grads.len());
        for (name, _) in grads {
            match e.variable_named(name) {
                Some(v) => vars.push(v),
                None => bail!("Cannot find variable {name} (optimizer.applyGradients)"),
            }
        }
        if self.slots.len() < grads.len() {
            self.slots.resize_with(grads.len(), || None);
        }
        for (i, (name, _)) in grads.iter().enumerate() {
            if self.slots[i].is_none() {
                let mut slot = Slot { names: Vec::new(), vars: Vec::new() };
                for (suffix, init) in self.rule.slots() {
                    let shape = e.shape(vars[i])?.to_vec();
                    let v = e.tidy(|e| {
                        let t = e.fill(&shape, init, DType::Float32)?;
                        Ok(vec![e.variable(t, false, None, None)?])
                    })?[0];
                    slot.names.push(format!("{name}/{suffix}"));
                    slot.vars.push(v);
                }
                self.slots[i] = Some(slot);
            }
        }
        let (rule, lr, globals) = (self.rule.clone(), self.learning_rate, self.globals.clone());
        let slots: Vec<Vec<TensorId>> = self.slots.iter().map(|s| s.as_ref().map(|s| s.vars.clone()).unwrap_or_default()).collect();
        e.tidy(|e| {
            for (i, (_, grad)) in grads.iter().enumerate() {
                let Some(g) = *grad else { continue };
                step(e, &rule, lr, &globals, vars[i], g, &slots[i])?;
            }
            match rule {
                Rule::Adam { beta1, beta2, .. } => {
                    scale_assign(e, globals[0], beta1)?;
                    scale_assign(e, globals[1], beta2)?;
                }
                Rule::Adamax { beta1, .. } => {
                    let one = e.scalar(1.0)?;
                    let next = e.add(globals[0], one)?;
                    e.assign(globals[0], next)?;
                    scale_assign(e, globals[1], beta1)?;
                }
                _ => {}
            }
            Ok(vec![])
        })?;
        self.iterations += 1;
        Ok(())
    }

    /// The state variables in tfjs's `getWeights` order (after its `iter`): each kind of state
    /// for every variable, kind after kind.
    pub fn weights(&self) -> Vec<(String, TensorId)> {
        let kinds = self.rule.slots().len();
        let mut out = Vec::new();
        for k in 0..kinds {
            for slot in self.slots.iter().flatten() {
                out.push((slot.names[k].clone(), slot.vars[k]));
            }
        }
        out
    }

    /// tfjs's `setWeights` after its `iter`: the state is replaced by variables made from
    /// `weights` (kind after kind, as [`Optimizer::weights`] lists them).
    pub fn set_weights(&mut self, e: &mut Engine, iterations: u64, weights: &[(String, TensorId)]) -> Result<()> {
        let kinds = self.rule.slots().len();
        if kinds == 0 {
            if !weights.is_empty() {
                bail!("SGD optimizer does not have settable weights.");
            }
            self.iterations = iterations;
            return Ok(());
        }
        let n = weights.len() / kinds;
        let mut made = Vec::with_capacity(weights.len());
        for (_, t) in weights {
            made.push(e.variable(*t, false, None, None)?);
        }
        self.dispose_slots(e);
        self.slots = (0..n)
            .map(|i| {
                Some(Slot {
                    names: (0..kinds).map(|k| weights[k * n + i].0.clone()).collect(),
                    vars: (0..kinds).map(|k| made[k * n + i]).collect(),
                })
            })
            .collect();
        self.iterations = iterations;
        if let Rule::Adam { beta1, beta2, .. } = self.rule {
            for (g, beta) in [(self.globals[0], beta1), (self.globals[1], beta2)] {
                let t = e.scalar(beta.powf(iterations as f64 + 1.0))?;
                e.assign(g, t)?;
                e.dispose(t);
            }
        }
        Ok(())
    }

    /// Frees the optimizer's variables.
    pub fn dispose(&mut self, e: &mut Engine) {
        self.dispose_slots(e);
        for g in self.globals.drain(..) {
            e.dispose(g);
        }
    }

    fn dispose_slots(&mut self, e: &mut Engine) {
        for slot in self.slots.drain(..).flatten() {
            for v in slot.vars {
                e.dispose(v);
            }
        }
    }
}

fn scalar_variable(e: &mut Engine, v: f64, trainable: bool) -> Result<TensorId> {
    Ok(e.tidy(|e| {
        let t = e.scalar(v)?;
        Ok(vec![e.variable(t, trainable, None, None)?])
    })?[0])
}

/// `v = v * s`.
fn scale_assign(e: &mut Engine, v: TensorId, s: f64) -> Result<()> {
    let s = e.scalar(s)?;
    let next = e.mul(v, s)?;
    e.assign(v, next)
}

/// `a * s` for a number `s`.
fn times(e: &mut Engine, a: TensorId, s: f64) -> Result<TensorId> {
    let s = e.scalar(s)?;
    e.mul(a, s)
}

/// `a + s` for a number `s`.
fn plus(e: &mut Engine, a: TensorId, s: f64) -> Result<TensorId> {
    let s = e.scalar(s)?;
    e.add(a, s)
}

/// One variable's update, tfjs's formulas in its order of operations (run inside a scope).
fn step(e: &mut Engine, rule: &Rule, lr: f64, globals: &[TensorId], value: TensorId, g: TensorId, s: &[TensorId]) -> Result<()> {
    let g = e.cast(g, DType::Float32)?;
    let new_value = match *rule {
        Rule::Sgd => {
            let d = times(e, g, -lr)?;
            e.add(d, value)?
        }
        Rule::Momentum { nesterov, .. } => {
            let m = globals[0];
            let acc = e.mul(m, s[0])?;
            let acc = e.add(acc, g)?;
            let d = if nesterov {
                let t = e.mul(acc, m)?;
                let t = e.add(g, t)?;
                times(e, t, -lr)?
            } else {
                times(e, acc, -lr)?
            };
            e.assign(s[0], acc)?;
            e.add(d, value)?
        }
        Rule::Adagrad { .. } => {
            let g2 = e.unary(UnaryOp::Square, g)?;
            let acc = e.add(s[0], g2)?;
            e.assign(s[0], acc)?;
            let d = plus(e, acc, EPSILON)?;
            let d = e.unary(UnaryOp::Sqrt, d)?;
            let d = e.div(g, d)?;
            let d = times(e, d, -lr)?;
            e.add(d, value)?
        }
        Rule::Adadelta { rho, epsilon } => {
            let (acc_grad, acc_update) = (s[0], s[1]);
            let a = times(e, acc_grad, rho)?;
            let g2 = e.unary(UnaryOp::Square, g)?;
            let b = times(e, g2, 1.0 - rho)?;
            let new_acc_grad = e.add(a, b)?;
            // tfjs divides by the accumulated gradient before this step's update.
            let num = plus(e, acc_update, epsilon)?;
            let num = e.unary(UnaryOp::Sqrt, num)?;
            let den = plus(e, acc_grad, epsilon)?;
            let den = e.unary(UnaryOp::Sqrt, den)?;
            let q = e.div(num, den)?;
            let updates = e.mul(q, g)?;
            let a = times(e, acc_update, rho)?;
            let u2 = e.unary(UnaryOp::Square, updates)?;
            let b = times(e, u2, 1.0 - rho)?;
            let new_acc_update = e.add(a, b)?;
            e.assign(acc_grad, new_acc_grad)?;
            e.assign(acc_update, new_acc_update)?;
            let d = times(e, updates, -lr)?;
            e.add(d, value)?
        }
        Rule::Adam { beta1, beta2, epsilon } => {
            let one = e.scalar(1.0)?;
            let one_minus_b1t = e.sub(one, globals[0])?;
            let one_minus_b2t = e.sub(one, globals[1])?;
            let a = times(e, s[0], beta1)?;
            let b = times(e, g, 1.0 - beta1)?;
            let m = e.add(a, b)?;
            let a = times(e, s[1], beta2)?;
            let g2 = e.unary(UnaryOp::Square, g)?;
            let b = times(e, g2, 1.0 - beta2)?;
            let v = e.add(a, b)?;
            let m_hat = e.div(m, one_minus_b1t)?;
            let v_hat = e.div(v, one_minus_b2t)?;
            e.assign(s[0], m)?;
            e.assign(s[1], v)?;
            let den = e.unary(UnaryOp::Sqrt, v_hat)?;
            let den = plus(e, den, epsilon)?;
            let q = e.div(m_hat, den)?;
            let d = times(e, q, -lr)?;
            e.add(d, value)?
        }
        Rule::Adamax { beta1, beta2, epsilon, decay } => {
            let one = e.scalar(1.0)?;
            let one_minus_b1t = e.sub(one, globals[1])?;
            // lr_t = -lr / (iteration * decay + 1)
            let t = times(e, globals[0], decay)?;
            let t = plus(e, t, 1.0)?;
            let neg_lr = e.scalar(-lr)?;
            let lr_t = e.div(neg_lr, t)?;
            let a = times(e, s[0], beta1)?;
            let b = times(e, g, 1.0 - beta1)?;
            let m = e.add(a, b)?;
            let ut0 = times(e, s[1], beta2)?;
            let ut1 = e.unary(UnaryOp::Abs, g)?;
            let u = e.binary(BinaryOp::Maximum, ut0, ut1)?;
            e.assign(s[0], m)?;
            e.assign(s[1], u)?;
            let c = e.div(lr_t, one_minus_b1t)?;
            let den = plus(e, u, epsilon)?;
            let q = e.div(m, den)?;
            let d = e.mul(c, q)?;
            e.add(d, value)?
        }
        Rule::RmsProp { decay, momentum, epsilon, centered } => {
            let a = times(e, s[0], decay)?;
            let g2 = e.unary(UnaryOp::Square, g)?;
            let b = times(e, g2, 1.0 - decay)?;
            let ms = e.add(a, b)?;
            let scaled = times(e, g, lr)?;
            let den = if centered {
                let a = times(e, s[2], decay)?;
                let b = times(e, g, 1.0 - decay)?;
                let mg = e.add(a, b)?;
                e.assign(s[2], mg)?;
                let mg2 = e.unary(UnaryOp::Square, mg)?;
                let t = plus(e, mg2, epsilon)?;
                let t = e.sub(ms, t)?;
                e.unary(UnaryOp::Sqrt, t)?
            } else {
                let t = plus(e, ms, epsilon)?;
                e.unary(UnaryOp::Sqrt, t)?
            };
            let contribution = e.div(scaled, den)?;
            let a = times(e, s[1], momentum)?;
            let mom = e.add(a, contribution)?;
            e.assign(s[0], ms)?;
            e.assign(s[1], mom)?;
            e.sub(value, mom)?
        }
    };
    e.assign(value, new_value)
}
