'use strict';
// The creation ops tfjs composes of other families' ops: meshgrid, diag, multinomial, dropout.
// They sit above those families, so that creation.js stays below them (the families make
// their tensors with it).
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { convertToTensor } = require('../convert');
const { tidy } = require('../engine');
const { withOne, listArg } = require('./args');
const { ones, zeros, eye, randomUniform } = require('./creation');
const E = require('./elementwise');
const L = require('./layout');
const { matMul } = require('./matmul');

// Coordinate grids: [X, Y] repeating x along rows and y along columns ('xy'), or the
// transposes ('ij'); made by matrix products with ones, as tfjs makes them.
function meshgrid(x, y, { indexing = 'xy' } = {}) {
  if (indexing !== 'xy' && indexing !== 'ij') throw new TypeError(`${indexing} is not a valid third argument to meshgrid`);
  if (x === undefined) return [];
  const tx = convertToTensor(x, 'x', 'meshgrid', x instanceof Tensor ? x.dtype : 'float32');
  if (y === undefined) return [tx];
  let ty;
  try {
    ty = convertToTensor(y, 'y', 'meshgrid', y instanceof Tensor ? y.dtype : 'float32');
    const [w, h] = [tx.size, ty.size];
    return tidy(() => (indexing === 'xy' ?
      [matMul(ones([h, 1], tx.dtype), L.reshape(tx, [1, -1])), matMul(L.reshape(ty, [-1, 1]), ones([1, w], ty.dtype))] :
      [matMul(L.reshape(tx, [-1, 1]), ones([1, h], tx.dtype)), matMul(ones([w, 1], ty.dtype), L.reshape(ty, [1, -1]))]));
  } finally {
    if (tx !== x) tx.dispose();
    if (ty !== undefined && ty !== y) ty.dispose();
  }
}

// The values of x on the diagonal of a [...shape, ...shape] tensor, zeros elsewhere.
function diag(x) {
  return withOne(x, 'x', 'diag', 'numeric', (t) => tidy(() => {
    const n = t.size;
    const d = E.where(eye(n, n, null, 'bool'), L.reshape(t, [1, n]), zeros([n, n], t.dtype));
    return L.reshape(d, [...t.shape, ...t.shape]);
  }));
}

// tf.multinomial: numSamples draws per row of logits (or probabilities when `normalized`):
// the index of the first cumulative probability above a uniform draw (the last outcome when
// none is, as tfjs's kernel answers for rows that sum to less than 1).
function multinomial(logits, numSamples, seed, normalized = false) {
  return withOne(logits, 'logits', 'multinomial', 'numeric', (t) => {
    if (t.size < 2) throw new Error(`Error in multinomial: you need at least 2 outcomes, but got ${t.size}.`);
    if (t.rank > 2) throw new Error(`Rank of probabilities must be 1 or 2, but is ${t.rank}`);
    if (!Number.isInteger(numSamples) || numSamples < 0) {
      throw new Error(`numSamples must be a non-negative integer, but got ${String(numSamples)}.`);
    }
    // tfjs's `seed || Math.random()`: a falsy seed draws a fresh stream.
    return wrap(native.multinomial(t.id, numSamples, seed ? String(seed) : null, !!normalized));
  });
}

// tf.dropout: x scaled by 1 / (1 - rate) where a uniform draw (over noiseShape, broadcast) plus
// 1 - rate reaches 1, else 0, as tfjs composes it.
function dropout(x, rate, noiseShape, seed) {
  return withOne(x, 'x', 'dropout', 'numeric', (t) => {
    if (t.dtype !== 'float32') {
      throw new Error(`x has to be a floating point tensor since it's going to be scaled, but got a ${t.dtype} tensor instead.`);
    }
    if (!(rate >= 0 && rate < 1)) throw new Error(`rate must be a float in the range [0, 1), but got ${rate}.`);
    if (rate === 0) return t.clone();
    let shape = noiseShape == null ? t.shape.slice() : listArg(noiseShape);
    if (noiseShape != null && shape.length === t.rank) shape = shape.map((d, i) => (d == null ? t.shape[i] : d));
    const keep = 1 - rate;
    return tidy(() =>
      E.mul(t, E.div(E.floor(E.add(randomUniform(shape, 0, 1, 'float32', seed), keep)), keep)));
  });
}

module.exports = { multinomial, dropout, meshgrid, diag };
