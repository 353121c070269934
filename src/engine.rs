//! Engine state: scopes, keep, dispose, memory, the variable registry, profiles and timing.

use crate::{engine, id, make, parse_dtype, write_meta};
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

/// `tensor.throwIfDisposed()`: says whether the tensor was disposed or belongs to another thread.
#[napi]
pub fn throw_if_disposed(x: f64) -> Result<()> {
    engine(|e| e.info(id(x)).map(|_| ()))
}

/// `tf.memory()`: the engine's counts plus the active backend's own fields.
#[napi]
pub fn memory(env: &Env) -> Result<Object<'_>> {
    let m = engine(|e| Ok(e.memory()))?;
    let mut obj = Object::new(env)?;
    obj.set_named_property("numTensors", m.num_tensors as f64)?;
    obj.set_named_property("numDataBuffers", m.num_data_buffers as f64)?;
    obj.set_named_property("numBytes", m.num_bytes as f64)?;
    // Of numBytes, the weights this thread shares with the other threads that loaded them.
    obj.set_named_property("numBytesShared", m.num_bytes_shared as f64)?;
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

/// Writes a live tensor's dtype and shape into the meta buffer (to wrap a tensor JavaScript
/// did not make, such as a variable made from Rust).
#[napi]
pub fn tensor_meta(x: f64) -> Result<()> {
    engine(|e| {
        let info = e.info(id(x))?;
        write_meta(info.dtype, &info.shape);
        Ok(())
    })
}

#[napi]
pub fn is_trainable(x: f64) -> Result<bool> {
    engine(|e| e.is_trainable(id(x)))
}

/// `variable.trainable = v`.
#[napi]
pub fn set_trainable(x: f64, v: bool) -> Result<()> {
    engine(|e| e.set_trainable(id(x), v))
}

/// The native variable registry (the only one): `[name, id]` of every live variable, in
/// creation order.
#[napi]
pub fn variables() -> Result<Vec<(String, f64)>> {
    engine(|e| Ok(e.variables().into_iter().map(|(n, i)| (n, i as f64)).collect()))
}

#[napi]
pub fn dispose_variables() -> Result<()> {
    engine(|e| {
        e.dispose_variables();
        Ok(())
    })
}

/// Starts recording kernels for `tf.profile`; returns where this profile's records start.
#[napi]
pub fn start_profile() -> Result<u32> {
    engine(|e| Ok(e.start_profile() as u32))
}

/// One kernel record in tfjs's `KernelInfo` shape.
#[napi(object)]
pub struct KernelInfo {
    pub name: String,
    pub bytes_added: f64,
    pub total_bytes_snapshot: f64,
    pub tensors_added: f64,
    pub total_tensors_snapshot: f64,
    pub input_shapes: Vec<Vec<f64>>,
    pub output_shapes: Vec<Vec<f64>>,
    pub kernel_time_ms: f64,
    pub extra_info: String,
}

/// The kernels recorded since `mark`; `last` stops recording.
#[napi]
pub fn end_profile(mark: u32, last: bool) -> Result<Vec<KernelInfo>> {
    let shapes = |v: Vec<Vec<usize>>| v.into_iter().map(|s| s.into_iter().map(|d| d as f64).collect()).collect();
    engine(|e| {
        Ok(e.end_profile(mark as usize, last)
            .into_iter()
            .map(|r| KernelInfo {
                name: r.name.to_string(),
                bytes_added: r.bytes_added as f64,
                total_bytes_snapshot: r.total_bytes_snapshot as f64,
                tensors_added: r.tensors_added as f64,
                total_tensors_snapshot: r.total_tensors_snapshot as f64,
                input_shapes: shapes(r.input_shapes),
                output_shapes: shapes(r.output_shapes),
                kernel_time_ms: r.kernel_time_ms,
                extra_info: String::new(),
            })
            .collect())
    })
}

/// Waits until the active backend has finished the work recorded so far (`tf.time`).
#[napi]
pub fn synchronize() -> Result<()> {
    engine(|e| e.synchronize())
}

/// Every live tensor id, ascending (leak reports).
#[napi]
pub fn live_tensors() -> Result<Vec<f64>> {
    engine(|e| Ok(e.live_tensors().into_iter().map(|i| i as f64).collect()))
}

/// What made a live tensor and what holds it; `null` once it is disposed.
#[napi(object)]
pub struct TensorOriginInfo {
    pub op: String,
    pub bytes: f64,
    pub scoped: bool,
    pub kept: bool,
    pub variable: bool,
}

#[napi]
pub fn tensor_origin(x: f64) -> Result<Option<TensorOriginInfo>> {
    engine(|e| {
        Ok(e.tensor_origin(id(x)).map(|o| TensorOriginInfo {
            op: o.op.to_string(),
            bytes: o.bytes as f64,
            scoped: o.scoped,
            kept: o.kept,
            variable: o.variable,
        }))
    })
}

/// Debug mode: times each kernel for [`last_kernel`].
#[napi]
pub fn set_debug_mode(on: bool) -> Result<()> {
    engine(|e| {
        e.debug = on;
        e.last_kernel = None;
        Ok(())
    })
}

/// In debug mode, the name and milliseconds of the last kernel run; taken (read once).
#[napi]
pub fn take_last_kernel() -> Result<Option<(String, f64)>> {
    engine(|e| Ok(e.last_kernel.take().map(|(n, ms)| (n.to_string(), ms))))
}

/// Disposes the tensors `ids` that are still alive, unless kept or variables (the end of a
/// `tidyAsync` scope).
#[napi]
pub fn dispose_unheld(ids: Vec<f64>) -> Result<()> {
    engine(|e| {
        for x in ids {
            let i = id(x);
            if e.tensor_origin(i).is_some_and(|o| !o.kept && !o.variable) {
                e.dispose(i);
            }
        }
        Ok(())
    })
}

/// Bytes of host memory the process may still take (the figure the engine checks large tensors
/// against), or -1 where the OS does not tell: JavaScript buffers that grow with their input
/// (tf.data's shuffle and prefetch windows) check it as they grow.
#[napi]
pub fn host_available_bytes() -> f64 {
    tidytensor_core::host_memory::available().map_or(-1.0, |b| b as f64)
}
