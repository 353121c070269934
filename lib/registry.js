'use strict';
// tfjs's kernel, gradient and backend registries, in JavaScript.
//
// tidytensor's kernels are native and need no registration, so these registries start empty:
// they hold what a program registers. A kernel registered for the active backend ('cpu' or
// 'wgpu') runs through tf.engine().runKernel (below). A backend registered with
// tf.registerBackend is recorded (findBackendFactory and removeBackend see it), but tidytensor
// cannot run tensors on a JavaScript backend, so tf.setBackend refuses it with an error saying
// so, before calling its factory; that registry is the engine's (lib/engine.js, whose
// setBackend consults it), exported here with the others.
const native = require('./native');
const { Tensor } = require('./tensor');
const { tensor } = require('./convert');
const { env } = require('./env');
const { backend, registerBackend, removeBackend, findBackendFactory } = require('./engine');
const { warn } = require('./internals/log');
const { nativeKernel, NATIVE_KERNEL_NAMES } = require('./native_kernels');

// ---------------------------------------------------------------------------------------------
// Kernels and gradients

// Keyed `${backendName}_${kernelName}` as in tfjs (getKernelsForBackend reads the backend back
// as the text before the first '_', so a backend name with '_' finds none, as in tfjs).
const kernelRegistry = new Map();
const gradRegistry = new Map();
const keyOf = (kernelName, backendName) => `${backendName}_${kernelName}`;

// A registered kernel, else (on a native backend) the native one's config.
function getKernel(kernelName, backendName) {
  const registered = kernelRegistry.get(keyOf(kernelName, backendName));
  if (registered != null || !isNative(backendName)) return registered;
  return nativeKernel(kernelName, backendName);
}

const isNative = (backendName) => typeof backendName === 'string' && native.backendNames().includes(backendName);

function getGradient(kernelName) {
  return gradRegistry.get(kernelName);
}

// The kernels registered for a backend, then (a native backend) the native kernels not
// overridden by one.
function getKernelsForBackend(backendName) {
  const out = [];
  for (const [key, config] of kernelRegistry) {
    if (key.split('_')[0] === backendName) out.push(config);
  }
  if (isNative(backendName)) {
    const taken = new Set(out.map((k) => k.kernelName));
    for (const name of NATIVE_KERNEL_NAMES) if (!taken.has(name)) out.push(nativeKernel(name, backendName));
  }
  return out;
}

// A second registration replaces the first, with a warning.
function registerKernel(config) {
  const { kernelName, backendName } = config;
  const key = keyOf(kernelName, backendName);
  if (kernelRegistry.has(key)) {
    warn(`The kernel '${kernelName}' for backend '${backendName}' is already registered`);
  }
  kernelRegistry.set(key, config);
}

// Replacing a gradient warns only in debug mode (tfjs's libraries override some on purpose).
function registerGradient(config) {
  const { kernelName } = config;
  if (gradRegistry.has(kernelName) && env().getBool('DEBUG')) {
    warn(`Overriding the gradient for '${kernelName}'`);
  }
  gradRegistry.set(kernelName, config);
}

function unregisterKernel(kernelName, backendName) {
  const key = keyOf(kernelName, backendName);
  if (!kernelRegistry.has(key)) {
    throw new Error(`The kernel '${kernelName}' for backend '${backendName}' is not registered`);
  }
  kernelRegistry.delete(key);
}

function unregisterGradient(kernelName) {
  if (!gradRegistry.has(kernelName)) {
    throw new Error(`The gradient '${kernelName}' for backend is not registered`);
  }
  gradRegistry.delete(kernelName);
}

// Registers each kernel registered for one backend for another too (a copy of the config,
// renamed; the native kernels answer for every native backend already).
function copyRegisteredKernels(registeredBackendName, newBackendName) {
  for (const config of getKernelsForBackend(registeredBackendName).filter((k) => kernelRegistry.has(keyOf(k.kernelName, registeredBackendName)))) {
    registerKernel(Object.assign({}, config, { backendName: newBackendName }));
  }
}

