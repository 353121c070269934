//! Convolutions and pools: ONNX's NCHW data (or NHWC where the loader's layout pass gave
//! it) and `[out, in / group, k...]` filters over the core's channels-last kernels.

use super::*;

/// ONNX's window padding (`auto_pad`, `pads`) over spatial sizes `input`, as the core's
/// explicit padding of a channels-last tensor.
pub(super) fn window_padding(
    c: &Ctx,
    input: &[usize],
    kernel: &[usize],
    strides: &[i64],
    dilations: &[i64],
) -> Result<Padding> {
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

pub(super) fn conv(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    conv_of(e, c, c.t(0)?, c.t(1)?, c.opt(2))
}

/// The convolution node `c` describes, of `x` by `w` plus `bias` (the integer convolutions
/// give these centred).
pub(super) fn conv_of(e: &mut Engine, c: &Ctx, x: TensorId, w: TensorId, bias: Option<TensorId>) -> Result<TensorId> {
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
    let fused = plain && (activation.is_some() || bias.is_some());
    let mut y = if fused {
        let act = Activation::parse(activation.unwrap_or("linear"), c.float("_alpha", 0.2))?;
        let f = Fused { bias, activation: act, alpha: None };
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
    if let Some(b) = bias.filter(|_| !fused) {
        y = e.add(y, b)?;
    }
    if let Some(act) = activation.filter(|_| !fused) {
        y = e.activate(y, act, None, c.float("_alpha", 0.2))?;
    }
    windowed_result(e, y, n == 1, nhwc)
}

/// A windowed op's channels-last result as the node gives it: a 1-D op's height of 1 (it ran as
/// 2-D) dropped, and back to NCHW unless the layout pass keeps it NHWC.
fn windowed_result(e: &mut Engine, y: TensorId, one_d: bool, nhwc: bool) -> Result<TensorId> {
    let y = if one_d { e.squeeze(y, Some(&[1]))? } else { y };
    if nhwc {
        Ok(y)
    } else {
        to_channels_first(e, y)
    }
}

/// The NCHW shape of a tensor held NHWC (`nhwc`), or the shape as it is.
pub(super) fn nchw_shape(s: &[usize], nhwc: bool) -> Vec<usize> {
    if nhwc && s.len() >= 3 {
        [s[0], s[s.len() - 1]].into_iter().chain(s[1..s.len() - 1].iter().copied()).collect()
    } else {
        s.to_vec()
    }
}

pub(super) fn pool(e: &mut Engine, c: &Ctx, max: bool) -> Result<TensorId> {
    pool_of(e, c, c.t(0)?, max, c.int("count_include_pad", 0) != 0)
}

/// LpPool: (Σ |x|^p)^(1/p) over each window, the padding zeros: an average counting the
/// padding, times the window's size.
pub(super) fn lp_pool(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = c.t(0)?;
    let p = c.float("p", 2.0);
    if !(p.is_finite() && p > 0.0) {
        bail!("ONNX node '{}': LpPool's p must be positive, not {p}", c.node.name);
    }
    if c.int("ceil_mode", 0) != 0 {
        bail!("ONNX node '{}': LpPool's ceil_mode is not supported yet", c.node.name);
    }
    let size: f64 = c.int_list("kernel_shape").unwrap_or_default().iter().map(|&k| k.max(1) as f64).product();
    let xp = if p == 2.0 {
        e.mul(x, x)?
    } else {
        let ax = e.unary(UnaryOp::Abs, x)?;
        if p == 1.0 {
            ax
        } else {
            let pt = e.scalar(p)?;
            e.binary(BinaryOp::Pow, ax, pt)?
        }
    };
    let mean = pool_of(e, c, xp, false, true)?;
    let k = e.scalar(size)?;
    let sum = e.mul(mean, k)?;
    if p == 1.0 {
        Ok(sum)
    } else if p == 2.0 {
        e.unary(UnaryOp::Sqrt, sum)
    } else {
        let inv = e.scalar(1.0 / p)?;
        e.binary(BinaryOp::Pow, sum, inv)
    }
}

/// A max or average pool of `x` as node `c` sets it (`include_pad`: an average's padding
/// counts, as zeros).
fn pool_of(e: &mut Engine, c: &Ctx, x: TensorId, max: bool, include_pad: bool) -> Result<TensorId> {
    let nhwc = c.nhwc();
    let xs = nchw_shape(e.shape(x)?, nhwc);
    if !(3..=5).contains(&xs.len()) {
        bail!("ONNX node '{}': pools run over 1-D, 2-D and 3-D data (rank 3 to 5), not rank {}", c.node.name, xs.len());
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
    let Padding::Explicit(pairs) = &pad else { unreachable!("window_padding is explicit") };
    // ceil_mode: the windows that would overhang the padded input's end (starting inside it)
    // run over an extension past the end that never counts.
    let mut extension = vec![[0.0, 0.0]; n + 2];
    if c.int("ceil_mode", 0) != 0 {
        for i in 0..n {
            let (size, [before, after]) = (xs[2 + i] as i64, pairs[i + 1].map(|p| p as i64));
            let (s, span) = (strides[i].max(1), (kernel[i] as i64 - 1) * dilations[i].max(1) + 1);
            let reach = size + before + after - span;
            if reach < 0 {
                continue;
            }
            let mut out = (reach + s - 1) / s + 1;
            if (out - 1) * s >= size + before {
                out -= 1;
            }
            extension[i + 1][1] = ((out - 1) * s + span - (size + before + after)).max(0) as f64;
        }
    }
    let extended = extension.iter().any(|p| p[1] > 0.0);
    let pairs = pairs.clone();
    let mut xl = if nhwc { x } else { to_channels_last(e, x)? };
    let padded = pairs.iter().any(|p| p != &[0.0, 0.0]);
    // Where the padding counts, or there is an extension (or for the core's 3-D pools, which
    // take no padding), the input is padded first: with zeros for an average, -inf for a max.
    let mut counts = None;
    if extended || (padded && (n == 3 || (!max && include_pad))) {
        if !max && (!include_pad || extended) {
            // An average over what counts: the padded sums over the padded count of ones.
            let shape = e.shape(xl)?.to_vec();
            let ones = e.fill(&shape, 1.0, DType::Float32)?;
            let counted = e.pad(ones, &pairs, if include_pad { 1.0 } else { 0.0 })?;
            counts = Some(e.pad(counted, &extension, 0.0)?);
        }
        let fill = if max { f64::NEG_INFINITY } else { 0.0 };
        let inner = e.pad(xl, &pairs, fill)?;
        xl = e.pad(inner, &extension, fill)?;
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
    windowed_result(e, y, n == 1, nhwc)
}

/// ConvTranspose (2-D; 1-D as 2-D): tfjs's conv2dTranspose without padding, then the pads
/// cropped and the output padding added, per group.
pub(super) fn conv_transpose(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
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
    windowed_result(e, y, n == 1, false)
}
