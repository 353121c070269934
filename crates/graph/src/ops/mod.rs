//! The ops a node can run, one file per tfjs-converter executor (`operations/executors/*.ts`),
//! each following its tfjs counterpart: the same inputs (`getParamValue`: a tensor, a list of
//! tensors, or a number or list read from a tensor's values), the same attributes and defaults
//! (`op_list/*.ts`, see [`crate::op_table`]) and the same tfjs op.

mod arithmetic;
mod basic_math;
pub(crate) mod control;
mod convolution;
pub(crate) mod creation;
pub mod dynamic;
mod evaluation;
mod graph;
pub(crate) mod hash_table;
mod image;
mod logical;
mod matrices;
mod normalization;
mod ragged;
mod reduction;
mod slice_join;
mod sparse;
mod spectral;
mod string;
mod transformation;

use crate::attr::AttrReader;
use crate::graph::Node;
use crate::op_table::OPS;
use tidytensor_core::{bail, DType, Engine, Result, TensorId};

/// What an op sees of its node: the tensors of its data inputs and the attributes.
pub(crate) struct Ctx<'a> {
    pub node: &'a Node,
    pub ins: &'a [TensorId],
    /// Whether each input comes from a `NoOp` node (tfjs leaves those out of tensor lists).
    pub from_noop: &'a [bool],
    /// The graph's weights (never returned as they are by ops that clone).
    pub weights: &'a rustc_hash::FxHashSet<TensorId>,
}

impl Ctx<'_> {
    pub fn attrs(&self) -> AttrReader<'_> {
        self.node.attrs()
    }

    /// Input `i` (negative: from the end), as tfjs's `getParamValue` of a `tensor` param.
    pub fn t(&self, i: isize) -> Result<TensorId> {
        let k = if i < 0 { self.ins.len() as isize + i } else { i };
        match usize::try_from(k).ok().and_then(|k| self.ins.get(k)) {
            Some(&id) => Ok(id),
            None => bail!("the node has {} inputs; the op needs input {}", self.ins.len(), i),
        }
    }

    /// The inputs `start..end` (`end` 0: to the end; negative: from the end) except those of
    /// `NoOp` nodes, as a `tensors` param.
    pub fn tensors(&self, start: isize, end: isize) -> Vec<TensorId> {
        let len = self.ins.len() as isize;
        let s = if start < 0 { len + start } else { start }.clamp(0, len) as usize;
        let e = if end == 0 {
            len
        } else if end < 0 {
            len + end
        } else {
            end
        }
        .clamp(0, len) as usize;
        (s..e.max(s)).filter(|&i| !self.from_noop[i]).map(|i| self.ins[i]).collect()
    }

    /// The values of input `i`, as a `number[]` param reads them.
    pub fn nums(&self, e: &Engine, i: isize) -> Result<Vec<f64>> {
        let id = self.t(i)?;
        values(e, id)
    }

    /// The first value of input `i`, as a `number` param reads it (NaN when it has none).
    pub fn num(&self, e: &Engine, i: isize) -> Result<f64> {
        Ok(self.nums(e, i)?.first().copied().unwrap_or(f64::NAN))
    }

    /// tfjs's `cloneTensor`: a kept tensor as it is, any other a clone. The graph's weights
    /// are kept here but not in tfjs, so they are cloned.
    pub fn clone_of(&self, e: &mut Engine, id: TensorId) -> Result<TensorId> {
        let kept = e.tensor_origin(id).is_some_and(|o| o.kept);
        if kept && !self.weights.contains(&id) {
            Ok(id)
        } else {
            e.clone_tensor(id)
        }
    }
}

/// A tensor's values as f64 (`dataSync`).
pub(crate) fn values(e: &Engine, id: TensorId) -> Result<Vec<f64>> {
    e.read_f64(id)
}

/// A list of integers for the core's front-ends (tfjs passes numbers on; here they must be
/// integers).
pub(crate) fn ints(v: &[f64], what: &str) -> Result<Vec<i64>> {
    v.iter()
        .map(|&x| {
            if x.fract() == 0.0 && x.abs() < 9007199254740992.0 {
                Ok(x as i64)
            } else {
                bail!("{what} must be integers, but got {}", js_list(v))
            }
        })
        .collect()
}

