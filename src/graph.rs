//! Graph models (`tf.loadGraphModel`, `GraphModel.execute`): the graph crate's [`Graph`]
//! wrapped for `lib/`. The topology crosses as JSON text, tensors as ids; the weights are
//! decoded in JavaScript and handed over (the graph owns them from then on).

use crate::serve::{self, Build, Replica, ReplicaSlot};
use crate::{engine, id};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tidytensor_core::{bail, DType, TensorId};
use tidytensor_graph::{AttrValue, ExecuteOptions, Execution, Graph, Limits, TensorSpec};

/// `[{name, op, shape, dtype, signatureKey}]`: what `GraphModel.inputs`/`outputs` and
/// `inputNodes`/`outputNodes` show (-1 for an unknown dimension; null for an unknown shape or
/// dtype, or no key).
fn specs_json(specs: &[TensorSpec]) -> String {
    let spec = |s: &TensorSpec| {
        let shape = s.shape.as_ref().map(|d| d.iter().map(|d| d.map_or(-1, |d| d as i64)).collect::<Vec<_>>());
        serde_json::json!({
            "name": s.name,
            "op": s.op,
            "shape": shape,
            "dtype": s.dtype.map(|d| d.name()),
            "signatureKey": s.signature_key,
        })
    };
    Value::Array(specs.iter().map(spec).collect()).to_string()
}

/// A custom op attribute as JavaScript gets it (tfjs's `NodeValueImpl`): an unknown shape is
/// `undefined`, a type tfjs has no dtype for `null`, a `b` value as the GraphDef holds it.
fn attr_js<'e>(env: &'e Env, v: &AttrValue) -> Result<Unknown<'e>> {
    let dtype = |d: &Option<DType>| d.map(|d| d.name().to_string());
    let shape = |s: &Option<Vec<i64>>| match s {
        Some(d) => d.iter().map(|&v| v as f64).collect::<Vec<f64>>().into_unknown(env),
        None => ().into_unknown(env),
    };
    match v {
        AttrValue::Number(x) => x.into_unknown(env),
        AttrValue::Numbers(x) => x.clone().into_unknown(env),
        AttrValue::String(x) => x.clone().into_unknown(env),
        AttrValue::Strings(x) => x.clone().into_unknown(env),
        AttrValue::Bool(b) => json_js(env, b),
        AttrValue::Bools(b) => b.iter().map(|x| json_js(env, x)).collect::<Result<Vec<_>>>()?.into_unknown(env),
        AttrValue::Shape(s) => shape(s),
        AttrValue::Shapes(v) => v.iter().map(shape).collect::<Result<Vec<_>>>()?.into_unknown(env),
        AttrValue::DType(d) => dtype(d).into_unknown(env),
        AttrValue::DTypes(d) => d.iter().map(dtype).collect::<Vec<_>>().into_unknown(env),
        AttrValue::Undefined => ().into_unknown(env),
    }
}

/// A GraphDef value handed over as it is: scalars as themselves, anything else as its JSON text.
fn json_js<'e>(env: &'e Env, v: &Value) -> Result<Unknown<'e>> {
    match v {
        Value::Bool(b) => b.into_unknown(env),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN).into_unknown(env),
        Value::String(s) => s.clone().into_unknown(env),
        Value::Null => Null.into_unknown(env),
        other => other.to_string().into_unknown(env),
    }
}

/// What `execute` gives back: the outputs, and with `keep_intermediates` what tfjs's
/// `getIntermediateTensors` holds, as parallel lists (node name, output index, tensor: the
/// caller's to keep).
#[napi(object)]
pub struct Executed {
    pub outputs: Vec<f64>,
    pub kept_names: Vec<String>,
    pub kept_indices: Vec<u32>,
    pub kept_ids: Vec<f64>,
}

#[napi]
pub struct NativeGraph {
    /// Shared with the executions in progress, which read it between their slices.
    inner: Rc<Graph>,
    /// Its replica on the serving thread (`execute_off_thread`).
    replica: ReplicaSlot,
}

self_cell::self_cell!(
    /// An execution and the graph it runs, kept alive together between slices.
    struct Running {
        owner: Rc<Graph>,
        #[covariant]
        dependent: Execution,
    }
);

