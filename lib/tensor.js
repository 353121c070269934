'use strict';
// Tensor and Variable handles. A handle holds the native tensor id plus the metadata tfjs
// exposes synchronously (shape, dtype, size, rank); storage and lifetime are native.
const native = require('./native');
const state = require('./state');
const { formatTensor, stridesOf } = require('./format');

const meta = state.meta;
const DTYPES = ['float32', 'int32', 'bool', 'string', 'complex64'];

class Tensor {
  constructor(id, shape, dtype, size) {
    this.kept = false;
    this.id = id;
    this.shape = shape;
    this.dtype = dtype;
    this.size = size;
  }

  get rank() { return this.shape.length; }
  get rankType() { return String(this.shape.length); }
  get strides() { return stridesOf(this.shape); }
  get isDisposed() { return native.isDisposed(this.id); }

  throwIfDisposed() { native.throwIfDisposed(this.id); }

  // The values: a typed array (a complex tensor's as (real, imaginary) pairs), or for a
  // string tensor its strings, decoded from UTF-8 as tfjs does.
  dataSync() {
    return this.dtype === 'string' ? decodeStrings(readStrings(this.id)) : native.dataSync(this.id);
  }

  // The values are read when data() is called, so a read started before dispose() resolves.
  async data() {
    return this.dtype === 'string' ? decodeStrings(readStrings(this.id)) : native.dataAsync(this.id);
  }

  arraySync() { return toNested(this.shape, this.dataSync(), this.dtype === 'complex64'); }

  async array() { return toNested(this.shape, await this.data(), this.dtype === 'complex64'); }

  // The bytes of the values (float32 and int32 little-endian, bool one byte each); for a
  // string tensor, each value's bytes.
  async bytes() {
    if (this.dtype === 'string') return readStrings(this.id);
    const d = await native.dataAsync(this.id);
    return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  }

  dispose() {
    native.dispose(this.id);
  }

  toString(verbose = false) {
    return formatTensor(this.dataSync(), this.shape, this.dtype, verbose);
  }

  print(verbose = false) {
    console.log(this.toString(verbose));
  }
}

class Variable extends Tensor {
  // (`trainable` is the native variable's bit: read and set there, so every wrapper of the
  // variable and the native training step agree.)
  constructor(id, shape, dtype, size, trainable, name) {
    super(id, shape, dtype, size);
    this.name = name;
  }

  get trainable() {
    return native.isTrainable(this.id);
  }

  set trainable(v) {
    native.setTrainable(this.id, !!v);
  }

  assign(newValue) {
    if (!(newValue instanceof Tensor)) {
      const dtype = newValue == null ? newValue : newValue.dtype;
      throw new Error(`dtype of the new value (${dtype}) and previous value (${this.dtype}) must match`);
    }
    native.assign(this.id, newValue.id);
  }

  dispose() {
    native.dispose(this.id);
    variables.delete(this.id);
  }
}

// The shape and size of the tensor a native call just made, from the metadata it left in `meta`.
function metaShape() {
  const rank = meta[1];
  const shape = new Array(rank);
  let size = 1;
  for (let i = 0; i < rank; i++) {
    const d = meta[2 + i];
    shape[i] = d;
    size *= d;
  }
  return { shape, size };
}

// Builds a Tensor for an id a native call just returned.
function wrap(id) {
  const { shape, size } = metaShape();
  const t = new Tensor(id, shape, DTYPES[meta[0]], size);
  if (state.onCreate !== null) state.onCreate(t);
  return t;
}

// A tensor the native side made without writing its metadata (one of several outputs).
function wrapId(id) {
  native.tensorMeta(id);
  return wrap(id);
}

// The one Variable object of a native variable id (made on first sight, so variables created
// natively get one too); a WeakRef lets disposed, unreachable wrappers go.
const variables = new Map();

function variableOf(id) {
  const known = variables.get(id);
  const v = known && known.deref();
  if (v !== undefined) return v;
  native.tensorMeta(id);
  const { shape, size } = metaShape();
  const made = new Variable(id, shape, DTYPES[meta[0]], size, native.isTrainable(id),
    native.variableName(id));
  variables.set(id, new WeakRef(made));
  if (state.onCreate !== null) state.onCreate(made);
  return made;
}

function nest(vals, shape, dim, offset, blockSize) {
  const n = shape[dim];
  const out = new Array(n);
  if (dim === shape.length - 1) {
    for (let i = 0; i < n; i++) out[i] = vals[offset + i];
    return out;
  }
  const inner = blockSize / n;
  for (let i = 0; i < n; i++) out[i] = nest(vals, shape, dim + 1, offset + i * inner, inner);
  return out;
}

// Nested JS arrays in the tensor's shape (numbers; bool values as 0/1, as tfjs does). A
// complex tensor's innermost arrays hold its (real, imaginary) pairs one after another, and a
// complex scalar is its real part (tfjs's toNestedArray). A shape that does not fit the values
// (a tensor's `shape` is writable, as in tfjs) throws tfjs's error instead of building arrays
// of its size.
function toNested(shape, vals, isComplex = false) {
  if (shape.length === 0) return vals[0];
  const size = shape.reduce((acc, d) => acc * d) * (isComplex ? 2 : 1);
  if (size === 0) return [];
  if (size !== vals.length) {
    throw new Error(`[${shape}] does not match the input size ${vals.length}${isComplex ? ' for a complex tensor' : ''}.`);
  }
  const s = isComplex ? [...shape.slice(0, -1), 2 * shape[shape.length - 1]] : shape;
  return nest(vals, s, 0, 0, vals.length);
}

// A string tensor's values as one Uint8Array each.
function readStrings(id) {
  const { bytes, lengths } = native.readStrings(id);
  const out = new Array(lengths.length);
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    out[i] = bytes.slice(at, at + lengths[i]);
    at += lengths[i];
  }
  return out;
}

const utf8 = new TextDecoder();
const decodeStrings = (list) => list.map((b) => utf8.decode(b));

module.exports = { Tensor, Variable, wrap, variableOf, DTYPES, toNested, wrapId, readStrings };
