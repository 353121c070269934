'use strict';
// Differential tests of the layout (shape and indexing) ops: each program runs on tidytensor and on
// @tensorflow/tfjs; values, shapes, dtypes, memory counts and error texts must agree, and nothing
// may leak, even when the op throws inside tidy.
const { F, I, Bo, cases } = require('./helpers/ops');

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

cases('clone', [
  ['clone', (tf) => tf.clone(F(tf))],
  ['clone chained int32', (tf) => I(tf).clone()],
  ['clone array', (tf) => tf.clone([1, 2])],
]);

const M = (tf) => tf.tensor2d([[1, 2, 3], [4, 5, 6]]);
const M3 = (tf) => tf.range(0, 24).reshape([2, 3, 4]);
cases('composed layout ops', [
  ['unstack axis 0', (tf) => tf.unstack(M(tf))],
  ['unstack axis 1', (tf) => tf.unstack(M(tf), 1)],
  ['unstack axis -1 rank 3', (tf) => tf.unstack(M3(tf), -1)],
  ['unstack int32 chained', (tf) => tf.tensor1d([1, 2, 3], 'int32').unstack()],
  ['unstack bad axis', (tf) => tf.unstack(M(tf), 2)],
  ['split count', (tf) => tf.split(M3(tf), 2, 2)],
  ['split sizes with -1', (tf) => tf.split(M(tf), [1, -1], 1)],
  ['split sizes', (tf) => tf.split(M3(tf), [1, 2], 1)],
  ['split count not dividing', (tf) => tf.split(M(tf), 2, 1)],
  ['split sizes not summing', (tf) => tf.split(M(tf), [1, 1], 1)],
  ['split two -1', (tf) => tf.split(M(tf), [-1, -1], 1)],
  ['split negative axis chained', (tf) => M(tf).split(3, -1)],
  ['tile', (tf) => tf.tile(M(tf), [2, 3])],
  ['tile rank 3 with 1s', (tf) => tf.tile(M3(tf), [1, 2, 1])],
  ['tile zero', (tf) => tf.tile(M(tf), [0, 2])],
  ['tile bool', (tf) => tf.tile(tf.tensor1d([true, false]), [3])],
  ['tile rank mismatch', (tf) => tf.tile(M(tf), [2])],
  ['broadcastTo', (tf) => tf.broadcastTo(tf.tensor1d([1, 2, 3]), [2, 3])],
  ['broadcastTo rank up', (tf) => tf.broadcastTo(tf.tensor2d([[1], [2]]), [3, 2, 4])],
  ['broadcastTo same', (tf) => tf.broadcastTo(M(tf), [2, 3])],
  ['broadcastTo incompatible', (tf) => tf.broadcastTo(M(tf), [2, 4])],
  ['broadcastTo lower rank', (tf) => tf.broadcastTo(M(tf), [3])],
  ['reverse all', (tf) => tf.reverse(M(tf))],
  ['reverse axis', (tf) => tf.reverse(M3(tf), 1)],
  ['reverse axes', (tf) => tf.reverse(M3(tf), [0, -1])],
  ['reverse int32 chained', (tf) => tf.tensor1d([1, 2, 3], 'int32').reverse()],
  ['reverse bad axis', (tf) => tf.reverse(M(tf), 3)],
  ['pad', (tf) => tf.pad(M(tf), [[1, 0], [2, 1]])],
  ['pad value', (tf) => tf.pad(tf.tensor1d([1, 2], 'int32'), [[1, 2]], 7)],
  ['pad rank 3 chained', (tf) => M3(tf).pad([[0, 0], [1, 1], [0, 2]], -1)],
  ['pad scalar', (tf) => tf.pad(tf.scalar(1), [])],
]);

