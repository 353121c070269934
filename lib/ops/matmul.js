'use strict';
// Matrix products: matMul, and dot and outerProduct composed of it as tfjs composes them.
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { withTwo } = require('./args');

const tidy = (f) => require('../engine').tidy(f);
const reshape = (x, s) => require('./layout').reshape(x, s);

function matMul(a, b, transposeA = false, transposeB = false) {
  const tA = !!transposeA;
  const tB = !!transposeB;
  return withTwo('matMul', a, 'a', 'numeric', b, 'b', 'numeric',
    (ta, tb) => wrap(native.matMul(ta.id, tb.id, tA, tB)));
}

function dot(t1, t2) {
  return withTwo('dot', t1, 't1', 'numeric', t2, 't2', 'numeric', (a, b) => {
    if (!((a.rank === 1 || a.rank === 2) && (b.rank === 1 || b.rank === 2))) {
      throw new Error(`Error in dot: inputs must all be rank 1 or 2, but got ranks ${a.rank} and ${b.rank}.`);
    }
    const aInner = a.rank === 1 ? a.size : a.shape[1];
    const bInner = b.rank === 1 ? b.size : b.shape[0];
    if (aInner !== bInner) {
      throw new Error(`Error in dot: inner dimensions of inputs must match, but got ${aInner} and ${bInner}.`);
    }
    return tidy(() => {
      const y = matMul(a.rank === 1 ? reshape(a, [1, -1]) : a, b.rank === 1 ? reshape(b, [-1, 1]) : b);
      if (a.rank === 1 && b.rank === 1) return reshape(y, []);
      return a.rank === 2 && b.rank === 2 ? y : reshape(y, [y.size]);
    });
  });
}

function outerProduct(v1, v2) {
  return withTwo('outerProduct', v1, 'v1', 'numeric', v2, 'v2', 'numeric', (a, b) => {
    if (a.rank !== 1 || b.rank !== 1) {
      throw new Error(`Error in outerProduct: inputs must be rank 1, but got ranks ${a.rank} and ${b.rank}.`);
    }
    return tidy(() => matMul(reshape(a, [-1, 1]), reshape(b, [1, -1])));
  });
}

// tf.linalg.bandPart: the band of each innermost matrix, zeros elsewhere (a negative count keeps
// the whole lower or upper triangle).
function bandPart(a, numLower, numUpper) {
  const { withOne } = require('./args');
  return withOne(a, 'a', 'bandPart', 'numeric', (t) => {
    if (t.rank < 2) throw new Error(`bandPart(): Rank must be at least 2, got ${t.rank}.`);
    const [M, N] = t.shape.slice(-2);
    const count = (n, dim, what, name) => {
      if (typeof n === 'number') {
        if (n % 1 !== 0) throw new Error(`bandPart(): ${name} must be an integer, got ${n}.`);
        if (n > dim) throw new Error(`bandPart(): ${name} (${n}) must not be greater than the number of ${what} (${dim}).`);
        return n < 0 ? dim : n;
      }
      throw new Error(`bandPart(): ${name} must be a number (tensor counts are not supported yet)`);
    };
    const lower = count(numLower, M, 'rows', 'numLower');
    const upper = count(numUpper, N, 'columns', 'numUpper');
    const E = require('./elementwise');
    const C = require('./creation');
    return tidy(() => {
      const ij = E.sub(reshape(C.range(0, M, 1, 'int32'), [-1, 1]), C.range(0, N, 1, 'int32'));
      const inBand = E.logicalAnd(E.lessEqual(ij, C.scalar(lower, 'int32')), E.greaterEqual(ij, C.scalar(-upper, 'int32')));
      return E.where(inBand, t, C.zeros([M, N], t.dtype));
    });
  });
}

const linalg = { bandPart };

// tf.math.confusionMatrix: one-hot labels (transposed) times one-hot predictions.
function confusionMatrix(labels, predictions, numClasses) {
  return withTwo('confusionMatrix', labels, 'labels', 'numeric', predictions, 'predictions', 'numeric', (l, p) => {
    if (!(numClasses == null || (numClasses > 0 && Number.isInteger(numClasses)))) {
      throw new Error(`If provided, numClasses must be a positive integer, but got ${numClasses}`);
    }
    if (l.rank !== 1) throw new Error(`Expected the rank of labels to be 1, but got ${l.rank}`);
    if (p.rank !== 1) throw new Error(`Expected the rank of predictions to be 1, but got ${p.rank}`);
    if (l.shape[0] !== p.shape[0]) {
      throw new Error(`Mismatch in the number of examples: ${l.shape[0]} vs. ${p.shape[0]}. ` +
        'Labels and predictions should have the same number of elements.');
    }
    if (!(numClasses > 0 && Number.isInteger(numClasses))) {
      throw new Error(`numClasses is required to be a positive integer, but got ${numClasses}`);
    }
    const E = require('./elementwise');
    const { oneHot } = require('./creation');
    return tidy(() => {
      const ol = oneHot(E.cast(l, 'int32'), numClasses);
      const op = oneHot(E.cast(p, 'int32'), numClasses);
      return E.cast(matMul(require('./layout').transpose(ol), op), 'int32');
    });
  });
}

const math = { confusionMatrix };

Tensor.prototype.dot = function (b) { return dot(this, b); };
Tensor.prototype.matMul = function (b, transposeA, transposeB) {
  return matMul(this, b, transposeA, transposeB);
};

module.exports = { matMul, dot, outerProduct, linalg, math };
