'use strict';
// Models to and from files: the Keras topology JSON of tfjs's layers format (model.toJSON(),
// snake_case keys as Keras writes them), models rebuilt from it (Sequential and functional,
// as tfjs's deserialize), weights matched by their original names (tfjs's loadWeights),
// tf.loadLayersModel, tf.models.modelFromJSON and model.save.
const { serialization } = require('../internals');
const { dispose } = require('../engine');
const io = require('../io/handlers');
const { encodeWeights, decodeWeights, concatenateArrayBuffers } = require('../io/weights');
const { Layer, classOf, LAYER_CLASSES, toList, toSnakeCase } = require('./layer');

const KERAS_VERSION = 'tfjs-layers 4.22.0';
const LAYERS_MODEL_FORMAT_NAME = 'layers-model';
const GENERATED_BY = 'TensorFlow.js tfjs-layers v4.22.0';

// ---- pythonic <-> TypeScript configs (tfjs's serialization_utils) -------------------------


function toCamelCase(identifier) {
  if (identifier.length <= 1 || identifier.indexOf('_') === -1) return identifier;
  return identifier.replace(/[_]+(\w|$)/g, (m, p1) => p1.toUpperCase());
}

// Layer names at the front of inbound-node and input/output entries are kept as they are.
const isLayerNameItem = (key, index, value) => (key === 'inboundNodes' || key === 'outputLayers' || key === 'inputLayers')
  && index === 0 && typeof value === 'string';

// Keys and string values to camelCase, except names.
function convertPythonicToTs(config, key) {
  if (config === null) return null;
  if (typeof config === 'string') return toCamelCase(config);
  if (typeof config === 'number' || typeof config === 'boolean' || config === undefined) return config;
  if (Array.isArray(config)) return config.map((x, i) => (isLayerNameItem(key, i, x) ? x : convertPythonicToTs(x, key)));
  // Some tf.keras versions write a scalar as {type: 'ndarray', value: 6} (tfjs's
  // convertNDArrayScalarsInConfig).
  if (config.type === 'ndarray' && typeof config.value === 'number') return config.value;
  const out = {};
  for (const k of Object.keys(config)) {
    const v = config[k];
    if (k === 'name' && typeof v === 'string') {
      out[k] = v;
    } else {
      const tsKey = toCamelCase(k);
      out[tsKey] = convertPythonicToTs(v, tsKey);
    }
  }
  return out;
}

// Keys and string values to snake_case, except names and class names.
function convertTsToPythonic(config, key) {
  if (config === null || config === undefined) return null;
  if (typeof config === 'string') return toSnakeCase(config);
  if (typeof config === 'number' || typeof config === 'boolean') return config;
  if (Array.isArray(config)) return config.map((x, i) => (isLayerNameItem(key, i, x) ? x : convertTsToPythonic(x, key)));
  const out = {};
  for (const k of Object.keys(config)) {
    const v = config[k];
    out[toSnakeCase(k)] = (k === 'name' || k === 'className') && typeof v === 'string' ? v : convertTsToPythonic(v, k);
  }
  return out;
}

// ---- model -> topology ---------------------------------------------------------------------

// The layer calls that belong to a functional model: every node between its inputs and outputs.
function nodesOf(model) {
  const seen = new Set();
  const visit = (s) => {
    const node = s.node;
    if (node == null || seen.has(node)) return;
    seen.add(node);
    if (node.layer.getClassName() !== 'InputLayer') node.inputs.forEach(visit);
  };
  model.outputs.forEach(visit);
  return seen;
}

// tfjs's getConfig() of a model: layers with their configs (and, for functional models, the
// inbound nodes and the input and output layers).
function modelConfig(model) {
  if (model.getClassName() === 'Sequential') {
    const all = model.inputLayer ? [model.inputLayer, ...model.layers] : model.layers;
    return { name: model.name, layers: all.map((l) => ({ className: l.getClassName(), config: l.getConfig() })) };
  }
  const nodes = nodesOf(model);
  const nodeIndex = (node) => node.layer.inboundNodes.filter((n) => nodes.has(n)).indexOf(node);
  const ref = (s) => [s.node.layer.name, Math.max(0, nodeIndex(s.node)), s.outputTensorIndex || 0];
  const layers = model.layers.map((l) => ({
    name: l.name,
    className: l.getClassName(),
    config: l.getConfig(),
    inboundNodes: l.getClassName() === 'InputLayer' ? [] : l.inboundNodes.filter((n) => nodes.has(n))
      .map((n) => n.inputs.map((s) => [...ref(s), n.callArgs || {}])),
  }));
  return { name: model.name, layers, inputLayers: model.inputs.map(ref), outputLayers: model.outputs.map(ref) };
}

