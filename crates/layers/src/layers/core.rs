//! The core layers: dense, activation, dropout, flatten, reshape, permute, repeatVector,
//! embedding, inputLayer, spatialDropout1d, masking, and the activation layers (reLU, leakyReLU,
//! softmax, elu, thresholdedReLU, prelu).

use super::{one_output, Common};
use crate::activations::Activation;
use crate::config::Cfg;
use crate::initializers::Initializer;
use crate::layer::{dims, shape_text, ActivityRegularizer, Builder, InputSpec, Kind, MaskOut, Shape};
use crate::regularizers::{Constraint, Regularizer};
use serde_json::{json, Map, Value};
use tidytensor_core::{bail, BinaryOp, DType, Engine, Result, TensorId, UnaryOp};

/// `y = activation(x · kernel + bias)` on the last axis.
pub struct Dense {
    units: usize,
    activation: Activation,
    c: Common,
}

impl Dense {
    pub fn new(c: Cfg) -> Result<Dense> {
        Ok(Dense {
            units: c.positive("units")?,
            activation: Activation::parse(c.get("activation"))?,
            c: Common::new(c, "kernel", "glorotNormal")?,
        })
    }
}

impl Kind for Dense {
    fn class_name(&self) -> &'static str {
        "Dense"
    }
    /// tfjs marks it `supportsMasking`: a mask passes through it.
    fn supports_masking(&self) -> bool {
        true
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        if inputs[0].len() < 2 {
            bail!(
                "Input 0 is incompatible with layer {}: expected min_ndim=2, found ndim={}",
                b.layer,
                inputs[0].len()
            );
        }
        let Some(Some(input_dim)) = inputs[0].last().copied() else {
            bail!("The last dimension of the inputs to `Dense` should be defined. Found `None`.");
        };
        self.c.add_kernel(b, "kernel", &[input_dim, self.units])?;
        self.c.add_bias(b, self.units)?;
        b.spec = Some(InputSpec { min_ndim: Some(2), axes: vec![(-1, input_dim)], ..Default::default() });
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let mut s = inputs[0].clone();
        match s.last_mut() {
            Some(last) => *last = Some(self.units),
            None => bail!("Dense expects inputs of rank 2 or more"),
        }
        Ok(vec![s])
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], _training: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let shape = e.shape(x)?.to_vec();
        let y = if shape.len() == 2 {
            e.matmul(x, w[0], false, false)?
        } else {
            let k = *shape.last().unwrap_or(&1);
            let flat = e.reshape(x, &[-1, k as i64])?;
            let m = e.matmul(flat, w[0], false, false)?;
            let mut out = dims(&shape);
            *out.last_mut().expect("rank >= 1") = self.units as i64;
            e.reshape(m, &out)?
        };
        let y = if self.c.use_bias { e.add(y, w[1])? } else { y };
        one_output(self.activation.apply(e, y))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("units".into(), json!(self.units));
        m.insert("activation".into(), json!(self.activation.name()));
        self.c.config_into(&mut m, "kernel");
        m
    }
    fn activity_regularizer(&self) -> ActivityRegularizer {
        ActivityRegularizer::Taken
    }
}

/// Applies an activation.
pub struct ActivationLayer(Activation);

impl ActivationLayer {
    /// Without `activation`, linear (as tfjs's `getActivation(undefined)`).
    pub fn new(c: Cfg) -> Result<ActivationLayer> {
        Ok(ActivationLayer(Activation::parse(c.get("activation"))?))
    }
}

impl Kind for ActivationLayer {
    fn class_name(&self) -> &'static str {
        "Activation"
    }
    /// tfjs marks it `supportsMasking`: a mask passes through it.
    fn supports_masking(&self) -> bool {
        true
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        one_output(self.0.apply(e, inputs[0]))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("activation".into(), json!(self.0.name()));
        m
    }
}