pub(crate) use tidytensor_core::js::list as js_list;

/// A scalar of `dtype` (tfjs's `scalar(v, dtype)`).
pub(crate) fn scalar(e: &mut Engine, v: f64, dtype: DType) -> Result<TensorId> {
    e.fill(&[], v, dtype)
}

/// `[before, after]` pairs from a padding tensor's values (`[rank, 2]`).
pub(crate) fn pairs(v: &[f64]) -> Vec<[f64; 2]> {
    v.chunks(2).map(|c| [c[0], c.get(1).copied().unwrap_or(f64::NAN)]).collect()
}

/// The tfjs category of an op (`None`: tfjs does not map it).
fn category(op: &str) -> Option<&'static str> {
    if op == "BatchMatMulV3" {
        // TensorFlow 2.x's name for BatchMatMulV2 with output types; tfjs does not list it.
        return Some("matrices");
    }
    OPS.binary_search_by(|(name, _, _)| (*name).cmp(op)).ok().map(|i| OPS[i].1).filter(|c| !c.is_empty())
}

/// The TensorFlow attribute tfjs reads as a node's `dtype` (checked against fed tensors).
pub(crate) fn dtype_attr(node: &Node) -> Option<&'static str> {
    OPS.binary_search_by(|(name, _, _)| (*name).cmp(node.op.as_str())).ok().and_then(|i| OPS[i].2)
}

/// Every op tidytensor runs, by category.
fn implemented(category: &str) -> &'static [&'static str] {
    match category {
        "arithmetic" => arithmetic::OPS,
        "basic_math" => basic_math::OPS,
        "control" => control::OPS,
        "convolution" => convolution::OPS,
        "creation" => creation::OPS,
        "dynamic" => dynamic::OPS,
        "evaluation" => evaluation::OPS,
        "graph" => graph::OPS,
        "hash_table" => hash_table::OPS,
        "image" => image::OPS,
        "logical" => logical::OPS,
        "matrices" => matrices::OPS,
        "normalization" => normalization::OPS,
        "ragged" => ragged::OPS,
        "reduction" => reduction::OPS,
        "slice_join" => slice_join::OPS,
        "sparse" => sparse::OPS,
        "spectral" => spectral::OPS,
        "string" => string::OPS,
        "transformation" => transformation::OPS,
        _ => &[],
    }
}

/// The TensorFlow ops tidytensor's executor runs, sorted.
pub fn supported_ops() -> Vec<&'static str> {
    let mut all: Vec<&str> =
        OPS.iter().map(|(n, _, _)| *n).chain(["BatchMatMulV3"]).filter(|op| is_supported(op)).collect();
    all.sort_unstable();
    all
}

fn is_supported(op: &str) -> bool {
    category(op).is_some_and(|c| implemented(c).contains(&op))
}

/// Whether tfjs's op tables know the op (a custom op registered with tf.registerOp never
/// overrides one of them, as in tfjs-converter).
pub(crate) fn is_known(op: &str) -> bool {
    category(op).is_some()
}

/// Why a node's op cannot run here, if it cannot: tfjs's text for ops tfjs does not know.
pub(crate) fn unsupported(op: &str) -> Option<String> {
    if let Some(onnx_op) = op.strip_prefix(crate::onnx::PREFIX) {
        return crate::onnx::ops::kernel(onnx_op).is_none().then(|| format!("ONNX op {onnx_op} is not supported"));
    }
    match category(op) {
        None => Some(format!(
            "Unknown op '{op}'. File an issue at https://github.com/tensorflow/tfjs/issues so we can add it, or register a custom execution with tf.registerOp()"
        )),
        Some(_) if !is_supported(op) => Some(format!("Tensorflow Op is not supported: {op}")),
        Some(_) => None,
    }
}

