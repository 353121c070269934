'use strict';
// tfjs-core's pure JavaScript helper namespaces and small top-level helpers: tf.backend_util
// (shape arithmetic that backends share: conv/pool windows, reductions, broadcasting, slicing,
// einsum, complex interleaving, sparse error texts ...), tf.broadcast_util, tf.gather_util,
// tf.scatter_util, tf.slice_util, tf.serialization, tf.device_util, tf.kernel_impls, and
// tf.op, tf.rand, tf.ensureShape, tf.cosineWindow, tf.bitwiseAnd, tf.enclosingPowerOfTwo,
// tf.nextFrame, tf.OP_SCOPE_SUFFIX.
//
// The helpers take plain shapes and arrays (or anything with `.shape`/`.rank`/`.dtype`, as
// tfjs's do) and give tfjs 4.22's results and error texts, quirks included: programs and
// backends written against tfjs compute their shapes with them, so a "fixed" result would be a
// different answer. Where a quirk is kept on purpose, a comment says so.
const { util, upcastType } = require('./util');
const { env } = require('./env');
const native = require('./native');
const { collectIds } = require('./engine');

// The op modules are loaded when first used (they load this module's neighbours).
const ops = {
  get creation() { return require('./ops/creation'); },
  get elementwise() { return require('./ops/elementwise'); },
  get layout() { return require('./ops/layout'); },
  get reduce() { return require('./ops/reduce'); },
};

const { assert, sizeFromShape, computeStrides, nearestDivisor } = util;

// ---------------------------------------------------------------------------------------------
// Logging that tests and production silence (tfjs's log.warn / log.log).

const quiet = () => env().getBool('IS_TEST') || env().getBool('PROD');
function warn(...msg) {
  if (!quiet()) console.warn(...msg);
}
function log(...msg) {
  if (!quiet()) console.log(...msg);
}

// ---------------------------------------------------------------------------------------------
// Reduction axes (tfjs's axis_util)

// True when `axes` are the last axes.length dimensions of a rank-`rank` shape, in order.
function axesAreInnerMostDims(axes, rank) {
  return axes.every((axis, i) => axis === rank - axes.length + i);
}

// Interleaves an output location and a reduced location back into a full location: the axes
// in `axes` take their coordinate from reduceLoc, the others from outputLoc.
function combineLocations(outputLoc, reduceLoc, axes) {
  const loc = [];
  let o = 0;
  let r = 0;
  for (let dim = 0; dim < outputLoc.length + reduceLoc.length; dim++) {
    loc.push(axes.indexOf(dim) === -1 ? outputLoc[o++] : reduceLoc[r++]);
  }
  return loc;
}

// [the shape left after reducing `axes`, the sizes of the reduced axes].
function computeOutAndReduceShapes(aShape, axes) {
  const outShape = aShape.filter((_, dim) => axes.indexOf(dim) === -1);
  return [outShape, axes.map((dim) => aShape[dim])];
}

// The reduced shape with 1s put back at `axes` (keepDims).
function expandShapeToKeepDim(shape, axes) {
  return combineLocations(shape, axes.map(() => 1), axes);
}

function assertAxesAreInnerMostDims(msg, axes, rank) {
  assert(axesAreInnerMostDims(axes, rank),
    () => `${msg} supports only inner-most axes for now. Got axes ${axes} and rank-${rank} input.`);
}

// The transpose that moves `axes` last, or null when they already are.
function getAxesPermutation(axes, rank) {
  if (axesAreInnerMostDims(axes, rank)) return null;
  const kept = [];
  for (let i = 0; i < rank; ++i) if (axes.indexOf(i) === -1) kept.push(i);
  return kept.concat(axes);
}

// The inverse permutation of `axes`.
// (Positions sorted by the axis they hold, so that any list of axes gives tfjs's answer.)
function getUndoAxesPermutation(axes) {
  return axes.map((axis, i) => [i, axis]).sort((a, b) => a[1] - b[1]).map(([i]) => i);
}

