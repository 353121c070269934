'use strict';
// Differential tests of the elementwise ops: each program runs on tidytensor and on
// @tensorflow/tfjs; values, shapes, dtypes, memory counts and error texts must agree, and nothing
// may leak, even when the op throws inside tidy.
const { F, I, Bo, POS, makers, cases } = require('./helpers/ops');
// Every op of the core's elementwise tables, so a new op is tested here without a new line.
const table = require('../lib/native').elementwiseOps();

const unaryOps = table.unary.map((op) => op.name);
const unaryCases = [];
for (const op of unaryOps) {
  for (const [dt, mk] of Object.entries(makers)) {
    unaryCases.push([`${op} ${dt}`, (tf) => tf[op](mk(tf))]);
    unaryCases.push([`${op} ${dt} chained`, (tf) => mk(tf)[op]()]);
  }
  unaryCases.push([`${op} positive`, (tf) => tf[op](POS(tf))]);
  unaryCases.push([`${op} scalar`, (tf) => tf[op](tf.scalar(0.25))]);
  unaryCases.push([`${op} number`, (tf) => tf[op](2)]);
  unaryCases.push([`${op} nested array`, (tf) => tf[op]([[1, 2], [3, 4]])]);
  unaryCases.push([`${op} empty`, (tf) => tf[op](tf.zeros([0, 3]))]);
  unaryCases.push([`${op} bad argument`, (tf) => tf[op]({})]);
  unaryCases.push([`${op} string argument`, (tf) => tf[op]('x')]);
  unaryCases.push([`${op} null`, (tf) => tf[op](null)]);
}
cases('unary ops', unaryCases);

const binaryOps = table.binary.map((op) => op.name);
const binaryCases = [];
for (const op of binaryOps) {
  for (const [da, ma] of Object.entries(makers)) {
    for (const [db, mb] of Object.entries(makers)) {
      binaryCases.push([`${op} ${da}/${db}`, (tf) => tf[op](ma(tf), mb(tf))]);
    }
  }
  binaryCases.push([`${op} chained`, (tf) => F(tf)[op](I(tf))]);
  binaryCases.push([`${op} broadcast row`, (tf) => tf[op](F(tf), tf.tensor1d([1, 2, 3]))]);
  binaryCases.push([`${op} broadcast col`, (tf) => tf[op](F(tf), tf.tensor2d([[2], [3]]))]);
  binaryCases.push([`${op} broadcast both`,
    (tf) => tf[op](tf.tensor2d([[1], [2], [3]]), tf.tensor2d([[1, 2]]))]);
  binaryCases.push([`${op} broadcast rank 3 x rank 1`,
    (tf) => tf[op](tf.ones([2, 3, 4]), tf.range(1, 5))]);
  binaryCases.push([`${op} scalar tensor`, (tf) => tf[op](F(tf), tf.scalar(2))]);
  binaryCases.push([`${op} number right`, (tf) => tf[op](F(tf), 2)]);
  binaryCases.push([`${op} number left`, (tf) => tf[op](3, F(tf))]);
  binaryCases.push([`${op} int32 with number`, (tf) => tf[op](I(tf), 2)]);
  binaryCases.push([`${op} int32 with int32 scalar`, (tf) => tf[op](I(tf), tf.scalar(2, 'int32'))]);
  binaryCases.push([`${op} two numbers`, (tf) => tf[op](7, 2)]);
  binaryCases.push([`${op} arrays`, (tf) => tf[op]([1, 2, 3], [[4], [5]])]);
  binaryCases.push([`${op} booleans`, (tf) => tf[op](true, [false, true])]);
  binaryCases.push([`${op} empty`, (tf) => tf[op](tf.zeros([0, 3]), tf.ones([3]))]);
  binaryCases.push([`${op} incompatible shapes`,
    (tf) => tf[op](tf.ones([2, 3]), tf.ones([2, 2]))]);
  binaryCases.push([`${op} incompatible shapes with a TensorLike`,
    (tf) => tf[op](tf.ones([2, 3]), [1, 2])]);
  binaryCases.push([`${op} bad a`, (tf) => tf[op]({}, 1)]);
  binaryCases.push([`${op} bad b after a TensorLike a`, (tf) => tf[op]([1, 2], undefined)]);
  binaryCases.push([`${op} string b`, (tf) => tf[op](F(tf), 'x')]);
  binaryCases.push([`${op} String object a`, (tf) => tf[op](new String('x'), 1)]);
}
binaryCases.push(['div int32 by zero', (tf) => tf.div(tf.tensor1d([5, -5, 0], 'int32'),
  tf.tensor1d([0, 0, 0], 'int32'))]);
