'use strict';
// tf.buffer / TensorBuffer, tensor.buffer() / bufferSync() (lib/buffer.js) and the chained
// casts toFloat / toInt / toBool (lib/casts.js), against @tensorflow/tfjs 4.22.
const { describe, it } = require('node:test');
const { tt, tfo, assert, same, throwsMsg, counts } = require('./helpers/setup');
const { Tensor } = require('../lib/tensor');
const B = require('../lib/buffer');
const { installCastMethods } = require('../lib/casts');

// index.js does not install these yet; the tests do.
B.installBufferMethods(Tensor);
installCastMethods(Tensor, tt.cast);

// The library's buffer() and TensorBuffer, for programs run on both.
const bufferOf = (lib) => (lib === tt ? B.buffer : lib.buffer);
const classOf = (lib) => (lib === tt ? B.TensorBuffer : lib.TensorBuffer);

// Plain data of a TensorBuffer.
function plain(b) {
  return { shape: b.shape, dtype: b.dtype, size: b.size, strides: b.strides, rank: b.rank,
    values: Array.from(b.values), type: b.values.constructor.name };
}

// Runs program(lib) on both libraries; same plain result or the same error message.
function sameBoth(program) {
  const run = (lib) => {
    try {
      return { value: program(lib) };
    } catch (e) {
      return { error: e.message };
    }
  };
  const want = run(tfo);
  assert.deepEqual(run(tt), want);
  return want;
}

