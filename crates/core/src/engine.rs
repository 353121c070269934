//! The per-thread tensor registry: ids, refcounted buffers, scopes (tidy), keep, dispose,
//! variables and memory counts, with the semantics of tfjs 4.22's engine; and the kernel
//! funnel every op runs through ([`Engine::run_kernel`]), which keeps the profile and the tape.

use crate::backend::{Backend, BackendMemory, Buffer, DataId, Storage, View};
use crate::{bail, shape, DType, Error, HostData, Result};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod grad;
mod sharing;
pub use grad::{BackwardStep, GradArgs, GradFn, Gradient, TapeNode};
pub use sharing::{Encoding, Shared};

pub type TensorId = u64;
pub type ScopeId = u64;

/// What the engine knows about one live tensor.
pub struct TensorInfo {
    pub shape: Vec<usize>,
    pub dtype: DType,
    pub(crate) data: Arc<Buffer>,
    kept: bool,
    scope: Option<ScopeId>,
    variable: Option<Variable>,
    /// The kernel that made it (`"Tensor"` for values uploaded directly): leak reports.
    op: &'static str,
}

/// What leak reports show of a live tensor (see [`Engine::tensor_origin`]).
pub struct TensorOrigin {
    /// The kernel that made it.
    pub op: &'static str,
    pub bytes: usize,
    /// Held by an open scope (disposed when it ends).
    pub scoped: bool,
    pub kept: bool,
    pub variable: bool,
}

struct Variable {
    name: String,
    trainable: bool,
}

struct Scope {
    id: ScopeId,
    tracked: Vec<TensorId>,
}

/// `tf.memory()` as the engine counts it.
#[derive(Clone, Debug)]
pub struct Memory {
    pub num_tensors: usize,
    pub num_data_buffers: usize,
    pub num_bytes: usize,
    /// Of `num_bytes`, the bytes of weights held once for the whole process and shared with
    /// the other threads that loaded the same values (see [`Engine::weight`]).
    pub num_bytes_shared: usize,
    pub backend: BackendMemory,
}

/// One kernel call as `tf.profile` reports it (tfjs's `KernelInfo`).
#[derive(Clone, Debug)]
pub struct KernelRecord {
    pub name: &'static str,
    pub bytes_added: i64,
    pub total_bytes_snapshot: usize,
    pub tensors_added: i64,
    pub total_tensors_snapshot: usize,
    pub input_shapes: Vec<Vec<usize>>,
    pub output_shapes: Vec<Vec<usize>>,
    pub kernel_time_ms: f64,
}

/// What a kernel returns: one tensor or several.
pub trait KernelOutputs {
    fn ids(&self) -> &[TensorId];
}

impl KernelOutputs for TensorId {
    fn ids(&self) -> &[TensorId] {
        std::slice::from_ref(self)
    }
}

impl KernelOutputs for Vec<TensorId> {
    fn ids(&self) -> &[TensorId] {
        self
    }
}

/// A tensor's buffer with its shape and dtype, pinned for the length of a kernel call.
pub struct Input {
    pub data: Arc<Buffer>,
    pub shape: shape::Dims,
    pub dtype: DType,
}

impl Input {
    pub fn view(&self) -> View<'_> {
        View { storage: &*self.data.storage, shape: &self.shape, dtype: self.dtype }
    }
}

