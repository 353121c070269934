//! Merge layers: a list of inputs to one output (concatenate, add, multiply, average,
//! maximum, minimum), and dot.

use super::one_output;
use crate::config::Cfg;
use crate::layer::{shape_text, Kind, MaskOut, Shape};
use crate::ops::Ops;
use serde_json::{json, Map, Value};
use tidytensor_core::{bail, BinaryOp, DType, Engine, ReduceOp, Result, TensorId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeOp {
    Concatenate,
    Add,
    Multiply,
    Average,
    Maximum,
    Minimum,
}

pub struct Merge {
    op: MergeOp,
    axis: i64,
}

impl Merge {
    pub fn new(op: MergeOp) -> Merge {
        Merge { op, axis: -1 }
    }
    pub fn concatenate(c: Cfg) -> Result<Merge> {
        Ok(Merge { op: MergeOp::Concatenate, axis: c.f64_or("axis", -1.0)? as i64 })
    }

    /// tfjs's Concatenate.computeMask: each input's mask (all true when it has none, widened
    /// to the input's rank), concatenated on the layer's axis, then `all` over the last axis.
    fn concat_mask(&self, e: &mut Engine, inputs: &[TensorId], masks: &[Option<TensorId>]) -> Result<Option<TensorId>> {
        if masks.len() != inputs.len() {
            bail!("Mismatch in the length of mask ({}) and the legnth of inputs ({})", masks.len(), inputs.len());
        }
        if masks.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut parts = Vec::with_capacity(masks.len());
        for (&x, m) in inputs.iter().zip(masks) {
            parts.push(match m {
                None => {
                    let ones = e.fill_like(x, 1.0)?;
                    e.cast(ones, DType::Bool)?
                }
                Some(m) if e.shape(*m)?.len() < e.shape(x)?.len() => e.expand_dims(*m, -1)?,
                Some(m) => *m,
            });
        }
        let all = e.concat(&parts, self.axis)?;
        Ok(Some(e.reduce(ReduceOp::All, all, Some(&[-1]), false)?))
    }
}

impl Kind for Merge {
    fn class_name(&self) -> &'static str {
        match self.op {
            MergeOp::Concatenate => "Concatenate",
            MergeOp::Add => "Add",
            MergeOp::Multiply => "Multiply",
            MergeOp::Average => "Average",
            MergeOp::Maximum => "Maximum",
            MergeOp::Minimum => "Minimum",
        }
    }
    fn takes_list(&self) -> bool {
        true
    }
    fn supports_masking(&self) -> bool {
        true
    }
    fn compute_mask(&self, e: &mut Engine, inputs: &[TensorId], masks: &[Option<TensorId>]) -> Result<Option<MaskOut>> {
        if masks.is_empty() {
            return Ok(Some(MaskOut::One(None)));
        }
        if self.op == MergeOp::Concatenate {
            return self.concat_mask(e, inputs, masks).map(|m| Some(MaskOut::One(m)));
        }
        if masks.len() != inputs.len() {
            bail!(
                "The Array 'inputs' and 'mask' are expected to have the same length, but have different lengths ({} vs {})",
                inputs.len(),
                masks.len()
            );
        }
        if masks.iter().all(Option::is_none) {
            return Ok(Some(MaskOut::One(None)));
        }
        // tfjs's Merge.computeMask as it is: each mask gains a leading axis, and the loop stops
        // before the last mask (two inputs give the first mask).
        let mut expanded = Vec::with_capacity(masks.len());
        for m in masks {
            expanded.push(match m {
                Some(m) => Some(e.expand_dims(*m, 0)?),
                None => None,
            });
        }
        let mut out = expanded[0];
        for m in expanded.iter().take(masks.len() - 1).skip(1) {
            out = match (out, m) {
                (Some(a), Some(b)) => Some(e.binary(BinaryOp::LogicalAnd, a, *b)?),
                (None, _) => {
                    bail!("Argument 'a' passed to 'logicalAnd' must be a Tensor or TensorLike, but got 'null'")
                }
                (_, None) => {
                    bail!("Argument 'b' passed to 'logicalAnd' must be a Tensor or TensorLike, but got 'null'")
                }
            };
        }
        Ok(Some(MaskOut::One(out)))
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        if inputs.len() < 2 {
            if self.op == MergeOp::Concatenate {
                bail!("A `Concatenate` layer should be called on a list of at least 2 inputs");
            }
            bail!("A merge layer should be called on an Array of at least 2 inputs. Got {} input(s).", inputs.len());
        }
        let first = &inputs[0];
        if self.op == MergeOp::Concatenate {
            let rank = first.len() as i64;
            let axis = if self.axis < 0 { rank + self.axis } else { self.axis };
            if axis < 0 || axis >= rank {
                bail!("Invalid concatenation axis {}", self.axis);
            }
            let a = axis as usize;
            let mut out = first.clone();
            for s in &inputs[1..] {
                let same_rest = s.len() == first.len()
                    && (0..s.len()).all(|i| i == a || s[i].is_none() || first[i].is_none() || s[i] == first[i]);
                if !same_rest {
                    bail!(
                        "A `Concatenate` layer requires inputs with matching shapes except for the concat axis. Got input shapes: {}",
                        inputs.iter().map(|s| shape_text(s)).collect::<Vec<_>>().join(", ")
                    );
                }
                out[a] = match (out[a], s[a]) {
                    (Some(x), Some(y)) => match x.checked_add(y) {
                        Some(v) => Some(v),
                        None => bail!("The output of Concatenate would be too large"),
                    },
                    _ => None,
                };
            }
            return Ok(vec![out]);
        }
        // tfjs's Merge: one batch size, and the other axes broadcast as its
        // computeElementwiseOpOutputShape does (aligned at the end; inputs of lower rank are
        // expanded at axis 1 when called).
        let batches: Vec<usize> = inputs.iter().filter_map(|s| s.first().copied().flatten()).collect();
        if batches.iter().any(|&b| b != batches[0]) {
            let all: Vec<String> = inputs.iter().map(|s| shape_text(s)).collect();
            bail!("Can not merge tensors with different batch sizes. Got tensors with shapes: [{}].", all.join(","));
        }
        let rest = |s: &Shape| -> Shape { s.get(1..).map_or_else(Vec::new, <[Option<usize>]>::to_vec) };
        let mut out = rest(first);
        for s in &inputs[1..] {
            out = elementwise_shape(&out, &rest(s))?;
        }
        out.insert(0, batches.first().copied());
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        if self.op == MergeOp::Concatenate {
            return one_output(e.concat(inputs, self.axis));
        }
        let op = match self.op {
            MergeOp::Add | MergeOp::Average => BinaryOp::Add,
            MergeOp::Multiply => BinaryOp::Mul,
            MergeOp::Maximum => BinaryOp::Maximum,
            _ => BinaryOp::Minimum,
        };
        // Inputs of lower rank are expanded at axis 1 until the ranks agree (tfjs's call).
        let max_rank = inputs.iter().map(|&x| e.shape(x).map(<[usize]>::len)).collect::<Result<Vec<_>>>()?;
        let max_rank = max_rank.into_iter().max().unwrap_or(0);
        let mut expanded = Vec::with_capacity(inputs.len());
        for &x in inputs {
            let shape = e.shape(x)?.to_vec();
            if shape.len() < max_rank && !shape.is_empty() {
                let mut to: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
                for _ in shape.len()..max_rank {
                    to.insert(1, 1);
                }
                expanded.push(e.reshape(x, &to)?);
            } else {
                expanded.push(x);
            }
        }
        let mut acc = e.clone_tensor(expanded[0])?;
        for &x in &expanded[1..] {
            acc = e.binary(op, acc, x)?;
        }
        if self.op == MergeOp::Average {
            acc = e.mul_s(acc, 1.0 / inputs.len() as f64)?;
        }
        Ok(vec![acc])
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if self.op == MergeOp::Concatenate {
            m.insert("axis".into(), json!(self.axis));
        }
        m
    }
}

