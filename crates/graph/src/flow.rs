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
//! has run (so a loop's tensors go iteration by iteration), a frame iteration's bookkeeping once
//! no pending node uses its context, and everything else the execution made (dead branches,
//! values read from enclosing frames, tensor arrays and lists) when it ends, also on error. Only
//! the requested outputs leave; feeds and weights are never touched.
//!
//! An [`Execution`] runs If/While function calls as a stack of flows (heap, not native
//! recursion: a model's nesting cannot overflow the stack), within [`Limits`], in slices that
//! return to the caller at a deadline, so JavaScript can let its event loop run between them
//! and abort the rest.

use crate::attr::{custom_op_attrs, AttrValue};
use crate::exec::{join, Fed};
use crate::graph::{is_control_flow, parse_name, Graph};
use crate::ops::control::{self, FrameOp, Resources};
use crate::ops::hash_table;
use crate::ops::{self, Ctx};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use tidytensor_core::{bail, Engine, Error, Result, TensorId};

/// The key of the root frame's tensors ('' in tfjs).
const ROOT: u64 = 0;

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
    ids: Vec<u64>,
    live: Rc<RefCell<Live>>,
}

/// How many contexts alive use each frame key. Every node that is still to run, or to finish,
/// holds the context it runs in, so a key no context uses is a frame iteration that is over:
/// its values can go (an endless loop's bookkeeping then stays the size of one iteration).
#[derive(Debug, Default)]
struct Live {
    count: HashMap<u64, usize>,
    over: Vec<u64>,
}

impl Drop for Cx {
    fn drop(&mut self) {
        let mut live = self.live.borrow_mut();
        for &id in self.ids.iter().filter(|&&id| id != ROOT) {
            if let Some(c) = live.count.get_mut(&id) {
                *c -= 1;
                if *c == 0 {
                    live.count.remove(&id);
                    live.over.push(id);
                }
            }
        }
    }
}

/// Frame paths, interned: tfjs's context id strings (`frame-iteration/...`) as numbers.
#[derive(Default)]
struct Keys {
    map: HashMap<Rc<str>, u64>,
    paths: HashMap<u64, Rc<str>>,
    last: u64,
    live: Rc<RefCell<Live>>,
}

impl Keys {
    fn key(&mut self, s: String) -> u64 {
        if s.is_empty() {
            return ROOT;
        }
        if let Some(&k) = self.map.get(s.as_str()) {
            return k;
        }
        self.last += 1;
        let s: Rc<str> = Rc::from(s);
        self.map.insert(s.clone(), self.last);
        self.paths.insert(self.last, s);
        self.last
    }

    /// A frame iteration is over: its path is forgotten.
    fn forget(&mut self, key: u64) {
        if let Some(path) = self.paths.remove(&key) {
            self.map.remove(&path);
        }
    }

    /// The keys of frame iterations that are over since the last call.
    fn over(&self) -> Vec<u64> {
        std::mem::take(&mut self.live.borrow_mut().over)
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
        let mut live = self.live.borrow_mut();
        for &id in ids.iter().filter(|&&id| id != ROOT) {
            *live.count.entry(id).or_default() += 1;
        }
        drop(live);
        Rc::new(Cx { frames, ids, live: self.live.clone() })
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
    key: u64,
    read_at: u64,
    outs: Vec<Option<TensorId>>,
    cx: Rc<Cx>,
    /// The context the node ran in: its inputs' frame stays alive until it is finished.
    _from: Rc<Cx>,
}

/// One control-flow execution of a graph (the main graph or a function of its library).
pub(crate) struct Flow<'g> {
    g: &'g Graph,
    used: Vec<bool>,
    /// The requested nodes: their tensors are never freed early.
    outputs: HashSet<usize>,
    /// Per node and output: how many used consumers list it.
    consumers: Vec<Vec<usize>>,
    values: HashMap<(usize, u64), Entry>,
    /// How many live slots hold each tensor the execution made (an op may pass its input on).
    holders: HashMap<TensorId, usize>,
    added: HashSet<(usize, u64)>,
    /// The nodes with values or pushed in each frame iteration (the root's excepted): what
    /// goes when the iteration is over.
    by_key: HashMap<u64, Vec<usize>>,
    keys: Keys,
    last_id: usize,
    stack: Vec<(usize, Rc<Cx>)>,
    current: Rc<Cx>,
    /// The model's weights (every graph's and function's).
    weights: &'g rustc_hash::FxHashSet<TensorId>,
    limits: Limits,
    /// Nodes that ran asynchronously in tfjs: finished once the stack is empty.
    pending: Vec<Done>,
    /// The If or While node waiting for the function it called.
    waiting: Option<Waiting>,
}

