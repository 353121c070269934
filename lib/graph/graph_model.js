'use strict';
// tf.GraphModel, tf.loadGraphModel and tf.loadGraphModelSync (tfjs-converter 4.22's): models in
// the graph-model format (a TensorFlow GraphDef as JSON, the weights of its Const nodes in the
// binary weight format). The graph runs natively (native.NativeGraph, which owns the weights);
// this module does what tfjs's GraphModel and GraphExecutor do in JavaScript: finding the
// handler and loading the artifacts, the graph's inputs/outputs and signature names, the input
// normalisation and checks (with tfjs's error texts), and save.
const native = require('../native');
const { Tensor, wrapId } = require('../tensor');
const engine = require('../engine');
const { env } = require('../env');
const handlers = require('../io/handlers');
const { decodeWeights, decodeWeightsStream, encodeWeights, getWeightSpecs } = require('../io/weights');
const customOps = require('./custom_ops');
const { io } = require('../io');

const TFHUB_SEARCH_PARAM = '?tfjs-format=file';
const DEFAULT_MODEL_NAME = 'model.json';

const isPromise = (x) => x != null && typeof x.then === 'function';

// ---- the graph as tfjs-converter's OperationMapper sees it ----------------------------------

// tensorflow.DataType (the names a GraphDef JSON carries) -> tfjs dtype, as parseDtypeParam.
const DATA_TYPES = {
  DT_FLOAT: 'float32', DT_HALF: 'float32', DT_DOUBLE: 'float32', DT_INT32: 'int32', DT_INT64: 'int32',
  DT_INT8: 'int32', DT_UINT8: 'int32', DT_BOOL: 'bool', DT_STRING: 'string', DT_COMPLEX64: 'complex64',
  DT_COMPLEX128: 'complex64',
};
const DATA_TYPE_NUMBERS = { 1: 'DT_FLOAT', 2: 'DT_DOUBLE', 3: 'DT_INT32', 4: 'DT_UINT8', 6: 'DT_INT8', 7: 'DT_STRING',
  8: 'DT_COMPLEX64', 9: 'DT_INT64', 10: 'DT_BOOL', 18: 'DT_COMPLEX128', 19: 'DT_HALF' };
function parseDtype(value) {
  const name = typeof value === 'number' ? DATA_TYPE_NUMBERS[value] : value;
  return DATA_TYPES[name] || null;
}

// The ops whose tfjs op mapper has a `dtype` attribute, by the GraphDef attribute it reads
// (tfjs reports it as the node's dtype in model.inputs/outputs and checks fed values by it).
const DTYPE_ATTRS = {
  T: ('Add AddV2 BiasAdd Sub RealDiv Div DivNoNan FloorDiv Mul Maximum Minimum Pow SquaredDifference Mod FloorMod ' +
    'Abs Acos Asin Atan Atan2 Ceil ClipByValue Complex ComplexAbs Cos Cosh Elu Exp Floor Log Imag Neg Real Prelu ' +
    'Relu Relu6 Selu Sigmoid Sin Sinh Sqrt Rsqrt Square Tan Tanh Sign Round Expm1 Log1p Reciprocal Softplus Asinh ' +
    'Acosh Atanh Erf LeakyRelu IsNan IsFinite IsInf Enter Exit NextIteration TensorArrayWriteV3 ' +
    'TensorArrayScatterV3 TensorArraySplitV3 AvgPool MaxPool MaxPoolWithArgmax AvgPool3D MaxPool3D Conv1D Conv2D ' +
    '_FusedConv2D FusedDepthwiseConv2dNative Fill LinSpace OneHot Ones Zeros ZerosLike Multinomial ' +
    'NonMaxSuppressionV4 Where ListDiff ResizeBilinear ResizeNearestNeighbor Equal NotEqual Greater GreaterEqual ' +
    'Less LessEqual LogicalAnd LogicalNot LogicalOr Select SelectV2 _FusedMatMul MatMul BatchMatMul ' +
    'BatchMatMulV2 Transpose Einsum Prod SparseReshape'),
  dtype: ('TensorArrayV3 TensorArrayReadV3 TensorArrayGatherV3 TensorArrayConcatV3 OnesLike RandomStandardNormal ' +
    'RandomUniform TruncatedNormal PlaceholderWithDefault Placeholder'),
  Tidx: 'Range',
  DstT: 'Cast',
};
const DTYPE_ATTR_OF = {};
for (const [attr, ops] of Object.entries(DTYPE_ATTRS)) for (const op of ops.split(' ')) DTYPE_ATTR_OF[op] = attr;
const SHAPE_ATTR_OPS = new Set(['Placeholder', 'PlaceholderWithDefault']);

