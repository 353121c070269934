//! complex64 tensors and the spectral ops. A complex tensor's buffer is a float32 tensor of
//! (real, imaginary) pairs, shape `[...shape, 2]`, on any backend; the ops here view it as
//! those pairs (sharing the buffer, no copy) and compute with the float32 kernels, so every
//! backend runs them. Kernels never see a complex input.

use crate::kernels as k;
use crate::{bail, shape, BinaryOp, DType, Engine, HostData, Input, Result, TensorId};

impl Engine {
    /// The float32 `[...shape, 2]` pairs of a complex input, sharing its buffer (made inside a
    /// kernel, so the kernel frees it when done).
    fn pairs(&mut self, x: &Input) -> TensorId {
        let mut s = x.shape.to_vec();
        s.push(2);
        self.share(x.data.clone(), s, DType::Float32)
    }

    /// The complex tensor whose pairs are the float32 `[...shape, 2]` tensor `p` (shares it).
    fn from_pairs(&mut self, p: TensorId) -> Result<TensorId> {
        let t = self.info(p)?;
        let (data, mut s) = (t.data.clone(), t.shape.clone());
        s.pop();
        Ok(self.share(data, s, DType::Complex64))
    }

    /// One part (0 real, 1 imaginary) of a complex input as float32 `[...shape]`.
    fn part(&mut self, x: &Input, which: i64) -> Result<TensorId> {
        let p = self.pairs(x);
        let rank = x.shape.len();
        let mut begin = vec![0; rank + 1];
        begin[rank] = which;
        let mut size: Vec<i64> = x.shape.iter().map(|&d| d as i64).collect();
        size.push(1);
        let s = self.slice(p, &begin, &size)?;
        self.reshape(s, &size[..rank])
    }

    /// `tf.complex(real, imag)`: two float32 tensors of one shape.
    pub fn complex(&mut self, real: TensorId, imag: TensorId) -> Result<TensorId> {
        let (rs, is) = (self.shape(real)?.to_vec(), self.shape(imag)?.to_vec());
        if rs != is {
            bail!(
                "real and imag shapes, {} and {}, must match in call to tf.complex(). Shapes {} and {} must match",
                shape::fmt(&rs),
                shape::fmt(&is),
                shape::fmt(&rs),
                shape::fmt(&is)
            );
        }
        // Other numeric dtypes are read as floats, as tfjs's kernel reads their values.
        self.run_kernel(k::COMPLEX, &[real, imag], |e, _, _| {
            let (re, im) = (e.cast(real, DType::Float32)?, e.cast(imag, DType::Float32)?);
            let p = e.stack(&[re, im], -1)?;
            e.from_pairs(p)
        })
    }

    /// `tf.real` / `tf.imag`: a part of a complex tensor as float32 (of a real tensor: the
    /// tensor itself / zeros).
    pub fn complex_part(&mut self, x: TensorId, imag: bool) -> Result<TensorId> {
        let kernel = if imag { k::IMAG } else { k::REAL };
        self.run_kernel_any(kernel, &[x], |e, _, ins| match ins[0].dtype {
            DType::Complex64 => e.part(&ins[0], imag as i64),
            DType::String => bail!("{kernel} does not support string tensors"),
            _ if imag => e.filled(&ins[0].shape, 0.0, DType::Float32),
            _ => e.cast(x, DType::Float32),
        })
    }