#[derive(Default)]
pub struct Engine {
    backends: Vec<Arc<dyn Backend>>,
    active: Option<usize>,
    tensors: FxHashMap<TensorId, TensorInfo>,
    /// Live tensors per data buffer; its length is `numDataBuffers`.
    buffer_refs: FxHashMap<DataId, usize>,
    num_bytes: usize,
    /// Buffers of the process's weight cache this engine holds, and their tensors' bytes.
    shared_buffers: FxHashSet<DataId>,
    num_bytes_shared: usize,
    scopes: Vec<Scope>,
    /// Emptied `tracked` lists of ended scopes, reused: scopes open and close per kernel.
    spare_tracked: Vec<Vec<TensorId>>,
    variables: FxHashMap<String, TensorId>,
    ids: TensorIds,
    next_scope: ScopeId,
    next_variable: u64,
    /// Kernels running now, nested (a kernel may run others to do its work).
    kernel_depth: usize,
    /// Tensors made by kernels at depth > 0 that their kernel has not yet returned or freed.
    kernel_made: Vec<TensorId>,
    /// Records of depth-0 kernels while `tf.profile` runs.
    profile: Option<Vec<KernelRecord>>,
    /// Nodes of depth-0 kernels while a gradient is taken (see `grad`).
    tape: Option<Vec<TapeNode>>,
    /// Gradients being taken now, nested (tfjs's `gradientDepth`).
    gradient_depth: usize,
    /// Custom-gradient forward functions running now: their kernels are not recorded.
    tape_paused: usize,
    /// Backward passes in progress, nested.
    backward: Vec<grad::Backward>,
    /// The depth-0 kernel running now (the `op` of the tensors it makes).
    current_kernel: Option<&'static str>,
    /// Debug mode (`tf.enableDebugMode`): each depth-0 kernel's name and time are kept in
    /// `last_kernel` for the binding to check and log.
    pub debug: bool,
    pub last_kernel: Option<(&'static str, f64)>,
}

thread_local! {
    static ENGINE: RefCell<Engine> = RefCell::new(Engine::default());
}

/// Runs `f` on this thread's engine (each JavaScript thread has its own).
pub fn with_engine<R>(f: impl FnOnce(&mut Engine) -> R) -> R {
    ENGINE.with(|e| f(&mut e.borrow_mut()))
}

impl Engine {
    // ---- backends ----

    /// Adds a backend; returns false (and changes nothing) if the name is taken.
    /// The first backend registered becomes the active one.
    pub fn register_backend(&mut self, backend: Arc<dyn Backend>) -> bool {
        if self.backends.iter().any(|b| b.name() == backend.name()) {
            return false;
        }
        self.backends.push(backend);
        if self.active.is_none() {
            self.active = Some(self.backends.len() - 1);
        }
        true
    }

    pub fn set_backend(&mut self, name: &str) -> Result<()> {
        match self.backends.iter().position(|b| b.name() == name) {
            Some(i) => {
                self.active = Some(i);
                Ok(())
            }
            None => bail!("Backend name '{name}' not found in registry"),
        }
    }

    pub fn backend_names(&self) -> Vec<&'static str> {
        self.backends.iter().map(|b| b.name()).collect()
    }

    pub fn backend(&self) -> Result<Arc<dyn Backend>> {
        match self.active {
            Some(i) => Ok(self.backends[i].clone()),
            None => bail!("No backend is registered"),
        }
    }

