'use strict';
// tf.RNN and tf.layers.RNNCell for cells written in JavaScript: the time loop calls the cell's
// own `call([x_t, ...states])` at each step (tfjs's RNN and its backend rnn()). Recurrent
// layers over built-in cells (simpleRNN, lstm, gru, rnn over their cells) are one native loop
// instead (crates/layers); tf.layers.rnn picks this class only when a cell is a JavaScript one.
const { tidy, keep, dispose } = require('../engine');
const { serialization } = require('../internals/serialization');
const { Layer, NativeBackedLayer, InputSpec, SymbolicTensor, toList, LAYER_CLASSES } = require('./layer');

// The ops this file composes (the families index.js puts on tf).
const ops = Object.assign({}, require('../ops/creation'), require('../ops/elementwise'), require('../ops/layout'));

// tf.layers.RNNCell: the base class of cells written in JavaScript (`stateSize`, and a `call`
// from [input, ...states] to [output, ...newStates]).
class RNNCell extends Layer {}
RNNCell.className = 'RNNCell';

const sizes = (cell) => (Array.isArray(cell.stateSize) ? cell.stateSize : [cell.stateSize]);

// tfjs's backend rnn(): the step function over the time axis (goBackwards: from the end;
// `mask` [batch, time]: a masked step keeps the previous output and states). Returns the last
// output, the stacked outputs (when `perStep`) and the last states.
function rnnLoop(step, inputs, initialStates, goBackwards, mask, perStep) {
  return tidy(() => {
    const ndim = inputs.rank;
    if (ndim < 3) throw new Error(`Input should be at least 3D, but is ${ndim}D.`);
    const axes = [1, 0, ...Array.from({ length: ndim - 2 }, (_, i) => i + 2)];
    let x = ops.transpose(inputs, axes);
    let m = null;
    if (mask != null) {
      m = ops.cast(ops.cast(mask, 'bool'), 'float32');
      if (m.rank === ndim - 1) m = ops.expandDims(m, -1);
      m = ops.transpose(m, axes);
    }
    if (goBackwards) {
      x = ops.reverse(x, 0);
      if (m != null) m = ops.reverse(m, 0);
    }
    const steps = ops.unstack(x);
    const stepMasks = m != null ? ops.unstack(m) : null;
    const perStepOutputs = [];
    let lastOutput;
    let states = initialStates;
    for (let t = 0; t < steps.length; t++) {
      const [out, next] = tidy(() => step(steps[t], states));
      if (stepMasks == null) {
        lastOutput = out;
        states = next;
      } else {
        const stepMask = stepMasks[t];
        const keepMask = ops.sub(ops.onesLike(stepMask), stepMask);
        lastOutput = ops.add(ops.mul(out, stepMask), ops.mul(states[0], keepMask));
        states = states.map((s, i) => ops.add(ops.mul(next[i], stepMask), ops.mul(s, keepMask)));
      }
      if (perStep) perStepOutputs.push(lastOutput);
    }
    const outputs = perStep ? ops.stack(perStepOutputs, 1) : null;
    return [lastOutput, outputs, states];
  });
}

// tf.RNN: a recurrent layer over any cell (a JavaScript one here; see the file's comment).
class RNN extends Layer {
  constructor(args) {
    super(args);
    if (args.cell == null) throw new Error('cell property is missing for the constructor of RNN.');
    if (Array.isArray(args.cell)) {
      throw new Error('tidytensor runs a list of cells (StackedRNNCells) natively only: its cells must be built-in ones');
    }
    if (args.cell.stateSize == null) {
      throw new Error('The RNN cell should have an attribute `stateSize` (tuple of integers, one integer per RNN state).');
    }
    this.cell = args.cell;
    this.returnSequences = args.returnSequences == null ? false : args.returnSequences;
    this.returnState = args.returnState == null ? false : args.returnState;
    this.goBackwards = args.goBackwards == null ? false : args.goBackwards;
    this._stateful = args.stateful == null ? false : args.stateful;
    this.unroll = args.unroll == null ? false : args.unroll;
    this.supportsMasking = true;
    this.inputSpec = [new InputSpec({ ndim: 3 })];
    this.states_ = null;
    this.keptStates = [];
  }

