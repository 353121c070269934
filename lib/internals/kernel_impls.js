'use strict';
// tf.kernel_impls: the host implementations backends share, on plain or typed arrays.
const { tensor } = require('../convert');
const native = require('../native');
const { wrapId } = require('../tensor');

// Non-max suppression on plain values ([y1, x1, y2, x2] per box), the core's selection
// (crates/core/src/ops/dynamic.rs): the selected indices and their scores.
function nmsImpl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma) {
  const r = native.nmsSelect(Array.from(boxes, Number), Array.from(scores, Number), +maxOutputSize, +iouThreshold,
    +scoreThreshold, +softNmsSigma);
  return { picked: r.indices, pickedScores: r.scores };
}

function nonMaxSuppressionV3Impl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold) {
  return { selectedIndices: nmsImpl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, 0).picked };
}

// V4 pads the indices with 0s up to maxOutputSize when asked and reports how many are real.
function nonMaxSuppressionV4Impl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, padToMaxOutputSize) {
  const { picked } = nmsImpl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, 0);
  const validOutputs = picked.length;
  const pad = maxOutputSize - validOutputs;
  const selectedIndices = padToMaxOutputSize && pad > 0 ? picked.concat(new Array(pad).fill(0)) : picked;
  return { selectedIndices, validOutputs };
}

// V5 (soft NMS) also returns the selected boxes' (possibly decayed) scores.
function nonMaxSuppressionV5Impl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma) {
  const r = nmsImpl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma);
  return { selectedIndices: r.picked, selectedScores: r.pickedScores };
}

// The coordinates of the truthy values of a condition (its shape and flat values), as an int32
// tensor of shape [count, rank] (tf.whereAsync's result, computed by the core).
function whereImpl(condShape, condVals) {
  const cond = tensor(Uint8Array.from(condVals, (v) => (v ? 1 : 0)), condShape, 'bool');
  try {
    return wrapId(native.whereTrue(cond.id));
  } finally {
    cond.dispose();
  }
}

const kernel_impls = { nonMaxSuppressionV3Impl, nonMaxSuppressionV4Impl, nonMaxSuppressionV5Impl, whereImpl };

module.exports = { kernel_impls };
