'use strict';
// Loads the compiled addon, built from source by `npm install` (see package.json).
const path = require('path');

function load() {
  const file = path.join(__dirname, '..', 'tidytensor.node');
  try {
    return require(file);
  } catch (e) {
    if (e && e.code === 'MODULE_NOT_FOUND') {
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
