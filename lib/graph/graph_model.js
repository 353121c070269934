'use strict';
// tf.GraphModel, tf.loadGraphModel and tf.loadGraphModelSync (tfjs-converter 4.22's): models in
// the graph-model format (a TensorFlow GraphDef as JSON, the weights of its Const nodes in the
// binary weight format). The graph is parsed, planned, checked and run natively
// (native.NativeGraph over crates/graph, which owns the weights); this module keeps tfjs's API:
// finding the handler and loading the artifacts, the inputs' normalisation (arrays, resource
// inputs), executeAsync's slices, custom ops, KEEP_INTERMEDIATE_TENSORS's map, and save.
const native = require('../native');
const { Tensor, wrapId } = require('../tensor');
const { offThread } = require('../serving');
const engine = require('../engine');
const { env } = require('../env');
const handlers = require('../io/handlers');
const { decodeWeights, decodeWeightsStream, encodeWeights, getWeightSpecs } = require('../io/weights');
const customOps = require('./custom_ops');
const { io } = require('../io');

const TFHUB_SEARCH_PARAM = '?tfjs-format=file';
const DEFAULT_MODEL_NAME = 'model.json';

const isPromise = (x) => x != null && typeof x.then === 'function';

// The graph's parsing, its inputs and outputs, the signature's keys, the execution plan and
// every check of the feeds and outputs (with tfjs's texts) are native (crates/graph, through
// native.NativeGraph); this module holds none of its own.

// A node as GraphModel.inputs/outputs show it (the native JSON's null is tfjs's undefined).
function tensorInfo(node) {
  return { name: node.name, shape: node.shape ?? undefined, dtype: node.dtype ?? undefined };
}

// A model signature's entries as [key, tensor name] pairs, in the model file's order (the
// native side's JSON maps would sort the keys).
function signaturePairs(entries) {
  return Object.keys(entries || {}).map((key) => [key, entries[key] != null ? entries[key].name : undefined])
    .filter(([, name]) => typeof name === 'string');
}

// ---- the model ----------------------------------------------------------------------------

const NOT_LOADED = 'The GraphModel has not been loaded: call model.load() (or use tf.loadGraphModel) first';
const DISPOSED = 'The GraphModel has been disposed';

class GraphModel {
  // `modelUrl`: a URL string (file://, a plain path or directory, http(s)) or an IOHandler.
  constructor(modelUrl, loadOptions = {}, tfio) {
    this.modelUrl = modelUrl;
    this.loadOptions = loadOptions == null ? {} : loadOptions;
    this.version = 'n/a';
    this.io = tfio == null ? io : tfio;
    Object.defineProperty(this, 'graphHandle', { value: null, writable: true, enumerable: false });
    // The native executions of executeAsync in progress (dispose() aborts them).
    Object.defineProperty(this, 'running', { value: new Set(), enumerable: false });
  }

  get modelVersion() { return this.version; }
  get inputNodes() { return this.graphInfo().inputs.map((node) => node.signatureKey || node.name); }
  get outputNodes() { return this.graphInfo().outputs.map((node) => node.signatureKey || node.name); }
  get inputs() { return this.graphInfo().inputs.map(tensorInfo); }
  get outputs() { return this.graphInfo().outputs.map(tensorInfo); }
  get metadata() { return this.artifacts == null ? undefined : this.artifacts.userDefinedMetadata; }
  get modelSignature() { return this.signature; }
  get modelStructuredOutputKeys() { return this.structuredOutputKeys; }

  // tfjs's (private) GraphExecutor, present once the model is loaded: libraries test it to see
  // whether a model is ready (@vladmandic/human does). Its graph's inputs/outputs and the
  // weight map are what tfjs's executor exposes.
  get executor() {
    if (this.graph == null) return undefined;
    const model = this;
    return {
      get graph() { return model.graphInfo(); },
      get inputs() { return model.inputs; },
      get outputs() { return model.outputs; },
      get inputNodes() { return model.inputNodes; },
      get outputNodes() { return model.outputNodes; },
      get weightMap() { return model.weights; },
    };
  }

