'use strict';
// tf.layers: the Layer class every tf.layers.* factory returns, SymbolicTensor and tf.input
// for functional models, and the initializer / regularizer / constraint objects that layer
// configs take. A layer's weights and computation are native (crates/layers); this keeps
// tfjs's API: apply (to tensors or symbolic tensors), weights, getWeights/setWeights,
// getConfig, countParams, dispose.
const native = require('../native');
const { Tensor, wrapId, variableOf } = require('../tensor');
const { serialization } = require('../internals/serialization');
const { tidy, variable } = require('../engine');
const { convertToTensor, assertShape } = require('../convert');
const { zeros } = require('../ops/creation');

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
    // tfjs's recurrent layers take `dropoutFunc` only to make their tests deterministic;
    // the native layers draw their own masks, so the function is dropped.
    if (key === 'dropoutFunc' && typeof v === 'function') return undefined;
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
    // tfjs's names: checked (a layer named 'a b' makes none), then made unique ('x', 'x_1').
    if (name != null) {
      if (!/^[A-Za-z0-9][-A-Za-z0-9._/]*$/.test(name)) throw new Error(`Not a valid tensor name: '${name}'`);
      this.originalName = name;
      this.name = native.uniqueTensorName(name);
    }
    this.rank = shape.length;
    this.nodeIndex = 0;
    this.tensorIndex = outputTensorIndex || 0;
  }
}

// ---- layers ------------------------------------------------------------------------------

const toList = (x) => (Array.isArray(x) ? x : [x]);
const singletonOrArray = (xs) => (xs.length === 1 ? xs[0] : xs);

// tfjs's toSnakeCase (default layer names, model files' keys).
function toSnakeCase(name) {
  const s = name.replace(/(.)([A-Z][a-z0-9]+)/g, '$1_$2').replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
  return s[0] !== '_' ? s : `private${s}`;
}

// tfjs's getUid(prefix): `Scale1`, `Scale2`, ... (a default name is `scale_Scale1`, as in
// tfjs); the counters are the native layers' own.
const uidOf = (prefix) => native.layerUid(prefix);

// tfjs's name scopes: weights made while a layer is applied are named `layer/weight`.
const nameScopes = [];
function scopedName(name) {
  if (!/^[A-Za-z0-9][-A-Za-z0-9._/]*$/.test(name)) throw new Error(`Not a valid tensor name: '${name}'`);
  return nameScopes.length > 0 ? `${nameScopes.join('/')}/${name}` : name;
}
function inNameScope(name, f) {
  nameScopes.push(name);
  try {
    return f();
  } finally {
    nameScopes.pop();
  }
}

// tfjs's LayerVariable: a layer weight (name, shape, dtype, trainable, constraint) over an
// engine variable; read() gives the variable, write() assigns it (then the constraint).
class LayerVariable {
  constructor(val, dtype = 'float32', name = 'Variable', trainable = true, constraint = null) {
    this.dtype = dtype == null ? 'float32' : dtype;
    this.shape = val.shape;
    this.originalName = scopedName(name == null ? 'Variable' : name);
    this.name = native.uniqueTensorName(this.originalName);
    this.trainable_ = trainable;
    this.constraint = constraint;
    this.val = variable(val, this.trainable_, this.name, this.dtype);
    this.id = this.val.id;
  }

  // A LayerVariable over an existing weight of a native layer (`originalName`: `layer/weight`
  // before the engine made the name unique, as model files know it).
  static of(v, originalName) {
    const w = Object.create(LayerVariable.prototype);
    Object.assign(w, {
      val: v, id: v.id, name: v.name, originalName: originalName != null ? originalName : v.name, shape: v.shape,
      dtype: v.dtype, trainable_: v.trainable, constraint: null,
    });
    return w;
  }

  get trainable() {
    return this.trainable_;
  }

  set trainable(trainable) {
    this.trainable_ = trainable;
    this.val.trainable = trainable;
  }

  read() {
    this.assertNotDisposed();
    return this.val;
  }

  write(newVal) {
    this.assertNotDisposed();
    if (this.val.shape.toString() !== newVal.shape.toString()) {
      throw new Error(`Shape mismatch: ${JSON.stringify(this.val.shape)} vs. ${JSON.stringify(newVal.shape)}`);
    }
    if (this.val.id !== newVal.id) {
      this.val.assign(newVal);
      if (this.constraint != null) {
        const projected = this.constraint.apply(this.val);
        this.val.assign(projected);
        projected.dispose();
      }
    }
    return this;
  }

