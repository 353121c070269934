//! The machine's floating-point peak, for the benchmarks' targets: a loop of fused
//! multiply-adds that never touches memory, on every core at once.

use std::time::{Duration, Instant};

/// Independent accumulator chains × lanes: enough chains to hide the FMA latency on two FMA
/// units (8 AVX-512 or 16 AVX2 registers), all held in registers.
const CHAINS: usize = 8;
const LANES: usize = 16;
const ROUNDS: usize = 4096;

/// `ROUNDS` fused multiply-adds on every lane of every chain; returns a value that depends on
/// them all, so the compiler keeps the work.
#[multiversion::multiversion(targets("x86_64+avx2+fma", "x86_64+avx512f+avx512bw+avx512dq+avx512vl", "aarch64+neon"))]
fn fma_rounds(seed: f32) -> f32 {
    let mut acc = [[seed; LANES]; CHAINS];
    let (m, a) = (0.999_999_9f32, 1e-7f32);
    for _ in 0..ROUNDS {
        for chain in acc.iter_mut() {
            for x in chain.iter_mut() {
                *x = x.mul_add(m, a);
            }
        }
    }
    acc.iter().flatten().sum()
}

/// GFLOP/s of single-precision FMA (2 FLOPs each) on all of rayon's threads, run for about
/// `duration`. Where the CPU has no FMA unit, `mul_add` is a library call and the figure is
/// low, as the real peak of such a machine is.
pub fn fma_peak_gflops(duration: Duration) -> f64 {
    let start = Instant::now();
    let rounds: u64 = rayon::broadcast(|ctx| {
        let mut n = 0u64;
        let mut sink = 0f32;
        while start.elapsed() < duration {
            sink += fma_rounds(1.0 + ctx.index() as f32 * 1e-3);
            n += 1;
        }
        std::hint::black_box(sink);
        n
    })
    .into_iter()
    .sum();
    let secs = start.elapsed().as_secs_f64();
    let flops = rounds as f64 * (ROUNDS * CHAINS * LANES * 2) as f64;
    flops / secs / 1e9
}
