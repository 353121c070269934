'use strict';
// tf.tidyAsync (issue 12): tf.tidy across awaits. The scope follows the async context, so
// concurrent calls each collect only their own tensors; the resolved value's tensors move to
// the caller's scope; a rejection disposes everything collected and rethrows.
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { describe, it } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');

const N = () => tt.memory().numTensors;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const immediate = () => new Promise((resolve) => setImmediate(resolve));

// Deterministic pseudo-random numbers in [0, 1).
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

// Runs fn with console.error captured (tidy's 'Cannot return a Promise inside of tidy.').
function quietly(fn) {
  const logged = [];
  const orig = console.error;
  console.error = (...args) => logged.push(args.join(' '));
  try {
    return { value: fn(), logged };
  } finally {
    console.error = orig;
  }
}

function value(t) {
  return t.dataSync()[0];
}

describe('tidyAsync: concurrency', () => {
  it('100 interleaved calls each dispose only their own tensors', async () => {
    const before = N();
    const order = [];
    let inFlight = 0;
    let maxInFlight = 0;

    const job = async (k) => {
      const rand = rng(1000 + k);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Tensors made before the first await, and after each one; every one holds k + step.
      const mine = [[tt.scalar(k), k]];
      const junk = tt.fill([3], k); // a temporary: disposed at the end
      for (let step = 1; step <= 4; step++) {
        const r = rand();
        if (r < 0.4) await sleep(Math.floor(rand() * 6));
        else if (r < 0.7) await immediate();
        else await mine[mine.length - 1][0].data();
        order.push(k);
        // Another call disposing one of ours early would make these reads throw.
        for (const [t, v] of mine) assert.equal(value(t), v, `job ${k} step ${step}`);
        assert.deepEqual(Array.from(await junk.data()), [k, k, k]);
        const last = mine[mine.length - 1][0];
        mine.push([last.add(1), k + step]);
        tt.square(last); // a temporary
      }
      inFlight--;
      const [a] = mine[4];
      const [b] = mine[2];
      // Each call returns one tensor, an object or an array holding some.
      if (k % 3 === 0) return { kind: 'tensor', out: a, count: 1, want: [k + 4] };
      if (k % 3 === 1) return { kind: 'object', out: { a, n: k, nested: { b } }, count: 2, want: [k + 4, k + 2] };
      return { kind: 'array', out: [a, b, 'x'], count: 2, want: [k + 4, k + 2] };
    };

    const results = await Promise.all(Array.from({ length: 100 }, (_, k) => tt.tidyAsync(() => job(k))));
    // The calls really did interleave.
    assert.equal(maxInFlight, 100);
    const sequential = order.every((k, i) => i === 0 || k >= order[i - 1]);
    assert.ok(!sequential, 'the steps of different calls interleave');

    const returned = results.reduce((s, r) => s + r.count, 0);
    assert.equal(N(), before + returned);
    const all = [];
    for (const r of results) {
      const ts = r.kind === 'tensor' ? [r.out] : r.kind === 'object' ? [r.out.a, r.out.nested.b] : r.out.slice(0, 2);
      assert.deepEqual(ts.map(value), r.want);
      all.push(...ts);
    }
    tt.dispose(all);
    assert.equal(N(), before);
  });

  it('concurrent calls share inputs made outside; the inputs survive', async () => {
    const before = N();
    const x = tt.tensor1d([1, 2, 3]);
    const outs = await Promise.all([1, 2, 3, 4].map((k) => tt.tidyAsync(async () => {
      const y = x.mul(k);
      await sleep(5 - k);
      return y.sum();
    })));
    assert.deepEqual(outs.map(value), [6, 12, 18, 24]);
    assert.deepEqual(Array.from(x.dataSync()), [1, 2, 3]);
    assert.equal(N(), before + 5);
    tt.dispose([x, ...outs]);
    assert.equal(N(), before);
  });
});

