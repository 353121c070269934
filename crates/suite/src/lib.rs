//! The backend test suite: every test is written once, as a `fn(&mut Engine)`, and
//! [`backend_tests!`] runs it on each backend (candle's `test_device!`, Burn's shared backend
//! tests). A test runs on a fresh engine whose active backend is the one under test, inside a
//! scope; afterwards the registry counts and the backend's own bytes must be back where they
//! started, so every test is also a leak check. [`fails`] checks an op's error and that the
//! failed call left nothing behind.
//!
//! `cpu` always runs. `wgpu` runs when an adapter opens (lavapipe in CI); without one its tests
//! say so and pass, unless `TIDYTENSOR_REQUIRE_WGPU=1`. wgpu's byte counts are process-wide,
//! so its tests hold one lock.
//!
//! The tests live in `tests/<family>.rs`, one file per op family like the front-ends, and in
//! `tests/engine.rs` for the engine's own semantics (scopes, variables, backends, the funnel).
//! Helpers here build inputs ([`random_tensor`], [`random_shape`]) and state how tfjs stores a
//! computed value ([`store`]), for the f64 references the tests compare with.

use std::sync::{Arc, Mutex, MutexGuard};
use tidytensor_core::{js_to_int32, with_engine, DType, Engine, HostData, TensorId};
use tidytensor_cpu::CpuBackend;

/// Runs each named `fn(&mut Engine)` of the calling module on every backend, as
/// `cpu::<name>` and `wgpu::<name>` tests.
#[macro_export]
macro_rules! backend_tests {
    ($($name:ident),* $(,)?) => {
        mod cpu {
            $(#[test] fn $name() { $crate::run("cpu", super::$name) })*
        }
        mod wgpu {
            $(#[test] fn $name() { $crate::run("wgpu", super::$name) })*
        }
    };
}

static GPU_LOCK: Mutex<()> = Mutex::new(());

/// Runs `test` on a fresh engine with `backend` active (see the crate doc).
pub fn run(backend: &str, test: fn(&mut Engine)) {
    let _guard: Option<MutexGuard<()>> = match backend {
        "wgpu" => match tidytensor_backends::gpu() {
            Ok(_) => Some(GPU_LOCK.lock().unwrap_or_else(|e| e.into_inner())),
            Err(why) => {
                if std::env::var("TIDYTENSOR_REQUIRE_WGPU").is_ok_and(|v| v == "1") {
                    panic!("TIDYTENSOR_REQUIRE_WGPU=1 but the wgpu backend is unavailable: {why}");
                }
                eprintln!("SKIPPED on wgpu: no adapter ({why})");
                return;
            }
        },
        _ => None,
    };
    with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        tidytensor_backends::set_backend(e, backend).expect("backend");
        let before = usage(e);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            e.start_scope();
            test(e);
            e.end_scope(&[]);
            usage(e)
        }));
        // The engine outlives the test on this thread; free whatever is left (a leak, or
        // everything when the test failed) while the GPU lock is held, so the next test's
        // counts start clean.
        for id in e.live_tensors() {
            e.dispose(id);
        }
        match outcome {
            Ok(after) => {
                assert_eq!(after, before, "the test leaked: (tensors, buffers, bytes, backend bytes) differ")
            }
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
}

/// (numTensors, numDataBuffers, numBytes, bytes the active backend holds for tensors).
pub fn usage(e: &Engine) -> (usize, usize, usize, usize) {
    let m = e.memory();
    let backend_bytes = match e.backend_name() {
        // Per thread: tests run in parallel threads.
        Some("cpu") => tidytensor_cpu::thread_live_bytes() as usize,
        _ => field(e, "numBytesInGPU") as usize,
    };
    (m.num_tensors, m.num_data_buffers, m.num_bytes, backend_bytes)
}

/// A numeric field of the active backend's `tf.memory()` (e.g. `numBytesInGPU`).
pub fn field(e: &Engine, name: &str) -> f64 {
    e.memory().backend.fields.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).unwrap_or(0.0)
}

/// Asserts that `op` fails with an error containing `message`, and that the failed call left
/// no tensor and no backend memory behind.
pub fn fails<T: std::fmt::Debug>(
    e: &mut Engine,
    message: &str,
    op: impl FnOnce(&mut Engine) -> tidytensor_core::Result<T>,
) {
    let before = usage(e);
    let err = op(e).expect_err("the op should fail");
    assert!(err.0.contains(message), "error {:?} does not contain {message:?}", err.0);
    assert_eq!(usage(e), before, "a failed op left something behind");
}

