'use strict';
// tf.util and tf.tensor_util against @tensorflow/tfjs: every export exists, and each function
// gives tfjs's result (or tfjs's error text) on the same arguments. Random helpers are checked
// for what they promise (a permutation, a range).
const { describe, it } = require('node:test');
const { tt, tfo, assert, throwsMsg } = require('./helpers/setup');
const { cases, fresh } = require('./helpers/ops');

// Plain data for deepStrictEqual: a 64-bit Long (from `long` in tfjs, tidytensor's own here)
// becomes its fields and decimal text; arrays and plain objects are converted recursively.
function plain(x) {
  if (x != null && x.__isLong__ === true) {
    return { long: [x.low, x.high, x.unsigned], text: x.toString() };
  }
  if (Array.isArray(x)) return x.map(plain);
  if (x != null && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype) {
    const o = {};
    for (const k of Object.keys(x)) o[k] = plain(x[k]);
    return o;
  }
  return x;
}

function call(lib, fn, args) {
  try {
    return { value: plain(fn(lib, ...fresh(args()))) };
  } catch (e) {
    return { error: e.message, type: e.constructor.name };
  }
}

// `args` makes fresh arguments per library (some functions mutate them). `fn(lib, ...args)`
// defaults to calling lib.util[name].
function sameUtil(name, args, fn = (lib, ...a) => lib.util[name](...a)) {
  const want = call(tfo, fn, args);
  const got = call(tt, fn, args);
  assert.deepStrictEqual(got, want);
}

function table(title, name, argLists, fn) {
  describe(title, () => {
    argLists.forEach((args, i) => {
      it(`${name} #${i}`, () => sameUtil(name, () => args(), fn));
    });
  });
}

describe('util: namespace', () => {
  it('exports every function of tfjs util, in the same order', () => {
    assert.deepStrictEqual(Object.keys(tt.util), Object.keys(tfo.util));
    for (const k of Object.keys(tfo.util)) {
      assert.equal(typeof tt.util[k], typeof tfo.util[k], k);
      assert.equal(tt.util[k].length, tfo.util[k].length, `${k}.length`);
    }
  });
  it('exports every function of tfjs tensor_util', () => {
    assert.deepStrictEqual(Object.keys(tt.tensor_util).sort(), Object.keys(tfo.tensor_util).sort());
    for (const k of Object.keys(tfo.tensor_util)) {
      assert.equal(tt.tensor_util[k].length, tfo.tensor_util[k].length, `${k}.length`);
    }
  });
});

const A = (...xs) => () => xs;

table('util: arrays', 'arraysEqual', [A([1, 2], [1, 2]), A([1, 2], [1, 3]), A([1], [1, 2]),
  A(null, [1]), A(null, undefined), A([], []), A(new Int32Array([1, 2]), [1, 2]),
  A([NaN], [NaN])]);
table('util: arrays', 'arraysEqualWithNull', [A([1, null], [1, 5]), A([1, 2], [1, 3]),
  A([null], [null, 1]), A(null, [1]), A([null, 2], [3, null])]);
table('util: arrays', 'sum', [A([1, 2, 3.5]), A([]), A(new Float32Array([0.5, 0.25]))]);
table('util: arrays', 'distSquared', [A([1, 2], [4, 6]), A(new Float32Array([1, -1]), [0, 0]),
  A([], [])]);
table('util: arrays', 'swap', [A([1, 2, 3], 0, 2)], (lib, arr, l, r) => {
  lib.util.swap(arr, l, r);
  return arr;
});
table('util: arrays', 'flatten', [A([[1, 2], [3, [4, [5]]]]), A(5), A(null), A('ab'),
  A([true, [false]]), A([new Float32Array([1, 2]), [3]]), A([new Float32Array([1, 2]), [3]], [], true),
  A([[1], 2], [0]), A([[1], 2], null), A({ 0: 1, 1: [2, 3], length: 2, x: 5 }), A({ 2: 7 }),
  A([new Uint8ClampedArray([9]), new Int32Array([1])])]);
table('util: arrays', 'rightPad', [A('ab', 5), A('abcdef', 3), A('', 2)]);

