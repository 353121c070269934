//! The fused ops' epilogue (tfjs's `fused_util`): a product (conv2d, depthwiseConv2d, matMul)
//! followed by an optional bias and an optional activation, run as one kernel. The front-ends
//! are beside their products (`conv.rs`, `matmul.rs`); what they share is here.

use crate::backend::{Activation, BatchNormParams};
use crate::engine::Input;
use crate::{bail, shape, Backend, BinaryOp, DType, Engine, HostData, Result, Storage, TensorId, UnaryOp, View};

/// What follows the product: `bias` added (broadcast over the output), then `activation`
/// (`alpha`: prelu's weights).
#[derive(Clone, Copy, Debug)]
pub struct Fused {
    pub bias: Option<TensorId>,
    pub activation: Activation,
    pub alpha: Option<TensorId>,
}

impl Fused {
    /// The extra kernel inputs: the bias, then the alpha (prelu only).
    pub(crate) fn inputs(&self) -> Vec<TensorId> {
        let alpha = if self.activation == Activation::Prelu { self.alpha } else { None };
        self.bias.into_iter().chain(alpha).collect()
    }
}

impl Engine {
    /// tfjs's `applyActivation` (fused ops).
    pub fn activate(
        &mut self,
        y: TensorId,
        activation: &str,
        prelu: Option<TensorId>,
        leaky_alpha: f64,
    ) -> Result<TensorId> {
        match activation {
            "linear" => Ok(y),
            "relu" => self.unary(UnaryOp::Relu, y),
            "elu" => self.unary(UnaryOp::Elu, y),
            "relu6" => self.unary(UnaryOp::Relu6, y),
            "prelu" => match prelu {
                Some(a) => self.binary(BinaryOp::Prelu, y, a),
                None => bail!("Argument 'alpha' passed to 'prelu' must be a Tensor or TensorLike, but got 'undefined'"),
            },
            "leakyrelu" => self.leaky_relu(y, leaky_alpha),
            "sigmoid" => self.unary(UnaryOp::Sigmoid, y),
            other => bail!("Unknown fused activation {other}."),
        }
    }

    /// The bias and activation of the fused ops (tf.fused's composition where the fused kernel does not apply): channels-first data
    /// takes a 1-D bias or PReLU weight per channel.
    pub fn fused_finish(
        &mut self,
        y: TensorId,
        bias: Option<TensorId>,
        activation: &str,
        prelu: Option<TensorId>,
        leaky_alpha: f64,
        nchw: bool,
    ) -> Result<TensorId> {
        self.composed(|e| {
            let per_channel = |e: &mut Engine, t: TensorId| -> Result<TensorId> {
                let s = e.shape(t)?.to_vec();
                if nchw && s.len() == 1 && s[0] != 1 {
                    e.reshape(t, &[s[0] as i64, 1, 1])
                } else {
                    Ok(t)
                }
            };
            let mut out = y;
            if let Some(b) = bias {
                let b = per_channel(e, b)?;
                out = e.add(out, b)?;
            }
            let alpha = match prelu {
                Some(a) => Some(per_channel(e, a)?),
                None => None,
            };
            e.activate(out, activation, alpha, leaky_alpha)
        })
    }

    /// Whether the epilogue can run inside the product's kernel: no gradient being recorded,
    /// a float32 product, and a float32 bias / alpha that broadcasts over the last axis only
    /// (`channels` values or one, leading dims 1), so the output keeps the product's shape.
    pub(crate) fn epilogue_fits(&self, out_shape: &[usize], out_dtype: DType, f: &Fused) -> Result<bool> {
        if self.taping() || out_dtype != DType::Float32 {
            return Ok(false);
        }
        if f.activation == Activation::Prelu && f.alpha.is_none() {
            return Ok(false);
        }
        self.per_channel(out_shape, &f.inputs())
    }

