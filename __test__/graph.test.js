'use strict';
// Graph models (tf.loadGraphModel, tf.loadGraphModelSync, tf.GraphModel), checked against
// @tensorflow/tfjs 4.22 (`tfo`) loading the same artifacts: the graph model nsfwjs bundles
// (MobileNetV2Mid, uint8-quantized) and nsfwjs itself running on tidytensor, small generated
// models (__test__/fixtures/graph/generate.js: an MLP, a CNN, shape arithmetic), memory over many
// predictions, bad files and bad calls (tfjs's error texts), file loading, sync loading, save.
// The graph runs natively (lib/graph/graph_model.js over native.NativeGraph).
const { it, describe, after } = require('node:test');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { tt, tfo, assert, snapshot } = require('./helpers/setup');
const { GraphBuilder, attr, models, lcg, writeModel } = require('./fixtures/graph/generate');

const ROOT = path.join(__dirname, '..');
const NODE_MODULES = path.join(ROOT, 'node_modules');

// ---- helpers -------------------------------------------------------------------------------

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'tidytensor-graph-'));
after(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let dirCount = 0;
const newDir = (name = 'g') => path.join(tmpRoot, `${name}-${dirCount++}`);

// Runs `fn` and checks that tidytensor's tensor count is back where it started.
async function noLeak(fn) {
  const before = tt.memory().numTensors;
  const r = await fn();
  assert.equal(tt.memory().numTensors, before, 'tensors left on tidytensor');
  return r;
}

function closeArrays(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const scale = Math.max(1, Math.abs(want[i]));
    assert.ok(Math.abs(got[i] - want[i]) <= tol * scale, `${what}[${i}]: got ${got[i]}, expected ${want[i]} (tolerance ${tol})`);
  }
}

// Plain data of what a model returned (a tensor, an array or a name -> tensor map), disposed.
function take(lib, out) {
  const snap = snapshot(lib, out);
  lib.dispose(out instanceof lib.Tensor ? out : Object.values(out));
  return snap;
}

function sameSnap(got, want, tol, what) {
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${what}: an array`);
    assert.equal(got.length, want.length, `${what}: outputs`);
    want.forEach((w, i) => sameSnap(got[i], w, tol, `${what}[${i}]`));
    return;
  }
  if (!('values' in want)) {
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${what}: keys`);
    for (const k of Object.keys(want)) sameSnap(got[k], want[k], tol, `${what}.${k}`);
    return;
  }
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  assert.equal(got.dtype, want.dtype, `${what}: dtype`);
  if (want.dtype === 'string') {
    assert.deepEqual(got.values, want.values, `${what}: values`);
    return;
  }
  closeArrays(got.values, want.values, want.dtype === 'int32' ? 0 : tol, what);
}

// Runs `program(lib, model)` on both libraries (inputs made by `program` from lib) and compares.
function samePrediction(ttModel, tfoModel, program, tol = 1e-4, what = 'prediction') {
  const run = (lib, model) => {
    const r = lib.tidy(() => program(lib, model));
    return take(lib, r);
  };
  const want = run(tfo, tfoModel);
  const got = run(tt, ttModel);
  sameSnap(got, want, tol, what);
  return got;
}

// The error message `fn` throws (or null).
function errorOf(fn) {
  try {
    fn();
  } catch (e) {
    return e.message;
  }
  return null;
}

async function asyncErrorOf(fn) {
  try {
    await fn();
  } catch (e) {
    return e.message;
  }
  return null;
}

const deterministic = (shape, seed = 7, scale = 2) => lcg(shape.reduce((a, b) => a * b, 1), seed, scale);

const MODELS = models();

// Loads the artifacts on both libraries: [tt model, tfo model].
async function loadBoth(artifacts) {
  const clone = () => ({ ...artifacts, weightData: artifacts.weightData.slice(0) });
  return [await tt.loadGraphModel(tt.io.fromMemory(clone())), await tfo.loadGraphModel(tfo.io.fromMemory(clone()))];
}

// ---- 1. generated models match tfjs -----------------------------------------------------------

