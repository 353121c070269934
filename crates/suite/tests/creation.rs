//! Creation ops on every backend: fill (the Fill kernel) and filled (no kernel), zerosLike and
//! onesLike, range, linspace, eye, oneHot and the random distributions.

use tidytensor_core::ops::Random;
use tidytensor_core::{DType, Engine};
use tidytensor_suite::{assert_close, backend_tests, f32s, fails, i32s, of, random_values, values};

/// The kernel names `op` records in a profile.
fn kernels(e: &mut Engine, op: impl FnOnce(&mut Engine)) -> Vec<&'static str> {
    let mark = e.start_profile();
    op(e);
    e.end_profile(mark, true).iter().map(|r| r.name).collect()
}

fn fill_stores_values_as_each_dtype(e: &mut Engine) {
    // bool as tfjs's Uint8Array stores the value (ToUint8), then as 0/1: 0.5, NaN and 256 are
    // false.
    let cases: [(f64, DType, f64); 12] = [
        (2.5, DType::Float32, 2.5),
        (0.1, DType::Float32, 0.1f32 as f64),
        (f64::NEG_INFINITY, DType::Float32, f64::NEG_INFINITY),
        (-7.75, DType::Int32, -7.0),
        (3e9, DType::Int32, -1294967296.0),
        (f64::NAN, DType::Int32, 0.0),
        (2.0, DType::Bool, 1.0),
        (-1.0, DType::Bool, 1.0),
        (0.5, DType::Bool, 0.0),
        (f64::NAN, DType::Bool, 0.0),
        (256.0, DType::Bool, 0.0),
        (0.0, DType::Bool, 0.0),
    ];
    for (value, dtype, want) in cases {
        let t = e.fill(&[2, 3], value, dtype).unwrap();
        assert_close(&values(e, t, &[2, 3], dtype), &[want; 6], 0.0);
        let u = e.filled(&[3], value, dtype).unwrap();
        assert_close(&values(e, u, &[3], dtype), &[want; 3], 0.0);
    }
    let wrapped = e.fill(&[1], 3e9, DType::Int32).unwrap();
    assert_eq!(
        values(e, wrapped, &[1], DType::Int32),
        vec![-1294967296.0],
        "int32 stores like an Int32Array (ToInt32)"
    );
    let scalar = e.fill(&[], -1.0, DType::Float32).unwrap();
    assert_eq!(values(e, scalar, &[], DType::Float32), vec![-1.0]);
    for dtype in [DType::Float32, DType::Int32, DType::Bool] {
        let empty = e.fill(&[0, 5], 1.0, dtype).unwrap();
        assert_eq!(values(e, empty, &[0, 5], dtype), Vec::<f64>::new());
    }
}

fn fill_is_a_kernel_and_filled_is_not(e: &mut Engine) {
    assert_eq!(
        kernels(e, |e| {
            e.fill(&[2], 1.0, DType::Float32).unwrap();
        }),
        ["Fill"]
    );
    assert!(kernels(e, |e| {
        e.filled(&[2], 1.0, DType::Float32).unwrap();
    })
    .is_empty());
    let x = i32s(e, &[1, 2, 3, 4, 5, 6], &[2, 3]);
    let mut zeros = 0;
    assert_eq!(kernels(e, |e| zeros = e.fill_like(x, 0.0).unwrap()), ["ZerosLike"]);
    assert_eq!(values(e, zeros, &[2, 3], DType::Int32), vec![0.0; 6]);
    let flags = e.cast(x, DType::Bool).unwrap();
    let mut ones = 0;
    assert_eq!(kernels(e, |e| ones = e.fill_like(flags, 1.0).unwrap()), ["OnesLike"]);
    assert_eq!(values(e, ones, &[2, 3], DType::Bool), vec![1.0; 6]);
}

