'use strict';
// Differential tests of the recurrent family and the wrappers: simpleRNN, lstm and gru with
// their options (returnSequences, returnState, goBackwards, stateful, dropout and
// recurrentDropout, initial states), the cells as layers (simpleRNNCell, lstmCell, gruCell,
// stackedRNNCells), tf.layers.rnn over a cell or a list of cells, bidirectional,
// timeDistributed, convLstm2d and convLstm2dCell. Each layer is built with the same config on tidytensor and on
// @tensorflow/tfjs 4.22, tfjs's weights (set to deterministic random values) are copied into
// ours, and both are applied to the same input: outputs (1e-4), output shapes, weight names,
// getConfig and memory must agree. Models holding the layers go through toJSON and back, both
// ways between the libraries, and train to the same history.
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');
const {
  size, list, data, closeTo, compareTensors, randomizeWeights, copyWeights,
} = require('./helpers/layers');

// ---- deterministic data ------------------------------------------------------------------

// ---- comparison --------------------------------------------------------------------------

const TOL = 1e-4;

// A weight's name without the uid suffixes tfjs and tidytensor draw independently.
const stripUid = (name) => name.replace(/_[A-Z][A-Za-z0-9]*?\d+(?=\/|$)/g, '').replace(/_\d+$/, '');

// Config values compared with null and undefined alike, names of nested layers and cells
// left out (their uids differ).
const norm = (v) => JSON.parse(JSON.stringify(v, (k, x) => (x == null || k === 'name' ? undefined : x)) || 'null');

