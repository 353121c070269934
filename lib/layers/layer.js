'use strict';
// tf.layers: the Layer class every tf.layers.* factory returns, SymbolicTensor and tf.input
// for functional models, and the initializer / regularizer / constraint objects that layer
// configs take. A layer's weights and computation are native (crates/layers); this keeps
// tfjs's API: apply (to tensors or symbolic tensors), weights, getWeights/setWeights,
// getConfig, countParams, dispose.
const native = require('../native');
const { Tensor, wrapId, variableOf } = require('../tensor');
const { serialization } = require('../internals');
const { tidy } = require('../engine');
const { convertToTensor, assertShape } = require('../convert');

// ---- initializers, regularizers, constraints --------------------------------------------

// The config objects of tfjs-layers (initializers, regularizers, constraints): classes of
// tfjs's names whose constructors read their arguments as tfjs's do (the same defaults, checks
// and, for a missing argument object, the same TypeError); the native side reads
// `{className, config}` from getConfig().
class ConfigObject extends serialization.Serializable {
  getClassName() {
    return this.constructor.className;
  }

  getConfig() {
    return { ...this };
  }
}

function named(className, init) {
  const cls = { [className]: class extends ConfigObject {
    constructor(args) {
      super();
      init.call(this, args);
    }
  } }[className];
  cls.className = className;
  serialization.registerClass(cls);
  return cls;
}

function checkUnion(values, label, value) {
  if (value != null && values.indexOf(value) < 0) {
    throw new Error(`${value} is not a valid ${label}.  Valid values are ${values} or null/undefined.`);
  }
}

function varianceScaling(args) {
  if (args.scale < 0.0) throw new Error(`scale must be a positive float. Got: ${args.scale}`);
  this.scale = args.scale == null ? 1.0 : args.scale;
  this.mode = args.mode == null ? 'fanIn' : args.mode;
  checkUnion(['fanIn', 'fanOut', 'fanAvg'], 'FanMode', this.mode);
  this.distribution = args.distribution == null ? 'normal' : args.distribution;
  checkUnion(['normal', 'uniform', 'truncatedNormal'], 'Distribution', this.distribution);
  this.seed = args.seed;
}
const preset = (scale, mode, distribution) => function (args) {
  varianceScaling.call(this, { scale, mode, distribution, seed: args == null ? null : args.seed });
};

const I = {
  Zeros: named('Zeros', () => {}),
  Ones: named('Ones', () => {}),
  Constant: named('Constant', function (args) {
    if (typeof args !== 'object') throw new Error(`Expected argument of type ConstantConfig but got ${args}`);
    if (args.value === undefined) throw new Error(`config must have value set but got ${args}`);
    this.value = args.value;
  }),
  RandomUniform: named('RandomUniform', function (args) {
    this.minval = args.minval || -0.05;
    this.maxval = args.maxval || 0.05;
    this.seed = args.seed;
  }),
  RandomNormal: named('RandomNormal', function (args) {
    this.mean = args.mean || 0;
    this.stddev = args.stddev || 0.05;
    this.seed = args.seed;
  }),
  TruncatedNormal: named('TruncatedNormal', function (args) {
    this.mean = args.mean || 0;
    this.stddev = args.stddev || 0.05;
    this.seed = args.seed;
  }),
  Identity: named('Identity', function (args) {
    this.gain = args.gain != null ? args.gain : 1.0;
  }),
  VarianceScaling: named('VarianceScaling', varianceScaling),
  GlorotUniform: named('GlorotUniform', preset(1.0, 'fanAvg', 'uniform')),
  GlorotNormal: named('GlorotNormal', preset(1.0, 'fanAvg', 'normal')),
  HeNormal: named('HeNormal', preset(2.0, 'fanIn', 'normal')),
  HeUniform: named('HeUniform', preset(2.0, 'fanIn', 'uniform')),
  LeCunNormal: named('LeCunNormal', preset(1.0, 'fanIn', 'normal')),
  LeCunUniform: named('LeCunUniform', preset(1.0, 'fanIn', 'uniform')),
  Orthogonal: named('Orthogonal', function (args) {
    this.gain = args.gain == null ? 1 : args.gain;
    this.seed = args.seed;
  }),
};

// `{className, config}` of a config object, as the native side reads it.
const configOf = (o) => JSON.stringify({ className: o.getClassName(), config: o.getConfig() });

