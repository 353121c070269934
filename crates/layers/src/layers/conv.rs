//! Convolution layers (conv1d, conv2d, conv3d, conv2dTranspose, conv3dTranspose,
//! depthwiseConv2d, separableConv2d) and the spatial helpers zeroPadding2d, upSampling2d and
//! cropping2d. Channels-first data is moved to channels-last around the channels-last code, as
//! tfjs does; kernels keep Keras's layout either way.

use super::{
    channels_first, format_name, json_text, normalize_array, one_output, to_channels_first, to_channels_last, Common,
};
use crate::activations::Activation;
use crate::config::Cfg;
use crate::initializers::Initializer;
use crate::layer::{ActivityRegularizer, Builder, InputSpec, Kind, Shape};
use crate::regularizers::{Constraint, Regularizer};
use serde_json::{json, Map, Value};
use tidytensor_core::ops::{ConvKind, Padding, Resize, Window};
use tidytensor_core::{bail, Engine, Result, TensorId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvType {
    Conv1d,
    Conv2d,
    Conv3d,
    Transpose,
    Transpose3d,
    Depthwise,
    Separable,
}

pub struct Conv {
    ty: ConvType,
    rank: usize,
    filters: usize,
    kernel_size: Vec<usize>,
    strides: Vec<usize>,
    /// `valid`, `same` or (conv1d) `causal`.
    padding: String,
    dilation: Vec<usize>,
    /// `dataFormat: 'channelsFirst'`: `[batch, channels, ...spatial]` data.
    channels_first: bool,
    depth_multiplier: usize,
    activation: Activation,
    c: Common,
    /// Separable convolutions' second kernel.
    pointwise: Option<(Initializer, Option<Regularizer>, Option<Constraint>)>,
}

/// tfjs's `convOutputLength`.
pub fn conv_output_length(
    len: Option<usize>,
    k: usize,
    padding: &str,
    stride: usize,
    dilation: usize,
) -> Option<usize> {
    // `None` too when the window does not fit or its extent overflows.
    let len = len?;
    let dilated = k.checked_sub(1)?.checked_mul(dilation)?.checked_add(1)?;
    let out = match padding {
        "same" | "causal" => len,
        _ => len.checked_add(1)?.checked_sub(dilated)?,
    };
    Some(out.div_ceil(stride))
}

impl Conv {
    pub fn new(c: Cfg, ty: ConvType) -> Result<Conv> {
        // tfjs 4.22 writes a DepthwiseConv2D's depthwiseRegularizer as its depthwiseConstraint
        // (a bug; written correctly here): its files can carry an L1L2 there, which tfjs loads
        // and which is no constraint. Read as none.
        let cleaned: Map<String, Value>;
        let c = match c.get("depthwiseConstraint").map(crate::config::class_and_config) {
            Some(Ok((class, _))) if ty == ConvType::Depthwise && ["L1L2", "L1", "L2"].contains(&class.as_str()) => {
                cleaned =
                    c.0.iter()
                        .filter(|(k, _)| !["depthwiseConstraint", "depthwise_constraint"].contains(&k.as_str()))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                Cfg(&cleaned)
            }
            _ => c,
        };
        let rank = match ty {
            ConvType::Conv1d => 1,
            ConvType::Conv3d | ConvType::Transpose3d => 3,
            _ => 2,
        };
        // tfjs's BaseConv checks, in its order and with its texts.
        if !c.0.contains_key("kernelSize") && !c.0.contains_key("kernel_size") {
            bail!("required key 'kernelSize' not in config");
        }
        let ks = c.get("kernelSize");
        let ks_ok = match ks {
            Some(Value::Number(_)) => true,
            Some(Value::Array(a)) => (1..=3).contains(&a.len()) && a.iter().all(Value::is_number),
            _ => false,
        };
        if !ks_ok {
            bail!(
                "BaseConv expects config.kernelSize to be number or number[] with length 1, 2, or 3, but received {}.",
                json_text(ks)
            );
        }
        let kernel_size = normalize_array(c, "kernelSize", rank, &[])?;
        let strides = normalize_array(c, "strides", rank, &vec![1; rank])?;
        let padding = c.str_or("padding", "valid")?;
        if !["valid", "same", "causal"].contains(&padding.as_str()) {
            bail!("{padding} is not a valid PaddingMode.  Valid values are valid,same,causal or null/undefined.");
        }
        let channels_first = channels_first(c)?;
        let dilation = normalize_array(c, "dilationRate", rank, &vec![1; rank])?;
        let filters = match ty {
            ConvType::Depthwise => 0,
            _ => match c.get("filters") {
                Some(v @ Value::Number(n)) if n.as_f64().is_some_and(|f| f >= 1.0) => {
                    match v.as_f64().filter(|f| f.fract() == 0.0 && *f <= crate::config::MAX_INT as f64) {
                        Some(f) => f as usize,
                        None => bail!("Expected filters to be a positive integer, but got {}.", json_text(Some(v))),
                    }
                }
                v => bail!("Convolution layer expected config.filters to be a 'number' > 0 but got {}", json_text(v)),
            },
        };
        if padding == "causal" && ty != ConvType::Conv1d {
            match ty {
                ConvType::Transpose | ConvType::Transpose3d => bail!(
                    "{} currently supports only padding modes 'same' and 'valid', but received padding mode causal",
                    if ty == ConvType::Transpose { "Conv2DTranspose" } else { "Conv3DTranspose" }
                ),
                ConvType::Separable => {
                    bail!("SeparableConv2D supports only padding modes: 'same' and 'valid', but received \"causal\"")
                }
                _ => bail!("The support for CAUSAL padding mode in conv1dWithBias is not implemented yet."),
            }
        }
        if kernel_size.iter().chain(&strides).chain(&dilation).any(|&v| v == 0) {
            bail!("kernelSize, strides and dilationRate must be positive integers");
        }
        let kernel_prefix = match ty {
            ConvType::Depthwise | ConvType::Separable => "depthwise",
            _ => "kernel",
        };
        let pointwise = if ty == ConvType::Separable {
            Some((
                Initializer::from_cfg(c, "pointwiseInitializer", "glorotUniform")?,
                Regularizer::from_cfg(c, "pointwiseRegularizer")?,
                Constraint::from_cfg(c, "pointwiseConstraint")?,
            ))
        } else {
            None
        };
        Ok(Conv {
            ty,
            rank,
            filters,
            kernel_size,
            strides,
            padding,
            dilation,
            channels_first,
            depth_multiplier: c.usize_or("depthMultiplier", 1)?.max(1),
            activation: Activation::parse(c.get("activation"))?,
            c: Common::new(c, kernel_prefix, if ty == ConvType::Separable { "glorotUniform" } else { "glorotNormal" })?,
            pointwise,
        })
    }

    fn window_pad(&self) -> Padding {
        if self.padding == "same" {
            Padding::Same
        } else {
            Padding::Valid
        }
    }

    fn out_channels(&self, in_channels: usize) -> usize {
        match self.ty {
            ConvType::Depthwise => in_channels * self.depth_multiplier,
            _ => self.filters,
        }
    }
}

impl Conv {
    fn transposed(&self) -> bool {
        matches!(self.ty, ConvType::Transpose | ConvType::Transpose3d)
    }

    /// Where the channels are in an input (or output) of rank `rank + 2`.
    fn channel_axis(&self) -> usize {
        if self.channels_first {
            1
        } else {
            self.rank + 1
        }
    }

    /// The input's rank (tfjs's texts, which differ by class).
    fn check_rank(&self, s: &Shape) -> Result<()> {
        let want = self.rank + 2;
        if s.len() != want {
            let got = crate::layer::shape_text(s);
            match self.ty {
                ConvType::Transpose | ConvType::Transpose3d => {
                    bail!("Input should have rank {want}; Received input shape: {got}")
                }
                ConvType::Depthwise => {
                    bail!("Inputs to DepthwiseConv2D should have rank 4. Received input shape: {got}.")
                }
                // tfjs refuses only a lower rank; a higher one fails on its channel first.
                ConvType::Separable if s.len() > want && s.last().is_some_and(Option::is_none) => {
                    bail!("The channel dimension of the inputs should be defined, but found null")
                }
                ConvType::Separable => {
                    bail!("Inputs to SeparableConv2D should have rank 4, but received input shape: {got}")
                }
                _ => bail!("Inputs to {} should have rank {want}; Received input shape: {got}.", self.class_name()),
            }
        }
        Ok(())
    }

    /// The output size of one spatial axis (tfjs's `convOutputLength`, or `deconvLength` for
    /// transposed convolutions).
    fn out_len(&self, i: usize, len: Option<usize>) -> Result<Option<usize>> {
        if !self.transposed() {
            let (k, d) = (self.kernel_size[i], self.dilation[i]);
            let out = conv_output_length(len, k, &self.padding, self.strides[i], d);
            // A window larger than a known input: tfjs's shape goes negative (and its
            // Sequential refuses it); refused here at once.
            if let (Some(n), None) = (len, out) {
                let window = (k.saturating_sub(1)).saturating_mul(d).saturating_add(1);
                bail!(
                    "Negative dimension size caused by a {} window of {window} over an input dimension of {n} (axis {}, padding '{}')",
                    self.class_name(),
                    i + 1,
                    self.padding
                );
            }
            return Ok(out);
        }
        let Some(d) = len else { return Ok(None) };
        let (k, st) = (self.kernel_size[i], self.strides[i]);
        let extra = if self.padding == "same" { 0 } else { k.saturating_sub(st) };
        match d.checked_mul(st).and_then(|v| v.checked_add(extra)) {
            Some(v) => Ok(Some(v)),
            None => bail!("The output of {} would be too large", self.class_name()),
        }
    }

    /// The convolution on channels-last data.
    fn conv_last(&self, e: &mut Engine, w: &[TensorId], x: TensorId) -> Result<TensorId> {
        let pad = self.window_pad();
        let strides: Vec<f64> = self.strides.iter().map(|&v| v as f64).collect();
        let dil: Vec<f64> = self.dilation.iter().map(|&v| v as f64).collect();
        let win = Window { strides: &strides, dilations: &dil, pad: &pad, rounding: None };
        Ok(match self.ty {
            ConvType::Conv1d => {
                // As a 2-D convolution over [batch, 1, width, channels].
                let mut xx = e.expand_dims(x, 1)?;
                if self.padding == "causal" {
                    let left = self.dilation[0] * (self.kernel_size[0] - 1);
                    xx = e.pad_zeros(xx, &[0, 0, left, 0], &[0, 0, 0, 0])?;
                }
                let f = e.expand_dims(w[0], 0)?;
                let win = Window { strides: &[1.0, strides[0]], dilations: &[1.0, dil[0]], pad: &pad, rounding: None };
                let y = e.conv(ConvKind::Conv2d, xx, f, &win, false)?;
                e.squeeze(y, Some(&[1]))?
            }
            ConvType::Conv2d => e.conv(ConvKind::Conv2d, x, w[0], &win, false)?,
            ConvType::Conv3d => e.conv(ConvKind::Conv3d, x, w[0], &win, false)?,
            ConvType::Transpose | ConvType::Transpose3d => {
                let s = e.shape(x)?.to_vec();
                let mut out = vec![s[0] as i64];
                for i in 0..self.rank {
                    out.push(self.out_len(i, Some(s[1 + i]))?.unwrap_or(0) as i64);
                }
                out.push(self.filters as i64);
                let win = Window { strides: &strides, dilations: &[1.0], pad: &pad, rounding: None };
                e.conv_transpose(self.rank, &out, x, w[0], &win)?
            }
            ConvType::Depthwise => e.conv(ConvKind::Depthwise2d, x, w[0], &win, false)?,
            ConvType::Separable => e.separable_conv2d(x, w[0], w[1], &win, "NHWC")?,
        })
    }
}

impl Kind for Conv {
    fn class_name(&self) -> &'static str {
        match self.ty {
            ConvType::Conv1d => "Conv1D",
            ConvType::Conv2d => "Conv2D",
            ConvType::Conv3d => "Conv3D",
            ConvType::Transpose => "Conv2DTranspose",
            ConvType::Transpose3d => "Conv3DTranspose",
            ConvType::Depthwise => "DepthwiseConv2D",
            ConvType::Separable => "SeparableConv2D",
        }
    }

    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let s = &inputs[0];
        self.check_rank(s)?;
        let axis = self.channel_axis();
        let Some(cin) = s[axis] else {
            match self.ty {
                ConvType::Transpose | ConvType::Transpose3d => {
                    bail!("The channel dimension of the inputs should be defined. Found `None`.")
                }
                ConvType::Depthwise => {
                    bail!(
                        "The channel dimension of the inputs to DepthwiseConv2D should be defined, but is not (null)."
                    )
                }
                ConvType::Separable => bail!("The channel dimension of the inputs should be defined, but found null"),
                _ => bail!("The channel dimension of the input should be defined. Found null"),
            }
        };
        let ks = &self.kernel_size;
        let with = |tail: [usize; 2]| -> Vec<usize> { ks.iter().copied().chain(tail).collect() };
        match self.ty {
            ConvType::Conv1d | ConvType::Conv2d | ConvType::Conv3d => {
                self.c.add_kernel(b, "kernel", &with([cin, self.filters]))?
            }
            ConvType::Transpose | ConvType::Transpose3d => {
                self.c.add_kernel(b, "kernel", &with([self.filters, cin]))?
            }
            ConvType::Depthwise | ConvType::Separable => {
                self.c.add_kernel(b, "depthwise_kernel", &with([cin, self.depth_multiplier]))?
            }
        };
        if let Some((init, reg, con)) = &self.pointwise {
            b.add(
                "pointwise_kernel",
                &[1, 1, cin * self.depth_multiplier, self.filters],
                init,
                reg.as_ref(),
                con.as_ref(),
                true,
            )?;
        }
        self.c.add_bias(b, self.out_channels(cin))?;
        // tfjs's spec names the channels axis; -1 for channels-last, as its texts print it.
        let spec_axis = if self.channels_first { 1 } else { -1 };
        b.spec = Some(InputSpec { ndim: Some(self.rank + 2), axes: vec![(spec_axis, cin)], ..Default::default() });
        Ok(())
    }

    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        self.check_rank(s)?;
        let first = if self.channels_first { 2 } else { 1 };
        let mut space = Vec::with_capacity(self.rank);
        for i in 0..self.rank {
            space.push(self.out_len(i, s[first + i])?);
        }
        let channels = s[self.channel_axis()].map(|c| self.out_channels(c));
        let mut out = vec![s[0]];
        if self.channels_first {
            out.push(channels);
            out.extend(space);
        } else {
            out.extend(space);
            out.push(channels);
        }
        Ok(vec![out])
    }

    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = if self.channels_first { to_channels_last(e, inputs[0])? } else { inputs[0] };
        let y = self.conv_last(e, w, x)?;
        let bias_at = if self.ty == ConvType::Separable { 2 } else { 1 };
        let y = if self.c.use_bias { e.add(y, w[bias_at])? } else { y };
        let y = self.activation.apply(e, y)?;
        one_output(if self.channels_first { to_channels_first(e, y) } else { Ok(y) })
    }

    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if self.ty != ConvType::Depthwise {
            m.insert("filters".into(), json!(self.filters));
        }
        m.insert("kernelSize".into(), json!(self.kernel_size));
        m.insert("strides".into(), json!(self.strides));
        m.insert("padding".into(), json!(self.padding));
        // tfjs's Conv1D config has no dataFormat (written here for channels-first data, so that
        // the layer reloads as it is); its transposed convolutions none dilationRate (they take
        // none either).
        if self.ty != ConvType::Conv1d || self.channels_first {
            m.insert("dataFormat".into(), json!(format_name(self.channels_first)));
        }
        if !self.transposed() {
            m.insert("dilationRate".into(), json!(self.dilation));
        }
        m.insert("activation".into(), json!(self.activation.name()));
        let prefix = match self.ty {
            ConvType::Depthwise => {
                m.insert("depthMultiplier".into(), json!(self.depth_multiplier));
                "depthwise"
            }
            ConvType::Separable => {
                // tfjs 4.22 leaves depthMultiplier out of SeparableConv2D's config (a bug: its
                // files then reload with 1). Written here when it is not 1, so that the layer
                // reloads as it is; left out when it is 1, as tfjs does.
                if self.depth_multiplier != 1 {
                    m.insert("depthMultiplier".into(), json!(self.depth_multiplier));
                }
                "depthwise"
            }
            _ => "kernel",
        };
        self.c.config_into(&mut m, prefix);
        if let Some((init, reg, con)) = &self.pointwise {
            m.insert("pointwiseInitializer".into(), init.to_json());
            m.insert("pointwiseRegularizer".into(), reg.as_ref().map_or(Value::Null, Regularizer::to_json));
            m.insert("pointwiseConstraint".into(), con.as_ref().map_or(Value::Null, Constraint::to_json));
        }
        m
    }

    fn activity_regularizer(&self) -> ActivityRegularizer {
        ActivityRegularizer::Taken
    }
}

