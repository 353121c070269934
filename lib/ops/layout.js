'use strict';
// Shapes and indexing: reshape, expandDims, squeeze, transpose, concat, stack, slice, gather,
// clone, and the chained reshapes (flatten, asScalar, as1D ... as5D, reshapeAs).
const native = require('../native');
const { Tensor, wrap, wrapId } = require('../tensor');
const { convertToTensor, assertShape } = require('../convert');
const { withOne, withTwo, withMany, convertList, disposeTemps, listArg, intList, axesArg, axisArg, num } =
  require('./args');

const SON = 'string_or_numeric';

// tfjs makes tensors of fractional or NaN dimensions from such shapes; they are refused here.
const notAShape = (shape) => new Error('The new shape must be a list of integers (-1 for one ' +
  `inferred dimension) but got [${shape}]`);

const reshape = (x, shape) => withOne(x, 'x', 'reshape', SON,
  (t) => wrap(native.reshape(t.id, intList(shape, notAShape))));

const expandDims = (x, axis = 0) =>
  withOne(x, 'x', 'expandDims', SON, (t) => wrap(native.expandDims(t.id, axisArg(axis, 0))));

function squeeze(x, axis) {
  return withOne(x, 'x', 'squeeze', SON, (t) => {
    const axes = axis == null || (Array.isArray(axis) && axis.length === 0) ? null : axesArg(axis);
    return wrap(native.squeeze(t.id, axes));
  });
}

// tfjs reads the entries of perm as numbers ('1' is 1) and requires them in [0, rank).
function permArg(perm, rank) {
  if (perm == null) return null;
  const list = listArg(perm);
  if (!Array.isArray(list)) throw new Error(`perm must be a list of axes but got ${perm}`);
  const p = Array.from(list, Number);
  if (p.length === rank && !p.every((a) => a >= 0 && a < rank)) {
    throw new Error(`All entries in 'perm' must be between 0 and ${rank - 1} but got ${p}`);
  }
  if (!p.every(Number.isSafeInteger)) throw new Error(`All entries in 'perm' must be integers but got ${p}`);
  return p;
}

// With `conjugate`, a complex tensor's imaginary parts change sign (tfjs's conjugate transpose).
const transpose = (x, perm, conjugate) => withOne(x, 'x', 'transpose', 'numeric',
  (t) => wrap(native.transpose(t.id, permArg(perm, t.shape.length), !!conjugate)));

function concat(tensors, axis = 0) {
  if (tensors == null || !(tensors.length >= 1)) {
    throw new Error('Pass at least one tensor to concat');
  }
  const [ts, ids] = convertList(tensors, 'tensors', 'concat');
  try {
    return wrap(native.concat(ids, axisArg(axis, 0)));
  } finally {
    disposeTemps(tensors, ts, ts.length);
  }
}

function stack(tensors, axis = 0) {
  const [ts, ids] = convertList(tensors, 'tensors', 'stack');
  try {
    return wrap(native.stack(ids, axisArg(axis, 0)));
  } finally {
    disposeTemps(tensors, ts, ts.length);
  }
}

// tfjs's parseSliceParams reads begin/size as a number or a list (shorter than the rank:
// the core fills and checks them).
function sliceList(v, rank, fill, what) {
  if (typeof v === 'number') return [v, ...new Array(Math.max(rank - 1, 0)).fill(fill)];
  const list = listArg(v);
  if (!Array.isArray(list)) throw new Error(`slice() ${what} must be a number or a list of numbers but got ${String(v)}`);
  // (Entries that are not numbers are refused by the core's integer check.)
  return Array.from(list, (v) => (typeof v === 'number' ? v : NaN));
}

function slice(x, begin, size) {
  return withOne(x, 'x', 'slice', SON, (t) => {
    const rank = t.shape.length;
    if (rank === 0) throw new Error('Slicing scalar is not possible');
    return wrap(native.slice(t.id, sliceList(begin, rank, 0, 'begin'), size == null ? [] : sliceList(size, rank, -1, 'size')));
  });
}