// model.toJSON(): the Keras topology as tfjs writes it.
function modelTopology(model) {
  return convertTsToPythonic({
    className: model.getClassName(), config: modelConfig(model), kerasVersion: KERAS_VERSION, backend: 'TensorFlow.js',
  });
}

// ---- topology -> model ---------------------------------------------------------------------

function unknown(what, className) {
  return new Error(`Unknown ${what}: ${className}. This may be due to one of the following reasons:\n` +
    `1. The ${what} is defined in Python, in which case it needs to be ported to TensorFlow.js or your JavaScript code.\n` +
    `2. The custom ${what} is defined in JavaScript, but is not registered properly with tf.serialization.registerClass().`);
}

// A layer from `{className, config}` (TypeScript form): tidytensor's own class, or a class
// registered with tf.serialization.registerClass. `fastWeightInit`: build with zero weights
// (the file's weights replace them all).
function deserializeLayer(conf, fastWeightInit = false) {
  if (conf == null || conf.className == null || conf.config == null) {
    throw new Error(`layer: Improper config format: ${JSON.stringify(conf)}.\n'className' and 'config' must set.`);
  }
  const { className } = conf;
  // An RNN or a TimeDistributed over a layer written in JavaScript (registered) runs in
  // JavaScript.
  if (className === 'RNN' && !require('./recurrent').nativeCells(conf.config.cell)) {
    const { RNN } = require('./recurrent');
    return RNN.fromConfig(RNN, conf.config);
  }
  if (className === 'TimeDistributed' && !require('./recurrent').nativeCells(conf.config.layer)) {
    const { TimeDistributed } = require('./recurrent');
    return TimeDistributed.fromConfig(TimeDistributed, conf.config);
  }
  if (LAYER_CLASSES.has(className)) {
    const cls = classOf(className);
    const layer = new cls(conf.config);
    if (fastWeightInit) layer.native.fastWeightInit = true;
    return layer;
  }
  const registered = serialization.SerializationMap.getMap().classNameMap[className];
  if (['Sequential', 'Model', 'Functional'].includes(className)) return deserializeModel(conf, fastWeightInit);
  if (registered != null && registered[0].prototype instanceof Layer) {
    const [cls, fromConfig] = registered;
    const layer = fromConfig != null ? fromConfig(cls, conf.config) : new cls(conf.config);
    if (fastWeightInit && typeof layer.setFastWeightInitDuringBuild === 'function') layer.setFastWeightInitDuringBuild(true);
    return layer;
  }
  throw unknown('layer', className);
}

// A model from its topology (TypeScript form). tfjs deserializes it as a layer: its texts.
function deserializeModel(topology, fastWeightInit = false) {
  if (topology == null || typeof topology !== 'object' || Array.isArray(topology) || !('className' in topology) || !('config' in topology)) {
    throw new Error(`layer: Improper config format: ${JSON.stringify(topology)}.\n'className' and 'config' must set.`);
  }
  const { className, config } = topology;
  const { sequential, model } = require('./models');
  if (className !== 'Sequential' && className !== 'Model' && className !== 'Functional') throw unknown('layer', className);
  // Layers made before a later one fails are disposed: a bad file leaves nothing behind.
  const made = [];
  const make = (conf) => {
    const layer = deserializeLayer(conf, fastWeightInit);
    made.push(layer);
    return layer;
  };
  try {
    if (className !== 'Sequential') return functionalFromConfig(config, model, make);
    const confs = Array.isArray(config) ? config : config.layers;
    if (!Array.isArray(confs)) {
      throw new Error("When the config data for a Sequential model is not an Array, it must be an Object that contains the 'layers' field.");
    }
    const m = sequential(Array.isArray(config) ? {} : { name: config.name });
    for (const conf of confs) m.add(make(conf));
    return m;
  } catch (e) {
    for (const layer of made) layer.dispose();
    throw e;
  }
}

