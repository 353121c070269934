'use strict';
// tf.metrics: tfjs-layers 4.22's metrics (metrics.ts and the losses they reuse, losses.ts).
// Each reads its arguments as tfjs's composition reads them (the TensorLike ones it converts,
// with the op and argument names of the op that converts them; the reads of `.shape`/`.dtype`
// that fail on a TensorLike one) and makes one native call: the metric or loss of
// crates/layers (metrics.rs, losses.rs), the functions tfjs-layers' compile uses by name too.
// The call runs in a scope, so the composition's intermediates go and its result stays (tfjs's
// sparseCategoricalAccuracy leaves its intermediates to the caller's scope).
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { tidy } = require('../engine');
const { withOne, withMany } = require('./args');
const { convertToTensor } = require('../convert');

// The per-sample values of crates/layers' loss or metric `name`.
const lossOf = (name, yTrue, yPred) => tidy(() => wrap(native.lossValues(name, yTrue.id, yPred.id)));
const metricOf = (name, yTrue, yPred) =>
  tidy(() => wrap(native.metricValues(name, yTrue.id, yPred.id)));

const isTensor = (x) => x instanceof Tensor;

// ------------------------------------------------------------------------------------------
// losses.ts

// tfjs: mean(square(sub(yPred, yTrue)), -1), mean(abs(sub(yPred, yTrue)), -1).
const meanSquaredError = (yTrue, yPred) => withMany('sub',
  [[yPred, 'a', 'numeric'], [yTrue, 'b', 'numeric']], ([p, t]) => lossOf('meanSquaredError', t, p));

const meanAbsoluteError = (yTrue, yPred) => withMany('sub',
  [[yPred, 'a', 'numeric'], [yTrue, 'b', 'numeric']], ([p, t]) => lossOf('meanAbsoluteError', t, p));

// tfjs: sub(yTrue, yPred) first.
const meanAbsolutePercentageError = (yTrue, yPred) => withMany('sub',
  [[yTrue, 'a', 'numeric'], [yPred, 'b', 'numeric']],
  ([t, p]) => lossOf('meanAbsolutePercentageError', t, p));

// tfjs: clipByValue(yPred) converts the predictions; sigmoidCrossEntropyWithLogits compares
// the labels' shape (undefined for a TensorLike) with the logits', then mul(logits, labels)
// checks the labels' dtype.
function binaryCrossentropy(yTrue, yPred) {
  return withOne(yPred, 'x', 'clipByValue', 'numeric', (p) => {
    const same = isTensor(yTrue) && yTrue.rank === p.rank && yTrue.shape.every((d, i) => d === p.shape[i]);
    if (!same) {
      throw new Error('logits and labels must have the same shape, but got shapes ' +
        `${JSON.stringify(yTrue.shape)} and ${JSON.stringify(p.shape)}`);
    }
    convertToTensor(yTrue, 'b', 'mul');
    return lossOf('binaryCrossentropy', yTrue, p);
  });
}

// tfjs: reads output.shape.length, sums the output (a numeric tensor), then
// cast(target, 'float32') converts the labels.
function categoricalCrossentropy(target, output) {
  if (!isTensor(output)) void output.shape.length;
  convertToTensor(output, 'x', 'sum');
  return withOne(target, 'x', 'cast', 'numeric', (t) => lossOf('categoricalCrossentropy', t, output));
}

// tfjs: l2Normalize reads each argument's dtype and casts it when not float32 (cast converts
// it), the labels first.
function cosineProximity(yTrue, yPred) {
  void yTrue.dtype;
  return withOne(yTrue, 'x', 'cast', 'numeric', (t) => {
    void yPred.dtype;
    return withOne(yPred, 'x', 'cast', 'numeric', (p) => lossOf('cosineProximity', t, p));
  });
}

// ------------------------------------------------------------------------------------------
// metrics.ts

// tfjs: onesLike(yPred) converts the predictions, then cast(..., yTrue.dtype).
function binaryAccuracy(yTrue, yPred) {
  return withOne(yPred, 'x', 'onesLike', 'numeric', (p) => {
    if (!isTensor(yTrue)) throw new Error(`Failed to cast to unknown dtype ${yTrue.dtype}`);
    if (yTrue.dtype === 'string') throw new Error('Only strings can be casted to strings');
    return metricOf('binaryAccuracy', yTrue, p);
  });
}

