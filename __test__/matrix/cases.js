'use strict';
// The bad-input matrix's case list, built the same way (same order) in every child process.
//
// Three layers, deduplicated by case name (the first wins):
//  1. signatures: for each known op, a valid baseline call, then each argument replaced by each
//     bad value of its kind (values.js);
//  2. edge values: valid calls with NaN, ±Infinity, -0, empty tensors, scalars, int32 and bool
//     inputs, broadcasting shapes;
//  3. generic: every exported function (so an op added later joins the matrix by being
//     exported) called with each value of the ANY pool first, and after a valid small tensor.
//
// A case is { name, fn, compare, build(tf, foreign, ctx) -> () => result }. `build` makes the
// arguments with `tf` (the library under test); `foreign` is the other library.
const V = require('./values');
const { surfaceCases } = require('./surfaces');

const { v, T, OMIT } = V;

// Exported functions left out of the generic layer: they switch backends or change global
// state other cases would see, or they return the library itself. A few get hand-written cases.
const SKIP = {
  setBackend: 'switches the backend for every later case',
  ready: 'async backend initialisation; nothing to vary',
  engine: 'returns the engine object itself (hand-written cases below)',
  env: 'returns the environment object itself',
  setPlatform: 'replaces the platform for every later case',
  enableProdMode: 'global flag for every later case',
  enableDebugMode: 'global flag for every later case (and makes tfjs check every kernel)',
  disableDeprecationWarnings: 'global flag; the child calls it once on both libraries',
  disposeVariables: 'disposes every variable, also those of other cases',
  profile: 'async, runs a function (hand-written cases below)',
  time: 'async, runs a function (hand-written cases below)',
  registerBackend: 'registers a backend for every later case',
  removeBackend: 'removes a backend for every later case',
  setDebugMode: 'global flag',
};

// How results are compared: 'value' (dtype, shape, values), 'random' (dtype and shape only),
// 'kind' (only what kind of thing came back: the result describes the library itself).
const KIND_FNS = new Set(['memory', 'getBackend', 'backend', 'findBackend', 'engine', 'env',
  'profile', 'time', 'version']);
function compareModeOf(fn) {
  if (/^(random|truncatedNormal|multinomial|dropout)/.test(fn)) return 'random';
  if (KIND_FNS.has(fn)) return 'kind';
  return 'value';
}

const t22 = T('t[2x2]', [[1, 2], [3, 4]]);
const x22 = T('x[2x2]', [[1, -2], [3, 0.5]]);
const y22 = T('y[2x2]', [[2, 4], [-1, 8]]);
const x23 = T('x[2x3]', [[1, -2, 3], [0.5, 0, -6]]);
const x32 = T('x[3x2]', [[1, 2], [3, 4], [5, 6]]);
const x131 = T('x[1x3x1]', [[[1], [2], [3]]]);
const n = (label, value) => V.lit(label, value);
const a = (label, build) => V.arr(label, build);

// The ops of the core's elementwise tables (prelu, x and alpha, aside), and those tfjs composes.
const TABLE = require('../../lib/native').elementwiseOps();
const UNARY = [...TABLE.unary.map((o) => o.name), 'logSigmoid', 'step'];
const BINARY = TABLE.binary.map((o) => o.name).filter((name) => name !== 'prelu');
const REDUCE = ['sum', 'mean', 'max', 'min', 'prod', 'all', 'any', 'logSumExp'];

