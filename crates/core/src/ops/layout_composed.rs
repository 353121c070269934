//! The layout ops tfjs composes of the layout kernels (slice, gather, concat, reshape,
//! transpose): parseSliceParams, stridedSlice, tile, reverse, pad, mirrorPad, split, unstack,
//! gatherND, the space/batch moves, depthToSpace, broadcastTo, broadcastArgs. tf.*, the graph
//! executor and the layers share them; each runs in a scope of its own, so it leaves only its
//! results. tfjs's argument checks and texts.

use crate::js::list as js_list;
use crate::{bail, DType, Engine, HostData, ReduceOp, Result, TensorId};

fn is_int(v: f64) -> bool {
    v.fract() == 0.0 && v.abs() < 9007199254740992.0
}

fn shape_of(e: &Engine, x: TensorId) -> Result<Vec<usize>> {
    Ok(e.shape(x)?.to_vec())
}

fn i64s(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&d| d as i64).collect()
}

/// An int32 vector.
fn int_vector(e: &mut Engine, v: &[i64]) -> Result<TensorId> {
    e.tensor(HostData::I32(v.iter().map(|&x| x as i32).collect()), &[v.len()])
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

/// How `split` divides an axis: a count of equal parts, or sizes with at most one -1.
pub enum Splits {
    Count(f64),
    Sizes(Vec<f64>),
}

/// tfjs's array_ops_util: the reshape, permutation and final shape of space <-> batch moves.
fn space_batch_shapes(
    shape: &[usize],
    block: &[usize],
    prod: usize,
    to_space: bool,
) -> Result<(Vec<i64>, Vec<i64>, Vec<i64>)> {
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
    let batch = if to_space { Some(shape[0] / prod) } else { shape[0].checked_mul(prod) };
    let Some(batch) = batch.filter(|&b| b <= i64::MAX as usize) else {
        bail!("blockShape is too large: the batch of {} x {prod} overflows", shape[0])
    };
    let mut fin = vec![batch as i64];
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
    Ok((i64s(&reshaped), perm, fin))
}

/// The block sizes and their product (refused when no tensor could have that many elements).
fn block_arg(block: &[f64]) -> Result<(Vec<usize>, usize)> {
    if !block.iter().all(|&b| is_int(b) && b >= 1.0) {
        bail!("blockShape must be positive integers, but got {}", js_list(block));
    }
    let b: Vec<usize> = block.iter().map(|&b| b as usize).collect();
    match b.iter().try_fold(1usize, |p, &d| p.checked_mul(d)) {
        Some(prod) => Ok((b, prod)),
        None => bail!("blockShape {} is too large: its product overflows", js_list(block)),
    }
}

/// The masks of a strided slice (bit i: the i-th entry of begin/end/strides).
#[derive(Clone, Copy, Debug, Default)]
pub struct SliceMasks {
    pub begin: i32,
    pub end: i32,
    pub ellipsis: i32,
    pub new_axis: i32,
    pub shrink_axis: i32,
}

impl SliceMasks {
    /// From tfjs's argument order: begin, end, ellipsis, new axis, shrink axis.
    pub fn new([begin, end, ellipsis, new_axis, shrink_axis]: [i32; 5]) -> SliceMasks {
        SliceMasks { begin, end, ellipsis, new_axis, shrink_axis }
    }
}

/// TensorFlow's strided-slice spec made dense (tfjs's `slice_util.sliceInfo`).
#[derive(Clone, Debug, PartialEq)]
pub struct SliceSpec {
    /// Per input dimension: the explicit begin, end and stride.
    pub begin: Vec<f64>,
    pub end: Vec<f64>,
    pub strides: Vec<f64>,
    /// Per input dimension: how many elements it keeps (-1: an unknown dimension).
    pub lengths: Vec<f64>,
    /// The output shape (new axes add a 1, shrunk axes go).
    pub final_shape: Vec<f64>,
    /// tfjs's `finalShapeSparse`: final_shape filtered by the gather entries' positions.
    pub final_shape_sparse: Vec<f64>,
    pub is_identity: bool,
    pub slice_dim0: bool,
    pub is_simple_slice: bool,
}

/// The sparse spec (ellipsis, new and shrunk axes) made dense over `shape`'s dimensions (-1:
/// unknown), each dimension's begin/end/stride made explicit and bounds-checked, the lengths
/// and final shapes, and the fast-path flags. `integers`: refuse values that are not integers
/// (the op does; tfjs's sliceInfo does not look). The one home of the spec: tf.stridedSlice,
/// the graph's StridedSlice and `tf.slice_util.sliceInfo` all read it.
pub fn strided_slice_spec(
    shape: &[i64],
    begin: &[f64],
    end: &[f64],
    strides: Option<&[f64]>,
    m: SliceMasks,
    integers: bool,
) -> Result<SliceSpec> {
    const NEW_AXIS: i64 = -2;
    const SHRINK_AXIS: i64 = -1;
    let bit = |i: usize| 1i32.wrapping_shl(i as u32);
    let st: Vec<f64> = strides.map_or_else(|| vec![1.0; begin.len()], <[f64]>::to_vec);
    if m.ellipsis != 0 && (m.ellipsis & (m.ellipsis.wrapping_sub(1))) != 0 {
        bail!("Multiple ellipses in slice is not allowed.");
    }
    // Step 1: the sparse spec, with an ellipsis at the end when there is none.
    let mut sparse_dims = st.len();
    let mut sparse_ellipsis = m.ellipsis;
    let mut add_after_ellipsis = 0i64;
    let mut seen = false;
    for i in 0..sparse_dims {
        if seen && bit(i) & m.new_axis != 0 {
            add_after_ellipsis += 1;
        }
        if bit(i) & m.ellipsis != 0 {
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
    let mut gather: Vec<i64> = Vec::new();
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
                gather.push(full as i64);
                full += 1;
            }
        } else if bit(i) & m.new_axis != 0 {
            gather.push(NEW_AXIS);
        } else {
            if full == dims {
                bail!("Index out of range using input dim {full}; input has only {dims} dims, {dims}.");
            }
            d_begin[full] = begin.get(i).copied().unwrap_or(f64::NAN);
            d_end[full] = end.get(i).copied().unwrap_or(f64::NAN);
            d_strides[full] = st.get(i).copied().unwrap_or(f64::NAN);
            if m.begin & bit(i) != 0 {
                d_begin_mask |= bit(full);
            }
            if m.end & bit(i) != 0 {
                d_end_mask |= bit(full);
            }
            if m.shrink_axis & bit(i) != 0 {
                gather.push(SHRINK_AXIS);
                d_shrink |= bit(full);
            } else {
                gather.push(full as i64);
            }
            full += 1;
        }
    }
    // Step 3: explicit ranges, bounds checks and lengths.
    let (mut is_identity, mut slice_dim0, mut is_simple_slice) = (true, true, true);
    let mut lengths = Vec::with_capacity(dims);
    for i in 0..dims {
        let s = d_strides[i];
        if s == 0.0 {
            bail!("strides[{i}] must be non-zero");
        }
        if integers && (!is_int(s) || !is_int(d_begin[i]) || !is_int(d_end[i])) {
            bail!(
                "stridedSlice: begin, end and strides must be integers, but got {}, {} and {} for dimension {i}",
                js_list(&[d_begin[i]]),
                js_list(&[d_end[i]]),
                js_list(&[s])
            );
        }
        let shrink = d_shrink & bit(i) != 0;
        if shape[i] == -1 {
            lengths.push(if shrink { 1.0 } else { -1.0 });
            continue;
        }
        let n = shape[i] as f64;
        if shrink && s <= 0.0 {
            bail!("only stride 1 allowed on non-range indexing.");
        }
        is_simple_slice = is_simple_slice && s == 1.0;
        if shrink {
            // foo[-1] arrives as begin -1, end 0: the end is rebuilt as begin + 1.
            let fwd = if d_begin[i] < 0.0 { n + d_begin[i] } else { d_begin[i] };
            d_begin[i] = fwd;
            d_end[i] = fwd + 1.0;
            if fwd < 0.0 || fwd >= n {
                bail!("slice index {} of dimension {i} out of bounds.", js_list(&[fwd]));
            }
        } else {
            // Negative indices count from the end; masked ones take the whole range.
            let range = if s > 0.0 { [0.0, n] } else { [-1.0, n - 1.0] };
            let canonical = |v: f64, c: usize, masked: bool| -> f64 {
                if masked {
                    return if s > 0.0 { range[c] } else { range[(c + 1) & 1] };
                }
                let fwd = if v < 0.0 { n + v } else { v };
                if fwd < range[0] {
                    range[0]
                } else if fwd > range[1] {
                    range[1]
                } else {
                    fwd
                }
            };
            d_begin[i] = canonical(d_begin[i], 0, d_begin_mask & bit(i) != 0);
            d_end[i] = canonical(d_end[i], 1, d_end_mask & bit(i) != 0);
        }
        let whole = s == 1.0 && d_begin[i] == 0.0 && d_end[i] == n;
        is_identity = is_identity && whole;
        slice_dim0 = slice_dim0 && ((i == 0 && s == 1.0) || whole);
        // The length, rounded up; 0 when the interval runs against the stride.
        let interval = d_end[i] - d_begin[i];
        let len = if interval == 0.0 || (interval < 0.0) != (s < 0.0) {
            0.0
        } else {
            (interval / s).trunc() + if interval % s != 0.0 { 1.0 } else { 0.0 }
        };
        lengths.push(len);
    }
    let mut final_shape = Vec::with_capacity(gather.len());
    for &g in &gather {
        if g >= 0 {
            final_shape.push(lengths[g as usize]);
        } else if g == NEW_AXIS {
            final_shape.push(1.0);
        }
    }
    // tfjs filters finalShape by the gather entries' positions (not finalShape's); kept.
    let final_shape_sparse =
        final_shape.iter().enumerate().filter(|(i, _)| gather.get(*i) != Some(&NEW_AXIS)).map(|(_, &d)| d).collect();
    Ok(SliceSpec {
        begin: d_begin,
        end: d_end,
        strides: d_strides,
        lengths,
        final_shape,
        final_shape_sparse,
        is_identity,
        slice_dim0,
        is_simple_slice,
    })
}

