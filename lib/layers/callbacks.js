'use strict';
// Training callbacks as tfjs-layers has them (Callback, CustomCallback, CallbackList, History,
// EarlyStopping, tf.callbacks.earlyStopping), and the progress output of `verbose` that
// tfjs-node prints (a bar per epoch on a terminal, a line per epoch otherwise).
const { nextFrame } = require('../internals/top_level');

class BaseCallback {
  constructor() {
    this.validationData = null;
    this.params = null;
    this.model = null;
  }

  setParams(params) {
    this.params = params;
  }

  setModel(model) {
    this.model = model;
  }

  async onEpochBegin(epoch, logs) {}
  async onEpochEnd(epoch, logs) {}
  async onBatchBegin(batch, logs) {}
  async onBatchEnd(batch, logs) {}
  async onTrainBegin(logs) {}
  async onTrainEnd(logs) {}
}

// tf.Callback: the class user callbacks extend.
class Callback extends BaseCallback {}

// tf.CustomCallback: a callback from an object of hooks ({onEpochEnd: async (epoch, logs) => ...}).
// As tfjs's, it yields to the event loop itself (yieldEvery: 'batch', 'epoch', a number of ms,
// 'auto' = every 125 ms, or 'never'), calling onYield when it does; `nowFunc` and
// `nextFrameFunc` replace the clock and the yield (tfjs's tests inject them).
class CustomCallback extends BaseCallback {
  constructor(args = {}, yieldEvery) {
    super();
    this.hooks = args;
    this.nowFunc = args.nowFunc;
    this.nextFrameFunc = args.nextFrameFunc || nextFrame;
    this.yieldEvery = yieldEvery || 'auto';
    if (this.yieldEvery === 'auto') this.yieldEvery = DEFAULT_YIELD_EVERY_MS;
    if (this.yieldEvery === 'never' && args.onYield != null) {
      throw new Error('yieldEvery is `never` but you provided an `onYield` callback. Either change `yieldEvery` or remove the callback');
    }
    this.currentEpoch = 0;
    if (typeof this.yieldEvery === 'number') this.maybeWait = debounce(this.maybeWait.bind(this), this.yieldEvery, this.nowFunc);
  }

  async maybeWait(epoch, batch, logs) {
    const ps = [];
    if (this.hooks.onYield) ps.push(this.hooks.onYield(epoch, batch, logs));
    ps.push(this.nextFrameFunc());
    await Promise.all(ps);
  }

  async onEpochBegin(epoch, logs) {
    this.currentEpoch = epoch;
    if (this.hooks.onEpochBegin) await this.hooks.onEpochBegin(epoch, logs);
  }

  async onEpochEnd(epoch, logs) {
    const ps = [];
    if (this.hooks.onEpochEnd) ps.push(this.hooks.onEpochEnd(epoch, logs));
    if (this.yieldEvery === 'epoch') ps.push(this.nextFrameFunc());
    await Promise.all(ps);
  }

  async onBatchBegin(batch, logs) {
    if (this.hooks.onBatchBegin) await this.hooks.onBatchBegin(batch, logs);
  }

  async onBatchEnd(batch, logs) {
    const ps = [];
    if (this.hooks.onBatchEnd) ps.push(this.hooks.onBatchEnd(batch, logs));
    if (this.yieldEvery === 'batch') ps.push(this.nextFrameFunc());
    else if (typeof this.yieldEvery === 'number') ps.push(this.maybeWait(this.currentEpoch, batch, logs));
    await Promise.all(ps);
  }

  async onTrainBegin(logs) {
    if (this.hooks.onTrainBegin) await this.hooks.onTrainBegin(logs);
  }

  async onTrainEnd(logs) {
    if (this.hooks.onTrainEnd) await this.hooks.onTrainEnd(logs);
  }
}

const DEFAULT_YIELD_EVERY_MS = 125;

// tfjs's debounce: `f` runs at most once every `waitMs` (the clock from `nowFunc`).
function debounce(f, waitMs, nowFunc) {
  const now = () => (nowFunc != null ? nowFunc() : Date.now());
  let lastTime = now();
  let lastResult;
  return (...args) => {
    const t = now();
    if (t - lastTime < waitMs) return lastResult;
    lastTime = t;
    lastResult = f(...args);
    return lastResult;
  };
}

