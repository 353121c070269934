//! matMul on every backend against a triple loop: transposes, batch broadcasting (a batch of 1
//! and general), empty dimensions, dtypes, tfjs's errors.

use tidytensor_core::{DType, Engine};
use tidytensor_suite::{assert_close, backend_tests, f32s, fails, i32s, large_len, of, random_values, strides, values};

/// `op(a) @ op(b)` in f64 for shapes `[...batch, rows, cols]`, batch dims broadcast.
fn matmul_ref(a: &[f64], sa: &[usize], b: &[f64], sb: &[usize], ta: bool, tb: bool) -> (Vec<f64>, Vec<usize>) {
    let (ra, rb) = (sa.len(), sb.len());
    let (m, k) = if ta { (sa[ra - 1], sa[ra - 2]) } else { (sa[ra - 2], sa[ra - 1]) };
    let n = if tb { sb[rb - 2] } else { sb[rb - 1] };
    let rank = ra.max(rb) - 2;
    let pad = |s: &[usize]| [vec![1; rank + 2 - s.len()], s[..s.len() - 2].to_vec()].concat();
    let (ba, bb) = (pad(sa), pad(sb));
    let batch: Vec<usize> = (0..rank).map(|d| if ba[d] == 1 { bb[d] } else { ba[d] }).collect();
    let (sta, stb, sto) = (strides(&ba), strides(&bb), strides(&batch));
    let mut out = Vec::new();
    for i in 0..batch.iter().product() {
        let (mut oa, mut ob) = (0, 0);
        for d in 0..rank {
            let j = (i / sto[d]) % batch[d];
            oa += if ba[d] == 1 { 0 } else { j * sta[d] };
            ob += if bb[d] == 1 { 0 } else { j * stb[d] };
        }
        let (a, b) = (&a[oa * m * k..], &b[ob * k * n..]);
        for r in 0..m {
            for c in 0..n {
                let at = |p: usize| if ta { a[p * m + r] } else { a[r * k + p] };
                let bt = |p: usize| if tb { b[c * k + p] } else { b[p * n + c] };
                out.push((0..k).map(|p| at(p) * bt(p)).sum());
            }
        }
    }
    (out, [batch, vec![m, n]].concat())
}

/// Random matrices of batch shapes `ba`, `bb` for `[m, k] @ [k, n]` under every transpose.
fn check(e: &mut Engine, ba: &[usize], bb: &[usize], m: usize, k: usize, n: usize, seed: u64) {
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        let sa = [ba, &if ta { [k, m] } else { [m, k] }].concat();
        let sb = [bb, &if tb { [n, k] } else { [k, n] }].concat();
        let av = random_values(sa.iter().product(), seed, -1.0, 1.0);
        let bv = random_values(sb.iter().product(), seed + 1, -1.0, 1.0);
        let (a, b) = (of(e, DType::Float32, &av, &sa), of(e, DType::Float32, &bv, &sb));
        let av: Vec<f64> = av.iter().map(|&v| v as f32 as f64).collect();
        let bv: Vec<f64> = bv.iter().map(|&v| v as f32 as f64).collect();
        let (want, shape) = matmul_ref(&av, &sa, &bv, &sb, ta, tb);
        let y = e.matmul(a, b, ta, tb).unwrap();
        let got = values(e, y, &shape, DType::Float32);
        // Sums of k products of values in [-1, 1): rounding grows with k, whatever the result.
        let tol = 1e-6 * (k as f64 + 1.0);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= tol + 1e-5 * w.abs(), "{sa:?} {sb:?} ta {ta} tb {tb} [{i}]: {g} vs {w}");
        }
        assert_eq!(got.len(), want.len());
        for t in [a, b, y] {
            e.dispose(t);
        }
    }
}

fn matmul_matches_the_triple_loop(e: &mut Engine) {
    check(e, &[], &[], 1, 1, 1, 1);
    check(e, &[], &[], 2, 3, 4, 3);
    check(e, &[2], &[2], 3, 4, 5, 5);
    check(e, &[], &[], 1, 17, 9, 7);
    check(e, &[], &[], 9, 17, 1, 9);
    // Not multiples of the GPU's 32x32 tile, nor of 4.
    check(e, &[], &[], 33, 17, 65, 11);
    check(e, &[], &[], 64, 64, 64, 13);
    check(e, &[60], &[60], 4, 5, 3, 15);
    // Many small products: the cpu backend spreads them over threads.
    let batch = large_len(e) / 100;
    check(e, &[batch], &[batch], 8, 8, 8, 17);
    check(e, &[batch], &[1], 8, 9, 7, 19);
}