/// `slice`'s begin and size completed to the rank (0s and -1s) and checked as tfjs's
/// `parseSliceParams` and `slice` check them; a size of -1 stays -1.
fn slice_args(rank: usize, begin: &[f64], size: &[f64]) -> Result<(Vec<i64>, Vec<i64>)> {
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
    Ok((b.iter().map(|&v| v as i64).collect(), s.iter().map(|&v| v as i64).collect()))
}

/// tfjs's `slice_util.parseSliceParams`: [`slice_args`] for a tensor of `shape`, with each -1
/// size made the rest of its dimension.
pub fn parse_slice_params(shape: &[usize], begin: &[f64], size: &[f64]) -> Result<(Vec<i64>, Vec<i64>)> {
    let (b, mut s) = slice_args(shape.len(), begin, size)?;
    for (i, v) in s.iter_mut().enumerate() {
        if *v == -1 {
            if let (Some(&d), Some(&start)) = (shape.get(i), b.get(i)) {
                *v = d as i64 - start;
            }
        }
    }
    Ok((b, s))
}

impl Engine {
    /// `slice` with tfjs's `parseSliceParams`: begin and size may be shorter than the rank; a
    /// size of -1 runs to the end.
    pub fn slice_params(&mut self, x: TensorId, begin: &[f64], size: &[f64]) -> Result<TensorId> {
        self.composed(|e| {
            let rank = e.shape(x)?.len();
            if rank == 0 {
                bail!("Slicing scalar is not possible");
            }
            let (b, s) = slice_args(rank, begin, size)?;
            e.slice(x, &b, &s)
        })
    }