/// What one step of a flow asks of its driver ([`Execution`]).
pub(crate) enum Advance {
    Ran,
    /// A function of the library to run on these arguments; the flow waits for its results.
    Call(Call),
    /// A node of a custom op (the caller's) to run on these inputs; the flow waits for its
    /// outputs.
    Custom(usize, Vec<TensorId>),
    /// No node can run any more.
    Finished,
}

/// A call of a function of the library.
pub(crate) struct Call {
    func: String,
    args: Vec<TensorId>,
}

/// An If or While node waiting for the function it called; its values are stored as any
/// asynchronous node's once it is done.
struct Waiting {
    n: usize,
    cx: Rc<Cx>,
    op: CallOp,
}

enum CallOp {
    If,
    /// A custom op, run by the caller.
    Custom,
    /// A While between its calls: `vars` are the loop variables (its inputs at first, then each
    /// round's results), `in_body` whether the body (not the condition) was called.
    While {
        cond: String,
        body: String,
        inputs: HashSet<TensorId>,
        vars: Vec<TensorId>,
        in_body: bool,
        rounds: u64,
    },
}

/// The limits of one execution (tidytensor's own; tfjs has none, and a model that recurses
/// without end crashes it or never returns).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// How deep If/While function calls may nest.
    pub max_call_depth: usize,
    /// How many iterations any one loop may run (a While's rounds, a frame's
    /// NextIterations); `None`: no limit.
    pub max_loop_iterations: Option<u64>,
}

/// The default nesting limit of function calls: far beyond real models (tfjs itself runs out
/// of stack a little below this), and a few megabytes of heap at most.
pub const DEFAULT_MAX_CALL_DEPTH: usize = 10_000;

impl Default for Limits {
    fn default() -> Self {
        Limits { max_call_depth: DEFAULT_MAX_CALL_DEPTH, max_loop_iterations: None }
    }
}

fn at_node(err: Error, node: &crate::graph::Node) -> Error {
    Error::new(format!("{} (node '{}', op {})", err.0, node.name, node.op))
}

fn truthy(e: &Engine, t: TensorId) -> Result<bool> {
    Ok(ops::values(e, t)?.first().is_some_and(|&v| v != 0.0 && !v.is_nan()))
}

fn loop_limit_text(limits: Limits) -> String {
    format!(
        "The loop ran more than {} iterations: the limit (the GRAPH_MAX_LOOP_ITERATIONS flag)",
        limits.max_loop_iterations.unwrap_or(u64::MAX)
    )
}

fn is_call(op: &str) -> bool {
    matches!(op, "If" | "StatelessIf" | "While" | "StatelessWhile")
}

