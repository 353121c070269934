'use strict';
// Models from files: models rebuilt from the Keras topology JSON of tfjs's layers format
// (Sequential and functional, as tfjs's deserialize; a layer registered with
// tf.serialization.registerClass too), then compiled and given their weights as the file says:
// tf.loadLayersModel and tf.models.modelFromJSON. Above models.js, whose constructors it uses;
// the format itself is model_io.js's.
const { serialization } = require('../internals/serialization');
const { dispose } = require('../engine');
const io = require('../io/handlers');
const { decodeWeights } = require('../io/weights');
const { train } = require('../train');
const { Layer, classOf, LAYER_CLASSES, toList } = require('./layer');
const { RNN, TimeDistributed, nativeCells } = require('./recurrent');
const { sequential, model: functionalModel } = require('./models');
const { toCamelCase, convertPythonicToTs, loadWeights } = require('./model_io');

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
  if (className === 'RNN' && !nativeCells(conf.config.cell)) return RNN.fromConfig(RNN, conf.config);
  if (className === 'TimeDistributed' && !nativeCells(conf.config.layer)) {
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
  if (className !== 'Sequential' && className !== 'Model' && className !== 'Functional') throw unknown('layer', className);
  // Layers made before a later one fails are disposed: a bad file leaves nothing behind.
  const made = [];
  const make = (conf) => {
    const layer = deserializeLayer(conf, fastWeightInit);
    made.push(layer);
    return layer;
  };
  try {
    if (className !== 'Sequential') return functionalFromConfig(config, functionalModel, make);
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

// ---- training config -----------------------------------------------------------------------

// tfjs's loadTrainingConfig: compiles the model as the file says.
function loadTrainingConfig(model, config) {
  if (config.weighted_metrics != null) throw new Error('Loading weight_metrics is not supported yet.');
  if (config.loss_weights != null) throw new Error('Loading loss_weights is not supported yet.');
  if (config.sample_weight_mode != null) throw new Error('Loading sample_weight_mode is not supported yet.');
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

// ---- load ----------------------------------------------------------------------------------

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

module.exports = { deserializeLayer, deserializeModel, loadLayersModel, modelFromJSON };
