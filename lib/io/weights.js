'use strict';
// Weight data of model files: tfjs's binary layout (values back to back, little-endian, in
// manifest order; strings as a uint32 length then UTF-8 bytes), quantized weights
// (uint8/uint16 with scale and min, float16), and CompositeArrayBuffer over several shards.
const { tensor } = require('../ops/creation');
const native = require('../native');
const { wrap } = require('../tensor');
const { complex } = require('../ops/spectral');
const { util } = require('../util');

// Bytes per value of each weight dtype (tfjs's DTYPE_VALUE_SIZE_MAP).
const DTYPE_VALUE_SIZE_MAP = {
  float32: 4, float16: 2, int32: 4, uint16: 2, uint8: 1, bool: 1, complex64: 8,
};
const NUM_BYTES_STRING_LENGTH = 4;

const { sizeFromShape } = util;
const isTypedArray = (a) => ArrayBuffer.isView(a) && !(a instanceof DataView);

// Several ArrayBuffers read as one (weights are split into shards of a few MB): slicing
// copies only the bytes asked for.
class CompositeArrayBuffer {
  static join(buffers) {
    return new CompositeArrayBuffer(buffers).slice();
  }

  constructor(buffers) {
    this.shards = [];
    this.previousShardIndex = 0;
    this.byteLength = 0;
    if (buffers == null) return;
    if (!Array.isArray(buffers)) buffers = [buffers];
    buffers = buffers.map((b) => (isTypedArray(b) ? b.buffer : b));
    if (buffers.length === 0) return;
    // Shards of one size (the last one no larger) let findShardForByte divide instead of search.
    // tfjs also divides when only the last shard is larger, or the first is empty, and then finds
    // no shard for the bytes past the first ones: they read as zeros.
    const uniform = buffers[0].byteLength;
    let start = 0;
    for (let i = 0; i < buffers.length; i++) {
      const buffer = buffers[i];
      const end = start + buffer.byteLength;
      this.shards.push({ buffer, start, end });
      start = end;
    }
    const last = buffers[buffers.length - 1].byteLength;
    const same = uniform > 0 && last <= uniform && buffers.every((b, i) => i === buffers.length - 1 || b.byteLength === uniform);
    this.bufferUniformSize = same ? uniform : undefined;
    this.byteLength = start;
  }

  slice(start = 0, end = this.byteLength) {
    if (this.shards.length === 0) return new ArrayBuffer(0);
    start = Math.max(0, Number.isNaN(Number(start)) ? 0 : start);
    end = Math.min(this.byteLength, Number.isNaN(Number(end)) ? 0 : end);
    if (end <= start) return new ArrayBuffer(0);
    const first = this.findShardForByte(start);
    if (first === -1) throw new Error(`Could not find start shard for byte ${start}`);
    const out = new Uint8Array(end - start);
    let sliced = 0;
    for (let i = first; i < this.shards.length; i++) {
      const shard = this.shards[i];
      const localStart = start + sliced - shard.start;
      const localEnd = Math.min(end, shard.end) - shard.start;
      const part = new Uint8Array(shard.buffer, localStart, localEnd - localStart);
      out.set(part, sliced);
      sliced += part.length;
      if (end < shard.end) break;
    }
    return out.buffer;
  }

  findShardForByte(byteIndex) {
    if (this.shards.length === 0 || byteIndex < 0 || byteIndex >= this.byteLength) return -1;
    if (this.bufferUniformSize != null) {
      this.previousShardIndex = Math.floor(byteIndex / this.bufferUniformSize);
      return this.previousShardIndex;
    }
    const check = (shard) => (byteIndex < shard.start ? -1 : byteIndex >= shard.end ? 1 : 0);
    if (check(this.shards[this.previousShardIndex]) === 0) return this.previousShardIndex;
    let lo = 0;
    let hi = this.shards.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const side = check(this.shards[mid]);
      if (side === 0) {
        this.previousShardIndex = mid;
        return mid;
      }
      if (side < 0) hi = mid - 1;
      else lo = mid + 1;
    }
    return -1;
  }
}

const concatenateArrayBuffers = (buffers) => CompositeArrayBuffer.join(buffers);

