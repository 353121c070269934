'use strict';
// Creation: tensor()/scalar()/tensorNd() (dtype and shape inference, conversions, error
// texts) and the creation ops, differentially against @tensorflow/tfjs.
const { describe, it } = require('node:test');
const { tt, tfo, assert, same, throwsMsg } = require('./helpers/setup');
const { F, I, Bo, cases } = require('./helpers/ops');

cases('tensor()', [
  ['number', (tf) => tf.tensor(3)],
  ['boolean', (tf) => tf.tensor(true)],
  ['flat array', (tf) => tf.tensor([1, 2, 3])],
  ['nested 2d', (tf) => tf.tensor([[1, 2], [3, 4]])],
  ['nested 3d', (tf) => tf.tensor([[[1], [2]], [[3], [4]]])],
  ['flat + shape', (tf) => tf.tensor([1, 2, 3, 4, 5, 6], [2, 3])],
  ['flat + shape + dtype', (tf) => tf.tensor([1, 2, 3, 4], [2, 2], 'int32')],
  ['nested + matching shape', (tf) => tf.tensor([[1, 2], [3, 4]], [2, 2])],
  ['nested + flattening shape', (tf) => tf.tensor([[1, 2], [3, 4]], [2, 2, 1])],
  ['booleans', (tf) => tf.tensor([[true, false], [false, true]])],
  ['numbers as bool', (tf) => tf.tensor([0, 2, -0.4, 0.6, -3], undefined, 'bool')],
  ['floats as int32', (tf) => tf.tensor([1.7, -1.7, 2.5], undefined, 'int32')],
  ['bools as float32', (tf) => tf.tensor([true, false], undefined, 'float32')],
  ['Float32Array', (tf) => tf.tensor(new Float32Array([1.5, 2]))],
  ['Int32Array', (tf) => tf.tensor(new Int32Array([1, 2]))],
  ['Uint8Array', (tf) => tf.tensor(new Uint8Array([1, 255]))],
  ['Uint8ClampedArray', (tf) => tf.tensor(new Uint8ClampedArray([1, 2]))],
  ['typed array + shape + dtype', (tf) => tf.tensor(new Float32Array([1, 2, 3, 4]), [2, 2], 'int32')],
  ['Int32Array as bool', (tf) => tf.tensor(new Int32Array([0, 3]), [2], 'bool')],
  ['nested typed arrays', (tf) => tf.tensor([new Float32Array([1, 2]), new Float32Array([3, 4])])],
  ['empty', (tf) => tf.tensor([])],
  ['empty nested', (tf) => tf.tensor([[]])],
  ['empty with shape', (tf) => tf.tensor([], [0, 5])],
  ['large', (tf) => tf.tensor(Array.from({ length: 1000 }, (_, i) => i / 7))],
  ['NaN and Infinity', (tf) => tf.tensor([NaN, Infinity, -Infinity])],
  ['int32 overflow wraps', (tf) => tf.tensor([2 ** 31, -(2 ** 31) - 1], undefined, 'int32')],
  ['size mismatch', (tf) => tf.tensor([1, 2, 3], [2, 2])],
  ['inferred shape mismatch', (tf) => tf.tensor([[1, 2], [3, 4]], [1, 4])],
  ['inferred shape mismatch flat', (tf) => tf.tensor([[1, 2], [3, 4]], [4])],
  ['negative dim', (tf) => tf.tensor([1], [-1])],
  ['fractional dim', (tf) => tf.tensor([1], [1.5])],
  ['null', (tf) => tf.tensor(null)],
  ['undefined', (tf) => tf.tensor(undefined)],
  ['object', (tf) => tf.tensor({ a: 1 })],
  ['Float64Array', (tf) => tf.tensor(new Float64Array([1]))],
  ['unknown dtype', (tf) => tf.tensor([1], undefined, 'float64')],
  ['complex64', (tf) => tf.tensor([1], undefined, 'complex64')],
]);

