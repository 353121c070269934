'use strict';
// Loads the compiled addon: a local build from source, else the prebuilt package for this
// platform (see binding.js).
module.exports = require('../binding').loadAddon();
