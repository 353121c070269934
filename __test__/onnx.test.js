'use strict';
// ONNX models (tf.loadOnnxModel), checked against onnxruntime-node running the same files: the
// models of __test__/fixtures/onnx (scripts/onnx_fixtures.py writes them with onnx's helper,
// random weights): a CNN (padded, depthwise and grouped convolutions, batch norm, pools, Gemm,
// softmax) at opsets 13 and 9 and with external data, and a transformer encoder block (shapes
// computed in the graph, attention, layer norms, GELU, slices, int64 inputs). Then memory over
// many predictions, every source form, and bad files.
const { it, describe } = require('node:test');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const ort = require('onnxruntime-node');
const { tt, assert } = require('./helpers/setup');

const DIR = path.join(__dirname, 'fixtures', 'onnx');
const file = (name) => path.join(DIR, name);

// Values within 1e-4, relative to the larger of 1 and the expected magnitude.
function close(got, want, what) {
  assert.equal(got.length, want.length, `${what}: ${got.length} values, want ${want.length}`);
  for (let i = 0; i < got.length; i++) {
    const w = Number(want[i]);
    assert.ok(Math.abs(got[i] - w) <= 1e-4 * Math.max(1, Math.abs(w)), `${what}[${i}]: ${got[i]} vs ${w}`);
  }
}

// Seeded values in [-1, 1).
function values(n, seed) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

async function reference(name, feeds) {
  const session = await ort.InferenceSession.create(file(name));
  const out = await session.run(feeds);
  return out;
}

describe('tf.loadOnnxModel against onnxruntime-node', () => {
  for (const name of ['cnn.onnx', 'cnn_opset9.onnx', 'cnn_external.onnx']) {
    it(`${name}: a CNN, batch 1 and 3`, async () => {
      const model = await tt.loadOnnxModel(file(name));
      assert.deepEqual(model.inputs, [{ name: 'x', shape: [-1, 3, 16, 16], dtype: 'float32' }]);
      assert.deepEqual(model.outputNodes, ['probs', 'logits']);
      for (const batch of [1, 3]) {
        const data = values(batch * 3 * 16 * 16, batch);
        const want = await reference(name, { x: new ort.Tensor('float32', data, [batch, 3, 16, 16]) });
        const before = tt.memory().numTensors;
        const x = tt.tensor(data, [batch, 3, 16, 16]);
        const [probs, logits] = model.predict(x);
        assert.deepEqual(probs.shape, [batch, 10]);
        close(probs.dataSync(), want.probs.data, `${name} probs`);
        close(logits.dataSync(), want.logits.data, `${name} logits`);
        const p2 = await model.executeAsync({ x }, ['probs']);
        close(p2.dataSync(), want.probs.data, `${name} executeAsync`);
        tt.dispose([x, probs, logits, p2]);
        assert.equal(tt.memory().numTensors, before);
      }
      model.dispose();
    });
  }

  it('encoder.onnx: a transformer block with int64 inputs and shapes computed in the graph', async () => {
    const model = await tt.loadOnnxModel(file('encoder.onnx'));
    assert.deepEqual(model.inputs, [
      { name: 'ids', shape: [-1, 6], dtype: 'int32' },
      { name: 'len', shape: [], dtype: 'int32' },
    ]);
    const ids = [[1, 5, 7, 19, 0, 3], [2, 2, 4, 8, 16, 11]];
    for (const len of [4, 6]) {
      const want = await reference('encoder.onnx', {
        ids: new ort.Tensor('int64', BigInt64Array.from(ids.flat().map(BigInt)), [2, 6]),
        len: new ort.Tensor('int64', BigInt64Array.from([BigInt(len)]), []),
      });
      const before = tt.memory().numTensors;
      const feeds = { ids: tt.tensor2d(ids, [2, 6], 'int32'), len: tt.scalar(len, 'int32') };
      const outs = model.execute(feeds, model.outputNodes);
      model.outputNodes.forEach((n, i) => {
        assert.deepEqual(outs[i].shape, want[n].dims.map(Number), n);
        close(outs[i].dataSync(), want[n].data, `encoder ${n}`);
      });
      tt.dispose([...Object.values(feeds), ...outs]);
      assert.equal(tt.memory().numTensors, before);
    }
    model.dispose();
  });
});

