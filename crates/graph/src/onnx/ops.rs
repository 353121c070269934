//! The kernels of ONNX nodes (`onnx::<OpType>`), each in ONNX's terms (its inputs, attributes,
//! defaults and opset differences) over the core's front-ends. ONNX is channels-first (NCHW)
//! and numpy-broadcasting, and its filters are `[out, in / group, kh, kw]`: the convolutions
//! and pools reorder to the core's channels-last. Each node runs in a scope of its own (the
//! executor's), so the intermediates here are freed when it returns.

use super::PREFIX;
use crate::ops::{ints, Ctx};
use tidytensor_core::ops::{ConvKind, Fused, NmsOutputs, Padding, PoolKind, SliceMasks, Splits, Window};
use tidytensor_core::{bail, Activation, ArgOp, BinaryOp, CumOp, DType, Engine, ReduceOp, Result, TensorId, UnaryOp};

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
    "Cast",
    "CastLike",
    "Ceil",
    "Celu",
    "Clip",
    "Compress",
    "Concat",
    "ConstantOfShape",
    "Conv",
    "ConvTranspose",
    "Cos",
    "Cosh",
    "CumProd",
    "CumSum",
    "DepthToSpace",
    "Div",
    "Dropout",
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
    "GroupNormalization",
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
    "MatMul",
    "Max",
    "MaxPool",
    "Mean",
    "MeanVarianceNormalization",
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
    "RotaryEmbedding",
    "Round",
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

