'use strict';
// What a graph model's control flow can make executeAsync do (README, "Safety"): function calls
// nest on the heap (5,000 nested If functions run, as in tfjs; a function that calls itself
// ends at GRAPH_MAX_CALL_DEPTH with an error naming it), loops yield to the event loop between
// slices (timers keep firing during an endless loop), an AbortSignal ends an execution, and
// GRAPH_MAX_LOOP_ITERATIONS bounds a loop; each ends with a clear error and nothing leaked.
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');
const { models } = require('./fixtures/graph/generate');

const T = { type: 'DT_FLOAT' };
const arg = (name, type) => ({ name, type });

// A library function `name(c: bool, a: float) -> r`: If(c, c, a) calling `callee` in both
// branches, or -a when there is no callee.
function nestingFn(name, callee) {
  const signature = { name, inputArg: [arg('c', 'DT_BOOL'), arg('a', 'DT_FLOAT')], outputArg: [arg('r', 'DT_FLOAT')] };
  if (callee == null) {
    return { signature, nodeDef: [{ name: 'Neg', op: 'Neg', input: ['a'], attr: { T } }], ret: { r: 'Neg:y:0' } };
  }
  const branches = { then_branch: { func: { name: callee } }, else_branch: { func: { name: callee } } };
  return {
    signature,
    nodeDef: [{ name: 'if', op: 'StatelessIf', input: ['c', 'c', 'a'], attr: branches }],
    ret: { r: 'if:output:0' },
  };
}

// Model artifacts of a graph calling `first` of `library` on its inputs c (bool) and a ([2]).
function calling(first, library) {
  const branches = { then_branch: { func: { name: first } }, else_branch: { func: { name: first } } };
  const dims = (d) => ({ dim: d.map((size) => ({ size: String(size) })) });
  const node = [
    { name: 'c', op: 'Placeholder', attr: { dtype: { type: 'DT_BOOL' }, shape: { shape: dims([]) } } },
    { name: 'a', op: 'Placeholder', attr: { dtype: T, shape: { shape: dims([2]) } } },
    { name: 'out', op: 'StatelessIf', input: ['c', 'c', 'a'], attr: branches },
  ];
  return {
    modelTopology: { node, library: { function: library }, versions: { producer: 1 } },
    format: 'graph-model',
    weightSpecs: [],
    weightData: new ArrayBuffer(0),
  };
}

const load = (lib, artifacts) => lib.loadGraphModel(lib.io.fromMemory(artifacts));

async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

// Sets a tidytensor flag for the duration of `fn`.
async function withFlag(name, value, fn) {
  const old = tt.env().get(name);
  tt.env().set(name, value);
  try {
    return await fn();
  } finally {
    tt.env().set(name, old);
  }
}

