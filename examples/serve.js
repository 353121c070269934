#!/usr/bin/env node
'use strict';
// An HTTP server that classifies images (README, "Serving"): POST a PNG or JPEG to /classify
// and it answers with the five classes of nsfwjs's MobileNetV2 graph model (the one the test
// suite uses; a devDependency) and their probabilities. Predictions run off the JavaScript
// thread (predictAsync, on tidytensor's serving thread) and concurrent requests are batched
// (tf.serving.batcher), so the server keeps answering while it computes.
//
//   node examples/serve.js [--port 8080] [--workers N] [--no-batch] [--max-batch 8] [--max-delay 2]
//   curl --data-binary @cat.jpg http://127.0.0.1:8080/classify
//
// --workers N: N worker_threads each load the model (its weights are held once in the process,
//   shared) and classify; this thread only answers HTTP, handing each upload to a worker.
// --no-batch: each request is its own prediction (still off the thread).
// GET /stats: requests served, event-loop lag (ms) since the last /stats?reset=1, memory.
// For the bench (bench/serve.js): --tf <module> serves with another TensorFlow.js (tfjs-node),
// and --sync predicts in the handler with model.predict, as tfjs-node's users write it.
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');

const CLASSES = ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy'];
const MODEL_DIR = path.join(__dirname, '..', 'node_modules', 'nsfwjs', 'dist', 'models', 'mobilenet_v2_mid');
const SIZE = 224;

function parseArgs(argv) {
  const o = { port: 8080, workers: 0, batch: true, maxBatch: 8, maxDelay: 2, tf: path.join(__dirname, '..'), sync: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--port') o.port = Number(next());
    else if (a === '--workers') o.workers = Number(next());
    else if (a === '--no-batch') o.batch = false;
    else if (a === '--max-batch') o.maxBatch = Number(next());
    else if (a === '--max-delay') o.maxDelay = Number(next());
    else if (a === '--tf') o.tf = next();
    else if (a === '--sync') o.sync = true;
    else throw new Error(`unknown option ${a} (see the top of examples/serve.js)`);
  }
  if (o.sync) o.batch = false;
  return o;
}

// The model's files (model.json and its weight shards) in a folder of the system's temporary
// directory, written there once: nsfwjs ships them as JavaScript modules (model.min.js
// exports model.json's object, each shard's module a base64 string).
function modelFiles() {
  const dir = path.join(os.tmpdir(), 'tidytensor-example-mobilenet_v2_mid');
  const file = path.join(dir, 'model.json');
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(dir, { recursive: true });
  const json = require(path.join(MODEL_DIR, 'model.min.js'));
  for (const p of json.weightsManifest[0].paths) {
    fs.writeFileSync(path.join(dir, p), Buffer.from(require(path.join(MODEL_DIR, `${p}.min.js`)), 'base64'));
  }
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(json));
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

// The classifier of one thread: the model, and a function from an upload's bytes to its classes.
async function classifier(options) {
  const tf = require(options.tf);
  const model = await tf.loadGraphModel(`file://${options.model}`);
  // [224, 224, 3] floats in [0, 1] from a PNG or JPEG (nsfwjs's preprocessing). tidytensor
  // decodes off the JavaScript thread; other TensorFlow.js flavours only on it.
  const image = async (bytes) => {
    const decoded = tf.serving ? await tf.serving.decodeImage(bytes, 3) : tf.node.decodeImage(bytes, 3);
    try {
      return tf.tidy(() => tf.image.resizeBilinear(decoded, [SIZE, SIZE]).div(255));
    } finally {
      decoded.dispose();
    }
  };
  const batcher = options.batch ? tf.serving.batcher(model, { maxBatchSize: options.maxBatch, maxDelayMs: options.maxDelay }) : null;
  const predict = async (x) => {
    if (batcher) return batcher.predict(x);
    const batch = x.expandDims(0);
    try {
      return options.sync ? model.predict(batch) : await model.predictAsync(batch);
    } finally {
      batch.dispose();
    }
  };
  const classify = async (bytes) => {
    let x;
    try {
      x = await image(bytes);
    } catch (e) {
      throw Object.assign(new Error(`not a PNG or JPEG image: ${e.message}`), { status: 400 });
    }
    let probs;
    try {
      probs = await predict(x);
    } finally {
      x.dispose();
    }
    const values = options.sync ? probs.dataSync() : await probs.data();
    probs.dispose();
    return CLASSES.map((className, i) => ({ className, probability: values[i] })).sort((a, b) => b.probability - a.probability);
  };
  // A first prediction, so that the first request does not pay for the warm-up.
  const black = tf.zeros([8, 8, 3], 'int32');
  const blank = await tf.node.encodePng(black);
  black.dispose();
  await classify(blank);
  return { tf, classify };
}