// tfjs's model_analysis: the ops execute() refuses (executeAsync runs them).
const CONTROL_FLOW_OPS = new Set(['Switch', 'Merge', 'Enter', 'Exit', 'NextIteration', 'StatelessIf',
  'StatelessWhile', 'if', 'While']);
const DYNAMIC_SHAPE_OPS = new Set(['NonMaxSuppressionV2', 'NonMaxSuppressionV3', 'NonMaxSuppressionV5', 'Where']);
const HASH_TABLE_OPS = new Set(['HashTable', 'HashTableV2', 'LookupTableImport', 'LookupTableImportV2',
  'LookupTableFind', 'LookupTableFindV2', 'LookupTableSize', 'LookupTableSizeV2']);
const isControlFlow = (node) => CONTROL_FLOW_OPS.has(node.op);
const isDynamic = (node) => isControlFlow(node) || DYNAMIC_SHAPE_OPS.has(node.op) || HASH_TABLE_OPS.has(node.op);

// 'name', 'name:k' or 'name:output:k' -> [name, k, output] (tfjs's parseNodeName).
function parseNodeName(name) {
  if (!name.includes(':')) return [name, 0, undefined];
  const parts = name.split(':');
  return [parts[0], Number(parts[parts.length - 1]), parts.length === 3 ? parts[1] : undefined];
}

// The name the native executor takes for a tensor: 'name' for output 0, else 'name:k'.
function nativeName(name) {
  if (!name.includes(':')) return name;
  const [node, index] = parseNodeName(name);
  return index === 0 ? node : `${node}:${index}`;
}

function shapeOfAttr(attr) {
  const param = attr.shape;
  if (param == null || param.shape == null) return undefined;
  const shape = param.shape;
  if (shape.unknownRank) return undefined;
  if (shape.dim != null) return shape.dim.map((d) => (typeof d.size === 'number' ? d.size : parseInt(d.size, 10)));
  return [];
}

function dtypeOfAttr(attr, name) {
  const param = attr[name];
  return param != null && param.type != null ? parseDtype(param.type) : undefined;
}

// The node map, inputs and outputs of a GraphDef, as tfjs's OperationMapper.transformGraph
// makes them (the executor's inputs and outputs follow the signature when there is one).
function transformGraph(graph, signature) {
  const nodes = {};
  const placeholders = [];
  const initNodes = [];
  for (const n of graph.node || []) {
    const attr = n.attr || {};
    const dtypeAttr = DTYPE_ATTR_OF[n.op];
    const node = {
      name: n.name,
      op: n.op,
      inputNames: (n.input || []).map((i) => (i.startsWith('^') ? i.slice(1) : i)),
      inputs: [],
      children: [],
      shape: SHAPE_ATTR_OPS.has(n.op) ? shapeOfAttr(attr) : undefined,
      dtype: dtypeAttr != null ? dtypeOfAttr(attr, dtypeAttr) : undefined,
      rawAttrs: attr,
    };
    nodes[n.name] = node;
    if (n.op.startsWith('Placeholder')) placeholders.push(node);
    else if (n.op !== 'Const' && node.inputNames.length === 0) initNodes.push(node);
  }
  const all = Object.keys(nodes);
  for (const key of all) {
    const node = nodes[key];
    for (const name of node.inputNames) {
      const input = nodes[parseNodeName(name)[0]];
      if (input == null) continue; // the native loader has reported it
      node.inputs.push(input);
      input.children.push(node);
    }
  }
  const keysOf = (entries) => {
    const m = {};
    for (const key of Object.keys(entries || {})) m[entries[key].name] = key;
    return m;
  };
  const inputKeys = signature != null ? keysOf(signature.inputs) : {};
  const outputKeys = signature != null ? keysOf(signature.outputs) : {};
  const outputs = [];
  if (Object.keys(outputKeys).length === 0) {
    for (const key of all) if (nodes[key].children.length === 0) outputs.push(nodes[key]);
  } else {
    for (const name of Object.keys(outputKeys)) {
      const node = nodes[parseNodeName(name)[0]];
      if (node != null) {
        node.signatureKey = outputKeys[name];
        outputs.push(node);
      }
    }
  }
  let inputs = [];
  if (Object.keys(inputKeys).length > 0) {
    for (const name of Object.keys(inputKeys)) {
      const node = nodes[parseNodeName(name)[0]];
      if (node != null) {
        node.signatureKey = inputKeys[name];
        inputs.push(node);
      }
    }
  } else {
    inputs = placeholders;
  }
  return { nodes, inputs, outputs, initNodes, signature };
}

