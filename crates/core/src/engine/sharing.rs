//! Tensors shared between threads' engines. Buffers are never written after they are made (a
//! kernel makes a new one; `assign` replaces a variable's), so one buffer can back tensors of
//! several engines at once: a prediction on the serving thread reads the caller's weights and
//! inputs in place, hands its outputs back without a copy, and threads that load the same
//! weights keep one copy of them.

use super::{new_data_id, Engine, TensorId};
use crate::backend::{Buffer, View};
use crate::{bail, shape, DType, HostData, Result};
use rustc_hash::FxHashMap;
use std::hash::Hasher;
use std::sync::{Arc, Mutex, Weak};

/// A tensor's value as another thread's engine takes it ([`Engine::export`], [`Engine::adopt`]):
/// its buffer, shared (never copied), with its shape and dtype. Holding it keeps the buffer
/// alive, whatever the engine that made it disposes meanwhile.
#[derive(Clone)]
pub struct Shared {
    data: Arc<Buffer>,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

impl Shared {
    /// Which buffer it is (the same for every tensor over it, in any engine).
    pub fn data_id(&self) -> crate::DataId {
        self.data.id
    }
}

impl Engine {
    /// A live tensor's value, for another thread's engine to [`Engine::adopt`].
    pub fn export(&self, id: TensorId) -> Result<Shared> {
        let t = self.info(id)?;
        Ok(Shared { data: t.data.clone(), shape: t.shape.clone(), dtype: t.dtype })
    }

    /// A new tensor of this engine over an exported value's buffer, tracked by the current scope
    /// as a tensor made here is.
    pub fn adopt(&mut self, value: Shared) -> TensorId {
        self.track(value.data, value.shape, value.dtype, None)
    }

    /// A weight tensor of `bytes` (float32, int32 or bool values, in memory order): the buffer
    /// of a weight with the same values, dtype and backend that a thread already holds, when
    /// there is one, else a new one that later loads of the same values will share. Its bytes
    /// count in `num_bytes` as any tensor's, and in `num_bytes_shared` too.
    pub fn weight(&mut self, bytes: &[u8], dtype: DType, shape: &[usize]) -> Result<TensorId> {
        if !matches!(dtype, DType::Float32 | DType::Int32 | DType::Bool) {
            bail!("A shared weight is float32, int32 or bool, not {}", dtype.name());
        }
        if bytes.len() % dtype.size_of() != 0 {
            bail!("{} bytes are no whole number of {} values", bytes.len(), dtype.name());
        }
        super::check_values(bytes.len() / dtype.size_of(), shape)?;
        self.check_size(shape, dtype)?;
        let backend = self.backend()?;
        let key = WeightKey { backend: backend.name(), dtype, len: bytes.len(), hash: content_hash(bytes) };
        let mut cache = WEIGHTS.lock().unwrap_or_else(|e| e.into_inner());
        let found = cache.get(&key).and_then(Weak::upgrade).filter(|data| same_values(data, shape, dtype, bytes));
        let data = match found {
            Some(data) => data,
            None => {
                let storage = backend.upload(host_data(bytes, dtype))?;
                let data = Arc::new(Buffer { id: new_data_id(), backend, storage });
                cache.retain(|_, w| w.strong_count() > 0);
                cache.insert(key, Arc::downgrade(&data));
                data
            }
        };
        drop(cache);
        self.shared_buffers.insert(data.id);
        Ok(self.track(data, shape.to_vec(), dtype, None))
    }
}

/// The weights threads hold, by content: [`Engine::weight`] looks here before it allocates.
static WEIGHTS: Mutex<FxHashMap<WeightKey, Weak<Buffer>>> =
    Mutex::new(FxHashMap::with_hasher(rustc_hash::FxBuildHasher));

#[derive(PartialEq, Eq, Hash)]
struct WeightKey {
    backend: &'static str,
    dtype: DType,
    len: usize,
    /// Two independent 64-bit hashes of the bytes.
    hash: (u64, u64),
}

fn content_hash(bytes: &[u8]) -> (u64, u64) {
    let mut fx = rustc_hash::FxHasher::default();
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        fx.write_u64(u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
    }
    fx.write(words.remainder());
    (crate::fingerprint::fingerprint64(bytes), fx.finish())
}

/// Whether a cached buffer holds exactly `bytes`: compared value by value where its backend
/// keeps values in host memory; elsewhere (GPU memory) the two hashes of the key decide.
fn same_values(data: &Buffer, shape: &[usize], dtype: DType, bytes: &[u8]) -> bool {
    let view = View { storage: &*data.storage, shape, dtype };
    if shape::size(shape) * dtype.size_of() != bytes.len() {
        return false;
    }
    let word = |w: &[u8]| u32::from_le_bytes(w.try_into().unwrap_or([0; 4]));
    match data.backend.host_values(view) {
        Some(HostData::F32(v)) => v.iter().zip(bytes.chunks_exact(4)).all(|(x, w)| x.to_bits() == word(w)),
        Some(HostData::I32(v)) => v.iter().zip(bytes.chunks_exact(4)).all(|(&x, w)| x as u32 == word(w)),
        Some(HostData::Bool(v)) => v[..] == *bytes,
        None => true,
    }
}

fn host_data(bytes: &[u8], dtype: DType) -> HostData {
    let words = || bytes.chunks_exact(4).map(|w| w.try_into().unwrap_or([0; 4]));
    match dtype {
        DType::Int32 => HostData::I32(words().map(i32::from_le_bytes).collect()),
        DType::Bool => HostData::Bool(bytes.iter().map(|&b| (b != 0) as u8).collect()),
        _ => HostData::F32(words().map(f32::from_le_bytes).collect()),
    }
}