impl<'g> Flow<'g> {
    /// Sets up an execution of `g` over `used` nodes, fed `fed`, for the `wanted` outputs.
    pub(crate) fn new(
        g: &'g Graph,
        weights: &'g rustc_hash::FxHashSet<TensorId>,
        used: Vec<bool>,
        fed: &Fed,
        wanted: &[(usize, usize)],
        limits: Limits,
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
            used,
            outputs: wanted.iter().map(|&(n, _)| n).collect(),
            consumers,
            values,
            holders: HashMap::new(),
            added: HashSet::new(),
            by_key: HashMap::new(),
            keys,
            last_id: 0,
            stack: Vec::new(),
            current: root,
            weights,
            limits,
            pending: Vec::new(),
            waiting: None,
        }
    }

    /// Stacks the first nodes: the feeds (in `feed_nodes` order), the weights and the init
    /// nodes, as tfjs stacks them.
    pub(crate) fn start(&mut self, feed_nodes: &[usize]) {
        let g = self.g;
        let root = self.current.clone();
        let mut first: Vec<usize> = feed_nodes.to_vec();
        first.extend((0..g.nodes.len()).filter(|&n| g.nodes[n].op == "Const"));
        first.extend((0..g.nodes.len()).filter(|&n| g.is_init(n)));
        self.stack = first.into_iter().map(|n| (n, root.clone())).collect();
    }

    /// Runs one item of the stack, or once it is empty, finishes the asynchronous nodes (their
    /// children join the stack). Never called while a call waits.
    pub(crate) fn advance(&mut self, e: &mut Engine, r: &mut Resources) -> Result<Advance> {
        let advanced = if let Some((n, cx)) = self.stack.pop() {
            self.current = cx.clone();
            self.step(e, r, n, cx)
        } else if self.pending.is_empty() {
            return Ok(Advance::Finished);
        } else {
            for done in std::mem::take(&mut self.pending) {
                self.current = done.cx.clone();
                self.finish(e, r, done);
            }
            Ok(Advance::Ran)
        };
        self.prune(e, r);
        advanced
    }

    /// Drops the values of the frame iterations that are over, releasing the tensors no
    /// consumer read (a dead branch's, say). A requested node's values stay.
    fn prune(&mut self, e: &mut Engine, r: &Resources) {
        for key in self.keys.over() {
            self.keys.forget(key);
            for n in self.by_key.remove(&key).unwrap_or_default() {
                self.added.remove(&(n, key));
                if self.values.get(&(n, key)).is_none_or(|en| en.left.contains(&usize::MAX)) {
                    continue;
                }
                let Some(en) = self.values.remove(&(n, key)) else { continue };
                for (id, left) in en.slots.into_iter().zip(en.left) {
                    if let (Some(id), true) = (id, left != 0) {
                        self.drop_holder(e, r, id);
                    }
                }
            }
        }
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
    fn step(&mut self, e: &mut Engine, r: &mut Resources, n: usize, cx: Rc<Cx>) -> Result<Advance> {
        let node = &self.g.nodes[n];
        // A constant Enter's value belongs to the enclosing frame: every iteration sees it.
        let store_at = (node.op == "Enter" && node.attrs().bool("is_constant", false)).then_some(cx.ids[0]);
        if self.values.contains_key(&(n, ROOT)) {
            self.children(n, &cx);
            return Ok(Advance::Ran);
        }
        if is_call(&node.op) {
            return self.begin_call(e, n, &cx).map(Advance::Call).map_err(|err| at_node(err, node));
        }
        if r.custom_ops.contains(&node.op) && !ops::is_known(&node.op) {
            let (ins, _) = self.inputs(n, &cx).map_err(|err| at_node(err, node))?;
            self.waiting = Some(Waiting { n, cx, op: CallOp::Custom });
            return Ok(Advance::Custom(n, ins));
        }
        let (outs, after) = self.run_node(e, r, n, &cx).map_err(|err| at_node(err, node))?;
        let done = Done { n, key: store_at.unwrap_or(after.ids[0]), read_at: cx.ids[0], outs, cx: after, _from: cx };
        if ops::is_async(&node.op) {
            self.pending.push(done);
        } else {
            self.finish(e, r, done);
        }
        Ok(Advance::Ran)
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
        if d.key != ROOT {
            self.by_key.entry(d.key).or_default().push(n);
        }
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
    fn release(&mut self, e: &mut Engine, r: &mut Resources, n: usize, key: u64, k: usize) {
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
                if key.1 != ROOT {
                    self.by_key.entry(key.1).or_default().push(c);
                }
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
        let (ins, from_noop) = self.inputs(n, cx)?;
        let ctx = Ctx { node, ins: &ins, from_noop: &from_noop, weights: self.weights };
        e.start_scope();
        let result = if ops::is_hash_table(&node.op) {
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
                let Some(last) = frames.last_mut() else {
                    bail!("Cannot increase frame iteration, the context is empty")
                };
                last.iteration += 1;
                last.id = self.last_id;
                if self.limits.max_loop_iterations.is_some_and(|max| last.iteration as u64 > max) {
                    self.discard(e, r, &outs);
                    bail!("{}", loop_limit_text(self.limits));
                }
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

    /// The values of node `n`'s inputs in frame `cx`, and which come from NoOp nodes.
    fn inputs(&self, n: usize, cx: &Cx) -> Result<(Vec<TensorId>, Vec<bool>)> {
        let g = self.g;
        let node = &g.nodes[n];
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
        Ok((ins, from_noop))
    }

    /// If / StatelessIf calls a branch function, by the condition; While / StatelessWhile its
    /// condition function first. The node waits for the results ([`Flow::returned`]).
    fn begin_call(&mut self, e: &Engine, n: usize, cx: &Rc<Cx>) -> Result<Call> {
        let node = &self.g.nodes[n];
        let (ins, from_noop) = self.inputs(n, cx)?;
        let c = Ctx { node, ins: &ins, from_noop: &from_noop, weights: self.weights };
        let a = c.attrs();
        let func = |attr: &str| a.func(attr).ok_or_else(|| Error::new(format!("the node has no '{attr}' function")));
        let (op, call) = if node.op.ends_with("If") {
            let branch = if truthy(e, c.t(0)?)? { func("then_branch")? } else { func("else_branch")? };
            (CallOp::If, Call { func: branch, args: c.tensors(1, 0) })
        } else {
            let (cond, body) = (func("cond")?, func("body")?);
            let args = c.tensors(0, 0);
            let op = CallOp::While {
                cond: cond.clone(),
                body,
                inputs: args.iter().copied().collect(),
                vars: args.clone(),
                in_body: false,
                rounds: 0,
            };
            (op, Call { func: cond, args })
        };
        self.waiting = Some(Waiting { n, cx: cx.clone(), op });
        Ok(call)
    }

    /// The waiting node's function returned `out`: an If is done with it; a While disposes
    /// what the last round made and nothing needs (never its inputs, kept tensors, feeds or
    /// weights), as tfjs's control executor does, then calls its body or condition again, or
    /// is done with its loop variables.
    pub(crate) fn returned(&mut self, e: &mut Engine, r: &Resources, out: Vec<TensorId>) -> Result<Option<Call>> {
        let Some(mut w) = self.waiting.take() else { bail!("no call waits for results") };
        let dispose_unused = |e: &mut Engine, ts: &[TensorId], inputs: &HashSet<TensorId>, keep: &HashSet<TensorId>| {
            for &t in ts {
                let kept = e.tensor_origin(t).is_some_and(|o| o.kept);
                if !kept && !inputs.contains(&t) && !keep.contains(&t) && !r.frozen.contains(&t) {
                    e.dispose(t);
                }
            }
        };
        let outs = match &mut w.op {
            CallOp::If | CallOp::Custom => out,
            CallOp::While { cond, body, inputs, vars, in_body, rounds } => {
                if *in_body {
                    let before = std::mem::replace(vars, out);
                    dispose_unused(e, &before, inputs, &vars.iter().copied().collect());
                    *in_body = false;
                    let call = Call { func: cond.clone(), args: vars.clone() };
                    self.waiting = Some(w);
                    return Ok(Some(call));
                }
                let go = out.first().map_or(Ok(false), |&t| truthy(e, t));
                dispose_unused(e, &out, inputs, &vars.iter().copied().collect());
                *rounds += 1;
                let over = self.limits.max_loop_iterations.is_some_and(|max| *rounds > max);
                match go {
                    Ok(true) if !over => {
                        *in_body = true;
                        let call = Call { func: body.clone(), args: vars.clone() };
                        self.waiting = Some(w);
                        return Ok(Some(call));
                    }
                    Ok(false) => std::mem::take(vars),
                    Ok(true) | Err(_) => {
                        self.waiting = Some(w);
                        return Err(go.err().unwrap_or_else(|| Error::new(loop_limit_text(self.limits))));
                    }
                }
            }
        };
        self.pending.push(Done {
            n: w.n,
            key: w.cx.ids[0],
            read_at: w.cx.ids[0],
            outs: outs.into_iter().map(Some).collect(),
            cx: w.cx.clone(),
            _from: w.cx,
        });
        Ok(None)
    }

    /// The node this flow's call is made for, while one waits.
    fn waiting_node(&self) -> Option<&crate::graph::Node> {
        self.waiting.as_ref().map(|w| &self.g.nodes[w.n])
    }

    /// The tensors this flow made and still holds: its live values (a loop's earlier
    /// iterations are not walked), the asynchronous nodes' not yet stored, a waiting While's
    /// loop variables. Its feeds and weights are not its own.
    pub(crate) fn live(&self) -> impl Iterator<Item = TensorId> + '_ {
        let pending = self.pending.iter().flat_map(|d| d.outs.iter().flatten().copied());
        let vars = match &self.waiting {
            Some(Waiting { op: CallOp::While { vars, .. }, .. }) => vars.as_slice(),
            _ => &[],
        };
        self.holders.keys().copied().chain(pending).chain(vars.iter().copied())
    }
}

/// A function call in progress: the function's flow, and what its end needs.
struct Activation<'g> {
    flow: Flow<'g>,
    /// The function called (`None`: the graph itself).
    func: Option<FuncCall<'g>>,
}

struct FuncCall<'g> {
    name: &'g str,
    graph: &'g Graph,
    args: Vec<TensorId>,
    feed_nodes: Vec<usize>,
    missing: Vec<usize>,
}

