'use strict';
// tf.test_util: the assertions tfjs's own tests (and many users' tests) use, with tfjs's
// tolerances and texts. createVideoElement and play need a browser's <video>.
const { isTypedArray, flatten, arraysEqual } = require('./util').util;
const { inferShape } = require('./convert');

const TEST_EPSILON_FLOAT32 = 1e-3;
const TEST_EPSILON_FLOAT16 = 1e-1;

// Both backends compute in float32.
const testEpsilon = () => TEST_EPSILON_FLOAT32;

// The global isFinite/isNaN, which coerce (null is 0, undefined NaN), as tfjs's.
function areClose(a, e, epsilon) {
  if (!isFinite(a) && !isFinite(e)) return true;
  return !(isNaN(a) || isNaN(e) || Math.abs(a - e) > epsilon);
}

// Same kind of container, same shape, then `predicate` element by element.
function expectArraysPredicate(actual, expected, predicate) {
  const typed = [isTypedArray(actual), isTypedArray(expected)];
  if (typed[0] === typed[1]) {
    const [a, b] = [actual.constructor.name, expected.constructor.name];
    if (a !== b) throw new Error(`Arrays are of different type. Actual: ${a}. Expected: ${b}`);
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    const [sa, sb] = [inferShape(actual), inferShape(expected)];
    if (!arraysEqual(sa, sb)) throw new Error(`Arrays have different shapes. Actual: [${sa}]. Expected: [${sb}]`);
  }
  const a = isTypedArray(actual) ? actual : flatten(actual);
  const e = isTypedArray(expected) ? expected : flatten(expected);
  if (a.length !== e.length) {
    throw new Error(`Arrays have different lengths actual: ${a.length} vs expected: ${e.length}.\n` +
      `Actual:   ${a}.\nExpected: ${e}.`);
  }
  for (let i = 0; i < e.length; ++i) {
    if (!predicate(a[i], e[i])) {
      throw new Error(`Arrays differ: actual[${i}] = ${a[i]}, expected[${i}] = ${e[i]}.\n` +
        `Actual:   ${a}.\nExpected: ${e}.`);
    }
  }
}

function expectArraysClose(actual, expected, epsilon) {
  const eps = epsilon == null ? testEpsilon() : epsilon;
  return expectArraysPredicate(actual, expected, (a, b) => areClose(a, b, eps));
}

function expectArraysEqual(actual, expected) {
  const isString = (v) => typeof v === 'string';
  const exp = ['string', 'number', 'boolean'].includes(typeof expected) ? [expected] : expected;
  if (isString(actual) || isString(actual[0]) || isString(expected) || isString(expected[0])) {
    return expectArraysPredicate(actual, exp, (a, b) => a == b);
  }
  return expectArraysPredicate(actual, expected, (a, b) => areClose(a, b, 0));
}

function expectNumbersClose(a, e, epsilon) {
  if (!areClose(a, e, epsilon == null ? testEpsilon() : epsilon)) {
    throw new Error(`Numbers differ: actual === ${a}, expected === ${e}`);
  }
}

function expectValuesInRange(actual, low, high) {
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] < low || actual[i] > high) throw new Error(`Value out of range:${actual[i]} low: ${low}, high: ${high}`);
  }
}

function expectPromiseToFail(fn, done) {
  fn().then(() => done.fail(), () => done());
}

function expectArrayBuffersEqual(actual, expected) {
  const [a, e] = [new Float32Array(actual), new Float32Array(expected)];
  if (a.length !== e.length) throw new Error(`Expected ArrayBuffer to be of length ${e.length}, but it was ${a.length}`);
  for (let i = 0; i < e.length; i++) {
    if (a[i] !== e[i]) throw new Error(`Expected ArrayBuffer value at ${i} to be ${e[i]} but got ${a[i]} instead`);
  }
}

// Nested strings as nested UTF-8 byte arrays (in place, as tfjs does).
function encodeStrings(a) {
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (Array.isArray(v)) encodeStrings(v);
    else a[i] = new TextEncoder().encode(v);
  }
  return a;
}

const noBrowser = (name) => () => { throw new Error(`test_util.${name} needs a browser's <video> element`); };

const test_util = {
  TEST_EPSILON_FLOAT16, testEpsilon, expectArraysClose, expectArraysEqual, expectNumbersClose,
  expectValuesInRange, expectPromiseToFail, expectArrayBuffersEqual, encodeStrings,
  createVideoElement: noBrowser('createVideoElement'), play: noBrowser('play'),
};

module.exports = { test_util };
