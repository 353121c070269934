//! One layer: its config, its weights (engine variables), and how it is built and called.
//! What differs between kinds of layers is behind [`Kind`]; the rest is here.

use crate::config::Cfg;
use crate::initializers::Initializer;
use crate::regularizers::{Constraint, Regularizer};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use tidytensor_core::{bail, DType, Engine, Result, TensorId};

/// A shape whose batch (or any) dimension may be unknown.
pub type Shape = Vec<Option<usize>>;

/// A layer shared by the models (and the JavaScript object) that use it.
pub type LayerRef = Rc<RefCell<Layer>>;

/// `[2, 3]` as the `i64` dims `reshape` takes.
pub fn dims(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

/// A shape as tfjs prints it: `[null,4]`.
pub fn shape_text(s: &[Option<usize>]) -> String {
    let parts: Vec<String> = s.iter().map(|d| d.map_or("null".into(), |d| d.to_string())).collect();
    format!("[{}]", parts.join(","))
}

pub fn shape_json(s: &[Option<usize>]) -> Value {
    Value::Array(s.iter().map(|d| d.map_or(Value::Null, |d| json!(d))).collect())
}

/// A dimension given in a config: an integer up to [`crate::config::MAX_INT`].
fn dim(v: &Value) -> Option<usize> {
    v.as_u64().filter(|&n| n <= crate::config::MAX_INT as u64).map(|n| n as usize)
}

/// The known shape of a concrete tensor.
pub fn known(s: &[usize]) -> Shape {
    s.iter().map(|&d| Some(d)).collect()
}

thread_local! {
    static UIDS: RefCell<HashMap<String, usize>> = RefCell::new(HashMap::new());
    static TENSOR_NAMES: RefCell<HashMap<String, usize>> = RefCell::new(HashMap::new());
}

/// tfjs's `getUid(prefix)`: `prefix1`, `prefix2`, ... per prefix, per thread.
pub fn uid(prefix: &str) -> String {
    UIDS.with(|u| {
        let mut u = u.borrow_mut();
        let n = u.entry(prefix.to_string()).or_insert(0);
        *n += 1;
        format!("{prefix}{n}")
    })
}

/// tfjs's `getUniqueTensorName`: `name`, then `name_1`, `name_2`, ... (also skipping names the
/// engine already has, which tfjs would refuse).
pub fn unique_tensor_name(e: &Engine, name: &str) -> String {
    TENSOR_NAMES.with(|m| {
        let mut m = m.borrow_mut();
        loop {
            let index = *m.entry(name.to_string()).or_insert(0);
            *m.get_mut(name).expect("inserted") += 1;
            let candidate = if index > 0 { format!("{name}_{index}") } else { name.to_string() };
            if index > 0 {
                m.insert(candidate.clone(), 1);
            }
            if e.variable_named(&candidate).is_none() {
                return candidate;
            }
        }
    })
}

/// tfjs's `toSnakeCase`: `BatchNormalization` as `batch_normalization`, `Conv2D` as `conv2d`,
/// `SimpleRNN` as `simple_rnn` (its two regular expressions, by hand).
pub fn snake_class(class: &str) -> String {
    let c: Vec<char> = class.chars().collect();
    // (.)([A-Z][a-z0-9]+) -> $1_$2, left to right without overlaps.
    let mut step = String::new();
    let mut i = 0;
    while i < c.len() {
        if i + 1 < c.len()
            && c[i + 1].is_ascii_uppercase()
            && c.get(i + 2).is_some_and(|x| x.is_ascii_lowercase() || x.is_ascii_digit())
        {
            step.push(c[i]);
            step.push('_');
            let mut j = i + 1;
            step.push(c[j]);
            j += 1;
            while j < c.len() && (c[j].is_ascii_lowercase() || c[j].is_ascii_digit()) {
                step.push(c[j]);
                j += 1;
            }
            i = j;
        } else {
            step.push(c[i]);
            i += 1;
        }
    }
    // ([a-z])([A-Z]) -> $1_$2, then lower case.
    let c: Vec<char> = step.chars().collect();
    let mut out = String::new();
    for (k, &ch) in c.iter().enumerate() {
        out.push(ch.to_ascii_lowercase());
        if ch.is_ascii_lowercase() && c.get(k + 1).is_some_and(|n| n.is_ascii_uppercase()) {
            out.push('_');
        }
    }
    if out.starts_with('_') {
        out.insert_str(0, "private");
    }
    out
}

/// One weight of a layer.
#[derive(Debug)]
pub struct Weight {
    /// The engine variable (its name is `layer/weight`, made unique).
    pub var: TensorId,
    /// `layer/weight` before it was made unique: the name model files know it by (tfjs's
    /// `originalName`).
    pub original: String,
    pub trainable: bool,
    pub regularizer: Option<Regularizer>,
    pub constraint: Option<Constraint>,
}

/// What a layer expects of its inputs (tfjs's InputSpec), checked at every call.
#[derive(Clone, Debug, Default)]
pub struct InputSpec {
    pub ndim: Option<usize>,
    pub min_ndim: Option<usize>,
    /// `(axis, size)`, the axis negative from the end.
    pub axes: Vec<(i64, usize)>,
    /// Checks the first input only (a recurrent layer's initial states follow it).
    pub first_only: bool,
}

/// Creates a layer's weights during `build`.
pub struct Builder<'a> {
    pub e: &'a mut Engine,
    pub layer: &'a str,
    /// The weights' dtype (float32 but for an embedding's, as in tfjs).
    pub dtype: DType,
    pub weights: Vec<Weight>,
    pub spec: Option<InputSpec>,
    /// Zeros instead of the initializers: the weights are about to be loaded from a file.
    pub fast_init: bool,
}

