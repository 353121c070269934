//! tfjs-converter's `dynamic_executor.ts`: the ops whose output shape depends on input values.
//! Each reads its inputs on the host (tfjs awaits `data()`), computes as tfjs-core's host
//! implementations do (`non_max_suppression_impl.ts`, `where_impl.ts`, `setdiff1d_async.ts`) and
//! makes new tensors. tfjs runs them only in `executeAsync`; so does [`crate::Graph`].

use super::{not_here, values, Ctx};
use std::cmp::Ordering;
use std::collections::HashSet;
use tidytensor_core::{bail, DType, Engine, HostData, Result, TensorId};

pub(crate) const OPS: &[&str] =
    &["NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5", "Where", "ListDiff"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    match op {
        "NonMaxSuppressionV2" | "NonMaxSuppressionV3" | "NonMaxSuppressionV4" | "NonMaxSuppressionV5" => nms(e, c, op),
        "Where" => {
            // ops.cast(condition, 'bool'), then whereAsync: the coordinates of the true values.
            let x = c.t(0)?;
            let shape = e.shape(x)?.to_vec();
            let truth: Vec<bool> = values(e, x)?.into_iter().map(|v| v != 0.0).collect();
            let (coords, n) = where_coords(&shape, &truth);
            Ok(vec![e.tensor(HostData::I32(coords), &[n, shape.len()])?])
        }
        "ListDiff" => {
            let (x, y) = (c.t(0)?, c.t(1)?);
            let (xd, yd) = (e.dtype(x)?, e.dtype(y)?);
            if xd != yd {
                bail!("x and y should have the same dtype, but got x ({}) and y ({}).", xd.name(), yd.name());
            }
            let (xs, ys) = (e.shape(x)?.to_vec(), e.shape(y)?.to_vec());
            if xs.len() != 1 {
                bail!("x should be 1D tensor, but got x ({}).", join(&xs));
            }
            if ys.len() != 1 {
                bail!("y should be 1D tensor, but got y ({}).", join(&ys));
            }
            let (xv, yv) = (values(e, x)?, values(e, y)?);
            let (out, idx) = list_diff(&xv, &yv);
            let n = out.len();
            let out = e.tensor(HostData::from_f64(xd, out), &[n])?;
            let idx = e.tensor(HostData::I32(idx), &[n])?;
            Ok(vec![out, idx])
        }
        _ => not_here(op),
    }
}

fn join(v: &[usize]) -> String {
    v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

/// tfjs's `whereImpl`: the row-major coordinates of each true value, and how many there are.
pub(crate) fn where_coords(shape: &[usize], truth: &[bool]) -> (Vec<i32>, usize) {
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
pub(crate) fn list_diff(x: &[f64], y: &[f64]) -> (Vec<f64>, Vec<i32>) {
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
pub fn non_max_suppression(
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

/// The NonMaxSuppression ops: tfjs's `nmsParams`, `nonMaxSuppSanityCheck` (its texts) and the
/// async op of each version.
fn nms(e: &mut Engine, c: &Ctx, op: &str) -> Result<Vec<TensorId>> {
    let (boxes, scores) = (c.t(0)?, c.t(1)?);
    let max_output_size = c.num(e, 2)?;
    let iou_threshold = c.num(e, 3)?;
    // V2 has no score threshold input: undefined, so the default.
    let score_threshold = if op == "NonMaxSuppressionV2" { f64::NEG_INFINITY } else { c.num(e, 4)? };
    let soft_nms_sigma = if op == "NonMaxSuppressionV5" { c.num(e, 5)? } else { 0.0 };
    let bs = e.shape(boxes)?.to_vec();
    let ss = e.shape(scores)?.to_vec();
    let num_boxes = bs.first().map_or(f64::NAN, |&n| n as f64);
    let max_output_size = js_min(max_output_size, num_boxes);
    if !(0.0..=1.0).contains(&iou_threshold) {
        bail!("iouThreshold must be in [0, 1], but was '{}'", tidytensor_core::random::js_number_string(iou_threshold));
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
        bail!(
            "softNmsSigma must be in [0, 1], but was '{}'",
            tidytensor_core::random::js_number_string(soft_nms_sigma)
        );
    }
    let (bv, sv) = (values(e, boxes)?, values(e, scores)?);
    let pad = op == "NonMaxSuppressionV4" && c.attrs().bool("pad_to_max_output_size", false);
    let r = non_max_suppression(&bv, &sv, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, pad);
    let n = r.indices.len();
    let indices = e.tensor(HostData::I32(r.indices), &[n])?;
    Ok(match op {
        "NonMaxSuppressionV5" => {
            let scores = e.tensor(HostData::from_f64(DType::Float32, r.scores), &[n])?;
            vec![indices, scores]
        }
        "NonMaxSuppressionV4" => {
            let valid = e.tensor(HostData::I32(vec![r.valid as i32]), &[])?;
            vec![indices, valid]
        }
        _ => vec![indices],
    })
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
        let r = non_max_suppression(&boxes, &scores, 3.0, 0.5, f64::NEG_INFINITY, 0.0, false);
        assert_eq!(r.indices, [3, 0, 5]);
        // A score threshold drops box 5.
        let r = non_max_suppression(&boxes, &scores, 3.0, 0.5, 0.4, 0.0, false);
        assert_eq!(r.indices, [3, 0]);
        // Padded (V4).
        let r = non_max_suppression(&boxes, &scores, 6.0, 0.5, 0.4, 0.0, true);
        assert_eq!((r.indices, r.valid), (vec![3, 0, 0, 0, 0, 0], 2));
        // Soft NMS (V5): sigma 0.5, iou 1.
        let r = non_max_suppression(&boxes, &scores, 6.0, 1.0, 0.0, 0.5, false);
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
