'use strict';
// tf.gather_util: tfjs's gather_nd_util, the shapes of tf.gatherND (also in tf.backend_util).
const { util } = require('../util');

const { sizeFromShape, computeStrides } = util;


// [result shape, number of slices, slice size, strides of the indexed dimensions].
function prepareAndValidate(tensor, indices) {
  const rank = tensor.shape.length;
  const indicesRank = indices.shape.length;
  if (rank < 1) {
    throw new Error(`tf.gatherND() expects the input to be rank 1 or higher, but the rank was ${rank}.`);
  }
  if (indicesRank < 1) {
    throw new Error(`tf.gatherND() expects the indices to be rank 1 or higher, but the rank was ${indicesRank}.`);
  }
  if (indices.dtype !== 'int32') {
    throw new Error(`tf.gatherND() expects the indices to be int32 type, but the dtype was ${indices.dtype}.`);
  }
  const sliceRank = indices.shape[indicesRank - 1];
  if (sliceRank > rank) {
    throw new Error(`index innermost dimension length must be <= tensor rank; saw: ${sliceRank} vs. ${rank}`);
  }
  if (sizeFromShape(tensor.shape) === 0) {
    throw new Error(`Requested more than 0 entries, but input is empty. Input shape: ${tensor.shape}.`);
  }
  // indices.shape[:-1] + tensor.shape[sliceRank:]
  const resultShape = indices.shape.slice(0, -1);
  const nResult = sizeFromShape(resultShape);
  let sliceSize = 1;
  for (let i = sliceRank; i < rank; ++i) {
    sliceSize *= tensor.shape[i];
    resultShape.push(tensor.shape[i]);
  }
  const strides = [...computeStrides(tensor.shape).map((s) => s / sliceSize), 1].slice(0, sliceRank);
  return [resultShape, nResult, sliceSize, strides];
}

const gather_util = { prepareAndValidate };

module.exports = { gather_util };
