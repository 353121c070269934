'use strict';
// The engine conformance checklist (research doc 1.13: items 1-35, 41-42, 46-49), run on
// tidytensor and, as a check on the expectations themselves, on @tensorflow/tfjs.
const { describe, it } = require('node:test');
const { tt, tfo, assert, throwsMsg, counts } = require('./helpers/setup');

for (const [libName, tf] of [['tidytensor', tt], ['tfjs', tfo]]) {
  const N = () => tf.memory().numTensors;
  const B = () => tf.memory().numBytes;
  const D = () => tf.memory().numDataBuffers;

  describe(`engine conformance (${libName})`, () => {
    it('1. tidy returns exactly what fn returns', () => {
      assert.equal(tf.tidy(() => 5), 5);
      assert.equal(tf.tidy(() => 'hello'), 'hello');
      assert.equal(tf.tidy(() => undefined), undefined);
      const obj = { a: 1 };
      assert.equal(tf.tidy(() => obj), obj);
    });

    it('2. tidy(name, fn) runs fn once and returns its value', () => {
      let calls = 0;
      const r = tf.tidy('name', () => { calls++; return 7; });
      assert.equal(r, 7);
      assert.equal(calls, 1);
      assert.equal(tf.tidy(new String('boxed'), () => 8), 8);
    });

    it('3-5. tidy argument errors', () => {
      throwsMsg(() => tf.tidy('asdf'), 'Please provide a function to tidy()');
      throwsMsg(() => tf.tidy(), 'Please provide a function to tidy()');
      throwsMsg(() => tf.tidy(4, () => 1),
        'When calling with two arguments, the first argument to tidy() must be a string');
      throwsMsg(() => tf.tidy('n', 'x'),
        'When calling with two arguments, the 2nd argument to tidy() must be a function');
    });

    it('6. intermediates are disposed, returned tensors survive', () => {
      const n0 = N();
      const r = tf.tidy(() => {
        const a = tf.tensor1d([1, 2, 3]);
        const b = a.square();
        return b.add(1);
      });
      assert.equal(N(), n0 + 1);
      assert.deepEqual(Array.from(r.dataSync()), [2, 5, 10]);
      r.dispose();
      assert.equal(N(), n0);
    });

    it('7. three adds returning nothing leave N unchanged', () => {
      const a = tf.scalar(1);
      const n0 = N();
      tf.tidy(() => {
        const b = tf.add(a, a);
        const c = tf.add(b, a);
        tf.add(c, a);
      });
      assert.equal(N(), n0);
      a.dispose();
    });

    it('8. nested returned containers survive', () => {
      const n0 = N();
      const [t1, [[t2]], { list: [t3] }] = tf.tidy(() => {
        const x = tf.scalar(9);
        x.square();
        return [tf.scalar(1), [[tf.scalar(2)]], { list: [tf.scalar(3)] }];
      });
      assert.equal(t1.isDisposed, false);
      assert.equal(t2.isDisposed, false);
      assert.equal(t3.isDisposed, false);
      assert.equal(N(), n0 + 3);
      tf.dispose([t1, t2, t3]);
      assert.equal(N(), n0);
    });

    it('8b. cyclic containers are walked safely', () => {
      const n0 = N();
      const r = tf.tidy(() => {
        const o = { t: tf.scalar(1) };
        o.self = o;
        o.arr = [o, o.t];
        return o;
      });
      assert.equal(r.t.isDisposed, false);
      assert.equal(N(), n0 + 1);
      tf.dispose(r);
      assert.equal(N(), n0);
    });

    it('9. returned containers may mix non-tensors', () => {
      const n0 = N();
      const r = tf.tidy(() => ({ a: tf.scalar(1), b: 'hello', c: [tf.scalar(2), 'world', 3, null] }));
      assert.equal(r.b, 'hello');
      assert.equal(r.c[1], 'world');
      assert.equal(N(), n0 + 2);
      tf.dispose(r);
      assert.equal(N(), n0);
    });

    it('10. a tensor returned from an inner tidy dies with the outer tidy', () => {
      let inner;
      const n0 = N();
      tf.tidy(() => {
        inner = tf.tidy(() => tf.scalar(1).add(1));
        assert.equal(inner.isDisposed, false);
      });
      assert.equal(inner.isDisposed, true);
      assert.equal(N(), n0);
    });

    it('11. returning a tensor created outside does not dispose it', () => {
      const a = tf.scalar(1);
      const r = tf.tidy(() => tf.tidy(() => a));
      assert.equal(r, a);
      assert.equal(a.isDisposed, false);
      tf.tidy(() => { tf.tidy(() => a); });
      assert.equal(a.isDisposed, false);
      a.dispose();
    });

    it('12. nested scope counts', () => {
      const n0 = N();
      tf.tidy(() => {
        const a = tf.tensor1d([1, 2]);
        tf.tidy(() => {
          const b = tf.tensor1d([1, 2]);
          tf.tidy(() => {
            tf.tensor1d([1, 2]);
            tf.tensor1d([1, 2]);
            assert.equal(N(), n0 + 4);
          });
          assert.equal(N(), n0 + 2);
          return b;
        });
        assert.equal(N(), n0 + 2);
        return a;
      });
      // neither a nor b was returned by the outer tidy... a was: 1 left
      assert.equal(N(), n0 + 1);
      tf.disposeVariables();
    });

    it('13. an exception disposes the scope and propagates the same error', () => {
      const n0 = N();
      const err = new Error('boom');
      assert.throws(() => tf.tidy(() => {
        tf.scalar(1);
        tf.tensor1d([1, 2]).square();
        throw err;
      }), (e) => e === err);
      assert.equal(N(), n0);
    });

    it('14. a Promise result: console.error, scope ended, Promise returned', async () => {
      const n0 = N();
      const orig = console.error;
      const logged = [];
      console.error = (...args) => logged.push(args.join(' '));
      let p;
      let early;
      try {
        p = tf.tidy(() => {
          early = tf.scalar(1);
          return (async () => 3)();
        });
      } finally {
        console.error = orig;
      }
      assert.ok(p instanceof Promise);
      assert.deepEqual(logged, ['Cannot return a Promise inside of tidy.']);
      assert.equal(early.isDisposed, true);
      assert.equal(N(), n0);
      assert.equal(await p, 3);
    });

    it('15. keep returns its argument', () => {
      const t = tf.scalar(1);
      assert.equal(tf.keep(t), t);
      t.dispose();
    });

    it('16. kept in an inner tidy, created in the outer: survives both', () => {
      let a;
      tf.tidy(() => {
        a = tf.scalar(1);
        tf.tidy(() => { tf.keep(a); });
      });
      assert.equal(a.isDisposed, false);
      a.dispose();
    });

    it('17. a kept tensor returned from tidy is not disposed by the enclosing tidy', () => {
      let k;
      tf.tidy(() => {
        k = tf.tidy(() => tf.keep(tf.scalar(2)));
      });
      assert.equal(k.isDisposed, false);
      assert.equal(k.kept, true);
      k.dispose();
    });

    it('18. keep outside a scope changes no counters', () => {
      const t = tf.scalar(1);
      const before = counts(tf);
      tf.keep(t);
      assert.deepEqual(counts(tf), before);
      t.dispose();
    });

    it('19-20. dispose is idempotent; isDisposed flips', () => {
      const n0 = N();
      const t = tf.tensor1d([1, 2]);
      assert.equal(t.isDisposed, false);
      assert.equal(N(), n0 + 1);
      t.dispose();
      t.dispose();
      assert.equal(N(), n0);
      assert.equal(t.isDisposed, true);
    });

    it('21. tf.dispose walks containers, ignores non-tensors', () => {
      const a = tf.scalar(1);
      const b = tf.scalar(2);
      const c = tf.scalar(3);
      tf.dispose([a, { b }, [[c]]]);
      assert.ok(a.isDisposed && b.isDisposed && c.isDisposed);
      tf.dispose(null);
      tf.dispose(undefined);
      tf.dispose(5);
      tf.dispose('x');
      tf.dispose({ a: 1 });
      const d = tf.scalar(4);
      tf.dispose(d);
      assert.ok(d.isDisposed);
    });

    it('22. reading or deriving from a disposed tensor throws Tensor is disposed.', async () => {
      const t = tf.tensor1d([1, 2]);
      t.dispose();
      throwsMsg(() => t.dataSync(), 'Tensor is disposed.');
      throwsMsg(() => t.arraySync(), 'Tensor is disposed.');
      throwsMsg(() => t.clone(), 'Tensor is disposed.');
      throwsMsg(() => t.add(1), 'Tensor is disposed.');
      throwsMsg(() => t.square(), 'Tensor is disposed.');
      throwsMsg(() => t.reshape([2, 1]), 'Tensor is disposed.');
      throwsMsg(() => t.cast('int32'), 'Tensor is disposed.');
      throwsMsg(() => t.toString(), 'Tensor is disposed.');
      // (tfjs overflows its stack here; tidytensor reports the disposed tensor)
      if (tf === tt) throwsMsg(() => tf.variable(t), 'Tensor is disposed.');
      await assert.rejects(t.data(), { message: 'Tensor is disposed.' });
      await assert.rejects(t.array(), { message: 'Tensor is disposed.' });
    });

    it('22b. a chained op with a TensorLike argument on a disposed tensor leaks nothing', () => {
      const t = tf.tensor1d([1, 2]);
      t.dispose();
      const before = counts(tf);
      assert.throws(() => t.add([1, 2]));
      assert.throws(() => t.matMul([[1]]));
      assert.deepEqual(counts(tf), before);
    });

    it('23. a functional op on a disposed tensor throws', () => {
      const t = tf.tensor1d([1, 2]);
      const x = tf.tensor1d([1, 2]);
      t.dispose();
      assert.throws(() => tf.add(t, x));
      x.dispose();
    });

    it('24. counts of a tensor1d and a reduction in tidy', () => {
      const before = counts(tf);
      const a = tf.tensor1d([1, 2, 3, 4]);
      assert.equal(N() - before.numTensors, 1);
      assert.equal(B() - before.numBytes, 16);
      assert.equal(D() - before.numDataBuffers, 1);
      a.dispose();
      const s = tf.tidy(() => tf.tensor1d([1, 2, 3, 4]).sum());
      assert.equal(N() - before.numTensors, 1);
      assert.equal(B() - before.numBytes, 4);
      s.dispose();
    });

    it('25. bool tensors count one byte per element; sum of bool is int32', () => {
      const b0 = B();
      const t = tf.tensor1d([true, false, true, true]);
      assert.equal(t.dtype, 'bool');
      assert.equal(B() - b0, 4);
      const s = tf.tidy(() => t.sum());
      assert.equal(s.dtype, 'int32');
      assert.equal(s.dataSync()[0], 3);
      tf.dispose([t, s]);
    });

    it('27-28. reshape and clone share data: N+1, D+0, B+bytes; data survives the source', () => {
      const a = tf.tensor2d([[1, 2], [3, 4]]);
      const before = counts(tf);
      const b = a.reshape([4]);
      const c = a.clone();
      const after = counts(tf);
      assert.equal(after.numTensors - before.numTensors, 2);
      assert.equal(after.numDataBuffers - before.numDataBuffers, 0);
      assert.equal(after.numBytes - before.numBytes, 32);
      a.dispose();
      assert.deepEqual(Array.from(b.dataSync()), [1, 2, 3, 4]);
      assert.deepEqual(b.shape, [4]);
      assert.equal(D(), before.numDataBuffers);
      b.dispose();
      assert.equal(D(), before.numDataBuffers);
      c.dispose();
      assert.equal(D(), before.numDataBuffers - 1);
    });

    it('30. memory() fields', () => {
      const m = tf.memory();
      for (const k of ['numTensors', 'numDataBuffers', 'numBytes', 'unreliable']) {
        assert.ok(k in m, k);
      }
      assert.equal(typeof m.numTensors, 'number');
      assert.equal(typeof m.unreliable, 'boolean');
      if (m.unreliable) assert.ok(Array.isArray(m.reasons) || m.reasons === undefined);
    });

    it('31. variable(t): N+1, D+0, distinct default names', () => {
      const t = tf.tensor1d([1, 2]);
      const before = counts(tf);
      const v = tf.variable(t);
      const w = tf.variable(t);
      assert.equal(N() - before.numTensors, 2);
      assert.equal(D() - before.numDataBuffers, 0);
      assert.equal(typeof v.name, 'string');
      assert.notEqual(v.name, w.name);
      assert.equal(v.trainable, true);
      assert.deepEqual(v.shape, [2]);
      assert.equal(v.dtype, 'float32');
      tf.dispose([v, w, t]);
    });

    it('32-33. named variables: duplicates throw, names are freed by dispose', () => {
      const v = tf.variable(tf.scalar(1), true, 'myName');
      assert.equal(v.name, 'myName');
      throwsMsg(() => tf.variable(tf.scalar(2), true, 'myName'),
        'Variable with name myName was already registered');
      v.dispose();
      const v2 = tf.variable(tf.scalar(3), false, 'myName');
      assert.equal(v2.trainable, false);
      assert.equal(tf.engine().registeredVariables.myName, v2);
      tf.variable(tf.scalar(3), true, 'other');
      tf.disposeVariables();
      // tfjs frees the data but leaves isDisposed false on variables freed this way.
      if (tf === tt) assert.equal(v2.isDisposed, true);
      assert.deepEqual(Object.keys(tf.engine().registeredVariables), []);
      const v3 = tf.variable(tf.scalar(4), true, 'myName');
      v3.dispose();
    });

    it('34. a variable made in tidy survives; its initial value does not', () => {
      const n0 = N();
      let init;
      const v = tf.tidy(() => {
        init = tf.tensor1d([1, 2]);
        tf.variable(init, true, 'fromTidy');
      });
      assert.equal(v, undefined);
      assert.equal(init.isDisposed, true);
      const kept = tf.engine().registeredVariables.fromTidy;
      assert.equal(kept.isDisposed, false);
      assert.deepEqual(Array.from(kept.dataSync()), [1, 2]);
      assert.equal(N(), n0 + 1);
      kept.dispose();
      assert.equal(N(), n0);
    });

    it('35. assign checks shape and dtype; valid assign keeps counts', () => {
      const v = tf.variable(tf.tensor1d([1, 2]));
      throwsMsg(() => v.assign(tf.tensor1d([1, 2, 3])),
        'shape of the new value (3) and previous value (2) must match');
      throwsMsg(() => v.assign(tf.tensor1d([1, 2], 'int32')),
        'dtype of the new value (int32) and previous value (float32) must match');
      throwsMsg(() => v.assign(5), 'dtype of the new value (undefined) and previous value (float32) must match');
      const x = tf.tensor1d([5, 6]);
      const before = counts(tf);
      v.assign(x);
      assert.deepEqual(counts(tf), before);
      assert.equal(x.isDisposed, false);
      assert.deepEqual(Array.from(v.dataSync()), [5, 6]);
      tf.disposeVariables();
      x.dispose();
    });

    it('variable with a dtype casts the initial value', () => {
      const v = tf.variable(tf.tensor1d([1.5, 2]), true, 'castMe', 'int32');
      assert.equal(v.dtype, 'int32');
      assert.deepEqual(Array.from(v.dataSync()), [1, 2]);
      v.dispose();
    });

    it('41. engine().startScope/endScope', () => {
      const n0 = N();
      tf.engine().startScope();
      tf.scalar(1);
      const kept = tf.scalar(2);
      tf.engine().endScope(kept);
      assert.equal(N(), n0 + 1);
      assert.equal(kept.isDisposed, false);
      kept.dispose();
      tf.engine().startScope('named');
      tf.tensor1d([1, 2, 3]).square();
      tf.engine().endScope();
      assert.equal(N(), n0);
    });

    it('42. setBackend of an unknown name rejects', async () => {
      await assert.rejects(tf.setBackend('nope'),
        { message: "Backend name 'nope' not found in registry" });
      assert.equal(typeof tf.getBackend(), 'string');
    });

    it('46. a data() started before disposal resolves', async () => {
      let p;
      tf.tidy(() => {
        const t = tf.scalar(5);
        p = t.data();
      });
      assert.equal(tf.memory().numTensors >= 0, true);
      const v = await p;
      assert.equal(v[0], 5);
    });

    it('47. dataSync typed array types', () => {
      const ts = [tf.tensor1d([1.5]), tf.tensor1d([1], 'int32'), tf.tensor1d([true])];
      assert.ok(ts[0].dataSync() instanceof Float32Array);
      assert.ok(ts[1].dataSync() instanceof Int32Array);
      assert.ok(ts[2].dataSync() instanceof Uint8Array);
      tf.dispose(ts);
    });

    it('48. ids are unique and increase', () => {
      const a = tf.scalar(1);
      const b = tf.scalar(2);
      const c = a.add(b);
      assert.equal(typeof a.id, 'number');
      assert.ok(a.id < b.id && b.id < c.id);
      tf.dispose([a, b, c]);
    });

    it('49. instanceof', () => {
      const t = tf.scalar(1);
      const v = tf.variable(tf.scalar(1));
      assert.equal(t instanceof tf.Tensor, true);
      assert.equal({ something: 'else' } instanceof tf.Tensor, false);
      assert.equal(t instanceof tf.Variable, false);
      assert.equal(v instanceof tf.Variable, true);
      assert.equal(v instanceof tf.Tensor, true);
      tf.dispose([t, v]);
    });

    it('tensor metadata fields', () => {
      const t = tf.tensor3d([[[1, 2, 3], [4, 5, 6]]]);
      assert.deepEqual(t.shape, [1, 2, 3]);
      assert.equal(t.rank, 3);
      assert.equal(t.size, 6);
      assert.deepEqual(t.strides, [6, 3]);
      assert.equal(t.dtype, 'float32');
      assert.equal(t.kept, false);
      t.dispose();
    });

    it('time() and backend()', async () => {
      const r = await tf.time(() => tf.tidy(() => tf.ones([10, 10]).matMul(tf.ones([10, 10]))));
      assert.equal(typeof r.kernelMs, 'number');
      assert.equal(typeof r.wallMs, 'number');
      assert.ok(r.kernelMs <= r.wallMs);
      assert.equal(typeof tf.backend(), 'object');
      await tf.ready();
    });
  });
}

