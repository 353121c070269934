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
const {
  size, list, data, closeTo, compareTensors, randomizeWeights, copyWeights,
} = require('./helpers/layers');

// ---- deterministic data ------------------------------------------------------------------

// ---- comparison --------------------------------------------------------------------------

const TOL = 1e-4;

const stripUid = (name) => name.slice(name.indexOf('/') + 1).replace(/_\d+$/, '');

// Config values compared with null and undefined alike (tfjs writes `seed: undefined` ...).
const norm = (v) => JSON.parse(JSON.stringify(v, (k, x) => (x == null ? undefined : x)) || 'null');

// Builds `make(tf)` on both libraries for inputs of `shapes`, copies tfjs's (randomized)
// weights into ours, applies both and compares everything observable.
//   reference(theirs, xs, kwargs): the expected outputs where tfjs's layer computes wrongly.
//   outputShape: what ours must report where tfjs's (symbolic) shape is wrong.
//   values(i, shape): the input values (default: uniform in [-2, 2)).
//   dtype: the inputs' dtype.
//   configSkip: getConfig keys not compared (each caller says why).
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

// ---- the small layers --------------------------------------------------------------------

// n integers in [0, max), as float values.
const ints = (max) => (i, s) => Float32Array.from(data(size(s), i + 5, 0, max), (x) => Math.min(max - 1, Math.floor(x)));

describe('activation layers', () => {
  cases([
    ['thresholdedReLU default theta', (tf) => tf.layers.thresholdedReLU(), [2, 3, 4]],
    ['thresholdedReLU theta 0.5', (tf) => tf.layers.thresholdedReLU({ theta: 0.5 }), [3, 5]],
    ['prelu', (tf) => tf.layers.prelu(), [2, 3, 4]],
    ['prelu sharedAxes [1, 2]', (tf) => tf.layers.prelu({ sharedAxes: [1, 2] }), [2, 3, 4, 5]],
    ['prelu sharedAxes 1, ones', (tf) => tf.layers.prelu({ sharedAxes: 1, alphaInitializer: 'ones' }), [2, 3, 4]],
    ['prelu on rank 2', (tf) => tf.layers.prelu({ alphaInitializer: 'glorotUniform' }), [4, 6]],
  ]);

  it('prelu\'s weight is alpha, shaped by sharedAxes', () => {
    const layer = tt.layers.prelu({ sharedAxes: [2] });
    layer.build([null, 3, 4, 5]);
    assert.deepEqual(layer.weights.map((w) => [stripUid(w.name), w.shape]), [['alpha', [3, 1, 5]]]);
    layer.dispose();
    sameError((tf) => tf.layers.prelu({ sharedAxes: 'x' }));
  });
});

describe('cropping2D', () => {
  cases([
    ['one number', (tf) => tf.layers.cropping2D({ cropping: 1 }), [2, 5, 6, 3]],
    ['[height, width]', (tf) => tf.layers.cropping2D({ cropping: [1, 2] }), [2, 5, 6, 3]],
    ['[[top, bottom], [left, right]]', (tf) => tf.layers.cropping2D({ cropping: [[0, 2], [3, 1]] }), [1, 6, 7, 2]],
  ]);
});

