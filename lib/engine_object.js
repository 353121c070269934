'use strict';
// tf.engine(): the parts of tfjs's Engine that programs use directly, over the engine
// (lib/engine.js), the gradients and the kernel registry, which sit above it.
const native = require('./native');
const { tensor } = require('./convert');
const {
  tidy, keep, dispose, memory, profile, time, disposeVariables, registeredVariables, collectIds,
  backend, findBackend, setBackend, ready, findBackendFactory, registerBackend, removeBackend,
  registryFactoryObject,
} = require('./engine');
const gradients = require('./gradients');
const registry = require('./registry');

const engineObject = {
  // Scope names only label profiles in tfjs; tidytensor's profile does not show scopes.
  startScope() {
    native.startScope();
  },
  endScope(result) {
    native.endScope(collectIds(result));
  },
  keep,
  dispose: (x) => dispose(x),
  tidy,
  memory,
  profile,
  time,
  disposeVariables,
  get registeredVariables() { return registeredVariables(); },
  get backendName() { return native.getBackend(); },
  get backend() { return backend(); },
  backendNames: () => native.backendNames(),
  findBackend: (name) => findBackend(name),
  findBackendFactory: (name) => findBackendFactory(name),
  registerBackend: (name, factory, priority) => registerBackend(name, factory, priority),
  removeBackend: (name) => removeBackend(name),
  // tfjs's makeTensor(values, shape, dtype) and the disposals the library calls directly.
  makeTensor: (values, shape, dtype) => tensor(values, shape, dtype),
  disposeTensor: (t) => t.dispose(),
  disposeVariable: (v) => v.dispose(),
  customGrad: (f) => gradients.customGrad(f),
  get registryFactory() { return registryFactoryObject(); },
  // tfjs's EngineState counters, read live (libraries log them: @vladmandic/human does).
  get state() {
    const m = native.memory();
    return { numTensors: m.numTensors, numBytes: m.numBytes, numDataBuffers: m.numDataBuffers };
  },
  setBackend,
  ready,
  // Whether a kernel run now is recorded for a gradient.
  isTapeOn: () => native.isTapeOn(),
  // tfjs's engine.gradients(f, xs, dy, allowNoGradients): {value, grads}.
  gradients: (f, xs, dy, allowNoGradients) => gradients.gradients(f, xs, dy, allowNoGradients),
  // Kernels registered from JavaScript (tf.registerKernel), by name.
  runKernel: (kernelName, inputs, attrs) => registry.runKernel(kernelName, inputs, attrs),
};

function engine() {
  return engineObject;
}

module.exports = { engine };