  // name -> [tensor] of the graph's weights (tfjs's executor.weightMap).
  get weights() {
    const g = this.liveGraph();
    const names = g.weightNames();
    const ids = g.weightIds();
    const byId = new Map(Object.values(this.weightTensors || {}).map((t) => [t.id, t]));
    const out = {};
    names.forEach((name, i) => { out[name] = [byId.get(ids[i]) || wrapId(ids[i])]; });
    return out;
  }

  // The graph's inputs and outputs as the native side reads them ({name, op, shape, dtype,
  // signatureKey} each), and its ops.
  graphInfo() {
    if (this.graph == null) throw new Error(NOT_LOADED);
    return this.graph;
  }

  liveGraph() {
    if (this.graphHandle == null) throw new Error(this.graph == null ? NOT_LOADED : DISPOSED);
    return this.graphHandle;
  }

  findIOHandler() {
    const path = this.modelUrl;
    if (path != null && path.load != null) {
      this.handler = path;
    } else if (this.loadOptions.requestInit != null && typeof path === 'string' && handlers.isHTTPScheme(path)) {
      this.handler = handlers.browserHTTPRequest(path, this.loadOptions);
    } else {
      this.handler = handlers.handlerFor(path, 'load', this.loadOptions);
    }
  }

  // Loads the artifacts through the handler, then the graph (a promise when the handler's
  // load() returns one, as in tfjs).
  load() {
    this.findIOHandler();
    if (this.handler.load == null) {
      throw new Error('Cannot proceed with model loading because the IOHandler provided ' +
        'does not have the `load` method implemented.');
    }
    const loadResult = this.handler.load();
    if (isPromise(loadResult)) {
      return loadResult.then((artifacts) => (artifacts.getWeightStream == null
        ? this.loadSync(artifacts) : this.loadStreaming(artifacts)));
    }
    return this.loadSync(loadResult);
  }

  loadSync(artifacts) {
    checkArtifacts(artifacts);
    const weightMap = artifacts.weightSpecs == null ? {} : decodeWeights(artifacts.weightData, artifacts.weightSpecs);
    return this.loadWithWeightMap(artifacts, weightMap);
  }

  async loadStreaming(artifacts) {
    if (artifacts.getWeightStream == null) throw new Error('Model artifacts missing streamWeights function');
    checkArtifacts(artifacts);
    const weightMap = await decodeWeightsStream(artifacts.getWeightStream(), artifacts.weightSpecs);
    return this.loadWithWeightMap(artifacts, weightMap);
  }

  loadWithWeightMap(artifacts, weightMap) {
    let signature = artifacts.signature;
    let structuredOutputKeys;
    if (artifacts.userDefinedMetadata != null) {
      const metadata = artifacts.userDefinedMetadata;
      if (metadata.signature != null) signature = metadata.signature;
      if (metadata.structuredOutputKeys != null) structuredOutputKeys = metadata.structuredOutputKeys;
    }
    const weights = Object.values(weightMap);
    const release = () => { for (const t of weights) if (!t.isDisposed) t.dispose(); };
    let graphHandle;
    try {
      if (typeof native.NativeGraph !== 'function') {
        throw new Error('tidytensor: this build of the native addon has no graph executor (NativeGraph); ' +
          'rebuild it (npm rebuild tidytensor)');
      }
      const initializer = artifacts.modelInitializer != null && artifacts.modelInitializer.node != null
        ? artifacts.modelInitializer : null;
      // The graph owns the weights from here (no tidy scope may take them).
      for (const t of weights) if (!t.isDisposed) engine.keep(t);
      const names = Object.keys(weightMap);
      // The initializer (it fills the lookup tables) reads the same weights; the signature
      // maps its keys to the graph's tensors.
      const topology = { modelTopology: artifacts.modelTopology };
      if (initializer) topology.modelInitializer = initializer;
      if (signature != null) {
        topology.signature = { inputs: signaturePairs(signature.inputs), outputs: signaturePairs(signature.outputs) };
      }
      // The graph disposes the weights that name none of its nodes (tfjs keeps them).
      graphHandle = native.NativeGraph.load(JSON.stringify(topology), names, names.map((n) => weightMap[n].id));
      for (const name of names) if (weightMap[name].isDisposed) delete weightMap[name];
    } catch (e) {
      release();
      throw e;
    }
    const graph = artifacts.modelTopology;
    // What save() writes besides the weights (the weights are written from the graph's own).
    const kept = {};
    for (const k of Object.keys(artifacts)) {
      if (!['weightData', 'weightSpecs', 'getWeightStream'].includes(k)) kept[k] = artifacts[k];
    }
    this.attachGraph(graphHandle, kept, weightMap);
    this.structuredOutputKeys = structuredOutputKeys;
    this.signature = signature;
    this.initializerSignature = graphHandle.hasInitializer ? artifacts.initializerSignature : undefined;
    this.version = graph.versions == null ? 'n/a' : `${graph.versions.producer}.${graph.versions.minConsumer}`;
    return true;
  }

