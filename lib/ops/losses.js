'use strict';
// tf.losses: each loss composed of ops as tfjs 4.22 composes it, then reduced by
// computeWeightedLoss (crates/core/src/ops/losses.rs). This converts the arguments.
const native = require('../native');
const { wrap } = require('../tensor');
const { convertToTensor } = require('../convert');
const { axesArg } = require('./args');

const Reduction = Object.freeze({ NONE: 0, MEAN: 1, SUM: 2, SUM_BY_NONZERO_WEIGHTS: 3 });

// Converts the named TensorLike arguments (in order; weights only when given), runs `f` on
// their ids (weights: undefined when not given), then disposes the conversions.
function withTensors(fnName, args, f) {
  const temps = [];
  try {
    const ids = args.map(([x, name]) => {
      if (name === 'weights' && x == null) return undefined;
      const t = convertToTensor(x, name, fnName, 'numeric');
      if (t !== x) temps.push(t);
      return t.id;
    });
    return wrap(f(...ids));
  } finally {
    for (const t of temps) t.dispose();
  }
}

function computeWeightedLoss(losses, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) {
  return withTensors('computeWeightedLoss', [[losses, 'losses'], [weights, 'weights']],
    (l, w) => native.computeWeightedLoss(l, w, Number(reduction)));
}

// A loss of (labels, predictions), then the weighted reduction.
function pairLoss(name, labels, predictions, weights, reduction, param = 0, axis = null) {
  return withTensors(name, [[labels, 'labels'], [predictions, 'predictions'], [weights, 'weights']],
    (l, p, w) => native.pairLoss(name, l, p, w, Number(reduction), Number(param), axesArg(axis)));
}

const absoluteDifference = (labels, predictions, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('absoluteDifference', labels, predictions, weights, reduction);

const meanSquaredError = (labels, predictions, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('meanSquaredError', labels, predictions, weights, reduction);

const hingeLoss = (labels, predictions, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('hingeLoss', labels, predictions, weights, reduction);

const huberLoss = (labels, predictions, weights, delta = 1.0, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('huberLoss', labels, predictions, weights, reduction, delta);

const logLoss = (labels, predictions, weights, epsilon = 1e-7, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('logLoss', labels, predictions, weights, reduction, epsilon);

const cosineDistance = (labels, predictions, axis, weights, reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) =>
  pairLoss('cosineDistance', labels, predictions, weights, reduction, 0, axis);

function sigmoidCrossEntropy(multiClassLabels, logits, weights, labelSmoothing = 0,
  reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) {
  const args = [[multiClassLabels, 'multiClassLabels'], [logits, 'logits'], [weights, 'weights']];
  return withTensors('sigmoidCrossEntropy', args,
    (y, z, w) => native.crossEntropyLoss(false, y, z, w, Number(labelSmoothing), Number(reduction)));
}

function softmaxCrossEntropy(onehotLabels, logits, weights, labelSmoothing = 0,
  reduction = Reduction.SUM_BY_NONZERO_WEIGHTS) {
  const args = [[onehotLabels, 'onehotLabels'], [logits, 'logits'], [weights, 'weights']];
  return withTensors('softmaxCrossEntropy', args,
    (y, z, w) => native.crossEntropyLoss(true, y, z, w, Number(labelSmoothing), Number(reduction)));
}

const losses = {
  absoluteDifference, computeWeightedLoss, cosineDistance, hingeLoss, huberLoss, logLoss,
  meanSquaredError, sigmoidCrossEntropy, softmaxCrossEntropy,
};

module.exports = { losses, Reduction };
