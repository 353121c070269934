'use strict';
// The bad (and edge) argument values of the matrix, grouped by the kind of argument they are
// given as. A value is { label, make(tf, foreign, ctx) }: it is made afresh for each case with
// the library under test (`tf`), so that the same label means the same thing on tidytensor and
// on tfjs. Tensors a value makes are recorded in `ctx` and disposed after the case.
//
// SAFETY: a value that drives an allocation size (shape, count) must give either zero elements
// or far more than a typed array can hold (>= 2**53 elements), so that both libraries refuse at
// once. 2**31 and 2**32 are left out of every size-driving pool: tfjs would really allocate
// 8 or 16 GiB for them (its typed arrays hold up to 2**32 elements).

const v = (label, make) => ({ label, make });
// Primitives are shared; arrays and objects are built afresh for every case.
const lit = (label, value) => v(label, () => value);
const arr = (label, build) => v(label, build);

// A tensor of the library under test, disposed after the case.
const T = (label, values, shape, dtype) =>
  v(label, (tf, foreign, ctx) => ctx.own(tf.tensor(values, shape, dtype)));

const OMIT = { label: '<omit>', omit: true };

const sym = v('Symbol(x)', () => Symbol('x'));

// Shared builders for the exotic values.
const disposed = v('disposed', (tf) => {
  const t = tf.tensor([1, 2, 3]);
  t.dispose();
  return t;
});
const foreignT = v('foreign', (tf, foreign, ctx) => ctx.alien(foreign.tensor([1, 2, 3])));
const proxyT = v('Proxy(tensor)', (tf, foreign, ctx) => new Proxy(ctx.own(tf.tensor([1, 2, 3])), {}));
const proxyArr = arr('Proxy([[1,2],[3,4]])', () => new Proxy([[1, 2], [3, 4]], {}));
const throwingObj = arr('{throwing getters}', () => {
  const boom = () => { throw new Error('getter boom'); };
  const o = {};
  for (const k of ['0', 'length', 'shape', 'dtype', 'size', 'id', 'dataId', 'data', 'dataSync']) {
    Object.defineProperty(o, k, { get: boom, enumerable: true });
  }
  return o;
});
const throwingElem = arr('[1,<throws>,3]', () => {
  const a = [1, 2, 3];
  Object.defineProperty(a, 1, { get() { throw new Error('element boom'); }, enumerable: true });
  return a;
});
// Reading element 1 makes (and frees) a tensor: the conversion is re-entered mid-way.
const reentrant = v('[1,<makes tensor>,3]', (tf) => {
  const a = [1, 2, 3];
  Object.defineProperty(a, 1, {
    get() {
      const s = tf.scalar(2);
      const x = s.dataSync()[0];
      s.dispose();
      return x;
    },
    enumerable: true,
  });
  return a;
});

// The pool the generic layer gives to every function, in each argument position.
const ANY = [
  lit('undefined', undefined),
  lit('null', null),
  arr('{}', () => ({})),
  lit("'abc'", 'abc'),
  lit("'1'", '1'),
  lit('NaN', NaN),
  lit('Infinity', Infinity),
  lit('-Infinity', -Infinity),
  lit('-0', -0),
  lit('1.5', 1.5),
  lit('-1', -1),
  lit('2**31', 2 ** 31),
  lit('2**32', 2 ** 32),
  lit('2**53', 2 ** 53),
  lit('true', true),
  arr('[]', () => []),
  arr('[[]]', () => [[]]),
  arr('[[1,2],[3]]', () => [[1, 2], [3]]),
  sym,
  arr('Float64Array[1,2,3]', () => new Float64Array([1, 2, 3])),
  arr('Int8Array[1,2,3]', () => new Int8Array([1, 2, 3])),
  proxyT,
  proxyArr,
  throwingObj,
  throwingElem,
  reentrant,
  disposed,
  foreignT,
];

