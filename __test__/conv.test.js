'use strict';
// Differential tests of the conv family (convolutions, pooling, windowed ops, tf.fused): each
// program runs on tidytensor and on @tensorflow/tfjs; values, shapes, dtypes, memory counts and
// error texts must agree, and nothing may leak, also when the op throws inside tidy.
const { cases } = require('./helpers/ops');

// Deterministic values in [-1, 1] of any shape.
const seq = (tf, shape, k = 0.37) => tf.range(0, shape.reduce((a, b) => a * b, 1)).mul(k).sin().reshape(shape);
const X = (tf) => seq(tf, [2, 5, 6, 3]);
const W = (tf) => seq(tf, [3, 2, 3, 4], 0.71);

cases('conv2d', [
  ['valid', (tf) => tf.conv2d(X(tf), W(tf), 1, 'valid')],
  ['same', (tf) => tf.conv2d(X(tf), W(tf), 1, 'same')],
  ['same strides 2', (tf) => tf.conv2d(X(tf), W(tf), 2, 'same')],
  ['strides [2, 3]', (tf) => tf.conv2d(X(tf), W(tf), [2, 3], 'valid')],
  ['dilations 2', (tf) => tf.conv2d(X(tf), W(tf), 1, 'same', 'NHWC', 2)],
  ['dilations [2, 1] valid', (tf) => tf.conv2d(X(tf), W(tf), 1, 'valid', 'NHWC', [2, 1])],
  ['numeric pad', (tf) => tf.conv2d(X(tf), W(tf), 1, 1)],
  ['numeric pad, rounding', (tf) => tf.conv2d(X(tf), W(tf), 2, 1, 'NHWC', 1, 'ceil')],
  ['explicit pad', (tf) => tf.conv2d(X(tf), W(tf), 1, [[0, 0], [1, 2], [0, 1], [0, 0]])],
  ['NCHW', (tf) => tf.conv2d(seq(tf, [2, 3, 5, 6]), W(tf), 1, 'same', 'NCHW')],
  ['NCHW explicit pad', (tf) => tf.conv2d(seq(tf, [1, 3, 4, 4]), W(tf), 1, [[0, 0], [0, 0], [1, 1], [2, 0]], 'NCHW')],
  ['unbatched', (tf) => tf.conv2d(seq(tf, [5, 6, 3]), W(tf), 1, 'same')],
  ['1x1 (pointwise)', (tf) => tf.conv2d(X(tf), seq(tf, [1, 1, 3, 5]), 1, 'valid')],
  ['chained', (tf) => X(tf).conv2d(W(tf), 1, 'same')],
  ['arrays', (tf) => tf.conv2d([[[1], [2]], [[3], [4]]], [[[[1]], [[2]]]], 1, 'valid')],
  ['large (threads, blocks)', (tf) => tf.conv2d(seq(tf, [2, 40, 40, 16]), seq(tf, [3, 3, 16, 32], 0.3), 1, 'same'), { tol: 1e-4 }],
  // cpu: tasks of 64 output rows, the last one short (437 rows), strides across the blocks.
  ['row tasks, a short last one', (tf) => tf.conv2d(seq(tf, [1, 45, 37, 8]), seq(tf, [5, 5, 8, 24], 0.3), 2, 'same'), { tol: 1e-4 }],
  // cpu: too few rows to share out (42): gemm's threads split the columns instead.
  ['few rows, many channels', (tf) => tf.conv2d(seq(tf, [1, 6, 7, 64]), seq(tf, [3, 3, 64, 48], 0.3), 1, 'same'), { tol: 1e-4 }],
  ['window larger than the input', (tf) => tf.conv2d(seq(tf, [1, 2, 2, 1]), seq(tf, [3, 3, 1, 1]), 1, 'valid')],
  ['depth mismatch', (tf) => tf.conv2d(X(tf), seq(tf, [3, 2, 2, 4]), 1, 'same')],
  ['rank 2 input', (tf) => tf.conv2d(tf.ones([2, 2]), W(tf), 1, 'same')],
  ['rank 3 filter', (tf) => tf.conv2d(X(tf), tf.ones([2, 2, 3]), 1, 'same')],
  ['strides and dilations', (tf) => tf.conv2d(X(tf), W(tf), 2, 'same', 'NHWC', 2)],
  ['zero stride', (tf) => tf.conv2d(X(tf), W(tf), 0, 'same')],
  ['zero dilation', (tf) => tf.conv2d(X(tf), W(tf), 1, 'same', 'NHWC', 0)],
  ['rounding with same', (tf) => tf.conv2d(X(tf), W(tf), 1, 'same', 'NHWC', 1, 'floor')],
  ['rounding with fractional pad', (tf) => tf.conv2d(X(tf), W(tf), 1, 1.5, 'NHWC', 1, 'floor')],
  ['int32 input', (tf) => tf.conv2d(X(tf).toInt(), W(tf), 1, 'same')],
  ['unknown pad', (tf) => tf.conv2d(X(tf), W(tf), 1, 'full')],
]);

