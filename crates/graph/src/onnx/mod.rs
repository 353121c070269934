//! ONNX models (`tf.loadOnnxModel`): a `.onnx` file decoded with prost (the types build.rs
//! generates from ONNX's own `onnx.proto`) and turned into a [`Graph`] of the same executor
//! that runs tfjs graph models. Each ONNX node becomes a node whose op is `onnx::<OpType>`
//! (its kernel is in [`ops`]), each initializer and `Constant` a weight of a `Const` node, each
//! graph input a `Placeholder`, each graph output an `Identity` named as the output: so
//! `GraphModel.inputs`/`outputs`, `predict`, `execute` and `executeAsync` are those of a graph
//! model, and the weights are owned and disposed the same way.

pub(crate) mod ops;
mod tensor;

use crate::graph::Graph;
use prost::Message;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use tidytensor_core::{bail, DType, Engine, Error, Result, TensorId};

/// The types of `onnx.proto`.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub(crate) mod proto {
    include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
}

/// The op of an ONNX node in the graph: `onnx::Conv`.
pub(crate) const PREFIX: &str = "onnx::";
/// The node standing for an absent optional input (ONNX's empty input name).
pub(crate) const ABSENT: &str = "onnx.absent";
/// The opsets of the default domain read here: all up to the newest that the `onnx` package on
/// PyPI (1.23) defines. The kernels follow each op's older forms where they differ.
pub const OPSETS: std::ops::RangeInclusive<i64> = 1..=28;

/// Loads an ONNX model: `bytes` of the `.onnx` file, `folder` the model's folder, where external
/// data files are read (and only there; none without a folder). On error nothing is left
/// allocated.
pub fn load(e: &mut Engine, bytes: &[u8], folder: Option<&Path>) -> Result<Graph> {
    let model = proto::ModelProto::decode(bytes)
        .map_err(|err| Error::new(format!("Invalid ONNX model (not an ONNX protobuf file): {err}")))?;
    let Some(graph) = model.graph.as_ref() else { bail!("Invalid ONNX model: it has no graph") };
    let opset = model
        .opset_import
        .iter()
        .find(|o| matches!(o.domain.as_deref(), None | Some("") | Some("ai.onnx")))
        .and_then(|o| o.version)
        .unwrap_or(1);
    if !OPSETS.contains(&opset) {
        bail!(
            "The ONNX model imports opset {opset} of the default domain; tidytensor reads opsets {} to {}",
            OPSETS.start(),
            OPSETS.end()
        );
    }
    let mut weights: Vec<(String, TensorId)> = Vec::new();
    let built = build(e, graph, opset, folder, &mut weights);
    let topology = match built {
        Ok(t) => t,
        Err(err) => {
            for (_, id) in weights {
                e.dispose(id);
            }
            return Err(err);
        }
    };
    Graph::load(e, &topology.to_string(), &weights)
}

/// A serialized ONNX `TensorProto` (the `.pb` files of ONNX's backend tests) as a tensor.
pub fn decode_tensor(e: &mut Engine, bytes: &[u8]) -> Result<TensorId> {
    let t = proto::TensorProto::decode(bytes)
        .map_err(|err| Error::new(format!("Invalid ONNX tensor (not a TensorProto): {err}")))?;
    Ok(tensor::load(e, &t, None, &format!("tensor '{}'", t.name()))?.0)
}

/// Standard base64, as the attributes of graph nodes hold strings.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ABC[(n >> (18 - 6 * i)) as usize & 63] as char } else { '=' });
        }
    }
    out
}

/// The dtype tfjs's graph attributes name (`DT_FLOAT`) for the tensor an ONNX element type
/// loads as; `None` for a type tidytensor cannot hold.
fn tf_dtype(elem_type: i32) -> Option<&'static str> {
    Some(match tensor::dtype_of(elem_type)? {
        DType::Float32 => "DT_FLOAT",
        DType::Int32 => "DT_INT32",
        DType::Bool => "DT_BOOL",
        _ => return None,
    })
}

/// A graph input's `shape` and `dtype` attributes: symbolic and unknown dimensions as -1.
fn placeholder_attrs(v: &proto::ValueInfoProto) -> Result<Map<String, Value>> {
    let name = v.name();
    let Some(proto::type_proto::Value::TensorType(t)) = v.r#type.as_ref().and_then(|t| t.value.as_ref()) else {
        bail!("The ONNX model's input '{name}' is not a tensor; tidytensor reads tensor inputs only");
    };
    let elem = t.elem_type();
    let Some(dtype) = tf_dtype(elem) else {
        bail!(
            "The ONNX model's input '{name}' has element type {}, which tidytensor does not support",
            tensor::type_name(elem)
        );
    };
    let mut attrs = Map::new();
    attrs.insert("dtype".into(), json!({ "type": dtype }));
    if let Some(shape) = &t.shape {
        let dims: Vec<Value> = shape
            .dim
            .iter()
            .map(|d| {
                let size = match d.value {
                    Some(proto::tensor_shape_proto::dimension::Value::DimValue(n)) if n >= 0 => n,
                    _ => -1,
                };
                json!({ "size": size.to_string() })
            })
            .collect();
        attrs.insert("shape".into(), json!({ "shape": { "dim": dims } }));
    }
    Ok(attrs)
}

