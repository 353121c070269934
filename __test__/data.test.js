'use strict';
// Differential tests of tf.data and model.fitDataset / evaluateDataset: the same dataset
// program runs on @tensorflow/tfjs and on tidytensor; elements (values, shapes, dtypes, order),
// sizes, error texts and training histories must agree, and on tidytensor a pipeline whose
// results are disposed leaves the tensor count where it was.
const { it, describe, after } = require('node:test');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { tt, tfo, assert, counts, snapshot } = require('./helpers/setup');

const IRIS = path.join(__dirname, '..', 'examples', 'data', 'iris.csv');
const IRIS_URL = pathToFileURL(IRIS).href;
const IRIS_COLUMNS = ['sepalLength', 'sepalWidth', 'petalLength', 'petalWidth', 'species'];
// The file's header line (150,4,setosa,...) is replaced by these names; species is the label.
const IRIS_CONFIG = { columnNames: IRIS_COLUMNS, columnConfigs: { species: { isLabel: true } } };

// Every tensor in a (nested) array / object.
function tensorsIn(x, out = []) {
  if (x == null) return out;
  if (x instanceof tt.Tensor || x instanceof tfo.Tensor) out.push(x);
  else if (Array.isArray(x)) x.forEach((v) => tensorsIn(v, out));
  else if (typeof x === 'object') Object.values(x).forEach((v) => tensorsIn(v, out));
  return out;
}

