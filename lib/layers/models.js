'use strict';
// tf.sequential, tf.model and the LayersModel API: compile, fit (an async loop of one native
// training step per batch, with callbacks and progress), evaluate, predict, trainOnBatch,
// summary, weights, dispose. The model itself is native (crates/layers); training logic
// stays there, and this file only drives it.
const native = require('../native');
const { Tensor, wrapId, variableOf } = require('../tensor');
const { scalar } = require('../ops/creation');
const { serialization, nextFrame } = require('../internals');
const train = require('../train');
const { Layer, SymbolicTensor, LayerVariable, toList } = require('./layer');
const cb = require('./callbacks');
const modelIO = require('./model_io');

// Loss and metric functions given as functions: tf.metrics.* and tf.losses-like functions
// of tfjs-layers' names resolve by name; others cannot run in the native training step.
function nameOf(fn, what) {
  if (typeof fn === 'string') return fn;
  if (typeof fn === 'function' && fn.name) return fn.name;
  throw new Error(`Unknown ${what} ${fn}`);
}

// tfjs-layers' getOptimizer: the optimizer `compile` makes for a name, with its defaults (the
// layers crate's `optimizer_named` is the same table for Rust programs).
function optimizerNamed(name) {
  const EPS = 1e-7;
  const map = {
    adagrad: () => train.train.adagrad(0.01),
    adadelta: () => train.train.adadelta(1, 0.95, EPS),
    adam: () => train.train.adam(0.001, 0.9, 0.999, EPS),
    adamax: () => train.train.adamax(0.002, 0.9, 0.999, EPS, 0),
    rmsprop: () => train.train.rmsprop(0.001, 0.9, 0, EPS),
    sgd: () => train.train.sgd(0.01),
  };
  const key = { Adagrad: 'adagrad', Adadelta: 'adadelta', Adam: 'adam', Adamax: 'adamax', RMSProp: 'rmsprop', SGD: 'sgd' }[name] || name;
  if (!(key in map)) throw new Error(`Unknown Optimizer ${name}`);
  return map[key]();
}

function checkTensors(x, what) {
  for (const t of toList(x)) {
    if (!(t instanceof Tensor)) throw new Error(`${what} must be a Tensor or an Array of Tensors`);
    if (t.isDisposed) throw new Error('Tensor is disposed.');
  }
}

const rowsOf = (x) => toList(x)[0].shape[0];

// tfjs's checkBatchSize (predict, fit, evaluate).
function checkBatchSize(batchSize) {
  if (!Number.isInteger(batchSize) || batchSize <= 0) {
    throw new Error(`batchSize is required to be a positive integer, but got ${batchSize}`);
  }
}

class LayersModel extends Layer {
  // `{inputs, outputs, name}` for tf.model; Sequential passes its own native model.
  constructor(args = {}, made) {
    const nativeModel = made || LayersModel.functional(args);
    super(null);
    Object.defineProperty(this, 'model', { value: nativeModel });
    this.name = nativeModel.name;
    this.isTraining = false;
    this.stopTraining_ = false;
    this.optimizer_ = null;
    this.isOptimizerOwned = false;
    this.history = null;
    // A functional model knows its layers (in tfjs's order) and symbolic ends; a Sequential
    // model adds its layers one by one.
    this.layers = nativeModel.jsLayers ? nativeModel.jsLayers.slice() : [];
    if (!made) {
      this.inputs = toList(args.inputs);
      this.outputs = toList(args.outputs);
    }
  }