describe('tf.loadOnnxModel: recurrent layers against onnxruntime-node', () => {
  it('recurrent.onnx: a bidirectional LSTM into a GRU, batch 1 and 4', async () => {
    const model = await tt.loadOnnxModel(file('recurrent.onnx'));
    assert.deepEqual(model.outputNodes, ['g', 'g_h', 'y_c']);
    for (const batch of [1, 4]) {
      const shapes = { x: [5, batch, 8], h0: [2, batch, 6], c0: [2, batch, 6] };
      const data = Object.fromEntries(Object.entries(shapes).map(([k, s], i) => [k, values(s.reduce((a, b) => a * b), 40 + i + batch)]));
      const want = await reference('recurrent.onnx', Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, new ort.Tensor('float32', data[k], s)])));
      const before = tt.memory().numTensors;
      const feeds = Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, tt.tensor(data[k], s)]));
      const outs = model.execute(feeds, model.outputNodes);
      model.outputNodes.forEach((n, i) => {
        assert.deepEqual(outs[i].shape, want[n].dims.map(Number), n);
        close(outs[i].dataSync(), want[n].data, `recurrent ${n}`);
      });
      tt.dispose([...Object.values(feeds), ...outs]);
      assert.equal(tt.memory().numTensors, before);
    }
    model.dispose();
  });
});

describe('tf.loadOnnxModel: onnxruntime\'s contrib ops against onnxruntime-node', () => {
  it('contrib.onnx: FusedMatMul, BiasGelu, FastGelu, QuickGelu, SkipLayerNormalization, Gelu, SimplifiedLayerNormalization', async () => {
    const model = await tt.loadOnnxModel(file('contrib.onnx'));
    for (const batch of [1, 3]) {
      const [x, skip] = [values(batch * 8 * 16, 31 + batch), values(batch * 8 * 16, 57 + batch)];
      const shape = [batch, 8, 16];
      const want = await reference('contrib.onnx', { x: new ort.Tensor('float32', x, shape), skip: new ort.Tensor('float32', skip, shape) });
      const before = tt.memory().numTensors;
      const feeds = { x: tt.tensor(x, shape), skip: tt.tensor(skip, shape) };
      const outs = model.execute(feeds, ['y', 'sum']);
      ['y', 'sum'].forEach((name, i) => {
        assert.deepEqual(outs[i].shape, shape, name);
        close(outs[i].dataSync(), want[name].data, `contrib ${name} (batch ${batch})`);
      });
      tt.dispose([...Object.values(feeds), ...outs]);
      assert.equal(tt.memory().numTensors, before);
    }
    model.dispose();
  });
});

describe('tf.loadOnnxModel: control flow against onnxruntime-node', () => {
  it('control_flow.onnx: If on a computed condition, Loop with an early stop and a scan output (executeAsync)', async () => {
    const model = await tt.loadOnnxModel(file('control_flow.onnx'));
    const cases = [[[1, 2, 3, 4], 0.5, 10], [[-1, -2, 0.5, 1], 3, 4], [[5, 5, 5, 5], 1, 100], [[1, 1, 1, 1], 1, 0]];
    for (const [x, scale, n] of cases) {
      const want = await reference('control_flow.onnx', {
        x: new ort.Tensor('float32', Float32Array.from(x), [4]),
        scale: new ort.Tensor('float32', Float32Array.from([scale]), []),
        n: new ort.Tensor('int64', BigInt64Array.from([BigInt(n)]), []),
      });
      const before = tt.memory().numTensors;
      const feeds = { x: tt.tensor1d(x), scale: tt.scalar(scale), n: tt.scalar(n, 'int32') };
      const outs = await model.executeAsync(feeds, model.outputNodes);
      model.outputNodes.forEach((name, i) => {
        if (want[name].dims.length > 0) assert.deepEqual(outs[i].shape, want[name].dims.map(Number), name);
        close(outs[i].dataSync(), want[name].data, `control flow ${name} (${x}, ${scale}, ${n})`);
      });
      tt.dispose([...Object.values(feeds), ...outs]);
      assert.equal(tt.memory().numTensors, before);
    }
    // A graph with control flow runs with executeAsync, as in tfjs.
    const before = tt.memory().numTensors;
    assert.throws(() => tt.tidy(() => model.predict({ x: tt.zeros([4]), scale: tt.scalar(1), n: tt.scalar(1, 'int32') })),
      /executeAsync/);
    assert.equal(tt.memory().numTensors, before);
    model.dispose();
  });
});

