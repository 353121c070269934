'use strict';
// Serving (issue 29): predictions on tidytensor's serving thread (GraphModel.executeAsync and
// predictAsync, LayersModel.predictAsync), the weights threads share, tf.serving.batcher. Each
// test checks its values against the synchronous predict and that tf.memory() (and the serving
// thread's own counts) come back to where they started.
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { describe, it } = require('node:test');
const { tt, assert } = require('./helpers/setup');
const { models } = require('./fixtures/graph/generate');
const { mobilenetArtifacts } = require('../bench/graph');

const ROOT = path.join(__dirname, '..');
const counts = () => {
  const m = tt.memory();
  return { numTensors: m.numTensors, numBytes: m.numBytes, numDataBuffers: m.numDataBuffers };
};
// A model's outputs (a tensor or a list) as lists of values.
const valuesOf = (out) => (Array.isArray(out) ? out : [out]).map((t) => Array.from(t.dataSync()));
const sameValues = (a, b) => assert.deepEqual(valuesOf(a), valuesOf(b));

// The serving thread's counts once the work queued before has run: nothing but what `replicas`
// models hold.
async function servingIsEmpty(replicas = 0) {
  const m = await tt.serving.memory();
  assert.equal(m.replicas, replicas);
  if (replicas === 0) assert.deepEqual({ numTensors: m.numTensors, numBytes: m.numBytes }, { numTensors: 0, numBytes: 0 });
}

function smallModel() {
  return tt.sequential({
    layers: [
      tt.layers.dense({ units: 16, inputShape: [6], activation: 'relu' }),
      tt.layers.dense({ units: 4, activation: 'softmax' }),
    ],
  });
}

// Runs `fn` while a 1 ms interval timer records how late each tick comes.
async function withTimer(fn) {
  const lags = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(now - last - 1);
    last = now;
  }, 1);
  try {
    return { result: await fn(), lags };
  } finally {
    clearInterval(timer);
  }
}

