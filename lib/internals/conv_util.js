'use strict';
// tfjs's conv_util (in tf.backend_util): convolution and pooling windows, their padding and
// output sizes, with tfjs's results and texts.
const { util } = require('../util');

const { assert } = util;

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

module.exports = {
  checkPadOnDimRoundingMode, computeConv2DInfo, computeConv3DInfo, computeDefaultPad,
  computeDilation2DInfo, computePool2DInfo, computePool3DInfo, convertConv2DDataFormat,
  eitherStridesOrDilationsAreOne, stridesOrDilationsArePositive, tupleValuesAreOne,
};
