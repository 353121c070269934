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
  // The tfjs packages whose API this is (a library reading tf.version['tfjs-layers'] finds it).
  version: {
    tidytensor: pkgVersion, 'tfjs-core': '4.22.0', 'tfjs-data': '4.22.0', 'tfjs-layers': '4.22.0',
    'tfjs-converter': '4.22.0', tfjs: '4.22.0',
  },
  version_core: '4.22.0',
  version_layers: '4.22.0',
  version_converter: '4.22.0',
};

for (const family of FAMILIES) Object.assign(tf, require(`./lib/ops/${family}`));
Object.assign(tf, require('./lib/ops/creation_composed'));
const { losses, Reduction } = require('./lib/ops/losses');
const { image } = require('./lib/ops/image');
const { signal } = require('./lib/ops/signal');
const { fused } = require('./lib/ops/fused');
const { sparse } = require('./lib/ops/sparse');
Object.assign(tf, require('./lib/ops/ragged'));
const { string } = require('./lib/ops/string');
const { complex, real, imag, fft, ifft, rfft, irfft, spectral } = require('./lib/ops/spectral');
Object.assign(tf, { losses, Reduction, image, signal, fused, sparse, string, spectral });
Object.assign(tf, { complex, real, imag, fft, ifft, rfft, irfft });

