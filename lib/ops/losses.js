'use strict';
// tf.losses: each loss composed of ops exactly as tfjs 4.22 composes it (same values, same
// argument checks and texts), then reduced by computeWeightedLoss.
const { convertToTensor } = require('../convert');
const { tidy } = require('../engine');
const { scalar, ones } = require('./creation');
const elementwise = require('./elementwise');
const reduce = require('./reduce');

const Reduction = Object.freeze({ NONE: 0, MEAN: 1, SUM: 2, SUM_BY_NONZERO_WEIGHTS: 3 });

// Converts the named TensorLike arguments (in order; weights only when given), runs `f` on
// the tensors in a scope, then disposes the conversions.
function withTensors(fnName, args, f) {
  const temps = [];
  try {
    const ts = args.map(([x, name]) => {
      if (name === 'weights' && x == null) return null;
      const t = convertToTensor(x, name, fnName, 'numeric');
      if (t !== x) temps.push(t);
      return t;
    });
    return tidy(() => f(...ts));
  } finally {
    for (const t of temps) t.dispose();
  }
}

function assertShapesMatch(a, b, prefix) {
  if (a.length !== b.length || a.some((d, i) => d !== b[i])) {
    throw new Error(`${prefix} Shapes ${a} and ${b} must match`);
  }
}

function computeWeightedLoss(losses, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) {
  return withTensors('computeWeightedLoss', [[losses, 'losses'], [weights, 'weights']], (l, w) => {
    const E = elementwise;
    const R = reduce;
    const weighted = w == null ? l : E.mul(l, w);
    if (reduction === Reduction.NONE) return weighted;
    if (reduction === Reduction.SUM) return R.sum(weighted);
    if (reduction === Reduction.MEAN) {
      if (w == null) return R.mean(weighted);
      const broadcastFactor = l.size / w.size;
      const result = E.div(R.sum(weighted), R.sum(w));
      return broadcastFactor > 1 ? E.div(result, scalar(broadcastFactor)) : result;
    }
    if (reduction === Reduction.SUM_BY_NONZERO_WEIGHTS) {
      if (w == null) return E.div(R.sum(weighted), scalar(l.size));
      const broadcast = E.mul(w, ones(l.shape));
      const nonZeros = E.cast(R.sum(E.notEqual(broadcast, scalar(0))), 'float32');
      return E.div(R.sum(weighted), nonZeros);
    }
    throw Error(`Unknown reduction: ${reduction}`);
  });
}

// A loss of (labels, predictions): `losses(labels, predictions)` then the weighted reduction.
function pairLoss(name, labels, predictions, weights, reduction, losses) {
  return withTensors(name, [[labels, 'labels'], [predictions, 'predictions'], [weights, 'weights']],
    (l, p, w) => {
      assertShapesMatch(l.shape, p.shape, `Error in ${name}: `);
      return computeWeightedLoss(losses(l, p), w, reduction);
    });
}

const absoluteDifference = (labels, predictions, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('absoluteDifference', labels, predictions, weights, reduction, (l, p) => elementwise.abs(elementwise.sub(l, p)));

const meanSquaredError = (labels, predictions, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('meanSquaredError', labels, predictions, weights, reduction, (l, p) => elementwise.squaredDifference(l, p));

const hingeLoss = (labels, predictions, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('hingeLoss', labels, predictions, weights, reduction, (l, p) => {
    const E = elementwise;
    const one = scalar(1);
    return E.relu(E.sub(one, E.mul(E.sub(E.mul(scalar(2), l), one), p)));
  });

const huberLoss = (labels, predictions, weights, delta = 1.0, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('huberLoss', labels, predictions, weights, reduction, (l, p) => {
    const E = elementwise;
    const d = scalar(delta);
    const error = E.abs(E.sub(p, l));
    const quadratic = E.minimum(error, d);
    const linear = E.sub(error, quadratic);
    return E.add(E.mul(scalar(0.5), E.square(quadratic)), E.mul(d, linear));
  });

const logLoss = (labels, predictions, weights, epsilon = 1e-7, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('logLoss', labels, predictions, weights, reduction, (l, p) => {
    const E = elementwise;
    const one = scalar(1);
    const eps = scalar(epsilon);
    const l1 = E.neg(E.mul(l, E.log(E.add(p, eps))));
    const l2 = E.mul(E.sub(one, l), E.log(E.add(E.sub(one, p), eps)));
    return E.sub(l1, l2);
  });

function cosineDistance(labels, predictions, axis, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) {
  return pairLoss('cosineDistance', labels, predictions, weights, reduction,
    (l, p) => elementwise.sub(scalar(1), reduce.sum(elementwise.mul(l, p), axis, true)));
}

function sigmoidCrossEntropy(multiClassLabels, logits, weights, labelSmoothing = 0,
  reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) {
  const args = [[multiClassLabels, 'multiClassLabels'], [logits, 'logits'], [weights, 'weights']];
  return withTensors('sigmoidCrossEntropy', args, (labels, z, w) => {
    const E = elementwise;
    assertShapesMatch(labels.shape, z.shape, 'Error in sigmoidCrossEntropy: ');
    let y = labels;
    if (labelSmoothing > 0) {
      const s = scalar(labelSmoothing);
      y = E.add(E.mul(y, E.sub(scalar(1), s)), E.mul(scalar(0.5), s));
    }
    // max(z, 0) - z y + log(1 + e^-|z|)
    const losses = E.add(E.sub(E.relu(z), E.mul(z, y)), E.log1p(E.exp(E.neg(E.abs(z)))));
    return computeWeightedLoss(losses, w, reduction);
  });
}

function softmaxCrossEntropy(onehotLabels, logits, weights, labelSmoothing = 0,
  reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) {
  const args = [[onehotLabels, 'onehotLabels'], [logits, 'logits'], [weights, 'weights']];
  return withTensors('softmaxCrossEntropy', args, (labels, z, w) => {
    const E = elementwise;
    const R = reduce;
    assertShapesMatch(labels.shape, z.shape, 'Error in softmaxCrossEntropy: ');
    let y = labels;
    if (labelSmoothing > 0) {
      const s = scalar(labelSmoothing);
      y = E.add(E.mul(y, E.sub(scalar(1), s)), E.div(s, scalar(y.shape[1])));
    }
    const dim = z.rank - 1;
    const logResult = E.sub(E.cast(z, 'float32'), R.logSumExp(z, [dim], true));
    const losses = R.sum(E.neg(E.mul(logResult, y)), [dim]);
    return computeWeightedLoss(losses, w, reduction);
  });
}

const losses = {
  absoluteDifference, computeWeightedLoss, cosineDistance, hingeLoss, huberLoss, logLoss,
  meanSquaredError, sigmoidCrossEntropy, softmaxCrossEntropy,
};

module.exports = { losses, Reduction };