describe('tidyAsync: results and scopes', () => {
  it('resolves to fn\'s value; non-tensor values pass through', async () => {
    const before = N();
    assert.equal(await tt.tidyAsync(async () => { tt.scalar(1); return 5; }), 5);
    assert.equal(await tt.tidyAsync(async () => 'hi'), 'hi');
    assert.equal(await tt.tidyAsync(async () => {}), undefined);
    const obj = { a: 1 };
    assert.equal(await tt.tidyAsync(async () => obj), obj);
    assert.equal(N(), before);
  });

  it('tidyAsync(name, fn) and a non-async fn', async () => {
    const before = N();
    const a = await tt.tidyAsync('named', async () => { tt.ones([2]); await immediate(); return tt.scalar(3); });
    const b = await tt.tidyAsync(new String('boxed'), () => tt.scalar(4).add(1));
    assert.equal(value(a), 3);
    assert.equal(value(b), 5);
    assert.equal(N(), before + 2);
    tt.dispose([a, b]);
  });

  it('tidy inside tidyAsync: temporaries go at once, the result lives until the scope ends', async () => {
    const before = N();
    let inner;
    await tt.tidyAsync(async () => {
      await immediate();
      const n1 = N();
      inner = tt.tidy(() => tt.scalar(2).mul(3).add(1));
      assert.equal(N(), n1 + 1, 'tidy disposed its temporaries synchronously');
      await sleep(1);
      assert.equal(value(inner), 7, 'tidy\'s result belongs to the async scope');
    });
    assert.ok(inner.isDisposed);
    assert.equal(N(), before);

    const kept = await tt.tidyAsync(async () => {
      await immediate();
      return tt.tidy(() => tt.scalar(2).mul(3));
    });
    assert.equal(value(kept), 6);
    assert.equal(N(), before + 1);
    kept.dispose();
  });

  it('tidyAsync inside tidyAsync: the inner result joins the outer scope', async () => {
    const before = N();
    let innerResult;
    let innerTemp;
    const out = await tt.tidyAsync(async () => {
      innerResult = await tt.tidyAsync(async () => {
        innerTemp = tt.scalar(1);
        await sleep(1);
        return innerTemp.add(10);
      });
      assert.ok(innerTemp.isDisposed, 'inner temporaries go when the inner call settles');
      await immediate();
      assert.equal(value(innerResult), 11, 'the inner result lives on in the outer scope');
      return innerResult.mul(2);
    });
    assert.ok(innerResult.isDisposed, 'not returned by the outer call: disposed at its end');
    assert.equal(value(out), 22);
    assert.equal(N(), before + 1);
    out.dispose();

    // Returned by both: survives.
    const both = await tt.tidyAsync(async () => {
      const r = await tt.tidyAsync(async () => { await immediate(); return tt.scalar(5); });
      await immediate();
      return [r];
    });
    assert.equal(value(both[0]), 5);
    assert.equal(N(), before + 1);
    both[0].dispose();
  });

  it('concurrent nested calls in one outer call', async () => {
    const before = N();
    const out = await tt.tidyAsync(async () => {
      const parts = await Promise.all([3, 1, 2].map((k) => tt.tidyAsync(async () => {
        const t = tt.scalar(k);
        await sleep(k);
        return t.mul(10);
      })));
      return tt.addN(parts);
    });
    assert.equal(value(out), 60);
    assert.equal(N(), before + 1);
    out.dispose();
  });

  // tf.tidy sees a promise: like tfjs, it logs 'Cannot return a Promise inside of tidy.', ends
  // its scope at once (disposing the tensors fn made before its first await) and returns the
  // promise. Tensors made after the first await belong to the tidyAsync scope only.
  it('tidyAsync inside a synchronous tidy: tidy returns the promise', async () => {
    const before = N();
    let early;
    let p;
    const { value: r, logged } = quietly(() => tt.tidy(() => {
      p = tt.tidyAsync(async () => {
        early = tt.scalar(1);
        await sleep(1);
        const late = tt.scalar(2);
        return { late, earlyDisposed: early.isDisposed };
      });
      return p;
    }));
    assert.equal(r, p);
    assert.deepEqual(logged, ['Cannot return a Promise inside of tidy.']);
    assert.ok(early.isDisposed, 'tidy disposed what was made before the first await');
    const out = await p;
    assert.equal(out.earlyDisposed, true);
    assert.equal(value(out.late), 2);
    assert.equal(N(), before + 1);
    out.late.dispose();
  });

  it('tf.keep inside: kept tensors survive', async () => {
    const before = N();
    let kept;
    await tt.tidyAsync(async () => {
      await immediate();
      kept = tt.keep(tt.scalar(4));
      tt.scalar(5);
    });
    assert.equal(value(kept), 4);
    assert.equal(N(), before + 1);
    kept.dispose();
  });

  it('variables made inside survive', async () => {
    const before = N();
    let v;
    await tt.tidyAsync(async () => {
      await sleep(1);
      v = tt.variable(tt.tensor1d([1, 2]));
      await immediate();
      v.assign(tt.tensor1d([3, 4]));
    });
    assert.ok(!v.isDisposed);
    assert.deepEqual(Array.from(v.dataSync()), [3, 4]);
    assert.equal(N(), before + 1);
    v.dispose();
    assert.equal(N(), before);
  });

  it('tensors the user disposes inside: no error', async () => {
    const before = N();
    await tt.tidyAsync(async () => {
      const a = tt.scalar(1);
      await immediate();
      a.dispose();
      const b = tt.ones([2]);
      tt.dispose([b]);
    });
    assert.equal(N(), before);
  });

  it('a tensor made before and used inside survives; returning it keeps it', async () => {
    const before = N();
    const x = tt.tensor1d([1, 2]);
    await tt.tidyAsync(async () => { await immediate(); x.add(1); });
    assert.ok(!x.isDisposed);
    const same = await tt.tidyAsync(async () => { await immediate(); return x; });
    assert.equal(same, x);
    assert.ok(!x.isDisposed);
    assert.equal(N(), before + 1);
    x.dispose();
  });

  it('returned containers: arrays, objects, nesting, cycles; not Map or Set (as tidy)', async () => {
    const before = N();
    const out = await tt.tidyAsync(async () => {
      await immediate();
      const o = {
        arr: [tt.scalar(1), [tt.scalar(2)]],
        obj: { deep: { t: tt.scalar(3) } },
        typed: new Float32Array(2),
        map: new Map([['m', tt.scalar(4)]]),
        set: new Set([tt.scalar(5)]),
      };
      o.self = o;
      return o;
    });
    assert.deepEqual([out.arr[0], out.arr[1][0], out.obj.deep.t].map(value), [1, 2, 3]);
    assert.ok(out.map.get('m').isDisposed, 'Map contents are not walked');
    assert.ok([...out.set][0].isDisposed, 'Set contents are not walked');
    assert.equal(N(), before + 3);
    tt.dispose(out);
    assert.equal(N(), before);

    // The same walk as tfjs's synchronous tidy.
    const o = tfo.tidy(() => ({ map: new Map([['m', tfo.scalar(4)]]), arr: [tfo.scalar(1)] }));
    assert.ok(o.map.get('m').isDisposed);
    assert.ok(!o.arr[0].isDisposed);
    o.arr[0].dispose();
  });

  it('a scope with thousands of temporaries still disposes everything (pruning)', async () => {
    const before = N();
    const out = await tt.tidyAsync(async () => {
      const early = [tt.scalar(1), tt.scalar(2)];
      for (let i = 0; i < 5000; i++) {
        tt.scalar(i).dispose();
        if (i % 1000 === 0) await immediate();
      }
      tt.scalar(9);
      return early[1];
    });
    assert.equal(value(out), 2);
    assert.equal(N(), before + 1);
    out.dispose();
  });
});