// Builds `make(tf)` on both libraries for inputs of `shapes` (the first the sequence, the
// others initial states), copies tfjs's (randomized) weights into ours, applies both and
// compares everything observable.
function checkLayer(make, shapes, { tol = TOL, kwargs = {}, configSkip = [] } = {}) {
  const multi = Array.isArray(shapes[0]);
  const inShapes = multi ? shapes : [shapes];
  const values = inShapes.map((s, i) => data(size(s), i + 1));
  const before = tt.memory().numTensors;

  const ours = make(tt);
  const theirs = make(tfo);
  assert.equal(ours.getClassName(), theirs.getClassName(), 'getClassName()');

  const symbolic = inShapes.map((s) => tfo.input({ shape: s.slice(1) }));
  const symbolicShapes = list(theirs.apply(multi ? symbolic : symbolic[0])).map((t) => t.shape);
  randomizeWeights(theirs, 101);

  const a = ours.getConfig();
  const b = theirs.getConfig();
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (key === 'name' || configSkip.includes(key)) continue;
    assert.deepEqual(norm(a[key]), norm(b[key]), `getConfig().${key}`);
  }

  const onSymbolic = make(tt);
  const ins = inShapes.map((s) => tt.input({ shape: s.slice(1) }));
  const outs = list(onSymbolic.apply(multi ? ins : ins[0]));
  assert.deepEqual(outs.map((t) => t.shape), symbolicShapes, 'symbolic output shapes');
  onSymbolic.dispose();
  assert.equal(tt.memory().numTensors, before, 'tensors left behind by the symbolic call');

  const xsOurs = inShapes.map((s, i) => tt.tensor(values[i], s));
  const xsTheirs = inShapes.map((s, i) => tfo.tensor(values[i], s));
  const argOurs = multi ? xsOurs : xsOurs[0];
  const argTheirs = multi ? xsTheirs : xsTheirs[0];
  try {
    tt.dispose(ours.apply(argOurs));
    assert.deepEqual(ours.weights.map((w) => stripUid(w.name)), theirs.weights.map((w) => stripUid(w.name)),
      'weight names');
    assert.deepEqual(ours.weights.map((w) => w.shape), theirs.weights.map((w) => w.shape), 'weight shapes');
    copyWeights(ours, theirs);
    const got = list(ours.apply(argOurs, kwargs));
    const want = list(theirs.apply(argTheirs, kwargs));
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

const SEQ = [2, 5, 3];

// ---- the recurrent layers ----------------------------------------------------------------

describe('simpleRNN, lstm and gru', () => {
  const rows = [];
  for (const factory of ['simpleRNN', 'lstm', 'gru']) {
    rows.push(
      [`${factory}`, (tf) => tf.layers[factory]({ units: 4 }), SEQ],
      [`${factory} returnSequences, returnState`,
        (tf) => tf.layers[factory]({ units: 4, returnSequences: true, returnState: true }), SEQ],
      [`${factory} goBackwards, no bias, relu`,
        (tf) => tf.layers[factory]({ units: 3, goBackwards: true, useBias: false, activation: 'relu', returnSequences: true }), SEQ],
      [`${factory} with dropout, not training`,
        (tf) => tf.layers[factory]({ units: 3, dropout: 0.5, recurrentDropout: 0.3, unroll: true }), SEQ],
    );
  }
  rows.push(
    ['lstm unitForgetBias, sigmoid recurrent activation, implementation 2',
      (tf) => tf.layers.lstm({ units: 2, unitForgetBias: true, recurrentActivation: 'sigmoid', implementation: 2 }), SEQ],
    ['gru with initial state', (tf) => tf.layers.gru({ units: 3, returnState: true }), [SEQ, [2, 3]]],
    ['lstm with initial states', (tf) => tf.layers.lstm({ units: 3, returnSequences: true }), [SEQ, [2, 3], [2, 3]]],
  );
  cases(rows);

  it('initial states through kwargs.initialState', () => {
    const x = data(size(SEQ), 4);
    const h = data(6, 5);
    const run = (tf) => {
      const layer = tf.layers.lstm({ units: 3, kernelInitializer: 'ones', recurrentInitializer: 'ones' });
      const y = layer.apply(tf.tensor(x, SEQ), { initialState: [tf.tensor(h, [2, 3]), tf.tensor(h, [2, 3]).neg()] });
      const v = Array.from(y.dataSync());
      layer.dispose();
      return v;
    };
    closeTo(tt.tidy(() => run(tt)), tfo.tidy(() => run(tfo)), TOL, 'output');
  });

  it('bad configs and initial states get tfjs\'s texts', () => {
    sameError((tf) => tf.layers.gru({ units: 2, resetAfter: true }));
    sameError((tf) => tf.layers.rnn({ units: 2 }));
    sameError((tf) => tf.layers.lstm({ units: 2 }).resetStates());
    // tfjs prints its InputSpecs as [object Object]; ours are shapes.
    assert.throws(() => tt.layers.lstm({ units: 2 }).apply(tt.input({ shape: [4, 3] }), { initialState: [tt.input({ shape: [2] })] }),
      { message: 'An initialState was passed that is not compatible with cell.stateSize. Received stateSpec=[null,2]; However cell.stateSize is 2,2' });
  });
});

describe('dropout and recurrentDropout while training', () => {
  // Masks are drawn once per call of the layer, only while training. Where tfjs differs we
  // choose this behaviour: tfjs's generic RNN (tf.layers.rnn) never clears its cell's masks,
  // so the first call's masks (all ones when it was not training) stay for good, and a bare
  // cell keeps its first masks forever; ours draw fresh masks at each call. `dropoutFunc`
  // (tfjs's hook for its own tests) is accepted and not called: the masks are drawn natively.
  // Input masks are drawn once per call: every step of a sample drops the same features.
  it('the input mask is the same at every step, 0 or 1 / (1 - rate)', () => {
    const before = tt.memory().numTensors;
    const features = 40;
    const layer = tt.layers.simpleRNN({
      units: 1, dropout: 0.5, activation: 'linear', returnSequences: true,
      kernelInitializer: 'ones', recurrentInitializer: 'zeros', dropoutFunc: (x) => x,
    });
    const x = tt.ones([3, 4, features]);
    const y = layer.apply(x, { training: true });
    const v = y.dataSync();
    for (let b = 0; b < 3; b++) {
      const first = v[b * 4];
      assert.equal(first % 2, 0, 'a sum of 2s');
      assert.ok(first > 0 && first < 2 * features, `some features dropped, some kept (${first})`);
      for (let t = 1; t < 4; t++) assert.equal(v[b * 4 + t], first, 'the same mask at every step');
    }
    // Not training: no dropout.
    const z = layer.apply(x);
    assert.deepEqual(Array.from(z.dataSync()), new Array(12).fill(features));
    tt.dispose([x, y, z]);
    layer.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('the recurrent mask is the same at every step', () => {
    const before = tt.memory().numTensors;
    const units = 30;
    const layer = tt.layers.simpleRNN({
      units, recurrentDropout: 0.5, activation: 'linear', returnSequences: true,
      kernelInitializer: 'ones', recurrentInitializer: 'identity',
    });
    const x = tt.ones([2, 3, 1]);
    const y = layer.apply(x, { training: true });
    const v = y.dataSync();
    // h1 = 1; h2 = 1 + m h1; h3 = 1 + m h2 with m in {0, 2} per unit, fixed over time.
    const seen = new Set();
    for (let b = 0; b < 2; b++) {
      for (let u = 0; u < units; u++) {
        const seq = [0, 1, 2].map((t) => v[(b * 3 + t) * units + u]);
        const key = seq.join(',');
        assert.ok(key === '1,1,1' || key === '1,3,7', `unit ${u}: ${key}`);
        seen.add(key);
      }
    }
    assert.equal(seen.size, 2, 'some units dropped, some kept');
    tt.dispose([x, y]);
    layer.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('configs keep the rates, clamped to [0, 1] as tfjs', () => {
    for (const tf of [tt, tfo]) {
      const c = tf.layers.lstm({ units: 2, dropout: 1.5, recurrentDropout: -1 }).getConfig();
      assert.equal(c.dropout, 1);
      assert.equal(c.recurrentDropout, 0);
    }
  });
});

describe('stateful', () => {
  it('states carry over between predicts, resetStates(states?) as tfjs', () => {
    const before = tt.memory().numTensors;
    const build = (tf) => {
      const m = tf.sequential({ layers: [
        tf.layers.lstm({ units: 3, stateful: true, batchInputShape: [2, 4, 3], returnSequences: true }),
        tf.layers.gru({ units: 2, stateful: true }),
      ] });
      return m;
    };
    const ours = build(tt);
    const theirs = build(tfo);
    randomizeWeights(theirs, 11);
    copyWeights(ours, theirs);
    assert.equal(ours.layers[0].stateful, true);
    const x = data(24, 9);
    const predict = (m, tf) => tf.tidy(() => Array.from(m.predict(tf.tensor(x, [2, 4, 3])).dataSync()));
    for (let i = 0; i < 3; i++) closeTo(predict(ours, tt), predict(theirs, tfo), TOL, `predict ${i}`);
    ours.resetStates();
    theirs.resetStates();
    closeTo(predict(ours, tt), predict(theirs, tfo), TOL, 'after resetStates()');
    const states = (tf) => [tf.tensor(data(6, 1), [2, 3]), tf.tensor(data(6, 2), [2, 3])];
    const so = states(tt);
    const st = states(tfo);
    ours.layers[0].resetStates(so);
    theirs.layers[0].resetStates(st);
    tt.dispose(so);
    tfo.dispose(st);
    closeTo(predict(ours, tt), predict(theirs, tfo), TOL, 'after resetStates(states)');
    // tfjs's texts (it prints the states' values after 'Input received: '; ours their kind).
    const name = ours.layers[0].name;
    for (const [states, text] of [[[tt.zeros([2, 3])], `Layer ${name} expects 2 state(s), but it received 1 state value(s). Input received: Tensor`],
      [[tt.zeros([3, 3]), tt.zeros([2, 3])], `State 0 is incompatible with layer ${name}: expected shape=2,3, received shape=3,3`]]) {
      assert.throws(() => ours.layers[0].resetStates(states), { message: text });
      tt.dispose(states);
    }
    ours.dispose();
    theirs.dispose();
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  });

  it('a stateful layer needs its batch size', () => {
    sameError((tf) => tf.sequential().add(tf.layers.simpleRNN({ units: 2, stateful: true, inputShape: [3, 2] })));
  });

  it('the states follow training too (fit, then predict)', async () => {
    const before = tt.memory().numTensors;
    const build = (tf) => {
      const m = tf.sequential({ layers: [
        tf.layers.simpleRNN({ units: 3, stateful: true, batchInputShape: [2, 3, 2] }),
        tf.layers.dense({ units: 1 }),
      ] });
      m.compile({ optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError' });
      return m;
    };
    const ours = build(tt);
    const theirs = build(tfo);
    randomizeWeights(theirs, 3);
    copyWeights(ours, theirs);
    const xs = data(24, 4);
    const ys = data(4, 5);
    const fit = async (m, tf) => {
      const x = tf.tensor(xs, [4, 3, 2]);
      const y = tf.tensor(ys, [4, 1]);
      const h = await m.fit(x, y, { epochs: 2, batchSize: 2, shuffle: false, verbose: 0 });
      const p = tf.tidy(() => Array.from(m.predict(x, { batchSize: 2 }).dataSync()));
      tf.dispose([x, y]);
      return [h.history.loss, p];
    };
    const [lo, po] = await fit(ours, tt);
    const [lt, pt] = await fit(theirs, tfo);
    closeTo(lo, lt, TOL, 'loss');
    closeTo(po, pt, TOL, 'predictions');
    ours.dispose();
    theirs.dispose();
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  });
});

// ---- cells and rnn -----------------------------------------------------------------------

describe('cells', () => {
  // tfjs's cells fail in apply() before they are built (their build takes one shape but apply
  // passes the states' too): ours build from the input's shape. tfjs's are built first here.
  function checkCell(make, stateUnits, features = 3) {
    const before = tt.memory().numTensors;
    const ours = make(tt);
    const theirs = make(tfo);
    theirs.build([null, features]);
    // tfjs's StackedRNNCells.setWeights gives each cell the wrong slice (its splice): its
    // cells are set one by one.
    (theirs.cells || [theirs]).forEach((c, i) => randomizeWeights(c, 5 + 10 * i));
    const shapes = [[2, features], ...stateUnits.map((u) => [2, u])];
    const args = (tf) => shapes.map((s, i) => tf.tensor(data(size(s), 20 + i), s));
    const ao = args(tt);
    const at = args(tfo);
    tt.dispose(ours.apply(ao));
    copyWeights(ours, theirs);
    const got = ours.apply(ao);
    const want = theirs.apply(at);
    assert.equal(got.length, want.length, 'number of outputs');
    want.forEach((w, i) => compareTensors(got[i], w, TOL, `output ${i}`));
    const a = ours.getConfig();
    const b = theirs.getConfig();
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (key !== 'name') assert.deepEqual(norm(a[key]), norm(b[key]), `getConfig().${key}`);
    }
    const symbolic = ours.apply(shapes.map((s) => tt.input({ shape: s.slice(1) })));
    assert.deepEqual(symbolic.map((s) => s.shape), want.map((w) => [null, ...w.shape.slice(1)]), 'symbolic shapes');
    tt.dispose([...ao, ...got]);
    tfo.dispose([...at, ...want]);
    // Counted once for the call on tensors and once for the symbolic call, as in tfjs.
    assert.deepEqual(ours.dispose(), { refCountAfterDispose: 1, numDisposedVariables: 0 });
    assert.equal(ours.dispose().refCountAfterDispose, 0);
    assert.throws(() => ours.dispose(), /is already disposed/);
    theirs.weights.forEach((w) => w.dispose());
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  }

  it('simpleRNNCell', () => checkCell((tf) => tf.layers.simpleRNNCell({ units: 4 }), [4]));
  it('lstmCell', () => checkCell((tf) => tf.layers.lstmCell({ units: 4 }), [4, 4]));
  it('gruCell', () => checkCell((tf) => tf.layers.gruCell({ units: 4, activation: 'relu' }), [4]));
  it('stackedRNNCells (states in reverse cell order)', () => checkCell((tf) => tf.layers.stackedRNNCells({
    cells: [tf.layers.lstmCell({ units: 4 }), tf.layers.gruCell({ units: 2 })],
  }), [2, 4, 4]));

  it('a wrong number of states gets tfjs\'s text', () => {
    for (const [factory, n, text] of [['lstmCell', 2, 'LSTMCell expects 3 input Tensors (inputs, h, c), got 2.'],
      ['simpleRNNCell', 3, 'SimpleRNNCell expects 2 input Tensors, got 3.']]) {
      const cell = tt.layers[factory]({ units: 2 });
      assert.throws(() => cell.apply(new Array(n).fill(0).map(() => tt.input({ shape: [2] }))), { message: text });
    }
  });
});

describe('rnn', () => {
  cases([
    ['rnn over a simpleRNNCell', (tf) => tf.layers.rnn({ cell: tf.layers.simpleRNNCell({ units: 4 }) }), SEQ],
    ['rnn over an lstmCell, returnSequences, returnState, goBackwards',
      (tf) => tf.layers.rnn({ cell: tf.layers.lstmCell({ units: 3 }), returnSequences: true, returnState: true, goBackwards: true }), SEQ],
    ['rnn over a list of cells (stacked)',
      (tf) => tf.layers.rnn({ cell: [tf.layers.lstmCell({ units: 4 }), tf.layers.gruCell({ units: 2 }), tf.layers.simpleRNNCell({ units: 3 })], returnState: true }), SEQ],
    ['rnn over stackedRNNCells',
      (tf) => tf.layers.rnn({ cell: tf.layers.stackedRNNCells({ cells: [tf.layers.gruCell({ units: 3 }), tf.layers.gruCell({ units: 2 })] }), returnSequences: true }), SEQ],
  ]);
});

// ---- wrappers ----------------------------------------------------------------------------

describe('bidirectional', () => {
  const rows = [];
  for (const mergeMode of ['concat', 'sum', 'mul', 'ave', null]) {
    rows.push([`lstm, mergeMode ${mergeMode}`,
      (tf) => tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 3, returnSequences: true }), mergeMode }), SEQ]);
  }
  rows.push(
    ['gru, returnState', (tf) => tf.layers.bidirectional({ layer: tf.layers.gru({ units: 3, returnState: true }) }), SEQ],
    ['simpleRNN going backwards, mergeMode null, returnState',
      (tf) => tf.layers.bidirectional({ layer: tf.layers.simpleRNN({ units: 2, goBackwards: true, returnState: true }), mergeMode: null }), SEQ],
  );
  cases(rows);

  // tfjs fails to copy an RNN over a list of cells ('Improper config format' of the stack):
  // the reference is two tfjs RNNs, one going backwards, concatenated.
  it('rnn over stacked cells', () => {
    const before = tt.memory().numTensors;
    const cells = (tf) => [tf.layers.lstmCell({ units: 2 }), tf.layers.gruCell({ units: 3 })];
    const ours = tt.layers.bidirectional({ layer: tt.layers.rnn({ cell: cells(tt), returnSequences: true }) });
    const fwd = tfo.layers.rnn({ cell: cells(tfo), returnSequences: true });
    const bwd = tfo.layers.rnn({ cell: cells(tfo), returnSequences: true, goBackwards: true });
    const x = data(size(SEQ), 8);
    const xt = tfo.tensor(x, SEQ);
    tfo.dispose([fwd.apply(xt), bwd.apply(xt)]);
    randomizeWeights(fwd, 1);
    randomizeWeights(bwd, 21);
    const xo = tt.tensor(x, SEQ);
    tt.dispose(ours.apply(xo));
    const temps = [...fwd.getWeights(), ...bwd.getWeights()].map((w) => tt.tensor(w.dataSync(), w.shape));
    ours.setWeights(temps);
    tt.dispose(temps);
    const want = tfo.tidy(() => tfo.concat([fwd.apply(xt), bwd.apply(xt).reverse(1)], -1));
    const got = ours.apply(xo);
    compareTensors(got, want, TOL, 'output');
    tt.dispose([xo, got]);
    tfo.dispose([xt, want]);
    ours.dispose();
    fwd.dispose();
    bwd.dispose();
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  });

  it('weights are forward then backward, named as tfjs names them', () => {
    const ours = tt.layers.bidirectional({ layer: tt.layers.lstm({ units: 2, name: 'enc' }), name: 'bi' });
    tt.dispose(ours.apply(tt.ones([1, 2, 3])));
    assert.deepEqual(ours.weights.map((w) => w.originalName || w.name), [
      'bi/forward_enc/kernel', 'bi/forward_enc/recurrent_kernel', 'bi/forward_enc/bias',
      'bi/backward_enc/kernel', 'bi/backward_enc/recurrent_kernel', 'bi/backward_enc/bias']);
    ours.dispose();
  });

  it('bad merge modes and initial states get tfjs\'s texts', () => {
    sameError((tf) => tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 2 }), mergeMode: 'max' }));
    sameError((tf) => tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 2 }) })
      .apply(tf.input({ shape: [4, 3] }), { initialState: [tf.input({ shape: [2] })] }));
  });
});