impl Builder<'_> {
    /// tfjs's `addWeight`: the initial value, a variable named `layer/name` (unique), the
    /// regularizer kept for the training loss. Returns its index in the layer's weights.
    pub fn add(
        &mut self,
        name: &str,
        shape: &[usize],
        init: &Initializer,
        regularizer: Option<&Regularizer>,
        constraint: Option<&Constraint>,
        trainable: bool,
    ) -> Result<usize> {
        let init = if self.fast_init { &Initializer::Zeros } else { init };
        let value = init.make(self.e, shape, self.dtype)?;
        self.add_value(name, value, regularizer, constraint, trainable)
    }

    /// Runs `f` with the weights named `layer/scope/name` (tfjs's `nameScope`: a wrapper's inner
    /// layers, stacked cells); the weights join this builder's, also when `f` fails (so that
    /// the caller disposes them).
    pub fn scoped<R>(&mut self, scope: &str, f: impl FnOnce(&mut Builder) -> Result<R>) -> Result<R> {
        let name = format!("{}/{scope}", self.layer);
        let mut sub = Builder {
            e: &mut *self.e,
            layer: &name,
            dtype: self.dtype,
            weights: Vec::new(),
            spec: None,
            fast_init: self.fast_init,
        };
        let r = f(&mut sub);
        let weights = std::mem::take(&mut sub.weights);
        self.weights.extend(weights);
        r
    }

    /// [`Builder::add`] with an initial value made by the caller (disposed here).
    pub fn add_value(
        &mut self,
        name: &str,
        value: TensorId,
        regularizer: Option<&Regularizer>,
        constraint: Option<&Constraint>,
        trainable: bool,
    ) -> Result<usize> {
        let original = format!("{}/{name}", self.layer);
        let full = unique_tensor_name(self.e, &original);
        let var = self.e.variable(value, trainable, Some(&full), Some(self.dtype));
        self.e.dispose(value);
        self.weights.push(Weight {
            var: var?,
            original,
            trainable,
            regularizer: regularizer.cloned(),
            constraint: constraint.cloned(),
        });
        Ok(self.weights.len() - 1)
    }
}