    /// `tf.abs` of a complex tensor: the magnitudes, float32, computed as hypot does it
    /// (`big * sqrt(1 + (small / big)²)`), so tiny and huge parts neither underflow nor
    /// overflow when squared.
    pub fn complex_abs(&mut self, x: TensorId) -> Result<TensorId> {
        use crate::UnaryOp::{Abs, Sqrt, Square};
        self.run_kernel_any(k::COMPLEX_ABS, &[x], |e, _, ins| {
            let (re, im) = (e.part(&ins[0], 0)?, e.part(&ins[0], 1)?);
            let (re, im) = (e.unary(Abs, re)?, e.unary(Abs, im)?);
            let (big, small) = (e.binary(BinaryOp::Maximum, re, im)?, e.binary(BinaryOp::Minimum, re, im)?);
            let ratio = e.binary(BinaryOp::DivNoNan, small, big)?;
            let one = e.fill_like(ratio, 1.0)?;
            let r2 = e.unary(Square, ratio)?;
            let sum = e.binary(BinaryOp::Add, one, r2)?;
            let root = e.unary(Sqrt, sum)?;
            e.binary(BinaryOp::Mul, big, root)
        })
    }

    /// `x` as complex64 (a real tensor gets imaginary parts 0).
    pub(crate) fn to_complex(&mut self, x: TensorId) -> Result<TensorId> {
        match self.dtype(x)? {
            DType::Complex64 => self.clone_tensor(x),
            DType::String => bail!("Cannot cast a string tensor to complex64"),
            _ => {
                let re = self.cast(x, DType::Float32)?;
                let im = self.fill_like(re, 0.0)?;
                self.complex(re, im)
            }
        }
    }

    /// `tf.add`, `tf.sub` and `tf.mul` where an input is complex (the other is made complex);
    /// other ops refuse complex tensors, as tfjs's backends do.
    pub(crate) fn complex_binary(&mut self, op: BinaryOp, a: TensorId, b: TensorId) -> Result<TensorId> {
        if !matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) {
            let backend = self.backend()?.name().to_uppercase();
            bail!("{} does not support complex64 tensors in the {backend} backend.", op.kernel_name());
        }
        self.run_kernel_any(op.kernel_name(), &[a, b], |e, _, _| {
            let (ca, cb) = (e.to_complex(a)?, e.to_complex(b)?);
            let (ia, ib) = (e.input(ca)?, e.input(cb)?);
            if op != BinaryOp::Mul {
                let (pa, pb) = (e.pairs(&ia), e.pairs(&ib));
                let p = e.binary(op, pa, pb)?;
                return e.from_pairs(p);
            }
            // (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br)
            let (ar, ai, br, bi) = (e.part(&ia, 0)?, e.part(&ia, 1)?, e.part(&ib, 0)?, e.part(&ib, 1)?);
            let (rr, ii) = (e.binary(BinaryOp::Mul, ar, br)?, e.binary(BinaryOp::Mul, ai, bi)?);
            let (ri, ir) = (e.binary(BinaryOp::Mul, ar, bi)?, e.binary(BinaryOp::Mul, ai, br)?);
            let (re, im) = (e.binary(BinaryOp::Sub, rr, ii)?, e.binary(BinaryOp::Add, ri, ir)?);
            e.complex(re, im)
        })
    }

    /// `tf.cast` from or to complex64: a complex tensor casts its real part.
    pub(crate) fn complex_cast(&mut self, x: TensorId, dtype: DType) -> Result<TensorId> {
        self.run_kernel_any(k::CAST, &[x], |e, _, ins| {
            if dtype == DType::Complex64 {
                return e.to_complex(x);
            }
            let re = e.part(&ins[0], 0)?;
            e.cast(re, dtype)
        })
    }

    /// `tf.transpose` of a complex tensor: its pairs, the pair axis staying last.
    pub(crate) fn complex_transpose(&mut self, x: TensorId, perm: &[usize]) -> Result<TensorId> {
        self.run_kernel_any(k::TRANSPOSE, &[x], |e, _, ins| {
            let p = e.pairs(&ins[0]);
            let mut full: Vec<i64> = perm.iter().map(|&a| a as i64).collect();
            full.push(perm.len() as i64);
            let t = e.transpose(p, Some(&full))?;
            e.from_pairs(t)
        })
    }

    /// `tf.concat` with a complex input: every input made complex, their pairs joined.
    pub(crate) fn complex_concat(&mut self, xs: &[TensorId], axis: usize) -> Result<TensorId> {
        self.run_kernel_any(k::CONCAT, xs, |e, _, _| {
            let mut pairs = Vec::with_capacity(xs.len());
            for &x in xs {
                let c = e.to_complex(x)?;
                let input = e.input(c)?;
                pairs.push(e.pairs(&input));
            }
            let p = e.concat(&pairs, axis as i64)?;
            e.from_pairs(p)
        })
    }

    /// `tf.spectral.fft` / `ifft` over the innermost dimension of a complex tensor. Each row of
    /// pairs is multiplied by the `[2n, 2n]` real matrix of the discrete Fourier transform
    /// (twiddles computed in f64), so the transform runs on the backend's GEMM: O(n²) per row,
    /// the cost tfjs's own kernel has for sizes that are not powers of two.
    pub fn fft(&mut self, x: TensorId, inverse: bool) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        if dtype != DType::Complex64 {
            let name = if inverse { "ifft" } else { "fft" };
            bail!("The dtype for tf.spectral.{name}() must be complex64 but got {}.", dtype.name());
        }
        let s = self.shape(x)?.to_vec();
        let Some(&n) = s.last() else { bail!("The input of tf.spectral.fft() must have rank 1 or more") };
        let kernel = if inverse { k::IFFT } else { k::FFT };
        if shape::size(&s) == 0 {
            // Nothing to transform: no DFT matrix either (an stft of no frames has a long n).
            return self.run_kernel_any(kernel, &[x], |e, _, _| e.filled(&s, 0.0, DType::Complex64));
        }
        // The DFT matrix has (2n)² values: refuse before building it when it cannot fit.
        self.check_size(&[2 * n, 2 * n], DType::Float32)?;
        self.run_kernel_any(kernel, &[x], |e, _, ins| {
            let rows = shape::size(&s) / n.max(1);
            let p = e.pairs(&ins[0]);
            let flat = e.reshape(p, &[rows as i64, 2 * n as i64])?;
            let w = e.tensor(HostData::F32(dft_matrix(n, inverse)), &[2 * n, 2 * n])?;
            let y = e.matmul(flat, w, false, false)?;
            let mut ps: Vec<i64> = s.iter().map(|&d| d as i64).collect();
            ps.push(2);
            let y = e.reshape(y, &ps)?;
            e.from_pairs(y)
        })
    }
}

