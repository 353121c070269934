//! The kernels of ONNX nodes (`onnx::<OpType>`), each in ONNX's terms (its inputs, attributes,
//! defaults and opset differences) over the core's front-ends. ONNX is channels-first (NCHW)
//! and numpy-broadcasting, and its filters are `[out, in / group, kh, kw]`: the convolutions
//! and pools reorder to the core's channels-last. Each node runs in a scope of its own (the
//! executor's), so the intermediates here are freed when it returns.

use super::PREFIX;
use crate::ops::{ints, Ctx};
use tidytensor_core::ops::{ConvKind, Fused, NmsOutputs, Padding, PoolKind, SliceMasks, Splits, Window};
use tidytensor_core::{bail, Activation, ArgOp, BinaryOp, CumOp, DType, Engine, ReduceOp, Result, TensorId, UnaryOp};

mod contrib;
mod conv;
mod integer;
mod layout;
mod norm;
mod sample;
mod sequence;
mod signal;

use conv::{conv, conv_transpose, lp_pool, pool};
use integer::{bit_op, dequantize_linear, dynamic_quantize_linear, integer_product, quantize_linear};
use layout::{
    center_crop_pad, gather_elements, non_max_suppression, pad, resize, reverse_sequence, scatter_elements,
    scatter_reduce,
};
use norm::{layer_norm, nll_loss, normalization, rms_norm};
use sample::grid_sample;
use sequence::{attention, recurrent, rotary_embedding};
use signal::{dft, mel_weight_matrix, stft, window};

/// Every op type run here (the default domain).
pub const OPS: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Add",
    "And",
    "ArgMax",
    "ArgMin",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Attention",
    "AveragePool",
    "BatchNormalization",
    "BitShift",
    "BitwiseAnd",
    "BitwiseNot",
    "BitwiseOr",
    "BitwiseXor",
    "BlackmanWindow",
    "Cast",
    "CastLike",
    "Ceil",
    "Celu",
    "CenterCropPad",
    "Clip",
    "Compress",
    "Concat",
    "ConstantOfShape",
    "Conv",
    "ConvInteger",
    "ConvTranspose",
    "Cos",
    "Cosh",
    "CumProd",
    "CumSum",
    "DFT",
    "DepthToSpace",
    "DequantizeLinear",
    "Div",
    "Dropout",
    "DynamicQuantizeLinear",
    "Einsum",
    "Elu",
    "Equal",
    "Erf",
    "Exp",
    "Expand",
    "EyeLike",
    "Flatten",
    "Floor",
    "GRU",
    "Gather",
    "GatherElements",
    "GatherND",
    "Gelu",
    "Gemm",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Greater",
    "GreaterOrEqual",
    "GridSample",
    "GroupNormalization",
    "HammingWindow",
    "HannWindow",
    "HardSigmoid",
    "HardSwish",
    "Hardmax",
    "Identity",
    "InstanceNormalization",
    "IsInf",
    "IsNaN",
    "LRN",
    "LSTM",
    "LayerNormalization",
    "LeakyRelu",
    "Less",
    "LessOrEqual",
    "Log",
    "LogSoftmax",
    "LpNormalization",
    "LpPool",
    "MatMul",
    "MatMulInteger",
    "Max",
    "MaxPool",
    "Mean",
    "MeanVarianceNormalization",
    "MelWeightMatrix",
    "Min",
    "Mish",
    "Mod",
    "Mul",
    "Neg",
    "NegativeLogLikelihoodLoss",
    "NonMaxSuppression",
    "NonZero",
    "Not",
    "OneHot",
    "Or",
    "PRelu",
    "Pad",
    "Pow",
    "QLinearConv",
    "QLinearMatMul",
    "QuantizeLinear",
    "RMSNormalization",
    "RNN",
    "Range",
    "Reciprocal",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
    "Relu",
    "Reshape",
    "Resize",
    "ReverseSequence",
    "RotaryEmbedding",
    "Round",
    "STFT",
    "Scatter",
    "ScatterElements",
    "ScatterND",
    "Selu",
    "Shape",
    "Shrink",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Size",
    "Slice",
    "Softmax",
    "SoftmaxCrossEntropyLoss",
    "Softplus",
    "Softsign",
    "SpaceToDepth",
    "Split",
    "Sqrt",
    "Squeeze",
    "Sub",
    "Sum",
    "SwiGLU",
    "Swish",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Tile",
    "TopK",
    "Transpose",
    "Trilu",
    "Unsqueeze",
    "Upsample",
    "Where",
    "Xor",
];

/// The kernel of an ONNX op type (a contrib op's qualified, `com.microsoft.Gelu`), if it runs
/// here.
pub(crate) fn kernel(op_type: &str) -> Option<crate::ops::Kernel> {
    let known = match op_type.strip_prefix(contrib::DOMAIN).and_then(|o| o.strip_prefix('.')) {
        Some(op) => contrib::OPS.contains(&op),
        None => OPS.contains(&op_type) || contrib::DEFAULT_DOMAIN_OPS.contains(&op_type),
    };
    known.then_some(run as crate::ops::Kernel)
}

pub(crate) use contrib::OPS as CONTRIB_OPS;

/// Whether op `op_type` of `domain` runs here: the default domain's, and the contrib ops.
pub(crate) fn runs(domain: &str, op_type: &str) -> bool {
    match domain {
        "" | "ai.onnx" => true,
        contrib::DOMAIN => contrib::OPS.contains(&op_type),
        _ => false,
    }
}

impl Ctx<'_> {
    /// Optional input `i`: `None` where the node has fewer inputs or names none there (the
    /// loader lists those positions in `_absent`).
    fn opt(&self, i: usize) -> Option<TensorId> {
        let absent = self.attrs().numbers("_absent").unwrap_or_default();
        self.ins.get(i).copied().filter(|_| !absent.contains(&(i as f64)))
    }

    /// Whether the loader's layout pass gave this node its data channels-last (NHWC).
    fn nhwc(&self) -> bool {
        self.attrs().bool("_nhwc", false)
    }

    /// How many outputs the ONNX node names.
    fn outputs(&self) -> usize {
        self.attrs().number("_outputs", 1.0) as usize
    }

    fn opset(&self) -> i64 {
        self.attrs().number("opset", 0.0) as i64
    }

    fn int(&self, name: &str, default: i64) -> i64 {
        self.attrs().number(name, default as f64) as i64
    }

    fn float(&self, name: &str, default: f64) -> f64 {
        self.attrs().number(name, default)
    }

    fn int_list(&self, name: &str) -> Option<Vec<i64>> {
        self.attrs().numbers(name).map(|v| v.iter().map(|&x| x as i64).collect())
    }

    /// A list given as an input from `since` (opset) on, as an attribute before.
    fn list_arg(&self, e: &Engine, name: &str, input: usize, since: i64) -> Result<Option<Vec<i64>>> {
        if self.opset() >= since {
            match self.opt(input) {
                Some(id) => Ok(Some(ints(&e.read_f64(id)?, name)?)),
                None => Ok(None),
            }
        } else {
            Ok(self.int_list(name))
        }
    }
}

fn rank(e: &Engine, x: TensorId) -> Result<usize> {
    Ok(e.shape(x)?.len())
}

/// A possibly negative axis of a rank-`r` tensor.
fn axis(a: i64, r: usize, what: &str) -> Result<usize> {
    let r = r as i64;
    if a < -r || a >= r.max(1) {
        bail!("{what}: axis {a} is out of range for rank {r}");
    }
    Ok(if a < 0 { (a + r) as usize } else { a as usize })
}

