'use strict';
// The ops tfjs composes of others that live once, in crates/core (issue 26): each is checked
// against @tensorflow/tfjs 4.22 through tf.* and, where tfjs-converter maps it, through a
// one-node graph model run on both libraries; values, shapes, dtypes, and that nothing leaks.
const { it, describe } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');
const { GraphBuilder, attr, lcg } = require('./fixtures/graph/generate');

function close(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(want[i])) {
      assert.ok(Number.isNaN(got[i]), `${what}[${i}]: got ${got[i]}, expected NaN`);
      continue;
    }
    const scale = Math.max(1, Math.abs(want[i]));
    assert.ok(Math.abs(got[i] - want[i]) <= tol * scale, `${what}[${i}]: got ${got[i]}, expected ${want[i]}`);
  }
}

// Runs `program(tf)` on both libraries: the same shapes, dtypes and values (1e-5), no leak here.
function same(program, what) {
  const before = tt.memory().numTensors;
  const outs = [tt, tfo].map((tf) => {
    const r = program(tf);
    const list = Array.isArray(r) ? r : [r];
    const read = list.map((t) => ({ shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync()) }));
    tf.dispose(list);
    return read;
  });
  assert.equal(tt.memory().numTensors, before, `${what}: tensors left on tidytensor`);
  const [got, want] = outs;
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    assert.deepEqual(got[i].shape, want[i].shape, `${what}: shape`);
    assert.equal(got[i].dtype, want[i].dtype, `${what}: dtype`);
    close(got[i].values, want[i].values, 1e-5, what);
  }
}

const X = (tf) => tf.tensor2d(Array.from(lcg(24, 3, 4)).concat([NaN]).slice(1), [4, 6]);

describe('through tf.*', () => {
  it('clipByValue: float32, int32 and bool, NaN, equal bounds', () => {
    same((tf) => tf.tidy(() => tf.clipByValue(X(tf), -1.5, 2)), 'clip float32');
    same((tf) => tf.tidy(() => tf.clipByValue(tf.tensor1d([-3, 0, 4, 9], 'int32'), 0.5, 4.5)), 'clip int32');
    same((tf) => tf.tidy(() => tf.clipByValue(tf.tensor1d([true, false]), 0, 1)), 'clip bool');
    same((tf) => tf.tidy(() => tf.clipByValue(X(tf), 1, 1)), 'clip equal bounds');
  });
  it('leakyRelu, addN, logSoftmax, moments', () => {
    same((tf) => tf.tidy(() => tf.leakyRelu(X(tf), 0.3)), 'leakyRelu');
    same((tf) => tf.tidy(() => tf.addN([X(tf), X(tf).mul(2), tf.ones([4, 6])])), 'addN');
    same((tf) => tf.tidy(() => tf.addN([tf.tensor1d([1, 2], 'int32')])), 'addN of one');
    same((tf) => tf.tidy(() => tf.logSoftmax(X(tf))), 'logSoftmax');
    same((tf) => tf.tidy(() => { const m = tf.moments(X(tf), 0, true); return [m.mean, m.variance]; }), 'moments');
  });
  it('their gradients', () => {
    const grads = (tf) => tf.tidy(() => tf.grads((x) => tf.addN([
      tf.clipByValue(x, -1, 1), tf.leakyRelu(x, 0.2), tf.logSoftmax(x), tf.moments(x, 1, true).variance.mul(tf.onesLike(x)),
    ]).sum())([tf.tensor2d(Array.from(lcg(24, 5, 3)), [4, 6])]));
    same(grads, 'gradients');
  });
  it('errors as tfjs, nothing left behind', () => {
    for (const [what, program] of [
      ['clip min > max', (tf) => tf.clipByValue(tf.ones([2]), 3, 1)],
      ['addN dtypes', (tf) => tf.addN([tf.ones([2]), tf.ones([2], 'int32')])],
      ['addN shapes', (tf) => tf.addN([tf.ones([2]), tf.ones([3])])],
      ['logSoftmax axis', (tf) => tf.logSoftmax(tf.ones([2, 3]), 0)],
    ]) {
      const before = tt.memory().numTensors;
      const texts = [tt, tfo].map((tf) => {
        try {
          tf.tidy(() => program(tf));
        } catch (e) {
          return e.message;
        }
        return null;
      });
      assert.equal(texts[0], texts[1], what);
      assert.ok(texts[0], `${what} throws`);
      assert.equal(tt.memory().numTensors, before, `${what}: tensors left`);
    }
  });
});

describe('through a graph model (the converter\'s op names)', () => {
  // A graph of one op node over a [4, 6] input x, run with the same input on both libraries.
  async function oneNode(build, what) {
    const g = new GraphBuilder(what);
    g.placeholder('x', [-1, 6]);
    build(g);
    g.node('Identity', 'Identity', ['y'], { T: attr.type('float32') });
    const input = Array.from(lcg(24, 9, 4));
    const before = tt.memory().numTensors;
    const results = [];
    for (const tf of [tt, tfo]) {
      const artifacts = g.artifacts();
      const model = await tf.loadGraphModel(tf.io.fromMemory({ ...artifacts, weightData: artifacts.weightData.slice(0) }));
      const x = tf.tensor2d(input, [4, 6]);
      const y = model.predict(x);
      results.push({ shape: y.shape, values: Array.from(y.dataSync()) });
      tf.dispose([x, y]);
      model.dispose();
    }
    assert.equal(tt.memory().numTensors, before, `${what}: tensors left on tidytensor`);
    assert.deepEqual(results[0].shape, results[1].shape, what);
    close(results[0].values, results[1].values, 1e-5, what);
  }
  const T = attr.type('float32');
  it('ClipByValue', () => oneNode((g) => {
    g.constant('lo', [], [-1]);
    g.constant('hi', [], [1.5]);
    g.node('y', 'ClipByValue', ['x', 'lo', 'hi'], { T });
  }, 'ClipByValue'));
  it('LeakyRelu', () => oneNode((g) => g.node('y', 'LeakyRelu', ['x'], { T, alpha: attr.float(0.25) }), 'LeakyRelu'));
  it('AddN', () => oneNode((g) => {
    g.constant('c', [4, 6]);
    g.node('y', 'AddN', ['x', 'c', 'x'], { T, N: attr.int(3) });
  }, 'AddN'));
  it('LogSoftmax', () => oneNode((g) => g.node('y', 'LogSoftmax', ['x'], { T }), 'LogSoftmax'));
});

// --- The layout, conv, image, string, sparse and dynamic ops that moved into the core ---

// The tensors of a result (a tensor, or arrays and {name: ...} objects of them, keys sorted).
function flat(r) {
  if (r && typeof r.dataSync === 'function') return [r];
  if (Array.isArray(r)) return r.flatMap(flat);
  return Object.keys(r).sort().flatMap((k) => flat(r[k]));
}

// Reads a result's tensors in a fixed order.
function readAll(r) {
  return flat(r).map((t) => ({ shape: t.shape, dtype: t.dtype, values: Array.from(t.dataSync()) }));
}

function compare(got, want, what) {
  assert.equal(got.length, want.length, `${what}: outputs`);
  for (let i = 0; i < want.length; i++) {
    assert.deepEqual(got[i].shape, want[i].shape, `${what}: shape ${i}`);
    assert.equal(got[i].dtype, want[i].dtype, `${what}: dtype ${i}`);
    if (want[i].dtype === 'string') assert.deepEqual(got[i].values, want[i].values, `${what}: values ${i}`);
    else close(got[i].values, want[i].values, 1e-5, `${what} ${i}`);
  }
}

// `program(tf)` on both libraries (sync or async), the same results, no tensor left, or the
// same error (`sameText` false: an error on both, with texts that differ, as the README lists).
async function both(program, what, sameText = true) {
  const before = tt.memory().numTensors;
  const outs = [];
  for (const tf of [tt, tfo]) {
    try {
      const r = await program(tf);
      outs.push({ read: readAll(r) });
      tf.dispose(flat(r));
    } catch (e) {
      outs.push({ error: e.message });
    }
  }
  assert.equal(tt.memory().numTensors, before, `${what}: tensors left on tidytensor`);
  if (sameText || !outs[1].error) assert.deepEqual(outs[0].error, outs[1].error, `${what}: error`);
  else assert.ok(outs[0].error, `${what}: throws`);
  if (!outs[1].error) compare(outs[0].read, outs[1].read, what);
}

const cube = (tf) => tf.tensor3d(Array.from(lcg(2 * 3 * 4, 11, 3)), [2, 3, 4]);
const image4 = (tf) => tf.tensor4d(Array.from(lcg(2 * 4 * 4 * 8, 13, 2)), [2, 4, 4, 8]);

