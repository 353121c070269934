'use strict';
// JavaScript values -> native tensors: dtype inference, shape inference and checks, flattening.
// The rules and error texts are those of tfjs 4.22 (`tensor()`, `convertToTensor`), except that
// ragged nested arrays are always rejected (tfjs only checks them in debug mode and otherwise
// builds a tensor with missing values).
const native = require('./native');
const { Tensor, wrap } = require('./tensor');
const state = require('./state');

function isTypedArray(a) {
  return a instanceof Float32Array || a instanceof Int32Array || a instanceof Uint8Array ||
    a instanceof Uint8ClampedArray;
}

function isString(v) {
  return typeof v === 'string' || v instanceof String;
}

function inferDtype(values) {
  while (Array.isArray(values)) values = values[0];
  if (values instanceof Float32Array) return 'float32';
  if (values instanceof Int32Array || values instanceof Uint8Array ||
      values instanceof Uint8ClampedArray) return 'int32';
  if (typeof values === 'number') return 'float32';
  if (isString(values)) return 'string';
  if (typeof values === 'boolean') return 'bool';
  return 'float32';
}

function assertShape(shape) {
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i];
    if (!(Number.isInteger(d) && d >= 0)) {
      throw new Error(
        `Tensor must have a shape comprised of positive integers but got shape [${shape}].`);
    }
  }
}

function sizeOf(shape) {
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= shape[i];
  return n;
}

// For dtype 'string', a Uint8Array is one value (its bytes), as in tfjs.
function inferShape(val, dtype) {
  const bytes = dtype === 'string';
  if (isTypedArray(val)) return bytes ? [] : [val.length];
  if (!Array.isArray(val)) return [];
  const shape = [];
  let first = val;
  while (Array.isArray(first) || (isTypedArray(first) && !bytes)) {
    shape.push(first.length);
    first = first[0];
  }
  return shape;
}

function inconsistent(indices, msg) {
  return new Error(`Element arr[${indices.join('][')}] ${msg}`);
}

// Checks that nested `val` has exactly `shape` (tfjs's messages) and writes its leaves into
// `out` from `pos`; returns the next position.
function flattenChecked(val, shape, dim, out, pos, dtype, path) {
  const rank = shape.length;
  if (!Array.isArray(val) && !isTypedArray(val)) {
    if (dim !== rank) {
      throw inconsistent(path, 'is a primitive, but should be an array/TypedArray of ' +
        `${shape[dim]} elements`);
    }
    out[pos] = dtype === 'bool' ? (Math.round(val) !== 0 ? 1 : 0) : val;
    return pos + 1;
  }
  if (dim === rank) {
    throw inconsistent(path, `should be a primitive, but is an array of ${val.length} elements`);
  }
  if (val.length !== shape[dim]) {
    throw inconsistent(path, `should have ${shape[dim]} elements, but has ${val.length} elements`);
  }
  if (dim === rank - 1) {
    const n = val.length;
    for (let i = 0; i < n; i++) {
      const v = val[i];
      if (typeof v !== 'number' && typeof v !== 'boolean' &&
          (Array.isArray(v) || isTypedArray(v))) {
        path.push(i);
        throw inconsistent(path,
          `should be a primitive, but is an array of ${v.length} elements`);
      }
      out[pos++] = dtype === 'bool' ? (Math.round(v) !== 0 ? 1 : 0) : v;
    }
    return pos;
  }
  for (let i = 0; i < val.length; i++) {
    path.push(i);
    pos = flattenChecked(val[i], shape, dim + 1, out, pos, dtype, path);
    path.pop();
  }
  return pos;
}

// Values of small tensors are staged in one reused typed array per dtype: allocating a fresh
// typed array costs V8 ~300 ns, more than the rest of creating a tensor. The native side copies
// the first size(shape) values, so a scratch array never escapes.
const SCRATCH_LEN = 1024;
const SCRATCH = { float32: new Float32Array(SCRATCH_LEN), int32: new Int32Array(SCRATCH_LEN), bool: new Uint8Array(SCRATCH_LEN) };

// Set while values are being flattened into a scratch array: a getter or valueOf that makes
// a tensor meanwhile must not reuse (and overwrite) it.
let scratchBusy = false;

