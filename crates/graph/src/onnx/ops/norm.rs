//! Normalizations and losses over the core's moments and reductions.

use super::*;

/// LayerNormalization: y, and the mean and 1 / standard deviation where asked for.
pub(super) fn layer_norm(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let x = c.t(0)?;
    let from = axis(c.int("axis", -1), rank(e, x)?, "LayerNormalization")?;
    layer_norm_of(e, x, c.t(1)?, c.opt(2), from, c.float("epsilon", 1e-5), c.outputs())
}

/// `(x - mean) / sqrt(var + eps) · scale + bias` over the axes from `from` on; with the mean
/// and 1 / standard deviation as the second and third of `outputs` values.
pub(super) fn layer_norm_of(
    e: &mut Engine,
    x: TensorId,
    scale: TensorId,
    bias: Option<TensorId>,
    from: usize,
    eps: f64,
    outputs: usize,
) -> Result<Vec<TensorId>> {
    let axes: Vec<i64> = (from as i64..rank(e, x)? as i64).collect();
    let (mean, var) = e.moments(x, Some(&axes), true)?;
    let centred = e.sub(x, mean)?;
    let eps = e.scalar(eps)?;
    let v = e.add(var, eps)?;
    let inv = e.unary(UnaryOp::Rsqrt, v)?;
    let mut y = e.mul(centred, inv)?;
    y = e.mul(y, scale)?;
    if let Some(b) = bias {
        y = e.add(y, b)?;
    }
    Ok([y, mean, inv].into_iter().take(outputs.clamp(1, 3)).collect())
}

/// `x / sqrt(mean(x²) + eps) · scale` over the axes from `from` on (RMSNormalization).
pub(super) fn rms_norm(e: &mut Engine, x: TensorId, scale: TensorId, from: usize, eps: f64) -> Result<TensorId> {
    let axes: Vec<i64> = (from as i64..rank(e, x)? as i64).collect();
    let sq = e.mul(x, x)?;
    let ms = e.reduce(ReduceOp::Mean, sq, Some(&axes), true)?;
    let eps = e.scalar(eps)?;
    let v = e.add(ms, eps)?;
    let inv = e.unary(UnaryOp::Rsqrt, v)?;
    let y = e.mul(x, inv)?;
    e.mul(y, scale)
}

/// InstanceNormalization (per channel), GroupNormalization (per group of channels) and
/// MeanVarianceNormalization (over `axes`), each (x - mean) / sqrt(var + eps).
pub(super) fn normalization(e: &mut Engine, c: &Ctx, op: &str) -> Result<TensorId> {
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

/// The negative log-likelihood of `input` ([N, C, d...]) at the target classes (input 1,
/// [N, d...]), weighted per class (input 2) and reduced ("none", "sum", "mean": over the
/// weights of the targets counted); targets equal to ignore_index count for nothing.
pub(super) fn nll_loss(e: &mut Engine, c: &Ctx, input: TensorId) -> Result<TensorId> {
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
