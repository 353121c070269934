'use strict';
// Serving (tidytensor's extension, README "Serving"): predictions on tidytensor's serving
// thread (src/serve.rs) reach JavaScript here, tf.serving.batcher gathers concurrent requests
// for one example each into batches, and tf.serving.decodeImage decodes an upload off the
// JavaScript thread (lib/images.js).
const { AsyncResource } = require('node:async_hooks');
const native = require('./native');
const { Tensor, wrapId } = require('./tensor');
const { stack, unstack, clone } = require('./ops/layout');
const eng = require('./engine');

// The outputs of a prediction on the serving thread (a Promise of their ids), as tensors made
// in the caller's async context (tidyAsync tracks them). An abort rejects at once; outputs that
// come after it are disposed.
function offThread(pending, signal) {
  if (signal == null) return pending.then((ids) => ids.map(wrapId));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then((ids) => {
      signal.removeEventListener('abort', onAbort);
      const out = ids.map(wrapId);
      if (!signal.aborted) return resolve(out);
      for (const t of out) t.dispose();
    }, (e) => {
      signal.removeEventListener('abort', onAbort);
      reject(e);
    });
  });
}

// tf.serving.memory(): what the serving thread holds once the work queued before has run:
// {numTensors, numBytes} of its engine (the replicas' weights are buffers shared with the
// models' threads: they are counted there too) and how many models have a replica there.
async function memory() {
  const [numTensors, numBytes, replicas] = await native.servingMemory();
  return { numTensors, numBytes, replicas };
}

const outputsOf = (out) => {
  if (out instanceof Tensor) return { kind: 'tensor', names: [null], list: [out] };
  if (Array.isArray(out)) return { kind: 'array', names: out.map(() => null), list: out };
  const names = Object.keys(out);
  return { kind: 'map', names, list: names.map((n) => out[n]) };
};

const shapeText = (s) => `[${s.join(',')}]`;

// One request's outputs: `own` of row `row` of each batched output, shaped as the model's output.
function rowOf(outs, rows, row, own) {
  if (outs.kind === 'tensor') return own(rows[0][row]);
  if (outs.kind === 'array') return rows.map((r) => own(r[row]));
  const map = {};
  outs.names.forEach((n, i) => { map[n] = own(rows[i][row]); });
  return map;
}

// tf.serving.batcher(model, options): concurrent callers each ask for one example's prediction
// (`batcher.predict(x)`, x without the batch dimension, or a list for a model of several
// inputs) and get a Promise of its outputs (without the batch dimension, as the model's
// outputs are: a tensor, a list or a name -> tensor map). Requests are stacked into one batch
// of up to `maxBatchSize`, waiting at most `maxDelayMs` after the first; one batch runs at a
// time, with model.predictAsync (off this thread), and the requests that came meanwhile make
// the next. At most `maxQueue` requests wait: more are refused. `{signal}` cancels a request.
class Batcher {
  constructor(model, options = {}) {
    if (model == null || typeof model.predictAsync !== 'function') {
      throw new Error('tf.serving.batcher(model) takes a LayersModel or a GraphModel (a model with predictAsync)');
    }
    const { maxBatchSize = 32, maxDelayMs = 2, maxQueue = 1024 } = options;
    const positive = (v, name) => {
      if (!(Number.isInteger(v) && v >= 1)) throw new Error(`tf.serving.batcher: ${name} must be a positive integer, but got ${v}`);
    };
    positive(maxBatchSize, 'maxBatchSize');
    positive(maxQueue, 'maxQueue');
    if (!(typeof maxDelayMs === 'number' && maxDelayMs >= 0)) {
      throw new Error(`tf.serving.batcher: maxDelayMs must be a number >= 0, but got ${maxDelayMs}`);
    }
    Object.assign(this, { model, maxBatchSize, maxDelayMs, maxQueue });
    this.queue = [];
    this.running = false;
    this.timer = null;
    this.closed = false;
  }

  // Requests waiting (not yet in a running batch).
  get pending() {
    return this.queue.length;
  }

