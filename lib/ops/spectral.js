'use strict';
// complex64 tensors and tf.spectral: complex, real, imag, the FFT kernels, rfft and irfft are
// native (a complex tensor is a float32 buffer of (real, imaginary) pairs there; rfft and irfft
// are composed in crates/core/src/ops/complex.rs as tfjs composes them).
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { withOne, withTwo } = require('./args');

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
  // (A length that is not a number is refused by the core, as NaN.)
  const length = fftLength == null ? null : typeof fftLength === 'number' ? fftLength : NaN;
  return wrap(native.rfft(input.id, length));
}

// The inverse of rfft: the real signal of length 2 (n - 1) whose spectrum starts with the n
// complex values of the innermost dimension. As in tfjs, rank-3 input keeps its two outer
// dimensions and other ranks give [batch, length].
function irfft(input) {
  // (tfjs reads input.shape.length of whatever it is given.)
  if (!(input instanceof Tensor)) throw new TypeError("Cannot read properties of undefined (reading 'length')");
  return wrap(native.irfft(input.id));
}

const spectral = { fft, ifft, rfft, irfft };

Object.assign(Tensor.prototype, {
  fft() { return fft(this); },
  ifft() { return ifft(this); },
  rfft() { return rfft(this); },
  irfft() { return irfft(this); },
});

module.exports = { complex, real, imag, fft, ifft, rfft, irfft, spectral };