  dispose() {
    this.assertNotDisposed();
    this.val.dispose();
  }

  assertNotDisposed() {
    if (this.val.isDisposed) throw new Error(`LayersVariable ${this.name} is already disposed.`);
  }
}

// tfjs's InputSpec: what a layer expects of its inputs, checked at each apply.
class InputSpec {
  constructor(args) {
    this.dtype = args.dtype;
    this.shape = args.shape;
    this.ndim = args.shape != null ? args.shape.length : args.ndim;
    this.maxNDim = args.maxNDim;
    this.minNDim = args.minNDim;
    this.axes = args.axes || {};
  }
}

// The initializer addWeight gets: an initializer object, or one of tf.initializers' names.
function initializerOf(init) {
  if (typeof init !== 'string') return init;
  const make = initializers[init] || initializers[init[0].toLowerCase() + init.slice(1)];
  if (make == null) throw new Error(`Unknown initializer: ${init}`);
  return make({});
}

// Markers for Layer's constructor: a built-in layer (run by crates/layers) or a model.
const NATIVE = Symbol('native layer');
const MODEL = Symbol('model');
let nextLayerId = 0;

// tf.layers.Layer, as tfjs defines it for subclasses: `constructor(config)`, build, call,
// computeOutputShape, computeMask, getConfig, addWeight, addLoss, apply on tensors and on
// symbolic tensors. A layer defined this way runs its own JavaScript `call`; its tf ops are
// native and recorded on the tape, so its weights train in fit. The built-in layers
// (NativeBackedLayer) and the models (LayersModel) override what they run natively.
class Layer extends serialization.Serializable {
  constructor(args = {}, nativeConfig) {
    super();
    this.id = nextLayerId++;
    this.inboundNodes = [];
    this.outboundNodes = [];
    this.supportsMasking = false;
    if (args === NATIVE) {
      initNative(this, nativeConfig);
      return;
    }
    if (args === MODEL) return;
    if (args == null) args = {};
    this.activityRegularizer = null;
    this.inputSpec = null;
    this._trainableWeights = [];
    this._nonTrainableWeights = [];
    this._losses = [];
    this._updates = [];
    this._built = false;
    this._addedWeightNames = [];
    this._stateful = false;
    this._refCount = null;
    this.fastWeightInitDuringBuild = false;
    let name = args.name;
    if (!name) {
      const prefix = this.getClassName();
      name = `${toSnakeCase(prefix)}_${uidOf(prefix)}`;
    }
    this.name = name;
    this.trainable_ = args.trainable == null ? true : args.trainable;
    if (args.inputShape != null || args.batchInputShape != null) {
      this.batchInputShape = args.batchInputShape != null ? args.batchInputShape
        : [args.batchSize != null ? args.batchSize : null].concat(args.inputShape);
      this.dtype = args.dtype != null ? args.dtype : args.inputDType != null ? args.inputDType : 'float32';
    }
    this.initialWeights = args.weights != null ? args.weights : null;
  }

  // The static `className` of the class (its name, for a class that has none).
  getClassName() {
    const c = this.constructor;
    return c.className != null ? c.className : c.name;
  }

  get built() {
    return this._built;
  }

  set built(built) {
    this._built = built;
  }

  get trainable() {
    return this.trainable_;
  }

  set trainable(trainable) {
    this._trainableWeights.forEach((w) => { w.trainable = trainable; });
    this.trainable_ = trainable;
  }

  get trainableWeights() {
    return this.trainable_ ? this._trainableWeights.filter((w) => w.trainable) : [];
  }

  set trainableWeights(weights) {
    this._trainableWeights = weights;
  }

  get nonTrainableWeights() {
    return this.trainable_ ? this._trainableWeights.filter((w) => !w.trainable).concat(this._nonTrainableWeights)
      : this._trainableWeights.concat(this._nonTrainableWeights);
  }

  set nonTrainableWeights(weights) {
    this._nonTrainableWeights = weights;
  }

  get weights() {
    return this.trainableWeights.concat(this.nonTrainableWeights);
  }

  get losses() {
    return this._losses;
  }

  get updates() {
    return this._updates;
  }

  get stateful() {
    return this._stateful;
  }

  resetStates() {
    if (!this.stateful) throw new Error('Cannot call the resetStates() method of a non-stateful Layer object.');
  }