fn matmul_broadcasts_batches(e: &mut Engine) {
    check(e, &[1], &[3], 3, 4, 5, 21);
    check(e, &[3], &[1], 5, 2, 3, 23);
    check(e, &[4], &[], 3, 5, 2, 25);
    check(e, &[], &[2, 2], 3, 5, 2, 27);
    check(e, &[2, 1], &[1, 3], 3, 5, 2, 29);
    check(e, &[2, 1, 3], &[4, 1], 2, 3, 2, 31);
    // An old example: x @ x^T.
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let m = e.matmul(x, x, false, true).unwrap();
    assert_eq!(values(e, m, &[2, 2], DType::Float32), vec![14., 32., 32., 77.]);
    let three = f32s(e, &[1., 2., 3., 4., 5., 6.], &[1, 2, 3]);
    let m = e.matmul(three, x, false, true).unwrap();
    assert_eq!(values(e, m, &[1, 2, 2], DType::Float32), vec![14., 32., 32., 77.]);
}

fn matmul_of_empty_dimensions(e: &mut Engine) {
    // k = 0 is a sum of nothing: zeros.
    let a = f32s(e, &[], &[2, 3, 0]);
    let b = f32s(e, &[], &[2, 0, 4]);
    let y = e.matmul(a, b, false, false).unwrap();
    assert_eq!(values(e, y, &[2, 3, 4], DType::Float32), vec![0.0; 24]);
    for (sa, sb, out) in [
        (vec![2, 0, 3], vec![2, 3, 4], vec![2, 0, 4]),
        (vec![2, 3, 3], vec![2, 3, 0], vec![2, 3, 0]),
        (vec![0, 3, 4], vec![1, 4, 5], vec![0, 3, 5]),
    ] {
        let a = of(e, DType::Float32, &vec![1.0; sa.iter().product()], &sa);
        let b = of(e, DType::Float32, &vec![1.0; sb.iter().product()], &sb);
        let y = e.matmul(a, b, false, false).unwrap();
        assert_eq!(values(e, y, &out, DType::Float32), Vec::<f64>::new(), "{sa:?} @ {sb:?}");
    }
}

fn matmul_dtypes(e: &mut Engine) {
    let ia = i32s(e, &[1, 2, 3, 4, 5, 6], &[2, 3]);
    let ib = i32s(e, &[7, 8, 9, 10, 11, 12], &[3, 2]);
    let y = e.matmul(ia, ib, false, false).unwrap();
    assert_eq!(values(e, y, &[2, 2], DType::Int32), vec![58., 64., 139., 154.], "int32 @ int32 stays int32");
    let fb = f32s(e, &[0.5, 0.5, 0.5, 0.5, 0.5, 0.5], &[3, 2]);
    let y = e.matmul(ia, fb, false, false).unwrap();
    assert_eq!(values(e, y, &[2, 2], DType::Float32), vec![3., 3., 7.5, 7.5]);
    let y = e.matmul(ib, ia, true, true).unwrap();
    assert_eq!(values(e, y, &[2, 2], DType::Int32), vec![58., 139., 64., 154.]);
}

fn matmul_errors(e: &mut Engine) {
    let v = i32s(e, &[7, -7, 1], &[3]);
    fails(e, "Error in matMul: inputs must have rank >= 2, but got shapes 3 and 3.", |e| e.matmul(v, v, false, false));
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    fails(
        e,
        "Error in matMul: inner shapes (3) and (2) of Tensors with shapes 2,3 and 2,3 and transposeA=false and transposeB=false must match.",
        |e| e.matmul(x, x, false, false),
    );
    let a = e.fill(&[2, 2, 3], 1.0, DType::Float32).unwrap();
    let b = e.fill(&[3, 3, 2], 1.0, DType::Float32).unwrap();
    fails(e, "Error in matMul: the batch dimensions of shapes 2,2,3 and 3,3,2 could not be broadcast.", |e| {
        e.matmul(a, b, false, false)
    });
}