cases('scalar and tensorNd', [
  ['scalar', (tf) => tf.scalar(3.5)],
  ['scalar int32', (tf) => tf.scalar(3.5, 'int32')],
  ['scalar bool', (tf) => tf.scalar(false)],
  ['scalar array', (tf) => tf.scalar([1])],
  ['scalar typed array', (tf) => tf.scalar(new Float32Array([1]))],
  ['tensor1d', (tf) => tf.tensor1d([1, 2])],
  ['tensor1d int32', (tf) => tf.tensor1d([1, 2], 'int32')],
  ['tensor1d nested', (tf) => tf.tensor1d([[1]])],
  ['tensor1d scalar', (tf) => tf.tensor1d(1)],
  ['tensor1d null', (tf) => tf.tensor1d(null)],
  ['tensor2d', (tf) => tf.tensor2d([[1, 2]])],
  ['tensor2d flat + shape', (tf) => tf.tensor2d([1, 2, 3, 4], [2, 2])],
  ['tensor2d flat no shape', (tf) => tf.tensor2d([1, 2])],
  ['tensor2d bad shape', (tf) => tf.tensor2d([1, 2], [2])],
  ['tensor2d rank 3 values', (tf) => tf.tensor2d([[[1]]])],
  ['tensor3d', (tf) => tf.tensor3d([[[1, 2]]])],
  ['tensor3d flat', (tf) => tf.tensor3d([1, 2, 3, 4], [1, 2, 2])],
  ['tensor3d flat no shape', (tf) => tf.tensor3d([1, 2])],
  ['tensor3d bad values', (tf) => tf.tensor3d([[1]])],
  ['tensor3d bad shape', (tf) => tf.tensor3d([1], [1])],
  ['tensor4d', (tf) => tf.tensor4d([[[[1, 2]]]])],
  ['tensor4d flat', (tf) => tf.tensor4d([1, 2], [1, 1, 1, 2])],
  ['tensor4d no shape', (tf) => tf.tensor4d([1, 2])],
  ['tensor4d bad shape', (tf) => tf.tensor4d([1, 2], [2])],
  ['tensor4d bad values', (tf) => tf.tensor4d([[1]])],
  ['tensor5d', (tf) => tf.tensor5d([[[[[1, 2]]]]])],
  ['tensor5d flat', (tf) => tf.tensor5d([1, 2], [1, 1, 1, 1, 2])],
  ['tensor5d no shape', (tf) => tf.tensor5d([1, 2])],
  ['tensor5d bad shape', (tf) => tf.tensor5d([1, 2], [2])],
  ['tensor5d bad values', (tf) => tf.tensor5d([[1]])],
  ['tensor6d', (tf) => tf.tensor6d([[[[[[1, 2]]]]]])],
  ['tensor6d flat', (tf) => tf.tensor6d([1, 2], [1, 1, 1, 1, 1, 2])],
  ['tensor6d no shape', (tf) => tf.tensor6d([1, 2])],
  ['tensor6d bad shape', (tf) => tf.tensor6d([1, 2], [2])],
  ['tensor6d bad values', (tf) => tf.tensor6d([[1]])],
]);

describe('ragged nested arrays (tfjs debug-mode messages, always checked here)', () => {
  const ragged = [
    [[1, 2], [3]],
    [[1, 2], 3],
    [1, [2]],
    [[[1, 2], [3, 4]], [[5, 6], [7]]],
    [[1, 2], [3, [4]]],
  ];
  for (const values of ragged) {
    it(JSON.stringify(values), () => {
      tfo.env().set('TENSORLIKE_CHECK_SHAPE_CONSISTENCY', true);
      let want;
      try {
        tfo.tensor(values);
      } catch (e) {
        want = e.message;
      } finally {
        tfo.env().set('TENSORLIKE_CHECK_SHAPE_CONSISTENCY', false);
      }
      assert.ok(want, 'tfjs rejects it in debug mode');
      const n0 = tt.memory().numTensors;
      throwsMsg(() => tt.tensor(values), want);
      throwsMsg(() => tt.add(values, 1), want);
      assert.equal(tt.memory().numTensors, n0);
    });
  }
});