/// NCHW → NHWC (any spatial rank) and back.
fn to_channels_last(e: &mut Engine, x: TensorId) -> Result<TensorId> {
    let r = rank(e, x)? as i64;
    let perm: Vec<i64> = std::iter::once(0).chain(2..r).chain(std::iter::once(1)).collect();
    e.transpose(x, Some(&perm))
}

fn to_channels_first(e: &mut Engine, x: TensorId) -> Result<TensorId> {
    let r = rank(e, x)? as i64;
    let perm: Vec<i64> = [0, r - 1].into_iter().chain(1..r - 1).collect();
    e.transpose(x, Some(&perm))
}

fn reduce(e: &mut Engine, c: &Ctx, op: ReduceOp, since: i64) -> Result<TensorId> {
    let x = c.t(0)?;
    let keep = c.int("keepdims", 1) != 0;
    let axes = c.list_arg(e, "axes", 1, since)?;
    let axes = match axes {
        Some(a) if !a.is_empty() => a,
        _ if c.int("noop_with_empty_axes", 0) != 0 => return e.clone_tensor(x),
        _ => (0..rank(e, x)? as i64).collect(),
    };
    let shape = e.shape(x)?.to_vec();
    if shape.contains(&0) {
        // An empty set reduces to the op's identity (ONNX's), -inf for max, +inf for min.
        let axes = axes.iter().map(|&a| axis(a, shape.len(), "reduce")).collect::<Result<Vec<_>>>()?;
        let out: Vec<usize> = (0..shape.len())
            .filter_map(|i| if axes.contains(&i) { keep.then_some(1) } else { Some(shape[i]) })
            .collect();
        let v = match op {
            ReduceOp::Max => f64::NEG_INFINITY,
            ReduceOp::Min => f64::INFINITY,
            ReduceOp::Prod => 1.0,
            ReduceOp::Mean => f64::NAN,
            _ => 0.0,
        };
        let dtype = e.dtype(x)?;
        return e.fill(&out, v, dtype);
    }
    e.reduce(op, x, Some(&axes), keep)
}

/// ONNX's numpy-style MatMul (rank 1 operands are promoted and the added axis dropped).
fn matmul(e: &mut Engine, a: TensorId, b: TensorId) -> Result<TensorId> {
    let (ra, rb) = (rank(e, a)?, rank(e, b)?);
    let a2 = if ra == 1 { e.expand_dims(a, 0)? } else { a };
    let b2 = if rb == 1 { e.expand_dims(b, -1)? } else { b };
    let y = e.matmul(a2, b2, false, false)?;
    let y = if ra == 1 { e.squeeze(y, Some(&[-2]))? } else { y };
    if rb == 1 {
        e.squeeze(y, Some(&[-1]))
    } else {
        Ok(y)
    }
}

/// MatMul and Gemm, with the bias (a MatMul's from a following Add, the loader's) and the
/// activation the loader fused into them in the core's fused kernel where it takes them.
fn linear(e: &mut Engine, c: &Ctx, op: &str) -> Result<TensorId> {
    let (a, b) = (c.t(0)?, c.t(1)?);
    let gemm = op == "Gemm";
    let (ta, tb) = if gemm { (c.int("transA", 0) != 0, c.int("transB", 0) != 0) } else { (false, false) };
    let (alpha, beta) = if gemm { (c.float("alpha", 1.0), c.float("beta", 1.0)) } else { (1.0, 1.0) };
    let activation = c.attrs().string("_activation");
    let act = Activation::parse(activation.as_deref().unwrap_or("linear"), c.float("_alpha", 0.2))?;
    let bias = c.opt(2);
    // The fused kernel: plain matrices (Gemm's; a MatMul's batch of rows against one matrix),
    // unscaled.
    if alpha == 1.0 && beta == 1.0 && (gemm || (rank(e, a)? >= 2 && rank(e, b)? == 2)) {
        return e.fused_matmul(a, b, ta, tb, &Fused { bias, activation: act, alpha: None });
    }
    let mut y = if gemm { e.matmul(a, b, ta, tb)? } else { matmul(e, a, b)? };
    if alpha != 1.0 {
        let s = e.scalar(alpha)?;
        y = e.mul(y, s)?;
    }
    if let Some(cc) = bias {
        let cc = if beta != 1.0 {
            let s = e.scalar(beta)?;
            e.mul(cc, s)?
        } else {
            cc
        };
        y = e.add(y, cc)?;
    }
    match activation {
        Some(name) => e.activate(y, &name, None, c.float("_alpha", 0.2)),
        None => Ok(y),
    }
}

/// x · Φ(x), exactly (erf) or by the tanh approximation.
fn gelu(e: &mut Engine, x: TensorId, tanh: bool) -> Result<TensorId> {
    let inner = if tanh {
        // tanh(√(2/π) · (x + 0.044715 x³))
        let k = e.scalar(0.044715)?;
        let x3 = e.mul(x, x)?;
        let x3 = e.mul(x3, x)?;
        let kx3 = e.mul(x3, k)?;
        let s = e.add(x, kx3)?;
        let r = e.scalar((2.0 / std::f64::consts::PI).sqrt())?;
        let s = e.mul(s, r)?;
        e.unary(UnaryOp::Tanh, s)?
    } else {
        let r = e.scalar(std::f64::consts::FRAC_1_SQRT_2)?;
        let s = e.mul(x, r)?;
        e.unary(UnaryOp::Erf, s)?
    };
    let one = e.scalar(1.0)?;
    let inner = e.add(inner, one)?;
    let half = e.scalar(0.5)?;
    let hx = e.mul(x, half)?;
    e.mul(hx, inner)
}

fn variadic(e: &mut Engine, c: &Ctx, op: BinaryOp) -> Result<TensorId> {
    let xs = c.tensors(0, 0);
    let Some((&first, rest)) = xs.split_first() else { bail!("ONNX node '{}' has no inputs", c.node.name) };
    let mut acc = e.clone_tensor(first)?;
    for &x in rest {
        acc = e.binary(op, acc, x)?;
    }
    Ok(acc)
}