const gather = (x, indices, axis = 0, batchDims = 0) =>
  withTwo('gather', x, 'x', 'numeric', indices, 'indices', 'int32',
    (tx, ti) => wrap(native.gather(tx.id, ti.id, axisArg(axis, 0), axisArg(batchDims, 0))));

function clone(x) {
  if (x instanceof Tensor) return wrap(native.clone(x.id));
  // Converting a TensorLike already makes a fresh tensor of its own.
  return withOne(x, 'x', 'clone', SON, (t) => wrap(native.clone(t.id)));
}

// ---- ops tfjs runs as kernels of their own, composed in the core (layout_composed.rs) ----

// Arguments as lists of numbers (the core checks that they are integers in range).
const numbers = (v) => Array.from(listArg(v), Number);
const flatPairs = (v) => Array.from(listArg(v), (p) => {
  const pair = listArg(p);
  return Array.isArray(pair) && pair.length === 2 ? [Number(pair[0]), Number(pair[1])] : [NaN, NaN];
}).flat();
const wrapIds = (ids) => ids.map(wrapId);

// The pieces of x along `axis` (tfjs's Unpack).
function unstack(x, axis = 0) {
  return withOne(x, 'x', 'unstack', SON, (t) => {
    const rank = t.shape.length;
    if (!(axis >= -rank && axis < rank)) throw new Error(`Axis = ${axis} is not in [-${rank}, ${rank})`);
    return wrapIds(native.unstack(t.id, axisArg(axis)));
  });
}

// tfjs's prepareSplitSize: a count that divides the axis, or sizes with at most one -1.
function split(x, numOrSizeSplits, axis = 0) {
  return withOne(x, 'x', 'split', 'numeric', (t) => {
    const a = axesArg(axis)[0];
    const count = typeof numOrSizeSplits === 'number' ? numOrSizeSplits : null;
    return wrapIds(native.split(t.id, count, count === null ? numbers(numOrSizeSplits) : null, a));
  });
}

function tile(x, reps) {
  return withOne(x, 'x', 'tile', SON, (t) => {
    const r = listArg(reps);
    if (!Array.isArray(r) || t.shape.length !== r.length) {
      throw new Error(`Error in transpose: rank of input ${t.shape.length} must match length of reps ${reps}.`);
    }
    return wrap(native.tile(t.id, Array.from(r, Number)));
  });
}

function broadcastTo(x, shape) {
  // (tfjs names the arguments this way round in its messages)
  return withOne(x, 'broadcastTo', 'x', 'numeric', (t) => {
    const target = listArg(shape);
    assertShape(target);
    return wrap(native.broadcastTo(t.id, Array.from(target, Number)));
  });
}

function reverse(x, axis) {
  return withOne(x, 'x', 'reverse', 'numeric', (t) => {
    const rank = t.shape.length;
    const axes = axis == null ? null : axesArg(axis);
    if (axes != null && !axes.every((a) => a >= -rank && a < rank)) {
      throw new Error(`All values in axis param must be in range [-${rank}, ${rank}) but got axis ${axis}`);
    }
    return wrap(native.reverse(t.id, axes));
  });
}

function pad(x, paddings, constantValue = 0) {
  return withOne(x, 'x', 'pad', 'numeric', (t) => {
    if (t.shape.length === 0) throw new Error('pad(scalar) is not defined. Pass non-scalar to pad');
    const p = listArg(paddings);
    const pairs = Array.isArray(p) ? p.map(listArg) : null;
    if (!pairs || pairs.length !== t.shape.length || !pairs.every((q) => Array.isArray(q) && q.length === 2)) {
      throw new Error('pad: paddings must be [before, after] pairs of non-negative integers, one ' +
        `per dimension (${t.shape.length}), but got ${JSON.stringify(paddings)}`);
    }
    return wrap(native.pad(t.id, flatPairs(pairs), Number(constantValue)));
  });
}

