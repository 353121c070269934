'use strict';
// Differential tests of masks (tfjs's supportsMasking, computeMask and kwargs.mask): an
// embedding with maskZero or a masking layer before recurrent layers (lstm, gru, simpleRNN, rnn
// over stacked cells; returnSequences, returnState, goBackwards), stacked, bidirectional and
// timeDistributed layers, merges, and the mask tfjs's executor keeps handing to later layers.
// Each model is built with the same config on tidytensor and on @tensorflow/tfjs 4.22, tfjs's
// weights (deterministic random values) are copied into ours, and both run the same padded
// sequences: predictions, evaluate and fit histories (1e-4), computeMask called directly, and
// memory (no tensor left behind, also when a call fails) must agree.
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');
const {
  size, list, data, closeTo, compareTensors, copyWeights,
} = require('./helpers/layers');

// ---- deterministic data ------------------------------------------------------------------

// Token ids in [1, vocab) with zeros (padding) at the end of some rows, at the start of others,
// in the middle of one, and one row all padding: every way a mask can fall.
function tokens(batch, steps, vocab, seed) {
  const v = Array.from(data(batch * steps, seed, 1, vocab), Math.floor);
  for (let b = 0; b < batch; b++) {
    for (let t = 0; t < steps; t++) {
      const pad = b === 0 ? false : b === 1 ? t >= steps - 2 : b === 2 ? t < 2 : b === 3 ? t === 2 : b % 5 === 4;
      if (pad) v[b * steps + t] = 0;
    }
  }
  return v;
}

// Float sequences whose masked steps (as `tokens` places them) are all `value`.
function padded(batch, steps, features, value, seed) {
  const ids = tokens(batch, steps, 5, seed);
  const v = data(batch * steps * features, seed + 7);
  for (let i = 0; i < batch * steps; i++) {
    if (ids[i] === 0) v.fill(value, i * features, (i + 1) * features);
  }
  return v;
}

// ---- comparison --------------------------------------------------------------------------

const TOL = 1e-4;

function randomizeWeights(model, seed) {
  const values = model.weights.map((w, i) => (w.dtype === 'int32'
    ? tfo.tensor(Array.from(data(size(w.shape), seed + i, 0, 5), Math.floor), w.shape, w.dtype)
    : tfo.tensor(data(size(w.shape), seed + i, -0.8, 0.8), w.shape, w.dtype)));
  if (values.length > 0) model.setWeights(values);
  tfo.dispose(values);
}

// ---- models ------------------------------------------------------------------------------

// `make(tf)` is a model; the same inputs (`inputs`: [values, shape, dtype] each) go to both.
// Predictions (in training mode too when nothing is random) and evaluate must agree, and ours
// must leave nothing behind.
function sameModel(make, inputs, { tol = TOL } = {}) {
  const before = tt.memory().numTensors;
  const ours = make(tt);
  const theirs = make(tfo);
  randomizeWeights(theirs, 11);
  copyWeights(ours, theirs);
  const feed = (tf) => inputs.map(([v, s, d]) => tf.tensor(v, s, d));
  const xo = feed(tt);
  const xt = feed(tfo);
  const one = (x) => (x.length === 1 ? x[0] : x);
  const got = list(ours.predict(one(xo)));
  const want = list(theirs.predict(one(xt)));
  assert.equal(got.length, want.length, 'output count');
  got.forEach((g, i) => compareTensors(g, want[i], tol, `output ${i}`));
  const mid = tt.memory().numTensors;
  if (got.length === 1) {
    // Evaluate with the predictions shifted as targets: the loss must be the same number.
    evaluateBoth(ours, theirs, xo, xt, got, want, tol);
  }
  assert.equal(tt.memory().numTensors, mid, 'evaluate left tensors behind');
  tt.dispose([...got, ...xo]);
  tfo.dispose([...want, ...xt]);
  ours.dispose();
  theirs.dispose();
  assert.equal(tt.memory().numTensors, before, 'tensors left behind');
}