Object.assign(tf, {
  // engine
  tidy: eng.tidy,
  // memory tools beyond tfjs (lib/memory)
  tidyAsync: require('./lib/memory/async_scope').tidyAsync,
  // serving beyond tfjs (lib/serving.js): batcher, the serving thread's memory
  serving: require('./lib/serving').serving,
  leaks: require('./lib/memory/origins').leaks,
  memoryReport: require('./lib/memory/origins').memoryReport,
  keep: eng.keep,
  dispose: eng.dispose,
  memory: eng.memory,
  profile: eng.profile,
  time: eng.time,
  engine: require('./lib/engine_object').engine,
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

// Gradients (the tape is in the native engine).
const gradientsm = require('./lib/gradients');
Object.assign(tf, {
  grad: gradientsm.grad,
  grads: gradientsm.grads,
  valueAndGrad: gradientsm.valueAndGrad,
  valueAndGrads: gradientsm.valueAndGrads,
  variableGrads: gradientsm.variableGrads,
  customGrad: gradientsm.customGrad,
});

// Optimizers (tf.train; the rules and their state are native).
const trainm = require('./lib/train');
Object.assign(tf, trainm);

// Layers and models (tf.layers, tf.sequential, tf.model; the layers, the models and their
// training are native, in crates/layers).
{
  const L = require('./lib/layers/layer');
  const M = require('./lib/layers/models');
  const C = require('./lib/layers/callbacks');
  const R = require('./lib/layers/recurrent');
  Object.assign(L.layers, {
    RNN: R.RNN, RNNCell: R.RNNCell, rnn: R.rnnFactory(L.layers.rnn), timeDistributed: R.timeDistributedFactory(L.layers.timeDistributed),
  });
  Object.assign(tf, {
    layers: L.layers, initializers: L.initializers, regularizers: L.regularizers, constraints: L.constraints,
    input: L.input, SymbolicTensor: L.SymbolicTensor, LayerVariable: L.LayerVariable, InputSpec: L.InputSpec, RNN: R.RNN, sequential: M.sequential, model: M.model,
    LayersModel: M.LayersModel, Sequential: M.Sequential, callbacks: C.callbacks, Callback: C.Callback,
    CallbackList: C.CallbackList, registerCallbackConstructor: C.registerCallbackConstructor, CustomCallback: C.CustomCallback, History: C.History, EarlyStopping: C.EarlyStopping,
  });
  // Model files (tf.io: handlers, routers, the weight format; lib/io).
  const IO = require('./lib/layers/model_load');
  Object.assign(tf, {
    io: require('./lib/io').io,
    loadLayersModel: IO.loadLayersModel,
    // Graph models (tfjs-converter's format; the graph runs natively: lib/graph).
    loadGraphModel: require('./lib/graph/graph_model').loadGraphModel,
    loadGraphModelSync: require('./lib/graph/graph_model').loadGraphModelSync,
    GraphModel: require('./lib/graph/graph_model').GraphModel,
    // ONNX models, as graph models of the same executor (crates/graph's onnx).
    loadOnnxModel: require('./lib/graph/onnx').loadOnnxModel,
    registerOp: require('./lib/graph/custom_ops').registerOp,
    deregisterOp: require('./lib/graph/custom_ops').deregisterOp,
    models: { modelFromJSON: IO.modelFromJSON },
  });
}

tf.data = require('./lib/data');

// tf.util, tf.tensor_util (tfjs-core's helpers) and tf.metrics (tfjs-layers').
const utilm = require('./lib/util');
const { util, tensor_util } = utilm;
const { metrics } = require('./lib/ops/metrics');
const { test_util } = require('./lib/test_util');
Object.assign(tf, { util, tensor_util, metrics, test_util });

// tfjs's kernel-name constants and its rank-specific aliases (concat1d, pad2d, slice3d ...).
Object.assign(tf, require('./lib/kernel_names'));
const { withOne } = require('./lib/ops/args');
for (const r of [1, 2, 3, 4]) {
  const rankOf = (x, op, check) => withOne(x, 'x', op, 'string_or_numeric', (t) => check(t));
  tf[`concat${r}d`] = (tensors, axis) => tf.concat(tensors, axis);
  tf[`pad${r}d`] = (x, paddings, constantValue) => {
    const ok = r === 1 ? paddings.length === 2
      : paddings.length === r && Array.from({ length: r }, (_, i) => paddings[i]).every((p) => p.length === 2);
    if (!ok) throw new Error(`Invalid number of paddings. Must be length of 2${r === 1 ? '' : ' each'}.`);
    return tf.pad(x, r === 1 ? [paddings] : paddings, constantValue);
  };
  tf[`reverse${r}d`] = (x, axis) => rankOf(x, 'reverse', (t) => {
    if (t.rank !== r) throw new Error(`Error in reverse${r}D: x must be rank ${r} but got rank ${t.rank}.`);
    return tf.reverse(t, r === 1 ? 0 : axis);
  });
  tf[`slice${r}d`] = (x, begin, size) => rankOf(x, `slice${r}d`, (t) => {
    if (t.rank !== r) throw new Error(`slice${r}d expects a rank-${r} tensor, but got a rank-${t.rank} tensor`);
    return r === 1 ? tf.slice(t, [begin], [size]) : tf.slice(t, begin, size);
  });
}
Object.assign(tf, {
  euclideanNorm: (x, axis = null, keepDims = false) => tf.norm(x, 'euclidean', axis, keepDims),
  print: (x, verbose = false) => console.log(x.toString(verbose)),
  upcastType: (a, b) => utilm.upcastType(a, b),
  sumOutType: (t) => utilm.upcastType(t, 'int32'),
});

// tfjs-core's pure JavaScript helpers (tf.backend_util and the other *_util namespaces,
// tf.serialization, tf.op, tf.rand ...) and its kernel/gradient/backend registries (see
// lib/registry.js).
{
  const internals = require('./lib/internals');
  const registry = require('./lib/registry');
  for (const name of ['backend_util', 'broadcast_util', 'gather_util', 'scatter_util', 'slice_util',
    'serialization', 'device_util', 'kernel_impls', 'OP_SCOPE_SUFFIX', 'op', 'rand', 'ensureShape',
    'enclosingPowerOfTwo', 'nextFrame', 'cosineWindow', 'bitwiseAnd']) tf[name] = internals[name];
  for (const name of ['registerKernel', 'unregisterKernel', 'getKernel', 'getKernelsForBackend',
    'copyRegisteredKernels', 'registerGradient', 'unregisterGradient', 'getGradient',
    'registerBackend', 'removeBackend', 'findBackendFactory', 'KernelBackend', 'DataStorage']) {
    tf[name] = registry[name];
  }
}

// tf.node's image decoders and encoders (tfjs-node's) and tf.browser's pixel functions.
{
  const images = require('./lib/images');
  tf.node = Object.assign(tf.node || {}, images.node);
  tf.browser = Object.assign(tf.browser || {}, images.browser);
}

// The modules that need something built above them get it now: the native kernels' configs run
// the public ops (lib/native_kernels.js); the memory tools' modules install what setting their
// flags does (lib/env.js's DEBUG, TRACK_ORIGINS and GC_BACKSTOP).
require('./lib/native_kernels').setNamespace(tf);
require('./lib/memory/debug');
require('./lib/memory/backstop');

module.exports = tf;
