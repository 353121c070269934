//! `Graph::execute`: tfjs-converter's `GraphModel.execute` and `GraphExecutor.execute`. The
//! checks and their texts are tfjs's (the signature's keys mapped, `checkInputs`,
//! `checkInputShapeAndType`, `checkOutputs`, `compile`; `executeAsync`'s text for outputs it
//! cannot compute); the order of the nodes is `getNodesInTopologicalOrder`'s; intermediate
//! tensors are disposed after their last consumer, as `getNodeLiveUntilMap` arranges it (never
//! feeds, weights or kept tensors). These are the only checks: `lib/graph/graph_model.js`
//! makes none of its own.

use crate::graph::{has_shape_attr, is_control_flow, is_dynamic, parse_name, Graph};
use crate::ops::{self, Ctx};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::HashMap;
use std::rc::Rc;
use tidytensor_core::{bail, shape, Engine, Error, Result, TensorId};

/// A compiled execution: the nodes to run in order, and after each which nodes' tensors are
/// no longer needed.
pub(crate) struct Plan {
    order: Vec<usize>,
    release: Vec<Vec<usize>>,
    /// Whether every node this plan runs has passed `run`'s op checks (they depend only on
    /// the plan: its order and its fed nodes).
    checked: std::cell::Cell<bool>,
}

pub(crate) fn join(names: &[&str]) -> String {
    names.join(",")
}

/// The fed tensors by node: one slot per output index.
pub(crate) type Fed = HashMap<usize, Vec<Option<TensorId>>>;

/// What `getExecutionSubgraph` finds: the nodes the outputs need, the nodes without inputs
/// that nobody provided, and the first dynamic node met (with its used children).
pub(crate) struct Subgraph {
    pub used: Vec<bool>,
    pub missing: Vec<usize>,
    pub dynamic: Option<(usize, Vec<usize>)>,
}

/// How [`Graph::execute_with`] runs an execution.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExecuteOptions {
    /// tfjs's `executeAsync` on a graph without control flow (which this executor runs): the
    /// outputs it cannot compute fail with that method's text.
    pub as_async: bool,
    /// tfjs's KEEP_INTERMEDIATE_TENSORS: [`Executed::kept`] gets a copy of each tensor the
    /// execution saw.
    pub keep_intermediates: bool,
}

/// What [`Graph::execute_with`] returns.
#[derive(Debug, Default)]
pub struct Executed {
    pub outputs: Vec<TensorId>,
    /// With `keep_intermediates`, what tfjs's `getIntermediateTensors` lists, as (node name,
    /// output index, tensor): the weights, the feeds, the first output of every other node
    /// the execution ran, and the outputs (a later entry for a slot replaces an earlier). The
    /// tensors are the caller's (copies where the graph or the caller holds the original).
    pub kept: Vec<(String, usize, TensorId)>,
}

impl Graph {
    /// Runs the nodes `outputs` need (`name`, `name:k`, or a signature key), given `feeds`
    /// (the same names, or a signature key → tensor; tensor id 0 stands for a value that is
    /// no tensor). The returned tensors belong to the caller's scope (a fed or weight tensor
    /// asked for as an output is returned as it is, as in tfjs).
    pub fn execute(&self, e: &mut Engine, feeds: &[(String, TensorId)], outputs: &[String]) -> Result<Vec<TensorId>> {
        self.execute_with(e, feeds, outputs, ExecuteOptions::default()).map(|x| x.outputs)
    }

    /// [`Graph::execute`] with [`ExecuteOptions`].
    pub fn execute_with(
        &self,
        e: &mut Engine,
        feeds: &[(String, TensorId)],
        outputs: &[String],
        options: ExecuteOptions,
    ) -> Result<Executed> {
        let (feeds, outputs) = self.resolve(feeds, outputs);
        let (fed, wanted) = self.check(e, &feeds, &outputs)?;
        if wanted.is_empty() {
            // tfjs compiles the execution of the model's outputs then: its errors stand.
            self.plan(&feeds, &fed, &self.default_wanted(), options.as_async)?;
            return Ok(Executed::default());
        }
        let plan = self.plan(&feeds, &fed, &wanted, options.as_async)?;
        if options.keep_intermediates {
            return self.run_keeping(e, &feeds, &fed, &wanted, &outputs);
        }
        Ok(Executed { outputs: self.run(e, &plan, &fed, &wanted, &outputs)?, kept: Vec::new() })
    }