describe('tf.buffer and TensorBuffer (lib/buffer.js)', () => {
  it('creates zero-filled buffers with tfjs fields and defaults', () => {
    for (const [shape, dtype] of [[[], undefined], [[3], 'int32'], [[2, 3, 4], 'bool'],
      [[2, 0, 3], 'float32'], [[1, 2, 1, 2, 1, 2, 1], null]]) {
      const r = sameBoth((lib) => plain(bufferOf(lib)(shape, dtype)));
      assert.equal(r.value.dtype, dtype || 'float32');
      assert.ok(r.value.values.every((v) => v === 0));
    }
    const r = sameBoth((lib) => plain(bufferOf(lib)([2, 3, 4])));
    assert.deepEqual(r.value.strides, [12, 4]);
    assert.equal(r.value.type, 'Float32Array');
    // The constructor itself: no dtype default and no shape check, as in tfjs.
    const c = sameBoth((lib) => plain(new (classOf(lib))([2.5])));
    assert.deepEqual([c.value.dtype, c.value.size, c.value.values.length], [undefined, 2.5, 2]);
  });

  it('keeps given values (no copy) and checks their length', () => {
    const vals = new Int32Array([1, 2, 3, 4]);
    const b = B.buffer([2, 2], 'int32', vals);
    assert.equal(b.values, vals);
    b.set(9, 1, 1);
    assert.equal(vals[3], 9);
    const r = sameBoth((lib) => bufferOf(lib)([2, 2], 'float32', new Float32Array(3)));
    assert.equal(r.error,
      "Length of values '3' does not match the size inferred by the shape '4'.");
    sameBoth((lib) => plain(bufferOf(lib)([3], 'float32', [1, 2, 3])));
  });

  it('rejects bad shapes and dtypes with tfjs messages', () => {
    const cases = [
      [[2, 2.2], 'float32', 'Tensor must have a shape comprised of positive integers but got ' +
        'shape [2,2.2].'],
      [[2, -2], 'float32', 'Tensor must have a shape comprised of positive integers but got ' +
        'shape [2,-2].'],
      [[2], 'complex64', 'complex64 dtype TensorBuffers are not supported. Please create a ' +
        'TensorBuffer for the real and imaginary parts separately and call ' +
        'tf.complex(real, imag).'],
      [[2], 'foo', 'Unknown data type foo'],
    ];
    for (const [shape, dtype, msg] of cases) {
      assert.equal(sameBoth((lib) => bufferOf(lib)(shape, dtype)).error, msg);
    }
    // String buffers hold strings, and become string tensors.
    const sb = B.buffer([2], 'string');
    sb.set('x', 0);
    sb.set('yz', 1);
    const st = sb.toTensor();
    assert.deepEqual([st.dtype, st.dataSync()], ['string', ['x', 'yz']]);
    st.dispose();
  });

  it('set/get by coordinates (tfjs-core buffer_test float32, int32, bool)', () => {
    const r = sameBoth((lib) => {
      const buffer = bufferOf(lib);
      const f = buffer([1, 2, 3], 'float32');
      f.set(1.3, 0, 0, 0);
      f.set(2.9, 0, 1, 0);
      const i = buffer([2, 3], 'int32');
      i.set(1.3, 0, 0);
      i.set(2.1, 1, 1);
      i.set(3e9, 1, 2);
      const b = buffer([4], 'bool');
      b.set(true, 1);
      b.set(true, 2);
      return [f.get(0, 1, 0), plain(f).values, plain(i).values, plain(b).values, b.get(3)];
    });
    assert.deepEqual(r.value, [new Float32Array([2.9])[0],
      Array.from(new Float32Array([1.3, 0, 0, 2.9, 0, 0])), [1, 0, 0, 0, 2, -1294967296],
      [0, 1, 1, 0], 0]);
  });

  it('set/get errors and edge cases match tfjs', () => {
    const cases = {
      'set: too few coordinates': (buf) => buf([2, 2]).set(1, 0),
      'set: none on a scalar': (buf) => buf([]).set(5),
      'get: out of range': (buf) => buf([2, 2]).get(0, 2),
      'get: negative': (buf) => buf([2, 2]).get(-1, 0),
      'get: none on a scalar': (buf) => { const b = buf([]); b.values[0] = 3; return b.get(); },
      'get: too many coordinates': (buf) => buf([2, 2]).get(1, 1, 5),
      'get: too few coordinates': (buf) => {
        const b = buf([2, 3]);
        b.values.set([1, 2, 3, 4, 5, 6]);
        return b.get(1);
      },
    };
    const results = {};
    for (const [name, f] of Object.entries(cases)) results[name] = sameBoth((l) => f(bufferOf(l)));
    assert.deepEqual(results['set: too few coordinates'],
      { error: 'The number of provided coordinates (1) must match the rank (2)' });
    assert.deepEqual(results['set: none on a scalar'],
      { error: 'The number of provided coordinates (1) must match the rank (0)' });
    assert.deepEqual(results['get: out of range'],
      { error: 'Requested out of range element at 0,2.   Buffer shape=2,2' });
    assert.deepEqual(results['get: none on a scalar'], { value: 3 });
    assert.deepEqual(results['get: too many coordinates'], { value: undefined });
    assert.deepEqual(results['get: too few coordinates'], { value: 2 });
  });

  it('locToIndex / indexToLoc (tfjs-core tensor_test)', async () => {
    const a = await tt.zeros([3, 2, 2]).buffer();
    assert.deepEqual([a.indexToLoc(0), a.indexToLoc(5), a.indexToLoc(11)],
      [[0, 0, 0], [1, 0, 1], [2, 1, 1]]);
    assert.deepEqual([a.locToIndex([0, 0, 0]), a.locToIndex([1, 0, 1]),
      a.locToIndex([2, 1, 1])], [0, 5, 11]);
    const s = await tt.scalar(0).buffer();
    assert.deepEqual([s.indexToLoc(0), s.locToIndex([])], [[], 0]);
    const v = tt.zeros([3]).bufferSync();
    assert.deepEqual([v.indexToLoc(2), v.locToIndex([2])], [[2], 2]);
    const five = tt.tensor5d(new Float32Array([1, 2, 3, 4]), [2, 1, 1, 1, 2]).bufferSync();
    assert.deepEqual([five.indexToLoc(1), five.indexToLoc(2), five.indexToLoc(3)],
      [[0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [1, 0, 0, 0, 1]]);
    sameBoth((lib) => {
      const b = bufferOf(lib)([3, 2, 2]);
      const out = [];
      for (let i = 0; i < 15; i++) out.push(b.indexToLoc(i), b.locToIndex(b.indexToLoc(i)));
      return out;
    });
  });

  it('toTensor makes a tensor of the buffer (values, shape, dtype, memory)', () => {
    same((lib) => {
      const b = bufferOf(lib)([2, 3], 'float32');
      b.set(1.3, 0, 0);
      b.set(2.9, 1, 2);
      return b.toTensor();
    });
    same((lib) => bufferOf(lib)([2, 2], 'int32', [1, 2, 3, 4]).toTensor());
    same((lib) => {
      const b = bufferOf(lib)([4], 'bool');
      b.set(true, 1);
      b.set(1, 3);
      return b.toTensor();
    });
    same((lib) => {
      const b = bufferOf(lib)([]);
      b.values[0] = 4;
      return b.toTensor();
    });
    same((lib) => bufferOf(lib)([2, 0, 3], 'int32').toTensor());
    // tfjs does not convert values given in another typed array; tidytensor converts them.
    const x = B.buffer([2], 'int32', new Float32Array([1.5, -2.5])).toTensor();
    assert.deepEqual([x.dtype, Array.from(x.dataSync())], ['int32', [1, -2]]);
    x.dispose();
  });

  it('toTensor copies: later writes to the buffer do not change the tensor', () => {
    const b = B.buffer([2]);
    const x = b.toTensor();
    b.set(7, 0);
    assert.deepEqual(Array.from(x.dataSync()), [0, 0]);
    x.dispose();
  });

  it('toTensor leaks nothing once the tensor is disposed', () => {
    const before = counts(tt);
    const b = B.buffer([64, 64], 'float32');
    b.set(5, 3, 4);
    const x = b.toTensor();
    const during = counts(tt);
    assert.equal(during.numTensors, before.numTensors + 1);
    assert.equal(during.numBytes, before.numBytes + 64 * 64 * 4);
    assert.equal(x.bufferSync().get(3, 4), 5);
    x.dispose();
    assert.deepEqual(counts(tt), before);
    assert.equal(tt.memory().numTensors, before.numTensors);
    // Inside tidy, the tensor is tracked like any other.
    tt.tidy(() => { B.buffer([3], 'int32', new Int32Array([1, 2, 3])).toTensor(); });
    assert.deepEqual(counts(tt), before);
  });
});

describe('tensor.buffer() / tensor.bufferSync() (installBufferMethods)', () => {
  it('holds the tensor values, shape and dtype, as tfjs', async () => {
    for (const [vals, shape, dtype] of [[[1, 2, 3, 4, 5, 6], [2, 3], 'float32'],
      [[1, -2, 3], [3], 'int32'], [[true, false], [2, 1], 'bool'], [[7], [], 'float32']]) {
      const want = tfo.tensor(vals, shape, dtype);
      const got = tt.tensor(vals, shape, dtype);
      assert.deepEqual(plain(got.bufferSync()), plain(want.bufferSync()));
      assert.deepEqual(plain(await got.buffer()), plain(await want.buffer()));
      assert.ok(got.bufferSync() instanceof B.TensorBuffer);
      assert.ok((await got.buffer()) instanceof B.TensorBuffer);
      want.dispose();
      got.dispose();
    }
    // tfjs-core buffer_test 'get() out of range throws'
    const t = tt.tensor([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2]);
    const buff = await t.buffer();
    assert.deepEqual([buff.get(0, 0, 0), buff.get(0, 0, 1)], [1, 2]);
    assert.throws(() => buff.get(0, 0, 2), /Requested out of range element/);
    t.dispose();
  });

  it('writing to the buffer leaves the tensor unchanged', async () => {
    const t = tt.tensor([1, 2, 3]);
    const b = t.bufferSync();
    b.set(9, 0);
    (await t.buffer()).set(8, 1);
    assert.deepEqual(Array.from(t.dataSync()), [1, 2, 3]);
    assert.equal(b.get(0), 9);
    t.dispose();
  });

  it('works on variables, makes no tensor, and refuses disposed tensors', async () => {
    const before = counts(tt);
    const init = tt.tensor([[1, 2], [3, 4]]);
    const v = tt.variable(init);
    init.dispose();
    const withVar = counts(tt);
    assert.equal(v.bufferSync().get(1, 0), 3);
    assert.equal((await v.buffer()).get(0, 1), 2);
    assert.deepEqual(counts(tt), withVar);
    v.dispose();
    assert.deepEqual(counts(tt), before);
    for (const lib of [tt, tfo]) {
      const x = lib.tensor([1]);
      x.dispose();
      throwsMsg(() => x.bufferSync(), 'Tensor is disposed.');
      await assert.rejects(x.buffer(), { message: 'Tensor is disposed.' });
    }
    // The read starts when buffer() is called, so it survives a dispose right after.
    for (const lib of [tt, tfo]) {
      const x = lib.tensor([5, 6]);
      const p = x.buffer();
      x.dispose();
      assert.deepEqual(Array.from((await p).values), [5, 6]);
    }
  });
});

describe('toFloat / toInt / toBool (installCastMethods)', () => {
  it('exist on tfjs 4.22 tensors too', () => {
    const t = tfo.scalar(1);
    for (const m of ['toFloat', 'toInt', 'toBool']) assert.equal(typeof t[m], 'function', m);
    t.dispose();
  });

  it('cast as tfjs does (tfjs-core tensor_test cases)', () => {
    same((tf) => tf.scalar(true, 'bool').toInt());
    same((tf) => tf.tensor1d([1.1, 3.9, -2.9, 0]).toInt());
    same((tf) => tf.tensor2d([1, 3, 0, -1], [2, 2], 'int32').toBool());
    same((tf) => tf.tensor3d([true, false, false, true], [2, 2, 1], 'bool').toFloat());
    same((tf) => tf.tensor1d([1.5, NaN, 0, -0.2]).toBool());
    same((tf) => tf.tensor1d([7, -8], 'int32').toFloat());
    const i = tt.tensor1d([1.1, 3.9, -2.9, 0]).toInt();
    assert.deepEqual([i.dtype, Array.from(i.dataSync())], ['int32', [1, 3, -2, 0]]);
    i.dispose();
  });

  it('return a new tensor even for the same dtype (tfjs "asType is functional")', () => {
    const a = tt.scalar(2.4, 'float32');
    const b = a.toFloat();
    assert.notEqual(a.id, b.id);
    b.dispose();
    assert.ok(Math.abs(a.dataSync()[0] - 2.4) < 1e-6);
    a.dispose();
    same((tf) => {
      const x = tf.tensor([1, 2], [2], 'int32');
      return [x, x.toInt()];
    });
  });

  it('refuse disposed tensors', () => {
    for (const lib of [tt, tfo]) {
      const x = lib.tensor([1.5]);
      x.dispose();
      for (const m of ['toFloat', 'toInt', 'toBool']) {
        throwsMsg(() => x[m](), 'Tensor is disposed.');
      }
    }
  });
});
