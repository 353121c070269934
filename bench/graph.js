'use strict';
// The graph-model workloads of issue 13: tf.loadGraphModel models predicting batch 1 on every
// implementation, from the same artifacts (io.fromMemory): a real MobileNetV2 (the graph model
// nsfwjs ships, uint8-quantized, 224×224), load to first prediction of the same, and a small
// graph (the test suite's generated CNN, a few kB of weights) where per-node overhead dominates.
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');

// nsfwjs's MobileNetV2 graph model: model.min.js exports the model.json object, each shard
// module a base64 string.
function mobilenetArtifacts() {
  const dir = path.join(ROOT, 'node_modules', 'nsfwjs', 'dist', 'models', 'mobilenet_v2_mid');
  if (!fs.existsSync(dir)) throw new Error('nsfwjs (a devDependency) is not installed');
  const json = require(path.join(dir, 'model.min.js'));
  const shards = json.weightsManifest[0].paths.map((p) => Buffer.from(require(path.join(dir, `${p}.min.js`)), 'base64'));
  const data = Buffer.concat(shards);
  return {
    modelTopology: json.modelTopology,
    format: json.format,
    generatedBy: json.generatedBy,
    convertedBy: json.convertedBy,
    weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
    weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
  };
}

function graphWorkloads({ randomFloats, median, measure, measureAsync }) {
  const needGraph = (tf) => {
    if (typeof tf.loadGraphModel !== 'function') throw new Error('no loadGraphModel in this implementation');
  };
  const image = (tf, [h, w, c], seed) => tf.tensor4d(randomFloats(h * w * c, seed).map((v) => (v + 1) / 2), [1, h, w, c]);
  const sumOf = (t) => t.dataSync().reduce((a, b) => a + b, 0);
  return [
    {
      id: 'graphmobilenet',
      label: 'graph model predict, MobileNetV2 (nsfwjs\'s, 224×224, batch 1)',
      unit: 'ms',
      higherIsBetter: false,
      async run(tf) {
        needGraph(tf);
        const model = await tf.loadGraphModel(tf.io.fromMemory(mobilenetArtifacts()));
        const x = image(tf, [224, 224, 3], 301);
        let sum = NaN;
        const { perIter, iters } = measure(() => {
          const y = model.predict(x);
          sum = sumOf(y);
          y.dispose();
        });
        x.dispose();
        model.dispose();
        return { value: median(perIter), samples: perIter, iters, check: Math.abs(sum - 1) < 1e-3 ? 'ok' : `softmax sums to ${sum}` };
      },
    },
    {
      id: 'graphload',
      label: 'graph model load → first prediction, MobileNetV2 (2.6 MB quantized)',
      unit: 'ms',
      higherIsBetter: false,
      async run(tf) {
        needGraph(tf);
        const artifacts = mobilenetArtifacts();
        const x = image(tf, [224, 224, 3], 302);
        let sum = NaN;
        const { perIter, iters } = await measureAsync(async () => {
          const model = await tf.loadGraphModel(tf.io.fromMemory(artifacts));
          const y = model.predict(x);
          sum = sumOf(y);
          y.dispose();
          model.dispose();
        });
        x.dispose();
        return { value: median(perIter), samples: perIter, iters, check: Math.abs(sum - 1) < 1e-3 ? 'ok' : `softmax sums to ${sum}` };
      },
    },
    {
      id: 'graphsmall',
      label: 'graph model predict, small CNN graph (~20 nodes, 12×12×3, batch 1)',
      unit: 'ms',
      higherIsBetter: false,
      async run(tf) {
        needGraph(tf);
        const { models } = require(path.join(ROOT, '__test__', 'fixtures', 'graph', 'generate.js'));
        const model = await tf.loadGraphModel(tf.io.fromMemory(models().cnn.artifacts()));
        const x = image(tf, [12, 12, 3], 303);
        let shape = null;
        const { perIter, iters } = measure(() => {
          const ys = model.predict(x);
          const list = Array.isArray(ys) ? ys : [ys];
          for (const y of list) y.dataSync();
          shape = list.map((y) => y.shape.join('x')).join(',');
          tf.dispose(list);
        });
        x.dispose();
        model.dispose();
        return { value: median(perIter), samples: perIter, iters, check: shape ? 'ok' : 'no output' };
      },
    },
  ];
}

module.exports = { graphWorkloads, mobilenetArtifacts };
