'use strict';
// Layers and losses defined in JavaScript, and models inside models: each program runs on
// tidytensor and on @tensorflow/tfjs with the same weights and data, and the predictions,
// fit histories and weights must agree. Also: model files with custom layers both ways
// (saved here and loaded by tfjs, and the reverse), frozen models, ES5-style subclasses, and
// memory (a fit that fails in its third epoch leaves nothing behind).
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');

// Deterministic values in [-1, 1).
function values(n, seed) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2147483648 - 1;
  });
}

function close(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got[i] - want[i]) <= tol * Math.max(1, Math.abs(want[i])), `${what}[${i}]: ${got[i]} vs ${want[i]}`);
  }
}

// The custom layers of these tests, defined the same way for each library (as users write
// them: ES2015 classes with a static className, registered for serialization).
function customLayers(tf) {
  // Rearranges [b, h, w, c*r*r] into [b, h*r, w*r, c] (depth to space) with reshapes and a
  // transpose: no weights.
  class PixelShuffle extends tf.layers.Layer {
    constructor(config) {
      super(config);
      this.r = config.r;
    }

    computeOutputShape(s) {
      const r = this.r;
      return [s[0], s[1] * r, s[2] * r, s[3] / (r * r)];
    }

    call(inputs) {
      return tf.tidy(() => {
        const x = Array.isArray(inputs) ? inputs[0] : inputs;
        const [b, h, w, c] = x.shape;
        const r = this.r;
        const oc = c / (r * r);
        return x.reshape([b, h, w, r, r, oc]).transpose([0, 1, 3, 2, 4, 5]).reshape([b, h * r, w * r, oc]);
      });
    }

    getConfig() {
      return { ...super.getConfig(), r: this.r };
    }
  }
  PixelShuffle.className = 'PixelShuffle';
  tf.serialization.registerClass(PixelShuffle);

  // x * scale, with a trainable per-channel scale and an L2 penalty on it.
  class Scale extends tf.layers.Layer {
    build(inputShape) {
      this.scale = this.addWeight('scale', [inputShape[inputShape.length - 1]], 'float32',
        tf.initializers.constant({ value: 0.5 }), tf.regularizers.l2({ l2: 0.01 }));
    }

    call(inputs) {
      return tf.tidy(() => tf.mul(Array.isArray(inputs) ? inputs[0] : inputs, this.scale.read()));
    }
  }
  Scale.className = 'Scale';
  tf.serialization.registerClass(Scale);

  // x + shift, with a trainable shift whose 0.1 * sum(shift^2) the layer adds as a loss.
  class ActivityLoss extends tf.layers.Layer {
    build(inputShape) {
      this.shift = this.addWeight('shift', [inputShape[inputShape.length - 1]], 'float32', tf.initializers.ones());
      this.addLoss(() => tf.tidy(() => this.shift.read().square().sum().mul(0.1)));
    }

    call(inputs) {
      return tf.tidy(() => tf.add(Array.isArray(inputs) ? inputs[0] : inputs, this.shift.read()));
    }
  }
  ActivityLoss.className = 'ActivityLoss';
  tf.serialization.registerClass(ActivityLoss);
  return { PixelShuffle, Scale, ActivityLoss };
}

const ttL = customLayers(tt);
const tfL = customLayers(tfo);

// The same program on both libraries: `build(tf, L)` returns a model; its weights are set
// to the same values on both.
function both(build) {
  const ours = build(tt, ttL);
  const theirs = build(tfo, tfL);
  const ws = theirs.getWeights().map((w, i) => values(w.size, 7 + i));
  const given = ws.map((v, i) => tt.tensor(v, theirs.getWeights()[i].shape));
  ours.setWeights(given);
  tt.dispose(given);
  theirs.setWeights(ws.map((v, i) => tfo.tensor(v, theirs.getWeights()[i].shape)));
  return { ours, theirs };
}

