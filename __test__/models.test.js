'use strict';
// Differential tests of the models API (tf.sequential, tf.model, LayersModel and the training
// callbacks): the same model is built on @tensorflow/tfjs and on tidytensor, tidytensor's
// weights are copied from tfjs's, and both are trained / evaluated / run the same way. Fit
// histories, final weights, evaluate / predict / trainOnBatch values, callback sequences,
// summary() lines and dispose() results must agree; nothing may leak on tidytensor.
const { it, describe } = require('node:test');
const { tt, tfo, assert, counts } = require('./helpers/setup');

// ---- helpers -------------------------------------------------------------------------------

// Deterministic values in [-scale, scale) (an LCG), the same on both libraries.
function rand(n, seed = 1, scale = 1) {
  let s = (seed * 2654435761) >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s / 4294967296) * 2 - 1) * scale;
  }
  return out;
}

// One-hot labels (float32) of `classes` classes for `n` samples.
const labelsOf = (n, classes, k = 7) => Array.from({ length: n }, (_, i) => (i * k + (i >> 2)) % classes);
const oneHot = (tf, labels, classes) => tf.tidy(() => tf.oneHot(tf.tensor1d(labels, 'int32'), classes).toFloat());

// Every tensor in a (nested) array / object of data.
function tensorsIn(x, out = []) {
  if (x == null) return out;
  if (x instanceof tt.Tensor || x instanceof tfo.Tensor) out.push(x);
  else if (Array.isArray(x)) x.forEach((v) => tensorsIn(v, out));
  else if (typeof x === 'object') Object.values(x).forEach((v) => tensorsIn(v, out));
  return out;
}

function closeArrays(got, want, tol, path) {
  assert.equal(got.length, want.length, `${path}: length`);
  for (let i = 0; i < want.length; i++) {
    const diff = Math.abs(got[i] - want[i]);
    assert.ok(diff <= tol * Math.max(1, Math.abs(want[i])), `${path}[${i}]: got ${got[i]}, expected ${want[i]} (tolerance ${tol})`);
  }
}

// The values of a Scalar or an array of Scalars (disposed), as numbers.
const scalars = (tf, s) => {
  const list = Array.isArray(s) ? s : [s];
  const v = list.map((t) => t.dataSync()[0]);
  tf.dispose(list);
  return v;
};
// A tensor's values (the tensor disposed).
const read = (tf, t) => {
  const v = Array.from(t.dataSync());
  t.dispose();
  return v;
};

const valuesOf = (ws) => ws.map((w) => ({ shape: w.shape.slice(), values: Array.from(w.dataSync()) }));

function sameValues(got, want, tol, path) {
  assert.equal(got.length, want.length, `${path}: count`);
  want.forEach((w, i) => {
    assert.deepEqual(got[i].shape, w.shape, `${path}[${i}]: shape`);
    closeArrays(got[i].values, w.values, tol, `${path}[${i}]`);
  });
}

function sameHistory(got, want, tol = 1e-4) {
  assert.deepEqual(got.epoch, want.epoch, 'history.epoch');
  assert.deepEqual(Object.keys(got.history).sort(), Object.keys(want.history).sort(), 'history keys');
  for (const k of Object.keys(want.history)) closeArrays(got.history[k], want.history[k], tol, `history.${k}`);
}

// Builds the model on tfjs, then on tidytensor with tfjs's initial weights, compiles each with
// `compile(tf)`, makes `data(tf)` and runs `run(tf, model, data)`; disposes the data, the model
// and a given optimizer. Returns [tfjs's result, tidytensor's result] and checks that nothing
// was left on tidytensor.
async function onBoth({ build, compile, data, run }) {
  const results = [];
  let initial = null;
  for (const tf of [tfo, tt]) {
    const before = counts(tf);
    const model = build(tf);
    if (tf === tfo) {
      initial = valuesOf(model.getWeights());
    } else {
      const ws = initial.map((w) => tt.tensor(w.values, w.shape));
      model.setWeights(ws);
      tt.dispose(ws);
    }
    const config = compile ? compile(tf) : null;
    if (config) model.compile(config);
    const d = data ? data(tf) : {};
    try {
      results.push(await run(tf, model, d));
    } finally {
      tf.dispose(tensorsIn(d));
      model.dispose();
      if (config && typeof config.optimizer === 'object') config.optimizer.dispose();
    }
    if (tf === tt) assert.deepEqual(counts(tt), before, 'tidytensor memory after the model and its data are disposed');
  }
  return results;
}

// fit on both; compares history (every key, every epoch), the final weights and `after`.
async function fitCase({ build, compile, data, fit, tol = 1e-4, after }) {
  const [want, got] = await onBoth({
    build,
    compile,
    data,
    run: async (tf, model, d) => {
      const h = await model.fit(d.x, d.y, { shuffle: false, verbose: 0, ...fit(tf, d) });
      const out = { epoch: h.epoch.slice(), history: JSON.parse(JSON.stringify(h.history)), weights: valuesOf(model.getWeights()) };
      if (after) out.after = await after(tf, model, d);
      return out;
    },
  });
  sameHistory(got, want, tol);
  sameValues(got.weights, want.weights, tol, 'final weights');
  if (after) assert.deepEqual(Object.keys(got.after), Object.keys(want.after));
  if (after) for (const k of Object.keys(want.after)) closeArrays(got.after[k], want.after[k], tol, k);
  return [want, got];
}

// ---- models ----------------------------------------------------------------------------------

// The seed MLP, scaled down: dense relu with an l2 kernel regularizer, then dense softmax.
const mlp = (tf) => tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [12], units: 8, activation: 'relu', kernelRegularizer: tf.regularizers.l2({ l2: 0.01 }) }),
    tf.layers.dense({ units: 4, activation: 'softmax' }),
  ],
});
const mlpData = (n = 22) => (tf) => ({ x: tf.tensor2d(rand(n * 12, 3), [n, 12]), y: oneHot(tf, labelsOf(n, 4), 4) });
const cce = (opt) => (tf) => ({ optimizer: opt(tf), loss: 'categoricalCrossentropy', metrics: ['accuracy'] });

const regression = (tf) => tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [5], units: 6, activation: 'tanh' }),
    tf.layers.dense({ units: 2 }),
  ],
});
const regressionData = (n = 17) => (tf) => {
  const x = rand(n * 5, 11);
  const y = new Float32Array(n * 2);
  for (let i = 0; i < n; i++) {
    y[2 * i] = x[5 * i] - 0.5 * x[5 * i + 1] + 0.3;
    y[2 * i + 1] = x[5 * i + 2] * x[5 * i + 3];
  }
  return { x: tf.tensor2d(x, [n, 5]), y: tf.tensor2d(y, [n, 2]) };
};

const binary = (tf) => tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [4], units: 5, activation: 'relu' }),
    tf.layers.dense({ units: 1, activation: 'sigmoid' }),
  ],
});
const binaryData = (n = 18) => (tf) => {
  const x = rand(n * 4, 5);
  const y = Array.from({ length: n }, (_, i) => (x[4 * i] + x[4 * i + 1] > 0 ? 1 : 0));
  return { x: tf.tensor2d(x, [n, 4]), y: tf.tensor2d(y, [n, 1]) };
};

const sparse = (tf) => tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [6], units: 7, activation: 'relu' }),
    tf.layers.dense({ units: 3, activation: 'softmax' }),
  ],
});
const sparseData = (n = 14) => (tf) => ({
  x: tf.tensor2d(rand(n * 6, 9), [n, 6]),
  y: tf.tensor2d(labelsOf(n, 3), [n, 1]),
});

const cnn = (tf) => tf.sequential({
  layers: [
    tf.layers.conv2d({ inputShape: [6, 6, 2], filters: 3, kernelSize: 3, activation: 'relu' }),
    tf.layers.maxPooling2d({ poolSize: 2 }),
    tf.layers.flatten(),
    tf.layers.dense({ units: 3, activation: 'softmax' }),
  ],
});
const cnnData = (n = 7) => (tf) => ({ x: tf.tensor4d(rand(n * 72, 21), [n, 6, 6, 2]), y: oneHot(tf, labelsOf(n, 3), 3) });

const lstm = (tf) => tf.sequential({
  layers: [
    tf.layers.lstm({ inputShape: [4, 3], units: 5 }),
    tf.layers.dense({ units: 2 }),
  ],
});
const lstmData = (n = 9) => (tf) => ({ x: tf.tensor3d(rand(n * 12, 31), [n, 4, 3]), y: tf.tensor2d(rand(n * 2, 32), [n, 2]) });