describe('moved into the core: through tf.*', () => {
  it('slice, stridedSlice, tile, reverse, broadcastTo', async () => {
    await both((tf) => tf.tidy(() => tf.slice(cube(tf), [1], [1])), 'slice short begin/size');
    await both((tf) => tf.tidy(() => tf.slice(cube(tf), 1, -1)), 'slice numbers');
    // tfjs slices at a fractional offset and then refuses the fractional shape.
    await both((tf) => tf.tidy(() => tf.slice(cube(tf), [0, 1.5])), 'slice fractional begin', false);
    await both((tf) => tf.tidy(() => tf.stridedSlice(cube(tf), [0, 2, 3], [2, 0, 0], [1, -1, -2], 0, 4)), 'stridedSlice');
    await both((tf) => tf.tidy(() => tf.stridedSlice(cube(tf), [1, 0], [2, 2], [1, 1], 0, 0, 0, 1, 2)), 'stridedSlice masks');
    await both((tf) => tf.tidy(() => tf.stridedSlice(tf.tensor1d(['a', 'b', 'c', 'd']), [3], [0], [-2])), 'stridedSlice strings');
    await both((tf) => tf.tidy(() => tf.stridedSlice(cube(tf), [0], [1], [0])), 'stridedSlice stride 0');
    await both((tf) => tf.tidy(() => tf.tile(cube(tf), [2, 0, 1])), 'tile');
    await both((tf) => tf.tidy(() => tf.tile(tf.tensor1d(['x', 'y']), [3])), 'tile strings');
    await both((tf) => tf.tidy(() => tf.tile(cube(tf), [1, -1, 1])), 'tile negative', false);
    await both((tf) => tf.tidy(() => tf.reverse(cube(tf), [-1, 0])), 'reverse');
    await both((tf) => tf.tidy(() => tf.reverse(cube(tf))), 'reverse all');
    await both((tf) => tf.tidy(() => tf.reverse(cube(tf), 3)), 'reverse bad axis');
    await both((tf) => tf.tidy(() => tf.broadcastTo(tf.tensor1d([1, 2, 3]), [2, 3])), 'broadcastTo');
  });
  it('pad, mirrorPad, split, unstack', async () => {
    await both((tf) => tf.tidy(() => tf.pad(cube(tf), [[1, 0], [0, 2], [1, 1]], 7)), 'pad');
    // (tfjs pads by a negative amount into a wrong shape; tidytensor refuses it.)
    assert.throws(() => tt.pad(tt.ones([2, 3]), [[1, 0], [0, -2]]), /paddings must be \[before, after\] pairs of non-negative/);
    await both((tf) => tf.tidy(() => tf.mirrorPad(cube(tf), [[1, 1], [2, 0], [0, 3]], 'reflect')), 'mirrorPad reflect');
    await both((tf) => tf.tidy(() => tf.mirrorPad(cube(tf), [[1, 1], [2, 0], [0, 3]], 'symmetric')), 'mirrorPad symmetric');
    await both((tf) => tf.tidy(() => tf.mirrorPad(cube(tf), [[2, 2], [0, 0], [0, 0]], 'reflect')), 'mirrorPad too wide');
    await both((tf) => tf.tidy(() => tf.split(cube(tf), 2, -1)), 'split count');
    await both((tf) => tf.tidy(() => tf.split(cube(tf), [1, -1, 2], 2)), 'split sizes');
    await both((tf) => tf.tidy(() => tf.split(cube(tf), 3, 2)), 'split uneven');
    await both((tf) => tf.tidy(() => tf.unstack(cube(tf), 1)), 'unstack');
    await both((tf) => tf.tidy(() => tf.unstack(tf.tensor2d([['a', 'b'], ['c', 'd']]), -1)), 'unstack strings');
    await both((tf) => tf.tidy(() => tf.unstack(cube(tf), 3)), 'unstack bad axis');
  });
  it('gatherND, space/batch moves, depthToSpace, broadcastArgs', async () => {
    await both((tf) => tf.tidy(() => tf.gatherND(cube(tf), tf.tensor2d([[1, 2], [0, 0]], [2, 2], 'int32'))), 'gatherND');
    await both((tf) => tf.tidy(() => tf.gatherND(tf.tensor1d(['a', 'b', 'c']), [[2], [0]])), 'gatherND strings');
    await both((tf) => tf.tidy(() => tf.spaceToBatchND(image4(tf), [2, 2], [[0, 0], [2, 0]])), 'spaceToBatchND');
    await both((tf) => tf.tidy(() => tf.batchToSpaceND(image4(tf).reshape([8, 2, 2, 4]), [2, 2], [[0, 1], [1, 0]])), 'batchToSpaceND');
    await both((tf) => tf.tidy(() => tf.spaceToBatchND(image4(tf), [3, 2], [[0, 0], [0, 0]])), 'spaceToBatchND indivisible');
    await both((tf) => tf.tidy(() => tf.depthToSpace(image4(tf), 2)), 'depthToSpace NHWC');
    await both((tf) => tf.tidy(() => tf.depthToSpace(image4(tf), 3)), 'depthToSpace indivisible');
    await both((tf) => tf.tidy(() => tf.broadcastArgs(tf.tensor1d([2, 1, 3], 'int32'), tf.tensor1d([4, 1], 'int32'))), 'broadcastArgs');
    await both((tf) => tf.tidy(() => tf.broadcastArgs(tf.tensor1d([2, 3], 'int32'), tf.tensor1d([4], 'int32'))), 'broadcastArgs bad');
  });
  it('conv1d, cropAndResize, fused composed (NCHW)', async () => {
    const x = (tf) => tf.tensor3d(Array.from(lcg(2 * 9 * 3, 17, 1)), [2, 9, 3]);
    const f = (tf) => tf.tensor3d(Array.from(lcg(3 * 3 * 4, 19, 1)), [3, 3, 4]);
    await both((tf) => tf.tidy(() => tf.conv1d(x(tf), f(tf), 2, 'same')), 'conv1d');
    await both((tf) => tf.tidy(() => tf.conv1d(x(tf), f(tf), 1, 'valid', 'NWC', 2)), 'conv1d dilated');
    await both((tf) => tf.tidy(() => tf.conv1d(x(tf), f(tf), 2, 'valid', 'NWC', 2)), 'conv1d stride and dilation');
    const boxes = [[0, 0, 1, 1], [0.2, 0.1, 0.9, 0.7], [-0.5, 0.3, 1.5, 0.6]];
    for (const method of ['bilinear', 'nearest']) {
      await both((tf) => tf.tidy(() => tf.image.cropAndResize(image4(tf), boxes, [0, 1, 1], [3, 5], method, 0.25)),
        `cropAndResize ${method}`);
    }
    await both((tf) => tf.tidy(() => tf.image.cropAndResize(image4(tf), boxes, [0, 1, 1], [0, 5])), 'cropAndResize size 0');
    const nchw = (tf) => tf.tensor4d(Array.from(lcg(2 * 3 * 5 * 5, 23, 1)), [2, 3, 5, 5]);
    const filter = (tf) => tf.tensor4d(Array.from(lcg(2 * 2 * 3 * 4, 29, 1)), [2, 2, 3, 4]);
    await both((tf) => tf.tidy(() => tf.fused.conv2d({ x: nchw(tf), filter: filter(tf), strides: 1, pad: 'valid',
      dataFormat: 'NCHW', bias: tf.tensor1d([0.1, -0.2, 0.3, 0]), activation: 'prelu',
      preluActivationWeights: tf.tensor1d([0.1, 0.2, 0.3, 0.4]) })), 'fused conv2d NCHW prelu');
  });
  it('tf.string, tf.sparse', async () => {
    await both((tf) => tf.tidy(() => tf.string.stringNGrams(['a', 'b', 'c', 'd'], tf.tensor1d([0, 1, 4], 'int32'), '|',
      [1, 3], 'L', 'R', -1, true)), 'stringNGrams');
    await both((tf) => tf.tidy(() => tf.string.stringNGrams(['a', 'b'], tf.tensor1d([1, 2], 'int32'), '|', [2], 'L', 'R', 1,
      false)), 'stringNGrams bad splits');
    await both((tf) => tf.string.stringSplit(['a b  c', '', 'de'], ' ', false), 'stringSplit');
    await both((tf) => tf.string.stringSplit(['ab', 'cde'], ''), 'stringSplit empty delimiter');
    await both((tf) => tf.string.stringToHashBucketFast(['hello', 'world', ''], 1000), 'stringToHashBucketFast');
    await both((tf) => tf.string.staticRegexReplace(['abcab', 'xyz'], '(a)(b)', '[$2$1$&]'), 'staticRegexReplace');
    await both((tf) => tf.string.staticRegexReplace(['abab'], '(?<=a)b', 'X', false), 'staticRegexReplace lookbehind');
    await both((tf) => tf.sparse.sparseSegmentSum([[1, 2], [3, 4], [5, 6]], [0, 2, 1], [0, 0, 2]), 'sparseSegmentSum');
    await both((tf) => tf.tidy(() => tf.sparse.sparseSegmentMean(tf.tensor2d([[1, 2], [3, 4]], [2, 2], 'int32'), [0, 1], [1, 1])),
      'sparseSegmentMean int32');
    await both((tf) => tf.sparse.sparseReshape([[0, 0, 1], [1, 2, 3]], [2, 3, 6], [9, -1]), 'sparseReshape');
    await both((tf) => tf.sparse.sparseReshape([[0, 0, 1]], [2, 3, 6], [7, -1]), 'sparseReshape bad');
    await both((tf) => tf.sparse.sparseFillEmptyRows([[0, 0], [1, 0], [1, 3], [1, 4], [3, 2], [3, 3]],
      [0, 10, 13, 14, 32, 33], [5, 6], -1), 'sparseFillEmptyRows');
    await both((tf) => tf.sparse.sparseFillEmptyRows([[3, 0], [1, 1]], ['b', 'a'], [4, 2], 'z'), 'sparseFillEmptyRows strings');
  });
  it('non-max suppression, whereAsync, setdiff1dAsync, booleanMaskAsync', async () => {
    const boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]];
    const scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3];
    await both((tf) => tf.image.nonMaxSuppression(boxes, scores, 3, 0.5), 'nonMaxSuppression');
    await both((tf) => tf.image.nonMaxSuppressionAsync(boxes, scores, 3, 0.5, 0.4), 'nonMaxSuppressionAsync');
    await both((tf) => tf.image.nonMaxSuppressionWithScore(boxes, scores, 6, 1, 0, 0.5), 'nonMaxSuppressionWithScore');
    await both((tf) => tf.image.nonMaxSuppressionPadded(boxes, scores, 6, 0.5, 0.4, true), 'nonMaxSuppressionPadded');
    await both((tf) => tf.image.nonMaxSuppressionPaddedAsync(boxes, scores, 6, 0.5, 0.4, false), 'nonMaxSuppressionPaddedAsync');
    await both((tf) => tf.image.nonMaxSuppression(boxes, scores, 2.5), 'nonMaxSuppression fractional max');
    await both((tf) => tf.image.nonMaxSuppression(boxes, scores, 3, 1.5), 'nonMaxSuppression bad iou');
    // Inputs made here are disposed after the awaited op.
    const using = (make, op) => async (tf) => {
      const ins = make(tf);
      try {
        return await op(tf, ...ins);
      } finally {
        tf.dispose(ins);
      }
    };
    await both((tf) => tf.whereAsync([[true, false, true], [false, false, true]]), 'whereAsync');
    await both((tf) => tf.setdiff1dAsync([1, 2, NaN, 4, 0], [4, NaN, -0]), 'setdiff1dAsync');
    await both(using((tf) => [tf.tensor1d([1, 2], 'int32'), tf.tensor1d([1])], (tf, a, b) => tf.setdiff1dAsync(a, b)),
      'setdiff1dAsync dtypes');
    await both(using((tf) => [cube(tf)], (tf, x) => tf.booleanMaskAsync(x, [[true, false, true], [false, false, true]])),
      'booleanMaskAsync');
  });
});

// One graph over the placeholders `feeds` ({name: [values, shape, dtype]}), its outputs
// `outputs`, run with executeAsync on both libraries.
async function graphOf(build, feeds, outputs, what) {
  const g = new GraphBuilder(what);
  for (const [name, [, shape, dtype]] of Object.entries(feeds)) g.placeholder(name, shape.map(() => -1), dtype);
  build(g);
  await both(async (tf) => {
    const artifacts = g.artifacts();
    const model = await tf.loadGraphModel(tf.io.fromMemory({ ...artifacts, weightData: artifacts.weightData.slice(0) }));
    const inputs = {};
    for (const [name, [values, shape, dtype]] of Object.entries(feeds)) inputs[name] = tf.tensor(values, shape, dtype);
    try {
      return await model.executeAsync(inputs, outputs);
    } finally {
      tf.dispose(Object.values(inputs));
      model.dispose();
    }
  }, what);
}

