//! ONNX models (`tf.loadOnnxModel`): a `.onnx` file decoded with prost (the types build.rs
//! generates from ONNX's own `onnx.proto`) and turned into a [`Graph`] of the same executor
//! that runs tfjs graph models. Each ONNX node becomes a node whose op is `onnx::<OpType>`
//! (its kernel is in [`ops`]), each initializer and `Constant` a weight of a `Const` node, each
//! graph input a `Placeholder`, each graph output an `Identity` named as the output, and each
//! If and Loop a `StatelessIf`/`StatelessWhile` over functions of the graph's library (their
//! subgraphs): so `GraphModel.inputs`/`outputs`, `predict`, `execute` and `executeAsync` are
//! those of a graph model, and the weights are owned and disposed the same way.
//!
//! The graph is optimised as it is written: nodes of weights alone run at load (constant
//! folding), convolution filters are reordered once, a layout pass keeps activations
//! channels-last between convolutions ([`Layout`]), and an activation after a convolution joins
//! its fused kernel.

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
    let mut shared = Shared { opset, folder, names: Names::default(), weights: Vec::new(), functions: Vec::new() };
    let built = build(e, &mut shared, graph, &[]).map(|mut main| {
        // The weights no node reads any more (folded into others) go.
        let Shared { weights, functions, .. } = &mut shared;
        let used_by_functions: Vec<String> = functions
            .iter()
            .flat_map(|f| f.get("ret").and_then(Value::as_object).into_iter().flat_map(|r| r.values()))
            .filter_map(|v| v.as_str().map(|s| crate::graph::parse_name(s).0.to_string()))
            .collect();
        let outputs: Vec<String> = main.outputs.iter().map(|(_, held)| held.clone()).chain(used_by_functions).collect();
        let mut lists: Vec<&mut Vec<Value>> = vec![&mut main.nodes];
        for f in functions.iter_mut() {
            if let Some(Value::Array(list)) = f.get_mut("nodeDef") {
                lists.push(list);
            }
        }
        prune(e, lists, weights, &outputs);
        let inputs: Vec<Value> = main.args.iter().map(|(k, n)| json!([k, n])).collect();
        let outs: Vec<Value> = main.outputs.iter().map(|(k, n)| json!([k, n])).collect();
        json!({
            "modelTopology": { "node": main.nodes, "library": { "function": functions } },
            "signature": { "inputs": inputs, "outputs": outs },
        })
    });
    let topology = match built {
        Ok(t) => t,
        Err(err) => {
            for (_, id) in shared.weights {
                e.dispose(id);
            }
            return Err(err);
        }
    };
    let weights = shared.weights;
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
    // A subgraph's inputs may leave their type to be inferred.
    if v.r#type.as_ref().and_then(|t| t.value.as_ref()).is_none() {
        return Ok(Map::new());
    }
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

/// What the graphs of one model share as they are written: the opset and folder, node names
/// (unique across the graph and its functions, as weights are named by them), the weights, and
/// the functions the subgraphs become.
struct Shared<'a> {
    opset: i64,
    folder: Option<&'a Path>,
    names: Names,
    weights: Vec<(String, TensorId)>,
    functions: Vec<Value>,
}

/// A graph written as GraphDef nodes: its arguments (ONNX name, placeholder node) and its
/// outputs (ONNX name, the node output that gives it).
struct Built {
    nodes: Vec<Value>,
    args: Vec<(String, String)>,
    outputs: Vec<(String, String)>,
}