function evaluateBoth(ours, theirs, xo, xt, got, want, tol) {
  const one = (x) => (x.length === 1 ? x[0] : x);
  const targets = (tf, outs) => outs.map((y) => tf.tidy(() => tf.add(y, 0.25)));
  ours.compile({ optimizer: 'sgd', loss: 'meanSquaredError' });
  theirs.compile({ optimizer: 'sgd', loss: 'meanSquaredError' });
  const yo = targets(tt, got);
  const yt = targets(tfo, want);
  const lo = list(ours.evaluate(one(xo), one(yo), { batchSize: 3 }));
  const lt = list(theirs.evaluate(one(xt), one(yt), { batchSize: 3 }));
  closeTo(lo.map((t) => t.dataSync()[0]), lt.map((t) => t.dataSync()[0]), tol, 'evaluate');
  tt.dispose([...lo, ...yo]);
  tfo.dispose([...yt, ...lt]);
}

const B = 6;
const T = 5;
const VOCAB = 7;
const IDS = [[tokens(B, T, VOCAB, 1), [B, T], 'float32']];
const embed = (tf, extra = {}) => tf.layers.embedding({ inputDim: VOCAB, outputDim: 3, inputLength: T, maskZero: true, ...extra });
const seq = (layers) => (tf) => tf.sequential({ layers: layers(tf) });

describe('embedding(maskZero) before recurrent layers', () => {
  it('lstm, last output', () => sameModel(seq((tf) => [embed(tf), tf.layers.lstm({ units: 4 })]), IDS));
  it('lstm, returnSequences, then dense', () => sameModel(seq((tf) => [
    embed(tf), tf.layers.lstm({ units: 4, returnSequences: true }), tf.layers.dense({ units: 2 }),
  ]), IDS));
  it('lstm, goBackwards (with and without returnSequences)', () => {
    sameModel(seq((tf) => [embed(tf), tf.layers.lstm({ units: 3, goBackwards: true })]), IDS);
    sameModel(seq((tf) => [embed(tf), tf.layers.lstm({ units: 3, goBackwards: true, returnSequences: true })]), IDS);
  });
  it('lstm, returnState (functional: output, h and c)', () => sameModel((tf) => {
    const x = tf.input({ shape: [T] });
    const e = embed(tf).apply(x);
    const outs = tf.layers.lstm({ units: 3, returnState: true, returnSequences: true }).apply(e);
    const last = tf.layers.gru({ units: 2 }).apply(outs[0]);
    return tf.model({ inputs: x, outputs: [...outs, last] });
  }, IDS));
  it('an int32 input', () => sameModel((tf) => {
    const x = tf.input({ shape: [T], dtype: 'int32' });
    const y = tf.layers.simpleRNN({ units: 3 }).apply(embed(tf).apply(x));
    return tf.model({ inputs: x, outputs: y });
  }, [[tokens(B, T, VOCAB, 2), [B, T], 'int32']]));
});

describe('masking before recurrent layers', () => {
  const X = [[padded(B, T, 3, 0, 3), [B, T, 3], 'float32']];
  const XNEG = [[padded(B, T, 3, -1, 4), [B, T, 3], 'float32']];
  it('masking, simpleRNN', () => sameModel(seq((tf) => [
    tf.layers.masking({ inputShape: [T, 3] }), tf.layers.simpleRNN({ units: 4 }),
  ]), X));
  it('masking({maskValue: -1}), gru returnSequences goBackwards', () => sameModel(seq((tf) => [
    tf.layers.masking({ maskValue: -1, inputShape: [T, 3] }), tf.layers.gru({ units: 3, returnSequences: true, goBackwards: true }),
  ]), XNEG));
  it('the mask passes through dense, dropout, activation and batchNormalization', () => sameModel(seq((tf) => [
    tf.layers.masking({ inputShape: [T, 3] }), tf.layers.dense({ units: 4 }), tf.layers.dropout({ rate: 0.5 }),
    tf.layers.activation({ activation: 'tanh' }), tf.layers.batchNormalization(), tf.layers.lstm({ units: 2 }),
  ]), X));
  it('a layer without masking support (flatten) stops the mask', () => sameModel(seq((tf) => [
    tf.layers.masking({ inputShape: [T, 3] }), tf.layers.reshape({ targetShape: [T, 3] }),
    tf.layers.simpleRNN({ units: 3, returnSequences: true }), tf.layers.flatten(), tf.layers.dense({ units: 2 }),
  ]), X));
});