/// `executeAsync`'s native half: an execution with control flow that JavaScript resumes slice
/// by slice, so that timers and I/O run between slices and an `AbortSignal` can end it.
#[napi]
pub struct NativeExecution {
    /// `None` once it has ended.
    running: Option<Running>,
}

#[napi]
impl NativeExecution {
    /// Runs for about `slice_ms` milliseconds (the node running then finishes first); returns
    /// the outputs' ids, in the caller's scope, once the execution has ended, else null. On
    /// error everything it made is disposed.
    #[napi]
    pub fn resume(&mut self, slice_ms: f64) -> Result<Option<Vec<f64>>> {
        let Some(running) = self.running.as_mut() else {
            return Err(Error::from_reason("This execution has ended"));
        };
        let deadline = Instant::now() + Duration::from_secs_f64(slice_ms.clamp(0.0, 1e9) / 1000.0);
        let result = engine(|e| running.with_dependent_mut(|_, x| x.resume(e, Some(deadline))));
        if !matches!(result, Ok(None)) {
            self.running = None;
        }
        result.map(|ids| ids.map(out_ids))
    }

    /// The custom op node (tf.registerOp) the execution stopped at, if it did:
    /// `{node, op, attrs, inputs}`, its name, op, attributes as tfjs decodes them for the op,
    /// and input tensors (the execution's: to read, never to dispose).
    #[napi(ts_return_type = "{ node: string, op: string, attrs: Record<string, unknown>, inputs: number[] } | null")]
    pub fn custom_request<'e>(&self, env: &'e Env) -> Result<Option<Object<'e>>> {
        let Some(running) = self.running.as_ref() else { return Ok(None) };
        running.with_dependent(|_, x| {
            let Some((node, op, ins)) = x.custom_request() else { return Ok(None) };
            let mut attrs = Object::new(env)?;
            for (name, value) in x.custom_attrs().unwrap_or_default() {
                attrs.set_named_property(name, attr_js(env, value)?)?;
            }
            let mut obj = Object::new(env)?;
            obj.set_named_property("node", node)?;
            obj.set_named_property("op", op)?;
            obj.set_named_property("attrs", attrs)?;
            obj.set_named_property("inputs", ins.iter().map(|&t| t as f64).collect::<Vec<_>>())?;
            Ok(Some(obj))
        })
    }

    /// The outputs of the custom op node the execution stopped at (the execution owns them
    /// from now on); resume goes on after it. On error the execution ends, disposing
    /// everything it made.
    #[napi]
    pub fn provide(&mut self, outputs: Vec<f64>) -> Result<()> {
        let Some(running) = self.running.as_mut() else {
            return Err(Error::from_reason("This execution has ended"));
        };
        let outputs: Vec<TensorId> = outputs.into_iter().map(id).collect();
        let result = engine(|e| running.with_dependent_mut(|_, x| x.provide(e, outputs)));
        if result.is_err() {
            self.running = None;
        }
        result
    }

    /// Whether the execution uses a dynamic node (control flow, dynamic shapes, hash tables):
    /// tfjs's `executeAsync` warns when it does not. Read before it ends (false after).
    #[napi(getter)]
    pub fn dynamic(&self) -> bool {
        self.running.as_ref().is_some_and(|r| r.with_dependent(|_, x| x.has_dynamic()))
    }

    /// Ends the execution now, disposing everything it made (nothing when it has ended).
    #[napi]
    pub fn abort(&mut self) -> Result<()> {
        match self.running.take() {
            Some(mut running) => engine(|e| {
                running.with_dependent_mut(|_, x| x.abort(e));
                Ok(())
            }),
            None => Ok(()),
        }
    }
}

/// A serialized ONNX TensorProto as a tensor (its id): the data of ONNX's backend tests.
#[napi]
pub fn decode_onnx_tensor(bytes: Uint8Array) -> Result<f64> {
    Ok(engine(|e| tidytensor_graph::onnx::decode_tensor(e, &bytes))? as f64)
}

