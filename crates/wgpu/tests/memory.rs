//! Leak and pool tests on the wgpu backend, the >65,535-workgroup grid, limits and errors.

mod common;

use std::time::Instant;
use tidytensor_core::{Backend, BinaryOp, DType, Engine, HostData, ReduceOp, Result, TensorId, UnaryOp};

fn counts(e: &Engine) -> (usize, usize, usize, f64) {
    let m = e.memory();
    (m.num_tensors, m.num_data_buffers, m.num_bytes, common::field(e, "numBytesInGPU"))
}

fn f32s(e: &mut Engine, v: Vec<f32>, shape: &[usize]) -> TensorId {
    e.tensor(HostData::F32(v), shape).unwrap()
}

#[test]
fn adapter_info_and_memory_fields() {
    common::with_gpu(|e, b| {
        let info = b.info();
        let (name, driver, driver_info, backend) = b.adapter_info();
        eprintln!("adapter: {name} / {driver} / {driver_info} / {backend}, hardware: {}, {info:?}", b.is_hardware());
        assert_eq!(info.name, name);
        assert!(info.max_storage_buffer_binding_size >= 1 << 27);
        let fields: Vec<&str> = e.memory().backend.fields.iter().map(|(n, _)| *n).collect();
        assert_eq!(fields, ["numBytesInGPU", "numBytesInGPUAllocated", "numBytesInGPUFree"]);
        assert!(!e.memory().backend.unreliable);
        let before = common::field(e, "numBytesInGPU");
        let x = e.tensor(HostData::Bool(vec![1, 0, 1]), &[3]).unwrap();
        // numBytes counts 1 byte per bool (tfjs); the GPU holds one u32 per element.
        assert_eq!(common::field(e, "numBytesInGPU") - before, 12.0);
        let y = e.fill(&[10], 1.0, DType::Float32).unwrap();
        assert_eq!(common::field(e, "numBytesInGPU") - before, 52.0);
        let alloc = common::field(e, "numBytesInGPUAllocated");
        let free = common::field(e, "numBytesInGPUFree");
        assert!(alloc - free >= 52.0, "buffers in use hold at least the live bytes");
        e.dispose(x);
        e.dispose(y);
        assert_eq!(common::field(e, "numBytesInGPU"), before);
    });
}

#[test]
fn tidy_failing_ops_and_long_loops_leak_nothing() {
    common::with_gpu(|e, _| {
        let x = f32s(e, common::values(12, 1, -1.0, 1.0), &[3, 4]);
        let w = f32s(e, common::values(20, 2, -1.0, 1.0), &[4, 5]);
        let base = counts(e);
        // Every kind of kernel, including those with GPU temporaries (multi-pass reductions).
        e.tidy(|e| {
            let a = e.matmul(x, w, false, false)?;
            let s = e.softmax(a, -1)?;
            let t = e.transpose(s, None)?;
            let big = e.fill(&[3, 20_000], 0.5, DType::Float32)?;
            let r = e.reduce(ReduceOp::Sum, big, Some(&[1]), false)?;
            let m = e.reduce(ReduceOp::Mean, big, None, false)?;
            let i = e.cast(big, DType::Int32)?;
            let im = e.reduce(ReduceOp::Mean, i, Some(&[1]), false)?;
            let c = e.concat(&[t, t], 0)?;
            let g = e.arg_reduce(tidytensor_core::ArgOp::ArgMax, c, 0)?;
            let oh = e.one_hot(g, 4.0, 1.0, 0.0, DType::Bool)?;
            let sl = e.slice(oh, &[0, 1], &[2, 2])?;
            let _ = e.gather(x, g, 1, 0);
            let _ = (r, m, im, sl);
            Ok(vec![])
        })
        .unwrap();
        assert_eq!(counts(e), base, "after tidy");
        // A failing op inside tidy (broadcast error after some GPU work).
        let r = e.tidy(|e| {
            let a = e.unary(UnaryOp::Exp, x)?;
            let b = e.reshape(a, &[4, 3])?;
            e.binary(BinaryOp::Add, a, b)?;
            Ok(vec![])
        });
        assert!(r.is_err());
        assert_eq!(counts(e), base, "after a failing op");
        // 10,000 iterations of a small op: counts stay, and the pool reaches a steady size.
        let t0 = Instant::now();
        let mut alloc_at_100 = 0.0;
        for i in 0..10_000 {
            e.tidy(|e| {
                let a = e.binary(BinaryOp::Add, x, x)?;
                let b = e.unary(UnaryOp::Relu, a)?;
                Ok(vec![b])
            })
            .map(|ids| e.dispose(ids[0]))
            .unwrap();
            if i == 100 {
                alloc_at_100 = common::field(e, "numBytesInGPUAllocated");
            }
        }
        let per_op = t0.elapsed().as_secs_f64() / 20_000.0 * 1e6;
        eprintln!("10,000 tidy iterations of add+relu [3,4]: {per_op:.1} µs per op (no readback)");
        assert_eq!(counts(e), base, "after 10,000 tidy iterations");
        assert_eq!(common::field(e, "numBytesInGPUAllocated"), alloc_at_100, "pool grew during the loop");
        let v = e.read(x).unwrap();
        assert_eq!(v.len(), 12);
        e.dispose(x);
        e.dispose(w);
    });
}