describe('stacked recurrent layers', () => {
  it('lstm, gru, simpleRNN with returnSequences', () => sameModel(seq((tf) => [
    embed(tf), tf.layers.lstm({ units: 4, returnSequences: true }), tf.layers.gru({ units: 3, returnSequences: true }),
    tf.layers.simpleRNN({ units: 2 }),
  ]), IDS));
  it('rnn over stacked cells', () => sameModel(seq((tf) => [
    embed(tf), tf.layers.rnn({ cell: [tf.layers.lstmCell({ units: 3 }), tf.layers.gruCell({ units: 2 })], returnSequences: true }),
  ]), IDS));
  it('the mask tfjs\'s executor keeps handing on (after a last output, through repeatVector)', () => sameModel(seq((tf) => [
    embed(tf), tf.layers.lstm({ units: 3 }), tf.layers.repeatVector({ n: T }), tf.layers.lstm({ units: 2 }),
  ]), IDS));
});

describe('wrappers', () => {
  it('bidirectional lstm and simpleRNN (concat), then dense', () => {
    sameModel(seq((tf) => [embed(tf), tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 3 }) }), tf.layers.dense({ units: 1 })]), IDS);
    sameModel(seq((tf) => [embed(tf), tf.layers.bidirectional({ layer: tf.layers.simpleRNN({ units: 3 }) }), tf.layers.dense({ units: 1 })]), IDS);
  });
  it('bidirectional gru with returnSequences (sum), then lstm', () => sameModel(seq((tf) => [
    embed(tf), tf.layers.bidirectional({ layer: tf.layers.gru({ units: 3, returnSequences: true }), mergeMode: 'sum' }),
    tf.layers.lstm({ units: 2 }),
  ]), IDS));
  it('bidirectional without merge, returnState', () => sameModel((tf) => {
    const x = tf.input({ shape: [T] });
    const outs = tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 2, returnSequences: true, returnState: true }), mergeMode: null })
      .apply(embed(tf).apply(x));
    const y = tf.layers.simpleRNN({ units: 2 }).apply(outs[1]);
    return tf.model({ inputs: x, outputs: [...outs, y] });
  }, IDS));
  it('timeDistributed(dense) passes the mask to the next lstm', () => sameModel(seq((tf) => [
    embed(tf), tf.layers.lstm({ units: 3, returnSequences: true }), tf.layers.timeDistributed({ layer: tf.layers.dense({ units: 2 }) }),
    tf.layers.lstm({ units: 2 }),
  ]), IDS));
});

describe('merges', () => {
  const two = [[tokens(B, T, VOCAB, 5), [B, T], 'float32'], [tokens(B, T, VOCAB, 6).reverse(), [B, T], 'float32']];
  const merged = (merge) => (tf) => {
    const a = tf.input({ shape: [T] });
    const b = tf.input({ shape: [T] });
    const ya = tf.layers.lstm({ units: 3, returnSequences: true }).apply(embed(tf).apply(a));
    const yb = tf.layers.lstm({ units: 3, returnSequences: true }).apply(embed(tf).apply(b));
    const y = tf.layers.gru({ units: 2 }).apply(merge(tf).apply([ya, yb]));
    return tf.model({ inputs: [a, b], outputs: y });
  };
  it('concatenate (both masks, all over the features)', () => sameModel(merged((tf) => tf.layers.concatenate()), two));
  it('concatenate with an unmasked input', () => sameModel((tf) => {
    const a = tf.input({ shape: [T] });
    const b = tf.input({ shape: [T, 2] });
    const ya = embed(tf).apply(a);
    const y = tf.layers.lstm({ units: 2 }).apply(tf.layers.concatenate().apply([ya, b]));
    return tf.model({ inputs: [a, b], outputs: y });
  }, [IDS[0], [data(B * T * 2, 9), [B, T, 2], 'float32']]));
});

