'use strict';
// tf.util and tf.tensor_util: tfjs-core 4.22's helpers (util_base.ts, util.ts, hash_util.ts,
// tensor_util.ts) with the same results and error texts. They are plain JavaScript: only
// `now`, `fetch`, `encodeString`, `decodeString` and `isTypedArray` go through
// `tf.env().platform`, and `toTypedArray` reads the DEBUG flag, as in tfjs.
const native = require('./native');
const { env } = require('./env');
const { Tensor } = require('./tensor');
// The engine's own dtype inference (tfjs's rules).
const { inferDtype } = require('./convert');

// ------------------------------------------------------------------------------------------
// Arrays and shapes

function swap(object, left, right) {
  const t = object[left];
  object[left] = object[right];
  object[right] = t;
}

// Fisher-Yates in place, drawing from Math.random as tfjs does.
function shuffle(array) {
  for (let n = array.length; n > 0;) {
    const pick = (Math.random() * n) | 0;
    n--;
    swap(array, n, pick);
  }
}

function shuffleCombo(array, array2) {
  if (array.length !== array2.length) {
    throw new Error('Array sizes must match to be shuffled together ' +
      `First array length was ${array.length}` +
      `Second array length was ${array2.length}`);
  }
  for (let n = array.length; n > 0;) {
    const pick = (Math.random() * n) | 0;
    n--;
    swap(array, n, pick);
    swap(array2, n, pick);
  }
}

function clamp(min, x, max) {
  return Math.max(min, Math.min(x, max));
}

function nearestLargerEven(val) {
  return val % 2 === 0 ? val : val + 1;
}

function sum(arr) {
  let total = 0;
  for (let i = 0; i < arr.length; i++) total += arr[i];
  return total;
}

function randUniform(a, b) {
  const r = Math.random();
  return b * r + (1 - r) * a;
}

function distSquared(a, b) {
  let total = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Number(a[i]) - Number(b[i]);
    total += d * d;
  }
  return total;
}

function assert(expr, msg) {
  if (!expr) throw new Error(typeof msg === 'string' ? msg : msg());
}

function assertShapesMatch(shapeA, shapeB, errorMessagePrefix) {
  if (errorMessagePrefix === undefined) errorMessagePrefix = '';
  assert(arraysEqual(shapeA, shapeB),
    () => `${errorMessagePrefix} Shapes ${shapeA} and ${shapeB} must match`);
}

function assertNonNull(a) {
  assert(a != null, () => 'The input to the tensor constructor must be a non-null value.');
}


// tfjs's own, kept as it is: unlike the engine's count it gives undefined for a non-array.
function sizeFromShape(shape) {
  if (shape.length === 0) return 1;
  let size = shape[0];
  for (let i = 1; i < shape.length; i++) size *= shape[i];
  return size;
}

function isScalarShape(shape) {
  return shape.length === 0;
}

// Equal lengths and equal entries, where a null entry on either side matches anything.
function arraysEqualWithNull(n1, n2) {
  if (n1 === n2) return true;
  if (n1 == null || n2 == null || n1.length !== n2.length) return false;
  for (let i = 0; i < n1.length; i++) {
    if (n1[i] !== null && n2[i] !== null && n1[i] !== n2[i]) return false;
  }
  return true;
}

function arraysEqual(n1, n2) {
  if (n1 === n2) return true;
  if (n1 == null || n2 == null || n1.length !== n2.length) return false;
  for (let i = 0; i < n1.length; i++) if (n1[i] !== n2[i]) return false;
  return true;
}

function isInt(a) {
  return a % 1 === 0;
}

function tanh(x) {
  return Math.tanh(x);
}

function sizeToSquarishShape(size) {
  const width = Math.ceil(Math.sqrt(size));
  return [width, Math.ceil(size / width)];
}

function createShuffledIndices(n) {
  const indices = new Uint32Array(n);
  for (let i = 0; i < n; ++i) indices[i] = i;
  shuffle(indices);
  return indices;
}

function rightPad(a, size) {
  return size <= a.length ? a : a + ' '.repeat(size - a.length);
}

