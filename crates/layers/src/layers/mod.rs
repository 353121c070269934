//! Every kind of layer, by family, and [`layer`]: a layer from its tfjs class name and config.

mod conv;
mod conv_recurrent;
mod core;
mod merge;
mod noise;
mod norm;
mod pool;
mod preprocessing;
mod recurrent;

use crate::config::Cfg;
use crate::initializers::Initializer;
use crate::layer::{Builder, Kind, Layer, LayerRef};
use crate::regularizers::{Constraint, Regularizer};
use serde_json::{Map, Value};
use tidytensor_core::{bail, Engine, Result, TensorId};

/// A new layer of tfjs class `class` (`'Dense'`; `'dense'`, the `tf.layers` factory's name,
/// works too) with `config`.
pub fn layer(class: &str, config: &Value) -> Result<LayerRef> {
    let c = Cfg::of(config)?;
    Ok(Layer::new(kind(class, c)?, c)?.into_ref())
}

/// The kind of layer of tfjs class `class` with config `c` (wrappers build their inner layer's).
pub(crate) fn kind(class: &str, c: Cfg) -> Result<Box<dyn Kind>> {
    Ok(match class {
        "Dense" | "dense" => Box::new(core::Dense::new(c)?),
        "Activation" | "activation" => Box::new(core::ActivationLayer::new(c)?),
        "Dropout" | "dropout" => Box::new(core::Dropout::new(c)?),
        "Flatten" | "flatten" => Box::new(core::Flatten::new(c)?),
        "Reshape" | "reshape" => Box::new(core::Reshape::new(c)?),
        "Permute" | "permute" => Box::new(core::Permute::new(c)?),
        "RepeatVector" | "repeatVector" => Box::new(core::RepeatVector::new(c)?),
        "Embedding" | "embedding" => Box::new(core::Embedding::new(c)?),
        "InputLayer" | "inputLayer" => Box::new(core::InputLayer { sparse: c.bool_or("sparse", false)? }),
        "ReLU" | "reLU" => Box::new(core::Advanced::relu(c)?),
        "LeakyReLU" | "leakyReLU" => Box::new(core::Advanced::leaky_relu(c)?),
        "Softmax" | "softmax" => Box::new(core::Advanced::softmax(c)?),
        "ELU" | "elu" => Box::new(core::Advanced::elu(c)?),
        "ThresholdedReLU" | "thresholdedReLU" => Box::new(core::Advanced::thresholded_relu(c)?),
        "PReLU" | "prelu" => Box::new(core::PReLU::new(c)?),
        "SpatialDropout1D" | "spatialDropout1d" => Box::new(core::Dropout::spatial_1d(c)?),
        "Masking" | "masking" => Box::new(core::Masking::new(c)?),
        "GaussianNoise" | "gaussianNoise" => Box::new(noise::Noise::new(c, noise::NoiseKind::Gaussian)?),
        "GaussianDropout" | "gaussianDropout" => Box::new(noise::Noise::new(c, noise::NoiseKind::GaussianDropout)?),
        "AlphaDropout" | "alphaDropout" => Box::new(noise::Noise::new(c, noise::NoiseKind::AlphaDropout)?),
        "Rescaling" | "rescaling" => Box::new(preprocessing::Rescaling::new(c)?),
        "CenterCrop" | "centerCrop" => Box::new(preprocessing::CenterCrop::new(c)?),
        "Resizing" | "resizing" => Box::new(preprocessing::Resizing::new(c)?),
        "CategoryEncoding" | "categoryEncoding" => Box::new(preprocessing::CategoryEncoding::new(c)?),
        "RandomWidth" | "randomWidth" => Box::new(preprocessing::RandomWidth::new(c)?),
        "Conv1D" | "conv1d" => Box::new(conv::Conv::new(c, conv::ConvType::Conv1d)?),
        "Conv2D" | "conv2d" => Box::new(conv::Conv::new(c, conv::ConvType::Conv2d)?),
        "Conv3D" | "conv3d" => Box::new(conv::Conv::new(c, conv::ConvType::Conv3d)?),
        "Conv2DTranspose" | "conv2dTranspose" => Box::new(conv::Conv::new(c, conv::ConvType::Transpose)?),
        "Conv3DTranspose" | "conv3dTranspose" => Box::new(conv::Conv::new(c, conv::ConvType::Transpose3d)?),
        "DepthwiseConv2D" | "depthwiseConv2d" => Box::new(conv::Conv::new(c, conv::ConvType::Depthwise)?),
        "SeparableConv2D" | "separableConv2d" => Box::new(conv::Conv::new(c, conv::ConvType::Separable)?),
        "ZeroPadding2D" | "zeroPadding2d" => Box::new(conv::ZeroPadding2D::new(c)?),
        "UpSampling2D" | "upSampling2d" => Box::new(conv::UpSampling2D::new(c)?),
        "Cropping2D" | "cropping2D" => Box::new(conv::Cropping2D::new(c)?),
        "MaxPooling1D" | "maxPooling1d" => Box::new(pool::Pool::new(c, 1, true)?),
        "MaxPooling2D" | "maxPooling2d" => Box::new(pool::Pool::new(c, 2, true)?),
        "AveragePooling1D" | "averagePooling1d" => Box::new(pool::Pool::new(c, 1, false)?),
        "AveragePooling2D" | "averagePooling2d" => Box::new(pool::Pool::new(c, 2, false)?),
        "MaxPooling3D" | "maxPooling3d" => Box::new(pool::Pool::new(c, 3, true)?),
        "AveragePooling3D" | "averagePooling3d" => Box::new(pool::Pool::new(c, 3, false)?),
        "GlobalAveragePooling1D" | "globalAveragePooling1d" => Box::new(pool::Global::new(c, 1, false)?),
        "GlobalAveragePooling2D" | "globalAveragePooling2d" => Box::new(pool::Global::new(c, 2, false)?),
        "GlobalMaxPooling1D" | "globalMaxPooling1d" => Box::new(pool::Global::new(c, 1, true)?),
        "GlobalMaxPooling2D" | "globalMaxPooling2d" => Box::new(pool::Global::new(c, 2, true)?),
        "BatchNormalization" | "batchNormalization" => Box::new(norm::BatchNormalization::new(c)?),
        "LayerNormalization" | "layerNormalization" => Box::new(norm::LayerNormalization::new(c)?),
        "Concatenate" | "concatenate" => Box::new(merge::Merge::concatenate(c)?),
        "Add" | "add" => Box::new(merge::Merge::new(merge::MergeOp::Add)),
        "Multiply" | "multiply" => Box::new(merge::Merge::new(merge::MergeOp::Multiply)),
        "Average" | "average" => Box::new(merge::Merge::new(merge::MergeOp::Average)),
        "Maximum" | "maximum" => Box::new(merge::Merge::new(merge::MergeOp::Maximum)),
        "Minimum" | "minimum" => Box::new(merge::Merge::new(merge::MergeOp::Minimum)),
        "Dot" | "dot" => Box::new(merge::Dot::new(c)?),
        "SimpleRNN" | "simpleRNN" => Box::new(recurrent::Rnn::new(c, recurrent::CellType::Simple)?),
        "LSTM" | "lstm" => Box::new(recurrent::Rnn::new(c, recurrent::CellType::Lstm)?),
        "GRU" | "gru" => Box::new(recurrent::Rnn::new(c, recurrent::CellType::Gru)?),
        "RNN" | "rnn" => Box::new(recurrent::Rnn::generic(c)?),
        "SimpleRNNCell" | "simpleRNNCell" => Box::new(recurrent::CellLayer::new(c, recurrent::CellType::Simple)?),
        "LSTMCell" | "lstmCell" => Box::new(recurrent::CellLayer::new(c, recurrent::CellType::Lstm)?),
        "GRUCell" | "gruCell" => Box::new(recurrent::CellLayer::new(c, recurrent::CellType::Gru)?),
        "StackedRNNCells" | "stackedRNNCells" => Box::new(recurrent::CellLayer::stacked(c)?),
        "Bidirectional" | "bidirectional" => Box::new(recurrent::Bidirectional::new(c)?),
        "TimeDistributed" | "timeDistributed" => Box::new(recurrent::TimeDistributed::new(c)?),
        "ConvLSTM2D" | "convLstm2d" => Box::new(conv_recurrent::ConvLstm2D::new(c)?),
        "ConvLSTM2DCell" | "convLstm2dCell" => Box::new(conv_recurrent::ConvLstm2D::cell(c)?),
        _ => bail!("Unknown layer: {class}. This may be due to one of the following reasons:\n1. The layer is defined in Python, in which case it needs to be ported to TensorFlow.js or your JavaScript code.\n2. The custom layer is defined in JavaScript, but is not registered properly with tf.serialization.registerClass()."),
    })
}

