'use strict';
// Matrix products: matMul, and the ops tfjs composes of it (dot, outerProduct, confusionMatrix,
// gramSchmidt, qr, basicLSTMCell), each one native call composed in crates/core.
const native = require('../native');
const { Tensor, wrap, wrapId } = require('../tensor');
const { withOne, withTwo, withMany, convertList, disposeTemps } = require('./args');
const { convertToTensor } = require('../convert');
const { tidy } = require('../engine');

function matMul(a, b, transposeA = false, transposeB = false) {
  return matMulWith(a, b, transposeA, transposeB);
}

// matMul, and with `epilogue` ({bias, activation, alpha, leakyAlpha}, tensor ids) tf.fused's
// bias and activation in the product's kernel.
function matMulWith(a, b, transposeA, transposeB, epilogue) {
  const tA = !!transposeA;
  const tB = !!transposeB;
  return withTwo('matMul', a, 'a', 'numeric', b, 'b', 'numeric',
    (ta, tb) => wrap(native.matMul(ta.id, tb.id, tA, tB, epilogue)));
}

// tf.dot and tf.outerProduct: matMul of the vectors reshaped as tfjs reshapes them
// (crates/core/src/ops/matmul_composed.rs).
function dot(t1, t2) {
  return withTwo('dot', t1, 't1', 'numeric', t2, 't2', 'numeric', (a, b) => wrap(native.dot(a.id, b.id)));
}

function outerProduct(v1, v2) {
  return withTwo('outerProduct', v1, 'v1', 'numeric', v2, 'v2', 'numeric',
    (a, b) => wrap(native.outerProduct(a.id, b.id)));
}

// tf.linalg.bandPart: the band of each innermost matrix, zeros elsewhere (a negative count keeps
// the whole lower or upper triangle).
function bandPart(a, numLower, numUpper) {
  return withOne(a, 'a', 'bandPart', 'numeric', (t) => {
    // A tensor count is a scalar read on the host (tfjs compares it on the backend; the band
    // is the same).
    const count = (n, name) => {
      if (n instanceof Tensor) {
        if (n.rank !== 0) throw new Error(`bandPart(): ${name} must be a scalar, but got rank ${n.rank}.`);
        return n.dataSync()[0];
      }
      if (typeof n === 'number') return n;
      throw new Error(`bandPart(): ${name} must be a number or a scalar tensor, but got ${n}.`);
    };
    if (t.rank < 2) throw new Error(`bandPart(): Rank must be at least 2, got ${t.rank}.`);
    return wrap(native.bandPart(t.id, count(numLower, 'numLower'), count(numUpper, 'numUpper')));
  });
}

const linalg = { bandPart, gramSchmidt, qr };

// tf.math.confusionMatrix: one-hot labels (transposed) times one-hot predictions. numClasses
// travels as a number (NaN for a value that is not one, which tfjs refuses too) with its text
// for the errors.
function confusionMatrix(labels, predictions, numClasses) {
  return withTwo('confusionMatrix', labels, 'labels', 'numeric', predictions, 'predictions', 'numeric', (l, p) => {
    const n = numClasses == null ? null : (typeof numClasses === 'number' ? numClasses : NaN);
    return wrap(native.confusionMatrix(l.id, p.id, n, `${numClasses}`));
  });
}

const math = { confusionMatrix };

Tensor.prototype.dot = function (b) { return dot(this, b); };
Tensor.prototype.matMul = function (b, transposeA, transposeB) {
  return matMul(this, b, transposeA, transposeB);
};

// tf.einsum for one or two tensors without ellipsis (tfjs's limits and texts): each input's
// axes are permuted into one order (output labels first, then the summed ones) with 1s for the
// labels it lacks, the inputs are multiplied with broadcasting, and the summed axes are summed.
function einsum(equation, ...tensors) {
  const converted = [];
  try {
    tensors.forEach((t, i) => converted.push(convertToTensor(t, `tensors${i}`, 'einsum')));
    return wrap(native.einsum(String(equation), converted.map((t) => t.id)));
  } finally {
    converted.forEach((t, i) => { if (t !== tensors[i]) t.dispose(); });
  }
}

// tf.linalg.gramSchmidt: orthonormalises the rows of a 2-D tensor (or a list of 1-D tensors,
// giving a list), each row minus its projections on the rows before it, then normalised.
function gramSchmidt(xs) {
  if (Array.isArray(xs)) {
    // tfjs reads the list's tensors as they are.
    xs.forEach((x, i) => {
      if (!(x instanceof Tensor)) throw new Error(`gramSchmidt: xs[${i}] must be a Tensor, but got ${x}`);
    });
    return native.gramSchmidt(xs.map((x) => x.id), true).map(wrapId);
  }
  if (xs == null) throw new Error('Gram-Schmidt process: input must not be null, undefined, or empty');
  return withOne(xs, 'xs', 'gramSchmidt', 'numeric', (t) => wrapId(native.gramSchmidt([t.id], false)[0]));
}

// tf.linalg.qr: Householder reflections composed of ops as tfjs composes them: [q, r].
function qr(x, fullMatrices = false) {
  // tfjs reads x.rank directly: only a Tensor is accepted.
  if (!(x instanceof Tensor)) throw new Error('qr() requires input tensor to have a rank >= 2, but got rank undefined');
  return native.qr(x.id, !!fullMatrices).map(wrapId);
}

// tf.basicLSTMCell: one step of an LSTM, as tfjs composes it: [newC, newH].
function basicLSTMCell(forgetBias, lstmKernel, lstmBias, data, c, h) {
  const args = [[forgetBias, 'forgetBias'], [lstmKernel, 'lstmKernel'], [lstmBias, 'lstmBias'], [data, 'data'],
    [c, 'c'], [h, 'h']];
  return withMany('basicLSTMCell', args, (ts) => native.basicLstmCell(...ts.map((t) => t.id)).map(wrapId));
}

// tf.multiRNNCell: the cells in sequence, each fed the previous one's h: [cs, hs].
function multiRNNCell(lstmCells, data, c, h) {
  return withOne(data, 'data', 'multiRNNCell', 'numeric', (d) => {
    const [cs0] = convertList(c, 'c', 'multiRNNCell');
    let hs0;
    try {
      [hs0] = convertList(h, 'h', 'multiRNNCell');
      return tidy(() => {
        let input = d;
        const [cs, hs] = [[], []];
        lstmCells.forEach((cell, i) => {
          const [nc, nh] = cell(input, cs0[i], hs0[i]);
          cs.push(nc);
          hs.push(nh);
          input = nh;
        });
        return [cs, hs];
      });
    } finally {
      disposeTemps(c, cs0, cs0.length);
      if (hs0) disposeTemps(h, hs0, hs0.length);
    }
  });
}

module.exports = {
  basicLSTMCell, multiRNNCell,
  einsum, matMul, dot, outerProduct, linalg, math };
// For tf.fused (lib/ops/fused.js), not a tf.* name: a product with its epilogue.
Object.defineProperty(module.exports, 'matMulWith', { value: matMulWith });
