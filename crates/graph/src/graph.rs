//! The graph: nodes parsed from the GraphDef JSON, their inputs resolved to node indices, the
//! weights the graph owns, and what tfjs's `GraphModel.inputs` / `outputs` report.

use crate::attr::{AttrReader, Attrs, Decoded};
use crate::exec::Plan;
use crate::ops::hash_table::Tables;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use tidytensor_core::{bail, DType, Engine, Error, Result, TensorId};

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
/// `GraphModel.inputs` and `outputs` list them.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorSpec {
    pub name: String,
    pub shape: Option<Vec<Option<usize>>>,
    pub dtype: Option<DType>,
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
    /// Parses a GraphDef (model.json's `modelTopology`, or the whole model.json) and takes
    /// ownership of the weights, one per `Const` node, named as the node. On error the weights
    /// given are disposed.
    pub fn load(e: &mut Engine, topology: &str, weights: &[(String, TensorId)]) -> Result<Graph> {
        let loaded = Graph::parse(topology).and_then(|mut g| {
            g.take_weights(e, weights)?;
            Ok(g)
        });
        match loaded {
            Ok(g) => {
                for &(_, id) in &g.owned {
                    e.keep(id);
                }
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
        let library = def.get("library").and_then(|l| l.get("function")).and_then(Value::as_array);
        for f in library.into_iter().flatten() {
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

    fn take_weights(&mut self, e: &Engine, weights: &[(String, TensorId)]) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for (name, id) in weights {
            if !seen.insert(name.as_str()) {
                bail!("The weight '{name}' is given twice");
            }
            let main = self.by_name.get(name).copied();
            let in_functions =
                self.functions.values().chain(self.initializer.as_deref()).any(|f| f.by_name.contains_key(name));
            if main.is_none() && !in_functions {
                bail!("The weight '{name}' names no node of the graph");
            }
            if e.is_disposed(*id) {
                bail!("The weight '{name}' is a disposed tensor");
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

    /// tfjs's `GraphModel.inputs`: the placeholders (`Placeholder*` ops), in graph order, with
    /// the shape and dtype of their attributes.
    pub fn inputs(&self) -> Vec<TensorSpec> {
        self.nodes
            .iter()
            .filter(|n| n.op.starts_with("Placeholder"))
            .map(|n| {
                let a = n.attrs();
                TensorSpec {
                    name: n.name.clone(),
                    shape: spec_shape(a.shape("shape")),
                    dtype: a.dtype("dtype").flatten(),
                }
            })
            .collect()
    }

    /// tfjs's `GraphModel.outputs`: the nodes no other node lists as an input, in graph order;
    /// shape from `_output_shapes` and dtype from `T` (or `dtype`) when the node has them.
    pub fn outputs(&self) -> Vec<TensorSpec> {
        self.nodes
            .iter()
            .filter(|n| n.children.is_empty())
            .map(|n| {
                let a = n.attrs();
                let dtype = a.dtype("T").or_else(|| a.dtype("dtype")).flatten();
                TensorSpec { name: n.name.clone(), shape: spec_shape(a.first_list_shape("_output_shapes")), dtype }
            })
            .collect()
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

fn spec_shape(shape: Option<Option<Vec<i64>>>) -> Option<Vec<Option<usize>>> {
    shape.flatten().map(|dims| dims.into_iter().map(|d| (d >= 0).then_some(d as usize)).collect())
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
