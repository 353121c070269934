'use strict';
// tf.buffer() and TensorBuffer: a mutable typed array with a shape, as in tfjs 4.22, and the
// chained tensor.buffer() / tensor.bufferSync().
const { stridesOf: computeStrides } = require('./format'); // tfjs's util.computeStrides: none for rank < 2
const { sizeOf: sizeFromShape, tensor } = require('./convert');
const { util } = require('./util');

const { getArrayFromDType } = util;

function assertNonNegativeIntegerDimensions(shape) {
  shape.forEach((d) => {
    if (!(Number.isInteger(d) && d >= 0)) {
      throw new Error('Tensor must have a shape comprised of positive integers but got ' +
        `shape [${shape}].`);
    }
  });
}

class TensorBuffer {
  // `values` is kept as given (not copied), as in tfjs: writing to it writes the buffer.
  constructor(shape, dtype, values) {
    this.dtype = dtype;
    this.shape = shape.slice();
    this.size = sizeFromShape(shape);
    if (values != null) {
      const n = values.length;
      if (n !== this.size) {
        throw new Error(`Length of values '${n}' does not match the size ` +
          `inferred by the shape '${this.size}'.`);
      }
    }
    if (dtype === 'complex64') {
      throw new Error('complex64 dtype TensorBuffers are not supported. Please create ' +
        'a TensorBuffer for the real and imaginary parts separately and ' +
        'call tf.complex(real, imag).');
    }
    this.values = values || getArrayFromDType(dtype, this.size);
    this.strides = computeStrides(shape);
  }

  set(value, ...locs) {
    if (locs.length === 0) locs = [0];
    if (locs.length !== this.rank) {
      throw new Error(`The number of provided coordinates (${locs.length}) must ` +
        `match the rank (${this.rank})`);
    }
    this.values[this.locToIndex(locs)] = value;
  }

  // Checks each coordinate against the shape (tfjs does not check their count here).
  get(...locs) {
    if (locs.length === 0) locs = [0];
    let i = 0;
    for (const loc of locs) {
      if (loc < 0 || loc >= this.shape[i]) {
        throw new Error(`Requested out of range element at ${locs}. ` +
          `  Buffer shape=${this.shape}`);
      }
      i++;
    }
    let index = locs[locs.length - 1];
    for (let j = 0; j < locs.length - 1; ++j) index += this.strides[j] * locs[j];
    return this.values[index];
  }

  locToIndex(locs) {
    if (this.rank === 0) return 0;
    if (this.rank === 1) return locs[0];
    let index = locs[locs.length - 1];
    for (let i = 0; i < locs.length - 1; ++i) index += this.strides[i] * locs[i];
    return index;
  }

  indexToLoc(index) {
    if (this.rank === 0) return [];
    if (this.rank === 1) return [index];
    const locs = new Array(this.shape.length);
    for (let i = 0; i < locs.length - 1; ++i) {
      locs[i] = Math.floor(index / this.strides[i]);
      index -= locs[i] * this.strides[i];
    }
    locs[locs.length - 1] = index;
    return locs;
  }

  get rank() {
    return this.shape.length;
  }

  // A new tensor holding a copy of the values: later writes to the buffer do not reach it
  // (tfjs's cpu backend keeps the very array, so they do there).
  toTensor() {
    return tensor(this.values, this.shape, this.dtype);
  }
}

function buffer(shape, dtype = 'float32', values) {
  dtype = dtype || 'float32';
  assertNonNegativeIntegerDimensions(shape);
  return new TensorBuffer(shape, dtype, values);
}

// tensor.bufferSync() and tensor.buffer(): a TensorBuffer over the tensor's values. dataSync()
// and data() return a fresh array per read, so the buffer never writes into the tensor
// (tfjs's cpu backend hands out its storage, so there it does).
function installBufferMethods(TensorClass) {
  TensorClass.prototype.bufferSync = function bufferSync() {
    return buffer(this.shape, this.dtype, this.dataSync());
  };
  TensorClass.prototype.buffer = async function tensorBuffer() {
    const vals = await this.data();
    return buffer(this.shape, this.dtype, vals);
  };
}

module.exports = { buffer, TensorBuffer, installBufferMethods };