// tfjs: argMax(yTrue), argMax(yPred).
const categoricalAccuracy = (yTrue, yPred) => withMany('argMax',
  [[yTrue, 'x', 'numeric'], [yPred, 'x', 'numeric']],
  ([t, p]) => metricOf('categoricalAccuracy', t, p));

// tfjs: equal(yTrue, 1), equal(yPred, 1).
const precision = (yTrue, yPred) => withMany('equal',
  [[yTrue, 'a', 'string_or_numeric'], [yPred, 'a', 'string_or_numeric']],
  ([t, p]) => metricOf('precision', t, p));

const recall = (yTrue, yPred) => withMany('equal',
  [[yTrue, 'a', 'string_or_numeric'], [yPred, 'a', 'string_or_numeric']],
  ([t, p]) => metricOf('recall', t, p));

// tfjs: squeezes the labels' last axis when yTrue.rank === yPred.rank (both undefined for
// TensorLikes: squeeze converts the labels, then its axis check fails on NaN), argMax(yPred)
// converts the predictions, then they are cast to yTrue.dtype (undefined for a TensorLike);
// a TensorLike yPred has no rank there, so a Tensor yTrue is not squeezed then.
function sparseCategoricalAccuracy(yTrue, yPred) {
  const squeezes = yTrue.rank === yPred.rank;
  if (!isTensor(yTrue)) {
    if (squeezes) {
      return withOne(yTrue, 'x', 'squeeze', 'string_or_numeric', (t) => {
        throw new Error(`All values in axis param must be in range [-${t.rank}, ${t.rank}) but got axis NaN`);
      });
    }
    return withOne(yPred, 'x', 'argMax', 'numeric', () => {
      throw new Error(`Failed to cast to unknown dtype ${yTrue.dtype}`);
    });
  }
  if (isTensor(yPred)) {
    // The squeeze's error, where there is one, comes before argMax's dtype check.
    if (!(squeezes && yTrue.shape[yTrue.rank - 1] !== 1)) convertToTensor(yPred, 'x', 'argMax');
    return metricOf('sparseCategoricalAccuracy', yTrue, yPred);
  }
  return withOne(yPred, 'x', 'argMax', 'numeric',
    (p) => tidy(() => wrap(native.sparseCategoricalAccuracy(yTrue.id, p.id, false))));
}

// tfjs composes it of Tensor methods (yTrue.sub(yPred) ...): yTrue must be a tensor, yPred
// may be a TensorLike.
function r2Score(yTrue, yPred) {
  if (!isTensor(yTrue)) throw new TypeError('yTrue.sub is not a function');
  return withMany('sub', [[yPred, 'b', 'numeric']], ([p]) => metricOf('r2Score', yTrue, p));
}

// The order of tfjs's export list (Object.keys(tf.metrics)); each is its own function, as in
// tfjs (tf.metrics.MSE !== tf.metrics.mse).
const metrics = {
  MAPE: (yTrue, yPred) => meanAbsolutePercentageError(yTrue, yPred),
  MSE: (yTrue, yPred) => meanSquaredError(yTrue, yPred),
  binaryAccuracy: (yTrue, yPred) => binaryAccuracy(yTrue, yPred),
  binaryCrossentropy: (yTrue, yPred) => binaryCrossentropy(yTrue, yPred),
  categoricalAccuracy: (yTrue, yPred) => categoricalAccuracy(yTrue, yPred),
  categoricalCrossentropy: (yTrue, yPred) => categoricalCrossentropy(yTrue, yPred),
  cosineProximity: (yTrue, yPred) => cosineProximity(yTrue, yPred),
  mape: (yTrue, yPred) => meanAbsolutePercentageError(yTrue, yPred),
  meanAbsoluteError: (yTrue, yPred) => meanAbsoluteError(yTrue, yPred),
  meanAbsolutePercentageError: (yTrue, yPred) => meanAbsolutePercentageError(yTrue, yPred),
  meanSquaredError: (yTrue, yPred) => meanSquaredError(yTrue, yPred),
  mse: (yTrue, yPred) => meanSquaredError(yTrue, yPred),
  precision: (yTrue, yPred) => precision(yTrue, yPred),
  r2Score: (yTrue, yPred) => r2Score(yTrue, yPred),
  recall: (yTrue, yPred) => recall(yTrue, yPred),
  sparseCategoricalAccuracy: (yTrue, yPred) => sparseCategoricalAccuracy(yTrue, yPred),
};

module.exports = { metrics };
