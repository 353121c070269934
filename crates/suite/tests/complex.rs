//! complex64 tensors on every backend: pairs in one float32 buffer, the complex arithmetic,
//! and fft/ifft against a direct f64 discrete Fourier transform.

use tidytensor_core::{BinaryOp, DType, Engine, HostData, TensorId, UnaryOp};
use tidytensor_suite::{assert_close, backend_tests, f32s, fails, random_values, usage, values};

fn complex_of(e: &mut Engine, re: &[f32], im: &[f32], shape: &[usize]) -> TensorId {
    let (r, i) = (f32s(e, re, shape), f32s(e, im, shape));
    e.complex(r, i).unwrap()
}

/// The (real, imaginary) pairs of a complex tensor.
fn pairs(e: &Engine, id: TensorId) -> Vec<f64> {
    match e.read(id).unwrap() {
        HostData::F32(v) => v.iter().map(|&x| x as f64).collect(),
        other => panic!("complex values read as {:?}", other.dtype()),
    }
}

fn one_buffer_of_pairs(e: &mut Engine) {
    let before = usage(e);
    let c = complex_of(e, &[1., 2.], &[3., 4.], &[2]);
    assert_eq!((e.dtype(c).unwrap(), e.shape(c).unwrap().to_vec()), (DType::Complex64, vec![2]));
    assert_eq!(pairs(e, c), [1., 3., 2., 4.]);
    // The two inputs and the complex tensor: 8 + 8 + 16 bytes, three buffers.
    assert_eq!((e.memory().num_tensors - before.0, e.memory().num_bytes - before.2), (3, 32));
    let re = e.complex_part(c, false).unwrap();
    let im = e.complex_part(c, true).unwrap();
    assert_eq!(
        (values(e, re, &[2], DType::Float32), values(e, im, &[2], DType::Float32)),
        (vec![1., 2.], vec![3., 4.])
    );
    let abs = e.unary(UnaryOp::Abs, c).unwrap();
    assert_close(&values(e, abs, &[2], DType::Float32), &[10f64.sqrt(), 20f64.sqrt()], 1e-6);
    let (a, b) = (f32s(e, &[1.], &[1]), f32s(e, &[1., 2.], &[2]));
    fails(e, "must match in call to tf.complex()", |e| e.complex(a, b));
    fails(e, "does not support complex64 tensors", |e| e.unary(UnaryOp::Neg, c));
    fails(e, "RealDiv does not support complex64 tensors", |e| e.binary(BinaryOp::Div, c, c));
}

fn arithmetic_and_layout(e: &mut Engine) {
    let a = complex_of(e, &[1., 2.], &[3., 4.], &[2]);
    let b = complex_of(e, &[0.5], &[-1.], &[1]);
    let m = e.binary(BinaryOp::Mul, a, b).unwrap();
    // (1+3i)(0.5-i) = 3.5 + 0.5i; (2+4i)(0.5-i) = 5 + 0i
    assert_close(&pairs(e, m), &[3.5, 0.5, 5., 0.], 1e-6);
    let r = f32s(e, &[10., 20.], &[2]);
    let s = e.binary(BinaryOp::Sub, a, r).unwrap();
    assert_eq!(pairs(e, s), [-9., 3., -18., 4.]);
    let c = e.concat(&[a, b], 0).unwrap();
    assert_eq!(pairs(e, c), [1., 3., 2., 4., 0.5, -1.]);
    let m2 = complex_of(e, &[1., 2., 3., 4.], &[5., 6., 7., 8.], &[2, 2]);
    let t = e.transpose(m2, None).unwrap();
    assert_eq!(pairs(e, t), [1., 5., 3., 7., 2., 6., 4., 8.]);
    let f = e.cast(a, DType::Int32).unwrap();
    assert_eq!(values(e, f, &[2], DType::Int32), [1., 2.]);
    let z = e.fill_like(a, 1.0).unwrap();
    assert_eq!(pairs(e, z), [1., 0., 1., 0.]);
}

/// The DFT of rows of pairs, in f64.
fn dft(x: &[f64], n: usize, inverse: bool) -> Vec<f64> {
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut out = vec![0.0; x.len()];
    for (row, o) in x.chunks(2 * n).zip(out.chunks_mut(2 * n)) {
        for k in 0..n {
            let (mut re, mut im) = (0.0, 0.0);
            for j in 0..n {
                let phi = sign * 2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                re += row[2 * j] * phi.cos() - row[2 * j + 1] * phi.sin();
                im += row[2 * j] * phi.sin() + row[2 * j + 1] * phi.cos();
            }
            let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
            o[2 * k] = re * scale;
            o[2 * k + 1] = im * scale;
        }
    }
    out
}

fn fft_matches_the_dft(e: &mut Engine) {
    for (batch, n) in [(1, 1), (3, 5), (2, 8), (1, 64), (4, 100)] {
        let re = random_values(batch * n, n as u64, -2.0, 2.0);
        let im = random_values(batch * n, 7 + n as u64, -2.0, 2.0);
        let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
        let x = complex_of(e, &f(&re), &f(&im), &[batch, n]);
        let want_in: Vec<f64> = re.iter().zip(&im).flat_map(|(&r, &i)| [r as f32 as f64, i as f32 as f64]).collect();
        for inverse in [false, true] {
            let y = e.fft(x, inverse).unwrap();
            assert_eq!(e.shape(y).unwrap(), [batch, n]);
            let tol = 1e-5 * (n as f64).sqrt() * if inverse { 1.0 } else { 4.0 };
            assert_close(&pairs(e, y), &dft(&want_in, n, inverse), tol);
        }
    }
    let real = f32s(e, &[1., 2.], &[2]);
    fails(e, "The dtype for tf.spectral.fft() must be complex64 but got float32.", |e| e.fft(real, false));
}

backend_tests!(one_buffer_of_pairs, arithmetic_and_layout, fft_matches_the_dft);
