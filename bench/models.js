'use strict';
// The model workloads (issue 10's targets): tf.sequential models trained with fit and run
// with predict, through the layers API, on every implementation. Asynchronous (fit is), timed
// like the op workloads (workloads.js's measureAsync).

// The helpers come from workloads.js (which lists these workloads after its own).
function modelWorkloads({ randomFloats, median, measureAsync }) {
  // One-hot labels for `n` samples of `classes` classes, and random inputs of `shape`.
  const data = (tf, n, shape, classes, seed) => {
    const size = shape.reduce((a, b) => a * b, 1);
    const x = tf.tensor(randomFloats(n * size, seed), [n, ...shape]);
    const labels = Array.from({ length: n }, (_, i) => (i * 7) % classes);
    const y = tf.tidy(() => tf.oneHot(tf.tensor1d(labels, 'int32'), classes).toFloat());
    return { x, y };
  };
  const seedModel = (tf) => {
    const model = tf.sequential({
      layers: [
        tf.layers.dense({ inputShape: [784], units: 256, activation: 'relu', kernelRegularizer: tf.regularizers.l2({ l2: 0.01 }) }),
        tf.layers.dense({ units: 10, activation: 'softmax' }),
      ],
    });
    model.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy'] });
    return model;
  };
  // fit of `samples` samples per repetition, as samples per second.
  const fitWorkload = ({ id, label, build, shape, classes, samples, batchSize, seed }) => ({
    id,
    label,
    unit: 'samples/s',
    higherIsBetter: true,
    async run(tf) {
      const model = await build(tf);
      const { x, y } = data(tf, samples, shape, classes, seed);
      let first = NaN;
      let last = NaN;
      const { perIter, iters } = await measureAsync(async () => {
        const h = await model.fit(x, y, { epochs: 1, batchSize, verbose: 0 });
        last = h.history.loss[0];
        if (Number.isNaN(first)) first = last;
      });
      model.dispose();
      tf.dispose([x, y]);
      const rate = perIter.map((ms) => (samples * 1000) / ms);
      return { value: median(rate), samples: rate, iters, check: last < first ? 'ok' : `loss ${first} -> ${last}: not falling` };
    },
  });
  const predictWorkload = (batch) => ({
    id: `predict${batch}`,
    label: `seed MLP predict, batch ${batch}`,
    unit: batch === 1 ? 'ms' : 'samples/s',
    higherIsBetter: batch !== 1,
    async run(tf) {
      const model = seedModel(tf);
      const x = tf.tensor2d(randomFloats(batch * 784, 91), [batch, 784]);
      let sum = NaN;
      const { perIter, iters } = await measureAsync(async () => {
        const p = model.predict(x);
        const v = p.dataSync();
        sum = v.slice(0, 10).reduce((a, b) => a + b, 0);
        p.dispose();
      });
      model.dispose();
      x.dispose();
      const values = batch === 1 ? perIter : perIter.map((ms) => (batch * 1000) / ms);
      return { value: median(values), samples: values, iters, check: Math.abs(sum - 1) < 1e-3 ? 'ok' : `softmax row sums to ${sum}` };
    },
  });
  return [
    fitWorkload({
      id: 'mlpfit',
      label: 'seed MLP fit (784→256 relu + l2, 10 softmax; adam), 4,096 samples, batch 128',
      build: seedModel,
      shape: [784],
      classes: 10,
      samples: 4096,
      batchSize: 128,
      seed: 92,
    }),
    predictWorkload(1),
    predictWorkload(256),
    fitWorkload({
      id: 'cnnfit',
      label: 'CNN fit (conv 32, pool, conv 64, pool, dense 10) on 28×28×1, 128 samples, batch 64',
      build: (tf) => {
        const model = tf.sequential({
          layers: [
            tf.layers.conv2d({ inputShape: [28, 28, 1], filters: 32, kernelSize: 3, activation: 'relu' }),
            tf.layers.maxPooling2d({ poolSize: 2 }),
            tf.layers.conv2d({ filters: 64, kernelSize: 3, activation: 'relu' }),
            tf.layers.maxPooling2d({ poolSize: 2 }),
            tf.layers.flatten(),
            tf.layers.dense({ units: 10, activation: 'softmax' }),
          ],
        });
        model.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy' });
        return model;
      },
      shape: [28, 28, 1],
      classes: 10,
      samples: 128,
      batchSize: 64,
      seed: 93,
    }),
    fitWorkload({
      id: 'customfit',
      label: 'custom JS layer fit (784→256 relu, a Layer subclass scaling by a trainable weight, 10 softmax; adam), 4,096 samples, batch 128',
      build: (tf) => {
        // The tfjs way to write a layer of one's own: build adds the weight, call uses it.
        class Scale extends tf.layers.Layer {
          build(inputShape) {
            this.scale = this.addWeight('scale', [inputShape[inputShape.length - 1]], 'float32', tf.initializers.ones());
          }

          call(inputs) {
            return tf.tidy(() => tf.mul(Array.isArray(inputs) ? inputs[0] : inputs, this.scale.read()));
          }

          static get className() {
            return 'Scale';
          }
        }
        const model = tf.sequential({
          layers: [
            tf.layers.dense({ inputShape: [784], units: 256, activation: 'relu' }),
            new Scale({}),
            tf.layers.dense({ units: 10, activation: 'softmax' }),
          ],
        });
        model.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy' });
        return model;
      },
      shape: [784],
      classes: 10,
      samples: 4096,
      batchSize: 128,
      seed: 95,
    }),
    fitWorkload({
      id: 'transferfit',
      label: 'transfer learning fit: nsfwjs\'s MobileNetV2 layers model frozen up to flatten_1, a new dense 3 head (adam), 64 images 224×224×3, batch 32',
      // The classic tfjs tutorial: a loaded model's features, frozen, under a new head.
      build: async (tf) => {
        const base = await tf.loadLayersModel(tf.io.fromMemory(nsfwLayersArtifacts()));
        const features = tf.model({ inputs: base.inputs, outputs: base.getLayer('flatten_1').output });
        features.trainable = false;
        // The base's own head is not used: its weights go now (the model disposes the rest).
        for (const name of ['dense_1', 'dense_2', 'dense_3']) base.getLayer(name).dispose();
        const model = tf.sequential({ layers: [features, tf.layers.dense({ units: 3, activation: 'softmax' })] });
        model.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy' });
        return model;
      },
      shape: [224, 224, 3],
      classes: 3,
      samples: 64,
      batchSize: 32,
      seed: 96,
    }),
    fitWorkload({
      id: 'bilstmfit',
      label: 'bidirectional(lstm(64)) fit over 50 steps of 8 features, 256 samples, batch 32',
      build: (tf) => {
        const model = tf.sequential({
          layers: [
            tf.layers.bidirectional({ layer: tf.layers.lstm({ units: 64 }), inputShape: [50, 8] }),
            tf.layers.dense({ units: 4, activation: 'softmax' }),
          ],
        });
        model.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy' });
        return model;
      },
      shape: [50, 8],
      classes: 4,
      samples: 256,
      batchSize: 32,
      seed: 97,
    }),
    fitWorkload({
      id: 'lstmfit',
      label: 'lstm(64) fit over 50 steps of 8 features, 256 samples, batch 32',
      build: (tf) => {
        const model = tf.sequential({
          layers: [
            tf.layers.lstm({ inputShape: [50, 8], units: 64 }),
            tf.layers.dense({ units: 4, activation: 'softmax' }),
          ],
        });
        model.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy' });
        return model;
      },
      shape: [50, 8],
      classes: 4,
      samples: 256,
      batchSize: 32,
      seed: 94,
    }),
  ];
}

// nsfwjs's MobileNetV2 layers model (keras 2.2.4, uint8-quantized) as IOHandler artifacts:
// model.min.js exports {modelTopology, weightsManifest}, each shard module a base64 string.
function nsfwLayersArtifacts() {
  const path = require('path');
  const dir = path.join(__dirname, '..', 'node_modules', 'nsfwjs', 'dist', 'models', 'mobilenet_v2');
  const json = require(path.join(dir, 'model.min.js'));
  const data = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths)
    .map((p) => Buffer.from(require(path.join(dir, `${p}.min.js`)), 'base64')));
  return {
    modelTopology: json.modelTopology,
    weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
    weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
  };
}

module.exports = { modelWorkloads };
