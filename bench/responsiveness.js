#!/usr/bin/env node
'use strict';
// Issue 23's targets for a graph model's long loop (README, "Safety"): while executeAsync runs
// a TensorFlow 1 while loop, how late a 1 ms timer fires (its lag: median and max), on
// tidytensor and on @tensorflow/tfjs (cpu backend), each in this process one after the other;
// then, on tidytensor, how soon an AbortSignal ends an endless loop (median of 5), and the
// memory an endless loop takes over time (it should stay flat).
//
//   node bench/responsiveness.js [iterations=3000]
// Environment: TIDYTENSOR_BACKEND picks tidytensor's backend.
const path = require('path');
const { models } = require(path.join(__dirname, '..', '__test__', 'fixtures', 'graph', 'generate'));

const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

// Runs `fn` while a 1 ms interval records how late each of its ticks comes.
async function withTimer(fn) {
  const lags = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - last - 1));
    last = now;
  }, 1);
  const start = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return { ms: performance.now() - start, lags };
}

async function loopLag(tf, name, n) {
  const model = await tf.loadGraphModel(tf.io.fromMemory(models().whileLoop.artifacts()));
  const x = tf.tensor([1, 2, 3]);
  const count = tf.scalar(n, 'int32');
  const { ms, lags } = await withTimer(async () => tf.dispose(await model.executeAsync({ x, n: count }, ['acc'])));
  tf.dispose([x, count]);
  model.dispose();
  const worst = lags.length ? Math.max(...lags) : ms;
  console.log(`${name.padEnd(18)} ${n} iterations in ${ms.toFixed(0)} ms: timer ticks ${lags.length}, ` +
    `lag median ${lags.length ? median(lags).toFixed(1) : '-'} ms, max ${worst.toFixed(1)} ms`);
}

async function main() {
  const n = Number(process.argv[2]) || 3000;
  const tt = require(path.join(__dirname, '..'));
  if (process.env.TIDYTENSOR_BACKEND) await tt.setBackend(process.env.TIDYTENSOR_BACKEND);
  const tfjs = require('@tensorflow/tfjs');
  await tfjs.setBackend('cpu');
  console.log(`executeAsync of a while loop (tidytensor on ${tt.getBackend()}, tfjs on cpu)`);
  await loopLag(tt, 'tidytensor', n);
  await loopLag(tfjs, 'tfjs 4.22 (cpu)', n);

  const model = await tt.loadGraphModel(tt.io.fromMemory(models().whileLoop.artifacts()));
  const x = tt.tensor([1, 2, 3]);
  const endless = tt.scalar(2 ** 31 - 1, 'int32');
  const aborts = [];
  let growth = 0;
  for (let i = 0; i < 5; i++) {
    const controller = new AbortController();
    const running = model.executeAsync({ x, n: endless }, ['acc'], { signal: controller.signal }).catch((e) => e);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const rss = process.memoryUsage().rss;
    await new Promise((resolve) => setTimeout(resolve, i === 4 ? 2000 : 100));
    growth = process.memoryUsage().rss - rss;
    const t = performance.now();
    controller.abort();
    await running;
    aborts.push(performance.now() - t);
  }
  tt.dispose([x, endless]);
  model.dispose();
  console.log(`tidytensor endless loop: abort ends it in ${median(aborts).toFixed(2)} ms (median of 5); ` +
    `memory over its last 2 s: ${(growth / 1e6).toFixed(1)} MB`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
