//! The ops tfjs composes of other ops, composed the same way of the core's front-ends, with
//! tfjs's argument checks and texts: each is still the Rust twin of its `lib/ops/*.js`
//! function (named in its doc) until it moves into `crates/core` (as clipByValue, leakyRelu,
//! addN, logSoftmax and moments have), where tf.* and the graph executor share it. They run
//! inside the node's scope, so their intermediates are freed.

use crate::ops::js_list;
use tidytensor_core::ops::{ConvKind, Padding, Window};
use tidytensor_core::{bail, BinaryOp, DType, Engine, HostData, ReduceOp, Result, TensorId, UnaryOp};

fn is_int(v: f64) -> bool {
    v.fract() == 0.0 && v.abs() < 9007199254740992.0
}

fn dims_of(e: &Engine, x: TensorId) -> Result<Vec<usize>> {
    Ok(e.shape(x)?.to_vec())
}

fn i64s(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&d| d as i64).collect()
}

/// A scalar of `dtype` (tfjs's `scalar(v, dtype)`).
pub fn scalar(e: &mut Engine, v: f64, dtype: DType) -> Result<TensorId> {
    e.tensor(HostData::from_f64(dtype, [v]), &[])
}

/// An int32 vector.
pub fn int_vector(e: &mut Engine, v: &[i64]) -> Result<TensorId> {
    e.tensor(HostData::I32(v.iter().map(|&x| x as i32).collect()), &[v.len()])
}

/// tfjs's `applyActivation` (fused ops).
pub fn activate(
    e: &mut Engine,
    y: TensorId,
    activation: &str,
    prelu: Option<TensorId>,
    leaky_alpha: f64,
) -> Result<TensorId> {
    match activation {
        "linear" => Ok(y),
        "relu" => e.unary(UnaryOp::Relu, y),
        "elu" => e.unary(UnaryOp::Elu, y),
        "relu6" => e.unary(UnaryOp::Relu6, y),
        "prelu" => match prelu {
            Some(a) => e.binary(BinaryOp::Prelu, y, a),
            None => bail!("Argument 'alpha' passed to 'prelu' must be a Tensor or TensorLike, but got 'undefined'"),
        },
        "leakyrelu" => e.leaky_relu(y, leaky_alpha),
        "sigmoid" => e.unary(UnaryOp::Sigmoid, y),
        other => bail!("Unknown fused activation {other}."),
    }
}

