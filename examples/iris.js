#!/usr/bin/env node
'use strict';
// The main example (`npm start`): trains a softmax-regression (multinomial logistic regression)
// classifier on Fisher's Iris data set with an optimizer (`tf.train.sgd(...).minimize`, whose
// gradients come from automatic differentiation), checks them once against the hand-derived
// formula, then reports the training accuracy and checks that no tensor leaked.
//
//   npm start                   runs on tidytensor
//   TF=tfjs npm start           runs the same program on @tensorflow/tfjs, for comparison
//
// Model: X [150,4] (standardized features), W [4,3], b [3]
//   logits = X·W + b,  p = softmax(logits)
//   loss   = mean over rows of −Σ_k Y_k · log p_k            (cross-entropy, Y one-hot)
//   ∂loss/∂W = Xᵀ(p − Y) / n,   ∂loss/∂b = mean over rows of (p − Y)
// W and b are variables the optimizer updates in place, so the number of live tensors is the
// same after training as before.
//
// Exits with status 1 if tensors leaked or the training accuracy is below 0.9.

const fs = require('fs');
const path = require('path');

const which = process.env.TF || 'tidytensor';
let tf;
if (which === 'tfjs') tf = require('@tensorflow/tfjs');
else if (which === 'tidytensor') tf = require('..');
else {
  console.error(`unknown TF=${which}: use TF=tidytensor (default) or TF=tfjs`);
  process.exit(2);
}

const EPOCHS = 300;
const LEARNING_RATE = 0.5;
const LOG_EVERY = 25;

// ---- data ---------------------------------------------------------------------------------
function loadIris(file) {
  const lines = fs.readFileSync(file, 'utf8').trim().split(/\r?\n/);
  const [nRows, nFeatures, ...classNames] = lines[0].split(',');
  const features = [];
  const labels = [];
  for (const line of lines.slice(1)) {
    const cols = line.split(',').map(Number);
    features.push(cols.slice(0, Number(nFeatures)));
    labels.push(cols[Number(nFeatures)]);
  }
  if (features.length !== Number(nRows)) throw new Error(`${file}: expected ${nRows} rows, found ${features.length}`);
  return { features, labels, classNames };
}

function fmtMemory(m) {
  return `numTensors ${m.numTensors}, numDataBuffers ${m.numDataBuffers}, numBytes ${m.numBytes}`;
}

