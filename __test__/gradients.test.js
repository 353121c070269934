'use strict';
// Differential tests of the gradients (tf.grad, grads, valueAndGrad(s), variableGrads,
// customGrad): each program runs on tidytensor and on @tensorflow/tfjs; gradient values,
// shapes, dtypes, memory counts and error texts must agree, and nothing may leak, also when f
// or a custom gradient throws. Where tidytensor deliberately differs from tfjs (avgPool with
// padded windows, mirrorPad, comparisons), the expected gradient is computed here instead.
const { describe, it } = require('node:test');
const { tt, tfo, assert, same, counts, deltaOf } = require('./helpers/setup');
const { cases } = require('./helpers/ops');

// Deterministic pseudo-random values (mulberry32), generated once so both libraries get the
// same numbers; `kinks` are points to stay at least 0.1 away from (non-differentiable there).
let seed = 12345;
function rnd() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function vals(n, lo = -1, hi = 1, kinks = []) {
  const out = [];
  while (out.length < n) {
    const v = lo + (hi - lo) * rnd();
    if (kinks.every((k) => Math.abs(v - k) >= 0.1)) out.push(v);
  }
  return out;
}
const size = (shape) => shape.reduce((a, b) => a * b, 1);
// A tensor maker of fixed random values in [lo, hi].
const T = (shape, lo = -1, hi = 1, kinks = [], dtype = 'float32') => {
  const v = vals(size(shape), lo, hi, kinks).map((x) => (dtype === 'int32' ? Math.round(x) : x));
  return (tf) => tf.tensor(v, shape, dtype);
};
// sum(y * w) with fixed non-uniform weights w of y's shape: its gradient is w pulled back
// through the op, which catches transposed or misplaced gradients that sum(y) would hide.
const W = {};
function wsum(tf, y) {
  const key = y.shape.join('x');
  if (!W[key]) W[key] = vals(size(y.shape), -1, 1);
  return y.mul(tf.tensor(W[key], y.shape)).sum();
}
// grads of sum(w * f(...xs)) w.r.t. every x.
const G = (f, ...xs) => (tf) => tf.grads((...a) => wsum(tf, f(tf, ...a)))(xs.map((m) => m(tf)));
const TOL = { tol: 1e-4 };
// Where tfjs's own gradient throws or is wrong (noted at each use), tidytensor runs `prog` and
// tfjs an equivalent `ref` whose gradient tfjs gets right (e.g. with the broadcast explicit).
const alt = (prog, ref) => (tf, ...a) => (tf === tfo ? ref : prog)(tf, ...a);

// ---------------------------------------------------------------- unary ops
const X = T([2, 3], -2, 2, [0]);
const unary = {
  abs: X, acos: T([2, 3], -0.9, 0.9), acosh: T([2, 3], 1.2, 3), asin: T([2, 3], -0.9, 0.9),
  atan: X, atanh: T([2, 3], -0.9, 0.9), ceil: X, cos: X, cosh: X, elu: X, erf: X,
  exp: X, expm1: X, floor: X, log: T([2, 3], 0.2, 3), log1p: T([2, 3], -0.5, 3), neg: X,
  reciprocal: T([2, 3], 0.3, 3), relu: X, relu6: T([2, 3], -2, 8, [0, 6]), round: X,
  rsqrt: T([2, 3], 0.3, 3), selu: X, sigmoid: X, sign: X, sin: X, sinh: X, softplus: X,
  sqrt: T([2, 3], 0.2, 3), square: X, tan: T([2, 3], -1.2, 1.2), tanh: X, step: X,
};
// Every other op of the core's elementwise tables (a new one needs no line here), on the first
// of these domains where tfjs's op is finite (bool ops have no gradient to compare).
const DOMAINS = [X, T([2, 3], 0.3, 3), T([2, 3], -0.9, 0.9), T([2, 3], 1.2, 3)];
const finiteOn = (name, mk) => tfo.tidy(() => Array.from(tfo[name](mk(tfo)).dataSync()).every(Number.isFinite));
for (const { name, parseAs } of require('../lib/native').elementwiseOps().unary) {
  if (!(name in unary) && parseAs !== 'bool') unary[name] = DOMAINS.find((mk) => finiteOn(name, mk)) || X;
}
const unaryFns = Object.entries(unary).map(([op, mk]) => [op, (tf) => (x) => tf[op](x), mk]);
unaryFns.push(['leakyRelu', (tf) => (x) => tf.leakyRelu(x, 0.2), X]);
unaryFns.push(['leakyRelu default alpha', (tf) => (x) => x.leakyRelu(), X]);
unaryFns.push(['clipByValue', (tf) => (x) => tf.clipByValue(x, -0.5, 0.7), T([2, 3], -2, 2, [-0.5, 0.7])]);
unaryFns.push(['elu chained', (tf) => (x) => x.elu().mul(x), X]);
const DY = T([2, 3]);
const unaryCases = [];
for (const [name, fn, mk] of unaryFns) {
  unaryCases.push([`${name} grad`, (tf) => tf.grad(fn(tf))(mk(tf)), TOL]);
  unaryCases.push([`${name} grad dy`, (tf) => tf.grad(fn(tf))(mk(tf), DY(tf)), TOL]);
  unaryCases.push([`${name} valueAndGrad dy`, (tf) => tf.valueAndGrad(fn(tf))(mk(tf), DY(tf)), TOL]);
  unaryCases.push([`${name} valueAndGrad`, (tf) => tf.valueAndGrad(fn(tf))(mk(tf)), TOL]);
}
unaryCases.push(['prelu grads x and alpha', (tf) => tf.grads((x, a) => tf.prelu(x, a))([X(tf), tf.tensor1d([0.1, 0.3, -0.2])]), TOL]);
unaryCases.push(['prelu valueAndGrads dy', (tf) => {
  const r = tf.valueAndGrads((x, a) => tf.prelu(x, a))([X(tf), tf.scalar(0.25)], DY(tf));
  return [r.value, r.grads];
}, TOL]);
unaryCases.push(['scalar grad', (tf) => tf.grad((x) => x.exp().mul(x))(tf.scalar(0.7)), TOL]);
unaryCases.push(['grad of a plain array', (tf) => tf.grad((x) => x.square())([1, 2, -3]), TOL]);
unaryCases.push(['dy as an array', (tf) => tf.grad((x) => x.sin())([1, 2], [3, -1]), TOL]);
cases('unary op gradients', unaryCases);