function dense(tf, L, extra) {
  const m = tf.sequential();
  m.add(tf.layers.dense({ units: 6, inputShape: [4], activation: 'tanh' }));
  m.add(extra(tf, L));
  m.add(tf.layers.dense({ units: 3, activation: 'softmax' }));
  return m;
}

const x = (tf) => tf.tensor2d(values(12 * 4, 3), [12, 4]);
const y = (tf) => tf.tidy(() => tf.oneHot(tf.tensor1d([0, 1, 2, 1, 0, 2, 2, 1, 0, 0, 1, 2], 'int32'), 3).cast('float32'));

async function fitBoth(models, compileArgs, fitArgs = {}) {
  const run = async (tf, m) => {
    m.compile(compileArgs(tf));
    const xs = x(tf);
    const ys = y(tf);
    const h = await m.fit(xs, ys, { epochs: 3, batchSize: 5, shuffle: false, verbose: 0, ...fitArgs });
    tf.dispose([xs, ys]);
    return h.history;
  };
  return { ours: await run(tt, models.ours), theirs: await run(tfo, models.theirs) };
}

describe('custom layers (tf.layers.Layer subclasses)', () => {
  it('a weightless reshape/transpose layer predicts as in tfjs, in a functional model', () => {
    const build = (tf, L) => {
      const inp = tf.input({ shape: [2, 3, 8] });
      const conv = tf.layers.conv2d({ filters: 8, kernelSize: 1 }).apply(inp);
      const out = new L.PixelShuffle({ r: 2 }).apply(conv);
      return tf.model({ inputs: inp, outputs: out });
    };
    const { ours, theirs } = both(build);
    assert.deepEqual(ours.outputShape, [null, 4, 6, 2]);
    const before = tt.memory().numTensors;
    const input = tt.tensor4d(values(2 * 2 * 3 * 8, 5), [2, 2, 3, 8]);
    const a = ours.predict(input);
    input.dispose();
    const b = theirs.predict(tfo.tensor4d(values(2 * 2 * 3 * 8, 5), [2, 2, 3, 8]));
    assert.deepEqual(a.shape, b.shape);
    close(a.dataSync(), b.dataSync(), 1e-5, 'predict');
    assert.equal(tt.memory().numTensors, before + 1);
    tt.dispose(a);
    ours.dispose();
    theirs.dispose();
  });

  it('a layer with its own trainable weight and a regularizer trains as in tfjs', async () => {
    const { ours, theirs } = both((tf, L) => dense(tf, L, (t) => new (t === tt ? ttL : tfL).Scale({})));
    assert.equal(ours.trainableWeights.length, 5);
    assert.deepEqual(ours.layers[1].weights.map((w) => w.originalName), theirs.layers[1].weights.map((w) => w.originalName));
    const before = tt.memory().numTensors;
    const h = await fitBoth({ ours, theirs }, (tf) => ({ optimizer: tf.train.adam(0.05), loss: 'categoricalCrossentropy', metrics: ['accuracy'] }));
    ours.optimizer.dispose();
    assert.equal(tt.memory().numTensors, before);
    assert.deepEqual(Object.keys(h.ours), Object.keys(h.theirs));
    for (const k of Object.keys(h.theirs)) close(h.ours[k], h.theirs[k], 1e-4, k);
    close(ours.layers[1].getWeights()[0].dataSync(), theirs.layers[1].getWeights()[0].dataSync(), 1e-4, 'scale');
    ours.dispose();
    theirs.dispose();
  });

  it('a layer that adds a loss: the loss counts in fit as in tfjs', async () => {
    const { ours, theirs } = both((tf, L) => dense(tf, L, () => new L.ActivityLoss({})));
    const h = await fitBoth({ ours, theirs }, (tf) => ({ optimizer: tf.train.sgd(0.2), loss: 'categoricalCrossentropy' }));
    for (const k of Object.keys(h.theirs)) close(h.ours[k], h.theirs[k], 1e-4, k);
    ours.dispose();
    theirs.dispose();
  });

  it('an ES5-style subclass (function + _super.call, as compiled packages ship them) works', () => {
    // What TypeScript's ES5 output does for `class Doubler extends Layer`.
    function Doubler(config) {
      return Reflect.construct(tt.layers.Layer, [config], Doubler);
    }
    Object.setPrototypeOf(Doubler.prototype, tt.layers.Layer.prototype);
    Object.setPrototypeOf(Doubler, tt.layers.Layer);
    Doubler.prototype.call = function call(inputs) {
      return tt.mul(Array.isArray(inputs) ? inputs[0] : inputs, 2);
    };
    Doubler.className = 'Doubler';
    const layer = new Doubler({ name: 'twice' });
    assert.equal(layer.name, 'twice');
    const out = layer.apply(tt.tensor1d([1, 2]));
    assert.deepEqual(Array.from(out.dataSync()), [2, 4]);
    tt.dispose(out);
  });

  it('the default name, getConfig and symbolic apply follow tfjs', () => {
    const l = new ttL.Scale({});
    assert.match(l.name, /^scale_Scale\d+$/);
    assert.deepEqual(l.getConfig(), { name: l.name, trainable: true });
    const inp = tt.input({ shape: [3] });
    const out = l.apply(inp);
    assert.deepEqual(out.shape, [null, 3]);
    assert.equal(l.weights[0].originalName, `${l.name}/scale`);
    assert.equal(l.countParams(), 3);
    assert.equal(l.inboundNodes.length, 1);
    l.dispose();
  });
});

