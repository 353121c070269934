//! Layers and models (`tf.layers`, `tf.sequential`, `tf.model`): the layers crate's
//! [`Layer`] and [`Model`] wrapped for `lib/layers/`. Configs cross as JSON text; tensors as ids.

use crate::serve::{self, Build, Replica, ReplicaSlot};
use crate::train::NativeOptimizer;
use crate::{engine, id};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use tidytensor_core::TensorId;
use tidytensor_layers::initializers::Initializer;
use tidytensor_layers::layer::{shape_json, MaskOut, Shape};
use tidytensor_layers::losses::Loss;
use tidytensor_layers::metrics::Metric;
use tidytensor_layers::regularizers::{Constraint, Regularizer};
use tidytensor_layers::{LayerRef, Model, Rows, Src};

fn json(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| Error::from_reason(format!("Invalid config JSON: {e}")))
}

fn ids(v: &[f64]) -> Vec<TensorId> {
    v.iter().map(|&x| id(x)).collect()
}

fn out_ids(v: Vec<TensorId>) -> Vec<f64> {
    v.into_iter().map(|t| t as f64).collect()
}

/// `[[null, 3], ...]` as shapes.
fn shapes_of(v: &Value) -> Result<Vec<Shape>> {
    let Value::Array(list) = v else { return Err(Error::from_reason("expected a list of shapes")) };
    list.iter()
        .map(|s| match s {
            Value::Array(d) => Ok(d.iter().map(|x| x.as_u64().map(|n| n as usize)).collect()),
            _ => Err(Error::from_reason("expected a shape")),
        })
        .collect()
}

fn shapes_json(s: &[Shape]) -> String {
    Value::Array(s.iter().map(|s| shape_json(s)).collect()).to_string()
}

#[napi]
pub struct NativeLayer {
    pub(crate) inner: LayerRef,
}

#[napi]
impl NativeLayer {
    /// A layer of tfjs class `class_name` from its config (JSON).
    #[napi(constructor)]
    pub fn new(class_name: String, config: String) -> Result<NativeLayer> {
        let config = json(&config)?;
        let inner = engine(|_| tidytensor_layers::layer(&class_name, &config))?;
        Ok(NativeLayer { inner })
    }

    #[napi(getter)]
    pub fn name(&self) -> String {
        self.inner.borrow().name.clone()
    }

    #[napi(getter)]
    pub fn class_name(&self) -> String {
        self.inner.borrow().class_name().to_string()
    }

    #[napi(getter)]
    pub fn built(&self) -> bool {
        self.inner.borrow().built
    }

    #[napi(getter)]
    pub fn trainable(&self) -> bool {
        self.inner.borrow().trainable
    }

    /// tfjs's `layer.trainable = v`: the layer's flag, and the trainable bit of each weight
    /// made trainable.
    #[napi(setter)]
    pub fn set_trainable(&self, v: bool) -> Result<()> {
        self.inner.borrow_mut().trainable = v;
        self.set_weights_trainable(v)
    }

    /// The trainable bit of each weight made trainable (tfjs's model.trainable sets them
    /// without the layers' flags).
    #[napi]
    pub fn set_weights_trainable(&self, v: bool) -> Result<()> {
        let l = self.inner.borrow();
        engine(|e| {
            for w in l.weights.iter().filter(|w| w.trainable) {
                e.set_trainable(w.var, v)?;
            }
            Ok(())
        })
    }

    /// Build with zero weights (the weights will be loaded from a file).
    #[napi(setter)]
    pub fn set_fast_weight_init(&self, v: bool) {
        self.inner.borrow_mut().fast_init = v;
    }

    #[napi(getter)]
    pub fn dtype(&self) -> String {
        self.inner.borrow().dtype.name().to_string()
    }

    /// `batchInputShape` from the config, as JSON (`null` when none).
    #[napi(getter)]
    pub fn batch_input_shape(&self) -> String {
        self.inner.borrow().batch_input_shape.as_ref().map_or("null".into(), |s| shape_json(s).to_string())
    }

    /// The input and output shapes of the first call, as JSON lists of shapes.
    #[napi]
    pub fn shapes(&self) -> Vec<String> {
        let l = self.inner.borrow();
        vec![shapes_json(&l.input_shapes), shapes_json(&l.output_shapes)]
    }

    /// tfjs's `getConfig()`, as JSON.
    #[napi]
    pub fn config(&self) -> String {
        self.inner.borrow().config().to_string()
    }