// tfjs's Container.fromConfig: makes the layers, then replays their calls (deferring a call
// until the layers it reads from have run), then wires inputs and outputs.
function functionalFromConfig(config, model, make) {
  const outputs = new Map();
  const created = [];
  for (const conf of config.layers) {
    const layer = make(conf);
    const name = conf.name != null ? conf.name : layer.name;
    created.push({ layer, name, pending: (conf.inboundNodes || []).slice() });
    outputs.set(name, []);
    if (layer.getClassName() === 'InputLayer') outputs.get(name).push([layer.inboundNodes[0].outputs[0]]);
  }
  const tensorOf = ([layerName, nodeIndex, tensorIndex]) => {
    const nodes = outputs.get(layerName);
    if (nodes === undefined) throw new Error(`Unknown layer name in the model's topology: ${layerName}`);
    const node = nodes[nodeIndex || 0];
    return node === undefined ? undefined : node[tensorIndex || 0];
  };
  for (let progress = true; progress;) {
    progress = false;
    for (const c of created) {
      while (c.pending.length > 0) {
        const inputs = c.pending[0].map(tensorOf);
        if (inputs.some((t) => t === undefined)) break;
        const kwargs = c.pending[0][0][3] || {};
        c.pending.shift();
        const out = c.layer.apply(inputs.length === 1 ? inputs[0] : inputs, kwargs);
        outputs.get(c.name).push(toList(out));
        progress = true;
      }
    }
  }
  const stuck = created.find((c) => c.pending.length > 0);
  if (stuck) throw new Error(`The model's topology cannot be wired: layer ${stuck.name} reads from a layer that never runs`);
  const ends = (list) => list.map((r) => {
    const t = tensorOf(r);
    if (t === undefined) throw new Error(`The model's topology names an unknown input or output: ${JSON.stringify(r)}`);
    return t;
  });
  return model({ inputs: ends(config.inputLayers), outputs: ends(config.outputLayers), name: config.name });
}

// ---- weights -------------------------------------------------------------------------------

// tfjs's Container.loadWeights: sets each weight named in `weights` (name -> tensor) on the
// variable with that original name. Checks everything before it changes anything, in tfjs's
// order: names, unset weights, then each weight's shape and dtype (tfjs's LayerVariable.write
// and Variable.assign refuse a value of another dtype; it is never reinterpreted or cast).
function loadWeights(model, weights, strict = true) {
  const byName = new Map();
  let total = 0;
  for (const w of model.weights) {
    if (byName.has(w.originalName)) throw new Error(`Duplicate weight name: ${w.originalName}`);
    byName.set(w.originalName, w);
    total++;
  }
  const pairs = [];
  for (const name of Object.keys(weights)) {
    let target = name;
    if (!byName.has(name)) {
      const tokens = name.split('/');
      target = tokens.slice(0, -2).concat([tokens[tokens.length - 1]]).join('/');
    }
    const w = byName.get(target);
    if (w != null) pairs.push([w, weights[name], name]);
    else if (strict) throw new Error(`Provided weight data has no target variable: ${name}`);
    byName.delete(target);
  }
  if (strict && byName.size > 0) {
    throw new Error(`${byName.size} of ${total} weights are not set: ${[...byName.keys()]}`);
  }
  for (const [w, value, name] of pairs) {
    if (JSON.stringify(w.shape) !== JSON.stringify(value.shape)) {
      throw new Error(`Shape mismatch in weight ${name}: the model's weight ${w.originalName} has shape ` +
        `[${w.shape}] but the weight data has shape [${value.shape}]`);
    }
    if (value.dtype !== w.dtype) {
      throw new Error(`dtype of the new value (${value.dtype}) and previous value (${w.dtype}) must match`);
    }
  }
  for (const [w, value] of pairs) w.read().assign(value);
}

// tfjs's getNamedWeights: {name: originalName, tensor} of every weight.
function namedWeights(model, config) {
  const trainableOnly = config != null && config.trainableOnly;
  const weights = trainableOnly ? model.trainableWeights : model.weights;
  return weights.map((w) => ({ name: w.originalName, tensor: w.read() }));
}

// ---- training config -----------------------------------------------------------------------

