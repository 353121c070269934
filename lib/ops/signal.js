'use strict';
// tf.signal: the Hann and Hamming windows, frame and stft, as tfjs computes them
// (crates/core/src/ops/signal.rs).
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { convertToTensor } = require('../convert');
const { tidy } = require('../engine');
const { withOne, num } = require('./args');

// a - b cos(2 pi i / (n + even - 1)), in float32 (tfjs's cosineWindow). tfjs reads a and b
// in its loop over the values only.
function cosineWindow(windowLength, a, b) {
  const n = num(windowLength);
  const some = n >= 1;
  return wrap(native.cosineWindow(n, some ? num(a) : 0, some ? num(b) : 0));
}

const hannWindow = (windowLength) => cosineWindow(windowLength, 0.5, 0.5);
const hammingWindow = (windowLength) => cosineWindow(windowLength, 0.54, 0.46);

// A padValue: a string pads a string signal; anything else is read as a number.
const padArg = (v) => (typeof v === 'string' ? v : num(v));

// Frames of `frameLength` every `frameStep` along a 1-D signal; with padEnd, the last frames
// are completed with padValue.
function frame(signal, frameLength, frameStep, padEnd = false, padValue = 0) {
  return withOne(signal, 'signal', 'frame', 'string_or_numeric', (t) =>
    wrap(native.frame(t.id, num(frameLength), num(frameStep), !!padEnd, padArg(padValue))));
}

// The short-time Fourier transform: rfft of each windowed frame (fftLength defaults to the
// smallest power of two >= frameLength). tf.signal's windows are made natively; another
// windowFn is JavaScript, called here, its window (disposed after, as in tfjs's op scope)
// handed to the one native call.
function stft(signal, frameLength, frameStep, fftLength, windowFn = hannWindow) {
  const length = fftLength == null ? null : typeof fftLength === 'number' ? fftLength : NaN;
  return withOne(signal, 'signal', 'stft', 'numeric', (t) => {
    const [fl, fs] = [num(frameLength), num(frameStep)];
    if (windowFn === hannWindow || windowFn === hammingWindow) {
      return wrap(native.stft(t.id, fl, fs, length, windowFn === hannWindow ? 'hann' : 'hamming'));
    }
    return tidy(() => {
      const w = windowFn(frameLength);
      const window = w instanceof Tensor ? w : convertToTensor(w, 'b', 'mul');
      return wrap(native.stft(t.id, fl, fs, length, window.id));
    });
  });
}

const signal = { hannWindow, hammingWindow, frame, stft };

module.exports = { signal, cosineWindow };
