//! Reductions on every backend: sum, mean, max and min over any axes against an f64
//! reference (every dtype, NaN, int32 wrapping, empty reductions, rows long enough for each
//! backend's large-tensor path), argMax/argMin (ties, NaN) and softmax.

use tidytensor_core::{ArgOp, CumOp, DType, Engine, ReduceOp};
use tidytensor_suite::{
    assert_close, backend_tests, bools, f32s, fails, i32s, large_len, of, random_shape, random_tensor, random_values,
    store, strides, values,
};

/// The output dtype of a reduction (tfjs: sum of bool is int32, mean is float32, max/min keep
/// the dtype).
fn out_dtype(op: ReduceOp, dtype: DType) -> DType {
    match (op, dtype) {
        (ReduceOp::Sum, DType::Bool) => DType::Int32,
        (ReduceOp::Mean, _) => DType::Float32,
        _ => dtype,
    }
}

/// The elements of `x` (shape `shape`) grouped by output position when `axes` are reduced.
fn groups(x: &[f64], shape: &[usize], axes: &[usize]) -> Vec<Vec<f64>> {
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    let out: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
    let (si, so) = (strides(shape), strides(&out));
    let mut g = vec![Vec::new(); out.iter().product()];
    for (i, &v) in x.iter().enumerate() {
        let o: usize = kept.iter().zip(&so).map(|(&d, &s)| (i / si[d]) % shape[d] * s).sum();
        g[o].push(v);
    }
    g
}

/// One group reduced in f64, with NaN propagating through max and min (tfjs:
/// `if (isNaN(v) || v > max)`), and the sum of magnitudes that bounds a float sum's rounding.
fn reduce_ref(op: ReduceOp, row: &[f64]) -> (f64, f64) {
    let scale = row.iter().map(|v| v.abs()).sum::<f64>();
    let v = match op {
        ReduceOp::Sum => row.iter().sum(),
        ReduceOp::Mean => row.iter().sum::<f64>() / row.len() as f64,
        ReduceOp::Max => row.iter().fold(f64::NEG_INFINITY, |m, &v| if v.is_nan() || v > m { v } else { m }),
        ReduceOp::Min => row.iter().fold(f64::INFINITY, |m, &v| if v.is_nan() || v < m { v } else { m }),
        other => unreachable!("{other:?} has its own test"),
    };
    (v, if op == ReduceOp::Mean { scale / row.len() as f64 } else { scale })
}

/// `got` within the rounding of an f32 sum of terms of total magnitude `scale` (different
/// backends sum in different orders and precisions).
fn assert_sum_close(got: &[f64], want: &[f64], scale: &[f64], ctx: &str) {
    assert_eq!(got.len(), want.len(), "{ctx}");
    for i in 0..got.len() {
        let (g, w) = (got[i], want[i]);
        let ok = if w.is_nan() || w.is_infinite() {
            g.is_nan() == w.is_nan() && (w.is_nan() || g == w)
        } else {
            (g - w).abs() <= 2e-6 * scale[i] + 1e-6 * w.abs()
        };
        assert!(ok, "{ctx}: element {i}: got {g}, want {w}");
    }
}

/// Runs every reduction of `x` over `axes` (both keepDims) against the reference.
fn check_reductions(e: &mut Engine, dtype: DType, shape: &[usize], axes: Option<&[i64]>, seed: u64) {
    let (x, xv) = random_tensor(e, dtype, shape, seed);
    let rank = shape.len() as i64;
    let resolved: Vec<usize> = match axes {
        None => (0..shape.len()).collect(),
        Some(a) => a.iter().map(|&a| if a < 0 { a + rank } else { a } as usize).collect(),
    };
    let g = groups(&xv, shape, &resolved);
    for op in [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min] {
        let out = out_dtype(op, dtype);
        for keep in [false, true] {
            let out_shape: Vec<usize> = (0..shape.len())
                .filter_map(|d| match (resolved.contains(&d), keep) {
                    (false, _) => Some(shape[d]),
                    (true, true) => Some(1),
                    (true, false) => None,
                })
                .collect();
            let y = e.reduce(op, x, axes, keep).unwrap();
            let got = values(e, y, &out_shape, out);
            e.dispose(y);
            let (want, scale): (Vec<f64>, Vec<f64>) = g
                .iter()
                .map(|row| {
                    let (v, s) = reduce_ref(op, row);
                    (store(out, v), s)
                })
                .unzip();
            let ctx = format!("{op:?} {dtype:?} {shape:?} axes {axes:?} keepDims {keep}");
            match out {
                DType::Float32 => assert_sum_close(&got, &want, &scale, &ctx),
                _ => assert_eq!(got, want, "{ctx}"),
            }
        }
    }
    e.dispose(x);
}