cases('mirrorPad and bandPart', [
  ['mirrorPad reflect', (tf) => tf.mirrorPad(M(tf), [[1, 1], [2, 2]], 'reflect')],
  ['mirrorPad symmetric', (tf) => tf.mirrorPad(M(tf), [[2, 0], [1, 3]], 'symmetric')],
  ['mirrorPad rank 3 chained', (tf) => M3(tf).mirrorPad([[0, 1], [1, 0], [2, 1]], 'reflect')],
  ['mirrorPad int32', (tf) => tf.mirrorPad(tf.tensor1d([1, 2, 3], 'int32'), [[2, 1]], 'symmetric')],
  ['mirrorPad too much', (tf) => tf.mirrorPad(M(tf), [[2, 0], [0, 0]], 'reflect')],
  ['mirrorPad bad mode', (tf) => tf.mirrorPad(M(tf), [[1, 0], [0, 0]], 'wrap')],
  ['mirrorPad scalar', (tf) => tf.mirrorPad(tf.scalar(1), [], 'reflect')],
  ['mirrorPad rank mismatch', (tf) => tf.mirrorPad(M(tf), [[1, 0]], 'reflect')],
  ['bandPart', (tf) => tf.linalg.bandPart(tf.range(1, 17).reshape([4, 4]), 1, 2)],
  ['bandPart lower triangle', (tf) => tf.linalg.bandPart(tf.range(1, 13).reshape([3, 4]), -1, 0)],
  ['bandPart batch', (tf) => tf.linalg.bandPart(M3(tf), 0, -1)],
  ['bandPart rank 1', (tf) => tf.linalg.bandPart([1, 2], 0, 0)],
  ['bandPart fractional', (tf) => tf.linalg.bandPart(M(tf), 0.5, 0)],
  ['bandPart too many', (tf) => tf.linalg.bandPart(M(tf), 3, 0)],
]);

const { describe, it } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');
describe('async indexing ops (against tfjs)', () => {
  for (const [name, prog] of [
    ['whereAsync', (tf) => tf.whereAsync([[true, false, true], [false, false, true]])],
    ['whereAsync 1d', (tf) => tf.whereAsync([false, true])],
    ['whereAsync none', (tf) => tf.whereAsync(tf.zeros([2, 2], 'bool'))],
    ['booleanMaskAsync', (tf) => tf.booleanMaskAsync(M(tf), [false, true])],
    ['booleanMaskAsync axis 1', (tf) => tf.booleanMaskAsync(M(tf), [true, false, true], 1)],
    ['booleanMaskAsync 2d mask', (tf) => tf.booleanMaskAsync(M3(tf), [[true, false, true], [false, true, false]])],
    ['setdiff1dAsync', (tf) => tf.setdiff1dAsync([1, 2, 3, 4, 5], [2, 5, 7])],
    ['setdiff1dAsync int32', (tf) => tf.setdiff1dAsync(tf.tensor1d([5, 5, 1], 'int32'), tf.tensor1d([1], 'int32'))],
  ]) {
    it(name, async () => {
      const snap = async (tf) => {
        const before = tf.memory().numTensors;
        const r = await prog(tf);
        const list = Array.isArray(r) ? r : [r];
        const out = list.map((t) => ({ shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync()) }));
        tf.dispose(list);
        // The inputs the program made are left; the same count on both means no extra leak.
        return { out, left: tf.memory().numTensors - before };
      };
      const [ours, theirs] = [await snap(tt), await snap(tfo)];
      assert.deepEqual(ours.out, theirs.out);
      // tfjs's setdiff1dAsync keeps its converted inputs; tidytensor never leaves more.
      assert.ok(ours.left <= theirs.left, `tidytensor left ${ours.left} tensors, tfjs ${theirs.left}`);
    });
  }
  it('booleanMaskAsync errors', async () => {
    for (const tf of [tt, tfo]) {
      const [x, s, i] = [tf.ones([2, 3]), tf.scalar(true), tf.tensor1d([1], 'int32')];
      const before = tf.memory().numTensors;
      await assert.rejects(tf.booleanMaskAsync(x, s), /mask cannot be scalar/);
      await assert.rejects(tf.booleanMaskAsync(x, [true]), /mask's shape must match/);
      await assert.rejects(tf.setdiff1dAsync([1], i), /x and y should have the same dtype/);
      // (tfjs leaves the tensors it converted when it throws)
      if (tf === tt) assert.equal(tf.memory().numTensors, before);
      tf.dispose([x, s, i]);
    }
  });
});