binaryCases.push(['div int32 floors', (tf) => tf.div(tf.tensor1d([7, -7, 7, -7], 'int32'),
  tf.tensor1d([2, 2, -2, -2], 'int32'))]);
binaryCases.push(['pow negative base fractional exponent',
  (tf) => tf.pow(tf.tensor1d([-2, 2]), 0.5)]);
binaryCases.push(['pow int32 exponent', (tf) => tf.pow(tf.tensor1d([2, 3], 'int32'),
  tf.tensor1d([3, 2], 'int32'))]);
cases('binary ops', binaryCases);

cases('cast', [
  ['cast float->int32', (tf) => tf.cast(tf.tensor1d([1.7, -1.7, 0.5, -0.5]), 'int32')],
  ['cast float->bool', (tf) => F(tf).cast('bool')],
  ['cast int32->float', (tf) => tf.cast(I(tf), 'float32')],
  ['cast bool->int32', (tf) => tf.cast(Bo(tf), 'int32')],
  ['cast bool->float32', (tf) => tf.cast(Bo(tf), 'float32')],
  ['cast same dtype', (tf) => tf.cast(F(tf), 'float32')],
  ['cast to string', (tf) => tf.cast(F(tf), 'string')],
  ['cast to unknown', (tf) => tf.cast(F(tf), 'float64')],
  ['cast array', (tf) => tf.cast([1.5, 2.5], 'int32')],
]);

const SPECIAL = (tf) => tf.tensor1d([NaN, Infinity, -Infinity, -0, 0, 0.5, -2.5, 7]);
cases('where', [
  ['where same shapes', (tf) => tf.where(tf.tensor1d([true, false, true]), [1, 2, 3], [4, 5, 6])],
  ['where broadcast condition', (tf) => tf.where(tf.tensor2d([[true], [false]]), F(tf), tf.zerosLike(F(tf)))],
  ['where broadcast all three', (tf) => tf.where(tf.tensor1d([true, false, true]),
    tf.tensor2d([[1], [2]]), tf.scalar(-1))],
  ['where int32', (tf) => tf.where(Bo(tf), I(tf), tf.onesLike(I(tf)))],
  ['where bool', (tf) => tf.where(Bo(tf), Bo(tf), tf.logicalNot(Bo(tf)))],
  ['where upcasts a and b', (tf) => tf.where(tf.tensor1d([true, false]), tf.tensor1d([1, 2], 'int32'), [0.5, 1.5])],
  ['where NaN and -0 pass', (tf) => tf.where(tf.tensor1d([true, true, false, false]),
    [NaN, -0, 1, 2], [3, 4, NaN, -0])],
  ['where chained', (tf) => tf.tensor1d([1, 2]).where(tf.tensor1d([false, true]), tf.tensor1d([9, 9]))],
  ['where empty', (tf) => tf.where(tf.zeros([0, 3], 'bool'), tf.zeros([0, 3]), tf.ones([3]))],
  ['where condition not bool', (tf) => tf.where(tf.tensor1d([1, 0]), [1, 2], [3, 4])],
  ['where incompatible shapes', (tf) => tf.where(tf.tensor1d([true, false]), [1, 2, 3], [4, 5, 6])],
  ['where bad a', (tf) => tf.where([true], {}, [1])],
  ['where nested arrays', (tf) => tf.where([[true, false]], [[1, 2]], [[3, 4]])],
]);

