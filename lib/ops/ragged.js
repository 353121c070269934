'use strict';
// The ragged ops of converted graph models: raggedGather, raggedRange, raggedTensorToTensor.
// A ragged tensor is its flat values plus row partitions (int32 splits or row ids); the ops are
// index bookkeeping, which tfjs does on the host on every backend; so does tidytensor, with
// tfjs's checks and texts.
const { withMany, listArg } = require('./args');
const creation = require('./creation');

const ARRAYS = { float32: Float32Array, int32: Int32Array, bool: Uint8Array };
const newArray = (dtype, n) => new ARRAYS[dtype](n);
const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);

// A list-of-tensors argument as an array (tfjs maps over it).
function tensorList(list, argName, opName) {
  const arr = listArg(list);
  if (!Array.isArray(arr)) {
    throw new Error(`Argument ${argName} passed to ${opName} must be a \`Tensor[]\` or \`TensorLike[]\``);
  }
  return arr;
}

// Makes the result tensors with `make` (a function of the tensor constructor); if one cannot
// be made, those already made are disposed.
function allOrNone(make) {
  const made = [];
  const C = creation;
  const t = (values, shape, dtype) => {
    const x = C.tensor(values, shape, dtype);
    made.push(x);
    return x;
  };
  try {
    return make(t);
  } catch (e) {
    made.forEach((x) => x.dispose());
    throw e;
  }
}

// The coordinates of flat position `i` in `shape`, as tfjs prints them ('' for a scalar).
function location(i, shape) {
  const loc = new Array(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    loc[d] = d === 0 ? i : i % shape[d];
    i = Math.floor(i / shape[d]);
  }
  return loc.join(',');
}

// ---------------------------------------------------------------------------------------------
// raggedGather: rows `indices` of the ragged tensor (paramsNestedSplits, paramsDenseValues).

function checkSplits(splits, numValues) {
  splits.forEach((s, dim) => {
    const last = dim === splits.length - 1 ? numValues : splits[dim + 1].length;
    if (s.length === 0) throw new Error('Ragged splits may not be empty');
    if (s[0] < 0) throw new Error('Ragged splits must be non-negative');
    if (s[s.length - 1] > last) throw new Error('Ragged splits must not point past values');
    for (let i = 1; i < s.length; i++) {
      if (s[i - 1] > s[i]) throw new Error('Ragged splits must be sorted in ascending order');
    }
  });
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
      const splitTensors = tensors.slice(0, -2);
      if (splitTensors.length === 0) throw new Error('paramsNestedSplits must be non empty');
      if (splitTensors[0].rank === 0) throw new Error('Split tensors must not be scalars');
      const numParams = splitTensors[0].shape[0] - 1;
      const ind = idx.dataSync();
      ind.forEach((v, i) => {
        if (v < 0 || v >= numParams) {
          throw new Error(`indices[${location(i, idx.shape)}] = ${v} is not in [0, ${numParams})`);
        }
      });
      if (params.rank === 0) throw new Error('params.rank must be nonzero');
      const splits = splitTensors.map((t) => t.dataSync());
      checkSplits(splits, params.shape[0]);

      // The outer splits are those of the dense dimensions of `indices` (all but its last),
      // uniform rows; then come those of the gathered rows, shifted to follow each other.
      const outer = idx.rank - 1;
      const out = Array.from({ length: outer + splits.length }, () => [0]);
      let rows = 1;
      for (let d = 0; d < outer; d++) {
        rows *= idx.shape[d];
        for (let r = 1; r <= rows; r++) out[d].push(r * idx.shape[d + 1]);
      }
      const slices = []; // [start, limit) ranges of dense value rows to copy
      let numValues = 0;
      for (const i of ind) {
        let [start, limit] = [i, i + 1];
        splits.forEach((s, dim) => {
          const o = out[outer + dim]; // none for the first level when indices is a scalar
          if (o !== undefined) {
            const shift = o[o.length - 1] - s[start];
            for (let j = start; j < limit; j++) o.push(s[j + 1] + shift);
          }
          [start, limit] = [s[start], s[limit]];
        });
        if (limit !== start) {
          slices.push([start, limit]);
          numValues += limit - start;
        }
      }

      const rowSize = sizeOf(params.shape.slice(1));
      const values = params.dataSync();
      const outValues = newArray(params.dtype, numValues * rowSize);
      let at = 0;
      for (const [start, limit] of slices) {
        outValues.set(values.subarray(start * rowSize, limit * rowSize), at);
        at += (limit - start) * rowSize;
      }
      return allOrNone((t) => ({
        outputNestedSplits: out.map((o) => t(Int32Array.from(o), [o.length], 'int32')),
        outputDenseValues: t(outValues, [numValues, ...params.shape.slice(1)], params.dtype),
      }));
    });
}

