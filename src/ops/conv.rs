//! Convolutions, pooling and the other windowed ops. Every window argument arrives as JavaScript
//! gave it, read into lists by `lib/ops/conv.js`: strides, dilations and filter sizes as lists
//! (one value for a number), the padding as its kind (`#number`, `#explicit` or the string the
//! caller passed) and its values.

use crate::{engine, id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::{ConvKind, Fused, Padding, PoolKind, Rounding, Window};
use tidytensor_core::{bail, Activation, Engine, TensorId};

fn padding(kind: &str, values: &[f64]) -> tidytensor_core::Result<Padding> {
    Ok(match kind {
        "valid" => Padding::Valid,
        "same" => Padding::Same,
        "#number" => Padding::Number(values.first().copied().unwrap_or(f64::NAN)),
        "#explicit" => Padding::Explicit(values.chunks(2).map(|c| [c[0], *c.get(1).unwrap_or(&f64::NAN)]).collect()),
        other => bail!("Unknown padding parameter: {other}"),
    })
}

/// Builds the [`Window`] of a call and runs `f` with it.
fn with_window<R>(
    e: &mut Engine,
    (strides, dilations): (&[f64], &[f64]),
    (pad, pad_values): (&str, &[f64]),
    rounding: Option<&str>,
    f: impl FnOnce(&mut Engine, &Window) -> tidytensor_core::Result<R>,
) -> tidytensor_core::Result<R> {
    let rounding = rounding.map(Rounding::parse).transpose()?;
    let pad = padding(pad, pad_values)?;
    f(e, &Window { strides, dilations, pad: &pad, rounding })
}

/// `tf.conv2d`, `tf.conv3d`, `tf.depthwiseConv2d`, `tf.dilation2d`; with `epilogue`,
/// `tf.fused.conv2d` / `depthwiseConv2d` (NHWC): the bias and activation in the same kernel.
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn conv(
    kind: String,
    x: f64,
    filter: f64,
    strides: Vec<f64>,
    pad: String,
    pad_values: Vec<f64>,
    dilations: Vec<f64>,
    rounding: Option<String>,
    channels_first: bool,
    epilogue: Option<Epilogue>,
) -> Result<f64> {
    make(|e| {
        let kind = match kind.as_str() {
            "conv2d" => ConvKind::Conv2d,
            "conv3d" => ConvKind::Conv3d,
            "depthwiseConv2d" => ConvKind::Depthwise2d,
            "dilation2d" => ConvKind::Dilation2d,
            other => bail!("unknown convolution {other}"),
        };
        let fused = epilogue.as_ref().map(Epilogue::fused).transpose()?;
        with_window(e, (&strides, &dilations), (&pad, &pad_values), rounding.as_deref(), |e, w| match &fused {
            Some(f) => e.fused_conv(kind, id(x), id(filter), w, f),
            None => e.conv(kind, id(x), id(filter), w, channels_first),
        })
    })
}

/// `tf.conv1d` (a conv2d over height 1).
#[napi(js_name = "conv1d")]
#[allow(clippy::too_many_arguments)]
pub fn conv1d(
    x: f64,
    filter: f64,
    stride: f64,
    pad: String,
    pad_values: Vec<f64>,
    data_format: String,
    dilation: f64,
    rounding: Option<String>,
) -> Result<f64> {
    make(|e| {
        let rounding = rounding.as_deref().map(Rounding::parse).transpose()?;
        let pad = padding(&pad, &pad_values)?;
        e.conv1d(id(x), id(filter), stride, &pad, &data_format, dilation, rounding)
    })
}

/// `tf.separableConv2d` (a depthwise, then a 1x1 convolution).
#[napi(js_name = "separableConv2d")]
#[allow(clippy::too_many_arguments)]
pub fn separable_conv2d(
    x: f64,
    depthwise: f64,
    pointwise: f64,
    strides: Vec<f64>,
    pad: String,
    pad_values: Vec<f64>,
    dilations: Vec<f64>,
    data_format: String,
) -> Result<f64> {
    make(|e| {
        with_window(e, (&strides, &dilations), (&pad, &pad_values), None, |e, w| {
            e.separable_conv2d(id(x), id(depthwise), id(pointwise), w, &data_format)
        })
    })
}

/// tf.fused's bias and activation after a product, composed (channels first, or an activation
/// the fused kernel does not run).
#[napi]
pub fn fused_finish(
    y: f64,
    bias: Option<f64>,
    activation: String,
    prelu: Option<f64>,
    leaky_alpha: f64,
    channels_first: bool,
) -> Result<f64> {
    make(|e| e.fused_finish(id(y), bias.map(id), &activation, prelu.map(id), leaky_alpha, channels_first))
}

/// What `tf.fused` ops add after the product: a bias tensor, an activation by name, prelu's
/// weights, leakyRelu's alpha.
#[napi(object)]
pub struct Epilogue {
    pub bias: Option<f64>,
    pub activation: String,
    pub alpha: Option<f64>,
    pub leaky_alpha: f64,
}

impl Epilogue {
    pub fn fused(&self) -> tidytensor_core::Result<Fused> {
        Ok(Fused {
            bias: self.bias.map(id),
            activation: Activation::parse(&self.activation, self.leaky_alpha)?,
            alpha: self.alpha.map(id),
        })
    }
}

/// `tf.conv2dTranspose` / `tf.conv3dTranspose` (2 or 3 spatial dims).
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn conv_transpose(
    spatial: u32,
    input_shape: Vec<i64>,
    dy: f64,
    filter: f64,
    strides: Vec<f64>,
    pad: String,
    pad_values: Vec<f64>,
    rounding: Option<String>,
) -> Result<f64> {
    make(|e| {
        with_window(e, (&strides, &[1.0]), (&pad, &pad_values), rounding.as_deref(), |e, w| {
            e.conv_transpose(spatial as usize, &input_shape, id(dy), id(filter), w)
        })
    })
}

/// `tf.maxPool`, `tf.avgPool`, `tf.maxPool3d`, `tf.avgPool3d`.
#[napi]
pub fn pool(
    kind: String,
    x: f64,
    filter_size: Vec<f64>,
    strides: Vec<f64>,
    pad: String,
    pad_values: Vec<f64>,
    rounding: Option<String>,
) -> Result<f64> {
    make(|e| {
        let kind = match kind.as_str() {
            "maxPool" => PoolKind::Max2d,
            "avgPool" => PoolKind::Avg2d,
            "maxPool3d" => PoolKind::Max3d,
            "avgPool3d" => PoolKind::Avg3d,
            other => bail!("unknown pooling {other}"),
        };
        with_window(e, (&strides, &[1.0]), (&pad, &pad_values), rounding.as_deref(), |e, w| {
            e.pool(kind, id(x), &filter_size, w)
        })
    })
}

/// `tf.pool`: max or average pooling with dilated windows (`avg`: average).
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn dilated_pool(
    avg: bool,
    x: f64,
    window: Vec<f64>,
    strides: Vec<f64>,
    pad: String,
    pad_values: Vec<f64>,
    dilations: Vec<f64>,
    rounding: Option<String>,
) -> Result<f64> {
    make(|e| {
        with_window(e, (&strides, &dilations), (&pad, &pad_values), rounding.as_deref(), |e, w| {
            e.dilated_pool(avg, id(x), &window, w)
        })
    })
}

/// `tf.maxPoolWithArgmax`: the ids of the values and the positions.
#[napi]
pub fn max_pool_with_argmax(
    x: f64,
    filter_size: Vec<f64>,
    strides: Vec<f64>,
    pad: String,
    pad_values: Vec<f64>,
    include_batch: bool,
) -> Result<Vec<f64>> {
    engine(|e| {
        let ids: Vec<TensorId> = with_window(e, (&strides, &[1.0]), (&pad, &pad_values), None, |e, w| {
            e.max_pool_with_argmax(id(x), &filter_size, w, include_batch)
        })?;
        Ok(ids.into_iter().map(|t| t as f64).collect())
    })
}

#[napi]
pub fn local_response_normalization(x: f64, depth_radius: f64, bias: f64, alpha: f64, beta: f64) -> Result<f64> {
    make(|e| e.lrn(id(x), depth_radius, bias, alpha, beta))
}

/// tf.backend_util's `computeConv2DInfo`/`computeConv3DInfo` (and the pooling and dilation
/// variants built on them): the window geometry the ops compute, for `x` given channels last
/// (`[batch, spatial..., channels]`), as `{batch, inSize, inChannels, outSize, outChannels,
/// filter, effectiveFilter, strides, dilations, padBefore, padAfter, padType}` (sizes as
/// `[depth, height, width]`, depth 1 for 2-D windows).
#[napi(ts_return_type = "Record<string, number[] | number | string>")]
#[allow(clippy::too_many_arguments)]
pub fn window_info<'e>(
    env: &'e Env,
    op: String,
    x: Vec<f64>,
    filter: Vec<f64>,
    out_channels: f64,
    strides: Vec<f64>,
    pad: String,
    pad_values: Vec<f64>,
    dilations: Vec<f64>,
    rounding: Option<String>,
    channels_first: bool,
) -> Result<Object<'e>> {
    let dims = |v: &[f64]| {
        v.iter()
            .map(|&d| if (0.0..=u32::MAX as f64).contains(&d) && d.fract() == 0.0 { d as usize } else { usize::MAX })
            .collect::<Vec<_>>()
    };
    let info = engine(|e| {
        with_window(e, (&strides, &dilations), (&pad, &pad_values), rounding.as_deref(), |_, w| {
            let (xs, fs) = (dims(&x), dims(&filter));
            if xs.iter().chain(&fs).any(|&d| d == usize::MAX) || !(out_channels >= 0.0) {
                bail!("Error in {op}: shapes must be lists of integers from 0 to 2^32 - 1.");
            }
            tidytensor_core::ops::window_info(&op, &xs, &fs, out_channels as usize, w, channels_first)
        })
    })?;
    let g = &info.geom;
    let list = |v: [usize; 3]| v.iter().map(|&d| d as f64).collect::<Vec<f64>>();
    let pads = |v: [isize; 3]| v.iter().map(|&d| d as f64).collect::<Vec<f64>>();
    let mut o = Object::new(env)?;
    o.set_named_property("batch", g.batch as f64)?;
    o.set_named_property("inSize", list(g.in_size))?;
    o.set_named_property("inChannels", g.in_channels as f64)?;
    o.set_named_property("outSize", list(g.out_size))?;
    o.set_named_property("outChannels", g.out_channels as f64)?;
    o.set_named_property("filter", list(g.filter))?;
    o.set_named_property("effectiveFilter", list(info.effective_filter))?;
    o.set_named_property("strides", list(g.strides))?;
    o.set_named_property("dilations", list(g.dilations))?;
    o.set_named_property("padBefore", pads(g.pad))?;
    o.set_named_property("padAfter", pads(info.pad_after))?;
    o.set_named_property("padType", info.pad_type)?;
    Ok(o)
}

/// tf.backend_util's `checkPadOnDimRoundingMode`: with a rounding mode, the padding must be
/// integral.
#[napi]
pub fn check_pad_on_dim_rounding_mode(
    op: String,
    pad: String,
    pad_values: Vec<f64>,
    rounding: Option<String>,
) -> Result<()> {
    engine(|e| {
        with_window(e, (&[1.0], &[1.0]), (&pad, &pad_values), rounding.as_deref(), |_, w| {
            tidytensor_core::ops::check_pad_rounding(&op, w.pad, w.rounding)
        })
    })
}
