//! Recycles large value buffers. Writing to freshly allocated memory costs a page fault per
//! 4 KiB, and for big tensors that costs more than the kernel that fills it (measured here: a
//! 5-op elementwise chain on 2^20 floats took 9 ms with fresh buffers and well under half
//! that when freed buffers were reused). Buffers are kept per exact length, since the same
//! shapes recur in a loop; the pool is bounded, reported in `tf.memory()` as
//! `numBytesInBackendFree`, and emptied by `releasePool()`. When it is full, the buffers
//! waiting longest make room: a program's shapes change (a benchmark's next workload, a model's
//! next layer), and a pool full of old sizes would make every new buffer fault its pages in
//! again (measured: a 4 MiB softmax went from 6.6 to 20 ms once earlier shapes filled the pool).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard};

/// Below this many elements the allocator is fast enough on its own.
pub(crate) const MIN_LEN: usize = 1 << 14;
/// At most this many bytes wait in the pool: a sixteenth of the machine's memory, from 256 MiB
/// to 1 GiB. A batch's activations must fit: MobileNetV2 on 16 images (77 MB layers) took
/// 15 ms per image with 256 MiB, its buffers faulted in again on every run, and 7-8 ms with
/// 1 GiB, as one image alone takes.
static MAX_BYTES: LazyLock<usize> =
    LazyLock::new(|| crate::physical_memory().map_or(256 << 20, |m| m / 16).clamp(256 << 20, 1 << 30));
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
    /// Which buffers came in when, oldest first: (element type, length).
    order: std::collections::VecDeque<(Kind, usize)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    F32,
    I32,
    U8,
}

impl Pool {
    /// Buffers waiting of one type and length.
    fn waiting(&self, kind: Kind, len: usize) -> usize {
        match kind {
            Kind::F32 => self.f32.0.get(&len).map_or(0, Vec::len),
            Kind::I32 => self.i32.0.get(&len).map_or(0, Vec::len),
            Kind::U8 => self.u8.0.get(&len).map_or(0, Vec::len),
        }
    }

    /// Drops the entries of buffers taken again since they came in (keeping the newest entry
    /// for each buffer still waiting), so the order stays as short as the pool.
    fn compact_order(&mut self) {
        let mut left = std::collections::HashMap::new();
        let mut kept = std::collections::VecDeque::new();
        for &(kind, len) in self.order.iter().rev() {
            let n = left.entry((kind as u8, len)).or_insert_with(|| self.waiting(kind, len));
            if *n > 0 {
                *n -= 1;
                kept.push_front((kind, len));
            }
        }
        self.order = kept;
    }

    /// Frees the longest-waiting buffer; false when the pool is empty.
    fn evict_oldest(&mut self) -> bool {
        while let Some((kind, len)) = self.order.pop_front() {
            let freed = match kind {
                Kind::F32 => self.f32.0.get_mut(&len).and_then(Vec::pop).map(|v| v.len() * 4),
                Kind::I32 => self.i32.0.get_mut(&len).and_then(Vec::pop).map(|v| v.len() * 4),
                Kind::U8 => self.u8.0.get_mut(&len).and_then(Vec::pop).map(|v| v.len()),
            };
            // An entry whose buffer was taken again since is stale: skip it.
            if let Some(bytes) = freed {
                self.bytes -= bytes;
                return true;
            }
        }
        false
    }
}

static POOL: LazyLock<Mutex<Pool>> = LazyLock::new(Mutex::default);

fn pool() -> MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// An element type whose buffers are pooled.
pub(crate) trait Pooled: Copy + Default + Send + Sync + 'static {
    const KIND: Kind;
    fn free(p: &mut Pool) -> &mut Free<Self>;
}

impl Pooled for f32 {
    const KIND: Kind = Kind::F32;
    fn free(p: &mut Pool) -> &mut Free<Self> {
        &mut p.f32
    }
}
impl Pooled for i32 {
    const KIND: Kind = Kind::I32;
    fn free(p: &mut Pool) -> &mut Free<Self> {
        &mut p.i32
    }
}
impl Pooled for u8 {
    const KIND: Kind = Kind::U8;
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
    if bytes > *MAX_BYTES {
        return;
    }
    let mut p = pool();
    if T::free(&mut p).0.get(&len).is_some_and(|l| l.len() >= MAX_PER_LEN) {
        return;
    }
    while p.bytes + bytes > *MAX_BYTES {
        if !p.evict_oldest() {
            return;
        }
    }
    T::free(&mut p).0.entry(len).or_default().push(v);
    p.bytes += bytes;
    p.order.push_back((T::KIND, len));
    if p.order.len() > 1024 {
        p.compact_order();
    }
}

/// A copy of `v` in a pooled buffer (whose pages are already mapped, when one is waiting).
pub(crate) fn copy_of<T: Pooled>(v: &[T]) -> Vec<T> {
    if v.len() >= MIN_LEN {
        let mut p = pool();
        if let Some(mut out) = T::free(&mut p).0.get_mut(&v.len()).and_then(Vec::pop) {
            p.bytes -= std::mem::size_of_val(v);
            drop(p);
            out.copy_from_slice(v);
            return out;
        }
    }
    v.to_vec()
}

/// Takes back the values of a read once their reader is done with them (JavaScript drops a
/// typed array): values read in a loop then reuse the same memory instead of faulting fresh
/// pages in every time.
pub fn recycle(data: crate::HostData) {
    match data {
        crate::HostData::F32(v) => give(v),
        crate::HostData::I32(v) => give(v),
        crate::HostData::Bool(v) => give(v),
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
