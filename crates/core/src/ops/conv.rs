//! Convolutions, pooling and the other windowed ops. The window geometry (strides, dilations,
//! padding, output size) is computed as tfjs's `conv_util` computes it, the checks come in
//! tfjs's order with its texts, and then one kernel runs. 2-D ops run as 3-D ops of depth 1;
//! channels-first data is transposed to channels-last and back around the kernel.

use super::fused::{epilogue_params, Fused};
use super::require_dtype;
use crate::backend::{ConvGeom, CumOp, PoolOp};
use crate::engine::Input;
// A number as JavaScript prints it.
use crate::js::{list as js_list, number as js};
use crate::{bail, kernels as k, shape, Backend, BinaryOp, DType, Engine, Result, Storage, TensorId, UnaryOp, View};

/// tfjs's `pad` argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Padding {
    Valid,
    Same,
    /// The same padding on every side.
    Number(f64),
    /// `[before, after]` for each dimension of the input, batch and channels included.
    Explicit(Vec<[f64; 2]>),
}

/// tfjs's `dimRoundingMode`: how a fractional output size is rounded (none: truncated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Floor,
    Round,
    Ceil,
}

impl Rounding {
    pub fn parse(name: &str) -> Result<Rounding> {
        Ok(match name {
            "floor" => Rounding::Floor,
            "round" => Rounding::Round,
            "ceil" => Rounding::Ceil,
            _ => bail!("Unknown roundingMode {name}"),
        })
    }
    fn name(self) -> &'static str {
        match self {
            Rounding::Floor => "floor",
            Rounding::Round => "round",
            Rounding::Ceil => "ceil",
        }
    }
}

/// The window arguments every windowed op takes. A list of one value stands for a single
/// number (`strides: 2`), as tfjs's `parseTupleParam` reads it.
#[derive(Clone, Debug)]
pub struct Window<'a> {
    pub strides: &'a [f64],
    pub dilations: &'a [f64],
    pub pad: &'a Padding,
    pub rounding: Option<Rounding>,
}

/// The convolution kinds that take an input and a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvKind {
    Conv2d,
    Conv3d,
    Depthwise2d,
    Dilation2d,
}

/// The pooling ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKind {
    Max2d,
    Avg2d,
    Max3d,
    Avg3d,
}

fn pad_text(pad: &Padding) -> String {
    match pad {
        Padding::Valid => "valid".into(),
        Padding::Same => "same".into(),
        Padding::Number(p) => js(*p),
        Padding::Explicit(pairs) => js_list(&pairs.iter().flatten().copied().collect::<Vec<_>>()),
    }
}

/// tfjs's `parseTupleParam` for `n` spatial dims.
fn tuple(values: &[f64], n: usize) -> Option<Vec<f64>> {
    match values.len() {
        1 => Some(vec![values[0]; n]),
        l if l == n => Some(values.to_vec()),
        _ => None,
    }
}

/// tfjs's `checkPadOnDimRoundingMode`.
pub fn check_pad_rounding(op: &str, pad: &Padding, rounding: Option<Rounding>) -> Result<()> {
    let Some(mode) = rounding else { return Ok(()) };
    let bad = |v: &str| -> Result<()> {
        bail!("Error in {op}: pad must be an integer when using dimRoundingMode {} but got pad {v}.", mode.name())
    };
    match pad {
        Padding::Valid | Padding::Same => bad(&pad_text(pad)),
        Padding::Number(p) if p.fract() != 0.0 || !p.is_finite() => bad(&js(*p)),
        Padding::Explicit(pairs) => match pairs.iter().flatten().find(|v| v.fract() != 0.0 || !v.is_finite()) {
            Some(v) => bad(&js(*v)),
            None => Ok(()),
        },
        Padding::Number(_) => Ok(()),
    }
}

/// `Error in <label>: Either strides or dilations must be 1.` (tfjs's
/// `eitherStridesOrDilationsAreOne`), then positive values.
fn check_strides_dilations(label: &str, strides: &[f64], dilations: &[f64], positive: bool) -> Result<()> {
    let one = |v: &[f64]| v.iter().all(|&x| x == 1.0);
    if !one(strides) && !one(dilations) {
        bail!(
            "Error in {label}: Either strides or dilations must be 1. Got strides {} and dilations '{}'",
            js_list(strides),
            js_list(dilations)
        );
    }
    if positive {
        if dilations.iter().any(|&d| !(d > 0.0)) {
            bail!("Error in {label}: Dilated rates should be larger than 0.");
        }
        if strides.iter().any(|&s| !(s > 0.0)) {
            bail!("Error in {label}: Strides should be larger than 0.");
        }
    }
    Ok(())
}

/// Positive integers for `n` spatial dims, or an error naming the argument.
fn whole(op: &str, what: &str, values: &[f64], n: usize) -> Result<Vec<usize>> {
    let Some(v) = tuple(values, n) else {
        bail!("Error in {op}: {what} must be a number or a list of {n} numbers, but got {}.", js_list(values))
    };
    if v.iter().any(|&x| !(x >= 1.0) || x.fract() != 0.0 || x > u32::MAX as f64) {
        bail!("Error in {op}: {what} must be positive integers, but got {}.", js_list(values));
    }
    Ok(v.into_iter().map(|x| x as usize).collect())
}

/// tfjs's `round(value, roundingMode)`: truncation when no mode is given.
fn round(v: f64, mode: Option<Rounding>) -> f64 {
    match mode {
        None => v.trunc(),
        Some(Rounding::Round) => (v + 0.5).floor(),
        Some(Rounding::Ceil) => v.ceil(),
        Some(Rounding::Floor) => v.floor(),
    }
}

/// Output sizes and leading pads of `n` spatial dims (tfjs's `getPadAndOutInfo` for 2-D and
/// `get3DPadAndOutInfo` for 3-D, quirks included: a numeric 2-D pad sizes both dims with the
/// height's filter and stride). `filter` holds the effective (dilated) filter sizes;
/// `pad_dims` says which input dims the explicit pairs of each spatial dim are.
fn out_and_pad(
    op: &str,
    in_size: &[usize],
    filter: &[usize],
    strides: &[usize],
    w: &Window,
    pad_dims: &[usize],
) -> Result<PadAndOut> {
    let n = in_size.len();
    let (inp, f, s) = (|i: usize| in_size[i] as f64, |i: usize| filter[i] as f64, |i: usize| strides[i] as f64);
    let mut out = vec![0f64; n];
    let mut pad = vec![0f64; n];
    let mut after = vec![0f64; n];
    let pad_mode = if n == 3 && *w.pad == Padding::Valid { &Padding::Number(0.0) } else { w.pad };
    match pad_mode {
        Padding::Number(p) => {
            for i in 0..n {
                pad[i] = *p;
                after[i] = *p;
                out[i] = if n == 2 {
                    round((inp(i) - f(0) + 2.0 * p) / s(0) + 1.0, w.rounding)
                } else if inp(i) + 2.0 * p >= f(i) {
                    round((inp(i) - f(i) + 2.0 * p) / s(i) + 1.0, w.rounding)
                } else {
                    0.0
                };
            }
        }
        Padding::Same => {
            for i in 0..n {
                out[i] = (inp(i) / s(i)).ceil();
                let mut along = (out[i] - 1.0) * s(i) + f(i) - inp(i);
                if n == 2 {
                    along = along.max(0.0);
                }
                pad[i] = (along / 2.0).floor();
                after[i] = along - pad[i];
            }
        }
        Padding::Valid => {
            for i in 0..n {
                out[i] = ((inp(i) - f(i) + 1.0) / s(i)).ceil();
            }
        }
        Padding::Explicit(pairs) if n == 2 => {
            if pairs.len() != 4 {
                bail!("Error in {op}: explicit padding must have 4 [before, after] pairs, but got {}.", pairs.len());
            }
            for i in 0..n {
                let [b, a] = pairs[pad_dims[i]];
                pad[i] = b;
                after[i] = a;
                out[i] = round((inp(i) - f(i) + b + a) / s(i) + 1.0, w.rounding);
            }
        }
        Padding::Explicit(_) => bail!("Unknown padding parameter: {}", pad_text(w.pad)),
    }
    if let Some(p) = pad.iter().find(|p| p.fract() != 0.0 || !p.is_finite() || p.abs() > u32::MAX as f64) {
        bail!("Error in {op}: pad must be an integer, but got pad {}.", js(*p));
    }
    if pad_mode != &Padding::Same && pad.iter().any(|&p| p < 0.0) {
        bail!("Error in {op}: pad must not be negative, but got pad {}.", pad_text(w.pad));
    }
    if let Some(o) = out.iter().find(|o| **o < 0.0 || !o.is_finite()) {
        bail!(
            "Error in {op}: the window does not fit the input: input size [{}], window [{}], output size {}.",
            shape::fmt(in_size),
            shape::fmt(filter),
            js(*o)
        );
    }
    let kind = match pad_mode {
        Padding::Same => "SAME",
        _ if pad.iter().chain(&after).all(|&p| p == 0.0) => "VALID",
        Padding::Number(_) => "NUMBER",
        _ => "EXPLICIT",
    };
    Ok(PadAndOut {
        out: out.iter().map(|&o| o as usize).collect(),
        before: pad.iter().map(|&p| p as isize).collect(),
        after: after.iter().map(|&p| p as isize).collect(),
        kind,
    })
}

