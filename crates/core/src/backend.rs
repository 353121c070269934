//! The contract between the engine and a backend. Kernels receive validated, contiguous,
//! row-major inputs whose dtypes already match what the op needs; they never see bad input.

use crate::kernels::{BinaryOp, UnaryOp};
use crate::{DType, HostData, Result};
use std::any::Any;
use std::sync::Arc;

/// Backend-owned memory for one tensor's values. Dropping it frees (or pools) the memory,
/// deterministically, when the last [`Buffer`] reference goes.
pub trait Storage: Any + Send + Sync {
    fn as_any(&self) -> &dyn Any;
}

pub type DataId = u64;

/// A refcounted data buffer: tensors made by `reshape`, `clone` and `variable` share one.
pub struct Buffer {
    pub id: DataId,
    pub backend: Arc<dyn Backend>,
    pub storage: Box<dyn Storage>,
}

/// Receives the values of an asynchronous read.
pub type ReadDone = Box<dyn FnOnce(Result<HostData>) + Send>;

/// A kernel input: storage plus the shape and dtype it holds.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub storage: &'a dyn Storage,
    pub shape: &'a [usize],
    pub dtype: DType,
}

impl View<'_> {
    pub fn size(&self) -> usize {
        crate::shape::size(self.shape)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
    /// Logical and of bool values.
    All,
    /// Logical or of bool values.
    Any,
}

/// The optimizer rules (`tf.train`), for [`Backend::optimizer_step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    Sgd,
    Momentum { nesterov: bool },
    Adagrad,
    Adadelta,
    Adam,
    Adamax,
    RmsProp { centered: bool },
}

/// One optimizer update: the rule and its float32 scalars, in this order (tfjs computes with
/// float32 scalar tensors; `1 - b` is rounded once, as tfjs's scalar of `1 - b` is):
/// - Sgd: -lr
/// - Momentum: -lr, momentum
/// - Adagrad: -lr, epsilon
/// - Adadelta: -lr, rho, 1 - rho, epsilon
/// - Adam: -lr, beta1, 1 - beta1, beta2, 1 - beta2, epsilon, 1 - beta1^t, 1 - beta2^t
/// - Adamax: -lr / (1 + iteration * decay), beta1, 1 - beta1, beta2, epsilon, 1 - beta1^t
/// - RmsProp: lr, decay, 1 - decay, momentum, epsilon
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepRule {
    pub kind: StepKind,
    pub scalars: [f32; 8],
}

/// Running sums and products (`tf.cumsum`, `tf.cumprod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CumOp {
    Sum,
    Prod,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgOp {
    ArgMax,
    ArgMin,
}

/// Max or average pooling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoolOp {
    /// The largest value of the window (NaN never wins; an empty window gives -Infinity).
    Max,
    /// The mean of the window's values inside the input (padding is not counted; a window
    /// wholly in the padding gives 0).
    Avg,
}

/// The activations of the fused ops (tfjs's `fused_util.applyActivation`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    Linear,
    Relu,
    Relu6,
    Elu,
    /// `x < 0 ? x * alpha : x`, alpha a scalar.
    LeakyRelu(f32),
    /// `x < 0 ? x * alpha : x`, alpha a tensor (the epilogue's `alpha` view).
    Prelu,
    Sigmoid,
}

impl Activation {
    /// The activation named as tfjs names it (`leakyrelu` takes `leaky_alpha`), with tfjs's error.
    pub fn parse(name: &str, leaky_alpha: f64) -> Result<Activation> {
        Ok(match name {
            "linear" => Activation::Linear,
            "relu" => Activation::Relu,
            "relu6" => Activation::Relu6,
            "elu" => Activation::Elu,
            "leakyrelu" => Activation::LeakyRelu(leaky_alpha as f32),
            "prelu" => Activation::Prelu,
            "sigmoid" => Activation::Sigmoid,
            other => crate::bail!("Unknown fused activation {other}."),
        })
    }
}