// tfjs's getExecutionSubgraph: the nodes `outputs` need, the first dynamic (control flow,
// dynamic shape, hash table) node met, and the inputs nobody provided.
function executionSubgraph(inputs, outputs, weightNames, initNodes) {
  const usedNodes = new Set();
  const missingInputs = [];
  let dynamicNode = null;
  let syncInputs = null;
  const seen = new Set();
  const inputNodeNames = new Set(Object.keys(inputs).map((name) => parseNodeName(name)[0]));
  const initNodeNames = new Set(initNodes.map((node) => node.name));
  const frontier = [...outputs];
  while (frontier.length > 0) {
    const node = frontier.pop();
    if (isDynamic(node) && dynamicNode == null) {
      dynamicNode = node;
      syncInputs = node.children.map((c) => c.name).filter((name) => usedNodes.has(name));
    }
    usedNodes.add(node.name);
    if (weightNames.has(node.name) || inputNodeNames.has(node.name) || initNodeNames.has(node.name)) continue;
    if (node.inputs.length === 0) {
      missingInputs.push(node.name);
      continue;
    }
    for (const input of node.inputs) {
      if (seen.has(input.name)) continue;
      seen.add(input.name);
      frontier.push(input);
    }
  }
  return { usedNodes, missingInputs, dynamicNode, syncInputs };
}

