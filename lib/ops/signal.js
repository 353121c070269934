'use strict';
// tf.signal: the Hann and Hamming windows and frame, as tfjs computes them.
const { tidy } = require('../engine');
const creation = require('./creation');
const layout = require('./layout');
const { mul } = require('./elementwise');
const { rfft } = require('./spectral');

// a - b cos(2 pi i / (n + even - 1)), in float32 (tfjs's cosineWindow).
function cosineWindow(windowLength, a, b) {
  const even = 1 - (windowLength % 2);
  const values = new Float32Array(windowLength);
  for (let i = 0; i < windowLength; ++i) {
    values[i] = a - b * Math.cos((2.0 * Math.PI * i) / (windowLength + even - 1));
  }
  return creation.tensor1d(values, 'float32');
}

const hannWindow = (windowLength) => cosineWindow(windowLength, 0.5, 0.5);
const hammingWindow = (windowLength) => cosineWindow(windowLength, 0.54, 0.46);

// Frames of `frameLength` every `frameStep` along a 1-D signal; with padEnd, the last frames
// are completed with padValue.
function frame(signal, frameLength, frameStep, padEnd = false, padValue = 0) {
  const { slice, concat, reshape } = layout;
  // tfjs loops forever (making a frame each time) when `start += frameStep` does not advance
  // (0, a negative step, null, false, ''); refuse that. A NaN start (undefined) ends its loop.
  const size = signal == null ? undefined : signal.size;
  if (Number(0 + frameStep) <= 0 && (0 + frameLength <= size || (padEnd && 0 < size))) {
    throw new Error(`Error in frame: frameStep must be a positive number, but got ${String(frameStep)}.`);
  }
  return tidy(() => {
    const out = [];
    let start = 0;
    while (start + frameLength <= signal.size) {
      out.push(slice(signal, start, frameLength));
      start += frameStep;
    }
    if (padEnd) {
      while (start < signal.size) {
        const padLen = (start + frameLength) - signal.size;
        out.push(concat([slice(signal, start, frameLength - padLen), creation.fill([padLen], padValue)]));
        start += frameStep;
      }
    }
    if (out.length === 0) return creation.tensor2d([], [0, frameLength]);
    return reshape(concat(out), [out.length, frameLength]);
  });
}

// The short-time Fourier transform: rfft of each windowed frame (fftLength defaults to the
// smallest power of two >= frameLength).
function stft(signal, frameLength, frameStep, fftLength, windowFn = hannWindow) {
  if (fftLength == null) fftLength = Math.floor(Math.pow(2, Math.ceil(Math.log(frameLength) / Math.log(2.0))));
  return tidy(() => {
    const windowed = mul(frame(signal, frameLength, frameStep), windowFn(frameLength));
    return rfft(windowed, fftLength);
  });
}

const signal = { hannWindow, hammingWindow, frame, stft };

module.exports = { signal, cosineWindow };