    /// Builds the weights for inputs of these shapes (JSON); returns the output shapes.
    #[napi]
    pub fn build(&self, input_shapes: String) -> Result<String> {
        let shapes = shapes_of(&json(&input_shapes)?)?;
        let out = engine(|e| self.inner.borrow_mut().build(e, &shapes))?;
        Ok(shapes_json(&out))
    }

    /// The output shapes for inputs of these shapes, without building.
    #[napi]
    pub fn compute_output_shape(&self, input_shapes: String) -> Result<String> {
        let shapes = shapes_of(&json(&input_shapes)?)?;
        let out = engine(|_| self.inner.borrow().kind.output_shapes(&shapes))?;
        Ok(shapes_json(&out))
    }

    /// `layer.apply(tensors, {training, mask})` on concrete tensors: the outputs, nothing else
    /// left behind. `mask` is tfjs's `kwargs.mask` (read by the recurrent layers).
    #[napi]
    pub fn apply(&self, inputs: Vec<f64>, training: bool, mask: Option<f64>) -> Result<Vec<f64>> {
        let inputs = ids(&inputs);
        let mask = mask.map(id);
        engine(|e| e.tidy(|e| self.inner.borrow_mut().call_masked(e, &inputs, mask, training))).map(out_ids)
    }

    /// tfjs's `supportsMasking`.
    #[napi(getter)]
    pub fn supports_masking(&self) -> bool {
        self.inner.borrow().kind.supports_masking()
    }

    /// tfjs's `computeMask(inputs, masks)`: one mask id (or null), or one per output; an empty
    /// list means "the masks as given" (the base Layer's pass-through). Masks returned that
    /// are not among those given are new tensors; nothing else is left behind.
    #[napi]
    pub fn compute_mask(&self, input_ids: Vec<f64>, mask_ids: Vec<Option<f64>>) -> Result<Vec<Option<f64>>> {
        let inputs = ids(&input_ids);
        let masks: Vec<Option<TensorId>> = mask_ids.iter().map(|m| m.map(id)).collect();
        engine(|e| {
            for &t in inputs.iter().chain(masks.iter().flatten()) {
                e.shape(t)?;
            }
            e.start_scope();
            let r = self.inner.borrow().compute_mask(e, &inputs, &masks);
            let list: Vec<Option<TensorId>> = match &r {
                Ok(MaskOut::Same) | Err(_) => Vec::new(),
                Ok(MaskOut::One(m)) => vec![*m],
                Ok(MaskOut::List(l)) => l.clone(),
            };
            let keep: Vec<TensorId> = list.iter().flatten().copied().collect();
            e.end_scope(&keep);
            r?;
            Ok(list.into_iter().map(|m| m.map(|t| t as f64)).collect())
        })
    }

    /// The weights' variable ids: trainable first (tfjs's `weights`).
    #[napi]
    pub fn weights(&self) -> Vec<f64> {
        out_ids(self.inner.borrow().ordered_weights())
    }

    #[napi]
    pub fn trainable_weights(&self) -> Vec<f64> {
        out_ids(self.inner.borrow().trainable_weights())
    }

    /// The original names (`layer/weight`) of the weights, in `weights()` order.
    #[napi]
    pub fn original_names(&self) -> Vec<String> {
        let l = self.inner.borrow();
        l.ordered_weights().into_iter().map(|v| l.original_name(v).unwrap_or_default().to_string()).collect()
    }

    #[napi]
    pub fn set_weights(&self, values: Vec<f64>) -> Result<()> {
        let values = ids(&values);
        engine(|e| self.inner.borrow_mut().set_weights(e, &values))
    }

    #[napi]
    pub fn count_params(&self) -> Result<f64> {
        engine(|e| Ok(self.inner.borrow().count_params(e) as f64))
    }

    /// The sum of the weights' regularization penalties, a `[1]` tensor (null: no weight has a
    /// regularizer), for models trained from JavaScript.
    #[napi]
    pub fn penalty(&self) -> Result<Option<f64>> {
        let l = self.inner.borrow();
        if l.weights.iter().all(|w| w.regularizer.is_none()) {
            return Ok(None);
        }
        crate::make(|e| {
            e.tidy(|e| {
                let mut total: Option<TensorId> = None;
                for w in &l.weights {
                    if let Some(r) = &w.regularizer {
                        let p = r.penalty(e, w.var)?;
                        total = Some(match total {
                            Some(t) => e.add(t, p)?,
                            None => p,
                        });
                    }
                }
                Ok(vec![total.ok_or_else(|| tidytensor_core::Error::new("no regularizer".to_string()))?])
            })
            .map(|v| v[0])
        })
        .map(Some)
    }

