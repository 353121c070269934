//! Every op front-end on the CPU backend: values, dtypes, shapes, and a leak check that the
//! registry counts are unchanged after running the op inside a scope.

use std::sync::Arc;
use tidytensor_core::ops::Random;
use tidytensor_core::{with_engine, ArgOp, BinaryOp, DType, Engine, HostData, ReduceOp, Result, TensorId, UnaryOp};
use tidytensor_cpu::CpuBackend;

fn run<R>(f: impl FnOnce(&mut Engine) -> R) -> R {
    with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        f(e)
    })
}

fn t(e: &mut Engine, v: &[f32], shape: &[usize]) -> TensorId {
    e.tensor(HostData::F32(v.to_vec()), shape).unwrap()
}

fn ti(e: &mut Engine, v: &[i32], shape: &[usize]) -> TensorId {
    e.tensor(HostData::I32(v.to_vec()), shape).unwrap()
}

/// Runs `op` in a scope that returns nothing and checks that the counts are unchanged.
fn leak_free(e: &mut Engine, name: &str, op: impl FnOnce(&mut Engine) -> Result<TensorId>) {
    let m0 = e.memory();
    let bytes = tidytensor_cpu::thread_live_bytes();
    e.start_scope();
    let r = op(e);
    e.end_scope(&[]);
    let m1 = e.memory();
    assert!(r.is_ok(), "{name}: {:?}", r.err());
    assert_eq!(
        (m0.num_tensors, m0.num_data_buffers, m0.num_bytes),
        (m1.num_tensors, m1.num_data_buffers, m1.num_bytes),
        "{name} leaked"
    );
    assert_eq!(tidytensor_cpu::thread_live_bytes(), bytes, "{name} left backend storage alive");
}

