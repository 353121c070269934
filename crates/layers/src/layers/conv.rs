//! Convolution layers (conv1d, conv2d, conv2dTranspose, depthwiseConv2d, separableConv2d) and
//! the spatial helpers zeroPadding2d and upSampling2d. Channels-last data, as tfjs's default.

use super::{one_output, Common};
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
    Transpose,
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
        let rank = if ty == ConvType::Conv1d { 1 } else { 2 };
        let filters = match ty {
            ConvType::Depthwise => 0,
            _ => c.positive("filters")?,
        };
        if !c.has("kernelSize") {
            bail!("kernelSize is required but was not provided");
        }
        let kernel_size = c.tuple_or("kernelSize", rank, &[])?;
        let strides = c.tuple_or("strides", rank, &vec![1; rank])?;
        let dilation = c.tuple_or("dilationRate", rank, &vec![1; rank])?;
        let padding = c.str_or("padding", "valid")?;
        if !["valid", "same"].contains(&padding.as_str()) && !(padding == "causal" && ty == ConvType::Conv1d) {
            bail!("Invalid PaddingMode: {padding}. Valid values are valid, same, causal");
        }
        let format = c.str_or("dataFormat", "channelsLast")?;
        if format != "channelsLast" && format != "channels_last" {
            bail!("dataFormat '{format}' is not supported by tidytensor's convolution layers yet; use channelsLast");
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

impl Kind for Conv {
    fn class_name(&self) -> &'static str {
        match self.ty {
            ConvType::Conv1d => "Conv1D",
            ConvType::Conv2d => "Conv2D",
            ConvType::Transpose => "Conv2DTranspose",
            ConvType::Depthwise => "DepthwiseConv2D",
            ConvType::Separable => "SeparableConv2D",
        }
    }

    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let s = &inputs[0];
        if s.len() != self.rank + 2 {
            bail!(
                "Inputs to {} should have rank {}; Received input shape: {}.",
                self.class_name(),
                self.rank + 2,
                crate::layer::shape_text(s)
            );
        }
        let Some(cin) = s[s.len() - 1] else {
            bail!("The channel dimension of the inputs should be defined. Found `None`.");
        };
        let ks = &self.kernel_size;
        match self.ty {
            ConvType::Conv1d => self.c.add_kernel(b, "kernel", &[ks[0], cin, self.filters])?,
            ConvType::Conv2d => self.c.add_kernel(b, "kernel", &[ks[0], ks[1], cin, self.filters])?,
            ConvType::Transpose => self.c.add_kernel(b, "kernel", &[ks[0], ks[1], self.filters, cin])?,
            ConvType::Depthwise | ConvType::Separable => {
                self.c.add_kernel(b, "depthwise_kernel", &[ks[0], ks[1], cin, self.depth_multiplier])?
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
        b.spec = Some(InputSpec { ndim: Some(self.rank + 2), axes: vec![(-1, cin)], ..Default::default() });
        Ok(())
    }

    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        if s.len() != self.rank + 2 {
            bail!(
                "Inputs to {} should have rank {}; Received input shape: {}.",
                self.class_name(),
                self.rank + 2,
                crate::layer::shape_text(s)
            );
        }
        let mut out = vec![s[0]];
        for i in 0..self.rank {
            let len = s[1 + i];
            out.push(if self.ty == ConvType::Transpose {
                match len {
                    None => None,
                    Some(d) => {
                        let (k, st) = (self.kernel_size[i], self.strides[i]);
                        let extra = if self.padding == "same" { 0 } else { k.saturating_sub(st) };
                        match d.checked_mul(st).and_then(|v| v.checked_add(extra)) {
                            Some(v) => Some(v),
                            None => bail!("The output of {} would be too large", self.class_name()),
                        }
                    }
                }
            } else {
                conv_output_length(len, self.kernel_size[i], &self.padding, self.strides[i], self.dilation[i])
            });
        }
        out.push(s[s.len() - 1].map(|c| self.out_channels(c)));
        Ok(vec![out])
    }

    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let pad = self.window_pad();
        let strides: Vec<f64> = self.strides.iter().map(|&v| v as f64).collect();
        let dil: Vec<f64> = self.dilation.iter().map(|&v| v as f64).collect();
        let bias_at;
        let y = match self.ty {
            ConvType::Conv1d => {
                bias_at = 1;
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
            ConvType::Conv2d => {
                bias_at = 1;
                let win = Window { strides: &strides, dilations: &dil, pad: &pad, rounding: None };
                e.conv(ConvKind::Conv2d, x, w[0], &win, false)?
            }
            ConvType::Transpose => {
                bias_at = 1;
                let s = e.shape(x)?.to_vec();
                let out = self.output_shapes(&[crate::layer::known(&s)])?.remove(0);
                let out: Vec<i64> = out.iter().map(|d| d.unwrap_or(0) as i64).collect();
                let win = Window { strides: &strides, dilations: &[1.0, 1.0], pad: &pad, rounding: None };
                e.conv_transpose(2, &out, x, w[0], &win)?
            }
            ConvType::Depthwise => {
                bias_at = 1;
                let win = Window { strides: &strides, dilations: &dil, pad: &pad, rounding: None };
                e.conv(ConvKind::Depthwise2d, x, w[0], &win, false)?
            }
            ConvType::Separable => {
                bias_at = 2;
                let win = Window { strides: &strides, dilations: &dil, pad: &pad, rounding: None };
                let d = e.conv(ConvKind::Depthwise2d, x, w[0], &win, false)?;
                let one = Window { strides: &[1.0, 1.0], dilations: &[1.0, 1.0], pad: &Padding::Valid, rounding: None };
                e.conv(ConvKind::Conv2d, d, w[1], &one, false)?
            }
        };
        let y = if self.c.use_bias { e.add(y, w[bias_at])? } else { y };
        one_output(self.activation.apply(e, y))
    }

    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if self.ty != ConvType::Depthwise {
            m.insert("filters".into(), json!(self.filters));
        }
        m.insert("kernelSize".into(), json!(self.kernel_size));
        m.insert("strides".into(), json!(self.strides));
        m.insert("padding".into(), json!(self.padding));
        // tfjs's Conv1D config has no dataFormat; its Conv2DTranspose none dilationRate (it
        // takes none either).
        if self.ty != ConvType::Conv1d {
            m.insert("dataFormat".into(), json!("channelsLast"));
        }
        if self.ty != ConvType::Transpose {
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

/// Zeros around the height and width: `[[top, bottom], [left, right]]`.
pub struct ZeroPadding2D {
    pad: [[usize; 2]; 2],
}

impl ZeroPadding2D {
    pub fn new(c: Cfg) -> Result<ZeroPadding2D> {
        let pad = match c.get("padding") {
            None => [[1, 1], [1, 1]],
            Some(Value::Number(n)) => {
                let p = n.as_u64().unwrap_or(0) as usize;
                [[p, p], [p, p]]
            }
            Some(Value::Array(a)) if a.len() == 2 => {
                let side = |v: &Value| -> Result<[usize; 2]> {
                    match v {
                        Value::Number(n) => {
                            let p = n.as_u64().unwrap_or(0) as usize;
                            Ok([p, p])
                        }
                        Value::Array(b) if b.len() == 2 => {
                            Ok([b[0].as_u64().unwrap_or(0) as usize, b[1].as_u64().unwrap_or(0) as usize])
                        }
                        _ => bail!("ZeroPadding2D expects padding to be a length-2 array of numbers or length-2 arrays; got {v}"),
                    }
                };
                [side(&a[0])?, side(&a[1])?]
            }
            Some(v) => bail!("ZeroPadding2D expects padding to be a length-2 array; got {v}"),
        };
        Ok(ZeroPadding2D { pad })
    }
}

impl Kind for ZeroPadding2D {
    fn class_name(&self) -> &'static str {
        "ZeroPadding2D"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        if s.len() != 4 {
            bail!("Input 0 is incompatible with layer ZeroPadding2D: expected ndim=4, found ndim={}", s.len());
        }
        let [[t, b], [l, r]] = self.pad;
        let grow = |d: Option<usize>, a: usize, z: usize| -> Result<Option<usize>> {
            d.map(|d| d.checked_add(a).and_then(|v| v.checked_add(z)).ok_or_else(|| too_large("ZeroPadding2D")))
                .transpose()
        };
        Ok(vec![vec![s[0], grow(s[1], t, b)?, grow(s[2], l, r)?, s[3]]])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let [[t, b], [l, r]] = self.pad;
        one_output(e.pad_zeros(inputs[0], &[0, t, l, 0], &[0, b, r, 0]))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("padding".into(), json!(self.pad));
        m.insert("dataFormat".into(), json!("channelsLast"));
        m
    }
}

/// Repeats rows and columns `size` times (nearest) or interpolates (bilinear).
pub struct UpSampling2D {
    size: Vec<usize>,
    bilinear: bool,
}

impl UpSampling2D {
    pub fn new(c: Cfg) -> Result<UpSampling2D> {
        let interpolation = c.str_or("interpolation", "nearest")?;
        let bilinear = match interpolation.as_str() {
            "nearest" => false,
            "bilinear" => true,
            other => bail!("Invalid interpolation parameter: {other} is not implemented"),
        };
        Ok(UpSampling2D { size: c.tuple_or("size", 2, &[2, 2])?, bilinear })
    }
}

impl Kind for UpSampling2D {
    fn class_name(&self) -> &'static str {
        "UpSampling2D"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        if s.len() != 4 {
            bail!("Input 0 is incompatible with layer UpSampling2D: expected ndim=4, found ndim={}", s.len());
        }
        let scale = |d: Option<usize>, f: usize| -> Result<Option<usize>> {
            d.map(|d| d.checked_mul(f).ok_or_else(|| too_large("UpSampling2D"))).transpose()
        };
        Ok(vec![vec![s[0], scale(s[1], self.size[0])?, scale(s[2], self.size[1])?, s[3]]])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let s = e.shape(inputs[0])?.to_vec();
        let method = if self.bilinear { Resize::Bilinear } else { Resize::NearestNeighbor };
        one_output(e.resize(method, inputs[0], [s[1] * self.size[0], s[2] * self.size[1]], false, false))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("size".into(), json!(self.size));
        m.insert("dataFormat".into(), json!("channelsLast"));
        m.insert("interpolation".into(), json!(if self.bilinear { "bilinear" } else { "nearest" }));
        m
    }
}

fn too_large(class: &str) -> tidytensor_core::Error {
    tidytensor_core::Error(format!("The output of {class} would be too large"))
}