// ---------------------------------------------------------------- binary ops
const pos = (s) => T(s, 0.5, 2);
const any = (s) => T(s, -2, 2);
const nonzero = (s) => T(s, -2, 2, [0]);
// [op, maker of a, maker of b]: domains where the op is smooth.
const binaryDomains = {
  add: [any, any], sub: [any, any], mul: [any, any], div: [any, nonzero], pow: [pos, any],
  maximum: [any, any], minimum: [any, any], squaredDifference: [any, any], atan2: [nonzero, nonzero],
  mod: [any, pos], floorDiv: [any, pos],
};
const shapePairs = [[[2, 3], [3]], [[2, 1], [1, 3]], [[2, 3], []], [[], [2, 3]], [[2, 3], [2, 3]]];
const binaryCases = [];
for (const [op, [ma, mb]] of Object.entries(binaryDomains)) {
  for (const [sa, sb] of shapePairs) {
    const A = ma(sa);
    const B = mb(sb);
    // tfjs's maximum, minimum and squaredDifference gradients do not undo the broadcast
    // ("Error in gradient for op Maximum. The gradient of input 'b' has shape '2,3', ...").
    const bcast = ['maximum', 'minimum', 'squaredDifference'].includes(op) && sa.join() !== sb.join();
    const f = (tf) => (a, b) => tf[op](a, b);
    const fr = (tf) => (a, b) => (bcast && tf === tfo ? tf[op](a.broadcastTo([2, 3]), b.broadcastTo([2, 3])) : tf[op](a, b));
    binaryCases.push([`${op} [${sa}] [${sb}] grads`, (tf) => tf.grads(fr(tf))([A(tf), B(tf)]), TOL]);
    binaryCases.push([`${op} [${sa}] [${sb}] valueAndGrads dy`, (tf) => {
      const r = tf.valueAndGrads(fr(tf))([A(tf), B(tf)], DY(tf));
      return [r.value, r.grads];
    }, TOL]);
  }
}
binaryCases.push(['chained ops grads dy', (tf) => tf.grads((a, b) => a.mul(b).add(a.div(b.abs().add(1))))([X(tf), DY(tf)], DY(tf)), TOL]);
binaryCases.push(['valueAndGrads without dy', (tf) => {
  const r = tf.valueAndGrads((a, b) => a.sub(b).square().mean())([X(tf), DY(tf)]);
  return [r.value, r.grads];
}, TOL]);
binaryCases.push(['same tensor twice', (tf) => { const x = X(tf); return tf.grads((a, b) => a.mul(b))([x, x]); }, TOL]);
binaryCases.push(['x used twice', (tf) => tf.grad((x) => x.mul(x).add(x))(X(tf)), TOL]);
// tfjs's "works with asType": int32 inputs differentiated through casts.
const int = (tf, v) => tf.scalar(v, 'int32');
binaryCases.push(['int32 through toFloat', (tf) => tf.grad((a) => a.toFloat().mul(int(tf, 3).toFloat()).add(int(tf, 4).toFloat()))(int(tf, 2))]);
binaryCases.push(['int32 grads through cast', (tf) => tf.grads((a, b) => a.toFloat().mul(b.toFloat()).add(a.toFloat().square()))([int(tf, 2), int(tf, 5)])]);
const IA = T([2, 3], -5, 5, [], 'int32');
const IB = T([3], 1, 4, [], 'int32');
binaryCases.push(['int32 tensors', (tf) => tf.grads((a, b) => a.toFloat().div(b.toFloat()))([IA(tf), IB(tf)]), TOL]);
binaryCases.push(['int32 mul with float', (tf) => tf.grads((a, b) => a.mul(b))([IB(tf), tf.tensor1d([0.5, 1, 2])])]);
cases('binary op gradients', binaryCases);

// ---------------------------------------------------------------- reductions
const X3 = T([2, 3, 4], -2, 2);
const P3 = (tf) => X3(tf).abs().add(0.5).mul(tf.tensor1d([1, -1, 1, 1]));
const red = [];
for (const op of ['sum', 'mean', 'max', 'min', 'prod', 'logSumExp']) {
  const mk = op === 'prod' ? P3 : X3;
  red.push([`${op} all`, G((tf, x) => tf[op](x), mk), TOL]);
  red.push([`${op} axis 1`, G((tf, x) => tf[op](x, 1), mk), TOL]);
  // tfjs's prod gradient fails on a negative axis ("Error in transpose: rank of input 3 must
  // match length of perm 0,1,2,-1."); tfjs gets axis 2.
  red.push([`${op} axis -1 keepDims`, G((tf, x) => tf[op](x, op === 'prod' && tf === tfo ? 2 : -1, true), mk), TOL]);
  red.push([`${op} axes [0, 2] keepDims`, G((tf, x) => tf[op](x, [0, 2], true), mk), TOL]);
  red.push([`${op} axes [2, 0]`, G((tf, x) => tf[op](x, [2, 0]), mk), TOL]);
  red.push([`${op} plain grad`, (tf) => tf.grad((x) => tf[op](x, 1))(mk(tf)), TOL]);
}
red.push(['max with ties', (tf) => tf.grad((x) => x.max(1))(tf.tensor2d([[1, 3, 3], [2, 2, 1]]))]);
red.push(['sum int32 through cast', (tf) => tf.grad((x) => x.toFloat().sum())(tf.tensor1d([1, 2], 'int32'))]);
for (const op of ['softmax', 'logSoftmax']) {
  red.push([`${op}`, G((tf, x) => tf[op](x), X3), TOL]);
  red.push([`${op} 1d`, G((tf, x) => tf[op](x), T([5])), TOL]);
  red.push([`${op} grad dy`, (tf) => tf.grad((x) => tf[op](x))(X(tf), DY(tf)), TOL]);
}
// tfjs's cumsum gradient is wrong on any axis but the last (it transposes dy with the
// permutation that moves the axis last and never back: "The gradient of input 'x' has shape
// '2,4,3'"); tfjs gets the same sum with the axis moved last by hand.
const cumsumOn = (tf, x, axis, excl, rev, perm) => (tf === tfo
  ? tf.cumsum(x.transpose(perm), x.rank - 1, excl, rev).transpose(perm) : tf.cumsum(x, axis, excl, rev));
for (const [excl, rev] of [[false, false], [true, false], [false, true], [true, true]]) {
  red.push([`cumsum axis 1 exclusive ${excl} reverse ${rev}`, G((tf, x) => cumsumOn(tf, x, 1, excl, rev, [0, 2, 1]), X3), TOL]);
  red.push([`cumsum last axis exclusive ${excl} reverse ${rev}`, G((tf, x) => tf.cumsum(x, 2, excl, rev), X3), TOL]);
}
red.push(['cumsum default axis', G((tf, x) => (tf === tfo ? cumsumOn(tf, x, 0, false, false, [1, 0]) : x.cumsum()), X), TOL]);
red.push(['moments axis [0, 2]', G((tf, x) => { const m = tf.moments(x, [0, 2]); return m.mean.add(m.variance.mul(2)); }, X3), TOL]);
red.push(['moments all keepDims', G((tf, x) => { const m = tf.moments(x, null, true); return m.variance.sub(m.mean); }, X3), TOL]);
red.push(['moments variance axis -1', G((tf, x) => tf.moments(x, -1).variance, X3), TOL]);
cases('reduction gradients', red);

