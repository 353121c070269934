'use strict';
// The ops tfjs composes of others that live once, in crates/core (issue 26): each is checked
// against @tensorflow/tfjs 4.22 through tf.* and, where tfjs-converter maps it, through a
// one-node graph model run on both libraries; values, shapes, dtypes, and that nothing leaks.
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');
const { GraphBuilder, attr, lcg } = require('./fixtures/graph/generate');

function close(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(want[i])) {
      assert.ok(Number.isNaN(got[i]), `${what}[${i}]: got ${got[i]}, expected NaN`);
      continue;
    }
    const scale = Math.max(1, Math.abs(want[i]));
    assert.ok(Math.abs(got[i] - want[i]) <= tol * scale, `${what}[${i}]: got ${got[i]}, expected ${want[i]}`);
  }
}

// Runs `program(tf)` on both libraries: the same shapes, dtypes and values (1e-5), no leak here.
function same(program, what) {
  const before = tt.memory().numTensors;
  const outs = [tt, tfo].map((tf) => {
    const r = program(tf);
    const list = Array.isArray(r) ? r : [r];
    const read = list.map((t) => ({ shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync()) }));
    tf.dispose(list);
    return read;
  });
  assert.equal(tt.memory().numTensors, before, `${what}: tensors left on tidytensor`);
  const [got, want] = outs;
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    assert.deepEqual(got[i].shape, want[i].shape, `${what}: shape`);
    assert.equal(got[i].dtype, want[i].dtype, `${what}: dtype`);
    close(got[i].values, want[i].values, 1e-5, what);
  }
}

const X = (tf) => tf.tensor2d(Array.from(lcg(24, 3, 4)).concat([NaN]).slice(1), [4, 6]);

describe('through tf.*', () => {
  it('clipByValue: float32, int32 and bool, NaN, equal bounds', () => {
    same((tf) => tf.tidy(() => tf.clipByValue(X(tf), -1.5, 2)), 'clip float32');
    same((tf) => tf.tidy(() => tf.clipByValue(tf.tensor1d([-3, 0, 4, 9], 'int32'), 0.5, 4.5)), 'clip int32');
    same((tf) => tf.tidy(() => tf.clipByValue(tf.tensor1d([true, false]), 0, 1)), 'clip bool');
    same((tf) => tf.tidy(() => tf.clipByValue(X(tf), 1, 1)), 'clip equal bounds');
  });
  it('leakyRelu, addN, logSoftmax, moments', () => {
    same((tf) => tf.tidy(() => tf.leakyRelu(X(tf), 0.3)), 'leakyRelu');
    same((tf) => tf.tidy(() => tf.addN([X(tf), X(tf).mul(2), tf.ones([4, 6])])), 'addN');
    same((tf) => tf.tidy(() => tf.addN([tf.tensor1d([1, 2], 'int32')])), 'addN of one');
    same((tf) => tf.tidy(() => tf.logSoftmax(X(tf))), 'logSoftmax');
    same((tf) => tf.tidy(() => { const m = tf.moments(X(tf), 0, true); return [m.mean, m.variance]; }), 'moments');
  });
  it('their gradients', () => {
    const grads = (tf) => tf.tidy(() => tf.grads((x) => tf.addN([
      tf.clipByValue(x, -1, 1), tf.leakyRelu(x, 0.2), tf.logSoftmax(x), tf.moments(x, 1, true).variance.mul(tf.onesLike(x)),
    ]).sum())([tf.tensor2d(Array.from(lcg(24, 5, 3)), [4, 6])]));
    same(grads, 'gradients');
  });
  it('errors as tfjs, nothing left behind', () => {
    for (const [what, program] of [
      ['clip min > max', (tf) => tf.clipByValue(tf.ones([2]), 3, 1)],
      ['addN dtypes', (tf) => tf.addN([tf.ones([2]), tf.ones([2], 'int32')])],
      ['addN shapes', (tf) => tf.addN([tf.ones([2]), tf.ones([3])])],
      ['logSoftmax axis', (tf) => tf.logSoftmax(tf.ones([2, 3]), 0)],
    ]) {
      const before = tt.memory().numTensors;
      const texts = [tt, tfo].map((tf) => {
        try {
          tf.tidy(() => program(tf));
        } catch (e) {
          return e.message;
        }
        return null;
      });
      assert.equal(texts[0], texts[1], what);
      assert.ok(texts[0], `${what} throws`);
      assert.equal(tt.memory().numTensors, before, `${what}: tensors left`);
    }
  });
});

describe('through a graph model (the converter\'s op names)', () => {
  // A graph of one op node over a [4, 6] input x, run with the same input on both libraries.
  async function oneNode(build, what) {
    const g = new GraphBuilder(what);
    g.placeholder('x', [-1, 6]);
    build(g);
    g.node('Identity', 'Identity', ['y'], { T: attr.type('float32') });
    const input = Array.from(lcg(24, 9, 4));
    const before = tt.memory().numTensors;
    const results = [];
    for (const tf of [tt, tfo]) {
      const artifacts = g.artifacts();
      const model = await tf.loadGraphModel(tf.io.fromMemory({ ...artifacts, weightData: artifacts.weightData.slice(0) }));
      const x = tf.tensor2d(input, [4, 6]);
      const y = model.predict(x);
      results.push({ shape: y.shape, values: Array.from(y.dataSync()) });
      tf.dispose([x, y]);
      model.dispose();
    }
    assert.equal(tt.memory().numTensors, before, `${what}: tensors left on tidytensor`);
    assert.deepEqual(results[0].shape, results[1].shape, what);
    close(results[0].values, results[1].values, 1e-5, what);
  }
  const T = attr.type('float32');
  it('ClipByValue', () => oneNode((g) => {
    g.constant('lo', [], [-1]);
    g.constant('hi', [], [1.5]);
    g.node('y', 'ClipByValue', ['x', 'lo', 'hi'], { T });
  }, 'ClipByValue'));
  it('LeakyRelu', () => oneNode((g) => g.node('y', 'LeakyRelu', ['x'], { T, alpha: attr.float(0.25) }), 'LeakyRelu'));
  it('AddN', () => oneNode((g) => {
    g.constant('c', [4, 6]);
    g.node('y', 'AddN', ['x', 'c', 'x'], { T, N: attr.int(3) });
  }, 'AddN'));
  it('LogSoftmax', () => oneNode((g) => g.node('y', 'LogSoftmax', ['x'], { T }), 'LogSoftmax'));
});