/// An ONNX attribute as a graph node's attribute (`{i}`, `{f}`, `{s}`, `{list: ...}`).
fn attribute(node: &str, a: &proto::AttributeProto) -> Result<Value> {
    use proto::attribute_proto::AttributeType as T;
    let name = a.name();
    Ok(match a.r#type() {
        T::Int => json!({ "i": a.i() }),
        T::Float => json!({ "f": a.f() }),
        T::String => json!({ "s": base64(a.s()) }),
        T::Ints => json!({ "list": { "i": a.ints } }),
        T::Floats => json!({ "list": { "f": a.floats } }),
        T::Strings => json!({ "list": { "s": a.strings.iter().map(|s| base64(s)).collect::<Vec<_>>() } }),
        other => bail!(
            "The attribute '{name}' of ONNX node '{node}' is of type {}, which tidytensor does not read (subgraphs and tensor attributes are read only where an op needs them)",
            other.as_str_name()
        ),
    })
}

/// The graph as graph-model JSON (`{modelTopology: {node}, signature}`), the weights it
/// makes pushed to `weights`.
fn build(
    e: &mut Engine,
    g: &proto::GraphProto,
    opset: i64,
    folder: Option<&Path>,
    weights: &mut Vec<(String, TensorId)>,
) -> Result<Value> {
    let mut nodes: Vec<Value> = Vec::new();
    let mut names = Names::default();
    // The node (or `node:k`, an op's output k) that holds each ONNX value.
    let mut value_of: HashMap<String, String> = HashMap::new();
    nodes.push(json!({ "name": ABSENT, "op": "Const", "attr": { "dtype": { "type": "DT_FLOAT" } } }));
    weights.push((ABSENT.to_string(), e.tensor(tidytensor_core::HostData::F32(Vec::new()), &[0])?));
    for t in &g.initializer {
        let (id, dtype) = tensor::load(e, t, folder, &format!("initializer '{}'", t.name()))?;
        let name = names.claim(t.name());
        weights.push((name.clone(), id));
        nodes.push(json!({ "name": name, "op": "Const", "attr": { "dtype": { "type": dtype } } }));
        value_of.insert(t.name().to_string(), name);
    }
    // Graph inputs that an initializer also gives are its defaults: the initializer stands.
    let mut inputs = Vec::new();
    let given: HashSet<&str> = g.initializer.iter().map(|t| t.name()).collect();
    for v in g.input.iter().filter(|v| !given.contains(v.name())) {
        let name = names.claim(v.name());
        nodes.push(json!({ "name": name, "op": "Placeholder", "attr": placeholder_attrs(v)? }));
        value_of.insert(v.name().to_string(), name.clone());
        inputs.push(json!([v.name(), name]));
    }
    // The outputs' names are kept for the Identity nodes that will give them.
    for v in g.output.iter().filter(|v| !value_of.contains_key(v.name())) {
        names.reserve(v.name());
    }
    let mut unsupported: Vec<String> = Vec::new();
    for (i, n) in g.node.iter().enumerate() {
        let op = n.op_type();
        let label = if n.name().is_empty() { format!("{op} #{i}") } else { n.name().to_string() };
        if !matches!(n.domain(), "" | "ai.onnx") {
            bail!("ONNX node '{label}' is of domain '{}'; tidytensor runs the default domain's ops", n.domain());
        }
        // A constant is a weight.
        if op == "Constant" {
            let out = n.output.first().map(String::as_str).unwrap_or_default();
            let (id, dtype) = constant(e, n, &label, folder)?;
            let name = names.claim(out);
            weights.push((name.clone(), id));
            nodes.push(json!({ "name": name, "op": "Const", "attr": { "dtype": { "type": dtype } } }));
            value_of.insert(out.to_string(), name);
            continue;
        }
        if ops::kernel(op).is_none() {
            unsupported.push(format!("{op} ('{label}')"));
        }
        let mut attr = Map::new();
        for a in &n.attribute {
            let value = if op == "ConstantOfShape" && a.name() == "value" {
                // The fill value: a one-element tensor, read here as a number and its dtype.
                let Some(t) = &a.t else { bail!("ONNX node '{label}' has a value that is not a tensor") };
                let (id, dtype) = tensor::load(e, t, folder, &format!("the value of node '{label}'"))?;
                let v = e.read_f64(id);
                e.dispose(id);
                attr.insert("dtype".into(), json!({ "type": dtype }));
                json!({ "f": v?.first().copied().unwrap_or(0.0) })
            } else {
                attribute(&label, a)?
            };
            attr.insert(a.name().to_string(), value);
        }
        attr.insert("opset".into(), json!({ "i": opset }));
        attr.insert("_outputs".into(), json!({ "i": n.output.len() }));
        let absent: Vec<usize> = (0..n.input.len()).filter(|&i| n.input[i].is_empty()).collect();
        attr.insert("_absent".into(), json!({ "list": { "i": absent } }));
        let mut ins = Vec::with_capacity(n.input.len());
        for input in &n.input {
            if input.is_empty() {
                ins.push(format!("{ABSENT}:0"));
                continue;
            }
            let Some(held) = value_of.get(input) else {
                bail!("ONNX node '{label}' reads '{input}', which no input, initializer or earlier node gives (the graph must be in topological order)");
            };
            ins.push(held.clone());
        }
        let name = names.claim(if n.name().is_empty() { op } else { n.name() });
        for (k, out) in n.output.iter().enumerate() {
            if !out.is_empty() {
                value_of.insert(out.clone(), format!("{name}:{k}"));
            }
        }
        nodes.push(json!({ "name": name, "op": format!("{PREFIX}{op}"), "input": ins, "attr": attr }));
    }
    if !unsupported.is_empty() {
        bail!("The ONNX model uses ops tidytensor does not run yet: {}", unsupported.join(", "));
    }
    let mut outputs = Vec::new();
    for v in &g.output {
        let name = v.name();
        let Some(held) = value_of.get(name) else { bail!("The ONNX model's output '{name}' is given by no node") };
        // An output that is an input or an initializer is that node; an op's output gets an
        // Identity named as the output.
        if !held.contains(':') {
            outputs.push(json!([name, held]));
            continue;
        }
        let dtype = match v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
            Some(proto::type_proto::Value::TensorType(t)) => tf_dtype(t.elem_type()),
            _ => None,
        };
        let mut attr = Map::new();
        if let Some(d) = dtype {
            attr.insert("T".into(), json!({ "type": d }));
        }
        let node = names.claim_reserved(name);
        nodes.push(json!({ "name": node, "op": "Identity", "input": [held], "attr": attr }));
        outputs.push(json!([name, node]));
    }
    Ok(json!({ "modelTopology": { "node": nodes }, "signature": { "inputs": inputs, "outputs": outputs } }))
}

