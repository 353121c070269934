'use strict';
// Differential tests of the reduction ops: each program runs on tidytensor and on
// @tensorflow/tfjs; values, shapes, dtypes, memory counts and error texts must agree, and nothing
// may leak, even when the op throws inside tidy.
const { F, I, makers, cases } = require('./helpers/ops');

const reduceCases = [];
for (const op of ['sum', 'mean', 'max', 'min', 'prod', 'logSumExp']) {
  for (const [dt, mk] of Object.entries(makers)) {
    // tfjs's logSumExp of bool subtracts in bool and stores -1 as 255 (README: bool holds 0/1).
    if (op === 'logSumExp' && dt === 'bool') continue;
    reduceCases.push([`${op} ${dt} all`, (tf) => tf[op](mk(tf))]);
    reduceCases.push([`${op} ${dt} axis 0`, (tf) => tf[op](mk(tf), 0)]);
    reduceCases.push([`${op} ${dt} axis -1 keepDims`, (tf) => mk(tf)[op](-1, true)]);
  }
  const R3 = (tf) => tf.range(0, 24).reshape([2, 3, 4]);
  reduceCases.push([`${op} axes [0, 2]`, (tf) => tf[op](R3(tf), [0, 2])]);
  reduceCases.push([`${op} axes [-1, 0] keepDims`, (tf) => tf[op](R3(tf), [-1, 0], true)]);
  reduceCases.push([`${op} all keepDims`, (tf) => tf[op](R3(tf), null, true)]);
  reduceCases.push([`${op} empty axes`, (tf) => tf[op](R3(tf), [])]);
  reduceCases.push([`${op} scalar`, (tf) => tf[op](tf.scalar(3))]);
  reduceCases.push([`${op} array`, (tf) => tf[op]([[1, 5], [3, 2]], 1)]);
  reduceCases.push([`${op} bad axis`, (tf) => tf[op](R3(tf), 3)]);
  reduceCases.push([`${op} bad negative axis`, (tf) => tf[op](R3(tf), -4)]);
}
reduceCases.push(['sum empty', (tf) => tf.sum(tf.zeros([0, 3]), 0)]);
reduceCases.push(['prod empty', (tf) => tf.prod(tf.zeros([0, 3]), 0)]);
reduceCases.push(['prod int32 beyond 2^31', (tf) => tf.prod(tf.tensor1d([65536, 65536, 3], 'int32'))]);
reduceCases.push(['prod special values', (tf) => tf.prod(tf.tensor2d([[NaN, 1], [Infinity, 0], [-0, 2]]), 1)]);
reduceCases.push(['logSumExp large values', (tf) => tf.logSumExp(tf.tensor1d([1000, 1001, 1002]))]);
reduceCases.push(['logSumExp -Infinity', (tf) => tf.logSumExp(tf.tensor1d([-Infinity, 0]))]);
const B2 = (tf) => tf.tensor2d([[true, false, true], [true, true, true]]);
for (const op of ['all', 'any']) {
  reduceCases.push([`${op} all`, (tf) => tf[op](B2(tf))]);
  reduceCases.push([`${op} axis 1`, (tf) => tf[op](B2(tf), 1)]);
  reduceCases.push([`${op} axis 0 keepDims`, (tf) => B2(tf)[op](0, true)]);
  // (all of nothing is true here, where tfjs's kernel reads a missing first value: README)
  if (op === 'any') reduceCases.push([`${op} empty`, (tf) => tf[op](tf.zeros([0, 3], 'bool'), 0)]);
  reduceCases.push([`${op} array`, (tf) => tf[op]([[1, 0], [1, 1]], 1)]);
  reduceCases.push([`${op} float32`, (tf) => tf[op](F(tf))]);
}
for (const [dt, mk] of Object.entries(makers)) {
  reduceCases.push([`moments ${dt}`, (tf) => { const m = tf.moments(mk(tf), 0); return [m.mean, m.variance]; }]);
}
reduceCases.push(['moments all keepDims', (tf) => { const m = tf.moments(F(tf), null, true); return [m.mean, m.variance]; }]);
reduceCases.push(['moments axes', (tf) => { const m = tf.moments(tf.range(0, 24).reshape([2, 3, 4]), [0, 2]); return [m.mean, m.variance]; }]);
reduceCases.push(['sum large', (tf) => tf.sum(tf.range(0, 10000).div(100))]);
// Batch normalization's moments (per channel over [N, H, W]) and layer normalization's (per row),
// big enough for the threaded paths, and a set of axes that is not one block.
const BIG = (tf) => tf.range(0, 4 * 30 * 30 * 64).mod(97).mul(0.37).sub(9).reshape([4, 30, 30, 64]);
reduceCases.push(['moments per channel', (tf) => { const m = tf.moments(BIG(tf), [0, 1, 2], true); return [m.mean, m.variance]; }]);
reduceCases.push(['moments per row', (tf) => { const m = tf.moments(BIG(tf), -1); return [m.mean, m.variance]; }]);
reduceCases.push(['moments axes [0, 3]', (tf) => { const m = tf.moments(BIG(tf), [0, 3]); return [m.mean, m.variance]; }]);
for (const op of ['argMax', 'argMin']) {
  for (const [dt, mk] of Object.entries(makers)) {
    reduceCases.push([`${op} ${dt} default axis`, (tf) => tf[op](mk(tf))]);
    reduceCases.push([`${op} ${dt} axis 1`, (tf) => mk(tf)[op](1)]);
    reduceCases.push([`${op} ${dt} axis -1`, (tf) => tf[op](mk(tf), -1)]);
  }
  reduceCases.push([`${op} ties`, (tf) => tf[op](tf.tensor1d([3, 1, 3, 1]))]);
  reduceCases.push([`${op} rank 3 axis 1`, (tf) => tf[op](tf.range(0, 24).reshape([2, 3, 4]).neg(), 1)]);
  reduceCases.push([`${op} bad axis`, (tf) => tf[op](F(tf), 2)]);
}
reduceCases.push(['softmax default', (tf) => tf.softmax(F(tf))]);
reduceCases.push(['softmax chained', (tf) => F(tf).softmax()]);
reduceCases.push(['softmax 1d', (tf) => tf.softmax([1, 2, 3])]);
reduceCases.push(['softmax large values', (tf) => tf.softmax([1000, 1001, 1002])]);
reduceCases.push(['softmax rank 3', (tf) => tf.softmax(tf.range(0, 24).reshape([2, 3, 4]).div(7))]);
reduceCases.push(['softmax dim 0', (tf) => tf.softmax(F(tf), 0)]);
reduceCases.push(['softmax int32', (tf) => tf.softmax(I(tf))]);
cases('reductions', reduceCases);

