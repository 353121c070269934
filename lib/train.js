'use strict';
// tf.train and the optimizer classes, as tfjs's optimizers/*.ts define them. The update rules
// and their state live in the native engine (crates/core/src/train.rs, usable from Rust too);
// these classes keep tfjs's API: minimize, applyGradients, iterations, getWeights/setWeights,
// getConfig/fromConfig, dispose.
const native = require('./native');
const { variableOf } = require('./tensor');
const { scalar } = require('./ops/creation');
const { variableGrads } = require('./gradients');
const { dispose } = require('./engine');
const { serialization } = require('./internals');

const EPSILON = 1e-7; // tfjs's backend.epsilon() for float32 backends

class Optimizer extends serialization.Serializable {
  // kind: the native rule; params: its hyperparameters after the learning rate, in order.
  constructor(kind, learningRate, params = [], flag = false) {
    super();
    // Not enumerable: tfjs's instances show only their hyperparameters and state.
    Object.defineProperty(this, 'native', { value: new native.NativeOptimizer(kind, learningRate, params, flag) });
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

  applyGradients(variableGradients) {
    const names = Array.isArray(variableGradients) ? variableGradients.map((v) => v.name)
      : Object.keys(variableGradients);
    const ids = names.map((name, i) => {
      const g = Array.isArray(variableGradients) ? variableGradients[i].tensor : variableGradients[name];
      return g == null ? null : g.id;
    });
    this.native.applyGradients(names, ids);
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
    this.native.setWeights(iterations, rest.map((w) => w.name), rest.map((w) => w.tensor.id));
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
    this.native.setLearningRate(learningRate);
  }
  getConfig() { return { learningRate: this.learningRate }; }
  static fromConfig(cls, config) { return new cls(config.learningRate); }
}

class MomentumOptimizer extends Optimizer {
  static get className() { return 'Momentum'; }
  constructor(learningRate, momentum, useNesterov = false) {
    super('momentum', learningRate, [momentum], useNesterov);
    this.momentum = momentum;
    this.useNesterov = useNesterov;
  }
  setLearningRate(learningRate) {
    this.learningRate = learningRate;
    this.native.setLearningRate(learningRate);
  }
  getConfig() { return { learningRate: this.learningRate, momentum: this.momentum, useNesterov: this.useNesterov }; }
  static fromConfig(cls, config) { return new cls(config.learningRate, config.momentum, config.useNesterov); }
}

class AdagradOptimizer extends Optimizer {
  static get className() { return 'Adagrad'; }
  constructor(learningRate, initialAccumulatorValue = 0.1) {
    super('adagrad', learningRate, [initialAccumulatorValue]);
    this.initialAccumulatorValue = initialAccumulatorValue;
  }
  getConfig() { return { learningRate: this.learningRate, initialAccumulatorValue: this.initialAccumulatorValue }; }
  static fromConfig(cls, config) { return new cls(config.learningRate, config.initialAccumulatorValue); }
}

class AdadeltaOptimizer extends Optimizer {
  static get className() { return 'Adadelta'; }
  constructor(learningRate, rho, epsilon = null) {
    const eps = epsilon == null ? EPSILON : epsilon;
    super('adadelta', learningRate, [rho, eps]);
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
    super('adam', learningRate, [beta1, beta2, eps]);
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
    super('adamax', learningRate, [beta1, beta2, eps, decay]);
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
    const eps = epsilon == null ? EPSILON : epsilon;
    super('rmsprop', learningRate, [decay, momentum, eps], centered);
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
