'use strict';
// tfjs's complex_util (in tf.backend_util): complex values stored interleaved
// [re0, im0, re1, im1, ...], and the FFT's twiddle factors.

function mergeRealAndImagArrays(real, imag) {
  if (real.length !== imag.length) {
    throw new Error(`Cannot merge real and imag arrays of different lengths. real:${real.length}, imag: ${imag.length}.`);
  }
  const out = new Float32Array(real.length * 2);
  for (let i = 0; i < real.length; i++) {
    out[2 * i] = real[i];
    out[2 * i + 1] = imag[i];
  }
  return out;
}

function splitRealAndImagArrays(complex) {
  const n = complex.length / 2;
  const real = new Float32Array(n);
  const imag = new Float32Array(n);
  for (let i = 0; 2 * i < complex.length; i++) {
    real[i] = complex[2 * i];
    imag[i] = complex[2 * i + 1];
  }
  return { real, imag };
}

// The complex numbers at even (or odd) positions, as the FFT's halves use them.
function complexAtParity(complex, odd) {
  const n = odd ? Math.floor(complex.length / 4) : Math.ceil(complex.length / 4);
  const real = new Float32Array(n);
  const imag = new Float32Array(n);
  for (let i = odd ? 2 : 0; i < complex.length; i += 4) {
    real[Math.floor(i / 4)] = complex[i];
    imag[Math.floor(i / 4)] = complex[i + 1];
  }
  return { real, imag };
}
const complexWithEvenIndex = (complex) => complexAtParity(complex, false);
const complexWithOddIndex = (complex) => complexAtParity(complex, true);

const getComplexWithIndex = (complex, index) => ({ real: complex[index * 2], imag: complex[index * 2 + 1] });

function assignToTypedArray(data, real, imag, index) {
  data[index * 2] = real;
  data[index * 2 + 1] = imag;
}

// The twiddle factors e^(∓2πik/n) for k < n/2 (the sign flips for the inverse transform).
function exponents(n, inverse) {
  const real = new Float32Array(n / 2);
  const imag = new Float32Array(n / 2);
  for (let i = 0; i < Math.ceil(n / 2); i++) {
    const x = (inverse ? 2 : -2) * Math.PI * (i / n);
    real[i] = Math.cos(x);
    imag[i] = Math.sin(x);
  }
  return { real, imag };
}

function exponent(k, n, inverse) {
  const x = (inverse ? 2 : -2) * Math.PI * (k / n);
  return { real: Math.cos(x), imag: Math.sin(x) };
}

module.exports = {
  assignToTypedArray, complexWithEvenIndex, complexWithOddIndex, exponent, exponents,
  getComplexWithIndex, mergeRealAndImagArrays, splitRealAndImagArrays,
};