const R = (tf) => tf.range(0, 24).reshape([2, 3, 4]);

const V = (tf) => tf.tensor1d([3, -4, 0.5, NaN]);
const Mx = (tf) => tf.tensor2d([[1, -2, 3], [-4, 5, -6]]);
cases('norm, logSoftmax, dot, outerProduct', [
  ['logSoftmax', (tf) => tf.logSoftmax(Mx(tf))],
  ['logSoftmax chained large', (tf) => tf.tensor1d([1000, 1001, 1002]).logSoftmax()],
  ['logSoftmax non-last axis', (tf) => tf.logSoftmax(Mx(tf), 0)],
  ['logSoftmax int32', (tf) => tf.logSoftmax(tf.tensor1d([1, 2], 'int32'))],
  ['norm euclidean', (tf) => tf.norm(Mx(tf))],
  ['norm NaN', (tf) => tf.norm(V(tf))],
  ['norm 1 axis keepDims', (tf) => tf.norm(Mx(tf), 1, 1, true)],
  ['norm inf axis 0', (tf) => tf.norm(Mx(tf), Infinity, 0)],
  ['norm -inf', (tf) => tf.norm(Mx(tf), -Infinity)],
  ['norm 2 axis [1]', (tf) => tf.norm(Mx(tf), 2, [1])],
  ['norm fro', (tf) => tf.norm(Mx(tf), 'fro', [0, 1])],
  ['norm matrix 1', (tf) => tf.norm(Mx(tf), 1, [0, 1])],
  ['norm matrix inf keepDims', (tf) => tf.norm(Mx(tf), Infinity, [0, 1], true)],
  ['norm matrix -inf', (tf) => tf.norm(Mx(tf), -Infinity, [0, 1])],
  ['norm scalar', (tf) => tf.norm(tf.scalar(-3))],
  ['norm chained', (tf) => Mx(tf).norm(1)],
  ['norm bad ord', (tf) => tf.norm(Mx(tf), 3)],
  ['norm bad matrix ord', (tf) => tf.norm(Mx(tf), 2, [0, 1])],
  ['norm int32', (tf) => tf.norm(tf.tensor1d([3, 4], 'int32'))],
  ['dot 1x1', (tf) => tf.dot([1, 2, 3], [4, 5, 6])],
  ['dot 1x2', (tf) => tf.dot([1, 2], Mx(tf))],
  ['dot 2x1', (tf) => tf.dot(Mx(tf), [1, 2, 3])],
  ['dot 2x2 chained', (tf) => Mx(tf).dot(tf.ones([3, 2]))],
  ['dot inner mismatch', (tf) => tf.dot(Mx(tf), [1, 2])],
  ['dot rank 3', (tf) => tf.dot(tf.ones([1, 2, 3]), [1, 2, 3])],
  ['outerProduct', (tf) => tf.outerProduct([1, 2], [3, 4, 5])],
  ['outerProduct rank 2', (tf) => tf.outerProduct(Mx(tf), [1])],
]);