// tfjs's `apply` of each kind of config object, run natively (the same code layers run).
// An initializer's values for a weight of `shape` (tfjs's Initializer.apply; tfjs's shape text).
function initialValues(init, shape, dtype) {
  if (!Array.isArray(shape)) throw new Error(`${init.getClassName()}.apply takes a shape (an array of integers), got ${typeof shape}`);
  assertShape(shape);
  return wrapId(native.initializerApply(configOf(init), shape, String(dtype)));
}
for (const cls of Object.values(I)) {
  cls.prototype.apply = function apply(shape, dtype = 'float32') {
    return initialValues(this, shape, dtype);
  };
}
const initializers = {
  constant: (args) => new I.Constant(args),
  glorotNormal: (args) => new I.GlorotNormal(args),
  glorotUniform: (args) => new I.GlorotUniform(args),
  heNormal: (args) => new I.HeNormal(args),
  heUniform: (args) => new I.HeUniform(args),
  identity: (args) => new I.Identity(args),
  leCunNormal: (args) => new I.LeCunNormal(args),
  leCunUniform: (args) => new I.LeCunUniform(args),
  ones: () => new I.Ones(),
  orthogonal: (args) => new I.Orthogonal(args),
  randomNormal: (args) => new I.RandomNormal(args),
  randomUniform: (args) => new I.RandomUniform(args),
  truncatedNormal: (args) => new I.TruncatedNormal(args),
  varianceScaling: (args) => new I.VarianceScaling(args),
  zeros: () => new I.Zeros(),
};

function objectArgs(args) {
  if (args != null && typeof args !== 'object') {
    throw new Error(`Argument to L1L2 regularizer's constructor is expected to be an object, but received: ${args}`);
  }
}
const L1L2 = named('L1L2', function (args) {
  objectArgs(args);
  this.l1 = args == null || args.l1 == null ? 0.01 : args.l1;
  this.l2 = args == null || args.l2 == null ? 0.01 : args.l2;
});

// The penalty of `x`, a [1] tensor (tfjs's Regularizer.apply).
L1L2.prototype.apply = function apply(x) {
  return withTensor(x, 'x', (t) => wrapId(native.regularizerApply(configOf(this), t.id)));
};

const regularizers = {
  l1: (args) => {
    objectArgs(args);
    return new L1L2({ l1: args != null ? args.l1 : null, l2: 0 });
  },
  l2: (args) => {
    objectArgs(args);
    return new L1L2({ l2: args != null ? args.l2 : null, l1: 0 });
  },
  l1l2: (args) => new L1L2(args),
};

const C = {
  MaxNorm: named('MaxNorm', function (args) {
    this.maxValue = args.maxValue != null ? args.maxValue : 2;
    this.axis = args.axis != null ? args.axis : 0;
  }),
  UnitNorm: named('UnitNorm', function (args) {
    this.axis = args.axis != null ? args.axis : 0;
  }),
  NonNeg: named('NonNeg', () => {}),
  MinMaxNorm: named('MinMaxNorm', function (args) {
    this.minValue = args.minValue != null ? args.minValue : 0;
    this.maxValue = args.maxValue != null ? args.maxValue : 1;
    this.rate = args.rate != null ? args.rate : 1;
    this.axis = args.axis != null ? args.axis : 0;
  }),
};

for (const cls of Object.values(C)) {
  // `w` projected by the constraint (tfjs's Constraint.apply).
  cls.prototype.apply = function apply(w) {
    return withTensor(w, 'w', (t) => wrapId(native.constraintApply(configOf(this), t.id)));
  };
}

// Runs `f` on argument `x` of a config object's apply as a tensor (a TensorLike converted as
// tfjs's ops convert it), in a scope: only its result is left.
function withTensor(x, name, f) {
  return tidy(() => f(convertToTensor(x, name, 'apply')));
}

const constraints = {
  maxNorm: (args) => new C.MaxNorm(args),
  minMaxNorm: (args) => new C.MinMaxNorm(args),
  nonNeg: () => new C.NonNeg(),
  unitNorm: (args) => new C.UnitNorm(args),
};