function sameSnap(got, want, tol, where) {
  if (want != null && typeof want === 'object' && 'values' in want && 'dtype' in want) {
    assert.deepEqual(got.shape, want.shape, `${where}: shape`);
    assert.equal(got.dtype, want.dtype, `${where}: dtype`);
    assert.equal(got.values.length, want.values.length, `${where}: count`);
    want.values.forEach((w, i) => {
      const g = got.values[i];
      if (typeof w !== 'number' || Number.isNaN(w)) assert.deepEqual(g, w, `${where}[${i}]`);
      else assert.ok(Math.abs(g - w) <= tol * Math.max(1, Math.abs(w)), `${where}[${i}]: got ${g}, expected ${w}`);
    });
  } else if (want != null && typeof want === 'object') {
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${where}: keys`);
    for (const k of Object.keys(want)) sameSnap(got[k], want[k], tol, `${where}.${k}`);
  } else {
    assert.deepEqual(got, want, where);
  }
}

// Runs `make(tf)` (a dataset, or [dataset, tensors to dispose afterwards]) on both libraries,
// consumes it with `consume` (toArray by default) and compares the elements and the sizes. On
// tidytensor, disposing the elements and the sources must restore the tensor count.
async function pipeline(make, { consume = (ds) => ds.toArray(), tol = 1e-6 } = {}) {
  const results = [];
  for (const tf of [tfo, tt]) {
    const before = counts(tf);
    const made = make(tf);
    const [ds, sources] = Array.isArray(made) ? made : [made, []];
    const out = await consume(ds, tf);
    results.push({ snap: snapshot(tf, out), size: ds.size });
    tf.dispose(tensorsIn(out));
    tf.dispose(sources);
    if (tf === tt) assert.deepEqual(counts(tt), before, 'tidytensor tensors after the pipeline');
  }
  const [want, got] = results;
  assert.equal(got.size, want.size, 'size');
  sameSnap(got.snap, want.snap, tol, 'elements');
  return want.snap;
}

// The message each library rejects / throws with.
async function errorOf(fn) {
  try {
    await fn();
  } catch (e) {
    return e.message;
  }
  return null;
}

async function sameError(fn) {
  const want = await errorOf(() => fn(tfo));
  const got = await errorOf(() => fn(tt));
  assert.ok(want != null, 'tfjs throws');
  assert.equal(got, want);
  return want;
}

const scalarsOf = (s) => (Array.isArray(s) ? s : [s]).map((t) => {
  const v = t.dataSync()[0];
  t.dispose();
  return v;
});

function close(got, want, tol, where) {
  assert.equal(got.length, want.length, `${where}: length`);
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= tol * Math.max(1, Math.abs(w)),
    `${where}[${i}]: got ${got[i]}, expected ${w}`));
}

// ---- sources and batching ----------------------------------------------------------------

describe('tf.data sources and batch', () => {
  it('array of numbers, batch with and without the small last batch', async () => {
    await pipeline((tf) => tf.data.array([1, 2, 3, 4, 5]));
    await pipeline((tf) => tf.data.array([1, 2, 3, 4, 5]).batch(2));
    await pipeline((tf) => tf.data.array([1, 2, 3, 4, 5]).batch(2, false));
  });

  it('nested dicts and arrays batch key by key (strings, bools, typed arrays)', async () => {
    const items = () => [
      { a: 1, b: [1, 2], c: { d: 'x', e: true }, f: new Float32Array([1, 2]) },
      { a: 2, b: [3, 4], c: { d: 'y', e: false }, f: new Float32Array([3, 4]) },
      { a: 3, b: [5, 6], c: { d: 'z', e: true }, f: new Float32Array([5, 6]) },
    ];
    await pipeline((tf) => tf.data.array(items()).batch(2));
    await pipeline((tf) => tf.data.array([[1, 2], [3, 4], [5, 6]]).batch(3));
  });

  it('tensor elements are stacked and disposed; the source array stays usable (clones)', async () => {
    await pipeline((tf) => {
      const src = [tf.tensor([1, 2]), tf.tensor([3, 4]), tf.tensor([5, 6])];
      return [tf.data.array(src).batch(2), src];
    });
    await pipeline((tf) => {
      const src = [tf.tensor([1, 2], [2], 'int32'), tf.tensor([3, 4], [2], 'int32')];
      return [tf.data.array(src).repeat(2).batch(3), src];
    });
    // tfjs leaves a dropped small last batch undisposed; tidytensor disposes it.
    await pipeline((tf) => {
      const src = [tf.scalar(1), tf.scalar(2), tf.scalar(3)];
      return [tf.data.array(src).batch(2, false), src];
    }, { consume: async (ds) => ds.toArray() });
  });

  it('generator: sync, async, an iterator-returning function; func', async () => {
    await pipeline((tf) => tf.data.generator(function* gen() {
      for (let i = 0; i < 5; i++) yield { x: tf.tensor([i, i + 1]), y: i };
    }).batch(2));
    await pipeline((tf) => tf.data.generator(async function* gen() {
      for (let i = 0; i < 4; i++) yield [i, tf.scalar(i * 2)];
    }));
    await pipeline((tf) => tf.data.generator(() => {
      let i = 0;
      return { next: () => (i < 3 ? { value: i++, done: false } : { value: undefined, done: true }) };
    }));
    await pipeline((tf) => {
      let i = 0;
      return tf.data.func(() => (i < 4 ? { value: i++ * 3, done: false } : { value: null, done: true }));
    });
  });

  it('zip of an array and of a dict of datasets, shortest wins', async () => {
    await pipeline((tf) => tf.data.zip([tf.data.array([1, 2, 3]), tf.data.array([{ q: 'a' }, { q: 'b' }])]));
    await pipeline((tf) => tf.data.zip({ a: tf.data.array([1, 2, 3]), b: { c: tf.data.array([4, 5, 6]) } }).batch(2));
  });

  it('size as tfjs computes it', async () => {
    const sizes = (tf) => {
      const a = tf.data.array([1, 2, 3, 4, 5]);
      const g = tf.data.generator(function* gen() { yield 1; });
      return [a.size, a.batch(2).size, a.batch(2, false).size, a.take(3).size, a.take(9).size, a.skip(2).size,
        a.skip(9).size, a.skip(-1).size, a.repeat(3).size, a.repeat().size, a.repeat(0).size, a.repeat().batch(2).size,
        a.filter(() => true).size, a.repeat().filter(() => true).size, a.concatenate(a).size, a.concatenate(g).size,
        a.concatenate(a.repeat()).size, a.shuffle(3).size, a.map((x) => x).size, a.prefetch(2).size, g.size,
        g.take(3).size, g.repeat(2).size, tf.data.zip([a, a.take(2)]).size, tf.data.zip({ x: a, y: a.skip(1) }).size];
    };
    assert.deepEqual(sizes(tt), sizes(tfo));
  });
});

// ---- transformations -----------------------------------------------------------------------

describe('tf.data transformations', () => {
  it('map (in tidy; inputs not in the output disposed), mapAsync, filter (rejects disposed)', async () => {
    await pipeline((tf) => {
      const src = [tf.tensor([1, 2]), tf.tensor([3, 4]), tf.tensor([5, 6])];
      const ds = tf.data.array(src).map((x) => ({ a: x.square().add(1), b: x }));
      return [ds.filter((e) => e.b.sum().dataSync()[0] > 4), src];
    });
    await pipeline((tf) => tf.data.array([{ a: 1, b: 2 }, { a: 3, b: 4 }]).map((e) => ({ s: tf.scalar(e.a + e.b) }))
      .mapAsync(async (e) => ({ s: e.s, t: tf.tidy(() => e.s.mul(2)) })).batch(2));
    await pipeline((tf) => tf.data.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).filter((x) => x % 3 === 0));
  });

  it('take, skip (skipped disposed), repeat, concatenate', async () => {
    await pipeline((tf) => {
      const src = [tf.scalar(1), tf.scalar(2), tf.scalar(3), tf.scalar(4)];
      const ds = tf.data.array(src);
      return [ds.skip(1).take(2).repeat(2).concatenate(ds.take(1)), src];
    });
    await pipeline((tf) => tf.data.array([1, 2, 3]).repeat().skip(2).take(7));
    await pipeline((tf) => tf.data.array([1, 2, 3]).take(-1).skip(-1));
  });

  it('prefetch and toArrayForTest keep the order', async () => {
    await pipeline((tf) => tf.data.array([...Array(12).keys()]).map((x) => tf.scalar(x)).prefetch(4).batch(5));
    await pipeline((tf) => tf.data.array([...Array(7).keys()]).filter((x) => x % 2 === 1),
      { consume: (ds) => ds.toArrayForTest() });
  });

  it('text lines read by a prefetch from small chunks: each line once, in order', async () => {
    const text = 'ᚠᛇᚻ᛫ᛒᛦᚦ\nᛋᚳᛖᚪᛚ᛫ᚦᛖᚪᚻ\r\nlast line without a newline';
    for (const chunkSize of [1, 3, 10, 1000]) {
      const lines = await new tt.data.TextLineDataset(new tt.data.FileDataSource(Buffer.from(text), { chunkSize }))
        .prefetch(50).toArray();
      assert.deepEqual(lines, ['ᚠᛇᚻ᛫ᛒᛦᚦ', 'ᛋᚳᛖᚪᛚ᛫ᚦᛖᚪᚻ', 'last line without a newline'], `chunkSize ${chunkSize}`);
    }
  });

  it('shuffle with a seed: tfjs\'s order, reshuffled each iteration unless told not to', async () => {
    const twice = async (ds) => [await ds.toArray(), await ds.toArray()];
    const [a, b] = await pipeline((tf) => tf.data.array([...Array(30).keys()]).shuffle(8, 42), { consume: twice });
    assert.notDeepEqual(a, b);
    assert.deepEqual([...a].sort((x, y) => x - y), [...Array(30).keys()]);
    // Without reshuffling, the first pass is tfjs's; every later pass repeats it, as documented
    // (tfjs 4.22 reshuffles all the same).
    const once = (ds) => ds.toArray();
    await pipeline((tf) => tf.data.array([...Array(20).keys()]).shuffle(5, 'seed', false), { consume: once });
    const fixed = tt.data.array([...Array(20).keys()]).shuffle(5, 'seed', false);
    assert.deepEqual(await fixed.toArray(), await fixed.toArray());
    await pipeline((tf) => tf.data.array([...Array(25).keys()]).map((x) => tf.tensor([x, -x])).shuffle(30, 7).batch(4));
  });

  it('shuffle without a seed: the same multiset', async () => {
    const got = await tt.data.array([...Array(40).keys()]).shuffle(10).toArray();
    assert.deepEqual([...got].sort((x, y) => x - y), [...Array(40).keys()]);
  });

  it('forEachAsync disposes each element after the callback; toArray', async () => {
    await pipeline((tf) => tf.data.array([1, 2, 3]).map((x) => ({ v: tf.scalar(x) })), {
      consume: async (ds) => {
        const seen = [];
        await ds.forEachAsync((e) => { seen.push(e.v.dataSync()[0]); });
        return seen;
      },
    });
  });

  it('an iterator read by hand', async () => {
    await pipeline((tf) => tf.data.array([{ x: 1 }, { x: 2 }]).map((e) => tf.scalar(e.x)), {
      consume: async (ds) => {
        const iter = await ds.iterator();
        const out = [];
        for (let r = await iter.next(); !r.done; r = await iter.next()) out.push(r.value);
        out.push((await iter.next()).done);
        return out;
      },
    });
  });

  it('errors as tfjs words them', async () => {
    await sameError((tf) => tf.data.array([1]).batch(0));
    await sameError((tf) => tf.data.array([1]).shuffle());
    await sameError((tf) => tf.data.generator(function* gen() { yield 1; }).shuffle(-1));
    await sameError((tf) => tf.data.array([1]).prefetch());
    await sameError((tf) => tf.data.array([1]).prefetch(0).toArray());
    await sameError((tf) => tf.data.array([1]).repeat().toArray());
    await sameError((tf) => tf.data.zip(3));
    await sameError((tf) => tf.data.zip([tf.data.array([1]), 2]).toArray());
    await sameError((tf) => tf.data.generator(function* gen() { yield 1; throw new Error('boom'); }).toArray());
    await sameError((tf) => tf.data.webcam());
    await sameError((tf) => tf.data.microphone());
  });
});

// ---- hostile arguments and elements ---------------------------------------------------------

describe('tf.data buffers, bad arguments and failing elements', () => {
  const range = (n) => [...Array(n).keys()];
  // Resolves `promise`, or fails when it takes longer than `ms` (a buffer filled up front would).
  const quick = (promise, ms = 5000) => Promise.race([promise, new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not done in ${ms} ms`)), ms);
    promise.finally(() => clearTimeout(timer)).catch(() => {});
  })]);

  it('shuffle(1e9), prefetch(1e9) and batch(1e9) of a small dataset: its elements, at once', async () => {
    const before = counts(tt);
    const ten = () => tt.data.array(range(10)).map((x) => tt.scalar(x));
    const shuffled = scalarsOf(await quick(ten().shuffle(1e9, 's').toArray()));
    assert.deepEqual([...shuffled].sort((a, b) => a - b), range(10));
    assert.deepEqual(scalarsOf(await quick(ten().prefetch(1e9).toArray())), range(10));
    assert.equal((await quick(tt.data.array(range(10)).shuffle(2 ** 32 - 1, 3).take(4).toArray())).length, 4);
    const [batch] = await quick(ten().batch(1e9).toArray());
    assert.deepEqual(batch.shape, [10]);
    assert.deepEqual(Array.from(batch.dataSync()), range(10));
    batch.dispose();
    assert.deepEqual(counts(tt), before);
  });

  it('a shuffle window larger than the dataset draws as tfjs (its reads past the end are counted)', async () => {
    for (const n of [11, 64, 1000, 20000]) {
      await pipeline((tf) => tf.data.array(range(10)).shuffle(n, 's'));
    }
    await pipeline((tf) => tf.data.generator(function* gen() { yield* range(7); }).shuffle(50, 3).batch(2));
  });

  it('prefetch and shuffle buffers hold what the stream gave, not the requested size', async () => {
    // An endless stream that counts its reads: a buffer filled up front would read 1e9 of them.
    let reads = 0;
    const counting = () => tt.data.generator(function* gen() { for (;;) yield reads++; });
    assert.deepEqual(await quick(counting().prefetch(1e9).take(5).toArray()), range(5));
    assert.ok(reads <= 10, `prefetch(1e9) made ${reads} reads for 5 elements`);
    reads = 0;
    assert.deepEqual(await quick(counting().shuffle(100, 1).take(3).toArray()).then((a) => a.length), 3);
    assert.ok(reads <= 110, `shuffle(100) made ${reads} reads for 3 elements`);
  });

  it('buffer sizes tfjs\'s ring buffer refuses: its texts (NaN no longer gives an empty dataset)', async () => {
    for (const bad of [NaN, 1.5, Infinity, 2 ** 32, -0.5, 0, []]) {
      await sameError((tf) => tf.data.array([1, 2]).shuffle(bad, 's').toArray());
      await sameError((tf) => tf.data.array([1, 2]).prefetch(bad).toArray());
    }
    // tfjs loops forever on a capacity that is not a number; tidytensor refuses it.
    for (const bad of ['3', {}, true]) {
      await assert.rejects(tt.data.array([1, 2]).shuffle(bad, 's').toArray(), /^RangeError: Invalid array length$/);
      await assert.rejects(tt.data.array([1, 2]).prefetch(bad).toArray(), /^RangeError: Invalid array length$/);
    }
  });

  it('bad counts and sizes: tfjs\'s texts and values', async () => {
    for (const bad of [0, -1, NaN, null, undefined, {}, []]) {
      await sameError((tf) => tf.data.array([1, 2]).batch(bad));
    }
    for (const odd of [1.5, '2', Infinity]) await pipeline((tf) => tf.data.array(range(5)).batch(odd));
    for (const odd of [NaN, '2', 1.5, -1, null, {}]) {
      await pipeline((tf) => tf.data.array(range(5)).take(odd));
      await pipeline((tf) => tf.data.array(range(5)).skip(odd));
      await pipeline((tf) => tf.data.array(range(3)).repeat(odd).take(8));
    }
    await sameError((tf) => tf.data.array([1]).repeat(-2).toArray());
    await sameError((tf) => tf.data.array([1]).map(3).toArray());
    await sameError((tf) => tf.data.array([1]).filter(null).toArray());
    await sameError((tf) => tf.data.array([1]).concatenate(null));
    await sameError((tf) => tf.data.generator(5).toArray());
    await sameError((tf) => tf.data.generator(() => 5).toArray());
  });

  it('batch of ragged fields: tfjs\'s text, and no tensor left behind', async () => {
    const ragged = (tf) => tf.data.generator(function* gen() {
      yield { a: tf.scalar(1), b: tf.tensor([1, 2]) };
      yield { a: tf.scalar(2), b: tf.tensor([1, 2, 3]) };
    });
    const before = counts(tt);
    assert.equal(await sameError((tf) => ragged(tf).batch(2).toArray()),
      'All tensors passed to stack must have matching shapes Shapes 2 and 3 must match');
    // Ragged number arrays are refused by tf.tensor (tfjs checks them only in debug mode).
    await assert.rejects(tt.data.generator(function* gen() {
      yield { a: tt.scalar(1), b: [1, 2] };
      yield { a: tt.scalar(2), b: [1, 2, 3] };
    }).batch(2).toArray(), /Element arr\[1\] should have 2 elements, but has 3 elements/);
    assert.deepEqual(counts(tt), before);
  });

  it('failing generators, transforms and predicates leave no tensors', async () => {
    const before = counts(tt);
    const failing = () => tt.data.generator(function* gen() {
      yield tt.scalar(1);
      yield tt.scalar(2);
      yield tt.scalar(3);
      throw new Error('gen boom');
    });
    const boom = () => { throw new Error('boom'); };
    const text = 'Error thrown while iterating through a dataset: gen boom';
    await assert.rejects(failing().toArray(), { message: text });
    await assert.rejects(failing().batch(2).toArray(), { message: text });
    await assert.rejects(failing().batch(5).toArray(), { message: text });
    await assert.rejects(failing().prefetch(4).toArray(), { message: text });
    await assert.rejects(failing().map(boom).toArray(), { message: 'boom' });
    await assert.rejects(failing().mapAsync(async () => boom()).toArray(), { message: 'boom' });
    await assert.rejects(failing().filter(boom).toArray(), { message: 'boom' });
    await assert.rejects(failing().forEachAsync(boom), { message: 'boom' });
    // A predicate's tensor counts as true, as in tfjs, and is disposed.
    await pipeline((tf) => tf.data.array(range(4)).map((x) => tf.scalar(x)).filter((x) => x.greater(1)));
    assert.deepEqual(counts(tt), before);
  });
});

