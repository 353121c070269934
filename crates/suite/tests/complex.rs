//! complex64 tensors on every backend: pairs in one float32 buffer, the complex arithmetic,
//! fft/ifft against a direct f64 discrete Fourier transform, and tf.signal (windows, frame,
//! stft) against f64 references.

use tidytensor_core::ops::{enclosing_power_of_two, PadValue, StftWindow};
use tidytensor_core::{BinaryOp, DType, Engine, HostData, TensorId, UnaryOp};
use tidytensor_suite::{assert_close, backend_tests, f32s, fails, i32s, of, random_values, usage, values};

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

fn fft_of_nothing_builds_no_matrix(e: &mut Engine) {
    // No rows of a long n: an empty result, not an n² DFT matrix.
    let zeros = f32s(e, &[], &[0, 1 << 28]);
    let c = e.complex(zeros, zeros).unwrap();
    let y = e.fft(c, false).unwrap();
    assert_eq!((e.shape(y).unwrap().to_vec(), e.dtype(y).unwrap()), (vec![0, 1 << 28], DType::Complex64));
}

/// tfjs's cosine window in f64, stored as float32.
fn window_ref(n: usize, a: f64, b: f64) -> Vec<f64> {
    let even = 1.0 - (n % 2) as f64;
    (0..n)
        .map(|i| (a - b * (2.0 * std::f64::consts::PI * i as f64 / (n as f64 + even - 1.0)).cos()) as f32 as f64)
        .collect()
}

fn signal_windows(e: &mut Engine) {
    for n in [0, 1, 2, 5, 8, 33] {
        let h = e.hann_window(n as f64).unwrap();
        assert_close(&values(e, h, &[n], DType::Float32), &window_ref(n, 0.5, 0.5), 1e-7);
        let h = e.hamming_window(n as f64).unwrap();
        assert_close(&values(e, h, &[n], DType::Float32), &window_ref(n, 0.54, 0.46), 1e-7);
    }
    // A fractional length: the array's length truncates, the formula reads it as given.
    let h = e.hann_window(2.5).unwrap();
    assert_close(&values(e, h, &[2], DType::Float32), &[0.0, 1.0], 1e-7);
    fails(e, "Invalid typed array length: -1", |e| e.hann_window(-1.0));
}

/// tfjs's frames of `v`, padded with `pad`.
fn frames_ref(v: &[f64], len: usize, step: usize, pad_end: bool, pad: f64) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start + len <= v.len() || (pad_end && start < v.len()) {
        out.push((start..start + len).map(|i| v.get(i).copied().unwrap_or(pad)).collect());
        start += step;
    }
    out
}

fn signal_frame(e: &mut Engine) {
    let v: Vec<f64> = (1..=7).map(f64::from).collect();
    let x = of(e, DType::Float32, &v, &[7]);
    for (len, step, pad_end) in [
        (3, 1, false),
        (3, 2, false),
        (3, 2, true),
        (4, 3, true),
        (7, 1, false),
        (8, 1, false),
        (2, 9, true),
        (0, 2, false),
    ] {
        let y = e.frame(x, len as f64, step as f64, pad_end, &PadValue::Number(-1.0)).unwrap();
        let want = frames_ref(&v, len, step, pad_end, -1.0);
        assert_eq!(values(e, y, &[want.len(), len], DType::Float32), want.concat(), "frame {len} {step} {pad_end}");
    }
    // int32 pads with the value as an Int32Array stores it; strings pad with a string.
    let xi = i32s(e, &[1, 2, 3], &[3]);
    let y = e.frame(xi, 2.0, 2.0, true, &PadValue::Number(7.5)).unwrap();
    assert_eq!(values(e, y, &[2, 2], DType::Int32), vec![1., 2., 3., 7.]);
    let xs = e.strings(vec![b"a".to_vec(), b"b".to_vec()], &[2]).unwrap();
    let y = e.frame(xs, 2.0, 1.0, true, &PadValue::String(b"z".to_vec())).unwrap();
    assert_eq!(e.read_strings(y).unwrap(), [b"a".to_vec(), b"b".to_vec(), b"b".to_vec(), b"z".to_vec()]);
    // No frame: float32 [0, len], whatever the dtype (and a step of 0 is fine then).
    let y = e.frame(xi, 5.0, 0.0, false, &PadValue::Number(0.0)).unwrap();
    assert_eq!(values(e, y, &[0, 5], DType::Float32), Vec::<f64>::new());
    fails(e, "Error in frame: frameStep must be a positive number, but got 0.", |e| {
        e.frame(x, 3.0, 0.0, false, &PadValue::Number(0.0))
    });
    fails(e, "Error in frame: frameStep must be an integer, but got 1.5.", |e| {
        e.frame(x, 3.0, 1.5, false, &PadValue::Number(0.0))
    });
    fails(e, "Error in frame: frameLength must be a non-negative integer, but got -1.", |e| {
        e.frame(x, -1.0, 1.0, false, &PadValue::Number(0.0))
    });
    let m = f32s(e, &[1., 2., 3., 4.], &[2, 2]);
    fails(e, "Error in frame: signal must be a 1-D tensor, but got shape [2,2].", |e| {
        e.frame(m, 2.0, 2.0, false, &PadValue::Number(0.0))
    });
}

