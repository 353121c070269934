//! Gradients on every backend: values against hand-derived formulas and float64 finite
//! differences, broadcasting reduced back, higher orders, external (custom) gradients, tfjs's
//! errors, and that neither a gradient nor a failing one leaves a tensor behind (the suite's
//! leak check runs after each test).

use tidytensor_core::ops::{ConvKind, Padding, Window};
use tidytensor_core::{BackwardStep, BinaryOp, DType, Engine, ReduceOp, TensorId, UnaryOp};
use tidytensor_suite::{assert_close, backend_tests, f32s, fails, values};

fn vals(e: &Engine, id: TensorId) -> Vec<f64> {
    let (shape, dtype) = (e.shape(id).unwrap().to_vec(), e.dtype(id).unwrap());
    values(e, id, &shape, dtype)
}

/// The gradient of `f` at `x` by central differences in float64 arithmetic on the host, `f`
/// run by the engine on float32 inputs (so the step is large).
fn finite_difference(
    e: &mut Engine,
    f: &dyn Fn(&mut Engine, TensorId) -> TensorId,
    x: &[f32],
    shape: &[usize],
) -> Vec<f64> {
    let h = 1e-2f32;
    (0..x.len())
        .map(|i| {
            let mut at = |d: f32| {
                let mut v = x.to_vec();
                v[i] += d;
                let t = f32s(e, &v, shape);
                let y = f(e, t);
                let s = vals(e, y).iter().sum::<f64>();
                e.dispose(y);
                e.dispose(t);
                s
            };
            (at(h) - at(-h)) / (2.0 * h as f64)
        })
        .collect()
}

fn grad_of(e: &mut Engine, f: &dyn Fn(&mut Engine, TensorId) -> TensorId, x: TensorId) -> Vec<f64> {
    let (y, g) = e.gradients(|e| Ok(f(e, x)), &[x], None, false).unwrap();
    let got = vals(e, g[0].unwrap());
    e.dispose(y);
    e.dispose(g[0].unwrap());
    got
}

/// Every step of the chain: unary ops, broadcasting binary ops and reductions, matched with
/// finite differences.
fn composed_functions_match_finite_differences(e: &mut Engine) {
    let x: Vec<f32> = vec![0.3, -0.7, 1.2, 0.5, -1.1, 0.9];
    let shape = [2, 3];
    let b = f32s(e, &[0.5, -1.5, 2.0], &[3]);
    let fs: Vec<Box<dyn Fn(&mut Engine, TensorId) -> TensorId>> = vec![
        Box::new(|e, x| {
            let s = e.unary(UnaryOp::Sin, x).unwrap();
            let t = e.unary(UnaryOp::Tanh, s).unwrap();
            e.reduce(ReduceOp::Sum, t, None, false).unwrap()
        }),
        Box::new(move |e, x| {
            let m = e.binary(BinaryOp::Mul, x, b).unwrap();
            let d = e.binary(BinaryOp::Div, m, b).unwrap();
            let p = e.binary(BinaryOp::Maximum, d, m).unwrap();
            e.reduce(ReduceOp::Mean, p, Some(&[1]), false).unwrap()
        }),
        Box::new(|e, x| {
            let y = e.softmax(x, -1).unwrap();
            let sq = e.unary(UnaryOp::Square, y).unwrap();
            e.reduce(ReduceOp::Max, sq, Some(&[0]), false).unwrap()
        }),
        Box::new(|e, x| {
            let t = e.transpose(x, None).unwrap();
            let p = e.matmul(x, t, false, false).unwrap();
            let ex = e.unary(UnaryOp::Exp, p).unwrap();
            e.reduce(ReduceOp::Prod, ex, None, false).unwrap()
        }),
    ];
    let xt = f32s(e, &x, &shape);
    for (i, f) in fs.iter().enumerate() {
        let got = grad_of(e, f.as_ref(), xt);
        let want = finite_difference(e, f.as_ref(), &x, &shape);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 2e-2 * w.abs().max(1.0), "function {i}: got {got:?}, want {want:?}");
        }
    }
    e.dispose(xt);
    e.dispose(b);
}

