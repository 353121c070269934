'use strict';
// Reductions: sum, mean, max, min (axis, keepDims), argMax, argMin, softmax.
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { withOne, axesArg, axisArg } = require('./args');

function reduce(fn, opName, x, axis, keepDims) {
  return withOne(x, 'x', opName, 'numeric', (t) => wrap(fn(t.id, axesArg(axis), !!keepDims)));
}

const sum = (x, axis = null, keepDims = false) => reduce(native.sum, 'sum', x, axis, keepDims);
const mean = (x, axis = null, keepDims = false) => reduce(native.mean, 'mean', x, axis, keepDims);
const max = (x, axis = null, keepDims = false) => reduce(native.max, 'max', x, axis, keepDims);
const min = (x, axis = null, keepDims = false) => reduce(native.min, 'min', x, axis, keepDims);

function argReduce(fn, opName, x, axis) {
  return withOne(x, 'x', opName, 'numeric', (t) => {
    // tfjs reads a null axis as every axis, which only a rank-1 tensor accepts.
    if (axis === null && t.shape.length > 1) {
      throw new Error(`${opName} supports only inner-most axes for now. ` +
        `Got axes 0 and rank-${t.shape.length} input.`);
    }
    return wrap(fn(t.id, axisArg(axis, 0)));
  });
}

const argMax = (x, axis = 0) => argReduce(native.argMax, 'argMax', x, axis);
const argMin = (x, axis = 0) => argReduce(native.argMin, 'argMin', x, axis);

function softmax(logits, dim = -1) {
  return withOne(logits, 'logits', 'softmax', 'float32',
    (t) => wrap(native.softmax(t.id, axisArg(dim))));
}

const P = Tensor.prototype;
P.sum = function (axis, keepDims) { return sum(this, axis, keepDims); };
P.mean = function (axis, keepDims) { return mean(this, axis, keepDims); };
P.max = function (axis, keepDims) { return max(this, axis, keepDims); };
P.min = function (axis, keepDims) { return min(this, axis, keepDims); };
P.argMax = function (axis) { return argMax(this, axis); };
P.argMin = function (axis) { return argMin(this, axis); };
P.softmax = function (dim) { return softmax(this, dim); };

module.exports = { sum, mean, max, min, argMax, argMin, softmax };