describe('noise and dropout layers', () => {
  // Not training: the identity, as tfjs's.
  cases([
    ['gaussianNoise', (tf) => tf.layers.gaussianNoise({ stddev: 0.5 }), [2, 3, 4]],
    ['gaussianDropout', (tf) => tf.layers.gaussianDropout({ rate: 0.3 }), [2, 3, 4]],
    ['alphaDropout', (tf) => tf.layers.alphaDropout({ rate: 0.3 }), [2, 3, 4]],
    ['spatialDropout1d', (tf) => tf.layers.spatialDropout1d({ rate: 0.3, seed: 2 }), [2, 3, 4]],
    ['training with rate 0 (the identity)', (tf) => tf.layers.gaussianDropout({ rate: 0 }), [2, 3],
      { kwargs: { training: true } }],
  ]);

  // The training draws are random: their statistics, on a large input.
  function trained(layer, shape, values) {
    const before = tt.memory().numTensors;
    const x = tt.tensor(values, shape);
    const y = layer.apply(x, { training: true });
    const out = y.dataSync().slice();
    tt.dispose([x, y]);
    layer.dispose();
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
    return out;
  }
  const stats = (v) => {
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
    return { mean, sd };
  };
  const N = 20000;

  it('gaussianNoise adds N(0, stddev) while training', () => {
    const x = data(N, 4);
    const y = trained(tt.layers.gaussianNoise({ stddev: 0.5 }), [N], x);
    const { mean, sd } = stats(y.map((v, i) => v - x[i]));
    assert.ok(Math.abs(mean) < 0.02, `mean ${mean}`);
    assert.ok(Math.abs(sd - 0.5) < 0.02, `sd ${sd}`);
  });

  it('gaussianDropout multiplies by N(1, sqrt(rate / (1 - rate))) while training', () => {
    const x = data(N, 5, 1, 2);
    const y = trained(tt.layers.gaussianDropout({ rate: 0.2 }), [N], x);
    const { mean, sd } = stats(y.map((v, i) => v / x[i]));
    assert.ok(Math.abs(mean - 1) < 0.02, `mean ${mean}`);
    assert.ok(Math.abs(sd - 0.5) < 0.02, `sd ${sd}`);
  });

  // tfjs's alphaDropout sets dropped values to -alphaP (Keras: alphaP), then the affine map of
  // Keras's: kept values x * a + b, dropped ones -alphaP * a + b. Ours is tfjs's.
  it('alphaDropout keeps or drops each value as tfjs\'s formula says while training', () => {
    const x = data(N, 6, -Math.sqrt(3), Math.sqrt(3));
    const rate = 0.2;
    const y = trained(tt.layers.alphaDropout({ rate }), [N], x);
    const alphaP = -1.6732632423543772 * 1.0507009873554805;
    const a = ((1 - rate) * (1 + rate * alphaP ** 2)) ** -0.5;
    const b = -a * alphaP * rate;
    let nDropped = 0;
    y.forEach((v, i) => {
      const kept = x[i] * a + b;
      const dropped = -alphaP * a + b;
      if (Math.abs(v - dropped) < 1e-5 && Math.abs(v - kept) > 1e-5) nDropped++;
      else assert.ok(Math.abs(v - kept) < 1e-5, `[${i}]: ${v} is neither ${kept} nor ${dropped}`);
    });
    assert.ok(Math.abs(nDropped / N - rate) < 0.02, `dropped fraction ${nDropped / N}`);
  });

  it('spatialDropout1d drops whole channels (every step) while training', () => {
    const [b, steps, c] = [50, 6, 40];
    const x = data(b * steps * c, 7, 1, 2);
    const rate = 0.25;
    const y = trained(tt.layers.spatialDropout1d({ rate }), [b, steps, c], x);
    let droppedChannels = 0;
    for (let i = 0; i < b; i++) {
      for (let k = 0; k < c; k++) {
        const at = (s) => (i * steps + s) * c + k;
        const zero = y[at(0)] === 0;
        if (zero) droppedChannels++;
        for (let s = 0; s < steps; s++) {
          const want = zero ? 0 : x[at(s)] / (1 - rate);
          assert.ok(Math.abs(y[at(s)] - want) < 1e-5, `[${i}, ${s}, ${k}]: ${y[at(s)]} vs ${want}`);
        }
      }
    }
    assert.ok(Math.abs(droppedChannels / (b * c) - rate) < 0.05, `dropped fraction ${droppedChannels / (b * c)}`);
  });

  it('spatialDropout1d takes rank-3 inputs only', () => {
    const layer = tt.layers.spatialDropout1d({ rate: 0.5 });
    const x = tt.ones([2, 3]);
    assert.throws(() => layer.apply(x), /expected ndim=3, found ndim=2/);
    x.dispose();
    layer.dispose();
  });
});

