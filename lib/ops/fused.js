'use strict';
// tf.fused: matMul, conv2d and depthwiseConv2d followed by a bias and an activation, as one
// call. Composed of the ops themselves (each already one native kernel), as tfjs composes
// them when it takes gradients.
const { convertToTensor } = require('../convert');

const ops = () => Object.assign({}, require('./elementwise'), require('./layout'), require('./matmul'),
  require('./conv'));
const tidy = (f) => require('../engine').tidy(f);

// tfjs's applyActivation.
function activate(o, y, activation, preluActivationWeights, leakyreluAlpha) {
  switch (activation) {
    case 'linear': return y;
    case 'relu': return o.relu(y);
    case 'elu': return o.elu(y);
    case 'relu6': return o.relu6(y);
    case 'prelu': return o.prelu(y, preluActivationWeights);
    case 'leakyrelu': return o.leakyRelu(y, leakyreluAlpha);
    case 'sigmoid': return o.sigmoid(y);
    default: throw new Error(`Unknown fused activation ${activation}.`);
  }
}

// Adds the bias and applies the activation; in NCHW a 1-D bias or PReLU weight is per channel.
function finish(op, y, { bias, activation, preluActivationWeights, leakyreluAlpha }, nchw) {
  const o = ops();
  return tidy(() => {
    const perChannel = (t) => (nchw && t.rank === 1 && t.shape[0] !== 1 ? o.reshape(t, [t.shape[0], 1, 1]) : t);
    let out = y;
    if (bias != null) out = o.add(out, perChannel(convertToTensor(bias, 'bias', op)));
    const alpha = preluActivationWeights == null ? preluActivationWeights
      : perChannel(convertToTensor(preluActivationWeights, 'prelu weights', op));
    return activate(o, out, activation || 'linear', alpha, leakyreluAlpha);
  });
}

function matMul({ a, b, transposeA = false, transposeB = false, bias, activation = 'linear',
  preluActivationWeights, leakyreluAlpha = 0.2 }) {
  return tidy(() => finish('fused matMul', ops().matMul(a, b, transposeA, transposeB),
    { bias, activation, preluActivationWeights, leakyreluAlpha }, false));
}

function conv2d({ x, filter, strides, pad, dataFormat = 'NHWC', dilations = [1, 1], dimRoundingMode, bias,
  activation = 'linear', preluActivationWeights, leakyreluAlpha }) {
  return tidy(() => finish('fused conv2d',
    ops().conv2d(x, filter, strides, pad, dataFormat, dilations, dimRoundingMode),
    { bias, activation, preluActivationWeights, leakyreluAlpha }, dataFormat === 'NCHW'));
}

function depthwiseConv2d({ x, filter, strides, pad, dataFormat = 'NHWC', dilations = [1, 1], dimRoundingMode, bias,
  activation = 'linear', preluActivationWeights, leakyreluAlpha }) {
  return tidy(() => finish('fused depthwiseConv2d',
    ops().depthwiseConv2d(x, filter, strides, pad, dataFormat, dilations, dimRoundingMode),
    { bias, activation, preluActivationWeights, leakyreluAlpha }, dataFormat === 'NCHW'));
}

module.exports = { fused: { matMul, conv2d, depthwiseConv2d } };
