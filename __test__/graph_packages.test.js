'use strict';
// Graph models a package ships, run as the package runs them: @vladmandic/human 3.3.6 bundles
// tfjs graph models (node_modules/@vladmandic/human/models/<name>.json + .bin). Each is loaded
// on tidytensor from its file:// URL (Human in Node points modelBasePath at file://models/ and
// loads through the URL's IO handler) and on @tensorflow/tfjs 4.22 (`tfo`, which has no file
// handler without tfjs-node) through io.fromMemory from the same model.json and .bin; both run
// the same input, prepared as Human's own modules prepare it (src/face/blazeface.ts,
// body/movenet.ts + movenetfix.ts, gear/emotion.ts, hand/handtrack.ts, face/facemesh.ts,
// face/antispoof.ts, face/liveness.ts) from the sample pictures Human ships in assets/ (the
// preparation runs on both libraries and is compared; both models then get tfjs's result).
// Every output is compared to 1e-4 (relative where values pass 1), and the decisions Human takes
// from them (which anchors/keypoints pass its thresholds, the boxes NonMaxSuppression keeps)
// are compared exactly. Then repeated predictions keep tidytensor's memory flat and dispose
// gives it all back, and model.inputs/outputs/outputNodes/signature are tfjs's.
//
// Human's loader (src/tfjs/load.ts) is followed too: new GraphModel(url), findIOHandler(),
// handler.load(), loadSync(artifacts); its modules then test the private `model.executor`
// before running a model. Last, Human itself (dist/human.node.js, unchanged) runs detect() on
// tidytensor and on tfjs in child processes and must report the same faces, bodies and hands.
//
// GRAPH_PACKAGES_TIMINGS=1 prints the time of one prediction per model on both libraries.
const { describe, it } = require('node:test');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { tt, tfo, assert, snapshot } = require('./helpers/setup');

const ROOT = path.join(__dirname, '..');
const HUMAN = path.join(ROOT, 'node_modules', '@vladmandic', 'human');
const MODELS_DIR = path.join(HUMAN, 'models');
const ASSETS = path.join(HUMAN, 'assets');
const WGPU = tt.getBackend() === 'wgpu';
const TIMINGS = !!process.env.GRAPH_PACKAGES_TIMINGS;

// ---- helpers -------------------------------------------------------------------------------

const modelUrl = (name) => `file://${path.join(MODELS_DIR, `${name}.json`)}`;

// The artifacts tfjs's file handler would make of <name>.json and its weight files.
function artifactsOf(name) {
  const json = JSON.parse(fs.readFileSync(path.join(MODELS_DIR, `${name}.json`), 'utf8'));
  const weightSpecs = [];
  const parts = [];
  for (const group of json.weightsManifest) {
    weightSpecs.push(...group.weights);
    for (const p of group.paths) parts.push(fs.readFileSync(path.join(MODELS_DIR, p)));
  }
  const artifacts = {
    modelTopology: json.modelTopology, format: json.format, generatedBy: json.generatedBy,
    convertedBy: json.convertedBy, weightSpecs, weightData: new Uint8Array(Buffer.concat(parts)).buffer,
  };
  for (const k of ['signature', 'userDefinedMetadata', 'modelInitializer', 'initializerSignature']) {
    if (json[k] != null) artifacts[k] = json[k];
  }
  return artifacts;
}

// [tidytensor model (file:// URL), tfjs model (io.fromMemory)].
async function loadBoth(name) {
  const model = await tt.loadGraphModel(modelUrl(name));
  const ref = await tfo.loadGraphModel(tfo.io.fromMemory(artifactsOf(name)));
  return [model, ref];
}

// The sample pictures, decoded once (RGB, int32 0..255) and shared by both libraries.
const pictures = {};
function picture(file) {
  if (pictures[file] == null) {
    const t = tt.node.decodeJpeg(fs.readFileSync(path.join(ASSETS, file)), 3);
    pictures[file] = { data: Int32Array.from(t.dataSync()), shape: t.shape.slice() };
    t.dispose();
  }
  return pictures[file];
}

// Human's input tensor (src/image/image.ts in Node): the pixels as [h, w, 3] -> float32 ->
// expandDims(0), values 0..255.
function humanImage(lib, file) {
  const { data, shape } = picture(file);
  return lib.tidy(() => lib.expandDims(lib.cast(lib.tensor(data, shape, 'int32'), 'float32'), 0));
}

