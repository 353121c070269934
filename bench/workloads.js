'use strict';
// The benchmark workloads, written once against the TensorFlow.js API. `bench/child.js` runs
// them in one process per implementation (tidytensor, @tensorflow/tfjs cpu, wasm, tfjs-node), so
// every implementation runs exactly this code.
//
// Each workload measures `samples` samples after a warm-up; one sample times `iters`
// repetitions of the operation (enough repetitions that a sample lasts ~SAMPLE_MS, at least
// one). The reported value is the median over samples, converted to the workload's unit.
// Every repetition forces completion (dataSync), so asynchronous backends (GPU) are timed for
// the work they actually do, not for queueing it.

const { performance } = require('perf_hooks');

const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS || 150);
const MIN_SAMPLES = Math.max(5, Number(process.env.BENCH_SAMPLES || 7));
// A workload whose single repetition is slow (tfjs's cpu backend takes seconds for a 1024³
// matMul) gets only MIN_SAMPLES_SLOW samples, so `npm run bench` stays within a few minutes.
const SLOW_ITER_MS = 1000;
const MIN_SAMPLES_SLOW = 5;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// Deterministic pseudo-random floats in [-1, 1) (same inputs for every implementation).
function randomFloats(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    out[i] = (s / 4294967296) * 2 - 1;
  }
  return out;
}

// Times `once()` (one repetition). Returns per-repetition milliseconds for every sample.
function measure(once) {
  // Warm-up: the first run pays for lazy initialisation, kernel compilation, page faults.
  let t0 = performance.now();
  once();
  let warm = performance.now() - t0;
  if (warm < SAMPLE_MS) {
    // A second warm-up for fast operations: the first one is usually not representative.
    t0 = performance.now();
    once();
    warm = performance.now() - t0;
  }
  const iters = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(warm, 1e-3)));
  const samples = warm > SLOW_ITER_MS ? MIN_SAMPLES_SLOW : MIN_SAMPLES;
  const perIter = [];
  for (let s = 0; s < samples; s++) {
    t0 = performance.now();
    for (let i = 0; i < iters; i++) once();
    perIter.push((performance.now() - t0) / iters);
  }
  return { perIter, iters };
}

function close(a, b, rel) {
  return Math.abs(a - b) <= rel * Math.max(1, Math.abs(b));
}

// Each workload: { id, label, unit, higherIsBetter, run(tf) -> { value, samples, iters, check } }
// `value` is the median in `unit`; `check` is 'ok' or a description of a wrong result.
function matMulWorkload(n) {
  return {
    id: `matmul${n}`,
    label: `matMul ${n}×${n}`,
    unit: 'GFLOP/s',
    higherIsBetter: true,
    run(tf) {
      const av = randomFloats(n * n, 1 + n);
      const bv = randomFloats(n * n, 2 + n);
      const a = tf.tensor2d(av, [n, n]);
      const b = tf.tensor2d(bv, [n, n]);
      // Check one element of the product (row 0 · column n-1) against a plain JS dot product.
      let expect = 0;
      for (let k = 0; k < n; k++) expect += av[k] * bv[k * n + n - 1];
      let got = NaN;
      const { perIter, iters } = measure(() => {
        const c = tf.matMul(a, b);
        const d = c.dataSync();
        got = d[n - 1];
        c.dispose();
      });
      tf.dispose([a, b]);
      const flops = 2 * n * n * n;
      const gflops = perIter.map((ms) => flops / (ms * 1e6));
      return {
        value: median(gflops),
        samples: gflops,
        iters,
        check: close(got, expect, 1e-3) ? 'ok' : `c[0][${n - 1}] = ${got}, expected ${expect}`,
      };
    },
  };
}

const workloads = [
  matMulWorkload(256),
  matMulWorkload(512),
  matMulWorkload(1024),
  {
    id: 'chain',
    label: 'x.mul(2).add(1).relu().square().sum(), 2^20',
    unit: 'ms',
    higherIsBetter: false,
    run(tf) {
      const n = 1 << 20;
      const xv = randomFloats(n, 7);
      const x = tf.tensor1d(xv);
      let expect = 0;
      for (let i = 0; i < n; i++) {
        const r = Math.max(Math.fround(xv[i] * 2 + 1), 0);
        expect += r * r;
      }
      let got = NaN;
      const { perIter, iters } = measure(() => {
        got = tf.tidy(() => x.mul(2).add(1).relu().square().sum().dataSync()[0]);
      });
      x.dispose();
      return {
        value: median(perIter),
        samples: perIter,
        iters,
        // float32 summation order differs between implementations: a loose tolerance.
        check: close(got, expect, 1e-3) ? 'ok' : `sum = ${got}, expected ≈ ${expect}`,
      };
    },
  },
  {
    id: 'smalladd',
    label: 'tf.add on 4-element tensors (10,000 in one tidy)',
    unit: 'µs/op',
    higherIsBetter: false,
    run(tf) {
      const N = 10000;
      const a = tf.tensor1d([1, 2, 3, 4]);
      const b = tf.tensor1d([10, 20, 30, 40]);
      let got = null;
      const { perIter, iters } = measure(() => {
        tf.tidy(() => {
          let r;
          for (let i = 0; i < N; i++) r = tf.add(a, b);
          got = r.dataSync()[3]; // forces completion of the queued work on async backends
        });
      });
      tf.dispose([a, b]);
      const us = perIter.map((ms) => (ms * 1000) / N);
      return { value: median(us), samples: us, iters, check: got === 44 ? 'ok' : `got ${got}, expected 44` };
    },
  },
  {
    id: 'createdispose',
    label: 'tensor1d([1,2,3,4]) + dispose (100,000)',
    unit: 'ns/op',
    higherIsBetter: false,
    run(tf) {
      const N = 100000;
      const { perIter, iters } = measure(() => {
        for (let i = 0; i < N; i++) tf.tensor1d([1, 2, 3, 4]).dispose();
      });
      const ns = perIter.map((ms) => (ms * 1e6) / N);
      return { value: median(ns), samples: ns, iters, check: 'ok' };
    },
  },
];

// Runs every workload (or those whose id is in `only`) and returns one result per workload.
// A workload that throws is reported with its error and does not stop the others. Each
// workload must leave tf.memory().numTensors where it found it.
function runAll(tf, { only, log = () => {} } = {}) {
  const results = [];
  for (const w of workloads) {
    if (only && !only.includes(w.id)) continue;
    const before = tf.memory().numTensors;
    const t0 = performance.now();
    let r;
    try {
      r = w.run(tf);
    } catch (e) {
      r = { error: String((e && e.stack) || e) };
    }
    const after = tf.memory().numTensors;
    if (after !== before) {
      r.check = `${r.check && r.check !== 'ok' ? r.check + '; ' : ''}numTensors ${before} -> ${after} (leak)`;
    }
    r.id = w.id;
    r.wallMs = performance.now() - t0;
    results.push(r);
    log(`${w.id}: ${r.error ? 'ERROR ' + r.error.split('\n')[0] : r.value.toPrecision(4) + ' ' + w.unit} ` +
      `(${(r.wallMs / 1000).toFixed(1)} s${r.check && r.check !== 'ok' ? ', CHECK FAILED: ' + r.check : ''})`);
  }
  return results;
}

module.exports = { workloads, runAll, median, randomFloats };
