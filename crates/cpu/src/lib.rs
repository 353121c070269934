//! The `cpu` backend: tensor values in native memory, kernels written in Rust, threads
//! (rayon) for large tensors only, and the `gemm` crate for matrix products.
//!
//! Every kernel returns fresh [`CpuStorage`]. The bytes held by live storage are counted per
//! thread ([`thread_live_bytes`], reported by [`Backend::memory`] as `numBytesInBackend`), so
//! each worker sees its own and tests can prove kernels free their temporaries.

mod conv;
mod convert;
mod creation;
mod direct_conv;
mod elementwise;
mod image;
mod layout;
mod matmul;
mod peak;
mod pool;
mod qgemm;
mod reduce;
mod train;

pub use peak::fma_peak_gflops;
pub use pool::recycle;
pub use qgemm::{qgemm, qgemm_gops};

use std::any::Any;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use tidytensor_core::{
    bail, Activation, ArgOp, Backend, BackendMemory, BatchNormParams, BinaryOp, ConvGeom, CumOp, DType, HostData,
    PoolOp, ReduceOp, Result, StepRule, Storage, Taps, UnaryOp, View,
};

// Hot loops are compiled for AVX-512 and AVX2 too with `multiversion`, which takes the first
// listed target the CPU has: AVX-512 comes first in every list.

/// Element count above which kernels split their work across rayon threads. Below it a kernel
/// runs inline on the calling thread: small tensors pay no scheduling cost.
pub(crate) const PAR_THRESHOLD: usize = 1 << 16;
/// Rough number of elements one parallel task handles.
pub(crate) const PAR_CHUNK: usize = 1 << 14;

thread_local! {
    static THREAD_LIVE_BYTES: Arc<AtomicIsize> = Arc::new(AtomicIsize::new(0));
}

/// Bytes of [`CpuStorage`] made on this thread and not yet dropped (on whichever thread drops
/// them): what `numBytesInBackend` reports, per thread like the engine's own counts (each
/// worker has its own engine). A buffer made on the serving thread and handed to a JavaScript
/// thread stays the serving thread's.
pub fn thread_live_bytes() -> isize {
    THREAD_LIVE_BYTES.try_with(|c| c.load(Ordering::Relaxed)).unwrap_or(0)
}

/// Makes the calling thread one of the threads of the global rayon pool, once, before anything
/// else uses the pool: a parallel kernel then runs part of its work on its caller while the
/// other threads steal the rest, instead of queueing it all to them and sleeping until they
/// are done. On virtual machines waking a sleeping thread costs 10-30 µs, which this takes
/// out of the critical path (measured on a 2-vCPU VM: 40,000 values, 38 -> 8 µs;
/// 200,000, 104 -> 63 µs). Call it only from a thread that lives as long as the process
/// (Node's main thread): the pool would lose a worker with it. Returns whether it did.
pub fn adopt_calling_thread() -> bool {
    let threads = pool_threads();
    // With one thread the pool would be the caller alone, and jobs queued by other threads
    // would wait until the caller next runs a parallel kernel.
    threads >= 2 && rayon::ThreadPoolBuilder::new().num_threads(threads).use_current_thread().build_global().is_ok()
}

/// How many threads a kernel pool has: rayon's own default, RAYON_NUM_THREADS, else one
/// thread per CPU.
pub fn pool_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Copies `src` into `dst` (equal lengths; `dst` may be uninitialised), on several threads
/// when large: reading a kernel's output back then copies each part on a core that likely
/// wrote it, instead of pulling every cache line across cores (resize's 150 KB read back
/// went 58 -> 45 µs with its kernel on a 2-vCPU VM).
pub fn copy_bytes(dst: &mut [std::mem::MaybeUninit<u8>], src: &[u8]) {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 16;
    assert_eq!(dst.len(), src.len(), "copy_bytes: lengths differ");
    let copy = |d: &mut [std::mem::MaybeUninit<u8>], s: &[u8]| {
        // SAFETY: equal lengths (zip of equal chunkings of equal lengths); u8 has no invalid values.
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), d.as_mut_ptr().cast::<u8>(), s.len()) }
    };
    if src.len() < 2 * CHUNK {
        copy(dst, src);
    } else {
        dst.par_chunks_mut(CHUNK).zip(src.par_chunks(CHUNK)).for_each(|(d, s)| copy(d, s));
    }
}

/// Applies `$body` to the vector inside a [`HostData`], whatever its element type, and wraps
/// the resulting vector in the same variant.
macro_rules! map_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            tidytensor_core::HostData::F32($v) => tidytensor_core::HostData::F32($body),
            tidytensor_core::HostData::I32($v) => tidytensor_core::HostData::I32($body),
            tidytensor_core::HostData::Bool($v) => tidytensor_core::HostData::Bool($body),
        }
    };
}
pub(crate) use map_data;