// A worker thread: classifies the uploads the main thread posts.
async function workerMain() {
  const { tf, classify } = await classifier(workerData);
  parentPort.on('message', async ({ id, bytes, stats }) => {
    if (stats) return parentPort.postMessage({ id, memory: tf.memory() });
    try {
      parentPort.postMessage({ id, result: await classify(Buffer.from(bytes)) });
    } catch (e) {
      parentPort.postMessage({ id, error: e.message, status: e.status || 500 });
    }
  });
  parentPort.postMessage({ ready: true });
}

// N workers behind one function: each upload goes to the worker with the fewest in flight.
async function workerPool(options) {
  const pending = new Map();
  let next = 0;
  const workers = await Promise.all(Array.from({ length: options.workers }, () => new Promise((resolve, reject) => {
    const w = new Worker(__filename, { workerData: options });
    w.inFlight = 0;
    w.on('error', reject);
    w.on('message', (m) => {
      if (m.ready) return resolve(w);
      const p = pending.get(m.id);
      pending.delete(m.id);
      w.inFlight--;
      if (m.error) p.reject(Object.assign(new Error(m.error), { status: m.status }));
      else p.resolve(m.result ?? m.memory);
    });
  })));
  const send = (w, message, transfer) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    w.inFlight++;
    w.postMessage({ id, ...message }, transfer);
  });
  return {
    classify(bytes) {
      const w = workers.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
      const copy = new Uint8Array(bytes); // its own buffer, moved to the worker
      return send(w, { bytes: copy }, [copy.buffer]);
    },
    memory: () => Promise.all(workers.map((w) => send(w, { stats: true }))),
  };
}

function readBody(req, limit = 16 << 20) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > limit) reject(Object.assign(new Error('the upload is larger than 16 MB'), { status: 413 }));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function main() {
  const options = { ...parseArgs(process.argv.slice(2)), model: modelFiles() };
  const local = options.workers > 0 ? null : await classifier(options);
  const pool = options.workers > 0 ? await workerPool(options) : null;
  const classify = local ? local.classify : pool.classify;
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  let served = 0;
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  const stats = async (reset) => {
    const out = {
      served,
      eventLoopLagMs: { p50: ms(lag.percentile(50)), p99: ms(lag.percentile(99)), max: ms(lag.max) },
      rssMB: Math.round(process.memoryUsage().rss / 2 ** 20 * 10) / 10,
      memory: local ? local.tf.memory() : await pool.memory(),
    };
    if (reset) {
      lag.reset();
      served = 0;
    }
    return out;
  };
  const server = http.createServer(async (req, res) => {
    const reply = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const url = new URL(req.url, 'http://localhost');
      if (req.method === 'POST' && url.pathname === '/classify') {
        const predictions = await classify(await readBody(req));
        served++;
        return reply(200, { predictions });
      }
      if (req.method === 'GET' && url.pathname === '/stats') return reply(200, await stats(url.searchParams.has('reset')));
      reply(404, { error: 'POST an image to /classify, or GET /stats' });
    } catch (e) {
      reply(e.status || 500, { error: e.message });
    }
  });
  server.listen(options.port, '127.0.0.1', () => {
    const { port } = server.address();
    const how = options.sync ? 'on the JavaScript thread' : `off the JavaScript thread, ${options.batch ? 'batched' : 'unbatched'}`;
    console.log(`classifying on http://127.0.0.1:${port}/classify (${options.workers || 'no'} workers, ${how})`);
  });
}

if (isMainThread) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  workerMain();
}
