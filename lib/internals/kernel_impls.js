'use strict';
// tf.kernel_impls: the host implementations backends share, on plain or typed arrays.
const { tensor } = require('../convert');
const { util } = require('../util');
const { selectBoxes } = require('../ops/image');

const { computeStrides } = util;

// Non-max suppression through tf.image's host implementation (lib/ops/image.js). The box
// values are [y1, x1, y2, x2] per box; unlike the ops, the arguments are not checked.
function nmsImpl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma) {
  return selectBoxes(boxes, scores, { max: maxOutputSize, iou: iouThreshold, minScore: scoreThreshold, sigma: softNmsSigma });
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
// tensor of shape [count, rank] (tf.whereAsync's result).
function whereImpl(condShape, condVals) {
  const rank = condShape.length;
  const strides = computeStrides(condShape);
  const hits = [];
  for (let i = 0; i < condVals.length; i++) if (condVals[i]) hits.push(i);
  const out = new Int32Array(hits.length * rank);
  hits.forEach((flat, k) => {
    out.set(rank === 0 ? [] : util.indexToLoc(flat, rank, strides), k * rank);
  });
  return tensor(out, [hits.length, rank], 'int32');
}

const kernel_impls = { nonMaxSuppressionV3Impl, nonMaxSuppressionV4Impl, nonMaxSuppressionV5Impl, whereImpl };

module.exports = { kernel_impls };