    /// `tf.stridedSlice`: the spec made dense ([`strided_slice_spec`]), then a slice (stride
    /// 1) or a gather per dimension, and the final reshape.
    pub fn strided_slice(
        &mut self,
        x: TensorId,
        begin: &[f64],
        end: &[f64],
        strides: Option<&[f64]>,
        masks: SliceMasks,
    ) -> Result<TensorId> {
        let shape = shape_of(self, x)?;
        let spec = strided_slice_spec(&i64s(&shape), begin, end, strides, masks, true)?;
        self.composed(|e| {
            let mut y = x;
            for (i, &len) in spec.lengths.iter().enumerate() {
                let (b, s, len) = (spec.begin[i] as i64, spec.strides[i] as i64, len as usize);
                if s == 1 {
                    if b == 0 && len == shape[i] {
                        continue;
                    }
                    y = e.slice_axis(y, i, b as usize, len)?;
                } else {
                    let idx: Vec<i64> = (0..len as i64).map(|k| b + k * s).collect();
                    let idx = int_vector(e, &idx)?;
                    y = e.gather(y, idx, i as i64, 0)?;
                }
            }
            let out: Vec<i64> = spec.final_shape.iter().map(|&d| d as i64).collect();
            e.reshape(y, &out)
        })
    }

    /// `tile` (lib/ops/layout.js): concatenations along each axis.
    pub fn tile(&mut self, x: TensorId, reps: &[f64]) -> Result<TensorId> {
        self.composed(|e| {
            let s = shape_of(e, x)?;
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
                    let cur = shape_of(e, y)?;
                    let size: Vec<i64> =
                        cur.iter().enumerate().map(|(i, &d)| if i == axis { 0 } else { d as i64 }).collect();
                    y = e.slice(y, &vec![0; cur.len()], &size)?;
                } else {
                    y = e.concat(&vec![y; r], axis as i64)?;
                }
            }
            if y == x {
                y = e.clone_tensor(x)?;
            }
            Ok(y)
        })
    }

    /// `tf.broadcastTo`: `x` given leading dims of 1 up to the target's rank, then tiled where
    /// a dim of 1 meets a larger one; a clone when no dim repeats (as in tfjs, also when a dim
    /// of 1 meets 0: tfjs keeps the 1).
    pub fn broadcast_to_shape(&mut self, x: TensorId, shape: &[f64]) -> Result<TensorId> {
        if !shape.iter().all(|&d| is_int(d) && d >= 0.0) {
            bail!("Tensor must have a shape comprised of positive integers but got shape [{}].", js_list(shape));
        }
        let xs = shape_of(self, x)?;
        if shape.len() < xs.len() {
            bail!("broadcastTo(): shape.length={} < input.rank={}.", shape.len(), xs.len());
        }
        let mut padded = vec![1; shape.len() - xs.len()];
        padded.extend_from_slice(&xs);
        let mut reps = shape.to_vec();
        for i in (0..shape.len()).rev() {
            if padded[i] as f64 == shape[i] {
                reps[i] = 1.0;
            } else if padded[i] != 1 {
                bail!("broadcastTo(): [{}] cannot be broadcast to [{}].", crate::shape::fmt(&xs), js_list(shape));
            }
        }
        self.composed(|e| {
            let input = if padded.len() > xs.len() { e.reshape(x, &i64s(&padded))? } else { x };
            if reps.iter().all(|&r| r <= 1.0) {
                e.clone_tensor(input)
            } else {
                e.tile(input, &reps)
            }
        })
    }

    /// `reverse` (lib/ops/layout.js): a gather of the reversed indices along each axis.
    pub fn reverse(&mut self, x: TensorId, axes: Option<&[i64]>) -> Result<TensorId> {
        self.composed(|e| {
            let s = shape_of(e, x)?;
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
        })
    }

    /// `pad` (lib/ops/layout.js): constant slabs concatenated before and after.
    pub fn pad(&mut self, x: TensorId, paddings: &[[f64; 2]], value: f64) -> Result<TensorId> {
        self.composed(|e| {
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
            })
    }

    /// `mirrorPad` (lib/ops/layout.js): a gather of the mirrored rows along each axis.
    pub fn mirror_pad(&mut self, x: TensorId, paddings: &[[f64; 2]], mode: &str) -> Result<TensorId> {
        self.composed(|e| {
        if mode != "reflect" && mode != "symmetric" {
            bail!("Invalid mode. Mode must be either reflect or symmetric. Got {mode}.");
        }
        let s = shape_of(e, x)?;
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
            })
    }

    /// `split` (lib/ops/layout.js, tfjs's `prepareSplitSize`): slices along `axis`.
    pub fn split(&mut self, x: TensorId, splits: Splits, axis: f64) -> Result<Vec<TensorId>> {
        self.composed_many(|e| {
            let s = shape_of(e, x)?;
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
        })
    }

    /// `unstack` (lib/ops/layout.js): the slices along `axis`, without it.
    pub fn unstack(&mut self, x: TensorId, axis: f64) -> Result<Vec<TensorId>> {
        self.composed_many(|e| {
            let s = shape_of(e, x)?;
            let rank = s.len() as f64;
            if !(axis >= -rank && axis < rank && is_int(axis)) {
                let js = crate::js::number;
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
        })
    }

    /// `broadcastArgs` (lib/ops/layout.js): the broadcast of two shapes given as values.
    pub fn broadcast_args(&mut self, s0: TensorId, s1: TensorId) -> Result<TensorId> {
        self.composed(|e| {
            for (t, which) in [(s0, "first"), (s1, "second")] {
                let r = e.shape(t)?.len();
                if r != 1 {
                    bail!("broadcastArgs(): {which} input must be a vector (rank=1). Has rank {r}");
                }
            }
            let (x, y) = (e.read_f64(s0)?, e.read_f64(s1)?);
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
        })
    }

    /// `gatherND` (lib/ops/layout.js): the slices at the index tuples of the last axis of
    /// `indices`, as one gather of rows.
    pub fn gather_nd(&mut self, x: TensorId, indices: TensorId) -> Result<TensorId> {
        self.composed(|e| {
            let (xs, is) = (shape_of(e, x)?, shape_of(e, indices)?);
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
        })
    }

    /// `spaceToBatchND` (lib/ops/layout.js).
    pub fn space_to_batch_nd(&mut self, x: TensorId, block: &[f64], pads: &[[f64; 2]]) -> Result<TensorId> {
        self.composed(|e| {
            let s = shape_of(e, x)?;
            let (b, prod) = block_arg(block)?;
            if s.len() < 1 + b.len() {
                bail!("input rank {} should be > than [blockShape] {}", s.len(), b.len());
            }
            if pads.len() != b.len() {
                bail!("paddings.shape[0] {} must be equal to [blockShape] {}", pads.len(), b.len());
            }
            let divisible =
                (1..=b.len()).all(|i| (s[i] as f64 + pads[i - 1][0] + pads[i - 1][1]) % b[i - 1] as f64 == 0.0);
            if !divisible {
                let shown = s[1..].iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
                let p: Vec<f64> = pads.iter().flatten().copied().collect();
                bail!(
                    "input spatial dimensions {shown} with paddings {} must be divisible by blockShapes {}",
                    js_list(&p),
                    js_list(block)
                );
            }
            let mut full = vec![[0.0, 0.0]];
            full.extend_from_slice(pads);
            full.resize(s.len(), [0.0, 0.0]);
            let padded = e.pad(x, &full, 0.0)?;
            let (reshaped, perm, fin) = space_batch_shapes(&shape_of(e, padded)?, &b, prod, false)?;
            let r = e.reshape(padded, &reshaped)?;
            let t = e.transpose(r, Some(&perm))?;
            e.reshape(t, &fin)
        })
    }

    /// `batchToSpaceND` (lib/ops/layout.js).
    pub fn batch_to_space_nd(&mut self, x: TensorId, block: &[f64], crops: &[[f64; 2]]) -> Result<TensorId> {
        self.composed(|e| {
        let s = shape_of(e, x)?;
        let (b, prod) = block_arg(block)?;
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
        let (reshaped, perm, fin) = space_batch_shapes(&s, &b, prod, true)?;
        let r = e.reshape(x, &reshaped)?;
        let t = e.transpose(r, Some(&perm))?;
        let y = e.reshape(t, &fin)?;
        let mut begin = vec![0.0];
        let mut size = vec![fin[0] as f64];
        for (i, c) in crops.iter().enumerate() {
            begin.push(c[0]);
            size.push(fin[i + 1] as f64 - c[0] - c[1]);
        }
        e.slice_params(y, &begin, &size)
            })
    }

    /// `depthToSpace` (lib/ops/layout.js): channel blocks moved into spatial blocks.
    pub fn depth_to_space(&mut self, x: TensorId, block: f64, data_format: &str) -> Result<TensorId> {
        self.composed(|e| {
            let s = shape_of(e, x)?;
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
        })
    }
}