#[napi]
impl NativeGraph {
    /// Parses the GraphDef (`modelTopology` as JSON, or `{modelTopology, modelInitializer,
    /// signature}` with the signature as `{inputs: [[key, tensor name]...], outputs}`) and
    /// takes ownership of the weights, one per `Const` node, named as their nodes. On error the
    /// weights given are disposed.
    #[napi(factory)]
    pub fn load(topology_json: String, weight_names: Vec<String>, weight_ids: Vec<f64>) -> Result<NativeGraph> {
        let inner = engine(|e| {
            let ids: Vec<TensorId> = weight_ids.iter().map(|&x| id(x)).collect();
            if weight_names.len() != ids.len() {
                for &t in &ids {
                    e.dispose(t);
                }
                bail!("{} weight names but {} weight tensors", weight_names.len(), ids.len());
            }
            let weights: Vec<(String, TensorId)> = weight_names.into_iter().zip(ids).collect();
            Graph::load(e, &topology_json, &weights)
        })?;
        crate::trim_heap();
        Ok(NativeGraph { inner: Rc::new(inner), replica: ReplicaSlot::default() })
    }

    /// An ONNX model (`tf.loadOnnxModel`): the `.onnx` file's bytes, and the model's folder
    /// where its external data files lie (none for a model from bytes or a URL).
    #[napi(factory)]
    pub fn load_onnx(bytes: Uint8Array, folder: Option<String>) -> Result<NativeGraph> {
        let folder = folder.map(std::path::PathBuf::from);
        let inner = engine(|e| tidytensor_graph::onnx::load(e, &bytes, folder.as_deref()))?;
        Ok(NativeGraph { inner: Rc::new(inner), replica: ReplicaSlot::default() })
    }

    /// Runs the nodes the outputs need (`name`, `name:k` or a signature key), fed the given
    /// tensors (id 0: a value that is no tensor, refused with tfjs's text); returns the
    /// outputs' ids, in the caller's scope. Every check of `GraphModel.execute` is made here.
    /// `as_async`: `executeAsync` on a graph without control flow (its error texts);
    /// `keep_intermediates`: KEEP_INTERMEDIATE_TENSORS's tensors too.
    #[napi]
    pub fn execute(
        &self,
        input_names: Vec<String>,
        input_ids: Vec<f64>,
        output_names: Vec<String>,
        as_async: bool,
        keep_intermediates: bool,
    ) -> Result<Executed> {
        let options = ExecuteOptions { as_async, keep_intermediates };
        let x = engine(|e| self.inner.execute_with(e, &feeds(input_names, &input_ids)?, &output_names, options))?;
        let (mut kept_names, mut kept_indices, mut kept_ids) = (Vec::new(), Vec::new(), Vec::new());
        for (name, k, t) in x.kept {
            kept_names.push(name);
            kept_indices.push(k as u32);
            kept_ids.push(t as f64);
        }
        Ok(Executed { outputs: out_ids(x.outputs), kept_names, kept_indices, kept_ids })
    }