describe('values, shapes and reading', () => {
  it('arraySync/array give nested arrays (bool as 0/1 numbers, like tfjs)', async () => {
    for (const lib of [tt, tfo]) {
      const b = lib.tensor([[true, false]]);
      assert.deepEqual(b.arraySync(), [[1, 0]]);
      assert.deepEqual(await b.array(), [[1, 0]]);
      const s = lib.scalar(4);
      assert.equal(s.arraySync(), 4);
      const e = lib.zeros([2, 0]);
      assert.deepEqual(e.arraySync(), []);
      const r = lib.range(0, 24).reshape([2, 3, 4]);
      assert.deepEqual(r.arraySync(), tfo.range(0, 24).reshape([2, 3, 4]).arraySync());
      lib.dispose([b, s, e, r]);
    }
  });

  it('dataSync returns a copy that is safe to mutate', () => {
    const t = tt.tensor1d([1, 2, 3]);
    const v = t.dataSync();
    v[0] = 100;
    assert.equal(t.dataSync()[0], 1);
    t.dispose();
  });

  it('data() resolves with the values', async () => {
    const t = tt.tensor1d([1, 2, 3], 'int32');
    const v = await t.data();
    assert.ok(v instanceof Int32Array);
    assert.deepEqual(Array.from(v), [1, 2, 3]);
    t.dispose();
  });

  it('random ops: shapes, dtypes, ranges, seeds', () => {
    const n0 = tt.memory().numTensors;
    const n = tt.randomNormal([1000], 2, 0.5, undefined, 7);
    assert.deepEqual(n.shape, [1000]);
    assert.equal(n.dtype, 'float32');
    const nv = n.dataSync();
    const mean = nv.reduce((a, b) => a + b, 0) / nv.length;
    assert.ok(Math.abs(mean - 2) < 0.1, `mean ${mean}`);
    const n2 = tt.randomNormal([1000], 2, 0.5, 'float32', 7);
    assert.deepEqual(Array.from(n2.dataSync()), Array.from(nv), 'same seed, same values');
    const u = tt.randomUniform([2, 500], -1, 3);
    assert.deepEqual(u.shape, [2, 500]);
    for (const x of u.dataSync()) assert.ok(x >= -1 && x < 3);
    const ui = tt.randomUniform([100], 0, 10, 'int32', 3);
    assert.equal(ui.dtype, 'int32');
    // int32 samples are rounded (tfjs's Math.round), so 10 can appear.
    for (const x of ui.dataSync()) assert.ok(x >= 0 && x <= 10 && Number.isInteger(x));
    const t = tt.truncatedNormal([1000], 0, 1, 'float32', 1);
    for (const x of t.dataSync()) assert.ok(Math.abs(x) <= 2);
    const ni = tt.randomNormal([10], 0, 3, 'int32');
    assert.equal(ni.dtype, 'int32');
    throwsMsg(() => tt.randomNormal([2], 0, 1, 'bool'), 'Unsupported data type bool');
    throwsMsg(() => tt.randomUniform([-2]),
      'Tensor must have a shape comprised of positive integers but got shape [-2].');
    tt.dispose([n, n2, u, ui, t, ni]);
    assert.equal(tt.memory().numTensors, n0);
  });
});

