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

const BOXES = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]];
const SCORES = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];
cases('image.nonMaxSuppression', [
  ['basic', (tf) => tf.image.nonMaxSuppression(BOXES, SCORES, 3, 0.5, 0)],
  ['score threshold', (tf) => tf.image.nonMaxSuppression(BOXES, SCORES, 6, 0.5, 0.4)],
  ['flipped corners, ties by index', (tf) => tf.image.nonMaxSuppression([[1, 1, 0, 0], [0, 0, 1, 1], [0, 5, 1, 6]], [0.5, 0.5, 0.5], 3)],
  ['max larger than the boxes', (tf) => tf.image.nonMaxSuppression(BOXES, SCORES, 100)],
  ['zero max', (tf) => tf.image.nonMaxSuppression(BOXES, SCORES, 0)],
  ['with score, soft NMS', (tf) => tf.image.nonMaxSuppressionWithScore(BOXES, SCORES, 6, 0.5, 0, 0.5)],
  ['with score, hard', (tf) => tf.image.nonMaxSuppressionWithScore(BOXES, SCORES, 2, 0.5)],
  ['padded', (tf) => tf.image.nonMaxSuppressionPadded(BOXES, SCORES, 6, 0.5, 0.4, true)],
  ['padded without padding', (tf) => tf.image.nonMaxSuppressionPadded(BOXES, SCORES, 6, 0.5, 0.4)],
  ['bad iou', (tf) => tf.image.nonMaxSuppression(BOXES, SCORES, 3, 1.5)],
  ['bad boxes', (tf) => tf.image.nonMaxSuppression([[0, 0, 1]], [1], 3)],
  ['scores mismatch', (tf) => tf.image.nonMaxSuppression(BOXES, [1], 3)],
  ['int32 boxes', (tf) => tf.image.nonMaxSuppression(tf.tensor2d([[0, 0, 1, 1]], [1, 4], 'int32'), [1], 1)],
  ['bad sigma', (tf) => tf.image.nonMaxSuppressionWithScore(BOXES, SCORES, 3, 0.5, 0, 2)],
]);

cases('image color conversions', [
  ['grayscaleToRGB', (tf) => tf.image.grayscaleToRGB(tf.tensor3d([1, 2, 3, 4], [2, 2, 1]))],
  ['grayscaleToRGB int32 4-D', (tf) => tf.image.grayscaleToRGB(tf.ones([1, 2, 2, 1], 'int32'))],
  ['grayscaleToRGB bad last dim', (tf) => tf.image.grayscaleToRGB(tf.ones([2, 2, 3]))],
  ['rgbToGrayscale', (tf) => tf.image.rgbToGrayscale(tf.tensor3d([10, 20, 30, 255, 0, 128], [1, 2, 3]))],
  ['rgbToGrayscale int32', (tf) => tf.image.rgbToGrayscale(tf.tensor2d([10, 20, 30, 255, 0, 128], [2, 3], 'int32'))],
  ['rgbToGrayscale bad', (tf) => tf.image.rgbToGrayscale(tf.ones([3]))],
]);

const { describe, it } = require('node:test');

describe('image.nonMaxSuppressionAsync', () => {
  const { tt: tf, tfo, assert: a } = require('./helpers/setup');
  it('gives what the synchronous forms give, and frees its conversions', async () => {
    const before = tf.memory().numTensors;
    const outputs = [];
    for (const lib of [tf, tfo]) {
      const i = await lib.image.nonMaxSuppressionAsync(BOXES, SCORES, 3, 0.5, 0);
      const w = await lib.image.nonMaxSuppressionWithScoreAsync(BOXES, SCORES, 6, 0.5, 0, 0.5);
      const p = await lib.image.nonMaxSuppressionPaddedAsync(BOXES, SCORES, 6, 0.5, 0.4, true);
      const got = [i.arraySync(), w.selectedIndices.arraySync(), w.selectedScores.arraySync(),
        p.selectedIndices.arraySync(), p.validOutputs.arraySync()];
      lib.dispose([i, w.selectedIndices, w.selectedScores, p.selectedIndices, p.validOutputs]);
      outputs.push(JSON.stringify(got));
    }
    a.equal(outputs[0], outputs[1]);
    a.equal(tf.memory().numTensors, before);
    await a.rejects(tf.image.nonMaxSuppressionAsync(BOXES, [1], 3), /scores has incompatible shape/);
    a.equal(tf.memory().numTensors, before);
  });
});