// A face as Human's face pipeline hands it to the face models (facemeshutil.cropBoxFromImage:
// cropAndResize of the face box to the mesh size 192, divided by 255: values 0..1). The box is
// the fourth face of screenshot-facedetect.jpg.
const FACE_BOX = [0.475, 0.595, 0.695, 0.79];
function humanFace(lib) {
  return lib.tidy(() => {
    const image = humanImage(lib, 'screenshot-facedetect.jpg');
    const crop = lib.image.cropAndResize(image, [FACE_BOX], [0], [192, 192], 'bilinear');
    return lib.div(crop, lib.scalar(255, 'float32'));
  });
}

// emotion.ts (a one-channel model: oarriaga's): resizeBilinear(face, [64, 64]), times the rgb
// weights, summed over channels (keepDims), -0.5, *2.
function emotionInput(lib) {
  return lib.tidy(() => {
    const resized = lib.image.resizeBilinear(humanFace(lib), [64, 64], false);
    const channels = lib.mul(resized, lib.tensor1d([0.2989, 0.5870, 0.1140], 'float32'));
    const gray = lib.sum(channels, 3, true);
    return lib.mul(lib.sub(gray, lib.scalar(0.5)), lib.scalar(2));
  });
}

function closeArrays(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])))) {
      assert.fail(`${what}[${i}]: got ${got[i]}, expected ${want[i]} (tolerance ${tol})`);
    }
  }
}

function sameSnap(got, want, tol, what) {
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${what}: an array`);
    assert.equal(got.length, want.length, `${what}: outputs`);
    want.forEach((w, i) => sameSnap(got[i], w, tol, `${what}[${i}]`));
    return;
  }
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  assert.equal(got.dtype, want.dtype, `${what}: dtype`);
  closeArrays(got.values, want.values, want.dtype === 'int32' ? 0 : tol, what);
}

// Prepares a model's input on both libraries as Human does (`prepare(lib)`) and checks that they
// agree: float inputs to 1e-4; int32 ones (Human truncates resized pixels with cast) within one
// level on a few pixels: resizeBilinear agrees with tfjs's to an ulp, not bit for bit (tfjs's cpu
// kernel interpolates in float64, tidytensor in float32, a GPU its own way), and an ulp under an
// integer truncates one lower (72.99999 -> 72). Returns the maker of the reference's input,
// which both models then get, so that their outputs compare to 1e-4.
function sameInput(prepare) {
  const take = (lib) => {
    const x = prepare(lib);
    const s = snapshot(lib, x);
    x.dispose();
    return s;
  };
  const want = take(tfo);
  const got = take(tt);
  assert.deepEqual(got.shape, want.shape, 'prepared input: shape');
  assert.equal(got.dtype, want.dtype, 'prepared input: dtype');
  if (want.dtype !== 'int32') {
    closeArrays(got.values, want.values, 1e-4, 'prepared input');
  } else {
    const off = want.values.filter((v, i) => v !== got.values[i]).length;
    assert.ok(want.values.every((v, i) => Math.abs(v - got.values[i]) <= 1), 'prepared input: within one level');
    assert.ok(off <= want.values.length * 1e-3, `prepared input: ${off} values off by one`);
  }
  const values = want.dtype === 'int32' ? Int32Array.from(want.values) : Float32Array.from(want.values);
  return (lib) => lib.tensor(values, want.shape, want.dtype);
}

const indicesAbove = (values, threshold) => values.map((v, i) => (v > threshold ? i : -1)).filter((i) => i >= 0);

// Values within `margin` of `threshold`: decisions on them could flip with float rounding.
const nearThreshold = (values, threshold, margin = 1e-4) => values.filter((v) => Math.abs(v - threshold) <= margin);

const sigmoid = (v) => 1 / (1 + Math.exp(-v));

// Runs `run(lib, model, x)` (sync or async) on both libraries with the input `input(lib)`:
// plain data of the outputs, the time of the call, and nothing left behind on tidytensor.
async function predictBoth(model, ref, input, run) {
  const once = async (lib, m) => {
    const before = lib.memory().numTensors;
    const x = input(lib);
    const t0 = process.hrtime.bigint();
    const out = await run(lib, m, x);
    const snap = snapshot(lib, out);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    lib.dispose(out);
    x.dispose();
    assert.equal(lib.memory().numTensors, before, `tensors left on ${lib === tt ? 'tidytensor' : 'tfjs'}`);
    return { snap, ms };
  };
  const want = await once(tfo, ref);
  const got = await once(tt, model);
  return { got: got.snap, want: want.snap, ttMs: got.ms, tfoMs: want.ms };
}

function report(name, r) {
  if (TIMINGS) {
    console.log(`# ${name} on ${tt.getBackend()}: tidytensor ${r.ttMs.toFixed(1)} ms, tfjs (cpu) ${r.tfoMs.toFixed(1)} ms`);
  }
}

