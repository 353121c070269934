'use strict';
// The smoke subset every runtime and platform runs (scripts/test-runtimes.js: Node 22, 24, 26,
// Bun and Deno; the cross-built packages under qemu): a plain CommonJS program, no test
// runner, so that it runs unchanged wherever napi addons load. Each check asserts values and
// that tf.memory() is back where it was; the first failure exits 1. The last line is
// 'smoke: N passed, 0 failed'.
//
//   <runtime> __test__/smoke/smoke.cjs [module]     module: what to require (default: this repo)

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const tf = require(process.argv[2] ? path.resolve(process.argv[2]) : path.join(__dirname, '..', '..'));
const { models } = require('../fixtures/graph/generate');

const close = (got, want, tol = 1e-5) => {
  assert.equal(got.length, want.length, `length ${got.length} vs ${want.length}`);
  for (let i = 0; i < got.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])), `[${i}]: ${got[i]} vs ${want[i]}`);
  }
};

const checks = [];
const check = (name, fn) => checks.push([name, fn]);

check('ops, tidy and memory', () => {
  const y = tf.tidy(() => {
    const a = tf.tensor2d([[1, 2], [3, 4]]);
    return a.matMul(a).add(tf.scalar(1)).relu();
  });
  assert.deepEqual(y.shape, [2, 2]);
  assert.deepEqual(Array.from(y.dataSync()), [8, 11, 16, 23]);
  y.dispose();
  const x = tf.tensor1d([1, 2, 3, 4]);
  const { mean, variance } = tf.moments(x);
  close([mean.dataSync()[0], variance.dataSync()[0]], [2.5, 1.25]);
  tf.dispose([x, mean, variance]);
});

check('layers model: fit, save, load, predict', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tidytensor-smoke-'));
  try {
    const model = tf.sequential({
      layers: [
        tf.layers.dense({ units: 8, activation: 'relu', inputShape: [3], kernelInitializer: 'glorotUniform' }),
        tf.layers.dense({ units: 1 }),
      ],
    });
    const optimizer = tf.train.adam(0.05);
    model.compile({ optimizer, loss: 'meanSquaredError' });
    // y = x0 + 2 x1 - x2 on a fixed grid.
    const xs = [];
    const ys = [];
    for (let i = 0; i < 64; i++) {
      const v = [((i * 7) % 11) / 5 - 1, ((i * 5) % 13) / 6 - 1, ((i * 3) % 7) / 3 - 1];
      xs.push(v);
      ys.push([v[0] + 2 * v[1] - v[2]]);
    }
    const x = tf.tensor2d(xs);
    const y = tf.tensor2d(ys);
    const h = await model.fit(x, y, { epochs: 30, batchSize: 16, verbose: 0 });
    const losses = h.history.loss;
    assert.ok(losses[losses.length - 1] < losses[0] / 4, `loss ${losses[0]} -> ${losses[losses.length - 1]}`);
    const before = model.predict(x);
    await model.save(`file://${dir}`);
    const loaded = await tf.loadLayersModel(`file://${path.join(dir, 'model.json')}`);
    const after = loaded.predict(x);
    close(Array.from(after.dataSync()), Array.from(before.dataSync()), 1e-6);
    tf.dispose([before, after, x, y]);
    model.dispose();
    loaded.dispose();
    optimizer.dispose(); // the caller's, as in tfjs: the model does not own it
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

check('graph model: the same values as its ops', async () => {
  const artifacts = models().mlp.artifacts();
  const model = await tf.loadGraphModel(tf.io.fromMemory(artifacts));
  const w = tf.io.decodeWeights(artifacts.weightData, artifacts.weightSpecs);
  const x = tf.tensor2d(Array.from({ length: 24 }, (_, i) => Math.sin(i)), [3, 8]);
  const got = model.predict(x);
  const want = tf.tidy(() => {
    const h1 = x.matMul(w['dense/kernel']).add(w['dense/bias']).relu();
    const h2 = h1.matMul(w['dense_1/kernel']).add(w['dense_1/bias']).relu();
    return tf.softmax(h2.matMul(w['logits/kernel'], false, true).add(w['logits/bias']));
  });
  assert.deepEqual(got.shape, [3, 5]);
  close(Array.from(got.dataSync()), Array.from(want.dataSync()));
  tf.dispose([got, want, x, ...Object.values(w)]);
  model.dispose();
});

check('tidyAsync', async () => {
  const r = await tf.tidyAsync(async () => {
    const a = tf.ones([4]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const b = a.mul(3);
    return b.sum();
  });
  assert.equal((await r.data())[0], 12);
  r.dispose();
});

(async () => {
  const backend = process.env.TIDYTENSOR_BACKEND || 'cpu';
  assert.equal(await tf.setBackend(backend), true, `backend ${backend}`);
  let passed = 0;
  for (const [name, fn] of checks) {
    const start = tf.memory().numTensors;
    try {
      await fn();
      assert.equal(tf.memory().numTensors, start, 'tensors left behind');
    } catch (e) {
      console.log(`not ok ${name}: ${e && e.stack ? e.stack : e}`);
      console.log(`smoke: ${passed} passed, 1 failed`);
      process.exit(1);
    }
    passed++;
    console.log(`ok ${name}`);
  }
  console.log(`smoke: ${passed} passed, 0 failed`);
})();
