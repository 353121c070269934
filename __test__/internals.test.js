'use strict';
// tfjs-core's pure JavaScript helpers (tf.backend_util and the other *_util namespaces,
// tf.serialization, tf.device_util, tf.kernel_impls, tf.op, tf.rand ...) and the kernel,
// gradient and backend registries, against @tensorflow/tfjs: the same arguments give the same
// result or the same error text; ops that make tensors leave nothing behind.
const { describe, it } = require('node:test');
const { tt, tfo, assert, same, throwsMsg } = require('./helpers/setup');
const { cases, I, fresh } = require('./helpers/ops');

function call(lib, fn, args) {
  const a = fresh(args);
  try {
    return { value: fn(lib, ...a), args: a };
  } catch (e) {
    return { error: e.message, type: e.constructor.name };
  }
}

// The helper gives tfjs's result (or error) and leaves its arguments as tfjs leaves them.
function sameCall(fn, args) {
  const want = call(tfo, fn, args);
  const got = call(tt, fn, args);
  assert.deepStrictEqual(got, want);
}

// One test per argument list: lib[ns][name](...args).
function table(ns, name, argLists) {
  describe(`${ns}.${name}`, () => {
    argLists.forEach((args, i) => {
      it(`#${i}`, () => sameCall((lib, ...a) => lib[ns][name](...a), args));
    });
  });
}
const bu = (name, argLists) => table('backend_util', name, argLists);

// Shape-only stand-ins for tensors (the helpers read shape, rank, dtype, size).
const T = (shape, dtype = 'float32') => ({
  shape, rank: shape.length, dtype, size: shape.reduce((a, b) => a * b, 1),
});

describe('namespaces', () => {
  const names = ['backend_util', 'broadcast_util', 'gather_util', 'scatter_util', 'slice_util',
    'serialization', 'device_util', 'kernel_impls'];
  for (const ns of names) {
    it(`${ns} has tfjs's names and kinds`, () => {
      assert.deepStrictEqual(Object.keys(tt[ns]).sort(), Object.keys(tfo[ns]).sort());
      for (const k of Object.keys(tfo[ns])) assert.equal(typeof tt[ns][k], typeof tfo[ns][k], k);
    });
  }
  it('backend_util.segment_util and slice_util match', () => {
    for (const ns of ['segment_util', 'slice_util']) {
      assert.deepStrictEqual(Object.keys(tt.backend_util[ns]).sort(), Object.keys(tfo.backend_util[ns]).sort());
    }
    assert.equal(tt.backend_util.slice_util, tt.slice_util);
  });
  it('constants', () => {
    for (const k of ['ERF_A1', 'ERF_A2', 'ERF_A3', 'ERF_A4', 'ERF_A5', 'ERF_P', 'PARALLELIZE_THRESHOLD',
      'SELU_SCALE', 'SELU_SCALEALPHA']) {
      assert.equal(tt.backend_util[k], tfo.backend_util[k], k);
    }
    assert.deepStrictEqual(tt.backend_util.RowPartitionType, { ...tfo.backend_util.RowPartitionType });
    assert.equal(tt.OP_SCOPE_SUFFIX, tfo.OP_SCOPE_SUFFIX);
  });
});

// --- axes and broadcasting ---
bu('axesAreInnerMostDims', [[[1, 2], 3], [[0, 2], 3], [[], 2], [[2], 3], [[1], 3]]);
bu('combineLocations', [[[5, 6], [1], [1]], [[5], [1, 2], [0, 2]], [[], [3], [0]]]);
bu('computeOutAndReduceShapes', [[[2, 3, 4], [1]], [[2, 3, 4], [0, 2]], [[5], []]]);
bu('expandShapeToKeepDim', [[[2, 4], [1]], [[3], [0, 2]]]);
bu('assertAxesAreInnerMostDims', [['sum', [1, 2], 3], ['argMax', [0], 3]]);
bu('getAxesPermutation', [[[1, 2], 3], [[0], 3], [[0, 2], 4], [[1], 2]]);
bu('getUndoAxesPermutation', [[[2, 0, 1]], [[0, 1, 2]], [[1, 3, 0, 2]]]);
bu('getInnerMostAxes', [[2, 4], [0, 3], [3, 3]]);
for (const ns of ['backend_util', 'broadcast_util']) {
  table(ns, 'getBroadcastDims', [[[1, 3], [2, 3]], [[3], [2, 3]], [[2, 1, 4], [2, 5, 4]], [[], [2]]]);
  table(ns, 'getReductionAxes', [[[1, 3], [2, 3]], [[3], [4, 2, 3]], [[2, 1], [2, 5]], [[2], [2]]]);
  table(ns, 'assertAndGetBroadcastShape', [[[1, 3], [2, 1]], [[3], [4, 2, 3]], [[2, 3], [4, 3]],
    [[], [5]], [[0], [1]]]);
}

// --- concat, split, reduce windows, image centre, space-to-batch ---
bu('assertParamsConsistent', [[[[2, 3], [4, 3]], 0], [[[2, 3], [2]], 0], [[[2, 3], [2, 4]], 0],
  [[[2, 3], [2, 3]], 2], [[[2, 3], [5, 3]], 1]]);
bu('computeOutShape', [[[[2, 3], [4, 3]], 0], [[[1, 2], [1, 3], [1, 1]], 1]]);
bu('prepareSplitSize', [[T([6, 4]), 3, 0], [T([6, 4]), 3], [T([6, 4]), [1, -1, 2]],
  [T([6, 4]), [1, 2], 1], [T([6, 4]), [-1, -1]], [T([6, 4]), 4, 1], [T([6, 4]), [5, 2]],
  [T([6, 4]), [-1, 2], 1]]);