cases('conv1d, conv3d, separableConv2d', [
  ['conv1d', (tf) => tf.conv1d(seq(tf, [2, 7, 3]), seq(tf, [3, 3, 2]), 1, 'same')],
  ['conv1d stride 2 valid', (tf) => tf.conv1d(seq(tf, [2, 7, 3]), seq(tf, [3, 3, 2]), 2, 'valid')],
  ['conv1d dilation', (tf) => tf.conv1d(seq(tf, [7, 3]), seq(tf, [2, 3, 2]), 1, 'same', 'NWC', 2)],
  ['conv1d chained', (tf) => seq(tf, [7, 3]).conv1d(seq(tf, [2, 3, 2]), 1, 'valid')],
  ['conv1d depth mismatch', (tf) => tf.conv1d(seq(tf, [7, 3]), seq(tf, [2, 2, 2]), 1, 'valid')],
  ['conv3d', (tf) => tf.conv3d(seq(tf, [1, 4, 4, 3, 2]), seq(tf, [2, 2, 2, 2, 3]), 1, 'valid')],
  ['conv3d same strides', (tf) => tf.conv3d(seq(tf, [2, 5, 4, 3, 2]), seq(tf, [3, 2, 2, 2, 2]), [2, 1, 2], 'same')],
  ['conv3d unbatched dilated', (tf) => tf.conv3d(seq(tf, [5, 5, 5, 1]), seq(tf, [2, 2, 2, 1, 2]), 1, 'valid', 'NDHWC', 2)],
  ['conv3d int32', (tf) => tf.conv3d(tf.range(0, 16, 1, 'int32').reshape([1, 2, 2, 2, 2]), tf.ones([1, 1, 1, 2, 1], 'int32'), 1, 'valid')],
  ['conv3d NCDHW', (tf) => tf.conv3d(seq(tf, [1, 2, 2, 2, 1]), seq(tf, [1, 1, 1, 1, 1]), 1, 'valid', 'NCDHW')],
  ['separableConv2d', (tf) => tf.separableConv2d(X(tf), seq(tf, [2, 2, 3, 2]), seq(tf, [1, 1, 6, 4]), 1, 'same')],
  ['separableConv2d strides', (tf) => tf.separableConv2d(X(tf), seq(tf, [3, 3, 3, 1]), seq(tf, [1, 1, 3, 2]), 2, 'valid')],
  ['separableConv2d bad pointwise', (tf) => tf.separableConv2d(X(tf), seq(tf, [2, 2, 3, 2]), seq(tf, [1, 1, 5, 4]), 1, 'same')],
]);

cases('depthwiseConv2d, dilation2d', [
  ['depthwise', (tf) => tf.depthwiseConv2d(X(tf), seq(tf, [2, 2, 3, 1]), 1, 'same')],
  ['depthwise multiplier 3', (tf) => tf.depthwiseConv2d(X(tf), seq(tf, [3, 2, 3, 3]), 1, 'valid')],
  ['depthwise strides', (tf) => tf.depthwiseConv2d(X(tf), seq(tf, [3, 3, 3, 2]), 2, 'same')],
  ['depthwise dilated', (tf) => tf.depthwiseConv2d(X(tf), seq(tf, [2, 2, 3, 1]), 1, 'same', 'NHWC', 2)],
  ['depthwise explicit', (tf) => tf.depthwiseConv2d(X(tf), seq(tf, [2, 2, 3, 1]), 1, [[0, 0], [2, 1], [1, 1], [0, 0]])],
  ['depthwise unbatched chained', (tf) => seq(tf, [5, 6, 3]).depthwiseConv2d(seq(tf, [2, 2, 3, 2]), 1, 'valid')],
  ['depthwise large', (tf) => tf.depthwiseConv2d(seq(tf, [1, 60, 60, 32]), seq(tf, [3, 3, 32, 1]), 1, 'same'), { tol: 1e-4 }],
  ['depthwise channel mismatch', (tf) => tf.depthwiseConv2d(X(tf), seq(tf, [2, 2, 2, 1]), 1, 'same')],
  ['depthwise strides and dilations', (tf) => tf.depthwiseConv2d(X(tf), seq(tf, [2, 2, 3, 1]), 2, 'same', 'NHWC', 2)],
  ['dilation2d', (tf) => tf.dilation2d(X(tf), seq(tf, [2, 2, 3]), 1, 'same')],
  ['dilation2d valid strides dilations', (tf) => tf.dilation2d(seq(tf, [1, 7, 7, 2]), seq(tf, [2, 3, 2]), [1, 1], 'valid', [2, 1])],
  ['dilation2d unbatched int32', (tf) => tf.dilation2d(tf.range(0, 18, 1, 'int32').reshape([3, 3, 2]), tf.ones([2, 2, 2], 'int32'), 1, 'same')],
  ['dilation2d depth mismatch', (tf) => tf.dilation2d(X(tf), seq(tf, [2, 2, 2]), 1, 'same')],
]);