const bnDropout = (tf) => tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [6], units: 8, activation: 'relu' }),
    tf.layers.batchNormalization(),
    tf.layers.dropout({ rate: 0 }),
    tf.layers.dense({ units: 3, activation: 'softmax' }),
  ],
});

const sgd = (lr = 0.1) => (tf) => tf.train.sgd(lr);
const adam = (lr = 0.01) => (tf) => tf.train.adam(lr);

// ---- fit ---------------------------------------------------------------------------------------

describe('fit: histories and final weights as tfjs', () => {
  it('MLP (l2, softmax, categoricalCrossentropy, accuracy), sgd, batch 5 of 22, validationSplit', () => fitCase({
    build: mlp, compile: cce(sgd(0.2)), data: mlpData(22), fit: () => ({ epochs: 3, batchSize: 5, validationSplit: 0.25 }),
  }));

  it('MLP, adam, validationData, default batch size', () => fitCase({
    build: mlp,
    compile: cce(adam(0.02)),
    data: (tf) => ({ ...mlpData(40)(tf), vx: tf.tensor2d(rand(9 * 12, 77), [9, 12]), vy: oneHot(tf, labelsOf(9, 4, 3), 4) }),
    fit: (tf, d) => ({ epochs: 3, validationData: [d.vx, d.vy] }),
    after: (tf, model, d) => ({ evaluate: scalars(tf, model.evaluate(d.x, d.y)) }),
  }));

  it('regression: meanSquaredError, metrics mse and mae, sgd, batch 4 of 17', () => fitCase({
    build: regression,
    compile: (tf) => ({ optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError', metrics: ['mse', 'mae'] }),
    data: regressionData(17),
    fit: () => ({ epochs: 4, batchSize: 4 }),
  }));

  it('regression with validationData, adam', () => fitCase({
    build: regression,
    compile: (tf) => ({ optimizer: tf.train.adam(0.05), loss: 'meanSquaredError', metrics: ['mae'] }),
    data: (tf) => {
      const d = regressionData(20)(tf);
      return { ...d, vx: d.x.slice([14, 0], [6, 5]), vy: d.y.slice([14, 0], [6, 2]) };
    },
    fit: (tf, d) => ({ epochs: 3, batchSize: 6, validationData: [d.vx, d.vy] }),
  }));

  it('binaryCrossentropy with a sigmoid output: accuracy is binary accuracy (acc)', async () => {
    const [want] = await fitCase({
      build: binary,
      compile: (tf) => ({ optimizer: tf.train.adam(0.05), loss: 'binaryCrossentropy', metrics: ['accuracy'] }),
      data: binaryData(18),
      fit: () => ({ epochs: 4, batchSize: 5, validationSplit: 0.2 }),
    });
    assert.deepEqual(Object.keys(want.history).sort(), ['acc', 'loss', 'val_acc', 'val_loss']);
  });

  // tfjs's sparseCategoricalCrossentropy floors the labels, which must then be float32 there.
  it('sparseCategoricalCrossentropy with integer labels and accuracy, sgd, batch 4 of 14', () => fitCase({
    build: sparse,
    compile: (tf) => ({ optimizer: tf.train.sgd(0.3), loss: 'sparseCategoricalCrossentropy', metrics: ['accuracy'] }),
    data: sparseData(14),
    fit: () => ({ epochs: 3, batchSize: 4, validationSplit: 0.3 }),
  }));

  it('sparseCategoricalCrossentropy refuses int32 labels as tfjs does, leaking nothing', async () => {
    const errors = [];
    for (const tf of [tfo, tt]) {
      const before = counts(tf);
      const model = sparse(tf);
      const opt = tf.train.sgd(0.3);
      model.compile({ optimizer: opt, loss: 'sparseCategoricalCrossentropy', metrics: ['accuracy'] });
      const x = tf.tensor2d(rand(8 * 6, 9), [8, 6]);
      const y = tf.tensor2d(labelsOf(8, 3), [8, 1], 'int32');
      await assert.rejects(model.fit(x, y, { epochs: 1, batchSize: 4, verbose: 0 }), (e) => { errors.push(e.message); return true; });
      tf.dispose([x, y]);
      model.dispose();
      opt.dispose();
      if (tf === tt) assert.deepEqual(counts(tt), before);
    }
    assert.equal(errors[1], errors[0]);
  });

  it('CNN: conv2d + maxPooling2d + flatten + dense, sgd, batch 3 of 7', () => fitCase({
    build: cnn, compile: cce(sgd(0.1)), data: cnnData(7), fit: () => ({ epochs: 2, batchSize: 3 }),
  }));

  it('LSTM + dense, meanSquaredError, adam, batch 4 of 9', () => fitCase({
    build: lstm,
    compile: (tf) => ({ optimizer: tf.train.adam(0.02), loss: 'meanSquaredError' }),
    data: lstmData(9),
    fit: () => ({ epochs: 2, batchSize: 4 }),
  }));

  it('batchNormalization + dropout(0): moving statistics follow tfjs', () => fitCase({
    build: bnDropout,
    compile: cce(sgd(0.1)),
    data: (tf) => ({ x: tf.tensor2d(rand(13 * 6, 41, 2), [13, 6]), y: oneHot(tf, labelsOf(13, 3), 3) }),
    fit: () => ({ epochs: 3, batchSize: 5, validationSplit: 0.2 }),
    after: (tf, model, d) => ({ predict: read(tf, model.predict(d.x)) }),
  }));

  it('initialEpoch: epochs counted from it', async () => {
    const [want] = await fitCase({ build: mlp, compile: cce(sgd(0.1)), data: mlpData(10), fit: () => ({ epochs: 4, initialEpoch: 2, batchSize: 4 }) });
    assert.deepEqual(want.epoch, [2, 3]);
  });

  it('classWeight weighs the loss per class', () => fitCase({
    build: mlp,
    compile: cce(sgd(0.2)),
    data: mlpData(16),
    fit: () => ({ epochs: 3, batchSize: 6, classWeight: { 0: 1, 1: 3, 2: 0.5, 3: 2 } }),
  }));

  it('classWeight with binary labels', () => fitCase({
    build: binary,
    compile: (tf) => ({ optimizer: tf.train.sgd(0.2), loss: 'binaryCrossentropy', metrics: ['accuracy'] }),
    data: binaryData(12),
    fit: () => ({ epochs: 2, batchSize: 5, classWeight: { 0: 0.3, 1: 2 } }),
  }));

  it('a string optimizer (\'adam\') with its tfjs defaults', () => fitCase({
    build: mlp, compile: (tf) => ({ optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy'] }), data: mlpData(12), fit: () => ({ epochs: 2, batchSize: 5 }),
  }));

  it('a second fit continues from the first (optimizer state kept)', () => fitCase({
    build: mlp,
    compile: cce(adam(0.02)),
    data: mlpData(12),
    fit: () => ({ epochs: 1, batchSize: 5 }),
    after: async (tf, model, d) => {
      const h = await model.fit(d.x, d.y, { epochs: 2, batchSize: 5, shuffle: false, verbose: 0 });
      return { loss: h.history.loss, acc: h.history.acc, w: Array.from(model.getWeights()[0].dataSync()) };
    },
  }));

  it('history keys are in tfjs\'s order (val_* first)', async () => {
    const [want, got] = await fitCase({ build: mlp, compile: cce(sgd(0.1)), data: mlpData(10), fit: () => ({ epochs: 1, batchSize: 4, validationSplit: 0.2 }) });
    assert.deepEqual(Object.keys(got.history), Object.keys(want.history));
  });

  it('a frozen layer (trainable = false): weights reordered trainable-first, the frozen kernel unchanged', () => fitCase({
    build: (tf) => {
      const m = mlp(tf);
      m.layers[0].trainable = false;
      return m;
    },
    compile: cce(sgd(0.3)),
    data: mlpData(10),
    fit: () => ({ epochs: 2, batchSize: 4 }),
  }));

  it('every optimizer by name, with tfjs\'s defaults', async () => {
    for (const optimizer of ['sgd', 'adam', 'adagrad', 'adadelta', 'adamax', 'rmsprop']) {
      await fitCase({
        build: sparse,
        compile: () => ({ optimizer, loss: 'sparseCategoricalCrossentropy', metrics: ['acc'] }),
        data: sparseData(9),
        fit: () => ({ epochs: 2, batchSize: 4 }),
      });
    }
  });

  it('metrics by name and as functions; a loss function; crossentropy / ce', async () => {
    const cases = [
      [binary, binaryData(10), (tf) => ({ loss: 'binaryCrossentropy', metrics: ['binaryAccuracy', 'precision', 'mse'] })],
      [binary, binaryData(10), (tf) => ({ loss: 'binaryCrossentropy', metrics: [tf.metrics.binaryAccuracy, tf.metrics.precision] })],
      [binary, binaryData(10), (tf) => ({ loss: 'meanSquaredError', metrics: ['accuracy', 'crossentropy'] })],
      [sparse, (tf) => ({ x: tf.tensor2d(rand(60, 4), [10, 6]), y: oneHot(tf, labelsOf(10, 3), 3) }),
        (tf) => ({ loss: 'categoricalCrossentropy', metrics: ['categoricalAccuracy', 'categoricalCrossentropy', 'ce'] })],
      [sparse, (tf) => ({ x: tf.tensor2d(rand(60, 4), [10, 6]), y: oneHot(tf, labelsOf(10, 3), 3) }),
        (tf) => ({ loss: 'categoricalHinge', metrics: ['mape', 'cosine'] })],
      [regression, regressionData(8), (tf) => ({ loss: tf.losses.meanSquaredError, metrics: ['MAE'] })],
    ];
    for (const [build, data, config] of cases) {
      await fitCase({ build, data, compile: (tf) => ({ optimizer: tf.train.sgd(0.1), ...config(tf) }), fit: () => ({ epochs: 2, batchSize: 4 }) });
    }
  });

  it('the same metric twice gets suffixed names', () => fitCase({
    build: sparse,
    compile: (tf) => ({ optimizer: tf.train.sgd(0.1), loss: 'categoricalCrossentropy', metrics: ['categoricalAccuracy', tf.metrics.categoricalAccuracy] }),
    data: (tf) => ({ x: tf.tensor2d(rand(60, 4), [10, 6]), y: oneHot(tf, labelsOf(10, 3), 3) }),
    fit: () => ({ epochs: 1, batchSize: 4 }),
  }));

  it('epochs: 0 trains nothing', async () => {
    const [want] = await fitCase({ build: mlp, compile: cce(sgd()), data: mlpData(6), fit: () => ({ epochs: 0 }) });
    assert.deepEqual(want.epoch, []);
  });

  it('classWeight without every class in the data: tfjs\'s error', async () => {
    const [want, got] = await errorsOf(mlp, async (tf, model) => {
      const d = mlpData(8)(tf);
      try {
        await model.fit(d.x, d.y, { epochs: 1, verbose: 0, shuffle: false, classWeight: { 0: 1, 2: 3 } });
      } finally {
        tf.dispose([d.x, d.y]);
      }
    }, (tf) => ({ optimizer: 'sgd', loss: 'categoricalCrossentropy' }));
    assert.equal(got, want);
  });

  it('classWeight is checked before training starts: a rejected fit trains nothing', async () => {
    const [want, got] = await onBoth({
      build: mlp,
      compile: cce(sgd(0.3)),
      data: (tf) => ({ x: tf.tensor2d(rand(6 * 12, 3), [6, 12]), y: oneHot(tf, [0, 0, 2, 2, 1, 0], 4) }),
      run: async (tf, model, d) => {
        const events = [];
        const w0 = valuesOf(model.getWeights());
        let message = null;
        try {
          await model.fit(d.x, d.y, {
            epochs: 1, batchSize: 2, shuffle: false, verbose: 0, classWeight: { 0: 1, 2: 3, 3: 1 },
            callbacks: { onTrainBegin: () => { events.push('onTrainBegin'); }, onBatchEnd: (b) => { events.push(b); } },
          });
        } catch (e) {
          message = e.message;
        }
        return { message, events, w0, w1: valuesOf(model.getWeights()) };
      },
    });
    assert.equal(got.message, want.message);
    assert.deepEqual(want.events, []);
    assert.deepEqual(got.events, want.events);
    sameValues(got.w1, got.w0, 0, 'weights unchanged');
  });

  // tfjs shuffles with Math.random (util.shuffle, after onEpochBegin), as tidytensor does: with
  // the same random numbers in an epoch, both take the samples in the same order.
  const seededShuffle = (epochs) => () => {
    let state = 0;
    return {
      epochs,
      batchSize: 3,
      shuffle: true,
      callbacks: {
        onTrainBegin: () => {
          Math.random = () => {
            state = (state * 1103515245 + 12345) % 2147483648;
            return state / 2147483648;
          };
        },
        onEpochBegin: () => { state = 7; },
      },
    };
  };
  // Runs `fn` and puts Math.random back, whatever happens.
  const keepingRandom = async (fn) => {
    const real = Math.random;
    try {
      return await fn();
    } finally {
      Math.random = real;
    }
  };

  it('shuffle: true takes tfjs\'s order for the same Math.random numbers (one epoch)', () => keepingRandom(() => fitCase({
    build: mlp, compile: cce(sgd(0.3)), data: mlpData(10), fit: seededShuffle(1),
  })));

  it('shuffle: true over several epochs with a seeded Math.random follows tfjs', () => keepingRandom(() => fitCase({
    build: mlp, compile: cce(sgd(0.3)), data: mlpData(10), fit: seededShuffle(3),
  })));

  it('shuffle: true still trains (values differ by order, the shape of the history does not)', async () => {
    const before = counts(tt);
    const model = mlp(tt);
    model.compile({ optimizer: tt.train.sgd(0.1), loss: 'categoricalCrossentropy', metrics: ['accuracy'] });
    const d = mlpData(12)(tt);
    const h = await model.fit(d.x, d.y, { epochs: 2, batchSize: 5, verbose: 0 });
    assert.deepEqual(h.epoch, [0, 1]);
    assert.deepEqual(Object.keys(h.history).sort(), ['acc', 'loss']);
    assert.ok(h.history.loss.every(Number.isFinite));
    tt.dispose([d.x, d.y]);
    model.optimizer.dispose();
    model.dispose();
    assert.deepEqual(counts(tt), before);
  });
});

// ---- evaluate, predict, predictOnBatch, trainOnBatch -----------------------------------------

// A Scalar or a list of Scalars as {scalar, values}: evaluate's return shape, compared as data.
function evalResult(tf, r) {
  const list = Array.isArray(r) ? r : [r];
  for (const s of list) assert.ok(s instanceof tf.Tensor && s.rank === 0, 'evaluate returns Scalars');
  return { array: Array.isArray(r), values: scalars(tf, r) };
}

function sameEval(got, want, tol = 1e-5) {
  assert.equal(got.array, want.array, 'a Scalar or an array of Scalars');
  closeArrays(got.values, want.values, tol, 'evaluate');
}

describe('evaluate, predict, predictOnBatch, trainOnBatch as tfjs', () => {
  it('evaluate: an array of Scalars with metrics, the loss without the l2 penalty, batchSize 3 of 10', async () => {
    const [want, got] = await onBoth({
      build: mlp,
      compile: cce(sgd()),
      data: mlpData(10),
      run: (tf, model, d) => ({
        batched: evalResult(tf, model.evaluate(d.x, d.y, { batchSize: 3 })),
        whole: evalResult(tf, model.evaluate(d.x, d.y)),
      }),
    });
    sameEval(got.batched, want.batched);
    sameEval(got.whole, want.whole);
  });

  it('evaluate\'s loss is the data loss alone (the l2 penalty left out), fit\'s includes it', async () => {
    const [, got] = await onBoth({
      build: mlp,
      compile: cce(sgd(0)),
      data: mlpData(10),
      run: async (tf, model, d) => {
        const evaluated = scalars(tf, model.evaluate(d.x, d.y))[0];
        const crossentropy = tf.tidy(() => tf.metrics.categoricalCrossentropy(d.y, model.predict(d.x)).mean().dataSync()[0]);
        const kernel = model.getWeights()[0];
        const penalty = tf.tidy(() => kernel.square().sum().mul(0.01).dataSync()[0]);
        const h = await model.fit(d.x, d.y, { epochs: 1, batchSize: 10, verbose: 0 });
        return { evaluated, crossentropy, penalty, fitted: h.history.loss[0] };
      },
    });
    closeArrays([got.evaluated], [got.crossentropy], 1e-5, 'evaluate');
    assert.ok(got.penalty > 1e-3);
    closeArrays([got.fitted], [got.crossentropy + got.penalty], 1e-5, 'fit (learning rate 0)');
  });

  it('evaluate: one Scalar without metrics', async () => {
    const [want, got] = await onBoth({
      build: regression,
      compile: (tf) => ({ optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError' }),
      data: regressionData(9),
      run: (tf, model, d) => evalResult(tf, model.evaluate(d.x, d.y, { batchSize: 4 })),
    });
    sameEval(got, want);
  });

  it('evaluate: sparse and binary losses with accuracy', async () => {
    for (const [build, loss, data] of [[sparse, 'sparseCategoricalCrossentropy', sparseData(10)], [binary, 'binaryCrossentropy', binaryData(11)]]) {
      const [want, got] = await onBoth({
        build,
        compile: (tf) => ({ optimizer: tf.train.sgd(0.1), loss, metrics: ['accuracy'] }),
        data,
        run: (tf, model, d) => evalResult(tf, model.evaluate(d.x, d.y, { batchSize: 4 })),
      });
      sameEval(got, want);
    }
  });

  it('predict with batchSize smaller than the sample count, and predictOnBatch', async () => {
    const dropout = (tf) => tf.sequential({ layers: [tf.layers.dense({ inputShape: [12], units: 6 }), tf.layers.dropout({ rate: 0.5 }), tf.layers.dense({ units: 2 })] });
    for (const [build, data] of [[mlp, mlpData(10)], [cnn, cnnData(5)], [lstm, lstmData(7)], [bnDropout, (tf) => ({ x: tf.tensor2d(rand(30, 8), [5, 6]) })], [dropout, mlpData(6)]]) {
      const [want, got] = await onBoth({
        build,
        data,
        run: (tf, model, d) => {
          const p = model.predict(d.x, { batchSize: 3 });
          const q = model.predictOnBatch(d.x);
          const out = { shape: p.shape, dtype: p.dtype, p: read(tf, p), q: read(tf, q) };
          return out;
        },
      });
      assert.deepEqual(got.shape, want.shape);
      assert.equal(got.dtype, want.dtype);
      closeArrays(got.p, want.p, 1e-5, 'predict');
      closeArrays(got.q, want.q, 1e-5, 'predictOnBatch');
    }
  });

  it('trainOnBatch returns the loss and metrics (numbers), and trains as tfjs', async () => {
    const [want, got] = await onBoth({
      build: mlp,
      compile: cce(adam(0.05)),
      data: mlpData(8),
      run: async (tf, model, d) => {
        const steps = [];
        for (let i = 0; i < 3; i++) steps.push(await model.trainOnBatch(d.x, d.y));
        return { steps, weights: valuesOf(model.getWeights()) };
      },
    });
    assert.ok(want.steps.every((s) => Array.isArray(s) && s.every((v) => typeof v === 'number')));
    assert.ok(got.steps.every((s) => Array.isArray(s) && s.every((v) => typeof v === 'number')), 'numbers');
    want.steps.forEach((s, i) => closeArrays(got.steps[i], s, 1e-4, `step ${i}`));
    sameValues(got.weights, want.weights, 1e-4, 'weights');
  });

  it('trainOnBatch without metrics returns one number', async () => {
    const [want, got] = await onBoth({
      build: regression,
      compile: (tf) => ({ optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError' }),
      data: regressionData(6),
      run: async (tf, model, d) => [await model.trainOnBatch(d.x, d.y), await model.trainOnBatch(d.x, d.y)],
    });
    assert.equal(typeof got[0], 'number');
    closeArrays(got, want, 1e-5, 'losses');
  });
});

// ---- the functional API ------------------------------------------------------------------------

// Two inputs; input a branches into two dense layers merged by add, input b through a dense
// layer; both concatenated into a softmax.
const twoInputs = (tf) => {
  const a = tf.input({ shape: [4] });
  const b = tf.input({ shape: [3] });
  const h1 = tf.layers.dense({ units: 5, activation: 'relu' }).apply(a);
  const h2 = tf.layers.dense({ units: 5, activation: 'tanh' }).apply(a);
  const sum = tf.layers.add().apply([h1, h2]);
  const hb = tf.layers.dense({ units: 3, activation: 'relu' }).apply(b);
  const cat = tf.layers.concatenate().apply([sum, hb]);
  const out = tf.layers.dense({ units: 3, activation: 'softmax' }).apply(cat);
  return tf.model({ inputs: [a, b], outputs: out });
};
const twoInputsData = (n = 11) => (tf) => ({
  x: [tf.tensor2d(rand(n * 4, 51), [n, 4]), tf.tensor2d(rand(n * 3, 52), [n, 3])],
  y: oneHot(tf, labelsOf(n, 3), 3),
});

// One input, two outputs (a softmax classifier and a regression head).
const twoOutputs = (tf) => {
  const a = tf.input({ shape: [4] });
  const h = tf.layers.dense({ units: 6, activation: 'relu' }).apply(a);
  const cls = tf.layers.dense({ units: 3, activation: 'softmax', name: 'cls' }).apply(h);
  const reg = tf.layers.dense({ units: 1, name: 'reg' }).apply(h);
  return tf.model({ inputs: a, outputs: [cls, reg] });
};
const twoOutputsData = (n = 10) => (tf) => ({
  x: tf.tensor2d(rand(n * 4, 61), [n, 4]),
  y: [oneHot(tf, labelsOf(n, 3), 3), tf.tensor2d(rand(n, 62), [n, 1])],
});

describe('the functional API (tf.input, layer.apply, tf.model) as tfjs', () => {
  it('two inputs, a branch, add and concatenate: predict', async () => {
    const [want, got] = await onBoth({
      build: twoInputs,
      data: twoInputsData(11),
      run: (tf, model, d) => ({
        shapes: model.getWeights().map((w) => w.shape),
        p: read(tf, model.predict(d.x, { batchSize: 4 })),
        outputShape: model.outputShape,
        inputNames: model.inputNames.length,
      }),
    });
    assert.deepEqual(got.shapes, want.shapes);
    assert.deepEqual(got.outputShape, want.outputShape);
    assert.equal(got.inputNames, want.inputNames);
    closeArrays(got.p, want.p, 1e-5, 'predict');
  });

  it('two inputs: fit with validationSplit, then evaluate', () => fitCase({
    build: twoInputs,
    compile: cce(sgd(0.2)),
    data: twoInputsData(15),
    fit: () => ({ epochs: 3, batchSize: 4, validationSplit: 0.2 }),
    after: (tf, model, d) => ({ evaluate: scalars(tf, model.evaluate(d.x, d.y, { batchSize: 5 })) }),
  }));

  // tfjs's evaluate (and so its val_* logs) of a multi-output model is off by one: its test
  // function pushes the running total loss once per output, so it returns
  // [loss of output 0, total loss, loss of output 0, loss of output 1, metrics...] for the names
  // [loss, out0_loss, out1_loss, metrics...]. tidytensor returns the Keras values; they are
  // compared with tfjs's values from index 1.
  it('two outputs: metricsNames, fit history (per-output losses and metrics), evaluate, trainOnBatch, predict', async () => {
    const [want, got] = await onBoth({
      build: twoOutputs,
      compile: (tf) => ({ optimizer: tf.train.sgd(0.1), loss: ['categoricalCrossentropy', 'meanSquaredError'], metrics: ['accuracy'] }),
      data: twoOutputsData(10),
      run: async (tf, model, d) => {
        const h = await model.fit(d.x, d.y, { epochs: 2, batchSize: 4, shuffle: false, verbose: 0 });
        return {
          names: model.metricsNames.slice(),
          history: { epoch: h.epoch, history: h.history },
          evaluate: scalars(tf, model.evaluate(d.x, d.y, { batchSize: 3 })),
          step: await model.trainOnBatch(d.x, d.y),
          predict: model.predict(d.x).map((t) => read(tf, t)),
        };
      },
    });
    assert.deepEqual(got.names, want.names);
    assert.deepEqual(got.names, ['loss', 'cls_loss', 'reg_loss', 'cls_acc', 'reg_acc']);
    sameHistory(got.history, want.history);
    assert.equal(want.evaluate.length, 6, 'tfjs\'s extra value');
    closeArrays(got.evaluate, want.evaluate.slice(1), 1e-4, 'evaluate');
    closeArrays([got.evaluate[0]], [got.evaluate[1] + got.evaluate[2]], 1e-5, 'loss = sum of the output losses');
    closeArrays(got.step, want.step, 1e-4, 'trainOnBatch');
    want.predict.forEach((p, i) => closeArrays(got.predict[i], p, 1e-4, `predict[${i}]`));
  });

  it('two outputs: val_* logs are evaluate on the held-out samples', async () => {
    const before = counts(tt);
    const model = twoOutputs(tt);
    const opt = tt.train.sgd(0.1);
    model.compile({ optimizer: opt, loss: ['categoricalCrossentropy', 'meanSquaredError'], metrics: ['accuracy'] });
    const d = twoOutputsData(10)(tt);
    const h = await model.fit(d.x, d.y, { epochs: 1, batchSize: 4, shuffle: false, verbose: 0, validationSplit: 0.2 });
    const vx = d.x.slice([8, 0], [2, 4]);
    const vy = d.y.map((t) => t.slice([8, 0], [2, t.shape[1]]));
    const ev = scalars(tt, model.evaluate(vx, vy));
    tt.dispose([vx, ...vy]);
    const val = model.metricsNames.map((n) => h.history[`val_${n}`][0]);
    // sgd moved the weights after the last batch only, before validation: the same weights.
    closeArrays(val, ev, 1e-5, 'val');
    tt.dispose(tensorsIn(d));
    model.dispose();
    opt.dispose();
    assert.deepEqual(counts(tt), before);
  });
});

// ---- callbacks ---------------------------------------------------------------------------------

// A CustomCallback config that logs every hook with its arguments and the keys of its logs.
function recorder(events) {
  const keys = (logs) => (logs == null ? null : Object.keys(logs).sort());
  return {
    onTrainBegin: (logs) => { events.push(['onTrainBegin', keys(logs)]); },
    onEpochBegin: (epoch, logs) => { events.push(['onEpochBegin', epoch, keys(logs)]); },
    onBatchBegin: (batch, logs) => { events.push(['onBatchBegin', batch, keys(logs)]); },
    onBatchEnd: (batch, logs) => { events.push(['onBatchEnd', batch, keys(logs)]); },
    onEpochEnd: (epoch, logs) => { events.push(['onEpochEnd', epoch, keys(logs)]); },
    onTrainEnd: (logs) => { events.push(['onTrainEnd', keys(logs)]); },
  };
}

// fit with callbacks made by `callbacks(tf, model, events)` on both; returns [tfjs, ours] of
// {events, epoch, history}.
const fitWithCallbacks = (callbacks, fitArgs = {}, { data = mlpData(10), compile = cce(sgd(0.1)) } = {}) => onBoth({
  build: mlp,
  compile,
  data,
  run: async (tf, model, d) => {
    const events = [];
    const h = await model.fit(d.x, d.y, { epochs: 2, batchSize: 4, shuffle: false, verbose: 0, callbacks: callbacks(tf, model, events), ...fitArgs });
    return { events, epoch: h.epoch.slice(), history: JSON.parse(JSON.stringify(h.history)) };
  },
});

describe('callbacks as tfjs', () => {
  it('CustomCallback hooks: the same sequence of calls and arguments', async () => {
    const [want, got] = await fitWithCallbacks((tf, model, events) => recorder(events), { validationSplit: 0.2 });
    const calls = (evs) => evs.map((e) => e.slice(0, -1));
    assert.deepEqual(calls(got.events), calls(want.events));
    assert.equal(want.events.length, 2 + 2 * (2 + 2 * 2));
  });

  it('CustomCallback hooks: the same log keys at each call', async () => {
    const [want, got] = await fitWithCallbacks((tf, model, events) => recorder(events), { validationSplit: 0.2 });
    assert.deepEqual(got.events, want.events);
  });

  it('the log keys of onBatchEnd, onEpochEnd, onTrainBegin and onTrainEnd', async () => {
    const [want, got] = await fitWithCallbacks((tf, model, events) => recorder(events), { validationSplit: 0.2 });
    const some = (evs) => evs.filter((e) => e[0] !== 'onBatchBegin');
    assert.deepEqual(some(got.events), some(want.events));
  });

  it('the values of onBatchEnd and onEpochEnd logs', async () => {
    const [want, got] = await fitWithCallbacks((tf, model, events) => ({
      onBatchEnd: (batch, logs) => { events.push(logs.loss, logs.acc, logs.size, logs.batch); },
      onEpochEnd: (epoch, logs) => { events.push(logs.loss, logs.acc, logs.val_loss, logs.val_acc); },
    }), { validationSplit: 0.3, epochs: 2, batchSize: 3 });
    closeArrays(got.events, want.events, 1e-4, 'logs');
  });

  it('a list of callbacks, a tf.CustomCallback, and a tf.Callback subclass (params and model set)', async () => {
    const [want, got] = await fitWithCallbacks((tf, model, events) => {
      class Watcher extends tf.Callback {
        async onTrainBegin() {
          // (tfjs hands a Sequential model's callbacks its inner LayersModel.)
          events.push(['params', { ...this.params }, this.model instanceof tf.LayersModel]);
        }

        async onEpochEnd(epoch, logs) {
          events.push(['watcher epoch', epoch, Object.keys(logs).sort()]);
        }
      }
      return [new Watcher(), new tf.CustomCallback({ onEpochEnd: async (epoch) => { events.push(['custom epoch', epoch]); } })];
    }, { epochs: 2 });
    assert.deepEqual(got.events, want.events);
  });

  it('async hooks are awaited before training goes on', async () => {
    const [want, got] = await fitWithCallbacks((tf, model, events) => {
      const later = (tag) => async (i) => {
        events.push(`${tag} ${i} start`);
        await new Promise((r) => setTimeout(r, 3));
        events.push(`${tag} ${i} end`);
      };
      return { onEpochBegin: later('epochBegin'), onBatchEnd: later('batchEnd'), onEpochEnd: later('epochEnd') };
    });
    assert.deepEqual(got.events, want.events);
    for (let i = 0; i < got.events.length; i += 2) {
      assert.ok(got.events[i].endsWith('start') && got.events[i + 1] === got.events[i].replace('start', 'end'));
    }
  });

  it('model.stopTraining = true in onEpochEnd stops after that epoch', async () => {
    const [want, got] = await fitWithCallbacks((tf, model, events) => ({
      onEpochEnd: (epoch) => {
        events.push(epoch);
        if (epoch === 1) model.stopTraining = true;
      },
    }), { epochs: 5 });
    assert.deepEqual(want.epoch, [0, 1]);
    assert.deepEqual(got.events, want.events);
    sameHistory(got, want);
  });

  it('model.stopTraining = true in onBatchEnd ends the epoch there; its logs average the samples seen', async () => {
    const [want, got] = await fitWithCallbacks((tf, model, events) => ({
      onBatchEnd: (batch) => {
        events.push(batch);
        if (batch === 1) model.stopTraining = true;
      },
    }), { epochs: 3 });
    assert.deepEqual(want.epoch, [0]);
    assert.deepEqual(got.events, want.events);
    sameHistory(got, want);
  });

  it('stopTraining set in onTrainBegin is reset by fit, as in tfjs', async () => {
    const [want, got] = await fitWithCallbacks((tf, model) => ({
      onTrainBegin: () => { model.stopTraining = true; },
    }), { epochs: 3 });
    assert.deepEqual(want.epoch, [0, 1, 2]);
    sameHistory(got, want);
  });

  it('tf.callbacks.earlyStopping({monitor: \'val_loss\', patience: 1}) stops where tfjs does', async () => {
    // Validation labels are shifted, so val_loss rises as the model learns the training set.
    const data = (tf) => {
      const n = 16;
      const x = tf.tensor2d(rand(n * 12, 3), [n, 12]);
      return { x, y: oneHot(tf, labelsOf(n, 4), 4), vx: x.slice([0, 0], [8, 12]), vy: oneHot(tf, labelsOf(8, 4).map((l) => (l + 1) % 4), 4) };
    };
    const [want, got] = await onBoth({
      build: mlp,
      compile: cce(sgd(0.5)),
      data,
      run: async (tf, model, d) => {
        const h = await model.fit(d.x, d.y, {
          epochs: 8, batchSize: 4, shuffle: false, verbose: 0, validationData: [d.vx, d.vy],
          callbacks: tf.callbacks.earlyStopping({ monitor: 'val_loss', patience: 1 }),
        });
        return { epoch: h.epoch.slice(), history: JSON.parse(JSON.stringify(h.history)) };
      },
    });
    assert.ok(want.epoch.length < 8, `tfjs stopped early (${want.epoch})`);
    sameHistory(got, want);
  });

  it('earlyStopping on loss with minDelta and patience 2', async () => {
    const [want, got] = await fitWithCallbacks((tf) => [tf.callbacks.earlyStopping({ monitor: 'loss', minDelta: 10, patience: 2 })], { epochs: 6 });
    assert.deepEqual(want.epoch, [0, 1, 2]);
    sameHistory(got, want);
  });

  it('earlyStopping refuses restoreBestWeights as tfjs does', () => {
    const msgs = [tfo, tt].map((tf) => {
      try {
        tf.callbacks.earlyStopping({ restoreBestWeights: true });
        return null;
      } catch (e) {
        return e.message;
      }
    });
    assert.equal(msgs[1], msgs[0]);
  });
});

// ---- summary -----------------------------------------------------------------------------------

// Layer names' numeric uids replaced by N: dense_Dense12 -> dense_DenseN, conv2d_Conv2D3_input
// -> conv2d_Conv2DN_input.
const withoutUids = (text) => text.replace(/\b([a-z0-9]+_[A-Z][A-Za-z]*?(?:[123]D)?)\d+(?![0-9])/g, '$1N')
  .replace(/\binput\d+\b/g, 'inputN');

// summary() lines of a model; `drop` removes columns [from, to) (character positions);
// `normalise` replaces the layers' numeric uids by N (dense_Dense12 -> dense_DenseN).
function summaryLines(model, { normalise = true, drop = null } = {}) {
  let lines = [];
  model.summary(undefined, undefined, (...args) => lines.push(args.join(' ')));
  if (drop) lines = lines.map((l) => (/^[_=]+$/.test(l) ? l : l.slice(0, drop[0]) + l.slice(drop[1])));
  if (!normalise) return lines;
  // The uid changes a name's length, so spaces are collapsed once it is replaced.
  return lines.map((l) => withoutUids(l).replace(/ {2,}/g, ' ').trimEnd());
}

// The Input Shape column of a Sequential summary: positions 0.32 to 0.61 of 90 characters.
const INPUT_SHAPE_COLUMN = [28, 54];

const namedCnn = (tf) => tf.sequential({
  layers: [
    tf.layers.conv2d({ inputShape: [6, 6, 2], filters: 3, kernelSize: 3, activation: 'relu', name: 'conv' }),
    tf.layers.maxPooling2d({ poolSize: 2, name: 'pool' }),
    tf.layers.flatten({ name: 'flat' }),
    tf.layers.batchNormalization({ name: 'bn' }),
    tf.layers.dense({ units: 3, activation: 'softmax', name: 'out' }),
  ],
});

describe('summary() prints tfjs\'s lines', () => {
  it('Sequential MLP, default names (all but the Input Shape column)', async () => {
    const [want, got] = await onBoth({ build: mlp, run: (tf, model) => summaryLines(model, { drop: INPUT_SHAPE_COLUMN }) });
    assert.deepEqual(got, want);
  });

  it('Sequential with named layers: the same lines, columns and all (but Input Shape)', async () => {
    const [want, got] = await onBoth({ build: namedCnn, run: (tf, model) => summaryLines(model, { normalise: false, drop: INPUT_SHAPE_COLUMN }) });
    assert.deepEqual(got, want);
    assert.equal(got.length, 17);
  });

  it('LSTM model, default names (all but the Input Shape column)', async () => {
    const [want, got] = await onBoth({ build: lstm, run: (tf, model) => summaryLines(model, { drop: INPUT_SHAPE_COLUMN }) });
    assert.deepEqual(got, want);
  });

  it('Sequential: the Input Shape column', async () => {
    const [want, got] = await onBoth({ build: namedCnn, run: (tf, model) => summaryLines(model, { normalise: false }) });
    assert.deepEqual(got, want);
  });

  it('summary() with a lineLength and absolute positions', async () => {
    const [want, got] = await onBoth({
      build: mlp,
      run: (tf, model) => {
        const lines = [];
        model.summary(60, [20, 30, 50, 60], (l) => lines.push(l));
        return lines.map((l) => (/^[_=]+$/.test(l) ? l : l.slice(0, 20) + l.slice(30))).map((l) => withoutUids(l).replace(/ {2,}/g, ' ').trimEnd());
      },
    });
    assert.deepEqual(got, want);
  });

  it('functional model with two inputs', async () => {
    const [want, got] = await onBoth({ build: twoInputs, run: (tf, model) => summaryLines(model) });
    assert.deepEqual(got, want);
  });
});

// ---- errors --------------------------------------------------------------------------------------

// Runs `fn(tf, model)` on a fresh model on both libraries and returns [tfjs's, ours] error
// messages (null when nothing was thrown); checks that tidytensor leaked nothing.
async function errorsOf(build, fn, compile = null) {
  const msgs = [];
  for (const tf of [tfo, tt]) {
    const before = counts(tf);
    const model = build(tf);
    if (compile) model.compile(compile(tf));
    let msg = null;
    try {
      await fn(tf, model);
    } catch (e) {
      msg = e.message;
    }
    msgs.push(msg);
    model.dispose();
    if (tf === tt) assert.deepEqual(counts(tt), before, 'tidytensor memory after the error');
  }
  assert.ok(msgs[0] != null, 'tfjs threw');
  return msgs;
}

const named = (tf) => tf.sequential({
  layers: [tf.layers.dense({ inputShape: [3], units: 2, name: 'first' }), tf.layers.dense({ units: 2, name: 'second' })],
});
const namedFunctional = (tf) => {
  const a = tf.input({ shape: [3], name: 'features' });
  return tf.model({ inputs: a, outputs: tf.layers.dense({ units: 2, name: 'head' }).apply(a) });
};
const mseSgd = (tf) => ({ optimizer: 'sgd', loss: 'meanSquaredError' });
// Calls `f(tf, x, y)` with tensors made from `shapes`, disposing them after.
const withData = (xShape, yShape, f) => async (tf, model) => {
  const x = tf.zeros(xShape);
  const y = tf.zeros(yShape);
  try {
    return await f(tf, model, x, y);
  } finally {
    tf.dispose([x, y]);
  }
};

describe('an optimizer given by name is tfjs-layers\' (class and defaults)', () => {
  it('every name getOptimizer knows', () => {
    for (const name of ['sgd', 'SGD', 'adam', 'Adam', 'adagrad', 'Adagrad', 'adadelta', 'Adadelta', 'adamax', 'Adamax',
      'rmsprop', 'RMSProp']) {
      const [got, want] = [tt, tfo].map((tf) => {
        const m = tf.sequential({ layers: [tf.layers.dense({ units: 1, inputShape: [2] })] });
        m.compile({ optimizer: name, loss: 'meanSquaredError' });
        const r = [m.optimizer.getClassName(), m.optimizer.getConfig()];
        m.dispose();
        return r;
      });
      assert.deepStrictEqual(got, want, name);
    }
  });
});

describe('errors as tfjs, leaking nothing', () => {
  it('an unknown loss', async () => {
    const [want, got] = await errorsOf(named, (tf, model) => model.compile({ optimizer: 'sgd', loss: 'noSuchLoss' }));
    assert.equal(got, want);
  });

  it('an unknown optimizer name', async () => {
    const [want, got] = await errorsOf(named, (tf, model) => model.compile({ optimizer: 'noSuchOptimizer', loss: 'meanSquaredError' }));
    assert.equal(got, want);
  });

  it('fit: batchSize 0; predict: batchSize 0', async () => {
    let [want, got] = await errorsOf(named, withData([2, 3], [2, 2], (tf, m, x, y) => m.fit(x, y, { batchSize: 0, verbose: 0 })), mseSgd);
    assert.equal(got, want);
    [want, got] = await errorsOf(named, withData([2, 3], [2, 2], (tf, m, x) => m.predict(x, { batchSize: 0 })), mseSgd);
    assert.equal(got, want);
  });

  it('fit: different sample counts in x and y', async () => {
    const [want, got] = await errorsOf(named, withData([2, 3], [3, 2], (tf, m, x, y) => m.fit(x, y, { verbose: 0 })), mseSgd);
    assert.equal(got, want);
  });

  it('a failed fit (wrong input shape) rejects and leaks nothing; the model still trains after', async () => {
    const before = counts(tt);
    const model = named(tt);
    model.compile(mseSgd(tt));
    const bad = tt.zeros([4, 5]);
    const x = tt.zeros([4, 3]);
    const y = tt.zeros([4, 2]);
    await assert.rejects(model.fit(bad, y, { epochs: 2, verbose: 0 }), /shape/);
    const h = await model.fit(x, y, { epochs: 1, verbose: 0 });
    assert.equal(h.epoch.length, 1);
    tt.dispose([bad, x, y]);
    model.dispose();
    assert.deepEqual(counts(tt), before);
  });

  it('fit with a wrong input dimension: tfjs\'s text', async () => {
    const [want, got] = await errorsOf(named, withData([4, 5], [4, 2], (tf, m, x, y) => m.fit(x, y, { verbose: 0 })), mseSgd);
    assert.equal(got, want);
  });

  it('predict with a wrong input dimension: tfjs\'s text', async () => {
    const [want, got] = await errorsOf(named, withData([4, 5], [4, 2], (tf, m, x) => m.predict(x)), mseSgd);
    assert.equal(got, want);
  });

  it('fit with a wrong input rank: tfjs\'s text', async () => {
    const [want, got] = await errorsOf(named, withData([4, 3, 1], [4, 2], (tf, m, x, y) => m.fit(x, y, { verbose: 0 })), mseSgd);
    assert.equal(got, want);
  });

  it('evaluate with a wrong target shape: tfjs\'s text', async () => {
    const [want, got] = await errorsOf(named, withData([2, 3], [2, 5], (tf, m, x, y) => m.evaluate(x, y)), mseSgd);
    assert.equal(got, want);
  });

  it('evaluate / fit / trainOnBatch of a functional model before compile', async () => {
    for (const f of [(tf, m, x, y) => m.evaluate(x, y), (tf, m, x, y) => m.fit(x, y, { verbose: 0 }), (tf, m, x, y) => m.trainOnBatch(x, y)]) {
      const [want, got] = await errorsOf(namedFunctional, withData([2, 3], [2, 2], f));
      assert.equal(got, want);
    }
  });

  it('evaluate / fit of a Sequential model before compile', async () => {
    for (const f of [(tf, m, x, y) => m.evaluate(x, y), (tf, m, x, y) => m.fit(x, y, { verbose: 0 })]) {
      const [want, got] = await errorsOf(named, withData([2, 3], [2, 2], f));
      assert.equal(got, want);
    }
  });
});

// ---- the model's surface -----------------------------------------------------------------------

const mlpBn = (tf) => tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [12], units: 8, activation: 'relu', kernelRegularizer: tf.regularizers.l2({ l2: 0.01 }) }),
    tf.layers.batchNormalization(),
    tf.layers.dense({ units: 4, activation: 'softmax' }),
  ],
});

// Layer and model names with their numeric uids replaced by N.
const uidless = (name) => withoutUids(name).replace(/^(sequential_|model)\d+$/, '$1N');

describe('weights, layers and names as tfjs', () => {
  it('weights (names, shapes, trainable), countParams, getLayer, layers, input and output names', async () => {
    const [want, got] = await onBoth({
      build: mlpBn,
      run: (tf, model) => {
        const errors = [];
        for (const f of [() => model.getLayer('nope'), () => model.getLayer(7)]) {
          try {
            f();
          } catch (e) {
            errors.push(e.message);
          }
        }
        return {
          weights: model.weights.map((w) => [uidless(w.name), w.shape, w.trainable]),
          trainable: model.trainableWeights.length,
          nonTrainable: model.nonTrainableWeights.length,
          getWeights: model.getWeights().map((w) => w.shape),
          trainableOnly: model.getWeights(true).map((w) => w.shape),
          countParams: model.countParams(),
          layers: model.layers.map((l) => [uidless(l.name), l.getClassName(), l.countParams()]),
          byIndex: uidless(model.getLayer(undefined, 1).name),
          byName: model.getLayer(model.layers[2].name) === model.layers[2],
          errors,
          inputNames: model.inputNames.map(uidless),
          outputNames: model.outputNames.map(uidless),
          outputShape: model.outputShape,
          className: model.getClassName(),
          name: uidless(model.name),
        };
      },
    });
    assert.deepEqual(got, want);
  });

  it('Sequential model.inputs and model.outputs are symbolic tensors', async () => {
    const [want, got] = await onBoth({ build: mlp, run: (tf, model) => [model.inputs.map((s) => s.shape), model.outputs.map((s) => s.shape)] });
    assert.deepEqual(got, want);
  });

  it('functional model: inputs, outputs, layers', async () => {
    const [want, got] = await onBoth({
      build: twoInputs,
      run: (tf, model) => ({
        inputs: model.inputs.map((s) => s.shape),
        outputs: model.outputs.map((s) => s.shape),
        layers: model.layers.map((l) => l.getClassName()).sort(),
        countParams: model.countParams(),
        className: model.getClassName(),
      }),
    });
    assert.deepEqual(got, want);
  });

  it('setWeights then getWeights round-trips; the given tensors stay the caller\'s', async () => {
    const before = counts(tt);
    const model = mlp(tt);
    const values = model.getWeights().map((w, i) => tt.tensor(rand(w.size, 100 + i), w.shape));
    model.setWeights(values);
    const snap = valuesOf(values);
    tt.dispose(values);
    sameValues(valuesOf(model.getWeights()), snap, 0, 'weights');
    model.dispose();
    assert.deepEqual(counts(tt), before);
  });

  it('dispose twice: tfjs\'s error', async () => {
    const msgs = [];
    for (const tf of [tfo, tt]) {
      const model = named(tf);
      model.dispose();
      let msg = null;
      try {
        model.dispose();
      } catch (e) {
        msg = e.message.replace(/'sequential_\d+'/, '\'sequential_N\'');
      }
      msgs.push(msg);
    }
    assert.equal(msgs[0], 'Container \'sequential_N\' is already disposed.');
    assert.equal(msgs[1], msgs[0]);
  });

  it('predict after dispose: tfjs\'s text', async () => {
    const msgs = [];
    for (const tf of [tfo, tt]) {
      const model = named(tf);
      model.dispose();
      const x = tf.zeros([1, 3]);
      try {
        model.predict(x);
        msgs.push(null);
      } catch (e) {
        msgs.push(e.message);
      }
      x.dispose();
    }
    assert.equal(msgs[1], msgs[0]);
  });
});

// ---- concurrent fit ------------------------------------------------------------------------------

describe('concurrent fit', () => {
  it('a second fit while one runs rejects as in tfjs; the first completes and the model trains again after', async () => {
    const [want, got] = await onBoth({
      build: mlp,
      compile: cce(sgd()),
      data: mlpData(12),
      run: async (tf, model, d) => {
        const first = model.fit(d.x, d.y, { epochs: 2, batchSize: 4, shuffle: false, verbose: 0 });
        let message = null;
        try {
          await model.fit(d.x, d.y, { epochs: 1, verbose: 0 });
        } catch (e) {
          message = e.message;
        }
        const h = await first;
        const again = await model.fit(d.x, d.y, { epochs: 1, batchSize: 4, shuffle: false, verbose: 0 });
        return { message, epoch: h.epoch, loss: h.history.loss, again: again.history.loss };
      },
    });
    assert.equal(want.message, 'Cannot start training because another fit() call is ongoing.');
    assert.equal(got.message, want.message);
    assert.deepEqual(got.epoch, want.epoch);
    closeArrays(got.loss, want.loss, 1e-4, 'first fit');
    closeArrays(got.again, want.again, 1e-4, 'fit after');
  });

  it('isTraining is reset after a rejected fit', async () => {
    const before = counts(tt);
    const model = named(tt);
    model.compile(mseSgd(tt));
    const bad = tt.zeros([2, 7]);
    const y = tt.zeros([2, 2]);
    await assert.rejects(model.fit(bad, y, { verbose: 0 }));
    assert.equal(model.isTraining, false);
    tt.dispose([bad, y]);
    model.dispose();
    assert.deepEqual(counts(tt), before);
  });
});

// ---- memory ----------------------------------------------------------------------------------------

const adamCompile = (tf) => ({ optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy'] });

describe('memory', () => {
  it('numTensors before building equals after model.dispose() (adam by name, fit, evaluate, predict)', async () => {
    const before = tt.memory().numTensors;
    const model = mlpBn(tt);
    model.compile(adamCompile(tt));
    const d = mlpData(12)(tt);
    await model.fit(d.x, d.y, { epochs: 2, batchSize: 5, verbose: 0, validationSplit: 0.25 });
    tt.dispose(model.evaluate(d.x, d.y));
    tt.dispose(model.predict(d.x));
    tt.dispose([d.x, d.y]);
    model.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('a second and third fit do not change numTensors', async () => {
    const model = mlpBn(tt);
    model.compile(adamCompile(tt));
    const d = mlpData(12)(tt);
    const vx = tt.zeros([3, 12]);
    const vy = tt.zeros([3, 4]);
    await model.fit(d.x, d.y, { epochs: 1, batchSize: 5, verbose: 0 });
    const after1 = counts(tt);
    await model.fit(d.x, d.y, { epochs: 2, batchSize: 5, verbose: 0 });
    assert.deepEqual(counts(tt), after1);
    await model.fit(d.x, d.y, { epochs: 1, batchSize: 7, verbose: 0, validationData: [vx, vy], validationSplit: 0.5 });
    assert.deepEqual(counts(tt), after1);
    tt.dispose([d.x, d.y, vx, vy]);
    model.dispose();
  });

  it('predict / predictOnBatch / apply in a tidy loop, evaluate and trainOnBatch loops leave memory flat', async () => {
    const model = cnn(tt);
    model.compile(adamCompile(tt));
    const d = cnnData(5)(tt);
    await model.trainOnBatch(d.x, d.y); // adam's slots are made by the first step
    const start = counts(tt);
    for (let i = 0; i < 5; i++) {
      tt.tidy(() => {
        model.predict(d.x, { batchSize: 2 });
        model.predictOnBatch(d.x);
        model.apply(d.x);
      });
      tt.dispose(model.evaluate(d.x, d.y, { batchSize: 2 }));
      await model.trainOnBatch(d.x, d.y);
    }
    assert.deepEqual(counts(tt), start);
    tt.dispose([d.x, d.y]);
    model.dispose();
  });

  it('model.dispose() returns tfjs\'s {refCountAfterDispose, numDisposedVariables} (compiled with \'adam\')', async () => {
    for (const build of [mlp, mlpBn, cnn, lstm, bnDropout, twoInputs]) {
      for (const steps of [0, 2]) {
        const results = [];
        for (const tf of [tfo, tt]) {
          const before = counts(tf);
          const model = build(tf);
          model.compile({ optimizer: 'adam', loss: 'meanSquaredError' });
          // (tidytensor's Sequential models have no `inputs`, see above; tfjs's have no feedInputShapes.)
          const shapes = model.inputs ? model.inputs.map((s) => s.shape) : model.feedInputShapes;
          const inputs = shapes.map((shape) => tf.ones([2, ...shape.slice(1)]));
          const y = tf.ones([2, ...model.outputShape.slice(1)]);
          for (let i = 0; i < steps; i++) await model.trainOnBatch(inputs.length === 1 ? inputs[0] : inputs, y);
          tf.dispose([...inputs, y]);
          results.push(model.dispose());
          if (tf === tt) assert.deepEqual(counts(tt), before, 'everything freed');
        }
        assert.deepEqual(results[1], results[0], `${build.name}, ${steps} steps`);
      }
    }
  });

  it('disposing the weights one by one (layer.getWeights()) leaves nothing, as in tfjs', async () => {
    for (const tf of [tfo, tt]) {
      for (const build of [mlpBn, cnn, lstm]) {
        const before = counts(tf);
        const model = build(tf);
        model.layers.forEach((l) => l.getWeights().forEach((w) => w.dispose()));
        assert.deepEqual(counts(tf), before, `${tf === tt ? 'tidytensor' : 'tfjs'} ${build.name}`);
      }
    }
  });

  it('a failed fit (wrong input shape, wrong target shape) leaks nothing', async () => {
    const before = counts(tt);
    const model = mlp(tt);
    model.compile(adamCompile(tt));
    const x = tt.zeros([6, 11]);
    const y = tt.zeros([6, 4]);
    const gx = tt.zeros([6, 12]);
    const gy = tt.zeros([6, 5]);
    await assert.rejects(model.fit(x, y, { epochs: 2, batchSize: 4, verbose: 0, validationSplit: 0.5 }));
    await assert.rejects(model.fit(gx, gy, { epochs: 2, batchSize: 4, verbose: 0 }));
    assert.throws(() => model.evaluate(x, y));
    tt.dispose([x, y, gx, gy]);
    model.dispose();
    assert.deepEqual(counts(tt), before);
  });
});

// ---- verbose ---------------------------------------------------------------------------------------

// Runs `fn` with process.stdout's string writes captured (binary writes, the test runner's,
// pass through); `isTTY` set as given while it runs.
async function captureStdout(fn, isTTY = false) {
  const out = process.stdout;
  const write = out.write;
  const had = Object.getOwnPropertyDescriptor(out, 'isTTY');
  const chunks = [];
  out.write = function capture(chunk, ...rest) {
    if (typeof chunk === 'string') {
      chunks.push(chunk);
      return true;
    }
    return write.call(this, chunk, ...rest);
  };
  Object.defineProperty(out, 'isTTY', { value: isTTY, configurable: true, writable: true });
  try {
    await fn();
  } finally {
    out.write = write;
    if (had) Object.defineProperty(out, 'isTTY', had);
    else delete out.isTTY;
  }
  return chunks.join('');
}

describe('verbose progress output (tfjs-node\'s format)', () => {
  const fitPrinting = async (args) => {
    const model = mlp(tt);
    model.compile({ optimizer: tt.train.sgd(0.1), loss: 'categoricalCrossentropy', metrics: ['accuracy'] });
    const d = mlpData(10)(tt);
    let h;
    const text = await captureStdout(async () => {
      h = await model.fit(d.x, d.y, { epochs: 2, batchSize: 4, shuffle: false, ...args });
    }, args.tty || false);
    tt.dispose([d.x, d.y]);
    model.optimizer.dispose();
    model.dispose();
    return { text, h };
  };

  // `name=value` pairs of an epoch line, checked against the history at two significant digits.
  function checkEpochLine(line, h, epoch, keys) {
    // tfjs-node's format: keys sorted, each `key=value ` (a trailing space).
    const m = /^(\d+)ms (\d+)us\/step - (.*) $/.exec(line);
    assert.ok(m, `an epoch line: ${JSON.stringify(line)}`);
    const pairs = m[3].split(' ').map((p) => p.split('='));
    assert.deepEqual(pairs.map((p) => p[0]), keys);
    for (const [k, v] of pairs) {
      const want = h.history[k][epoch];
      assert.ok(Math.abs(Number(v) - want) <= 0.01 * Math.max(1, Math.abs(want)), `${k}=${v} vs ${want}`);
    }
  }

  it('verbose 2: "Epoch i / n", then "<ms>ms <us>us/step - loss=... acc=..." per epoch', async () => {
    const { text, h } = await fitPrinting({ verbose: 2 });
    const lines = text.split('\n');
    assert.equal(lines.length, 5, JSON.stringify(text));
    assert.equal(lines[0], 'Epoch 1 / 2');
    checkEpochLine(lines[1], h, 0, ['acc', 'loss']);
    assert.equal(lines[2], 'Epoch 2 / 2');
    checkEpochLine(lines[3], h, 1, ['acc', 'loss']);
    assert.equal(lines[4], '');
  });

  it('verbose 1 on a non-TTY stream prints the same lines; with validation, the val_ values too', async () => {
    const { text, h } = await fitPrinting({ verbose: 1, validationSplit: 0.2 });
    const lines = text.split('\n');
    assert.equal(lines.length, 5, JSON.stringify(text));
    assert.equal(lines[0], 'Epoch 1 / 2');
    checkEpochLine(lines[1], h, 0, ['acc', 'loss', 'val_acc', 'val_loss']);
    checkEpochLine(lines[3], h, 1, ['acc', 'loss', 'val_acc', 'val_loss']);
  });

  it('the default verbose is 1', async () => {
    const { text } = await fitPrinting({});
    assert.match(text, /^Epoch 1 \/ 2\n\d+ms \d+us\/step - acc=\S+ loss=\S+ \nEpoch 2 \/ 2\n/);
  });

  it('verbose 1 on a TTY draws a bar, then the epoch line', async () => {
    const { text } = await fitPrinting({ verbose: 1, tty: true, epochs: 1 });
    assert.ok(text.startsWith('Epoch 1 / 1\n'), JSON.stringify(text));
    assert.match(text, /\reta=\S+ [=>-]+ acc=\S+ loss=\S+/);
    assert.match(text, /\n?\d+ms \d+us\/step - acc=\S+ loss=\S+ \n$/);
  });

  it('verbose 0 prints nothing', async () => {
    const { text } = await fitPrinting({ verbose: 0, validationSplit: 0.2 });
    assert.equal(text, '');
  });
});