/// What one kind of layer does.
pub trait Kind {
    /// tfjs's class name (`'Dense'`).
    fn class_name(&self) -> &'static str;
    /// Creates the weights for inputs of these shapes (in the order `call` reads them).
    fn build(&mut self, _b: &mut Builder, _inputs: &[Shape]) -> Result<()> {
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>>;
    /// The outputs for `inputs`, `w` holding the layer's weights (variables). Runs inside a
    /// scope: temporaries need no disposal.
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>>;
    /// The layer's own config keys (tfjs's `getConfig`, less the base keys).
    fn config(&self) -> Map<String, Value>;
    /// Whether tfjs's config of this kind has `activityRegularizer` and where it comes from.
    fn activity_regularizer(&self) -> ActivityRegularizer {
        ActivityRegularizer::Absent
    }
    /// Whether it takes a list of inputs (merge layers).
    fn takes_list(&self) -> bool {
        false
    }
    /// Whether its inputs reach `call` in their own dtype rather than cast to float32: tfjs's
    /// preprocessing layers (and masking) keep an int32 input's dtype.
    fn keeps_dtype(&self) -> bool {
        false
    }
    /// Whether it keeps state between calls (stateful recurrent layers): it is then built for
    /// the batch size of its first call, as tfjs builds it.
    fn stateful(&self) -> bool {
        false
    }
    /// Whether its weights are sized by the batch axis (a batch normalization over axis 0): a
    /// call on tensors then builds it with the call's batch size, as tfjs builds it.
    fn sized_by_batch(&self) -> bool {
        false
    }
    /// tfjs's `resetStates(states?)`: zeros, or copies of `states`.
    fn reset_states(&self, _e: &mut Engine, _layer: &str, _states: Option<&[TensorId]>) -> Result<()> {
        bail!("Cannot call the resetStates() method of a non-stateful Layer object.")
    }
    /// Disposes the state it keeps between calls (with the layer's weights).
    fn dispose_state(&self, _e: &mut Engine) {}
    /// tfjs's `supportsMasking`: whether a model records masks for this layer's outputs.
    fn supports_masking(&self) -> bool {
        false
    }
    /// tfjs's `computeMask(inputs, masks)` for the kinds that override it (`masks` empty when
    /// none is given); `None` keeps the base Layer's (pass the masks on, or refuse them).
    fn compute_mask(
        &self,
        _e: &mut Engine,
        _inputs: &[TensorId],
        _masks: &[Option<TensorId>],
    ) -> Result<Option<MaskOut>> {
        Ok(None)
    }
    /// `call` with tfjs's `kwargs.mask` (`[batch, steps]`, or wider): only the kinds that read
    /// it (the recurrent layers and their wrappers) override this.
    fn call_masked(
        &self,
        e: &mut Engine,
        w: &[TensorId],
        inputs: &[TensorId],
        _mask: Option<TensorId>,
        training: bool,
    ) -> Result<Vec<TensorId>> {
        self.call(e, w, inputs, training)
    }
}

/// What tfjs's `computeMask` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MaskOut {
    /// The masks as they were given (the base Layer's, when the layer supports masking).
    Same,
    /// One mask (or null).
    One(Option<TensorId>),
    /// One per output (recurrent layers returning their states, Bidirectional without merge).
    List(Vec<Option<TensorId>>),
}

impl MaskOut {
    /// The mask tfjs's executor records for every output of the call: the first of a list.
    pub fn for_outputs(&self, given: &[Option<TensorId>]) -> Option<TensorId> {
        match self {
            MaskOut::Same => given.first().copied().flatten(),
            MaskOut::One(m) => *m,
            MaskOut::List(l) => l.first().copied().flatten(),
        }
    }
}

/// `activityRegularizer` in tfjs's configs: absent (most layers), always `null` (the recurrent
/// layers, whose cells do not take one), or taken from the arguments (dense, convolutions,
/// embedding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivityRegularizer {
    Absent,
    Null,
    Taken,
}