/// The parameters of [`Backend::batch_norm`], each float32 with `channels` values or one.
#[derive(Clone, Copy)]
pub struct BatchNormParams<'a> {
    pub mean: View<'a>,
    pub variance: View<'a>,
    pub offset: Option<View<'a>>,
    pub scale: Option<View<'a>>,
}

/// Where the windows of a convolution or pooling op read, over `[batch, depth, height, width,
/// channels]` data: a 2-D op is a 3-D op with depth 1. Output position `o` on spatial axis `a`
/// reads input `o * strides[a] - pad[a] + tap * dilations[a]` at each filter tap; positions
/// outside the input read zeros (convolutions) or nothing (pooling).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvGeom {
    pub batch: usize,
    pub in_size: [usize; 3],
    pub in_channels: usize,
    pub out_size: [usize; 3],
    pub out_channels: usize,
    pub filter: [usize; 3],
    pub strides: [usize; 3],
    pub dilations: [usize; 3],
    /// Padding before each spatial axis (front, top, left); negative skips input.
    pub pad: [isize; 3],
}

impl ConvGeom {
    pub fn in_spatial(&self) -> usize {
        self.in_size.iter().product()
    }
    pub fn out_spatial(&self) -> usize {
        self.out_size.iter().product()
    }
    /// Filter taps per window.
    pub fn taps(&self) -> usize {
        self.filter.iter().product()
    }
    /// The input coordinate on axis `a` that output `o` reads at tap `t`, if inside the input.
    #[inline]
    pub fn input_coord(&self, a: usize, o: usize, t: usize) -> Option<usize> {
        let i = (o * self.strides[a]) as isize - self.pad[a] + (t * self.dilations[a]) as isize;
        (i >= 0 && (i as usize) < self.in_size[a]).then_some(i as usize)
    }
}

/// Where each output row (or column) of a resize reads: the two source indices it
/// interpolates between and the weight of the second (nearest neighbour: one index, weight 0).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Taps {
    pub lo: Vec<u32>,
    pub hi: Vec<u32>,
    pub frac: Vec<f32>,
}

/// What a backend adds to `tf.memory()`.
#[derive(Clone, Debug, Default)]
pub struct BackendMemory {
    pub unreliable: bool,
    pub reasons: Vec<String>,
    /// Extra numeric fields, e.g. `numBytesInGPU`.
    pub fields: Vec<(&'static str, f64)>,
}

/// A compute backend, its kernels grouped by op family. Every kernel returns fresh storage
/// for its output; the engine registers it. Output dtypes are decided by the engine and
/// stated in each doc comment.
pub trait Backend: Send + Sync {
    // ---- storage, memory and synchronisation ----
    fn name(&self) -> &'static str;