impl Activation<'_> {
    /// tfjs's `executeFunctionAsync`'s end: the function's results; everything else it made
    /// (but what the execution keeps) is disposed, also on error.
    fn complete(self, e: &mut Engine, r: &Resources, f: FuncCall<'_>) -> Result<Vec<TensorId>> {
        let flow = self.flow;
        let g = f.graph;
        let mut out = Vec::with_capacity(g.fn_outputs.len());
        let mut missing = Vec::new();
        for &(n, k) in &g.fn_outputs {
            match flow.value(n, k) {
                Some(t) => out.push(t),
                None => missing.push(g.nodes[n].name.as_str()),
            }
        }
        let result = if missing.is_empty() {
            Ok(out)
        } else {
            let names: Vec<&str> = f.feed_nodes.iter().map(|&n| g.nodes[n].name.as_str()).collect();
            let inputs: Vec<&str> = f.missing.iter().map(|&n| g.nodes[n].name.as_str()).collect();
            Err(Error::new(format!(
                "Cannot compute the outputs [{}] from the provided inputs [{}]. Consider providing the following inputs: [{}]. (function '{}')",
                join(&missing),
                join(&names),
                join(&inputs),
                f.name
            )))
        };
        let mut keep: HashSet<TensorId> = f.args.iter().copied().collect();
        if let Ok(out) = &result {
            keep.extend(out.iter().copied());
        }
        for id in flow.live() {
            let kept = e.tensor_origin(id).is_some_and(|o| o.kept);
            if !kept && !keep.contains(&id) && !r.frozen.contains(&id) {
                e.dispose(id);
            }
        }
        result
    }
}