describe('dot', () => {
  cases([
    ['axes 1 on 2-D', (tf) => tf.layers.dot({ axes: 1 }), [[3, 4], [3, 4]]],
    ['axes -1 on 3-D', (tf) => tf.layers.dot({ axes: -1 }), [[2, 3, 4], [2, 5, 4]]],
    ['axes [1, 2] on 3-D', (tf) => tf.layers.dot({ axes: [1, 2] }), [[2, 3, 4], [2, 5, 3]]],
    ['axes [2, 1] on 3-D', (tf) => tf.layers.dot({ axes: [2, 1] }), [[2, 3, 4], [2, 4, 5]]],
    ['2-D with 3-D', (tf) => tf.layers.dot({ axes: [1, 1] }), [[2, 3], [2, 3, 4]]],
    ['3-D with 2-D', (tf) => tf.layers.dot({ axes: [2, 1] }), [[2, 3, 4], [2, 4]]],
    ['normalize', (tf) => tf.layers.dot({ axes: 1, normalize: true }), [[3, 4], [3, 4]]],
    ['normalize on 3-D', (tf) => tf.layers.dot({ axes: [2, 2], normalize: true }), [[2, 3, 4], [2, 5, 4]]],
  ]);

  it('incompatible sizes and ranks get tfjs\'s texts', () => {
    for (const [a, b] of [[[3], [4]], [[2, 3, 4], [2, 2, 3, 4]]]) {
      let want;
      const theirs = tfo.layers.dot({ axes: -1 });
      try {
        theirs.apply([tfo.input({ shape: a }), tfo.input({ shape: b })]);
      } catch (e) {
        want = e.message;
      }
      assert.ok(want);
      const ours = tt.layers.dot({ axes: -1 });
      assert.throws(() => ours.apply([tt.input({ shape: a }), tt.input({ shape: b })]), (e) => e.message === want);
      ours.dispose();
    }
  });
});

describe('masking', () => {
  cases([
    ['default maskValue', (tf) => tf.layers.masking(), [2, 4, 3], {
      values: (i, s) => Float32Array.from(data(size(s), 3), (v, k) => (Math.floor(k / 3) % 3 === 1 ? 0 : v)) }],
    ['maskValue -1, partly masked positions kept', (tf) => tf.layers.masking({ maskValue: -1 }), [2, 3, 2], {
      values: () => Float32Array.from([-1, -1, -1, 2, 3, 4, 5, -1, -1, -1, -1, -1]) }],
    ['int32 input keeps its dtype', (tf) => tf.layers.masking({ maskValue: 1 }), [2, 3, 2], {
      dtype: 'int32', values: ints(3) }],
  ]);
});