function repeatedTry(checkFn, delayFn, maxCounter, scheduleFn) {
  if (delayFn === undefined) delayFn = () => 0;
  return new Promise((resolve, reject) => {
    let tries = 0;
    const attempt = () => {
      if (checkFn()) {
        resolve();
        return;
      }
      tries++;
      const backoff = delayFn(tries);
      if (maxCounter != null && tries >= maxCounter) {
        reject();
        return;
      }
      if (scheduleFn != null) scheduleFn(attempt, backoff);
      else setTimeout(attempt, backoff);
    };
    attempt();
  });
}

function inferFromImplicitShape(shape, size) {
  let known = 1;
  let implicit = -1;
  for (let i = 0; i < shape.length; ++i) {
    const d = shape[i];
    if (d >= 0) {
      known *= d;
    } else if (d === -1) {
      if (implicit !== -1) {
        throw Error('Shapes can only have 1 implicit size. ' +
          `Found -1 at dim ${implicit} and dim ${i}`);
      }
      implicit = i;
    } else if (d < 0) {
      throw Error(`Shapes can not be < 0. Found ${d} at dim ${i}`);
    }
  }
  if (implicit === -1) {
    if (size > 0 && size !== known) {
      throw Error(`Size(${size}) must match the product of shape ${shape}`);
    }
    return shape;
  }
  if (known === 0) {
    throw Error(`Cannot infer the missing size in [${shape}] when there are 0 elements`);
  }
  if (size % known !== 0) {
    throw Error(`The implicit shape can't be a fractional number. Got ${size} / ${known}`);
  }
  const out = shape.slice();
  out[implicit] = size / known;
  return out;
}

function parseAxisParam(axis, shape) {
  const rank = shape.length;
  axis = axis == null ? shape.map((s, i) => i) : [].concat(axis);
  assert(axis.every((ax) => ax >= -rank && ax < rank),
    () => `All values in axis param must be in range [-${rank}, ${rank}) but got axis ${axis}`);
  assert(axis.every((ax) => isInt(ax)),
    () => `All values in axis param must be integers but got axis ${axis}`);
  return axis.map((a) => (a < 0 ? rank + a : a));
}

function squeezeShape(shape, axis) {
  const newShape = [];
  const keptDims = [];
  const noAxes = axis == null || (Array.isArray(axis) && axis.length === 0);
  const axes = noAxes ? null : parseAxisParam(axis, shape).sort();
  let j = 0;
  for (let i = 0; i < shape.length; ++i) {
    if (axes != null) {
      if (axes[j] === i && shape[i] !== 1) {
        throw new Error(`Can't squeeze axis ${i} since its dim '${shape[i]}' is not 1`);
      }
      if ((axes[j] == null || axes[j] > i) && shape[i] === 1) {
        newShape.push(shape[i]);
        keptDims.push(i);
      }
      if (axes[j] <= i) j++;
    }
    if (shape[i] !== 1) {
      newShape.push(shape[i]);
      keptDims.push(i);
    }
  }
  return { newShape, keptDims };
}

function getArrayFromDType(dtype, size) {
  if (dtype == null || dtype === 'float32') return new Float32Array(size);
  if (dtype === 'int32') return new Int32Array(size);
  if (dtype === 'bool') return new Uint8Array(size);
  if (dtype === 'string') return new Array(size);
  throw new Error(`Unknown data type ${dtype}`);
}

function getTypedArrayFromDType(dtype, size) {
  return getArrayFromDType(dtype, size);
}

function checkConversionForErrors(vals, dtype) {
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i];
    if (isNaN(v) || !isFinite(v)) {
      throw Error(`A tensor of type ${dtype} being uploaded contains ${v}.`);
    }
  }
}

function isValidDtype(dtype) {
  return dtype === 'bool' || dtype === 'complex64' || dtype === 'float32' ||
    dtype === 'int32' || dtype === 'string';
}

// Whether casting values of `oldType` to `newType` can lose information.
function hasEncodingLoss(oldType, newType) {
  if (newType === 'complex64') return false;
  if (newType === 'float32' && oldType !== 'complex64') return false;
  if (newType === 'int32' && oldType !== 'float32' && oldType !== 'complex64') return false;
  if (newType === 'bool' && oldType === 'bool') return false;
  return true;
}

function bytesPerElement(dtype) {
  if (dtype === 'float32' || dtype === 'int32') return 4;
  if (dtype === 'complex64') return 8;
  if (dtype === 'bool') return 1;
  throw new Error(`Unknown dtype ${dtype}`);
}

