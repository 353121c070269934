'use strict';
// tf.slice_util: tfjs's slicing helpers, and TensorFlow's strided-slice spec, which
// tf.stridedSlice (lib/ops/layout.js) runs too: the spec lives here once.
const { util } = require('../util');

const { assert } = util;

const NEW_AXIS = -2;
const SHRINK_AXIS = -1;

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
// -1 means "to the end".
function parseSliceParams(x, begin, size) {
  const rank = x.shape.length;
  let b;
  if (typeof begin === 'number') b = [begin, ...new Array(rank - 1).fill(0)];
  else if (begin.length < rank) b = begin.concat(new Array(rank - begin.length).fill(0));
  else b = begin.slice();
  b.forEach((d) => assert(d !== -1, () => 'slice() does not support negative begin indexing.'));
  let s;
  if (size == null) s = new Array(rank).fill(-1);
  else if (typeof size === 'number') s = [size, ...new Array(rank - 1).fill(-1)];
  else if (size.length < rank) s = size.concat(new Array(rank - size.length).fill(-1));
  else s = size;
  s = s.map((d, i) => {
    if (d >= 0) return d;
    assert(d === -1, () => `Negative size values should be exactly -1 but got ${d} for the slice() size at index ${i}.`);
    return x.shape[i] - b[i];
  });
  return [b, s];
}

// TensorFlow's strided-slice spec made dense: ellipsis and new axes expanded, each dimension's
// begin/end/stride made explicit and bounds-checked, the length it produces, the final shapes
// and the fast-path flags (identity, slice of dimension 0 only, unit strides). `integers`:
// refuse begin, end and stride values that are not safe integers (the op does; tfjs's
// sliceInfo does not look).
function sliceSpec(xShape, begin, end, strides, masks, integers) {
  const { beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask } = masks;
  const st = strides == null ? new Array(begin.length).fill(1) : strides;
  // Copies, as tfjs makes them: a missing begin or end fails there, and here, on the copy, so
  // both are known below (TensorFlow's spec also allows unknown ones; tfjs never has them).
  begin = begin.slice();
  end = end.slice();
  if (ellipsisMask != null && (ellipsisMask & (ellipsisMask - 1)) !== 0) {
    throw new Error('Multiple ellipses in slice is not allowed.');
  }
  // Sparse spec, with an ellipsis appended when there is none.
  const sparse = { dims: st.length, addAfterEllipsis: 0, ellipsisMask };
  let seen = false;
  for (let i = 0; i < sparse.dims; i++) {
    if (seen && ((1 << i) & newAxisMask) !== 0) sparse.addAfterEllipsis++;
    if ((1 << i) & ellipsisMask) seen = true;
  }
  if (!seen) {
    sparse.ellipsisMask |= (1 << sparse.dims);
    sparse.dims++;
  }
  // Dense spec: one entry per input dimension.
  const dims = xShape.length;
  const d = {
    begin: new Array(dims), end: new Array(dims), strides: new Array(dims),
    beginMask: 0, endMask: 0, shrinkAxisMask: 0, gather: [],
  };
  let full = 0;
  for (let i = 0; i < sparse.dims; i++) {
    if ((1 << i) & sparse.ellipsisMask) {
      const next = Math.min(dims - (sparse.dims - i) + 1 + sparse.addAfterEllipsis, dims);
      for (; full < next; full++) {
        d.begin[full] = 0;
        d.end[full] = 0;
        d.strides[full] = 1;
        d.beginMask |= (1 << full);
        d.endMask |= (1 << full);
        d.gather.push(full);
      }
    } else if ((1 << i) & newAxisMask) {
      d.gather.push(NEW_AXIS);
    } else {
      if (full === d.begin.length) {
        throw Error(`Index out of range using input dim ${full}; input has only ${dims} dims, ${d.begin.length}.`);
      }
      d.begin[full] = begin[i];
      d.end[full] = end[i];
      d.strides[full] = st[i];
      if (beginMask & (1 << i)) d.beginMask |= (1 << full);
      if (endMask & (1 << i)) d.endMask |= (1 << full);
      if (shrinkAxisMask & (1 << i)) {
        d.gather.push(SHRINK_AXIS);
        d.shrinkAxisMask |= (1 << full);
      } else {
        d.gather.push(full);
      }
      full++;
    }
  }
  // Explicit ranges, bounds checks, the shape each dimension produces.
  let isIdentity = true;
  let sliceDim0 = true;
  let isSimpleSlice = true;
  const processing = [];
  for (let i = 0; i < dims; ++i) {
    const s = d.strides[i];
    if (s === 0) throw Error(`strides[${i}] must be non-zero`);
    if (integers && (!Number.isSafeInteger(s) || !Number.isSafeInteger(d.begin[i]) ||
        !Number.isSafeInteger(d.end[i]))) {
      throw new Error(`stridedSlice: begin, end and strides must be integers, but got ${d.begin[i]}, ` +
        `${d.end[i]} and ${s} for dimension ${i}`);
    }
    const shrink = !!(d.shrinkAxisMask & (1 << i));
    const n = xShape[i];
    if (n === -1) {
      processing.push(shrink ? 1 : -1);
      continue;
    }
    const masked = [d.beginMask & (1 << i), d.endMask & (1 << i)];
    const range = [s > 0 ? 0 : -1, s > 0 ? n : n - 1];
    if (shrink && s <= 0) throw Error('only stride 1 allowed on non-range indexing.');
    isSimpleSlice = isSimpleSlice && s === 1;
    if (shrink) {
      // foo[-1] arrives as begin -1, end 0: the end is rebuilt as begin + 1.
      const fwd = d.begin[i] < 0 ? n + d.begin[i] : d.begin[i];
      d.begin[i] = fwd;
      d.end[i] = fwd + 1;
      if (fwd < 0 || fwd >= n) throw Error(`slice index ${d.begin[i]} of dimension ${i} out of bounds.`);
    } else {
      // Negative indices count from the end; masked ones take the whole range.
      const canonical = (x, c) => {
        if (masked[c]) return s > 0 ? range[c] : range[(c + 1) & 1];
        const fwd = x < 0 ? n + x : x;
        return fwd < range[0] ? range[0] : fwd > range[1] ? range[1] : fwd;
      };
      d.begin[i] = canonical(d.begin[i], 0);
      d.end[i] = canonical(d.end[i], 1);
    }
    const whole = s === 1 && d.begin[i] === 0 && d.end[i] === n;
    isIdentity = isIdentity && whole;
    sliceDim0 = sliceDim0 && ((i === 0 && s === 1) || whole);
    // The length, rounded up; 0 when the interval runs against the stride.
    const interval = d.end[i] - d.begin[i];
    if (interval === 0 || (interval < 0) !== (s < 0)) {
      processing.push(0);
    } else {
      processing.push(Math.trunc(interval / s) + (interval % s !== 0 ? 1 : 0));
    }
  }
  // New axes add a 1; shrunk axes disappear.
  const finalShape = [];
  for (const g of d.gather) {
    if (g >= 0) finalShape.push(processing[g]);
    else if (g === NEW_AXIS) finalShape.push(1);
  }
  // tfjs filters finalShape by the gather entries' positions (not finalShape's); kept.
  const finalShapeSparse = finalShape.filter((_, i) => d.gather[i] !== NEW_AXIS);
  return {
    finalShapeSparse, finalShape, isIdentity, sliceDim0, isSimpleSlice,
    begin: d.begin, end: d.end, strides: d.strides, lengths: processing,
  };
}