// ---- csv -----------------------------------------------------------------------------------

describe('tf.data.csv', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tidytensor-data-'));
  const quoted = path.join(dir, 'quoted.csv');
  fs.writeFileSync(quoted, 'a,b,"c d",e\n1,x,"q,""r""",true\n,2.5,3,0\r\n4, 5 ,"6",FALSE\n');
  const spaced = path.join(dir, 'spaced.txt');
  fs.writeFileSync(spaced, 'a  b c\n1 2  3\n4 5 6');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('iris over file:// and as a plain path (columnNames over the header, a label column)', async () => {
    const want = await pipeline((tf) => tf.data.csv(IRIS_URL, IRIS_CONFIG));
    assert.equal(want.length, 150);
    const xs = { sepalLength: 5.1, sepalWidth: 3.5, petalLength: 1.4, petalWidth: 0.2 };
    assert.deepEqual(want[0], { xs, ys: { species: 0 } });
    const byPath = await tt.data.csv(IRIS, IRIS_CONFIG).toArray();
    assert.deepEqual(byPath, want);
    assert.deepEqual(await tt.data.csv(IRIS, IRIS_CONFIG).columnNames(), IRIS_COLUMNS);
  });

  it('the header as column names; configuredColumnsOnly; dtype int32 / bool; default; batch', async () => {
    await pipeline((tf) => tf.data.csv(IRIS_URL).take(3));
    await pipeline((tf) => tf.data.csv(IRIS_URL, {
      columnNames: IRIS_COLUMNS,
      columnConfigs: { species: { isLabel: true, dtype: 'int32' }, petalLength: { dtype: 'int32' }, sepalLength: {} },
      configuredColumnsOnly: true,
    }).batch(40));
    const url = pathToFileURL(quoted).href;
    await pipeline((tf) => tf.data.csv(url, { columnConfigs: { e: { dtype: 'bool' }, b: { default: 7 } } }));
    await pipeline((tf) => tf.data.csv(url, { hasHeader: false, columnNames: ['p', 'q', 'r', 's'] }));
    await pipeline((tf) => tf.data.csv(url).batch(3));
    await pipeline((tf) => tf.data.csv(pathToFileURL(spaced).href, { delimWhitespace: true }));
    await pipeline((tf) => tf.data.csv(pathToFileURL(spaced).href, { delimiter: ' ' }).take(0));
    const cols = async (tf) => tf.data.csv(url, { columnConfigs: { b: {} }, configuredColumnsOnly: true }).columnNames();
    assert.deepEqual(await cols(tt), await cols(tfo));
  });

  it('errors: a missing file names its path; bad configs and rows as tfjs words them', async () => {
    const missing = path.join(dir, 'missing.csv');
    const msg = await sameError((tf) => tf.data.csv(pathToFileURL(missing).href).toArray());
    assert.ok(msg.includes(missing), msg);
    const plain = await errorOf(() => tt.data.csv(missing).toArray());
    assert.ok(plain.includes(missing), plain);
    const url = pathToFileURL(quoted).href;
    await sameError((tf) => tf.data.csv(url, { columnConfigs: { a: { required: true } } }).toArray());
    await sameError((tf) => tf.data.csv(url, { columnConfigs: { zz: {} } }).toArray());
    await sameError((tf) => tf.data.csv(url, { columnNames: ['a'] }).toArray());
    await sameError((tf) => tf.data.csv(url, { hasHeader: false }).toArray());
    await sameError((tf) => tf.data.csv(url, { columnNames: ['a', 'a', 'b', 'c'] }).toArray());
    await sameError((tf) => tf.data.csv(url, { hasHeader: false, columnNames: ['a', 'b'] }).toArray());
    await sameError((tf) => tf.data.csv(url, { delimWhitespace: true, delimiter: ';' }));
  });
});

