'use strict';
// The ragged ops of converted graph models: raggedGather, raggedRange, raggedTensorToTensor.
// A ragged tensor is its flat values plus row partitions (int32 splits or row ids); the index
// bookkeeping is the core's (crates/core/src/ops/ragged.rs), with tfjs's checks and texts. This
// converts the arguments.
const native = require('../native');
const { wrap, wrapId } = require('../tensor');
const { withMany, listArg } = require('./args');

// A list-of-tensors argument as an array (tfjs maps over it).
function tensorList(list, argName, opName) {
  const arr = listArg(list);
  if (!Array.isArray(arr)) {
    throw new Error(`Argument ${argName} passed to ${opName} must be a \`Tensor[]\` or \`TensorLike[]\``);
  }
  return arr;
}

// tfjs reads no `outputRaggedRank`: the result has indices.rank - 1 + paramsNestedSplits.length
// splits, whatever it says.
function raggedGather(paramsNestedSplits, paramsDenseValues, indices, outputRaggedRank) {
  const op = 'raggedGather';
  const splitArgs = tensorList(paramsNestedSplits, 'paramsNestedSplits', op)
    .map((s, i) => [s, `tensors${i}`, 'int32']);
  return withMany(op, [...splitArgs, [paramsDenseValues, 'paramsDenseValues'], [indices, 'indices', 'int32']],
    (tensors) => {
      const [params, idx] = tensors.slice(-2);
      const out = native.raggedGather(tensors.slice(0, -2).map((t) => t.id), params.id, idx.id).map(wrapId);
      return { outputNestedSplits: out.slice(0, -1), outputDenseValues: out[out.length - 1] };
    });
}

// raggedRange: row i is range(starts[i], limits[i], deltas[i]); scalars are broadcast.
function raggedRange(starts, limits, deltas) {
  const op = 'raggedRange';
  return withMany(op, [[starts, 'starts']], ([st]) =>
    withMany(op, [[limits, 'limits', st.dtype], [deltas, 'deltas', st.dtype]], ([li, de]) => {
      const [rtNestedSplits, rtDenseValues] = native.raggedRange(st.id, li.id, de.id).map(wrapId);
      return { rtNestedSplits, rtDenseValues };
    }));
}

// The dense tensor of a ragged one, padded with `defaultValue` and cut to `shape`.
function raggedTensorToTensor(shape, values, defaultValue, rowPartitionTensors, rowPartitionTypes) {
  const op = 'raggedTensorToTensor';
  return withMany(op, [[shape, 'shape', 'int32'], [values, 'values']], ([sh, val]) => {
    const partitionArgs = tensorList(rowPartitionTensors, 'rowPartitionTensors', op)
      .map((t, i) => [t, `tensors${i}`, 'int32']);
    return withMany(op, [[defaultValue, 'defaultValue', val.dtype], ...partitionArgs], ([def, ...partitions]) => {
      const names = listArg(rowPartitionTypes);
      if (!Array.isArray(names)) throw new Error('rowPartitionTypes must be a list of strings');
      return wrap(native.raggedTensorToTensor(sh.id, val.id, def.id, partitions.map((t) => t.id), names.map(String)));
    });
  });
}

module.exports = { raggedGather, raggedRange, raggedTensorToTensor };