  predict(x, options = {}) {
    const signal = options.signal;
    if (this.closed) return Promise.reject(new Error('tf.serving.batcher: the batcher is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const list = Array.isArray(x) ? x : [x];
    if (list.length === 0 || !list.every((t) => t instanceof Tensor)) {
      return Promise.reject(new Error('tf.serving.batcher: predict(x) takes a tf.Tensor (one example) or a list of them'));
    }
    const first = this.queue[0] || this.inFlight;
    if (first != null) {
      const mismatch = list.length !== first.inputs.length ||
        list.some((t, i) => t.dtype !== first.inputs[i].dtype || shapeText(t.shape) !== shapeText(first.inputs[i].shape));
      if (mismatch) {
        return Promise.reject(new Error('tf.serving.batcher: every example must have the same shapes and dtypes; got ' +
          `${list.map((t) => shapeText(t.shape)).join(', ')} after ${first.inputs.map((t) => shapeText(t.shape)).join(', ')}`));
      }
    }
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(new Error(`tf.serving.batcher: the queue is full (${this.maxQueue} requests waiting); try again later`));
    }
    return new Promise((resolve, reject) => {
      // Held (a clone shares the values) until stacked: the caller may dispose x meanwhile.
      const request = { inputs: list.map((t) => eng.keep(clone(t))), resolve, reject, signal, done: false };
      // The caller's async context: its outputs are made there (see runBatch).
      request.context = new AsyncResource('tidytensor.batcher');
      if (signal != null) {
        request.onAbort = () => this.cancel(request);
        signal.addEventListener('abort', request.onAbort, { once: true });
      }
      this.queue.push(request);
      this.schedule();
    });
  }

  // Stops taking requests; those waiting are refused (a running batch finishes).
  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = null;
    for (const r of this.queue.splice(0)) this.settle(r, new Error('tf.serving.batcher: the batcher was closed'));
  }

  cancel(request) {
    const at = this.queue.indexOf(request);
    if (at >= 0) this.queue.splice(at, 1);
    this.settle(request, request.signal.reason);
  }

  // Ends a request with `error` or with `outputs`; a request already ended disposes them.
  settle(request, error, outputs) {
    if (request.done) {
      if (outputs != null) eng.dispose(outputs);
      return;
    }
    request.done = true;
    if (request.onAbort) request.signal.removeEventListener('abort', request.onAbort);
    eng.dispose(request.inputs);
    if (error != null) request.reject(error);
    else request.resolve(outputs);
  }

  schedule() {
    if (this.running || this.queue.length === 0) return;
    if (this.queue.length >= this.maxBatchSize || this.maxDelayMs === 0) {
      clearTimeout(this.timer);
      this.timer = null;
      this.runBatch();
    } else if (this.timer == null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.runBatch();
      }, this.maxDelayMs);
    }
  }

  async runBatch() {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    const batch = this.queue.splice(0, this.maxBatchSize);
    this.inFlight = batch[0];
    let pending;
    try {
      const stacked = batch[0].inputs.map((_, i) => stack(batch.map((r) => r.inputs[i])));
      try {
        pending = this.model.predictAsync(stacked.length === 1 ? stacked[0] : stacked, { batchSize: batch.length });
      } finally {
        eng.dispose(stacked); // held natively until the prediction ends
      }
      const outs = outputsOf(await pending);
      try {
        const rows = outs.list.map((t) => {
          if (t.rank === 0 || t.shape[0] !== batch.length) {
            throw new Error(`tf.serving.batcher: the model gave an output of shape ${shapeText(t.shape)} for a batch of ${batch.length}`);
          }
          return unstack(t);
        });
        try {
          // Each caller's own handles (clones share the values), made in its async context,
          // so that a tf.tidyAsync around batcher.predict tracks them, as around predictAsync.
          batch.forEach((r, row) => {
            if (!r.done) this.settle(r, null, r.context.runInAsyncScope(() => rowOf(outs, rows, row, clone)));
          });
        } finally {
          eng.dispose(rows.flat());
        }
      } finally {
        eng.dispose(outs.list);
      }
    } catch (e) {
      for (const r of batch) this.settle(r, e);
    } finally {
      this.running = false;
      this.inFlight = null;
      this.schedule();
    }
  }
}

const serving = {
  batcher: (model, options) => new Batcher(model, options),
  decodeImage: require('./images').decodeImageAsync,
  memory,
};

module.exports = { serving, offThread };