bu('computeOptimalWindowSize', [[5], [30], [31], [100], [1000], [97]]);
bu('getImageCenter', [[0.5, 10, 20], [[0.25, 0.75], 8, 4]]);
bu('getReshaped', [[[8, 2, 3, 1], [2, 2], 4], [[2, 4, 6, 1], [2, 3], 6, false]]);
bu('getPermuted', [[5, 2], [5, 2, false], [6, 2], [6, 2, false], [3, 1]]);
bu('getReshapedPermuted', [[[8, 2, 3, 1], [2, 2], 4], [[2, 4, 6, 1], [2, 3], 6, false]]);
bu('getSliceBeginCoords', [[[[1, 0], [2, 1]], 2], [[[0, 0]], 1]]);
bu('getSliceSize', [[[2, 8, 6, 1], [[1, 0], [2, 1]], 2]]);
bu('upcastType', [['int32', 'float32'], ['bool', 'int32'], ['bool', 'bool']]);

// --- conv and pool windows ---
describe('backend_util: conv/pool info', () => {
  const pads = ['same', 'valid', 0, 1, 2, [[0, 0], [1, 2], [0, 1], [0, 0]], 'bogus'];
  const call2d = (lib, ...a) => lib.backend_util.computeConv2DInfo(...a);
  it('computeConv2DInfo', () => {
    for (const pad of pads) {
      for (const [strides, dilations] of [[1, 1], [2, 1], [[2, 3], 1], [1, [2, 2]], [[1, 2], [2, 1]]]) {
        for (const rounding of [undefined, 'floor', 'ceil', 'round', 'bad']) {
          sameCall(call2d, [[2, 7, 9, 3], [3, 2, 3, 5], strides, dilations, pad, rounding]);
          sameCall(call2d, [[2, 3, 7, 9], [3, 2, 3, 5], strides, dilations, pad, rounding, true, 'channelsFirst']);
        }
      }
    }
    sameCall(call2d, [[1, 4, 4, 1], [2, 2, 1, 1], 1, 1, 'same', null, false, 'NHWC']);
  });
  it('computeConv3DInfo', () => {
    for (const pad of ['same', 'valid', 0, 1, 'bogus']) {
      for (const [strides, dilations] of [[1, 1], [2, 1], [[1, 2, 3], [2, 1, 1]]]) {
        sameCall((lib, ...a) => lib.backend_util.computeConv3DInfo(...a),
          [[1, 5, 6, 7, 2], [2, 3, 2, 2, 4], strides, dilations, pad, false, 'channelsLast', 'ceil']);
        sameCall((lib, ...a) => lib.backend_util.computeConv3DInfo(...a),
          [[1, 2, 5, 6, 7], [4, 3, 2, 2, 4], strides, dilations, pad, true, 'channelsFirst']);
      }
    }
    sameCall((lib, ...a) => lib.backend_util.computeConv3DInfo(...a), [[1, 2, 2, 2, 1], [3, 3, 3, 1, 1], 1, 1, 0]);
  });
  it('computePool2DInfo, computePool3DInfo, computeDilation2DInfo', () => {
    for (const pad of ['same', 'valid', 1]) {
      sameCall((lib, ...a) => lib.backend_util.computePool2DInfo(...a), [[1, 9, 7, 3], [3, 2], 2, 1, pad, 'floor']);
      sameCall((lib, ...a) => lib.backend_util.computePool2DInfo(...a), [[1, 3, 9, 7], 3, [1, 2], 1, pad, null, 'channelsFirst']);
      sameCall((lib, ...a) => lib.backend_util.computePool2DInfo(...a), [[1, 3, 9, 7], 3, 1, 1, pad, null, 'NCHW']);
      sameCall((lib, ...a) => lib.backend_util.computePool3DInfo(...a), [[1, 4, 9, 7, 3], 2, 2, 1, pad, 'ceil']);
      sameCall((lib, ...a) => lib.backend_util.computePool3DInfo(...a), [[1, 3, 4, 9, 7], [2, 1, 2], 1, 1, pad, null, 'NCDHW']);
      sameCall((lib, ...a) => lib.backend_util.computePool3DInfo(...a), [[1, 3, 4, 9, 7], 2, 1, 1, pad, null, 'NHWC']);
      sameCall((lib, ...a) => lib.backend_util.computeDilation2DInfo(...a), [[1, 9, 7, 3], [2, 2], 1, pad, 'NHWC', [2, 1]]);
      sameCall((lib, ...a) => lib.backend_util.computeDilation2DInfo(...a), [[1, 9, 7, 3], [2, 2], 1, pad, 'NCHW', 1]);
    }
  });
});
bu('computeDefaultPad', [[[5, 5], 3, 1], [[7, 7], 3, 2, 2], [[4], 2, 2]]);
bu('tupleValuesAreOne', [[1], [[1, 1]], [[1, 2]], [[1, 1, 1]], [2]]);
bu('eitherStridesOrDilationsAreOne', [[1, 2], [2, [1, 1]], [[2, 1], 2]]);
bu('stridesOrDilationsArePositive', [[1], [[1, 0]], [[2, 3, 1]], [-1]]);
bu('convertConv2DDataFormat', [['NHWC'], ['NCHW'], ['NDHWC']]);
bu('checkPadOnDimRoundingMode', [['conv2d', 'same', 'floor'], ['conv2d', 'same', undefined],
  ['conv2d', 1.5, 'round'], ['conv2d', 1, 'round'], ['conv2d', [[0, 0], [1, 1.5]], 'ceil'],
  ['conv2d', [[0, 0], [1, 1]], 'ceil'], ['conv2d', true, 'ceil']]);
bu('shouldFuse', [[0, 'relu'], [1, 'relu'], [1, 'linear'], [0, undefined]]);

// --- ragged, gather/scatter, segments ---
bu('getRowPartitionTypesHelper', [[['FIRST_DIM_SIZE', 'VALUE_ROWIDS', 'ROW_SPLITS']],
  [['ROW_LENGTHS', 'bogus', 'ROW_SPLITS']], [[]], [['ROW_LIMITS', 'ROW_STARTS']]]);
