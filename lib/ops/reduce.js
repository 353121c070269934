'use strict';
// Reductions: sum, mean, max, min, prod, all, any, moments (axis, keepDims), logSumExp, norm,
// argMax, argMin, softmax; each one native call.
const native = require('../native');
const { Tensor, wrap, wrapId } = require('../tensor');
const { withOne, axesArg, axisArg } = require('./args');
const { convertToTensor } = require('../convert');
const { tensor } = require('./creation');

function reduce(fn, opName, x, axis, keepDims, parseAs = 'numeric') {
  return withOne(x, 'x', opName, parseAs, (t) => wrap(fn(t.id, axesArg(axis), !!keepDims)));
}

const sum = (x, axis = null, keepDims = false) => reduce(native.sum, 'sum', x, axis, keepDims);
const mean = (x, axis = null, keepDims = false) => reduce(native.mean, 'mean', x, axis, keepDims);
const max = (x, axis = null, keepDims = false) => reduce(native.max, 'max', x, axis, keepDims);
const min = (x, axis = null, keepDims = false) => reduce(native.min, 'min', x, axis, keepDims);
const prod = (x, axis = null, keepDims = false) => reduce(native.prod, 'prod', x, axis, keepDims);
const all = (x, axis = null, keepDims = false) => reduce(native.all, 'all', x, axis, keepDims, 'bool');
const any = (x, axis = null, keepDims = false) => reduce(native.any, 'any', x, axis, keepDims, 'bool');

// log(sum(exp(x))) without overflow (composed in crates/core/src/ops/reduce_composed.rs).
function logSumExp(x, axis = null, keepDims = false) {
  return withOne(x, 'x', 'logSumExp', 'numeric', (t) => wrap(native.logSumExp(t.id, axesArg(axis), !!keepDims)));
}

// { mean, variance } over the axes (one native op: a single kernel when no gradient is
// recorded).
function moments(x, axis = null, keepDims = false) {
  return withOne(x, 'x', 'moments', 'numeric', (t) => {
    const [mean, variance] = native.moments(t.id, axesArg(axis), !!keepDims);
    return { mean: wrapId(mean), variance: wrapId(variance) };
  });
}

function logSoftmax(logits, axis = -1) {
  return withOne(logits, 'logits', 'logSoftmax', 'numeric', (t) => {
    if (typeof axis !== 'number') {
      // tfjs's text for an axis that is not the last (a string one never is, to `!==`).
      throw new Error('Log Softmax along a non-last dimension is not yet supported. ' +
        `Logits was rank ${t.shape.length} and axis was ${axis}`);
    }
    return wrap(native.logSoftmax(t.id, axis));
  });
}

// tfjs's normImpl: vector norms (1, 2/'euclidean', ±Infinity) and matrix norms (1, ±Infinity,
// 'fro'/'euclidean') over two axes.

// tf.norm: vector norms over all values or one axis, matrix norms over two
// (crates/core/src/ops/reduce_composed.rs).
function norm(x, ord = 'euclidean', axis = null, keepDims = false) {
  return withOne(x, 'x', 'norm', 'numeric', (t) => {
    const named = typeof ord === 'string';
    if ((named && ord !== 'euclidean' && ord !== 'fro') || (!named && typeof ord !== 'number')) {
      throw new Error(`Error in norm: invalid ord value: ${ord}`);
    }
    return wrap(native.norm(t.id, named ? null : Number(ord), named ? ord : null, axesArg(axis), !!keepDims));
  });
}

// The k largest values along the last axis and their indices (always sorted: an unsorted
// result may come in any order, and sorted is one).
function topk(x, k = 1, sorted = true) {
  return withOne(x, 'x', 'topk', 'numeric', (t) => {
    if (t.shape.length === 0) throw new Error('topk() expects the input to be of rank 1 or higher');
    const last = t.shape[t.shape.length - 1];
    if (k < 0) throw new Error(`'k' passed to topk() must be >= 0 but got ${k}`);
    if (k > last) throw new Error(`'k' passed to topk() must be <= the last dimension (${last}) but got ${k}`);
    if (!Number.isSafeInteger(k)) throw new Error(`'k' passed to topk() must be an integer but got ${k}`);
    const [values, indices] = native.topk(t.id, k);
    return { values: wrapId(values), indices: wrapId(indices) };
  });
}

