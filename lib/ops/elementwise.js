'use strict';
// Elementwise ops. The unary and binary ops are built from the core's op tables
// (`native.elementwiseOps()`): a new op there appears here, functional and chained, with no
// line in this file. Then where, cast, and the ops tfjs composes of others (clipByValue,
// leakyRelu, step, logSigmoid, addN).
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { installCastMethods } = require('../casts');
const { withOne, withTwo, withMany, num } = require('./args');
const { convertToTensor, inferShape } = require('../convert');

const ops = {};
// tf.movingAverage: v + (x - v)(1 - decay), divided by 1 - decay^step when zero-debiased
// (crates/core/src/ops/elementwise.rs).
function movingAverage(v, x, decay, step, zeroDebias = true) {
  const debias = !!zeroDebias;
  const args = [[v, 'v'], [x, 'x'], [decay, 'decay']];
  if (debias && step != null) args.push([step, 'step']);
  return withMany('movingAverage', args, ([tv, tx, td, ts]) =>
    wrap(native.movingAverage(tv.id, tx.id, td.id, ts === undefined ? undefined : ts.id, debias)));
}

const P = Tensor.prototype;
const table = native.elementwiseOps();

table.unary.forEach(({ name, parseAs }, code) => {
  const op = (x) => (x instanceof Tensor ? wrap(native.unary(code, x.id)) :
    withOne(x, 'x', name, parseAs, (t) => wrap(native.unary(code, t.id))));
  ops[name] = op;
  P[name] = function () { return op(this); };
});

// tfjs composes divNoNan of div, whose name its argument errors carry.
const MESSAGE_NAME = { divNoNan: 'div' };

table.binary.forEach(({ name, a: aName, b: bName, parseAs }, code) => {
  const run = (ta, tb) => wrap(native.binary(code, ta.id, tb.id));
  const msgName = MESSAGE_NAME[name] || name;
  const op = (a, b) => (a instanceof Tensor && b instanceof Tensor ? run(a, b) :
    withTwo(msgName, a, aName, parseAs, b, bName, parseAs, run));
  ops[name] = op;
  P[name] = function (b) { return op(this, b); };
});

// tfjs converts a, b, then the condition (as bool); temporaries are disposed whatever happens.
function where(condition, a, b) {
  const temps = [];
  const conv = (x, name, parseAs) => {
    const t = convertToTensor(x, name, 'where', parseAs);
    if (t !== x) temps.push(t);
    return t;
  };
  try {
    const ta = conv(a, 'a', 'numeric');
    const tb = conv(b, 'b', 'numeric');
    const tc = conv(condition, 'condition', 'bool');
    return wrap(native.select(tc.id, ta.id, tb.id));
  } finally {
    for (const t of temps) t.dispose();
  }
}

// ---- ops tfjs composes of others (composed in the core) ----

function clipByValue(x, clipValueMin, clipValueMax) {
  return withOne(x, 'x', 'clipByValue', 'numeric', (t) => {
    // tfjs compares the bounds as given ('2' <= '10' is false), then computes with numbers.
    if (!(clipValueMin <= clipValueMax)) {
      throw new Error(`Error in clip: min (${clipValueMin}) must be less than or equal to max ` +
        `(${clipValueMax}).`);
    }
    return wrap(native.clipByValue(t.id, numAttr(clipValueMin), numAttr(clipValueMax)));
  });
}

// An attribute tfjs's kernel computes with as a JavaScript number (NaN when it has none).
function numAttr(v) {
  try {
    return +v;
  } catch (e) {
    return NaN;
  }
}

// alpha x below 0, in float32 (tfjs's LeakyRelu kernel): prelu with a scalar alpha.
const leakyRelu = (x, alpha = 0.2) => withOne(x, 'x', 'leakyRelu', 'numeric',
  (t) => wrap(native.leakyRelu(t.id, numAttr(alpha))));

// 1 above 0, alpha elsewhere, NaN for NaN; in the tensor's dtype.
const step = (x, alpha = 0) => withOne(x, 'x', 'step', 'numeric', (t) => wrap(native.step(t.id, numAttr(alpha))));

// tfjs's -softplus(-x).
const logSigmoid = (x) => withOne(x, 'x', 'logSigmoid', 'numeric', (t) => wrap(native.logSigmoid(t.id)));

