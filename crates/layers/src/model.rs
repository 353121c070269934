//! Models: a graph of layer calls (Sequential is a chain), compiled with an optimizer, a loss
//! and metrics, trained one batch per call, evaluated and run. The training step (forward,
//! loss with the regularization penalties, backward through the core's tape, optimizer
//! update) is one Rust call, so a JavaScript `fit` pays one round trip per batch.

use crate::layer::{shape_text, LayerRef, Shape};
use crate::losses::Loss;
use crate::metrics::Metric;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use tidytensor_core::train::{Optimizer, Rule, EPSILON};
use tidytensor_core::{bail, DType, Engine, Error, HostData, ReduceOp, Result, Shared, TensorId};

/// Where a node's input comes from: a model input, or output `.1` of node `.0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Input(usize),
    Node(usize, usize),
}

/// One call of a layer in the graph.
pub struct Node {
    pub layer: LayerRef,
    pub inputs: Vec<Src>,
    pub output_shapes: Vec<Shape>,
}

/// What `compile` set.
pub struct Compiled {
    pub optimizer: Rc<RefCell<Optimizer>>,
    /// Made by `compile` from a name (disposed with the model), rather than given.
    pub owns_optimizer: bool,
    /// One loss per output.
    pub losses: Vec<Loss>,
    /// `(output, metric, log name)`.
    pub metrics: Vec<(usize, Metric, String)>,
}

/// Which rows of the data a batch takes.
#[derive(Clone, Copy, Debug)]
pub enum Rows<'a> {
    Range(usize, usize),
    Indices(&'a [i32]),
}

pub struct Model {
    pub name: String,
    pub sequential: bool,
    /// Every layer once, in graph order (a Sequential model's implicit input layer excluded).
    pub layers: Vec<LayerRef>,
    pub nodes: Vec<Node>,
    pub input_shapes: Vec<Shape>,
    pub input_names: Vec<String>,
    pub input_dtypes: Vec<DType>,
    pub outputs: Vec<Src>,
    pub compiled: Option<Compiled>,
    pub disposed: bool,
}

/// tfjs's optimizer names for `compile` (`getOptimizer`), with its defaults.
pub fn optimizer_named(e: &mut Engine, name: &str) -> Result<Optimizer> {
    let (factory, a) = optimizer_defaults(name)?;
    let rule = match factory {
        "sgd" => Rule::Sgd,
        "adam" => Rule::Adam { beta1: a[1], beta2: a[2], epsilon: a[3] },
        "adagrad" => Rule::Adagrad { initial_accumulator: 0.1 },
        "adadelta" => Rule::Adadelta { rho: a[1], epsilon: a[2] },
        "adamax" => Rule::Adamax { beta1: a[1], beta2: a[2], epsilon: a[3], decay: a[4] },
        _ => Rule::RmsProp { decay: a[1], momentum: a[2], epsilon: a[3], centered: false },
    };
    Optimizer::new(e, rule, a[0])
}

/// tfjs-layers' `getOptimizer` table: the optimizer `compile` makes for a name, as the
/// `tf.train` factory and the arguments it is called with (the learning rate first; the
/// JavaScript models read the table too).
pub fn optimizer_defaults(name: &str) -> Result<(&'static str, Vec<f64>)> {
    Ok(match name {
        "sgd" | "SGD" => ("sgd", vec![0.01]),
        "adam" | "Adam" => ("adam", vec![0.001, 0.9, 0.999, EPSILON]),
        "adagrad" | "Adagrad" => ("adagrad", vec![0.01]),
        "adadelta" | "Adadelta" => ("adadelta", vec![1.0, 0.95, EPSILON]),
        "adamax" | "Adamax" => ("adamax", vec![0.002, 0.9, 0.999, EPSILON, 0.0]),
        "rmsprop" | "RMSProp" => ("rmsprop", vec![0.001, 0.9, 0.0, EPSILON]),
        _ => bail!("Unknown Optimizer {name}"),
    })
}

impl Model {
    fn empty(name: String, sequential: bool) -> Model {
        Model {
            name,
            sequential,
            layers: Vec::new(),
            nodes: Vec::new(),
            input_shapes: Vec::new(),
            input_names: Vec::new(),
            input_dtypes: Vec::new(),
            outputs: Vec::new(),
            compiled: None,
            disposed: false,
        }
    }

    /// `tf.sequential({layers, name})`.
    pub fn sequential(e: &mut Engine, name: Option<&str>, layers: Vec<LayerRef>) -> Result<Model> {
        let mut m = Model::empty(name.map_or_else(|| crate::layer::uid("sequential_"), str::to_string), true);
        for l in layers {
            m.add(e, l)?;
        }
        Ok(m)
    }