describe('preprocessing layers', () => {
  cases([
    ['rescaling', (tf) => tf.layers.rescaling({ scale: 1 / 255, offset: -0.5 }), [2, 3, 4]],
    ['rescaling without offset', (tf) => tf.layers.rescaling({ scale: 2 }), [2, 5]],
    ['rescaling of int32 gives float32', (tf) => tf.layers.rescaling({ scale: 0.5 }), [2, 3], { dtype: 'int32', values: ints(9) }],
    ['centerCrop batch, even sizes', (tf) => tf.layers.centerCrop({ height: 2, width: 4 }), [2, 6, 8, 3]],
    ['centerCrop odd sizes', (tf) => tf.layers.centerCrop({ height: 3, width: 3 }), [2, 7, 6, 2]],
    ['centerCrop width one less', (tf) => tf.layers.centerCrop({ height: 5, width: 5 }), [1, 5, 6, 1]],
    ['centerCrop of 1x1', (tf) => tf.layers.centerCrop({ height: 1, width: 1 }), [2, 4, 5, 2]],
    ['centerCrop larger than the image resizes', (tf) => tf.layers.centerCrop({ height: 6, width: 5 }), [2, 3, 4, 2]],
    ['centerCrop unbatched', (tf) => tf.layers.centerCrop({ height: 3, width: 2 }), [6, 5, 2]],
    ['centerCrop of int32 keeps int32', (tf) => tf.layers.centerCrop({ height: 2, width: 2 }), [1, 4, 4, 1],
      { dtype: 'int32', values: ints(50) }],
    // tfjs's computeOutputShape is [height, width, inputShape[2]]; ours, its call's shape.
    ['resizing bilinear', (tf) => tf.layers.resizing({ height: 3, width: 5 }), [2, 4, 6, 3],
      { outputShape: [null, 3, 5, 3] }],
    ['resizing nearest, cropToAspectRatio', (tf) => tf.layers.resizing({ height: 5, width: 3, interpolation: 'nearest',
      cropToAspectRatio: true }), [2, 4, 6, 2], { outputShape: [null, 5, 3, 2] }],
    ['resizing up', (tf) => tf.layers.resizing({ height: 7, width: 9 }), [1, 3, 4, 2], { outputShape: [null, 7, 9, 2] }],
    ['categoryEncoding multiHot', (tf) => tf.layers.categoryEncoding({ numTokens: 6 }), [4, 3],
      { dtype: 'int32', values: ints(6) }],
    ['categoryEncoding count', (tf) => tf.layers.categoryEncoding({ numTokens: 5, outputMode: 'count' }), [3, 6],
      { dtype: 'int32', values: ints(5) }],
    ['categoryEncoding oneHot', (tf) => tf.layers.categoryEncoding({ numTokens: 4, outputMode: 'oneHot' }), [5, 1],
      { dtype: 'int32', values: ints(4) }],
    ['categoryEncoding int', (tf) => tf.layers.categoryEncoding({ numTokens: 4, outputMode: 'int' }), [5, 2],
      { dtype: 'int32', values: ints(4) }],
    ['categoryEncoding of float32 ids', (tf) => tf.layers.categoryEncoding({ numTokens: 7, outputMode: 'count' }), [2, 5],
      { values: ints(7) }],
  ]);

  it('categoryEncoding refuses ids out of range, as tfjs', () => {
    for (const ids of [[0, 4], [-1, 2]]) {
      let want;
      const theirs = tfo.layers.categoryEncoding({ numTokens: 4 });
      const xt = tfo.tensor([ids], null, 'int32');
      try {
        theirs.apply(xt);
      } catch (e) {
        want = e.message;
      }
      xt.dispose();
      assert.ok(want);
      const before = tt.memory().numTensors;
      const ours = tt.layers.categoryEncoding({ numTokens: 4 });
      const x = tt.tensor([ids], null, 'int32');
      assert.throws(() => ours.apply(x), (e) => e.message === want);
      x.dispose();
      ours.dispose();
      assert.equal(tt.memory().numTensors, before);
    }
  });

  it('bad configs get tfjs\'s texts', () => {
    sameError((tf) => tf.layers.resizing({ height: 2, width: 2, interpolation: 'bicubic' }));
    sameError((tf) => tf.layers.randomWidth({ factor: -0.5 }));
    sameError((tf) => tf.layers.randomWidth({ factor: [-5, 0.3] }));
    sameError((tf) => tf.layers.randomWidth({ factor: [-5, 0.3, 7] }));
    sameError((tf) => tf.layers.randomWidth({ factor: [0.5, 0.3] }));
    sameError((tf) => tf.layers.randomWidth({ factor: 0.5, interpolation: 'area' }));
  });

  it('randomWidth draws tfjs\'s widths from a seed, the seed moving on each call', () => {
    const before = tt.memory().numTensors;
    for (const config of [{ factor: 0.5, seed: 11 }, { factor: [-0.3, 0.8], seed: 3, interpolation: 'nearest' }]) {
      const ours = tt.layers.randomWidth(config);
      const theirs = tfo.layers.randomWidth(config);
      const values = data(2 * 4 * 10 * 3, 8);
      const x = tt.tensor(values, [2, 4, 10, 3]);
      const xt = tfo.tensor(values, [2, 4, 10, 3]);
      for (let call = 0; call < 3; call++) {
        const y = ours.apply(x);
        const w = theirs.apply(xt);
        compareTensors(y, w, TOL, `call ${call}`);
        assert.deepEqual(norm(ours.getConfig()), norm({ ...theirs.getConfig(), name: ours.name }), `config after call ${call}`);
        y.dispose();
        w.dispose();
      }
      const sym = ours.apply(tt.input({ shape: [4, 10, 3] }));
      assert.deepEqual(sym.shape, [null, 4, null, 3]);
      tt.dispose(x);
      xt.dispose();
      ours.dispose();
      theirs.dispose();
    }
    assert.equal(tt.memory().numTensors, before);
  });
});

