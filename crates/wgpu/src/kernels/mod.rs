//! Kernel launchers, one module per op family: WGSL generation (templates in
//! `shaders/<family>/`), pipeline keys, parameters and grids. Every pipeline is keyed by op and dtypes only; shapes, strides and sizes travel as
//! parameters, so one compiled pipeline serves every shape.
//!
//! GPU element types: float32 is `f32`, int32 is `i32`, bool is `u32` (0/1, one word per
//! element; WGSL has no 8-bit storage). Kernels compute in one of two domains, `f32` or `i32`
//! (bool loads as i32), like the cpu backend's float and integer paths, and store through the
//! same conversions the cpu backend uses (JavaScript ToInt32 wrapping, `x != 0` for bool).

mod conv;
mod creation;
mod elementwise;
mod image;
mod layout;
mod matmul;
mod reduce;
mod train;

pub(crate) use conv::{conv, conv_input_grad, lrn, window, Fold};
pub(crate) use creation::{fill, fill_raw, one_hot};
pub(crate) use elementwise::{binary, cast, fused_epilogue, select, unary};
pub(crate) use image::resample;
pub(crate) use layout::{concat, gather, scatter, slice, transpose};
pub(crate) use matmul::matmul;
pub(crate) use reduce::{arg_reduce, cumulative, reduce, softmax, topk_indices};
pub(crate) use train::optimizer_step;

use std::sync::Arc;

use tidytensor_core::{js_to_int32, DType, Result, Storage};

use crate::device::{Gpu, RawBuf, State};
use crate::WgpuStorage;

const COMMON: &str = include_str!("../shaders/common.wgsl");

/// Max rank of the strided and broadcasting kernels (the uniform has 6 slots per list).
const MAX_RANK: usize = 6;

/// Storage element type of a dtype on the GPU.
pub(crate) fn sty(d: DType) -> &'static str {
    match d {
        DType::Float32 => "f32",
        DType::Int32 => "i32",
        DType::Bool => "u32",
        d @ (DType::String | DType::Complex64) => tidytensor_core::numeric_only(d),
    }
}

/// Compute domain: float or integer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dom {
    F,
    I,
}

impl Dom {
    pub(crate) fn of(d: DType) -> Dom {
        if d == DType::Float32 {
            Dom::F
        } else {
            Dom::I
        }
    }
    pub(crate) fn ty(self) -> &'static str {
        match self {
            Dom::F => "f32",
            Dom::I => "i32",
        }
    }
}

/// A full shader: common prelude, bindings, helper functions, then the kernel template.
pub(crate) fn shader(inputs: &[&str], output: &str, helpers: &str, body: &str) -> String {
    let mut s = COMMON.replace("$PB", &(inputs.len() + 1).to_string());
    for (i, t) in inputs.iter().enumerate() {
        s += &format!("@group(0) @binding({i}) var<storage, read> X{i}: array<{t}>;\n");
    }
    s += &format!("@group(0) @binding({}) var<storage, read_write> Y: array<{output}>;\n", inputs.len());
    s += helpers;
    s += "\n";
    s += body;
    s
}

/// `fn ld{k}(i) -> domain` reading input `k` of dtype `d`.
pub(crate) fn load_fn(k: usize, d: DType) -> String {
    let e = match d {
        DType::Bool => format!("i32(X{k}[i])"),
        _ => format!("X{k}[i]"),
    };
    format!("fn ld{k}(i: u32) -> {} {{ return {e}; }}\n", Dom::of(d).ty())
}

/// `fn conv(v) -> storage` from a domain value to the output dtype. A computed float stored
/// as bool follows Uint8Array (NaN is false); a cast to bool is `x != 0` (NaN is true).
pub(crate) fn conv_fn_with(from: Dom, to: DType, cast: bool) -> String {
    let e = match (from, to) {
        (Dom::F, DType::Float32) | (Dom::I, DType::Int32) => "v",
        (Dom::F, DType::Int32) => "f2i(v)",
        (Dom::F, DType::Bool) if cast => "f2b(v)",
        (Dom::F, DType::Bool) => "f2b_store(v)",
        (Dom::I, DType::Float32) => "f32(v)",
        (Dom::I, DType::Bool) => "i2b(v)",
        (_, d @ (DType::String | DType::Complex64)) => tidytensor_core::numeric_only(d),
    };
    format!("fn conv(v: {}) -> {} {{ return {e}; }}\n", from.ty(), sty(to))
}

pub(crate) fn conv_fn(from: Dom, to: DType) -> String {
    conv_fn_with(from, to, false)
}