/// The dot product of two inputs along an axis of each (tfjs's `Dot` and its `batchDot`),
/// optionally of their l2-normalised values (cosine proximity).
pub struct Dot {
    /// One axis for both inputs, or one each; negative counts from the end.
    axes: Value,
    normalize: bool,
}

/// tfjs's `interpretAxis`: a negative axis plus the rank (until it is not negative).
fn interpret_axis(axis: i64, rank: usize) -> i64 {
    let mut a = axis;
    while a < 0 && rank > 0 {
        a += rank as i64;
    }
    a
}

impl Dot {
    pub fn new(c: Cfg) -> Result<Dot> {
        let axes = match c.get("axes") {
            Some(v @ Value::Number(n)) if n.as_i64().is_some() => v.clone(),
            Some(Value::Array(a)) if a.len() == 2 && a.iter().all(|v| v.as_i64().is_some()) => Value::Array(a.clone()),
            Some(v) => bail!("Dot: axes must be an integer or an array of two integers, got {v}"),
            None => bail!("axes is required but was not provided"),
        };
        Ok(Dot { axes, normalize: c.bool_or("normalize", false)? })
    }

    /// The two axes for inputs of ranks `r1` and `r2` (both interpreted, unlike tfjs's build,
    /// which leaves a negative pair as it is and so checks nothing).
    fn axes_for(&self, r1: usize, r2: usize) -> [i64; 2] {
        match &self.axes {
            Value::Array(a) => {
                [interpret_axis(a[0].as_i64().unwrap_or(0), r1), interpret_axis(a[1].as_i64().unwrap_or(0), r2)]
            }
            v => {
                let a = v.as_i64().unwrap_or(0);
                [interpret_axis(a, r1), interpret_axis(a, r2)]
            }
        }
    }