/// The real `[2n, 2n]` matrix that maps a row of (re, im) pairs to its discrete Fourier
/// transform (`inverse`: the inverse transform, scaled by 1/n).
fn dft_matrix(n: usize, inverse: bool) -> Vec<f32> {
    let (sign, scale) = if inverse { (-1.0, 1.0 / n as f64) } else { (1.0, 1.0) };
    let mut w = vec![0f32; 4 * n * n];
    let cols = 2 * n;
    for j in 0..n {
        for k in 0..n {
            // The angle from (j k mod n), exact in integers, so large indices lose nothing;
            // multiples of a quarter turn are exact (sin(pi) is 0, not 1.2e-16).
            let r = (j * k) % n;
            let (sin, cos) = match (4 * r).is_multiple_of(n).then_some(4 * r / n) {
                Some(0) => (0.0, 1.0),
                Some(1) => (1.0, 0.0),
                Some(2) => (0.0, -1.0),
                Some(3) => (-1.0, 0.0),
                _ => (2.0 * std::f64::consts::PI * r as f64 / n as f64).sin_cos(),
            };
            let (c, s) = ((cos * scale) as f32, (sign * sin * scale) as f32);
            w[2 * j * cols + 2 * k] = c; // re -> re
            w[(2 * j + 1) * cols + 2 * k] = s; // im -> re
            w[2 * j * cols + 2 * k + 1] = -s; // re -> im
            w[(2 * j + 1) * cols + 2 * k + 1] = c; // im -> im
        }
    }
    w
}