describe('predictions off the JavaScript thread', () => {
  it('GraphModel.executeAsync/predictAsync: the event loop runs meanwhile; values equal predict()', async () => {
    const before = counts();
    const model = await tt.loadGraphModel(tt.io.fromMemory(mobilenetArtifacts()));
    const batch = tt.getBackend() === 'cpu' ? 8 : 1;
    const x = tt.randomUniform([batch, 224, 224, 3]);
    const sync = model.predict(x);
    const t0 = performance.now();
    tt.dispose(model.predict(x));
    const oneSync = performance.now() - t0;
    const { result, lags } = await withTimer(async () => {
      const out = [];
      for (let i = 0; i < 4; i++) out.push(await model.predictAsync(x));
      out.push(await model.executeAsync(x));
      return out;
    });
    // On this thread the timer could not fire for a whole prediction; off it, it keeps pace.
    const sorted = [...lags].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1];
    assert.ok(lags.length >= 10, `the timer fired ${lags.length} times`);
    assert.ok(median < oneSync / 4, `median lag ${median} ms against ${oneSync} ms per prediction`);
    for (const r of result) sameValues(r, sync);
    tt.dispose([...result, sync, x]);
    model.dispose();
    assert.deepEqual(counts(), before);
    await servingIsEmpty();
  });

  it('LayersModel.predictAsync: Sequential and functional models, after training too', async () => {
    const before = counts();
    const m = smallModel();
    const x = tt.randomNormal([10, 6]);
    let [a, b] = [m.predict(x), await m.predictAsync(x, { batchSize: 3 })];
    sameValues(a, b);
    tt.dispose([a, b]);
    // New weights reach the serving thread's copy.
    m.compile({ optimizer: 'sgd', loss: 'categoricalCrossentropy' });
    const y = tt.tidy(() => tt.oneHot(tt.tensor1d([0, 1, 2, 3, 0, 1, 2, 3, 0, 1], 'int32'), 4));
    await m.fit(x, y, { epochs: 2, verbose: 0 });
    [a, b] = [m.predict(x), await m.predictAsync(x)];
    sameValues(a, b);
    tt.dispose([a, b]);

    const input = tt.input({ shape: [6] });
    const hidden = tt.layers.dense({ units: 5, activation: 'tanh' }).apply(input);
    const f = tt.model({ inputs: input, outputs: [tt.layers.dense({ units: 2 }).apply(hidden), tt.layers.dense({ units: 1 }).apply(hidden)] });
    const fs = f.predict(x);
    const fa = await f.predictAsync(x);
    assert.equal(fa.length, 2);
    fs.forEach((t, i) => sameValues(t, fa[i]));
    const bad = tt.zeros([2, 5]);
    await assert.rejects(m.predictAsync(bad), /expected .* to have shape \[null,6\]/);
    tt.dispose([x, y, bad, ...fs, ...fa]);
    m.dispose();
    f.dispose();
    assert.deepEqual(counts(), before);
    await servingIsEmpty();
  });

  it('inputs disposed during a prediction are held until it ends; errors reject with tfjs\'s texts', async () => {
    const before = counts();
    const model = await tt.loadGraphModel(tt.io.fromMemory(models().cnn.artifacts()));
    const x = tt.randomUniform([2, 12, 12, 3]);
    const expected = model.predict(x);
    const pending = model.predictAsync(x);
    x.dispose();
    const got = await pending;
    sameValues(got, expected);
    await assert.rejects(model.executeAsync(tt.zeros([1, 5, 5, 3])),
      /shape of dict\['x'\] provided in model.execute\(dict\) must be \[-1,12,12,3\], but was \[1,5,5,3\]/);
    await assert.rejects(model.executeAsync({ nope: tt.zeros([1]) }), /The dict provided in model.execute\(dict\) has keys: \[nope\] that are not part of graph/);
    tt.dispose([got, expected]);
    model.dispose();
    // What the rejected calls were given stays the caller's to dispose (as in tfjs).
    assert.equal(counts().numTensors, before.numTensors + 2);
    tt.disposeVariables();
  });

  it('tidy and tidyAsync scopes around await predictAsync', async () => {
    const before = counts();
    const model = await tt.loadGraphModel(tt.io.fromMemory(models().cnn.artifacts()));
    const x = tt.randomUniform([1, 12, 12, 3]);
    const expected = model.predict(x);
    // tidy cannot await: the Promise's outputs are made after it ends, the caller's.
    const pending = tt.tidy(() => { model.predictAsync(x.add(0)).then((t) => tt.dispose(t)); return tt.scalar(1); });
    pending.dispose();
    const kept = await tt.tidyAsync(async () => {
      const a = await model.predictAsync(x);
      const b = await model.predictAsync(x.mul(1));
      sameValues(a, expected);
      return b;
    });
    sameValues(kept, expected);
    await new Promise((resolve) => setTimeout(resolve, 20));
    tt.dispose([kept, x, expected]);
    model.dispose();
    assert.deepEqual(counts(), before);
    await servingIsEmpty();
  });

  it('dispose() with predictions queued: they finish, then the serving thread lets the weights go', async () => {
    const before = counts();
    const model = await tt.loadGraphModel(tt.io.fromMemory(models().cnn.artifacts()));
    const x = tt.randomUniform([3, 12, 12, 3]);
    const expected = model.predict(x);
    const pending = Array.from({ length: 6 }, () => model.predictAsync(x));
    model.dispose();
    await assert.rejects(model.predictAsync(x), /disposed/);
    for (const out of await Promise.all(pending)) {
      sameValues(out, expected);
      tt.dispose(out);
    }
    tt.dispose([x, expected]);
    assert.deepEqual(counts(), before);
    await servingIsEmpty();
  });

  it('an AbortSignal rejects a pending prediction; its outputs are disposed when they come', async () => {
    const before = counts();
    const model = await tt.loadGraphModel(tt.io.fromMemory(models().cnn.artifacts()));
    const x = tt.randomUniform([1, 12, 12, 3]);
    const controller = new AbortController();
    const pending = model.predictAsync(x, { signal: controller.signal });
    controller.abort(new Error('no longer wanted'));
    await assert.rejects(pending, /no longer wanted/);
    await servingIsEmpty(1); // the prediction ran (the replica stays until dispose)
    x.dispose();
    model.dispose();
    assert.deepEqual(counts(), before);
    await servingIsEmpty();
  });
});