fn reductions_match_the_reference(e: &mut Engine) {
    let cases: &[(&[usize], Option<&[i64]>)] = &[
        (&[3, 4], None),
        (&[3, 4], Some(&[0])),
        (&[3, 4], Some(&[1])),
        (&[3, 4], Some(&[-1])),
        (&[3, 4], Some(&[0, 1])),
        (&[2, 3, 4], Some(&[0, 2])),
        (&[2, 3, 4], Some(&[1])),
        (&[2, 3, 4], Some(&[1, 2])),
        (&[2, 3, 4], Some(&[-3, 1])),
        (&[2, 1, 3, 2, 2], Some(&[1, 3])),
        (&[2, 3, 4, 5, 2, 3], Some(&[0, 2, 4])),
        (&[5], Some(&[0])),
        (&[1, 13], Some(&[1])),
        (&[5, 1], Some(&[1])),
        (&[70, 3], Some(&[0])),
        (&[], None),
        (&[2, 3], Some(&[])),
        (&[0, 3], Some(&[1])),
    ];
    let mut seed = 100;
    for &(shape, axes) in cases {
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            seed += 1;
            check_reductions(e, dtype, shape, axes, seed);
        }
    }
    // Random shapes, each reduced over a random subset of its axes.
    for i in 0..10 {
        let shape = random_shape(150 + i, 4, 5);
        let pick = random_values(shape.len(), 170 + i, 0.0, 1.0);
        let axes: Vec<i64> = (0..shape.len() as i64).filter(|&a| pick[a as usize] < 0.5).collect();
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            check_reductions(e, dtype, &shape, Some(&axes), 190 + i);
        }
    }
}

/// Rows and columns past each backend's large-tensor paths: the cpu backend's threads (one
/// huge row split, many rows in parallel), wgpu's multi-pass workgroup trees.
fn long_reductions_match_the_reference(e: &mut Engine) {
    let n = large_len(e);
    let cases: [(&[usize], Option<&[i64]>); 4] =
        [(&[n], None), (&[4, n / 4], Some(&[1])), (&[n / 5, 5], Some(&[1])), (&[n / 5, 5], Some(&[0]))];
    for (i, &(shape, axes)) in cases.iter().enumerate() {
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            check_reductions(e, dtype, shape, axes, 200 + i as u64);
        }
    }
}