    pub fn backend_name(&self) -> Option<&'static str> {
        self.active.map(|i| self.backends[i].name())
    }

    // ---- the registry ----

    pub fn info(&self, id: TensorId) -> Result<&TensorInfo> {
        self.tensors.get(&id).ok_or_else(|| self.missing(id))
    }

    pub fn shape(&self, id: TensorId) -> Result<&[usize]> {
        Ok(&self.info(id)?.shape)
    }

    pub fn dtype(&self, id: TensorId) -> Result<DType> {
        Ok(self.info(id)?.dtype)
    }

    pub fn is_disposed(&self, id: TensorId) -> bool {
        !self.tensors.contains_key(&id)
    }

    /// Pins a tensor's data for a kernel on the active backend, moving it there first when it
    /// lives on another backend (as tfjs does when a tensor outlives `setBackend`).
    pub(crate) fn input(&mut self, id: TensorId) -> Result<Input> {
        let backend = self.backend()?;
        self.input_on(&backend, id)
    }

    fn input_on(&mut self, backend: &Arc<dyn Backend>, id: TensorId) -> Result<Input> {
        let info = self.tensors.get(&id).ok_or_else(|| self.missing(id))?;
        let (shape, dtype) = (shape::Dims::from_slice(&info.shape), info.dtype);
        let mut data = info.data.clone();
        // Strings live on the host, which every backend reads.
        if data.backend.name() != backend.name() && dtype != DType::String {
            let (stored_shape, stored_dtype) = stored_as(&shape, dtype);
            let view = View { storage: &*data.storage, shape: &stored_shape, dtype: stored_dtype };
            let host = data.backend.read(view)?;
            let moved = Arc::new(Buffer { id: data.id, backend: backend.clone(), storage: backend.upload(host)? });
            for t in self.tensors.values_mut() {
                if t.data.id == moved.id {
                    t.data = moved.clone();
                }
            }
            data = moved;
        }
        Ok(Input { data, shape, dtype })
    }

    /// Checks, before anything is allocated, that a tensor of `shape` and `dtype` fits the
    /// active backend (for callers that stage values before making a tensor of them, too).
    pub fn check_size(&self, shape: &[usize], dtype: DType) -> Result<()> {
        check_size(&*self.backend()?, shape, dtype)
    }

    /// Registers kernel output as a new tensor on the active backend.
    pub(crate) fn output(&mut self, storage: Box<dyn Storage>, shape: Vec<usize>, dtype: DType) -> Result<TensorId> {
        let backend = self.backend()?;
        let data = Arc::new(Buffer { id: new_data_id(), backend, storage });
        Ok(self.track(data, shape, dtype, None))
    }

    /// A new tensor over an existing buffer (reshape, clone, variable).
    pub(crate) fn share(&mut self, data: Arc<Buffer>, shape: Vec<usize>, dtype: DType) -> TensorId {
        self.track(data, shape, dtype, None)
    }

    fn track(&mut self, data: Arc<Buffer>, shape: Vec<usize>, dtype: DType, variable: Option<Variable>) -> TensorId {
        let id = self.ids.next();
        let bytes = tensor_bytes(&data, &shape, dtype);
        self.num_bytes += bytes;
        if self.holds_shared(data.id) {
            self.num_bytes_shared += bytes;
        }
        *self.buffer_refs.entry(data.id).or_insert(0) += 1;
        // Variables are never tracked by scopes; a running kernel's tensors belong to it until
        // it returns them.
        let scope = match (&variable, self.scopes.last_mut()) {
            (Some(_), _) | (None, None) => None,
            (None, Some(s)) => {
                if self.kernel_depth == 0 {
                    s.tracked.push(id);
                }
                Some(s.id)
            }
        };
        if self.kernel_depth > 0 && variable.is_none() {
            self.kernel_made.push(id);
        }
        let op = match (&variable, self.current_kernel) {
            (Some(_), _) => "Variable",
            (None, Some(k)) => k,
            (None, None) => "Tensor",
        };
        self.tensors.insert(id, TensorInfo { shape, dtype, data, kept: false, scope, variable, op });
        id
    }

    /// Where a live tensor comes from and what holds it (leak reports, the GC backstop).
    pub fn tensor_origin(&self, id: TensorId) -> Option<TensorOrigin> {
        let t = self.tensors.get(&id)?;
        Some(TensorOrigin {
            op: t.op,
            bytes: tensor_bytes(&t.data, &t.shape, t.dtype),
            scoped: t.scope.is_some(),
            kept: t.kept,
            variable: t.variable.is_some(),
        })
    }

    /// Disposes a tensor; disposing twice (or an unknown id) does nothing.
    pub fn dispose(&mut self, id: TensorId) {
        let Some(t) = self.tensors.remove(&id) else { return };
        let bytes = tensor_bytes(&t.data, &t.shape, t.dtype);
        self.num_bytes -= bytes;
        if self.holds_shared(t.data.id) {
            self.num_bytes_shared -= bytes;
        }
        self.release(t.data.id);
        if let Some(v) = t.variable {
            self.variables.remove(&v.name);
        }
    }

    fn release(&mut self, data: DataId) {
        if let Some(n) = self.buffer_refs.get_mut(&data) {
            *n -= 1;
            if *n == 0 {
                self.buffer_refs.remove(&data);
                if !self.shared_buffers.is_empty() {
                    self.shared_buffers.remove(&data);
                }
            }
        }
    }

    /// Whether a buffer is one of the process's shared weights (per tensor made and disposed:
    /// no hashing while a thread holds none).
    fn holds_shared(&self, data: DataId) -> bool {
        !self.shared_buffers.is_empty() && self.shared_buffers.contains(&data)
    }

    /// Marks a tensor so that no scope ever disposes it.
    pub fn keep(&mut self, id: TensorId) {
        if let Some(t) = self.tensors.get_mut(&id) {
            t.kept = true;
        }
    }

    pub fn memory(&self) -> Memory {
        Memory {
            num_tensors: self.tensors.len(),
            num_data_buffers: self.buffer_refs.len(),
            num_bytes: self.num_bytes,
            num_bytes_shared: self.num_bytes_shared,
            backend: self.backend().map(|b| b.memory()).unwrap_or_default(),
        }
    }

    /// Frees every backend's memory kept for reuse that no tensor holds.
    pub fn release_pools(&self) -> Result<()> {
        self.backends.iter().try_for_each(|b| b.release_pool())
    }

    /// Every live tensor id (tests, leak reports).
    pub fn live_tensors(&self) -> Vec<TensorId> {
        let mut ids: Vec<_> = self.tensors.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    // ---- the kernel funnel ----

    /// Runs one kernel, as tfjs's `runKernel` does: resolves `inputs` on the active backend
    /// (moving them from another backend when needed), runs `body` (which calls the backend and
    /// registers what it makes with [`Engine::output`]), and tracks the outputs in the current
    /// scope. Tensors the body makes and does not return are freed, on error too. At depth 0
    /// the call is recorded in the profile and, while a gradient is taken, on the tape; kernels
    /// a kernel runs to do its work are part of it, as a backend's helpers are in tfjs.
    /// Inputs must have a numeric dtype: string and complex tensors reach kernels only through
    /// [`Engine::run_kernel_any`], in the front-ends that convert them.
    pub fn run_kernel<O: KernelOutputs>(
        &mut self,
        name: &'static str,
        inputs: &[TensorId],
        body: impl FnOnce(&mut Engine, &Arc<dyn Backend>, &[Input]) -> Result<O>,
    ) -> Result<O> {
        self.run_kernel_on(name, inputs, false, body)
    }

    /// [`Engine::run_kernel`] for kernels that take string and complex inputs too: those that
    /// share a buffer (reshape, clone) and the string and complex front-ends.
    pub fn run_kernel_any<O: KernelOutputs>(
        &mut self,
        name: &'static str,
        inputs: &[TensorId],
        body: impl FnOnce(&mut Engine, &Arc<dyn Backend>, &[Input]) -> Result<O>,
    ) -> Result<O> {
        self.run_kernel_on(name, inputs, true, body)
    }

    fn run_kernel_on<O: KernelOutputs>(
        &mut self,
        name: &'static str,
        inputs: &[TensorId],
        any_dtype: bool,
        body: impl FnOnce(&mut Engine, &Arc<dyn Backend>, &[Input]) -> Result<O>,
    ) -> Result<O> {
        let backend = self.backend()?;
        let mut resolved = Vec::with_capacity(inputs.len());
        for &id in inputs {
            let input = self.input_on(&backend, id)?;
            if !any_dtype && !input.dtype.is_numeric() {
                let dtype = input.dtype.name();
                bail!("{name} does not support {dtype} tensors in the {} backend.", backend.name().to_uppercase());
            }
            resolved.push(input);
        }
        let top = self.kernel_depth == 0;
        let profiling = top && self.profile.is_some();
        let before = profiling.then(|| (self.num_bytes, self.tensors.len(), std::time::Instant::now()));
        let started = (top && self.debug).then(std::time::Instant::now);
        let mark = self.kernel_made.len();
        if top {
            self.current_kernel = Some(name);
        }
        self.kernel_depth += 1;
        let result = body(self, &backend, &resolved);
        self.kernel_depth -= 1;
        if top {
            self.current_kernel = None;
        }
        if let Some(t0) = started {
            self.last_kernel = Some((name, t0.elapsed().as_secs_f64() * 1e3));
        }
        let outputs = result.as_ref().map(|o| o.ids()).unwrap_or(&[]);
        if outputs.len() == 1 && self.kernel_made.len() == mark + 1 && self.kernel_made[mark] == outputs[0] {
            // The common case: the kernel made its one output and nothing else.
            if top {
                self.kernel_made.pop();
                self.track_in_scope(outputs[0]);
            }
        } else {
            let made = self.kernel_made.split_off(mark);
            for id in made {
                if !outputs.contains(&id) {
                    self.dispose(id);
                } else if top {
                    self.track_in_scope(id);
                } else {
                    self.kernel_made.push(id);
                }
            }
        }
        let out = result?;
        if let Some((bytes, tensors, t0)) = before {
            let record = KernelRecord {
                name,
                bytes_added: self.num_bytes as i64 - bytes as i64,
                total_bytes_snapshot: self.num_bytes,
                tensors_added: self.tensors.len() as i64 - tensors as i64,
                total_tensors_snapshot: self.tensors.len(),
                input_shapes: resolved.iter().map(|i| i.shape.to_vec()).collect(),
                output_shapes: out
                    .ids()
                    .iter()
                    .map(|&id| self.shape(id).map(<[usize]>::to_vec).unwrap_or_default())
                    .collect(),
                kernel_time_ms: t0.elapsed().as_secs_f64() * 1e3,
            };
            if let Some(p) = self.profile.as_mut() {
                p.push(record);
            }
        }
        if top && self.taping() {
            let input_meta = resolved.iter().map(|i| (i.shape.to_vec(), i.dtype)).collect();
            let output_meta = self.meta_of(out.ids())?;
            if let Some(tape) = self.tape.as_mut() {
                let (inputs, outputs) = (inputs.to_vec(), out.ids().to_vec());
                let (gradient, saved) = (None, Vec::new());
                tape.push(TapeNode { kernel: name, inputs, outputs, input_meta, output_meta, gradient, saved });
            }
        }
        Ok(out)
    }

    /// After a panic escaped a kernel (caught at the binding): frees what the interrupted
    /// kernels made and leaves kernel depth 0, so later ops are scoped and recorded again.
    pub fn abort_kernels(&mut self) {
        self.kernel_depth = 0;
        self.current_kernel = None;
        for id in std::mem::take(&mut self.kernel_made) {
            self.dispose(id);
        }
    }

    /// Tracks a tensor a kernel returned in the innermost scope, which `track` already
    /// recorded as its scope (kernels open no scopes).
    fn track_in_scope(&mut self, id: TensorId) {
        if let Some(s) = self.scopes.last_mut() {
            s.tracked.push(id);
        }
    }

    /// Starts recording kernels for `tf.profile`; returns where this profile's records start
    /// (profiles nest: an inner one sees only its own kernels, the outer one all of them).
    pub fn start_profile(&mut self) -> usize {
        self.profile.get_or_insert_with(Vec::new).len()
    }

    /// The records since `mark`; `last` stops recording (the outermost profile ended).
    pub fn end_profile(&mut self, mark: usize, last: bool) -> Vec<KernelRecord> {
        let records = self.profile.as_ref().map(|p| p.get(mark..).unwrap_or(&[]).to_vec()).unwrap_or_default();
        if last {
            self.profile = None;
        }
        records
    }

    /// Waits until the active backend has finished the work recorded so far (`tf.time`).
    pub fn synchronize(&self) -> Result<()> {
        self.backend()?.synchronize()
    }

    // ---- scopes ----

    /// Opens a scope: tensors made until the matching [`Engine::end_scope`] are tracked by it.
    pub fn start_scope(&mut self) -> ScopeId {
        self.next_scope += 1;
        let tracked = self.spare_tracked.pop().unwrap_or_default();
        self.scopes.push(Scope { id: self.next_scope, tracked });
        self.next_scope
    }

    /// Ends the innermost scope: disposes what it tracked unless kept or in `result`;
    /// result tensors created in this scope move to the parent scope.
    pub fn end_scope(&mut self, result: &[TensorId]) {
        let Some(mut scope) = self.scopes.pop() else { return };
        // Results are few but the tracked list may be long: a set only for many results.
        let many = (result.len() > 16).then(|| result.iter().copied().collect::<FxHashSet<TensorId>>());
        let in_result = |id: &TensorId| many.as_ref().map_or_else(|| result.contains(id), |s| s.contains(id));
        for id in scope.tracked.drain(..) {
            let disposable = matches!(self.tensors.get(&id), Some(t) if !t.kept && !in_result(&id));
            if disposable {
                self.dispose(id);
            }
        }
        // (Small lists only: a scope that tracked many tensors would hold on to their memory.)
        if self.spare_tracked.len() < 64 && scope.tracked.capacity() <= 1024 {
            self.spare_tracked.push(scope.tracked);
        }
        let parent_id = self.scopes.last().map(|p| p.id);
        for &id in result {
            if let Some(t) = self.tensors.get_mut(&id) {
                if !t.kept && t.scope == Some(scope.id) {
                    t.scope = parent_id;
                    if let Some(p) = self.scopes.last_mut() {
                        p.tracked.push(id);
                    }
                }
            }
        }
    }

    pub fn scope_depth(&self) -> usize {
        self.scopes.len()
    }

    /// Runs `f` in a scope, like `tf.tidy`: on success the ids `f` returns survive, on error
    /// everything `f` made is disposed and the error is returned.
    pub fn tidy(&mut self, f: impl FnOnce(&mut Engine) -> Result<Vec<TensorId>>) -> Result<Vec<TensorId>> {
        self.start_scope();
        match f(self) {
            Ok(ids) => {
                self.end_scope(&ids);
                Ok(ids)
            }
            Err(e) => {
                self.end_scope(&[]);
                Err(e)
            }
        }
    }

    /// Runs an op composed of other ops in a scope of its own, so it leaves only its result.
    pub(crate) fn composed(&mut self, f: impl FnOnce(&mut Engine) -> Result<TensorId>) -> Result<TensorId> {
        Ok(self.tidy(|e| f(e).map(|y| vec![y]))?[0])
    }

    /// [`Engine::composed`] for ops with several results.
    pub(crate) fn composed_many(
        &mut self,
        f: impl FnOnce(&mut Engine) -> Result<Vec<TensorId>>,
    ) -> Result<Vec<TensorId>> {
        self.tidy(f)
    }

    // ---- data ----

    /// Creates a tensor from host values.
    pub fn tensor(&mut self, data: HostData, shape: &[usize]) -> Result<TensorId> {
        check_values(data.len(), shape)?;
        let dtype = data.dtype();
        let storage = self.backend()?.upload(data)?;
        self.output(storage, shape.to_vec(), dtype)
    }

    /// A numeric tensor's values as f64 (`dataSync`), for the ops that read values on the host.
    pub fn read_f64(&self, id: TensorId) -> Result<Vec<f64>> {
        Ok(match self.read(id)? {
            HostData::F32(v) => v.into_iter().map(f64::from).collect(),
            HostData::I32(v) => v.into_iter().map(f64::from).collect(),
            HostData::Bool(v) => v.into_iter().map(f64::from).collect(),
        })
    }

    /// Reads a tensor's values (from whichever backend holds them).
    pub fn read(&self, id: TensorId) -> Result<HostData> {
        let t = self.info(id)?;
        check_host_copy(t)?;
        let (shape, dtype) = stored_as(&t.shape, t.dtype);
        if dtype == DType::String {
            bail!("The values of a string tensor are read with read_strings");
        }
        t.data.backend.read(View { storage: &*t.data.storage, shape: &shape, dtype })
    }

    /// Runs `f` on a tensor's values: borrowed where its backend keeps them in host memory (so
    /// a reader that copies them on, as the binding does into JavaScript, copies once), read
    /// otherwise.
    pub fn read_with<R>(&self, id: TensorId, f: impl FnOnce(&HostData) -> R) -> Result<R> {
        let t = self.info(id)?;
        check_host_copy(t)?;
        let (shape, dtype) = stored_as(&t.shape, t.dtype);
        if dtype == DType::String {
            bail!("The values of a string tensor are read with read_strings");
        }
        let view = View { storage: &*t.data.storage, shape: &shape, dtype };
        if let Some(values) = t.data.backend.host_values(view) {
            return Ok(f(values));
        }
        Ok(f(&self.read(id)?))
    }

    /// Starts reading a tensor's values; `done` runs when they are on the host (maybe on another
    /// thread). The read holds its own reference to the data, so it survives `dispose`.
    pub fn read_async(&self, id: TensorId, done: crate::ReadDone) -> Result<()> {
        let t = self.info(id)?;
        check_host_copy(t)?;
        let (shape, dtype) = stored_as(&t.shape, t.dtype);
        if dtype == DType::String {
            bail!("The values of a string tensor are read with read_strings");
        }
        t.data.backend.read_async(View { storage: &*t.data.storage, shape: &shape, dtype }, done);
        Ok(())
    }

    /// The tensor's buffer, shape and dtype.
    fn pin(&self, id: TensorId) -> Result<(Arc<Buffer>, Vec<usize>, DType)> {
        let t = self.info(id)?;
        Ok((t.data.clone(), t.shape.clone(), t.dtype))
    }

    // ---- variables ----

    /// `tf.variable`: shares `init`'s buffer (or a cast copy), never tracked by scopes.
    pub fn variable(
        &mut self,
        init: TensorId,
        trainable: bool,
        name: Option<&str>,
        dtype: Option<DType>,
    ) -> Result<TensorId> {
        let (shape, from) = {
            let t = self.info(init)?;
            (t.shape.clone(), t.dtype)
        };
        let name = match name {
            Some(n) => n.to_string(),
            None => {
                let n = self.next_variable;
                self.next_variable += 1;
                n.to_string()
            }
        };
        if self.variables.contains_key(&name) {
            bail!("Variable with name {name} was already registered");
        }
        let dtype = dtype.unwrap_or(from);
        let data = if dtype == from {
            self.info(init)?.data.clone()
        } else {
            // A cast copy (tfjs casts the initial value), which only the variable keeps.
            let cast = self.cast(init, dtype)?;
            let data = self.info(cast)?.data.clone();
            self.dispose(cast);
            data
        };
        let id = self.track(data, shape, dtype, Some(Variable { name: name.clone(), trainable }));
        self.variables.insert(name, id);
        Ok(id)
    }

    pub fn variable_name(&self, id: TensorId) -> Result<&str> {
        match &self.info(id)?.variable {
            Some(v) => Ok(&v.name),
            None => bail!("Tensor {id} is not a variable"),
        }
    }

    pub fn is_trainable(&self, id: TensorId) -> Result<bool> {
        Ok(self.info(id)?.variable.as_ref().is_some_and(|v| v.trainable))
    }

    /// `variable.trainable = trainable` (tfjs's layers set it when a layer is frozen).
    pub fn set_trainable(&mut self, id: TensorId, trainable: bool) -> Result<()> {
        let missing = self.missing(id);
        match self.tensors.get_mut(&id).ok_or(missing)?.variable.as_mut() {
            Some(v) => {
                v.trainable = trainable;
                Ok(())
            }
            None => bail!("Tensor {id} is not a variable"),
        }
    }

    /// `variable.assign(value)`: the variable now shares `value`'s buffer.
    pub fn assign(&mut self, var: TensorId, value: TensorId) -> Result<()> {
        let (vshape, vdtype) = {
            let v = self.info(var)?;
            if v.variable.is_none() {
                bail!("assign() can only be called on a variable");
            }
            (v.shape.clone(), v.dtype)
        };
        let (data, shape, dtype) = self.pin(value)?;
        if dtype != vdtype {
            bail!("dtype of the new value ({}) and previous value ({}) must match", dtype.name(), vdtype.name());
        }
        if shape != vshape {
            bail!(
                "shape of the new value ({}) and previous value ({}) must match",
                shape::fmt(&shape),
                shape::fmt(&vshape)
            );
        }
        *self.buffer_refs.entry(data.id).or_insert(0) += 1;
        let bytes = tensor_bytes(&data, &shape, dtype);
        let (now, before) = (self.holds_shared(data.id), self.holds_shared(self.info(var)?.data.id));
        self.num_bytes_shared = self.num_bytes_shared + if now { bytes } else { 0 } - if before { bytes } else { 0 };
        let old = std::mem::replace(&mut self.tensors.get_mut(&var).expect("checked above").data, data);
        self.release(old.id);
        Ok(())
    }

    /// Names and ids of every live variable.
    /// The variable registered as `name`.
    pub fn variable_named(&self, name: &str) -> Option<TensorId> {
        self.variables.get(name).copied()
    }

    pub fn variables(&self) -> Vec<(String, TensorId)> {
        let mut v: Vec<_> = self.variables.iter().map(|(n, &id)| (n.clone(), id)).collect();
        v.sort_by_key(|(_, id)| *id);
        v
    }

    pub fn dispose_variables(&mut self) {
        for (_, id) in self.variables() {
            self.dispose(id);
        }
    }
}