    /// Whether it keeps states between calls (a stateful recurrent layer).
    #[napi(getter)]
    pub fn stateful(&self) -> bool {
        self.inner.borrow().kind.stateful()
    }

    /// tfjs's `resetStates(states?)`: the kept states set to zeros, or to copies of `states`.
    #[napi]
    pub fn reset_states(&self, states: Option<Vec<f64>>) -> Result<()> {
        let states = states.map(|s| ids(&s));
        engine(|e| self.inner.borrow_mut().reset_states(e, states.as_deref()))
    }

    /// Disposes the weights; returns how many variables went.
    #[napi]
    pub fn dispose(&self) -> Result<f64> {
        engine(|e| Ok(self.inner.borrow_mut().dispose_weights(e) as f64))
    }
}

#[napi]
pub struct NativeModel {
    inner: Model,
    /// Its replica on the serving thread (`predict_async`).
    replica: ReplicaSlot,
}

#[napi]
impl NativeModel {
    /// `tf.sequential({layers, name})`.
    #[napi(factory)]
    pub fn sequential(name: Option<String>, layers: Vec<&NativeLayer>) -> Result<NativeModel> {
        let layers: Vec<LayerRef> = layers.iter().map(|l| l.inner.clone()).collect();
        let inner = engine(|e| Model::sequential(e, name.as_deref(), layers))?;
        Ok(NativeModel { inner, replica: ReplicaSlot::default() })
    }

    /// `tf.model({inputs, outputs})`: `layers[i]` is called on `wiring[i]`, a list of
    /// `[source, output]` pairs (source -1 - k: model input k; else an earlier call);
    /// `outputs` the same pairs.
    #[napi(factory)]
    pub fn functional(
        name: Option<String>,
        layers: Vec<&NativeLayer>,
        wiring: String,
        n_inputs: u32,
        outputs: String,
    ) -> Result<NativeModel> {
        let src = |v: &Value| -> Result<Src> {
            let a = v.as_array().filter(|a| a.len() == 2).ok_or_else(|| Error::from_reason("bad wiring"))?;
            let (s, o) = (a[0].as_i64().unwrap_or(0), a[1].as_u64().unwrap_or(0) as usize);
            Ok(if s < 0 { Src::Input((-1 - s) as usize) } else { Src::Node(s as usize, o) })
        };
        let wiring = json(&wiring)?;
        let lists = wiring.as_array().ok_or_else(|| Error::from_reason("bad wiring"))?;
        let mut nodes = Vec::new();
        for (l, ins) in layers.iter().zip(lists) {
            let ins = ins.as_array().ok_or_else(|| Error::from_reason("bad wiring"))?;
            nodes.push((l.inner.clone(), ins.iter().map(src).collect::<Result<Vec<_>>>()?));
        }
        let outputs = json(&outputs)?;
        let outputs = outputs
            .as_array()
            .ok_or_else(|| Error::from_reason("bad outputs"))?
            .iter()
            .map(src)
            .collect::<Result<Vec<_>>>()?;
        let inner = engine(|e| Model::functional(e, name.as_deref(), nodes, n_inputs as usize, outputs))?;
        Ok(NativeModel { inner, replica: ReplicaSlot::default() })
    }

    #[napi(getter)]
    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    #[napi]
    pub fn add(&mut self, layer: &NativeLayer) -> Result<()> {
        let l = layer.inner.clone();
        engine(|e| self.inner.add(e, l))
    }

    #[napi]
    pub fn pop(&mut self) -> Result<()> {
        engine(|_| self.inner.pop())
    }

    /// `[inputShapes, outputShapes, inputNames]` as JSON.
    #[napi]
    pub fn io(&self) -> Vec<String> {
        vec![
            shapes_json(&self.inner.input_shapes),
            shapes_json(&self.inner.output_shapes()),
            Value::from(self.inner.input_names.clone()).to_string(),
        ]
    }

    /// `compile`: the optimizer (`owns`: made by compile from a name, disposed with the
    /// model), a loss name per output (or one for all), metric names.
    #[napi]
    pub fn compile(
        &mut self,
        optimizer: &NativeOptimizer,
        owns: bool,
        losses: Vec<String>,
        metrics: Vec<String>,
    ) -> Result<()> {
        let losses: Vec<&str> = losses.iter().map(String::as_str).collect();
        let metrics: Vec<&str> = metrics.iter().map(String::as_str).collect();
        let opt = optimizer.inner.clone();
        engine(|e| self.inner.compile_with(e, opt, owns, &losses, &metrics))
    }