/// Zeroes a fraction `rate` of the values while training and scales the rest by
/// `1 / (1 - rate)`; the identity otherwise.
pub struct Dropout {
    /// SpatialDropout1D: one draw per (batch, channel), shared by every step.
    spatial: bool,
    rate: f64,
    /// `null` entries take the input's size.
    noise_shape: Option<Vec<Option<usize>>>,
    seed: Option<Value>,
}

impl Dropout {
    pub fn new(c: Cfg) -> Result<Dropout> {
        let rate = c.f64_or("rate", f64::NAN)?;
        if rate.is_nan() {
            bail!("rate is required but was not provided");
        }
        if !(0.0..=1.0).contains(&rate) {
            bail!("Invalid dropout rate {rate}: it must be in the interval [0, 1]");
        }
        Ok(Dropout { spatial: false, rate, noise_shape: c.shape("noiseShape")?, seed: c.get("seed").cloned() })
    }

    /// tfjs's SpatialDropout1D: a dropout of `[batch, steps, channels]` inputs whose noise
    /// shape is `[batch, 1, channels]`.
    pub fn spatial_1d(c: Cfg) -> Result<Dropout> {
        Ok(Dropout { spatial: true, ..Dropout::new(c)? })
    }
}

impl Kind for Dropout {
    fn class_name(&self) -> &'static str {
        if self.spatial {
            "SpatialDropout1D"
        } else {
            "Dropout"
        }
    }
    /// tfjs marks it `supportsMasking`: a mask passes through it.
    fn supports_masking(&self) -> bool {
        true
    }
    fn build(&mut self, b: &mut Builder, _inputs: &[Shape]) -> Result<()> {
        if self.spatial {
            b.spec = Some(InputSpec { ndim: Some(3), ..Default::default() });
        }
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        if self.spatial && inputs[0].len() != 3 {
            bail!(
                "Input 0 is incompatible with layer SpatialDropout1D: expected ndim=3, found ndim={}",
                inputs[0].len()
            );
        }
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        // tfjs drops only while training and for a rate strictly between 0 and 1.
        if !(training && self.rate > 0.0 && self.rate < 1.0) {
            return one_output(e.clone_tensor(x));
        }
        let shape = e.shape(x)?.to_vec();
        let noise: Vec<usize> = match &self.noise_shape {
            _ if self.spatial => vec![shape[0], 1, shape[2]],
            Some(n) => n.iter().zip(&shape).map(|(d, &s)| d.unwrap_or(s)).collect(),
            None => shape.clone(),
        };
        let seed = self.seed.as_ref().map(|s| s.as_str().map_or_else(|| s.to_string(), str::to_string));
        // tfjs-layers' dropout is tf.dropout's.
        let noise: Vec<Option<f64>> = noise.iter().map(|&d| Some(d as f64)).collect();
        one_output(e.dropout(x, self.rate, Some(&noise), seed.as_deref()))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("rate".into(), json!(self.rate));
        m.insert("noiseShape".into(), self.noise_shape.as_ref().map_or(Value::Null, |s| crate::layer::shape_json(s)));
        m.insert("seed".into(), json!(self.seed));
        m
    }
}

/// `[batch, ...]` as `[batch, product]` (channels-first inputs moved to channels-last first).
pub struct Flatten {
    /// As given (tfjs writes it only then).
    data_format: Option<String>,
}

impl Flatten {
    pub fn new(c: Cfg) -> Result<Flatten> {
        let data_format = match c.get("dataFormat") {
            None => None,
            Some(Value::String(f)) => match f.as_str() {
                "channelsLast" | "channels_last" => Some("channelsLast".to_string()),
                "channelsFirst" | "channels_first" => Some("channelsFirst".to_string()),
                _ => bail!("Invalid DataFormat: {f}. Valid values are channelsFirst, channelsLast"),
            },
            Some(v) => bail!("dataFormat must be a string, got {v}"),
        };
        Ok(Flatten { data_format })
    }
}