bu('getRaggedRank', [[[]], [[0, 1, 3]], [[3, 3]]]);
bu('combineRaggedTensorToTensorShapes', [[1, null, null], [1, null, [4, 3]], [2, [2, 3, -1], [5, 4]],
  [1, [3, 4], [5]], [1, [2, 3, 4], [5, 4]], [1, [2, 1, 3], [5, 7]], [0, null, [2]]]);
bu('validateDefaultValueShape', [[null, [2]], [[3], [2, 3]], [[2, 3], [4]], [[4], [2, 3]],
  [[1], [2, 3]], [[-1], [2, 5]]]);
for (const ns of ['backend_util', 'gather_util']) {
  table(ns, 'prepareAndValidate', [[T([4, 5, 6]), T([3, 2], 'int32')], [T([4, 5]), T([2], 'int32')],
    [T([]), T([1], 'int32')], [T([4]), T([], 'int32')], [T([4]), T([1], 'float32')],
    [T([4, 5]), T([1, 3], 'int32')], [T([0, 5]), T([1, 1], 'int32')], [T([2, 3]), T([2, 2], 'int32')]]);
}
for (const ns of ['backend_util', 'scatter_util']) {
  table(ns, 'calculateShapes', [[T([3, 5]), T([3, 1], 'int32'), [8, 5]], [T([4]), T([4], 'int32'), [8]],
    [T([2]), T([2, 2], 'int32'), [4, 4]]]);
  table(ns, 'validateInput', [[T([3, 5]), T([3, 1], 'int32'), [8, 5]], [T([3]), T([], 'int32'), [8]],
    [T([]), T([3], 'int32'), [8]], [T([3]), T([3], 'float32'), [8]], [T([3]), T([3], 'int32'), []],
    [T([3, 4]), T([3, 1], 'int32'), [8, 5]], [T([2, 5]), T([3, 1], 'int32'), [8, 5]],
    [T([3, 5, 1]), T([3, 1], 'int32'), [8, 5]], [T([3]), T([3, 2], 'int32'), [8]]]);
  table(ns, 'validateUpdateShape', [[[8, 5], T([3, 1], 'int32'), T([3, 5])],
    [[8, 5], T([3, 1], 'int32'), T([3, 6])], [[4, 4], T([2, 2], 'int32'), T([])]]);
}
describe('backend_util.segment_util', () => {
  const su = (name, args) => sameCall((lib, ...a) => lib.backend_util.segment_util[name](...a), args);
  it('segOpComputeOptimalWindowSize', () => {
    for (const [n, s] of [[10, 3], [100, 3], [100, 20], [1000, 50], [97, 5], [31, 40]]) su('segOpComputeOptimalWindowSize', [n, s]);
  });
  it('computeOutShape', () => { su('computeOutShape', [[4, 5, 6], 1, 3]); });
  it('collectGatherOpShapeInfo', () => {
    for (const args of [[T([4, 5, 6]), T([2, 3]), 1, 0], [T([4, 5, 6]), T([4, 3]), 1, 1],
      [T([4, 5, 6]), T([4, 3]), 2, -1], [T([4, 5]), T([4, 3]), 0, 1], [T([4, 5]), T([3, 3]), 1, 1],
      [T([4, 5]), T([4]), 1, 5], [T([4]), T([4, 2, 2]), 3, 3]]) {
      su('collectGatherOpShapeInfo', args);
    }
  });
});

// --- slicing ---
describe('slice_util', () => {
  const sl = (name, args) => sameCall((lib, ...a) => lib.slice_util[name](...a), args);
  it('sliceInfo over masks, ellipses, new and shrunk axes', () => {
    const shape = [4, 5, 6];
    const specs = [
      [[0, 1, 2], [4, 5, 6], [1, 1, 1]], [[1, -1, 0], [3, 1, 6], [1, -1, 2]], [[0], [2], [1]],
      [[-1, 0, 0], [0, 3, 6], [1, 1, 1]], [[0, 0, 0], [1, 1, 1], null], [[0, 5, 0], [4, 0, 6], [1, -2, 1]],
    ];
    for (const [b, e, s] of specs) {
      for (let beginMask = 0; beginMask < 8; beginMask += 3) {
        for (let endMask = 0; endMask < 8; endMask += 5) {
          for (const [ellipsisMask, newAxisMask, shrinkAxisMask] of [[0, 0, 0], [2, 0, 0], [0, 2, 0], [0, 0, 1], [1, 4, 2], [4, 1, 0], [3, 0, 0]]) {
            sl('sliceInfo', [shape, b, e, s, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask]);
          }
        }
      }
    }
    sl('sliceInfo', [[4, 5], [0, 0], [1, 1], [0, 1], 0, 0, 0, 0, 0]);
    sl('sliceInfo', [[4, 5], [9], [10], [1], 0, 0, 0, 0, 1]);
    sl('sliceInfo', [[4, 5], [0, 0, 0], [1, 1, 1], [1, 1, 1], 0, 0, 0, 0, 0]);
    sl('sliceInfo', [[4, 5], [0], [1], [-1], 0, 0, 0, 0, 1]);
    sl('sliceInfo', [[-1, 5], [0, 1], [2, 3], [1, 1], 0, 0, 0, 0, 1]);
  });
  it('getNormalizedAxes and its parts', () => {
    const shape = [4, 5, 6, 7];
    for (const [ellipsisAxes, interp, ellipsisMask] of [[[], 0, 0], [[1], 1, 2], [[0], 2, 1], [[2], 1, 4]]) {
      for (const [bm, em] of [[0, 0], [1, 2], [5, 10]]) {
        sl('getNormalizedAxes', [shape, ellipsisAxes, interp, [1, -2, 0, 3], [3, -1, 5, 9], [1, 2, -1, 1], bm, em, ellipsisMask]);
        sl('getNormalizedAxes', [shape, ellipsisAxes, interp, [0, 1], [2, -3], [2, -1], bm, em, ellipsisMask]);
      }
    }
    sl('stridesWithElidedDims', [[2, 3], 1, 2, [4, 5, 6, 7]]);
    sl('startIndicesWithElidedDims', [1, 1, 2, [3, 1], [4, 5, 6, 7]]);
    sl('stopIndicesWithElidedDims', [2, 0, 2, [3, -1], [4, 5, 6, 7]]);
    sl('startForAxis', [0, [-10], [-1], [5], 0, 0]);
    sl('stopForAxis', [1, [2], [-1], [5], 0, 0]);
    sl('stridesForAxis', [[3, undefined], 1, 0]);
  });
  it('small helpers', () => {
    sl('maskToAxes', [0]);
    sl('maskToAxes', [13]);
    sl('computeOutShape', [[0, 1], [5, 7], [2, 3]]);
    sl('isSliceContinous', [[4, 5, 6], [1, 0, 0], [2, 5, 6]]);
    sl('isSliceContinous', [[4, 5, 6], [1, 1, 0], [2, 4, 6]]);
    sl('isSliceContinous', [[4, 5, 6], [1, 1, 0], [1, 1, 6]]);
    sl('computeFlatOffset', [[1, 2, 3], [30, 6, 1]]);
    sl('computeFlatOffset', [[], []]);
    sl('assertParamsValid', [T([4, 5]), [1, 1], [2, 2]]);
    sl('assertParamsValid', [T([4, 5]), [1], [2, 2]]);
    sl('assertParamsValid', [T([4, 5]), [1, 1], [2]]);
    sl('assertParamsValid', [T([4, 5]), [1, 4], [2, 2]]);
    for (const [b, s] of [[1, undefined], [[1], 2], [[1, 2], [-1, 2]], [[-1, 0], [1, 1]], [[0, 0], [1, -2]], [[0, 1], null]]) {
      sl('parseSliceParams', [T([4, 5]), b, s]);
    }
  });
});