/// Bits of `value` stored as `dtype` (the cpu backend's conversions).
pub(crate) fn value_bits(value: f64, dtype: DType) -> u32 {
    match dtype {
        DType::Float32 => (value as f32).to_bits(),
        DType::Int32 => js_to_int32(value) as u32,
        DType::Bool => (value != 0.0) as u32,
        d @ (DType::String | DType::Complex64) => tidytensor_core::numeric_only(d),
    }
}

/// A kernel run: the output buffer is allocated under the batch lock and handed to `record`;
/// on success it becomes a tensor storage (after the lock is released, since dropping a
/// storage takes it).
pub(crate) fn launch(
    gpu: &Arc<Gpu>,
    len: usize,
    dtype: DType,
    record: impl FnOnce(&Gpu, &mut State, &RawBuf) -> Result<()>,
) -> Result<Box<dyn Storage>> {
    let mut st = gpu.state()?;
    let out = gpu.alloc(&mut st, len as u64 * 4)?;
    let result = if len == 0 { Ok(()) } else { record(gpu, &mut st, &out) };
    let result = result.and_then(|()| gpu.maybe_flush(&mut st));
    if let Err(e) = result {
        gpu.give_back(&mut st, out);
        return Err(e);
    }
    drop(st);
    Ok(Box::new(WgpuStorage::new(gpu.clone(), out, len, dtype)))
}

pub(crate) fn bind(b: &RawBuf) -> (&wgpu::Buffer, u64) {
    (&b.buf, b.bytes)
}

pub(crate) fn sbind(s: &WgpuStorage) -> (&wgpu::Buffer, u64) {
    (&s.raw.buf, s.raw.bytes)
}

/// A 1-D launch of `n` threads in workgroups of 256.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run1d(
    gpu: &Gpu,
    st: &mut State,
    key: &str,
    source: impl FnOnce() -> String,
    inputs: &[(&wgpu::Buffer, u64)],
    out: (&wgpu::Buffer, u64),
    params: &[u32],
    n: usize,
    per_group: u32,
) -> Result<()> {
    let pipeline = gpu.pipeline(key, inputs.len(), source)?;
    let groups = gpu.grid((n as u64).div_ceil(per_group as u64))?;
    gpu.dispatch(st, pipeline, inputs, out, params, groups)
}

pub(crate) fn u32_of(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n)
        .map_err(|_| tidytensor_core::Error::new(format!("wgpu backend: {what} of {n} is too large for the GPU")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::WG;
    use tidytensor_core::{Backend, HostData, View};

    /// Kernels may take any number of inputs: a 5-input sum runs, and more inputs than the GPU
    /// binds is an error, in every build.
    #[test]
    fn kernels_take_any_number_of_inputs() {
        let b = match crate::WgpuBackend::new() {
            Ok(b) => b,
            Err(e) if std::env::var("TIDYTENSOR_REQUIRE_WGPU").is_ok_and(|v| v == "1") => panic!("{e}"),
            Err(e) => return eprintln!("SKIPPED: {e}"),
        };
        let gpu = &b.gpu;
        let inputs: Vec<Box<dyn Storage>> =
            (0..5).map(|k| b.upload(HostData::F32(vec![k as f32, 10.0 * k as f32])).unwrap()).collect();
        let storages: Vec<&WgpuStorage> = inputs.iter().map(|s| s.as_any().downcast_ref().unwrap()).collect();
        let sum = launch(gpu, 2, DType::Float32, |g, st, o| {
            let src = || {
                let body = "@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    let i = id.x;\n    if (i >= p(0u)) { return; }\n    Y[i] = X0[i] + X1[i] + X2[i] + X3[i] + X4[i];\n}\n";
                shader(&["f32"; 5], "f32", "", body)
            };
            let binds: Vec<_> = storages.iter().map(|s| sbind(s)).collect();
            run1d(g, st, "test_sum5", src, &binds, bind(o), &[2], 2, WG)
        })
        .unwrap();
        let got = b.read(View { storage: &*sum, shape: &[2], dtype: DType::Float32 }).unwrap();
        assert_eq!(got, HostData::F32(vec![10.0, 100.0]));

        let max = gpu.limits.max_storage_buffers_per_shader_stage as usize;
        if max > 1024 {
            return; // a driver without a practical limit
        }
        let too_many = vec!["f32"; max];
        let err = launch(gpu, 1, DType::Float32, |g, st, o| {
            let src = || shader(&too_many, "f32", "", "");
            let binds: Vec<_> = (0..max).map(|_| sbind(storages[0])).collect();
            run1d(g, st, "test_too_many", src, &binds, bind(o), &[1], 1, WG)
        })
        .err()
        .expect("more inputs than the GPU binds must fail");
        assert!(err.0.contains("storage buffers"), "{}", err.0);
    }
}
