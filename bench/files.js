'use strict';
// The pipeline workloads of issue 11: the seed-001 image loop, loading a model file to its
// first prediction, and decoding a JPEG. Files are written once per run to the temp folder,
// so every implementation reads the same bytes.
const fs = require('fs');
const os = require('os');
const path = require('path');

function fileWorkloads({ randomFloats, median, measure, measureAsync }) {
  const dir = path.join(os.tmpdir(), 'tidytensor-bench-files');
  fs.mkdirSync(dir, { recursive: true });

  // A ~2 MB model (CNN on 28×28×1: conv 32, pool, conv 64, pool, dense 300, dense 10) with
  // deterministic weights, saved in the tfjs layers format by the implementation itself
  // (into memory, then to files), so that each loads a file of its own library's making.
  const modelFiles = async (tf, name) => {
    const folder = path.join(dir, name);
    const model = tf.sequential({
      layers: [
        tf.layers.conv2d({ inputShape: [28, 28, 1], filters: 32, kernelSize: 3, activation: 'relu' }),
        tf.layers.maxPooling2d({ poolSize: 2 }),
        tf.layers.conv2d({ filters: 64, kernelSize: 3, activation: 'relu' }),
        tf.layers.maxPooling2d({ poolSize: 2 }),
        tf.layers.flatten(),
        tf.layers.dense({ units: 300, activation: 'relu' }),
        tf.layers.dense({ units: 10, activation: 'softmax' }),
      ],
    });
    const values = model.getWeights().map((w, i) => tf.tensor(randomFloats(w.size, 200 + i).map((v) => v * 0.05), w.shape));
    model.setWeights(values);
    tf.dispose(values);
    let artifacts;
    await model.save(tf.io.withSaveHandler(async (a) => {
      artifacts = a;
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
    }));
    model.dispose();
    fs.mkdirSync(folder, { recursive: true });
    const manifest = [{ paths: ['weights.bin'], weights: artifacts.weightSpecs }];
    fs.writeFileSync(path.join(folder, 'model.json'), JSON.stringify({
      modelTopology: artifacts.modelTopology, weightsManifest: manifest, format: artifacts.format,
      generatedBy: artifacts.generatedBy, convertedBy: artifacts.convertedBy,
    }));
    fs.writeFileSync(path.join(folder, 'weights.bin'), Buffer.from(artifacts.weightData));
    return path.join(folder, 'model.json');
  };

  // Loading as a Node program would with each library: file:// where the library reads files
  // (tidytensor, tfjs-node), else the files read with fs and handed over with io.fromMemory.
  const loadFrom = async (tf, file) => {
    if (tf.io.fileSystem || tf.node) return tf.loadLayersModel(`file://${file}`);
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    const bin = fs.readFileSync(path.join(path.dirname(file), 'weights.bin'));
    return tf.loadLayersModel(tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest[0].weights,
      weightData: bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength),
    }));
  };

  // A 1024×768 photo-like JPEG (smooth gradients and texture), written once with whichever
  // implementation has an encoder and runs first.
  const jpegFile = path.join(dir, 'photo-1024x768.jpg');
  const jpegBytes = async (tf) => {
    if (!fs.existsSync(jpegFile)) {
      const [h, w] = [768, 1024];
      const px = new Int32Array(h * w * 3);
      const noise = randomFloats(h * w, 77);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const i = y * w + x;
          const n = noise[i] * 12;
          px[i * 3] = Math.max(0, Math.min(255, Math.round(128 + 100 * Math.sin(x / 90) + n)));
          px[i * 3 + 1] = Math.max(0, Math.min(255, Math.round((255 * y) / h + n)));
          px[i * 3 + 2] = Math.max(0, Math.min(255, Math.round(128 + 100 * Math.cos((x + y) / 60) + n)));
        }
      }
      const img = tf.tensor3d(px, [h, w, 3], 'int32');
      const bytes = await tf.node.encodeJpeg(img, 'rgb', 90);
      img.dispose();
      fs.writeFileSync(jpegFile, bytes);
    }
    return new Uint8Array(fs.readFileSync(jpegFile));
  };

  return [
    {
      id: 'seedloop',
      label: 'seed-001 loop: randomNormal [1,224,224,3] → div(255) → resizeBilinear 112×112 → mean → dataSync',
      unit: 'ms',
      higherIsBetter: false,
      run(tf) {
        let m = NaN;
        const { perIter, iters } = measure(() => {
          m = tf.tidy(() => {
            const x = tf.randomNormal([1, 224, 224, 3]).div(255);
            return tf.image.resizeBilinear(x, [112, 112]).mean().dataSync()[0];
          });
        });
        // The mean of 37,632 N(0, 1)/255 draws (resized) is within a few 1e-4 of 0.
        return { value: median(perIter), samples: perIter, iters, check: Math.abs(m) < 5e-4 ? 'ok' : `mean ${m}` };
      },
    },
    {
      id: 'loadmodel',
      label: 'load a 2 MB layers model from files → first predict (CNN, 1×28×28×1)',
      unit: 'ms',
      higherIsBetter: false,
      async run(tf) {
        const file = await modelFiles(tf, `model-${tf.getBackend()}-${tf.version.tfjs}${tf.version.tidytensor ? '-tt' : ''}`);
        const x = tf.tensor4d(randomFloats(784, 201).map((v) => (v + 1) / 2), [1, 28, 28, 1]);
        let sum = NaN;
        const { perIter, iters } = await measureAsync(async () => {
          const model = await loadFrom(tf, file);
          const y = model.predict(x);
          sum = y.dataSync().reduce((a, b) => a + b, 0);
          y.dispose();
          model.dispose();
        });
        x.dispose();
        return { value: median(perIter), samples: perIter, iters, check: Math.abs(sum - 1) < 1e-3 ? 'ok' : `softmax sums to ${sum}` };
      },
    },
    {
      id: 'decodejpeg',
      label: 'node.decodeImage of a 1024×768 JPEG (3 channels)',
      unit: 'ms',
      higherIsBetter: false,
      async run(tf) {
        if (!tf.node || !tf.node.decodeImage) throw new Error('no image decoder in this implementation');
        const bytes = await jpegBytes(tf);
        let shape = null;
        const { perIter, iters } = measure(() => {
          const img = tf.node.decodeImage(bytes, 3);
          shape = img.shape;
          img.dispose();
        });
        const img = tf.node.decodeImage(bytes, 3);
        const mean = tf.tidy(() => img.toFloat().mean().dataSync()[0]);
        img.dispose();
        const ok = shape && shape.join() === '768,1024,3' && mean > 100 && mean < 160;
        return { value: median(perIter), samples: perIter, iters, check: ok ? 'ok' : `shape ${shape}, mean ${mean}` };
      },
    },
  ];
}

module.exports = { fileWorkloads };