function cumulative(prod, opName, x, axis, exclusive, reverse) {
  return withOne(x, 'x', opName, 'numeric',
    (t) => wrap(native.cumulative(prod, t.id, axisArg(axis, 0), !!exclusive, !!reverse)));
}

const cumsum = (x, axis = 0, exclusive = false, reverse = false) =>
  cumulative(false, 'cumsum', x, axis, exclusive, reverse);
const cumprod = (x, axis = 0, exclusive = false, reverse = false) =>
  cumulative(true, 'cumprod', x, axis, exclusive, reverse);


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
P.prod = function (axis, keepDims) { return prod(this, axis, keepDims); };
P.all = function (axis, keepDims) { return all(this, axis, keepDims); };
P.any = function (axis, keepDims) { return any(this, axis, keepDims); };
P.logSumExp = function (axis, keepDims) { return logSumExp(this, axis, keepDims); };
P.logSoftmax = function (axis) { return logSoftmax(this, axis); };
P.topk = function (k, sorted) { return topk(this, k, sorted); };
P.cumsum = function (axis, exclusive, reverse) { return cumsum(this, axis, exclusive, reverse); };
P.cumprod = function (axis, exclusive, reverse) { return cumprod(this, axis, exclusive, reverse); };
P.norm = function (ord, axis, keepDims) { return norm(this, ord, axis, keepDims); };
P.euclideanNorm = function (axis, keepDims) { return norm(this, 'euclidean', axis == null ? null : axis, keepDims); };
P.argMax = function (axis) { return argMax(this, axis); };
P.argMin = function (axis) { return argMin(this, axis); };
P.softmax = function (dim) { return softmax(this, dim); };

// tf.inTopKAsync: whether each target is among the k largest predictions of its row (ties go
// to the lower index, as tfjs's stable sort has them).
async function inTopKAsync(predictions, targets, k = 1) {
  const p = convertToTensor(predictions, 'predictions', 'inTopK');
  let t;
  try {
    t = convertToTensor(targets, 'targets', 'inTopK');
    if (!(p.rank > 1)) throw new Error(`inTopK() expects the predictions to be of rank 2 or higher, but got ${p.rank}`);
    if (p.rank - 1 !== t.rank) {
      throw new Error(`predictions rank should be 1 larger than targets rank, but got predictions rank ${p.rank} and targets rank ${t.rank}`);
    }
    const lead = p.shape.slice(0, -1);
    if (lead.length !== t.shape.length || lead.some((d, i) => d !== t.shape[i])) {
      throw new Error(`Error in predictions's shape should be align with the targets' shape, except the last dimension.: Shapes ${lead} and ${t.shape} must match`);
    }
    const last = p.shape[p.rank - 1];
    if (!(k > 0 && k <= last)) {
      throw new Error(`'k' passed to inTopK() must be > 0 && <= the predictions last dimension (${last}), but got ${k}`);
    }
    const [pv, tv] = await Promise.all([p.data(), t.data()]);
    const out = new Uint8Array(pv.length / last);
    for (let b = 0; b < out.length; b++) {
      const row = Array.from(pv.subarray(b * last, (b + 1) * last), (value, index) => ({ value, index }));
      row.sort((x, y) => y.value - x.value);
      out[b] = row.slice(0, k).some((e) => e.index === tv[b]) ? 1 : 0;
    }
    return tensor(out, t.shape, 'bool');
  } finally {
    if (p !== predictions) p.dispose();
    if (t !== undefined && t !== targets) t.dispose();
  }
}

module.exports = {
  inTopKAsync,
  sum, mean, max, min, prod, all, any, logSumExp, moments, argMax, argMin, softmax, logSoftmax, norm,
  cumsum, cumprod, topk,
};