/// The bias and activation of the fused ops (lib/ops/fused.js `finish`): channels-first data
/// takes a 1-D bias or PReLU weight per channel.
pub fn fused_finish(
    e: &mut Engine,
    y: TensorId,
    bias: Option<TensorId>,
    activation: &str,
    prelu: Option<TensorId>,
    leaky_alpha: f64,
    nchw: bool,
) -> Result<TensorId> {
    let per_channel = |e: &mut Engine, t: TensorId| -> Result<TensorId> {
        let s = dims_of(e, t)?;
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
    activate(e, out, activation, alpha, leaky_alpha)
}

/// `conv1d` (lib/ops/conv.js): a conv2d over height 1.
pub fn conv1d(
    e: &mut Engine,
    x: TensorId,
    filter: TensorId,
    stride: f64,
    pad: &Padding,
    data_format: &str,
    dilation: f64,
) -> Result<TensorId> {
    let (xs, fs) = (dims_of(e, x)?, dims_of(e, filter)?);
    let x3 = if xs.len() == 2 { [&[1], &xs[..]].concat() } else { xs.clone() };
    if x3.len() != 3 {
        bail!("Error in conv1d: input must be rank 3, but got rank {}.", x3.len());
    }
    if fs.len() != 3 {
        bail!("Error in conv1d: filter must be rank 3, but got rank {}.", fs.len());
    }
    if x3[2] != fs[1] {
        bail!("Error in conv1d: depth of input ({}) must match input depth for filter {}.", x3[2], fs[1]);
    }
    if stride != 1.0 && dilation != 1.0 {
        let js = tidytensor_core::random::js_number_string;
        bail!(
            "Error in conv1D: Either stride or dilation must be 1. Got stride {} and dilation '{}'",
            js(stride),
            js(dilation)
        );
    }
    if !(dilation > 0.0) {
        bail!("Error in conv1D: Dilated rates should be larger than 0.");
    }
    if !(stride > 0.0) {
        bail!("Error in conv1D: Stride should be larger than 0.");
    }
    if data_format != "NWC" {
        bail!("Error in conv1d: got dataFormat of {data_format} but only NWC is currently supported.");
    }
    let f4 = e.reshape(filter, &i64s(&[&[1], &fs[..]].concat()))?;
    let x4 = e.reshape(x, &[x3[0] as i64, 1, x3[1] as i64, x3[2] as i64])?;
    let w = Window { strides: &[1.0, stride], dilations: &[1.0, dilation], pad, rounding: None };
    let y = e.conv(ConvKind::Conv2d, x4, f4, &w, false)?;
    let ys = dims_of(e, y)?;
    if xs.len() == 2 {
        e.reshape(y, &[ys[2] as i64, ys[3] as i64])
    } else {
        e.reshape(y, &[ys[0] as i64, ys[2] as i64, ys[3] as i64])
    }
}

/// `slice` with tfjs's `parseSliceParams` (lib/ops/layout.js): begin and size may be shorter
/// than the rank; a size of -1 runs to the end.
pub fn slice(e: &mut Engine, x: TensorId, begin: &[f64], size: &[f64]) -> Result<TensorId> {
    let rank = e.shape(x)?.len();
    if rank == 0 {
        bail!("Slicing scalar is not possible");
    }
    let mut b: Vec<f64> = (0..rank).map(|i| begin.get(i).copied().unwrap_or(0.0)).collect();
    b.extend(begin.iter().skip(rank));
    for (i, &v) in b.iter().enumerate() {
        if v == -1.0 {
            bail!("slice() does not support negative begin indexing.");
        }
        if !is_int(v) {
            bail!("Error in slice{rank}D: begin[{i}] must be an integer but got {}", js_list(&[v]));
        }
    }
    let mut s = size.to_vec();
    if s.len() < rank {
        s.resize(rank, -1.0);
    }
    for (i, &v) in s.iter().enumerate() {
        if !(v >= 0.0) && v != -1.0 {
            bail!(
                "Negative size values should be exactly -1 but got {} for the slice() size at index {i}.",
                js_list(&[v])
            );
        }
        if !is_int(v) {
            bail!("Tensor must have a shape comprised of positive integers but got shape [{}].", js_list(&s));
        }
    }
    let b: Vec<i64> = b.iter().map(|&v| v as i64).collect();
    let s: Vec<i64> = s.iter().map(|&v| v as i64).collect();
    e.slice(x, &b, &s)
}

/// `stridedSlice` (lib/ops/layout.js, after tfjs's `slice_util`): the sparse spec (ellipsis,
/// new and shrunk axes) made dense over the input's dimensions, then a slice (stride 1) or a
/// gather per dimension, and the final reshape.
#[allow(clippy::too_many_arguments)]
pub fn strided_slice(
    e: &mut Engine,
    x: TensorId,
    begin: &[f64],
    end: &[f64],
    strides: Option<&[f64]>,
    begin_mask: i32,
    end_mask: i32,
    ellipsis_mask: i32,
    new_axis_mask: i32,
    shrink_axis_mask: i32,
) -> Result<TensorId> {
    const NEW_AXIS: i64 = -2;
    const SHRINK_AXIS: i64 = -1;
    let bit = |i: usize| 1i32.wrapping_shl(i as u32);
    let shape = dims_of(e, x)?;
    let st: Vec<f64> = strides.map_or_else(|| vec![1.0; begin.len()], <[f64]>::to_vec);
    if ellipsis_mask != 0 && (ellipsis_mask & (ellipsis_mask.wrapping_sub(1))) != 0 {
        bail!("Multiple ellipses in slice is not allowed.");
    }
    // Step 1: the sparse spec, with an ellipsis at the end when there is none.
    let mut sparse_dims = st.len();
    let mut sparse_ellipsis = ellipsis_mask;
    let mut add_after_ellipsis = 0i64;
    let mut seen = false;
    for i in 0..sparse_dims {
        if seen && bit(i) & new_axis_mask != 0 {
            add_after_ellipsis += 1;
        }
        if bit(i) & ellipsis_mask != 0 {
            seen = true;
        }
    }
    if !seen {
        sparse_ellipsis |= bit(sparse_dims);
        sparse_dims += 1;
    }
    // Step 2: the dense spec, one entry per input dimension.
    let dims = shape.len();
    let (mut d_begin, mut d_end, mut d_strides) = (vec![f64::NAN; dims], vec![f64::NAN; dims], vec![f64::NAN; dims]);
    let (mut d_begin_mask, mut d_end_mask, mut d_shrink) = (0i32, 0i32, 0i32);
    let mut final_gather: Vec<i64> = Vec::new();
    let mut full = 0usize;
    for i in 0..sparse_dims {
        if bit(i) & sparse_ellipsis != 0 {
            let next = (dims as i64 - (sparse_dims as i64 - i as i64) + 1 + add_after_ellipsis).min(dims as i64);
            while (full as i64) < next {
                d_begin[full] = 0.0;
                d_end[full] = 0.0;
                d_strides[full] = 1.0;
                d_begin_mask |= bit(full);
                d_end_mask |= bit(full);
                final_gather.push(full as i64);
                full += 1;
            }
        } else if bit(i) & new_axis_mask != 0 {
            final_gather.push(NEW_AXIS);
        } else {
            if full == dims {
                bail!("Index out of range using input dim {full}; input has only {dims} dims, {dims}.");
            }
            d_begin[full] = begin.get(i).copied().unwrap_or(f64::NAN);
            d_end[full] = end.get(i).copied().unwrap_or(f64::NAN);
            d_strides[full] = st.get(i).copied().unwrap_or(f64::NAN);
            if begin_mask & bit(i) != 0 {
                d_begin_mask |= bit(full);
            }
            if end_mask & bit(i) != 0 {
                d_end_mask |= bit(full);
            }
            if shrink_axis_mask & bit(i) != 0 {
                final_gather.push(SHRINK_AXIS);
                d_shrink |= bit(full);
            } else {
                final_gather.push(full as i64);
            }
            full += 1;
        }
    }
    // Step 3: explicit ranges, bounds checks and lengths.
    let mut lengths = Vec::with_capacity(dims);
    for i in 0..dims {
        let s = d_strides[i];
        if s == 0.0 {
            bail!("strides[{i}] must be non-zero");
        }
        if !is_int(s) || !is_int(d_begin[i]) || !is_int(d_end[i]) {
            bail!(
                "stridedSlice: begin, end and strides must be integers, but got {}, {} and {} for dimension {i}",
                js_list(&[d_begin[i]]),
                js_list(&[d_end[i]]),
                js_list(&[s])
            );
        }
        let shrink = d_shrink & bit(i) != 0;
        let n = shape[i] as f64;
        if shrink && s <= 0.0 {
            bail!("only stride 1 allowed on non-range indexing.");
        }
        if shrink {
            let fwd = if d_begin[i] < 0.0 { n + d_begin[i] } else { d_begin[i] };
            d_begin[i] = fwd;
            d_end[i] = fwd + 1.0;
            if fwd < 0.0 || fwd >= n {
                bail!("slice index {} of dimension {i} out of bounds.", js_list(&[fwd]));
            }
        } else {
            let range = if s > 0.0 { [0.0, n] } else { [-1.0, n - 1.0] };
            let canonical = |v: f64, c: usize, masked: bool| -> f64 {
                if masked {
                    return if s > 0.0 { range[c] } else { range[(c + 1) & 1] };
                }
                let fwd = if v < 0.0 { n + v } else { v };
                fwd.clamp(range[0], range[1])
            };
            d_begin[i] = canonical(d_begin[i], 0, d_begin_mask & bit(i) != 0);
            d_end[i] = canonical(d_end[i], 1, d_end_mask & bit(i) != 0);
        }
        let interval = d_end[i] - d_begin[i];
        let len = if interval == 0.0 || (interval < 0.0) != (s < 0.0) {
            0.0
        } else {
            (interval / s).trunc() + if interval % s != 0.0 { 1.0 } else { 0.0 }
        };
        lengths.push(len as usize);
    }
    let mut final_shape = Vec::with_capacity(final_gather.len());
    for &g in &final_gather {
        if g >= 0 {
            final_shape.push(lengths[g as usize] as i64);
        } else if g == NEW_AXIS {
            final_shape.push(1);
        }
    }
    let mut y = x;
    for (i, &len) in lengths.iter().enumerate() {
        let (b, s) = (d_begin[i] as i64, d_strides[i] as i64);
        if s == 1 {
            if b == 0 && len == shape[i] {
                continue;
            }
            let rank = shape.len();
            let mut begin = vec![0i64; rank];
            let mut size = vec![-1i64; rank];
            begin[i] = b;
            size[i] = len as i64;
            y = e.slice(y, &begin, &size)?;
        } else {
            let idx: Vec<i64> = (0..len as i64).map(|k| b + k * s).collect();
            let idx = int_vector(e, &idx)?;
            y = e.gather(y, idx, i as i64, 0)?;
        }
    }
    e.reshape(y, &final_shape)
}

/// `tile` (lib/ops/layout.js): concatenations along each axis.
pub fn tile(e: &mut Engine, x: TensorId, reps: &[f64]) -> Result<TensorId> {
    let s = dims_of(e, x)?;
    if s.len() != reps.len() {
        bail!("Error in transpose: rank of input {} must match length of reps {}.", s.len(), js_list(reps));
    }
    if !reps.iter().all(|&r| is_int(r) && r >= 0.0) {
        bail!("tile: reps must be non-negative integers but got {}", js_list(reps));
    }
    let mut y = x;
    for (axis, &r) in reps.iter().enumerate() {
        let r = r as usize;
        if r == 1 {
            continue;
        }
        if r == 0 {
            let cur = dims_of(e, y)?;
            let size: Vec<i64> = cur.iter().enumerate().map(|(i, &d)| if i == axis { 0 } else { d as i64 }).collect();
            y = e.slice(y, &vec![0; cur.len()], &size)?;
        } else {
            y = e.concat(&vec![y; r], axis as i64)?;
        }
    }
    if y == x {
        y = e.clone_tensor(x)?;
    }
    Ok(y)
}

fn check_axes(axes: &[i64], rank: usize, shown: &str) -> Result<Vec<usize>> {
    let r = rank as i64;
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        if !(a >= -r && a < r) {
            bail!("All values in axis param must be in range [-{rank}, {rank}) but got axis {shown}");
        }
        let a = if a < 0 { a + r } else { a } as usize;
        if !out.contains(&a) {
            out.push(a);
        }
    }
    Ok(out)
}

