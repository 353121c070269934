//! Autodiff, as tfjs's engine and `tape.ts` do it. While a gradient is taken, every kernel
//! called at depth 0 becomes a node of the tape (the funnel records it); the op's front-end
//! attaches the kernel's gradient function and the tensors it needs ([`Engine::on_tape`]),
//! kept as clones until the outermost gradient ends. The backward pass walks the nodes that
//! connect the `xs` to `y` in reverse, adding up each tensor's gradient.
//!
//! Gradients are written in ops, so they run on every backend and are themselves recorded
//! when a gradient of a gradient is taken. A gradient computed outside the engine (a
//! JavaScript `customGrad`) is an [`Gradient::External`] node: the backward pass stops there
//! and hands it to its caller ([`BackwardStep::External`]), which runs it with the engine free
//! and gives the results back ([`Engine::backward_provide`]).

use super::Engine;
use crate::{bail, kernels as k, DType, Result, TensorId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// What a gradient function gets: the gradient of each output of its kernel (zeros where
/// nothing flowed back), the tensors saved for it, and which inputs need a gradient.
pub struct GradArgs<'a> {
    pub dys: &'a [TensorId],
    pub saved: &'a [TensorId],
    pub needed: &'a [bool],
}

impl GradArgs<'_> {
    pub fn dy(&self) -> TensorId {
        self.dys[0]
    }
}

/// A kernel's gradient: one gradient per input, `None` for the inputs not needed (or that
/// have none).
pub type GradFn = dyn Fn(&mut Engine, &GradArgs) -> Result<Vec<Option<TensorId>>>;

#[derive(Clone)]
pub enum Gradient {
    Native(Rc<GradFn>),
    /// Computed by the engine's caller; the number is the caller's.
    External(u64),
}

/// One kernel call recorded while a gradient is taken.
#[derive(Clone)]
pub struct TapeNode {
    pub kernel: &'static str,
    pub inputs: Vec<TensorId>,
    pub outputs: Vec<TensorId>,
    /// Shapes and dtypes as recorded: the tensors themselves may be disposed by then.
    pub(crate) input_meta: Vec<(Vec<usize>, DType)>,
    pub(crate) output_meta: Vec<(Vec<usize>, DType)>,
    pub(crate) gradient: Option<Gradient>,
    /// Kept clones of the tensors the gradient reads, freed when the outermost gradient ends.
    pub(crate) saved: Vec<TensorId>,
}

/// Where a backward pass stands.
pub enum BackwardStep {
    Done,
    /// An external gradient to run: give its input gradients to [`Engine::backward_provide`],
    /// then call [`Engine::backward_run`] again.
    External {
        id: u64,
        dys: Vec<TensorId>,
        saved: Vec<TensorId>,
        needed: Vec<bool>,
    },
}

/// A backward pass in progress (one per nested gradient).
pub(crate) struct Backward {
    /// Tape indices of the nodes that connect the xs to y, with the inputs on that path; the
    /// pass takes them from the end.
    nodes: Vec<(usize, Vec<bool>)>,
    /// The gradient reached so far for each tensor.
    grads: FxHashMap<TensorId, TensorId>,
    xs: Vec<TensorId>,
    /// The caller's `dy`, never freed by the pass.
    dy: Option<TensorId>,
    /// The external node whose gradients the caller computes now.
    pending: Option<(usize, Vec<bool>, Vec<TensorId>)>,
}

const NO_PATH: &str = "Cannot compute gradient of y=f(x) with respect to x. Make sure that the f you passed encloses all operations that lead from x to y.";

impl Engine {
    /// Whether a kernel called now goes on the tape.
    pub fn taping(&self) -> bool {
        self.gradient_depth > 0 && self.kernel_depth == 0 && self.tape_paused == 0
    }