function bytesFromStringArray(arr) {
  if (arr == null) return 0;
  let bytes = 0;
  arr.forEach((x) => { bytes += x.length; });
  return bytes;
}

function isString(value) {
  return typeof value === 'string' || value instanceof String;
}

function isBoolean(value) {
  return typeof value === 'boolean';
}

function isNumber(value) {
  return typeof value === 'number';
}


function isFunction(f) {
  return !!(f && f.constructor && f.call && f.apply);
}

function nearestDivisor(size, start) {
  for (let i = start; i < size; ++i) if (size % i === 0) return i;
  return size;
}

// (the one implementation is format.js's)
const { stridesOf: computeStrides } = require('./format');

function nest(offset, shape, a, isComplex) {
  const out = [];
  if (shape.length === 1) {
    const n = shape[0] * (isComplex ? 2 : 1);
    for (let i = 0; i < n; i++) out[i] = a[offset + i];
    return out;
  }
  const rest = shape.slice(1);
  const stride = rest.reduce((p, c) => p * c) * (isComplex ? 2 : 1);
  for (let i = 0; i < shape[0]; i++) out[i] = nest(offset + i * stride, rest, a, isComplex);
  return out;
}

function toNestedArray(shape, a, isComplex) {
  if (isComplex === undefined) isComplex = false;
  if (shape.length === 0) return a[0];
  const size = shape.reduce((p, c) => p * c) * (isComplex ? 2 : 1);
  if (size === 0) return [];
  if (size !== a.length) {
    throw new Error(`[${shape}] does not match the input size ${a.length}` +
      `${isComplex ? ' for a complex tensor' : ''}.`);
  }
  return nest(0, shape, a, isComplex);
}

function convertBackendValuesAndArrayBuffer(data, dtype) {
  if (Array.isArray(data)) return data;
  if (dtype === 'float32') return data instanceof Float32Array ? data : new Float32Array(data);
  if (dtype === 'int32') return data instanceof Int32Array ? data : new Int32Array(data);
  if (dtype === 'bool' || dtype === 'string') return Uint8Array.from(new Int32Array(data));
  throw new Error(`Unknown dtype ${dtype}`);
}

function makeZerosTypedArray(size, dtype) {
  if (dtype == null || dtype === 'float32' || dtype === 'complex64') return new Float32Array(size);
  if (dtype === 'int32') return new Int32Array(size);
  if (dtype === 'bool') return new Uint8Array(size);
  throw new Error(`Unknown data type ${dtype}`);
}

function makeOnesTypedArray(size, dtype) {
  return makeZerosTypedArray(size, dtype).fill(1);
}

function makeZerosNestedTypedArray(shape, dtype) {
  const size = shape.reduce((p, c) => p * c, 1);
  if (dtype == null || dtype === 'float32') return toNestedArray(shape, new Float32Array(size));
  if (dtype === 'int32') return toNestedArray(shape, new Int32Array(size));
  if (dtype === 'bool') return toNestedArray(shape, new Uint8Array(size));
  throw new Error(`Unknown data type ${dtype}`);
}

function assertNonNegativeIntegerDimensions(shape) {
  shape.forEach((d) => {
    assert(Number.isInteger(d) && d >= 0,
      () => `Tensor must have a shape comprised of positive integers but got shape [${shape}].`);
  });
}

function locToIndex(locs, rank, strides) {
  if (rank === 0) return 0;
  if (rank === 1) return locs[0];
  let index = locs[locs.length - 1];
  for (let i = 0; i < locs.length - 1; ++i) index += strides[i] * locs[i];
  return index;
}

function indexToLoc(index, rank, strides) {
  if (rank === 0) return [];
  if (rank === 1) return [index];
  const locs = new Array(rank);
  for (let i = 0; i < locs.length - 1; ++i) {
    locs[i] = Math.floor(index / strides[i]);
    index -= locs[i] * strides[i];
  }
  locs[locs.length - 1] = index;
  return locs;
}

// Duck-typed, as tfjs checks (zone.js and other Promise implementations pass).
function isPromise(object) {
  return object && object.then && typeof object.then === 'function';
}

