'use strict';
// Turns what a case returned into plain data (snapshot) and compares two snapshots: tensors by
// dtype, shape and values (float32 with rtol 1e-4 / atol 1e-5, NaN equals NaN, -0 equals 0;
// random ops by dtype and shape only), everything else by JSON-ish deep equality.
const RTOL = 1e-4;
const ATOL = 1e-5;

// Duck typing, as tfjs's own `instanceof Tensor` does: a foreign tensor is a tensor too.
function isTensor(x) {
  return x != null && typeof x === 'object' && typeof x.dataSync === 'function' &&
    x.shape != null && typeof x.shape === 'object' && typeof x.dtype === 'string';
}

function isBuffer(x) {
  return x != null && typeof x === 'object' && typeof x.toTensor === 'function' &&
    'values' in x && 'shape' in x;
}

function isPlain(x) {
  const p = Object.getPrototypeOf(x);
  return p === Object.prototype || p === null;
}

function num(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return x === 0 ? 0 : x; // -0 equals 0
}

function kindOf(x) {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (isTensor(x)) return 'tensor';
  return typeof x;
}

// mode: 'value' | 'random' | 'kind'.
function snapshot(x, mode, depth = 0, seen = new Set()) {
  if (mode === 'kind' && depth === 0) return { T: 'kind', kind: kindOf(x) };
  if (depth > 8) return { T: 'deep' };
  if (x === undefined) return { T: 'undefined' };
  if (x === null) return null;
  switch (typeof x) {
    case 'number': return num(x);
    case 'string': case 'boolean': return x;
    case 'bigint': return { T: 'bigint', v: String(x) };
    case 'symbol': return { T: 'symbol' };
    case 'function': return { T: 'function' };
    default: break;
  }
  if (seen.has(x)) return { T: 'cycle' };
  seen.add(x);
  if (isTensor(x)) {
    const s = { T: 'tensor', dtype: x.dtype, shape: Array.from(x.shape, num) };
    if (mode === 'random') return s;
    try {
      s.values = Array.from(x.dataSync(), (e) => (typeof e === 'number' ? num(e) : String(e)));
    } catch (e) {
      // A returned tensor that cannot be read (disposed) is a value of its own.
      s.unreadable = true;
    }
    return s;
  }
  if (isBuffer(x)) {
    return { T: 'buffer', dtype: x.dtype, shape: Array.from(x.shape, num),
      values: mode === 'random' ? undefined : Array.from(x.values, num) };
  }
  if (ArrayBuffer.isView(x)) {
    return { T: 'typed', type: x.constructor.name, values: Array.from(x, (e) => num(Number(e))) };
  }
  if (Array.isArray(x)) return x.map((e) => snapshot(e, mode, depth + 1, seen));
  if (x instanceof Promise) return { T: 'promise' };
  if (!isPlain(x)) return { T: 'object', ctor: (x.constructor && x.constructor.name) || '?' };
  const o = {};
  for (const k of Object.keys(x).sort()) o[k] = snapshot(x[k], mode, depth + 1, seen);
  return o;
}

function closeNum(a, b) {
  if (a === b) return true;
  if (typeof a !== 'number' || typeof b !== 'number') return false;
  return Math.abs(a - b) <= ATOL + RTOL * Math.abs(b);
}

// One line describing a value; a value that throws when read (a tensor whose shape holds a
// throwing object, as tfjs builds one) is described as such.
const show = (x) => {
  let s;
  try {
    s = JSON.stringify(x);
    if (s === undefined) s = String(x);
  } catch (e) {
    s = `<unreadable: ${e && e.message}>`;
  }
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
};

// Returns null when `got` (tidytensor) matches `want` (tfjs), else where and how they differ.
function diff(got, want, path = 'result') {
  if (want !== null && typeof want === 'object' && want.T === 'tensor') {
    if (got === null || typeof got !== 'object' || got.T !== 'tensor') {
      return `${path}: tfjs a tensor, tidytensor ${show(got)}`;
    }
    if (got.dtype !== want.dtype) return `${path}.dtype: tfjs ${want.dtype}, tidytensor ${got.dtype}`;
    if (show(got.shape) !== show(want.shape)) {
      return `${path}.shape: tfjs ${show(want.shape)}, tidytensor ${show(got.shape)}`;
    }
    if (!!got.unreadable !== !!want.unreadable) {
      return `${path}: readable on ${got.unreadable ? 'tfjs' : 'tidytensor'} only`;
    }
    if (want.values === undefined) return null;
    if (got.values.length !== want.values.length) {
      return `${path}.values: tfjs ${want.values.length} values, tidytensor ${got.values.length}`;
    }
    const bool = want.dtype === 'bool';
    const exact = want.dtype !== 'float32' && want.dtype !== 'complex64';
    for (let i = 0; i < want.values.length; i++) {
      let w = want.values[i];
      let g = got.values[i];
      // tfjs can leave raw arithmetic results in bool tensors: compare truth as 0/1.
      if (bool) { w = w && w !== 'NaN' ? 1 : 0; g = g && g !== 'NaN' ? 1 : 0; }
      if (exact ? w !== g : !closeNum(g, w)) {
        return `${path}.values[${i}]: tfjs ${show(w)}, tidytensor ${show(g)}` +
          ` (tfjs ${show(want.values)}, tidytensor ${show(got.values)})`;
      }
    }
    return null;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${path}: tfjs an array, tidytensor ${show(got)}`;
    if (got.length !== want.length) return `${path}.length: tfjs ${want.length}, tidytensor ${got.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = diff(got[i], want[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) {
      return `${path}: tfjs ${show(want)}, tidytensor ${show(got)}`;
    }
    const wk = Object.keys(want).sort();
    const gk = Object.keys(got).sort();
    if (show(wk) !== show(gk)) return `${path} keys: tfjs ${show(wk)}, tidytensor ${show(gk)}`;
    for (const k of wk) {
      const d = diff(got[k], want[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return closeNum(got, want) ? null : `${path}: tfjs ${show(want)}, tidytensor ${show(got)}`;
}

// A one-line description of an outcome, for reports.
function describe(outcome) {
  if (outcome.kind === 'throw') return `throws ${outcome.type}: ${outcome.message}`;
  const s = outcome.snap;
  const one = (x) => (x && x.T === 'tensor' ?
    `tensor ${x.dtype} ${show(x.shape)}${x.values ? ` ${show(x.values)}` : ''}` : show(x));
  return `returns ${Array.isArray(s) ? `[${s.map(one).join(', ')}]` : one(s)}`.slice(0, 300);
}

// Collects the tensors in a returned value (tensors, arrays and plain objects of them) so they
// can be disposed; other objects (the engine, a backend) are not walked.
function tensorsIn(x, out = [], seen = new Set(), depth = 0) {
  if (x == null || typeof x !== 'object' || seen.has(x) || depth > 8) return out;
  seen.add(x);
  if (isTensor(x)) out.push(x);
  else if (Array.isArray(x)) x.forEach((e) => tensorsIn(e, out, seen, depth + 1));
  else if (isPlain(x)) Object.values(x).forEach((e) => tensorsIn(e, out, seen, depth + 1));
  return out;
}

module.exports = { snapshot, diff, describe, tensorsIn, isTensor };