/// tfjs's `scatter_nd_util.validateInput`: the shapes of `updates` and `indices` against the
/// output `shape`; the slice dimension (the last of `indices`). Also `tf.scatter_util`'s.
pub fn validate_scatter(us: &[usize], is: &[usize], indices_dtype: DType, shape: &[usize]) -> Result<usize> {
    if is.is_empty() {
        bail!("tf.scatterND() expects the indices to be rank 1 or higher, but the rank was 0.");
    }
    if us.is_empty() {
        bail!("tf.scatterND() expects the updates to be rank 1 or higher, but the rank was 0.");
    }
    if indices_dtype != DType::Int32 {
        bail!("The dtype of 'indices' should be int32, but got dtype: {}", indices_dtype.name());
    }
    if shape.is_empty() {
        bail!("Output rank must be greater or equal to 1, but got shape: ");
    }
    validate_update_shape(us, is, shape)
}

/// tfjs's `scatter_nd_util.validateUpdateShape`: updates.shape must be
/// indices.shape[:batchDim] + shape[sliceDim:]; the slice dimension.
pub fn validate_update_shape(us: &[usize], is: &[usize], shape: &[usize]) -> Result<usize> {
    let f = crate::shape::fmt;
    let slice_dim = if is.len() > 1 { is[is.len() - 1] } else { 1 };
    let batch_dim = if is.len() > 1 { is.len() - 1 } else { 1 };
    let prefix = format!(
        "Must have updates.shape = indices.shape[:batchDim] + shape[sliceDim:], got updates.shape: {}, indices.shape: {}, shape: {}, sliceDim: {slice_dim}, and batchDim: {batch_dim}.",
        f(us),
        f(is),
        f(shape)
    );
    if us.len() < batch_dim {
        bail!("{prefix} update.rank < {batch_dim}. ");
    }
    let rest = us.len() - batch_dim;
    if shape.len() < slice_dim + rest {
        bail!("{prefix} Output shape length < {}", slice_dim + rest);
    }
    if us.len() != batch_dim + shape.len() - slice_dim {
        bail!("{prefix} update.rank != {}", batch_dim + shape.len() - slice_dim);
    }
    for d in 0..batch_dim {
        if us[d] != is[d] {
            bail!("{prefix} updates.shape[{d}] ({}) != indices.shape[{d}] ({}).", us[d], is[d]);
        }
    }
    for d in 0..rest {
        if us[d + batch_dim] != shape[d + slice_dim] {
            // tfjs prints shape[d + batchDim] though it compares shape[d + sliceDim]; kept.
            let shown = shape.get(d + batch_dim).map_or("undefined".to_string(), |v| v.to_string());
            bail!(
                "{prefix} updates.shape[{}] ({}) != shape[{}] ({shown})",
                d + batch_dim,
                us[d + batch_dim],
                d + batch_dim
            );
        }
    }
    Ok(slice_dim)
}