/// `reverse` (lib/ops/layout.js): a gather of the reversed indices along each axis.
pub fn reverse(e: &mut Engine, x: TensorId, axes: Option<&[i64]>) -> Result<TensorId> {
    let s = dims_of(e, x)?;
    let all: Vec<i64> = (0..s.len() as i64).collect();
    let list = axes.unwrap_or(&all);
    let shown = list.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(",");
    let axes = check_axes(list, s.len(), &shown)?;
    let mut y = x;
    for a in axes {
        let n = s[a] as i64;
        if n > 1 {
            let idx: Vec<i64> = (0..n).rev().collect();
            let idx = int_vector(e, &idx)?;
            y = e.gather(y, idx, a as i64, 0)?;
        }
    }
    if y == x {
        y = e.clone_tensor(x)?;
    }
    Ok(y)
}

/// `[before, after]` pairs from a padding tensor's values (`[rank, 2]`).
pub fn pairs(v: &[f64]) -> Vec<[f64; 2]> {
    v.chunks(2).map(|c| [c[0], c.get(1).copied().unwrap_or(f64::NAN)]).collect()
}

/// `pad` (lib/ops/layout.js): constant slabs concatenated before and after.
pub fn pad(e: &mut Engine, x: TensorId, paddings: &[[f64; 2]], value: f64) -> Result<TensorId> {
    let rank = e.shape(x)?.len();
    if rank == 0 {
        bail!("pad(scalar) is not defined. Pass non-scalar to pad");
    }
    if paddings.len() != rank || !paddings.iter().flatten().all(|&v| is_int(v) && v >= 0.0) {
        let text: Vec<String> = paddings.iter().map(|p| format!("[{}]", js_list(p))).collect();
        bail!(
            "pad: paddings must be [before, after] pairs of non-negative integers, one per dimension ({rank}), but got [{}]",
            text.join(",")
        );
    }
    let before: Vec<usize> = paddings.iter().map(|p| p[0] as usize).collect();
    let after: Vec<usize> = paddings.iter().map(|p| p[1] as usize).collect();
    e.pad_with(x, &before, &after, value)
}

