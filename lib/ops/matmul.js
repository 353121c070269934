'use strict';
// Matrix products.
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { withTwo } = require('./args');

function matMul(a, b, transposeA = false, transposeB = false) {
  const tA = !!transposeA;
  const tB = !!transposeB;
  return withTwo('matMul', a, 'a', 'numeric', b, 'b', 'numeric',
    (ta, tb) => wrap(native.matMul(ta.id, tb.id, tA, tB)));
}

Tensor.prototype.matMul = function (b, transposeA, transposeB) {
  return matMul(this, b, transposeA, transposeB);
};

module.exports = { matMul };