// ---------------------------------------------------------------- layout
const X4 = T([2, 3, 4]);
const lay = [
  ['reshape', G((tf, x) => x.reshape([4, 6]), X4)],
  ['expandDims', G((tf, x) => tf.expandDims(x, 1), X)],
  ['squeeze', G((tf, x) => tf.squeeze(x, [1]), T([2, 1, 3]))],
  ['transpose default', G((tf, x) => tf.transpose(x), X4)],
  ['transpose perm', G((tf, x) => tf.transpose(x, [1, 2, 0]), X4)],
  ['concat axis 0', G((tf, a, b) => tf.concat([a, b, a], 0), X, T([1, 3]))],
  ['concat axis 1', G((tf, a, b) => tf.concat([a, b], 1), X, T([2, 2]))],
  ['concat axis -1 rank 3', G((tf, a, b) => tf.concat([a, b], -1), X4, T([2, 3, 1]))],
  ['stack', G((tf, a, b) => tf.stack([a, b]), X, DY)],
  ['stack axis 1', G((tf, a, b) => tf.stack([a, b], 1), X, DY)],
  ['unstack', G((tf, x) => { const u = tf.unstack(x, 1); return u[0].mul(u[2]).add(u[1]); }, X4)],
  ['unstack one used', G((tf, x) => tf.unstack(x)[1], X4)],
  ['split even', G((tf, x) => { const [a, b] = tf.split(x, 2, 2); return a.mul(b); }, X4)],
  ['split sizes', G((tf, x) => tf.split(x, [1, 3], 2)[1], X4)],
  ['slice', G((tf, x) => tf.slice(x, [0, 1, 1], [2, 2, 2]), X4)],
  ['slice -1 size', G((tf, x) => x.slice([1, 0], [-1, 2]), X)],
  // tfjs has no stridedSlice gradient; tfjs gets the same selection by gathers and slices.
  ['stridedSlice', G(alt((tf, x) => tf.stridedSlice(x, [0, 0, 3], [2, 3, 0], [1, 2, -2]),
    (tf, x) => x.gather(tf.tensor1d([0, 2], 'int32'), 1).gather(tf.tensor1d([3, 1], 'int32'), 2)), X4)],
  ['stridedSlice shrinkAxis', G(alt((tf, x) => tf.stridedSlice(x, [1, 0], [2, 3], [1, 1], 0, 0, 0, 0, 1),
    (tf, x) => x.slice([1, 0], [1, 3]).reshape([3])), X)],
  ['gather axis 0 duplicates', G((tf, x) => tf.gather(x, tf.tensor1d([1, 0, 1, 1], 'int32')), X)],
  ['gather axis 1 duplicates', G((tf, x) => tf.gather(x, tf.tensor1d([2, 2, 0], 'int32'), 1), X4)],
  ['gather 2d indices', G((tf, x) => tf.gather(x, tf.tensor2d([[3, 0], [3, 3]], [2, 2], 'int32'), 2), X4)],
  ['tile', G((tf, x) => tf.tile(x, [2, 3]), X)],
  ['tile rank 3', G((tf, x) => tf.tile(x, [1, 2, 1]), X4)],
  ['pad constant', G((tf, x) => tf.pad(x, [[1, 0], [2, 1]], 3), X)],
  ['reverse', G((tf, x) => tf.reverse(x, [0, 2]), X4)],
  ['reverse default', G((tf, x) => tf.reverse(x), X)],
  ['broadcastTo', G((tf, x) => tf.broadcastTo(x, [2, 2, 3]), T([2, 1, 3]))],
  ['broadcastTo new dims', G((tf, x) => tf.broadcastTo(x, [4, 3]), T([3]))],
  ['where', G((tf, a, b) => tf.where(tf.tensor2d([[true, false, true], [false, true, true]]), a, b), X, DY)],
  ['where broadcasting', G((tf, a, b) => tf.where(tf.tensor1d([true, false, true], 'bool'), a, b), X, T([1, 3]))],
  ['where scalar branch', G((tf, a, b) => tf.where(tf.tensor2d([[true, false, true], [false, true, true]]), a, b), X, T([]))],
  ['cast', G((tf, x) => x.cast('float32').mul(x.cast('int32').cast('float32')), X)],
  ['clone and identity ops', G((tf, x) => x.clone().add(tf.zerosLike(x)), X)],
];
cases('layout gradients', lay.map(([n, p, o]) => [n, p, o || TOL]));

// ---------------------------------------------------------------- matMul
const mm = [];
for (const [ta, tb] of [[false, false], [true, false], [false, true], [true, true]]) {
  mm.push([`matMul ${ta} ${tb}`, G((tf, a, b) => tf.matMul(a, b, ta, tb), T(ta ? [4, 3] : [3, 4]), T(tb ? [5, 4] : [4, 5]))]);
  mm.push([`matMul batched ${ta} ${tb}`, G((tf, a, b) => tf.matMul(a, b, ta, tb), T(ta ? [2, 4, 3] : [2, 3, 4]), T(tb ? [2, 5, 4] : [2, 4, 5]))]);
}
// tfjs's matMul gradient does not undo a batch broadcast ("The gradient of input 'b' has shape
// '2,4,5', which does not match the shape of the input '4,5'"); tfjs gets explicit broadcasts.
const bmm = (sa, sb, batch, tb = false) => G(alt((tf, a, b) => tf.matMul(a, b, false, tb),
  (tf, a, b) => tf.matMul(a.broadcastTo([...batch, ...sa.slice(-2)]), b.broadcastTo([...batch, ...sb.slice(-2)]), false, tb)), T(sa), T(sb));
mm.push(['matMul [2,3,4] x [4,5]', bmm([2, 3, 4], [4, 5], [2])]);
mm.push(['matMul [1,3,4] x [2,4,5]', bmm([1, 3, 4], [2, 4, 5], [2])]);
mm.push(['matMul [3,4] x [2,5,4] transposeB', bmm([3, 4], [2, 5, 4], [2], true)]);
mm.push(['matMul [2,1,2,3] x [1,2,3,2]', bmm([2, 1, 2, 3], [1, 2, 3, 2], [2, 2])]);
mm.push(['dot vector vector', G((tf, a, b) => tf.dot(a, b), T([4]), T([4]))]);
mm.push(['dot matrix vector', G((tf, a, b) => tf.dot(a, b), T([3, 4]), T([4]))]);
mm.push(['dot vector matrix', G((tf, a, b) => tf.dot(a, b), T([3]), T([3, 4]))]);
mm.push(['dot matrix matrix', G((tf, a, b) => tf.dot(a, b), T([2, 3]), T([3, 4]))]);
mm.push(['outerProduct', G((tf, a, b) => tf.outerProduct(a, b), T([3]), T([4]))]);
cases('matMul gradients', mm.map(([n, p, o]) => [n, p, o || TOL]));