describe('tidytensor specifics', () => {
  it('setBackend resolves to true for every registered backend', async () => {
    const current = tt.getBackend();
    const names = tt.engine().backendNames();
    assert.ok(Array.isArray(names) && names.includes(current));
    assert.equal(await tt.setBackend(current), true);
    assert.equal(tt.getBackend(), current);
    assert.equal(tt.backend().name, current);
  });

  it('dataSync returns every value of large tensors (copied in parallel chunks), each dtype', () => {
    const before = tt.memory().numTensors;
    for (const n of [0, 1, 32767, 32768, 65536, 131071, 131072, 200003]) {
      for (const dtype of ['float32', 'int32', 'bool']) {
        const make = dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Uint8Array;
        const v = make.from({ length: n }, (_, i) => (dtype === 'bool' ? i % 3 === 0 : i * 3 - 7));
        const t = tt.tensor(v, [n], dtype);
        const d = t.dataSync();
        t.dispose();
        assert.equal(d.constructor, make);
        assert.ok(d.length === n && d.every((x, i) => x === v[i]), `${dtype} of ${n} values`);
      }
    }
    assert.equal(tt.memory().numTensors, before);
  });

  it('string tensors of non-string values hold their String() (tfjs stores the raw numbers)', () => {
    const x = tt.tensor([1, true], [2], 'string');
    assert.deepEqual([x.dtype, x.dataSync()], ['string', ['1', 'true']]);
    x.dispose();
  });
});

describe('engine().registryFactory', () => {
  it('lists the backends with their factories and priorities, as tfjs (libraries check it)', () => {
    const reg = tt.engine().registryFactory;
    const want = tfo.engine().registryFactory;
    assert.equal(typeof reg.cpu.factory, 'function');
    assert.equal(reg.cpu.priority, want.cpu.priority);
    tt.registerBackend('registry-factory-test', () => null, 7);
    try {
      assert.deepEqual(tt.engine().registryFactory['registry-factory-test'].priority, 7);
    } finally {
      tt.removeBackend('registry-factory-test');
    }
    assert.equal(tt.engine().registryFactory['registry-factory-test'], undefined);
  });
});
