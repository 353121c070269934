'use strict';
// tf.signal against @tensorflow/tfjs: windows and frames.
const { cases } = require('./helpers/ops');

cases('signal', [
  ['hannWindow odd', (tf) => tf.signal.hannWindow(7)],
  ['hannWindow even', (tf) => tf.signal.hannWindow(8)],
  ['hammingWindow', (tf) => tf.signal.hammingWindow(10)],
  ['hannWindow 1', (tf) => tf.signal.hannWindow(1)],
  ['frame', (tf) => tf.signal.frame(tf.range(0, 10), 4, 3)],
  ['frame padEnd', (tf) => tf.signal.frame(tf.range(0, 10), 4, 3, true, -1)],
  ['frame none', (tf) => tf.signal.frame(tf.range(0, 3), 5, 1)],
]);
