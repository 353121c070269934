'use strict';
// Creation: tensor, scalar, tensor1d ... tensor6d, zeros, ones, fill, zerosLike, onesLike,
// range, linspace, eye, oneHot, randomNormal, randomUniform, truncatedNormal, buffer.
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { makeTensor, inferShape, inferDtype, assertShape, isTypedArray, checkDtype, createStrings } =
  require('../convert');
const { buffer, installBufferMethods } = require('../buffer');
const { withOne, num, dtypeArg, listArg } = require('./args');

function tensor(values, shape, dtype) {
  return makeTensor(values, shape, inferShape(values, dtype), dtype);
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

// Coordinate grids: [X, Y] repeating x along rows and y along columns ('xy'), or the
// transposes ('ij'); made by matrix products with ones, as tfjs makes them.
function meshgrid(x, y, { indexing = 'xy' } = {}) {
  if (indexing !== 'xy' && indexing !== 'ij') throw new TypeError(`${indexing} is not a valid third argument to meshgrid`);
  if (x === undefined) return [];
  const { convertToTensor } = require('../convert');
  const { matMul } = require('./matmul');
  const { reshape } = require('./layout');
  const tx = convertToTensor(x, 'x', 'meshgrid', x instanceof Tensor ? x.dtype : 'float32');
  if (y === undefined) return [tx];
  let ty;
  try {
    ty = convertToTensor(y, 'y', 'meshgrid', y instanceof Tensor ? y.dtype : 'float32');
    const [w, h] = [tx.size, ty.size];
    return require('../engine').tidy(() => (indexing === 'xy' ?
      [matMul(ones([h, 1], tx.dtype), reshape(tx, [1, -1])), matMul(reshape(ty, [-1, 1]), ones([1, w], ty.dtype))] :
      [matMul(reshape(tx, [-1, 1]), ones([1, h], tx.dtype)), matMul(ones([w, 1], ty.dtype), reshape(ty, [1, -1]))]));
  } finally {
    if (tx !== x) tx.dispose();
    if (ty !== undefined && ty !== y) ty.dispose();
  }
}

// The values of x on the diagonal of a [...shape, ...shape] tensor, zeros elsewhere.
function diag(x) {
  return withOne(x, 'x', 'diag', 'numeric', (t) => require('../engine').tidy(() => {
    const { reshape } = require('./layout');
    const { where } = require('./elementwise');
    const n = t.size;
    const d = where(eye(n, n, null, 'bool'), reshape(t, [1, n]), zeros([n, n], t.dtype));
    return reshape(d, [...t.shape, ...t.shape]);
  }));
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

// tf.multinomial: numSamples draws per row of logits (or probabilities when `normalized`):
// the index of the first cumulative probability above a uniform draw (the last outcome when
// none is, as tfjs's kernel answers for rows that sum to less than 1).
function multinomial(logits, numSamples, seed, normalized = false) {
  const { withOne } = require('./args');
  return withOne(logits, 'logits', 'multinomial', 'numeric', (t) => {
    if (t.size < 2) throw new Error(`Error in multinomial: you need at least 2 outcomes, but got ${t.size}.`);
    if (t.rank > 2) throw new Error(`Rank of probabilities must be 1 or 2, but is ${t.rank}`);
    if (!Number.isInteger(numSamples) || numSamples < 0) {
      throw new Error(`numSamples must be a non-negative integer, but got ${String(numSamples)}.`);
    }
    // The draws compare every sample with every outcome: bound that product.
    if (numSamples * t.size > 2 ** 31 - 1) {
      throw new Error(`Error in multinomial: ${numSamples} samples of ${t.size} outcomes are too many.`);
    }
    const L = require('./layout');
    const R = require('./reduce');
    const E = require('./elementwise');
    return require('../engine').tidy(() => {
      const rows = t.rank === 1 ? L.reshape(t, [1, -1]) : t;
      const probs = normalized ? rows.cast('float32') : R.softmax(rows.cast('float32'));
      // Every row draws the same stream (tfjs seeds each row's generator alike); an index is
      // the number of the first n-1 cumulative probabilities at or below the draw.
      const n = rows.shape[1];
      const cdf = L.slice(R.cumsum(probs, 1), [0, 0], [-1, n - 1]);
      const u = randomUniform([1, numSamples], 0, 1, 'float32', seed || Math.random());
      const below = E.lessEqual(L.expandDims(cdf, 1), L.expandDims(u, 2));
      const idx = R.sum(below.cast('int32'), 2);
      return t.rank === 1 ? L.reshape(idx, [numSamples]) : idx;
    });
  });
}

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

// tf.dropout: x scaled by 1 / (1 - rate) where a uniform draw (over noiseShape, broadcast) plus
// 1 - rate reaches 1, else 0, as tfjs composes it.
function dropout(x, rate, noiseShape, seed) {
  const { withOne } = require('./args');
  return withOne(x, 'x', 'dropout', 'numeric', (t) => {
    if (t.dtype !== 'float32') {
      throw new Error(`x has to be a floating point tensor since it's going to be scaled, but got a ${t.dtype} tensor instead.`);
    }
    if (!(rate >= 0 && rate < 1)) throw new Error(`rate must be a float in the range [0, 1), but got ${rate}.`);
    if (rate === 0) return t.clone();
    let shape = noiseShape == null ? t.shape.slice() : listArg(noiseShape);
    if (noiseShape != null && shape.length === t.rank) shape = shape.map((d, i) => (d == null ? t.shape[i] : d));
    const E = require('./elementwise');
    const keep = 1 - rate;
    return require('../engine').tidy(() =>
      E.mul(t, E.div(E.floor(E.add(randomUniform(shape, 0, 1, 'float32', seed), keep)), keep)));
  });
}

module.exports = {
  multinomial, randomGamma, randomUniformInt, dropout,
  tensor, scalar, tensor1d, tensor2d, tensor3d, tensor4d, tensor5d, tensor6d,
  zeros, ones, fill, zerosLike, onesLike, range, linspace, eye, oneHot,
  randomNormal, randomStandardNormal, randomUniform, truncatedNormal, buffer, meshgrid, diag,
};
