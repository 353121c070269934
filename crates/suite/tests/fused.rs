//! The fused ops (conv2d, depthwiseConv2d, matMul, then bias and activation) on every backend:
//! one kernel, whose values match the composed ops (the product, `add`, the activation), for
//! every activation, with and without a bias; only the output left behind; the composed path
//! (and its gradients) while a gradient is recorded.

use tidytensor_core::ops::{ConvKind, Fused, Padding, Window};
use tidytensor_core::{Activation, BinaryOp, DType, Engine, ReduceOp, TensorId, UnaryOp};
use tidytensor_suite::{assert_close, backend_tests, f32s, random_values};

const ACTIVATIONS: [Activation; 7] = [
    Activation::Linear,
    Activation::Relu,
    Activation::Relu6,
    Activation::Elu,
    Activation::LeakyRelu(0.2),
    Activation::Prelu,
    Activation::Sigmoid,
];

fn rand(e: &mut Engine, shape: &[usize], seed: u64, lo: f64, hi: f64) -> TensorId {
    let n = shape.iter().product();
    let v: Vec<f32> = random_values(n, seed, lo, hi).iter().map(|&x| x as f32).collect();
    f32s(e, &v, shape)
}

fn read(e: &Engine, t: TensorId) -> Vec<f64> {
    e.read(t).expect("read").to_f64()
}

/// The composition the fused kernel replaces, op by op.
fn composed(e: &mut Engine, y: TensorId, f: &Fused) -> TensorId {
    let y = match f.bias {
        Some(b) => e.add(y, b).unwrap(),
        None => y,
    };
    match f.activation {
        Activation::Linear => y,
        Activation::Relu => e.unary(UnaryOp::Relu, y).unwrap(),
        Activation::Relu6 => e.unary(UnaryOp::Relu6, y).unwrap(),
        Activation::Elu => e.unary(UnaryOp::Elu, y).unwrap(),
        Activation::Sigmoid => e.unary(UnaryOp::Sigmoid, y).unwrap(),
        Activation::LeakyRelu(a) => {
            let a = e.fill(&[], a as f64, DType::Float32).unwrap();
            e.binary(BinaryOp::Prelu, y, a).unwrap()
        }
        Activation::Prelu => e.binary(BinaryOp::Prelu, y, f.alpha.unwrap()).unwrap(),
    }
}

/// Runs `fused` against `plain` + [`composed`] for every activation and bias form on an
/// output with `channels` channels: equal values (1e-5), one kernel named `kernel`, and only
/// the output left behind.
fn check(
    e: &mut Engine,
    kernel: &str,
    channels: usize,
    plain: &dyn Fn(&mut Engine) -> TensorId,
    fused: &dyn Fn(&mut Engine, &Fused) -> TensorId,
) {
    let biases: Vec<Option<Vec<usize>>> = vec![None, Some(vec![channels]), Some(vec![1]), Some(vec![1, channels])];
    for (bi, bias_shape) in biases.iter().enumerate() {
        for (ai, &activation) in ACTIVATIONS.iter().enumerate() {
            for alpha_shape in [vec![channels], vec![1]] {
                if activation != Activation::Prelu && alpha_shape.len() == 1 && alpha_shape[0] == 1 && channels != 1 {
                    continue;
                }
                e.start_scope();
                let seed = 100 + (bi * 10 + ai) as u64;
                let bias = bias_shape.as_ref().map(|s| rand(e, s, seed, -3.0, 3.0));
                let alpha = (activation == Activation::Prelu).then(|| rand(e, &alpha_shape, seed + 1, -1.0, 1.0));
                let f = Fused { bias, activation, alpha };
                let y = plain(e);
                let want = composed(e, y, &f);
                let want_v = read(e, want);
                let before = e.memory();
                let mark = e.start_profile();
                let got = fused(e, &f);
                let records = e.end_profile(mark, true);
                let after = e.memory();
                let names: Vec<&str> = records.iter().map(|r| r.name).collect();
                assert_eq!(names, vec![kernel], "one kernel ({bias_shape:?}, {activation:?})");
                assert_eq!(e.shape(got).unwrap(), e.shape(want).unwrap());
                assert_eq!(after.num_tensors, before.num_tensors + 1, "only the output is left");
                assert_eq!(after.num_bytes, before.num_bytes + 4 * want_v.len(), "only the output's bytes");
                assert_close(&read(e, got), &want_v, 1e-5);
                e.end_scope(&[]);
            }
        }
    }
}