    /// The checks [`Graph::execute`] makes before it runs anything (feeds, outputs, dynamic
    /// ops, missing inputs), for an `execute` that the control-flow executor runs instead (a
    /// graph with custom ops: tf.registerOp's ops run there).
    pub fn check_execute(&self, e: &Engine, feeds: &[(String, TensorId)], outputs: &[String]) -> Result<()> {
        let (feeds, outputs) = self.resolve(feeds, outputs);
        let (fed, wanted) = self.check(e, &feeds, &outputs)?;
        let wanted = if wanted.is_empty() { self.default_wanted() } else { wanted };
        self.refuse(&feeds, &fed, &wanted, false).map(|_| ())
    }

    /// What an execution asking for no output checks: the model's outputs (tfjs's default).
    pub(crate) fn default_wanted(&self) -> Vec<(usize, usize)> {
        self.output_nodes().into_iter().map(|n| (n, 0)).collect()
    }

    /// Runs `wanted` and every other node the execution needs as an output too, for
    /// [`Executed::kept`].
    fn run_keeping(
        &self,
        e: &mut Engine,
        feeds: &[(String, TensorId)],
        fed: &Fed,
        wanted: &[(usize, usize)],
        outputs: &[String],
    ) -> Result<Executed> {
        let used = self.subgraph(fed, wanted).used;
        let is_wanted = |n: usize| wanted.iter().any(|&(o, _)| o == n);
        let extra: Vec<usize> = (0..self.nodes.len())
            .filter(|&n| used[n] && self.weight_of[n].is_none() && !fed.contains_key(&n) && !is_wanted(n))
            .collect();
        let mut all = wanted.to_vec();
        all.extend(extra.iter().map(|&n| (n, 0)));
        let mut names = outputs.to_vec();
        names.extend(extra.iter().map(|&n| self.nodes[n].name.clone()));
        let plan = self.plan(feeds, fed, &all, false)?;
        let ids = self.run(e, &plan, fed, &all, &names)?;
        let (outs, made) = ids.split_at(wanted.len());
        // (name, index, tensor, whether it must be copied), later entries replacing earlier.
        let mut slots: Vec<(String, usize, TensorId, bool)> = Vec::new();
        let mut at: HashMap<(String, usize), usize> = HashMap::new();
        let mut put = |name: &str, k: usize, id: TensorId, copy: bool| match at.get(&(name.to_string(), k)) {
            Some(&i) => slots[i] = (name.to_string(), k, id, copy),
            None => {
                at.insert((name.to_string(), k), slots.len());
                slots.push((name.to_string(), k, id, copy));
            }
        };
        for (name, id) in &self.owned {
            put(name, 0, *id, true);
        }
        for (name, id) in feeds {
            put(parse_name(name).0, 0, *id, true);
        }
        for (&n, &id) in extra.iter().zip(made) {
            put(&self.nodes[n].name, 0, id, false);
        }
        for (&(n, k), &id) in wanted.iter().zip(outs) {
            put(&self.nodes[n].name, k, id, true);
        }
        let mut kept = Vec::with_capacity(slots.len());
        for (name, k, id, copy) in slots {
            kept.push((name, k, if copy { e.clone_tensor(id)? } else { id }));
        }
        Ok(Executed { outputs: outs.to_vec(), kept })
    }