describe('moved into the core: through a graph model', () => {
  const graph = graphOf;
  const T = attr.type('float32');
  const I = attr.type('int32');
  const x = { x: [Array.from(lcg(2 * 3 * 4, 11, 3)), [2, 3, 4], 'float32'] };
  it('layout ops', async () => {
    await graph((g) => {
      g.ints('b', [0, 1, 1]);
      g.ints('s', [-1, 2, 2]);
      g.node('slice', 'Slice', ['x', 'b', 's'], { T, Index: I });
      g.ints('sb', [0, 1, 0]);
      g.ints('se', [2, 3, 4]);
      g.ints('ss', [1, 1, 1]);
      g.node('ss_out', 'StridedSlice', ['x', 'sb', 'se', 'ss'], { T, Index: I, begin_mask: attr.int(0),
        end_mask: attr.int(0), ellipsis_mask: attr.int(0), new_axis_mask: attr.int(0), shrink_axis_mask: attr.int(1) });
      g.ints('reps', [1, 2, 1]);
      g.node('tile', 'Tile', ['x', 'reps'], { T, Tmultiples: I });
      g.ints('axes', [0, 2]);
      g.node('rev', 'ReverseV2', ['x', 'axes'], { T, Tidx: I });
      g.ints('pads', [1, 0, 0, 1, 2, 0], [3, 2]);
      g.node('pad', 'Pad', ['x', 'pads'], { T, Tpaddings: I });
      g.node('mpad', 'MirrorPad', ['x', 'pads'], { T, Tpaddings: I, mode: attr.str('REFLECT') });
      g.ints('dim', [2], []);
      g.node('split', 'Split', ['dim', 'x'], { T, num_split: attr.int(2) });
      g.node('unpack', 'Unpack', ['x'], { T, num: attr.int(3), axis: attr.int(1) });
      g.ints('idx', [1, 2, 0, 0], [2, 2]);
      g.node('gnd', 'GatherNd', ['x', 'idx'], { Tparams: T, Tindices: I });
    }, x, ['slice', 'ss_out', 'tile', 'rev', 'pad', 'mpad', 'split', 'split:1', 'unpack:2', 'gnd'], 'layout graph');
  });
  it('image, conv, string, sparse and dynamic ops', async () => {
    const img = { img: [Array.from(lcg(2 * 4 * 4 * 8, 13, 2)), [2, 4, 4, 8], 'float32'] };
    await graph((g) => {
      g.ints('block', [2, 2]);
      g.ints('pads', [0, 0, 2, 0], [2, 2]);
      g.node('s2b', 'SpaceToBatchND', ['img', 'block', 'pads'], { T, Tblock_shape: I, Tpaddings: I });
      g.node('d2s', 'DepthToSpace', ['img'], { T, block_size: attr.int(2), data_format: attr.str('NHWC') });
      g.constant('boxes', [2, 4], [0, 0, 1, 1, 0.2, 0.1, 0.9, 0.7]);
      g.ints('ind', [1, 0]);
      g.ints('size', [3, 2]);
      g.node('crop', 'CropAndResize', ['img', 'boxes', 'ind', 'size'], { T, method: attr.str('bilinear'),
        extrapolation_value: attr.float(0) });
    }, img, ['s2b', 'd2s', 'crop'], 'image graph');
    const strs = { s: [['a b', 'c'], [2], 'string'], d: [[' '], [], 'string'] };
    await graph((g) => {
      g.node('split', 'StringSplit', ['s', 'd'], { skip_empty: attr.bool(true) });
      g.node('hash', 'StringToHashBucketFast', ['s'], { num_buckets: attr.int(77) });
    }, strs, ['split', 'split:1', 'split:2', 'hash'], 'string graph');
    const nms = {
      boxes: [[0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 10, 1, 11], [3, 4], 'float32'],
      scores: [[0.9, 0.8, 0.7], [3], 'float32'],
    };
    await graph((g) => {
      g.ints('max', [3], []);
      g.constant('iou', [], [0.5]);
      g.constant('thr', [], [0]);
      g.node('nms', 'NonMaxSuppressionV3', ['boxes', 'scores', 'max', 'iou', 'thr'], { T });
      g.node('where', 'Where', ['scores'], { T });
    }, nms, ['nms', 'where'], 'dynamic graph');
  });
});

describe('the ops tfjs-converter maps that the graph executor lacked, now in the core', () => {
  it('through tf.*', async () => {
    const m = (tf) => tf.tensor2d(Array.from(lcg(12, 31, 2)), [3, 4]);
    await both((tf) => tf.tidy(() => tf.linalg.bandPart(m(tf), 1, 0)), 'bandPart');
    await both((tf) => tf.tidy(() => tf.linalg.bandPart(m(tf), -1, 2)), 'bandPart all below');
    await both((tf) => tf.tidy(() => tf.linalg.bandPart(m(tf), 0.5, 0)), 'bandPart fraction', false);
    await both((tf) => tf.tidy(() => tf.einsum('ij,jk->ik', m(tf), m(tf).transpose())), 'einsum matmul');
    await both((tf) => tf.tidy(() => tf.einsum('ij->j', m(tf))), 'einsum sum');
    await both((tf) => tf.tidy(() => tf.einsum('ij,ij->i', m(tf), m(tf))), 'einsum dot rows');
    await both((tf) => tf.tidy(() => tf.einsum('ij,jk', m(tf), m(tf))), 'einsum no arrow');
    await both((tf) => tf.tidy(() => tf.euclideanNorm(m(tf), 1, true)), 'euclideanNorm');
    for (const ord of [1, 2, Infinity, -Infinity, 'euclidean']) {
      await both((tf) => tf.tidy(() => tf.norm(m(tf), ord, 0)), `norm ${ord}`);
    }
    for (const ord of [1, Infinity, -Infinity, 'fro']) {
      await both((tf) => tf.tidy(() => tf.norm(m(tf), ord, [0, 1], true)), `matrix norm ${ord}`);
    }
    await both((tf) => tf.tidy(() => tf.norm(m(tf), 3, 0)), 'norm bad ord');
    await both((tf) => tf.tidy(() => tf.logSumExp(m(tf), 1, true)), 'logSumExp');
    const x = (tf) => tf.tensor1d([1, 3, 1, 0, 7, 3, 9], 'int32');
    await both((tf) => tf.tidy(() => tf.bincount(x(tf), [], 5)), 'bincount');
    await both((tf) => tf.tidy(() => tf.bincount(x(tf), tf.tensor1d([1, 2, 3, 4, 5, 6, 7]), 8)), 'bincount weights');
    await both((tf) => tf.tidy(() => tf.denseBincount(tf.tensor2d([[1, 2], [2, 9]], [2, 2], 'int32'), [], 4, true)),
      'denseBincount binary 2-D');
    await both((tf) => tf.tidy(() => tf.unsortedSegmentSum(m(tf), tf.tensor1d([2, 0, 2], 'int32'), 3)), 'unsortedSegmentSum');
    const seq = (tf) => tf.tensor2d([[0, 3, 9, 10, 10], [1, 2, 3, 4, 5]]);
    const v = (tf) => tf.tensor2d([[2, 10], [3, 6]]);
    await both((tf) => tf.tidy(() => tf.lowerBound(seq(tf), v(tf))), 'lowerBound');
    await both((tf) => tf.tidy(() => tf.upperBound(seq(tf), v(tf))), 'upperBound');
    await both((tf) => tf.tidy(() => tf.scatterND([[1], [3], [1]], [9, 10, 11], [5])), 'scatterND');
    await both((tf) => tf.tidy(() => tf.scatterND([[0, 1], [2, 0]], [[1, 2], [3, 4]], [3, 2, 2])), 'scatterND slices');
    await both((tf) => tf.tidy(() => tf.scatterND([[0, 1]], [1, 2], [3])), 'scatterND bad shapes');
    await both((tf) => tf.tidy(() => tf.tensorScatterUpdate(m(tf), tf.tensor2d([[0], [2]], [2, 1], 'int32'),
      tf.ones([2, 4]))), 'tensorScatterUpdate');
    await both((tf) => tf.tidy(() => tf.sparseToDense(tf.tensor1d([0, 2], 'int32'), tf.tensor1d([5, 6]), [4], 1)), 'sparseToDense');
    await both((tf) => tf.tidy(() => tf.sparseToDense(tf.tensor1d([1, 3], 'int32'), tf.scalar(7), [4], 2)), 'sparseToDense scalar value');
    await both((tf) => tf.tidy(() => tf.unique(tf.tensor1d([4, 1, 4, NaN, 1, NaN, -0, 0]))), 'unique');
    await both((tf) => tf.tidy(() => tf.unique(tf.tensor2d([[1, 0, 1], [1, 0, 1]]), 1)), 'unique axis 1');
    await both((tf) => tf.tidy(() => tf.unique(tf.tensor1d(['b', 'a', 'b']))), 'unique strings');
    const sig = (tf) => tf.tensor2d(Array.from(lcg(16, 37, 1)), [2, 8]);
    await both((tf) => tf.tidy(() => tf.spectral.rfft(sig(tf))), 'rfft');
    await both((tf) => tf.tidy(() => tf.spectral.rfft(sig(tf), 5)), 'rfft shorter');
    await both((tf) => tf.tidy(() => tf.spectral.rfft(sig(tf), 11)), 'rfft longer');
    await both((tf) => tf.tidy(() => tf.spectral.irfft(tf.spectral.rfft(sig(tf)))), 'irfft');
    await both((tf) => tf.tidy(() => tf.multinomial(tf.tensor2d([[0.1, 2, 0.5], [3, 0, 0]]), 6, 5)), 'multinomial seeded');
    await both((tf) => tf.tidy(() => tf.multinomial(tf.tensor1d([0.2, 0.3, 0.5]), 4, 3, true)), 'multinomial normalized');
    await both((tf) => tf.tidy(() => tf.bitwiseAnd(tf.tensor1d([12, -1, 7], 'int32'), tf.tensor1d([10, 5, 0], 'int32'))), 'bitwiseAnd');
    await both((tf) => tf.tidy(() => tf.bitwiseAnd(tf.tensor1d([1], 'int32'), tf.tensor1d([1]))), 'bitwiseAnd float');
    // (One image: tfjs's cpu kernel transforms the first image of a batch and fills the others.)
    const img = (tf) => tf.tensor4d(Array.from(lcg(5 * 6 * 3, 41, 2)), [1, 5, 6, 3]);
    const tr = [[1.1, 0.2, -0.5, -0.1, 0.9, 0.7, 0.01, 0]];
    for (const interpolation of ['nearest', 'bilinear']) {
      for (const fillMode of ['constant', 'reflect', 'wrap', 'nearest']) {
        await both((tf) => tf.tidy(() => tf.image.transform(img(tf), tr, interpolation, fillMode, 0.5, [4, 7])),
          `transform ${interpolation} ${fillMode}`);
      }
    }
    await both((tf) => tf.tidy(() => tf.image.rotateWithOffset(img(tf), 0.7, [1, 2, 3], [0.3, 0.6])), 'rotateWithOffset');
  });
  it('through a graph model', async () => {
    const T = attr.type('float32');
    const I = attr.type('int32');
    const feeds = {
      m: [Array.from(lcg(12, 31, 2)), [3, 4], 'float32'],
      xi: [[1, 3, 1, 0, 7, 3, 9], [7], 'int32'],
    };
    const g = (build, outputs, what, extra = {}) => graphOf(build, { ...feeds, ...extra }, outputs, what);
    await g((b) => {
      b.ints('lo', [1], []);
      b.ints('hi', [1], []); // (tfjs reads num_lower for both counts)
      b.node('band', 'MatrixBandPart', ['m', 'lo', 'hi'], { T, Tindex: I });
      b.node('ein', 'Einsum', ['m', 'm'], { T, N: attr.int(2), equation: attr.str('ij,kj->ik') });
      b.ints('ax', [1]);
      b.node('enorm', 'EuclideanNorm', ['m', 'ax'], { T, Tidx: I, keep_dims: attr.bool(true) });
      b.ints('size', [10], []);
      b.constant('w', [0], []);
      b.node('bins', 'Bincount', ['xi', 'size', 'w'], { T });
      b.node('dbins', 'DenseBincount', ['xi', 'size', 'w'], { T, Tidx: I, binary_output: attr.bool(true) });
      b.constant('seq', [5], [0, 3, 9, 10, 10]);
      b.constant('vals', [3], [2, 10, 11]);
      b.node('lb', 'LowerBound', ['seq', 'vals'], { T });
      b.node('ub', 'UpperBound', ['seq', 'vals'], { T });
    }, ['band', 'ein', 'enorm', 'bins', 'dbins', 'lb', 'ub'], 'matrices, norm, counts, bounds');
    await g((b) => {
      b.ints('idx', [1, 3, 1], [3, 1]);
      b.constant('upd', [3], [9, 10, 11]);
      b.ints('shape', [5]);
      b.node('snd', 'ScatterNd', ['idx', 'upd', 'shape'], { T, Tindices: I });
      b.ints('rows', [0, 2], [2, 1]);
      b.constant('ones', [2, 4], [1, 1, 1, 1, 1, 1, 1, 1]);
      b.node('tsu', 'TensorScatterUpdate', ['m', 'rows', 'ones'], { T, Tindices: I });
      b.ints('sidx', [0, 2]);
      b.ints('dshape', [4]);
      b.constant('svals', [2], [5, 6]);
      b.ints('dflt', [1], []);
      b.node('s2d', 'SparseToDense', ['sidx', 'dshape', 'svals', 'dflt'], { T, Tindices: I });
      b.node('uniq', 'Unique', ['xi'], { T: I, out_idx: I });
      b.ints('uax', [0]);
      b.node('uniq2', 'UniqueV2', ['xi', 'uax'], { T: I, Taxis: I, out_idx: I });
      b.node('and', 'BitwiseAnd', ['xi', 'xi'], { T: I });
    }, ['snd', 'tsu', 's2d', 'uniq', 'uniq:1', 'uniq2', 'uniq2:1'], 'scatters, unique');
    await g((b) => {
      b.node('spec', 'RFFT', ['m', 'len'], { Tcomplex: attr.type('complex64') });
      b.node('back', 'IRFFT', ['spec', 'len'], { Treal: T });
      b.ints('len', [4]);
    }, ['back'], 'rfft, irfft');
    const img = { img: [Array.from(lcg(5 * 6 * 3, 41, 2)), [1, 5, 6, 3], 'float32'] };
    await g((b) => {
      b.constant('tr', [1, 8], [1.1, 0.2, -0.5, -0.1, 0.9, 0.7, 0.01, 0]);
      b.ints('oshape', [4, 7]);
      b.constant('fill', [], [0.5]);
      b.node('warp', 'ImageProjectiveTransformV3', ['img', 'tr', 'oshape', 'fill'], { dtype: T,
        interpolation: attr.str('BILINEAR'), fill_mode: attr.str('REFLECT') });
    }, ['warp'], 'ImageProjectiveTransformV3', img);
  });
});