describe('timeDistributed', () => {
  cases([
    ['dense', (tf) => tf.layers.timeDistributed({ layer: tf.layers.dense({ units: 4, activation: 'relu' }) }), SEQ],
    ['conv2d', (tf) => tf.layers.timeDistributed({ layer: tf.layers.conv2d({ filters: 2, kernelSize: 2 }) }), [2, 3, 4, 4, 2]],
    ['flatten', (tf) => tf.layers.timeDistributed({ layer: tf.layers.flatten() }), [2, 3, 2, 2]],
  ]);

  it('inputs of rank below 3 get tfjs\'s text', () => {
    sameError((tf) => tf.layers.timeDistributed({ layer: tf.layers.dense({ units: 2 }) }).apply(tf.input({ shape: [3] })));
  });
});

// ---- serialization and training ----------------------------------------------------------

// A sequential model of `layers(tf)` on both libraries, with the same weights: each one's
// toJSON loads into the other (and ours into ours) and predicts what the original predicts.
async function roundTrip(layers, inputShape) {
  const before = tt.memory().numTensors;
  const ours = tt.sequential({ layers: layers(tt) });
  const theirs = tfo.sequential({ layers: layers(tfo) });
  randomizeWeights(theirs, 7);
  copyWeights(ours, theirs);
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
  const names = artifacts.weightSpecs.map((s) => stripUid(s.name));
  let theirArtifacts;
  await theirs.save(tfo.io.withSaveHandler(async (a) => {
    theirArtifacts = a;
    return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
  }));
  assert.deepEqual(names, theirArtifacts.weightSpecs.map((s) => stripUid(s.name)), 'weight names in the file');
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
  it('lstm, gru and simpleRNN with options', () => roundTrip((tf) => [
    tf.layers.lstm({ units: 4, returnSequences: true, inputShape: [5, 3], dropout: 0.2 }),
    tf.layers.gru({ units: 3, returnSequences: true, goBackwards: true }),
    tf.layers.simpleRNN({ units: 2 }),
  ], SEQ));
  it('bidirectional and timeDistributed', () => roundTrip((tf) => [
    tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 3, returnSequences: true }), inputShape: [5, 3] }),
    tf.layers.bidirectional({ layer: tf.layers.gru({ units: 2, returnSequences: true }), mergeMode: 'ave' }),
    tf.layers.timeDistributed({ layer: tf.layers.dense({ units: 2, activation: 'tanh' }) }),
  ], SEQ));
  it('rnn over a cell and over a list of cells', () => roundTrip((tf) => [
    tf.layers.rnn({ cell: tf.layers.gruCell({ units: 3 }), returnSequences: true, inputShape: [5, 3] }),
    tf.layers.rnn({ cell: [tf.layers.lstmCell({ units: 2 }), tf.layers.simpleRNNCell({ units: 3 })] }),
  ], SEQ));
});

