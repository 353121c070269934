//! The engine's tfjs memory semantics on every backend: counts, scopes, keep, dispose,
//! variables, moving tensors between backends, errors on disposed tensors, and the kernel
//! funnel (profile records, tape nodes, intermediates freed).

use std::sync::Arc;
use tidytensor_core::{ArgOp, BinaryOp, DType, Engine, HostData, ReduceOp, TensorId, UnaryOp};
use tidytensor_cpu::CpuBackend;
use tidytensor_suite::{backend_tests, bools, f32s, fails, i32s, usage, values};

/// (numTensors, numDataBuffers, numBytes).
fn counts(e: &Engine) -> (usize, usize, usize) {
    let m = e.memory();
    (m.num_tensors, m.num_data_buffers, m.num_bytes)
}

/// The bytes the active backend holds for tensors.
fn backend_bytes(e: &Engine) -> usize {
    usage(e).3
}

fn counts_follow_tfjs(e: &mut Engine) {
    let (base, base_bytes) = (counts(e), backend_bytes(e));
    let add = |c: (usize, usize, usize)| (base.0 + c.0, base.1 + c.1, base.2 + c.2);
    let a = f32s(e, &[1., 2., 3., 4.], &[4]);
    assert_eq!(counts(e), add((1, 1, 16)));
    let held = backend_bytes(e);
    assert_eq!(held, base_bytes + 16, "the backend holds the values");
    let b = e.reshape(a, &[2, 2]).unwrap();
    assert_eq!(counts(e), add((2, 1, 32)), "reshape shares the buffer but counts bytes per tensor");
    let c = e.clone_tensor(a).unwrap();
    assert_eq!(counts(e), add((3, 1, 48)));
    assert_eq!(backend_bytes(e), held, "reshape and clone allocate nothing");
    e.dispose(a);
    assert_eq!(values(e, b, &[2, 2], DType::Float32), vec![1., 2., 3., 4.], "the buffer outlives a");
    e.dispose(b);
    e.dispose(b);
    assert_eq!(counts(e), add((1, 1, 16)), "disposing twice does nothing");
    e.dispose(c);
    assert_eq!(counts(e), base);
    assert_eq!(backend_bytes(e), base_bytes, "the last reference frees the storage");
    let flags = bools(e, &[1, 0, 1, 1], &[4]);
    assert_eq!(counts(e), add((1, 1, 4)), "bool is one byte per element");
    let s = e.reduce(ReduceOp::Sum, flags, None, false).unwrap();
    assert_eq!(values(e, s, &[], DType::Int32), vec![3.0]);
}

fn tidy_disposes_all_but_the_result(e: &mut Engine) {
    let outside = f32s(e, &[1.], &[]);
    let before = counts(e);
    let kept = e
        .tidy(|e| {
            let a = f32s(e, &[1., 2.], &[2]);
            let b = e.unary(UnaryOp::Square, a)?;
            let c = e.binary(BinaryOp::Add, b, outside)?;
            Ok(vec![c, outside])
        })
        .unwrap();
    assert_eq!(counts(e).0, before.0 + 1, "only the new result survives");
    assert_eq!(values(e, kept[0], &[2], DType::Float32), vec![2., 5.]);
    assert!(!e.is_disposed(outside), "a tensor from outside the scope is left alone");
    let failed = e.tidy(|e| {
        f32s(e, &[1., 2.], &[2]);
        fails_inside(e)
    });
    assert_eq!(failed.unwrap_err().0, "Tensor is disposed.");
    assert_eq!(counts(e).0, before.0 + 1, "a failing tidy disposes what it made");
}

/// An op on a disposed tensor, as a tidy body's failure.
fn fails_inside(e: &mut Engine) -> tidytensor_core::Result<Vec<TensorId>> {
    let t = f32s(e, &[1.], &[1]);
    e.dispose(t);
    e.unary(UnaryOp::Neg, t).map(|id| vec![id])
}