impl Kind for Flatten {
    fn class_name(&self) -> &'static str {
        "Flatten"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        if s.len() < 3 {
            bail!("Input 0 is incompatible with layer flatten: expected min_ndim=3, found ndim={}", s.len());
        }
        let rest: Option<usize> = s[1..].iter().try_fold(1usize, |a, d| a.checked_mul((*d)?));
        if rest.is_none() {
            bail!(
                "The shape of the input to \"Flatten\" is not fully defined (got {}). Make sure to pass a complete \"input_shape\" or \"batch_input_shape\" argument to the first layer in your model.",
                crate::layer::shape_text(&s[1..])
            );
        }
        Ok(vec![vec![s[0], rest]])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let shape = e.shape(inputs[0])?.to_vec();
        let b = shape.first().copied().unwrap_or(1) as i64;
        let mut x = inputs[0];
        if self.data_format.as_deref() == Some("channelsFirst") && shape.len() > 1 {
            // tfjs: the channels axis (1) moved to the end.
            let mut perm: Vec<i64> = vec![0];
            perm.extend(2..shape.len() as i64);
            perm.push(1);
            x = e.transpose(x, Some(&perm))?;
        }
        one_output(e.reshape(x, &[b, -1]))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if let Some(f) = &self.data_format {
            m.insert("dataFormat".into(), json!(f));
        }
        m
    }
}

/// Reshapes all but the batch axis to `targetShape` (one entry may be unknown: -1, or `null`
/// as tfjs writes it).
pub struct Reshape {
    /// -1 for the unknown entry.
    target: Vec<i64>,
}

impl Reshape {
    pub fn new(c: Cfg) -> Result<Reshape> {
        let target = match c.get("targetShape") {
            None => bail!("targetShape is required but was not provided"),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| match x {
                    Value::Null => Ok(-1),
                    _ => x.as_i64().map(|d| d.max(-1)).ok_or_else(|| {
                        tidytensor_core::Error(format!("targetShape must be a list of integers, got {x}"))
                    }),
                })
                .collect::<Result<Vec<i64>>>()?,
            Some(v) => bail!("targetShape must be a list of integers, got {v}"),
        };
        Ok(Reshape { target })
    }
}

impl Kind for Reshape {
    fn class_name(&self) -> &'static str {
        "Reshape"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        let total: Option<usize> = s[1..].iter().try_fold(1usize, |a, d| a.checked_mul((*d)?));
        let known = self.target.iter().filter(|&&d| d >= 0).try_fold(1usize, |a, &d| a.checked_mul(d as usize));
        let Some(known) = known else { bail!("Total size of new array must be unchanged.") };
        let unknown = self.target.iter().filter(|&&d| d < 0).count();
        if unknown > 1 {
            bail!("Can only specifiy one unknown dimension.");
        }
        let mut out: Shape = vec![s[0]];
        for &d in &self.target {
            out.push(if d >= 0 {
                Some(d as usize)
            } else {
                match total {
                    Some(t) if known > 0 && t % known == 0 => Some(t / known),
                    Some(_) => bail!("Total size of new array must be unchanged."),
                    None => None,
                }
            });
        }
        if let (Some(t), 0) = (total, unknown) {
            if t != known {
                bail!("Total size of new array must be unchanged.");
            }
        }
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let b = e.shape(inputs[0])?.first().copied().unwrap_or(1) as i64;
        let mut to = vec![b];
        to.extend(&self.target);
        one_output(e.reshape(inputs[0], &to))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        // tfjs writes the unknown entry as null.
        let target: Vec<Value> = self.target.iter().map(|&d| if d < 0 { Value::Null } else { json!(d) }).collect();
        m.insert("targetShape".into(), Value::Array(target));
        m
    }
}

/// Permutes the non-batch axes (`dims` counts from 1).
pub struct Permute {
    dims: Vec<i64>,
}

