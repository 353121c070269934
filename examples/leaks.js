#!/usr/bin/env node
'use strict';
// Finding and fixing leaks (README: "Finding and fixing leaks").
//
//   1. A predict function leaks one tensor per call. tf.leaks(fn) runs a loop of calls and
//      names the line that made the leaked tensors (origin tracking is on).
//   2. tf.tidy fixes it: the intermediates go, the result stays.
//   3. An async pipeline awaits between its ops, so tf.tidy cannot wrap it (tidy does not
//      wait for a promise); it leaks every tensor it makes. tf.tidyAsync fixes it.
//
//   node examples/leaks.js           (TIDYTENSOR_BACKEND=cpu|wgpu picks the backend)
//
// Exits with status 1 if what it shows is not so.

const fs = require('fs');
const tf = require('..');

// Remember the line of code that makes each tensor (or run with TIDYTENSOR_TRACK_ORIGINS=1).
tf.env().set('TRACK_ORIGINS', true);

const start = tf.memory().numTensors;
const weights = tf.tensor2d([[1, -1], [0.5, 0.5], [-1, 1], [2, 0]]); // [4, 2]

// Leaks one tensor per call: the logits are never disposed.
function predictLeaky(x) {
  const logits = tf.matMul(x, weights); // <- leaks
  return tf.softmax(logits);
}

// Fixed: tf.tidy disposes what the function made, except the result.
function predict(x) {
  return tf.tidy(() => tf.softmax(tf.matMul(x, weights)));
}

// An async pipeline: the values are read (an await) between the ops.
async function scoreLeaky(values) {
  const input = tf.tensor2d([values]);
  const scaled = input.div(10);
  const probs = predict(scaled);
  const [p] = await probs.data();
  return p;
}

// Fixed: tf.tidyAsync disposes what the pipeline made once its promise settles.
function score(values) {
  return tf.tidyAsync(() => scoreLeaky(values));
}

let failed = false;
function check(ok, what) {
  if (!ok) {
    console.error(`NOT SO: ${what}`);
    failed = true;
  }
}

function show(title, report) {
  console.log(`${title}: ${report.numTensors} tensor(s), ${report.numBytes} bytes leaked`);
  for (const row of report.summary) {
    const shapes = row.shapes.map((s) => `[${s}]`).join(' ');
    console.log(`  ${row.count} x ${shapes} (${row.ops.join(', ')}) made at ${row.origin}`);
  }
}

async function main() {
  const x = tf.tensor2d([[1, 2, 3, 4]]);

  // 1. The leak, and the line that makes it.
  const leaky = tf.leaks(() => {
    for (let i = 0; i < 3; i++) predictLeaky(x).dispose();
  });
  show('predictLeaky x3', leaky);
  const leakLine = fs.readFileSync(__filename, 'utf8').split('\n')
    .findIndex((l) => l.includes('// <- leaks')) + 1;
  check(leaky.numTensors === 3, 'three calls leak three tensors');
  check(leaky.summary.length === 1 && leaky.summary[0].count === 3, 'all from one origin');
  check(leaky.tensors.every((t) => t.op === 'BatchMatMul' && t.frame !== null &&
    t.frame.file === __filename && t.frame.line === leakLine &&
    t.frame.functionName === 'predictLeaky'), `made by matMul in predictLeaky, line ${leakLine}`);

  // 2. Fixed with tf.tidy: nothing leaks, the result is not counted.
  const fixed = tf.leaks(() => {
    for (let i = 0; i < 3; i++) predict(x).dispose();
    return predict(x);
  });
  show('predict x3', fixed);
  check(fixed.numTensors === 0, 'predict leaks nothing');
  check(fixed.result instanceof tf.Tensor, 'the result is returned, not reported');
  fixed.result.dispose();

  // 3. The async pipeline: every tensor it makes leaks; tf.tidyAsync disposes them.
  const asyncLeaky = await tf.leaks(async () => {
    for (let i = 0; i < 3; i++) await scoreLeaky([1, 2, 3, 4]);
  });
  show('scoreLeaky x3', asyncLeaky);
  check(asyncLeaky.numTensors === 9, 'three tensors per call leak (input, scaled, probs)');

  let p = 0;
  const asyncFixed = await tf.leaks(async () => {
    for (let i = 0; i < 3; i++) p = await score([1, 2, 3, 4]);
  });
  show('score x3 (tidyAsync)', asyncFixed);
  check(asyncFixed.numTensors === 0, 'tidyAsync leaves nothing behind');
  check(Math.abs(p - 0.5987) < 1e-3, `the score is still right (${p})`);

  // What is left: the leaks of parts 1 and 3 (they have no handle left to dispose them by).
  tf.dispose([x, weights]);
  check(tf.memory().numTensors === start + 3 + 9, `only the leaks are left (${tf.memory().numTensors - start})`);
  if (failed) process.exit(1);
  console.log('ok');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