pub struct Layer {
    pub name: String,
    pub kind: Box<dyn Kind>,
    pub trainable: bool,
    pub dtype: DType,
    /// From `inputShape` / `batchInputShape` / `inputDim` (with `batchSize`).
    pub batch_input_shape: Option<Shape>,
    /// Whether the config gave `inputShape` or `batchInputShape`: tfjs's layers have a `dtype`
    /// (and write it) only then (`inputDim` and an embedding's `inputLength` set the batch input
    /// shape without one).
    pub shape_given: bool,
    /// tfjs's `activityRegularizer` (dense, convolutions, embedding): kept for the config;
    /// like tfjs, a layer with one refuses to be applied.
    pub activity_regularizer: Option<Regularizer>,
    pub weights: Vec<Weight>,
    pub built: bool,
    pub spec: Option<InputSpec>,
    /// The input and output shapes of its first call (what `summary` prints).
    pub input_shapes: Vec<Shape>,
    pub output_shapes: Vec<Shape>,
    /// Models using this layer (for `dispose`: the weights go with the last).
    pub ref_count: usize,
    pub disposed: bool,
    /// Build with zero weights instead of running the initializers (tfjs's
    /// `setFastWeightInitDuringBuild`: set while a model file is loaded).
    pub fast_init: bool,
}

impl Layer {
    /// A layer of `kind` with the base config of `c` (name, trainable, dtype, input shape).
    pub fn new(kind: Box<dyn Kind>, c: Cfg) -> Result<Layer> {
        let class = kind.class_name();
        let name = match c.get("name").and_then(Value::as_str) {
            Some(n) => n.to_string(),
            None => format!("{}_{}", snake_class(class), uid(class)),
        };
        let dtype = match c.get("dtype").and_then(Value::as_str) {
            None | Some("float32") => DType::Float32,
            Some("int32") => DType::Int32,
            Some(d) => bail!("Unsupported layer dtype {d}"),
        };
        let shape_given = c.has("batchInputShape") || c.has("inputShape");
        let activity_regularizer = match kind.activity_regularizer() {
            ActivityRegularizer::Taken => Regularizer::from_cfg(c, "activityRegularizer")?,
            _ => None,
        };
        let batch_input_shape = match (c.shape("batchInputShape")?, c.shape("inputShape")?, c.get("inputDim")) {
            (Some(b), _, _) => Some(b),
            (None, Some(s), _) => {
                let batch = c.get("batchSize").and_then(dim);
                Some(std::iter::once(batch).chain(s).collect())
            }
            (None, None, _) if class == "Embedding" => {
                // tfjs: [batch, inputLength], the length unknown when not given.
                let batch = c.get("batchSize").and_then(dim);
                let mut s: Shape = vec![batch];
                match c.get("inputLength") {
                    Some(Value::Array(a)) => s.extend(a.iter().map(dim)),
                    Some(v) => s.push(dim(v)),
                    None => s.push(None),
                }
                Some(s)
            }
            (None, None, Some(d)) if class == "Dense" => {
                let d = dim(d)
                    .ok_or_else(|| tidytensor_core::Error("inputDim must be an integer up to 2147483647".into()))?;
                let batch = c.get("batchSize").and_then(dim);
                Some(vec![batch, Some(d)])
            }
            _ => None,
        };
        Ok(Layer {
            name,
            kind,
            trainable: c.bool_or("trainable", true)?,
            dtype,
            batch_input_shape,
            shape_given,
            activity_regularizer,
            weights: Vec::new(),
            built: false,
            spec: None,
            input_shapes: Vec::new(),
            output_shapes: Vec::new(),
            ref_count: 0,
            disposed: false,
            fast_init: false,
        })
    }

    pub fn into_ref(self) -> LayerRef {
        Rc::new(RefCell::new(self))
    }

