//! GPU buffer pool, keyed by size class.
//!
//! Classes are 4 per octave (sizes `2^e * {1, 1.25, 1.5, 1.75}`, smallest 64 bytes), so a
//! buffer is at most 25 % larger than asked for, and a workload whose shapes vary reuses a
//! bounded set of classes instead of growing memory with every new size (the tfjs WebGL/WebGPU
//! pools key by exact size and grow without bound).
//!
//! A buffer given back while recorded-but-unsubmitted commands may still use it goes to
//! `pending` and becomes reusable only after the next submit: a `queue.write_buffer` into a
//! reused buffer runs at the start of the next submission, i.e. *before* the commands already
//! recorded for that submission, and would clobber data they still have to read.

use std::collections::HashMap;

/// Smallest buffer the pool hands out (also what an empty tensor holds).
pub(crate) const MIN_CLASS: u64 = 64;

/// The size class a request of `bytes` is served from.
pub(crate) fn size_class(bytes: u64) -> u64 {
    if bytes <= MIN_CLASS {
        return MIN_CLASS;
    }
    // `e` = floor(log2(bytes - 1)): bytes lies in (2^e, 2^(e+1)]; step is a quarter octave.
    let e = 63 - (bytes - 1).leading_zeros() as u64;
    let step = 1u64 << (e - 2);
    bytes.div_ceil(step) * step
}

/// One kind of buffer (storage or staging): free lists per class and byte counts.
#[derive(Default)]
pub(crate) struct Pool {
    free: HashMap<u64, Vec<wgpu::Buffer>>,
    /// Given back while unsubmitted commands may reference them; freed at the next submit.
    pending: Vec<(u64, wgpu::Buffer)>,
    /// Class bytes of every buffer this pool owns (in use + pending + free).
    pub allocated: u64,
    /// Class bytes of pending + free buffers.
    pub free_bytes: u64,
}

impl Pool {
    /// A free buffer of `class` bytes, if there is one.
    pub fn take(&mut self, class: u64) -> Option<wgpu::Buffer> {
        let b = self.free.get_mut(&class)?.pop()?;
        self.free_bytes -= class;
        Some(b)
    }

    /// Records a buffer this pool just created (now in use).
    pub fn created(&mut self, class: u64) {
        self.allocated += class;
    }

    /// Gives a buffer back. `deferred`: commands that may use it are not submitted yet.
    pub fn give_back(&mut self, class: u64, buffer: wgpu::Buffer, deferred: bool) {
        self.free_bytes += class;
        if deferred {
            self.pending.push((class, buffer));
        } else {
            self.free.entry(class).or_default().push(buffer);
        }
    }

    /// After a submit: pending buffers become reusable.
    pub fn submitted(&mut self) {
        for (class, b) in self.pending.drain(..) {
            self.free.entry(class).or_default().push(b);
        }
    }

    /// Destroys every free buffer (pending ones stay until their submit).
    pub fn release_free(&mut self) {
        for (class, list) in self.free.drain() {
            for b in list {
                b.destroy();
                self.allocated -= class;
                self.free_bytes -= class;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_quarter_octaves() {
        assert_eq!(size_class(0), 64);
        assert_eq!(size_class(4), 64);
        assert_eq!(size_class(64), 64);
        assert_eq!(size_class(65), 80);
        assert_eq!(size_class(100), 112);
        assert_eq!(size_class(128), 128);
        assert_eq!(size_class(129), 160);
        assert_eq!(size_class(4000), 4096);
        assert_eq!(size_class(4097), 5120);
        assert_eq!(size_class(128 << 20), 128 << 20);
        for b in [65u64, 1000, 12345, 1 << 20, (1 << 20) + 1, 99_999_999] {
            let c = size_class(b);
            assert!(c >= b && (c as f64) <= b as f64 * 1.25 + 1.0, "{b} -> {c}");
            assert_eq!(c % 16, 0);
            assert_eq!(size_class(c), c, "classes are fixed points");
        }
    }
}