// Signatures: name -> [[pool, baseline], ...]; a baseline OMIT is not passed.
const SIG = {};
for (const f of UNARY) SIG[f] = [[V.TENSOR, x22]];
for (const f of BINARY) SIG[f] = [[V.TENSOR, x22], [V.TENSOR, y22]];
for (const f of REDUCE) SIG[f] = [[V.TENSOR, x23], [V.AXES, OMIT], [V.BOOL, OMIT]];
Object.assign(SIG, {
  zerosLike: [[V.TENSOR, x22]],
  onesLike: [[V.TENSOR, x22]],
  clone: [[V.TENSOR, x22]],
  matMul: [[V.TENSOR, x23], [V.TENSOR, x32], [V.BOOL, OMIT], [V.BOOL, OMIT]],
  argMax: [[V.TENSOR, x23], [V.AXIS, OMIT]],
  argMin: [[V.TENSOR, x23], [V.AXIS, OMIT]],
  softmax: [[V.TENSOR, x23], [V.AXIS, OMIT]],
  logSoftmax: [[V.TENSOR, x23], [V.AXIS, OMIT]],
  expandDims: [[V.TENSOR, x23], [V.AXIS, OMIT]],
  squeeze: [[V.TENSOR, x131], [V.AXES, OMIT]],
  transpose: [[V.TENSOR, x23], [V.PERM, OMIT]],
  concat: [[V.TENSORS, v('[x[2x3],x[2x3]]', (tf, f, ctx) =>
    [ctx.own(tf.tensor([[1, 2, 3], [4, 5, 6]])), ctx.own(tf.tensor([[7, 8, 9], [0, -1, -2]]))])],
  [V.AXIS, OMIT]],
  stack: [[V.TENSORS, v('[x[2x3],x[2x3]]', (tf, f, ctx) =>
    [ctx.own(tf.tensor([[1, 2, 3], [4, 5, 6]])), ctx.own(tf.tensor([[7, 8, 9], [0, -1, -2]]))])],
  [V.AXIS, OMIT]],
  slice: [[V.TENSOR, x23], [V.BEGIN, a('[0,1]', () => [0, 1])], [V.SIZE, a('[1,2]', () => [1, 2])]],
  gather: [[V.TENSOR, x32], [V.TENSOR, a('[2,0]', () => [2, 0])], [V.AXIS, OMIT], [V.AXIS, OMIT]],
  reshape: [[V.TENSOR, x23], [V.SHAPE, a('[3,2]', () => [3, 2])]],
  cast: [[V.TENSOR, x22], [V.DTYPE, n("'int32'", 'int32')]],
  tensor: [[V.VALUES, a('[1,2,3,4]', () => [1, 2, 3, 4])], [V.SHAPE, a('[2,2]', () => [2, 2])],
    [V.DTYPE, OMIT]],
  scalar: [[V.VALUES, n('3', 3)], [V.DTYPE, OMIT]],
  tensor1d: [[V.VALUES, a('[1,2,3]', () => [1, 2, 3])], [V.DTYPE, OMIT]],
  tensor2d: [[V.VALUES, a('[[1,2],[3,4]]', () => [[1, 2], [3, 4]])], [V.SHAPE, OMIT], [V.DTYPE, OMIT]],
  tensor3d: [[V.VALUES, a('[[[1],[2]]]', () => [[[1], [2]]])], [V.SHAPE, OMIT], [V.DTYPE, OMIT]],
  tensor4d: [[V.VALUES, a('[[[[1,2]]]]', () => [[[[1, 2]]]])], [V.SHAPE, OMIT], [V.DTYPE, OMIT]],
  tensor5d: [[V.VALUES, a('[[[[[1]]]]]', () => [[[[[1]]]]])], [V.SHAPE, OMIT], [V.DTYPE, OMIT]],
  tensor6d: [[V.VALUES, a('[[[[[[1]]]]]]', () => [[[[[[1]]]]]])], [V.SHAPE, OMIT], [V.DTYPE, OMIT]],
  zeros: [[V.SHAPE, a('[2,3]', () => [2, 3])], [V.DTYPE, OMIT]],
  ones: [[V.SHAPE, a('[2,3]', () => [2, 3])], [V.DTYPE, OMIT]],
  fill: [[V.SHAPE, a('[2,3]', () => [2, 3])], [V.NUM, n('5', 5)], [V.DTYPE, OMIT]],
  range: [[V.COUNT, n('0', 0)], [V.COUNT, n('5', 5)], [V.COUNT, OMIT], [V.DTYPE, OMIT]],
  linspace: [[V.NUM, n('0', 0)], [V.NUM, n('1', 1)], [V.COUNT, n('5', 5)]],
  eye: [[V.COUNT, n('2', 2)], [V.COUNT, OMIT], [V.SHAPE, OMIT], [V.DTYPE, OMIT]],
  oneHot: [[V.TENSOR, a('[0,1,2]', () => [0, 1, 2])], [V.COUNT, n('3', 3)], [V.NUM, OMIT],
    [V.NUM, OMIT], [V.DTYPE, OMIT]],
  randomNormal: [[V.SHAPE, a('[2,3]', () => [2, 3])], [V.NUM, OMIT], [V.NUM, OMIT], [V.DTYPE, OMIT],
    [V.SEED, OMIT]],
  randomUniform: [[V.SHAPE, a('[2,3]', () => [2, 3])], [V.NUM, OMIT], [V.NUM, OMIT], [V.DTYPE, OMIT],
    [V.SEED, OMIT]],
  truncatedNormal: [[V.SHAPE, a('[2,3]', () => [2, 3])], [V.TRUNC_NUM, OMIT], [V.TRUNC_NUM, OMIT],
    [V.DTYPE, OMIT], [V.SEED, OMIT]],
  buffer: [[V.SHAPE, a('[2,2]', () => [2, 2])], [V.DTYPE, OMIT], [V.BUFVALUES, OMIT]],
  keep: [[V.CONTAINER, x22]],
  dispose: [[V.CONTAINER, x22]],
  variable: [[V.TENSOR, x22], [V.BOOL, OMIT], [V.STRING, OMIT], [V.DTYPE, OMIT]],
  findBackend: [[V.STRING, n("'cpu'", 'cpu')]],
  deprecationWarn: [[V.STRING, n("'msg'", 'msg')]],
});