// ------------------------------------------------------------------------------------------
// util.ts: the platform-dependent helpers

function createScalarValue(value, dtype) {
  if (dtype === 'string') return encodeString(value);
  return toTypedArray([value], dtype);
}

function toTypedArray(a, dtype) {
  if (dtype === 'string') throw new Error('Cannot convert a string[] to a TypedArray');
  if (Array.isArray(a)) a = flatten(a);
  if (env().getBool('DEBUG')) checkConversionForErrors(a, dtype);
  if ((a instanceof Float32Array && dtype === 'float32') ||
      (a instanceof Int32Array && dtype === 'int32') ||
      (a instanceof Uint8Array && dtype === 'bool')) return a;
  if (dtype == null || dtype === 'float32' || dtype === 'complex64') return new Float32Array(a);
  if (dtype === 'int32') return new Int32Array(a);
  if (dtype === 'bool') {
    const out = new Uint8Array(a.length);
    for (let i = 0; i < out.length; ++i) if (Math.round(a[i]) !== 0) out[i] = 1;
    return out;
  }
  throw new Error(`Unknown data type ${dtype}`);
}

function now() {
  return env().platform.now();
}

function fetch(path, requestInits) {
  return env().platform.fetch(path, requestInits);
}

function encodeString(s, encoding) {
  return env().platform.encode(s, encoding || 'utf-8');
}

function decodeString(bytes, encoding) {
  return env().platform.decode(bytes, encoding || 'utf-8');
}

function isTypedArray(a) {
  const platform = env().platform;
  if (platform.isTypedArray != null) return platform.isTypedArray(a);
  return a instanceof Float32Array || a instanceof Int32Array || a instanceof Uint8Array ||
    a instanceof Uint8ClampedArray;
}

function flatten(arr, result, skipTypedArray) {
  if (result == null) result = [];
  if (skipTypedArray === undefined) skipTypedArray = false;
  if (typeof arr === 'boolean' || typeof arr === 'number' || typeof arr === 'string' ||
      isPromise(arr) || arr == null || (isTypedArray(arr) && skipTypedArray)) {
    result.push(arr);
  } else if (Array.isArray(arr) || isTypedArray(arr)) {
    for (let i = 0; i < arr.length; ++i) flatten(arr[i], result, skipTypedArray);
  } else {
    // An array-like object: its elements are the keys 0..max (non-negative integers).
    let max = -1;
    for (const key of Object.keys(arr)) {
      if (/^([1-9]+[0-9]*|0)$/.test(key)) max = Math.max(max, Number(key));
    }
    for (let i = 0; i <= max; i++) flatten(arr[i], result, skipTypedArray);
  }
  return result;
}

// ------------------------------------------------------------------------------------------
// hash_util.ts: 64-bit values as `long` (the npm package tfjs uses) represents them: a Long
// has own fields low, high (signed 32-bit halves) and unsigned, and the same methods. Here
// the arithmetic is done on BigInt, wrapped to 64 bits.

const MASK64 = (1n << 64n) - 1n;
const u64 = (v) => v & MASK64;
const i64 = (v) => BigInt.asIntN(64, v);

class Long {
  constructor(low, high, unsigned) {
    this.low = low | 0;
    this.high = high | 0;
    this.unsigned = !!unsigned;
  }

  static fromBigInt(v, unsigned) {
    const bits = u64(v);
    return new Long(Number(bits & 0xffffffffn), Number(bits >> 32n), unsigned);
  }

  static fromBits(low, high, unsigned) {
    return new Long(low, high, unsigned);
  }

  static fromNumber(value, unsigned) {
    if (isNaN(value)) return new Long(0, 0, unsigned);
    if (unsigned) {
      if (value < 0) return new Long(0, 0, true);
      if (value >= 2 ** 64) return new Long(-1, -1, true);
    } else {
      if (value <= -(2 ** 63)) return new Long(0, -0x80000000, false);
      if (value + 1 >= 2 ** 63) return new Long(-1, 0x7fffffff, false);
    }
    return Long.fromBigInt(BigInt(Math.trunc(value)), unsigned);
  }