  // The graph of tf.model: every layer call between the inputs and the outputs, in call order.
  static functional({ inputs, outputs, name }) {
    const ins = toList(inputs);
    const outs = toList(outputs);
    for (const s of [...ins, ...outs]) {
      if (!(s instanceof SymbolicTensor)) throw new Error('tf.model() expects SymbolicTensors (from tf.input and layer.apply) as inputs and outputs');
    }
    const order = [];
    const seen = new Set();
    const visit = (node) => {
      if (seen.has(node)) return;
      seen.add(node);
      if (node.layer.getClassName() !== 'InputLayer') for (const i of node.inputs) visit(i.node);
      order.push(node);
    };
    for (const o of outs) visit(o.node);
    const inputNodes = ins.map((s) => s.node);
    for (const n of order) {
      if (n.layer.getClassName() === 'InputLayer' && !inputNodes.includes(n)) {
        throw new Error(`Graph disconnected: cannot obtain value for tensor ${n.layer.name} at layer "${n.layer.name}". The following previous layers were accessed without issue: []`);
      }
    }
    const index = new Map(order.map((n, i) => [n, i]));
    const src = (s) => [index.get(s.node), s.outputTensorIndex || 0];
    const wiring = order.map((n) => (n.layer.getClassName() === 'InputLayer'
      ? [[-1 - inputNodes.indexOf(n), 0]] : n.inputs.map(src)));
    const layers = order.map((n) => n.layer);
    const m = native.NativeModel.functional(name, layers.map((l) => l.native), JSON.stringify(wiring), ins.length,
      JSON.stringify(outs.map(src)));
    const byName = new Map(layers.map((l) => [l.name, l]));
    Object.defineProperty(m, 'jsLayers', { value: m.layerNames().map((n) => byName.get(n)) });
    return m;
  }

  getClassName() {
    return this instanceof Sequential ? 'Sequential' : 'Model';
  }

  get stopTraining() {
    return this.stopTraining_;
  }

  set stopTraining(v) {
    this.stopTraining_ = v;
  }

  get optimizer() {
    return this.optimizer_;
  }

  set optimizer(o) {
    this.optimizer_ = o;
  }

  get inputNames() {
    return JSON.parse(this.model.io()[2]);
  }

  get outputNames() {
    return this.outputs ? this.outputs.map((o) => o.sourceLayer.name) : [this.layers[this.layers.length - 1].name];
  }

  get feedInputShapes() {
    return JSON.parse(this.model.io()[0]);
  }

  get inputShape() {
    const s = JSON.parse(this.model.io()[0]);
    return s.length === 1 ? s[0] : s;
  }

  get outputShape() {
    const s = JSON.parse(this.model.io()[1]);
    return s.length === 1 ? s[0] : s;
  }

  get built() {
    return true;
  }

  get trainable() {
    return true;
  }

  set trainable(v) {}

  get weights() {
    return this.variablesOf(this.model.weightIds()[0]);
  }

  get trainableWeights() {
    return this.variablesOf(this.model.weightIds()[1]);
  }

  get nonTrainableWeights() {
    return this.variablesOf(this.model.weightIds()[2]);
  }

  variablesOf(ids) {
    const names = this.model.originalNames(ids);
    return ids.map((id, i) => new LayerVariable(variableOf(id), names[i]));
  }

  getWeights(trainableOnly = false) {
    return this.model.weightIds()[trainableOnly ? 1 : 0].map(variableOf);
  }

  setWeights(weights) {
    this.model.setWeights(weights.map((w) => w.id));
  }

  countParams() {
    return this.model.countParams();
  }

  getLayer(nameOrIndex, index) {
    if (typeof nameOrIndex === 'number' || (nameOrIndex == null && index != null)) {
      const i = typeof nameOrIndex === 'number' ? nameOrIndex : index;
      if (i < 0 || i >= this.layers.length) {
        throw new Error(`Was asked to retrieve layer at index ${i}, but model only has ${this.layers.length} layer(s).`);
      }
      return this.layers[i];
    }
    if (nameOrIndex == null) throw new Error('Provide either a layer name or layer index');
    const found = this.layers.find((l) => l.name === nameOrIndex);
    if (found == null) throw new Error(`No such layer: ${nameOrIndex}`);
    return found;
  }