function mirrorPad(x, paddings, mode) {
  if (mode !== 'reflect' && mode !== 'symmetric') {
    throw new Error(`Invalid mode. Mode must be either reflect or symmetric. Got ${mode}.`);
  }
  return withOne(x, 'x', 'mirrorPad', 'numeric', (t) => {
    const rank = t.shape.length;
    if (rank === 0) throw new Error('mirrorPad(scalar) is not defined. Pass non-scalar to mirrorPad');
    const p = listArg(paddings);
    if (p.length !== rank) throw new Error(`Padding doesn't match input. Must be ${rank}. Got ${p.length}.`);
    if (!p.every((q) => listArg(q).length === 2)) throw new Error('Invalid number of paddings. Must be length of 2 each.');
    return wrap(native.mirrorPad(t.id, flatPairs(p), mode));
  });
}

// The coordinates of the true elements, [n, rank] int32 (after awaiting the values, so no
// GPU read blocks).
async function whereAsync(condition) {
  const t = convertToTensor(condition, 'condition', 'whereAsync', 'bool');
  try {
    await t.data();
    return wrap(native.whereTrue(t.id));
  } finally {
    if (t !== condition) t.dispose();
  }
}

// The slices of tensor where mask is true: the mask's values are awaited here, then the core
// reads them (crates/core/src/ops/dynamic.rs) and gathers.
async function booleanMaskAsync(tensor, mask, axis) {
  const t = convertToTensor(tensor, 'tensor', 'boolMask');
  let m;
  try {
    m = convertToTensor(mask, 'mask', 'boolMask', 'bool');
    await m.data();
    return wrap(native.booleanMask(t.id, m.id, axis == null ? 0 : num(axis)));
  } finally {
    if (t !== tensor) t.dispose();
    if (m !== undefined && m !== mask) m.dispose();
  }
}

// The values of x not in y, and their indices.
async function setdiff1dAsync(x, y) {
  const tx = convertToTensor(x, 'x', 'setdiff1d');
  let ty;
  try {
    ty = convertToTensor(y, 'y', 'setdiff1d');
    await Promise.all([tx.data(), ty.data()]);
    return native.setdiff1d(tx.id, ty.id).map(wrapId);
  } finally {
    if (tx !== x) tx.dispose();
    if (ty !== undefined && ty !== y) ty.dispose();
  }
}

// gatherND: the slices of x at the index tuples of the last axis of `indices` (a flat gather).
function gatherND(x, indices) {
  const ti = convertToTensor(indices, 'indices', 'gatherND', 'int32');
  let tx;
  try {
    tx = convertToTensor(x, 'x', 'gatherND', SON);
    return wrap(native.gatherND(tx.id, ti.id));
  } finally {
    if (ti !== indices) ti.dispose();
    if (tx !== undefined && tx !== x) tx.dispose();
  }
}

function spaceToBatchND(x, blockShape, paddings) {
  return withOne(x, 'x', 'spaceToBatchND', 'numeric', (t) =>
    wrap(native.spaceToBatchND(t.id, numbers(blockShape), flatPairs(paddings))));
}

function batchToSpaceND(x, blockShape, crops) {
  return withOne(x, 'x', 'batchToSpaceND', 'numeric', (t) =>
    wrap(native.batchToSpaceND(t.id, numbers(blockShape), flatPairs(crops))));
}

// The distinct values (or slices along `axis`) in order of first appearance, and for each
// element the index of its value there (read on the host, as tfjs's kernel does).
function unique(x, axis = 0) {
  return withOne(x, 'x', 'unique', SON, (t) => {
    const rank = t.shape.length;
    if (rank === 0) throw new Error('The input tensor must be at least 1D');
    // tfjs's parseAxisParam: null is every axis; every axis listed must be in range; the
    // first is used.
    const axes = axis === null ? [...Array(rank).keys()] : axesArg(axis);
    if (!axes.every((a) => a >= -rank && a < rank)) {
      throw new Error(`All values in axis param must be in range [-${rank}, ${rank}) but got axis ${axis}`);
    }
    if (axes.length === 0) throw new Error('unique: the axis must name one axis, but got []');
    const [values, indices] = native.unique(t.id, axes[0]).map(wrapId);
    return { values, indices };
  });
}