describe('tf.loadOnnxModel: sources, memory, errors', () => {
  it('loads from a path, a file:// URL, a Uint8Array and an ArrayBuffer alike', async () => {
    const bytes = fs.readFileSync(file('cnn.onnx'));
    const x = tt.tensor(values(3 * 16 * 16, 9), [1, 3, 16, 16]);
    const results = [];
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    for (const source of [file('cnn.onnx'), pathToFileURL(file('cnn.onnx')).href, new Uint8Array(bytes), buffer]) {
      const model = await tt.loadOnnxModel(source);
      const [probs, logits] = model.predict(x);
      results.push(Array.from(probs.dataSync()));
      tt.dispose([probs, logits]);
      model.dispose();
    }
    for (const r of results.slice(1)) assert.deepEqual(r, results[0]);
    x.dispose();
  });

  it('load, 1,000 predictions and dispose leave tf.memory() where it started', async () => {
    const start = tt.memory();
    const model = await tt.loadOnnxModel(file('cnn.onnx'));
    const x = tt.tensor(values(3 * 16 * 16, 3), [1, 3, 16, 16]);
    for (let i = 0; i < 1000; i++) tt.dispose(model.predict(x));
    x.dispose();
    model.dispose();
    const end = tt.memory();
    assert.equal(end.numTensors, start.numTensors);
    assert.equal(end.numBytes, start.numBytes);
  });

  it('refuses bad files with a clear error and leaks nothing', async () => {
    const cases = [
      [new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), /Invalid ONNX model/],
      [fs.readFileSync(file('cnn.onnx')).subarray(0, 2000), /Invalid ONNX model/],
      [file('bad_op.onnx'), /ops tidytensor does not run yet: Frobnicate \('Frobnicate #0'\)/],
      [file('bad_missing.onnx'), /reads 'nowhere', which no input, initializer or earlier node gives/],
      [file('bad_escape.onnx'), /outside the model's folder/],
      [file('bad_int64.onnx'), /initializer 'big' holds 1099511627776, which does not fit in int32/],
      [fs.readFileSync(file('cnn_external.onnx')), /external file 'cnn_external.data', but the model was not loaded from a folder/],
      [file('no_such_model.onnx'), /ENOENT/],
      [42, /needs a path, a file:\/\/ or http\(s\) URL, or the bytes/],
    ];
    const before = tt.memory();
    for (const [source, pattern] of cases) {
      await assert.rejects(tt.loadOnnxModel(source), pattern);
    }
    const after = tt.memory();
    assert.equal(after.numTensors, before.numTensors);
    assert.equal(after.numBytes, before.numBytes);
  });

  it('a wrong input shape fails as a graph model does, inside tidy without a leak', async () => {
    const model = await tt.loadOnnxModel(file('cnn.onnx'));
    const before = tt.memory().numTensors;
    assert.throws(() => tt.tidy(() => model.predict(tt.zeros([1, 3, 8, 8]))), /shape/);
    assert.equal(tt.memory().numTensors, before);
    model.dispose();
    await assert.rejects(async () => model.save('file:///tmp/never'), /disposed|ONNX/);
  });
});