// Tensor arguments: the common bad values, TensorLikes of the wrong kind, and odd tensors.
const TENSOR = [
  lit('undefined', undefined),
  lit('null', null),
  arr('{}', () => ({})),
  lit("'abc'", 'abc'),
  lit('NaN', NaN),
  lit('true', true),
  arr('[]', () => []),
  arr('[[]]', () => [[]]),
  arr('[[1,2],[3]]', () => [[1, 2], [3]]),
  arr('[1,[2]]', () => [1, [2]]),
  arr("['a','b']", () => ['a', 'b']),
  arr('[null,1]', () => [null, 1]),
  sym,
  arr('Float64Array[1,2,3]', () => new Float64Array([1, 2, 3])),
  arr('Int8Array[1,2,3]', () => new Int8Array([1, 2, 3])),
  proxyT,
  proxyArr,
  throwingObj,
  throwingElem,
  reentrant,
  disposed,
  foreignT,
  T('t(2.5)', 2.5),
  T('t([],[0])', [], [0]),
  T('t([],[2,0])', [], [2, 0]),
  T('t([1,2,3],int32)', [1, 2, 3], [3], 'int32'),
  T('t([true,false],bool)', [true, false], [2], 'bool'),
];

// Lists of tensors (concat, stack).
const TENSORS = [
  lit('undefined', undefined),
  lit('null', null),
  arr('{}', () => ({})),
  lit("'abc'", 'abc'),
  lit('3', 3),
  arr('[]', () => []),
  sym,
  v('t([1,2])', (tf, f, ctx) => ctx.own(tf.tensor([1, 2]))),
  v('[t([1,2])]', (tf, f, ctx) => [ctx.own(tf.tensor([1, 2]))]),
  v('[t([1,2]),undefined]', (tf, f, ctx) => [ctx.own(tf.tensor([1, 2])), undefined]),
  v('[t([1,2]),null]', (tf, f, ctx) => [ctx.own(tf.tensor([1, 2])), null]),
  v("[t([1,2]),'abc']", (tf, f, ctx) => [ctx.own(tf.tensor([1, 2])), 'abc']),
  v('[t([1,2]),[3,4]]', (tf, f, ctx) => [ctx.own(tf.tensor([1, 2])), [3, 4]]),
  v('[[1,2],[3,4]]', () => [[1, 2], [3, 4]]),
  v('[t([1,2]),t([3])]', (tf, f, ctx) => [ctx.own(tf.tensor([1, 2])), ctx.own(tf.tensor([3]))]),
  v('[t([1,2]),t([[3,4]])]', (tf, f, ctx) => [ctx.own(tf.tensor([1, 2])), ctx.own(tf.tensor([[3, 4]]))]),
  v('[t([1,2]),t([3,4],int32)]', (tf, f, ctx) =>
    [ctx.own(tf.tensor([1, 2])), ctx.own(tf.tensor([3, 4], [2], 'int32'))]),
  v('[t([1,2],bool),t([3,4],int32)]', (tf, f, ctx) =>
    [ctx.own(tf.tensor([1, 0], [2], 'bool')), ctx.own(tf.tensor([3, 4], [2], 'int32'))]),
  v('[t(1),t(2)]', (tf, f, ctx) => [ctx.own(tf.scalar(1)), ctx.own(tf.scalar(2))]),
  v('[t([],[0]),t([1,2])]', (tf, f, ctx) => [ctx.own(tf.tensor([], [0])), ctx.own(tf.tensor([1, 2]))]),
  v('[t([1,2]),disposed]', (tf, f, ctx) => {
    const d = tf.tensor([3, 4]);
    d.dispose();
    return [ctx.own(tf.tensor([1, 2])), d];
  }),
  v('[t([1,2]),foreign]', (tf, f, ctx) => [ctx.own(tf.tensor([1, 2])), ctx.alien(f.tensor([3, 4]))]),
  v('[t([1,2]),<hole>,t([3,4])]', (tf, f, ctx) => {
    const a = new Array(3);
    a[0] = ctx.own(tf.tensor([1, 2]));
    a[2] = ctx.own(tf.tensor([3, 4]));
    return a;
  }),
  v('Proxy([t([1,2]),t([3,4])])', (tf, f, ctx) =>
    new Proxy([ctx.own(tf.tensor([1, 2])), ctx.own(tf.tensor([3, 4]))], {})),
  v('[t([1,2]),<throws>]', (tf, f, ctx) => {
    const a = [ctx.own(tf.tensor([1, 2])), 0];
    Object.defineProperty(a, 1, { get() { throw new Error('element boom'); }, enumerable: true });
    return a;
  }),
  v('{length:2,0:t,1:t}', (tf, f, ctx) => {
    const t = ctx.own(tf.tensor([1, 2]));
    return { length: 2, 0: t, 1: t };
  }),
];