pub fn f32s(e: &mut Engine, values: &[f32], shape: &[usize]) -> TensorId {
    e.tensor(HostData::F32(values.to_vec()), shape).expect("tensor")
}

pub fn i32s(e: &mut Engine, values: &[i32], shape: &[usize]) -> TensorId {
    e.tensor(HostData::I32(values.to_vec()), shape).expect("tensor")
}

pub fn bools(e: &mut Engine, values: &[u8], shape: &[usize]) -> TensorId {
    e.tensor(HostData::Bool(values.to_vec()), shape).expect("tensor")
}

/// A tensor of `dtype` from f64 values, stored as tfjs stores them.
pub fn of(e: &mut Engine, dtype: DType, values: &[f64], shape: &[usize]) -> TensorId {
    e.tensor(HostData::from_f64(dtype, values.iter().copied()), shape).expect("tensor")
}

/// The tensor's values as f64, after checking its shape and dtype.
pub fn values(e: &Engine, id: TensorId, shape: &[usize], dtype: DType) -> Vec<f64> {
    assert_eq!(e.shape(id).expect("live tensor"), shape, "shape");
    assert_eq!(e.dtype(id).expect("live tensor"), dtype, "dtype");
    e.read(id).expect("read").to_f64()
}

/// Asserts `got` equals `want` elementwise within `tol` relative error (absolute below 1);
/// NaNs must match NaNs and infinities must be equal.
pub fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "length: got {got:?}, want {want:?}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= tol * w.abs().max(1.0)
        };
        assert!(ok, "element {i}: got {g}, want {w} (got {got:?}, want {want:?})");
    }
}

/// Deterministic pseudo-random values in `[lo, hi)`.
pub fn random_values(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 40) as f64 / (1u64 << 24) as f64)
        })
        .collect()
}

/// A value a kernel computed (in f64, as tfjs computes in JavaScript numbers) as a tensor of
/// `dtype` stores it: float32 rounds, int32 is `ToInt32` (an `Int32Array`), bool is the
/// `Uint8Array` byte being nonzero (so NaN, ±Infinity and 256 store as false). A cast to bool
/// is `x != 0` instead ([`HostData::from_f64`]).
pub fn store(dtype: DType, v: f64) -> f64 {
    match dtype {
        DType::Float32 => v as f32 as f64,
        DType::Int32 => js_to_int32(v) as f64,
        DType::Bool => (v.is_finite() && v.trunc().rem_euclid(256.0) != 0.0) as u8 as f64,
        d => tidytensor_core::numeric_only(d),
    }
}

/// A random tensor of `dtype` and its values: float32 in [-10, 10), int32 in [-1000, 1000]
/// (so products stay exact in f64), bool 0/1.
pub fn random_tensor(e: &mut Engine, dtype: DType, shape: &[usize], seed: u64) -> (TensorId, Vec<f64>) {
    let n = shape.iter().product();
    let raw = random_values(n, seed, -10.0, 10.0);
    let v: Vec<f64> = match dtype {
        DType::Float32 => raw.iter().map(|&x| x as f32 as f64).collect(),
        DType::Int32 => raw.iter().map(|&x| (x * 100.0).round()).collect(),
        DType::Bool => raw.iter().map(|&x| (x > 0.0) as u8 as f64).collect(),
        d => tidytensor_core::numeric_only(d),
    };
    (of(e, dtype, &v, shape), v)
}

/// A length past the active backend's switch to its large-tensor paths: the cpu backend's
/// rayon threshold (2^16 elements), wgpu's multi-pass reduction trees (rows over 4,096). Kept
/// at a few thousand on wgpu, where lavapipe runs shaders on the CPU.
pub fn large_len(e: &Engine) -> usize {
    match e.backend_name() {
        Some("cpu") => 70_000,
        _ => 5_000,
    }
}

/// Row-major strides in elements.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    tidytensor_core::shape::strides(shape)
}

/// A deterministic pseudo-random shape: rank in `[1, max_rank]`, dims in `[1, max_dim]`.
pub fn random_shape(seed: u64, max_rank: usize, max_dim: usize) -> Vec<usize> {
    let r = random_values(max_rank + 1, mix(seed), 0.0, 1.0);
    let rank = 1 + (r[0] * max_rank as f64) as usize;
    r[1..=rank].iter().map(|&u| 1 + (u * max_dim as f64) as usize).collect()
}

/// splitmix64: neighbouring seeds give unrelated streams (an LCG's first outputs for
/// neighbouring seeds are not).
pub fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
    z ^ (z >> 31)
}
