'use strict';
// tidytensor: the TensorFlow.js 4.22 API for Node on a native Rust engine. The namespace is
// built from the op family modules (lib/ops/<family>.js, the same families as the native
// layers) and the engine, environment and tensor modules.
const eng = require('./lib/engine');
const envm = require('./lib/env');
const { Tensor, Variable } = require('./lib/tensor');
const { TensorBuffer } = require('./lib/buffer');
const { version: pkgVersion } = require('./package.json');

const FAMILIES = ['creation', 'elementwise', 'reduce', 'layout', 'matmul', 'conv'];

const tf = {
  Tensor,
  Variable,
  TensorBuffer,
  Rank: Object.freeze({ R0: 'R0', R1: 'R1', R2: 'R2', R3: 'R3', R4: 'R4', R5: 'R5', R6: 'R6' }),
  version: { tidytensor: pkgVersion, 'tfjs-core': '4.22.0', tfjs: '4.22.0' },
  version_core: '4.22.0',
};

for (const family of FAMILIES) Object.assign(tf, require(`./lib/ops/${family}`));
const { losses, Reduction } = require('./lib/ops/losses');
const { image } = require('./lib/ops/image');
const { signal } = require('./lib/ops/signal');
const { fused } = require('./lib/ops/fused');
Object.assign(tf, { losses, Reduction, image, signal, fused });

Object.assign(tf, {
  // engine
  tidy: eng.tidy,
  keep: eng.keep,
  dispose: eng.dispose,
  memory: eng.memory,
  profile: eng.profile,
  time: eng.time,
  engine: eng.engine,
  variable: eng.variable,
  disposeVariables: eng.disposeVariables,
  getBackend: eng.getBackend,
  setBackend: eng.setBackend,
  ready: eng.ready,
  backend: eng.backend,
  findBackend: eng.findBackend,
  // environment
  env: envm.env,
  ENV: envm.ENV,
  Environment: envm.Environment,
  enableProdMode: envm.enableProdMode,
  enableDebugMode: envm.enableDebugMode,
  disableDeprecationWarnings: envm.disableDeprecationWarnings,
  deprecationWarn: envm.deprecationWarn,
  setPlatform: envm.setPlatform,
});

// tf.util, tf.tensor_util (tfjs-core's helpers) and tf.metrics (tfjs-layers').
const { util, tensor_util } = require('./lib/util');
const { metrics } = require('./lib/ops/metrics');
Object.assign(tf, { util, tensor_util, metrics });

module.exports = tf;