    /// Copies host values into backend storage.
    fn upload(&self, data: HostData) -> Result<Box<dyn Storage>>;
    /// Copies a tensor's values back to the host.
    fn read(&self, x: View) -> Result<HostData>;
    /// The values themselves, where the backend keeps them in host memory (no copy); `None`
    /// otherwise, and then callers [`Backend::read`].
    fn host_values<'a>(&self, _x: View<'a>) -> Option<&'a HostData> {
        None
    }
    /// Starts a read that does not block the calling thread; `done` gets the values later, on
    /// any thread. Whatever the read needs from `x` must be taken before this returns. The
    /// default reads synchronously (right for memory the host can see).
    fn read_async(&self, x: View, done: ReadDone) {
        done(self.read(x))
    }
    fn memory(&self) -> BackendMemory;
    /// The largest tensor, in bytes, this backend can hold; the engine refuses larger ones
    /// before any memory is touched (an allocation failure would abort the process).
    fn max_tensor_bytes(&self) -> usize {
        usize::MAX
    }
    /// Bytes a new tensor may take now, where the backend can tell: memory that is granted
    /// lazily and reclaimed by killing the process must be checked before it is taken. The
    /// engine asks only for large tensors ([`crate::host_memory::CHECKED_FROM`] bytes and up).
    fn available_bytes(&self) -> Option<usize> {
        None
    }
    /// Frees memory kept for reuse that no tensor holds (buffer pools).
    fn release_pool(&self) -> Result<()> {
        Ok(())
    }
    /// Waits until the work recorded so far has finished (`tf.time`); nothing to wait for on
    /// backends that compute synchronously.
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    // ---- creation ----
    /// `len` copies of `value` (already valid for `dtype`).
    fn fill(&self, len: usize, value: f64, dtype: DType) -> Result<Box<dyn Storage>>;
    /// int32 `indices` → `[len, depth]` of `on` where the index matches, else `off`
    /// (out-of-range indices give a row of `off`).
    fn one_hot(&self, indices: View, depth: usize, on: f64, off: f64, dtype: DType) -> Result<Box<dyn Storage>>;

    // ---- elementwise ----
    /// Converts to `dtype` as tfjs does (float→int32 truncates, bool is `x != 0`).
    fn cast(&self, x: View, dtype: DType) -> Result<Box<dyn Storage>>;
    /// Elementwise op; the output dtype is `op.out_dtype(x.dtype)`. float32 computes in floats.
    /// int32 and bool inputs reach only the ops whose [`crate::DtypeRule`] is `Same` (computed
    /// in 32-bit integers), `Numeric` (the float formula, stored as int32 or bool), `Predicate`
    /// and `Bool`.
    fn unary(&self, op: UnaryOp, x: View) -> Result<Box<dyn Storage>>;
    /// Elementwise op with broadcasting: `a` and `b` have the same dtype and the rank of
    /// `out_shape` (shapes padded with leading 1s, each dim equal to the output's or 1). float32
    /// computes in floats, int32 and bool (as 0/1) in 32-bit integers; the result is stored as
    /// `out`.
    fn binary(&self, op: BinaryOp, a: View, b: View, out_shape: &[usize], out: DType) -> Result<Box<dyn Storage>>;
    /// `tf.where`: `a` where the bool `cond` is true, else `b`; `a` and `b` have one dtype, all
    /// three the rank of `out_shape` (padded, each dim equal to the output's or 1).
    fn select(&self, cond: View, a: View, b: View, out_shape: &[usize]) -> Result<Box<dyn Storage>>;

    // ---- matmul ----
    /// Batched matrix product of float32 `a` `[batchA, m|k, k|m]` and `b` `[batchB, k|n, n|k]`,
    /// where batchA and batchB are equal or one of them is 1 (broadcast). Output
    /// `[max(batchA, batchB), m, n]`, float32.
    fn matmul(&self, a: View, b: View, transpose_a: bool, transpose_b: bool) -> Result<Box<dyn Storage>>;

    /// The fused ops' epilogue on the float32 product `y` (`rows × channels` values, channels
    /// last): `y + bias`, then `act`. `bias` and `alpha` (prelu's weights) are float32 with
    /// `channels` values or 1. Takes the product's storage, so a backend may write in place;
    /// the default composes `binary` and `unary`.
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
        let row = |v: View| [1, v.size()];
        let mut y = y;
        if let Some(b) = bias {
            let bs = row(b);
            let bv = View { storage: b.storage, shape: &bs, dtype: DType::Float32 };
            let yv = View { storage: &*y, shape: &shape, dtype: DType::Float32 };
            y = self.binary(BinaryOp::Add, yv, bv, &shape, DType::Float32)?;
        }
        let yv = View { storage: &*y, shape: &shape, dtype: DType::Float32 };
        let unary = |op| self.unary(op, yv);
        let prelu = |a: View| {
            let s = row(a);
            let av = View { storage: a.storage, shape: &s, dtype: DType::Float32 };
            self.binary(BinaryOp::Prelu, yv, av, &shape, DType::Float32)
        };
        let out = match act {
            Activation::Linear => return Ok(y),
            Activation::Relu => unary(UnaryOp::Relu)?,
            Activation::Relu6 => unary(UnaryOp::Relu6)?,
            Activation::Elu => unary(UnaryOp::Elu)?,
            Activation::Sigmoid => unary(UnaryOp::Sigmoid)?,
            Activation::LeakyRelu(a) => {
                let s = self.upload(HostData::F32(vec![a]))?;
                prelu(View { storage: &*s, shape: &[1], dtype: DType::Float32 })?
            }
            Activation::Prelu => match alpha {
                Some(a) => prelu(a)?,
                None => crate::bail!("fused_epilogue: prelu needs its alpha"),
            },
        };
        Ok(out)
    }

    /// tfjs's `FusedBatchNorm` on float32 `x` (`rows × channels`, channels last): per element
    /// `(x - mean) * scale / sqrt(variance + eps) + offset` in float32 steps, each parameter
    /// float32 with `channels` values or one. The default composes `binary` and `unary`.
    fn batch_norm(
        &self,
        x: View,
        rows: usize,
        channels: usize,
        p: BatchNormParams,
        eps: f32,
    ) -> Result<Box<dyn Storage>> {
        let shape = [rows, channels];
        let row_shapes: Vec<[usize; 2]> = [Some(p.mean), Some(p.variance), p.offset, p.scale]
            .iter()
            .map(|v| [1, v.map_or(1, |v| v.size())])
            .collect();
        fn row<'a>(v: View<'a>, shape: &'a [usize]) -> View<'a> {
            View { storage: v.storage, shape, dtype: DType::Float32 }
        }
        let f32s = DType::Float32;
        let xv = View { storage: x.storage, shape: &shape, dtype: f32s };
        let mut y = self.binary(BinaryOp::Sub, xv, row(p.mean, &row_shapes[0]), &shape, f32s)?;
        if let Some(s) = p.scale {
            let yv = View { storage: &*y, shape: &shape, dtype: f32s };
            y = self.binary(BinaryOp::Mul, yv, row(s, &row_shapes[3]), &shape, f32s)?;
        }
        let e = self.upload(HostData::F32(vec![eps]))?;
        let ev = View { storage: &*e, shape: &[1, 1], dtype: f32s };
        let v = self.binary(BinaryOp::Add, row(p.variance, &row_shapes[1]), ev, &row_shapes[1], f32s)?;
        let v = self.unary(UnaryOp::Sqrt, View { storage: &*v, shape: &row_shapes[1], dtype: f32s })?;
        let yv = View { storage: &*y, shape: &shape, dtype: f32s };
        let vv = View { storage: &*v, shape: &row_shapes[1], dtype: f32s };
        let y = self.binary(BinaryOp::Div, yv, vv, &shape, f32s)?;
        match p.offset {
            Some(o) => {
                let yv = View { storage: &*y, shape: &shape, dtype: f32s };
                self.binary(BinaryOp::Add, yv, row(o, &row_shapes[2]), &shape, f32s)
            }
            None => Ok(y),
        }
    }

    // ---- reduce ----
    /// Reduces `x` seen as `[outer, inner]` over `inner` (never empty: the engine answers empty
    /// reductions itself); output `[outer]` of dtype `out`.
    fn reduce(&self, op: ReduceOp, x: View, outer: usize, inner: usize, out: DType) -> Result<Box<dyn Storage>>;
    /// The mean and variance of float32 `x` seen as `[outer, n, inner]` over the middle axis
    /// (`n` ≥ 1): two float32 `[outer, inner]` storages, with tfjs's `moments` steps (the
    /// mean, then the mean of the squared float32 differences). The default composes
    /// `transpose`, `reduce`, `binary` and `unary`; a backend may read `x` in place instead.
    fn moments(&self, x: View, outer: usize, n: usize, inner: usize) -> Result<(Box<dyn Storage>, Box<dyn Storage>)> {
        let f32s = DType::Float32;
        let moved;
        let rows = [outer * inner, n];
        let xv = if inner == 1 {
            View { storage: x.storage, shape: &rows, dtype: f32s }
        } else {
            moved = self.transpose(View { storage: x.storage, shape: &[outer, n, inner], dtype: f32s }, &[0, 2, 1])?;
            View { storage: &*moved, shape: &rows, dtype: f32s }
        };
        let mean = self.reduce(ReduceOp::Mean, xv, rows[0], n, f32s)?;
        let col = [rows[0], 1];
        let d = self.binary(BinaryOp::Sub, xv, View { storage: &*mean, shape: &col, dtype: f32s }, &rows, f32s)?;
        let sq = self.unary(UnaryOp::Square, View { storage: &*d, shape: &rows, dtype: f32s })?;
        let var = self.reduce(ReduceOp::Mean, View { storage: &*sq, shape: &rows, dtype: f32s }, rows[0], n, f32s)?;
        Ok((mean, var))
    }
    /// Index of the max/min over the middle axis of `x` seen as `[outer, axis, inner]`
    /// (`axis` ≥ 1); output `[outer, inner]`, int32. Ties take the first index.
    fn arg_reduce(&self, op: ArgOp, x: View, outer: usize, axis: usize, inner: usize) -> Result<Box<dyn Storage>>;
    /// Softmax (float32) over the last axis of `x` seen as `[outer, inner]`.
    fn softmax(&self, x: View, outer: usize, inner: usize) -> Result<Box<dyn Storage>>;
    /// The `k` largest values of each row of `x` seen as `[rows, len]`, in descending order (NaN
    /// above everything, ties by lower index), and their int32 indices: two `[rows, k]` storages.
    fn topk(&self, x: View, rows: usize, len: usize, k: usize) -> Result<(Box<dyn Storage>, Box<dyn Storage>)>;
    /// Running sums or products along each row of `x` seen as `[outer, len]`, accumulated in the
    /// output dtype `out` (float32, or int32 for int32 and bool input; sums wrap, int32 products
    /// are the f64 product stored by ToInt32, as tfjs's). `exclusive` puts the identity first,
    /// `reverse` runs from the row's end.
    fn cumulative(
        &self,
        op: CumOp,
        x: View,
        outer: usize,
        len: usize,
        flags: (bool, bool),
        out: DType,
    ) -> Result<Box<dyn Storage>>;

    // ---- conv (convolutions, pooling and windowed ops; all float32, see [`ConvGeom`]) ----
    /// `x` `[batch, d, h, w, in_channels]` convolved with `filter` `[fd, fh, fw, in_channels,
    /// out_channels]`: output `[batch, od, oh, ow, out_channels]`.
    fn conv(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>>;

    /// A convolution (`depthwise`: [`Backend::depthwise_conv`]'s, else [`Backend::conv`]'s) with
    /// the fused ops' epilogue ([`Backend::fused_epilogue`]) on its output. The default runs one
    /// after the other; a backend may apply the epilogue to each part of the output as it is made.
    #[allow(clippy::too_many_arguments)]
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
        let y = if depthwise { self.depthwise_conv(x, filter, g)? } else { self.conv(x, filter, g)? };
        let (rows, channels) = (g.batch * g.out_spatial(), g.out_channels);
        if rows * channels == 0 {
            return Ok(y);
        }
        self.fused_epilogue(y, rows, channels, bias, act, alpha)
    }
    /// The gradient of [`Backend::conv`] with respect to its input (`tf.conv2dTranspose`): `dy`
    /// `[batch, od, oh, ow, out_channels]` and the same filter give `[batch, d, h, w, in_channels]`.
    fn conv_input_grad(&self, dy: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>>;
    /// Each input channel convolved with its own filters: `filter` `[fd, fh, fw, in_channels,
    /// multiplier]`, output channel `c * multiplier + q` (`out_channels = in_channels * multiplier`).
    fn depthwise_conv(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>>;
    /// Grayscale dilation (`tf.dilation2d`): the max over the window of `x + filter`, `filter`
    /// `[fd, fh, fw, channels]`; a window wholly outside the input gives -2^53.
    fn dilation(&self, x: View, filter: View, g: &ConvGeom) -> Result<Box<dyn Storage>>;
    /// Max or average pooling, channel by channel (`in_channels == out_channels`).
    fn pool(&self, op: PoolOp, x: View, g: &ConvGeom) -> Result<Box<dyn Storage>>;
    /// Where each max-pooling window's maximum is (first of ties; -1 for none), as the int32
    /// flat index `((b * d + z) * h + y) * w + x) * channels + c`, without the batch term
    /// unless `include_batch`.
    fn max_pool_positions(&self, x: View, g: &ConvGeom, include_batch: bool) -> Result<Box<dyn Storage>>;
    /// Whether `scatter` costs about as much as its updates (a loop over them) rather than
    /// outputs × updates (a GPU thread per output walking every update): gradients that
    /// could scatter ask this before choosing how to compose themselves.
    fn cheap_scatter(&self) -> bool {
        false
    }
    /// Local response normalization over the last axis of `x` (`channels` long):
    /// `x * (bias + alpha * sum of x² over [c - radius, c + radius]) ^ -beta`.
    fn lrn(
        &self,
        x: View,
        channels: usize,
        radius: usize,
        bias: f64,
        alpha: f64,
        beta: f64,
    ) -> Result<Box<dyn Storage>>;

    // ---- image ----
    /// float32 images `x` `[batch, h, w, channels]` (`dims`) resampled to `[batch, rows, cols,
    /// channels]`: output `(i, j)` interpolates along the columns `cols` picks, then between
    /// the two rows `rows` picks (tfjs's order of interpolation).
    fn resample(&self, x: View, dims: [usize; 4], rows: &Taps, cols: &Taps) -> Result<Box<dyn Storage>>;

    // ---- layout ----
    /// Rows of `updates` (`[m, slice]`) written to rows `rows[j]` (int32 `[m]`) of a
    /// `[num_rows, slice]` output that starts as `base` (or zeros): summed when `sum`
    /// (duplicates add up; bool is or), assigned otherwise (the last update of a row wins). A
    /// row outside the output is an error where the backend can tell without a readback, and
    /// is skipped otherwise.
    fn scatter(
        &self,
        base: Option<View>,
        rows: View,
        updates: View,
        num_rows: usize,
        sum: bool,
    ) -> Result<Box<dyn Storage>>;
    /// Permutes axes: output axis `i` is input axis `perm[i]` (a checked permutation).
    fn transpose(&self, x: View, perm: &[usize]) -> Result<Box<dyn Storage>>;
    /// The box `[begin, begin + size)` of `x` (checked to lie inside it).
    fn slice(&self, x: View, begin: &[usize], size: &[usize]) -> Result<Box<dyn Storage>>;
    /// Concatenates inputs seen as `[outer, inner_i]` along the inner axis (same dtype).
    fn concat(&self, inputs: &[View], outer: usize) -> Result<Box<dyn Storage>>;
    /// `x` seen as `[batch, outer, axis, inner]` (`dims`) and int32 `indices` as `[batch, n]`:
    /// output `[batch, outer, n, inner]` with row `indices[b, j]` of each `x[b, o]`. Indices
    /// outside `[0, axis)` are the kernel's to handle, since only it reads them: an error with
    /// tfjs's text where the values are at hand (cpu), zeros on a GPU (as tfjs's GPU backends).
    fn gather(&self, x: View, indices: View, dims: [usize; 4]) -> Result<Box<dyn Storage>>;

    // ---- train ----
    /// One optimizer update of a float32 variable `value` by its gradient `grad` (same shape),
    /// with the rule's state in `state` (as `train.rs` orders it): the new value, then the new
    /// state, computed in one pass with tfjs's order of operations.
    fn optimizer_step(&self, rule: &StepRule, value: View, grad: View, state: &[View])
        -> Result<Vec<Box<dyn Storage>>>;
}
