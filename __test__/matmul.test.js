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

const A = (tf) => tf.range(0, 6).reshape([2, 3]);
const B3 = (tf) => tf.range(0, 12).reshape([3, 4]).mul(0.5);
cases('einsum', [
  ['matmul', (tf) => tf.einsum('ij,jk->ik', A(tf), B3(tf))],
  ['transposed output', (tf) => tf.einsum('ij,jk->ki', A(tf), B3(tf))],
  ['dot', (tf) => tf.einsum('i,i->', tf.tensor1d([1, 2, 3]), tf.tensor1d([4, 5, 6]))],
  ['outer', (tf) => tf.einsum('i,j->ij', tf.tensor1d([1, 2]), tf.tensor1d([3, 4, 5]))],
  ['sum all', (tf) => tf.einsum('ij->', A(tf))],
  ['transpose', (tf) => tf.einsum('ij->ji', A(tf))],
  ['batched', (tf) => tf.einsum('bij,bjk->bik', tf.range(0, 12).reshape([2, 2, 3]), tf.range(0, 12).reshape([2, 3, 2]))],
  ['elementwise with spaces', (tf) => tf.einsum('ij, ij -> ij', A(tf), A(tf))],
  ['int32', (tf) => tf.einsum('ij,j->i', tf.tensor2d([1, 2, 3, 4], [2, 2], 'int32'), tf.tensor1d([1, 1], 'int32'))],
  ['no arrow', (tf) => tf.einsum('ij,jk', A(tf), B3(tf))],
  ['two arrows', (tf) => tf.einsum('ij->j->i', A(tf))],
  ['ellipsis', (tf) => tf.einsum('...ij->...ji', A(tf))],
  ['wrong count', (tf) => tf.einsum('ij,jk->ik', A(tf))],
  ['three inputs', (tf) => tf.einsum('i,i,i->i', [1], [2], [3])],
  ['unknown output label', (tf) => tf.einsum('ij->k', A(tf))],
  ['duplicate axes', (tf) => tf.einsum('ii->i', tf.eye(2))],
  ['size mismatch', (tf) => tf.einsum('ij,ij->ij', A(tf), B3(tf))],
]);

cases('linalg.qr, linalg.gramSchmidt', [
  ['qr square', (tf) => tf.linalg.qr(tf.tensor2d([[1, 2], [3, 4]]))],
  ['qr tall', (tf) => tf.linalg.qr(tf.tensor2d([[1, 2], [3, -4], [5, 6]]))],
  ['qr tall full', (tf) => tf.linalg.qr(tf.tensor2d([[1, 2], [3, -4], [5, 6]]), true)],
  ['qr wide', (tf) => tf.linalg.qr(tf.tensor2d([[1, 2, 3], [-4, 5, 6]]))],
  ['qr batched', (tf) => tf.linalg.qr(tf.range(1, 13).reshape([3, 2, 2]).sin())],
  ['qr rank 1', (tf) => tf.linalg.qr(tf.tensor1d([1, 2]))],
  ['gramSchmidt 2-D', (tf) => tf.linalg.gramSchmidt(tf.tensor2d([[1, 1], [0, 2]]))],
  ['gramSchmidt list', (tf) => tf.linalg.gramSchmidt([tf.tensor1d([1, 0, 1]), tf.tensor1d([1, 2, 0])])],
  ['gramSchmidt too many', (tf) => tf.linalg.gramSchmidt(tf.ones([3, 2]))],
  ['gramSchmidt mismatched list', (tf) => tf.linalg.gramSchmidt([tf.ones([2]), tf.ones([3])])],
]);

cases('linalg.bandPart with tensor counts', [
  ['scalar tensors', (tf) => tf.linalg.bandPart(tf.ones([3, 4]), tf.scalar(1, 'int32'), tf.scalar(-1, 'int32'))],
]);

cases('basicLSTMCell, multiRNNCell', [
  ['basicLSTMCell', (tf) => tf.basicLSTMCell(tf.scalar(1), tf.range(0, 32).reshape([4, 8]).mul(0.01), tf.zeros([8]), tf.ones([1, 2]), tf.zeros([1, 2]), tf.ones([1, 2]).mul(0.5))],
  ['multiRNNCell', (tf) => {
    const k = tf.range(0, 32).reshape([4, 8]).mul(0.01);
    const cell = (data, c, h) => tf.basicLSTMCell(tf.scalar(1), k, tf.zeros([8]), data, c, h);
    const [cs, hs] = tf.multiRNNCell([cell, cell], tf.ones([1, 2]), [tf.zeros([1, 2]), tf.zeros([1, 2])], [tf.zeros([1, 2]), tf.zeros([1, 2])]);
    return [...cs, ...hs];
  }],
]);