describe('training', () => {
  // The same model, weights and data on both libraries: the same loss history.
  async function sameHistory(layers, inputShape, units) {
    const before = tt.memory().numTensors;
    const build = (tf) => {
      const m = tf.sequential({ layers: layers(tf) });
      m.compile({ optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError' });
      return m;
    };
    const ours = build(tt);
    const theirs = build(tfo);
    randomizeWeights(theirs, 13);
    copyWeights(ours, theirs);
    const xs = data(size(inputShape), 1);
    const ys = data(inputShape[0] * units, 2, -1, 1);
    const fit = async (m, tf) => {
      const x = tf.tensor(xs, inputShape);
      const y = tf.tensor(ys, [inputShape[0], units]);
      const h = await m.fit(x, y, { epochs: 3, batchSize: 4, shuffle: false, verbose: 0 });
      tf.dispose([x, y]);
      return h.history.loss;
    };
    closeTo(await fit(ours, tt), await fit(theirs, tfo), TOL, 'loss history');
    copyWeights(ours, theirs); // also checks the trained weights' shapes
    ours.dispose();
    theirs.dispose();
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  }

  it('bidirectional lstm, then dense', () => sameHistory((tf) => [
    tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 3 }), inputShape: [5, 3] }),
    tf.layers.dense({ units: 2 }),
  ], [8, 5, 3], 2));
  it('rnn over stacked cells, timeDistributed dense, gru', () => sameHistory((tf) => [
    tf.layers.rnn({ cell: [tf.layers.gruCell({ units: 3 }), tf.layers.lstmCell({ units: 3 })], returnSequences: true, inputShape: [5, 3] }),
    tf.layers.timeDistributed({ layer: tf.layers.dense({ units: 2 }) }),
    tf.layers.gru({ units: 2, goBackwards: true }),
  ], [8, 5, 3], 2));
});

