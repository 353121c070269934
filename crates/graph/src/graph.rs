//! The graph: nodes parsed from the GraphDef JSON, their inputs resolved to node indices, the
//! weights the graph owns, and what tfjs's `GraphModel.inputs` / `outputs` report.

use crate::attr::{AttrReader, Attrs, Decoded};
use crate::exec::Plan;
use crate::ops::hash_table::Tables;
use serde_json::Value;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use tidytensor_core::{bail, DType, Engine, Error, Result, Shared, TensorId};

/// One node of the GraphDef.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub op: String,
    /// Data inputs, as (node index, output index): `name` is output 0, `name:k` output k.
    pub inputs: Vec<(usize, usize)>,
    /// Every input node, data and control (`^name`), in the GraphDef's order (tfjs's
    /// `node.inputs`): control inputs order the execution, they carry no tensor.
    pub deps: Vec<usize>,
    /// Every input as (node index, output index), data and control, in the GraphDef's order
    /// (tfjs's `node.inputNames`; a control input names output 0): what must have a value
    /// before the node runs under control flow.
    pub all_inputs: Vec<(usize, usize)>,
    /// The nodes listing this one as an input, once per listing (tfjs's `node.children`).
    pub children: Vec<usize>,
    pub attr: Attrs,
    /// `attr`'s strings and number lists, decoded once.
    decoded: Decoded,
    /// The op's kernel, looked up once at load (`None`: the op cannot run here, or only in
    /// the control-flow executor).
    pub(crate) kernel: Option<crate::ops::Kernel>,
}

impl Node {
    pub(crate) fn new(name: String, op: String, attr: Attrs) -> Node {
        let kernel = crate::ops::kernel(&op);
        let decoded = Decoded::of(&attr);
        let (inputs, deps, all_inputs, children) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        Node { name, op, inputs, deps, all_inputs, children, attr, decoded, kernel }
    }

    pub fn attrs(&self) -> AttrReader<'_> {
        AttrReader::with_decoded(&self.attr, &self.decoded)
    }
}

/// A tensor's name, shape (`None` for an unknown rank; -1 dimensions as `None`) and dtype, as
/// `GraphModel.inputs` and `outputs` list them; with the node's op and the signature key that
/// names it (`GraphModel.inputNodes`/`outputNodes` list the key where there is one).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorSpec {
    pub name: String,
    pub shape: Option<Vec<Option<usize>>>,
    pub dtype: Option<DType>,
    pub op: String,
    pub signature_key: Option<String>,
}

impl TensorSpec {
    pub fn to_json(&self) -> Value {
        let shape = match &self.shape {
            Some(dims) => Value::Array(dims.iter().map(|d| d.map_or(Value::Null, |d| Value::from(d as u64))).collect()),
            None => Value::Null,
        };
        let dtype = self.dtype.map_or(Value::Null, |d| Value::from(d.name()));
        serde_json::json!({ "name": self.name, "shape": shape, "dtype": dtype })
    }
}

/// A model signature (model.json's `signature`, or its `userDefinedMetadata.signature`): the
/// keys callers may use for inputs and outputs, each with the tensor name it stands for.
#[derive(Clone, Debug, Default)]
pub(crate) struct Signature {
    pub inputs: Vec<(String, String)>,
    pub outputs: Vec<(String, String)>,
}

impl Signature {
    /// `{"inputs": ..., "outputs": ...}`, each either `[[key, tensor name], ...]` (the
    /// binding's form: it keeps the model file's order, which serde_json's maps do not) or
    /// tfjs's `{key: {name, ...}}`. A tensor named twice keeps its first place and its last
    /// key, as tfjs's `transformGraph` keys them.
    fn parse(v: &Value) -> Signature {
        let side = |key: &str| {
            let mut out: Vec<(String, String)> = Vec::new();
            let pairs: Vec<(&str, &str)> = match v.get(key) {
                Some(Value::Array(list)) => {
                    list.iter().filter_map(|p| Some((p.get(0)?.as_str()?, p.get(1)?.as_str()?))).collect()
                }
                Some(Value::Object(map)) => {
                    map.iter().filter_map(|(k, t)| Some((k.as_str(), t.get("name")?.as_str()?))).collect()
                }
                _ => Vec::new(),
            };
            for (k, name) in pairs {
                match out.iter_mut().find(|(_, n)| n == name) {
                    Some(entry) => entry.0 = k.to_string(),
                    None => out.push((k.to_string(), name.to_string())),
                }
            }
            out
        };
        Signature { inputs: side("inputs"), outputs: side("outputs") }
    }
}

