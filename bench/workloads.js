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
// The GEMM and convolution workloads (`spread: true`) take at least 10 samples: their spread
// (min, median, max) is reported beside the medians.
const SPREAD_SAMPLES = Math.max(10, MIN_SAMPLES);

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
function measure(once, minSamples = MIN_SAMPLES) {
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
  const samples = warm > SLOW_ITER_MS ? MIN_SAMPLES_SLOW : minSamples;
  const perIter = [];
  for (let s = 0; s < samples; s++) {
    t0 = performance.now();
    for (let i = 0; i < iters; i++) once();
    perIter.push((performance.now() - t0) / iters);
  }
  return { perIter, iters };
}

// `measure` for asynchronous repetitions (model.fit): the same warm-up and sampling.
async function measureAsync(once, minSamples = MIN_SAMPLES) {
  let t0 = performance.now();
  await once();
  let warm = performance.now() - t0;
  if (warm < SAMPLE_MS) {
    t0 = performance.now();
    await once();
    warm = performance.now() - t0;
  }
  const iters = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(warm, 1e-3)));
  const samples = warm > SLOW_ITER_MS ? MIN_SAMPLES_SLOW : minSamples;
  const perIter = [];
  for (let s = 0; s < samples; s++) {
    t0 = performance.now();
    for (let i = 0; i < iters; i++) await once();
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
    spread: true,
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
      }, SPREAD_SAMPLES);
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


// A workload timing `op(tf, inputs)` (its result read back every time), inputs made once by
// `setup`; `check(values, host)` compares the result with a plain JavaScript computation.
// With `flops`, the unit is GFLOP/s; otherwise ms per call.
function opWorkload({ id, label, flops, setup, op, check, spread = false }) {
  return {
    id,
    label,
    unit: flops ? 'GFLOP/s' : 'ms',
    higherIsBetter: !!flops,
    spread,
    run(tf) {
      const { tensors, host } = setup(tf);
      let values = null;
      const { perIter, iters } = measure(() => {
        const y = op(tf, tensors);
        values = y.dataSync();
        y.dispose();
      }, spread ? SPREAD_SAMPLES : MIN_SAMPLES);
      tf.dispose(tensors);
      const samples = flops ? perIter.map((ms) => flops / (ms * 1e6)) : perIter;
      return { value: median(samples), samples, iters, check: check(values, host) };
    },
  };
}

// NHWC input and filter values for the convolution workloads.
function convInputs(tf, [n, h, w, c], filterShape, seed) {
  const x = randomFloats(n * h * w * c, seed);
  const f = randomFloats(filterShape.reduce((a, b) => a * b, 1), seed + 1);
  return { tensors: [tf.tensor4d(x, [n, h, w, c]), tf.tensor4d(f, filterShape)], host: { x, f } };
}

// Output (y, x, channel co) of a 'same' stride-1 3x3 convolution, computed directly.
function conv3x3At(host, [h, w, c], cout, y, x, co, depthwise) {
  let s = 0;
  for (let ty = 0; ty < 3; ty++) {
    for (let tx = 0; tx < 3; tx++) {
      const iy = y + ty - 1;
      const ix = x + tx - 1;
      if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
      if (depthwise) {
        s += host.x[(iy * w + ix) * c + co] * host.f[(ty * 3 + tx) * c + co];
      } else {
        for (let ci = 0; ci < c; ci++) s += host.x[(iy * w + ix) * c + ci] * host.f[((ty * 3 + tx) * c + ci) * cout + co];
      }
    }
  }
  return s;
}

const expectClose = (got, want, what) => (close(got, want, 1e-3) ? 'ok' : `${what} = ${got}, expected ${want}`);