/// One `executeAsync` in progress, run in slices ([`Execution::resume`]) so that a caller can
/// let other work run between them, and ended early with [`Execution::abort`]. Function calls
/// are a stack of flows here, not native recursion, so a model's nesting costs heap, not
/// stack, up to [`Limits::max_call_depth`].
/// A custom op node waiting for the caller: its name and op, and its inputs.
struct CustomWait {
    name: String,
    op: String,
    /// The node's attributes, decoded as tfjs hands them to the op.
    attrs: Vec<(String, AttrValue)>,
    inputs: Vec<TensorId>,
}

pub struct Execution<'g> {
    graph: &'g Graph,
    r: Resources,
    /// The graph's own flow first, then each function called, innermost last.
    calls: Vec<Activation<'g>>,
    limits: Limits,
    feed_names: Vec<String>,
    outputs: Vec<String>,
    wanted: Vec<(usize, usize)>,
    missing: Vec<usize>,
    dynamic: Option<(usize, Vec<usize>)>,
    ended: bool,
    /// The custom op node the execution waits for, between a resume that stopped at it and
    /// [`Execution::provide`].
    custom: Option<CustomWait>,
}

impl<'g> Execution<'g> {
    /// The ops the caller runs (tf.registerOp's): a node of one that tfjs's tables do not know
    /// stops [`Execution::resume`] until the caller gives its outputs ([`Execution::provide`]).
    pub fn with_custom_ops(mut self, ops: impl IntoIterator<Item = String>) -> Self {
        self.r.custom_ops = ops.into_iter().collect();
        self
    }

