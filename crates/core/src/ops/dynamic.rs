//! The ops whose output shape depends on input values: non-max suppression, whereAsync,
//! booleanMaskAsync and setdiff1dAsync. Each reads its inputs on the host (tfjs awaits `data()`), computes as
//! tfjs-core's host implementations do (`non_max_suppression_impl.ts`, `where_impl.ts`,
//! `setdiff1d_async.ts`) and makes new tensors. tf.* and the graph executor share them.

use crate::js::number as js;
use crate::kernels as k;
use crate::{bail, DType, Engine, HostData, Result, TensorId};
use std::cmp::Ordering;
use std::collections::HashSet;

/// What a non-max suppression returns besides the selected indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NmsOutputs {
    /// The indices only (`nonMaxSuppression`, V2/V3).
    Indices,
    /// And their scores (`nonMaxSuppressionWithScore`, V5).
    Scores,
    /// And the count of valid ones; the indices padded with 0 to the maximum when `true`
    /// (`nonMaxSuppressionPadded`, V4).
    Padded(bool),
}

fn join(v: &[usize]) -> String {
    v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

/// JavaScript's `Math.min` / `Math.max` (NaN wins).
fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

impl Engine {
    /// `tf.image.nonMaxSuppression` and its variants: tfjs's `nonMaxSuppSanityCheck` (its
    /// texts), then `nonMaxSuppressionImpl_` on the values of `boxes` ([n, 4]) and `scores`.
    #[allow(clippy::too_many_arguments)]
    pub fn non_max_suppression(
        &mut self,
        boxes: TensorId,
        scores: TensorId,
        max_output_size: f64,
        iou_threshold: f64,
        score_threshold: f64,
        soft_nms_sigma: f64,
        outputs: NmsOutputs,
    ) -> Result<Vec<TensorId>> {
        let bs = self.shape(boxes)?.to_vec();
        let ss = self.shape(scores)?.to_vec();
        let num_boxes = bs.first().map_or(f64::NAN, |&n| n as f64);
        if !(0.0..=1.0).contains(&iou_threshold) {
            bail!("iouThreshold must be in [0, 1], but was '{}'", js(iou_threshold));
        }
        if bs.len() != 2 {
            bail!("boxes must be a 2D tensor, but was of rank '{}'", bs.len());
        }
        if bs[1] != 4 {
            bail!("boxes must have 4 columns, but 2nd dimension was {}", bs[1]);
        }
        if ss.len() != 1 {
            bail!("scores must be a 1D tensor");
        }
        if ss[0] != bs[0] {
            bail!("scores has incompatible shape with boxes. Expected {}, but was {}", bs[0], ss[0]);
        }
        if !(0.0..=1.0).contains(&soft_nms_sigma) {
            bail!("softNmsSigma must be in [0, 1], but was '{}'", js(soft_nms_sigma));
        }
        // As tfjs: no check; a fraction selects up to its ceiling, NaN or a negative size none.
        let max = js_min(max_output_size, num_boxes);
        let kernel = match outputs {
            NmsOutputs::Indices => k::NON_MAX_SUPPRESSION_V3,
            NmsOutputs::Padded(_) => k::NON_MAX_SUPPRESSION_V4,
            NmsOutputs::Scores => k::NON_MAX_SUPPRESSION_V5,
        };
        self.run_kernel_any(kernel, &[boxes, scores], |e, _, _| {
            let (bv, sv) = (e.read_f64(boxes)?, e.read_f64(scores)?);
            let pad = outputs == NmsOutputs::Padded(true);
            let r = nms_select(&bv, &sv, max, iou_threshold, score_threshold, soft_nms_sigma, pad);
            let n = r.indices.len();
            let indices = e.tensor(HostData::I32(r.indices), &[n])?;
            Ok(match outputs {
                NmsOutputs::Indices => vec![indices],
                NmsOutputs::Scores => vec![indices, e.tensor(HostData::from_f64(DType::Float32, r.scores), &[n])?],
                NmsOutputs::Padded(_) => vec![indices, e.tensor(HostData::I32(vec![r.valid as i32]), &[])?],
            })
        })
    }

    /// `tf.whereAsync` (no kernel in tfjs either): the coordinates of the true (non-zero) values, `[n, rank]` int32.
    pub fn where_true(&mut self, condition: TensorId) -> Result<TensorId> {
        let shape = self.shape(condition)?.to_vec();
        let truth: Vec<bool> = self.read_f64(condition)?.into_iter().map(|v| v != 0.0).collect();
        let (coords, n) = where_coords(&shape, &truth);
        self.tensor(HostData::I32(coords), &[n, shape.len()])
    }

    /// `tf.booleanMaskAsync`: the slices of `x` at the true positions of `mask`, whose shape
    /// is `x`'s dims `axis..axis + mask rank`; those dims become one. The mask is read on the
    /// host (as whereAsync reads it), then one gather, as tfjs composes it.
    pub fn boolean_mask(&mut self, x: TensorId, mask: TensorId, axis: f64) -> Result<TensorId> {
        super::require_dtype("boolMask", "mask", DType::Bool, self.dtype(mask)?)?;
        let (xs, ms) = (self.shape(x)?.to_vec(), self.shape(mask)?.to_vec());
        if ms.is_empty() {
            bail!("mask cannot be scalar");
        }
        let k = ms.len();
        // tfjs compares `x.shape.slice(axis, axis + k)`, with JavaScript's slice bounds.
        let bound = |v: f64| {
            let v = v.trunc();
            let n = xs.len() as f64;
            (if v < 0.0 { (n + v).max(0.0) } else { v.min(n) }) as usize
        };
        let (from, to) = (bound(axis), bound(axis + k as f64));
        let lead = if to > from { &xs[from..to] } else { &[][..] };
        if lead != ms.as_slice() {
            bail!(
                "mask's shape must match the first K dimensions of tensor's shape, Shapes {} and {} must match",
                crate::shape::fmt(lead),
                crate::shape::fmt(&ms)
            );
        }
        if axis != from as f64 {
            // tfjs reads the leading dims at `axis` itself: a negative or fractional one reads
            // none, and its reshape to a NaN dim fails.
            let mut dims: Vec<String> = xs[..from].iter().map(|d| d.to_string()).collect();
            dims.push("NaN".into());
            dims.extend(xs[to..].iter().map(|d| d.to_string()));
            bail!("Size({}) must match the product of shape {}", crate::shape::size(&xs), dims.join(","));
        }
        let Some(leading) = ms.iter().try_fold(1usize, |a, &d| a.checked_mul(d)) else {
            bail!("Error in booleanMaskAsync: the mask's size {} is too large.", crate::shape::fmt(&ms));
        };
        let mut target: Vec<i64> = xs[..from].iter().map(|&d| d as i64).collect();
        target.push(leading as i64);
        target.extend(xs[from + k..].iter().map(|&d| d as i64));
        self.composed(|e| {
            let flat = e.reshape(x, &target)?;
            let flat_mask = e.reshape(mask, &[-1])?;
            let positions = e.where_true(flat_mask)?;
            let indices = e.squeeze(positions, Some(&[1]))?;
            e.gather(flat, indices, from as i64, 0)
        })
    }

    /// `tf.setdiff1dAsync`: the values of `x` not in `y`, and their indices in `x`.
    pub fn setdiff1d(&mut self, x: TensorId, y: TensorId) -> Result<Vec<TensorId>> {
        let (xd, yd) = (self.dtype(x)?, self.dtype(y)?);
        if xd != yd {
            bail!("x and y should have the same dtype, but got x ({}) and y ({}).", xd.name(), yd.name());
        }
        let (xs, ys) = (self.shape(x)?.to_vec(), self.shape(y)?.to_vec());
        if xs.len() != 1 {
            bail!("x should be 1D tensor, but got x ({}).", join(&xs));
        }
        if ys.len() != 1 {
            bail!("y should be 1D tensor, but got y ({}).", join(&ys));
        }
        let (xv, yv) = (self.read_f64(x)?, self.read_f64(y)?);
        let (out, idx) = list_diff(&xv, &yv);
        let n = out.len();
        let values = self.tensor(HostData::from_f64(xd, out), &[n])?;
        match self.tensor(HostData::I32(idx), &[n]) {
            Ok(indices) => Ok(vec![values, indices]),
            Err(err) => {
                self.dispose(values);
                Err(err)
            }
        }
    }
}

/// tfjs's `whereImpl`: the row-major coordinates of each true value, and how many there are.
fn where_coords(shape: &[usize], truth: &[bool]) -> (Vec<i32>, usize) {
    let rank = shape.len();
    let mut strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    let mut coords = Vec::new();
    let mut n = 0;
    for (i, _) in truth.iter().enumerate().filter(|(_, &t)| t) {
        let mut rest = i;
        for s in &strides {
            coords.push((rest / s) as i32);
            rest %= s;
        }
        n += 1;
    }
    (coords, n)
}

/// tfjs's `setdiff1dAsync`: the values of `x` not in `y` (as a JavaScript `Set` compares
/// them: NaN equals NaN, -0 equals 0) and their indices in `x`.
fn list_diff(x: &[f64], y: &[f64]) -> (Vec<f64>, Vec<i32>) {
    let key = |v: f64| -> u64 {
        if v.is_nan() {
            f64::NAN.to_bits()
        } else if v == 0.0 {
            0
        } else {
            v.to_bits()
        }
    };
    let ys: HashSet<u64> = y.iter().map(|&v| key(v)).collect();
    let mut out = Vec::new();
    let mut idx = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        if !ys.contains(&key(v)) {
            out.push(v);
            idx.push(i as i32);
        }
    }
    (out, idx)
}

