'use strict';
// Convolutions, pooling and the other windowed ops. The native side computes the window
// geometry and checks the shapes (tfjs's conv_util and texts); here the arguments are read as
// tfjs reads them; the ops tfjs composes (conv1d, separableConv2d, pool) are the core's too.
const native = require('../native');
const { Tensor, wrap, wrapId } = require('../tensor');
const { withOne, withTwo, listArg, num, sizes, padArg, rounding } = require('./args');

function dataFormatArg(op, dataFormat, allowed) {
  if (dataFormat === allowed[0]) return false;
  if (dataFormat === allowed[1]) return true;
  throw new Error(`Unknown dataFormat ${dataFormat}`);
}

// `epilogue` ({bias, activation, alpha, leakyAlpha}, tensor ids): tf.fused's bias and
// activation, run in the convolution's kernel.
function convOp(kind, x, filter, strides, pad, dataFormat, dilations, dimRoundingMode, parseAs, epilogue) {
  return withTwo(kind, x, 'x', parseAs, filter, 'filter', parseAs, (tx, tf) => {
    const channelsFirst = dataFormatArg(kind, dataFormat, ['NHWC', 'NCHW']);
    const [kindPad, padValues] = padArg(pad);
    return wrap(native.conv(kind, tx.id, tf.id, sizes(strides), kindPad, padValues,
      sizes(dilations == null ? 1 : dilations), rounding(dimRoundingMode), channelsFirst, epilogue));
  });
}

function conv2d(x, filter, strides, pad, dataFormat = 'NHWC', dilations = [1, 1], dimRoundingMode) {
  return convOp('conv2d', x, filter, strides, pad, dataFormat, dilations, dimRoundingMode, 'float32');
}

function depthwiseConv2d(x, filter, strides, pad, dataFormat = 'NHWC', dilations = [1, 1], dimRoundingMode) {
  return convOp('depthwiseConv2d', x, filter, strides, pad, dataFormat, dilations, dimRoundingMode, 'float32');
}

function conv3d(x, filter, strides, pad, dataFormat = 'NDHWC', dilations = [1, 1, 1]) {
  return withTwo('conv3d', x, 'x', 'numeric', filter, 'filter', 'numeric', (tx, tf) => {
    if (dataFormat !== 'NDHWC') {
      throw new Error(`Error in conv3d: got dataFormat of ${dataFormat} but only NDHWC is currently supported.`);
    }
    const [kindPad, padValues] = padArg(pad);
    return wrap(native.conv('conv3d', tx.id, tf.id, sizes(strides), kindPad, padValues,
      sizes(dilations == null ? 1 : dilations), null, false));
  });
}

function dilation2d(x, filter, strides, pad, dilations = [1, 1], dataFormat = 'NHWC') {
  return withTwo('dilation2d', x, 'x', 'numeric', filter, 'filter', 'numeric', (tx, tf) => {
    if (dataFormat !== 'NHWC') {
      throw new Error(`Error in dilation2d: Only NHWC is currently supported, but got dataFormat of ${dataFormat}`);
    }
    const [kindPad, padValues] = padArg(pad);
    return wrap(native.conv('dilation2d', tx.id, tf.id, sizes(strides), kindPad, padValues,
      sizes(dilations == null ? 1 : dilations), null, false));
  });
}

// tf.conv1d: a conv2d over a height of 1 (composed in the core).
function conv1d(x, filter, stride, pad, dataFormat = 'NWC', dilation = 1, dimRoundingMode) {
  return withTwo('conv1d', x, 'x', 'numeric', filter, 'filter', 'numeric', (tx, tf) => {
    const [kindPad, padValues] = padArg(pad);
    return wrap(native.conv1d(tx.id, tf.id, num(stride), kindPad, padValues, String(dataFormat), num(dilation),
      rounding(dimRoundingMode)));
  });
}

// tfjs composes separableConv2d of a depthwise and a 1x1 convolution (crates/core: the checks,
// then the two convolutions).
function separableConv2d(x, depthwiseFilter, pointwiseFilter, strides, pad, dilation = [1, 1], dataFormat = 'NHWC') {
  return withTwo('separableConv2d', x, 'x', 'numeric', depthwiseFilter, 'depthwiseFilter', 'numeric', (tx, td) =>
    withOne(pointwiseFilter, 'pointwiseFilter', 'separableConv2d', 'numeric', (tp) => {
      const [kindPad, padValues] = padArg(pad);
      return wrap(native.separableConv2d(tx.id, td.id, tp.id, sizes(strides), kindPad, padValues,
        sizes(dilation == null ? 1 : dilation), String(dataFormat)));
    }));
}

function conv2dTranspose(x, filter, outputShape, strides, pad, dimRoundingMode) {
  return transposeOp(2, 'conv2dTranspose', x, filter, outputShape, strides, pad, dimRoundingMode);
}

function conv3dTranspose(x, filter, outputShape, strides, pad) {
  return transposeOp(3, 'conv3dTranspose', x, filter, outputShape, strides, pad, null);
}

function transposeOp(spatial, op, x, filter, outputShape, strides, pad, dimRoundingMode) {
  return withTwo(op, x, 'x', 'numeric', filter, 'filter', 'numeric', (tx, tf) => {
    const shape = listArg(outputShape);
    if (!Array.isArray(shape) || !shape.every(Number.isSafeInteger)) {
      throw new Error(`Error in ${op}: outputShape must be a list of integers, but got ${outputShape}.`);
    }
    const [kindPad, padValues] = padArg(pad);
    return wrap(native.convTranspose(spatial, shape, tx.id, tf.id, sizes(strides), kindPad, padValues,
      rounding(dimRoundingMode)));
  });
}

