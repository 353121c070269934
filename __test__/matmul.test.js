'use strict';
// Differential tests of the matmul ops: each program runs on tidytensor and on
// @tensorflow/tfjs; values, shapes, dtypes, memory counts and error texts must agree, and nothing
// may leak, even when the op throws inside tidy.
const { F, I, Bo, cases } = require('./helpers/ops');

cases('matMul', [
  ['2x3 * 3x2', (tf) => tf.matMul(F(tf), F(tf).transpose())],
  ['transposeA', (tf) => tf.matMul(F(tf), F(tf), true, false)],
  ['transposeB', (tf) => tf.matMul(F(tf), F(tf), false, true)],
  ['both transposed', (tf) => tf.matMul(tf.ones([3, 2]), tf.ones([4, 3]), true, true)],
  ['chained', (tf) => F(tf).matMul(F(tf), false, true)],
  ['int32', (tf) => tf.matMul(I(tf), I(tf), false, true)],
  ['int32 x float32', (tf) => tf.matMul(I(tf), F(tf), false, true)],
  ['arrays', (tf) => tf.matMul([[1, 2]], [[3], [4]])],
  ['batched', (tf) => tf.matMul(tf.range(0, 12).reshape([2, 2, 3]), tf.range(0, 12).reshape([2, 3, 2]))],
  ['batch broadcast', (tf) => tf.matMul(tf.range(0, 12).reshape([2, 2, 3]), tf.range(0, 6).reshape([3, 2]))],
  ['bigger', (tf) => tf.matMul(tf.range(0, 64 * 33).reshape([64, 33]).div(1000),
    tf.range(0, 33 * 17).reshape([33, 17]).div(1000))],
  ['empty inner', (tf) => tf.matMul(tf.zeros([2, 0]), tf.zeros([0, 3]))],
  ['inner mismatch', (tf) => tf.matMul(tf.ones([2, 3]), tf.ones([2, 3]))],
  // tfjs fails inside a reshape with a garbled message; any error will do.
  ['rank 1', (tf) => tf.matMul(tf.ones([3]), tf.ones([3, 1])), { anyError: true }],
  ['bool', (tf) => tf.matMul(Bo(tf), Bo(tf), false, true)],
]);

cases('math.confusionMatrix', [
  ['confusionMatrix', (tf) => tf.math.confusionMatrix([0, 1, 2, 1, 0], [0, 2, 2, 1, 1], 3)],
  ['confusionMatrix int32 tensors', (tf) => tf.math.confusionMatrix(tf.tensor1d([1, 1], 'int32'), tf.tensor1d([0, 1], 'int32'), 2)],
  ['confusionMatrix bad numClasses', (tf) => tf.math.confusionMatrix([0], [0], 0)],
  ['confusionMatrix rank 2', (tf) => tf.math.confusionMatrix([[0]], [[0]], 2)],
  ['confusionMatrix length mismatch', (tf) => tf.math.confusionMatrix([0, 1], [0], 2)],
]);