  computeOutputShape(inputShape) {
    if (Array.isArray(inputShape[0])) inputShape = inputShape[0];
    const stateSize = sizes(this.cell);
    const outputShape = this.returnSequences ? [inputShape[0], inputShape[1], stateSize[0]] : [inputShape[0], stateSize[0]];
    return this.returnState ? [outputShape, ...stateSize.map((d) => [inputShape[0], d])] : outputShape;
  }

  computeMask(inputs, mask) {
    if (Array.isArray(mask)) mask = mask[0];
    const outputMask = this.returnSequences ? mask : null;
    return this.returnState ? [outputMask, ...sizes(this.cell).map(() => null)] : outputMask;
  }

  get states() {
    return this.states_ == null ? sizes(this.cell).map(() => null) : this.states_;
  }

  set states(s) {
    this.states_ = s;
  }

  build(inputShape) {
    if (Array.isArray(inputShape[0])) inputShape = inputShape[0];
    const batchSize = this.stateful ? inputShape[0] : null;
    this.inputSpec[0] = new InputSpec({ shape: [batchSize, null, ...inputShape.slice(2)] });
    const stepShape = [inputShape[0], ...inputShape.slice(2)];
    if (this.stateSpec != null) {
      const given = this.stateSpec.map((spec) => spec.shape[spec.shape.length - 1]);
      if (given.toString() !== sizes(this.cell).toString()) {
        throw new Error(`An initialState was passed that is not compatible with cell.stateSize. Received stateSpec=${this.stateSpec}; However cell.stateSize is ${this.cell.stateSize}`);
      }
    }
    if (!this.cell.built) {
      this.cell.build(stepShape);
      this.cell.built = true;
    }
    if (this.stateful) this.resetStates();
    this.built = true;
  }

  // tfjs's resetStates: zeros (states of the batch size the layer was built for), or the
  // given values; the old states are disposed (or kept for a training step's backward pass).
  resetStates(states, training = false) {
    if (!this.stateful) throw new Error('Cannot call resetStates() on an RNN Layer that is not stateful.');
    const batchSize = this.inputSpec[0].shape == null ? null : this.inputSpec[0].shape[0];
    if (batchSize == null) {
      throw new Error('If an RNN is stateful, it needs to know its batch size. Specify the batch size of your input tensors: \n' +
        '- If using a Sequential model, specify the batch size by passing a `batchInputShape` option to your first layer.\n' +
        '- If using the functional API, specify the batch size by passing a `batchShape` option to your Input layer.');
    }
    const zeros = () => sizes(this.cell).map((d) => keep(ops.zeros([batchSize, d])));
    if (this.states_ == null) {
      this.states_ = zeros();
    } else if (states == null) {
      dispose(this.states_);
      dispose(this.keptStates.flat());
      this.keptStates = [];
      this.states_ = zeros();
    } else {
      const list = toList(states);
      if (list.length !== this.states_.length) {
        throw new Error(`Layer ${this.name} expects ${this.states_.length} state(s), but it received ${list.length} state value(s). Input received: ${states}`);
      }
      list.forEach((value, i) => {
        const expected = [batchSize, sizes(this.cell)[i]];
        if (value.shape.toString() !== expected.toString()) {
          throw new Error(`State ${i} is incompatible with layer ${this.name}: expected shape=${expected}, received shape=${value.shape}`);
        }
      });
      if (training) this.keptStates.push(this.states_.slice());
      else dispose(this.states_);
      this.states_ = list.map((s) => keep(s.clone()));
    }
  }

