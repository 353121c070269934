'use strict';
// Shared test setup: tidytensor (`tt`) and the @tensorflow/tfjs oracle (`tfo`), plus helpers to
// run one program on both and compare what it observes.
//
// TIDYTENSOR_BACKEND=<name> runs the suites on that tidytensor backend.
const assert = require('node:assert/strict');
const tfo = require('./oracle');
const tt = require('../..');

if (process.env.TIDYTENSOR_BACKEND) {
  // setBackend is async in tfjs; tidytensor switches synchronously and resolves at once.
  tt.setBackend(process.env.TIDYTENSOR_BACKEND);
}

function isTensor(lib, x) {
  return x instanceof lib.Tensor;
}

// Converts whatever a program returned into plain data: tensors become
// {shape, dtype, values}; arrays and objects are converted recursively.
function snapshot(lib, x) {
  if (isTensor(lib, x)) {
    return { shape: x.shape.slice(), dtype: x.dtype, values: Array.from(x.dataSync()) };
  }
  if (Array.isArray(x)) return x.map((v) => snapshot(lib, v));
  if (x != null && typeof x === 'object') {
    const o = {};
    for (const k of Object.keys(x)) o[k] = snapshot(lib, x[k]);
    return o;
  }
  return x;
}

function closeValues(a, b, tol, path) {
  assert.equal(a.length, b.length, `${path}: value count`);
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (Number.isNaN(y)) {
      assert.ok(Number.isNaN(x), `${path}[${i}]: expected NaN, got ${x}`);
    } else if (!Number.isFinite(y)) {
      assert.equal(x, y, `${path}[${i}]`);
    } else {
      const diff = Math.abs(x - y);
      assert.ok(diff <= tol * Math.max(1, Math.abs(y)),
        `${path}[${i}]: got ${x}, expected ${y} (tolerance ${tol})`);
    }
  }
}

function compareSnap(got, want, tol, path = 'result') {
  if (want != null && typeof want === 'object' && 'values' in want && 'dtype' in want) {
    assert.deepEqual(got.shape, want.shape, `${path}: shape`);
    assert.equal(got.dtype, want.dtype, `${path}: dtype`);
    if (want.dtype === 'string') {
      assert.deepEqual(got.values, want.values, `${path}: values`);
    } else if (want.dtype === 'bool') {
      // tfjs can leave raw arithmetic results (2, NaN -> 0) in bool tensors; compare truth.
      closeValues(got.values.map((v) => (v ? 1 : 0)), want.values.map((v) => (v ? 1 : 0)), 0, path);
    } else {
      closeValues(got.values, want.values, want.dtype === 'int32' ? 0 : tol, path);
    }
    return;
  }
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${path}: expected an array`);
    assert.equal(got.length, want.length, `${path}: length`);
    want.forEach((w, i) => compareSnap(got[i], w, tol, `${path}[${i}]`));
    return;
  }
  if (want != null && typeof want === 'object') {
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${path}: keys`);
    for (const k of Object.keys(want)) compareSnap(got[k], want[k], tol, `${path}.${k}`);
    return;
  }
  assert.deepEqual(got, want, path);
}

function counts(lib) {
  const m = lib.memory();
  return { numTensors: m.numTensors, numDataBuffers: m.numDataBuffers, numBytes: m.numBytes };
}

function deltaOf(a, b) {
  return {
    numTensors: b.numTensors - a.numTensors,
    numDataBuffers: b.numDataBuffers - a.numDataBuffers,
    numBytes: b.numBytes - a.numBytes,
  };
}

// Runs `program(lib)` on one library inside tidy (the result kept), then records the result,
// the memory change, any error, and disposes what the program returned.
function runOn(lib, program) {
  const before = counts(lib);
  let result;
  let error = null;
  try {
    result = lib.tidy(() => program(lib));
  } catch (e) {
    error = e;
  }
  const snap = error ? null : snapshot(lib, result);
  const delta = deltaOf(before, counts(lib));
  if (!error) lib.dispose(result);
  const leak = deltaOf(before, counts(lib));
  return { snap, delta, error, leak };
}

// Runs `program` on tidytensor and on tfjs: same values/shapes/dtypes (or both throw, with the
// same message unless `anyError`), same memory change (unless `delta` is false: tfjs counts no
// bytes for complex tensors and for strings made by kernels), and nothing leaks here.
function same(program, { tol = 1e-5, anyError = false, message, delta = true } = {}) {
  const want = runOn(tfo, program);
  const got = runOn(tt, program);
  if (want.error) {
    assert.ok(got.error, `expected an error like tfjs's: ${want.error.message}`);
    if (!anyError) {
      assert.equal(got.error.message, message === undefined ? want.error.message : message);
    }
  } else {
    if (got.error) throw got.error;
    compareSnap(got.snap, want.snap, tol);
    if (delta) assert.deepEqual(got.delta, want.delta, 'memory change while the result is alive');
  }
  assert.deepEqual(got.leak, { numTensors: 0, numDataBuffers: 0, numBytes: 0 }, 'leak');
  return got;
}

// Asserts that `fn` throws an Error whose message is `message` (exact).
function throwsMsg(fn, message) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, 'an Error instance');
    assert.equal(e.message, message);
    return true;
  });
}

module.exports = { tt, tfo, assert, same, snapshot, counts, deltaOf, throwsMsg, runOn };