// TensorFlow's strided-slice spec (ellipsis, new and shrunk axes), as the core reads it.
function stridedSlice(x, begin, end, strides, beginMask = 0, endMask = 0, ellipsisMask = 0,
  newAxisMask = 0, shrinkAxisMask = 0) {
  const masks = [beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask].map((m) => m | 0);
  return withOne(x, 'x', 'stridedSlice', SON, (t) => wrap(native.stridedSlice(t.id, numbers(begin), numbers(end),
    strides == null ? null : numbers(strides), masks)));
}

function scatterND(indices, updates, shape) {
  const dims = listArg(shape);
  assertShape(dims);
  const ti = convertToTensor(indices, 'indices', 'scatterND', 'int32');
  let tu;
  try {
    tu = convertToTensor(updates, 'updates', 'scatterND');
    return wrap(native.scatterND(ti.id, tu.id, Array.from(dims, Number)));
  } finally {
    if (ti !== indices) ti.dispose();
    if (tu !== undefined && tu !== updates) tu.dispose();
  }
}

function tensorScatterUpdate(tensor, indices, updates) {
  return withMany('tensorScatterupdate', [[tensor, 'tensor'], [indices, 'indices', 'int32'], [updates, 'updates']],
    ([tt, ti, tu]) => wrap(native.tensorScatterUpdate(tt.id, ti.id, tu.id)));
}

const P = Tensor.prototype;
P.spaceToBatchND = function (blockShape, paddings) { return spaceToBatchND(this, blockShape, paddings); };
P.batchToSpaceND = function (blockShape, crops) { return batchToSpaceND(this, blockShape, crops); };
P.unique = function (axis) { return unique(this, axis); };
P.unsortedSegmentSum = function (segmentIds, numSegments) { return unsortedSegmentSum(this, segmentIds, numSegments); };
P.depthToSpace = function (blockSize, dataFormat) { return depthToSpace(this, blockSize, dataFormat); };
P.stridedSlice = function (begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask) {
  return stridedSlice(this, begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask);
};
P.mirrorPad = function (paddings, mode) { return mirrorPad(this, paddings, mode); };
P.unstack = function (axis) { return unstack(this, axis); };
P.split = function (numOrSizeSplits, axis) { return split(this, numOrSizeSplits, axis); };
P.tile = function (reps) { return tile(this, reps); };
P.broadcastTo = function (shape) { return broadcastTo(this, shape); };
P.reverse = function (axis) { return reverse(this, axis); };
P.pad = function (paddings, constantValue) { return pad(this, paddings, constantValue); };
P.reshape = function (shape) { return reshape(this, shape); };
P.reshapeAs = function (x) { return reshape(this, x.shape); };
P.expandDims = function (axis) { return expandDims(this, axis); };
P.squeeze = function (axis) { return squeeze(this, axis); };
P.transpose = function (perm) { return transpose(this, perm); };
P.concat = function (x, axis) {
  return concat(x instanceof Tensor ? [this, x] : [this].concat(x), axis);
};
P.stack = function (x, axis) {
  return stack(x instanceof Tensor ? [this, x] : [this].concat(x), axis);
};
P.slice = function (begin, size) { return slice(this, begin, size); };
P.gather = function (indices, axis, batchDims) { return gather(this, indices, axis, batchDims); };
P.clone = function () { return clone(this); };
P.flatten = function () { return reshape(this, [this.size]); };
P.asScalar = function () {
  if (this.size !== 1) throw new Error('The array must have only 1 element.');
  return reshape(this, []);
};
P.as1D = function () { return reshape(this, [this.size]); };
P.as2D = function (rows, columns) { return reshape(this, [rows, columns]); };
P.as3D = function (rows, columns, depth) { return reshape(this, [rows, columns, depth]); };
P.as4D = function (rows, columns, depth, depth2) {
  return reshape(this, [rows, columns, depth, depth2]);
};
P.as5D = function (rows, columns, depth, depth2, depth3) {
  return reshape(this, [rows, columns, depth, depth2, depth3]);
};