// ---------------------------------------------------------------------------------------------
// engine().runKernel: runs a registered kernel for the active backend.

// The kernel gets ({inputs, attrs, backend}) as in tfjs and must return a tidytensor Tensor, a
// {values, shape, dtype} record (made into a tensor here) or an array of them; tfjs's
// TensorInfo (a backend dataId) has no meaning for the native backends. The kernel runs in a
// scope, so tensors it makes and does not return are freed.
function runKernel(kernelName, inputs, attrs) {
  const backendName = native.getBackend();
  const config = getKernel(kernelName, backendName);
  if (config == null) {
    throw new Error(`Kernel '${kernelName}' not registered for backend '${backendName}'`);
  }
  native.startScope();
  let out;
  let outputs;
  try {
    out = config.kernelFunc({ inputs, attrs, backend: backend() });
    outputs = (Array.isArray(out) ? out : [out]).map((o) => asTensor(kernelName, o));
  } catch (e) {
    native.endScope([]);
    throw e;
  }
  native.endScope(outputs.map((t) => t.id));
  return Array.isArray(out) ? outputs : outputs[0];
}

function asTensor(kernelName, o) {
  if (o instanceof Tensor) return o;
  if (o != null && o.values != null && o.shape != null) {
    return tensor(o.values, o.shape, o.dtype);
  }
  throw new Error(`Kernel '${kernelName}' returned ${o === null ? 'null' : typeof o}: a kernel run ` +
    'by tidytensor must return tidytensor Tensors or {values, shape, dtype} records');
}

// ---------------------------------------------------------------------------------------------
// The base classes tfjs's backends extend, for code that subclasses or type-checks them.

function notYetImplemented(kernelName) {
  throw new Error(`'${kernelName}' not yet implemented or not found in the registry. ` +
    'This kernel may not be supported by the tfjs backend you have chosen');
}

const EPSILON_FLOAT32 = 1e-7;
const EPSILON_FLOAT16 = 1e-4;

// Every method throws until a subclass provides it (timerAvailable and epsilon excepted).
class KernelBackend {
  refCount() { return notYetImplemented('refCount'); }
  incRef() { return notYetImplemented('incRef'); }
  timerAvailable() { return true; }
  time() { return notYetImplemented('time'); }
  read() { return notYetImplemented('read'); }
  readSync() { return notYetImplemented('readSync'); }
  readToGPU() { return notYetImplemented('readToGPU'); }
  numDataIds() { return notYetImplemented('numDataIds'); }
  disposeData() { return notYetImplemented('disposeData'); }
  write() { return notYetImplemented('write'); }
  move() { return notYetImplemented('move'); }
  createTensorFromGPUData() { return notYetImplemented('createTensorFromGPUData'); }
  memory() { return notYetImplemented('memory'); }
  floatPrecision() { return notYetImplemented('floatPrecision'); }
  epsilon() { return this.floatPrecision() === 32 ? EPSILON_FLOAT32 : EPSILON_FLOAT16; }
  dispose() { return notYetImplemented('dispose'); }
}

// A backend's per-dataId storage: a WeakMap with a count; reading an id it lacks first asks
// the data mover to move that data to this backend.
class DataStorage {
  constructor(backend, dataMover) {
    this.backend = backend;
    this.dataMover = dataMover;
    this.data = new WeakMap();
    this.dataIdsCount = 0;
  }

  get(dataId) {
    if (!this.data.has(dataId)) this.dataMover.moveData(this.backend, dataId);
    return this.data.get(dataId);
  }

  set(dataId, value) {
    this.dataIdsCount++;
    this.data.set(dataId, value);
  }

  has(dataId) {
    return this.data.has(dataId);
  }

  delete(dataId) {
    this.dataIdsCount--;
    return this.data.delete(dataId);
  }

  numDataIds() {
    return this.dataIdsCount;
  }
}

module.exports = {
  registerKernel, unregisterKernel, getKernel, getKernelsForBackend, copyRegisteredKernels,
  registerGradient, unregisterGradient, getGradient, registerBackend, removeBackend,
  findBackendFactory, KernelBackend, DataStorage, runKernel,
};