/// Writes graph `g` as GraphDef nodes, its weights pushed to `s.weights`. `captured`: the
/// values of enclosing graphs a subgraph reads, each a placeholder argument first.
fn build(e: &mut Engine, s: &mut Shared, g: &proto::GraphProto, captured: &[String]) -> Result<Built> {
    let (opset, folder) = (s.opset, s.folder);
    let mut nodes: Vec<Value> = Vec::new();
    // The node (or `node:k`, an op's output k) that holds each ONNX value.
    let mut value_of: HashMap<String, String> = HashMap::new();
    // The weights by node name: what constant folding reads.
    let mut consts: HashMap<String, TensorId> = HashMap::new();
    // The node that stands for absent optional inputs (the kernels know them by position).
    let absent_node =
        if captured.is_empty() && s.weights.is_empty() { ABSENT.to_string() } else { s.names.claim(ABSENT) };
    nodes.push(json!({ "name": absent_node, "op": "Const", "attr": { "dtype": { "type": "DT_FLOAT" } } }));
    let absent = e.tensor(tidytensor_core::HostData::F32(Vec::new()), &[0])?;
    s.weights.push((absent_node.clone(), absent));
    consts.insert(absent_node.clone(), absent);
    let mut args = Vec::new();
    for v in captured {
        let name = s.names.claim(v);
        nodes.push(json!({ "name": name, "op": "Placeholder", "attr": {} }));
        value_of.insert(v.clone(), name.clone());
        args.push((v.clone(), name));
    }
    for t in &g.initializer {
        let (id, dtype) = tensor::load(e, t, folder, &format!("initializer '{}'", t.name()))?;
        let name = s.names.claim(t.name());
        s.weights.push((name.clone(), id));
        consts.insert(name.clone(), id);
        nodes.push(json!({ "name": name, "op": "Const", "attr": { "dtype": { "type": dtype } } }));
        value_of.insert(t.name().to_string(), name);
    }
    // Graph inputs that an initializer also gives are its defaults: the initializer stands.
    let given: HashSet<&str> = g.initializer.iter().map(|t| t.name()).collect();
    for v in g.input.iter().filter(|v| !given.contains(v.name())) {
        let name = s.names.claim(v.name());
        nodes.push(json!({ "name": name, "op": "Placeholder", "attr": placeholder_attrs(v)? }));
        value_of.insert(v.name().to_string(), name.clone());
        args.push((v.name().to_string(), name));
    }
    // The outputs' names are kept for the Identity nodes that will give them.
    for v in g.output.iter().filter(|v| !value_of.contains_key(v.name())) {
        s.names.reserve(v.name());
    }
    // Values held channels-last (NHWC) by the node that gives them, where that is the only
    // form so far (`value_of` then lacks them until a node needs NCHW).
    let mut nhwc_of: HashMap<String, String> = HashMap::new();
    let layout = Layout { opset };
    // How many nodes (and graph outputs) read each value; and where each op node is in `nodes`.
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for input in g.node.iter().flat_map(|n| &n.input).chain(g.output.iter().filter_map(|v| v.name.as_ref())) {
        *uses.entry(input.as_str()).or_default() += 1;
    }
    let mut node_at: HashMap<String, usize> = HashMap::new();
    let mut unsupported: Vec<String> = Vec::new();
    // ONNX's element type of each value where the file says it (or an op decides it): int8 and
    // uint16 load as int32, and the ops whose results depend on the width read it (`_types`).
    let mut elem_of: HashMap<String, i32> = HashMap::new();
    for v in g.input.iter().chain(&g.value_info).chain(&g.output) {
        if let Some(proto::type_proto::Value::TensorType(t)) = v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
            elem_of.insert(v.name().to_string(), t.elem_type());
        }
    }
    for t in &g.initializer {
        elem_of.insert(t.name().to_string(), t.data_type());
    }
    for (i, n) in g.node.iter().enumerate() {
        let label = if n.name().is_empty() { format!("{} #{i}", n.op_type()) } else { n.name().to_string() };
        if !ops::runs(n.domain(), n.op_type()) {
            bail!(
                "ONNX node '{label}' is {} of domain '{}'; tidytensor runs the default domain's ops and these of com.microsoft: {}",
                n.op_type(),
                n.domain(),
                ops::CONTRIB_OPS.join(", ")
            );
        }
        // A contrib op's node is `onnx::com.microsoft.<Op>`.
        let qualified;
        let op = if matches!(n.domain(), "" | "ai.onnx") {
            n.op_type()
        } else {
            qualified = format!("{}.{}", n.domain(), n.op_type());
            qualified.as_str()
        };
        // A constant is a weight.
        if op == "Constant" {
            let out = n.output.first().map(String::as_str).unwrap_or_default();
            if let Some(t) = n.attribute.iter().find(|a| a.name() == "value").and_then(|a| a.t.as_ref()) {
                elem_of.insert(out.to_string(), t.data_type());
            }
            let (id, dtype) = constant(e, n, &label, folder)?;
            let name = s.names.claim(out);
            s.weights.push((name.clone(), id));
            consts.insert(name.clone(), id);
            nodes.push(json!({ "name": name, "op": "Const", "attr": { "dtype": { "type": dtype } } }));
            value_of.insert(out.to_string(), name);
            continue;
        }
        if op == "If" {
            let branch = |key: &str| n.attribute.iter().find(|a| a.name() == key).and_then(|a| a.g.as_ref());
            let (Some(then_g), Some(else_g)) = (branch("then_branch"), branch("else_branch")) else {
                bail!("ONNX If node '{label}' lacks a branch");
            };
            // The branches become functions; the outer values they read, their arguments.
            let mut captured: Vec<String> = Vec::new();
            for v in free_values(then_g).into_iter().chain(free_values(else_g)) {
                if !captured.contains(&v) {
                    captured.push(v);
                }
            }
            let Some(cond) = n.input.first() else { bail!("ONNX If node '{label}' has no condition") };
            for v in std::iter::once(cond).chain(&captured) {
                if !value_of.contains_key(v) && !nhwc_of.contains_key(v) {
                    bail!("ONNX If node '{label}' reads '{v}', which nothing before it gives");
                }
            }
            let ins: Vec<String> = std::iter::once(cond)
                .chain(&captured)
                .map(|v| layout.held(v, false, &mut value_of, &mut nhwc_of, &mut nodes, &mut s.names))
                .collect();
            let name = s.names.claim(if n.name().is_empty() { op } else { n.name() });
            let then_f = function(e, s, then_g, &captured, &format!("{name}/then"))
                .map_err(|err| Error::new(format!("{err} (in the then branch of ONNX node '{label}')")))?;
            let else_f = function(e, s, else_g, &captured, &format!("{name}/else"))
                .map_err(|err| Error::new(format!("{err} (in the else branch of ONNX node '{label}')")))?;
            for (k, out) in n.output.iter().enumerate() {
                if !out.is_empty() {
                    value_of.insert(out.clone(), format!("{name}:{k}"));
                }
            }
            let attr =
                json!({ "then_branch": { "func": { "name": then_f } }, "else_branch": { "func": { "name": else_f } } });
            nodes.push(json!({ "name": name, "op": "StatelessIf", "input": ins, "attr": attr }));
            continue;
        }
        if op == "Loop" {
            let Some(body) = n.attribute.iter().find(|a| a.name() == "body").and_then(|a| a.g.as_ref()) else {
                bail!("ONNX Loop node '{label}' has no body");
            };
            let carried = n.input.len().saturating_sub(2);
            // The body's outputs past its condition and carried values are scan outputs: each
            // round's value, stacked.
            let scan_types = output_dtypes(body, 1 + carried);
            let captured: Vec<String> = free_values(body);
            for v in n.input.iter().filter(|v| !v.is_empty()).chain(&captured) {
                if !value_of.contains_key(v) && !nhwc_of.contains_key(v) {
                    bail!("ONNX Loop node '{label}' reads '{v}', which nothing before it gives");
                }
            }
            let name = s.names.claim(if n.name().is_empty() { op } else { n.name() });
            // The loop variables: [iteration, trip count, condition, carried..., captured...].
            let mut constant = |e: &mut Engine, base: &str, data: tidytensor_core::HostData| {
                const_node(e, s, &mut nodes, &format!("{name}/{base}"), data, &[])
            };
            let zero = constant(e, "iteration", tidytensor_core::HostData::I32(vec![0]))?;
            let trips = match n.input.first().filter(|v| !v.is_empty()) {
                Some(_) => None,
                None => Some(constant(e, "trips", tidytensor_core::HostData::I32(vec![i32::MAX]))?),
            };
            let go = match n.input.get(1).filter(|v| !v.is_empty()) {
                Some(_) => None,
                None => Some(constant(e, "go", tidytensor_core::HostData::Bool(vec![1]))?),
            };
            let mut ins = vec![zero];
            let mut held = |v: &str| layout.held(v, false, &mut value_of, &mut nhwc_of, &mut nodes, &mut s.names);
            ins.push(match trips {
                Some(t) => t,
                None => held(&n.input[0]),
            });
            ins.push(match go {
                Some(t) => t,
                None => held(&n.input[1]),
            });
            for v in n.input.iter().skip(2).chain(&captured) {
                ins.push(held(v));
            }
            ins.extend(scan_vars(e, s, &mut nodes, &name, &scan_types)?);
            let (cond_f, body_f) = loop_functions(e, s, body, &captured, Body::Loop, scan_types.len(), &name)
                .map_err(|err| Error::new(format!("{err} (in the body of ONNX node '{label}')")))?;
            for (k, out) in n.output.iter().enumerate().take(carried) {
                if !out.is_empty() {
                    value_of.insert(out.clone(), format!("{name}:{}", 3 + k));
                }
            }
            let attr = json!({ "cond": { "func": { "name": cond_f } }, "body": { "func": { "name": body_f } } });
            nodes.push(json!({ "name": name, "op": "StatelessWhile", "input": ins, "attr": attr }));
            let first = 3 + carried + captured.len();
            let stacked = stack_scans(e, s, &mut nodes, &name, first, scan_types.len())?;
            for (out, held) in n.output.iter().skip(carried).zip(stacked) {
                if !out.is_empty() {
                    value_of.insert(out.clone(), held);
                }
            }
            continue;
        }
        if op == "Scan" {
            if opset < 9 {
                bail!("ONNX node '{label}': Scan before opset 9 (with a batch axis) is not supported yet");
            }
            let attr = |key: &str| n.attribute.iter().find(|a| a.name() == key);
            let Some(body) = attr("body").and_then(|a| a.g.as_ref()) else {
                bail!("ONNX Scan node '{label}' has no body")
            };
            let m = attr("num_scan_inputs").map_or(0, |a| a.i()) as usize;
            let states = n.input.len().checked_sub(m).filter(|_| m > 0);
            let scans = states.and_then(|st| body.output.len().checked_sub(st));
            let (Some(states), Some(scans)) = (states, scans) else {
                bail!("ONNX Scan node '{label}': its inputs and body do not fit num_scan_inputs {m}")
            };
            let list = |key: &str, len: usize| attr(key).map_or_else(|| vec![0; len], |a| a.ints.clone());
            let (in_axes, in_dirs) = (list("scan_input_axes", m), list("scan_input_directions", m));
            let (out_axes, out_dirs) = (list("scan_output_axes", scans), list("scan_output_directions", scans));
            if in_axes.len() != m || in_dirs.len() != m || out_axes.len() != scans || out_dirs.len() != scans {
                bail!("ONNX Scan node '{label}': its axes and directions do not fit its inputs and outputs");
            }
            let captured: Vec<String> = free_values(body);
            for v in n.input.iter().chain(&captured) {
                if !value_of.contains_key(v) && !nhwc_of.contains_key(v) {
                    bail!("ONNX Scan node '{label}' reads '{v}', which nothing before it gives");
                }
            }
            let name = s.names.claim(if n.name().is_empty() { op } else { n.name() });
            let scan_types = output_dtypes(body, states);
            // The rounds: the first scanned input's length along its axis.
            let first_scanned =
                layout.held(&n.input[states], false, &mut value_of, &mut nhwc_of, &mut nodes, &mut s.names);
            let length = s.names.claim(&format!("{name}/length"));
            let mut bounds = vec![("start", json!({ "i": in_axes[0] }))];
            if in_axes[0] != -1 {
                bounds.push(("end", json!({ "i": in_axes[0] + 1 })));
            }
            nodes.push(op_node(&length, "Shape", &[&first_scanned], opset, &bounds));
            let mut constant = |e: &mut Engine, base: &str, data: tidytensor_core::HostData| {
                const_node(e, s, &mut nodes, &format!("{name}/{base}"), data, &[])
            };
            let zero = constant(e, "iteration", tidytensor_core::HostData::I32(vec![0]))?;
            let go = constant(e, "go", tidytensor_core::HostData::Bool(vec![1]))?;
            let mut ins = vec![zero, format!("{length}:0"), go];
            for v in n.input.iter().take(states).chain(&captured).chain(n.input.iter().skip(states)) {
                ins.push(layout.held(v, false, &mut value_of, &mut nhwc_of, &mut nodes, &mut s.names));
            }
            ins.extend(scan_vars(e, s, &mut nodes, &name, &scan_types)?);
            let slices: Vec<(i64, bool)> = in_axes.iter().zip(&in_dirs).map(|(&a, &d)| (a, d != 0)).collect();
            let (cond_f, body_f) = loop_functions(e, s, body, &captured, Body::Scan(slices), scans, &name)
                .map_err(|err| Error::new(format!("{err} (in the body of ONNX node '{label}')")))?;
            for (k, out) in n.output.iter().enumerate().take(states) {
                if !out.is_empty() {
                    value_of.insert(out.clone(), format!("{name}:{}", 3 + k));
                }
            }
            let attr = json!({ "cond": { "func": { "name": cond_f } }, "body": { "func": { "name": body_f } } });
            nodes.push(json!({ "name": name, "op": "StatelessWhile", "input": ins, "attr": attr }));
            let first = 3 + states + captured.len() + m;
            let stacked = stack_scans(e, s, &mut nodes, &name, first, scans)?;
            for (j, (out, mut held)) in n.output.iter().skip(states).zip(stacked).enumerate() {
                // Backwards outputs are reversed; an output axis other than 0 is moved there.
                if out_dirs[j] != 0 {
                    let reversed = s.names.claim(&format!("{name}/scan{j}_reversed"));
                    let mut consts = Vec::new();
                    for (what, v) in [("starts", -1), ("ends", i32::MIN), ("axes", 0), ("steps", -1)] {
                        let cname = s.names.claim(&format!("{name}/scan{j}_{what}"));
                        let id = e.tensor(tidytensor_core::HostData::I32(vec![v]), &[1])?;
                        s.weights.push((cname.clone(), id));
                        nodes
                            .push(json!({ "name": cname, "op": "Const", "attr": { "dtype": { "type": "DT_INT32" } } }));
                        consts.push(cname);
                    }
                    let refs: Vec<&str> =
                        std::iter::once(held.as_str()).chain(consts.iter().map(String::as_str)).collect();
                    nodes.push(op_node(&reversed, "Slice", &refs, opset, &[]));
                    held = format!("{reversed}:0");
                }
                if out_axes[j] != 0 {
                    let dims = match body.output[states + j].r#type.as_ref().and_then(|t| t.value.as_ref()) {
                        Some(proto::type_proto::Value::TensorType(t)) => t.shape.as_ref().map(|sh| sh.dim.len()),
                        _ => None,
                    };
                    let Some(rank) = dims.map(|d| d as i64 + 1) else {
                        bail!("ONNX Scan node '{label}': scan_output_axes needs the body output's rank");
                    };
                    let a = if out_axes[j] < 0 { out_axes[j] + rank } else { out_axes[j] };
                    let perm: Vec<i64> = (1..=a).chain(std::iter::once(0)).chain(a + 1..rank).collect();
                    let moved = s.names.claim(&format!("{name}/scan{j}_moved"));
                    nodes.push(op_node(
                        &moved,
                        "Transpose",
                        &[&held],
                        opset,
                        &[("perm", json!({ "list": { "i": perm } }))],
                    ));
                    held = format!("{moved}:0");
                }
                if !out.is_empty() {
                    value_of.insert(out.clone(), held);
                }
            }
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
        let types: Vec<i32> = n.input.iter().map(|v| elem_of.get(v).copied().unwrap_or(0)).collect();
        if let Some(t) = tensor::result_type(op, &attr_of(n), &types) {
            for out in &n.output {
                elem_of.entry(out.clone()).or_insert(t);
            }
        }
        if types.iter().any(|&t| t != 0) {
            attr.insert("_types".into(), json!({ "list": { "i": types } }));
        }
        let absent: Vec<usize> = (0..n.input.len()).filter(|&i| n.input[i].is_empty()).collect();
        attr.insert("_absent".into(), json!({ "list": { "i": absent } }));
        // A bias added to a matrix product (its only reader) joins the product's kernel.
        if op == "Add" && opset >= 7 {
            if let Some((at, held, bias)) = matmul_bias(n, &uses, &value_of, &node_at, &nodes, &consts, e) {
                if let (Some(list), Some(out)) = (nodes[at]["input"].as_array_mut(), n.output.first()) {
                    list.push(json!(bias));
                    value_of.insert(out.clone(), held);
                    continue;
                }
            }
        }
        // An activation after a convolution or a matrix product (its only reader) joins its
        // kernel.
        if let Some((activation, alpha)) = fusable_activation(op, n, &attr_of(n), &value_of, &consts, e) {
            let conv = n.input.first().filter(|v| uses.get(v.as_str()) == Some(&1)).and_then(|v| {
                let held = nhwc_of.get(v).or_else(|| value_of.get(v))?;
                let at = *node_at.get(crate::graph::parse_name(held).0)?;
                let fuses = ["Conv", "MatMul", "Gemm"].iter().any(|o| nodes[at]["op"] == format!("{PREFIX}{o}"));
                (fuses && nodes[at]["attr"].get("_activation").is_none())
                    .then(|| (at, held.clone(), nhwc_of.contains_key(v)))
            });
            if let (Some((at, held, in_nhwc)), Some(out)) = (conv, n.output.first()) {
                nodes[at]["attr"]["_activation"] = json!({ "s": base64(activation.as_bytes()) });
                nodes[at]["attr"]["_alpha"] = json!({ "f": alpha });
                let map = if in_nhwc { &mut nhwc_of } else { &mut value_of };
                map.insert(out.clone(), held);
                continue;
            }
        }
        for input in n.input.iter().filter(|v| !v.is_empty()) {
            if !value_of.contains_key(input) && !nhwc_of.contains_key(input) {
                bail!("ONNX node '{label}' reads '{input}', which no input, initializer or earlier node gives (the graph must be in topological order)");
            }
        }
        // Channels-last where the node can take it (see `Layout`): its data inputs NHWC, its
        // output too.
        let nhwc = layout.channels_last(op, n, &value_of, &nhwc_of, &consts, e);
        if nhwc {
            attr.insert("_nhwc".into(), json!({ "b": true }));
        }
        let mut ins: Vec<String> = Vec::with_capacity(n.input.len());
        for (i, input) in n.input.iter().enumerate() {
            if input.is_empty() {
                ins.push(format!("{absent_node}:0"));
            } else if nhwc && Layout::is_data(op, i) {
                ins.push(layout.held(input, true, &mut value_of, &mut nhwc_of, &mut nodes, &mut s.names));
            } else {
                ins.push(layout.held(input, false, &mut value_of, &mut nhwc_of, &mut nodes, &mut s.names));
            }
        }
        let name = s.names.claim(if n.name().is_empty() { op } else { n.name() });
        let weight = |consts: &HashMap<String, TensorId>, held: &str| {
            consts.get(held.strip_suffix(":0").unwrap_or(held)).copied()
        };
        // A convolution's filter, when it is a weight, is reordered once here to the core's
        // [k..., in / group, out].
        if op == "Conv" && ins.len() > 1 {
            if let Some(w) = weight(&consts, &ins[1]) {
                let r = e.shape(w)?.len() as i64;
                let perm: Vec<i64> = (2..r).chain([1, 0]).collect();
                let t = e.transpose(w, Some(&perm))?;
                let filter = s.names.claim(&format!("{name}/filter"));
                nodes.push(json!({ "name": filter, "op": "Const", "attr": { "dtype": { "type": "DT_FLOAT" } } }));
                s.weights.push((filter.clone(), t));
                consts.insert(filter.clone(), t);
                ins[1] = filter;
                attr.insert("_hwio".into(), json!({ "b": true }));
            }
        }
        // Constant folding: a node of weights alone runs now, and its outputs are weights.
        let inputs: Option<Vec<TensorId>> = ins.iter().map(|h| weight(&consts, h)).collect();
        if let (Some(inputs), true) = (inputs, unsupported.is_empty() && !ins.is_empty()) {
            let outs =
                fold(e, &name, op, attr, &inputs).map_err(|err| Error::new(format!("ONNX node '{label}': {err}")))?;
            let mut outs = outs.into_iter();
            for (k, out) in n.output.iter().enumerate() {
                let Some(id) = outs.next() else { break };
                if out.is_empty() {
                    e.dispose(id);
                    continue;
                }
                let cname = if k == 0 { name.clone() } else { s.names.claim(out) };
                let dtype = tf_dtype_of(e.dtype(id)?);
                nodes.push(json!({ "name": cname, "op": "Const", "attr": { "dtype": { "type": dtype } } }));
                s.weights.push((cname.clone(), id));
                consts.insert(cname.clone(), id);
                value_of.insert(out.clone(), cname);
            }
            for id in outs {
                e.dispose(id);
            }
            continue;
        }
        for (k, out) in n.output.iter().enumerate() {
            if !out.is_empty() {
                let held = if nhwc { &mut nhwc_of } else { &mut value_of };
                held.insert(out.clone(), format!("{name}:{k}"));
            }
        }
        node_at.insert(name.clone(), nodes.len());
        nodes.push(json!({ "name": name, "op": format!("{PREFIX}{op}"), "input": ins, "attr": attr }));
    }
    if !unsupported.is_empty() {
        bail!("The ONNX model uses ops tidytensor does not run yet: {}", unsupported.join(", "));
    }
    let mut outputs = Vec::new();
    for v in &g.output {
        let name = v.name();
        if !value_of.contains_key(name) && !nhwc_of.contains_key(name) {
            bail!("The ONNX graph's output '{name}' is given by no node");
        }
        let held = &layout.held(name, false, &mut value_of, &mut nhwc_of, &mut nodes, &mut s.names);
        // An output that is an input or an initializer is that node; an op's output gets an
        // Identity named as the output.
        if !held.contains(':') {
            outputs.push((name.to_string(), held.clone()));
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
        let node = s.names.claim_reserved(name);
        nodes.push(json!({ "name": node, "op": "Identity", "input": [held], "attr": attr }));
        outputs.push((name.to_string(), node));
    }
    Ok(Built { nodes, args, outputs })
}