// model.inputs/outputs/inputNodes/outputNodes/signature as tfjs's.
function sameInterface(model, ref) {
  assert.ok(model instanceof tt.GraphModel);
  assert.deepEqual(model.inputs, ref.inputs, 'inputs');
  assert.deepEqual(model.outputs, ref.outputs, 'outputs');
  assert.deepEqual(model.inputNodes, ref.inputNodes, 'inputNodes');
  assert.deepEqual(model.outputNodes, ref.outputNodes, 'outputNodes');
  assert.deepEqual(model.modelSignature, ref.modelSignature, 'modelSignature');
  assert.equal(model.modelVersion, ref.modelVersion, 'modelVersion');
}

// `reps` predictions of `run(model, x)` keep numTensors (and GPU bytes) flat on tidytensor,
// give the same values each time, and model.dispose() brings numTensors back to `start`.
async function flatMemory(model, start, input, run, reps) {
  const x = input(tt);
  const base = tt.memory();
  let first = null;
  for (let i = 0; i < reps; i++) {
    const out = await run(tt, model, x);
    const outs = Array.isArray(out) ? out : [out];
    if (i === 0) first = outs.map((t) => t.dataSync().slice());
    else if (i === reps - 1) outs.forEach((t, k) => closeArrays(t.dataSync(), first[k], 0, `prediction ${i + 1}, output ${k}`));
    tt.dispose(outs);
    if (i % 10 === 9 || i === reps - 1) {
      const m = tt.memory();
      assert.equal(m.numTensors, base.numTensors, `numTensors after ${i + 1} predictions`);
      if (base.numBytesInGPU != null) assert.equal(m.numBytesInGPU, base.numBytesInGPU, `numBytesInGPU after ${i + 1} predictions`);
    }
  }
  x.dispose();
  model.dispose();
  assert.equal(tt.memory().numTensors, start, 'numTensors back to the start after dispose');
}

// Repetitions for the memory check: lavapipe (the software Vulkan wgpu runs on here) takes
// ~0.6 s a blazeface or movenet call and ~2 s a handtrack call, so wgpu runs fewer.
const reps = (cpu, wgpu) => (WGPU ? wgpu : cpu);

// ---- the models ------------------------------------------------------------------------------

