'use strict';
// Differential tests of tf.layers: every layer kind is built with the same config on
// tidytensor and on @tensorflow/tfjs, the tfjs layer's weights (set to deterministic random
// values first, so that biases, moving statistics ... matter) are copied into ours, and both
// are applied to the same input: the outputs, output shapes, weight names / shapes / counts
// and class names must agree. Also: getConfig against tfjs's, the initializers' statistics
// and seeds, memory (every layer leaves nothing behind once disposed) and the errors of bad
// configs and inputs.
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');
const {
  size, list, data, closeTo, compareTensors, randomizeWeights, copyWeights,
} = require('./helpers/layers');

// ---- deterministic data ------------------------------------------------------------------

// n integers in [0, max).
function indices(n, seed, max) {
  return Int32Array.from(data(n, seed, 0, max), (x) => Math.min(max - 1, Math.floor(x)));
}

// ---- comparison --------------------------------------------------------------------------

// `dense_Dense12/kernel` as `kernel`: the weight's own name, after the layer's (whose uid
// differs between the libraries; the layer names are compared in 'default names').
const stripUid = (name) => name.slice(name.indexOf('/') + 1).replace(/_\d+$/, '');

// Builds `make(tf)` on both libraries for inputs of `shapes` (with the batch), copies tfjs's
// (randomized) weights into ours, applies both to the same input (with `kwargs`) and compares
// everything observable. Returns nothing; throws on the first difference. Our memory must be
// back where it was once the layer and the tensors are disposed.
//   shapes: one shape, or a list of shapes for merge layers.
//   tol: relative (to max(1, |expected|)). Every case here passes at 1e-6 on cpu and on wgpu
//     (software Vulkan); the default 1e-5 leaves room for another summation order on a real
//     GPU (several recurrent steps, transposed convolutions), not for a wrong formula.
//   dtype: of the inputs; with `maxIndex` the inputs are indices in [0, maxIndex).
//   outputShape: what ours must report where tfjs's differs (and is wrong); else tfjs's.
//   reference(theirs, xs, kwargs): the expected outputs (tfjs tensors) where the tfjs layer
//     computes them wrongly; it may update `theirs`'s weights as the call should.
//   again: another input shape (another batch size, sequence length ...) both are then
//     applied to as well.
function checkLayer(make, shapes, {
  tol = 1e-5, kwargs = {}, dtype = 'float32', maxIndex, outputShape, reference, again,
} = {}) {
  const multi = Array.isArray(shapes[0]);
  const inShapes = multi ? shapes : [shapes];
  const values = inShapes.map((s, i) => (maxIndex ? indices(size(s), i + 7, maxIndex) : data(size(s), i + 1)));
  const before = tt.memory().numTensors;

  const ours = make(tt);
  const theirs = make(tfo);
  assert.equal(ours.getClassName(), theirs.getClassName(), 'getClassName()');

  // tfjs records output shapes only when called on symbolic tensors: built that way.
  const symbolic = inShapes.map((s) => tfo.input({ shape: s.slice(1), dtype }));
  const symbolicShapes = list(theirs.apply(multi ? symbolic : symbolic[0])).map((t) => t.shape);
  randomizeWeights(theirs, 101);

  // Ours on symbolic inputs (tf.input) too: the same output shapes, weights made at once.
  const onSymbolic = make(tt);
  const ins = inShapes.map((s) => tt.input({ shape: s.slice(1), dtype }));
  const outs = list(onSymbolic.apply(multi ? ins : ins[0]));
  assert.deepEqual(outs.map((t) => t.shape), outputShape ? [outputShape] : symbolicShapes, 'symbolic output shapes');
  assert.equal(onSymbolic.built, true, 'built by a symbolic call');
  assert.equal(onSymbolic.countParams(), theirs.countParams(), 'countParams() after a symbolic call');
  // (tfjs's Layer has no inputShape; Keras's is the shape, or the list of them.)
  const inputShapes = inShapes.map((s) => [null, ...s.slice(1)]);
  assert.deepEqual(onSymbolic.inputShape, multi ? inputShapes : inputShapes[0], 'inputShape');
  onSymbolic.dispose();
  assert.equal(tt.memory().numTensors, before, 'tensors left behind by the symbolic call');

  const xsOurs = inShapes.map((s, i) => tt.tensor(values[i], s, dtype));
  const xsTheirs = inShapes.map((s, i) => tfo.tensor(values[i], s, dtype));
  const argOurs = multi ? xsOurs : xsOurs[0];
  const argTheirs = multi ? xsTheirs : xsTheirs[0];

  try {
    // Our first call builds the layer.
    tt.dispose(ours.apply(argOurs));
    assert.equal(ours.built, true, 'built after the first call');

    assert.deepEqual(ours.outputShape, outputShape || theirs.outputShape, 'outputShape');
    const nullBatch = inShapes.map((s) => [null, ...s.slice(1)]);
    assert.deepEqual(ours.computeOutputShape(multi ? nullBatch : nullBatch[0]),
      outputShape || theirs.computeOutputShape(multi ? nullBatch : nullBatch[0]), 'computeOutputShape');
    assert.equal(ours.countParams(), theirs.countParams(), 'countParams()');
    assert.deepEqual(ours.weights.map((w) => stripUid(w.name)), theirs.weights.map((w) => stripUid(w.name)),
      'weight names');
    assert.deepEqual(ours.weights.map((w) => w.shape), theirs.weights.map((w) => w.shape), 'weight shapes');
    assert.deepEqual(ours.trainableWeights.map((w) => stripUid(w.name)),
      theirs.trainableWeights.map((w) => stripUid(w.name)), 'trainable weights');
    assert.deepEqual(ours.nonTrainableWeights.map((w) => stripUid(w.name)),
      theirs.nonTrainableWeights.map((w) => stripUid(w.name)), 'non-trainable weights');

    copyWeights(ours, theirs);

    const got = list(ours.apply(argOurs, kwargs));
    const want = list(reference ? reference(theirs, xsTheirs, kwargs) : theirs.apply(argTheirs, kwargs));
    try {
      assert.equal(got.length, want.length, 'number of outputs');
      want.forEach((w, i) => compareTensors(got[i], w, tol, `output ${i}`));
      // The weights after the call (batchNormalization's moving statistics move in training).
      const gw = ours.getWeights();
      const ww = theirs.getWeights();
      ww.forEach((w, i) => compareTensors(gw[i], w, tol, `weight ${i} after the call`));
      if (again) {
        const v = data(size(again), 9);
        const x2 = [tt.tensor(v, again), tfo.tensor(v, again)];
        const [g2, w2] = [list(ours.apply(x2[0], kwargs)), list(theirs.apply(x2[1], kwargs))];
        w2.forEach((w, i) => compareTensors(g2[i], w, tol, `output ${i} for input shape [${again}]`));
        tt.dispose([x2[0], ...g2]);
        tfo.dispose([x2[1], ...w2]);
      }
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

// One `it` per case: [title, make, shapes, options].
function cases(list) {
  for (const [title, make, shapes, opts = {}] of list) {
    it(title, () => checkLayer(make, shapes, opts));
  }
}

// ---- forward passes ----------------------------------------------------------------------

const ACTIVATIONS = ['linear', 'relu', 'relu6', 'elu', 'selu', 'sigmoid', 'hardSigmoid', 'softplus', 'softsign',
  'tanh', 'softmax', 'swish', 'mish', 'gelu'];

describe('dense', () => {
  cases([
    ['units 3 on [2, 4], then on [5, 4]', (tf) => tf.layers.dense({ units: 3 }), [2, 4], { again: [5, 4] }],
    ['no bias', (tf) => tf.layers.dense({ units: 3, useBias: false }), [2, 4]],
    ['rank-3 input [2, 3, 4]', (tf) => tf.layers.dense({ units: 5 }), [2, 3, 4]],
    ['rank-4 input, relu', (tf) => tf.layers.dense({ units: 2, activation: 'relu' }), [2, 2, 3, 4]],
    ['batch 1, units 1', (tf) => tf.layers.dense({ units: 1 }), [1, 6]],
    ...ACTIVATIONS.map((a) => [`activation '${a}'`, (tf) => tf.layers.dense({ units: 4, activation: a }), [3, 5]]),
  ]);
});

describe('activation', () => {
  cases(ACTIVATIONS.map((a) => [`'${a}'`, (tf) => tf.layers.activation({ activation: a }), [2, 3, 4]]));
});

describe('dropout (inference)', () => {
  cases([
    ['rate 0.5 is the identity', (tf) => tf.layers.dropout({ rate: 0.5 }), [3, 4]],
    ['rate 0.2, training false', (tf) => tf.layers.dropout({ rate: 0.2 }), [2, 3, 2], { kwargs: { training: false } }],
    ['rate 0 in training', (tf) => tf.layers.dropout({ rate: 0 }), [2, 3], { kwargs: { training: true } }],
  ]);
});

describe('dropout (training)', () => {
  for (const rate of [0.25, 0.5, 0.8]) {
    it(`rate ${rate}: every value is 0 or x / (1 - rate), about rate of them 0`, () => {
      const before = tt.memory().numTensors;
      const layer = tt.layers.dropout({ rate });
      const x = tt.tensor(data(400, 3, 0.5, 2), [8, 50]);
      const y = layer.apply(x, { training: true });
      assert.deepEqual(y.shape, [8, 50]);
      const xs = x.dataSync();
      const ys = y.dataSync();
      let zeros = 0;
      for (let i = 0; i < xs.length; i++) {
        if (ys[i] === 0) {
          zeros++;
        } else {
          const want = xs[i] / (1 - rate);
          assert.ok(Math.abs(ys[i] - want) <= 1e-5 * want, `[${i}]: ${ys[i]} is neither 0 nor ${want}`);
        }
      }
      // 400 draws: the fraction dropped is within 0.12 of the rate (over 4.5 sigma).
      assert.ok(Math.abs(zeros / xs.length - rate) < 0.12, `${zeros} of ${xs.length} dropped at rate ${rate}`);
      tt.dispose([x, y]);
      assert.deepEqual(layer.dispose(), { refCountAfterDispose: 0, numDisposedVariables: 0 });
      assert.equal(tt.memory().numTensors, before);
    });
  }

  it('with a seed, the values are tfjs-layers\' (tf.dropout\'s draw and formula)', () => {
    const before = tt.memory().numTensors;
    const run = (tf) => {
      const layer = tf.layers.dropout({ rate: 0.3, seed: 42, noiseShape: [null, 1, 6] });
      const x = tf.tensor(data(60, 9, 0.5, 2), [2, 5, 6]);
      const y = layer.apply(x, { training: true });
      const v = Array.from(y.dataSync());
      tf.dispose([x, y]);
      layer.dispose();
      return v;
    };
    assert.deepStrictEqual(run(tt), run(tfo));
    assert.equal(tt.memory().numTensors, before);
  });

  it('noiseShape [8, 1] drops whole rows', () => {
    const before = tt.memory().numTensors;
    const layer = tt.layers.dropout({ rate: 0.5, noiseShape: [8, 1] });
    const x = tt.tensor(data(80, 5, 0.5, 2), [8, 10]);
    const y = layer.apply(x, { training: true });
    const xs = x.dataSync();
    const ys = y.dataSync();
    for (let r = 0; r < 8; r++) {
      const row = Array.from(ys.slice(r * 10, r * 10 + 10));
      const dropped = row[0] === 0;
      row.forEach((v, c) => {
        const want = dropped ? 0 : xs[r * 10 + c] * 2;
        assert.ok(Math.abs(v - want) <= 1e-5 * Math.abs(want), `row ${r}, column ${c}: ${v}, expected ${want}`);
      });
    }
    tt.dispose([x, y]);
    layer.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('noiseShape [null, 1]: null takes the input\'s size', () => {
    const before = tt.memory().numTensors;
    const layer = tt.layers.dropout({ rate: 0.5, noiseShape: [null, 1] });
    const x = tt.ones([6, 4]);
    try {
      const y = layer.apply(x, { training: true });
      const ys = y.dataSync();
      for (let r = 0; r < 6; r++) {
        const row = Array.from(ys.slice(r * 4, r * 4 + 4));
        assert.ok(row.every((v) => v === row[0]) && (row[0] === 0 || row[0] === 2), `row ${r}: ${row}`);
      }
      y.dispose();
    } finally {
      x.dispose();
      layer.dispose();
    }
    assert.equal(tt.memory().numTensors, before);
  });

  it('a seeded dropout drops the same values twice', () => {
    const before = tt.memory().numTensors;
    const x = tt.ones([4, 25]);
    const masks = [0, 1].map(() => {
      const layer = tt.layers.dropout({ rate: 0.5, seed: 17 });
      const y = layer.apply(x, { training: true });
      const v = Array.from(y.dataSync());
      y.dispose();
      layer.dispose();
      return v;
    });
    assert.deepEqual(masks[0], masks[1]);
    x.dispose();
    assert.equal(tt.memory().numTensors, before);
  });
});

describe('reshaping layers', () => {
  cases([
    ['flatten [2, 3, 2, 2]', (tf) => tf.layers.flatten(), [2, 3, 2, 2]],
    ['reshape to [4, 3]', (tf) => tf.layers.reshape({ targetShape: [4, 3] }), [2, 3, 4]],
    // tfjs resolves a -1 only when every input dimension, the batch too, is known: with the
    // batch null it reports [null, null, 2]. Ours resolves it from the other dimensions, as
    // Keras does.
    ['reshape to [-1, 2]', (tf) => tf.layers.reshape({ targetShape: [-1, 2] }), [2, 3, 4],
      { outputShape: [null, 6, 2] }],
    ['reshape to [2, -1, 3]', (tf) => tf.layers.reshape({ targetShape: [2, -1, 3] }), [2, 12],
      { outputShape: [null, 2, 2, 3] }],
    ['permute [2, 1]', (tf) => tf.layers.permute({ dims: [2, 1] }), [2, 3, 4]],
    ['permute [3, 1, 2]', (tf) => tf.layers.permute({ dims: [3, 1, 2] }), [2, 2, 3, 4]],
    ['repeatVector n 3', (tf) => tf.layers.repeatVector({ n: 3 }), [2, 4]],
  ]);
});

describe('embedding', () => {
  cases([
    ['inputDim 10, outputDim 3 on int32 [2, 5]', (tf) => tf.layers.embedding({ inputDim: 10, outputDim: 3 }), [2, 5],
      { dtype: 'int32', maxIndex: 10 }],
    ['on int32 [3, 2, 2]', (tf) => tf.layers.embedding({ inputDim: 6, outputDim: 4 }), [3, 2, 2],
      { dtype: 'int32', maxIndex: 6 }],
    ['float32 indices', (tf) => tf.layers.embedding({ inputDim: 5, outputDim: 2 }), [2, 4],
      { dtype: 'float32', maxIndex: 5 }],
  ]);
});

// A causal conv1d (kernel 3, linear, with bias) from tfjs ops.
function causalReference(dilation, stride = 1) {
  return (theirs, [x]) => {
    const [kernel, bias] = theirs.getWeights();
    const left = dilation * (kernel.shape[0] - 1);
    return tfo.tidy(() => tfo.conv1d(x.pad([[0, 0], [left, 0], [0, 0]]), kernel, stride, 'valid', 'NWC', dilation)
      .add(bias));
  };
}

describe('embedding input shape', () => {
  // Embedding's inputDim is the vocabulary size, not a feature dimension: tfjs's input shape
  // is [batch, inputLength] ([null, null] without inputLength).
  it('batchInputShape from inputLength, not inputDim', () => {
    for (const config of [{ inputDim: 10, outputDim: 3, inputLength: 5 }, { inputDim: 10, outputDim: 3 }]) {
      const ours = tt.layers.embedding(config);
      const theirs = tfo.layers.embedding(config);
      try {
        assert.deepEqual(ours.batchInputShape, theirs.batchInputShape, JSON.stringify(config));
        assert.deepEqual(ours.getConfig().batchInputShape, theirs.getConfig().batchInputShape, 'getConfig().batchInputShape');
      } finally {
        ours.dispose();
      }
    }
  });

  it('an embedding first in a sequential model takes [batch, length] indices', () => {
    const before = tt.memory().numTensors;
    for (const config of [{ inputDim: 10, outputDim: 3, inputLength: 5 }, { inputDim: 10, outputDim: 3 }]) {
      const model = tt.sequential({ layers: [tt.layers.embedding(config), tt.layers.globalAveragePooling1d({})] });
      const x = tt.zeros([2, 5], 'int32');
      try {
        const y = model.predict(x);
        assert.deepEqual(y.shape, [2, 3]);
        y.dispose();
      } finally {
        x.dispose();
        model.dispose();
      }
    }
    assert.equal(tt.memory().numTensors, before);
  });
});

describe('conv1d', () => {
  const conv1d = (extra) => (tf) => tf.layers.conv1d({ filters: 3, kernelSize: 3, ...extra });
  cases([
    ['valid', conv1d({}), [2, 8, 2]],
    ['same', conv1d({ padding: 'same' }), [2, 8, 2]],
    // tfjs can build a causal conv1d but not call it ('not implemented yet'), and its
    // outputShape treats 'causal' as 'valid'. The reference is Keras's: zeros on the left,
    // then a valid convolution; the output has the input's length.
    ['causal', conv1d({ padding: 'causal' }), [2, 8, 2], { outputShape: [null, 8, 3], reference: causalReference(1) }],
    ['strides 2, valid', conv1d({ strides: 2 }), [2, 9, 2]],
    ['strides 2, same', conv1d({ strides: 2, padding: 'same' }), [2, 9, 2]],
    ['dilation 2, valid', conv1d({ dilationRate: 2 }), [2, 9, 2]],
    ['dilation 2, same', conv1d({ dilationRate: 2, padding: 'same' }), [2, 9, 2]],
    ['dilation 2, causal', conv1d({ dilationRate: 2, padding: 'causal' }), [2, 9, 2],
      { outputShape: [null, 9, 3], reference: causalReference(2) }],
    ['strides 2, causal', conv1d({ strides: 2, padding: 'causal' }), [2, 9, 2],
      { outputShape: [null, 5, 3], reference: causalReference(1, 2) }],
    ['kernel 1, no bias, relu', conv1d({ kernelSize: 1, useBias: false, activation: 'relu' }), [2, 5, 3]],
  ]);
});

describe('conv2d', () => {
  const conv2d = (extra) => (tf) => tf.layers.conv2d({ filters: 3, kernelSize: 3, ...extra });
  cases([
    ['valid, then on [1, 8, 5, 2]', conv2d({}), [2, 6, 6, 2], { again: [1, 8, 5, 2] }],
    ['same', conv2d({ padding: 'same' }), [2, 6, 6, 2]],
    ['strides 2, valid', conv2d({ strides: 2 }), [2, 7, 7, 2]],
    ['strides 2, same', conv2d({ strides: 2, padding: 'same' }), [2, 7, 6, 2]],
    ['strides [1, 2]', conv2d({ strides: [1, 2] }), [2, 6, 7, 2]],
    ['dilationRate 2, valid', conv2d({ dilationRate: 2 }), [2, 7, 7, 2]],
    ['dilationRate 2, same', conv2d({ dilationRate: 2, padding: 'same' }), [2, 6, 6, 2]],
    ['kernelSize [2, 3], no bias, tanh', conv2d({ kernelSize: [2, 3], useBias: false, activation: 'tanh' }), [2, 5, 6, 3]],
    ['kernelSize 1', conv2d({ kernelSize: 1, filters: 4 }), [1, 3, 3, 2]],
  ]);
});

describe('conv2dTranspose', () => {
  const deconv = (extra) => (tf) => tf.layers.conv2dTranspose({ filters: 2, kernelSize: 3, ...extra });
  cases([
    ['valid', deconv({}), [2, 4, 4, 3]],
    ['same', deconv({ padding: 'same' }), [2, 4, 4, 3]],
    ['strides 2, valid', deconv({ strides: 2 }), [2, 3, 4, 3]],
    ['strides 2, same', deconv({ strides: 2, padding: 'same' }), [2, 3, 4, 3]],
    ['kernel 2, strides 3 (stride above kernel)', deconv({ kernelSize: 2, strides: 3 }), [2, 3, 3, 2]],
    ['kernel [3, 2], strides [2, 1], relu, no bias',
      deconv({ kernelSize: [3, 2], strides: [2, 1], activation: 'relu', useBias: false }), [1, 3, 3, 2]],
  ]);
});

describe('depthwiseConv2d', () => {
  const dw = (extra) => (tf) => tf.layers.depthwiseConv2d({ kernelSize: 3, depthMultiplier: 2, ...extra });
  cases([
    ['depthMultiplier 2, valid', dw({}), [2, 5, 5, 3]],
    ['depthMultiplier 2, same', dw({ padding: 'same' }), [2, 5, 5, 3]],
    ['depthMultiplier 2, strides 2', dw({ strides: 2 }), [2, 6, 6, 2]],
    ['depthMultiplier 1 (default), same, strides 2',
      (tf) => tf.layers.depthwiseConv2d({ kernelSize: 2, padding: 'same', strides: 2 }), [2, 5, 5, 3]],
  ]);
});

describe('separableConv2d', () => {
  const sep = (extra) => (tf) => tf.layers.separableConv2d({ filters: 4, kernelSize: 3, ...extra });
  cases([
    ['valid', sep({}), [2, 5, 5, 3]],
    ['same, depthMultiplier 2', sep({ padding: 'same', depthMultiplier: 2 }), [2, 5, 5, 3]],
    ['strides 2, relu', sep({ strides: 2, activation: 'relu' }), [2, 6, 6, 2]],
    ['no bias', sep({ useBias: false }), [1, 4, 4, 2]],
  ]);
});

describe('pooling', () => {
  // [factory, config, input shape]; the title is made from them.
  const pools = [
    ['maxPooling1d', { poolSize: 2 }, [2, 8, 3]],
    ['maxPooling1d', { poolSize: 3, strides: 1, padding: 'same' }, [2, 7, 3]],
    ['maxPooling1d', { poolSize: 3, strides: 2, padding: 'same' }, [2, 8, 2]],
    ['averagePooling1d', { poolSize: 2 }, [2, 8, 3]],
    ['averagePooling1d', { poolSize: 3, strides: 2 }, [2, 9, 3]],
    ['averagePooling1d', { poolSize: 3, strides: 2, padding: 'same' }, [2, 8, 2]],
    ['maxPooling2d', { poolSize: 2 }, [2, 6, 6, 2]],
    ['maxPooling2d', { poolSize: 3, strides: 2, padding: 'same' }, [2, 6, 7, 2]],
    ['maxPooling2d', { poolSize: [2, 3], strides: [1, 2] }, [2, 5, 7, 2]],
    ['averagePooling2d', { poolSize: 2 }, [2, 6, 6, 2]],
    ['averagePooling2d', { poolSize: 3, strides: 2, padding: 'same' }, [2, 6, 7, 2]],
    // 'same' averages count only the values inside the input.
    ['averagePooling2d', { poolSize: 3, strides: 1, padding: 'same' }, [1, 4, 4, 3]],
    ['averagePooling2d', { poolSize: [2, 3], strides: [1, 2] }, [2, 5, 7, 2]],
    ['globalAveragePooling1d', {}, [2, 5, 3]],
    ['globalMaxPooling1d', {}, [2, 5, 3]],
    ['globalAveragePooling2d', {}, [2, 4, 3, 3]],
    ['globalMaxPooling2d', {}, [2, 4, 3, 3]],
  ];
  cases(pools.map(([factory, config, shape]) => [`${factory} ${JSON.stringify(config)} on [${shape}]`,
    (tf) => tf.layers[factory](config), shape]));
});

// batchNormalization from tfjs ops, where tfjs's own layer is wrong: over a non-last axis on its
// cpu backend (its batchNorm kernel indexes gamma, beta and the statistics as if their axis
// were the last one: [1, 3, 4] data with gamma [1, 2, 3] on axis 1 comes out scaled by
// 1, 2, 3, 1 along the last axis), and in training without gamma and beta (it throws).
function batchNormReference(axis, momentum = 0.99, epsilon = 1e-3) {
  return (theirs, [x], { training }) => {
    const w = Object.fromEntries(theirs.weights.map((v) => [stripUid(v.name), v.read()]));
    const { moving_mean: movingMean, moving_variance: movingVariance } = w;
    const a = axis < 0 ? x.rank + axis : axis;
    const shape = x.shape.map((d, i) => (i === a ? d : 1));
    const axes = x.shape.map((_, i) => i).filter((i) => i !== a);
    const b = (t) => t.reshape(shape);
    return tfo.tidy(() => {
      const gamma = w.gamma || tfo.ones(movingMean.shape);
      const beta = w.beta || tfo.zeros(movingMean.shape);
      let mean = b(movingMean);
      let variance = b(movingVariance);
      if (training) {
        const m = tfo.moments(x, axes, true);
        mean = m.mean;
        variance = m.variance;
        const update = (moving, batch) => moving.sub(moving.sub(batch.reshape(moving.shape)).mul(1 - momentum));
        theirs.setWeights([w.gamma, w.beta, update(movingMean, mean), update(movingVariance, variance)].filter((v) => v));
      }
      return x.sub(mean).div(variance.add(epsilon).sqrt()).mul(b(gamma)).add(b(beta));
    });
  };
}

describe('batchNormalization', () => {
  cases([
    ['inference on [3, 5]', (tf) => tf.layers.batchNormalization(), [3, 5], { again: [1, 5] }],
    ['inference on [2, 3, 3, 4]', (tf) => tf.layers.batchNormalization(), [2, 3, 3, 4]],
    ['inference, axis 1 of [2, 3, 4]', (tf) => tf.layers.batchNormalization({ axis: 1 }), [2, 3, 4],
      { reference: batchNormReference(1) }],
    ['inference, center false', (tf) => tf.layers.batchNormalization({ center: false }), [3, 4]],
    ['inference, scale false, epsilon 0.1', (tf) => tf.layers.batchNormalization({ scale: false, epsilon: 0.1 }), [3, 4]],
    ['training on [4, 5]: output and moving statistics', (tf) => tf.layers.batchNormalization(), [4, 5],
      { kwargs: { training: true } }],
    ['training on [2, 3, 3, 2], momentum 0.5', (tf) => tf.layers.batchNormalization({ momentum: 0.5 }), [2, 3, 3, 2],
      { kwargs: { training: true } }],
    ['training, center false, scale false', (tf) => tf.layers.batchNormalization({ center: false, scale: false }), [4, 3],
      { kwargs: { training: true }, reference: batchNormReference(-1) }],
    ['training, scale false', (tf) => tf.layers.batchNormalization({ scale: false }), [4, 3],
      { kwargs: { training: true }, reference: batchNormReference(-1) }],
    ['training, axis 1 of [3, 2, 4]', (tf) => tf.layers.batchNormalization({ axis: 1, momentum: 0.8 }), [3, 2, 4],
      { kwargs: { training: true }, reference: batchNormReference(1, 0.8) }],
  ]);
});

describe('layerNormalization', () => {
  cases([
    ['on [3, 6]', (tf) => tf.layers.layerNormalization(), [3, 6]],
    ['on [2, 3, 4]', (tf) => tf.layers.layerNormalization(), [2, 3, 4]],
    ['axis [1, 2] of [2, 3, 4]', (tf) => tf.layers.layerNormalization({ axis: [1, 2] }), [2, 3, 4]],
    ['center false, scale false, epsilon 0.01',
      (tf) => tf.layers.layerNormalization({ center: false, scale: false, epsilon: 0.01 }), [2, 5]],
  ]);
});

describe('zeroPadding2d and upSampling2d', () => {
  cases([
    ['zeroPadding2d default', (tf) => tf.layers.zeroPadding2d(), [2, 3, 3, 2]],
    ['zeroPadding2d 2', (tf) => tf.layers.zeroPadding2d({ padding: 2 }), [2, 3, 3, 2]],
    ['zeroPadding2d [1, 2]', (tf) => tf.layers.zeroPadding2d({ padding: [1, 2] }), [2, 3, 4, 2]],
    ['zeroPadding2d [[1, 0], [2, 3]]', (tf) => tf.layers.zeroPadding2d({ padding: [[1, 0], [2, 3]] }), [2, 3, 4, 2]],
    // (tfjs's upSampling2d() needs an argument.)
    ['upSampling2d nearest, default size', (tf) => tf.layers.upSampling2d({}), [2, 3, 3, 2]],
    ['upSampling2d nearest, size [2, 3]', (tf) => tf.layers.upSampling2d({ size: [2, 3] }), [2, 2, 3, 2]],
    ['upSampling2d bilinear, size 2', (tf) => tf.layers.upSampling2d({ size: [2, 2], interpolation: 'bilinear' }),
      [2, 3, 3, 2]],
    ['upSampling2d bilinear, size [3, 2]', (tf) => tf.layers.upSampling2d({ size: [3, 2], interpolation: 'bilinear' }),
      [1, 2, 4, 3]],
  ]);
});

describe('merge layers', () => {
  const two = [[2, 3, 4], [2, 3, 4]];
  const three = [[2, 5], [2, 5], [2, 5]];
  cases([
    ['concatenate (axis -1)', (tf) => tf.layers.concatenate(), [[2, 3, 4], [2, 3, 2]]],
    ['concatenate axis 1', (tf) => tf.layers.concatenate({ axis: 1 }), [[2, 3, 4], [2, 1, 4]]],
    ['concatenate three', (tf) => tf.layers.concatenate(), [[2, 2], [2, 3], [2, 1]]],
    ...['add', 'multiply', 'average', 'maximum', 'minimum'].flatMap((op) => [
      [`${op} of two`, (tf) => tf.layers[op](), two],
      [`${op} of three`, (tf) => tf.layers[op](), three],
    ]),
  ]);

  // tfjs 4.22's tf.layers.add(config) makes the layer (it does not apply it): so does ours.
  it('tf.layers.add() makes an Add layer; apply([a, b]) adds', () => {
    const before = tt.memory().numTensors;
    const layer = tt.layers.add();
    assert.equal(layer.getClassName(), tfo.layers.add().getClassName());
    const a = tt.tensor(data(6, 1), [2, 3]);
    const b = tt.tensor(data(6, 2), [2, 3]);
    const y = layer.apply([a, b]);
    const xs = [tfo.tensor(data(6, 1), [2, 3]), tfo.tensor(data(6, 2), [2, 3])];
    const want = tfo.layers.add().apply(xs);
    compareTensors(y, want, 1e-6, 'add');
    tt.dispose([a, b, y]);
    tfo.dispose([...xs, want]);
    assert.equal(tt.memory().numTensors, before);
  });
});

describe('activation layers', () => {
  cases([
    ['reLU', (tf) => tf.layers.reLU(), [2, 3, 4]],
    ['reLU maxValue 1.5', (tf) => tf.layers.reLU({ maxValue: 1.5 }), [2, 3, 4]],
    ['leakyReLU (default alpha 0.3)', (tf) => tf.layers.leakyReLU(), [2, 3, 4]],
    ['leakyReLU alpha 0.1', (tf) => tf.layers.leakyReLU({ alpha: 0.1 }), [2, 3, 4]],
    // tfjs's Softmax layer defaults to axis 1 (ours to -1; the same on rank 2); softmax over
    // a non-last axis is refused by both (see 'errors').
    ['softmax on [3, 5]', (tf) => tf.layers.softmax(), [3, 5]],
    ['softmax axis -1 on [2, 3, 4]', (tf) => tf.layers.softmax({ axis: -1 }), [2, 3, 4]],
    ['softmax axis 2 on [2, 3, 4]', (tf) => tf.layers.softmax({ axis: 2 }), [2, 3, 4]],
    ['elu', (tf) => tf.layers.elu(), [2, 3, 4]],
  ]);

  it('leakyReLU: the default alpha is 0.3', () => {
    const layer = tt.layers.leakyReLU();
    const x = tt.tensor1d([-2, -1, 0, 1]).reshape([1, 4]);
    const y = layer.apply(x);
    closeTo(y.dataSync(), [-0.6, -0.3, 0, 1], 1e-6, 'leakyReLU');
    tt.dispose([x, y]);
    layer.dispose();
  });
});

describe('recurrent layers', () => {
  const flags = [];
  for (const returnSequences of [false, true]) {
    for (const returnState of [false, true]) {
      for (const goBackwards of [false, true]) flags.push({ returnSequences, returnState, goBackwards });
    }
  }
  const title = (f) => Object.entries(f).filter(([, v]) => v).map(([k]) => k).join(', ') || 'defaults';
  for (const name of ['simpleRNN', 'lstm', 'gru']) {
    // Each also on a longer sequence and another batch size once built.
    cases(flags.map((f) => [`${name}: ${title(f)}`, (tf) => tf.layers[name]({ units: 3, ...f }), [2, 4, 2],
      { again: [3, 6, 2] }]));
  }
  cases([
    ['simpleRNN relu, no bias', (tf) => tf.layers.simpleRNN({ units: 2, activation: 'relu', useBias: false }), [3, 5, 3]],
    ['lstm unitForgetBias false, sigmoid recurrent', (tf) => tf.layers.lstm({
      units: 2, unitForgetBias: false, recurrentActivation: 'sigmoid', returnSequences: true,
    }), [3, 5, 3]],
    ['gru sigmoid recurrent, relu', (tf) => tf.layers.gru({
      units: 4, recurrentActivation: 'sigmoid', activation: 'relu', returnSequences: true,
    }), [2, 3, 3]],
    ['lstm one step', (tf) => tf.layers.lstm({ units: 2, returnState: true }), [2, 1, 3]],
  ]);
});

// ---- weights ------------------------------------------------------------------------------

describe('weights', () => {
  it('setWeights applies the constraint, as tfjs does', () => {
    const results = [tt, tfo].map((tf) => {
      const layer = tf.layers.dense({
        units: 2, kernelConstraint: tf.constraints.nonNeg(), biasConstraint: tf.constraints.maxNorm({ maxValue: 1 }),
      });
      layer.apply(tf.input({ shape: [2] }));
      const values = [tf.tensor2d([[-1, 2], [3, -4]]), tf.tensor1d([3, -4])];
      layer.setWeights(values);
      tf.dispose(values);
      const out = layer.getWeights().map((w) => Array.from(w.dataSync()));
      layer.dispose();
      return out;
    });
    closeTo(results[0][0], results[1][0], 1e-6, 'kernel');
    closeTo(results[0][1], results[1][1], 1e-6, 'bias');
  });

  it('trainable: false in the config, and set after building', () => {
    for (const [make, shape] of [
      [(tf) => tf.layers.batchNormalization({ trainable: false }), [3]],
      [(tf) => tf.layers.dense({ units: 2 }), [3]],
      [(tf) => tf.layers.lstm({ units: 2 }), [3, 3]],
    ]) {
      const [a, b] = [tt, tfo].map((tf) => {
        const layer = make(tf);
        layer.apply(tf.input({ shape }));
        layer.trainable = false;
        const out = {
          weights: layer.weights.map((w) => stripUid(w.name)),
          trainable: layer.trainableWeights.map((w) => stripUid(w.name)),
          nonTrainable: layer.nonTrainableWeights.map((w) => stripUid(w.name)),
          onlyTrainable: layer.getWeights(true).length,
          flag: layer.trainable,
          config: layer.getConfig().trainable,
        };
        layer.dispose();
        return out;
      });
      assert.deepEqual(a, b);
    }
  });

  it('getWeights(true) holds the trainable weights only', () => {
    const layer = tt.layers.batchNormalization();
    layer.build([null, 3]);
    assert.deepEqual(layer.getWeights(true).map((w) => w.name.split('/')[1]), ['gamma', 'beta']);
    assert.deepEqual(layer.getWeights().map((w) => w.name.split('/')[1]), ['gamma', 'beta', 'moving_mean', 'moving_variance']);
    layer.dispose();
  });

  it('weight names stay unique for two layers of one name', () => {
    const [a, b] = [0, 1].map(() => {
      const layer = tt.layers.dense({ units: 1, name: 'twin' });
      layer.build([null, 2]);
      return layer;
    });
    const names = [...a.weights, ...b.weights].map((w) => w.name);
    assert.equal(new Set(names).size, 4, names.join(', '));
    a.dispose();
    b.dispose();
  });
});

// ---- default names ----------------------------------------------------------------------

describe("default layer names match tfjs's (snake_case class name, class name, uid)", () => {
  const CONFIGS = {
    dense: { units: 1 }, activation: { activation: 'relu' }, dropout: { rate: 0.1 }, flatten: {},
    reshape: { targetShape: [1] }, permute: { dims: [1] }, repeatVector: { n: 1 },
    embedding: { inputDim: 2, outputDim: 1 }, conv1d: { filters: 1, kernelSize: 1 },
    conv2d: { filters: 1, kernelSize: 1 }, conv2dTranspose: { filters: 1, kernelSize: 1 },
    depthwiseConv2d: { kernelSize: 1 }, separableConv2d: { filters: 1, kernelSize: 1 }, maxPooling1d: {},
    maxPooling2d: {}, averagePooling1d: {}, averagePooling2d: {}, globalAveragePooling1d: {},
    globalAveragePooling2d: {}, globalMaxPooling1d: {}, globalMaxPooling2d: {}, batchNormalization: {},
    layerNormalization: {}, zeroPadding2d: {}, upSampling2d: {}, concatenate: {}, add: {}, multiply: {},
    average: {}, maximum: {}, minimum: {}, reLU: {}, leakyReLU: {}, softmax: {}, elu: {},
    simpleRNN: { units: 1 }, lstm: { units: 1 }, gru: { units: 1 },
  };
  for (const [factory, config] of Object.entries(CONFIGS)) {
    // tfjs's toSnakeCase puts no '_' between a digit and a capital: 'Conv2D' is 'conv2d'.
    it(factory, () => {
      const ours = tt.layers[factory](config);
      const theirs = tfo.layers[factory](config);
      assert.equal(ours.name.replace(/\d+$/, ''), theirs.name.replace(/\d+$/, ''));
      assert.match(ours.name, /\d+$/, 'a uid at the end');
      ours.dispose();
    });
  }
});

// ---- getConfig ---------------------------------------------------------------------------

describe('getConfig matches tfjs', () => {
  const configs = [
    ['dense', (tf) => tf.layers.dense({ units: 3, activation: 'relu', useBias: false, name: 'cfg_dense' }),
      ['name', 'trainable', 'units', 'activation', 'useBias', 'kernelRegularizer', 'biasRegularizer', 'kernelConstraint',
        'biasConstraint', 'biasInitializer']],
    ['conv2d', (tf) => tf.layers.conv2d({
      filters: 4, kernelSize: [3, 2], strides: 2, padding: 'same', dilationRate: 1, activation: 'tanh', name: 'cfg_conv',
    }), ['name', 'trainable', 'filters', 'kernelSize', 'strides', 'padding', 'dataFormat', 'dilationRate', 'activation',
      'useBias', 'biasInitializer']],
    ['lstm', (tf) => tf.layers.lstm({ units: 5, returnSequences: true, goBackwards: true, name: 'cfg_lstm' }),
      ['name', 'trainable', 'units', 'activation', 'recurrentActivation', 'useBias', 'returnSequences', 'returnState',
        'goBackwards', 'stateful', 'unroll', 'dropout', 'recurrentDropout', 'recurrentInitializer', 'biasInitializer']],
    ['batchNormalization', (tf) => tf.layers.batchNormalization({ momentum: 0.9, epsilon: 0.01, center: false, name: 'cfg_bn' }),
      ['name', 'trainable', 'axis', 'momentum', 'epsilon', 'center', 'scale', 'betaInitializer', 'gammaInitializer',
        'movingMeanInitializer', 'movingVarianceInitializer']],
  ];
  for (const [kind, make, keys] of configs) {
    it(kind, (t) => {
      const ours = make(tt);
      const theirs = make(tfo);
      const a = ours.getConfig();
      const b = theirs.getConfig();
      for (const key of keys) {
        assert.ok(key in a, `our config lacks '${key}'`);
        // tfjs's initializer configs may hold `seed: undefined` where ours has null: compare
        // the keys tfjs has, null and undefined alike.
        const want = b[key];
        const only = (config) => Object.fromEntries(Object.keys(want.config).map((k) => [k, config[k]]));
        const got = want != null && typeof want === 'object' && want.config
          ? { className: a[key].className, config: only(a[key].config) }
          : a[key];
        assert.deepEqual(JSON.parse(JSON.stringify(got, (k, v) => (v == null ? undefined : v)) || 'null'),
          JSON.parse(JSON.stringify(want, (k, v) => (v == null ? undefined : v)) || 'null'), `'${key}'`);
      }
      // Reported, not asserted: every other difference.
      const differ = [];
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (keys.includes(key)) continue;
        if (!(key in b)) differ.push(`${key}: only ours (${JSON.stringify(a[key])})`);
        else if (!(key in a)) differ.push(`${key}: only tfjs's (${JSON.stringify(b[key])})`);
        else if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) {
          differ.push(`${key}: ours ${JSON.stringify(a[key])}, tfjs ${JSON.stringify(b[key])}`);
        }
      }
      if (differ.length > 0) t.diagnostic(`${kind} config differences: ${differ.join('; ')}`);
      ours.dispose();
    });
  }
});

describe('getConfig of every layer kind (differences reported, not asserted)', () => {
  const CONFIGS = {
    dropout: { rate: 0.1, seed: 3 }, flatten: {}, reshape: { targetShape: [2, -1] }, permute: { dims: [2, 1] },
    repeatVector: { n: 2 }, embedding: { inputDim: 5, outputDim: 2 }, conv1d: { filters: 2, kernelSize: 3, padding: 'causal' },
    conv2dTranspose: { filters: 2, kernelSize: 2, strides: 2 }, depthwiseConv2d: { kernelSize: 2, depthMultiplier: 2 },
    separableConv2d: { filters: 2, kernelSize: 2, depthMultiplier: 2 }, maxPooling1d: { poolSize: 3 },
    maxPooling2d: { poolSize: [2, 3], strides: 1, padding: 'same' }, averagePooling2d: {}, globalAveragePooling2d: {},
    layerNormalization: { axis: -1, epsilon: 0.01 }, zeroPadding2d: { padding: [1, 2] },
    upSampling2d: { size: [2, 3], interpolation: 'bilinear' }, concatenate: { axis: 1 }, add: {}, reLU: { maxValue: 2 },
    leakyReLU: { alpha: 0.2 }, softmax: {}, elu: {}, simpleRNN: { units: 2, activation: 'relu' },
    gru: { units: 2, returnState: true },
  };
  const norm = (v) => JSON.stringify(v, (k, x) => (x == null ? undefined : x));
  for (const [factory, config] of Object.entries(CONFIGS)) {
    it(factory, (t) => {
      const ours = tt.layers[factory]({ ...config, name: 'cfg' });
      const a = ours.getConfig();
      const b = tfo.layers[factory]({ ...config, name: 'cfg' }).getConfig();
      ours.dispose();
      // The name and trainable flag at least agree.
      assert.equal(a.name, b.name);
      assert.equal(a.trainable, b.trainable);
      const differ = [];
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (norm(a[key]) !== norm(b[key])) differ.push(`${key}: ours ${norm(a[key])}, tfjs ${norm(b[key])}`);
      }
      if (differ.length > 0) t.diagnostic(`${factory} config differences: ${differ.join('; ')}`);
    });
  }
});

describe('getConfig values', () => {
  it('a numeric dropout seed stays a number', () => {
    const layer = tt.layers.dropout({ rate: 0.1, seed: 3 });
    assert.strictEqual(layer.getConfig().seed, tfo.layers.dropout({ rate: 0.1, seed: 3 }).getConfig().seed);
    layer.dispose();
  });
});

// ---- initializers ------------------------------------------------------------------------

// The kernel a dense layer of `units` on `fanIn` features gets from `init` (values, stats).
function kernelOf(init, fanIn = 64, units = 48, extra = {}) {
  const before = tt.memory().numTensors;
  const layer = tt.layers.dense({ units, kernelInitializer: init, ...extra });
  const x = tt.zeros([1, fanIn]);
  tt.dispose(layer.apply(x));
  x.dispose();
  const w = layer.getWeights()[0];
  assert.deepEqual(w.shape, [fanIn, units]);
  const v = Float64Array.from(w.dataSync());
  layer.dispose();
  assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const std = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
  let min = Infinity;
  let max = -Infinity;
  for (const x of v) {
    min = Math.min(min, x);
    max = Math.max(max, x);
  }
  return { v, mean, std, min, max };
}

// Std of a normal truncated at +-2 std, relative to the untruncated std.
const TRUNC = 0.87962566;

const near = (got, want, tol, what) => assert.ok(Math.abs(got - want) <= tol, `${what}: ${got}, expected ${want} +- ${tol}`);

describe('initializers', () => {
  it('zeros, ones, constant', () => {
    assert.ok(kernelOf(tt.initializers.zeros(), 8, 4).v.every((x) => x === 0));
    assert.ok(kernelOf(tt.initializers.ones(), 8, 4).v.every((x) => x === 1));
    assert.ok(kernelOf(tt.initializers.constant({ value: 0.25 }), 8, 4).v.every((x) => x === 0.25));
  });

  it('randomNormal mean and stddev', () => {
    const s = kernelOf(tt.initializers.randomNormal({ mean: 1, stddev: 0.5 }));
    near(s.mean, 1, 0.05, 'mean');
    near(s.std, 0.5, 0.05, 'std');
  });

  it('randomUniform bounds', () => {
    const s = kernelOf(tt.initializers.randomUniform({ minval: -0.3, maxval: 0.7 }));
    assert.ok(s.min >= -0.3 && s.max <= 0.7, `[${s.min}, ${s.max}]`);
    assert.ok(s.min < -0.25 && s.max > 0.65, 'spans the range');
    near(s.mean, 0.2, 0.03, 'mean');
    // Default bounds +-0.05 (tfjs needs the options object, as here).
    const d = kernelOf(tt.initializers.randomUniform({}));
    assert.ok(d.min >= -0.05 && d.max <= 0.05 && d.max > 0.045, `[${d.min}, ${d.max}]`);
  });

  it('truncatedNormal stays within 2 stddev', () => {
    const s = kernelOf(tt.initializers.truncatedNormal({ mean: 1, stddev: 0.5 }));
    assert.ok(s.min >= 0 && s.max <= 2, `[${s.min}, ${s.max}]`);
    near(s.mean, 1, 0.05, 'mean');
    near(s.std, 0.5 * TRUNC, 0.05, 'std');
  });

  it('the default kernel initializers are tfjs\'s (glorotNormal for dense, conv and recurrent kernels)', () => {
    const defaults = (tf) => [
      tf.layers.dense({ units: 2 }), tf.layers.conv2d({ filters: 2, kernelSize: 3 }),
      tf.layers.depthwiseConv2d({ kernelSize: 3 }), tf.layers.separableConv2d({ filters: 2, kernelSize: 3 }),
      tf.layers.lstm({ units: 2 }),
    ].map((l) => {
      const c = l.getConfig();
      return [c.kernelInitializer || c.depthwiseInitializer, c.pointwiseInitializer || null];
    });
    assert.deepEqual(defaults(tt), defaults(tfo));
  });

  it('glorotUniform bound sqrt(6 / (fanIn + fanOut))', () => {
    const limit = Math.sqrt(6 / (64 + 48));
    for (const init of [tt.initializers.glorotUniform({}), 'glorotUniform']) {
      const s = kernelOf(init);
      assert.ok(s.min >= -limit && s.max <= limit, `[${s.min}, ${s.max}] within ${limit}`);
      assert.ok(s.max > 0.9 * limit && s.min < -0.9 * limit, 'spans the range');
      near(s.std, limit / Math.sqrt(3), 0.1 * limit / Math.sqrt(3), 'std');
    }
  });

  it('heNormal std sqrt(2 / fanIn), truncated at 2 std', () => {
    const std = Math.sqrt(2 / 64);
    for (const init of [tt.initializers.heNormal({}), 'heNormal']) {
      const s = kernelOf(init);
      near(s.mean, 0, 0.1 * std, 'mean');
      near(s.std, std * TRUNC, 0.1 * std, 'std');
      assert.ok(s.max <= 2 * std && s.min >= -2 * std, `[${s.min}, ${s.max}] within ${2 * std}`);
    }
  });

  it('string names: glorotNormal, heUniform, leCunNormal, leCunUniform, zeros, ones, orthogonal', () => {
    const [fanIn, fanOut] = [64, 48];
    const normal = (init, std) => {
      const s = kernelOf(init, fanIn, fanOut);
      near(s.std, std * TRUNC, 0.1 * std, `${init} std`);
      assert.ok(s.max <= 2 * std && s.min >= -2 * std, `${init}: [${s.min}, ${s.max}] within ${2 * std}`);
    };
    const uniform = (init, limit) => {
      const s = kernelOf(init, fanIn, fanOut);
      assert.ok(s.min >= -limit && s.max <= limit && s.max > 0.9 * limit, `${init}: [${s.min}, ${s.max}] within ${limit}`);
    };
    normal('glorotNormal', Math.sqrt(2 / (fanIn + fanOut)));
    normal('leCunNormal', Math.sqrt(1 / fanIn));
    uniform('heUniform', Math.sqrt(6 / fanIn));
    uniform('leCunUniform', Math.sqrt(3 / fanIn));
    assert.ok(kernelOf('zeros', 4, 3).v.every((x) => x === 0));
    assert.ok(kernelOf('ones', 4, 3).v.every((x) => x === 1));
    const o = kernelOf('orthogonal', 6, 6).v;
    closeTo(gram(o, 6, 6), identity(6), 1e-5, "'orthogonal': W^T W");
  });

  it('varianceScaling fanOut uniform', () => {
    const limit = Math.sqrt(3 * 2 / 48);
    const s = kernelOf(tt.initializers.varianceScaling({ scale: 2, mode: 'fanOut', distribution: 'uniform' }));
    assert.ok(s.min >= -limit && s.max <= limit && s.max > 0.9 * limit, `[${s.min}, ${s.max}] within ${limit}`);
  });

  // W^T W for a rows x cols matrix in row-major order.
  function gram(v, rows, cols) {
    const out = new Float64Array(cols * cols);
    for (let i = 0; i < cols; i++) {
      for (let j = 0; j < cols; j++) {
        let s = 0;
        for (let r = 0; r < rows; r++) s += v[r * cols + i] * v[r * cols + j];
        out[i * cols + j] = s;
      }
    }
    return out;
  }
  function identity(n, g = 1) {
    const out = new Float64Array(n * n);
    for (let i = 0; i < n; i++) out[i * n + i] = g;
    return out;
  }
  function transpose(v, rows, cols) {
    const out = new Float64Array(rows * cols);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = v[r * cols + c];
    return out;
  }

  it('orthogonal: W^T W = I (square, tall), W W^T = I (wide), gain 2', () => {
    closeTo(gram(kernelOf(tt.initializers.orthogonal({}), 8, 8).v, 8, 8), identity(8), 1e-5, 'square');
    closeTo(gram(kernelOf(tt.initializers.orthogonal({}), 12, 5).v, 12, 5), identity(5), 1e-5, 'tall');
    closeTo(gram(transpose(kernelOf(tt.initializers.orthogonal({}), 4, 9).v, 4, 9), 9, 4), identity(4), 1e-5, 'wide');
    closeTo(gram(kernelOf(tt.initializers.orthogonal({ gain: 2 }), 6, 6).v, 6, 6), identity(6, 4), 1e-5, 'gain 2');
  });

  it('identity', () => {
    closeTo(kernelOf(tt.initializers.identity({ gain: 3 }), 4, 4).v, identity(4, 3), 0, 'identity');
  });

  it('the recurrent kernel of an lstm is orthogonal by default', () => {
    const layer = tt.layers.lstm({ units: 4 });
    const x = tt.zeros([1, 2, 3]);
    tt.dispose(layer.apply(x));
    x.dispose();
    const rk = layer.getWeights()[1];
    assert.deepEqual(rk.shape, [4, 16]);
    // A wide 4 x 16 matrix: W W^T = I.
    closeTo(gram(transpose(rk.dataSync(), 4, 16), 16, 4), identity(4), 1e-5, 'W W^T');
    // The bias: zeros, as tfjs (whose unitForgetBias is off unless given) ...
    closeTo(layer.getWeights()[2].dataSync(), new Array(16).fill(0), 0, 'bias');
    layer.dispose();
    // ... and with unitForgetBias, ones for the forget gate.
    const forget = tt.layers.lstm({ units: 4, unitForgetBias: true });
    const x2 = tt.zeros([1, 2, 3]);
    tt.dispose(forget.apply(x2));
    x2.dispose();
    closeTo(forget.getWeights()[2].dataSync(), [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], 0, 'bias');
    forget.dispose();
  });

  const SEEDED = {
    randomNormal: (tf) => tf.initializers.randomNormal({ seed: 42 }),
    randomUniform: (tf) => tf.initializers.randomUniform({ seed: 42 }),
    truncatedNormal: (tf) => tf.initializers.truncatedNormal({ stddev: 1, seed: 42 }),
    glorotUniform: (tf) => tf.initializers.glorotUniform({ seed: 42 }),
    glorotNormal: (tf) => tf.initializers.glorotNormal({ seed: 42 }),
    heNormal: (tf) => tf.initializers.heNormal({ seed: 42 }),
    heUniform: (tf) => tf.initializers.heUniform({ seed: 42 }),
    orthogonal: (tf) => tf.initializers.orthogonal({ seed: 42 }),
  };

  it('seeded: the same seed gives the same values twice, another seed others', () => {
    for (const [name, make] of Object.entries(SEEDED)) {
      const a = kernelOf(make(tt), 6, 5).v;
      const b = kernelOf(make(tt), 6, 5).v;
      assert.deepEqual(a, b, name);
      const other = make(tt);
      other.seed = 43;
      assert.notDeepEqual(kernelOf(other, 6, 5).v, a, `${name}: seed 43`);
    }
  });

  it("seeded: the same values as tfjs's for the same seed", () => {
    for (const [name, make] of Object.entries(SEEDED)) {
      const want = make(tfo).apply([6, 5]);
      closeTo(kernelOf(make(tt), 6, 5).v, want.dataSync(), 1e-5, name);
      want.dispose();
    }
  });
});

// ---- memory ------------------------------------------------------------------------------

describe('memory', () => {
  // Every kind: create, apply (also in training), read weights, dispose: nothing is left.
  const kinds = [
    [(tf) => tf.layers.dense({ units: 3, kernelRegularizer: 'l2', kernelConstraint: tt.constraints.maxNorm({}) }), [2, 4]],
    [(tf) => tf.layers.activation({ activation: 'gelu' }), [2, 4]],
    [(tf) => tf.layers.dropout({ rate: 0.5 }), [2, 4]],
    [(tf) => tf.layers.flatten(), [2, 2, 2]],
    [(tf) => tf.layers.reshape({ targetShape: [-1] }), [2, 2, 2]],
    [(tf) => tf.layers.permute({ dims: [2, 1] }), [2, 2, 3]],
    [(tf) => tf.layers.repeatVector({ n: 2 }), [2, 4]],
    [(tf) => tf.layers.embedding({ inputDim: 4, outputDim: 2 }), [2, 3], 'int32'],
    [(tf) => tf.layers.conv1d({ filters: 2, kernelSize: 2, padding: 'causal' }), [2, 5, 2]],
    [(tf) => tf.layers.conv2d({ filters: 2, kernelSize: 2, padding: 'same' }), [2, 4, 4, 2]],
    [(tf) => tf.layers.conv2dTranspose({ filters: 2, kernelSize: 2, strides: 2 }), [2, 3, 3, 2]],
    [(tf) => tf.layers.depthwiseConv2d({ kernelSize: 2, depthMultiplier: 2 }), [2, 4, 4, 2]],
    [(tf) => tf.layers.separableConv2d({ filters: 2, kernelSize: 2 }), [2, 4, 4, 2]],
    [(tf) => tf.layers.maxPooling1d({}), [2, 4, 2]],
    [(tf) => tf.layers.averagePooling2d({ padding: 'same' }), [2, 3, 3, 2]],
    [(tf) => tf.layers.globalMaxPooling2d({}), [2, 3, 3, 2]],
    [(tf) => tf.layers.batchNormalization(), [3, 4]],
    [(tf) => tf.layers.layerNormalization(), [3, 4]],
    [(tf) => tf.layers.zeroPadding2d(), [2, 2, 2, 1]],
    [(tf) => tf.layers.upSampling2d({ interpolation: 'bilinear' }), [2, 2, 2, 1]],
    [(tf) => tf.layers.concatenate(), [[2, 3], [2, 2]]],
    [(tf) => tf.layers.average(), [[2, 3], [2, 3]]],
    [(tf) => tf.layers.reLU({ maxValue: 1 }), [2, 3]],
    [(tf) => tf.layers.leakyReLU(), [2, 3]],
    [(tf) => tf.layers.softmax(), [2, 3]],
    [(tf) => tf.layers.simpleRNN({ units: 2, returnState: true }), [2, 3, 2]],
    [(tf) => tf.layers.lstm({ units: 2, returnSequences: true, returnState: true }), [2, 3, 2]],
    [(tf) => tf.layers.gru({ units: 2, goBackwards: true }), [2, 3, 2]],
  ];
  for (const [make, shapes, dtype = 'float32'] of kinds) {
    const probe = make(tt);
    const name = probe.getClassName();
    probe.dispose();
    it(`${name}: create, apply, dispose leaves the tensor count as it was`, () => {
      const multi = Array.isArray(shapes[0]);
      const xs = (multi ? shapes : [shapes]).map((s, i) => (dtype === 'int32'
        ? tt.tensor(indices(size(s), i, 4), s, 'int32') : tt.tensor(data(size(s), i), s)));
      const before = tt.memory().numTensors;
      const layer = make(tt);
      const arg = multi ? xs : xs[0];
      tt.dispose(layer.apply(arg));
      tt.dispose(layer.apply(arg, { training: true }));
      const n = layer.weights.length;
      assert.equal(tt.memory().numTensors, before + n, 'only the weights stay between calls');
      // Inside tidy: only the kept output survives.
      const y = tt.tidy(() => list(layer.apply(arg))[0]);
      assert.equal(tt.memory().numTensors, before + n + 1);
      y.dispose();
      assert.deepEqual(layer.dispose(), { refCountAfterDispose: 0, numDisposedVariables: n });
      assert.equal(tt.memory().numTensors, before, 'tensors left behind');
      tt.dispose(xs);
    });
  }

  it('an unbuilt layer disposes nothing; getWeights values die with the layer', () => {
    const before = tt.memory().numTensors;
    const unbuilt = tt.layers.dense({ units: 2 });
    assert.deepEqual(unbuilt.dispose(), { refCountAfterDispose: 0, numDisposedVariables: 0 });
    const layer = tt.layers.dense({ units: 2 });
    layer.build([null, 3]);
    assert.equal(tt.memory().numTensors, before + 2);
    const w = layer.getWeights();
    layer.dispose();
    assert.ok(w.every((v) => v.isDisposed), 'the weights are disposed with the layer');
    assert.equal(tt.memory().numTensors, before);
  });
});

// ---- errors ------------------------------------------------------------------------------

// `body(tf, own)` must throw an error matching `re` on tidytensor (an Error, not a crash),
// and leave no tensor behind once what it `own`ed is disposed. With `tfjsToo`, tfjs must
// throw as well (its text may differ).
function throwsClean(body, re, { tfjsToo = true } = {}) {
  for (const tf of tfjsToo ? [tt, tfo] : [tt]) {
    const before = tf.memory().numTensors;
    const owned = [];
    const own = (x) => {
      owned.push(x);
      return x;
    };
    try {
      assert.throws(() => body(tf, own), tf === tt ? (e) => {
        assert.ok(e instanceof Error, 'an Error instance');
        assert.match(e.message, re);
        return true;
      } : Error, tf === tt ? 'tidytensor' : 'tfjs');
    } finally {
      for (const o of owned) {
        try {
          o.dispose();
        } catch {
          // tfjs refuses to dispose unbuilt layers.
        }
      }
    }
    if (tf === tt) assert.equal(tf.memory().numTensors, before, 'tensors left behind after the error');
  }
}

describe('errors', () => {
  // tidytensor only: tfjs would try to allocate these and fail (or hang) in its own way.
  it('sizes too large for any tensor are clear errors, made and built without leaking', () => {
    const before = tt.memory().numTensors;
    assert.throws(() => tt.layers.dense({ units: 1e12 }), /units must be a positive integer \(at most 2147483647\)/);
    assert.throws(() => tt.layers.dense({ units: 2, inputShape: [2 ** 40] }), /inputShape must be a shape/);
    const huge = tt.layers.dense({ units: 2 ** 30 });
    assert.throws(() => huge.build([null, 2 ** 30]), /is larger than the \w+ backend can hold/);
    // Options and dimensions up to 2^31 - 1 multiply without overflow.
    const up = tt.layers.upSampling2d({ size: [2 ** 31 - 1, 2] });
    assert.ok(up.computeOutputShape([null, 2 ** 31 - 1, 2, 1])[1] > 2 ** 61);
    const pad = tt.layers.zeroPadding2d({ padding: [[2 ** 31 - 1, 2 ** 31 - 1], [0, 0]] });
    assert.deepEqual(pad.computeOutputShape([null, 2, 2, 1]), [null, 2 ** 32, 2, 1]);
    assert.equal(tt.memory().numTensors, before);
  });

  it('dense without units', () => {
    throwsClean((tf) => tf.layers.dense({}), /units/);
    throwsClean((tf) => tf.layers.dense({ units: 0 }), /units/);
    throwsClean((tf) => tf.layers.dense({ units: 2.5 }), /units/);
  });

  it('conv2d on a rank-3 input', () => {
    throwsClean((tf, own) => own(tf.layers.conv2d({ filters: 2, kernelSize: 2 })).apply(own(tf.ones([2, 3, 3]))),
      /rank 4|ndim=4/);
    throwsClean((tf, own) => own(tf.layers.conv1d({ filters: 2, kernelSize: 2 })).apply(own(tf.ones([2, 3, 3, 1]))),
      /rank 3|ndim=3/);
  });

  it('a dense built for 4 features applied to 5', () => {
    throwsClean((tf, own) => {
      const layer = own(tf.layers.dense({ units: 2 }));
      tf.dispose(layer.apply(own(tf.ones([2, 4]))));
      layer.apply(own(tf.ones([2, 5])));
    }, /expected axis -1 of input shape to have value 4/);
  });

  it('a conv2d built for 2 channels applied to 3; an lstm on rank 2', () => {
    throwsClean((tf, own) => {
      const layer = own(tf.layers.conv2d({ filters: 2, kernelSize: 2 }));
      tf.dispose(layer.apply(own(tf.ones([1, 3, 3, 2]))));
      layer.apply(own(tf.ones([1, 3, 3, 3])));
    }, /expected axis -1 of input shape to have value 2/);
    throwsClean((tf, own) => own(tf.layers.lstm({ units: 2 })).apply(own(tf.ones([2, 3]))), /ndim=3/);
  });

  it('unknown activation names', () => {
    throwsClean((tf) => tf.layers.dense({ units: 2, activation: 'foo' }), /Unknown activation: foo/);
    throwsClean((tf) => tf.layers.activation({ activation: 'reluu' }), /Unknown activation: reluu/);
    throwsClean((tf) => tf.layers.conv2d({ filters: 1, kernelSize: 1, activation: 'bar' }), /Unknown activation: bar/);
    throwsClean((tf) => tf.layers.lstm({ units: 1, recurrentActivation: 'baz' }), /Unknown activation: baz/);
  });

  it('unknown option values', () => {
    throwsClean((tf) => tf.layers.conv2d({ filters: 1, kernelSize: 2, padding: 'foo' }), /foo/);
    throwsClean((tf) => tf.layers.maxPooling2d({ padding: 'foo' }), /foo/);
    throwsClean((tf) => tf.layers.averagePooling1d({ padding: 'full' }), /full/);
    throwsClean((tf) => tf.layers.upSampling2d({ interpolation: 'cubic' }), /cubic/);
    throwsClean((tf) => tf.layers.conv2d({ filters: 1, kernelSize: 2, dataFormat: 'foo' }), /foo/);
    throwsClean((tf) => tf.layers.dense({ units: 2, kernelInitializer: 'foo' }), /Unknown initializer: foo/);
    // tfjs checks regularizer / constraint names only when the layer builds; ours at once.
    throwsClean((tf) => tf.layers.dense({ units: 2, kernelRegularizer: 'foo' }), /foo/, { tfjsToo: false });
    throwsClean((tf) => tf.layers.dense({ units: 2, kernelConstraint: 'foo' }), /foo/, { tfjsToo: false });
    throwsClean((tf) => tf.layers.dropout({ rate: 2 }), /rate/, { tfjsToo: false });
    throwsClean((tf) => tf.layers.conv2d({ filters: 1 }), /kernelSize/);
  });

  it('softmax over a non-last axis of rank 3 (tfjs refuses it too)', () => {
    throwsClean((tf, own) => own(tf.layers.softmax({ axis: 1 })).apply(own(tf.ones([2, 3, 4]))), /non-last dimension/);
  });

  it('a single-input layer applied to two tensors', () => {
    throwsClean((tf, own) => {
      const layer = own(tf.layers.dense({ units: 2 }));
      tf.dispose(layer.apply([own(tf.ones([1, 3])), own(tf.ones([1, 3]))]));
    }, /expects 1 inputs/);
  });

  it('a dense on a rank-1 input; apply to a plain array', () => {
    throwsClean((tf, own) => own(tf.layers.dense({ units: 2 })).apply(own(tf.ones([3]))), /min_ndim=2|should be defined/);
    throwsClean((tf, own) => own(tf.layers.dense({ units: 2 })).apply([[1, 2]]), /Tensor/, { tfjsToo: false });
  });

  it('errors in the middle of a call leave no temporaries', () => {
    // The indices are checked by the gather, after the cast and reshape (on cpu; the gpu
    // backend gives zeros for them, as tfjs's webgl backend does).
    if (tt.getBackend() === 'cpu') {
      throwsClean((tf, own) => own(tf.layers.embedding({ inputDim: 3, outputDim: 2 })).apply(own(tf.tensor2d([[0, 1, 7]]))),
        /7/, { tfjsToo: false });
    }
    // strides and dilations > 1 together are refused by the convolution itself, once built.
    throwsClean((tf, own) => own(tf.layers.conv2d({ filters: 1, kernelSize: 2, strides: 2, dilationRate: 2 }))
      .apply(own(tf.ones([1, 6, 6, 1]))), /strides or dilations must be 1/);
    throwsClean((tf, own) => own(tf.layers.lstm({ units: 2 })).apply(own(tf.ones([1, 0, 2]))), /step/, { tfjsToo: false });
    throwsClean((tf, own) => own(tf.layers.dense({ units: 2 })).apply(own(tf.tensor2d([['a', 'b']]))), /string/,
      { tfjsToo: false });
  });

  it('unknown layer class', async () => {
    const topology = { class_name: 'Sequential', config: { name: 's', layers: [{ class_name: 'NoSuchLayer', config: {} }] } };
    await assert.rejects(tt.models.modelFromJSON({ modelTopology: topology }), /Unknown layer: NoSuchLayer/);
  });

  it('merge layers: mismatched shapes, one input', () => {
    throwsClean((tf, own) => own(tf.layers.add()).apply([own(tf.ones([2, 3])), own(tf.ones([2, 4]))]),
      /could not be broadcast|shapes/);
    throwsClean((tf, own) => own(tf.layers.concatenate()).apply([own(tf.ones([2, 3, 4])), own(tf.ones([2, 5, 4]))]),
      /matching shapes/);
    throwsClean((tf, own) => own(tf.layers.add()).apply([own(tf.ones([2, 3]))]), /at least 2 inputs/);
  });

  it('setWeights with the wrong count or shape', () => {
    throwsClean((tf, own) => {
      const layer = own(tf.layers.dense({ units: 2 }));
      layer.build([null, 3]);
      layer.setWeights([own(tf.zeros([3, 2]))]);
    }, /expecting 2 weights/);
    throwsClean((tf, own) => {
      const layer = own(tf.layers.dense({ units: 2 }));
      layer.build([null, 3]);
      layer.setWeights([own(tf.zeros([2, 3])), own(tf.zeros([2]))]);
    }, /not compatible/);
  });

  it('applying a disposed layer', () => {
    const before = tt.memory().numTensors;
    const layer = tt.layers.dense({ units: 2 });
    const x = tt.ones([1, 3]);
    tt.dispose(layer.apply(x));
    layer.dispose();
    assert.throws(() => layer.apply(x), /disposed/);
    x.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('reshape with two -1 or a wrong size; permute with a bad dims', () => {
    throwsClean((tf, own) => own(tf.layers.reshape({ targetShape: [-1, -1] })).apply(own(tf.ones([2, 4]))), /unknown dimension/);
    throwsClean((tf, own) => own(tf.layers.reshape({ targetShape: [3] })).apply(own(tf.ones([2, 4]))), /size/);
    throwsClean((tf) => tf.layers.permute({ dims: [0, 1] }), /dims/);
  });
});

describe('initializer, regularizer and constraint apply (tfjs\'s public API)', () => {
  const snap = (lib, t) => {
    const out = { shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync()) };
    lib.dispose(t);
    return out;
  };
  const close = (got, want, what) => {
    assert.deepEqual([got.shape, got.dtype], [want.shape, want.dtype], what);
    want.values.forEach((w, i) => assert.ok(Math.abs(got.values[i] - w) <= 1e-5 * Math.max(1, Math.abs(w)),
      `${what}[${i}]: ${got.values[i]} vs ${w}`));
  };

  it('initializers give tfjs\'s values (seeded ones too), for each dtype tfjs takes', () => {
    const before = tt.memory().numTensors;
    for (const [name, args, shape, dtype] of [
      ['zeros', undefined, [2, 2]], ['ones', undefined, [3], 'int32'], ['constant', { value: 3 }, [2], 'int32'],
      ['identity', { gain: 2 }, [2, 2]], ['randomNormal', { seed: 1, mean: 1 }, [4]],
      ['randomUniform', { seed: 9, minval: -2, maxval: 2 }, [3]], ['truncatedNormal', { seed: 3, stddev: 2 }, [5]],
      ['glorotUniform', { seed: 7 }, [2, 3]], ['glorotNormal', { seed: 8 }, [3, 2]], ['heNormal', { seed: 5 }, [3, 2]],
      ['heUniform', { seed: 4 }, [2, 2]], ['leCunNormal', { seed: 6 }, [4, 1]], ['leCunUniform', { seed: 2 }, [1, 4]],
      ['orthogonal', { seed: 2 }, [2, 2]], ['varianceScaling', { seed: 1, scale: 2, mode: 'fanOut' }, [3, 3]],
    ]) {
      const got = snap(tt, tt.initializers[name](args).apply(shape, dtype));
      const want = snap(tfo, tfo.initializers[name](args).apply(shape, dtype));
      close(got, want, `${name}(${JSON.stringify(args)}).apply([${shape}], ${dtype})`);
    }
    assert.equal(tt.memory().numTensors, before);
  });

  it('regularizers give tfjs\'s penalties and constraints its projections, leaving only the result', () => {
    const values = [[1, -2], [3, 0.5]];
    const x = tt.tensor(values);
    const xo = tfo.tensor(values);
    const before = tt.memory().numTensors;
    for (const [name, args] of [['l1', { l1: 0.1 }], ['l2', { l2: 0.3 }], ['l1l2', { l1: 0.2, l2: 0.5 }], ['l1l2', undefined]]) {
      close(snap(tt, tt.regularizers[name](args).apply(x)), snap(tfo, tfo.regularizers[name](args).apply(xo)), name);
    }
    for (const [name, args] of [['maxNorm', { maxValue: 1 }], ['unitNorm', { axis: 1 }], ['nonNeg', undefined],
      ['minMaxNorm', { minValue: 0.5, maxValue: 1, axis: 1 }]]) {
      close(snap(tt, tt.constraints[name](args).apply(x)), snap(tfo, tfo.constraints[name](args).apply(xo)), name);
    }
    assert.equal(tt.memory().numTensors, before);
    // A TensorLike is taken as tfjs's ops take it; anything else gets convertToTensor's text.
    close(snap(tt, tt.regularizers.l2().apply([1, 2])), snap(tfo, tfo.regularizers.l2().apply([1, 2])), 'l2 of [1, 2]');
    assert.throws(() => tt.regularizers.l2().apply(null),
      { message: "Argument 'x' passed to 'apply' must be a Tensor or TensorLike, but got 'null'" });
    assert.equal(tt.memory().numTensors, before);
    tt.dispose(x);
    tfo.dispose(xo);
  });
});
