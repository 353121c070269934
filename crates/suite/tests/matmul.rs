//! matMul on every backend against a triple loop: transposes, batch broadcasting (a batch of 1
//! and general), empty dimensions, dtypes, tfjs's errors.

use tidytensor_core::{DType, Engine};
use tidytensor_suite::{backend_tests, f32s, fails, i32s, large_len, of, random_values, strides, values};

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

backend_tests!(
    matmul_matches_the_triple_loop,
    matmul_broadcasts_batches,
    matmul_of_empty_dimensions,
    matmul_dtypes,
    matmul_errors,
);