// ---- ConvLSTM2D --------------------------------------------------------------------------

describe('convLstm2d', () => {
  const VIDEO = [2, 3, 5, 5, 2];
  cases([
    ['valid padding', (tf) => tf.layers.convLstm2d({ filters: 2, kernelSize: 3 }), VIDEO],
    ['same padding, returnSequences, returnState, goBackwards',
      (tf) => tf.layers.convLstm2d({ filters: 3, kernelSize: [2, 3], padding: 'same', returnSequences: true, returnState: true, goBackwards: true }), VIDEO],
    ['strides, channelsFirst', (tf) => tf.layers.convLstm2d({ filters: 2, kernelSize: 2, strides: 2, dataFormat: 'channelsFirst', returnSequences: true }), [2, 3, 2, 5, 5]],
    ['dilation, no bias, unitForgetBias', (tf) => tf.layers.convLstm2d({ filters: 2, kernelSize: 2, dilationRate: 2, useBias: false, unitForgetBias: true }), [1, 2, 6, 6, 1]],
    ['with dropout, not training', (tf) => tf.layers.convLstm2d({ filters: 2, kernelSize: 2, dropout: 0.3, recurrentDropout: 0.3 }), VIDEO],
  ]);

  it('initial states through kwargs.initialState', () => {
    const x = data(size(VIDEO), 4);
    const h = data(100, 5);
    const run = (tf) => {
      const layer = tf.layers.convLstm2d({ filters: 2, kernelSize: 3, padding: 'same', kernelInitializer: 'ones', recurrentInitializer: 'ones' });
      const y = layer.apply(tf.tensor(x, VIDEO), { initialState: [tf.tensor(h, [2, 5, 5, 2]), tf.tensor(h, [2, 5, 5, 2]).neg()] });
      const v = Array.from(y.dataSync());
      layer.dispose();
      return v;
    };
    closeTo(tt.tidy(() => run(tt)), tfo.tidy(() => run(tfo)), TOL, 'output');
  });

  it('convLstm2dCell: one step, [h, h, c]', () => {
    const before = tt.memory().numTensors;
    const make = (tf) => tf.layers.convLstm2dCell({ filters: 2, kernelSize: 3, padding: 'same' });
    const ours = make(tt);
    const theirs = make(tfo);
    theirs.build([4, 5, 5, 3]);
    randomizeWeights(theirs, 2);
    ours.build([4, 5, 5, 3]);
    copyWeights(ours, theirs);
    const args = (tf) => [[4, 5, 5, 3], [4, 5, 5, 2], [4, 5, 5, 2]].map((s, i) => tf.tensor(data(size(s), 30 + i), s));
    const ao = args(tt);
    const at = args(tfo);
    const got = ours.call(ao, {});
    const want = theirs.call(at, {});
    want.forEach((w, i) => compareTensors(got[i], w, TOL, `output ${i}`));
    const a = ours.getConfig();
    const b = theirs.getConfig();
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (key !== 'name') assert.deepEqual(norm(a[key]), norm(b[key]), `getConfig().${key}`);
    }
    tt.dispose([...ao, ...got]);
    tfo.dispose([...at, ...want]);
    ours.dispose();
    theirs.weights.forEach((w) => w.dispose());
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  });

  it('dropout while training: the same masks at every step', () => {
    const before = tt.memory().numTensors;
    const layer = tt.layers.convLstm2d({ filters: 1, kernelSize: 1, dropout: 0.5, returnSequences: true, recurrentInitializer: 'zeros' });
    const x = tt.ones([2, 3, 4, 4, 8]);
    const y = layer.apply(x, { training: true });
    const v = y.dataSync();
    // No recurrent part changes the gates' inputs over time: with the input masks fixed, only
    // the carried state moves, so step outputs differ between samples but follow one rule.
    const z = layer.apply(x);
    assert.notDeepEqual(Array.from(v), Array.from(z.dataSync()), 'training drops inputs');
    tt.dispose([x, y, z]);
    layer.dispose();
    assert.equal(tt.memory().numTensors, before);
  });

  it('bad configs get tfjs\'s texts', () => {
    sameError((tf) => tf.layers.convLstm2d({ filters: 2, kernelSize: 2, unroll: true }));
    sameError((tf) => tf.layers.convLstm2d({ filters: 2.5, kernelSize: 2 }));
    sameError((tf) => tf.layers.convLstm2d({ filters: 2, kernelSize: 2, padding: 'full' }));
  });

  it('a model holding it round-trips', () => roundTrip((tf) => [
    tf.layers.convLstm2d({ filters: 2, kernelSize: 2, returnSequences: true, inputShape: [3, 5, 5, 2] }),
    tf.layers.timeDistributed({ layer: tf.layers.flatten() }),
    tf.layers.lstm({ units: 2 }),
  ], VIDEO));

  it('trains as tfjs trains it', async () => {
    const before = tt.memory().numTensors;
    const build = (tf) => {
      const m = tf.sequential({ layers: [
        tf.layers.convLstm2d({ filters: 2, kernelSize: 2, inputShape: [3, 4, 4, 1] }),
        tf.layers.flatten(),
        tf.layers.dense({ units: 1 }),
      ] });
      m.compile({ optimizer: tf.train.sgd(0.05), loss: 'meanSquaredError' });
      return m;
    };
    const ours = build(tt);
    const theirs = build(tfo);
    randomizeWeights(theirs, 17);
    copyWeights(ours, theirs);
    const xs = data(6 * 48, 1);
    const ys = data(6, 2, -1, 1);
    const fit = async (m, tf) => {
      const x = tf.tensor(xs, [6, 3, 4, 4, 1]);
      const y = tf.tensor(ys, [6, 1]);
      const h = await m.fit(x, y, { epochs: 3, batchSize: 3, shuffle: false, verbose: 0 });
      tf.dispose([x, y]);
      return h.history.loss;
    };
    closeTo(await fit(ours, tt), await fit(theirs, tfo), TOL, 'loss history');
    ours.dispose();
    theirs.dispose();
    assert.equal(tt.memory().numTensors, before, 'tensors left behind');
  });
});