function sliceInfo(xShape, begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask) {
  const spec = sliceSpec(xShape, begin, end, strides,
    { beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask }, false);
  return {
    finalShapeSparse: spec.finalShapeSparse, finalShape: spec.finalShape, isIdentity: spec.isIdentity,
    sliceDim0: spec.sliceDim0, isSimpleSlice: spec.isSimpleSlice, begin: spec.begin, end: spec.end,
    strides: spec.strides,
  };
}

// tf.stridedSlice's spec (lib/ops/layout.js): integral values, and each input dimension's begin,
// stride and length, then the output shape. `masks`: {beginMask, endMask, ellipsisMask,
// newAxisMask, shrinkAxisMask}.
function stridedSliceInfo(shape, begin, end, strides, masks) {
  const spec = sliceSpec(shape, begin, end, strides, masks, true);
  return { begin: spec.begin, strides: spec.strides, lengths: spec.lengths, finalShape: spec.finalShape };
}

const slice_util = {
  assertParamsValid, computeFlatOffset, computeOutShape: sliceComputeOutShape, getNormalizedAxes,
  isSliceContinous, maskToAxes, parseSliceParams, sliceInfo, startForAxis,
  startIndicesWithElidedDims, stopForAxis, stopIndicesWithElidedDims, stridesForAxis,
  stridesWithElidedDims,
};

module.exports = { slice_util, stridedSliceInfo };