// One ArrayBuffer holding typed arrays back to back (each copied if it views part of a buffer).
function concatenateTypedArrays(xs) {
  if (xs === null) throw new Error(`Invalid input value: ${JSON.stringify(xs)}`);
  let total = 0;
  for (const x of xs) {
    if (!(x instanceof Float32Array || x instanceof Int32Array || x instanceof Uint8Array)) {
      throw new Error(`Unsupported TypedArray subtype: ${x.constructor.name}`);
    }
    total += x.byteLength;
  }
  const y = new Uint8Array(total);
  let offset = 0;
  for (const x of xs) {
    y.set(new Uint8Array(x.buffer, x.byteOffset, x.byteLength), offset);
    offset += x.byteLength;
  }
  return y.buffer;
}

// tf.io.encodeWeights: `{data, specs}` for named tensors (an array of {name, tensor} or a
// name -> tensor map); `group` marks them (e.g. 'optimizer').
async function encodeWeights(tensors, group) {
  const specs = [];
  const parts = [];
  const names = Array.isArray(tensors) ? tensors.map((t) => t.name) : Object.keys(tensors);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const t = Array.isArray(tensors) ? tensors[i].tensor : tensors[name];
    if (!['float32', 'int32', 'bool', 'string', 'complex64'].includes(t.dtype)) {
      throw new Error(`Unsupported dtype in weight '${name}': ${t.dtype}`);
    }
    const spec = { name, shape: t.shape, dtype: t.dtype };
    if (t.dtype === 'string') {
      const vals = await t.bytes();
      const bytes = new Uint8Array(vals.reduce((p, c) => p + c.length, 0) + NUM_BYTES_STRING_LENGTH * vals.length);
      let offset = 0;
      for (const val of vals) {
        new DataView(bytes.buffer).setUint32(offset, val.length, true);
        offset += NUM_BYTES_STRING_LENGTH;
        bytes.set(val, offset);
        offset += val.length;
      }
      parts.push(bytes);
    } else {
      const data = await t.data();
      parts.push(data instanceof Uint8Array || data instanceof Int32Array || data instanceof Float32Array
        ? data : new Uint8Array(data));
    }
    if (group != null) spec.group = group;
    specs.push(spec);
  }
  return { data: concatenateTypedArrays(parts), specs };
}

// The byte length of one weight starting at the front of `slice(start, end)`. A string whose
// length prefix is cut off needs at least the bytes up to the prefix's end (more than there are).
function weightByteLength(spec, slice) {
  const size = sizeFromShape(spec.shape);
  if ('quantization' in spec) return size * DTYPE_VALUE_SIZE_MAP[spec.quantization.dtype];
  if (spec.dtype === 'string') {
    let n = 0;
    for (let i = 0; i < size; i++) {
      const prefix = slice(n, n + NUM_BYTES_STRING_LENGTH);
      if (prefix.byteLength < NUM_BYTES_STRING_LENGTH) return n + NUM_BYTES_STRING_LENGTH;
      n += NUM_BYTES_STRING_LENGTH + new DataView(prefix).getUint32(0, true);
    }
    return n;
  }
  return size * DTYPE_VALUE_SIZE_MAP[spec.dtype];
}

// A float32, int32 or bool weight's tensor from the first `length` bytes of `bytes`
// (`quantization`: the manifest's, if any), decoded natively through the process's weight
// cache: threads (worker_threads) loading the same weights hold one copy of them
// (tf.memory().numBytesShared counts them).
function weightTensor(bytes, length, shape, dtype, quantization) {
  const view = new Uint8Array(bytes, 0, length);
  if (quantization == null) return wrap(native.weightTensor(view, shape, dtype, 'values', 0, 0));
  // As tfjs computes `q * scale + min`: the numbers they convert to (NaN stays NaN).
  const { dtype: encoding, scale, min } = quantization;
  return wrap(native.weightTensor(view, shape, dtype, encoding, Number(scale ?? 0), Number(min ?? 0)));
}