impl Permute {
    pub fn new(c: Cfg) -> Result<Permute> {
        // tfjs's texts for a missing or non-list `dims`.
        let d = match c.get("dims") {
            None => bail!("Required configuration field `dims` is missing during Permute constructor call."),
            Some(v) if !v.is_array() => {
                let shown = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                bail!("Permute constructor requires `dims` to be an Array, but received {shown} instead.")
            }
            Some(_) => c.ints("dims")?.unwrap_or_default(),
        };
        let mut sorted = d.clone();
        sorted.sort();
        if sorted != (1..=d.len() as i64).collect::<Vec<_>>() {
            bail!("Invalid permutation `dims`: {:?} `dims` must contain consecutive integers starting from 1.", d);
        }
        Ok(Permute { dims: d })
    }
}

impl Kind for Permute {
    fn class_name(&self) -> &'static str {
        "Permute"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        if s.len() != self.dims.len() + 1 {
            bail!("Permute expects inputs of rank {}", self.dims.len() + 1);
        }
        let mut out = vec![s[0]];
        out.extend(self.dims.iter().map(|&d| s[d as usize]));
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let mut perm = vec![0i64];
        perm.extend(&self.dims);
        one_output(e.transpose(inputs[0], Some(&perm)))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("dims".into(), json!(self.dims));
        m
    }
}

/// `[batch, features]` as `[batch, n, features]`.
pub struct RepeatVector {
    n: usize,
}

impl RepeatVector {
    pub fn new(c: Cfg) -> Result<RepeatVector> {
        Ok(RepeatVector { n: c.positive("n")? })
    }
}

impl Kind for RepeatVector {
    fn class_name(&self) -> &'static str {
        "RepeatVector"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        if s.len() != 2 {
            bail!("Input 0 is incompatible with layer repeat_vector: expected ndim=2, found ndim={}", s.len());
        }
        Ok(vec![vec![s[0], Some(self.n), s[1]]])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let s = e.shape(inputs[0])?.to_vec();
        let x = e.expand_dims(inputs[0], 1)?;
        one_output(e.broadcast_to(x, &[s[0], self.n, s[1]]))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("n".into(), json!(self.n));
        m
    }
}

/// Rows of an `[inputDim, outputDim]` table, looked up by integer index.
pub struct Embedding {
    input_dim: usize,
    output_dim: usize,
    init: Initializer,
    regularizer: Option<crate::regularizers::Regularizer>,
    constraint: Option<crate::regularizers::Constraint>,
    /// As given (tfjs writes `null` when not); `true` makes the mask `x != 0`.
    mask_zero: Option<bool>,
    input_length: Option<Value>,
}

impl Embedding {
    pub fn new(c: Cfg) -> Result<Embedding> {
        Ok(Embedding {
            input_dim: c.positive("inputDim")?,
            output_dim: c.positive("outputDim")?,
            init: Initializer::from_cfg(c, "embeddingsInitializer", "randomUniform")?,
            regularizer: crate::regularizers::Regularizer::from_cfg(c, "embeddingsRegularizer")?,
            constraint: crate::regularizers::Constraint::from_cfg(c, "embeddingsConstraint")?,
            mask_zero: c.get("maskZero").map(|_| c.bool_or("maskZero", false)).transpose()?,
            input_length: c.get("inputLength").cloned(),
        })
    }
}

