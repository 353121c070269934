//! Gradients: the tape's forward and backward halves, driven from `lib/gradients.js`, which
//! runs the user's function between them and any JavaScript custom gradient the backward
//! pass stops at (with the engine free, so that it can run ops).

use crate::{engine, id};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::BackwardStep;

/// Starts recording for a gradient and opens the forward scope.
#[napi]
pub fn forward_start() -> Result<()> {
    engine(|e| {
        e.forward_start();
        Ok(())
    })
}

/// Ends the forward scope keeping `y` (null when the function failed).
#[napi]
pub fn forward_end(y: Option<f64>) -> Result<()> {
    engine(|e| {
        e.forward_end(y.map(id));
        Ok(())
    })
}

#[napi]
pub fn backward_start(y: f64, xs: Vec<f64>, dy: Option<f64>, allow_no_gradients: bool) -> Result<()> {
    let xs: Vec<_> = xs.into_iter().map(id).collect();
    engine(|e| e.backward_start(id(y), &xs, dy.map(id), allow_no_gradients))
}

/// A custom gradient the backward pass stopped at.
#[napi(object)]
pub struct ExternalGradient {
    pub id: f64,
    pub dys: Vec<f64>,
    pub saved: Vec<f64>,
    pub needed: Vec<bool>,
}

/// Runs the backward pass; null when it is done, else the custom gradient to run.
#[napi]
pub fn backward_run() -> Result<Option<ExternalGradient>> {
    engine(|e| {
        Ok(match e.backward_run()? {
            BackwardStep::Done => None,
            BackwardStep::External { id, dys, saved, needed } => Some(ExternalGradient {
                id: id as f64,
                dys: dys.into_iter().map(|t| t as f64).collect(),
                saved: saved.into_iter().map(|t| t as f64).collect(),
                needed,
            }),
        })
    })
}

/// The input gradients of the custom gradient the pass stopped at (null: none).
#[napi]
pub fn backward_provide(grads: Vec<Option<f64>>) -> Result<()> {
    engine(|e| e.backward_provide(grads.into_iter().map(|g| g.map(id)).collect()))
}

/// Ends the backward pass; the gradient of each x (null where none), when `ok`.
#[napi]
pub fn backward_end(ok: bool) -> Result<Vec<Option<f64>>> {
    engine(|e| Ok(e.backward_end(ok).into_iter().map(|g| g.map(|t| t as f64)).collect()))
}

/// `engine().isTapeOn()`: whether a kernel run now is recorded for a gradient.
#[napi]
pub fn is_tape_on() -> Result<bool> {
    engine(|e| Ok(e.taping()))
}

/// Stops recording while a custom gradient's forward function runs.
#[napi]
pub fn pause_tape() -> Result<()> {
    engine(|e| {
        e.pause_tape();
        Ok(())
    })
}

/// Records the custom op (when a gradient is taken) with gradient `custom`; returns whether
/// it was recorded.
#[napi]
pub fn resume_tape(custom: Option<f64>, inputs: Vec<f64>, outputs: Vec<f64>, save: Vec<f64>) -> Result<bool> {
    let ids = |v: Vec<f64>| v.into_iter().map(id).collect::<Vec<_>>();
    let (inputs, outputs, save) = (ids(inputs), ids(outputs), ids(save));
    engine(|e| e.resume_tape(custom.map(|c| (c as u64, &inputs[..], &outputs[..], &save[..]))))
}