  static fromString(str, unsigned, radix) {
    if (str.length === 0) throw Error('empty string');
    if (typeof unsigned === 'number') {
      radix = unsigned;
      unsigned = false;
    } else {
      unsigned = !!unsigned;
    }
    if (str === 'NaN' || str === 'Infinity' || str === '+Infinity' || str === '-Infinity') {
      return new Long(0, 0, unsigned);
    }
    radix = radix || 10;
    if (radix < 2 || radix > 36) throw RangeError('radix');
    const hyphen = str.indexOf('-');
    if (hyphen > 0) throw Error('interior hyphen');
    if (hyphen === 0) return Long.fromString(str.substring(1), unsigned, radix).neg();
    // Eight digits at a time, each chunk read by parseInt, as long.js reads them.
    let v = 0n;
    for (let i = 0; i < str.length; i += 8) {
      const size = Math.min(8, str.length - i);
      const chunk = parseInt(str.substring(i, i + size), radix);
      const value = Number.isNaN(chunk) ? 0n : BigInt(chunk);
      v = u64(v * BigInt(radix ** size) + value);
    }
    return Long.fromBigInt(v, unsigned);
  }

  static fromValue(val, unsigned) {
    if (typeof val === 'number') return Long.fromNumber(val, unsigned);
    if (typeof val === 'string') return Long.fromString(val, unsigned);
    return new Long(val.low, val.high, typeof unsigned === 'boolean' ? unsigned : val.unsigned);
  }