  apply(inputs, kwargs) {
    kwargs = kwargs == null ? {} : kwargs;
    // [x, ...initialStates] as one list, or initialState in kwargs.
    if (Array.isArray(inputs) && inputs.length > 1 && kwargs.initialState == null) {
      kwargs = { ...kwargs, initialState: inputs.slice(1) };
      inputs = inputs[0];
    }
    // tfjs checks the initial states' sizes against the cell's when it builds.
    if (kwargs.initialState != null) this.stateSpec = toList(kwargs.initialState).map((s) => new InputSpec({ shape: s.shape }));
    if (kwargs.initialState != null && toList(kwargs.initialState)[0] instanceof SymbolicTensor) {
      const full = [toList(inputs)[0], ...toList(kwargs.initialState)];
      const rest = { ...kwargs };
      delete rest.initialState;
      const saved = this.inputSpec;
      this.inputSpec = null;
      try {
        return super.apply(full, rest);
      } finally {
        this.inputSpec = saved;
      }
    }
    return super.apply(inputs, kwargs);
  }

  call(inputs, kwargs) {
    return tidy(() => {
      const list = toList(inputs);
      const x = list[0];
      let initialState = kwargs.initialState != null ? toList(kwargs.initialState)
        : list.length > 1 ? list.slice(1) : null;
      if (initialState == null) initialState = this.stateful ? this.states_ : this.getInitialState(x);
      const count = sizes(this.cell).length;
      if (initialState.length !== count) {
        throw new Error(`RNN Layer has ${count} state(s) but was passed ${initialState.length} initial state(s).`);
      }
      if (this.unroll) console.warn('Ignoring unroll = true for RNN layer, due to imperative backend.');
      const cellKwargs = { training: kwargs.training };
      const step = (input, states) => {
        const outs = toList(this.cell.call([input, ...states], cellKwargs));
        return [outs[0], outs.slice(1)];
      };
      const [last, outputs, states] = rnnLoop(step, x, initialState, this.goBackwards, kwargs.mask, this.returnSequences);
      if (this.stateful) this.resetStates(states, kwargs.training);
      const output = this.returnSequences ? outputs : last;
      return this.returnState ? [output, ...states] : output;
    });
  }

  // Zeros of [batch, size] for each state.
  getInitialState(x) {
    return sizes(this.cell).map((d) => ops.zeros([x.shape[0], d]));
  }

  get trainableWeights() {
    return this.trainable ? this.cell.trainableWeights : [];
  }

  get nonTrainableWeights() {
    return this.trainable ? this.cell.nonTrainableWeights : this.cell.weights;
  }

  setFastWeightInitDuringBuild(value) {
    super.setFastWeightInitDuringBuild(value);
    if (this.cell != null) this.cell.setFastWeightInitDuringBuild(value);
  }

  getConfig() {
    const config = {
      ...super.getConfig(),
      returnSequences: this.returnSequences,
      returnState: this.returnState,
      goBackwards: this.goBackwards,
      stateful: this.stateful,
      unroll: this.unroll,
    };
    config.cell = { className: this.cell.getClassName(), config: this.cell.getConfig() };
    return config;
  }

  // A cell given as {className, config} (a model file) is made from its registered class.
  static fromConfig(cls, config) {
    return new cls({ ...config, cell: layerFrom(config.cell) });
  }

  dispose() {
    const result = super.dispose();
    if (result.refCountAfterDispose === 0 && this.states_ != null) {
      dispose(this.states_);
      dispose(this.keptStates.flat());
      this.states_ = null;
      this.keptStates = [];
    }
    return result;
  }
}
RNN.className = 'RNN';

