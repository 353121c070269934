'use strict';
// tfjs's fused_util (in tf.backend_util): the fused ops' activations and gradients, computed
// with tidytensor's ops (so this module sits above the op families).
const elementwise = require('../ops/elementwise');
const reduce = require('../ops/reduce');
const layout = require('../ops/layout');
const { broadcast_util } = require('./broadcast_util');
const { scoped } = require('./op');

const { getReductionAxes } = broadcast_util;

function getFusedDyActivation(dy, y, activation) {
  if (activation == null || activation === 'linear') return dy;
  // dy where y > 0 (step(y) is freed here; tfjs leaves it to the caller's scope).
  if (activation === 'relu') return scoped(() => elementwise.mul(dy, elementwise.step(y)));
  throw new Error(`Cannot compute gradient for fused activation ${activation}.`);
}

// The bias gradient: dy summed over the axes the bias was broadcast along.
function getFusedBiasGradient(bias, dyActivation) {
  return scoped(() => {
    const axes = getReductionAxes(bias.shape, dyActivation.shape);
    const summed = axes.length > 0 ? reduce.sum(dyActivation, axes) : dyActivation;
    return layout.reshape(summed, bias.shape);
  });
}

function applyActivation(x, activation, preluActivationWeights, leakyreluAlpha) {
  const E = elementwise;
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

module.exports = { applyActivation, getFusedBiasGradient, getFusedDyActivation, shouldFuse };