/// The values a subgraph reads from the graphs around it (its inputs, initializers and nodes'
/// outputs are its own), in the order it first reads them; nested subgraphs' included.
fn free_values(g: &proto::GraphProto) -> Vec<String> {
    let mut defined: HashSet<&str> =
        g.input.iter().map(|v| v.name()).chain(g.initializer.iter().map(|t| t.name())).collect();
    let mut free: Vec<String> = Vec::new();
    for n in &g.node {
        let mut reads: Vec<String> = n.input.iter().filter(|v| !v.is_empty()).cloned().collect();
        for a in &n.attribute {
            for sg in a.g.iter().chain(&a.graphs) {
                reads.extend(free_values(sg));
            }
        }
        for v in reads {
            if !defined.contains(v.as_str()) && !free.contains(&v) {
                free.push(v);
            }
        }
        defined.extend(n.output.iter().map(String::as_str));
    }
    for o in &g.output {
        if !defined.contains(o.name()) && !free.iter().any(|v| v == o.name()) {
            free.push(o.name().to_string());
        }
    }
    free
}

/// A subgraph as a function of the model's library (a GraphDef FunctionDef): its arguments the
/// `captured` outer values, then its own inputs; its results its outputs. Returns its name.
fn function(e: &mut Engine, s: &mut Shared, g: &proto::GraphProto, captured: &[String], base: &str) -> Result<String> {
    let name = s.names.claim(base);
    let mut built = build(e, s, g, captured)?;
    // The arguments are the function's own placeholders (the executor makes them).
    built.nodes.retain(|n| n.get("op").and_then(Value::as_str) != Some("Placeholder"));
    let input_arg: Vec<Value> = built.args.iter().map(|(_, n)| json!({ "name": n })).collect();
    let output_arg: Vec<Value> = (0..built.outputs.len()).map(|k| json!({ "name": format!("output_{k}") })).collect();
    let ret: Map<String, Value> =
        built.outputs.iter().enumerate().map(|(k, (_, held))| (format!("output_{k}"), json!(held))).collect();
    s.functions.push(json!({
        "signature": { "name": name, "inputArg": input_arg, "outputArg": output_arg },
        "nodeDef": built.nodes,
        "ret": ret,
    }));
    Ok(name)
}