/// ONNX's `Cast` target type as a dtype.
fn cast_to(c: &Ctx) -> Result<DType> {
    let to = c.int("to", 1) as i32;
    match super::tensor::dtype_of(to) {
        Some(d) => Ok(d),
        None => bail!(
            "ONNX node '{}' casts to {}, which tidytensor does not support",
            c.node.name,
            super::tensor::type_name(to)
        ),
    }
}

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.strip_prefix(PREFIX).unwrap_or(&c.node.op);
    if let Some(op) = op.strip_prefix(contrib::DOMAIN).and_then(|o| o.strip_prefix('.')) {
        return contrib::run(e, c, op);
    }
    if contrib::DEFAULT_DOMAIN_OPS.contains(&op) {
        return contrib::run(e, c, op);
    }
    if let Some(u) = unary(op) {
        return Ok(vec![e.unary(u, c.t(0)?)?]);
    }
    if let Some(b) = binary(op) {
        let (x, y) = (c.t(0)?, legacy_broadcast(e, c)?);
        if op == "Div" && e.dtype(x)? == DType::Int32 {
            return Ok(vec![truncating_div(e, x, y)?]);
        }
        return Ok(vec![e.binary(b, x, y)?]);
    }
    let opset = c.opset();
    match op {
        "Dropout" => {
            let training = match c.opt(2) {
                Some(t) => e.read_f64(t)?.first().is_some_and(|&v| v != 0.0),
                None => false,
            };
            if training && c.opt(1).is_none_or(|r| e.read_f64(r).is_ok_and(|v| v.first() != Some(&0.0))) {
                bail!("ONNX node '{}': Dropout in training mode (random) is not supported", c.node.name);
            }
            let y = e.clone_tensor(c.t(0)?)?;
            if c.outputs() < 2 {
                return Ok(vec![y]);
            }
            let shape = e.shape(y)?.to_vec();
            let mask = e.fill(&shape, 1.0, DType::Bool)?;
            return Ok(vec![y, mask]);
        }
        "LayerNormalization" => return layer_norm(e, c),
        "BatchNormalization" if c.int("training_mode", 0) != 0 || (opset < 9 && c.int("is_test", 1) == 0) => {
            bail!("ONNX node '{}': BatchNormalization in training mode is not supported", c.node.name)
        }
        "TopK" => {
            let x = c.t(0)?;
            let k = if opset >= 10 { c.num(e, 1)? as i64 } else { c.int("k", 1) };
            let r = rank(e, x)?;
            let ax = axis(c.int("axis", -1), r, op)?;
            let largest = c.int("largest", 1) != 0;
            // tfjs's topk runs over the last axis, largest first.
            let mut perm: Vec<i64> = (0..r as i64).collect();
            perm.swap(ax, r - 1);
            let mut t = if ax != r - 1 { e.transpose(x, Some(&perm))? } else { x };
            if !largest {
                t = e.neg(t)?;
            }
            let out = e.topk(t, k)?;
            let (mut v, mut i) = (out[0], out[1]);
            if !largest {
                v = e.neg(v)?;
            }
            if ax != r - 1 {
                v = e.transpose(v, Some(&perm))?;
                i = e.transpose(i, Some(&perm))?;
            }
            return Ok(vec![v, i]);
        }
        "LSTM" | "GRU" | "RNN" => return recurrent(e, c, op),
        "DynamicQuantizeLinear" => return dynamic_quantize_linear(e, c),
        "Attention" => return attention(e, c),
        "NegativeLogLikelihoodLoss" => return Ok(vec![nll_loss(e, c, c.t(0)?)?]),
        "NonMaxSuppression" => return Ok(vec![non_max_suppression(e, c)?]),
        "RotaryEmbedding" => return Ok(vec![rotary_embedding(e, c)?]),
        "SoftmaxCrossEntropyLoss" => {
            // log_softmax over the classes (axis 1), then the negative log-likelihood.
            let x = c.t(0)?;
            let r = rank(e, x)? as i64;
            let perm: Vec<i64> = std::iter::once(0).chain(2..r).chain(std::iter::once(1)).collect();
            let back: Vec<i64> = [0, r - 1].into_iter().chain(1..r - 1).collect();
            let xl = e.transpose(x, Some(&perm))?;
            let lp = e.log_softmax(xl, -1.0)?;
            let log_prob = e.transpose(lp, Some(&back))?;
            let loss = nll_loss(e, c, log_prob)?;
            let mut out = vec![loss, log_prob];
            out.truncate(c.outputs().max(1));
            return Ok(out);
        }
        "MaxPool" if c.outputs() > 1 => {
            bail!("ONNX node '{}': MaxPool's indices output is not supported yet", c.node.name)
        }
        _ => {}
    }
    Ok(vec![match op {
        "Identity" => e.clone_tensor(c.t(0)?)?,
        "BitShift" | "BitwiseAnd" | "BitwiseNot" | "BitwiseOr" | "BitwiseXor" => bit_op(e, c, op)?,
        "QuantizeLinear" => quantize_linear(e, c)?,
        "DequantizeLinear" => dequantize_linear(e, c)?,
        "MatMulInteger" | "QLinearMatMul" | "ConvInteger" | "QLinearConv" => integer_product(e, c, op)?,
        "CastLike" => {
            let dtype = e.dtype(c.t(1)?)?;
            e.cast(c.t(0)?, dtype)?
        }
        "Mod" => {
            let (a, b) = (c.t(0)?, c.t(1)?);
            if c.int("fmod", 0) != 0 {
                // C's fmod: the remainder has the dividend's sign, a - trunc(a / b) · b.
                let q = if e.dtype(a)? == DType::Int32 {
                    truncating_div(e, a, b)?
                } else {
                    let q = e.div(a, b)?;
                    let sign = e.unary(UnaryOp::Sign, q)?;
                    let abs = e.unary(UnaryOp::Abs, q)?;
                    let fl = e.unary(UnaryOp::Floor, abs)?;
                    e.mul(sign, fl)?
                };
                let qb = e.mul(q, b)?;
                e.sub(a, qb)?
            } else if e.dtype(a)? == DType::Float32 {
                // numpy's remainder, where tfjs's differs: a finite value modulo ±inf is
                // itself where the signs agree (or it is 0), else the divisor.
                let m = e.binary(BinaryOp::Mod, a, b)?;
                let b_inf = e.unary(UnaryOp::IsInf, b)?;
                let a_inf = e.unary(UnaryOp::IsInf, a)?;
                let a_nan = e.unary(UnaryOp::IsNaN, a)?;
                let a_odd = e.binary(BinaryOp::LogicalOr, a_inf, a_nan)?;
                let a_fin = e.unary(UnaryOp::LogicalNot, a_odd)?;
                let at_inf = e.binary(BinaryOp::LogicalAnd, b_inf, a_fin)?;
                let ab = e.mul(a, b)?;
                let zero = e.scalar(0.0)?;
                let same = e.binary(BinaryOp::GreaterEqual, ab, zero)?;
                let a_zero = e.binary(BinaryOp::Equal, a, zero)?;
                let keep_a = e.binary(BinaryOp::LogicalOr, same, a_zero)?;
                let bb = e.broadcast_to(b, e.shape(m)?.to_vec().as_slice())?;
                let aa = e.broadcast_to(a, e.shape(m)?.to_vec().as_slice())?;
                let inf_case = e.select(keep_a, aa, bb)?;
                e.select(at_inf, inf_case, m)?
            } else {
                e.binary(BinaryOp::Mod, a, b)?
            }
        }
        "Cast" => e.cast(c.t(0)?, cast_to(c)?)?,
        "Elu" => {
            let x = c.t(0)?;
            let alpha = c.float("alpha", 1.0);
            let y = e.unary(UnaryOp::Elu, x)?;
            if alpha == 1.0 {
                y
            } else {
                // alpha · (exp(x) - 1) below zero: the elu's negative part scaled.
                let zero = e.scalar(0.0)?;
                let neg = e.binary(BinaryOp::Minimum, y, zero)?;
                let a = e.scalar(alpha - 1.0)?;
                let extra = e.mul(neg, a)?;
                e.add(y, extra)?
            }
        }
        "Selu" => {
            let x = c.t(0)?;
            let (alpha, gamma) = (c.float("alpha", 1.6732632423543772), c.float("gamma", 1.0507009873554805));
            let zero = e.scalar(0.0)?;
            let pos = e.binary(BinaryOp::Maximum, x, zero)?;
            let negx = e.binary(BinaryOp::Minimum, x, zero)?;
            let ex = e.unary(UnaryOp::Exp, negx)?;
            let one = e.scalar(1.0)?;
            let em1 = e.sub(ex, one)?;
            let a = e.scalar(alpha)?;
            let neg = e.mul(em1, a)?;
            let sum = e.add(pos, neg)?;
            let g = e.scalar(gamma)?;
            e.mul(sum, g)?
        }
        "LeakyRelu" => e.leaky_relu(c.t(0)?, c.float("alpha", 0.01))?,
        "HardSigmoid" | "HardSwish" => {
            let x = c.t(0)?;
            let (alpha, beta) =
                if op == "HardSwish" { (1.0 / 6.0, 0.5) } else { (c.float("alpha", 0.2), c.float("beta", 0.5)) };
            let a = e.scalar(alpha)?;
            let ax = e.mul(x, a)?;
            let b = e.scalar(beta)?;
            let axb = e.add(ax, b)?;
            let h = e.clip_by_value(axb, 0.0, 1.0)?;
            if op == "HardSwish" {
                e.mul(x, h)?
            } else {
                h
            }
        }
        "Gelu" => {
            let approx = c.attrs().string("approximate").unwrap_or_else(|| "none".into());
            gelu(e, c.t(0)?, approx == "tanh")?
        }
        "PRelu" => {
            let (x, mut slope) = (c.t(0)?, c.t(1)?);
            // A slope per channel (axis 1), as older exports give it, where numpy's rule would
            // align it with the last axis.
            let (xs, ss) = (e.shape(x)?.to_vec(), e.shape(slope)?.to_vec());
            if ss.len() == 1 && xs.len() > 2 && ss[0] == xs[1] && ss[0] != xs[xs.len() - 1] {
                let mut shape = vec![1i64; xs.len() - 1];
                shape[0] = -1;
                slope = e.reshape(slope, &shape)?;
            }
            let zero = e.scalar(0.0)?;
            let pos = e.binary(BinaryOp::Maximum, x, zero)?;
            let neg = e.binary(BinaryOp::Minimum, x, zero)?;
            let neg = e.mul(neg, slope)?;
            e.add(pos, neg)?
        }
        "Clip" => {
            let x = c.t(0)?;
            if opset >= 11 {
                // max(x, min) then min(·, max), in x's dtype; min > max gives max everywhere.
                let mut y = e.clone_tensor(x)?;
                if let Some(lo) = c.opt(1) {
                    y = e.binary(BinaryOp::Maximum, y, lo)?;
                }
                if let Some(hi) = c.opt(2) {
                    y = e.binary(BinaryOp::Minimum, y, hi)?;
                }
                y
            } else {
                let (lo, hi) = (c.float("min", f64::NEG_INFINITY), c.float("max", f64::INFINITY));
                let lo_t = e.scalar(lo)?;
                let y = e.binary(BinaryOp::Maximum, x, lo_t)?;
                let hi_t = e.scalar(hi)?;
                e.binary(BinaryOp::Minimum, y, hi_t)?
            }
        }
        "Sum" => variadic(e, c, BinaryOp::Add)?,
        "Max" => variadic(e, c, BinaryOp::Maximum)?,
        "Min" => variadic(e, c, BinaryOp::Minimum)?,
        "Mean" => {
            let s = variadic(e, c, BinaryOp::Add)?;
            let n = e.scalar(c.tensors(0, 0).len() as f64)?;
            e.div(s, n)?
        }
        "MatMul" | "Gemm" => linear(e, c, op)?,
        "Conv" => conv(e, c)?,
        "MaxPool" => pool(e, c, true)?,
        "AveragePool" => pool(e, c, false)?,
        "GlobalAveragePool" | "GlobalMaxPool" => {
            let x = c.t(0)?;
            let r = rank(e, x)? as i64;
            let axes: Vec<i64> = if c.nhwc() { (1..r - 1).collect() } else { (2..r).collect() };
            let op = if op == "GlobalMaxPool" { ReduceOp::Max } else { ReduceOp::Mean };
            e.reduce(op, x, Some(&axes), true)?
        }
        "BatchNormalization" => {
            // Inference: x, scale, bias, mean, var over axis 1.
            let x = c.t(0)?;
            let r = rank(e, x)?;
            let eps = c.float("epsilon", 1e-5);
            let channel = if c.nhwc() { r - 1 } else { 1 };
            let per_channel = |e: &mut Engine, t: TensorId| -> Result<TensorId> {
                let mut shape = vec![1i64; r];
                if r > 1 {
                    shape[channel] = -1;
                }
                e.reshape(t, &shape)
            };
            let (scale, bias, mean, var) = (c.t(1)?, c.t(2)?, c.t(3)?, c.t(4)?);
            let (scale, bias, mean, var) =
                (per_channel(e, scale)?, per_channel(e, bias)?, per_channel(e, mean)?, per_channel(e, var)?);
            e.batch_norm(x, mean, var, Some(bias), Some(scale), eps)?
        }
        "Softmax" | "LogSoftmax" => {
            let x = c.t(0)?;
            let shape = e.shape(x)?.to_vec();
            let log = op == "LogSoftmax";
            if opset >= 13 {
                let ax = axis(c.int("axis", -1), shape.len(), op)?;
                let moved = ax != shape.len() - 1;
                let xt = if moved {
                    let mut perm: Vec<i64> = (0..shape.len() as i64).collect();
                    perm.swap(ax, shape.len() - 1);
                    e.transpose(x, Some(&perm))?
                } else {
                    x
                };
                let y = if log { e.log_softmax(xt, -1.0)? } else { e.softmax(xt, -1)? };
                if moved {
                    let mut perm: Vec<i64> = (0..shape.len() as i64).collect();
                    perm.swap(ax, shape.len() - 1);
                    e.transpose(y, Some(&perm))?
                } else {
                    y
                }
            } else {
                // Before opset 13: over everything from axis on (the input as a 2-D matrix).
                let ax = axis(c.int("axis", 1), shape.len(), op)?;
                let outer: usize = shape[..ax].iter().product();
                let flat = e.reshape(x, &[outer as i64, -1])?;
                let y = if log { e.log_softmax(flat, -1.0)? } else { e.softmax(flat, -1)? };
                let back: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
                e.reshape(y, &back)?
            }
        }
        "Flatten" => {
            let x = c.t(0)?;
            let shape = e.shape(x)?.to_vec();
            let a = c.int("axis", 1);
            let r = shape.len() as i64;
            if a < -r || a > r {
                bail!("ONNX node '{}': Flatten's axis {a} is out of range for rank {r}", c.node.name);
            }
            let ax = if a < 0 { a + r } else { a } as usize;
            let outer: usize = shape[..ax].iter().product();
            let inner: usize = shape[ax..].iter().product();
            e.reshape(x, &[outer as i64, inner as i64])?
        }
        "Reshape" => {
            let x = c.t(0)?;
            let shape = e.shape(x)?.to_vec();
            let mut want = ints(&c.nums(e, 1)?, "Reshape's shape")?;
            if c.int("allowzero", 0) == 0 {
                // 0 copies the input's dimension.
                for (i, d) in want.iter_mut().enumerate() {
                    if *d == 0 {
                        *d = *shape.get(i).unwrap_or(&0) as i64;
                    }
                }
            }
            e.reshape(x, &want)?
        }
        "Transpose" => {
            let perm = c.int_list("perm");
            e.transpose(c.t(0)?, perm.as_deref())?
        }
        "Concat" => {
            let xs = c.tensors(0, 0);
            let r = match xs.first() {
                Some(&x) => rank(e, x)?,
                None => bail!("ONNX node '{}': Concat has no inputs", c.node.name),
            };
            let mut ax = axis(c.int("axis", 0), r, "Concat")?;
            if c.nhwc() {
                // NCHW's axis in NHWC: channels last, the spatial axes one earlier.
                ax = match ax {
                    0 => 0,
                    1 => r - 1,
                    a => a - 1,
                };
            }
            e.concat(&xs, ax as i64)?
        }
        "Shape" => {
            let shape = e.shape(c.t(0)?)?.to_vec();
            let r = shape.len() as i64;
            let clampi = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
            let (s, t) = (clampi(c.int("start", 0)), clampi(c.int("end", r)));
            let dims: Vec<i32> = shape[s..t.max(s)].iter().map(|&d| d as i32).collect();
            let n = dims.len();
            e.tensor(tidytensor_core::HostData::I32(dims), &[n])?
        }
        "Size" => {
            let n: usize = e.shape(c.t(0)?)?.iter().product();
            e.tensor(tidytensor_core::HostData::I32(vec![n as i32]), &[])?
        }
        "Gather" => {
            let (x, idx) = (c.t(0)?, c.t(1)?);
            let r = rank(e, x)?;
            let ax = axis(c.int("axis", 0), r, "Gather")?;
            // Negative indices count from the end.
            let dim = e.shape(x)?[ax] as f64;
            let vals = e.read_f64(idx)?;
            let idx = if vals.iter().any(|&v| v < 0.0) {
                let fixed: Vec<i32> = vals.iter().map(|&v| if v < 0.0 { (v + dim) as i32 } else { v as i32 }).collect();
                let shape = e.shape(idx)?.to_vec();
                e.tensor(tidytensor_core::HostData::I32(fixed), &shape)?
            } else {
                idx
            };
            e.gather(x, idx, ax as i64, 0)?
        }
        "Unsqueeze" => {
            let x = c.t(0)?;
            let Some(axes) = c.list_arg(e, "axes", 1, 13)? else {
                bail!("ONNX node '{}': Unsqueeze has no axes", c.node.name)
            };
            let out_rank = rank(e, x)? + axes.len();
            let mut axes = axes.iter().map(|&a| axis(a, out_rank, "Unsqueeze")).collect::<Result<Vec<_>>>()?;
            axes.sort_unstable();
            let mut shape: Vec<i64> = e.shape(x)?.iter().map(|&d| d as i64).collect();
            for a in axes {
                shape.insert(a, 1);
            }
            e.reshape(x, &shape)?
        }
        "Squeeze" => {
            let x = c.t(0)?;
            match c.list_arg(e, "axes", 1, 13)? {
                Some(axes) if !axes.is_empty() => e.squeeze(x, Some(&axes))?,
                _ => e.squeeze(x, None)?,
            }
        }
        "Slice" => {
            let x = c.t(0)?;
            let shape = e.shape(x)?.to_vec();
            let (starts, ends, axes, steps) = if opset >= 10 {
                let starts = ints(&c.nums(e, 1)?, "Slice's starts")?;
                let ends = ints(&c.nums(e, 2)?, "Slice's ends")?;
                let axes = match c.opt(3) {
                    Some(id) => Some(ints(&e.read_f64(id)?, "Slice's axes")?),
                    None => None,
                };
                let steps = match c.opt(4) {
                    Some(id) => Some(ints(&e.read_f64(id)?, "Slice's steps")?),
                    None => None,
                };
                (starts, ends, axes, steps)
            } else {
                (
                    c.int_list("starts").unwrap_or_default(),
                    c.int_list("ends").unwrap_or_default(),
                    c.int_list("axes"),
                    None,
                )
            };
            let r = shape.len();
            let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
            let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
            if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
                bail!("ONNX node '{}': Slice's starts, ends, axes and steps differ in length", c.node.name);
            }
            let mut begin = vec![0i64; r];
            let mut end: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            let mut stride = vec![1i64; r];
            for (k, &a) in axes.iter().enumerate() {
                let ax = axis(a, r, "Slice")?;
                let dim = shape[ax] as i64;
                let step = steps[k];
                if step == 0 {
                    bail!("ONNX node '{}': Slice's step is 0", c.node.name);
                }
                let fix = |v: i64| if v < 0 { v + dim } else { v };
                let (lo, hi) = if step > 0 { (0, dim) } else { (-1, dim - 1) };
                begin[ax] = fix(starts[k]).clamp(lo, hi);
                end[ax] = fix(ends[k]).clamp(lo, hi);
                stride[ax] = step;
            }
            slice_strided(e, x, &begin, &end, &stride)?
        }
        "Split" => {
            let x = c.t(0)?;
            let r = rank(e, x)?;
            let ax = axis(c.int("axis", 0), r, "Split")?;
            let n = c.outputs();
            let sizes = if opset >= 13 {
                match c.opt(1) {
                    Some(id) => Some(ints(&e.read_f64(id)?, "Split's split")?),
                    None => None,
                }
            } else {
                c.int_list("split")
            };
            let dim = e.shape(x)?[ax];
            let sizes: Vec<f64> = match sizes {
                Some(s) => s.iter().map(|&v| v as f64).collect(),
                None => {
                    let n = if opset >= 18 { c.int("num_outputs", n as i64) as usize } else { n };
                    let each = dim.div_ceil(n.max(1));
                    (0..n).map(|i| (each.min(dim.saturating_sub(i * each))) as f64).collect()
                }
            };
            return e.split(x, Splits::Sizes(sizes), ax as f64);
        }
        "Tile" => {
            let reps = c.nums(e, 1)?;
            e.tile(c.t(0)?, &reps)?
        }
        "Expand" => {
            let x = c.t(0)?;
            let want = ints(&c.nums(e, 1)?, "Expand's shape")?;
            let have = e.shape(x)?.to_vec();
            // numpy broadcasting of the two shapes (1s in `want` keep the input's dimension).
            let r = want.len().max(have.len());
            let mut target = vec![0usize; r];
            for i in 0..r {
                let a = if i + have.len() >= r { have[i + have.len() - r] } else { 1 };
                let b = if i + want.len() >= r { want[i + want.len() - r] as usize } else { 1 };
                if a != b && a != 1 && b != 1 {
                    bail!("ONNX node '{}': cannot expand shape {:?} to {:?}", c.node.name, have, want);
                }
                target[i] = if a == 1 { b } else { a };
            }
            e.broadcast_to(x, &target)?
        }
        "Where" => e.select(c.t(0)?, c.t(1)?, c.t(2)?)?,
        "ConstantOfShape" => {
            let shape = ints(&c.nums(e, 0)?, "ConstantOfShape's shape")?;
            let shape: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
            let value = c.float("value", 0.0);
            let dtype = match c.attrs().dtype("dtype") {
                Some(Some(d)) => d,
                _ => DType::Float32,
            };
            e.fill(&shape, value, dtype)?
        }
        "Range" => {
            let (s, l, d) = (c.num(e, 0)?, c.num(e, 1)?, c.num(e, 2)?);
            let dtype = e.dtype(c.t(0)?)?;
            e.range(s, l, d, dtype)?
        }
        "ArgMax" | "ArgMin" => {
            let x = c.t(0)?;
            let r = rank(e, x)?;
            let ax = axis(c.int("axis", 0), r, op)?;
            let kind = if op == "ArgMax" { ArgOp::ArgMax } else { ArgOp::ArgMin };
            let y = if c.int("select_last_index", 0) != 0 {
                // The last of equal values: the first in the reversed axis, counted back.
                let rev = e.reverse(x, Some(&[ax as i64]))?;
                let i = e.arg_reduce(kind, rev, ax as i64)?;
                let last = e.scalar((e.shape(x)?[ax] - 1) as f64)?;
                let last = e.cast(last, DType::Int32)?;
                e.sub(last, i)?
            } else {
                e.arg_reduce(kind, x, ax as i64)?
            };
            if c.int("keepdims", 1) != 0 {
                e.expand_dims(y, ax as i64)?
            } else {
                y
            }
        }
        "ReduceSum" => reduce(e, c, ReduceOp::Sum, 13)?,
        "ReduceMean" => reduce(e, c, ReduceOp::Mean, 18)?,
        "ReduceMax" => reduce(e, c, ReduceOp::Max, 18)?,
        "ReduceMin" => reduce(e, c, ReduceOp::Min, 18)?,
        "ReduceProd" => reduce(e, c, ReduceOp::Prod, 18)?,
        "ReduceL2" => {
            let x = c.t(0)?;
            let sq = e.mul(x, x)?;
            let keep = c.int("keepdims", 1) != 0;
            let s = match c.list_arg(e, "axes", 1, 18)? {
                Some(a) if !a.is_empty() => e.reduce(ReduceOp::Sum, sq, Some(&a), keep)?,
                _ => e.reduce(ReduceOp::Sum, sq, None, keep)?,
            };
            e.unary(UnaryOp::Sqrt, s)?
        }
        "Pad" => pad(e, c)?,
        "CenterCropPad" => center_crop_pad(e, c)?,
        "LpPool" => lp_pool(e, c)?,
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => window(e, c, op)?,
        "GridSample" => grid_sample(e, c)?,
        "DFT" => dft(e, c)?,
        "STFT" => stft(e, c)?,
        "MelWeightMatrix" => mel_weight_matrix(e, c)?,
        "Resize" | "Upsample" => resize(e, c)?,
        "GatherElements" => gather_elements(e, c)?,
        "ReverseSequence" => reverse_sequence(e, c)?,
        "ScatterElements" | "Scatter" => scatter_elements(e, c)?,
        "ScatterND" => {
            let (x, idx, upd) = (c.t(0)?, c.t(1)?, c.t(2)?);
            match c.attrs().string("reduction").as_deref().unwrap_or("none") {
                "none" => e.tensor_scatter_update(x, idx, upd)?,
                "add" => {
                    let shape: Vec<f64> = e.shape(x)?.iter().map(|&d| d as f64).collect();
                    let sums = e.scatter_nd(idx, upd, &shape)?;
                    e.add(x, sums)?
                }
                reduction => {
                    // Each index names a slice of x: its elements' flat positions, in the
                    // updates' order.
                    let shape = e.shape(x)?.to_vec();
                    let idx_shape = e.shape(idx)?.to_vec();
                    let k = idx_shape.last().copied().unwrap_or(0);
                    if idx_shape.is_empty() || k > shape.len() {
                        bail!("ONNX node '{}': indices of shape {idx_shape:?} do not index {shape:?}", c.node.name);
                    }
                    let inner: usize = shape[k..].iter().product();
                    let strides = tidytensor_core::shape::strides(&shape);
                    let mut positions = Vec::new();
                    for tuple in
                        e.read_f64(idx)?.chunks(k.max(1)).take(idx_shape[..idx_shape.len() - 1].iter().product())
                    {
                        let mut base = 0;
                        for (d, &i) in tuple.iter().take(k).enumerate() {
                            let i = if i < 0.0 { i + shape[d] as f64 } else { i };
                            if !(0.0..shape[d] as f64).contains(&i) {
                                bail!(
                                    "ONNX node '{}': index {i} is out of range for axis {d} of {shape:?}",
                                    c.node.name
                                );
                            }
                            base += i as usize * strides[d];
                        }
                        positions.extend(base..base + inner);
                    }
                    scatter_reduce(e, c, x, &positions, upd, reduction)?
                }
            }
        }
        "GatherND" => {
            if c.int("batch_dims", 0) != 0 {
                bail!("ONNX node '{}': GatherND with batch_dims is not supported yet", c.node.name);
            }
            e.gather_nd(c.t(0)?, c.t(1)?)?
        }
        "Trilu" => {
            let x = c.t(0)?;
            let k = match c.opt(1) {
                Some(t) => e.read_f64(t)?.first().copied().unwrap_or(0.0),
                None => 0.0,
            };
            let shape = e.shape(x)?.to_vec();
            let r = shape.len();
            if r < 2 {
                bail!("ONNX node '{}': Trilu needs a rank of 2 or more", c.node.name);
            }
            let (n, m) = (shape[r - 2], shape[r - 1]);
            let upper = c.int("upper", 1) != 0;
            // Kept where col - row >= k (upper) or <= k (lower).
            let keep: Vec<u8> = (0..n * m)
                .map(|i| {
                    let d = (i % m) as f64 - (i / m) as f64;
                    u8::from(if upper { d >= k } else { d <= k })
                })
                .collect();
            let mask = e.tensor(tidytensor_core::HostData::Bool(keep), &[n, m])?;
            let dtype = e.dtype(x)?;
            let zeros = e.fill(&shape, 0.0, dtype)?;
            let mask = e.broadcast_to(mask, &shape)?;
            e.select(mask, x, zeros)?
        }
        "RMSNormalization" => {
            let x = c.t(0)?;
            let from = axis(c.int("axis", -1), rank(e, x)?, "RMSNormalization")?;
            rms_norm(e, x, c.t(1)?, from, c.float("epsilon", 1e-5))?
        }
        "CumSum" | "CumProd" => {
            let x = c.t(0)?;
            let a = e.read_f64(c.t(1)?)?.first().copied().unwrap_or(0.0) as i64;
            let ax = axis(a, rank(e, x)?, op)?;
            let kind = if op == "CumSum" { CumOp::Sum } else { CumOp::Prod };
            e.cumulative(kind, x, ax as i64, c.int("exclusive", 0) != 0, c.int("reverse", 0) != 0)?
        }
        "ReduceSumSquare" | "ReduceL1" | "ReduceLogSum" | "ReduceLogSumExp" => {
            let x = c.t(0)?;
            let keep = c.int("keepdims", 1) != 0;
            let axes = match c.list_arg(e, "axes", 1, 18)? {
                Some(a) if !a.is_empty() => Some(a),
                _ if c.int("noop_with_empty_axes", 0) != 0 => return Ok(vec![e.clone_tensor(x)?]),
                _ => None,
            };
            if op == "ReduceLogSumExp" && e.shape(x)?.contains(&0) {
                let s = e.reduce(ReduceOp::Sum, x, axes.as_deref(), keep)?;
                let shape = e.shape(s)?.to_vec();
                e.fill(&shape, f64::NEG_INFINITY, DType::Float32)?
            } else if op == "ReduceLogSumExp" {
                e.log_sum_exp(x, axes.as_deref(), keep)?
            } else {
                let t = match op {
                    "ReduceSumSquare" => e.mul(x, x)?,
                    "ReduceL1" => e.unary(UnaryOp::Abs, x)?,
                    _ => x,
                };
                let s = e.reduce(ReduceOp::Sum, t, axes.as_deref(), keep)?;
                if op == "ReduceLogSum" {
                    e.unary(UnaryOp::Log, s)?
                } else {
                    s
                }
            }
        }
        "Hardmax" => {
            let x = c.t(0)?;
            let shape = e.shape(x)?.to_vec();
            let ax = axis(c.int("axis", if opset >= 13 { -1 } else { 1 }), shape.len(), op)?;
            if opset < 13 {
                // Before opset 13: over everything from axis on.
                let outer: usize = shape[..ax].iter().product();
                let flat = e.reshape(x, &[outer as i64, -1])?;
                let n = e.shape(flat)?[1];
                let best = e.arg_reduce(ArgOp::ArgMax, flat, 1)?;
                let y = e.one_hot(best, n as f64, 1.0, 0.0, DType::Float32)?;
                let back: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
                e.reshape(y, &back)?
            } else {
                let best = e.arg_reduce(ArgOp::ArgMax, x, ax as i64)?;
                let y = e.one_hot(best, shape[ax] as f64, 1.0, 0.0, DType::Float32)?;
                // one_hot puts the new axis last: move it to ax.
                let r = shape.len() as i64;
                let perm: Vec<i64> = (0..ax as i64).chain([r - 1]).chain(ax as i64..r - 1).collect();
                e.transpose(y, Some(&perm))?
            }
        }
        "OneHot" => {
            let (idx, depth, vals) = (c.t(0)?, c.num(e, 1)?, e.read_f64(c.t(2)?)?);
            let (off, on) = (vals.first().copied().unwrap_or(0.0), vals.get(1).copied().unwrap_or(1.0));
            let depth = depth.floor();
            // Negative indices count from the end.
            let iv = e.read_f64(idx)?;
            let shape = e.shape(idx)?.to_vec();
            let fixed: Vec<i32> = iv.iter().map(|&v| if v < 0.0 { (v + depth) as i32 } else { v as i32 }).collect();
            let idx = e.tensor(tidytensor_core::HostData::I32(fixed), &shape)?;
            let dtype = e.dtype(c.t(2)?)?;
            let y = e.one_hot(idx, depth, on, off, dtype)?;
            let r = shape.len() + 1;
            let ax = axis(c.int("axis", -1), r, op)?;
            if ax == r - 1 {
                y
            } else {
                let perm: Vec<i64> = (0..ax as i64).chain([r as i64 - 1]).chain(ax as i64..r as i64 - 1).collect();
                e.transpose(y, Some(&perm))?
            }
        }
        "IsNaN" => e.unary(UnaryOp::IsNaN, c.t(0)?)?,
        "IsInf" => {
            let x = c.t(0)?;
            let (neg, pos) = (c.int("detect_negative", 1) != 0, c.int("detect_positive", 1) != 0);
            let inf = e.unary(UnaryOp::IsInf, x)?;
            match (neg, pos) {
                (true, true) => inf,
                (false, false) => {
                    let shape = e.shape(x)?.to_vec();
                    e.fill(&shape, 0.0, DType::Bool)?
                }
                _ => {
                    let zero = e.scalar(0.0)?;
                    let side =
                        if pos { e.binary(BinaryOp::Greater, x, zero)? } else { e.binary(BinaryOp::Less, x, zero)? };
                    e.binary(BinaryOp::LogicalAnd, inf, side)?
                }
            }
        }
        "Softsign" => {
            let x = c.t(0)?;
            let a = e.unary(UnaryOp::Abs, x)?;
            let one = e.scalar(1.0)?;
            let d = e.add(a, one)?;
            e.div(x, d)?
        }
        "Swish" | "SwiGLU" => {
            // x · sigmoid(alpha · x), SwiGLU's gated by its second input.
            let x = c.t(0)?;
            let alpha = e.scalar(c.float("alpha", 1.0))?;
            let ax = e.mul(x, alpha)?;
            let s = e.unary(UnaryOp::Sigmoid, ax)?;
            let y = e.mul(x, s)?;
            if op == "SwiGLU" {
                let (a, b) = (e.shape(x)?.to_vec(), e.shape(c.t(1)?)?.to_vec());
                if a != b {
                    bail!("ONNX node '{}': SwiGLU's inputs must have one shape, not {a:?} and {b:?}", c.node.name);
                }
                e.mul(y, c.t(1)?)?
            } else {
                y
            }
        }
        "Mish" => {
            let x = c.t(0)?;
            let sp = e.unary(UnaryOp::Softplus, x)?;
            let t = e.unary(UnaryOp::Tanh, sp)?;
            e.mul(x, t)?
        }
        "ThresholdedRelu" => {
            let x = c.t(0)?;
            let alpha = e.scalar(c.float("alpha", 1.0))?;
            let keep = e.binary(BinaryOp::Greater, x, alpha)?;
            let shape = e.shape(x)?.to_vec();
            let zeros = e.fill(&shape, 0.0, e.dtype(x)?)?;
            e.select(keep, x, zeros)?
        }
        "Shrink" => {
            // x + bias below -lambd, x - bias above lambd, 0 between.
            let x = c.t(0)?;
            let (lambd, bias) = (c.float("lambd", 0.5), c.float("bias", 0.0));
            let dtype = e.dtype(x)?;
            let (lo, hi) = (e.scalar(-lambd)?, e.scalar(lambd)?);
            let below = e.binary(BinaryOp::Less, x, lo)?;
            let above = e.binary(BinaryOp::Greater, x, hi)?;
            let b = e.scalar(bias)?;
            let plus = e.add(x, b)?;
            let minus = e.sub(x, b)?;
            let shape = e.shape(x)?.to_vec();
            let zeros = e.fill(&shape, 0.0, DType::Float32)?;
            let y = e.select(above, minus, zeros)?;
            let y = e.select(below, plus, y)?;
            e.cast(y, dtype)?
        }
        "Celu" => {
            // max(0, x) + min(0, alpha · (exp(x / alpha) - 1))
            let x = c.t(0)?;
            let alpha = c.float("alpha", 1.0);
            let a = e.scalar(alpha)?;
            let xa = e.div(x, a)?;
            let ex = e.unary(UnaryOp::Exp, xa)?;
            let one = e.scalar(1.0)?;
            let em1 = e.sub(ex, one)?;
            let neg = e.mul(em1, a)?;
            let zero = e.scalar(0.0)?;
            let neg = e.binary(BinaryOp::Minimum, neg, zero)?;
            let pos = e.binary(BinaryOp::Maximum, x, zero)?;
            e.add(pos, neg)?
        }
        "DepthToSpace" | "SpaceToDepth" => {
            let x = c.t(0)?;
            let s = e.shape(x)?.to_vec();
            if s.len() != 4 {
                bail!("ONNX node '{}': {op} needs a rank-4 input", c.node.name);
            }
            let b = c.int("blocksize", 0).max(1);
            let [n, ch, h, w] = [s[0] as i64, s[1] as i64, s[2] as i64, s[3] as i64];
            if op == "DepthToSpace" {
                let crd = c.attrs().string("mode").as_deref() == Some("crd");
                let (t, perm) = if crd {
                    (e.reshape(x, &[n, ch / (b * b), b, b, h, w])?, [0, 1, 4, 2, 5, 3])
                } else {
                    (e.reshape(x, &[n, b, b, ch / (b * b), h, w])?, [0, 3, 4, 1, 5, 2])
                };
                let t = e.transpose(t, Some(&perm))?;
                e.reshape(t, &[n, ch / (b * b), h * b, w * b])?
            } else {
                let t = e.reshape(x, &[n, ch, h / b, b, w / b, b])?;
                let crd = c.attrs().string("mode").as_deref() == Some("crd");
                let t = e.transpose(t, Some(if crd { &[0, 1, 3, 5, 2, 4] } else { &[0, 3, 5, 1, 2, 4] }))?;
                e.reshape(t, &[n, ch * b * b, h / b, w / b])?
            }
        }
        "Einsum" => {
            let mut eq: String =
                c.attrs().string("equation").unwrap_or_default().chars().filter(|ch| !ch.is_whitespace()).collect();
            if !eq.contains("->") {
                // The implicit output: the letters used once, in alphabetical order.
                let mut once: Vec<char> = eq.chars().filter(|ch| ch.is_alphabetic()).collect();
                once.sort_unstable();
                let out: String = once.iter().filter(|&&ch| eq.matches(ch).count() == 1).collect();
                eq = format!("{eq}->{out}");
            }
            e.einsum(&eq, &c.tensors(0, 0))?
        }
        "LRN" => {
            let size = c.int("size", 1);
            if size % 2 == 0 {
                bail!("ONNX node '{}': LRN of an even size is not supported yet", c.node.name);
            }
            let x = to_channels_last(e, c.t(0)?)?;
            let alpha = c.float("alpha", 1e-4) / size as f64;
            let y = e.lrn(x, ((size - 1) / 2) as f64, c.float("bias", 1.0), alpha, c.float("beta", 0.75))?;
            to_channels_first(e, y)?
        }
        "LpNormalization" => {
            let x = c.t(0)?;
            let ax = axis(c.int("axis", -1), rank(e, x)?, op)?;
            let n = match c.int("p", 2) {
                1 => {
                    let a = e.unary(UnaryOp::Abs, x)?;
                    e.reduce(ReduceOp::Sum, a, Some(&[ax as i64]), true)?
                }
                2 => {
                    let sq = e.mul(x, x)?;
                    let s = e.reduce(ReduceOp::Sum, sq, Some(&[ax as i64]), true)?;
                    e.unary(UnaryOp::Sqrt, s)?
                }
                p => bail!("ONNX node '{}': LpNormalization with p = {p} is not supported", c.node.name),
            };
            // A zero vector stays zero.
            let zero = e.scalar(0.0)?;
            let is_zero = e.binary(BinaryOp::Equal, n, zero)?;
            let one = e.scalar(1.0)?;
            let shape = e.shape(n)?.to_vec();
            let ones = e.broadcast_to(one, &shape)?;
            let n = e.select(is_zero, ones, n)?;
            e.div(x, n)?
        }
        "InstanceNormalization" | "GroupNormalization" | "MeanVarianceNormalization" => normalization(e, c, op)?,
        "EyeLike" => {
            let x = c.t(0)?;
            let s = e.shape(x)?.to_vec();
            if s.len() != 2 {
                bail!("ONNX node '{}': EyeLike needs a rank-2 input", c.node.name);
            }
            let k = c.int("k", 0);
            let dtype = match c.attrs().number("dtype", -1.0) as i32 {
                -1 => e.dtype(x)?,
                t => super::tensor::dtype_of(t).unwrap_or(DType::Float32),
            };
            let ones: Vec<f64> =
                (0..s[0] * s[1]).map(|i| f64::from(u8::from((i % s[1]) as i64 - (i / s[1]) as i64 == k))).collect();
            let t = e.tensor(tidytensor_core::HostData::F32(ones.iter().map(|&v| v as f32).collect()), &s)?;
            e.cast(t, dtype)?
        }
        "NonZero" => {
            // [rank, count] indices, where tfjs's whereTrue gives [count, rank].
            let x = c.t(0)?;
            let b = if e.dtype(x)? == DType::Bool { e.clone_tensor(x)? } else { e.cast(x, DType::Bool)? };
            let w = e.where_true(b)?;
            e.transpose(w, Some(&[1, 0]))?
        }
        "Compress" => {
            let (x, cond) = (c.t(0)?, c.t(1)?);
            let keep: Vec<i32> =
                e.read_f64(cond)?.iter().enumerate().filter(|(_, &v)| v != 0.0).map(|(i, _)| i as i32).collect();
            let n = keep.len();
            let idx = e.tensor(tidytensor_core::HostData::I32(keep), &[n])?;
            if c.attrs().numbers("axis").is_none() && !has(c, "axis") {
                let flat = e.reshape(x, &[-1])?;
                e.gather(flat, idx, 0, 0)?
            } else {
                let ax = axis(c.int("axis", 0), rank(e, x)?, op)?;
                e.gather(x, idx, ax as i64, 0)?
            }
        }
        "ConvTranspose" => conv_transpose(e, c)?,
        _ => bail!("ONNX op {op} is not supported"),
    }])
}