  // Makes `graphHandle` (a native.NativeGraph, which owns its weights) this model's graph.
  attachGraph(graphHandle, artifacts, weightMap = {}) {
    if (this.graphHandle != null) this.dispose(); // a second load replaces the first graph
    this.graphHandle = graphHandle;
    this.weightTensors = weightMap;
    this.resourceIdToCapturedInput = undefined;
    this.graph = { inputs: JSON.parse(graphHandle.inputs()), outputs: JSON.parse(graphHandle.outputs()) };
    this.graphOps = graphHandle.ops();
    this.artifacts = artifacts;
  }

  // Writes the model in the graph-model format: the loaded artifacts' topology and fields, the
  // weights as the graph holds them (float32 where the file had them quantized).
  async save(handlerOrURL, config) {
    if (typeof handlerOrURL === 'string') handlerOrURL = handlers.handlerFor(handlerOrURL, 'save');
    if (handlerOrURL == null || handlerOrURL.save == null) {
      throw new Error('GraphModel.save() cannot proceed because the IOHandler ' +
        'provided does not have the `save` attribute defined.');
    }
    if (this.artifacts != null && this.artifacts.format === 'onnx') {
      throw new Error('GraphModel.save(): an ONNX model (tf.loadOnnxModel) has no graph-model topology to save');
    }
    const weights = this.weights;
    const named = Object.keys(weights).map((name) => ({ name, tensor: weights[name][0] }));
    const { data, specs } = await encodeWeights(named);
    const artifacts = { ...this.artifacts, weightSpecs: specs, weightData: data };
    if (artifacts.format == null) artifacts.format = 'graph-model';
    return handlerOrURL.save(artifacts);
  }

  addStructuredOutputNames(outputTensors) {
    if (this.structuredOutputKeys) {
      const list = outputTensors instanceof Tensor ? [outputTensors] : outputTensors;
      const map = {};
      list.forEach((t, i) => { map[this.structuredOutputKeys[i]] = t; });
      return map;
    }
    return outputTensors;
  }

  predict(inputs, config) {
    return this.addStructuredOutputNames(this.execute(inputs, this.outputNodes));
  }

  async predictAsync(inputs, config) {
    const signal = config != null && typeof config === 'object' ? config.signal : undefined;
    return this.addStructuredOutputNames(await this.executeAsync(inputs, this.outputNodes,
      signal != null ? { signal } : undefined));
  }

  normalizeInputs(inputs) {
    const resourceIdOf = (name) => {
      const sig = this.signature;
      const t = sig != null && sig.inputs != null ? sig.inputs[name] : undefined;
      return t != null ? t.resourceId : undefined;
    };
    const captured = this.resourceIdToCapturedInput || {};
    if (!(inputs instanceof Tensor) && !Array.isArray(inputs)) {
      if (inputs == null || typeof inputs !== 'object') {
        throw new Error('model.execute() takes a tf.Tensor, an array of tensors or a name -> tensor map, ' +
          `but got ${inputs}`);
      }
      // Resource inputs (lookup tables) are the initializer's outputs, as in tfjs.
      const sig = this.signature;
      if (sig != null && sig.inputs != null) {
        for (const name of Object.keys(sig.inputs)) {
          const id = resourceIdOf(name);
          if (id != null) inputs[name] = captured[id];
        }
      }
      return inputs;
    }
    const list = Array.isArray(inputs) ? inputs : [inputs];
    const inputNodes = this.inputNodes;
    const numCaptured = Object.keys(captured).length;
    if (list.length + numCaptured !== inputNodes.length) {
      throw new Error(`Input tensor count mismatch, the graph model has ${inputNodes.length - numCaptured} ` +
        `non-resource placeholders, while there are ${list.length} input tensors provided.`);
    }
    const map = {};
    let next = 0;
    for (const name of inputNodes) {
      const id = resourceIdOf(name);
      map[name] = id != null ? captured[id] : list[next++];
    }
    return map;
  }

