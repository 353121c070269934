//! Shared by the wgpu test binaries: the process-wide wgpu backend from tidytensor-backends
//! (a skip without an adapter, a failure with `TIDYTENSOR_REQUIRE_WGPU=1`), engine setup, and
//! a lock that serialises tests whose GPU byte counts are process-wide.

#![allow(dead_code)]

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use tidytensor_core::{with_engine, Engine};
use tidytensor_cpu::CpuBackend;
use tidytensor_wgpu::WgpuBackend;

static GPU_LOCK: Mutex<()> = Mutex::new(());

/// Runs `f` on this thread's engine with the cpu and wgpu backends registered and wgpu
/// active, holding the GPU test lock; without an adapter says so and returns None.
pub fn with_gpu<R>(f: impl FnOnce(&mut Engine, &WgpuBackend) -> R) -> Option<R> {
    let gpu = match tidytensor_backends::gpu() {
        Ok(gpu) => gpu,
        Err(why) => {
            if std::env::var("TIDYTENSOR_REQUIRE_WGPU").is_ok_and(|v| v == "1") {
                panic!("TIDYTENSOR_REQUIRE_WGPU=1 but the wgpu backend is unavailable: {why}");
            }
            eprintln!("SKIPPED: no wgpu adapter ({why}); set TIDYTENSOR_REQUIRE_WGPU=1 to make this a failure");
            return None;
        }
    };
    let _guard = GPU_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    Some(with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        tidytensor_backends::set_backend(e, "wgpu").unwrap();
        let outcome = catch_unwind(AssertUnwindSafe(|| f(e, gpu)));
        // Free this thread's tensors while holding the lock, a failed test's too: the engine
        // itself is dropped only when the test thread exits, which would disturb the next
        // test's GPU counts.
        for id in e.live_tensors() {
            e.dispose(id);
        }
        outcome.unwrap_or_else(|panic| resume_unwind(panic))
    }))
}

/// A memory field of the active backend (e.g. `numBytesInGPU`).
pub fn field(e: &Engine, name: &str) -> f64 {
    e.memory()
        .backend
        .fields
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
        .unwrap_or_else(|| panic!("no memory field {name}"))
}

/// Deterministic pseudo-random f32s in [lo, hi).
pub fn values(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let u = (s >> 40) as f32 / (1u64 << 24) as f32;
            lo + (hi - lo) * u
        })
        .collect()
}