#[test]
fn every_op_is_leak_free() {
    run(|e| {
        let x = t(e, &[1., -2., 3., 4., 0.5, -6.], &[2, 3]);
        let y = t(e, &[1., 2., 3.], &[3]);
        let idx = ti(e, &[1, 0, 1], &[3]);
        let three = t(e, &[1., 2., 3., 4., 5., 6.], &[1, 2, 3]);
        let ops: Vec<(&str, Box<dyn FnOnce(&mut Engine) -> Result<TensorId>>)> = vec![
            ("neg", Box::new(|e| e.unary(UnaryOp::Neg, x))),
            ("square", Box::new(|e| e.unary(UnaryOp::Square, x))),
            ("sqrt", Box::new(|e| e.unary(UnaryOp::Sqrt, x))),
            ("exp", Box::new(|e| e.unary(UnaryOp::Exp, idx))),
            ("log", Box::new(|e| e.unary(UnaryOp::Log, x))),
            ("abs", Box::new(|e| e.unary(UnaryOp::Abs, x))),
            ("relu", Box::new(|e| e.unary(UnaryOp::Relu, x))),
            ("sigmoid", Box::new(|e| e.unary(UnaryOp::Sigmoid, x))),
            ("tanh", Box::new(|e| e.unary(UnaryOp::Tanh, x))),
            ("add", Box::new(|e| e.binary(BinaryOp::Add, x, y))),
            ("sub int-float", Box::new(|e| e.binary(BinaryOp::Sub, idx, y))),
            ("mul", Box::new(|e| e.binary(BinaryOp::Mul, x, y))),
            ("div", Box::new(|e| e.binary(BinaryOp::Div, x, y))),
            ("floordiv", Box::new(|e| e.binary(BinaryOp::Div, idx, idx))),
            ("maximum", Box::new(|e| e.binary(BinaryOp::Maximum, x, y))),
            ("minimum", Box::new(|e| e.binary(BinaryOp::Minimum, x, y))),
            ("pow", Box::new(|e| e.binary(BinaryOp::Pow, x, y))),
            ("matmul", Box::new(|e| e.matmul(x, x, false, true))),
            ("matmul batch broadcast", Box::new(|e| e.matmul(three, x, false, true))),
            ("sum", Box::new(|e| e.reduce(ReduceOp::Sum, x, Some(&[0]), false))),
            ("mean", Box::new(|e| e.reduce(ReduceOp::Mean, x, None, true))),
            ("max", Box::new(|e| e.reduce(ReduceOp::Max, three, Some(&[0, 2]), false))),
            (
                "max of nothing",
                Box::new(|e| {
                    let empty = e.fill(&[2, 0], 0.0, DType::Float32)?;
                    e.reduce(ReduceOp::Max, empty, Some(&[1]), false)
                }),
            ),
            ("min", Box::new(|e| e.reduce(ReduceOp::Min, x, Some(&[-1]), false))),
            ("argMax", Box::new(|e| e.arg_reduce(ArgOp::ArgMax, x, 0))),
            ("argMin", Box::new(|e| e.arg_reduce(ArgOp::ArgMin, x, 1))),
            ("softmax", Box::new(|e| e.softmax(x, -1))),
            ("expandDims", Box::new(|e| e.expand_dims(x, 1))),
            ("squeeze", Box::new(|e| e.squeeze(three, None))),
            ("transpose", Box::new(|e| e.transpose(three, Some(&[2, 0, 1])))),
            ("concat", Box::new(|e| e.concat(&[x, x], 1))),
            ("stack", Box::new(|e| e.stack(&[y, y, y], 1))),
            ("slice", Box::new(|e| e.slice(x, &[0, 1], &[2, -1]))),
            ("gather", Box::new(|e| e.gather(x, idx, 1, 0))),
            (
                "gather batchDims",
                Box::new(|e| {
                    let pairs = ti(e, &[0, 1, 1, 0], &[2, 2]);
                    e.gather(x, pairs, 1, 1)
                }),
            ),
            ("cast", Box::new(|e| e.cast(x, DType::Bool))),
            ("reshape", Box::new(|e| e.reshape(x, &[3, -1]))),
            ("clone", Box::new(|e| e.clone_tensor(x))),
            ("fill", Box::new(|e| e.fill(&[2, 2], 7.0, DType::Int32))),
            ("range", Box::new(|e| e.range(0.0, 5.0, 1.5, DType::Float32))),
            ("linspace", Box::new(|e| e.linspace(0.0, 1.0, 5))),
            ("eye", Box::new(|e| e.eye(3, Some(2), &[2], DType::Float32))),
            ("oneHot", Box::new(|e| e.one_hot(idx, 3.0, 1.0, 0.0, DType::Int32))),
            (
                "randomNormal",
                Box::new(|e| e.random(&[10], Random::Normal { mean: 0.0, std_dev: 1.0 }, DType::Float32, Some(1.0))),
            ),
            (
                "truncatedNormal",
                Box::new(|e| {
                    e.random(&[10], Random::TruncatedNormal { mean: 0.0, std_dev: 1.0 }, DType::Float32, None)
                }),
            ),
            (
                "randomUniform",
                Box::new(|e| e.random(&[10], Random::Uniform { min: 0.0, max: 3.0 }, DType::Int32, Some(2.0))),
            ),
        ];
        for (name, op) in ops {
            leak_free(e, name, op);
        }
    });
}