// --- complex, einsum, sparse texts, strings ---
bu('mergeRealAndImagArrays', [[new Float32Array([1, 2]), new Float32Array([3, 4])], [[1], [2, 3]]]);
bu('splitRealAndImagArrays', [[new Float32Array([1, 2, 3, 4, 5, 6])]]);
bu('complexWithEvenIndex', [[new Float32Array([1, 2, 3, 4, 5, 6])], [new Float32Array([1, 2, 3, 4, 5, 6, 7, 8])]]);
bu('complexWithOddIndex', [[new Float32Array([1, 2, 3, 4, 5, 6])], [new Float32Array([1, 2, 3, 4, 5, 6, 7, 8])]]);
bu('getComplexWithIndex', [[new Float32Array([1, 2, 3, 4]), 1]]);
bu('exponents', [[8, false], [5, true], [1, false]]);
bu('exponent', [[1, 8, false], [3, 5, true]]);
describe('backend_util.assignToTypedArray', () => {
  it('writes the pair in place', () => {
    sameCall((lib, data) => { lib.backend_util.assignToTypedArray(data, 7, 8, 1); return data; },
      [new Float32Array(4)]);
  });
});
bu('decodeEinsumEquation', [['ij,jk->ik', 2], ['i j , j k -> i k', 2], ['ij->ji', 1], ['ij', 1],
  ['i->j->k', 1], ['...i->i', 1], ['ij,jk->ik', 1], ['i,j,k->ijk', 3], ['ij->k', 1], ['iij->j', 1],
  ['bij,bjk->bik', 2], ['i,i->', 2]]);
bu('getEinsumPermutation', [[3, [2, 0]], [4, [1, 3, 0]], [2, []]]);
bu('checkEinsumDimSizes', [[3, [[0, 2], [2, 1]], [T([2, 3]), T([3, 4])]], [3, [[0, 2], [2, 1]], [T([2, 3]), T([5, 4])]]]);
bu('getEinsumComputePath', [[[2], [[0, 2], [2, 1]]], [[], [[0], [1]]], [[1, 2], [[0, 1], [2]]], [[1], [[], [1]]]]);
bu('isIdentityPermutation', [[[0, 1, 2]], [[1, 0]], [[]]]);
bu('getSparseFillEmptyRowsIndicesDenseShapeMismatch', [[3]]);
bu('getSparseFillEmptyRowsNegativeIndexErrorMessage', [[1, -2]]);
bu('getSparseFillEmptyRowsOutOfRangeIndexErrorMessage', [[1, 7, 5]]);
bu('getSparseReshapeMultipleNegativeOneOutputDimErrorMessage', [[0, 2]]);
bu('getSparseReshapeNegativeOutputDimErrorMessage', [[1, -3]]);
bu('getSparseReshapeEmptyTensorZeroOutputDimErrorMessage', [[]]);
bu('getSparseReshapeInputOutputMultipleErrorMessage', [[[2, 3], [4, 5]]]);
bu('getSparseReshapeInputOutputMismatchErrorMessage', [[[2, 3], [4, 5]]]);
bu('getSparseSegmentReductionNegativeSegmentIdsErrorMessage', [[]]);
bu('getSparseSegmentReductionNonIncreasingSegmentIdsErrorMessage', [[]]);
bu('getSparseSegmentReductionSegmentIdOutOfRangeErrorMessage', [[4, 3]]);
bu('getSparseSegmentReductionIndicesOutOfRangeErrorMessage', [[1, 9, 4]]);
bu('fromStringArrayToUint8', [[['a', 'héllo', '']]]);
bu('fromUint8ToStringArray', [[[new Uint8Array([104, 105]), new Uint8Array([0xc3, 0xa9])]]]);

