'use strict';
// @tensorflow/tfjs 4.22 on its cpu backend, the reference the tests compare against.
// (The cpu backend prints a hint about tfjs-node on first use; it is silenced here.)
const tf = require('@tensorflow/tfjs');

tf.setBackend('cpu');
tf.backend().firstUse = false;

module.exports = tf;