    #[napi]
    pub fn metric_names(&self) -> Vec<String> {
        self.inner.metric_names()
    }

    /// The layers' names in the model's order (tfjs's, by depth for functional models).
    #[napi]
    pub fn layer_names(&self) -> Vec<String> {
        self.inner.layer_names()
    }

    #[napi]
    pub fn predict(&self, inputs: Vec<f64>, batch_size: u32) -> Result<Vec<f64>> {
        let inputs = ids(&inputs);
        engine(|e| self.inner.predict(e, &inputs, batch_size as usize)).map(out_ids)
    }

    /// `model.predictAsync(x, {batchSize})`: `predict` on the serving thread. A Promise of the
    /// outputs' ids, this thread's tensors once it resolves.
    #[napi(ts_return_type = "Promise<number[]>")]
    pub fn predict_async<'e>(&self, env: &'e Env, inputs: Vec<f64>, batch_size: u32) -> Result<Object<'e>> {
        let model = &self.inner;
        engine(|e| model.check_inputs(e, &ids(&inputs)))?;
        let key =
            |e: &tidytensor_core::Engine| model.weights().into_iter().map(|w| Ok(e.export(w)?.data_id())).collect();
        let source = |e: &mut tidytensor_core::Engine| -> tidytensor_core::Result<Build> {
            let source = model.replica_source(e)?;
            Ok(Box::new(move |e| source.load(e).map(Replica::Model)))
        };
        serve::predict(env, &self.replica, key, source, &inputs, move |e, replica, xs| {
            let Replica::Model(m) = replica else { tidytensor_core::bail!("Not a layers model's replica") };
            m.predict(e, &xs, batch_size as usize)
        })
    }

    /// The outputs of a forward pass (`model.apply(x, {training})`).
    #[napi]
    pub fn apply(&self, inputs: Vec<f64>, training: bool) -> Result<Vec<f64>> {
        let inputs = ids(&inputs);
        engine(|e| e.tidy(|e| self.inner.forward(e, &inputs, training))).map(out_ids)
    }

    /// One training step on rows `start..end` of `xs`/`ys`, or on the rows `indices`.
    #[napi]
    pub fn train_batch(
        &mut self,
        xs: Vec<f64>,
        ys: Vec<f64>,
        start: u32,
        end: u32,
        indices: Option<Int32Array>,
        class_weight: Option<Vec<f64>>,
    ) -> Result<Vec<f64>> {
        let (xs, ys) = (ids(&xs), ids(&ys));
        let rows = match &indices {
            Some(i) => Rows::Indices(i.as_ref()),
            None => Rows::Range(start as usize, end as usize),
        };
        engine(|e| self.inner.train_batch(e, &xs, &ys, rows, class_weight.as_deref()))
    }

    #[napi]
    pub fn evaluate(&self, xs: Vec<f64>, ys: Vec<f64>, batch_size: u32) -> Result<Vec<f64>> {
        let (xs, ys) = (ids(&xs), ids(&ys));
        engine(|e| self.inner.evaluate(e, &xs, &ys, batch_size as usize))
    }

    /// Variable ids: `[weights (trainable first), trainable, non-trainable, getWeights order]`.
    #[napi]
    pub fn weight_ids(&self) -> Vec<Vec<f64>> {
        vec![
            out_ids(self.inner.weights()),
            out_ids(self.inner.trainable_weights()),
            out_ids(self.inner.non_trainable_weights()),
            out_ids(self.inner.layer_ordered_weights()),
        ]
    }

    #[napi]
    pub fn set_weights(&self, values: Vec<f64>) -> Result<()> {
        let values = ids(&values);
        engine(|e| self.inner.set_weights(e, &values))
    }

    /// The original names (`layer/weight`, as model files name them) of these weights.
    #[napi]
    pub fn original_names(&self, vars: Vec<f64>) -> Vec<String> {
        self.inner.original_names(&ids(&vars))
    }

    #[napi]
    pub fn count_params(&self) -> Result<f64> {
        engine(|e| Ok(self.inner.count_params(e) as f64))
    }

    /// `summary()` rows as JSON: `[name (class), output shape, params, inbound]`.
    #[napi]
    pub fn summary_rows(&self) -> Result<String> {
        engine(|e| Ok(serde_json::to_string(&self.inner.summary_rows(e)).unwrap_or_default()))
    }

    /// The Keras topology (`model.toJSON()`), as JSON.
    #[napi]
    pub fn topology(&self) -> String {
        self.inner.topology().to_string()
    }

    /// `[refCountAfterDispose, numDisposedVariables]`.
    #[napi]
    pub fn dispose(&mut self) -> Result<Vec<f64>> {
        self.replica.release();
        engine(|e| self.inner.dispose(e)).map(|(r, n)| vec![r as f64, n as f64])
    }
}

