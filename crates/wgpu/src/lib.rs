//! The `wgpu` backend: tensor values in GPU storage buffers, WGSL compute kernels.
//!
//! * One process-wide device ([`WgpuBackend::new`] hands out `Arc` clones of it), opened on
//!   the high-performance adapter with the adapter's full limits. `WGPU_BACKEND` chooses the
//!   wgpu backend; by default Vulkan only on Linux (lavapipe when there is no GPU).
//! * Storage: pooled buffers (`STORAGE | COPY_SRC | COPY_DST`) in size classes of 4 per octave;
//!   dropping a storage returns its buffer to the pool, reusable once the commands that may
//!   use it are submitted (see [`pool`]).
//! * Dispatches are batched: recorded, then encoded into one command encoder / compute pass
//!   and submitted every [`device::BATCH`] dispatches or at a readback. Kernel parameters live
//!   in one uniform buffer per submit, one 256-byte slot per dispatch (dynamic offsets).
//! * Element layout: float32 `f32`, int32 `i32`, bool `u32` (0/1), so a bool tensor of n
//!   elements takes 4n bytes on the GPU. Upload and readback convert bool ⇄ u32.
//! * `memory()` adds `numBytesInGPU` (4 bytes × elements of every live tensor storage made on
//!   the calling thread: the bytes tensors asked for, as tfjs-webgpu counts them, not the
//!   pool's rounded class size), and, device-wide since every thread shares the pools,
//!   `numBytesInGPUAllocated` (class bytes of every buffer the pools own: in use, waiting for
//!   a submit, free; staging buffers for readback included) and `numBytesInGPUFree` (class
//!   bytes of pooled buffers no tensor holds).
//! * Every tensor must fit one storage binding (128 MiB on lavapipe, larger on most GPUs);
//!   larger ones are refused with an error.

mod device;
mod kernels;
mod pool;

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tidytensor_core::{
    bail, Activation, ArgOp, Backend, BackendMemory, BinaryOp, ConvGeom, CumOp, DType, HostData, PoolOp, ReadDone,
    ReduceOp, Result, StepRule, Storage, Taps, UnaryOp, View,
};

use device::{Gpu, RawBuf};

thread_local! {
    /// Bytes of the live storages made on this thread: `numBytesInGPU` counts the calling
    /// thread's tensors, as the engine's own counts do (each worker has its own engine).
    static THREAD_BYTES: Arc<AtomicU64> = Arc::default();
}

/// One tensor's values in a pooled GPU buffer.
pub struct WgpuStorage {
    gpu: Arc<Gpu>,
    raw: RawBuf,
    len: usize,
    dtype: DType,
    /// The making thread's byte count; a storage may be dropped on another thread (the reader
    /// thread finishing a read that outlived `dispose`).
    owner: Arc<AtomicU64>,
}

impl WgpuStorage {
    fn new(gpu: Arc<Gpu>, raw: RawBuf, len: usize, dtype: DType) -> WgpuStorage {
        let owner = THREAD_BYTES.try_with(Arc::clone).unwrap_or_default();
        owner.fetch_add(len as u64 * 4, Ordering::Relaxed);
        WgpuStorage { gpu, raw, len, dtype, owner }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }
}

impl Drop for WgpuStorage {
    fn drop(&mut self) {
        self.owner.fetch_sub(self.len as u64 * 4, Ordering::Relaxed);
        // A placeholder keeps `raw` valid until the pool takes the real buffer.
        let raw = RawBuf { buf: self.raw.buf.clone(), class: self.raw.class, bytes: self.raw.bytes };
        self.gpu.release(raw);
    }
}

impl Storage for WgpuStorage {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The storage behind a kernel input, checked to be ours, of the stated dtype and size.
fn storage<'a>(x: &View<'a>) -> Result<&'a WgpuStorage> {
    let s: &'a dyn Storage = x.storage;
    let Some(s) = s.as_any().downcast_ref::<WgpuStorage>() else {
        bail!("The wgpu backend was given a tensor whose data lives on another backend");
    };
    if s.dtype != x.dtype {
        bail!("wgpu backend: tensor data is {} but the tensor claims dtype {}", s.dtype.name(), x.dtype.name());
    }
    if s.len != x.size() {
        bail!(
            "wgpu backend: tensor data has {} values but shape [{}] needs {}",
            s.len,
            tidytensor_core::shape::fmt(x.shape),
            x.size()
        );
    }
    Ok(s)
}

