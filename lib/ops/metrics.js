'use strict';
// tf.metrics: tfjs-layers 4.22's metrics (metrics.ts and the losses they reuse, losses.ts),
// each composed of the same ops in the same order, so values, dtypes and error texts match.
// Everything runs in tidy, so no intermediate outlives the call (tfjs's
// sparseCategoricalAccuracy leaves its squeeze/argMax/cast intermediates to the caller's scope).

// The ops the metrics are composed of, under the names tf gives them.
const T = Object.assign({}, require('./creation'), require('./elementwise'), require('./reduce'),
  require('./layout'), { tidy: require('../engine').tidy, util: require('../util').util });

// tfjs-layers' backend epsilon: 1e-7 for float32 backends (the only kind tidytensor has).
const EPSILON = 1e-7;

// K.square in tfjs-layers is x * x.
const square = (x) => T.mul(x, x);

// ------------------------------------------------------------------------------------------
// losses.ts

function l2Normalize(x, axis) {
  return T.tidy(() => {
    if (x.dtype !== 'float32') x = T.cast(x, 'float32');
    const squareSum = T.sum(square(x), axis, true);
    const epsilonTensor = T.fill(squareSum.shape, EPSILON);
    const norm = T.sqrt(T.maximum(squareSum, epsilonTensor));
    return T.div(x, norm);
  });
}

function meanSquaredError(yTrue, yPred) {
  return T.tidy(() => T.mean(square(T.sub(yPred, yTrue)), -1));
}

function meanAbsoluteError(yTrue, yPred) {
  return T.tidy(() => T.mean(T.abs(T.sub(yPred, yTrue)), -1));
}

function meanAbsolutePercentageError(yTrue, yPred) {
  return T.tidy(() => {
    const diff = T.sub(yTrue, yPred);
    const clippedTrue = T.clipByValue(T.abs(yTrue), EPSILON, Number.MAX_VALUE);
    const absResult = T.abs(T.div(diff, clippedTrue));
    return T.mul(100, T.mean(absResult, -1));
  });
}

function categoricalCrossentropy(target, output, fromLogits = false) {
  return T.tidy(() => {
    if (fromLogits) {
      output = T.softmax(output);
    } else {
      // Scale the predictions so that each sample's class probabilities sum to 1.
      const outputSum = T.sum(output, output.shape.length - 1, true);
      output = T.div(output, outputSum);
    }
    output = T.clipByValue(output, EPSILON, 1 - EPSILON);
    return T.neg(T.sum(T.mul(T.cast(target, 'float32'), T.log(output)),
      output.shape.length - 1));
  });
}

function sigmoidCrossEntropyWithLogits(labels, logits) {
  if (!T.util.arraysEqual(labels.shape, logits.shape)) {
    throw new Error('logits and labels must have the same shape, but got shapes ' +
      `${JSON.stringify(labels.shape)} and ${JSON.stringify(logits.shape)}`);
  }
  return T.tidy(() => {
    // max(x, 0) - x * z + log(1 + exp(-abs(x))), stable for both signs of x.
    const reluLogits = T.relu(logits);
    const negAbsLogits = T.neg(T.abs(logits));
    return T.add(T.sub(reluLogits, T.mul(logits, labels)), T.log1p(T.exp(negAbsLogits)));
  });
}

function binaryCrossentropy(yTrue, yPred) {
  return T.tidy(() => {
    let y = T.clipByValue(yPred, EPSILON, 1 - EPSILON);
    y = T.log(T.div(y, T.sub(1, y)));
    return T.mean(sigmoidCrossEntropyWithLogits(yTrue, y), -1);
  });
}

function cosineProximity(yTrue, yPred) {
  return T.tidy(() => {
    const trueNormalized = l2Normalize(yTrue, -1);
    const predNormalized = l2Normalize(yPred, -1);
    const trueXPred = T.mul(trueNormalized, predNormalized);
    return T.neg(T.sum(trueXPred, -1));
  });
}

// ------------------------------------------------------------------------------------------
// metrics.ts

function binaryAccuracy(yTrue, yPred) {
  return T.tidy(() => {
    const threshold = T.mul(0.5, T.onesLike(yPred));
    const yPredThresholded = T.cast(T.greater(yPred, threshold), yTrue.dtype);
    return T.mean(T.equal(yTrue, yPredThresholded), -1);
  });
}

function categoricalAccuracy(yTrue, yPred) {
  return T.tidy(() => T.cast(T.equal(T.argMax(yTrue, -1), T.argMax(yPred, -1)), 'float32'));
}

// The number of places where yTrue is `t` and yPred is `p`, as a float32 scalar.
function countWhere(yTrue, yPred, t, p) {
  return T.tidy(() => T.cast(T.sum(T.logicalAnd(T.equal(yTrue, t), T.equal(yPred, p))),
    'float32'));
}

// tp / (tp + other), 0 where the denominator is 0.
function ratio(tp, other) {
  const denominator = T.add(tp, other);
  return T.cast(T.where(T.greater(denominator, 0), T.div(tp, denominator), 0), 'float32');
}

function precision(yTrue, yPred) {
  return T.tidy(() => {
    const tp = countWhere(yTrue, yPred, 1, 1);
    const fp = countWhere(yTrue, yPred, 0, 1);
    return ratio(tp, fp);
  });
}

function recall(yTrue, yPred) {
  return T.tidy(() => {
    const tp = countWhere(yTrue, yPred, 1, 1);
    const fn = countWhere(yTrue, yPred, 1, 0);
    return ratio(tp, fn);
  });
}

function sparseCategoricalAccuracy(yTrue, yPred) {
  return T.tidy(() => {
    if (yTrue.rank === yPred.rank) yTrue = T.squeeze(yTrue, [yTrue.rank - 1]);
    yPred = T.argMax(yPred, -1);
    if (yPred.dtype !== yTrue.dtype) yPred = T.cast(yPred, yTrue.dtype);
    return T.cast(T.equal(yTrue, yPred), 'float32');
  });
}

function r2Score(yTrue, yPred) {
  return T.tidy(() => {
    const sumSquaresResiduals = yTrue.sub(yPred).square().sum();
    const sumSquares = yTrue.sub(yTrue.mean()).square().sum();
    return T.scalar(1).sub(sumSquaresResiduals.div(sumSquares));
  });
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