// Shapes. Every entry has zero elements, a few elements, or overflows any typed array.
const SHAPE = [
  lit('undefined', undefined),
  lit('null', null),
  arr('{}', () => ({})),
  lit("'abc'", 'abc'),
  lit('2', 2),
  lit('NaN', NaN),
  sym,
  arr('[]', () => []),
  arr('[0]', () => [0]),
  arr('[2,0]', () => [2, 0]),
  arr('[1.5]', () => [1.5]),
  arr('[NaN]', () => [NaN]),
  arr('[-1]', () => [-1]),
  arr('[-0]', () => [-0]),
  arr('[Infinity]', () => [Infinity]),
  arr("['2']", () => ['2']),
  arr('[true]', () => [true]),
  arr('[null]', () => [null]),
  arr('[[2]]', () => [[2]]),
  arr('[0,2**32]', () => [0, 2 ** 32]),
  arr('[2**40,0]', () => [2 ** 40, 0]),
  arr('[0,2**53]', () => [0, 2 ** 53]),
  arr('[2**53]', () => [2 ** 53]),
  arr('[2**30,2**30,2**30]', () => [2 ** 30, 2 ** 30, 2 ** 30]),
  arr('[2**53,2**53]', () => [2 ** 53, 2 ** 53]),
  arr('[1,1,1,1,1,1,1,1,1]', () => [1, 1, 1, 1, 1, 1, 1, 1, 1]),
  arr('Int32Array[2,3]', () => new Int32Array([2, 3])),
  arr('Float64Array[2,3]', () => new Float64Array([2, 3])),
  arr('Proxy([2,3])', () => new Proxy([2, 3], {})),
  arr('[2,<throws>]', () => {
    const a = [2, 3];
    Object.defineProperty(a, 1, { get() { throw new Error('element boom'); }, enumerable: true });
    return a;
  }),
  v('t([2,3])', (tf, f, ctx) => ctx.own(tf.tensor([2, 3], [2], 'int32'))),
];

// A single axis (expandDims, argMax, softmax's dim, concat/stack/gather's axis).
const AXIS = [
  lit('undefined', undefined),
  lit('null', null),
  lit('NaN', NaN),
  lit('Infinity', Infinity),
  lit('-Infinity', -Infinity),
  lit('-0', -0),
  lit('1.5', 1.5),
  lit('-1', -1),
  lit('-3', -3),
  lit('2', 2),
  lit('5', 5),
  lit('2**31', 2 ** 31),
  lit('2**53', 2 ** 53),
  lit("'0'", '0'),
  lit("'abc'", 'abc'),
  lit('true', true),
  arr('[]', () => []),
  arr('[0]', () => [0]),
  arr('{}', () => ({})),
  sym,
];

// One axis or a list of axes (sum, mean, max, min, squeeze).
const AXES = AXIS.concat([
  arr('[0,0]', () => [0, 0]),
  arr('[0,1]', () => [0, 1]),
  arr('[1,-1]', () => [1, -1]),
  arr('[0,1.5]', () => [0, 1.5]),
  arr('[NaN]', () => [NaN]),
  arr('[5]', () => [5]),
  arr('[-3]', () => [-3]),
  arr('[2**53]', () => [2 ** 53]),
  arr("['0']", () => ['0']),
  arr('[[0]]', () => [[0]]),
  arr('Int32Array[0]', () => new Int32Array([0])),
  arr('Proxy([0])', () => new Proxy([0], {})),
]);

