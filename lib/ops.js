'use strict';
// Operations: argument conversion (TensorLike -> temporary tensors, axis/shape normalisation,
// defaults) around one native call each. Validation of shapes, axes and dtypes is native.
//
// Hot path rules: no closures, rest arguments or extra arrays unless an argument needs
// converting; profiling costs one boolean check per op.
const native = require('./native');
const state = require('./state');
const { Tensor, wrap } = require('./tensor');
const {
  makeTensor, convertToTensor, inferShape, inferDtype, assertShape, isTypedArray,
  checkDtype, STRING_UNSUPPORTED,
} = require('./convert');

const meta = state.meta;

// ---------------------------------------------------------------------------------------------
// Profiling (tf.profile): one record per native op call, in tfjs's kernel record format.

function record(kernelName, inputs, fn, a, b, c, d, e) {
  const before = native.memory();
  const t0 = performance.now();
  const id = fn(a, b, c, d, e);
  const t1 = performance.now();
  const saved = meta.slice();
  const rank = meta[1];
  const outShape = Array.from(meta.subarray(2, 2 + rank));
  const after = native.memory();
  meta.set(saved);
  state.kernels.push({
    name: kernelName,
    bytesAdded: after.numBytes - before.numBytes,
    totalBytesSnapshot: after.numBytes,
    tensorsAdded: after.numTensors - before.numTensors,
    totalTensorsSnapshot: after.numTensors,
    inputShapes: inputs.map((t) => (t == null ? null : t.shape)),
    outputShapes: [outShape],
    kernelTimeMs: t1 - t0,
    extraInfo: '',
  });
  return id;
}

// ---------------------------------------------------------------------------------------------
// Unary ops

function unary(fn, kernel, opName, parseAs, x) {
  const t = x instanceof Tensor && parseAs === 'numeric' ? x :
    convertToTensor(x, 'x', opName, parseAs);
  if (t === x) {
    return wrap(state.profiling ? record(kernel, [t], fn, t.id) : fn(t.id));
  }
  try {
    return wrap(state.profiling ? record(kernel, [t], fn, t.id) : fn(t.id));
  } finally {
    t.dispose();
  }
}

const neg = (x) => unary(native.neg, 'Neg', 'neg', 'numeric', x);
const square = (x) => unary(native.square, 'Square', 'square', 'numeric', x);
const sqrt = (x) => unary(native.sqrt, 'Sqrt', 'sqrt', 'float32', x);
const exp = (x) => unary(native.exp, 'Exp', 'exp', 'numeric', x);
const log = (x) => unary(native.log, 'Log', 'log', 'float32', x);
const abs = (x) => unary(native.abs, 'Abs', 'abs', 'numeric', x);
const relu = (x) => unary(native.relu, 'Relu', 'relu', 'numeric', x);
const sigmoid = (x) => unary(native.sigmoid, 'Sigmoid', 'sigmoid', 'float32', x);
const tanh = (x) => unary(native.tanh, 'Tanh', 'tanh', 'float32', x);

// ---------------------------------------------------------------------------------------------
// Binary ops (broadcasting and dtype rules are native)

// Converts two TensorLike arguments, runs `run(ta, tb)`, then disposes the temporaries the
// conversion made, also when the second conversion or the op throws.
function withTwo(opName, a, aName, aDtype, b, bName, bDtype, run) {
  const ta = convertToTensor(a, aName, opName, aDtype);
  let tb;
  try {
    tb = convertToTensor(b, bName, opName, bDtype);
    return run(ta, tb);
  } finally {
    if (ta !== a) ta.dispose();
    if (tb !== undefined && tb !== b) tb.dispose();
  }
}

