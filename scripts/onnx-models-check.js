'use strict';
// The exported models of the bench (scripts/onnx_models.py: ResNet-18, MobileNetV2, a BERT-like
// encoder; random weights) through tf.loadOnnxModel beside onnxruntime-node's CPU provider on
// the same inputs: every output value within 1e-4, relative to the larger of 1 and the expected
// magnitude; and load → predict → dispose leaves tf.memory() where it started.
//
//   node scripts/onnx-models-check.js DIR      (TIDYTENSOR_BACKEND picks the backend)
// scripts/onnx-backend.sh writes DIR and runs this after ONNX's backend tests. Exits 1 on a
// difference or a leak.

const path = require('node:path');
const ort = require('onnxruntime-node');
const tf = require('..');

const dir = process.argv[2];
if (dir == null) {
  console.error('usage: node scripts/onnx-models-check.js DIR');
  process.exit(2);
}

// Two examples each: images of sin(i), or token ids.
const BATCH = 2;
function inputs(name) {
  if (name === 'encoder') {
    const ids = Int32Array.from({ length: BATCH * 128 }, (_, i) => (i * 37) % 1000);
    return { ort: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [BATCH, 128]), tf: () => tf.tensor(ids, [BATCH, 128], 'int32') };
  }
  const x = Float32Array.from({ length: BATCH * 3 * 224 * 224 }, (_, i) => Math.sin(i));
  return { ort: new ort.Tensor('float32', x, [BATCH, 3, 224, 224]), tf: () => tf.tensor(x, [BATCH, 3, 224, 224]) };
}

async function check(name) {
  const file = path.join(dir, `${name}.onnx`);
  const x = inputs(name);
  const session = await ort.InferenceSession.create(file);
  const want = (await session.run({ [session.inputNames[0]]: x.ort }))[session.outputNames[0]];
  await session.release();
  const before = tf.memory().numTensors;
  const model = await tf.loadOnnxModel(file);
  const input = x.tf();
  const y = model.predict(input);
  const got = y.dataSync();
  const problems = [];
  if (JSON.stringify(y.shape) !== JSON.stringify(want.dims.map(Number))) problems.push(`shape ${y.shape}, want ${want.dims}`);
  let worst = 0;
  for (let i = 0; i < want.data.length; i++) {
    const err = Math.abs(got[i] - want.data[i]) / Math.max(1, Math.abs(want.data[i]));
    if (!(err <= worst)) worst = err;
  }
  if (!(worst <= 1e-4)) problems.push(`largest relative difference ${worst.toExponential(2)} > 1e-4`);
  tf.dispose([y, input]);
  model.dispose();
  if (tf.memory().numTensors !== before) problems.push(`${tf.memory().numTensors - before} tensors left allocated`);
  console.log(`${problems.length ? 'FAIL' : 'pass'} ${name}: ${want.data.length} values, largest relative difference ${worst.toExponential(2)}${problems.length ? `: ${problems.join('; ')}` : ''}`);
  return problems.length === 0;
}

(async () => {
  const backend = process.env.TIDYTENSOR_BACKEND;
  if (backend) await tf.setBackend(backend);
  let ok = true;
  for (const name of ['resnet18', 'mobilenetv2', 'encoder']) ok = (await check(name)) && ok;
  process.exit(ok ? 0 : 1);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
