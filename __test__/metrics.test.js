'use strict';
// tf.metrics against @tensorflow/tfjs (tfjs-layers' metrics): every metric and alias on float32,
// int32 and bool inputs of several ranks, TensorLike arguments, and the errors tfjs raises;
// values, shapes, dtypes, memory counts and leaks.
const { describe, it } = require('node:test');
const { cases } = require('./helpers/ops');
const { tt, assert } = require('./helpers/setup');

const YT = (tf) => tf.tensor2d([[0, 1, 1], [1, 0, 0.5]]);
const YP = (tf) => tf.tensor2d([[0.1, 0.8, 0.6], [0.3, 0.2, 0.9]]);
// One-hot labels and class scores, 3 samples of 4 classes.
const OH = (tf) => tf.tensor2d([[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]]);
const SC = (tf) => tf.tensor2d([[0.1, 0.2, 0.6, 0.1], [0.2, 0.5, 0.2, 0.1], [0.3, 0.4, 0.2, 0.1]]);
// Binary labels and 0/1 predictions for precision/recall.
const BL = (tf) => tf.tensor1d([1, 0, 1, 1, 0, 0, 1, 0]);
const BP = (tf) => tf.tensor1d([1, 1, 0, 1, 0, 1, 1, 0]);
const R3 = (tf, s = 1) => tf.tensor3d([[[1, -2], [3, 0.5]], [[-1, 4], [2, 2]]].map(
  (m) => m.map((r) => r.map((v) => v * s))));

const ELEMENTWISE = ['MAPE', 'MSE', 'mape', 'mse', 'meanAbsoluteError',
  'meanAbsolutePercentageError', 'meanSquaredError', 'cosineProximity', 'binaryCrossentropy',
  'categoricalCrossentropy', 'binaryAccuracy', 'categoricalAccuracy'];

const list = [];
for (const m of ELEMENTWISE) {
  list.push([`${m}`, (tf) => tf.metrics[m](YT(tf), YP(tf))]);
  list.push([`${m} 1-D`, (tf) => tf.metrics[m](tf.tensor1d([0, 1, 0.5]), tf.tensor1d([0.2, 0.7, 0.5]))]);
  list.push([`${m} 3-D`, (tf) => tf.metrics[m](tf.abs(R3(tf, 0.2)), tf.sigmoid(R3(tf)))]);
  list.push([`${m} one-hot`, (tf) => tf.metrics[m](OH(tf), SC(tf))]);
  list.push([`${m} int32 labels`, (tf) => tf.metrics[m](tf.cast(OH(tf), 'int32'), SC(tf))]);
  list.push([`${m} broadcast`, (tf) => tf.metrics[m](tf.tensor2d([[0, 1, 0.5]]), YP(tf))]);
  list.push([`${m} arrays`, (tf) => tf.metrics[m]([[0, 1], [1, 0]], [[0.3, 0.6], [0.9, 0.4]])]);
  list.push([`${m} shapes differ`, (tf) => tf.metrics[m](YT(tf), tf.ones([3, 2]))]);
}
list.push(['mape zero labels', (tf) => tf.metrics.mape(tf.tensor1d([0, 2, -4]), tf.tensor1d([1, 1, -3]))]);
list.push(['mse int32', (tf) => tf.metrics.mse(tf.tensor1d([1, 2, 3], 'int32'), tf.tensor1d([3, 2, 0], 'int32'))]);
list.push(['binaryCrossentropy extremes', (tf) => tf.metrics.binaryCrossentropy(tf.tensor1d([0, 1, 1, 0]), tf.tensor1d([0, 1, 0, 1]))]);
list.push(['binaryCrossentropy bool labels', (tf) => tf.metrics.binaryCrossentropy(tf.tensor1d([true, false]), tf.tensor1d([0.9, 0.4]))]);
list.push(['categoricalCrossentropy unnormalised', (tf) => tf.metrics.categoricalCrossentropy(OH(tf), tf.mul(SC(tf), 7))]);
list.push(['binaryAccuracy int32 labels', (tf) => tf.metrics.binaryAccuracy(tf.tensor1d([1, 0, 1], 'int32'), tf.tensor1d([0.7, 0.5, 0.2]))]);
list.push(['binaryAccuracy bool labels', (tf) => tf.metrics.binaryAccuracy(tf.tensor1d([true, false, true]), tf.tensor1d([0.7, 0.5, 0.2]))]);
list.push(['categoricalAccuracy ties', (tf) => tf.metrics.categoricalAccuracy(tf.tensor2d([[1, 0, 0], [0, 0, 1]]), tf.tensor2d([[0.4, 0.4, 0.2], [0.3, 0.3, 0.3]]))]);
list.push(['cosineProximity zeros', (tf) => tf.metrics.cosineProximity(tf.zeros([2, 3]), YP(tf))]);
list.push(['cosineProximity int32', (tf) => tf.metrics.cosineProximity(tf.tensor2d([[1, 2], [3, -4]], [2, 2], 'int32'), tf.tensor2d([[2, 1], [3, 4]], [2, 2], 'int32'))]);

