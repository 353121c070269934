'use strict';
// The JavaScript/native boundary under hostile arguments (issue 23): a value of the wrong type
// where the native side takes a number, boolean or string never shows napi-rs's converter text
// ("Failed to convert napi value String into rust type `f64`"); tidytensor gives tfjs 4.22's
// behaviour where tfjs defines one, else a text naming the argument. Every failing call leaves
// tf.memory() as it was. Also: huge or non-advancing numbers in JavaScript loops throw instead
// of hanging.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const tf = require('..');
const tfjs = require('@tensorflow/tfjs');
const native = require('../lib/native');

const CONVERTER = /Failed to convert (napi|JavaScript) value|into rust type/;

test.before(async () => {
  await tfjs.setBackend('cpu');
  tfjs.backend().firstUse = false;
});

// What `f(lib)` gives: { threw, message } or { value } (a tensor's values as a plain array).
function outcome(lib, f) {
  try {
    const r = f(lib);
    if (r instanceof lib.Tensor) {
      const value = Array.from(r.dataSync());
      r.dispose();
      return { value };
    }
    return { value: r };
  } catch (e) {
    return { threw: true, message: String(e && e.message) };
  }
}

// `f` on tidytensor: when it throws, no converter text and no tensor left behind; returns the
// outcome.
function onTidytensor(f) {
  const before = tf.memory().numTensors;
  const got = outcome(tf, f);
  if (got.threw) {
    assert.doesNotMatch(got.message, CONVERTER);
    assert.equal(tf.memory().numTensors, before, `tensors left behind by a call that threw ${got.message}`);
  }
  return got;
}

// Plain values compared with NaN equal to NaN and numbers to float32 precision.
function same(a, b) {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok((Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b)), `${a} vs ${b}`);
  } else if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
    assert.deepEqual(Object.keys(a), Object.keys(b));
    for (const k of Object.keys(a)) same(a[k], b[k]);
  } else {
    assert.equal(a, b);
  }
}

// `f` gives what tfjs gives: the same values, or both throw.
function likeTfjs(f) {
  const got = onTidytensor(f);
  const want = outcome(tfjs, f);
  assert.equal(!!got.threw, !!want.threw, `tidytensor ${JSON.stringify(got)}, tfjs ${JSON.stringify(want)}`);
  if (!want.threw) same(got.value, want.value);
  return got;
}

const BAD_NUMBERS = [['a string', 'x'], ['a numeric string', '0.5'], ['an object', {}], ['true', true],
  ['a list', [1]], ['a function', () => 1], ['null', null], ['NaN', NaN]];

test('batchNorm reads varianceEpsilon as a JavaScript number, as tfjs does', () => {
  for (const [what, eps] of BAD_NUMBERS) {
    // tfjs's kernel adds a string epsilon to the variance as a string ('0.5', [1]): not copied.
    if ((typeof eps === 'string' && eps !== 'x') || Array.isArray(eps)) continue;
    const f = (lib) => lib.tidy(() => lib.batchNorm(lib.tensor([[1, -2], [3, 4]]), [1, 2], [1, 2], [1, 2], [1, 2], eps));
    assert.doesNotThrow(() => likeTfjs(f), what);
  }
  const got = onTidytensor((lib) => lib.tidy(() => lib.batchNorm([[1, -2]], [1, 2], [1, 2], null, null, '0.5')));
  same(got.value, onTidytensor((lib) => lib.tidy(() => lib.batchNorm([[1, -2]], [1, 2], [1, 2], null, null, 0.5))).value);
});

test('fused ops read leakyreluAlpha as tfjs multiplies by it (null is 0, undefined the default)', () => {
  const x = (lib) => lib.tensor4d([1, -2, 3, -4], [1, 2, 2, 1]);
  for (const [what, alpha] of [...BAD_NUMBERS, ['undefined', undefined]]) {
    const mm = (lib) => lib.tidy(() => lib.fused.matMul({ a: [[1, -2], [3, 4]], b: [[1, 0], [0, 1]], activation: 'leakyrelu', leakyreluAlpha: alpha }));
    assert.doesNotThrow(() => likeTfjs(mm), `matMul ${what}`);
    const conv = (lib) => lib.tidy(() => lib.fused.conv2d({ x: x(lib), filter: lib.ones([1, 1, 1, 1]), strides: 1, pad: 'same', activation: 'leakyrelu', leakyreluAlpha: alpha }));
    // tfjs's conv2d has no default alpha: undefined multiplies to NaN there (tidytensor: 0.2).
    if (alpha !== undefined) assert.doesNotThrow(() => likeTfjs(conv), `conv2d ${what}`);
    const dw = (lib) => lib.tidy(() => lib.fused.depthwiseConv2d({ x: x(lib), filter: lib.ones([1, 1, 1, 1]), strides: 1, pad: 'same', activation: 'leakyrelu', leakyreluAlpha: alpha }));
    if (alpha !== undefined) assert.doesNotThrow(() => likeTfjs(dw), `depthwiseConv2d ${what}`);
  }
});