/// The ops whose `shape` attribute tfjs's op mapper reads (`GraphModel.inputs`' shapes, the
/// fed shapes checked).
pub(crate) fn has_shape_attr(op: &str) -> bool {
    op == "Placeholder" || op == "PlaceholderWithDefault"
}

/// Ops that make an execution need `executeAsync` in tfjs (`model_analysis.ts`): control
/// flow, dynamic output shapes and hash tables.
pub(crate) const CONTROL_FLOW_OPS: &[&str] =
    &["Switch", "Merge", "Enter", "Exit", "NextIteration", "StatelessIf", "StatelessWhile", "if", "While"];
pub(crate) const DYNAMIC_SHAPE_OPS: &[&str] =
    &["NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV5", "Where"];
pub(crate) const HASH_TABLE_OPS: &[&str] = &[
    "HashTable",
    "HashTableV2",
    "LookupTableImport",
    "LookupTableImportV2",
    "LookupTableFind",
    "LookupTableFindV2",
    "LookupTableSize",
    "LookupTableSizeV2",
];

/// tfjs's `isControlFlow || isDynamicShape || isHashTable`: a node `execute` refuses.
pub(crate) fn is_dynamic(op: &str) -> bool {
    CONTROL_FLOW_OPS.contains(&op) || DYNAMIC_SHAPE_OPS.contains(&op) || HASH_TABLE_OPS.contains(&op)
}

/// tfjs's `isControlFlow`: the nodes whose tensors the executor never disposes early.
pub(crate) fn is_control_flow(op: &str) -> bool {
    CONTROL_FLOW_OPS.contains(&op)
}

/// Ops only an executor with control flow runs: the dynamic ones, and every op tfjs runs
/// asynchronously (loops, conditionals, tensor arrays and lists, dynamic shapes, hash tables).
fn needs_control_flow(op: &str) -> bool {
    is_dynamic(op) || crate::ops::is_async(op)
}

/// A loaded graph model: the nodes, and the weight tensors it owns until [`Graph::dispose`].
/// The functions of its library (the bodies of `If` and `While` nodes) are graphs too.
pub struct Graph {
    pub(crate) nodes: Vec<Node>,
    pub(crate) by_name: HashMap<String, usize>,
    /// (node, tensor) of this graph's weight nodes, in the order the weights were given.
    pub(crate) weights: Vec<(usize, TensorId)>,
    /// The weight of each node, if it has one.
    pub(crate) weight_of: Vec<Option<TensorId>>,
    control_flow: bool,
    pub(crate) disposed: bool,
    /// Compiled executions, by fed and requested nodes (tfjs's `compiledMap`).
    pub(crate) plans: RefCell<HashMap<(Vec<usize>, Vec<usize>), Rc<Plan>>>,
    /// Every weight the model owns (its graph's and its functions'), by name, in the order
    /// given. Empty for a function.
    pub(crate) owned: Vec<(String, TensorId)>,
    /// The same tensors as a set: what an execution must never dispose.
    pub(crate) owned_set: rustc_hash::FxHashSet<TensorId>,
    /// The functions of the GraphDef's library, by name (tfjs's `functionExecutorMap`).
    pub(crate) functions: HashMap<String, Graph>,
    /// The model initializer's graph (model.json's `modelInitializer`: it fills the lookup
    /// tables), reading the model's weights.
    pub(crate) initializer: Option<Box<Graph>>,
    /// The model's lookup tables, shared by its graph, functions and initializer.
    pub(crate) tables: Rc<RefCell<Tables>>,
    /// A function's arguments (placeholders, in order) and results (node, output).
    pub(crate) fn_inputs: Vec<usize>,
    pub(crate) fn_outputs: Vec<(usize, usize)>,
    /// The model's signature (empty for a function, the initializer, or a model without one).
    pub(crate) signature: Signature,
    /// The topology it was loaded from (a model's, not a function's): what another thread
    /// builds its replica from ([`Graph::replica_source`]).
    source: Option<std::sync::Arc<str>>,
}