fn fill_refuses_what_the_backend_cannot_hold(e: &mut Engine) {
    let backend = e.backend_name().unwrap();
    let too_large = format!("is larger than the {backend} backend can hold");
    fails(e, &too_large, |e| e.fill(&[1 << 20, 1 << 20, 1 << 20], 0.0, DType::Float32));
    fails(e, &too_large, |e| e.filled(&[1 << 20, 1 << 20, 1 << 20], 0.0, DType::Bool));
    fails(e, "A float32 tensor of shape [4294967296,4294967296,4294967296] (too many bytes)", |e| {
        e.fill(&[1 << 32, 1 << 32, 1 << 32], 0.0, DType::Float32)
    });
    fails(e, "tidytensor supports tensors up to rank 6, but got rank 7", |e| e.fill(&[1; 7], 0.0, DType::Int32));
}

fn range_follows_tfjs(e: &mut Engine) {
    let cases: [(f64, f64, f64, DType, &[f64]); 9] = [
        (0.0, 5.0, 1.5, DType::Float32, &[0.0, 1.5, 3.0, 4.5]),
        (0.0, 5.0, 2.0, DType::Int32, &[0.0, 2.0, 4.0]),
        (5.0, 0.0, -2.0, DType::Float32, &[5.0, 3.0, 1.0]),
        // A default step of 1 flips for a decreasing range.
        (5.0, 1.0, 1.0, DType::Float32, &[5.0, 4.0, 3.0, 2.0]),
        (10.0, 1.0, -3.0, DType::Int32, &[10.0, 7.0, 4.0]),
        // Each value is the previous one plus the step, stored as int32.
        (0.5, 2.0, 0.5, DType::Int32, &[0.0, 0.0, 0.0]),
        (0.0, 0.0, 1.0, DType::Float32, &[]),
        (5.0, 0.0, 2.0, DType::Float32, &[]),
        (0.0, 5.0, -1.0, DType::Int32, &[]),
    ];
    for (start, stop, step, dtype, want) in cases {
        let r = e.range(start, stop, step, dtype).unwrap();
        assert_eq!(values(e, r, &[want.len()], dtype), want, "range({start}, {stop}, {step}, {dtype:?})");
    }
    let r = e.range(0.0, 1.0, 0.1, DType::Float32).unwrap();
    let want: Vec<f64> = (0..10).map(|i| i as f64 * 0.1).collect();
    assert_close(&values(e, r, &[10], DType::Float32), &want, 1e-6);
    fails(e, "Cannot have a step of zero", |e| e.range(0.0, 1.0, 0.0, DType::Float32));
    fails(e, "Error in range: bool dtype is not supported", |e| e.range(0.0, 1.0, 1.0, DType::Bool));
}