/// `[[top, bottom], [left, right]]` from tfjs's `padding` / `cropping` forms: one number for
/// every side, `[height, width]`, or `[[top, bottom], [left, right]]`. `what` names the layer
/// and the argument in the error texts.
fn sides(v: Option<&Value>, default: usize, class: &str, what: &str) -> Result<[[usize; 2]; 2]> {
    let num = |x: &Value| -> Result<usize> {
        match x.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= crate::config::MAX_INT as f64 => Ok(n as usize),
            _ => bail!("{class} expects {what} to be non-negative integers; got {x}"),
        }
    };
    Ok(match v {
        None => [[default; 2]; 2],
        Some(x @ Value::Number(_)) => [[num(x)?; 2]; 2],
        Some(Value::Array(a)) if a.len() == 2 => {
            let side = |x: &Value, name: &str| -> Result<[usize; 2]> {
                match x {
                    Value::Array(b) if b.len() == 2 => Ok([num(&b[0])?, num(&b[1])?]),
                    Value::Array(b) => bail!(
                        "{class} expects {name} {what} to be a length-2 array, but received a length-{} array.",
                        b.len()
                    ),
                    _ => Ok([num(x)?; 2]),
                }
            };
            [side(&a[0], "height")?, side(&a[1], "width")?]
        }
        Some(Value::Array(a)) => {
            bail!("{class} expects {what} to be a length-2 array, but received a length-{} array.", a.len())
        }
        Some(v) => bail!("{class} expects {what} to be a number or a length-2 array; got {v}"),
    })
}

