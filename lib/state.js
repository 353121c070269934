'use strict';
// The buffer native calls write new tensors' metadata into; everything else (tensors, scopes,
// variables, profiles) lives natively.
const native = require('./native');

const state = {
  meta: native.metaBuffer(),
};

module.exports = state;
