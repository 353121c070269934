// An ES module (module: nodenext): the three ways TensorFlow.js code imports the package.
import * as tf from 'tidytensor';
import tfDefault from 'tidytensor';
import { tensor, tidy, type Tensor2D } from 'tidytensor';

const a: Tensor2D = tensor([[1, 2], [3, 4]]) as Tensor2D;
const y: tf.Tensor = tidy(() => tf.matMul(a, a).add(tfDefault.scalar(1)));
const m: tf.Tensor = tfDefault.moments(y).mean;
console.log(y.shape, m.dtype, tf.memory().numTensors);