    /// tfjs's `checkInputs`, `checkInputShapeAndType` and `checkOutputs`: the fed tensors by
    /// node (one slot per output index) and the requested (node, output index) pairs.
    pub(crate) fn check(
        &self,
        e: &Engine,
        feeds: &[(String, TensorId)],
        outputs: &[String],
    ) -> Result<(Fed, Vec<(usize, usize)>)> {
        if self.disposed {
            bail!("This graph model has been disposed");
        }
        // checkInputs
        let not_in_graph: Vec<&str> =
            feeds.iter().map(|(n, _)| n.as_str()).filter(|n| !self.by_name.contains_key(parse_name(n).0)).collect();
        if !not_in_graph.is_empty() {
            bail!(
                "The dict provided in model.execute(dict) has keys: [{}] that are not part of graph",
                join(&not_in_graph)
            );
        }
        // checkInputShapeAndType
        let mut fed: Fed = HashMap::new();
        for (name, id) in feeds {
            let (node_name, index) = parse_name(name);
            let n = self.by_name[node_name];
            let node = &self.nodes[n];
            if *id == 0 {
                bail!("The value of dict['{}'] provided in model.execute(dict) is not a tf.Tensor", node.name);
            }
            let (xs, xd) = (e.shape(*id)?.to_vec(), e.dtype(*id)?);
            if has_shape_attr(&node.op) {
                if let Some(Some(want)) = node.attrs().shape("shape") {
                    let ok = want.len() == xs.len() && want.iter().zip(&xs).all(|(&w, &d)| w == -1 || w == d as i64);
                    if !ok {
                        bail!(
                            "The shape of dict['{}'] provided in model.execute(dict) must be [{}], but was [{}]",
                            node.name,
                            shape::join_i64(&want),
                            xs.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
                        );
                    }
                }
            }
            if let Some(Some(want)) = ops::dtype_attr(node).and_then(|a| node.attrs().dtype(a)) {
                if want != xd {
                    bail!(
                        "The dtype of dict['{}'] provided in model.execute(dict) must be {}, but was {}",
                        node.name,
                        want.name(),
                        xd.name()
                    );
                }
            }
            let Some(index) = index else { bail!("The input name '{name}' names no output of node '{node_name}'") };
            let slots = fed.entry(n).or_default();
            slots.clear();
            slots.resize(index + 1, None);
            slots[index] = Some(*id);
        }
        // checkOutputs
        let mut wanted = Vec::with_capacity(outputs.len());
        for name in outputs {
            let (node_name, index) = parse_name(name);
            let Some(&n) = self.by_name.get(node_name) else { bail!("The output '{name}' is not found in the graph") };
            let Some(index) = index else { bail!("The output '{name}' names no output of node '{node_name}'") };
            wanted.push((n, index));
        }
        Ok((fed, wanted))
    }

    /// tfjs's `getExecutionSubgraph`: back from the outputs to weights, feeds and init nodes.
    pub(crate) fn subgraph(&self, fed: &Fed, wanted: &[(usize, usize)]) -> Subgraph {
        let nodes = &self.nodes;
        let count = nodes.len();
        let mut used = vec![false; count];
        let mut seen = vec![false; count];
        let mut missing = Vec::new();
        let mut dynamic: Option<(usize, Vec<usize>)> = None;
        let mut frontier: Vec<usize> = wanted.iter().map(|&(n, _)| n).collect();
        while let Some(n) = frontier.pop() {
            if dynamic.is_none() && is_dynamic(&nodes[n].op) {
                let sync = nodes[n].children.iter().copied().filter(|&c| used[c]).collect();
                dynamic = Some((n, sync));
            }
            used[n] = true;
            if self.weight_of[n].is_some() || fed.contains_key(&n) || self.is_init(n) {
                continue;
            }
            if nodes[n].deps.is_empty() {
                missing.push(n);
                continue;
            }
            for &d in &nodes[n].deps {
                if !seen[d] {
                    seen[d] = true;
                    frontier.push(d);
                }
            }
        }
        Subgraph { used, missing, dynamic }
    }

    /// tfjs's init nodes: no inputs, neither a placeholder nor a weight.
    pub(crate) fn is_init(&self, n: usize) -> bool {
        let node = &self.nodes[n];
        !node.op.starts_with("Placeholder") && node.op != "Const" && node.deps.is_empty()
    }

    /// tfjs's `compile`, cached by the fed and requested node names; `as_async`: see
    /// [`ExecuteOptions`].
    fn plan(
        &self,
        feeds: &[(String, TensorId)],
        fed: &Fed,
        wanted: &[(usize, usize)],
        as_async: bool,
    ) -> Result<Rc<Plan>> {
        // Node indices stand for the (unique) node names: no strings to build per call.
        let mut ins: Vec<usize> = fed.keys().copied().collect();
        let mut outs: Vec<usize> = wanted.iter().map(|&(n, _)| n).collect();
        ins.sort_unstable();
        outs.sort_unstable();
        let key = (ins, outs);
        if let Some(p) = self.plans.borrow().get(&key) {
            return Ok(p.clone());
        }
        let plan = Rc::new(self.compile(feeds, fed, wanted, as_async)?);
        self.plans.borrow_mut().insert(key, plan.clone());
        Ok(plan)
    }