/// An output shape given as numbers (tfjs's `assertNonNegativeIntegerDimensions`).
pub(crate) fn shape_arg(shape: &[f64]) -> Result<Vec<usize>> {
    if !shape.iter().all(|&d| is_int(d) && d >= 0.0) {
        bail!("Tensor must have a shape comprised of positive integers but got shape [{}].", js_list(shape));
    }
    Ok(shape.iter().map(|&d| d as usize).collect())
}

impl Engine {
    /// The row scatter of `updates` at the index tuples of `indices` (as gatherND reads them)
    /// into `shape`, over `base` or zeros.
    fn scatter_tuples(
        &mut self,
        base: Option<TensorId>,
        indices: TensorId,
        updates: TensorId,
        shape: &[usize],
        slice_dim: usize,
    ) -> Result<TensorId> {
        self.composed(|e| {
            let slice_size: usize = shape[slice_dim..].iter().product();
            let num_rows: usize = shape[..slice_dim].iter().product();
            let mut strides = vec![0i64; slice_dim];
            let mut s = 1i64;
            for k in (0..slice_dim).rev() {
                strides[k] = s;
                s *= shape[k] as i64;
            }
            let idx = e.reshape(indices, &[-1, slice_dim as i64])?;
            let st = int_vector(e, &strides)?;
            let weighted = e.mul(idx, st)?;
            let rows = e.reduce(ReduceOp::Sum, weighted, Some(&[-1]), false)?;
            let n = e.shape(rows)?[0];
            let u = e.reshape(updates, &[n as i64, slice_size as i64])?;
            let b = match base {
                Some(b) => Some(e.reshape(b, &[num_rows as i64, slice_size as i64])?),
                None => None,
            };
            let flat = e.scatter_rows(b, rows, u, num_rows)?;
            e.reshape(flat, &i64s(shape))
        })
    }