    /// Records `grad` as the gradient of the kernel that just made `outputs`, saving `save`
    /// for it; does nothing unless that kernel went on the tape.
    pub fn on_tape(
        &mut self,
        outputs: &[TensorId],
        save: &[TensorId],
        grad: impl Fn(&mut Engine, &GradArgs) -> Result<Vec<Option<TensorId>>> + 'static,
    ) -> Result<()> {
        if !self.taping() {
            return Ok(());
        }
        let Some(index) = self.tape.as_ref().and_then(|t| t.iter().rposition(|n| n.outputs == outputs)) else {
            return Ok(());
        };
        let saved = self.save_for_backward(save)?;
        if let Some(node) = self.tape.as_mut().and_then(|t| t.get_mut(index)) {
            node.gradient = Some(Gradient::Native(Rc::new(grad)));
            node.saved = saved;
        }
        Ok(())
    }

    /// Kept clones of `tensors` for a gradient, each recorded as an Identity of its tensor so
    /// that a gradient of the gradient flows back through it.
    fn save_for_backward(&mut self, tensors: &[TensorId]) -> Result<Vec<TensorId>> {
        let mut saved = Vec::with_capacity(tensors.len());
        for &t in tensors {
            let info = self.info(t)?;
            let (data, shape, dtype) = (info.data.clone(), info.shape.clone(), info.dtype);
            let meta = (shape.clone(), dtype);
            let c = self.share(data, shape, dtype);
            self.keep(c);
            if let Some(tape) = self.tape.as_mut() {
                tape.push(TapeNode {
                    kernel: k::IDENTITY,
                    inputs: vec![t],
                    outputs: vec![c],
                    input_meta: vec![meta.clone()],
                    output_meta: vec![meta],
                    gradient: Some(Gradient::Native(Rc::new(|e: &mut Engine, g: &GradArgs| {
                        Ok(vec![Some(e.cast(g.dy(), DType::Float32)?)])
                    }))),
                    saved: Vec::new(),
                });
            }
            saved.push(c);
        }
        Ok(saved)
    }

    /// Pauses the tape while a custom gradient's forward function runs (tfjs runs it as one
    /// kernel: what it calls is not recorded).
    pub fn pause_tape(&mut self) {
        self.tape_paused += 1;
    }

    /// Ends [`Engine::pause_tape`]; while a gradient is taken, records the custom op as one
    /// node with an external gradient, saving `save`. Returns whether it recorded one.
    pub fn resume_tape(&mut self, custom: Option<(u64, &[TensorId], &[TensorId], &[TensorId])>) -> Result<bool> {
        self.tape_paused = self.tape_paused.saturating_sub(1);
        let Some((id, inputs, outputs, save)) = custom else { return Ok(false) };
        if !self.taping() {
            return Ok(false);
        }
        let saved = self.save_for_backward(save)?;
        let (input_meta, output_meta) = (self.meta_of(inputs)?, self.meta_of(outputs)?);
        if let Some(tape) = self.tape.as_mut() {
            let gradient = Some(Gradient::External(id));
            let (inputs, outputs) = (inputs.to_vec(), outputs.to_vec());
            tape.push(TapeNode { kernel: "customGrad", inputs, outputs, input_meta, output_meta, gradient, saved });
        }
        Ok(true)
    }

    /// The shape and dtype of each tensor, for a tape node.
    pub(crate) fn meta_of(&self, ids: &[TensorId]) -> Result<Vec<(Vec<usize>, DType)>> {
        ids.iter().map(|&t| self.info(t).map(|i| (i.shape.clone(), i.dtype))).collect()
    }

    /// Starts recording for a gradient (tfjs's `startTape`) and opens the forward scope.
    pub fn forward_start(&mut self) {
        if self.gradient_depth == 0 {
            self.tape = Some(Vec::new());
        }
        self.gradient_depth += 1;
        self.start_scope();
    }