    /// tfjs's refusals of an execution (`compile`'s; `executeAsync`'s for the outputs it
    /// cannot compute with `as_async`); the nodes it uses otherwise.
    fn refuse(
        &self,
        feeds: &[(String, TensorId)],
        fed: &Fed,
        wanted: &[(usize, usize)],
        as_async: bool,
    ) -> Result<Vec<bool>> {
        let nodes = &self.nodes;
        let Subgraph { used, missing, dynamic } = self.subgraph(fed, wanted);
        if let Some((n, sync)) = dynamic {
            let sync: Vec<&str> = sync.iter().map(|&c| nodes[c].name.as_str()).collect();
            bail!(
                "This execution contains the node '{}', which has the dynamic op '{}'. Please use model.executeAsync() instead. Alternatively, to avoid the dynamic ops, specify the inputs [{}]",
                nodes[n].name,
                nodes[n].op,
                join(&sync)
            );
        }
        if !missing.is_empty() {
            let ins: Vec<&str> = feeds.iter().map(|(n, _)| n.as_str()).collect();
            let miss: Vec<&str> = missing.iter().map(|&n| nodes[n].name.as_str()).collect();
            if as_async {
                let outs = self.uncomputable(&used, &missing, fed, wanted);
                bail!(
                    "Cannot compute the outputs [{}] from the provided inputs [{}]. Consider providing the following inputs: [{}]. ",
                    join(&outs),
                    join(&ins),
                    join(&miss)
                );
            }
            let outs: Vec<&str> = wanted.iter().map(|&(n, _)| nodes[n].name.as_str()).collect();
            bail!(
                "Cannot compute the outputs [{}] from the provided inputs [{}]. Missing the following inputs: [{}]",
                join(&outs),
                join(&ins),
                join(&miss)
            );
        }
        Ok(used)
    }

    /// The requested nodes a missing input keeps from a value (control flow nodes excepted,
    /// as tfjs's `executeAsync` checks them): those the missing nodes reach through the used
    /// nodes' edges, past no fed or weight node.
    fn uncomputable(&self, used: &[bool], missing: &[usize], fed: &Fed, wanted: &[(usize, usize)]) -> Vec<&str> {
        let mut blocked = vec![false; self.nodes.len()];
        let mut frontier = missing.to_vec();
        for &n in missing {
            blocked[n] = true;
        }
        while let Some(n) = frontier.pop() {
            for &c in &self.nodes[n].children {
                if used[c] && !blocked[c] && self.weight_of[c].is_none() && !fed.contains_key(&c) {
                    blocked[c] = true;
                    frontier.push(c);
                }
            }
        }
        wanted
            .iter()
            .filter(|&&(n, _)| blocked[n] && !is_control_flow(&self.nodes[n].op))
            .map(|&(n, _)| self.nodes[n].name.as_str())
            .collect()
    }

    fn compile(
        &self,
        feeds: &[(String, TensorId)],
        fed: &Fed,
        wanted: &[(usize, usize)],
        as_async: bool,
    ) -> Result<Plan> {
        let nodes = &self.nodes;
        let count = nodes.len();
        let is_init = |n: usize| self.is_init(n);
        let used = self.refuse(feeds, fed, wanted, as_async)?;
        // getNodesInTopologicalOrder: the used nodes, predefined ones (feeds, weights, init
        // nodes) first, then depth first through the children.
        let predefined = |n: usize| fed.contains_key(&n) || nodes[n].op == "Const" || is_init(n);
        let mut all: Vec<usize> = (0..count).filter(|&n| used[n] && predefined(n)).collect();
        all.extend((0..count).filter(|&n| used[n] && !predefined(n)));
        let mut in_count = vec![0usize; count];
        for &n in &all {
            for &c in &nodes[n].children {
                if used[c] {
                    in_count[c] += 1;
                }
            }
        }
        let mut frontier: Vec<usize> = all.iter().copied().filter(|&n| in_count[n] == 0).collect();
        let mut order = frontier.clone();
        while let Some(n) = frontier.pop() {
            for &c in &nodes[n].children {
                if used[c] {
                    in_count[c] -= 1;
                    if in_count[c] == 0 {
                        order.push(c);
                        frontier.push(c);
                    }
                }
            }
        }
        if order.len() != all.len() {
            let stuck = all.iter().find(|&&n| in_count[n] > 0).map_or("", |&n| nodes[n].name.as_str());
            bail!("The graph has a cycle through node '{stuck}': it needs model.executeAsync()");
        }
        // getNodeLiveUntilMap: a node's tensors live until its last used child has run;
        // output nodes' tensors live to the end.
        let mut position = vec![usize::MAX; count];
        for (i, &n) in order.iter().enumerate() {
            position[n] = i;
        }
        let mut release = vec![Vec::new(); order.len()];
        for (i, &n) in order.iter().enumerate() {
            if wanted.iter().any(|&(o, _)| o == n) {
                continue;
            }
            let last = nodes[n].children.iter().filter(|&&c| used[c]).map(|&c| position[c]).fold(i, usize::max);
            release[last].push(n);
        }
        Ok(Plan { order, release, checked: std::cell::Cell::new(false) })
    }