// tfjs's getTrainingConfig: loss and metric names (snake_case) and the optimizer's config.
function trainingConfig(model) {
  const name = (f) => toSnakeCase(typeof f === 'string' ? f : f.name);
  const { loss } = model;
  let lossNames;
  if (typeof loss === 'string' || typeof loss === 'function') lossNames = name(loss);
  else if (Array.isArray(loss)) lossNames = loss.map(name);
  else lossNames = Object.fromEntries(Object.entries(loss).map(([k, v]) => [k, name(v)]));
  return {
    loss: lossNames,
    metrics: (model.metrics || []).map(name),
    optimizer_config: { class_name: model.optimizer.getClassName(), config: model.optimizer.getConfig() },
  };
}

// tfjs's loadTrainingConfig: compiles the model as the file says.
function loadTrainingConfig(model, config) {
  if (config.weighted_metrics != null) throw new Error('Loading weight_metrics is not supported yet.');
  if (config.loss_weights != null) throw new Error('Loading loss_weights is not supported yet.');
  if (config.sample_weight_mode != null) throw new Error('Loading sample_weight_mode is not supported yet.');
  const { train } = require('../train');
  const opt = convertPythonicToTs(config.optimizer_config);
  const registered = serialization.SerializationMap.getMap().classNameMap[opt.className];
  let optimizer;
  if (registered != null) {
    const [cls, fromConfig] = registered;
    optimizer = fromConfig ? fromConfig(cls, opt.config) : new cls(opt.config);
  } else {
    const key = { SGD: 'sgd', Momentum: 'momentum', Adagrad: 'adagrad', Adadelta: 'adadelta', Adam: 'adam', Adamax: 'adamax', RMSProp: 'rmsprop' }[opt.className];
    if (key == null) throw unknown('optimizer', opt.className);
    const c = opt.config;
    optimizer = train[key](c.learningRate, ...{
      sgd: [], momentum: [c.momentum, c.useNesterov], adagrad: [c.initialAccumulatorValue], adadelta: [c.rho, c.epsilon],
      adam: [c.beta1, c.beta2, c.epsilon], adamax: [c.beta1, c.beta2, c.epsilon, c.decay],
      rmsprop: [c.decay, c.momentum, c.epsilon, c.centered],
    }[key]);
  }
  const camel = (v) => (typeof v === 'string' ? toCamelCase(v) : v);
  const mapped = (v) => {
    if (v == null) return v;
    if (typeof v === 'string') return camel(v);
    if (Array.isArray(v)) return v.map(camel);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, Array.isArray(x) ? x.map(camel) : camel(x)]));
  };
  model.compile({ loss: mapped(config.loss), metrics: mapped(config.metrics), optimizer });
}

// ---- load / save ---------------------------------------------------------------------------

// Model weights and optimizer weights (group 'optimizer') from the artifacts' weight data.
function decodeModelAndOptimizerWeights(weightData, specs) {
  const all = decodeWeights(weightData, specs);
  const modelWeights = {};
  const optimizerWeights = [];
  for (const spec of specs) {
    if (spec.group === 'optimizer') optimizerWeights.push({ name: spec.name, tensor: all[spec.name] });
    else modelWeights[spec.name] = all[spec.name];
  }
  return { modelWeights, optimizerWeights };
}

const topologyOf = (t) => (t != null && t.model_config != null ? t.model_config : t);

// A model from artifacts: the topology, then the weights (nothing is left allocated when
// either fails).
async function modelFromArtifacts(artifacts, options = {}) {
  if (artifacts == null || artifacts.modelTopology == null) {
    throw new Error('The model artifacts contain no model topology (modelTopology): cannot build a layers model');
  }
  if (artifacts.modelTopology instanceof ArrayBuffer || ArrayBuffer.isView(artifacts.modelTopology)) {
    throw new Error('The model artifacts hold a binary (graph model) topology: load it with tf.loadGraphModel');
  }
  const strict = options.strict == null ? true : options.strict;
  const fastWeightInit = artifacts.weightData != null && artifacts.weightSpecs != null && strict;
  const model = deserializeModel(convertPythonicToTs(topologyOf(artifacts.modelTopology)), fastWeightInit);
  try {
    if (artifacts.trainingConfig != null) loadTrainingConfig(model, artifacts.trainingConfig);
    if (artifacts.userDefinedMetadata != null) model.setUserDefinedMetadata(artifacts.userDefinedMetadata);
    if (artifacts.weightData != null) {
      if (artifacts.weightSpecs == null) {
        throw new Error('LayersModel artifacts contains weight data, but not weight specs. Therefore loading of weights cannot proceed.');
      }
      const { modelWeights, optimizerWeights } = decodeModelAndOptimizerWeights(artifacts.weightData, artifacts.weightSpecs);
      try {
        loadWeights(model, modelWeights, strict);
        if (model.optimizer != null && optimizerWeights.length > 0) await model.optimizer.setWeights(optimizerWeights);
      } finally {
        dispose(Object.values(modelWeights));
        dispose(optimizerWeights.map((w) => w.tensor));
      }
    }
  } catch (e) {
    model.dispose();
    throw e;
  }
  return model;
}