/// Input 1 of a binary op as numpy broadcasting sees it: before opset 7 a `broadcast`
/// attribute with an `axis` placed the second operand's dimensions from that axis on.
fn legacy_broadcast(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let b = c.t(1)?;
    if c.opset() >= 7 || c.int("broadcast", 0) == 0 || c.attrs().numbers("axis").is_none() && !has(c, "axis") {
        return Ok(b);
    }
    let ra = rank(e, c.t(0)?)?;
    let bs = e.shape(b)?.to_vec();
    let at = axis(c.int("axis", 0), ra, "broadcast")?;
    let mut shape: Vec<i64> = bs.iter().map(|&d| d as i64).collect();
    shape.extend(std::iter::repeat_n(1, ra.saturating_sub(at + bs.len())));
    e.reshape(b, &shape)
}

fn has(c: &Ctx, name: &str) -> bool {
    c.node.attr.contains_key(name)
}

/// Integer division rounding toward zero (ONNX's), where tfjs's floors:
/// sign(a) · sign(b) · floor(|a| / |b|).
fn truncating_div(e: &mut Engine, a: TensorId, b: TensorId) -> Result<TensorId> {
    let (aa, ab) = (e.unary(UnaryOp::Abs, a)?, e.unary(UnaryOp::Abs, b)?);
    let q = e.binary(BinaryOp::FloorDiv, aa, ab)?;
    let (sa, sb) = (e.unary(UnaryOp::Sign, a)?, e.unary(UnaryOp::Sign, b)?);
    let s = e.mul(sa, sb)?;
    e.mul(q, s)
}