cases('creation ops', [
  ['zeros', (tf) => tf.zeros([2, 3])],
  ['zeros int32', (tf) => tf.zeros([2], 'int32')],
  ['zeros bool', (tf) => tf.zeros([2], 'bool')],
  ['zeros scalar', (tf) => tf.zeros([])],
  ['zeros empty', (tf) => tf.zeros([0])],
  // Dimensions past 2^31 must reach JS unwrapped (shapes travel as doubles).
  ['zeros with a dimension of 2^32', (tf) => tf.zeros([0, 2 ** 32])],
  ['reshape to a dimension of 2^40', (tf) => tf.zeros([3, 0]).reshape([2 ** 40, 0])],
  ['zeros bad shape', (tf) => tf.zeros([-1])],
  ['zeros float shape', (tf) => tf.zeros([1.5])],
  ['ones', (tf) => tf.ones([3, 1])],
  ['ones int32', (tf) => tf.ones([3], 'int32')],
  ['ones bool', (tf) => tf.ones([3], 'bool')],
  ['fill', (tf) => tf.fill([2, 2], 7)],
  ['fill int32', (tf) => tf.fill([2], 3.7, 'int32')],
  ['fill bool inferred', (tf) => tf.fill([2], true)],
  ['fill negative', (tf) => tf.fill([3], -2.5)],
  ['zerosLike', (tf) => tf.zerosLike(I(tf))],
  ['onesLike', (tf) => tf.onesLike(Bo(tf))],
  ['zerosLike chained', (tf) => F(tf).zerosLike()],
  ['onesLike array', (tf) => tf.onesLike([1, 2])],
  ['range', (tf) => tf.range(0, 5)],
  ['range step', (tf) => tf.range(1, 10, 3)],
  ['range negative step', (tf) => tf.range(5, 0, -2)],
  ['range fractional', (tf) => tf.range(0, 1, 0.3)],
  ['range int32', (tf) => tf.range(0, 5, 2, 'int32')],
  ['range empty', (tf) => tf.range(5, 0)],
  ['range zero step', (tf) => tf.range(0, 5, 0)],
  ['range with only a start', (tf) => tf.range(3)],
  ['linspace', (tf) => tf.linspace(0, 1, 5)],
  ['linspace one', (tf) => tf.linspace(3, 9, 1)],
  ['linspace descending', (tf) => tf.linspace(10, -10, 7)],
  ['linspace zero', (tf) => tf.linspace(0, 1, 0)],
  ['eye', (tf) => tf.eye(3)],
  ['eye rect', (tf) => tf.eye(2, 4)],
  ['eye tall', (tf) => tf.eye(4, 2)],
  ['eye int32', (tf) => tf.eye(2, 2, null, 'int32')],
  ['eye batch 1', (tf) => tf.eye(2, 3, [2])],
  ['eye batch 2', (tf) => tf.eye(2, 2, [2, 3])],
  ['oneHot', (tf) => tf.oneHot(tf.tensor1d([0, 2, 1], 'int32'), 3)],
  ['oneHot array', (tf) => tf.oneHot([1, 0], 2)],
  ['oneHot on/off', (tf) => tf.oneHot([1, 3], 4, 5, -1)],
  ['oneHot float32 dtype', (tf) => tf.oneHot([1, 3], 4, 0.5, 0, 'float32')],
  ['oneHot out of range', (tf) => tf.oneHot([-1, 5], 3)],
  ['oneHot 2d', (tf) => tf.oneHot([[0, 1], [1, 0]], 2)],
  ['oneHot depth 1', (tf) => tf.oneHot([0], 1)],
  ['oneHot float indices', (tf) => tf.oneHot(tf.tensor1d([0, 1]), 3)],
]);

describe('re-entrant creation', () => {
  it('a valueOf that makes a tensor while values are copied corrupts nothing', () => {
    const before = tt.memory().numTensors;
    const inner = [];
    const evil = { valueOf() { inner.push(tt.tensor([5, 5, 5, 5])); return 3; } };
    const t = tt.tensor([[1, 2], [evil, 4]]);
    assert.deepEqual(Array.from(t.dataSync()), [1, 2, 3, 4]);
    assert.deepEqual(Array.from(inner[0].dataSync()), [5, 5, 5, 5]);
    tt.dispose([t, inner]);
    assert.equal(tt.memory().numTensors, before);
  });
});

describe('tensors of another library', () => {
  it('are refused with a message that says what to do', () => {
    const before = tt.memory().numTensors;
    const foreign = tfo.tensor([1, 2]);
    assert.throws(() => tt.add(foreign, 1),
      /Argument 'a' passed to 'add' is a tensor of another TensorFlow\.js library/);
    const mine = tt.tensor([1]);
    assert.throws(() => tt.concat([mine, foreign]), /passed to 'concat' is a tensor of another/);
    mine.dispose();
    foreign.dispose();
    assert.equal(tt.memory().numTensors, before);
  });
});

describe('multinomial', () => {
  const { tt: tf, assert: a, same: sameAs } = require('./helpers/setup');
  it('draws by the probabilities, reproducibly with a seed, leaving nothing behind', () => {
    const before = tf.memory().numTensors;
    const s = tf.multinomial([0.2, 0.8], 20000, 7, true);
    a.deepEqual([s.shape, s.dtype], [[20000], 'int32']);
    const v = s.dataSync();
    const ones = v.reduce((n, x) => n + x, 0) / v.length;
    a.ok(Math.abs(ones - 0.8) < 0.02, `frequency of 1: ${ones}`);
    tf.tidy(() => {
      a.deepEqual(Array.from(tf.multinomial([0.2, 0.8], 50, 7, true).dataSync()), Array.from(v.slice(0, 50)));
      const logits = tf.tensor2d([[0, -Infinity, -Infinity], [-Infinity, -Infinity, 0]]);
      a.deepEqual(tf.multinomial(logits, 4, 1).arraySync(), [[0, 0, 0, 0], [2, 2, 2, 2]]);
    });
    s.dispose();
    a.equal(tf.memory().numTensors, before);
  });
  it("has tfjs's errors", () => {
    sameAs((t) => t.multinomial([1], 2));
    sameAs((t) => t.multinomial(t.zeros([1, 2, 2]), 2));
  });
});