    /// The custom op node the execution waits for: its name, its op and its inputs (the
    /// execution's tensors: read them, never dispose them).
    pub fn custom_request(&self) -> Option<(&str, &str, &[TensorId])> {
        let c = self.custom.as_ref()?;
        Some((c.name.as_str(), c.op.as_str(), c.inputs.as_slice()))
    }

    /// The attributes of the custom op node the execution waits for (a node of a function
    /// too), as tfjs's `NodeValueImpl` decodes them for the op.
    pub fn custom_attrs(&self) -> Option<&[(String, AttrValue)]> {
        self.custom.as_ref().map(|c| c.attrs.as_slice())
    }

    /// Whether the execution uses a dynamic node (control flow, dynamic shapes, hash tables):
    /// tfjs's `executeAsync` warns when it does not.
    pub fn has_dynamic(&self) -> bool {
        self.dynamic.is_some()
    }

    /// The outputs of the custom op node the execution waits for: they become the execution's
    /// (disposed after their last reader, unless asked for). On error everything the execution
    /// made is disposed, the outputs too.
    pub fn provide(&mut self, e: &mut Engine, outputs: Vec<TensorId>) -> Result<()> {
        let Some(CustomWait { name, op, inputs: ins, .. }) = self.custom.take() else {
            for &t in &outputs {
                e.dispose(t);
            }
            bail!("This execution does not wait for a custom op");
        };
        // An output that is one of the inputs (an identity op) must be a tensor of its own.
        let mut owned = Vec::with_capacity(outputs.len());
        let mut result = Ok(());
        for t in outputs {
            if result.is_ok() && (ins.contains(&t) || self.r.frozen.contains(&t)) {
                match e.clone_tensor(t) {
                    Ok(c) => owned.push(c),
                    Err(err) => result = Err(err),
                }
            } else {
                owned.push(t);
            }
        }
        let result = result.and_then(|()| match self.calls.last_mut() {
            Some(top) => top.flow.returned(e, &self.r, owned.clone()).map(|_| ()),
            None => Err(Error::new("This execution has ended")),
        });
        if let Err(err) = result {
            for &t in &owned {
                if !ins.contains(&t) && !self.r.frozen.contains(&t) {
                    e.dispose(t);
                }
            }
            self.abort(e);
            return Err(Error::new(format!("{} (node '{name}', op {op})", err.0)));
        }
        Ok(())
    }

    /// Runs until the execution ends (`Some`: the outputs, in the caller's scope), past
    /// `deadline` until the node running then is done, or until it meets a custom op node
    /// (`None`: call again; see [`Execution::custom_request`]). On error everything the
    /// execution made is disposed.
    pub fn resume(&mut self, e: &mut Engine, deadline: Option<std::time::Instant>) -> Result<Option<Vec<TensorId>>> {
        if self.ended {
            bail!("This execution has ended");
        }
        if self.custom.is_some() {
            bail!("This execution waits for the outputs of a custom op");
        }
        e.start_scope();
        match self.drive(e, deadline) {
            Ok(Some(ids)) => {
                self.ended = true;
                e.end_scope(&ids);
                Ok(Some(ids))
            }
            Ok(None) => {
                let live = self.live();
                e.end_scope(&live);
                Ok(None)
            }
            Err(err) => {
                self.abort(e);
                e.end_scope(&[]);
                Err(err)
            }
        }
    }