// Runs every callback's hook in order, awaiting each.
class CallbackList {
  constructor(callbacks = [], queueLength = 10) {
    this.callbacks = callbacks;
    this.queueLength = queueLength;
  }

  append(callback) {
    this.callbacks.push(callback);
  }

  setParams(params) {
    for (const c of this.callbacks) c.setParams(params);
  }

  setModel(model) {
    for (const c of this.callbacks) c.setModel(model);
  }

  async onEpochBegin(epoch, logs = {}) {
    for (const c of this.callbacks) await c.onEpochBegin(epoch, logs);
  }

  async onEpochEnd(epoch, logs = {}) {
    for (const c of this.callbacks) await c.onEpochEnd(epoch, logs);
  }

  async onBatchBegin(batch, logs = {}) {
    for (const c of this.callbacks) await c.onBatchBegin(batch, logs);
  }

  async onBatchEnd(batch, logs = {}) {
    for (const c of this.callbacks) await c.onBatchEnd(batch, logs);
  }

  async onTrainBegin(logs = {}) {
    for (const c of this.callbacks) await c.onTrainBegin(logs);
  }

  async onTrainEnd(logs = {}) {
    for (const c of this.callbacks) await c.onTrainEnd(logs);
  }
}

// tf.History: what fit returns; `history[name]` lists each epoch's value.
class History extends BaseCallback {
  async onTrainBegin() {
    this.epoch = [];
    this.history = {};
  }

  async onEpochEnd(epoch, logs = {}) {
    this.epoch.push(epoch);
    for (const key of Object.keys(logs)) {
      if (this.history[key] == null) this.history[key] = [];
      this.history[key].push(logs[key]);
    }
  }

  // tfjs resolves tensor values here; ours are numbers already.
  async syncData() {}
}

// Stops training when a monitored value stops improving (tfjs's EarlyStopping).
class EarlyStopping extends Callback {
  constructor(args) {
    super();
    if (args == null) args = {};
    if (args.restoreBestWeights) {
      throw new Error('restoreBestWeights = True is not implemented in EarlyStopping yet.');
    }
    this.monitor = args.monitor || 'val_loss';
    this.minDelta = Math.abs(args.minDelta || 0);
    this.patience = args.patience || 0;
    this.verbose = args.verbose || 0;
    this.mode = args.mode || 'auto';
    this.baseline = args.baseline;
    if (['auto', 'min', 'max'].indexOf(this.mode) === -1) {
      console.warn(`EarlyStopping mode '${this.mode}' is invalid. Falling back to mode 'auto'.`);
      this.mode = 'auto';
    }
    const less = (a, b) => a < b;
    const greater = (a, b) => a > b;
    if (this.mode === 'min') this.monitorFunc = less;
    else if (this.mode === 'max') this.monitorFunc = greater;
    else this.monitorFunc = this.monitor.indexOf('acc') !== -1 ? greater : less;
    this.lowerIsBetter = this.monitorFunc === less;
    if (this.lowerIsBetter) this.minDelta *= -1;
  }

  async onTrainBegin() {
    this.wait = 0;
    this.stoppedEpoch = 0;
    if (this.baseline != null) this.best = this.baseline;
    else this.best = this.lowerIsBetter ? Infinity : -Infinity;
  }

  async onEpochEnd(epoch, logs) {
    const current = logs == null ? undefined : logs[this.monitor];
    if (current == null) {
      console.warn(`Metric for EarlyStopping ${this.monitor} is not available. Available metrics are: ${Object.keys(logs || {})}`);
      return;
    }
    if (this.monitorFunc(current - this.minDelta, this.best)) {
      this.best = current;
      this.wait = 0;
    } else {
      this.wait++;
      if (this.wait >= this.patience) {
        this.stoppedEpoch = epoch;
        this.model.stopTraining = true;
      }
    }
  }

  async onTrainEnd() {
    if (this.stoppedEpoch > 0 && this.verbose) console.log(`Epoch ${this.stoppedEpoch}: early stopping.`);
  }
}

const callbacks = { earlyStopping: (args) => new EarlyStopping(args) };

// tfjs-node's succinct number display: two decimals past the leading zeros, exponential
// notation beyond four.
function succinct(x) {
  const places = !Number.isFinite(x) || x === 0 || x > 1 || x < -1 ? 2 : 2 - Math.floor(Math.log10(Math.abs(x)));
  return places > 4 ? x.toExponential(2) : x.toFixed(places);
}