// Valid calls on edge values. Each entry: [fn, [descs...]].
function edgeCalls(exported) {
  const out = [];
  const add = (fn, ...args) => out.push([fn, args]);
  const F = (label, values, shape) => T(label, values, shape, 'float32');
  const I = (label, values, shape) => T(label, values, shape, 'int32');
  const B = (label, values, shape) => T(label, values, shape, 'bool');
  const special = F('f[NaN,Inf,-Inf,-0,0,1,-1,0.5,-2.5,100,-100,1e-30,3e38]',
    [NaN, Infinity, -Infinity, -0, 0, 1, -1, 0.5, -2.5, 100, -100, 1e-30, 3e38]);
  const ints = I('i[-3,0,5,2147483647,-2147483648]', [-3, 0, 5, 2147483647, -2147483648]);
  const bools = B('b[true,false]', [true, false]);
  const empty = F('f[0]', [], [0]);
  const empty20 = F('f[2x0]', [], [2, 0]);
  const sc = F('f(2.5)', 2.5, []);
  const isc = I('i(-4)', -4, []);
  const unaryInputs = [special, ints, bools, empty, empty20, sc, isc,
    n('4', 4), n('true', true), a('[[1,2]]', () => [[1, 2]]), a('[-0]', () => [-0])];
  for (const f of UNARY) for (const x of unaryInputs) add(f, x);

  const pairs = [
    [F('f[NaN,Inf,-Inf,-0,0,1,-1,2.5,0,7,-7,Inf]',
      [NaN, Infinity, -Infinity, -0, 0, 1, -1, 2.5, 0, 7, -7, Infinity]),
      F('f[1,Inf,2,0,-0,0,Inf,-2,0,2,2,-Inf]', [1, Infinity, 2, 0, -0, 0, Infinity, -2, 0, 2, 2, -Infinity])],
    [I('i[7,-7,0,5,2147483647,-8]', [7, -7, 0, 5, 2147483647, -8]), I('i[2,2,3,0,1,3]', [2, 2, 3, 0, 1, 3])],
    [I('i[7,-7,3]', [7, -7, 3]), F('f[2,2,0.5]', [2, 2, 0.5])],
    [F('f[7,-7,3]', [7, -7, 3]), I('i[2,2,0]', [2, 2, 0])],
    [B('b[true,false,true]', [true, false, true]), B('b[true,true,false]', [true, true, false])],
    [B('b[true,false,true]', [true, false, true]), I('i[2,2,0]', [2, 2, 0])],
    [F('f[2x1]', [[1], [2]]), F('f[1x3]', [[1, 2, 3]])],
    [F('f[3]', [1, 2, 3]), F('f[2x3]', [[1, 2, 3], [4, 5, 6]])],
    [sc, F('f[2x2]', [[1, 2], [3, 4]])],
    [empty20, F('f[1]', [1])],
    [empty, F('f[1]', [1])],
    [empty, F('f[2]', [1, 2])],
    [F('f[2]', [1, 2]), F('f[3]', [1, 2, 3])],
    [F('f[2x3]', [[1, 2, 3], [4, 5, 6]]), F('f[3x2]', [[1, 2], [3, 4], [5, 6]])],
    [F('f[1x1x1x1x1x2]', [[[[[[1, 2]]]]]]), F('f[2x1]', [[3], [4]])],
    [n('3', 3), n('4', 4)],
    [a('[1,2]', () => [1, 2]), a('[[1],[2]]', () => [[1], [2]])],
    [F('f[1,2]', [1, 2]), n('true', true)],
    [I('i[1,2]', [1, 2]), n('1.5', 1.5)],
  ];
  for (const f of BINARY) for (const [x, y] of pairs) add(f, x, y);

  const r23 = F('f[[1,NaN,3],[4,5,-Inf]]', [[1, NaN, 3], [4, 5, -Infinity]]);
  const rInputs = [
    [r23],
    [r23, n('0', 0)], [r23, n('1', 1)], [r23, n('-1', -1)], [r23, a('[0,1]', () => [0, 1])],
    [r23, a('[1,0]', () => [1, 0])], [r23, a('[]', () => [])], [r23, n('null', null)],
    [r23, n('1', 1), n('true', true)], [r23, a('[]', () => []), n('true', true)],
    [I('i[[1,2],[3,2147483647]]', [[1, 2], [3, 2147483647]]), n('0', 0)],
    [B('b[2x2]', [[true, false], [true, true]]), n('1', 1)],
    [empty], [empty, n('0', 0)], [empty20], [empty20, n('0', 0)], [empty20, n('1', 1)],
    [sc], [sc, n('0', 0)], [sc, n('-1', -1)], [sc, a('[]', () => [])],
    [a('[[1,2],[3,4]]', () => [[1, 2], [3, 4]]), n('1', 1)],
  ];
  for (const f of REDUCE) for (const args of rInputs) add(f, ...args);
  const argInputs = [
    [F('f[NaN,1,3,3]', [NaN, 1, 3, 3])], [F('f[1,3,3,NaN]', [1, 3, 3, NaN])],
    [F('f[-Inf,-Inf]', [-Infinity, -Infinity])], [r23, n('1', 1)], [r23, n('-1', -1)],
    [I('i[[1,2],[3,2]]', [[1, 2], [3, 2]]), n('1', 1)], [B('b[false,true]', [false, true])],
    [empty], [empty20, n('1', 1)], [empty20, n('0', 0)], [sc], [sc, n('0', 0)],
  ];
  for (const f of ['argMax', 'argMin']) for (const args of argInputs) add(f, ...args);
  const smInputs = [
    [F('f[Inf,1,2]', [Infinity, 1, 2])], [F('f[-Inf,-Inf]', [-Infinity, -Infinity])],
    [F('f[1000,0]', [1000, 0])], [r23, n('0', 0)], [r23, n('1', 1)], [r23, n('-1', -1)],
    [I('i[1,2]', [1, 2])], [empty], [empty20], [sc], [F('f[2x0x3]', [], [2, 0, 3])],
  ];
  for (const f of ['softmax', 'logSoftmax']) for (const args of smInputs) add(f, ...args);

  // Layout.
  const x2x3 = F('f[2x3]', [[1, 2, 3], [4, 5, 6]]);
  for (const s of [[-1], [3, -1], [-1, -1], [0], [6, 1, 1], [1, 6], [2, 3, 0]]) {
    add('reshape', x2x3, a(JSON.stringify(s), () => s.slice()));
  }
  for (const s of [[0, 5], [-1, 0], [0, -1], [0], [2, 0], []]) {
    add('reshape', empty20, a(JSON.stringify(s), () => s.slice()));
  }
  add('reshape', sc, a('[]', () => []));
  add('reshape', sc, a('[1,1]', () => [1, 1]));
  for (const ax of [0, 1, 2, -1, -2, -3, 3]) add('expandDims', x2x3, n(String(ax), ax));
  add('expandDims', sc, n('0', 0));
  add('expandDims', empty20, n('2', 2));
  const x1 = F('f[1x2x1]', [[[1], [2]]]);
  for (const ax of [[0], [2], [0, 2], [1], [-1], [-3], [3], [0, 0]]) {
    add('squeeze', x1, a(JSON.stringify(ax), () => ax.slice()));
  }
  add('squeeze', sc);
  add('squeeze', F('f[1x0]', [], [1, 0]));
  for (const p of [[1, 0], [0, 1]]) add('transpose', x2x3, a(JSON.stringify(p), () => p.slice()));
  add('transpose', F('f[2x1x3]', [[[1, 2, 3]], [[4, 5, 6]]]), a('[2,0,1]', () => [2, 0, 1]));
  add('transpose', sc);
  add('transpose', empty20);
  add('transpose', I('i[2x2]', [[1, 2], [3, 4]]));
  add('transpose', B('b[1x2]', [[true, false]]));
  const lists = [
    ['[f[2x3],f[2x3]]', [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [1, 2, 3]]], 'float32'],
    ['[i[2],i[3]]', [[1, 2], [3, 4, 5]], 'int32'],
    ['[b[2],b[1]]', [[true, false], [true]], 'bool'],
    ['[f[2x0],f[2x1]]', null, 'float32'],
    ['[f(1),f(2)]', [1, 2], 'float32'],
    ['[f[0],f[0]]', [[], []], 'float32'],
  ];
  for (const [label, vals, dtype] of lists) {
    const make = (tf, f, ctx) => (vals == null ?
      [ctx.own(tf.tensor([], [2, 0], dtype)), ctx.own(tf.tensor([[1], [2]], [2, 1], dtype))] :
      vals.map((x) => ctx.own(tf.tensor(x, undefined, dtype))));
    for (const ax of [undefined, 0, 1, -1, 2]) {
      for (const f of ['concat', 'stack']) {
        if (ax === undefined) add(f, v(label, make));
        else add(f, v(label, make), n(String(ax), ax));
      }
    }
  }
  add('concat', v('[f[2],i[2]]', (tf, f, ctx) =>
    [ctx.own(tf.tensor([1.5, 2])), ctx.own(tf.tensor([3, 4], [2], 'int32'))]));
  add('stack', v('[f[2],i[2]]', (tf, f, ctx) =>
    [ctx.own(tf.tensor([1.5, 2])), ctx.own(tf.tensor([3, 4], [2], 'int32'))]));
  add('concat', v('[[1,2],[3]]', () => [[1, 2], [3]]));
  add('stack', v('[[1,2],[3,4]]', () => [[1, 2], [3, 4]]));
  const sl = [
    [[0, 0], [2, 3]], [[1, 1], [-1, -1]], [[0, 0], [0, 0]], [[2, 0], [0, 3]], [[1, 2], [1, 1]],
    [[0, 3], [2, 0]], [[0, 0], [3, 1]], [[1], [1]], [1, 1], [[0, 0, 0], [1, 1, 1]],
  ];
  for (const [b, s] of sl) {
    add('slice', x2x3, a(JSON.stringify(b), () => (Array.isArray(b) ? b.slice() : b)),
      a(JSON.stringify(s), () => (Array.isArray(s) ? s.slice() : s)));
  }
  add('slice', x2x3, a('[1,0]', () => [1, 0]));
  add('slice', empty20, a('[0,0]', () => [0, 0]), a('[2,0]', () => [2, 0]));
  add('slice', I('i[4]', [1, 2, 3, 4]), n('1', 1), n('2', 2));
  add('slice', B('b[3]', [true, false, true]), n('1', 1));
  const x3x2 = F('f[3x2]', [[1, 2], [3, 4], [5, 6]]);
  const gathers = [
    [x3x2, a('[2,0,2]', () => [2, 0, 2])],
    [x3x2, a('[1]', () => [1]), n('1', 1)],
    [x3x2, a('[1,0]', () => [1, 0]), n('-1', -1)],
    [x3x2, a('[-1]', () => [-1])],
    [x3x2, a('[3]', () => [3])],
    [x3x2, a('[1.5]', () => [1.5])],
    [x3x2, F('f[1]', [1])],
    [x3x2, I('i[[0,1],[2,0]]', [[0, 1], [2, 0]])],
    [x3x2, a('[]', () => [])],
    [x3x2, n('1', 1)],
    [x3x2, I('i[3x1]', [[1], [0], [1]]), n('1', 1), n('1', 1)],
    [x3x2, I('i[3x1]', [[1], [0], [1]]), n('1', 1), n('2', 2)],
    [empty20, a('[0,1]', () => [0, 1])],
    [I('i[3]', [7, 8, 9]), a('[2,1]', () => [2, 1])],
    [B('b[2]', [true, false]), a('[1,1,0]', () => [1, 1, 0])],
    [sc, a('[0]', () => [0])],
  ];
  for (const args of gathers) add('gather', ...args);

  // matMul.
  const mm = [
    [F('f[2x3]', [[1, 2, 3], [4, 5, 6]]), F('f[3x2]', [[1, 2], [3, 4], [5, 6]])],
    [F('f[2x3]', [[1, 2, 3], [4, 5, 6]]), F('f[2x3]', [[1, 2, 3], [4, 5, 6]]), n('true', true)],
    [F('f[2x3]', [[1, 2, 3], [4, 5, 6]]), F('f[2x3]', [[1, 2, 3], [4, 5, 6]]), n('false', false), n('true', true)],
    [F('f[2x3]', [[1, 2, 3], [4, 5, 6]]), F('f[2x3]', [[1, 2, 3], [4, 5, 6]])],
    [F('f[2x2x3]', [[[1, 2, 3], [4, 5, 6]], [[1, 0, 1], [0, 1, 0]]]), F('f[3x2]', [[1, 2], [3, 4], [5, 6]])],
    [F('f[2x2x3]', [[[1, 2, 3], [4, 5, 6]], [[1, 0, 1], [0, 1, 0]]]),
      F('f[3x2x2]', [[[1, 2], [3, 4]], [[1, 2], [3, 4]], [[1, 2], [3, 4]]])],
    [F('f[0x3]', [], [0, 3]), F('f[3x2]', [[1, 2], [3, 4], [5, 6]])],
    [F('f[2x0]', [], [2, 0]), F('f[0x3]', [], [0, 3])],
    [I('i[2x2]', [[1, 2], [3, 4]]), I('i[2x2]', [[5, 6], [7, 8]])],
    [I('i[2x2]', [[1, 2], [3, 4]]), F('f[2x2]', [[0.5, 1], [1, 0.5]])],
    [B('b[2x2]', [[true, false], [true, true]]), B('b[2x2]', [[true, true], [false, true]])],
    [F('f[2]', [1, 2]), F('f[2x2]', [[1, 2], [3, 4]])],
    [sc, F('f[2x2]', [[1, 2], [3, 4]])],
    [F('f[2x2]', [[NaN, Infinity], [-Infinity, -0]]), F('f[2x2]', [[1, 0], [0, 1]])],
    [a('[[1,2]]', () => [[1, 2]]), a('[[3],[4]]', () => [[3], [4]])],
  ];
  for (const args of mm) add('matMul', ...args);

  // Creation and casts.
  const castIn = [special, F('f[2.7,-2.7,0.5,-0.5,3e9,-3e9]', [2.7, -2.7, 0.5, -0.5, 3e9, -3e9]),
    ints, bools, empty, sc];
  for (const x of castIn) for (const d of ['float32', 'int32', 'bool']) add('cast', x, n(`'${d}'`, d));
  const tv = [
    [a('[1.7,-1.7,NaN,3e9,-0]', () => [1.7, -1.7, NaN, 3e9, -0]), n('undefined', undefined),
      n("'int32'", 'int32')],
    [a('[2,0,NaN,-1]', () => [2, 0, NaN, -1]), n('undefined', undefined), n("'bool'", 'bool')],
    [a('[true,false]', () => [true, false]), n('undefined', undefined), n("'float32'", 'float32')],
    [a('[true,false]', () => [true, false]), n('undefined', undefined), n("'int32'", 'int32')],
    [a('Float32Array[1.5,2]', () => new Float32Array([1.5, 2])), n('undefined', undefined), n("'int32'", 'int32')],
    [a('Int32Array[1,2]', () => new Int32Array([1, 2])), n('undefined', undefined), n("'float32'", 'float32')],
    [a('Uint8Array[0,1,2]', () => new Uint8Array([0, 1, 2])), n('undefined', undefined), n("'bool'", 'bool')],
    [a('[[1,2],[3,4]]', () => [[1, 2], [3, 4]]), a('[4]', () => [4])],
    [a('[1,2,3,4]', () => [1, 2, 3, 4]), a('[2,2,1]', () => [2, 2, 1])],
    [a('[]', () => []), a('[0,3]', () => [0, 3])],
    [a('[]', () => []), a('[2,0]', () => [2, 0]), n("'int32'", 'int32')],
    [n('5', 5), a('[]', () => [])],
    [n('5', 5), a('[1]', () => [1])],
    [n('5', 5), a('[2,2]', () => [2, 2])],
    [a('[5]', () => [5]), a('[2,2]', () => [2, 2])],
    [n('true', true)],
    [a('[[[1]],[[2]]]', () => [[[1]], [[2]]])],
  ];
  for (const args of tv) add('tensor', ...args);
  add('scalar', n('-0', -0));
  add('scalar', n('NaN', NaN), n("'int32'", 'int32'));
  add('scalar', n('2.7', 2.7), n("'int32'", 'int32'));
  add('scalar', n('true', true));
  add('scalar', n('2', 2), n("'bool'", 'bool'));
  add('tensor1d', a('[]', () => []));
  add('tensor1d', a('[true,false]', () => [true, false]));
  add('tensor2d', a('[1,2,3,4]', () => [1, 2, 3, 4]), a('[2,2]', () => [2, 2]));
  add('tensor2d', a('[]', () => []), a('[0,2]', () => [0, 2]));
  add('tensor2d', a('[[],[]]', () => [[], []]));
  add('tensor3d', a('[1,2]', () => [1, 2]), a('[1,2,1]', () => [1, 2, 1]));
  add('tensor4d', a('[[[[1]],[[2]]]]', () => [[[[1]], [[2]]]]), n('undefined', undefined),
    n("'int32'", 'int32'));
  for (const d of ['float32', 'int32', 'bool']) {
    add('zeros', a('[2,0]', () => [2, 0]), n(`'${d}'`, d));
    add('ones', a('[2]', () => [2]), n(`'${d}'`, d));
    add('fill', a('[2]', () => [2]), n('1.5', 1.5), n(`'${d}'`, d));
    add('fill', a('[2]', () => [2]), n('NaN', NaN), n(`'${d}'`, d));
    add('fill', a('[2]', () => [2]), n('-0', -0), n(`'${d}'`, d));
    add('zerosLike', T(`${d}[2]`, [1, 0], [2], d));
    add('onesLike', T(`${d}[2]`, [1, 0], [2], d));
    add('eye', n('2', 2), n('3', 3), n('undefined', undefined), n(`'${d}'`, d));
    add('oneHot', a('[0,1]', () => [0, 1]), n('2', 2), n('1', 1), n('0', 0), n(`'${d}'`, d));
    add('clone', T(`${d}[2]`, [1, 0], [2], d));
  }
  add('zeros', a('[]', () => []));
  add('fill', a('[2]', () => [2]), n('true', true));
  add('fill', a('[]', () => []), n('3', 3));
  const ranges = [[0, 5], [5], [5, 0], [0, 5, 2], [0, 5, -1], [5, 0, -2], [5, 0, 2], [0, 1, 0.3],
    [0, 0], [-3, 3, 1.5], [0, 5, 1, 'int32'], [0.5, 3, 1, 'int32'], [0, 2, 0.5, 'int32']];
  for (const r of ranges) add('range', ...r.map((x) => n(typeof x === 'string' ? `'${x}'` : String(x), x)));
  const linspaces = [[0, 1, 1], [0, 1, 2], [1, 0, 5], [0, NaN, 3], [-Infinity, Infinity, 3],
    [0, 1, 0], [0, 1, -1]];
  for (const l of linspaces) add('linspace', ...l.map((x) => n(String(x), x)));
  add('eye', n('0', 0));
  add('eye', n('3', 3), n('2', 2));
  add('eye', n('2', 2), n('3', 3), a('[2]', () => [2]));
  add('eye', n('2', 2), n('2', 2), a('[2,1]', () => [2, 1]));
  add('eye', n('1', 1), n('1', 1), a('[1,2,1]', () => [1, 2, 1]));
  add('eye', n('2', 2), n('2', 2), a('[1,1,1,1]', () => [1, 1, 1, 1]));
  add('eye', n('2', 2), n('2', 2), a('[0]', () => [0]));
  const oh = [
    [a('[-1,3,1]', () => [-1, 3, 1]), n('3', 3)],
    [a('[0.7,1.2]', () => [0.7, 1.2]), n('3', 3)],
    [F('f[0.7,1.2]', [0.7, 1.2]), n('3', 3)],
    [I('i[[0,1],[1,0]]', [[0, 1], [1, 0]]), n('2', 2)],
    [I('i(1)', 1, []), n('3', 3)],
    [I('i[0]', [], [0]), n('3', 3)],
    [a('[0,1]', () => [0, 1]), n('2', 2), n('NaN', NaN), n('-0', -0)],
    [a('[0,1]', () => [0, 1]), n('2', 2), n('2.5', 2.5), n('-1.5', -1.5), n("'float32'", 'float32')],
  ];
  for (const args of oh) add('oneHot', ...args);
  for (const f of ['randomNormal', 'randomUniform', 'truncatedNormal']) {
    add(f, a('[0]', () => [0]));
    add(f, a('[]', () => []));
    add(f, a('[2,2]', () => [2, 2]), n('0', 0), n('1', 1), n("'int32'", 'int32'));
    add(f, a('[3]', () => [3]), n('1', 1), n('2', 2), n("'float32'", 'float32'), n('7', 7));
  }
  add('randomUniform', a('[2]', () => [2]), n('0', 0), n('5', 5), n("'bool'", 'bool'));
  add('randomUniform', a('[2]', () => [2]), n('5', 5), n('0', 0));
  add('buffer', a('[2]', () => [2]), n("'int32'", 'int32'), a('Int32Array[1,2]', () => new Int32Array([1, 2])));
  add('buffer', a('[2]', () => [2]), n("'bool'", 'bool'));
  add('buffer', a('[]', () => []));
  add('buffer', a('[0,3]', () => [0, 3]));
  add('variable', x22, n('false', false), n("'v_matrix'", 'v_matrix'), n("'int32'", 'int32'));
  add('variable', T('i[2]', [1, 2], [2], 'int32'), n('true', true), n('undefined', undefined),
    n("'float32'", 'float32'));
  return out.filter(([fn]) => exported.has(fn));
}

