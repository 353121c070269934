//! Recycles large value buffers. Writing to freshly allocated memory costs a page fault per
//! 4 KiB, and for big tensors that costs more than the kernel that fills it (measured here: a
//! 5-op elementwise chain on 2^20 floats took 9 ms with fresh buffers and well under half
//! that when freed buffers were reused). Buffers are kept per exact length, since the same
//! shapes recur in a loop; the pool is bounded, reported in `tf.memory()` as
//! `numBytesInBackendFree`, and emptied by `releasePool()`.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard};

/// Below this many elements the allocator is fast enough on its own.
pub(crate) const MIN_LEN: usize = 1 << 14;
/// At most this many bytes wait in the pool.
const MAX_BYTES: usize = 256 << 20;
/// At most this many buffers of one length wait in the pool.
const MAX_PER_LEN: usize = 8;

#[derive(Default)]
pub(crate) struct Free<T>(HashMap<usize, Vec<Vec<T>>>);

#[derive(Default)]
pub(crate) struct Pool {
    f32: Free<f32>,
    i32: Free<i32>,
    u8: Free<u8>,
    bytes: usize,
}

static POOL: LazyLock<Mutex<Pool>> = LazyLock::new(Mutex::default);

fn pool() -> MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// An element type whose buffers are pooled.
pub(crate) trait Pooled: Copy + Default + Send + Sync + 'static {
    fn free(p: &mut Pool) -> &mut Free<Self>;
}

impl Pooled for f32 {
    fn free(p: &mut Pool) -> &mut Free<Self> {
        &mut p.f32
    }
}
impl Pooled for i32 {
    fn free(p: &mut Pool) -> &mut Free<Self> {
        &mut p.i32
    }
}
impl Pooled for u8 {
    fn free(p: &mut Pool) -> &mut Free<Self> {
        &mut p.u8
    }
}

/// A buffer of `len` initialised (arbitrary) values, recycled when one is waiting.
pub(crate) fn take<T: Pooled>(len: usize) -> Vec<T> {
    if len >= MIN_LEN {
        let mut p = pool();
        if let Some(v) = T::free(&mut p).0.get_mut(&len).and_then(Vec::pop) {
            p.bytes -= len * size_of::<T>();
            return v;
        }
    }
    vec![T::default(); len]
}

/// Offers a buffer no tensor uses any more for reuse.
pub(crate) fn give<T: Pooled>(v: Vec<T>) {
    let len = v.len();
    if len < MIN_LEN || v.capacity() != len {
        return;
    }
    let bytes = len * size_of::<T>();
    let mut p = pool();
    if p.bytes + bytes > MAX_BYTES {
        return;
    }
    let list = T::free(&mut p).0.entry(len).or_default();
    if list.len() < MAX_PER_LEN {
        list.push(v);
        p.bytes += bytes;
    }
}

/// Bytes waiting in the pool.
pub fn pooled_bytes() -> usize {
    pool().bytes
}

/// Frees every pooled buffer.
pub fn release() {
    let mut p = pool();
    *p = Pool::default();
}
