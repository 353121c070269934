//! Elementwise ops on every backend: each op of the core's tables against a reference, every
//! dtype, broadcasting, tfjs's dtype rules and errors.

use tidytensor_core::{BinaryOp, DType, DtypeRule, Engine, UnaryOp};
use tidytensor_suite::{assert_close, backend_tests, f32s, fails, i32s, of, random_values, values};

/// The reference of each unary op in f64 (what tfjs computes in JavaScript numbers).
fn unary_ref(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Abs => x.abs(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Neg => -x,
        UnaryOp::Relu => x.max(0.0),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Square => x * x,
        UnaryOp::Tanh => x.tanh(),
    }
}

fn unary_float_ops_match_the_reference(e: &mut Engine) {
    let mut xs = random_values(300, 1, -6.0, 6.0);
    xs.extend([0.0, -0.0, 1.0, -1.0, 1e-3, 20.0, -20.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    let x = of(e, DType::Float32, &xs, &[xs.len()]);
    let stored: Vec<f64> = xs.iter().map(|&v| v as f32 as f64).collect();
    for &op in UnaryOp::ALL {
        let y = e.unary(op, x).unwrap();
        let got = values(e, y, &[xs.len()], DType::Float32);
        let want: Vec<f64> = stored.iter().map(|&v| unary_ref(op, v) as f32 as f64).collect();
        assert_close(&got, &want, 2e-6);
        e.dispose(y);
    }
}

fn unary_dtype_rules(e: &mut Engine) {
    let i = i32s(e, &[-3, 0, 4], &[3]);
    for &op in UnaryOp::ALL {
        match op.dtype_rule() {
            DtypeRule::Float => fails(e, "must be float32 tensor, but got int32 tensor", |e| e.unary(op, i)),
            DtypeRule::ToFloat => {
                let y = e.unary(op, i).unwrap();
                let want: Vec<f64> = [-3.0, 0.0, 4.0].iter().map(|&v| unary_ref(op, v) as f32 as f64).collect();
                assert_close(&values(e, y, &[3], DType::Float32), &want, 1e-6);
            }
            DtypeRule::Same => {
                let y = e.unary(op, i).unwrap();
                let want: Vec<f64> = [-3.0, 0.0, 4.0].iter().map(|&v| unary_ref(op, v)).collect();
                assert_eq!(values(e, y, &[3], DType::Int32), want, "{op:?}");
            }
        }
    }
}

/// The reference of each binary op in f64, then stored as `dtype` (int32 wraps, as tfjs's
/// Int32Array does).
fn binary_ref(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Div => a / b,
        BinaryOp::FloorDiv => (a / b).floor(),
        BinaryOp::Maximum => if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) },
        BinaryOp::Minimum => if a.is_nan() || b.is_nan() { f64::NAN } else { a.min(b) },
        BinaryOp::Mul => a * b,
        BinaryOp::Pow => a.powf(b),
        BinaryOp::SquaredDifference => (a - b) * (a - b),
        BinaryOp::Sub => a - b,
    }
}

fn binary_ops_broadcast_on_every_dtype(e: &mut Engine) {
    let (av, bv) = (random_values(6, 2, -4.0, 4.0), random_values(3, 3, 0.5, 3.0));
    for dtype in [DType::Float32, DType::Int32] {
        let av: Vec<f64> = av.iter().map(|v| if dtype == DType::Int32 { v.round() } else { *v }).collect();
        let bv: Vec<f64> = bv.iter().map(|v| if dtype == DType::Int32 { v.round() } else { *v }).collect();
        let a = of(e, dtype, &av, &[2, 3]);
        let b = of(e, dtype, &bv, &[3]);
        for &op in BinaryOp::ALL {
            let y = e.binary(op, a, b).unwrap();
            let int = dtype == DType::Int32;
            let op_run = if op == BinaryOp::Div && int { BinaryOp::FloorDiv } else { op };
            let want: Vec<f64> = (0..6)
                .map(|i| {
                    let (x, y) = (av[i] as f32 as f64, bv[i % 3] as f32 as f64);
                    let r = binary_ref(op_run, x, y);
                    if int { tidytensor_core::js_to_int32(r) as f64 } else { r as f32 as f64 }
                })
                .collect();
            assert_close(&values(e, y, &[2, 3], dtype), &want, 1e-5);
            e.dispose(y);
        }
    }
}

fn binary_upcasts_and_errors(e: &mut Engine) {
    let a = i32s(e, &[1, 2, 3], &[3]);
    let b = f32s(e, &[0.5, 0.5, 0.5], &[3]);
    let y = e.binary(BinaryOp::Add, a, b).unwrap();
    assert_eq!(values(e, y, &[3], DType::Float32), vec![1.5, 2.5, 3.5]);
    let c = f32s(e, &[1.0, 2.0], &[2]);
    fails(e, "Operands could not be broadcast together with shapes 3 and 2.", |e| e.binary(BinaryOp::Add, a, c));
}

fn cast_follows_tfjs(e: &mut Engine) {
    let x = f32s(e, &[-1.7, 0.0, 2.5, f32::NAN], &[4]);
    let i = e.cast(x, DType::Int32).unwrap();
    assert_eq!(values(e, i, &[4], DType::Int32), vec![-1.0, 0.0, 2.0, 0.0]);
    let b = e.cast(x, DType::Bool).unwrap();
    assert_eq!(values(e, b, &[4], DType::Bool), vec![1.0, 0.0, 1.0, 1.0]);
    let same = e.cast(x, DType::Float32).unwrap();
    assert_eq!(e.memory().num_data_buffers, 3, "a cast to the same dtype shares the buffer");
    e.dispose(same);
}

backend_tests!(
    unary_float_ops_match_the_reference,
    unary_dtype_rules,
    binary_ops_broadcast_on_every_dtype,
    binary_upcasts_and_errors,
    cast_follows_tfjs,
);
