//! Signal processing: the window functions, DFT, STFT and MelWeightMatrix. ONNX holds complex
//! values as a trailing axis of 2 (real, imaginary), or 1 for a real signal; a transform is a
//! matmul with a cos/sin matrix built on the host, so any length runs, not only powers of two.

use super::*;
use tidytensor_core::HostData;

/// The largest transform matrix built (elements): 256 MiB of float32.
const MAX_MATRIX: usize = 1 << 26;

/// What a transform computes along its axis.
#[derive(Clone, Copy, PartialEq)]
enum Transform {
    /// X[k] = Σ x[t] e^(-2πi kt / n), the first `n / 2 + 1` bins where one-sided.
    Forward { onesided: bool },
    /// x[t] = Σ X[k] e^(2πi kt / n) / n.
    Inverse,
    /// The real signal of a one-sided (Hermitian) spectrum, numpy's irfft: `[..., n, 1]`.
    InverseReal,
}

/// An ONNX output type attribute (`output_datatype`) as a dtype.
fn output_dtype(c: &Ctx) -> Result<DType> {
    let to = c.int("output_datatype", 1) as i32;
    match super::super::tensor::dtype_of(to) {
        Some(d) => Ok(d),
        None => bail!(
            "ONNX node '{}' outputs {}, which tidytensor does not support",
            c.node.name,
            super::super::tensor::type_name(to)
        ),
    }
}

/// Host values as a tensor of `dtype` (computed as float32, then cast as ONNX's astype does).
fn host_tensor(e: &mut Engine, v: Vec<f64>, shape: &[usize], dtype: DType) -> Result<TensorId> {
    let t = e.tensor(HostData::F32(v.into_iter().map(|x| x as f32).collect()), shape)?;
    if dtype == DType::Float32 {
        Ok(t)
    } else {
        e.cast(t, dtype)
    }
}

/// A scalar input as a non-negative count, or an error naming the node.
fn count(e: &Engine, c: &Ctx, i: isize, what: &str) -> Result<usize> {
    let v = c.num(e, i)?;
    if !(v.is_finite() && v >= 0.0 && v.fract() == 0.0) {
        bail!("ONNX node '{}': {what} must be a non-negative integer, not {v}", c.node.name);
    }
    Ok(v as usize)
}

/// HannWindow, HammingWindow and BlackmanWindow: cosine sums over `size` points, periodic
/// (the period is the size) or symmetric (size - 1), as ONNX's reference computes them.
pub(super) fn window(e: &mut Engine, c: &Ctx, op: &str) -> Result<TensorId> {
    let size = count(e, c, 0, &format!("{op}'s size"))?;
    let period = if c.int("periodic", 1) != 0 { size as f64 } else { size as f64 - 1.0 };
    let tau = 2.0 * std::f64::consts::PI;
    let v: Vec<f64> = (0..size)
        .map(|i| {
            let x = i as f64 / period;
            match op {
                "HannWindow" => (std::f64::consts::PI * x).sin().powi(2),
                "HammingWindow" => 25.0 / 46.0 - (21.0 / 46.0) * (tau * x).cos(),
                _ => 0.42 - 0.5 * (tau * x).cos() + 0.08 * (2.0 * tau * x).cos(),
            }
        })
        .collect();
    let dtype = output_dtype(c)?;
    host_tensor(e, v, &[size], dtype)
}