    fn run(
        &self,
        e: &mut Engine,
        plan: &Plan,
        fed: &Fed,
        wanted: &[(usize, usize)],
        names: &[String],
    ) -> Result<Vec<TensorId>> {
        // Nothing the call did not make is ever disposed: feeds, weights, kept tensors.
        let weights = &self.owned_set;
        let fed_ids: Vec<TensorId> = fed.values().flatten().flatten().copied().collect();
        let frozen = |id: &TensorId| weights.contains(id) || fed_ids.contains(id);
        let mut values: Vec<Vec<Option<TensorId>>> = vec![Vec::new(); self.nodes.len()];
        for &(n, id) in &self.weights {
            values[n] = vec![Some(id)];
        }
        for (&n, slots) in fed {
            values[n] = slots.clone();
        }
        // How many nodes' values hold each tensor the call made (an op may return its input).
        let mut holders: FxHashMap<TensorId, usize> = FxHashMap::default();
        e.start_scope();
        let result = (|| -> Result<Vec<TensorId>> {
            // An op that cannot run fails the call before any runs.
            for &n in plan.order.iter().filter(|_| !plan.checked.get()) {
                let node = &self.nodes[n];
                if !values[n].is_empty() {
                    continue;
                }
                if let Some(why) = ops::unsupported(&node.op) {
                    bail!("{why} (node '{}', op {})", node.name, node.op);
                }
                // tfjs runs these asynchronously: its execute() fails on the promise.
                if ops::is_async(&node.op) {
                    bail!(
                        "The execution of the op '{}' returned a promise. Please use model.executeAsync() instead.",
                        node.op
                    );
                }
            }
            plan.checked.set(true);
            for (i, &n) in plan.order.iter().enumerate() {
                if values[n].is_empty() {
                    let node = &self.nodes[n];
                    let outs = self
                        .run_node(e, n, &values, weights)
                        .map_err(|err| Error::new(format!("{} (node '{}', op {})", err.0, node.name, node.op)))?;
                    for &id in &outs {
                        *holders.entry(id).or_default() += 1;
                    }
                    values[n] = outs.into_iter().map(Some).collect();
                }
                for &r in &plan.release[i] {
                    for id in std::mem::take(&mut values[r]).into_iter().flatten() {
                        if frozen(&id) {
                            continue;
                        }
                        let left = holders.get_mut(&id).map(|h| {
                            *h -= 1;
                            *h
                        });
                        if left == Some(0) && !e.tensor_origin(id).is_some_and(|o| o.kept) {
                            e.dispose(id);
                        }
                    }
                }
            }
            wanted
                .iter()
                .zip(names)
                .map(|(&(n, k), name)| {
                    values[n].get(k).copied().flatten().ok_or_else(|| {
                        Error::new(format!(
                            "The output '{name}' has no value: node '{}' has no output {k}",
                            self.nodes[n].name
                        ))
                    })
                })
                .collect()
        })();
        match result {
            Ok(ids) => {
                e.end_scope(&ids);
                Ok(ids)
            }
            Err(err) => {
                e.end_scope(&[]);
                Err(err)
            }
        }
    }

    /// One node's op, in a scope of its own (tfjs runs each op in a `tidy`).
    fn run_node(
        &self,
        e: &mut Engine,
        n: usize,
        values: &[Vec<Option<TensorId>>],
        weights: &FxHashSet<TensorId>,
    ) -> Result<Vec<TensorId>> {
        let node = &self.nodes[n];
        let mut ins = Vec::with_capacity(node.inputs.len());
        let mut from_noop = Vec::with_capacity(node.inputs.len());
        for &(j, k) in &node.inputs {
            let Some(id) = values[j].get(k).copied().flatten() else {
                let from = &self.nodes[j].name;
                let input = if k == 0 { from.clone() } else { format!("{from}:{k}") };
                bail!("its input '{input}' has no value");
            };
            ins.push(id);
            from_noop.push(self.nodes[j].op == "NoOp");
        }
        let ctx = Ctx { node, ins: &ins, from_noop: &from_noop, weights };
        e.start_scope();
        match ops::run(e, &ctx) {
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
}