function main() {
  const { features, labels, classNames } = loadIris(path.join(__dirname, 'data', 'iris.csv'));
  const n = features.length;
  const nFeatures = features[0].length;
  const nClasses = classNames.length;

  const memStart = tf.memory();
  console.log(`Iris softmax regression on ${which === 'tfjs' ? '@tensorflow/tfjs' : 'tidytensor'} ` +
    `(backend ${tf.getBackend()}): ${n} samples, ${nFeatures} features, ${nClasses} classes`);
  console.log(`memory at start:        ${fmtMemory(memStart)}`);

  // Standardize each feature to mean 0, standard deviation 1. Only X and Y survive the tidy.
  const { X, Y } = tf.tidy(() => {
    const raw = tf.tensor2d(features);
    const mu = raw.mean(0);
    const sigma = raw.sub(mu).square().mean(0).sqrt();
    return {
      X: raw.sub(mu).div(sigma),
      Y: tf.oneHot(tf.tensor1d(labels, 'int32'), nClasses), // [n, 3], int32 0/1
    };
  });

  // Parameters as variables, initialised to zero (the loss is convex: zero is a fine start).
  const W0 = tf.tensor2d(new Array(nFeatures * nClasses).fill(0), [nFeatures, nClasses]);
  const b0 = tf.tensor1d(new Array(nClasses).fill(0));
  const W = tf.variable(W0, true, 'iris_W');
  const b = tf.variable(b0, true, 'iris_b');
  tf.dispose([W0, b0]);

  // Mean cross-entropy from the logits, through a numerically stable log-softmax.
  const crossEntropy = (logits) => {
    const z = logits.sub(logits.max(1, true));
    const logp = z.sub(z.exp().sum(1, true).log());
    return Y.mul(logp).sum(1).mean().neg();
  };

  const memBefore = tf.memory();
  console.log(`memory before training: ${fmtMemory(memBefore)}`);

  // Automatic differentiation against the hand-derived gradient, at the starting point.
  const gradError = tf.tidy(() => {
    const [dW, db] = tf.grads((w, bias) => crossEntropy(tf.matMul(X, w).add(bias)))([W, b]);
    const diff = tf.softmax(tf.matMul(X, W).add(b)).sub(Y);
    const handW = tf.matMul(X, diff, true, false).div(n);
    const handB = diff.mean(0);
    return Math.max(dW.sub(handW).abs().max().dataSync()[0], db.sub(handB).abs().max().dataSync()[0]);
  });
  console.log(`autodiff vs hand-derived gradient: max difference ${gradError.toExponential(2)}`);

  const optimizer = tf.train.sgd(LEARNING_RATE);
  const t0 = process.hrtime.bigint();
  for (let epoch = 1; epoch <= EPOCHS; epoch++) {
    const log = epoch === 1 || epoch % LOG_EVERY === 0;
    // The loss of the parameters before this step; its gradient with respect to W and b
    // updates them.
    const cost = optimizer.minimize(() => crossEntropy(tf.matMul(X, W).add(b)), log, [W, b]);
    if (log) {
      const loss = cost.dataSync()[0];
      cost.dispose();
      console.log(`epoch ${String(epoch).padStart(3)}  loss ${loss.toFixed(4)}`);
    }
  }
  optimizer.dispose();
  const trainMs = Number(process.hrtime.bigint() - t0) / 1e6;

  // Training accuracy: the predicted class is the argMax of the logits.
  const { predicted, probabilities, finalLoss } = tf.tidy(() => {
    const logits = tf.matMul(X, W).add(b);
    return {
      predicted: Array.from(logits.argMax(1).dataSync()),
      probabilities: Array.from(tf.softmax(logits).dataSync()), // row-major [n, 3]
      finalLoss: crossEntropy(logits).dataSync()[0],
    };
  });
  let correct = 0;
  const confusion = classNames.map(() => classNames.map(() => 0));
  predicted.forEach((k, i) => {
    if (k === labels[i]) correct++;
    confusion[labels[i]][k]++;
  });
  const accuracy = correct / n;

  const memAfter = tf.memory();
  console.log(`memory after training:  ${fmtMemory(memAfter)}`);
  console.log(`trained ${EPOCHS} epochs in ${trainMs.toFixed(0)} ms (${(trainMs * 1000 / EPOCHS).toFixed(0)} µs/epoch), final loss ${finalLoss.toFixed(4)}`);
  console.log(`training accuracy: ${correct}/${n} = ${(accuracy * 100).toFixed(1)}%`);
  console.log('confusion matrix (rows: true class, columns: predicted):');
  const w = Math.max(...classNames.map((c) => c.length));
  console.log(`  ${''.padEnd(w)}  ${classNames.map((c) => c.padStart(w)).join('  ')}`);
  confusion.forEach((row, i) => console.log(`  ${classNames[i].padEnd(w)}  ${row.map((v) => String(v).padStart(w)).join('  ')}`));
  const show = [0, 50, 100].map((i) => `${classNames[labels[i]]}: [` +
    `${probabilities.slice(i * nClasses, (i + 1) * nClasses).map((q) => q.toFixed(3)).join(', ')}]`);
  console.log(`p(class) for rows 0, 50, 100 — ${show.join('; ')}`);

  // Everything this program made is disposed: the engine must be back where it started.
  tf.dispose([X, Y, W, b]);
  const memEnd = tf.memory();
  console.log(`memory at end:          ${fmtMemory(memEnd)}`);

  const problems = [];
  if (memAfter.numTensors !== memBefore.numTensors || memAfter.numBytes !== memBefore.numBytes) {
    problems.push(`memory grew during training (${memBefore.numTensors} -> ${memAfter.numTensors} tensors, ` +
      `${memBefore.numBytes} -> ${memAfter.numBytes} bytes)`);
  }
  if (memEnd.numTensors !== memStart.numTensors || memEnd.numBytes !== memStart.numBytes) {
    problems.push(`tensors left after disposing everything (${memStart.numTensors} -> ${memEnd.numTensors})`);
  }
  if (!(accuracy >= 0.9)) problems.push(`training accuracy ${accuracy} < 0.9`);
  if (!(gradError < 1e-5)) problems.push(`automatic and hand-derived gradients differ by ${gradError}`);
  if (!Number.isFinite(finalLoss)) problems.push(`loss is ${finalLoss}`);
  if (problems.length) {
    for (const p of problems) console.error(`FAIL: ${p}`);
    process.exitCode = 1;
  } else {
    console.log('OK: accuracy ≥ 0.9 and no tensor leaked');
  }
}

main();