/// The height and width axes of a 4-D input.
fn hw_axes(channels_first: bool) -> [usize; 2] {
    if channels_first {
        [2, 3]
    } else {
        [1, 2]
    }
}

fn check_4d(class: &str, s: &Shape) -> Result<()> {
    if s.len() != 4 {
        bail!("Input 0 is incompatible with layer {class}: expected ndim=4, found ndim={}", s.len());
    }
    Ok(())
}

/// Zeros around the height and width: `[[top, bottom], [left, right]]`.
pub struct ZeroPadding2D {
    pad: [[usize; 2]; 2],
    channels_first: bool,
}

impl ZeroPadding2D {
    pub fn new(c: Cfg) -> Result<ZeroPadding2D> {
        Ok(ZeroPadding2D {
            pad: sides(c.get("padding"), 1, "ZeroPadding2D", "padding")?,
            channels_first: channels_first(c)?,
        })
    }
}

impl Kind for ZeroPadding2D {
    fn class_name(&self) -> &'static str {
        "ZeroPadding2D"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        check_4d("ZeroPadding2D", s)?;
        let grow = |d: Option<usize>, [a, z]: [usize; 2]| -> Result<Option<usize>> {
            d.map(|d| d.checked_add(a).and_then(|v| v.checked_add(z)).ok_or_else(|| too_large("ZeroPadding2D")))
                .transpose()
        };
        let mut out = s.clone();
        for (k, &a) in hw_axes(self.channels_first).iter().enumerate() {
            out[a] = grow(s[a], self.pad[k])?;
        }
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let (mut before, mut after) = ([0; 4], [0; 4]);
        for (k, &a) in hw_axes(self.channels_first).iter().enumerate() {
            before[a] = self.pad[k][0];
            after[a] = self.pad[k][1];
        }
        one_output(e.pad_zeros(inputs[0], &before, &after))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("padding".into(), json!(self.pad));
        m.insert("dataFormat".into(), json!(format_name(self.channels_first)));
        m
    }
}