/// What [`out_and_pad`] computes for each spatial dim.
struct PadAndOut {
    out: Vec<usize>,
    before: Vec<isize>,
    after: Vec<isize>,
    /// tfjs's `padInfo.type`: `SAME`, `VALID` (no padding), `NUMBER` or `EXPLICIT`.
    kind: &'static str,
}

/// A window's full geometry as tfjs's `computeConv2DInfo`/`computeConv3DInfo` describe it
/// (`tf.backend_util`): the kernels' [`ConvGeom`] plus what only that description shows.
#[derive(Clone, Debug)]
pub struct WindowInfo {
    pub geom: ConvGeom,
    /// The dilated filter sizes.
    pub effective_filter: [usize; 3],
    /// Padding after each spatial axis (back, bottom, right).
    pub pad_after: [isize; 3],
    /// tfjs's `padInfo.type`.
    pub pad_type: &'static str,
}

/// [`WindowInfo`] of a window over `x` (`[batch, spatial..., channels]`, channels last) with
/// filter sizes `filter`, as the windowed ops compute it (`channels_first` says which input
/// dims explicit padding pairs refer to).
pub fn window_info(
    op: &str,
    x: &[usize],
    filter: &[usize],
    out_channels: usize,
    w: &Window,
    channels_first: bool,
) -> Result<WindowInfo> {
    if !(x.len() == 4 || x.len() == 5) || filter.len() + 2 != x.len() {
        bail!(
            "Error in {op}: a window over an input of shape [{}] needs {} filter sizes, but got [{}].",
            shape::fmt(x),
            x.len().saturating_sub(2),
            shape::fmt(filter)
        );
    }
    let n = x.len() - 2;
    let strides = whole(op, "strides", w.strides, n)?;
    let dilations = whole(op, "dilations", w.dilations, n)?;
    let effective: Vec<usize> =
        // (A filter of size 0 stays 0: it covers nothing, however dilated.)
        filter.iter().zip(&dilations).map(|(&f, &d)| if d <= 1 || f == 0 { f } else { f + (f - 1) * (d - 1) }).collect();
    let pad_dims: Vec<usize> = (0..n).map(|i| if channels_first { i + 2 } else { i + 1 }).collect();
    let p = out_and_pad(op, &x[1..=n], &effective, &strides, w, &pad_dims)?;
    let three = |v: &[usize]| -> [usize; 3] {
        if v.len() == 3 {
            [v[0], v[1], v[2]]
        } else {
            [1, v[0], v[1]]
        }
    };
    let three_pad = |v: &[isize]| if n == 3 { [v[0], v[1], v[2]] } else { [0, v[0], v[1]] };
    Ok(WindowInfo {
        geom: ConvGeom {
            batch: x[0],
            in_size: three(&x[1..=n]),
            in_channels: x[n + 1],
            out_size: three(&p.out),
            out_channels,
            filter: three(filter),
            strides: three(&strides),
            dilations: three(&dilations),
            pad: three_pad(&p.before),
        },
        effective_filter: three(&effective),
        pad_after: three_pad(&p.after),
        pad_type: p.kind,
    })
}

/// The shape with channels moved last (`[b, c, s...]` → `[b, s..., c]`) or back.
fn to_channels_last(s: &[usize]) -> Vec<usize> {
    let mut v = vec![s[0]];
    v.extend_from_slice(&s[2..]);
    v.push(s[1]);
    v
}

fn out_shape(g: &ConvGeom, spatial: usize) -> Vec<usize> {
    let mut v = vec![g.batch];
    v.extend_from_slice(&g.out_size[3 - spatial..]);
    v.push(g.out_channels);
    v
}

/// How an op's input is laid out around the channels-last, full-rank form its kernel takes.
#[derive(Clone, Copy)]
struct Layout {
    /// Spatial dims: 2 or 3.
    spatial: usize,
    /// The input came without its batch dim.
    unbatched: bool,
    channels_first: bool,
}

impl Engine {
    /// Runs one windowed kernel: `x` (and the filter) as float32 views of rank 5, the output
    /// registered as `out_dtype` in the caller's layout. `kernel` gets the backend, x's view and
    /// the filter's view.
    #[allow(clippy::too_many_arguments)]
    fn run_windowed(
        &mut self,
        name: &'static str,
        x: TensorId,
        filter: Option<TensorId>,
        layout: Layout,
        g: &ConvGeom,
        out_dtype: DType,
        extra: &[TensorId],
        kernel: impl FnOnce(&dyn Backend, View, Option<View>, &[Input]) -> Result<Box<dyn Storage>>,
    ) -> Result<TensorId> {
        let inputs: Vec<TensorId> = std::iter::once(x).chain(filter).chain(extra.iter().copied()).collect();
        let first_extra = inputs.len() - extra.len();
        let nhwc = out_shape(g, layout.spatial);
        self.check_size(&nhwc, out_dtype)?;
        self.run_kernel(name, &inputs, |e, backend, ins| {
            let mut xl = x;
            if layout.channels_first {
                let s = e.shape(x)?.to_vec();
                let full: Vec<i64> = if layout.unbatched {
                    std::iter::once(1).chain(s.iter().map(|&d| d as i64)).collect()
                } else {
                    s.iter().map(|&d| d as i64).collect()
                };
                let r = e.reshape(x, &full)?;
                let perm: Vec<i64> = if layout.spatial == 2 { vec![0, 2, 3, 1] } else { vec![0, 2, 3, 4, 1] };
                xl = e.transpose(r, Some(&perm))?;
            }
            let storage = {
                let xi = e.input(xl)?;
                let fi = filter.map(|f| e.input(f)).transpose()?;
                let xc = super::cast_if(&**backend, &xi, DType::Float32)?;
                let fc = match &fi {
                    Some(fi) => super::cast_if(&**backend, fi, DType::Float32)?,
                    None => None,
                };
                let xs = [g.batch, g.in_size[0], g.in_size[1], g.in_size[2], g.in_channels];
                let xv = super::view_of(&xi, &xc, &xs, DType::Float32);
                let fv = fi.as_ref().map(|fi| super::view_of(fi, &fc, &fi.shape, DType::Float32));
                let mut storage = kernel(&**backend, xv, fv, &ins[first_extra..])?;
                if out_dtype != DType::Float32 {
                    let view = View { storage: &*storage, shape: &nhwc, dtype: DType::Float32 };
                    storage = backend.cast(view, out_dtype)?;
                }
                storage
            };
            let mut out = e.output(storage, nhwc.clone(), out_dtype)?;
            if layout.channels_first {
                let perm: Vec<i64> = if layout.spatial == 2 { vec![0, 3, 1, 2] } else { vec![0, 4, 1, 2, 3] };
                out = e.transpose(out, Some(&perm))?;
            }
            if layout.unbatched {
                let s: Vec<i64> = e.shape(out)?[1..].iter().map(|&d| d as i64).collect();
                out = e.reshape(out, &s)?;
            }
            Ok(out)
        })
    }