fn reduction_special_values(e: &mut Engine) {
    let x = f32s(e, &[1.0, f32::NAN, 3.0, 4.0, f32::INFINITY, -f32::INFINITY], &[3, 2]);
    for op in [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min] {
        let y = e.reduce(op, x, Some(&[1]), false).unwrap();
        let v = values(e, y, &[3], DType::Float32);
        assert!(v[0].is_nan() && !v[1].is_nan(), "{op:?}: {v:?}");
        assert_eq!(v[2].is_nan(), matches!(op, ReduceOp::Sum | ReduceOp::Mean), "{op:?}: inf - inf");
    }
    // int32 sums wrap like an Int32Array; means are float32.
    let i = i32s(e, &[i32::MAX, 1, -7, 0, 7, 0], &[3, 2]);
    let s = e.reduce(ReduceOp::Sum, i, Some(&[1]), false).unwrap();
    assert_eq!(values(e, s, &[3], DType::Int32), vec![i32::MIN as f64, -7., 7.]);
    let m = e.reduce(ReduceOp::Mean, i, Some(&[1]), false).unwrap();
    assert_eq!(values(e, m, &[3], DType::Float32), vec![1073741824., -3.5, 3.5]);
    let mx = e.reduce(ReduceOp::Max, i, None, false).unwrap();
    assert_eq!(values(e, mx, &[], DType::Int32), vec![i32::MAX as f64]);
    let big = i32s(e, &[i32::MAX, i32::MAX, i32::MIN, i32::MIN, -1], &[5]);
    let m = e.reduce(ReduceOp::Mean, big, None, false).unwrap();
    assert_eq!(values(e, m, &[], DType::Float32), vec![(-3.0f64 / 5.0) as f32 as f64], "means sum exactly");
    let b = bools(e, &[1, 1, 0, 1], &[1, 4]);
    let s = e.reduce(ReduceOp::Sum, b, Some(&[1]), false).unwrap();
    assert_eq!(values(e, s, &[1], DType::Int32), vec![3.0]);
    let mx = e.reduce(ReduceOp::Max, b, None, true).unwrap();
    assert_eq!(values(e, mx, &[1, 1], DType::Bool), vec![1.0]);
    let mn = e.reduce(ReduceOp::Min, b, None, false).unwrap();
    assert_eq!(values(e, mn, &[], DType::Bool), vec![0.0]);
    let mean = e.reduce(ReduceOp::Mean, b, Some(&[-1]), false).unwrap();
    assert_eq!(values(e, mean, &[1], DType::Float32), vec![0.75]);
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let sum0 = e.reduce(ReduceOp::Sum, x, Some(&[0]), true).unwrap();
    assert_eq!(values(e, sum0, &[1, 3], DType::Float32), vec![5., 7., 9.]);
    let three = f32s(e, &[1., 2., 3., 4., 5., 6., 7., 8.], &[2, 2, 2]);
    let mx = e.reduce(ReduceOp::Max, three, Some(&[0, 2]), false).unwrap();
    assert_eq!(values(e, mx, &[2], DType::Float32), vec![6., 8.]);
    let i7 = i32s(e, &[7, -7, 1], &[3]);
    let mean = e.reduce(ReduceOp::Mean, i7, None, false).unwrap();
    assert_close(&values(e, mean, &[], DType::Float32), &[1.0 / 3.0], 1e-6);
}

/// Reducing nothing is answered by the core: 0 for sum and mean, NaN for float max/min and 0
/// for integer ones.
fn empty_reductions(e: &mut Engine) {
    let f = f32s(e, &[], &[2, 0]);
    let i = i32s(e, &[], &[2, 0]);
    let b = bools(e, &[], &[2, 0]);
    for (x, dtype) in [(f, DType::Float32), (i, DType::Int32), (b, DType::Bool)] {
        for op in [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min] {
            let out = out_dtype(op, dtype);
            let empty = match op {
                ReduceOp::Max | ReduceOp::Min if out == DType::Float32 => f64::NAN,
                _ => 0.0,
            };
            let y = e.reduce(op, x, Some(&[1]), false).unwrap();
            assert_close(&values(e, y, &[2], out), &[empty; 2], 0.0);
            let y = e.reduce(op, x, None, true).unwrap();
            assert_close(&values(e, y, &[1, 1], out), &[empty], 0.0);
            let y = e.reduce(op, x, Some(&[0]), false).unwrap();
            assert_eq!(values(e, y, &[0], out), Vec::<f64>::new(), "nothing left to reduce into");
        }
    }
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    fails(e, "All values in axis param must be in range [-2, 2) but got axis 2", |e| {
        e.reduce(ReduceOp::Sum, x, Some(&[2]), false)
    });
    fails(e, "All values in axis param must be in range [-2, 2) but got axis 0,-3", |e| {
        e.reduce(ReduceOp::Max, x, Some(&[0, -3]), false)
    });
}

/// The index of the first max (min) along the middle axis of `[outer, axis, inner]`; a NaN never
/// wins unless it comes first (tfjs compares `value > max`).
fn arg_ref(op: ArgOp, x: &[f64], outer: usize, axis: usize, inner: usize) -> Vec<f64> {
    let mut out = vec![0.0; outer * inner];
    for o in 0..outer {
        for i in 0..inner {
            let at = |a: usize| x[(o * axis + a) * inner + i];
            let mut best = at(0);
            for a in 1..axis {
                let better = match op {
                    ArgOp::ArgMax => at(a) > best,
                    ArgOp::ArgMin => at(a) < best,
                };
                if better {
                    best = at(a);
                    out[o * inner + i] = a as f64;
                }
            }
        }
    }
    out
}