function addN(tensors) {
  if (!Array.isArray(tensors)) throw new Error('The argument passed to tf.addN() must be a list of tensors');
  if (tensors.length < 1) {
    throw new Error(`Must pass at least one tensor to tf.addN(), but got ${tensors.length}`);
  }
  const ts = [];
  try {
    for (let i = 0; i < tensors.length; i++) ts.push(convertToTensor(tensors[i], `tensors${i}`, 'addN', 'numeric'));
    return wrap(native.addN(ts.map((t) => t.id)));
  } finally {
    ts.forEach((t, i) => { if (t !== tensors[i]) t.dispose(); });
  }
}

// offset + (x - mean) scale / sqrt(variance + epsilon), broadcasting the parameters: tfjs's
// FusedBatchNorm kernel, natively (composed of the ops while a gradient is taken).
function batchNorm(x, mean, variance, offset, scale, varianceEpsilon) {
  // A JavaScript number, as tfjs's kernel computes with it ('0.5' is 0.5, {} NaN).
  const eps = varianceEpsilon == null ? 0.001 : num(varianceEpsilon);
  const temps = [];
  const conv = (v, name) => {
    if (v == null) return null;
    const t = convertToTensor(v, name, 'batchNorm');
    if (t !== v) temps.push(t);
    return t;
  };
  try {
    const [tx, tm, tv] = [conv(x, 'x'), conv(mean, 'mean'), conv(variance, 'variance')];
    const [ts, to] = [conv(scale, 'scale'), conv(offset, 'offset')];
    if (tm.rank !== tv.rank) {
      throw new Error('Batch normalization gradient requires mean and variance to have equal ranks.');
    }
    if (to != null && tm.rank !== to.rank) {
      throw new Error('Batch normalization gradient requires mean and offset to have equal ranks.');
    }
    if (ts != null && tm.rank !== ts.rank) {
      throw new Error('Batch normalization gradient requires mean and scale to have equal ranks.');
    }
    return wrap(native.batchNorm(tx.id, tm.id, tv.id, to == null ? undefined : to.id,
      ts == null ? undefined : ts.id, eps));
  } finally {
    for (const t of temps) t.dispose();
  }
}

// batchNorm2d/3d/4d: batchNorm with tfjs's rank checks.
function batchNormOfRank(rank) {
  const name = `batchNorm${rank}D`;
  return (x, mean, variance, offset, scale, varianceEpsilon) => {
    const ranks = [[x, 'x', [rank]], [mean, 'mean', [rank, 1]], [variance, 'variance', [rank, 1]],
      [scale, 'scale', [rank, 1]], [offset, 'offset', [rank, 1]]];
    for (const [v, what, ok] of ranks) {
      if (v == null) continue;
      const r = v instanceof Tensor ? v.rank : inferShape(v).length;
      if (!ok.includes(r)) {
        throw new Error(`Error in ${name}: ${what} must be rank ${ok.join(' or rank ')} but got rank ${r}.`);
      }
    }
    return batchNorm(x, mean, variance, offset, scale, varianceEpsilon);
  };
}
const batchNorm2d = batchNormOfRank(2);
const batchNorm3d = batchNormOfRank(3);
const batchNorm4d = batchNormOfRank(4);

P.where = function (condition, x) { return where(condition, this, x); };
P.clipByValue = function (min, max) { return clipByValue(this, min, max); };
P.batchNorm = function (mean, variance, offset, scale, varianceEpsilon) {
  return batchNorm(this, mean, variance, offset, scale, varianceEpsilon);
};
P.leakyRelu = function (alpha) { return leakyRelu(this, alpha); };
P.step = function (alpha) { return step(this, alpha); };
P.logSigmoid = function () { return logSigmoid(this); };

const VALID_DTYPES = ['float32', 'int32', 'bool', 'string', 'complex64'];

function cast(x, dtype) {
  return withOne(x, 'x', 'cast', 'numeric', (t) => {
    if (VALID_DTYPES.indexOf(dtype) < 0) throw new Error(`Failed to cast to unknown dtype ${dtype}`);
    if (dtype === 'string') throw new Error('Only strings can be casted to strings');
    return wrap(native.cast(t.id, dtype));
  });
}

P.cast = function (dtype) { return cast(this, dtype); };
P.asType = function (dtype) { return cast(this, dtype); };
installCastMethods(Tensor, cast);

module.exports = {
  movingAverage,
  ...ops, cast, where, clipByValue, leakyRelu, step, logSigmoid, addN,
  batchNorm, batchNorm2d, batchNorm3d, batchNorm4d,
};