    /// `model.add(layer)` of a Sequential model: the layer is built on the previous output.
    pub fn add(&mut self, e: &mut Engine, l: LayerRef) -> Result<()> {
        if !self.sequential {
            bail!("add() is only available on Sequential models");
        }
        let is_input = l.borrow().class_name() == "InputLayer";
        if self.nodes.is_empty() && self.input_shapes.is_empty() {
            let (shape, name, dtype) = {
                let b = l.borrow();
                match &b.batch_input_shape {
                    Some(s) => (s.clone(), format!("{}_input", b.name), b.dtype),
                    None => bail!(
                        "The first layer in a Sequential model must get an `inputShape` or `batchInputShape` argument."
                    ),
                }
            };
            self.input_shapes = vec![shape];
            self.input_names = vec![if is_input { l.borrow().name.clone() } else { name }];
            self.input_dtypes = vec![dtype];
            self.outputs = vec![Src::Input(0)];
            if is_input {
                return Ok(());
            }
        } else if is_input {
            bail!("An InputLayer can only be the first layer of a Sequential model");
        }
        if self.layers.iter().any(|x| x.borrow().name == l.borrow().name) {
            bail!("The name \"{}\" is used 2 times in the model. All layer names should be unique.", l.borrow().name);
        }
        let input = self.outputs[0];
        let in_shape = self.shape_of(input).clone();
        let shapes = l.borrow_mut().build(e, &[in_shape])?;
        if shapes.len() != 1 {
            bail!("All layers in a Sequential model should have a single output tensor. For multi-output layers, use the functional API.");
        }
        l.borrow_mut().ref_count += 1;
        self.nodes.push(Node { layer: l.clone(), inputs: vec![input], output_shapes: shapes });
        self.layers.push(l);
        self.outputs = vec![Src::Node(self.nodes.len() - 1, 0)];
        Ok(())
    }

    /// `model.pop()`: removes the last layer of a Sequential model.
    pub fn pop(&mut self) -> Result<()> {
        if self.nodes.is_empty() {
            bail!("There are no layers in the model.");
        }
        self.nodes.pop();
        if let Some(l) = self.layers.pop() {
            l.borrow_mut().ref_count -= 1;
        }
        self.outputs = vec![if self.nodes.is_empty() { Src::Input(0) } else { Src::Node(self.nodes.len() - 1, 0) }];
        Ok(())
    }

    /// `tf.model({inputs, outputs})`: `inputs` are input layers (one node each among `nodes`,
    /// reading `Src::Input(i)`); `nodes` in an order where each reads only earlier ones.
    pub fn functional(
        e: &mut Engine,
        name: Option<&str>,
        nodes: Vec<(LayerRef, Vec<Src>)>,
        n_inputs: usize,
        outputs: Vec<Src>,
    ) -> Result<Model> {
        let mut m = Model::empty(name.map_or_else(|| crate::layer::uid("model"), str::to_string), false);
        // Model input k comes from the input layer of the node reading `Src::Input(k)`.
        m.input_shapes = vec![Vec::new(); n_inputs];
        m.input_names = vec![String::new(); n_inputs];
        m.input_dtypes = vec![DType::Float32; n_inputs];
        let mut found = vec![false; n_inputs];
        for (l, ins) in &nodes {
            if let [Src::Input(k)] = ins.as_slice() {
                let b = l.borrow();
                let (Some(shape), true) = (b.batch_input_shape.clone(), *k < n_inputs) else {
                    bail!("Model inputs must come from `tf.input()`")
                };
                m.input_shapes[*k] = shape;
                m.input_names[*k] = b.name.clone();
                m.input_dtypes[*k] = b.dtype;
                found[*k] = true;
            }
        }
        if found.iter().any(|f| !f) {
            bail!("Every model input must be the input of an input layer");
        }
        for (l, inputs) in nodes {
            for s in &inputs {
                if let Src::Node(n, _) = s {
                    if *n >= m.nodes.len() {
                        bail!("The graph of the model is not in call order");
                    }
                }
            }
            let shapes: Vec<Shape> = inputs.iter().map(|s| m.shape_of(*s).clone()).collect();
            let out = l.borrow_mut().build(e, &shapes)?;
            if !m.layers.iter().any(|x| Rc::ptr_eq(x, &l)) {
                if m.layers.iter().any(|x| x.borrow().name == l.borrow().name) {
                    bail!(
                        "The name \"{}\" is used 2 times in the model. All layer names should be unique.",
                        l.borrow().name
                    );
                }
                l.borrow_mut().ref_count += 1;
                m.layers.push(l.clone());
            }
            m.nodes.push(Node { layer: l, inputs, output_shapes: out });
        }
        m.outputs = outputs;
        m.order_layers_by_depth();
        Ok(m)
    }

    /// tfjs's layer order for functional models: by depth, the inputs' first (a node's depth
    /// is one more than its deepest consumer's; the outputs' are 0), call order within a depth.
    /// `layers`, and with it the order of the weights, follows it.
    fn order_layers_by_depth(&mut self) {
        let mut depth = vec![0usize; self.nodes.len()];
        for n in (0..self.nodes.len()).rev() {
            for s in &self.nodes[n].inputs {
                if let Src::Node(p, _) = *s {
                    depth[p] = depth[p].max(depth[n] + 1);
                }
            }
        }
        let layer_depth = |l: &LayerRef| {
            self.nodes
                .iter()
                .zip(&depth)
                .filter(|(node, _)| Rc::ptr_eq(&node.layer, l))
                .map(|(_, &d)| d)
                .max()
                .unwrap_or(0)
        };
        let mut keyed: Vec<(usize, usize, LayerRef)> =
            self.layers.iter().enumerate().map(|(i, l)| (layer_depth(l), i, l.clone())).collect();
        keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.layers = keyed.into_iter().map(|(_, _, l)| l).collect();
    }

