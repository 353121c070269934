'use strict';
// complex64 tensors and tf.spectral: complex, real, imag and the FFT kernels are native (a
// complex tensor is a float32 buffer of (real, imaginary) pairs there); rfft and irfft are
// composed of them as tfjs composes them, so shapes and edge cases are tfjs's.
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { withOne, withTwo } = require('./args');
const { tidy } = require('../engine');
const layout = require('./layout');
const creation = require('./creation');
const { neg } = require('./elementwise');

const complex = (real, imag) => withTwo('complex', real, 'real', 'numeric', imag, 'imag', 'numeric',
  (re, im) => wrap(native.complex(re.id, im.id)));

const real = (input) => withOne(input, 'input', 'real', 'numeric', (t) => wrap(native.complexPart(t.id, false)));
const imag = (input) => withOne(input, 'input', 'imag', 'numeric', (t) => wrap(native.complexPart(t.id, true)));

// tfjs's fft and ifft take a complex64 Tensor only.
function transform(input, inverse) {
  const dtype = input instanceof Tensor ? input.dtype : input != null ? input.dtype : input;
  if (dtype !== 'complex64') {
    throw new Error(`The dtype for tf.spectral.${inverse ? 'ifft' : 'fft'}() must be complex64 but got ${dtype}.`);
  }
  return wrap(native.fft(input.id, inverse));
}

const fft = (input) => transform(input, false);
const ifft = (input) => transform(input, true);

// The FFT of real input over its innermost dimension (cropped or zero-padded to fftLength):
// the fftLength / 2 + 1 values that are not complex conjugates of others.
function rfft(input, fftLength) {
  if (!(input instanceof Tensor) || input.dtype !== 'float32') {
    throw new Error(`The dtype for rfft() must be real value but got ${input == null ? input : input.dtype}`);
  }
  const { slice, concat, reshape, split } = layout;
  return tidy(() => {
    const rank = input.shape.length;
    let n = input.shape[rank - 1];
    const batch = input.size / n;
    let x = input;
    if (fftLength != null && fftLength < n) {
      const size = input.shape.slice();
      size[rank - 1] = fftLength;
      x = slice(input, input.shape.map(() => 0), size);
      n = fftLength;
    } else if (fftLength != null && fftLength > n) {
      const zerosShape = input.shape.slice();
      zerosShape[rank - 1] = fftLength - n;
      x = concat([input, creation.zeros(zerosShape)], rank - 1);
      n = fftLength;
    }
    const spectrum = fft(reshape(complex(x, creation.zerosLike(x)), [batch, n]));
    const half = Math.floor(n / 2) + 1;
    const [re] = split(real(spectrum), [half, n - half], 1);
    const [im] = split(imag(spectrum), [half, n - half], 1);
    const outShape = x.shape.slice();
    outShape[rank - 1] = half;
    return reshape(complex(re, im), outShape);
  });
}

// The inverse of rfft: the real signal of length 2 (n - 1) whose spectrum starts with the n
// complex values of the innermost dimension. As in tfjs, rank-3 input keeps its two outer
// dimensions and other ranks give [batch, length].
function irfft(input) {
  const { slice, concat, reshape, reverse } = layout;
  return tidy(() => {
    const n = input.shape[input.shape.length - 1];
    const batch = input.size / n;
    let out;
    if (n <= 2) {
      out = ifft(reshape(input, [batch, n]));
    } else {
      const re = reshape(real(input), [batch, n]);
      const im = reshape(imag(input), [batch, n]);
      const reConj = reverse(slice(re, [0, 1], [batch, n - 2]), 1);
      const imConj = neg(reverse(slice(im, [0, 1], [batch, n - 2]), 1));
      out = ifft(reshape(complex(concat([re, reConj], 1), concat([im, imConj], 1)), [batch, 2 * (n - 1)]));
    }
    out = real(out);
    if (input.rank === 3 && input.shape[0] !== 0) {
      const [b, m] = input.shape;
      out = reshape(out, [b, m, out.shape[1]]);
    }
    return out;
  });
}

const spectral = { fft, ifft, rfft, irfft };

Object.assign(Tensor.prototype, {
  fft() { return fft(this); },
  ifft() { return ifft(this); },
  rfft() { return rfft(this); },
  irfft() { return irfft(this); },
});

module.exports = { complex, real, imag, fft, ifft, rfft, irfft, spectral };