describe('tf.serving.decodeImage', () => {
  it('decodes off the thread what tf.node.decodeImage decodes; bad files reject', async () => {
    const before = counts();
    const pixels = tt.tidy(() => tt.randomUniform([20, 30, 3], 0, 255, 'int32'));
    for (const [file, channelsList] of [[await tt.node.encodePng(pixels), [0, 1, 3, 4]], [await tt.node.encodeJpeg(pixels), [0, 1, 3]]]) {
      for (const channels of channelsList) {
        const [a, b] = [tt.node.decodeImage(file, channels), await tt.serving.decodeImage(file, channels)];
        assert.equal(b.dtype, 'int32');
        assert.deepEqual(b.shape, a.shape);
        sameValues(a, b);
        tt.dispose([a, b]);
      }
    }
    const jpeg = await tt.node.encodeJpeg(pixels);
    assert.throws(() => tt.node.decodeImage(jpeg, 4), /JPEG does not support 4 channels/);
    await assert.rejects(tt.serving.decodeImage(jpeg, 4), /JPEG does not support 4 channels/);
    for (const bad of [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array([0xff, 0xd8, 0xff, 0, 0])]) {
      const sync = (() => { try { tt.node.decodeImage(bad); } catch (e) { return e.message; } })();
      assert.ok(sync, 'tf.node.decodeImage refuses it');
      await assert.rejects(tt.serving.decodeImage(bad), (e) => e.message === sync);
    }
    pixels.dispose();
    assert.deepEqual(counts(), before);
  });
});

describe('worker_threads', () => {
  const WORKER = `
    const { parentPort, workerData } = require('node:worker_threads');
    const tf = require(workerData.root);
    const { models } = require(workerData.root + '/__test__/fixtures/graph/generate');
    (async () => {
      const start = tf.memory();
      const model = await tf.loadGraphModel(tf.io.fromMemory(models().cnn.artifacts()));
      const shared = tf.memory().numBytesShared;
      const x = tf.tensor(workerData.input, [1, 12, 12, 3]);
      const values = (out) => out.flatMap((t) => Array.from(t.dataSync()));
      const expected = tf.tidy(() => values(model.predict(x)));
      parentPort.postMessage({ loaded: true });
      let wrong = 0;
      const batch = [];
      for (let i = 0; i < workerData.n; i++) {
        batch.push(tf.tidyAsync(async () => {
          const y = await model.predictAsync(x);
          if (values(y).some((v, j) => v !== expected[j])) wrong++;
        }));
        if (batch.length === 8) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
      x.dispose();
      model.dispose();
      tf.disposeVariables();
      const end = tf.memory();
      parentPort.postMessage({ wrong, shared, start: start.numTensors, end: end.numTensors,
        startBytes: start.numBytes, endBytes: end.numBytes, expected });
    })().catch((e) => parentPort.postMessage({ error: e.stack }));`;

  const run = (n, input) => new Worker(WORKER, { eval: true, workerData: { root: ROOT, n, input } });
  const input = Array.from({ length: 12 * 12 * 3 }, (_, i) => Math.sin(i));

  it('8 workers x 200 predictions on one model\'s shared weights; workers terminated mid-prediction', async () => {
    const model = await tt.loadGraphModel(tt.io.fromMemory(models().cnn.artifacts()));
    const x = tt.tensor(input, [1, 12, 12, 3]);
    const expected = model.predict(x).flatMap((t) => Array.from(t.dataSync()));
    tt.dispose(x);
    model.dispose();
    const done = (w) => new Promise((resolve, reject) => {
      w.on('message', (m) => { if (!m.loaded) resolve(m); });
      w.on('error', reject);
    });
    const workers = Array.from({ length: 8 }, () => run(200, input));
    const results = Promise.all(workers.map(done));
    const doomed = Array.from({ length: 3 }, () => run(10000, input));
    // Terminated while their predictions run (after their model loaded).
    await Promise.all(doomed.map((w) => new Promise((resolve) => w.once('message', resolve))));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all(doomed.map((w) => w.terminate()));
    for (const r of await results) {
      assert.equal(r.error, undefined, r.error);
      assert.equal(r.wrong, 0);
      assert.ok(r.shared > 0, 'the weights went through the process\'s weight cache');
      assert.deepEqual([r.end, r.endBytes], [r.start, r.startBytes]);
      r.expected.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-6));
    }
    await Promise.all(workers.map((w) => w.terminate()));
    // The terminated workers' models went with their environments.
    await servingIsEmpty();
  });
});