// Hand-written cases for the functions the generic layer skips or that need a setup.
function handCases() {
  const out = [];
  const add = (name, fn, build, compare) => out.push({ name, fn, compare: compare || compareModeOf(fn), build });
  add('tidy(() => t(1))', 'tidy', (tf) => () => tf.tidy(() => tf.scalar(1)));
  add("tidy('n', () => [t(1), t(2)])", 'tidy', (tf) => () => tf.tidy('n', () => [tf.scalar(1), tf.scalar(2)]));
  add('tidy(() => { inner tensors; return number })', 'tidy', (tf) => () =>
    tf.tidy(() => { tf.add(tf.scalar(1), tf.scalar(2)); return 3; }));
  add('tidy(() => throws after making tensors)', 'tidy', (tf) => () =>
    tf.tidy(() => { tf.scalar(1); tf.ones([2]); throw new Error('inside'); }));
  add('tidy(() => tidy(() => t(1)))', 'tidy', (tf) => () => tf.tidy(() => tf.tidy(() => tf.scalar(1))));
  add('tidy(() => keep(t(1)))', 'tidy', (tf, f, ctx) => () => {
    let k;
    tf.tidy(() => { k = tf.keep(tf.scalar(1)); });
    ctx.own(k);
    return k.isDisposed;
  });
  add('tidy(() => t[2x2] input)', 'tidy', (tf, f, ctx) => {
    const x = ctx.own(tf.tensor([[1, 2], [3, 4]]));
    return () => tf.tidy(() => x);
  });
  add('keep(t) twice', 'keep', (tf, f, ctx) => {
    const x = ctx.own(tf.tensor([1, 2]));
    return () => tf.keep(tf.keep(x));
  });
  add('dispose(t) twice', 'dispose', (tf, f, ctx) => {
    const x = ctx.own(tf.tensor([1, 2]));
    return () => { tf.dispose(x); tf.dispose(x); return x.isDisposed; };
  });
  add('profile(() => add)', 'profile', (tf, f, ctx) => {
    const x = ctx.own(tf.tensor([1, 2]));
    return () => tf.profile(() => { const y = tf.add(x, x); y.dispose(); });
  });
  add('profile(undefined)', 'profile', (tf) => () => tf.profile(undefined));
  add("profile('abc')", 'profile', (tf) => () => tf.profile('abc'));
  add('profile(() => throws)', 'profile', (tf) => () => tf.profile(() => { throw new Error('p boom'); }));
  add('profile(async () => t(1))', 'profile', (tf) => async () => {
    const info = await tf.profile(async () => tf.scalar(1));
    tf.dispose(info.result);
    return info.newTensors;
  }, 'value');
  add('profile(() => add).newTensors', 'profile', (tf, f, ctx) => {
    const x = ctx.own(tf.tensor([1, 2]));
    return async () => (await tf.profile(() => { tf.add(x, x).dispose(); })).newTensors;
  }, 'value');
  add('time(() => add)', 'time', (tf, f, ctx) => {
    const x = ctx.own(tf.tensor([1, 2]));
    return () => tf.time(() => { tf.add(x, x).dispose(); });
  });
  add('time(undefined)', 'time', (tf) => () => tf.time(undefined));
  add('time(() => throws)', 'time', (tf) => () => tf.time(() => { throw new Error('t boom'); }));
  add('engine().memory()', 'engine', (tf) => () => tf.engine().memory());
  add("engine().tidy(() => t(1))", 'engine', (tf) => () => tf.engine().tidy(() => tf.scalar(1)), 'value');
  add("env().get('IS_NODE')", 'env', (tf) => () => tf.env().get('IS_NODE'), 'value');
  add("env().get('NO_SUCH_FLAG')", 'env', (tf) => () => tf.env().get('NO_SUCH_FLAG'), 'value');
  add("env().get(undefined)", 'env', (tf) => () => tf.env().get(undefined), 'value');
  add("env().getBool('DEBUG')", 'env', (tf) => () => tf.env().getBool('DEBUG'), 'value');
  add("env().getNumber('IS_NODE')", 'env', (tf) => () => tf.env().getNumber('IS_NODE'), 'value');
  add('ready()', 'ready', (tf) => () => tf.ready(), 'kind');
  add("setBackend('no-such-backend')", 'setBackend', (tf) => () => tf.setBackend('no-such-backend'), 'value');
  add('setBackend(undefined)', 'setBackend', (tf) => () => tf.setBackend(undefined), 'value');
  return out;
}
function labelOf(d) {
  return d.label;
}