function getInnerMostAxes(numAxes, rank) {
  const res = [];
  for (let i = rank - numAxes; i < rank; ++i) res.push(i);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Broadcasting (tfjs's broadcast_util)

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

// ---------------------------------------------------------------------------------------------
// Concatenation (tfjs's concat_util)

function assertParamsConsistent(shapes, axis) {
  const rank = shapes[0].length;
  shapes.forEach((shape, i) => {
    assert(shape.length === rank, () =>
      `Error in concat${rank}D: rank of tensors[${i}] must be the same as the rank of the rest (${rank})`);
  });
  assert(axis >= 0 && axis < rank, () => `Error in concat${rank}D: axis must be between 0 and ${rank - 1}.`);
  const first = shapes[0];
  shapes.forEach((shape, i) => {
    for (let r = 0; r < rank; r++) {
      // tfjs names the tensor index `i` where the axis would be; its text is kept.
      assert(r === axis || shape[r] === first[r], () =>
        `Error in concat${rank}D: Shape of tensors[${i}] (${shape}) does not match the shape ` +
        `of the rest (${first}) along the non-concatenated axis ${i}.`);
    }
  });
}

function computeOutShape(shapes, axis) {
  const out = shapes[0].slice();
  for (let i = 1; i < shapes.length; i++) out[axis] += shapes[i][axis];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Convolution and pooling windows (tfjs's conv_util)

// A number means the same value on every spatial axis; a pair gets a third 1 (tfjs's
// parseTupleParam), longer lists are used as they are.
function tuple(param) {
  if (typeof param === 'number') return [param, param, param];
  return param.length === 2 ? [param[0], param[1], 1] : param;
}
const tuple3 = (param) => (typeof param === 'number' ? [param, param, param] : param);

// A dilated filter covers filterSize + (filterSize - 1)(dilation - 1) inputs.
function effectiveSize(filterSize, dilation) {
  return dilation <= 1 ? filterSize : filterSize + (filterSize - 1) * (dilation - 1);
}

function roundDim(value, roundingMode) {
  if (!roundingMode) return Math.trunc(value);
  if (roundingMode === 'round') return Math.round(value);
  if (roundingMode === 'ceil') return Math.ceil(value);
  if (roundingMode === 'floor') return Math.floor(value);
  throw new Error(`Unknown roundingMode ${roundingMode}`);
}

function computeDefaultPad(inputShape, fieldSize, stride, dilation = 1) {
  const field = effectiveSize(fieldSize, dilation);
  return Math.floor((inputShape[0] * (stride - 1) - stride + field) / 2);
}

// Padding and output size of a 2-D window.
function pad2d(pad, inH, inW, strideH, strideW, filterH, filterW, roundingMode, dataFormat) {
  if (typeof pad === 'number') {
    // tfjs computes both output sizes from the filter height and stride height (its
    // computeOutputShape2D takes one field size); kept, as programs see tfjs's sizes.
    const outHeight = roundDim((inH - filterH + 2 * pad) / strideH + 1, roundingMode);
    const outWidth = roundDim((inW - filterH + 2 * pad) / strideH + 1, roundingMode);
    const padInfo = { top: pad, bottom: pad, left: pad, right: pad, type: pad === 0 ? 'VALID' : 'NUMBER' };
    return { padInfo, outHeight, outWidth };
  }
  if (pad === 'same') {
    const outHeight = Math.ceil(inH / strideH);
    const outWidth = Math.ceil(inW / strideW);
    const alongH = Math.max(0, (outHeight - 1) * strideH + filterH - inH);
    const alongW = Math.max(0, (outWidth - 1) * strideW + filterW - inW);
    const top = Math.floor(alongH / 2);
    const left = Math.floor(alongW / 2);
    return { padInfo: { top, bottom: alongH - top, left, right: alongW - left, type: 'SAME' }, outHeight, outWidth };
  }
  if (pad === 'valid') {
    return {
      padInfo: { top: 0, bottom: 0, left: 0, right: 0, type: 'VALID' },
      outHeight: Math.ceil((inH - filterH + 1) / strideH),
      outWidth: Math.ceil((inW - filterW + 1) / strideW),
    };
  }
  if (typeof pad === 'object') {
    // Explicit [[0, 0], [top, bottom], [left, right], [0, 0]] (channels last) or with the
    // channels second.
    const [hAxis, wAxis] = dataFormat === 'channelsLast' ? [1, 2] : [2, 3];
    const [top, bottom] = [pad[hAxis][0], pad[hAxis][1]];
    const [left, right] = [pad[wAxis][0], pad[wAxis][1]];
    const type = top === 0 && bottom === 0 && left === 0 && right === 0 ? 'VALID' : 'EXPLICIT';
    return {
      padInfo: { top, bottom, left, right, type },
      outHeight: roundDim((inH - filterH + top + bottom) / strideH + 1, roundingMode),
      outWidth: roundDim((inW - filterW + left + right) / strideW + 1, roundingMode),
    };
  }
  throw Error(`Unknown padding parameter: ${pad}`);
}

// Padding and output size of a 3-D window ('valid' is a pad of 0 there).
function pad3d(pad, inD, inH, inW, strideD, strideH, strideW, filterD, filterH, filterW, roundingMode) {
  if (pad === 'valid') pad = 0;
  if (typeof pad === 'number') {
    const sizes = [inD, inH, inW];
    const filters = [filterD, filterH, filterW];
    const strides = [strideD, strideH, strideW];
    // A window larger than the padded input gives a size of 0.
    const out = sizes.map((n, k) => (n + 2 * pad >= filters[k]
      ? roundDim((n - filters[k] + 2 * pad) / strides[k] + 1, roundingMode) : 0));
    const padInfo = { top: pad, bottom: pad, left: pad, right: pad, front: pad, back: pad, type: pad === 0 ? 'VALID' : 'NUMBER' };
    return { padInfo, outDepth: out[0], outHeight: out[1], outWidth: out[2] };
  }
  if (pad === 'same') {
    const outDepth = Math.ceil(inD / strideD);
    const outHeight = Math.ceil(inH / strideH);
    const outWidth = Math.ceil(inW / strideW);
    // Unlike the 2-D case, tfjs does not clamp these at 0.
    const alongD = (outDepth - 1) * strideD + filterD - inD;
    const alongH = (outHeight - 1) * strideH + filterH - inH;
    const alongW = (outWidth - 1) * strideW + filterW - inW;
    const front = Math.floor(alongD / 2);
    const top = Math.floor(alongH / 2);
    const left = Math.floor(alongW / 2);
    const padInfo = { top, bottom: alongH - top, left, right: alongW - left, front, back: alongD - front, type: 'SAME' };
    return { padInfo, outDepth, outHeight, outWidth };
  }
  throw Error(`Unknown padding parameter: ${pad}`);
}

function computeConv2DInfo(inShape, filterShape, strides, dilations, pad, roundingMode,
  depthwise = false, dataFormat = 'channelsLast') {
  let batchSize; let inHeight; let inWidth; let inChannels;
  if (dataFormat === 'channelsLast') [batchSize, inHeight, inWidth, inChannels] = inShape;
  else if (dataFormat === 'channelsFirst') [batchSize, inChannels, inHeight, inWidth] = inShape;
  else throw new Error(`Unknown dataFormat ${dataFormat}`);
  const [filterHeight, filterWidth, , filterChannels] = filterShape;
  const [strideHeight, strideWidth] = tuple(strides);
  const [dilationHeight, dilationWidth] = tuple(dilations);
  const effectiveFilterHeight = effectiveSize(filterHeight, dilationHeight);
  const effectiveFilterWidth = effectiveSize(filterWidth, dilationWidth);
  const { padInfo, outHeight, outWidth } = pad2d(pad, inHeight, inWidth, strideHeight, strideWidth,
    effectiveFilterHeight, effectiveFilterWidth, roundingMode, dataFormat);
  const outChannels = depthwise ? filterChannels * inChannels : filterChannels;
  const outShape = dataFormat === 'channelsFirst' ? [batchSize, outChannels, outHeight, outWidth]
    : [batchSize, outHeight, outWidth, outChannels];
  return {
    batchSize, dataFormat, inHeight, inWidth, inChannels, outHeight, outWidth, outChannels,
    padInfo, strideHeight, strideWidth, filterHeight, filterWidth, effectiveFilterHeight,
    effectiveFilterWidth, dilationHeight, dilationWidth, inShape, outShape, filterShape,
  };
}

function computeConv3DInfo(inShape, filterShape, strides, dilations, pad, depthwise = false,
  dataFormat = 'channelsLast', roundingMode) {
  let batchSize; let inDepth; let inHeight; let inWidth; let inChannels;
  if (dataFormat === 'channelsLast') [batchSize, inDepth, inHeight, inWidth, inChannels] = inShape;
  else if (dataFormat === 'channelsFirst') [batchSize, inChannels, inDepth, inHeight, inWidth] = inShape;
  else throw new Error(`Unknown dataFormat ${dataFormat}`);
  const [filterDepth, filterHeight, filterWidth, , filterChannels] = filterShape;
  const [strideDepth, strideHeight, strideWidth] = tuple3(strides);
  const [dilationDepth, dilationHeight, dilationWidth] = tuple3(dilations);
  const effectiveFilterDepth = effectiveSize(filterDepth, dilationDepth);
  const effectiveFilterHeight = effectiveSize(filterHeight, dilationHeight);
  const effectiveFilterWidth = effectiveSize(filterWidth, dilationWidth);
  const { padInfo, outDepth, outHeight, outWidth } = pad3d(pad, inDepth, inHeight, inWidth,
    strideDepth, strideHeight, strideWidth, effectiveFilterDepth, effectiveFilterHeight,
    effectiveFilterWidth, roundingMode);
  const outChannels = depthwise ? filterChannels * inChannels : filterChannels;
  const outShape = dataFormat === 'channelsFirst' ? [batchSize, outChannels, outDepth, outHeight, outWidth]
    : [batchSize, outDepth, outHeight, outWidth, outChannels];
  return {
    batchSize, dataFormat, inDepth, inHeight, inWidth, inChannels, outDepth, outHeight, outWidth,
    outChannels, padInfo, strideDepth, strideHeight, strideWidth, filterDepth, filterHeight,
    filterWidth, effectiveFilterDepth, effectiveFilterHeight, effectiveFilterWidth, dilationDepth,
    dilationHeight, dilationWidth, inShape, outShape, filterShape,
  };
}

function convertConv2DDataFormat(dataFormat) {
  if (dataFormat === 'NHWC') return 'channelsLast';
  if (dataFormat === 'NCHW') return 'channelsFirst';
  throw new Error(`Unknown dataFormat ${dataFormat}`);
}

// Dilation2D: a filter without an output-depth axis, as deep as the input.
function computeDilation2DInfo(inputShape, filterShape, strides, pad, dataFormat = 'NHWC', dilations) {
  return computeConv2DInfo(inputShape, [...filterShape, inputShape[3]], strides, dilations, pad,
    null, null, convertConv2DDataFormat(dataFormat));
}

// Pooling: a square "filter" mapping each channel to itself.
function computePool2DInfo(inShape, filterSize, strides, dilations, pad, roundingMode, dataFormat = 'channelsLast') {
  const [fh, fw] = tuple(filterSize);
  let channels;
  if (dataFormat === 'channelsLast') channels = inShape[3];
  else if (dataFormat === 'channelsFirst') channels = inShape[1];
  else throw new Error(`Unknown dataFormat ${dataFormat}`);
  return computeConv2DInfo(inShape, [fh, fw, channels, channels], strides, dilations, pad,
    roundingMode, false, dataFormat);
}

function computePool3DInfo(inShape, filterSize, strides, dilations, pad, roundingMode, dataFormat = 'NDHWC') {
  const [fd, fh, fw] = tuple3(filterSize);
  let channels;
  let format;
  if (dataFormat === 'NDHWC') [format, channels] = ['channelsLast', inShape[4]];
  else if (dataFormat === 'NCDHW') [format, channels] = ['channelsFirst', inShape[1]];
  else throw new Error(`Unknown dataFormat ${dataFormat}`);
  return computeConv3DInfo(inShape, [fd, fh, fw, channels, channels], strides, dilations, pad,
    false, format, roundingMode);
}

function tupleValuesAreOne(param) {
  const [a, b, c] = tuple(param);
  return a === 1 && b === 1 && c === 1;
}
const eitherStridesOrDilationsAreOne = (strides, dilations) =>
  tupleValuesAreOne(strides) || tupleValuesAreOne(dilations);
const stridesOrDilationsArePositive = (values) => tuple(values).every((v) => v > 0);

// With a dimRoundingMode the padding must be integral (a number, or explicit integers).
function checkPadOnDimRoundingMode(opDesc, pad, dimRoundingMode) {
  if (dimRoundingMode == null) return;
  const text = (p) => `Error in ${opDesc}: pad must be an integer when using dimRoundingMode ` +
    `${dimRoundingMode} but got pad ${p}.`;
  if (typeof pad === 'string') throw Error(text(pad));
  if (typeof pad === 'number') assert(util.isInt(pad), () => text(pad));
  else if (typeof pad === 'object') pad.forEach((p) => p.forEach((v) => assert(util.isInt(v), () => text(v))));
  else throw Error(`Error in ${opDesc}: Unknown padding parameter: ${pad}`);
}

// ---------------------------------------------------------------------------------------------
// Fused ops (tfjs's fused_util): activations and their gradients, with tidytensor's ops.

function getFusedDyActivation(dy, y, activation) {
  if (activation == null || activation === 'linear') return dy;
  // dy where y > 0 (step(y) is freed here; tfjs leaves it to the caller's scope).
  if (activation === 'relu') return scoped(() => ops.elementwise.mul(dy, ops.elementwise.step(y)));
  throw new Error(`Cannot compute gradient for fused activation ${activation}.`);
}

// The bias gradient: dy summed over the axes the bias was broadcast along.
function getFusedBiasGradient(bias, dyActivation) {
  return scoped(() => {
    const axes = getReductionAxes(bias.shape, dyActivation.shape);
    const summed = axes.length > 0 ? ops.reduce.sum(dyActivation, axes) : dyActivation;
    return ops.layout.reshape(summed, bias.shape);
  });
}

function applyActivation(x, activation, preluActivationWeights, leakyreluAlpha) {
  const E = ops.elementwise;
  switch (activation) {
    case 'linear': return x;
    case 'relu': return E.relu(x);
    case 'elu': return E.elu(x);
    case 'relu6': return E.relu6(x);
    case 'prelu': return E.prelu(x, preluActivationWeights);
    case 'leakyrelu': return E.leakyRelu(x, leakyreluAlpha);
    case 'sigmoid': return E.sigmoid(x);
    default: throw new Error(`Unknown fused activation ${activation}.`);
  }
}

// Fused kernels have no gradient of their own: fuse when no gradient is being recorded, or
// when the activation is linear.
const shouldFuse = (gradientDepth, activation) => !(gradientDepth > 0) || activation === 'linear';

// Runs `fn` in a scope of its own: what it makes and does not return is freed, also when it
// throws (tidy without tidy's name argument and Promise warning).
function scoped(fn) {
  native.startScope();
  let result;
  try {
    result = fn();
  } catch (e) {
    native.endScope([]);
    throw e;
  }
  native.endScope(collectIds(result));
  return result;
}

// ---------------------------------------------------------------------------------------------
// Ragged tensors (tfjs's ragged_to_dense_util)

// A TypeScript-style numeric enum: names to numbers and numbers back to names.
const RowPartitionType = {};
['FIRST_DIM_SIZE', 'VALUE_ROWIDS', 'ROW_LENGTHS', 'ROW_SPLITS', 'ROW_LIMITS', 'ROW_STARTS']
  .forEach((name, i) => { RowPartitionType[RowPartitionType[name] = i] = name; });

function combineRaggedTensorToTensorShapes(raggedRank, shape, valueShape) {
  if (valueShape == null && shape == null) return [];
  const out = shape == null ? new Array(Math.max(0, raggedRank + valueShape.length)).fill(-1) : shape.slice();
  if (valueShape == null) return out;
  if (raggedRank + valueShape.length !== out.length) {
    throw new Error(`rt input.shape and shape=${shape} are incompatible: rt input.rank = ` +
      `${raggedRank + valueShape.length}, but shape.rank = ${out.length}`);
  }
  for (let i = 1; i < valueShape.length; ++i) {
    const valueDim = valueShape[i];
    // tfjs reads the output dimension at the index held by out[...] (not at that position);
    // the quirk is kept so that the same shapes pass and fail.
    const index = out[out.length - valueShape.length + i];
    const outDim = out[index];
    if (valueDim >= 0) {
      if (outDim >= 0) {
        if (outDim !== valueDim) {
          throw new Error(`rt input.shape and shape=${shape} are incompatible: rt input.shape[` +
            `${i + raggedRank}] = ${valueDim} but shape[${i + raggedRank}] = ${outDim}`);
        }
      } else {
        out[index] = valueDim;
      }
    }
  }
  return out;
}

// The partition types named by the strings, up to the first unknown one.
function getRowPartitionTypesHelper(rowPartitionTypeStrings) {
  // A name -> number table looked up with `in`, as tfjs does.
  const byName = {};
  for (let i = 0; i < 6; i++) byName[RowPartitionType[i]] = i;
  const out = [];
  for (const s of rowPartitionTypeStrings) {
    if (!(s in byName)) break;
    out.push(byName[s]);
  }
  return out;
}

function getRaggedRank(rowPartitionTypes) {
  if (rowPartitionTypes.length === 0) return 0;
  return rowPartitionTypes[0] === RowPartitionType.FIRST_DIM_SIZE
    ? rowPartitionTypes.length - 1 : rowPartitionTypes.length;
}

function validateDefaultValueShape(defaultValueShape, valueShape) {
  if (defaultValueShape == null || valueShape == null) return;
  const nd = defaultValueShape.length;
  const nv = valueShape.length;
  if (nd >= nv) {
    throw new Error(`defaultValue.shape=${defaultValueShape} and ragged tensor flatValues.shape=` +
      `${valueShape}, are incompatible: defaultValue.rank = ${nd} must be less than ragged ` +
      `tensor input flatValues.rank = ${nv})`);
  }
  for (let i = 0; i < Math.min(nd, nv - 1); ++i) {
    const d = defaultValueShape[i];
    const v = valueShape[i + 1];
    if (d >= 0 && v >= 0 && d !== 1 && d !== v) {
      throw new Error(`defaultValue.shape=${defaultValueShape}, and ragged tensor input ` +
        `flatValues.shape=${valueShape} are incompatible: defaultValue.shape[${i - nd}] = ${d} ` +
        `but ragged tensor input.flatValues.shape[${i - nd}] = ${v}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reduction windows (tfjs's reduce_util and segment_util)

const PARALLELIZE_THRESHOLD = 30;

// Small inputs are reduced in one window; larger ones in windows of a divisor near sqrt(n).
function computeOptimalWindowSize(inSize) {
  return inSize <= PARALLELIZE_THRESHOLD ? inSize : nearestDivisor(inSize, Math.floor(Math.sqrt(inSize)));
}

// As computeOptimalWindowSize, then grown (to the next divisor) until it exceeds the number of
// segments.
function segOpComputeOptimalWindowSize(inSize, numSegments) {
  if (inSize <= PARALLELIZE_THRESHOLD) return inSize;
  let res = nearestDivisor(inSize, Math.floor(Math.sqrt(inSize)));
  while (!(res > numSegments || res === inSize)) res = nearestDivisor(inSize, res + 1);
  return res;
}

function segmentComputeOutShape(aShape, axis, numSegments) {
  return aShape.map((d, dim) => (dim === axis ? numSegments : d));
}

// Shapes of a gather along `axis` with `batchDims` leading batch dimensions.
function collectGatherOpShapeInfo(x, indices, axis, batchDims) {
  const indicesRank = indices.shape.length;
  const xRank = x.shape.length;
  if (batchDims !== 0 && (batchDims < -indicesRank || batchDims > indicesRank)) {
    throw new Error(`Expect batchDims in the range of [-${indicesRank}, ${indicesRank}], but got ${batchDims}`);
  }
  if (batchDims < 0) batchDims += indicesRank;
  if (batchDims > xRank) {
    throw new Error(`batchDims (${batchDims}) must be less than rank(x) (\n    ${xRank}).`);
  }
  if (axis < batchDims) {
    throw new Error(`batchDims (${batchDims}) must be less than or equal to axis (${axis}).`);
  }
  for (let i = 0; i < batchDims; ++i) {
    if (x.shape[i] !== indices.shape[i]) {
      throw new Error(`x.shape[${i}]: ${x.shape[i]} should be equal to indices.shape[${i}]: ${indices.shape[i]}.`);
    }
  }
  const outputShape = [];
  let batchSize = 1;
  let outerSize = 1;
  let sliceSize = 1;
  for (let i = 0; i < batchDims; ++i) {
    outputShape.push(x.shape[i]);
    batchSize *= x.shape[i];
  }
  for (let i = batchDims; i < axis; i++) {
    outputShape.push(x.shape[i]);
    outerSize *= x.shape[i];
  }
  for (let i = batchDims; i < indicesRank; i++) outputShape.push(indices.shape[i]);
  for (let i = axis + 1; i < xRank; i++) {
    outputShape.push(x.shape[i]);
    sliceSize *= x.shape[i];
  }
  return { batchSize, sliceSize, outerSize, dimSize: x.shape[axis], outputShape };
}

const segment_util = {
  collectGatherOpShapeInfo, computeOutShape: segmentComputeOutShape, segOpComputeOptimalWindowSize,
};

// ---------------------------------------------------------------------------------------------
// Slicing (tfjs's slice_util)

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
// begin/end/stride made explicit and bounds-checked, plus the final shapes and the fast-path
// flags (identity, slice of dimension 0 only, unit strides).
function sliceInfo(xShape, begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask) {
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
    const shrink = !!(d.shrinkAxisMask & (1 << i));
    const n = xShape[i];
    if (n === -1) {
      processing.push(shrink ? 1 : -1);
      continue;
    }
    const masks = [d.beginMask & (1 << i), d.endMask & (1 << i)];
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
        if (masks[c]) return s > 0 ? range[c] : range[(c + 1) & 1];
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
    begin: d.begin, end: d.end, strides: d.strides,
  };
}

const slice_util = {
  assertParamsValid, computeFlatOffset, computeOutShape: sliceComputeOutShape, getNormalizedAxes,
  isSliceContinous, maskToAxes, parseSliceParams, sliceInfo, startForAxis,
  startIndicesWithElidedDims, stopForAxis, stopIndicesWithElidedDims, stridesForAxis,
  stridesWithElidedDims,
};

// ---------------------------------------------------------------------------------------------
// Space-to-batch reshapes (tfjs's array_ops_util), image rotation centre (rotate_util)

// The shape batchToSpace (or spaceToBatch) reshapes to before permuting.
function getReshaped(inputShape, blockShape, prod, batchToSpace = true) {
  if (batchToSpace) return [...blockShape, inputShape[0] / prod, ...inputShape.slice(1)];
  const out = [inputShape[0]];
  for (let i = 0; i < blockShape.length; ++i) out.push(inputShape[i + 1] / blockShape[i], blockShape[i]);
  return out.concat(inputShape.slice(blockShape.length + 1));
}

function getPermuted(reshapedRank, blockShapeRank, batchToSpace = true) {
  const perm = [];
  if (batchToSpace) {
    perm.push(blockShapeRank);
    for (let i = blockShapeRank + 1; i < reshapedRank; ++i) {
      if (i <= 2 * blockShapeRank) perm.push(i, i - (blockShapeRank + 1));
      else perm.push(i);
    }
    return perm;
  }
  const beforeBatch = [];
  const afterBatch = [];
  for (let i = 1; i < reshapedRank; ++i) {
    if (i >= blockShapeRank * 2 + 1 || i % 2 === 1) afterBatch.push(i);
    else beforeBatch.push(i);
  }
  return [...beforeBatch, 0, ...afterBatch];
}

function getReshapedPermuted(inputShape, blockShape, prod, batchToSpace = true) {
  const out = [batchToSpace ? inputShape[0] / prod : inputShape[0] * prod];
  for (let i = 1; i < inputShape.length; ++i) {
    if (i <= blockShape.length) {
      out.push(batchToSpace ? blockShape[i - 1] * inputShape[i] : inputShape[i] / blockShape[i - 1]);
    } else {
      out.push(inputShape[i]);
    }
  }
  return out;
}

// `blockShape` here is the number of block dimensions.
function getSliceBeginCoords(crops, blockShape) {
  const out = [0];
  for (let i = 0; i < blockShape; ++i) out.push(crops[i][0]);
  return out;
}

function getSliceSize(uncroppedShape, crops, blockShape) {
  const out = uncroppedShape.slice(0, 1);
  for (let i = 0; i < blockShape; ++i) out.push(uncroppedShape[i + 1] - crops[i][0] - crops[i][1]);
  return out;
}

// The rotation centre in pixels: a fraction of the image (or a [x, y] pair of fractions).
function getImageCenter(center, imageHeight, imageWidth) {
  const [fx, fy] = typeof center === 'number' ? [center, center] : center;
  return [imageWidth * fx, imageHeight * fy];
}

// ---------------------------------------------------------------------------------------------
// gatherND / scatterND shapes (tfjs's gather_nd_util, scatter_nd_util)

// [result shape, number of slices, slice size, strides of the indexed dimensions].
function prepareAndValidate(tensor, indices) {
  const rank = tensor.shape.length;
  const indicesRank = indices.shape.length;
  if (rank < 1) {
    throw new Error(`tf.gatherND() expects the input to be rank 1 or higher, but the rank was ${rank}.`);
  }
  if (indicesRank < 1) {
    throw new Error(`tf.gatherND() expects the indices to be rank 1 or higher, but the rank was ${indicesRank}.`);
  }
  if (indices.dtype !== 'int32') {
    throw new Error(`tf.gatherND() expects the indices to be int32 type, but the dtype was ${indices.dtype}.`);
  }
  const sliceRank = indices.shape[indicesRank - 1];
  if (sliceRank > rank) {
    throw new Error(`index innermost dimension length must be <= tensor rank; saw: ${sliceRank} vs. ${rank}`);
  }
  if (sizeFromShape(tensor.shape) === 0) {
    throw new Error(`Requested more than 0 entries, but input is empty. Input shape: ${tensor.shape}.`);
  }
  // indices.shape[:-1] + tensor.shape[sliceRank:]
  const resultShape = indices.shape.slice(0, -1);
  const nResult = sizeFromShape(resultShape);
  let sliceSize = 1;
  for (let i = sliceRank; i < rank; ++i) {
    sliceSize *= tensor.shape[i];
    resultShape.push(tensor.shape[i]);
  }
  const strides = [...computeStrides(tensor.shape).map((s) => s / sliceSize), 1].slice(0, sliceRank);
  return [resultShape, nResult, sliceSize, strides];
}

function validateUpdateShape(shape, indices, updates) {
  const sliceDim = indices.rank > 1 ? indices.shape[indices.rank - 1] : 1;
  const batchDim = indices.rank > 1 ? indices.rank - 1 : 1;
  const prefix = 'Must have updates.shape = indices.shape[:batchDim] + shape[sliceDim:], got ' +
    `updates.shape: ${updates.shape}, indices.shape: ${indices.shape}, shape: ${shape}, ` +
    `sliceDim: ${sliceDim}, and batchDim: ${batchDim}.`;
  if (updates.rank < batchDim) throw new Error(`${prefix} update.rank < ${batchDim}. `);
  if (shape.length < sliceDim + (updates.rank - batchDim)) {
    throw new Error(`${prefix} Output shape length < ${sliceDim + (updates.rank - batchDim)}`);
  }
  if (updates.rank !== batchDim + shape.length - sliceDim) {
    throw new Error(`${prefix} update.rank != ${batchDim + shape.length - sliceDim}`);
  }
  for (let d = 0; d < batchDim; ++d) {
    if (updates.shape[d] !== indices.shape[d]) {
      throw new Error(`${prefix} updates.shape[${d}] (${updates.shape[d]}) != indices.shape[${d}] (${indices.shape[d]}).`);
    }
  }
  for (let d = 0; d < updates.rank - batchDim; ++d) {
    if (updates.shape[d + batchDim] !== shape[d + sliceDim]) {
      // tfjs prints shape[d + batchDim] though it compares shape[d + sliceDim]; kept.
      throw new Error(`${prefix} updates.shape[${d + batchDim}] (${updates.shape[d + batchDim]}) != ` +
        `shape[${d + batchDim}] (${shape[d + batchDim]})`);
    }
  }
}

function validateInput(updates, indices, shape) {
  if (indices.rank < 1) {
    throw new Error(`tf.scatterND() expects the indices to be rank 1 or higher, but the rank was ${indices.rank}.`);
  }
  if (updates.rank < 1) {
    throw new Error(`tf.scatterND() expects the updates to be rank 1 or higher, but the rank was ${updates.rank}.`);
  }
  if (indices.dtype !== 'int32') {
    throw new Error(`The dtype of 'indices' should be int32, but got dtype: ${indices.dtype}`);
  }
  if (shape.length < 1) {
    throw new Error(`Output rank must be greater or equal to 1, but got shape: ${shape}`);
  }
  validateUpdateShape(shape, indices, updates);
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

// ---------------------------------------------------------------------------------------------
// Constants: SELU's scale (and scale times alpha), the Abramowitz-Stegun erf approximation.

const SELU_SCALEALPHA = 1.7580993408473768; // tfjs's 1.7580993408473768599402175208123, as a double
const SELU_SCALE = 1.0507009873554805; // tfjs's 1.0507009873554804934193349852946
const ERF_P = 0.3275911;
const ERF_A1 = 0.254829592;
const ERF_A2 = -0.284496736;
const ERF_A3 = 1.421413741;
const ERF_A4 = -1.453152027;
const ERF_A5 = 1.061405429;

// ---------------------------------------------------------------------------------------------
// Complex values stored interleaved [re0, im0, re1, im1, ...] (tfjs's complex_util)

function mergeRealAndImagArrays(real, imag) {
  if (real.length !== imag.length) {
    throw new Error(`Cannot merge real and imag arrays of different lengths. real:${real.length}, imag: ${imag.length}.`);
  }
  const out = new Float32Array(real.length * 2);
  for (let i = 0; i < real.length; i++) {
    out[2 * i] = real[i];
    out[2 * i + 1] = imag[i];
  }
  return out;
}

function splitRealAndImagArrays(complex) {
  const n = complex.length / 2;
  const real = new Float32Array(n);
  const imag = new Float32Array(n);
  for (let i = 0; 2 * i < complex.length; i++) {
    real[i] = complex[2 * i];
    imag[i] = complex[2 * i + 1];
  }
  return { real, imag };
}

// The complex numbers at even (or odd) positions, as the FFT's halves use them.
function complexAtParity(complex, odd) {
  const n = odd ? Math.floor(complex.length / 4) : Math.ceil(complex.length / 4);
  const real = new Float32Array(n);
  const imag = new Float32Array(n);
  for (let i = odd ? 2 : 0; i < complex.length; i += 4) {
    real[Math.floor(i / 4)] = complex[i];
    imag[Math.floor(i / 4)] = complex[i + 1];
  }
  return { real, imag };
}
const complexWithEvenIndex = (complex) => complexAtParity(complex, false);
const complexWithOddIndex = (complex) => complexAtParity(complex, true);

const getComplexWithIndex = (complex, index) => ({ real: complex[index * 2], imag: complex[index * 2 + 1] });

function assignToTypedArray(data, real, imag, index) {
  data[index * 2] = real;
  data[index * 2 + 1] = imag;
}

// The twiddle factors e^(∓2πik/n) for k < n/2 (the sign flips for the inverse transform).
function exponents(n, inverse) {
  const real = new Float32Array(n / 2);
  const imag = new Float32Array(n / 2);
  for (let i = 0; i < Math.ceil(n / 2); i++) {
    const x = (inverse ? 2 : -2) * Math.PI * (i / n);
    real[i] = Math.cos(x);
    imag[i] = Math.sin(x);
  }
  return { real, imag };
}

function exponent(k, n, inverse) {
  const x = (inverse ? 2 : -2) * Math.PI * (k / n);
  return { real: Math.cos(x), imag: Math.sin(x) };
}

// ---------------------------------------------------------------------------------------------
// Einsum (tfjs's einsum_util): the same checks and texts as tf.einsum (lib/ops/matmul.js).

function decodeEinsumEquation(equation, numTensors) {
  const eq = equation.replace(/\s/g, '');
  const numArrows = eq.split('->').length - 1;
  if (numArrows < 1) throw new Error('Equations without an arrow are not supported.');
  if (numArrows > 1) throw new Error('Equation must contain exactly one arrow ("->").');
  const [inputString, outputString] = eq.split('->');
  assert(inputString.indexOf('...') === -1, () => 'The ellipsis notation ("...") is not supported yet.');
  const terms = inputString.split(',');
  if (numTensors !== terms.length) throw new Error(`Expected ${terms.length} input tensors, received ${numTensors}`);
  if (terms.length > 2) throw new Error('Support for more than 2 input tensors is not implemented yet.');
  // Output labels first, in output order, then the summed labels in input order.
  const allDims = [];
  for (const label of outputString) {
    if (!terms.some((t) => t.indexOf(label) !== -1)) {
      throw new Error(`Output subscripts contain the label ${label} not present in the input subscripts.`);
    }
    if (allDims.indexOf(label) === -1) allDims.push(label);
  }
  for (const label of inputString) if (label !== ',' && allDims.indexOf(label) === -1) allDims.push(label);
  const idDims = terms.map((term) => {
    if (new Set(term.split('')).size !== term.length) {
      throw new Error(`Found duplicate axes in input component ${term}. Support for duplicate axes in input is not implemented yet.`);
    }
    return term.split('').map((label) => allDims.indexOf(label));
  });
  const summedDims = [];
  for (let i = outputString.length; i < allDims.length; ++i) summedDims.push(i);
  return { allDims, summedDims, idDims };
}

// How to lay one input out over all nDims labels: the transpose of its own axes into label
// order, and the label positions it lacks (to expand with size 1).
function getEinsumPermutation(nDims, idDims) {
  const position = new Array(nDims).fill(-1);
  idDims.forEach((dim, i) => { position[dim] = i; });
  const expandDims = [];
  for (let i = 0; i < nDims; ++i) if (position[i] === -1) expandDims.push(i);
  return { permutationIndices: position.filter((d) => d !== -1), expandDims };
}

function checkEinsumDimSizes(nDims, idDims, tensors) {
  const sizes = new Array(nDims);
  tensors.forEach((t, i) => {
    idDims[i].forEach((dim, j) => {
      if (sizes[dim] === undefined) {
        sizes[dim] = t.shape[j];
      } else {
        assert(sizes[dim] === t.shape[j], () => `Expected dimension ${sizes[dim]} at axis ${j} ` +
          `of input shaped ${JSON.stringify(t.shape)}, but got dimension ${t.shape[j]}`);
      }
    });
  });
}

// The order to sum the labels in, and which inputs join the product at each step. As tfjs,
// the returned path is summedDims itself (with -1 pushed onto it when nothing is summed).
function getEinsumComputePath(summedDims, idDims) {
  const path = summedDims;
  if (summedDims.length === 0) path.push(-1);
  const steps = Array.from({ length: summedDims.length + 1 }, () => []);
  const used = [];
  path.forEach((dim, i) => {
    idDims.forEach((ids, term) => {
      const involved = ids.length === 0 || ids.indexOf(dim) !== -1 || dim === -1;
      if (involved && used.indexOf(term) === -1) {
        steps[i].push(term);
        used.push(term);
      }
    });
  });
  return { path, steps };
}

const isIdentityPermutation = (perm) => perm.every((dim, i) => dim === i);

// ---------------------------------------------------------------------------------------------
// split sizes (tfjs's split_util)

// The sizes tf.split cuts axis `axis` into; one -1 takes what the others leave. As tfjs, a
// list argument is updated in place.
function prepareSplitSize(x, numOrSizeSplits, axis = 0) {
  const dim = x.shape[axis];
  if (typeof numOrSizeSplits === 'number') {
    assert(dim % numOrSizeSplits === 0, () => 'Number of splits must evenly divide the axis.');
    return new Array(numOrSizeSplits).fill(dim / numOrSizeSplits);
  }
  const negatives = numOrSizeSplits.filter((v) => v === -1).length;
  assert(negatives <= 1, () => 'There should be only one negative value in split array.');
  const negIndex = numOrSizeSplits.indexOf(-1);
  if (negIndex !== -1) {
    // tfjs's reduce starts from the first element whatever its sign; kept.
    const total = numOrSizeSplits.reduce((a, b) => (b > 0 ? a + b : a));
    numOrSizeSplits[negIndex] = dim - total;
  }
  assert(dim === numOrSizeSplits.reduce((a, b) => a + b),
    () => 'The sum of sizes must match the size of the axis dimension.');
  return numOrSizeSplits;
}

// ---------------------------------------------------------------------------------------------
// Sparse ops' error texts (shared by the backends' kernels)

const getSparseFillEmptyRowsIndicesDenseShapeMismatch = (indicesLength) =>
  `Received SparseTensor with denseShape[0] = 0 but\n  indices.shape[0] = ${indicesLength}`;
const getSparseFillEmptyRowsNegativeIndexErrorMessage = (index, value) =>
  `indices(${index}, 0) is invalid: ${value} < 0`;
const getSparseFillEmptyRowsOutOfRangeIndexErrorMessage = (index, value, limit) =>
  `indices(${index}, 0) is invalid: ${value} >= ${limit}`;
const getSparseReshapeMultipleNegativeOneOutputDimErrorMessage = (dim1, dim2) =>
  `only one output dimension may be -1, not both ${dim1} and ${dim2}`;
const getSparseReshapeNegativeOutputDimErrorMessage = (dim, value) =>
  `size ${dim} must be non-negative, not ${value}`;
const getSparseReshapeEmptyTensorZeroOutputDimErrorMessage = () =>
  'reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are non-zero';
const getSparseReshapeInputOutputMultipleErrorMessage = (inputShape, outputShape) =>
  `Input to reshape is a SparseTensor with ${sizeFromShape(inputShape)}\n  dense values, but the ` +
  `requested shape requires a multiple of ${sizeFromShape(outputShape)}. inputShape=${inputShape} outputShape= ${outputShape}`;
const getSparseReshapeInputOutputMismatchErrorMessage = (inputShape, outputShape) =>
  `Input to reshape is a tensor with ${sizeFromShape(inputShape)} dense values, but the requested ` +
  `shape has ${sizeFromShape(outputShape)}. inputShape=${inputShape} outputShape=${outputShape}`;
const getSparseSegmentReductionNegativeSegmentIdsErrorMessage = () => 'segment ids must be >= 0';
const getSparseSegmentReductionNonIncreasingSegmentIdsErrorMessage = () => 'segment ids are not increasing';
const getSparseSegmentReductionSegmentIdOutOfRangeErrorMessage = (segmentId, outputRows) =>
  `Segment id ${segmentId} out of range [0, ${outputRows}), possibly because segmentIds input is not sorted.`;
const getSparseSegmentReductionIndicesOutOfRangeErrorMessage = (index, indexValue, inputRows) =>
  `Bad: indices[${index}] == ${indexValue} out of range [0, ${inputRows})`;

// ---------------------------------------------------------------------------------------------
// String tensors' bytes

function fromUint8ToStringArray(vals) {
  try {
    return vals.map((v) => util.decodeString(v));
  } catch (err) {
    throw new Error(`Failed to decode encoded string bytes into utf-8, error: ${err}`, { cause: err });
  }
}
const fromStringArrayToUint8 = (strings) => strings.map((s) => util.encodeString(s));

const backend_util = {
  ERF_A1, ERF_A2, ERF_A3, ERF_A4, ERF_A5, ERF_P, PARALLELIZE_THRESHOLD, RowPartitionType,
  SELU_SCALE, SELU_SCALEALPHA, applyActivation, assertAndGetBroadcastShape,
  assertAxesAreInnerMostDims, assertParamsConsistent, assignToTypedArray, axesAreInnerMostDims,
  calculateShapes, checkEinsumDimSizes, checkPadOnDimRoundingMode, combineLocations,
  combineRaggedTensorToTensorShapes, complexWithEvenIndex, complexWithOddIndex,
  computeConv2DInfo, computeConv3DInfo, computeDefaultPad, computeDilation2DInfo,
  computeOptimalWindowSize, computeOutAndReduceShapes, computeOutShape, computePool2DInfo,
  computePool3DInfo, convertConv2DDataFormat, decodeEinsumEquation,
  eitherStridesOrDilationsAreOne, expandShapeToKeepDim, exponent, exponents,
  fromStringArrayToUint8, fromUint8ToStringArray, getAxesPermutation, getBroadcastDims,
  getComplexWithIndex, getEinsumComputePath, getEinsumPermutation, getFusedBiasGradient,
  getFusedDyActivation, getImageCenter, getInnerMostAxes, getPermuted, getRaggedRank,
  getReductionAxes, getReshaped, getReshapedPermuted, getRowPartitionTypesHelper,
  getSliceBeginCoords, getSliceSize, getSparseFillEmptyRowsIndicesDenseShapeMismatch,
  getSparseFillEmptyRowsNegativeIndexErrorMessage,
  getSparseFillEmptyRowsOutOfRangeIndexErrorMessage,
  getSparseReshapeEmptyTensorZeroOutputDimErrorMessage,
  getSparseReshapeInputOutputMismatchErrorMessage,
  getSparseReshapeInputOutputMultipleErrorMessage,
  getSparseReshapeMultipleNegativeOneOutputDimErrorMessage,
  getSparseReshapeNegativeOutputDimErrorMessage,
  getSparseSegmentReductionIndicesOutOfRangeErrorMessage,
  getSparseSegmentReductionNegativeSegmentIdsErrorMessage,
  getSparseSegmentReductionNonIncreasingSegmentIdsErrorMessage,
  getSparseSegmentReductionSegmentIdOutOfRangeErrorMessage, getUndoAxesPermutation,
  isIdentityPermutation, log, mergeRealAndImagArrays, prepareAndValidate, prepareSplitSize,
  segment_util, shouldFuse, slice_util, splitRealAndImagArrays, stridesOrDilationsArePositive,
  tupleValuesAreOne, upcastType, validateDefaultValueShape, validateInput, validateUpdateShape,
  warn,
};

const broadcast_util = { assertAndGetBroadcastShape, getBroadcastDims, getReductionAxes };
const gather_util = { prepareAndValidate };
const scatter_util = { calculateShapes, validateInput, validateUpdateShape };

// ---------------------------------------------------------------------------------------------
// tf.serialization: classes registered by name so that configs can be turned back into
// objects (layers, initializers, constraints ... use it).

class Serializable {
  // The name a class serializes under: its static `className` (robust to minification).
  getClassName() {
    return this.constructor.className;
  }

  static fromConfig(cls, config) {
    return new cls(config);
  }
}

class SerializationMap {
  constructor() {
    this.classNameMap = {};
  }

  static getMap() {
    if (SerializationMap.instance == null) SerializationMap.instance = new SerializationMap();
    return SerializationMap.instance;
  }

  static register(cls) {
    SerializationMap.getMap().classNameMap[cls.className] = [cls, cls.fromConfig];
  }
}

// 'package>name' -> class and back, for getRegisteredName.
const customObjects = new Map();
const customNames = new Map();

function registerClass(cls, pkg, name) {
  assert(cls.className != null, () => 'Class being registered does not have the static className property defined.');
  assert(typeof cls.className === 'string', () =>
    `className is required to be a string, but got type ${typeof cls.className}`);
  assert(cls.className.length > 0, () =>
    'Class being registered has an empty-string as its className, which is disallowed.');
  const registerName = `${pkg === undefined ? 'Custom' : pkg}>${name === undefined ? cls.className : name}`;
  SerializationMap.register(cls);
  customObjects.set(registerName, cls);
  customNames.set(cls, registerName);
  return cls;
}

const getRegisteredName = (cls) => (customNames.has(cls) ? customNames.get(cls) : cls.className);

const serialization = { Serializable, SerializationMap, getRegisteredName, registerClass };

// ---------------------------------------------------------------------------------------------
// tf.device_util

function isBrowser() {
  return (globalThis.window !== undefined && globalThis.window.document != null) ||
    (typeof WorkerGlobalScope !== 'undefined');
}

let mobileMock;
// Forces isMobile's answer (undefined restores detection), for tests.
function mockIsMobile(value) {
  mobileMock = value;
}

// The user-agent patterns of detectmobilebrowsers.com (public domain), which tfjs uses.
const MOBILE_UA = /(android|bb\d+|meego).+mobile|avantgo|bada\/|blackberry|blazer|compal|elaine|fennec|hiptop|iemobile|ip(hone|od)|iris|kindle|lge |maemo|midp|mmp|mobile.+firefox|netfront|opera m(ob|in)i|palm( os)?|phone|p(ixi|re)\/|plucker|pocket|psp|series(4|6)0|symbian|treo|up\.(browser|link)|vodafone|wap|windows ce|xda|xiino/i;
const MOBILE_UA_PREFIX = /1207|6310|6590|3gso|4thp|50[1-6]i|770s|802s|a wa|abac|ac(er|oo|s-)|ai(ko|rn)|al(av|ca|co)|amoi|an(ex|ny|yw)|aptu|ar(ch|go)|as(te|us)|attw|au(di|-m|r |s )|avan|be(ck|ll|nq)|bi(lb|rd)|bl(ac|az)|br(e|v)w|bumb|bw-(n|u)|c55\/|capi|ccwa|cdm-|cell|chtm|cldc|cmd-|co(mp|nd)|craw|da(it|ll|ng)|dbte|dc-s|devi|dica|dmob|do(c|p)o|ds(12|-d)|el(49|ai)|em(l2|ul)|er(ic|k0)|esl8|ez([4-7]0|os|wa|ze)|fetc|fly(-|_)|g1 u|g560|gene|gf-5|g-mo|go(\.w|od)|gr(ad|un)|haie|hcit|hd-(m|p|t)|hei-|hi(pt|ta)|hp( i|ip)|hs-c|ht(c(-| |_|a|g|p|s|t)|tp)|hu(aw|tc)|i-(20|go|ma)|i230|iac( |-|\/)|ibro|idea|ig01|ikom|im1k|inno|ipaq|iris|ja(t|v)a|jbro|jemu|jigs|kddi|keji|kgt( |\/)|klon|kpt |kwc-|kyo(c|k)|le(no|xi)|lg( g|\/(k|l|u)|50|54|-[a-w])|libw|lynx|m1-w|m3ga|m50\/|ma(te|ui|xo)|mc(01|21|ca)|m-cr|me(rc|ri)|mi(o8|oa|ts)|mmef|mo(01|02|bi|de|do|t(-| |o|v)|zz)|mt(50|p1|v )|mwbp|mywa|n10[0-2]|n20[2-3]|n30(0|2)|n50(0|2|5)|n7(0(0|1)|10)|ne((c|m)-|on|tf|wf|wg|wt)|nok(6|i)|nzph|o2im|op(ti|wv)|oran|owg1|p800|pan(a|d|t)|pdxg|pg(13|-([1-8]|c))|phil|pire|pl(ay|uc)|pn-2|po(ck|rt|se)|prox|psio|pt-g|qa-a|qc(07|12|21|32|60|-[2-7]|i-)|qtek|r380|r600|raks|rim9|ro(ve|zo)|s55\/|sa(ge|ma|mm|ms|ny|va)|sc(01|h-|oo|p-)|sdk\/|se(c(-|0|1)|47|mc|nd|ri)|sgh-|shar|sie(-|m)|sk-0|sl(45|id)|sm(al|ar|b3|it|t5)|so(ft|ny)|sp(01|h-|v-|v )|sy(01|mb)|t2(18|50)|t6(00|10|18)|ta(gt|lk)|tcl-|tdg-|tel(i|m)|tim-|t-mo|to(pl|sh)|ts(70|m-|m3|m5)|tx-9|up(\.b|g1|si)|utst|v400|v750|veri|vi(rg|te)|vk(40|5[0-3]|-v)|vm40|voda|vulc|vx(52|53|60|61|70|80|81|83|85|98)|w3c(-| )|webc|whit|wi(g |nc|nw)|wmlb|wonu|x700|yas-|your|zeto|zte-/i;

// Whether `nav` (or the global navigator) is a mobile browser or React Native.
function isMobile(nav) {
  if (mobileMock !== undefined) return mobileMock;
  if (!nav && (typeof navigator === 'undefined' || navigator == null)) return false;
  const n = nav || navigator;
  if (n.product === 'ReactNative') return true;
  const agent = n.userAgent || n.vendor || (globalThis.window !== undefined ? globalThis.window.opera : '');
  // Without a user agent, the client hints' `mobile` answers (possibly undefined, as tfjs).
  if (!agent) return n.userAgentData && n.userAgentData.mobile;
  return MOBILE_UA.test(agent) || MOBILE_UA_PREFIX.test(agent.substr(0, 4));
}

const device_util = { isBrowser, isMobile, mockIsMobile };

// ---------------------------------------------------------------------------------------------
// tf.kernel_impls: the host implementations backends share, on plain or typed arrays.

// Non-max suppression through tf.image's host implementation (lib/ops/image.js). The box
// values are [y1, x1, y2, x2] per box; unlike the ops, the arguments are not checked.
function nmsImpl(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma) {
  const { selectBoxes } = require('./ops/image');
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
  return ops.creation.tensor(out, [hits.length, rank], 'int32');
}

const kernel_impls = { nonMaxSuppressionV3Impl, nonMaxSuppressionV4Impl, nonMaxSuppressionV5Impl, whereImpl };

// ---------------------------------------------------------------------------------------------
// Top-level helpers

const OP_SCOPE_SUFFIX = '__op';

// tf.op({name: fn}): fn as an op. It runs in its own scope, so the tensors it makes and does not
// return are freed; the returned function is named `name` (one trailing '_' dropped) + '__op'.
function op(f) {
  const keys = Object.keys(f);
  if (keys.length !== 1) {
    throw new Error('Please provide an object with a single key (operation name) mapping to a ' +
      `function. Got an object with ${keys.length} keys.`);
  }
  const fn = f[keys[0]];
  const opName = `${keys[0].endsWith('_') ? keys[0].slice(0, -1) : keys[0]}${OP_SCOPE_SUFFIX}`;
  const wrapped = (...args) => {
    return scoped(() => {
      const result = fn(...args);
      if (util.isPromise(result)) console.error('Cannot return a Promise inside of tidy.');
      return result;
    });
  };
  Object.defineProperty(wrapped, 'name', { value: opName, configurable: true });
  return wrapped;
}

// tf.rand(shape, randFunction, dtype): a tensor of randFunction()'s values, stored as the
// dtype's typed array stores them (int32 truncates, bool keeps 0/1 of a Uint8Array).
const rand = op({
  rand_(shape, randFunction, dtype) {
    util.assertNonNegativeIntegerDimensions(shape);
    const size = sizeFromShape(shape);
    let values;
    if (dtype == null || dtype === 'float32') values = new Float32Array(size);
    else if (dtype === 'int32') values = new Int32Array(size);
    else if (dtype === 'bool') values = new Uint8Array(size);
    else throw new Error(`Unknown data type ${dtype}`);
    for (let i = 0; i < size; i++) values[i] = randFunction();
    // A Uint8Array holds any byte; bool tensors hold 0/1 (tfjs's cpu keeps the byte as read).
    if (dtype === 'bool') for (let i = 0; i < size; i++) values[i] = values[i] ? 1 : 0;
    return ops.creation.tensor(values, shape, dtype == null ? 'float32' : dtype);
  },
});

// tf.ensureShape(x, shape): x itself when its shape matches (null in `shape` matches any size).
const ensureShape = op({
  ensureShape_(x, shape) {
    const { convertToTensor } = require('./convert');
    const t = convertToTensor(x, 'x', 'ensureShape', 'string_or_numeric');
    if (!util.arraysEqualWithNull(t.shape, shape)) {
      throw new Error(`EnsureShape: Shape of tensor ${t.shape} is not compatible with expected shape ${shape}`);
    }
    // As tfjs, the argument is returned, not its conversion (the scope frees that).
    return x;
  },
});

// 2^N for the least integer N with 2^N >= value.
const enclosingPowerOfTwo = (value) => Math.floor(Math.pow(2, Math.ceil(Math.log(value) / Math.log(2.0))));

// Resolves on the next turn of the event loop (setImmediate; requestAnimationFrame in browsers).
function nextFrame() {
  const delay = typeof globalThis.requestAnimationFrame === 'function' ? globalThis.requestAnimationFrame
    : typeof setImmediate !== 'undefined' ? setImmediate : (cb) => cb();
  return new Promise((resolve) => delay(() => resolve()));
}

// tf.cosineWindow(windowLength, a, b): a - b cos(2πi / (n + even - 1)), the family of the Hann
// and Hamming windows (lib/ops/signal.js).
function cosineWindow(windowLength, a, b) {
  return require('./ops/signal').cosineWindow(windowLength, a, b);
}

// tf.bitwiseAnd(x, y): int32 only, same shapes. Computed on the host from the values: the
// float32 elementwise ops cannot represent every int32 exactly.
const bitwiseAnd = op({
  bitwiseAnd_(x, y) {
    const { convertToTensor } = require('./convert');
    const a = convertToTensor(x, 'x', 'bitwiseAnd');
    const b = convertToTensor(y, 'y', 'bitwiseAnd');
    if (!util.arraysEqual(a.shape, b.shape)) {
      throw new Error(`BitwiseAnd: Tensors must have the same shape. x: ${a.shape}, y: ${b.shape}`);
    }
    if (a.dtype !== 'int32' || b.dtype !== 'int32') {
      throw new Error(`BitwiseAnd: Only supports 'int32' values in tensor, found type of x: ${a.dtype} and type of y: ${b.dtype}`);
    }
    const va = a.dataSync();
    const vb = b.dataSync();
    const out = new Int32Array(va.length);
    for (let i = 0; i < out.length; i++) out[i] = va[i] & vb[i];
    return ops.creation.tensor(out, a.shape, 'int32');
  },
});

module.exports = {
  backend_util, broadcast_util, gather_util, scatter_util, slice_util, serialization,
  device_util, kernel_impls, OP_SCOPE_SUFFIX, op, rand, ensureShape, enclosingPowerOfTwo,
  nextFrame, cosineWindow, bitwiseAnd, warn,
};
