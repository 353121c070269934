'use strict';
// tidytensor: the TensorFlow.js 4.22 API for Node on a native Rust engine.
const ops = require('./lib/ops');
const eng = require('./lib/engine');
const { Tensor, Variable } = require('./lib/tensor');
const { version: pkgVersion } = require('./package.json');

const Rank = Object.freeze({ R0: 'R0', R1: 'R1', R2: 'R2', R3: 'R3', R4: 'R4', R5: 'R5', R6: 'R6' });

const tf = {
  Tensor,
  Variable,
  Rank,
  version: { tidytensor: pkgVersion, 'tfjs-core': '4.22.0', tfjs: '4.22.0' },
  version_core: '4.22.0',

  // creation
  tensor: ops.tensor,
  scalar: ops.scalar,
  tensor1d: ops.tensor1d,
  tensor2d: ops.tensor2d,
  tensor3d: ops.tensor3d,
  tensor4d: ops.tensor4d,
  tensor5d: ops.tensor5d,
  tensor6d: ops.tensor6d,
  zeros: ops.zeros,
  ones: ops.ones,
  fill: ops.fill,
  zerosLike: ops.zerosLike,
  onesLike: ops.onesLike,
  range: ops.range,
  linspace: ops.linspace,
  eye: ops.eye,
  oneHot: ops.oneHot,
  randomNormal: ops.randomNormal,
  randomUniform: ops.randomUniform,
  truncatedNormal: ops.truncatedNormal,
  clone: ops.clone,
  cast: ops.cast,
  reshape: ops.reshape,

  // elementwise
  neg: ops.neg,
  square: ops.square,
  sqrt: ops.sqrt,
  exp: ops.exp,
  log: ops.log,
  abs: ops.abs,
  relu: ops.relu,
  sigmoid: ops.sigmoid,
  tanh: ops.tanh,
  add: ops.add,
  sub: ops.sub,
  mul: ops.mul,
  div: ops.div,
  maximum: ops.maximum,
  minimum: ops.minimum,
  pow: ops.pow,
  matMul: ops.matMul,

  // reductions
  sum: ops.sum,
  mean: ops.mean,
  max: ops.max,
  min: ops.min,
  argMax: ops.argMax,
  argMin: ops.argMin,
  softmax: ops.softmax,

  // shapes
  expandDims: ops.expandDims,
  squeeze: ops.squeeze,
  transpose: ops.transpose,
  concat: ops.concat,
  stack: ops.stack,
  slice: ops.slice,
  gather: ops.gather,

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
  enableProdMode() {},
  enableDebugMode() {},
};

module.exports = tf;
