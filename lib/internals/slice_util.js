'use strict';
// tf.slice_util: tfjs's slicing helpers; sliceInfo is the core's strided-slice spec.
const native = require('../native');
const { sliceList } = require('../ops/layout');
const { util } = require('../util');

const { assert } = util;

function assertParamsValid(input, begin, size) {
  const rank = input.shape.length;
  assert(rank === begin.length, () =>
    `Error in slice${rank}D: Length of begin ${begin} must match the rank of the array (${rank}).`);
  assert(rank === size.length, () =>
    `Error in slice${rank}D: Length of size ${size} must match the rank of the array (${rank}).`);
  for (let i = 0; i < rank; ++i) {
    assert(begin[i] + size[i] <= input.shape[i], () =>
      `Error in slice${rank}D: begin[${i}] + size[${i}] (${begin[i] + size[i]}) would overflow ` +
      `input.shape[${i}] (${input.shape[i]})`);
  }
}

// The set bits of a mask, as axes (the mask is halved, not shifted, as in tfjs).
function maskToAxes(mask) {
  const axes = [];
  for (let axis = 0; mask > 0; axis++, mask /= 2) if (mask & 1) axes.push(axis);
  return axes;
}

function sliceComputeOutShape(begin, end, strides) {
  return begin.map((b, axis) => Math.ceil((end[axis] - b) / strides[axis]));
}

function stridesWithElidedDims(strides, ellipsisInsertionIndex, numElidedAxes, inputShape) {
  const out = [...strides];
  while (out.length < inputShape.length) out.push(1);
  for (let i = 0; i < numElidedAxes; i++) {
    if (i === 0) {
      out[ellipsisInsertionIndex] = 1;
    } else {
      out.splice(ellipsisInsertionIndex, 0, 1);
      out.pop();
    }
  }
  return out;
}

// The axis of the original (ellipsis-less) spec that a dense axis comes from.
const unnormalizeAxis = (at, numElided, axis) => (axis <= at ? axis : axis - (numElided - 1));
const isElided = (axis, at, numElided) => axis >= at && axis < at + numElided;

function startIndicesWithElidedDims(beginMask, ellipsisInsertionIndex, numElidedAxes, originalBegin, inputShape) {
  return inputShape.map((_, axis) => {
    if (isElided(axis, ellipsisInsertionIndex, numElidedAxes)) return 0;
    const original = unnormalizeAxis(ellipsisInsertionIndex, numElidedAxes, axis);
    return beginMask & (1 << original) ? 0 : originalBegin[original];
  });
}

function stopIndicesWithElidedDims(endMask, ellipsisInsertionIndex, numElidedAxes, originalEnd, inputShape) {
  return inputShape.map((dim, axis) => {
    let v;
    if (isElided(axis, ellipsisInsertionIndex, numElidedAxes)) {
      v = Number.MAX_SAFE_INTEGER;
    } else {
      const original = unnormalizeAxis(ellipsisInsertionIndex, numElidedAxes, axis);
      v = endMask & (1 << original) ? Number.MAX_SAFE_INTEGER : originalEnd[original];
    }
    if (v < 0) v += dim;
    return util.clamp(0, v, dim);
  });
}

function stridesForAxis(strides, axis, ellipsisMask) {
  const stride = strides[axis];
  return ellipsisMask & (1 << axis) || stride == null ? 1 : stride;
}

// A masked (or missing) start is the first element in the direction of travel.
function startForAxis(beginMask, startIndices, strides, inputShape, axis, ellipsisMask) {
  let start = startIndices[axis];
  const stride = strides[axis] || 1;
  if (beginMask & (1 << axis) || ellipsisMask & (1 << axis) || start == null) {
    start = stride > 0 ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  }
  const n = inputShape[axis];
  if (start < 0) start += n;
  return util.clamp(0, start, n - 1);
}

// The stop points one past the last element: [0, n] going forward, [-1, n - 1] backward.
function stopForAxis(endMask, stopIndices, strides, inputShape, axis, ellipsisMask) {
  let stop = stopIndices[axis];
  const stride = strides[axis] || 1;
  if (endMask & (1 << axis) || ellipsisMask & (1 << axis) || stop == null) {
    stop = stride > 0 ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  }
  const n = inputShape[axis];
  if (stop < 0) stop += n;
  return stride > 0 ? util.clamp(0, stop, n) : util.clamp(-1, stop, n - 1);
}

function getNormalizedAxes(inputShape, ellipsisAxes, numInterpolatedAxes, begin, end, strides,
  beginMask, endMask, ellipsisMask) {
  const rank = inputShape.length;
  if (ellipsisAxes.length && numInterpolatedAxes > 0) {
    // The ellipsis covers its own axis plus the interpolated ones.
    const at = ellipsisAxes[0];
    const numElided = numInterpolatedAxes + 1;
    return {
      begin: startIndicesWithElidedDims(beginMask, at, numElided, begin, inputShape),
      end: stopIndicesWithElidedDims(endMask, at, numElided, end, inputShape),
      strides: stridesWithElidedDims(strides, at, numElided, inputShape),
    };
  }
  const out = { begin: new Array(rank), end: new Array(rank), strides: new Array(rank) };
  for (let axis = 0; axis < rank; axis++) {
    out.begin[axis] = startForAxis(beginMask, begin, strides, inputShape, axis, ellipsisMask);
    out.end[axis] = stopForAxis(endMask, end, strides, inputShape, axis, ellipsisMask);
    out.strides[axis] = stridesForAxis(strides, axis, ellipsisMask);
  }
  return out;
}

// Whether a slice is one contiguous run of the flat buffer: after the first axis taking more
// than one element, every axis is taken whole.
function isSliceContinous(shape, begin, size) {
  let first = size.findIndex((s) => s > 1);
  if (first === -1) first = size.length;
  for (let i = first + 1; i < size.length; i++) {
    if (begin[i] > 0 || size[i] !== shape[i]) return false;
  }
  return true;
}

function computeFlatOffset(begin, strides) {
  let offset = begin.length > 0 ? begin[begin.length - 1] : 1;
  for (let i = 0; i < begin.length - 1; i++) offset += begin[i] * strides[i];
  return offset;
}

// slice()'s begin/size: a number or a short list is completed with 0s (begin) and -1s (size);
// -1 means "to the end". The core's reading, the one tf.slice runs.
function parseSliceParams(x, begin, size) {
  const rank = x.shape.length;
  return native.parseSliceParams(Array.from(x.shape, Number), sliceList(begin, rank, 0, 'begin'),
    size == null ? [] : sliceList(size, rank, -1, 'size'));
}

// tfjs's sliceInfo: TensorFlow's strided-slice spec made dense (ellipsis and new axes
// expanded, each dimension's begin/end/stride explicit and bounds-checked), the final shapes
// and the fast-path flags. The spec is the core's, the one tf.stridedSlice runs
// (crates/core/src/ops/layout_composed.rs); -1 dimensions are unknown.
function sliceInfo(xShape, begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask) {
  const nums = (v) => Array.from(v, Number);
  return native.sliceInfo(Array.from(xShape, Number), nums(begin), nums(end), strides == null ? null : nums(strides),
    [beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask].map((m) => m | 0));
}

const slice_util = {
  assertParamsValid, computeFlatOffset, computeOutShape: sliceComputeOutShape, getNormalizedAxes,
  isSliceContinous, maskToAxes, parseSliceParams, sliceInfo, startForAxis,
  startIndicesWithElidedDims, stopForAxis, stopIndicesWithElidedDims, stridesForAxis,
  stridesWithElidedDims,
};

module.exports = { slice_util };