/// tfjs's `dataFormat` (or a Keras file's `channels_first`): whether the channels axis comes
/// right after the batch axis. Absent or null is channels-last, as tfjs's default.
pub(crate) fn channels_first(c: Cfg) -> Result<bool> {
    match c.get("dataFormat") {
        None => Ok(false),
        Some(Value::String(f)) if f == "channelsLast" || f == "channels_last" => Ok(false),
        Some(Value::String(f)) if f == "channelsFirst" || f == "channels_first" => Ok(true),
        Some(v) => {
            let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            bail!("{text} is not a valid DataFormat.  Valid values are channelsFirst,channelsLast or null/undefined.")
        }
    }
}

/// The `dataFormat` a config writes.
pub(crate) fn format_name(channels_first: bool) -> &'static str {
    if channels_first {
        "channelsFirst"
    } else {
        "channelsLast"
    }
}

/// `[batch, channels, ...spatial]` as `[batch, ...spatial, channels]`: channels-first layers
/// run the channels-last code between this and [`to_channels_first`], as tfjs's do.
pub(crate) fn to_channels_last(e: &mut Engine, x: TensorId) -> Result<TensorId> {
    let rank = e.shape(x)?.len() as i64;
    let mut perm = vec![0];
    perm.extend(2..rank);
    perm.push(1);
    e.transpose(x, Some(&perm))
}