describe('tf.serving.batcher', () => {
  it('batched results equal unbatched predictions, for a layers and a graph model', async () => {
    const before = counts();
    const m = smallModel();
    const graph = await tt.loadGraphModel(tt.io.fromMemory(models().cnn.artifacts()));
    for (const [model, shape] of [[m, [6]], [graph, [12, 12, 3]]]) {
      const batcher = tt.serving.batcher(model, { maxBatchSize: 4, maxDelayMs: 5 });
      const xs = Array.from({ length: 10 }, () => tt.randomNormal(shape));
      const outs = await Promise.all(xs.map((x) => batcher.predict(x)));
      for (let i = 0; i < xs.length; i++) {
        const one = tt.tidy(() => [model.predict(xs[i].expandDims(0))].flat().map((t) => t.squeeze([0])));
        const got = [outs[i]].flat();
        assert.deepEqual(got.map((t) => t.shape), one.map((t) => t.shape));
        const [a, b] = [valuesOf(got).flat(), valuesOf(one).flat()];
        a.forEach((v, j) => assert.ok(Math.abs(v - b[j]) < 1e-5, `${v} vs ${b[j]}`));
        tt.dispose(one);
      }
      tt.dispose([...xs, ...outs.flat()]);
      batcher.close();
    }
    m.dispose();
    graph.dispose();
    assert.deepEqual(counts(), before);
    await servingIsEmpty();
  });

  it('each caller\'s outputs join its own tidyAsync scope', async () => {
    const before = counts();
    const m = smallModel();
    const batcher = tt.serving.batcher(m, { maxBatchSize: 8, maxDelayMs: 10 });
    const xs = Array.from({ length: 6 }, () => tt.randomNormal([6]));
    const expected = xs.map((x) => tt.tidy(() => m.predict(x.expandDims(0)).sum().dataSync()[0]));
    // Each scope keeps only what it returns; the rest of its outputs go with it.
    const sums = await Promise.all(xs.map((x, i) => tt.tidyAsync(async () => {
      const y = await batcher.predict(x);
      await new Promise((resolve) => setTimeout(resolve, 5 * i)); // the others' scopes end meanwhile
      return y.sum();
    })));
    sums.forEach((t, i) => assert.ok(Math.abs(t.dataSync()[0] - expected[i]) < 1e-5));
    tt.dispose([...sums, ...xs]);
    m.dispose();
    assert.deepEqual(counts(), before);
  });

  it('gathers concurrent requests into batches of at most maxBatchSize', async () => {
    const m = smallModel();
    const sizes = [];
    const spy = { predictAsync: (x, c) => { sizes.push(x.shape[0]); return m.predictAsync(x, c); } };
    const batcher = tt.serving.batcher(spy, { maxBatchSize: 8, maxDelayMs: 20 });
    const xs = Array.from({ length: 20 }, () => tt.randomNormal([6]));
    const outs = await Promise.all(xs.map((x) => batcher.predict(x)));
    assert.equal(sizes.reduce((a, b) => a + b, 0), 20);
    assert.ok(sizes.every((s) => s <= 8) && sizes[0] === 8, `batches ${sizes}`);
    tt.dispose([...xs, ...outs]);
    m.dispose();
  });

  it('a full queue refuses with a clear error; AbortSignal cancels; close() refuses the rest', async () => {
    const before = counts();
    const m = smallModel();
    const batcher = tt.serving.batcher(m, { maxBatchSize: 4, maxDelayMs: 50, maxQueue: 3 });
    const x = tt.randomNormal([6]);
    const controller = new AbortController();
    const p1 = batcher.predict(x);
    const p2 = batcher.predict(x, { signal: controller.signal });
    const p3 = batcher.predict(x);
    await assert.rejects(batcher.predict(x), /the queue is full \(3 requests waiting\)/);
    controller.abort(new Error('client went away'));
    await assert.rejects(p2, /client went away/);
    assert.equal(batcher.pending, 2);
    const [o1, o3] = await Promise.all([p1, p3]);
    sameValues(o1, o3);
    const p4 = batcher.predict(x);
    batcher.close();
    await assert.rejects(p4, /the batcher was closed/);
    await assert.rejects(batcher.predict(x), /closed/);
    const fresh = tt.serving.batcher(m);
    await assert.rejects(fresh.predict(x, { signal: AbortSignal.abort(new Error('already')) }), /already/);
    await assert.rejects(fresh.predict([]), /takes a tf.Tensor/);
    assert.throws(() => tt.serving.batcher(m, { maxBatchSize: 0 }), /maxBatchSize must be a positive integer/);
    tt.dispose([o1, o3, x]);
    m.dispose();
    assert.deepEqual(counts(), before);
    await servingIsEmpty();
  });
});