fn check_arg(e: &mut Engine, dtype: DType, shape: &[usize], axis: i64, xv: &[f64]) {
    let x = of(e, dtype, xv, shape);
    let ax = if axis < 0 { axis + shape.len() as i64 } else { axis } as usize;
    let (outer, inner) = (shape[..ax].iter().product(), shape[ax + 1..].iter().product());
    let out_shape: Vec<usize> = shape.iter().enumerate().filter(|&(d, _)| d != ax).map(|(_, &s)| s).collect();
    for op in [ArgOp::ArgMax, ArgOp::ArgMin] {
        let y = e.arg_reduce(op, x, axis).unwrap();
        let want = arg_ref(op, xv, outer, shape[ax], inner);
        assert_eq!(values(e, y, &out_shape, DType::Int32), want, "{op:?} {dtype:?} {shape:?} axis {axis}");
        e.dispose(y);
    }
    e.dispose(x);
}

fn arg_reductions_match_the_reference(e: &mut Engine) {
    let n = large_len(e);
    let cases: Vec<(Vec<usize>, i64)> = vec![
        (vec![3, 4], 1),
        (vec![3, 4], 0),
        (vec![3, 4], -1),
        (vec![2, 5, 3], 1),
        (vec![2, 5, 3], 0),
        (vec![2, 5, 3], 2),
        (vec![7], 0),
        (vec![1, 1], 1),
        (vec![4, 1], 1),
        (vec![2, 2, 3, 2, 2, 3], 3),
        (vec![3, 100], 1),
        (vec![3, n / 3], 1),
        (vec![n / 3, 3], 0),
    ];
    let mut seed = 300;
    for (shape, axis) in cases {
        let len: usize = shape.iter().product();
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            seed += 1;
            // Few distinct values, so there are ties to break.
            let mut xv: Vec<f64> = random_values(len, seed, 0.0, 8.0).iter().map(|v| v.floor()).collect();
            if dtype == DType::Bool {
                xv.iter_mut().for_each(|v| *v = (*v > 3.0) as u8 as f64);
            }
            check_arg(e, dtype, &shape, axis, &xv);
        }
        let (_, fv) = random_tensor(e, DType::Float32, &shape, seed);
        check_arg(e, DType::Float32, &shape, axis, &fv);
    }
    // NaN only wins when first; ties keep the first index.
    let x = f32s(e, &[1.0, 3.0, 3.0, f32::NAN, f32::NAN, 5.0, 2.0, 9.0], &[2, 4]);
    let g = e.arg_reduce(ArgOp::ArgMax, x, 1).unwrap();
    assert_eq!(values(e, g, &[2], DType::Int32), vec![1.0, 0.0]);
    let g = e.arg_reduce(ArgOp::ArgMin, x, 1).unwrap();
    assert_eq!(values(e, g, &[2], DType::Int32), vec![0.0, 0.0]);
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let am = e.arg_reduce(ArgOp::ArgMax, x, 1).unwrap();
    assert_eq!(values(e, am, &[2], DType::Int32), vec![2., 2.]);
    // A scalar has no axis (tfjs's range [-0, 0)).
    let scalar = f32s(e, &[7.0], &[]);
    fails(e, "All values in axis param must be in range [-0, 0) but got axis 0", |e| {
        e.arg_reduce(ArgOp::ArgMin, scalar, 0)
    });
    let empty = f32s(e, &[], &[2, 0, 3]);
    let z = e.arg_reduce(ArgOp::ArgMax, empty, 1).unwrap();
    assert_eq!(values(e, z, &[2, 3], DType::Int32), vec![0.0; 6]);
    let z = e.arg_reduce(ArgOp::ArgMax, empty, 0).unwrap();
    assert_eq!(values(e, z, &[0, 3], DType::Int32), Vec::<f64>::new());
    fails(e, "All values in axis param must be in range [-2, 2) but got axis 2", |e| e.arg_reduce(ArgOp::ArgMax, x, 2));
}

