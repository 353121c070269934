'use strict';
// Differential tests of the layer kinds added after the first set (layers.test.js): the
// channels-first data format of the convolution, pooling, padding and upsampling layers; the
// 3-D convolutions and poolings; and the small layers (thresholdedReLU, prelu, cropping2D, the
// noise layers, spatialDropout1d, dot, masking and the preprocessing layers). Each layer is
// built with the same config on tidytensor and on @tensorflow/tfjs 4.22, tfjs's weights (set to
// deterministic random values) are copied into ours, and both are applied to the same input:
// outputs (1e-4), output shapes, weights, getConfig and memory must agree. Models holding the
// layers go through toJSON and back, both ways between the libraries.
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');

// ---- deterministic data ------------------------------------------------------------------

const size = (shape) => shape.reduce((a, b) => a * b, 1);

// n values uniform in [lo, hi) from a small LCG, the same on every run.
function data(n, seed, lo = -2, hi = 2) {
  let s = (seed * 1103515245 + 12345) >>> 0;
  const v = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    v[i] = lo + (hi - lo) * (s / 4294967296);
  }
  return v;
}

// ---- comparison --------------------------------------------------------------------------

const TOL = 1e-4;

function closeTo(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: value count`);
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i]));
    if (!(d <= tol) && !(Number.isNaN(got[i]) && Number.isNaN(want[i]))) {
      assert.fail(`${what}: [${i}] got ${got[i]}, expected ${want[i]} (tolerance ${tol})`);
    }
  }
}

function compareTensors(got, want, tol, what) {
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  assert.equal(got.dtype, want.dtype, `${what}: dtype`);
  closeTo(got.dataSync(), want.dataSync(), tol, what);
}

const list = (x) => (Array.isArray(x) ? x : [x]);
const stripUid = (name) => name.slice(name.indexOf('/') + 1).replace(/_\d+$/, '');

function randomizeWeights(layer, seed) {
  const values = layer.weights.map((w, i) => tfo.tensor(data(size(w.shape), seed + i, -0.8, 0.8), w.shape, w.dtype));
  if (values.length > 0) layer.setWeights(values);
  tfo.dispose(values);
}

function copyWeights(ours, theirs) {
  const temps = theirs.getWeights().map((w) => tt.tensor(w.dataSync(), w.shape, w.dtype));
  ours.setWeights(temps);
  tt.dispose(temps);
}

// Config values compared with null and undefined alike (tfjs writes `seed: undefined` ...).
const norm = (v) => JSON.parse(JSON.stringify(v, (k, x) => (x == null ? undefined : x)) || 'null');

// Builds `make(tf)` on both libraries for inputs of `shapes`, copies tfjs's (randomized)
// weights into ours, applies both and compares everything observable.
//   reference(theirs, xs, kwargs): the expected outputs where tfjs's layer computes wrongly.
//   outputShape: what ours must report where tfjs's (symbolic) shape is wrong.
//   values(i, shape): the input values (default: uniform in [-2, 2)).
//   dtype: the inputs' dtype.
//   config: false to skip the getConfig comparison (the keys that differ are listed instead).
function checkLayer(make, shapes, {
  tol = TOL, kwargs = {}, reference, outputShape, values: valuesOf, dtype = 'float32', configSkip = [],
} = {}) {
  const multi = Array.isArray(shapes[0]);
  const inShapes = multi ? shapes : [shapes];
  const values = inShapes.map((s, i) => (valuesOf ? valuesOf(i, s) : data(size(s), i + 1)));
  const before = tt.memory().numTensors;

  const ours = make(tt);
  const theirs = make(tfo);
  assert.equal(ours.getClassName(), theirs.getClassName(), 'getClassName()');

  const symbolic = inShapes.map((s) => tfo.input({ shape: s.slice(1), dtype }));
  const symbolicShapes = list(theirs.apply(multi ? symbolic : symbolic[0])).map((t) => t.shape);
  randomizeWeights(theirs, 101);

  // The configs agree (the base keys and the layer's own).
  const a = ours.getConfig();
  const b = theirs.getConfig();
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key === 'name' || configSkip.includes(key)) continue;
    assert.deepEqual(norm(a[key]), norm(b[key]), `getConfig().${key}`);
  }

  const onSymbolic = make(tt);
  const ins = inShapes.map((s) => tt.input({ shape: s.slice(1), dtype }));
  const outs = list(onSymbolic.apply(multi ? ins : ins[0]));
  assert.deepEqual(outs.map((t) => t.shape), outputShape ? [outputShape] : symbolicShapes, 'symbolic output shapes');
  assert.equal(onSymbolic.countParams(), theirs.countParams(), 'countParams() after a symbolic call');
  onSymbolic.dispose();
  assert.equal(tt.memory().numTensors, before, 'tensors left behind by the symbolic call');

  const xsOurs = inShapes.map((s, i) => tt.tensor(values[i], s, dtype));
  const xsTheirs = inShapes.map((s, i) => tfo.tensor(values[i], s, dtype));
  const argOurs = multi ? xsOurs : xsOurs[0];
  const argTheirs = multi ? xsTheirs : xsTheirs[0];
  try {
    tt.dispose(ours.apply(argOurs));
    const nullBatch = inShapes.map((s) => [null, ...s.slice(1)]);
    assert.deepEqual(ours.computeOutputShape(multi ? nullBatch : nullBatch[0]),
      outputShape || theirs.computeOutputShape(multi ? nullBatch : nullBatch[0]), 'computeOutputShape');
    assert.deepEqual(ours.weights.map((w) => stripUid(w.name)), theirs.weights.map((w) => stripUid(w.name)),
      'weight names');
    assert.deepEqual(ours.weights.map((w) => w.shape), theirs.weights.map((w) => w.shape), 'weight shapes');
    copyWeights(ours, theirs);
    const got = list(ours.apply(argOurs, kwargs));
    const want = list(reference ? reference(theirs, xsTheirs, kwargs) : theirs.apply(argTheirs, kwargs));
    try {
      assert.equal(got.length, want.length, 'number of outputs');
      want.forEach((w, i) => compareTensors(got[i], w, tol, `output ${i}`));
    } finally {
      tt.dispose(got);
      tfo.dispose(want);
    }
  } finally {
    tt.dispose(xsOurs);
    tfo.dispose(xsTheirs);
  }
  const n = ours.weights.length;
  assert.deepEqual(ours.dispose(), { refCountAfterDispose: 0, numDisposedVariables: n }, 'dispose()');
  theirs.dispose();
  assert.equal(tt.memory().numTensors, before, 'tensors left behind');
}

function cases(rows) {
  for (const [title, make, shapes, opts = {}] of rows) {
    it(title, () => checkLayer(make, shapes, opts));
  }
}

// The expected output of a channels-first layer computed by tfjs's channels-last layer of the
// same config and weights, between transposes (where tfjs's own channels-first call is wrong).
function viaChannelsLast(factory, config) {
  return (theirs, xs) => {
    const last = tfo.layers[factory]({ ...config, dataFormat: undefined });
    const rank = xs[0].rank;
    const toLast = [0, ...Array.from({ length: rank - 2 }, (_, i) => i + 2), 1];
    const toFirst = [0, rank - 1, ...Array.from({ length: rank - 2 }, (_, i) => i + 1)];
    const y = tfo.tidy(() => {
      const x = xs[0].transpose(toLast);
      tfo.dispose(last.apply(x));
      last.setWeights(theirs.getWeights());
      return last.apply(x).transpose(toFirst);
    });
    last.dispose();
    return y;
  };
}

// Throws on both libraries, with tfjs's text.
function sameError(make) {
  let want;
  try {
    make(tfo);
  } catch (e) {
    want = e.message;
  }
  assert.ok(want, 'tfjs throws');
  const before = tt.memory().numTensors;
  assert.throws(() => make(tt), (e) => {
    assert.equal(e.message, want);
    return true;
  });
  assert.equal(tt.memory().numTensors, before, 'tensors left behind by the failure');
}

// ---- channelsFirst -----------------------------------------------------------------------

describe('channelsFirst', () => {
  const cf = { dataFormat: 'channelsFirst' };
  cases([
    ['conv2d valid', (tf) => tf.layers.conv2d({ filters: 3, kernelSize: 3, ...cf }), [2, 2, 6, 5]],
    ['conv2d same, strides 2, relu', (tf) => tf.layers.conv2d({ filters: 4, kernelSize: [2, 3], strides: 2, padding: 'same',
      activation: 'relu', ...cf }), [2, 3, 7, 6]],
    ['conv2d dilation 2, no bias', (tf) => tf.layers.conv2d({ filters: 2, kernelSize: 2, dilationRate: 2, useBias: false,
      ...cf }), [1, 2, 6, 6]],
    ['conv2dTranspose valid, strides 2', (tf) => tf.layers.conv2dTranspose({ filters: 3, kernelSize: 3, strides: 2, ...cf }),
      [2, 2, 4, 5]],
    ['conv2dTranspose same', (tf) => tf.layers.conv2dTranspose({ filters: 2, kernelSize: 2, padding: 'same', strides: 2,
      ...cf }), [1, 3, 3, 4]],
    ['depthwiseConv2d depthMultiplier 2', (tf) => tf.layers.depthwiseConv2d({ kernelSize: 2, depthMultiplier: 2, ...cf }),
      [2, 3, 5, 5]],
    ['depthwiseConv2d same, strides 2', (tf) => tf.layers.depthwiseConv2d({ kernelSize: 3, padding: 'same', strides: 2,
      ...cf }), [1, 2, 6, 5]],
    // tfjs adds the bias of a channels-first separableConv2d along the wrong axis (its output is
    // still NHWC then): the reference is its channels-last layer between transposes.
    // (tfjs leaves depthMultiplier out of its config: ours writes it when it is not 1.)
    ['separableConv2d', (tf) => tf.layers.separableConv2d({ filters: 3, kernelSize: 2, depthMultiplier: 2, ...cf }),
      [2, 2, 5, 6], { reference: viaChannelsLast('separableConv2d', { filters: 3, kernelSize: 2, depthMultiplier: 2 }),
        configSkip: ['depthMultiplier'] }],
    // tfjs's conv1d moves channels-first inputs to channels-last and leaves its output so
    // (its symbolic shape says channels-first): ours gives the channels-first output.
    ['conv1d', (tf) => tf.layers.conv1d({ filters: 3, kernelSize: 2, ...cf }), [2, 4, 7],
      { reference: viaChannelsLast('conv1d', { filters: 3, kernelSize: 2 }), configSkip: ['dataFormat'] }],
    ['maxPooling2d', (tf) => tf.layers.maxPooling2d({ poolSize: 2, ...cf }), [2, 3, 6, 5]],
    ['maxPooling2d same, strides 1', (tf) => tf.layers.maxPooling2d({ poolSize: [2, 3], strides: 1, padding: 'same', ...cf }),
      [1, 2, 4, 5]],
    ['averagePooling2d', (tf) => tf.layers.averagePooling2d({ poolSize: 2, strides: 1, ...cf }), [2, 3, 4, 5]],
    ['globalAveragePooling2d', (tf) => tf.layers.globalAveragePooling2d(cf), [2, 3, 4, 5]],
    ['globalMaxPooling2d', (tf) => tf.layers.globalMaxPooling2d(cf), [2, 3, 4, 5]],
    ['upSampling2d nearest', (tf) => tf.layers.upSampling2d({ size: [2, 3], ...cf }), [2, 3, 2, 4]],
    ['upSampling2d bilinear', (tf) => tf.layers.upSampling2d({ size: [2, 2], interpolation: 'bilinear', ...cf }), [1, 2, 3, 3]],
    ['zeroPadding2d', (tf) => tf.layers.zeroPadding2d({ padding: [[1, 2], [0, 3]], ...cf }), [2, 3, 2, 4]],
    ['cropping2D', (tf) => tf.layers.cropping2D({ cropping: [[1, 0], [2, 1]], ...cf }), [2, 3, 5, 6]],
    // 1-D pooling layers take no dataFormat in tfjs: ignored.
    ['maxPooling1d ignores it', (tf) => tf.layers.maxPooling1d({ poolSize: 2, ...cf }), [2, 6, 3]],
    ['globalAveragePooling1d ignores it', (tf) => tf.layers.globalAveragePooling1d(cf), [2, 6, 3]],
  ]);

  it('a channels-first layer checks the channels axis', () => {
    const layer = tt.layers.conv2d({ filters: 2, kernelSize: 2, dataFormat: 'channelsFirst' });
    const x = tt.ones([1, 3, 4, 4]);
    tt.dispose(layer.apply(x));
    const y = tt.ones([1, 4, 4, 3]);
    assert.throws(() => layer.apply(y), /expected axis 1 of input shape to have value 3/);
    tt.dispose([x, y]);
    layer.dispose();
  });

  it('a bad dataFormat gets tfjs\'s text', () => {
    sameError((tf) => tf.layers.conv2d({ filters: 2, kernelSize: 2, dataFormat: 'nchw' }));
    sameError((tf) => tf.layers.maxPooling2d({ dataFormat: 'channels' }));
  });
});

// ---- 3-D convolutions and pooling --------------------------------------------------------

describe('3-D layers', () => {
  cases([
    ['conv3d valid', (tf) => tf.layers.conv3d({ filters: 3, kernelSize: 2 }), [2, 4, 5, 3, 2]],
    ['conv3d same, strides [1, 2, 2], relu', (tf) => tf.layers.conv3d({ filters: 2, kernelSize: [2, 3, 2], strides: [1, 2, 2],
      padding: 'same', activation: 'relu' }), [1, 4, 5, 6, 3]],
    ['conv3d channelsFirst', (tf) => tf.layers.conv3d({ filters: 2, kernelSize: 2, dataFormat: 'channelsFirst' }),
      [2, 3, 4, 3, 5]],
    ['conv3d no bias', (tf) => tf.layers.conv3d({ filters: 2, kernelSize: 3, useBias: false }), [1, 3, 4, 5, 1]],
    ['conv3dTranspose valid, strides 2', (tf) => tf.layers.conv3dTranspose({ filters: 2, kernelSize: 2, strides: 2 }),
      [2, 2, 3, 2, 3]],
    ['conv3dTranspose same, kernel 3', (tf) => tf.layers.conv3dTranspose({ filters: 3, kernelSize: 3, padding: 'same' }),
      [1, 3, 2, 3, 2]],
    ['conv3dTranspose channelsFirst', (tf) => tf.layers.conv3dTranspose({ filters: 2, kernelSize: 2, strides: [1, 2, 1],
      dataFormat: 'channelsFirst' }), [1, 3, 2, 3, 2]],
    ['maxPooling3d', (tf) => tf.layers.maxPooling3d({ poolSize: 2 }), [2, 4, 4, 5, 3]],
    ['maxPooling3d same, strides 1', (tf) => tf.layers.maxPooling3d({ poolSize: [2, 3, 2], strides: 1, padding: 'same' }),
      [1, 3, 4, 3, 2]],
    ['averagePooling3d', (tf) => tf.layers.averagePooling3d({ poolSize: [2, 2, 1] }), [2, 4, 4, 3, 2]],
    ['averagePooling3d channelsFirst', (tf) => tf.layers.averagePooling3d({ poolSize: 2, strides: 1,
      dataFormat: 'channelsFirst' }), [1, 2, 3, 4, 5]],
    ['maxPooling3d channelsFirst, same', (tf) => tf.layers.maxPooling3d({ poolSize: 2, padding: 'same',
      dataFormat: 'channelsFirst' }), [1, 2, 3, 5, 4]],
  ]);

  it('the aliases are tfjs\'s', () => {
    for (const name of ['conv3d', 'conv3dTranspose', 'maxPooling3d', 'averagePooling3d', 'avgPool3d', 'avgPooling3d',
      'cropping2D']) {
      assert.equal(typeof tt.layers[name], 'function', name);
      assert.equal(typeof tfo.layers[name], 'function', name);
    }
    const l = tt.layers.avgPool3d({});
    assert.equal(l.getClassName(), 'AveragePooling3D');
    l.dispose();
  });

  it('bad configs get tfjs\'s texts', () => {
    sameError((tf) => tf.layers.conv3d({ kernelSize: 2 }));
    sameError((tf) => tf.layers.conv3d({ filters: 2.5, kernelSize: 2 }));
    sameError((tf) => tf.layers.conv3d({ filters: 2 }));
    sameError((tf) => tf.layers.conv3d({ filters: 2, kernelSize: [1, 2, 3, 4] }));
    sameError((tf) => tf.layers.conv3d({ filters: 2, kernelSize: [1, 2] }));
    sameError((tf) => tf.layers.maxPooling3d({ poolSize: 2.5 }));
    sameError((tf) => tf.layers.maxPooling3d({ strides: [1, 2] }));
    sameError((tf) => tf.layers.averagePooling3d({ poolSize: [2, 2, 0] }));
  });
});

// ---- serialization -----------------------------------------------------------------------

// A sequential model of `layers(tf)` (the first with its inputShape) on both libraries, with the
// same weights: each one's toJSON loads into the other (and ours into ours) and predicts what
// the original predicts; a save through tf.io.withSaveHandler loads back with its weights.
async function roundTrip(layers, inputShape) {
  const before = tt.memory().numTensors;
  const ours = tt.sequential({ layers: layers(tt) });
  const theirs = tfo.sequential({ layers: layers(tfo) });
  randomizeWeights(theirs, 7);
  const temps = theirs.getWeights().map((w) => tt.tensor(w.dataSync(), w.shape, w.dtype));
  ours.setWeights(temps);
  tt.dispose(temps);
  const values = data(size(inputShape), 3);
  const xo = tt.tensor(values, inputShape);
  const xt = tfo.tensor(values, inputShape);
  const want = theirs.predict(xt);
  const check = (model, what) => {
    const y = model.predict(xo);
    compareTensors(y, want, TOL, what);
    y.dispose();
  };
  check(ours, 'the original');

  const fromOurs = await tfo.models.modelFromJSON(ours.toJSON(null, false));
  fromOurs.setWeights(theirs.getWeights());
  const y1 = fromOurs.predict(xt);
  closeTo(y1.dataSync(), want.dataSync(), TOL, 'ours loaded by tfjs');
  tfo.dispose([y1]);
  fromOurs.dispose();

  for (const [json, what] of [[theirs.toJSON(null, false), 'tfjs\'s loaded by ours'],
    [ours.toJSON(null, false), 'ours loaded by ours']]) {
    const loaded = await tt.models.modelFromJSON(json);
    loaded.setWeights(ours.getWeights());
    assert.deepEqual(loaded.layers.map((l) => l.getClassName()), ours.layers.map((l) => l.getClassName()), what);
    check(loaded, what);
    loaded.dispose();
  }

  let artifacts;
  await ours.save(tt.io.withSaveHandler(async (a) => {
    artifacts = a;
    return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
  }));
  const saved = await tt.loadLayersModel(tt.io.fromMemory(artifacts));
  check(saved, 'saved and loaded');
  saved.dispose();

  tt.dispose(xo);
  tfo.dispose([xt, want]);
  ours.dispose();
  theirs.dispose();
  assert.equal(tt.memory().numTensors, before, 'tensors left behind');
}

describe('models holding the layers round-trip', () => {
  const cf = { dataFormat: 'channelsFirst' };
  it('channels-first convolutions, poolings, padding and upsampling', () => roundTrip((tf) => [
    tf.layers.zeroPadding2d({ padding: 1, inputShape: [2, 5, 6], ...cf }),
    tf.layers.conv2d({ filters: 3, kernelSize: 2, activation: 'relu', ...cf }),
    tf.layers.depthwiseConv2d({ kernelSize: 2, ...cf }),
    tf.layers.maxPooling2d({ poolSize: 2, ...cf }),
    tf.layers.upSampling2d({ size: [2, 1], ...cf }),
    tf.layers.conv2dTranspose({ filters: 2, kernelSize: 2, ...cf }),
    tf.layers.cropping2D({ cropping: [[1, 0], [0, 1]], ...cf }),
    tf.layers.averagePooling2d({ poolSize: 1, ...cf }),
    tf.layers.globalAveragePooling2d(cf),
  ], [2, 2, 5, 6]));

  it('3-D convolutions and poolings', () => roundTrip((tf) => [
    tf.layers.conv3d({ filters: 2, kernelSize: 2, inputShape: [4, 5, 4, 2] }),
    tf.layers.maxPooling3d({ poolSize: [1, 2, 1] }),
    tf.layers.conv3dTranspose({ filters: 2, kernelSize: 2, strides: 2 }),
    tf.layers.averagePooling3d({ poolSize: 2, ...cf }),
    tf.layers.conv3d({ filters: 1, kernelSize: 1, ...cf }),
  ], [2, 4, 5, 4, 2]));
});
