'use strict';
// Models to files: the Keras topology JSON of tfjs's layers format (model.toJSON(), snake_case
// keys as Keras writes them), weights matched by their original names (tfjs's loadWeights),
// the training config and model.save. Models rebuilt from files (tf.loadLayersModel,
// tf.models.modelFromJSON) are model_load.js's, above models.js.
const { dispose } = require('../engine');
const io = require('../io/handlers');
const { encodeWeights, concatenateArrayBuffers } = require('../io/weights');
const { toSnakeCase } = require('./layer');

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

// ---- training config (model_load.js reads it back) -----------------------------------------

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

// ---- save ----------------------------------------------------------------------------------

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
  toSnakeCase, toCamelCase, convertPythonicToTs, convertTsToPythonic, modelTopology, loadWeights,
  namedWeights, saveModel,
};
