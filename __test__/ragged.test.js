'use strict';
// raggedRange, raggedGather and raggedTensorToTensor against @tensorflow/tfjs: values, shapes,
// dtypes, tfjs's errors, memory; nothing leaks. Last, the cases where tidytensor deliberately
// differs (tfjs's kernel misreads them), checked on tidytensor alone.
const { describe, it } = require('node:test');
const { cases } = require('./helpers/ops');
const { tt, assert, runOn } = require('./helpers/setup');

const range = (r) => [r.rtNestedSplits, r.rtDenseValues];
cases('tf.raggedRange', [
  ['scalars', (tf) => range(tf.raggedRange(0, 5, 1))],
  ['int32 scalars', (tf) => range(tf.raggedRange(tf.scalar(2, 'int32'), 9, 3))],
  ['vectors', (tf) => range(tf.raggedRange([0, 5, 8], [3, 3, 12], [1, -1, 2]))],
  ['int32 vectors, negative deltas', (tf) => range(tf.raggedRange(tf.tensor1d([10, 0, 4], 'int32'), [0, 5, -4], [-3, -1, -2]))],
  ['fractional float', (tf) => range(tf.raggedRange(0.5, [3, 2, -1], 0.7))],
  ['broadcast starts vector', (tf) => range(tf.raggedRange([0, 1, 2], 6, 2))],
  ['broadcast starts scalar', (tf) => range(tf.raggedRange(1, [4, 7], [1, 3]))],
  ['broadcast deltas vector', (tf) => range(tf.raggedRange(3, 0, [-1, -2, -0.5]))],
  ['empty rows', (tf) => range(tf.raggedRange([5, 0], [1, 0], [1, -1]))],
  ['no rows', (tf) => range(tf.raggedRange(tf.tensor1d([], 'int32'), tf.tensor1d([], 'int32'), 1))],
  ['zero delta', (tf) => range(tf.raggedRange([0, 1], 3, [1, 0]))],
  ['zero delta scalar', (tf) => range(tf.raggedRange(0, 3, 0))],
  ['starts rank 2', (tf) => range(tf.raggedRange([[0]], 3, 1))],
  ['deltas rank 2', (tf) => range(tf.raggedRange(0, 3, [[1]]))],
  ['lengths differ', (tf) => range(tf.raggedRange([1, 2], [3, 4, 5], 1))],
  ['limits dtype differs', (tf) => range(tf.raggedRange(tf.scalar(0, 'int32'), tf.scalar(3), 1))],
  ['too many values', (tf) => range(tf.raggedRange(0, 1e10, 1))],
]);

// tfjs's own RaggedGather tests, and more.
const SPLITS = (tf) => [tf.tensor1d([0, 3, 3, 7, 9], 'int32')];
const VALS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
const gather = (r) => [r.outputNestedSplits, r.outputDenseValues];
cases('tf.raggedGather', [
  ['1 level', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, [2, 1, 0, 3], 1))],
  ['splits as arrays', (tf) => gather(tf.raggedGather([[0, 3, 3, 7, 9]], VALS, [3, 3, 0], 1))],
  ['2 levels', (tf) => gather(tf.raggedGather([[0, 1, 3, 3, 5, 6], [0, 0, 2, 3, 5, 8, 9]], VALS, [2, 1, 0, 2, 3], 2))],
  ['2 levels, 2-D values', (tf) => gather(tf.raggedGather([[0, 1, 3, 3], [0, 0, 3, 4]], tf.tensor2d([1, 2, 3, 4, 5, 6, 7, 8], [4, 2]), [2, 1, 0, 2], 2))],
  ['2-D indices', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, [[2, 1], [0, 3]], 2))],
  ['3-D indices, 2 levels', (tf) => gather(tf.raggedGather([[0, 1, 3], [0, 2, 3, 5]], [1, 2, 3, 4, 5], [[[1], [0]], [[0], [1]]], 4))],
  ['scalar index', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, 2, 0))],
  ['scalar index, 2 levels', (tf) => gather(tf.raggedGather([[0, 1, 3], [0, 2, 3, 5]], [1, 2, 3, 4, 5], 1, 1))],
  ['outputRaggedRank 0 (not read)', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, [[2, 1], [0, 3]], 0))],
  ['outputRaggedRank 5 (not read)', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, [[2, 1], [0, 3]], 5))],
  ['int32 values', (tf) => gather(tf.raggedGather(SPLITS(tf), tf.range(0, 9, 1, 'int32'), [3, 0], 1))],
  ['bool values', (tf) => gather(tf.raggedGather([[0, 1, 3]], [true, false, true], [1, 0, 1], 1))],
  ['no indices', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, tf.tensor1d([], 'int32'), 1))],
  ['empty rows only', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, [1, 1], 1))],
  ['index out of range', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, [2, 10], 1))],
  ['2-D index out of range', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, [[2, 1], [0, 4]], 2))],
  ['negative index', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, [-1], 1))],
  ['scalar index out of range', (tf) => gather(tf.raggedGather(SPLITS(tf), VALS, 7, 0))],
  ['splits not sorted', (tf) => gather(tf.raggedGather([[0, 3, 5, 2, 9]], VALS, [0, 2], 1))],
  ['splits negative', (tf) => gather(tf.raggedGather([[-1, 3, 2, 7, 9]], VALS, [0, 2], 1))],
  ['splits empty', (tf) => gather(tf.raggedGather([[]], [], tf.tensor1d([], 'int32'), 1))],
  ['splits past values', (tf) => gather(tf.raggedGather([[0, 20, 40, 80, 100]], VALS, [0, 2], 1))],
  ['inner splits past values', (tf) => gather(tf.raggedGather([[0, 1, 5], [0, 2, 3, 5]], [1, 2, 3, 4, 5], [0], 2))],
  ['params scalar', (tf) => gather(tf.raggedGather([[0]], tf.scalar(0.1), tf.tensor1d([], 'int32'), 1))],
  ['no splits', (tf) => gather(tf.raggedGather([], VALS, [0], 0))],
  ['scalar splits', (tf) => gather(tf.raggedGather([0], VALS, [0], 0))],
  ['float splits tensor', (tf) => gather(tf.raggedGather([tf.tensor1d([0, 9])], VALS, [0], 1))],
]);