describe('JavaScript losses and metrics', () => {
  it('a loss function and a metric function train as in tfjs and are named by their function names', async () => {
    const { ours, theirs } = both((tf) => dense(tf, null, (t) => t.layers.dense({ units: 5, activation: 'relu' })));
    const compileArgs = (tf) => {
      function weightedMse(yTrue, yPred) {
        return tf.tidy(() => tf.mean(tf.square(tf.sub(yTrue, yPred)).mul(2), -1));
      }
      function meanPred(yTrue, yPred) {
        return tf.mean(yPred, -1);
      }
      return { optimizer: tf.train.sgd(0.5), loss: weightedMse, metrics: [meanPred, 'accuracy'] };
    };
    const h = await fitBoth({ ours, theirs }, compileArgs);
    assert.deepEqual(Object.keys(h.ours).sort(), ['acc', 'loss', 'meanPred']);
    for (const k of Object.keys(h.theirs)) close(h.ours[k], h.theirs[k], 1e-4, k);
    const ev = (tf, m) => tf.tidy(() => m.evaluate(x(tf), y(tf), { batchSize: 4 }).map((t) => t.dataSync()[0]));
    close(ev(tt, ours), ev(tfo, theirs), 1e-4, 'evaluate');
    ours.dispose();
    theirs.dispose();
  });
});