    fn shape_of(&self, s: Src) -> &Shape {
        match s {
            Src::Input(i) => &self.input_shapes[i],
            Src::Node(n, o) => &self.nodes[n].output_shapes[o],
        }
    }

    pub fn output_shapes(&self) -> Vec<Shape> {
        self.outputs.iter().map(|&s| self.shape_of(s).clone()).collect()
    }

    fn check_live(&self) -> Result<()> {
        if self.disposed {
            // A Sequential model runs its layers, and tfjs's first layer notices.
            match (self.sequential, self.layers.first()) {
                (true, Some(l)) => bail!("Layer '{}' is already disposed.", l.borrow().name),
                _ => bail!("Container '{}' is already disposed.", self.name),
            }
        }
        Ok(())
    }

    /// The outputs for `inputs` (temporaries stay in the caller's scope).
    pub fn forward(&self, e: &mut Engine, inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        // tfjs's feeds take their input's dtype (`assertFeedCompatibility`): an int32 input
        // truncates what it is fed.
        let mut cast = Vec::with_capacity(inputs.len());
        for (i, &x) in inputs.iter().enumerate() {
            let (have, want) = (e.dtype(x)?, self.input_dtypes.get(i).copied().unwrap_or(DType::Float32));
            cast.push(if have == want {
                x
            } else {
                e.cast(x, want).map_err(|_| {
                    let name = self.input_names.get(i).map_or("input", String::as_str);
                    tidytensor_core::Error::new(format!(
                        "The dtype of the feed ({}) can not be cast to the dtype of the key '{name}' ({}).",
                        have.name(),
                        want.name()
                    ))
                })?
            });
        }
        let inputs = &cast[..];
        let mut values: Vec<Vec<TensorId>> = Vec::with_capacity(self.nodes.len());
        // The mask recorded for each node's outputs (one for all of them, as tfjs's executor).
        let mut masks: Vec<Option<TensorId>> = Vec::with_capacity(self.nodes.len());
        let get = |values: &Vec<Vec<TensorId>>, s: Src| match s {
            Src::Input(i) => inputs[i],
            Src::Node(n, o) => values[n][o],
        };
        // tfjs's executor sets `kwargs.mask` to the first input's mask whenever an input has
        // one, and its kwargs object lives through the whole execution: a later layer whose
        // inputs have no mask still gets the last one set.
        let mut kwargs_mask: Option<TensorId> = None;
        for node in &self.nodes {
            let ins: Vec<TensorId> = node.inputs.iter().map(|&s| get(&values, s)).collect();
            let in_masks: Vec<Option<TensorId>> = node
                .inputs
                .iter()
                .map(|&s| match s {
                    Src::Input(_) => None,
                    Src::Node(n, _) => masks[n],
                })
                .collect();
            if in_masks.iter().any(Option::is_some) {
                kwargs_mask = in_masks[0];
            }
            let mut layer = node.layer.borrow_mut();
            let outs = layer.call_masked(e, &ins, kwargs_mask, training)?;
            let mask = if layer.kind.supports_masking() {
                layer.compute_mask(e, &ins, &in_masks)?.for_outputs(&in_masks)
            } else {
                None
            };
            values.push(outs);
            masks.push(mask);
        }
        Ok(self.outputs.iter().map(|&s| get(&values, s)).collect())
    }

    /// `predict`'s input checks (tfjs's `checkInputData`, its texts): count, rank, and every
    /// known dimension but the batch.
    pub fn check_inputs(&self, e: &Engine, xs: &[TensorId]) -> Result<()> {
        let (shapes, names) = (&self.input_shapes, &self.input_names);
        if xs.len() != shapes.len() {
            bail!(
                "Error when checking model : the Array of Tensors that you are passing to your model is not the size the the model expected. Expected to see {} Tensor(s), but instead got {} Tensors(s).",
                shapes.len(),
                xs.len()
            );
        }
        for ((&x, want), name) in xs.iter().zip(shapes).zip(names) {
            let got = e.shape(x)?;
            let json = |s: &[usize]| format!("[{}]", tidytensor_core::shape::fmt(s));
            if got.len() != want.len() {
                bail!(
                    "Error when checking : expected {name} to have {} dimension(s), but got array with shape {}",
                    want.len(),
                    json(got)
                );
            }
            if got.iter().zip(want).skip(1).any(|(&g, w)| w.is_some_and(|w| w != g)) {
                bail!(
                    "Error when checking : expected {name} to have shape {} but got array with shape {}.",
                    shape_text(want),
                    json(got)
                );
            }
        }
        Ok(())
    }