// minimize() once on a fresh variable; the variable's values and the optimizer's config.
const step = (make) => (lib) => {
  const opt = make(lib);
  const init = lib.tensor1d([1, 2]);
  const v = lib.variable(init);
  init.dispose();
  try {
    opt.minimize(() => v.square().sum());
    return [Array.from(v.dataSync()), opt.getConfig()];
  } finally {
    v.dispose();
    opt.dispose();
  }
};

test("optimizers take tfjs's learning rates: 'fast' trains to NaN, null to nothing, '0.5' as 0.5", () => {
  const makers = {
    sgd: (lib, lr) => lib.train.sgd(lr), momentum: (lib, lr) => lib.train.momentum(lr, 0.9),
    adagrad: (lib, lr) => lib.train.adagrad(lr), adadelta: (lib, lr) => lib.train.adadelta(lr),
    adam: (lib, lr) => lib.train.adam(lr), adamax: (lib, lr) => lib.train.adamax(lr),
    'SGDOptimizer.fromConfig': (lib, lr) => lib.SGDOptimizer.fromConfig(lib.SGDOptimizer, { learningRate: lr }),
  };
  for (const [name, make] of Object.entries(makers)) {
    for (const lr of ['fast', '0.5', null, undefined, {}]) {
      if (lr == null && name === 'momentum') continue; // tfjs: NaN and 0 as for sgd; checked there
      assert.doesNotThrow(() => likeTfjs(step((lib) => make(lib, lr))), `${name}(${String(lr)})`);
    }
  }
  assert.doesNotThrow(() => likeTfjs(step((lib) => {
    const o = lib.train.sgd(0.1);
    o.setLearningRate('fast');
    return o;
  })));
  // AdamOptimizer.fromConfig without betas: tfjs fails making scalar(undefined); tidytensor
  // uses the defaults. Both train to NaN with 'fast' otherwise.
  const adam = onTidytensor(step((lib) => lib.AdamOptimizer.fromConfig(lib.AdamOptimizer, { learningRate: 'fast' })));
  assert.ok(adam.value[0].every(Number.isNaN));
});

test('optimizer hyperparameters that are not numbers throw a text naming them', () => {
  // tfjs makes string tensors of these and fails in minimize() on a dtype check.
  const cases = [
    [(lib) => lib.train.adam(0.1, 'x'), "beta1 for AdamOptimizer must be a number, but got 'x'."],
    [(lib) => lib.train.momentum(0.1, 'x'), "momentum for MomentumOptimizer must be a number, but got 'x'."],
    [(lib) => lib.train.adadelta(0.1, {}), 'rho for AdadeltaOptimizer must be a number, but got [object Object].'],
    [(lib) => lib.train.adamax(0.1, 0.9, 0.999, null, 'x'), "decay for AdamaxOptimizer must be a number, but got 'x'."],
    [(lib) => lib.train.adagrad(0.1, 'x'), "initialAccumulatorValue for AdagradOptimizer must be a number, but got 'x'."],
    [(lib) => lib.train.rmsprop('fast'), "learningRate for RMSPropOptimizer must be a number, but got 'fast'."],
    [(lib) => lib.train.rmsprop(0.1, 0.9, 'x'), "momentum for RMSPropOptimizer must be a number, but got 'x'."],
  ];
  for (const [make, text] of cases) {
    const got = onTidytensor(step(make));
    assert.equal(got.message, text);
    assert.ok(outcome(tfjs, step(make)).threw, 'tfjs fails too');
  }
  // A boolean is 0 or 1; useNesterov and centered are read by truthiness, as in tfjs.
  likeTfjs(step((lib) => lib.train.rmsprop(0.1, 0.9, true)));
  likeTfjs(step((lib) => lib.train.momentum(0.1, 0.5, 0)));
  likeTfjs(step((lib) => lib.train.rmsprop(0.1, 0.9, 0, null, 1)));
});

test('applyGradients: TensorLike gradients as in tfjs; names that are not strings find no variable', () => {
  const apply = (grads) => (lib) => {
    const opt = lib.train.sgd(0.1);
    const init = lib.tensor1d([1, 2]);
    const v = lib.variable(init, true, 'boundary_v');
    init.dispose();
    try {
      opt.applyGradients(grads(v));
      return Array.from(v.dataSync());
    } finally {
      v.dispose();
      opt.dispose();
    }
  };
  likeTfjs(apply((v) => [{ name: v.name, tensor: [1, 1] }]));
  likeTfjs(apply((v) => ({ [v.name]: [1, 1] })));
  assert.equal(onTidytensor(apply(() => [{ name: 5, tensor: [1, 1] }])).message,
    'Cannot find variable 5 (optimizer.applyGradients)');
  assert.match(onTidytensor(apply((v) => ({ [v.name]: 'x' }))).message, /must be numeric tensor, but got string tensor/);
});