describe('util: random', () => {
  it('shuffle permutes in place', () => {
    const a = [1, 2, 3, 4, 5, 6, 7, 8];
    assert.equal(tt.util.shuffle(a), undefined);
    assert.deepStrictEqual(a.slice().sort(), [1, 2, 3, 4, 5, 6, 7, 8]);
  });
  it('shuffleCombo keeps pairs together', () => {
    const a = [1, 2, 3, 4, 5];
    const b = ['1', '2', '3', '4', '5'];
    tt.util.shuffleCombo(a, b);
    assert.deepStrictEqual(a.map(String), b);
    assert.deepStrictEqual(a.slice().sort(), [1, 2, 3, 4, 5]);
  });
  it('shuffleCombo of different lengths throws tfjs\'s error', () => {
    sameUtil('shuffleCombo', A([1, 2, 3], [1, 2]));
  });
  it('createShuffledIndices is a Uint32Array permutation', () => {
    const p = tt.util.createShuffledIndices(10);
    assert.ok(p instanceof Uint32Array);
    assert.deepStrictEqual(Array.from(p).sort((x, y) => x - y), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(tt.util.createShuffledIndices(0).length, 0);
  });
  it('randUniform stays in [a, b)', () => {
    for (let i = 0; i < 100; i++) {
      const v = tt.util.randUniform(-2, 3);
      assert.ok(v >= -2 && v < 3, String(v));
    }
  });
});

table('util: numbers', 'clamp', [A(0, 5, 3), A(0, -1, 3), A(0, 2, 3), A(0, NaN, 3)]);
table('util: numbers', 'nearestLargerEven', [A(3), A(4), A(0), A(-3)]);
table('util: numbers', 'isInt', [A(3), A(3.5), A(-2), A(NaN), A(Infinity)]);
table('util: numbers', 'tanh', [A(0.5), A(Infinity), A(-Infinity), A(-20)]);
table('util: numbers', 'sizeToSquarishShape', [A(10), A(16), A(1), A(0), A(7)]);
table('util: numbers', 'nearestDivisor', [A(12, 5), A(13, 2), A(10, 10), A(9, 1)]);

table('util: asserts', 'assert', [A(true, 'x'), A(false, 'message'), A(0, () => 'lazy'),
  A(1, () => 'lazy')]);
table('util: asserts', 'assertShapesMatch', [A([1, 2], [1, 2]), A([1, 2], [2, 1]),
  A([1, 2], [2], 'Error in add:'), A([], [1])]);
table('util: asserts', 'assertNonNull', [A(0), A(null), A(undefined), A('')]);
table('util: asserts', 'assertNonNegativeIntegerDimensions', [A([1, 2]), A([1, -2]),
  A([1.5]), A([]), A([NaN, 0])]);
table('util: asserts', 'checkConversionForErrors', [A([1, 2], 'float32'),
  A([1, NaN], 'float32'), A(new Float32Array([Infinity]), 'int32')]);

table('util: shapes', 'sizeFromShape', [A([2, 3, 4]), A([]), A([0, 5]), A([7])]);
table('util: shapes', 'isScalarShape', [A([]), A([1])]);
table('util: shapes', 'computeStrides', [A([2, 3, 4]), A([5]), A([]), A([2, 3])]);
table('util: shapes', 'inferFromImplicitShape', [A([2, -1], 6), A([2, 3], 6), A([2, 3], 5),
  A([2, 3], 0), A([-1, -1], 4), A([2, -2], 4), A([0, -1], 4), A([4, -1], 6), A([-1], 0)]);
table('util: shapes', 'parseAxisParam', [A(null, [2, 3]), A(-1, [2, 3]), A([0, -1], [2, 3, 4]),
  A(3, [2, 3]), A(1.5, [2, 3]), A([NaN], [2, 3]), A(undefined, [])]);
table('util: shapes', 'squeezeShape', [A([1, 2, 1, 3]), A([1, 2, 1, 3], [0, 2]),
  A([1, 2, 1, 3], []), A([1, 2, 1], [-1]), A([1, 2], [1]), A([1, 1], 0), A([2, 1], 5)]);
table('util: shapes', 'locToIndex', [A([1, 2], 2, [3]), A([], 0, []), A([4], 1, []),
  A([1, 1, 1], 3, [12, 4])]);
table('util: shapes', 'indexToLoc', [A(5, 2, [3]), A(0, 0, []), A(4, 1, []), A(17, 3, [12, 4])]);

table('util: dtypes', 'getArrayFromDType', [A('float32', 3), A('int32', 2), A('bool', 2),
  A('string', 2), A(undefined, 1), A('complex64', 1), A('int8', 1)]);
table('util: dtypes', 'getTypedArrayFromDType', [A('int32', 2), A('x', 1)]);
table('util: dtypes', 'isValidDtype', [A('float32'), A('int32'), A('bool'), A('string'),
  A('complex64'), A('float64'), A(undefined)]);
table('util: dtypes', 'hasEncodingLoss', [['float32', 'int32'], ['int32', 'float32'],
  ['bool', 'int32'], ['bool', 'bool'], ['int32', 'bool'], ['complex64', 'float32'],
  ['float32', 'complex64'], ['complex64', 'int32']].map((p) => A(...p)));
table('util: dtypes', 'bytesPerElement', [A('float32'), A('int32'), A('bool'), A('complex64'),
  A('string')]);
table('util: dtypes', 'bytesFromStringArray', [A(null), A([new Uint8Array(3), new Uint8Array(2)]),
  A([])]);
table('util: dtypes', 'inferDtype', [A(1), A(true), A('s'), A([[1]]), A([[true]]), A(['a']),
  A(new Float32Array(1)), A(new Int32Array(1)), A(new Uint8Array(1)),
  A(new Uint8ClampedArray(1)), A([new Uint8Array(1)]), A({}), A(null), A([])]);
table('util: dtypes', 'makeZerosTypedArray', [A(3, 'float32'), A(2, 'int32'), A(2, 'bool'),
  A(1, 'complex64'), A(2), A(1, 'string')]);
table('util: dtypes', 'makeOnesTypedArray', [A(3, 'float32'), A(2, 'int32'), A(2, 'bool'),
  A(1, 'string')]);
table('util: dtypes', 'makeZerosNestedTypedArray', [A([2, 3], 'float32'), A([2], 'int32'),
  A([1, 2], 'bool'), A([], 'float32'), A([0, 2], 'int32'), A([2], 'string')]);
table('util: dtypes', 'toNestedArray', [A([2, 3], [1, 2, 3, 4, 5, 6]), A([], [7]),
  A([0, 3], []), A([2], new Float32Array([1, 2])), A([2, 2], [1, 2, 3]),
  A([1, 2], [1, 2, 3, 4], true), A([2], [1], true)]);
table('util: dtypes', 'convertBackendValuesAndArrayBuffer', [
  A(new Float32Array([1.5]), 'float32'), A([new Uint8Array(1)], 'string'),
  A(new Float32Array([1, 2]).buffer, 'float32'), A(new Int32Array([3]).buffer, 'int32'),
  A(new Int32Array([0, 2]).buffer, 'bool'), A(new Int32Array([3]), 'int32'),
  A(new ArrayBuffer(4), 'complex128')]);
table('util: dtypes', 'toTypedArray', [A([1, 2.5], 'float32'), A([[1], [2.7]], 'int32'),
  A([0, 0.4, 0.6, -2], 'bool'), A(new Float32Array([1]), 'float32'),
  A(new Int32Array([1]), 'float32'), A([true, false], 'bool'), A([1], undefined),
  A(['a'], 'string'), A([1], 'complex64'), A([1], 'uint8')]);
table('util: dtypes', 'createScalarValue', [A(2.5, 'float32'), A(2.5, 'int32'), A(true, 'bool'),
  A(0.4, 'bool'), A('hi', 'string'), A(1, 'uint8')]);

describe('util: DEBUG conversion checks', () => {
  it('toTypedArray checks values when DEBUG is on', () => {
    const warn = console.warn;
    console.warn = () => {};
    try {
      for (const lib of [tfo, tt]) lib.env().set('DEBUG', true);
      sameUtil('toTypedArray', A([1, NaN], 'float32'));
      sameUtil('toTypedArray', A([1, Infinity], 'int32'));
      sameUtil('toTypedArray', A([1, 2], 'int32'));
    } finally {
      for (const lib of [tfo, tt]) lib.env().set('DEBUG', false);
      console.warn = warn;
    }
  });
});

const PROMISE_LIKE = { then: () => {} };
table('util: predicates', 'isString', [A('a'), A(new String('a')), A(1), A(null)]);
table('util: predicates', 'isBoolean', [A(true), A(0), A(new Boolean(true))]);
table('util: predicates', 'isNumber', [A(1), A(NaN), A('1'), A(new Number(1))]);
table('util: predicates', 'isFunction', [A(() => 1), A(function f() {}), A({}), A(null),
  A({ call: 1, apply: 1 })]);
table('util: predicates', 'isPromise', [A(Promise.resolve()), A(PROMISE_LIKE), A({ then: 1 }),
  A(null), A(0), A(undefined)]);
table('util: predicates', 'isTypedArray', [A(new Float32Array(1)), A(new Int32Array(1)),
  A(new Uint8Array(1)), A(new Uint8ClampedArray(1)), A(new Float64Array(1)),
  A(new Int16Array(1)), A([1]), A(Buffer.from([1]))]);

const BYTES = (n) => new Uint8Array(n).map((_, i) => (i * 37 + 11) & 255);
table('util: strings', 'encodeString', [A('hello'), A(''), A('héllo €'), A('x', 'utf8'),
  A('x', ''), A('x', 'latin1')]);
table('util: strings', 'decodeString', [A(new Uint8Array([104, 105])), A(new Uint8Array(0)),
  A(new Uint8Array([0xe2, 0x82, 0xac])), A(new Uint8Array([104, 0, 105, 0]), 'utf-16le'),
  A(new Uint8Array([104]), null), A(new Uint8Array([104]), 'nope')]);

describe('util: hashes', () => {
  for (const n of [0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300]) {
    it(`fingerPrint64 of ${n} bytes`, () => sameUtil('fingerPrint64', A(BYTES(n))));
  }
  it('fingerPrint64 of a prefix and of text', () => {
    sameUtil('fingerPrint64', A(BYTES(40), 20));
    sameUtil('fingerPrint64', () => [new TextEncoder().encode('tidytensor')]);
  });
  for (const hex of ['c3a5c85c97cb3127', '0', 'ff', 'ffffffffffffffff', '10000000000000000',
    '123456789abcdef0123', '-5', 'zz12', '1-2', '']) {
    it(`hexToLong('${hex}')`, () => sameUtil('hexToLong', A(hex)));
  }
  // The Long a tidytensor hex/fingerprint returns answers long.js's methods as tfjs's does.
  const VALUES = ['0', '1', '7', 'ffffffffffffffff', '8000000000000000', '7fffffffffffffff',
    'c3a5c85c97cb3127', '1234567890abcdef'];
  const methods = [
    (x, y) => x.add(y), (x, y) => x.sub(y), (x, y) => x.mul(y), (x, y) => x.and(y),
    (x, y) => x.or(y), (x, y) => x.xor(y), (x, y) => x.compare(y), (x, y) => x.eq(y),
    (x, y) => x.lt(y), (x, y) => x.gte(y), (x, y) => x.div(y), (x, y) => x.mod(y),
    (x) => x.neg(), (x) => x.not(), (x) => x.shl(13), (x) => x.shr(5), (x) => x.shru(37),
    (x) => x.shl(0), (x) => x.toNumber(), (x) => x.toInt(), (x) => x.toString(16),
    (x) => x.toString(36), (x) => x.getNumBitsAbs(), (x) => x.toBytesLE(), (x) => x.toBytesBE(),
    (x) => x.isNegative(), (x) => x.isOdd(), (x) => x.add(3), (x) => x.mul(-2), (x) => x.xor('12'),
  ];
  for (const signed of [false, true]) {
    it(`Long methods (${signed ? 'signed' : 'unsigned'})`, () => {
      for (const a of VALUES) {
        for (const b of VALUES) {
          methods.forEach((m, i) => {
            const mk = (lib, h) => (signed ? lib.util.hexToLong(h).toSigned() :
              lib.util.hexToLong(h));
            const want = call(tfo, (lib) => m(mk(lib, a), mk(lib, b)), () => []);
            const got = call(tt, (lib) => m(mk(lib, a), mk(lib, b)), () => []);
            assert.deepStrictEqual(got, want, `method ${i} of ${a}, ${b}`);
          });
        }
      }
    });
  }
});

describe('util: platform', () => {
  it('now is the platform clock in milliseconds', () => {
    const a = tt.util.now();
    const b = tfo.util.now();
    const c = tt.util.now();
    assert.equal(typeof a, 'number');
    assert.ok(a <= b + 1 && b <= c + 1, `${a} ${b} ${c}`);
  });
  it('fetch uses the platform fetch', async () => {
    const r = await tt.util.fetch('data:,tidy%20tensor');
    assert.equal(await r.text(), 'tidy tensor');
  });
  it('repeatedTry resolves when the check passes', async () => {
    let n = 0;
    const sched = [];
    await tt.util.repeatedTry(() => ++n === 3, (k) => k * 2, undefined,
      (fn, delay) => { sched.push(delay); fn(); });
    assert.equal(n, 3);
    assert.deepStrictEqual(sched, [2, 4]);
  });
  it('repeatedTry rejects after maxCounter tries', async () => {
    let n = 0;
    await assert.rejects(tt.util.repeatedTry(() => { n++; return false; }, () => 0, 3),
      (e) => e === undefined);
    assert.equal(n, 3);
  });
  it('repeatedTry defaults to setTimeout', async () => {
    let n = 0;
    await tt.util.repeatedTry(() => ++n === 2);
    assert.equal(n, 2);
  });
});

// tensor_util with tensors: values, memory counts and leaks through `cases`.
cases('tensor_util', [
  ['getTensorsInContainer', (tf) => {
    const a = tf.scalar(1);
    const b = tf.tensor1d([2, 3], 'int32');
    return tf.tensor_util.getTensorsInContainer({ x: [a, { y: b, z: a }], n: 1, s: 'a', u: null });
  }],
  ['getTensorsInContainer of a tensor', (tf) => tf.tensor_util.getTensorsInContainer(tf.scalar(4))],
  ['getTensorsInContainer of nothing', (tf) => [tf.tensor_util.getTensorsInContainer(null),
    tf.tensor_util.getTensorsInContainer(5), tf.tensor_util.getTensorsInContainer([1, [2]])]],
  ['getTensorsInContainer of a cycle', (tf) => {
    const o = { t: tf.scalar(1) };
    o.self = o;
    o.list = [o, tf.scalar(2)];
    return tf.tensor_util.getTensorsInContainer(o);
  }],
  ['isTensorInList', (tf) => {
    const a = tf.scalar(1);
    const b = tf.scalar(2);
    return [tf.tensor_util.isTensorInList(a, [b, a]), tf.tensor_util.isTensorInList(a, [b]),
      tf.tensor_util.isTensorInList(a, [])];
  }],
  ['makeTypesMatch same dtype', (tf) => {
    const a = tf.scalar(1);
    const b = tf.scalar(2);
    const [x, y] = tf.tensor_util.makeTypesMatch(a, b);
    return [x === a, y === b, x, y];
  }],
  ['makeTypesMatch int32 float32', (tf) => tf.tensor_util.makeTypesMatch(tf.tensor1d([1, 2], 'int32'), tf.tensor1d([0.5]))],
  ['makeTypesMatch bool int32', (tf) => tf.tensor_util.makeTypesMatch(tf.tensor1d([true, false]), tf.scalar(3, 'int32'))],
  ['makeTypesMatch float32 bool', (tf) => tf.tensor_util.makeTypesMatch(tf.scalar(1.5), tf.tensor1d([true]))],
  ['makeTypesMatch string', (tf) => tf.tensor_util.makeTypesMatch({ dtype: 'string' }, tf.scalar(1))],
  ['makeTypesMatch float32 string', (tf) => tf.tensor_util.makeTypesMatch(tf.scalar(1), { dtype: 'string' })],
  ['assertTypesMatch', (tf) => tf.tensor_util.assertTypesMatch(tf.scalar(1), tf.scalar(2))],
  ['assertTypesMatch differ', (tf) => tf.tensor_util.assertTypesMatch(tf.scalar(1), tf.scalar(2, 'int32'))],
]);

describe('tensor_util: tidytensor tensors', () => {
  it('makeTypesMatch casts with tf.cast (tidytensor tensors)', () => {
    tt.tidy(() => {
      const [x, y] = tt.tensor_util.makeTypesMatch(tt.scalar(1, 'int32'), tt.scalar(2));
      assert.ok(x instanceof tt.Tensor && y instanceof tt.Tensor);
      assert.deepStrictEqual([x.dtype, y.dtype], ['float32', 'float32']);
    });
  });
  it('assertTypesMatch text', () => {
    throwsMsg(() => tt.tensor_util.assertTypesMatch({ dtype: 'bool' }, { dtype: 'int32' }),
      'The dtypes of the first(bool) and second(int32) input must match');
  });
});

describe('tf.test_util', () => {
  const { it: t } = require('node:test');
  const { tt, tfo, assert: a } = require('./helpers/setup');
  t("asserts as tfjs's test_util asserts, with its texts", () => {
    const run = (lib) => {
      const T = lib.test_util;
      return [() => T.expectArraysClose([1, 2], [1, 2.0005]), () => T.expectArraysClose([1, 2], [1, 2.1]),
        () => T.expectArraysClose(new Float32Array([1]), [1]), () => T.expectArraysEqual([[1, 2]], [[1, 2]]),
        () => T.expectArraysClose([[1], [2]], [1, 2]), () => T.expectNumbersClose(1, 1.01),
        () => T.expectValuesInRange([1, 5], 0, 3), () => T.expectArraysEqual(['a'], 'a'),
        () => T.expectArraysClose(new Float32Array([1]), new Int32Array([1])), () => T.testEpsilon(),
        () => T.expectArrayBuffersEqual(new Float32Array([1, 2]).buffer, new Float32Array([1, 3]).buffer),
        () => JSON.stringify(T.encodeStrings([['a', 'é']])), () => T.TEST_EPSILON_FLOAT16,
      ].map((f) => { try { return String(f()); } catch (e) { return e.message; } });
    };
    a.deepEqual(run(tt), run(tfo));
  });
});