describe('models inside models', () => {
  it('a Sequential model inside a Sequential and inside a functional model predicts as in tfjs', () => {
    const start = tt.memory().numTensors;
    const made = new Map();
    const build = (tf) => {
      const inner = tf.sequential({ layers: [tf.layers.dense({ units: 5, inputShape: [4], activation: 'relu' }), tf.layers.dense({ units: 3 })] });
      const outer = tf.sequential({ layers: [tf.layers.dense({ units: 4, inputShape: [4] }), inner, tf.layers.dense({ units: 2 })] });
      const inp = tf.input({ shape: [4] });
      const out = tf.layers.dense({ units: 1 }).apply(outer.apply(inp));
      made.set(tf, { inner, outer });
      return tf.model({ inputs: inp, outputs: out });
    };
    const { ours, theirs } = both(build);
    assert.equal(ours.countParams(), theirs.countParams());
    assert.deepEqual(ours.layers.map((l) => l.getClassName()), theirs.layers.map((l) => l.getClassName()));
    const xs = x(tt);
    const a = ours.predict(xs);
    const b = theirs.predict(x(tfo));
    close(a.dataSync(), b.dataSync(), 1e-5, 'predict');
    tt.dispose([xs, a]);
    // Each model used inside another is counted once per use, as in tfjs: disposing the
    // outermost one leaves the others usable, and each goes with its own last dispose.
    const { inner, outer } = made.get(tt);
    assert.deepEqual(ours.dispose(), { refCountAfterDispose: 0, numDisposedVariables: 2 });
    assert.deepEqual(outer.dispose(), { refCountAfterDispose: 0, numDisposedVariables: 4 });
    assert.throws(() => outer.dispose(), /Container .* already disposed/);
    const one = tt.ones([1, 4]);
    const y = inner.predict(one);
    assert.deepEqual(y.shape, [1, 3]);
    tt.dispose([one, y]);
    assert.deepEqual(inner.dispose(), { refCountAfterDispose: 0, numDisposedVariables: 4 });
    assert.equal(tt.memory().numTensors, start);
  });

  it('a frozen base under a new head: fit trains the head only (transfer learning)', async () => {
    const start = tt.memory().numTensors;
    const base = tt.sequential({ layers: [tt.layers.dense({ units: 6, inputShape: [4], activation: 'relu' }), tt.layers.dense({ units: 5 })] });
    base.trainable = false;
    const model = tt.sequential({ layers: [base, tt.layers.dense({ units: 3, activation: 'softmax' })] });
    assert.equal(model.trainableWeights.length, 2);
    assert.equal(model.nonTrainableWeights.length, 4);
    const frozen = base.getWeights().map((w) => Array.from(w.dataSync()));
    const head = Array.from(model.layers[1].getWeights()[0].dataSync());
    model.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy' });
    const xs = x(tt);
    const ys = y(tt);
    await model.fit(xs, ys, { epochs: 2, verbose: 0 });
    assert.deepEqual(base.getWeights().map((w) => Array.from(w.dataSync())), frozen);
    assert.notDeepEqual(Array.from(model.layers[1].getWeights()[0].dataSync()), head);
    tt.dispose([xs, ys]);
    // A model added first is wired by its own input, not counted as a use (as in tfjs): the
    // model's dispose takes it, and compile's optimizer, with it.
    model.dispose();
    assert.equal(tt.memory().numTensors, start);
  });

  it('a frozen layer in a native model is not trained either', async () => {
    const model = tt.sequential({ layers: [tt.layers.dense({ units: 6, inputShape: [4] }), tt.layers.dense({ units: 3 })] });
    model.layers[0].trainable = false;
    const w = Array.from(model.layers[0].getWeights()[0].dataSync());
    model.compile({ optimizer: 'sgd', loss: 'meanSquaredError' });
    const xs = x(tt);
    const ys = y(tt);
    await model.fit(xs, ys, { epochs: 2, verbose: 0 });
    tt.dispose([xs, ys]);
    assert.deepEqual(Array.from(model.layers[0].getWeights()[0].dataSync()), w);
    model.dispose();
  });
});