/// `initializer.apply(shape, dtype)`: the values the initializer (`{className, config}` as
/// JSON) gives a weight of `shape`.
#[napi]
pub fn initializer_apply(config_json: String, shape: Vec<i64>, dtype: String) -> Result<f64> {
    let v = json(&config_json)?;
    crate::make(|e| {
        let init = Initializer::parse(&v)?;
        let shape = tidytensor_core::shape::from_user(&shape)?;
        init.make(e, &shape, crate::parse_dtype(&dtype)?)
    })
}

/// `regularizer.apply(x)`: the regularizer's penalty of `x`, a `[1]` tensor (temporaries stay
/// in the caller's scope).
#[napi]
pub fn regularizer_apply(config_json: String, x: f64) -> Result<f64> {
    let v = json(&config_json)?;
    crate::make(|e| Regularizer::parse(&v)?.penalty(e, id(x)))
}

/// `constraint.apply(w)`: `w` as the constraint (`{className, config}` as JSON) projects it.
#[napi]
pub fn constraint_apply(config_json: String, w: f64) -> Result<f64> {
    let v = json(&config_json)?;
    crate::make(|e| Constraint::parse(&v)?.apply(e, id(w)))
}

/// tfjs's `getUid(prefix)`: layers defined in JavaScript draw their default names from the
/// same counters as the native ones (`dense_1`, `my_layer_2`).
#[napi]
pub fn layer_uid(prefix: String) -> String {
    tidytensor_layers::layer::uid(&prefix)
}

/// tfjs's `getUniqueTensorName`: the name of a weight made in JavaScript, unique among the
/// native layers' weights too.
#[napi]
pub fn unique_tensor_name(name: String) -> Result<String> {
    engine(|e| Ok(tidytensor_layers::layer::unique_tensor_name(e, &name)))
}

/// The per-sample values of tfjs-layers' loss `name` (the losses `compile` takes by name), for
/// models trained from JavaScript; recorded on the tape like any op.
#[napi]
pub fn loss_values(name: String, y_true: f64, y_pred: f64) -> Result<f64> {
    crate::make(|e| Loss::named(&name)?.compute(e, id(y_true), id(y_pred)))
}

/// How `compile` resolves metric `name` for an output of `last_dim` values trained with the
/// loss named `loss` (null: a JavaScript function): `[metric, log name]`.
#[napi]
pub fn metric_resolve(name: String, loss: Option<String>, last_dim: Option<u32>) -> Result<Vec<String>> {
    engine(|_| {
        let loss = loss.as_deref().map(Loss::named).transpose()?;
        let (m, log) = Metric::resolve(&name, loss, last_dim.map(|d| d as usize))?;
        Ok(vec![m.name().to_string(), log])
    })
}

/// The per-sample values of metric `name` (as [`metric_resolve`] names it).
#[napi]
pub fn metric_values(name: String, y_true: f64, y_pred: f64) -> Result<f64> {
    crate::make(|e| Metric::named(&name)?.compute(e, id(y_true), id(y_pred)))
}

/// `tf.metrics.sparseCategoricalAccuracy` with tfjs's squeeze decision made by the caller (a
/// TensorLike prediction has no rank in tfjs, so the labels are not squeezed).
#[napi]
pub fn sparse_categorical_accuracy(y_true: f64, y_pred: f64, squeeze: bool) -> Result<f64> {
    crate::make(|e| tidytensor_layers::metrics::sparse_categorical_accuracy(e, id(y_true), id(y_pred), squeeze))
}

/// The optimizer `compile` makes for a name (tfjs-layers' `getOptimizer`): `[factory, ...args]`
/// of `tf.train`, from the layers crate's table.
#[napi(object)]
pub struct OptimizerDefaults {
    pub factory: String,
    pub args: Vec<f64>,
}

#[napi]
pub fn optimizer_defaults(name: String) -> Result<OptimizerDefaults> {
    let (factory, args) =
        tidytensor_layers::model::optimizer_defaults(&name).map_err(|e| Error::from_reason(e.to_string()))?;
    Ok(OptimizerDefaults { factory: factory.to_string(), args })
}
