//! Tensor lifetime and engine state: scopes, keep, dispose, memory, variables, backends.

use crate::{engine, id, make, parse_dtype};
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi]
pub fn start_scope() -> Result<()> {
    engine(|e| {
        e.start_scope();
        Ok(())
    })
}

/// Ends the innermost scope, keeping `keep_ids` (the tensors found in the scope's result).
#[napi]
pub fn end_scope(keep_ids: Vec<f64>) -> Result<()> {
    let ids: Vec<_> = keep_ids.into_iter().map(id).collect();
    engine(|e| {
        e.end_scope(&ids);
        Ok(())
    })
}

#[napi]
pub fn keep(x: f64) -> Result<()> {
    engine(|e| {
        e.keep(id(x));
        Ok(())
    })
}

#[napi]
pub fn dispose(x: f64) -> Result<()> {
    engine(|e| {
        e.dispose(id(x));
        Ok(())
    })
}

#[napi]
pub fn is_disposed(x: f64) -> Result<bool> {
    engine(|e| Ok(e.is_disposed(id(x))))
}

/// `tf.memory()`: the engine's counts plus the active backend's own fields.
#[napi]
pub fn memory(env: &Env) -> Result<Object<'_>> {
    let m = engine(|e| Ok(e.memory()))?;
    let mut obj = Object::new(env)?;
    obj.set_named_property("numTensors", m.num_tensors as f64)?;
    obj.set_named_property("numDataBuffers", m.num_data_buffers as f64)?;
    obj.set_named_property("numBytes", m.num_bytes as f64)?;
    obj.set_named_property("unreliable", m.backend.unreliable)?;
    if !m.backend.reasons.is_empty() {
        obj.set_named_property("reasons", m.backend.reasons)?;
    }
    for (name, value) in m.backend.fields {
        obj.set_named_property(name, value)?;
    }
    Ok(obj)
}

#[napi]
pub fn variable(init: f64, trainable: bool, name: Option<String>, dtype: Option<String>) -> Result<f64> {
    make(|e| {
        let dtype = dtype.as_deref().map(parse_dtype).transpose()?;
        e.variable(id(init), trainable, name.as_deref(), dtype)
    })
}

#[napi]
pub fn variable_name(x: f64) -> Result<String> {
    engine(|e| e.variable_name(id(x)).map(str::to_string))
}

#[napi]
pub fn assign(variable: f64, value: f64) -> Result<()> {
    engine(|e| e.assign(id(variable), id(value)))
}