/// Crops the height and width: `[[top, bottom], [left, right]]` rows and columns go.
pub struct Cropping2D {
    crop: [[usize; 2]; 2],
    channels_first: bool,
}

impl Cropping2D {
    pub fn new(c: Cfg) -> Result<Cropping2D> {
        if !c.has("cropping") {
            bail!("cropping is required but was not provided");
        }
        Ok(Cropping2D {
            crop: sides(c.get("cropping"), 0, "Cropping2D", "cropping")?,
            channels_first: channels_first(c)?,
        })
    }
}

impl Kind for Cropping2D {
    fn class_name(&self) -> &'static str {
        "Cropping2D"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        check_4d("Cropping2D", s)?;
        let mut out = s.clone();
        for (k, &a) in hw_axes(self.channels_first).iter().enumerate() {
            let [lo, hi] = self.crop[k];
            out[a] = match s[a] {
                None => None,
                Some(d) => match d.checked_sub(lo).and_then(|v| v.checked_sub(hi)) {
                    Some(v) => Some(v),
                    None => bail!(
                        "Cropping2D: the cropping {:?} is larger than the input's size {d} on axis {a}",
                        self.crop[k]
                    ),
                },
            };
        }
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let s = e.shape(inputs[0])?.to_vec();
        let out = self.output_shapes(&[crate::layer::known(&s)])?.remove(0);
        let mut begin = [0i64; 4];
        for (k, &a) in hw_axes(self.channels_first).iter().enumerate() {
            begin[a] = self.crop[k][0] as i64;
        }
        let size: Vec<i64> = out.iter().map(|d| d.unwrap_or(0) as i64).collect();
        one_output(e.slice(inputs[0], &begin, &size))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("cropping".into(), json!(self.crop));
        m.insert("dataFormat".into(), json!(format_name(self.channels_first)));
        m
    }
}