/// The transform of `x` (`[..., C]`, C 1 for real or 2 for complex) along axis `ax` as
/// length `n`: the axis is cropped (or, implicitly, zero-padded) to what the transform reads,
/// and the rest is one matmul of `[rows · C]` by `[bins · parts]`, whose columns interleave
/// the real and imaginary parts as ONNX's trailing axis does.
fn transform(e: &mut Engine, c: &Ctx, x: TensorId, ax: usize, n: usize, kind: Transform) -> Result<TensorId> {
    let shape = e.shape(x)?.to_vec();
    let r = shape.len();
    let ch = shape.last().copied().unwrap_or(0);
    if r < 2 || !(1..=2).contains(&ch) {
        bail!(
            "ONNX node '{}': the signal must be [..., N, 1] (real) or [..., N, 2] (complex), not {:?}",
            c.node.name,
            shape
        );
    }
    if ax >= r - 1 {
        bail!("ONNX node '{}': the transform's axis {ax} is the complex axis of {:?}", c.node.name, shape);
    }
    if n == 0 {
        bail!("ONNX node '{}': the transform's length must be positive", c.node.name);
    }
    // What the transform reads of the axis, and what it writes.
    let (reads, bins, parts) = match kind {
        Transform::Forward { onesided: true } => (n, n / 2 + 1, 2),
        Transform::Forward { onesided: false } | Transform::Inverse => (n, n, 2),
        Transform::InverseReal => (n / 2 + 1, n, 1),
    };
    let used = shape[ax].min(reads);
    if used * ch * bins * parts > MAX_MATRIX {
        bail!(
            "ONNX node '{}': a transform of length {n} over {:?} is not supported yet (too large for its matrix)",
            c.node.name,
            shape
        );
    }
    // [others..., N, C], the axis cropped to what is read.
    let mut perm: Vec<i64> = (0..r as i64 - 1).filter(|&a| a != ax as i64).collect();
    perm.extend([ax as i64, r as i64 - 1]);
    let moved = ax != r - 2;
    let mut y = if moved { e.transpose(x, Some(&perm))? } else { x };
    let others: Vec<usize> = perm[..r - 2].iter().map(|&a| shape[a as usize]).collect();
    if shape[ax] > used {
        let begin = vec![0i64; r];
        let size: Vec<i64> = others.iter().map(|&d| d as i64).chain([used as i64, ch as i64]).collect();
        y = e.slice(y, &begin, &size)?;
    }
    let m: usize = others.iter().product();
    let out: Vec<i64> = others.iter().map(|&d| d as i64).chain([bins as i64, parts as i64]).collect();
    if m == 0 || used == 0 {
        // Nothing to sum: zeros (an empty signal) or an empty batch.
        let zeros: Vec<usize> = out.iter().map(|&d| d as usize).collect();
        let z = e.fill(&zeros, 0.0, DType::Float32)?;
        return if moved { e.transpose(z, Some(&inverse(&perm))) } else { Ok(z) };
    }
    y = e.reshape(y, &[m as i64, (used * ch) as i64])?;
    // W[(t, c), (k, o)] over θ = 2π (tk mod n) / n.
    let mut w = vec![0.0f64; used * ch * bins * parts];
    let cols = bins * parts;
    for t in 0..used {
        for k in 0..bins {
            let theta = 2.0 * std::f64::consts::PI * ((t * k) % n) as f64 / n as f64;
            let (cos, sin) = (theta.cos(), theta.sin());
            // [re → re, im → re, re → im, im → im]
            let cell = match kind {
                Transform::Forward { .. } => [cos, sin, -sin, cos],
                Transform::Inverse => [cos / n as f64, -sin / n as f64, sin / n as f64, cos / n as f64],
                Transform::InverseReal => {
                    // Bins 1.. stand for their conjugates too, except n / 2 of an even length.
                    let twice = if t == 0 || 2 * t == n { 1.0 } else { 2.0 };
                    let s = twice / n as f64;
                    [cos * s, -sin * s, 0.0, 0.0]
                }
            };
            for ci in 0..ch {
                for o in 0..parts {
                    w[(t * ch + ci) * cols + k * parts + o] = cell[o * 2 + ci];
                }
            }
        }
    }
    let wt = e.tensor(HostData::F32(w.into_iter().map(|v| v as f32).collect()), &[used * ch, cols])?;
    y = e.matmul(y, wt, false, false)?;
    y = e.reshape(y, &out)?;
    if moved {
        y = e.transpose(y, Some(&inverse(&perm)))?;
    }
    Ok(y)
}

/// The permutation that undoes `perm`.
fn inverse(perm: &[i64]) -> Vec<i64> {
    let mut back = vec![0i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        back[p as usize] = i as i64;
    }
    back
}

/// DFT: the axis is an attribute (default 1) before opset 20, then input 2 (default -2);
/// `dft_length` (input 1) crops or zero-pads the axis. An inverse one-sided transform is
/// numpy's irfft (a real output), as ONNX's reference runs it.
pub(super) fn dft(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = c.t(0)?;
    let shape = e.shape(x)?.to_vec();
    let a = if c.opset() >= 20 {
        match c.opt(2) {
            Some(t) => ints(&e.read_f64(t)?, "DFT's axis")?.first().copied().unwrap_or(-2),
            None => -2,
        }
    } else {
        c.int("axis", 1)
    };
    let ax = axis(a, shape.len(), &format!("ONNX node '{}': DFT", c.node.name))?;
    let (inverse, onesided) = (c.int("inverse", 0) != 0, c.int("onesided", 0) != 0);
    let n = match c.opt(1) {
        Some(_) => count(e, c, 1, "DFT's dft_length")?,
        None if inverse && onesided => 2 * shape[ax].saturating_sub(1),
        None => shape[ax],
    };
    let kind = match (inverse, onesided) {
        (false, _) => Transform::Forward { onesided },
        (true, false) => Transform::Inverse,
        (true, true) => Transform::InverseReal,
    };
    transform(e, c, x, ax, n, kind)
}

