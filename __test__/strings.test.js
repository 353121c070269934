'use strict';
// The string dtype against @tensorflow/tfjs: creation, reading, printing, the layout ops and
// comparisons that take strings, tf.string, and the errors of the ops that do not. Byte counts
// differ by design (tfjs counts none for strings made by kernels), so memory deltas are not
// compared; leaks are.
const { it } = require('node:test');
const { cases } = require('./helpers/ops');
const { tt, assert } = require('./helpers/setup');

const S = (tf) => tf.tensor([['a', 'bé', ''], ['d', 'a', 'zz']]);
const o = { delta: false };

cases('string tensors', [
  ['tensor', (tf) => tf.tensor(['a', 'b', 'ü€😀']), o],
  ['tensor2d', S, o],
  ['scalar', (tf) => tf.scalar('hi'), o],
  ['tensor1d bytes', (tf) => tf.tensor1d([new Uint8Array([104, 105])], 'string'), o],
  ['with shape', (tf) => tf.tensor(['a', 'b', 'c', 'd'], [2, 2]), o],
  ['shape mismatch', (tf) => tf.tensor(['a', 'b', 'c'], [2, 2]), o],
  ['arraySync', (tf) => S(tf).arraySync(), o],
  ['toString', (tf) => S(tf).toString(), o],
  ['toString verbose', (tf) => S(tf).toString(true), o],
  ['scalar toString', (tf) => tf.scalar('hi').toString(), o],
  ['reshape', (tf) => tf.reshape(S(tf), [3, 2]), o],
  ['clone', (tf) => tf.clone(S(tf)), o],
  ['expandDims squeeze', (tf) => tf.squeeze(tf.expandDims(S(tf), 1)), o],
  ['slice', (tf) => tf.slice(S(tf), [0, 1], [2, 2]), o],
  ['slice1d', (tf) => tf.slice(tf.tensor(['a', 'b', 'c']), 1), o],
  ['concat', (tf) => tf.concat([S(tf), S(tf)], 1), o],
  ['concat axis 0', (tf) => tf.concat([tf.tensor(['a']), tf.tensor(['b', 'c'])]), o],
  ['concat with numbers', (tf) => tf.concat([tf.tensor(['a']), tf.tensor([1])]), { ...o, anyError: true }],
  ['stack', (tf) => tf.stack([tf.tensor(['a', 'b']), tf.tensor(['c', 'd'])], 1), o],
  ['unstack', (tf) => tf.unstack(S(tf), 1), o],
  ['tile', (tf) => tf.tile(S(tf), [2, 2]), o],
  ['stridedSlice', (tf) => tf.stridedSlice(S(tf), [0, 0], [2, 3], [1, 2]), o],
  ['gatherND', (tf) => tf.gatherND(S(tf), [[1, 2], [0, 1]]), o],
  ['unique', (tf) => tf.unique(tf.tensor(['b', 'a', 'b', 'c', 'a'])), o],
  ['unique axis 1', (tf) => tf.unique(tf.tensor([['a', 'b', 'a'], ['c', 'd', 'c']]), 1), o],
  ['equal', (tf) => tf.equal(S(tf), tf.tensor(['a', 'a', ''])), o],
  ['notEqual scalar', (tf) => tf.notEqual(S(tf), 'a'), o],
  ['less greater', (tf) => [tf.less(S(tf), 'b'), tf.greaterEqual(S(tf), 'bé'), tf.lessEqual('a', S(tf)), tf.greater(S(tf), '')], o],
  ['equal with numbers', (tf) => tf.equal(S(tf), 1), o],
  ['fill', (tf) => tf.fill([2, 2], 'x'), o],
  ['buffer toTensor', (tf) => { const b = tf.buffer([2], 'string'); b.set('q', 0); b.set('r', 1); return b.toTensor(); }, o],
  ['add refuses', (tf) => tf.add(S(tf), S(tf)), o],
  ['abs refuses', (tf) => tf.abs(S(tf)), o],
  ['gather refuses', (tf) => tf.gather(S(tf), [0]), o],
  ['transpose refuses', (tf) => tf.transpose(S(tf)), o],
  ['cast refuses', (tf) => tf.cast(S(tf), 'float32'), o],
  ['zerosLike refuses', (tf) => tf.zerosLike(S(tf)), o],
  ['sum refuses', (tf) => tf.sum(S(tf)), o],
  ['where refuses', (tf) => tf.where([true], tf.tensor(['a']), tf.tensor(['b'])), o],
]);