    /// `fit`'s and `evaluate`'s checks of inputs (`what` = "input") or targets ("target"):
    /// tfjs's `standardizeInputData` and its texts.
    fn check_batch(e: &Engine, xs: &[TensorId], shapes: &[Shape], names: &[String], what: &str) -> Result<()> {
        if xs.len() != shapes.len() {
            bail!(
                "Error when checking model {what}: the Array of Tensors that you are passing to your model is not the size the model expected. Expected to see {} Tensor(s), but instead got the following list of Tensor(s): {}",
                shapes.len(),
                xs.len()
            );
        }
        let list = |s: &[Option<usize>]| {
            s.iter().map(|d| d.map_or(String::new(), |d| d.to_string())).collect::<Vec<_>>().join(",")
        };
        for ((&x, want), name) in xs.iter().zip(shapes).zip(names) {
            let got = e.shape(x)?;
            if got.len() != want.len() {
                bail!(
                    "Error when checking {what}: expected {name} to have {} dimension(s). but got array with shape {}",
                    want.len(),
                    tidytensor_core::shape::fmt(got)
                );
            }
            if got.iter().zip(want).skip(1).any(|(&g, w)| w.is_some_and(|w| w != g)) {
                let each = list(&want[1..]);
                bail!(
                    "{what} expected a batch of elements where each example has shape [{each}] (i.e.,tensor shape [*,{each}]) but the {what} received an input with {} examples, each with shape [{}] (tensor shape [{}])",
                    got[0],
                    tidytensor_core::shape::fmt(&got[1..]),
                    tidytensor_core::shape::fmt(got)
                );
            }
        }
        Ok(())
    }

    /// The inputs and targets of `fit`/`evaluate`, checked as tfjs checks them (rank-1 data
    /// becomes a column first, as tfjs's `ensureTensorsRank2OrHigher`); the promoted tensors
    /// are new ids in the caller's scope.
    fn standardize(&self, e: &mut Engine, xs: &[TensorId], ys: &[TensorId]) -> Result<(Vec<TensorId>, Vec<TensorId>)> {
        let column = |e: &mut Engine, list: &[TensorId]| -> Result<Vec<TensorId>> {
            list.iter().map(|&t| if e.shape(t)?.len() == 1 { e.reshape(t, &[-1, 1]) } else { Ok(t) }).collect()
        };
        let (xs, ys) = (column(e, xs)?, column(e, ys)?);
        Model::check_batch(e, &xs, &self.input_shapes, &self.input_names, "input")?;
        let c = self.compiled()?;
        let mut target_shapes = self.output_shapes();
        for (s, loss) in target_shapes.iter_mut().zip(&c.losses) {
            if *loss == Loss::SparseCategoricalCrossentropy {
                if let Some(last) = s.last_mut() {
                    *last = Some(1);
                }
            }
        }
        let names: Vec<String> = (0..self.outputs.len()).map(|o| self.output_name(o)).collect();
        Model::check_batch(e, &ys, &target_shapes, &names, "target")?;
        let (n, m) = (rows(e, &xs)?, rows(e, &ys)?);
        if n != m {
            bail!("Input Tensors should have the same number of samples as target Tensors. Found {n} input sample(s) and {m} target sample(s).");
        }
        Ok((xs, ys))
    }

    /// `model.predict(x, {batchSize})`: the outputs, computed `batch_size` rows at a time.
    pub fn predict(&self, e: &mut Engine, xs: &[TensorId], batch_size: usize) -> Result<Vec<TensorId>> {
        self.check_live()?;
        self.check_inputs(e, xs)?;
        let n = rows(e, xs)?;
        if n <= batch_size.max(1) {
            return e.tidy(|e| self.forward(e, xs, false));
        }
        e.tidy(|e| {
            let mut parts: Vec<Vec<TensorId>> = vec![Vec::new(); self.outputs.len()];
            let mut start = 0;
            while start < n {
                let end = (start + batch_size).min(n);
                let batch = take_rows(e, xs, Rows::Range(start, end))?;
                for (i, y) in self.forward(e, &batch, false)?.into_iter().enumerate() {
                    parts[i].push(y);
                }
                start = end;
            }
            parts.iter().map(|p| e.concat(p, 0)).collect()
        })
    }

    /// `model.compile`: the optimizer, one loss per output (or one for all) and the metrics.
    pub fn compile_with(
        &mut self,
        e: &mut Engine,
        optimizer: Rc<RefCell<Optimizer>>,
        owns: bool,
        losses: &[&str],
        metrics: &[&str],
    ) -> Result<()> {
        self.check_live()?;
        let n = self.outputs.len();
        let losses: Vec<Loss> = losses.iter().map(|l| Loss::named(l)).collect::<Result<_>>()?;
        let losses = match losses.len() {
            1 => vec![losses[0]; n],
            k if k == n => losses,
            k => bail!("When passing an Array as loss, it should have one entry per model output. The model has {n} output(s), but you passed loss={k} entries"),
        };
        let shapes = self.output_shapes();
        let mut resolved = Vec::new();
        for (o, (loss, shape)) in losses.iter().zip(&shapes).enumerate() {
            for &m in metrics {
                let (metric, name) = Metric::resolve(m, Some(*loss), shape.last().copied().flatten())?;
                let name = if n > 1 { format!("{}_{name}", self.output_name(o)) } else { name };
                resolved.push((o, metric, name));
            }
        }
        if let Some(old) = self.compiled.take() {
            if old.owns_optimizer && !Rc::ptr_eq(&old.optimizer, &optimizer) {
                old.optimizer.borrow_mut().dispose(e);
            }
        }
        self.compiled = Some(Compiled { optimizer, owns_optimizer: owns, losses, metrics: resolved });
        Ok(())
    }