/// What [`WgpuBackend::info`] reports about the adapter.
#[derive(Clone, Debug)]
pub struct GpuInfo {
    pub name: String,
    pub driver: String,
    pub driver_info: String,
    /// wgpu backend: "Vulkan", "Metal", "Dx12", …
    pub backend: String,
    /// "DiscreteGpu", "IntegratedGpu", "VirtualGpu", "Cpu" or "Other".
    pub device_type: String,
    pub max_storage_buffer_binding_size: u64,
    pub max_buffer_size: u64,
    pub max_compute_workgroups_per_dimension: u32,
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroup_storage_size: u32,
}

/// The wgpu backend. Cheap to clone; every instance shares the process-wide device.
#[derive(Clone)]
pub struct WgpuBackend {
    gpu: Arc<Gpu>,
}

impl WgpuBackend {
    /// Opens (once per process) the GPU device; an `Err` when no adapter is available.
    pub fn new() -> Result<WgpuBackend> {
        Ok(WgpuBackend { gpu: device::gpu()? })
    }

    /// True unless the adapter is a software (CPU) implementation such as lavapipe.
    pub fn is_hardware(&self) -> bool {
        self.gpu.info.device_type != wgpu::DeviceType::Cpu
    }

    /// (name, driver, driver_info, backend) of the adapter.
    pub fn adapter_info(&self) -> (String, String, String, String) {
        let i = &self.gpu.info;
        (i.name.clone(), i.driver.clone(), i.driver_info.clone(), format!("{:?}", i.backend))
    }

    /// Adapter description and the limits that matter to tensors.
    pub fn info(&self) -> GpuInfo {
        let (i, l) = (&self.gpu.info, &self.gpu.limits);
        GpuInfo {
            name: i.name.clone(),
            driver: i.driver.clone(),
            driver_info: i.driver_info.clone(),
            backend: format!("{:?}", i.backend),
            device_type: format!("{:?}", i.device_type),
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_buffer_size: l.max_buffer_size,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
            max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_compute_workgroup_storage_size: l.max_compute_workgroup_storage_size,
        }
    }

    /// Submits recorded work now (reads do this themselves).
    pub fn flush(&self) -> Result<()> {
        let mut st = self.gpu.state()?;
        self.gpu.flush(&mut st)?;
        Ok(())
    }

    /// Submits recorded work and waits until the GPU has finished it (for timing).
    pub fn synchronize(&self) -> Result<()> {
        let idx = {
            let mut st = self.gpu.state()?;
            self.gpu.flush(&mut st)?
        };
        self.gpu
            .device
            .poll(wgpu::PollType::Wait { submission_index: idx, timeout: None })
            .map_err(|e| tidytensor_core::Error::new(format!("wgpu backend: waiting for the GPU failed: {e}")))?;
        self.gpu.check_errors()
    }

    fn upload_words(&self, words: &[u8], len: usize, dtype: DType) -> Result<Box<dyn Storage>> {
        let gpu = &self.gpu;
        let raw = {
            let mut st = gpu.state()?;
            let raw = gpu.alloc(&mut st, len as u64 * 4)?;
            // The buffer came from the free list (no unsubmitted command uses it) or is new, so
            // the write, which runs at the start of the next submit, clobbers nothing.
            if !words.is_empty() {
                gpu.queue.write_buffer(&raw.buf, 0, words);
                if let Err(e) = gpu.staged(&mut st, words.len() as u64) {
                    gpu.give_back(&mut st, raw);
                    return Err(e);
                }
            }
            raw
        };
        Ok(Box::new(WgpuStorage::new(gpu.clone(), raw, len, dtype)))
    }
}