impl Kind for Embedding {
    fn class_name(&self) -> &'static str {
        "Embedding"
    }
    /// tfjs: `supportsMasking = maskZero`.
    fn supports_masking(&self) -> bool {
        self.mask_zero == Some(true)
    }
    /// tfjs: `notEqual(x, zerosLike(x))` with `maskZero`, else no mask (never an error).
    fn compute_mask(
        &self,
        e: &mut Engine,
        inputs: &[TensorId],
        _masks: &[Option<TensorId>],
    ) -> Result<Option<MaskOut>> {
        if self.mask_zero != Some(true) {
            return Ok(Some(MaskOut::One(None)));
        }
        let x = exactly_one(inputs)?;
        let zeros = e.fill_like(x, 0.0)?;
        Ok(Some(MaskOut::One(Some(e.binary(BinaryOp::NotEqual, x, zeros)?))))
    }
    fn build(&mut self, b: &mut Builder, _inputs: &[Shape]) -> Result<()> {
        b.add(
            "embeddings",
            &[self.input_dim, self.output_dim],
            &self.init,
            self.regularizer.as_ref(),
            self.constraint.as_ref(),
            true,
        )?;
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let mut s = inputs[0].clone();
        s.push(Some(self.output_dim));
        Ok(vec![s])
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let shape = e.shape(x)?.to_vec();
        let idx = if e.dtype(x)? == DType::Int32 { x } else { e.cast(x, DType::Int32)? };
        let flat = e.reshape(idx, &[-1])?;
        let rows = e.gather(w[0], flat, 0, 0)?;
        let mut out = dims(&shape);
        out.push(self.output_dim as i64);
        one_output(e.reshape(rows, &out))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("inputDim".into(), json!(self.input_dim));
        m.insert("outputDim".into(), json!(self.output_dim));
        m.insert("embeddingsInitializer".into(), self.init.to_json());
        m.insert("embeddingsRegularizer".into(), self.regularizer.as_ref().map_or(Value::Null, |r| r.to_json()));
        m.insert("embeddingsConstraint".into(), self.constraint.as_ref().map_or(Value::Null, |r| r.to_json()));
        m.insert("maskZero".into(), json!(self.mask_zero));
        m.insert("inputLength".into(), self.input_length.clone().unwrap_or(Value::Null));
        m
    }
    fn activity_regularizer(&self) -> ActivityRegularizer {
        ActivityRegularizer::Taken
    }
}

/// A model's entry point: passes its input through.
pub struct InputLayer {
    pub sparse: bool,
}

impl Kind for InputLayer {
    fn class_name(&self) -> &'static str {
        "InputLayer"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        one_output(e.clone_tensor(inputs[0]))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("sparse".into(), json!(self.sparse));
        m
    }
}

/// The activation layers, each with its parameter.
pub enum Advanced {
    /// `min(relu(x), maxValue)`.
    ReLU {
        max_value: Option<f64>,
    },
    LeakyReLU {
        alpha: f64,
    },
    Softmax {
        axis: i64,
    },
    Elu {
        alpha: f64,
    },
    /// `x` where `x > theta`, else 0.
    ThresholdedReLU {
        theta: f64,
    },
}

impl Advanced {
    pub fn relu(c: Cfg) -> Result<Advanced> {
        Ok(Advanced::ReLU { max_value: c.get("maxValue").and_then(Value::as_f64) })
    }
    pub fn leaky_relu(c: Cfg) -> Result<Advanced> {
        Ok(Advanced::LeakyReLU { alpha: c.f64_or("alpha", 0.3)? })
    }
    pub fn softmax(c: Cfg) -> Result<Advanced> {
        // tfjs's default axis is 1 (Keras's is -1); the same on rank-2 inputs.
        Ok(Advanced::Softmax { axis: c.f64_or("axis", 1.0)? as i64 })
    }
    pub fn thresholded_relu(c: Cfg) -> Result<Advanced> {
        Ok(Advanced::ThresholdedReLU { theta: c.f64_or("theta", 1.0)? })
    }
    pub fn elu(c: Cfg) -> Result<Advanced> {
        let alpha = c.f64_or("alpha", 1.0)?;
        if alpha != 1.0 {
            bail!("Non-default alpha value ({alpha}) is not supported by the ELU layer yet.");
        }
        Ok(Advanced::Elu { alpha })
    }
}