/// `a` (`[m, k]`) times `b` (`[k, n]`) in f64.
fn mm(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    (0..m * n).map(|i| (0..k).map(|p| a[i / n * k + p] * b[p * n + i % n]).sum()).collect()
}

fn f32_values(v: &[f64]) -> Vec<f64> {
    v.iter().map(|&x| x as f32 as f64).collect()
}

fn dot_and_outer_product(e: &mut Engine) {
    let a = random_values(6, 41, -2.0, 2.0);
    let b = random_values(12, 42, -2.0, 2.0);
    let (ta, tb) = (of(e, DType::Float32, &a, &[2, 3]), of(e, DType::Float32, &b, &[3, 4]));
    let (a, b) = (f32_values(&a), f32_values(&b));
    let y = e.dot(ta, tb).unwrap();
    assert_close(&values(e, y, &[2, 4], DType::Float32), &mm(&a, &b, 2, 3, 4), 1e-5);
    let v = of(e, DType::Float32, &a[..3], &[3]);
    let y = e.dot(v, tb).unwrap();
    assert_close(&values(e, y, &[4], DType::Float32), &mm(&a[..3], &b, 1, 3, 4), 1e-5);
    let y = e.dot(ta, v).unwrap();
    assert_close(&values(e, y, &[2], DType::Float32), &mm(&a, &a[..3], 2, 3, 1), 1e-5);
    let y = e.dot(v, v).unwrap();
    assert_close(&values(e, y, &[], DType::Float32), &mm(&a[..3], &a[..3], 1, 3, 1), 1e-5);
    let iv = i32s(e, &[1, 2, 3], &[3]);
    let y = e.dot(iv, iv).unwrap();
    assert_eq!(values(e, y, &[], DType::Int32), vec![14.0]);
    let w = of(e, DType::Float32, &b[..4], &[4]);
    let y = e.outer_product(v, w).unwrap();
    assert_close(&values(e, y, &[3, 4], DType::Float32), &mm(&a[..3], &b[..4], 3, 1, 4), 1e-6);
    let t3 = e.reshape(ta, &[1, 2, 3]).unwrap();
    fails(e, "Error in dot: inputs must all be rank 1 or 2, but got ranks 3 and 1.", |e| e.dot(t3, v));
    fails(e, "Error in dot: inner dimensions of inputs must match, but got 3 and 4.", |e| e.dot(v, w));
    fails(e, "Error in outerProduct: inputs must be rank 1, but got ranks 2 and 1.", |e| e.outer_product(ta, v));
}

fn confusion_matrix_counts(e: &mut Engine) {
    let l = i32s(e, &[0, 1, 2, 1, 0, 5], &[6]);
    let p = f32s(e, &[0., 2., 2., 1., 1., 0.], &[6]);
    let y = e.confusion_matrix(l, p, Some(3.0), "3").unwrap();
    // Out-of-range classes count nowhere (a zero one-hot row).
    assert_eq!(values(e, y, &[3, 3], DType::Int32), vec![1., 1., 0., 0., 1., 1., 0., 0., 1.]);
    fails(e, "If provided, numClasses must be a positive integer, but got 2.5", |e| {
        e.confusion_matrix(l, p, Some(2.5), "2.5")
    });
    let short = i32s(e, &[0], &[1]);
    fails(e, "Mismatch in the number of examples: 6 vs. 1.", |e| e.confusion_matrix(l, short, Some(2.0), "2"));
    let m = i32s(e, &[0, 1], &[1, 2]);
    fails(e, "Expected the rank of labels to be 1, but got 2", |e| e.confusion_matrix(m, m, None, "undefined"));
    fails(e, "numClasses is required to be a positive integer, but got null", |e| {
        e.confusion_matrix(l, p, None, "null")
    });
}

