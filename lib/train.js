'use strict';
// tf.train and the optimizer classes, as tfjs's optimizers/*.ts define them. The update rules
// and their state live in the native engine (crates/core/src/train.rs, usable from Rust too);
// these classes keep tfjs's API: minimize, applyGradients, iterations, getWeights/setWeights,
// getConfig/fromConfig, dispose.
const native = require('./native');
const { Tensor, variableOf } = require('./tensor');
const { scalar } = require('./ops/creation');
const { convertToTensor } = require('./convert');
const { variableGrads } = require('./gradients');
const { dispose } = require('./engine');
const { serialization } = require('./internals/serialization');

const EPSILON = 1e-7; // tfjs's backend.epsilon() for float32 backends

// A learning rate as tfjs's update rules compute with it (`-learningRate`): 'fast' is NaN,
// null 0, '0.1' 0.1; the value given is still what getConfig() returns.
const rate = (learningRate) => +learningRate;

// The hyperparameters after the learning rate, checked here so that none reaches the native
// side in a form its converters would refuse with their own text: null and undefined mean the
// default, a boolean is 0 or 1 (tfjs's bool tensor), anything else must be a number (tfjs makes
// a string tensor of 'x' and fails in minimize()).
function hyperparams(className, names, values) {
  return values.map((v, i) => {
    if (v == null || typeof v === 'number') return v;
    if (typeof v === 'boolean') return +v;
    throw new Error(`${names[i]} for ${className} must be a number, but got ${typeof v === 'string' ? `'${v}'` : String(v)}.`);
  });
}

class Optimizer extends serialization.Serializable {
  // kind: the native rule; params: its hyperparameters after the learning rate, in order
  // ([name, value] pairs); flag: useNesterov or centered, read as tfjs reads it (truthiness).
  constructor(kind, learningRate, params = [], flag = false) {
    super();
    const values = hyperparams(this.constructor.name, params.map(([n]) => n), params.map(([, v]) => v));
    // Not enumerable: tfjs's instances show only their hyperparameters and state.
    Object.defineProperty(this, 'native', { value: new native.NativeOptimizer(kind, rate(learningRate), values, !!flag) });
    this.learningRate = learningRate;
  }

  minimize(f, returnCost = false, varList) {
    const { value, grads } = this.computeGradients(f, varList);
    if (varList != null) {
      this.applyGradients(varList.map((v) => ({ name: v.name, tensor: grads[v.name] })));
    } else {
      this.applyGradients(grads);
    }
    dispose(grads);
    if (returnCost) return value;
    value.dispose();
    return null;
  }

  get iterations() {
    return this.native.iterations;
  }

  computeGradients(f, varList) {
    return variableGrads(f, varList);
  }

  // Gradients may be TensorLike, as in tfjs (converted here, disposed after); a name is read
  // as a string ('Cannot find variable 5' when no variable has it).
  applyGradients(variableGradients) {
    const names = Array.isArray(variableGradients) ? variableGradients.map((v) => String(v.name))
      : Object.keys(variableGradients);
    const made = [];
    try {
      const ids = names.map((name, i) => {
        const g = Array.isArray(variableGradients) ? variableGradients[i].tensor : variableGradients[name];
        if (g == null) return null;
        const t = convertToTensor(g, 'gradient', 'applyGradients');
        if (t !== g) made.push(t);
        return t.id;
      });
      this.native.applyGradients(names, ids);
    } finally {
      made.forEach((t) => t.dispose());
    }
  }

  dispose() {
    this.native.dispose();
  }

  async saveIterations() {
    return { name: 'iter', tensor: scalar(this.iterations, 'int32') };
  }

  async getWeights() {
    const state = this.native.weights().map(([name, id]) => ({ name, tensor: variableOf(id) }));
    return [await this.saveIterations()].concat(state);
  }

  async setWeights(weightValues) {
    const iterations = (await weightValues[0].tensor.data())[0];
    const rest = weightValues.slice(1);
    rest.forEach((w, i) => {
      if (!(w.tensor instanceof Tensor)) {
        throw new Error(`setWeights: weightValues[${i + 1}].tensor must be a Tensor, but got ${String(w.tensor)}.`);
      }
    });
    this.native.setWeights(iterations, rest.map((w) => String(w.name)), rest.map((w) => w.tensor.id));
  }
}

// tfjs's `instanceof Optimizer` is duck-typed.
Object.defineProperty(Optimizer, Symbol.hasInstance, {
  value: (o) => o != null && o.minimize != null && o.computeGradients != null && o.applyGradients != null,
});

class SGDOptimizer extends Optimizer {
  static get className() { return 'SGD'; }
  constructor(learningRate) {
    super('sgd', learningRate);
  }
  setLearningRate(learningRate) {
    this.learningRate = learningRate;
    this.native.setLearningRate(rate(learningRate));
  }
  getConfig() { return { learningRate: this.learningRate }; }
  static fromConfig(cls, config) { return new cls(config.learningRate); }
}

class MomentumOptimizer extends Optimizer {
  static get className() { return 'Momentum'; }
  constructor(learningRate, momentum, useNesterov = false) {
    super('momentum', learningRate, [['momentum', momentum]], useNesterov);
    this.momentum = momentum;
    this.useNesterov = useNesterov;
  }
  setLearningRate(learningRate) {
    this.learningRate = learningRate;
    this.native.setLearningRate(rate(learningRate));
  }
  getConfig() { return { learningRate: this.learningRate, momentum: this.momentum, useNesterov: this.useNesterov }; }
  static fromConfig(cls, config) { return new cls(config.learningRate, config.momentum, config.useNesterov); }
}