/// The backend storage of one tensor's values.
pub struct CpuStorage {
    data: HostData,
    bytes: usize,
    /// The count of the thread that made it (none during that thread's teardown).
    made_on: Option<Arc<AtomicIsize>>,
}

impl CpuStorage {
    pub fn new(data: HostData) -> CpuStorage {
        let bytes = data.byte_len();
        let made_on = THREAD_LIVE_BYTES.try_with(Arc::clone).ok();
        if let Some(count) = &made_on {
            count.fetch_add(bytes as isize, Ordering::Relaxed);
        }
        CpuStorage { data, bytes, made_on }
    }

    pub fn data(&self) -> &HostData {
        &self.data
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }
}

impl Drop for CpuStorage {
    fn drop(&mut self) {
        if let Some(count) = &self.made_on {
            count.fetch_sub(self.bytes as isize, Ordering::Relaxed);
        }
        match std::mem::replace(&mut self.data, HostData::Bool(Vec::new())) {
            HostData::F32(v) => pool::give(v),
            HostData::I32(v) => pool::give(v),
            HostData::Bool(v) => pool::give(v),
        }
    }
}

impl Storage for CpuStorage {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The values behind a kernel input, checked to be cpu storage of the stated dtype and size.
pub(crate) fn data_of<'a>(x: &View<'a>) -> Result<&'a HostData> {
    let storage: &'a dyn Storage = x.storage;
    let Some(s) = storage.as_any().downcast_ref::<CpuStorage>() else {
        bail!("The cpu backend was given a tensor whose data lives on another backend");
    };
    if s.data.dtype() != x.dtype {
        bail!("cpu backend: tensor data is {} but the tensor claims dtype {}", s.data.dtype().name(), x.dtype.name());
    }
    if s.data.len() != x.size() {
        bail!(
            "cpu backend: tensor data has {} values but shape [{}] needs {}",
            s.data.len(),
            tidytensor_core::shape::fmt(x.shape),
            x.size()
        );
    }
    Ok(&s.data)
}

/// The float32 values behind a kernel input.
pub(crate) fn f32s<'a>(x: &View<'a>) -> Result<&'a [f32]> {
    match data_of(x)? {
        HostData::F32(v) => Ok(v),
        _ => bail!("cpu backend: expected float32 data"),
    }
}

fn boxed(data: HostData) -> Result<Box<dyn Storage>> {
    Ok(Box::new(CpuStorage::new(data)))
}

/// The native CPU backend.
#[derive(Clone, Copy, Debug)]
pub struct CpuBackend {
    name: &'static str,
}

impl Default for CpuBackend {
    fn default() -> Self {
        CpuBackend::new()
    }
}

impl CpuBackend {
    /// The backend registered as `"cpu"`.
    pub fn new() -> CpuBackend {
        CpuBackend { name: "cpu" }
    }

    /// The same kernels under another registry name (tests use it to move tensors between
    /// two backends).
    pub fn with_name(name: &'static str) -> CpuBackend {
        CpuBackend { name }
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        self.name
    }

    fn upload(&self, data: HostData) -> Result<Box<dyn Storage>> {
        boxed(data)
    }