fn linspace_follows_tfjs(e: &mut Engine) {
    let l = e.linspace(0.0, 1.0, 5).unwrap();
    assert_eq!(values(e, l, &[5], DType::Float32), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    let l = e.linspace(-1.0, 1.0, 9).unwrap();
    let want: Vec<f64> = (0..9).map(|i| -1.0 + 0.25 * i as f64).collect();
    assert_eq!(values(e, l, &[9], DType::Float32), want);
    let one = e.linspace(3.0, 7.0, 1).unwrap();
    assert_eq!(values(e, one, &[1], DType::Float32), vec![3.0]);
    let down = e.linspace(1.0, 0.0, 3).unwrap();
    assert_eq!(values(e, down, &[3], DType::Float32), vec![1.0, 0.5, 0.0]);
    fails(e, "The number of values should be positive.", |e| e.linspace(0.0, 1.0, 0));
}

fn eye_follows_tfjs(e: &mut Engine) {
    let ey = e.eye(2, Some(3), &[], DType::Float32).unwrap();
    assert_eq!(values(e, ey, &[2, 3], DType::Float32), vec![1., 0., 0., 0., 1., 0.]);
    let batched = e.eye(3, Some(2), &[2], DType::Int32).unwrap();
    let one = [1., 0., 0., 1., 0., 0.];
    assert_eq!(values(e, batched, &[2, 3, 2], DType::Int32), [one, one].concat());
    let square = e.eye(2, None, &[], DType::Bool).unwrap();
    assert_eq!(values(e, square, &[2, 2], DType::Bool), vec![1., 0., 0., 1.]);
    let empty = e.eye(0, None, &[3], DType::Float32).unwrap();
    assert_eq!(values(e, empty, &[3, 0, 0], DType::Float32), Vec::<f64>::new());
    fails(e, "Tensor must have a shape comprised of positive integers but got shape [-1,-1].", |e| {
        e.eye(-1, None, &[], DType::Float32)
    });
}

/// tfjs oneHot: `on` where the column is the index, `off` elsewhere (a row of `off` for an
/// index outside `[0, depth)`).
fn one_hot_ref(indices: &[f64], depth: usize, on: f64, off: f64) -> Vec<f64> {
    indices.iter().flat_map(|&i| (0..depth).map(move |c| if i == c as f64 { on } else { off })).collect()
}

fn one_hot_follows_tfjs(e: &mut Engine) {
    let idx = i32s(e, &[0, 2, -1, 3, 1], &[5]);
    let iv = [0.0, 2.0, -1.0, 3.0, 1.0];
    let oh = e.one_hot(idx, 3.0, 1.0, 0.0, DType::Int32).unwrap();
    assert_eq!(values(e, oh, &[5, 3], DType::Int32), vec![1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0., 0., 0., 1., 0.]);
    let oh = e.one_hot(idx, 2.0, 5.5, -1.0, DType::Float32).unwrap();
    assert_eq!(values(e, oh, &[5, 2], DType::Float32), one_hot_ref(&iv, 2, 5.5, -1.0));
    let oh = e.one_hot(idx, 4.0, 1.0, 0.0, DType::Bool).unwrap();
    assert_eq!(values(e, oh, &[5, 4], DType::Bool), one_hot_ref(&iv, 4, 1.0, 0.0));
    let oh = e.one_hot(idx, 3.0, 2.5, 3e9, DType::Int32).unwrap();
    assert_eq!(values(e, oh, &[5, 3], DType::Int32), one_hot_ref(&iv, 3, 2.0, -1294967296.0), "on/off stored as int32");
    let two = i32s(e, &[2, 0], &[2]);
    let oh = e.one_hot(two, 3.0, 1.0, 0.0, DType::Int32).unwrap();
    assert_eq!(values(e, oh, &[2, 3], DType::Int32), vec![0., 0., 1., 1., 0., 0.]);
    // Rank-2 indices, and many of them with a reference.
    let rv: Vec<f64> = random_values(2 * 3 * 40, 5, -2.0, 9.0).iter().map(|v| v.floor()).collect();
    let r = of(e, DType::Int32, &rv, &[2, 3, 40]);
    let oh = e.one_hot(r, 7.0, 1.0, 0.0, DType::Float32).unwrap();
    assert_eq!(values(e, oh, &[2, 3, 40, 7], DType::Float32), one_hot_ref(&rv, 7, 1.0, 0.0));
    let none = i32s(e, &[], &[0]);
    let oh = e.one_hot(none, 3.0, 1.0, 0.0, DType::Float32).unwrap();
    assert_eq!(values(e, oh, &[0, 3], DType::Float32), Vec::<f64>::new());
    fails(e, "Error in oneHot: depth must be >=2, but it is 1", |e| e.one_hot(idx, 1.0, 1.0, 0.0, DType::Int32));
    fails(e, "Error in oneHot: depth must be >=2, but it is 2.5", |e| e.one_hot(idx, 2.5, 1.0, 0.0, DType::Int32));
    let floats = f32s(e, &[1.0], &[1]);
    fails(e, "Argument 'indices' passed to 'oneHot' must be int32 tensor, but got float32 tensor", |e| {
        e.one_hot(floats, 3.0, 1.0, 0.0, DType::Int32)
    });
}

fn mean_and_std(v: &[f64]) -> (f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / v.len() as f64;
    (mean, var.sqrt())
}

fn random_distributions(e: &mut Engine) {
    let uniform = Random::Uniform { min: -1.0, max: 1.0 };
    let u = e.random(&[500], uniform, DType::Float32, Some("7")).unwrap();
    let u2 = e.random(&[500], uniform, DType::Float32, Some("7")).unwrap();
    let uv = values(e, u, &[500], DType::Float32);
    assert_eq!(uv, values(e, u2, &[500], DType::Float32), "seeded randoms repeat");
    assert!(uv.iter().all(|&v| (-1.0..1.0).contains(&v)));
    let (mean, _) = mean_and_std(&uv);
    assert!(mean.abs() < 0.1, "uniform mean {mean}");
    let u3 = e.random(&[500], uniform, DType::Float32, None).unwrap();
    let u4 = e.random(&[500], uniform, DType::Float32, None).unwrap();
    assert_ne!(values(e, u3, &[500], DType::Float32), values(e, u4, &[500], DType::Float32), "unseeded differ");
    let normal = Random::Normal { mean: 1.0, std_dev: 2.0 };
    let n = e.random(&[2, 1000], normal, DType::Float32, Some("3")).unwrap();
    let (mean, std) = mean_and_std(&values(e, n, &[2, 1000], DType::Float32));
    assert!((mean - 1.0).abs() < 0.2 && (std - 2.0).abs() < 0.2, "normal mean {mean} std {std}");
    let truncated = Random::TruncatedNormal { mean: 5.0, std_dev: 1.0 };
    let tn = e.random(&[1000], truncated, DType::Float32, Some("3")).unwrap();
    let tv = values(e, tn, &[1000], DType::Float32);
    assert!(tv.iter().all(|&v| (3.0..=7.0).contains(&v)), "within two standard deviations");
    assert!(tv.iter().any(|&v| v < 4.0) && tv.iter().any(|&v| v > 6.0));
    let ints = e.random(&[64], Random::Uniform { min: -5.0, max: 5.0 }, DType::Int32, Some("2")).unwrap();
    let iv = values(e, ints, &[64], DType::Int32);
    assert!(
        iv.iter().all(|&v| (-5.0..=5.0).contains(&v)),
        "int32 uniform samples are truncated, as Int32Array stores them"
    );
    assert!(iv.iter().any(|&v| v != iv[0]));
    // Rounded, not truncated: the mean stays where it is (truncation gave 4.5 for 5).
    let normal_ints = e.random(&[20000], Random::Normal { mean: 5.0, std_dev: 2.0 }, DType::Int32, Some("4")).unwrap();
    let (m, _) = mean_and_std(&values(e, normal_ints, &[20000], DType::Int32));
    assert!((m - 5.0).abs() < 0.1, "int32 normal mean {m}");
    let constant = e.random(&[3], Random::Uniform { min: 2.0, max: 2.0 }, DType::Float32, None).unwrap();
    assert_eq!(values(e, constant, &[3], DType::Float32), vec![2.0; 3]);
    fails(e, "Unsupported data type bool", |e| e.random(&[3], normal, DType::Bool, None));
    // tfjs's generators: the same seed gives tfjs's values (these are @tensorflow/tfjs 4.22's).
    let tfjs = e.random(&[3], Random::Uniform { min: 0.0, max: 1.0 }, DType::Float32, Some("42")).unwrap();
    assert_eq!(values(e, tfjs, &[3], DType::Float32), vec![0.6848635077476501, 0.5463244915008545, 0.8455933332443237]);
    let gauss = e.random(&[2], Random::Normal { mean: 1.0, std_dev: 2.0 }, DType::Float32, Some("42")).unwrap();
    assert_eq!(values(e, gauss, &[2], DType::Float32), vec![4.810618877410889, 1.9548931121826172]);
    e.dispose(tfjs);
    e.dispose(gauss);
    // As tfjs: `min + (max - min) * u` whatever the bounds.
    let flipped = e.random(&[16], Random::Uniform { min: 2.0, max: 1.0 }, DType::Float32, None).unwrap();
    assert!(values(e, flipped, &[16], DType::Float32).iter().all(|&v| v > 1.0 && v <= 2.0));
    let unbounded = e.random(&[4], Random::Uniform { min: f64::NEG_INFINITY, max: 1.0 }, DType::Float32, None).unwrap();
    assert!(values(e, unbounded, &[4], DType::Float32).iter().all(|v| v.is_nan()));
}

/// Random samplers end for every argument: infinite means and deviations give tfjs's
/// ±Infinity instead of redrawing forever.
fn random_normals_end_for_infinite_arguments(e: &mut Engine) {
    for (mean, std_dev, want) in [(f64::INFINITY, 1.0, f64::INFINITY), (f64::NEG_INFINITY, 1.0, f64::NEG_INFINITY)] {
        for dist in [Random::Normal { mean, std_dev }, Random::TruncatedNormal { mean, std_dev }] {
            let t = e.random(&[5], dist, DType::Float32, Some("1")).unwrap();
            assert_eq!(values(e, t, &[5], DType::Float32), vec![want; 5], "{dist:?}");
        }
    }
    let t = e
        .random(&[50], Random::TruncatedNormal { mean: 0.0, std_dev: f64::INFINITY }, DType::Float32, Some("2"))
        .unwrap();
    assert!(values(e, t, &[50], DType::Float32).iter().all(|v| v.is_infinite() || v.is_nan()));
    let t = e.random(&[200], Random::TruncatedNormal { mean: 1.0, std_dev: -2.0 }, DType::Float32, Some("3")).unwrap();
    assert!(values(e, t, &[200], DType::Float32).iter().all(|v| (v - 1.0).abs() <= 4.0 + 1e-6));
}

fn meshgrid_repeats_x_and_y(e: &mut Engine) {
    let x = f32s(e, &[1., 2., 3.], &[3]);
    let y = i32s(e, &[4, 5], &[2]);
    let xy = e.meshgrid(x, y, false).unwrap();
    assert_eq!(values(e, xy[0], &[2, 3], DType::Float32), vec![1., 2., 3., 1., 2., 3.]);
    assert_eq!(values(e, xy[1], &[2, 3], DType::Int32), vec![4., 4., 4., 5., 5., 5.]);
    let ij = e.meshgrid(x, y, true).unwrap();
    assert_eq!(values(e, ij[0], &[3, 2], DType::Float32), vec![1., 1., 2., 2., 3., 3.]);
    assert_eq!(values(e, ij[1], &[3, 2], DType::Int32), vec![4., 5., 4., 5., 4., 5.]);
    // The values of any shape, in order; and the products' kernels, as tfjs's.
    let m = f32s(e, &[1., 2., 3., 4.], &[2, 2]);
    let names = kernels(e, |e| {
        let g = e.meshgrid(m, y, false).unwrap();
        assert_eq!(values(e, g[0], &[2, 4], DType::Float32), vec![1., 2., 3., 4., 1., 2., 3., 4.]);
    });
    assert_eq!(names, ["Reshape", "Reshape", "BatchMatMul", "BatchMatMul"]);
}

fn diag_is_one_kernel_without_gradient(e: &mut Engine) {
    let x = f32s(e, &[1., f32::NAN, -0.0, 4.], &[2, 2]);
    let mut y = 0;
    let names = kernels(e, |e| y = e.diag(x).unwrap());
    assert_eq!(names, ["Diag"]);
    let got = values(e, y, &[2, 2, 2, 2], DType::Float32);
    for (i, v) in got.iter().enumerate() {
        match i {
            0 => assert_eq!(*v, 1.0),
            5 => assert!(v.is_nan()),
            10 => assert!(*v == 0.0 && v.is_sign_negative(), "-0 kept"),
            15 => assert_eq!(*v, 4.0),
            _ => assert!(*v == 0.0 && v.is_sign_positive(), "[{i}] = {v}"),
        }
    }
    let b = tidytensor_suite::bools(e, &[1, 0, 1], &[3]);
    let d = e.diag(b).unwrap();
    assert_eq!(values(e, d, &[3, 3], DType::Bool), vec![1., 0., 0., 0., 0., 0., 0., 0., 1.]);
    let s = i32s(e, &[7], &[]);
    let d = e.diag(s).unwrap();
    assert_eq!(values(e, d, &[], DType::Int32), vec![7.]);
    let empty = f32s(e, &[], &[0]);
    let d = e.diag(empty).unwrap();
    assert_eq!(values(e, d, &[0, 0], DType::Float32), Vec::<f64>::new());
    let v = f32s(e, &[1., 2.], &[2]);
    fails(e, "Cannot compute gradient: gradient function not found for Diag.", |e| {
        e.gradients(|e| e.diag(v), &[v], None, false)
    });
}

fn dropout_is_tfjs_formula_over_the_seeded_draw(e: &mut Engine) {
    let v = random_values(24, 51, -3.0, 3.0);
    let x = of(e, DType::Float32, &v, &[4, 6]);
    let rate = 0.3;
    let keep = 1.0f64 - rate;
    let y = e.dropout(x, rate, None, Some("seed")).unwrap();
    let u = e.random(&[4, 6], Random::Uniform { min: 0.0, max: 1.0 }, DType::Float32, Some("seed")).unwrap();
    let u = values(e, u, &[4, 6], DType::Float32);
    let kf = keep as f32;
    let want: Vec<f64> = v.iter().zip(&u).map(|(&x, &u)| (x as f32 * ((u as f32 + kf).floor() / kf)) as f64).collect();
    assert_eq!(values(e, y, &[4, 6], DType::Float32), want);
    // A noise shape of x's rank takes x's dimensions where it has none: one draw per row.
    let y = e.dropout(x, rate, Some(&[None, Some(1.0)]), Some("rows")).unwrap();
    let got = values(e, y, &[4, 6], DType::Float32);
    for r in 0..4 {
        let kept = got[r * 6] != 0.0;
        for c in 0..6 {
            let want = if kept { (v[r * 6 + c] as f32 * (1.0 / kf)) as f64 } else { 0.0 };
            assert!((got[r * 6 + c] - want).abs() < 1e-5, "row {r} col {c}");
        }
    }
    let same = e.dropout(x, 0.0, None, None).unwrap();
    assert_eq!(values(e, same, &[4, 6], DType::Float32), f32_of(&v));
    let i = i32s(e, &[1, 2], &[2]);
    fails(
        e,
        "x has to be a floating point tensor since it's going to be scaled, but got a int32 tensor instead.",
        |e| e.dropout(i, 0.5, None, None),
    );
    fails(e, "rate must be a float in the range [0, 1), but got 1.", |e| e.dropout(x, 1.0, None, None));
    fails(e, "Tensor must have a shape comprised of positive integers but got shape [,1.5,1].", |e| {
        e.dropout(x, 0.5, Some(&[None, Some(1.5), Some(1.0)]), None)
    });
    fails(e, "Operands could not be broadcast together with shapes 4,6 and 2,6.", |e| {
        e.dropout(x, 0.5, Some(&[Some(2.0), Some(6.0)]), None)
    });
}

fn f32_of(v: &[f64]) -> Vec<f64> {
    v.iter().map(|&x| x as f32 as f64).collect()
}

backend_tests!(
    random_normals_end_for_infinite_arguments,
    fill_stores_values_as_each_dtype,
    fill_is_a_kernel_and_filled_is_not,
    fill_refuses_what_the_backend_cannot_hold,
    range_follows_tfjs,
    linspace_follows_tfjs,
    eye_follows_tfjs,
    one_hot_follows_tfjs,
    random_distributions,
    meshgrid_repeats_x_and_y,
    diag_is_one_kernel_without_gradient,
    dropout_is_tfjs_formula_over_the_seeded_draw,
);