fn fused_matmul_matches_the_composition(e: &mut Engine) {
    // (a, b, transposeA, transposeB): plain, transposed, batched, a broadcast batch.
    let cases: [(&[usize], &[usize], bool, bool); 5] = [
        (&[3, 4], &[4, 5], false, false),
        (&[4, 3], &[5, 4], true, true),
        (&[2, 3, 4], &[2, 4, 6], false, false),
        (&[1, 3, 4], &[2, 6, 4], false, true),
        (&[2, 4, 3], &[4, 1], true, false),
    ];
    for (sa, sb, ta, tb) in cases {
        let a = rand(e, sa, 1, -2.0, 2.0);
        let b = rand(e, sb, 2, -2.0, 2.0);
        let n = if tb { sb[sb.len() - 2] } else { sb[sb.len() - 1] };
        check(e, "_FusedMatMul", n, &|e| e.matmul(a, b, ta, tb).unwrap(), &|e, f| {
            e.fused_matmul(a, b, ta, tb, f).unwrap()
        });
        e.dispose(a);
        e.dispose(b);
    }
}

fn fused_conv2d_matches_the_composition(e: &mut Engine) {
    // (x, filter, strides, padding)
    let cases: [(&[usize], &[usize], f64, Padding); 4] = [
        (&[1, 5, 5, 2], &[3, 3, 2, 3], 1.0, Padding::Same),
        (&[2, 7, 6, 3], &[3, 3, 3, 4], 2.0, Padding::Valid),
        (&[2, 6, 6, 3], &[1, 1, 3, 5], 1.0, Padding::Valid),
        (&[6, 5, 2], &[2, 2, 2, 3], 2.0, Padding::Same),
    ];
    for (sx, sf, stride, pad) in cases {
        let x = rand(e, sx, 3, -2.0, 2.0);
        let filter = rand(e, sf, 4, -1.0, 1.0);
        let (strides, dilations) = ([stride], [1.0]);
        let w = Window { strides: &strides, dilations: &dilations, pad: &pad, rounding: None };
        check(e, "FusedConv2D", sf[3], &|e| e.conv(ConvKind::Conv2d, x, filter, &w, false).unwrap(), &|e, f| {
            e.fused_conv(ConvKind::Conv2d, x, filter, &w, f).unwrap()
        });
        e.dispose(x);
        e.dispose(filter);
    }
}

fn fused_depthwise_conv2d_matches_the_composition(e: &mut Engine) {
    let cases: [(&[usize], &[usize], f64, Padding); 3] = [
        (&[1, 5, 5, 3], &[3, 3, 3, 1], 1.0, Padding::Same),
        (&[2, 7, 6, 2], &[3, 3, 2, 2], 2.0, Padding::Valid),
        (&[2, 8, 8, 4], &[3, 3, 4, 1], 2.0, Padding::Same),
    ];
    for (sx, sf, stride, pad) in cases {
        let x = rand(e, sx, 5, -2.0, 2.0);
        let filter = rand(e, sf, 6, -1.0, 1.0);
        let (strides, dilations) = ([stride], [1.0]);
        let w = Window { strides: &strides, dilations: &dilations, pad: &pad, rounding: None };
        let kind = ConvKind::Depthwise2d;
        check(e, "FusedDepthwiseConv2D", sf[2] * sf[3], &|e| e.conv(kind, x, filter, &w, false).unwrap(), &|e, f| {
            e.fused_conv(kind, x, filter, &w, f).unwrap()
        });
        e.dispose(x);
        e.dispose(filter);
    }
}

/// NaN, infinities and large values through every activation, as the composed ops give them.
fn fused_special_values(e: &mut Engine) {
    let nan = f32::NAN;
    let a = f32s(e, &[nan, 0.0, 1e30, 0.0, -1e30, 0.0, f32::INFINITY, 0.0, -0.0, 0.0, 3.0, 0.0], &[6, 2]);
    let b = f32s(e, &[1.0, 0.5, -2.0, 0.0, 0.25, 1.0], &[2, 3]);
    check(e, "_FusedMatMul", 3, &|e| e.matmul(a, b, false, false).unwrap(), &|e, f| {
        e.fused_matmul(a, b, false, false, f).unwrap()
    });
    e.dispose(a);
    e.dispose(b);
}

/// A bias that is not per channel (it broadcasts over other axes) runs the composition.
fn fused_with_a_general_bias_composes(e: &mut Engine) {
    e.start_scope();
    let a = rand(e, &[3, 4], 7, -2.0, 2.0);
    let b = rand(e, &[4, 5], 8, -2.0, 2.0);
    let bias = rand(e, &[3, 1], 9, -2.0, 2.0);
    let f = Fused { bias: Some(bias), activation: Activation::Relu, alpha: None };
    let y = e.matmul(a, b, false, false).unwrap();
    let want = composed(e, y, &f);
    let got = e.fused_matmul(a, b, false, false, &f).unwrap();
    assert_close(&read(e, got), &read(e, want), 1e-5);
    e.end_scope(&[]);
}