    fn host_values<'a>(&self, x: View<'a>) -> Option<&'a HostData> {
        data_of(&x).ok()
    }

    fn read(&self, x: View) -> Result<HostData> {
        Ok(match data_of(&x)? {
            HostData::F32(v) => HostData::F32(pool::copy_of(v)),
            HostData::I32(v) => HostData::I32(pool::copy_of(v)),
            HostData::Bool(v) => HostData::Bool(pool::copy_of(v)),
        })
    }

    fn memory(&self) -> BackendMemory {
        BackendMemory {
            unreliable: false,
            reasons: Vec::new(),
            fields: vec![
                ("numBytesInBackend", thread_live_bytes().max(0) as f64),
                ("numBytesInBackendFree", pool::pooled_bytes() as f64),
            ],
        }
    }

    /// The machine's physical memory: a larger tensor could only fail to allocate, and a failed
    /// allocation aborts the process.
    fn max_tensor_bytes(&self) -> usize {
        static TOTAL: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *TOTAL.get_or_init(|| physical_memory().unwrap_or(isize::MAX as usize))
    }

    fn available_bytes(&self) -> Option<usize> {
        tidytensor_core::host_memory::available()
    }

    fn release_pool(&self) -> Result<()> {
        pool::release();
        Ok(())
    }

    fn fill(&self, len: usize, value: f64, dtype: DType) -> Result<Box<dyn Storage>> {
        boxed(creation::fill(len, value, dtype))
    }

    fn cast(&self, x: View, dtype: DType) -> Result<Box<dyn Storage>> {
        boxed(elementwise::cast(data_of(&x)?, dtype))
    }

    fn unary(&self, op: UnaryOp, x: View) -> Result<Box<dyn Storage>> {
        boxed(elementwise::unary(op, data_of(&x)?)?)
    }

    fn binary(&self, op: BinaryOp, a: View, b: View, out_shape: &[usize], out: DType) -> Result<Box<dyn Storage>> {
        let shapes = elementwise::Shapes { a: a.shape, b: b.shape, out: out_shape };
        boxed(elementwise::binary(op, data_of(&a)?, data_of(&b)?, &shapes, out)?)
    }

    fn select(&self, cond: View, a: View, b: View, out_shape: &[usize]) -> Result<Box<dyn Storage>> {
        let shapes = [cond.shape, a.shape, b.shape];
        boxed(elementwise::select(data_of(&cond)?, data_of(&a)?, data_of(&b)?, shapes, out_shape)?)
    }

    fn matmul(&self, a: View, b: View, transpose_a: bool, transpose_b: bool) -> Result<Box<dyn Storage>> {
        boxed(matmul::matmul(data_of(&a)?, a.shape, data_of(&b)?, b.shape, transpose_a, transpose_b)?)
    }

    /// In place on the product's buffer: one pass, no allocation of the output's size.
    fn fused_epilogue(
        &self,
        y: Box<dyn Storage>,
        rows: usize,
        channels: usize,
        bias: Option<View>,
        act: Activation,
        alpha: Option<View>,
    ) -> Result<Box<dyn Storage>> {
        let bias = bias.map(|b| f32s(&b)).transpose()?;
        let alpha = alpha.map(|a| f32s(&a)).transpose()?;
        let y: Box<dyn Any> = y;
        let Ok(mut y) = y.downcast::<CpuStorage>() else {
            bail!("The cpu backend was given a tensor whose data lives on another backend");
        };
        let HostData::F32(v) = &mut y.data else { bail!("cpu backend: expected float32 data") };
        if v.len() != rows * channels {
            bail!("cpu backend: the fused epilogue got {} values for {rows} × {channels}", v.len());
        }
        elementwise::fused_epilogue(v, channels, bias, act, alpha);
        Ok(y)
    }

    fn batch_norm(
        &self,
        x: View,
        rows: usize,
        channels: usize,
        p: BatchNormParams,
        eps: f32,
    ) -> Result<Box<dyn Storage>> {
        let x = f32s(&x)?;
        if x.len() != rows * channels {
            bail!("cpu backend: batch norm got {} values for {rows} × {channels}", x.len());
        }
        let (offset, scale) = (p.offset.map(|o| f32s(&o)).transpose()?, p.scale.map(|s| f32s(&s)).transpose()?);
        boxed(HostData::F32(elementwise::batch_norm(
            x,
            channels,
            f32s(&p.mean)?,
            f32s(&p.variance)?,
            offset,
            scale,
            eps,
        )))
    }

    fn conv(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        boxed(HostData::F32(conv::conv(f32s(&x)?, f32s(&filter)?, g, None)))
    }

    /// The epilogue runs on each row of the direct convolution's output as it is made; a
    /// depthwise one's, after it.
    fn fused_conv(
        &self,
        x: View,
        filter: View,
        g: &ConvGeom,
        depthwise: bool,
        bias: Option<View>,
        act: Activation,
        alpha: Option<View>,
    ) -> Result<Box<dyn Storage>> {
        let ep = elementwise::Epilogue::new(
            g.out_channels,
            bias.map(|b| f32s(&b)).transpose()?,
            act,
            alpha.map(|a| f32s(&a)).transpose()?,
        );
        let (x, filter) = (f32s(&x)?, f32s(&filter)?);
        let y = if depthwise {
            let mut y = conv::depthwise_conv(x, filter, g);
            ep.apply_all(&mut y);
            y
        } else {
            conv::conv(x, filter, g, Some(&ep))
        };
        boxed(HostData::F32(y))
    }

    fn conv_input_grad(&self, dy: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        boxed(HostData::F32(conv::conv_input_grad(f32s(&dy)?, f32s(&filter)?, g)))
    }

    fn depthwise_conv(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        boxed(HostData::F32(conv::depthwise_conv(f32s(&x)?, f32s(&filter)?, g)))
    }

    fn dilation(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        boxed(HostData::F32(conv::dilation(f32s(&x)?, f32s(&filter)?, g)))
    }

    fn pool(&self, op: PoolOp, x: View, g: &ConvGeom) -> Result<Box<dyn Storage>> {
        boxed(HostData::F32(conv::pool(op, f32s(&x)?, g)))
    }

    fn cheap_scatter(&self) -> bool {
        true
    }

    fn max_pool_positions(&self, x: View, g: &ConvGeom, include_batch: bool) -> Result<Box<dyn Storage>> {
        boxed(HostData::I32(conv::max_pool_positions(f32s(&x)?, g, include_batch)))
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
        boxed(HostData::F32(conv::lrn(f32s(&x)?, channels, radius, bias, alpha, beta)))
    }

    fn resample(&self, x: View, dims: [usize; 4], rows: &Taps, cols: &Taps) -> Result<Box<dyn Storage>> {
        boxed(HostData::F32(image::resample(f32s(&x)?, dims, rows, cols)))
    }

    fn reduce(&self, op: ReduceOp, x: View, outer: usize, inner: usize, out: DType) -> Result<Box<dyn Storage>> {
        boxed(reduce::reduce(op, data_of(&x)?, outer, inner, out)?)
    }

    fn moments(&self, x: View, outer: usize, n: usize, inner: usize) -> Result<(Box<dyn Storage>, Box<dyn Storage>)> {
        let (mean, var) = reduce::moments(f32s(&x)?, outer, n, inner);
        Ok((boxed(HostData::F32(mean))?, boxed(HostData::F32(var))?))
    }

    fn arg_reduce(&self, op: ArgOp, x: View, outer: usize, axis: usize, inner: usize) -> Result<Box<dyn Storage>> {
        boxed(reduce::arg_reduce(op, data_of(&x)?, outer, axis, inner)?)
    }

    fn softmax(&self, x: View, outer: usize, inner: usize) -> Result<Box<dyn Storage>> {
        boxed(reduce::softmax(data_of(&x)?, outer, inner)?)
    }

    fn topk(&self, x: View, rows: usize, len: usize, k: usize) -> Result<(Box<dyn Storage>, Box<dyn Storage>)> {
        let (values, indices) = reduce::topk(data_of(&x)?, rows, len, k);
        Ok((boxed(values)?, boxed(HostData::I32(indices))?))
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
        boxed(reduce::cumulative(op, data_of(&x)?, outer, len, flags, out))
    }

    fn scatter(
        &self,
        base: Option<View>,
        rows: View,
        updates: View,
        num_rows: usize,
        sum: bool,
    ) -> Result<Box<dyn Storage>> {
        let base = base.as_ref().map(data_of).transpose()?;
        boxed(layout::scatter(base, data_of(&rows)?, data_of(&updates)?, num_rows, sum)?)
    }

    fn transpose(&self, x: View, perm: &[usize]) -> Result<Box<dyn Storage>> {
        boxed(layout::transpose(data_of(&x)?, x.shape, perm))
    }

    fn slice(&self, x: View, begin: &[usize], size: &[usize]) -> Result<Box<dyn Storage>> {
        boxed(layout::slice(data_of(&x)?, x.shape, begin, size))
    }

    fn concat(&self, inputs: &[View], outer: usize) -> Result<Box<dyn Storage>> {
        let datas = inputs.iter().map(data_of).collect::<Result<Vec<_>>>()?;
        boxed(layout::concat(&datas, outer)?)
    }

    fn gather(&self, x: View, indices: View, dims: [usize; 4]) -> Result<Box<dyn Storage>> {
        boxed(layout::gather(data_of(&x)?, data_of(&indices)?, dims)?)
    }

    fn one_hot(&self, indices: View, depth: usize, on: f64, off: f64, dtype: DType) -> Result<Box<dyn Storage>> {
        boxed(creation::one_hot(data_of(&indices)?, depth, on, off, dtype)?)
    }

    fn optimizer_step(
        &self,
        rule: &StepRule,
        value: View,
        grad: View,
        state: &[View],
    ) -> Result<Vec<Box<dyn Storage>>> {
        let s = state.iter().map(f32s).collect::<Result<Vec<_>>>()?;
        train::step(rule, f32s(&value)?, f32s(&grad)?, &s).into_iter().map(|o| boxed(HostData::F32(o))).collect()
    }
}

/// Total physical memory in bytes, where the OS tells (`MemTotal` in /proc/meminfo on Linux).
pub(crate) fn physical_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: usize =
        info.lines().find_map(|l| l.strip_prefix("MemTotal:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    kib.checked_mul(1024)
}