function binary(fn, kernel, opName, aName, bName, a, b) {
  if (a instanceof Tensor && b instanceof Tensor) {
    return wrap(state.profiling ? record(kernel, [a, b], fn, a.id, b.id) : fn(a.id, b.id));
  }
  return withTwo(opName, a, aName, 'numeric', b, bName, 'numeric', (ta, tb) =>
    wrap(state.profiling ? record(kernel, [ta, tb], fn, ta.id, tb.id) : fn(ta.id, tb.id)));
}

const add = (a, b) => binary(native.add, 'Add', 'add', 'a', 'b', a, b);
const sub = (a, b) => binary(native.sub, 'Sub', 'sub', 'a', 'b', a, b);
const mul = (a, b) => binary(native.mul, 'Multiply', 'mul', 'a', 'b', a, b);
const maximum = (a, b) => binary(native.maximum, 'Maximum', 'maximum', 'a', 'b', a, b);
const minimum = (a, b) => binary(native.minimum, 'Minimum', 'minimum', 'a', 'b', a, b);
const pow = (base, e) => binary(native.pow, 'Pow', 'pow', 'base', 'exp', base, e);
function div(a, b) {
  const floor = a instanceof Tensor && b instanceof Tensor && a.dtype === 'int32' &&
    b.dtype === 'int32';
  return binary(native.div, floor ? 'FloorDiv' : 'RealDiv', 'div', 'a', 'b', a, b);
}

function matMul(a, b, transposeA = false, transposeB = false) {
  const tA = !!transposeA;
  const tB = !!transposeB;
  return withTwo('matMul', a, 'a', 'numeric', b, 'b', 'numeric', (ta, tb) => wrap(state.profiling ?
    record('BatchMatMul', [ta, tb], native.matMul, ta.id, tb.id, tA, tB) :
    native.matMul(ta.id, tb.id, tA, tB)));
}

// ---------------------------------------------------------------------------------------------
// Reductions

// Axes travel to native as integers; anything else (NaN, 1.5, '0') is refused here, where it
// can still be named, instead of being truncated on the way.
function axesArg(axis) {
  if (axis == null) return null;
  const axes = typeof axis === 'number' ? [axis] : axis;
  if (!Array.isArray(axes) || !axes.every(Number.isInteger)) {
    throw new Error(`All values in axis param must be integers but got axis ${axis}`);
  }
  return axes;
}

function axisArg(axis) {
  if (!Number.isInteger(axis)) throw new Error(`The axis must be an integer but got ${axis}`);
  return axis;
}

function reduce(fn, kernel, opName, x, axis, keepDims) {
  const t = convertToTensor(x, 'x', opName, 'numeric');
  const axes = axesArg(axis);
  const keep = !!keepDims;
  try {
    return wrap(state.profiling ?
      record(kernel, [t], fn, t.id, axes, keep) : fn(t.id, axes, keep));
  } finally {
    if (t !== x) t.dispose();
  }
}

const sum = (x, axis = null, keepDims = false) => reduce(native.sum, 'Sum', 'sum', x, axis, keepDims);
const mean = (x, axis = null, keepDims = false) =>
  reduce(native.mean, 'Mean', 'mean', x, axis, keepDims);
const max = (x, axis = null, keepDims = false) => reduce(native.max, 'Max', 'max', x, axis, keepDims);
const min = (x, axis = null, keepDims = false) => reduce(native.min, 'Min', 'min', x, axis, keepDims);

function argReduce(fn, kernel, opName, x, axis) {
  const t = convertToTensor(x, 'x', opName, 'numeric');
  try {
    axisArg(axis);
    return wrap(state.profiling ? record(kernel, [t], fn, t.id, axis) : fn(t.id, axis));
  } finally {
    if (t !== x) t.dispose();
  }
}

const argMax = (x, axis = 0) => argReduce(native.argMax, 'ArgMax', 'argMax', x, axis);
const argMin = (x, axis = 0) => argReduce(native.argMin, 'ArgMin', 'argMin', x, axis);