  compile(args = {}) {
    if (args.loss == null) args.loss = [];
    const optimizer = typeof args.optimizer === 'string' ? optimizerNamed(args.optimizer) : args.optimizer;
    if (optimizer == null || optimizer.native == null) {
      throw new Error('compile() needs an optimizer: a name (\'adam\', \'sgd\' ...) or a tf.train optimizer');
    }
    const losses = (Array.isArray(args.loss) ? args.loss : typeof args.loss === 'object' && typeof args.loss !== 'function'
      ? this.outputNames.map((n) => args.loss[n]) : [args.loss]).map((l) => nameOf(l, 'loss'));
    let metrics = args.metrics == null ? [] : args.metrics;
    if (!Array.isArray(metrics)) {
      metrics = typeof metrics === 'object' && typeof metrics !== 'function'
        ? [].concat(...Object.values(metrics)) : [metrics];
    }
    metrics = metrics.map((m) => nameOf(m, 'metric'));
    if (this.isOptimizerOwned && this.optimizer_ && this.optimizer_ !== optimizer) this.optimizer_.dispose();
    this.model.compile(optimizer.native, typeof args.optimizer === 'string', losses, metrics);
    this.optimizer_ = optimizer;
    this.isOptimizerOwned = typeof args.optimizer === 'string';
    this.loss = args.loss;
    this.metrics = metrics;
    this.metricsNames = this.model.metricNames();
  }

  checkCompiled() {
    if (this.metricsNames == null) {
      throw new Error(this instanceof Sequential ? 'The model needs to be compiled before being used.'
        : 'You must compile a model before training/testing. Use LayersModel.compile(modelCompileArgs).');
    }
  }

  predict(x, args = {}) {
    checkTensors(x, 'predict()\'s x');
    const batchSize = args.batchSize == null ? 32 : args.batchSize;
    checkBatchSize(batchSize);
    const ids = this.model.predict(toList(x).map((t) => t.id), batchSize);
    const outs = ids.map(wrapId);
    return outs.length === 1 ? outs[0] : outs;
  }

  predictOnBatch(x) {
    checkTensors(x, 'predictOnBatch()\'s x');
    return this.predict(x, { batchSize: Math.max(1, rowsOf(x)) });
  }

  // On tensors, a forward pass (`training` from kwargs); on symbolic tensors, the model as
  // one layer of a larger graph is not supported yet.
  apply(inputs, kwargs = {}) {
    const list = toList(inputs);
    if (list.some((x) => x instanceof SymbolicTensor)) {
      throw new Error('Using a model as a layer of another model is not supported by tidytensor yet');
    }
    checkTensors(list, 'apply()\'s inputs');
    const outs = this.model.apply(list.map((t) => t.id), !!kwargs.training).map(wrapId);
    return outs.length === 1 ? outs[0] : outs;
  }

  evaluate(x, y, args = {}) {
    this.checkCompiled();
    checkTensors(x, 'evaluate()\'s x');
    checkTensors(y, 'evaluate()\'s y');
    const batchSize = args.batchSize == null ? 32 : args.batchSize;
    checkBatchSize(batchSize);
    const values = this.model.evaluate(toList(x).map((t) => t.id), toList(y).map((t) => t.id), batchSize);
    const out = values.map((v) => scalar(v));
    return out.length === 1 ? out[0] : out;
  }

  async trainOnBatch(x, y) {
    this.checkCompiled();
    checkTensors(x, 'trainOnBatch()\'s x');
    checkTensors(y, 'trainOnBatch()\'s y');
    const values = this.model.trainBatch(toList(x).map((t) => t.id), toList(y).map((t) => t.id), 0, rowsOf(x), null, null);
    return values.length === 1 ? values[0] : values;
  }