fn flat_len(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// `x[begin:end:stride]` on every axis (the bounds already clamped into each axis; an end of
/// -1 with a negative stride runs to the axis's start).
fn slice_strided(e: &mut Engine, x: TensorId, begin: &[i64], end: &[i64], stride: &[i64]) -> Result<TensorId> {
    let b: Vec<f64> = begin.iter().map(|&v| v as f64).collect();
    let en: Vec<f64> = end.iter().map(|&v| v as f64).collect();
    let s: Vec<f64> = stride.iter().map(|&v| v as f64).collect();
    let end_mask = (0..end.len()).filter(|&i| stride[i] < 0 && end[i] < 0).fold(0i32, |m, i| m | 1 << i);
    let masks = SliceMasks { begin: 0, end: end_mask, ellipsis: 0, new_axis: 0, shrink_axis: 0 };
    e.strided_slice(x, &b, &en, Some(&s), masks)
}

/// The core unary op an ONNX op type is (same name as TensorFlow's, or renamed).
fn unary(op: &str) -> Option<UnaryOp> {
    match op {
        "Not" => Some(UnaryOp::LogicalNot),
        "Elu" | "Selu" | "IsInf" => None,
        _ => UnaryOp::from_graph_op(op),
    }
}

fn binary(op: &str) -> Option<BinaryOp> {
    match op {
        "And" => Some(BinaryOp::LogicalAnd),
        "Or" => Some(BinaryOp::LogicalOr),
        "Xor" => Some(BinaryOp::LogicalXor),
        "LessOrEqual" => Some(BinaryOp::LessEqual),
        "GreaterOrEqual" => Some(BinaryOp::GreaterEqual),
        "Max" | "Min" | "Mod" => None,
        _ => BinaryOp::from_graph_op(op),
    }
}