const un = (tf, ...a) => { const r = tf.unique(...a); return [r.values, r.indices]; };
cases('gatherND, space/batch moves, unique, meshgrid, diag', [
  ['gatherND elements', (tf) => tf.gatherND(M(tf), tf.tensor2d([[0, 1], [1, 2]], [2, 2], 'int32'))],
  ['gatherND rows', (tf) => tf.gatherND(M3(tf), tf.tensor2d([[1], [0]], [2, 1], 'int32'))],
  ['gatherND nested indices', (tf) => tf.gatherND(M3(tf), tf.tensor3d([[[0, 1], [1, 2]]], [1, 2, 2], 'int32'))],
  ['gatherND array indices', (tf) => tf.gatherND([10, 20, 30], [[2], [0]])],
  ['gatherND too deep', (tf) => tf.gatherND(M(tf), tf.tensor2d([[0, 1, 2]], [1, 3], 'int32'))],
  ['gatherND empty input', (tf) => tf.gatherND(tf.zeros([0, 2]), [[0]])],
  ['spaceToBatchND', (tf) => tf.spaceToBatchND(tf.range(1, 17).reshape([1, 4, 4, 1]), [2, 2], [[0, 0], [0, 0]])],
  ['spaceToBatchND padded', (tf) => tf.spaceToBatchND(tf.range(1, 13).reshape([1, 2, 3, 2]), [2, 2], [[0, 0], [1, 0]])],
  ['spaceToBatchND not divisible', (tf) => tf.spaceToBatchND(tf.ones([1, 3, 3, 1]), [2, 2], [[0, 0], [0, 0]])],
  ['batchToSpaceND', (tf) => tf.batchToSpaceND(tf.range(1, 17).reshape([4, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]])],
  ['batchToSpaceND crops', (tf) => tf.batchToSpaceND(tf.range(1, 25).reshape([4, 2, 3, 1]), [2, 2], [[0, 1], [1, 0]])],
  ['batchToSpaceND bad batch', (tf) => tf.batchToSpaceND(tf.ones([3, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]])],
  ['unique', (tf) => un(tf, [1, 1, 2, 4, 4, 4, 7, 8, 8])],
  ['unique NaN and -0', (tf) => un(tf, [NaN, 0, -0, NaN, 1])],
  ['unique int32', (tf) => un(tf, tf.tensor1d([5, 3, 5, 1], 'int32'))],
  ['unique axis 0', (tf) => un(tf, tf.tensor2d([[1, 0, 0], [1, 0, 0], [2, 0, 0]]), 0)],
  ['unique axis 1', (tf) => un(tf, tf.tensor2d([[1, 0, 1], [1, 0, 1], [2, 0, 2]]), 1)],
  ['meshgrid xy', (tf) => tf.meshgrid([1, 2, 3], [4, 5])],
  ['meshgrid ij', (tf) => tf.meshgrid([1, 2, 3], [4, 5], { indexing: 'ij' })],
  ['meshgrid one', (tf) => tf.meshgrid([1, 2])],
  ['meshgrid bad indexing', (tf) => tf.meshgrid([1], [2], { indexing: 'xx' })],
  ['diag 1d', (tf) => tf.diag([1, 2, 3])],
  ['diag 2d', (tf) => tf.diag(tf.tensor2d([[1, 2], [3, 4]]))],
  ['diag int32 NaN-free', (tf) => tf.diag(tf.tensor1d([7, -1], 'int32'))],
  ['diag special', (tf) => tf.diag([NaN, Infinity])],
]);