test('customGrad: save() takes an array of tensors, and the tape still works after a bad one', () => {
  const run = (saveArg) => (lib) => {
    const f = lib.customGrad((x, save) => {
      save(saveArg(x));
      return { value: x.square(), gradFunc: (dy) => [dy.mul(2)] };
    });
    return lib.tidy(() => lib.grad((x) => f(x))(lib.tensor1d([1, 2])));
  };
  for (const saveArg of [() => [42], (x) => [x, 'a'], () => 42, () => undefined, () => ({})]) {
    const got = onTidytensor(run(saveArg));
    assert.ok(got.threw);
    assert.match(got.message, /^save\(\) in customGrad\(f\) takes an array of tensors, but (got|element \d+ is) /);
    assert.ok(outcome(tfjs, run(saveArg)).threw, 'tfjs fails too (a TypeError)');
  }
  likeTfjs(run((x) => [x]));
  likeTfjs((lib) => lib.tidy(() => lib.grad((x) => x.square())(lib.tensor1d([3]))));
});

test("a tensor's shape set to one its values do not fill: arraySync throws tfjs's error at once", async () => {
  for (const lib of [tf, tfjs]) {
    const t = lib.tensor([1, 2, 3]);
    t.shape = [1e9];
    assert.deepEqual(t.shape, [1e9]);
    assert.throws(() => t.arraySync(), { message: '[1000000000] does not match the input size 3.' });
    await assert.rejects(t.array(), { message: '[1000000000] does not match the input size 3.' });
    t.shape = [3, 1];
    assert.deepEqual(t.arraySync(), [[1], [2], [3]]);
    t.dispose();
  }
  const c = tf.complex([1, 2], [3, 4]);
  c.shape = [5];
  assert.throws(() => c.arraySync(), { message: '[5] does not match the input size 4 for a complex tensor.' });
  c.dispose();
});

test('loops that would never end throw: signal.frame with a step that does not advance, fingerPrint64 lengths', () => {
  const signal = tf.tensor1d([1, 2, 3, 4]);
  for (const stepArg of [0, -1, null, '']) {
    const got = onTidytensor((lib) => lib.signal.frame(signal, 2, stepArg));
    // (The step is read as a number: null and '' are 0.)
    assert.equal(got.message, `Error in frame: frameStep must be a positive number, but got ${Number(stepArg)}.`);
    assert.equal(onTidytensor((lib) => lib.signal.frame(signal, 1, stepArg, true)).threw, true);
  }
  signal.dispose();
  // A step that makes the start NaN ends tfjs's loop after one frame.
  likeTfjs((lib) => lib.signal.frame(lib.tensor1d([1, 2, 3, 4]), 2, undefined));
  // No frame to make: tfjs returns the empty result, whatever the step.
  likeTfjs((lib) => lib.signal.frame(lib.tensor1d([1, 2]), 3, 0));
  likeTfjs((lib) => lib.signal.frame(lib.tensor1d([1, 2, 3, 4]), 2, 1));
  const bytes = new Uint8Array(100).fill(7);
  for (const len of [NaN, 64.5, 2 ** 40]) {
    assert.throws(() => tf.util.fingerPrint64(bytes, len),
      { message: `fingerPrint64: len must be a length in bytes, but got ${len}` });
  }
  assert.equal(tf.util.fingerPrint64(bytes, 100).toString(), tfjs.util.fingerPrint64(bytes, 100).toString());
});

test('the native boundary rethrows a converter error as a text naming the function and types', () => {
  const cases = [
    [() => native.linspace('a', 1, 2), 'An argument of linspace must be a number, but got a string.'],
    [() => native.reshape(undefined, [1]), 'An argument of reshape must be a number, but got undefined.'],
    [() => new native.NativeOptimizer('sgd', 0.1, [], 0), 'An argument of new NativeOptimizer must be a boolean.'],
  ];
  for (const [f, text] of cases) {
    assert.throws(f, (e) => {
      assert.equal(e.message, text);
      assert.match(e.cause.message, CONVERTER);
      return true;
    });
  }
  const opt = new native.NativeOptimizer('sgd', 0.1, [], false);
  assert.ok(opt instanceof native.NativeOptimizer);
  assert.throws(() => opt.setLearningRate('x'),
    { message: 'An argument of NativeOptimizer.setLearningRate must be a number, but got a string.' });
  opt.dispose();
  // Other errors pass through unchanged.
  assert.throws(() => new native.NativeOptimizer('nope', 0.1, [], false), { message: 'Unknown optimizer nope' });
});

test('a tf.layers.Layer subclass written for tfjs (super(config)) is a layer, not a converter error', () => {
  class PixelShuffle extends tf.layers.Layer {
    constructor(config) {
      super(config);
    }
  }
  const before = tf.memory().numTensors;
  const layer = new PixelShuffle({ name: 'ps' });
  assert.equal(layer.name, 'ps');
  assert.equal(layer.getClassName(), 'PixelShuffle');
  assert.equal(tf.memory().numTensors, before);
});