cases('conv2dTranspose, conv3dTranspose', [
  ['conv2dTranspose', (tf) => tf.conv2dTranspose(seq(tf, [1, 3, 3, 4]), W(tf), [1, 5, 4, 3], 1, 'valid')],
  ['conv2dTranspose same strides 2', (tf) => tf.conv2dTranspose(seq(tf, [2, 3, 3, 4]), W(tf), [2, 6, 6, 3], 2, 'same')],
  ['conv2dTranspose unbatched', (tf) => tf.conv2dTranspose(seq(tf, [3, 3, 4]), W(tf), [5, 4, 3], 1, 'valid')],
  ['conv2dTranspose explicit', (tf) => tf.conv2dTranspose(seq(tf, [1, 4, 4, 4]), W(tf), [1, 4, 3, 3], 1, [[0, 0], [1, 1], [0, 0], [0, 0]])],
  ['conv2dTranspose chained', (tf) => seq(tf, [1, 3, 3, 4]).conv2dTranspose(W(tf), [1, 5, 4, 3], 1, 'valid')],
  ['conv2dTranspose depth mismatch', (tf) => tf.conv2dTranspose(seq(tf, [1, 3, 3, 2]), W(tf), [1, 5, 4, 3], 1, 'valid')],
  ['conv2dTranspose rank mismatch', (tf) => tf.conv2dTranspose(seq(tf, [1, 3, 3, 4]), W(tf), [5, 4, 3], 1, 'valid')],
  ['conv3dTranspose', (tf) => tf.conv3dTranspose(seq(tf, [1, 2, 2, 2, 2]), seq(tf, [2, 2, 2, 3, 2]), [1, 3, 3, 3, 3], 1, 'valid')],
  ['conv3dTranspose same strides', (tf) => tf.conv3dTranspose(seq(tf, [1, 2, 2, 2, 2]), seq(tf, [2, 2, 2, 1, 2]), [1, 4, 4, 4, 1], 2, 'same')],
]);

