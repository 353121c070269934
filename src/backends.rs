//! Which backends exist and which one is active: `cpu` always; `wgpu` when a GPU adapter opens.
//! The default is `wgpu` on a hardware adapter, else `cpu` (a software adapter such as lavapipe
//! works when chosen explicitly); `TIDYTENSOR_BACKEND=cpu|wgpu` overrides.

use crate::engine;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::{Arc, OnceLock};
use tidytensor_core::{bail, Engine};
use tidytensor_cpu::CpuBackend;
use tidytensor_wgpu::WgpuBackend;

/// The process-wide wgpu backend, or why there is none (opened once: creating a Vulkan
/// instance costs tens of milliseconds).
fn gpu() -> &'static std::result::Result<WgpuBackend, String> {
    static GPU: OnceLock<std::result::Result<WgpuBackend, String>> = OnceLock::new();
    GPU.get_or_init(|| WgpuBackend::new().map_err(|e| e.0))
}

fn register_wgpu(e: &mut Engine) -> tidytensor_core::Result<()> {
    match gpu() {
        Ok(g) => {
            e.register_backend(Arc::new(g.clone()));
            Ok(())
        }
        Err(why) => bail!("The wgpu backend is not available: {why}"),
    }
}

/// Registers the backends into a new thread's engine and picks the active one.
pub(crate) fn init(e: &mut Engine) -> tidytensor_core::Result<()> {
    e.register_backend(Arc::new(CpuBackend::new()));
    match std::env::var("TIDYTENSOR_BACKEND").ok().as_deref().filter(|v| !v.is_empty()) {
        Some("wgpu") => {
            register_wgpu(e)?;
            e.set_backend("wgpu")
        }
        Some(name) => e.set_backend(name),
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

#[napi]
pub fn get_backend() -> Result<String> {
    engine(|e| Ok(e.backend_name().unwrap_or_default().to_string()))
}

#[napi]
pub fn set_backend(name: String) -> Result<()> {
    engine(|e| {
        if name == "wgpu" && !e.backend_names().contains(&"wgpu") {
            register_wgpu(e)?;
        }
        e.set_backend(&name)
    })
}

#[napi]
pub fn backend_names() -> Result<Vec<String>> {
    engine(|e| Ok(e.backend_names().into_iter().map(String::from).collect()))
}

/// What `tf.backend()` reports about the active backend: its name and, for wgpu, the adapter
/// and the limits that matter to tensors.
#[napi(object)]
pub struct BackendInfo {
    pub name: String,
    pub adapter: Option<String>,
    pub device_type: Option<String>,
    pub driver: Option<String>,
    pub driver_info: Option<String>,
    pub api: Option<String>,
    pub is_hardware: Option<bool>,
    pub max_storage_buffer_binding_size: Option<f64>,
    pub max_buffer_size: Option<f64>,
    pub max_compute_workgroups_per_dimension: Option<u32>,
}

#[napi]
pub fn backend_info() -> Result<BackendInfo> {
    let name = engine(|e| Ok(e.backend_name().unwrap_or_default().to_string()))?;
    let mut info = BackendInfo {
        name,
        adapter: None,
        device_type: None,
        driver: None,
        driver_info: None,
        api: None,
        is_hardware: None,
        max_storage_buffer_binding_size: None,
        max_buffer_size: None,
        max_compute_workgroups_per_dimension: None,
    };
    if info.name == "wgpu" {
        if let Ok(g) = gpu() {
            let i = g.info();
            info.adapter = Some(i.name);
            info.device_type = Some(i.device_type);
            info.driver = Some(i.driver);
            info.driver_info = Some(i.driver_info);
            info.api = Some(i.backend);
            info.is_hardware = Some(g.is_hardware());
            info.max_storage_buffer_binding_size = Some(i.max_storage_buffer_binding_size as f64);
            info.max_buffer_size = Some(i.max_buffer_size as f64);
            info.max_compute_workgroups_per_dimension = Some(i.max_compute_workgroups_per_dimension);
        }
    }
    Ok(info)
}

/// Frees the buffers every backend keeps for reuse that no tensor holds
/// (`numBytesInGPUFree` and `numBytesInBackendFree` drop to 0).
#[napi]
pub fn release_pool() -> Result<()> {
    engine(|e| e.release_pools())
}
