//! Which backends an engine has and which one is active, in one place for the binding, the
//! Rust test suite and the model crate: `cpu` always; `wgpu` when a GPU adapter opens. The
//! default is `wgpu` on a hardware adapter, else `cpu` (a software adapter such as lavapipe
//! works when chosen explicitly); `TIDYTENSOR_BACKEND=cpu|wgpu` overrides.

use std::sync::{Arc, OnceLock};
use tidytensor_core::{bail, Engine, Result};
use tidytensor_cpu::CpuBackend;
pub mod serve;

pub use tidytensor_cpu::{adopt_calling_thread, copy_bytes, fma_peak_gflops, qgemm_gops, recycle};
pub use tidytensor_wgpu::{GpuInfo, WgpuBackend};

/// The process-wide wgpu backend, or why there is none (opened once: creating a Vulkan
/// instance costs tens of milliseconds).
pub fn gpu() -> std::result::Result<&'static WgpuBackend, &'static str> {
    static GPU: OnceLock<std::result::Result<WgpuBackend, String>> = OnceLock::new();
    GPU.get_or_init(|| WgpuBackend::new().map_err(|e| e.0)).as_ref().map_err(String::as_str)
}

/// Registers the wgpu backend into `e` (if not there yet), or says why it cannot.
pub fn register_wgpu(e: &mut Engine) -> Result<()> {
    match gpu() {
        Ok(g) => {
            e.register_backend(Arc::new(g.clone()));
            Ok(())
        }
        Err(why) => bail!("The wgpu backend is not available: {why}"),
    }
}

/// Registers the backends into a new engine and activates the default one (see the module
/// doc).
pub fn init(e: &mut Engine) -> Result<()> {
    e.register_backend(Arc::new(CpuBackend::new()));
    match std::env::var("TIDYTENSOR_BACKEND").ok().as_deref().filter(|v| !v.is_empty()) {
        Some(name) => set_backend(e, name),
        None => {
            if let Ok(g) = gpu() {
                e.register_backend(Arc::new(g.clone()));
                if g.is_hardware() {
                    e.set_backend("wgpu")?;
                }
            }
            Ok(())
        }
    }
}

/// `tf.setBackend(name)`: registers wgpu on first request, then activates `name`.
pub fn set_backend(e: &mut Engine, name: &str) -> Result<()> {
    if name == "wgpu" && !e.backend_names().contains(&"wgpu") {
        register_wgpu(e)?;
    }
    e.set_backend(name)
}
