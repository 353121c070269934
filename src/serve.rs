//! Predictions off the JavaScript thread (`executeAsync`, `predictAsync`). A model gets a
//! replica on the serving thread (`tidytensor_backends::serve`) on first use: built there from
//! its topology, over the same weight buffers. A prediction hands its inputs' buffers over,
//! runs there, and the Promise resolves on this thread with the outputs adopted by this
//! thread's engine; this thread runs JavaScript meanwhile.

use crate::promise::Settle;
use crate::{engine, id};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use tidytensor_backends::serve::submit;
use tidytensor_core::{DataId, Engine, Shared, TensorId};
use tidytensor_graph::Graph;
use tidytensor_layers::Model;

/// A model as the serving thread holds it.
pub(crate) enum Replica {
    Graph(Graph),
    Model(Model),
    /// Building it failed: each prediction is refused with this text.
    Failed(String),
}

thread_local! {
    /// The replicas, on the serving thread (empty on every other thread).
    static REPLICAS: RefCell<HashMap<u64, Replica>> = RefCell::default();
}

/// Builds a replica on the serving thread.
pub(crate) type Build = Box<dyn FnOnce(&mut Engine) -> tidytensor_core::Result<Replica> + Send>;

/// A model's replica on the serving thread, built on first use, and built again when the
/// model's weights have changed since (a layers model trained or given new weights: `key` holds
/// the buffers of its weights). Dropped with its model (or at the model's `dispose`), it
/// removes the replica once the predictions queued before have run.
#[derive(Default)]
pub(crate) struct ReplicaSlot {
    id: Cell<Option<u64>>,
    key: RefCell<Vec<DataId>>,
}

impl ReplicaSlot {
    /// The replica's id, queuing its build (from what `source` gives) on first use or when
    /// `key` changed.
    fn get(
        &self,
        e: &mut Engine,
        key: Vec<DataId>,
        backend: &'static str,
        source: impl FnOnce(&mut Engine) -> tidytensor_core::Result<Build>,
    ) -> tidytensor_core::Result<u64> {
        if *self.key.borrow() != key {
            self.release();
        }
        if let Some(r) = self.id.get() {
            return Ok(r);
        }
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let build = source(e)?;
        let r = NEXT.fetch_add(1, Ordering::Relaxed);
        submit(Box::new(move |e| {
            let before = e.live_tensors();
            // On the caller's backend, where the weights are.
            let built = tidytensor_backends::set_backend(e, backend).and_then(|()| build(e));
            let replica = built.unwrap_or_else(|err| {
                // What a failed build made goes (its variables are in no scope).
                let kept: HashSet<TensorId> = before.into_iter().collect();
                e.live_tensors().into_iter().filter(|t| !kept.contains(t)).for_each(|t| e.dispose(t));
                Replica::Failed(err.0)
            });
            REPLICAS.with(|m| m.borrow_mut().insert(r, replica));
        }))?;
        self.id.set(Some(r));
        *self.key.borrow_mut() = key;
        Ok(r)
    }

    /// Removes the replica (after the jobs queued before), disposing its weights there.
    pub(crate) fn release(&self) {
        let Some(r) = self.id.take() else { return };
        let _ = submit(Box::new(move |e| match REPLICAS.with(|m| m.borrow_mut().remove(&r)) {
            Some(Replica::Graph(mut g)) => {
                g.dispose(e);
            }
            Some(Replica::Model(mut m)) => {
                let _ = m.dispose(e);
            }
            _ => {}
        }));
    }
}

impl Drop for ReplicaSlot {
    fn drop(&mut self) {
        self.release();
    }
}

/// Runs one prediction on a model's replica: `source` makes the replica on first use, `run`
/// computes the outputs from the adopted inputs there (inside a scope: what else it makes
/// goes). Returns the Promise of the outputs' ids, owned by this thread's engine. The inputs
/// are held (not copied) until the prediction ends, whatever JavaScript disposes meanwhile.
pub(crate) fn predict<'e>(
    env: &'e Env,
    slot: &ReplicaSlot,
    key: impl FnOnce(&Engine) -> tidytensor_core::Result<Vec<DataId>>,
    source: impl FnOnce(&mut Engine) -> tidytensor_core::Result<Build>,
    inputs: &[f64],
    run: impl FnOnce(&mut Engine, &Replica, Vec<TensorId>) -> tidytensor_core::Result<Vec<TensorId>> + Send + 'static,
) -> Result<Object<'e>> {
    let (r, backend, feeds) = engine(|e| {
        let feeds = inputs.iter().map(|&x| e.export(id(x))).collect::<tidytensor_core::Result<Vec<Shared>>>()?;
        let backend = e.backend_name().unwrap_or("cpu");
        let key = key(e)?;
        Ok((slot.get(e, key, backend, source)?, backend, feeds))
    })?;
    let (mut settle, promise) = Settle::<Vec<f64>>::new(env, "prediction")?;
    // On failure to queue, `settle` rejects the Promise as it drops.
    let _ = submit(Box::new(move |e| {
        let outputs = run_replica(e, r, backend, feeds, run);
        settle.finish(move |_| {
            let outputs = outputs.map_err(|err| Error::from_reason(err.0))?;
            engine(|e| Ok(outputs.into_iter().map(|s| e.adopt(s) as f64).collect()))
        });
    }));
    Ok(promise)
}

fn run_replica(
    e: &mut Engine,
    r: u64,
    backend: &str,
    feeds: Vec<Shared>,
    run: impl FnOnce(&mut Engine, &Replica, Vec<TensorId>) -> tidytensor_core::Result<Vec<TensorId>>,
) -> tidytensor_core::Result<Vec<Shared>> {
    tidytensor_backends::set_backend(e, backend)?;
    REPLICAS.with(|m| {
        let replicas = m.borrow();
        let Some(replica) = replicas.get(&r) else {
            tidytensor_core::bail!("The model was disposed before its prediction ran")
        };
        if let Replica::Failed(why) = replica {
            tidytensor_core::bail!("{why}");
        }
        let ids = e.tidy(|e| {
            let xs = feeds.into_iter().map(|s| e.adopt(s)).collect();
            run(e, replica, xs)
        })?;
        let outputs = ids.iter().map(|&t| e.export(t)).collect();
        ids.iter().for_each(|&t| e.dispose(t));
        outputs
    })
}

/// What the serving thread holds, `[numTensors, numBytes, replicas]` (its engine's counts and
/// how many models have a replica there), once the jobs queued before have run: leak checks.
#[napi(ts_return_type = "Promise<number[]>")]
pub fn serving_memory(env: &Env) -> Result<Object<'_>> {
    let (mut settle, promise) = Settle::<Vec<f64>>::new(env, "memory query")?;
    let _ = submit(Box::new(move |e| {
        let m = e.memory();
        let replicas = REPLICAS.with(|r| r.borrow().len());
        let counts = vec![m.num_tensors as f64, m.num_bytes as f64, replicas as f64];
        settle.finish(move |_| Ok(counts));
    }));
    Ok(promise)
}