impl Backend for WgpuBackend {
    fn name(&self) -> &'static str {
        "wgpu"
    }

    fn upload(&self, data: HostData) -> Result<Box<dyn Storage>> {
        let len = data.len();
        self.gpu.check_size(len as u64 * 4)?;
        match data {
            HostData::F32(v) => self.upload_words(bytemuck::cast_slice(&v), len, DType::Float32),
            HostData::I32(v) => self.upload_words(bytemuck::cast_slice(&v), len, DType::Int32),
            HostData::Bool(v) => {
                let w: Vec<u32> = v.iter().map(|&b| (b != 0) as u32).collect();
                self.upload_words(bytemuck::cast_slice(&w), len, DType::Bool)
            }
        }
    }

    fn read(&self, x: View) -> Result<HostData> {
        let s = storage(&x)?;
        let bytes = self.gpu.read_bytes(&s.raw.buf, s.len as u64 * 4)?;
        Ok(host_data(s.dtype, &bytes))
    }

    /// Submits the copy now, then waits for it on the background reader thread (never on the
    /// caller's: in Node that is the JS thread, and the libuv pool stays free too).
    fn read_async(&self, x: View, done: ReadDone) {
        let started = storage(&x).and_then(|s| Ok((s.dtype, self.gpu.start_read(&s.raw.buf, s.len as u64 * 4)?)));
        match started {
            Err(e) => done(Err(e)),
            Ok((dtype, None)) => done(Ok(host_data(dtype, &[]))),
            Ok((dtype, Some(pending))) => match reader(&self.gpu) {
                Some(tx) => {
                    if let Err(std::sync::mpsc::SendError(job)) = tx.send(ReadJob { pending, dtype, done }) {
                        job.finish(&self.gpu);
                    }
                }
                None => ReadJob { pending, dtype, done }.finish(&self.gpu),
            },
        }
    }

    fn memory(&self) -> BackendMemory {
        let live = THREAD_BYTES.try_with(|b| b.load(Ordering::Relaxed)).unwrap_or(0);
        let (allocated, free) = self.gpu.memory();
        BackendMemory {
            unreliable: false,
            reasons: Vec::new(),
            fields: vec![
                ("numBytesInGPU", live as f64),
                ("numBytesInGPUAllocated", allocated as f64),
                ("numBytesInGPUFree", free as f64),
            ],
        }
    }

    /// The largest storage binding: kernels bind a whole tensor.
    fn max_tensor_bytes(&self) -> usize {
        usize::try_from(self.gpu.max_binding()).unwrap_or(usize::MAX)
    }

    /// A software adapter (lavapipe) keeps buffers in host memory, which the OS grants lazily;
    /// a GPU's own memory reports exhaustion as an error when a buffer is created.
    fn available_bytes(&self) -> Option<usize> {
        if self.is_hardware() {
            None
        } else {
            tidytensor_core::host_memory::available()
        }
    }

    /// Submits pending work and frees every pooled buffer no tensor holds.
    fn release_pool(&self) -> Result<()> {
        self.gpu.release_pool()
    }

    fn synchronize(&self) -> Result<()> {
        WgpuBackend::synchronize(self)
    }

    fn fill(&self, len: usize, value: f64, dtype: DType) -> Result<Box<dyn Storage>> {
        kernels::fill(&self.gpu, len, value, dtype)
    }

    fn cast(&self, x: View, dtype: DType) -> Result<Box<dyn Storage>> {
        kernels::cast(&self.gpu, storage(&x)?, dtype)
    }

    fn unary(&self, op: UnaryOp, x: View) -> Result<Box<dyn Storage>> {
        kernels::unary(&self.gpu, op, storage(&x)?)
    }

    fn binary(&self, op: BinaryOp, a: View, b: View, out_shape: &[usize], out: DType) -> Result<Box<dyn Storage>> {
        kernels::binary(&self.gpu, op, (storage(&a)?, a.shape), (storage(&b)?, b.shape), out_shape, out)
    }

    /// One more dispatch, in place on the product's buffer.
    fn fused_epilogue(
        &self,
        y: Box<dyn Storage>,
        rows: usize,
        channels: usize,
        bias: Option<View>,
        act: Activation,
        alpha: Option<View>,
    ) -> Result<Box<dyn Storage>> {
        let shape = [rows, channels];
        storage(&View { storage: &*y, shape: &shape, dtype: DType::Float32 })?;
        let ys = y.as_any().downcast_ref::<WgpuStorage>().expect("checked above");
        let (bias, alpha) = (bias.map(|b| storage(&b)).transpose()?, alpha.map(|a| storage(&a)).transpose()?);
        kernels::fused_epilogue(&self.gpu, ys, channels, bias, act, alpha)?;
        Ok(y)
    }

    fn select(&self, cond: View, a: View, b: View, out_shape: &[usize]) -> Result<Box<dyn Storage>> {
        let inputs = [(storage(&cond)?, cond.shape), (storage(&a)?, a.shape), (storage(&b)?, b.shape)];
        kernels::select(&self.gpu, inputs, out_shape)
    }

    fn matmul(&self, a: View, b: View, transpose_a: bool, transpose_b: bool) -> Result<Box<dyn Storage>> {
        kernels::matmul(&self.gpu, (storage(&a)?, a.shape), (storage(&b)?, b.shape), transpose_a, transpose_b)
    }

    fn conv(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        kernels::conv(&self.gpu, storage(&x)?, storage(&filter)?, g)
    }

    fn conv_input_grad(&self, dy: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        kernels::conv_input_grad(&self.gpu, storage(&dy)?, storage(&filter)?, g)
    }

    fn depthwise_conv(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        kernels::window(&self.gpu, kernels::Fold::Depthwise, storage(&x)?, Some(storage(&filter)?), g, false)
    }

    fn dilation(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        kernels::window(&self.gpu, kernels::Fold::Dilation, storage(&x)?, Some(storage(&filter)?), g, false)
    }

    fn pool(&self, op: PoolOp, x: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        kernels::window(&self.gpu, kernels::Fold::Pool(op), storage(&x)?, None, g, false)
    }

    fn max_pool_positions(&self, x: View, g: &ConvGeom, include_batch: bool) -> Result<Box<dyn Storage>> {
        kernels::window(&self.gpu, kernels::Fold::Positions, storage(&x)?, None, g, include_batch)
    }

    fn lrn(
        &self,
        x: View,
        channels: usize,
        radius: usize,
        bias: f64,
        alpha: f64,
        beta: f64,
    ) -> Result<Box<dyn Storage>> {
        kernels::lrn(&self.gpu, storage(&x)?, channels, radius, [bias, alpha, beta])
    }

    /// The taps travel as one small u32 buffer (row lo, hi, frac bits, then the columns').
    fn resample(&self, x: View, dims: [usize; 4], rows: &Taps, cols: &Taps) -> Result<Box<dyn Storage>> {
        let mut table: Vec<i32> = Vec::with_capacity(3 * (rows.lo.len() + cols.lo.len()));
        for t in [rows, cols] {
            table.extend(t.lo.iter().map(|&v| v as i32));
            table.extend(t.hi.iter().map(|&v| v as i32));
            table.extend(t.frac.iter().map(|f| f.to_bits() as i32));
        }
        let len = table.len();
        let taps = self.upload(HostData::I32(table))?;
        let shape = [len];
        let taps = storage(&View { storage: &*taps, shape: &shape, dtype: DType::Int32 })?;
        kernels::resample(&self.gpu, storage(&x)?, taps, dims, [rows.lo.len(), cols.lo.len()])
    }

    fn reduce(&self, op: ReduceOp, x: View, outer: usize, inner: usize, out: DType) -> Result<Box<dyn Storage>> {
        kernels::reduce(&self.gpu, op, storage(&x)?, outer, inner, out)
    }

    fn arg_reduce(&self, op: ArgOp, x: View, outer: usize, axis: usize, inner: usize) -> Result<Box<dyn Storage>> {
        kernels::arg_reduce(&self.gpu, op, storage(&x)?, outer, axis, inner)
    }

    fn softmax(&self, x: View, outer: usize, inner: usize) -> Result<Box<dyn Storage>> {
        kernels::softmax(&self.gpu, storage(&x)?, outer, inner)
    }

    /// The indices by a selection kernel, then the values gathered by them.
    fn topk(&self, x: View, rows: usize, len: usize, k: usize) -> Result<(Box<dyn Storage>, Box<dyn Storage>)> {
        let xs = storage(&x)?;
        let indices = kernels::topk_indices(&self.gpu, xs, rows, len, k)?;
        let iv = View { storage: &*indices, shape: &[rows, k], dtype: DType::Int32 };
        let values = kernels::gather(&self.gpu, xs, storage(&iv)?, [rows, 1, len, 1])?;
        Ok((values, indices))
    }

    fn cumulative(
        &self,
        op: CumOp,
        x: View,
        outer: usize,
        len: usize,
        flags: (bool, bool),
        out: DType,
    ) -> Result<Box<dyn Storage>> {
        kernels::cumulative(&self.gpu, op, storage(&x)?, outer, len, flags, out)
    }

    fn scatter(
        &self,
        base: Option<View>,
        rows: View,
        updates: View,
        num_rows: usize,
        sum: bool,
    ) -> Result<Box<dyn Storage>> {
        let base = base.as_ref().map(storage).transpose()?;
        let slice = updates.shape.get(1).copied().unwrap_or(1);
        kernels::scatter(&self.gpu, base, storage(&rows)?, (storage(&updates)?, slice), num_rows, sum)
    }

    fn transpose(&self, x: View, perm: &[usize]) -> Result<Box<dyn Storage>> {
        kernels::transpose(&self.gpu, storage(&x)?, x.shape, perm)
    }

    fn slice(&self, x: View, begin: &[usize], size: &[usize]) -> Result<Box<dyn Storage>> {
        kernels::slice(&self.gpu, storage(&x)?, x.shape, begin, size)
    }

    fn concat(&self, inputs: &[View], outer: usize) -> Result<Box<dyn Storage>> {
        let s = inputs.iter().map(storage).collect::<Result<Vec<_>>>()?;
        kernels::concat(&self.gpu, &s, outer)
    }

    fn gather(&self, x: View, indices: View, dims: [usize; 4]) -> Result<Box<dyn Storage>> {
        kernels::gather(&self.gpu, storage(&x)?, storage(&indices)?, dims)
    }

    fn one_hot(&self, indices: View, depth: usize, on: f64, off: f64, dtype: DType) -> Result<Box<dyn Storage>> {
        kernels::one_hot(&self.gpu, storage(&indices)?, depth, on, off, dtype)
    }

    fn optimizer_step(
        &self,
        rule: &StepRule,
        value: View,
        grad: View,
        state: &[View],
    ) -> Result<Vec<Box<dyn Storage>>> {
        let s = state.iter().map(storage).collect::<Result<Vec<_>>>()?;
        kernels::optimizer_step(&self.gpu, rule, storage(&value)?, storage(&grad)?, &s, value.size())
    }
}