// --- Segment sums, counts and sorted search (crates/core/src/ops/reduce_composed.rs) ---

// tf.unsortedSegmentSum: rows of x summed by segment id; ids outside [0, numSegments) are
// dropped (tfjs's kernels compare each id with each segment).
function unsortedSegmentSum(x, segmentIds, numSegments) {
  return withOne(x, 'x', 'unsortedSegmentSum', 'numeric', (tx) =>
    withOne(segmentIds, 'segmentIds', 'unsortedSegmentSum', 'int32', (ids) => {
      if (!Number.isInteger(numSegments)) throw new Error('numSegments must be of dtype int');
      return wrap(native.unsortedSegmentSum(tx.id, ids.id, numSegments));
    }));
}

function bincount(x, weights, size) {
  return withTwo('bincount', x, 'x', 'numeric', weights, 'weights', 'numeric', (tx, tw) =>
    wrap(native.bincount(tx.id, tw.id, Number(size), false, false)));
}

function denseBincount(x, weights, size, binaryOutput = false) {
  return withTwo('denseBincount', x, 'x', 'numeric', weights, 'weights', 'numeric', (tx, tw) =>
    wrap(native.bincount(tx.id, tw.id, Number(size), true, !!binaryOutput)));
}

// tf.searchSorted: for each value, how many entries of its row of the sorted sequence are
// below it ('left') or at most it ('right').
function searchSorted(sortedSequence, values, side = 'left') {
  return withTwo('searchSorted', sortedSequence, 'sortedSequence', 'numeric', values, 'values', 'numeric',
    (ts, tv) => wrap(native.searchSorted(ts.id, tv.id, side === 'right')));
}

const lowerBound = (sortedSequence, values) => searchSorted(sortedSequence, values, 'left');
const upperBound = (sortedSequence, values) => searchSorted(sortedSequence, values, 'right');

// tf.depthToSpace: blocks of channels moved into blockSize x blockSize spatial blocks.
function depthToSpace(x, blockSize, dataFormat = 'NHWC') {
  return withOne(x, 'x', 'depthToSpace', 'float32', (t) =>
    wrap(native.depthToSpace(t.id, Number(blockSize), String(dataFormat))));
}

// tf.broadcastArgs: the broadcast of two int32 shapes, computed from their values.
function broadcastArgs(s0, s1) {
  return withTwo('broadcastArgs', s0, 's0', 'int32', s1, 's1', 'int32', (a, b) => wrap(native.broadcastArgs(a.id, b.id)));
}

// tf.sparseToDense: defaultValue everywhere but at the indices, which take the values (the
// last of repeated indices wins).
function sparseToDense(sparseIndices, sparseValues, outputShape, defaultValue = 0) {
  const shape = listArg(outputShape);
  assertShape(shape);
  return withMany('sparseToDense', [[sparseIndices, 'sparseIndices', 'int32'],
    [sparseValues, 'sparseValues', 'string_or_numeric']], ([ti, tv]) =>
    withMany('sparseToDense', [[defaultValue, 'defaultValue', tv.dtype]], ([td]) =>
      wrap(native.sparseToDense(ti.id, tv.id, Array.from(shape, Number), td.id))));
}

module.exports = {
  broadcastArgs, sparseToDense,
  unsortedSegmentSum, bincount, denseBincount, searchSorted, lowerBound, upperBound, depthToSpace,
  reshape, expandDims, squeeze, transpose, concat, stack, slice, gather, clone,
  unstack, split, tile, broadcastTo, reverse, pad, mirrorPad, whereAsync, booleanMaskAsync, setdiff1dAsync,
  gatherND, spaceToBatchND, batchToSpaceND, unique, stridedSlice, scatterND, tensorScatterUpdate,
};
// For tf.slice_util.parseSliceParams (lib/internals/slice_util.js), not a tf.* name.
Object.defineProperty(module.exports, 'sliceList', { value: sliceList });