    /// Ends the execution now, disposing everything it made.
    pub fn abort(&mut self, e: &mut Engine) {
        if self.ended {
            return;
        }
        self.ended = true;
        let r = &self.r;
        let foreign = |e: &Engine, id: TensorId| e.tensor_origin(id).is_some_and(|o| o.kept) && !r.kept.contains(&id);
        for id in self.live() {
            if !r.frozen.contains(&id) && !foreign(e, id) {
                e.dispose(id);
            }
        }
        self.calls.clear();
    }

    /// Whether the execution has ended (its outputs returned, an error, or aborted).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Every tensor the execution made and holds: its flows' and its tensor arrays' and lists'.
    fn live(&self) -> Vec<TensorId> {
        let mut ids: Vec<TensorId> = self.calls.iter().flat_map(|a| a.flow.live()).chain(self.r.held()).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The error as the recursive executor gave it: each waiting call's node named, innermost
    /// first.
    fn located(&self, mut err: Error) -> Error {
        for a in self.calls.iter().rev() {
            if let Some(node) = a.flow.waiting_node() {
                err = at_node(err, node);
            }
        }
        err
    }

    fn drive(&mut self, e: &mut Engine, deadline: Option<std::time::Instant>) -> Result<Option<Vec<TensorId>>> {
        loop {
            let Some(top) = self.calls.last_mut() else { return Ok(Some(Vec::new())) };
            let next = match top.flow.advance(e, &mut self.r) {
                Ok(Advance::Ran) => Ok(None),
                Ok(Advance::Call(call)) => Ok(Some(call)),
                Ok(Advance::Custom(n, inputs)) => {
                    let node = &top.flow.g.nodes[n];
                    let attrs = custom_op_attrs(&node.attr);
                    self.custom = Some(CustomWait { name: node.name.clone(), op: node.op.clone(), attrs, inputs });
                    return Ok(None);
                }
                Ok(Advance::Finished) if self.calls.len() == 1 => return self.finish(e).map(Some),
                Ok(Advance::Finished) => {
                    // (Only the graph's own flow, the first, has no function; it ended above.)
                    let Some(mut done) = self.calls.pop() else { bail!("This execution has ended") };
                    let (Some(f), Some(parent)) = (done.func.take(), self.calls.last_mut()) else {
                        bail!("A function call has no caller")
                    };
                    done.complete(e, &self.r, f).and_then(|out| parent.flow.returned(e, &self.r, out))
                }
                Err(err) => Err(err),
            };
            match next {
                Ok(Some(call)) => {
                    if let Err(err) = self.call(call) {
                        return Err(self.located(err));
                    }
                }
                Ok(None) => {}
                Err(err) => return Err(self.located(err)),
            }
            // Each slice makes progress: the deadline is checked after a step.
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Ok(None);
            }
        }
    }

    /// Starts function `call.func` of the library on its arguments (tfjs's
    /// `executeFunctionAsync`): a fresh frame context, the tensor arrays and lists shared.
    fn call(&mut self, call: Call) -> Result<()> {
        let depth = self.calls.len();
        if depth > self.limits.max_call_depth {
            bail!(
                "The graph's function '{}' is called {} levels deep: the limit (the GRAPH_MAX_CALL_DEPTH flag)",
                call.func,
                depth
            );
        }
        let Some((name, f)) = self.graph.functions.get_key_value(&call.func) else {
            bail!("The graph's library has no function '{}'", call.func)
        };
        let mut fed: Fed = HashMap::new();
        for (&n, &t) in f.fn_inputs.iter().zip(&call.args) {
            fed.insert(n, vec![Some(t)]);
        }
        let feed_nodes: Vec<usize> = f.fn_inputs.iter().take(call.args.len()).copied().collect();
        let sub = f.subgraph(&fed, &f.fn_outputs);
        let weights = &self.graph.owned_set;
        let mut flow = Flow::new(f, weights, sub.used, &fed, &f.fn_outputs, self.limits);
        flow.start(&feed_nodes);
        let func = FuncCall { name: name.as_str(), graph: f, args: call.args, feed_nodes, missing: sub.missing };
        self.calls.push(Activation { flow, func: Some(func) });
        Ok(())
    }