fn nested_scopes_move_results_to_the_parent(e: &mut Engine) {
    let before = counts(e).0;
    e.start_scope();
    let a = f32s(e, &[1.], &[]);
    e.start_scope();
    assert_eq!(e.scope_depth(), 3, "the harness's scope and two here");
    let b = f32s(e, &[2.], &[]);
    let c = f32s(e, &[3.], &[]);
    e.keep(a);
    e.end_scope(&[b]);
    assert!(e.is_disposed(c));
    assert!(!e.is_disposed(b));
    e.end_scope(&[]);
    assert!(e.is_disposed(b), "the result moved to the outer scope, which disposed it");
    assert!(!e.is_disposed(a), "kept from an inner scope");
    assert_eq!(counts(e).0, before + 1);
    e.dispose(a);
}

fn a_failing_op_inside_a_scope_leaks_nothing(e: &mut Engine) {
    let before = usage(e);
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
            let s = e.unary(UnaryOp::Exp, a)?;
            let b = f32s(e, &[1., 2.], &[2]);
            e.binary(BinaryOp::Add, s, b)?;
            Ok(vec![])
        })
        .unwrap_err();
    assert_eq!(err.0, "Operands could not be broadcast together with shapes 2,3 and 2.");
    assert_eq!(usage(e), before, "no tensor and no backend storage kept alive");
}

fn variables_follow_tfjs(e: &mut Engine) {
    let init = f32s(e, &[1., 2.], &[2]);
    let v = e
        .tidy(|e| {
            let inner = f32s(e, &[5., 6.], &[2]);
            let v = e.variable(inner, true, Some("w"), None)?;
            Ok(vec![v])
        })
        .unwrap()[0];
    assert!(!e.is_disposed(v), "variables are never disposed by scopes");
    assert_eq!(values(e, v, &[2], DType::Float32), vec![5., 6.]);
    assert_eq!(e.variable_name(v).unwrap(), "w");
    assert!(e.is_trainable(v).unwrap());
    assert_eq!(e.variable_name(init).unwrap_err().0, format!("Tensor {init} is not a variable"));
    fails(e, "Variable with name w was already registered", |e| e.variable(init, true, Some("w"), None));
    let before = counts(e);
    e.assign(v, init).unwrap();
    assert_eq!(counts(e).0, before.0);
    assert_eq!(counts(e).1, before.1 - 1, "the variable now shares init's buffer; its old one is freed");
    assert_eq!(values(e, v, &[2], DType::Float32), vec![1., 2.]);
    let wrong = f32s(e, &[1., 2., 3.], &[3]);
    assert_eq!(e.assign(v, wrong).unwrap_err().0, "shape of the new value (3) and previous value (2) must match");
    let ints = e.cast(init, DType::Int32).unwrap();
    assert_eq!(
        e.assign(v, ints).unwrap_err().0,
        "dtype of the new value (int32) and previous value (float32) must match"
    );
    assert_eq!(e.assign(init, v).unwrap_err().0, "assign() can only be called on a variable");
    let unnamed = e.variable(init, false, None, Some(DType::Int32)).unwrap();
    assert_eq!(values(e, unnamed, &[2], DType::Int32), vec![1., 2.], "a cast copy");
    assert!(!e.is_trainable(unnamed).unwrap());
    let names: Vec<String> = e.variables().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"w".to_string()));
    e.dispose_variables();
    assert!(e.is_disposed(v) && e.is_disposed(unnamed));
    assert!(e.variables().is_empty());
    let again = e.variable(init, true, Some("w"), None).unwrap();
    assert_eq!(e.variable_name(again).unwrap(), "w", "names are free again");
    e.dispose(again);
}

fn tensors_move_between_backends(e: &mut Engine) {
    let home = e.backend_name().unwrap();
    let buffers = counts(e).1;
    assert!(e.register_backend(Arc::new(CpuBackend::with_name("cpu2"))));
    assert!(!e.register_backend(Arc::new(CpuBackend::new())), "a name registers once");
    let a = f32s(e, &[1., 2.], &[2]);
    let shared = e.reshape(a, &[2, 1]).unwrap();
    let flags = bools(e, &[1, 0], &[2]);
    e.set_backend("cpu2").unwrap();
    let b = f32s(e, &[10., 20.], &[2]);
    let c = e.binary(BinaryOp::Add, a, b).unwrap();
    assert_eq!(values(e, c, &[2], DType::Float32), vec![11., 22.]);
    assert_eq!(values(e, shared, &[2, 1], DType::Float32), vec![1., 2.], "tensors sharing a buffer move with it");
    assert_eq!(counts(e).1, buffers + 4, "moving keeps one buffer per data id");
    let n = e.unary(UnaryOp::Neg, flags).unwrap();
    assert_eq!(values(e, n, &[2], DType::Bool), vec![1., 0.], "bool moves as bool");
    // And back: the moved buffers return to the backend under test.
    e.set_backend(home).unwrap();
    let d = e.binary(BinaryOp::Mul, c, shared).unwrap();
    assert_eq!(values(e, d, &[2, 2], DType::Float32), vec![11., 22., 22., 44.]);
    assert_eq!(e.set_backend("nope").unwrap_err().0, "Backend name 'nope' not found in registry");
    assert_eq!(e.backend_name(), Some(home));
}

