'use strict';
// Model files and tf.io, checked against @tensorflow/tfjs 4.22 (`tfo`) and tfjs-node's file
// handler: models saved by tfjs load here (also sharded and quantized weights), models saved here
// load in tfjs (in a child process), layers models bundled by npm packages (upscalerjs, nsfwjs)
// load and predict as in tfjs, bad files give clear errors, and the tf.io helpers (weights
// encoding, CompositeArrayBuffer, loaders, routers, http) behave as tfjs's. Nothing may leak on
// tidytensor.
const { it, describe, after } = require('node:test');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { spawnSync } = require('node:child_process');
const { tt, tfo, assert } = require('./helpers/setup');
const { toHalf } = require('./helpers/float16');

const ROOT = path.join(__dirname, '..');
const NODE_MODULES = path.join(ROOT, 'node_modules');

// ---- helpers -------------------------------------------------------------------------------

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'tidytensor-io-'));
after(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let dirCount = 0;
// A new empty directory under the suite's temp dir.
function newDir(name = 'm') {
  const d = path.join(tmpRoot, `${name}-${dirCount++}`);
  fs.mkdirSync(d);
  return d;
}

// Runs `fn` and checks that tidytensor's tensor count is back where it started.
async function noLeak(fn) {
  const before = tt.memory().numTensors;
  const r = await fn();
  assert.equal(tt.memory().numTensors, before, 'tensors left on tidytensor');
  return r;
}

// Deterministic values in [-scale, scale) (an LCG).
function rand(n, seed = 1, scale = 1) {
  let s = (seed * 2654435761) >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s / 4294967296) * 2 - 1) * scale;
  }
  return out;
}
const size = (shape) => shape.reduce((a, b) => a * b, 1);
// An input {shape, values} of `shape` with deterministic values (integers in [0, ints) if given).
const inputOf = (shape, seed, ints) => ({
  shape, values: Array.from(rand(size(shape), seed), (v) => (ints ? Math.floor(((v + 1) / 2) * ints) : v)),
});

// model.predict on plain inputs -> [{shape, values}] per output (everything disposed).
function predictOn(tf, model, inputs) {
  const xs = inputs.map((i) => tf.tensor(i.values, i.shape));
  const out = model.predict(xs.length === 1 ? xs[0] : xs);
  const outs = Array.isArray(out) ? out : [out];
  const r = outs.map((t) => ({ shape: t.shape.slice(), values: Array.from(t.dataSync()) }));
  tf.dispose(xs);
  tf.dispose(outs);
  return r;
}

function closeArrays(got, want, tol, what, relative = false) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const scale = relative ? Math.max(1e-6, Math.abs(want[i])) : Math.max(1, Math.abs(want[i]));
    assert.ok(Math.abs(got[i] - want[i]) <= tol * scale, `${what}[${i}]: got ${got[i]}, expected ${want[i]} (tolerance ${tol})`);
  }
}

function samePredictions(got, want, tol = 1e-5, what = 'prediction') {
  assert.equal(got.length, want.length, `${what}: outputs`);
  want.forEach((w, i) => {
    assert.deepEqual(got[i].shape, w.shape, `${what}[${i}]: shape`);
    closeArrays(got[i].values, w.values, tol, `${what}[${i}]`);
  });
}

// Asserts that the promise rejects with an Error whose message matches every regexp.
async function rejectsWith(promise, ...patterns) {
  let error = null;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error, `expected an Error, got ${error}`);
  for (const p of patterns) assert.match(error.message, p);
  return error;
}

// ---- the models (the same code builds them on tfjs and on tidytensor) -----------------------

const MODELS = {
  mlp: {
    build(tf) {
      const m = tf.sequential({ name: 'mlp' });
      m.add(tf.layers.dense({
        units: 8, inputShape: [5], activation: 'relu', kernelRegularizer: tf.regularizers.l2({ l2: 0.01 }), name: 'd1',
      }));
      m.add(tf.layers.dense({ units: 3, activation: 'softmax', name: 'd2' }));
      return m;
    },
    inputs: [[5]],
    outputs: [3],
  },
  cnn: {
    build(tf) {
      const m = tf.sequential({ name: 'cnn' });
      m.add(tf.layers.conv2d({ inputShape: [8, 8, 2], filters: 4, kernelSize: 3, padding: 'same', activation: 'relu', name: 'c1' }));
      m.add(tf.layers.maxPooling2d({ poolSize: 2, name: 'p1' }));
      m.add(tf.layers.batchNormalization({ name: 'bn1' }));
      m.add(tf.layers.depthwiseConv2d({ kernelSize: 3, depthMultiplier: 2, padding: 'same', name: 'dw1' }));
      m.add(tf.layers.averagePooling2d({ poolSize: 2, name: 'ap1' }));
      m.add(tf.layers.dropout({ rate: 0.25, name: 'dr1' }));
      m.add(tf.layers.flatten({ name: 'fl' }));
      m.add(tf.layers.dense({ units: 3, activation: 'softmax', name: 'out' }));
      return m;
    },
    inputs: [[8, 8, 2]],
    outputs: [3],
  },
  functional: {
    // Two inputs, two branches joined by add and concatenate, two outputs.
    build(tf) {
      const a = tf.input({ shape: [6], name: 'in_a' });
      const b = tf.input({ shape: [4], name: 'in_b' });
      const ha = tf.layers.dense({ units: 5, activation: 'relu', name: 'da' }).apply(a);
      const hb = tf.layers.dense({ units: 5, activation: 'tanh', name: 'db' }).apply(b);
      const sum = tf.layers.add({ name: 'sum' }).apply([ha, hb]);
      const cat = tf.layers.concatenate({ name: 'cat' }).apply([ha, b]);
      const o1 = tf.layers.dense({ units: 2, activation: 'softmax', name: 'o1' }).apply(sum);
      const o2 = tf.layers.dense({ units: 1, name: 'o2' }).apply(cat);
      return tf.model({ inputs: [a, b], outputs: [o1, o2], name: 'func' });
    },
    inputs: [[6], [4]],
    outputs: [2, 1],
  },
  shared: {
    // One layer applied to two inputs (inbound nodes 0 and 1).
    build(tf) {
      const x1 = tf.input({ shape: [4], name: 'x1' });
      const x2 = tf.input({ shape: [4], name: 'x2' });
      const sh = tf.layers.dense({ units: 3, activation: 'relu', name: 'sh' });
      const cat = tf.layers.concatenate({ name: 'cat' }).apply([sh.apply(x1), sh.apply(x2)]);
      const out = tf.layers.dense({ units: 2, activation: 'softmax', name: 'out' }).apply(cat);
      return tf.model({ inputs: [x1, x2], outputs: out, name: 'shared' });
    },
    inputs: [[4], [4]],
    outputs: [2],
  },
  rnn: {
    build(tf) {
      const m = tf.sequential({ name: 'rnn' });
      m.add(tf.layers.lstm({ units: 4, returnSequences: true, inputShape: [5, 3], name: 'lstm' }));
      m.add(tf.layers.gru({ units: 3, returnSequences: true, name: 'gru' }));
      m.add(tf.layers.simpleRNN({ units: 3, name: 'srnn' }));
      m.add(tf.layers.dense({ units: 2, activation: 'softmax', name: 'out' }));
      return m;
    },
    inputs: [[5, 3]],
    outputs: [2],
  },
  conv2: {
    // (depthMultiplier stays 1: tfjs 4.22 leaves depth_multiplier out of SeparableConv2D's
    // config, so tfjs cannot load its own file of a separableConv2d with depthMultiplier 2.)
    build(tf) {
      const m = tf.sequential({ name: 'conv2' });
      m.add(tf.layers.zeroPadding2d({ padding: 1, inputShape: [6, 6, 2], name: 'zp' }));
      m.add(tf.layers.separableConv2d({ filters: 3, kernelSize: 3, name: 'sep' }));
      m.add(tf.layers.leakyReLU({ alpha: 0.2, name: 'lrelu' }));
      m.add(tf.layers.conv2dTranspose({ filters: 2, kernelSize: 3, strides: 2, padding: 'same', name: 'convt' }));
      m.add(tf.layers.upSampling2d({ size: [2, 2], name: 'up' }));
      m.add(tf.layers.layerNormalization({ name: 'ln' }));
      m.add(tf.layers.globalMaxPooling2d({ name: 'gmp' }));
      m.add(tf.layers.activation({ activation: 'sigmoid', name: 'act' }));
      m.add(tf.layers.dense({ units: 2, activation: 'softmax', name: 'out' }));
      return m;
    },
    inputs: [[6, 6, 2]],
    outputs: [2],
  },
  embed: {
    build(tf) {
      const m = tf.sequential({ name: 'embed' });
      m.add(tf.layers.embedding({ inputDim: 10, outputDim: 4, inputLength: 5, name: 'emb' }));
      m.add(tf.layers.conv1d({ filters: 3, kernelSize: 2, name: 'c1d' }));
      m.add(tf.layers.globalAveragePooling1d({ name: 'gap' }));
      m.add(tf.layers.dense({ units: 2, activation: 'softmax', name: 'out' }));
      return m;
    },
    inputs: [[5]],
    ints: 10,
    outputs: [2],
  },
};

// Training data for a model kind: {xs: [{shape, values}], ys: [...]} (one-hot for softmax
// outputs, values for the regression output).
function dataOf(kind, n = 8) {
  const spec = MODELS[kind];
  const xs = spec.inputs.map((s, i) => inputOf([n, ...s], 11 + i, spec.ints));
  const ys = spec.outputs.map((units, k) => {
    if (kind === 'functional' && k === 1) return inputOf([n, 1], 31);
    const values = [];
    for (let i = 0; i < n; i++) for (let c = 0; c < units; c++) values.push((i * 7 + k) % units === c ? 1 : 0);
    return { shape: [n, units], values };
  });
  return { xs, ys };
}

const lossesOf = (kind) => (kind === 'functional' ? ['categoricalCrossentropy', 'meanSquaredError'] : 'categoricalCrossentropy');

// Trains `model` on `tf` a few steps (plain SGD unless an optimizer is compiled already).
async function train(tf, model, kind, { epochs = 3, compile = true } = {}) {
  if (compile) model.compile({ optimizer: tf.train.sgd(0.1), loss: lossesOf(kind) });
  const { xs, ys } = dataOf(kind);
  const x = xs.map((i) => tf.tensor(i.values, i.shape));
  const y = ys.map((i) => tf.tensor(i.values, i.shape));
  const h = await model.fit(x.length === 1 ? x[0] : x, y.length === 1 ? y[0] : y, { epochs, batchSize: 4, shuffle: false, verbose: 0 });
  tf.dispose([x, y]);
  return h;
}

// A fixed prediction input of a model kind.
const predictInputs = (kind) => MODELS[kind].inputs.map((s, i) => inputOf([3, ...s], 101 + i, MODELS[kind].ints));

// The artifacts tfjs saves for `model` (withSaveHandler).
async function tfjsArtifacts(model, config) {
  let artifacts;
  await model.save(tfo.io.withSaveHandler(async (a) => {
    artifacts = a;
    return { modelArtifactsInfo: tfo.io.getModelArtifactsInfoForJSON(a) };
  }), config);
  return artifacts;
}

// Writes artifacts as tfjs-node's tf.io.fileSystem does: model.json + weights.bin. `manifest`
// (optional) replaces the manifest, with the bytes of each of its paths in `files` (name ->
// Uint8Array); `weightSpecs`/`weightData` replace the artifacts' own.
function writeModelFiles(dir, artifacts, { manifest, files, weightSpecs, weightData } = {}) {
  const modelJSON = {
    modelTopology: artifacts.modelTopology,
    weightsManifest: manifest || [{ paths: ['weights.bin'], weights: weightSpecs || artifacts.weightSpecs }],
    format: artifacts.format,
    generatedBy: artifacts.generatedBy,
    convertedBy: artifacts.convertedBy,
  };
  if (artifacts.trainingConfig != null) modelJSON.trainingConfig = artifacts.trainingConfig;
  if (artifacts.userDefinedMetadata != null) modelJSON.userDefinedMetadata = artifacts.userDefinedMetadata;
  fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJSON), 'utf8');
  if (files) {
    for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), bytes);
  } else {
    fs.writeFileSync(path.join(dir, 'weights.bin'), Buffer.from(weightData || artifacts.weightData));
  }
  return path.join(dir, 'model.json');
}

// Splits `bytes` at the given offsets.
function cut(bytes, offsets) {
  const parts = [];
  let at = 0;
  for (const o of [...offsets, bytes.length]) {
    parts.push(bytes.slice(at, o));
    at = o;
  }
  return parts;
}

// ---- quantization (as the tfjs converter writes it) -------------------------------------