const S = (tf) => tf.range(0, 60).reshape([3, 4, 5]);
cases('stridedSlice', [
  ['stridedSlice simple', (tf) => tf.stridedSlice(S(tf), [0, 1, 1], [2, 3, 4], [1, 1, 1])],
  ['stridedSlice strides', (tf) => tf.stridedSlice(S(tf), [0, 0, 0], [3, 4, 5], [2, 3, 2])],
  ['stridedSlice negative stride', (tf) => tf.stridedSlice(S(tf), [2, 3, 4], [0, 0, 0], [-1, -2, -3])],
  ['stridedSlice negative indices', (tf) => tf.stridedSlice(S(tf), [-2, -3, -1], [-1, -1, -6], [1, 1, -2])],
  ['stridedSlice masks', (tf) => tf.stridedSlice(S(tf), [1, 1, 1], [2, 2, 2], [1, 1, 1], 5, 2)],
  ['stridedSlice shrink', (tf) => tf.stridedSlice(S(tf), [1, 2, 0], [2, 3, 5], [1, 1, 1], 0, 0, 0, 0, 3)],
  ['stridedSlice shrink negative', (tf) => tf.stridedSlice(S(tf), [-1], [0], [1], 0, 0, 0, 0, 1)],
  ['stridedSlice new axis', (tf) => tf.stridedSlice(S(tf), [0, 0, 1], [0, 2, 3], [1, 1, 1], 0, 0, 0, 1)],
  ['stridedSlice ellipsis', (tf) => tf.stridedSlice(S(tf), [0, 1], [0, 3], [1, 1], 0, 0, 1)],
  ['stridedSlice ellipsis and new axis', (tf) => tf.stridedSlice(S(tf), [0, 0, 1], [0, 0, 4], [1, 1, 2], 0, 0, 1, 2)],
  ['stridedSlice short spec', (tf) => tf.stridedSlice(S(tf), [1], [3])],
  ['stridedSlice out of range clamps', (tf) => tf.stridedSlice(S(tf), [-10, 2, 0], [10, 100, 5], [1, 1, 1])],
  ['stridedSlice int32 chained', (tf) => tf.range(0, 10, 1, 'int32').stridedSlice([8], [1], [-3])],
  ['stridedSlice zero stride', (tf) => tf.stridedSlice(S(tf), [0], [2], [0])],
  ['stridedSlice shrink out of bounds', (tf) => tf.stridedSlice(S(tf), [5], [6], [1], 0, 0, 0, 0, 1)],
  ['stridedSlice two ellipses', (tf) => tf.stridedSlice(S(tf), [0, 0], [1, 1], [1, 1], 0, 0, 3)],
]);

describe('stridedSlice where tfjs fails', () => {
  it('an empty range gives an empty tensor (tfjs: "Size(20) must match the product of shape 0,4,5")', () => {
    const y = tt.tidy(() => tt.stridedSlice(tt.range(0, 60).reshape([3, 4, 5]), [2, 0, 0], [1, 4, 5], [1, 1, 1]));
    assert.deepEqual(y.shape, [0, 4, 5]);
    y.dispose();
  });
});

const I2 = (tf, v, s) => tf.tensor(v, s, 'int32');
cases('scatterND and tensorScatterUpdate', [
  ['scatterND elements', (tf) => tf.scatterND(I2(tf, [[4], [3], [1], [7]], [4, 1]), [9, 10, 11, 12], [8])],
  ['scatterND duplicates add up', (tf) => tf.scatterND(I2(tf, [[1], [1], [3]], [3, 1]), [1, 2, 3], [5])],
  ['scatterND slices', (tf) => tf.scatterND(I2(tf, [[0], [2]], [2, 1]), tf.ones([2, 3]), [4, 3])],
  ['scatterND 2d index', (tf) => tf.scatterND(I2(tf, [[0, 1], [1, 0]], [2, 2]), [5, 6], [2, 2])],
  ['scatterND int32', (tf) => tf.scatterND(I2(tf, [[0], [1]], [2, 1]), I2(tf, [3, 4], [2]), [3])],
  ['scatterND NaN update stays put', (tf) => tf.scatterND(I2(tf, [[0]], [1, 1]), [NaN], [3])],
  ['scatterND bad updates shape', (tf) => tf.scatterND(I2(tf, [[0], [1]], [2, 1]), [1, 2, 3], [4])],
  ['scatterND float indices', (tf) => tf.scatterND(tf.tensor2d([[0]]), [1], [2])],
  ['tensorScatterUpdate', (tf) => tf.tensorScatterUpdate(tf.range(0, 8), I2(tf, [[4], [3], [1]], [3, 1]), [9, 10, 11])],
  ['tensorScatterUpdate duplicates: last wins', (tf) => tf.tensorScatterUpdate(tf.zeros([4]), I2(tf, [[1], [1]], [2, 1]), [5, 6])],
  ['tensorScatterUpdate slices', (tf) => tf.tensorScatterUpdate(tf.zeros([3, 2]), I2(tf, [[2]], [1, 1]), [[7, 8]])],
  ['tensorScatterUpdate dtype mismatch', (tf) => tf.tensorScatterUpdate(tf.zeros([3]), I2(tf, [[1]], [1, 1]), I2(tf, [1], [1]))],
]);