/// Softmax rows in f64: `exp(x - max) / sum(exp(x - max))`.
fn softmax_ref(x: &[f64], inner: usize) -> Vec<f64> {
    x.chunks(inner.max(1))
        .flat_map(|row| {
            let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| if v.is_nan() || v > m { v } else { m });
            let s: f64 = row.iter().map(|&v| (v - m).exp()).sum();
            row.iter().map(move |&v| (v - m).exp() / s).collect::<Vec<_>>()
        })
        .collect()
}

fn softmax_matches_the_reference(e: &mut Engine) {
    let n = large_len(e);
    let shapes: Vec<Vec<usize>> = vec![
        vec![1, 1],
        vec![2, 3],
        vec![5],
        vec![2, 3, 4],
        vec![3, 10],
        vec![5, 100],
        vec![4, 0],
        vec![0, 4],
        vec![2, n / 2],
        vec![n / 8, 8],
    ];
    for (i, shape) in shapes.iter().enumerate() {
        let (x, xv) = random_tensor(e, DType::Float32, shape, 400 + i as u64);
        let y = e.softmax(x, -1).unwrap();
        let got = values(e, y, shape, DType::Float32);
        let want = softmax_ref(&xv, *shape.last().unwrap());
        for (j, (&g, &w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-5 * w + 1e-9, "{shape:?} [{j}]: got {g}, want {w}");
        }
        assert_eq!(got.len(), want.len());
        e.dispose(x);
        e.dispose(y);
    }
    // Large logits stay finite; a row with NaN is NaN; -Infinity is a zero.
    let x = f32s(e, &[1000.0, 1000.0, f32::NAN, 1.0, -f32::INFINITY, 0.0], &[3, 2]);
    let y = e.softmax(x, 1).unwrap();
    let v = values(e, y, &[3, 2], DType::Float32);
    assert!(v[0] == 0.5 && v[1] == 0.5 && v[2].is_nan() && v[3].is_nan() && v[4] == 0.0 && v[5] == 1.0, "{v:?}");
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let sm = e.softmax(x, -1).unwrap();
    let v = values(e, sm, &[2, 3], DType::Float32);
    assert!((v[0] + v[1] + v[2] - 1.0).abs() < 1e-6 && v[2] > v[1]);
    fails(e, "Softmax along a non-last dimension is not yet supported. Logits was rank 2 and dim was 0", |e| {
        e.softmax(x, 0)
    });
    let i = i32s(e, &[1, 2], &[2]);
    fails(e, "Argument 'logits' passed to 'softmax' must be float32 tensor, but got int32 tensor", |e| {
        e.softmax(i, -1)
    });
}