    /// Ends the forward scope, keeping `y` (none when `f` failed), and the recording.
    pub fn forward_end(&mut self, y: Option<TensorId>) {
        self.end_scope(y.as_slice());
        self.gradient_depth -= 1;
        if y.is_none() {
            self.drop_tape_if_done();
        }
    }

    /// Starts the backward pass from `y` to `xs` (tfjs's `gradients` after the forward
    /// run): finds the nodes that connect them and opens the backward scope.
    pub fn backward_start(
        &mut self,
        y: TensorId,
        xs: &[TensorId],
        dy: Option<TensorId>,
        allow_no_gradients: bool,
    ) -> Result<()> {
        let checked = (|| {
            if xs.is_empty() {
                bail!("gradients() received an empty list of xs.");
            }
            if let Some(d) = dy {
                let dtype = self.dtype(d)?;
                if dtype != DType::Float32 {
                    bail!("dy must have 'float32' dtype, but has '{}'", dtype.name());
                }
            }
            self.info(y)?;
            let nodes = self.path(xs, y);
            if !allow_no_gradients && nodes.is_empty() {
                bail!("{NO_PATH}");
            }
            Ok(nodes)
        })();
        let nodes = match checked {
            Ok(n) => n,
            Err(e) => {
                self.drop_tape_if_done();
                return Err(e);
            }
        };
        self.start_scope();
        let seed = match dy {
            Some(d) => Ok(d),
            None => {
                let shape = self.shape(y)?.to_vec();
                self.fill(&shape, 1.0, DType::Float32)
            }
        };
        let mut grads = FxHashMap::default();
        match seed {
            Ok(s) => grads.insert(y, s),
            Err(e) => {
                self.end_scope(&[]);
                self.drop_tape_if_done();
                return Err(e);
            }
        };
        self.backward.push(super::grad::Backward { nodes, grads, xs: xs.to_vec(), dy, pending: None });
        Ok(())
    }

    /// Runs the backward pass until it ends or reaches an external gradient.
    pub fn backward_run(&mut self) -> Result<BackwardStep> {
        loop {
            let Some(pass) = self.backward.last_mut() else { bail!("no backward pass is running") };
            if pass.pending.is_some() {
                bail!("the backward pass waits for an external gradient");
            }
            let Some((index, needed)) = pass.nodes.pop() else { return Ok(BackwardStep::Done) };
            let node = self.tape.as_ref().and_then(|t| t.get(index)).cloned();
            let Some(node) = node else { bail!("the tape lost a node") };
            let dys = self.output_grads(&node)?;
            match node.gradient.clone() {
                None => bail!("Cannot compute gradient: gradient function not found for {}.", node.kernel),
                Some(Gradient::External(id)) => {
                    let saved = node.saved.clone();
                    let pass = self.backward.last_mut().expect("a pass");
                    pass.pending = Some((index, needed.clone(), dys.clone()));
                    return Ok(BackwardStep::External { id, dys, saved, needed });
                }
                Some(Gradient::Native(f)) => {
                    // Each node's intermediates are freed as soon as its gradients exist.
                    self.start_scope();
                    let args = GradArgs { dys: &dys, saved: &node.saved, needed: &needed };
                    let result = f(self, &args);
                    let keep: Vec<TensorId> = match &result {
                        Ok(r) => r.iter().flatten().copied().collect(),
                        Err(_) => Vec::new(),
                    };
                    self.end_scope(&keep);
                    self.accumulate(&node, &needed, &dys, result?)?;
                }
            }
        }
    }

    /// Gives the backward pass the input gradients of the external node it stopped at.
    pub fn backward_provide(&mut self, grads: Vec<Option<TensorId>>) -> Result<()> {
        let Some(pass) = self.backward.last_mut() else { bail!("no backward pass is running") };
        let Some((index, needed, dys)) = pass.pending.take() else { bail!("the backward pass waits for no gradient") };
        let node = self.tape.as_ref().and_then(|t| t.get(index)).cloned();
        let Some(node) = node else { bail!("the tape lost a node") };
        self.accumulate(&node, &needed, &dys, grads)
    }