    /// `tf.scatterND`: a tensor of `shape`, zeros but for `updates` at the index tuples.
    pub fn scatter_nd(&mut self, indices: TensorId, updates: TensorId, shape: &[f64]) -> Result<TensorId> {
        let shape = shape_arg(shape)?;
        let (us, is) = (shape_of(self, updates)?, shape_of(self, indices)?);
        let slice_dim = validate_scatter(&us, &is, self.dtype(indices)?, &shape)?;
        self.scatter_tuples(None, indices, updates, &shape, slice_dim)
    }

    /// `tf.tensorScatterUpdate`: `tensor` with `updates` written at the index tuples.
    pub fn tensor_scatter_update(
        &mut self,
        tensor: TensorId,
        indices: TensorId,
        updates: TensorId,
    ) -> Result<TensorId> {
        let (ts, us, is) = (shape_of(self, tensor)?, shape_of(self, updates)?, shape_of(self, indices)?);
        let slice_dim = validate_scatter(&us, &is, self.dtype(indices)?, &ts)?;
        let (td, ud) = (self.dtype(tensor)?, self.dtype(updates)?);
        if td != ud {
            bail!("tensor and updates must have the same dtype, instead they are {} and {}.", td.name(), ud.name());
        }
        self.scatter_tuples(Some(tensor), indices, updates, &ts, slice_dim)
    }