const C3 = (tf) => tf.range(1, 25).reshape([2, 3, 4]).div(3);
const cum = [];
for (const op of ['cumsum', 'cumprod']) {
  for (const [dt, mk] of Object.entries(makers)) {
    cum.push([`${op} ${dt}`, (tf) => tf[op](mk(tf))]);
    cum.push([`${op} ${dt} axis 1 exclusive`, (tf) => tf[op](mk(tf), 1, true)]);
    cum.push([`${op} ${dt} axis 1 reverse`, (tf) => tf[op](mk(tf), 1, false, true)]);
  }
  cum.push([`${op} rank 3 middle axis exclusive reverse`, (tf) => tf[op](C3(tf), 1, true, true)]);
  cum.push([`${op} rank 3 axis 0`, (tf) => C3(tf)[op](0)]);
  cum.push([`${op} special values`, (tf) => tf[op]([1, NaN, 2, Infinity, -0])]);
  cum.push([`${op} long row`, (tf) => tf[op](tf.range(0, 3000).div(1000))]);
  cum.push([`${op} empty`, (tf) => tf[op](tf.zeros([0, 3]), 1)]);
  cum.push([`${op} array`, (tf) => tf[op]([[1, 2], [3, 4]], 1)]);
}
cum.push(['cumsum int32 wraps', (tf) => tf.cumsum(tf.tensor1d([2147483647, 1, 5], 'int32'))]);
cases('cumsum and cumprod', cum);

const tk = (tf, ...args) => { const r = tf.topk(...args); return [r.values, r.indices]; };
cases('topk', [
  ['topk default', (tf) => tk(tf, [3, 1, 4, 1, 5, 9, 2, 6])],
  ['topk k 3', (tf) => tk(tf, [3, 1, 4, 1, 5, 9, 2, 6], 3)],
  ['topk rows', (tf) => tk(tf, tf.tensor2d([[1, 5, 3], [9, -1, 9]]), 2)],
  ['topk ties keep lower index', (tf) => tk(tf, [2, 7, 7, 2, 7], 4)],
  ['topk all', (tf) => tk(tf, tf.range(0, 24).reshape([2, 3, 4]).mul(-1), 4)],
  ['topk int32', (tf) => tk(tf, tf.tensor1d([5, -3, 8, 0], 'int32'), 2)],
  ['topk k 0', (tf) => tk(tf, [1, 2, 3], 0)],
  ['topk infinities', (tf) => tk(tf, [-Infinity, 0, Infinity, -0], 4)],
  ['topk chained', (tf) => { const r = tf.tensor1d([4, 8, 1]).topk(2); return [r.values, r.indices]; }],
  ['topk k too large', (tf) => tk(tf, [1, 2], 3)],
  ['topk negative k', (tf) => tk(tf, [1, 2], -1)],
  ['topk scalar', (tf) => tk(tf, tf.scalar(1))],
]);

const { describe, it: i } = require('node:test');

describe('inTopKAsync', () => {
  const { tt, tfo, assert: a } = require('./helpers/setup');
  i('gives what tfjs gives, ties to the lower index, and frees its conversions', async () => {
    const before = tt.memory().numTensors;
    const outs = [];
    for (const lib of [tt, tfo]) {
      const r = await lib.inTopKAsync([[1, 5, 3], [4, 4, 2], [0, 1, 1]], [2, 1, 2], 2);
      outs.push(JSON.stringify([r.dtype, r.shape, Array.from(r.dataSync())]));
      r.dispose();
    }
    a.equal(outs[0], outs[1]);
    await a.rejects(tt.inTopKAsync([[1, 2]], [0], 3), /'k' passed to inTopK\(\) must be > 0/);
    a.equal(tt.memory().numTensors, before);
  });
});
