'use strict';
// tf.losses against @tensorflow/tfjs: every loss, with and without weights, every Reduction,
// label smoothing, and tfjs's argument errors; values, shapes, memory counts and leaks.
const { cases } = require('./helpers/ops');

const L = (tf) => tf.tensor2d([[0, 1, 1], [1, 0, 0.5]]);
const P = (tf) => tf.tensor2d([[0.1, 0.8, 0.6], [0.3, 0.2, 0.9]]);
const Z = (tf) => tf.tensor2d([[-1, 2, 0.5], [3, -0.5, 1]]);
const W = (tf) => tf.tensor2d([[1], [0]]);
const R = ['NONE', 'MEAN', 'SUM', 'SUM_BY_NONZERO_WEIGHTS'];

const list = [];
for (const loss of ['absoluteDifference', 'meanSquaredError', 'hingeLoss', 'huberLoss', 'logLoss']) {
  list.push([`${loss}`, (tf) => tf.losses[loss](L(tf), P(tf))]);
  list.push([`${loss} weights`, (tf) => tf.losses[loss](L(tf), P(tf), W(tf))]);
  list.push([`${loss} scalar weight`, (tf) => tf.losses[loss](L(tf), P(tf), 2)]);
  for (const red of R) {
    list.push([`${loss} weights ${red}`, (tf) => {
      const args = [L(tf), P(tf), W(tf)];
      if (loss === 'huberLoss' || loss === 'logLoss') args.push(undefined);
      return tf.losses[loss](...args, tf.Reduction[red]);
    }]);
  }
  list.push([`${loss} shapes differ`, (tf) => tf.losses[loss](L(tf), [1, 2])]);
  list.push([`${loss} arrays`, (tf) => tf.losses[loss]([1, 0], [0.5, 0.5])]);
  list.push([`${loss} bad labels`, (tf) => tf.losses[loss]({}, [0.5, 0.5])]);
}
list.push(['huberLoss delta', (tf) => tf.losses.huberLoss(L(tf), tf.mul(P(tf), 3), null, 0.5)]);
list.push(['logLoss epsilon', (tf) => tf.losses.logLoss(L(tf), P(tf), null, 0.1)]);
list.push(['cosineDistance', (tf) => tf.losses.cosineDistance(L(tf), P(tf), 1)]);
list.push(['cosineDistance weights NONE', (tf) => tf.losses.cosineDistance(L(tf), P(tf), 0, tf.ones([1, 3]), tf.Reduction.NONE)]);
for (const loss of ['sigmoidCrossEntropy', 'softmaxCrossEntropy']) {
  list.push([`${loss}`, (tf) => tf.losses[loss](L(tf), Z(tf))]);
  list.push([`${loss} weights`, (tf) => tf.losses[loss](L(tf), Z(tf), loss === 'softmaxCrossEntropy' ? [1, 0.5] : W(tf))]);
  list.push([`${loss} label smoothing`, (tf) => tf.losses[loss](L(tf), Z(tf), null, 0.2)]);
  for (const red of R) {
    list.push([`${loss} ${red}`, (tf) => tf.losses[loss](L(tf), Z(tf), null, 0, tf.Reduction[red])]);
  }
  list.push([`${loss} large logits`, (tf) => tf.losses[loss](L(tf), tf.mul(Z(tf), 100))]);
  list.push([`${loss} shapes differ`, (tf) => tf.losses[loss](L(tf), [1, 2])]);
}
list.push(['computeWeightedLoss', (tf) => tf.losses.computeWeightedLoss(P(tf), W(tf), tf.Reduction.MEAN)]);
list.push(['computeWeightedLoss unknown reduction', (tf) => tf.losses.computeWeightedLoss(P(tf), null, 7)]);
cases('losses', list);