for (const m of ['precision', 'recall']) {
  list.push([`${m}`, (tf) => tf.metrics[m](BL(tf), BP(tf))]);
  list.push([`${m} 2-D`, (tf) => tf.metrics[m](tf.reshape(BL(tf), [2, 4]), tf.reshape(BP(tf), [2, 4]))]);
  list.push([`${m} int32`, (tf) => tf.metrics[m](tf.cast(BL(tf), 'int32'), tf.cast(BP(tf), 'int32'))]);
  list.push([`${m} bool`, (tf) => tf.metrics[m](tf.cast(BL(tf), 'bool'), tf.cast(BP(tf), 'bool'))]);
  list.push([`${m} no positives`, (tf) => tf.metrics[m](tf.zeros([4]), tf.zeros([4]))]);
  list.push([`${m} fractional predictions`, (tf) => tf.metrics[m](YT(tf), YP(tf))]);
  list.push([`${m} broadcast`, (tf) => tf.metrics[m](tf.tensor2d([[1], [0]]), tf.tensor2d([[1, 0, 1], [1, 1, 0]]))]);
  list.push([`${m} arrays`, (tf) => tf.metrics[m]([1, 0, 1], [1, 1, 1])]);
  list.push([`${m} shapes differ`, (tf) => tf.metrics[m](BL(tf), tf.ones([3]))]);
}

list.push(['sparseCategoricalAccuracy', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor1d([2, 1, 1]), SC(tf))]);
list.push(['sparseCategoricalAccuracy int32', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor1d([2, 1, 1], 'int32'), SC(tf))]);
list.push(['sparseCategoricalAccuracy same rank', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor2d([[2], [0], [1]]), SC(tf))]);
list.push(['sparseCategoricalAccuracy same rank int32', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor2d([[2], [0], [1]], [3, 1], 'int32'), SC(tf))]);
list.push(['sparseCategoricalAccuracy 3-D', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor2d([[1, 0], [1, 1]]), tf.sigmoid(R3(tf)))]);
list.push(['sparseCategoricalAccuracy same rank not 1', (tf) => tf.metrics.sparseCategoricalAccuracy(OH(tf), SC(tf))]);
list.push(['sparseCategoricalAccuracy rank too low', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.scalar(1), tf.tensor1d([0.2, 0.8]))]);
// tfjs: yTrue.rank === yPred.rank (both undefined), so squeeze(labels, [NaN]) fails its range check.
list.push(['sparseCategoricalAccuracy arrays', (tf) => tf.metrics.sparseCategoricalAccuracy([1, 0], [[0.2, 0.8], [0.6, 0.4]])]);
list.push(['sparseCategoricalAccuracy array labels', (tf) => tf.metrics.sparseCategoricalAccuracy([1, 0], SC(tf))]);
list.push(['sparseCategoricalAccuracy array predictions', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor1d([2, 1, 1]), SC(tf).arraySync())]);
list.push(['sparseCategoricalAccuracy string predictions', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor1d([1, 0]), tf.tensor2d([['a', 'b'], ['c', 'd']]))]);
list.push(['sparseCategoricalAccuracy string predictions, squeeze fails first', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor1d([1, 0]), tf.tensor1d(['a', 'b']))]);
list.push(['sparseCategoricalAccuracy null predictions', (tf) => tf.metrics.sparseCategoricalAccuracy(tf.tensor1d([1, 0]), null)]);