describe('the ragged ops, now in the core', () => {
  it('through tf.*', async () => {
    await both((tf) => tf.tidy(() => tf.raggedRange([0, 5, 8], [3, 3, 12], [1, -1, 2])), 'raggedRange');
    await both((tf) => tf.tidy(() => tf.raggedRange(tf.scalar(1, 'int32'), [4, 7], 2)), 'raggedRange broadcast');
    await both((tf) => tf.tidy(() => tf.raggedRange([0], [3], [0])), 'raggedRange zero delta');
    await both((tf) => tf.tidy(() => tf.raggedGather([tf.tensor1d([0, 2, 3, 3, 5], 'int32')],
      tf.tensor1d(['a', 'b', 'c', 'd', 'e']), tf.tensor1d([3, 0, 3], 'int32'), 1)), 'raggedGather strings');
    await both((tf) => tf.tidy(() => tf.raggedGather([tf.tensor1d([0, 1, 3], 'int32'), tf.tensor1d([0, 2, 3, 5], 'int32')],
      tf.tensor2d(Array.from(lcg(10, 43, 1)), [5, 2]), tf.tensor2d([[1, 0]], [1, 2], 'int32'), 2)), 'raggedGather nested');
    await both((tf) => tf.tidy(() => tf.raggedGather([tf.tensor1d([0, 2], 'int32')], tf.tensor1d([1, 2]),
      tf.tensor1d([1], 'int32'), 1)), 'raggedGather bad index');
    const values = (tf) => tf.tensor1d([1, 2, 3, 4, 5, 6]);
    await both((tf) => tf.tidy(() => tf.raggedTensorToTensor([4, 3], values(tf), 0, [tf.tensor1d([0, 3, 3, 5, 6], 'int32')],
      ['ROW_SPLITS'])), 'raggedTensorToTensor splits');
    await both((tf) => tf.tidy(() => tf.raggedTensorToTensor([-1, -1], values(tf), 9, [tf.scalar(4, 'int32'),
      tf.tensor1d([0, 0, 1, 3, 3, 3], 'int32')], ['FIRST_DIM_SIZE', 'VALUE_ROWIDS'])), 'raggedTensorToTensor row ids');
    // (A scalar default: tfjs fills zeros where a default row is given, TensorFlow the row.)
    await both((tf) => tf.tidy(() => tf.raggedTensorToTensor([2, 3, 2], tf.tensor2d([1, 2, 3, 4, 5, 6], [3, 2]),
      tf.scalar(7), [tf.tensor1d([0, 1, 3], 'int32')], ['ROW_SPLITS'])), 'raggedTensorToTensor default');
    await both((tf) => tf.tidy(() => tf.raggedTensorToTensor([2, 2], values(tf), 0, [tf.tensor1d([0, 3, 2], 'int32')],
      ['ROW_SPLITS'])), 'raggedTensorToTensor bad splits');
  });
  it('through a graph model (tfjs 4.22 does not load these ops: checked against its tf.* ops)', async () => {
    const g = new GraphBuilder('ragged');
    g.placeholder('starts', [-1], 'int32');
    g.ints('limits', [3, 3, 12]);
    g.ints('deltas', [1, -1, 2]);
    g.node('rr', 'RaggedRange', ['starts', 'limits', 'deltas'], { T: attr.type('int32'), Tsplits: attr.type('int32') });
    g.ints('shape', [3, 4]);
    g.ints('dflt', [0], []);
    g.node('dense', 'RaggedTensorToTensor', ['shape', 'rr:1', 'dflt', 'rr'], { T: attr.type('int32'),
      Tindex: attr.type('int32'), Tshape: attr.type('int32'), row_partition_types: attr.strs(['ROW_SPLITS']) });
    const artifacts = g.artifacts();
    const before = tt.memory().numTensors;
    const model = await tt.loadGraphModel(tt.io.fromMemory({ ...artifacts, weightData: artifacts.weightData.slice(0) }));
    const starts = tt.tensor1d([0, 5, 8], 'int32');
    const got = await model.executeAsync({ starts }, ['rr', 'rr:1', 'dense']);
    const want = tfo.tidy(() => {
      const r = tfo.raggedRange(tfo.tensor1d([0, 5, 8], 'int32'), tfo.tensor1d([3, 3, 12], 'int32'),
        tfo.tensor1d([1, -1, 2], 'int32'));
      return [r.rtNestedSplits, r.rtDenseValues,
        tfo.raggedTensorToTensor([3, 4], r.rtDenseValues, 0, [r.rtNestedSplits], ['ROW_SPLITS'])];
    });
    compare(readAll(got), readAll(want), 'ragged graph');
    tfo.dispose(want);
    tt.dispose([...got, starts]);
    model.dispose();
    assert.equal(tt.memory().numTensors, before, 'ragged graph: tensors left');
  });
});

describe('bad input to the moved ops: a clear error, nothing left behind', () => {
  it('sizes that overflow or point past the data', () => {
    for (const [what, program, text] of [
      ['raggedGather splits past the next level', () => tt.raggedGather([tt.tensor1d([0, 3], 'int32'),
        tt.tensor1d([0, 1, 2], 'int32')], tt.tensor1d([1, 2]), tt.tensor1d([0], 'int32'), 2),
      /Ragged splits must not point past values/],
      ['raggedTensorToTensor splits far past the values', () => tt.raggedTensorToTensor([-1, -1], tt.tensor1d([1, 2]), 0,
        [tt.tensor1d([0, 2 ** 31 - 1, 0, 2 ** 31 - 1, 0, 2 ** 31 - 1, 0, 2 ** 31 - 1, 0], 'int32')], ['ROW_SPLITS']),
      /./],
      ['spaceToBatchND blocks whose product overflows', () => tt.spaceToBatchND(tt.zeros([1, 0, 0, 1]),
        [2 ** 40, 2 ** 40], [[0, 0], [0, 0]]), /blockShape .* too large/],
      ['batchToSpaceND blocks whose product overflows', () => tt.batchToSpaceND(tt.zeros([4, 1, 1, 1]),
        [2 ** 40, 2 ** 40], [[0, 0], [0, 0]]), /blockShape .* too large/],
      ['denseBincount rows x size overflows', () => tt.denseBincount(tt.tensor2d([[1]], [1, 1], 'int32'), [], 2 ** 53 - 1),
        /./],
      ['rfft a fractional length', () => tt.spectral.rfft(tt.ones([2, 4]), 1.5), /rfft: fftLength must be a non-negative integer/],
    ]) {
      const before = tt.memory().numTensors;
      assert.throws(() => tt.tidy(program), text, what);
      assert.equal(tt.memory().numTensors, before, `${what}: tensors left`);
    }
  });
});

// --- The compositions moved from lib/ops into the core last: separableConv2d, pool, the colour
// conversions and threshold, booleanMaskAsync, the conjugate transpose, broadcastTo, step,
// logSigmoid, movingAverage. Each against tfjs (values, dtypes, shapes, error texts, nothing
// left behind, errors included), with gradients where tfjs has them and its kernel names in
// tf.profile where the composition is tfjs's.

// The kernel names tf.profile records for `program(tf)` on both libraries.
async function sameKernels(program, what) {
  const names = [];
  for (const tf of [tt, tfo]) {
    const info = await tf.profile(() => program(tf));
    tf.dispose(info.result);
    names.push(info.kernelNames);
  }
  assert.deepEqual(names[0], names[1], `${what}: kernels`);
}