// --- helpers that make or take tensors ---
cases('backend_util: fused activations', [
  ...['linear', 'relu', 'elu', 'relu6', 'sigmoid', 'bogus'].map((act) => [`applyActivation ${act}`,
    (tf) => tf.backend_util.applyActivation(tf.tensor1d([-2, -0.5, 0, 3, 8]), act)]),
  ['applyActivation prelu', (tf) => tf.backend_util.applyActivation(tf.tensor1d([-2, 3]), 'prelu', tf.tensor1d([0.5, 0.1]))],
  ['applyActivation leakyrelu', (tf) => tf.backend_util.applyActivation(tf.tensor1d([-2, 3]), 'leakyrelu', null, 0.3)],
  ['getFusedDyActivation relu', (tf) => tf.backend_util.getFusedDyActivation(tf.tensor1d([1, 2, 3]), tf.tensor1d([-1, 0, 2]), 'relu')],
  ['getFusedDyActivation linear', (tf) => tf.backend_util.getFusedDyActivation(tf.tensor1d([1, 2]), tf.tensor1d([-1, 0]), 'linear')],
  ['getFusedDyActivation elu throws', (tf) => tf.backend_util.getFusedDyActivation(tf.tensor1d([1]), tf.tensor1d([1]), 'elu')],
  ['getFusedBiasGradient', (tf) => tf.backend_util.getFusedBiasGradient(tf.tensor1d([0, 0, 0]), tf.tensor2d([[1, 2, 3], [4, 5, 6]]))],
  ['getFusedBiasGradient 2-D bias', (tf) => tf.backend_util.getFusedBiasGradient(tf.zeros([2, 1]), tf.tensor2d([[1, 2, 3], [4, 5, 6]]))],
]);

cases('kernel_impls.whereImpl', [
  ['rank 2', (tf) => tf.kernel_impls.whereImpl([2, 3], new Uint8Array([1, 0, 1, 0, 0, 1]))],
  ['rank 1, none', (tf) => tf.kernel_impls.whereImpl([3], [0, 0, 0])],
  ['rank 3', (tf) => tf.kernel_impls.whereImpl([2, 2, 2], [0, 1, 0, 0, 1, 1, 0, 1])],
]);

describe('kernel_impls: non-max suppression', () => {
  const boxes = new Float32Array([0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11,
    0, 10.1, 1, 11.1, 0, 100, 1, 101]);
  const scores = new Float32Array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3]);
  const k = (name, args) => sameCall((lib, ...a) => lib.kernel_impls[name](...a), args);
  it('V3', () => {
    for (const [max, iou, thr] of [[3, 0.5, 0], [6, 0.5, Number.NEGATIVE_INFINITY], [2, 0.9, 0.55], [0, 0.5, 0]]) {
      k('nonMaxSuppressionV3Impl', [boxes, scores, max, iou, thr]);
    }
  });
  it('V4 with and without padding', () => {
    k('nonMaxSuppressionV4Impl', [boxes, scores, 6, 0.5, 0, true]);
    k('nonMaxSuppressionV4Impl', [boxes, scores, 6, 0.5, 0, false]);
    k('nonMaxSuppressionV4Impl', [boxes, scores, 2, 0.5, 0.4, true]);
  });
  it('V5 (soft NMS)', () => {
    k('nonMaxSuppressionV5Impl', [boxes, scores, 6, 0.5, 0, 0.5]);
    k('nonMaxSuppressionV5Impl', [boxes, scores, 6, 0.6, 0.2, 0]);
    k('nonMaxSuppressionV5Impl', [boxes, scores, 3, 1, 0.1, 1]);
  });
});

cases('tf.rand, tf.ensureShape, tf.cosineWindow', [
  ['rand float32', (tf) => { let i = 0; return tf.rand([2, 3], () => i++ / 3); }],
  ['rand int32 truncates', (tf) => { let i = 0; return tf.rand([4], () => (i++) * 1.7 - 2, 'int32'); }],
  ['rand bool', (tf) => { let i = 0; return tf.rand([4], () => i++ % 2, 'bool'); }],
  ['rand bad dtype', (tf) => tf.rand([2], () => 1, 'string')],
  ['rand bad shape', (tf) => tf.rand([2.5], () => 1)],
  ['rand empty', (tf) => tf.rand([0, 3], () => 1)],
  ['ensureShape ok', (tf) => tf.ensureShape(tf.tensor2d([[1, 2]]), [1, 2])],
  ['ensureShape with null', (tf) => tf.ensureShape(tf.tensor2d([[1, 2]]), [null, 2])],
  ['ensureShape mismatch', (tf) => tf.ensureShape(tf.tensor2d([[1, 2]]), [2, 1])],
  ['ensureShape rank mismatch', (tf) => tf.ensureShape(tf.tensor1d([1, 2]), [2, 1])],
  ['ensureShape of an array returns the array', (tf) => tf.ensureShape([[1, 2, 3]], [1, 3])],
  ...[1, 2, 5, 8].map((n) => [`cosineWindow ${n}`, (tf) => tf.cosineWindow(n, 0.54, 0.46)]),
]);

const INT_EDGES = [0, 1, -1, 2147483647, -2147483648, 0x55555555, -0x55555556, 123456789, -987654321];
cases('tf.bitwiseAnd', [
  ['int32 pairs', (tf) => tf.bitwiseAnd(tf.tensor1d([5, 12, -1, 7], 'int32'), tf.tensor1d([3, 10, 6, -8], 'int32'))],
  ['int32 extremes', (tf) => {
    const a = []; const b = [];
    for (const x of INT_EDGES) for (const y of INT_EDGES) { a.push(x); b.push(y); }
    return tf.bitwiseAnd(tf.tensor1d(a, 'int32'), tf.tensor1d(b, 'int32'));
  }],
  ['2-D', (tf) => tf.bitwiseAnd(I(tf), I(tf).neg())],
  ['scalars', (tf) => tf.bitwiseAnd(tf.scalar(6, 'int32'), tf.scalar(3, 'int32'))],
  ['shape mismatch', (tf) => tf.bitwiseAnd(tf.tensor1d([1, 2], 'int32'), tf.tensor1d([1], 'int32'))],
  ['float32 refused', (tf) => tf.bitwiseAnd(tf.tensor1d([1, 2]), tf.tensor1d([1, 2], 'int32'))],
  ['arrays are float32, refused', (tf) => tf.bitwiseAnd([1, 2], [3, 4])],
  ['bool refused', (tf) => tf.bitwiseAnd(tf.tensor1d([true]), tf.tensor1d([true]))],
]);