/// `[batch, ...spatial, channels]` as `[batch, channels, ...spatial]`.
pub(crate) fn to_channels_first(e: &mut Engine, y: TensorId) -> Result<TensorId> {
    let rank = e.shape(y)?.len() as i64;
    let mut perm = vec![0, rank - 1];
    perm.extend(1..rank - 1);
    e.transpose(y, Some(&perm))
}

/// A config value as JavaScript's `JSON.stringify` writes it (`undefined` when absent).
pub(crate) fn json_text(v: Option<&Value>) -> String {
    match v {
        None => "undefined".into(),
        Some(Value::Number(n)) => n.as_f64().map_or_else(|| n.to_string(), tidytensor_core::js::number),
        Some(Value::Array(a)) => format!("[{}]", a.iter().map(|x| json_text(Some(x))).collect::<Vec<_>>().join(",")),
        Some(v) => v.to_string(),
    }
}

/// A whole number in `[0, MAX_INT]`.
fn whole(v: &Value) -> Option<usize> {
    v.as_f64().filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n <= crate::config::MAX_INT as f64).map(|n| n as usize)
}

/// tfjs's `normalizeArray`: a number repeated `n` times, or a list of `n` integers (its texts).
pub(crate) fn normalize_array(c: Cfg, key: &str, n: usize, default: &[usize]) -> Result<Vec<usize>> {
    match c.get(key) {
        None => Ok(default.to_vec()),
        Some(v @ Value::Number(_)) => match whole(v) {
            Some(x) => Ok(vec![x; n]),
            None => bail!(
                "The {key} argument must be an integer or tuple of {n} integers. Received: {} including a non-integer number {}",
                json_text(Some(v)),
                json_text(Some(v))
            ),
        },
        Some(Value::Array(a)) => {
            if a.len() != n {
                bail!("The {key} argument must be an integer or tuple of {n} integers. Received: {} elements.", a.len());
            }
            a.iter()
                .map(|x| {
                    whole(x).ok_or_else(|| {
                        tidytensor_core::Error(format!(
                            "The {key} argument must be an integer or tuple of {n} integers. Received: {} including a non-integer number {}",
                            json_text(Some(&Value::Array(a.clone()))),
                            json_text(Some(x))
                        ))
                    })
                })
                .collect()
        }
        Some(v) => bail!("The {key} argument must be an integer or tuple of {n} integers. Received: {}", json_text(Some(v))),
    }
}