// A layer config as JSON for the native side: config objects as {className, config}, shapes
// and numbers as they are; functions (custom activations ...) are refused clearly.
function configJSON(config) {
  return JSON.stringify(config, (key, v) => {
    if (v != null && typeof v === 'object' && typeof v.getClassName === 'function' && typeof v.getConfig === 'function') {
      return { className: v.getClassName(), config: v.getConfig() };
    }
    if (typeof v === 'function') {
      throw new Error(`tidytensor: the layer option '${key}' must be a name or a tf.* config object; ` +
        'custom JavaScript functions are not supported in layers');
    }
    if (ArrayBuffer.isView(v)) return Array.from(v);
    return v;
  });
}

// ---- symbolic tensors --------------------------------------------------------------------

let nextSymbolicId = 0;

// The output of a layer applied to symbolic inputs: a shape ([null, ...]) and where it comes
// from, for tf.model to wire.
class SymbolicTensor {
  constructor(dtype, shape, sourceLayer, inputs, callArgs, name, outputTensorIndex) {
    this.dtype = dtype;
    this.shape = shape;
    this.sourceLayer = sourceLayer;
    this.inputs = inputs;
    this.callArgs = callArgs;
    this.outputTensorIndex = outputTensorIndex;
    this.id = nextSymbolicId++;
    this.name = name;
    this.originalName = name;
    this.rank = shape.length;
    this.nodeIndex = 0;
    this.tensorIndex = outputTensorIndex || 0;
  }
}

// ---- layers ------------------------------------------------------------------------------

const toList = (x) => (Array.isArray(x) ? x : [x]);

// A layer weight as tfjs's LayerVariable shows it: name, shape, dtype, trainable, read(),
// write(); its value is the engine variable.
class LayerVariable {
  // `originalName`: `layer/weight` before the engine made the name unique (model files use it).
  constructor(variable, originalName) {
    this.val = variable;
    this.id = variable.id;
    this.name = variable.name;
    this.originalName = originalName != null ? originalName : variable.name;
    this.shape = variable.shape;
    this.dtype = variable.dtype;
    this.trainable_ = variable.trainable;
  }

  get trainable() {
    return this.trainable_;
  }

  read() {
    return this.val;
  }

  write(value) {
    this.val.assign(value);
    return this;
  }

  dispose() {
    this.val.dispose();
  }
}

class Layer extends serialization.Serializable {
  // className: tfjs's ('Dense'); config: the tf.layers.* argument.
  // (Models pass no class: their native half is a model, not a layer.)
  constructor(className, config = {}) {
    super();
    this.inboundNodes = [];
    this.outboundNodes = [];
    this.supportsMasking = false;
    if (className == null) return;
    if (typeof className !== 'string') {
      // tfjs's subclasses call super(config): user-defined layers, which tidytensor does not run yet.
      const name = new.target && new.target !== Layer ? `${new.target.name}: ` : '';
      throw new Error(`${name}user-defined tf.layers.Layer subclasses are not supported by tidytensor yet ` +
        '(its layers are the built-in tf.layers.* factories)');
    }
    if (config == null) config = {};
    const plain = typeof config === 'object' && !Array.isArray(config) && !ArrayBuffer.isView(config)
      && !(config instanceof Tensor);
    if (!plain) {
      const what = config instanceof Tensor ? 'a Tensor' : Array.isArray(config) ? 'an Array'
        : ArrayBuffer.isView(config) ? 'a typed array' : `${typeof config} ${String(config)}`;
      throw new Error(`The argument of tf.layers.* (layer ${className}) must be an object of options, got ${what}`);
    }
    Object.defineProperty(this, 'native', { value: new native.NativeLayer(className, configJSON(config)) });
    Object.defineProperty(this, 'layerClassName', { value: this.native.className });
    this.name = this.native.name;
  }

  getClassName() {
    return this.layerClassName;
  }

  get trainable() {
    return this.native.trainable;
  }

  set trainable(v) {
    this.native.trainable = !!v;
  }

  get built() {
    return this.native.built;
  }

  get dtype() {
    return this.native.dtype;
  }

  get batchInputShape() {
    const s = JSON.parse(this.native.batchInputShape);
    return s == null ? undefined : s;
  }

  // The input and output shapes of the first call (one shape, or a list for several).
  get inputShape() {
    return this.shapeOf(0, 'input');
  }

  get outputShape() {
    return this.shapeOf(1, 'output');
  }