describe('examples/serve.js', () => {
  // The example server, answering HTTP while it classifies; with --workers 2 the workers share
  // the weights.
  for (const args of [[], ['--workers', '2']]) {
    it(`classifies an uploaded PNG and reports its stats (${args.join(' ') || 'no workers'})`, async () => {
      const { spawn } = require('node:child_process');
      const server = spawn(process.execPath, [path.join(ROOT, 'examples', 'serve.js'), '--port', '0', ...args],
        { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        const url = await new Promise((resolve, reject) => {
          let err = '';
          server.stderr.on('data', (d) => { err += d; });
          server.stdout.on('data', (d) => {
            const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(d));
            if (m) resolve(`http://127.0.0.1:${m[1]}`);
          });
          server.on('exit', (code) => reject(new Error(`the server exited (${code}): ${err}`)));
        });
        const pixels = tt.tidy(() => tt.randomUniform([40, 60, 3], 0, 255, 'int32'));
        const png = await tt.node.encodePng(pixels);
        pixels.dispose();
        const answers = await Promise.all([1, 2, 3].map(() => fetch(`${url}/classify`, { method: 'POST', body: png }).then((r) => r.json())));
        for (const { predictions } of answers) {
          assert.deepEqual(predictions.map((p) => p.className).sort(), ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy']);
          assert.ok(Math.abs(predictions.reduce((a, p) => a + p.probability, 0) - 1) < 1e-4);
          // The same image (in batches of other sizes: equal to float32 rounding).
          const first = Object.fromEntries(answers[0].predictions.map((p) => [p.className, p.probability]));
          for (const p of predictions) assert.ok(Math.abs(p.probability - first[p.className]) < 1e-5);
        }
        const bad = await fetch(`${url}/classify`, { method: 'POST', body: 'not an image' });
        assert.equal(bad.status, 400);
        const stats = await (await fetch(`${url}/stats`)).json();
        assert.equal(stats.served, 3);
        const memory = [stats.memory].flat();
        assert.equal(memory.length, args.length ? 2 : 1);
        for (const m of memory) assert.equal(m.numBytesShared, memory[0].numBytesShared);
      } finally {
        server.kill();
      }
    });
  }
});