/// GPU words back to host values (bool is one u32 per element on the GPU).
fn host_data(dtype: DType, bytes: &[u8]) -> HostData {
    match dtype {
        DType::Float32 => HostData::F32(bytemuck::pod_collect_to_vec(bytes)),
        DType::Int32 => HostData::I32(bytemuck::pod_collect_to_vec(bytes)),
        DType::Bool => {
            let w: Vec<u32> = bytemuck::pod_collect_to_vec(bytes);
            HostData::Bool(w.iter().map(|&b| (b != 0) as u8).collect())
        }
        d @ (DType::String | DType::Complex64) => tidytensor_core::numeric_only(d),
    }
}

/// An asynchronous read whose copy has been submitted.
struct ReadJob {
    pending: device::PendingRead,
    dtype: DType,
    done: ReadDone,
}

impl ReadJob {
    /// Waits for the copy and hands the values (or the error, or a panic as an error) to `done`.
    fn finish(self, gpu: &Gpu) {
        let ReadJob { pending, dtype, done } = self;
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| gpu.finish_read(pending)))
            .unwrap_or_else(|_| Err(tidytensor_core::Error::new("wgpu backend: the readback panicked")));
        done(read.map(|b| host_data(dtype, &b)))
    }
}

/// The one thread that waits for asynchronous reads, in submission order (so many reads in
/// flight cost one thread, not one each). `None` if it could not be started.
fn reader(gpu: &Arc<Gpu>) -> Option<&'static std::sync::mpsc::Sender<ReadJob>> {
    static READER: std::sync::OnceLock<Option<std::sync::mpsc::Sender<ReadJob>>> = std::sync::OnceLock::new();
    READER
        .get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<ReadJob>();
            let gpu = gpu.clone();
            std::thread::Builder::new()
                .name("tidytensor-wgpu-reads".into())
                .spawn(move || {
                    for job in rx {
                        job.finish(&gpu);
                    }
                })
                .ok()
                .map(|_| tx)
        })
        .as_ref()
}