    /// Ends the backward pass (`ok`: it ran to the end) and its scope, keeping the gradients
    /// of the xs, which it returns (`None` where no path led to an x). Frees the tape once
    /// the outermost gradient is done.
    pub fn backward_end(&mut self, ok: bool) -> Vec<Option<TensorId>> {
        let Some(pass) = self.backward.pop() else { return Vec::new() };
        let grads: Vec<Option<TensorId>> =
            if ok { pass.xs.iter().map(|x| pass.grads.get(x).copied()).collect() } else { Vec::new() };
        let keep: Vec<TensorId> = grads.iter().flatten().copied().collect();
        self.end_scope(&keep);
        self.drop_tape_if_done();
        grads
    }

    /// `tf.grads`' engine half for Rust callers: the value of `f` and the gradient of each of
    /// `xs` (`None` where `f` does not depend on it; an error unless `allow_no_gradients`
    /// when it depends on none). On error nothing is left, the value included.
    pub fn gradients(
        &mut self,
        f: impl FnOnce(&mut Engine) -> Result<TensorId>,
        xs: &[TensorId],
        dy: Option<TensorId>,
        allow_no_gradients: bool,
    ) -> Result<(TensorId, Vec<Option<TensorId>>)> {
        self.forward_start();
        let y = f(self);
        self.forward_end(y.as_ref().ok().copied());
        let y = y?;
        if let Err(e) = self.backward_start(y, xs, dy, allow_no_gradients) {
            self.dispose(y);
            return Err(e);
        }
        let ran = match self.backward_run() {
            Ok(BackwardStep::Done) => Ok(()),
            Ok(BackwardStep::External { .. }) => {
                Err(crate::Error("an external gradient has no caller to run it".into()))
            }
            Err(e) => Err(e),
        };
        let grads = self.backward_end(ran.is_ok());
        if ran.is_err() {
            self.dispose(y);
        }
        ran.map(|_| (y, grads))
    }

    /// The gradient of each output of `node`: what reached it, or zeros. The tensors reached
    /// are taken out of the pass (each output has one node; only the caller's dy stays).
    fn output_grads(&mut self, node: &TapeNode) -> Result<Vec<TensorId>> {
        let mut dys = Vec::with_capacity(node.outputs.len());
        for (&o, (shape, dtype)) in node.outputs.iter().zip(&node.output_meta) {
            let reached = self.backward.last_mut().and_then(|p| {
                if p.xs.contains(&o) {
                    p.grads.get(&o).copied()
                } else {
                    p.grads.remove(&o)
                }
            });
            dys.push(match reached {
                Some(g) => g,
                None => self.fill(shape, 0.0, *dtype)?,
            });
        }
        Ok(dys)
    }

    /// Adds the input gradients of `node` to the pass, checking each (tfjs's texts), and
    /// frees its output gradients.
    fn accumulate(
        &mut self,
        node: &TapeNode,
        needed: &[bool],
        dys: &[TensorId],
        grads: Vec<Option<TensorId>>,
    ) -> Result<()> {
        let result = self.accumulate_checked(node, needed, dys, grads);
        let (user_dy, xs) = match self.backward.last() {
            Some(p) => (p.dy, p.xs.clone()),
            None => (None, Vec::new()),
        };
        for &d in dys {
            if Some(d) != user_dy && !xs.contains(&d) && !self.is_disposed(d) {
                let still_used = self.backward.last().is_some_and(|p| p.grads.values().any(|&g| g == d));
                if !still_used {
                    self.dispose(d);
                }
            }
        }
        result
    }

