'use strict';
// tf.sparse against @tensorflow/tfjs: segment sums and means, reshapes and filled rows, with
// tfjs's errors; nothing leaks.
const { cases } = require('./helpers/ops');

const DATA = (tf) => tf.tensor2d([[1, 2, 3, 4], [-1, -2, -3, -4], [5, 6, 7, 8]]);
cases('tf.sparse', [
  ['sparseSegmentSum', (tf) => tf.sparse.sparseSegmentSum(DATA(tf), [0, 1, 2], [0, 0, 1])],
  ['sparseSegmentSum gap', (tf) => tf.sparse.sparseSegmentSum(DATA(tf), [0, 2], [0, 2])],
  ['sparseSegmentSum int32 1-D', (tf) => tf.sparse.sparseSegmentSum(tf.tensor1d([1, 2, 3], 'int32'), [0, 2, 1], [1, 1, 3])],
  ['sparseSegmentMean', (tf) => tf.sparse.sparseSegmentMean(DATA(tf), [0, 1, 2], [0, 1, 1])],
  ['sparseSegmentMean int32', (tf) => tf.sparse.sparseSegmentMean(tf.tensor1d([1, 2, 4], 'int32'), [0, 1, 2], [0, 0, 0])],
  ['segment ids decreasing', (tf) => tf.sparse.sparseSegmentSum(DATA(tf), [0, 1], [1, 0])],
  ['segment ids negative', (tf) => tf.sparse.sparseSegmentSum(DATA(tf), [0, 1], [0, -1])],
  ['index out of range', (tf) => tf.sparse.sparseSegmentSum(DATA(tf), [0, 7], [0, 1])],
  ['indices rank', (tf) => tf.sparse.sparseSegmentSum(DATA(tf), [[0]], [0])],
  ['sparseReshape', (tf) => { const r = tf.sparse.sparseReshape([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]], [2, 3, 6], [9, -1]); return [r.outputIndices, r.outputShape]; }],
  ['sparseReshape mismatch', (tf) => tf.sparse.sparseReshape([[0, 0]], [2, 3], [4, 2])],
  ['sparseReshape two -1', (tf) => tf.sparse.sparseReshape([[0, 0]], [2, 3], [-1, -1])],
  ['sparseFillEmptyRows', (tf) => { const r = tf.sparse.sparseFillEmptyRows([[0, 0], [1, 0], [1, 3], [1, 4], [3, 2], [3, 3]], [0, 10, 13, 14, 32, 33], [5, 6], -1); return [r.outputIndices, r.outputValues, r.emptyRowIndicator, r.reverseIndexMap]; }],
  ['sparseFillEmptyRows full and ordered', (tf) => { const r = tf.sparse.sparseFillEmptyRows([[0, 0], [1, 1]], [1, 2], [2, 2], 0); return [r.outputIndices, r.outputValues, r.emptyRowIndicator, r.reverseIndexMap]; }],
  ['sparseFillEmptyRows unordered', (tf) => { const r = tf.sparse.sparseFillEmptyRows([[2, 0], [0, 1]], [5, 6], [3, 2], 9); return [r.outputIndices, r.outputValues, r.emptyRowIndicator, r.reverseIndexMap]; }],
  ['sparseFillEmptyRows row out of range', (tf) => tf.sparse.sparseFillEmptyRows([[4, 0]], [1], [2, 2], 0)],
]);
