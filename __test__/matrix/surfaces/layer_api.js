'use strict';
// tf.layers.Layer subclassed as tfjs's documentation does it: the constructor's options, addWeight's
// arguments, apply on good and bad inputs, and models holding such a layer fed bad data, on both
// libraries. Each case returns what a program observes (values and plain fields), never names that
// depend on a library's counters.

// Constructor options: good, odd and wrong.
const OPTIONS = [undefined, null, {}, { name: 'mine' }, { name: 5 }, { trainable: false }, { inputShape: [2] },
  { inputShape: 'x' }, { batchInputShape: [null, 3] }, { batchInputShape: [4, 3], dtype: 'int32' },
  { inputShape: [2], batchSize: 7 }, { weights: 'x' }];
// addWeight(name, shape, dtype, initializer, regularizer, trainable, constraint) argument sets.
const WEIGHTS = [
  ['"w", [2, 3], float32, ones', (tf) => ['w', [2, 3], 'float32', tf.initializers.ones()]],
  ['"w", [], undefined, zeros', (tf) => ['w', [], undefined, tf.initializers.zeros()]],
  ['"w", [2], int32, ones', (tf) => ['w', [2], 'int32', tf.initializers.ones()]],
  ['"w", [2], float32, ones, l2, false', (tf) => ['w', [2], 'float32', tf.initializers.ones(), tf.regularizers.l2(), false]],
  ['"w", [2], float32, ones, null, true, nonNeg', (tf) => ['w', [2], 'float32', tf.initializers.ones(), null, true, tf.constraints.nonNeg()]],
  ['"w", [-1], float32, ones', (tf) => ['w', [-1], 'float32', tf.initializers.ones()]],
  ['"w", [2.5], float32, ones', (tf) => ['w', [2.5], 'float32', tf.initializers.ones()]],
  ['"w", "x", float32, ones', (tf) => ['w', 'x', 'float32', tf.initializers.ones()]],
  ['"w", [2], "x", ones', (tf) => ['w', [2], 'x', tf.initializers.ones()]],
  ['"bad name!", [2], float32, ones', (tf) => ['bad name!', [2], 'float32', tf.initializers.ones()]],
];
// apply's argument.
const INPUTS = [
  ['t[2x3]', (tf, ctx) => ctx.own(tf.tensor([[1, 2, 3], [4, 5, 6]]))],
  ['[t[2x3], t[2x3]]', (tf, ctx) => [ctx.own(tf.ones([2, 3])), ctx.own(tf.ones([2, 3]))]],
  ['disposed', (tf) => { const t = tf.ones([2, 3]); t.dispose(); return t; }],
  ['[[1,2,3]]', () => [[1, 2, 3]]],
  ['null', () => null],
  ['"x"', () => 'x'],
];

// A layer class of one's own on `tf`: x * w (w of shape [last dim]) plus the layer's options.
function scaleClass(tf) {
  class Scale extends tf.layers.Layer {
    build(inputShape) {
      const s = Array.isArray(inputShape[0]) ? inputShape[0] : inputShape;
      this.w = this.addWeight('w', [s[s.length - 1]], 'float32', tf.initializers.constant({ value: 2 }));
    }

    call(inputs) {
      return tf.tidy(() => tf.mul(Array.isArray(inputs) ? inputs[0] : inputs, this.w.read()));
    }
  }
  Scale.className = 'Scale';
  return Scale;
}

// What a program sees of a layer: its fields, without its name.
const fields = (l) => ({ trainable: l.trainable, built: l.built, batchInputShape: l.batchInputShape, dtype: l.dtype });

function cases() {
  const out = [];
  const add = (name, fn, build) => out.push({ name, fn, compare: 'value', build });
  for (const options of OPTIONS) {
    add(`new Layer(${JSON.stringify(options)})`, 'layers.Layer', (tf) => () => fields(new (scaleClass(tf))(options)));
  }
  for (const [label, args] of WEIGHTS) {
    add(`layer.addWeight(${label})`, 'layers.Layer.addWeight', (tf) => () => {
      const layer = new (scaleClass(tf))({});
      const w = layer.addWeight(...args(tf));
      const v = w.read();
      const seen = { shape: w.shape, dtype: w.dtype, trainable: w.trainable, values: Array.from(v.dataSync()) };
      w.dispose();
      return seen;
    });
  }
  for (const [label, make] of INPUTS) {
    add(`layer.apply(${label})`, 'layers.Layer.apply', (tf, foreign, ctx) => {
      const x = make(tf, ctx);
      return () => {
        const layer = new (scaleClass(tf))({});
        try {
          return layer.apply(x);
        } finally {
          if (layer.weights.length > 0) layer.weights.forEach((w) => w.dispose());
        }
      };
    });
    add(`model(dense, Scale).predict(${label})`, 'layers.Layer.predict', (tf, foreign, ctx) => {
      const x = make(tf, ctx);
      return () => {
        const model = tf.sequential({ layers: [tf.layers.dense({ units: 3, inputShape: [3], kernelInitializer: 'ones' }), new (scaleClass(tf))({})] });
        try {
          return model.predict(x);
        } finally {
          model.dispose();
        }
      };
    });
  }
  return out;
}

module.exports = { cases };