/// A weight of `data` (of `shape`) and its Const node, named `base` (or the next free name).
fn const_node(
    e: &mut Engine,
    s: &mut Shared,
    nodes: &mut Vec<Value>,
    base: &str,
    data: tidytensor_core::HostData,
    shape: &[usize],
) -> Result<String> {
    let dtype = tf_dtype_of(data.dtype());
    let id = e.tensor(data, shape)?;
    let name = s.names.claim(base);
    s.weights.push((name.clone(), id));
    nodes.push(json!({ "name": name, "op": "Const", "attr": { "dtype": { "type": dtype } } }));
    Ok(name)
}

/// The dtypes (as graph attributes name them) of a body's outputs from `skip` on: float32 where
/// the body does not say.
fn output_dtypes(body: &proto::GraphProto, skip: usize) -> Vec<&'static str> {
    body.output
        .iter()
        .skip(skip)
        .map(|v| match v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
            Some(proto::type_proto::Value::TensorType(t)) => tf_dtype(t.elem_type()).unwrap_or("DT_FLOAT"),
            _ => "DT_FLOAT",
        })
        .collect()
}

/// A Loop's or Scan's scan outputs as loop variables: each its values so far (flat, empty at
/// first) and its last round's shape. Their Const nodes' names, in order.
fn scan_vars(
    e: &mut Engine,
    s: &mut Shared,
    nodes: &mut Vec<Value>,
    name: &str,
    types: &[&str],
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for (k, dtype) in types.iter().enumerate() {
        let data = match *dtype {
            "DT_INT32" => tidytensor_core::HostData::I32(Vec::new()),
            "DT_BOOL" => tidytensor_core::HostData::Bool(Vec::new()),
            _ => tidytensor_core::HostData::F32(Vec::new()),
        };
        for (base, data) in
            [(format!("scan{k}"), data), (format!("scan{k}_shape"), tidytensor_core::HostData::I32(Vec::new()))]
        {
            let dt = tf_dtype_of(data.dtype());
            let id = e.tensor(data, &[0])?;
            let cname = s.names.claim(&format!("{name}/{base}"));
            s.weights.push((cname.clone(), id));
            nodes.push(json!({ "name": cname, "op": "Const", "attr": { "dtype": { "type": dt } } }));
            out.push(cname);
        }
    }
    Ok(out)
}

