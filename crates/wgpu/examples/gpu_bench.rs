//! GPU figures for the README, measured through the engine on the wgpu backend (no Node
//! needed, so it runs on a GPU machine that has neither Node nor Rust; see bench/device.sh):
//! matMul GFLOP/s, the elementwise chain, dispatch overhead per tiny op, readback latency.
//!
//! `cargo run --release -p tidytensor-wgpu --example gpu_bench [-- 1024,2048,4096 [2^k]]`

use std::sync::Arc;
use std::time::Instant;
use tidytensor_core::ops::Random;
use tidytensor_core::{with_engine, BinaryOp, DType, Engine, ReduceOp, TensorId, UnaryOp};
use tidytensor_wgpu::WgpuBackend;

type R<T> = tidytensor_core::Result<T>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median seconds of `samples` runs of `f` (after one warm-up run).
fn time(samples: usize, mut f: impl FnMut() -> R<()>) -> R<f64> {
    f()?;
    let mut t = Vec::with_capacity(samples);
    for _ in 0..samples {
        let start = Instant::now();
        f()?;
        t.push(start.elapsed().as_secs_f64());
    }
    Ok(median(t))
}

fn run(e: &mut Engine, gpu: &WgpuBackend, sizes: &[usize], chain_log2: u32) -> R<()> {
    let info = gpu.info();
    println!(
        "adapter: {} ({}, {} {}), type {}",
        info.name, info.backend, info.driver, info.driver_info, info.device_type
    );

    for &n in sizes {
        let a = e.random(&[n, n], Random::Normal { mean: 0.0, std_dev: 1.0 }, DType::Float32, Some("1"))?;
        let b = e.random(&[n, n], Random::Normal { mean: 0.0, std_dev: 1.0 }, DType::Float32, Some("2"))?;
        let reps = (4096.0f64 / n as f64).powi(3).clamp(1.0, 64.0) as usize * 4;
        let secs = time(5, || {
            for _ in 0..reps {
                let c = e.matmul(a, b, false, false)?;
                e.dispose(c);
            }
            gpu.synchronize()
        })?;
        let gflops = 2.0 * (n as f64).powi(3) * reps as f64 / secs / 1e9;
        println!("RESULT matmul{n} {gflops:.1} GFLOP/s ({reps} products per sample)");
        e.dispose(a);
        e.dispose(b);
    }

    let len = 1usize << chain_log2;
    let x = e.random(&[len], Random::Normal { mean: 0.0, std_dev: 1.0 }, DType::Float32, Some("3"))?;
    let (two, one) = (e.fill(&[], 2.0, DType::Float32)?, e.fill(&[], 1.0, DType::Float32)?);
    let secs = time(9, || {
        let ids = e.tidy(|e| {
            let t = e.binary(BinaryOp::Mul, x, two)?;
            let t = e.binary(BinaryOp::Add, t, one)?;
            let t = e.unary(UnaryOp::Relu, t)?;
            let t = e.unary(UnaryOp::Square, t)?;
            Ok(vec![e.reduce(ReduceOp::Sum, t, None, false)?])
        })?;
        e.read(ids[0])?;
        e.dispose(ids[0]);
        Ok(())
    })?;
    println!("RESULT chain2^{chain_log2} {:.3} ms (x.mul(2).add(1).relu().square().sum(), read back)", secs * 1e3);

    let small: TensorId = e.tensor(tidytensor_core::HostData::F32(vec![1.0, 2.0, 3.0, 4.0]), &[4])?;
    let ops = 10_000;
    let secs = time(5, || {
        e.tidy(|e| {
            for _ in 0..ops {
                e.binary(BinaryOp::Add, small, small)?;
            }
            Ok(vec![])
        })?;
        gpu.synchronize()
    })?;
    println!("RESULT dispatch {:.2} us/op (10,000 batched adds of 4 floats, engine included)", secs / ops as f64 * 1e6);

    let secs = time(51, || {
        let c = e.binary(BinaryOp::Add, small, small)?;
        e.read(c)?;
        e.dispose(c);
        Ok(())
    })?;
    println!("RESULT readback {:.1} us (one tiny add, then read 4 floats)", secs * 1e6);
    Ok(())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let sizes: Vec<usize> = args
        .next()
        .map(|s| s.split(',').filter_map(|v| v.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1024, 2048, 4096]);
    let chain_log2: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(24);
    let gpu = match WgpuBackend::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("no wgpu adapter: {e}");
            std::process::exit(2);
        }
    };
    let result = with_engine(|e| {
        e.register_backend(Arc::new(gpu.clone()));
        run(e, &gpu, &sizes, chain_log2)
    });
    if let Err(e) = result {
        eprintln!("gpu_bench failed: {e}");
        std::process::exit(1);
    }
}