  shapeOf(which, what) {
    if (!this.built) {
      throw new Error(`The layer ${this.name} has never been called and thus has no defined ${what} shape.`);
    }
    const s = JSON.parse(this.native.shapes()[which]);
    return s.length === 1 ? s[0] : s;
  }

  // The weights as LayerVariables, each with its original name; `keep(id)` filters.
  layerVariables(keep = () => true) {
    const names = this.native.originalNames();
    return this.native.weights().map((id, i) => [id, names[i]]).filter(([id]) => keep(id))
      .map(([id, name]) => new LayerVariable(variableOf(id), name));
  }

  get weights() {
    return this.layerVariables();
  }

  get trainableWeights() {
    const trainable = new Set(this.native.trainableWeights());
    return this.layerVariables((id) => trainable.has(id));
  }

  get nonTrainableWeights() {
    const trainable = new Set(this.native.trainableWeights());
    return this.layerVariables((id) => !trainable.has(id));
  }

  // tfjs returns the variables themselves: disposing one disposes the weight.
  getWeights(trainableOnly = false) {
    const ids = trainableOnly ? this.native.trainableWeights() : this.native.weights();
    return ids.map(variableOf);
  }

  setWeights(weights) {
    this.native.setWeights(weights.map((w) => w.id));
  }

  countParams() {
    if (!this.built) {
      throw new Error(`You tried to call countParams() on ${this.name}, but the layer is not built yet. ` +
        'Build it first by calling build(batchInputShape).');
    }
    return this.native.countParams();
  }

  build(inputShape) {
    const shapes = Array.isArray(inputShape) && Array.isArray(inputShape[0]) ? inputShape : [inputShape];
    this.native.build(JSON.stringify(shapes));
  }

  computeOutputShape(inputShape) {
    const shapes = Array.isArray(inputShape) && Array.isArray(inputShape[0]) ? inputShape : [inputShape];
    const out = JSON.parse(this.native.computeOutputShape(JSON.stringify(shapes)));
    return out.length === 1 ? out[0] : out;
  }

  // On tensors: the outputs. On symbolic tensors (from tf.input): symbolic outputs that
  // tf.model wires into a graph; the weights are made now, as in tfjs.
  apply(inputs, kwargs = {}) {
    const list = toList(inputs);
    const symbolic = list.filter((x) => x instanceof SymbolicTensor).length;
    if (symbolic > 0) {
      if (symbolic !== list.length) {
        throw new Error('Arguments to apply() must be all SymbolicTensors or all Tensors');
      }
      const out = JSON.parse(this.native.build(JSON.stringify(list.map((s) => s.shape))));
      const node = { layer: this, inputs: list, callArgs: kwargs };
      this.inboundNodes.push(node);
      const made = out.map((shape, i) => new SymbolicTensor(this.dtype, shape, this, list, kwargs, `${this.name}/${this.name}`, i));
      for (const s of made) s.node = node;
      return made.length === 1 ? made[0] : made;
    }
    for (const x of list) {
      if (!(x instanceof Tensor)) {
        throw new Error(`Layer ${this.name} expects Tensors or SymbolicTensors, got ${typeof x}`);
      }
    }
    const ids = this.native.apply(list.map((t) => t.id), !!(kwargs && kwargs.training));
    const outs = ids.map(wrapId);
    return outs.length === 1 ? outs[0] : outs;
  }

  call(inputs, kwargs) {
    return this.apply(inputs, kwargs);
  }

  getConfig() {
    return JSON.parse(this.native.config());
  }

  dispose() {
    const numDisposedVariables = this.native.dispose();
    return { refCountAfterDispose: 0, numDisposedVariables };
  }
}

let inputUid = 0;

// tf.input({shape, batchShape, name, dtype}): the symbolic input of a functional model.
function input(config = {}) {
  if (config.shape == null && config.batchShape == null) {
    throw new Error('Please provide to Input either a `shape` or a `batchShape` argument. Note that `shape` does not include the batch dimension.');
  }
  if (config.shape != null && config.batchShape != null) {
    throw new Error('Please provide either a `shape` or `batchShape` argument to Input, but not both.');
  }
  const batchShape = config.batchShape != null ? config.batchShape : [null, ...config.shape];
  // tfjs names inputs `input1`, `input2` ... (its getUid('input')).
  const name = config.name != null ? config.name : `input${++inputUid}`;
  const layer = new (classOf('InputLayer'))('InputLayer', { batchInputShape: batchShape, name, dtype: config.dtype, sparse: config.sparse });
  return layer.apply(new SymbolicTensor(config.dtype || 'float32', batchShape, null, [], {}, layer.name, 0));
}

