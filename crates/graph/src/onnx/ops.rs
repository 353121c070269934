//! The kernels of ONNX nodes (`onnx::<OpType>`), each in ONNX's terms (its inputs, attributes,
//! defaults and opset differences) over the core's front-ends. ONNX is channels-first (NCHW)
//! and numpy-broadcasting, and its filters are `[out, in / group, kh, kw]`: the convolutions
//! and pools reorder to the core's channels-last. Each node runs in a scope of its own (the
//! executor's), so the intermediates here are freed when it returns.

use super::PREFIX;
use crate::ops::{ints, Ctx};
use tidytensor_core::ops::{ConvKind, Padding, PoolKind, SliceMasks, Splits, Window};
use tidytensor_core::{bail, ArgOp, BinaryOp, DType, Engine, ReduceOp, Result, TensorId, UnaryOp};

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
    "AveragePool",
    "BatchNormalization",
    "Cast",
    "Ceil",
    "Clip",
    "Concat",
    "ConstantOfShape",
    "Conv",
    "Cos",
    "Cosh",
    "Div",
    "Dropout",
    "Elu",
    "Equal",
    "Erf",
    "Exp",
    "Expand",
    "Flatten",
    "Floor",
    "Gather",
    "Gelu",
    "Gemm",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Greater",
    "GreaterOrEqual",
    "HardSigmoid",
    "HardSwish",
    "Identity",
    "LayerNormalization",
    "LeakyRelu",
    "Less",
    "LessOrEqual",
    "Log",
    "LogSoftmax",
    "MatMul",
    "Max",
    "MaxPool",
    "Mean",
    "Min",
    "Mul",
    "Neg",
    "Not",
    "Or",
    "Pow",
    "PRelu",
    "Range",
    "Reciprocal",
    "ReduceL2",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "Relu",
    "Reshape",
    "Round",
    "Selu",
    "Shape",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Size",
    "Slice",
    "Softmax",
    "Softplus",
    "Split",
    "Sqrt",
    "Squeeze",
    "Sub",
    "Sum",
    "Tan",
    "Tanh",
    "Tile",
    "Transpose",
    "Unsqueeze",
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
    let xs = e.shape(x)?.to_vec();
    let ws = e.shape(w)?.to_vec();
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
    let mut xl = to_channels_last(e, x)?;
    // [out, in/g, k...] → [k..., in/g, out]
    let perm: Vec<i64> = (2..xs.len() as i64).chain([1, 0]).collect();
    let mut wl = e.transpose(w, Some(&perm))?;
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
    let mut y = if group == 1 {
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
    if let Some(b) = c.opt(2) {
        y = e.add(y, b)?;
    }
    if n == 1 {
        y = e.squeeze(y, Some(&[1]))?;
    }
    to_channels_first(e, y)
}

fn pool(e: &mut Engine, c: &Ctx, max: bool) -> Result<TensorId> {
    let x = c.t(0)?;
    let xs = e.shape(x)?.to_vec();
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
    let mut xl = to_channels_last(e, x)?;
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
    to_channels_first(e, y)
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
            let axes: Vec<i64> = (2..rank(e, x)? as i64).collect();
            let op = if op == "GlobalMaxPool" { ReduceOp::Max } else { ReduceOp::Mean };
            e.reduce(op, x, Some(&axes), true)?
        }
        "BatchNormalization" => {
            // Inference: x, scale, bias, mean, var over axis 1.
            let x = c.t(0)?;
            let r = rank(e, x)?;
            let eps = c.float("epsilon", 1e-5);
            let per_channel = |e: &mut Engine, t: TensorId| -> Result<TensorId> {
                let mut shape = vec![1i64; r];
                if r > 1 {
                    shape[1] = -1;
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
            let ax = axis(c.int("axis", 0), r, "Concat")?;
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
            if c.int("select_last_index", 0) != 0 {
                bail!("ONNX node '{}': select_last_index is not supported yet", c.node.name);
            }
            let kind = if op == "ArgMax" { ArgOp::ArgMax } else { ArgOp::ArgMin };
            let y = e.arg_reduce(kind, x, ax as i64)?;
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
        "Elu" | "Selu" => None,
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