  // The node of the layer's call `nodeIndex` (tfjs's texts).
  nodeAt(nodeIndex, attrName) {
    if (this.inboundNodes.length === 0) throw new Error(`The layer has never been called and thus has no defined ${attrName}.`);
    if (this.inboundNodes.length <= nodeIndex) {
      throw new Error(`Asked to get ${attrName} at node ${nodeIndex}, but the layer has only ${this.inboundNodes.length} inbound nodes.`);
    }
    return this.inboundNodes[nodeIndex];
  }

  getInputAt(nodeIndex) {
    return singletonOrArray(this.nodeAt(nodeIndex, 'input').inputs);
  }

  getOutputAt(nodeIndex) {
    return singletonOrArray(this.nodeAt(nodeIndex, 'output').outputs);
  }

  get input() {
    if (this.inboundNodes.length > 1) {
      throw new Error(`Layer ${this.name} has multiple inbound nodes, hence the notion of "layer input" is ill-defined. Use \`getInputAt(nodeIndex)\` instead.`);
    }
    if (this.inboundNodes.length === 0) throw new Error(`Layer ${this.name} is not connected, no input to return.`);
    return this.getInputAt(0);
  }

  get output() {
    if (this.inboundNodes.length === 0) throw new Error(`Layer ${this.name} has no inbound nodes.`);
    if (this.inboundNodes.length > 1) {
      throw new Error(`Layer ${this.name} has multiple inbound nodes, hence the notion of "layer output" is ill-defined. Use \`getOutputAt(nodeIndex)\` instead.`);
    }
    return this.getOutputAt(0);
  }

  // The input and output shapes of the layer's calls, when they all agree (tfjs's texts).
  shapeOf(which, what) {
    if (this.inboundNodes.length === 0) {
      throw new Error(`The layer ${this.name} has never been called and thus has no defined ${what} shape.`);
    }
    const shapes = this.inboundNodes.map((n) => JSON.stringify(singletonOrArray(n[which].map((s) => s.shape))));
    if (new Set(shapes).size !== 1) {
      throw new Error(`The layer ${this.name} has multiple inbound nodes with different ${what} shapes. Hence the notion of "${what} shape" is ill-defined for the layer.`);
    }
    return JSON.parse(shapes[0]);
  }

  get inputShape() {
    return this.shapeOf('inputs', 'input');
  }

  get outputShape() {
    return this.shapeOf('outputs', 'output');
  }

  calculateLosses() {
    return this.losses.map((lossFn) => lossFn());
  }

  // tfjs's call hook: called with each call's inputs and kwargs (a model holding a hooked
  // layer runs its graph from JavaScript, so that the hook sees every call).
  setCallHook(callHook) {
    this._callHook = callHook;
  }

  clearCallHook() {
    this._callHook = null;
  }

  invokeCallHook(inputs, kwargs) {
    if (this._callHook != null) this._callHook(inputs, kwargs);
  }

  addLoss(losses) {
    if (losses == null || (Array.isArray(losses) && losses.length === 0)) return;
    this._losses.push(...toList(losses));
  }

  // tfjs's addWeight: the initializer's value (zeros while loading a file), a LayerVariable
  // named `layer/name`, the regularizer kept as a loss.
  addWeight(name, shape, dtype, initializer, regularizer, trainable, constraint, getInitializerFunc) {
    if (this._addedWeightNames.indexOf(name) !== -1) throw new Error(`Duplicate weight name ${name} for layer ${this.name}`);
    this._addedWeightNames.push(name);
    if (dtype == null) dtype = 'float32';
    let init = initializer == null ? 'glorotUniform' : initializer;
    if (this.fastWeightInitDuringBuild) init = getInitializerFunc != null ? getInitializerFunc() : 'zeros';
    const initValue = initializerOf(init).apply(shape, dtype);
    let weight;
    try {
      weight = new LayerVariable(initValue, dtype, name, trainable, constraint);
    } finally {
      initValue.dispose();
    }
    if (regularizer != null) this.addLoss(() => regularizer.apply(weight.read()));
    if (trainable == null || trainable) this._trainableWeights.push(weight);
    else this._nonTrainableWeights.push(weight);
    return weight;
  }

  setFastWeightInitDuringBuild(value) {
    this.fastWeightInitDuringBuild = value;
  }

  build() {
    this.built = true;
  }

