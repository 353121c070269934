'use strict';
// Loads the compiled addon. Tests may point TIDYTENSOR_NATIVE_PATH at another module that
// implements the same interface (see __test__/helpers/fake_native.js).
const path = require('path');

function load() {
  const override = process.env.TIDYTENSOR_NATIVE_PATH;
  const file = override ? path.resolve(override) : path.join(__dirname, '..', 'tidytensor.node');
  try {
    return require(file);
  } catch (e) {
    if (e && e.code === 'MODULE_NOT_FOUND' && !override) {
      const err = new Error(
        `tidytensor: the native addon was not found at ${file}. ` +
        'It is built from source when the package is installed: run `npm install` ' +
        '(or `npm rebuild tidytensor`) with a Rust toolchain (https://rustup.rs) available.');
      err.cause = e;
      throw err;
    }
    throw e;
  }
}

module.exports = load();