  // tfjs's executeInitializerGraph(Async) + setResourceIdToCapturedInput: the initializer
  // (which fills the lookup tables) runs before the first execution; its outputs feed the
  // resource inputs the signature names.
  initializeOnce(controlFlow) {
    if (this.resourceIdToCapturedInput != null) return;
    const sig = this.initializerSignature;
    const outputs = sig != null && sig.outputs != null ? Object.keys(sig.outputs) : [];
    const tensors = this.liveGraph().initialize(outputs, controlFlow).map(wrapId);
    const captured = {};
    outputs.forEach((name, i) => {
      const info = sig.outputs[name];
      if (info != null && info.resourceId != null) captured[info.resourceId] = tensors[i];
    });
    this.resourceIdToCapturedInput = captured;
  }

  normalizeOutputs(outputs) {
    outputs = outputs || this.outputNodes;
    return !Array.isArray(outputs) ? [outputs] : outputs;
  }

  // An execution's feeds as the native side takes them: names (tensor names or signature
  // keys) and tensor ids (0 for a value that is no tensor: the native checks refuse it with
  // tfjs's text, in tfjs's order), and the output names.
  request(inputs, outputs) {
    const names = Object.keys(inputs);
    const ids = names.map((n) => (inputs[n] instanceof Tensor ? inputs[n].id : 0));
    return { names, ids, outNames: outputs };
  }

  // Runs the graph natively (without control flow): output tensors in the order of `outNames`.
  // With KEEP_INTERMEDIATE_TENSORS the native side also gives what getIntermediateTensors holds.
  run(g, names, ids, outNames, asAsync) {
    const keep = keepIntermediates();
    const r = g.execute(names, ids, outNames, asAsync, keep);
    if (keep) {
      const map = {};
      r.keptNames.forEach((name, i) => {
        if (map[name] == null) map[name] = [];
        map[name][r.keptIndices[i]] = engine.keep(wrapId(r.keptIds[i]));
      });
      this.clonedTensorsMap = map;
    }
    return r.outputs.map(wrapId);
  }

  execute(inputs, outputs) {
    const g = this.liveGraph();
    this.initializeOnce(false);
    this.disposeIntermediateTensors();
    const { names, ids, outNames } = this.request(this.normalizeInputs(inputs), this.normalizeOutputs(outputs));
    const result = this.usesCustomOps() ? this.runWithCustomOps(g, names, ids, outNames)
      : this.run(g, names, ids, outNames, false);
    return result.length > 1 ? result : result[0];
  }

  // Whether a node's op is registered with tf.registerOp (its nodes stop the native executor).
  usesCustomOps() {
    return this.graphOps.some((op) => customOps.isRegistered(op));
  }

  // A native control-flow execution (executeAsync's, or execute()'s with custom ops when
  // `asExecute`: then refused natively where execute() refuses).
  startRun(g, names, ids, outNames, asExecute) {
    return g.startControlFlow(names, ids, outNames, limitFlag('GRAPH_MAX_CALL_DEPTH'),
      limitFlag('GRAPH_MAX_LOOP_ITERATIONS'), customOps.registeredOps(), asExecute);
  }

  // execute() of a graph with custom ops: the native executor's run, with each custom op
  // node run in JavaScript where it stops.
  runWithCustomOps(g, names, ids, outNames) {
    const run = this.startRun(g, names, ids, outNames, true);
    for (;;) {
      const out = run.resume(1e9);
      if (out != null) return out.map(wrapId);
      const request = run.customRequest();
      if (request != null) customOps.runCustomOp(run, request, false);
    }
  }