const nnWorkloads = [
  opWorkload({
    id: 'batchedmatmul',
    spread: true,
    label: 'matMul batched 256 × 64×64',
    flops: 2 * 256 * 64 * 64 * 64,
    setup: (tf) => {
      const a = randomFloats(256 * 64 * 64, 11);
      const b = randomFloats(256 * 64 * 64, 12);
      return { tensors: [tf.tensor3d(a, [256, 64, 64]), tf.tensor3d(b, [256, 64, 64])], host: { a, b } };
    },
    op: (tf, [a, b]) => tf.matMul(a, b),
    check: (v, { a, b }) => {
      let s = 0; // batch 255, row 0, column 63
      for (let k = 0; k < 64; k++) s += a[255 * 4096 + k] * b[255 * 4096 + k * 64 + 63];
      return expectClose(v[255 * 4096 + 63], s, 'c[255][0][63]');
    },
  }),
  opWorkload({
    id: 'conv2d',
    spread: true,
    label: "conv2d [1,64,64,32] * [3,3,32,64], 'same'",
    flops: 2 * 64 * 64 * 32 * 64 * 9,
    setup: (tf) => convInputs(tf, [1, 64, 64, 32], [3, 3, 32, 64], 21),
    op: (tf, [x, f]) => tf.conv2d(x, f, 1, 'same'),
    check: (v, host) => expectClose(v[(10 * 64 + 0) * 64 + 5], conv3x3At(host, [64, 64, 32], 64, 10, 0, 5), 'y[10][0][5]'),
  }),
  opWorkload({
    id: 'depthwise',
    spread: true,
    label: "depthwiseConv2d [1,112,112,32] * [3,3,32,1], 'same'",
    setup: (tf) => convInputs(tf, [1, 112, 112, 32], [3, 3, 32, 1], 31),
    op: (tf, [x, f]) => tf.depthwiseConv2d(x, f, 1, 'same'),
    check: (v, host) => expectClose(v[(111 * 112 + 50) * 32 + 7], conv3x3At(host, [112, 112, 32], 32, 111, 50, 7, true), 'y[111][50][7]'),
  }),
  opWorkload({
    id: 'maxpool',
    label: 'maxPool 2×2 stride 2 on [1,112,112,64]',
    setup: (tf) => {
      const x = randomFloats(112 * 112 * 64, 41);
      return { tensors: [tf.tensor4d(x, [1, 112, 112, 64])], host: { x } };
    },
    op: (tf, [x]) => tf.maxPool(x, 2, 2, 'valid'),
    check: (v, { x }) => {
      const at = (y, xx, c) => x[(y * 112 + xx) * 64 + c];
      const want = Math.max(at(20, 30, 9), at(20, 31, 9), at(21, 30, 9), at(21, 31, 9));
      return expectClose(v[(10 * 56 + 15) * 64 + 9], want, 'y[10][15][9]');
    },
  }),
  opWorkload({
    id: 'resizebilinear',
    label: 'image.resizeBilinear [1,224,224,3] → [112,112]',
    setup: (tf) => {
      const x = randomFloats(224 * 224 * 3, 51);
      return { tensors: [tf.tensor4d(x, [1, 224, 224, 3])], host: { x } };
    },
    op: (tf, [x]) => tf.image.resizeBilinear(x, [112, 112]),
    // Scale 2 without half-pixel centers: output (i, j) is input (2i, 2j) exactly.
    check: (v, { x }) => expectClose(v[(40 * 112 + 70) * 3 + 2], x[(80 * 224 + 140) * 3 + 2], 'y[40][70][2]'),
  }),
  opWorkload({
    id: 'softmax',
    label: 'softmax [1024,1024]',
    setup: (tf) => {
      const x = randomFloats(1 << 20, 61);
      return { tensors: [tf.tensor2d(x, [1024, 1024])], host: { x } };
    },
    op: (tf, [x]) => tf.softmax(x),
    check: (v) => {
      let s = 0;
      for (let j = 0; j < 1024; j++) s += v[1023 * 1024 + j];
      return expectClose(s, 1, 'sum of row 1023');
    },
  }),
  opWorkload({
    id: 'logsumexp',
    label: 'logSumExp [1024,1024] over the last axis',
    setup: (tf) => {
      const x = randomFloats(1 << 20, 71);
      return { tensors: [tf.tensor2d(x, [1024, 1024])], host: { x } };
    },
    op: (tf, [x]) => tf.logSumExp(x, 1),
    check: (v, { x }) => {
      let s = 0;
      for (let j = 0; j < 1024; j++) s += Math.exp(x[512 * 1024 + j]);
      return expectClose(v[512], Math.log(s), 'row 512');
    },
  }),
];

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
  ...nnWorkloads,
  {
    // issue 9's target: dense 784→256 relu with an l2(0.01) kernel penalty, dense 256→10
    // softmax, categorical cross-entropy, adam, batch 128, written with optimizer.minimize.
    id: 'trainstep',
    label: 'training step: dense 784→256 relu + l2, dense 10 softmax, adam, batch 128',
    unit: 'samples/s',
    higherIsBetter: true,
    run(tf) {
      const batch = 128;
      const x = tf.tensor2d(randomFloats(batch * 784, 81), [batch, 784]);
      const labels = Array.from({ length: batch }, (_, i) => (i * 7) % 10);
      const y = tf.tidy(() => tf.oneHot(tf.tensor1d(labels, 'int32'), 10).toFloat());
      // Variables outlive tidy; their initial values do not.
      const glorot = (rows, cols, seed) => tf.tidy(() => {
        const lim = Math.sqrt(6 / (rows + cols));
        return tf.variable(tf.tensor2d(randomFloats(rows * cols, seed).map((v) => v * lim), [rows, cols]));
      });
      const w1 = glorot(784, 256, 82);
      const b1 = tf.tidy(() => tf.variable(tf.zeros([256])));
      const w2 = glorot(256, 10, 83);
      const b2 = tf.tidy(() => tf.variable(tf.zeros([10])));
      const optimizer = tf.train.adam(0.001);
      const loss = () => tf.tidy(() => {
        const h = tf.relu(tf.matMul(x, w1).add(b1));
        const logits = tf.matMul(h, w2).add(b2);
        const ce = tf.losses.softmaxCrossEntropy(y, logits);
        return ce.add(tf.sum(tf.square(w1)).mul(0.01));
      });
      let first = NaN;
      let last = NaN;
      const step = () => {
        const cost = optimizer.minimize(loss, true, [w1, b1, w2, b2]);
        last = cost.dataSync()[0];
        if (Number.isNaN(first)) first = last;
        cost.dispose();
      };
      const { perIter, iters } = measure(step);
      optimizer.dispose();
      tf.dispose([x, y, w1, b1, w2, b2]);
      const rate = perIter.map((ms) => (batch * 1000) / ms);
      return { value: median(rate), samples: rate, iters, check: last < first ? 'ok' : `loss ${first} -> ${last}: not falling` };
    },
  },
  ...require('./models').modelWorkloads({ randomFloats, median, measureAsync }),
  ...require('./files').fileWorkloads({ randomFloats, median, measure, measureAsync }),
  ...require('./memory').memoryWorkloads({ median, measure, measureAsync }),
  ...require('./graph').graphWorkloads({ randomFloats, median, measure, measureAsync }),
  ...require('./onnx').onnxWorkloads({ median, measureAsync }),
];

// Runs every workload (or those whose id is in `only`) and resolves to one result per workload.
// A workload that throws is reported with its error and does not stop the others. Each
// workload must leave tf.memory().numTensors where it found it.
async function runAll(tf, { only, log = () => {} } = {}) {
  const results = [];
  for (const w of workloads) {
    if (only && !only.includes(w.id)) continue;
    // onnxruntime-node runs the ONNX workloads only.
    if (tf.onnxruntime && !w.onnx) continue;
    const before = tf.memory().numTensors;
    const t0 = performance.now();
    let r;
    try {
      r = await w.run(tf);
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