describe('the last compositions moved into the core', () => {
  const seq = (n, seed) => Array.from(lcg(n, seed, 2));
  const batch = (tf) => tf.tensor4d(seq(2 * 6 * 5 * 3, 51), [2, 6, 5, 3]);
  const depthwise = (tf) => tf.tensor4d(seq(2 * 2 * 3 * 2, 53), [2, 2, 3, 2]);
  const pointwise = (tf) => tf.tensor4d(seq(6 * 4, 57), [1, 1, 6, 4]);

  it('separableConv2d', async () => {
    const run = (what, f) => both((tf) => tf.tidy(() => f(tf)), `separableConv2d ${what}`);
    await run('same', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), pointwise(tf), 1, 'same'));
    await run('strided', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), pointwise(tf), [2, 1], 'valid'));
    await run('dilated', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), pointwise(tf), 1, 'valid', 2));
    await run('explicit pad', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), pointwise(tf), 1,
      [[0, 0], [1, 0], [0, 2], [0, 0]]));
    await run('rank 3', (tf) => tf.separableConv2d(batch(tf).reshape([12, 5, 3]), depthwise(tf), pointwise(tf), 1, 'same'));
    await run('chained', (tf) => batch(tf).separableConv2d(depthwise(tf), pointwise(tf), 1, 'valid'));
    await run('NCHW', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), pointwise(tf), 1, 'valid', 1, 'NCHW'));
    await run('rank 2 input', (tf) => tf.separableConv2d(tf.ones([4, 3]), depthwise(tf), pointwise(tf), 1, 'valid'));
    await run('depthwise rank', (tf) => tf.separableConv2d(batch(tf), tf.ones([2, 3, 2]), pointwise(tf), 1, 'valid'));
    await run('pointwise rank', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), tf.ones([6, 4]), 1, 'valid'));
    await run('pointwise first dim', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), tf.ones([2, 1, 6, 4]), 1, 'valid'));
    await run('pointwise second dim', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), tf.ones([1, 2, 6, 4]), 1, 'valid'));
    await run('pointwise channels', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), tf.ones([1, 1, 5, 4]), 1, 'valid'));
    await run('input channels', (tf) => tf.separableConv2d(tf.ones([1, 4, 4, 2]), depthwise(tf), pointwise(tf), 1, 'valid'));
    await run('int32 input', (tf) => tf.separableConv2d(batch(tf).toInt(), depthwise(tf), pointwise(tf), 1, 'valid'));
    await run('int32 pointwise', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), pointwise(tf).toInt(), 1, 'valid'));
    await run('strides and dilations', (tf) => tf.separableConv2d(batch(tf), depthwise(tf), pointwise(tf), 2, 'valid', 2));
    await run('gradients', (tf) => tf.grads((x, d, p) => tf.separableConv2d(x, d, p, [1, 2], 'same').square().sum())(
      [batch(tf), depthwise(tf), pointwise(tf)]));
    await run('gradient of the rank-3 form', (tf) => tf.grad((x) => tf.separableConv2d(x, depthwise(tf), pointwise(tf), 1,
      'valid').sum())(batch(tf).reshape([12, 5, 3])));
    // (Both refuse a dilated depthwise gradient; the texts are the depthwise convolution's own.)
    await both((tf) => tf.tidy(() => tf.grad((x) => tf.separableConv2d(x, depthwise(tf), pointwise(tf), 1, 'same', 2).sum())(
      batch(tf))), 'separableConv2d dilated gradient', false);
    await sameKernels((tf) => tf.tidy(() => tf.separableConv2d(batch(tf), depthwise(tf), pointwise(tf), 1, 'same')),
      'separableConv2d');
  });

  it('pool', async () => {
    const run = (what, f) => both((tf) => tf.tidy(() => f(tf)), `pool ${what}`);
    for (const type of ['max', 'avg']) {
      await run(`${type} same dilated`, (tf) => tf.pool(batch(tf), [2, 3], type, 'same', 2));
      await run(`${type} valid dilated`, (tf) => tf.pool(batch(tf), [3, 2], type, 'valid', [2, 3]));
      await run(`${type} strided`, (tf) => tf.pool(batch(tf), 2, type, 'same', 1, 2));
      await run(`${type} explicit pad`, (tf) => tf.pool(batch(tf), 2, type, [[0, 0], [1, 1], [0, 1], [0, 0]], 1, 1));
      await run(`${type} rank 3 dilated`, (tf) => tf.pool(batch(tf).reshape([12, 5, 3]), 2, type, 'same', 3));
      await run(`${type} rounding`, (tf) => tf.pool(batch(tf), 3, type, 1, 1, 2, 'ceil'));
      await run(`${type} rounding dilated`, (tf) => tf.pool(batch(tf), 2, type, 'same', 2, 1, 'floor'));
      await run(`${type} gradient`, (tf) => tf.grad((x) => tf.pool(x, [2, 2], type, 'same', 2).square().sum())(batch(tf)));
    }
    await run('max int32 dilated', (tf) => tf.pool(batch(tf).mul(10).toInt(), 2, 'max', 'same', 2));
    await run('avg int32', (tf) => tf.pool(batch(tf).toInt(), 2, 'avg', 'same', 2));
    await run('pad 0 is valid', (tf) => tf.pool(batch(tf), 2, 'max', 0));
    await run('strides and dilations', (tf) => tf.pool(batch(tf), 2, 'max', 'same', 2, 2));
    await run('rank 2', (tf) => tf.pool(tf.ones([4, 4]), 2, 'max', 'same'));
    await run('rank 2 dilated', (tf) => tf.pool(tf.ones([4, 4]), 2, 'max', 'same', 2));
    await run('unknown pad', (tf) => tf.pool(batch(tf), 2, 'max', 'full', 2));
    await sameKernels((tf) => tf.tidy(() => tf.pool(batch(tf).reshape([12, 5, 3]), 2, 'max', 'same')), 'pool');
  });

  it('grayscaleToRGB, rgbToGrayscale', async () => {
    const run = (what, f) => both((tf) => tf.tidy(() => f(tf)), what);
    const rgb = (tf, dtype) => tf.tensor3d(seq(4 * 5 * 3, 61).map((v) => Math.round(v * 100)), [4, 5, 3], dtype);
    await run('grayscaleToRGB int32', (tf) => tf.image.grayscaleToRGB(tf.tensor3d([1, 2, 3, 4], [2, 2, 1], 'int32')));
    await run('grayscaleToRGB rank 2', (tf) => tf.image.grayscaleToRGB(tf.tensor2d([0.5, 2], [2, 1])));
    await run('grayscaleToRGB rank 5', (tf) => tf.image.grayscaleToRGB(tf.ones([1, 2, 1, 2, 1])));
    await run('grayscaleToRGB rank 1', (tf) => tf.image.grayscaleToRGB(tf.ones([1])));
    await run('grayscaleToRGB last dim', (tf) => tf.image.grayscaleToRGB(tf.ones([2, 3])));
    await run('grayscaleToRGB gradient', (tf) => tf.grad((x) => tf.image.grayscaleToRGB(x).square().sum())(tf.ones([2, 2, 1])));
    for (const dtype of ['float32', 'int32']) {
      await run(`rgbToGrayscale ${dtype}`, (tf) => tf.image.rgbToGrayscale(rgb(tf, dtype)));
    }
    await run('rgbToGrayscale equal channels (99.99 truncates)', (tf) =>
      tf.image.rgbToGrayscale(tf.tensor2d([100, 100, 100, 255, 255, 255], [2, 3], 'int32')));
    await run('rgbToGrayscale rank 6', (tf) => tf.image.rgbToGrayscale(tf.ones([1, 2, 1, 2, 1, 3])));
    await run('rgbToGrayscale rank 1', (tf) => tf.image.rgbToGrayscale(tf.ones([3])));
    await run('rgbToGrayscale last dim', (tf) => tf.image.rgbToGrayscale(tf.ones([2, 4])));
    // tfjs has no gradient for its Einsum kernel; tidytensor's is that of the weighted sum.
    const weighted = (tf, x) => (tf === tt ? tf.image.rgbToGrayscale(x)
      : tf.sum(tf.mul(x, tf.tensor1d([0.2989, 0.5870, 0.1140])), -1, true));
    await run('rgbToGrayscale gradient', (tf) => tf.grad((x) => weighted(tf, x).square().sum())(rgb(tf)));
  });

  it('threshold', async () => {
    const run = (what, f) => both((tf) => tf.tidy(() => f(tf)), `threshold ${what}`);
    const img = (tf, channels, dtype) =>
      tf.tensor3d(Array.from({ length: 6 * 7 * channels }, (_, i) => (i * 37 + (i >> 3) * 11) % 256), [6, 7, channels], dtype);
    for (const channels of [1, 3]) {
      for (const dtype of ['int32', 'float32']) {
        for (const method of ['binary', 'otsu']) {
          for (const inverted of [false, true]) {
            await run(`${channels} ${dtype} ${method} ${inverted}`, (tf) => tf.image.threshold(img(tf, channels, dtype),
              method, inverted, 0.37));
          }
        }
      }
    }
    await run('defaults', (tf) => tf.image.threshold(img(tf, 3, 'int32')));
    await run('one level', (tf) => tf.image.threshold(tf.fill([3, 3, 1], 7, 'int32'), 'otsu'));
    await run('fractions and out of range', (tf) => tf.image.threshold(tf.tensor3d([0.5, 1.5, 2.5, 300, 254.5, 9], [2, 3, 1]), 'otsu'));
    await run('rank', (tf) => tf.image.threshold(tf.ones([4, 4])));
    await run('channels', (tf) => tf.image.threshold(tf.ones([4, 4, 2])));
    await run('dtype', (tf) => tf.image.threshold(tf.ones([4, 4, 1], 'bool')));
    await run('method', (tf) => tf.image.threshold(tf.ones([4, 4, 1]), 'mean'));
    await run('negative values (otsu)', (tf) => tf.image.threshold(tf.fill([2, 2, 1], -3), 'otsu'));
  });

  it('booleanMaskAsync', async () => {
    const x = (tf) => tf.tensor3d(seq(2 * 3 * 4, 67), [2, 3, 4]);
    const run = (what, mask, axis, make = x) => both(async (tf) => {
      const t = make(tf);
      try {
        return await tf.booleanMaskAsync(t, mask, axis);
      } finally {
        t.dispose();
      }
    }, `booleanMaskAsync ${what}`);
    await run('2-D mask', [[true, false, true], [false, false, true]]);
    await run('axis 1', [true, false, true], 1);
    await run('axis 2', [false, true, true, false], 2);
    await run('none true', [false, false]);
    await run('int32', [true, false], 0, (tf) => tf.tensor2d([1, 2, 3, 4], [2, 2], 'int32'));
    await run('bool', [true, false, true], 0, (tf) => tf.tensor1d([true, true, false], 'bool'));
    await run('shape', [true, false], 1);
    await run('scalar mask', true);
    await run('mask past the rank', [true, false, true, true], 2.5);
    await both(async (tf) => {
      const [t, m] = [x(tf), tf.tensor1d([1, 0])];
      try {
        return await tf.booleanMaskAsync(t, m);
      } finally {
        tf.dispose([t, m]);
      }
    }, 'booleanMaskAsync float32 mask');
  });

  it('transpose with conjugate, broadcastTo', async () => {
    const run = (what, f) => both((tf) => tf.tidy(() => f(tf)), what);
    const c = (tf) => tf.complex(tf.tensor3d(seq(12, 71), [2, 3, 2]), tf.tensor3d(seq(12, 73), [2, 3, 2]));
    await run('conjugate transpose', (tf) => tf.transpose(c(tf), [2, 0, 1], true));
    await run('conjugate transpose, default perm', (tf) => tf.transpose(c(tf), undefined, true));
    await run('conjugate transpose of rank 1 (tfjs clones)', (tf) => tf.transpose(tf.complex([1, 2], [3, 4]), [0], true));
    await run('conjugate of a real tensor', (tf) => tf.transpose(tf.tensor2d([1, 2, 3, 4], [2, 2]), [1, 0], true));
    await run('conjugate transpose, bad perm', (tf) => tf.transpose(c(tf), [0, 1], true));
    await run('transpose, no conjugate', (tf) => tf.transpose(c(tf), [1, 0, 2], false));
    await run('broadcastTo', (tf) => tf.broadcastTo(tf.tensor2d([1, 2, 3], [3, 1]), [2, 3, 4]));
    await run('broadcastTo the same shape', (tf) => tf.broadcastTo(tf.tensor1d([1, 2], 'int32'), [2]));
    await run('broadcastTo 0 (tfjs keeps the 1)', (tf) => tf.broadcastTo(tf.tensor1d([7]), [0]));
    await run('broadcastTo 0 beside a repeat', (tf) => tf.broadcastTo(tf.tensor1d([7]), [2, 0]));
    await run('broadcastTo strings', (tf) => tf.broadcastTo(tf.tensor1d(['a', 'b']), [2, 2]));
    await run('broadcastTo a lower rank', (tf) => tf.broadcastTo(tf.ones([2, 2]), [2]));
    await run('broadcastTo a mismatch', (tf) => tf.broadcastTo(tf.ones([2, 3]), [4, 2, 4]));
    await run('broadcastTo a bad shape', (tf) => tf.broadcastTo(tf.ones([2]), [2, 1.5]));
    await run('broadcastTo gradient', (tf) => tf.grad((x) => tf.broadcastTo(x, [2, 3, 3]).square().sum())(tf.ones([3, 1])));
    await sameKernels((tf) => tf.tidy(() => tf.broadcastTo(tf.ones([2]), [2])), 'broadcastTo');
  });

  it('step, logSigmoid, movingAverage', async () => {
    const run = (what, f) => both((tf) => tf.tidy(() => f(tf)), what);
    const special = [-2, -0, 0, 0.5, 3, NaN, Infinity, -Infinity];
    await run('step', (tf) => tf.step(tf.tensor1d(special)));
    await run('step alpha', (tf) => tf.step(tf.tensor1d(special), -0.25));
    await run('step int32', (tf) => tf.step(tf.tensor1d([-3, 0, 4], 'int32'), 2.7));
    await run('step int32 negative alpha', (tf) => tf.step(tf.tensor1d([-3, 0, 4], 'int32'), -1.5));
    // (A bool alpha is stored as a byte, 0.5 as 0; tfjs keeps bytes above 1, tidytensor's bools are 0 or 1.)
    await run('step bool', (tf) => tf.step(tf.tensor1d([true, false], 'bool'), 0.5));
    await run('step bool alpha 1', (tf) => tf.step(tf.tensor1d([true, false], 'bool'), 1));
    await run('step chained', (tf) => tf.tensor2d([[1, -1], [0, 2]]).step(0.1));
    await run('step string', (tf) => tf.step(tf.tensor1d(['a'])));
    await run('step gradient (zero)', (tf) => tf.grad((x) => tf.step(x, 0.3).mul(x).sum())(tf.tensor1d(special.slice(0, 5))));
    // (close() compares finite values and NaN)
    await run('logSigmoid', (tf) => tf.logSigmoid(tf.tensor1d([...special.slice(0, 6), 100, -100])));
    await run('logSigmoid int32', (tf) => tf.logSigmoid(tf.tensor1d([-2, 0, 3], 'int32')));
    await run('logSigmoid gradient', (tf) => tf.grad((x) => tf.logSigmoid(x).sum())(tf.tensor1d([-3, -0.5, 0, 2, 30])));
    const v = (tf) => tf.tensor2d(seq(6, 79), [2, 3]);
    const x = (tf) => tf.tensor2d(seq(6, 83), [2, 3]);
    await run('movingAverage', (tf) => tf.movingAverage(v(tf), x(tf), 0.6, 3));
    await run('movingAverage tensors', (tf) => tf.movingAverage(v(tf), x(tf), tf.scalar(0.9), tf.scalar(2, 'int32')));
    await run('movingAverage no debias', (tf) => tf.movingAverage(v(tf), x(tf), 0.6, null, false));
    await run('movingAverage int32', (tf) => tf.movingAverage(v(tf).toInt(), x(tf).mul(5).toInt(), 0.5, 1));
    await run('movingAverage without step', (tf) => tf.movingAverage(v(tf), x(tf), 0.6));
    await run('movingAverage dtypes', (tf) => tf.movingAverage(v(tf).toInt(), x(tf), 0.6, 1));
    await run('movingAverage shapes', (tf) => tf.movingAverage(v(tf), x(tf).reshape([3, 2]), 0.6, 1));
    await run('movingAverage gradients', (tf) => tf.grads((a, b, d) => tf.movingAverage(a, b, d, 2).square().sum())(
      [v(tf), x(tf), tf.scalar(0.7)]));
    await sameKernels((tf) => tf.tidy(() => tf.step(tf.tensor1d(special), 0.5)), 'step');
  });
});