    /// `tf.conv1d`: a conv2d over height 1 (as tfjs composes it).
    pub fn conv1d(
        &mut self,
        x: TensorId,
        filter: TensorId,
        stride: f64,
        pad: &Padding,
        data_format: &str,
        dilation: f64,
        rounding: Option<Rounding>,
    ) -> Result<TensorId> {
        let (xs, fs) = (self.shape(x)?.to_vec(), self.shape(filter)?.to_vec());
        let x3 = if xs.len() == 2 { [&[1], &xs[..]].concat() } else { xs.clone() };
        if x3.len() != 3 {
            bail!("Error in conv1d: input must be rank 3, but got rank {}.", x3.len());
        }
        if fs.len() != 3 {
            bail!("Error in conv1d: filter must be rank 3, but got rank {}.", fs.len());
        }
        if x3[2] != fs[1] {
            bail!("Error in conv1d: depth of input ({}) must match input depth for filter {}.", x3[2], fs[1]);
        }
        if stride != 1.0 && dilation != 1.0 {
            bail!(
                "Error in conv1D: Either stride or dilation must be 1. Got stride {} and dilation '{}'",
                js(stride),
                js(dilation)
            );
        }
        if !(dilation > 0.0) {
            bail!("Error in conv1D: Dilated rates should be larger than 0.");
        }
        if !(stride > 0.0) {
            bail!("Error in conv1D: Stride should be larger than 0.");
        }
        if data_format != "NWC" {
            bail!("Error in conv1d: got dataFormat of {data_format} but only NWC is currently supported.");
        }
        self.composed(|e| {
            let f4 = e.reshape(filter, &[1, fs[0] as i64, fs[1] as i64, fs[2] as i64])?;
            let x4 = e.reshape(x, &[x3[0] as i64, 1, x3[1] as i64, x3[2] as i64])?;
            let w = Window { strides: &[1.0, stride], dilations: &[1.0, dilation], pad, rounding };
            let y = e.conv(ConvKind::Conv2d, x4, f4, &w, false)?;
            let ys = e.shape(y)?.to_vec();
            if xs.len() == 2 {
                e.reshape(y, &[ys[2] as i64, ys[3] as i64])
            } else {
                e.reshape(y, &[ys[0] as i64, ys[2] as i64, ys[3] as i64])
            }
        })
    }

    /// `tf.separableConv2d` (NHWC): a depthwise convolution with `w`, then a 1x1 convolution
    /// mixing its channels, as tfjs composes it, with tfjs's checks in its order (the
    /// depthwise step's dtype checks come before the pointwise filter's). A rank-3 `x` is one
    /// image. Also the layers' SeparableConv2D.
    pub fn separable_conv2d(
        &mut self,
        x: TensorId,
        depthwise: TensorId,
        pointwise: TensorId,
        w: &Window,
        data_format: &str,
    ) -> Result<TensorId> {
        let (xs, ds, ps) = (self.shape(x)?.to_vec(), self.shape(depthwise)?.to_vec(), self.shape(pointwise)?.to_vec());
        let rank = if xs.len() == 3 { 4 } else { xs.len() };
        if data_format == "NCHW" {
            bail!("separableConv2d currently does not support dataFormat NCHW; only NHWC is supported");
        }
        if rank != 4 {
            bail!("Error in separableConv2d: input must be rank 4, but got rank {rank}.");
        }
        if ds.len() != 4 {
            bail!("Error in separableConv2d: depthwise filter must be rank 4, but got rank {}.", ds.len());
        }
        if ps.len() != 4 {
            // (tfjs's text names the depthwise filter's rank)
            bail!("Error in separableConv2d: pointwise filter must be rank 4, but got rank {}.", ds.len());
        }
        if ps[0] != 1 {
            bail!("Error in separableConv2d: the first dimension of pointwise filter  must be 1, but got {}.", ps[0]);
        }
        if ps[1] != 1 {
            bail!("Error in separableConv2d: the second dimension of pointwise filter must be 1, but got {}.", ps[1]);
        }
        let channels = ds[2] as f64 * ds[3] as f64;
        if ps[2] as f64 != channels {
            bail!(
                "Error in separableConv2d: the third dimension of pointwise filter must be {}, but got {}.",
                js(channels),
                ps[2]
            );
        }
        if data_format != "NHWC" {
            bail!("Unknown dataFormat {data_format}");
        }
        require_dtype("depthwiseConv2d", "x", DType::Float32, self.dtype(x)?)?;
        require_dtype("depthwiseConv2d", "filter", DType::Float32, self.dtype(depthwise)?)?;
        let pointwise_dtype = self.dtype(pointwise)?;
        self.composed(|e| {
            let dims = |s: &[usize]| s.iter().map(|&d| d as i64).collect::<Vec<_>>();
            let x4 = if xs.len() == 3 { e.reshape(x, &dims(&[&[1], &xs[..]].concat()))? } else { x };
            let d = e.conv(ConvKind::Depthwise2d, x4, depthwise, w, false)?;
            require_dtype("conv2d", "filter", DType::Float32, pointwise_dtype)?;
            let one = Window { strides: &[1.0], dilations: &[1.0], pad: &Padding::Valid, rounding: None };
            let y = e.conv(ConvKind::Conv2d, d, pointwise, &one, false)?;
            if xs.len() == 3 {
                let ys = e.shape(y)?.to_vec();
                e.reshape(y, &dims(&ys[1..]))
            } else {
                Ok(y)
            }
        })
    }

    /// `tf.conv2d`, `tf.conv3d`, `tf.depthwiseConv2d` and `tf.dilation2d` (an unbatched input
    /// gives an unbatched output). `channels_first` is NCHW data (2-D convolutions only).
    pub fn conv(
        &mut self,
        kind: ConvKind,
        x: TensorId,
        filter: TensorId,
        w: &Window,
        channels_first: bool,
    ) -> Result<TensorId> {
        self.conv_fused(kind, x, filter, w, channels_first, None)
    }

    /// tfjs's `fused.conv2d` and `fused.depthwiseConv2d` (NHWC): the convolution, then `f`'s
    /// bias and activation, as one kernel (`FusedConv2D`, `FusedDepthwiseConv2D`) when
    /// [`Engine::epilogue_fits`], else as tfjs composes it.
    pub fn fused_conv(
        &mut self,
        kind: ConvKind,
        x: TensorId,
        filter: TensorId,
        w: &Window,
        f: &Fused,
    ) -> Result<TensorId> {
        if !matches!(kind, ConvKind::Conv2d | ConvKind::Depthwise2d) {
            bail!("fused conv: only conv2d and depthwiseConv2d are fused, not {kind:?}");
        }
        self.conv_fused(kind, x, filter, w, false, Some(f))
    }

