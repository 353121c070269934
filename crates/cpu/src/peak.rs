//! The machine's floating-point peak, for the benchmarks' targets: a loop of fused
//! multiply-adds on registers only, on every core at once, with the widest vectors the CPU has
//! (picked at run time).

use std::time::{Duration, Instant};

/// Fused multiply-adds per lane per call, in each of `CHAINS` independent chains (enough to
/// keep two FMA units busy through their latency).
const ROUNDS: usize = 4096;
const CHAINS: usize = 12;

/// Runs `ROUNDS` FMA steps on `CHAINS` vectors; returns (a value that depends on them all,
/// floats per vector).
fn fma_rounds(seed: f32) -> (f32, usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            return (unsafe { x86::avx512(seed) }, 16);
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has AVX2 and FMA (checked just above).
            return (unsafe { x86::avx2(seed) }, 8);
        }
    }
    let mut acc = [seed; CHAINS];
    for _ in 0..ROUNDS {
        for a in acc.iter_mut() {
            *a = a.mul_add(0.999_999_9, 1e-7);
        }
    }
    (acc.iter().sum(), 1)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{CHAINS, ROUNDS};
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512(seed: f32) -> f32 {
        let (m, a) = (_mm512_set1_ps(0.999_999_9), _mm512_set1_ps(1e-7));
        let mut acc = [_mm512_set1_ps(seed); CHAINS];
        for _ in 0..ROUNDS {
            for v in acc.iter_mut() {
                *v = _mm512_fmadd_ps(*v, m, a);
            }
        }
        acc.iter().map(|&v| _mm512_reduce_add_ps(v)).sum()
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn avx2(seed: f32) -> f32 {
        let (m, a) = (_mm256_set1_ps(0.999_999_9), _mm256_set1_ps(1e-7));
        let mut acc = [_mm256_set1_ps(seed); CHAINS];
        for _ in 0..ROUNDS {
            for v in acc.iter_mut() {
                *v = _mm256_fmadd_ps(*v, m, a);
            }
        }
        let mut out = [0f32; 8];
        let sum = acc.iter().fold(_mm256_setzero_ps(), |s, &v| _mm256_add_ps(s, v));
        _mm256_storeu_ps(out.as_mut_ptr(), sum);
        out.iter().sum()
    }
}

/// GFLOP/s of single-precision FMA (2 FLOPs each) on all of rayon's threads, run for about
/// `duration`.
pub fn fma_peak_gflops(duration: Duration) -> f64 {
    let start = Instant::now();
    let flops: f64 = rayon::broadcast(|ctx| {
        let mut n = 0f64;
        let mut sink = 0f32;
        while start.elapsed() < duration {
            let (v, lanes) = fma_rounds(1.0 + ctx.index() as f32 * 1e-3);
            sink += v;
            n += (ROUNDS * CHAINS * lanes * 2) as f64;
        }
        std::hint::black_box(sink);
        n
    })
    .into_iter()
    .sum();
    flops / start.elapsed().as_secs_f64() / 1e9
}