impl Engine {
    /// `tf.spectral.rfft`: the fft of a real signal along the innermost axis (cut or zero
    /// padded to `fft_length`, a non-negative integer), its first `n / 2 + 1` frequencies.
    pub fn rfft(&mut self, x: TensorId, fft_length: Option<f64>) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        if dtype != DType::Float32 {
            bail!("The dtype for rfft() must be real value but got {}", dtype.name());
        }
        let s = self.shape(x)?.to_vec();
        let rank = s.len();
        if rank == 0 {
            bail!("rfft() needs a tensor of rank 1 or more");
        }
        // (tfjs slices or pads by any value, into errors or empty tensors.)
        if let Some(l) = fft_length.filter(|&l| !(l >= 0.0 && l.fract() == 0.0 && l < 9007199254740992.0)) {
            bail!("rfft: fftLength must be a non-negative integer, but got {}", crate::js::number(l));
        }
        self.composed(|e| {
            let mut n = s[rank - 1];
            let mut x = x;
            if let Some(len) = fft_length.map(|l| l as usize) {
                if len < n {
                    x = e.slice_axis(x, rank - 1, 0, len)?;
                } else if len > n {
                    x = e.pad_with(x, &vec![0; rank], &[vec![0; rank - 1], vec![len - n]].concat(), 0.0)?;
                }
                n = len;
            }
            let batch = shape::size(e.shape(x)?).checked_div(n).unwrap_or(0);
            let zeros = e.fill_like(x, 0.0)?;
            let c = e.complex(x, zeros)?;
            let c = e.reshape(c, &[batch as i64, n as i64])?;
            let spectrum = e.fft(c, false)?;
            let half = n / 2 + 1;
            let (re, im) = (e.complex_part(spectrum, false)?, e.complex_part(spectrum, true)?);
            let (re, im) = (e.slice_axis(re, 1, 0, half)?, e.slice_axis(im, 1, 0, half)?);
            let mut out: Vec<i64> = e.shape(x)?.iter().map(|&d| d as i64).collect();
            out[rank - 1] = half as i64;
            let y = e.complex(re, im)?;
            e.reshape(y, &out)
        })
    }

    /// `tf.spectral.irfft`: the real signal of a half spectrum (its innermost axis), the
    /// conjugate half restored, as tfjs composes it.
    pub fn irfft(&mut self, x: TensorId) -> Result<TensorId> {
        let s = self.shape(x)?.to_vec();
        let Some(&n) = s.last() else { bail!("irfft() needs a tensor of rank 1 or more") };
        let batch = shape::size(&s).checked_div(n).unwrap_or(0);
        self.composed(|e| {
            let out = if n <= 2 {
                let c = e.reshape(x, &[batch as i64, n as i64])?;
                e.fft(c, true)?
            } else {
                let re = e.complex_part(x, false)?;
                let re = e.reshape(re, &[batch as i64, n as i64])?;
                let im = e.complex_part(x, true)?;
                let im = e.reshape(im, &[batch as i64, n as i64])?;
                let re_mid = e.slice_axis(re, 1, 1, n - 2)?;
                let re_conj = e.reverse(re_mid, Some(&[1]))?;
                let im_mid = e.slice_axis(im, 1, 1, n - 2)?;
                let im_rev = e.reverse(im_mid, Some(&[1]))?;
                let im_conj = e.neg(im_rev)?;
                let re_all = e.concat(&[re, re_conj], 1)?;
                let im_all = e.concat(&[im, im_conj], 1)?;
                let c = e.complex(re_all, im_all)?;
                e.fft(c, true)?
            };
            let out = e.complex_part(out, false)?;
            if s.len() == 3 && s[0] != 0 {
                let m = e.shape(out)?[1];
                e.reshape(out, &[s[0] as i64, s[1] as i64, m as i64])
            } else {
                Ok(out)
            }
        })
    }
}
