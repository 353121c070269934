//! Shared by the wgpu test binaries: adapter discovery with a skip (or a failure when
//! `TIDYTENSOR_REQUIRE_WGPU=1`), engine setup, and a lock that serialises tests whose GPU
//! byte counts are process-wide.

#![allow(dead_code)]

use std::sync::{Arc, Mutex, MutexGuard};
use tidytensor_core::{with_engine, Engine};
use tidytensor_cpu::CpuBackend;
use tidytensor_wgpu::WgpuBackend;

static GPU_LOCK: Mutex<()> = Mutex::new(());

/// The wgpu backend, or None (after printing why) when this machine has no adapter.
/// With `TIDYTENSOR_REQUIRE_WGPU=1` a missing adapter fails the test instead.
pub fn backend() -> Option<WgpuBackend> {
    match WgpuBackend::new() {
        Ok(b) => Some(b),
        Err(e) => {
            if std::env::var("TIDYTENSOR_REQUIRE_WGPU").is_ok_and(|v| v == "1") {
                panic!("TIDYTENSOR_REQUIRE_WGPU=1 but the wgpu backend is unavailable: {e}");
            }
            eprintln!(
                "SKIPPED: no wgpu adapter on this machine ({e}); set TIDYTENSOR_REQUIRE_WGPU=1 to make this a failure"
            );
            None
        }
    }
}

/// Runs `f` on this thread's engine with the cpu and wgpu backends registered and wgpu
/// active; skips (returns None) without an adapter. Holds the GPU test lock throughout.
pub fn with_gpu<R>(f: impl FnOnce(&mut Engine, &WgpuBackend) -> R) -> Option<R> {
    let b = backend()?;
    let _guard: MutexGuard<()> = GPU_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    Some(with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        e.register_backend(Arc::new(b.clone()));
        e.set_backend("wgpu").unwrap();
        let r = f(e, &b);
        // Free this thread's tensors while holding the lock: the engine itself is dropped
        // only when the test thread exits, which would disturb the next test's GPU counts.
        for id in e.live_tensors() {
            e.dispose(id);
        }
        r
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