    fn conv_fused(
        &mut self,
        kind: ConvKind,
        x: TensorId,
        filter: TensorId,
        w: &Window,
        channels_first: bool,
        fused: Option<&Fused>,
    ) -> Result<TensorId> {
        let (xs, fs) = (self.shape(x)?.to_vec(), self.shape(filter)?.to_vec());
        let (xd, fd) = (self.dtype(x)?, self.dtype(filter)?);
        let (op, spatial) = match kind {
            ConvKind::Conv2d => ("conv2d", 2),
            ConvKind::Conv3d => ("conv3d", 3),
            ConvKind::Depthwise2d => ("depthwiseConv2d", 2),
            ConvKind::Dilation2d => ("dilation2d", 2),
        };
        let unbatched = xs.len() == spatial + 1;
        let mut full = xs.clone();
        if unbatched {
            full.insert(0, 1);
        }
        match kind {
            ConvKind::Dilation2d => {
                if xs.len() != 3 && xs.len() != 4 {
                    bail!("Error in dilation2d: input must be rank 3 or 4, but got rank {}.", xs.len());
                }
                if fs.len() != 3 {
                    bail!("Error in dilation2d: filter must be rank 3, but got rank {}.", fs.len());
                }
            }
            ConvKind::Depthwise2d => {
                if full.len() != 4 {
                    bail!("Error in depthwiseConv2d: input must be rank 4, but got rank {}.", full.len());
                }
                if fs.len() != 4 {
                    bail!("Error in depthwiseConv2d: filter must be rank 4, but got rank {}.", fs.len());
                }
            }
            _ => {
                if full.len() != spatial + 2 {
                    bail!("Error in {op}: input must be rank {}, but got rank {}.", spatial + 2, full.len());
                }
                if fs.len() != spatial + 2 {
                    bail!("Error in {op}: filter must be rank {}, but got rank {}.", spatial + 2, fs.len());
                }
            }
        }
        let in_channels = if channels_first { full[1] } else { full[spatial + 1] };
        match kind {
            ConvKind::Conv2d => {
                check_pad_rounding(op, w.pad, w.rounding)?;
                if in_channels != fs[2] {
                    bail!(
                        "Error in conv2d: depth of input ({in_channels}) must match input depth for filter {}.",
                        fs[2]
                    );
                }
                check_strides_dilations("conv2D", w.strides, w.dilations, true)?;
            }
            ConvKind::Conv3d => {
                if in_channels != fs[3] {
                    bail!(
                        "Error in conv3d: depth of input ({in_channels}) must match input depth for filter {}.",
                        fs[3]
                    );
                }
                check_strides_dilations("conv3D", w.strides, w.dilations, true)?;
            }
            ConvKind::Depthwise2d => {
                if in_channels != fs[2] {
                    bail!(
                        "Error in depthwiseConv2d: number of input channels ({in_channels}) must match the inChannels dimension in filter {}.",
                        fs[2]
                    );
                }
                check_pad_rounding(op, w.pad, w.rounding)?;
                check_strides_dilations("depthwiseConv2d", w.strides, w.dilations, false)?;
            }
            ConvKind::Dilation2d => {
                if full[3] != fs[2] {
                    bail!("Error in dilation2d:  input and filter must have the same depth: {} vs {}", full[3], fs[2]);
                }
            }
        }
        if matches!(kind, ConvKind::Conv2d | ConvKind::Depthwise2d) {
            require_dtype(op, "x", DType::Float32, xd)?;
            require_dtype(op, "filter", DType::Float32, fd)?;
        }
        let cl = if channels_first { to_channels_last(&full) } else { full.clone() };
        let taps = &fs[..spatial];
        let out_channels = match kind {
            ConvKind::Conv2d | ConvKind::Conv3d => fs[spatial + 1],
            ConvKind::Depthwise2d => in_channels * fs[3],
            ConvKind::Dilation2d => in_channels,
        };
        let g = window_info(op, &cl, taps, out_channels, w, channels_first)?.geom;
        let layout = Layout { spatial, unbatched, channels_first };
        let (name, out_dtype) = match kind {
            ConvKind::Conv2d => (k::CONV2D, DType::Float32),
            ConvKind::Conv3d => (k::CONV3D, xd),
            ConvKind::Depthwise2d => (k::DEPTHWISE_CONV2D_NATIVE, DType::Float32),
            ConvKind::Dilation2d => (k::DILATION2D, xd),
        };
        let g2 = g.clone();
        if let Some(f) = fused {
            let nhwc = out_shape(&g, spatial);
            let shown = if unbatched { &nhwc[1..] } else { &nhwc[..] };
            if channels_first || !self.epilogue_fits(shown, out_dtype, f)? {
                let y = self.conv_fused(kind, x, filter, w, channels_first, None)?;
                return self.compose_epilogue(y, f);
            }
            let name = if kind == ConvKind::Depthwise2d { k::FUSED_DEPTHWISE_CONV2D } else { k::FUSED_CONV2D };
            let f = *f;
            return self.run_windowed(
                name,
                x,
                Some(filter),
                layout,
                &g,
                out_dtype,
                &f.inputs(),
                move |b, xv, fv, extra| {
                    let fv = fv.expect("a filter");
                    let (bias, alpha) = epilogue_params(&f, extra);
                    b.fused_conv(xv, fv, &g2, kind == ConvKind::Depthwise2d, bias, f.activation, alpha)
                },
            );
        }
        let y = self.run_windowed(name, x, Some(filter), layout, &g, out_dtype, &[], move |b, xv, fv, _| {
            let fv = fv.expect("a filter");
            match kind {
                ConvKind::Conv2d | ConvKind::Conv3d => b.conv(xv, fv, &g2),
                ConvKind::Depthwise2d => b.depthwise_conv(xv, fv, &g2),
                ConvKind::Dilation2d => b.dilation(xv, fv, &g2),
            }
        })?;
        if self.taping() && kind == ConvKind::Dilation2d {
            let (x_shape, f_shape, g) = (xs.clone(), fs.clone(), g.clone());
            self.on_tape(&[y], &[x, filter], move |e, gr| {
                let dy = e.to_ndhwc(gr.dy(), layout)?;
                let x5 = e.to_ndhwc(gr.saved[0], layout)?;
                let f = e.cast(gr.saved[1], DType::Float32)?;
                let (dx, df) = e.dilation_grads_ndhwc(x5, f, dy, &g)?;
                let dx = if gr.needed[0] { Some(e.from_ndhwc(dx, layout, &x_shape)?) } else { None };
                let dims: Vec<i64> = f_shape.iter().map(|&d| d as i64).collect();
                let df = if gr.needed[1] { Some(e.reshape(df, &dims)?) } else { None };
                Ok(vec![dx, df])
            })?;
        }
        if self.taping() && matches!(kind, ConvKind::Conv2d | ConvKind::Conv3d | ConvKind::Depthwise2d) {
            let dilated = g.dilations.iter().any(|&d| d > 1);
            let (x_shape, f_shape) = (xs.clone(), fs.clone());
            self.on_tape(&[y], &[x, filter], move |e, gr| {
                if dilated {
                    bail!(
                        "Error in gradient of {op}: dilation rates greater than 1 are not yet supported in gradients. Got dilations '{}'",
                        shape::fmt(&g.dilations[3 - spatial..])
                    );
                }
                let dy = e.to_ndhwc(gr.dy(), layout)?;
                let depthwise = kind == ConvKind::Depthwise2d;
                let dx = if gr.needed[0] {
                    let f = e.cast(gr.saved[1], DType::Float32)?;
                    // A depthwise filter is a full one that links each input channel only to
                    // its own outputs.
                    let f = if depthwise { e.depthwise_as_full(f, g.in_channels)? } else { f };
                    let dx = e.conv_input_grad_ndhwc(dy, f, &g)?;
                    Some(e.from_ndhwc(dx, layout, &x_shape)?)
                } else {
                    None
                };
                let df = if gr.needed[1] {
                    let x5 = e.to_ndhwc(gr.saved[0], layout)?;
                    let df = e.conv_filter_grad_ndhwc(x5, dy, &g, depthwise)?;
                    let dims: Vec<i64> = f_shape.iter().map(|&d| d as i64).collect();
                    Some(e.reshape(df, &dims)?)
                } else {
                    None
                };
                Ok(vec![dx, df])
            })?;
        }
        Ok(y)
    }

    // ---- gradients of the windowed ops ----

    /// `x` `[b, d, h, w, c]` padded with `value` so that every tap of every window lies
    /// inside; with the padding before each spatial axis and the padded spatial sizes.
    fn pad_for_taps(&mut self, x: TensorId, g: &ConvGeom, value: f64) -> Result<(TensorId, [usize; 3], [usize; 3])> {
        let (mut before, mut after) = (vec![0usize; 5], vec![0usize; 5]);
        let mut padded = [0usize; 3];
        for a in 0..3 {
            if g.pad[a] < 0 {
                bail!("Gradients of windows with negative padding are not supported");
            }
            let p = g.pad[a] as usize;
            let reach = if g.out_size[a] == 0 {
                0
            } else {
                (g.out_size[a] - 1) * g.strides[a] + (g.filter[a] - 1) * g.dilations[a] + 1
            };
            before[a + 1] = p;
            after[a + 1] = reach.saturating_sub(g.in_size[a] + p);
            padded[a] = g.in_size[a] + p + after[a + 1];
        }
        let xp = self.pad_with(x, &before, &after, value)?;
        Ok((xp, [before[1], before[2], before[3]], padded))
    }

    /// What tap `tap` (depth, height, width) of every window reads from an input padded by
    /// [`Engine::pad_for_taps`]: `[b, od, oh, ow, c]`, gathered axis by axis.
    fn tap_patch(&mut self, xp: TensorId, g: &ConvGeom, tap: [usize; 3]) -> Result<TensorId> {
        if g.strides == [1, 1, 1] {
            // Unit strides: one slice (a copy) instead of a gather per axis.
            let c = self.shape(xp)?[4] as i64;
            let mut begin = vec![0i64; 5];
            let mut size = vec![g.batch as i64, 0, 0, 0, c];
            for a in 0..3 {
                begin[a + 1] = (tap[a] * g.dilations[a]) as i64;
                size[a + 1] = g.out_size[a] as i64;
            }
            return self.slice(xp, &begin, &size);
        }
        let mut patch = xp;
        for (a, t) in tap.into_iter().enumerate() {
            let idx: Vec<i32> = (0..g.out_size[a]).map(|o| (o * g.strides[a] + t * g.dilations[a]) as i32).collect();
            let len = idx.len();
            let idx = self.tensor(crate::HostData::I32(idx), &[len])?;
            patch = self.gather(patch, idx, (a + 1) as i64, 0)?;
        }
        Ok(patch)
    }