// ---------------------------------------------------------------------------------------------
// raggedRange: row i is range(starts[i], limits[i], deltas[i]); scalars are broadcast.

const INT32_MAX = 2147483647;

function raggedRange(starts, limits, deltas) {
  const op = 'raggedRange';
  return withMany(op, [[starts, 'starts']], ([st]) =>
    withMany(op, [[limits, 'limits', st.dtype], [deltas, 'deltas', st.dtype]], ([li, de]) => {
      const inputs = [['starts', st], ['limits', li], ['deltas', de]];
      for (const [name, t] of inputs) {
        if (t.rank > 1) throw new Error(`${name} must be a scalar or vector`);
      }
      const lengths = inputs.filter(([, t]) => t.rank === 1).map(([, t]) => t.shape[0]);
      if (lengths.some((n) => n !== lengths[0])) {
        throw new Error('starts, limits, and deltas must have the same shape');
      }
      const nRows = lengths.length === 0 ? 1 : lengths[0];
      // Row r of a scalar input is its only value.
      const [s, l, d] = inputs.map(([, t]) => {
        const v = t.dataSync();
        return t.rank === 0 ? () => v[0] : (r) => v[r];
      });
      const splits = new Int32Array(nRows + 1);
      for (let r = 0; r < nRows; r++) {
        const [start, limit, delta] = [s(r), l(r), d(r)];
        if (delta === 0) throw new Error('Requires delta != 0');
        let size = 0;
        if (!((delta > 0 && limit < start) || (delta < 0 && limit > start))) {
          size = Math.ceil(Math.abs((limit - start) / delta));
          if (size > INT32_MAX) throw new Error(`Requires ((limit - start) / delta) <= ${INT32_MAX}`);
        }
        splits[r + 1] = splits[r] + size;
      }
      const values = newArray(st.dtype, splits[nRows]);
      for (let r = 0, at = 0; r < nRows; r++) {
        const delta = d(r);
        let v = s(r);
        for (let k = splits[r]; k < splits[r + 1]; k++, v += delta) values[at++] = v;
      }
      return allOrNone((t) => ({
        rtNestedSplits: t(splits, [nRows + 1], 'int32'),
        rtDenseValues: t(values, [values.length], st.dtype),
      }));
    }));
}

// ---------------------------------------------------------------------------------------------
// raggedTensorToTensor: the dense tensor of a ragged one, padded with `defaultValue` and cut to
// `shape`.

const PARTITION_TYPES = ['FIRST_DIM_SIZE', 'VALUE_ROWIDS', 'ROW_LENGTHS', 'ROW_SPLITS', 'ROW_LIMITS', 'ROW_STARTS'];

// The known type names up to the first unknown one (tfjs reads no further).
function partitionTypes(list) {
  const names = listArg(list);
  if (!Array.isArray(names)) throw new Error('rowPartitionTypes must be a list of strings');
  const known = [];
  for (const n of names) {
    if (!PARTITION_TYPES.includes(n)) break;
    known.push(n);
  }
  return known;
}

function checkDefaultShape(defaultShape, valueShape) {
  const [nd, nv] = [defaultShape.length, valueShape.length];
  if (nd >= nv) {
    throw new Error(`defaultValue.shape=${defaultShape} and ragged tensor flatValues.shape=${valueShape}, ` +
      `are incompatible: defaultValue.rank = ${nd} must be less than ragged tensor input flatValues.rank = ${nv})`);
  }
  for (let i = 0; i < Math.min(nd, nv - 1); i++) {
    const [dd, vd] = [defaultShape[i], valueShape[i + 1]];
    if (dd !== 1 && dd !== vd) {
      throw new Error(`defaultValue.shape=${defaultShape}, and ragged tensor input flatValues.shape=${valueShape} ` +
        `are incompatible: defaultValue.shape[${i - nd}] = ${dd} but ragged tensor input.flatValues.shape[${i - nd}] = ${vd}`);
    }
  }
}