cases('composed ops', [
  ['clipByValue', (tf) => tf.clipByValue(SPECIAL(tf), -1, 2)],
  ['clipByValue int32 fractional bounds', (tf) => tf.clipByValue(I(tf), -1.5, 2.5)],
  ['clipByValue equal bounds', (tf) => tf.clipByValue(F(tf), 3, 3)],
  ['clipByValue min above max', (tf) => tf.clipByValue(F(tf), 3, 1)],
  ['clipByValue chained', (tf) => F(tf).clipByValue(0, 4)],
  ['leakyRelu', (tf) => tf.leakyRelu(SPECIAL(tf))],
  ['leakyRelu alpha', (tf) => tf.leakyRelu(F(tf), 0.5)],
  ['leakyRelu int32', (tf) => tf.leakyRelu(I(tf), 0.3)],
  ['leakyRelu chained', (tf) => F(tf).leakyRelu(0.1)],
  ['step', (tf) => tf.step(SPECIAL(tf))],
  ['step alpha', (tf) => tf.step(F(tf), 0.25)],
  ['step int32', (tf) => tf.step(I(tf), 2)],
  ['step chained', (tf) => F(tf).step()],
  ['logSigmoid', (tf) => tf.logSigmoid(SPECIAL(tf))],
  ['logSigmoid int32', (tf) => tf.logSigmoid(I(tf))],
  ['logSigmoid bool', (tf) => tf.logSigmoid(Bo(tf))],
  ['logSigmoid chained', (tf) => F(tf).logSigmoid()],
  ['addN', (tf) => tf.addN([F(tf), F(tf), tf.onesLike(F(tf))])],
  ['addN one', (tf) => tf.addN([I(tf)])],
  ['addN arrays', (tf) => tf.addN([[1, 2], [3, 4]])],
  ['addN dtypes differ', (tf) => tf.addN([F(tf), I(tf)])],
  ['addN shapes differ', (tf) => tf.addN([F(tf), tf.ones([3])])],
  ['addN empty', (tf) => tf.addN([])],
  ['addN not a list', (tf) => tf.addN(F(tf))],
]);

const X4 = (tf) => tf.range(0, 24).reshape([2, 2, 2, 3]).div(4);
cases('batchNorm', [
  ['batchNorm channel params', (tf) => tf.batchNorm(X4(tf), [1, 2, 3], [0.5, 1, 2], [0.1, 0.2, 0.3], [2, 1, 0.5])],
  ['batchNorm no scale/offset', (tf) => tf.batchNorm(X4(tf), [1, 2, 3], [0.5, 1, 2])],
  ['batchNorm epsilon', (tf) => tf.batchNorm(X4(tf), [0, 0, 0], [0, 0, 0], null, null, 0.5)],
  ['batchNorm 1d', (tf) => tf.batchNorm([1, 2, 3], [1], [4])],
  ['batchNorm2d', (tf) => tf.batchNorm2d(tf.ones([2, 3]), [1, 2, 3], [1, 1, 1])],
  ['batchNorm3d bad x rank', (tf) => tf.batchNorm3d(tf.ones([2, 3]), [1, 2, 3], [1, 1, 1])],
  ['batchNorm4d', (tf) => tf.batchNorm4d(X4(tf), [1, 2, 3], [0.5, 1, 2], [0, 0, 1])],
  ['batchNorm rank mismatch', (tf) => tf.batchNorm(X4(tf), [1, 2, 3], [[1, 1, 1]])],
  ['batchNorm NaN', (tf) => tf.batchNorm([NaN, 1], [0], [1])],
]);

cases('movingAverage', [
  ['zero-debiased', (tf) => tf.movingAverage(tf.tensor1d([1, 2]), tf.tensor1d([3, 5]), 0.9, 2)],
  ['plain', (tf) => tf.movingAverage([1, 2], [3, 5], 0.6, null, false)],
  ['no step', (tf) => tf.movingAverage([1, 2], [3, 5], 0.6)],
  ['shape mismatch', (tf) => tf.movingAverage([1, 2], [3], 0.6, 1)],
  ['dtype mismatch', (tf) => tf.movingAverage(tf.tensor1d([1, 2], 'int32'), [3, 4], 0.6, 1)],
]);

// The parts of an op outside the core's table that a new line there needs: typings (the
// function and the chained method) and the ES module's named export (npm run build:esm).
const { test } = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');

test('every op of the tables has typings and an ES module export', () => {
  const read = (f) => fs.readFileSync(path.join(__dirname, '..', f), 'utf8');
  const [dts, mjs] = [read('index.d.ts'), read('index.mjs')];
  for (const { name } of [...table.unary, ...table.binary]) {
    assert.match(dts, new RegExp(`^export function ${name}<`, 'm'), `index.d.ts: no export function ${name}`);
    assert.match(dts, new RegExp(`^  ${name}<T extends Tensor>\\(`, 'm'), `index.d.ts: no chained ${name} on Tensor`);
    assert.match(mjs, new RegExp(`^  ${name},$`, 'm'), `index.mjs: no export ${name} (npm run build:esm)`);
  }
});