/// tfjs's `assertPositiveInteger` on a list: `Expected element 1 of poolSize to be a positive
/// integer, but got 2.5.`
pub(crate) fn positive_list(key: &str, values: &[Value]) -> Result<Vec<usize>> {
    if values.is_empty() {
        bail!("{key} is unexpectedly an empty array.");
    }
    values
        .iter()
        .enumerate()
        .map(|(i, v)| match whole(v).filter(|&x| x > 0) {
            Some(x) => Ok(x),
            None => {
                bail!("Expected element {} of {key} to be a positive integer, but got {}.", i + 1, json_text(Some(v)))
            }
        })
        .collect()
}

/// The one output of a single-output layer.
fn one_output(y: Result<TensorId>) -> Result<Vec<TensorId>> {
    y.map(|y| vec![y])
}

/// The weight options most layers share: `{kernel}Initializer`, `biasInitializer`, their
/// regularizers and constraints, `useBias`.
pub(crate) struct Common {
    pub use_bias: bool,
    pub kernel_init: Initializer,
    pub bias_init: Initializer,
    pub kernel_reg: Option<Regularizer>,
    pub bias_reg: Option<Regularizer>,
    pub kernel_constraint: Option<Constraint>,
    pub bias_constraint: Option<Constraint>,
}

impl Common {
    /// `kernel` is the kernel's config prefix (`kernel`, `depthwise`), `init` its default
    /// initializer (tfjs's differ by layer: glorotNormal for dense and convolutions).
    pub fn new(c: Cfg, kernel: &str, init: &str) -> Result<Common> {
        Ok(Common {
            use_bias: c.bool_or("useBias", true)?,
            kernel_init: Initializer::from_cfg(c, &format!("{kernel}Initializer"), init)?,
            bias_init: Initializer::from_cfg(c, "biasInitializer", "zeros")?,
            kernel_reg: Regularizer::from_cfg(c, &format!("{kernel}Regularizer"))?,
            bias_reg: Regularizer::from_cfg(c, "biasRegularizer")?,
            kernel_constraint: Constraint::from_cfg(c, &format!("{kernel}Constraint"))?,
            bias_constraint: Constraint::from_cfg(c, "biasConstraint")?,
        })
    }

    pub fn add_kernel(&self, b: &mut Builder, name: &str, shape: &[usize]) -> Result<usize> {
        b.add(name, shape, &self.kernel_init, self.kernel_reg.as_ref(), self.kernel_constraint.as_ref(), true)
    }

    pub fn add_bias(&self, b: &mut Builder, n: usize) -> Result<Option<usize>> {
        if !self.use_bias {
            return Ok(None);
        }
        b.add("bias", &[n], &self.bias_init, self.bias_reg.as_ref(), self.bias_constraint.as_ref(), true).map(Some)
    }

    pub fn config_into(&self, m: &mut Map<String, Value>, kernel: &str) {
        let opt = |v: Option<Value>| v.unwrap_or(Value::Null);
        m.insert("useBias".into(), Value::Bool(self.use_bias));
        m.insert(format!("{kernel}Initializer"), self.kernel_init.to_json());
        m.insert("biasInitializer".into(), self.bias_init.to_json());
        m.insert(format!("{kernel}Regularizer"), opt(self.kernel_reg.as_ref().map(Regularizer::to_json)));
        m.insert("biasRegularizer".into(), opt(self.bias_reg.as_ref().map(Regularizer::to_json)));
        m.insert(format!("{kernel}Constraint"), opt(self.kernel_constraint.as_ref().map(Constraint::to_json)));
        m.insert("biasConstraint".into(), opt(self.bias_constraint.as_ref().map(Constraint::to_json)));
    }
}