    /// `executeAsync` of a graph without control flow, and `predictAsync`: the execution
    /// `execute` runs (its checks and texts), on the serving thread. A Promise of the outputs'
    /// ids, this thread's tensors once it resolves.
    #[napi(ts_return_type = "Promise<number[]>")]
    pub fn execute_off_thread<'e>(
        &self,
        env: &'e Env,
        input_names: Vec<String>,
        input_ids: Vec<f64>,
        output_names: Vec<String>,
    ) -> Result<Object<'e>> {
        if input_names.len() != input_ids.len() {
            return Err(Error::from_reason(format!(
                "{} input names but {} input tensors",
                input_names.len(),
                input_ids.len()
            )));
        }
        let graph = &self.inner;
        let source = |e: &mut tidytensor_core::Engine| -> tidytensor_core::Result<Build> {
            let source = graph.replica_source(e)?;
            Ok(Box::new(move |e| source.load(e).map(Replica::Graph)))
        };
        // A graph's weights never change.
        serve::predict(
            env,
            &self.replica,
            |_| Ok(Vec::new()),
            source,
            &input_ids,
            move |e, replica, xs| {
                let Replica::Graph(g) = replica else { bail!("Not a graph model's replica") };
                let feeds: Vec<(String, TensorId)> = input_names.into_iter().zip(xs).collect();
                let options = ExecuteOptions { as_async: true, keep_intermediates: false };
                Ok(g.execute_with(e, &feeds, &output_names, options)?.outputs)
            },
        )
    }

    /// Starts `executeAsync`'s native half ([`NativeExecution`]): the nodes the outputs need,
    /// with control flow (loops, conditionals, tensor arrays and lists) and dynamic ops
    /// (non-max suppression, Where, ListDiff), fed the given tensors, within the limits
    /// (`max_loop_iterations` 0: none); nodes of `custom_ops` (tf.registerOp's) stop it for
    /// JavaScript to run them. The feeds and outputs are checked here (as `execute` takes
    /// them); `as_execute`: for `execute` on a graph with custom ops, refusing what `execute`
    /// refuses (dynamic ops, missing inputs) first.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn start_control_flow(
        &self,
        input_names: Vec<String>,
        input_ids: Vec<f64>,
        output_names: Vec<String>,
        max_call_depth: f64,
        max_loop_iterations: f64,
        custom_ops: Vec<String>,
        as_execute: bool,
    ) -> Result<NativeExecution> {
        let limits = Limits {
            max_call_depth: max_call_depth.clamp(0.0, usize::MAX as f64) as usize,
            max_loop_iterations: (max_loop_iterations >= 1.0).then_some(max_loop_iterations as u64),
        };
        let running = engine(|e| {
            let feeds = feeds(input_names, &input_ids)?;
            if as_execute {
                self.inner.check_execute(e, &feeds, &output_names)?;
            }
            Running::try_new(self.inner.clone(), |g| {
                g.start(e, &feeds, &output_names, limits).map(|x| x.with_custom_ops(custom_ops))
            })
        })?;
        Ok(NativeExecution { running: Some(running) })
    }

    /// Runs the model initializer (which fills the lookup tables), with control flow when
    /// `control_flow` (`executeAsync`'s first call) or as `execute` does; returns the ids of
    /// `output_names` (the table handles the initializer signature names).
    #[napi]
    pub fn initialize(&self, output_names: Vec<String>, control_flow: bool) -> Result<Vec<f64>> {
        engine(|e| self.inner.initialize(e, &output_names, control_flow)).map(out_ids)
    }

    /// Whether the model has an initializer graph (model.json's `modelInitializer`).
    #[napi(getter)]
    pub fn has_initializer(&self) -> bool {
        self.inner.has_initializer()
    }

    /// `GraphModel.inputs`, as JSON (see `specs_json`): the signature's inputs, else the
    /// placeholders.
    #[napi]
    pub fn inputs(&self) -> String {
        specs_json(&self.inner.inputs())
    }

    /// `GraphModel.outputs`, as JSON (see `specs_json`): the signature's outputs, else the
    /// nodes no node consumes.
    #[napi]
    pub fn outputs(&self) -> String {
        specs_json(&self.inner.outputs())
    }

    /// The distinct ops of the graph's nodes (whether a registered custom op is among them).
    #[napi]
    pub fn ops(&self) -> Vec<String> {
        self.inner.ops().into_iter().map(str::to_string).collect()
    }

    #[napi]
    pub fn weight_names(&self) -> Vec<String> {
        self.inner.weight_names()
    }

    #[napi]
    pub fn weight_ids(&self) -> Vec<f64> {
        self.inner.weight_ids().into_iter().map(|t| t as f64).collect()
    }

    /// Whether some executions need control flow (`executeAsync` in tfjs).
    #[napi(getter)]
    pub fn control_flow(&self) -> bool {
        self.inner.control_flow()
    }

    /// Disposes the weights; returns how many tensors went. Executions in progress are
    /// aborted first (by the caller).
    #[napi]
    pub fn dispose(&mut self) -> Result<f64> {
        let Some(inner) = Rc::get_mut(&mut self.inner) else {
            return Err(Error::from_reason("This graph model has executions in progress: abort them first"));
        };
        self.replica.release();
        engine(|e| Ok(inner.dispose(e) as f64))
    }
}

/// The feeds of an execution: input names paired with their tensors.
fn feeds(names: Vec<String>, ids: &[f64]) -> tidytensor_core::Result<Vec<(String, TensorId)>> {
    if names.len() != ids.len() {
        bail!("{} input names but {} input tensors", names.len(), ids.len());
    }
    Ok(names.into_iter().zip(ids.iter().map(|&x| id(x))).collect())
}

fn out_ids(ids: Vec<TensorId>) -> Vec<f64> {
    ids.into_iter().map(|t| t as f64).collect()
}