const CROP_IMG = (tf) => tf.range(0, 2 * 4 * 5 * 2).reshape([2, 4, 5, 2]).mul(0.25);
cases('image.cropAndResize', [
  ['bilinear', (tf) => tf.image.cropAndResize(CROP_IMG(tf), [[0, 0, 1, 1], [0.2, 0.1, 0.7, 0.9]], [0, 1], [3, 4])],
  ['nearest', (tf) => tf.image.cropAndResize(CROP_IMG(tf), [[0, 0, 1, 1], [0.2, 0.1, 0.7, 0.9]], [1, 0], [3, 3], 'nearest')],
  ['flipped box', (tf) => tf.image.cropAndResize(CROP_IMG(tf), [[1, 1, 0, 0]], [0], [2, 2])],
  ['outside the image, extrapolation value', (tf) => tf.image.cropAndResize(CROP_IMG(tf), [[-0.5, -0.2, 1.5, 1.2]], [1], [4, 3], 'bilinear', 7)],
  ['crop size 1', (tf) => tf.image.cropAndResize(CROP_IMG(tf), [[0.1, 0.3, 0.6, 0.9]], [0], [1, 1])],
  ['int32 image', (tf) => tf.image.cropAndResize(tf.range(0, 16, 1, 'int32').reshape([1, 4, 4, 1]), [[0, 0, 1, 1]], [0], [2, 2])],
  ['no boxes', (tf) => tf.image.cropAndResize(CROP_IMG(tf), tf.zeros([0, 4]), tf.zeros([0], 'int32'), [2, 2])],
  ['bad method', (tf) => tf.image.cropAndResize(CROP_IMG(tf), [[0, 0, 1, 1]], [0], [2, 2], 'cubic')],
  ['rank 3 image', (tf) => tf.image.cropAndResize(tf.ones([4, 5, 2]), [[0, 0, 1, 1]], [0], [2, 2])],
  ['boxInd mismatch', (tf) => tf.image.cropAndResize(CROP_IMG(tf), [[0, 0, 1, 1]], [0, 1], [2, 2])],
  ['crop size 0', (tf) => tf.image.cropAndResize(CROP_IMG(tf), [[0, 0, 1, 1]], [0], [0, 2])],
]);

const TIMG = (tf) => tf.range(0, 4 * 5 * 2).reshape([1, 4, 5, 2]).mul(0.5);
cases('image.transform, rotateWithOffset, threshold', [
  ['transform identity', (tf) => tf.image.transform(TIMG(tf), [[1, 0, 0, 0, 1, 0, 0, 0]])],
  ['transform projective bilinear', (tf) => tf.image.transform(TIMG(tf), [[0.9, 0.1, 0.5, -0.2, 1.1, 0.3, 0.01, 0.02]], 'bilinear')],
  ['transform reflect', (tf) => tf.image.transform(TIMG(tf), [[1, 0, -2, 0, 1, 1.5, 0, 0]], 'nearest', 'reflect')],
  ['transform wrap, output shape', (tf) => tf.image.transform(TIMG(tf), [[1, 0, -2.5, 0, 1, 1.5, 0, 0]], 'bilinear', 'wrap', 0, [3, 6])],
  ['transform nearest fill mode', (tf) => tf.image.transform(TIMG(tf), [[1, 0, -2.5, 0, 1, 1.5, 0, 0]], 'bilinear', 'nearest')],
  ['transform constant fill', (tf) => tf.image.transform(TIMG(tf), [[1, 0, -2.5, 0, 1, 1.5, 0, 0]], 'bilinear', 'constant', 7)],
  ['transform bad transforms', (tf) => tf.image.transform(TIMG(tf), [[1, 0, 0]])],
  ['transform rank 3', (tf) => tf.image.transform(tf.ones([2, 2, 1]), [[1, 0, 0, 0, 1, 0, 0, 0]])],
  ['rotateWithOffset', (tf) => tf.image.rotateWithOffset(TIMG(tf), 0.5)],
  ['rotateWithOffset fill per channel, center', (tf) => tf.image.rotateWithOffset(tf.range(0, 72).reshape([2, 3, 3, 4]), 1.2, [10, 20, 30], [0.3, 0.6])],
  ['rotateWithOffset rank 3', (tf) => tf.image.rotateWithOffset(tf.ones([2, 2, 1]), 1)],
  ['threshold binary RGB int32', (tf) => tf.image.threshold(tf.tensor3d([10, 200, 30, 140, 250, 80], [2, 1, 3], 'int32'))],
  ['threshold otsu', (tf) => tf.image.threshold(tf.tensor3d([10, 200, 30, 140, 250, 80, 5, 6, 7, 90, 91, 92], [2, 2, 3]), 'otsu')],
  ['threshold inverted', (tf) => tf.image.threshold(tf.tensor3d([10, 200, 30, 140], [2, 2, 1], 'int32'), 'binary', true, 0.3)],
  ['threshold bad method', (tf) => tf.image.threshold(tf.ones([2, 2, 1]), 'mean')],
  ['threshold 2 channels', (tf) => tf.image.threshold(tf.ones([2, 2, 2]))],
]);