  computeOutputShape(inputShape) {
    return inputShape;
  }

  computeMask(inputs, mask) {
    if (!this.supportsMasking) {
      if (mask != null && toList(mask).some((m) => m != null)) {
        throw new TypeError(`Layer ${this.name} does not support masking, but was passed an inputMask.`);
      }
      return null;
    }
    return mask;
  }

  call(inputs) {
    return inputs;
  }

  // tfjs's assertInputCompatibility: the inputs against `inputSpec` (its texts).
  assertInputCompatibility(inputs) {
    if (this.inputSpec == null || this.inputSpec.length === 0) return;
    const list = toList(inputs);
    const specs = toList(this.inputSpec);
    if (list.length !== specs.length) {
      throw new Error(`Layer ${this.name} expects ${specs.length} inputs, but it received ${list.length} input tensors. Input received: ${inputs}`);
    }
    list.forEach((x, i) => {
      const spec = specs[i];
      if (spec == null) return;
      const ndim = x.rank;
      if (spec.ndim != null && ndim !== spec.ndim) {
        throw new Error(`Input ${i} is incompatible with layer ${this.name}: expected ndim=${spec.ndim}, found ndim=${ndim}`);
      }
      if (spec.maxNDim != null && ndim > spec.maxNDim) {
        throw new Error(`Input ${i} is incompatible with layer ${this.name}: expected max_ndim=${spec.maxNDim}, found ndim=${ndim}`);
      }
      if (spec.minNDim != null && ndim < spec.minNDim) {
        throw new Error(`Input ${i} is incompatible with layer ${this.name}: expected min_ndim=${spec.minNDim}, found ndim=${ndim}.`);
      }
      if (spec.dtype != null && x.dtype !== spec.dtype) {
        throw new Error(`Input ${i} is incompatible with layer ${this.name} : expected dtype=${spec.dtype}, found dtype=${x.dtype}.`);
      }
      for (const key of Object.keys(spec.axes)) {
        const axis = Number(key);
        const value = spec.axes[key];
        const at = axis >= 0 ? x.shape[axis] : x.shape[x.shape.length + axis];
        if (value != null && [value, null].indexOf(at) === -1) {
          throw new Error(`Input ${i} is incompatible with layer ${this.name}: expected axis ${axis} of input shape to have value ${value} but got shape ${x.shape}.`);
        }
      }
      if (spec.shape != null) {
        spec.shape.forEach((d, k) => {
          if (d != null && x.shape[k] != null && x.shape[k] !== d) {
            throw new Error(`Input ${i} is incompatible with layer ${this.name}: expected shape=${spec.shape}, found shape=${x.shape}.`);
          }
        });
      }
    });
  }

  // tfjs's apply: builds the layer on the first call; on tensors, runs `call`; on symbolic
  // tensors, records the call (a node) and gives symbolic outputs of computeOutputShape.
  apply(inputs, kwargs) {
    kwargs = kwargs || {};
    this.assertNotDisposed();
    const list = toList(inputs);
    const symbolic = list.filter((x) => x instanceof SymbolicTensor).length;
    if (symbolic !== 0 && symbolic !== list.length) throw new Error('Arguments to apply() must be all SymbolicTensors or all Tensors');
    if (symbolic === 0) {
      for (const x of list) {
        if (!(x instanceof Tensor)) throw new Error(`Layer ${this.name} expects Tensors or SymbolicTensors, got ${typeof x}`);
      }
    }
    return inNameScope(this.name, () => {
      if (!this.built) {
        this.assertInputCompatibility(inputs);
        this.build(singletonOrArray(list.map((x) => x.shape)));
        this.built = true;
        if (this.initialWeights) this.setWeights(this.initialWeights);
        if (this._refCount === null && symbolic === 0) this._refCount = 1;
      }
      this.assertInputCompatibility(inputs);
      if (symbolic === 0) {
        this.invokeCallHook(inputs, kwargs);
        const outs = toList(this.call(inputs, kwargs)).map((x) => (list.indexOf(x) !== -1 ? x.clone() : x));
        return singletonOrArray(outs);
      }
      const outputShape = this.computeOutputShape(singletonOrArray(list.map((x) => x.shape)));
      const shapes = outputShape != null && outputShape.length > 0 && Array.isArray(outputShape[0]) ? outputShape : [outputShape];
      const made = symbolicOutputs(this, list, kwargs, shapes, list[0].dtype);
      this._refCount = (this._refCount || 0) + 1;
      return made.length === 1 && !Array.isArray(outputShape[0]) ? made[0] : made;
    });
  }