    /// The gradients of a grayscale dilation (tfjs's Dilation2DBackpropInput/Filter): each dy
    /// goes to the input value and the filter tap of its window's maximum (the first, in tap
    /// order). Each tap's candidates are gathered from the input padded with -Infinity (a tap
    /// outside never wins), and the input gradient scattered back to where they came from.
    fn dilation_grads_ndhwc(
        &mut self,
        x: TensorId,
        f: TensorId,
        dy: TensorId,
        g: &ConvGeom,
    ) -> Result<(TensorId, TensorId)> {
        let c = g.in_channels;
        let (xp, before, padded) = self.pad_for_taps(x, g, f64::NEG_INFINITY)?;
        let taps = g.taps();
        let fw = self.reshape(f, &[taps as i64, c as i64])?;
        let n = g.batch * g.out_spatial() * c;
        // The row indices below are int32 and made on the host: both must fit.
        let size = g.batch * padded.iter().product::<usize>() * c;
        if size > i32::MAX as usize {
            bail!("dilation2d gradient: the padded input has {size} values, more than int32 indices reach");
        }
        self.check_size(&[taps, n], DType::Int32)?;
        let (mut values, mut rows) = (Vec::with_capacity(taps), Vec::with_capacity(taps));
        let mut t = 0;
        for tz in 0..g.filter[0] {
            for ty in 0..g.filter[1] {
                for tx in 0..g.filter[2] {
                    let patch = self.tap_patch(xp, g, [tz, ty, tx])?;
                    let w = self.slice_axis(fw, 0, t, 1)?;
                    let w = self.reshape(w, &[c as i64])?;
                    values.push(self.add(patch, w)?);
                    // Where each of this tap's candidates sits in the padded input.
                    let mut r = Vec::with_capacity(n);
                    for b in 0..g.batch {
                        for oz in 0..g.out_size[0] {
                            for oy in 0..g.out_size[1] {
                                for ox in 0..g.out_size[2] {
                                    let z = oz * g.strides[0] + tz * g.dilations[0];
                                    let yy = oy * g.strides[1] + ty * g.dilations[1];
                                    let xx = ox * g.strides[2] + tx * g.dilations[2];
                                    let base = (((b * padded[0] + z) * padded[1] + yy) * padded[2] + xx) * c;
                                    r.extend((0..c).map(|ch| (base + ch) as i32));
                                }
                            }
                        }
                    }
                    rows.push(r);
                    t += 1;
                }
            }
        }
        let stacked = self.stack(&values, 0)?;
        let best = self.arg_reduce(crate::ArgOp::ArgMax, stacked, 0)?;
        let dy = self.cast(dy, DType::Float32)?;
        let (mut dfs, mut updates) = (Vec::with_capacity(taps), Vec::with_capacity(taps));
        for tap in 0..taps {
            let k = self.fill(&[], tap as f64, DType::Int32)?;
            let hit = self.mask(BinaryOp::Equal, best, k)?;
            let contribution = self.mul(dy, hit)?;
            dfs.push(self.reduce(crate::ReduceOp::Sum, contribution, Some(&[0, 1, 2, 3]), false)?);
            updates.push(self.reshape(contribution, &[n as i64, 1])?);
        }
        let df = self.stack(&dfs, 0)?;
        let all_rows: Vec<i32> = rows.concat();
        let len = all_rows.len();
        let rows = self.tensor(crate::HostData::I32(all_rows), &[len])?;
        let updates = self.concat(&updates, 0)?;
        let dxp = self.scatter_rows(None, rows, updates, size)?;
        let dims = [g.batch, padded[0], padded[1], padded[2], c].map(|d| d as i64);
        let dxp = self.reshape(dxp, &dims)?;
        let begin: Vec<i64> = [0, before[0], before[1], before[2], 0].iter().map(|&b| b as i64).collect();
        let size = [g.batch, g.in_size[0], g.in_size[1], g.in_size[2], c].map(|d| d as i64);
        let dx = self.slice(dxp, &begin, &size)?;
        Ok((dx, df))
    }

    /// A tensor in `layout` (its op's input or output) as float32 `[batch, d, h, w, channels]`.
    fn to_ndhwc(&mut self, t: TensorId, layout: Layout) -> Result<TensorId> {
        let mut t = self.cast(t, DType::Float32)?;
        let mut s = self.shape(t)?.to_vec();
        if layout.unbatched {
            s.insert(0, 1);
        }
        if layout.channels_first {
            let dims: Vec<i64> = s.iter().map(|&d| d as i64).collect();
            t = self.reshape(t, &dims)?;
            let perm: Vec<i64> = if layout.spatial == 2 { vec![0, 2, 3, 1] } else { vec![0, 2, 3, 4, 1] };
            t = self.transpose(t, Some(&perm))?;
            s = to_channels_last(&s);
        }
        if layout.spatial == 2 {
            s.insert(1, 1);
        }
        let dims: Vec<i64> = s.iter().map(|&d| d as i64).collect();
        self.reshape(t, &dims)
    }

    /// [`Engine::to_ndhwc`] undone: `t` `[batch, d, h, w, channels]` back to `layout`, as a
    /// tensor of `shape`.
    fn from_ndhwc(&mut self, t: TensorId, layout: Layout, shape: &[usize]) -> Result<TensorId> {
        let mut t = t;
        if layout.channels_first {
            t = self.transpose(t, Some(&[0, 4, 1, 2, 3]))?;
        }
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        self.reshape(t, &dims)
    }

    /// The input gradient of a convolution, `dy` `[b, od, oh, ow, co]` to `[b, d, h, w, ci]`.
    fn conv_input_grad_ndhwc(&mut self, dy: TensorId, filter: TensorId, g: &ConvGeom) -> Result<TensorId> {
        let out = vec![g.batch, g.in_size[0], g.in_size[1], g.in_size[2], g.in_channels];
        self.check_size(&out, DType::Float32)?;
        let g2 = g.clone();
        self.run_kernel(k::CONV2D_BACKPROP_INPUT, &[dy, filter], move |e, backend, ins| {
            if shape::size(&out) == 0 || shape::size(&ins[0].shape) == 0 {
                return e.filled(&out, 0.0, DType::Float32);
            }
            let fshape = [g2.filter[0], g2.filter[1], g2.filter[2], g2.in_channels, g2.out_channels];
            let fv = View { storage: &*ins[1].data.storage, shape: &fshape, dtype: DType::Float32 };
            let storage = backend.conv_input_grad(ins[0].view(), fv, &g2)?;
            e.output(storage, out, DType::Float32)
        })
    }

    /// A depthwise filter `[fh, fw, c, m]` as the full filter `[fh, fw, c, c * m]` whose input
    /// channel `i` reaches only outputs `i * m..(i + 1) * m`.
    fn depthwise_as_full(&mut self, f: TensorId, c: usize) -> Result<TensorId> {
        let fs = self.shape(f)?.to_vec();
        let (fh, fw, m) = (fs[0] as i64, fs[1] as i64, fs[3] as i64);
        let eye = self.eye(c as i64, None, &[], DType::Float32)?;
        let eye = self.reshape(eye, &[1, 1, c as i64, c as i64, 1])?;
        let f = self.reshape(f, &[fh, fw, c as i64, 1, m])?;
        let full = self.mul(f, eye)?;
        self.reshape(full, &[fh, fw, c as i64, c as i64 * m])
    }

    /// The filter gradient of a convolution: for each tap, the input values it met (a strided
    /// window of the zero-padded input) times `dy`, summed over every output. For a depthwise
    /// convolution each input channel meets only its own outputs. The long sum over outputs is
    /// split into equal chunks where `n` allows (a batched product, then a sum), so that a GPU
    /// spreads it over workgroups instead of one walking all of it.
    fn conv_filter_grad_ndhwc(&mut self, x: TensorId, dy: TensorId, g: &ConvGeom, depthwise: bool) -> Result<TensorId> {
        let (ci, co) = (g.in_channels, g.out_channels);
        let (xp, _, _) = self.pad_for_taps(x, g, 0.0)?;
        let n = g.batch * g.out_spatial();
        let dy2 = self.reshape(dy, &[n as i64, co as i64])?;
        // The largest chunk of at most 1024 outputs that divides n, if it is worth splitting.
        let chunk = (256..=1024.min(n / 2)).rev().find(|c| n.is_multiple_of(*c));
        let dy3 = match chunk {
            Some(c) => Some(self.reshape(dy2, &[(n / c) as i64, c as i64, co as i64])?),
            None => None,
        };
        let mut taps = Vec::with_capacity(g.taps());
        for tz in 0..g.filter[0] {
            for ty in 0..g.filter[1] {
                for tx in 0..g.filter[2] {
                    let patch = self.tap_patch(xp, g, [tz, ty, tx])?;
                    if depthwise {
                        // dW[c, q] = sum over outputs of x[., c] * dy[., c * m + q]
                        let m = (co / ci.max(1)) as i64;
                        let patch = self.reshape(patch, &[n as i64, ci as i64, 1])?;
                        let dy3 = self.reshape(dy2, &[n as i64, ci as i64, m])?;
                        let prod = self.mul(patch, dy3)?;
                        taps.push(self.reduce(crate::ReduceOp::Sum, prod, Some(&[0]), false)?);
                    } else if let (Some(c), Some(dy3)) = (chunk, dy3) {
                        let patch = self.reshape(patch, &[(n / c) as i64, c as i64, ci as i64])?;
                        let parts = self.matmul(patch, dy3, true, false)?;
                        taps.push(self.reduce(crate::ReduceOp::Sum, parts, Some(&[0]), false)?);
                    } else {
                        let patch = self.reshape(patch, &[n as i64, ci as i64])?;
                        taps.push(self.matmul(patch, dy2, true, false)?);
                    }
                }
            }
        }
        self.stack(&taps, 0)
    }