// The requested shape: null (unknown rank) for the scalar -1, else a list with -1 for unknown
// dimensions.
function requestedShape(t) {
  const v = Array.from(t.dataSync());
  if (t.rank === 0) {
    if (v[0] === -1) return null;
    throw new Error('The only valid scalar shape tensor is the fully unknown shape specified as -1.');
  }
  return v.map((d) => {
    if (d < -1) throw new Error(`Dimension ${d} must be >= -1`);
    return d;
  });
}

// The output shape with the requested dimensions, the dense dimensions of the values, and -1
// where the ragged tensor decides (filled in by the caller).
function combineShapes(raggedRank, requested, valueShape) {
  const rank = raggedRank + valueShape.length;
  const out = requested === null ? new Array(rank).fill(-1) : requested.slice();
  if (out.length !== rank) {
    throw new Error(`rt input.shape and shape=${requested} are incompatible: rt input.rank = ${rank}, ` +
      `but shape.rank = ${out.length}`);
  }
  for (let i = 1; i < valueShape.length; i++) {
    const at = raggedRank + i;
    if (out[at] < 0) {
      out[at] = valueShape[i];
    } else if (out[at] !== valueShape[i]) {
      throw new Error(`rt input.shape and shape=${requested} are incompatible: rt input.shape[${at}] = ` +
        `${valueShape[i]} but shape[${at}] = ${out[at]}`);
    }
  }
  return out;
}

// The widest row of a partition.
function maxWidth({ type, data }) {
  let widest = 0;
  if (type === 'ROW_SPLITS') {
    for (let i = 0; i + 1 < data.length; i++) widest = Math.max(widest, data[i + 1] - data[i]);
  } else if (type === 'VALUE_ROWIDS') {
    for (let i = 0, run = 0; i < data.length; i++) {
      run = i > 0 && data[i] === data[i - 1] ? run + 1 : 1;
      widest = Math.max(widest, run);
    }
  } else {
    throw new Error(`Cannot handle partition type ${type}`);
  }
  return widest;
}

// Where each element of the next level goes in the output (flat element position, -1 when it
// is cut off), from where its parent rows go (`parent`), the stride of the level and its size.
function childPositions({ type, data }, parent, stride, size) {
  const out = [];
  if (type === 'ROW_SPLITS') {
    if (data.length - 1 > parent.length) {
      throw new Error(`Row partition size is greater than output size: ${data.length - 1} > ${parent.length}`);
    }
    for (let r = 0; r + 1 < data.length; r++) {
      const length = data[r + 1] - data[r];
      const kept = parent[r] === -1 ? 0 : Math.min(size, length);
      for (let j = 0; j < kept; j++) out.push(parent[r] + j * stride);
      for (let j = kept; j < length; j++) out.push(-1);
    }
    if (data.length > 0 && out.length !== data[data.length - 1]) throw new Error('Invalid row split size.');
  } else if (type === 'VALUE_ROWIDS') {
    let column = 0;
    data.forEach((row, i) => {
      if (row < 0) throw new Error(`Got valueRowId=${row}, which is negative`);
      if (row >= parent.length) {
        throw new Error(i === 0 ? `Got currentValueRowId=${row}, which is not less than ${parent.length}`
          : `Got nextValueRowId=${row} which is not less than ${parent.length}`);
      }
      column = i > 0 && row === data[i - 1] ? column + 1 : 0;
      out.push(parent[row] === -1 || column >= size ? -1 : parent[row] + column * stride);
    });
  } else {
    throw new Error(`Unsupported partition type: ${type}`);
  }
  return out;
}

// `def` repeated over an element of `shape` (broadcast as tf.broadcastTo does).
function broadcastDefault(def, defShape, shape) {
  const n = sizeOf(shape);
  if (def.length === n) return def;
  const src = [...new Array(shape.length - defShape.length).fill(1), ...defShape];
  if (src.some((d, i) => d !== 1 && d !== shape[i])) {
    throw new Error(`broadcastTo(): [${defShape}] cannot be broadcast to [${shape}].`);
  }
  const out = new Array(n);
  for (let k = 0; k < n; k++) {
    let [rest, from, stride] = [k, 0, 1];
    for (let d = shape.length - 1; d >= 0; d--) {
      const c = rest % shape[d];
      rest = Math.floor(rest / shape[d]);
      if (src[d] !== 1) from += c * stride;
      stride *= src[d];
    }
    out[k] = def[from];
  }
  return out;
}