/// prod multiplies in f64 (int32 stored by ToInt32 of the product; bool counts as int32);
/// all and any take bool only; empty rows give 1, true and false.
fn prod_all_any(e: &mut Engine) {
    let x = f32s(e, &[1.5, -2.0, 4.0, f32::NAN, 0.5, -0.0], &[2, 3]);
    let p = e.reduce(ReduceOp::Prod, x, Some(&[1]), false).unwrap();
    let pv = values(e, p, &[2], DType::Float32);
    assert!(pv[0] == -12.0 && pv[1].is_nan(), "{pv:?}");
    let i = i32s(e, &[65536, 65536, 3, -7, 1, 2], &[2, 3]);
    let p = e.reduce(ReduceOp::Prod, i, Some(&[1]), true).unwrap();
    assert_eq!(values(e, p, &[2, 1], DType::Int32), vec![0.0, -14.0], "2^32 * 3 stores as 0");
    let b = bools(e, &[1, 0, 1, 1, 1, 1], &[2, 3]);
    let p = e.reduce(ReduceOp::Prod, b, None, false).unwrap();
    assert_eq!(values(e, p, &[], DType::Int32), vec![0.0]);
    let a = e.reduce(ReduceOp::All, b, Some(&[1]), false).unwrap();
    assert_eq!(values(e, a, &[2], DType::Bool), vec![0.0, 1.0]);
    let a = e.reduce(ReduceOp::Any, b, Some(&[0]), false).unwrap();
    assert_eq!(values(e, a, &[3], DType::Bool), vec![1.0, 1.0, 1.0]);
    let a = e.reduce(ReduceOp::All, b, None, false).unwrap();
    assert_eq!(values(e, a, &[], DType::Bool), vec![0.0]);
    let empty = bools(e, &[], &[0, 2]);
    for (op, want) in [(ReduceOp::All, 1.0), (ReduceOp::Any, 0.0)] {
        let y = e.reduce(op, empty, Some(&[0]), false).unwrap();
        assert_eq!(values(e, y, &[2], DType::Bool), vec![want; 2], "{op:?} of nothing");
    }
    let ef = f32s(e, &[], &[0, 2]);
    let y = e.reduce(ReduceOp::Prod, ef, Some(&[0]), false).unwrap();
    assert_eq!(values(e, y, &[2], DType::Float32), vec![1.0; 2]);
    fails(e, "Argument 'x' passed to 'all' must be bool tensor, but got float32 tensor", |e| {
        e.reduce(ReduceOp::All, x, None, false)
    });
    fails(e, "Argument 'x' passed to 'any' must be bool tensor, but got int32 tensor", |e| {
        e.reduce(ReduceOp::Any, i, None, false)
    });
    // Rows long enough for each backend's large-tensor path.
    let n = large_len(e);
    let ones: Vec<u8> = (0..n).map(|k| (k != n / 2) as u8).collect();
    let big = bools(e, &ones, &[n]);
    let y = e.reduce(ReduceOp::All, big, None, false).unwrap();
    assert_eq!(values(e, y, &[], DType::Bool), vec![0.0]);
    let y = e.reduce(ReduceOp::Any, big, None, false).unwrap();
    assert_eq!(values(e, y, &[], DType::Bool), vec![1.0]);
    let halves = of(e, DType::Float32, &vec![1.0001; n], &[n]);
    let y = e.reduce(ReduceOp::Prod, halves, None, false).unwrap();
    let want = 1.0001f32 as f64;
    assert_close(&values(e, y, &[], DType::Float32), &[want.powi(n as i32)], 1e-3);
}

