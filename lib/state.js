'use strict';
// The buffer native calls write new tensors' metadata into; everything else (tensors, scopes,
// variables, profiles) lives natively.
const native = require('./native');

const state = {
  meta: native.metaBuffer(),
  // Called with each new Tensor / Variable handle when set (lib/memory/hooks.js).
  onCreate: null,
};

module.exports = state;