/// STFT: frames of `frame_length` every `frame_step` samples of `[batch, N, C]`, each
/// weighted by the window and transformed: `[batch, frames, bins, 2]`.
pub(super) fn stft(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = c.t(0)?;
    let shape = e.shape(x)?.to_vec();
    if shape.len() != 3 {
        bail!("ONNX node '{}': STFT's signal must be [batch, length, 1 or 2], not {:?}", c.node.name, shape);
    }
    let step = count(e, c, 1, "STFT's frame_step")?;
    let window = c.opt(2);
    let wlen = match window {
        Some(w) => {
            let ws = e.shape(w)?.to_vec();
            if ws.len() != 1 {
                bail!("ONNX node '{}': STFT's window must be rank 1, not {:?}", c.node.name, ws);
            }
            Some(ws[0])
        }
        None => None,
    };
    let len = match c.opt(3) {
        Some(_) => count(e, c, 3, "STFT's frame_length")?,
        None => wlen.unwrap_or(shape[1]),
    };
    if wlen.is_some_and(|w| w != len) {
        bail!("ONNX node '{}': STFT's window has {} values for frames of {len}", c.node.name, wlen.unwrap_or(0));
    }
    if step == 0 || len == 0 || len > shape[1] {
        bail!(
            "ONNX node '{}': STFT needs a positive frame_step and a frame_length from 1 to the signal's {} (got {step} and {len})",
            c.node.name,
            shape[1]
        );
    }
    let frames = 1 + (shape[1] - len) / step;
    let idx: Vec<i32> = (0..frames).flat_map(|f| (0..len).map(move |t| (f * step + t) as i32)).collect();
    let idx = e.tensor(HostData::I32(idx), &[frames, len])?;
    // [batch, frames, len, C]
    let mut y = e.gather(x, idx, 1, 0)?;
    if let Some(w) = window {
        let w = e.reshape(w, &[len as i64, 1])?;
        y = e.mul(y, w)?;
    }
    transform(e, c, y, 2, len, Transform::Forward { onesided: c.int("onesided", 1) != 0 })
}

/// MelWeightMatrix: `[dft_length / 2 + 1, num_mel_bins]` triangles between mel-spaced bins,
/// as ONNX's reference computes them (its integer bin positions included).
pub(super) fn mel_weight_matrix(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let mels = count(e, c, 0, "MelWeightMatrix's num_mel_bins")?;
    let dft_length = count(e, c, 1, "MelWeightMatrix's dft_length")?;
    let rate = c.num(e, 2)?;
    let (lower, upper) = (c.num(e, 3)?, c.num(e, 4)?);
    if !(rate > 0.0) {
        bail!("ONNX node '{}': MelWeightMatrix's sample_rate must be positive, not {rate}", c.node.name);
    }
    let spectrum = dft_length / 2 + 1;
    let mel = |hz: f64| 2595.0 * (hz / 700.0).ln_1p() / 10f64.ln();
    let (low, high) = (mel(lower), mel(upper));
    let step = (high - low) / (mels + 2) as f64;
    let bins: Vec<i64> = (0..mels + 2)
        .map(|i| {
            let hz = 700.0 * ((i as f64 * step + low) / 2595.0 * 10f64.ln()).exp_m1();
            (((dft_length + 1) as f64 * hz) / rate).floor() as i64
        })
        .collect();
    let mut out = vec![0.0f64; spectrum * mels];
    let mut set = |j: i64, i: usize, v: f64| -> Result<()> {
        match usize::try_from(j).ok().filter(|&j| j < spectrum) {
            Some(j) => {
                out[j * mels + i] = v;
                Ok(())
            }
            None => bail!("ONNX node '{}': MelWeightMatrix's bin {j} is outside its {spectrum} bins", c.node.name),
        }
    };
    for i in 0..mels {
        let (lo, center, hi) = (bins[i], bins[i + 1], bins[i + 2]);
        if center == lo {
            set(center, i, 1.0)?;
        } else {
            for j in lo..=center {
                set(j, i, (j - lo) as f64 / (center - lo) as f64)?;
            }
        }
        for j in center..hi {
            set(j, i, (hi - j) as f64 / (hi - center) as f64)?;
        }
    }
    let dtype = output_dtype(c)?;
    host_tensor(e, out, &[spectrum, mels], dtype)
}