// ---------------------------------------------------------------- conv, pooling, resize, losses
const IN = T([2, 5, 5, 3]);
const conv = [
  ['conv2d same', G((tf, x, w) => tf.conv2d(x, w, 1, 'same'), IN, T([3, 3, 3, 2]))],
  ['conv2d valid', G((tf, x, w) => tf.conv2d(x, w, 1, 'valid'), IN, T([2, 3, 3, 4]))],
  ['conv2d same stride 2', G((tf, x, w) => tf.conv2d(x, w, 2, 'same'), IN, T([3, 3, 3, 2]))],
  ['conv2d valid stride 2', G((tf, x, w) => tf.conv2d(x, w, 2, 'valid'), T([1, 6, 6, 2]), T([2, 2, 2, 3]))],
  ['conv2d NCHW same', G((tf, x, w) => tf.conv2d(x, w, 1, 'same', 'NCHW'), T([2, 3, 5, 4]), T([3, 3, 3, 2]))],
  ['conv2d NCHW valid stride 2', G((tf, x, w) => tf.conv2d(x, w, 2, 'valid', 'NCHW'), T([1, 2, 5, 5]), T([3, 2, 2, 2]))],
  ['conv2d unbatched', G((tf, x, w) => tf.conv2d(x, w, 1, 'same'), T([4, 4, 2]), T([3, 3, 2, 2]))],
  ['conv1d same', G((tf, x, w) => tf.conv1d(x, w, 1, 'same'), T([2, 7, 3]), T([3, 3, 2]))],
  ['conv1d valid stride 2', G((tf, x, w) => tf.conv1d(x, w, 2, 'valid'), T([2, 7, 3]), T([3, 3, 2]))],
  ['depthwiseConv2d multiplier 1', G((tf, x, w) => tf.depthwiseConv2d(x, w, 1, 'same'), IN, T([3, 3, 3, 1]))],
  ['depthwiseConv2d multiplier 2', G((tf, x, w) => tf.depthwiseConv2d(x, w, 1, 'valid'), IN, T([2, 2, 3, 2]))],
  ['depthwiseConv2d stride 2', G((tf, x, w) => tf.depthwiseConv2d(x, w, 2, 'same'), IN, T([3, 3, 3, 2]))],
  ['conv2dTranspose same stride 2', G((tf, x, w) => tf.conv2dTranspose(x, w, [1, 5, 5, 2], 2, 'same'), T([1, 3, 3, 3]), T([3, 3, 2, 3]))],
  ['conv2dTranspose valid', G((tf, x, w) => tf.conv2dTranspose(x, w, [2, 6, 6, 2], 1, 'valid'), T([2, 4, 4, 3]), T([3, 3, 2, 3]))],
  ['dilation2d same', G((tf, x, w) => tf.dilation2d(x, w, 1, 'same'), T([2, 4, 5, 3]), T([2, 3, 3]))],
  ['dilation2d valid stride 2', G((tf, x, w) => tf.dilation2d(x, w, 2, 'valid'), T([1, 6, 6, 2]), T([3, 2, 2]))],
  ['dilation2d unbatched', G((tf, x, w) => tf.dilation2d(x, w, 1, 'same'), T([4, 4, 1]), T([2, 2, 1]))],
  ['localResponseNormalization', G((tf, x) => tf.localResponseNormalization(x, 2, 1.5, 0.5, 0.75), T([2, 2, 2, 6]))],
  ['localResponseNormalization radius 0', G((tf, x) => tf.localResponseNormalization(x, 0, 1, 1, 0.5), T([1, 2, 2, 3]))],
  ['maxPool valid', G((tf, x) => tf.maxPool(x, 2, 2, 'valid'), IN)],
  ['maxPool same', G((tf, x) => tf.maxPool(x, 3, 1, 'same'), IN)],
  ['maxPool overlapping stride 2', G((tf, x) => tf.maxPool(x, 3, 2, 'valid'), IN)],
  ['avgPool valid', G((tf, x) => tf.avgPool(x, 2, 2, 'valid'), IN)],
  ['avgPool valid overlapping', G((tf, x) => tf.avgPool(x, [3, 2], 1, 'valid'), IN)],
];
for (const op of ['resizeBilinear', 'resizeNearestNeighbor']) {
  for (const align of [false, true]) {
    conv.push([`${op} up alignCorners ${align}`, G((tf, x) => tf.image[op](x, [5, 5], align), T([1, 3, 3, 2]))]);
    conv.push([`${op} down alignCorners ${align}`, G((tf, x) => tf.image[op](x, [2, 2], align), T([1, 4, 4, 2]))]);
    // tfjs's resizeNearestNeighbor gradient gives NaN past the first image when it shrinks;
    // tfjs gets the images one at a time.
    const down = (tf, x) => tf.image[op](x, [2, 2], align);
    conv.push([`${op} down batch 2 alignCorners ${align}`, G(op === 'resizeBilinear' ? down
      : alt(down, (tf, x) => tf.stack(tf.unstack(x).map((im) => tf.image[op](im, [2, 2], align)))), T([2, 4, 4, 1]))]);
    conv.push([`${op} rank 3 alignCorners ${align}`, G((tf, x) => tf.image[op](x, [4, 4], align), T([3, 3, 2]))]);
  }
}
const LAB = (tf) => tf.oneHot(tf.tensor1d([2, 0, 1], 'int32'), 3);
const LOG = T([3, 3], -2, 2);
conv.push(['softmaxCrossEntropy', (tf) => tf.grad((z) => tf.losses.softmaxCrossEntropy(LAB(tf), z))(LOG(tf))]);
conv.push(['softmaxCrossEntropy smoothing NONE', G((tf, z) => tf.losses.softmaxCrossEntropy(LAB(tf), z, null, 0.1, tf.Reduction.NONE), LOG)]);
conv.push(['meanSquaredError', (tf) => tf.grad((p) => tf.losses.meanSquaredError(LAB(tf), p))(LOG(tf))]);
conv.push(['meanSquaredError weights', (tf) => tf.grad((p) => tf.losses.meanSquaredError(LAB(tf), p, tf.tensor2d([[1], [0], [2]])))(LOG(tf))]);
conv.push(['sigmoidCrossEntropy', (tf) => tf.grad((z) => tf.losses.sigmoidCrossEntropy(LAB(tf), z))(LOG(tf))]);
conv.push(['sigmoidCrossEntropy SUM', (tf) => tf.grad((z) => tf.losses.sigmoidCrossEntropy(LAB(tf), z, null, 0, tf.Reduction.SUM))(LOG(tf))]);
const DENSE = [T([3, 4]), T([4, 3]), T([3])];
conv.push(['dense layer: matMul, add, relu, softmaxCrossEntropy', (tf) => tf.grads((x, w, b) =>
  tf.losses.softmaxCrossEntropy(LAB(tf), tf.relu(x.matMul(w).add(b))))(DENSE.map((m) => m(tf)))]);