/// `mirrorPad` (lib/ops/layout.js): a gather of the mirrored rows along each axis.
pub fn mirror_pad(e: &mut Engine, x: TensorId, paddings: &[[f64; 2]], mode: &str) -> Result<TensorId> {
    if mode != "reflect" && mode != "symmetric" {
        bail!("Invalid mode. Mode must be either reflect or symmetric. Got {mode}.");
    }
    let s = dims_of(e, x)?;
    let rank = s.len();
    if rank == 0 {
        bail!("mirrorPad(scalar) is not defined. Pass non-scalar to mirrorPad");
    }
    if paddings.len() != rank {
        bail!("Padding doesn't match input. Must be {rank}. Got {}.", paddings.len());
    }
    let offset = if mode == "reflect" { 1.0 } else { 0.0 };
    for (i, p) in paddings.iter().enumerate() {
        let limit = s[i] as f64 - offset;
        if !(p[0] >= 0.0 && p[0] <= limit && p[1] >= 0.0 && p[1] <= limit) {
            let shape = s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
            bail!("Padding in dimension {i} cannot be greater than or equal to {limit} or less than 0 for input of shape {shape}");
        }
        if !p.iter().all(|&v| is_int(v)) {
            bail!("mirrorPad: paddings must be integers but got {}", js_list(p));
        }
    }
    let mut y = x;
    for (axis, p) in paddings.iter().enumerate() {
        let (before, after) = (p[0] as i64, p[1] as i64);
        if before == 0 && after == 0 {
            continue;
        }
        let n = s[axis] as i64;
        let idx: Vec<i64> = (0..before + n + after)
            .map(|k| {
                let q = k - before;
                if q < 0 {
                    if mode == "reflect" {
                        -q
                    } else {
                        -q - 1
                    }
                } else if q >= n {
                    if mode == "reflect" {
                        2 * (n - 1) - q
                    } else {
                        2 * n - 1 - q
                    }
                } else {
                    q
                }
            })
            .collect();
        let idx = int_vector(e, &idx)?;
        y = e.gather(y, idx, axis as i64, 0)?;
    }
    if y == x {
        y = e.clone_tensor(x)?;
    }
    Ok(y)
}