    fn check_ranks(inputs: &[Shape]) -> Result<()> {
        if inputs.len() != 2 {
            bail!("A `Dot` layer should be called on a list of exactly 2 inputs.");
        }
        if inputs[0].len() > 3 || inputs[1].len() > 3 {
            bail!("Dot layer does not support tensors of 4D or higher rank yet.");
        }
        if inputs[0].len() < 2 || inputs[1].len() < 2 {
            bail!("batchDot requires the rank of x to be >= 2, but got {}", inputs[0].len().min(inputs[1].len()));
        }
        Ok(())
    }

    /// `x / sqrt(max(sum(x², axis), 1e-7))` (tfjs's l2Normalize).
    fn l2_normalize(e: &mut Engine, x: TensorId, axis: i64) -> Result<TensorId> {
        let sq = e.mul(x, x)?;
        let ss = e.reduce(tidytensor_core::ReduceOp::Sum, sq, Some(&[axis]), true)?;
        let ss = e.binary_s(BinaryOp::Maximum, ss, 1e-7)?;
        let norm = e.unary(tidytensor_core::UnaryOp::Sqrt, ss)?;
        e.div(x, norm)
    }

    /// tfjs's `batchDot`, step by step.
    fn batch_dot(e: &mut Engine, x: TensorId, y: TensorId, axes: [i64; 2]) -> Result<TensorId> {
        let (xs, ys) = (e.shape(x)?.to_vec(), e.shape(y)?.to_vec());
        let (xn, yn) = (xs.len(), ys.len());
        let ones = |n: usize| vec![1i64; n];
        let (mut x, mut y) = (x, y);
        let diff = xn.abs_diff(yn);
        if xn > yn {
            let mut s: Vec<i64> = ys.iter().map(|&d| d as i64).collect();
            s.extend(ones(diff));
            y = e.reshape(y, &s)?;
        } else if yn > xn {
            let mut s: Vec<i64> = xs.iter().map(|&d| d as i64).collect();
            s.extend(ones(diff));
            x = e.reshape(x, &s)?;
        }
        let rank = xn.max(yn);
        let mut out = if rank == 2 {
            if axes[0] == axes[1] {
                let p = e.mul(x, y)?;
                e.reduce(tidytensor_core::ReduceOp::Sum, p, Some(&[axes[0]]), false)?
            } else {
                let t = e.transpose(x, Some(&[1, 0]))?;
                let p = e.mul(t, y)?;
                e.reduce(tidytensor_core::ReduceOp::Sum, p, Some(&[axes[1]]), false)?
            }
        } else {
            let adj_x = axes[0] != rank as i64 - 1;
            let adj_y = axes[1] == rank as i64 - 1;
            e.matmul(x, y, adj_x, adj_y)?
        };
        if diff > 0 {
            let idx = if xn > yn { xn + yn - 3 } else { xn - 1 };
            let squeeze: Vec<i64> = (idx..idx + diff).map(|i| i as i64).collect();
            out = e.squeeze(out, Some(&squeeze))?;
        }
        if e.shape(out)?.len() == 1 {
            out = e.expand_dims(out, 1)?;
        }
        Ok(out)
    }
}