/// The scan outputs of While node `name` (its variables from `first` on, in pairs of values and
/// shape): each reshaped to [rounds, last shape...]. The node outputs that give them.
fn stack_scans(
    e: &mut Engine,
    s: &mut Shared,
    nodes: &mut Vec<Value>,
    name: &str,
    first: usize,
    scans: usize,
) -> Result<Vec<String>> {
    if scans == 0 {
        return Ok(Vec::new());
    }
    let opset = s.opset;
    let one = s.names.claim(&format!("{name}/one_dim"));
    let id = e.tensor(tidytensor_core::HostData::I32(vec![1]), &[1])?;
    s.weights.push((one.clone(), id));
    nodes.push(json!({ "name": one, "op": "Const", "attr": { "dtype": { "type": "DT_INT32" } } }));
    let rounds = s.names.claim(&format!("{name}/rounds"));
    nodes.push(op_node(&rounds, "Reshape", &[&format!("{name}:0"), &one], opset, &[]));
    let mut out = Vec::new();
    for j in 0..scans {
        let (flat, last) = (format!("{name}:{}", first + 2 * j), format!("{name}:{}", first + 2 * j + 1));
        let shape = s.names.claim(&format!("{name}/scan{j}_full_shape"));
        nodes.push(op_node(&shape, "Concat", &[&format!("{rounds}:0"), &last], opset, &[("axis", json!({ "i": 0 }))]));
        let stacked = s.names.claim(&format!("{name}/scan{j}"));
        let inputs = [flat.as_str(), &format!("{shape}:0")];
        nodes.push(op_node(&stacked, "Reshape", &inputs, opset, &[("allowzero", json!({ "i": 1 }))]));
        out.push(format!("{stacked}:0"));
    }
    Ok(out)
}

