#!/usr/bin/env node
'use strict';
// The main example (`npm start`): a small network learns handwritten digits (8×8 images,
// examples/data/digits.csv.gz) with tf.sequential, compile and fit, then reports the accuracy
// on a held-out fifth of the data and shows that nothing leaked: tf.memory() before building
// the model and after disposing it (and the data) are the same.
//
//   npm start                        the default backend (wgpu on a GPU, else cpu)
//   npm start -- --backend=cpu       or --backend=wgpu
//   TF=tfjs npm start                the same program on @tensorflow/tfjs, for comparison
//
// Exits with status 1 if tensors leaked or the test accuracy is below 0.95.

const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const which = process.env.TF || 'tidytensor';
const tf = which === 'tfjs' ? require('@tensorflow/tfjs') : require('..');

const EPOCHS = 25;
const BATCH = 32;

function argValue(name) {
  const i = process.argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return null;
  const a = process.argv[i];
  return a.includes('=') ? a.slice(a.indexOf('=') + 1) : process.argv[i + 1];
}

// Rows of 64 pixels (0..16) and a label; shuffled with a fixed seed, then split 80/20.
function loadDigits() {
  const text = zlib.gunzipSync(fs.readFileSync(path.join(__dirname, 'data', 'digits.csv.gz'))).toString('utf8');
  const rows = text.trim().split(/\r?\n/).map((line) => line.split(',').map(Number));
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  const split = Math.floor(rows.length * 0.8);
  const part = (list) => ({
    pixels: Float32Array.from(list.flatMap((r) => r.slice(0, 64).map((v) => v / 16))),
    labels: Int32Array.from(list.map((r) => r[64])),
    n: list.length,
  });
  return { train: part(rows.slice(0, split)), test: part(rows.slice(split)) };
}

const mib = (bytes) => `${(bytes / 1048576).toFixed(2)} MiB`;
const show = (m) => `${m.numTensors} tensors, ${mib(m.numBytes)}`;

async function main() {
  const backend = argValue('backend');
  if (backend) await tf.setBackend(backend);
  await tf.ready();
  console.log(`${which} on backend '${tf.getBackend()}'`);

  const { train, test } = loadDigits();
  const before = tf.memory();
  console.log(`memory before: ${show(before)}`);

  const xTrain = tf.tensor2d(train.pixels, [train.n, 64]);
  const yTrain = tf.tidy(() => tf.oneHot(tf.tensor1d(train.labels, 'int32'), 10));
  const xTest = tf.tensor2d(test.pixels, [test.n, 64]);
  const yTest = tf.tidy(() => tf.oneHot(tf.tensor1d(test.labels, 'int32'), 10));

  const model = tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [64], units: 128, activation: 'relu', kernelRegularizer: tf.regularizers.l2({ l2: 1e-4 }) }),
      tf.layers.dense({ units: 10, activation: 'softmax' }),
    ],
  });
  model.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy'] });
  model.summary();

  const epochTimes = [];
  let epochStart = 0;
  const started = Date.now();
  await model.fit(xTrain, yTrain, {
    epochs: EPOCHS,
    batchSize: BATCH,
    validationSplit: 0.1,
    callbacks: {
      onEpochBegin: async () => { epochStart = Date.now(); },
      onEpochEnd: async () => { epochTimes.push(Date.now() - epochStart); },
    },
  });
  const seconds = (Date.now() - started) / 1000;
  const median = epochTimes.slice().sort((a, b) => a - b)[Math.floor(epochTimes.length / 2)];
  console.log(`trained ${EPOCHS} epochs in ${seconds.toFixed(2)} s (median ${median} ms per epoch, ` +
    `${Math.round((EPOCHS * train.n * 0.9) / seconds)} samples/s)`);

  const [testLoss, testAcc] = model.evaluate(xTest, yTest, { batchSize: 256 });
  const accuracy = testAcc.dataSync()[0];
  console.log(`held-out test set (${test.n} digits): loss ${testLoss.dataSync()[0].toFixed(4)}, accuracy ${accuracy.toFixed(4)}`);
  tf.dispose([testLoss, testAcc]);

  // One prediction, inside tidy: nothing it makes outlives it.
  const guess = tf.tidy(() => model.predict(xTest.slice([0, 0], [1, 64])).argMax(-1).dataSync()[0]);
  console.log(`first test digit: predicted ${guess}, labelled ${test.labels[0]}`);

  // Model files and images (tidytensor only: plain tfjs can neither write files nor decode
  // images in Node): save the model, load it back, and classify the digit from a PNG file.
  if (tf.node) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'digits-'));
    await model.save(`file://${dir}/model`);
    const reloaded = await tf.loadLayersModel(`file://${dir}/model/model.json`);
    const digit = tf.tidy(() => xTest.slice([0, 0], [1, 64]).reshape([8, 8, 1]).mul(255).round().toInt());
    fs.writeFileSync(path.join(dir, 'digit.png'), await tf.node.encodePng(digit));
    digit.dispose();
    const image = tf.node.decodeImage(fs.readFileSync(path.join(dir, 'digit.png')), 1);
    const fromFile = tf.tidy(() => reloaded.predict(image.toFloat().div(255).reshape([1, 64])).argMax(-1).dataSync()[0]);
    console.log(`saved to ${dir}/model, loaded back; ${dir}/digit.png classified as ${fromFile}`);
    image.dispose();
    reloaded.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const freed = model.dispose();
  tf.dispose([xTrain, yTrain, xTest, yTest]);
  const after = tf.memory();
  console.log(`model.dispose(): ${JSON.stringify(freed)}`);
  console.log(`memory after:  ${show(after)}`);

  let ok = true;
  if (after.numTensors !== before.numTensors || after.numBytes !== before.numBytes) {
    console.error('LEAK: memory after differs from memory before');
    ok = false;
  }
  if (!(accuracy >= 0.95)) {
    console.error(`accuracy ${accuracy} is below 0.95`);
    ok = false;
  }
  if (!ok) process.exit(1);
  console.log('ok: accuracy >= 0.95 and nothing leaked');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