function softmax(logits, dim = -1) {
  const t = convertToTensor(logits, 'logits', 'softmax', 'float32');
  try {
    axisArg(dim);
    return wrap(state.profiling ?
      record('Softmax', [t], native.softmax, t.id, dim) : native.softmax(t.id, dim));
  } finally {
    if (t !== logits) t.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Shape ops

function reshape(x, shape) {
  const t = convertToTensor(x, 'x', 'reshape', 'string_or_numeric');
  try {
    return wrap(state.profiling ?
      record('Reshape', [t], native.reshape, t.id, shape) : native.reshape(t.id, shape));
  } finally {
    if (t !== x) t.dispose();
  }
}

function expandDims(x, axis = 0) {
  const t = convertToTensor(x, 'x', 'expandDims', 'string_or_numeric');
  try {
    axisArg(axis);
    return wrap(state.profiling ?
      record('ExpandDims', [t], native.expandDims, t.id, axis) :
      native.expandDims(t.id, axis));
  } finally {
    if (t !== x) t.dispose();
  }
}

function squeeze(x, axis) {
  const t = convertToTensor(x, 'x', 'squeeze', 'string_or_numeric');
  const axes = axis == null || (Array.isArray(axis) && axis.length === 0) ? null : axesArg(axis);
  try {
    return wrap(state.profiling ?
      record('Reshape', [t], native.squeeze, t.id, axes) : native.squeeze(t.id, axes));
  } finally {
    if (t !== x) t.dispose();
  }
}

function transpose(x, perm) {
  const t = convertToTensor(x, 'x', 'transpose', 'numeric');
  const p = perm == null ? null : perm;
  try {
    return wrap(state.profiling ?
      record(t.shape.length <= 1 ? 'Identity' : 'Transpose', [t], native.transpose, t.id, p) :
      native.transpose(t.id, p));
  } finally {
    if (t !== x) t.dispose();
  }
}

// Converts a list argument; returns [tensors, ids]. On error, disposes what it converted.
function convertList(list, argName, fnName) {
  if (!Array.isArray(list)) {
    throw new Error(`Argument ${argName} passed to ${fnName} must be a ` +
      '`Tensor[]` or `TensorLike[]`');
  }
  const tensors = new Array(list.length);
  const ids = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    try {
      tensors[i] = convertToTensor(list[i], `${argName}[${i}]`, fnName, 'string_or_numeric');
    } catch (e) {
      disposeTemps(list, tensors, i);
      throw e;
    }
    ids[i] = tensors[i].id;
  }
  return [tensors, ids];
}

function disposeTemps(list, tensors, n) {
  for (let i = 0; i < n; i++) if (tensors[i] !== list[i]) tensors[i].dispose();
}

function concat(tensors, axis = 0) {
  if (tensors == null || !(tensors.length >= 1)) {
    throw new Error('Pass at least one tensor to concat');
  }
  const [ts, ids] = convertList(tensors, 'tensors', 'concat');
  try {
    axisArg(axis);
    return wrap(state.profiling ?
      record(ts.length === 1 ? 'Identity' : 'Concat', ts, native.concat, ids, axis) :
      native.concat(ids, axis));
  } finally {
    disposeTemps(tensors, ts, ts.length);
  }
}

function stack(tensors, axis = 0) {
  const [ts, ids] = convertList(tensors, 'tensors', 'stack');
  try {
    if (ts.length < 1) throw new Error('Pass at least one tensor to tf.stack');
    axisArg(axis);
    if (axis > ts[0].shape.length) throw new Error('Axis must be <= rank of the tensor');
    return wrap(state.profiling ?
      record('Pack', ts, native.stack, ids, axis) : native.stack(ids, axis));
  } finally {
    disposeTemps(tensors, ts, ts.length);
  }
}

// tfjs's parseSliceParams: begin/size may be a number or shorter than the rank.
function sliceBegin(begin, rank) {
  const out = new Array(rank);
  if (typeof begin === 'number') {
    out[0] = begin;
    for (let i = 1; i < rank; i++) out[i] = 0;
  } else {
    for (let i = 0; i < rank; i++) out[i] = i < begin.length ? begin[i] : 0;
    for (let i = rank; i < begin.length; i++) out.push(begin[i]);
  }
  for (let i = 0; i < out.length; i++) {
    if (out[i] === -1) throw new Error('slice() does not support negative begin indexing.');
  }
  return out;
}

function sliceSize(size, rank) {
  let out;
  if (size == null) {
    out = new Array(rank).fill(-1);
  } else if (typeof size === 'number') {
    out = new Array(rank).fill(-1);
    out[0] = size;
  } else if (size.length < rank) {
    out = size.concat(new Array(rank - size.length).fill(-1));
  } else {
    out = size.slice();
  }
  for (let i = 0; i < out.length; i++) {
    if (out[i] < 0 && out[i] !== -1) {
      throw new Error(`Negative size values should be exactly -1 but got ${out[i]} ` +
        `for the slice() size at index ${i}.`);
    }
  }
  return out;
}

function slice(x, begin, size) {
  const t = convertToTensor(x, 'x', 'slice', 'string_or_numeric');
  try {
    const rank = t.shape.length;
    if (rank === 0) throw new Error('Slicing scalar is not possible');
    const b = sliceBegin(begin, rank);
    const s = sliceSize(size, rank);
    return wrap(state.profiling ?
      record('Slice', [t], native.slice, t.id, b, s) : native.slice(t.id, b, s));
  } finally {
    if (t !== x) t.dispose();
  }
}

function gather(x, indices, axis = 0, batchDims = 0) {
  return withTwo('gather', x, 'x', 'numeric', indices, 'indices', 'int32', (tx, ti) => {
    axisArg(axis);
    axisArg(batchDims);
    return wrap(state.profiling ?
      record('GatherV2', [tx, ti], native.gather, tx.id, ti.id, axis, batchDims) :
      native.gather(tx.id, ti.id, axis, batchDims));
  });
}

function clone(x) {
  const t = convertToTensor(x, 'x', 'clone', 'string_or_numeric');
  if (t !== x) return t; // already a fresh tensor of its own
  return wrap(state.profiling ?
    record('Identity', [t], native.clone, t.id) : native.clone(t.id));
}

const VALID_DTYPES = ['float32', 'int32', 'bool', 'string', 'complex64'];

function cast(x, dtype) {
  const t = convertToTensor(x, 'x', 'cast', 'numeric');
  try {
    if (VALID_DTYPES.indexOf(dtype) < 0) throw new Error(`Failed to cast to unknown dtype ${dtype}`);
    if (dtype === 'string') throw new Error('Only strings can be casted to strings');
    return wrap(state.profiling ?
      record('Cast', [t], native.cast, t.id, dtype) : native.cast(t.id, dtype));
  } finally {
    if (t !== x) t.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Creation

function tensor(values, shape, dtype) {
  return makeTensor(values, shape, inferShape(values), dtype);
}

function scalar(value, dtype) {
  if (((isTypedArray(value) && dtype !== 'string') || Array.isArray(value)) &&
      dtype !== 'complex64') {
    throw new Error('Error creating a new Scalar: value must be a primitive ' +
      '(number|boolean|string)');
  }
  return makeTensor(value, [], [], dtype);
}

function assertNonNull(values) {
  if (values == null) {
    throw new Error('The input to the tensor constructor must be a non-null value.');
  }
}

function tensor1d(values, dtype) {
  assertNonNull(values);
  const inferred = inferShape(values);
  if (inferred.length !== 1) throw new Error('tensor1d() requires values to be a flat/TypedArray');
  return makeTensor(values, null, inferred, dtype);
}

const RANK_WORDS = ['', '', 'two', 'three', 'four', 'five', 'six'];

function tensorNd(rank, values, shape, dtype) {
  assertNonNull(values);
  if (shape != null && shape.length !== rank) {
    throw new Error(`tensor${rank}d() requires shape to have ${RANK_WORDS[rank]} numbers`);
  }
  const inferred = inferShape(values);
  if (inferred.length !== rank && inferred.length !== 1) {
    throw new Error(`tensor${rank}d() requires values to be ` +
      `number${'[]'.repeat(rank)} or flat/TypedArray`);
  }
  if (inferred.length === 1 && shape == null) {
    throw new Error(`tensor${rank}d() requires shape to be provided when \`values\` ` +
      `are a flat${rank === 2 ? '/TypedArray' : ' array'}`);
  }
  return makeTensor(values, shape, inferred, dtype);
}

const tensor2d = (values, shape, dtype) => tensorNd(2, values, shape, dtype);
const tensor3d = (values, shape, dtype) => tensorNd(3, values, shape, dtype);
const tensor4d = (values, shape, dtype) => tensorNd(4, values, shape, dtype);
const tensor5d = (values, shape, dtype) => tensorNd(5, values, shape, dtype);
const tensor6d = (values, shape, dtype) => tensorNd(6, values, shape, dtype);

function zeros(shape, dtype = 'float32') {
  assertShape(shape);
  checkDtype(dtype);
  return wrap(native.fill(shape, 0, dtype));
}

function ones(shape, dtype = 'float32') {
  assertShape(shape);
  checkDtype(dtype);
  return wrap(native.fill(shape, 1, dtype));
}

function fill(shape, value, dtype) {
  assertShape(shape);
  dtype = dtype || inferDtype(value);
  checkDtype(dtype);
  const v = Number(value);
  return wrap(state.profiling ?
    record('Fill', [], native.fill, shape, v, dtype) : native.fill(shape, v, dtype));
}

function likeOp(x, opName, kernel, value) {
  const t = convertToTensor(x, 'x', opName, 'numeric');
  try {
    return wrap(state.profiling ?
      record(kernel, [t], native.fill, t.shape, value, t.dtype) :
      native.fill(t.shape, value, t.dtype));
  } finally {
    if (t !== x) t.dispose();
  }
}

const zerosLike = (x) => likeOp(x, 'zerosLike', 'ZerosLike', 0);
const onesLike = (x) => likeOp(x, 'onesLike', 'OnesLike', 1);

function range(start, stop, step = 1, dtype = 'float32') {
  if (step === 0) throw new Error('Cannot have a step of zero');
  checkDtype(dtype);
  return wrap(state.profiling ?
    record('Range', [], native.range, start, stop, step, dtype) :
    native.range(start, stop, step, dtype));
}

function linspace(start, stop, num) {
  if (num <= 0) throw new Error('The number of values should be positive.');
  return wrap(state.profiling ?
    record('LinSpace', [], native.linspace, start, stop, num) :
    native.linspace(start, stop, num));
}

function eye(numRows, numColumns, batchShape, dtype = 'float32') {
  if (numColumns == null) numColumns = numRows;
  checkDtype(dtype);
  const bs = batchShape == null ? null : batchShape;
  if (bs != null && bs.length > 3) {
    throw new Error('eye() currently supports only 1D and 2D ' +
      `batchShapes, but received ${bs.length}D.`);
  }
  return wrap(state.profiling ?
    record('Reshape', [], native.eye, numRows, numColumns, bs, dtype) :
    native.eye(numRows, numColumns, bs, dtype));
}

function oneHot(indices, depth, onValue = 1, offValue = 0, dtype = 'int32') {
  if (depth < 2) throw new Error(`Error in oneHot: depth must be >=2, but it is ${depth}`);
  const t = convertToTensor(indices, 'indices', 'oneHot', 'int32');
  try {
    return wrap(state.profiling ?
      record('OneHot', [t], native.oneHot, t.id, depth, onValue, offValue, dtype) :
      native.oneHot(t.id, depth, onValue, offValue, dtype));
  } finally {
    if (t !== indices) t.dispose();
  }
}

function seedArg(seed) {
  if (seed == null) return null;
  if (typeof seed === 'number') return seed;
  // tfjs accepts any seedrandom seed; fold a string into a 32-bit number.
  const s = String(seed);
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function randomNormal(shape, mean = 0, stdDev = 1, dtype, seed) {
  assertShape(shape);
  if (dtype === 'bool') throw new Error(`Unsupported data type ${dtype}`);
  const dt = dtype == null ? 'float32' : dtype;
  checkDtype(dt);
  return wrap(native.randomNormal(shape, mean, stdDev, dt, seedArg(seed)));
}

function truncatedNormal(shape, mean = 0, stdDev = 1, dtype, seed) {
  assertShape(shape);
  if (dtype === 'bool') throw new Error(`Unsupported data type ${dtype}`);
  const dt = dtype == null ? 'float32' : dtype;
  checkDtype(dt);
  return wrap(native.truncatedNormal(shape, mean, stdDev, dt, seedArg(seed)));
}

function randomUniform(shape, minval = 0, maxval = 1, dtype = 'float32', seed) {
  assertShape(shape);
  checkDtype(dtype);
  return wrap(native.randomUniform(shape, minval, maxval, dtype, seedArg(seed)));
}

// ---------------------------------------------------------------------------------------------
// Chained methods on Tensor.prototype (tfjs's chained_ops). A disposed receiver makes the
// native call throw 'Tensor is disposed.'.

const P = Tensor.prototype;
P.add = function (b) { return add(this, b); };
P.sub = function (b) { return sub(this, b); };
P.mul = function (b) { return mul(this, b); };
P.div = function (b) { return div(this, b); };
P.maximum = function (b) { return maximum(this, b); };
P.minimum = function (b) { return minimum(this, b); };
P.pow = function (e) { return pow(this, e); };
P.neg = function () { return neg(this); };
P.square = function () { return square(this); };
P.sqrt = function () { return sqrt(this); };
P.exp = function () { return exp(this); };
P.log = function () { return log(this); };
P.abs = function () { return abs(this); };
P.relu = function () { return relu(this); };
P.sigmoid = function () { return sigmoid(this); };
P.tanh = function () { return tanh(this); };
P.matMul = function (b, transposeA, transposeB) { return matMul(this, b, transposeA, transposeB); };
P.sum = function (axis, keepDims) { return sum(this, axis, keepDims); };
P.mean = function (axis, keepDims) { return mean(this, axis, keepDims); };
P.max = function (axis, keepDims) { return max(this, axis, keepDims); };
P.min = function (axis, keepDims) { return min(this, axis, keepDims); };
P.argMax = function (axis) { return argMax(this, axis); };
P.argMin = function (axis) { return argMin(this, axis); };
P.softmax = function (dim) { return softmax(this, dim); };
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
P.cast = function (dtype) { return cast(this, dtype); };
P.oneHot = function (depth, onValue, offValue, dtype) {
  return oneHot(this, depth, onValue, offValue, dtype);
};
P.zerosLike = function () { return zerosLike(this); };
P.onesLike = function () { return onesLike(this); };
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
P.asType = function (dtype) { return cast(this, dtype); };

module.exports = {
  neg, square, sqrt, exp, log, abs, relu, sigmoid, tanh,
  add, sub, mul, div, maximum, minimum, pow, matMul,
  sum, mean, max, min, argMax, argMin, softmax,
  reshape, expandDims, squeeze, transpose, concat, stack, slice, gather, clone, cast,
  tensor, scalar, tensor1d, tensor2d, tensor3d, tensor4d, tensor5d, tensor6d,
  zeros, ones, fill, zerosLike, onesLike, range, linspace, eye, oneHot,
  randomNormal, randomUniform, truncatedNormal,
  STRING_UNSUPPORTED,
};
