'use strict';
// A stand-in for tidytensor.node built on @tensorflow/tfjs (cpu), implementing the native
// interface that lib/ relies on. It lets the JavaScript layer be tested before (or without)
// the Rust build: TIDYTENSOR_NATIVE_PATH=__test__/helpers/fake_native.js node --test __test__/
const tf = require('./oracle');

const CODES = { float32: 0, int32: 1, bool: 2 };
const meta = new Int32Array(2 + 16);
const byId = new Map();
let nextId = 1;

function out(t) {
  const id = nextId++;
  byId.set(id, t);
  meta[0] = CODES[t.dtype];
  meta[1] = t.rank;
  for (let i = 0; i < t.rank; i++) meta[2 + i] = t.shape[i];
  return id;
}

function get(id) {
  const t = byId.get(id);
  if (t == null || t.isDisposed) throw new Error('Tensor is disposed.');
  return t;
}

const u = (name) => (id) => out(tf[name](get(id)));
const b = (name) => (a, c) => out(tf[name](get(a), get(c)));
const opt = (x) => (x == null ? undefined : x);

module.exports = {
  metaBuffer: () => meta,
  makeTensor: (values, shape, dtype) => out(tf.tensor(values.slice(), shape, dtype)),
  fill: (shape, value, dtype) => out(tf.fill(shape, value, dtype)),
  range: (start, stop, step, dtype) => out(tf.range(start, stop, step, dtype)),
  linspace: (start, stop, num) => out(tf.linspace(start, stop, num)),
  eye: (r, c, batch, dtype) => out(tf.eye(r, c, opt(batch), dtype)),
  oneHot: (id, depth, on, off, dtype) => out(tf.oneHot(get(id), depth, on, off, dtype)),
  randomNormal: (shape, m, s, dtype, seed) => out(tf.randomNormal(shape, m, s, dtype, opt(seed))),
  randomUniform: (shape, a, c, dtype, seed) => out(tf.randomUniform(shape, a, c, dtype, opt(seed))),
  truncatedNormal: (shape, m, s, dtype, seed) =>
    out(tf.truncatedNormal(shape, m, s, dtype, opt(seed))),
  clone: (id) => out(tf.clone(get(id))),
  cast: (id, dtype) => out(tf.cast(get(id), dtype)),
  reshape: (id, shape) => out(tf.reshape(get(id), shape)),
  neg: u('neg'), square: u('square'), sqrt: u('sqrt'), exp: u('exp'), log: u('log'),
  abs: u('abs'), relu: u('relu'), sigmoid: u('sigmoid'), tanh: u('tanh'),
  add: b('add'), sub: b('sub'), mul: b('mul'), div: b('div'), maximum: b('maximum'),
  minimum: b('minimum'), pow: b('pow'),
  matMul: (a, c, ta, tb) => out(tf.matMul(get(a), get(c), ta, tb)),
  sum: (id, axes, keep) => out(tf.sum(get(id), opt(axes), keep)),
  mean: (id, axes, keep) => out(tf.mean(get(id), opt(axes), keep)),
  max: (id, axes, keep) => out(tf.max(get(id), opt(axes), keep)),
  min: (id, axes, keep) => out(tf.min(get(id), opt(axes), keep)),
  argMax: (id, axis) => out(tf.argMax(get(id), axis)),
  argMin: (id, axis) => out(tf.argMin(get(id), axis)),
  softmax: (id, dim) => out(tf.softmax(get(id), dim)),
  expandDims: (id, axis) => out(tf.expandDims(get(id), axis)),
  squeeze: (id, axes) => out(tf.squeeze(get(id), opt(axes))),
  transpose: (id, perm) => out(tf.transpose(get(id), opt(perm))),
  concat: (ids, axis) => out(tf.concat(ids.map(get), axis)),
  stack: (ids, axis) => out(tf.stack(ids.map(get), axis)),
  slice: (id, begin, size) => out(tf.slice(get(id), begin, size)),
  gather: (x, i, axis, bd) => out(tf.gather(get(x), get(i), axis, bd)),
  dataSync: (id) => get(id).dataSync().slice(),
  startScope: (name) => tf.engine().startScope(name),
  endScope: (keepIds) => tf.engine().endScope(keepIds.map((id) => byId.get(id)).filter((t) => t)),
  keep: (id) => { tf.keep(get(id)); },
  dispose: (id) => { const t = byId.get(id); if (t) t.dispose(); },
  isDisposed: (id) => { const t = byId.get(id); return t == null || t.isDisposed; },
  memory: () => tf.memory(),
  variable: (id, trainable, name, dtype) =>
    out(tf.variable(get(id), trainable, opt(name), opt(dtype))),
  variableName: (id) => get(id).name,
  assign: (v, x) => { get(v).assign(get(x)); },
  getBackend: () => 'cpu',
  setBackend: (name) => {
    if (name !== 'cpu') throw new Error(`Backend name '${name}' not found in registry`);
  },
  backendNames: () => ['cpu'],
};