  countParams() {
    if (!this.built) {
      throw new Error(`You tried to call countParams() on ${this.name}, but the layer is not built yet. ` +
        'Build it first by calling build(batchInputShape).');
    }
    return this.weights.reduce((n, w) => n + w.shape.reduce((a, b) => a * b, 1), 0);
  }

  getWeights(trainableOnly = false) {
    return (trainableOnly ? this.trainableWeights : this.weights).map((w) => w.read());
  }

  setWeights(weights) {
    const params = this.weights;
    if (params.length !== weights.length) {
      throw new Error(`You called setWeights(weights) on layer "${this.name}" with a weight list of length ${weights.length}, ` +
        `but the layer was expecting ${params.length} weights. Provided weights: ${weights}...`);
    }
    params.forEach((p, i) => {
      if (p.shape.toString() !== weights[i].shape.toString()) {
        throw new Error(`Layer weight shape ${p.shape} not compatible with provided weight shape ${weights[i].shape}`);
      }
    });
    params.forEach((p, i) => p.write(weights[i]));
  }

  getConfig() {
    const config = { name: this.name, trainable: this.trainable };
    if (this.batchInputShape != null) config.batchInputShape = this.batchInputShape;
    if (this.dtype != null) config.dtype = this.dtype;
    return config;
  }

  assertNotDisposed() {
    if (this._refCount === 0) throw new Error(`Layer '${this.name}' is already disposed.`);
  }

  dispose() {
    if (!this.built) throw new Error(`Cannot dispose Layer ${this.name} because it has not been built yet.`);
    if (this._refCount === null) throw new Error(`Cannot dispose Layer ${this.name} because it has not been used yet.`);
    this.assertNotDisposed();
    let numDisposedVariables = 0;
    if (--this._refCount === 0) {
      const weights = this.weights;
      weights.forEach((w) => w.dispose());
      numDisposedVariables = weights.length;
    }
    return { refCountAfterDispose: this._refCount, numDisposedVariables };
  }
}

// One call of a layer on symbolic tensors: what tf.model wires (tfjs's Node; its field names
// are read as getters).
class Node {
  constructor(layer, inputs, callArgs) {
    this.layer = layer;
    this.inputs = inputs;
    this.callArgs = callArgs;
    this.outputs = [];
  }

  get outboundLayer() {
    return this.layer;
  }

  get inboundLayers() {
    return this.inputs.map((s) => s.sourceLayer);
  }

  get nodeIndices() {
    return this.inputs.map((s) => s.nodeIndex);
  }

  get tensorIndices() {
    return this.inputs.map((s) => s.tensorIndex);
  }

  // An input layer's node has no inputs; tfjs lists its tensor as both input and output.
  get inputTensors() {
    return this.inputs.length === 0 ? this.outputs : this.inputs;
  }

  get outputTensors() {
    return this.outputs;
  }

  get inputMasks() {
    return this.inputTensors.map(() => null);
  }

  get outputMasks() {
    return this.outputs.map(() => null);
  }

  // (An input layer's node lists its one shape, as tfjs's InputLayer makes it.)
  get inputShapes() {
    const shapes = this.inputTensors.map((s) => s.shape);
    return this.inputs.length === 0 ? shapes : singletonOrArray(shapes);
  }

  get outputShapes() {
    const shapes = this.outputs.map((s) => s.shape);
    return this.inputs.length === 0 ? shapes : singletonOrArray(shapes);
  }
}

// The symbolic outputs of `layer` called on symbolic `inputs`, with the call recorded as a
// node of the layer (what tf.model wires).
function symbolicOutputs(layer, inputs, kwargs, shapes, dtype) {
  warnOnIncompatibleInputShape(layer, inputs[0].shape);
  const node = new Node(layer, inputs, kwargs);
  layer.inboundNodes.push(node);
  for (const x of inputs) if (x.sourceLayer != null) x.sourceLayer.outboundNodes.push(node);
  node.outputs = shapes.map((shape, i) => {
    const s = new SymbolicTensor(dtype || 'float32', shape, layer, inputs, kwargs, `${layer.name}/${layer.name}`, i);
    s.node = node;
    s.nodeIndex = layer.inboundNodes.length - 1;
    return s;
  });
  return node.outputs;
}