  static fromBytes(bytes, unsigned, le) {
    const b = (i) => bytes[i] | 0;
    if (le) {
      return new Long(b(0) | b(1) << 8 | b(2) << 16 | b(3) << 24,
        b(4) | b(5) << 8 | b(6) << 16 | b(7) << 24, unsigned);
    }
    return new Long(b(4) << 24 | b(5) << 16 | b(6) << 8 | b(7),
      b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3), unsigned);
  }

  // The 64 bits as an unsigned BigInt, and the value as this Long reads it.
  bits() {
    return (BigInt(this.high >>> 0) << 32n) | BigInt(this.low >>> 0);
  }

  value() {
    return this.unsigned ? this.bits() : i64(this.bits());
  }

  make(v) {
    return Long.fromBigInt(v, this.unsigned);
  }

  toInt() { return this.unsigned ? this.low >>> 0 : this.low; }

  toNumber() {
    const hi = this.unsigned ? this.high >>> 0 : this.high;
    return hi * 4294967296 + (this.low >>> 0);
  }

  toString(radix) {
    radix = radix || 10;
    if (radix < 2 || radix > 36) throw RangeError('radix');
    return this.value().toString(radix);
  }

  getHighBits() { return this.high; }
  getHighBitsUnsigned() { return this.high >>> 0; }
  getLowBits() { return this.low; }
  getLowBitsUnsigned() { return this.low >>> 0; }

  getNumBitsAbs() {
    if (this.isNegative()) {
      return this.high === -0x80000000 && this.low === 0 ? 64 : this.neg().getNumBitsAbs();
    }
    const word = this.high !== 0 ? this.high : this.low;
    let bit = 31;
    for (; bit > 0; bit--) if ((word & (1 << bit)) !== 0) break;
    return this.high !== 0 ? bit + 33 : bit + 1;
  }

  isZero() { return this.high === 0 && this.low === 0; }
  isNegative() { return !this.unsigned && this.high < 0; }
  isPositive() { return this.unsigned || this.high >= 0; }
  isOdd() { return (this.low & 1) === 1; }
  isEven() { return (this.low & 1) === 0; }

  equals(other) {
    if (!isLong(other)) other = Long.fromValue(other);
    if (this.unsigned !== other.unsigned && (this.high >>> 31) === 1 &&
        (other.high >>> 31) === 1) return false;
    return this.high === other.high && this.low === other.low;
  }

  notEquals(other) { return !this.equals(other); }
  lessThan(other) { return this.compare(other) < 0; }
  lessThanOrEqual(other) { return this.compare(other) <= 0; }
  greaterThan(other) { return this.compare(other) > 0; }
  greaterThanOrEqual(other) { return this.compare(other) >= 0; }

  compare(other) {
    if (!isLong(other)) other = Long.fromValue(other);
    if (this.equals(other)) return 0;
    const thisNeg = this.isNegative();
    const otherNeg = other.isNegative();
    if (thisNeg && !otherNeg) return -1;
    if (!thisNeg && otherNeg) return 1;
    if (!this.unsigned) return i64(this.bits() - other.bits()) < 0n ? -1 : 1;
    return other.bits() > this.bits() ? -1 : 1;
  }

  negate() { return this.make(-this.bits()); }
  add(addend) { return this.make(this.bits() + toLong(addend).bits()); }
  subtract(subtrahend) { return this.make(this.bits() - toLong(subtrahend).bits()); }
  multiply(multiplier) {
    if (this.isZero()) return new Long(0, 0, false);
    return this.make(this.bits() * toLong(multiplier).bits());
  }

  // Both operands read with this Long's signedness (long.js's WebAssembly div_s/div_u and
  // rem_s/rem_u, whose trap is the error of a remainder by zero).
  divide(divisor) {
    const d = toLong(divisor);
    if (d.isZero()) throw Error('division by zero');
    const read = (l) => (this.unsigned ? l.bits() : i64(l.bits()));
    return this.make(read(this) / read(d));
  }

  modulo(divisor) {
    const d = toLong(divisor);
    if (d.isZero()) throw new WebAssembly.RuntimeError('remainder by zero');
    const read = (l) => (this.unsigned ? l.bits() : i64(l.bits()));
    return this.make(read(this) % read(d));
  }

  not() { return new Long(~this.low, ~this.high, this.unsigned); }
  and(other) { return this.make(this.bits() & toLong(other).bits()); }
  or(other) { return this.make(this.bits() | toLong(other).bits()); }
  xor(other) { return this.make(this.bits() ^ toLong(other).bits()); }

  shiftLeft(numBits) {
    const n = BigInt(shiftCount(numBits));
    if (n === 0n) return this;
    return this.make(this.bits() << n);
  }

  // Arithmetic: the sign bit is repeated, also for unsigned values (as long.js does).
  shiftRight(numBits) {
    const n = BigInt(shiftCount(numBits));
    if (n === 0n) return this;
    return this.make(i64(this.bits()) >> n);
  }

  shiftRightUnsigned(numBits) {
    const n = BigInt(shiftCount(numBits));
    if (n === 0n) return this;
    return this.make(this.bits() >> n);
  }

  toSigned() { return this.unsigned ? new Long(this.low, this.high, false) : this; }
  toUnsigned() { return this.unsigned ? this : new Long(this.low, this.high, true); }

  toBytes(le) { return le ? this.toBytesLE() : this.toBytesBE(); }

  toBytesLE() {
    const { low: lo, high: hi } = this;
    return [lo & 0xff, lo >>> 8 & 0xff, lo >>> 16 & 0xff, lo >>> 24,
      hi & 0xff, hi >>> 8 & 0xff, hi >>> 16 & 0xff, hi >>> 24];
  }

  toBytesBE() {
    const { low: lo, high: hi } = this;
    return [hi >>> 24, hi >>> 16 & 0xff, hi >>> 8 & 0xff, hi & 0xff,
      lo >>> 24, lo >>> 16 & 0xff, lo >>> 8 & 0xff, lo & 0xff];
  }
}
Object.defineProperty(Long.prototype, '__isLong__', { value: true });
const P = Long.prototype;
Object.assign(P, {
  eqz: P.isZero, eq: P.equals, neq: P.notEquals, ne: P.notEquals, lt: P.lessThan,
  lte: P.lessThanOrEqual, le: P.lessThanOrEqual, gt: P.greaterThan, gte: P.greaterThanOrEqual,
  ge: P.greaterThanOrEqual, comp: P.compare, neg: P.negate, sub: P.subtract, mul: P.multiply,
  div: P.divide, mod: P.modulo, rem: P.modulo, shl: P.shiftLeft, shr: P.shiftRight,
  shru: P.shiftRightUnsigned, shr_u: P.shiftRightUnsigned,
});
for (const k of Object.getOwnPropertyNames(P)) {
  if (k !== 'constructor') Object.defineProperty(P, k, { enumerable: false });
}

function isLong(obj) {
  return (obj && obj.__isLong__) === true;
}

function toLong(v) {
  return isLong(v) ? v : Long.fromValue(v);
}

function shiftCount(numBits) {
  return (isLong(numBits) ? numBits.toInt() : numBits) & 63;
}

