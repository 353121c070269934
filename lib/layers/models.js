'use strict';
// tf.sequential, tf.model and the LayersModel API: compile, fit (an async loop of one native
// training step per batch, with callbacks and progress), evaluate, predict, trainOnBatch,
// summary, weights, dispose. The model itself is native (crates/layers); training logic
// stays there, and this file only drives it.
const native = require('../native');
const { Tensor, wrapId, variableOf } = require('../tensor');
const { tidy } = require('../engine');
const { offThread } = require('../serving');
const { scalar } = require('../ops/creation');
const { serialization } = require('../internals/serialization');
const { nextFrame } = require('../internals/top_level');
const train = require('../train');
const { Layer, NativeBackedLayer, SymbolicTensor, LayerVariable, MODEL, toList, singletonOrArray, symbolicOutputs, input } = require('./layer');
const { metrics: metricsNamespace } = require('../ops/metrics');
const { tensor1d } = require('../ops/creation');
const C = require('./container');
const cb = require('./callbacks');
const modelIO = require('./model_io');
const { standardizeCallbacks, checkClassWeight, classWeightsOf } = require('./training_utils');
const trainingDataset = require('./training_dataset');

// A loss or metric as compile takes it: a name, or a function; tf.metrics' own functions are
// their names (they run natively), other functions run in JavaScript.
function lossOrMetric(fn, what) {
  if (typeof fn === 'string') return fn;
  if (typeof fn === 'function') return fn.name && metricsNamespace[fn.name] === fn ? fn.name : fn;
  throw new Error(`Unknown ${what} ${fn}`);
}