conv.push(['conv3d', G((tf, x, w) => tf.conv3d(x, w, 1, 'same'), T([1, 3, 4, 3, 2]), T([2, 2, 2, 2, 2]))]);
conv.push(['separableConv2d', G((tf, x, d, q) => tf.separableConv2d(x, d, q, 1, 'same'), T([1, 4, 4, 2]), T([2, 2, 2, 2]), T([1, 1, 4, 3]))]);
conv.push(['maxPool3d', G((tf, x) => tf.maxPool3d(x, 2, 1, 'same'), T([1, 3, 3, 3, 2]))]);
conv.push(['avgPool3d valid', G((tf, x) => tf.avgPool3d(x, 2, 1, 'valid'), T([1, 3, 3, 3, 2]))]);
conv.push(['fused.matMul bias relu', G((tf, a, b, c) => tf.fused.matMul({ a, b, bias: c, activation: 'relu' }), T([3, 4]), T([4, 2]), T([2]))]);
conv.push(['fused.conv2d bias elu', G((tf, x, w, b) => tf.fused.conv2d({ x, filter: w, bias: b, activation: 'elu', strides: 1, pad: 'same' }),
  T([1, 3, 3, 2]), T([2, 2, 2, 2]), T([2]))]);
conv.push(['batchNorm', G((tf, x, m, v, o, sc) => tf.batchNorm(x, m, v.abs().add(0.5), o, sc, 0.01), T([2, 2, 3]), T([3]), T([3]), T([3]), T([3]))]);
conv.push(['unsortedSegmentSum', G((tf, x) => tf.unsortedSegmentSum(x, tf.tensor1d([1, 0, 1], 'int32'), 3), T([3, 2]))]);
conv.push(['spaceToBatchND', G((tf, x) => tf.spaceToBatchND(x, [2, 2], [[0, 0], [0, 2]]), T([1, 4, 2, 1]))]);
conv.push(['batchToSpaceND', G((tf, x) => tf.batchToSpaceND(x, [2, 2], [[0, 0], [0, 0]]), T([4, 1, 2, 1]))]);
conv.push(['logSigmoid, norm, euclideanNorm, addN', G((tf, a, b) => tf.addN([a.logSigmoid(), tf.norm(a, 1, 1, true).mul(b), tf.euclideanNorm(b, 0).mul(a)]), X, DY)]);
cases('conv, pooling, resize and loss gradients', conv.map(([n, p, o]) => [n, p, o || TOL]));

// ---------------------------------------------------------------- higher order and customGrad
const customSquare = (tf) => tf.customGrad((x, save) => {
  save([x]);
  return { value: x.square(), gradFunc: (dy, saved) => [dy.mul(saved[0].abs())] };
});
const XS = T([4], -2, 2, [0]);
const DY4 = T([4]);
cases('higher order and customGrad', [
  ['grad(grad(x^3))', (tf) => tf.grad(tf.grad((x) => x.pow(3)))(XS(tf)), TOL],
  ['grad(grad(sin(x) * x))', (tf) => tf.grad(tf.grad((x) => x.sin().mul(x)))(XS(tf)), TOL],
  ['grad(grad(grad(x^4)))', (tf) => tf.grad(tf.grad(tf.grad((x) => x.pow(4))))(XS(tf)), TOL],
  // tfjs gets these wrong: exp's and sigmoid's gradients read the saved output y, which
  // tfjs's tape does not differentiate again (d2/dx2 of x e^x comes out 2e^x, not (x + 2)e^x;
  // sigmoid's throws "Cannot compute gradient of y=f(x)..."); tfjs computes the formula.
  ['grad(grad(x * exp(x))) dy', alt((tf) => tf.grad(tf.grad((x) => x.exp().mul(x)))(XS(tf), DY4(tf)),
    (tf) => XS(tf).add(2).mul(XS(tf).exp()).mul(DY4(tf))), TOL],
  ['grad(grad(sigmoid(x)))', alt((tf) => tf.grad(tf.grad((x) => x.sigmoid()))(XS(tf)),
    (tf) => { const s = XS(tf).sigmoid(); return s.mul(s.neg().add(1)).mul(s.mul(-2).add(1)); }), TOL],
  ['grad of a sum of grads', (tf) => tf.grad((x) => tf.grad((y) => y.square().mul(x))(x).sum())(XS(tf)), TOL],
  ['customGrad value', (tf) => customSquare(tf)(XS(tf))],
  ['customGrad grad', (tf) => tf.grad((x) => customSquare(tf)(x))(XS(tf))],
  ['customGrad valueAndGrad dy', (tf) => tf.valueAndGrad((x) => customSquare(tf)(x))(XS(tf), tf.tensor1d([1, 2, 3, 4]))],
  ['customGrad inside a chain', (tf) => tf.grad((x) => customSquare(tf)(x.mul(2)).sin().sum())(XS(tf)), TOL],
  ['customGrad two inputs', (tf) => tf.grads((a, b) => tf.customGrad((p, q, save) => {
    save([p, q]);
    return { value: p.mul(q), gradFunc: (dy, [sp, sq]) => [dy.mul(sq).mul(3), dy.mul(sp)] };
  })(a, b))([XS(tf), DY(tf).reshape([6]).slice(0, 4)])],
  ['customGrad nested in customGrad', (tf) => tf.grad((x) => tf.customGrad((p) => ({
    value: tf.customGrad((q) => ({ value: q.mul(2), gradFunc: (dy) => dy.mul(100) }))(p), gradFunc: (dy) => dy.mul(5),
  }))(x))(XS(tf))],
  ['grad of grad of customGrad', (tf) => tf.grad(tf.grad((x) => tf.customGrad((p, save) => {
    save([p]);
    return { value: p.square(), gradFunc: (dy, [sp]) => dy.mul(sp).mul(3) };
  })(x)))(XS(tf))],
  ['tidy inside f', (tf) => tf.grad((x) => tf.tidy(() => x.square().sum()))(XS(tf))],
  ['int32 x differentiated directly', (tf) => tf.grad((x) => x.mul(2))(tf.tensor1d([1, 2], 'int32'))],
  ['empty x', (tf) => tf.grad((x) => x.square().sum())(tf.zeros([0, 3]))],
  ['zero gradients of isFinite, greaterEqual, oneHot', (tf) => tf.grad((x) => tf.isFinite(x).toFloat().add(tf.greaterEqual(x, 0).toFloat())
    .mul(x).sum().add(tf.oneHot(x.abs().toInt(), 3).sum()))(XS(tf))],
  ['customGrad with an input it does not need', (tf) => tf.grad((x) => tf.customGrad((p, q) => ({
    value: p.add(q), gradFunc: (dy) => [dy.mul(5), dy.mul(7)],
  }))(x, tf.ones([4])))(XS(tf))],
]);