// ---- fitDataset / evaluateDataset ----------------------------------------------------------

// Iris as `{xs, ys}` batches: 4 features (scaled, made in the map: tensors the batch stacks and
// disposes) and one-hot labels.
const irisData = (tf, batchSize = 16) => tf.data.csv(IRIS_URL, IRIS_CONFIG)
  .map(({ xs, ys }) => ({
    xs: tf.tensor1d(Object.values(xs)).div(8),
    ys: [0, 1, 2].map((c) => (c === ys.species ? 1 : 0)),
  }))
  .batch(batchSize);

const irisModel = (tf) => tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [4], units: 6, activation: 'relu' }),
    tf.layers.dense({ units: 3, activation: 'softmax' }),
  ],
});

// Builds the model on tfjs, then on tidytensor with tfjs's initial weights; runs `run` on each
// and checks that tidytensor's tensor count is back where it was after the model is disposed.
const ADAM_CCE = { optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy'] };
async function onBoth(run, { compile = ADAM_CCE } = {}) {
  const results = [];
  let initial = null;
  for (const tf of [tfo, tt]) {
    const before = counts(tf);
    const model = irisModel(tf);
    if (tf === tfo) {
      initial = model.getWeights().map((w) => ({ shape: w.shape, values: Array.from(w.dataSync()) }));
    } else {
      const ws = initial.map((w) => tt.tensor(w.values, w.shape));
      model.setWeights(ws);
      tt.dispose(ws);
    }
    if (compile) model.compile({ ...compile });
    try {
      results.push(await run(tf, model));
    } finally {
      model.dispose();
    }
    if (tf === tt) assert.deepEqual(counts(tt), before, 'tidytensor tensors after the model is disposed');
  }
  return results;
}

function sameHistory(got, want, tol = 1e-4) {
  assert.deepEqual(got.epoch, want.epoch, 'history.epoch');
  assert.deepEqual(Object.keys(got.history), Object.keys(want.history), 'history keys (in order)');
  for (const k of Object.keys(want.history)) close(got.history[k], want.history[k], tol, `history.${k}`);
}

const historyOf = (h) => ({ epoch: h.epoch.slice(), history: JSON.parse(JSON.stringify(h.history)), params: h.params });

describe('model.fitDataset and model.evaluateDataset', () => {
  it('iris csv, batch 16, no shuffle: the loss history, final weights and evaluateDataset of tfjs', async () => {
    const [want, got] = await onBoth(async (tf, model) => {
      const ds = irisData(tf);
      const h = historyOf(await model.fitDataset(ds, { epochs: 4, verbose: 0 }));
      const afterFirst = counts(tf);
      const h2 = historyOf(await model.fitDataset(ds, { epochs: 2, verbose: 0 }));
      // A second fit adds nothing (the optimizer's state exists since the first).
      if (tf === tt) assert.deepEqual(counts(tt), afterFirst, 'tensors after a second fitDataset');
      const before = counts(tf);
      const evaluated = scalarsOf(await model.evaluateDataset(ds));
      const some = scalarsOf(await model.evaluateDataset(irisData(tf, 7), { batches: 3 }));
      if (tf === tt) assert.deepEqual(counts(tt), before, 'tensors after evaluateDataset');
      const weights = model.getWeights().map((w) => Array.from(w.dataSync()));
      return { h, h2, evaluated, some, weights };
    });
    sameHistory(got.h, want.h);
    sameHistory(got.h2, want.h2);
    assert.deepEqual(got.h.params, want.h.params);
    close(got.evaluated, want.evaluated, 1e-4, 'evaluateDataset');
    close(got.some, want.some, 1e-4, 'evaluateDataset({batches: 3})');
    want.weights.forEach((w, i) => close(got.weights[i], w, 1e-4, `weights[${i}]`));
  });

  it('validationData as a dataset (validationBatches) and as tensors; initialEpoch', async () => {
    const [want, got] = await onBoth(async (tf, model) => {
      const train = irisData(tf, 32).take(3);
      const h1 = historyOf(await model.fitDataset(train, {
        epochs: 2, verbose: 0, validationData: irisData(tf, 10).skip(5), validationBatches: 4,
      }));
      const vx = tf.tidy(() => tf.tensor2d([[5.1, 3.5, 1.4, 0.2], [6.3, 2.9, 5.6, 1.8], [5.8, 2.7, 4.1, 1]]).div(8));
      const vy = tf.tensor2d([[1, 0, 0], [0, 0, 1], [0, 1, 0]]);
      const h2 = historyOf(await model.fitDataset(train, {
        epochs: 3, initialEpoch: 1, verbose: 0, validationData: [vx, vy],
      }));
      tf.dispose([vx, vy]);
      return { h1, h2 };
    });
    sameHistory(got.h1, want.h1);
    sameHistory(got.h2, want.h2);
    assert.deepEqual(got.h2.epoch, [1, 2]);
  });

  it('batchesPerEpoch over a repeated dataset; running out of data warns as tfjs', async () => {
    const warnings = [];
    const warn = console.warn;
    console.warn = (m) => warnings.push(m);
    try {
      const [want, got] = await onBoth(async (tf, model) => {
        const endless = irisData(tf, 20).repeat();
        const h1 = historyOf(await model.fitDataset(endless, { epochs: 3, batchesPerEpoch: 5, verbose: 0 }));
        const h2 = historyOf(await model.fitDataset(irisData(tf, 50), { epochs: 2, batchesPerEpoch: 2, verbose: 0 }));
        const ev = scalarsOf(await model.evaluateDataset(irisData(tf, 50), { batches: 5 }));
        return { h1, h2, ev };
      }, { compile: { optimizer: 'sgd', loss: 'categoricalCrossentropy' } });
      sameHistory(got.h1, want.h1);
      sameHistory(got.h2, want.h2);
      close(got.ev, want.ev, 1e-4, 'evaluateDataset');
      assert.equal(warnings.length % 2, 0);
      const half = warnings.length / 2;
      assert.ok(half > 0);
      assert.deepEqual(warnings.slice(half), warnings.slice(0, half));
    } finally {
      console.warn = warn;
    }
  });

  it('classWeight weighs each batch\'s loss per class', async () => {
    const sgd = { optimizer: 'sgd', loss: 'categoricalCrossentropy' };
    const [want, got] = await onBoth(async (tf, model) => historyOf(await model.fitDataset(irisData(tf, 25),
      { epochs: 2, verbose: 0, classWeight: { 0: 1, 1: 3, 2: 0.5 } })), { compile: sgd });
    sameHistory(got, want);
  });

  it('callbacks see tfjs\'s sequence and logs; elements as arrays / dicts of tensors', async () => {
    const [want, got] = await onBoth(async (tf, model) => {
      const log = [];
      const ds = irisData(tf, 64).map((e) => ({ xs: [e.xs], ys: { [model.outputNames[0]]: e.ys } }));
      await model.fitDataset(ds, {
        epochs: 2,
        verbose: 0,
        callbacks: {
          onTrainBegin: () => log.push('trainBegin'),
          onEpochBegin: (e) => log.push(`epochBegin ${e}`),
          onBatchBegin: (b, l) => log.push(`batchBegin ${b} ${JSON.stringify(l)}`),
          onBatchEnd: (b, l) => log.push(`batchEnd ${b} ${Object.keys(l)}`),
          onEpochEnd: (e, l) => log.push(`epochEnd ${e} ${Object.keys(l)}`),
          onTrainEnd: () => log.push('trainEnd'),
        },
      });
      return log;
    });
    assert.deepEqual(got, want);
  });

  it('errors: bad elements, bad arguments, an uncompiled model', async () => {
    const errs = await onBoth(async (tf, model) => {
      const out = [];
      const e = (fn) => errorOf(fn).then((m) => out.push(m));
      await e(() => model.fitDataset(tf.data.array([{ a: 1 }]), { epochs: 1, verbose: 0 }));
      const good = () => tf.data.array([{ xs: [1, 2, 3, 4], ys: [1, 0, 0] }]).batch(1);
      const once = { epochs: 1, verbose: 0 };
      await e(() => model.fitDataset(good().map((x) => ({ xs: [x.xs, x.xs], ys: x.ys })), once));
      await e(() => model.fitDataset(tf.data.array([{ xs: { nope: [1, 2, 3, 4] }, ys: [1, 0, 0] }]).batch(1), once));
      await e(() => model.fitDataset(good(), { epochs: 0 }));
      await e(() => model.fitDataset(good(), { epochs: 1, batchesPerEpoch: 1.5 }));
      await e(() => model.fitDataset(tf.data.array([1]), { epochs: 1, validationSplit: 0.2 }));
      await e(() => model.evaluateDataset(tf.data.array([1]), { batches: 0 }));
      await e(() => model.evaluateDataset(tf.data.array([1]), { verbose: 1 }));
      return out;
    });
    assert.deepEqual(errs[1], errs[0]);
    assert.ok(errs[0][0].startsWith('A Dataset iterator for fitDataset() is expected to generate objects of the form'));
    const uncompiled = (tf, model) => errorOf(() => model.fitDataset(tf.data.array([1]), { epochs: 1 }));
    const [want, got] = await onBoth(uncompiled, { compile: null });
    assert.equal(got, want);
  });
});

describe('tf.data buffers stop before memory runs out', () => {
  // An endless dataset of small tensors into a window of 1e9: with the host's memory reported
  // low, the buffer stops with an error at its next check, its tensors disposed.
  for (const [what, make] of [
    ['shuffle', (ds) => ds.shuffle(1e9, 'seed')],
    ['prefetch', (ds) => ds.prefetch(1e9)],
  ]) {
    it(`${what}(1e9) over an endless dataset`, async () => {
      const native = require('../lib/native');
      const real = native.hostAvailableBytes;
      const before = tt.memory().numTensors;
      let made = 0;
      const ds = make(tt.data.generator(function* endless() {
        for (;;) {
          made++;
          yield tt.tensor([made]);
        }
      }));
      native.hostAvailableBytes = () => (made > 3000 ? 100 * 2 ** 20 : real());
      try {
        const it = await ds.iterator();
        const e = await (async () => {
          try {
            for (let i = 0; i < 10000; i++) tt.dispose((await it.next()).value);
          } catch (err) {
            return err;
          }
          return null;
        })();
        assert.ok(e, 'the buffer stopped');
        assert.match(e.message, new RegExp(`^The ${what} buffer stopped at \\d+ elements of the 1000000000 asked ` +
          'for: only 100 MB of memory are left$'));
        await new Promise((resolve) => setTimeout(resolve, 10)); // in-flight reads settle
        assert.equal(tt.memory().numTensors, before);
      } finally {
        native.hostAvailableBytes = real;
      }
    });
  }
});