const dense = (tf, shape, values, dflt, parts, types) => tf.raggedTensorToTensor(shape, values, dflt, parts, types);
const FDS = ['FIRST_DIM_SIZE', 'VALUE_ROWIDS'];
cases('tf.raggedTensorToTensor', [
  ['row splits, natural shape', (tf) => dense(tf, [-1, -1], [1, 2, 3, 4, 5], 0, [[0, 2, 2, 5]], ['ROW_SPLITS'])],
  ['row splits, larger shape', (tf) => dense(tf, [4, 5], [1, 2, 3, 4, 5], -1, [[0, 2, 2, 5]], ['ROW_SPLITS'])],
  ['row splits, truncated', (tf) => dense(tf, [2, 1], [1, 2, 3, 4, 5], 0, [[0, 2, 2, 5]], ['ROW_SPLITS'])],
  ['row splits, partial shape [-1, 2]', (tf) => dense(tf, [-1, 2], [1, 2, 3, 4, 5], 9, [[0, 2, 2, 5]], ['ROW_SPLITS'])],
  ['row splits, partial shape [5, -1]', (tf) => dense(tf, [5, -1], [1, 2, 3, 4, 5], 9, [[0, 2, 2, 5]], ['ROW_SPLITS'])],
  ['row splits, empty shape', (tf) => dense(tf, [0, -1], [1, 2, 3], 0, [[0, 1, 3]], ['ROW_SPLITS'])],
  ['value row ids', (tf) => dense(tf, [-1, -1], [1, 2, 3, 4, 5], 0, [[4], [0, 0, 2, 2, 2]], FDS)],
  ['value row ids, larger shape', (tf) => dense(tf, [5, 4], [1, 2, 3, 4, 5], 7, [4, [0, 0, 2, 2, 3]], FDS)],
  ['value row ids, truncated', (tf) => dense(tf, [2, 1], [1, 2, 3, 4, 5], 0, [[4], [0, 0, 1, 1, 3]], FDS)],
  ['value row ids, rows cut', (tf) => dense(tf, [2, -1], [1, 2, 3, 4, 5], 0, [[4], [0, 2, 2, 3, 3]], FDS)],
  ['two levels of row splits', (tf) => dense(tf, [-1, -1, -1], [1, 2, 3, 4, 5, 6], -1, [[0, 2, 3], [0, 1, 3, 6]], ['ROW_SPLITS', 'ROW_SPLITS'])],
  ['two levels, truncated', (tf) => dense(tf, [2, 1, 2], [1, 2, 3, 4, 5, 6], -1, [[0, 2, 3], [0, 1, 3, 6]], ['ROW_SPLITS', 'ROW_SPLITS'])],
  ['two levels of row ids', (tf) => dense(tf, [-1, -1, -1], [1, 2, 3, 4, 5, 6], 0, [[3], [0, 0, 2], [0, 1, 1, 2, 2, 2]], ['FIRST_DIM_SIZE', 'VALUE_ROWIDS', 'VALUE_ROWIDS'])],
  ['row ids then splits', (tf) => dense(tf, [-1, 2, 2], [1, 2, 3, 4, 5, 6], 0, [[3], [0, 0, 2], [0, 1, 3, 6]], ['FIRST_DIM_SIZE', 'VALUE_ROWIDS', 'ROW_SPLITS'])],
  ['2-D values, scalar default', (tf) => dense(tf, [-1, -1, 2], tf.tensor2d([[1, 2], [3, 4], [5, 6]]), 7, [[0, 2, 2, 3]], ['ROW_SPLITS'])],
  ['2-D values, default [1] broadcast', (tf) => dense(tf, [-1, 3, 2], tf.tensor2d([[1, 2], [3, 4], [5, 6]]), [9], [[0, 2, 2, 3]], ['ROW_SPLITS'])],
  ['2-D values, default tensor', (tf) => dense(tf, [4, -1, 2], tf.tensor2d([[1, 2], [3, 4], [5, 6]]), tf.tensor1d([-2]), [[0, 1, 3]], ['ROW_SPLITS'])],
  ['int32 values, default read as int32', (tf) => dense(tf, [3, 3], tf.tensor1d([1, 2], 'int32'), 1.5, [[0, 2]], ['ROW_SPLITS'])],
  ['bool values', (tf) => dense(tf, [3, 3], [true, false, true], true, [[0, 2, 3]], ['ROW_SPLITS'])],
  ['extra values ignored', (tf) => dense(tf, [-1, -1], [1, 2, 3, 4, 5], 0, [[0, 2, 3]], ['ROW_SPLITS'])],
  ['shape scalar other than -1', (tf) => dense(tf, 3, [1, 2], 0, [[0, 2]], ['ROW_SPLITS'])],
  ['shape dimension -2', (tf) => dense(tf, [-2, -1], [1, 2], 0, [[0, 2]], ['ROW_SPLITS'])],
  ['shape rank differs', (tf) => dense(tf, [-1], [1, 2], 0, [[0, 2]], ['ROW_SPLITS'])],
  ['shape empty', (tf) => dense(tf, tf.tensor1d([], 'int32'), [1, 2], 0, [[0, 2]], ['ROW_SPLITS'])],
  ['default rank too high', (tf) => dense(tf, [-1, -1], [1, 2], [0], [[0, 2]], ['ROW_SPLITS'])],
  ['default shape incompatible', (tf) => dense(tf, [-1, -1, 2, 3], tf.ones([3, 2, 3]), [4, 5, 6], [[0, 2, 2, 3]], ['ROW_SPLITS'])],
  ['default cannot broadcast', (tf) => dense(tf, [-1, -1, 2, 3], tf.ones([2, 2, 3]), [5, 6], [[0, 2]], ['ROW_SPLITS'])],
  ['default dtype differs', (tf) => dense(tf, [-1, -1], tf.tensor1d([1, 2], 'int32'), tf.scalar(1.5), [[0, 2]], ['ROW_SPLITS'])],
  ['row ids first', (tf) => dense(tf, [-1, -1], [1, 2], 0, [[0, 1]], ['VALUE_ROWIDS'])],
  ['row lengths', (tf) => dense(tf, [-1, -1], [1, 2], 0, [[2]], ['ROW_LENGTHS'])],
  ['row lengths inside', (tf) => dense(tf, [-1, -1], [1, 2], 0, [[1], [2]], ['FIRST_DIM_SIZE', 'ROW_LENGTHS'])],
  ['row lengths inside, shape given', (tf) => dense(tf, [1, 2], [1, 2], 0, [[1], [2]], ['FIRST_DIM_SIZE', 'ROW_LENGTHS'])],
  ['unknown type', (tf) => dense(tf, [-1, -1], [1, 2], 0, [[0, 2]], ['ROWS'])],
  ['no types', (tf) => dense(tf, [-1, -1], [1, 2], 0, [[0, 2]], [])],
  ['first partition empty', (tf) => dense(tf, [-1, -1], [1, 2], 0, [[]], ['ROW_SPLITS'])],
  ['row id out of range', (tf) => dense(tf, [-1, -1], [1, 2, 3], 0, [[2], [0, 0, 2]], FDS)],
  ['first row id out of range', (tf) => dense(tf, [-1, -1], [1, 2, 3], 0, [[2], [3, 3, 3]], FDS)],
  ['negative first dimension', (tf) => dense(tf, [-1, -1], [1, 2], 0, [[-2], [0, 1]], FDS)],
  ['splits longer than parent', (tf) => dense(tf, [-1, -1], [1, 2, 3], 0, [[2], [0, 1, 2, 3]], ['FIRST_DIM_SIZE', 'ROW_SPLITS'])],
  ['splits not from 0', (tf) => dense(tf, [-1, -1], [1, 2, 3], 0, [[1, 2, 3]], ['ROW_SPLITS'])],
]);