/// Which ONNX op's body a While runs: a Loop's, or a Scan's with its sliced inputs (axis,
/// backwards).
enum Body {
    Loop,
    Scan(Vec<(i64, bool)>),
}

/// An ONNX op node as a function's node: its attributes the kernels' own.
fn op_node(name: &str, op: &str, inputs: &[&str], opset: i64, attrs: &[(&str, Value)]) -> Value {
    let mut attr = Map::new();
    attr.insert("opset".into(), json!({ "i": opset }));
    attr.insert("_outputs".into(), json!({ "i": 1 }));
    attr.insert("_absent".into(), json!({ "list": { "i": [] } }));
    for (k, v) in attrs {
        attr.insert(k.to_string(), v.clone());
    }
    json!({ "name": name, "op": format!("{PREFIX}{op}"), "input": inputs, "attr": attr })
}

/// A Loop's body as the condition and body functions of a While over the variables
/// [iteration, trip count, condition, carried..., captured..., (scan values, scan shape)...]:
/// the condition is `iteration < trip count && condition`; the body runs the ONNX body (its
/// inputs the iteration, the condition and the carried values) and gives [iteration + 1, trip
/// count, its condition, its carried values, the captured values as they were, each scan
/// output's values so far and its shape].
fn loop_functions(
    e: &mut Engine,
    s: &mut Shared,
    body: &proto::GraphProto,
    captured: &[String],
    kind: Body,
    scans: usize,
    base: &str,
) -> Result<(String, String)> {
    let opset = s.opset;
    // A Loop's body reads [iteration, condition, carried...] and gives [condition, carried...,
    // scans...]; a Scan's reads [states..., slices...] and gives [states..., scans...].
    let (lead, slices): (usize, &[(i64, bool)]) = match &kind {
        Body::Loop => (2, &[]),
        Body::Scan(slices) => (0, slices),
    };
    let carried = body.input.len().saturating_sub(lead + slices.len());
    let vars = 3 + carried + captured.len() + slices.len() + 2 * scans;
    // The condition function.
    let cond_name = s.names.claim(&format!("{base}/cond"));
    let args: Vec<String> = (0..vars).map(|k| format!("v{k}")).collect();
    let cond_nodes =
        vec![op_node("below", "Less", &["v0", "v1"], opset, &[]), op_node("go", "And", &["below:0", "v2"], opset, &[])];
    s.functions.push(json!({
        "signature": {
            "name": cond_name,
            "inputArg": args.iter().map(|a| json!({ "name": a })).collect::<Vec<_>>(),
            "outputArg": [{ "name": "output_0" }],
        },
        "nodeDef": cond_nodes,
        "ret": { "output_0": "go:0" },
    }));
    // The body function: the ONNX body, its inputs placeholders after the captured ones.
    let body_name = s.names.claim(&format!("{base}/body"));
    let mut built = build(e, s, body, captured)?;
    built.nodes.retain(|n| n.get("op").and_then(Value::as_str) != Some("Placeholder"));
    let placeholder = |k: usize| built.args.get(captured.len() + k).map(|(_, n)| n.clone());
    let trips = s.names.claim(&format!("{base}/trips"));
    let one = s.names.claim(&format!("{base}/one"));
    let next = s.names.claim(&format!("{base}/next"));
    let id = e.tensor(tidytensor_core::HostData::I32(vec![1]), &[])?;
    s.weights.push((one.clone(), id));
    let own = |k: usize, what: &str, s: &mut Shared| match (lead > k).then(|| placeholder(k)).flatten() {
        Some(p) => p,
        None => s.names.claim(&format!("{base}/{what}")),
    };
    let iter = own(0, "iteration", s);
    let cond_in = own(1, "condition", s);
    built.nodes.push(json!({ "name": one, "op": "Const", "attr": { "dtype": { "type": "DT_INT32" } } }));
    built.nodes.push(op_node(&next, "Add", &[&iter, &one], opset, &[]));
    let mut inputs = vec![iter.clone(), trips.clone(), cond_in.clone()];
    inputs.extend((lead..lead + carried).filter_map(placeholder));
    inputs.extend(built.args.iter().take(captured.len()).map(|(_, n)| n.clone()));
    let carried_out = built.outputs.len() - scans;
    let mut results = vec![format!("{next}:0"), trips.clone()];
    if lead == 0 {
        // A Scan runs every round: its condition stays.
        results.push(cond_in);
    }
    results.extend(built.outputs.iter().take(carried_out).map(|(_, held)| held.clone()));
    results.extend(built.args.iter().take(captured.len()).map(|(_, n)| n.clone()));
    // A Scan's sliced inputs: each whole input is a loop variable, and the body's slice input a
    // node taking this round's slice (the last round's first, backwards).
    if !slices.is_empty() {
        let last = s.names.claim(&format!("{base}/last"));
        let back = s.names.claim(&format!("{base}/back"));
        built.nodes.push(op_node(&last, "Sub", &[&trips, &one], opset, &[]));
        built.nodes.push(op_node(&back, "Sub", &[&format!("{last}:0"), &iter], opset, &[]));
        for (k, &(axis, reverse)) in slices.iter().enumerate() {
            let whole = s.names.claim(&format!("{base}/scanned{k}"));
            let Some(slice) = placeholder(lead + carried + k) else { bail!("the Scan body has too few inputs") };
            let at = if reverse { format!("{back}:0") } else { iter.clone() };
            built.nodes.push(op_node(&slice, "Gather", &[&whole, &at], opset, &[("axis", json!({ "i": axis }))]));
            inputs.push(whole.clone());
            results.push(whole);
        }
    }
    // Each scan output: its values so far with this round's, flat, and this round's shape.
    if scans > 0 {
        let flat_shape = s.names.claim(&format!("{base}/flat"));
        let id = e.tensor(tidytensor_core::HostData::I32(vec![-1]), &[1])?;
        s.weights.push((flat_shape.clone(), id));
        built.nodes.push(json!({ "name": flat_shape, "op": "Const", "attr": { "dtype": { "type": "DT_INT32" } } }));
        for (k, (_, value)) in built.outputs.iter().skip(carried_out).enumerate() {
            let (acc, last) =
                (s.names.claim(&format!("{base}/scan{k}_in")), s.names.claim(&format!("{base}/scan{k}_shape_in")));
            let flat = s.names.claim(&format!("{base}/scan{k}_flat"));
            let joined = s.names.claim(&format!("{base}/scan{k}_joined"));
            let shape = s.names.claim(&format!("{base}/scan{k}_shape"));
            built.nodes.push(op_node(&flat, "Reshape", &[value, &flat_shape], opset, &[]));
            built.nodes.push(op_node(
                &joined,
                "Concat",
                &[&acc, &format!("{flat}:0")],
                opset,
                &[("axis", json!({ "i": 0 }))],
            ));
            built.nodes.push(op_node(&shape, "Shape", &[value], opset, &[]));
            inputs.push(acc);
            inputs.push(last);
            results.push(format!("{joined}:0"));
            results.push(format!("{shape}:0"));
        }
    }
    let ret: Map<String, Value> = results.iter().enumerate().map(|(k, r)| (format!("output_{k}"), json!(r))).collect();
    s.functions.push(json!({
        "signature": {
            "name": body_name,
            "inputArg": inputs.iter().map(|a| json!({ "name": a })).collect::<Vec<_>>(),
            "outputArg": (0..results.len()).map(|k| json!({ "name": format!("output_{k}") })).collect::<Vec<_>>(),
        },
        "nodeDef": built.nodes,
        "ret": ret,
    }));
    Ok((cond_name, body_name))
}