describe('models holding the small layers round-trip', () => {
  it('activation, noise, masking, cropping and rescaling layers', () => roundTrip((tf) => [
    tf.layers.rescaling({ scale: 0.5, offset: 0.1, inputShape: [6, 5, 2] }),
    tf.layers.prelu({ sharedAxes: [1, 2], alphaInitializer: 'ones' }),
    tf.layers.thresholdedReLU({ theta: 0.1 }),
    tf.layers.cropping2D({ cropping: [[1, 0], [1, 1]] }),
    tf.layers.centerCrop({ height: 4, width: 2 }),
    tf.layers.gaussianNoise({ stddev: 0.3 }),
    tf.layers.gaussianDropout({ rate: 0.3 }),
    tf.layers.alphaDropout({ rate: 0.2 }),
    tf.layers.reshape({ targetShape: [8, 2] }),
    tf.layers.masking({ maskValue: 0.25 }),
    tf.layers.spatialDropout1d({ rate: 0.4 }),
    tf.layers.dense({ units: 3 }),
  ], [2, 6, 5, 2]));

  // tfjs's own models cannot hold a resizing layer (its computeOutputShape is not a batch's
  // shape): ours loads back into ours and predicts what tfjs's layer computes.
  it('resizing', async () => {
    const before = tt.memory().numTensors;
    const ours = tt.sequential({ layers: [tt.layers.resizing({ height: 3, width: 4, inputShape: [5, 6, 2] })] });
    const loaded = await tt.models.modelFromJSON(ours.toJSON(null, false));
    const values = data(2 * 5 * 6 * 2, 4);
    const x = tt.tensor(values, [2, 5, 6, 2]);
    const xt = tfo.tensor(values, [2, 5, 6, 2]);
    const want = tfo.layers.resizing({ height: 3, width: 4 }).apply(xt);
    const y = loaded.predict(x);
    compareTensors(y, want, TOL, 'loaded resizing model');
    tt.dispose([x, y]);
    tfo.dispose([xt, want]);
    loaded.dispose();
    ours.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('dot in a functional model', async () => {
    const before = tt.memory().numTensors;
    const make = (tf) => {
      const a = tf.input({ shape: [3, 4] });
      const b = tf.input({ shape: [5, 4] });
      const d = tf.layers.dot({ axes: -1, normalize: true }).apply([a, b]);
      return tf.model({ inputs: [a, b], outputs: d });
    };
    const ours = make(tt);
    const theirs = make(tfo);
    const va = data(2 * 3 * 4, 1);
    const vb = data(2 * 5 * 4, 2);
    const want = theirs.predict([tfo.tensor(va, [2, 3, 4]), tfo.tensor(vb, [2, 5, 4])]);
    for (const json of [ours.toJSON(null, false), theirs.toJSON(null, false)]) {
      const loaded = await tt.models.modelFromJSON(json);
      const [xa, xb] = [tt.tensor(va, [2, 3, 4]), tt.tensor(vb, [2, 5, 4])];
      const y = loaded.predict([xa, xb]);
      compareTensors(y, want, TOL, 'loaded dot model');
      tt.dispose([xa, xb, y]);
      loaded.dispose();
    }
    const fromOurs = await tfo.models.modelFromJSON(ours.toJSON(null, false));
    assert.deepEqual(fromOurs.layers.map((l) => l.getClassName()), ['InputLayer', 'InputLayer', 'Dot']);
    fromOurs.dispose();
    ours.dispose();
    theirs.dispose();
    want.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('categoryEncoding and randomWidth configs load back', async () => {
    for (const make of [(tf) => tf.layers.categoryEncoding({ numTokens: 5, outputMode: 'count', inputShape: [3] }),
      (tf) => tf.layers.randomWidth({ factor: [0.1, 0.4], seed: 5, inputShape: [4, 6, 1] })]) {
      const ours = tt.sequential({ layers: [make(tt)] });
      const loaded = await tt.models.modelFromJSON(ours.toJSON(null, false));
      assert.deepEqual(norm(loaded.layers[0].getConfig()), norm({ ...ours.layers[0].getConfig() }));
      if (ours.layers[0].getClassName() !== 'RandomWidth') {
        const theirs = await tfo.models.modelFromJSON(ours.toJSON(null, false));
        assert.equal(theirs.layers[0].getClassName(), ours.layers[0].getClassName());
        theirs.dispose();
      }
      loaded.dispose();
      ours.dispose();
    }
  });
});

describe('merge layers over inputs of different ranks', () => {
  it('add/multiply/maximum expand the lower-rank input at axis 1, as tfjs', () => {
    for (const f of ['add', 'multiply', 'maximum', 'average']) {
      const run = (tf) => tf.tidy(() => {
        const layer = tf.layers[f]({});
        const y = layer.apply([tf.tensor3d([10, 20, 30, 40, 50, 60, 70, 80], [2, 2, 2]), tf.tensor2d([-2, -4], [2, 1])]);
        const shape = tf.layers[f]({}).computeOutputShape([[null, 2, 2], [null, 1]]);
        return { values: Array.from(y.dataSync()), shape: y.shape, symbolic: shape };
      });
      const before = tt.memory().numTensors;
      assert.deepEqual(run(tt), run(tfo), f);
      assert.equal(tt.memory().numTensors, before);
    }
    for (const tf of [tt, tfo]) {
      assert.throws(() => tf.layers.add({}).apply([tf.input({ batchShape: [2, 3] }), tf.input({ batchShape: [4, 3] })]),
        /Can not merge tensors with different batch sizes/);
    }
  });
});