// Runs `program` on tidytensor: its result's values and shape, and nothing left behind.
function ours(program, shape, values) {
  const r = runOn(tt, program);
  if (r.error) throw r.error;
  assert.deepEqual(r.snap.shape, shape);
  assert.deepEqual(r.snap.values, values);
  assert.deepEqual(r.leak, { numTensors: 0, numDataBuffers: 0, numBytes: 0 }, 'leak');
}

function oursThrows(program, message) {
  const r = runOn(tt, program);
  assert.ok(r.error, 'expected an error');
  assert.equal(r.error.message, message);
  assert.deepEqual(r.leak, { numTensors: 0, numDataBuffers: 0, numBytes: 0 }, 'leak');
}

describe('tf.raggedTensorToTensor where tidytensor differs from tfjs', () => {
  it('shape -1 (a scalar) means the natural shape, as documented (tfjs throws)', () => {
    ours((tf) => dense(tf, -1, [1, 2, 3, 4, 5], 0, [[0, 2, 2, 5]], ['ROW_SPLITS']), [3, 3], [1, 2, 0, 0, 0, 0, 3, 4, 5]);
  });
  it('-1 for a dense dimension of the values takes its size (tfjs throws or misreads it)', () => {
    ours((tf) => dense(tf, [-1, -1, -1], tf.tensor2d([[1, 2, 3], [4, 5, 6]]), 0, [[0, 1, 1, 2]], ['ROW_SPLITS']),
      [3, 1, 3], [1, 2, 3, 0, 0, 0, 4, 5, 6]);
    oursThrows((tf) => dense(tf, [-1, -1, 3], tf.tensor2d([[1, 2], [3, 4]]), 0, [[0, 2]], ['ROW_SPLITS']),
      'rt input.shape and shape=-1,-1,3 are incompatible: rt input.shape[2] = 2 but shape[2] = 3');
  });
  it('a default value of more than one element pads with its values (tfjs pads with zeros)', () => {
    ours((tf) => dense(tf, [-1, -1, 2], tf.tensor2d([[1, 2], [3, 4], [5, 6]]), [9, 8], [[0, 2, 2, 3]], ['ROW_SPLITS']),
      [3, 2, 2], [1, 2, 3, 4, 9, 8, 9, 8, 5, 6, 9, 8]);
    ours((tf) => dense(tf, [-1, -1, 2, 3], tf.ones([1, 2, 3]), [[5, 6, 7]], [[0, 0, 1]], ['ROW_SPLITS']),
      [2, 1, 2, 3], [5, 6, 7, 5, 6, 7, 1, 1, 1, 1, 1, 1]);
  });
  it('row partitions that need more values than there are throw (tfjs reads past them)', () => {
    oursThrows((tf) => dense(tf, [-1, -1], [1, 2, 3, 4, 5], 0, [[0, 2, 7]], ['ROW_SPLITS']),
      'The row partitions hold 7 values but values.shape[0] = 5');
    oursThrows((tf) => dense(tf, [-1, -1], [1, 2], 0, [[2], [0, 0, 1]], FDS),
      'The row partitions hold 3 values but values.shape[0] = 2');
  });
  it('a negative value row id throws (tfjs misplaces the values)', () => {
    oursThrows((tf) => dense(tf, [-1, -1], [1, 2, 3], 0, [[2], [-1, 0, 1]], FDS), 'Got valueRowId=-1, which is negative');
  });
  it('missing row partition tensors throw an Error (tfjs: a TypeError)', () => {
    oursThrows((tf) => dense(tf, [-1, -1, -1], [1, 2], 0, [[0, 2]], ['ROW_SPLITS', 'ROW_SPLITS']),
      'rowPartitionTypes names 2 partitions but rowPartitionTensors has 1');
    oursThrows((tf) => dense(tf, [-1, -1], [1, 2], 0, [], []),
      'Invalid first partition input. Tensor requires at least one element.');
  });
});