// --- dot, outerProduct, confusionMatrix, gramSchmidt, qr, basicLSTMCell, tf.signal, meshgrid,
// diag and dropout, moved into the core ---

// `program(tf)` on tidytensor only: it throws `text`, and leaves no tensor behind.
function throwsHere(program, text, what) {
  const before = tt.memory().numTensors;
  assert.throws(() => tt.tidy(() => program(tt)), text, what);
  assert.equal(tt.memory().numTensors, before, `${what}: tensors left`);
}

const M = (tf, shape, seed, dtype) => tf.tensor(Array.from(lcg(shape.reduce((a, b) => a * b, 1), seed, 3)), shape, dtype);

describe('matrix compositions, now in the core', () => {
  it('dot and outerProduct', async () => {
    const v = (tf, n, seed) => M(tf, [n], seed);
    await both((tf) => tf.tidy(() => tf.dot(v(tf, 3, 1), v(tf, 3, 2))), 'dot 1·1');
    await both((tf) => tf.tidy(() => tf.dot(v(tf, 3, 1), M(tf, [3, 4], 3))), 'dot 1·2');
    await both((tf) => tf.tidy(() => tf.dot(M(tf, [2, 3], 4), v(tf, 3, 5))), 'dot 2·1');
    await both((tf) => tf.tidy(() => tf.dot(M(tf, [2, 3], 4), M(tf, [3, 5], 6))), 'dot 2·2');
    await both((tf) => tf.tidy(() => M(tf, [2, 3], 4).dot(M(tf, [3, 5], 6))), 'dot chained');
    await both((tf) => tf.dot([1, 2], [[3], [4]]), 'dot arrays');
    await both((tf) => tf.tidy(() => tf.dot(tf.tensor1d([1, 2], 'int32'), tf.tensor1d([3, 4], 'int32'))), 'dot int32');
    await both((tf) => tf.tidy(() => tf.dot(tf.tensor1d([1, 2], 'int32'), tf.tensor1d([0.5, 4]))), 'dot int32·float32');
    await both((tf) => tf.tidy(() => tf.dot(tf.tensor1d([true, false]), tf.tensor1d([true, true]))), 'dot bool');
    await both((tf) => tf.tidy(() => tf.dot(tf.zeros([0]), tf.zeros([0]))), 'dot empty');
    await both((tf) => tf.tidy(() => tf.dot(tf.zeros([2, 0]), tf.zeros([0, 3]))), 'dot empty inner');
    await both((tf) => tf.tidy(() => tf.dot([1, 2], [3, 4, 5])), 'dot inner mismatch');
    await both((tf) => tf.tidy(() => tf.dot(tf.ones([2, 3]), tf.ones([2, 3]))), 'dot 2·2 mismatch');
    await both((tf) => tf.tidy(() => tf.dot(tf.ones([1, 1, 1]), [3])), 'dot rank 3');
    await both((tf) => tf.tidy(() => tf.dot(tf.scalar(2), [3])), 'dot rank 0');
    await both((tf) => tf.dot(['a'], ['b']), 'dot strings');
    await both((tf) => tf.tidy(() => tf.outerProduct(v(tf, 2, 7), v(tf, 3, 8))), 'outerProduct');
    await both((tf) => tf.tidy(() => tf.outerProduct(tf.tensor1d([1, 2], 'int32'), [3, 4, 5])), 'outerProduct int32·float32');
    await both((tf) => tf.tidy(() => tf.outerProduct(tf.tensor1d([1, 2], 'int32'), tf.tensor1d([3], 'int32'))), 'outerProduct int32');
    await both((tf) => tf.tidy(() => tf.outerProduct(tf.zeros([0]), [1, 2])), 'outerProduct empty');
    await both((tf) => tf.tidy(() => tf.outerProduct([[1, 2]], [3, 4, 5])), 'outerProduct rank 2');
    await both((tf) => tf.tidy(() => tf.grads((a, b) => tf.dot(a, b).sum())([M(tf, [2, 3], 9), v(tf, 3, 10)])), 'dot gradient');
    await both((tf) => tf.tidy(() => tf.grads((a, b) => tf.dot(a, b).square().sum())([v(tf, 2, 11), M(tf, [2, 3], 12)])),
      'dot 1·2 gradient');
    await both((tf) => tf.tidy(() => tf.grads((a, b) => tf.outerProduct(a, b).square().sum())([v(tf, 2, 13), v(tf, 3, 14)])),
      'outerProduct gradient');
  });
  it('confusionMatrix', async () => {
    await both((tf) => tf.math.confusionMatrix([0, 1, 2, 1, 0], [0, 2, 2, 1, 0], 3), 'values');
    await both((tf) => tf.tidy(() => tf.math.confusionMatrix(tf.tensor1d([3, 1, 0, 3], 'int32'),
      tf.tensor1d([3, 1, 1, 2], 'int32'), 4)), 'int32 tensors');
    await both((tf) => tf.math.confusionMatrix([true, false], [false, false], 2), 'bool');
    await both((tf) => tf.math.confusionMatrix([0.7, 1.5, -0.5], [0, 1, 1], 3), 'fractional labels');
    await both((tf) => tf.math.confusionMatrix([0, 5, -1], [0, -1, 2], 3), 'labels out of range');
    await both((tf) => tf.math.confusionMatrix([], [], 2), 'no examples');
    for (const n of [0, -1, 2.5, '2', NaN, Infinity, null, undefined, [2]]) {
      await both((tf) => tf.math.confusionMatrix([0], [0], n), `numClasses ${String(n)}`);
    }
    await both((tf) => tf.math.confusionMatrix([[0]], [0], 2), 'labels rank 2');
    await both((tf) => tf.math.confusionMatrix([0], [[0]], 2), 'predictions rank 2');
    await both((tf) => tf.math.confusionMatrix([[0]], [0]), 'rank error before missing numClasses');
    await both((tf) => tf.math.confusionMatrix([0, 1], [0], 2), 'length mismatch');
    await both((tf) => tf.math.confusionMatrix(['a'], ['b'], 2), 'strings');
    await both((tf) => tf.tidy(() => tf.grad((x) => tf.math.confusionMatrix(x, x, 3).sum())(tf.tensor1d([0, 1]))),
      'gradient');
  });
  it('gramSchmidt', async () => {
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt(tf.tensor2d([[1, 1], [0, 2]]))), '2-D');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt(M(tf, [3, 5], 15))), '3 × 5');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt(M(tf, [2, 2, 2], 16))), '3-D');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt([tf.tensor1d([1, 0, 1]), tf.tensor1d([1, 2, 0])])), 'list');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt([M(tf, [4], 17), M(tf, [4], 18), M(tf, [4], 19)])), 'list of 3');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt(tf.ones([3, 2]))), 'too many vectors');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt([tf.ones([2]), tf.ones([3])])), 'mismatched list');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt([tf.ones([2]), tf.ones([2]), tf.ones([2])])), 'list too long');
    await both((tf) => tf.linalg.gramSchmidt([]), 'empty list');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt(tf.ones([3]))), '1-D tensor');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt(tf.scalar(3))), 'scalar');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt(tf.zeros([0, 3]))), 'no rows');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt([tf.scalar(1)])), 'list of a scalar');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt(tf.tensor2d([[1, 2], [3, 4]], [2, 2], 'int32'))), 'int32');
    await both((tf) => tf.tidy(() => tf.linalg.gramSchmidt([tf.tensor1d([1, 2], 'int32'), tf.tensor1d([1, 0])])),
      'list with int32');
    await both((tf) => tf.tidy(() => tf.grad((x) => tf.linalg.gramSchmidt(x).mul(M(tf, [3, 4], 20)).sum())(M(tf, [3, 4], 21))),
      'gradient');
    await both((tf) => tf.tidy(() => tf.grad((x) => tf.linalg.gramSchmidt([x, tf.tensor1d([1, 2, 3])])[1].sum())(
      tf.tensor1d([3, 1, 2]))), 'list gradient');
    // (tfjs reads the list's entries as tensors: an array there is a TypeError.)
    throwsHere((tf) => tf.linalg.gramSchmidt([[1, 2]]), /xs\[0\] must be a Tensor/, 'list of arrays');
  });
  it('qr', async () => {
    const qr = (shape, seed, full) => (tf) => tf.tidy(() => tf.linalg.qr(M(tf, shape, seed), full));
    for (const [shape, seed] of [[[1, 1], 1], [[2, 2], 2], [[3, 3], 3], [[3, 2], 4], [[2, 3], 5], [[5, 3], 6], [[3, 5], 7]]) {
      await both(qr(shape, seed, false), `qr ${shape}`);
      await both(qr(shape, seed, true), `qr ${shape} full`);
    }
    await both((tf) => tf.tidy(() => tf.linalg.qr(tf.tensor2d([[0, 1, 2], [3, 0, 1], [1, 2, 0]]))), 'zero on the diagonal');
    await both((tf) => tf.tidy(() => tf.linalg.qr(tf.zeros([2, 2]))), 'zeros (NaN, as tfjs)');
    await both(qr([3, 2, 2], 8, false), 'batched square');
    await both(qr([2, 1, 3, 3], 9, true), 'batched square rank 4');
    await both((tf) => tf.tidy(() => tf.linalg.qr(tf.tensor2d([[1, 2], [3, 4]], [2, 2], 'int32'))), 'int32 (refused, as tfjs)');
    await both((tf) => tf.tidy(() => tf.linalg.qr(tf.zeros([2, 0], 'int32'))), '2 × 0 int32');
    await both((tf) => tf.tidy(() => tf.linalg.qr(tf.zeros([0, 2], 'int32'))), '0 × 2 int32');
    await both((tf) => tf.tidy(() => tf.linalg.qr(tf.tensor1d([1, 2]))), 'rank 1');
    await both((tf) => tf.tidy(() => tf.linalg.qr(tf.scalar(1))), 'rank 0');
    await both((tf) => tf.linalg.qr([[1, 2], [3, 4]]), 'an array');
    // Batches of other matrices: tfjs fails to reshape its results; each matrix is tfjs's qr.
    for (const [shape, full] of [[[2, 3, 2], false], [[2, 3, 2], true], [[2, 2, 3], false], [[2, 2, 3], true]]) {
      const before = tt.memory().numTensors;
      const got = tt.tidy(() => tt.linalg.qr(M(tt, shape, 10), full));
      const want = tfo.tidy(() => tfo.unstack(M(tfo, shape, 10)).map((m) => tfo.linalg.qr(m, full)));
      for (const k of [0, 1]) {
        const parts = want.map((w) => w[k]);
        compare(readAll(got[k]), readAll(tfo.stack(parts)), `batched ${shape} full ${full} [${k}]`);
      }
      tt.dispose(got);
      tfo.dispose(want.flat());
      assert.equal(tt.memory().numTensors, before, 'batched qr: tensors left');
    }
    // A gradient through qr: tfjs has none (its composition compares with `greater`, whose
    // gradient it lacks); tidytensor's is the composition's (greater's is zero), checked
    // against central differences.
    assert.throws(() => tfo.tidy(() => tfo.grad((x) => tfo.linalg.qr(x)[1].sum())(tfo.eye(2).add(1))),
      /gradient function not found for Greater/);
    const x0 = Array.from(lcg(6, 22, 2));
    const f = (v, k) => tt.tidy(() => tt.linalg.qr(tt.tensor2d(v, [3, 2]))[k].mul(M(tt, k ? [2, 2] : [3, 2], 23)).sum().dataSync()[0]);
    for (const k of [0, 1]) {
      const before = tt.memory().numTensors;
      const g = tt.tidy(() => tt.grad((x) => tt.linalg.qr(x)[k].mul(M(tt, k ? [2, 2] : [3, 2], 23)).sum())(tt.tensor2d(x0, [3, 2])));
      const grad = Array.from(g.dataSync());
      g.dispose();
      assert.equal(tt.memory().numTensors, before, 'qr gradient: tensors left');
      const h = 1e-2;
      const numeric = x0.map((_, i) => {
        const [up, down] = [x0.slice(), x0.slice()];
        up[i] += h;
        down[i] -= h;
        return (f(up, k) - f(down, k)) / (2 * h);
      });
      close(grad, numeric, 2e-2, `qr gradient of ${k ? 'r' : 'q'}`);
    }
  });
  it('basicLSTMCell', async () => {
    const cell = (tf, kernel, data) => tf.basicLSTMCell(tf.scalar(1), kernel, M(tf, [8], 24), data, M(tf, [2, 2], 25),
      M(tf, [2, 2], 26));
    await both((tf) => tf.tidy(() => cell(tf, M(tf, [4, 8], 27).mul(0.3), M(tf, [2, 2], 28))), 'values');
    await both((tf) => tf.basicLSTMCell(1, [[0.1, 0.2, 0.3, 0.4]], [0, 0, 0, 0], [[1]], [[0.5]], [[]]), 'arrays');
    await both((tf) => tf.tidy(() => tf.basicLSTMCell(tf.scalar(1, 'int32'), tf.ones([4, 8], 'int32'), tf.zeros([8], 'int32'),
      tf.ones([1, 2], 'int32'), tf.zeros([1, 2], 'int32'), tf.ones([1, 2], 'int32'))), 'int32 (refused, as tfjs)');
    await both((tf) => tf.tidy(() => cell(tf, M(tf, [3, 8], 27), M(tf, [2, 2], 28))), 'kernel rows mismatch');
    await both((tf) => tf.tidy(() => tf.grads((k, d) => {
      const [c, h] = cell(tf, k, d);
      return c.add(h.mul(2)).sum();
    })([M(tf, [4, 8], 27).mul(0.3), M(tf, [2, 2], 28)])), 'gradient');
    // tfjs slices a fractional number of columns and fails later with another text.
    await both((tf) => tf.tidy(() => tf.basicLSTMCell(1, tf.ones([4, 6]), tf.zeros([6]), tf.ones([1, 2]), tf.zeros([1, 2]),
      tf.ones([1, 2]))), 'columns not a multiple of 4', false);
    await both((tf) => tf.tidy(() => tf.basicLSTMCell(1, tf.ones([4, 8]), tf.zeros([8]), tf.ones([2]), tf.zeros([1, 2]),
      tf.ones([1, 2]))), 'data 1-D', false);
  });
  it('profiles record tfjs\'s kernels', async () => {
    const programs = [
      ['dot', (tf) => tf.dot(tf.tensor1d([1, 2]), tf.tensor1d([3, 4]))],
      ['dot 2·2', (tf) => tf.dot(tf.ones([2, 2]), tf.ones([2, 3]))],
      ['outerProduct', (tf) => tf.outerProduct(tf.tensor1d([1, 2]), tf.tensor1d([3, 4]))],
      ['basicLSTMCell', (tf) => tf.basicLSTMCell(tf.scalar(1), tf.ones([4, 8]), tf.zeros([8]), tf.ones([1, 2]),
        tf.zeros([1, 2]), tf.ones([1, 2]))],
      ['meshgrid', (tf) => tf.meshgrid(tf.tensor1d([1, 2]), tf.tensor1d([3, 4, 5]))],
      ['diag', (tf) => tf.diag(tf.tensor1d([1, 2]))],
      ['dropout', (tf) => tf.dropout(tf.ones([2, 2]), 0.5, null, 1)],
    ];
    for (const [what, program] of programs) {
      const names = [];
      for (const tf of [tt, tfo]) {
        const inputs = [];
        const info = await tf.profile(() => {
          const r = program(tf);
          inputs.push(r);
          return r;
        });
        names.push(info.kernels.map((k) => k.name).filter((n) => n !== 'Fill' && n !== 'OnesLike'));
        tf.dispose(inputs.flat());
      }
      assert.deepEqual(names[0], names[1], `${what}: kernels`);
    }
  });
});

