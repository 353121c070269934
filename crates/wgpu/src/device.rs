//! The process-wide GPU: device and queue, pipeline cache, buffer pools, and the batch of
//! recorded-but-unsubmitted work.
//!
//! Work is recorded as a list of [`Op`]s, not straight into an encoder: at a flush (every
//! [`BATCH`] dispatches, at a readback, or when the pool is released) the list becomes one
//! command encoder with one compute pass per run of dispatches, one uniform buffer holding every
//! dispatch's parameters (each at its own 256-byte slot, bound with a dynamic offset), and one
//! `queue.submit`. Parameters are therefore written once per submit into a fresh buffer
//! (`create_buffer_init`, i.e. mapped at creation), never rewritten while commands that read
//! them are pending.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use tidytensor_core::{bail, Error, Result};
use wgpu::util::DeviceExt;

use crate::pool::{size_class, Pool};

/// Dispatches recorded before a submit. tfjs-webgpu uses 15, CubeCL 32; lavapipe costs
/// ~60-80 µs per dispatch whatever the batch, and a real GPU starts work sooner with a
/// moderate batch.
pub(crate) const BATCH: usize = 32;
/// Bytes of uploads (`queue.write_buffer`) after which the batch is submitted: wgpu keeps each
/// upload in staging memory until a submit, so a loop that only creates and disposes tensors
/// would otherwise grow memory without bound.
pub(crate) const STAGED_FLUSH_BYTES: u64 = 32 << 20;
/// Parameter words per dispatch (a 256-byte uniform slot); 60 and 61 are NaN and +Infinity.
pub(crate) const PARAM_WORDS: usize = 64;
pub(crate) const USER_PARAM_WORDS: usize = 60;
/// Threads per workgroup of the 1-D elementwise kernels.
pub(crate) const WG: u32 = 256;

/// A pooled GPU buffer held by a tensor or a kernel temporary.
pub(crate) struct RawBuf {
    pub buf: wgpu::Buffer,
    pub class: u64,
    /// Bytes asked for (4-byte aligned, at least 4): what bindings and copies cover.
    pub bytes: u64,
}

enum Op {
    Dispatch {
        pipeline: wgpu::ComputePipeline,
        layout: wgpu::BindGroupLayout,
        n_inputs: usize,
        /// Inputs then output, with their binding sizes.
        buffers: Vec<(wgpu::Buffer, u64)>,
        slot: u32,
        groups: (u32, u32, u32),
    },
    Copy {
        src: wgpu::Buffer,
        src_offset: u64,
        dst: wgpu::Buffer,
        dst_offset: u64,
        size: u64,
    },
}

/// The layouts shared by every kernel with the same number of inputs.
#[derive(Clone)]
struct Layout {
    bind_group: wgpu::BindGroupLayout,
    pipeline: wgpu::PipelineLayout,
}

pub(crate) struct State {
    pub storage: Pool,
    pub staging: Pool,
    ops: Vec<Op>,
    params: Vec<u32>,
    dispatches: usize,
    /// Bytes uploaded since the last submit.
    staged: u64,
}

pub(crate) struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    /// Bind group and pipeline layouts by number of inputs, made on first use.
    layouts: Mutex<HashMap<usize, Layout>>,
    pipelines: Mutex<HashMap<String, wgpu::ComputePipeline>>,
    state: Mutex<State>,
    /// Uncaptured wgpu errors since the last check.
    errors: Arc<Mutex<Vec<String>>>,
    lost: Arc<Mutex<Option<String>>>,
    param_stride: u64,
}

static GPU: OnceLock<std::result::Result<Arc<Gpu>, String>> = OnceLock::new();

