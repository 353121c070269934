'use strict';
// Scopes (tidy/keep/dispose), memory, profiling, variables and backends (the native ones and
// those registered from JavaScript). tf.engine(), the object over these and the registries, is
// lib/engine_object.js.
const native = require('./native');
const { Tensor, Variable, variableOf } = require('./tensor');
const { checkDtype } = require('./convert');
const { warn } = require('./internals/log');

const NONE = [];

// Ids of every Tensor found in `container` (arrays and plain objects at any depth, cycle-safe),
// as tfjs's getTensorsInContainer walks it.
function collectIds(container) {
  if (container == null || typeof container !== 'object') return NONE;
  if (container instanceof Tensor) return [container.id];
  const ids = [];
  walk(container, ids, new Set());
  return ids;
}

function collectTensors(container) {
  const out = [];
  if (container instanceof Tensor) out.push(container);
  else if (container != null && typeof container === 'object') walk(container, out, new Set(), true);
  return out;
}

function walk(container, out, seen, asTensors) {
  if (container == null) return;
  if (container instanceof Tensor) {
    out.push(asTensors ? container : container.id);
    return;
  }
  if (typeof container !== 'object' || ArrayBuffer.isView(container)) return;
  for (const k in container) {
    const v = container[k];
    if (!seen.has(v)) {
      seen.add(v);
      walk(v, out, seen, asTensors);
    }
  }
}

function isPromise(x) {
  return x != null && typeof x.then === 'function';
}

// tidy(fn) or tidy(name, fn); the name only labels profiles in tfjs and is not kept here.
function tidy(nameOrFn, fn) {
  if (fn == null) {
    if (typeof nameOrFn !== 'function') throw new Error('Please provide a function to tidy()');
    fn = nameOrFn;
  } else {
    if (typeof nameOrFn !== 'string' && !(nameOrFn instanceof String)) {
      throw new Error('When calling with two arguments, the first argument ' +
        'to tidy() must be a string');
    }
    if (typeof fn !== 'function') {
      throw new Error('When calling with two arguments, the 2nd argument ' +
        'to tidy() must be a function');
    }
  }
  native.startScope();
  let result;
  try {
    result = fn();
  } catch (e) {
    native.endScope(NONE);
    throw e;
  }
  if (isPromise(result)) {
    console.error('Cannot return a Promise inside of tidy.');
    native.endScope(NONE);
    return result;
  }
  native.endScope(collectIds(result));
  return result;
}

function keep(result) {
  if (result instanceof Tensor) native.keep(result.id);
  result.kept = true;
  return result;
}

function dispose(container) {
  if (container instanceof Tensor) {
    container.dispose();
    return;
  }
  const tensors = collectTensors(container);
  for (let i = 0; i < tensors.length; i++) tensors[i].dispose();
}

// Fields tidytensor adds to tf.memory() once a memory tool is on (the GC backstop's
// numReclaimed); none by default, so that it has exactly tfjs's fields.
let memoryExtra = null;

function memory() {
  const info = native.memory();
  if (memoryExtra !== null) memoryExtra(info);
  return info;
}

function setMemoryExtra(fn) {
  memoryExtra = fn;
}

// Profiles nest: each sees the kernels run while it is open (the native engine records them).
let openProfiles = 0;

async function profile(query) {
  const start = native.memory();
  const mark = native.startProfile();
  openProfiles++;
  let result;
  let kernels;
  try {
    result = await query();
  } finally {
    openProfiles--;
    kernels = native.endProfile(mark, openProfiles === 0);
  }
  const end = native.memory();
  const info = {
    newBytes: end.numBytes - start.numBytes,
    newTensors: end.numTensors - start.numTensors,
    peakBytes: Math.max(...kernels.map((k) => k.totalBytesSnapshot)),
    kernels,
    result,
  };
  Object.defineProperty(info, 'kernelNames', {
    enumerable: true,
    get() { return Array.from(new Set(this.kernels.map((k) => k.name))); },
  });
  return info;
}

// kernelMs: the time the kernels `query` ran took, as the engine recorded them, plus the wait
// for the backend to finish their work (on wgpu the GPU runs after the ops return); wallMs:
// everything, JavaScript included.
async function time(query) {
  if (typeof query !== 'function') throw new TypeError('f is not a function');
  const start = performance.now();
  const mark = native.startProfile();
  openProfiles++;
  let kernels;
  let syncMs;
  try {
    query();
    const t = performance.now();
    native.synchronize();
    syncMs = performance.now() - t;
  } finally {
    openProfiles--;
    kernels = native.endProfile(mark, openProfiles === 0);
  }
  let kernelMs = syncMs;
  for (const k of kernels) kernelMs += k.kernelTimeMs;
  return { kernelMs, wallMs: performance.now() - start };
}

function variable(initialValue, trainable = true, name, dtype) {
  if (!(initialValue instanceof Tensor)) {
    throw new Error('The initial value of a variable must be a Tensor');
  }
  if (dtype != null && dtype !== 'complex64') checkDtype(dtype);
  const id = native.variable(initialValue.id, trainable !== false,
    name == null || name === '' ? null : String(name), dtype == null ? null : dtype);
  return variableOf(id);
}