/// How `split` divides an axis: a count of equal parts, or sizes with at most one -1.
pub enum Splits {
    Count(f64),
    Sizes(Vec<f64>),
}

/// `split` (lib/ops/layout.js, tfjs's `prepareSplitSize`): slices along `axis`.
pub fn split(e: &mut Engine, x: TensorId, splits: Splits, axis: f64) -> Result<Vec<TensorId>> {
    let s = dims_of(e, x)?;
    let rank = s.len() as f64;
    if !(axis >= -rank && axis < rank && is_int(axis)) {
        bail!("All values in axis param must be in range [-{rank}, {rank}) but got axis {}", js_list(&[axis]));
    }
    let ax = if axis < 0.0 { axis + rank } else { axis } as usize;
    let dim = s[ax] as f64;
    let sizes: Vec<f64> = match splits {
        Splits::Count(n) => {
            if dim % n != 0.0 || !(n >= 1.0) {
                bail!("Number of splits must evenly divide the axis.");
            }
            vec![dim / n; n as usize]
        }
        Splits::Sizes(mut v) => {
            if v.iter().filter(|&&x| x == -1.0).count() > 1 {
                bail!("There should be only one negative value in split array.");
            }
            if let Some(neg) = v.iter().position(|&x| x == -1.0) {
                v[neg] = dim - v.iter().filter(|&&x| x > 0.0).sum::<f64>();
            }
            if dim != v.iter().sum::<f64>() {
                bail!("The sum of sizes must match the size of the axis dimension.");
            }
            if !v.iter().all(|&x| is_int(x) && x >= 0.0) {
                bail!("split sizes must be non-negative integers but got {}", js_list(&v));
            }
            v
        }
    };
    let mut out = Vec::with_capacity(sizes.len());
    let mut at = 0usize;
    for n in sizes {
        let n = n as usize;
        out.push(e.slice_axis(x, ax, at, n)?);
        at += n;
    }
    Ok(out)
}

/// `unstack` (lib/ops/layout.js): the slices along `axis`, without it.
pub fn unstack(e: &mut Engine, x: TensorId, axis: f64) -> Result<Vec<TensorId>> {
    let s = dims_of(e, x)?;
    let rank = s.len() as f64;
    if !(axis >= -rank && axis < rank && is_int(axis)) {
        let js = tidytensor_core::random::js_number_string;
        bail!("Axis = {} is not in [-{rank}, {rank})", js(axis));
    }
    let a = if axis < 0.0 { axis + rank } else { axis } as usize;
    let out_shape: Vec<i64> = s.iter().enumerate().filter(|&(i, _)| i != a).map(|(_, &d)| d as i64).collect();
    let mut out = Vec::with_capacity(s[a]);
    for k in 0..s[a] {
        let part = e.slice_axis(x, a, k, 1)?;
        out.push(e.reshape(part, &out_shape)?);
    }
    Ok(out)
}