// tf.layers.*: tfjs's factory names, each a Layer of one class.
const CLASSES = {
  activation: 'Activation', add: 'Add', average: 'Average', averagePooling1d: 'AveragePooling1D',
  averagePooling2d: 'AveragePooling2D', avgPool1d: 'AveragePooling1D', avgPool2d: 'AveragePooling2D',
  avgPooling1d: 'AveragePooling1D', avgPooling2d: 'AveragePooling2D', batchNormalization: 'BatchNormalization',
  concatenate: 'Concatenate', conv1d: 'Conv1D', conv2d: 'Conv2D', conv2dTranspose: 'Conv2DTranspose',
  dense: 'Dense', depthwiseConv2d: 'DepthwiseConv2D', dropout: 'Dropout', elu: 'ELU', embedding: 'Embedding',
  flatten: 'Flatten', globalAveragePooling1d: 'GlobalAveragePooling1D', globalAveragePooling2d: 'GlobalAveragePooling2D',
  globalMaxPool1d: 'GlobalMaxPooling1D', globalMaxPool2d: 'GlobalMaxPooling2D', globalMaxPooling1d: 'GlobalMaxPooling1D',
  globalMaxPooling2d: 'GlobalMaxPooling2D', gru: 'GRU', inputLayer: 'InputLayer', layerNormalization: 'LayerNormalization',
  leakyReLU: 'LeakyReLU', lstm: 'LSTM', maxPool1d: 'MaxPooling1D', maxPool2d: 'MaxPooling2D', maxPooling1d: 'MaxPooling1D',
  maxPooling2d: 'MaxPooling2D', maximum: 'Maximum', minimum: 'Minimum', multiply: 'Multiply', permute: 'Permute',
  reLU: 'ReLU', repeatVector: 'RepeatVector', reshape: 'Reshape', separableConv2d: 'SeparableConv2D',
  simpleRNN: 'SimpleRNN', softmax: 'Softmax', upSampling2d: 'UpSampling2D', zeroPadding2d: 'ZeroPadding2D',
  conv3d: 'Conv3D', conv3dTranspose: 'Conv3DTranspose', cropping2D: 'Cropping2D', maxPooling3d: 'MaxPooling3D',
  averagePooling3d: 'AveragePooling3D', avgPool3d: 'AveragePooling3D', avgPooling3d: 'AveragePooling3D',
  thresholdedReLU: 'ThresholdedReLU', prelu: 'PReLU', gaussianNoise: 'GaussianNoise', gaussianDropout: 'GaussianDropout',
  alphaDropout: 'AlphaDropout', spatialDropout1d: 'SpatialDropout1D', dot: 'Dot', masking: 'Masking',
  rescaling: 'Rescaling', centerCrop: 'CenterCrop', resizing: 'Resizing', categoryEncoding: 'CategoryEncoding',
  randomWidth: 'RandomWidth',
};

// One subclass per layer class, named as tfjs's (`layer.constructor.name` is 'Dense').
const classes = {};
const classOf = (className) => {
  if (!classes[className]) {
    classes[className] = { [className]: class extends Layer {} }[className];
    classes[className].className = className;
  }
  return classes[className];
};

const layers = { Layer, input };
for (const [name, className] of Object.entries(CLASSES)) {
  const cls = classOf(className);
  layers[name] = (config) => new cls(className, config);
}
if (layers.inputLayer) {
  const make = layers.inputLayer;
  layers.inputLayer = (config) => {
    if (config == null || (config.inputShape == null && config.batchInputShape == null)) {
      throw new Error('An InputLayer should be passed either a `batchInputShape` or an `inputShape`.');
    }
    const c = { ...config };
    if (c.inputShape != null && c.batchInputShape == null) {
      c.batchInputShape = [c.batchSize == null ? null : c.batchSize, ...c.inputShape];
      delete c.inputShape;
    }
    return make(c);
  };
}

const LAYER_CLASSES = new Set(Object.values(CLASSES));

module.exports = {
  Layer, LayerVariable, SymbolicTensor, input, layers, initializers, regularizers, constraints, ConfigObject, toList,
  classOf, LAYER_CLASSES,
};