/// The layout pass, made as the graph is written: ONNX models are channels-first (NCHW) and the
/// core's convolutions and pools channels-last, so each convolution would transpose its input
/// and output. Instead a 2-D convolution takes and gives NHWC, and the ops between
/// convolutions that do not care about the layout (elementwise activations, sums of two NHWC
/// values, batch norm, pools, global pools, concatenation) pass NHWC on; a value goes back to
/// NCHW (one Transpose node, made once) only where a node that cares reads it.
struct Layout {
    opset: i64,
}

/// Elementwise ops of one data input (the others, if any, constants such as Clip's bounds).
const LAYOUT_FREE: &[&str] = &[
    "Relu",
    "LeakyRelu",
    "Sigmoid",
    "Tanh",
    "Clip",
    "HardSigmoid",
    "HardSwish",
    "Elu",
    "Selu",
    "Softplus",
    "Exp",
    "Neg",
    "Abs",
    "Sqrt",
    "Erf",
    "Gelu",
    "Mish",
    "Swish",
    "Celu",
    "Identity",
    "Dropout",
    "Cast",
];
/// Elementwise ops of several data inputs, NHWC when all of them are.
const LAYOUT_FREE_N: &[&str] = &["Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean"];

impl Layout {
    /// Whether input `i` of `op` is data (NHWC in channels-last mode) rather than a parameter.
    fn is_data(op: &str, i: usize) -> bool {
        i == 0 || LAYOUT_FREE_N.contains(&op) || op == "Concat"
    }

    /// Whether node `n` runs channels-last.
    fn channels_last(
        &self,
        op: &str,
        n: &proto::NodeProto,
        value_of: &HashMap<String, String>,
        nhwc_of: &HashMap<String, String>,
        consts: &HashMap<String, TensorId>,
        e: &Engine,
    ) -> bool {
        let is_const = |v: &str| v.is_empty() || value_of.get(v).is_some_and(|h| consts.contains_key(h));
        let has_nhwc = |v: &str| nhwc_of.contains_key(v);
        let first_nhwc = n.input.first().is_some_and(|v| has_nhwc(v));
        let params_const = n.input.iter().skip(1).all(|v| is_const(v));
        if n.input.iter().all(|v| is_const(v)) || n.output.len() != 1 {
            return false;
        }
        match op {
            // A 2-D convolution of a weight filter.
            "Conv" => n
                .input
                .get(1)
                .and_then(|w| value_of.get(w))
                .and_then(|h| consts.get(h))
                .is_some_and(|&w| e.shape(w).is_ok_and(|s| s.len() == 4)),
            "MaxPool" | "AveragePool" | "GlobalAveragePool" | "GlobalMaxPool" => first_nhwc,
            "BatchNormalization" => first_nhwc && params_const,
            "Concat" => n.input.iter().all(|v| has_nhwc(v)),
            _ if LAYOUT_FREE.contains(&op) => first_nhwc && params_const,
            _ if LAYOUT_FREE_N.contains(&op) => n.input.iter().all(|v| has_nhwc(v)),
            _ => false,
        }
    }