/// Whether tfjs runs the op asynchronously (its executor returns a promise): control flow,
/// tensor arrays and lists, dynamic shapes, hash tables. Only `executeAsync` runs these.
pub(crate) fn is_async(op: &str) -> bool {
    matches!(category(op), Some("control" | "dynamic" | "hash_table"))
}

/// Whether the op is one of tfjs's hash table executor's: run by the control-flow executor,
/// with the model's tables.
pub(crate) fn is_hash_table(op: &str) -> bool {
    category(op) == Some("hash_table")
}

/// Whether the op is one of tfjs's control executor's: run by the control-flow executor.
pub(crate) fn is_control(op: &str) -> bool {
    category(op) == Some("control")
}

/// An op's implementation: a category module's `run`, which matches the node's op.
pub(crate) type Kernel = fn(&mut Engine, &Ctx) -> Result<Vec<TensorId>>;

/// The kernel of an op tidytensor runs outside control flow, found once per node at load.
/// (Control ops run in the control-flow executor, which knows the frames: [`control::run`].)
pub(crate) fn kernel(op: &str) -> Option<Kernel> {
    if let Some(onnx_op) = op.strip_prefix(crate::onnx::PREFIX) {
        return crate::onnx::ops::kernel(onnx_op);
    }
    let cat = category(op).filter(|&k| implemented(k).contains(&op))?;
    Some(match cat {
        "arithmetic" => arithmetic::run,
        "basic_math" => basic_math::run,
        "convolution" => convolution::run,
        "creation" => creation::run,
        "dynamic" => dynamic::run,
        "evaluation" => evaluation::run,
        "graph" => graph::run,
        "image" => image::run,
        "logical" => logical::run,
        "matrices" => matrices::run,
        "normalization" => normalization::run,
        "ragged" => ragged::run,
        "reduction" => reduction::run,
        "slice_join" => slice_join::run,
        "sparse" => sparse::run,
        "spectral" => spectral::run,
        "string" => string::run,
        "transformation" => transformation::run,
        _ => return None,
    })
}

/// Runs the node's op; its outputs in order.
pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    match c.node.kernel {
        Some(kernel) => kernel(e, c),
        None => {
            let op = c.node.op.as_str();
            bail!("{}", unsupported(op).unwrap_or_else(|| format!("Tensorflow Op is not supported: {op}")))
        }
    }
}

/// A dtype attribute that must name a tfjs dtype.
pub(crate) fn want_dtype(c: &Ctx, name: &str, default: Option<DType>) -> Result<DType> {
    match c.attrs().dtype(name) {
        Some(Some(d)) => Ok(d),
        Some(None) => bail!("the '{name}' attribute names a dtype tfjs does not have"),
        None => default.ok_or_else(|| tidytensor_core::Error::new(format!("the node has no '{name}' attribute"))),
    }
}

/// Not reached: each module's `run` matches exactly the ops of its `OPS`.
pub(crate) fn not_here(op: &str) -> Result<Vec<TensorId>> {
    bail!("Tensorflow Op is not supported: {op}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op tfjs-converter 4.22 maps runs here: the 242 of the op lists tfjs loads (all but
    /// Placeholder and Const, which the executor itself feeds and loads), the three ragged ops
    /// of the list tfjs ships but does not load, and BatchMatMulV3. Only the three tfdf ops,
    /// which no list gives an executor, stay unknown.
    #[test]
    fn every_converter_op_runs() {
        let missing: Vec<&str> = OPS
            .iter()
            .filter(|(op, cat, _)| !cat.is_empty() && !["Placeholder", "Const"].contains(op) && !is_supported(op))
            .map(|(op, _, _)| *op)
            .collect();
        assert!(missing.is_empty(), "not run: {missing:?}");
        let unmapped: Vec<&str> = OPS.iter().filter(|(_, cat, _)| cat.is_empty()).map(|(op, _, _)| *op).collect();
        assert_eq!(
            unmapped,
            ["SimpleMLCreateModelResource", "SimpleMLInferenceOpWithHandle", "SimpleMLLoadModelFromPathWithHandle"]
        );
        assert_eq!(supported_ops().len(), OPS.len() - 3 - 2 + 1);
    }
}