/// `image.cropAndResize` (lib/ops/image.js): the sample positions of every output pixel
/// computed on the host from the boxes, the image values gathered and interpolated.
#[allow(clippy::too_many_arguments)]
pub fn crop_and_resize(
    e: &mut Engine,
    image: TensorId,
    boxes: TensorId,
    box_ind: TensorId,
    crop_size: &[f64],
    method: &str,
    extrapolation: f64,
) -> Result<TensorId> {
    let (is, bs, ib) = (dims_of(e, image)?, dims_of(e, boxes)?, dims_of(e, box_ind)?);
    let n = bs.first().copied().unwrap_or(0);
    if is.len() != 4 {
        bail!("Error in cropAndResize: image must be rank 4,but got rank {}.", is.len());
    }
    let shown = bs.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
    if bs.len() != 2 || bs[1] != 4 {
        bail!("Error in cropAndResize: boxes must be have size [{n},4] but had shape {shown}.");
    }
    if ib.len() != 1 || ib[0] != n {
        bail!("Error in cropAndResize: boxInd must be have size [{n}] but had shape {shown}.");
    }
    if crop_size.len() != 2 {
        bail!("Error in cropAndResize: cropSize must be of length 2, but got length {}.", crop_size.len());
    }
    if !(crop_size[0] >= 1.0 && crop_size[1] >= 1.0) {
        bail!("cropSize must be atleast [1,1], but was {}", js_list(crop_size));
    }
    if !crop_size.iter().all(|&v| is_int(v)) {
        bail!("cropSize must be integers, but was {}", js_list(crop_size));
    }
    if method != "bilinear" && method != "nearest" {
        bail!("method must be bilinear or nearest, but was {method}");
    }
    let boxes_f = e.cast(boxes, DType::Float32)?;
    let bx = crate::ops::values(e, boxes_f)?;
    let which_t = e.cast(box_ind, DType::Int32)?;
    let which = crate::ops::values(e, which_t)?;
    let (batch, h, w, c) = (is[0], is[1], is[2], is[3]);
    let (ch, cw) = (crop_size[0] as usize, crop_size[1] as usize);
    let pixels = n * ch * cw;
    let mut corners = [vec![0i32; pixels], vec![0i32; pixels], vec![0i32; pixels], vec![0i32; pixels]];
    let (mut xl, mut yl, mut inside, mut fill) =
        (vec![0f32; pixels], vec![0f32; pixels], vec![0f32; pixels], vec![0f32; pixels]);
    let at = |lo: f64, hi: f64, i: usize, count: usize, dim: usize| -> f64 {
        let d = dim as f64 - 1.0;
        if count > 1 {
            lo * d + i as f64 * ((hi - lo) * d / (count as f64 - 1.0))
        } else {
            0.5 * (lo + hi) * d
        }
    };
    let (hf, wf) = (h as f64, w as f64);
    for b in 0..n {
        let bb: [f64; 4] = [
            bx[4 * b] as f32 as f64,
            bx[4 * b + 1] as f32 as f64,
            bx[4 * b + 2] as f32 as f64,
            bx[4 * b + 3] as f32 as f64,
        ];
        let [y1, x1, y2, x2] = bb;
        let wb = which[b];
        let img0 = wb * hf * wf;
        for y in 0..ch {
            let yi = at(y1, y2, y, ch, h);
            for x in 0..cw {
                let p = (b * ch + y) * cw + x;
                let xi = at(x1, x2, x, cw, w);
                if wb < 0.0 || wb >= batch as f64 {
                    continue;
                }
                if yi < 0.0 || yi > hf - 1.0 || xi < 0.0 || xi > wf - 1.0 {
                    fill[p] = 1.0;
                    continue;
                }
                inside[p] = 1.0;
                let (top, bottom, left, right) = if method == "bilinear" {
                    (yi.floor(), yi.ceil(), xi.floor(), xi.ceil())
                } else {
                    // Math.round: halves up.
                    let (ry, rx) = ((yi + 0.5).floor(), (xi + 0.5).floor());
                    (ry, ry, rx, rx)
                };
                corners[0][p] = (img0 + top * wf + left) as i32;
                corners[1][p] = (img0 + top * wf + right) as i32;
                corners[2][p] = (img0 + bottom * wf + left) as i32;
                corners[3][p] = (img0 + bottom * wf + right) as i32;
                if method == "bilinear" {
                    xl[p] = (xi - left) as f32;
                    yl[p] = (yi - top) as f32;
                }
            }
        }
    }
    let img = e.cast(image, DType::Float32)?;
    let rows = e.reshape(img, &[(batch * h * w) as i64, c as i64])?;
    let mut g = Vec::with_capacity(4);
    for idx in corners {
        let t = e.tensor(HostData::I32(idx), &[pixels])?;
        g.push(e.gather(rows, t, 0, 0)?);
    }
    let col = |e: &mut Engine, v: Vec<f32>| e.tensor(HostData::F32(v), &[pixels, 1]);
    let (cxl, cyl, cin, cfill) = (col(e, xl)?, col(e, yl)?, col(e, inside)?, col(e, fill)?);
    let lerp = |e: &mut Engine, a: TensorId, b: TensorId, t: TensorId| -> Result<TensorId> {
        let d = e.sub(b, a)?;
        let d = e.mul(d, t)?;
        e.add(a, d)
    };
    let top = lerp(e, g[0], g[1], cxl)?;
    let bottom = lerp(e, g[2], g[3], cxl)?;
    let value = lerp(e, top, bottom, cyl)?;
    let v = e.mul(value, cin)?;
    let fv = scalar(e, extrapolation, DType::Float32)?;
    let f = e.mul(cfill, fv)?;
    let out = e.add(v, f)?;
    e.reshape(out, &[n as i64, ch as i64, cw as i64, c as i64])
}