/// cumsum/cumprod along any axis, exclusive and reversed, every dtype; long rows too.
fn cumulative_scans(e: &mut Engine) {
    let x = f32s(e, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let y = e.cumulative(CumOp::Sum, x, 1, false, false).unwrap();
    assert_eq!(values(e, y, &[2, 3], DType::Float32), vec![1., 3., 6., 4., 9., 15.]);
    let y = e.cumulative(CumOp::Sum, x, 0, true, false).unwrap();
    assert_eq!(values(e, y, &[2, 3], DType::Float32), vec![0., 0., 0., 1., 2., 3.]);
    let y = e.cumulative(CumOp::Prod, x, -1, false, true).unwrap();
    assert_eq!(values(e, y, &[2, 3], DType::Float32), vec![6., 6., 3., 120., 30., 6.]);
    let y = e.cumulative(CumOp::Prod, x, 1, true, true).unwrap();
    assert_eq!(values(e, y, &[2, 3], DType::Float32), vec![6., 3., 1., 30., 6., 1.]);
    let b = bools(e, &[1, 1, 0, 1], &[4]);
    let y = e.cumulative(CumOp::Sum, b, 0, false, false).unwrap();
    assert_eq!(values(e, y, &[4], DType::Int32), vec![1., 2., 2., 3.], "bool sums as int32");
    let i = i32s(e, &[i32::MAX, 1, 2], &[3]);
    let y = e.cumulative(CumOp::Sum, i, 0, false, false).unwrap();
    assert_eq!(values(e, y, &[3], DType::Int32), vec![i32::MAX as f64, i32::MIN as f64, (i32::MIN + 2) as f64]);
    fails(e, "Error in cumsum: axis must be in range [-2, 2) but got axis 2.", |e| {
        e.cumulative(CumOp::Sum, x, 2, false, false)
    });
    let n = large_len(e);
    let ones = of(e, DType::Float32, &vec![1.0; n], &[2, n / 2]);
    let y = e.cumulative(CumOp::Sum, ones, 1, false, false).unwrap();
    let got = values(e, y, &[2, n / 2], DType::Float32);
    assert_eq!(got[n / 2 - 1], (n / 2) as f64);
    assert_eq!(got[n - 1], (n / 2) as f64);
    let empty = f32s(e, &[], &[0, 2]);
    let y = e.cumulative(CumOp::Prod, empty, 1, false, false).unwrap();
    assert_eq!(values(e, y, &[0, 2], DType::Float32), Vec::<f64>::new());
}

/// topk: descending, NaN above everything, ties by lower index; every dtype; long rows.
fn topk_picks_in_order(e: &mut Engine) {
    let x = f32s(e, &[1.0, f32::NAN, 3.0, 3.0, -1.0, f32::INFINITY], &[2, 3]);
    let r = e.topk(x, 2).unwrap();
    let v = values(e, r[0], &[2, 2], DType::Float32);
    assert!(v[0].is_nan() && v[1] == 3.0 && v[2] == f64::INFINITY && v[3] == 3.0, "{v:?}");
    assert_eq!(values(e, r[1], &[2, 2], DType::Int32), vec![1.0, 2.0, 2.0, 0.0]);
    let i = i32s(e, &[5, -3, 5, i32::MIN, i32::MAX], &[5]);
    let r = e.topk(i, 5).unwrap();
    assert_eq!(values(e, r[0], &[5], DType::Int32), vec![i32::MAX as f64, 5.0, 5.0, -3.0, i32::MIN as f64]);
    assert_eq!(values(e, r[1], &[5], DType::Int32), vec![4.0, 0.0, 2.0, 1.0, 3.0]);
    let b = bools(e, &[0, 1, 0, 1], &[4]);
    let r = e.topk(b, 3).unwrap();
    assert_eq!(values(e, r[0], &[3], DType::Bool), vec![1.0, 1.0, 0.0]);
    assert_eq!(values(e, r[1], &[3], DType::Int32), vec![1.0, 3.0, 0.0]);
    let n = 3000;
    let row: Vec<f64> = (0..n).map(|k| ((k * 7919) % n) as f64).collect();
    let long = of(e, DType::Float32, &row, &[1, n]);
    let r = e.topk(long, 3).unwrap();
    assert_eq!(values(e, r[0], &[1, 3], DType::Float32), vec![2999.0, 2998.0, 2997.0]);
    fails(e, "'k' passed to topk() must be <= the last dimension (3) but got 4", |e| e.topk(x, 4));
    fails(e, "topk() expects the input to be of rank 1 or higher", |e| {
        let s = f32s(e, &[1.0], &[]);
        let r = e.topk(s, 1);
        e.dispose(s);
        r
    });
}

fn read_f64(e: &Engine, t: tidytensor_core::TensorId) -> Vec<f64> {
    e.read(t).expect("read").to_f64()
}

/// `moments` over any axes (one block in place, a set that must move, all, none of size 0)
/// against an f64 reference: one `Moments` kernel leaving only the mean and the variance
/// when no gradient is recorded; the composition, with its gradient, while one is.
fn moments_match_the_reference(e: &mut Engine) {
    let long = large_len(e);
    let cases: Vec<(Vec<usize>, Option<Vec<i64>>)> = vec![
        (vec![2, 5, 5, 3], Some(vec![0, 1, 2])),
        (vec![4, 6], Some(vec![-1])),
        (vec![3, 4, 5], Some(vec![1])),
        (vec![3, 4, 5], Some(vec![0, 2])),
        (vec![3, 4, 5], None),
        (vec![7], Some(vec![0])),
        (vec![long / 8, 8], Some(vec![0])),
        (vec![8, long / 8], Some(vec![1])),
        (vec![long], None),
        (vec![], None),
        (vec![2, 2], Some(vec![])),
    ];
    for (shape, axes) in cases {
        for keep_dims in [false, true] {
            e.start_scope();
            let n: usize = shape.iter().product();
            let v: Vec<f64> = random_values(n, 21, -3.0, 5.0).iter().map(|&x| x as f32 as f64).collect();
            let x = f32s(e, &v.iter().map(|&x| x as f32).collect::<Vec<_>>(), &shape);
            let rank = shape.len() as i64;
            let ax: Vec<usize> = match &axes {
                Some(a) => a.iter().map(|&a| ((a + rank) % rank) as usize).collect(),
                None => (0..shape.len()).collect(),
            };
            let before = e.memory();
            let mark = e.start_profile();
            let (mean, var) = e.moments(x, axes.as_deref(), keep_dims).unwrap();
            let names: Vec<&str> = e.end_profile(mark, true).iter().map(|r| r.name).collect();
            assert_eq!(names, vec!["Moments"], "{shape:?} over {axes:?}");
            assert_eq!(e.memory().num_tensors, before.num_tensors + 2, "only the two results are left");
            let want_shape: Vec<usize> = (0..shape.len())
                .filter_map(|d| if ax.contains(&d) { keep_dims.then_some(1) } else { Some(shape[d]) })
                .collect();
            assert_eq!(e.shape(mean).unwrap(), want_shape);
            assert_eq!(e.shape(var).unwrap(), want_shape);
            let (mut want_m, mut want_v) = (Vec::new(), Vec::new());
            for g in groups(&v, &shape, &ax) {
                let m = g.iter().sum::<f64>() / g.len() as f64;
                want_m.push(m);
                want_v.push(g.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / g.len() as f64);
            }
            assert_close(&read_f64(e, mean), &want_m, 1e-5);
            assert_close(&read_f64(e, var), &want_v, 1e-5);
            // While a gradient is recorded: the ops themselves, with the same values.
            let (_, grads) = e
                .gradients(
                    |e| {
                        let (m, v) = e.moments(x, axes.as_deref(), keep_dims)?;
                        assert_close(&read_f64(e, m), &want_m, 1e-5);
                        assert_close(&read_f64(e, v), &want_v, 1e-5);
                        let s = e.add(m, v)?;
                        e.reduce(ReduceOp::Sum, s, None, false)
                    },
                    &[x],
                    None,
                    false,
                )
                .unwrap();
            // d(mean + var)/dx = (1 + 2 (x - mean)) / count, per element.
            let count = n / want_m.len();
            let gv = read_f64(e, grads[0].unwrap());
            let kept: Vec<usize> = (0..shape.len()).filter(|d| !ax.contains(d)).collect();
            let si = strides(&shape);
            let so = strides(&kept.iter().map(|&d| shape[d]).collect::<Vec<_>>());
            let want_g: Vec<f64> = (0..n)
                .map(|i| {
                    let o: usize = kept.iter().zip(&so).map(|(&d, &s)| (i / si[d]) % shape[d] * s).sum();
                    (1.0 + 2.0 * (v[i] - want_m[o])) / count as f64
                })
                .collect();
            assert_close(&gv, &want_g, 1e-4);
            e.end_scope(&[]);
        }
    }
    // int32 input and empty reductions compose; duplicate axes are refused as by `mean`.
    e.start_scope();
    let x = i32s(e, &[1, 2, 3, 4, 5, 6], &[2, 3]);
    let (m, v) = e.moments(x, Some(&[1]), false).unwrap();
    assert_close(&read_f64(e, m), &[2.0, 5.0], 1e-6);
    assert_close(&read_f64(e, v), &[2.0 / 3.0, 2.0 / 3.0], 1e-6);
    assert_eq!(e.dtype(v).unwrap(), DType::Float32);
    let empty = f32s(e, &[], &[0, 3]);
    let (m, _) = e.moments(empty, Some(&[0]), false).unwrap();
    assert_eq!(e.shape(m).unwrap(), [3]);
    let before = e.memory();
    assert_eq!(e.moments(x, Some(&[1, 1]), false).unwrap_err().0, "Axes contain a duplicate dimension: axis 1,1");
    assert_eq!(e.memory().num_tensors, before.num_tensors, "nothing left by the failure");
    e.end_scope(&[]);
}

backend_tests!(
    moments_match_the_reference,
    topk_picks_in_order,
    cumulative_scans,
    prod_all_any,
    reductions_match_the_reference,
    long_reductions_match_the_reference,
    reduction_special_values,
    empty_reductions,
    arg_reductions_match_the_reference,
    softmax_matches_the_reference,
);