    /// The end of the graph's flow: tfjs's checks of the outputs, then the outputs (a tensor
    /// the execution keeps leaves as a copy), everything else disposed.
    fn finish(&mut self, e: &mut Engine) -> Result<Vec<TensorId>> {
        let g = self.graph;
        let flow = &self.calls[0].flow;
        let result = (|| -> Result<Vec<TensorId>> {
            // tfjs checks output 0 of each requested node, control flow nodes excepted.
            let mut missing: Vec<&str> = Vec::new();
            for &(n, _) in &self.wanted {
                let node = &g.nodes[n];
                if !is_control_flow(&node.op) && flow.value(n, 0).is_none() {
                    missing.push(&node.name);
                }
            }
            if !missing.is_empty() {
                let names: Vec<&str> = self.feed_names.iter().map(String::as_str).collect();
                let inputs: Vec<&str> = self.missing.iter().map(|&n| g.nodes[n].name.as_str()).collect();
                let alternative = match &self.dynamic {
                    Some((_, sync)) => {
                        let sync: Vec<&str> = sync.iter().map(|&c| g.nodes[c].name.as_str()).collect();
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
            let mut ids = Vec::with_capacity(self.wanted.len());
            for (&(n, k), name) in self.wanted.iter().zip(&self.outputs) {
                let Some(id) = flow.value(n, k) else {
                    bail!("The output '{name}' has no value: node '{}' gave none", g.nodes[n].name);
                };
                // A tensor the execution keeps (an element of a tensor array) leaves as a copy;
                // one kept by others (a lookup table's handle, the caller's) as it is.
                ids.push(if self.r.kept.contains(&id) { e.clone_tensor(id)? } else { id });
            }
            Ok(ids)
        })();
        let ids = result?;
        // Tensors kept by others (the model's lookup tables, the caller) are not this
        // execution's to dispose.
        let r = &self.r;
        let foreign = |e: &Engine, id: TensorId| e.tensor_origin(id).is_some_and(|o| o.kept) && !r.kept.contains(&id);
        for id in self.live() {
            if !ids.contains(&id) && !r.frozen.contains(&id) && !foreign(e, id) {
                e.dispose(id);
            }
        }
        self.calls.clear();
        Ok(ids)
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
        let mut run = self.start(e, feeds, outputs, Limits::default())?;
        match run.resume(e, None)? {
            Some(ids) => Ok(ids),
            None => bail!("The execution stopped before its end"),
        }
    }

    /// [`Graph::execute_async`] to be run in slices, within `limits`: the feeds and outputs
    /// (names as [`Graph::execute`] takes them) are checked here; nothing runs until
    /// [`Execution::resume`].
    pub fn start(
        &self,
        e: &Engine,
        feeds: &[(String, TensorId)],
        outputs: &[String],
        limits: Limits,
    ) -> Result<Execution<'_>> {
        let (feeds, outputs) = self.resolve(feeds, outputs);
        let (feeds, outputs) = (&*feeds, &*outputs);
        let (fed, wanted) = self.check(e, feeds, outputs)?;
        // Asking for nothing runs nothing; whether it is dynamic is the model outputs' answer.
        let sub =
            if wanted.is_empty() { self.subgraph(&fed, &self.default_wanted()) } else { self.subgraph(&fed, &wanted) };
        let mut r = Resources::default();
        let weights = &self.owned_set;
        r.frozen = weights.iter().copied().collect();
        r.frozen.extend(fed.values().flatten().flatten().copied());
        let feed_nodes: Vec<usize> = feeds.iter().map(|(name, _)| self.by_name[parse_name(name).0]).collect();
        let mut flow = Flow::new(self, weights, sub.used.clone(), &fed, &wanted, limits);
        flow.start(&feed_nodes);
        // Nothing asked: nothing runs.
        let calls = if wanted.is_empty() { Vec::new() } else { vec![Activation { flow, func: None }] };
        Ok(Execution {
            graph: self,
            r,
            ended: false,
            calls,
            limits,
            feed_names: feeds.iter().map(|(n, _)| n.clone()).collect(),
            outputs: outputs.to_vec(),
            wanted,
            missing: sub.missing,
            dynamic: sub.dynamic,
            custom: None,
        })
    }
}