describe('generated graph models predict as tfjs', () => {
  const cases = [
    { name: 'mlp', inputs: [[4, 8]] },
    { name: 'cnn', inputs: [[2, 12, 12, 3]] },
    { name: 'shapes', inputs: [[2, 4, 6]] },
  ];
  for (const c of cases) {
    it(`${c.name}: inputs, outputs, predict and execute as tfjs`, async () => {
      await noLeak(async () => {
        const [model, ref] = await loadBoth(MODELS[c.name].artifacts());
        try {
          assert.ok(model instanceof tt.GraphModel);
          assert.deepEqual(model.inputNodes, ref.inputNodes);
          assert.deepEqual(model.outputNodes, ref.outputNodes);
          assert.deepEqual(model.inputs, ref.inputs);
          assert.deepEqual(model.outputs, ref.outputs);
          assert.equal(model.modelVersion, ref.modelVersion);
          assert.deepEqual(Object.keys(model.weights).sort(), Object.keys(ref.weights).sort());
          for (const [name, [w]] of Object.entries(ref.weights)) {
            const [got] = model.weights[name];
            assert.deepEqual(got.shape, w.shape, name);
            assert.equal(got.dtype, w.dtype, name);
            closeArrays(got.dataSync(), w.dataSync(), 0, name);
          }
          const xs = (lib) => c.inputs.map((s, i) => lib.tensor(deterministic(s, 7 + i), s));
          samePrediction(model, ref, (lib, m) => m.predict(xs(lib)[0]), 1e-4, 'predict(tensor)');
          samePrediction(model, ref, (lib, m) => m.predict(xs(lib)), 1e-4, 'predict([tensor])');
          samePrediction(model, ref, (lib, m) => m.execute({ x: xs(lib)[0] }), 1e-4, 'execute({x})');
          // Each output alone, by name and as name:0, and all of them in reverse order.
          for (const out of ref.outputNodes) {
            samePrediction(model, ref, (lib, m) => m.execute(xs(lib)[0], out), 1e-4, `execute(x, '${out}')`);
            samePrediction(model, ref, (lib, m) => m.execute(xs(lib)[0], [`${out}:0`]), 1e-4, `execute(x, ['${out}:0'])`);
          }
          const rev = ref.outputNodes.slice().reverse();
          samePrediction(model, ref, (lib, m) => m.execute(xs(lib)[0], rev), 1e-4, 'execute(x, reversed outputs)');
          // predictAsync / executeAsync (tfjs warns that execute() would do; so does tidytensor).
          const warn = console.warn;
          console.warn = () => {};
          try {
            const viaAsync = async (lib, m) => {
              const [x] = xs(lib);
              const out = await m.predictAsync(x);
              x.dispose();
              return take(lib, out);
            };
            sameSnap(await viaAsync(tt, model), await viaAsync(tfo, ref), 1e-4, 'predictAsync');
          } finally {
            console.warn = warn;
          }
        } finally {
          model.dispose();
          ref.dispose();
        }
      });
    });
  }

  it('text: string ops (regex replace, split, hashing, n-grams) and sparse ops as tfjs', async () => {
    await noLeak(async () => {
      const [model, ref] = await loadBoth(MODELS.text.artifacts());
      try {
        const sentences = [
          ['The cat sat on the mat.', 'Dogs bark!', 'what? why, how...', ''],
          ['naïve café, déjà vu', 'a  b   c', 'one'],
        ];
        for (const text of sentences) {
          const feeds = (lib) => ({
            text: lib.tensor(text, [text.length], 'string'),
            delimiter: lib.scalar(' ', 'string'),
            tokens: lib.tensor(['a', 'b', 'c', 'd', 'e', 'f'], [6], 'string'),
            splits: lib.tensor([0, 1, 1, 4, 6], [5], 'int32'),
            sp_indices: lib.tensor([[0, 0], [0, 3], [2, 1], [2, 2], [4, 0]], [5, 2], 'int32'),
            sp_values: lib.tensor([1, 2, 3, 4, 5]),
            sp_shape: lib.tensor([5, 4], [2], 'int32'),
            new_shape: lib.tensor([-1, 2], [2], 'int32'),
          });
          const outputs = ['logits', 'clean', 'split', 'split:1', 'split:2', 'hash', 'bag', 'ngrams', 'ngrams:1',
            'filled', 'filled:1', 'filled:2', 'filled:3', 'reshaped', 'reshaped:1', 'segment_sum'];
          samePrediction(model, ref, (lib, m) => m.execute(feeds(lib), outputs), 1e-5, `[${text}]`);
        }
        // Bad input: tfjs's texts (a delimiter that is not a scalar; unsorted row splits).
        const bad = (lib, m, f) => m.execute({ tokens: lib.tensor(['a', 'b'], [2], 'string'), ...f(lib) }, 'ngrams');
        for (const f of [(lib) => ({ splits: lib.tensor([0, 3], [2], 'int32') }),
          (lib) => ({ splits: lib.tensor([1, 2], [2], 'int32') })]) {
          const want = errorOf(() => tfo.tidy(() => bad(tfo, ref, f)));
          assert.ok(want, 'tfjs refuses');
          // tidytensor names the node after tfjs's text.
          const got = errorOf(() => tt.tidy(() => bad(tt, model, f)));
          assert.ok(got && got.startsWith(want), `got ${got}, expected ${want} (node ...)`);
        }
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  it('string and sparse ops: absurd sizes and attributes are clear errors, nothing leaks', async () => {
    const I32 = attr.type('int32');
    const g = new GraphBuilder('bad_text');
    g.placeholder('words', [-1], 'string');
    g.node('hash', 'StringToHashBucketFast', ['words'], { num_buckets: attr.float(0.5) });
    g.node('grams', 'StringNGrams', ['words', 'splits'], {
      separator: attr.str(' '), ngram_widths: attr.ints([1 << 30]), left_pad: attr.str('<'), right_pad: attr.str('>'),
      pad_width: attr.int(-1), preserve_short_sequences: attr.bool(false),
    });
    g.placeholder('splits', [-1], 'int32');
    g.placeholder('data', [-1, 64]);
    g.placeholder('ids', [-1], 'int32');
    g.node('segments', 'SparseSegmentSum', ['data', 'ids', 'ids'], { T: attr.type('float32'), Tidx: I32 });
    g.placeholder('sp_indices', [-1, -1], 'int32');
    g.placeholder('sp_values', [-1]);
    g.placeholder('sp_shape', [-1], 'int32');
    g.constant('fill_value', [], [0]);
    g.node('filled', 'SparseFillEmptyRows', ['sp_indices', 'sp_values', 'sp_shape', 'fill_value'], {});
    g.node('reshaped', 'SparseReshape', ['sp_indices', 'sp_shape', 'sp_shape'], {});
    const model = await tt.loadGraphModel(tt.io.fromMemory(g.artifacts()));
    try {
      const cases = [
        [{ words: tt.tensor(['a'], [1], 'string') }, 'hash', /Number of buckets must be at least 1/],
        [{ words: tt.tensor(['a', 'b'], [2], 'string'), splits: tt.tensor([0, 2], [2], 'int32') }, 'grams',
          /than the cpu backend can hold|Out of memory|larger than|more than/],
        // (Sizes beyond any machine's memory: 2^31 × 64 float32s; 2^31 × 64 int32 indices.)
        [{ data: tt.ones([1, 64]), ids: tt.tensor([0, 2147483646], [2], 'int32') }, 'segments',
          /larger than|Out of memory/],
        [{ sp_indices: tt.zeros([0, 0], 'int32'), sp_values: tt.zeros([0]), sp_shape: tt.tensor([3], [1], 'int32') },
          'filled', /Indices should have a column for each dimension/],
        [{ sp_indices: tt.zeros([1, 64], 'int32'), sp_values: tt.zeros([1]),
          sp_shape: tt.tensor([2147483647, ...new Array(63).fill(1)], [64], 'int32') }, 'filled',
          /larger than|Out of memory/],
        [{ sp_indices: tt.tensor([[1, 1]], [1, 2], 'int32'), sp_values: tt.zeros([1]),
          sp_shape: tt.tensor([2147483647, 2147483647], [2], 'int32') }, 'reshaped', null],
      ];
      for (const [feeds, output, error] of cases) {
        const before = tt.memory().numTensors;
        if (error == null) {
          // No overflow: the indices are renumbered for the same (huge) shape.
          const out = model.execute(feeds, output);
          assert.deepEqual(Array.from(out.dataSync()), [1, 1]);
          out.dispose();
        } else {
          assert.throws(() => model.execute(feeds, output), error, output);
        }
        assert.equal(tt.memory().numTensors, before, `${output}: nothing left behind`);
        tt.dispose(Object.values(feeds));
      }
    } finally {
      model.dispose();
    }
  });

  it('mlp: intermediate nodes as outputs and as fed inputs', async () => {
    await noLeak(async () => {
      const [model, ref] = await loadBoth(MODELS.mlp.artifacts());
      try {
        const x = (lib) => lib.tensor(deterministic([3, 8], 11), [3, 8]);
        samePrediction(model, ref, (lib, m) => m.execute(x(lib), ['dense/Relu', 'dense_1/Relu', 'Identity']), 1e-4,
          'intermediate outputs');
        // Feeding an intermediate node runs only the graph after it.
        const h = (lib) => lib.tensor(deterministic([3, 16], 12), [3, 16]);
        samePrediction(model, ref, (lib, m) => m.execute({ 'dense/Relu': h(lib) }, 'Identity'), 1e-4, 'fed intermediate');
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  it('a signature (userDefinedMetadata) names inputs and outputs; structuredOutputKeys make a map', async () => {
    const signature = {
      inputs: { features: { name: 'x:0', dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: '-1' }, { size: '8' }] } } },
      outputs: { probabilities: { name: 'Identity:0', dtype: 'DT_FLOAT' }, hidden: { name: 'dense/Relu:0', dtype: 'DT_FLOAT' } },
    };
    const artifacts = MODELS.mlp.artifacts({ userDefinedMetadata: { signature, structuredOutputKeys: ['probabilities', 'hidden'] } });
    await noLeak(async () => {
      const [model, ref] = await loadBoth(artifacts);
      try {
        assert.deepEqual(model.inputNodes, ref.inputNodes);
        assert.deepEqual(model.outputNodes, ref.outputNodes);
        assert.deepEqual(model.inputs, ref.inputs);
        assert.deepEqual(model.outputs, ref.outputs);
        assert.deepEqual(model.modelSignature, ref.modelSignature);
        assert.deepEqual(model.modelStructuredOutputKeys, ref.modelStructuredOutputKeys);
        assert.deepEqual(model.metadata, ref.metadata);
        const x = (lib) => lib.tensor(deterministic([2, 8], 5), [2, 8]);
        samePrediction(model, ref, (lib, m) => m.predict(x(lib)), 1e-4, 'predict -> map');
        samePrediction(model, ref, (lib, m) => m.execute({ features: x(lib) }, ['probabilities']), 1e-4, 'execute by keys');
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  it('KEEP_INTERMEDIATE_TENSORS keeps each node\'s tensor until the next execution or dispose', async () => {
    await noLeak(async () => {
      const [model, ref] = await loadBoth(MODELS.mlp.artifacts());
      tt.env().set('KEEP_INTERMEDIATE_TENSORS', true);
      tfo.env().set('KEEP_INTERMEDIATE_TENSORS', true);
      try {
        const x = (lib) => lib.tensor(deterministic([2, 8], 5), [2, 8]);
        samePrediction(model, ref, (lib, m) => m.predict(x(lib)), 1e-4, 'predict');
        const got = model.getIntermediateTensors();
        const want = ref.getIntermediateTensors();
        assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort());
        for (const k of Object.keys(want)) sameSnap(snapshot(tt, got[k][0]), snapshot(tfo, want[k][0]), 1e-4, k);
        model.disposeIntermediateTensors();
        ref.disposeIntermediateTensors();
        assert.equal(model.getIntermediateTensors(), null);
      } finally {
        tt.env().set('KEEP_INTERMEDIATE_TENSORS', false);
        tfo.env().set('KEEP_INTERMEDIATE_TENSORS', false);
        model.dispose();
        ref.dispose();
      }
    });
  });
});

// ---- 2. nsfwjs's graph model --------------------------------------------------------------------

describe('the graph model nsfwjs bundles (MobileNetV2Mid)', () => {
  // nsfwjs ships it as JS modules: model.min.js exports the model.json object (graph-model,
  // uint8-quantized weights), each shard module a base64 string; nsfwjs's JSONHandler turns
  // them into artifacts (without userDefinedMetadata) for tf.loadGraphModel.
  const DIR = path.join(NODE_MODULES, 'nsfwjs', 'dist', 'models', 'mobilenet_v2_mid');
  function nsfwArtifacts() {
    const modelJson = require(path.join(DIR, 'model.min.js'));
    const artifacts = {
      modelTopology: modelJson.modelTopology, format: modelJson.format,
      generatedBy: modelJson.generatedBy, convertedBy: modelJson.convertedBy,
    };
    const parts = [];
    artifacts.weightSpecs = [];
    for (const group of modelJson.weightsManifest) {
      for (const p of group.paths) parts.push(Buffer.from(require(path.join(DIR, `${p}.min.js`)), 'base64'));
      artifacts.weightSpecs.push(...group.weights);
    }
    artifacts.weightData = new Uint8Array(Buffer.concat(parts)).buffer;
    return artifacts;
  }

  it('loads as in tfjs and predicts a [1, 224, 224, 3] input to 1e-4', async () => {
    const artifacts = nsfwArtifacts();
    assert.equal(artifacts.format, 'graph-model');
    assert.ok(artifacts.weightSpecs.every((s) => s.quantization && s.quantization.dtype === 'uint8'));
    await noLeak(async () => {
      const [model, ref] = await loadBoth(artifacts);
      try {
        assert.deepEqual(model.inputNodes, ref.inputNodes);
        assert.deepEqual(model.outputNodes, ref.outputNodes);
        assert.deepEqual(model.inputs, ref.inputs);
        assert.deepEqual(model.outputs, ref.outputs);
        assert.equal(model.modelVersion, ref.modelVersion);
        const px = (lib) => lib.tensor(Float32Array.from({ length: 224 * 224 * 3 }, (_, i) => ((i * 37) % 256) / 255),
          [1, 224, 224, 3]);
        const got = samePrediction(model, ref, (lib, m) => m.predict(px(lib)), 1e-4, 'nsfwjs graph vs tfjs');
        assert.deepEqual(got.shape, [1, 5]);
        closeArrays([got.values.reduce((a, b) => a + b, 0)], [1], 1e-5, 'softmax sum');
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  // nsfwjs's own code, unchanged: run once with its require('@tensorflow/tfjs') resolved to
  // tidytensor, once on tfjs (each in a child process).
  it('nsfwjs itself runs on tidytensor: load(\'MobileNetV2Mid\', {type: \'graph\'}) then classify()', () => {
    const script = (onTidytensor) => `
      const Module = require('module');
      const tt = require(${JSON.stringify(ROOT)});
      if (process.env.TIDYTENSOR_BACKEND) tt.setBackend(process.env.TIDYTENSOR_BACKEND);
      const tf = ${onTidytensor} ? tt : require('@tensorflow/tfjs');
      if (!${onTidytensor}) { tf.setBackend('cpu'); tf.backend().firstUse = false; }
      const start = tf.memory().numTensors;
      const pkg = ${JSON.stringify(path.join(NODE_MODULES, 'nsfwjs') + path.sep)};
      const resolve = Module._resolveFilename;
      if (${onTidytensor}) {
        Module._resolveFilename = function (request, parent, ...rest) {
          if (request === '@tensorflow/tfjs' && parent && parent.filename && parent.filename.startsWith(pkg)) {
            return ${JSON.stringify(path.join(ROOT, 'index.js'))};
          }
          return resolve.call(this, request, parent, ...rest);
        };
      }
      let nsfwjs;
      try {
        nsfwjs = require(pkg);
      } finally {
        Module._resolveFilename = resolve;
      }
      console.info = () => {};
      (async () => {
        const model = await nsfwjs.load('MobileNetV2Mid', { type: 'graph' });
        const px = Int32Array.from({ length: 224 * 224 * 3 }, (_, i) => (i * 37) % 256);
        const img = tf.tensor3d(px, [224, 224, 3], 'int32');
        const classes = await model.classify(img);
        img.dispose();
        model.model.dispose();
        model.normalizationOffset.dispose();
        console.log('RESULT ' + JSON.stringify({ classes, leaked: tf.memory().numTensors - start,
          graph: model.model.constructor.name }));
      })().catch((e) => {
        console.error(e.stack);
        process.exit(1);
      });`;
    const run = (onTidytensor) => {
      const r = spawnSync(process.execPath, ['-e', script(onTidytensor)], { cwd: ROOT, encoding: 'utf8', env: process.env });
      assert.equal(r.status, 0, r.stderr);
      const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
      return JSON.parse(line.slice(7));
    };
    const want = run(false);
    const got = run(true);
    assert.equal(got.graph, 'GraphModel');
    assert.deepEqual(got.classes.map((c) => c.className), want.classes.map((c) => c.className));
    closeArrays(got.classes.map((c) => c.probability), want.classes.map((c) => c.probability), 1e-4, 'probabilities');
    assert.equal(got.leaked, 0, 'tensors left after the model and the input are disposed');
  });
});

// ---- 3. memory ----------------------------------------------------------------------------------

describe('memory', () => {
  it('a weight that names no node is dropped at load (tfjs keeps it); the rest predict as before', async () => {
    const start = tt.memory().numTensors;
    const a = MODELS.mlp.artifacts();
    const extra = new Float32Array([1, 2, 3]);
    const data = new Uint8Array(a.weightData.byteLength + extra.byteLength);
    data.set(new Uint8Array(a.weightData), 0);
    data.set(new Uint8Array(extra.buffer), a.weightData.byteLength);
    const ghost = { ...a, weightSpecs: [...a.weightSpecs, { name: 'ghost', shape: [3], dtype: 'float32' }],
      weightData: data.buffer };
    const [plain, withGhost] = [await tt.loadGraphModel(tt.io.fromMemory(a)), await tt.loadGraphModel(tt.io.fromMemory(ghost))];
    const nWeights = MODELS.mlp.weights.length;
    assert.equal(tt.memory().numTensors, start + 2 * nWeights, 'the ghost weight is not kept');
    assert.ok(!('ghost' in withGhost.weights));
    const x = tt.tensor(deterministic([2, 8]), [2, 8]);
    const [p1, p2] = [plain.predict(x), withGhost.predict(x)];
    closeArrays(p2.dataSync(), p1.dataSync(), 0, 'with the ghost weight');
    tt.dispose([x, p1, p2]);
    plain.dispose();
    withGhost.dispose();
    assert.equal(tt.memory().numTensors, start);
  });
  it('1,000 predictions keep numTensors (and GPU bytes) flat; dispose frees the weights', async () => {
    const start = tt.memory().numTensors;
    const model = await tt.loadGraphModel(tt.io.fromMemory(MODELS.cnn.artifacts()));
    const nWeights = MODELS.cnn.weights.length;
    assert.equal(tt.memory().numTensors, start + nWeights, 'the weights, one tensor each');
    const x = tt.tensor(deterministic([1, 12, 12, 3]), [1, 12, 12, 3]);
    const base = tt.memory();
    let first = null;
    for (let i = 0; i < 1000; i++) {
      const out = tt.tidy(() => {
        const [mean, logits] = model.predict(x);
        return logits.add(mean.sum());
      });
      if (first == null) first = Array.from(out.dataSync());
      else if (i % 250 === 0) closeArrays(out.dataSync(), first, 0, `prediction ${i}`);
      out.dispose();
      if (i % 100 === 0 || i === 999) {
        const m = tt.memory();
        assert.equal(m.numTensors, base.numTensors, `numTensors after ${i + 1} predictions`);
        if (base.numBytesInGPU != null) assert.equal(m.numBytesInGPU, base.numBytesInGPU, `numBytesInGPU after ${i + 1}`);
      }
    }
    // Outside tidy: the outputs are the caller's.
    const outs = model.execute(x);
    assert.equal(tt.memory().numTensors, base.numTensors + 2);
    tt.dispose(outs);
    x.dispose();
    model.dispose();
    assert.equal(tt.memory().numTensors, start, 'numTensors back to the start after dispose');
    const z = tt.zeros([1, 12, 12, 3]);
    assert.throws(() => model.predict(z), /disposed/);
    z.dispose();
    assert.equal(tt.memory().numTensors, start);
  });

  it('a graph loaded inside tidy keeps its weights; tidy disposes the outputs only', async () => {
    await noLeak(async () => {
      const artifacts = MODELS.mlp.artifacts();
      const model = tt.tidy(() => tt.loadGraphModelSync(artifacts));
      try {
        const x = tt.ones([1, 8]);
        const kept = tt.tidy(() => {
          const y = model.predict(x);
          model.predict(x); // dropped: tidy disposes it
          return y;
        });
        assert.deepEqual(kept.shape, [1, 5]);
        kept.dispose();
        x.dispose();
      } finally {
        model.dispose();
      }
    });
  });
});

// ---- 4. bad files and bad calls --------------------------------------------------------------

describe('bad files and bad calls give clear errors and leak nothing', () => {
  const mutated = (fn) => {
    const a = MODELS.mlp.artifacts();
    a.modelTopology = JSON.parse(JSON.stringify(a.modelTopology));
    fn(a);
    return a;
  };

  // Loading fails (or, for an op the loader defers, the first execution does) with a message
  // containing every one of `parts`.
  async function failsClearly(artifacts, parts) {
    await noLeak(async () => {
      let model = null;
      let message = await asyncErrorOf(async () => { model = await tt.loadGraphModel(tt.io.fromMemory(artifacts)); });
      if (message == null) {
        const x = tt.ones([1, 8]);
        message = errorOf(() => tt.dispose(model.predict(x)));
        x.dispose();
        model.dispose();
      }
      assert.ok(message != null, 'an error');
      for (const p of parts) assert.ok(message.includes(p), `the message names ${p}: ${message}`);
    });
  }

  it('a node input that names a missing node', async () => {
    await failsClearly(mutated((a) => {
      a.modelTopology.node.find((n) => n.name === 'dense/Relu').input = ['dense/Nope'];
    }), ['dense/Relu', 'dense/Nope']);
  });

  it('an unknown op names the op and the node', async () => {
    await failsClearly(mutated((a) => { a.modelTopology.node.find((n) => n.name === 'dense/Relu').op = 'FancyRelu'; }),
      ['FancyRelu', 'dense/Relu']);
  });

  it('weight data shorter than the weights\' shapes (a truncated shard)', async () => {
    const a = MODELS.mlp.artifacts();
    a.weightData = a.weightData.slice(0, a.weightData.byteLength - 12);
    await failsClearly(a, ['truncated', 'logits/bias']);
  });

  it('a weight whose shape disagrees with its Const node', async () => {
    const a = MODELS.mlp.artifacts();
    const spec = a.weightSpecs.find((s) => s.name === 'dense/kernel');
    spec.shape = [16, 8];
    await failsClearly(a, ['dense/kernel']);
  });

  it('a model initializer with an unknown op names it', async () => {
    const a = MODELS.mlp.artifacts({ modelInitializer: { node: [{ name: 'table', op: 'NoSuchTable', attr: {} }] },
      initializerSignature: { outputs: { 'table:0': { name: 'table:0', resourceId: 1 } } } });
    const model = await tt.loadGraphModel(tt.io.fromMemory(a));
    try {
      const x = tt.zeros([1, 8]);
      await assert.rejects(model.executeAsync(x), /Unknown op 'NoSuchTable'/);
      x.dispose();
    } finally {
      model.dispose();
    }
  });

  it('not a graph model: null, a layers topology', async () => {
    const want = await asyncErrorOf(() => tfo.loadGraphModel(null));
    assert.equal(await asyncErrorOf(() => tt.loadGraphModel(null)), want);
    assert.equal(errorOf(() => tt.loadGraphModelSync(null)), errorOf(() => tfo.loadGraphModelSync(null)));
    assert.equal(errorOf(() => tt.loadGraphModelSync({ foo: 1 })), 'Unknown model format');
    await noLeak(async () => {
      const msg = await asyncErrorOf(() => tt.loadGraphModel(tt.io.fromMemory({
        modelTopology: { class_name: 'Sequential', config: { layers: [] } }, weightSpecs: [], weightData: new ArrayBuffer(0),
      })));
      assert.match(msg, /loadLayersModel/);
    });
  });

  it('execute with a wrong input name, a missing input, wrong shapes or dtypes: tfjs\'s errors', async () => {
    await noLeak(async () => {
      const [model, ref] = await loadBoth(MODELS.twoInputs.artifacts());
      try {
        const calls = [
          (lib, m) => m.execute({ a: lib.ones([1, 3]) }),
          (lib, m) => m.execute([lib.ones([1, 3])]),
          (lib, m) => m.predict(lib.ones([1, 3])),
          (lib, m) => m.execute({ a: lib.ones([1, 3]), c: lib.ones([1, 3]) }),
          (lib, m) => m.execute({ a: lib.ones([1, 4]), b: lib.ones([1, 3]) }),
          (lib, m) => m.execute({ a: lib.ones([3]), b: lib.ones([1, 3]) }),
          (lib, m) => m.execute({ a: lib.ones([1, 3], 'int32'), b: lib.ones([1, 3]) }),
          (lib, m) => m.execute({ a: lib.ones([1, 3]), b: lib.ones([1, 3]) }, 'zzz'),
          (lib, m) => m.execute({ a: lib.ones([1, 3]), b: lib.ones([1, 3]) }, ['out', 'mul:0', 'nope:1']),
        ];
        for (const call of calls) {
          const want = errorOf(() => tfo.tidy(() => { call(tfo, ref); }));
          assert.ok(want != null, `tfjs throws for ${call}`);
          const got = errorOf(() => tt.tidy(() => { call(tt, model); }));
          assert.equal(got, want, `${call}`);
        }
        // The same call, right: a * w + b.
        samePrediction(model, ref, (lib, m) => m.execute([lib.ones([2, 3]), lib.fill([2, 3], 2)]), 1e-6, 'two inputs');
        samePrediction(model, ref, (lib, m) => m.execute({ b: lib.fill([2, 3], 2), a: lib.ones([2, 3]) }), 1e-6, 'by name');
        // executeAsync's own text for a missing input (after tfjs's warning).
        const warn = console.warn;
        console.warn = () => {};
        try {
          const want = await asyncErrorOf(() => ref.executeAsync({ a: tfo.ones([1, 3]) }));
          const a = tt.ones([1, 3]);
          const got = await asyncErrorOf(() => model.executeAsync({ a }));
          a.dispose();
          assert.equal(got, want);
        } finally {
          console.warn = warn;
        }
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  for (const [name, feeds] of [['controlFlow', (lib) => ({ x: lib.ones([2, 3]), pred: lib.scalar(true, 'bool') })],
    ['dynamicShape', (lib) => lib.tensor([1, -1, 2])]]) {
    it(`execute() of a graph needing ${name === 'controlFlow' ? 'control flow (Switch/Merge)' : 'a dynamic op (Where)'}: tfjs's text`, async () => {
      await noLeak(async () => {
        const [model, ref] = await loadBoth(MODELS[name].artifacts());
        try {
          const want = errorOf(() => tfo.tidy(() => { ref.execute(feeds(tfo)); }));
          assert.match(want, /Please use model.executeAsync\(\) instead/);
          assert.equal(errorOf(() => tt.tidy(() => { model.execute(feeds(tt)); })), want);
          // executeAsync runs it, as tfjs does.
          const run = async (lib, m) => {
            const x = feeds(lib);
            const out = await m.executeAsync(x);
            lib.dispose(x);
            return take(lib, out);
          };
          sameSnap(await run(tt, model), await run(tfo, ref), 0, `${name}: executeAsync`);
        } finally {
          model.dispose();
          ref.dispose();
        }
      });
    });
  }

  it('a model not yet loaded, or disposed', async () => {
    const model = new tt.GraphModel(tt.io.fromMemory(MODELS.mlp.artifacts()));
    assert.equal(model.modelVersion, 'n/a');
    assert.throws(() => model.inputs, /not been loaded/);
    const z = tt.zeros([1, 8]);
    assert.throws(() => model.predict(z), /not been loaded/);
    z.dispose();
    await noLeak(async () => {
      assert.equal(await model.load(), true);
      model.dispose();
      assert.deepEqual(model.inputNodes, ['x']);
    });
  });
});

// ---- 5. loading from files, sync loading, save ----------------------------------------------

describe('loading and saving', () => {
  const xOf = (lib) => lib.tensor(deterministic([2, 12, 12, 3], 3), [2, 12, 12, 3]);
  let reference = null;
  const referenceOf = async () => {
    if (reference == null) {
      const ref = await tfo.loadGraphModel(tfo.io.fromMemory(MODELS.cnn.artifacts()));
      reference = take(tfo, tfo.tidy(() => ref.predict(xOf(tfo))));
      ref.dispose();
    }
    return reference;
  };
  const check = async (model, what) => {
    try {
      sameSnap(take(tt, tt.tidy(() => model.predict(xOf(tt)))), await referenceOf(), 1e-4, what);
    } finally {
      model.dispose();
    }
  };

  it('tensorflowjs_converter\'s layout: file://, a plain path, the directory, new GraphModel + load()', async () => {
    const dir = newDir('cnn');
    const file = writeModel(MODELS.cnn, dir);
    await noLeak(async () => {
      await check(await tt.loadGraphModel(`file://${file}`), 'file://');
      await check(await tt.loadGraphModel(file), 'plain path');
      await check(await tt.loadGraphModel(dir), 'directory');
      const model = new tt.GraphModel(`file://${file}`);
      assert.equal(await model.load(), true);
      assert.equal(model.modelVersion, '1482.12');
      await check(model, 'new GraphModel + load()');
    });
  });

  it('a missing file is a clear error', async () => {
    const msg = await asyncErrorOf(() => tt.loadGraphModel(`file://${path.join(tmpRoot, 'none', 'model.json')}`));
    assert.match(msg, /does not exist/);
  });

  it('loadGraphModelSync: fromMemorySync, artifacts, [modelJSON, weights]', async () => {
    await noLeak(async () => {
      await check(tt.loadGraphModelSync(tt.io.fromMemorySync(MODELS.cnn.artifacts())), 'fromMemorySync');
      await check(tt.loadGraphModelSync(MODELS.cnn.artifacts()), 'artifacts');
      const { modelJSON, shards } = MODELS.cnn.files();
      const bytes = shards['group1-shard1of1.bin'];
      const weights = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      await check(tt.loadGraphModelSync([modelJSON, weights]), '[modelJSON, weights]');
      const model = new tt.GraphModel(tt.io.fromMemorySync(MODELS.cnn.artifacts()));
      assert.equal(model.load(), true, 'load() is synchronous on a synchronous handler');
      await check(model, 'new GraphModel(sync handler).load()');
    });
  });

  it('save() writes the graph format; it loads back here and in tfjs', async () => {
    const dir = newDir('saved');
    await noLeak(async () => {
      const model = await tt.loadGraphModel(tt.io.fromMemory(MODELS.cnn.artifacts({ userDefinedMetadata: { note: 'hi' } })));
      let saved = null;
      try {
        const result = await model.save(`file://${dir}`);
        assert.equal(result.modelArtifactsInfo.modelTopologyType, 'JSON');
        await model.save(tt.io.withSaveHandler(async (a) => { saved = a; return { modelArtifactsInfo: {} }; }));
        await assert.rejects(() => model.save({}), /does not have the `save` attribute defined/);
      } finally {
        model.dispose();
      }
      const json = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
      assert.equal(json.format, 'graph-model');
      assert.equal(json.convertedBy, 'TensorFlow.js Converter v4.22.0');
      assert.equal(json.generatedBy, '2.15.0');
      assert.deepEqual(json.userDefinedMetadata, { note: 'hi' });
      assert.deepEqual(json.modelTopology, MODELS.cnn.topology());
      assert.deepEqual(saved.weightSpecs.map((s) => s.name).sort(), MODELS.cnn.weightSpecs().map((s) => s.name).sort());
      await check(await tt.loadGraphModel(`file://${path.join(dir, 'model.json')}`), 'saved, loaded back');
      const ref = await tfo.loadGraphModel(tfo.io.fromMemory(saved));
      sameSnap(take(tfo, tfo.tidy(() => ref.predict(xOf(tfo)))), await referenceOf(), 1e-6, 'saved, loaded in tfjs');
      ref.dispose();
    });
  });

  it('the nsfwjs quantized model saves and loads back (weights dequantized to float32)', async () => {
    const DIR = path.join(NODE_MODULES, 'nsfwjs', 'dist', 'models', 'mobilenet_v2_mid');
    const modelJson = require(path.join(DIR, 'model.min.js'));
    const [shard1, shard2] = modelJson.weightsManifest[0].paths
      .map((p) => Buffer.from(require(path.join(DIR, `${p}.min.js`)), 'base64'));
    const artifacts = {
      modelTopology: modelJson.modelTopology, format: modelJson.format, generatedBy: modelJson.generatedBy,
      convertedBy: modelJson.convertedBy, userDefinedMetadata: modelJson.userDefinedMetadata,
      weightSpecs: modelJson.weightsManifest[0].weights, weightData: [new Uint8Array(shard1).buffer, new Uint8Array(shard2).buffer],
    };
    await noLeak(async () => {
      const model = await tt.loadGraphModel(tt.io.fromMemory(artifacts));
      let saved;
      try {
        await model.save(tt.io.withSaveHandler(async (a) => { saved = a; return {}; }));
        assert.ok(saved.weightSpecs.every((s) => s.dtype === 'float32' && s.quantization == null));
        assert.deepEqual(saved.userDefinedMetadata, modelJson.userDefinedMetadata);
        const again = await tt.loadGraphModel(tt.io.fromMemory(saved));
        try {
          const x = (lib) => lib.tensor(deterministic([1, 224, 224, 3], 9, 1), [1, 224, 224, 3]);
          const a = take(tt, tt.tidy(() => model.predict(x(tt))));
          const b = take(tt, tt.tidy(() => again.predict(x(tt))));
          sameSnap(b, a, 0, 'saved and reloaded');
        } finally {
          again.dispose();
        }
      } finally {
        model.dispose();
      }
    });
  });
});

// ---- 6. control flow and dynamic ops (executeAsync) -------------------------------------------

describe('control flow and dynamic ops run in executeAsync as in tfjs', () => {
  // executeAsync on both libraries (inputs made by `feeds` from lib): the snapshots.
  async function sameAsync(model, ref, feeds, outputs, tol, what) {
    const run = async (lib, m) => {
      const x = feeds(lib);
      try {
        return take(lib, await m.executeAsync(x, outputs));
      } finally {
        lib.dispose(x instanceof lib.Tensor ? x : Object.values(x));
      }
    };
    const want = await run(tfo, ref);
    const got = await run(tt, model);
    sameSnap(got, want, tol, what);
    return got;
  }

  it('a TensorFlow 1 while loop (Enter, Merge, LoopCond, Switch, NextIteration, Exit)', async () => {
    await noLeak(async () => {
      const [model, ref] = await loadBoth(MODELS.whileLoop.artifacts());
      try {
        assert.deepEqual(model.inputs, ref.inputs);
        assert.deepEqual(model.outputNodes, ref.outputNodes);
        for (const n of [0, 1, 5, 40]) {
          const feeds = (lib) => ({ x: lib.tensor([1.5, -2, 0.25]), n: lib.scalar(n, 'int32') });
          const got = await sameAsync(model, ref, feeds, ['acc', 'count'], 1e-5, `n = ${n}`);
          assert.equal(got[1].values[0], n);
          await sameAsync(model, ref, feeds, undefined, 1e-5, `n = ${n}, default outputs`);
          await sameAsync(model, ref, feeds, ['count:0', 'while/Exit_1'], 1e-5, `n = ${n}, by tensor name`);
        }
        // predictAsync too; execute() refuses, with tfjs's text.
        const feeds = (lib) => ({ x: lib.tensor([1, 2, 3]), n: lib.scalar(3, 'int32') });
        const p = async (lib, m) => { const x = feeds(lib); const r = await m.predictAsync(x); lib.dispose(Object.values(x)); return take(lib, r); };
        sameSnap(await p(tt, model), await p(tfo, ref), 1e-5, 'predictAsync');
        const x = feeds(tt);
        const xo = feeds(tfo);
        const want = errorOf(() => ref.execute(xo, ['acc']));
        assert.match(want, /which has the dynamic op 'Exit'. Please use model.executeAsync\(\) instead/);
        assert.equal(errorOf(() => model.execute(x, ['acc'])), want);
        // A missing input: tfjs's text (with its alternative).
        const wantMissing = await asyncErrorOf(() => ref.executeAsync({ x: xo.x }, ['acc']));
        assert.equal(await asyncErrorOf(() => model.executeAsync({ x: x.x }, ['acc'])), wantMissing);
        tt.dispose(Object.values(x));
        tfo.dispose(Object.values(xo));
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  it('a detector: convolution, boxes and scores, NonMaxSuppressionV5 (hard and soft), GatherV2', async () => {
    await noLeak(async () => {
      const [model, ref] = await loadBoth(MODELS.detector.artifacts());
      try {
        assert.deepEqual(model.outputNodes, ref.outputNodes);
        for (const seed of [3, 11, 29]) {
          const feeds = (lib) => lib.tensor(lcg(192, seed, 1), [1, 8, 8, 3]);
          const got = await sameAsync(model, ref, feeds, ['detections', 'nms:1', 'soft_nms', 'soft_nms:1', 'nms'], 1e-4,
            `seed ${seed}`);
          assert.ok(got[0].shape[0] > 0, 'some boxes are kept');
          await sameAsync(model, ref, feeds, undefined, 1e-4, `seed ${seed}, default outputs`);
        }
        // execute() refuses, with tfjs's text; the part before the NMS runs in execute.
        const x = tt.tensor(lcg(192, 3, 1), [1, 8, 8, 3]);
        const xo = tfo.tensor(lcg(192, 3, 1), [1, 8, 8, 3]);
        const want = errorOf(() => ref.execute(xo, ['detections']));
        assert.match(want, /which has the dynamic op 'NonMaxSuppressionV5'/);
        assert.equal(errorOf(() => model.execute(x, ['detections'])), want);
        samePrediction(model, ref, (lib, m) => m.execute(lib.tensor(lcg(192, 3, 1), [1, 8, 8, 3]), ['boxes', 'scores']),
          1e-4, 'execute(boxes, scores)');
        x.dispose();
        xo.dispose();
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  it('TensorFlow 2 functional control flow: StatelessWhile and StatelessIf over library functions', async () => {
    await noLeak(async () => {
      const [model, ref] = await loadBoth(MODELS.functional.artifacts());
      try {
        assert.deepEqual(Object.keys(model.weights), Object.keys(ref.weights), 'the functions\' weights too');
        for (const [x, n] of [[[1, 2, 3], 0], [[1, 2, 3], 4], [[-1, -2, 3], 3], [[0.5, -4, 2], 12]]) {
          const feeds = (lib) => ({ x: lib.tensor(x), n: lib.scalar(n, 'int32') });
          await sameAsync(model, ref, feeds, ['acc', 'count', 'cond'], 1e-5, `x = [${x}], n = ${n}`);
          // (With n = 0 'while:1' is the weight acc0 itself, as in tfjs: not to be disposed.)
          if (n > 0) await sameAsync(model, ref, feeds, ['while:1', 'if'], 1e-5, `x = [${x}], n = ${n}: while:1, if`);
        }
        const x = { x: tt.tensor([1, 2, 3]), n: tt.scalar(2, 'int32') };
        const xo = { x: tfo.tensor([1, 2, 3]), n: tfo.scalar(2, 'int32') };
        const want = errorOf(() => ref.execute(xo, ['cond']));
        assert.match(want, /Please use model.executeAsync\(\) instead/);
        assert.equal(errorOf(() => model.execute(x, ['cond'])), want);
        tt.dispose(Object.values(x));
        tfo.dispose(Object.values(xo));
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  it('hash tables: the model initializer fills a vocabulary table; lookups run in executeAsync as tfjs', async () => {
    await noLeak(async () => {
      const [model, ref] = await loadBoth(MODELS.vocab.artifacts());
      try {
        assert.deepEqual(model.inputNodes, ref.inputNodes);
        assert.deepEqual(model.outputNodes, ref.outputNodes);
        // execute() cannot run the initializer (its ops are tfjs's async ones): tfjs's text.
        const wordsOf = (lib, list) => lib.tensor(list, [list.length], 'string');
        const syncError = (lib, m) => {
          const w = wordsOf(lib, ['the']);
          try {
            return errorOf(() => m.execute({ words: w }));
          } finally {
            w.dispose();
          }
        };
        const want = syncError(tfo, ref);
        assert.match(want, /which has the dynamic op 'LookupTableImportV2'/);
        assert.equal(syncError(tt, model), want);
        // (tfjs adds the captured table handle to the feed map it is given: only the words are ours.)
        const lookUp = async (lib, m, list, outputs) => {
          const w = wordsOf(lib, list);
          try {
            return take(lib, await m.executeAsync({ words: w }, outputs));
          } finally {
            w.dispose();
          }
        };
        for (const list of [['the', 'dog', 'sat', 'on', 'a', 'mat'], ['mat'], ['cat', 'cat', 'x', 'the']]) {
          sameSnap(await lookUp(tt, model, list), await lookUp(tfo, ref, list), 1e-6, `[${list}]`);
          sameSnap(await lookUp(tt, model, list, ['ids', 'size']), await lookUp(tfo, ref, list, ['ids', 'size']), 0,
            `[${list}]: ids, size`);
        }
        const ids = await lookUp(tt, model, ['on', 'the', 'rug'], 'ids');
        assert.deepEqual(ids.values, [3, 0, -1]);
        // A positional input: the handle is captured, one tensor is expected.
        const w = wordsOf(tt, ['sat']);
        const out = await model.executeAsync([w], ['ids']);
        assert.deepEqual(Array.from(out.dataSync()), [2]);
        tt.dispose([w, out]);
      } finally {
        model.dispose();
        ref.dispose();
      }
    });
  });

  it('memory: 200 executeAsync calls keep numTensors (and GPU bytes) flat', async () => {
    const start = tt.memory().numTensors;
    const loop = await tt.loadGraphModel(tt.io.fromMemory(MODELS.whileLoop.artifacts()));
    const det = await tt.loadGraphModel(tt.io.fromMemory(MODELS.detector.artifacts()));
    const fun = await tt.loadGraphModel(tt.io.fromMemory(MODELS.functional.artifacts()));
    const x = tt.tensor([1, 2, 3]);
    const n = tt.scalar(25, 'int32');
    const img = tt.tensor(lcg(192, 5, 1), [1, 8, 8, 3]);
    const base = tt.memory();
    let first = null;
    for (let i = 0; i < 200; i++) {
      const [acc, count] = await loop.executeAsync({ x, n }, ['acc', 'count']);
      const dets = await det.executeAsync(img, ['detections', 'soft_nms:1']);
      const cond = await fun.executeAsync({ x, n }, 'cond');
      assert.equal(tt.memory().numTensors, base.numTensors + 5, `only the outputs are new (call ${i + 1})`);
      const snap = [...acc.dataSync(), ...count.dataSync(), ...dets[0].dataSync(), ...dets[1].dataSync(),
        ...cond.dataSync()];
      if (first == null) first = snap;
      else closeArrays(snap, first, 0, `call ${i + 1}`);
      tt.dispose([acc, count, ...dets, cond]);
      const m = tt.memory();
      assert.equal(m.numTensors, base.numTensors, `numTensors after ${i + 1} calls`);
      if (base.numBytesInGPU != null) assert.equal(m.numBytesInGPU, base.numBytesInGPU, `numBytesInGPU after ${i + 1}`);
    }
    // Errors leave nothing behind either.
    const bad = tt.tensor([1, 2]);
    assert.match(await asyncErrorOf(() => det.executeAsync(bad)), /shape of dict\['x'\]/);
    bad.dispose();
    assert.equal(tt.memory().numTensors, base.numTensors);
    tt.dispose([x, n, img]);
    loop.dispose();
    det.dispose();
    fun.dispose();
    assert.equal(tt.memory().numTensors, start);
  });
});
