//! `Graph::execute_async`: tfjs-converter's `GraphExecutor.executeAsync`, which runs graphs with
//! control flow (`executeWithControlFlow`, `processStack`, `processChildNodes`). The order is
//! found while running: a node runs once all its inputs have values in its frame (a Merge once
//! any has), starting from the feeds, the weights and the nodes without inputs. Tensors are
//! keyed by node and frame (tfjs's `ExecutionContext`: a frame per loop entered, an iteration
//! count per frame), so each iteration of a loop has its own; a value is looked up in the
//! current frame, then in the enclosing ones. Switch's untaken output is dead (no value), so
//! nothing downstream of it runs. The ops tfjs runs asynchronously (control flow, dynamic
//! shapes) finish after the nodes runnable at the same time, as tfjs's promises do.
//!
//! Memory: each output of a node is disposed once every consumer that reads it in its frame
//! has run (so a loop's tensors go iteration by iteration), and everything else the execution
//! made (dead branches, values read from enclosing frames, tensor arrays and lists) when it
//! ends, also on error. Only the requested outputs leave; feeds and weights are never touched.

use crate::exec::{join, Fed};
use crate::graph::{is_control_flow, parse_name, Graph};
use crate::ops::control::{self, FrameOp, Resources};
use crate::ops::hash_table;
use crate::ops::{self, Ctx};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use tidytensor_core::{bail, Engine, Error, Result, TensorId};

/// The key of the root frame's tensors ('' in tfjs).
const ROOT: u32 = 0;

/// One level of tfjs's execution context: a frame (a loop) and its iteration.
#[derive(Clone, Debug)]
struct Frame {
    id: usize,
    name: Rc<str>,
    iteration: usize,
}

/// A frame path and the keys under which its nodes' tensors are looked up: its own first,
/// then each enclosing frame's, the root's last (tfjs's `currentContextIds`).
#[derive(Debug)]
struct Cx {
    frames: Vec<Frame>,
    ids: Vec<u32>,
}

/// Frame paths, interned: tfjs's context id strings (`frame-iteration/...`) as numbers.
#[derive(Default)]
struct Keys {
    map: HashMap<String, u32>,
}

impl Keys {
    fn key(&mut self, s: String) -> u32 {
        let next = self.map.len() as u32 + 1;
        if s.is_empty() {
            return ROOT;
        }
        *self.map.entry(s).or_insert(next)
    }

    /// tfjs's `contextIdforContexts`.
    fn path(frames: &[Frame]) -> String {
        let parts: Vec<String> = frames
            .iter()
            .map(|f| if f.id == 0 && f.iteration == 0 { String::new() } else { format!("{}-{}", f.name, f.iteration) })
            .collect();
        parts.join("/")
    }

    fn cx(&mut self, frames: Vec<Frame>) -> Rc<Cx> {
        let n = frames.len();
        let mut ids = Vec::with_capacity(n);
        for i in 0..n.saturating_sub(1) {
            ids.push(self.key(Self::path(&frames[..n - i])));
        }
        ids.push(ROOT);
        Rc::new(Cx { frames, ids })
    }
}

/// The values of one node in one frame: a slot per output (`None`: dead or absent), and per
/// slot how many consumers in the frame have still to read it (`usize::MAX`: never freed
/// early).
struct Entry {
    slots: Vec<Option<TensorId>>,
    left: Vec<usize>,
}

/// A node that ran asynchronously in tfjs: its values are stored and its children pushed
/// after the runnable nodes are done.
struct Done {
    n: usize,
    key: u32,
    read_at: u32,
    outs: Vec<Option<TensorId>>,
    cx: Rc<Cx>,
}

