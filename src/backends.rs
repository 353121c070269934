//! Backend selection for JavaScript: the policy itself lives in the `tidytensor-backends` crate.

use crate::engine;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_backends::gpu;

#[napi]
pub fn get_backend() -> Result<String> {
    engine(|e| Ok(e.backend_name().unwrap_or_default().to_string()))
}

#[napi]
pub fn set_backend(name: String) -> Result<()> {
    engine(|e| tidytensor_backends::set_backend(e, &name))
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

/// The cpu's single-precision FMA peak in GFLOP/s on all threads, measured for `ms`
/// milliseconds (the benchmarks print their targets against it; not part of the tfjs API).
#[napi]
pub fn fma_peak_gflops(ms: u32) -> f64 {
    tidytensor_backends::fma_peak_gflops(std::time::Duration::from_millis(ms as u64))
}

/// GOP/s of one int8 `n × n × n` product on the cpu (int32 sums; AVX-512 VNNI or AVX-VNNI where
/// the CPU has them), for the benchmarks: no tfjs op reaches it (not part of the tfjs API).
#[napi]
pub fn int8_mat_mul_gops(n: u32) -> f64 {
    tidytensor_backends::qgemm_gops(n as usize)
}
