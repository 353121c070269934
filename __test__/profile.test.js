'use strict';
// tf.profile / tf.time.
const { describe, it } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');

describe('profile', () => {
  it('37. the square example (tfjs engine_test) on both libraries', async () => {
    for (const tf of [tt, tfo]) {
      const info = await tf.profile(() => {
        const x = tf.tensor1d([1, 2, 3]);
        let x2 = x.square();
        x2.dispose();
        x2 = x.square();
        x2.dispose();
        return x;
      });
      const result = info.result;
      assert.equal(info.newBytes, 12);
      assert.equal(info.peakBytes, 24);
      assert.equal(info.newTensors, 1);
      assert.deepEqual(Array.from(result.dataSync()), [1, 2, 3]);
      assert.equal(info.kernels.length, 2);
      for (const k of info.kernels) {
        assert.equal(k.name, 'Square');
        assert.equal(k.bytesAdded, 12);
        assert.equal(k.totalBytesSnapshot, 24 + (k.totalBytesSnapshot - 24));
        assert.equal(k.tensorsAdded, 1);
        assert.deepEqual(k.inputShapes, [[3]]);
        assert.deepEqual(k.outputShapes, [[3]]);
        assert.equal(typeof k.kernelTimeMs, 'number');
        assert.equal(k.extraInfo, '');
      }
      result.dispose();
    }
  });

  it('38-39. async functions; kernelNames; same records as tfjs', async () => {
    const program = async (tf) => {
      const a = tf.tensor2d([[1, 2], [3, 4]]);
      await new Promise((r) => setTimeout(r, 1));
      const r = tf.tidy(() => {
        const b = tf.matMul(a, a);
        const c = tf.add(b, 1).abs().square();
        return tf.sum(c, 1);
      });
      a.dispose();
      return r;
    };
    const want = await tfo.profile(() => program(tfo));
    const got = await tt.profile(() => program(tt));
    assert.deepEqual(got.kernelNames, want.kernelNames);
    assert.deepEqual(got.kernelNames, ['BatchMatMul', 'Add', 'Abs', 'Square', 'Sum']);
    assert.equal(got.newBytes, want.newBytes);
    assert.equal(got.newTensors, want.newTensors);
    assert.equal(got.kernels.length, want.kernels.length);
    for (let i = 0; i < want.kernels.length; i++) {
      const g = got.kernels[i];
      const w = want.kernels[i];
      assert.equal(g.name, w.name);
      assert.equal(g.bytesAdded, w.bytesAdded, `${w.name} bytesAdded`);
      assert.equal(g.tensorsAdded, w.tensorsAdded, `${w.name} tensorsAdded`);
      assert.deepEqual(g.inputShapes, w.inputShapes);
      assert.deepEqual(g.outputShapes, w.outputShapes);
      assert.ok(!(g.kernelTimeMs instanceof Promise));
      assert.ok(!(g.extraInfo instanceof Promise));
    }
    assert.deepEqual(Array.from(got.result.dataSync()), Array.from(want.result.dataSync()));
    got.result.dispose();
    want.result.dispose();
  });

  it('kernel names for each op match tfjs', async () => {
    const program = (tf) => {
      const a = tf.tensor1d([1, 2, 3]);
      const i = tf.tensor1d([1, 2, 3], 'int32');
      const out = [a.mean(), a.max(), a.min(), a.argMax(), a.argMin(), tf.softmax(a),
        a.reshape([3, 1]), a.expandDims(0), tf.ones([1, 3]).squeeze(), a.transpose(),
        tf.ones([2, 3]).transpose(), tf.concat([a, a]), tf.stack([a, a]), a.slice(1),
        tf.gather(a, [0]), a.clone(), a.cast('int32'), tf.relu(a), tf.neg(a), tf.pow(a, 2),
        tf.maximum(a, 1), tf.minimum(a, 1), tf.div(a, 2), tf.div(i, i), tf.sub(a, 1),
        tf.mul(a, 2), tf.sqrt(a), tf.exp(a), tf.log(a), tf.abs(a), tf.sigmoid(a), tf.tanh(a),
        tf.square(a), tf.fill([2], 3), tf.range(0, 3), tf.linspace(0, 1, 3),
        tf.oneHot(tf.tensor1d([0], 'int32'), 3), tf.zerosLike(a), tf.onesLike(a),
        tf.rsqrt(a), tf.squaredDifference(a, 1), tf.floorDiv(a, 2), tf.zeros([2]),
        tf.ones([2]), a.toFloat(), a.toInt(), a.toBool()];
      return out;
    };
    const want = await tfo.profile(() => program(tfo));
    const got = await tt.profile(() => program(tt));
    assert.deepEqual(got.kernels.map((k) => k.name), want.kernels.map((k) => k.name));
    assert.equal(got.newTensors, want.newTensors);
    assert.equal(got.newBytes, want.newBytes);
    tt.dispose(got.result);
    tfo.dispose(want.result);
  });

  it('peakBytes is -Infinity when no kernel ran; profiling stops after an error', async () => {
    const info = await tt.profile(() => 1);
    assert.equal(info.peakBytes, -Infinity);
    assert.deepEqual(info.kernels, []);
    await assert.rejects(tt.profile(() => { throw new Error('inside'); }), { message: 'inside' });
    const t = tt.tensor1d([1]);
    const info2 = await tt.profile(() => 2);
    t.square().dispose();
    assert.deepEqual(info2.kernels, []);
    t.dispose();
  });
});

describe('time', () => {
  it('40. kernelMs <= wallMs', async () => {
    const r = await tt.time(() => {
      tt.tidy(() => tt.ones([64, 64]).matMul(tt.ones([64, 64])));
    });
    assert.equal(typeof r.kernelMs, 'number');
    assert.equal(typeof r.wallMs, 'number');
    assert.ok(r.kernelMs > 0);
    assert.ok(r.kernelMs <= r.wallMs);
  });
});
