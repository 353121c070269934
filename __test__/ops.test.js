'use strict';
// Differential tests: every op runs on tidytensor and on @tensorflow/tfjs with the same
// arguments; values, shapes, dtypes, memory counts and error messages must agree, and nothing
// may leak (including when the op throws inside tidy).
const { describe, it } = require('node:test');
const { same } = require('./helpers/setup');
// Every op of the core's elementwise tables, so a new op is tested here without a new line.
const table = require('../lib/native').elementwiseOps();

const F = (tf) => tf.tensor2d([[1, -2, 3], [-4, 5.5, 6]]);
const I = (tf) => tf.tensor2d([[1, -2, 3], [-4, 5, 6]], [2, 3], 'int32');
const Bo = (tf) => tf.tensor2d([[true, false, true], [false, false, true]]);
const POS = (tf) => tf.tensor1d([0.5, 1, 4, 9]);
const makers = { float32: F, int32: I, bool: Bo };

function cases(title, list) {
  describe(title, () => {
    for (const [name, program, opts] of list) {
      it(name, () => { same(program, opts); });
    }
  });
}

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

cases('matMul', [
  ['2x3 * 3x2', (tf) => tf.matMul(F(tf), F(tf).transpose())],
  ['transposeA', (tf) => tf.matMul(F(tf), F(tf), true, false)],
  ['transposeB', (tf) => tf.matMul(F(tf), F(tf), false, true)],
  ['both transposed', (tf) => tf.matMul(tf.ones([3, 2]), tf.ones([4, 3]), true, true)],
  ['chained', (tf) => F(tf).matMul(F(tf), false, true)],
  ['int32', (tf) => tf.matMul(I(tf), I(tf), false, true)],
  ['int32 x float32', (tf) => tf.matMul(I(tf), F(tf), false, true)],
  ['arrays', (tf) => tf.matMul([[1, 2]], [[3], [4]])],
  ['batched', (tf) => tf.matMul(tf.range(0, 12).reshape([2, 2, 3]), tf.range(0, 12).reshape([2, 3, 2]))],
  ['batch broadcast', (tf) => tf.matMul(tf.range(0, 12).reshape([2, 2, 3]), tf.range(0, 6).reshape([3, 2]))],
  ['bigger', (tf) => tf.matMul(tf.range(0, 64 * 33).reshape([64, 33]).div(1000),
    tf.range(0, 33 * 17).reshape([33, 17]).div(1000))],
  ['empty inner', (tf) => tf.matMul(tf.zeros([2, 0]), tf.zeros([0, 3]))],
  ['inner mismatch', (tf) => tf.matMul(tf.ones([2, 3]), tf.ones([2, 3]))],
  // tfjs fails inside a reshape with a garbled message; any error will do.
  ['rank 1', (tf) => tf.matMul(tf.ones([3]), tf.ones([3, 1])), { anyError: true }],
  ['bool', (tf) => tf.matMul(Bo(tf), Bo(tf), false, true)],
]);

