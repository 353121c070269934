'use strict';
// tfjs's log.warn / log.log: logging that tests and production silence (the IS_TEST and PROD
// flags). backend_util exports them; the registries warn through them.
const { env } = require('../env');

const quiet = () => env().getBool('IS_TEST') || env().getBool('PROD');
function warn(...msg) {
  if (!quiet()) console.warn(...msg);
}
function log(...msg) {
  if (!quiet()) console.log(...msg);
}

module.exports = { warn, log };
