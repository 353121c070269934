//! Optimizers (`tf.train.*`): the core's [`Optimizer`], whose state lives in the engine's
//! variables, wrapped for `lib/train.js`.

use crate::{engine, id};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::cell::RefCell;
use std::rc::Rc;
use tidytensor_core::train::{Optimizer, Rule, EPSILON};

/// Shared with the models compiled with it (`src/layers.rs`).
#[napi]
pub struct NativeOptimizer {
    pub(crate) inner: Rc<RefCell<Optimizer>>,
}

/// A hyperparameter, or its default when JavaScript passed null (tfjs's `epsilon = null`).
fn or(v: Option<f64>, default: f64) -> f64 {
    v.unwrap_or(default)
}

#[napi]
impl NativeOptimizer {
    /// `kind`: sgd, momentum, adagrad, adadelta, adam, adamax or rmsprop; `params` in the
    /// order of tfjs's constructor after the learning rate (null: tfjs's default).
    #[napi(constructor)]
    pub fn new(kind: String, learning_rate: f64, params: Vec<Option<f64>>, flag: bool) -> Result<NativeOptimizer> {
        let p = |i: usize| params.get(i).copied().flatten();
        let rule = match kind.as_str() {
            "sgd" => Rule::Sgd,
            "momentum" => Rule::Momentum { momentum: or(p(0), 0.0), nesterov: flag },
            "adagrad" => Rule::Adagrad { initial_accumulator: or(p(0), 0.1) },
            "adadelta" => Rule::Adadelta { rho: or(p(0), 0.95), epsilon: or(p(1), EPSILON) },
            "adam" => Rule::Adam { beta1: or(p(0), 0.9), beta2: or(p(1), 0.999), epsilon: or(p(2), EPSILON) },
            "adamax" => Rule::Adamax {
                beta1: or(p(0), 0.9),
                beta2: or(p(1), 0.999),
                epsilon: or(p(2), EPSILON),
                decay: or(p(3), 0.0),
            },
            "rmsprop" => Rule::RmsProp {
                decay: or(p(0), 0.9),
                momentum: or(p(1), 0.0),
                epsilon: or(p(2), EPSILON),
                centered: flag,
            },
            other => return Err(Error::from_reason(format!("Unknown optimizer {other}"))),
        };
        let inner = engine(|e| Optimizer::new(e, rule, learning_rate))?;
        Ok(NativeOptimizer { inner: Rc::new(RefCell::new(inner)) })
    }

    /// Updates the variables `names` with `grads` (null: skipped).
    #[napi]
    pub fn apply_gradients(&mut self, names: Vec<String>, grads: Vec<Option<f64>>) -> Result<()> {
        let pairs: Vec<(String, Option<u64>)> = names.into_iter().zip(grads.into_iter().map(|g| g.map(id))).collect();
        engine(|e| self.inner.borrow_mut().apply_gradients(e, &pairs))
    }

    #[napi(getter)]
    pub fn iterations(&self) -> f64 {
        self.inner.borrow().iterations as f64
    }

    #[napi]
    pub fn set_learning_rate(&mut self, learning_rate: f64) {
        self.inner.borrow_mut().learning_rate = learning_rate;
    }

    /// The state variables, `[name, id]`, in tfjs's `getWeights` order (after `iter`).
    #[napi]
    pub fn weights(&self) -> Vec<(String, f64)> {
        self.inner.borrow().weights().into_iter().map(|(n, t)| (n, t as f64)).collect()
    }

    #[napi]
    pub fn set_weights(&mut self, iterations: f64, names: Vec<String>, ids: Vec<f64>) -> Result<()> {
        let pairs: Vec<(String, u64)> = names.into_iter().zip(ids.into_iter().map(id)).collect();
        engine(|e| self.inner.borrow_mut().set_weights(e, iterations.max(0.0) as u64, &pairs))
    }

    #[napi]
    pub fn dispose(&mut self) -> Result<()> {
        engine(|e| {
            self.inner.borrow_mut().dispose(e);
            Ok(())
        })
    }
}