    /// The node output that holds `value` in the layout asked for (NHWC or NCHW), made (a
    /// Transpose node) the first time it is asked for.
    fn held(
        &self,
        value: &str,
        nhwc: bool,
        value_of: &mut HashMap<String, String>,
        nhwc_of: &mut HashMap<String, String>,
        nodes: &mut Vec<Value>,
        names: &mut Names,
    ) -> String {
        let (want, have, perm, suffix) = if nhwc {
            (&mut *nhwc_of, &*value_of, [0, 2, 3, 1], "nhwc")
        } else {
            (&mut *value_of, &*nhwc_of, [0, 3, 1, 2], "nchw")
        };
        if let Some(h) = want.get(value) {
            return h.clone();
        }
        let from = have.get(value).cloned().unwrap_or_default();
        let name = names.claim(&format!("{value}/{suffix}"));
        nodes.push(json!({
            "name": name,
            "op": format!("{PREFIX}Transpose"),
            "input": [from],
            "attr": {
                "perm": { "list": { "i": perm } },
                "opset": { "i": self.opset },
                "_outputs": { "i": 1 },
                "_absent": { "list": { "i": [] } },
            },
        }));
        let held = format!("{name}:0");
        want.insert(value.to_string(), held.clone());
        held
    }
}

/// A node's attributes by name (numbers only: what [`fusable_activation`] reads).
fn attr_of(n: &proto::NodeProto) -> HashMap<&str, f64> {
    n.attribute.iter().map(|a| (a.name(), if a.f.is_some() { a.f() as f64 } else { a.i() as f64 })).collect()
}

/// Where Add node `n` adds a bias to a MatMul's product that nothing else reads: the MatMul's
/// place in `nodes`, the value it holds, and the bias's (a weight of `[N]` against a weight
/// `[K, N]`, so the sum is the fused kernel's bias).
fn matmul_bias(
    n: &proto::NodeProto,
    uses: &HashMap<&str, usize>,
    value_of: &HashMap<String, String>,
    node_at: &HashMap<String, usize>,
    nodes: &[Value],
    consts: &HashMap<String, TensorId>,
    e: &Engine,
) -> Option<(usize, String, String)> {
    let weight = |held: &str| consts.get(held.strip_suffix(":0").unwrap_or(held)).copied();
    if n.input.len() != 2 {
        return None;
    }
    (0..2).find_map(|p| {
        let (product, bias) = (&n.input[p], &n.input[1 - p]);
        if uses.get(product.as_str()) != Some(&1) {
            return None;
        }
        let held = value_of.get(product)?;
        let at = *node_at.get(crate::graph::parse_name(held).0)?;
        let inputs = nodes[at]["input"].as_array()?;
        if nodes[at]["op"] != format!("{PREFIX}MatMul") || inputs.len() != 2 {
            return None;
        }
        let b = e.shape(weight(inputs[1].as_str()?)?).ok()?;
        let bias_held = value_of.get(bias)?;
        let bias_shape = e.shape(weight(bias_held)?).ok()?;
        (b.len() == 2 && bias_shape == [b[1]]).then(|| (at, held.clone(), bias_held.clone()))
    })
}

/// The fused-kernel activation (the core's name, its alpha) that node `n` is, if it is one:
/// Relu, LeakyRelu, Sigmoid, Elu of alpha 1, and Clip to [0, 6] (bounds as weights or, before
/// opset 11, attributes).
fn fusable_activation(
    op: &str,
    n: &proto::NodeProto,
    attrs: &HashMap<&str, f64>,
    value_of: &HashMap<String, String>,
    consts: &HashMap<String, TensorId>,
    e: &Engine,
) -> Option<(&'static str, f64)> {
    let bound = |i: usize| -> Option<f64> {
        let held = value_of.get(n.input.get(i)?)?;
        let v = e.read_f64(*consts.get(held)?).ok()?;
        (v.len() == 1).then(|| v[0])
    };
    match op {
        "Relu" => Some(("relu", 0.0)),
        "Sigmoid" => Some(("sigmoid", 0.0)),
        "LeakyRelu" => Some(("leakyrelu", attrs.get("alpha").copied().unwrap_or(0.01))),
        "Elu" if attrs.get("alpha").copied().unwrap_or(1.0) == 1.0 => Some(("elu", 0.0)),
        "Clip" => {
            let (lo, hi) = if n.input.len() > 1 {
                (bound(1)?, bound(2)?)
            } else {
                (attrs.get("min").copied()?, attrs.get("max").copied()?)
            };
            (lo == 0.0 && hi == 6.0).then_some(("relu6", 0.0))
        }
        _ => None,
    }
}

/// Runs node `name` (ONNX op `op`) on weights at load: its outputs, in a scope of their own.
fn fold(e: &mut Engine, name: &str, op: &str, attr: Map<String, Value>, inputs: &[TensorId]) -> Result<Vec<TensorId>> {
    let node = crate::graph::Node::new(name.to_string(), format!("{PREFIX}{op}"), attr);
    let from_noop = vec![false; inputs.len()];
    let weights: rustc_hash::FxHashSet<TensorId> = inputs.iter().copied().collect();
    let ctx = crate::ops::Ctx { node: &node, ins: inputs, from_noop: &from_noop, weights: &weights };
    e.start_scope();
    match crate::ops::run(e, &ctx) {
        Ok(outs) => {
            e.end_scope(&outs);
            Ok(outs)
        }
        Err(err) => {
            e.end_scope(&[]);
            Err(err)
        }
    }
}

/// Drops the weights no node of any list reads any more (those folded into others), and their
/// Const nodes, disposing them. `outputs`: nodes read from outside the lists.
fn prune(e: &mut Engine, lists: Vec<&mut Vec<Value>>, weights: &mut Vec<(String, TensorId)>, outputs: &[String]) {
    let mut used: HashSet<String> = outputs.iter().cloned().collect();
    for list in &lists {
        for n in list.iter() {
            for input in n.get("input").and_then(Value::as_array).into_iter().flatten() {
                if let Some(s) = input.as_str() {
                    used.insert(crate::graph::parse_name(s).0.to_string());
                }
            }
        }
    }
    for list in lists {
        list.retain(|n| {
            n.get("op").and_then(Value::as_str) != Some("Const")
                || used.contains(n["name"].as_str().unwrap_or_default())
        });
    }
    weights.retain(|(name, id)| {
        let keep = used.contains(name);
        if !keep {
            e.dispose(*id);
        }
        keep
    });
}

/// A dtype as graph attributes name it.
fn tf_dtype_of(d: DType) -> &'static str {
    match d {
        DType::Int32 => "DT_INT32",
        DType::Bool => "DT_BOOL",
        _ => "DT_FLOAT",
    }
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