  // tfjs's executeAsync. Graphs with control flow, tensor arrays or lists, or dynamic ops (which
  // tfjs runs only here) run in the native control-flow executor (native.NativeGraph's
  // startControlFlow), resumed in slices of a few milliseconds with the event loop let run in
  // between, so timers and I/O go on during a long loop. Other graphs run as execute() does,
  // on tidytensor's serving thread (src/serve.rs), this thread free meanwhile; with
  // KEEP_INTERMEDIATE_TENSORS on this thread. tfjs warns when the execution needed neither
  // control flow nor dynamic ops (after running, before it reports outputs it could not
  // compute); a run off this thread is why to call executeAsync, and is not warned of.
  // tidytensor's extension: `options.signal`, an AbortSignal, ends the execution between slices
  // (rejecting with the signal's reason); the GRAPH_MAX_CALL_DEPTH and GRAPH_MAX_LOOP_ITERATIONS
  // flags bound a model's nesting and loops.
  async executeAsync(inputs, outputs, options) {
    const signal = abortSignalOf(options);
    signal?.throwIfAborted();
    const g = this.liveGraph();
    this.initializeOnce(true);
    this.disposeIntermediateTensors();
    const { names, ids, outNames } = this.request(this.normalizeInputs(inputs), this.normalizeOutputs(outputs));
    let dynamic = false;
    const warn = () => {
      if (!dynamic) {
        console.warn('This model execution did not contain any nodes with control flow ' +
          'or dynamic output shapes. You can use model.execute() instead.');
      }
    };
    let result;
    try {
      if (g.controlFlow || this.usesCustomOps()) {
        const run = this.startRun(g, names, ids, outNames, false);
        dynamic = run.dynamic;
        result = (await this.runControlFlow(run, signal)).map(wrapId);
      } else if (keepIntermediates()) {
        result = this.run(g, names, ids, outNames, true);
      } else {
        // Off this thread, executeAsync is no longer execute() in a Promise: no warning.
        dynamic = true;
        result = await offThread(g.executeOffThread(names, ids, outNames), signal);
      }
    } catch (e) {
      if (/^Cannot compute the outputs/.test(e.message)) warn();
      throw e;
    }
    warn();
    return result.length > 1 ? result : result[0];
  }

  // Runs a native control-flow execution slice by slice (SLICE_MS each), yielding to the event
  // loop in between; an abort or the model's dispose() ends it, disposing what it made.
  async runControlFlow(run, signal) {
    this.running.add(run);
    try {
      for (;;) {
        const out = run.resume(SLICE_MS);
        if (out != null) return out;
        const request = run.customRequest();
        if (request != null) {
          await customOps.runCustomOp(run, request, true);
          continue;
        }
        await new Promise((resolve) => setImmediate(resolve));
        if (signal?.aborted) {
          run.abort();
          signal.throwIfAborted();
        }
        if (this.graphHandle == null) {
          run.abort();
          throw new Error('The graph model was disposed during executeAsync');
        }
      }
    } finally {
      this.running.delete(run);
    }
  }

  // The tensors of the last execution (with the KEEP_INTERMEDIATE_TENSORS flag on): node name
  // -> [tensor] (each node's first output), the inputs and the weights included.
  getIntermediateTensors() {
    return this.clonedTensorsMap;
  }

  disposeIntermediateTensors() {
    if (!this.clonedTensorsMap) return;
    for (const list of Object.values(this.clonedTensorsMap)) {
      for (const t of list) if (t && !t.isDisposed) t.dispose();
    }
    this.clonedTensorsMap = null;
  }

  // Releases the weights (and what the last execution kept with KEEP_INTERMEDIATE_TENSORS);
  // executions in progress end (their executeAsync rejects).
  dispose() {
    this.disposeIntermediateTensors();
    for (const run of this.running) run.abort();
    if (this.resourceIdToCapturedInput != null) {
      for (const t of Object.values(this.resourceIdToCapturedInput)) if (!t.isDisposed) t.dispose();
      this.resourceIdToCapturedInput = undefined;
    }
    if (this.graphHandle != null) {
      this.graphHandle.dispose();
      this.graphHandle = null;
    }
    this.weightTensors = null;
  }
}

// How long one native slice of executeAsync runs before the event loop gets a turn: short
// enough for a 1 ms timer to keep its pace, long enough that yielding costs nothing measurable.
const SLICE_MS = 4;