#[test]
fn failing_ops_in_a_scope_are_leak_free() {
    run(|e| {
        let x = t(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
        let fx = t(e, &[1.], &[1]);
        let before = e.memory().num_tensors;
        let failures: Vec<(&str, Box<dyn FnOnce(&mut Engine) -> Result<TensorId>>)> = vec![
            (
                "broadcast",
                Box::new(|e| {
                    let r = e.reshape(x, &[3, 2])?;
                    e.binary(BinaryOp::Add, x, r)
                }),
            ),
            (
                "sqrt int",
                Box::new(|e| {
                    let i = e.cast(x, DType::Int32)?;
                    e.unary(UnaryOp::Sqrt, i)
                }),
            ),
            ("reduce axis", Box::new(|e| e.reduce(ReduceOp::Sum, x, Some(&[2]), false))),
            ("reshape", Box::new(|e| e.reshape(x, &[4]))),
            ("concat", Box::new(|e| e.concat(&[x, fx], 0))),
            ("stack", Box::new(|e| e.stack(&[x, fx], 0))),
            ("slice", Box::new(|e| e.slice(x, &[0, 2], &[2, 2]))),
            (
                "gather range",
                Box::new(|e| {
                    let i = e.tensor(HostData::I32(vec![5]), &[1])?;
                    e.gather(x, i, 0, 0)
                }),
            ),
            ("gather float indices", Box::new(|e| e.gather(x, fx, 0, 0))),
            (
                "matmul batch",
                Box::new(|e| {
                    let a = e.fill(&[2, 2, 3], 1.0, DType::Float32)?;
                    let b = e.fill(&[3, 3, 2], 1.0, DType::Float32)?;
                    e.matmul(a, b, false, false)
                }),
            ),
            ("softmax dim", Box::new(|e| e.softmax(x, 0))),
            ("oneHot depth", Box::new(|e| e.one_hot(x, 1.0, 1.0, 0.0, DType::Int32))),
            ("range step", Box::new(|e| e.range(0.0, 1.0, 0.0, DType::Float32))),
            ("too large", Box::new(|e| e.fill(&[1 << 20, 1 << 20, 1 << 20], 0.0, DType::Float32))),
            (
                "too large broadcast",
                Box::new(|e| {
                    let col = e.fill(&[1 << 20, 1], 1.0, DType::Float32)?;
                    let row = e.fill(&[1 << 20], 1.0, DType::Float32)?;
                    e.binary(BinaryOp::Add, col, row)
                }),
            ),
        ];
        for (name, op) in failures {
            e.start_scope();
            let r = op(e);
            e.end_scope(&[]);
            assert!(r.is_err(), "{name} should fail");
            assert_eq!(e.memory().num_tensors, before, "{name} leaked");
        }
    });
}

fn read(e: &Engine, id: TensorId) -> Vec<f64> {
    e.read(id).unwrap().to_f64()
}

#[test]
fn values_shapes_and_dtypes() {
    run(|e| {
        let x = t(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
        let col = t(e, &[10., 20.], &[2, 1]);
        let s = e.binary(BinaryOp::Add, x, col).unwrap();
        assert_eq!(read(e, s), vec![11., 12., 13., 24., 25., 26.]);
        let i7 = ti(e, &[7, -7, 1], &[3]);
        let i2 = ti(e, &[2, 2, 0], &[3]);
        let q = e.binary(BinaryOp::Div, i7, i2).unwrap();
        assert_eq!((e.dtype(q).unwrap(), read(e, q)), (DType::Int32, vec![3., -4., 0.]));
        let m = e.matmul(x, x, false, true).unwrap();
        assert_eq!((e.shape(m).unwrap().to_vec(), read(e, m)), (vec![2, 2], vec![14., 32., 32., 77.]));
        let im = e.matmul(i7, i7, false, false);
        assert!(im.is_err(), "rank-1 matMul is refused");
        let sum0 = e.reduce(ReduceOp::Sum, x, Some(&[0]), true).unwrap();
        assert_eq!((e.shape(sum0).unwrap().to_vec(), read(e, sum0)), (vec![1, 3], vec![5., 7., 9.]));
        let mean = e.reduce(ReduceOp::Mean, i7, None, false).unwrap();
        assert_eq!(e.dtype(mean).unwrap(), DType::Float32);
        assert!((read(e, mean)[0] - (1.0 / 3.0)).abs() < 1e-6);
        let three = t(e, &[1., 2., 3., 4., 5., 6., 7., 8.], &[2, 2, 2]);
        let mx = e.reduce(ReduceOp::Max, three, Some(&[0, 2]), false).unwrap();
        assert_eq!(read(e, mx), vec![6., 8.]);
        let am = e.arg_reduce(ArgOp::ArgMax, x, 1).unwrap();
        assert_eq!((e.dtype(am).unwrap(), read(e, am)), (DType::Int32, vec![2., 2.]));
        let tr = e.transpose(x, None).unwrap();
        assert_eq!(read(e, tr), vec![1., 4., 2., 5., 3., 6.]);
        let cat = e.concat(&[x, col], 1).unwrap();
        assert_eq!(
            (e.shape(cat).unwrap().to_vec(), read(e, cat)),
            (vec![2, 4], vec![1., 2., 3., 10., 4., 5., 6., 20.])
        );
        let st = e.stack(&[i7, i2], 1).unwrap();
        assert_eq!(read(e, st), vec![7., 2., -7., 2., 1., 0.]);
        let sl = e.slice(x, &[1, 1], &[1, -1]).unwrap();
        assert_eq!((e.shape(sl).unwrap().to_vec(), read(e, sl)), (vec![1, 2], vec![5., 6.]));
        let idx = ti(e, &[2, 0], &[2]);
        let g = e.gather(x, idx, 1, 0).unwrap();
        assert_eq!(read(e, g), vec![3., 1., 6., 4.]);
        let oh = e.one_hot(idx, 3.0, 1.0, 0.0, DType::Int32).unwrap();
        assert_eq!(read(e, oh), vec![0., 0., 1., 1., 0., 0.]);
        let sm = e.softmax(x, -1).unwrap();
        let v = read(e, sm);
        assert!((v[0] + v[1] + v[2] - 1.0).abs() < 1e-6 && v[2] > v[1]);
        let r = e.range(0.0, 5.0, 2.0, DType::Int32).unwrap();
        assert_eq!(read(e, r), vec![0., 2., 4.]);
        let wrapped = e.fill(&[1], 3e9, DType::Int32).unwrap();
        assert_eq!(read(e, wrapped), vec![-1294967296.0], "int32 stores like an Int32Array (ToInt32)");
        let down = e.range(5.0, 0.0, -2.0, DType::Float32).unwrap();
        assert_eq!(read(e, down), vec![5., 3., 1.]);
        let cube = e.range(0.0, 24.0, 1.0, DType::Float32).unwrap();
        let cube = e.reshape(cube, &[2, 3, 4]).unwrap();
        let pairs = ti(e, &[0, 2, 1, 1], &[2, 2]);
        let bg = e.gather(cube, pairs, 1, 1).unwrap();
        assert_eq!(e.shape(bg).unwrap(), &[2, 2, 4]);
        assert_eq!(read(e, bg), vec![0., 1., 2., 3., 8., 9., 10., 11., 16., 17., 18., 19., 16., 17., 18., 19.]);
        let ey = e.eye(2, Some(3), &[], DType::Float32).unwrap();
        assert_eq!(read(e, ey), vec![1., 0., 0., 0., 1., 0.]);
        let u = e.random(&[1000], Random::Uniform { min: -1.0, max: 1.0 }, DType::Float32, Some(7.0)).unwrap();
        let u2 = e.random(&[1000], Random::Uniform { min: -1.0, max: 1.0 }, DType::Float32, Some(7.0)).unwrap();
        assert_eq!(read(e, u), read(e, u2), "seeded randoms repeat");
        assert!(read(e, u).iter().all(|&v| (-1.0..1.0).contains(&v)));
        let tn =
            e.random(&[1000], Random::TruncatedNormal { mean: 5.0, std_dev: 1.0 }, DType::Float32, Some(3.0)).unwrap();
        assert!(read(e, tn).iter().all(|&v| (3.0..=7.0).contains(&v)));
    });
}