fn signal_stft_is_rfft_of_windowed_frames(e: &mut Engine) {
    let v: Vec<f64> = random_values(20, 61, -1.0, 1.0).iter().map(|&x| x as f32 as f64).collect();
    let x = of(e, DType::Float32, &v, &[20]);
    for (len, step, fft, window) in [
        (5usize, 3, None, StftWindow::Hann),
        (4, 4, Some(6.0), StftWindow::Hamming),
        (8, 5, Some(4.0), StftWindow::Hann),
    ] {
        let y = e.stft(x, len as f64, step as f64, fft, window).unwrap();
        let n = fft.map_or(len.next_power_of_two(), |f| f as usize);
        let w = match window {
            StftWindow::Hamming => window_ref(len, 0.54, 0.46),
            _ => window_ref(len, 0.5, 0.5),
        };
        let frames = frames_ref(&v, len, step, false, 0.0);
        let mut want = Vec::new();
        for f in &frames {
            // The windowed frame (float32), cut or padded to n, as (re, 0) pairs.
            let row: Vec<f64> =
                (0..n).flat_map(|i| [if i < len { (f[i] as f32 * w[i] as f32) as f64 } else { 0.0 }, 0.0]).collect();
            want.extend_from_slice(&dft(&row, n, false)[..2 * (n / 2 + 1)]);
        }
        assert_eq!(e.shape(y).unwrap(), [frames.len(), n / 2 + 1]);
        assert_close(&pairs(e, y), &want, 1e-5);
    }
    // A window tensor multiplies as given.
    let ones = e.fill(&[4], 2.0, DType::Float32).unwrap();
    let y = e.stft(x, 4.0, 8.0, None, StftWindow::Tensor(ones)).unwrap();
    let mut want = Vec::new();
    for f in frames_ref(&v, 4, 8, false, 0.0) {
        let row: Vec<f64> = f.iter().flat_map(|&x| [2.0 * x, 0.0]).collect();
        want.extend_from_slice(&dft(&row, 4, false)[..6]);
    }
    assert_close(&pairs(e, y), &want, 1e-5);
    // tfjs's enclosingPowerOfTwo, f64 rounding and all.
    assert_eq!(enclosing_power_of_two(5.0), 8.0);
    assert_eq!(enclosing_power_of_two(8.0), 8.0);
    assert_eq!(enclosing_power_of_two((1u64 << 29) as f64), (1u64 << 30) as f64);
    // No frame of a long window: empty, with no window or DFT matrix made.
    let y = e.stft(x, (1u64 << 29) as f64, 1.0, None, StftWindow::Hann).unwrap();
    assert_eq!(e.shape(y).unwrap(), [0, (1 << 29) + 1]);
    let three = e.fill(&[3], 1.0, DType::Float32).unwrap();
    fails(e, "Operands could not be broadcast together with shapes 4,4 and 3.", |e| {
        e.stft(x, 4.0, 5.0, None, StftWindow::Tensor(three))
    });
}

backend_tests!(
    one_buffer_of_pairs,
    arithmetic_and_layout,
    fft_matches_the_dft,
    fft_of_nothing_builds_no_matrix,
    signal_windows,
    signal_frame,
    signal_stft_is_rfft_of_windowed_frames,
);