  async fit(x, y, args = {}) {
    if (this.isTraining) {
      throw new Error('Cannot start training because another fit() call is ongoing.');
    }
    this.isTraining = true;
    const made = [];
    try {
      this.checkCompiled();
      checkTensors(x, 'fit()\'s x');
      checkTensors(y, 'fit()\'s y');
      const batchSize = args.batchSize == null ? 32 : args.batchSize;
      checkBatchSize(batchSize);
      const epochs = args.epochs == null ? 1 : args.epochs;
      const initialEpoch = args.initialEpoch == null ? 0 : args.initialEpoch;
      const verbose = args.verbose == null ? 1 : args.verbose;
      const shuffle = args.shuffle == null ? true : args.shuffle;
      let xs = toList(x);
      let ys = toList(y);
      if (rowsOf(xs) !== rowsOf(ys)) {
        throw new Error(`Input Tensors should have the same number of samples as target Tensors. Found ${rowsOf(xs)} input sample(s) and ${rowsOf(ys)} target sample(s).`);
      }
      let val = null;
      if (args.validationData != null) {
        const [vx, vy] = args.validationData;
        if (args.validationData.length === 3) throw new Error('validationData including sample weights is not supported yet.');
        checkTensors(vx, 'validationData');
        checkTensors(vy, 'validationData');
        val = [toList(vx), toList(vy)];
      } else if (args.validationSplit != null && args.validationSplit > 0 && args.validationSplit < 1) {
        const n = rowsOf(xs);
        const splitAt = Math.floor(n * (1 - args.validationSplit));
        const cut = (list, from, count) => list.map((t) => {
          const s = t.slice([from, ...t.shape.slice(1).map(() => 0)], [count, ...t.shape.slice(1)]);
          made.push(s);
          return s;
        });
        val = [cut(xs, splitAt, n - splitAt), cut(ys, splitAt, n - splitAt)];
        xs = cut(xs, 0, splitAt);
        ys = cut(ys, 0, splitAt);
      }
      const classWeight = args.classWeight == null ? null : (() => {
        const cw = args.classWeight;
        const max = Math.max(...Object.keys(cw).map(Number));
        return Array.from({ length: max + 1 }, (_, i) => (cw[i] == null ? NaN : cw[i]));
      })();
      const n = rowsOf(xs);
      if (classWeight) checkClassWeight(ys[0], classWeight);
      const names = this.metricsNames;
      const callbackMetrics = names.slice();
      if (val) callbackMetrics.push(...names.map((m) => `val_${m}`));
      const history = new cb.History();
      const list = [new cb.BaseCallback(), ...standardizeCallbacks(args.callbacks, args.yieldEvery)];
      if (verbose > 0) list.push(new cb.ProgbarLogger(verbose));
      list.push(history);
      const callbacks = new cb.CallbackList(list);
      callbacks.setParams({
        epochs, initialEpoch, samples: n, steps: null, batchSize, verbose, doValidation: val != null, metrics: callbackMetrics,
      });
      callbacks.setModel(this);
      const yieldEvery = args.yieldEvery == null ? 'auto' : args.yieldEvery;
      let lastYield = Date.now();
      const maybeYield = async (at) => {
        const now = Date.now();
        if (yieldEvery === at || (yieldEvery === 'auto' && at === 'batch' && now - lastYield >= 125)
          || (typeof yieldEvery === 'number' && now - lastYield >= yieldEvery)) {
          await nextFrame();
          lastYield = Date.now();
        }
      };
      await callbacks.onTrainBegin();
      this.stopTraining_ = false;
      if (shuffle === 'batch') throw new Error('batch shuffling is not implemneted yet');
      const xIds = xs.map((t) => t.id);
      const yIds = ys.map((t) => t.id);
      // One order, shuffled in place each epoch (tfjs's util.shuffle on its index array).
      const order = shuffle ? Int32Array.from({ length: n }, (_, i) => i) : null;
      for (let epoch = initialEpoch; epoch < epochs; epoch++) {
        await callbacks.onEpochBegin(epoch);
        if (order) shuffleInPlace(order);
        const sums = new Array(names.length).fill(0);
        let seen = 0;
        let finished = false;
        for (let b = 0, start = 0; start < n; b++, start += batchSize) {
          const end = Math.min(n, start + batchSize);
          // The logs object gets its values after onBatchBegin, as in tfjs.
          const batchLogs = {};
          await callbacks.onBatchBegin(b, batchLogs);
          batchLogs.batch = b;
          batchLogs.size = end - start;
          const outs = this.model.trainBatch(xIds, yIds, start, end, order ? order.subarray(start, end) : null, classWeight);
          names.forEach((name, i) => {
            batchLogs[name] = outs[i];
            sums[i] += outs[i] * (end - start);
          });
          seen += end - start;
          finished = end === n;
          await callbacks.onBatchEnd(b, batchLogs);
          await maybeYield('batch');
          if (this.stopTraining_) break;
        }
        // Validation after the epoch's last batch (not when training stopped before it);
        // its keys come first, as in tfjs's logs.
        const epochLogs = {};
        if (val && finished) {
          const v = this.model.evaluate(val[0].map((t) => t.id), val[1].map((t) => t.id), batchSize);
          names.forEach((name, i) => { epochLogs[`val_${name}`] = v[i]; });
        }
        if (seen > 0) names.forEach((name, i) => { epochLogs[name] = sums[i] / seen; });
        await callbacks.onEpochEnd(epoch, epochLogs);
        await maybeYield('epoch');
        if (this.stopTraining_) break;
      }
      await callbacks.onTrainEnd();
      await history.syncData();
      this.history = history;
      return history;
    } finally {
      for (const t of made) t.dispose();
      this.isTraining = false;
    }
  }

