//! The fused ops' epilogue (tfjs's `fused_util`): a product (conv2d, depthwiseConv2d, matMul)
//! followed by an optional bias and an optional activation, run as one kernel. The front-ends
//! are beside their products (`conv.rs`, `matmul.rs`); what they share is here.

use crate::backend::Activation;
use crate::engine::Input;
use crate::{shape, Backend, BinaryOp, DType, Engine, Result, Storage, TensorId, UnaryOp, View};

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
        let channels = out_shape.last().copied().unwrap_or(1);
        for t in f.inputs() {
            let (s, d) = (self.shape(t)?, self.dtype(t)?);
            let last = s.last().copied().unwrap_or(1);
            let lead_ones = s.len() <= out_shape.len() && s[..s.len().saturating_sub(1)].iter().all(|&d| d == 1);
            if d != DType::Float32 || !lead_ones || (last != 1 && last != channels) {
                return Ok(false);
            }
        }
        Ok(true)
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
    let mut extra = extra.iter();
    let bias = if f.bias.is_some() { extra.next() } else { None };
    let alpha = if f.activation == Activation::Prelu { extra.next() } else { None };
    backend.fused_epilogue(y, rows, channels, bias.map(f32_view), f.activation, alpha.map(f32_view))
}

fn f32_view(x: &Input) -> View<'_> {
    View { storage: &*x.data.storage, shape: &x.shape, dtype: DType::Float32 }
}