// ---------------------------------------------------------------- variableGrads
const vg = (tf, names, f, list) => {
  const a = tf.variable(tf.tensor1d([1, 2, -3]), true, `${names}a`);
  const b = tf.variable(tf.tensor2d([[0.5, -1], [2, 1]]), true, `${names}b`);
  const c = tf.variable(tf.scalar(4), false, `${names}c`);
  try {
    const r = tf.variableGrads(() => f(tf, a, b, c), list ? list(a, b, c) : undefined);
    return [r.value, r.grads];
  } finally {
    tf.dispose([a, b, c]);
  }
};
const loss = (tf, a, b, c) => a.square().sum().add(b.matMul(b).sum().mul(c));
cases('variableGrads', [
  ['default list', (tf) => vg(tf, 'v1', loss)],
  ['explicit list', (tf) => vg(tf, 'v2', loss, (a, b) => [b])],
  ['non-trainable variable gives null', (tf) => vg(tf, 'v3', loss, (a, b, c) => [a, c])],
  ['a variable not used', (tf) => vg(tf, 'v4', (t, a) => a.sum(), (a, b) => [a, b])],
  ['customGrad of a variable', (tf) => vg(tf, 'v8', (t, a) => t.customGrad((p) => ({ value: p.square(), gradFunc: (dy) => dy.mul(7) }))(a).sum())],
  ['a variable as x of grads, twice', (tf) => {
    const v = tf.variable(tf.tensor1d([1, 2]), true, 'v9');
    try { return tf.grads((p, q) => p.mul(q).sum())([v, v]); } finally { v.dispose(); }
  }],
  ['no trainable variable', (tf) => vg(tf, 'v5', loss, (a, b, c) => [c])],
  ['no connection', (tf) => vg(tf, 'v6', (t) => t.scalar(1), (a, b) => [a, b])],
  ['non-scalar result', (tf) => vg(tf, 'v7', (t, a) => a.square())],
  ['not variables', (tf) => tf.variableGrads(() => tf.scalar(1), [tf.scalar(1)])],
]);

// ---------------------------------------------------------------- errors
cases('gradient errors', [
  ['grad f not a function', (tf) => tf.grad(5)],
  ['grads f not a function', (tf) => tf.grads('f')],
  ['valueAndGrad f not a function', (tf) => tf.valueAndGrad(null)],
  ['valueAndGrads f not a function', (tf) => tf.valueAndGrads({})],
  ['variableGrads f not a function', (tf) => tf.variableGrads(1)],
  ['customGrad f not a function', (tf) => tf.customGrad(1)],
  ['y does not depend on x', (tf) => tf.grad(() => tf.scalar(2))(tf.scalar(1))],
  ['grads: one arg unused', (tf) => tf.grads((a) => a.square())([X(tf), X(tf)])],
  ['valueAndGrad: y does not depend on x', (tf) => tf.valueAndGrad(() => tf.ones([2]))(tf.scalar(1))],
  ['grad: dy with the wrong shape', (tf) => tf.grad((x) => x.square())(X(tf), tf.ones([3]))],
  ['grads: dy with the wrong shape', (tf) => tf.grads((x, y) => x.mul(y))([X(tf), X(tf)], tf.ones([3, 2]))],
  ['valueAndGrads: dy with the wrong shape', (tf) => tf.valueAndGrads((x) => x.square())([X(tf)], tf.ones([3]))],
  ['dy int32', (tf) => tf.grad((x) => x.square())(X(tf), tf.ones([2, 3], 'int32'))],
  ['grad through logicalAnd', (tf) => tf.grad((x) => tf.logicalAnd(x.cast('bool'), x.cast('bool')).cast('float32').mul(x))(X(tf))],
  ['grad of grad through prod (no Cumprod gradient)', (tf) => tf.grad(tf.grad((x) => tf.prod(x)))(XS(tf))],
  ['x returned as y (no op between them)', (tf) => tf.valueAndGrad((x) => x)(XS(tf), DY4(tf))],
  ['f returns a number', (tf) => tf.grad(() => 3)(tf.scalar(1))],
  ['grads args not an array', (tf) => tf.grads((x) => x)(tf.scalar(1))],
  ['valueAndGrad x not a tensor', (tf) => tf.valueAndGrad((x) => x)([1, 2])],
  ['valueAndGrads args not tensors', (tf) => tf.valueAndGrads((x) => x)([[1, 2]])],
  ['f throws', (tf) => tf.grad((x) => { x.square(); throw new Error('boom'); })(X(tf))],
  ['customGrad gradFunc throws', (tf) => tf.grad((x) => tf.customGrad((p) => ({
    value: p.square(), gradFunc: () => { throw new Error('bad gradient'); },
  }))(x))(X(tf))],
  ['customGrad without gradFunc', (tf) => tf.customGrad((p) => ({ value: p }))(X(tf))],
  ['customGrad gradFunc returns too few', (tf) => tf.grad((x) => tf.customGrad((p, q) => ({
    value: p.add(q), gradFunc: (dy) => [dy],
  }))(x, x))(X(tf))],
]);

// ---------------------------------------------------------------- deliberate differences
// For a linear op L, d sum(w * L(x)) / dx_i = sum(w * L(e_i)): computed with tfjs's forward op.
function linearGrad(op, shape) {
  const n = size(shape);
  const w = tfo.tidy(() => tfo.tensor(vals(size(op(tfo, tfo.zeros(shape)).shape)), op(tfo, tfo.zeros(shape)).shape));
  const g = [];
  for (let i = 0; i < n; i++) {
    g.push(tfo.tidy(() => op(tfo, tfo.oneHot(tfo.tensor1d([i], 'int32'), n).toFloat().reshape(shape)).mul(w).sum().dataSync()[0]));
  }
  const wv = Array.from(w.dataSync());
  w.dispose();
  return { w: wv, g };
}
function close(got, want, tol = 1e-4) {
  assert.equal(got.length, want.length);
  got.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= tol * Math.max(1, Math.abs(want[i])),
    `[${i}]: got ${v}, expected ${want[i]}`));
}
function checkLinear(op, shape) {
  const { w, g } = linearGrad(op, shape);
  const before = counts(tt);
  const got = tt.tidy(() => tt.grad((x) => op(tt, x).mul(tt.tensor(w, op(tt, x).shape)).sum())(tt.zeros(shape)));
  assert.deepEqual(got.shape, shape);
  close(Array.from(got.dataSync()), g);
  got.dispose();
  assert.deepEqual(deltaOf(before, counts(tt)), { numTensors: 0, numDataBuffers: 0, numBytes: 0 });
}
describe('gradients where tidytensor deliberately differs from tfjs', () => {
  it('avgPool same: divides by the values each window averaged', () => {
    checkLinear((tf, x) => tf.avgPool(x, 3, 1, 'same'), [1, 4, 4, 2]);
    checkLinear((tf, x) => tf.avgPool(x, 2, 2, 'same'), [1, 5, 5, 1]);
  });
  it('avgPool explicit padding', () => {
    checkLinear((tf, x) => tf.avgPool(x, 3, 2, 1), [1, 5, 5, 1]);
  });
  it('mirrorPad: reflected parts are summed in', () => {
    checkLinear((tf, x) => tf.mirrorPad(x, [[1, 2], [2, 1]], 'reflect'), [4, 4]);
    checkLinear((tf, x) => tf.mirrorPad(x, [[2, 1], [0, 2]], 'symmetric'), [3, 4]);
  });
  it('avgPool3d same', () => {
    checkLinear((tf, x) => tf.avgPool3d(x, 2, 1, 'same'), [1, 3, 3, 3, 1]);
  });
  it('comparisons have a zero gradient', () => {
    const xs = [-1.5, 0.5, 2, -0.25];
    for (const cmp of ['greater', 'less', 'equal', 'notEqual', 'lessEqual']) {
      const got = tt.tidy(() => tt.grad((x) => x[cmp](0.5).toFloat().mul(x.square()))(tt.tensor1d(xs)));
      const ref = xs.map((v) => tfo.tidy(() => tfo.scalar(v)[cmp](0.5).dataSync()[0]) * 2 * v);
      close(Array.from(got.dataSync()), ref);
      got.dispose();
    }
  });
});