  // Training and evaluation on a tf.data dataset's batches (lib/layers/training_dataset.js).
  async fitDataset(dataset, args) {
    return require('./training_dataset').fitDataset(this, dataset, args);
  }

  async evaluateDataset(dataset, args) {
    return require('./training_dataset').evaluateDataset(this, dataset, args);
  }

  summary(lineLength, positions, printFn = console.log) {
    const rows = JSON.parse(this.model.summaryRows());
    const sequentialLike = this instanceof Sequential;
    const header = ['Layer (type)', 'Input Shape', 'Output shape', 'Param #'];
    if (!sequentialLike) header.push('Receives inputs');
    lineLength = lineLength || (sequentialLike ? 90 : 115);
    positions = positions || (sequentialLike ? [0.32, 0.61, 0.89, 1] : [0.24, 0.48, 0.70, 0.80, 1]);
    if (positions[positions.length - 1] <= 1) positions = positions.map((p) => Math.floor(lineLength * p));
    const printRow = (fields) => {
      let line = '';
      for (let i = 0; i < fields.length; ++i) {
        if (i > 0) line = `${line.slice(0, line.length - 1)} `;
        line += fields[i];
        line = line.slice(0, positions[i]);
        line += ' '.repeat(positions[i] - line.length);
      }
      printFn(line);
    };
    printFn('_'.repeat(lineLength));
    printRow(header);
    printFn('='.repeat(lineLength));
    const layers = this.layers;
    layers.forEach((layer, i) => {
      const [name, shape, params, inbound] = rows.find((r) => r[0].startsWith(`${layer.name} (`));
      let inputShape = 'multiple';
      try {
        inputShape = JSON.stringify(JSON.parse(layer.native.shapes()[0]));
      } catch (e) { /* keeps 'multiple' */ }
      const fields = [name, inputShape, shape, String(params)];
      if (!sequentialLike) fields.push(inbound[0] || '');
      printRow(fields);
      // Each further inbound layer on a line of its own, as tfjs prints them.
      if (!sequentialLike) for (const more of inbound.slice(1)) printRow(['', '', '', '', more]);
      printFn((i === layers.length - 1 ? '=' : '_').repeat(lineLength));
    });
    const count = (ids) => ids.reduce((a, id) => a + variableOf(id).size, 0);
    const [, trainable, nonTrainable] = this.model.weightIds();
    const t = count(trainable);
    const nt = count(nonTrainable);
    printFn(`Total params: ${t + nt}`);
    printFn(`Trainable params: ${t}`);
    printFn(`Non-trainable params: ${nt}`);
    printFn('_'.repeat(lineLength));
  }

  // The Keras topology as tfjs writes it in model.json.
  toJSON(unused, returnString = true) {
    const topology = modelIO.modelTopology(this);
    return returnString ? JSON.stringify(topology) : topology;
  }

  getConfig() {
    return modelIO.convertPythonicToTs(modelIO.modelTopology(this)).config;
  }

  // model.save('file://dir' | 'path' | 'http(s)://...' | IOHandler, {includeOptimizer}).
  save(handlerOrURL, config) {
    return modelIO.saveModel(this, handlerOrURL, config);
  }