describe('randomGamma', () => {
  const { tt: tf, assert: a, same: sameAs } = require('./helpers/setup');
  it('has the mean and variance of Gamma(alpha) scaled by beta, reproducibly with a seed', () => {
    const before = tf.memory().numTensors;
    for (const [alpha, beta] of [[2, 1], [0.5, 3], [5, 0.5]]) {
      const t = tf.randomGamma([20000], alpha, beta, 'float32', 11);
      const v = t.dataSync();
      const mean = v.reduce((s, x) => s + x, 0) / v.length;
      const variance = v.reduce((s, x) => s + (x - mean) ** 2, 0) / v.length;
      a.ok(Math.abs(mean - alpha * beta) < 0.05 * alpha * beta, `mean ${mean} for ${alpha}, ${beta}`);
      a.ok(Math.abs(variance - alpha * beta * beta) < 0.1 * alpha * beta * beta, `variance ${variance}`);
      a.ok(v.every((x) => x >= 0));
      const again = tf.randomGamma([10], alpha, beta, 'float32', 11);
      a.deepEqual(Array.from(again.dataSync()), Array.from(v.slice(0, 10)));
      tf.dispose([t, again]);
    }
    const ints = tf.randomGamma([2, 3], 4, 1, 'int32', 3);
    a.deepEqual([ints.shape, ints.dtype], [[2, 3], 'int32']);
    a.ok(Array.from(ints.dataSync()).every(Number.isInteger));
    ints.dispose();
    a.equal(tf.memory().numTensors, before);
  });
  it("has tfjs's errors", () => {
    sameAs((t) => t.randomGamma([2], 1, 1, 'bool'));
    sameAs((t) => t.randomGamma([-1], 1));
  });
});

// Seeded generators are tfjs's (seedrandom's Alea, the polar method, Marsaglia-Tsang): the
// same seed gives the same values.
cases('seeded random ops give tfjs\'s values', [
  ['randomUniform', (tf) => tf.randomUniform([3, 4], 0, 1, 'float32', 42)],
  ['randomUniform string seed, int32 truncates', (tf) => tf.randomUniform([9], -3, 7, 'int32', 'abc')],
  ['randomUniform seed 0', (tf) => tf.randomUniform([4], 0, 1, 'float32', 0)],
  ['randomUniform bool', (tf) => tf.randomUniform([8], 0, 3, 'bool', 7)],
  ['randomNormal', (tf) => tf.randomNormal([2, 5], 1, 2, 'float32', 42)],
  ['randomNormal int32 rounds', (tf) => tf.randomNormal([7], 1, 2, 'int32', 0.5)],
  ['truncatedNormal', (tf) => tf.truncatedNormal([11], -1, 3, 'float32', 3)],
  ['randomStandardNormal', (tf) => tf.randomStandardNormal([5], 'float32', 12)],
  ['randomGamma', (tf) => tf.randomGamma([6], 2, 1.5, 'float32', 42)],
  ['randomGamma alpha < 1 int32', (tf) => tf.randomGamma([6], 0.5, 1, 'int32', 4)],
  ['multinomial', (tf) => tf.multinomial([[1, 2, 3], [0, 0, 5]], 6, 42)],
  ['multinomial normalized, short rows', (tf) => tf.multinomial([0.2, 0.3, 0.4], 8, 11, true)],
]);

cases('dropout, randomUniformInt', [
  ['dropout seeded', (tf) => tf.dropout(tf.ones([3, 4]), 0.5, null, 7)],
  ['dropout noise shape', (tf) => tf.dropout(tf.ones([2, 3]), 0.3, [1, 3], 11)],
  ['dropout rate 0', (tf) => tf.dropout(tf.ones([2, 3]), 0)],
  ['dropout int32', (tf) => tf.dropout(tf.ones([2], 'int32'), 0.5)],
  ['dropout rate 1', (tf) => tf.dropout(tf.ones([2]), 1)],
  ['randomUniformInt', (tf) => tf.randomUniformInt([6], 0, 10, 5)],
]);
