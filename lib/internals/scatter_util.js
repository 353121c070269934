'use strict';
// tf.scatter_util: tfjs's scatter_nd_util, the shape checks of tf.scatterND and
// tf.tensorScatterUpdate (also in tf.backend_util; lib/ops/layout.js runs validateInput).
const { util } = require('../util');

const { sizeFromShape, computeStrides } = util;

function validateUpdateShape(shape, indices, updates) {
  const sliceDim = indices.rank > 1 ? indices.shape[indices.rank - 1] : 1;
  const batchDim = indices.rank > 1 ? indices.rank - 1 : 1;
  const prefix = 'Must have updates.shape = indices.shape[:batchDim] + shape[sliceDim:], got ' +
    `updates.shape: ${updates.shape}, indices.shape: ${indices.shape}, shape: ${shape}, ` +
    `sliceDim: ${sliceDim}, and batchDim: ${batchDim}.`;
  if (updates.rank < batchDim) throw new Error(`${prefix} update.rank < ${batchDim}. `);
  if (shape.length < sliceDim + (updates.rank - batchDim)) {
    throw new Error(`${prefix} Output shape length < ${sliceDim + (updates.rank - batchDim)}`);
  }
  if (updates.rank !== batchDim + shape.length - sliceDim) {
    throw new Error(`${prefix} update.rank != ${batchDim + shape.length - sliceDim}`);
  }
  for (let d = 0; d < batchDim; ++d) {
    if (updates.shape[d] !== indices.shape[d]) {
      throw new Error(`${prefix} updates.shape[${d}] (${updates.shape[d]}) != indices.shape[${d}] (${indices.shape[d]}).`);
    }
  }
  for (let d = 0; d < updates.rank - batchDim; ++d) {
    if (updates.shape[d + batchDim] !== shape[d + sliceDim]) {
      // tfjs prints shape[d + batchDim] though it compares shape[d + sliceDim]; kept.
      throw new Error(`${prefix} updates.shape[${d + batchDim}] (${updates.shape[d + batchDim]}) != ` +
        `shape[${d + batchDim}] (${shape[d + batchDim]})`);
    }
  }
}

function validateInput(updates, indices, shape) {
  if (indices.rank < 1) {
    throw new Error(`tf.scatterND() expects the indices to be rank 1 or higher, but the rank was ${indices.rank}.`);
  }
  if (updates.rank < 1) {
    throw new Error(`tf.scatterND() expects the updates to be rank 1 or higher, but the rank was ${updates.rank}.`);
  }
  if (indices.dtype !== 'int32') {
    throw new Error(`The dtype of 'indices' should be int32, but got dtype: ${indices.dtype}`);
  }
  if (shape.length < 1) {
    throw new Error(`Output rank must be greater or equal to 1, but got shape: ${shape}`);
  }
  validateUpdateShape(shape, indices, updates);
}

function calculateShapes(updates, indices, shape) {
  const indicesRank = indices.shape.length;
  const sliceRank = indicesRank > 1 ? indices.shape[indicesRank - 1] : 1;
  let sliceSize = 1;
  for (let i = sliceRank; i < shape.length; ++i) sliceSize *= shape[i];
  const numUpdates = sizeFromShape(indices.shape) / (sliceRank < 1 ? 1 : sliceRank);
  const strides = [...computeStrides(shape.slice(0, sliceRank)), 1];
  return { sliceRank, numUpdates, sliceSize, strides, outputSize: sizeFromShape(shape) };
}

const scatter_util = { calculateShapes, validateInput, validateUpdateShape };

module.exports = { scatter_util };