/// One control-flow execution of a graph (the main graph or a function of its library).
pub(crate) struct Flow<'g> {
    g: &'g Graph,
    /// The model's functions (the main graph's library).
    fns: &'g HashMap<String, Graph>,
    used: Vec<bool>,
    /// The requested nodes: their tensors are never freed early.
    outputs: HashSet<usize>,
    /// Per node and output: how many used consumers list it.
    consumers: Vec<Vec<usize>>,
    values: HashMap<(usize, u32), Entry>,
    /// How many live slots hold each tensor the execution made (an op may pass its input on).
    holders: HashMap<TensorId, usize>,
    added: HashSet<(usize, u32)>,
    keys: Keys,
    last_id: usize,
    stack: Vec<(usize, Rc<Cx>)>,
    current: Rc<Cx>,
    /// The model's weights (every graph's and function's).
    weights: &'g rustc_hash::FxHashSet<TensorId>,
}

impl<'g> Flow<'g> {
    /// Sets up an execution of `g` over `used` nodes, fed `fed`, for the `wanted` outputs.
    pub(crate) fn new(
        g: &'g Graph,
        fns: &'g HashMap<String, Graph>,
        weights: &'g rustc_hash::FxHashSet<TensorId>,
        used: Vec<bool>,
        fed: &Fed,
        wanted: &[(usize, usize)],
    ) -> Flow<'g> {
        let nodes = &g.nodes;
        let mut consumers: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for (c, node) in nodes.iter().enumerate() {
            if !used[c] {
                continue;
            }
            for &(j, k) in &node.all_inputs {
                if consumers[j].len() <= k {
                    consumers[j].resize(k + 1, 0);
                }
                consumers[j][k] += 1;
            }
        }
        let mut keys = Keys::default();
        let root = keys.cx(vec![Frame { id: 0, name: Rc::from(""), iteration: 0 }]);
        let mut values = HashMap::new();
        for &(n, id) in &g.weights {
            values.insert((n, ROOT), Entry { slots: vec![Some(id)], left: vec![usize::MAX] });
        }
        for (&n, slots) in fed {
            values.insert((n, ROOT), Entry { slots: slots.clone(), left: vec![usize::MAX; slots.len()] });
        }
        Flow {
            g,
            fns,
            used,
            outputs: wanted.iter().map(|&(n, _)| n).collect(),
            consumers,
            values,
            holders: HashMap::new(),
            added: HashSet::new(),
            keys,
            last_id: 0,
            stack: Vec::new(),
            current: root,
            weights,
        }
    }

    /// Runs until no node can run: the feeds (in `feed_nodes` order), the weights and the
    /// init nodes first, as tfjs stacks them.
    pub(crate) fn run(&mut self, e: &mut Engine, r: &mut Resources, feed_nodes: &[usize]) -> Result<()> {
        let g = self.g;
        let root = self.current.clone();
        let mut first: Vec<usize> = feed_nodes.to_vec();
        first.extend((0..g.nodes.len()).filter(|&n| g.nodes[n].op == "Const"));
        first.extend((0..g.nodes.len()).filter(|&n| g.is_init(n)));
        self.stack = first.into_iter().map(|n| (n, root.clone())).collect();
        let mut pending = Vec::new();
        while !self.stack.is_empty() {
            while let Some((n, cx)) = self.stack.pop() {
                self.current = cx.clone();
                if let Some(done) = self.step(e, r, n, cx)? {
                    pending.push(done);
                }
            }
            for done in std::mem::take(&mut pending) {
                self.current = done.cx.clone();
                self.finish(e, r, done);
            }
        }
        Ok(())
    }

    /// tfjs's `getTensor`: the value of output `k` of node `j` in the innermost frame of `cx`
    /// where node `j` has values.
    fn get(&self, j: usize, k: usize, cx: &Cx) -> Option<TensorId> {
        cx.ids.iter().find_map(|&id| self.values.get(&(j, id))).and_then(|en| en.slots.get(k).copied().flatten())
    }

    /// The value of output `k` of node `n` as the execution ended (in its last frame).
    pub(crate) fn value(&self, n: usize, k: usize) -> Option<TensorId> {
        self.get(n, k, &self.current)
    }

    /// One item of tfjs's `processStack`.
    fn step(&mut self, e: &mut Engine, r: &mut Resources, n: usize, cx: Rc<Cx>) -> Result<Option<Done>> {
        let node = &self.g.nodes[n];
        // A constant Enter's value belongs to the enclosing frame: every iteration sees it.
        let store_at = (node.op == "Enter" && node.attrs().bool("is_constant", false)).then_some(cx.ids[0]);
        if self.values.contains_key(&(n, ROOT)) {
            self.children(n, &cx);
            return Ok(None);
        }
        let (outs, after) = self
            .run_node(e, r, n, &cx)
            .map_err(|err| Error::new(format!("{} (node '{}', op {})", err.0, node.name, node.op)))?;
        let done = Done { n, key: store_at.unwrap_or(after.ids[0]), read_at: cx.ids[0], outs, cx: after };
        if ops::is_async(&node.op) {
            return Ok(Some(done));
        }
        self.finish(e, r, done);
        Ok(None)
    }

    /// Stores a node's values, frees the inputs it was the last to read, pushes its children.
    fn finish(&mut self, e: &mut Engine, r: &mut Resources, d: Done) {
        let n = d.n;
        let keep = self.outputs.contains(&n);
        let left: Vec<usize> = (0..d.outs.len())
            .map(|k| if keep { usize::MAX } else { self.consumers[n].get(k).copied().unwrap_or(0) })
            .collect();
        for id in d.outs.iter().flatten() {
            *self.holders.entry(*id).or_default() += 1;
        }
        let unread: Vec<usize> = (0..d.outs.len()).filter(|&k| left[k] == 0).collect();
        if let Some(old) = self.values.insert((n, d.key), Entry { slots: d.outs, left }) {
            // Only a node run twice in one frame (not expected): its old values go, but those
            // already freed.
            for (id, left) in old.slots.into_iter().zip(old.left) {
                if let (Some(id), true) = (id, left != 0) {
                    self.drop_holder(e, r, id);
                }
            }
        }
        for k in unread {
            self.release(e, r, n, d.key, k);
        }
        let g = self.g;
        for &(j, k) in &g.nodes[n].all_inputs {
            let Some(en) = self.values.get_mut(&(j, d.read_at)) else { continue };
            match en.left.get_mut(k) {
                Some(left) if *left != usize::MAX && *left > 0 => {
                    *left -= 1;
                    if *left == 0 {
                        self.release(e, r, j, d.read_at, k);
                    }
                }
                _ => {}
            }
        }
        let cx = d.cx;
        self.children(n, &cx);
    }

    /// Frees slot `k` of node `n` in frame `key` (the entry stays: it still has a value for
    /// the checks of tfjs's `processChildNodes`).
    fn release(&mut self, e: &mut Engine, r: &mut Resources, n: usize, key: u32, k: usize) {
        let Some(id) = self.values.get(&(n, key)).and_then(|en| en.slots.get(k).copied().flatten()) else { return };
        self.drop_holder(e, r, id);
    }

    fn drop_holder(&mut self, e: &mut Engine, r: &Resources, id: TensorId) {
        let Some(h) = self.holders.get_mut(&id) else { return };
        *h -= 1;
        if *h == 0 {
            self.holders.remove(&id);
            let kept = e.tensor_origin(id).is_some_and(|o| o.kept);
            if !kept && !r.frozen.contains(&id) {
                e.dispose(id);
            }
        }
    }

    /// tfjs's `processChildNodes`: pushes each used child whose inputs all have values in the
    /// frame (a Merge: any of them), once per frame.
    fn children(&mut self, n: usize, cx: &Rc<Cx>) {
        let g = self.g;
        for &c in &g.nodes[n].children {
            let key = (c, cx.ids[0]);
            if !self.used[c] || self.added.contains(&key) {
                continue;
            }
            let child = &g.nodes[c];
            let has = |&(j, k): &(usize, usize)| self.get(j, k, cx).is_some();
            let ready =
                if child.op == "Merge" { child.all_inputs.iter().any(has) } else { child.all_inputs.iter().all(has) };
            if ready {
                self.added.insert(key);
                self.stack.push((c, cx.clone()));
            }
        }
    }

    /// Runs node `n` in frame `cx`: its outputs and the frame after it.
    fn run_node(
        &mut self,
        e: &mut Engine,
        r: &mut Resources,
        n: usize,
        cx: &Rc<Cx>,
    ) -> Result<(Vec<Option<TensorId>>, Rc<Cx>)> {
        let g = self.g;
        let node = &g.nodes[n];
        if let Some(why) = ops::unsupported(&node.op) {
            bail!("{why}");
        }
        let mut ins = Vec::with_capacity(node.inputs.len());
        let mut from_noop = Vec::with_capacity(node.inputs.len());
        for &(j, k) in &node.inputs {
            match self.get(j, k, cx) {
                Some(id) => ins.push(id),
                // Only a Merge runs with inputs missing; it reads none of them this way.
                None if node.op == "Merge" => continue,
                None => {
                    let from = &g.nodes[j].name;
                    let input = if k == 0 { from.clone() } else { format!("{from}:{k}") };
                    bail!("its input '{input}' has no value");
                }
            }
            from_noop.push(g.nodes[j].op == "NoOp");
        }
        let ctx = Ctx { node, ins: &ins, from_noop: &from_noop, weights: self.weights };
        e.start_scope();
        let result = if matches!(node.op.as_str(), "If" | "StatelessIf" | "While" | "StatelessWhile") {
            self.call_op(e, r, &ctx).map(|outs| (outs.into_iter().map(Some).collect(), FrameOp::Stay))
        } else if ops::is_hash_table(&node.op) {
            let mut tables = g.tables.borrow_mut();
            hash_table::run(e, &ctx, &mut tables).map(|outs| (outs.into_iter().map(Some).collect(), FrameOp::Stay))
        } else if ops::is_control(&node.op) {
            let merged = node.all_inputs.iter().find_map(|&(j, k)| self.get(j, k, cx));
            control::run(e, &ctx, merged, r)
        } else {
            ops::run(e, &ctx).map(|outs| (outs.into_iter().map(Some).collect(), FrameOp::Stay))
        };
        let (outs, frame) = match result {
            Ok(v) => {
                let ids: Vec<TensorId> = v.0.iter().flatten().copied().collect();
                e.end_scope(&ids);
                v
            }
            Err(err) => {
                e.end_scope(&[]);
                return Err(err);
            }
        };
        let after = match frame {
            FrameOp::Stay => cx.clone(),
            FrameOp::Enter(name) => {
                self.last_id += 1;
                let mut frames = cx.frames.clone();
                frames.push(Frame { id: self.last_id, name: Rc::from(name.as_str()), iteration: 0 });
                self.keys.cx(frames)
            }
            FrameOp::Exit => {
                if cx.frames.len() <= 1 {
                    self.discard(e, r, &outs);
                    bail!("Cannot exit frame, the context is empty");
                }
                let mut frames = cx.frames.clone();
                frames.pop();
                self.keys.cx(frames)
            }
            FrameOp::Next => {
                self.last_id += 1;
                let mut frames = cx.frames.clone();
                let last = frames.last_mut().expect("the root frame");
                last.iteration += 1;
                last.id = self.last_id;
                self.keys.cx(frames)
            }
        };
        Ok((outs, after))
    }

    fn discard(&self, e: &mut Engine, r: &Resources, outs: &[Option<TensorId>]) {
        for &id in outs.iter().flatten() {
            if !r.frozen.contains(&id) && !e.tensor_origin(id).is_some_and(|o| o.kept) {
                e.dispose(id);
            }
        }
    }

    /// If / StatelessIf (a branch function, by the condition) and While / StatelessWhile (the
    /// body function while the condition function says so), as tfjs's control executor runs
    /// them, disposing the results of each round the next one does not use.
    fn call_op(&self, e: &mut Engine, r: &mut Resources, c: &Ctx) -> Result<Vec<TensorId>> {
        let a = c.attrs();
        let func = |attr: &str| a.func(attr).ok_or_else(|| Error::new(format!("the node has no '{attr}' function")));
        let truthy = |e: &Engine, t: TensorId| -> Result<bool> {
            Ok(ops::values(e, t)?.first().is_some_and(|&v| v != 0.0 && !v.is_nan()))
        };
        if c.node.op.ends_with("If") {
            let cond = c.t(0)?;
            let args = c.tensors(1, 0);
            let branch = if truthy(e, cond)? { func("then_branch")? } else { func("else_branch")? };
            return self.call(e, r, &branch, &args);
        }
        let (cond_fn, body_fn) = (func("cond")?, func("body")?);
        let args = c.tensors(0, 0);
        let arg_ids: HashSet<TensorId> = args.iter().copied().collect();
        // Disposes what a round made and nothing needs: never kept tensors, feeds or weights.
        let drop = |e: &mut Engine, r: &Resources, ts: &[TensorId], keep: &HashSet<TensorId>| {
            for &t in ts {
                let kept = e.tensor_origin(t).is_some_and(|o| o.kept);
                if !kept && !arg_ids.contains(&t) && !keep.contains(&t) && !r.frozen.contains(&t) {
                    e.dispose(t);
                }
            }
        };
        let cond = self.call(e, r, &cond_fn, &args)?;
        let mut go = match cond.first() {
            Some(&t) => truthy(e, t)?,
            None => false,
        };
        drop(e, r, &cond, &HashSet::new());
        let mut result = args.clone();
        while go {
            let before = std::mem::take(&mut result);
            result = self.call(e, r, &body_fn, &before)?;
            let ids: HashSet<TensorId> = result.iter().copied().collect();
            drop(e, r, &before, &ids);
            let cond = self.call(e, r, &cond_fn, &result)?;
            go = match cond.first() {
                Some(&t) => truthy(e, t)?,
                None => false,
            };
            drop(e, r, &cond, &ids);
        }
        Ok(result)
    }

    /// Runs function `name` of the library on `args` (tfjs's `executeFunctionAsync`): a fresh
    /// frame context, the tensor arrays and lists shared. Returns its results; everything else
    /// it made (but what the execution keeps) is disposed.
    fn call(&self, e: &mut Engine, r: &mut Resources, name: &str, args: &[TensorId]) -> Result<Vec<TensorId>> {
        let Some(f) = self.fns.get(name) else { bail!("The graph's library has no function '{name}'") };
        let mut fed: Fed = HashMap::new();
        for (&n, &t) in f.fn_inputs.iter().zip(args) {
            fed.insert(n, vec![Some(t)]);
        }
        let feed_nodes: Vec<usize> = f.fn_inputs.iter().take(args.len()).copied().collect();
        let wanted = f.fn_outputs.clone();
        let sub = f.subgraph(&fed, &wanted);
        let mut flow = Flow::new(f, self.fns, self.weights, sub.used.clone(), &fed, &wanted);
        let result = (|| -> Result<Vec<TensorId>> {
            flow.run(e, r, &feed_nodes)?;
            let mut out = Vec::with_capacity(wanted.len());
            let mut missing = Vec::new();
            for &(n, k) in &wanted {
                match flow.value(n, k) {
                    Some(t) => out.push(t),
                    None => missing.push(f.nodes[n].name.as_str()),
                }
            }
            if !missing.is_empty() {
                let names: Vec<&str> = feed_nodes.iter().map(|&n| f.nodes[n].name.as_str()).collect();
                let inputs: Vec<&str> = sub.missing.iter().map(|&n| f.nodes[n].name.as_str()).collect();
                bail!(
                    "Cannot compute the outputs [{}] from the provided inputs [{}]. Consider providing the following inputs: [{}]. (function '{name}')",
                    join(&missing),
                    join(&names),
                    join(&inputs)
                );
            }
            Ok(out)
        })();
        let mut keep: HashSet<TensorId> = args.iter().copied().collect();
        if let Ok(out) = &result {
            keep.extend(out.iter().copied());
        }
        for id in flow.held() {
            let kept = e.tensor_origin(id).is_some_and(|o| o.kept);
            if !kept && !keep.contains(&id) && !r.frozen.contains(&id) {
                e.dispose(id);
            }
        }
        result
    }

    /// Every tensor the execution's values hold.
    pub(crate) fn held(&self) -> Vec<TensorId> {
        self.values.values().flat_map(|en| en.slots.iter().flatten().copied()).collect()
    }
}