fn using_a_disposed_tensor_is_an_error(e: &mut Engine) {
    let a = f32s(e, &[1.], &[]);
    e.dispose(a);
    assert!(e.is_disposed(a));
    fails(e, "Tensor is disposed.", |e| e.unary(UnaryOp::Neg, a));
    fails(e, "Tensor is disposed.", |e| e.read(a));
    let b = f32s(e, &[1.], &[]);
    fails(e, "Tensor is disposed.", |e| e.binary(BinaryOp::Add, b, a));
    fails(e, "Tensor is disposed.", |e| e.shape(a).map(<[usize]>::to_vec));
}

fn a_tensor_id_from_another_thread_names_no_tensor(e: &mut Engine) {
    let mine = f32s(e, &[1.], &[]);
    let theirs: Vec<TensorId> = std::thread::spawn(|| {
        tidytensor_core::with_engine(|e| {
            e.register_backend(Arc::new(CpuBackend::new()));
            (0..3).map(|i| f32s(e, &[i as f32], &[])).collect()
        })
    })
    .join()
    .unwrap();
    for id in theirs {
        assert_ne!(id, mine, "ids are unique in the process");
        assert!(e.is_disposed(id));
        fails(e, "This tensor belongs to another thread", |e| e.unary(UnaryOp::Neg, id));
        fails(e, "This tensor belongs to another thread", |e| e.read(id));
    }
    e.dispose(mine);
    fails(e, "Tensor is disposed.", |e| e.read(mine));
}

fn out_of_memory_is_an_error_before_anything_is_allocated(e: &mut Engine) {
    // Larger than the host has available, smaller than the backend's static limit: refused
    // before the memory is taken (the OS would grant it lazily and kill the process later).
    let Some(available) = e.backend().unwrap().available_bytes() else { return };
    let n = available / 4 + (1 << 20);
    if n * 4 > e.backend().unwrap().max_tensor_bytes() {
        return;
    }
    fails(e, "Out of memory on the", |e| e.fill(&[n], 1.0, DType::Float32));
    let a = f32s(e, &[1.], &[]);
    assert_eq!(values(e, a, &[], DType::Float32), vec![1.0], "the engine goes on");
    e.dispose(a);
}

fn tensor_checks_its_values(e: &mut Engine) {
    fails(e, "Based on the provided shape, [2, 2], the tensor should have 4 values but has 3", |e| {
        e.tensor(HostData::F32(vec![1., 2., 3.]), &[2, 2])
    });
    fails(e, "tidytensor supports tensors up to rank 6, but got rank 7", |e| e.tensor(HostData::I32(vec![1]), &[1; 7]));
    for data in [HostData::F32(vec![]), HostData::I32(vec![]), HostData::Bool(vec![])] {
        let dtype = data.dtype();
        let t = e.tensor(data, &[0, 3]).unwrap();
        assert_eq!(values(e, t, &[0, 3], dtype), Vec::<f64>::new());
    }
    let s = i32s(e, &[i32::MIN], &[]);
    assert_eq!(e.read(s).unwrap(), HostData::I32(vec![i32::MIN]), "values round-trip exactly");
}

fn a_read_started_before_dispose_completes(e: &mut Engine) {
    let x = f32s(e, &[1.5, -2.0, 3.25], &[3]);
    let y = e.unary(UnaryOp::Neg, x).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    e.read_async(y, Box::new(move |r| tx.send(r).unwrap())).unwrap();
    e.dispose(y);
    let got = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the read finishes");
    assert_eq!(got.unwrap(), HostData::F32(vec![-1.5, 2.0, -3.25]));
    fails(e, "Tensor is disposed.", |e| e.read_async(y, Box::new(|_| {})));
    e.synchronize().unwrap();
}