// tfjs's resize gradients ignore halfPixelCenters and fail on non-square sizes ("The gradient
// of input 'images' has shape '1,4,3,1'"); checked here against tfjs's forward pass.
describe('resize gradients where tfjs is wrong', () => {
  for (const op of ['resizeBilinear', 'resizeNearestNeighbor']) {
    it(`${op} halfPixelCenters`, () => {
      checkLinear((tf, x) => tf.image[op](x, [5, 5], false, true), [1, 3, 3, 1]);
      checkLinear((tf, x) => tf.image[op](x, [2, 2], false, true), [2, 4, 4, 1]);
    });
    it(`${op} non-square`, () => {
      checkLinear((tf, x) => tf.image[op](x, [5, 3]), [1, 3, 4, 2]);
      checkLinear((tf, x) => tf.image[op](x, [2, 7], true), [1, 3, 4, 1]);
    });
  }
});

// Second derivatives against central finite differences of float64 functions, on tidytensor
// alone: tfjs throws or is wrong for most of these (see grad(grad(x * exp(x))) above).
const stk = (tf, x) => tf.stack([x, x.mul(2), tf.zerosLike(x)], 1);
const lse = (x) => Math.log(Math.exp(x) + Math.exp(2 * x) + 1);
const second = {
  exp: [(tf, x) => x.exp(), Math.exp],
  sigmoid: [(tf, x) => x.sigmoid(), (x) => 1 / (1 + Math.exp(-x))],
  tanh: [(tf, x) => x.tanh(), Math.tanh],
  elu: [(tf, x) => x.elu(), (x) => (x > 0 ? x : Math.expm1(x))],
  selu: [(tf, x) => x.selu(), (x) => 1.0507009873554805 * (x > 0 ? x : 1.6732632423543772 * Math.expm1(x))],
  'pow(1.7, x)': [(tf, x) => tf.pow(tf.scalar(1.7), x), (x) => 1.7 ** x],
  softmax: [(tf, x) => tf.softmax(stk(tf, x)).slice([0, 0], [-1, 1]).reshape([-1]), (x) => Math.exp(x - lse(x))],
  logSumExp: [(tf, x) => tf.logSumExp(stk(tf, x), 1), lse],
  logSoftmax: [(tf, x) => tf.logSoftmax(stk(tf, x)).slice([0, 0], [-1, 1]).reshape([-1]), (x) => x - lse(x)],
  'max of two': [(tf, x) => tf.max(tf.stack([x.square(), x.mul(0.1)], 1), 1), (x) => Math.max(x * x, 0.1 * x)],
  variance: [(tf, x) => tf.moments(tf.stack([x.square(), x.mul(3), x.exp()], 1), 1).variance, (x) => {
    const v = [x * x, 3 * x, Math.exp(x)];
    const m = (v[0] + v[1] + v[2]) / 3;
    return v.reduce((a, b) => a + (b - m) ** 2, 0) / 3;
  }],
};
describe('second derivatives against finite differences', () => {
  const xs = [0.5, -0.7, 1.3];
  for (const [name, [f, ref]] of Object.entries(second)) {
    it(name, () => {
      const before = counts(tt);
      const g = tt.tidy(() => tt.grad(tt.grad((x) => f(tt, x)))(tt.tensor1d(xs)));
      const h = 1e-4;
      close(Array.from(g.dataSync()), xs.map((x) => (ref(x + h) - 2 * ref(x) + ref(x - h)) / (h * h)), 1e-3);
      g.dispose();
      assert.deepEqual(deltaOf(before, counts(tt)), { numTensors: 0, numDataBuffers: 0, numBytes: 0 });
    });
  }
});

// ---------------------------------------------------------------- leaks
// Runs `fn(lib)` outside tidy; nothing may be left behind.
function noLeak(fn, libs = [tt, tfo]) {
  for (const lib of libs) {
    const before = counts(lib);
    fn(lib);
    assert.deepEqual(deltaOf(before, counts(lib)), { numTensors: 0, numDataBuffers: 0, numBytes: 0 },
      `leak on ${lib === tt ? 'tidytensor' : 'tfjs'}`);
  }
}
describe('gradient leaks', () => {
  it('a grad inside tidy', () => noLeak((tf) => tf.tidy(() => {
    tf.grad((x) => x.square().sin())(tf.tensor1d([1, 2]));
  })));
  it('grads outside tidy, disposed by hand', () => noLeak((tf) => {
    const a = tf.tensor1d([1, 2]);
    const b = tf.tensor1d([3, 4]);
    const r = tf.valueAndGrads((p, q) => p.mul(q).exp().sum())([a, b]);
    tf.dispose([a, b, r.value, r.grads]);
  }));
  it('a grad whose f throws', () => noLeak((tf) => {
    const x = tf.tensor1d([1, 2]);
    try {
      assert.throws(() => tf.grad((v) => { v.square().exp(); throw new Error('boom'); })(x), /boom/);
    } finally { x.dispose(); }
  }, [tt])); // (tfjs leaks 2 tensors here)
  it('a grad whose custom gradient function throws', () => noLeak((tf) => {
    const x = tf.tensor1d([1, 2]);
    const f = tf.customGrad((p) => ({
      value: p.square(), gradFunc: (dy) => { dy.mul(2); throw new Error('bad gradient'); },
    }));
    try {
      assert.throws(() => tf.grad((v) => f(v.mul(3)).sum())(x), /bad gradient/);
      // The engine is usable afterwards.
      const g = tf.grad((v) => v.square())(x);
      assert.deepEqual(Array.from(g.dataSync()), [2, 4]);
      g.dispose();
    } finally { x.dispose(); }
  }, [tt])); // (tfjs leaks 3 tensors here)
  it('y not depending on x, and a wrong dy', () => noLeak((tf) => {
    const x = tf.tensor1d([1, 2]);
    assert.throws(() => tf.grad(() => tf.scalar(1))(x));
    const dy = tf.ones([3]);
    assert.throws(() => tf.grad((v) => v.square())(x, dy));
    tf.dispose([x, dy]);
  }, [tt])); // (tfjs leaks 1 tensor here)
  it('200 repetitions of a small valueAndGrads', () => noLeak((tf) => {
    const a = tf.tensor2d([[1, 2], [3, 4]]);
    const b = tf.tensor1d([0.5, -1]);
    const f = tf.valueAndGrads((p, q) => p.mul(q).square().mean());
    let last;
    for (let i = 0; i < 200; i++) {
      const r = f([a, b]);
      if (i === 199) last = [r.value.dataSync()[0], ...r.grads[1].dataSync()];
      tf.dispose([r.value, r.grads]);
    }
    tf.dispose([a, b]);
    assert.deepEqual(last, [5.625, 2.5, -10]);
  }));
});

