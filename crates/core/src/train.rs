//! Optimizers (tfjs's `tf.train.*`), usable from Rust: each holds its state in non-trainable
//! variables, one set per position of the gradient list (tfjs keys state by position), made
//! on first use and disposed with the optimizer. A variable's update is one fused kernel on
//! each backend (`Backend::optimizer_step`: the new value and state in one pass, with tfjs's
//! order of float32 operations), inside a scope: nothing but the new values remains.
//!
//! The rules and their state, as tfjs names them (`<variable>/<suffix>`):
//! - `Sgd`: none. `value -= lr * g`.
//! - `Momentum`: `momentum`.
//! - `Adagrad`: `accumulator` (starts at `initial_accumulator`).
//! - `Adadelta`: `accum_grad`, `accum_var`.
//! - `Adam`: `m`, `v`, and two trainable scalars for beta1^t and beta2^t (as tfjs makes them).
//! - `Adamax`: `m`, `v`, and scalars for the iteration and beta1^t.
//! - `RmsProp`: `rms`, `momentum`, and `mg` when centered.

use crate::{bail, kernels as k, DType, Engine, Result, StepKind, StepRule, TensorId};

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
    /// Adam: beta1^t, beta2^t; Adamax: the iteration, beta1^t; Momentum: the momentum. tfjs
    /// keeps these as tensors; so does this, and the update reads the copies below instead
    /// (a read of a GPU scalar would wait for the GPU).
    globals: Vec<TensorId>,
    /// The values of `globals` (Adam, Adamax), computed in float32 as tfjs's tensors are.
    global_values: [f32; 2],
}

