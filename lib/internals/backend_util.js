'use strict';
// tf.backend_util: tfjs-core's shape arithmetic that backends share. The larger groups live in
// files of their own named after tfjs's modules (conv_util, fused_util, complex_util,
// einsum_util, ragged_to_dense_util; broadcast_util, gather_util, scatter_util and slice_util,
// which tf also exports as namespaces); the small ones are here.
//
// The helpers take plain shapes and arrays (or anything with `.shape`/`.rank`/`.dtype`, as
// tfjs's do) and give tfjs 4.22's results and error texts, quirks included: programs and
// backends written against tfjs compute their shapes with them, so a "fixed" result would be a
// different answer. Where a quirk is kept on purpose, a comment says so.
const { util, upcastType } = require('../util');
const { warn, log } = require('./log');
const { broadcast_util } = require('./broadcast_util');
const { gather_util } = require('./gather_util');
const { scatter_util } = require('./scatter_util');
const { slice_util } = require('./slice_util');
const {
  checkPadOnDimRoundingMode, computeConv2DInfo, computeConv3DInfo, computeDefaultPad,
  computeDilation2DInfo, computePool2DInfo, computePool3DInfo, convertConv2DDataFormat,
  eitherStridesOrDilationsAreOne, stridesOrDilationsArePositive, tupleValuesAreOne,
} = require('./conv_util');
const { applyActivation, getFusedBiasGradient, getFusedDyActivation, shouldFuse } = require('./fused_util');
const {
  RowPartitionType, combineRaggedTensorToTensorShapes, getRaggedRank, getRowPartitionTypesHelper,
  validateDefaultValueShape,
} = require('./ragged_to_dense_util');
const {
  assignToTypedArray, complexWithEvenIndex, complexWithOddIndex, exponent, exponents,
  getComplexWithIndex, mergeRealAndImagArrays, splitRealAndImagArrays,
} = require('./complex_util');
const {
  checkEinsumDimSizes, decodeEinsumEquation, getEinsumComputePath, getEinsumPermutation,
  isIdentityPermutation,
} = require('./einsum_util');

const { assert, sizeFromShape, nearestDivisor } = util;
const { assertAndGetBroadcastShape, getBroadcastDims, getReductionAxes } = broadcast_util;
const { prepareAndValidate } = gather_util;
const { calculateShapes, validateInput, validateUpdateShape } = scatter_util;

// ---------------------------------------------------------------------------------------------
// Reduction axes (tfjs's axis_util)

// True when `axes` are the last axes.length dimensions of a rank-`rank` shape, in order.
function axesAreInnerMostDims(axes, rank) {
  return axes.every((axis, i) => axis === rank - axes.length + i);
}

// Interleaves an output location and a reduced location back into a full location: the axes
// in `axes` take their coordinate from reduceLoc, the others from outputLoc.
function combineLocations(outputLoc, reduceLoc, axes) {
  const loc = [];
  let o = 0;
  let r = 0;
  for (let dim = 0; dim < outputLoc.length + reduceLoc.length; dim++) {
    loc.push(axes.indexOf(dim) === -1 ? outputLoc[o++] : reduceLoc[r++]);
  }
  return loc;
}

// [the shape left after reducing `axes`, the sizes of the reduced axes].
function computeOutAndReduceShapes(aShape, axes) {
  const outShape = aShape.filter((_, dim) => axes.indexOf(dim) === -1);
  return [outShape, axes.map((dim) => aShape[dim])];
}

// The reduced shape with 1s put back at `axes` (keepDims).
function expandShapeToKeepDim(shape, axes) {
  return combineLocations(shape, axes.map(() => 1), axes);
}

function assertAxesAreInnerMostDims(msg, axes, rank) {
  assert(axesAreInnerMostDims(axes, rank),
    () => `${msg} supports only inner-most axes for now. Got axes ${axes} and rank-${rank} input.`);
}

// The transpose that moves `axes` last, or null when they already are.
function getAxesPermutation(axes, rank) {
  if (axesAreInnerMostDims(axes, rank)) return null;
  const kept = [];
  for (let i = 0; i < rank; ++i) if (axes.indexOf(i) === -1) kept.push(i);
  return kept.concat(axes);
}

// The inverse permutation of `axes`.
// (Positions sorted by the axis they hold, so that any list of axes gives tfjs's answer.)
function getUndoAxesPermutation(axes) {
  return axes.map((axis, i) => [i, axis]).sort((a, b) => a[1] - b[1]).map(([i]) => i);
}