/// The graph's node names: unique, without the `:` that would read as an output index, the
/// graph outputs' names kept for them.
#[derive(Default)]
struct Names {
    taken: HashSet<String>,
    reserved: HashSet<String>,
}

impl Names {
    fn clean(base: &str) -> String {
        if base.is_empty() {
            "node".to_string()
        } else {
            base.replace(':', "_")
        }
    }

    fn reserve(&mut self, base: &str) {
        self.reserved.insert(Names::clean(base));
    }

    /// A name for a node: `base`, or `base_1`, `base_2`... where that is taken or kept for an
    /// output.
    fn claim(&mut self, base: &str) -> String {
        let base = Names::clean(base);
        let mut name = base.clone();
        let mut k = 1;
        while self.taken.contains(&name) || self.reserved.contains(&name) || name == ABSENT {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// An output's own name, kept for it by [`Names::reserve`] (or the next free one).
    fn claim_reserved(&mut self, base: &str) -> String {
        let clean = Names::clean(base);
        if self.reserved.remove(&clean) && !self.taken.contains(&clean) {
            self.taken.insert(clean.clone());
            return clean;
        }
        self.claim(base)
    }
}

/// A `Constant` node's value (`value`, `value_float(s)`, `value_int(s)`) as a tensor.
fn constant(
    e: &mut Engine,
    n: &proto::NodeProto,
    label: &str,
    folder: Option<&Path>,
) -> Result<(TensorId, &'static str)> {
    use tidytensor_core::HostData;
    let Some(a) = n.attribute.first() else { bail!("ONNX Constant node '{label}' has no value") };
    let what = format!("the value of Constant node '{label}'");
    Ok(match a.name() {
        "value" => match &a.t {
            Some(t) => tensor::load(e, t, folder, &what)?,
            None => bail!("ONNX Constant node '{label}' has no value tensor"),
        },
        "value_float" => (e.tensor(HostData::F32(vec![a.f()]), &[])?, "DT_FLOAT"),
        "value_floats" => (e.tensor(HostData::F32(a.floats.clone()), &[a.floats.len()])?, "DT_FLOAT"),
        "value_int" => (e.tensor(HostData::I32(vec![tensor::to_i32(a.i(), &what)?]), &[])?, "DT_INT32"),
        "value_ints" => {
            let v = a.ints.iter().map(|&i| tensor::to_i32(i, &what)).collect::<Result<Vec<_>>>()?;
            (e.tensor(HostData::I32(v), &[a.ints.len()])?, "DT_INT32")
        }
        other => bail!("ONNX Constant node '{label}' has a '{other}' value, which tidytensor does not read"),
    })
}
