//! Tensors shared between threads' engines. Buffers are never written after they are made (a
//! kernel makes a new one; `assign` replaces a variable's), so one buffer can back tensors of
//! several engines at once: a prediction on the serving thread reads the caller's weights and
//! inputs in place, hands its outputs back without a copy, and threads that load the same
//! weights keep one copy of them.

use super::{new_data_id, Engine, TensorId};
use crate::backend::{Buffer, View};
use crate::{bail, DType, HostData, Result};
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

    /// A weight tensor of `bytes` (a model file's, as `encoding` says): the buffer of a weight
    /// with the same bytes, encoding, dtype and backend that a thread already holds, when there
    /// is one (nothing is decoded or allocated then), else a new one that later loads of the
    /// same bytes will share. Its bytes count in `num_bytes` as any tensor's, and in
    /// `num_bytes_shared` too.
    pub fn weight(&mut self, bytes: &[u8], encoding: Encoding, dtype: DType, shape: &[usize]) -> Result<TensorId> {
        let width = encoding.width(dtype)?;
        if !bytes.len().is_multiple_of(width) {
            bail!("{} bytes are no whole number of {} values", bytes.len(), encoding.name(dtype));
        }
        super::check_values(bytes.len() / width, shape)?;
        self.check_size(shape, dtype)?;
        let backend = self.backend()?;
        let key = WeightKey {
            backend: backend.name(),
            dtype,
            encoding: encoding.bits(),
            len: bytes.len(),
            hash: content_hash(bytes),
        };
        let mut cache = WEIGHTS.lock().unwrap_or_else(|e| e.into_inner());
        let found = cache
            .get(&key)
            .and_then(Weak::upgrade)
            .filter(|data| same_values(data, shape, dtype, decoded(bytes, encoding, dtype)));
        let data = match found {
            Some(data) => data,
            None => {
                let values = decoded(bytes, encoding, dtype);
                let host = match dtype {
                    DType::Int32 => HostData::I32(values.map(|b| b as i32).collect()),
                    DType::Bool => HostData::Bool(values.map(|b| b as u8).collect()),
                    _ => HostData::F32(values.map(f32::from_bits).collect()),
                };
                let storage = backend.upload(host)?;
                let data = Arc::new(Buffer { id: new_data_id(), backend, storage });
                // Entries whose buffers have gone are dropped each time the map doubles.
                if cache.len() >= 64 && cache.len().is_power_of_two() {
                    cache.retain(|_, w| w.strong_count() > 0);
                }
                cache.insert(key, Arc::downgrade(&data));
                data
            }
        };
        drop(cache);
        self.shared_buffers.insert(data.id);
        Ok(self.track(data, shape.to_vec(), dtype, None))
    }
}

/// How a model file stores a weight's values (tfjs's weight manifest: plain little-endian
/// values, or quantized: `value = q * scale + min`, rounded for int32; or float16).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Encoding {
    Values,
    Uint8 { scale: f64, min: f64 },
    Uint16 { scale: f64, min: f64 },
    Float16,
}

impl Encoding {
    /// Bytes per value, or why this encoding cannot give `dtype`.
    fn width(self, dtype: DType) -> Result<usize> {
        Ok(match (self, dtype) {
            (Encoding::Values, DType::Float32 | DType::Int32 | DType::Bool) => dtype.size_of(),
            (Encoding::Uint8 { .. }, DType::Float32 | DType::Int32) => 1,
            (Encoding::Uint16 { .. }, DType::Float32 | DType::Int32) => 2,
            (Encoding::Float16, DType::Float32) => 2,
            _ => bail!("A weight of {} cannot be {}", self.name(dtype), dtype.name()),
        })
    }

    fn name(self, dtype: DType) -> String {
        match self {
            Encoding::Values => dtype.name().to_string(),
            Encoding::Uint8 { .. } => "uint8-quantized".into(),
            Encoding::Uint16 { .. } => "uint16-quantized".into(),
            Encoding::Float16 => "float16".into(),
        }
    }

    fn bits(self) -> (u8, u64, u64) {
        match self {
            Encoding::Values => (0, 0, 0),
            Encoding::Uint8 { scale, min } => (1, scale.to_bits(), min.to_bits()),
            Encoding::Uint16 { scale, min } => (2, scale.to_bits(), min.to_bits()),
            Encoding::Float16 => (3, 0, 0),
        }
    }
}

/// The values of `bytes` (checked to hold whole values of `encoding`) as `dtype`'s bits: a
/// float32's, an int32's, or a bool's 0/1. Quantized values are computed in double precision
/// and then rounded, as tfjs's decoder does.
fn decoded(bytes: &[u8], encoding: Encoding, dtype: DType) -> impl Iterator<Item = u32> + '_ {
    let int = dtype == DType::Int32;
    let dequantize = move |q: f64, scale: f64, min: f64| {
        let v = q * scale + min;
        // JavaScript's Math.round: halves toward +Infinity.
        if int {
            (v + 0.5).floor() as i32 as u32
        } else {
            (v as f32).to_bits()
        }
    };
    let word = |w: &[u8], n: usize| w.iter().take(n).rev().fold(0u32, |acc, &b| acc << 8 | b as u32);
    let width = encoding.width(dtype).unwrap_or(1);
    bytes.chunks_exact(width).map(move |w| match encoding {
        Encoding::Values if dtype == DType::Bool => (w[0] != 0) as u32,
        Encoding::Values => word(w, 4),
        Encoding::Uint8 { scale, min } => dequantize(w[0] as f64, scale, min),
        Encoding::Uint16 { scale, min } => dequantize(word(w, 2) as f64, scale, min),
        Encoding::Float16 => half::f16::from_bits(word(w, 2) as u16).to_f32().to_bits(),
    })
}

/// The weights threads hold, by content: [`Engine::weight`] looks here before it allocates.
static WEIGHTS: Mutex<FxHashMap<WeightKey, Weak<Buffer>>> =
    Mutex::new(FxHashMap::with_hasher(rustc_hash::FxBuildHasher));

#[derive(PartialEq, Eq, Hash)]
struct WeightKey {
    backend: &'static str,
    dtype: DType,
    encoding: (u8, u64, u64),
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

/// Whether a cached buffer holds exactly `values` (bits, as [`decoded`] gives them): compared
/// value by value where its backend keeps values in host memory; elsewhere (GPU memory) the
/// two hashes of the key decide.
fn same_values(data: &Buffer, shape: &[usize], dtype: DType, mut values: impl Iterator<Item = u32>) -> bool {
    let view = View { storage: &*data.storage, shape, dtype };
    match data.backend.host_values(view) {
        Some(HostData::F32(v)) => v.iter().all(|x| values.next() == Some(x.to_bits())),
        Some(HostData::I32(v)) => v.iter().all(|&x| values.next() == Some(x as u32)),
        Some(HostData::Bool(v)) => v.iter().all(|&x| values.next() == Some(x as u32)),
        None => true,
    }
}