function getInnerMostAxes(numAxes, rank) {
  const res = [];
  for (let i = rank - numAxes; i < rank; ++i) res.push(i);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Concatenation (tfjs's concat_util)

function assertParamsConsistent(shapes, axis) {
  const rank = shapes[0].length;
  shapes.forEach((shape, i) => {
    assert(shape.length === rank, () =>
      `Error in concat${rank}D: rank of tensors[${i}] must be the same as the rank of the rest (${rank})`);
  });
  assert(axis >= 0 && axis < rank, () => `Error in concat${rank}D: axis must be between 0 and ${rank - 1}.`);
  const first = shapes[0];
  shapes.forEach((shape, i) => {
    for (let r = 0; r < rank; r++) {
      // tfjs names the tensor index `i` where the axis would be; its text is kept.
      assert(r === axis || shape[r] === first[r], () =>
        `Error in concat${rank}D: Shape of tensors[${i}] (${shape}) does not match the shape ` +
        `of the rest (${first}) along the non-concatenated axis ${i}.`);
    }
  });
}

function computeOutShape(shapes, axis) {
  const out = shapes[0].slice();
  for (let i = 1; i < shapes.length; i++) out[axis] += shapes[i][axis];
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reduction windows (tfjs's reduce_util and segment_util)

const PARALLELIZE_THRESHOLD = 30;

// Small inputs are reduced in one window; larger ones in windows of a divisor near sqrt(n).
function computeOptimalWindowSize(inSize) {
  return inSize <= PARALLELIZE_THRESHOLD ? inSize : nearestDivisor(inSize, Math.floor(Math.sqrt(inSize)));
}

// As computeOptimalWindowSize, then grown (to the next divisor) until it exceeds the number of
// segments.
function segOpComputeOptimalWindowSize(inSize, numSegments) {
  if (inSize <= PARALLELIZE_THRESHOLD) return inSize;
  let res = nearestDivisor(inSize, Math.floor(Math.sqrt(inSize)));
  while (!(res > numSegments || res === inSize)) res = nearestDivisor(inSize, res + 1);
  return res;
}

function segmentComputeOutShape(aShape, axis, numSegments) {
  return aShape.map((d, dim) => (dim === axis ? numSegments : d));
}

// Shapes of a gather along `axis` with `batchDims` leading batch dimensions.
function collectGatherOpShapeInfo(x, indices, axis, batchDims) {
  const indicesRank = indices.shape.length;
  const xRank = x.shape.length;
  if (batchDims !== 0 && (batchDims < -indicesRank || batchDims > indicesRank)) {
    throw new Error(`Expect batchDims in the range of [-${indicesRank}, ${indicesRank}], but got ${batchDims}`);
  }
  if (batchDims < 0) batchDims += indicesRank;
  if (batchDims > xRank) {
    throw new Error(`batchDims (${batchDims}) must be less than rank(x) (\n    ${xRank}).`);
  }
  if (axis < batchDims) {
    throw new Error(`batchDims (${batchDims}) must be less than or equal to axis (${axis}).`);
  }
  for (let i = 0; i < batchDims; ++i) {
    if (x.shape[i] !== indices.shape[i]) {
      throw new Error(`x.shape[${i}]: ${x.shape[i]} should be equal to indices.shape[${i}]: ${indices.shape[i]}.`);
    }
  }
  const outputShape = [];
  let batchSize = 1;
  let outerSize = 1;
  let sliceSize = 1;
  for (let i = 0; i < batchDims; ++i) {
    outputShape.push(x.shape[i]);
    batchSize *= x.shape[i];
  }
  for (let i = batchDims; i < axis; i++) {
    outputShape.push(x.shape[i]);
    outerSize *= x.shape[i];
  }
  for (let i = batchDims; i < indicesRank; i++) outputShape.push(indices.shape[i]);
  for (let i = axis + 1; i < xRank; i++) {
    outputShape.push(x.shape[i]);
    sliceSize *= x.shape[i];
  }
  return { batchSize, sliceSize, outerSize, dimSize: x.shape[axis], outputShape };
}

const segment_util = {
  collectGatherOpShapeInfo, computeOutShape: segmentComputeOutShape, segOpComputeOptimalWindowSize,
};

// ---------------------------------------------------------------------------------------------
// Space-to-batch reshapes (tfjs's array_ops_util), image rotation centre (rotate_util)

// The shape batchToSpace (or spaceToBatch) reshapes to before permuting.
function getReshaped(inputShape, blockShape, prod, batchToSpace = true) {
  if (batchToSpace) return [...blockShape, inputShape[0] / prod, ...inputShape.slice(1)];
  const out = [inputShape[0]];
  for (let i = 0; i < blockShape.length; ++i) out.push(inputShape[i + 1] / blockShape[i], blockShape[i]);
  return out.concat(inputShape.slice(blockShape.length + 1));
}

function getPermuted(reshapedRank, blockShapeRank, batchToSpace = true) {
  const perm = [];
  if (batchToSpace) {
    perm.push(blockShapeRank);
    for (let i = blockShapeRank + 1; i < reshapedRank; ++i) {
      if (i <= 2 * blockShapeRank) perm.push(i, i - (blockShapeRank + 1));
      else perm.push(i);
    }
    return perm;
  }
  const beforeBatch = [];
  const afterBatch = [];
  for (let i = 1; i < reshapedRank; ++i) {
    if (i >= blockShapeRank * 2 + 1 || i % 2 === 1) afterBatch.push(i);
    else beforeBatch.push(i);
  }
  return [...beforeBatch, 0, ...afterBatch];
}

function getReshapedPermuted(inputShape, blockShape, prod, batchToSpace = true) {
  const out = [batchToSpace ? inputShape[0] / prod : inputShape[0] * prod];
  for (let i = 1; i < inputShape.length; ++i) {
    if (i <= blockShape.length) {
      out.push(batchToSpace ? blockShape[i - 1] * inputShape[i] : inputShape[i] / blockShape[i - 1]);
    } else {
      out.push(inputShape[i]);
    }
  }
  return out;
}

// `blockShape` here is the number of block dimensions.
function getSliceBeginCoords(crops, blockShape) {
  const out = [0];
  for (let i = 0; i < blockShape; ++i) out.push(crops[i][0]);
  return out;
}

function getSliceSize(uncroppedShape, crops, blockShape) {
  const out = uncroppedShape.slice(0, 1);
  for (let i = 0; i < blockShape; ++i) out.push(uncroppedShape[i + 1] - crops[i][0] - crops[i][1]);
  return out;
}

// The rotation centre in pixels: a fraction of the image (or a [x, y] pair of fractions).
function getImageCenter(center, imageHeight, imageWidth) {
  const [fx, fy] = typeof center === 'number' ? [center, center] : center;
  return [imageWidth * fx, imageHeight * fy];
}

// ---------------------------------------------------------------------------------------------
// Constants: SELU's scale (and scale times alpha), the Abramowitz-Stegun erf approximation.

const SELU_SCALEALPHA = 1.7580993408473768; // tfjs's 1.7580993408473768599402175208123, as a double
const SELU_SCALE = 1.0507009873554805; // tfjs's 1.0507009873554804934193349852946
const ERF_P = 0.3275911;
const ERF_A1 = 0.254829592;
const ERF_A2 = -0.284496736;
const ERF_A3 = 1.421413741;
const ERF_A4 = -1.453152027;
const ERF_A5 = 1.061405429;

// ---------------------------------------------------------------------------------------------
// split sizes (tfjs's split_util)

// The sizes tf.split cuts axis `axis` into; one -1 takes what the others leave. As tfjs, a
// list argument is updated in place.
function prepareSplitSize(x, numOrSizeSplits, axis = 0) {
  const dim = x.shape[axis];
  if (typeof numOrSizeSplits === 'number') {
    assert(dim % numOrSizeSplits === 0, () => 'Number of splits must evenly divide the axis.');
    return new Array(numOrSizeSplits).fill(dim / numOrSizeSplits);
  }
  const negatives = numOrSizeSplits.filter((v) => v === -1).length;
  assert(negatives <= 1, () => 'There should be only one negative value in split array.');
  const negIndex = numOrSizeSplits.indexOf(-1);
  if (negIndex !== -1) {
    // tfjs's reduce starts from the first element whatever its sign; kept.
    const total = numOrSizeSplits.reduce((a, b) => (b > 0 ? a + b : a));
    numOrSizeSplits[negIndex] = dim - total;
  }
  assert(dim === numOrSizeSplits.reduce((a, b) => a + b),
    () => 'The sum of sizes must match the size of the axis dimension.');
  return numOrSizeSplits;
}

// ---------------------------------------------------------------------------------------------
// Sparse ops' error texts (shared by the backends' kernels)

const getSparseFillEmptyRowsIndicesDenseShapeMismatch = (indicesLength) =>
  `Received SparseTensor with denseShape[0] = 0 but\n  indices.shape[0] = ${indicesLength}`;
const getSparseFillEmptyRowsNegativeIndexErrorMessage = (index, value) =>
  `indices(${index}, 0) is invalid: ${value} < 0`;
const getSparseFillEmptyRowsOutOfRangeIndexErrorMessage = (index, value, limit) =>
  `indices(${index}, 0) is invalid: ${value} >= ${limit}`;
const getSparseReshapeMultipleNegativeOneOutputDimErrorMessage = (dim1, dim2) =>
  `only one output dimension may be -1, not both ${dim1} and ${dim2}`;
const getSparseReshapeNegativeOutputDimErrorMessage = (dim, value) =>
  `size ${dim} must be non-negative, not ${value}`;
const getSparseReshapeEmptyTensorZeroOutputDimErrorMessage = () =>
  'reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are non-zero';
const getSparseReshapeInputOutputMultipleErrorMessage = (inputShape, outputShape) =>
  `Input to reshape is a SparseTensor with ${sizeFromShape(inputShape)}\n  dense values, but the ` +
  `requested shape requires a multiple of ${sizeFromShape(outputShape)}. inputShape=${inputShape} outputShape= ${outputShape}`;
const getSparseReshapeInputOutputMismatchErrorMessage = (inputShape, outputShape) =>
  `Input to reshape is a tensor with ${sizeFromShape(inputShape)} dense values, but the requested ` +
  `shape has ${sizeFromShape(outputShape)}. inputShape=${inputShape} outputShape=${outputShape}`;
const getSparseSegmentReductionNegativeSegmentIdsErrorMessage = () => 'segment ids must be >= 0';
const getSparseSegmentReductionNonIncreasingSegmentIdsErrorMessage = () => 'segment ids are not increasing';
const getSparseSegmentReductionSegmentIdOutOfRangeErrorMessage = (segmentId, outputRows) =>
  `Segment id ${segmentId} out of range [0, ${outputRows}), possibly because segmentIds input is not sorted.`;
const getSparseSegmentReductionIndicesOutOfRangeErrorMessage = (index, indexValue, inputRows) =>
  `Bad: indices[${index}] == ${indexValue} out of range [0, ${inputRows})`;

// ---------------------------------------------------------------------------------------------
// String tensors' bytes

function fromUint8ToStringArray(vals) {
  try {
    return vals.map((v) => util.decodeString(v));
  } catch (err) {
    throw new Error(`Failed to decode encoded string bytes into utf-8, error: ${err}`, { cause: err });
  }
}
const fromStringArrayToUint8 = (strings) => strings.map((s) => util.encodeString(s));

const backend_util = {
  ERF_A1, ERF_A2, ERF_A3, ERF_A4, ERF_A5, ERF_P, PARALLELIZE_THRESHOLD, RowPartitionType,
  SELU_SCALE, SELU_SCALEALPHA, applyActivation, assertAndGetBroadcastShape,
  assertAxesAreInnerMostDims, assertParamsConsistent, assignToTypedArray, axesAreInnerMostDims,
  calculateShapes, checkEinsumDimSizes, checkPadOnDimRoundingMode, combineLocations,
  combineRaggedTensorToTensorShapes, complexWithEvenIndex, complexWithOddIndex,
  computeConv2DInfo, computeConv3DInfo, computeDefaultPad, computeDilation2DInfo,
  computeOptimalWindowSize, computeOutAndReduceShapes, computeOutShape, computePool2DInfo,
  computePool3DInfo, convertConv2DDataFormat, decodeEinsumEquation,
  eitherStridesOrDilationsAreOne, expandShapeToKeepDim, exponent, exponents,
  fromStringArrayToUint8, fromUint8ToStringArray, getAxesPermutation, getBroadcastDims,
  getComplexWithIndex, getEinsumComputePath, getEinsumPermutation, getFusedBiasGradient,
  getFusedDyActivation, getImageCenter, getInnerMostAxes, getPermuted, getRaggedRank,
  getReductionAxes, getReshaped, getReshapedPermuted, getRowPartitionTypesHelper,
  getSliceBeginCoords, getSliceSize, getSparseFillEmptyRowsIndicesDenseShapeMismatch,
  getSparseFillEmptyRowsNegativeIndexErrorMessage,
  getSparseFillEmptyRowsOutOfRangeIndexErrorMessage,
  getSparseReshapeEmptyTensorZeroOutputDimErrorMessage,
  getSparseReshapeInputOutputMismatchErrorMessage,
  getSparseReshapeInputOutputMultipleErrorMessage,
  getSparseReshapeMultipleNegativeOneOutputDimErrorMessage,
  getSparseReshapeNegativeOutputDimErrorMessage,
  getSparseSegmentReductionIndicesOutOfRangeErrorMessage,
  getSparseSegmentReductionNegativeSegmentIdsErrorMessage,
  getSparseSegmentReductionNonIncreasingSegmentIdsErrorMessage,
  getSparseSegmentReductionSegmentIdOutOfRangeErrorMessage, getUndoAxesPermutation,
  isIdentityPermutation, log, mergeRealAndImagArrays, prepareAndValidate, prepareSplitSize,
  segment_util, shouldFuse, slice_util, splitRealAndImagArrays, stridesOrDilationsArePositive,
  tupleValuesAreOne, upcastType, validateDefaultValueShape, validateInput, validateUpdateShape,
  warn,
};

module.exports = { backend_util };