    /// `tf.conv2dTranspose` and `tf.conv3dTranspose` (tfjs's Conv2DBackpropInput and
    /// Conv3DBackpropInputV2): the input gradient of a convolution of an input of shape
    /// `input_shape`, given `dy` and the convolution's filter.
    pub fn conv_transpose(
        &mut self,
        spatial: usize,
        input_shape: &[i64],
        dy: TensorId,
        filter: TensorId,
        w: &Window,
    ) -> Result<TensorId> {
        let (ds, fs) = (self.shape(dy)?.to_vec(), self.shape(filter)?.to_vec());
        let op = if spatial == 2 { "conv2dDerInput" } else { "conv3dDerInput" };
        if input_shape.len() != ds.len() {
            bail!("Length of inShape ({}) and rank of dy ({}) must match", input_shape.len(), ds.len());
        }
        let unbatched = ds.len() == spatial + 1;
        let (mut xs, mut dfull) = (input_shape.to_vec(), ds.clone());
        if unbatched {
            xs.insert(0, 1);
            dfull.insert(0, 1);
        }
        let rank = spatial + 2;
        if xs.len() != rank {
            bail!("Error in {op}: inShape must be length {rank}, but got length {}.", xs.len());
        }
        if dfull.len() != rank {
            bail!("Error in {op}: dy must be rank {rank}, but got rank {}", dfull.len());
        }
        if fs.len() != rank {
            bail!("Error in {op}: filter must be rank {rank}, but got rank {}", fs.len());
        }
        let xs = shape::from_user(&xs)?;
        let (in_depth, out_depth) = (xs[rank - 1], dfull[rank - 1]);
        if in_depth != fs[spatial] {
            bail!("Error in {op}: depth of input ({in_depth}) must match input depth for filter {}.", fs[spatial]);
        }
        if out_depth != fs[spatial + 1] {
            bail!(
                "Error in {op}: depth of output ({out_depth}) must match output depth for filter {}.",
                fs[spatial + 1]
            );
        }
        if spatial == 2 {
            check_pad_rounding(op, w.pad, w.rounding)?;
        }
        let g = window_info(op, &xs, &fs[..spatial], out_depth, w, false)?.geom;
        let want = out_shape(&g, spatial);
        if want.iter().zip(&dfull).any(|(w, d)| w > d) {
            bail!(
                "Error in {op}: dy has shape {} but a convolution of an input of shape {} gives {}.",
                shape::fmt(&dfull),
                shape::fmt(&xs),
                shape::fmt(&want)
            );
        }
        // tfjs reads only the part of a larger dy that the convolution would have made.
        let cropped = want != dfull;
        let name = if spatial == 2 { k::CONV2D_BACKPROP_INPUT } else { k::CONV3D_BACKPROP_INPUT_V2 };
        self.check_size(&xs, DType::Float32)?;
        let y = self.run_kernel(name, &[dy, filter], |e, backend, ins| {
            let dyin = if cropped {
                let d =
                    if unbatched { e.reshape(dy, &dfull.iter().map(|&d| d as i64).collect::<Vec<_>>())? } else { dy };
                let begin = vec![0i64; rank];
                let size: Vec<i64> = want.iter().map(|&d| d as i64).collect();
                let sliced = e.slice(d, &begin, &size)?;
                Some(e.input(sliced)?)
            } else {
                None
            };
            let dyi = dyin.as_ref().unwrap_or(&ins[0]);
            let (dc, fc) = (
                super::cast_if(&**backend, dyi, DType::Float32)?,
                super::cast_if(&**backend, &ins[1], DType::Float32)?,
            );
            let dshape = [g.batch, g.out_size[0], g.out_size[1], g.out_size[2], g.out_channels];
            let dv = super::view_of(dyi, &dc, &dshape, DType::Float32);
            let fv = super::view_of(&ins[1], &fc, &ins[1].shape, DType::Float32);
            let storage = backend.conv_input_grad(dv, fv, &g)?;
            let out_shape = if unbatched { xs[1..].to_vec() } else { xs.clone() };
            e.output(storage, out_shape, DType::Float32)
        })?;
        if self.taping() {
            self.on_tape(&[y], &[dy, filter], move |e, gr| {
                if g.dilations.iter().any(|&d| d > 1) {
                    bail!(
                        "Error in gradient of {op}: dilation rates greater than 1 are not yet supported in gradients."
                    );
                }
                // The transposed convolution's own gradients: the convolution of the incoming
                // gradient (for dy), and a filter gradient with the roles of x and dy swapped.
                let ddx = e.cast(gr.dy(), DType::Float32)?;
                let x5 = [g.batch, g.in_size[0], g.in_size[1], g.in_size[2], g.in_channels].map(|d| d as i64);
                let ddx = e.reshape(ddx, &x5)?;
                let d_dy = if gr.needed[0] {
                    let f = e.cast(gr.saved[1], DType::Float32)?;
                    let c = e.conv_ndhwc(ddx, f, &g)?;
                    let want_dims: Vec<i64> = want.iter().map(|&d| d as i64).collect();
                    let c = e.reshape(c, &want_dims)?;
                    let after: Vec<usize> = dfull.iter().zip(&want).map(|(d, w)| d - w).collect();
                    let c = e.pad_zeros(c, &vec![0; after.len()], &after)?;
                    Some(e.reshape(c, &ds.iter().map(|&d| d as i64).collect::<Vec<_>>())?)
                } else {
                    None
                };
                let d_f = if gr.needed[1] {
                    let d = e.cast(gr.saved[0], DType::Float32)?;
                    let d = e.reshape(d, &dfull.iter().map(|&v| v as i64).collect::<Vec<_>>())?;
                    let d = e.slice(d, &vec![0; want.len()], &want.iter().map(|&v| v as i64).collect::<Vec<_>>())?;
                    let d5 = [g.batch, g.out_size[0], g.out_size[1], g.out_size[2], g.out_channels].map(|v| v as i64);
                    let d = e.reshape(d, &d5)?;
                    let df = e.conv_filter_grad_ndhwc(ddx, d, &g, false)?;
                    Some(e.reshape(df, &fs.iter().map(|&v| v as i64).collect::<Vec<_>>())?)
                } else {
                    None
                };
                Ok(vec![d_dy, d_f])
            })?;
        }
        Ok(y)
    }

    /// A convolution of `x` `[b, d, h, w, ci]` with a full filter, as `[b, od, oh, ow, co]`.
    fn conv_ndhwc(&mut self, x: TensorId, filter: TensorId, g: &ConvGeom) -> Result<TensorId> {
        let out = vec![g.batch, g.out_size[0], g.out_size[1], g.out_size[2], g.out_channels];
        self.check_size(&out, DType::Float32)?;
        let g2 = g.clone();
        self.run_kernel(k::CONV2D, &[x, filter], move |e, backend, ins| {
            if shape::size(&out) == 0 || shape::size(&ins[0].shape) == 0 {
                return e.filled(&out, 0.0, DType::Float32);
            }
            let fshape = [g2.filter[0], g2.filter[1], g2.filter[2], g2.in_channels, g2.out_channels];
            let fv = View { storage: &*ins[1].data.storage, shape: &fshape, dtype: DType::Float32 };
            let storage = backend.conv(ins[0].view(), fv, &g2)?;
            e.output(storage, out, DType::Float32)
        })
    }