    pub fn class_name(&self) -> &'static str {
        self.kind.class_name()
    }

    /// Creates the weights for inputs of these shapes, once; records the shapes.
    pub fn build(&mut self, e: &mut Engine, inputs: &[Shape]) -> Result<Vec<Shape>> {
        if self.disposed {
            bail!("Layer '{}' is already disposed.", self.name);
        }
        self.check_count(inputs.len())?;
        let outputs = self.kind.output_shapes(inputs)?;
        if !self.built {
            // tfjs's layers make float32 weights whatever their dtype; only an embedding's
            // follow it.
            let weight_dtype = if self.class_name() == "Embedding" { self.dtype } else { DType::Float32 };
            let mut b = Builder {
                e,
                layer: &self.name,
                dtype: weight_dtype,
                weights: Vec::new(),
                spec: None,
                fast_init: self.fast_init,
            };
            let built = e_tidy_build(&mut b, &mut *self.kind, inputs);
            let (weights, spec) = (std::mem::take(&mut b.weights), b.spec.take());
            if let Err(err) = built {
                for w in weights {
                    e.dispose(w.var);
                }
                return Err(err);
            }
            self.weights = weights;
            self.spec = spec;
            self.built = true;
            self.input_shapes = inputs.to_vec();
            self.output_shapes = outputs.clone();
        } else {
            // A built layer called on other symbolic inputs: tfjs checks them against its spec.
            self.check(inputs)?;
        }
        self.refuse_activity_regularizer()?;
        Ok(outputs)
    }

    /// tfjs's apply refuses layers with an activity regularizer (after building them).
    fn refuse_activity_regularizer(&self) -> Result<()> {
        if self.activity_regularizer.is_some() {
            bail!("Layer invocation in the presence of activity regularizer(s) is not supported yet.");
        }
        Ok(())
    }

    /// A layer of one input refuses several (tfjs's text).
    fn check_count(&self, n: usize) -> Result<()> {
        if !self.kind.takes_list() && n != 1 {
            bail!("Layer {} expects 1 inputs, but it received {n} input tensors.", self.name);
        }
        Ok(())
    }

    /// Checks `inputs` against the layer's input spec (tfjs's texts).
    /// tfjs's assertInputCompatibility against the spec made at build (an unknown dimension
    /// passes).
    fn check(&self, shapes: &[Shape]) -> Result<()> {
        let Some(spec) = &self.spec else { return Ok(()) };
        let n = if spec.first_only { 1 } else { shapes.len() };
        for (i, s) in shapes.iter().enumerate().take(n) {
            if let Some(n) = spec.ndim {
                if s.len() != n {
                    bail!(
                        "Input {i} is incompatible with layer {}: expected ndim={n}, found ndim={}",
                        self.name,
                        s.len()
                    );
                }
            }
            if let Some(n) = spec.min_ndim {
                if s.len() < n {
                    bail!(
                        "Input {i} is incompatible with layer {}: expected min_ndim={n}, found ndim={}",
                        self.name,
                        s.len()
                    );
                }
            }
            for &(axis, size) in &spec.axes {
                let a = if axis < 0 { s.len() as i64 + axis } else { axis };
                let ok = a >= 0 && matches!(s.get(a as usize), Some(None)) || s.get(a as usize) == Some(&Some(size));
                if a < 0 || !ok {
                    bail!(
                        "Input {i} is incompatible with layer {}: expected axis {axis} of input shape to have value {size} but got shape {}.",
                        self.name,
                        shape_text(s)
                    );
                }
            }
        }
        Ok(())
    }

    /// Calls the layer on concrete tensors (building it first if needed). Temporaries stay in
    /// the caller's scope.
    pub fn call(&mut self, e: &mut Engine, inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        self.call_masked(e, inputs, None, training)
    }

    /// [`Layer::call`] with tfjs's `kwargs.mask` (the layers that do not read it ignore it).
    pub fn call_masked(
        &mut self,
        e: &mut Engine,
        inputs: &[TensorId],
        mask: Option<TensorId>,
        training: bool,
    ) -> Result<Vec<TensorId>> {
        self.check_count(inputs.len())?;
        let shapes: Vec<Vec<usize>> =
            inputs.iter().map(|&x| e.shape(x).map(<[usize]>::to_vec)).collect::<Result<_>>()?;
        if !self.built {
            let mut s: Vec<Shape> = shapes.iter().map(|s| known(s)).collect();
            // A stateful layer's states (a batch normalization over axis 0's weights) have
            // the batch size of the call that builds it.
            if !self.kind.stateful() && !self.kind.sized_by_batch() {
                for s in &mut s {
                    if let Some(b) = s.first_mut() {
                        *b = None;
                    }
                }
            }
            self.build(e, &s)?;
        }
        if self.disposed {
            bail!("Layer '{}' is already disposed.", self.name);
        }
        self.check(&shapes.iter().map(|s| known(s)).collect::<Vec<_>>())?;
        self.refuse_activity_regularizer()?;
        let w: Vec<TensorId> = self.weights.iter().map(|w| w.var).collect();
        let inputs: Vec<TensorId> = if self.dtype == DType::Float32 && !self.kind.keeps_dtype() {
            let mut v = Vec::with_capacity(inputs.len());
            for &x in inputs {
                // Layers compute in float32; embeddings cast their indices themselves.
                let d = e.dtype(x)?;
                v.push(if d == DType::Float32 || self.class_name() == "Embedding" {
                    x
                } else {
                    e.cast(x, DType::Float32)?
                });
            }
            v
        } else {
            inputs.to_vec()
        };
        if let Some(m) = mask {
            e.shape(m)?;
        }
        self.kind.call_masked(e, &w, &inputs, mask, training)
    }

    /// tfjs's `computeMask(inputs, masks)`: the kind's, else the base Layer's (the masks as
    /// given when it supports masking; otherwise none, and a mask given is refused).
    pub fn compute_mask(&self, e: &mut Engine, inputs: &[TensorId], masks: &[Option<TensorId>]) -> Result<MaskOut> {
        if let Some(m) = self.kind.compute_mask(e, inputs, masks)? {
            return Ok(m);
        }
        if self.kind.supports_masking() {
            return Ok(MaskOut::Same);
        }
        if masks.iter().any(Option::is_some) {
            bail!("Layer {} does not support masking, but was passed an inputMask.", self.name);
        }
        Ok(MaskOut::One(None))
    }

    /// tfjs's `getConfig()`: the base keys and the kind's.
    pub fn config(&self) -> Value {
        let mut m = Map::new();
        let input_layer = self.class_name() == "InputLayer";
        m.insert("name".into(), json!(self.name));
        // tfjs's InputLayer config has no `trainable`.
        if !input_layer {
            m.insert("trainable".into(), json!(self.trainable));
        }
        if let Some(s) = &self.batch_input_shape {
            m.insert("batchInputShape".into(), shape_json(s));
        }
        // tfjs writes `dtype` for input layers and for layers given an input shape only (its
        // other layers have none: their `dtype` argument is dropped). A dtype other than float32
        // is written here anyway, so that the layer reloads as it is.
        if input_layer || self.shape_given || self.dtype != DType::Float32 {
            m.insert("dtype".into(), json!(self.dtype.name()));
        }
        match self.kind.activity_regularizer() {
            ActivityRegularizer::Absent => {}
            _ => {
                let r = self.activity_regularizer.as_ref().map_or(Value::Null, Regularizer::to_json);
                m.insert("activityRegularizer".into(), r);
            }
        }
        m.extend(self.kind.config());
        Value::Object(m)
    }

    /// Trainable weights first, then the others (tfjs's `weights`), as variable ids.
    pub fn ordered_weights(&self) -> Vec<TensorId> {
        let trainable = self.trainable;
        let (mut t, n): (Vec<&Weight>, Vec<&Weight>) = self.weights.iter().partition(|w| w.trainable && trainable);
        t.extend(n);
        t.into_iter().map(|w| w.var).collect()
    }

    pub fn trainable_weights(&self) -> Vec<TensorId> {
        if !self.trainable {
            return Vec::new();
        }
        self.weights.iter().filter(|w| w.trainable).map(|w| w.var).collect()
    }

    pub fn count_params(&self, e: &Engine) -> usize {
        self.weights.iter().filter_map(|w| e.shape(w.var).ok()).map(|s| s.iter().product::<usize>()).sum()
    }

    /// Sets the weights (in `ordered_weights` order) to copies of `values`, constrained.
    pub fn set_weights(&mut self, e: &mut Engine, values: &[TensorId]) -> Result<()> {
        let ids = self.ordered_weights();
        let constraints: Vec<Option<Constraint>> =
            ids.iter().map(|v| self.weights.iter().find(|w| w.var == *v).and_then(|w| w.constraint.clone())).collect();
        assign_weights(e, &self.name, &ids, &constraints, values)
    }

    /// The original name of the weight `var`, if it is one of this layer's.
    pub fn original_name(&self, var: TensorId) -> Option<&str> {
        self.weights.iter().find(|w| w.var == var).map(|w| w.original.as_str())
    }

    /// The constraint of the weight `var`, if it is one of this layer's.
    pub fn constraint_of(&self, var: TensorId) -> Option<Option<Constraint>> {
        self.weights.iter().find(|w| w.var == var).map(|w| w.constraint.clone())
    }

    /// tfjs's `resetStates(states?)` (stateful recurrent layers).
    pub fn reset_states(&mut self, e: &mut Engine, states: Option<&[TensorId]>) -> Result<()> {
        if self.disposed {
            bail!("Layer '{}' is already disposed.", self.name);
        }
        self.kind.reset_states(e, &self.name, states)
    }

    /// Disposes the weights that are still alive; returns how many.
    pub fn dispose_weights(&mut self, e: &mut Engine) -> usize {
        self.kind.dispose_state(e);
        let mut n = 0;
        for w in &self.weights {
            if !e.is_disposed(w.var) {
                e.dispose(w.var);
                n += 1;
            }
        }
        self.disposed = true;
        n
    }
}