const PERM = [
  lit('undefined', undefined),
  lit('null', null),
  lit('0', 0),
  lit("'ab'", 'ab'),
  arr('{}', () => ({})),
  arr('[]', () => []),
  arr('[0]', () => [0]),
  arr('[0,0]', () => [0, 0]),
  arr('[1,0]', () => [1, 0]),
  arr('[0,1,2]', () => [0, 1, 2]),
  arr('[1.5,0]', () => [1.5, 0]),
  arr('[NaN,0]', () => [NaN, 0]),
  arr('[-1,0]', () => [-1, 0]),
  arr('[2,0]', () => [2, 0]),
  arr('[2**31,0]', () => [2 ** 31, 0]),
  arr('[2**53,0]', () => [2 ** 53, 0]),
  arr("['1','0']", () => ['1', '0']),
  arr('Int32Array[1,0]', () => new Int32Array([1, 0])),
  sym,
];

const DTYPE = [
  lit('undefined', undefined),
  lit('null', null),
  lit("'float32'", 'float32'),
  lit("'int32'", 'int32'),
  lit("'bool'", 'bool'),
  lit("'string'", 'string'),
  lit("'complex64'", 'complex64'),
  lit("'float64'", 'float64'),
  lit("'int8'", 'int8'),
  lit("'FLOAT32'", 'FLOAT32'),
  lit("''", ''),
  lit("'abc'", 'abc'),
  lit('1', 1),
  arr('{}', () => ({})),
  v("new String('int32')", () => new String('int32')),
  sym,
];

// Numbers that size an output (depth, num, numRows, range bounds): no 2**31 or 2**32.
const COUNT = [
  lit('undefined', undefined),
  lit('null', null),
  arr('{}', () => ({})),
  lit("'abc'", 'abc'),
  lit("'3'", '3'),
  lit('NaN', NaN),
  lit('Infinity', Infinity),
  lit('-Infinity', -Infinity),
  lit('-0', -0),
  lit('0', 0),
  lit('1', 1),
  lit('1.5', 1.5),
  lit('-1', -1),
  lit('2**53', 2 ** 53),
  lit('true', true),
  arr('[]', () => []),
  arr('[3]', () => [3]),
  sym,
  v('t(3)', (tf, f, ctx) => ctx.own(tf.scalar(3))),
];

// Numbers that are values (fill value, onValue, mean, minval): anything goes.
const NUM = [
  lit('undefined', undefined),
  lit('null', null),
  arr('{}', () => ({})),
  lit("'abc'", 'abc'),
  lit("'1'", '1'),
  lit('NaN', NaN),
  lit('Infinity', Infinity),
  lit('-Infinity', -Infinity),
  lit('-0', -0),
  lit('1.5', 1.5),
  lit('-1', -1),
  lit('2**31', 2 ** 31),
  lit('2**53', 2 ** 53),
  lit('1e39', 1e39),
  lit('true', true),
  arr('[]', () => []),
  arr('[2]', () => [2]),
  sym,
  v('t(3)', (tf, f, ctx) => ctx.own(tf.scalar(3))),
];

// truncatedNormal's mean and stdDev: tfjs resamples until a value lies within two standard
// deviations, forever when that is impossible (NaN, negative stdDev), so only values that
// terminate there are given.
const TRUNC_NUM = [
  lit('undefined', undefined),
  lit('null', null),
  lit('-0', -0),
  lit('1.5', 1.5),
  lit('2**53', 2 ** 53),
  lit('true', true),
  arr('[]', () => []),
  lit("'1'", '1'),
  sym,
];

const BOOL = [
  lit('undefined', undefined),
  lit('null', null),
  lit('0', 0),
  lit('1', 1),
  lit('NaN', NaN),
  lit("''", ''),
  lit("'false'", 'false'),
  lit("'abc'", 'abc'),
  arr('{}', () => ({})),
  arr('[]', () => []),
  sym,
];

const SEED = [
  lit('undefined', undefined),
  lit('null', null),
  lit('0', 0),
  lit('-1', -1),
  lit('1.5', 1.5),
  lit('NaN', NaN),
  lit('Infinity', Infinity),
  lit('2**53', 2 ** 53),
  lit("'abc'", 'abc'),
  lit("''", ''),
  lit('true', true),
  arr('{}', () => ({})),
  arr('[]', () => []),
  sym,
];