cases('tf.string', [
  ['stringNGrams', (tf) => tf.string.stringNGrams(['a', 'b', 'c', 'd'], tf.tensor1d([0, 2, 4], 'int32'), '|', [1, 2], 'LP', 'RP', -1, false), o],
  ['stringNGrams padded', (tf) => tf.string.stringNGrams(['a', 'b', 'c'], tf.tensor1d([0, 1, 3], 'int32'), ' ', [3], '<', '>', 2, false), o],
  ['stringNGrams preserve short', (tf) => tf.string.stringNGrams(['a', 'b', 'c'], tf.tensor1d([0, 1, 3], 'int32'), '-', [4], '', '', 0, true), o],
  ['stringNGrams bad splits', (tf) => tf.string.stringNGrams(['a'], tf.tensor1d([1, 1], 'int32'), '-', [1], '', '', 0, false), o],
  ['stringNGrams float data', (tf) => tf.string.stringNGrams([1], tf.tensor1d([0, 1], 'int32'), '-', [1], '', '', 0, false), o],
  ['stringSplit', (tf) => tf.string.stringSplit(['hello world', 'a  b', ''], ' '), o],
  ['stringSplit keep empty', (tf) => tf.string.stringSplit(['a  b', 'c'], ' ', false), o],
  ['stringSplit chars', (tf) => tf.string.stringSplit(['abc', 'de'], ''), o],
  ['stringSplit several delimiters', (tf) => tf.string.stringSplit(['a,b;c'], ',;'), o],
  ['stringSplit rank', (tf) => tf.string.stringSplit([['a']], ' '), o],
  ['stringToHashBucketFast', (tf) => tf.string.stringToHashBucketFast(['a', 'b', 'hello world', ''], 1000), o],
  ['stringToHashBucketFast buckets', (tf) => tf.string.stringToHashBucketFast(['a'], 0), o],
  ['staticRegexReplace', (tf) => tf.string.staticRegexReplace(['abab', 'cac'], 'a+', 'X'), o],
  ['staticRegexReplace once', (tf) => tf.string.staticRegexReplace(['abab'], 'a', 'X', false), o],
]);

it('string tensors: exact UTF-8 byte counts, freed with their last tensor', () => {
  const before = tt.memory();
  const x = tt.tensor(['ab', 'ü']); // 2 + 2 bytes
  assert.equal(tt.memory().numBytes - before.numBytes, 4);
  const y = tt.reshape(x, [2, 1]); // a second tensor over the same values
  assert.equal(tt.memory().numBytes - before.numBytes, 8);
  assert.equal(tt.memory().numDataBuffers - before.numDataBuffers, 1);
  x.dispose();
  y.dispose();
  assert.deepEqual(tt.memory().numBytes, before.numBytes);
  assert.deepEqual(tt.memory().numTensors, before.numTensors);
});

it('string tensors: bytes() gives each value\'s bytes, dataSync the decoded strings', async () => {
  const x = tt.tensor([new Uint8Array([0xff, 0x61]), 'é'], null, 'string');
  assert.deepEqual((await x.bytes()).map((b) => Array.from(b)), [[0xff, 0x61], [0xc3, 0xa9]]);
  assert.deepEqual(x.dataSync(), ['\ufffda', 'é']);
  assert.deepEqual(await x.data(), ['\ufffda', 'é']);
  x.dispose();
});

cases('string tensors, tfjs-core cases', [
  ['unique rows with commas', (tf) => tf.unique(tf.tensor2d([['a', 'b,c', 'd'], ['a', 'b', 'c,d']]), 0), o],
  ['sparseToDense of strings', (tf) => tf.sparseToDense([[0, 1], [2, 0]], ['x', 'y'], [3, 2], 'z'), o],
  ['sparseToDense scalar string', (tf) => tf.sparseToDense([1, 3], 'x', [4], ''), o],
]);