    /// `tf.maxPool`, `tf.avgPool`, `tf.maxPool3d` and `tf.avgPool3d` (an unbatched input gives
    /// an unbatched output). Max pooling keeps int32 in tfjs's 2-D op; the rest give float32.
    pub fn pool(&mut self, kind: PoolKind, x: TensorId, filter_size: &[f64], w: &Window) -> Result<TensorId> {
        let (xs, xd) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        let (op, spatial, pool) = match kind {
            PoolKind::Max2d => ("maxPool", 2, PoolOp::Max),
            PoolKind::Avg2d => ("avgPool", 2, PoolOp::Avg),
            PoolKind::Max3d => ("maxPool3d", 3, PoolOp::Max),
            PoolKind::Avg3d => ("avgPool3d", 3, PoolOp::Avg),
        };
        if pool == PoolOp::Avg {
            require_dtype(op, "x", DType::Float32, xd)?;
        }
        if spatial == 2 {
            check_strides_dilations(op, w.strides, &[1.0], false)?;
        }
        let unbatched = xs.len() == spatial + 1;
        let mut full = xs.clone();
        if unbatched {
            full.insert(0, 1);
        }
        if full.len() != spatial + 2 {
            let what = if kind == PoolKind::Max2d { "input" } else { "x" };
            bail!("Error in {op}: {what} must be rank {} but got rank {}.", spatial + 2, full.len());
        }
        if kind == PoolKind::Avg3d && w.strides.iter().any(|&s| !(s > 0.0)) {
            bail!("Error in avgPool3d: Stride must be > 0, but got '{}'", js_list(w.strides));
        }
        check_pad_rounding(op, w.pad, w.rounding)?;
        let sizes = whole(op, "filterSize", filter_size, spatial)?;
        let g = window_info(op, &full, &sizes, full[spatial + 1], w, false)?.geom;
        let name = match kind {
            PoolKind::Max2d => k::MAX_POOL,
            PoolKind::Avg2d => k::AVG_POOL,
            PoolKind::Max3d => k::MAX_POOL_3D,
            PoolKind::Avg3d => k::AVG_POOL_3D,
        };
        let out_dtype = if kind == PoolKind::Max2d { xd } else { DType::Float32 };
        if spatial == 2 && g.filter == [1, 1, 1] && g.out_size == g.in_size {
            // tfjs's 2-D pools return their input unchanged for a 1x1 window whose output has
            // the input's shape, whatever the strides and padding.
            let y = self.run_kernel(name, &[x], |e, _, ins| Ok(e.share(ins[0].data.clone(), xs.clone(), xd)))?;
            self.on_tape(&[y], &[], |e, g| Ok(vec![Some(e.cast(g.dy(), DType::Float32)?)]))?;
            return Ok(y);
        }
        let layout = Layout { spatial, unbatched, channels_first: false };
        let g2 = g.clone();
        let y =
            self.run_windowed(name, x, None, layout, &g, out_dtype, &[], move |b, xv, _, _| b.pool(pool, xv, &g2))?;
        if self.taping() {
            self.on_tape(&[y], &[x], move |e, gr| {
                let dy = e.to_ndhwc(gr.dy(), layout)?;
                let dx = match pool {
                    PoolOp::Max => {
                        let x5 = e.to_ndhwc(gr.saved[0], layout)?;
                        e.max_pool_grad_ndhwc(x5, dy, &g)?
                    }
                    PoolOp::Avg => e.avg_pool_grad_ndhwc(dy, &g)?,
                };
                Ok(vec![Some(e.from_ndhwc(dx, layout, &xs)?)])
            })?;
        }
        Ok(y)
    }

    /// `tf.pool`: 2-D max (or, with `avg`, average) pooling whose window may be dilated. As tfjs
    /// composes it, a dilated window runs as an undilated 'valid' pool over spaceToBatchND's
    /// blocks of the input (padded for 'same' as the dilated window needs), put back by
    /// batchToSpaceND; an undilated one is `tf.maxPool` / `tf.avgPool`. A rank-3 `x` is one
    /// image.
    pub fn dilated_pool(&mut self, avg: bool, x: TensorId, window: &[f64], w: &Window) -> Result<TensorId> {
        let xs = self.shape(x)?.to_vec();
        let one = |v: &[f64]| v.iter().all(|&s| s == 1.0);
        if !one(w.strides) && !one(w.dilations) {
            bail!(
                "Error in pool: Either strides or dilations must be 1. Got strides {} and dilations '{}'",
                js_list(w.strides),
                js_list(w.dilations)
            );
        }
        let (kind, op) = if avg { (PoolKind::Avg2d, "avgPool") } else { (PoolKind::Max2d, "maxPool") };
        let dilation = whole(op, "dilations", w.dilations, 2)?;
        let undilated = |pad| Window { strides: w.strides, dilations: &[1.0], pad, rounding: w.rounding };
        self.composed(|e| {
            let dims = |s: &[usize]| s.iter().map(|&d| d as i64).collect::<Vec<_>>();
            let x4 = if xs.len() == 3 { e.reshape(x, &dims(&[&[1], &xs[..]].concat()))? } else { x };
            let y = if dilation == [1, 1] {
                e.pool(kind, x4, window, &undilated(w.pad))?
            } else {
                let blocks = [dilation[0] as f64, dilation[1] as f64];
                let s4 = e.shape(x4)?.to_vec();
                if s4.len() < 4 {
                    // spaceToBatchND's rank error, as in tfjs.
                    e.space_to_batch_nd(x4, &blocks, &[[0.0, 0.0]; 2])?;
                    bail!("Error in {op}: input must be rank 4 but got rank {}.", s4.len());
                }
                let filter = whole(op, "filterSize", window, 2)?;
                let too_large = || {
                    crate::Error::new(format!("Error in pool: the dilated window {} is too large.", js_list(window)))
                };
                let mut paddings = [[0.0; 2]; 2];
                let mut crops = [[0.0; 2]; 2];
                for i in 0..2 {
                    let (f, d) = (filter[i] as u128, dilation[i] as u128);
                    // tfjs's withSpaceToBatchBasePaddings ('same') and requiredSpaceToBatchPaddings.
                    let extent = f + (f - 1) * (d - 1) - 1;
                    let (start, end) = if *w.pad == Padding::Same { (extent / 2, extent - extent / 2) } else { (0, 0) };
                    let full = s4[1 + i] as u128 + start + end;
                    let extra = (d - full % d) % d;
                    let start = u32::try_from(start).map_err(|_| too_large())?;
                    let end = u32::try_from(end + extra).map_err(|_| too_large())?;
                    paddings[i] = [start as f64, end as f64];
                    crops[i] = [0.0, extra as f64];
                }
                let blocked = e.space_to_batch_nd(x4, &blocks, &paddings)?;
                let pooled = e.pool(kind, blocked, window, &undilated(&Padding::Valid))?;
                e.batch_to_space_nd(pooled, &blocks, &crops)?
            };
            if xs.len() == 3 {
                let ys = e.shape(y)?.to_vec();
                e.reshape(y, &dims(&ys[1..]))
            } else {
                Ok(y)
            }
        })
    }

    /// Max pooling's input gradient: each dy goes to where its window's maximum was (the
    /// first, in tap order, as tfjs). Where scatter is cheap, each dy is added at its window's
    /// maximum position. Elsewhere, no scatter: the winning tap of each window (an argMax over
    /// the taps' candidates, the input padded with -Infinity) selects dy into one channel per
    /// tap, and a transposed convolution with a filter that puts channel `t` at tap `t` lays
    /// them back onto the input, summing where windows overlap. A scatter would cost a GPU
    /// thread per input element a walk over every update.
    fn max_pool_grad_ndhwc(&mut self, x: TensorId, dy: TensorId, g: &ConvGeom) -> Result<TensorId> {
        if self.backend()?.cheap_scatter() {
            let out = vec![g.batch, g.out_size[0], g.out_size[1], g.out_size[2], g.in_channels];
            let g2 = g.clone();
            let positions = self.run_kernel(k::MAX_POOL_WITH_ARGMAX, &[x], move |e, backend, ins| {
                if shape::size(&out) == 0 {
                    return e.filled(&out, 0.0, DType::Int32);
                }
                let storage = backend.max_pool_positions(ins[0].view(), &g2, true)?;
                e.output(storage, out, DType::Int32)
            })?;
            let rows = self.reshape(positions, &[-1])?;
            let updates = self.reshape(dy, &[-1, 1])?;
            let size = g.batch * g.in_spatial() * g.in_channels;
            let dx = self.scatter_rows(None, rows, updates, size)?;
            let dims = [g.batch, g.in_size[0], g.in_size[1], g.in_size[2], g.in_channels].map(|d| d as i64);
            return self.reshape(dx, &dims);
        }
        let taps = g.taps();
        let (b, c) = (g.batch, g.in_channels);
        let [od, oh, ow] = g.out_size.map(|d| d as i64);
        let dy6 = self.reshape(dy, &[b as i64, od, oh, ow, c as i64, 1])?;
        let routed = if taps == 1 {
            dy6
        } else {
            let (xp, _, _) = self.pad_for_taps(x, g, f64::NEG_INFINITY)?;
            let mut candidates = Vec::with_capacity(taps);
            for tz in 0..g.filter[0] {
                for ty in 0..g.filter[1] {
                    for tx in 0..g.filter[2] {
                        candidates.push(self.tap_patch(xp, g, [tz, ty, tx])?);
                    }
                }
            }
            let all = self.stack(&candidates, 5)?;
            let winner = self.arg_reduce(crate::ArgOp::ArgMax, all, 5)?;
            let chosen = self.one_hot(winner, taps as f64, 1.0, 0.0, DType::Float32)?;
            self.mul(chosen, dy6)?
        };
        // Channels become batch entries: [b * c, od, oh, ow, taps].
        let t = self.transpose(routed, Some(&[0, 4, 1, 2, 3, 5]))?;
        let t = self.reshape(t, &[(b * c) as i64, od, oh, ow, taps as i64])?;
        let eye = self.eye(taps as i64, None, &[], DType::Float32)?;
        let [fd, fh, fw] = g.filter.map(|d| d as i64);
        let place = self.reshape(eye, &[fd, fh, fw, 1, taps as i64])?;
        let g1 = ConvGeom { batch: b * c, in_channels: 1, out_channels: taps, ..g.clone() };
        let dx = self.conv_input_grad_ndhwc(t, place, &g1)?;
        let [d, h, w] = g.in_size.map(|v| v as i64);
        let dx = self.reshape(dx, &[b as i64, c as i64, d, h, w])?;
        self.transpose(dx, Some(&[0, 2, 3, 4, 1]))
    }

