'use strict';
// Creation: tensor, scalar, tensor1d ... tensor6d, zeros, ones, fill, zerosLike, onesLike,
// range, linspace, eye, oneHot, randomNormal, randomUniform, truncatedNormal, buffer. The lowest
// op family: the others make their tensors with it; the creation ops composed of other
// families (meshgrid, diag, multinomial, dropout) are creation_composed.js's.
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
// tf.tensor is convert.js's (the modules below the ops make tensors with it too).
const { tensor, makeTensor, inferShape, inferDtype, assertShape, isTypedArray, checkDtype, createStrings } =
  require('../convert');
const { buffer, installBufferMethods } = require('../buffer');
const { withOne, num, dtypeArg, listArg } = require('./args');

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
  const inferred = inferShape(values, dtype);
  if (inferred.length !== 1) throw new Error('tensor1d() requires values to be a flat/TypedArray');
  return makeTensor(values, null, inferred, dtype);
}

const RANK_WORDS = ['', '', 'two', 'three', 'four', 'five', 'six'];

function tensorNd(rank, values, shape, dtype) {
  assertNonNull(values);
  if (shape != null && shape.length !== rank) {
    throw new Error(`tensor${rank}d() requires shape to have ${RANK_WORDS[rank]} numbers`);
  }
  const inferred = inferShape(values, dtype);
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

// A shape argument: a list (typed arrays and Proxies too) of non-negative integers.
function shapeArg(shape) {
  const list = listArg(shape);
  if (!Array.isArray(list)) {
    throw new Error(`Tensor must have a shape comprised of positive integers but got shape [${shape}].`);
  }
  assertShape(list);
  return list;
}

// complex64 zeros and ones are (0, 0) and (1, 0) pairs, as in tfjs.
function zeros(shape, dtype) {
  dtype = dtypeArg(dtype, 'float32');
  if (dtype !== 'complex64') checkDtype(dtype);
  return wrap(native.filled(shapeArg(shape), 0, dtype));
}

function ones(shape, dtype) {
  dtype = dtypeArg(dtype, 'float32');
  if (dtype !== 'complex64') checkDtype(dtype);
  return wrap(native.filled(shapeArg(shape), 1, dtype));
}

function fill(shape, value, dtype) {
  const dims = shapeArg(shape);
  dtype = dtype || inferDtype(value);
  checkDtype(dtype);
  if (dtype === 'string') {
    return createStrings(new Array(dims.reduce((a, b) => a * b, 1)).fill(value), dims);
  }
  return wrap(native.fill(dims, num(value), dtype));
}

const zerosLike = (x) => withOne(x, 'x', 'zerosLike', 'numeric', (t) => wrap(native.fillLike(t.id, 0)));
const onesLike = (x) => withOne(x, 'x', 'onesLike', 'numeric', (t) => wrap(native.fillLike(t.id, 1)));

function range(start, stop, step = 1, dtype) {
  dtype = dtypeArg(dtype, 'float32');
  checkDtype(dtype);
  // JavaScript numbers, as tfjs computes with them: range(3) has stop NaN, so it is empty.
  return wrap(native.range(num(start), num(stop), num(step), dtype));
}

function linspace(start, stop, num_) {
  const n = num(num_);
  if (n <= 0) throw new Error('The number of values should be positive.');
  // tfjs makes a tensor of a fractional or NaN length from such a count; refuse it.
  if (!Number.isSafeInteger(n)) throw new Error(`linspace: the number of values must be an integer but got ${num_}`);
  return wrap(native.linspace(num(start), num(stop), n));
}

function eye(numRows, numColumns, batchShape, dtype) {
  if (numColumns == null) numColumns = numRows;
  // tfjs's empty string too means the default here.
  dtype = dtype || 'float32';
  checkDtype(dtype);
  let batch = [];
  if (batchShape != null) {
    const bs = listArg(batchShape);
    if (!(bs.length >= 1 && bs.length <= 3)) {
      throw new Error('eye() currently supports only 1D and 2D ' +
        `batchShapes, but received ${bs.length}D.`);
    }
    // tfjs tiles by the batch dimensions, which reads them as numbers.
    batch = Array.from(bs, Number);
  }
  assertShape([...batch, numRows, numColumns]);
  return wrap(native.eye(numRows, numColumns, batch, dtype));
}

function oneHot(indices, depth, onValue = 1, offValue = 0, dtype = 'int32') {
  const d = num(depth);
  if (!(d >= 2)) throw new Error(`Error in oneHot: depth must be >=2, but it is ${depth}`);
  // tfjs makes a tensor of a fractional last dimension from such a depth; refuse it.
  if (!Number.isSafeInteger(d)) throw new Error(`Error in oneHot: depth must be an integer, but it is ${depth}`);
  // tfjs's OneHot kernel makes float32 values for a null or empty dtype.
  const dt = dtype || 'float32';
  checkDtype(dt);
  return withOne(indices, 'indices', 'oneHot', 'int32',
    (t) => wrap(native.oneHot(t.id, d, num(onValue), num(offValue), dt)));
}

// The seed as the string tfjs's generators hash (seedrandom's Alea, in the core): the same
// seed gives tfjs's values. tfjs's normal and gamma generators treat a falsy seed (0, '') as
// none (a random one); its uniform generator only null and undefined.
function seedArg(seed, falsyIsNone = true) {
  if (falsyIsNone ? !seed : seed == null) return null;
  return String(seed);
}

function randomDtype(dtype, allowBool = false) {
  if (dtype === 'bool' && !allowBool) throw new Error(`Unsupported data type ${dtype}`);
  // tfjs's empty string too means the default here.
  const dt = dtype || 'float32';
  checkDtype(dt);
  return dt;
}

function randomNormal(shape, mean = 0, stdDev = 1, dtype, seed) {
  const dims = shapeArg(shape);
  return wrap(native.randomNormal(dims, num(mean), num(stdDev), randomDtype(dtype), seedArg(seed)));
}

function truncatedNormal(shape, mean = 0, stdDev = 1, dtype, seed) {
  const dims = shapeArg(shape);
  return wrap(native.truncatedNormal(dims, num(mean), num(stdDev), randomDtype(dtype), seedArg(seed)));
}

function randomStandardNormal(shape, dtype, seed) {
  if (dtype === 'bool') throw new Error(`Unsupported data type ${dtype}`);
  return randomNormal(shape, 0, 1, dtype, seed);
}

function randomUniform(shape, minval = 0, maxval = 1, dtype, seed) {
  const dims = shapeArg(shape);
  return wrap(native.randomUniform(dims, num(minval), num(maxval), randomDtype(dtype, true), seedArg(seed, false)));
}

const P = Tensor.prototype;
P.oneHot = function (depth, onValue, offValue, dtype) {
  return oneHot(this, depth, onValue, offValue, dtype);
};
P.zerosLike = function () { return zerosLike(this); };
P.onesLike = function () { return onesLike(this); };
installBufferMethods(Tensor);

// tf.randomGamma: tfjs's generator (Marsaglia and Tsang), in the core.
function randomGamma(shape, alpha, beta = 1, dtype = 'float32', seed) {
  const dims = shapeArg(shape);
  const dt = dtype == null ? 'float32' : dtype;
  if (dt !== 'float32' && dt !== 'int32') throw new Error(`Unsupported data type ${dt}`);
  return wrap(native.randomGamma(dims, num(alpha), beta == null ? 1 : num(beta), dt, seedArg(seed)));
}

function randomUniformInt(shape, minval, maxval, seed) {
  return randomUniform(shape, minval, maxval, 'int32', seed);
}

module.exports = {
  randomGamma, randomUniformInt,
  tensor, scalar, tensor1d, tensor2d, tensor3d, tensor4d, tensor5d, tensor6d,
  zeros, ones, fill, zerosLike, onesLike, range, linspace, eye, oneHot,
  randomNormal, randomStandardNormal, randomUniform, truncatedNormal, buffer,
};
