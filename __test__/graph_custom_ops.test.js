'use strict';
// tf.registerOp: graph models with ops written in JavaScript, run by the executor where their
// nodes are, as tfjs-converter runs them. Each program runs on tidytensor and on
// @tensorflow/tfjs and the outputs (and the attributes the op sees) must agree; memory is
// where it was after every execution, a failing one too.
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');

const b64 = (s) => Buffer.from(s).toString('base64');
const node = (name, op, input, attr = {}) => ({ name, op, input, attr });
const F = { type: 'DT_FLOAT' };

// x (?, 2) -> SquarePlus(x, c) -> Split2 -> [Relu(:0), Neg(:1)]: two custom ops, one with two
// outputs, between built-in ones.
const topology = {
  node: [
    node('x', 'Placeholder', [], { dtype: F, shape: { shape: { dim: [{ size: '-1' }, { size: '2' }] } } }),
    node('c', 'Const', [], { dtype: F, value: { tensor: { dtype: 'DT_FLOAT', tensorShape: { dim: [{ size: '2' }] } } } }),
    node('sq', 'TtSquarePlus', ['x', 'c'], {
      alpha: { f: 0.5 }, tag: { s: b64('MixedCase') }, n: { i: '3' }, flag: { b: true }, T: F,
      dims: { list: { i: ['1', '2'] } }, names: { list: { s: [b64('a'), b64('B')] } },
      shape: { shape: { dim: [{ size: '4' }, { size: '-1' }] } },
      types: { list: { type: ['DT_INT32', 'DT_BOOL', 'DT_UINT16'] } }, bools: { list: { b: [true, false] } },
      shapes: { list: { shape: [{ dim: [{ size: '2' }] }, { unknownRank: true }] } }, odd: { type: 'DT_UINT16' },
      unknown: { shape: { unknownRank: true } }, empty: { list: {} }, big: { i: '9007199254740993' },
    }),
    node('split', 'TtSplit2', ['sq']),
    node('a', 'Relu', ['split']),
    node('b', 'Neg', ['split:1']),
  ],
  versions: { producer: 1 },
};

function register(tf, seen) {
  tf.registerOp('TtSquarePlus', (n) => {
    seen.push(n.attrs);
    return tf.add(tf.square(n.inputs[0]), tf.mul(n.inputs[1], n.attrs.alpha));
  });
  tf.registerOp('TtSplit2', (n) => tf.split(n.inputs[0], 2, 1));
}

async function load(tf) {
  const weightData = new Float32Array([1, -20]).buffer;
  return tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: topology, weightSpecs: [{ name: 'c', shape: [2], dtype: 'float32' }], weightData, format: 'graph-model',
  }));
}

const X = [[1, 2], [3, -4], [0.5, 7]];

describe('tf.registerOp', () => {
  it('execute and executeAsync run the custom ops where their nodes are, as tfjs does', async () => {
    const seenOurs = [];
    const seenTheirs = [];
    register(tt, seenOurs);
    register(tfo, seenTheirs);
    const ours = await load(tt);
    const theirs = await load(tfo);
    const before = tt.memory().numTensors;
    const x = tt.tensor2d(X);
    const got = ours.execute(x, ['a', 'b']);
    const want = theirs.execute(tfo.tensor2d(X), ['a', 'b']);
    for (let i = 0; i < 2; i++) assert.deepEqual(Array.from(got[i].dataSync()), Array.from(want[i].dataSync()));
    const warn = console.warn;
    console.warn = () => {};
    const gotAsync = await ours.executeAsync(x, ['a', 'b']);
    console.warn = warn;
    for (let i = 0; i < 2; i++) assert.deepEqual(Array.from(gotAsync[i].dataSync()), Array.from(want[i].dataSync()));
    assert.deepStrictEqual(seenOurs[0], seenTheirs[0]);
    assert.equal(seenOurs[0].tag, 'mixedcase');
    tt.dispose([x, ...got, ...gotAsync]);
    assert.equal(tt.memory().numTensors, before);
    ours.dispose();
    tt.deregisterOp('TtSquarePlus');
    tt.deregisterOp('TtSplit2');
    tfo.deregisterOp('TtSquarePlus');
    tfo.deregisterOp('TtSplit2');
  });

  it('an op that returns its input, an asynchronous op, and a deregistered op', async () => {
    tt.registerOp('TtSquarePlus', (n) => n.inputs[0]);
    tt.registerOp('TtSplit2', async (n) => {
      await new Promise((resolve) => setImmediate(resolve));
      return tt.split(n.inputs[0], 2, 1);
    });
    const model = await load(tt);
    const x = tt.tensor2d(X);
    const before = tt.memory().numTensors;
    assert.throws(() => model.execute(x, 'a'), /asynchronous|Promise/);
    assert.equal(tt.memory().numTensors, before);
    const warn = console.warn;
    console.warn = () => {};
    const [a, b] = await model.executeAsync(x, ['a', 'b']);
    console.warn = warn;
    assert.deepEqual(Array.from(a.dataSync()), [1, 3, 0.5]);
    assert.deepEqual(Array.from(b.dataSync()), [-2, 4, -7]);
    assert.equal(x.isDisposed, false);
    tt.dispose([a, b]);
    assert.equal(tt.memory().numTensors, before);
    tt.deregisterOp('TtSplit2');
    assert.throws(() => model.execute(x, 'a'), /TtSplit2/);
    assert.equal(tt.memory().numTensors, before);
    tt.deregisterOp('TtSquarePlus');
    x.dispose();
    model.dispose();
  });

  it('an op that throws: the error reaches the caller and nothing is left behind', async () => {
    tt.registerOp('TtSquarePlus', (n) => tt.mul(n.inputs[0], 2));
    tt.registerOp('TtSplit2', () => {
      throw new Error('split failed');
    });
    const model = await load(tt);
    const x = tt.tensor2d(X);
    const before = tt.memory().numTensors;
    assert.throws(() => model.execute(x, ['a', 'b']), /split failed/);
    await assert.rejects(model.executeAsync(x, ['a', 'b']), /split failed/);
    tt.registerOp('TtSplit2', () => 'not a tensor');
    assert.throws(() => model.execute(x, 'a'), /must return a Tensor/);
    assert.equal(tt.memory().numTensors, before);
    tt.deregisterOp('TtSquarePlus');
    tt.deregisterOp('TtSplit2');
    x.dispose();
    model.dispose();
  });
});