fn gram_schmidt_orthonormalises(e: &mut Engine) {
    let (rows, cols) = (3, 5);
    let v = f32_values(&random_values(rows * cols, 43, -1.0, 1.0));
    let x = of(e, DType::Float32, &v, &[rows, cols]);
    let y = e.gram_schmidt(x).unwrap();
    let got = values(e, y, &[rows, cols], DType::Float32);
    // Classical Gram-Schmidt in f64.
    let mut want: Vec<Vec<f64>> = Vec::new();
    for r in 0..rows {
        let mut u: Vec<f64> = v[r * cols..(r + 1) * cols].to_vec();
        for q in &want {
            let d: f64 = q.iter().zip(&u).map(|(a, b)| a * b).sum();
            u.iter_mut().zip(q).for_each(|(x, q)| *x -= d * q);
        }
        let n = u.iter().map(|x| x * x).sum::<f64>().sqrt();
        want.push(u.iter().map(|x| x / n).collect());
    }
    assert_close(&got, &want.concat(), 1e-4);
    let list: Vec<_> = (0..rows).map(|r| of(e, DType::Float32, &v[r * cols..(r + 1) * cols], &[cols])).collect();
    let ys = e.gram_schmidt_list(&list).unwrap();
    for (r, &y) in ys.iter().enumerate() {
        assert_close(&values(e, y, &[cols], DType::Float32), &want[r], 1e-4);
    }
    let xt = e.transpose(x, None).unwrap();
    fails(e, "Gram-Schmidt: Number of vectors (5) exceeds number of dimensions (3).", |e| e.gram_schmidt(xt));
    fails(e, "Gram-Schmidt process: input must not be null, undefined, or empty", |e| e.gram_schmidt_list(&[]));
    let short = f32s(e, &[1., 2.], &[2]);
    fails(e, "Gram-Schmidt: Non-unique lengths found in the input vectors: (2 vs. 5)", |e| {
        e.gram_schmidt_list(&[list[0], short])
    });
    let s = f32s(e, &[1.], &[]);
    fails(e, "Gram-Schmidt: Number of vectors (1) exceeds number of dimensions (undefined).", |e| {
        e.gram_schmidt_list(&[s])
    });
    let i = i32s(e, &[1, 0, 0, 1], &[2, 2]);
    fails(e, "Argument 'x' passed to 'sqrt' must be float32 tensor, but got int32 tensor", |e| e.gram_schmidt(i));
}

/// Checks `q`, `r` of `x` (`[batch, m, n]` values): q r = x, q's columns orthonormal, r upper
/// triangular with the diagonal's sign opposite to the reflected column's leading value.
#[allow(clippy::too_many_arguments)]
fn check_qr(x: &[f64], q: &[f64], r: &[f64], batch: usize, m: usize, n: usize, k: usize, what: &str) {
    for b in 0..batch {
        let (x, q, r) = (&x[b * m * n..][..m * n], &q[b * m * k..][..m * k], &r[b * k * n..][..k * n]);
        let qr = mm(q, r, m, k, n);
        for (g, w) in qr.iter().zip(x) {
            assert!((g - w).abs() < 1e-4, "{what}: q r = {qr:?}, x = {x:?}");
        }
        for i in 0..k {
            for j in 0..k {
                let d: f64 = (0..m).map(|p| q[p * k + i] * q[p * k + j]).sum();
                assert!((d - (i == j) as u8 as f64).abs() < 1e-4, "{what}: qᵀq[{i}][{j}] = {d}");
            }
            for j in 0..i.min(n) {
                assert!(r[i * n + j].abs() < 1e-4, "{what}: r[{i}][{j}] = {}", r[i * n + j]);
            }
        }
    }
}