describe('tf.bitwiseAnd is exact on random int32s', () => {
  it('matches the host & on 10000 pairs', () => {
    const n = 10000;
    const a = new Int32Array(n);
    const b = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      a[i] = (Math.random() * 2 ** 32) | 0;
      b[i] = (Math.random() * 2 ** 32) | 0;
    }
    const before = tt.memory().numTensors;
    const got = tt.tidy(() => tt.bitwiseAnd(tt.tensor1d(a, 'int32'), tt.tensor1d(b, 'int32')).dataSync());
    for (let i = 0; i < n; i++) assert.equal(got[i], a[i] & b[i]);
    assert.equal(tt.memory().numTensors, before);
  });
});

describe('tf.op', () => {
  it('names the op and runs it in a scope: intermediates are freed, the result kept', () => {
    for (const lib of [tt, tfo]) {
      const f = lib.op({ squarePlus_: (x) => lib.add(lib.square(x), 1) });
      assert.equal(f.name, 'squarePlus__op');
      const x = lib.tensor1d([1, 2, 3]);
      const before = lib.memory().numTensors;
      const y = f(x);
      assert.equal(lib.memory().numTensors, before + 1);
      assert.deepStrictEqual(Array.from(y.dataSync()), [2, 5, 10]);
      lib.dispose([x, y]);
    }
    assert.equal(tt.op({ plain: () => 1 }).name, tfo.op({ plain: () => 1 }).name);
  });
  it('frees what the op made when it throws', () => {
    const before = tt.memory().numTensors;
    const f = tt.op({ bad: () => { tt.ones([3]); throw new Error('boom'); } });
    throwsMsg(() => f(), 'boom');
    assert.equal(tt.memory().numTensors, before);
  });
  it('refuses objects without exactly one key, with tfjs\'s text', () => {
    for (const arg of [{}, { a: () => 1, b: () => 2 }]) {
      const want = (() => { try { tfo.op(arg); } catch (e) { return e.message; } return null; })();
      throwsMsg(() => tt.op(arg), want);
    }
  });
});

describe('enclosingPowerOfTwo, nextFrame', () => {
  it('enclosingPowerOfTwo', () => {
    for (const v of [1, 2, 3, 5, 8, 1000, 1025, 0.3, 0, -1]) {
      assert.deepStrictEqual(tt.enclosingPowerOfTwo(v), tfo.enclosingPowerOfTwo(v), String(v));
    }
  });
  it('nextFrame resolves after the current turn', async () => {
    let ran = false;
    const p = tt.nextFrame().then(() => { ran = true; });
    assert.equal(ran, false);
    assert.equal(await p, undefined);
    assert.equal(ran, true);
  });
});

// --- serialization, device_util ---
describe('serialization', () => {
  it('registerClass / getRegisteredName / SerializationMap as tfjs', () => {
    for (const lib of [tt, tfo]) {
      const S = lib.serialization;
      class MyThing extends S.Serializable {
        constructor(config) { super(); this.config = config; }
      }
      MyThing.className = 'MyThing';
      assert.equal(S.registerClass(MyThing), MyThing);
      assert.equal(S.getRegisteredName(MyThing), 'Custom>MyThing');
      class Other extends S.Serializable {}
      Other.className = 'OtherName';
      S.registerClass(Other, 'Pkg', 'Alias');
      assert.equal(S.getRegisteredName(Other), 'Pkg>Alias');
      class Unregistered {}
      Unregistered.className = 'U';
      assert.equal(S.getRegisteredName(Unregistered), 'U');
      const entry = S.SerializationMap.getMap().classNameMap.MyThing;
      assert.equal(entry[0], MyThing);
      const made = entry[1](MyThing, { a: 1 });
      assert.deepStrictEqual(made.config, { a: 1 });
      assert.equal(made.getClassName(), 'MyThing');
      assert.equal(S.SerializationMap.getMap(), S.SerializationMap.getMap());
    }
  });
  it('registerClass refuses classes without a usable className', () => {
    for (const bad of [class A {}, Object.assign(class B {}, { className: 5 }), Object.assign(class C {}, { className: '' })]) {
      const want = (() => { try { tfo.serialization.registerClass(bad); } catch (e) { return e.message; } return null; })();
      throwsMsg(() => tt.serialization.registerClass(bad), want);
    }
  });
});