list.push(['r2Score', (tf) => tf.metrics.r2Score(YT(tf), YP(tf))]);
list.push(['r2Score 1-D', (tf) => tf.metrics.r2Score(tf.tensor1d([3, -0.5, 2, 7]), tf.tensor1d([2.5, 0, 2, 8]))]);
list.push(['r2Score perfect', (tf) => tf.metrics.r2Score(tf.tensor1d([1, 2, 3]), tf.tensor1d([1, 2, 3]))]);
list.push(['r2Score constant labels', (tf) => tf.metrics.r2Score(tf.tensor1d([2, 2, 2]), tf.tensor1d([1, 2, 3]))]);
list.push(['r2Score int32', (tf) => tf.metrics.r2Score(tf.tensor1d([1, 2, 4], 'int32'), tf.tensor1d([1, 3, 3], 'int32'))]);
list.push(['r2Score array prediction', (tf) => tf.metrics.r2Score(tf.tensor1d([1, 2, 4]), [1, 3, 3])]);
list.push(['r2Score arrays', (tf) => tf.metrics.r2Score([1, 2, 4], [1, 3, 3])]);
list.push(['r2Score shapes differ', (tf) => tf.metrics.r2Score(tf.tensor1d([1, 2, 4]), tf.tensor1d([1, 3]))]);

// How each metric reads arguments that are not numeric tensors (string tensors, null,
// numbers): tfjs's texts, from the op that first converts or reads each one.
for (const m of [...ELEMENTWISE, 'precision', 'recall']) {
  list.push([`${m} string labels`, (tf) => tf.metrics[m](tf.tensor1d(['a', 'b']), tf.tensor1d([0.3, 0.6]))]);
  list.push([`${m} string predictions`, (tf) => tf.metrics[m](tf.tensor1d([1, 0]), tf.tensor1d(['a', 'b']))]);
  list.push([`${m} null labels`, (tf) => tf.metrics[m](null, tf.tensor1d([0.3, 0.6]))]);
  list.push([`${m} null predictions`, (tf) => tf.metrics[m](tf.tensor1d([1, 0]), null)]);
  list.push([`${m} number labels`, (tf) => tf.metrics[m](1, tf.tensor1d([0.3, 0.6]))]);
  list.push([`${m} scalars`, (tf) => tf.metrics[m](tf.scalar(1), tf.scalar(0.3))]);
  list.push([`${m} empty`, (tf) => tf.metrics[m](tf.zeros([0, 3]), tf.zeros([0, 3]))]);
}

// Gradients through the metrics (the native compositions record on the tape).
for (const m of ['MAPE', 'MSE', 'meanAbsoluteError', 'binaryCrossentropy', 'categoricalCrossentropy',
  'cosineProximity', 'r2Score']) {
  list.push([`${m} gradient`, (tf) => tf.grad((p) => tf.sum(tf.metrics[m](YT(tf), p)))(YP(tf))]);
}

cases('metrics', list);

// Outside any scope: a metric adds its result and nothing else (its intermediates go).
describe('metrics: memory outside tidy', () => {
  for (const m of Object.keys(tt.metrics)) {
    it(m, () => {
      const sparse = m === 'sparseCategoricalAccuracy';
      const yTrue = sparse ? tt.tensor1d([2, 1, 1]) : OH(tt);
      const yPred = SC(tt);
      const before = tt.memory();
      const r = tt.metrics[m](yTrue, yPred);
      const during = tt.memory();
      assert.equal(during.numTensors - before.numTensors, 1, 'one new tensor');
      assert.equal(during.numBytes - before.numBytes, r.size * 4, 'its bytes only');
      tt.dispose([r, yTrue, yPred]);
      assert.equal(tt.memory().numTensors, before.numTensors - 2, 'nothing left');
    });
  }
});

cases('metrics: namespace', [
  ['every tfjs metric exists', (tf) => Object.keys(tf.metrics)],
  ['aliases are distinct functions', (tf) => [tf.metrics.mse === tf.metrics.MSE,
    tf.metrics.mape === tf.metrics.MAPE, tf.metrics.mse.length, tf.metrics.r2Score.name]],
]);