/// `broadcastArgs` (lib/ops/layout.js): the broadcast of two shapes given as values.
pub fn broadcast_args(e: &mut Engine, s0: TensorId, s1: TensorId) -> Result<TensorId> {
    for (t, which) in [(s0, "first"), (s1, "second")] {
        let r = e.shape(t)?.len();
        if r != 1 {
            bail!("broadcastArgs(): {which} input must be a vector (rank=1). Has rank {r}");
        }
    }
    let (x, y) = (crate::ops::values(e, s0)?, crate::ops::values(e, s1)?);
    let n = x.len().max(y.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let p = (i + x.len()).checked_sub(n).map_or(1.0, |k| x[k]);
        let q = (i + y.len()).checked_sub(n).map_or(1.0, |k| y[k]);
        if p != q && p != 1.0 && q != 1.0 {
            bail!("Operands could not be broadcast together with shapes {} and {}.", js_list(&x), js_list(&y));
        }
        out.push(if p == 1.0 { q } else { p } as i64);
    }
    int_vector(e, &out)
}

/// `gatherND` (lib/ops/layout.js): the slices at the index tuples of the last axis of
/// `indices`, as one gather of rows.
pub fn gather_nd(e: &mut Engine, x: TensorId, indices: TensorId) -> Result<TensorId> {
    let (xs, is) = (dims_of(e, x)?, dims_of(e, indices)?);
    let (rank, irank) = (xs.len(), is.len());
    if rank < 1 {
        bail!("tf.gatherND() expects the input to be rank 1 or higher, but the rank was {rank}.");
    }
    if irank < 1 {
        bail!("tf.gatherND() expects the indices to be rank 1 or higher, but the rank was {irank}.");
    }
    let k = is[irank - 1];
    if k > rank {
        bail!("index innermost dimension length must be <= tensor rank; saw: {k} vs. {rank}");
    }
    let size: usize = xs.iter().product();
    if size == 0 {
        let shown = xs.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
        bail!("Requested more than 0 entries, but input is empty. Input shape: {shown}.");
    }
    let slice_size: usize = xs[k..].iter().product();
    let mut out_shape: Vec<i64> = i64s(&is[..irank - 1]);
    out_shape.extend(i64s(&xs[k..]));
    // Row strides of the first k axes.
    let strides: Vec<i64> = (0..k).map(|i| xs[i + 1..k].iter().product::<usize>() as i64).collect();
    let ti = e.cast(indices, DType::Int32)?;
    let st = int_vector(e, &strides)?;
    let weighted = e.mul(ti, st)?;
    let flat = e.reduce(ReduceOp::Sum, weighted, Some(&[-1]), false)?;
    let flat = e.reshape(flat, &[-1])?;
    let rows = e.reshape(x, &[(size / slice_size) as i64, slice_size as i64])?;
    let g = e.gather(rows, flat, 0, 0)?;
    e.reshape(g, &out_shape)
}

/// tfjs's array_ops_util: the reshape, permutation and final shape of space <-> batch moves.
fn space_batch_shapes(shape: &[usize], block: &[usize], prod: usize, to_space: bool) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let m = block.len();
    let mut reshaped: Vec<usize> = Vec::new();
    if to_space {
        reshaped.extend(block);
        reshaped.push(shape[0] / prod);
        reshaped.extend(&shape[1..]);
    } else {
        reshaped.push(shape[0]);
        for (i, &b) in block.iter().enumerate() {
            reshaped.extend([shape[i + 1] / b, b]);
        }
        reshaped.extend(&shape[m + 1..]);
    }
    let mut perm: Vec<i64> = Vec::new();
    if to_space {
        perm.push(m as i64);
        for i in m + 1..reshaped.len() {
            if i <= 2 * m {
                perm.extend([i as i64, (i - (m + 1)) as i64]);
            } else {
                perm.push(i as i64);
            }
        }
    } else {
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for i in 1..reshaped.len() {
            if i > 2 * m || i % 2 == 1 {
                after.push(i as i64);
            } else {
                before.push(i as i64);
            }
        }
        perm.extend(before);
        perm.push(0);
        perm.extend(after);
    }
    let mut fin = vec![if to_space { shape[0] / prod } else { shape[0] * prod } as i64];
    for i in 1..shape.len() {
        fin.push(if i <= m {
            if to_space {
                block[i - 1] * shape[i]
            } else {
                shape[i] / block[i - 1]
            }
        } else {
            shape[i]
        } as i64);
    }
    (i64s(&reshaped), perm, fin)
}