describe('apply with kwargs.mask', () => {
  it('lstm, gru and bidirectional read the mask given to apply', () => {
    const before = tt.memory().numTensors;
    const x = data(B * T * 3, 21);
    const m = Array.from(tokens(B, T, 3, 22), (v) => (v > 0 ? 1 : 0));
    for (const make of [
      (tf) => tf.layers.lstm({ units: 3, returnSequences: true }),
      (tf) => tf.layers.gru({ units: 2, goBackwards: true }),
      (tf) => tf.layers.bidirectional({ layer: tf.layers.simpleRNN({ units: 2 }) }),
    ]) {
      const ours = make(tt);
      const theirs = make(tfo);
      const run = (tf, layer) => {
        const xs = tf.tensor(x, [B, T, 3]);
        const mask = tf.tensor(m, [B, T], 'bool');
        tf.dispose(layer.apply(xs)); // builds
        return [xs, mask];
      };
      const [xo, mo] = run(tt, ours);
      const [xt, mt] = run(tfo, theirs);
      randomizeWeights(theirs, 3);
      copyWeights(ours, theirs);
      const yo = ours.apply(xo, { mask: mo });
      const yt = theirs.apply(xt, { mask: mt });
      compareTensors(yo, yt, TOL, ours.getClassName());
      // The mask changes the values (a test that could pass without masks would not tell).
      const diff = tt.tidy(() => ours.apply(xo).sub(yo).abs().max());
      assert.ok(diff.dataSync()[0] > 1e-3, 'the mask changes the outputs');
      tt.dispose([xo, mo, yo, diff]);
      tfo.dispose([xt, mt, yt]);
      ours.dispose();
      theirs.dispose();
    }
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  });

  it('convLstm2d reads a [batch, steps, rows, cols] mask as tfjs', () => {
    const before = tt.memory().numTensors;
    const shape = [2, 3, 4, 4, 2];
    const x = data(size(shape), 31);
    const m = Array.from(data(2 * 3 * 4 * 4, 32, 0, 2), Math.floor);
    const make = (tf) => tf.layers.convLstm2d({ filters: 2, kernelSize: 3, padding: 'same', returnSequences: true });
    const ours = make(tt);
    const theirs = make(tfo);
    const xo = tt.tensor(x, shape);
    const xt = tfo.tensor(x, shape);
    tt.dispose(ours.apply(xo));
    tfo.dispose(theirs.apply(xt));
    randomizeWeights(theirs, 5);
    copyWeights(ours, theirs);
    const mo = tt.tensor(m, [2, 3, 4, 4]);
    const mt = tfo.tensor(m, [2, 3, 4, 4]);
    const yo = ours.apply(xo, { mask: mo });
    const yt = theirs.apply(xt, { mask: mt });
    compareTensors(yo, yt, TOL, 'convLstm2d');
    tt.dispose([xo, mo, yo]);
    tfo.dispose([xt, mt, yt]);
    ours.dispose();
    theirs.dispose();
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  });

  it('a mask that does not fit fails with nothing left behind', () => {
    const layer = tt.layers.lstm({ units: 2 });
    const x = tt.ones([2, 4, 3]);
    tt.dispose(layer.apply(x)); // builds
    const before = tt.memory().numTensors;
    const bad = tt.ones([2, 3]);
    assert.throws(() => layer.apply(x, { mask: bad }), /mask/);
    const rank = tt.ones([2]);
    assert.throws(() => layer.apply(x, { mask: rank }), /rank of input 1 must match length of perm 1,0,2/);
    assert.throws(() => layer.apply(x, { mask: [1, 0] }), /expects its mask to be a Tensor/);
    tt.dispose([bad, rank]);
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
    tt.dispose(x);
    layer.dispose();
  });
});

