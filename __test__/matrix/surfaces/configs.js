'use strict';
// The apply() of tf.initializers, tf.regularizers and tf.constraints objects: each with valid
// and bad arguments (shapes, dtypes, tensors and TensorLikes), on both libraries.

const INITIALIZERS = [
  ['zeros', undefined], ['ones', undefined], ['constant', { value: 2 }], ['identity', { gain: 2 }],
  ['randomNormal', { seed: 1 }], ['glorotUniform', { seed: 2 }], ['orthogonal', { seed: 3 }],
];
const SHAPES = [[2, 2], [3], [], [0, 2], [-1], [2.5], [NaN], 'x', null, undefined, [[2]]];
const DTYPES = [undefined, 'float32', 'int32', 'bool', 'string', 'complex64', 'x'];
const REGULARIZERS = [['l1', { l1: 0.5 }], ['l2', undefined], ['l1l2', { l1: 0.1, l2: 0.2 }]];
const CONSTRAINTS = [['maxNorm', { maxValue: 1 }], ['unitNorm', { axis: 1 }], ['nonNeg', undefined],
  ['minMaxNorm', { minValue: 0.5, maxValue: 1 }]];
// [label, make(tf, ctx)] of an apply's tensor argument.
const XS = [
  ['t[2x2]', (tf, ctx) => ctx.own(tf.tensor([[1, -2], [3, 0.5]]))],
  ['[[1,-2],[3,0.5]]', () => [[1, -2], [3, 0.5]]],
  ['int32 t[2]', (tf, ctx) => ctx.own(tf.tensor([3, -4], [2], 'int32'))],
  ["string t['a']", (tf, ctx) => ctx.own(tf.tensor(['a']))],
  ['null', () => null],
  ["'x'", () => 'x'],
  ['{}', () => ({})],
];

const text = (v) => (v === undefined ? 'undefined' : JSON.stringify(v));

function cases() {
  const out = [];
  const add = (name, fn, build) => out.push({ name, fn, compare: 'value', build });
  for (const [f, args] of INITIALIZERS) {
    for (const shape of SHAPES) {
      add(`initializers.${f}(${text(args)}).apply(${text(shape)})`, `initializers.${f}`,
        (tf) => () => tf.initializers[f](args).apply(shape));
    }
    for (const dtype of DTYPES) {
      add(`initializers.${f}(${text(args)}).apply([2,2], ${text(dtype)})`, `initializers.${f}`,
        (tf) => () => tf.initializers[f](args).apply([2, 2], dtype));
    }
  }
  for (const [kind, list] of [['regularizers', REGULARIZERS], ['constraints', CONSTRAINTS]]) {
    for (const [f, args] of list) {
      for (const [label, make] of XS) {
        add(`${kind}.${f}(${text(args)}).apply(${label})`, `${kind}.${f}`, (tf, foreign, ctx) => {
          const x = make(tf, ctx);
          return () => tf[kind][f](args).apply(x);
        });
      }
    }
  }
  return out;
}

module.exports = { cases };