    /// Average pooling's input gradient: each dy divided by the number of input values its
    /// window averaged (fewer at padded edges: tfjs divides by the whole window there, which
    /// is wrong), spread over that window. Channels become batch entries of a one-channel
    /// transposed convolution with a filter of ones.
    fn avg_pool_grad_ndhwc(&mut self, dy: TensorId, g: &ConvGeom) -> Result<TensorId> {
        let (b, c) = (g.batch, g.in_channels);
        let [od, oh, ow] = g.out_size;
        // How many input values each output averaged, axis by axis.
        let valid = |a: usize, o: usize| (0..g.filter[a]).filter(|&t| g.input_coord(a, o, t).is_some()).count();
        let mut counts = Vec::with_capacity(od * oh * ow);
        for z in 0..od {
            for y in 0..oh {
                for x in 0..ow {
                    counts.push((valid(0, z) * valid(1, y) * valid(2, x)).max(1) as f32);
                }
            }
        }
        let counts = self.tensor(crate::HostData::F32(counts), &[1, od, oh, ow, 1])?;
        let scaled = self.div(dy, counts)?;
        let t = self.transpose(scaled, Some(&[0, 4, 1, 2, 3]))?;
        let t = self.reshape(t, &[(b * c) as i64, od as i64, oh as i64, ow as i64, 1])?;
        let ones = self.fill(&[g.filter[0], g.filter[1], g.filter[2], 1, 1], 1.0, DType::Float32)?;
        let g1 = ConvGeom { batch: b * c, in_channels: 1, out_channels: 1, ..g.clone() };
        let dx = self.conv_input_grad_ndhwc(t, ones, &g1)?;
        let [d, h, w] = g.in_size;
        let dx = self.reshape(dx, &[b as i64, c as i64, d as i64, h as i64, w as i64])?;
        self.transpose(dx, Some(&[0, 2, 3, 4, 1]))
    }

    /// `tf.maxPoolWithArgmax`: the max-pooled values and where each maximum is.
    pub fn max_pool_with_argmax(
        &mut self,
        x: TensorId,
        filter_size: &[f64],
        w: &Window,
        include_batch: bool,
    ) -> Result<Vec<TensorId>> {
        let (xs, xd) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        let op = "maxPoolWithArgmax";
        if xs.len() != 4 {
            bail!("Error in {op}: input must be rank 4 but got rank {}.", xs.len());
        }
        let sizes = whole(op, "filterSize", filter_size, 2)?;
        let g = window_info(op, &xs, &sizes, xs[3], w, false)?.geom;
        let out = out_shape(&g, 2);
        self.check_size(&out, DType::Float32)?;
        self.run_kernel(k::MAX_POOL_WITH_ARGMAX, &[x], |e, backend, ins| {
            let xc = super::cast_if(&**backend, &ins[0], DType::Float32)?;
            let s5 = [g.batch, 1, g.in_size[1], g.in_size[2], g.in_channels];
            let xv = super::view_of(&ins[0], &xc, &s5, DType::Float32);
            let mut values = backend.pool(PoolOp::Max, xv, &g)?;
            let positions = backend.max_pool_positions(xv, &g, include_batch)?;
            if xd != DType::Float32 {
                values = backend.cast(View { storage: &*values, shape: &out, dtype: DType::Float32 }, xd)?;
            }
            Ok(vec![e.output(values, out.clone(), xd)?, e.output(positions, out.clone(), DType::Int32)?])
        })
    }

    /// `tf.localResponseNormalization` over the last axis of a rank-3 or rank-4 `x`.
    pub fn lrn(&mut self, x: TensorId, radius: f64, bias: f64, alpha: f64, beta: f64) -> Result<TensorId> {
        let (xs, xd) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        if xs.len() != 3 && xs.len() != 4 {
            bail!(
                "Error in localResponseNormalization: x must be rank 3 or 4 but got\n               rank {}.",
                xs.len()
            );
        }
        if radius.fract() != 0.0 || !radius.is_finite() {
            bail!(
                "Error in localResponseNormalization: depthRadius must be an integer but got depthRadius {}.",
                js(radius)
            );
        }
        // A negative radius is an empty window: the sum is 0.
        let (radius, alpha) = if radius < 0.0 { (0, 0.0) } else { (radius.min(u32::MAX as f64) as usize, alpha) };
        let y = self.run_kernel(k::LRN, &[x], |e, backend, ins| {
            let channels = *xs.last().expect("rank 3 or 4");
            if shape::size(&xs) == 0 {
                return e.filled(&xs, 0.0, xd);
            }
            let xc = super::cast_if(&**backend, &ins[0], DType::Float32)?;
            let xv = super::view_of(&ins[0], &xc, &xs, DType::Float32);
            let mut storage = backend.lrn(xv, channels, radius, bias, alpha, beta)?;
            if xd != DType::Float32 {
                storage = backend.cast(View { storage: &*storage, shape: &xs, dtype: DType::Float32 }, xd)?;
            }
            e.output(storage, xs.clone(), xd)
        })?;
        if self.taping() {
            self.on_tape(&[y], &[x, y], move |e, g| {
                // y = x N^-beta with N = bias + alpha * (window sum of x²) over the channels:
                // dx_k = dy_k N_k^-beta - 2 alpha beta x_k * (window sum of dy y / N)_k.
                let (x, y) = (e.cast(g.saved[0], DType::Float32)?, e.cast(g.saved[1], DType::Float32)?);
                let dy = e.cast(g.dy(), DType::Float32)?;
                let x2 = e.unary(UnaryOp::Square, x)?;
                let s = e.window_sum_last(x2, radius)?;
                let a = e.scalar(alpha)?;
                let n = e.mul(s, a)?;
                let b = e.scalar(bias)?;
                let n = e.add(n, b)?;
                let nb = e.scalar(-beta)?;
                let n_pow = e.binary(BinaryOp::Pow, n, nb)?;
                let direct = e.mul(dy, n_pow)?;
                let dyy = e.mul(dy, y)?;
                let q = e.div(dyy, n)?;
                let t = e.window_sum_last(q, radius)?;
                let t = e.mul(t, x)?;
                let c = e.scalar(2.0 * alpha * beta)?;
                let t = e.mul(t, c)?;
                Ok(vec![Some(e.sub(direct, t)?)])
            })?;
        }
        Ok(y)
    }

    /// For each position, the sum of `t` over `[c - radius, c + radius]` along the last axis
    /// (clipped to it): differences of a running sum over `t` padded with zeros.
    fn window_sum_last(&mut self, t: TensorId, radius: usize) -> Result<TensorId> {
        let s = self.shape(t)?.to_vec();
        let (rank, c) = (s.len(), *s.last().unwrap_or(&0));
        let (mut before, mut after) = (vec![0; rank], vec![0; rank]);
        before[rank - 1] = radius;
        after[rank - 1] = radius + 1;
        let padded = self.pad_zeros(t, &before, &after)?;
        let sums = self.cumulative(CumOp::Sum, padded, -1, true, false)?;
        let hi = self.slice_axis(sums, rank - 1, 2 * radius + 1, c)?;
        let lo = self.slice_axis(sums, rank - 1, 0, c)?;
        self.sub(hi, lo)
    }
}
