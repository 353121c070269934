'use strict';
// tf.sparse: the SparseTensor ops of converted graph models. Their work is index bookkeeping
// on small int32 tensors, which tfjs does on the host on every backend; so does tidytensor
// (crates/core/src/ops/sparse.rs, with tfjs's checks and texts). This converts the arguments.
const native = require('../native');
const { wrap, wrapId } = require('../tensor');
const { withMany: withConverted } = require('./args');

// Segment sums (or means) of the rows `indices` picks from `data`, by sorted `segmentIds`;
// segments with no row are 0.
function segmentReduce(op, data, indices, segmentIds, mean) {
  return withConverted(op, [[data, 'data'], [indices, 'indices', 'int32'], [segmentIds, 'segmentIds', 'int32']],
    ([x, idx, seg]) => wrap(native.sparseSegmentReduction(x.id, idx.id, seg.id, mean)));
}

function sparseSegmentSum(data, indices, segmentIds) {
  return segmentReduce('sparseSegmentSum', data, indices, segmentIds, false);
}

function sparseSegmentMean(data, indices, segmentIds) {
  return segmentReduce('sparseSegmentMean', data, indices, segmentIds, true);
}

// The indices of a SparseTensor of `inputShape` renumbered for `newShape` (one -1 allowed).
function sparseReshape(inputIndices, inputShape, newShape) {
  return withConverted('sparseReshape', [[inputIndices, 'inputIndices', 'int32'], [inputShape, 'inputShape', 'int32'],
    [newShape, 'newShape', 'int32']], ([idx, ish, nsh]) => {
    const [outputIndices, outputShape] = native.sparseReshape(idx.id, ish.id, nsh.id);
    return { outputIndices: wrapId(outputIndices), outputShape: wrapId(outputShape) };
  });
}

// Rows of a SparseTensor with no value get one at column 0 with `defaultValue`; the entries are
// put in row order (stable within a row).
function sparseFillEmptyRows(indices, values, denseShape, defaultValue) {
  const op = 'sparseFillEmptyRows';
  return withConverted(op, [[indices, 'indices', 'int32'], [values, 'values'], [denseShape, 'denseShape', 'int32']],
    ([idx, val, dsh]) => withConverted(op, [[defaultValue, 'defaultValue', val.dtype]], ([def]) => {
      const out = native.sparseFillEmptyRows(idx.id, val.id, dsh.id, def.id).map(wrapId);
      return { outputIndices: out[0], outputValues: out[1], emptyRowIndicator: out[2], reverseIndexMap: out[3] };
    }));
}

const sparse = { sparseFillEmptyRows, sparseReshape, sparseSegmentMean, sparseSegmentSum };

module.exports = { sparse };
