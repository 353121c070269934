'use strict';
// tf.scatter_util: tfjs's scatter_nd_util (also in tf.backend_util); the shape checks are the
// core's, the ones tf.scatterND and tf.tensorScatterUpdate run.
const native = require('../native');
const { util } = require('../util');

const { sizeFromShape, computeStrides } = util;

// The core's checks of scatterND (crates/core/src/ops/layout_composed.rs), on the shapes.
const dims = (t) => Array.from(t.shape);

function validateUpdateShape(shape, indices, updates) {
  native.scatterValidate(dims(updates), dims(indices), null, Array.from(shape));
}

function validateInput(updates, indices, shape) {
  native.scatterValidate(dims(updates), dims(indices), String(indices.dtype), Array.from(shape));
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
