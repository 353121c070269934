'use strict';
// tf.broadcast_util: tfjs's broadcasting shape rules (also in tf.backend_util).

// The dimensions of inShape (aligned right) that broadcasting to outShape stretches.
function getBroadcastDims(inShape, outShape) {
  const dims = [];
  for (let i = 0; i < inShape.length; i++) {
    const dim = inShape.length - 1 - i;
    const a = inShape[dim] || 1;
    const b = outShape[outShape.length - 1 - i] || 1;
    if (b > 1 && a === 1) dims.unshift(dim);
  }
  return dims;
}

// The axes of outShape a gradient must be summed over to get back to inShape.
function getReductionAxes(inShape, outShape) {
  const axes = [];
  for (let i = 0; i < outShape.length; i++) {
    const inDim = inShape[inShape.length - i - 1];
    const outAxis = outShape.length - i - 1;
    if (inDim == null || (inDim === 1 && outShape[outAxis] > 1)) axes.unshift(outAxis);
  }
  return axes;
}

function assertAndGetBroadcastShape(shapeA, shapeB) {
  const n = Math.max(shapeA.length, shapeB.length);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const a = shapeA[shapeA.length - i - 1] ?? 1;
    const b = shapeB[shapeB.length - i - 1] ?? 1;
    if (a !== 1 && b !== 1 && a !== b) {
      throw Error(`Operands could not be broadcast together with shapes ${shapeA} and ${shapeB}.`);
    }
    out[n - i - 1] = a === 1 ? b : a;
  }
  return out;
}

const broadcast_util = { assertAndGetBroadcastShape, getBroadcastDims, getReductionAxes };

module.exports = { broadcast_util };