// executeAsync's options.signal (tidytensor's extension): an AbortSignal, or nothing.
function abortSignalOf(options) {
  if (options == null) return null;
  if (typeof options !== 'object') {
    throw new Error(`executeAsync's third argument must be an options object ({signal}), got ${typeof options}`);
  }
  const { signal } = options;
  if (signal == null) return null;
  if (typeof signal.aborted !== 'boolean' || typeof signal.throwIfAborted !== 'function') {
    throw new Error('executeAsync\'s options.signal must be an AbortSignal');
  }
  return signal;
}

// A limit flag's value for the native executor (a whole number; 0 where it is not one).
function limitFlag(name) {
  const v = Number(env().get(name));
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

function keepIntermediates() {
  try {
    return env().getBool('KEEP_INTERMEDIATE_TENSORS');
  } catch (e) {
    console.warn(e.message);
    return false;
  }
}

function checkArtifacts(artifacts) {
  if (artifacts == null || artifacts.modelTopology == null) {
    throw new Error('The model artifacts contain no model topology (modelTopology): cannot build a graph model');
  }
  const topology = artifacts.modelTopology;
  if (topology instanceof ArrayBuffer || ArrayBuffer.isView(topology)) {
    throw new Error('The model artifacts hold a binary GraphDef topology; tidytensor (as tfjs 4) reads graph ' +
      'models whose modelTopology is the GraphDef as JSON (tensorflowjs_converter output)');
  }
  if (!Array.isArray(topology.node)) {
    throw new Error(topology.class_name != null || topology.model_config != null || topology.config != null
      ? 'The model artifacts hold a layers model (a Keras topology): load it with tf.loadLayersModel'
      : 'The model topology is not a GraphDef: it has no list of nodes (modelTopology.node)');
  }
  if (artifacts.weightData != null && artifacts.weightSpecs == null) {
    throw new Error('The model artifacts contain weight data but no weight specs (weightSpecs)');
  }
}

function getTFHubUrl(modelUrl) {
  if (!modelUrl.endsWith('/')) modelUrl += '/';
  return `${modelUrl}${DEFAULT_MODEL_NAME}${TFHUB_SEARCH_PARAM}`;
}

// tf.loadGraphModel(modelUrl, options): a URL (file://, a plain path or a model directory,
// http(s)) or an IOHandler; options as tf.io's LoadOptions (fromTFHub, requestInit, ...).
async function loadGraphModel(modelUrl, options = {}, tfio) {
  if (modelUrl == null) {
    throw new Error('modelUrl in loadGraphModel() cannot be null. Please provide a url ' +
      'or an IOHandler that loads the model');
  }
  if (options == null) options = {};
  if (options.fromTFHub && typeof modelUrl === 'string') modelUrl = getTFHubUrl(modelUrl);
  const model = new GraphModel(modelUrl, options, tfio);
  await model.load();
  return model;
}

// tf.loadGraphModelSync(source): an IOHandlerSync, ModelArtifacts, or [modelJSON, weights].
function loadGraphModelSync(modelSource) {
  if (modelSource == null) {
    throw new Error('modelUrl in loadGraphModelSync() cannot be null. Please provide ' +
      'model artifacts or an IOHandler that loads the model');
  }
  let ioHandler;
  if (modelSource instanceof Array) {
    const [modelJSON, weights] = modelSource;
    if (!modelJSON) throw new Error('modelJSON must be the first element of the array');
    if (!weights || !(weights instanceof ArrayBuffer)) {
      throw new Error('An ArrayBuffer of weights must be the second element of the array');
    }
    if (!('modelTopology' in modelJSON)) throw new Error('Model JSON is missing \'modelTopology\'');
    if (!('weightsManifest' in modelJSON)) throw new Error('Model JSON is missing \'weightsManifest\'');
    const weightSpecs = getWeightSpecs(modelJSON.weightsManifest);
    ioHandler = handlers.fromMemorySync(handlers.getModelArtifactsForJSONSync(modelJSON, weightSpecs, weights));
  } else if ('load' in modelSource) {
    ioHandler = modelSource;
  } else if ('modelTopology' in modelSource && 'weightSpecs' in modelSource && 'weightData' in modelSource) {
    ioHandler = handlers.fromMemorySync(modelSource);
  } else {
    throw new Error('Unknown model format');
  }
  const model = new GraphModel(ioHandler);
  model.load();
  return model;
}

module.exports = { GraphModel, loadGraphModel, loadGraphModelSync };
