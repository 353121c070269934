//! Every kind of layer, by family, and [`layer`]: a layer from its tfjs class name and config.

mod conv;
mod core;
mod merge;
mod norm;
mod pool;
mod recurrent;

use crate::config::Cfg;
use crate::initializers::Initializer;
use crate::layer::{Builder, Kind, Layer, LayerRef};
use crate::regularizers::{Constraint, Regularizer};
use serde_json::{Map, Value};
use tidytensor_core::{bail, Result, TensorId};

/// A new layer of tfjs class `class` (`'Dense'`; `'dense'`, the `tf.layers` factory's name,
/// works too) with `config`.
pub fn layer(class: &str, config: &Value) -> Result<LayerRef> {
    let c = Cfg::of(config)?;
    let kind: Box<dyn Kind> = match class {
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
        "Conv1D" | "conv1d" => Box::new(conv::Conv::new(c, conv::ConvType::Conv1d)?),
        "Conv2D" | "conv2d" => Box::new(conv::Conv::new(c, conv::ConvType::Conv2d)?),
        "Conv2DTranspose" | "conv2dTranspose" => Box::new(conv::Conv::new(c, conv::ConvType::Transpose)?),
        "DepthwiseConv2D" | "depthwiseConv2d" => Box::new(conv::Conv::new(c, conv::ConvType::Depthwise)?),
        "SeparableConv2D" | "separableConv2d" => Box::new(conv::Conv::new(c, conv::ConvType::Separable)?),
        "ZeroPadding2D" | "zeroPadding2d" => Box::new(conv::ZeroPadding2D::new(c)?),
        "UpSampling2D" | "upSampling2d" => Box::new(conv::UpSampling2D::new(c)?),
        "MaxPooling1D" | "maxPooling1d" => Box::new(pool::Pool::new(c, 1, true)?),
        "MaxPooling2D" | "maxPooling2d" => Box::new(pool::Pool::new(c, 2, true)?),
        "AveragePooling1D" | "averagePooling1d" => Box::new(pool::Pool::new(c, 1, false)?),
        "AveragePooling2D" | "averagePooling2d" => Box::new(pool::Pool::new(c, 2, false)?),
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
        "SimpleRNN" | "simpleRNN" => Box::new(recurrent::Rnn::new(c, recurrent::Cell::Simple)?),
        "LSTM" | "lstm" => Box::new(recurrent::Rnn::new(c, recurrent::Cell::Lstm)?),
        "GRU" | "gru" => Box::new(recurrent::Rnn::new(c, recurrent::Cell::Gru)?),
        _ => bail!("Unknown layer: {class}. This may be due to one of the following reasons:\n1. The layer is defined in Python, in which case it needs to be ported to TensorFlow.js or your JavaScript code.\n2. The custom layer is defined in JavaScript, but is not registered properly with tf.serialization.registerClass()."),
    };
    Ok(Layer::new(kind, c)?.into_ref())
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