class AdagradOptimizer extends Optimizer {
  static get className() { return 'Adagrad'; }
  constructor(learningRate, initialAccumulatorValue = 0.1) {
    super('adagrad', learningRate, [['initialAccumulatorValue', initialAccumulatorValue]]);
    this.initialAccumulatorValue = initialAccumulatorValue;
  }
  getConfig() { return { learningRate: this.learningRate, initialAccumulatorValue: this.initialAccumulatorValue }; }
  static fromConfig(cls, config) { return new cls(config.learningRate, config.initialAccumulatorValue); }
}

class AdadeltaOptimizer extends Optimizer {
  static get className() { return 'Adadelta'; }
  constructor(learningRate, rho, epsilon = null) {
    const eps = epsilon == null ? EPSILON : epsilon;
    super('adadelta', learningRate, [['rho', rho], ['epsilon', eps]]);
    this.rho = rho;
    this.epsilon = eps;
  }
  getConfig() { return { learningRate: this.learningRate, rho: this.rho, epsilon: this.epsilon }; }
  static fromConfig(cls, config) { return new cls(config.learningRate, config.rho, config.epsilon); }
}

class AdamOptimizer extends Optimizer {
  static get className() { return 'Adam'; }
  constructor(learningRate, beta1, beta2, epsilon = null) {
    const eps = epsilon == null ? EPSILON : epsilon;
    super('adam', learningRate, [['beta1', beta1], ['beta2', beta2], ['epsilon', eps]]);
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.epsilon = eps;
  }
  getConfig() {
    return { learningRate: this.learningRate, beta1: this.beta1, beta2: this.beta2, epsilon: this.epsilon };
  }
  static fromConfig(cls, config) {
    return new cls(config.learningRate, config.beta1, config.beta2, config.epsilon);
  }
}

class AdamaxOptimizer extends Optimizer {
  static get className() { return 'Adamax'; }
  constructor(learningRate, beta1, beta2, epsilon = null, decay = 0.0) {
    const eps = epsilon == null ? EPSILON : epsilon;
    super('adamax', learningRate, [['beta1', beta1], ['beta2', beta2], ['epsilon', eps], ['decay', decay]]);
    this.beta1 = beta1;
    this.beta2 = beta2;
    this.epsilon = eps;
    this.decay = decay;
  }
  async getWeights() {
    throw new Error('getWeights() is not implemented for Adamax yet.');
  }
  async setWeights() {
    throw new Error('setWeights() is not implemented for Adamax yet.');
  }
  getConfig() {
    return { learningRate: this.learningRate, beta1: this.beta1, beta2: this.beta2, epsilon: this.epsilon, decay: this.decay };
  }
  static fromConfig(cls, config) {
    return new cls(config.learningRate, config.beta1, config.beta2, config.epsilon, config.decay);
  }
}

class RMSPropOptimizer extends Optimizer {
  static get className() { return 'RMSProp'; }
  constructor(learningRate, decay = 0.9, momentum = 0.0, epsilon = null, centered = false) {
    if (learningRate == null) throw new Error('learningRate for RMSPropOptimizer must be defined.');
    // tfjs multiplies the gradients by it as a tensor, which fails at the first step for a string.
    hyperparams('RMSPropOptimizer', ['learningRate'], [learningRate]);
    const eps = epsilon == null ? EPSILON : epsilon;
    super('rmsprop', learningRate, [['decay', decay], ['momentum', momentum], ['epsilon', eps]], centered);
    this.decay = decay;
    this.momentum = momentum;
    this.epsilon = eps;
    this.centered = centered;
  }
  getConfig() {
    return { learningRate: this.learningRate, decay: this.decay, momentum: this.momentum, epsilon: this.epsilon,
      centered: this.centered };
  }
  static fromConfig(cls, config) {
    return new cls(config.learningRate, config.decay, config.momentum, config.epsilon, config.centered);
  }
}

for (const cls of [SGDOptimizer, MomentumOptimizer, AdagradOptimizer, AdadeltaOptimizer, AdamOptimizer,
  AdamaxOptimizer, RMSPropOptimizer]) {
  serialization.registerClass(cls);
}

// tfjs's OptimizerConstructors: the factories of tf.train, with tfjs's defaults.
class OptimizerConstructors {
  static sgd(learningRate) { return new SGDOptimizer(learningRate); }
  static momentum(learningRate, momentum, useNesterov = false) {
    return new MomentumOptimizer(learningRate, momentum, useNesterov);
  }
  static rmsprop(learningRate, decay = 0.9, momentum = 0.0, epsilon = null, centered = false) {
    return new RMSPropOptimizer(learningRate, decay, momentum, epsilon, centered);
  }
  static adam(learningRate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = null) {
    return new AdamOptimizer(learningRate, beta1, beta2, epsilon);
  }
  static adadelta(learningRate = 0.001, rho = 0.95, epsilon = null) {
    return new AdadeltaOptimizer(learningRate, rho, epsilon);
  }
  static adamax(learningRate = 0.002, beta1 = 0.9, beta2 = 0.999, epsilon = null, decay = 0.0) {
    return new AdamaxOptimizer(learningRate, beta1, beta2, epsilon, decay);
  }
  static adagrad(learningRate, initialAccumulatorValue = 0.1) {
    return new AdagradOptimizer(learningRate, initialAccumulatorValue);
  }
}

// tfjs's tf.train is the OptimizerConstructors class itself.
const train = OptimizerConstructors;

module.exports = {
  train, Optimizer, OptimizerConstructors, SGDOptimizer, MomentumOptimizer, AdagradOptimizer,
  AdadeltaOptimizer, AdamOptimizer, AdamaxOptimizer, RMSPropOptimizer,
};
