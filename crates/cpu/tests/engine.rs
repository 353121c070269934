//! The engine's tfjs memory semantics, exercised on the CPU backend. Each test runs on its own
//! thread and so gets a fresh engine.

use std::sync::Arc;
use tidytensor_core::{with_engine, DType, Engine, HostData, TensorId};
use tidytensor_cpu::CpuBackend;

fn run<R>(f: impl FnOnce(&mut Engine) -> R) -> R {
    with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        f(e)
    })
}

fn counts(e: &Engine) -> (usize, usize, usize) {
    let m = e.memory();
    (m.num_tensors, m.num_data_buffers, m.num_bytes)
}

fn f32s(e: &mut Engine, v: &[f32], shape: &[usize]) -> TensorId {
    e.tensor(HostData::F32(v.to_vec()), shape).unwrap()
}

#[test]
fn counts_follow_tfjs() {
    run(|e| {
        let a = f32s(e, &[1., 2., 3., 4.], &[4]);
        assert_eq!(counts(e), (1, 1, 16));
        let b = e.reshape(a, &[2, 2]).unwrap();
        assert_eq!(counts(e), (2, 1, 32), "reshape shares the buffer but counts bytes per tensor");
        let c = e.clone_tensor(a).unwrap();
        assert_eq!(counts(e), (3, 1, 48));
        e.dispose(a);
        assert_eq!(e.read(b).unwrap(), HostData::F32(vec![1., 2., 3., 4.]));
        e.dispose(b);
        e.dispose(b);
        assert_eq!(counts(e), (1, 1, 16));
        e.dispose(c);
        assert_eq!(counts(e), (0, 0, 0));
        let flags = e.tensor(HostData::Bool(vec![1, 0, 1, 1]), &[4]).unwrap();
        assert_eq!(counts(e), (1, 1, 4), "bool is one byte per element");
        let s = e.reduce(tidytensor_core::ReduceOp::Sum, flags, None, false).unwrap();
        assert_eq!(e.dtype(s).unwrap(), DType::Int32);
        assert_eq!(e.read(s).unwrap(), HostData::I32(vec![3]));
    });
}

#[test]
fn tidy_disposes_all_but_the_result() {
    run(|e| {
        let outside = f32s(e, &[1.], &[]);
        let before = counts(e);
        let kept = e
            .tidy(|e| {
                let a = f32s(e, &[1., 2.], &[2]);
                let b = e.unary(tidytensor_core::UnaryOp::Square, a)?;
                let c = e.binary(tidytensor_core::BinaryOp::Add, b, outside)?;
                Ok(vec![c, outside])
            })
            .unwrap();
        assert_eq!(counts(e).0, before.0 + 1);
        assert_eq!(e.read(kept[0]).unwrap(), HostData::F32(vec![2., 5.]));
        assert!(!e.is_disposed(outside), "a tensor from outside the scope is left alone");
    });
}

#[test]
fn nested_scopes_move_results_to_the_parent() {
    run(|e| {
        e.start_scope();
        let a = f32s(e, &[1.], &[]);
        e.start_scope();
        let b = f32s(e, &[2.], &[]);
        let c = f32s(e, &[3.], &[]);
        e.keep(a);
        e.end_scope(&[b]);
        assert!(e.is_disposed(c));
        assert!(!e.is_disposed(b));
        e.end_scope(&[]);
        assert!(e.is_disposed(b), "the result moved to the outer scope, which disposed it");
        assert!(!e.is_disposed(a), "kept from an inner scope");
        assert_eq!(counts(e).0, 1);
    });
}

#[test]
fn a_failing_op_inside_a_scope_leaks_nothing() {
    run(|e| {
        let bytes = tidytensor_cpu::thread_live_bytes();
        let err = e
            .tidy(|e| {
                let a = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
                let b = f32s(e, &[1., 2., 3., 4.], &[4]);
                e.matmul(a, b, false, false)?;
                Ok(vec![])
            })
            .unwrap_err();
        assert!(err.0.contains("Error in matMul"), "{err}");
        let err = e
            .tidy(|e| {
                let a = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
                let b = f32s(e, &[1., 2.], &[2]);
                e.binary(tidytensor_core::BinaryOp::Add, a, b)?;
                Ok(vec![])
            })
            .unwrap_err();
        assert_eq!(err.0, "Operands could not be broadcast together with shapes 2,3 and 2.");
        assert_eq!(counts(e), (0, 0, 0));
        assert_eq!(tidytensor_cpu::thread_live_bytes(), bytes, "no storage kept alive");
    });
}

#[test]
fn variables_follow_tfjs() {
    run(|e| {
        let init = f32s(e, &[1., 2.], &[2]);
        let v = e
            .tidy(|e| {
                let inner = f32s(e, &[5., 6.], &[2]);
                let v = e.variable(inner, true, Some("w"), None)?;
                Ok(vec![v])
            })
            .unwrap()[0];
        assert!(!e.is_disposed(v), "variables are never disposed by scopes");
        assert_eq!(e.read(v).unwrap(), HostData::F32(vec![5., 6.]));
        let err = e.variable(init, true, Some("w"), None).unwrap_err();
        assert_eq!(err.0, "Variable with name w was already registered");
        let before = counts(e);
        e.assign(v, init).unwrap();
        assert_eq!(counts(e).0, before.0);
        assert_eq!(e.read(v).unwrap(), HostData::F32(vec![1., 2.]));
        let wrong = f32s(e, &[1., 2., 3.], &[3]);
        assert_eq!(e.assign(v, wrong).unwrap_err().0, "shape of the new value (3) and previous value (2) must match");
        let ints = e.cast(init, DType::Int32).unwrap();
        assert_eq!(
            e.assign(v, ints).unwrap_err().0,
            "dtype of the new value (int32) and previous value (float32) must match"
        );
        let unnamed = e.variable(init, false, None, Some(DType::Int32)).unwrap();
        assert_eq!(e.dtype(unnamed).unwrap(), DType::Int32);
        assert!(!e.is_trainable(unnamed).unwrap());
        e.dispose_variables();
        assert!(e.is_disposed(v) && e.is_disposed(unnamed));
        assert!(e.variable(init, true, Some("w"), None).is_ok(), "names are free again");
    });
}

#[test]
fn tensors_move_between_backends() {
    run(|e| {
        assert!(e.register_backend(Arc::new(CpuBackend::with_name("cpu2"))));
        assert!(!e.register_backend(Arc::new(CpuBackend::new())), "a name registers once");
        let a = f32s(e, &[1., 2.], &[2]);
        let shared = e.reshape(a, &[2, 1]).unwrap();
        e.set_backend("cpu2").unwrap();
        let b = f32s(e, &[10., 20.], &[2]);
        let c = e.binary(tidytensor_core::BinaryOp::Add, a, b).unwrap();
        assert_eq!(e.read(c).unwrap(), HostData::F32(vec![11., 22.]));
        assert_eq!(e.read(shared).unwrap(), HostData::F32(vec![1., 2.]));
        assert_eq!(counts(e).1, 3, "moving keeps one buffer per data id");
        assert_eq!(e.set_backend("nope").unwrap_err().0, "Backend name 'nope' not found in registry");
    });
}

#[test]
fn using_a_disposed_tensor_is_an_error() {
    run(|e| {
        let a = f32s(e, &[1.], &[]);
        e.dispose(a);
        assert_eq!(e.unary(tidytensor_core::UnaryOp::Neg, a).unwrap_err().0, "Tensor is disposed.");
        assert_eq!(e.read(a).unwrap_err().0, "Tensor is disposed.");
    });
}