/// What `nonMaxSuppressionImpl_` returns.
#[derive(Debug, Default, PartialEq)]
pub struct Nms {
    pub indices: Vec<i32>,
    pub scores: Vec<f64>,
    pub valid: usize,
}

fn iou(boxes: &[f64], i: usize, j: usize) -> f64 {
    let (a, b) = (&boxes[i * 4..i * 4 + 4], &boxes[j * 4..j * 4 + 4]);
    let (ymin_i, xmin_i, ymax_i, xmax_i) =
        (js_min(a[0], a[2]), js_min(a[1], a[3]), js_max(a[0], a[2]), js_max(a[1], a[3]));
    let (ymin_j, xmin_j, ymax_j, xmax_j) =
        (js_min(b[0], b[2]), js_min(b[1], b[3]), js_max(b[0], b[2]), js_max(b[1], b[3]));
    let area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
    let area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
    if area_i <= 0.0 || area_j <= 0.0 {
        return 0.0;
    }
    let iy0 = js_max(ymin_i, ymin_j);
    let ix0 = js_max(xmin_i, xmin_j);
    let iy1 = js_min(ymax_i, ymax_j);
    let ix1 = js_min(xmax_i, xmax_j);
    let inter = js_max(iy1 - iy0, 0.0) * js_max(ix1 - ix0, 0.0);
    inter / (area_i + area_j - inter)
}

