'use strict';
// tfjs's conv_util (in tf.backend_util): convolution and pooling windows, their padding and
// output sizes, in tfjs's description. The geometry is the core's, the one the ops run
// (crates/core/src/ops/conv.rs); here the arguments are read and the result named.
const native = require('../native');
const { padArg } = require('../ops/args');

// A number means the same value on every spatial axis; a pair gets a third 1 (tfjs's
// parseTupleParam), longer lists are used as they are.
function tuple(param) {
  if (typeof param === 'number') return [param, param, param];
  return param.length === 2 ? [param[0], param[1], 1] : param;
}

// The window geometry the ops compute (crates/core's window_info), in tfjs's description.
function windowInfo(spatial, inShape, filterShape, strides, dilations, pad, roundingMode, depthwise, dataFormat) {
  let channelsFirst;
  if (dataFormat === 'channelsLast') channelsFirst = false;
  else if (dataFormat === 'channelsFirst') channelsFirst = true;
  else throw new Error(`Unknown dataFormat ${dataFormat}`);
  const shape = Array.from(inShape, Number);
  const x = channelsFirst ? [shape[0], ...shape.slice(2), shape[1]] : shape;
  const inChannels = x[spatial + 1];
  const filterChannels = filterShape[spatial + 1];
  // Channel counts are the caller's arithmetic (tfjs passes them through, undefined included).
  const outChannels = depthwise ? filterChannels * inChannels : filterChannels;
  const [kindPad, padValues] = padArg(pad);
  // tfjs reads the rounding mode only where it rounds: numeric and explicit pads (and 3-D
  // 'valid', a pad of 0).
  const rounds = typeof pad !== 'string' || (spatial === 3 && pad === 'valid');
  const w = native.windowInfo(`computeConv${spatial}DInfo`, x, filterShape.slice(0, spatial).map(Number),
    Number.isSafeInteger(outChannels) && outChannels >= 0 ? outChannels : 0, tuple(strides).slice(0, spatial),
    kindPad, padValues, tuple(dilations).slice(0, spatial), rounds && roundingMode != null ? String(roundingMode) : null,
    channelsFirst);
  const outSpatial = w.outSize.slice(3 - spatial);
  w.outChannels = outChannels;
  const outShape = channelsFirst ? [w.batch, outChannels, ...outSpatial] : [w.batch, ...outSpatial, outChannels];
  return { w, outShape, inShape, filterShape, dataFormat };
}

function computeConv2DInfo(inShape, filterShape, strides, dilations, pad, roundingMode,
  depthwise = false, dataFormat = 'channelsLast') {
  const { w, outShape } = windowInfo(2, inShape, filterShape, strides, dilations, pad, roundingMode, depthwise,
    dataFormat);
  return {
    batchSize: w.batch, dataFormat, inHeight: w.inSize[1], inWidth: w.inSize[2], inChannels: w.inChannels,
    outHeight: w.outSize[1], outWidth: w.outSize[2], outChannels: w.outChannels,
    padInfo: { top: w.padBefore[1], bottom: w.padAfter[1], left: w.padBefore[2], right: w.padAfter[2], type: w.padType },
    strideHeight: w.strides[1], strideWidth: w.strides[2], filterHeight: w.filter[1], filterWidth: w.filter[2],
    effectiveFilterHeight: w.effectiveFilter[1], effectiveFilterWidth: w.effectiveFilter[2],
    dilationHeight: w.dilations[1], dilationWidth: w.dilations[2], inShape, outShape, filterShape,
  };
}

function computeConv3DInfo(inShape, filterShape, strides, dilations, pad, depthwise = false,
  dataFormat = 'channelsLast', roundingMode) {
  const { w, outShape } = windowInfo(3, inShape, filterShape, strides, dilations, pad, roundingMode, depthwise,
    dataFormat);
  return {
    batchSize: w.batch, dataFormat, inDepth: w.inSize[0], inHeight: w.inSize[1], inWidth: w.inSize[2],
    inChannels: w.inChannels, outDepth: w.outSize[0], outHeight: w.outSize[1], outWidth: w.outSize[2],
    outChannels: w.outChannels,
    padInfo: {
      top: w.padBefore[1], bottom: w.padAfter[1], left: w.padBefore[2], right: w.padAfter[2],
      front: w.padBefore[0], back: w.padAfter[0], type: w.padType,
    },
    strideDepth: w.strides[0], strideHeight: w.strides[1], strideWidth: w.strides[2],
    filterDepth: w.filter[0], filterHeight: w.filter[1], filterWidth: w.filter[2],
    effectiveFilterDepth: w.effectiveFilter[0], effectiveFilterHeight: w.effectiveFilter[1],
    effectiveFilterWidth: w.effectiveFilter[2], dilationDepth: w.dilations[0], dilationHeight: w.dilations[1],
    dilationWidth: w.dilations[2], inShape, outShape, filterShape,
  };
}

function computeDefaultPad(inputShape, fieldSize, stride, dilation = 1) {
  const field = dilation <= 1 ? fieldSize : fieldSize + (fieldSize - 1) * (dilation - 1);
  return Math.floor((inputShape[0] * (stride - 1) - stride + field) / 2);
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
  const [fd, fh, fw] = tuple(filterSize);
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

// With a dimRoundingMode the padding must be integral (a number, or explicit integers): the
// core's check.
function checkPadOnDimRoundingMode(opDesc, pad, dimRoundingMode) {
  if (dimRoundingMode == null) return;
  if (!['string', 'number', 'object'].includes(typeof pad)) throw Error(`Error in ${opDesc}: Unknown padding parameter: ${pad}`);
  const [kindPad, padValues] = padArg(pad);
  native.checkPadOnDimRoundingMode(String(opDesc), kindPad, padValues, String(dimRoundingMode));
}

module.exports = {
  checkPadOnDimRoundingMode, computeConv2DInfo, computeConv3DInfo, computeDefaultPad,
  computeDilation2DInfo, computePool2DInfo, computePool3DInfo, convertConv2DDataFormat,
  eitherStridesOrDilationsAreOne, stridesOrDilationsArePositive, tupleValuesAreOne,
};
