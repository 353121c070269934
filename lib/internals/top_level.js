'use strict';
// tfjs-core's top-level helpers outside the namespaces: tf.rand, tf.ensureShape and
// tf.bitwiseAnd (ops made with tf.op), tf.enclosingPowerOfTwo, tf.cosineWindow, tf.nextFrame.
const native = require('../native');
const { wrap } = require('../tensor');
const { tensor, convertToTensor } = require('../convert');
const { util } = require('../util');
const signal = require('../ops/signal');
const { op } = require('./op');

const { sizeFromShape } = util;

// dtype's typed array stores them (int32 truncates, bool keeps 0/1 of a Uint8Array).
const rand = op({
  rand_(shape, randFunction, dtype) {
    util.assertNonNegativeIntegerDimensions(shape);
    const size = sizeFromShape(shape);
    let values;
    if (dtype == null || dtype === 'float32') values = new Float32Array(size);
    else if (dtype === 'int32') values = new Int32Array(size);
    else if (dtype === 'bool') values = new Uint8Array(size);
    else throw new Error(`Unknown data type ${dtype}`);
    for (let i = 0; i < size; i++) values[i] = randFunction();
    // A Uint8Array holds any byte; bool tensors hold 0/1 (tfjs's cpu keeps the byte as read).
    if (dtype === 'bool') for (let i = 0; i < size; i++) values[i] = values[i] ? 1 : 0;
    return tensor(values, shape, dtype == null ? 'float32' : dtype);
  },
});

// tf.ensureShape(x, shape): x itself when its shape matches (null in `shape` matches any size).
const ensureShape = op({
  ensureShape_(x, shape) {
    const t = convertToTensor(x, 'x', 'ensureShape', 'string_or_numeric');
    if (!util.arraysEqualWithNull(t.shape, shape)) {
      throw new Error(`EnsureShape: Shape of tensor ${t.shape} is not compatible with expected shape ${shape}`);
    }
    // As tfjs, the argument is returned, not its conversion (the scope frees that).
    return x;
  },
});

// 2^N for the least integer N with 2^N >= value.
const enclosingPowerOfTwo = (value) => Math.floor(Math.pow(2, Math.ceil(Math.log(value) / Math.log(2.0))));

// Resolves on the next turn of the event loop (setImmediate; requestAnimationFrame in browsers).
function nextFrame() {
  const delay = typeof globalThis.requestAnimationFrame === 'function' ? globalThis.requestAnimationFrame
    : typeof setImmediate !== 'undefined' ? setImmediate : (cb) => cb();
  return new Promise((resolve) => delay(() => resolve()));
}

// tf.cosineWindow(windowLength, a, b): a - b cos(2πi / (n + even - 1)), the family of the Hann
// and Hamming windows (lib/ops/signal.js).
function cosineWindow(windowLength, a, b) {
  return signal.cosineWindow(windowLength, a, b);
}

// tf.bitwiseAnd(x, y): int32 only, same shapes (crates/core/src/ops/elementwise.rs).
const bitwiseAnd = op({
  bitwiseAnd_(x, y) {
    const a = convertToTensor(x, 'x', 'bitwiseAnd');
    const b = convertToTensor(y, 'y', 'bitwiseAnd');
    try {
      return wrap(native.bitwiseAnd(a.id, b.id));
    } finally {
      if (a !== x) a.dispose();
      if (b !== y) b.dispose();
    }
  },
});

module.exports = { rand, ensureShape, enclosingPowerOfTwo, nextFrame, cosineWindow, bitwiseAnd };
