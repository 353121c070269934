'use strict';
// tf.fused: matMul, conv2d and depthwiseConv2d followed by a bias and an activation, as one
// call: one native kernel (FusedConv2D, FusedDepthwiseConv2D, _FusedMatMul), or composed of
// the ops themselves as tfjs composes them where that kernel does not apply.
const native = require('../native');
const { wrap } = require('../tensor');
const { convertToTensor } = require('../convert');
const { tidy } = require('../engine');
const matmul = require('./matmul');
const conv = require('./conv');

const OPS = Object.assign({}, require('./elementwise'), require('./layout'), matmul, conv);
const MODULES = { matmul, conv };
const ops = () => OPS;
const modules = () => MODULES;

// Adds the bias and applies the activation, composed (crates/core/src/ops/fused.rs); in NCHW a
// 1-D bias or PReLU weight is per channel.
function finish(op, y, { bias, activation, preluActivationWeights, leakyreluAlpha }, nchw) {
  return tidy(() => {
    const b = bias == null ? null : convertToTensor(bias, 'bias', op);
    const alpha = preluActivationWeights == null ? null : convertToTensor(preluActivationWeights, 'prelu weights', op);
    return wrap(native.fusedFinish(y.id, b == null ? undefined : b.id, String(activation || 'linear'),
      alpha == null ? undefined : alpha.id, leakyreluAlpha === undefined ? 0.2 : +leakyreluAlpha, !!nchw));
  });
}

// The activations the native epilogue runs.
const NATIVE_ACTIVATIONS = new Set(['linear', 'relu', 'relu6', 'elu', 'prelu', 'leakyrelu', 'sigmoid']);

// Runs `product(epilogue)` with the bias and activation in the product's kernel (the core
// composes them while a gradient is taken, or when they do not fit its kernel); null when the
// arguments need tfjs's composition (NCHW, an unknown activation, prelu without weights).
function natively(op, nchw, { bias, activation, preluActivationWeights, leakyreluAlpha }, product) {
  if (nchw || !NATIVE_ACTIVATIONS.has(activation) || (activation === 'prelu' && preluActivationWeights == null)) {
    return null;
  }
  return tidy(() => {
    const b = bias == null ? null : convertToTensor(bias, 'bias', op);
    const alpha = activation === 'prelu' ? convertToTensor(preluActivationWeights, 'prelu weights', op) : null;
    return product({ bias: b == null ? undefined : b.id, activation, alpha: alpha == null ? undefined : alpha.id,
      // tfjs's default is for undefined only; its kernel multiplies by the value as given
      // (null is 0, '0.5' is 0.5, {} NaN).
      leakyAlpha: leakyreluAlpha === undefined ? 0.2 : +leakyreluAlpha });
  });
}

function matMul({ a, b, transposeA = false, transposeB = false, bias, activation = 'linear',
  preluActivationWeights, leakyreluAlpha = 0.2 }) {
  const epilogue = { bias, activation, preluActivationWeights, leakyreluAlpha };
  const run = (ep) => modules().matmul.matMulWith(a, b, transposeA, transposeB, ep);
  return natively('fused matMul', false, epilogue, run) ||
    tidy(() => finish('fused matMul', ops().matMul(a, b, transposeA, transposeB), epilogue, false));
}

function convolution(kind, op, { x, filter, strides, pad, dataFormat = 'NHWC', dilations = [1, 1], dimRoundingMode,
  bias, activation = 'linear', preluActivationWeights, leakyreluAlpha }) {
  const epilogue = { bias, activation, preluActivationWeights, leakyreluAlpha };
  const conv = (ep) => modules().conv.convOp(kind, x, filter, strides, pad, dataFormat, dilations, dimRoundingMode,
    'float32', ep);
  return natively(op, dataFormat === 'NCHW', epilogue, conv) ||
    tidy(() => finish(op, conv(undefined), epilogue, dataFormat === 'NCHW'));
}

const conv2d = (args) => convolution('conv2d', 'fused conv2d', args);
const depthwiseConv2d = (args) => convolution('depthwiseConv2d', 'fused depthwiseConv2d', args);

module.exports = { fused: { matMul, conv2d, depthwiseConv2d } };