fn block_arg(block: &[f64]) -> Result<Vec<usize>> {
    if !block.iter().all(|&b| is_int(b) && b >= 1.0) {
        bail!("blockShape must be positive integers, but got {}", js_list(block));
    }
    Ok(block.iter().map(|&b| b as usize).collect())
}

/// `spaceToBatchND` (lib/ops/layout.js).
pub fn space_to_batch_nd(e: &mut Engine, x: TensorId, block: &[f64], pads: &[[f64; 2]]) -> Result<TensorId> {
    let s = dims_of(e, x)?;
    let b = block_arg(block)?;
    if s.len() < 1 + b.len() {
        bail!("input rank {} should be > than [blockShape] {}", s.len(), b.len());
    }
    if pads.len() != b.len() {
        bail!("paddings.shape[0] {} must be equal to [blockShape] {}", pads.len(), b.len());
    }
    let divisible = (1..=b.len()).all(|i| (s[i] as f64 + pads[i - 1][0] + pads[i - 1][1]) % b[i - 1] as f64 == 0.0);
    if !divisible {
        let shown = s[1..].iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
        let p: Vec<f64> = pads.iter().flatten().copied().collect();
        bail!(
            "input spatial dimensions {shown} with paddings {} must be divisible by blockShapes {}",
            js_list(&p),
            js_list(block)
        );
    }
    let prod: usize = b.iter().product();
    let mut full = vec![[0.0, 0.0]];
    full.extend_from_slice(pads);
    full.resize(s.len(), [0.0, 0.0]);
    let padded = pad(e, x, &full, 0.0)?;
    let (reshaped, perm, fin) = space_batch_shapes(&dims_of(e, padded)?, &b, prod, false);
    let r = e.reshape(padded, &reshaped)?;
    let t = e.transpose(r, Some(&perm))?;
    e.reshape(t, &fin)
}

/// `batchToSpaceND` (lib/ops/layout.js).
pub fn batch_to_space_nd(e: &mut Engine, x: TensorId, block: &[f64], crops: &[[f64; 2]]) -> Result<TensorId> {
    let s = dims_of(e, x)?;
    let b = block_arg(block)?;
    let prod: usize = b.iter().product();
    if s.len() < 1 + b.len() {
        bail!("input rank is {} but should be > than blockShape.length {}", s.len(), b.len());
    }
    if crops.len() != b.len() {
        bail!("crops.length is {} but should be equal to blockShape.length  {}", crops.len(), b.len());
    }
    if s[0] % prod != 0 {
        let shown = b.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(" * ");
        bail!(
            "input tensor batch is {} but is not divisible by the product of the elements of blockShape {shown} === {prod}",
            s[0]
        );
    }
    let (reshaped, perm, fin) = space_batch_shapes(&s, &b, prod, true);
    let r = e.reshape(x, &reshaped)?;
    let t = e.transpose(r, Some(&perm))?;
    let y = e.reshape(t, &fin)?;
    let mut begin = vec![0.0];
    let mut size = vec![fin[0] as f64];
    for (i, c) in crops.iter().enumerate() {
        begin.push(c[0]);
        size.push(fin[i + 1] as f64 - c[0] - c[1]);
    }
    slice(e, y, &begin, &size)
}

/// `depthToSpace` (lib/ops/layout.js): channel blocks moved into spatial blocks.
pub fn depth_to_space(e: &mut Engine, x: TensorId, block: f64, data_format: &str) -> Result<TensorId> {
    let s = dims_of(e, x)?;
    let nhwc = data_format == "NHWC";
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let (h, w, d) = if nhwc { (at(1), at(2), at(3)) } else { (at(2), at(3), at(1)) };
    if !(block > 1.0) {
        bail!("blockSize should be > 1 for depthToSpace, but was: {}", js_list(&[block]));
    }
    let b = block as usize;
    if !is_int(block) || d % (b * b) != 0 {
        let shown = s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
        bail!(
            "Dimension size must be evenly divisible by {} but is {d} for depthToSpace with input shape {shown}",
            js_list(&[block * block])
        );
    }
    if s.len() != 4 {
        bail!("depthToSpace expects a rank-4 input, but got rank {}.", s.len());
    }
    let (n, c) = (s[0] as i64, (d / (b * b)) as i64);
    let (h, w, b) = (h as i64, w as i64, b as i64);
    if nhwc {
        let r = e.reshape(x, &[n, h, w, b, b, c])?;
        let t = e.transpose(r, Some(&[0, 1, 3, 2, 4, 5]))?;
        e.reshape(t, &[n, h * b, w * b, c])
    } else {
        let r = e.reshape(x, &[n, b, b, c, h, w])?;
        let t = e.transpose(r, Some(&[0, 3, 4, 1, 5, 2]))?;
        e.reshape(t, &[n, c, h * b, w * b])
    }
}
