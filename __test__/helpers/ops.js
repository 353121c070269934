'use strict';
// Shared by the op-family differential tests (<family>.test.js): the same inputs on both
// libraries, and `cases(title, [[name, program, opts]])`, one test per program run by `same`.
const { describe, it } = require('node:test');
const { same } = require('./setup');

const F = (tf) => tf.tensor2d([[1, -2, 3], [-4, 5.5, 6]]);
const I = (tf) => tf.tensor2d([[1, -2, 3], [-4, 5, 6]], [2, 3], 'int32');
const Bo = (tf) => tf.tensor2d([[true, false, true], [false, false, true]]);
const POS = (tf) => tf.tensor1d([0.5, 1, 4, 9]);
const makers = { float32: F, int32: I, bool: Bo };

// A fresh copy of arguments for each library (some functions mutate or keep them).
function fresh(x) {
  if (Array.isArray(x)) return x.map(fresh);
  if (ArrayBuffer.isView(x)) return x.slice();
  if (x != null && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype) {
    const o = {};
    for (const k of Object.keys(x)) o[k] = fresh(x[k]);
    return o;
  }
  return x;
}

function cases(title, list) {
  describe(title, () => {
    for (const [name, program, opts] of list) {
      it(name, () => { same(program, opts); });
    }
  });
}

module.exports = { F, I, Bo, POS, makers, cases, fresh };
