'use strict';
// Matrix products: matMul, and dot and outerProduct composed of it as tfjs composes them.
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { withOne, withTwo, withMany, convertList, disposeTemps } = require('./args');
const { convertToTensor } = require('../convert');
const { tidy } = require('../engine');
const C = require('./creation');
const E = require('./elementwise');
const R = require('./reduce');
const L = require('./layout');

const { reshape } = L;

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
    return tidy(() => {
      const ol = C.oneHot(E.cast(l, 'int32'), numClasses);
      const op = C.oneHot(E.cast(p, 'int32'), numClasses);
      return E.cast(matMul(L.transpose(ol), op), 'int32');
    });
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

// tf.linalg.gramSchmidt: orthonormalises the rows of a 2-D tensor (or a list of 1-D tensors),
// each row minus its projections on the rows before it, then normalised.
function gramSchmidt(xs) {
  const list = Array.isArray(xs);
  if (list) {
    if (xs.length === 0) throw new Error('Gram-Schmidt process: input must not be null, undefined, or empty');
    const dim = xs[0].shape[0];
    for (let i = 1; i < xs.length; ++i) {
      if (xs[i].shape[0] !== dim) {
        throw new Error(`Gram-Schmidt: Non-unique lengths found in the input vectors: (${xs[i].shape[0]} vs. ${dim})`);
      }
    }
  } else if (xs == null) {
    throw new Error('Gram-Schmidt process: input must not be null, undefined, or empty');
  }
  return tidy(() => {
    const rows = list ? xs : L.unstack(xs, 0);
    if (!(rows.length <= rows[0].shape[0])) {
      throw new Error(`Gram-Schmidt: Number of vectors (${rows.length}) exceeds number of dimensions (${rows[0].shape[0]}).`);
    }
    const ys = [];
    for (const row of rows) {
      let x = row;
      for (const y of ys) x = E.sub(x, E.mul(R.sum(E.mul(y, x)), y));
      ys.push(E.div(x, R.norm(x, 'euclidean')));
    }
    return list ? ys : L.stack(ys, 0);
  });
}

// tf.linalg.qr: Householder reflections, as tfjs applies them (the reflection of column j
// takes the sign that avoids cancellation, so R's diagonal has the opposite sign of the
// column's leading value), computed on the host in double precision for each matrix.
function qr(x, fullMatrices = false) {
  // tfjs reads x.rank directly: only a Tensor is accepted.
  if (!(x instanceof Tensor)) throw new Error('qr() requires input tensor to have a rank >= 2, but got rank undefined');
  return withOne(x, 'x', 'qr', 'numeric', (t) => {
    if (t.rank < 2) throw new Error(`qr() requires input tensor to have a rank >= 2, but got rank ${t.rank}`);
    const [m, n] = t.shape.slice(-2);
    const batch = t.shape.slice(0, -2).reduce((a, b) => a * b, 1);
    const values = t.dataSync();
    const k = fullMatrices || m <= n ? m : n; // columns of Q, rows of R
    const qs = new Float32Array(batch * m * k);
    const rs = new Float32Array(batch * k * n);
    for (let b = 0; b < batch; b++) {
      const [q, r] = householder(values.subarray(b * m * n, (b + 1) * m * n), m, n);
      for (let i = 0; i < m; i++) for (let j = 0; j < k; j++) qs[b * m * k + i * k + j] = q[i * m + j];
      for (let i = 0; i < k; i++) for (let j = 0; j < n; j++) rs[b * k * n + i * n + j] = r[i * n + j];
    }
    const lead = t.shape.slice(0, -2);
    return [C.tensor(qs, [...lead, m, k]), C.tensor(rs, [...lead, k, n])];
  });
}

// Q (m×m) and R (m×n), row-major, of one matrix.
function householder(a, m, n) {
  const r = Float64Array.from(a);
  const q = new Float64Array(m * m);
  for (let i = 0; i < m; i++) q[i * m + i] = 1;
  for (let j = 0; j < Math.min(m, n); j++) {
    let norm = 0;
    for (let i = j; i < m; i++) norm += r[i * n + j] * r[i * n + j];
    norm = Math.sqrt(norm);
    const s = r[j * n + j] > 0 ? -1 : 1;
    const u1 = r[j * n + j] - s * norm;
    const w = new Float64Array(m - j);
    w[0] = 1;
    for (let i = 1; i < m - j; i++) w[i] = r[(i + j) * n + j] / u1;
    const tau = -s * u1 / norm;
    // R[j:, :] -= tau w (wᵀ R[j:, :]);  Q[:, j:] -= (Q[:, j:] w) (tau w)ᵀ
    for (let c = 0; c < n; c++) {
      let d = 0;
      for (let i = 0; i < m - j; i++) d += w[i] * r[(i + j) * n + c];
      for (let i = 0; i < m - j; i++) r[(i + j) * n + c] -= tau * w[i] * d;
    }
    for (let row = 0; row < m; row++) {
      let d = 0;
      for (let i = 0; i < m - j; i++) d += q[row * m + i + j] * w[i];
      for (let i = 0; i < m - j; i++) q[row * m + i + j] -= d * tau * w[i];
    }
  }
  return [q, r];
}

// tf.basicLSTMCell: one step of an LSTM, as tfjs composes it: [newC, newH].
function basicLSTMCell(forgetBias, lstmKernel, lstmBias, data, c, h) {
  const args = [[forgetBias, 'forgetBias'], [lstmKernel, 'lstmKernel'], [lstmBias, 'lstmBias'], [data, 'data'],
    [c, 'c'], [h, 'h']];
  return withMany('basicLSTMCell', args, ([tf, tk, tb, td, tc, th]) => tidy(() => {
    const res = E.add(matMul(L.concat([td, th], 1), tk), tb);
    const [batch, cols] = [res.shape[0], res.shape[1] / 4];
    const part = (k) => L.slice(res, [0, cols * k], [batch, cols]);
    const [i, j, f, o] = [part(0), part(1), part(2), part(3)];
    const newC = E.add(E.mul(E.sigmoid(i), E.tanh(j)), E.mul(tc, E.sigmoid(E.add(tf, f))));
    const newH = E.mul(E.tanh(newC), E.sigmoid(o));
    return [newC, newH];
  }));
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