/// While a gradient is recorded the fused ops compose, so gradients flow through them.
fn fused_gradients_match_the_composition(e: &mut Engine) {
    e.start_scope();
    let a = rand(e, &[3, 4], 10, -2.0, 2.0);
    let b = rand(e, &[4, 5], 11, -2.0, 2.0);
    let bias = rand(e, &[5], 12, -2.0, 2.0);
    let f = Fused { bias: Some(bias), activation: Activation::Elu, alpha: None };
    let loss = |e: &mut Engine, y: TensorId| e.reduce(ReduceOp::Sum, y, None, false);
    let (_, fused) = e
        .gradients(
            |e| {
                let y = e.fused_matmul(a, b, false, false, &f)?;
                loss(e, y)
            },
            &[a, b, bias],
            None,
            false,
        )
        .unwrap();
    let (_, plain) = e
        .gradients(
            |e| {
                let y = e.matmul(a, b, false, false)?;
                let y = composed(e, y, &f);
                loss(e, y)
            },
            &[a, b, bias],
            None,
            false,
        )
        .unwrap();
    for (g, p) in fused.iter().zip(&plain) {
        assert_close(&read(e, g.unwrap()), &read(e, p.unwrap()), 1e-5);
    }
    e.end_scope(&[]);
}

/// tfjs's batch norm, op by op: `(x - mean) * scale / sqrt(variance + eps) + offset`.
fn batch_norm_composed(
    e: &mut Engine,
    x: TensorId,
    p: [TensorId; 2],
    offset: Option<TensorId>,
    scale: Option<TensorId>,
    eps: f64,
) -> TensorId {
    let mut y = e.sub(x, p[0]).unwrap();
    if let Some(s) = scale {
        y = e.mul(y, s).unwrap();
    }
    let eps = e.fill(&[], eps, DType::Float32).unwrap();
    let v = e.add(p[1], eps).unwrap();
    let v = e.unary(UnaryOp::Sqrt, v).unwrap();
    y = e.div(y, v).unwrap();
    match offset {
        Some(o) => e.add(y, o).unwrap(),
        None => y,
    }
}

/// `batch_norm` with per-channel parameters is one `FusedBatchNorm` kernel, equal to the
/// composition to the last bit, leaving only its output; other parameter shapes compose.
fn batch_norm_is_one_kernel(e: &mut Engine) {
    for (xs, ps) in
        [(&[2, 5, 5, 3][..], &[3][..]), (&[4, 6][..], &[1, 6][..]), (&[7, 3][..], &[1][..]), (&[0, 3][..], &[3][..])]
    {
        for (with_offset, with_scale) in [(true, true), (false, true), (true, false), (false, false)] {
            e.start_scope();
            let x = rand(e, xs, 1, -3.0, 3.0);
            let mean = rand(e, ps, 2, -1.0, 1.0);
            let variance = rand(e, ps, 3, 0.0, 2.0);
            let offset = with_offset.then(|| rand(e, ps, 4, -1.0, 1.0));
            let scale = with_scale.then(|| rand(e, ps, 5, 0.5, 2.0));
            let want = batch_norm_composed(e, x, [mean, variance], offset, scale, 1e-3);
            let want_v = read(e, want);
            let before = e.memory();
            let mark = e.start_profile();
            let got = e.batch_norm(x, mean, variance, offset, scale, 1e-3).unwrap();
            let records = e.end_profile(mark, true);
            let after = e.memory();
            let names: Vec<&str> = records.iter().map(|r| r.name).collect();
            assert_eq!(names, vec!["FusedBatchNorm"], "{xs:?} / {ps:?}");
            assert_eq!(e.shape(got).unwrap(), xs);
            assert_eq!(after.num_tensors, before.num_tensors + 1, "only the output is left");
            assert_eq!(read(e, got), want_v, "{xs:?} / {ps:?}: the composition's values");
            e.end_scope(&[]);
        }
    }
    // Parameters that broadcast otherwise (here over the first axis) take the composition.
    e.start_scope();
    let x = rand(e, &[3, 4], 6, -1.0, 1.0);
    let p = rand(e, &[3, 1], 7, 0.5, 1.0);
    let mark = e.start_profile();
    let got = e.batch_norm(x, p, p, None, None, 1e-3).unwrap();
    let records = e.end_profile(mark, true);
    assert!(records.iter().all(|r| r.name != "FusedBatchNorm"));
    let want = batch_norm_composed(e, x, [p, p], None, None, 1e-3);
    assert_eq!(read(e, got), read(e, want));
    // Mismatched ranks: tfjs's text.
    let bad = rand(e, &[4], 8, 0.0, 1.0);
    let err = e.batch_norm(x, p, bad, None, None, 1e-3).unwrap_err();
    assert_eq!(err.0, "Batch normalization gradient requires mean and variance to have equal ranks.");
    e.end_scope(&[]);
}

backend_tests!(
    batch_norm_is_one_kernel,
    fused_matmul_matches_the_composition,
    fused_conv2d_matches_the_composition,
    fused_depthwise_conv2d_matches_the_composition,
    fused_special_values,
    fused_with_a_general_bias_composes,
    fused_gradients_match_the_composition,
);