function poolOp(kind, parseAs, x, filterSize, strides, pad, dimRoundingMode) {
  return withOne(x, 'x', kind, parseAs, (t) => {
    const [kindPad, padValues] = padArg(pad);
    return wrap(native.pool(kind, t.id, sizes(filterSize), sizes(strides), kindPad, padValues,
      rounding(dimRoundingMode)));
  });
}

const maxPool = (x, filterSize, strides, pad, dimRoundingMode) =>
  poolOp('maxPool', 'numeric', x, filterSize, strides, pad, dimRoundingMode);
const avgPool = (x, filterSize, strides, pad, dimRoundingMode) =>
  poolOp('avgPool', 'float32', x, filterSize, strides, pad, dimRoundingMode);

function pool3d(kind, parseAs, x, filterSize, strides, pad, dimRoundingMode, dataFormat) {
  if (dataFormat !== 'NDHWC') {
    return withOne(x, 'x', kind, parseAs, () => {
      throw new Error(`Error in ${kind}: Only NDHWC is currently supported, but got dataFormat of ${dataFormat}`);
    });
  }
  return poolOp(kind, parseAs, x, filterSize, strides, pad, dimRoundingMode);
}

const maxPool3d = (x, filterSize = [1, 1, 1], strides, pad, dimRoundingMode, dataFormat = 'NDHWC') =>
  pool3d('maxPool3d', 'numeric', x, filterSize, strides, pad, dimRoundingMode, dataFormat);
const avgPool3d = (x, filterSize, strides, pad, dimRoundingMode, dataFormat = 'NDHWC') =>
  pool3d('avgPool3d', 'float32', x, filterSize, strides, pad, dimRoundingMode, dataFormat);

function maxPoolWithArgmax(x, filterSize, strides, pad, includeBatchInIndex = false) {
  return withOne(x, 'x', 'maxPoolWithArgmax', 'numeric', (t) => {
    const [kindPad, padValues] = padArg(pad);
    const [result, indexes] = native.maxPoolWithArgmax(t.id, sizes(filterSize), sizes(strides), kindPad,
      padValues, !!includeBatchInIndex);
    return { result: wrapId(result), indexes: wrapId(indexes) };
  });
}

// tf.pool: a dilated window runs as an undilated pool over spaceToBatchND's blocks, as tfjs
// composes it (crates/core).
function pool(input, windowShape, poolingType, pad, dilations, strides, dimRoundingMode) {
  if (dilations == null) dilations = [1, 1];
  if (strides == null) strides = 1;
  if (pad === 0) pad = 'valid';
  return withOne(input, 'x', 'maxPool', 'numeric', (t) => {
    const [kindPad, padValues] = padArg(pad);
    return wrap(native.dilatedPool(poolingType === 'avg', t.id, sizes(windowShape), sizes(strides), kindPad,
      padValues, sizes(dilations), rounding(dimRoundingMode)));
  });
}

function localResponseNormalization(x, depthRadius = 5, bias = 1, alpha = 1, beta = 0.5) {
  return withOne(x, 'x', 'localResponseNormalization', 'numeric', (t) =>
    wrap(native.localResponseNormalization(t.id, num(depthRadius), num(bias), num(alpha), num(beta))));
}

const P = Tensor.prototype;
P.conv1d = function (filter, stride, pad, dataFormat, dilation, dimRoundingMode) {
  return conv1d(this, filter, stride, pad, dataFormat, dilation, dimRoundingMode);
};
P.conv2d = function (filter, strides, pad, dataFormat, dilations, dimRoundingMode) {
  return conv2d(this, filter, strides, pad, dataFormat, dilations, dimRoundingMode);
};
P.conv2dTranspose = function (filter, outputShape, strides, pad, dimRoundingMode) {
  return conv2dTranspose(this, filter, outputShape, strides, pad, dimRoundingMode);
};
P.depthwiseConv2d = function (filter, strides, pad, dataFormat, dilations, dimRoundingMode) {
  return depthwiseConv2d(this, filter, strides, pad, dataFormat, dilations, dimRoundingMode);
};
P.separableConv2d = function (depthwiseFilter, pointwiseFilter, strides, pad, dilation, dataFormat) {
  return separableConv2d(this, depthwiseFilter, pointwiseFilter, strides, pad, dilation, dataFormat);
};
P.dilation2d = function (filter, strides, pad, dilations, dataFormat) {
  return dilation2d(this, filter, strides, pad, dilations, dataFormat);
};
P.maxPool = function (filterSize, strides, pad, dimRoundingMode) {
  return maxPool(this, filterSize, strides, pad, dimRoundingMode);
};
P.avgPool = function (filterSize, strides, pad, dimRoundingMode) {
  return avgPool(this, filterSize, strides, pad, dimRoundingMode);
};
P.pool = function (windowShape, poolingType, padding, dilationRate, strides, dimRoundingMode) {
  return pool(this, windowShape, poolingType, padding, dilationRate, strides, dimRoundingMode);
};
P.localResponseNormalization = function (depthRadius, bias, alpha, beta) {
  return localResponseNormalization(this, depthRadius, bias, alpha, beta);
};

module.exports = {
  conv1d, conv2d, conv3d, depthwiseConv2d, separableConv2d, dilation2d, conv2dTranspose, conv3dTranspose,
  maxPool, avgPool, maxPool3d, avgPool3d, maxPoolWithArgmax, pool, localResponseNormalization,
};
// For tf.fused (lib/ops/fused.js), not a tf.* name: a convolution with its epilogue.
Object.defineProperty(module.exports, 'convOp', { value: convOp });