describe('graph control flow limits', () => {
  it('5,000 nested If functions run as in tfjs; no native stack is used up', async () => {
    const n = 5000;
    const library = Array.from({ length: n }, (_, k) => nestingFn(`f${k}`, `f${k + 1}`));
    library.push(nestingFn(`f${n}`, null));
    const run = async (lib) => {
      const model = await load(lib, calling('f0', library));
      const c = lib.scalar(true, 'bool');
      const a = lib.tensor([1.5, -2]);
      try {
        const out = await model.executeAsync({ c, a }, 'out');
        const values = Array.from(out.dataSync());
        out.dispose();
        return values;
      } finally {
        lib.dispose([c, a]);
        model.dispose();
      }
    };
    const before = tt.memory().numTensors;
    assert.deepEqual(await run(tt), await run(tfo));
    assert.deepEqual(await run(tt), [-1.5, 2]);
    assert.equal(tt.memory().numTensors, before);
  });

  it('a function that calls itself ends at GRAPH_MAX_CALL_DEPTH, naming it, leaving nothing', async () => {
    const model = await load(tt, calling('again', [nestingFn('again', 'again')]));
    const c = tt.scalar(true, 'bool');
    const a = tt.tensor([1, 2]);
    const before = tt.memory().numTensors;
    const e = await rejection(model.executeAsync({ c, a }, 'out'));
    assert.match(e.message, /^The graph's function 'again' is called 10001 levels deep: the limit \(the GRAPH_MAX_CALL_DEPTH flag\) \(node 'if', op StatelessIf\)/);
    assert.match(e.message, /\(node 'out', op StatelessIf\)$/);
    assert.equal(tt.memory().numTensors, before);
    await withFlag('GRAPH_MAX_CALL_DEPTH', 20, async () => {
      const e2 = await rejection(model.executeAsync({ c, a }, 'out'));
      assert.match(e2.message, /^The graph's function 'again' is called 21 levels deep/);
    });
    assert.equal(tt.memory().numTensors, before);
    tt.dispose([c, a]);
    model.dispose();
  });

  it('an endless loop lets timers run, ends on abort with nothing leaked; dispose() ends it too', async () => {
    const start = tt.memory().numTensors;
    const model = await load(tt, models().whileLoop.artifacts());
    const x = tt.tensor([1, 2, 3]);
    const n = tt.scalar(2 ** 31 - 1, 'int32');
    const before = tt.memory();
    const controller = new AbortController();
    let ticks = 0;
    let last = performance.now();
    let lag = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      lag = Math.max(lag, now - last - 1);
      last = now;
      ticks++;
    }, 1);
    const running = rejection(model.executeAsync({ x, n }, ['acc'], { signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const abortAt = performance.now();
    controller.abort();
    const e = await running;
    const took = performance.now() - abortAt;
    clearInterval(timer);
    assert.equal(e.name, 'AbortError');
    assert.ok(ticks >= 20, `the 1 ms timer fired ${ticks} times in 300 ms of an endless loop`);
    // Generous: these machines are shared; bench/ measures the lag and the abort's latency.
    assert.ok(took < 2000, `the abort ended the execution in ${took.toFixed(1)} ms`);
    assert.deepEqual(tt.memory().numTensors, before.numTensors);
    assert.equal(tt.memory().numBytes, before.numBytes);
    console.log(`# endless loop: ${ticks} ticks in 300 ms, max timer lag ${lag.toFixed(1)} ms, abort in ${took.toFixed(1)} ms`);

    // An aborted signal is refused before anything runs; a signal that is not one is an error.
    const e2 = await rejection(model.executeAsync({ x, n }, ['acc'], { signal: AbortSignal.abort() }));
    assert.equal(e2.name, 'AbortError');
    const e3 = await rejection(model.executeAsync({ x, n }, ['acc'], { signal: {} }));
    assert.match(e3.message, /options.signal must be an AbortSignal/);

    // dispose() during an execution ends it.
    const pending = rejection(model.executeAsync({ x, n }, ['acc']));
    await new Promise((resolve) => setTimeout(resolve, 20));
    model.dispose();
    const e4 = await pending;
    assert.match(e4.message, /disposed during executeAsync/);
    tt.dispose([x, n]);
    assert.equal(tt.memory().numTensors, start);
  });

  it('GRAPH_MAX_LOOP_ITERATIONS bounds a loop; a loop within it gives the values of tfjs', async () => {
    const artifacts = models().whileLoop.artifacts();
    const model = await load(tt, artifacts);
    const ref = await load(tfo, artifacts);
    const before = tt.memory().numTensors;
    await withFlag('GRAPH_MAX_LOOP_ITERATIONS', 50, async () => {
      const x = tt.tensor([1, 2, 3]);
      const n = tt.scalar(1000, 'int32');
      const e = await rejection(model.executeAsync({ x, n }, ['acc']));
      assert.equal(e.message, 'The loop ran more than 50 iterations: the limit (the GRAPH_MAX_LOOP_ITERATIONS flag) ' +
        "(node 'while/NextIteration', op NextIteration)");
      const m = tt.scalar(50, 'int32');
      const [acc, count] = await model.executeAsync({ x, n: m }, ['acc', 'count']);
      const xo = tfo.tensor([1, 2, 3]);
      const mo = tfo.scalar(50, 'int32');
      const [acco, counto] = await ref.executeAsync({ x: xo, n: mo }, ['acc', 'count']);
      assert.deepEqual(Array.from(acc.dataSync()), Array.from(acco.dataSync()));
      assert.deepEqual(Array.from(count.dataSync()), [50]);
      tt.dispose([x, n, m, acc, count]);
      tfo.dispose([xo, mo, acco, counto]);
    });
    assert.equal(tt.memory().numTensors, before);
    model.dispose();
    ref.dispose();
  });
});