fn qr_decomposes(e: &mut Engine) {
    for (shape, full) in [
        (vec![3, 3], false),
        (vec![4, 2], false),
        (vec![4, 2], true),
        (vec![2, 4], false),
        (vec![2, 4], true),
        (vec![3, 4, 2], false),
        (vec![2, 1, 2, 3], true),
        (vec![0, 3, 3], false),
    ] {
        let rank = shape.len();
        let (m, n) = (shape[rank - 2], shape[rank - 1]);
        let batch: usize = shape[..rank - 2].iter().product();
        let k = if full || m <= n { m } else { n };
        let v = f32_values(&random_values(shape.iter().product(), 44, -1.0, 1.0));
        let x = of(e, DType::Float32, &v, &shape);
        let out = e.qr(x, full).unwrap();
        let lead = &shape[..rank - 2];
        let q = values(e, out[0], &[lead, &[m, k]].concat(), DType::Float32);
        let r = values(e, out[1], &[lead, &[k, n]].concat(), DType::Float32);
        check_qr(&v, &q, &r, batch, m, n, k, &format!("{shape:?} full {full}"));
        if batch > 0 {
            // tfjs's sign: r's first value is minus the first column's norm times its sign.
            let norm = (0..m).map(|i| v[i * n] * v[i * n]).sum::<f64>().sqrt();
            assert!((r[0] + v[0].signum() * norm).abs() < 1e-4, "{shape:?}: r[0] = {}, norm {norm}", r[0]);
        }
    }
    // An int32 matrix fails in the norm, as tfjs's; an empty one keeps its dtype.
    let i = i32s(e, &[1, 2, 3, 4], &[2, 2]);
    fails(e, "Argument 'x' passed to 'sqrt' must be float32 tensor, but got int32 tensor", |e| e.qr(i, false));
    let empty = i32s(e, &[], &[2, 0]);
    let out = e.qr(empty, false).unwrap();
    assert_eq!(values(e, out[1], &[0, 0], DType::Int32), Vec::<f64>::new());
    let v = f32s(e, &[1., 2.], &[2]);
    fails(e, "qr() requires input tensor to have a rank >= 2, but got rank 1", |e| e.qr(v, false));
}

fn basic_lstm_cell_follows_its_formula(e: &mut Engine) {
    let (batch, input, units) = (2, 3, 2);
    let kv = f32_values(&random_values((input + units) * 4 * units, 45, -0.5, 0.5));
    let bv = f32_values(&random_values(4 * units, 46, -0.5, 0.5));
    let dv = f32_values(&random_values(batch * input, 47, -1.0, 1.0));
    let cv = f32_values(&random_values(batch * units, 48, -1.0, 1.0));
    let hv = f32_values(&random_values(batch * units, 49, -1.0, 1.0));
    let fb = f32s(e, &[1.0], &[]);
    let kt = of(e, DType::Float32, &kv, &[input + units, 4 * units]);
    let bt = of(e, DType::Float32, &bv, &[4 * units]);
    let dt = of(e, DType::Float32, &dv, &[batch, input]);
    let ct = of(e, DType::Float32, &cv, &[batch, units]);
    let ht = of(e, DType::Float32, &hv, &[batch, units]);
    let out = e.basic_lstm_cell(fb, kt, bt, dt, ct, ht).unwrap();
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    let (mut want_c, mut want_h) = (Vec::new(), Vec::new());
    for b in 0..batch {
        let combined: Vec<f64> =
            dv[b * input..(b + 1) * input].iter().chain(&hv[b * units..(b + 1) * units]).copied().collect();
        let res: Vec<f64> =
            mm(&combined, &kv, 1, input + units, 4 * units).iter().zip(&bv).map(|(x, b)| x + b).collect();
        for u in 0..units {
            let (i, j, f, o) = (res[u], res[units + u], res[2 * units + u], res[3 * units + u]);
            let c = sig(i) * j.tanh() + cv[b * units + u] * sig(1.0 + f);
            want_c.push(c);
            want_h.push(c.tanh() * sig(o));
        }
    }
    assert_close(&values(e, out[0], &[batch, units], DType::Float32), &want_c, 1e-5);
    assert_close(&values(e, out[1], &[batch, units], DType::Float32), &want_h, 1e-5);
    let k6 = e.fill(&[input + units, 6], 0.1, DType::Float32).unwrap();
    let b6 = e.fill(&[6], 0.0, DType::Float32).unwrap();
    fails(e, "Tensor must have a shape comprised of positive integers but got shape [2,1.5]", |e| {
        e.basic_lstm_cell(fb, k6, b6, dt, ct, ht)
    });
}

backend_tests!(
    matmul_matches_the_triple_loop,
    matmul_broadcasts_batches,
    matmul_of_empty_dimensions,
    matmul_dtypes,
    matmul_errors,
    dot_and_outer_product,
    confusion_matrix_counts,
    gram_schmidt_orthonormalises,
    qr_decomposes,
    basic_lstm_cell_follows_its_formula,
);