// The outputs tfjs's executeAsync could not compute (it runs every used node whose inputs
// all have values, starting from the inputs, the weights and the nodes without inputs).
function uncomputable(outputs, usedNodes, inputs, weightNames, initNodes, nodes) {
  const have = new Set([...Object.keys(inputs).map((n) => parseNodeName(n)[0]), ...weightNames,
    ...initNodes.map((n) => n.name)]);
  const memo = new Map();
  const computable = (node) => {
    if (have.has(node.name)) return true;
    if (memo.has(node.name)) return memo.get(node.name);
    memo.set(node.name, false); // a cycle (only control flow makes one) counts as not computable
    let ok = usedNodes.has(node.name) && node.inputs.length > 0;
    if (ok) {
      ok = node.op === 'Merge'
        ? node.inputNames.some((n) => nodes[parseNodeName(n)[0]] != null && computable(nodes[parseNodeName(n)[0]]))
        : node.inputNames.every((n) => nodes[parseNodeName(n)[0]] != null && computable(nodes[parseNodeName(n)[0]]));
    }
    memo.set(node.name, ok);
    return ok;
  };
  return outputs.filter((node) => !isControlFlow(node) && !computable(node)).map((node) => node.name);
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
  get outputNodes() {
    return this.graphInfo().outputs.map((node) => {
      const name = node.signatureKey || node.name;
      return node.defaultOutput ? `${name}:${node.defaultOutput}` : name;
    });
  }
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
      get graph() { return model.graph; },
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
    const weights = Object.values(weightMap);
    const release = () => { for (const t of weights) if (!t.isDisposed) t.dispose(); };
    let graphHandle;
    try {
      checkWeightShapes(artifacts.modelTopology, weightMap);
      if (typeof native.NativeGraph !== 'function') {
        throw new Error('tidytensor: this build of the native addon has no graph executor (NativeGraph); ' +
          'rebuild it (npm rebuild tidytensor)');
      }
      // Weights naming no node of the graph are unused (tfjs keeps them; they are dropped here).
      // (The Const nodes of the library's functions, If/While bodies, have weights too.)
      const initializer = artifacts.modelInitializer != null && artifacts.modelInitializer.node != null
        ? artifacts.modelInitializer : null;
      const inGraph = new Set([...artifacts.modelTopology.node, ...(initializer ? initializer.node : [])]
        .map((n) => n.name));
      const library = artifacts.modelTopology.library;
      for (const f of (library != null && library.function) || []) {
        for (const n of f.nodeDef || []) inGraph.add(n.name);
      }
      for (const name of Object.keys(weightMap)) {
        if (!inGraph.has(name)) {
          weightMap[name].dispose();
          delete weightMap[name];
        }
      }
      // The graph owns the weights from here (no tidy scope may take them).
      for (const t of weights) if (!t.isDisposed) engine.keep(t);
      const names = Object.keys(weightMap);
      // The initializer (it fills the lookup tables) reads the same weights.
      const topology = initializer ? { modelTopology: artifacts.modelTopology, modelInitializer: initializer }
        : artifacts.modelTopology;
      graphHandle = native.NativeGraph.load(JSON.stringify(topology), names, names.map((n) => weightMap[n].id));
    } catch (e) {
      release();
      throw e;
    }
    const graph = artifacts.modelTopology;
    let signature = artifacts.signature;
    let structuredOutputKeys;
    if (artifacts.userDefinedMetadata != null) {
      const metadata = artifacts.userDefinedMetadata;
      if (metadata.signature != null) signature = metadata.signature;
      if (metadata.structuredOutputKeys != null) structuredOutputKeys = metadata.structuredOutputKeys;
    }
    if (this.graphHandle != null) this.dispose(); // a second load replaces the first graph
    this.graphHandle = graphHandle;
    this.weightTensors = weightMap;
    this.structuredOutputKeys = structuredOutputKeys;
    this.signature = signature;
    this.initializerSignature = graphHandle.hasInitializer ? artifacts.initializerSignature : undefined;
    this.resourceIdToCapturedInput = undefined;
    this.version = graph.versions == null ? 'n/a' : `${graph.versions.producer}.${graph.versions.minConsumer}`;
    this.graph = transformGraph(graph, signature);
    this.weightNameSet = new Set(Object.keys(weightMap));
    this.compiled = new Set();
    // What save() writes besides the weights (the weights are written from the graph's own).
    this.artifacts = {};
    for (const k of Object.keys(artifacts)) {
      if (!['weightData', 'weightSpecs', 'getWeightStream'].includes(k)) this.artifacts[k] = artifacts[k];
    }
    return true;
  }

  // Writes the model in the graph-model format: the loaded artifacts' topology and fields, the
  // weights as the graph holds them (float32 where the file had them quantized).
  async save(handlerOrURL, config) {
    if (typeof handlerOrURL === 'string') handlerOrURL = handlers.handlerFor(handlerOrURL, 'save');
    if (handlerOrURL == null || handlerOrURL.save == null) {
      throw new Error('GraphModel.save() cannot proceed because the IOHandler ' +
        'provided does not have the `save` attribute defined.');
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
    const tensors = this.liveGraph().initialize(outputs.map(nativeName), controlFlow).map(wrapId);
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

  // The checks and name mapping of tfjs's GraphExecutor (with its error texts): feeds keyed by
  // tensor names, output tensor names, output nodes, and the execution subgraph.
  prepare(inputs, outputs) {
    const graph = this.graphInfo();
    const sig = graph.signature;
    const feeds = {};
    for (const name in inputs) {
      const t = sig != null && sig.inputs != null ? sig.inputs[name] : undefined;
      feeds[t != null ? t.name : name] = inputs[name];
    }
    const notInGraph = Object.keys(feeds).filter((name) => graph.nodes[parseNodeName(name)[0]] == null);
    if (notInGraph.length > 0) {
      throw new Error(`The dict provided in model.execute(dict) has keys: [${notInGraph}] that are not part of graph`);
    }
    for (const name of Object.keys(feeds)) {
      const input = feeds[name];
      const node = graph.nodes[parseNodeName(name)[0]];
      if (!(input instanceof Tensor)) {
        throw new Error(`The value of dict['${node.name}'] provided in model.execute(dict) is not a tf.Tensor`);
      }
      if (node.shape) {
        const shape = node.shape;
        const match = shape.length === input.shape.length &&
          input.shape.every((dim, i) => shape[i] === -1 || shape[i] === dim);
        if (!match) {
          throw new Error(`The shape of dict['${node.name}'] provided in model.execute(dict) must be [${shape}], ` +
            `but was [${input.shape}]`);
        }
      }
      if (node.dtype && input.dtype !== node.dtype) {
        throw new Error(`The dtype of dict['${node.name}'] provided in model.execute(dict) must be ${node.dtype}, ` +
          `but was ${input.dtype}`);
      }
    }
    const outNames = outputs.map((name) => {
      const t = sig != null && sig.outputs != null ? sig.outputs[name] : undefined;
      return t != null ? t.name : name;
    });
    for (const name of outNames) {
      if (!graph.nodes[parseNodeName(name)[0]]) throw new Error(`The output '${name}' is not found in the graph`);
    }
    let outputNodes = outNames.map((name) => graph.nodes[parseNodeName(name)[0]]);
    if (outputNodes.length === 0) outputNodes = graph.outputs;
    return { feeds, outNames, outputNodes };
  }

  // Runs the graph natively: output tensors in the order of `outNames`.
  run(feeds, outNames, usedNodes) {
    const g = this.liveGraph();
    const names = Object.keys(feeds);
    const keep = keepIntermediates();
    const extra = [];
    if (keep) {
      const skip = new Set([...names.map((n) => parseNodeName(n)[0]), ...this.weightNameSet,
        ...outNames.map((n) => parseNodeName(n)[0])]);
      for (const name of usedNodes) if (!skip.has(name)) extra.push(name);
    }
    const ids = g.execute(names.map(nativeName), names.map((n) => feeds[n].id),
      [...outNames.map(nativeName), ...extra]);
    const tensors = ids.map(wrapId);
    const results = tensors.slice(0, outNames.length);
    if (keep) {
      const map = {};
      const weights = this.weights;
      for (const name of Object.keys(weights)) map[name] = [engine.keep(weights[name][0].clone())];
      for (const name of names) map[parseNodeName(name)[0]] = [engine.keep(feeds[name].clone())];
      extra.forEach((name, i) => { map[name] = [engine.keep(tensors[outNames.length + i])]; });
      outNames.forEach((name, i) => {
        const [node, index] = parseNodeName(name);
        if (map[node] == null) map[node] = [];
        map[node][index] = engine.keep(results[i].clone());
      });
      this.clonedTensorsMap = map;
    }
    return results;
  }

  execute(inputs, outputs) {
    this.liveGraph();
    this.initializeOnce(false);
    this.disposeIntermediateTensors();
    const { feeds, outNames, outputNodes } = this.prepare(this.normalizeInputs(inputs), this.normalizeOutputs(outputs));
    const key = `${Object.keys(feeds).map((n) => parseNodeName(n)[0]).sort().join(',')}--` +
      `${outputNodes.map((n) => n.name).sort().join(',')}`;
    let usedNodes = null;
    if (!this.compiled.has(key) || keepIntermediates()) {
      const info = executionSubgraph(feeds, outputNodes, this.weightNameSet, this.graph.initNodes);
      const { missingInputs, dynamicNode, syncInputs } = info;
      if (dynamicNode != null) {
        throw new Error(`This execution contains the node '${dynamicNode.name}', which has ` +
          `the dynamic op '${dynamicNode.op}'. Please use ` +
          'model.executeAsync() instead. Alternatively, to avoid the ' +
          `dynamic ops, specify the inputs [${syncInputs}]`);
      }
      if (missingInputs.length > 0) {
        throw new Error(`Cannot compute the outputs [${outputNodes.map((n) => n.name)}] from the provided inputs ` +
          `[${Object.keys(feeds)}]. Missing the following inputs: [${missingInputs}]`);
      }
      this.compiled.add(key);
      usedNodes = info.usedNodes;
    }
    const result = this.usesCustomOps() ? this.runWithCustomOps(feeds, outNames) : this.run(feeds, outNames, usedNodes);
    return result.length > 1 ? result : result[0];
  }

  // Whether a node's op is registered with tf.registerOp (its nodes stop the native executor).
  usesCustomOps() {
    return Object.values(this.graph.nodes).some((n) => customOps.isRegistered(n.op));
  }

  // execute() of a graph with custom ops: the native executor's run, with each custom op
  // node run in JavaScript where it stops.
  runWithCustomOps(feeds, outNames) {
    const g = this.liveGraph();
    const names = Object.keys(feeds);
    const run = g.startControlFlow(names.map(nativeName), names.map((n) => feeds[n].id), outNames.map(nativeName),
      limitFlag('GRAPH_MAX_CALL_DEPTH'), limitFlag('GRAPH_MAX_LOOP_ITERATIONS'), customOps.registeredOps());
    for (;;) {
      const out = run.resume(1e9);
      if (out != null) return out.map(wrapId);
      const request = run.customRequest();
      if (request != null) customOps.runCustomOp(run, request, this.graph.nodes, false);
    }
  }

  // tfjs's executeAsync. Graphs with control flow, tensor arrays or lists, or dynamic ops (which
  // tfjs runs only here) run in the native control-flow executor (native.NativeGraph's
  // startControlFlow), resumed in slices of a few milliseconds with the event loop let run in
  // between, so timers and I/O go on during a long loop; other graphs run as execute() does.
  // tfjs warns when the execution needed neither control flow nor dynamic ops.
  // tidytensor's extension: `options.signal`, an AbortSignal, ends the execution between slices
  // (rejecting with the signal's reason); the GRAPH_MAX_CALL_DEPTH and GRAPH_MAX_LOOP_ITERATIONS
  // flags bound a model's nesting and loops.
  async executeAsync(inputs, outputs, options) {
    const signal = abortSignalOf(options);
    signal?.throwIfAborted();
    const g = this.liveGraph();
    this.initializeOnce(true);
    this.disposeIntermediateTensors();
    const { feeds, outNames, outputNodes } = this.prepare(this.normalizeInputs(inputs), this.normalizeOutputs(outputs));
    const graph = this.graph;
    const info = executionSubgraph(feeds, outputNodes, this.weightNameSet, graph.initNodes);
    const warn = () => {
      if (info.dynamicNode == null) {
        console.warn('This model execution did not contain any nodes with control flow ' +
          'or dynamic output shapes. You can use model.execute() instead.');
      }
    };
    if (g.controlFlow || info.dynamicNode != null || this.usesCustomOps()) {
      const names = Object.keys(feeds);
      let ids;
      try {
        ids = await this.runControlFlow(g, names, names.map((n) => feeds[n].id), outNames, signal);
      } catch (e) {
        // tfjs warns after running, before it finds outputs missing.
        if (/^Cannot compute the outputs/.test(e.message)) warn();
        throw e;
      }
      warn();
      const result = ids.map(wrapId);
      return result.length > 1 ? result : result[0];
    }
    warn();
    const missing = uncomputable(outputNodes, info.usedNodes, feeds, this.weightNameSet, graph.initNodes, graph.nodes);
    if (missing.length > 0) {
      throw new Error(`Cannot compute the outputs [${missing}] from the provided ` +
        `inputs [${Object.keys(feeds)}]. Consider providing the following inputs: ` +
        `[${info.missingInputs}]. `);
    }
    const result = this.run(feeds, outNames, info.usedNodes);
    return result.length > 1 ? result : result[0];
  }

  // Runs a native control-flow execution slice by slice (SLICE_MS each), yielding to the event
  // loop in between; an abort or the model's dispose() ends it, disposing what it made.
  async runControlFlow(g, names, ids, outNames, signal) {
    const run = g.startControlFlow(names, ids, outNames, limitFlag('GRAPH_MAX_CALL_DEPTH'),
      limitFlag('GRAPH_MAX_LOOP_ITERATIONS'), customOps.registeredOps());
    this.running.add(run);
    try {
      for (;;) {
        const out = run.resume(SLICE_MS);
        if (out != null) return out;
        const request = run.customRequest();
        if (request != null) {
          await customOps.runCustomOp(run, request, this.graph.nodes, true);
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

function tensorInfo(node) {
  return { name: node.name, shape: node.shape, dtype: node.dtype };
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

// Each weight has the shape its Const node declares (value.tensor.tensorShape), when it
// declares one: a manifest that disagrees with the graph is refused, naming the weight.
function checkWeightShapes(topology, weightMap) {
  for (const node of topology.node) {
    if (node.op !== 'Const' || weightMap[node.name] == null) continue;
    const value = node.attr != null ? node.attr.value : null;
    const shape = value != null && value.tensor != null ? value.tensor.tensorShape : null;
    if (shape == null || shape.unknownRank) continue;
    const dims = (shape.dim || []).map((d) => (typeof d.size === 'number' ? d.size : parseInt(d.size, 10)));
    const w = weightMap[node.name].shape;
    if (dims.length !== w.length || dims.some((d, i) => d >= 0 && d !== w[i])) {
      throw new Error(`The weight '${node.name}' has shape [${w}] in the weights manifest, but its Const node ` +
        `declares shape [${dims}]`);
    }
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