describe('device_util', () => {
  it('isBrowser / isMobile under Node, mocks and user agents', () => {
    assert.equal(tt.device_util.isBrowser(), tfo.device_util.isBrowser());
    assert.equal(tt.device_util.isMobile(), tfo.device_util.isMobile());
    const navs = [{ userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) Mobile' },
      { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120' }, { product: 'ReactNative' },
      { userAgent: 'Mozilla/5.0 (Linux; Android 13; Pixel 7) Mobile Safari' }, { userAgent: 'sony-whatever' },
      { userAgentData: { mobile: true } }, { userAgentData: { mobile: false } }, {}, { vendor: 'Apple' }];
    for (const nav of navs) assert.equal(tt.device_util.isMobile(nav), tfo.device_util.isMobile(nav), JSON.stringify(nav));
    for (const lib of [tt, tfo]) {
      lib.device_util.mockIsMobile(true);
      assert.equal(lib.device_util.isMobile(), true);
      lib.device_util.mockIsMobile(undefined);
      assert.equal(lib.device_util.isMobile(), false);
    }
  });
});

// --- logging ---
function captureWarn(fn) {
  const seen = [];
  const orig = console.warn;
  console.warn = (...m) => seen.push(m.join(' '));
  try {
    fn();
  } finally {
    console.warn = orig;
  }
  return seen;
}

describe('backend_util.warn and log', () => {
  it('print unless PROD or IS_TEST', () => {
    assert.deepStrictEqual(captureWarn(() => tt.backend_util.warn('a', 1)), ['a 1']);
    tt.env().set('PROD', true);
    try {
      assert.deepStrictEqual(captureWarn(() => tt.backend_util.warn('a')), []);
    } finally {
      tt.env().set('PROD', false);
    }
  });
});

// --- registries ---
describe('kernel and gradient registries', () => {
  it('register, get, list, copy and unregister as tfjs (warnings and errors included)', () => {
    for (const lib of [tt, tfo]) {
      const kernelFunc = () => null;
      const cfg = { kernelName: 'TtTestKernel', backendName: 'ttbe', kernelFunc };
      const warns1 = captureWarn(() => lib.registerKernel(cfg));
      assert.deepStrictEqual(warns1, []);
      assert.equal(lib.getKernel('TtTestKernel', 'ttbe'), cfg);
      assert.equal(lib.getKernel('TtTestKernel', 'other'), undefined);
      const warns2 = captureWarn(() => lib.registerKernel(cfg));
      assert.deepStrictEqual(warns2, ["The kernel 'TtTestKernel' for backend 'ttbe' is already registered"]);
      lib.registerKernel({ kernelName: 'TtOther', backendName: 'ttbe', kernelFunc });
      assert.deepStrictEqual(lib.getKernelsForBackend('ttbe').map((k) => k.kernelName), ['TtTestKernel', 'TtOther']);
      lib.copyRegisteredKernels('ttbe', 'ttbe2');
      const copied = lib.getKernel('TtOther', 'ttbe2');
      assert.deepStrictEqual(copied, { kernelName: 'TtOther', backendName: 'ttbe2', kernelFunc });
      for (const [k, b] of [['TtTestKernel', 'ttbe'], ['TtOther', 'ttbe'], ['TtTestKernel', 'ttbe2'], ['TtOther', 'ttbe2']]) {
        lib.unregisterKernel(k, b);
      }
      assert.deepStrictEqual(lib.getKernelsForBackend('ttbe'), []);
      throwsMsg(() => lib.unregisterKernel('TtTestKernel', 'ttbe'),
        "The kernel 'TtTestKernel' for backend 'ttbe' is not registered");

      const grad = { kernelName: 'TtTestKernel', gradFunc: () => ({}) };
      assert.equal(lib.getGradient('TtTestKernel'), undefined);
      lib.registerGradient(grad);
      assert.equal(lib.getGradient('TtTestKernel'), grad);
      assert.deepStrictEqual(captureWarn(() => lib.registerGradient(grad)), []);
      lib.unregisterGradient('TtTestKernel');
      throwsMsg(() => lib.unregisterGradient('TtTestKernel'), "The gradient 'TtTestKernel' for backend is not registered");
    }
  });

  it('getKernel and engine().runKernel answer for the native kernels with tfjs\'s kernel arguments', () => {
    const t = (tf, v, shape, dtype) => tf.tensor(v, shape, dtype);
    const programs = [
      ['Add', (tf) => ({ a: t(tf, [1, 2, 3], [3]), b: tf.scalar(2) }), {}],
      ['RealDiv', (tf) => ({ a: t(tf, [1, 2, 3], [3]), b: t(tf, [2, 4, 8], [3]) }), {}],
      ['Relu', (tf) => ({ x: t(tf, [-1, 2, -3], [3]) }), {}],
      ['Sum', (tf) => ({ x: t(tf, [1, 2, 3, 4, 5, 6], [2, 3]) }), { axis: [1], keepDims: true }],
      ['ArgMax', (tf) => ({ x: t(tf, [1, 9, 3, 4, 5, 6], [2, 3]) }), { axis: 1 }],
      ['Cast', (tf) => ({ x: t(tf, [1.5, -2.5], [2]) }), { dtype: 'int32' }],
      ['Transpose', (tf) => ({ x: t(tf, [1, 2, 3, 4, 5, 6], [2, 3]) }), { perm: [1, 0] }],
      ['Concat', (tf) => [t(tf, [1, 2], [1, 2]), t(tf, [3, 4], [1, 2])], { axis: 0 }],
      ['BatchMatMul', (tf) => ({ a: t(tf, [1, 2, 3, 4], [1, 2, 2]), b: t(tf, [5, 6, 7, 8], [1, 2, 2]) }),
        { transposeA: false, transposeB: true }],
      ['Conv2D', (tf) => ({ x: t(tf, [1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 3, 3, 1]), filter: t(tf, [1, 0, 0, -1], [2, 2, 1, 1]) }),
        { strides: 1, pad: 'valid', dataFormat: 'NHWC', dilations: 1 }],
      ['MaxPool', (tf) => ({ x: t(tf, [1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 3, 3, 1]) }), { filterSize: 2, strides: 1, pad: 'valid' }],
      ['Softmax', (tf) => ({ logits: t(tf, [1, 2, 3], [1, 3]) }), { dim: -1 }],
      ['GatherV2', (tf) => ({ x: t(tf, [1, 2, 3], [3]), indices: t(tf, [2, 0], [2], 'int32') }), { axis: 0, batchDims: 0 }],
      ['Select', (tf) => ({ condition: t(tf, [true, false], [2], 'bool'), t: t(tf, [1, 2], [2]), e: t(tf, [3, 4], [2]) }), {}],
      ['TopK', (tf) => ({ x: t(tf, [3, 1, 2], [3]) }), { k: 2, sorted: true }],
      ['PadV2', (tf) => ({ x: t(tf, [1, 2], [2]) }), { paddings: [[1, 2]], constantValue: 9 }],
    ];
    for (const [name, inputs, attrs] of programs) {
      same((tf) => tf.engine().runKernel(name, inputs(tf), attrs));
      same((tf) => {
        const k = tf.getKernel(name, tf.getBackend());
        return { kernelName: k.kernelName, backend: k.backendName === tf.getBackend(), func: typeof k.kernelFunc };
      });
    }
    assert.equal(tt.getKernel('Add', 'no-such-backend'), undefined);
    assert.equal(tt.getKernel('NoSuchKernel', tt.getBackend()), undefined);
    assert.ok(tt.getKernelsForBackend(tt.getBackend()).length > 100);
  });

  it('engine().runKernel runs a registered kernel for the active backend, as tfjs', () => {
    for (const lib of [tt, tfo]) {
      lib.registerKernel({
        kernelName: 'TtScaleAdd',
        backendName: lib.getBackend(),
        kernelFunc: ({ inputs, attrs }) => lib.add(lib.mul(inputs.x, attrs.scale), inputs.y),
      });
    }
    try {
      same((tf) => tf.engine().runKernel('TtScaleAdd', { x: tf.tensor1d([1, 2, 3]), y: tf.tensor1d([1, 1, 1]) }, { scale: 2 }));
      // The text names the active backend (tfjs's oracle runs on cpu).
      same((tf) => tf.engine().runKernel('TtNotRegistered', {}, {}),
        { message: `Kernel 'TtNotRegistered' not registered for backend '${tt.getBackend()}'` });
      // The intermediate (mul's result) is freed once the kernel returns.
      const x = tt.tensor1d([1, 2]);
      const before = tt.memory().numTensors;
      const y = tt.engine().runKernel('TtScaleAdd', { x, y: x }, { scale: 3 });
      assert.equal(tt.memory().numTensors, before + 1);
      assert.deepStrictEqual(Array.from(y.dataSync()), [4, 8]);
      tt.dispose([x, y]);
    } finally {
      tt.unregisterKernel('TtScaleAdd', tt.getBackend());
      tfo.unregisterKernel('TtScaleAdd', tfo.getBackend());
    }
  });

  it('runKernel: records become tensors; other outputs are refused, leaving nothing', () => {
    const be = tt.getBackend();
    tt.registerKernel({ kernelName: 'TtRecord', backendName: be, kernelFunc: () => [{ values: [1, 2], shape: [2], dtype: 'int32' }, tt.scalar(1)] });
    tt.registerKernel({ kernelName: 'TtBad', backendName: be, kernelFunc: () => { tt.ones([4]); return 5; } });
    try {
      const before = tt.memory().numTensors;
      const [a, b] = tt.engine().runKernel('TtRecord', {});
      assert.equal(a.dtype, 'int32');
      assert.deepStrictEqual(Array.from(a.dataSync()), [1, 2]);
      assert.equal(b.rank, 0);
      tt.dispose([a, b]);
      throwsMsg(() => tt.engine().runKernel('TtBad', {}),
        "Kernel 'TtBad' returned number: a kernel run by tidytensor must return tidytensor Tensors or {values, shape, dtype} records");
      assert.equal(tt.memory().numTensors, before);
    } finally {
      tt.unregisterKernel('TtRecord', be);
      tt.unregisterKernel('TtBad', be);
    }
  });
});

describe('backend registry', () => {
  it('registerBackend / findBackendFactory / removeBackend as tfjs', () => {
    for (const lib of [tt, tfo]) {
      const factory = () => ({});
      assert.equal(lib.findBackendFactory('ttjs'), null);
      assert.equal(lib.registerBackend('ttjs', factory, 3), true);
      assert.equal(lib.findBackendFactory('ttjs'), factory);
      const warns = captureWarn(() => assert.equal(lib.registerBackend('ttjs', factory), false));
      assert.deepStrictEqual(warns, ['ttjs backend was already registered. Reusing existing backend factory.']);
      // 'cpu' is taken in both.
      captureWarn(() => assert.equal(lib.registerBackend('cpu', factory), false));
      assert.equal(typeof lib.findBackendFactory('cpu'), 'function');
      assert.equal(lib.removeBackend('ttjs'), undefined);
      assert.equal(lib.findBackendFactory('ttjs'), null);
      throwsMsg(() => lib.removeBackend('ttjs'), 'ttjs backend not found in registry');
    }
  });
  it('setBackend refuses a JavaScript backend (its factory is not run); native backends stay', async () => {
    let called = false;
    tt.registerBackend('ttjs2', () => { called = true; return {}; });
    try {
      await assert.rejects(tt.setBackend('ttjs2'), { message: /^Backend 'ttjs2' was registered with tf.registerBackend, but tidytensor runs tensors only on its native backends \(cpu/ });
      await assert.rejects(tt.engine().setBackend('ttjs2'), /registered with tf.registerBackend/);
      assert.equal(called, false);
      await assert.rejects(tt.setBackend('nope'), { message: "Backend name 'nope' not found in registry" });
      const current = tt.getBackend();
      assert.equal(await tt.setBackend(current), true);
      throwsMsg(() => tt.removeBackend('cpu'), 'The cpu backend is native to tidytensor and cannot be removed');
    } finally {
      tt.removeBackend('ttjs2');
    }
  });
});

describe('KernelBackend and DataStorage', () => {
  it('KernelBackend methods throw tfjs\'s text until provided', () => {
    for (const lib of [tt, tfo]) {
      const b = new lib.KernelBackend();
      assert.equal(b.timerAvailable(), true);
      for (const m of ['read', 'readSync', 'write', 'memory', 'dispose', 'numDataIds', 'floatPrecision']) {
        throwsMsg(() => b[m](), `'${m}' not yet implemented or not found in the registry. This kernel may not be supported by the tfjs backend you have chosen`);
      }
      class B32 extends lib.KernelBackend { floatPrecision() { return 32; } }
      class B16 extends lib.KernelBackend { floatPrecision() { return 16; } }
      assert.equal(new B32().epsilon(), 1e-7);
      assert.equal(new B16().epsilon(), 1e-4);
    }
  });
  it('DataStorage counts ids and asks the mover for missing ones', () => {
    for (const lib of [tt, tfo]) {
      const moved = [];
      const backend = {};
      const store = new lib.DataStorage(backend, { moveData: (be, id) => { moved.push([be, id]); store.set(id, 'moved'); } });
      const id1 = {};
      const id2 = {};
      store.set(id1, 'v1');
      assert.equal(store.has(id1), true);
      assert.equal(store.get(id1), 'v1');
      assert.equal(store.numDataIds(), 1);
      assert.equal(store.get(id2), 'moved');
      assert.deepStrictEqual(moved, [[backend, id2]]);
      assert.equal(store.delete(id1), true);
      assert.equal(store.numDataIds(), 1);
    }
  });
});