const reduceCases = [];
for (const op of ['sum', 'mean', 'max', 'min']) {
  for (const [dt, mk] of Object.entries(makers)) {
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
reduceCases.push(['sum large', (tf) => tf.sum(tf.range(0, 10000).div(100))]);
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
cases('shape ops', [
  ['reshape', (tf) => R(tf).reshape([4, 6])],
  ['reshape -1', (tf) => tf.reshape(R(tf), [-1, 4])],
  ['reshape to scalar', (tf) => tf.reshape([5], [])],
  ['reshape bool', (tf) => Bo(tf).reshape([3, 2])],
  ['reshape int32 array', (tf) => tf.reshape(I(tf), [6])],
  ['reshape size mismatch', (tf) => tf.reshape(R(tf), [5, 5])],
  ['reshape two -1', (tf) => tf.reshape(R(tf), [-1, -1])],
  ['reshape -1 not divisible', (tf) => tf.reshape(R(tf), [-1, 5])],
  ['reshape empty', (tf) => tf.reshape(tf.zeros([0, 3]), [3, 0])],
  ['expandDims default', (tf) => tf.expandDims(F(tf))],
  ['expandDims 1', (tf) => F(tf).expandDims(1)],
  ['expandDims rank', (tf) => tf.expandDims(F(tf), 2)],
  ['expandDims -1', (tf) => tf.expandDims(F(tf), -1)],
  ['expandDims scalar', (tf) => tf.expandDims(tf.scalar(1))],
  ['expandDims bool', (tf) => tf.expandDims(Bo(tf), 0)],
  ['expandDims too big', (tf) => tf.expandDims(F(tf), 3)],
  ['squeeze all', (tf) => tf.squeeze(tf.ones([1, 3, 1, 2]))],
  ['squeeze axis', (tf) => tf.ones([1, 3, 1, 2]).squeeze([2])],
  ['squeeze negative axis', (tf) => tf.squeeze(tf.ones([1, 3, 1, 2]), [-2])],
  ['squeeze empty axes', (tf) => tf.squeeze(tf.ones([1, 3, 1]), [])],
  ['squeeze bad axis', (tf) => tf.squeeze(tf.ones([1, 3, 1]), [1])],
  ['transpose default', (tf) => tf.transpose(R(tf))],
  ['transpose perm', (tf) => R(tf).transpose([1, 0, 2])],
  ['transpose 2d int32', (tf) => tf.transpose(I(tf))],
  ['transpose bool', (tf) => tf.transpose(Bo(tf))],
  ['transpose 1d', (tf) => tf.transpose(tf.tensor1d([1, 2]))],
  ['transpose bad perm length', (tf) => tf.transpose(R(tf), [1, 0])],
  ['transpose bad perm entry', (tf) => tf.transpose(R(tf), [0, 1, 3])],
  ['concat axis 0', (tf) => tf.concat([F(tf), F(tf)])],
  ['concat axis 1', (tf) => tf.concat([F(tf), tf.ones([2, 1])], 1)],
  ['concat axis -1', (tf) => tf.concat([F(tf), F(tf)], -1)],
  ['concat one tensor', (tf) => tf.concat([F(tf)])],
  ['concat arrays', (tf) => tf.concat([[1, 2], [3]])],
  ['concat int32', (tf) => tf.concat([I(tf), I(tf)], 1)],
  ['concat bool', (tf) => tf.concat([Bo(tf), Bo(tf)])],
  ['concat chained', (tf) => F(tf).concat(F(tf), 1)],
  ['concat empty part', (tf) => tf.concat([tf.zeros([0, 3]), F(tf)])],
  ['concat empty list', (tf) => tf.concat([])],
  ['concat shape mismatch', (tf) => tf.concat([F(tf), tf.ones([2, 2])])],
  ['concat rank mismatch', (tf) => tf.concat([F(tf), tf.ones([3])])],
  ['concat bad axis', (tf) => tf.concat([F(tf), F(tf)], 2)],
  ['concat bad element', (tf) => tf.concat([F(tf), {}])],
  ['stack axis 0', (tf) => tf.stack([F(tf), F(tf)])],
  ['stack axis 1', (tf) => tf.stack([F(tf), F(tf), F(tf)], 1)],
  ['stack axis -1', (tf) => tf.stack([F(tf), F(tf)], -1)],
  ['stack scalars', (tf) => tf.stack([tf.scalar(1), tf.scalar(2)])],
  ['stack arrays', (tf) => tf.stack([[1, 2], [3, 4]])],
  ['stack int32', (tf) => tf.stack([I(tf), I(tf)], 2)],
  ['stack bool', (tf) => tf.stack([Bo(tf), Bo(tf)])],
  ['stack empty list', (tf) => tf.stack([])],
  ['stack shape mismatch', (tf) => tf.stack([F(tf), tf.ones([3, 2])])],
  ['stack dtype mismatch', (tf) => tf.stack([F(tf), I(tf)])],
  ['stack bad axis', (tf) => tf.stack([F(tf), F(tf)], 4)],
  ['slice full begin/size', (tf) => tf.slice(R(tf), [0, 1, 1], [2, 2, 3])],
  ['slice number begin', (tf) => tf.slice(R(tf), 1)],
  ['slice short begin', (tf) => tf.slice(R(tf), [1, 1])],
  ['slice number size', (tf) => tf.slice(R(tf), [0, 1], 1)],
  ['slice size -1', (tf) => tf.slice(R(tf), [0, 1, 2], [-1, 1, -1])],
  ['slice 1d', (tf) => tf.slice([1, 2, 3, 4], 1, 2)],
  ['slice chained', (tf) => R(tf).slice([1, 0, 0], [1, 3, 2])],
  ['slice int32', (tf) => tf.slice(I(tf), [0, 1], [2, 2])],
  ['slice bool', (tf) => tf.slice(Bo(tf), [1, 0], [1, 3])],
  ['slice empty', (tf) => tf.slice(R(tf), [0, 0, 0], [0, 3, 4])],
  ['slice scalar', (tf) => tf.slice(tf.scalar(1), 0)],
  ['slice negative begin', (tf) => tf.slice(R(tf), -1)],
  ['slice size -2', (tf) => tf.slice(R(tf), 0, -2)],
  ['slice overflow', (tf) => tf.slice(R(tf), [0, 2], [1, 2])],
  ['slice begin too long', (tf) => tf.slice(F(tf), [0, 0, 0], [1, 1, 1])],
  ['gather 1d', (tf) => tf.gather(tf.tensor1d([10, 20, 30]), tf.tensor1d([2, 0, 2], 'int32'))],
  ['gather array indices', (tf) => tf.gather(F(tf), [1, 0])],
  ['gather axis 1', (tf) => tf.gather(F(tf), [2, 0], 1)],
  ['gather axis -1', (tf) => tf.gather(F(tf), [2], -1)],
  ['gather 2d indices', (tf) => tf.gather(R(tf), [[0, 1], [1, 1]], 1)],
  ['gather scalar index', (tf) => tf.gather(F(tf), 1)],
  ['gather int32', (tf) => I(tf).gather([1])],
  ['gather bool', (tf) => tf.gather(Bo(tf), [1, 1])],
  ['gather batchDims', (tf) => tf.gather(R(tf), [[0, 2], [1, 1]], 1, 1)],
  ['gather float indices', (tf) => tf.gather(F(tf), tf.tensor1d([0]))],
  ['gather bad axis', (tf) => tf.gather(F(tf), [0], 2)],
]);

cases('clone and cast', [
  ['clone', (tf) => tf.clone(F(tf))],
  ['clone chained int32', (tf) => I(tf).clone()],
  ['clone array', (tf) => tf.clone([1, 2])],
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

cases('creation ops', [
  ['zeros', (tf) => tf.zeros([2, 3])],
  ['zeros int32', (tf) => tf.zeros([2], 'int32')],
  ['zeros bool', (tf) => tf.zeros([2], 'bool')],
  ['zeros scalar', (tf) => tf.zeros([])],
  ['zeros empty', (tf) => tf.zeros([0])],
  ['zeros bad shape', (tf) => tf.zeros([-1])],
  ['zeros float shape', (tf) => tf.zeros([1.5])],
  ['ones', (tf) => tf.ones([3, 1])],
  ['ones int32', (tf) => tf.ones([3], 'int32')],
  ['ones bool', (tf) => tf.ones([3], 'bool')],
  ['fill', (tf) => tf.fill([2, 2], 7)],
  ['fill int32', (tf) => tf.fill([2], 3.7, 'int32')],
  ['fill bool inferred', (tf) => tf.fill([2], true)],
  ['fill negative', (tf) => tf.fill([3], -2.5)],
  ['zerosLike', (tf) => tf.zerosLike(I(tf))],
  ['onesLike', (tf) => tf.onesLike(Bo(tf))],
  ['zerosLike chained', (tf) => F(tf).zerosLike()],
  ['onesLike array', (tf) => tf.onesLike([1, 2])],
  ['range', (tf) => tf.range(0, 5)],
  ['range step', (tf) => tf.range(1, 10, 3)],
  ['range negative step', (tf) => tf.range(5, 0, -2)],
  ['range fractional', (tf) => tf.range(0, 1, 0.3)],
  ['range int32', (tf) => tf.range(0, 5, 2, 'int32')],
  ['range empty', (tf) => tf.range(5, 0)],
  ['range zero step', (tf) => tf.range(0, 5, 0)],
  ['linspace', (tf) => tf.linspace(0, 1, 5)],
  ['linspace one', (tf) => tf.linspace(3, 9, 1)],
  ['linspace descending', (tf) => tf.linspace(10, -10, 7)],
  ['linspace zero', (tf) => tf.linspace(0, 1, 0)],
  ['eye', (tf) => tf.eye(3)],
  ['eye rect', (tf) => tf.eye(2, 4)],
  ['eye tall', (tf) => tf.eye(4, 2)],
  ['eye int32', (tf) => tf.eye(2, 2, null, 'int32')],
  ['eye batch 1', (tf) => tf.eye(2, 3, [2])],
  ['eye batch 2', (tf) => tf.eye(2, 2, [2, 3])],
  ['oneHot', (tf) => tf.oneHot(tf.tensor1d([0, 2, 1], 'int32'), 3)],
  ['oneHot array', (tf) => tf.oneHot([1, 0], 2)],
  ['oneHot on/off', (tf) => tf.oneHot([1, 3], 4, 5, -1)],
  ['oneHot float32 dtype', (tf) => tf.oneHot([1, 3], 4, 0.5, 0, 'float32')],
  ['oneHot out of range', (tf) => tf.oneHot([-1, 5], 3)],
  ['oneHot 2d', (tf) => tf.oneHot([[0, 1], [1, 0]], 2)],
  ['oneHot depth 1', (tf) => tf.oneHot([0], 1)],
  ['oneHot float indices', (tf) => tf.oneHot(tf.tensor1d([0, 1]), 3)],
]);
