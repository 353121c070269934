//! Graph models (`tf.loadGraphModel`, `GraphModel.execute`): the graph crate's [`Graph`]
//! wrapped for `lib/`. The topology crosses as JSON text, tensors as ids; the weights are
//! decoded in JavaScript and handed over (the graph owns them from then on).

use crate::{engine, id};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;
use tidytensor_core::{bail, TensorId};
use tidytensor_graph::{Graph, TensorSpec};

fn specs_json(specs: &[TensorSpec]) -> String {
    Value::Array(specs.iter().map(TensorSpec::to_json).collect()).to_string()
}

#[napi]
pub struct NativeGraph {
    inner: Graph,
}

#[napi]
impl NativeGraph {
    /// Parses the GraphDef (`modelTopology` as JSON) and takes ownership of the weights, one
    /// per `Const` node, named as their nodes. On error the weights given are disposed.
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
        Ok(NativeGraph { inner })
    }

    /// Runs the nodes the outputs need (`name` or `name:k`), fed the given tensors; returns
    /// the outputs' ids, in the caller's scope.
    #[napi]
    pub fn execute(
        &self,
        input_names: Vec<String>,
        input_ids: Vec<f64>,
        output_names: Vec<String>,
    ) -> Result<Vec<f64>> {
        engine(|e| self.inner.execute(e, &feeds(input_names, &input_ids)?, &output_names)).map(out_ids)
    }

    /// `executeAsync`'s native half: runs the nodes the outputs need with control flow
    /// (loops, conditionals, tensor arrays and lists) and dynamic ops (non-max suppression,
    /// Where, ListDiff), fed the given tensors; returns the outputs' ids, in the caller's
    /// scope. Synchronous: every value it reads is local.
    #[napi]
    pub fn execute_control_flow(
        &self,
        input_names: Vec<String>,
        input_ids: Vec<f64>,
        output_names: Vec<String>,
    ) -> Result<Vec<f64>> {
        engine(|e| self.inner.execute_async(e, &feeds(input_names, &input_ids)?, &output_names)).map(out_ids)
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

    /// `[{name, shape, dtype}]` of the placeholders, in graph order (JSON; unknown dims and
    /// shapes are null).
    #[napi]
    pub fn inputs(&self) -> String {
        specs_json(&self.inner.inputs())
    }

    /// `[{name, shape, dtype}]` of the nodes no node consumes (JSON; null when unknown).
    #[napi]
    pub fn outputs(&self) -> String {
        specs_json(&self.inner.outputs())
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

    /// Disposes the weights; returns how many tensors went.
    #[napi]
    pub fn dispose(&mut self) -> Result<f64> {
        let inner = &mut self.inner;
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