/// Repeats rows and columns `size` times (nearest) or interpolates (bilinear).
pub struct UpSampling2D {
    size: Vec<usize>,
    bilinear: bool,
    channels_first: bool,
}

impl UpSampling2D {
    pub fn new(c: Cfg) -> Result<UpSampling2D> {
        let interpolation = c.str_or("interpolation", "nearest")?;
        let bilinear = match interpolation.as_str() {
            "nearest" => false,
            "bilinear" => true,
            other => bail!("Invalid interpolation parameter: {other} is not implemented"),
        };
        Ok(UpSampling2D { size: c.tuple_or("size", 2, &[2, 2])?, bilinear, channels_first: channels_first(c)? })
    }
}

impl Kind for UpSampling2D {
    fn class_name(&self) -> &'static str {
        "UpSampling2D"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        check_4d("UpSampling2D", s)?;
        let scale = |d: Option<usize>, f: usize| -> Result<Option<usize>> {
            d.map(|d| d.checked_mul(f).ok_or_else(|| too_large("UpSampling2D"))).transpose()
        };
        let mut out = s.clone();
        for (k, &a) in hw_axes(self.channels_first).iter().enumerate() {
            out[a] = scale(s[a], self.size[k])?;
        }
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = if self.channels_first { to_channels_last(e, inputs[0])? } else { inputs[0] };
        let s = e.shape(x)?.to_vec();
        let method = if self.bilinear { Resize::Bilinear } else { Resize::NearestNeighbor };
        let y = e.resize(method, x, [s[1] * self.size[0], s[2] * self.size[1]], false, false)?;
        one_output(if self.channels_first { to_channels_first(e, y) } else { Ok(y) })
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("size".into(), json!(self.size));
        m.insert("dataFormat".into(), json!(format_name(self.channels_first)));
        m.insert("interpolation".into(), json!(if self.bilinear { "bilinear" } else { "nearest" }));
        m
    }
}

fn too_large(class: &str) -> tidytensor_core::Error {
    tidytensor_core::Error(format!("The output of {class} would be too large"))
}