describe('training with masks', () => {
  async function sameHistory(make, inputs, units) {
    const before = tt.memory().numTensors;
    const build = (tf) => {
      const model = make(tf);
      model.compile({ optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError' });
      return model;
    };
    const ours = build(tt);
    const theirs = build(tfo);
    randomizeWeights(theirs, 17);
    copyWeights(ours, theirs);
    const ys = data(B * units, 2, -1, 1);
    const fit = async (model, tf) => {
      const x = tf.tensor(...inputs);
      const y = tf.tensor(ys, [B, units]);
      const h = await model.fit(x, y, { epochs: 3, batchSize: 4, shuffle: false, verbose: 0 });
      tf.dispose([x, y]);
      return h.history.loss;
    };
    closeTo(await fit(ours, tt), await fit(theirs, tfo), TOL, 'loss history');
    // The trained weights agree too (the masked steps' gradients are zero in both).
    const wo = ours.getWeights();
    const wt = theirs.getWeights();
    wo.forEach((w, i) => closeTo(w.dataSync(), wt[i].dataSync(), 1e-3, `weight ${i}`));
    ours.dispose();
    theirs.dispose();
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  }

  it('embedding(maskZero), lstm, dense (BPTT through masked steps)', () => sameHistory(seq((tf) => [
    embed(tf), tf.layers.lstm({ units: 3 }), tf.layers.dense({ units: 2 }),
  ]), IDS[0], 2));
  it('masking, bidirectional gru with returnSequences, lstm goBackwards', () => sameHistory(seq((tf) => [
    tf.layers.masking({ inputShape: [T, 3] }),
    tf.layers.bidirectional({ layer: tf.layers.gru({ units: 2, returnSequences: true }) }),
    tf.layers.lstm({ units: 2, goBackwards: true }),
  ]), [padded(B, T, 3, 0, 8), [B, T, 3]], 2));
});

// ---- computeMask called directly ------------------------------------------------------------

// Runs `f(tf)` on both libraries: its result (a mask, null or a list) must agree; the tensors
// made for it are disposed afterwards, and ours must leave nothing else behind.
function sameMask(f) {
  const before = tt.memory().numTensors;
  const made = [];
  const track = (tf) => (x) => { made.push([tf, x]); return x; };
  const got = f(tt, track(tt));
  const want = f(tfo, track(tfo));
  const check = (g, w, what) => {
    if (w == null) {
      assert.equal(g, w, `${what}: ${g} for ${w}`);
    } else if (Array.isArray(w)) {
      assert.ok(Array.isArray(g), `${what}: a list`);
      assert.equal(g.length, w.length, `${what}: length`);
      w.forEach((x, i) => check(g[i], x, `${what}[${i}]`));
    } else {
      compareTensors(g, w, 0, what);
    }
  };
  check(got, want, 'computeMask');
  const mine = new Set(made.filter(([tf]) => tf === tt).map(([, x]) => x));
  tt.dispose(list(got).filter((m) => m != null && !mine.has(m)));
  for (const [tf, x] of made) tf.dispose(x);
  tfo.dispose(list(want));
  assert.equal(tt.memory().numTensors, before, 'tensors left behind');
}

describe('computeMask', () => {
  it('embedding: maskZero true and false', () => {
    sameMask((tf, t) => embed(tf).computeMask(t(tf.tensor2d([[0, 1, 2], [3, 0, 0]]))));
    sameMask((tf, t) => embed(tf, { maskZero: false }).computeMask(t(tf.tensor2d([[0, 1, 2], [3, 0, 0]]))));
    sameMask((tf, t) => embed(tf).computeMask(t(tf.tensor2d([[0, 1], [3, 0]], [2, 2], 'int32')), t(tf.tensor1d([true, false], 'bool'))));
    assert.equal(embed(tt).supportsMasking, true);
    assert.equal(embed(tt, { maskZero: false }).supportsMasking, embed(tfo, { maskZero: false }).supportsMasking || false);
  });
  it('masking: default and custom maskValue', () => {
    sameMask((tf, t) => tf.layers.masking().computeMask(t(tf.tensor3d([[[0, 0], [1, 0]], [[0, 2], [0, 0]]]))));
    sameMask((tf, t) => tf.layers.masking({ maskValue: -3 }).computeMask(t(tf.tensor3d([[[-3, -3], [1, -3]], [[0, 2], [-3, -3]]]))));
  });
  it('recurrent layers: returnSequences, returnState', () => {
    for (const cfg of [{}, { returnSequences: true }, { returnSequences: true, returnState: true }, { returnState: true }]) {
      sameMask((tf, t) => tf.layers.lstm({ units: 2, ...cfg }).computeMask(t(tf.ones([2, 3, 4])), t(tf.ones([2, 3]))));
      sameMask((tf, t) => tf.layers.gru({ units: 2, ...cfg }).computeMask(t(tf.ones([2, 3, 4])), [t(tf.tensor2d([[1, 0, 1], [0, 0, 1]]))]));
    }
  });
  it('bidirectional: merge modes, returnSequences, returnState', () => {
    for (const mergeMode of ['concat', null]) {
      for (const cfg of [{}, { returnSequences: true }, { returnSequences: true, returnState: true }]) {
        sameMask((tf, t) => tf.layers.bidirectional({ layer: tf.layers.simpleRNN({ units: 2, ...cfg }), mergeMode })
          .computeMask(t(tf.ones([2, 3, 4])), t(tf.ones([2, 3]))));
      }
    }
  });
  it('merges: add (tfjs\'s own quirks), concatenate, dot, and their errors', () => {
    const pair = (tf, t) => [t(tf.tensor2d([[10, 20], [30, 40]])), t(tf.tensor2d([[-2, -1], [-4, -3]]))];
    const masks = (tf, t) => [t(tf.tensor1d([true, false], 'bool')), t(tf.tensor1d([true, true], 'bool'))];
    sameMask((tf, t) => tf.layers.add().computeMask(pair(tf, t), masks(tf, t)));
    sameMask((tf, t) => tf.layers.multiply().computeMask(pair(tf, t), [null, null]));
    sameMask((tf, t) => tf.layers.average().computeMask(pair(tf, t)));
    sameMask((tf, t) => {
      const x = [t(tf.ones([2, 2])), t(tf.ones([2, 2])), t(tf.ones([2, 2]))];
      return tf.layers.maximum().computeMask(x, [t(tf.tensor1d([true, false], 'bool')), t(tf.tensor1d([true, true], 'bool')), null]);
    });
    sameMask((tf, t) => {
      const x1 = t(tf.tensor2d([[1], [0], [1]]));
      const x2 = t(tf.tensor2d([[1], [0], [0]]));
      return tf.layers.concatenate().computeMask([x1, x2], [t(tf.cast(x1, 'bool')), t(tf.cast(x2, 'bool'))]);
    });
    sameMask((tf, t) => tf.layers.concatenate().computeMask([t(tf.ones([2, 3, 2])), t(tf.ones([2, 3, 1]))],
      [t(tf.tensor2d([[1, 0, 1], [0, 1, 1]], [2, 3], 'bool')), null]));
    sameMask((tf, t) => tf.layers.dot({ axes: 1 }).computeMask(pair(tf, t), masks(tf, t)));
    const before = tt.memory().numTensors;
    const [x1, x2] = pair(tt, (x) => x);
    const [m1, m2] = masks(tt, (x) => x);
    assert.throws(() => tt.layers.add().computeMask(x1, [m1, m2]), /inputs.*should be an Array/);
    assert.throws(() => tt.layers.add().computeMask([x1, x2], m1), /mask.*should be an Array/);
    assert.throws(() => tt.layers.add().computeMask([x1, x2], [m1]), / are expected to have the same/);
    assert.throws(() => tt.layers.concatenate().computeMask([x1, x2], [m1]), /Mismatch in the length of mask \(1\)/);
    tt.dispose([x1, x2, m1, m2]);
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  });
  it('pass-through layers give the mask back; others refuse one with tfjs\'s TypeError', () => {
    for (const make of [(tf) => tf.layers.dense({ units: 2 }), (tf) => tf.layers.dropout({ rate: 0.1 }),
      (tf) => tf.layers.timeDistributed({ layer: tf.layers.dense({ units: 2 }) }), (tf) => tf.layers.reLU()]) {
      assert.equal(make(tt).supportsMasking, make(tfo).supportsMasking, make(tt).getClassName());
      const x = tt.ones([2, 3, 4]);
      const m = tt.ones([2, 3], 'bool');
      assert.equal(make(tt).computeMask(x, m), m, 'the same tensor');
      assert.equal(make(tt).computeMask(x, null), null);
      tt.dispose([x, m]);
    }
    for (const make of [(tf) => tf.layers.flatten(), (tf) => tf.layers.conv1d({ filters: 1, kernelSize: 1 }), (tf) => tf.layers.leakyReLU()]) {
      assert.equal(make(tt).supportsMasking, make(tfo).supportsMasking, make(tt).getClassName());
      const before = tt.memory().numTensors;
      const x = tt.ones([2, 3, 4]);
      const m = tt.ones([2, 3], 'bool');
      const layer = make(tt);
      assert.throws(() => layer.computeMask(x, m), (e) => e instanceof TypeError
        && e.message === `Layer ${layer.name} does not support masking, but was passed an inputMask.`);
      assert.equal(layer.computeMask(x, [null]), null);
      tt.dispose([x, m]);
      assert.equal(tt.memory().numTensors, before, 'tensors left behind');
    }
  });
});