describe('tidyAsync: rejection', () => {
  it('a throw after awaits disposes everything and rethrows the same error', async () => {
    const before = N();
    const err = new Error('boom');
    let made;
    await assert.rejects(tt.tidyAsync(async () => {
      made = tt.scalar(1);
      await sleep(1);
      tt.ones([3]);
      await immediate();
      throw err;
    }), (e) => e === err);
    assert.ok(made.isDisposed);
    assert.equal(N(), before);
  });

  it('a synchronous throw gives a rejected promise and leaks nothing', async () => {
    const before = N();
    const err = new Error('sync boom');
    let p;
    assert.doesNotThrow(() => {
      p = tt.tidyAsync(() => {
        tt.scalar(1);
        throw err;
      });
    });
    await assert.rejects(p, (e) => e === err);
    assert.equal(N(), before);
  });

  it('kept tensors and variables survive a rejection', async () => {
    const before = N();
    let kept;
    let v;
    await assert.rejects(tt.tidyAsync(async () => {
      await immediate();
      kept = tt.keep(tt.scalar(1));
      v = tt.variable(tt.scalar(2));
      throw new Error('x');
    }), /x/);
    assert.equal(value(kept), 1);
    assert.equal(value(v), 2);
    assert.equal(N(), before + 2);
    tt.dispose([kept, v]);
  });

  it('an inner rejection caught by the outer call', async () => {
    const before = N();
    const out = await tt.tidyAsync(async () => {
      let innerMade;
      await assert.rejects(tt.tidyAsync(async () => {
        innerMade = tt.scalar(1);
        await immediate();
        throw new Error('inner');
      }), /inner/);
      assert.ok(innerMade.isDisposed);
      return tt.scalar(2);
    });
    assert.equal(value(out), 2);
    assert.equal(N(), before + 1);
    out.dispose();
  });

  it('bad arguments: a rejected promise with tidy-like messages', async () => {
    const cases = [
      [[], 'Please provide a function to tidyAsync()'],
      [['name'], 'Please provide a function to tidyAsync()'],
      [[4], 'Please provide a function to tidyAsync()'],
      [[4, async () => 1], 'When calling with two arguments, the first argument to tidyAsync() must be a string'],
      [['name', 'x'], 'When calling with two arguments, the 2nd argument to tidyAsync() must be a function'],
    ];
    for (const [args, msg] of cases) {
      let p;
      assert.doesNotThrow(() => { p = tt.tidyAsync(...args); }, `tidyAsync(${args.map(String)}) must not throw`);
      assert.ok(p instanceof Promise);
      await assert.rejects(p, (e) => e instanceof Error && e.message === msg);
    }
  });
});