#[derive(Clone, Copy)]
struct Candidate {
    score: f64,
    index: usize,
    suppress_begin: usize,
}

/// tfjs's `ascendingComparator`: by score, then the larger index first (so that, popping from
/// the end, the smaller index comes out first).
fn ascending(a: &Candidate, b: &Candidate) -> Ordering {
    match a.score.partial_cmp(&b.score) {
        Some(Ordering::Equal) | None => b.index.cmp(&a.index),
        Some(o) => o,
    }
}

/// tfjs-core's `nonMaxSuppressionImpl_` (V3: `soft_nms_sigma` 0; V4: `pad`; V5: the scores),
/// on the values of `boxes` ([n, 4]) and `scores` ([n]); `max_output_size` already
/// `min(maxOutputSize, numBoxes)`.
pub fn nms_select(
    boxes: &[f64],
    scores: &[f64],
    max_output_size: f64,
    iou_threshold: f64,
    score_threshold: f64,
    soft_nms_sigma: f64,
    pad: bool,
) -> Nms {
    let mut candidates: Vec<Candidate> = scores
        .iter()
        .enumerate()
        .filter(|(_, &s)| s > score_threshold)
        .map(|(index, &score)| Candidate { score, index, suppress_begin: 0 })
        .collect();
    candidates.sort_by(ascending);
    let scale = if soft_nms_sigma > 0.0 { -0.5 / soft_nms_sigma } else { 0.0 };
    let mut indices: Vec<usize> = Vec::new();
    let mut selected_scores = Vec::new();
    while (indices.len() as f64) < max_output_size {
        let Some(mut candidate) = candidates.pop() else { break };
        let original = candidate.score;
        if original < score_threshold {
            break;
        }
        let mut ignore = false;
        let mut j = indices.len();
        while j > candidate.suppress_begin {
            j -= 1;
            let overlap = iou(boxes, candidate.index, indices[j]);
            if overlap >= iou_threshold {
                ignore = true;
                break;
            }
            let weight = if overlap <= iou_threshold { (scale * overlap * overlap).exp() } else { 0.0 };
            candidate.score *= weight;
            if candidate.score <= score_threshold {
                break;
            }
        }
        candidate.suppress_begin = indices.len();
        if !ignore {
            if candidate.score == original {
                indices.push(candidate.index);
                selected_scores.push(candidate.score);
            } else if candidate.score > score_threshold {
                let at = candidates.partition_point(|x| ascending(&candidate, x) == Ordering::Greater);
                candidates.insert(at, candidate);
            }
        }
    }
    let valid = indices.len();
    let mut indices: Vec<i32> = indices.into_iter().map(|i| i as i32).collect();
    if pad {
        let pad_to = max_output_size;
        while (indices.len() as f64) < pad_to {
            indices.push(0);
            selected_scores.push(0.0);
        }
    }
    Nms { indices, scores: selected_scores, valid }
}