function allocFor(dtype, n) {
  if (n <= SCRATCH_LEN && !scratchBusy) return SCRATCH[dtype];
  if (dtype === 'float32') return new Float32Array(n);
  if (dtype === 'int32') return new Int32Array(n);
  return new Uint8Array(n);
}

function checkDtype(dtype) {
  if (dtype === 'float32' || dtype === 'int32' || dtype === 'bool' || dtype === 'string') return;
  if (dtype === 'complex64') {
    throw new Error('Cannot construct a complex64 tensor directly. ' +
      'Please use tf.complex(real, imag).');
  }
  throw new Error(`Unknown data type ${dtype}`);
}

// Typed array of `dtype` holding the values (flat or nested arrays, typed arrays, primitives).
function toTypedArray(values, inferredShape, dtype) {
  if (isTypedArray(values)) {
    if ((dtype === 'float32' && values instanceof Float32Array) ||
        (dtype === 'int32' && values instanceof Int32Array) ||
        (dtype === 'bool' && values instanceof Uint8Array)) return values;
    if (dtype === 'float32') return new Float32Array(values);
    if (dtype === 'int32') return new Int32Array(values);
    const out = new Uint8Array(values.length);
    for (let i = 0; i < out.length; i++) out[i] = Math.round(values[i]) !== 0 ? 1 : 0;
    return out;
  }
  if (!Array.isArray(values)) {
    const out = allocFor(dtype, 1);
    out[0] = dtype === 'bool' ? (Math.round(values) !== 0 ? 1 : 0) : values;
    return out;
  }
  const out = allocFor(dtype, sizeOf(inferredShape));
  const wasBusy = scratchBusy;
  scratchBusy = true;
  try {
    flattenChecked(values, inferredShape, 0, out, 0, dtype, []);
  } finally {
    scratchBusy = wasBusy;
  }
  return out;
}

function isTensorLikeValue(v) {
  return isTypedArray(v) || Array.isArray(v) || typeof v === 'number' ||
    typeof v === 'boolean' || typeof v === 'string';
}

// tfjs's makeTensor(values, shape, inferredShape, dtype): the shared body of tensor(),
// scalar(), tensor1d() ... tensor6d().
function makeTensor(values, shape, inferredShape, dtype) {
  if (dtype == null) dtype = inferDtype(values);
  else if (dtype === 'complex64') checkDtype(dtype);
  if (!isTensorLikeValue(values)) {
    throw new Error('values passed to tensor(values) must be a number/boolean/string or ' +
      'an array of numbers/booleans/strings, or a TypedArray');
  }
  if (shape != null) {
    assertShape(shape);
    const provided = sizeOf(shape);
    const inferred = sizeOf(inferredShape);
    if (provided !== inferred) {
      throw new Error(`Based on the provided shape, [${shape}], the tensor should have ` +
        `${provided} values but has ${inferred}`);
    }
    for (let i = 0; i < inferredShape.length; ++i) {
      const flatMismatch = i === inferredShape.length - 1 ?
        inferredShape[i] !== sizeOf(shape.slice(i)) : true;
      if (!(inferredShape[i] === shape[i] || !flatMismatch)) {
        throw new Error('Error creating a new Tensor. Inferred shape ' +
          `(${inferredShape}) does not match the provided shape (${shape}). `);
      }
    }
  }
  checkDtype(dtype);
  if (dtype === 'string') {
    const values1 = flattenStrings(values);
    if (shape == null) shape = stringShape(values);
    else if (values1.length !== sizeOf(shape)) {
      throw new Error(`Based on the provided shape, [${shape}], the tensor should have ` +
        `${sizeOf(shape)} values but has ${values1.length}`);
    }
    return createStrings(values1, shape);
  }
  const data = toTypedArray(values, inferredShape, dtype);
  return create(data, shape == null ? inferredShape : shape, dtype);
}

// tf.tensor(values, shape, dtype); here, below the op modules, so that the engine, the
// buffers and the registries can make tensors too.
function tensor(values, shape, dtype) {
  return makeTensor(values, shape, inferShape(values, dtype), dtype);
}

// The shape of nested string values; a Uint8Array is one value (its bytes), as in tfjs.
function stringShape(val) {
  const shape = [];
  while (Array.isArray(val)) {
    shape.push(val.length);
    val = val[0];
  }
  return shape;
}