describe('tidyAsync: with async APIs', () => {
  const tinyModel = (lib) => {
    const m = lib.sequential({
      layers: [
        lib.layers.dense({ units: 3, inputShape: [2], activation: 'relu', kernelInitializer: 'ones' }),
        lib.layers.dense({ units: 1, kernelInitializer: 'ones' }),
      ],
    });
    m.compile({ optimizer: lib.train.adam(0.01), loss: 'meanSquaredError' });
    return m;
  };
  const fitData = (lib) => [lib.tensor2d([[1, 2], [3, 4], [5, 6]]), lib.tensor2d([[1], [2], [3]])];

  it('await model.fit inside: weights and optimizer variables survive, as in tfjs', async () => {
    // tfjs: what a fit leaves behind (the model's and the optimizer's variables).
    const o0 = tfo.memory().numTensors;
    const om = tinyModel(tfo);
    const [ox, oy] = fitData(tfo);
    const oh = await om.fit(ox, oy, { epochs: 3, batchSize: 2, verbose: 0 });
    tfo.dispose([ox, oy]);
    const tfjsDelta = tfo.memory().numTensors - o0;
    om.dispose();

    const before = N();
    const { model, history } = await tt.tidyAsync(async () => {
      const m = tinyModel(tt);
      const [x, y] = fitData(tt);
      const h = await m.fit(x, y, { epochs: 3, batchSize: 2, verbose: 0 });
      return { model: m, history: h.history };
    });
    assert.equal(N() - before, tfjsDelta);
    assert.equal(history.loss.length, 3);
    assert.ok(history.loss.every((l) => typeof l === 'number'));
    assert.ok(history.loss[2] < history.loss[0]);
    assert.equal(oh.history.loss.length, 3);
    // The model trains and predicts afterwards.
    const p = tt.tidy(() => value(model.predict(tt.tensor2d([[1, 1]]))));
    assert.ok(Number.isFinite(p));
    const [x, y] = fitData(tt);
    await model.fit(x, y, { epochs: 1, verbose: 0 });
    tt.dispose([x, y]);
    assert.equal(N() - before, tfjsDelta);
    model.dispose();
  });

  it('two models fitted concurrently, each in its own tidyAsync', async () => {
    const o0 = tfo.memory().numTensors;
    const om = tinyModel(tfo);
    const [ox, oy] = fitData(tfo);
    await om.fit(ox, oy, { epochs: 2, batchSize: 2, verbose: 0 });
    tfo.dispose([ox, oy]);
    const perModel = tfo.memory().numTensors - o0;
    om.dispose();

    const before = N();
    const models = await Promise.all([1, 2].map(() => tt.tidyAsync(async () => {
      const m = tinyModel(tt);
      const [x, y] = fitData(tt);
      await m.fit(x, y, { epochs: 2, batchSize: 2, verbose: 0 });
      return m;
    })));
    assert.equal(N() - before, 2 * perModel);
    for (const m of models) m.dispose();
  });

  it('await loadLayersModel inside, returning the model: weights survive, predict works', async () => {
    const src = tt.sequential({
      layers: [tt.layers.dense({ units: 2, inputShape: [3], activation: 'relu' }), tt.layers.dense({ units: 1 })],
    });
    let artifacts;
    await src.save(tt.io.withSaveHandler(async (a) => {
      artifacts = a;
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
    }));
    const want = tt.tidy(() => value(src.predict(tt.tensor2d([[1, 2, 3]]))));
    src.dispose();

    const before = N();
    const model = await tt.tidyAsync(async () => {
      const m = await tt.loadLayersModel(tt.io.fromMemory(artifacts));
      await sleep(1);
      m.predict(tt.ones([1, 3])); // a temporary
      return m;
    });
    assert.equal(N() - before, 4, 'the four weight variables');
    const got = tt.tidy(() => value(model.predict(tt.tensor2d([[1, 2, 3]]))));
    assert.ok(Math.abs(got - want) < 1e-5);
    model.dispose();
    assert.equal(N(), before);
  });

  it('a tf.data pipeline with forEachAsync inside', async () => {
    const before = N();
    const sums = [];
    const first = await tt.tidyAsync(async () => {
      const ds = tt.data.array([1, 2, 3, 4, 5, 6]).map((v) => tt.scalar(v).mul(2)).batch(2);
      await ds.forEachAsync((b) => { sums.push(value(b.sum())); });
      const all = await tt.data.array([[1], [2]]).map((v) => tt.tensor1d(v)).toArray();
      return all[0];
    });
    assert.deepEqual(sums, [6, 14, 22]);
    assert.deepEqual(Array.from(first.dataSync()), [1]);
    assert.equal(N(), before + 1);
    first.dispose();
  });
});

