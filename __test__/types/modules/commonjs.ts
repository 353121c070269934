// module: commonjs (what most TypeScript projects still compile to): a namespace import, a
// default import (esModuleInterop) and require.
import * as tf from 'tidytensor';
import tfDefault from 'tidytensor';
import tfRequired = require('tidytensor');

const model: tf.Sequential = tf.sequential({ layers: [tfDefault.layers.dense({ units: 1, inputShape: [2] })] });
model.compile({ optimizer: 'sgd', loss: 'meanSquaredError' });
const p = model.predict(tfRequired.ones([1, 2])) as tf.Tensor;
console.log(p.shape);