describe('@vladmandic/human graph models on tidytensor match tfjs', () => {
  it('blazeface (face detector): execute() of the normalized picture, every output to 1e-4', async () => {
    const start = tt.memory().numTensors;
    const [model, ref] = await loadBoth('blazeface');
    try {
      sameInterface(model, ref);
      // blazeface.ts: inputSize = inputs[0].shape[2]; resizeBilinear(image, [size, size]) / 127.5 - 1.
      const size = model.inputs[0].shape[2];
      assert.equal(size, 256);
      const prepare = (lib) => lib.tidy(() => {
        const image = humanImage(lib, 'screenshot-facedetect.jpg');
        const resized = lib.image.resizeBilinear(image, [size, size]);
        return lib.sub(lib.div(resized, lib.scalar(127.5)), lib.scalar(1));
      });
      const input = sameInput(prepare);
      const run = (lib, m, x) => m.execute(x);
      const r = await predictBoth(model, ref, input, run);
      report('blazeface', r);
      // Four outputs (the "pinto converted" layout: [1,384,16] [1,512,1] [1,384,1] [1,512,16]).
      assert.equal(r.want.length, 4);
      sameSnap(r.got, r.want, 1e-4, 'blazeface');
      // Human sorts them by size and concatenates [512 anchors; 384 anchors] x [logit, box 16];
      // the anchors whose sigmoid(logit) passes minConfidence (0.2) are the same faces.
      const logits = (s) => {
        const bySize = s.slice().sort((a, b) => a.values.length - b.values.length);
        return [...bySize[1].values, ...bySize[0].values];
      };
      const scoresWant = logits(r.want).map(sigmoid);
      const scoresGot = logits(r.got).map(sigmoid);
      assert.deepEqual(nearThreshold(scoresWant, 0.2), [], 'no score on the threshold');
      const faces = indicesAbove(scoresWant, 0.2);
      assert.ok(faces.length > 0, 'tfjs finds faces in the picture');
      assert.deepEqual(indicesAbove(scoresGot, 0.2), faces, 'the anchors that find faces');
      await flatMemory(model, start, input, run, reps(100, 8));
    } finally {
      model.dispose();
      ref.dispose();
    }
    assert.equal(tt.memory().numTensors, start);
  });

  it('movenet-lightning (pose): execute() of the padded int32 picture, keypoints to 1e-4', async () => {
    const start = tt.memory().numTensors;
    const [model, ref] = await loadBoth('movenet-lightning');
    try {
      sameInterface(model, ref);
      // movenet.ts: inputSize = inputs[0].shape[2]; movenetfix.padInput: pad to a square,
      // resizeBilinear to the input size, cast to int32.
      const size = model.inputs[0].shape[2];
      assert.equal(size, 192);
      assert.equal(model.inputs[0].dtype, 'int32');
      const prepare = (lib) => lib.tidy(() => {
        const image = humanImage(lib, 'screenshot-vrm.jpg');
        const [h, w] = image.shape.slice(1, 3);
        const padH = w > h ? Math.trunc((w - h) / 2) : 0;
        const padW = h > w ? Math.trunc((h - w) / 2) : 0;
        const padded = lib.pad(image, [[0, 0], [padH, padH], [padW, padW], [0, 0]]);
        return lib.cast(lib.image.resizeBilinear(padded, [size, size]), 'int32');
      });
      const input = sameInput(prepare);
      const run = (lib, m, x) => m.execute(x);
      const r = await predictBoth(model, ref, input, run);
      report('movenet-lightning', r);
      assert.deepEqual(r.want.shape, [1, 1, 17, 3]);
      sameSnap(r.got, r.want, 1e-4, 'movenet');
      // parseSinglePose: the keypoints scoring over body.minConfidence (0.3).
      const scores = (s) => s.values.filter((_, i) => i % 3 === 2);
      assert.deepEqual(nearThreshold(scores(r.want), 0.3), [], 'no score on the threshold');
      const kept = indicesAbove(scores(r.want), 0.3);
      assert.ok(kept.length > 0, 'tfjs finds keypoints in the picture');
      assert.deepEqual(indicesAbove(scores(r.got), 0.3), kept, 'the keypoints Human keeps');
      await flatMemory(model, start, input, run, reps(100, 8));
    } finally {
      model.dispose();
      ref.dispose();
    }
    assert.equal(tt.memory().numTensors, start);
  });

  it('emotion: execute() of the grayscale face, probabilities to 1e-4', async () => {
    const start = tt.memory().numTensors;
    const [model, ref] = await loadBoth('emotion');
    try {
      sameInterface(model, ref);
      // emotion.ts: see emotionInput.
      assert.deepEqual(model.inputs[0].shape, [-1, 64, 64, 1]);
      const input = sameInput(emotionInput);
      const run = (lib, m, x) => m.execute(x);
      const r = await predictBoth(model, ref, input, run);
      report('emotion', r);
      assert.deepEqual(r.want.shape, [1, 7]);
      sameSnap(r.got, r.want, 1e-4, 'emotion');
      closeArrays([r.got.values.reduce((a, b) => a + b, 0)], [1], 1e-5, 'softmax sum');
      // The emotions over minConfidence (0.1), as Human lists them.
      assert.deepEqual(nearThreshold(r.want.values, 0.1), [], 'no score on the threshold');
      assert.deepEqual(indicesAbove(r.got.values, 0.1), indicesAbove(r.want.values, 0.1));
      await flatMemory(model, start, input, run, reps(100, 20));
    } finally {
      model.dispose();
      ref.dispose();
    }
    assert.equal(tt.memory().numTensors, start);
  });

  it('handtrack (hand detector: while loop, TensorLists, NonMaxSuppressionV5): executeAsync as Human', async () => {
    const start = tt.memory().numTensors;
    const [model, ref] = await loadBoth('handtrack');
    try {
      sameInterface(model, ref);
      // handtrack.ts detectHands: height = min(round(h / 8) * 8, 512), width = round(height *
      // w / h / 8) * 8; resizeBilinear, cast int32, executeAsync(x, modelOutputNodes).
      // The picture: screenshot-facematch.jpg (1920 x 954, rows of faces, some hands); on it the
      // detector scores several boxes over Human's 0.5.
      const prepare = (lib) => lib.tidy(() => {
        const image = humanImage(lib, 'screenshot-facematch.jpg');
        const [h, w] = image.shape.slice(1, 3);
        const height = Math.min(Math.round(h / 8) * 8, 512);
        const width = Math.round((height * (w / h)) / 8) * 8;
        return lib.cast(lib.image.resizeBilinear(image, [height, width]), 'int32');
      });
      const input = sameInput(prepare);
      const outputNodes = ['StatefulPartitionedCall/Postprocessor/Slice', 'StatefulPartitionedCall/Postprocessor/ExpandDims_1'];
      const run = (lib, m, x) => m.executeAsync(x, outputNodes);
      const r = await predictBoth(model, ref, input, run);
      report('handtrack', r);
      const [scores, boxes] = r.want;
      assert.equal(scores.shape.length, 3);
      assert.deepEqual(boxes.shape, [1, scores.shape[1], 1, 4]);
      sameSnap(r.got, r.want, 1e-4, 'handtrack');

      // The rest of detectHands: drop the face class, best class per box, NonMaxSuppression
      // (maxDetected + 1 boxes: Human's maxDetected is 2 per face found, here 4 faces -> 9;
      // iouThreshold 0.2, minConfidence 0.5), then each kept box, its score and its class.
      const detect = async (lib, m) => {
        const x = input(lib);
        const [rawScores, rawBoxes] = await m.executeAsync(x, outputNodes);
        const t = {};
        t.boxes = lib.squeeze(rawBoxes, [0, 2]);
        t.scores = lib.squeeze(rawScores, [0]);
        const classScores = lib.unstack(t.scores, 1);
        lib.dispose(classScores[4]);
        classScores.splice(4, 1);
        t.filtered = lib.stack(classScores, 1);
        lib.dispose(classScores);
        t.max = lib.max(t.filtered, 1);
        t.argmax = lib.argMax(t.filtered, 1);
        t.nms = await lib.image.nonMaxSuppressionAsync(t.boxes, t.max, 9, 0.2, 0.5);
        const nms = Array.from(await t.nms.data());
        const max = Array.from(await t.max.data());
        const classNum = Array.from(await t.argmax.data());
        const hands = [];
        for (const i of nms) {
          const slice = lib.slice(t.boxes, i, 1);
          hands.push({ index: i, box: Array.from(await slice.data()), score: max[i], label: classNum[i] });
          lib.dispose(slice);
        }
        lib.dispose([x, rawScores, rawBoxes, ...Object.values(t)]);
        return { hands, max };
      };
      const before = tt.memory().numTensors;
      const want = await detect(tfo, ref);
      const got = await detect(tt, model);
      assert.equal(tt.memory().numTensors, before, 'tensors left by detectHands');
      assert.ok(want.hands.length > 1, 'tfjs keeps boxes in the picture');
      // Scores near the threshold or near one another could reorder with float rounding;
      // the picture's are well apart, so the kept boxes must be the same ones.
      assert.deepEqual(nearThreshold(want.max, 0.5), [], 'no score on the threshold');
      const kept = want.hands.map((h) => h.score);
      for (let i = 1; i < kept.length; i++) assert.ok(kept[i - 1] - kept[i] > 1e-4, 'kept scores well apart');
      assert.deepEqual(got.hands.map((h) => h.index), want.hands.map((h) => h.index), 'the boxes NMS keeps');
      assert.deepEqual(got.hands.map((h) => h.label), want.hands.map((h) => h.label), 'their classes');
      got.hands.forEach((h, k) => {
        closeArrays(h.box, want.hands[k].box, 1e-4, `hand ${k} box`);
        closeArrays([h.score], [want.hands[k].score], 1e-4, `hand ${k} score`);
      });
      await flatMemory(model, start, input, run, reps(20, 3));
    } finally {
      model.dispose();
      ref.dispose();
    }
    assert.equal(tt.memory().numTensors, start);
  });

  it('handtrack: executeAsync of all eight outputs (the graph\'s own NMS detections) to 1e-4', async () => {
    const start = tt.memory().numTensors;
    const [model, ref] = await loadBoth('handtrack');
    try {
      const input = sameInput((lib) => lib.tidy(() => lib.cast(lib.image.resizeBilinear(humanImage(lib, 'samples.jpg'), [320, 352]), 'int32')));
      const r = await predictBoth(model, ref, input, (lib, m, x) => m.executeAsync(x));
      report('handtrack (all outputs)', r);
      assert.equal(r.want.length, 8);
      sameSnap(r.got, r.want, 1e-4, 'handtrack outputs');
      // num_detections, then the detection boxes/classes/scores the graph's NMS kept.
      const byShape = (s, shape) => s.filter((o) => JSON.stringify(o.shape) === JSON.stringify(shape));
      const [numDetections] = byShape(r.want, [1]);
      assert.ok(numDetections.values[0] > 0, 'the graph keeps detections');
    } finally {
      model.dispose();
      ref.dispose();
    }
    assert.equal(tt.memory().numTensors, start);
  });

  it('facemesh: execute() of the face crop, the mesh, face flag and contours to 1e-4', async () => {
    const start = tt.memory().numTensors;
    const [model, ref] = await loadBoth('facemesh');
    try {
      sameInterface(model, ref);
      // facemesh.ts: model.execute(face.tensor), the crop at the mesh size (192), 0..1.
      assert.deepEqual(model.inputs[0].shape, [-1, 192, 192, 3]);
      const run = (lib, m, x) => m.execute(x);
      const input = sameInput(humanFace);
      const r = await predictBoth(model, ref, input, run);
      report('facemesh', r);
      assert.equal(r.want.length, 3);
      sameSnap(r.got, r.want, 1e-4, 'facemesh');
      await flatMemory(model, start, input, run, reps(100, 20));
    } finally {
      model.dispose();
      ref.dispose();
    }
    assert.equal(tt.memory().numTensors, start);
  });

  for (const name of ['antispoof', 'liveness']) {
    it(`${name}: execute() of the face resized to the model's input, to 1e-4`, async () => {
      const start = tt.memory().numTensors;
      const [model, ref] = await loadBoth(name);
      try {
        sameInterface(model, ref);
        // antispoof.ts / liveness.ts: resizeBilinear(face, [shape[2], shape[1]], false).
        const [, h, w] = model.inputs[0].shape;
        const input = sameInput((lib) => lib.tidy(() => lib.image.resizeBilinear(humanFace(lib), [w, h], false)));
        const run = (lib, m, x) => m.execute(x);
        const r = await predictBoth(model, ref, input, run);
        report(name, r);
        sameSnap(r.got, r.want, 1e-4, name);
        await flatMemory(model, start, input, run, reps(100, 20));
      } finally {
        model.dispose();
        ref.dispose();
      }
      assert.equal(tt.memory().numTensors, start);
    });
  }
});