describe('tidyAsync: worker threads', () => {
  it('each thread has its own engine and its own scopes', async () => {
    const root = path.resolve(__dirname, '..');
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const tf = require(workerData.root);
      if (process.env.TIDYTENSOR_BACKEND) tf.setBackend(process.env.TIDYTENSOR_BACKEND);
      (async () => {
        const n0 = tf.memory().numTensors;
        const outs = await Promise.all(Array.from({ length: 20 }, (_, k) => tf.tidyAsync(async () => {
          const a = tf.scalar(k);
          await new Promise((r) => setTimeout(r, k % 4));
          tf.ones([2]);
          await a.data();
          return a.add(1);
        })));
        const n1 = tf.memory().numTensors;
        const vals = outs.map((t) => t.dataSync()[0]);
        tf.dispose(outs);
        parentPort.postMessage({ n0, n1, n2: tf.memory().numTensors, vals });
      })().catch((e) => parentPort.postMessage({ error: String(e && e.stack || e) }));
    `;
    const before = N();
    const held = tt.scalar(7);
    const worker = new Worker(code, { eval: true, workerData: { root } });
    const done = new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    // The main thread runs its own calls meanwhile.
    const mains = await Promise.all([1, 2, 3].map((k) => tt.tidyAsync(async () => {
      const t = tt.scalar(k);
      await sleep(2);
      return t.mul(held);
    })));
    const msg = await done;
    await worker.terminate();
    assert.equal(msg.error, undefined, msg.error);
    assert.equal(msg.n1 - msg.n0, 20);
    assert.equal(msg.n2, msg.n0);
    assert.deepEqual(msg.vals, Array.from({ length: 20 }, (_, k) => k + 1));
    assert.deepEqual(mains.map(value), [7, 14, 21]);
    assert.equal(N(), before + 4);
    tt.dispose([held, ...mains]);
    assert.equal(N(), before);
  });
});

describe('tidyAsync: memory stays flat', () => {
  it('1,000 sequential calls of a small pipeline', async () => {
    const x = tt.tensor1d([1, 2, 3, 4]);
    const run = () => tt.tidyAsync(async () => {
      const y = x.mul(2).add(1);
      await immediate();
      const s = y.sum();
      const [v] = await s.data();
      return v;
    });
    await run();
    const base = tt.memory();
    for (let i = 0; i < 1000; i++) {
      assert.equal(await run(), 24);
      if (i % 100 === 99) assert.equal(N(), base.numTensors, `after ${i + 1} calls`);
    }
    const after = tt.memory();
    assert.equal(after.numTensors, base.numTensors);
    assert.equal(after.numBytes, base.numBytes);
    assert.equal(after.numDataBuffers, base.numDataBuffers);
    x.dispose();
  });
});