impl Graph {
    /// tfjs's `executeAsync`: runs the nodes `outputs` need (`name` or `name:k`), given `feeds`,
    /// with control flow (loops, conditionals, tensor arrays and lists) and dynamic ops (non-max
    /// suppression, Where, ListDiff). The checks and texts are tfjs's. The returned tensors
    /// belong to the caller's scope (a fed or weight tensor asked for is returned as it is);
    /// everything else the execution made is disposed, also on error.
    pub fn execute_async(
        &self,
        e: &mut Engine,
        feeds: &[(String, TensorId)],
        outputs: &[String],
    ) -> Result<Vec<TensorId>> {
        let (fed, wanted) = self.check(e, feeds, outputs)?;
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let sub = self.subgraph(&fed, &wanted);
        let mut r = Resources::default();
        let weights = &self.owned_set;
        r.frozen = weights.iter().copied().collect();
        r.frozen.extend(fed.values().flatten().flatten().copied());
        let feed_nodes: Vec<usize> = feeds.iter().map(|(name, _)| self.by_name[parse_name(name).0]).collect();
        let mut flow = Flow::new(self, &self.functions, weights, sub.used.clone(), &fed, &wanted);
        e.start_scope();
        let result = (|| -> Result<Vec<TensorId>> {
            flow.run(e, &mut r, &feed_nodes)?;
            // tfjs checks output 0 of each requested node, control flow nodes excepted.
            let mut missing: Vec<&str> = Vec::new();
            for &(n, _) in &wanted {
                let node = &self.nodes[n];
                if !is_control_flow(&node.op) && flow.value(n, 0).is_none() {
                    missing.push(&node.name);
                }
            }
            if !missing.is_empty() {
                let names: Vec<&str> = feeds.iter().map(|(n, _)| n.as_str()).collect();
                let inputs: Vec<&str> = sub.missing.iter().map(|&n| self.nodes[n].name.as_str()).collect();
                let alternative = match &sub.dynamic {
                    Some((_, sync)) => {
                        let sync: Vec<&str> = sync.iter().map(|&c| self.nodes[c].name.as_str()).collect();
                        format!(
                            "Alternatively, to avoid the dynamic ops, use model.execute() and specify the inputs [{}]",
                            join(&sync)
                        )
                    }
                    None => String::new(),
                };
                bail!(
                    "Cannot compute the outputs [{}] from the provided inputs [{}]. Consider providing the following inputs: [{}]. {alternative}",
                    join(&missing),
                    join(&names),
                    join(&inputs)
                );
            }
            let mut ids = Vec::with_capacity(wanted.len());
            for (&(n, k), name) in wanted.iter().zip(outputs) {
                let Some(id) = flow.value(n, k) else {
                    bail!("The output '{name}' has no value: node '{}' gave none", self.nodes[n].name);
                };
                // A tensor the execution keeps (an element of a tensor array) leaves as a copy;
                // one kept by others (a lookup table's handle, the caller's) as it is.
                ids.push(if r.kept.contains(&id) { e.clone_tensor(id)? } else { id });
            }
            Ok(ids)
        })();
        let keep: HashSet<TensorId> = match &result {
            Ok(ids) => ids.iter().copied().chain(r.frozen.iter().copied()).collect(),
            Err(_) => r.frozen.clone(),
        };
        // Tensors kept by others (the model's lookup tables, the caller) are not this
        // execution's to dispose.
        let foreign = |e: &Engine, id: TensorId| e.tensor_origin(id).is_some_and(|o| o.kept) && !r.kept.contains(&id);
        for id in flow.held().into_iter().chain(r.held()) {
            if !keep.contains(&id) && !foreign(e, id) {
                e.dispose(id);
            }
        }
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
}