// tfjs's warning when a layer made for one input shape is called on another.
function warnOnIncompatibleInputShape(layer, inputShape) {
  const want = layer.batchInputShape;
  if (want == null || inputShape == null) return;
  if (inputShape.length !== want.length) {
    console.warn(`The rank of the input tensor provided (shape: ${JSON.stringify(inputShape)}) does not match that of the batchInputShape (${JSON.stringify(want)}) of the layer ${layer.name}`);
  } else if (want.some((d, i) => d != null && inputShape[i] != null && inputShape[i] !== d)) {
    console.warn(`The shape of the input tensor (${JSON.stringify(inputShape)}) does not match the expectation of layer ${layer.name}: ${JSON.stringify(want)}`);
  }
}

// A built-in layer: config, weights and computation in crates/layers (`this.native`).
function initNative(layer, { className, config }) {
  if (config == null) config = {};
  const plain = typeof config === 'object' && !Array.isArray(config) && !ArrayBuffer.isView(config)
    && !(config instanceof Tensor);
  if (!plain) {
    const what = config instanceof Tensor ? 'a Tensor' : Array.isArray(config) ? 'an Array'
      : ArrayBuffer.isView(config) ? 'a typed array' : `${typeof config} ${String(config)}`;
    throw new Error(`The argument of tf.layers.* (layer ${className}) must be an object of options, got ${what}`);
  }
  Object.defineProperty(layer, 'native', { value: new native.NativeLayer(className, configJSON(config)) });
  Object.defineProperty(layer, 'layerClassName', { value: layer.native.className });
  layer.name = layer.native.name;
  // tfjs's layers keep their options as fields (`dense.units`, `lstm.returnSequences`,
  // `bidirectional.mergeMode`): the plain ones read from the config.
  const plainValue = (v) => v == null || typeof v !== 'object' || (Array.isArray(v) && v.every((x) => x == null || typeof x !== 'object'));
  for (const [key, value] of Object.entries(JSON.parse(layer.native.config()))) {
    if (!(key in layer) && plainValue(value)) {
      Object.defineProperty(layer, key, { get: () => JSON.parse(layer.native.config())[key], configurable: true });
    }
  }
}