    fn accumulate_checked(
        &mut self,
        node: &TapeNode,
        needed: &[bool],
        dys: &[TensorId],
        grads: Vec<Option<TensorId>>,
    ) -> Result<()> {
        let mut seen = FxHashSet::default();
        for (i, &x) in node.inputs.iter().enumerate() {
            if !needed.get(i).copied().unwrap_or(false) {
                continue;
            }
            let Some(Some(mut dx)) = grads.get(i).copied() else {
                bail!("Cannot backprop through input {i} of {}: its gradient function gives none.", node.kernel);
            };
            let dtype = self.dtype(dx)?;
            if dtype != DType::Float32 {
                bail!(
                    "Error in gradient for op {}. The gradient of input {i} must have 'float32' dtype, but has '{}'",
                    node.kernel,
                    dtype.name()
                );
            }
            let (gs, xs) = (self.shape(dx)?.to_vec(), node.input_meta[i].0.clone());
            if gs != xs {
                bail!(
                    "Error in gradient for op {}. The gradient of input '{i}' has shape '{}', which does not match the shape of the input '{}'",
                    node.kernel,
                    crate::shape::fmt(&gs),
                    crate::shape::fmt(&xs)
                );
            }
            // A gradient function may hand back one of its dys, or one tensor twice: the pass
            // frees dys and adds gradients up, so each entry gets a tensor of its own.
            if dys.contains(&dx) || !seen.insert(dx) {
                dx = self.clone_tensor(dx)?;
            }
            let pass = self.backward.last_mut().expect("a pass");
            match pass.grads.get(&x).copied() {
                None => {
                    pass.grads.insert(x, dx);
                }
                Some(prev) => {
                    let sum = self.binary(crate::BinaryOp::Add, prev, dx)?;
                    for t in [prev, dx] {
                        if Some(t) != self.backward.last().and_then(|p| p.dy) {
                            self.dispose(t);
                        }
                    }
                    self.backward.last_mut().expect("a pass").grads.insert(x, sum);
                }
            }
        }
        Ok(())
    }

    /// The tape indices of the nodes on a path from `xs` to `y`, each with the inputs that
    /// lie on such a path (tfjs's `getFilteredNodesXToY`).
    fn path(&self, xs: &[TensorId], y: TensorId) -> Vec<(usize, Vec<bool>)> {
        let Some(tape) = self.tape.as_ref() else { return Vec::new() };
        let mut from_x: FxHashSet<TensorId> = xs.iter().copied().collect();
        let mut node_from_x = vec![false; tape.len()];
        for (i, n) in tape.iter().enumerate() {
            if n.inputs.iter().any(|t| from_x.contains(t)) {
                node_from_x[i] = true;
                from_x.extend(n.outputs.iter().copied());
            }
        }
        let mut to_y: FxHashSet<TensorId> = [y].into_iter().collect();
        let mut node_to_y = vec![false; tape.len()];
        for (i, n) in tape.iter().enumerate().rev() {
            if n.outputs.iter().any(|t| to_y.contains(t)) {
                for t in &n.inputs {
                    if from_x.contains(t) {
                        to_y.insert(*t);
                        node_to_y[i] = true;
                    }
                }
            }
        }
        tape.iter()
            .enumerate()
            .filter(|&(i, _)| node_from_x[i] && node_to_y[i])
            .map(|(i, n)| (i, n.inputs.iter().map(|t| from_x.contains(t) && to_y.contains(t)).collect()))
            .collect()
    }

    /// Frees the tape and its saved tensors once no gradient is being taken or walked.
    fn drop_tape_if_done(&mut self) {
        if self.gradient_depth > 0 || !self.backward.is_empty() {
            return;
        }
        if let Some(tape) = self.tape.take() {
            for node in tape {
                for t in node.saved {
                    self.dispose(t);
                }
            }
        }
    }

    /// The tape so far (for tests and `tf.profile`-like tools).
    pub fn tape(&self) -> &[TapeNode] {
        self.tape.as_deref().unwrap_or(&[])
    }

    /// Whether kernels are being recorded for a gradient now.
    pub fn gradient_depth(&self) -> usize {
        self.gradient_depth
    }
}