    /// `compile` with an optimizer name and its default learning rate (`lr` overrides it when
    /// positive).
    pub fn compile(&mut self, e: &mut Engine, optimizer: &str, lr: f64, loss: &str, metrics: &[&str]) -> Result<()> {
        let mut opt = optimizer_named(e, optimizer)?;
        if lr > 0.0 {
            opt.learning_rate = lr;
        }
        self.compile_with(e, Rc::new(RefCell::new(opt)), true, &[loss], metrics)
    }

    fn output_name(&self, o: usize) -> String {
        match self.outputs[o] {
            Src::Node(n, _) => self.nodes[n].layer.borrow().name.clone(),
            Src::Input(i) => self.input_names[i].clone(),
        }
    }

    /// The names of what `train_batch` and `evaluate` return: `loss`, then the metrics; a
    /// name that occurs more than once gets its occurrence's index (`acc_0`, `acc_1`), as
    /// tfjs's `getDedupedMetricsNames`.
    pub fn metric_names(&self) -> Vec<String> {
        let mut out = vec!["loss".to_string()];
        if let Some(c) = &self.compiled {
            if self.outputs.len() > 1 {
                out.extend((0..self.outputs.len()).map(|o| format!("{}_loss", self.output_name(o))));
            }
            out.extend(c.metrics.iter().map(|m| m.2.clone()));
        }
        let count = |list: &[String], name: &str| list.iter().filter(|n| *n == name).count();
        (0..out.len())
            .map(|i| {
                if count(&out, &out[i]) > 1 {
                    format!("{}_{}", out[i], count(&out[..i], &out[i]))
                } else {
                    out[i].clone()
                }
            })
            .collect()
    }

    /// The names of the layers, in `layers` order.
    pub fn layer_names(&self) -> Vec<String> {
        self.layers.iter().map(|l| l.borrow().name.clone()).collect()
    }

    fn compiled(&self) -> Result<&Compiled> {
        self.check_live()?;
        match &self.compiled {
            Some(c) => Ok(c),
            None if self.sequential => bail!("The model needs to be compiled before being used."),
            None => {
                bail!("You must compile a model before training/testing. Use LayersModel.compile(modelCompileArgs).")
            }
        }
    }

    /// Trainable weights of every layer, in layer order (tfjs's `collectedTrainableWeights`).
    pub fn trainable_weights(&self) -> Vec<TensorId> {
        self.layers.iter().flat_map(|l| l.borrow().trainable_weights()).collect()
    }

    pub fn non_trainable_weights(&self) -> Vec<TensorId> {
        let trainable = self.trainable_weights();
        self.layers.iter().flat_map(|l| l.borrow().ordered_weights()).filter(|w| !trainable.contains(w)).collect()
    }

    /// tfjs's `model.weights`: trainable first.
    pub fn weights(&self) -> Vec<TensorId> {
        let mut w = self.trainable_weights();
        w.extend(self.non_trainable_weights());
        w
    }

    /// `getWeights` order: each layer's weights in turn (trainable first within a layer).
    pub fn layer_ordered_weights(&self) -> Vec<TensorId> {
        self.layers.iter().flat_map(|l| l.borrow().ordered_weights()).collect()
    }

    /// The original names (`layer/weight`, as model files name them) of the weights `vars`.
    pub fn original_names(&self, vars: &[TensorId]) -> Vec<String> {
        let name = |v| self.layers.iter().find_map(|l| l.borrow().original_name(v).map(str::to_string));
        vars.iter().map(|&v| name(v).unwrap_or_default()).collect()
    }

    /// `model.setWeights(values)` in [`Model::weights`] order.
    pub fn set_weights(&self, e: &mut Engine, values: &[TensorId]) -> Result<()> {
        let vars = self.weights();
        let constraints: Vec<_> =
            vars.iter().map(|&v| self.layers.iter().find_map(|l| l.borrow().constraint_of(v)).flatten()).collect();
        crate::layer::assign_weights(e, &self.name, &vars, &constraints, values)
    }

    pub fn count_params(&self, e: &Engine) -> usize {
        self.layers.iter().map(|l| l.borrow().count_params(e)).sum()
    }

    /// The sum of the regularization penalties of every weight.
    fn penalties(&self, e: &mut Engine) -> Result<Option<TensorId>> {
        let mut total = None;
        for l in &self.layers {
            let l = l.borrow();
            for w in &l.weights {
                if let Some(r) = &w.regularizer {
                    let p = r.penalty(e, w.var)?;
                    total = Some(match total {
                        Some(t) => e.add(t, p)?,
                        None => p,
                    });
                }
            }
        }
        Ok(total)
    }

