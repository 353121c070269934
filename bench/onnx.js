'use strict';
// The ONNX workloads of issue 28: tidytensor's tf.loadOnnxModel beside onnxruntime-node (its CPU
// provider, default threads) on the same files, batch 1: ResNet-18 and MobileNetV2 at 224×224
// and a BERT-like encoder (4 layers, hidden 256, sequence 128), random weights, written by
// scripts/onnx-models.sh (the `onnx` package from PyPI) into ONNX_MODELS_DIR, by default
// $TMPDIR/tidytensor-onnx-models, the first time; and load → first prediction of ResNet-18.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const ROOT = path.join(__dirname, '..');
const DIR = process.env.ONNX_MODELS_DIR || path.join(os.tmpdir(), 'tidytensor-onnx-models');

function modelFile(name) {
  const file = path.join(DIR, `${name}.onnx`);
  if (!fs.existsSync(file)) {
    try {
      execFileSync(path.join(ROOT, 'scripts', 'onnx-models.sh'), [DIR], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      throw new Error(`the ONNX models could not be written (scripts/onnx-models.sh needs python3 with venv): ${e.message}`,
        { cause: e });
    }
  }
  return file;
}

// The input of each model: an image's worth of sin(i), or token ids.
function input(name) {
  if (name === 'encoder') return { shape: [1, 128], ids: Int32Array.from({ length: 128 }, (_, i) => (i * 37) % 1000) };
  return { shape: [1, 3, 224, 224], floats: Float32Array.from({ length: 3 * 224 * 224 }, (_, i) => Math.sin(i)) };
}

// One prediction, by either implementation: `tf` is tidytensor's namespace, or the shim
// bench/impls.js gives onnxruntime-node ({ onnxruntime }).
async function session(tf, file, name) {
  const x = input(name);
  if (tf.onnxruntime) {
    const ort = tf.onnxruntime;
    const s = await ort.InferenceSession.create(file);
    const feed = { [s.inputNames[0]]: x.ids
      ? new ort.Tensor('int64', BigInt64Array.from(x.ids, (v) => BigInt(v)), x.shape)
      : new ort.Tensor('float32', x.floats, x.shape) };
    return {
      run: async () => (await s.run(feed))[s.outputNames[0]].data.length,
      dispose: () => s.release(),
    };
  }
  if (typeof tf.loadOnnxModel !== 'function') throw new Error('no ONNX loader in this implementation');
  const model = await tf.loadOnnxModel(file);
  const t = x.ids ? tf.tensor(x.ids, x.shape, 'int32') : tf.tensor(x.floats, x.shape);
  return {
    run: async () => {
      const y = model.predict(t);
      const n = y.dataSync().length;
      y.dispose();
      return n;
    },
    dispose: () => { t.dispose(); model.dispose(); },
  };
}

function onnxWorkloads({ median, measureAsync }) {
  const predict = (name, label, outputs) => ({
    id: `onnx${name}`,
    label: `ONNX model predict, ${label}, batch 1`,
    unit: 'ms',
    higherIsBetter: false,
    onnx: true,
    async run(tf) {
      const s = await session(tf, modelFile(name), name);
      let n = 0;
      const { perIter, iters } = await measureAsync(async () => { n = await s.run(); });
      await s.dispose();
      return { value: median(perIter), samples: perIter, iters, check: n === outputs ? 'ok' : `${n} outputs` };
    },
  });
  return [
    predict('resnet18', 'ResNet-18 (224×224)', 1000),
    predict('mobilenetv2', 'MobileNetV2 (224×224)', 1000),
    predict('encoder', 'BERT-like encoder (4 layers, 256 wide, 128 tokens)', 128 * 256),
    {
      id: 'onnxload',
      label: 'ONNX model load → first prediction, ResNet-18 (47 MB)',
      unit: 'ms',
      higherIsBetter: false,
      onnx: true,
      async run(tf) {
        const file = modelFile('resnet18');
        let n = 0;
        const { perIter, iters } = await measureAsync(async () => {
          const s = await session(tf, file, 'resnet18');
          n = await s.run();
          await s.dispose();
        }, 3);
        return { value: median(perIter), samples: perIter, iters, check: n === 1000 ? 'ok' : `${n} outputs` };
      },
    },
  ];
}

module.exports = { onnxWorkloads };
