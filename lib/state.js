'use strict';
// Mutable engine-wide state kept on the JavaScript side. Only cheap flags live here: tensors,
// scopes and counters are native.
const native = require('./native');

const state = {
  meta: native.metaBuffer(),
  // true while tf.profile() runs: ops then record kernel entries in `kernels`.
  profiling: false,
  kernels: null,
  // name -> Variable, mirrors the native variable registry for engine().registeredVariables.
  registeredVariables: {},
};

module.exports = state;
