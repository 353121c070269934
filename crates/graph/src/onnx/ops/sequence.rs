//! Sequence models: LSTM, GRU and RNN step by step, Attention and RotaryEmbedding.

use super::*;

/// An activation of the recurrent ops, by ONNX's name, with its alpha and beta.
pub(super) fn rnn_activation(
    e: &mut Engine,
    name: &str,
    x: TensorId,
    alpha: Option<f64>,
    beta: Option<f64>,
) -> Result<TensorId> {
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
pub(super) fn recurrent(e: &mut Engine, c: &Ctx, op: &str) -> Result<Vec<TensorId>> {
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

/// A [q, kv] (or [batch, 1, q, kv] with per-batch offsets) additive bias of 0 where `allowed`
/// and -inf elsewhere, built on the host.
pub(super) fn host_bias(
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
pub(super) fn attention(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
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

/// RotaryEmbedding (opset 23): the first `rotary_embedding_dim` features of each head turned by
/// the cached angles (looked up by position ids where given), halves or interleaved pairs.
pub(super) fn rotary_embedding(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
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