impl Kind for Advanced {
    fn class_name(&self) -> &'static str {
        match self {
            Advanced::ReLU { .. } => "ReLU",
            Advanced::LeakyReLU { .. } => "LeakyReLU",
            Advanced::Softmax { .. } => "Softmax",
            Advanced::Elu { .. } => "ELU",
            Advanced::ThresholdedReLU { .. } => "ThresholdedReLU",
        }
    }
    /// Of tfjs's advanced activations only ReLU (and PReLU) support masking.
    fn supports_masking(&self) -> bool {
        matches!(self, Advanced::ReLU { .. })
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        one_output(match *self {
            // tfjs's clipByValue(relu(x), 0, maxValue); with no gradient recorded, the clip alone
            // (the same values; relu's gradient differs from clip's only at 0), and for
            // MobileNet's maxValue 6 the one-pass relu6 kernel.
            Advanced::ReLU { max_value: Some(m) } if !e.taping() && m == 6.0 => e.unary(UnaryOp::Relu6, x),
            Advanced::ReLU { max_value: Some(m) } if !e.taping() && m >= 0.0 => e.clip_by_value(x, 0.0, m),
            Advanced::ReLU { max_value } => {
                let r = e.unary(UnaryOp::Relu, x)?;
                match max_value {
                    Some(m) => e.clip_by_value(r, 0.0, m),
                    None => Ok(r),
                }
            }
            // tfjs-layers' LeakyReLU is tf.leakyRelu.
            Advanced::LeakyReLU { alpha } => e.leaky_relu(x, alpha),
            Advanced::Softmax { axis } => e.softmax(x, axis),
            Advanced::Elu { .. } => e.unary(UnaryOp::Elu, x),
            Advanced::ThresholdedReLU { theta } => {
                // tfjs: x * cast(x > theta, float32).
                let t = e.scalar(theta)?;
                let above = e.binary(BinaryOp::Greater, x, t)?;
                let above = e.cast(above, DType::Float32)?;
                e.mul(x, above)
            }
        })
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        match self {
            Advanced::ReLU { max_value } => m.insert("maxValue".into(), json!(max_value)),
            Advanced::LeakyReLU { alpha } | Advanced::Elu { alpha } => m.insert("alpha".into(), json!(alpha)),
            Advanced::Softmax { axis } => m.insert("axis".into(), json!(axis)),
            Advanced::ThresholdedReLU { theta } => m.insert("theta".into(), json!(theta)),
        };
        m
    }
}

/// `x` where `x >= 0`, `alpha * x` below: a learned slope per position (shared along
/// `sharedAxes`).
pub struct PReLU {
    init: Initializer,
    regularizer: Option<Regularizer>,
    constraint: Option<Constraint>,
    /// Axes (1 is the first after the batch) along which one slope is shared.
    shared_axes: Option<Vec<i64>>,
}

impl PReLU {
    pub fn new(c: Cfg) -> Result<PReLU> {
        let shared_axes = match c.get("sharedAxes") {
            None => None,
            Some(Value::Number(n)) => Some(vec![n.as_f64().unwrap_or(f64::NAN) as i64]),
            Some(Value::Array(a)) if a.iter().all(|v| v.as_i64().is_some()) => {
                Some(a.iter().filter_map(Value::as_i64).collect())
            }
            Some(v) => bail!(
                "Expected sharedAxes to be a number or an array of numbers, but got {}",
                v.as_str().map_or_else(|| v.to_string(), str::to_string)
            ),
        };
        Ok(PReLU {
            init: Initializer::from_cfg(c, "alphaInitializer", "zeros")?,
            regularizer: Regularizer::from_cfg(c, "alphaRegularizer")?,
            constraint: Constraint::from_cfg(c, "alphaConstraint")?,
            shared_axes,
        })
    }
}

