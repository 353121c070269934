//! The napi binding: the one place that knows JavaScript. Each function converts arguments,
//! runs one engine call on this thread's engine and converts the result. The public tfjs API
//! is the JavaScript in `lib/`; these functions are its native half.

// napi-derive registers the exported functions only outside `cfg(test)`: a test build (clippy's
// --all-targets) would see them all as unused.
#![cfg_attr(test, allow(dead_code))]

mod backends;
mod engine;
mod grad;
mod graph;
mod images;
mod layers;
mod ops;
mod promise;
mod serve;
mod tensors;
mod train;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};
use tidytensor_core::{with_engine, DType, Engine, TensorId};

thread_local! {
    /// Out-parameters shared with JS (see `metaBuffer`): written after every call that makes a
    /// tensor, so JS learns the new tensor's dtype and shape without allocating. f64, so that
    /// every dimension a JS number holds exactly (below 2^53) travels without wrapping.
    static META: *mut f64 = Box::into_raw(Box::new([0f64; META_LEN])) as *mut f64;
}
const META_LEN: usize = 2 + tidytensor_core::shape::MAX_RANK;

/// The shared out-parameter buffer: after each call that returns a new tensor id,
/// `[dtype code (0 float32, 1 int32, 2 bool, 3 string, 4 complex64), rank, ...dims]`.
#[napi]
pub fn meta_buffer() -> Float64Array {
    let ptr = META.with(|m| *m);
    // SAFETY: the buffer is leaked for the life of the thread and only this thread's JS reads it.
    unsafe { Float64Array::with_external_data(ptr, META_LEN, |_, _| {}) }
}

/// The dims JS wrote into the meta buffer as `[_, rank, ...dims]` (rank clamped to the buffer;
/// JS checked the dims to be non-negative integers).
pub(crate) fn read_meta() -> Vec<i64> {
    META.with(|m| {
        // SAFETY: META_LEN slots, read on the thread that owns them.
        unsafe {
            let rank = (*m.add(1)).clamp(0.0, (META_LEN - 2) as f64) as usize;
            (0..rank).map(|i| *m.add(2 + i) as i64).collect()
        }
    })
}

fn dtype_code(d: DType) -> f64 {
    match d {
        DType::Float32 => 0.0,
        DType::Int32 => 1.0,
        DType::Bool => 2.0,
        DType::String => 3.0,
        DType::Complex64 => 4.0,
    }
}

thread_local! {
    static READY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Keeps freed blocks of up to 32 MiB in glibc's heap for reuse, instead of giving them back
/// to the OS at once: tensor values read into JavaScript are such blocks, freed by the garbage
/// collector, and memory the OS maps again costs a page fault per 4 KiB, which on virtual
/// machines is slower than the kernels (measured: 3 ms to map 4 MiB, 0.06 ms to reuse it).
/// glibc raises its thresholds this way by itself once large blocks are freed; this starts
/// there and trims the heap only past 128 MiB of free space at its top.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt only sets allocator parameters; any value is valid.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 20);
        });
    }
}

/// Gives the heap's free pages back to the OS (after a model load, whose transient copies
/// `tune_allocator` would otherwise keep: in each worker_thread's arena, for the life of the
/// process).
pub(crate) fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the OS.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Lets Node's main thread work in the cpu backend's thread pool
/// (`tidytensor_cpu::adopt_calling_thread`). Only the main thread lives as long as the process;
/// on Linux it is the thread whose id is the process id. Elsewhere the pool keeps its own
/// threads only.
fn adopt_main_thread() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: getpid and gettid only read the caller's ids.
        if unsafe { libc::gettid() == libc::getpid() } {
            tidytensor_backends::adopt_calling_thread();
        }
    }
}

/// Runs `f` on this thread's engine (registering the backends on first use), turning engine
/// errors and any panic into JS errors.
pub(crate) fn engine<R>(f: impl FnOnce(&mut Engine) -> tidytensor_core::Result<R>) -> Result<R> {
    let run = catch_unwind(AssertUnwindSafe(|| {
        with_engine(|e| {
            if !READY.get() {
                tune_allocator();
                adopt_main_thread();
                tidytensor_backends::init(e)?;
                READY.set(true);
            }
            f(e)
        })
    }));
    match run {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Error::from_reason(e.0)),
        Err(panic) => {
            // The engine's RefCell was released by the unwind; put its kernel state right.
            let _ = catch_unwind(|| with_engine(Engine::abort_kernels));
            let msg = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            Err(Error::from_reason(format!("tidytensor internal error: {msg}")))
        }
    }
}

/// Like [`engine`] for calls that make a tensor: writes its metadata to the meta buffer and
/// returns its id as a JS number.
pub(crate) fn make(f: impl FnOnce(&mut Engine) -> tidytensor_core::Result<TensorId>) -> Result<f64> {
    engine(|e| {
        let id = f(e)?;
        let info = e.info(id)?;
        write_meta(info.dtype, &info.shape);
        Ok(id as f64)
    })
}

/// Writes a tensor's dtype and shape into the meta buffer.
pub(crate) fn write_meta(dtype: DType, shape: &[usize]) {
    META.with(|m| {
        // SAFETY: META_LEN slots; rank ≤ MAX_RANK is enforced by the engine.
        unsafe {
            *m.add(0) = dtype_code(dtype);
            *m.add(1) = shape.len() as f64;
            for (i, &d) in shape.iter().enumerate().take(META_LEN - 2) {
                *m.add(2 + i) = d as f64;
            }
        }
    });
}

/// A tensor id from JavaScript; anything that is not one of the engine's ids (1.5, NaN, -1)
/// becomes 0, which names no tensor.
pub(crate) fn id(x: f64) -> TensorId {
    if x >= 1.0 && x.fract() == 0.0 {
        x as TensorId
    } else {
        0
    }
}

pub(crate) fn parse_dtype(name: &str) -> tidytensor_core::Result<DType> {
    DType::parse(name)
}