describe('tf.signal, now in the core', () => {
  const S = (tf) => tf.tensor1d([1, 2, 3, 4, 5]);
  it('the windows', async () => {
    for (const n of [0, 1, 2, 5, 6, 7, 2.5, 33]) {
      await both((tf) => tf.signal.hannWindow(n), `hann ${n}`);
      await both((tf) => tf.signal.hammingWindow(n), `hamming ${n}`);
    }
    await both((tf) => tf.signal.hannWindow(-1), 'hann -1');
    await both((tf) => tf.signal.hammingWindow(Infinity), 'hamming Infinity');
    await both((tf) => tf.signal.hannWindow(NaN), 'hann NaN');
    await both((tf) => tf.cosineWindow(7, 0.3, 0.2), 'tf.cosineWindow');
  });
  it('frame', async () => {
    const cases = [
      [3, 1], [3, 2], [3, 5], [6, 1], [2, 2, true, 9], [3, 1, true], [4, 2, true], [7, 3, true], [2, 3, true, -1],
      [0, 1], [5, 5], [2, NaN], [6, 0], [1, 1, true],
    ];
    for (const [len, step, padEnd, padValue] of cases) {
      await both((tf) => tf.tidy(() => tf.signal.frame(S(tf), len, step, padEnd, padValue)), `frame ${len} ${step} ${padEnd} ${padValue}`);
    }
    await both((tf) => tf.tidy(() => tf.signal.frame(tf.tensor1d([1, 2, 3, 4], 'int32'), 2, 1, true, 7.5)), 'int32 padded');
    await both((tf) => tf.tidy(() => tf.signal.frame(tf.tensor1d([1, 2, 3, 4], 'int32'), 3, 2, true, 7)), 'int32 padded 2');
    await both((tf) => tf.tidy(() => tf.signal.frame(tf.tensor1d([true, false, true]), 2, 1)), 'bool');
    await both((tf) => tf.tidy(() => tf.signal.frame(tf.tensor1d([]), 2, 1, true)), 'empty signal');
    await both((tf) => tf.tidy(() => tf.signal.frame(tf.tensor1d(['a', 'b', 'c']), 2, 1, true, 'z')), 'strings padded');
    await both((tf) => tf.tidy(() => tf.signal.frame(tf.tensor1d(['a', 'b', 'c']), 2, 1)), 'strings');
    await both((tf) => tf.tidy(() => tf.signal.frame(tf.tensor2d([[1], [2], [3], [4]]), 2, 2)), '[4, 1] signal');
    await both((tf) => tf.tidy(() => tf.signal.frame(M(tf, [300], 29), 64, 16)), 'longer');
    await both((tf) => tf.tidy(() => tf.signal.frame(tf.tensor2d([[1, 2], [3, 4]]), 2, 2)), '[2, 2] signal', false);
    await both((tf) => tf.tidy(() => tf.signal.frame(S(tf), -1, 1)), 'negative length', false);
    await both((tf) => tf.tidy(() => tf.signal.frame(S(tf), NaN, 1)), 'NaN length', false);
    await both((tf) => tf.tidy(() => tf.grad((x) => tf.signal.frame(x, 3, 1, true, 2).mul(M(tf, [5, 3], 30)).sum())(S(tf))),
      'gradient');
    // tfjs loops forever on a step that does not advance, and slices at fractional offsets.
    throwsHere((tf) => tf.signal.frame(S(tf), 3, 0), /frameStep must be a positive number, but got 0/, 'step 0');
    throwsHere((tf) => tf.signal.frame(S(tf), 6, -1, true), /frameStep must be a positive number, but got -1/, 'step -1');
    throwsHere((tf) => tf.signal.frame(S(tf), 2, 1.5), /frameStep must be an integer, but got 1.5/, 'step 1.5');
    throwsHere((tf) => tf.signal.frame(S(tf), 2.5, 1), /frameLength must be a non-negative integer, but got 2.5/, 'length 2.5');
    throwsHere((tf) => tf.signal.frame(S(tf), 2, 2, true, 'z'), /./, 'a string pad for numbers');
  });
  it('stft', async () => {
    const x8 = (tf) => tf.tensor1d([1, 2, 3, 4, 5, 6, 7, 8]);
    await both((tf) => tf.tidy(() => tf.signal.stft(x8(tf), 4, 2)), 'hann');
    await both((tf) => tf.tidy(() => tf.signal.stft(x8(tf), 3, 2, 5)), 'fftLength 5');
    await both((tf) => tf.tidy(() => tf.signal.stft(x8(tf), 3, 2, undefined, tf.signal.hammingWindow)), 'hamming');
    await both((tf) => tf.tidy(() => tf.signal.stft(x8(tf), 3, 2, undefined, tf.signal.hannWindow)), 'hann given');
    await both((tf) => tf.tidy(() => tf.signal.stft(x8(tf), 3, 1, 4, (n) => tf.signal.hammingWindow(n))), 'a window function');
    await both((tf) => tf.tidy(() => tf.signal.stft(x8(tf), 3, 2, undefined, (n) => tf.ones([n]).mul(2))), 'ones window');
    await both((tf) => tf.tidy(() => tf.signal.stft(S(tf), 2, 1, undefined, () => [1, 2])), 'an array window');
    await both((tf) => tf.tidy(() => tf.signal.stft(S(tf), 2, 1, undefined, (n) => tf.ones([n + 1]))), 'a window too long');
    await both((tf) => tf.tidy(() => tf.signal.stft(tf.tensor1d([1, 2]), 3, 2)), 'short signal');
    await both((tf) => tf.tidy(() => tf.signal.stft(S(tf), 2, 1, 1)), 'fftLength 1');
    await both((tf) => tf.tidy(() => tf.signal.stft(S(tf), 3, 1, 2)), 'fftLength 2');
    await both((tf) => tf.tidy(() => tf.signal.stft(tf.tensor1d([1, 2, 3, 4], 'int32'), 2, 1)), 'int32');
    await both((tf) => tf.tidy(() => tf.signal.stft(M(tf, [400], 31), 100, 37)), 'longer (fftLength 128)');
    // The default fftLength, tfjs's enclosingPowerOfTwo in f64 (2^29 gives 2^30 there): the
    // shape of an stft of a signal too short for a frame tells it.
    for (const n of [5, 8, 9, 1000, 1024]) {
      await both((tf) => tf.tidy(() => tf.signal.stft(tf.tensor1d([1]), n, 1)), `fftLength for ${n}`);
    }
    // (tfjs takes seconds to make these windows: its shapes, [0, 2^29 + 1] and [0, 2^31 + 1].)
    for (const n of [2 ** 29, 2 ** 31]) {
      const y = tt.tidy(() => tt.signal.stft(tt.tensor1d([1]), n, 1));
      assert.deepEqual(y.shape, [0, n + 1], `fftLength for ${n}`);
      y.dispose();
    }
    // A window made inside is disposed, one made before is the caller's.
    const [kept, ones] = [tt.ones([3]), tt.ones([5])];
    const before = tt.memory().numTensors;
    tt.signal.stft(ones, 3, 1, undefined, () => kept).dispose();
    tt.signal.stft(ones, 3, 1, undefined, (n) => tt.ones([n]).mul(2)).dispose();
    assert.equal(tt.memory().numTensors, before, 'stft with a given window: tensors');
    assert.ok(!kept.isDisposed, 'the given window is kept');
    tt.dispose([kept, ones]);
    throwsHere((tf) => tf.signal.stft(S(tf), 2, 0), /frameStep must be a positive number/, 'step 0');
  });
});