// One weight's tensor from its bytes, checked against the spec.
function decodeWeight(spec, bytes) {
  const { name, dtype, shape } = spec;
  const size = sizeFromShape(shape);
  const expected = weightByteLength(spec, (a, b) => bytes.slice(a, b));
  if (bytes.byteLength < expected) {
    throw new Error(`Weight data of '${name}' is truncated: expected ${expected} bytes, got ${bytes.byteLength}`);
  }
  if ('quantization' in spec) {
    const q = spec.quantization;
    if (q.dtype === 'uint8' || q.dtype === 'uint16') {
      if (!('min' in q && 'scale' in q)) {
        throw new Error(`Weight ${name} with quantization ${q.dtype} doesn't have corresponding metadata min and scale.`);
      }
    } else if (q.dtype === 'float16') {
      if (dtype !== 'float32') {
        throw new Error(`Weight ${name} is quantized with ${q.dtype} which only supports weights of type float32 not ${dtype}.`);
      }
    } else {
      throw new Error(`Weight ${name} has unknown quantization dtype ${q.dtype}. ` +
        "Supported quantization dtypes are: 'uint8', 'uint16', and 'float16'.");
    }
    if (dtype !== 'float32' && dtype !== 'int32') throw new Error(`Unsupported dtype in weight '${name}': ${dtype}`);
    return weightTensor(bytes, expected, shape, dtype, q);
  }
  if (dtype === 'string') {
    const values = [];
    const view = new DataView(bytes);
    let offset = 0;
    for (let i = 0; i < size; i++) {
      const n = view.getUint32(offset, true);
      offset += NUM_BYTES_STRING_LENGTH;
      values.push(new Uint8Array(bytes, offset, n).slice());
      offset += n;
    }
    return tensor(values, shape, 'string');
  }
  if (dtype === 'float32' || dtype === 'int32' || dtype === 'bool') return weightTensor(bytes, expected, shape, dtype);
  const whole = bytes.byteLength === expected ? bytes : bytes.slice(0, expected);
  if (dtype === 'complex64') {
    const pairs = new Float32Array(whole);
    const re = new Float32Array(size);
    const im = new Float32Array(size);
    for (let i = 0; i < size; i++) {
      re[i] = pairs[2 * i];
      im[i] = pairs[2 * i + 1];
    }
    const [r, j] = [tensor(re, shape, 'float32'), tensor(im, shape, 'float32')];
    try {
      return complex(r, j);
    } finally {
      r.dispose();
      j.dispose();
    }
  }
  throw new Error(`Unsupported dtype in weight '${name}': ${dtype}`);
}

// tf.io.decodeWeights: name -> tensor for the specs, read in order from `weightData` (an
// ArrayBuffer or an array of shards). On an error nothing stays allocated.
function decodeWeights(weightData, specs) {
  const data = new CompositeArrayBuffer(weightData);
  const out = {};
  let offset = 0;
  try {
    for (const spec of specs) {
      const n = weightByteLength(spec, (a, b) => data.slice(offset + a, offset + b));
      if (offset + n > data.byteLength) {
        throw new Error(`Weight data is truncated: weight '${spec.name}' needs bytes ${offset}..${offset + n} ` +
          `but the weight data has ${data.byteLength} bytes`);
      }
      const t = decodeWeight(spec, data.slice(offset, offset + n));
      // A name given twice: the last one wins, as in tfjs (which leaks the first).
      if (out[spec.name] != null) out[spec.name].dispose();
      out[spec.name] = t;
      offset += n;
    }
  } catch (e) {
    for (const t of Object.values(out)) t.dispose();
    throw e;
  }
  return out;
}

// tf.io.decodeWeightsStream: decodeWeights over a ReadableStream of the weight bytes.
async function decodeWeightsStream(weightStream, specs) {
  const reader = weightStream.getReader();
  const chunks = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value instanceof Uint8Array ? value.slice() : new Uint8Array(value));
  }
  return decodeWeights(chunks.map((c) => c.buffer), specs);
}

// tf.io.getWeightSpecs: the specs of every group of a manifest, in order.
function getWeightSpecs(weightsManifest) {
  const specs = [];
  for (const entry of weightsManifest) specs.push(...entry.weights);
  return specs;
}

module.exports = {
  DTYPE_VALUE_SIZE_MAP, CompositeArrayBuffer, concatenateArrayBuffers, concatenateTypedArrays, encodeWeights,
  decodeWeights, decodeWeightsStream, getWeightSpecs, sizeFromShape,
};