/// The kernel of an ONNX op type, if it runs here.
pub(crate) fn kernel(op_type: &str) -> Option<crate::ops::Kernel> {
    OPS.contains(&op_type).then_some(run as crate::ops::Kernel)
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

/// ONNX's window padding (`auto_pad`, `pads`) over spatial sizes `input`, as the core's
/// explicit padding of a channels-last tensor.
fn window_padding(c: &Ctx, input: &[usize], kernel: &[usize], strides: &[i64], dilations: &[i64]) -> Result<Padding> {
    let n = input.len();
    let auto = c.attrs().string("auto_pad").unwrap_or_else(|| "notset".into());
    let mut pairs = vec![[0.0, 0.0]];
    match auto.as_str() {
        "notset" => {
            let pads = c.int_list("pads").unwrap_or_else(|| vec![0; 2 * n]);
            if pads.len() != 2 * n {
                bail!("ONNX node '{}': pads has {} values for {n} spatial axes", c.node.name, pads.len());
            }
            pairs.extend((0..n).map(|i| [pads[i] as f64, pads[n + i] as f64]));
        }
        "valid" => pairs.extend((0..n).map(|_| [0.0, 0.0])),
        "same_upper" | "same_lower" => {
            for i in 0..n {
                let s = strides[i].max(1) as usize;
                let out = input[i].div_ceil(s);
                let eff = (kernel[i] - 1) * dilations[i] as usize + 1;
                let total = ((out - 1) * s + eff).saturating_sub(input[i]);
                let (small, big) = (total / 2, total - total / 2);
                pairs.push(if auto == "same_upper" { [small as f64, big as f64] } else { [big as f64, small as f64] });
            }
        }
        other => bail!("ONNX node '{}': unknown auto_pad '{}'", c.node.name, other.to_uppercase()),
    }
    pairs.push([0.0, 0.0]);
    Ok(Padding::Explicit(pairs))
}

fn conv(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let (x, w) = (c.t(0)?, c.t(1)?);
    let nhwc = c.nhwc();
    let xs = nchw_shape(e.shape(x)?, nhwc);
    // The filter as ONNX gives it, [out, in / group, k...], or already reordered at load to
    // [k..., in / group, out] (`_hwio`).
    let hwio = c.attrs().bool("_hwio", false);
    let ws = {
        let s = e.shape(w)?;
        let r = s.len();
        if hwio && r >= 2 {
            [s[r - 1], s[r - 2]].into_iter().chain(s[..r - 2].iter().copied()).collect()
        } else {
            s.to_vec()
        }
    };
    if !(3..=5).contains(&xs.len()) || ws.len() != xs.len() {
        bail!(
            "ONNX node '{}': Conv runs 1-D, 2-D and 3-D convolutions (input and weight of rank 3 to 5), not input {:?} and weight {:?}",
            c.node.name,
            xs,
            ws
        );
    }
    let n = xs.len() - 2;
    let group = c.int("group", 1).max(1) as usize;
    let (cin, cout) = (xs[1], ws[0]);
    if cin % group != 0 || cout % group != 0 || ws[1] * group != cin {
        bail!("ONNX node '{}': weight {:?} does not fit input {:?} in {group} groups", c.node.name, ws, xs);
    }
    let mut strides = c.int_list("strides").unwrap_or_else(|| vec![1; n]);
    let mut dilations = c.int_list("dilations").unwrap_or_else(|| vec![1; n]);
    if strides.len() != n || dilations.len() != n {
        bail!("ONNX node '{}': strides and dilations need {n} values each", c.node.name);
    }
    let mut kernel: Vec<usize> = ws[2..].to_vec();
    let pad = window_padding(c, &xs[2..], &kernel, &strides, &dilations)?;
    let Padding::Explicit(mut pairs) = pad else { unreachable!("window_padding is explicit") };
    let mut xl = if nhwc { x } else { to_channels_last(e, x)? };
    // [out, in/g, k...] → [k..., in/g, out]
    let perm: Vec<i64> = (2..xs.len() as i64).chain([1, 0]).collect();
    let mut wl = if hwio { w } else { e.transpose(w, Some(&perm))? };
    // 1-D runs as 2-D over a height of 1.
    if n == 1 {
        xl = e.expand_dims(xl, 1)?;
        wl = e.expand_dims(wl, 0)?;
        strides.insert(0, 1);
        dilations.insert(0, 1);
        kernel.insert(0, 1);
        pairs.insert(1, [0.0, 0.0]);
    }
    let spatial = strides.len();
    // tfjs convolves with strides or dilations, not both: dilated, then every stride-th output.
    let (step, strides) = if strides.iter().any(|&s| s > 1) && dilations.iter().any(|&d| d > 1) {
        (strides.clone(), vec![1; spatial])
    } else {
        (vec![1; spatial], strides)
    };
    // 3-D convolutions take no explicit padding: the zeros are added first.
    let pad = if spatial == 3 {
        if pairs.iter().any(|p| p != &[0.0, 0.0]) {
            xl = e.pad(xl, &pairs, 0.0)?;
        }
        Padding::Valid
    } else {
        Padding::Explicit(pairs)
    };
    let sf: Vec<f64> = strides.iter().map(|&s| s as f64).collect();
    let df: Vec<f64> = dilations.iter().map(|&d| d as f64).collect();
    let win = Window { strides: &sf, dilations: &df, pad: &pad, rounding: None };
    let kind = if spatial == 3 { ConvKind::Conv3d } else { ConvKind::Conv2d };
    let channels = spatial as i64 + 1;
    // The activation the loader fused into this node, and whether the core's fused kernel (a
    // 2-D convolution with its bias and activation in one) runs it.
    let activation = c.attrs().string("_activation");
    let activation = activation.as_deref();
    let plain = step.iter().all(|&s| s == 1) && spatial == 2 && (group == 1 || group == cin);
    let fused = plain && (activation.is_some() || c.opt(2).is_some());
    let mut y = if fused {
        let act = Activation::parse(activation.unwrap_or("linear"), c.float("_alpha", 0.2))?;
        let f = Fused { bias: c.opt(2), activation: act, alpha: None };
        if group == 1 {
            e.fused_conv(ConvKind::Conv2d, xl, wl, &win, &f)?
        } else {
            let wd = e.reshape(wl, &[kernel[0] as i64, kernel[1] as i64, cin as i64, (cout / cin) as i64])?;
            e.fused_conv(ConvKind::Depthwise2d, xl, wd, &win, &f)?
        }
    } else if group == 1 {
        e.conv(kind, xl, wl, &win, false)?
    } else if group == cin && spatial == 2 {
        // Depthwise: output channel c·m + k reads input channel c.
        let wd = e.reshape(wl, &[kernel[0] as i64, kernel[1] as i64, cin as i64, (cout / cin) as i64])?;
        e.conv(ConvKind::Depthwise2d, xl, wd, &win, false)?
    } else {
        let xg = e.split(xl, Splits::Count(group as f64), channels as f64)?;
        let wg = e.split(wl, Splits::Count(group as f64), channels as f64)?;
        let ys = xg.iter().zip(&wg).map(|(&xi, &wi)| e.conv(kind, xi, wi, &win, false)).collect::<Result<Vec<_>>>()?;
        e.concat(&ys, channels)?
    };
    if step.iter().any(|&s| s > 1) {
        let shape = e.shape(y)?.to_vec();
        let begin = vec![0; shape.len()];
        let end: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let stride: Vec<i64> = std::iter::once(1).chain(step.iter().copied()).chain(std::iter::once(1)).collect();
        y = slice_strided(e, y, &begin, &end, &stride)?;
    }
    if let Some(b) = c.opt(2).filter(|_| !fused) {
        y = e.add(y, b)?;
    }
    if let Some(act) = activation.filter(|_| !fused) {
        y = e.activate(y, act, None, c.float("_alpha", 0.2))?;
    }
    if n == 1 {
        y = e.squeeze(y, Some(&[1]))?;
    }
    if nhwc {
        Ok(y)
    } else {
        to_channels_first(e, y)
    }
}

/// The NCHW shape of a tensor held NHWC (`nhwc`), or the shape as it is.
fn nchw_shape(s: &[usize], nhwc: bool) -> Vec<usize> {
    if nhwc && s.len() >= 3 {
        [s[0], s[s.len() - 1]].into_iter().chain(s[1..s.len() - 1].iter().copied()).collect()
    } else {
        s.to_vec()
    }
}

fn pool(e: &mut Engine, c: &Ctx, max: bool) -> Result<TensorId> {
    let x = c.t(0)?;
    let nhwc = c.nhwc();
    let xs = nchw_shape(e.shape(x)?, nhwc);
    if !(3..=5).contains(&xs.len()) {
        bail!("ONNX node '{}': pools run over 1-D, 2-D and 3-D data (rank 3 to 5), not rank {}", c.node.name, xs.len());
    }
    if c.int("ceil_mode", 0) != 0 {
        bail!("ONNX node '{}': ceil_mode is not supported yet", c.node.name);
    }
    let n = xs.len() - 2;
    let Some(kernel) = c.int_list("kernel_shape") else { bail!("ONNX node '{}' has no kernel_shape", c.node.name) };
    let kernel: Vec<usize> = kernel.iter().map(|&k| k.max(1) as usize).collect();
    let strides = c.int_list("strides").unwrap_or_else(|| vec![1; n]);
    let dilations = c.int_list("dilations").unwrap_or_else(|| vec![1; n]);
    if kernel.len() != n || strides.len() != n || dilations.len() != n {
        bail!("ONNX node '{}': kernel_shape, strides and dilations need {n} values each", c.node.name);
    }
    let mut pad = window_padding(c, &xs[2..], &kernel, &strides, &dilations)?;
    let mut xl = if nhwc { x } else { to_channels_last(e, x)? };
    let padded = matches!(&pad, Padding::Explicit(p) if p.iter().any(|p| p != &[0.0, 0.0]));
    // Where the padding counts (or the core's 3-D pools, which take none), the input is padded
    // first: with zeros for an average, -inf for a max.
    let mut counts = None;
    if padded && (n == 3 || (!max && c.int("count_include_pad", 0) != 0)) {
        let Padding::Explicit(pairs) = &pad else { unreachable!("checked above") };
        if !max && c.int("count_include_pad", 0) == 0 {
            // An average over the input only: the padded sums over the padded count of ones.
            let shape = e.shape(xl)?.to_vec();
            let ones = e.fill(&shape, 1.0, DType::Float32)?;
            counts = Some(e.pad(ones, pairs, 0.0)?);
        }
        xl = e.pad(xl, pairs, if max { f64::NEG_INFINITY } else { 0.0 })?;
        pad = Padding::Valid;
    } else if !padded {
        pad = Padding::Valid;
    }
    // 1-D runs as 2-D over a height of 1.
    let (mut size, mut sf, mut df): (Vec<f64>, Vec<f64>, Vec<f64>) = (
        kernel.iter().map(|&k| k as f64).collect(),
        strides.iter().map(|&s| s as f64).collect(),
        dilations.iter().map(|&d| d as f64).collect(),
    );
    if n == 1 {
        xl = e.expand_dims(xl, 1)?;
        size.insert(0, 1.0);
        sf.insert(0, 1.0);
        df.insert(0, 1.0);
        if let Padding::Explicit(pairs) = &mut pad {
            pairs.insert(1, [0.0, 0.0]);
        }
    }
    let win = Window { strides: &sf, dilations: &df, pad: &pad, rounding: None };
    let kind = match (max, n) {
        (true, 3) => PoolKind::Max3d,
        (false, 3) => PoolKind::Avg3d,
        (true, _) => PoolKind::Max2d,
        (false, _) => PoolKind::Avg2d,
    };
    let mut y = e.pool(kind, xl, &size, &win)?;
    if let Some(counts) = counts {
        let share = e.pool(kind, counts, &size, &win)?;
        y = e.div(y, share)?;
    }
    if n == 1 {
        y = e.squeeze(y, Some(&[1]))?;
    }
    if nhwc {
        Ok(y)
    } else {
        to_channels_first(e, y)
    }
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
            let x = c.t(0)?;
            let approx = c.attrs().string("approximate").unwrap_or_else(|| "none".into());
            let half = e.scalar(0.5)?;
            let inner = if approx == "tanh" {
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
            let hx = e.mul(x, half)?;
            e.mul(hx, inner)?
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
        "MatMul" => matmul(e, c.t(0)?, c.t(1)?)?,
        "Gemm" => {
            let (a, b) = (c.t(0)?, c.t(1)?);
            let (ta, tb) = (c.int("transA", 0) != 0, c.int("transB", 0) != 0);
            let (alpha, beta) = (c.float("alpha", 1.0), c.float("beta", 1.0));
            let mut y = e.matmul(a, b, ta, tb)?;
            if alpha != 1.0 {
                let s = e.scalar(alpha)?;
                y = e.mul(y, s)?;
            }
            if let Some(cc) = c.opt(2) {
                let cc = if beta != 1.0 {
                    let s = e.scalar(beta)?;
                    e.mul(cc, s)?
                } else {
                    cc
                };
                y = e.add(y, cc)?;
            }
            y
        }
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
        "Resize" | "Upsample" => resize(e, c)?,
        "GatherElements" => gather_elements(e, c)?,
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
                other => bail!("ONNX node '{}': ScatterND's reduction '{other}' is not supported yet", c.node.name),
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
            let r = rank(e, x)?;
            let from = axis(c.int("axis", -1), r, "RMSNormalization")?;
            let axes: Vec<i64> = (from as i64..r as i64).collect();
            let sq = e.mul(x, x)?;
            let ms = e.reduce(ReduceOp::Mean, sq, Some(&axes), true)?;
            let eps = e.scalar(c.float("epsilon", 1e-5))?;
            let v = e.add(ms, eps)?;
            let inv = e.unary(UnaryOp::Rsqrt, v)?;
            let y = e.mul(x, inv)?;
            e.mul(y, c.t(1)?)?
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
        "Swish" => {
            let x = c.t(0)?;
            let alpha = e.scalar(c.float("alpha", 1.0))?;
            let ax = e.mul(x, alpha)?;
            let s = e.unary(UnaryOp::Sigmoid, ax)?;
            e.mul(x, s)?
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

/// LayerNormalization: y, and the mean and 1 / standard deviation where asked for.
fn layer_norm(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let x = c.t(0)?;
    let r = rank(e, x)?;
    let from = axis(c.int("axis", -1), r, "LayerNormalization")?;
    let axes: Vec<i64> = (from as i64..r as i64).collect();
    let eps = c.float("epsilon", 1e-5);
    let (mean, var) = e.moments(x, Some(&axes), true)?;
    let centred = e.sub(x, mean)?;
    let eps = e.scalar(eps)?;
    let v = e.add(var, eps)?;
    let inv = e.unary(UnaryOp::Rsqrt, v)?;
    let mut y = e.mul(centred, inv)?;
    y = e.mul(y, c.t(1)?)?;
    if let Some(b) = c.opt(2) {
        y = e.add(y, b)?;
    }
    Ok([y, mean, inv].into_iter().take(c.outputs().clamp(1, 3)).collect())
}

/// Pad: constant, reflect, edge and wrap modes; negative pads crop. Opset 11 on, the pads,
/// the value and (18 on) the axes are inputs; before, attributes.
fn pad(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = c.t(0)?;
    let shape = e.shape(x)?.to_vec();
    let r = shape.len();
    let (pads, value, axes) = if c.opset() >= 11 {
        let pads = ints(&c.nums(e, 1)?, "Pad's pads")?;
        let value = match c.opt(2) {
            Some(v) => e.read_f64(v)?.first().copied().unwrap_or(0.0),
            None => 0.0,
        };
        let axes = match c.opt(3) {
            Some(a) => Some(ints(&e.read_f64(a)?, "Pad's axes")?),
            None => None,
        };
        (pads, value, axes)
    } else {
        (c.int_list("pads").or_else(|| c.int_list("paddings")).unwrap_or_default(), c.float("value", 0.0), None)
    };
    let axes: Vec<usize> = match axes {
        Some(a) => a.iter().map(|&v| axis(v, r, "Pad")).collect::<Result<_>>()?,
        None => (0..r).collect(),
    };
    if pads.len() != 2 * axes.len() {
        bail!("ONNX node '{}': Pad has {} pads for {} axes", c.node.name, pads.len(), axes.len());
    }
    let k = axes.len();
    let mut pairs = vec![[0i64, 0i64]; r];
    for (i, &a) in axes.iter().enumerate() {
        pairs[a] = [pads[i], pads[k + i]];
    }
    let mode = c.attrs().string("mode").unwrap_or_else(|| "constant".into());
    // Negative pads crop first.
    let begin: Vec<i64> = pairs.iter().map(|p| (-p[0]).max(0)).collect();
    let size: Vec<i64> = (0..r).map(|i| shape[i] as i64 - begin[i] - (-pairs[i][1]).max(0)).collect();
    let mut y = if begin.iter().any(|&b| b > 0) || size.iter().zip(&shape).any(|(&s, &d)| s != d as i64) {
        e.slice(x, &begin, &size)?
    } else {
        x
    };
    let grow: Vec<[f64; 2]> = pairs.iter().map(|p| [p[0].max(0) as f64, p[1].max(0) as f64]).collect();
    if grow.iter().all(|g| g == &[0.0, 0.0]) {
        return e.clone_tensor(y);
    }
    match mode.as_str() {
        "constant" => e.pad(y, &grow, value),
        "reflect" | "edge" | "wrap" => {
            // Each axis gathers its source positions.
            for a in 0..r {
                let [before, after] = [grow[a][0] as i64, grow[a][1] as i64];
                if before == 0 && after == 0 {
                    continue;
                }
                let n = e.shape(y)?[a] as i64;
                if n == 0 {
                    bail!("ONNX node '{}': Pad in {mode} mode of an empty axis", c.node.name);
                }
                let src: Vec<i32> = (-before..n + after)
                    .map(|i| {
                        (match mode.as_str() {
                            "edge" => i.clamp(0, n - 1),
                            "wrap" => i.rem_euclid(n),
                            _ => {
                                // reflect without repeating the edge: period 2(n - 1).
                                if n == 1 {
                                    0
                                } else {
                                    let p = 2 * (n - 1);
                                    let m = i.rem_euclid(p);
                                    if m < n {
                                        m
                                    } else {
                                        p - m
                                    }
                                }
                            }
                        }) as i32
                    })
                    .collect();
                let len = src.len();
                let idx = e.tensor(tidytensor_core::HostData::I32(src), &[len])?;
                y = e.gather(y, idx, a as i64, 0)?;
            }
            Ok(y)
        }
        other => bail!("ONNX node '{}': unknown Pad mode '{other}'", c.node.name),
    }
}

/// Resize (and the older Upsample): nearest, linear and cubic along every axis whose size
/// changes, each a gather of source positions (two or four, weighted, for linear and cubic),
/// with ONNX's coordinate transformations and rounding modes.
fn resize(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = c.t(0)?;
    let shape = e.shape(x)?.to_vec();
    let r = shape.len();
    let opset = c.opset();
    let read = |e: &Engine, i: usize| -> Result<Option<Vec<f64>>> {
        match c.opt(i) {
            Some(t) if !e.shape(t)?.contains(&0) => Ok(Some(e.read_f64(t)?)),
            _ => Ok(None),
        }
    };
    let (scales_in, sizes_in, roi) = if c.node.op.ends_with("Upsample") {
        (if opset >= 9 { read(e, 1)? } else { c.attrs().numbers("scales") }, None, None)
    } else if opset >= 11 {
        (read(e, 2)?, read(e, 3)?, read(e, 1)?)
    } else {
        (read(e, 1)?, None, None)
    };
    let axes: Vec<usize> = match c.int_list("axes") {
        Some(a) if opset >= 18 => a.iter().map(|&v| axis(v, r, "Resize")).collect::<Result<_>>()?,
        _ => (0..r).collect(),
    };
    let mut scales = vec![1.0f64; r];
    let mut out: Vec<usize> = shape.clone();
    if let Some(sizes) = sizes_in {
        if sizes.len() != axes.len() {
            bail!("ONNX node '{}': Resize has {} sizes for {} axes", c.node.name, sizes.len(), axes.len());
        }
        let policy = c.attrs().string("keep_aspect_ratio_policy").unwrap_or_else(|| "stretch".into());
        let ratios: Vec<f64> = axes.iter().zip(&sizes).map(|(&a, &s)| s / shape[a] as f64).collect();
        let pick = match policy.as_str() {
            "not_larger" => Some(ratios.iter().copied().fold(f64::INFINITY, f64::min)),
            "not_smaller" => Some(ratios.iter().copied().fold(0.0, f64::max)),
            _ => None,
        };
        for (i, &a) in axes.iter().enumerate() {
            match pick {
                Some(s) => {
                    scales[a] = s;
                    out[a] = (shape[a] as f64 * s).round() as usize;
                }
                None => {
                    scales[a] = ratios[i];
                    out[a] = sizes[i] as usize;
                }
            }
        }
    } else if let Some(sc) = scales_in {
        if sc.len() != axes.len() {
            bail!("ONNX node '{}': Resize has {} scales for {} axes", c.node.name, sc.len(), axes.len());
        }
        for (i, &a) in axes.iter().enumerate() {
            scales[a] = sc[i];
            out[a] = (shape[a] as f64 * sc[i]).floor() as usize;
        }
    } else {
        bail!("ONNX node '{}': Resize has neither scales nor sizes", c.node.name);
    }
    let mode = c.attrs().string("mode").unwrap_or_else(|| "nearest".into());
    let coord = c
        .attrs()
        .string("coordinate_transformation_mode")
        .unwrap_or_else(|| if opset >= 11 { "half_pixel" } else { "asymmetric" }.into());
    // Upsample and Resize-10 round down.
    let legacy = c.node.op.ends_with("Upsample") || opset < 11;
    let nearest =
        c.attrs().string("nearest_mode").unwrap_or_else(|| if legacy { "floor" } else { "round_prefer_floor" }.into());
    if c.int("antialias", 0) != 0 {
        bail!("ONNX node '{}': Resize with antialias is not supported yet", c.node.name);
    }
    let cubic_a = c.float("cubic_coeff_a", -0.75);
    let exclude = c.int("exclude_outside", 0) != 0;
    let extrapolation = c.float("extrapolation_value", 0.0);
    let mut y = e.clone_tensor(x)?;
    for a in 0..r {
        if out[a] == shape[a] && scales[a] == 1.0 {
            continue;
        }
        let (n_in, n_out, scale) = (shape[a] as f64, out[a], scales[a]);
        if n_out == 0 || shape[a] == 0 {
            let mut empty = e.shape(y)?.to_vec();
            empty[a] = n_out;
            let dtype = e.dtype(y)?;
            y = e.fill(&empty, 0.0, dtype)?;
            continue;
        }
        let (roi_lo, roi_hi) = match &roi {
            Some(v) if v.len() == 2 * r => (v[a], v[r + a]),
            Some(v) if v.len() == 2 * axes.len() => {
                let i = axes.iter().position(|&b| b == a).unwrap_or(0);
                (v[i], v[axes.len() + i])
            }
            _ => (0.0, 1.0),
        };
        // The source coordinate of each output position.
        let src: Vec<f64> = (0..n_out)
            .map(|o| {
                let o = o as f64;
                match coord.as_str() {
                    "asymmetric" => o / scale,
                    "align_corners" => {
                        // The resized length is in · scale (not rounded), as ONNX's reference.
                        let len = n_in * scale;
                        if len <= 1.0 {
                            0.0
                        } else {
                            o * (n_in - 1.0) / (len - 1.0)
                        }
                    }
                    "pytorch_half_pixel" => {
                        if n_out > 1 {
                            (o + 0.5) / scale - 0.5
                        } else {
                            0.0
                        }
                    }
                    "tf_half_pixel_for_nn" => (o + 0.5) / scale,
                    "tf_crop_and_resize" => {
                        if n_out > 1 {
                            roi_lo * (n_in - 1.0) + o * (roi_hi - roi_lo) * (n_in - 1.0) / (n_out as f64 - 1.0)
                        } else {
                            0.5 * (roi_lo + roi_hi) * (n_in - 1.0)
                        }
                    }
                    "half_pixel_symmetric" => {
                        let adj = n_out as f64 / (scale * n_in);
                        let center = n_in / 2.0;
                        let offset = center * (1.0 - adj);
                        offset + (o + 0.5) / scale - 0.5
                    }
                    _ => (o + 0.5) / scale - 0.5,
                }
            })
            .collect();
        let n = shape[a] as i64;
        let outside = |s: f64| coord == "tf_crop_and_resize" && (s < 0.0 || s > n_in - 1.0);
        // (source index, weight) taps per output position.
        let taps: Vec<Vec<(i64, f64)>> = src
            .iter()
            .map(|&s| match mode.as_str() {
                "nearest" => {
                    let i = match nearest.as_str() {
                        "floor" => s.floor(),
                        "ceil" => s.ceil(),
                        "round_prefer_ceil" => {
                            if s.fract() == 0.5 {
                                s.ceil()
                            } else {
                                s.round()
                            }
                        }
                        _ => {
                            if (s - s.floor() - 0.5).abs() < f64::EPSILON {
                                s.floor()
                            } else {
                                s.round()
                            }
                        }
                    };
                    vec![((i as i64).clamp(0, n - 1), 1.0)]
                }
                "linear" => {
                    let sc = s.clamp(0.0, n_in - 1.0);
                    let lo = sc.floor();
                    let t = sc - lo;
                    let (i0, i1) = ((lo as i64).clamp(0, n - 1), (lo as i64 + 1).clamp(0, n - 1));
                    vec![(i0, 1.0 - t), (i1, t)]
                }
                _ => {
                    // Cubic convolution (Keys), coefficient a.
                    let fl = s.floor();
                    let t = s - fl;
                    let w = |d: f64| {
                        let d = d.abs();
                        if d <= 1.0 {
                            (cubic_a + 2.0) * d * d * d - (cubic_a + 3.0) * d * d + 1.0
                        } else if d < 2.0 {
                            cubic_a * d * d * d - 5.0 * cubic_a * d * d + 8.0 * cubic_a * d - 4.0 * cubic_a
                        } else {
                            0.0
                        }
                    };
                    let mut taps: Vec<(i64, f64)> = (-1..=2).map(|k| (fl as i64 + k, w(t - k as f64))).collect();
                    if exclude {
                        for tap in &mut taps {
                            if tap.0 < 0 || tap.0 >= n {
                                tap.1 = 0.0;
                            }
                        }
                        let sum: f64 = taps.iter().map(|t| t.1).sum();
                        for tap in &mut taps {
                            tap.1 /= sum;
                        }
                    }
                    taps.iter().map(|&(i, w)| (i.clamp(0, n - 1), w)).collect()
                }
            })
            .collect();
        let k = taps[0].len();
        let mut acc: Option<TensorId> = None;
        for j in 0..k {
            let idx: Vec<i32> = taps.iter().map(|t| t[j].0 as i32).collect();
            let idx = e.tensor(tidytensor_core::HostData::I32(idx), &[n_out])?;
            let g = e.gather(y, idx, a as i64, 0)?;
            let term = if mode == "nearest" {
                g
            } else {
                let mut wshape = vec![1usize; r];
                wshape[a] = n_out;
                let w: Vec<f32> = taps.iter().map(|t| t[j].1 as f32).collect();
                let w = e.tensor(tidytensor_core::HostData::F32(w), &wshape)?;
                e.mul(g, w)?
            };
            acc = Some(match acc {
                Some(p) => e.add(p, term)?,
                None => term,
            });
        }
        let mut next = acc.expect("at least one tap");
        if src.iter().any(|&s| outside(s)) {
            let mut mshape = vec![1usize; r];
            mshape[a] = n_out;
            let keep: Vec<u8> = src.iter().map(|&s| u8::from(!outside(s))).collect();
            let keep = e.tensor(tidytensor_core::HostData::Bool(keep), &mshape)?;
            let full = e.shape(next)?.to_vec();
            let keep = e.broadcast_to(keep, &full)?;
            let fill = e.fill(&full, extrapolation, DType::Float32)?;
            next = e.select(keep, next, fill)?;
        }
        y = next;
    }
    Ok(y)
}

/// The linear positions in `x` (shape `shape`) of `idx` along `ax` (negative from the end),
/// every other coordinate that of the index element.
fn element_positions(c: &Ctx, shape: &[usize], idx_shape: &[usize], idx: &[f64], ax: usize) -> Result<Vec<i32>> {
    let r = shape.len();
    let mut pos = Vec::with_capacity(idx.len());
    let mut coord = vec![0usize; r];
    for &v in idx {
        let dim = shape[ax] as f64;
        let i = if v < 0.0 { v + dim } else { v };
        if i < 0.0 || i >= dim {
            bail!("ONNX node '{}': index {v} is out of range for an axis of {dim}", c.node.name);
        }
        let mut lin = 0usize;
        for d in 0..r {
            let at = if d == ax { i as usize } else { coord[d] };
            lin = lin * shape[d] + at;
        }
        pos.push(lin as i32);
        // The next coordinate of the index tensor.
        for d in (0..r).rev() {
            coord[d] += 1;
            if coord[d] < idx_shape[d] {
                break;
            }
            coord[d] = 0;
        }
    }
    Ok(pos)
}

fn gather_elements(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let (x, idx) = (c.t(0)?, c.t(1)?);
    let shape = e.shape(x)?.to_vec();
    let idx_shape = e.shape(idx)?.to_vec();
    if idx_shape.len() != shape.len() {
        bail!("ONNX node '{}': GatherElements' indices must have the data's rank", c.node.name);
    }
    let ax = axis(c.int("axis", 0), shape.len(), "GatherElements")?;
    let pos = element_positions(c, &shape, &idx_shape, &e.read_f64(idx)?, ax)?;
    let n = pos.len();
    let pos = e.tensor(tidytensor_core::HostData::I32(pos), &[n])?;
    let flat = e.reshape(x, &[-1])?;
    let g = e.gather(flat, pos, 0, 0)?;
    let out: Vec<i64> = idx_shape.iter().map(|&d| d as i64).collect();
    e.reshape(g, &out)
}

fn scatter_elements(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let (x, idx, upd) = (c.t(0)?, c.t(1)?, c.t(2)?);
    let shape = e.shape(x)?.to_vec();
    let idx_shape = e.shape(idx)?.to_vec();
    let ax = axis(c.int("axis", 0), shape.len(), "ScatterElements")?;
    let pos = element_positions(c, &shape, &idx_shape, &e.read_f64(idx)?, ax)?;
    let n = pos.len();
    let pos = e.tensor(tidytensor_core::HostData::I32(pos), &[n, 1])?;
    let flat = e.reshape(x, &[-1])?;
    let updates = e.reshape(upd, &[-1])?;
    let y = match c.attrs().string("reduction").as_deref().unwrap_or("none") {
        "none" => e.tensor_scatter_update(flat, pos, updates)?,
        "add" => {
            let total = [flat_len(&shape) as f64];
            let sums = e.scatter_nd(pos, updates, &total)?;
            e.add(flat, sums)?
        }
        other => bail!("ONNX node '{}': ScatterElements' reduction '{other}' is not supported yet", c.node.name),
    };
    let back: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    e.reshape(y, &back)
}

fn flat_len(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// InstanceNormalization (per channel), GroupNormalization (per group of channels) and
/// MeanVarianceNormalization (over `axes`), each (x - mean) / sqrt(var + eps).
fn normalization(e: &mut Engine, c: &Ctx, op: &str) -> Result<TensorId> {
    let x = c.t(0)?;
    let shape = e.shape(x)?.to_vec();
    let r = shape.len();
    let eps = e.scalar(c.float("epsilon", if op == "MeanVarianceNormalization" { 1e-9 } else { 1e-5 }))?;
    let per_channel = |e: &mut Engine, t: TensorId| -> Result<TensorId> {
        let mut s = vec![1i64; r];
        s[1] = -1;
        e.reshape(t, &s)
    };
    match op {
        "MeanVarianceNormalization" => {
            let axes = c.int_list("axes").unwrap_or_else(|| vec![0, 2, 3]);
            let (mean, var) = e.moments(x, Some(&axes), true)?;
            let d = e.sub(x, mean)?;
            let v = e.add(var, eps)?;
            let sd = e.unary(UnaryOp::Sqrt, v)?;
            e.div(d, sd)
        }
        "InstanceNormalization" => {
            let axes: Vec<i64> = (2..r as i64).collect();
            let (mean, var) = e.moments(x, Some(&axes), true)?;
            let d = e.sub(x, mean)?;
            let v = e.add(var, eps)?;
            let inv = e.unary(UnaryOp::Rsqrt, v)?;
            let y = e.mul(d, inv)?;
            let scale = per_channel(e, c.t(1)?)?;
            let bias = per_channel(e, c.t(2)?)?;
            let y = e.mul(y, scale)?;
            e.add(y, bias)
        }
        _ => {
            let groups = c.int("num_groups", 1).max(1);
            let (n, ch) = (shape[0] as i64, shape[1] as i64);
            let g = e.reshape(x, &[n, groups, -1])?;
            let (mean, var) = e.moments(g, Some(&[2]), true)?;
            let d = e.sub(g, mean)?;
            let v = e.add(var, eps)?;
            let inv = e.unary(UnaryOp::Rsqrt, v)?;
            let y = e.mul(d, inv)?;
            let back: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            let y = e.reshape(y, &back)?;
            // Scale and bias per channel (opset 21), or per group (18).
            let (scale, bias) = (c.t(1)?, c.t(2)?);
            let per = e.shape(scale)?[0] as i64;
            let expand = |e: &mut Engine, t: TensorId| -> Result<TensorId> {
                if per == ch {
                    per_channel(e, t)
                } else {
                    let t = e.reshape(t, &[groups, 1])?;
                    let t = e.tile(t, &[1.0, (ch / groups) as f64])?;
                    per_channel(e, t)
                }
            };
            let scale = expand(e, scale)?;
            let bias = expand(e, bias)?;
            let y = e.mul(y, scale)?;
            e.add(y, bias)
        }
    }
}

/// ConvTranspose (2-D; 1-D as 2-D): tfjs's conv2dTranspose without padding, then the pads
/// cropped and the output padding added, per group.
fn conv_transpose(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let (x, w) = (c.t(0)?, c.t(1)?);
    let xs = e.shape(x)?.to_vec();
    let ws = e.shape(w)?.to_vec();
    if !(3..=4).contains(&xs.len()) || ws.len() != xs.len() {
        bail!("ONNX node '{}': ConvTranspose over input {:?} is not supported yet (1-D and 2-D are)", c.node.name, xs);
    }
    let n = xs.len() - 2;
    if c.int_list("dilations").is_some_and(|d| d.iter().any(|&v| v != 1)) {
        bail!("ONNX node '{}': ConvTranspose with dilations is not supported yet", c.node.name);
    }
    let group = c.int("group", 1).max(1) as usize;
    let cout = ws[1] * group;
    let mut strides = c.int_list("strides").unwrap_or_else(|| vec![1; n]);
    let mut kernel: Vec<usize> = ws[2..].to_vec();
    let mut in_sp: Vec<usize> = xs[2..].to_vec();
    let mut out_pad = c.int_list("output_padding").unwrap_or_else(|| vec![0; n]);
    let mut pads = c.int_list("pads").unwrap_or_else(|| vec![0; 2 * n]);
    let mut xl = to_channels_last(e, x)?;
    // [in, out/g, k...] → [k..., out/g, in]
    let perm: Vec<i64> = (2..xs.len() as i64).chain([1, 0]).collect();
    let mut wl = e.transpose(w, Some(&perm))?;
    if n == 1 {
        xl = e.expand_dims(xl, 1)?;
        wl = e.expand_dims(wl, 0)?;
        strides.insert(0, 1);
        kernel.insert(0, 1);
        in_sp.insert(0, 1);
        out_pad.insert(0, 0);
        pads = vec![0, pads[0], 0, pads[1]];
    }
    // The full output, before pads: stride · (in - 1) + kernel.
    let full: Vec<usize> = (0..2).map(|i| strides[i] as usize * (in_sp[i] - 1) + kernel[i]).collect();
    // output_shape, when given, fixes the pads (SAME_UPPER-style split, as ONNX says).
    if let Some(os) = c.int_list("output_shape").filter(|os| !os.is_empty()) {
        if os.len() < n {
            bail!("ONNX node '{}': output_shape has {} values for {n} spatial axes", c.node.name, os.len());
        }
        let os: Vec<i64> = if n == 1 { vec![1, os[os.len() - 1]] } else { os[os.len() - 2..].to_vec() };
        let lower = c.attrs().string("auto_pad").as_deref() == Some("same_lower");
        for i in 0..2 {
            let total = full[i] as i64 + out_pad[i] - os[i];
            if total < 0 {
                // A larger output than the full one: zeros at the end.
                out_pad[i] -= total;
                (pads[i], pads[2 + i]) = (0, 0);
                continue;
            }
            let (a, b) = (total / 2, total - total / 2);
            (pads[i], pads[2 + i]) = if lower { (b, a) } else { (a, b) };
        }
    } else if let Some(auto) = c.attrs().string("auto_pad").filter(|a| a.starts_with("same")) {
        for i in 0..2 {
            let target = in_sp[i] as i64 * strides[i];
            let total = (full[i] as i64 + out_pad[i] - target).max(0);
            let (a, b) = (total / 2, total - total / 2);
            (pads[i], pads[2 + i]) = if auto == "same_lower" { (b, a) } else { (a, b) };
        }
    }
    let sf: Vec<f64> = strides.iter().map(|&s| s as f64).collect();
    let win = Window { strides: &sf, dilations: &[1.0, 1.0], pad: &Padding::Valid, rounding: None };
    let batch = xs[0];
    let run = |e: &mut Engine, xi: TensorId, wi: TensorId, co: usize| -> Result<TensorId> {
        let shape = [batch, full[0], full[1], co];
        e.conv_transpose(2, &shape.map(|d| d as i64), xi, wi, &win)
    };
    let mut y = if group == 1 {
        run(e, xl, wl, cout)?
    } else {
        let xg = e.split(xl, Splits::Count(group as f64), 3.0)?;
        let wg = e.split(wl, Splits::Count(group as f64), 3.0)?;
        let ys = xg.iter().zip(&wg).map(|(&xi, &wi)| run(e, xi, wi, cout / group)).collect::<Result<Vec<_>>>()?;
        e.concat(&ys, 3)?
    };
    // Output padding grows the end; pads crop.
    let grow: Vec<[f64; 2]> = vec![[0.0, 0.0], [0.0, out_pad[0] as f64], [0.0, out_pad[1] as f64], [0.0, 0.0]];
    if out_pad.iter().any(|&p| p > 0) {
        y = e.pad(y, &grow, 0.0)?;
    }
    let ys = e.shape(y)?.to_vec();
    let begin = [0, pads[0], pads[1], 0];
    let size = [ys[0] as i64, ys[1] as i64 - pads[0] - pads[2], ys[2] as i64 - pads[1] - pads[3], ys[3] as i64];
    y = e.slice(y, &begin, &size)?;
    if let Some(b) = c.opt(2) {
        y = e.add(y, b)?;
    }
    if n == 1 {
        y = e.squeeze(y, Some(&[1]))?;
    }
    to_channels_first(e, y)
}

/// The negative log-likelihood of `input` ([N, C, d...]) at the target classes (input 1,
/// [N, d...]), weighted per class (input 2) and reduced ("none", "sum", "mean": over the
/// weights of the targets counted); targets equal to ignore_index count for nothing.
fn nll_loss(e: &mut Engine, c: &Ctx, input: TensorId) -> Result<TensorId> {
    let target = c.t(1)?;
    let shape = e.shape(input)?.to_vec();
    let r = shape.len();
    if r < 2 {
        bail!("ONNX node '{}': the loss's input needs a class axis", c.node.name);
    }
    let classes = shape[1];
    let ignore = c.node.attr.contains_key("ignore_index").then(|| c.int("ignore_index", 0));
    let t = e.read_f64(target)?;
    let t_shape = e.shape(target)?.to_vec();
    let keep: Vec<f32> = t.iter().map(|&v| f32::from(u8::from(Some(v as i64) != ignore))).collect();
    let mut safe = Vec::with_capacity(t.len());
    for &v in &t {
        let i = v as i64;
        if Some(i) == ignore {
            safe.push(0);
        } else if i < 0 || i as usize >= classes {
            bail!("ONNX node '{}': target {i} is not a class of {classes}", c.node.name);
        } else {
            safe.push(i as i32);
        }
    }
    let n = safe.len();
    let safe_t = e.tensor(tidytensor_core::HostData::I32(safe), &t_shape)?;
    let keep_t = e.tensor(tidytensor_core::HostData::F32(keep), &t_shape)?;
    // The input at each target: one-hot along the classes, moved last.
    let perm: Vec<i64> = std::iter::once(0).chain(2..r as i64).chain(std::iter::once(1)).collect();
    let xl = e.transpose(input, Some(&perm))?;
    let hot = e.one_hot(safe_t, classes as f64, 1.0, 0.0, DType::Float32)?;
    let picked = e.mul(xl, hot)?;
    let picked = e.reduce(ReduceOp::Sum, picked, Some(&[-1]), false)?;
    let w = match c.opt(2) {
        Some(wc) => {
            let flat = e.reshape(safe_t, &[n as i64])?;
            let g = e.gather(wc, flat, 0, 0)?;
            let shape: Vec<i64> = t_shape.iter().map(|&d| d as i64).collect();
            let g = e.reshape(g, &shape)?;
            e.mul(g, keep_t)?
        }
        None => keep_t,
    };
    let neg = e.neg(picked)?;
    let loss = e.mul(neg, w)?;
    match c.attrs().string("reduction").as_deref().unwrap_or("mean") {
        "none" => Ok(loss),
        "sum" => e.reduce(ReduceOp::Sum, loss, None, false),
        "mean" => {
            let total = e.reduce(ReduceOp::Sum, loss, None, false)?;
            let weight = e.reduce(ReduceOp::Sum, w, None, false)?;
            e.div(total, weight)
        }
        other => bail!("ONNX node '{}': unknown reduction '{other}'", c.node.name),
    }
}

/// RotaryEmbedding (opset 23): the first `rotary_embedding_dim` features of each head turned by
/// the cached angles (looked up by position ids where given), halves or interleaved pairs.
fn rotary_embedding(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = c.t(0)?;
    let shape: Vec<i64> = e.shape(x)?.iter().map(|&d| d as i64).collect();
    let four = shape.len() == 4;
    // [batch, seq, heads, size]
    let mut t = if four { e.transpose(x, Some(&[0, 2, 1, 3]))? } else { x };
    if !four {
        let heads = c.int("num_heads", 0);
        if heads <= 0 || shape.len() != 3 {
            bail!("ONNX node '{}': 3-D RotaryEmbedding needs num_heads", c.node.name);
        }
        t = e.reshape(t, &[shape[0], shape[1], heads, shape[2] / heads])?;
    }
    let ts = e.shape(t)?.to_vec();
    let size = ts[3] as i64;
    let dim = match c.int("rotary_embedding_dim", 0) {
        0 => size,
        d => d,
    };
    let half = dim / 2;
    let (mut cos, mut sin) = (c.t(1)?, c.t(2)?);
    if let Some(p) = c.opt(3) {
        cos = e.gather(cos, p, 0, 0)?;
        sin = e.gather(sin, p, 0, 0)?;
    }
    cos = e.expand_dims(cos, 2)?;
    sin = e.expand_dims(sin, 2)?;
    let (b, sq, h) = (ts[0] as i64, ts[1] as i64, ts[2] as i64);
    let rot = e.slice(t, &[0, 0, 0, 0], &[b, sq, h, dim])?;
    let interleaved = c.int("interleaved", 0) != 0;
    let (x1, x2) = if interleaved {
        let pairs = e.reshape(rot, &[b, sq, h, half, 2])?;
        let parts = e.split(pairs, Splits::Count(2.0), 4.0)?;
        (e.squeeze(parts[0], Some(&[4]))?, e.squeeze(parts[1], Some(&[4]))?)
    } else {
        let parts = e.split(rot, Splits::Count(2.0), 3.0)?;
        (parts[0], parts[1])
    };
    let (c1, s2) = (e.mul(cos, x1)?, e.mul(sin, x2)?);
    let real = e.sub(c1, s2)?;
    let (s1, c2) = (e.mul(sin, x1)?, e.mul(cos, x2)?);
    let imag = e.add(s1, c2)?;
    let turned = if interleaved {
        let st = e.stack(&[real, imag], 4)?;
        e.reshape(st, &[b, sq, h, dim])?
    } else {
        e.concat(&[real, imag], 3)?
    };
    let y = if dim < size {
        let rest = e.slice(t, &[0, 0, 0, dim], &[b, sq, h, size - dim])?;
        e.concat(&[turned, rest], 3)?
    } else {
        turned
    };
    if four {
        e.transpose(y, Some(&[0, 2, 1, 3]))
    } else {
        e.reshape(y, &shape)
    }
}

/// NonMaxSuppression: per batch and class, the core's (tfjs's) selection; the rows
/// [batch, class, box] of every box kept, in that order.
fn non_max_suppression(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let (boxes, scores) = (c.t(0)?, c.t(1)?);
    let (bs, ss) = (e.shape(boxes)?.to_vec(), e.shape(scores)?.to_vec());
    if bs.len() != 3 || bs[2] != 4 || ss.len() != 3 || ss[0] != bs[0] || ss[2] != bs[1] {
        bail!(
            "ONNX node '{}': boxes {:?} and scores {:?} do not fit [batch, boxes, 4] and [batch, classes, boxes]",
            c.node.name,
            bs,
            ss
        );
    }
    let read = |e: &Engine, i: usize, d: f64| -> Result<f64> {
        Ok(match c.opt(i) {
            Some(t) => e.read_f64(t)?.first().copied().unwrap_or(d),
            None => d,
        })
    };
    let max_out = read(e, 2, 0.0)?;
    let iou = read(e, 3, 0.0)?;
    let score_min = read(e, 4, f64::NEG_INFINITY)?;
    let (batches, classes, n) = (bs[0], ss[1], bs[1]);
    let mut rows: Vec<i32> = Vec::new();
    if max_out > 0.0 {
        for b in 0..batches {
            let mut bx = e.slice(boxes, &[b as i64, 0, 0], &[1, n as i64, 4])?;
            bx = e.reshape(bx, &[n as i64, 4])?;
            if c.int("center_point_box", 0) != 0 {
                // [x_center, y_center, width, height] → [y1, x1, y2, x2].
                let v = e.read_f64(bx)?;
                let corners: Vec<f32> = v
                    .chunks_exact(4)
                    .flat_map(|q| {
                        [q[1] - q[3] / 2.0, q[0] - q[2] / 2.0, q[1] + q[3] / 2.0, q[0] + q[2] / 2.0].map(|x| x as f32)
                    })
                    .collect();
                bx = e.tensor(tidytensor_core::HostData::F32(corners), &[n, 4])?;
            }
            for k in 0..classes {
                let sc = e.slice(scores, &[b as i64, k as i64, 0], &[1, 1, n as i64])?;
                let sc = e.reshape(sc, &[n as i64])?;
                let kept = e.non_max_suppression(bx, sc, max_out, iou, score_min, 0.0, NmsOutputs::Indices)?;
                for i in e.read_f64(kept[0])? {
                    rows.extend([b as i32, k as i32, i as i32]);
                }
            }
        }
    }
    let count = rows.len() / 3;
    e.tensor(tidytensor_core::HostData::I32(rows), &[count, 3])
}

/// A [q, kv] (or [batch, 1, q, kv] with per-batch offsets) additive bias of 0 where `allowed`
/// and -inf elsewhere, built on the host.
fn host_bias(
    e: &mut Engine,
    q: usize,
    kv: usize,
    offsets: &[i64],
    allowed: impl Fn(i64, i64) -> bool,
) -> Result<TensorId> {
    let per_batch = offsets.len() > 1;
    let mut v = Vec::with_capacity(offsets.len() * q * kv);
    for &off in offsets {
        for i in 0..q as i64 {
            for j in 0..kv as i64 {
                v.push(if allowed(i + off, j) { 0.0 } else { f32::NEG_INFINITY });
            }
        }
    }
    let shape: Vec<usize> = if per_batch { vec![offsets.len(), 1, q, kv] } else { vec![q, kv] };
    e.tensor(tidytensor_core::HostData::F32(v), &shape)
}

/// Attention (opset 23 on): scaled dot-product attention over 4-D [batch, heads, seq, size] or
/// 3-D [batch, seq, heads · size] inputs, with a past key/value cache, grouped-query heads, a
/// boolean or additive mask (padded to the keys' length), causal and sliding-window masks,
/// per-batch key lengths, a soft cap, and the qk output modes; as ONNX's reference computes it.
fn attention(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let (mut q, mut k, mut v) = (c.t(0)?, c.t(1)?, c.t(2)?);
    let ranks = (rank(e, q)?, rank(e, k)?, rank(e, v)?);
    if !matches!(ranks, (3, 3, 3) | (4, 4, 4)) {
        bail!("ONNX node '{}': Attention's Q, K and V must all be of rank 3 or all of rank 4", c.node.name);
    }
    let rank3 = ranks.0 == 3;
    let batch = e.shape(q)?[0] as i64;
    if rank3 {
        let (qh, kvh) = (c.int("q_num_heads", 0), c.int("kv_num_heads", 0));
        if qh <= 0 || kvh <= 0 {
            bail!("ONNX node '{}': 3-D Attention needs q_num_heads and kv_num_heads", c.node.name);
        }
        let split = |e: &mut Engine, t: TensorId, heads: i64| -> Result<TensorId> {
            let s = e.shape(t)?.to_vec();
            let t = e.reshape(t, &[s[0] as i64, s[1] as i64, heads, s[2] as i64 / heads])?;
            e.transpose(t, Some(&[0, 2, 1, 3]))
        };
        q = split(e, q, qh)?;
        k = split(e, k, kvh)?;
        v = split(e, v, kvh)?;
    }
    let (past_k, past_v) = (c.opt(4), c.opt(5));
    if let Some(p) = past_k {
        k = e.concat(&[p, k], 2)?;
    }
    if let Some(p) = past_v {
        v = e.concat(&[p, v], 2)?;
    }
    let (present_k, present_v) = (k, v);
    let qs = e.shape(q)?.to_vec();
    let (heads, q_len, size) = (qs[1], qs[2], qs[3]);
    let kv_len = e.shape(k)?[2];
    let scale = match c.node.attr.contains_key("scale") {
        true => c.float("scale", 1.0),
        false => 1.0 / (size as f64).sqrt(),
    };
    // The bias: the mask (booleans as 0 / -inf), padded to the keys' length with -inf.
    let mut bias: Option<TensorId> = None;
    if let Some(m) = c.opt(3) {
        let mut m = if e.dtype(m)? == DType::Bool {
            let shape = e.shape(m)?.to_vec();
            let zeros = e.fill(&shape, 0.0, DType::Float32)?;
            let neg = e.fill(&shape, f64::NEG_INFINITY, DType::Float32)?;
            e.select(m, zeros, neg)?
        } else {
            m
        };
        let ms = e.shape(m)?.to_vec();
        let short = kv_len.saturating_sub(*ms.last().unwrap_or(&kv_len));
        if short > 0 {
            let mut pads = vec![[0.0, 0.0]; ms.len()];
            pads[ms.len() - 1] = [0.0, short as f64];
            m = e.pad(m, &pads, f64::NEG_INFINITY)?;
        }
        bias = Some(m);
    }
    let lens = match c.opt(6) {
        Some(t) => Some(e.read_f64(t)?),
        None => None,
    };
    // Where the queries sit among the keys: after the past cache, or per batch at len - q.
    let offsets: Vec<i64> = match (&lens, past_k) {
        (Some(l), None) => l.iter().map(|&n| n as i64 - q_len as i64).collect(),
        (_, Some(p)) => vec![e.shape(p)?[2] as i64],
        _ => vec![0],
    };
    let mut add = |e: &mut Engine, b: TensorId| -> Result<()> {
        bias = Some(match bias {
            Some(a) => e.add(a, b)?,
            None => b,
        });
        Ok(())
    };
    if c.int("is_causal", 0) != 0 {
        let causal = host_bias(e, q_len, kv_len, &offsets, |p, j| j <= p)?;
        add(e, causal)?;
    }
    let (left, right) = (c.int("left_window_size", -1), c.int("right_window_size", -1));
    if left >= 0 || right >= 0 {
        let window =
            host_bias(e, q_len, kv_len, &offsets, |p, j| (left < 0 || p - j <= left) && (right < 0 || j - p <= right))?;
        add(e, window)?;
    }
    if let Some(l) = &lens {
        let v: Vec<f32> = l
            .iter()
            .flat_map(|&n| (0..kv_len).map(move |j| if (j as f64) < n { 0.0 } else { f32::NEG_INFINITY }))
            .collect();
        let pad = e.tensor(tidytensor_core::HostData::F32(v), &[batch as usize, 1, 1, kv_len])?;
        add(e, pad)?;
    }
    // Grouped-query attention: each key/value head serves heads / kv_heads query heads.
    let kv_heads = e.shape(k)?[1];
    if kv_heads != heads && kv_heads > 0 && heads % kv_heads == 0 {
        let reps = (heads / kv_heads) as f64;
        let repeat = |e: &mut Engine, t: TensorId| -> Result<TensorId> {
            let s: Vec<i64> = e.shape(t)?.iter().map(|&d| d as i64).collect();
            let t = e.expand_dims(t, 2)?;
            let t = e.tile(t, &[1.0, 1.0, reps, 1.0, 1.0])?;
            e.reshape(t, &[s[0], heads as i64, s[2], s[3]])
        };
        k = repeat(e, k)?;
        v = repeat(e, v)?;
    }
    let root = e.scalar(scale.sqrt())?;
    let qs = e.mul(q, root)?;
    let ks = e.mul(k, root)?;
    let mut scores = e.matmul(qs, ks, false, true)?;
    let softcap = c.float("softcap", 0.0);
    if softcap > 0.0 {
        let cap = e.scalar(softcap)?;
        let t = e.div(scores, cap)?;
        let t = e.unary(UnaryOp::Tanh, t)?;
        scores = e.mul(t, cap)?;
    }
    let mode = c.int("qk_matmul_output_mode", 0);
    let with_bias = match bias {
        Some(b) => e.add(scores, b)?,
        None => scores,
    };
    let mut probs = e.softmax(with_bias, -1)?;
    // Rows the bias masks wholly give zeros (not the NaN of exp(-inf + inf)).
    if let Some(b) = bias {
        let row_max = e.reduce(ReduceOp::Max, b, Some(&[-1]), true)?;
        let ninf = e.scalar(f64::NEG_INFINITY)?;
        let masked = e.binary(BinaryOp::Equal, row_max, ninf)?;
        let full = e.shape(probs)?.to_vec();
        let masked = e.broadcast_to(masked, &full)?;
        let zeros = e.fill(&full, 0.0, DType::Float32)?;
        probs = e.select(masked, zeros, probs)?;
    }
    let qk_out = match mode {
        2 => with_bias,
        3 => probs,
        _ => scores,
    };
    let mut y = e.matmul(probs, v, false, false)?;
    if rank3 {
        let t = e.transpose(y, Some(&[0, 2, 1, 3]))?;
        y = e.reshape(t, &[batch, q_len as i64, -1])?;
    }
    let mut out = vec![y, present_k, present_v, qk_out];
    out.truncate(c.outputs().max(1));
    Ok(out)
}

/// An activation of the recurrent ops, by ONNX's name, with its alpha and beta.
fn rnn_activation(e: &mut Engine, name: &str, x: TensorId, alpha: Option<f64>, beta: Option<f64>) -> Result<TensorId> {
    let scaled = |e: &mut Engine, x: TensorId, a: f64, b: f64| -> Result<TensorId> {
        let a = e.scalar(a)?;
        let ax = e.mul(x, a)?;
        let b = e.scalar(b)?;
        e.add(ax, b)
    };
    Ok(match name {
        "sigmoid" => e.unary(UnaryOp::Sigmoid, x)?,
        "tanh" => e.unary(UnaryOp::Tanh, x)?,
        "relu" => e.unary(UnaryOp::Relu, x)?,
        "softplus" => e.unary(UnaryOp::Softplus, x)?,
        "leakyrelu" => e.leaky_relu(x, alpha.unwrap_or(0.01))?,
        "affine" => scaled(e, x, alpha.unwrap_or(1.0), beta.unwrap_or(0.0))?,
        "hardsigmoid" => {
            let y = scaled(e, x, alpha.unwrap_or(0.2), beta.unwrap_or(0.5))?;
            e.clip_by_value(y, 0.0, 1.0)?
        }
        "scaledtanh" => {
            let a = e.scalar(alpha.unwrap_or(1.0))?;
            let b = e.scalar(beta.unwrap_or(1.0))?;
            let bx = e.mul(x, b)?;
            let t = e.unary(UnaryOp::Tanh, bx)?;
            e.mul(t, a)?
        }
        "softsign" => {
            let ab = e.unary(UnaryOp::Abs, x)?;
            let one = e.scalar(1.0)?;
            let d = e.add(ab, one)?;
            e.div(x, d)?
        }
        other => bail!("the recurrent activation {other} is not supported yet"),
    })
}

/// LSTM, GRU and RNN: the input projections of every step in one product, then the steps, each
/// in a scope of its own that keeps only the new state and output. Outputs Y, Y_h (and Y_c).
fn recurrent(e: &mut Engine, c: &Ctx, op: &str) -> Result<Vec<TensorId>> {
    let gates = match op {
        "LSTM" => 4,
        "GRU" => 3,
        _ => 1,
    };
    let layout = c.int("layout", 0);
    let mut x = c.t(0)?;
    if layout != 0 {
        x = e.transpose(x, Some(&[1, 0, 2]))?;
    }
    let xs = e.shape(x)?.to_vec();
    if xs.len() != 3 {
        bail!("ONNX node '{}': {op}'s input must be of rank 3", c.node.name);
    }
    let (seq, batch) = (xs[0], xs[1]);
    let (w, r) = (c.t(1)?, c.t(2)?);
    if e.shape(w)?.len() != 3 || e.shape(r)?.len() != 3 {
        bail!("ONNX node '{}': {op}'s W and R must be of rank 3", c.node.name);
    }
    let hidden = match c.int("hidden_size", 0) {
        h if h > 0 => h as usize,
        _ => e.shape(r)?[2],
    };
    let direction = c.attrs().string("direction").unwrap_or_else(|| "forward".into());
    let dirs = if direction == "bidirectional" { 2 } else { 1 };
    let clip = c
        .attrs()
        .numbers("clip")
        .is_some()
        .then(|| c.float("clip", 0.0))
        .or_else(|| c.node.attr.contains_key("clip").then(|| c.float("clip", 0.0)));
    if c.int("input_forget", 0) != 0 {
        bail!("ONNX node '{}': LSTM's input_forget is not supported yet", c.node.name);
    }
    let lens = match c.opt(4) {
        Some(t) => Some(e.read_f64(t)?),
        None => None,
    };
    if let Some(l) = &lens {
        if (dirs == 2 || direction == "reverse") && l.iter().any(|&v| v as usize != seq) {
            bail!("ONNX node '{}': {op} backwards over sequences of several lengths is not supported yet", c.node.name);
        }
    }
    let names: Vec<String> = c.attrs().strings("activations").unwrap_or_default();
    let alphas = c.attrs().numbers("activation_alpha").unwrap_or_default();
    let betas = c.attrs().numbers("activation_beta").unwrap_or_default();
    let per_dir = if op == "RNN" { 1 } else { 2 + usize::from(op == "LSTM") };
    let default: &[&str] = match op {
        "LSTM" => &["sigmoid", "tanh", "tanh"],
        "GRU" => &["sigmoid", "tanh"],
        _ => &["tanh"],
    };
    let act = |d: usize, k: usize| -> (String, Option<f64>, Option<f64>) {
        let i = d * per_dir + k;
        let name = names.get(i).cloned().unwrap_or_else(|| default[k].to_string());
        (name.to_lowercase(), alphas.get(i).copied(), betas.get(i).copied())
    };
    let lbr = c.int("linear_before_reset", 0) != 0;
    let mut ys = Vec::new();
    let mut hs = Vec::new();
    let mut cs = Vec::new();
    for d in 0..dirs {
        let reverse = direction == "reverse" || d == 1;
        let pick = |e: &mut Engine, t: TensorId| -> Result<TensorId> {
            let s = e.shape(t)?.to_vec();
            let one = e.slice(
                t,
                &[d as i64, 0, 0][..s.len()],
                &std::iter::once(1).chain(s[1..].iter().map(|&v| v as i64)).collect::<Vec<_>>(),
            )?;
            e.squeeze(one, Some(&[0]))
        };
        let wd = pick(e, w)?; // [G·h, input]
        let rd = pick(e, r)?; // [G·h, h]
                              // Every step's input projection at once: [seq·batch, input] · Wᵀ (+ Wb).
        let flat = e.reshape(x, &[(seq * batch) as i64, -1])?;
        let mut xp = e.matmul(flat, wd, false, true)?;
        let (mut wb, mut rb) = (None, None);
        if let Some(b) = c.opt(3) {
            let bd = e.slice(b, &[d as i64, 0], &[1, (2 * gates * hidden) as i64])?;
            let bd = e.reshape(bd, &[-1])?;
            let parts = e.split(bd, Splits::Count(2.0), 0.0)?;
            (wb, rb) = (Some(parts[0]), Some(parts[1]));
        }
        if let (Some(wb), Some(full_rb)) = (wb, rb) {
            if op == "GRU" {
                // Wb and the z and r parts of Rb add to the projections; Rb's h part stays for
                // the step (inside the reset product with linear_before_reset, after it without).
                let parts = e.split(full_rb, Splits::Count(3.0), 0.0)?;
                let zero = e.fill(&[hidden], 0.0, DType::Float32)?;
                let rb_zr = e.concat(&[parts[0], parts[1], zero], 0)?;
                let sum = e.add(wb, rb_zr)?;
                xp = e.add(xp, sum)?;
                rb = Some(parts[2]);
            } else {
                let both = e.add(wb, full_rb)?;
                xp = e.add(xp, both)?;
                rb = None;
            }
        }
        let xp = e.reshape(xp, &[seq as i64, batch as i64, (gates * hidden) as i64])?;
        let init = |e: &mut Engine, i: usize| -> Result<TensorId> {
            match c.opt(i) {
                Some(t) => pick(e, t),
                None => e.fill(&[batch, hidden], 0.0, DType::Float32),
            }
        };
        let mut h = init(e, 5)?;
        let mut cell = if op == "LSTM" { Some(init(e, 6)?) } else { None };
        let peep = match c.opt(7).filter(|_| op == "LSTM") {
            Some(p) => {
                let pd = e.slice(p, &[d as i64, 0], &[1, (3 * hidden) as i64])?;
                let pd = e.reshape(pd, &[-1])?;
                Some(e.split(pd, Splits::Count(3.0), 0.0)?)
            }
            None => None,
        };
        let mut outs: Vec<Option<TensorId>> = vec![None; seq];
        for step in 0..seq {
            let t = if reverse { seq - 1 - step } else { step };
            e.start_scope();
            let run = (|| -> Result<(TensorId, Option<TensorId>, TensorId)> {
                let xt = e.slice(xp, &[t as i64, 0, 0], &[1, batch as i64, (gates * hidden) as i64])?;
                let xt = e.reshape(xt, &[batch as i64, (gates * hidden) as i64])?;
                let clipped = |e: &mut Engine, v: TensorId| -> Result<TensorId> {
                    match clip {
                        Some(k) => e.clip_by_value(v, -k, k),
                        None => Ok(v),
                    }
                };
                let (new_h, new_c) = match op {
                    "LSTM" => {
                        let hr = e.matmul(h, rd, false, true)?;
                        let g = e.add(xt, hr)?;
                        let p = e.split(g, Splits::Count(4.0), 1.0)?; // i, o, f, c
                        let cprev = cell.expect("an LSTM cell");
                        let with_peep = |e: &mut Engine, v: TensorId, k: usize, cs: TensorId| -> Result<TensorId> {
                            match &peep {
                                Some(pp) => {
                                    let m = e.mul(pp[k], cs)?;
                                    e.add(v, m)
                                }
                                None => Ok(v),
                            }
                        };
                        let (fa, ga, ha) = (act(d, 0), act(d, 1), act(d, 2));
                        let ipre = with_peep(e, p[0], 0, cprev)?;
                        let ipre = clipped(e, ipre)?;
                        let i = rnn_activation(e, &fa.0, ipre, fa.1, fa.2)?;
                        let fpre = with_peep(e, p[2], 2, cprev)?;
                        let fpre = clipped(e, fpre)?;
                        let f = rnn_activation(e, &fa.0, fpre, fa.1, fa.2)?;
                        let cpre = clipped(e, p[3])?;
                        let cc = rnn_activation(e, &ga.0, cpre, ga.1, ga.2)?;
                        let fc = e.mul(f, cprev)?;
                        let ic = e.mul(i, cc)?;
                        let cn = e.add(fc, ic)?;
                        let opre = with_peep(e, p[1], 1, cn)?;
                        let opre = clipped(e, opre)?;
                        let o = rnn_activation(e, &fa.0, opre, fa.1, fa.2)?;
                        let hc = rnn_activation(e, &ha.0, cn, ha.1, ha.2)?;
                        (e.mul(o, hc)?, Some(cn))
                    }
                    "GRU" => {
                        let (fa, ga) = (act(d, 0), act(d, 1));
                        let xparts = e.split(xt, Splits::Count(3.0), 1.0)?; // z, r, h
                        let rparts = e.split(rd, Splits::Count(3.0), 0.0)?;
                        let hz = e.matmul(h, rparts[0], false, true)?;
                        let zpre = e.add(xparts[0], hz)?;
                        let zpre = clipped(e, zpre)?;
                        let z = rnn_activation(e, &fa.0, zpre, fa.1, fa.2)?;
                        let hr = e.matmul(h, rparts[1], false, true)?;
                        let rpre = e.add(xparts[1], hr)?;
                        let rpre = clipped(e, rpre)?;
                        let rg = rnn_activation(e, &fa.0, rpre, fa.1, fa.2)?;
                        let hh = if lbr {
                            let mut hrh = e.matmul(h, rparts[2], false, true)?;
                            if let Some(b) = rb {
                                hrh = e.add(hrh, b)?;
                            }
                            e.mul(rg, hrh)?
                        } else {
                            let rh = e.mul(rg, h)?;
                            let mut v = e.matmul(rh, rparts[2], false, true)?;
                            if let Some(b) = rb {
                                v = e.add(v, b)?;
                            }
                            v
                        };
                        let hpre = e.add(xparts[2], hh)?;
                        let hpre = clipped(e, hpre)?;
                        let ht = rnn_activation(e, &ga.0, hpre, ga.1, ga.2)?;
                        // (1 - z) · h~ + z · h
                        let one = e.scalar(1.0)?;
                        let omz = e.sub(one, z)?;
                        let a = e.mul(omz, ht)?;
                        let b = e.mul(z, h)?;
                        (e.add(a, b)?, None)
                    }
                    _ => {
                        let fa = act(d, 0);
                        let hr = e.matmul(h, rd, false, true)?;
                        let mut pre = e.add(xt, hr)?;
                        if let Some(b) = rb {
                            pre = e.add(pre, b)?;
                        }
                        let pre = clipped(e, pre)?;
                        (rnn_activation(e, &fa.0, pre, fa.1, fa.2)?, None)
                    }
                };
                // Past a sequence's length, the state stays and the output is 0.
                let (new_h, new_c, y) = match &lens {
                    Some(l) if l.iter().any(|&v| (v as usize) <= t) => {
                        let keep: Vec<u8> = l.iter().map(|&v| u8::from((v as usize) > t)).collect();
                        let m = e.tensor(tidytensor_core::HostData::Bool(keep), &[batch, 1])?;
                        let m = e.broadcast_to(m, &[batch, hidden])?;
                        let zeros = e.fill(&[batch, hidden], 0.0, DType::Float32)?;
                        let y = e.select(m, new_h, zeros)?;
                        let nh = e.select(m, new_h, h)?;
                        let nc = match (new_c, cell) {
                            (Some(nc), Some(pc)) => Some(e.select(m, nc, pc)?),
                            _ => new_c,
                        };
                        (nh, nc, y)
                    }
                    _ => (new_h, new_c, new_h),
                };
                Ok((new_h, new_c, y))
            })();
            match run {
                Ok((nh, nc, y)) => {
                    let mut keep = vec![nh, y];
                    keep.extend(nc);
                    e.end_scope(&keep);
                    h = nh;
                    cell = nc.or(cell);
                    outs[t] = Some(y);
                }
                Err(err) => {
                    e.end_scope(&[]);
                    return Err(err);
                }
            }
        }
        let steps: Vec<TensorId> = outs.into_iter().map(|o| o.expect("every step ran")).collect();
        let y = if steps.is_empty() { e.fill(&[0, batch, hidden], 0.0, DType::Float32)? } else { e.stack(&steps, 0)? };
        ys.push(e.expand_dims(y, 1)?); // [seq, 1, batch, hidden]
        hs.push(e.expand_dims(h, 0)?);
        if let Some(cl) = cell {
            cs.push(e.expand_dims(cl, 0)?);
        }
    }
    let mut y = e.concat(&ys, 1)?;
    let mut yh = e.concat(&hs, 0)?;
    let mut yc = if cs.is_empty() { None } else { Some(e.concat(&cs, 0)?) };
    if layout != 0 {
        y = e.transpose(y, Some(&[2, 0, 1, 3]))?;
        yh = e.transpose(yh, Some(&[1, 0, 2]))?;
        if let Some(t) = yc {
            yc = Some(e.transpose(t, Some(&[1, 0, 2]))?);
        }
    }
    let mut out = vec![y, yh];
    out.extend(yc);
    out.truncate(c.outputs().max(1));
    Ok(out)
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
