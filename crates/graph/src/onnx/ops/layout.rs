//! Data movement: Pad, Resize, the element gathers and scatters, and NonMaxSuppression's
//! selection, each computing its positions on the host where ONNX's rules need them.

use super::*;

/// Pad: constant, reflect, edge and wrap modes; negative pads crop. Opset 11 on, the pads,
/// the value and (18 on) the axes are inputs; before, attributes.
pub(super) fn pad(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
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
pub(super) fn resize(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
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
pub(super) fn element_positions(
    c: &Ctx,
    shape: &[usize],
    idx_shape: &[usize],
    idx: &[f64],
    ax: usize,
) -> Result<Vec<i32>> {
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

pub(super) fn gather_elements(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let (x, idx) = (c.t(0)?, c.t(1)?);
    let shape = e.shape(x)?.to_vec();
    let idx_shape = e.shape(idx)?.to_vec();
    if idx_shape.len() != shape.len() {
        bail!("ONNX node '{}': GatherElements' indices must have the data's rank", c.node.name);
    }
    let ax = axis(c.int("axis", 0), shape.len(), "GatherElements")?;
    let pos = element_positions(c, &shape, &idx_shape, &e.read_f64(idx)?, ax)?;
    gather_flat(e, x, pos, &idx_shape)
}

/// The elements of `x` at flat positions `pos`, as a tensor of `shape`: one gather.
fn gather_flat(e: &mut Engine, x: TensorId, pos: Vec<i32>, shape: &[usize]) -> Result<TensorId> {
    let n = pos.len();
    let pos = e.tensor(tidytensor_core::HostData::I32(pos), &[n])?;
    let flat = e.reshape(x, &[-1])?;
    let g = e.gather(flat, pos, 0, 0)?;
    let out: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    e.reshape(g, &out)
}

pub(super) fn scatter_elements(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
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
        reduction => {
            let positions: Vec<usize> = e.read_f64(pos)?.iter().map(|&p| p as usize).collect();
            scatter_reduce(e, c, flat, &positions, updates, reduction)?
        }
    };
    let back: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    e.reshape(y, &back)
}

/// `x` with each update in turn combined into the element at its flat position (`positions`,
/// one per update, in bounds) by `reduction` (mul, max or min), on the host: repeated positions
/// combine every update, as ONNX's scatters with a reduction do.
pub(super) fn scatter_reduce(
    e: &mut Engine,
    c: &Ctx,
    x: TensorId,
    positions: &[usize],
    updates: TensorId,
    reduction: &str,
) -> Result<TensorId> {
    let combine: fn(f64, f64) -> f64 = match reduction {
        "mul" => |a, b| a * b,
        "max" => f64::max,
        "min" => f64::min,
        other => bail!("ONNX node '{}': the reduction '{other}' is not one of ONNX's", c.node.name),
    };
    let (shape, dtype) = (e.shape(x)?.to_vec(), e.dtype(x)?);
    let mut v = e.read_f64(x)?;
    let u = e.read_f64(updates)?;
    if u.len() != positions.len() || positions.iter().any(|&p| p >= v.len()) {
        bail!("ONNX node '{}': {} updates for {} positions in {shape:?}", c.node.name, u.len(), positions.len());
    }
    for (&p, &w) in positions.iter().zip(&u) {
        v[p] = combine(v[p], w);
    }
    let data = match dtype {
        DType::Int32 => tidytensor_core::HostData::I32(v.iter().map(|&a| a as i32).collect()),
        _ => tidytensor_core::HostData::F32(v.iter().map(|&a| a as f32).collect()),
    };
    let y = e.tensor(data, &shape)?;
    if dtype == DType::Int32 || dtype == DType::Float32 {
        Ok(y)
    } else {
        e.cast(y, dtype)
    }
}

/// ReverseSequence: along `time_axis`, each batch item's first `sequence_lens[i]` steps reversed
/// (the rest as they are), by one gather of the flat input.
pub(super) fn reverse_sequence(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let (x, lens) = (c.t(0)?, c.t(1)?);
    let shape = e.shape(x)?.to_vec();
    if shape.len() < 2 {
        bail!("ONNX node '{}': ReverseSequence needs an input of rank 2 or more, not {shape:?}", c.node.name);
    }
    let time = axis(c.int("time_axis", 0), shape.len(), &c.node.name)?;
    let batch = axis(c.int("batch_axis", 1), shape.len(), &c.node.name)?;
    let lens = e.read_f64(lens)?;
    if time == batch || lens.len() != shape[batch] {
        bail!(
            "ONNX node '{}': time axis {time}, batch axis {batch} and {} sequence lengths do not fit {shape:?}",
            c.node.name,
            lens.len()
        );
    }
    let strides = tidytensor_core::shape::strides(&shape);
    let n: usize = shape.iter().product();
    let mut source = Vec::with_capacity(n);
    let mut at = vec![0usize; shape.len()];
    for flat in 0..n {
        let (t, len) = (at[time], lens[at[batch]].clamp(0.0, shape[time] as f64) as usize);
        source.push(if t < len { flat + (len - 1 - t) * strides[time] - t * strides[time] } else { flat } as i32);
        for d in (0..shape.len()).rev() {
            at[d] += 1;
            if at[d] < shape[d] {
                break;
            }
            at[d] = 0;
        }
    }
    gather_flat(e, x, source, &shape)
}

/// NonMaxSuppression: per batch and class, the core's (tfjs's) selection; the rows
/// [batch, class, box] of every box kept, in that order.
pub(super) fn non_max_suppression(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
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

/// CenterCropPad: each listed axis (`axes`, all by default) cropped or zero-padded to its
/// size in `shape`, centred: a crop starts half the excess in, rounded down; a pad puts the
/// odd zero after.
pub(super) fn center_crop_pad(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let x = c.t(0)?;
    let shape = e.shape(x)?.to_vec();
    let r = shape.len();
    let want = ints(&c.nums(e, 1)?, "CenterCropPad's shape")?;
    let axes: Vec<usize> = match c.int_list("axes") {
        Some(a) => a.iter().map(|&v| axis(v, r, "CenterCropPad")).collect::<Result<_>>()?,
        None => (0..r).collect(),
    };
    if want.len() != axes.len() {
        bail!("ONNX node '{}': CenterCropPad has {} sizes for {} axes", c.node.name, want.len(), axes.len());
    }
    let mut begin = vec![0i64; r];
    let mut size: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let mut grow = vec![[0.0f64, 0.0]; r];
    for (&a, &w) in axes.iter().zip(&want) {
        let d = shape[a] as i64;
        if w < 0 {
            bail!("ONNX node '{}': CenterCropPad's size {w} for axis {a} is negative", c.node.name);
        }
        if w < d {
            begin[a] = (d - w) / 2;
            size[a] = w;
        } else if w > d {
            let extra = w - d;
            grow[a] = [(extra / 2) as f64, (extra - extra / 2) as f64];
        }
    }
    let cropped = size.iter().zip(&shape).any(|(&s, &d)| s != d as i64);
    let y = if cropped { e.slice(x, &begin, &size)? } else { x };
    if grow.iter().any(|g| g != &[0.0, 0.0]) {
        e.pad(y, &grow, 0.0)
    } else if cropped {
        Ok(y)
    } else {
        e.clone_tensor(y)
    }
}