    /// `tf.sparseToDense`: `default_value` everywhere but at the indices, which take the values
    /// (the last of repeated indices wins). Strings too.
    pub fn sparse_to_dense(
        &mut self,
        indices: TensorId,
        values: TensorId,
        shape: &[f64],
        default_value: TensorId,
    ) -> Result<TensorId> {
        let shape = shape_arg(shape)?;
        let (is, vs) = (shape_of(self, indices)?, shape_of(self, values)?);
        let (vd, dd, id) = (self.dtype(values)?, self.dtype(default_value)?, self.dtype(indices)?);
        if id != DType::Int32 {
            bail!("tf.sparseToDense() expects the indices to be int32 type, but the dtype was {}.", id.name());
        }
        if is.len() > 2 {
            bail!("sparseIndices should be a scalar, vector, or matrix, but got shape {}.", crate::shape::fmt(&is));
        }
        let num_elems = if is.is_empty() { 1 } else { is[0] };
        let num_dims = if is.len() > 1 { is[1] } else { 1 };
        if shape.len() != num_dims {
            bail!("outputShape has incorrect number of elements:, {}, should be: {num_dims}.", shape.len());
        }
        if !(vs.is_empty() || (vs.len() == 1 && vs[0] == num_elems)) {
            bail!("sparseValues has incorrect shape {}, should be [] or [{num_elems}]", crate::shape::fmt(&vs));
        }
        if vd != dd {
            bail!("sparseValues.dtype must match defaultValues.dtype");
        }
        self.composed(|e| {
            let repeat = |e: &mut Engine, scalar: TensorId, n: &[usize]| -> Result<TensorId> {
                let one = e.reshape(scalar, &vec![1; n.len()])?;
                let reps: Vec<f64> = n.iter().map(|&d| d as f64).collect();
                e.tile(one, &reps)
            };
            let base = repeat(e, default_value, &shape)?;
            let vals = if vs.is_empty() { repeat(e, values, &[num_elems])? } else { values };
            let idx = e.reshape(indices, &[num_elems as i64, num_dims as i64])?;
            e.scatter_tuples(Some(base), idx, vals, &shape, num_dims)
        })
    }
}