cases('pooling', [
  ['maxPool', (tf) => tf.maxPool(X(tf), 2, 2, 'valid')],
  ['maxPool same', (tf) => tf.maxPool(X(tf), [3, 2], 1, 'same')],
  ['maxPool numeric pad rounding', (tf) => tf.maxPool(X(tf), 2, 2, 1, 'ceil')],
  ['maxPool explicit', (tf) => tf.maxPool(X(tf), 2, 1, [[0, 0], [1, 0], [0, 1], [0, 0]])],
  ['maxPool int32', (tf) => tf.maxPool(tf.range(0, 36, 1, 'int32').reshape([6, 6, 1]), 2, 2, 'valid')],
  ['maxPool NaN and -Infinity', (tf) => tf.maxPool(tf.tensor4d([NaN, 1, -Infinity, NaN], [1, 2, 2, 1]), 2, 1, 'same')],
  ['maxPool 1x1 identity', (tf) => tf.maxPool(X(tf), 1, 1, 'same')],
  ['maxPool chained', (tf) => X(tf).maxPool(2, 1, 'valid')],
  ['maxPool large', (tf) => tf.maxPool(seq(tf, [1, 112, 112, 8]), 2, 2, 'same')],
  ['maxPool rank 2', (tf) => tf.maxPool(tf.ones([2, 2]), 1, 1, 'valid')],
  ['avgPool', (tf) => tf.avgPool(X(tf), 2, 2, 'valid')],
  ['avgPool same', (tf) => tf.avgPool(X(tf), 3, 2, 'same')],
  ['avgPool int32', (tf) => tf.avgPool(tf.ones([1, 2, 2, 1], 'int32'), 2, 1, 'valid')],
  ['avgPool chained', (tf) => X(tf).avgPool([2, 3], 1, 'same')],
  ['maxPool3d', (tf) => tf.maxPool3d(seq(tf, [1, 4, 4, 4, 2]), 2, 2, 'valid')],
  ['maxPool3d same', (tf) => tf.maxPool3d(seq(tf, [4, 3, 5, 2]), [2, 3, 2], 1, 'same')],
  ['avgPool3d', (tf) => tf.avgPool3d(seq(tf, [1, 4, 4, 4, 2]), 3, 1, 'same')],
  ['avgPool3d numeric pad (windows in the padding)', (tf) => tf.avgPool3d(tf.ones([1, 1, 1, 1, 1]), 2, 1, 2)],
  ['avgPool3d NCDHW', (tf) => tf.avgPool3d(seq(tf, [1, 2, 2, 2, 1]), 1, 1, 'valid', null, 'NCDHW')],
  ['maxPoolWithArgmax', (tf) => tf.maxPoolWithArgmax(seq(tf, [2, 4, 4, 3]), 2, 2, 'valid')],
  ['maxPoolWithArgmax same include batch', (tf) => tf.maxPoolWithArgmax(seq(tf, [2, 4, 5, 2]), 3, 2, 'same', true)],
  ['pool max dilated', (tf) => tf.pool(seq(tf, [1, 6, 6, 2]), [2, 2], 'max', 'valid', [2, 2], 1)],
  ['pool avg same dilated', (tf) => tf.pool(seq(tf, [1, 5, 5, 1]), [2, 2], 'avg', 'same', 2, 1)],
  ['pool avg strides', (tf) => tf.pool(seq(tf, [5, 5, 1]), 3, 'avg', 'valid', 1, 2)],
]);

cases('localResponseNormalization', [
  ['default', (tf) => tf.localResponseNormalization(seq(tf, [1, 2, 2, 8]))],
  ['radius 2, coefficients', (tf) => tf.localResponseNormalization(seq(tf, [2, 2, 7]), 2, 2, 0.5, 0.75)],
  ['radius 0', (tf) => tf.localResponseNormalization(seq(tf, [1, 1, 2, 3]), 0)],
  ['chained', (tf) => seq(tf, [1, 2, 2, 4]).localResponseNormalization(1)],
  ['fractional radius', (tf) => tf.localResponseNormalization(seq(tf, [1, 1, 1, 4]), 1.5)],
  ['rank 2', (tf) => tf.localResponseNormalization(tf.ones([2, 2]))],
]);

cases('tf.fused', [
  ['conv2d bias relu', (tf) => tf.fused.conv2d({ x: X(tf), filter: W(tf), strides: 1, pad: 'same', bias: tf.tensor1d([0.1, -0.2, 0.3, 0]), activation: 'relu' })],
  ['conv2d NCHW bias prelu', (tf) => tf.fused.conv2d({ x: seq(tf, [1, 3, 4, 4]), filter: W(tf), strides: 1, pad: 'valid', dataFormat: 'NCHW', bias: tf.tensor1d([1, 2, 3, 4]), activation: 'prelu', preluActivationWeights: tf.tensor1d([0.1, 0.2, 0.3, 0.4]) })],
  ['depthwiseConv2d leakyrelu', (tf) => tf.fused.depthwiseConv2d({ x: X(tf), filter: seq(tf, [2, 2, 3, 1]), strides: 1, pad: 'same', activation: 'leakyrelu', leakyreluAlpha: 0.3 })],
  ['matMul bias sigmoid', (tf) => tf.fused.matMul({ a: seq(tf, [2, 3]), b: seq(tf, [3, 4]), bias: seq(tf, [4]), activation: 'sigmoid' })],
  ['matMul transposed elu', (tf) => tf.fused.matMul({ a: seq(tf, [3, 2]), b: seq(tf, [4, 3]), transposeA: true, transposeB: true, activation: 'elu' })],
  ['unknown activation', (tf) => tf.fused.matMul({ a: seq(tf, [2, 3]), b: seq(tf, [3, 4]), activation: 'gelu' }), { anyError: true }],
]);
