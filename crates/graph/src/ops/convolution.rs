//! tfjs-converter's `convolution_executor.ts`. TensorFlow's window attributes are NHWC lists
//! (`[1, h, w, 1]`); tfjs reads entries 1 and 2 (1..3 in 3-D) whatever the data format. The
//! fused ops run the convolution, then the bias and the activation (tfjs's `fused` ops; the
//! core has no fused kernel, so they are three kernels here, as `lib/ops/fused.js` runs them).

use super::{not_here, Ctx};
use tidytensor_core::ops::{ConvKind, Fused, Padding, PoolKind, Window};
use tidytensor_core::{bail, Activation, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "Conv1D",
    "Conv2D",
    "_FusedConv2D",
    "FusedDepthwiseConv2dNative",
    "Conv2DBackpropInput",
    "DepthwiseConv2dNative",
    "DepthwiseConv2d",
    "Conv3D",
    "AvgPool",
    "MaxPool",
    "MaxPoolWithArgmax",
    "AvgPool3D",
    "MaxPool3D",
    "Dilation2D",
];

/// The string padding of an op (`valid` / `same`), as tfjs's conv_util reads it.
fn named_padding(pad: &str) -> Result<Padding> {
    Ok(match pad {
        "valid" => Padding::Valid,
        "same" => Padding::Same,
        other => bail!("Unknown padding parameter: {other}"),
    })
}

/// tfjs's `getPadding`: `explicit` takes `explicit_paddings`, four [before, after] pairs.
fn padding(c: &Ctx) -> Result<Padding> {
    let pad = c.attrs().string("padding").unwrap_or_default();
    if pad == "explicit" {
        let v = c.attrs().numbers("explicit_paddings").unwrap_or_default();
        let at = |i: usize| v.get(i).copied().unwrap_or(f64::NAN);
        return Ok(Padding::Explicit((0..4).map(|i| [at(2 * i), at(2 * i + 1)]).collect()));
    }
    named_padding(&pad)
}

/// Entries `from..from + n` of a window attribute (`[1, h, w, 1]`).
fn window(c: &Ctx, name: &str, from: usize, n: usize, default: f64) -> Vec<f64> {
    let v = c.attrs().numbers(name);
    (from..from + n).map(|i| v.as_ref().map_or(default, |v| v.get(i).copied().unwrap_or(f64::NAN))).collect()
}

fn data_format(c: &Ctx, default: &str) -> String {
    c.attrs().string("data_format").unwrap_or_else(|| default.to_lowercase()).to_uppercase()
}

/// NHWC or NCHW (tfjs's conv2d and depthwiseConv2d refuse any other).
fn channels_first(format: &str) -> Result<bool> {
    match format {
        "NHWC" => Ok(false),
        "NCHW" => Ok(true),
        other => bail!("Unknown dataFormat {other}"),
    }
}

/// `_FusedConv2D` and `FusedDepthwiseConv2dNative` (tfjs's `fusedConvAndDepthWiseParams`).
fn fused(e: &mut Engine, c: &Ctx, kind: ConvKind) -> Result<TensorId> {
    let a = c.attrs();
    let fused_ops = a.strings("fused_ops").unwrap_or_default();
    let extra = fused_ops.first().map(String::as_str);
    let activation = fused_ops.get(1).map_or("linear", String::as_str);
    let is_bias = extra == Some("biasadd");
    let is_prelu = activation == "prelu";
    let num_args = a.number("num_args", 0.0);
    if is_bias {
        if is_prelu && num_args != 2.0 {
            bail!(
                "FusedConv2d and DepthwiseConv2d with BiasAdd and Prelu must have two extra arguments: bias and alpha."
            );
        }
        if !is_prelu && num_args != 1.0 {
            bail!("FusedConv2d and DepthwiseConv2d with BiasAdd must have one extra argument: bias.");
        }
    }
    if extra == Some("fusedbatchnorm") {
        bail!("FusedConv2d and DepthwiseConv2d with FusedBatchNorm is not supported");
    }
    let strides = window(c, "strides", 1, 2, f64::NAN);
    let pad = padding(c)?;
    let format = data_format(c, "NHWC");
    let dilations = window(c, "dilations", 1, 2, 1.0);
    let args = c.tensors(2, 0);
    let (bias, prelu) =
        if is_bias { (args.first().copied(), args.get(1).copied()) } else { (None, args.first().copied()) };
    let leaky_alpha = a.number("leakyrelu_alpha", 0.2);
    let nchw = channels_first(&format)?;
    let w = Window { strides: &strides, dilations: &dilations, pad: &pad, rounding: None };
    // NHWC runs as one kernel (the core composes it while a gradient is recorded); NCHW and an
    // unknown activation go the composed way, with its errors.
    if let (false, Ok(act)) = (nchw, Activation::parse(activation, leaky_alpha)) {
        let f = Fused { bias, activation: act, alpha: prelu };
        return e.fused_conv(kind, c.t(0)?, c.t(1)?, &w, &f);
    }
    let y = e.conv(kind, c.t(0)?, c.t(1)?, &w, nchw)?;
    e.fused_finish(y, bias, activation, prelu, leaky_alpha, nchw)
}