impl Engine {
    /// The error for an id this engine has no tensor for: disposed, or made on another thread.
    fn missing(&self, id: TensorId) -> Error {
        if id == 0 || self.ids.issued(id) {
            Error::new("Tensor is disposed.")
        } else {
            Error::new(
                "This tensor belongs to another thread: a Tensor can only be used on the thread \
                 (main or worker) that made it. Send its values (await t.data()) and its shape \
                 instead, and make a tensor from them there.",
            )
        }
    }
}

/// Data ids are unique in the process, like tensor ids: an engine adopts buffers that other
/// threads' engines made ([`Shared`]), and its per-buffer counts must never take two for one.
fn new_data_id() -> DataId {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Tensor ids are unique in the process, not only on one thread: a handle that reaches
/// another thread's engine (a Tensor sent with `postMessage`) names no tensor there, never
/// another one. Each engine takes blocks of ids from one process-wide counter.
#[derive(Default)]
struct TensorIds {
    next: TensorId,
    end: TensorId,
    /// The blocks this engine took, ascending.
    blocks: Vec<u64>,
}

const ID_BLOCK: u64 = 1 << 16;
static NEXT_ID_BLOCK: AtomicU64 = AtomicU64::new(0);

impl TensorIds {
    fn next(&mut self) -> TensorId {
        if self.next == self.end {
            let block = NEXT_ID_BLOCK.fetch_add(1, Ordering::Relaxed);
            self.blocks.push(block);
            // Ids start at 1; a block's ids stay below 2^53, exact as JavaScript numbers.
            self.next = block * ID_BLOCK + 1;
            self.end = self.next + ID_BLOCK;
        }
        let id = self.next;
        self.next += 1;
        id
    }

    /// Whether this engine ever handed out `id`.
    fn issued(&self, id: TensorId) -> bool {
        id >= 1 && id < self.next && self.blocks.binary_search(&((id - 1) / ID_BLOCK)).is_ok()
    }
}

/// That `len` values fill a tensor of `shape`, of a rank tidytensor holds.
pub(crate) fn check_values(len: usize, shape: &[usize]) -> Result<()> {
    let n = shape::size(shape);
    if len != n {
        bail!(
            "Based on the provided shape, [{}], the tensor should have {n} values but has {len}",
            shape::fmt(shape).replace(',', ", ")
        );
    }
    if shape.len() > shape::MAX_RANK {
        bail!("tidytensor supports tensors up to rank {}, but got rank {}", shape::MAX_RANK, shape.len());
    }
    Ok(())
}

/// The shape and dtype of what a tensor's buffer holds: a complex64 tensor's buffer is float32
/// (real, imaginary) pairs.
pub(crate) fn stored_as(shape: &[usize], dtype: DType) -> (shape::Dims, DType) {
    let mut dims = shape::Dims::from_slice(shape);
    if dtype == DType::Complex64 {
        dims.push(2);
        return (dims, DType::Float32);
    }
    (dims, dtype)
}

/// The bytes `tf.memory()` counts for one tensor (per tensor, as tfjs counts them): a string
/// tensor's are the UTF-8 bytes of its values.
fn tensor_bytes(data: &Buffer, shape: &[usize], dtype: DType) -> usize {
    match dtype {
        DType::String => crate::ops::strings_in(&*data.storage).map_or(0, |v| v.iter().map(Vec::len).sum()),
        _ => shape::size(shape) * dtype.size_of(),
    }
}

/// A read copies a tensor's values to host memory: a large copy must fit there.
fn check_host_copy(t: &TensorInfo) -> Result<()> {
    let bytes = tensor_bytes(&t.data, &t.shape, t.dtype);
    if bytes >= crate::host_memory::CHECKED_FROM {
        if let Some(available) = crate::host_memory::available().filter(|&a| bytes > a) {
            bail!("Out of memory: reading the {bytes} bytes of a tensor's values needs more than the {available} bytes available");
        }
    }
    Ok(())
}

/// Checks, before anything is allocated, that a tensor of `shape` and `dtype` fits `backend`,
/// and, for a large one, that the memory it needs is available now.
pub(crate) fn check_size(backend: &dyn Backend, shape: &[usize], dtype: DType) -> Result<()> {
    let max = backend.max_tensor_bytes();
    let bytes = shape::checked_size(shape).and_then(|n| n.checked_mul(dtype.size_of()));
    let Some(bytes) = bytes.filter(|&b| b <= max) else {
        bail!(
            "A {} tensor of shape [{}] ({} bytes) is larger than the {} backend can hold ({max} bytes)",
            dtype.name(),
            shape::fmt(shape),
            bytes.map_or_else(|| "too many".to_string(), |b| b.to_string()),
            backend.name()
        );
    };
    if bytes >= crate::host_memory::CHECKED_FROM {
        let short = || backend.available_bytes().filter(|&a| bytes > a);
        // Buffers pooled for reuse are memory too: give them back before refusing.
        let short = short().and_then(|_| backend.release_pool().ok().and_then(|()| short()));
        if let Some(available) = short {
            bail!(
                "Out of memory on the {} backend: a {} tensor of shape [{}] needs {bytes} bytes, \
                 but only {available} bytes are available",
                backend.name(),
                dtype.name(),
                shape::fmt(shape)
            );
        }
    }
    Ok(())
}