impl Kind for PReLU {
    fn class_name(&self) -> &'static str {
        "PReLU"
    }
    /// tfjs marks it `supportsMasking`: a mask passes through it.
    fn supports_masking(&self) -> bool {
        true
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let s = &inputs[0];
        let mut param: Vec<Option<usize>> = s.iter().skip(1).copied().collect();
        for &a in self.shared_axes.iter().flatten() {
            match usize::try_from(a - 1).ok().and_then(|i| param.get_mut(i)) {
                Some(p) => *p = Some(1),
                None => bail!("PReLU: sharedAxes entry {a} is not an axis of inputs of shape {}", shape_text(s)),
            }
        }
        let Some(param) = param.into_iter().collect::<Option<Vec<usize>>>() else {
            bail!("PReLU: the input shape {} must be known but for the batch and the shared axes", shape_text(s));
        };
        b.add("alpha", &param, &self.init, self.regularizer.as_ref(), self.constraint.as_ref(), true)?;
        // tfjs's spec: the rank, and with shared axes every non-batch size.
        let axes = match self.shared_axes {
            Some(_) => s.iter().enumerate().skip(1).filter_map(|(i, d)| d.map(|d| (i as i64, d))).collect(),
            None => Vec::new(),
        };
        b.spec = Some(InputSpec { ndim: Some(s.len()), axes, ..Default::default() });
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        one_output(e.binary(BinaryOp::Prelu, inputs[0], w[0]))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("alphaInitializer".into(), self.init.to_json());
        m.insert("alphaRegularizer".into(), self.regularizer.as_ref().map_or(Value::Null, Regularizer::to_json));
        m.insert("alphaConstraint".into(), self.constraint.as_ref().map_or(Value::Null, Constraint::to_json));
        m.insert("sharedAxes".into(), json!(self.shared_axes));
        m
    }
}

/// Zeroes the positions (last axis) whose every value is `maskValue`; its mask tells the
/// layers after it (recurrent ones) which steps to skip.
pub struct Masking {
    mask_value: f64,
}

impl Masking {
    pub fn new(c: Cfg) -> Result<Masking> {
        Ok(Masking { mask_value: c.f64_or("maskValue", 0.0)? })
    }
}

impl Kind for Masking {
    fn class_name(&self) -> &'static str {
        "Masking"
    }
    fn supports_masking(&self) -> bool {
        true
    }
    /// tfjs: `any(notEqual(x, maskValue), -1)`: a step is kept when any feature differs.
    fn compute_mask(
        &self,
        e: &mut Engine,
        inputs: &[TensorId],
        _masks: &[Option<TensorId>],
    ) -> Result<Option<MaskOut>> {
        let x = exactly_one(inputs)?;
        let v = e.scalar(self.mask_value)?;
        let differs = e.binary(BinaryOp::NotEqual, x, v)?;
        let m = e.reduce(tidytensor_core::ReduceOp::Any, differs, Some(&[-1]), false)?;
        Ok(Some(MaskOut::One(Some(m))))
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        // tfjs: x * cast(any(x != maskValue, -1, keepDims), x.dtype).
        let x = inputs[0];
        let dtype = e.dtype(x)?;
        let v = e.scalar(self.mask_value)?;
        let differs = e.binary(BinaryOp::NotEqual, x, v)?;
        let keep = e.reduce(tidytensor_core::ReduceOp::Any, differs, Some(&[-1]), true)?;
        let keep = e.cast(keep, dtype)?;
        one_output(e.mul(x, keep))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("maskValue".into(), json!(self.mask_value));
        m
    }
    fn keeps_dtype(&self) -> bool {
        true
    }
}

/// tfjs's `getExactlyOneTensor`: computeMask of a one-input layer takes one tensor.
pub(super) fn exactly_one(inputs: &[TensorId]) -> Result<TensorId> {
    match inputs {
        [x] => Ok(*x),
        _ => bail!("Expected Tensor length to be 1; got {}", inputs.len()),
    }
}