fn pool(e: &mut Engine, c: &Ctx, kind: PoolKind, spatial: usize) -> Result<TensorId> {
    let strides = window(c, "strides", 1, spatial, f64::NAN);
    let size = window(c, "ksize", 1, spatial, f64::NAN);
    let pad = named_padding(&c.attrs().string("padding").unwrap_or_default())?;
    let ones = vec![1.0; spatial];
    let w = Window { strides: &strides, dilations: &ones, pad: &pad, rounding: None };
    e.pool(kind, c.t(0)?, &size, &w)
}

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    Ok(vec![match op {
        "Conv1D" => {
            let stride = a.number("stride", 0.0);
            let pad = named_padding(&a.string("padding").unwrap_or_default())?;
            let format = data_format(c, "NWC");
            let dilation = a.number("dilation", 1.0);
            e.conv1d(c.t(0)?, c.t(1)?, stride, &pad, &format, dilation, None)?
        }
        "Conv2D" | "DepthwiseConv2dNative" | "DepthwiseConv2d" => {
            let kind = if op == "Conv2D" { ConvKind::Conv2d } else { ConvKind::Depthwise2d };
            let strides = window(c, "strides", 1, 2, f64::NAN);
            let pad = padding(c)?;
            let nchw = channels_first(&data_format(c, "NHWC"))?;
            let dilations = window(c, "dilations", 1, 2, 1.0);
            let w = Window { strides: &strides, dilations: &dilations, pad: &pad, rounding: None };
            e.conv(kind, c.t(0)?, c.t(1)?, &w, nchw)?
        }
        "_FusedConv2D" => fused(e, c, ConvKind::Conv2d)?,
        "FusedDepthwiseConv2dNative" => fused(e, c, ConvKind::Depthwise2d)?,
        "Conv2DBackpropInput" => {
            let shape = c.nums(e, 0)?;
            let shape = super::ints(&shape, "Error in conv2dTranspose: outputShape")?;
            let strides = window(c, "strides", 1, 2, f64::NAN);
            let pad = padding(c)?;
            let w = Window { strides: &strides, dilations: &[1.0], pad: &pad, rounding: None };
            e.conv_transpose(2, &shape, c.t(2)?, c.t(1)?, &w)?
        }
        "Conv3D" => {
            let strides = window(c, "strides", 1, 3, f64::NAN);
            let pad = named_padding(&a.string("padding").unwrap_or_default())?;
            let format = data_format(c, "NHWC");
            if format != "NDHWC" {
                bail!("Error in conv3d: got dataFormat of {format} but only NDHWC is currently supported.");
            }
            let dilations = window(c, "dilations", 1, 3, 1.0);
            let w = Window { strides: &strides, dilations: &dilations, pad: &pad, rounding: None };
            e.conv(ConvKind::Conv3d, c.t(0)?, c.t(1)?, &w, false)?
        }
        "AvgPool" => pool(e, c, PoolKind::Avg2d, 2)?,
        "MaxPool" => pool(e, c, PoolKind::Max2d, 2)?,
        "AvgPool3D" => pool(e, c, PoolKind::Avg3d, 3)?,
        "MaxPool3D" => pool(e, c, PoolKind::Max3d, 3)?,
        "MaxPoolWithArgmax" => {
            let strides = window(c, "strides", 1, 2, f64::NAN);
            let size = window(c, "ksize", 1, 2, f64::NAN);
            let pad = named_padding(&a.string("padding").unwrap_or_default())?;
            let w = Window { strides: &strides, dilations: &[1.0, 1.0], pad: &pad, rounding: None };
            let include_batch = a.bool("include_batch_in_index", false);
            return e.max_pool_with_argmax(c.t(0)?, &size, &w, include_batch);
        }
        "Dilation2D" => {
            let strides = window(c, "strides", 1, 2, f64::NAN);
            let dilations = window(c, "rates", 1, 2, f64::NAN);
            let pad = named_padding(&a.string("padding").unwrap_or_default())?;
            let w = Window { strides: &strides, dilations: &dilations, pad: &pad, rounding: None };
            e.conv(ConvKind::Dilation2d, c.t(0)?, c.t(1)?, &w, false)?
        }
        _ => return not_here(op),
    }])
}