// slice's begin and size (x is 2x3).
const BEGIN = [
  lit('undefined', undefined),
  lit('null', null),
  lit('0', 0),
  lit('1', 1),
  lit('-1', -1),
  lit('5', 5),
  lit('NaN', NaN),
  lit('1.5', 1.5),
  lit("'abc'", 'abc'),
  arr('{}', () => ({})),
  arr('[]', () => []),
  arr('[0]', () => [0]),
  arr('[-1,0]', () => [-1, 0]),
  arr('[-2,0]', () => [-2, 0]),
  arr('[0,5]', () => [0, 5]),
  arr('[1.5,0]', () => [1.5, 0]),
  arr('[NaN,0]', () => [NaN, 0]),
  arr('[2**53,0]', () => [2 ** 53, 0]),
  arr('[0,0,0]', () => [0, 0, 0]),
  arr("['1','0']", () => ['1', '0']),
  sym,
];

const SIZE = [
  lit('undefined', undefined),
  lit('null', null),
  lit('0', 0),
  lit('1', 1),
  lit('-1', -1),
  lit('-2', -2),
  lit('5', 5),
  lit('NaN', NaN),
  lit("'abc'", 'abc'),
  arr('{}', () => ({})),
  arr('[]', () => []),
  arr('[1]', () => [1]),
  arr('[-1,-1]', () => [-1, -1]),
  arr('[-2,1]', () => [-2, 1]),
  arr('[0,0]', () => [0, 0]),
  arr('[1.5,1]', () => [1.5, 1]),
  arr('[NaN,1]', () => [NaN, 1]),
  arr('[2**53,1]', () => [2 ** 53, 1]),
  arr('[1,1,1]', () => [1, 1, 1]),
  arr("['1','1']", () => ['1', '1']),
  sym,
];

// Names and messages (variable's name, tidy's name, findBackend).
const STRING = [
  lit('undefined', undefined),
  lit('null', null),
  lit("''", ''),
  lit("'abc'", 'abc'),
  lit('5', 5),
  arr('{}', () => ({})),
  arr("['a']", () => ['a']),
  v("new String('n')", () => new String('n')),
  sym,
];

// The values given to tensor()/tensor1d()... : every shape of nested data and typed array.
const VALUES = [
  lit('undefined', undefined),
  lit('null', null),
  arr('{}', () => ({})),
  lit("'abc'", 'abc'),
  lit('NaN', NaN),
  lit('-0', -0),
  lit('true', true),
  sym,
  arr('[]', () => []),
  arr('[[]]', () => [[]]),
  arr('[[],[]]', () => [[], []]),
  arr('[[1,2],[3]]', () => [[1, 2], [3]]),
  arr('[[1],[2,3]]', () => [[1], [2, 3]]),
  arr('[1,[2]]', () => [1, [2]]),
  arr('[[1,2],3]', () => [[1, 2], 3]),
  arr("['a','b']", () => ['a', 'b']),
  arr("[1,'a']", () => [1, 'a']),
  arr("['1','2']", () => ['1', '2']),
  arr('[true,false]', () => [true, false]),
  arr('[true,2]', () => [true, 2]),
  arr('[null,1]', () => [null, 1]),
  arr('[undefined,1]', () => [undefined, 1]),
  arr('[{},1]', () => [{}, 1]),
  arr('[Symbol(x)]', () => [Symbol('x')]),
  arr('[<hole>,1]', () => {
    const a = new Array(2);
    a[1] = 1;
    return a;
  }),
  arr('[NaN,Infinity,-Infinity,-0]', () => [NaN, Infinity, -Infinity, -0]),
  arr('[2**31,2**53,1e39]', () => [2 ** 31, 2 ** 53, 1e39]),
  arr('Float32Array[1,2]', () => new Float32Array([1, 2])),
  arr('Int32Array[1,2]', () => new Int32Array([1, 2])),
  arr('Uint8Array[1,2]', () => new Uint8Array([1, 2])),
  arr('Uint8ClampedArray[1,2]', () => new Uint8ClampedArray([1, 2])),
  arr('Float64Array[1.5,2]', () => new Float64Array([1.5, 2])),
  arr('Int8Array[-1,2]', () => new Int8Array([-1, 2])),
  arr('Int16Array[1,2]', () => new Int16Array([1, 2])),
  arr('Uint32Array[4294967295]', () => new Uint32Array([4294967295])),
  arr('[Float32Array[1,2],Float32Array[3,4]]', () =>
    [new Float32Array([1, 2]), new Float32Array([3, 4])]),
  arr('[[1,2],Float32Array[3,4]]', () => [[1, 2], new Float32Array([3, 4])]),
  arr('[Float32Array[1,2],Float32Array[3]]', () => [new Float32Array([1, 2]), new Float32Array([3])]),
  arr('Array(2)', () => new Array(2)),
  arr('{length:2,0:1,1:2}', () => ({ length: 2, 0: 1, 1: 2 })),
  v('[t(1),t(2)]', (tf, f, ctx) => [ctx.own(tf.scalar(1)), ctx.own(tf.scalar(2))]),
  v('t([1,2])', (tf, f, ctx) => ctx.own(tf.tensor([1, 2]))),
  proxyArr,
  throwingObj,
  throwingElem,
  reentrant,
  disposed,
  foreignT,
];