/// The shared device, created on first use. An error (no adapter) is remembered.
pub(crate) fn gpu() -> Result<Arc<Gpu>> {
    GPU.get_or_init(|| Gpu::init().map(Arc::new)).clone().map_err(Error::new)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Gpu {
    fn init() -> std::result::Result<Gpu, String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        // Vulkan on Linux (software Vulkan = lavapipe); GL is not compiled in. WGPU_BACKEND
        // (via `with_env`) overrides the set.
        desc.backends = if cfg!(any(target_os = "linux", target_os = "android", target_os = "windows")) {
            if cfg!(target_os = "windows") {
                wgpu::Backends::VULKAN | wgpu::Backends::DX12
            } else {
                wgpu::Backends::VULKAN
            }
        } else {
            wgpu::Backends::PRIMARY
        };
        let desc = desc.with_env();
        let instance = wgpu::Instance::new(desc);
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| format!("wgpu backend: no GPU adapter found ({e})"))?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("tidytensor"),
            required_features: wgpu::Features::empty(),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| format!("wgpu backend: could not open the GPU device {} ({e})", info.name))?;

        let errors: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut v = lock(&sink);
            if v.len() < 16 {
                v.push(e.to_string());
            }
        }));
        let lost: Arc<Mutex<Option<String>>> = Arc::default();
        let sink = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            *lock(&sink) = Some(format!("{reason:?}: {msg}"));
        });

        let param_stride = (PARAM_WORDS as u64 * 4).max(limits.min_uniform_buffer_offset_alignment as u64);
        Ok(Gpu {
            device,
            queue,
            info,
            limits,
            layouts: Mutex::default(),
            pipelines: Mutex::default(),
            state: Mutex::new(State {
                storage: Pool::default(),
                staging: Pool::default(),
                ops: Vec::new(),
                params: Vec::new(),
                dispatches: 0,
                staged: 0,
            }),
            errors,
            lost,
            param_stride,
        })
    }

    fn check_lost(&self) -> Result<()> {
        if let Some(why) = &*lock(&self.lost) {
            bail!("wgpu backend: the GPU device was lost ({why}); GPU tensors are gone, restart the process or use the cpu backend");
        }
        Ok(())
    }

    /// Errors wgpu reported outside error scopes since the last call, as one `Err`.
    pub fn check_errors(&self) -> Result<()> {
        self.check_lost()?;
        let errs = std::mem::take(&mut *lock(&self.errors));
        if !errs.is_empty() {
            bail!("wgpu backend: GPU error: {}", errs.join("; "));
        }
        Ok(())
    }

    /// The batch state, or an error once the device is lost.
    pub fn state(&self) -> Result<MutexGuard<'_, State>> {
        self.check_lost()?;
        Ok(lock(&self.state))
    }

    /// The layouts of a kernel with `n_inputs` read-only storage inputs, one read-write output
    /// and the parameter block. More inputs than the GPU can bind is an error, not a panic.
    fn layout(&self, n_inputs: usize) -> Result<Layout> {
        let max = self.limits.max_storage_buffers_per_shader_stage as usize;
        if n_inputs + 1 > max {
            bail!(
                "wgpu backend: a kernel with {n_inputs} inputs needs more storage buffers than this GPU binds ({max})"
            );
        }
        let mut layouts = lock(&self.layouts);
        if let Some(l) = layouts.get(&n_inputs) {
            return Ok(l.clone());
        }
        let mut entries: Vec<wgpu::BindGroupLayoutEntry> = (0..=n_inputs)
            .map(|b| wgpu::BindGroupLayoutEntry {
                binding: b as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: b < n_inputs },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: n_inputs as u32 + 1,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: true,
                min_binding_size: wgpu::BufferSize::new(PARAM_WORDS as u64 * 4),
            },
            count: None,
        });
        let bind_group =
            self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: None, entries: &entries });
        let pipeline = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&bind_group)],
            immediate_size: 0,
        });
        let l = Layout { bind_group, pipeline };
        layouts.insert(n_inputs, l.clone());
        Ok(l)
    }

    pub fn max_binding(&self) -> u64 {
        self.limits.max_storage_buffer_binding_size.min(self.limits.max_buffer_size)
    }

    /// Refuses a buffer larger than one storage binding may be.
    pub fn check_size(&self, bytes: u64) -> Result<()> {
        let max = self.max_binding();
        if bytes > max {
            bail!("wgpu backend: tensor of {bytes} bytes exceeds the GPU's max storage binding size of {max} bytes");
        }
        Ok(())
    }

    /// A storage buffer of at least `bytes` bytes from the pool (or a new one).
    pub fn alloc(&self, st: &mut State, bytes: u64) -> Result<RawBuf> {
        let bytes = bytes.max(4).next_multiple_of(4);
        self.check_size(bytes)?;
        let mut class = size_class(bytes);
        if class > self.limits.max_buffer_size {
            class = bytes;
        }
        if let Some(buf) = st.storage.take(class) {
            return Ok(RawBuf { buf, class, bytes });
        }
        let buf = self.create(
            class,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            st,
        )?;
        st.storage.created(class);
        Ok(RawBuf { buf, class, bytes })
    }

    /// Creates a buffer; out of memory becomes an `Err` (after one retry with the pool emptied).
    fn create(&self, size: u64, usage: wgpu::BufferUsages, st: &mut State) -> Result<wgpu::Buffer> {
        for attempt in 0..2 {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage,
                mapped_at_creation: false,
            });
            match pollster::block_on(scope.pop()) {
                None => return Ok(buf),
                Some(e) if attempt == 0 => {
                    let _ = e;
                    st.storage.release_free();
                    st.staging.release_free();
                }
                Some(e) => bail!("wgpu backend: out of GPU memory allocating {size} bytes ({e})"),
            }
        }
        unreachable!("the loop returns")
    }

    /// Gives a buffer back to the pool; reusable after the next submit if work is pending.
    pub fn give_back(&self, st: &mut State, b: RawBuf) {
        let deferred = !st.ops.is_empty();
        st.storage.give_back(b.class, b.buf, deferred);
    }

    /// Gives a tensor's buffer back (from `Drop`, so it takes the lock itself).
    pub fn release(&self, b: RawBuf) {
        let mut st = lock(&self.state);
        self.give_back(&mut st, b);
    }

    /// The pipeline for `key`, compiled from `source()` on first use. A shader or pipeline
    /// that wgpu rejects is an `Err`, never a panic.
    pub fn pipeline(
        &self,
        key: &str,
        n_inputs: usize,
        source: impl FnOnce() -> String,
    ) -> Result<wgpu::ComputePipeline> {
        if let Some(p) = lock(&self.pipelines).get(key) {
            return Ok(p.clone());
        }
        let layout = self.layout(n_inputs)?;
        let src = source();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(key),
            source: wgpu::ShaderSource::Wgsl(src.into()),
        });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(key),
            layout: Some(&layout.pipeline),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            bail!("wgpu backend: could not build the GPU kernel '{key}': {e}");
        }
        lock(&self.pipelines).insert(key.to_string(), pipeline.clone());
        Ok(pipeline)
    }

    /// Workgroup grid for `groups` workgroups of a 1-D launch: more than the per-dimension
    /// limit (65,535) spills into y; shaders compute the flat index and bounds-check it.
    pub fn grid(&self, groups: u64) -> Result<(u32, u32, u32)> {
        let max = self.limits.max_compute_workgroups_per_dimension as u64;
        let groups = groups.max(1);
        if groups <= max {
            return Ok((groups as u32, 1, 1));
        }
        let y = groups.div_ceil(max);
        if y > max {
            bail!("wgpu backend: a launch of {groups} workgroups exceeds the GPU's grid limits");
        }
        Ok((max as u32, y as u32, 1))
    }

    /// Records one dispatch: `inputs` then `output` are bound at 0..=n; `params` (at most 60
    /// words) go to the uniform slot.
    pub fn dispatch(
        &self,
        st: &mut State,
        pipeline: wgpu::ComputePipeline,
        inputs: &[(&wgpu::Buffer, u64)],
        output: (&wgpu::Buffer, u64),
        params: &[u32],
        groups: (u32, u32, u32),
    ) -> Result<()> {
        if params.len() > USER_PARAM_WORDS {
            bail!("wgpu backend: a kernel passed {} parameter words (at most {USER_PARAM_WORDS})", params.len());
        }
        let layout = self.layout(inputs.len())?.bind_group;
        let words = (self.param_stride / 4) as usize;
        let slot = (st.params.len() / words) as u32;
        let start = st.params.len();
        st.params.resize(start + words, 0);
        st.params[start..start + params.len()].copy_from_slice(params);
        st.params[start + 60] = f32::NAN.to_bits();
        st.params[start + 61] = f32::INFINITY.to_bits();
        let mut buffers: Vec<(wgpu::Buffer, u64)> = inputs.iter().map(|(b, s)| ((*b).clone(), *s)).collect();
        buffers.push((output.0.clone(), output.1));
        st.ops.push(Op::Dispatch { pipeline, layout, n_inputs: inputs.len(), buffers, slot, groups });
        st.dispatches += 1;
        Ok(())
    }

    /// Records a buffer-to-buffer copy (4-byte aligned offsets and size).
    pub fn copy(
        &self,
        st: &mut State,
        src: &wgpu::Buffer,
        src_offset: u64,
        dst: &wgpu::Buffer,
        dst_offset: u64,
        size: u64,
    ) {
        if size > 0 {
            st.ops.push(Op::Copy { src: src.clone(), src_offset, dst: dst.clone(), dst_offset, size });
        }
    }

    /// Records `bytes` uploaded with `queue.write_buffer`; submits once enough are staged.
    pub fn staged(&self, st: &mut State, bytes: u64) -> Result<()> {
        st.staged += bytes;
        if st.staged >= STAGED_FLUSH_BYTES {
            self.flush(st)?;
        }
        Ok(())
    }

    /// Submits when the batch is full.
    pub fn maybe_flush(&self, st: &mut State) -> Result<()> {
        if st.dispatches >= BATCH {
            self.flush(st)?;
        }
        Ok(())
    }

    /// Encodes and submits everything recorded; pending buffers become reusable.
    pub fn flush(&self, st: &mut State) -> Result<Option<wgpu::SubmissionIndex>> {
        if st.ops.is_empty() {
            st.storage.submitted();
            if st.staged == 0 {
                return Ok(None);
            }
            // Only uploads are pending: an empty submit performs them and lets wgpu free their
            // staging memory.
            st.staged = 0;
            let idx = self.queue.submit([]);
            let _ = self.device.poll(wgpu::PollType::Poll);
            return Ok(Some(idx));
        }
        st.staged = 0;
        let ops = std::mem::take(&mut st.ops);
        let params = std::mem::take(&mut st.params);
        st.dispatches = 0;
        let uniforms = (!params.is_empty()).then(|| {
            self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("tidytensor params"),
                contents: bytemuck::cast_slice(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            })
        });
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let mut i = 0;
        while i < ops.len() {
            match &ops[i] {
                Op::Copy { src, src_offset, dst, dst_offset, size } => {
                    enc.copy_buffer_to_buffer(src, *src_offset, dst, *dst_offset, *size);
                    i += 1;
                }
                Op::Dispatch { .. } => {
                    let mut pass =
                        enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
                    while let Some(Op::Dispatch { pipeline, layout, n_inputs, buffers, slot, groups }) = ops.get(i) {
                        let ubuf = uniforms.as_ref().expect("dispatches have parameters");
                        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
                            .iter()
                            .enumerate()
                            .map(|(b, (buf, size))| wgpu::BindGroupEntry {
                                binding: b as u32,
                                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                    buffer: buf,
                                    offset: 0,
                                    size: wgpu::BufferSize::new(*size),
                                }),
                            })
                            .collect();
                        entries.push(wgpu::BindGroupEntry {
                            binding: *n_inputs as u32 + 1,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: ubuf,
                                offset: 0,
                                size: wgpu::BufferSize::new(PARAM_WORDS as u64 * 4),
                            }),
                        });
                        let bg = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: None,
                            layout,
                            entries: &entries,
                        });
                        pass.set_pipeline(pipeline);
                        pass.set_bind_group(0, &bg, &[(*slot as u64 * self.param_stride) as u32]);
                        pass.dispatch_workgroups(groups.0, groups.1, groups.2);
                        i += 1;
                    }
                }
            }
        }
        let idx = self.queue.submit([enc.finish()]);
        st.storage.submitted();
        st.staging.submitted();
        Ok(Some(idx))
    }

    /// Copies `bytes` bytes of `src` back to the host: submits pending work, copies into a
    /// MAP_READ staging buffer, maps it and waits.
    pub fn read_bytes(&self, src: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>> {
        match self.start_read(src, bytes)? {
            Some(pending) => self.finish_read(pending),
            None => Ok(Vec::new()),
        }
    }

    /// The first half of a read: records the copy into a staging buffer and submits it, so the
    /// source may be freed as soon as this returns. `None` for an empty read.
    pub fn start_read(&self, src: &wgpu::Buffer, bytes: u64) -> Result<Option<PendingRead>> {
        if bytes == 0 {
            return Ok(None);
        }
        let mut st = self.state()?;
        let class = size_class(bytes).max(bytes);
        let staging = match st.staging.take(class) {
            Some(b) => b,
            None => {
                let b = self.create(class, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST, &mut st)?;
                st.staging.created(class);
                b
            }
        };
        self.copy(&mut st, src, 0, &staging, 0, bytes);
        let idx = self.flush(&mut st)?;
        Ok(Some(PendingRead { staging, class, bytes, idx }))
    }

    /// The second half of a read: waits for the copy, maps and returns the bytes. Blocks; an
    /// asynchronous read runs it on a background thread.
    pub fn finish_read(&self, p: PendingRead) -> Result<Vec<u8>> {
        let result = self.map_read(&p.staging, p.bytes, p.idx);
        if result.is_ok() {
            lock(&self.state).staging.give_back(p.class, p.staging, false);
        } else {
            let mut st = lock(&self.state);
            st.staging.allocated -= p.class;
            p.staging.destroy();
        }
        let data = result?;
        self.check_errors()?;
        Ok(data)
    }

    fn map_read(&self, staging: &wgpu::Buffer, bytes: u64, idx: Option<wgpu::SubmissionIndex>) -> Result<Vec<u8>> {
        let (tx, rx) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, 0..bytes, move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::Wait { submission_index: idx, timeout: None })
            .map_err(|e| Error::new(format!("wgpu backend: waiting for the GPU failed: {e}")))?;
        self.check_lost()?;
        rx.recv()
            .map_err(|_| Error::new("wgpu backend: the GPU readback was cancelled"))?
            .map_err(|e| Error::new(format!("wgpu backend: mapping the readback buffer failed: {e}")))?;
        let data = {
            let view = staging
                .get_mapped_range(0..bytes)
                .map_err(|e| Error::new(format!("wgpu backend: reading the mapped buffer failed: {e:?}")))?;
            view.to_vec()
        };
        staging.unmap();
        Ok(data)
    }

    /// Submits pending work, then destroys every free pooled buffer.
    pub fn release_pool(&self) -> Result<()> {
        let mut st = self.state()?;
        self.flush(&mut st)?;
        st.storage.release_free();
        st.staging.release_free();
        Ok(())
    }

    /// (numBytesInGPU, numBytesInGPUAllocated, numBytesInGPUFree).
    /// (bytes of every buffer the pools own, bytes of the free ones): device-wide, since the
    /// pools are shared by every thread.
    pub fn memory(&self) -> (u64, u64) {
        let st = lock(&self.state);
        (st.storage.allocated + st.staging.allocated, st.storage.free_bytes + st.staging.free_bytes)
    }
}

/// A copy into a staging buffer that has been submitted and not yet read.
pub struct PendingRead {
    staging: wgpu::Buffer,
    class: u64,
    bytes: u64,
    idx: Option<wgpu::SubmissionIndex>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bad_shader_is_an_error_not_a_panic() {
        let g = match super::gpu() {
            Ok(g) => g,
            Err(e) if std::env::var("TIDYTENSOR_REQUIRE_WGPU").is_ok_and(|v| v == "1") => panic!("{e}"),
            Err(e) => return eprintln!("SKIPPED: {e}"),
        };
        let r = g.pipeline("broken", 1, || "@compute @workgroup_size(1) fn main( {".into());
        let msg = r.expect_err("a WGSL syntax error must fail").0;
        assert!(msg.contains("broken"), "{msg}");
        // A shader that parses but does not validate (wrong binding layout).
        let r = g.pipeline("mismatch", 1, || "@group(0) @binding(7) var<storage, read_write> Y: array<f32>;\n@compute @workgroup_size(1) fn main() { Y[0] = 1.0; }".into());
        assert!(r.is_err());
        g.check_errors().expect("errors inside scopes are not left for later");
    }
}