    /// The mean loss of each output (weighted per sample when `weights` are given) and their
    /// sum, and the mean of each metric.
    fn losses_and_metrics(
        &self,
        e: &mut Engine,
        c: &Compiled,
        outputs: &[TensorId],
        ys: &[TensorId],
        weights: Option<TensorId>,
    ) -> Result<(TensorId, Vec<TensorId>, Vec<TensorId>)> {
        let mut total = None;
        let mut per_output = Vec::new();
        for (i, loss) in c.losses.iter().enumerate() {
            let mut l = loss.compute(e, ys[i], outputs[i])?;
            if let Some(w) = weights {
                l = e.mul(l, w)?;
            }
            per_output.push(e.reduce(ReduceOp::Mean, l, None, false)?);
            // tfjs adds the per-sample losses, then takes one mean.
            total = Some(match total {
                Some(t) => e.add(t, l)?,
                None => l,
            });
        }
        let total = total.ok_or_else(|| tidytensor_core::Error("The model has no outputs".into()))?;
        let total = e.reduce(ReduceOp::Mean, total, None, false)?;
        let mut metrics = Vec::new();
        for (o, metric, _) in &c.metrics {
            let v = metric.compute(e, ys[*o], outputs[*o])?;
            metrics.push(e.reduce(ReduceOp::Mean, v, None, false)?);
        }
        Ok((total, per_output, metrics))
    }

    /// One training step on `rows` of `xs`/`ys`: forward, loss (with the regularization
    /// penalties), gradients, optimizer update. Returns the loss and the metrics (as
    /// [`Model::metric_names`]).
    pub fn train_batch(
        &mut self,
        e: &mut Engine,
        xs: &[TensorId],
        ys: &[TensorId],
        rows: Rows,
        class_weight: Option<&[f64]>,
    ) -> Result<Vec<f64>> {
        self.compiled()?;
        let vars = self.trainable_weights();
        let var_names: Vec<String> =
            vars.iter().map(|&v| e.variable_name(v).map(str::to_string)).collect::<Result<_>>()?;
        let c = self.compiled.as_ref().expect("checked");
        e.start_scope();
        // The metric values are kept past the gradient's scope; they go at the end either way.
        let mut kept = Vec::new();
        let step = (|| -> Result<Vec<TensorId>> {
            let (xs, ys) = self.standardize(e, xs, ys)?;
            let (xs, ys) = (xs.as_slice(), ys.as_slice());
            let bx = take_rows(e, xs, rows)?;
            let by = take_rows(e, ys, rows)?;
            let weights = match class_weight {
                Some(cw) => Some(class_weights(e, by[0], cw)?),
                None => None,
            };
            let (loss, grads) = e.gradients(
                |e| {
                    let out = self.forward(e, &bx, true)?;
                    let (mut total, per_output, metrics) = self.losses_and_metrics(e, c, &out, &by, weights)?;
                    if let Some(p) = self.penalties(e)? {
                        total = e.add(total, p)?;
                    }
                    for &t in per_output.iter().filter(|_| self.outputs.len() > 1).chain(&metrics) {
                        e.keep(t);
                        kept.push(t);
                    }
                    Ok(total)
                },
                &vars,
                None,
                true,
            )?;
            let pairs: Vec<(String, Option<TensorId>)> = var_names.iter().cloned().zip(grads).collect();
            c.optimizer.borrow_mut().apply_gradients(e, &pairs)?;
            Ok(vec![loss])
        })();
        let values = match &step {
            Ok(loss) => loss.iter().chain(&kept).map(|&t| scalar_value(e, t)).collect::<Result<Vec<f64>>>(),
            Err(_) => Ok(Vec::new()),
        };
        // Everything the step made goes, the kept metric values included.
        for &t in step.iter().flatten().chain(&kept) {
            e.dispose(t);
        }
        e.end_scope(&[]);
        step?;
        values
    }

    /// A plain `fit` for Rust programs: `epochs` passes over the data in batches of
    /// `batch_size` (shuffled each epoch with `seed` when given), returning each epoch's
    /// logs (loss and metrics averaged over the samples, as tfjs's BaseLogger does).
    /// JavaScript's `fit` runs its own loop of `train_batch` calls, with callbacks.
    pub fn fit(
        &mut self,
        e: &mut Engine,
        xs: &[TensorId],
        ys: &[TensorId],
        epochs: usize,
        batch_size: usize,
        seed: Option<u64>,
    ) -> Result<Vec<Vec<f64>>> {
        let n = rows(e, xs)?;
        let mut order: Vec<i32> = (0..n as i32).collect();
        let mut state = seed.unwrap_or(0);
        let mut history = Vec::new();
        for _ in 0..epochs {
            if seed.is_some() {
                // Fisher-Yates with a small LCG: reproducible, no dependency.
                for i in (1..n).rev() {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    order.swap(i, (state >> 33) as usize % (i + 1));
                }
            }
            let mut sums: Vec<f64> = Vec::new();
            let mut start = 0;
            while start < n {
                let end = (start + batch_size.max(1)).min(n);
                let logs = if seed.is_some() {
                    self.train_batch(e, xs, ys, Rows::Indices(&order[start..end]), None)?
                } else {
                    self.train_batch(e, xs, ys, Rows::Range(start, end), None)?
                };
                sums.resize(logs.len(), 0.0);
                for (s, v) in sums.iter_mut().zip(logs) {
                    *s += v * (end - start) as f64;
                }
                start = end;
            }
            history.push(sums.into_iter().map(|s| s / n.max(1) as f64).collect());
        }
        Ok(history)
    }