// String values (nested arrays of strings or of Uint8Array bytes) flattened, with the checks
// and messages of the numeric path.
function flattenStrings(values) {
  const shape = stringShape(values);
  const out = [];
  const walk = (val, dim, path) => {
    if (!Array.isArray(val)) {
      if (dim !== shape.length) {
        throw inconsistent(path, 'is a primitive, but should be an array/TypedArray of ' +
          `${shape[dim]} elements`);
      }
      out.push(val);
      return;
    }
    if (dim === shape.length) {
      throw inconsistent(path, `should be a primitive, but is an array of ${val.length} elements`);
    }
    if (val.length !== shape[dim]) {
      throw inconsistent(path, `should have ${shape[dim]} elements, but has ${val.length} elements`);
    }
    for (let i = 0; i < val.length; i++) {
      path.push(i);
      walk(val[i], dim + 1, path);
      path.pop();
    }
  };
  walk(values, 0, []);
  return out;
}

const utf8 = new TextEncoder();

// A string tensor: strings are stored as their UTF-8 bytes (tfjs's encodeString); a
// Uint8Array value is taken as bytes, anything else as its String().
function createStrings(values, shape) {
  const parts = values.map((v) => (v instanceof Uint8Array ? v : utf8.encode(String(v))));
  const lengths = new Uint32Array(parts.length);
  let total = 0;
  for (let i = 0; i < parts.length; i++) total += (lengths[i] = parts[i].length);
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return wrap(native.makeStrings(bytes, lengths, shape));
}

function assertDtype(expected, actual, argName, fnName) {
  if (expected === 'string_or_numeric') return;
  if ((expected !== 'numeric' && expected !== actual) ||
      (expected === 'numeric' && actual === 'string')) {
    throw new Error(`Argument '${argName}' passed to '${fnName}' must be ${expected} tensor, ` +
      `but got ${actual} tensor`);
  }
}

// tfjs's convertToTensor: a Tensor is returned as is (after a dtype check); a TensorLike
// becomes a NEW tensor, which the caller must dispose after use.
function convertToTensor(x, argName, fnName, parseAsDtype = 'numeric') {
  if (x instanceof Tensor) {
    assertDtype(parseAsDtype, x.dtype, argName, fnName);
    return x;
  }
  let dtype = inferDtype(x);
  if (dtype !== 'string' &&
      (parseAsDtype === 'bool' || parseAsDtype === 'int32' || parseAsDtype === 'float32')) {
    dtype = parseAsDtype;
  }
  assertDtype(parseAsDtype, dtype, argName, fnName);
  if (x != null && typeof x === 'object' && 'dataId' in x && 'shape' in x && 'dtype' in x) {
    throw new Error(`Argument '${argName}' passed to '${fnName}' is a tensor of another ` +
      'TensorFlow.js library (such as @tensorflow/tfjs), not of tidytensor; make a tidytensor ' +
      'tensor from its values: tf.tensor(t.arraySync(), t.shape, t.dtype)');
  }
  if (x == null || !isTensorLikeValue(x)) {
    const type = x == null ? 'null' : x.constructor.name;
    throw new Error(`Argument '${argName}' passed to '${fnName}' must be a ` +
      `Tensor or TensorLike, but got '${type}'`);
  }
  if (dtype === 'string') return createStrings(flattenStrings(x), stringShape(x));
  const shape = inferShape(x);
  const data = toTypedArray(x, shape, dtype);
  return create(data, shape, dtype);
}

const MAKE = { float32: native.makeF32, int32: native.makeI32, bool: native.makeBool };
const meta = state.meta;

// Hands a typed array to native. The shape travels in the shared meta buffer, so making a
// small tensor converts no JS array or string (the hot path of create + dispose).
function create(data, shape, dtype) {
  const rank = shape.length;
  if (rank > 6) return wrap(native.makeTensor(data, shape, dtype)); // native explains the limit
  meta[1] = rank;
  for (let i = 0; i < rank; i++) meta[2 + i] = shape[i];
  return wrap(MAKE[dtype](data));
}

module.exports = {
  tensor, makeTensor, convertToTensor, inferShape, inferDtype, assertShape, isTypedArray, checkDtype,
  sizeOf, isTensorLikeValue, createStrings,
};