    /// Whether each of `params` is float32 and broadcasts over the last axis of `out_shape`
    /// only (`channels` values or one, leading dims 1): what a channels-last kernel reads.
    fn per_channel(&self, out_shape: &[usize], params: &[TensorId]) -> Result<bool> {
        let channels = out_shape.last().copied().unwrap_or(1);
        for &t in params {
            let (s, d) = (self.shape(t)?, self.dtype(t)?);
            let last = s.last().copied().unwrap_or(1);
            let lead_ones = s.len() <= out_shape.len() && s[..s.len().saturating_sub(1)].iter().all(|&d| d == 1);
            if d != DType::Float32 || !lead_ones || (last != 1 && last != channels) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// tfjs's `batchNorm`: `(x - mean) * scale / sqrt(variance + eps) + offset`, broadcasting
    /// the parameters. One `FusedBatchNorm` kernel (tfjs's) when `x` is float32 and the
    /// parameters are per channel (channels last) and no gradient is being recorded; else the
    /// ops themselves, as tfjs composes them for gradients. Either way the same float32 steps.
    pub fn batch_norm(
        &mut self,
        x: TensorId,
        mean: TensorId,
        variance: TensorId,
        offset: Option<TensorId>,
        scale: Option<TensorId>,
        eps: f64,
    ) -> Result<TensorId> {
        let rank = |e: &Engine, t: TensorId| e.shape(t).map(<[usize]>::len);
        let rm = rank(self, mean)?;
        if rm != rank(self, variance)? {
            crate::bail!("Batch normalization gradient requires mean and variance to have equal ranks.");
        }
        if let Some(o) = offset {
            if rm != rank(self, o)? {
                crate::bail!("Batch normalization gradient requires mean and offset to have equal ranks.");
            }
        }
        if let Some(s) = scale {
            if rm != rank(self, s)? {
                crate::bail!("Batch normalization gradient requires mean and scale to have equal ranks.");
            }
        }
        let xs = self.shape(x)?.to_vec();
        let params: Vec<TensorId> = [mean, variance].into_iter().chain(offset).chain(scale).collect();
        let fits = !self.taping() && self.dtype(x)? == DType::Float32 && self.per_channel(&xs, &params)?;
        if !fits {
            let mut y = self.sub(x, mean)?;
            if let Some(s) = scale {
                y = self.mul(y, s)?;
            }
            let eps = self.fill(&[], eps, DType::Float32)?;
            let v = self.add(variance, eps)?;
            let v = self.unary(UnaryOp::Sqrt, v)?;
            y = self.div(y, v)?;
            return match offset {
                Some(o) => self.add(y, o),
                None => Ok(y),
            };
        }
        let inputs: Vec<TensorId> = [x, mean, variance].into_iter().chain(offset).chain(scale).collect();
        self.run_kernel(crate::kernels::FUSED_BATCH_NORM, &inputs, |e, backend, ins| {
            let channels = xs.last().copied().unwrap_or(1);
            let rows = shape::size(&xs).checked_div(channels).unwrap_or(0);
            let storage = if rows * channels == 0 {
                backend.upload(HostData::F32(Vec::new()))?
            } else {
                let mut rest = ins[3..].iter();
                let offset = offset.and_then(|_| rest.next()).map(f32_view);
                let scale = scale.and_then(|_| rest.next()).map(f32_view);
                let params = BatchNormParams { mean: f32_view(&ins[1]), variance: f32_view(&ins[2]), offset, scale };
                backend.batch_norm(ins[0].view(), rows, channels, params, eps as f32)?
            };
            e.output(storage, xs.clone(), DType::Float32)
        })
    }

    /// The epilogue as separate ops (each its own kernel, with its gradient): tfjs's composition.
    pub(crate) fn compose_epilogue(&mut self, y: TensorId, f: &Fused) -> Result<TensorId> {
        let mut out = y;
        if let Some(b) = f.bias {
            out = self.add(out, b)?;
        }
        match f.activation {
            Activation::Linear => Ok(out),
            Activation::Relu => self.unary(UnaryOp::Relu, out),
            Activation::Relu6 => self.unary(UnaryOp::Relu6, out),
            Activation::Elu => self.unary(UnaryOp::Elu, out),
            Activation::Sigmoid => self.unary(UnaryOp::Sigmoid, out),
            Activation::LeakyRelu(a) => {
                let a = self.fill(&[], a as f64, DType::Float32)?;
                self.binary(BinaryOp::Prelu, out, a)
            }
            Activation::Prelu => match f.alpha {
                Some(a) => self.binary(BinaryOp::Prelu, out, a),
                None => crate::bail!(
                    "Argument 'alpha' passed to 'prelu' must be a Tensor or TensorLike, but got 'undefined'"
                ),
            },
        }
    }
}

/// Runs the epilogue on the product's storage (`out_shape`, float32) inside the kernel body;
/// `extra` are the inputs [`Fused::inputs`] named, resolved by the funnel.
pub(crate) fn run_epilogue(
    backend: &dyn Backend,
    y: Box<dyn Storage>,
    out_shape: &[usize],
    f: &Fused,
    extra: &[Input],
) -> Result<Box<dyn Storage>> {
    let channels = out_shape.last().copied().unwrap_or(1);
    let rows = shape::size(out_shape).checked_div(channels).unwrap_or(0);
    if rows * channels == 0 {
        return Ok(y);
    }
    let (bias, alpha) = epilogue_params(f, extra);
    backend.fused_epilogue(y, rows, channels, bias, f.activation, alpha)
}

/// The bias and alpha views among the epilogue's `extra` kernel inputs.
pub(crate) fn epilogue_params<'a>(f: &Fused, extra: &'a [Input]) -> (Option<View<'a>>, Option<View<'a>>) {
    let mut extra = extra.iter();
    let bias = if f.bias.is_some() { extra.next() } else { None };
    let alpha = if f.activation == Activation::Prelu { extra.next() } else { None };
    (bias.map(f32_view), alpha.map(f32_view))
}

fn f32_view(x: &Input) -> View<'_> {
    View { storage: &*x.data.storage, shape: &x.shape, dtype: DType::Float32 }
}
