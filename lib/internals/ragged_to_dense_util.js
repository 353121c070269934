'use strict';
// tfjs's ragged_to_dense_util (in tf.backend_util): the shape checks of raggedTensorToTensor.

// A TypeScript-style numeric enum: names to numbers and numbers back to names.
const RowPartitionType = {};
['FIRST_DIM_SIZE', 'VALUE_ROWIDS', 'ROW_LENGTHS', 'ROW_SPLITS', 'ROW_LIMITS', 'ROW_STARTS']
  .forEach((name, i) => { RowPartitionType[RowPartitionType[name] = i] = name; });

function combineRaggedTensorToTensorShapes(raggedRank, shape, valueShape) {
  if (valueShape == null && shape == null) return [];
  const out = shape == null ? new Array(Math.max(0, raggedRank + valueShape.length)).fill(-1) : shape.slice();
  if (valueShape == null) return out;
  if (raggedRank + valueShape.length !== out.length) {
    throw new Error(`rt input.shape and shape=${shape} are incompatible: rt input.rank = ` +
      `${raggedRank + valueShape.length}, but shape.rank = ${out.length}`);
  }
  for (let i = 1; i < valueShape.length; ++i) {
    const valueDim = valueShape[i];
    // tfjs reads the output dimension at the index held by out[...] (not at that position);
    // the quirk is kept so that the same shapes pass and fail.
    const index = out[out.length - valueShape.length + i];
    const outDim = out[index];
    if (valueDim >= 0) {
      if (outDim >= 0) {
        if (outDim !== valueDim) {
          throw new Error(`rt input.shape and shape=${shape} are incompatible: rt input.shape[` +
            `${i + raggedRank}] = ${valueDim} but shape[${i + raggedRank}] = ${outDim}`);
        }
      } else {
        out[index] = valueDim;
      }
    }
  }
  return out;
}

// The partition types named by the strings, up to the first unknown one.
function getRowPartitionTypesHelper(rowPartitionTypeStrings) {
  // A name -> number table looked up with `in`, as tfjs does.
  const byName = {};
  for (let i = 0; i < 6; i++) byName[RowPartitionType[i]] = i;
  const out = [];
  for (const s of rowPartitionTypeStrings) {
    if (!(s in byName)) break;
    out.push(byName[s]);
  }
  return out;
}

function getRaggedRank(rowPartitionTypes) {
  if (rowPartitionTypes.length === 0) return 0;
  return rowPartitionTypes[0] === RowPartitionType.FIRST_DIM_SIZE
    ? rowPartitionTypes.length - 1 : rowPartitionTypes.length;
}

function validateDefaultValueShape(defaultValueShape, valueShape) {
  if (defaultValueShape == null || valueShape == null) return;
  const nd = defaultValueShape.length;
  const nv = valueShape.length;
  if (nd >= nv) {
    throw new Error(`defaultValue.shape=${defaultValueShape} and ragged tensor flatValues.shape=` +
      `${valueShape}, are incompatible: defaultValue.rank = ${nd} must be less than ragged ` +
      `tensor input flatValues.rank = ${nv})`);
  }
  for (let i = 0; i < Math.min(nd, nv - 1); ++i) {
    const d = defaultValueShape[i];
    const v = valueShape[i + 1];
    if (d >= 0 && v >= 0 && d !== 1 && d !== v) {
      throw new Error(`defaultValue.shape=${defaultValueShape}, and ragged tensor input ` +
        `flatValues.shape=${valueShape} are incompatible: defaultValue.shape[${i - nd}] = ${d} ` +
        `but ragged tensor input.flatValues.shape[${i - nd}] = ${v}`);
    }
  }
}

module.exports = {
  RowPartitionType, combineRaggedTensorToTensorShapes, getRaggedRank, getRowPartitionTypesHelper,
  validateDefaultValueShape,
};