  loadWeights(weights, strict = true) {
    modelIO.loadWeights(this, weights, strict);
  }

  setUserDefinedMetadata(userDefinedMetadata) {
    if (userDefinedMetadata == null || typeof userDefinedMetadata !== 'object' || Array.isArray(userDefinedMetadata)) {
      throw new Error(`User-defined metadata is expected to be a JSON object, but is not. Model: ${this.name}`);
    }
    this.userDefinedMetadata = userDefinedMetadata;
  }

  getUserDefinedMetadata() {
    return this.userDefinedMetadata;
  }

  dispose() {
    const [refCountAfterDispose, numDisposedVariables] = this.model.dispose();
    return { refCountAfterDispose, numDisposedVariables };
  }
}
LayersModel.className = 'Model';
serialization.registerClass(LayersModel);

// tfjs's util.shuffle: the same draws of Math.random, so a seeded Math.random gives tfjs's order.
function shuffleInPlace(array) {
  let counter = array.length;
  while (counter > 0) {
    const index = (Math.random() * counter) | 0;
    counter--;
    const t = array[counter];
    array[counter] = array[index];
    array[index] = t;
  }
}

// tfjs checks classWeight against every label before training (the class of a one-hot row is
// its argMax; a single column holds the rounded class).
function checkClassWeight(y, weights) {
  const v = y.dataSync();
  const cols = y.rank === 2 && y.shape[1] > 1 ? y.shape[1] : 1;
  for (let r = 0; r < v.length / cols; r++) {
    let c = Math.round(v[r]);
    if (cols > 1) {
      c = 0;
      for (let k = 1; k < cols; k++) if (v[r * cols + k] > v[r * cols + c]) c = k;
    }
    if (!(c < weights.length) || Number.isNaN(weights[c])) {
      throw new Error(`classWeight must contain all classes in the training data. The class ${c} exists in the data but not in classWeight`);
    }
  }
}

// fit's `callbacks`: a callback, a list, or objects of hooks (CustomCallback).
function standardizeCallbacks(callbacks, yieldEvery) {
  if (callbacks == null) return [];
  const list = Array.isArray(callbacks) ? callbacks : [callbacks];
  return list.map((c) => (c instanceof cb.BaseCallback ? c : new cb.CustomCallback(c, yieldEvery)));
}

class Sequential extends LayersModel {
  constructor(args) {
    if (args == null) args = {};
    const made = native.NativeModel.sequential(args.name, []);
    super({}, made);
    for (const l of args.layers || []) this.add(l);
  }

  add(layer) {
    if (layer instanceof LayersModel) throw new Error('Adding a model to a Sequential model is not supported by tidytensor yet');
    if (!(layer instanceof Layer)) throw new Error(`The added layer must be an instance of class Layer. Found: ${layer}`);
    this.model.add(layer.native);
    if (layer.getClassName() !== 'InputLayer' || this.layers.length > 0) this.layers.push(layer);
    else this.inputLayer = layer; // an explicit first InputLayer: saved with the model, as tfjs does
  }

  pop() {
    this.model.pop();
    this.layers.pop();
  }

  // The model's input and output as symbolic tensors (tfjs's `model.inputs`/`outputs`).
  get inputs() {
    const [shapes, , names] = this.model.io().map((j) => JSON.parse(j));
    return shapes.map((s, i) => new SymbolicTensor('float32', s, null, [], {}, names[i], 0));
  }

  get outputs() {
    const shapes = JSON.parse(this.model.io()[1]);
    const last = this.layers[this.layers.length - 1] || null;
    return shapes.map((s, i) => new SymbolicTensor('float32', s, last, [], {}, last ? last.name : '', i));
  }
}
Sequential.className = 'Sequential';
serialization.registerClass(Sequential);

function sequential(config) {
  return new Sequential(config);
}

function model(args) {
  return new LayersModel(args);
}

module.exports = { LayersModel, Sequential, sequential, model, standardizeCallbacks, checkClassWeight };