function hexToLong(hex) {
  return Long.fromString(hex, true, 16);
}

// TensorFlow's Fingerprint64 of the first `len` bytes of `s` (zeros past its end, as tfjs
// reads them): farmhash's, computed natively (crates/core/src/ops/string_ops.rs).
function fingerPrint64(s, len) {
  if (len === undefined) len = s.length;
  const bytes = s instanceof Uint8Array ? s : Uint8Array.from(s);
  // (tfjs's loop never ends for some lengths it cannot count in blocks: NaN, 64.5, 2**40; a
  // length far past the bytes would only hash zeros.)
  if (!(Number.isInteger(len) && len >= 0 && len <= Math.max(bytes.length, 2 ** 24))) {
    throw new Error(`fingerPrint64: len must be a length in bytes, but got ${String(len)}`);
  }
  const [high, low] = native.fingerprint64(bytes, len);
  return Long.fromBits(low, high, true);
}

// ------------------------------------------------------------------------------------------
// tensor_util

const UPCAST = {
  bool: { bool: 'bool', int32: 'int32', float32: 'float32', complex64: 'complex64' },
  int32: { bool: 'int32', int32: 'int32', float32: 'float32', complex64: 'complex64' },
  float32: { bool: 'float32', int32: 'float32', float32: 'float32', complex64: 'complex64' },
  complex64: {
    bool: 'complex64', int32: 'complex64', float32: 'complex64', complex64: 'complex64',
  },
};

function upcastType(typeA, typeB) {
  if (typeA === 'string' || typeB === 'string') {
    if (typeA === 'string' && typeB === 'string') return 'string';
    throw new Error(`Can not upcast ${typeA} with ${typeB}`);
  }
  return UPCAST[typeA][typeB];
}

function makeTypesMatch(a, b) {
  if (a.dtype === b.dtype) return [a, b];
  const dtype = upcastType(a.dtype, b.dtype);
  return [a.cast(dtype), b.cast(dtype)];
}

function assertTypesMatch(a, b) {
  assert(a.dtype === b.dtype,
    () => `The dtypes of the first(${a.dtype}) and second(${b.dtype}) input must match`);
}

function isTensorInList(tensor, tensorList) {
  return tensorList.some((x) => x.id === tensor.id);
}

function getTensorsInContainer(result) {
  const list = [];
  walkContainer(result, list, new Set());
  return list;
}

function walkContainer(container, list, seen) {
  if (container == null) return;
  if (container instanceof Tensor) {
    list.push(container);
    return;
  }
  if (!Array.isArray(container) && typeof container !== 'object') return;
  for (const k in container) {
    const val = container[k];
    if (!seen.has(val)) {
      seen.add(val);
      walkContainer(val, list, seen);
    }
  }
}

// The order of tfjs's export list (Object.keys(tf.util)). Optional parameters are defaulted in
// the bodies so that each function's `length` is tfjs's (its bundle is compiled that way).
const util = {
  arraysEqual, arraysEqualWithNull, assert, assertNonNegativeIntegerDimensions, assertNonNull,
  assertShapesMatch, bytesFromStringArray, bytesPerElement, checkConversionForErrors, clamp,
  computeStrides, convertBackendValuesAndArrayBuffer, createScalarValue, createShuffledIndices,
  decodeString, distSquared, encodeString, fetch, fingerPrint64, flatten, getArrayFromDType,
  getTypedArrayFromDType, hasEncodingLoss, hexToLong, indexToLoc, inferDtype,
  inferFromImplicitShape, isBoolean, isFunction, isInt, isNumber, isPromise, isScalarShape,
  isString, isTypedArray, isValidDtype, locToIndex, makeOnesTypedArray,
  makeZerosNestedTypedArray, makeZerosTypedArray, nearestDivisor, nearestLargerEven, now,
  parseAxisParam, randUniform, repeatedTry, rightPad, shuffle, shuffleCombo, sizeFromShape,
  sizeToSquarishShape, squeezeShape, sum, swap, tanh, toNestedArray, toTypedArray,
};

const tensor_util = { assertTypesMatch, getTensorsInContainer, isTensorInList, makeTypesMatch };

module.exports = { util, tensor_util, Long, upcastType };