// ---------------------------------------------------------------- finite differences
// Each gradient against central differences of tidytensor's own forward pass, computed in
// float64 here: d/dx_j sum(w * f(x)) ≈ (F(x + h e_j) - F(x - h e_j)) / 2h. Piecewise-constant
// ops (round, floor, ceil, sign, step) are left out: their gradient is 0 by definition.
function fdCheck(name, f, makers, h = 1e-2) {
  it(name, () => tt.tidy(() => {
    const xs = makers.map((m) => m(tt));
    const F = (args) => tt.tidy(() => wsum(tt, f(tt, ...args)).dataSync()[0]);
    const grads = tt.grads((...a) => wsum(tt, f(tt, ...a)))(xs);
    xs.forEach((x, k) => {
      const base = Array.from(x.dataSync());
      const got = grads[k].dataSync();
      base.forEach((v, j) => {
        const at = (d) => {
          const moved = base.slice();
          moved[j] = v + d;
          const args = xs.slice();
          args[k] = tt.tensor(moved, x.shape);
          return F(args);
        };
        const want = (at(h) - at(-h)) / (2 * h);
        assert.ok(Math.abs(got[j] - want) <= 2e-2 * Math.max(1, Math.abs(want)),
          `${name}: d/dx${k}[${j}] = ${got[j]}, finite differences ${want}`);
      });
    });
  }));
}

describe('gradients agree with finite differences', () => {
  const constant = new Set(['round', 'floor', 'ceil', 'sign', 'step']);
  for (const [op, fn, mk] of unaryFns) {
    if (!constant.has(op)) fdCheck(op, (tf, x) => fn(tf)(x), [mk]);
  }
  const A = T([2, 3], 0.5, 2);
  const B = T([3], 0.5, 2);
  for (const op of ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'squaredDifference', 'atan2']) {
    fdCheck(`${op} broadcast`, (tf, a, b) => tf[op](a, b), [A, B]);
  }
  const M = T([3, 4]);
  const N = T([4, 2]);
  const IMG = T([1, 5, 5, 2]);
  const more = [
    ['matMul', (tf, a, b) => tf.matMul(a, b), [M, N]],
    ['matMul transposed', (tf, a, b) => tf.matMul(a, b, true, true), [T([4, 3]), T([2, 4])]],
    ['softmax', (tf, x) => tf.softmax(x), [M]],
    ['logSoftmax', (tf, x) => tf.logSoftmax(x), [M]],
    ['logSumExp', (tf, x) => tf.logSumExp(x, 1), [M]],
    ['mean', (tf, x) => tf.mean(x, 0), [M]],
    ['prod', (tf, x) => tf.prod(x, 1), [T([3, 4], 0.5, 1.5)]],
    ['cumsum reverse', (tf, x) => tf.cumsum(x, 1, false, true), [M]],
    ['gather', (tf, x) => tf.gather(x, tf.tensor1d([2, 0, 2], 'int32'), 0), [M]],
    ['slice, concat, pad', (tf, x) => tf.concat([tf.slice(x, [1, 1], [2, 2]), tf.pad(x, [[1, 0], [0, 0]]).slice([0, 0], [3, 2])], 0), [M]],
    ['conv2d', (tf, x, w) => tf.conv2d(x, w, 1, 'same'), [IMG, T([3, 3, 2, 3])]],
    ['depthwiseConv2d', (tf, x, w) => tf.depthwiseConv2d(x, w, 2, 'same'), [IMG, T([2, 2, 2, 2])]],
    ['conv2dTranspose', (tf, x, w) => tf.conv2dTranspose(x, w, [1, 5, 5, 2], 2, 'same'), [T([1, 3, 3, 3]), T([3, 3, 2, 3])]],
    ['avgPool same', (tf, x) => tf.avgPool(x, 3, 2, 'same'), [IMG]],
    ['resizeBilinear 5x5 -> 3x7', (tf, x) => tf.image.resizeBilinear(x, [3, 7]), [IMG]],
    ['localResponseNormalization', (tf, x) => tf.localResponseNormalization(x, 1, 1, 0.5, 0.75), [IMG]],
    ['batchNorm', (tf, x, m, v) => tf.batchNorm(x, m, v), [M, T([4]), T([4], 0.5, 2)]],
    ['softmaxCrossEntropy', (tf, x) => tf.losses.softmaxCrossEntropy(tf.tensor2d([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]]), x), [M]],
  ];
  for (const [name, f, makers] of more) fdCheck(name, f, makers);
  // Max-type ops: distinct values further apart than the step, so that no maximum changes.
  const distinct = (shape, step) => {
    const n = size(shape);
    const order = vals(n, 0, 1).map((r, i) => [r, i]).sort((a, b) => a[0] - b[0]).map(([, i]) => i);
    const v = order.map((k) => (k - n / 2) * step);
    return (tf) => tf.tensor(v, shape);
  };
  fdCheck('maxPool (distinct values)', (tf, x) => tf.maxPool(x, 2, 1, 'valid'), [distinct([1, 5, 5, 2], 0.05)], 1e-3);
  fdCheck('max (distinct values)', (tf, x) => tf.max(x, 1), [distinct([3, 4], 0.05)], 1e-3);
  fdCheck('dilation2d (distinct values)', (tf, x, w) => tf.dilation2d(x, w, 1, 'same'),
    [distinct([1, 5, 5, 2], 0.1), distinct([2, 2, 2], 0.0137)], 1e-3);
});