impl Engine {
    /// `tf.unique` along `axis`: the distinct slices in order of first appearance, and for each
    /// slice the index of its value there (int32). Strings too.
    pub fn unique(&mut self, x: TensorId, axis: i64) -> Result<Vec<TensorId>> {
        let s = self.shape(x)?.to_vec();
        let rank = s.len();
        if rank == 0 {
            bail!("The input tensor must be at least 1D");
        }
        let r = rank as i64;
        if !(-r..r).contains(&axis) {
            bail!("All values in axis param must be in range [-{rank}, {rank}) but got axis {axis}");
        }
        let ax = if axis < 0 { axis + r } else { axis } as usize;
        let (outer, n, inner) = (s[..ax].iter().product::<usize>(), s[ax], s[ax + 1..].iter().product::<usize>());
        // Each slice's values as keys (JavaScript's: NaN equals NaN, -0 equals 0).
        let keys: Vec<Vec<u64>> = if self.dtype(x)? == DType::String {
            let v = self.read_strings(x)?;
            let mut ids: std::collections::HashMap<&[u8], u64> = std::collections::HashMap::new();
            let coded: Vec<u64> = v
                .iter()
                .map(|b| {
                    let next = ids.len() as u64;
                    *ids.entry(b.as_slice()).or_insert(next)
                })
                .collect();
            slices(&coded, outer, n, inner)
        } else {
            let v: Vec<u64> = self
                .read_f64(x)?
                .into_iter()
                .map(|f| {
                    if f.is_nan() {
                        f64::NAN.to_bits()
                    } else if f == 0.0 {
                        0
                    } else {
                        f.to_bits()
                    }
                })
                .collect();
            slices(&v, outer, n, inner)
        };
        let mut seen: std::collections::HashMap<&[u64], i32> = std::collections::HashMap::new();
        let (mut firsts, mut idx) = (Vec::new(), Vec::with_capacity(n));
        for (i, key) in keys.iter().enumerate() {
            let next = seen.len() as i32;
            let at = *seen.entry(key.as_slice()).or_insert_with(|| {
                firsts.push(i as i64);
                next
            });
            idx.push(at);
        }
        let values = self.composed(|e| {
            let f = e.tensor(HostData::I32(firsts.iter().map(|&i| i as i32).collect()), &[firsts.len()])?;
            e.gather(x, f, ax as i64, 0)
        })?;
        match self.tensor(HostData::I32(idx), &[n]) {
            Ok(indices) => Ok(vec![values, indices]),
            Err(err) => {
                self.dispose(values);
                Err(err)
            }
        }
    }
}

/// The values of each of the `n` slices along the middle axis of `[outer, n, inner]`.
fn slices(v: &[u64], outer: usize, n: usize, inner: usize) -> Vec<Vec<u64>> {
    (0..n)
        .map(|i| (0..outer).flat_map(|o| v[(o * n + i) * inner..(o * n + i + 1) * inner].iter().copied()).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nms_as_tfjs() {
        // tfjs's own test: boxes of two clusters; iou 0.5, max 3.
        let boxes = [
            0.0, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1, 0.0, -0.1, 1.0, 0.9, 0.0, 10.0, 1.0, 11.0, 0.0, 10.1, 1.0, 11.1,
            0.0, 100.0, 1.0, 101.0,
        ];
        let scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];
        let r = nms_select(&boxes, &scores, 3.0, 0.5, f64::NEG_INFINITY, 0.0, false);
        assert_eq!(r.indices, [3, 0, 5]);
        // A score threshold drops box 5.
        let r = nms_select(&boxes, &scores, 3.0, 0.5, 0.4, 0.0, false);
        assert_eq!(r.indices, [3, 0]);
        // Padded (V4).
        let r = nms_select(&boxes, &scores, 6.0, 0.5, 0.4, 0.0, true);
        assert_eq!((r.indices, r.valid), (vec![3, 0, 0, 0, 0, 0], 2));
        // Soft NMS (V5): sigma 0.5, iou 1.
        let r = nms_select(&boxes, &scores, 6.0, 1.0, 0.0, 0.5, false);
        assert_eq!(r.indices, [3, 0, 1, 5, 4, 2]);
        // tfjs: tf.image.nonMaxSuppressionWithScore(boxes, scores, 6, 1, 0, 0.5).
        let want = [0.95, 0.9, 0.38400352, 0.3, 0.2560026, 0.19697244];
        for (g, w) in r.scores.iter().zip(want) {
            assert!((g - w).abs() < 1e-3, "{:?}", r.scores);
        }
    }

    #[test]
    fn where_and_list_diff() {
        let (c, n) = where_coords(&[2, 3], &[true, false, false, false, true, true]);
        assert_eq!((c, n), (vec![0, 0, 1, 1, 1, 2], 3));
        assert_eq!(where_coords(&[], &[true]), (vec![], 1));
        let (out, idx) = list_diff(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[1.0, 3.0, 5.0]);
        assert_eq!((out, idx), (vec![2.0, 4.0, 6.0], vec![1, 3, 5]));
    }
}