function toDense(shapeT, valuesT, defaultT, partitionTs, typeList) {
  const types = partitionTypes(typeList);
  const partitions = partitionTs.map((t, i) => ({ type: types[i], data: t.dataSync() }));
  if (partitions.length === 0 || partitions[0].data.length <= 0) {
    throw new Error('Invalid first partition input. Tensor requires at least one element.');
  }
  if (types.length === 0) throw new Error('No row_partition_types given.');
  let firstDim;
  switch (types[0]) {
    case 'FIRST_DIM_SIZE': firstDim = partitions[0].data[0]; break;
    case 'VALUE_ROWIDS': throw new Error('Cannot handle VALUE_ROWIDS in first dimension.');
    case 'ROW_SPLITS': firstDim = partitionTs[0].shape[0] - 1; break;
    default: throw new Error(`Cannot handle type ${types[0]}`);
  }
  // The partition between dimensions d and d + 1, checked when it is used (as tfjs reads them).
  const first = types[0] === 'FIRST_DIM_SIZE' ? 1 : 0;
  const levels = types.slice(first).map((_, d) => () => {
    if (d + first >= partitions.length) {
      throw new Error(`rowPartitionTypes names ${types.length} partitions but rowPartitionTensors has ${partitions.length}`);
    }
    return partitions[d + first];
  });
  const raggedRank = levels.length;

  checkDefaultShape(defaultT.shape, valuesT.shape);
  const shape = combineShapes(raggedRank, requestedShape(shapeT), valuesT.shape);
  if (shape[0] < 0) shape[0] = firstDim;
  for (let d = 1; d <= raggedRank; d++) if (shape[d] < 0) shape[d] = maxWidth(levels[d - 1]());
  for (const d of shape) if (d < 0) throw new Error(`Dimension ${d} must be >= 0`);

  // strides[d]: elements (of the value element shape) per step in dimension d.
  const strides = new Array(raggedRank + 1).fill(1);
  for (let d = raggedRank - 1; d >= 0; d--) strides[d] = strides[d + 1] * shape[d + 1];
  const dtype = valuesT.dtype;
  const output = newArray(dtype, sizeOf(shape));
  if (strides[0] * shape[0] > 0) {
    if (firstDim < 0) throw new Error('Final length of result must be equal to firstDimension.');
    let positions = Array.from({ length: firstDim }, (_, r) => (r < shape[0] ? r * strides[0] : -1));
    levels.forEach((level, d) => {
      positions = childPositions(level(), positions, strides[d + 1], shape[d + 1]);
    });
    const elementShape = shape.slice(raggedRank + 1);
    const size = sizeOf(elementShape);
    if (output.length > 0) {
      const values = valuesT.dataSync();
      if (positions.length > valuesT.shape[0]) {
        throw new Error(`The row partitions hold ${positions.length} values but values.shape[0] = ${valuesT.shape[0]}`);
      }
      const def = defaultT.dataSync();
      if (def.length === 1) {
        output.fill(def[0]);
      } else {
        const element = broadcastDefault(def, defaultT.shape, elementShape);
        for (let at = 0; at < output.length; at += size) output.set(element, at);
      }
      positions.forEach((p, i) => {
        if (p >= 0) output.set(values.subarray(i * size, (i + 1) * size), p * size);
      });
    }
  }
  return creation.tensor(output, shape, dtype);
}

function raggedTensorToTensor(shape, values, defaultValue, rowPartitionTensors, rowPartitionTypes) {
  const op = 'raggedTensorToTensor';
  return withMany(op, [[shape, 'shape', 'int32'], [values, 'values']], ([sh, val]) => {
    const partitionArgs = tensorList(rowPartitionTensors, 'rowPartitionTensors', op)
      .map((t, i) => [t, `tensors${i}`, 'int32']);
    return withMany(op, [[defaultValue, 'defaultValue', val.dtype], ...partitionArgs],
      ([def, ...partitions]) => toDense(sh, val, def, partitions, rowPartitionTypes));
  });
}

module.exports = { raggedGather, raggedRange, raggedTensorToTensor };