Tensor.prototype.variable = function (trainable, name, dtype) {
  return variable(this, trainable, name, dtype);
};

// tfjs's engine().registeredVariables: name -> Variable, read from the native registry (the
// only one), so variables made by native code appear too.
function registeredVariables() {
  const out = {};
  for (const [name, id] of native.variables()) out[name] = variableOf(id);
  return out;
}

function disposeVariables() {
  native.disposeVariables();
}

// ---------------------------------------------------------------------------------------------
// Backends

function getBackend() {
  return native.getBackend();
}

// Backends tidytensor knows; one that fails to start (no GPU adapter) resolves false after a
// warning, as a failed backend factory does in tfjs. Unknown names throw.
const KNOWN_BACKENDS = ['cpu', 'wgpu'];

async function setBackend(backendName) {
  // tfjs looks the name up as a property key, which converts it to a string.
  if (typeof backendName !== 'string') backendName = String(backendName);
  refuseJsBackend(backendName);
  try {
    native.setBackend(backendName);
  } catch (e) {
    if (!KNOWN_BACKENDS.includes(backendName)) throw e;
    console.warn(`Initialization of backend ${backendName} failed`);
    console.warn(e.message);
    return false;
  }
  return true;
}

async function ready() {}

// The active backend: its name and, for wgpu, the adapter (name, driver, limits).
// `releasePool()` frees the buffers backends keep for reuse that no tensor holds.
function backend() {
  const info = native.backendInfo();
  const out = { name: info.name };
  for (const key of Object.keys(info)) if (info[key] != null) out[key] = info[key];
  out.memory = () => native.memory();
  out.numDataIds = () => native.memory().numDataBuffers;
  out.releasePool = () => native.releasePool();
  // Both backends compute in float32 (tfjs's webgl may use 16 bits).
  out.floatPrecision = () => 32;
  out.epsilon = () => 1e-7;
  return out;
}

function findBackend(name) {
  // tfjs looks the name up as a property key, which converts it to a string.
  if (typeof name === 'symbol') return null;
  const key = `${name}`;
  return native.backendNames().indexOf(key) >= 0 ? { name: key } : null;
}

// Backends registered from JavaScript (tfjs's registry of backend factories): name ->
// { factory, priority }.
const registryFactory = new Map();
const nativeNames = () => native.backendNames();

// tfjs's registry is keyed by property name, so names are compared as strings.
const nameKey = (name) => (typeof name === 'symbol' ? name : `${name}`);

// Records a backend factory: true when new, false (with tfjs's warning) when the name is taken,
// including by a native backend.
function registerBackend(name, factory, priority = 1) {
  const key = nameKey(name);
  if (registryFactory.has(key) || nativeNames().includes(key)) {
    warn(`${name} backend was already registered. Reusing existing backend factory.`);
    return false;
  }
  registryFactory.set(key, { factory, priority });
  return true;
}

// The registered factory; for a native backend, a factory giving that backend's description
// (tf.findBackend's answer).
function findBackendFactory(name) {
  const key = nameKey(name);
  if (registryFactory.has(key)) return registryFactory.get(key).factory;
  if (nativeNames().includes(key)) return () => findBackend(key);
  return null;
}

// Forgets a backend registered from JavaScript; native backends cannot be removed.
function removeBackend(name) {
  const key = nameKey(name);
  if (registryFactory.has(key)) {
    registryFactory.delete(key);
    return;
  }
  if (nativeNames().includes(key)) {
    throw new Error(`The ${name} backend is native to tidytensor and cannot be removed`);
  }
  throw new Error(`${name} backend not found in registry`);
}

// Wraps tf.setBackend: a backend registered from JavaScript is refused (the Promise rejects)
// without running its factory; the others go to the native engine.
// setBackend's check: a backend registered from JavaScript cannot hold tidytensor's tensors.
function refuseJsBackend(backendName) {
  const key = nameKey(backendName);
  if (registryFactory.has(key) && !nativeNames().includes(key)) {
    throw new Error(`Backend '${backendName}' was registered with tf.registerBackend, but ` +
      `tidytensor runs tensors only on its native backends (${nativeNames().join(', ')})`);
  }
}

// tfjs's `engine().registryFactory`: backend name -> {factory, priority}, the native backends
// (cpu, wgpu) first, then those registered from JavaScript. Libraries read it to see whether a
// backend is registered.
function registryFactoryObject() {
  const out = {};
  nativeNames().forEach((name, i) => {
    out[name] = { factory: () => findBackend(name), priority: name === 'cpu' ? 1 : 2 + i };
  });
  for (const [name, entry] of registryFactory) out[name] = entry;
  return out;
}

module.exports = {
  tidy, keep, dispose, memory, profile, time, variable, disposeVariables, registeredVariables,
  getBackend, setBackend, ready, backend, findBackend, collectIds, Tensor, Variable,
  setMemoryExtra, registerBackend, findBackendFactory, removeBackend, refuseJsBackend,
  registryFactoryObject,
};