// Quantizes float32 weights: `dtypeOf(i)` gives each weight's quantization dtype (uint8,
// uint16, float16, or null to keep float32). Returns {weightSpecs, weightData}.
function quantize(specs, weightData, dtypeOf) {
  const all = new Float32Array(weightData.slice(0));
  const outSpecs = [];
  const parts = [];
  let at = 0;
  specs.forEach((spec, i) => {
    assert.equal(spec.dtype, 'float32');
    const n = size(spec.shape);
    const values = all.subarray(at, at + n);
    at += n;
    const dtype = dtypeOf(i);
    if (dtype == null) {
      outSpecs.push({ ...spec });
      parts.push(new Uint8Array(values.slice().buffer));
    } else if (dtype === 'float16') {
      outSpecs.push({ ...spec, quantization: { dtype } });
      parts.push(new Uint8Array(Uint16Array.from(values, toHalf).buffer));
    } else {
      const levels = dtype === 'uint8' ? 255 : 65535;
      let min = Math.min(...values);
      const max = Math.max(...values);
      if (max === min) min = max - 1;
      const scale = (max - min) / levels;
      const q = (dtype === 'uint8' ? Uint8Array : Uint16Array).from(values, (v) => Math.round((v - min) / scale));
      outSpecs.push({ ...spec, quantization: { dtype, scale, min } });
      parts.push(new Uint8Array(q.buffer));
    }
  });
  const total = parts.reduce((s, p) => s + p.length, 0);
  const data = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    data.set(p, o);
    o += p.length;
  }
  return { weightSpecs: outSpecs, weightData: data.buffer };
}

// ---- 1. models saved by tfjs load here ------------------------------------------------------

// tfjs models, built and trained once for the suite: kind -> {model, artifacts, want}.
const tfjsModels = {};
async function tfjsModel(kind) {
  if (tfjsModels[kind] == null) {
    const model = MODELS[kind].build(tfo);
    await train(tfo, model, kind);
    const artifacts = await tfjsArtifacts(model);
    tfjsModels[kind] = { model, artifacts, want: predictOn(tfo, model, predictInputs(kind)) };
  }
  return tfjsModels[kind];
}

describe('models saved by tfjs load in tidytensor', () => {
  for (const kind of Object.keys(MODELS)) {
    it(`${kind}: file:// URL, plain path and directory give tfjs's predictions`, async () => {
      const { artifacts, want } = await tfjsModel(kind);
      const dir = newDir(kind);
      const jsonPath = writeModelFiles(dir, artifacts);
      await noLeak(async () => {
        for (const where of [`file://${jsonPath}`, jsonPath, dir, `file://${dir}`]) {
          const model = await tt.loadLayersModel(where);
          try {
            samePredictions(predictOn(tt, model, predictInputs(kind)), want, 1e-5, `${kind} from ${where}`);
          } finally {
            model.dispose();
          }
        }
      });
    });

    it(`${kind}: the loaded model has tfjs's names, shapes and weights`, async () => {
      const { model: ref, artifacts } = await tfjsModel(kind);
      const dir = newDir(kind);
      writeModelFiles(dir, artifacts);
      await noLeak(async () => {
        const model = await tt.loadLayersModel(`file://${dir}/model.json`);
        try {
          assert.equal(model.name, ref.name);
          assert.deepEqual(model.layers.map((l) => l.name), ref.layers.map((l) => l.name));
          assert.deepEqual(model.layers.map((l) => l.getClassName()), ref.layers.map((l) => l.getClassName()));
          assert.deepEqual(model.inputs.map((t) => t.shape), ref.inputs.map((t) => t.shape));
          assert.deepEqual(model.outputs.map((t) => t.shape), ref.outputs.map((t) => t.shape));
          assert.deepEqual(model.weights.map((w) => w.originalName), ref.weights.map((w) => w.originalName));
          const got = model.getWeights().map((w) => Array.from(w.dataSync()));
          const want = ref.getWeights().map((w) => Array.from(w.dataSync()));
          got.forEach((g, i) => closeArrays(g, want[i], 0, `weight ${ref.weights[i].originalName}`));
        } finally {
          model.dispose();
        }
      });
    });
  }

  it('cnn: BatchNormalization moving statistics come from the file (non-trivial after training)', async () => {
    const { model: ref, artifacts } = await tfjsModel('cnn');
    const mean = ref.getLayer('bn1').getWeights()[2].dataSync();
    assert.ok(Array.from(mean).some((v) => Math.abs(v) > 1e-3), 'tfjs moving mean moved');
    const dir = newDir('bn');
    writeModelFiles(dir, artifacts);
    await noLeak(async () => {
      const model = await tt.loadLayersModel(dir);
      try {
        const got = model.getLayer('bn1').getWeights().map((w) => Array.from(w.dataSync()));
        const want = ref.getLayer('bn1').getWeights().map((w) => Array.from(w.dataSync()));
        got.forEach((g, i) => closeArrays(g, want[i], 0, `bn1 weight ${i}`));
      } finally {
        model.dispose();
      }
    });
  });

  it('weights split into several groups and shards cut at arbitrary byte offsets', async () => {
    for (const kind of Object.keys(MODELS)) {
      const { artifacts, want } = await tfjsModel(kind);
      const specs = artifacts.weightSpecs;
      const bytes = new Uint8Array(artifacts.weightData);
      // Group 1: the first 3 weights in 3 shards (cuts at odd offsets); group 2: the rest in 2.
      const split = specs.slice(0, 3).reduce((s, w) => s + 4 * size(w.shape), 0);
      const g1 = cut(bytes.slice(0, split), [1, Math.floor(split / 2) + 3]);
      const g2 = cut(bytes.slice(split), [7]);
      const manifest = [
        { paths: ['a.bin', 'b.bin', 'c.bin'], weights: specs.slice(0, 3) },
        { paths: ['d.bin', 'sub/e.bin'], weights: specs.slice(3) },
      ];
      const dir = newDir(`shards-${kind}`);
      fs.mkdirSync(path.join(dir, 'sub'));
      writeModelFiles(dir, artifacts, {
        manifest, files: { 'a.bin': g1[0], 'b.bin': g1[1], 'c.bin': g1[2], 'd.bin': g2[0], 'sub/e.bin': g2[1] },
      });
      // One group, one shard per byte range of 5 bytes.
      const dir2 = newDir(`shards5-${kind}`);
      const pieces = cut(bytes, Array.from({ length: Math.floor((bytes.length - 1) / 5) }, (_, i) => 5 * (i + 1)));
      const names = pieces.map((_, i) => `group1-shard${i + 1}of${pieces.length}`);
      writeModelFiles(dir2, artifacts, {
        manifest: [{ paths: names, weights: specs }], files: Object.fromEntries(names.map((n, i) => [n, pieces[i]])),
      });
      await noLeak(async () => {
        for (const d of [dir, dir2]) {
          const model = await tt.loadLayersModel(`file://${d}/model.json`);
          try {
            samePredictions(predictOn(tt, model, predictInputs(kind)), want, 1e-5, `${kind} sharded (${d})`);
          } finally {
            model.dispose();
          }
        }
        // Artifacts whose weightData is a list of ArrayBuffers (tfjs 4.22's WeightData).
        const model = await tt.loadLayersModel(tt.io.fromMemory({ ...artifacts, weightData: pieces.map((p) => p.slice().buffer) }));
        try {
          samePredictions(predictOn(tt, model, predictInputs(kind)), want, 1e-5, `${kind} weightData as shards`);
        } finally {
          model.dispose();
        }
      });
    }
  });

  const QUANT = {
    uint8: () => 'uint8',
    uint16: () => 'uint16',
    float16: () => 'float16',
    // Every kind in one file, so float32 and uint16 weights start at odd byte offsets.
    mixed: (i) => ['uint8', null, 'uint16', 'float16'][i % 4],
  };
  for (const [name, dtypeOf] of Object.entries(QUANT)) {
    it(`weights quantized as the converter writes them (${name}) predict as tfjs`, async () => {
      for (const kind of Object.keys(MODELS)) {
        const { artifacts } = await tfjsModel(kind);
        const q = quantize(artifacts.weightSpecs, artifacts.weightData, dtypeOf);
        const qArtifacts = { ...artifacts, ...q };
        const ref = await tfo.loadLayersModel(tfo.io.fromMemory(qArtifacts));
        const want = predictOn(tfo, ref, predictInputs(kind));
        const wantWeights = ref.getWeights().map((w) => Array.from(w.dataSync()));
        ref.dispose();
        const dir = newDir(`q-${name}-${kind}`);
        writeModelFiles(dir, qArtifacts);
        await noLeak(async () => {
          const model = await tt.loadLayersModel(`file://${dir}/model.json`);
          try {
            samePredictions(predictOn(tt, model, predictInputs(kind)), want, 1e-5, `${kind} ${name}`);
            model.getWeights().forEach((w, i) => closeArrays(Array.from(w.dataSync()), wantWeights[i], 0, `${kind} ${name} weight ${i}`));
          } finally {
            model.dispose();
          }
          // The same artifacts from memory.
          const fromMem = await tt.loadLayersModel(tt.io.fromMemory(qArtifacts));
          try {
            samePredictions(predictOn(tt, fromMem, predictInputs(kind)), want, 1e-5, `${kind} ${name} fromMemory`);
          } finally {
            fromMem.dispose();
          }
        });
      }
    });
  }

  it('the loaded topology round-trips: toJSON of the loaded model is the file\'s topology', async () => {
    for (const kind of Object.keys(MODELS)) {
      const { artifacts } = await tfjsModel(kind);
      await noLeak(async () => {
        const model = await tt.loadLayersModel(tt.io.fromMemory(artifacts));
        try {
          assert.deepEqual(normalizeTopology(model.toJSON(null, false)), normalizeTopology(artifacts.modelTopology), kind);
        } finally {
          model.dispose();
        }
      });
    }
  });
});