impl Optimizer {
    pub fn new(e: &mut Engine, rule: Rule, learning_rate: f64) -> Result<Optimizer> {
        let globals = match &rule {
            Rule::Adam { beta1, beta2, .. } => {
                vec![scalar_variable(e, *beta1, true)?, scalar_variable(e, *beta2, true)?]
            }
            Rule::Adamax { beta1, .. } => vec![scalar_variable(e, 0.0, true)?, scalar_variable(e, *beta1, true)?],
            // tfjs's momentum optimizer holds its momentum as a tensor.
            Rule::Momentum { momentum, .. } => {
                let m = e.scalar(*momentum)?;
                e.keep(m);
                vec![m]
            }
            _ => vec![],
        };
        let global_values = match rule {
            Rule::Adam { beta1, beta2, .. } => [beta1 as f32, beta2 as f32],
            Rule::Adamax { beta1, .. } => [0.0, beta1 as f32],
            _ => [0.0; 2],
        };
        Ok(Optimizer { rule, learning_rate, iterations: 0, slots: Vec::new(), globals, global_values })
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
        let (rule, globals) = (self.rule.clone(), self.globals.clone());
        let step = self.step_rule();
        let slots: Vec<Vec<TensorId>> =
            self.slots.iter().map(|s| s.as_ref().map(|s| s.vars.clone()).unwrap_or_default()).collect();
        e.tidy(|e| {
            for (i, (_, grad)) in grads.iter().enumerate() {
                let Some(g) = *grad else { continue };
                update(e, &step, vars[i], g, &slots[i])?;
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
        match self.rule {
            Rule::Adam { beta1, beta2, .. } => {
                self.global_values = [self.global_values[0] * beta1 as f32, self.global_values[1] * beta2 as f32];
            }
            Rule::Adamax { beta1, .. } => {
                self.global_values = [self.global_values[0] + 1.0, self.global_values[1] * beta1 as f32];
            }
            _ => {}
        }
        self.iterations += 1;
        Ok(())
    }

    /// This step's kernel rule: the hyperparameters and the accumulated scalars, in float32.
    fn step_rule(&self) -> StepRule {
        let f = |v: f64| v as f32;
        let lr = self.learning_rate;
        let [g0, g1] = self.global_values;
        let (kind, scalars): (StepKind, Vec<f32>) = match self.rule {
            Rule::Sgd => (StepKind::Sgd, vec![f(-lr)]),
            Rule::Momentum { momentum, nesterov } => (StepKind::Momentum { nesterov }, vec![f(-lr), f(momentum)]),
            Rule::Adagrad { .. } => (StepKind::Adagrad, vec![f(-lr), f(EPSILON)]),
            Rule::Adadelta { rho, epsilon } => (StepKind::Adadelta, vec![f(-lr), f(rho), f(1.0 - rho), f(epsilon)]),
            Rule::Adam { beta1, beta2, epsilon } => (
                StepKind::Adam,
                vec![f(-lr), f(beta1), f(1.0 - beta1), f(beta2), f(1.0 - beta2), f(epsilon), 1.0 - g0, 1.0 - g1],
            ),
            Rule::Adamax { beta1, beta2, epsilon, decay } => {
                // tfjs: -lr / (iteration * decay + 1), in float32 tensors.
                let lr_t = f(-lr) / (g0 * f(decay) + 1.0);
                (StepKind::Adamax, vec![lr_t, f(beta1), f(1.0 - beta1), f(beta2), f(epsilon), 1.0 - g1])
            }
            Rule::RmsProp { decay, momentum, epsilon, centered } => {
                (StepKind::RmsProp { centered }, vec![f(lr), f(decay), f(1.0 - decay), f(momentum), f(epsilon)])
            }
        };
        let mut s = [0f32; 8];
        s[..scalars.len()].copy_from_slice(&scalars);
        StepRule { kind, scalars: s }
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
            for (k, (g, beta)) in [(self.globals[0], beta1), (self.globals[1], beta2)].into_iter().enumerate() {
                let power = beta.powf(iterations as f64 + 1.0);
                self.global_values[k] = power as f32;
                let t = e.scalar(power)?;
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

/// One variable's update: the backend's fused kernel makes the new value and state in one
/// pass, which replace the old ones (run inside a scope).
fn update(e: &mut Engine, rule: &StepRule, value: TensorId, g: TensorId, state: &[TensorId]) -> Result<()> {
    let g = e.cast(g, DType::Float32)?;
    if e.shape(g)? != e.shape(value)? {
        bail!(
            "optimizer: the gradient has shape [{}] but its variable [{}]",
            crate::shape::fmt(e.shape(g)?),
            crate::shape::fmt(e.shape(value)?)
        );
    }
    if e.dtype(value)? != DType::Float32 {
        bail!("optimizer: variables must be float32, but got {}", e.dtype(value)?.name());
    }
    // State given to `set_weights` may be any tensor: the kernel reads each value by index.
    for &s in state {
        if e.shape(s)? != e.shape(value)? || e.dtype(s)? != DType::Float32 {
            bail!(
                "optimizer: a state tensor ({} [{}]) does not match its variable (float32 [{}])",
                e.dtype(s)?.name(),
                crate::shape::fmt(e.shape(s)?),
                crate::shape::fmt(e.shape(value)?)
            );
        }
    }
    let inputs: Vec<TensorId> = [value, g].iter().chain(state).copied().collect();
    let shape = e.shape(value)?.to_vec();
    let outputs: Vec<TensorId> = e.run_kernel(k::OPTIMIZER_STEP, &inputs, |e, backend, ins| {
        let views: Vec<crate::View> = ins.iter().map(|i| i.view()).collect();
        let storages = if shape.iter().product::<usize>() == 0 {
            return (0..ins.len() - 1).map(|_| e.filled(&shape, 0.0, DType::Float32)).collect();
        } else {
            backend.optimizer_step(rule, views[0], views[1], &views[2..])?
        };
        storages.into_iter().map(|s| e.output(s, shape.clone(), DType::Float32)).collect()
    })?;
    e.assign(value, outputs[0])?;
    for (&s, &o) in state.iter().zip(&outputs[1..]) {
        e.assign(s, o)?;
    }
    Ok(())
}