// ---- Human's loader -----------------------------------------------------------------------------

describe('the way @vladmandic/human loads and checks its models', () => {
  // src/tfjs/load.ts loadModel, in Node (no indexedDB; fetch exists so a fetchFunc is passed).
  async function humanLoad(lib, url) {
    const model = new lib.GraphModel(url, { fetchFunc: (u, init) => fetch(u, init) });
    model.findIOHandler();
    const artifacts = await model.handler.load();
    assert.ok(artifacts, 'the handler loads the artifacts');
    model.loadSync(artifacts);
    return model;
  }

  it('new GraphModel(file:// URL), findIOHandler(), handler.load(), loadSync() loads the model', async () => {
    const start = tt.memory().numTensors;
    const model = await humanLoad(tt, modelUrl('emotion'));
    const ref = await tfo.loadGraphModel(tfo.io.fromMemory(artifactsOf('emotion')));
    try {
      assert.equal(model.modelUrl, modelUrl('emotion'));
      sameInterface(model, ref);
      const r = await predictBoth(model, ref, sameInput(emotionInput), (lib, m, x) => m.execute(x));
      sameSnap(r.got, r.want, 1e-4, 'emotion loaded as Human does');
    } finally {
      model.dispose();
      ref.dispose();
    }
    assert.equal(tt.memory().numTensors, start);
  });

  // Human's modules check `model['executor']` (tfjs's private GraphExecutor) before using a
  // model: movenet/handtrack predict() return [], facemesh returns blazeface's box alone,
  // antispoof/liveness/faceres/iris skip, and blazeface/movenet/facemesh/iris load() read the
  // input size only when it is set (movenet then falls back to 256, not its 192). Without it,
  // Human 3.3.6 would load everything and silently find no bodies and no hands.
  it('model.executor is set once loaded, as Human requires', async () => {
    const start = tt.memory().numTensors;
    const model = await humanLoad(tt, modelUrl('movenet-lightning'));
    try {
      assert.ok(model.executor, 'model.executor');
      const inputSize = (model.executor && model.inputs[0].shape) ? model.inputs[0].shape[2] : 0;
      assert.equal(inputSize, 192);
    } finally {
      model.dispose();
    }
    assert.equal(tt.memory().numTensors, start);
  });

  // handtrack.ts reads the detector's input size from the signature, not from model.inputs.
  it('handtrack: modelSignature.inputs gives Human its 320 x 320 input size, as tfjs', async () => {
    const [model, ref] = await loadBoth('handtrack');
    try {
      const size = (m) => {
        const inputs = Object.values(m.modelSignature.inputs);
        return [parseInt(inputs[0].tensorShape.dim[1].size, 10), parseInt(inputs[0].tensorShape.dim[2].size, 10)];
      };
      assert.deepEqual(size(model), size(ref));
      assert.deepEqual(size(model), [320, 320]);
    } finally {
      model.dispose();
      ref.dispose();
    }
  });
});