// tf.loadLayersModel(pathOrIOHandler, {strict, onProgress, ...}): a file:// URL, a plain path
// (to model.json or its directory), an http(s) URL, or any IOHandler with load().
async function loadLayersModel(pathOrIOHandler, options = {}) {
  if (options == null) options = {};
  let handler = pathOrIOHandler;
  if (typeof handler === 'string' || Array.isArray(handler)) handler = io.handlerFor(handler, 'load', options);
  if (handler == null || handler.load == null) {
    throw new Error('Cannot proceed with model loading because the IOHandler provided does not have the `load` method implemented.');
  }
  return modelFromArtifacts(await handler.load(), options);
}

// tf.models.modelFromJSON({modelTopology, weightsManifest, pathPrefix} or a topology).
async function modelFromJSON(modelAndWeightsConfig, customObjects) {
  if (!('modelTopology' in modelAndWeightsConfig)) modelAndWeightsConfig = { modelTopology: modelAndWeightsConfig };
  const topology = topologyOf(modelAndWeightsConfig.modelTopology);
  const model = deserializeModel(convertPythonicToTs(topology));
  if (modelAndWeightsConfig.weightsManifest != null) {
    try {
      const names = model.weights.map((w) => w.originalName);
      const values = await io.loadWeights(modelAndWeightsConfig.weightsManifest, modelAndWeightsConfig.pathPrefix, names);
      try {
        const unique = {};
        for (const n of names) unique[n] = values[n];
        loadWeights(model, unique);
      } finally {
        dispose(Object.values(values));
      }
    } catch (e) {
      model.dispose();
      throw e;
    }
  }
  return model;
}

// model.save(handlerOrURL, {includeOptimizer, trainableOnly}).
async function saveModel(model, handlerOrURL, config) {
  let handler = handlerOrURL;
  if (typeof handler === 'string') handler = io.handlerFor(handler, 'save');
  if (handler == null || handler.save == null) {
    throw new Error('LayersModel.save() cannot proceed because the IOHandler provided does not have the `save` attribute defined.');
  }
  const weights = await encodeWeights(namedWeights(model, config));
  const artifacts = {
    modelTopology: modelTopology(model),
    format: LAYERS_MODEL_FORMAT_NAME,
    generatedBy: GENERATED_BY,
    convertedBy: null,
  };
  if (config != null && config.includeOptimizer && model.optimizer != null) {
    artifacts.trainingConfig = trainingConfig(model);
    const optimizerWeights = await model.optimizer.getWeights();
    const opt = await encodeWeights(optimizerWeights, 'optimizer');
    // getWeights makes the iteration count a new scalar (the rest are the optimizer's variables).
    dispose(optimizerWeights.filter((w) => w.name === 'iter').map((w) => w.tensor));
    weights.specs.push(...opt.specs);
    weights.data = concatenateArrayBuffers([weights.data, opt.data]);
  }
  if (model.userDefinedMetadata != null) artifacts.userDefinedMetadata = model.userDefinedMetadata;
  artifacts.weightData = weights.data;
  artifacts.weightSpecs = weights.specs;
  return handler.save(artifacts);
}

module.exports = {
  toSnakeCase, toCamelCase, convertPythonicToTs, convertTsToPythonic, modelTopology, deserializeLayer,
  deserializeModel, loadWeights, namedWeights, loadLayersModel, modelFromJSON, saveModel,
};