function callCase(fn, descs, layer) {
  const name = `${fn}(${descs.map(labelOf).join(', ')})`;
  return {
    name,
    fn,
    layer,
    compare: compareModeOf(fn),
    build(tf, foreign, ctx) {
      const args = descs.map((d) => d.make(tf, foreign, ctx));
      const f = lookup(tf, fn);
      return () => f(...args);
    },
  };
}

// Argument lists for a baseline with argument `i` replaced by `value`: the OMIT arguments after
// the last given one are left out; those before it are passed as undefined.
function mutate(params, i, value) {
  const descs = params.map(([, base]) => base);
  descs[i] = value;
  let last = descs.length - 1;
  while (last >= 0 && descs[last].omit) last--;
  return descs.slice(0, last + 1).map((d) => (d.omit ? V.lit('undefined', undefined) : d));
}

function signatureCases(exported) {
  const out = [];
  for (const [fn, params] of Object.entries(SIG)) {
    if (!exported.has(fn)) continue;
    out.push(callCase(fn, mutate(params, 0, params[0][1]), 'signature'));
    params.forEach(([pool], i) => {
      for (const value of pool) out.push(callCase(fn, mutate(params, i, value), 'signature'));
    });
  }
  // tidy: each function alone, then tidy(name, fn) with each name and each function.
  if (exported.has('tidy')) {
    const fine = V.FN[6]; // () => 5
    for (const f of V.FN) out.push(callCase('tidy', [f], 'signature'));
    for (const s of V.STRING) out.push(callCase('tidy', [s, fine], 'signature'));
    for (const f of V.FN) out.push(callCase('tidy', [V.lit("'n'", 'n'), f], 'signature'));
  }
  return out;
}