// The built-in recurrent layers are RNNs too (`lstm instanceof tf.RNN`, as in tfjs).
const NATIVE_RNNS = new Set(['RNN', 'SimpleRNN', 'LSTM', 'GRU', 'ConvLSTM2D']);
Object.defineProperty(RNN, Symbol.hasInstance, {
  value(x) {
    return Function.prototype[Symbol.hasInstance].call(this, x)
      || (this === RNN && x instanceof NativeBackedLayer && NATIVE_RNNS.has(x.getClassName()));
  },
});

// Whether an RNN's cell (a layer, a list of them, or {className, config} from a file) is
// all built-in: then the layer is one native loop.
function nativeCells(cell) {
  return toList(cell).every((c) => c == null || c instanceof NativeBackedLayer
    || (typeof c === 'object' && !(c instanceof Layer) && LAYER_CLASSES.has(c.className)));
}

// tf.layers.rnn: the native RNN over built-in cells, this file's RNN over a JavaScript one.
function rnnFactory(nativeRnn) {
  return function rnn(config) {
    return config != null && !nativeCells(config.cell) ? new RNN(config) : nativeRnn(config);
  };
}

// tfjs's TimeDistributed over a layer written in JavaScript: the layer's `call` on each time
// step (as tfjs runs it, through rnn()). Over a built-in layer it is one native call instead.
class TimeDistributed extends Layer {
  constructor(args) {
    super(args);
    this.layer = args.layer;
    this.supportsMasking = true;
  }

  build(inputShape) {
    if (inputShape.length < 3) {
      throw new Error(`TimeDistributed layer expects an input shape >= 3D, but received input shape ${JSON.stringify(inputShape)}`);
    }
    this.inputSpec = [new InputSpec({ shape: inputShape })];
    if (!this.layer.built) {
      this.layer.build([inputShape[0], ...inputShape.slice(2)]);
      this.layer.built = true;
    }
    this.built = true;
  }

  computeOutputShape(inputShape) {
    const child = this.layer.computeOutputShape([inputShape[0], ...inputShape.slice(2)]);
    return [child[0], inputShape[1], ...child.slice(1)];
  }

  call(inputs, kwargs) {
    return tidy(() => {
      const x = toList(inputs)[0];
      const step = (input) => [toList(this.layer.call(input, kwargs))[0], []];
      return rnnLoop(step, x, [], false, null, true)[1];
    });
  }

  get trainable() {
    return this.layer != null ? this.layer.trainable : this.trainable_;
  }

  set trainable(v) {
    if (this.layer != null) this.layer.trainable = v;
    this.trainable_ = v;
  }

  get trainableWeights() {
    return this.layer.trainableWeights;
  }

  get nonTrainableWeights() {
    return this.layer.nonTrainableWeights;
  }

  get losses() {
    return this.layer.losses;
  }

  calculateLosses() {
    return this.layer.calculateLosses ? this.layer.calculateLosses() : [];
  }

  getConfig() {
    return { layer: { className: this.layer.getClassName(), config: this.layer.getConfig() }, ...super.getConfig() };
  }

  static fromConfig(cls, config) {
    return new cls({ ...config, layer: layerFrom(config.layer) });
  }
}
TimeDistributed.className = 'TimeDistributed';

// A layer given as {className, config} (a model file), made from its registered class.
function layerFrom(spec) {
  if (spec instanceof Layer) return spec;
  const entry = serialization.SerializationMap.getMap().classNameMap[spec.className];
  if (entry == null) throw new Error(`Unknown layer: ${spec.className}`);
  const [cls, fromConfig] = entry;
  return fromConfig != null ? fromConfig(cls, spec.config) : new cls(spec.config);
}

// tf.layers.timeDistributed: native over a built-in layer, this file's over a JavaScript one.
function timeDistributedFactory(nativeTimeDistributed) {
  return function timeDistributed(config) {
    return config != null && !nativeCells(config.layer) ? new TimeDistributed(config) : nativeTimeDistributed(config);
  };
}

module.exports = { RNN, RNNCell, TimeDistributed, rnnLoop, nativeCells, rnnFactory, timeDistributedFactory };