cases('unsortedSegmentSum, bincount, denseBincount', [
  ['unsortedSegmentSum 1-D', (tf) => tf.unsortedSegmentSum(tf.tensor1d([1, 2, 3, 4]), tf.tensor1d([0, 2, 0, 1], 'int32'), 3)],
  ['unsortedSegmentSum rows, id out of range dropped', (tf) => tf.unsortedSegmentSum(tf.tensor2d([1, 2, 3, 4, 5, 6], [3, 2]), tf.tensor1d([1, -1, 5], 'int32'), 2)],
  ['unsortedSegmentSum int32 chained', (tf) => tf.tensor1d([5, 6, 7], 'int32').unsortedSegmentSum([1, 1, 0], 2)],
  ['unsortedSegmentSum fractional count', (tf) => tf.unsortedSegmentSum([1, 2], [0, 1], 1.5)],
  ['bincount', (tf) => tf.bincount(tf.tensor1d([1, 1, 2, 5, 7], 'int32'), [], 5)],
  ['bincount weights', (tf) => tf.bincount(tf.tensor1d([1, 1, 2, 5, 7], 'int32'), tf.tensor1d([0.5, 1, 2, 3, 4]), 6)],
  ['bincount float input', (tf) => tf.bincount(tf.tensor1d([1, 2]), [], 3)],
  ['bincount weights size', (tf) => tf.bincount(tf.tensor1d([1, 2], 'int32'), [1, 2, 3], 3)],
  ['denseBincount binary', (tf) => tf.denseBincount(tf.tensor2d([1, 1, 2, 3, 0, 0], [2, 3], 'int32'), [], 4, true)],
  ['denseBincount weighted 2-D', (tf) => tf.denseBincount(tf.tensor2d([1, 1, 2, 3, 0, 9], [2, 3], 'int32'), tf.ones([2, 3]), 4)],
  ['denseBincount 1-D', (tf) => tf.denseBincount(tf.tensor1d([3, 3, 0], 'int32'), [], 4)],
  ['denseBincount rank 3', (tf) => tf.denseBincount(tf.zeros([1, 1, 1], 'int32'), [], 4)],
]);

cases('searchSorted, depthToSpace', [
  ['searchSorted left', (tf) => tf.searchSorted([1, 3, 5, 7], [0, 3, 4, 8])],
  ['searchSorted right', (tf) => tf.searchSorted([1, 3, 3, 7], [3, 9], 'right')],
  ['upperBound 2-D', (tf) => tf.upperBound([[1, 3, 5], [2, 2, 4]], [[3, 5], [2, 1]])],
  ['lowerBound int32', (tf) => tf.lowerBound(tf.tensor1d([1, 2, 2, 4], 'int32'), tf.tensor1d([2, 3], 'int32'))],
  ['searchSorted rows mismatch', (tf) => tf.searchSorted([[1, 2], [3, 4]], [[1], [2], [3]])],
  ['depthToSpace', (tf) => tf.depthToSpace(tf.range(0, 16).reshape([1, 1, 1, 16]), 2)],
  ['depthToSpace 2x3 block 2', (tf) => tf.depthToSpace(tf.range(0, 48).reshape([2, 2, 3, 4]), 2)],
  ['depthToSpace chained', (tf) => tf.range(0, 18).reshape([1, 1, 2, 9]).depthToSpace(3)],
  ['depthToSpace indivisible', (tf) => tf.depthToSpace(tf.zeros([1, 1, 1, 6]), 2)],
  ['depthToSpace block 1', (tf) => tf.depthToSpace(tf.zeros([1, 1, 1, 4]), 1)],
]);

cases('broadcastArgs, sparseToDense', [
  ['broadcastArgs', (tf) => tf.broadcastArgs([2, 1, 3], [4, 1])],
  ['broadcastArgs incompatible', (tf) => tf.broadcastArgs([2, 3], [4, 1])],
  ['broadcastArgs rank 2', (tf) => tf.broadcastArgs([[2]], [4])],
  ['sparseToDense 2-D', (tf) => tf.sparseToDense([[0, 1], [2, 0]], [5, 6], [3, 3], 9)],
  ['sparseToDense scalar value', (tf) => tf.sparseToDense([1, 3], 7, [5])],
  ['sparseToDense scalar index', (tf) => tf.sparseToDense(4, [1], [5], 2)],
  ['sparseToDense bool', (tf) => tf.sparseToDense([0, 2], [true, true], [3], false)],
  ['sparseToDense wrong rank', (tf) => tf.sparseToDense([[0, 1]], [5], [3])],
  ['sparseToDense values shape', (tf) => tf.sparseToDense([0, 1], [5, 6, 7], [3])],
]);