    /// `model.evaluate(x, y, {batchSize})`: the loss (without regularization, as tfjs) and the
    /// metrics, averaged over every sample.
    pub fn evaluate(&self, e: &mut Engine, xs: &[TensorId], ys: &[TensorId], batch_size: usize) -> Result<Vec<f64>> {
        let c = self.compiled()?;
        e.start_scope();
        let checked = self.standardize(e, xs, ys);
        let (xs, ys) = match checked {
            Ok(v) => v,
            Err(err) => {
                e.end_scope(&[]);
                return Err(err);
            }
        };
        let result = self.evaluate_checked(e, c, &xs, &ys, batch_size);
        e.end_scope(&[]);
        result
    }

    fn evaluate_checked(
        &self,
        e: &mut Engine,
        c: &Compiled,
        xs: &[TensorId],
        ys: &[TensorId],
        batch_size: usize,
    ) -> Result<Vec<f64>> {
        let n = rows(e, xs)?;
        let mut sums: Vec<f64> = Vec::new();
        let mut start = 0;
        while start < n {
            let end = (start + batch_size.max(1)).min(n);
            let ids = e.tidy(|e| {
                let bx = take_rows(e, xs, Rows::Range(start, end))?;
                let by = take_rows(e, ys, Rows::Range(start, end))?;
                let out = self.forward(e, &bx, false)?;
                let (total, per_output, metrics) = self.losses_and_metrics(e, c, &out, &by, None)?;
                let mut v = vec![total];
                if self.outputs.len() > 1 {
                    v.extend(per_output);
                }
                v.extend(metrics);
                Ok(v)
            })?;
            let values: Vec<f64> = ids.iter().map(|&t| scalar_value(e, t)).collect::<Result<_>>()?;
            for &t in &ids {
                e.dispose(t);
            }
            if sums.is_empty() {
                sums = vec![0.0; values.len()];
            }
            for (s, v) in sums.iter_mut().zip(values) {
                *s += v * (end - start) as f64;
            }
            start = end;
        }
        Ok(sums.into_iter().map(|s| s / n.max(1) as f64).collect())
    }

    /// `model.dispose()`: the layers no other model uses lose their weights; an optimizer made
    /// by `compile` goes too. Returns `(refCountAfterDispose, numDisposedVariables)`.
    pub fn dispose(&mut self, e: &mut Engine) -> Result<(usize, usize)> {
        if self.disposed {
            bail!("Container '{}' is already disposed.", self.name);
        }
        let mut n = 0;
        for l in &self.layers {
            let mut l = l.borrow_mut();
            l.ref_count = l.ref_count.saturating_sub(1);
            if l.ref_count == 0 {
                n += l.dispose_weights(e);
            }
        }
        if let Some(c) = self.compiled.take() {
            if c.owns_optimizer {
                let before = e.memory().num_tensors;
                c.optimizer.borrow_mut().dispose(e);
                n += before.saturating_sub(e.memory().num_tensors);
            }
        }
        self.disposed = true;
        Ok((0, n))
    }

    /// The rows of `summary()`: layer name and class, output shape, parameter count, and
    /// (functional models) the layers it reads from.
    pub fn summary_rows(&self, e: &Engine) -> Vec<(String, String, usize, Vec<String>)> {
        let mut rows = Vec::new();
        for node in &self.nodes {
            let l = node.layer.borrow();
            let shape = if node.output_shapes.len() == 1 {
                shape_text(&node.output_shapes[0])
            } else {
                format!("[{}]", node.output_shapes.iter().map(|s| shape_text(s)).collect::<Vec<_>>().join(","))
            };
            let inbound = node
                .inputs
                .iter()
                .filter_map(|s| match s {
                    Src::Node(n, o) => Some(format!("{}[0][{o}]", self.nodes[*n].layer.borrow().name)),
                    Src::Input(_) => None,
                })
                .collect();
            rows.push((format!("{} ({})", l.name, l.class_name()), shape, l.count_params(e), inbound));
        }
        rows
    }

    /// tfjs's `model.toJSON()` topology (Keras format): what model files will store.
    pub fn topology(&self) -> Value {
        let layers: Vec<Value> = self
            .layers
            .iter()
            .map(|l| {
                let l = l.borrow();
                json!({"class_name": l.class_name(), "config": l.config()})
            })
            .collect();
        if self.sequential {
            json!({"class_name": "Sequential", "config": {"name": self.name, "layers": layers}})
        } else {
            json!({"class_name": "Model", "config": {"name": self.name, "layers": layers}})
        }
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        for l in &self.layers {
            if let Ok(mut l) = l.try_borrow_mut() {
                if !self.disposed {
                    l.ref_count = l.ref_count.saturating_sub(1);
                }
            }
        }
    }
}

/// The number of samples (rows) of the inputs, which must agree.
fn rows(e: &Engine, xs: &[TensorId]) -> Result<usize> {
    let mut n = None;
    for &x in xs {
        let r = e.shape(x)?.first().copied().unwrap_or(1);
        if n.is_some_and(|n| n != r) {
            bail!(
                "All input Tensors (x) should have the same number of samples. Got array shapes: {r} and {}",
                n.unwrap_or(0)
            );
        }
        n = Some(r);
    }
    Ok(n.unwrap_or(0))
}