// tfjs-node's `key=value ` list, keys sorted.
function formatLogs(logs) {
  return Object.keys(logs).sort().filter((k) => k !== 'batch' && k !== 'size')
    .map((k) => `${k}=${succinct(logs[k])} `).join('');
}

// verbose 1 on a terminal: `Epoch 1 / 5`, then a bar with the ETA and the running logs,
// redrawn at most every 50 ms; at the epoch's end its time, time per step and logs. verbose 2,
// or no terminal: only the epoch lines.
class ProgbarLogger extends BaseCallback {
  constructor(verbose, stream = process.stdout) {
    super();
    this.verbose = verbose;
    this.stream = stream;
    this.bar = verbose === 1 && !!stream.isTTY;
  }

  async onTrainBegin() {
    this.numEpochs = this.params.epochs;
    // fitDataset gives steps (batches) per epoch instead, or none when the dataset's size is
    // unknown: then only the epoch lines are printed.
    const { samples, steps } = this.params;
    this.batchesPerEpoch = samples != null ? Math.ceil(samples / this.params.batchSize) : steps || 0;
  }

  async onEpochBegin(epoch) {
    this.stream.write(`Epoch ${epoch + 1} / ${this.numEpochs}\n`);
    this.epochStart = Date.now();
    this.lastDraw = 0;
    this.seen = 0;
  }

  async onBatchEnd(batch, logs) {
    this.seen = batch + 1;
    if (!this.bar || !this.batchesPerEpoch) return;
    const now = Date.now();
    if (now - this.lastDraw < 50 && this.seen < this.batchesPerEpoch) return;
    this.lastDraw = now;
    const width = Math.max(10, Math.floor(((this.stream.columns || 80) - 40) / 2));
    const done = Math.min(width, Math.round((width * this.seen) / this.batchesPerEpoch));
    const elapsed = (now - this.epochStart) / 1000;
    const eta = (elapsed / this.seen) * (this.batchesPerEpoch - this.seen);
    const bar = '='.repeat(Math.max(0, done - 1)) + (done > 0 ? '>' : '') + '-'.repeat(width - done);
    let line = `eta=${eta.toFixed(1)} ${bar} ${formatLogs(logs)}`;
    if (this.stream.columns) line = line.slice(0, this.stream.columns - 1);
    this.stream.write(`\r${line}\x1b[K`);
  }

  async onEpochEnd(epoch, logs) {
    const ms = Date.now() - this.epochStart;
    // tfjs-node's "step" is a sample here.
    const usPerStep = (ms * 1000) / Math.max(1, this.params.samples || this.seen);
    if (this.bar) this.stream.write('\r\x1b[K');
    this.stream.write(`${ms.toFixed(0)}ms ${usPerStep.toFixed(0)}us/step - ${formatLogs(logs)}\n`);
  }
}

// tfjs's CallbackConstructorRegistry (tf.registerCallbackConstructor): callbacks that every
// fit makes at or below its verbosity; the progress logger is registered at level 1, as
// tfjs-node registers its own (each is made with the verbosity, which tfjs's ignore).
const registry = {};

function registerCallbackConstructor(verbosityLevel, callbackConstructor) {
  if (!(verbosityLevel >= 0 && Number.isInteger(verbosityLevel))) {
    throw new Error(`Verbosity level is expected to be an integer >= 0, but got ${verbosityLevel}`);
  }
  for (const list of Object.values(registry)) {
    if (list.includes(callbackConstructor)) throw new Error('Duplicate callback constructor.');
  }
  (registry[verbosityLevel] = registry[verbosityLevel] || []).push(callbackConstructor);
}

function createCallbacks(verbosityLevel) {
  const made = [];
  for (const level of Object.keys(registry)) {
    if (verbosityLevel >= Number(level)) made.push(...registry[level].map((Ctor) => new Ctor(verbosityLevel)));
  }
  return made;
}

registerCallbackConstructor(1, ProgbarLogger);

module.exports = {
  BaseCallback, Callback, CustomCallback, CallbackList, History, EarlyStopping, ProgbarLogger, callbacks, succinct,
  registerCallbackConstructor, createCallbacks,
};
