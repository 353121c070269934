'use strict';
// Convolutions, pooling and the other windowed ops. The native side computes the window
// geometry and checks the shapes (tfjs's conv_util and texts); here the arguments are read as
// tfjs reads them, and the ops tfjs composes (conv1d, separableConv2d, pool) are composed.
const native = require('../native');
const { Tensor, wrap, wrapId } = require('../tensor');
const { withOne, withTwo, listArg, num, sizes, padArg, rounding } = require('./args');

const { tidy } = require('../engine');
const layoutOps = require('./layout');

const layout = () => layoutOps;

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

// tfjs composes separableConv2d of a depthwise and a 1x1 convolution.
function separableConv2d(x, depthwiseFilter, pointwiseFilter, strides, pad, dilation = [1, 1], dataFormat = 'NHWC') {
  return withTwo('separableConv2d', x, 'x', 'numeric', depthwiseFilter, 'depthwiseFilter', 'numeric', (tx, td) =>
    withOne(pointwiseFilter, 'pointwiseFilter', 'separableConv2d', 'numeric', (tp) => {
      if (dataFormat === 'NCHW') {
        throw new Error('separableConv2d currently does not support dataFormat NCHW; only NHWC is supported');
      }
      const rank = tx.rank === 3 ? 4 : tx.rank;
      if (rank !== 4) throw new Error(`Error in separableConv2d: input must be rank 4, but got rank ${rank}.`);
      if (td.rank !== 4) {
        throw new Error(`Error in separableConv2d: depthwise filter must be rank 4, but got rank ${td.rank}.`);
      }
      if (tp.rank !== 4) {
        throw new Error(`Error in separableConv2d: pointwise filter must be rank 4, but got rank ${td.rank}.`);
      }
      if (tp.shape[0] !== 1) {
        throw new Error(`Error in separableConv2d: the first dimension of pointwise filter  must be 1, but got ${tp.shape[0]}.`);
      }
      if (tp.shape[1] !== 1) {
        throw new Error(`Error in separableConv2d: the second dimension of pointwise filter must be 1, but got ${tp.shape[1]}.`);
      }
      const channels = td.shape[2] * td.shape[3];
      if (tp.shape[2] !== channels) {
        throw new Error(`Error in separableConv2d: the third dimension of pointwise filter must be ${channels}, but got ${tp.shape[2]}.`);
      }
      return tidy(() => conv2d(depthwiseConv2d(tx, td, strides, pad, dataFormat, dilation), tp, 1, 'valid', dataFormat));
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
// composes it.
function pool(input, windowShape, poolingType, pad, dilations, strides, dimRoundingMode) {
  if (dilations == null) dilations = [1, 1];
  if (strides == null) strides = 1;
  if (pad === 0) pad = 'valid';
  return withOne(input, 'x', 'maxPool', 'numeric', (t) => {
    const one = (v) => sizes(v).every((s) => s === 1);
    if (!one(strides) && !one(dilations)) {
      throw new Error('Error in pool: Either strides or dilations must be 1. ' +
        `Got strides ${strides} and dilations '${dilations}'`);
    }
    const { reshape, spaceToBatchND, batchToSpaceND } = layout();
    return tidy(() => {
      const x4 = t.rank === 3 ? reshape(t, [1, ...t.shape]) : t;
      const pair = (v) => { const s = sizes(v); return s.length === 1 ? [s[0], s[0]] : s; };
      const [fh, fw] = pair(windowShape);
      const dilation = pair(dilations);
      const [inH, inW] = [x4.shape[1], x4.shape[2]];
      const base = pad === 'same'
        ? [fh, fw].map((f, i) => { const e = f + (f - 1) * (dilation[i] - 1) - 1; return [Math.floor(e / 2), e - Math.floor(e / 2)]; })
        : [[0, 0], [0, 0]];
      const full = [inH + base[0][0] + base[0][1], inW + base[1][0] + base[1][1]];
      const extra = dilation.map((b, i) => (b - full[i] % b) % b);
      const paddings = base.map((b, i) => [b[0], b[1] + extra[i]]);
      const crops = extra.map((e) => [0, e]);
      const dilated = dilation[0] !== 1 || dilation[1] !== 1;
      const xin = dilated ? spaceToBatchND(x4, dilation, paddings) : x4;
      const p = dilated ? 'valid' : pad;
      const y = poolingType === 'avg'
        ? avgPool(xin, windowShape, strides, p, dimRoundingMode)
        : maxPool(xin, windowShape, strides, p, dimRoundingMode);
      const res = dilated ? batchToSpaceND(y, dilation, crops) : y;
      return t.rank === 3 ? reshape(res, res.shape.slice(1)) : res;
    });
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
