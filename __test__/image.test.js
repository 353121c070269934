'use strict';
// tf.image against @tensorflow/tfjs: resizes with every corner mode, up and down, rank 3 and
// 4, int32 and float32, and tfjs's argument errors.
const { cases } = require('./helpers/ops');

const IMG = (tf) => tf.range(0, 2 * 3 * 4 * 2).reshape([2, 3, 4, 2]).mul(0.5).sub(3);
const IMG3 = (tf) => tf.range(0, 4 * 5 * 3).reshape([4, 5, 3]);
const list = [];
for (const op of ['resizeNearestNeighbor', 'resizeBilinear']) {
  for (const [mode, align, half] of [['default', false, false], ['alignCorners', true, false], ['halfPixelCenters', false, true]]) {
    list.push([`${op} up ${mode}`, (tf) => tf.image[op](IMG(tf), [5, 7], align, half)]);
    list.push([`${op} down ${mode}`, (tf) => tf.image[op](IMG(tf), [2, 3], align, half)]);
    list.push([`${op} rank 3 ${mode}`, (tf) => tf.image[op](IMG3(tf), [7, 2], align, half)]);
    list.push([`${op} to 1x1 ${mode}`, (tf) => tf.image[op](IMG3(tf), [1, 1], align, half)]);
  }
  list.push([`${op} int32`, (tf) => tf.image[op](tf.cast(IMG3(tf), 'int32'), [6, 6])]);
  list.push([`${op} rank 2`, (tf) => tf.image[op](tf.ones([2, 2]), [3, 3])]);
  list.push([`${op} bad size`, (tf) => tf.image[op](IMG(tf), [3])]);
  list.push([`${op} both modes`, (tf) => tf.image[op](IMG(tf), [3, 3], true, true)]);
}
list.push(['resizeNearestNeighbor bool', (tf) => tf.image.resizeNearestNeighbor(tf.ones([2, 2, 1], 'bool'), [3, 3])]);
list.push(['flipLeftRight', (tf) => tf.image.flipLeftRight(IMG(tf))]);
list.push(['flipLeftRight int32', (tf) => tf.image.flipLeftRight(tf.ones([1, 2, 3, 1], 'int32'))]);
list.push(['flipLeftRight rank 3', (tf) => tf.image.flipLeftRight(IMG3(tf))]);
cases('image', list);