// ---- Human itself ------------------------------------------------------------------------------

describe('@vladmandic/human itself on tidytensor', () => {
  // Human's Node build, unchanged, in a child process: its require('@tensorflow/tfjs-node')
  // resolved to tidytensor, or (the reference) to @tensorflow/tfjs with a file:// load router
  // standing in for tfjs-node's file handler. Face (blazeface, facemesh, emotion, antispoof,
  // liveness), body (movenet) and hands (handtrack, handlandmark-lite) on
  // screenshot-facedetect.jpg, where tfjs finds a face (468 mesh points), a body and a hand.
  const script = (onTidytensor) => `
    const Module = require('module');
    const fs = require('fs');
    const path = require('path');
    const tt = require(${JSON.stringify(ROOT)});
    let tf = tt;
    if (${onTidytensor}) {
      if (process.env.TIDYTENSOR_BACKEND) tt.setBackend(process.env.TIDYTENSOR_BACKEND);
    } else {
      tf = require('@tensorflow/tfjs');
      tf.io.registerLoadRouter((url) => {
        if (typeof url !== 'string' || !url.startsWith('file://')) return null;
        const file = url.slice('file://'.length);
        return { load: async () => {
          const j = JSON.parse(fs.readFileSync(file, 'utf8'));
          const bin = j.weightsManifest.flatMap((g) => g.paths).map((p) => fs.readFileSync(path.join(path.dirname(file), p)));
          return { modelTopology: j.modelTopology, format: j.format, generatedBy: j.generatedBy, convertedBy: j.convertedBy,
            signature: j.signature, userDefinedMetadata: j.userDefinedMetadata, weightSpecs: j.weightsManifest.flatMap((g) => g.weights),
            weightData: new Uint8Array(Buffer.concat(bin)).buffer };
        } };
      });
    }
    const target = ${onTidytensor} ? ${JSON.stringify(path.join(ROOT, 'index.js'))} : require.resolve('@tensorflow/tfjs');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, parent, ...rest) {
      if (request === '@tensorflow/tfjs-node') return target;
      return resolve.call(this, request, parent, ...rest);
    };
    const { Human } = require(${JSON.stringify(path.join(HUMAN, 'dist', 'human.node.js'))});
    Module._resolveFilename = resolve;
    (async () => {
      const human = new Human({
        backend: tf.getBackend(), modelBasePath: ${JSON.stringify(`file://${MODELS_DIR}/`)}, debug: false, cacheSensitivity: 0,
        face: { enabled: true, iris: { enabled: false }, description: { enabled: false }, antispoof: { enabled: true }, liveness: { enabled: true } },
        body: { enabled: true }, hand: { enabled: true }, object: { enabled: false }, gesture: { enabled: false }, segmentation: { enabled: false },
      });
      await human.load();
      const start = tf.memory().numTensors;
      const d = tt.node.decodeJpeg(fs.readFileSync(${JSON.stringify(path.join(ASSETS, 'screenshot-facedetect.jpg'))}), 3);
      const img = tf.tensor(Int32Array.from(d.dataSync()), d.shape, 'int32');
      d.dispose();
      const r = await human.detect(img);
      img.dispose();
      const result = {
        face: r.face.map((f) => ({ score: f.score, box: f.box, mesh: f.mesh.length, some: f.mesh.filter((_, i) => i % 40 === 0),
          emotion: f.emotion, real: f.real, live: f.live })),
        body: r.body.map((b) => ({ score: b.score, box: b.box, keypoints: b.keypoints.map((k) => [k.part, k.score, ...k.position]) })),
        hand: r.hand.map((h) => ({ score: h.score, label: h.label, box: h.box, keypoints: h.keypoints })),
        error: r.error, leaked: tf.memory().numTensors - start,
      };
      console.log('RESULT ' + JSON.stringify(result));
    })().catch((e) => {
      console.error(e.stack);
      process.exit(1);
    });`;
  const run = (onTidytensor) => {
    const r = spawnSync(process.execPath, ['-e', script(onTidytensor)], { cwd: ROOT, encoding: 'utf8', env: process.env });
    assert.equal(r.status, 0, r.stderr);
    const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    assert.ok(line, `no result: ${r.stdout}\n${r.stderr}`);
    return JSON.parse(line.slice(7));
  };
  // Strings and counts exactly; numbers to one step of Human's rounding (it rounds scores to
  // 0.01 and positions to whole pixels, from values that agree to 1e-4 but may sit on a step).
  const sameResult = (got, want, what) => {
    if (typeof want === 'number') {
      const tol = Math.abs(want) <= 1 ? 0.0101 : 1.01 + 1e-3 * Math.abs(want);
      assert.ok(Math.abs(got - want) <= tol, `${what}: got ${got}, expected ${want}`);
    } else if (Array.isArray(want)) {
      assert.ok(Array.isArray(got) && got.length === want.length, `${what}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
      want.forEach((w, i) => sameResult(got[i], w, `${what}[${i}]`));
    } else if (want != null && typeof want === 'object') {
      assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${what}: keys`);
      for (const k of Object.keys(want)) sameResult(got[k], want[k], `${what}.${k}`);
    } else {
      assert.deepEqual(got, want, what);
    }
  };

  // Human's whole pipeline, unchanged: without model.executor (see above) it would skip every
  // model but blazeface and emotion (a face with blazeface's 6 landmarks instead of the
  // 468-point mesh, no antispoof/liveness scores, no body and no hands).
  it('Human.detect() finds the same faces, bodies and hands as on tfjs, leaking nothing', () => {
    const want = run(false);
    const got = run(true);
    assert.equal(want.error, null);
    assert.ok(want.face.length > 0 && want.body.length > 0 && want.hand.length > 0, 'tfjs finds a face, a body and a hand');
    sameResult(got, want, 'human');
    assert.equal(got.leaked, 0, 'tensors left by detect()');
  });

  // human.ts reads tf.engine().state.numTensors and numBytes (analyze(), and the first load
  // with debug: true, which would throw without it).
  it('tf.engine().state has numTensors and numBytes, as Human reads them', () => {
    const x = tt.ones([2, 3]);
    try {
      const { state } = tt.engine();
      assert.ok(state, 'engine().state');
      assert.equal(state.numTensors, tt.memory().numTensors);
      assert.equal(state.numBytes, tt.memory().numBytes);
    } finally {
      x.dispose();
    }
  });
});