/// `a [2,1] + b [3]` broadcasts to [2,3]: each input's gradient sums dy over its broadcast axes.
fn broadcasting_gradients_sum_back(e: &mut Engine) {
    let a = f32s(e, &[1.0, 2.0], &[2, 1]);
    let b = f32s(e, &[3.0, 4.0, 5.0], &[3]);
    let dy = f32s(e, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let (y, g) = e.gradients(|e| e.binary(BinaryOp::Mul, a, b), &[a, b], Some(dy), false).unwrap();
    let (ga, gb) = (g[0].unwrap(), g[1].unwrap());
    assert_eq!(e.shape(ga).unwrap(), [2, 1]);
    assert_eq!(e.shape(gb).unwrap(), [3]);
    // d/da = sum_j dy[i,j] b[j]; d/db = sum_i dy[i,j] a[i]
    assert_close(&vals(e, ga), &[1.0 * 3.0 + 2.0 * 4.0 + 3.0 * 5.0, 4.0 * 3.0 + 5.0 * 4.0 + 6.0 * 5.0], 1e-6);
    assert_close(&vals(e, gb), &[1.0 + 8.0, 2.0 + 10.0, 3.0 + 12.0], 1e-6);
    for t in [a, b, dy, y, ga, gb] {
        e.dispose(t);
    }
}

/// The gradient of a gradient: the saved tensors are recorded as Identity of their source, so
/// d²/dx² x³ = 6x flows through them.
fn second_order_gradients(e: &mut Engine) {
    let x = f32s(e, &[2.0, -3.0], &[2]);
    let (first, g) = e
        .gradients(
            |e| {
                let (y, g) = e.gradients(
                    |e| {
                        let three = e.scalar(3.0)?;
                        e.binary(BinaryOp::Pow, x, three)
                    },
                    &[x],
                    None,
                    false,
                )?;
                e.dispose(y);
                Ok(g[0].unwrap())
            },
            &[x],
            None,
            false,
        )
        .unwrap();
    assert_close(&vals(e, first), &[12.0, 27.0], 1e-5);
    assert_close(&vals(e, g[0].unwrap()), &[12.0, -18.0], 1e-5);
    for t in [x, first, g[0].unwrap()] {
        e.dispose(t);
    }
}

/// A convolution's input and filter gradients against the same convolution computed by hand
/// as sums (one channel in, two out, 'same' padding): d/dx and d/dw of sum(conv(x, w) * dy).
fn convolution_gradients(e: &mut Engine) {
    let xv: Vec<f32> = (0..9).map(|v| v as f32 * 0.5 - 2.0).collect();
    let wv: Vec<f32> = (0..8).map(|v| 1.0 - v as f32 * 0.25).collect();
    let x = f32s(e, &xv, &[1, 3, 3, 1]);
    let w = f32s(e, &wv, &[2, 2, 1, 2]);
    let pad = Padding::Same;
    let win = Window { strides: &[1.0, 1.0], dilations: &[1.0, 1.0], pad: &pad, rounding: None };
    let f = |e: &mut Engine, x: TensorId| e.conv(ConvKind::Conv2d, x, w, &win, false).unwrap();
    let got = grad_of(
        e,
        &|e, x| {
            let y = f(e, x);
            e.reduce(ReduceOp::Sum, y, None, false).unwrap()
        },
        x,
    );
    let want = finite_difference(e, &|e, x| f(e, x), &xv, &[1, 3, 3, 1]);
    assert_close(&got, &want, 1e-2);
    let fw = |e: &mut Engine, w: TensorId| e.conv(ConvKind::Conv2d, x, w, &win, false).unwrap();
    let got = grad_of(
        e,
        &|e, w| {
            let y = fw(e, w);
            e.reduce(ReduceOp::Sum, y, None, false).unwrap()
        },
        w,
    );
    let want = finite_difference(e, &|e, w| fw(e, w), &wv, &[2, 2, 1, 2]);
    assert_close(&got, &want, 1e-2);
    e.dispose(x);
    e.dispose(w);
}

/// A custom gradient computed outside the engine: the backward pass stops at it and takes the
/// caller's gradients.
fn external_gradients_come_from_the_caller(e: &mut Engine) {
    let x = f32s(e, &[1.0, -2.0, 3.0], &[3]);
    e.forward_start();
    e.pause_tape();
    let y = e.unary(UnaryOp::Square, x).unwrap();
    e.resume_tape(Some((7, &[x], &[y], &[x]))).unwrap();
    let s = e.reduce(ReduceOp::Sum, y, None, false).unwrap();
    e.forward_end(Some(s));
    e.backward_start(s, &[x], None, false).unwrap();
    let BackwardStep::External { id, dys, saved, needed } = e.backward_run().unwrap() else {
        panic!("stops at the custom op")
    };
    assert_eq!((id, needed), (7, vec![true]));
    // The custom gradient: dy * |x|.
    let abs = e.unary(UnaryOp::Abs, saved[0]).unwrap();
    let dx = e.binary(BinaryOp::Mul, dys[0], abs).unwrap();
    e.backward_provide(vec![Some(dx)]).unwrap();
    assert!(matches!(e.backward_run().unwrap(), BackwardStep::Done));
    let g = e.backward_end(true);
    assert_close(&vals(e, g[0].unwrap()), &[1.0, 2.0, 3.0], 1e-6);
    for t in [x, s, g[0].unwrap()] {
        e.dispose(t);
    }
}

/// tfjs's errors, and nothing left behind by a failed gradient (the tape and its saved
/// tensors are freed, the forward and backward scopes closed).
fn errors_and_failures_leave_nothing(e: &mut Engine) {
    let x = f32s(e, &[1.0, 2.0], &[2]);
    let other = f32s(e, &[3.0, 4.0], &[2]);
    let before = e.memory().num_tensors;
    fails(e, "Cannot compute gradient of y=f(x) with respect to x.", |e| {
        e.gradients(|e| e.unary(UnaryOp::Exp, other), &[x], None, false)
    });
    fails(e, "gradients() received an empty list of xs.", |e| {
        e.gradients(|e| e.unary(UnaryOp::Exp, x), &[], None, false)
    });
    fails(e, "boom", |e| e.gradients(|_| Err(tidytensor_core::Error("boom".into())), &[x], None, false));
    // A path through a logical op, which has no gradient.
    let t = e.fill(&[2], 1.0, DType::Bool).unwrap();
    fails(e, "gradient function not found for LogicalAnd", |e| {
        e.gradients(
            |e| {
                let c = e.cast(x, DType::Bool)?;
                let l = e.binary(BinaryOp::LogicalAnd, c, t)?;
                e.cast(l, DType::Float32)
            },
            &[x],
            None,
            false,
        )
    });
    e.dispose(t);
    assert_eq!(e.memory().num_tensors, before, "failed gradients leave nothing");
    assert!(e.tape().is_empty() && e.gradient_depth() == 0);
    // With allow_no_gradients, the gradient of an unrelated x is none.
    let (y, g) = e.gradients(|e| e.unary(UnaryOp::Exp, other), &[x], None, true).unwrap();
    assert!(g[0].is_none());
    e.dispose(y);
    e.dispose(x);
    e.dispose(other);
}

/// Many gradients in a row leave the counts flat.
fn repeated_gradients_do_not_grow_memory(e: &mut Engine) {
    let x = f32s(e, &[0.5, 1.5, -2.5, 3.0], &[2, 2]);
    let before = e.memory();
    for _ in 0..50 {
        let ids = e
            .tidy(|e| {
                let (y, g) = e.gradients(
                    |e| {
                        let m = e.matmul(x, x, false, true)?;
                        let r = e.unary(UnaryOp::Relu, m)?;
                        e.reduce(ReduceOp::Sum, r, None, false)
                    },
                    &[x],
                    None,
                    false,
                )?;
                Ok(vec![y, g[0].unwrap()])
            })
            .unwrap();
        for id in ids {
            e.dispose(id);
        }
    }
    let after = e.memory();
    assert_eq!((after.num_tensors, after.num_bytes), (before.num_tensors, before.num_bytes));
    e.dispose(x);
}

backend_tests!(
    composed_functions_match_finite_differences,
    broadcasting_gradients_sum_back,
    second_order_gradients,
    convolution_gradients,
    external_gradients_come_from_the_caller,
    errors_and_failures_leave_nothing,
    repeated_gradients_do_not_grow_memory,
);