// tfjs-layers' getOptimizer: the optimizer `compile` makes for a name, with its defaults (the
// layers crate's table, which its Rust models use too).
function optimizerNamed(name) {
  const { factory, args } = native.optimizerDefaults(String(name));
  return train.train[factory](...args);
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
  // A model of built-in layers is native (`this.model`, crates/layers); one that holds a
  // layer defined in JavaScript or another model is a graph run from JavaScript
  // (`this.graph`, container.js).
  constructor(args = {}, made) {
    let nativeModel = made;
    let graph = null;
    if (!made) {
      const ins = toList(args.inputs);
      const outs = toList(args.outputs);
      for (const s of [...ins, ...outs]) {
        if (!(s instanceof SymbolicTensor)) throw new Error('tf.model() expects SymbolicTensors (from tf.input and layer.apply) as inputs and outputs');
      }
      graph = new C.Graph(ins, outs);
      if (graph.layers.every((l) => l instanceof NativeBackedLayer)) {
        nativeModel = LayersModel.functional(args);
        graph = null;
      }
    }
    super(MODEL);
    Object.defineProperty(this, 'model', { value: nativeModel || null, writable: true });
    this.graph = graph;
    this.name = nativeModel ? nativeModel.name : args.name != null ? args.name : native.layerUid('model');
    this.trainable_ = true;
    this.disposed = false;
    this._refCount = 1;
    this.isTraining = false;
    this.optimizer_ = null;
    this.isOptimizerOwned = false;
    this.history = null;
    // A functional model knows its layers (in tfjs's order) and symbolic ends; a Sequential
    // model adds its layers one by one.
    this.layers = graph ? graph.layers.slice() : nativeModel.jsLayers ? nativeModel.jsLayers.slice() : [];
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
    return this.graph ? this.inputs.map((s) => s.sourceLayer.name) : JSON.parse(this.model.io()[2]);
  }

  get outputNames() {
    return this.outputs ? this.outputs.map((o) => o.sourceLayer.name) : [this.layers[this.layers.length - 1].name];
  }

  get feedInputShapes() {
    return this.graph ? this.inputs.map((s) => s.shape) : JSON.parse(this.model.io()[0]);
  }

  get inputShape() {
    return singletonOrArray(this.feedInputShapes);
  }

  get outputShape() {
    return singletonOrArray(this.graph ? this.outputs.map((s) => s.shape) : JSON.parse(this.model.io()[1]));
  }

  get built() {
    return true;
  }

  set built(v) {}

  // `trainable = false` freezes every weight of the model in fit (its layers keep their own
  // flags, as in tfjs).
  get trainable() {
    return this.trainable_;
  }

  // (As tfjs's Container: the trainable bit of each layer's trainable weights follows.)
  set trainable(v) {
    this.trainable_ = !!v;
    for (const layer of this.layers) {
      if (layer.native != null) layer.native.setWeightsTrainable(!!v);
      else if (Array.isArray(layer._trainableWeights)) layer._trainableWeights.forEach((w) => { w.trainable = !!v; });
    }
  }

  get weights() {
    return this.trainableWeights.concat(this.nonTrainableWeights);
  }

  get trainableWeights() {
    if (!this.trainable_) return [];
    if (this.graph) return uniqueWeights(this.layers.flatMap((l) => l.trainableWeights));
    return this.variablesOf(this.model.weightIds()[1]);
  }

  get nonTrainableWeights() {
    if (this.graph) {
      const trainable = new Set(this.trainableWeights.map((w) => w.id));
      return uniqueWeights(this.layers.flatMap((l) => l.weights)).filter((w) => !trainable.has(w.id));
    }
    return this.variablesOf(this.model.weightIds()[this.trainable_ ? 2 : 0]);
  }

  get losses() {
    return this.layers.flatMap((l) => l.losses || []);
  }

  calculateLosses() {
    return this.layers.flatMap((l) => (l.native == null && l.calculateLosses ? l.calculateLosses() : []));
  }

  variablesOf(ids) {
    const names = this.model.originalNames(ids);
    return ids.map((id, i) => LayerVariable.of(variableOf(id), names[i]));
  }

  getWeights(trainableOnly = false) {
    if (this.graph || !this.trainable_) return (trainableOnly ? this.trainableWeights : this.weights).map((w) => w.read());
    return this.model.weightIds()[trainableOnly ? 1 : 0].map(variableOf);
  }

  setWeights(weights) {
    if (this.graph) Layer.prototype.setWeights.call(this, weights);
    else this.model.setWeights(weights.map((w) => w.id));
  }

  // tfjs's Container: stateful when a layer is; resetStates resets each stateful layer.
  get stateful() {
    return this.layers.some((l) => l.stateful);
  }

  resetStates() {
    for (const l of this.layers) if (l.stateful) l.resetStates();
  }

  countParams() {
    return this.graph ? this.layers.reduce((n, l) => n + l.countParams(), 0) : this.model.countParams();
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
    const outputNames = this.outputNames;
    if (Array.isArray(args.loss) && args.loss.length > 0 && args.loss.length !== outputNames.length) {
      throw new Error(`When passing an Array as loss, it should have one entry per model output. The model has ${outputNames.length} output(s), but you passed loss=${args.loss}.`);
    }
    const byOutput = !Array.isArray(args.loss) && typeof args.loss === 'object' && typeof args.loss !== 'function';
    if (byOutput) {
      for (const name of Object.keys(args.loss)) {
        if (outputNames.indexOf(name) === -1) {
          throw new Error(`Unknown entry in loss dictionary: "${name}". Only expected the following keys: ${outputNames}`);
        }
      }
    }
    const losses = (Array.isArray(args.loss) ? args.loss : byOutput ? outputNames.map((n) => args.loss[n]) : [args.loss])
      .map((l) => lossOrMetric(l, 'loss'));
    let metrics = args.metrics == null ? [] : args.metrics;
    if (!Array.isArray(metrics)) {
      metrics = typeof metrics === 'object' && typeof metrics !== 'function'
        ? [].concat(...Object.values(metrics)) : [metrics];
    }
    metrics = metrics.map((m) => lossOrMetric(m, 'metric'));
    // Names alone train natively; a JavaScript function or a graph run from JavaScript trains
    // through the JavaScript step (container.js).
    const byName = losses.every((l) => typeof l === 'string') && metrics.every((m) => typeof m === 'string');
    const jsCompiled = byName && this.graph == null ? null : C.compileJS(this, losses, metrics);
    if (this.isOptimizerOwned && this.optimizer_ && this.optimizer_ !== optimizer) this.optimizer_.dispose();
    if (jsCompiled == null) this.model.compile(optimizer.native, typeof args.optimizer === 'string', losses, metrics);
    this.jsCompiled = jsCompiled;
    this.compiledLosses = losses;
    this.fallbackCompiled = null;
    this.optimizer_ = optimizer;
    this.isOptimizerOwned = typeof args.optimizer === 'string';
    this.loss = args.loss;
    this.metrics = metrics;
    this.metricsNames = jsCompiled ? jsCompiled.names : this.model.metricNames();
  }

  // Whether a training step is one native call: a native model compiled with names, not
  // frozen as a whole.
  get trainsNatively() {
    return this.model != null && this.jsCompiled == null && this.trainable_ && this.jsGraph == null;
  }

  // The graph run from JavaScript: a model holding a JavaScript layer or a model, or a native
  // one while one of its layers has a call hook (tfjs's setCallHook; native calls have none).
  get jsGraph() {
    if (this.graph) return this.graph;
    return this.layers.some((l) => l._callHook != null) ? new C.Graph(this.inputs, this.outputs) : null;
  }

  // compile's losses and metrics for the JavaScript step (made once, for a native model that
  // trains in JavaScript for a while: frozen, or with a call hook).
  get stepCompiled() {
    if (this.jsCompiled) return this.jsCompiled;
    if (this.fallbackCompiled == null) this.fallbackCompiled = C.compileJS(this, this.compiledLosses, this.metrics);
    return this.fallbackCompiled;
  }

  // The outputs for inputs `xs` (a list; temporaries stay in the caller's scope);
  // `untapeFrozen`: see Graph.run.
  forward(xs, training, untapeFrozen = false) {
    if (this.disposed) throw new Error(`Container '${this.name}' is already disposed.`);
    const graph = this.jsGraph;
    if (graph) {
      if (xs.length !== this.inputs.length) {
        throw new Error(`Error when checking model : the Array of Tensors that you are passing to your model is not the size the the model expected. Expected to see ${this.inputs.length} Tensor(s), but instead got ${xs.length} Tensors(s).`);
      }
      return graph.run(xs, training, untapeFrozen);
    }
    return this.model.apply(xs.map((t) => t.id), !!training).map(wrapId);
  }

  // One training step on rows start..end (or `indices`) of `xs`/`ys`: the loss and metrics.
  // `classWeight`: per output, weights by class (or null), as classWeightsOf gives them.
  trainBatch(xs, ys, start, end, indices, classWeight) {
    if (this.trainsNatively && (classWeight == null || classWeight.slice(1).every((w) => w == null))) {
      return this.model.trainBatch(xs.map((t) => t.id), ys.map((t) => t.id), start, end, indices,
        classWeight == null ? null : classWeight[0]);
    }
    this.checkCompiled();
    const c = this.stepCompiled;
    const batch = (list) => (indices == null ? list.map((t) => C.sliceRows(t, start, end)) : (() => {
      const idx = tensor1d(indices, 'int32');
      const out = list.map((t) => t.gather(idx));
      idx.dispose();
      return out;
    })());
    const bx = batch(xs);
    const by = batch(ys);
    const weights = classWeight == null ? null : classWeight.map((cw, i) => (cw == null ? null : classWeights(by[i], cw)));
    try {
      return C.trainStep(this, c, bx, by, weights);
    } finally {
      for (const t of [...bx, ...by, ...(weights || [])]) if (t != null && !xs.includes(t) && !ys.includes(t)) t.dispose();
    }
  }

  evaluateLists(xs, ys, batchSize) {
    if (this.jsCompiled == null && this.model != null && this.jsGraph == null) {
      return this.model.evaluate(xs.map((t) => t.id), ys.map((t) => t.id), batchSize);
    }
    this.checkCompiled();
    if (xs.length !== this.inputs.length || ys.length !== this.outputs.length) {
      throw new Error(`Error when checking model: expected ${this.inputs.length} input(s) and ${this.outputs.length} target(s), but got ${xs.length} and ${ys.length}`);
    }
    if (rowsOf(xs) !== rowsOf(ys)) {
      throw new Error(`Input Tensors should have the same number of samples as target Tensors. Found ${rowsOf(xs)} input sample(s) and ${rowsOf(ys)} target sample(s).`);
    }
    return C.evaluateJS(this, this.stepCompiled, xs, ys, batchSize);
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
    const made = [];
    try {
      const xs = rank2OrHigher(toList(x), made);
      const outs = this.jsGraph ? C.predictJS(this, xs, batchSize)
        : this.model.predict(xs.map((t) => t.id), batchSize).map(wrapId);
      return outs.length === 1 ? outs[0] : outs;
    } finally {
      for (const t of made) t.dispose();
    }
  }

  // tidytensor's extension: predict() on tidytensor's serving thread (src/serve.rs), this thread
  // free meanwhile; a Promise of the outputs. `{signal}`, an AbortSignal, rejects it. A model
  // holding JavaScript layers (custom layers) can only predict on this thread, and does.
  async predictAsync(x, args = {}) {
    checkTensors(x, 'predictAsync()\'s x');
    const batchSize = args.batchSize == null ? 32 : args.batchSize;
    checkBatchSize(batchSize);
    args.signal?.throwIfAborted();
    const made = [];
    let pending;
    try {
      const xs = rank2OrHigher(toList(x), made);
      if (this.jsGraph) {
        const outs = C.predictJS(this, xs, batchSize);
        return outs.length === 1 ? outs[0] : outs;
      }
      pending = this.model.predictAsync(xs.map((t) => t.id), batchSize);
    } finally {
      for (const t of made) t.dispose(); // held natively until the prediction ends
    }
    const outs = await offThread(pending, args.signal);
    return outs.length === 1 ? outs[0] : outs;
  }

  predictOnBatch(x) {
    checkTensors(x, 'predictOnBatch()\'s x');
    return this.predict(x, { batchSize: Math.max(1, rowsOf(x)) });
  }

  // On tensors, a forward pass (`training` from kwargs); on symbolic tensors, the model as
  // one layer of a larger model (a node of it, run by the larger model's graph).
  apply(inputs, kwargs = {}) {
    const list = toList(inputs);
    if (list.some((x) => x instanceof SymbolicTensor)) {
      if (!list.every((x) => x instanceof SymbolicTensor)) throw new Error('Arguments to apply() must be all SymbolicTensors or all Tensors');
      const made = symbolicOutputs(this, list, kwargs, this.outputs.map((o) => o.shape), list[0].dtype);
      this._refCount++;
      return singletonOrArray(made);
    }
    checkTensors(list, 'apply()\'s inputs');
    return singletonOrArray(tidyOutputs(() => this.forward(list, !!(kwargs && kwargs.training))));
  }

  call(inputs, kwargs) {
    return this.apply(inputs, kwargs);
  }

  get input() {
    return singletonOrArray(this.inputs);
  }

  get output() {
    return singletonOrArray(this.outputs);
  }

  // tfjs's model.execute: the values of the named symbolic tensors of the model's graph (any
  // layer's output) for these inputs (a list, or a map by input name).
  execute(inputs, outputs) {
    if (Array.isArray(outputs) && outputs.length === 0) throw new Error('`outputs` is an empty Array, which is not allowed.');
    const names = Array.isArray(outputs) ? outputs : [outputs];
    const found = names.map(() => null);
    for (const layer of [this.inputLayer, ...this.layers].filter((l) => l != null)) {
      for (const node of layer.inboundNodes) {
        for (const t of node.outputs) {
          names.forEach((n, i) => { if (found[i] == null && t.name === n) found[i] = t; });
        }
      }
    }
    for (const t of this.inputs) names.forEach((n, i) => { if (found[i] == null && t.name === n) found[i] = t; });
    if (found.some((t) => t == null)) {
      throw new Error(`Cannot find SymbolicTensors for output name(s): ${JSON.stringify(names.filter((n, i) => found[i] == null))}`);
    }
    let feeds;
    if (inputs instanceof Tensor) inputs = [inputs];
    if (Array.isArray(inputs)) {
      if (inputs.length !== this.inputs.length) {
        throw new Error(`The number of inputs provided (${inputs.length}) does not match the number of inputs of this model (${this.inputs.length}).`);
      }
      feeds = inputs;
    } else {
      feeds = this.inputs.map((s) => {
        const v = inputs[s.name];
        if (v == null) throw new Error(`No value is provided for the model's input ${s.name}`);
        return v;
      });
    }
    checkTensors(feeds, 'execute()\'s inputs');
    const outs = tidy(() => new C.Graph(this.inputs, found).run(feeds, false));
    return Array.isArray(outputs) ? outs : outs[0];
  }

  evaluate(x, y, args = {}) {
    // tfjs checks the batch size first.
    const batchSize = args.batchSize == null ? 32 : args.batchSize;
    checkBatchSize(batchSize);
    this.checkCompiled();
    checkTensors(x, 'evaluate()\'s x');
    checkTensors(y, 'evaluate()\'s y');
    const made = [];
    let values;
    try {
      values = this.evaluateLists(rank2OrHigher(toList(x), made), rank2OrHigher(toList(y), made), batchSize);
    } finally {
      for (const t of made) t.dispose();
    }
    const out = values.map((v) => scalar(v));
    return out.length === 1 ? out[0] : out;
  }

  async trainOnBatch(x, y) {
    this.checkCompiled();
    checkTensors(x, 'trainOnBatch()\'s x');
    checkTensors(y, 'trainOnBatch()\'s y');
    const values = this.trainBatch(toList(x), toList(y), 0, rowsOf(x), null, null);
    return values.length === 1 ? values[0] : values;
  }

  async fit(x, y, args = {}) {
    if (this.isTraining) {
      throw new Error('Cannot start training because another fit() call is ongoing.');
    }
    this.isTraining = true;
    const made = [];
    try {
      const batchSize = args.batchSize == null ? 32 : args.batchSize;
      checkBatchSize(batchSize);
      this.checkCompiled();
      checkTensors(x, 'fit()\'s x');
      checkTensors(y, 'fit()\'s y');
      const epochs = args.epochs == null ? 1 : args.epochs;
      const initialEpoch = args.initialEpoch == null ? 0 : args.initialEpoch;
      const verbose = args.verbose == null ? 1 : args.verbose;
      const shuffle = args.shuffle == null ? true : args.shuffle;
      let xs = rank2OrHigher(toList(x), made);
      let ys = rank2OrHigher(toList(y), made);
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
      const classWeight = classWeightsOf(args.classWeight, this.outputNames);
      const n = rowsOf(xs);
      if (classWeight) classWeight.forEach((cw, i) => cw && checkClassWeight(ys[i], cw));
      const names = this.metricsNames;
      const callbackMetrics = names.slice();
      if (val) callbackMetrics.push(...names.map((m) => `val_${m}`));
      const history = new cb.History();
      const list = [new cb.BaseCallback(), ...standardizeCallbacks(args.callbacks, args.yieldEvery)];
      list.push(...cb.createCallbacks(verbose));
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
          const outs = this.trainBatch(xs, ys, start, end, order ? order.subarray(start, end) : null, classWeight);
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
          const v = this.evaluateLists(val[0], val[1], batchSize);
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
    return trainingDataset.fitDataset(this, dataset, args);
  }

  async evaluateDataset(dataset, args) {
    return trainingDataset.evaluateDataset(this, dataset, args);
  }

  // summary()'s rows, by layer name: `[name (class), input shape, output shape, params,
  // inbound]`.
  summaryRows() {
    const text = (shapes) => JSON.stringify(singletonOrArray(shapes)).replace(/,/g, ',');
    if (this.graph) {
      const nodes = this.graph.nodes.filter((n) => !(this instanceof Sequential && n.layer.getClassName() === 'InputLayer'));
      return nodes.map((n) => [`${n.layer.name} (${n.layer.getClassName()})`, text(n.inputs.map((s) => s.shape)),
        text(n.outputs.map((s) => s.shape)), n.layer.countParams(),
        n.layer.getClassName() === 'InputLayer' ? [] : n.inputs.map((s) => `${s.node.layer.name}[${Math.max(0, s.node.layer.inboundNodes.indexOf(s.node))}][${s.tensorIndex || 0}]`)]);
    }
    return JSON.parse(this.model.summaryRows()).map(([name, shape, params, inbound]) => {
      const layer = this.layers.find((l) => name.startsWith(`${l.name} (`));
      let inputShape = 'multiple';
      try {
        inputShape = JSON.stringify(JSON.parse(layer.native.shapes()[0]));
      } catch (e) { /* keeps 'multiple' */ }
      return [name, inputShape, shape, params, inbound];
    });
  }

  summary(lineLength, positions, printFn = console.log) {
    const rows = this.summaryRows();
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
      const [name, inputShape, shape, params, inbound] = rows.find((r) => r[0].startsWith(`${layer.name} (`));
      const fields = [name, inputShape, shape, String(params)];
      if (!sequentialLike) fields.push(inbound[0] || '');
      printRow(fields);
      // Each further inbound layer on a line of its own, as tfjs prints them.
      if (!sequentialLike) for (const more of inbound.slice(1)) printRow(['', '', '', '', more]);
      printFn((i === layers.length - 1 ? '=' : '_').repeat(lineLength));
    });
    const count = (ws) => ws.reduce((a, w) => a + w.shape.reduce((x, y) => x * y, 1), 0);
    const t = count(this.trainableWeights);
    const nt = count(this.nonTrainableWeights);
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

  // tfjs's checkUserDefinedMetadata: a plain JSON object (no tensors, class instances ...);
  // a warning past 1 MB serialized.
  setUserDefinedMetadata(userDefinedMetadata) {
    if (userDefinedMetadata == null || typeof userDefinedMetadata !== 'object'
      || Object.getPrototypeOf(userDefinedMetadata) !== Object.prototype || !isPlainJSON(userDefinedMetadata)) {
      throw new Error(`User-defined metadata is expected to be a JSON object, but is not. Model: ${this.name}`);
    }
    const length = JSON.stringify(userDefinedMetadata).length;
    if (length > 1048576) {
      console.warn(`User-defined metadata of model "${this.name}" is too large in size (length=${length} when serialized). ` +
        'It is not recommended to store such large objects in user-defined metadata. Please make sure its serialized ' +
        'length is <= 1048576.');
    }
    this.userDefinedMetadata = userDefinedMetadata;
  }

  getUserDefinedMetadata() {
    return this.userDefinedMetadata;
  }

  // tfjs's Container.dispose: a model used as a layer of others is counted once per use (and
  // once for itself); its weights go when the count reaches 0.
  dispose() {
    if (this.disposed) throw new Error(`Container '${this.name}' is already disposed.`);
    if (--this._refCount > 0) return { refCountAfterDispose: this._refCount, numDisposedVariables: 0 };
    this.disposed = true;
    if (this.graph == null) {
      const [refCountAfterDispose, numDisposedVariables] = this.model.dispose();
      return { refCountAfterDispose, numDisposedVariables };
    }
    let numDisposedVariables = 0;
    for (const layer of this.layers) {
      if (layer.built && (layer.native != null || layer instanceof LayersModel || layer._refCount != null)) {
        numDisposedVariables += layer.dispose().numDisposedVariables;
      }
    }
    // An optimizer compile made goes too, its tensors counted (as tfjs's LayersModel.dispose).
    if (this.isOptimizerOwned && this.optimizer_) {
      const before = native.memory().numTensors;
      this.optimizer_.dispose();
      numDisposedVariables += before - native.memory().numTensors;
    }
    return { refCountAfterDispose: 0, numDisposedVariables };
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

class Sequential extends LayersModel {
  constructor(args) {
    if (args == null) args = {};
    const made = native.NativeModel.sequential(args.name, []);
    super({}, made);
    for (const l of args.layers || []) this.add(l);
  }

  // Built-in layers go to the native model; the first layer defined in JavaScript (or a
  // model) turns the model into a graph run from JavaScript. Either way each layer is also
  // called on the symbolic output so far (tfjs's layer.output, model.execute).
  add(layer) {
    if (!(layer instanceof Layer)) throw new Error(`The added layer must be an instance of class Layer. Found: ${layer}`);
    if (layer instanceof LayersModel) {
      if (layer.outputs.length !== 1) {
        throw new Error('All layers in a Sequential model should have a single output tensor. For multi-output layers, use the functional API.');
      }
      if (layer.inputs.length !== 1) {
        throw new Error('All layers in a Sequential model should have a single input tensor. For multi-input layers, use the functional API.');
      }
    }
    if (this.graph == null && layer instanceof NativeBackedLayer) {
      this.model.add(layer.native);
      this.chain(layer);
      return;
    }
    if (this.graph == null) this.model = null;
    this.chain(layer);
    this.graph = new C.Graph([this.graphInput], [this.graphOutput]);
  }

  // Calls `layer` on the symbolic output so far (the first layer: on an input of its shape).
  chain(layer) {
    if (this.graphOutput == null) {
      if (layer.getClassName() === 'InputLayer') {
        this.graphInput = layer.inboundNodes[0].outputs[0];
        this.graphOutput = this.graphInput;
        this.inputLayer = layer; // an explicit first InputLayer: saved with the model, as tfjs does
        return;
      }
      const first = layer instanceof LayersModel ? layer.inputs[0] : null;
      const batchShape = first ? first.shape : layer.batchInputShape;
      if (batchShape == null) {
        throw new Error('The first layer in a Sequential model must get an `inputShape` or `batchInputShape` argument.');
      }
      this.graphInput = input({ batchShape, dtype: first ? first.dtype : layer.dtype, name: `${layer.name}_input` });
      this.graphOutput = this.graphInput;
    }
    const out = layer.apply(this.graphOutput);
    // tfjs wires a model added first by its own input, without a call that counts as a use.
    if (layer instanceof LayersModel && this.layers.length === 0) layer._refCount--;
    if (Array.isArray(out)) {
      throw new Error('All layers in a Sequential model should have a single output tensor. For multi-output layers, use the functional API.');
    }
    this.graphOutput = out;
    this.layers.push(layer);
  }

  pop() {
    if (this.layers.length === 0) throw new TypeError('There are no layers in the model.');
    if (this.graph == null) this.model.pop();
    this.layers.pop();
    const last = this.layers[this.layers.length - 1];
    this.graphOutput = last ? last.inboundNodes[last.inboundNodes.length - 1].outputs[0] : this.graphInput;
    if (this.graph != null) this.graph = new C.Graph([this.graphInput], [this.graphOutput]);
  }

  // The model's input and output as symbolic tensors (tfjs's `model.inputs`/`outputs`).
  get inputs() {
    return this.graphInput ? [this.graphInput] : [];
  }

  get outputs() {
    return this.graphOutput && this.layers.length > 0 ? [this.graphOutput] : [];
  }
}
Sequential.className = 'Sequential';
serialization.registerClass(Sequential);

// tfjs's ensureTensorsRank2OrHigher: a 1-D tensor is a batch of one-value rows (the copies made
// are pushed to `made`, for the caller to dispose).
function rank2OrHigher(list, made) {
  return list.map((t) => {
    if (t.rank !== 1) return t;
    const r = t.reshape([t.shape[0], 1]);
    made.push(r);
    return r;
  });
}

// tfjs's plainObjectCheck: JSON's values only (plain objects, arrays, strings, numbers, booleans,
// null).
function isPlainJSON(x) {
  if (x === null) return true;
  if (typeof x === 'object') {
    if (Array.isArray(x)) return x.every(isPlainJSON);
    return Object.getPrototypeOf(x) === Object.prototype && Object.keys(x).every((k) => isPlainJSON(x[k]));
  }
  return typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean';
}

// The weights once each (a layer used twice, or shared by nested models, holds them once).
function uniqueWeights(list) {
  const seen = new Set();
  return list.filter((w) => !seen.has(w.id) && seen.add(w.id));
}

// tidy over a function returning a list of tensors.
function tidyOutputs(f) {
  return tidy(f);
}

// Per-sample weights from fit's classWeight (`weights[c]` for a row of class c: its argMax,
// or the rounded value of a single column), as tfjs's standardizeWeights.
function classWeights(y, weights) {
  return tidy(() => {
    const cls = y.rank === 2 && y.shape[1] > 1 ? y.argMax(-1) : y.reshape([-1]).cast('int32');
    return tensor1d(weights.map((w) => (Number.isNaN(w) ? 0 : w))).gather(cls);
  });
}

function sequential(config) {
  return new Sequential(config);
}

function model(args) {
  return new LayersModel(args);
}

module.exports = { LayersModel, Sequential, sequential, model };