function genericCases(fns) {
  const out = [];
  for (const fn of fns) {
    out.push(callCase(fn, [], 'generic'));
    out.push(callCase(fn, [t22], 'generic'));
    out.push(callCase(fn, [t22, t22], 'generic'));
    for (const value of V.ANY) out.push(callCase(fn, [value], 'generic'));
    for (const value of V.ANY) out.push(callCase(fn, [t22, value], 'generic'));
  }
  return out;
}

// `fn` may name a namespace's function: 'losses.meanSquaredError'.
function lookup(tf, fn) {
  return fn.split('.').reduce((o, k) => (o == null ? undefined : o[k]), tf);
}

// Namespaces whose functions join the generic layer, and those left out of it: the util
// helpers that fetch, time or draw random numbers (util.test.js checks the rest).
const NAMESPACES = ['image', 'linalg', 'losses', 'math', 'metrics', 'signal', 'util', 'tensor_util', 'sparse', 'fused', 'test_util',
  'spectral', 'string', 'layers', 'initializers', 'regularizers', 'constraints', 'callbacks', 'io', 'browser', 'data'];
const NAMESPACE_SKIP = new Set(['util.fetch', 'util.now', 'util.shuffle', 'util.shuffleCombo',
  'util.createShuffledIndices', 'util.randUniform', 'util.repeatedTry']);