describe('file paths and topology variants', () => {
  it('relative file:// URLs and plain paths resolve against the working directory (as tfjs-node)', async () => {
    const base = newDir('rel');
    const cwd = process.cwd();
    await noLeak(async () => {
      const model = MODELS.mlp.build(tt);
      const want = predictOn(tt, model, predictInputs('mlp'));
      try {
        process.chdir(base);
        await model.save('file://rel1');
        await model.save('rel2');
        await model.save('file://./rel3');
      } finally {
        process.chdir(cwd);
        model.dispose();
      }
      assert.deepEqual(fs.readdirSync(base).sort(), ['rel1', 'rel2', 'rel3']);
      try {
        process.chdir(base);
        for (const p of ['file://rel1/model.json', 'rel2', './rel2/model.json', 'file://./rel3/model.json']) {
          const back = await tt.loadLayersModel(p);
          samePredictions(predictOn(tt, back, predictInputs('mlp')), want, 0, p);
          back.dispose();
        }
      } finally {
        process.chdir(cwd);
      }
    });
  });

  it('file:// paths with spaces and non-ASCII names', async () => {
    await noLeak(async () => {
      const model = MODELS.mlp.build(tt);
      try {
        for (const name of ['a b', 'ü日本', '100%']) {
          const dir = path.join(newDir('names'), name);
          await model.save(`file://${dir}`);
          assert.deepEqual(fs.readdirSync(dir).sort(), ['model.json', 'weights.bin'], name);
          (await tt.loadLayersModel(`file://${dir}/model.json`)).dispose();
          (await tt.loadLayersModel(dir)).dispose();
        }
      } finally {
        model.dispose();
      }
    });
  });

  it('file:// paths are taken literally as tfjs-node does (#, ?, %20 in names)', async () => {
    await noLeak(async () => {
      const model = MODELS.mlp.build(tt);
      try {
        for (const name of ['a#b', 'a?b', 'a%20b']) {
          const parent = newDir('literal');
          await model.save(`file://${path.join(parent, name)}`);
          assert.deepEqual(fs.readdirSync(parent), [name], `saved into ${fs.readdirSync(parent)}`);
        }
      } finally {
        model.dispose();
      }
    });
  });

  it('Keras-style weight names (layer/layer/kernel) are matched as tfjs does', async () => {
    const { artifacts, want } = await tfjsModel('cnn');
    const weightSpecs = artifacts.weightSpecs.map((s) => ({ ...s, name: s.name.replace(/^(\w+)\//, '$1/$1/') }));
    assert.ok(weightSpecs[0].name.startsWith('c1/c1/'));
    await noLeak(async () => {
      const model = await tt.loadLayersModel(tt.io.fromMemory({ ...artifacts, weightSpecs }));
      samePredictions(predictOn(tt, model, predictInputs('cnn')), want, 1e-5);
      model.dispose();
    });
  });

  it('a Sequential topology whose config is the list of layers (old Keras) loads as in tfjs', async () => {
    const { artifacts, want } = await tfjsModel('mlp');
    const modelTopology = JSON.parse(JSON.stringify(artifacts.modelTopology));
    modelTopology.config = modelTopology.config.layers;
    // Also wrapped as Keras' converter writes it: {model_config, training_config}.
    const wrapped = { keras_version: '2.2.4', backend: 'tensorflow', model_config: artifacts.modelTopology, training_config: { loss: 'mse' } };
    for (const topology of [modelTopology, wrapped]) {
      const ref = await tfo.loadLayersModel(tfo.io.fromMemory({ ...artifacts, modelTopology: topology }));
      samePredictions(predictOn(tfo, ref, predictInputs('mlp')), want, 0);
      ref.dispose();
      await noLeak(async () => {
        const model = await tt.loadLayersModel(tt.io.fromMemory({ ...artifacts, modelTopology: topology }));
        samePredictions(predictOn(tt, model, predictInputs('mlp')), want, 1e-5);
        assert.ok(model.optimizer == null, 'training_config inside the topology is ignored (as tfjs)');
        model.dispose();
      });
    }
  });

  it('frozen layers: trainable false is saved and restored; trainableOnly saves the trainable weights (as tfjs)', async () => {
    const build = (tf) => {
      const m = MODELS.cnn.build(tf);
      m.getLayer('c1').trainable = false;
      return m;
    };
    const ref = build(tfo);
    const wantAll = await tfjsArtifacts(ref);
    const wantTrainable = await tfjsArtifacts(ref, { trainableOnly: true });
    ref.dispose();
    await noLeak(async () => {
      const model = build(tt);
      try {
        let all;
        let trainable;
        await model.save(tt.io.withSaveHandler(async (a) => { all = a; return {}; }));
        await model.save(tt.io.withSaveHandler(async (a) => { trainable = a; return {}; }), { trainableOnly: true });
        assert.deepEqual(all.weightSpecs, wantAll.weightSpecs);
        assert.deepEqual(trainable.weightSpecs, wantTrainable.weightSpecs);
        assert.equal(all.modelTopology.config.layers[0].config.trainable, false);
        const back = await tt.loadLayersModel(tt.io.fromMemory(all));
        assert.equal(back.getLayer('c1').trainable, false);
        assert.deepEqual(back.trainableWeights.map((w) => w.originalName), model.trainableWeights.map((w) => w.originalName));
        back.dispose();
        // The trainable-only file lacks the frozen and moving weights: strict refuses, strict false loads.
        await rejectsWith(tt.loadLayersModel(tt.io.fromMemory(trainable)), /weights are not set/);
        (await tt.loadLayersModel(tt.io.fromMemory(trainable), { strict: false })).dispose();
      } finally {
        model.dispose();
      }
    });
  });

  it('a Sequential begun with tf.layers.inputLayer keeps its InputLayer in the topology (as tfjs)', () => {
    const build = (tf) => tf.sequential({
      name: 'withinput', layers: [tf.layers.inputLayer({ inputShape: [4], name: 'inp' }), tf.layers.dense({ units: 2, name: 'dd' })],
    });
    const a = build(tt);
    const b = build(tfo);
    try {
      const got = a.toJSON(null, false).config.layers.map((l) => [l.class_name, l.config.name]);
      const want = b.toJSON(null, false).config.layers.map((l) => [l.class_name, l.config.name]);
      assert.deepEqual(got, want);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('a tfjs file of a Sequential begun with an InputLayer loads here', async () => {
    const ref = tfo.sequential({
      name: 'withinput', layers: [tfo.layers.inputLayer({ inputShape: [4], name: 'inp' }), tfo.layers.dense({ units: 2, name: 'dd' })],
    });
    const artifacts = await tfjsArtifacts(ref);
    const inputs = [inputOf([2, 4], 5)];
    const want = predictOn(tfo, ref, inputs);
    ref.dispose();
    await noLeak(async () => {
      const model = await tt.loadLayersModel(tt.io.fromMemory(artifacts));
      samePredictions(predictOn(tt, model, inputs), want, 1e-6);
      model.dispose();
    });
  });
});

// ---- toJSON differences ---------------------------------------------------------------------

// Paths where two JSON values differ: ['path: tt=… tfjs=…'].
function jsonDiff(got, want, p = '', out = []) {
  if (got === want) return out;
  const isObj = (x) => x !== null && typeof x === 'object';
  if (!isObj(got) || !isObj(want) || Array.isArray(got) !== Array.isArray(want)) {
    out.push(`${p}: tt=${JSON.stringify(got)} tfjs=${JSON.stringify(want)}`);
    return out;
  }
  for (const k of new Set([...Object.keys(got), ...Object.keys(want)])) jsonDiff(got[k], want[k], `${p}.${k}`, out);
  return out;
}

// tidytensor's layer configs are tfjs's exactly, but where tfjs 4.22 writes something that would
// reload wrong (the models here avoid these):
// - SeparableConv2D: tfjs leaves out `depth_multiplier` (then reloads it as 1); tidytensor writes
//   it when it is not 1;
// - DepthwiseConv2D: tfjs writes the depthwise regularizer as `depthwise_constraint`; tidytensor
//   writes the constraint (and reads an L1L2 there, from tfjs's files, as none);
// - SeparableConv2D: tfjs uses (and writes) the depthwise initializer as the pointwise one;
//   tidytensor uses and writes `pointwise_initializer` as given;
// - a layer given a dtype other than float32 but no input shape: tfjs drops the dtype, tidytensor
//   keeps it (and writes it).
// One thing is normalised, for the round trip of a file (model.toJSON of a model loaded from it):
// an Embedding given inputLength (or a Dense given inputDim) has a batch_input_shape but no dtype;
// reloaded, tfjs's layer and tidytensor's have a batch input shape, so dtype 'float32' too.
function normalizeTopology(topology) {
  const t = JSON.parse(JSON.stringify(topology));
  const config = t.model_config ? t.model_config.config : t.config;
  for (const layer of config.layers) {
    const c = layer.config;
    if (layer.class_name === 'Embedding' && c.input_length != null && c.dtype === 'float32') delete c.dtype;
  }
  return t;
}

describe('model.toJSON', () => {
  for (const kind of Object.keys(MODELS)) {
    it(`${kind}: equals tfjs's for the same model (after the known differences)`, () => {
      const a = MODELS[kind].build(tt);
      const b = MODELS[kind].build(tfo);
      try {
        const got = a.toJSON(null, false);
        const want = b.toJSON(null, false);
        assert.deepEqual(jsonDiff(normalizeTopology(got), normalizeTopology(want)), []);
        assert.equal(typeof a.toJSON(), 'string');
        assert.deepEqual(JSON.parse(a.toJSON()), got);
      } finally {
        a.dispose();
        b.dispose();
      }
    });
  }

  it('equals tfjs\'s exactly (no normalisation)', () => {
    const diffs = [];
    for (const kind of Object.keys(MODELS)) {
      const a = MODELS[kind].build(tt);
      const b = MODELS[kind].build(tfo);
      diffs.push(...jsonDiff(a.toJSON(null, false), b.toJSON(null, false)).map((d) => `${kind}${d}`));
      a.dispose();
      b.dispose();
    }
    assert.deepEqual(diffs, []);
  });
});


// ---- 2. models saved here load in tfjs --------------------------------------------------------

// Loads model directories in @tensorflow/tfjs in a child process. Each job: {dir, inputs,
// optimizer (read the optimizer's weights), fit: {xs, ys, epochs, batchSize}}; returns per job
// {predict, optimizerWeights, loss, trainingConfig}.
const CHILD = `
const fs = require('fs');
const path = require('path');
const tf = require(${JSON.stringify(path.join(NODE_MODULES, '@tensorflow', 'tfjs'))});
tf.setBackend('cpu');
tf.backend().firstUse = false;
const jobs = JSON.parse(fs.readFileSync(0, 'utf8'));
const plain = (t) => ({ shape: t.shape, values: Array.from(t.dataSync()) });
(async () => {
  const out = [];
  for (const job of jobs) {
    const modelJSON = JSON.parse(fs.readFileSync(path.join(job.dir, 'model.json'), 'utf8'));
    const buffers = [];
    const weightSpecs = [];
    for (const group of modelJSON.weightsManifest) {
      for (const p of group.paths) buffers.push(fs.readFileSync(path.join(job.dir, p)));
      weightSpecs.push(...group.weights);
    }
    const all = Buffer.concat(buffers);
    const model = await tf.loadLayersModel(tf.io.fromMemory({
      modelTopology: modelJSON.modelTopology, weightSpecs, trainingConfig: modelJSON.trainingConfig,
      weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      format: modelJSON.format, generatedBy: modelJSON.generatedBy, convertedBy: modelJSON.convertedBy,
    }));
    const r = { className: model.getClassName(), names: model.weights.map((w) => w.originalName) };
    const xs = job.inputs.map((i) => tf.tensor(i.values, i.shape));
    const y = model.predict(xs.length === 1 ? xs[0] : xs);
    r.predict = (Array.isArray(y) ? y : [y]).map(plain);
    if (job.optimizer) {
      r.optimizerClass = model.optimizer.getClassName();
      r.optimizerWeights = (await model.optimizer.getWeights()).map((w) => ({ name: w.name, ...plain(w.tensor) }));
    }
    if (job.fit) {
      const fx = job.fit.xs.map((i) => tf.tensor(i.values, i.shape));
      const fy = job.fit.ys.map((i) => tf.tensor(i.values, i.shape));
      const h = await model.fit(fx.length === 1 ? fx[0] : fx, fy.length === 1 ? fy[0] : fy,
        { epochs: job.fit.epochs, batchSize: job.fit.batchSize, shuffle: false, verbose: 0 });
      r.history = h.history;
    }
    out.push(r);
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => {
  console.error(e.stack);
  process.exit(1);
});
`;

function inTfjs(jobs) {
  const r = spawnSync(process.execPath, ['-e', CHILD], { input: JSON.stringify(jobs), cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `tfjs child failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('models saved by tidytensor load in tfjs', () => {
  // kind -> {dir, result, want (tt's predictions)}; all kinds go to one child process.
  let saved = null;
  async function saveAll() {
    if (saved) return saved;
    saved = {};
    for (const kind of Object.keys(MODELS)) {
      const before = tt.memory().numTensors;
      const model = MODELS[kind].build(tt);
      await train(tt, model, kind);
      const dir = newDir(`tt-${kind}`);
      const result = await model.save(`file://${dir}`);
      const want = predictOn(tt, model, predictInputs(kind));
      const names = model.weights.map((w) => w.originalName);
      const bnMean = kind === 'cnn' ? Array.from(model.getLayer('bn1').getWeights()[2].dataSync()) : null;
      model.dispose();
      model.optimizer.dispose();
      assert.equal(tt.memory().numTensors, before, `${kind}: tensors left after save + dispose`);
      saved[kind] = { dir, result, want, names, bnMean };
    }
    const out = inTfjs(Object.keys(MODELS).map((kind) => ({ dir: saved[kind].dir, inputs: predictInputs(kind) })));
    Object.keys(MODELS).forEach((kind, i) => { saved[kind].tfjs = out[i]; });
    return saved;
  }

  for (const kind of Object.keys(MODELS)) {
    it(`${kind}: model.json and weights.bin as tfjs-node writes them`, async () => {
      const { dir, result } = (await saveAll())[kind];
      assert.deepEqual(fs.readdirSync(dir).sort(), ['model.json', 'weights.bin']);
      const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      assert.deepEqual(Object.keys(modelJSON).sort(), ['convertedBy', 'format', 'generatedBy', 'modelTopology', 'weightsManifest']);
      assert.equal(modelJSON.format, 'layers-model');
      assert.equal(modelJSON.generatedBy, `TensorFlow.js tfjs-layers v${tfo.version_layers}`);
      assert.equal(modelJSON.convertedBy, null);
      assert.equal(modelJSON.weightsManifest.length, 1);
      assert.deepEqual(modelJSON.weightsManifest[0].paths, ['weights.bin']);
      // The same weight specs (names, shapes, dtypes, order) as tfjs saves for the same model.
      const ref = MODELS[kind].build(tfo);
      const refArtifacts = await tfjsArtifacts(ref);
      ref.dispose();
      assert.deepEqual(modelJSON.weightsManifest[0].weights, refArtifacts.weightSpecs);
      assert.equal(modelJSON.modelTopology.class_name, refArtifacts.modelTopology.class_name);
      assert.equal(modelJSON.modelTopology.keras_version, refArtifacts.modelTopology.keras_version);
      assert.equal(modelJSON.modelTopology.backend, refArtifacts.modelTopology.backend);
      // The SaveResult.
      const info = result.modelArtifactsInfo;
      assert.ok(info.dateSaved instanceof Date);
      assert.equal(info.modelTopologyType, 'JSON');
      assert.equal(info.modelTopologyBytes, Buffer.byteLength(JSON.stringify(modelJSON.modelTopology)));
      assert.equal(info.weightSpecsBytes, Buffer.byteLength(JSON.stringify(modelJSON.weightsManifest[0].weights)));
      const bytes = fs.statSync(path.join(dir, 'weights.bin')).size;
      assert.equal(info.weightDataBytes, bytes);
      assert.equal(bytes, modelJSON.weightsManifest[0].weights.reduce((s, w) => s + 4 * size(w.shape), 0));
    });

    it(`${kind}: tfjs loads the files and predicts as tidytensor`, async () => {
      const { want, tfjs, names, bnMean } = (await saveAll())[kind];
      assert.equal(tfjs.className, ['functional', 'shared'].includes(kind) ? 'Model' : 'Sequential');
      assert.deepEqual(tfjs.names, names);
      samePredictions(tfjs.predict, want, 1e-5, `${kind} in tfjs`);
      if (bnMean) assert.ok(bnMean.some((v) => Math.abs(v) > 1e-3), 'tidytensor BN moving mean moved');
    });
  }

  it('saves through a plain path, a new nested directory and tf.io.fileSystem', async () => {
    await noLeak(async () => {
      const model = MODELS.mlp.build(tt);
      try {
        const want = predictOn(tt, model, predictInputs('mlp'));
        const base = newDir('paths');
        const targets = [path.join(base, 'plain'), path.join(base, 'a', 'b', 'c'), path.join(base, 'fs')];
        await model.save(targets[0]);
        await model.save(`file://${targets[1]}`);
        await model.save(tt.io.fileSystem(targets[2]));
        for (const d of targets) {
          assert.deepEqual(fs.readdirSync(d).sort(), ['model.json', 'weights.bin'], d);
          const back = await tt.loadLayersModel(tt.io.fileSystem(path.join(d, 'model.json')));
          samePredictions(predictOn(tt, back, predictInputs('mlp')), want, 0, d);
          back.dispose();
        }
        // Saving again into the same directory overwrites it.
        await model.save(targets[0]);
        assert.deepEqual(fs.readdirSync(targets[0]).sort(), ['model.json', 'weights.bin']);
      } finally {
        model.dispose();
      }
    });
  });

  it('a model without weights: an empty weights.bin, loadable here and in tfjs', async () => {
    const build = (tf) => tf.sequential({
      name: 'noweights', layers: [tf.layers.flatten({ inputShape: [2, 2], name: 'f' }), tf.layers.activation({ activation: 'relu', name: 'a' })],
    });
    const dir = newDir('noweights');
    const inputs = [inputOf([2, 2, 2], 3)];
    await noLeak(async () => {
      const model = build(tt);
      const result = await model.save(dir);
      model.dispose();
      assert.equal(result.modelArtifactsInfo.weightDataBytes, 0);
      assert.equal(fs.statSync(path.join(dir, 'weights.bin')).size, 0);
      const back = await tt.loadLayersModel(dir);
      const [got] = predictOn(tt, back, inputs);
      back.dispose();
      const [child] = inTfjs([{ dir, inputs }]);
      samePredictions([got], child.predict, 0);
    });
    const ref = build(tfo);
    const artifacts = await tfjsArtifacts(ref);
    ref.dispose();
    await noLeak(async () => (await tt.loadLayersModel(tt.io.fromMemory(artifacts))).dispose());
  });

  it('withSaveHandler receives tfjs\'s artifacts fields; userDefinedMetadata is saved', async () => {
    await noLeak(async () => {
      const model = MODELS.mlp.build(tt);
      try {
        let artifacts;
        const result = await model.save(tt.io.withSaveHandler(async (a) => {
          artifacts = a;
          return { modelArtifactsInfo: tt.io.getModelArtifactsInfoForJSON(a), custom: 1 };
        }));
        assert.equal(result.custom, 1);
        const ref = MODELS.mlp.build(tfo);
        const want = await tfjsArtifacts(ref);
        ref.dispose();
        assert.deepEqual(Object.keys(artifacts).sort(), Object.keys(want).sort());
        assert.ok(artifacts.weightData instanceof ArrayBuffer);
        assert.deepEqual(artifacts.weightSpecs, want.weightSpecs);
        assert.equal(artifacts.format, want.format);
        assert.equal(artifacts.generatedBy, want.generatedBy);
        assert.equal(artifacts.convertedBy, want.convertedBy);
        // withSaveHandlerSync
        let syncArtifacts;
        await model.save(tt.io.withSaveHandlerSync((a) => {
          syncArtifacts = a;
          return { modelArtifactsInfo: tt.io.getModelArtifactsInfoForJSON(a) };
        }));
        assert.deepEqual(syncArtifacts.weightSpecs, want.weightSpecs);
        // userDefinedMetadata goes into model.json and comes back.
        model.setUserDefinedMetadata({ labels: ['a', 'b', 'c'] });
        const dir = newDir('meta');
        await model.save(dir);
        const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
        assert.deepEqual(modelJSON.userDefinedMetadata, { labels: ['a', 'b', 'c'] });
        const back = await tt.loadLayersModel(dir);
        assert.deepEqual(back.getUserDefinedMetadata(), { labels: ['a', 'b', 'c'] });
        back.dispose();
      } finally {
        model.dispose();
      }
    });
  });
});

// ---- 6. includeOptimizer ------------------------------------------------------------------------

describe('includeOptimizer', () => {
  const compileArgs = (tf) => ({ optimizer: tf.train.adam(0.01), loss: 'categoricalCrossentropy', metrics: ['accuracy'] });
  const fitData = (tf) => {
    const { xs, ys } = dataOf('mlp', 12);
    return [tf.tensor(xs[0].values, xs[0].shape), tf.tensor(ys[0].values, ys[0].shape)];
  };
  async function fit(tf, model, epochs) {
    const [x, y] = fitData(tf);
    const h = await model.fit(x, y, { epochs, batchSize: 4, shuffle: false, verbose: 0 });
    tf.dispose([x, y]);
    return h.history;
  }
  // Optimizer weights are named after the variables ('d1/kernel_12/m'); the suffix that makes
  // variable names unique differs from model to model, so it is dropped.
  const plainName = (name) => name.replace(/_\d+\/([^/]+)$/, '/$1');
  // (getWeights makes a new scalar for 'iter'; the rest are the optimizer's variables.)
  async function optimizerValues(model) {
    const ws = await model.optimizer.getWeights();
    const out = ws.map((w) => ({ name: plainName(w.name), shape: w.tensor.shape, values: Array.from(w.tensor.dataSync()) }));
    ws.filter((w) => w.name === 'iter').forEach((w) => w.tensor.dispose());
    return out;
  }

  it('trainingConfig and optimizer weights as tfjs writes them; loading restores the optimizer', async () => {
    const before = tt.memory().numTensors;
    const model = MODELS.mlp.build(tt);
    model.compile(compileArgs(tt));
    await fit(tt, model, 2);
    const dir = newDir('opt');
    const beforeSave = tt.memory().numTensors;
    await model.save(`file://${dir}`, { includeOptimizer: true });
    assert.equal(tt.memory().numTensors - beforeSave, 0, 'save with includeOptimizer leaked');
    const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));

    // tfjs, same model, same compile, same training, same save.
    const ref = MODELS.mlp.build(tfo);
    ref.compile(compileArgs(tfo));
    await fit(tfo, ref, 2);
    const want = await tfjsArtifacts(ref, { includeOptimizer: true });
    const refOptNames = (await optimizerValues(ref)).map((w) => w.name);
    ref.optimizer.dispose();
    ref.dispose();
    assert.deepEqual(modelJSON.trainingConfig, want.trainingConfig);
    const specs = modelJSON.weightsManifest[0].weights;
    // Model weights first, then the optimizer's (group 'optimizer'), as tfjs.
    assert.deepEqual(specs.map((s) => [plainName(s.name), s.shape, s.dtype, s.group]),
      want.weightSpecs.map((s) => [plainName(s.name), s.shape, s.dtype, s.group]));
    assert.ok(specs.some((s) => s.group === 'optimizer'));
    assert.deepEqual(specs.filter((s) => s.group === 'optimizer').map((s) => plainName(s.name)), refOptNames);
    assert.equal(fs.statSync(path.join(dir, 'weights.bin')).size, specs.reduce((s, w) => s + 4 * size(w.shape), 0));

    // Loading here gives a compiled model with the same optimizer state.
    const loaded = await tt.loadLayersModel(`file://${dir}/model.json`);
    assert.ok(loaded.optimizer != null, 'compiled');
    assert.equal(loaded.optimizer.getClassName(), 'Adam');
    assert.deepEqual(loaded.optimizer.getConfig(), model.optimizer.getConfig());
    const wantOpt = await optimizerValues(model);
    const gotOpt = await optimizerValues(loaded);
    assert.deepEqual(gotOpt.map((w) => [w.name, w.shape]), wantOpt.map((w) => [w.name, w.shape]));
    gotOpt.forEach((w, i) => closeArrays(w.values, wantOpt[i].values, 0, `optimizer weight ${w.name}`));
    const inputs = predictInputs('mlp');

    // tfjs loads the file with its optimizer and continues training (child process).
    const { xs, ys } = dataOf('mlp', 12);
    const [child] = inTfjs([{ dir, inputs, optimizer: true, fit: { xs, ys, epochs: 1, batchSize: 4 } }]);

    // Continuing training: the loaded model and the original give the same loss.
    const h1 = await fit(tt, model, 1);
    const h2 = await fit(tt, loaded, 1);
    closeArrays(h2.loss, h1.loss, 1e-5, 'loss after loading');
    closeArrays(h2.acc || h2.accuracy, h1.acc || h1.accuracy, 1e-5, 'accuracy after loading');
    samePredictions(predictOn(tt, loaded, inputs), predictOn(tt, model, inputs), 1e-5, 'after one more epoch');

    assert.equal(child.optimizerClass, 'Adam');
    assert.deepEqual(child.optimizerWeights.map((w) => [plainName(w.name), w.shape]), wantOpt.map((w) => [w.name, w.shape]));
    child.optimizerWeights.forEach((w, i) => closeArrays(w.values, wantOpt[i].values, 0, `tfjs optimizer weight ${w.name}`));
    closeArrays(child.history.loss, h1.loss, 1e-4, 'tfjs loss continuing from our file');

    loaded.optimizer.dispose();
    loaded.dispose();
    model.optimizer.dispose();
    model.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('model.save with includeOptimizer leaks nothing (tfjs 4.22 leaks the iteration scalar)', async () => {
    const model = MODELS.mlp.build(tt);
    model.compile(compileArgs(tt));
    await fit(tt, model, 1);
    try {
      await noLeak(() => model.save(tt.io.withSaveHandler(async () => ({ modelArtifactsInfo: {} })), { includeOptimizer: true }));
    } finally {
      model.optimizer.dispose();
      model.dispose();
    }
  });

  it('a tfjs file with its optimizer loads here and continues training as tfjs', async () => {
    const ref = MODELS.mlp.build(tfo);
    ref.compile(compileArgs(tfo));
    await fit(tfo, ref, 2);
    const artifacts = await tfjsArtifacts(ref, { includeOptimizer: true });
    const dir = newDir('tfjs-opt');
    writeModelFiles(dir, artifacts);
    const refOpt = await optimizerValues(ref);
    await noLeak(async () => {
      const loaded = await tt.loadLayersModel(`file://${dir}/model.json`);
      try {
        const got = await optimizerValues(loaded);
        assert.deepEqual(got.map((w) => [w.name, w.shape]), refOpt.map((w) => [w.name, w.shape]));
        got.forEach((w, i) => closeArrays(w.values, refOpt[i].values, 0, `optimizer weight ${w.name}`));
        const h = await fit(tt, loaded, 1);
        const want = await fit(tfo, ref, 1);
        closeArrays(h.loss, want.loss, 1e-4, 'loss');
      } finally {
        loaded.optimizer.dispose();
        loaded.dispose();
      }
    });
    ref.optimizer.dispose();
    ref.dispose();
  });

  const OPTIMIZERS = [
    ['sgd', 'mlp', (tf) => tf.train.sgd(0.05)],
    ['momentum', 'functional', (tf) => tf.train.momentum(0.05, 0.9, true)],
    // (Not the cnn: its dropout makes training random.)
    ['rmsprop', 'conv2', (tf) => tf.train.rmsprop(0.01, 0.9, 0.1, 1e-6, false)],
    ['adagrad', 'rnn', (tf) => tf.train.adagrad(0.1, 0.2)],
    ['adadelta', 'shared', (tf) => tf.train.adadelta(1, 0.9, 1e-6)],
  ];
  for (const [name, kind, makeOptimizer] of OPTIMIZERS) {
    it(`${name} (${kind}): trainingConfig as tfjs's; the loaded model continues training as the original`, async () => {
      const compile = (tf, model) => model.compile({
        optimizer: makeOptimizer(tf), loss: lossesOf(kind), metrics: ['accuracy', 'categoricalCrossentropy'],
      });
      const ref = MODELS[kind].build(tfo);
      compile(tfo, ref);
      await train(tfo, ref, kind, { epochs: 2, compile: false });
      const want = await tfjsArtifacts(ref, { includeOptimizer: true });
      ref.optimizer.dispose();
      ref.dispose();
      const before = tt.memory().numTensors;
      const model = MODELS[kind].build(tt);
      compile(tt, model);
      await train(tt, model, kind, { epochs: 2, compile: false });
      const dir = newDir(`opt-${name}`);
      const beforeSave = tt.memory().numTensors;
      await model.save(dir, { includeOptimizer: true });
      assert.equal(tt.memory().numTensors, beforeSave, 'save leaked');
      const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      assert.deepEqual(modelJSON.trainingConfig, want.trainingConfig);
      const optSpecs = (specs) => specs.filter((sp) => sp.group === 'optimizer').map((sp) => [plainName(sp.name), sp.shape]);
      assert.deepEqual(optSpecs(modelJSON.weightsManifest[0].weights), optSpecs(want.weightSpecs));
      const loaded = await tt.loadLayersModel(dir);
      assert.equal(loaded.optimizer.getClassName(), model.optimizer.getClassName());
      assert.deepEqual(loaded.optimizer.getConfig(), model.optimizer.getConfig());
      const h1 = await train(tt, model, kind, { epochs: 1, compile: false });
      const h2 = await train(tt, loaded, kind, { epochs: 1, compile: false });
      assert.deepEqual(Object.keys(h2.history).sort(), Object.keys(h1.history).sort());
      for (const k of Object.keys(h1.history)) closeArrays(h2.history[k], h1.history[k], 1e-5, k);
      loaded.optimizer.dispose();
      loaded.dispose();
      model.optimizer.dispose();
      model.dispose();
      assert.equal(tt.memory().numTensors, before);
    });
  }

  it('without includeOptimizer nothing of the optimizer is saved and the loaded model is not compiled', async () => {
    await noLeak(async () => {
      const model = MODELS.mlp.build(tt);
      model.compile(compileArgs(tt));
      await fit(tt, model, 1);
      const dir = newDir('noopt');
      await model.save(dir);
      const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      assert.equal(modelJSON.trainingConfig, undefined);
      assert.ok(modelJSON.weightsManifest[0].weights.every((s) => s.group == null));
      const loaded = await tt.loadLayersModel(dir);
      assert.ok(loaded.optimizer == null, 'not compiled');
      loaded.dispose();
      model.optimizer.dispose();
      model.dispose();
    });
  });
});

// ---- 7. the same file twice ---------------------------------------------------------------------

describe('loading one file twice', () => {
  it('gives two independent models with the same original weight names and predictions', async () => {
    const { artifacts, want } = await tfjsModel('cnn');
    const dir = newDir('twice');
    writeModelFiles(dir, artifacts);
    await noLeak(async () => {
      const a = await tt.loadLayersModel(dir);
      const b = await tt.loadLayersModel(`file://${dir}/model.json`);
      try {
        assert.deepEqual(a.weights.map((w) => w.originalName), b.weights.map((w) => w.originalName));
        const names = new Set([...a.weights, ...b.weights].map((w) => w.name));
        assert.equal(names.size, a.weights.length * 2, 'variable names are unique');
        samePredictions(predictOn(tt, a, predictInputs('cnn')), want, 1e-5, 'first');
        samePredictions(predictOn(tt, b, predictInputs('cnn')), want, 1e-5, 'second');
        // Changing one leaves the other alone.
        const w0 = a.getLayer('out').getWeights();
        const zeros = w0.map((w) => tt.zerosLike(w));
        a.getLayer('out').setWeights(zeros);
        tt.dispose(zeros);
        samePredictions(predictOn(tt, b, predictInputs('cnn')), want, 1e-5, 'second after changing the first');
      } finally {
        a.dispose();
        b.dispose();
      }
    });
  });
});

// ---- 3. layers models bundled by npm packages ------------------------------------------------

// x[i] = ((i * 37) % 256) / 255 of `shape`.
const patternOf = (shape) => Float32Array.from({ length: size(shape) }, (_, i) => ((i * 37) % 256) / 255);

describe('models from npm packages', () => {
  it('@upscalerjs/default-model (functional Conv2D/Concatenate/Add/UpSampling2D) predicts as tfjs', async () => {
    const dir = path.join(NODE_MODULES, '@upscalerjs', 'default-model', 'models');
    const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
    const weights = fs.readFileSync(path.join(dir, modelJSON.weightsManifest[0].paths[0]));
    const x = patternOf([1, 16, 16, 3]);
    const ref = await tfo.loadLayersModel(tfo.io.fromMemory({
      modelTopology: modelJSON.modelTopology,
      weightSpecs: tfo.io.getWeightSpecs(modelJSON.weightsManifest),
      weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    }));
    const want = tfo.tidy(() => ref.predict(tfo.tensor(x, [1, 16, 16, 3])));
    const wantValues = Array.from(want.dataSync());
    assert.deepEqual(want.shape, [1, 32, 32, 3]);
    tfo.dispose(want);
    ref.dispose();
    await noLeak(async () => {
      const model = await tt.loadLayersModel(`file://${dir}/model.json`);
      try {
        assert.deepEqual(model.inputs[0].shape, [null, null, null, 3]);
        const [got] = predictOn(tt, model, [{ shape: [1, 16, 16, 3], values: Array.from(x) }]);
        assert.deepEqual(got.shape, [1, 32, 32, 3]);
        closeArrays(got.values, wantValues, 1e-4, 'upscaler', true);
        // The values tfjs gives (recorded).
        const sum = got.values.reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(sum - 1541.5245) < 1e-2, `sum ${sum}`);
        closeArrays(got.values.slice(0, 2), [0.243023, 0.218611], 1e-5, 'first values');
        // A different input size works with the same model (input [null, null, null, 3]).
        const [other] = predictOn(tt, model, [{ shape: [1, 8, 12, 3], values: Array.from(patternOf([1, 8, 12, 3])) }]);
        assert.deepEqual(other.shape, [1, 16, 24, 3]);
      } finally {
        model.dispose();
      }
    });
  });

  // nsfwjs ships its model as JS modules: model.min.js exports {modelTopology, weightsManifest}
  // (keras 2.2.4 'Model', uint8-quantized weights, no `format`) and each shard module a base64
  // string; the package feeds them to tf.loadLayersModel through its JSONHandler.
  const NSFW_DIR = path.join(NODE_MODULES, 'nsfwjs', 'dist', 'models', 'mobilenet_v2');
  function nsfwHandler() {
    const modelJson = require(path.join(NSFW_DIR, 'model.min.js'));
    const bundles = { 'group1-shard1of1': require(path.join(NSFW_DIR, 'group1-shard1of1.min.js')) };
    // As nsfwjs's JSONHandler.load().
    return {
      async load() {
        const artifacts = {
          modelTopology: modelJson.modelTopology, format: modelJson.format,
          generatedBy: modelJson.generatedBy, convertedBy: modelJson.convertedBy,
        };
        const weightSpecs = [];
        const weightData = [];
        for (const group of modelJson.weightsManifest) {
          for (const p of group.paths) weightData.push(new Uint8Array(Buffer.from(bundles[p], 'base64')));
          weightSpecs.push(...group.weights);
        }
        artifacts.weightSpecs = weightSpecs;
        const all = new Uint8Array(weightData.reduce((a, b) => a + b.length, 0));
        let offset = 0;
        for (const w of weightData) {
          all.set(w, offset);
          offset += w.byteLength;
        }
        artifacts.weightData = all.buffer;
        return artifacts;
      },
    };
  }
  const NSFW_REFERENCE = [0.401782, 0.013442, 0.578092, 0.005272, 0.00141];
  const nsfwInput = () => ({ shape: [1, 224, 224, 3], values: Array.from(patternOf([1, 224, 224, 3])) });

  it('nsfwjs MobileNetV2 (uint8-quantized, keras 2.2.4) loads through an IOHandler and predicts as tfjs', async () => {
    const artifacts = await nsfwHandler().load();
    assert.equal(artifacts.format, undefined);
    assert.equal(artifacts.modelTopology.keras_version, '2.2.4');
    assert.ok(artifacts.weightSpecs.every((s) => s.quantization && s.quantization.dtype === 'uint8'));
    await noLeak(async () => {
      const model = await tt.loadLayersModel(nsfwHandler());
      try {
        assert.deepEqual(model.outputs[0].shape, [null, 5]);
        // Every weight as tfjs decodes it (uint8 * scale + min).
        const ref = await tfo.loadLayersModel(tfo.io.fromMemory(artifacts));
        assert.deepEqual(model.weights.map((w) => w.originalName), ref.weights.map((w) => w.originalName));
        const got = model.getWeights();
        ref.getWeights().forEach((w, i) => {
          assert.deepEqual(got[i].shape, w.shape);
          closeArrays(got[i].dataSync(), w.dataSync(), 0, `weight ${ref.weights[i].originalName}`);
        });
        // (tfjs's cpu backend takes ~2 s here; tidytensor ~1 s on cpu and on wgpu/lavapipe.)
        const want = predictOn(tfo, ref, [nsfwInput()]);
        const [out] = predictOn(tt, model, [nsfwInput()]);
        assert.deepEqual(out.shape, [1, 5]);
        closeArrays(out.values, want[0].values, 1e-4, 'nsfwjs vs tfjs');
        closeArrays(out.values, NSFW_REFERENCE, 1e-5, 'nsfwjs vs recorded');
        ref.dispose();
      } finally {
        model.dispose();
      }
    });
  });

  // nsfwjs's own code, unchanged, with its require('@tensorflow/tfjs') resolved to tidytensor
  // (in a child process, the redirect active only while nsfwjs's modules load).
  // (nsfwjs.load() spends ~7 s in its own __importStar over the 3.5 MB base64 string module.)
  it('nsfwjs itself runs on tidytensor: load() then classify(tensor3d)', () => {
    const script = `
      const path = require('path');
      const Module = require('module');
      const tt = require(${JSON.stringify(ROOT)});
      if (process.env.TIDYTENSOR_BACKEND) tt.setBackend(process.env.TIDYTENSOR_BACKEND);
      const start = tt.memory().numTensors;
      const pkg = ${JSON.stringify(path.join(NODE_MODULES, 'nsfwjs') + path.sep)};
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, parent, ...rest) {
        if (request === '@tensorflow/tfjs' && parent && parent.filename && parent.filename.startsWith(pkg)) {
          return ${JSON.stringify(path.join(ROOT, 'index.js'))};
        }
        return resolve.call(this, request, parent, ...rest);
      };
      let nsfwjs;
      try {
        nsfwjs = require(pkg);
      } finally {
        Module._resolveFilename = resolve;
      }
      (async () => {
        const model = await nsfwjs.load();
        const px = Int32Array.from({ length: 224 * 224 * 3 }, (_, i) => (i * 37) % 256);
        const img = tt.tensor3d(px, [224, 224, 3], 'int32');
        const classes = await model.classify(img);
        img.dispose();
        model.dispose();
        console.log('RESULT ' + JSON.stringify({ classes, leaked: tt.memory().numTensors - start }));
      })().catch((e) => {
        console.error(e.stack);
        process.exit(1);
      });`;
    const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: process.env });
    assert.equal(r.status, 0, r.stderr);
    const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    const { classes, leaked } = JSON.parse(line.slice(7));
    const names = ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy'];
    const want = NSFW_REFERENCE.map((p, i) => ({ className: names[i], probability: p })).sort((a, b) => b.probability - a.probability);
    assert.deepEqual(classes.map((c) => c.className), want.map((c) => c.className));
    closeArrays(classes.map((c) => c.probability), want.map((c) => c.probability), 1e-5, 'probabilities');
    assert.equal(leaked, 0, 'tensors left after nsfwjs dispose()');
  });
});

// ---- 4. bad files -----------------------------------------------------------------------------

describe('bad model files give clear errors and leak nothing', () => {
  // A small saved model: {dir, modelJSON, weights}.
  let good = null;
  async function goodModel() {
    if (good) return good;
    const model = MODELS.mlp.build(tt);
    const dir = newDir('good');
    await model.save(dir);
    model.dispose();
    good = {
      dir,
      modelJSON: JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8')),
      weights: fs.readFileSync(path.join(dir, 'weights.bin')),
    };
    return good;
  }
  // A model directory made from the good one: `edit(modelJSON)` changes the JSON; `json` (a
  // string) or `weights` (bytes, or null for no file) replace the files.
  async function variant(name, { edit, json, weights } = {}) {
    const g = await goodModel();
    const dir = newDir(name);
    const modelJSON = JSON.parse(JSON.stringify(g.modelJSON));
    if (edit) edit(modelJSON);
    fs.writeFileSync(path.join(dir, 'model.json'), json != null ? json : JSON.stringify(modelJSON));
    if (weights !== null) fs.writeFileSync(path.join(dir, 'weights.bin'), weights || g.weights);
    return path.join(dir, 'model.json');
  }
  const fails = (what, ...patterns) => noLeak(() => rejectsWith(tt.loadLayersModel(...what), ...patterns));
  const esc = (s) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

  it('a missing model.json (file, directory, file:// URL): the message names the path', async () => {
    const missing = path.join(tmpRoot, 'no-such-dir', 'model.json');
    await fails([missing], esc(missing), /does not exist/);
    await fails([`file://${missing}`], esc(missing), /does not exist/);
    const empty = newDir('empty');
    await fails([empty], esc(path.join(empty, 'model.json')), /does not exist/);
  });

  it('a missing weight file: the message names it', async () => {
    const p = await variant('noweights', { weights: null });
    await fails([p], esc(path.join(path.dirname(p), 'weights.bin')), /does not exist/);
    // One missing shard among several.
    const q = await variant('noshard', {
      edit: (j) => { j.weightsManifest[0].paths = ['weights.bin', 'shard2.bin']; },
    });
    await fails([q], esc(path.join(path.dirname(q), 'shard2.bin')));
  });

  it('truncated weights are refused (the message says truncated and names the weight)', async () => {
    const g = await goodModel();
    const specs = g.modelJSON.weightsManifest[0].weights;
    const last = specs[specs.length - 1].name;
    await fails([await variant('trunc', { weights: g.weights.subarray(0, g.weights.length - 3) })], /truncated/, esc(last));
    await fails([await variant('trunc0', { weights: Buffer.alloc(0) })], /truncated/, esc(specs[0].name));
    // Through an IOHandler (no file sizes to check): decodeWeights refuses too.
    const artifacts = await tt.io.fileSystem(path.join(g.dir, 'model.json')).load();
    artifacts.weightData = artifacts.weightData.slice(0, 50);
    await fails([tt.io.fromMemory(artifacts)], /truncated/);
  });

  it('extra bytes after the weights are ignored (as tfjs)', async () => {
    const g = await goodModel();
    const p = await variant('extra-bytes', { weights: Buffer.concat([g.weights, Buffer.alloc(13, 7)]) });
    await noLeak(async () => {
      const model = await tt.loadLayersModel(p);
      const ref = await tt.loadLayersModel(g.dir);
      samePredictions(predictOn(tt, model, predictInputs('mlp')), predictOn(tt, ref, predictInputs('mlp')), 0);
      model.dispose();
      ref.dispose();
    });
  });

  it('invalid JSON, JSON without topology or manifest', async () => {
    const bad = await variant('badjson', { json: '{"modelTopology": {' });
    await fails([bad], esc(bad), /parse|JSON/i);
    const neither = await variant('neither', { json: JSON.stringify({ format: 'layers-model' }) });
    await fails([neither], /neither model topology or manifest/, esc(neither));
    const array = await variant('array', { json: '[1, 2]' });
    await fails([array], /neither model topology or manifest/);
    // A manifest without a topology cannot make a layers model.
    const manifestOnly = await variant('manifest-only', { edit: (j) => { delete j.modelTopology; } });
    await fails([manifestOnly], /topology/);
  });

  it('an unknown layer class: the message names the class', async () => {
    // First layer unknown (nothing built yet).
    const p = await variant('unknown', { edit: (j) => { j.modelTopology.config.layers[0].class_name = 'FancyLayer'; } });
    await fails([p], /Unknown layer: FancyLayer/);
    // Same message as tfjs.
    const g = await goodModel();
    const topology = JSON.parse(JSON.stringify(g.modelJSON.modelTopology));
    topology.config.layers[0].class_name = 'FancyLayer';
    const want = await rejectsWith(tfo.loadLayersModel(tfo.io.fromMemory({ modelTopology: topology })));
    await fails([tt.io.fromMemory({ modelTopology: topology })], esc(want.message));
    const q = await variant('unknown-model', { edit: (j) => { j.modelTopology.class_name = 'Weird'; } });
    await fails([q], /Weird/);
  });

  it('a topology that fails after some layers were built leaks nothing', async () => {
    // Unknown class after a built layer (Sequential).
    await fails([await variant('unknown2', { edit: (j) => { j.modelTopology.config.layers[1].class_name = 'FancyLayer'; } })], /FancyLayer/);
    // A layer whose input is incompatible (Sequential).
    await fails([await variant('incompatible', {
      edit: (j) => { j.modelTopology.config.layers.push({ class_name: 'Conv2D', config: { name: 'c', filters: 2, kernel_size: [3, 3] } }); },
    })], /Conv2D/);
    // Functional: an inbound node naming an unknown layer.
    const { artifacts } = await tfjsModel('functional');
    const topology = JSON.parse(JSON.stringify(artifacts.modelTopology));
    topology.config.output_layers[1][0] = 'nope';
    await fails([tt.io.fromMemory({ modelTopology: topology })], /nope/);
  });

  it('a weight whose shape disagrees with the model: the message names the weight', async () => {
    const p = await variant('shape', { edit: (j) => { j.weightsManifest[0].weights[2].shape = [3, 8]; } });
    await fails([p], /d2\/kernel/, /shape/i);
    // Same size, other shape; and a different size (the data then also disagrees).
    const g = await goodModel();
    const q = await variant('shape2', {
      edit: (j) => { j.weightsManifest[0].weights[3].shape = [4]; },
      weights: Buffer.concat([g.weights, Buffer.alloc(4)]),
    });
    await fails([q], /d2\/bias/);
  });

  it('weights missing from the file: strict (default) refuses, strict false loads', async () => {
    const g = await goodModel();
    // Without d2/bias (the last weight).
    const p = await variant('missing-weight', {
      edit: (j) => { j.weightsManifest[0].weights.pop(); },
      weights: g.weights.subarray(0, g.weights.length - 12),
    });
    await fails([p], /1 of 4 weights are not set: d2\/bias/);
    await fails([p, { strict: true }], /d2\/bias/);
    await noLeak(async () => {
      const model = await tt.loadLayersModel(p, { strict: false });
      const ref = await tt.loadLayersModel(g.dir);
      // The loaded weights are the file's; the missing one keeps its initial value (zeros).
      closeArrays(model.getLayer('d1').getWeights()[0].dataSync(), ref.getLayer('d1').getWeights()[0].dataSync(), 0, 'd1 kernel');
      closeArrays(model.getLayer('d2').getWeights()[1].dataSync(), [0, 0, 0], 0, 'd2 bias');
      model.dispose();
      ref.dispose();
    });
    // A weight the model does not have: strict refuses, strict false ignores it.
    const q = await variant('extra-weight', {
      edit: (j) => { j.weightsManifest[0].weights.push({ name: 'extra/w', shape: [2], dtype: 'float32' }); },
      weights: Buffer.concat([g.weights, Buffer.alloc(8)]),
    });
    await fails([q], /Provided weight data has no target variable: extra\/w/);
    await noLeak(async () => {
      const model = await tt.loadLayersModel(q, { strict: false });
      model.dispose();
    });
  });

  it('unsupported weight dtypes and quantizations', async () => {
    await fails([await variant('f64', { edit: (j) => { j.weightsManifest[0].weights[0].dtype = 'float64'; } })], /float64/, /d1\/kernel/);
    await fails([await variant('int4', {
      edit: (j) => { j.weightsManifest[0].weights[0].quantization = { dtype: 'int4', scale: 1, min: 0 }; },
    })], /int4/);
  });

  it('an IOHandler without load(), and no handler for a URL scheme', async () => {
    await fails([{ save() {} }], /does not have the `load` method/);
    await fails([null], /load/);
    await fails(['nosuch://x/model.json'], /Cannot find any load handlers for URL 'nosuch:\/\/x\/model.json'/);
    // load() rejecting: its error comes out.
    await fails([{ load: async () => { throw new Error('my handler failed'); } }], /my handler failed/);
    // Weight data without specs; no topology (tfjs's messages).
    const { artifacts } = await tfjsModel('mlp');
    const { weightSpecs, ...noSpecs } = artifacts;
    await fails([tt.io.fromMemory(noSpecs)], /LayersModel artifacts contains weight data, but not weight specs/);
    await fails([{ load: async () => ({ weightSpecs, weightData: artifacts.weightData }) }], /topology/);
  });

  it('saving to a path that is an existing file, or to a handler without save()', async () => {
    await noLeak(async () => {
      const model = MODELS.mlp.build(tt);
      try {
        const file = path.join(newDir('file'), 'afile');
        fs.writeFileSync(file, 'x');
        await rejectsWith(model.save(file), esc(file), /exists as a file/);
        await rejectsWith(model.save(`file://${file}`), esc(file), /exists as a file/);
        assert.equal(fs.readFileSync(file, 'utf8'), 'x', 'the file is untouched');
        await rejectsWith(model.save({ load() {} }), /does not have the `save` attribute/);
        await rejectsWith(model.save('nosuch://x'), /Cannot find any save handlers for URL 'nosuch:\/\/x'/);
      } finally {
        model.dispose();
      }
    });
  });
});

// ---- 5. tf.io helpers, differential against tfjs ---------------------------------------------

// Tensors of every weight dtype, made the same way on `tf`.
function weightTensors(tf) {
  return [
    { name: 'f32', tensor: tf.tensor([1.5, -2.25, 3e-8, Infinity, NaN, 0], [2, 3]) },
    { name: 'i32', tensor: tf.tensor([1, -2, 2147483647, -2147483648], [4], 'int32') },
    { name: 'b', tensor: tf.tensor([true, false, true], [3], 'bool') },
    { name: 'scalar', tensor: tf.scalar(7.25) },
    { name: 'empty', tensor: tf.tensor([], [0, 3]) },
    { name: 's', tensor: tf.tensor(['a', 'héllo wörld', '', '日本'], [2, 2], 'string') },
    { name: 'c', tensor: tf.tidy(() => tf.complex(tf.tensor([1, 2, 3]), tf.tensor([-1, 0.5, 9]))) },
  ];
}
const plainTensor = (t) => ({
  shape: t.shape, dtype: t.dtype,
  values: t.dtype === 'string' ? t.dataSync().map((v) => Buffer.from(v).toString('hex')) : Array.from(t.dataSync()),
});
const plainMap = (m) => Object.fromEntries(Object.entries(m).map(([k, t]) => [k, plainTensor(t)]));
const bytesOf = (b) => Array.from(new Uint8Array(b instanceof ArrayBuffer ? b : tfo.io.CompositeArrayBuffer.join(b)));

describe('tf.io weights encoding', () => {
  it('encodeWeights: same bytes and specs as tfjs (array and map forms, a group)', async () => {
    const ref = weightTensors(tfo);
    const want = await tfo.io.encodeWeights(ref);
    const wantMap = await tfo.io.encodeWeights(Object.fromEntries(ref.map((r) => [r.name, r.tensor])), 'optimizer');
    tfo.dispose(ref.map((r) => r.tensor));
    await noLeak(async () => {
      const ts = weightTensors(tt);
      try {
        const got = await tt.io.encodeWeights(ts);
        assert.ok(got.data instanceof ArrayBuffer);
        assert.deepEqual(got.specs, want.specs);
        assert.deepEqual(bytesOf(got.data), bytesOf(want.data));
        const gotMap = await tt.io.encodeWeights(Object.fromEntries(ts.map((r) => [r.name, r.tensor])), 'optimizer');
        assert.deepEqual(gotMap.specs, wantMap.specs);
        assert.deepEqual(bytesOf(gotMap.data), bytesOf(wantMap.data));
      } finally {
        tt.dispose(ts.map((r) => r.tensor));
      }
    });
  });

  it('decodeWeights: tfjs\'s bytes decode to the same tensors (one buffer or shards)', async () => {
    const ref = weightTensors(tfo);
    const { data, specs } = await tfo.io.encodeWeights(ref);
    const want = plainMap(tfo.io.decodeWeights(data, specs));
    tfo.dispose(ref.map((r) => r.tensor));
    await noLeak(async () => {
      const got = tt.io.decodeWeights(data, specs);
      assert.deepEqual(Object.keys(got), specs.map((s) => s.name));
      assert.deepEqual(plainMap(got), want);
      tt.dispose(Object.values(got));
      // As shards cut every 3 bytes (strings and complex values cross shard boundaries).
      const shards = cut(new Uint8Array(data), Array.from({ length: Math.floor(data.byteLength / 3) }, (_, i) => 3 * (i + 1)))
        .map((u) => u.slice().buffer);
      const fromShards = tt.io.decodeWeights(shards, specs);
      assert.deepEqual(plainMap(fromShards), want);
      tt.dispose(Object.values(fromShards));
    });
  });

  it('encode then decode round-trips on tidytensor', async () => {
    await noLeak(async () => {
      const ts = weightTensors(tt);
      const { data, specs } = await tt.io.encodeWeights(ts);
      const back = tt.io.decodeWeights(data, specs);
      assert.deepEqual(plainMap(back), Object.fromEntries(ts.map((r) => [r.name, plainTensor(r.tensor)])));
      tt.dispose(Object.values(back));
      tt.dispose(ts.map((r) => r.tensor));
    });
  });

  it('decodeWeights of quantized specs (uint8, uint16, float16; float32 and int32 weights) equals tfjs\'s', async () => {
    const u8 = Uint8Array.from([0, 1, 127, 128, 254, 255]);
    const u16 = Uint16Array.from([0, 1, 1000, 32768, 65534, 65535]);
    const f16 = Uint16Array.from([0x0000, 0x8000, 0x3c00, 0xc000, 0x7bff, 0x0001, 0x03ff, 0x7c00, 0xfc00, 0x7e00, 0x3555, 0x0400]);
    const cases = [
      [{ name: 'a', shape: [2, 3], dtype: 'float32', quantization: { dtype: 'uint8', scale: 0.0123, min: -1.1 } }, u8],
      [{ name: 'b', shape: [6], dtype: 'float32', quantization: { dtype: 'uint16', scale: 1e-4, min: -3.3 } }, u16],
      [{ name: 'c', shape: [3, 4], dtype: 'float32', quantization: { dtype: 'float16' } }, f16],
      [{ name: 'd', shape: [6], dtype: 'int32', quantization: { dtype: 'uint8', scale: 0.5, min: -10 } }, u8],
      [{ name: 'e', shape: [6], dtype: 'int32', quantization: { dtype: 'uint16', scale: 0.25, min: 3 } }, u16],
    ];
    // One at a time, then all together (later weights start at odd offsets).
    const all = [];
    for (const [spec, raw] of cases) {
      const data = new Uint8Array(raw.buffer).slice().buffer;
      all.push(new Uint8Array(data));
      const want = plainMap(tfo.io.decodeWeights(data, [spec]));
      await noLeak(async () => {
        const got = tt.io.decodeWeights(data, [spec]);
        assert.deepEqual(plainMap(got), want, spec.name);
        tt.dispose(Object.values(got));
      });
    }
    const joined = tfo.io.concatenateArrayBuffers(all.map((u) => u.buffer));
    const specs = cases.map((c) => c[0]);
    // uint8 first: the rest start at byte 6, 18, 42...; put a 1-byte weight first to make them odd.
    const odd = [{ name: 'first', shape: [1], dtype: 'float32', quantization: { dtype: 'uint8', scale: 1, min: 0 } }, ...specs];
    const oddData = tfo.io.concatenateArrayBuffers([new Uint8Array([9]).buffer, joined]);
    for (const [s, d] of [[specs, joined], [odd, oddData]]) {
      const want = plainMap(tfo.io.decodeWeights(d, s));
      await noLeak(async () => {
        const got = tt.io.decodeWeights(d, s);
        assert.deepEqual(plainMap(got), want);
        tt.dispose(Object.values(got));
      });
    }
  });

  it('decodeWeights errors as tfjs (missing min/scale, float16 of int32, unknown quantization) and leaks nothing', async () => {
    const data = new Uint8Array(16).buffer;
    const bad = [
      [{ name: 'w', shape: [2], dtype: 'float32', quantization: { dtype: 'uint8', scale: 1 } }],
      [{ name: 'w', shape: [2], dtype: 'int32', quantization: { dtype: 'float16' } }],
      [{ name: 'w', shape: [2], dtype: 'float32', quantization: { dtype: 'int4', scale: 1, min: 0 } }],
      // The first weight decodes, the second fails: the first is not left behind.
      [{ name: 'ok', shape: [2], dtype: 'float32' }, { name: 'w', shape: [2], dtype: 'float32', quantization: { dtype: 'uint8' } }],
    ];
    for (const specs of bad) {
      let want = null;
      try {
        tfo.io.decodeWeights(data, specs);
      } catch (e) {
        want = e;
      }
      assert.ok(want, `tfjs fails on ${JSON.stringify(specs)}`);
      await noLeak(async () => {
        assert.throws(() => tt.io.decodeWeights(data, specs), (e) => {
          assert.equal(e.message, want.message);
          return true;
        });
      });
    }
  });

  it('decodeWeightsStream equals decodeWeights', async () => {
    const ref = weightTensors(tfo);
    const { data, specs } = await tfo.io.encodeWeights(ref);
    tfo.dispose(ref.map((r) => r.tensor));
    const want = plainMap(tfo.io.decodeWeights(data, specs));
    const chunks = cut(new Uint8Array(data), [5, 6, 40]);
    const stream = () => new ReadableStream({
      start(c) {
        for (const ch of chunks) c.enqueue(ch);
        c.close();
      },
    });
    const wantStream = plainMap(await tfo.io.decodeWeightsStream(stream(), specs));
    assert.deepEqual(wantStream, want);
    await noLeak(async () => {
      const got = await tt.io.decodeWeightsStream(stream(), specs);
      assert.deepEqual(plainMap(got), want);
      tt.dispose(Object.values(got));
    });
  });

  it('getWeightSpecs, getModelArtifactsInfoForJSON as tfjs', () => {
    const manifest = [{ paths: ['a'], weights: [{ name: 'x', shape: [1], dtype: 'float32' }] },
      { paths: ['b', 'c'], weights: [{ name: 'y', shape: [2], dtype: 'int32' }, { name: 'z', shape: [], dtype: 'bool' }] }];
    assert.deepEqual(tt.io.getWeightSpecs(manifest), tfo.io.getWeightSpecs(manifest));
    const artifactsList = [
      { modelTopology: { a: 'é', b: [1, 2] }, weightSpecs: manifest[1].weights, weightData: new ArrayBuffer(12) },
      { modelTopology: { a: 1 }, weightSpecs: manifest[0].weights, weightData: [new ArrayBuffer(3), new ArrayBuffer(5)] },
      { weightSpecs: manifest[0].weights },
      {},
    ];
    for (const a of artifactsList) {
      const { dateSaved, ...got } = tt.io.getModelArtifactsInfoForJSON(a);
      const { dateSaved: d2, ...want } = tfo.io.getModelArtifactsInfoForJSON(a);
      assert.ok(dateSaved instanceof Date && d2 instanceof Date);
      assert.deepEqual(got, want);
    }
    assert.throws(() => tt.io.getModelArtifactsInfoForJSON({ modelTopology: new ArrayBuffer(2) }),
      { message: 'Expected JSON model topology, received ArrayBuffer.' });
  });

  it('getModelArtifactsForJSON(Sync) as tfjs', async () => {
    const modelJSON = {
      modelTopology: { x: 1 }, format: 'layers-model', generatedBy: 'g', convertedBy: null,
      weightsManifest: [{ paths: ['w'], weights: [{ name: 'x', shape: [1], dtype: 'float32' }] }],
      trainingConfig: { loss: 'mse' }, userDefinedMetadata: { u: 1 }, signature: { s: 2 },
      modelInitializer: { i: 3 }, initializerSignature: { j: 4 },
    };
    const specs = modelJSON.weightsManifest[0].weights;
    const data = new ArrayBuffer(4);
    assert.deepEqual(tt.io.getModelArtifactsForJSONSync(modelJSON, specs, data), tfo.io.getModelArtifactsForJSONSync(modelJSON, specs, data));
    const loader = async (m) => [tt.io.getWeightSpecs(m), data];
    assert.deepEqual(await tt.io.getModelArtifactsForJSON(modelJSON, loader), await tfo.io.getModelArtifactsForJSON(modelJSON, loader));
    const noManifest = { modelTopology: { x: 1 } };
    assert.deepEqual(tt.io.getModelArtifactsForJSONSync(noManifest), tfo.io.getModelArtifactsForJSONSync(noManifest));
  });
});

describe('CompositeArrayBuffer (tfjs\'s spec cases)', () => {
  const layouts = {
    uniform: [4, 4, 4, 4, 1],
    'non-uniform': [1, 5, 3, 7, 1],
    single: [17],
    'with empty shards': [0, 5, 0, 12, 0],
  };
  for (const [name, sizes] of Object.entries(layouts)) {
    it(`${name} shards: every slice equals tfjs's`, () => {
      let v = 0;
      const make = () => {
        v = 0;
        return sizes.map((n) => Uint8Array.from({ length: n }, () => v++).buffer);
      };
      const a = new tt.io.CompositeArrayBuffer(make());
      const b = new tfo.io.CompositeArrayBuffer(make());
      assert.equal(a.byteLength, b.byteLength);
      const ends = [undefined, NaN, -4, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 1000];
      for (const s of ends) {
        for (const e of ends) {
          const got = Array.from(new Uint8Array(a.slice(s, e)));
          const want = Array.from(new Uint8Array(b.slice(s, e)));
          assert.deepEqual(got, want, `slice(${s}, ${e})`);
        }
      }
      // Out of order, repeated.
      for (const [s, e] of [[13, 15], [0, 2], [9, 13], [16, 17], [0, 17], [3, 4], [3, 4]]) {
        assert.deepEqual(Array.from(new Uint8Array(a.slice(s, e))), Array.from(new Uint8Array(b.slice(s, e))), `slice(${s}, ${e})`);
      }
      assert.ok(a.slice(0, 3) instanceof ArrayBuffer);
    });
  }

  it('empty, undefined, a single buffer, TypedArray input, join, concatenateArrayBuffers', () => {
    for (const input of [[], undefined, new Uint8Array([]).buffer]) {
      assert.deepEqual(Array.from(new Uint8Array(new tt.io.CompositeArrayBuffer(input).slice())), []);
      // (tfjs leaves byteLength undefined when constructed from nothing; tidytensor says 0.)
      assert.equal(new tt.io.CompositeArrayBuffer(input).byteLength, 0);
    }
    const arr = new Uint8Array([1, 2, 3]);
    assert.deepEqual(Array.from(new Uint8Array(new tt.io.CompositeArrayBuffer(arr.buffer).slice())), [1, 2, 3]);
    assert.deepEqual(Array.from(new Uint8Array(new tt.io.CompositeArrayBuffer(arr).slice(0, 2))), [1, 2]);
    // A TypedArray viewing part of its buffer: tfjs uses the whole buffer; so does tidytensor.
    const big = new Uint8Array([9, 8, 7, 6, 5]);
    const view = big.subarray(1, 3);
    assert.deepEqual(Array.from(new Uint8Array(new tt.io.CompositeArrayBuffer(view).slice())),
      Array.from(new Uint8Array(new tfo.io.CompositeArrayBuffer(view).slice())));
    const parts = [new Uint8Array([1, 2]).buffer, new Uint8Array([]).buffer, new Uint8Array([3]).buffer];
    assert.deepEqual(Array.from(new Uint8Array(tt.io.CompositeArrayBuffer.join(parts))), [1, 2, 3]);
    assert.deepEqual(Array.from(new Uint8Array(tt.io.concatenateArrayBuffers(parts))), [1, 2, 3]);
    assert.ok(tt.io.concatenateArrayBuffers(parts) instanceof ArrayBuffer);
    // A single buffer joins to an equal buffer.
    assert.deepEqual(Array.from(new Uint8Array(tt.io.CompositeArrayBuffer.join(arr.buffer))), [1, 2, 3]);
  });
});

describe('weights loaders', () => {
  // Two groups of two shards each: {manifest, files (url -> ArrayBuffer), values}.
  function sharded() {
    const w = [
      { name: 'g1/a', shape: [2, 2], dtype: 'float32', values: [1, 2, 3, 4] },
      { name: 'g1/b', shape: [3], dtype: 'int32', values: [5, -6, 7] },
      { name: 'g2/c', shape: [2], dtype: 'float32', values: [0.5, -0.25] },
      { name: 'g2/d', shape: [5], dtype: 'float32', quantization: { dtype: 'uint8', scale: 0.5, min: -1 }, raw: [0, 1, 2, 3, 255] },
    ];
    const bytesOf1 = (x) => (x.quantization ? Uint8Array.from(x.raw)
      : new Uint8Array((x.dtype === 'int32' ? Int32Array : Float32Array).from(x.values).buffer));
    const g1 = new Uint8Array([...bytesOf1(w[0]), ...bytesOf1(w[1])]);
    const g2 = new Uint8Array([...bytesOf1(w[2]), ...bytesOf1(w[3])]);
    const spec = ({ values, raw, ...s }) => s;
    const manifest = [
      { paths: ['g1-1.bin', 'g1-2.bin'], weights: [spec(w[0]), spec(w[1])] },
      { paths: ['g2-1.bin', 'g2-2.bin'], weights: [spec(w[2]), spec(w[3])] },
    ];
    // Weights straddle the shard boundaries; the last shard is no larger than the first (tfjs 4.22
    // reads zeros past the first shards otherwise: model_files.test.js).
    const files = {
      'g1-1.bin': g1.slice(0, 15), 'g1-2.bin': g1.slice(15), 'g2-1.bin': g2.slice(0, 9), 'g2-2.bin': g2.slice(9),
    };
    return { manifest, files };
  }

  it('weightsLoaderFactory with a fake fetch: all weights, subsets, prefixes; same as tfjs', async () => {
    const { manifest, files } = sharded();
    const run = async (lib, prefix, names) => {
      const urls = [];
      const load = lib.io.weightsLoaderFactory(async (u) => {
        urls.push(...u);
        return u.map((x) => files[x.slice(x.lastIndexOf('/') + 1)].slice().buffer);
      });
      const map = await load(manifest, prefix, names);
      const out = plainMap(map);
      lib.dispose(Object.values(map));
      return { urls, out };
    };
    for (const [prefix, names] of [
      ['dir', undefined], ['dir/', undefined], ['', undefined], ['http://h/m', ['g2/d']], ['x', ['g1/b', 'g2/c']], ['x', ['g1/a']],
    ]) {
      const want = await run(tfo, prefix, names);
      await noLeak(async () => {
        const got = await run(tt, prefix, names);
        assert.deepEqual(got, want, `prefix ${prefix}, names ${names}`);
      });
    }
    // Unknown names: tfjs's error text.
    let want = null;
    try {
      await run(tfo, 'x', ['g1/a', 'nope', 'nope2']);
    } catch (e) {
      want = e;
    }
    await noLeak(() => rejectsWith(run(tt, 'x', ['g1/a', 'nope', 'nope2']), new RegExp(`^${want.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)));
  });

  it('tf.io.loadWeights reads a manifest\'s files from a directory or a file:// URL', async () => {
    const { manifest, files } = sharded();
    const dir = newDir('weights');
    for (const [n, b] of Object.entries(files)) fs.writeFileSync(path.join(dir, n), b);
    const load = tfo.io.weightsLoaderFactory(async (u) => u.map((x) => files[x.slice(x.lastIndexOf('/') + 1)].slice().buffer));
    const wantMap = await load(manifest, 'x');
    const want = plainMap(wantMap);
    tfo.dispose(Object.values(wantMap));
    await noLeak(async () => {
      for (const prefix of [dir, `${dir}/`, `file://${dir}`]) {
        const got = await tt.io.loadWeights(manifest, prefix);
        assert.deepEqual(plainMap(got), want, prefix);
        tt.dispose(Object.values(got));
      }
      const some = await tt.io.loadWeights(manifest, dir, ['g2/c']);
      assert.deepEqual(Object.keys(some), ['g2/c']);
      tt.dispose(Object.values(some));
      await rejectsWith(tt.io.loadWeights(manifest, path.join(dir, 'nope')), /nope\/g1-[12]\.bin does not exist/);
    });
  });

  it('tf.models.modelFromJSON with a weightsManifest and pathPrefix', async () => {
    const { artifacts, want } = await tfjsModel('mlp');
    const dir = newDir('fromjson');
    writeModelFiles(dir, artifacts);
    const modelJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
    await noLeak(async () => {
      const model = await tt.models.modelFromJSON({ modelTopology: modelJSON.modelTopology, weightsManifest: modelJSON.weightsManifest, pathPrefix: dir });
      samePredictions(predictOn(tt, model, predictInputs('mlp')), want, 1e-5);
      model.dispose();
      const bare = await tt.models.modelFromJSON(modelJSON.modelTopology);
      assert.deepEqual(bare.layers.map((l) => l.name), ['d1', 'd2']);
      bare.dispose();
    });
  });
});

describe('handlers and routers', () => {
  it('fromMemory / fromMemorySync return the artifacts as tfjs (also the deprecated forms)', async () => {
    const artifacts = { modelTopology: { a: 1 }, weightSpecs: [{ name: 'x', shape: [1], dtype: 'float32' }], weightData: new ArrayBuffer(4) };
    assert.deepEqual(await tt.io.fromMemory(artifacts).load(), await tfo.io.fromMemory(artifacts).load());
    assert.deepEqual(tt.io.fromMemorySync(artifacts).load(), tfo.io.fromMemorySync(artifacts).load());
    assert.ok(tt.io.fromMemory(artifacts).load() instanceof Promise);
    const warn = console.warn;
    const warnings = [];
    console.warn = (m) => warnings.push(m);
    try {
      const args = [{ a: 1 }, artifacts.weightSpecs, artifacts.weightData, { loss: 'mse' }];
      assert.deepEqual(await tt.io.fromMemory(...args).load(), await tfo.io.fromMemory(...args).load());
      assert.deepEqual(tt.io.fromMemorySync({ a: 1 }).load(), tfo.io.fromMemorySync({ a: 1 }).load());
    } finally {
      console.warn = warn;
    }
    assert.equal(warnings.length, 4);
    assert.equal(warnings[0], warnings[1]);
  });

  it('a registered mem:// router is used by loadLayersModel and model.save', async () => {
    const store = {};
    const router = (url) => {
      if (typeof url !== 'string' || !url.startsWith('mem://')) return null;
      const key = url.slice('mem://'.length);
      return {
        save: async (artifacts) => {
          store[key] = artifacts;
          return { modelArtifactsInfo: tt.io.getModelArtifactsInfoForJSON(artifacts) };
        },
        load: async () => {
          if (store[key] == null) throw new Error(`no model at mem://${key}`);
          return store[key];
        },
      };
    };
    tt.io.registerSaveRouter(router);
    tt.io.registerLoadRouter(router);
    assert.equal(tt.io.getLoadHandlers('mem://m1').length, 1);
    assert.equal(tt.io.getSaveHandlers('mem://m1').length, 1);
    assert.equal(tt.io.getLoadHandlers('file:///x/model.json').length, 1);
    assert.equal(tt.io.getSaveHandlers('file:///x').length, 1);
    assert.equal(tt.io.getLoadHandlers('http://h/model.json').length, 1);
    assert.equal(tt.io.getLoadHandlers('https://h/model.json').length, 1);
    assert.equal(tt.io.getLoadHandlers('nothing://x').length, 0);
    assert.equal(tt.io.isHTTPScheme('http://x'), true);
    assert.equal(tt.io.isHTTPScheme('https://x'), true);
    assert.equal(tt.io.isHTTPScheme('file://x'), false);
    await noLeak(async () => {
      const model = MODELS.functional.build(tt);
      const want = predictOn(tt, model, predictInputs('functional'));
      const result = await model.save('mem://m1');
      assert.equal(result.modelArtifactsInfo.modelTopologyType, 'JSON');
      model.dispose();
      assert.ok(store.m1.weightData instanceof ArrayBuffer);
      const back = await tt.loadLayersModel('mem://m1');
      samePredictions(predictOn(tt, back, predictInputs('functional')), want, 0);
      back.dispose();
      await rejectsWith(tt.loadLayersModel('mem://none'), /no model at mem:\/\/none/);
    });
  });

  it('copyModel between file:// URLs; listModels without managers; moveModel/removeModel need one', async () => {
    const { artifacts, want } = await tfjsModel('mlp');
    const src = newDir('copy-src');
    writeModelFiles(src, artifacts);
    const dst = path.join(newDir('copy-dst'), 'out');
    const info = await tt.io.copyModel(`file://${src}/model.json`, `file://${dst}`);
    assert.equal(info.weightDataBytes, artifacts.weightData.byteLength);
    assert.deepEqual(fs.readdirSync(dst).sort(), ['model.json', 'weights.bin']);
    await noLeak(async () => {
      const model = await tt.loadLayersModel(dst);
      samePredictions(predictOn(tt, model, predictInputs('mlp')), want, 1e-5);
      model.dispose();
    });
    assert.deepEqual(await tt.io.listModels(), {});
    await rejectsWith(tt.io.copyModel(`file://${src}`, `file://${src}`), /Old path and new path are the same/);
    await rejectsWith(tt.io.removeModel('file://x'), /Cannot find model manager for scheme 'file'/);
    await rejectsWith(tt.io.removeModel('noscheme'), /does not contain a scheme/);
  });

  it('tf.io.browserFiles: tfjs\'s argument check; load() says it is not available in Node', async () => {
    let want = null;
    try {
      tfo.io.browserFiles([]);
    } catch (e) {
      want = e;
    }
    assert.throws(() => tt.io.browserFiles([]), { message: want.message });
    await noLeak(() => rejectsWith(tt.loadLayersModel(tt.io.browserFiles([{ name: 'model.json' }])), /Node/));
  });
});

// ---- http ---------------------------------------------------------------------------------------

describe('http(s) models', () => {
  // Serves `dir` for GET; records POST/PUT requests. Returns {url, requests, close}.
  async function serve(dir) {
    const requests = [];
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        requests.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.method === 'GET') {
          const file = path.join(dir, decodeURIComponent(req.url.split('?')[0]));
          if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
            res.writeHead(404);
            res.end('not found');
            return;
          }
          res.writeHead(200, { 'content-type': file.endsWith('.json') ? 'application/json' : 'application/octet-stream' });
          res.end(fs.readFileSync(file));
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{}');
        }
      });
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${server.address().port}`;
    return { url, requests, close: () => new Promise((r) => server.close(r)) };
  }

  it('loadLayersModel(http://…/model.json) with onProgress ending at 1; shards fetched relative to model.json', async () => {
    const { artifacts, want } = await tfjsModel('cnn');
    const dir = newDir('http');
    fs.mkdirSync(path.join(dir, 'm'));
    const bytes = new Uint8Array(artifacts.weightData);
    const pieces = cut(bytes, [100, 101, 600]);
    const names = pieces.map((_, i) => `group1-shard${i + 1}of${pieces.length}.bin`);
    writeModelFiles(path.join(dir, 'm'), artifacts, {
      manifest: [{ paths: names, weights: artifacts.weightSpecs }], files: Object.fromEntries(names.map((n, i) => [n, pieces[i]])),
    });
    const server = await serve(dir);
    try {
      await noLeak(async () => {
        const progress = [];
        const model = await tt.loadLayersModel(`${server.url}/m/model.json?v=1`, { onProgress: (f) => progress.push(f) });
        try {
          samePredictions(predictOn(tt, model, predictInputs('cnn')), want, 1e-5, 'over http');
        } finally {
          model.dispose();
        }
        assert.ok(progress.length >= 2, `progress ${progress}`);
        assert.equal(progress[progress.length - 1], 1);
        for (let i = 1; i < progress.length; i++) assert.ok(progress[i] >= progress[i - 1], `progress ${progress}`);
        assert.ok(progress.every((p) => p >= 0 && p <= 1));
      });
      // The query string is kept on the weight URLs, as tfjs does.
      const gets = server.requests.filter((r) => r.method === 'GET').map((r) => r.url).sort();
      assert.deepEqual(gets, ['/m/model.json?v=1', ...names.map((n) => `/m/${n}?v=1`)].sort());
      // Errors: 404 on model.json; a 404 on a weight file.
      await noLeak(() => rejectsWith(tt.loadLayersModel(`${server.url}/none/model.json`), /404/, /none\/model\.json/));
      fs.renameSync(path.join(dir, 'm', names[2]), path.join(dir, 'm', 'moved.bin'));
      await noLeak(() => rejectsWith(tt.loadLayersModel(`${server.url}/m/model.json`), /status code 404/));
    } finally {
      await server.close();
    }
  });

  it('a weight file answered with 404 is an error (tfjs 4.22 reads the 404 body as weights)', async () => {
    const { artifacts } = await tfjsModel('mlp');
    const dir = newDir('http404');
    const bytes = new Uint8Array(artifacts.weightData);
    // Shard 2 is 9 bytes, as long as the server's 'not found' body.
    const pieces = cut(bytes, [8, 17]);
    writeModelFiles(dir, artifacts, {
      manifest: [{ paths: ['s1', 's2', 's3'], weights: artifacts.weightSpecs }], files: { s1: pieces[0], s3: pieces[2] },
    });
    const server = await serve(dir);
    try {
      await noLeak(async () => {
        let model = null;
        try {
          model = await tt.loadLayersModel(`${server.url}/model.json`);
        } catch (e) {
          assert.match(e.message, /s2/);
          return;
        }
        model.dispose();
        assert.fail('loaded a model whose weight file s2 answered 404');
      });
    } finally {
      await server.close();
    }
  });

  it('tf.io.http with weightPathPrefix, requestInit headers and a custom fetchFunc', async () => {
    const { artifacts, want } = await tfjsModel('mlp');
    const dir = newDir('http2');
    fs.mkdirSync(path.join(dir, 'json'));
    fs.mkdirSync(path.join(dir, 'bin'));
    writeModelFiles(path.join(dir, 'json'), artifacts);
    fs.renameSync(path.join(dir, 'json', 'weights.bin'), path.join(dir, 'bin', 'weights.bin'));
    const server = await serve(dir);
    try {
      await noLeak(async () => {
        let calls = 0;
        const fetchFunc = (...a) => {
          calls++;
          return fetch(...a);
        };
        const handler = tt.io.http(`${server.url}/json/model.json`, {
          weightPathPrefix: `${server.url}/bin/`, requestInit: { headers: { 'x-token': 'abc' } }, fetchFunc,
        });
        const model = await tt.loadLayersModel(handler);
        samePredictions(predictOn(tt, model, predictInputs('mlp')), want, 1e-5);
        model.dispose();
        assert.equal(calls, 2);
        assert.ok(server.requests.every((r) => r.headers['x-token'] === 'abc'));
        // weightUrlConverter (may be async) maps manifest paths to URLs.
        const converted = [];
        const viaConverter = await tt.loadLayersModel(tt.io.http(`${server.url}/json/model.json`, {
          weightUrlConverter: async (p) => {
            converted.push(p);
            return `${server.url}/bin/${p}`;
          },
        }));
        samePredictions(predictOn(tt, viaConverter, predictInputs('mlp')), want, 1e-5);
        viaConverter.dispose();
        assert.deepEqual(converted, ['weights.bin']);
      });
      assert.throws(() => tt.io.http(`${server.url}/x`, { requestInit: { body: 'x' } }), /body/);
      assert.throws(() => tt.io.http(`${server.url}/x`, { fetchFunc: 3 }), /fetch/);
    } finally {
      await server.close();
    }
  });

  it('model.save(http://…) POSTs model.json and model.weights.bin as multipart form data', async () => {
    const server = await serve(newDir('upload'));
    try {
      await noLeak(async () => {
        const model = MODELS.cnn.build(tt);
        const dir = newDir('upload-ref');
        try {
          const result = await model.save(`${server.url}/upload`);
          assert.equal(result.modelArtifactsInfo.modelTopologyType, 'JSON');
          assert.ok(Array.isArray(result.responses) && result.responses[0].ok);
          await model.save(tt.io.http(`${server.url}/put`, { requestInit: { method: 'PUT', headers: { 'x-a': 'b' } } }));
          await model.save(dir);
        } finally {
          model.dispose();
        }
        const [post, put] = server.requests;
        assert.equal(post.method, 'POST');
        assert.equal(post.url, '/upload');
        assert.equal(put.method, 'PUT');
        assert.equal(put.headers['x-a'], 'b');
        assert.match(post.headers['content-type'], /^multipart\/form-data; boundary=/);
        const form = await new Response(post.body, { headers: { 'content-type': post.headers['content-type'] } }).formData();
        assert.deepEqual([...form.keys()], ['model.json', 'model.weights.bin']);
        const jsonPart = form.get('model.json');
        assert.equal(jsonPart.name, 'model.json');
        assert.equal(jsonPart.type, 'application/json');
        const modelJSON = JSON.parse(await jsonPart.text());
        const fileJSON = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
        assert.deepEqual(modelJSON.weightsManifest, [{ paths: ['./model.weights.bin'], weights: fileJSON.weightsManifest[0].weights }]);
        assert.deepEqual(modelJSON.modelTopology, fileJSON.modelTopology);
        assert.equal(modelJSON.format, 'layers-model');
        assert.equal(modelJSON.generatedBy, fileJSON.generatedBy);
        assert.equal(modelJSON.convertedBy, null);
        const binPart = form.get('model.weights.bin');
        assert.equal(binPart.name, 'model.weights.bin');
        assert.equal(binPart.type, 'application/octet-stream');
        assert.deepEqual(Buffer.from(await binPart.arrayBuffer()), fs.readFileSync(path.join(dir, 'weights.bin')));
      });
      // A failing server.
      const model = MODELS.mlp.build(tt);
      try {
        await rejectsWith(model.save('http://127.0.0.1:1/upload'));
      } finally {
        model.dispose();
      }
    } finally {
      await server.close();
    }
  });
});