#[test]
fn pool_does_not_grow_with_varying_shapes() {
    common::with_gpu(|e, b| {
        b.release_pool().unwrap();
        let base = counts(e);
        let mut allocated = vec![];
        for epoch in 0..4 {
            for i in 0..120usize {
                let n = 1 + (i * 7919) % 5000;
                e.tidy(|e| {
                    let a = e.fill(&[n], i as f64, DType::Float32)?;
                    let b2 = e.unary(UnaryOp::Square, a)?;
                    let c = e.reduce(ReduceOp::Sum, b2, None, false)?;
                    let v = e.read(c)?;
                    assert_eq!(v, HostData::F32(vec![(i * i * n) as f32]), "epoch {epoch} n {n}");
                    Ok(vec![])
                })
                .unwrap();
            }
            allocated.push(common::field(e, "numBytesInGPUAllocated"));
        }
        eprintln!("pool allocated bytes after each epoch: {allocated:?}");
        assert_eq!(counts(e), base);
        assert!(allocated[3] <= allocated[0], "pool grew: {allocated:?}");
        // No tensor is live, so every pooled buffer is free, and release_pool gives them back.
        assert_eq!(e.memory().num_tensors, 0);
        assert_eq!(common::field(e, "numBytesInGPUAllocated"), common::field(e, "numBytesInGPUFree"));
        b.release_pool().unwrap();
        assert_eq!(common::field(e, "numBytesInGPUFree"), 0.0);
    });
}

#[test]
fn more_than_65535_workgroups() {
    common::with_gpu(|e, _| {
        // 17M elements / 256 per workgroup = 66,407 workgroups: a 2-D grid.
        let n = 17_000_000usize;
        let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| (i / 1000) as f32).collect();
        let t0 = Instant::now();
        let r = e
            .tidy(|e| {
                let x = e.tensor(HostData::F32(a), &[n])?;
                let y = e.tensor(HostData::F32(b), &[n])?;
                Ok(vec![e.binary(BinaryOp::Add, x, y)?])
            })
            .unwrap()[0];
        let HostData::F32(v) = e.read(r).unwrap() else { panic!("float32 expected") };
        eprintln!("17M-element add incl. upload and readback: {:?}", t0.elapsed());
        let bad = v.iter().enumerate().filter(|&(i, &s)| s != ((i % 1000) + i / 1000) as f32).count();
        assert_eq!(bad, 0, "wrong sums");
        e.dispose(r);
    });
}

#[test]
fn oversized_tensors_are_refused() {
    common::with_gpu(|e, b| {
        let max = b.info().max_storage_buffer_binding_size;
        if max > 1 << 30 {
            eprintln!("skipped: binding limit {max} is too large to test cheaply");
            return;
        }
        // The engine refuses it before the backend allocates anything.
        let n = (max / 4 + 1) as usize;
        let r: Result<TensorId> = e.fill(&[n], 1.0, DType::Float32);
        let err = r.unwrap_err().0;
        assert!(err.contains("is larger than the wgpu backend can hold"), "{err}");
        assert_eq!(e.memory().num_tensors, 0);
        // A bool tensor fits the engine's byte count (1 byte per element) but takes a 32-bit
        // word per element on the GPU: the backend itself refuses it.
        let r: Result<TensorId> = e.fill(&[n], 1.0, DType::Bool);
        let err = r.unwrap_err().0;
        assert!(err.contains("exceeds the GPU's max storage binding size"), "{err}");
        assert_eq!(e.memory().num_tensors, 0);
    });
}

/// 1,000 chained ops, each freeing its input, span many submits (one per 32 dispatches): every
/// intermediate goes back to the pool and is reused, so neither live nor pooled bytes grow.
#[test]
fn long_chains_free_every_intermediate() {
    common::with_gpu(|e, _| {
        let x = f32s(e, vec![1.0, -2.0, 3.5, 0.0], &[4]);
        let base = counts(e);
        let mut allocated = vec![];
        for _ in 0..3 {
            let mut cur = e.clone_tensor(x).unwrap();
            for _ in 0..1000 {
                let next = e.unary(UnaryOp::Neg, cur).unwrap();
                e.dispose(cur);
                cur = next;
            }
            assert_eq!(e.read(cur).unwrap(), HostData::F32(vec![1.0, -2.0, 3.5, 0.0]), "an even number of negations");
            e.dispose(cur);
            assert_eq!(counts(e), base);
            allocated.push(common::field(e, "numBytesInGPUAllocated"));
        }
        assert!(allocated[2] <= allocated[0], "the pool grew from chain to chain: {allocated:?}");
        e.dispose(x);
    });
}