describe('model files with custom layers', () => {
  const capture = (tf) => {
    let saved;
    const handler = tf.io.withSaveHandler(async (artifacts) => {
      saved = artifacts;
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
    });
    return { handler, get: () => saved };
  };

  it('saved here, loaded by tfjs; saved by tfjs, loaded here: the same predictions', async () => {
    const build = (tf, L) => {
      const m = dense(tf, L, () => new L.Scale({}));
      return m;
    };
    const { ours, theirs } = both(build);
    const xs = values(3 * 4, 11);
    const want = theirs.predict(tfo.tensor2d(xs, [3, 4])).dataSync();
    const a = capture(tt);
    await ours.save(a.handler);
    const loadedThere = await tfo.loadLayersModel(tfo.io.fromMemory(a.get()));
    close(loadedThere.predict(tfo.tensor2d(xs, [3, 4])).dataSync(), want, 1e-5, 'tfjs loads ours');
    const b = capture(tfo);
    await theirs.save(b.handler);
    const before = tt.memory().numTensors;
    const loadedHere = await tt.loadLayersModel(tt.io.fromMemory(b.get()));
    const input = tt.tensor2d(xs, [3, 4]);
    const got = loadedHere.predict(input);
    input.dispose();
    close(got.dataSync(), want, 1e-5, 'we load tfjs\'s');
    assert.equal(loadedHere.layers[1].getClassName(), 'Scale');
    tt.dispose(got);
    loadedHere.dispose();
    assert.equal(tt.memory().numTensors, before);
    ours.dispose();
  });
});

describe('memory', () => {
  it('a fit whose custom layer throws in epoch 3 rejects and leaves memory where it was', async () => {
    let calls = 0;
    class Flaky extends tt.layers.Layer {
      call(inputs) {
        calls++;
        if (calls === 9) throw new Error('flaky layer failed');
        return tt.tidy(() => tt.relu(Array.isArray(inputs) ? inputs[0] : inputs));
      }
    }
    Flaky.className = 'Flaky';
    const model = tt.sequential({ layers: [tt.layers.dense({ units: 5, inputShape: [4] }), new Flaky({}), tt.layers.dense({ units: 3 })] });
    model.compile({ optimizer: tt.train.sgd(0.1), loss: (a, b) => tt.losses.meanSquaredError(a, b) });
    const xs = x(tt);
    const ys = y(tt);
    const before = tt.memory();
    await assert.rejects(model.fit(xs, ys, { epochs: 4, batchSize: 3, verbose: 0 }), /flaky layer failed/);
    assert.equal(calls, 9);
    const after = tt.memory();
    assert.equal(after.numTensors, before.numTensors);
    assert.equal(after.numBytes, before.numBytes);
    model.optimizer.dispose();
    model.dispose();
    tt.dispose([xs, ys]);
  });
});