/// What another thread's engine needs to run a loaded graph model: its topology, and its
/// weights shared (not copied). [`GraphSource::load`] builds the replica there.
pub struct GraphSource {
    topology: std::sync::Arc<str>,
    weights: Vec<(String, Shared)>,
}

impl GraphSource {
    /// The model again, in `e`, over the same weight buffers.
    pub fn load(self, e: &mut Engine) -> Result<Graph> {
        let weights: Vec<(String, TensorId)> = self.weights.into_iter().map(|(n, w)| (n, e.adopt(w))).collect();
        Graph::load(e, &self.topology, &weights)
    }
}

/// (node name, output index) of an input or output name: `name`, `name:k` (tfjs's
/// `parseNodeName`; `name:output:k` keeps the index).
pub(crate) fn parse_name(name: &str) -> (&str, Option<usize>) {
    let mut parts = name.split(':');
    let node = parts.next().unwrap_or("");
    match parts.next_back() {
        None => (node, Some(0)),
        Some(k) => (node, k.parse::<usize>().ok()),
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

impl Graph {
    /// Parses a GraphDef (model.json's `modelTopology`, or the whole model.json: its
    /// `modelInitializer` and `signature` are read too) and takes
    /// ownership of the weights, one per `Const` node, named as the node; a weight that names
    /// no node of the graph, its functions or its initializer is unused and disposed (tfjs
    /// keeps it). On error the weights given are disposed.
    pub fn load(e: &mut Engine, topology: &str, weights: &[(String, TensorId)]) -> Result<Graph> {
        let loaded = Graph::parse(topology).and_then(|mut g| {
            g.take_weights(e, weights)?;
            Ok(g)
        });
        match loaded {
            Ok(mut g) => {
                for &(_, id) in &g.owned {
                    e.keep(id);
                }
                g.source = Some(topology.into());
                Ok(g)
            }
            Err(err) => {
                for (_, id) in weights {
                    e.dispose(*id);
                }
                Err(err)
            }
        }
    }

    /// The graph of a GraphDef, without weights.
    pub fn parse(topology: &str) -> Result<Graph> {
        let json: Value = serde_json::from_str(topology)
            .map_err(|err| Error::new(format!("Invalid graph model topology JSON: {err}")))?;
        let def = json.get("modelTopology").filter(|t| t.is_object()).unwrap_or(&json);
        let Some(list) = def.get("node").and_then(Value::as_array) else {
            bail!("The graph model topology has no node list (modelTopology.node)");
        };
        let mut g = Graph::of_nodes(list, Vec::new(), "graph")?;
        let library = def.get("library").and_then(|l| l.get("function")).filter(|f| !f.is_null());
        if let Some(other) = library.filter(|f| !f.is_array()) {
            bail!("The graph's library functions (modelTopology.library.function) must be a list, but got {other}");
        }
        for f in library.and_then(Value::as_array).into_iter().flatten() {
            let (name, func) = Graph::function(f)?;
            g.functions.insert(name, func);
        }
        let init = json.get("modelInitializer").and_then(|i| i.get("node")).and_then(Value::as_array);
        if let Some(list) = init {
            g.initializer = Some(Box::new(Graph::of_nodes(list, Vec::new(), "model initializer")?));
        }
        for sub in g.functions.values_mut().chain(g.initializer.as_deref_mut()) {
            sub.tables = g.tables.clone();
        }
        if !std::ptr::eq(def, &json) {
            g.signature = json.get("signature").map(Signature::parse).unwrap_or_default();
        }
        Ok(g)
    }

    /// A graph of `list` (GraphDef nodes as JSON) and `extra` nodes (a function's arguments).
    fn of_nodes(list: &[Value], extra: Vec<Node>, what: &str) -> Result<Graph> {
        let mut nodes = Vec::with_capacity(list.len() + extra.len());
        let mut by_name = HashMap::with_capacity(list.len());
        let mut raw_inputs = Vec::with_capacity(list.len());
        for (i, n) in list.iter().enumerate() {
            let Some(name) = text(n, "name") else { bail!("Node {i} of the {what} has no name") };
            let Some(op) = text(n, "op") else { bail!("Node '{name}' has no op") };
            if by_name.insert(name.to_string(), i).is_some() {
                bail!("The {what} has two nodes named '{name}'");
            }
            let inputs: Vec<String> = match n.get("input") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|s| s.as_str().map(str::to_string))
                    .collect::<Option<_>>()
                    .ok_or_else(|| Error::new(format!("Node '{name}' has an input that is not a string")))?,
                Some(_) => bail!("Node '{name}' has an input list that is not a list"),
            };
            raw_inputs.push(inputs);
            let attr = n.get("attr").and_then(Value::as_object).cloned().unwrap_or_default();
            if let Err((attr_name, why)) = crate::attr::check_strings(op, &attr) {
                bail!("{why} (the attribute '{attr_name}' of node '{name}' is not base64)");
            }
            nodes.push(Node::new(name.to_string(), op.to_string(), attr));
        }
        for node in extra {
            // A node of the same name replaces the argument, as in tfjs's node map.
            by_name.insert(node.name.clone(), nodes.len());
            nodes.push(node);
            raw_inputs.push(Vec::new());
        }
        for (i, inputs) in raw_inputs.iter().enumerate() {
            for input in inputs {
                let (control, spec) = match input.strip_prefix('^') {
                    Some(rest) => (true, rest),
                    None => (false, input.as_str()),
                };
                let (node_name, index) = parse_name(spec);
                let Some(&j) = by_name.get(node_name) else {
                    bail!("Node '{}' has input '{input}', but the {what} has no node '{node_name}'", nodes[i].name);
                };
                let Some(index) = index else {
                    bail!("Node '{}' has input '{input}', which names no output of node '{node_name}'", nodes[i].name);
                };
                nodes[i].deps.push(j);
                nodes[i].all_inputs.push((j, if control { 0 } else { index }));
                nodes[j].children.push(i);
                if !control {
                    nodes[i].inputs.push((j, index));
                }
            }
        }
        let control_flow = nodes.iter().any(|n| needs_control_flow(&n.op)) || has_cycle(&nodes);
        let weight_of = vec![None; nodes.len()];
        Ok(Graph {
            nodes,
            by_name,
            weights: Vec::new(),
            weight_of,
            control_flow,
            disposed: false,
            plans: RefCell::new(HashMap::new()),
            owned: Vec::new(),
            owned_set: Default::default(),
            functions: HashMap::new(),
            initializer: None,
            tables: Rc::default(),
            fn_inputs: Vec::new(),
            fn_outputs: Vec::new(),
            signature: Signature::default(),
            source: None,
        })
    }

    /// A function of the library (tfjs's `mapFunction`): its nodes, a placeholder per argument,
    /// and its results (`ret`, by output argument).
    fn function(f: &Value) -> Result<(String, Graph)> {
        let signature = f.get("signature").unwrap_or(&Value::Null);
        let Some(name) = text(signature, "name") else { bail!("A function of the graph's library has no name") };
        let args = signature.get("inputArg").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        let mut extra = Vec::with_capacity(args.len());
        for arg in args {
            let Some(arg_name) = text(arg, "name") else { bail!("An argument of function '{name}' has no name") };
            let mut attr = Attrs::new();
            attr.insert("dtype".into(), serde_json::json!({"type": arg.get("type").cloned().unwrap_or(Value::Null)}));
            extra.push(Node::new(parse_name(arg_name).0.to_string(), "Placeholder".into(), attr));
        }
        let arg_names: Vec<String> = extra.iter().map(|n| n.name.clone()).collect();
        let list = f.get("nodeDef").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        let mut g = Graph::of_nodes(list, extra, &format!("function '{name}'"))?;
        g.fn_inputs = arg_names.iter().map(|a| g.by_name[a.as_str()]).collect();
        // tfjs keeps one output index per node (`defaultOutput`, the last result naming it).
        let mut results = Vec::new();
        let outs = signature.get("outputArg").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        for out in outs {
            let ret = text(out, "name").and_then(|o| f.get("ret").and_then(|r| r.get(o))).and_then(Value::as_str);
            let Some((node, index)) = ret.map(parse_name) else { continue };
            if let Some(&n) = g.by_name.get(node) {
                results.push((n, index.unwrap_or(0)));
            }
        }
        let mut last: HashMap<usize, usize> = HashMap::new();
        for &(n, k) in &results {
            last.insert(n, k);
        }
        g.fn_outputs = results.iter().map(|&(n, _)| (n, last[&n])).collect();
        Ok((name.to_string(), g))
    }

    fn take_weights(&mut self, e: &mut Engine, weights: &[(String, TensorId)]) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for (name, id) in weights {
            if !seen.insert(name.as_str()) {
                bail!("The weight '{name}' is given twice");
            }
            let main = self.by_name.get(name).copied();
            let in_functions =
                self.functions.values().chain(self.initializer.as_deref()).any(|f| f.by_name.contains_key(name));
            if e.is_disposed(*id) {
                bail!("The weight '{name}' is a disposed tensor");
            }
            if main.is_none() && !in_functions {
                e.dispose(*id);
                continue;
            }
            if let Some(n) = main {
                self.weight_of[n] = Some(*id);
                self.weights.push((n, *id));
            }
            for f in self.functions.values_mut().chain(self.initializer.as_deref_mut()) {
                if let Some(&n) = f.by_name.get(name) {
                    f.weight_of[n] = Some(*id);
                    f.weights.push((n, *id));
                }
            }
            self.owned.push((name.clone(), *id));
        }
        self.owned_set = self.owned.iter().map(|&(_, id)| id).collect();
        // The initializer runs on its own: the model's weights are never its to dispose.
        if let Some(init) = self.initializer.as_deref_mut() {
            init.owned_set = self.owned_set.clone();
        }
        // Each weight has the shape its Const node declares, where it declares one (a
        // manifest that disagrees with the graph is refused, naming the weight), in graph order.
        for (node, w) in self.nodes.iter().zip(&self.weight_of) {
            let (Some(id), "Const") = (w, node.op.as_str()) else { continue };
            let Some(declared) = node.attr.get("value").and_then(|v| v.pointer("/tensor/tensorShape")) else {
                continue;
            };
            if declared.get("unknownRank").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            // Dims read as tfjs's readers do (a missing or unreadable size is NaN: it checks nothing).
            let dims: Vec<f64> = declared.get("dim").and_then(Value::as_array).map_or(Vec::new(), |d| {
                d.iter().map(|d| d.get("size").map_or(f64::NAN, crate::attr::number)).collect()
            });
            let have = e.shape(*id)?;
            let differs = dims.len() != have.len() || dims.iter().zip(have).any(|(&d, &h)| d >= 0.0 && d != h as f64);
            if differs {
                let join = |v: Vec<String>| v.join(",");
                bail!(
                    "The weight '{}' has shape [{}] in the weights manifest, but its Const node declares shape [{}]",
                    node.name,
                    join(have.iter().map(|d| d.to_string()).collect()),
                    join(dims.iter().map(|d| d.to_string()).collect())
                );
            }
        }
        if let Some(c) = self.nodes.iter().zip(&self.weight_of).find(|(n, w)| n.op == "Const" && w.is_none()) {
            bail!("The Const node '{}' has no weight (the weights manifest has no entry of that name)", c.0.name);
        }
        Ok(())
    }

    /// Runs the model initializer's graph (tfjs's `executeInitializerGraph`, or its async
    /// twin with `control_flow`), which fills the lookup tables; its `outputs` (the table
    /// handles the initializer signature names) are returned. Nothing without an initializer.
    pub fn initialize(&self, e: &mut Engine, outputs: &[String], control_flow: bool) -> Result<Vec<TensorId>> {
        if self.disposed {
            bail!("This graph model has been disposed");
        }
        match self.initializer.as_deref() {
            None => Ok(Vec::new()),
            Some(init) if control_flow => init.execute_async(e, &[], outputs),
            Some(init) => init.execute(e, &[], outputs),
        }
    }

    /// The model as another thread builds it again ([`GraphSource`]); refused for a model
    /// with lookup tables, whose contents a replica would not have.
    pub fn replica_source(&self, e: &Engine) -> Result<GraphSource> {
        if self.disposed {
            bail!("This graph model has been disposed");
        }
        let Some(topology) = self.source.clone() else { bail!("A function of a graph model has no replica") };
        let tables = self.ops().iter().any(|op| op.contains("HashTable"));
        if self.initializer.is_some() || tables {
            bail!("A graph model with lookup tables runs on its own thread only");
        }
        let weights = self.owned.iter().map(|(n, id)| Ok((n.clone(), e.export(*id)?))).collect::<Result<_>>()?;
        Ok(GraphSource { topology, weights })
    }

    /// Whether the model has an initializer graph.
    pub fn has_initializer(&self) -> bool {
        self.initializer.is_some()
    }

    /// Whether the graph has ops that only run with control flow (loops, conditionals, tensor
    /// arrays and lists, dynamic shapes, hash tables) or a cycle. [`Graph::execute`] refuses an
    /// execution that needs one of them, with tfjs's error; other executions of the graph run.
    pub fn control_flow(&self) -> bool {
        self.control_flow
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn node(&self, name: &str) -> Option<&Node> {
        self.by_name.get(name).map(|&i| &self.nodes[i])
    }

    /// The weights' names (their nodes'), in the order they were given.
    pub fn weight_names(&self) -> Vec<String> {
        self.owned.iter().map(|(n, _)| n.clone()).collect()
    }

    pub fn weight_ids(&self) -> Vec<TensorId> {
        self.owned.iter().map(|&(_, id)| id).collect()
    }

    /// The names of the functions of the GraphDef's library.
    pub fn function_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.functions.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// tfjs's `GraphModel.inputs` (its `transformGraph`): the nodes the signature's inputs
    /// name, in its order, or else the placeholders (`Placeholder*` ops) in graph order.
    pub fn inputs(&self) -> Vec<TensorSpec> {
        let keys = self.signature_keys();
        match self.signature_nodes(&self.signature.inputs) {
            Some(nodes) => nodes.into_iter().map(|n| self.spec(n, &keys)).collect(),
            None => (0..self.nodes.len())
                .filter(|&n| self.nodes[n].op.starts_with("Placeholder"))
                .map(|n| self.spec(n, &keys))
                .collect(),
        }
    }

    /// tfjs's `GraphModel.outputs`: the nodes the signature's outputs name, in its order, or
    /// else the nodes no other node lists as an input, in graph order.
    pub fn outputs(&self) -> Vec<TensorSpec> {
        let keys = self.signature_keys();
        self.output_nodes().into_iter().map(|n| self.spec(n, &keys)).collect()
    }

    /// The nodes of [`Graph::outputs`]: what an execution asking for no output checks.
    pub(crate) fn output_nodes(&self) -> Vec<usize> {
        self.signature_nodes(&self.signature.outputs)
            .unwrap_or_else(|| (0..self.nodes.len()).filter(|&n| self.nodes[n].children.is_empty()).collect())
    }

    /// The nodes the signature's `(key, tensor name)` entries name (those in the graph), or
    /// `None` without entries.
    fn signature_nodes(&self, entries: &[(String, String)]) -> Option<Vec<usize>> {
        (!entries.is_empty())
            .then(|| entries.iter().filter_map(|(_, name)| self.by_name.get(parse_name(name).0).copied()).collect())
    }

    /// Each node's signature key: tfjs sets it on the node, outputs first, so an input's key
    /// wins for a node the signature names on both sides.
    fn signature_keys(&self) -> HashMap<usize, &str> {
        let mut keys = HashMap::new();
        for (key, name) in self.signature.outputs.iter().chain(&self.signature.inputs) {
            if let Some(&n) = self.by_name.get(parse_name(name).0) {
                keys.insert(n, key.as_str());
            }
        }
        keys
    }

    /// A node as tfjs's `GraphModel.inputs`/`outputs` describe it: the shape of the `shape`
    /// attribute (placeholders), the dtype of the attribute tfjs's op table reads as `dtype`.
    fn spec(&self, n: usize, keys: &HashMap<usize, &str>) -> TensorSpec {
        let node = &self.nodes[n];
        let a = node.attrs();
        let shape = if has_shape_attr(&node.op) { a.shape("shape").flatten() } else { None };
        TensorSpec {
            name: node.name.clone(),
            shape: shape.map(|dims| dims.into_iter().map(|d| (d >= 0).then_some(d as usize)).collect()),
            dtype: crate::ops::dtype_attr(node).and_then(|d| a.dtype(d)).flatten(),
            op: node.op.clone(),
            signature_key: keys.get(&n).map(|k| k.to_string()),
        }
    }

    /// tfjs's `GraphModel` takes the signature's keys for inputs and outputs: the tensor names
    /// they stand for (other names as they are; a tensor fed twice keeps its first place and
    /// its last value, as tfjs's dict of feeds does).
    pub(crate) fn resolve<'a>(
        &self,
        feeds: &'a [(String, TensorId)],
        outputs: &'a [String],
    ) -> (Cow<'a, [(String, TensorId)]>, Cow<'a, [String]>) {
        let sig = &self.signature;
        if sig.inputs.is_empty() && sig.outputs.is_empty() {
            return (Cow::Borrowed(feeds), Cow::Borrowed(outputs));
        }
        let lookup = |side: &[(String, String)], name: &str| {
            side.iter().find(|(k, _)| k == name).map_or(name.to_string(), |(_, t)| t.clone())
        };
        let mut fed: Vec<(String, TensorId)> = Vec::with_capacity(feeds.len());
        for (name, id) in feeds {
            let name = lookup(&sig.inputs, name);
            match fed.iter_mut().find(|(n, _)| *n == name) {
                Some(entry) => entry.1 = *id,
                None => fed.push((name, *id)),
            }
        }
        let outs = outputs.iter().map(|o| lookup(&sig.outputs, o)).collect();
        (Cow::Owned(fed), Cow::Owned(outs))
    }

    /// The distinct ops of the graph's nodes (its functions' not included), sorted.
    pub fn ops(&self) -> Vec<&str> {
        let mut ops: Vec<&str> = self.nodes.iter().map(|n| n.op.as_str()).collect();
        ops.sort_unstable();
        ops.dedup();
        ops
    }

    /// Disposes the weights; returns how many tensors that disposed. Executing afterwards is
    /// an error.
    pub fn dispose(&mut self, e: &mut Engine) -> usize {
        let mut n = 0;
        for &(_, id) in &self.owned {
            if !e.is_disposed(id) {
                e.dispose(id);
                n += 1;
            }
        }
        self.owned.clear();
        self.owned_set.clear();
        self.weights.clear();
        self.tables.borrow_mut().dispose(e);
        for f in self.functions.values_mut().chain(self.initializer.as_deref_mut()) {
            f.owned_set.clear();
            f.weights.clear();
            f.weight_of.iter_mut().for_each(|w| *w = None);
            f.disposed = true;
        }
        self.weight_of.iter_mut().for_each(|w| *w = None);
        self.plans.borrow_mut().clear();
        self.disposed = true;
        n
    }
}

/// Whether the nodes' input edges (data and control) form a cycle (Kahn's algorithm).
fn has_cycle(nodes: &[Node]) -> bool {
    let mut pending: Vec<usize> = nodes.iter().map(|n| n.deps.len()).collect();
    let mut ready: Vec<usize> = (0..nodes.len()).filter(|&i| pending[i] == 0).collect();
    let mut done = 0;
    while let Some(i) = ready.pop() {
        done += 1;
        for &c in &nodes[i].children {
            pending[c] -= 1;
            if pending[c] == 0 {
                ready.push(c);
            }
        }
    }
    done != nodes.len()
}