/// tfjs's `setWeights` on `owner` (a layer or a model): every shape checked first (its texts),
/// then each variable set to a copy of its value, cast and constrained.
pub fn assign_weights(
    e: &mut Engine,
    owner: &str,
    vars: &[TensorId],
    constraints: &[Option<Constraint>],
    values: &[TensorId],
) -> Result<()> {
    if vars.len() != values.len() {
        bail!(
            "You called setWeights(weights) on layer \"{owner}\" with a weight list of length {}, but the layer was expecting {} weights. Provided weights: {}...",
            values.len(),
            vars.len(),
            values.iter().map(|_| "Tensor").collect::<Vec<_>>().join(",")
        );
    }
    for (&var, &v) in vars.iter().zip(values) {
        let (ws, vs) = (e.shape(var)?.to_vec(), e.shape(v)?.to_vec());
        if ws != vs {
            bail!(
                "Layer weight shape {} not compatible with provided weight shape {}",
                shape_text(&known(&ws)),
                shape_text(&known(&vs))
            );
        }
    }
    for ((&var, &v), constraint) in vars.iter().zip(values).zip(constraints) {
        let dtype = e.dtype(var)?;
        let ids = e.tidy(|e| {
            let mut x = e.cast(v, dtype)?;
            if let Some(c) = constraint {
                x = c.apply(e, x)?;
            }
            Ok(vec![x])
        })?;
        let r = e.assign(var, ids[0]);
        e.dispose(ids[0]);
        r?;
    }
    Ok(())
}

/// Runs a kind's build inside a scope, so that its temporaries go.
fn e_tidy_build(b: &mut Builder, kind: &mut dyn Kind, inputs: &[Shape]) -> Result<()> {
    b.e.start_scope();
    let r = kind.build(b, inputs);
    b.e.end_scope(&[]);
    r
}