describe('recurrent layers and wrappers over layers written in JavaScript', () => {
  // A cell of one's own (tfjs's documented way: an RNNCell with stateSize and a call from
  // [x, h] to [output, h']) and a weighted layer for timeDistributed.
  function defs(tf) {
    class MinimalRNNCell extends tf.layers.RNNCell {
      constructor(config) {
        super(config);
        this.units = config.units;
        this.stateSize = config.units;
      }

      build(inputShape) {
        this.kernel = this.addWeight('kernel', [inputShape[inputShape.length - 1], this.units], 'float32', tf.initializers.ones());
        this.recurrentKernel = this.addWeight('recurrent_kernel', [this.units, this.units], 'float32', tf.initializers.constant({ value: 0.1 }));
        this.built = true;
      }

      call([x, h]) {
        return tf.tidy(() => {
          const out = tf.tanh(tf.add(tf.matMul(x, this.kernel.read()), tf.matMul(h, this.recurrentKernel.read())));
          return [out, out];
        });
      }

      getConfig() {
        return { ...super.getConfig(), units: this.units };
      }
    }
    MinimalRNNCell.className = 'MinimalRNNCell';
    tf.serialization.registerClass(MinimalRNNCell);
    class Halve extends tf.layers.Layer {
      build(s) {
        this.w = this.addWeight('w', [s[s.length - 1]], 'float32', tf.initializers.constant({ value: 0.5 }));
      }

      call(x) {
        return tf.tidy(() => tf.mul(Array.isArray(x) ? x[0] : x, this.w.read()));
      }
    }
    Halve.className = 'Halve';
    tf.serialization.registerClass(Halve);
    return { MinimalRNNCell, Halve };
  }
  const ttD = defs(tt);
  const tfD = defs(tfo);

  // Predictions, a fit's history and a model file round trip of the model `build` makes.
  async function program(tf, D, build, shape) {
    const model = build(tf, D);
    const n = shape.reduce((a, b) => a * b, 1);
    const x = tf.tensor(Array.from({ length: n }, (_, i) => Math.sin(i)), shape);
    const y = tf.ones([shape[0], 1]);
    const before = tf.tidy(() => Array.from(model.predict(x).dataSync()));
    model.compile({ optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError' });
    const h = await model.fit(x, y, { epochs: 3, shuffle: false, verbose: 0 });
    let artifacts;
    await model.save(tf.io.withSaveHandler(async (a) => {
      artifacts = a;
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
    }));
    const loaded = await tf.loadLayersModel(tf.io.fromMemory(artifacts));
    const after = tf.tidy(() => Array.from(loaded.predict(x).dataSync()));
    const classes = model.layers.map((l) => l.getClassName());
    tf.dispose([x, y]);
    model.optimizer.dispose();
    model.dispose();
    loaded.dispose();
    return { before, loss: h.history.loss, after, classes };
  }

  async function compare(build, shape) {
    const start = tt.memory().numTensors;
    const ours = await program(tt, ttD, build, shape);
    assert.equal(tt.memory().numTensors, start, 'nothing left behind');
    const theirs = await program(tfo, tfD, build, shape);
    assert.deepEqual(ours.classes, theirs.classes);
    close(ours.before, theirs.before, 1e-5, 'predict');
    close(ours.loss, theirs.loss, 1e-5, 'loss');
    close(ours.after, theirs.after, 1e-5, 'reloaded predict');
  }

  it('tf.layers.rnn over a JavaScript cell runs the cell per step, as tfjs does', async () => {
    await compare((tf, D) => tf.sequential({
      layers: [
        tf.layers.rnn({ cell: new D.MinimalRNNCell({ units: 3 }), returnSequences: true, inputShape: [4, 2] }),
        tf.layers.flatten(), tf.layers.dense({ units: 1, kernelInitializer: 'ones' }),
      ],
    }), [2, 4, 2]);
    assert.ok(tt.layers.rnn({ cell: new ttD.MinimalRNNCell({ units: 2 }) }) instanceof tt.RNN);
    assert.ok(tt.layers.lstm({ units: 2 }) instanceof tt.RNN, 'the built-in recurrent layers are RNNs too');
  });

  it('tf.layers.timeDistributed over a JavaScript layer', async () => {
    await compare((tf, D) => tf.sequential({
      layers: [
        tf.layers.timeDistributed({ layer: new D.Halve({}), inputShape: [3, 2] }),
        tf.layers.flatten(), tf.layers.dense({ units: 1, kernelInitializer: 'ones' }),
      ],
    }), [2, 3, 2]);
  });
});

describe('trainable bits', () => {
  it('layer.trainable and model.trainable set their weights\' variables\' trainable bits, as in tfjs', () => {
    for (const tf of [tt, tfo]) {
      const model = tf.sequential({ layers: [tf.layers.dense({ units: 3, inputShape: [4] }), tf.layers.dense({ units: 1 })] });
      const bits = () => model.layers.map((l) => l.weights.map((w) => w.trainable));
      assert.deepEqual(bits(), [[true, true], [true, true]]);
      model.layers[0].trainable = false;
      assert.deepEqual(bits(), [[false, false], [true, true]]);
      assert.equal(model.trainableWeights.length, 2);
      // The variables themselves: tf.variableGrads without a list takes only trainable ones.
      assert.deepEqual(model.layers[0].getWeights().map((v) => v.trainable), [false, false]);
      model.trainable = false;
      assert.deepEqual(bits(), [[false, false], [false, false]]);
      model.trainable = true;
      assert.deepEqual(bits(), [[true, true], [true, true]]);
      model.dispose();
    }
  });
});