// tf.buffer's values.
const BUFVALUES = [
  lit('undefined', undefined),
  lit('null', null),
  arr('{}', () => ({})),
  lit("'abc'", 'abc'),
  lit('4', 4),
  arr('[1,2,3,4]', () => [1, 2, 3, 4]),
  arr('[1,2,3]', () => [1, 2, 3]),
  arr('[[1,2],[3,4]]', () => [[1, 2], [3, 4]]),
  arr('Float32Array[1,2,3,4]', () => new Float32Array([1, 2, 3, 4])),
  arr('Float32Array[1,2,3]', () => new Float32Array([1, 2, 3])),
  arr('Int32Array[1,2,3,4]', () => new Int32Array([1, 2, 3, 4])),
  arr('Uint8Array[1,0,1,0]', () => new Uint8Array([1, 0, 1, 0])),
  arr('Float64Array[1,2,3,4]', () => new Float64Array([1, 2, 3, 4])),
  sym,
];

// tidy's function argument.
const FN = [
  lit('undefined', undefined),
  lit('null', null),
  lit("'abc'", 'abc'),
  arr('{}', () => ({})),
  lit('5', 5),
  sym,
  v('() => 5', () => () => 5),
  v('() => undefined', () => () => undefined),
  v('() => t([1,2])', (tf) => () => tf.tensor([1, 2])),
  v('() => [t(1),{a:t(2)}]', (tf) => () => [tf.scalar(1), { a: tf.scalar(2) }]),
  v('() => throws', () => () => { throw new Error('fn boom'); }),
  v('() => Promise', () => () => Promise.resolve(1)),
  v('async () => t(1)', (tf) => async () => tf.scalar(1)),
  v('() => foreign', (tf, f, ctx) => () => ctx.alien(f.tensor([1, 2]))),
  v('() => disposed', (tf) => () => {
    const t = tf.tensor([1, 2]);
    t.dispose();
    return t;
  }),
];

// dispose's and keep's argument: containers of tensors.
const CONTAINER = [
  lit('undefined', undefined),
  lit('null', null),
  lit('5', 5),
  lit("'abc'", 'abc'),
  sym,
  arr('{}', () => ({})),
  arr('[]', () => []),
  v('t([1,2])', (tf, f, ctx) => ctx.own(tf.tensor([1, 2]))),
  v('[t(1),[t(2)],{a:t(3)}]', (tf, f, ctx) =>
    [ctx.own(tf.scalar(1)), [ctx.own(tf.scalar(2))], { a: ctx.own(tf.scalar(3)) }]),
  v('cyclic [t(1), self]', (tf, f, ctx) => {
    const a = [ctx.own(tf.scalar(1))];
    a.push(a);
    return a;
  }),
  proxyT,
  throwingObj,
  disposed,
  foreignT,
  v('Float32Array[1,2]', () => new Float32Array([1, 2])),
];

module.exports = {
  v, lit, arr, T, OMIT, ANY, TENSOR, TENSORS, SHAPE, AXIS, AXES, PERM, DTYPE, COUNT, NUM, TRUNC_NUM,
  BOOL, SEED, BEGIN, SIZE, STRING, VALUES, BUFVALUES, FN, CONTAINER,
};