function isClass(f) {
  return /^class[\s{]/.test(Function.prototype.toString.call(f)) || /^[A-Z]/.test(f.name || '');
}

// The functions the matrix covers: exported by tidytensor (not classes) and present in tfjs.
function coveredFunctions(tt, tfjs) {
  const top = Object.keys(tt).filter((k) => typeof tt[k] === 'function' && !isClass(tt[k]) &&
    !/^[A-Z]/.test(k) && typeof tfjs[k] === 'function');
  const nested = NAMESPACES.flatMap((ns) => Object.keys(tt[ns] || {}).map((k) => `${ns}.${k}`))
    .filter((k) => typeof lookup(tt, k) === 'function' && typeof lookup(tfjs, k) === 'function' &&
      !isClass(lookup(tt, k)) && !NAMESPACE_SKIP.has(k));
  return [...top, ...nested].sort();
}

function buildCases(tt, tfjs) {
  const fns = coveredFunctions(tt, tfjs);
  const exported = new Set(fns);
  const generic = fns.filter((f) => !(f in SKIP));
  const all = [
    ...signatureCases(exported),
    ...edgeCalls(exported).map(([fn, descs]) => callCase(fn, descs, 'edge')),
    ...handCases().filter((c) => exported.has(c.fn)),
    ...genericCases(generic),
    ...surfaceCases(),
  ];
  const seen = new Set();
  const cases = [];
  for (const c of all) {
    if (seen.has(c.name)) continue;
    seen.add(c.name);
    cases.push(c);
  }
  return cases;
}

module.exports = { buildCases, coveredFunctions, SKIP, compareModeOf };
