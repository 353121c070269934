// A CommonJS module of the same project (module: nodenext): require, and a namespace import.
import tf = require('tidytensor');
import * as tfns from 'tidytensor';

const x: tf.Tensor1D = tf.tensor1d([1, 2, 3]);
const s: tfns.Scalar = tfns.sum(x) as tfns.Scalar;
console.log(s.dataSync()[0]);