/// What another thread's engine needs to run a model's predictions: each layer's class and
/// config, the graph of calls, and the weights shared (not copied). [`ModelSource::load`]
/// builds the replica there.
pub struct ModelSource {
    name: String,
    sequential: bool,
    /// A Sequential model's input layer (its first layer may have no input shape of its own).
    input: Option<Value>,
    layers: Vec<(&'static str, Value)>,
    /// Per call: the layer (an index of `layers`) and its inputs.
    nodes: Vec<(usize, Vec<Src>)>,
    n_inputs: usize,
    outputs: Vec<Src>,
    /// In [`Model::weights`] order.
    weights: Vec<Shared>,
}

impl Model {
    /// The model as another thread builds it again ([`ModelSource`]).
    pub fn replica_source(&self, e: &Engine) -> Result<ModelSource> {
        if self.disposed {
            bail!("This model has been disposed");
        }
        let index = |l: &LayerRef| self.layers.iter().position(|x| Rc::ptr_eq(x, l));
        let nodes = self
            .nodes
            .iter()
            .map(|n| {
                Ok((
                    index(&n.layer).ok_or_else(|| Error::new("A model's call of a layer it has not"))?,
                    n.inputs.clone(),
                ))
            })
            .collect::<Result<_>>()?;
        let input = self.sequential.then(|| {
            json!({
                "name": self.input_names[0],
                "batchInputShape": crate::layer::shape_json(&self.input_shapes[0]),
                "dtype": self.input_dtypes[0].name(),
            })
        });
        Ok(ModelSource {
            name: self.name.clone(),
            sequential: self.sequential,
            input,
            layers: self.layers.iter().map(|l| (l.borrow().class_name(), l.borrow().config())).collect(),
            nodes,
            n_inputs: self.input_shapes.len(),
            outputs: self.outputs.clone(),
            weights: self.weights().into_iter().map(|w| e.export(w)).collect::<Result<_>>()?,
        })
    }
}

impl ModelSource {
    /// The model again, in `e`, its weights over the same buffers.
    pub fn load(self, e: &mut Engine) -> Result<Model> {
        let layers = self
            .layers
            .iter()
            .map(|(class, config)| {
                let l = crate::layer(class, config)?;
                l.borrow_mut().fast_init = true;
                Ok(l)
            })
            .collect::<Result<Vec<_>>>()?;
        let model = if self.sequential {
            let mut all = Vec::with_capacity(layers.len() + 1);
            all.extend(self.input.as_ref().map(|c| crate::layer("InputLayer", c)).transpose()?);
            all.extend(layers);
            Model::sequential(e, Some(&self.name), all)?
        } else {
            let nodes = self.nodes.into_iter().map(|(l, ins)| (layers[l].clone(), ins)).collect();
            Model::functional(e, Some(&self.name), nodes, self.n_inputs, self.outputs)?
        };
        let vars = model.weights();
        if vars.len() != self.weights.len() {
            bail!("The replica of model {} has {} weights, not {}", self.name, vars.len(), self.weights.len());
        }
        for (var, w) in vars.into_iter().zip(self.weights) {
            let value = e.adopt(w);
            let r = e.assign(var, value);
            e.dispose(value);
            r?;
        }
        Ok(model)
    }
}

/// Rows of each of `xs`: a slice for a range, a gather for shuffled indices.
pub fn take_rows(e: &mut Engine, xs: &[TensorId], r: Rows) -> Result<Vec<TensorId>> {
    xs.iter()
        .map(|&x| match r {
            Rows::Range(a, b) => {
                let n = e.shape(x)?.first().copied().unwrap_or(0);
                if a == 0 && b == n {
                    e.clone_tensor(x)
                } else {
                    e.slice_axis(x, 0, a, b - a)
                }
            }
            Rows::Indices(idx) => {
                let t = e.tensor(HostData::I32(idx.to_vec()), &[idx.len()])?;
                e.gather(x, t, 0, 0)
            }
        })
        .collect()
}

/// tfjs's `standardizeClassWeights`: each sample's weight is its class's (argMax of a one-hot
/// row, or the rounded label of a single column).
fn class_weights(e: &mut Engine, y: TensorId, weights: &[f64]) -> Result<TensorId> {
    let shape = e.shape(y)?.to_vec();
    let classes = if shape.len() == 2 && shape[1] > 1 {
        e.arg_reduce(tidytensor_core::ArgOp::ArgMax, y, -1)?
    } else {
        let r = e.reshape(y, &[-1])?;
        let r = e.unary(tidytensor_core::UnaryOp::Round, r)?;
        e.cast(r, DType::Int32)?
    };
    let HostData::I32(labels) = e.read(classes)? else { bail!("class labels must be numbers") };
    let mut w = Vec::with_capacity(labels.len());
    for c in labels {
        match weights.get(c as usize).filter(|v| !v.is_nan()) {
            Some(&v) => w.push(v as f32),
            None => bail!("classWeight must contain all classes in the training data. The class {c} exists in the data but not in classWeight"),
        }
    }
    let n = w.len();
    e.tensor(HostData::F32(w), &[n])
}

/// The value of a one-element tensor.
fn scalar_value(e: &Engine, t: TensorId) -> Result<f64> {
    Ok(match e.read(t)? {
        HostData::F32(v) => v.first().copied().unwrap_or(f32::NAN) as f64,
        HostData::I32(v) => v.first().copied().unwrap_or(0) as f64,
        HostData::Bool(v) => v.first().copied().unwrap_or(0) as f64,
    })
}