class NativeBackedLayer extends Layer {
  constructor(config) {
    super(NATIVE, { className: new.target.className, config });
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

  set built(v) {}

  get dtype() {
    return this.native.dtype;
  }

  get batchInputShape() {
    const s = JSON.parse(this.native.batchInputShape);
    return s == null ? undefined : s;
  }

  // The input and output shapes of the layer's symbolic calls (tfjs's: an error when they
  // differ), else of its first call.
  get inputShape() {
    return this.inboundNodes.length > 0 ? this.shapeOf('inputs', 'input') : this.nativeShapes(0, 'input');
  }

  get outputShape() {
    return this.inboundNodes.length > 0 ? this.shapeOf('outputs', 'output') : this.nativeShapes(1, 'output');
  }

  nativeShapes(which, what) {
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
      .map(([id, name]) => LayerVariable.of(variableOf(id), name));
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

  get losses() {
    return [];
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
    // tfjs's recurrent layers take initial states as kwargs.initialState: they follow the
    // input, as in tfjs's symbolic calls.
    if (kwargs != null && kwargs.initialState != null) {
      if (Array.isArray(inputs)) {
        throw new Error('When inputs is an array, neither initialState or constants should be provided');
      }
      const { initialState, ...rest } = kwargs;
      return this.apply([inputs, ...toList(initialState)], rest);
    }
    const list = toList(inputs);
    const symbolic = list.filter((x) => x instanceof SymbolicTensor).length;
    if (symbolic > 0) {
      if (symbolic !== list.length) {
        throw new Error('Arguments to apply() must be all SymbolicTensors or all Tensors');
      }
      this.assertNotDisposed();
      const out = JSON.parse(this.native.build(JSON.stringify(list.map((s) => s.shape))));
      const made = symbolicOutputs(this, list, kwargs, out, this.dtype);
      this._refCount = (this._refCount == null ? 0 : this._refCount) + 1;
      return made.length === 1 ? made[0] : made;
    }
    for (const x of list) {
      if (!(x instanceof Tensor)) {
        throw new Error(`Layer ${this.name} expects Tensors or SymbolicTensors, got ${typeof x}`);
      }
    }
    this.assertNotDisposed();
    if (this._refCount == null) this._refCount = 1;
    this.invokeCallHook(inputs, kwargs);
    // tfjs's kwargs.mask: one Tensor (the first input's mask), read by the recurrent layers; a
    // list (tfjs's nested-model runs give one to layers of several inputs) stands for its first.
    let mask = kwargs != null ? kwargs.mask : null;
    if (Array.isArray(mask)) mask = mask[0];
    if (mask != null && !(mask instanceof Tensor)) {
      throw new Error(`Layer ${this.name} expects its mask to be a Tensor, got ${typeof mask}`);
    }
    const ids = this.native.apply(list.map((t) => t.id), !!(kwargs && kwargs.training), mask != null ? mask.id : null);
    const outs = ids.map(wrapId);
    return outs.length === 1 ? outs[0] : outs;
  }

  // tfjs's supportsMasking: the native layer's (Layer's constructor assigns false, ignored).
  get supportsMasking() {
    return this.native != null && this.native.supportsMasking;
  }

  set supportsMasking(v) {}

  // tfjs's computeMask(inputs, mask): tensors in, a mask (or null) or one per output out. A mask
  // given back is the same Tensor object; new masks are new tensors.
  computeMask(inputs, mask) {
    const list = toList(inputs);
    const merge = MERGE_CLASSES[this.getClassName()];
    if (merge != null && mask != null) {
      if (!Array.isArray(mask)) throw new Error(merge.mask);
      if (!Array.isArray(inputs)) throw new Error(merge.inputs);
    }
    const masks = mask == null ? [] : toList(mask);
    for (const x of list.concat(masks.filter((m) => m != null))) {
      if (!(x instanceof Tensor)) throw new Error(`computeMask() of layer ${this.name} expects Tensors, got ${typeof x}`);
    }
    let ids;
    try {
      ids = this.native.computeMask(list.map((t) => t.id), masks.map((m) => (m == null ? null : m.id)));
    } catch (e) {
      // tfjs throws a TypeError when a layer that does not support masking is given a mask.
      if (/does not support masking/.test(e.message)) throw new TypeError(e.message, { cause: e });
      throw e;
    }
    if (ids.length === 0) return mask;
    const given = new Map(masks.filter((m) => m != null).map((m) => [m.id, m]));
    const out = ids.map((id) => (id == null ? null : given.has(id) ? given.get(id) : wrapId(id)));
    return out.length === 1 ? out[0] : out;
  }

  call(inputs, kwargs) {
    return this.apply(inputs, kwargs);
  }

  getConfig() {
    return JSON.parse(this.native.config());
  }

  get stateful() {
    return this.native.stateful;
  }

  // tfjs's RNN.getInitialState(inputs): zeros of [batch, units] for each of a built-in
  // recurrent layer's states.
  getInitialState(inputs) {
    const states = { SimpleRNN: 1, GRU: 1, LSTM: 2 }[this.getClassName()];
    if (states == null) throw new Error(`getInitialState is not a method of layer ${this.name} (${this.getClassName()})`);
    return Array.from({ length: states }, () => zeros([inputs.shape[0], this.getConfig().units]));
  }

  // tfjs's resetStates(states?): a stateful recurrent layer's states set to zeros, or to
  // copies of `states` (a tensor or a list).
  resetStates(states) {
    if (states != null) {
      const list = toList(states);
      for (const s of list) {
        if (!(s instanceof Tensor)) throw new Error(`resetStates() of layer ${this.name} expects Tensors, got ${typeof s}`);
      }
      this.native.resetStates(list.map((t) => t.id));
    } else {
      this.native.resetStates(null);
    }
  }

  // tfjs's Layer.dispose: counted once per symbolic call (and once for the first call on
  // tensors); the weights go when the count reaches 0, and a second dispose is an error. A
  // layer never built or never called frees what it has (tfjs throws, leaving the weights of
  // a layer built by build() allocated).
  dispose() {
    this.assertNotDisposed();
    if (this._refCount == null) this._refCount = 1;
    let numDisposedVariables = 0;
    if (--this._refCount === 0) numDisposedVariables = this.native.dispose();
    return { refCountAfterDispose: this._refCount, numDisposedVariables };
  }
}

// tfjs's merge layers check that computeMask gets lists (their texts).
const MERGE_TEXTS = { mask: '`mask` should be an Array', inputs: '`inputs` should be an Array' };
const MERGE_CLASSES = {
  Add: MERGE_TEXTS, Multiply: MERGE_TEXTS, Average: MERGE_TEXTS, Maximum: MERGE_TEXTS, Minimum: MERGE_TEXTS,
  Concatenate: { mask: '`mask` should be an array for Concatenate', inputs: '`inputs` should be an array for Concatenate' },
};

// tf.input({shape, batchShape, name, dtype}): the symbolic input of a functional model.
function input(config = {}) {
  if (config.shape == null && config.batchShape == null) {
    throw new Error('Please provide to Input either a `shape` or a `batchShape` argument. Note that `shape` does not include the batch dimension.');
  }
  if (config.shape != null && config.batchShape != null) {
    throw new Error('Please provide either a `shape` or `batchShape` argument to Input, but not both.');
  }
  const batchShape = config.batchShape != null ? config.batchShape : [null, ...config.shape];
  const layer = new InputLayer({ batchInputShape: batchShape, name: config.name, dtype: config.dtype, sparse: config.sparse });
  return layer.inboundNodes[0].outputs[0];
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
  rnn: 'RNN', simpleRNNCell: 'SimpleRNNCell', lstmCell: 'LSTMCell', gruCell: 'GRUCell',
  stackedRNNCells: 'StackedRNNCells', bidirectional: 'Bidirectional', timeDistributed: 'TimeDistributed',
  convLstm2d: 'ConvLSTM2D', convLstm2dCell: 'ConvLSTM2DCell',
};

// One subclass per layer class, named as tfjs's (`layer.constructor.name` is 'Dense').
const classes = {};
const classOf = (className) => {
  if (!classes[className]) {
    classes[className] = { [className]: class extends NativeBackedLayer {} }[className];
    classes[className].className = className;
  }
  return classes[className];
};

// The input layer of a model (tfjs's InputLayer): made with its one node, whose symbolic tensor
// is the model's input; not trainable, built at once, never applied.
class InputLayer extends NativeBackedLayer {
  constructor(args) {
    if (args == null) args = {};
    if (args.inputShape != null && args.batchInputShape != null) {
      throw new Error('Only provide the inputShape OR batchInputShape argument to inputLayer, not both at the same time.');
    }
    let batchInputShape = args.batchInputShape;
    if (batchInputShape == null) {
      if (args.inputShape == null) throw new Error('An InputLayer should be passed either a `batchInputShape` or an `inputShape`.');
      batchInputShape = [args.batchSize == null ? null : args.batchSize].concat(args.inputShape);
    } else if (args.batchSize != null) {
      throw new Error('Cannot specify batchSize if batchInputShape is specified when creating an InputLayer.');
    }
    // tfjs names input layers `input1`, `input2` ... (its getUid('input')).
    const name = args.name != null ? args.name : native.layerUid('input');
    super({ batchInputShape, name, dtype: args.dtype, sparse: args.sparse });
    this.native.build(JSON.stringify([batchInputShape]));
    this.native.trainable = false;
    const t = new SymbolicTensor(this.dtype, batchInputShape, this, [], {}, this.name, 0);
    const node = new Node(this, [], {});
    node.outputs = [t];
    t.node = node;
    this.inboundNodes.push(node);
  }

  get sparse() {
    return !!this.getConfig().sparse;
  }

  // tfjs's InputLayer checks its inputs against its shape.
  get inputSpec() {
    return [new InputSpec({ shape: this.batchInputShape })];
  }

  set inputSpec(v) {}

  apply() {
    throw new Error(`Cannot pass any input to an InputLayer's apply() method. InputLayer name: ${this.name}`);
  }

  dispose() {
    return { refCountAfterDispose: null, numDisposedVariables: 0 };
  }
}
InputLayer.className = 'InputLayer';
classes.InputLayer = InputLayer;

const layers = { Layer, input };
for (const [name, className] of Object.entries(CLASSES)) {
  const cls = classOf(className);
  // Named as tfjs's factories are (libraries read `tf.layers.lstm.name`).
  layers[name] = { [name]: (config) => new cls(config) }[name];
}

const LAYER_CLASSES = new Set(Object.values(CLASSES));

module.exports = {
  Layer, NativeBackedLayer, LayerVariable, InputSpec, SymbolicTensor, input, layers, initializers, regularizers,
  constraints, ConfigObject, toList, singletonOrArray, toSnakeCase, symbolicOutputs, classOf, LAYER_CLASSES, MODEL,
};