describe('meshgrid, diag and dropout, now in the core', () => {
  it('meshgrid', async () => {
    await both((tf) => tf.meshgrid([1, 2, 3], [4, 5]), 'xy');
    await both((tf) => tf.meshgrid([1, 2, 3], [4, 5], { indexing: 'ij' }), 'ij');
    await both((tf) => tf.tidy(() => tf.meshgrid(tf.tensor1d([1, 2], 'int32'), [4, 5])), 'int32 and float32');
    await both((tf) => tf.tidy(() => tf.meshgrid(tf.tensor1d([true, false]), tf.tensor1d([1, 2, 3], 'int32'),
      { indexing: 'ij' })), 'bool and int32');
    await both((tf) => tf.meshgrid([[1, 2], [3, 4]], [4, 5]), '2-D input');
    await both((tf) => tf.meshgrid([], [1, 2]), 'empty x');
    await both((tf) => tf.meshgrid([1, 2]), 'x only');
    await both((tf) => tf.meshgrid(), 'nothing');
    await both((tf) => tf.meshgrid([1], [2], { indexing: 'zz' }), 'bad indexing');
    await both((tf) => tf.meshgrid(['a'], ['b']), 'strings');
    await both((tf) => tf.tidy(() => tf.grads((x, y) => {
      const [a, b] = tf.meshgrid(x, y);
      return a.mul(b).sum();
    })([tf.tensor1d([1, 2, 3]), tf.tensor1d([4, 5])])), 'gradient');
  });
  it('diag', async () => {
    await both((tf) => tf.diag([1, 2, 3]), '1-D');
    await both((tf) => tf.tidy(() => tf.diag(tf.tensor2d([1, 2, 3, 4], [2, 2], 'int32'))), '2-D int32');
    await both((tf) => tf.tidy(() => tf.diag(tf.tensor1d([true, false, true]))), 'bool');
    await both((tf) => tf.tidy(() => tf.diag(tf.tensor1d([NaN, -0, 1e30]))), 'NaN and -0');
    await both((tf) => tf.tidy(() => tf.diag(tf.tensor3d([1, 2, 3, 4, 5, 6], [1, 2, 3]))), '3-D');
    await both((tf) => tf.tidy(() => tf.diag(tf.scalar(3))), 'scalar');
    await both((tf) => tf.tidy(() => tf.diag(tf.zeros([0]))), 'empty');
    await both((tf) => tf.diag(['a', 'b']), 'strings');
    await both((tf) => tf.tidy(() => tf.grad((x) => tf.diag(x).sum())(tf.tensor1d([1, 2]))), 'no gradient, as tfjs');
  });
  it('dropout: tfjs\'s values for a seed', async () => {
    const x = (tf) => M(tf, [4, 5], 32);
    for (const seed of [1, 0, 'abc', 42.5]) {
      await both((tf) => tf.tidy(() => tf.dropout(x(tf), 0.3, null, seed)), `seed ${seed}`);
    }
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), 0.5, [4, 1], 'abc')), 'noiseShape [4, 1]');
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), 0.5, [null, 1], 'abc')), 'noiseShape [null, 1]');
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), 0.5, [5], 'abc')), 'noiseShape [5]');
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), 0.5, new Int32Array([1, 5]), 7)), 'typed noiseShape');
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), 0.5, [2, 5], 'abc')), 'noiseShape not broadcastable');
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), '0.5', null, 3)), 'rate a string');
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), 0)), 'rate 0');
    await both((tf) => tf.dropout([1, 2], 0), 'rate 0 of an array');
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), 1)), 'rate 1');
    await both((tf) => tf.tidy(() => tf.dropout(x(tf), -0.1)), 'rate -0.1');
    await both((tf) => tf.tidy(() => tf.dropout(tf.ones([4], 'int32'), 0.5)), 'int32');
    await both((tf) => tf.tidy(() => tf.grad((v) => tf.dropout(v, 0.5, null, 7).mul(M(tf, [4, 5], 33)).sum())(x(tf))), 'gradient');
    // The same values as tf.randomUniform's for the seed, through tfjs's formula.
    const before = tt.memory().numTensors;
    const [got, want] = tt.tidy(() => {
      const v = M(tt, [6, 7], 34);
      const u = tt.randomUniform([6, 7], 0, 1, 'float32', 'seed');
      return [tt.dropout(v, 0.25, null, 'seed'), v.mul(u.add(0.75).floor().div(0.75))];
    });
    assert.deepEqual(Array.from(got.dataSync()), Array.from(want.dataSync()));
    tt.dispose([got, want]);
    assert.equal(tt.memory().numTensors, before, 'dropout: tensors left');
    const a = tt.tidy(() => tt.dropout(tt.ones([50]), 0.5));
    const b = tt.tidy(() => tt.dropout(tt.ones([50]), 0.5));
    assert.notDeepEqual(Array.from(a.dataSync()), Array.from(b.dataSync()), 'no seed: fresh draws');
    tt.dispose([a, b]);
  });
});