impl Kind for Dot {
    fn class_name(&self) -> &'static str {
        "Dot"
    }
    fn supports_masking(&self) -> bool {
        true
    }
    /// tfjs's Dot makes no mask.
    fn compute_mask(
        &self,
        _e: &mut Engine,
        _inputs: &[TensorId],
        _masks: &[Option<TensorId>],
    ) -> Result<Option<MaskOut>> {
        Ok(Some(MaskOut::One(None)))
    }
    fn takes_list(&self) -> bool {
        true
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Dot::check_ranks(inputs)?;
        let (s1, s2) = (&inputs[0], &inputs[1]);
        let [a1, a2] = self.axes_for(s1.len(), s2.len());
        let (d1, d2) = match (s1.get(a1 as usize), s2.get(a2 as usize)) {
            (Some(d1), Some(d2)) => (*d1, *d2),
            _ => bail!(
                "Dot: axes {} are out of range for inputs of shapes {} and {}",
                self.axes,
                shape_text(s1),
                shape_text(s2)
            ),
        };
        if d1 != d2 {
            let t = |d: Option<usize>| d.map_or("null".to_string(), |d| d.to_string());
            bail!("Dimension incompatibility: {} !== {}", t(d1), t(d2));
        }
        let mut out: Shape = s1.clone();
        out.remove(a1 as usize);
        let mut rest = s2.clone();
        rest.remove(a2 as usize);
        out.extend(rest.into_iter().skip(1));
        if out.len() == 1 {
            out.push(Some(1));
        }
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let shapes: Vec<Shape> = inputs.iter().map(|&x| e.shape(x).map(crate::layer::known)).collect::<Result<_>>()?;
        self.output_shapes(&shapes)?;
        let axes = self.axes_for(shapes[0].len(), shapes[1].len());
        let (mut x, mut y) = (inputs[0], inputs[1]);
        if self.normalize {
            x = Dot::l2_normalize(e, x, axes[0])?;
            y = Dot::l2_normalize(e, y, axes[1])?;
        }
        one_output(Dot::batch_dot(e, x, y, axes))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("axes".into(), self.axes.clone());
        m.insert("normalize".into(), json!(self.normalize));
        m
    }
}

/// tfjs's Merge.computeElementwiseOpOutputShape: two shapes aligned at the end, a 1 broadcast
/// against the other's dimension, unknown where either is.
fn elementwise_shape(a: &Shape, b: &Shape) -> Result<Shape> {
    if a.len() < b.len() {
        return elementwise_shape(b, a);
    }
    let mut out: Shape = a[..a.len() - b.len()].to_vec();
    for (k, &j) in b.iter().enumerate() {
        let i = a[a.len() - b.len() + k];
        out.push(match (i, j) {
            (None, _) | (_, None) => None,
            (Some(1), j) => j,
            (i, Some(1)) => i,
            (Some(x), Some(y)) if x == y => Some(x),
            _ => bail!("Operands could not be broadcast together with shapes {} {}", shape_text(a), shape_text(b)),
        });
    }
    Ok(out)
}
