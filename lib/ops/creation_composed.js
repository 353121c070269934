'use strict';
// The creation ops tfjs composes of other families' ops: meshgrid, diag, multinomial, dropout
// (each one native call into crates/core).
const native = require('../native');
const { Tensor, wrap, wrapId } = require('../tensor');
const { convertToTensor } = require('../convert');
const { withOne, listArg, num } = require('./args');

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
    return native.meshgrid(tx.id, ty.id, indexing === 'ij').map(wrapId);
  } finally {
    if (tx !== x) tx.dispose();
    if (ty !== undefined && ty !== y) ty.dispose();
  }
}

// The values of x on the diagonal of a [...shape, ...shape] tensor, zeros elsewhere.
function diag(x) {
  return withOne(x, 'x', 'diag', 'numeric', (t) => wrap(native.diag(t.id)));
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
// 1 - rate reaches 1, else 0, as tfjs composes it; the draw is tf.randomUniform's for the seed.
function dropout(x, rate, noiseShape, seed) {
  return withOne(x, 'x', 'dropout', 'numeric', (t) => {
    const shape = noiseShape == null ? null : listArg(noiseShape);
    if (shape !== null && !Array.isArray(shape)) {
      throw new Error(`Tensor must have a shape comprised of positive integers but got shape [${noiseShape}].`);
    }
    const dims = shape === null ? null : Array.from(shape, (d) => (d == null ? null : num(d)));
    return wrap(native.dropout(t.id, num(rate), dims, seed == null ? null : String(seed)));
  });
}

module.exports = { multinomial, dropout, meshgrid, diag };