/// Each op called by the user is one record; kernels an op runs to do its work (the fill and
/// multiply of a matMul batch broadcast, the transpose of a reduction over leading axes) are
/// part of it and their intermediates are freed.
fn the_kernel_funnel_records_top_level_kernels(e: &mut Engine) {
    let a = f32s(e, &(1..=12).map(|v| v as f32).collect::<Vec<_>>(), &[2, 1, 2, 3]);
    let b = e.fill(&[1, 2, 3, 1], 1.0, DType::Float32).unwrap();
    let before = counts(e);
    let mark = e.start_profile();
    e.forward_start();
    // Batch dims [2, 1] and [1, 2]: both operands are broadcast to [2, 2] first.
    let m = e.matmul(a, b, false, false).unwrap();
    let s = e.reduce(ReduceOp::Max, m, Some(&[0, 2]), false).unwrap();
    let records = e.end_profile(mark, true);
    e.keep(m);
    e.keep(s);
    // The kernels' own nodes, without the Identity nodes of the tensors saved for gradients.
    let tape: Vec<_> = e.tape().iter().filter(|n| n.kernel != "Identity").cloned().collect();
    e.forward_end(None);
    let rows = [6., 15., 6., 15., 24., 33., 24., 33.];
    assert_eq!(values(e, m, &[2, 2, 2, 1], DType::Float32), rows);
    assert_eq!(values(e, s, &[2, 1], DType::Float32), vec![33., 33.]);
    assert_eq!(counts(e).0, before.0 + 2, "intermediates are freed");
    let names: Vec<&str> = records.iter().map(|r| r.name).collect();
    assert_eq!(names, ["BatchMatMul", "Max"]);
    let r = &records[0];
    assert_eq!((r.tensors_added, r.bytes_added), (1, 32));
    assert_eq!(r.input_shapes, vec![vec![2, 1, 2, 3], vec![1, 2, 3, 1]]);
    assert_eq!(r.output_shapes, vec![vec![2, 2, 2, 1]]);
    assert_eq!(r.total_tensors_snapshot, before.0 + 1);
    assert_eq!(r.total_bytes_snapshot, before.2 + 32);
    assert_eq!(tape.len(), 2);
    assert_eq!((tape[0].kernel, tape[0].inputs.clone(), tape[0].outputs.clone()), ("BatchMatMul", vec![a, b], vec![m]));
    assert_eq!((tape[1].kernel, tape[1].inputs.clone(), tape[1].outputs.clone()), ("Max", vec![m], vec![s]));
    // Nested profiles: the inner sees its own kernels, the outer all of them.
    let outer = e.start_profile();
    e.arg_reduce(ArgOp::ArgMax, a, -1).unwrap();
    let inner = e.start_profile();
    e.unary(UnaryOp::Exp, a).unwrap();
    let inner_records = e.end_profile(inner, false);
    let outer_records = e.end_profile(outer, true);
    assert_eq!(inner_records.iter().map(|r| r.name).collect::<Vec<_>>(), ["Exp"]);
    assert_eq!(outer_records.iter().map(|r| r.name).collect::<Vec<_>>(), ["ArgMax", "Exp"]);
    // Not profiling: nothing recorded.
    e.unary(UnaryOp::Exp, a).unwrap();
    assert!(e.end_profile(0, true).is_empty());
    // Kept for the checks above, outside the recording's scope.
    e.dispose(m);
    e.dispose(s);
}

backend_tests!(
    counts_follow_tfjs,
    tidy_disposes_all_but_the_result,
    nested_scopes_move_results_to_the_parent,
    a_failing_op_inside_a_scope_leaks_nothing,
    variables_follow_tfjs,
    tensors_move_between_backends,
    using_a_disposed_tensor_is_an_error,
    a_tensor_id_from_another_thread_names_no_tensor,
    out_of_memory_is_an_error_before_anything_is_allocated,
    tensor_checks_its_values,
    a_read_started_before_dispose_completes,
    the_kernel_funnel_records_top_level_kernels,
);
