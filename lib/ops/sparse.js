'use strict';
// tf.sparse: the SparseTensor ops of converted graph models. Their work is index bookkeeping
// on small int32 tensors, which tfjs does on the host on every backend; so does tidytensor,
// with tfjs's checks and texts.
const { withMany: withConverted } = require('./args');

const creationOps = require('./creation');

const creation = () => creationOps;

const shapeText = (t) => `${t.shape}`;

// Segment sums (or means) of the rows `indices` picks from `data`, by sorted `segmentIds`;
// segments with no row are 0.
function segmentReduce(op, data, indices, segmentIds, mean) {
  return withConverted(op, [[data, 'data'], [indices, 'indices', 'int32'], [segmentIds, 'segmentIds', 'int32']],
    ([x, idx, seg]) => {
      if (x.rank < 1) throw new Error('Data should be at least 1 dimensional but received scalar');
      if (idx.rank !== 1) throw new Error(`Indices should be Tensor1D but received shape\n         ${shapeText(idx)}`);
      if (seg.rank !== 1) throw new Error(`Segment ids should be Tensor1D but received shape\n         ${shapeText(seg)}`);
      if (idx.shape[0] !== seg.shape[0]) throw new Error('segmentIds and indices should have same size.');
      const [values, ind, ids] = [x.dataSync(), idx.dataSync(), seg.dataSync()];
      const rows = x.shape[0];
      const cols = rows > 0 ? values.length / rows : x.shape.slice(1).reduce((a, b) => a * b, 1);
      const n = ind.length;
      const outRows = n > 0 ? ids[n - 1] + 1 : 0;
      if (outRows < 0 || (n > 0 && outRows === 0)) throw new Error('segment ids must be >= 0');
      const out = x.dtype === 'int32' ? new Int32Array(outRows * cols) : new Float32Array(outRows * cols);
      for (let start = 0; start < n;) {
        let end = start + 1;
        while (end < n && ids[end] === ids[start]) end++;
        if (end < n && ids[start] >= ids[end]) throw new Error('segment ids are not increasing');
        const s = ids[start];
        if (s < 0 || s >= outRows) {
          throw new Error(`Segment id ${s} out of range [0, ${outRows}), possibly because segmentIds input is not sorted.`);
        }
        for (let i = start; i < end; i++) {
          if (ind[i] < 0 || ind[i] >= rows) throw new Error(`Bad: indices[${i}] == ${ind[i]} out of range [0, ${rows})`);
          for (let j = 0; j < cols; j++) out[s * cols + j] += values[ind[i] * cols + j];
        }
        if (mean) for (let j = 0; j < cols; j++) out[s * cols + j] /= end - start;
        start = end;
      }
      return creation().tensor(out, [outRows, ...x.shape.slice(1)], x.dtype === 'int32' ? 'int32' : 'float32');
    });
}

function sparseSegmentSum(data, indices, segmentIds) {
  return segmentReduce('sparseSegmentSum', data, indices, segmentIds, false);
}

function sparseSegmentMean(data, indices, segmentIds) {
  return segmentReduce('sparseSegmentMean', data, indices, segmentIds, true);
}

// The indices of a SparseTensor of `inputShape` renumbered for `newShape` (one -1 allowed).
function sparseReshape(inputIndices, inputShape, newShape) {
  const op = 'sparseReshape';
  return withConverted(op, [[inputIndices, 'inputIndices', 'int32'], [inputShape, 'inputShape', 'int32'],
    [newShape, 'newShape', 'int32']], ([idx, ish, nsh]) => {
    if (idx.rank !== 2) throw new Error(`Input indices should be Tensor2D but received shape\n        ${shapeText(idx)}`);
    if (ish.rank !== 1) throw new Error(`Input shape should be Tensor1D but received shape ${shapeText(ish)}`);
    if (nsh.rank !== 1) throw new Error(`New shape should be Tensor1D but received shape ${shapeText(nsh)}`);
    const [ind, inShape, target] = [idx.dataSync(), Array.from(ish.dataSync()), Array.from(nsh.dataSync())];
    const size = (s) => s.reduce((a, b) => a * b, 1);
    const dense = size(inShape);
    const out = [];
    let product = 1;
    let unknown = -1;
    target.forEach((d, i) => {
      if (d === -1) {
        if (unknown !== -1) throw new Error(`only one output dimension may be -1, not both ${unknown} and ${i}`);
        unknown = i;
        out.push(1);
      } else {
        if (d < 0) throw new Error(`size ${i} must be non-negative, not ${d}`);
        product *= d;
        out.push(d);
      }
    });
    if (unknown !== -1) {
      if (product <= 0) {
        throw new Error('reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are non-zero');
      }
      const missing = Math.trunc(dense / product);
      if (product * missing !== dense) {
        throw new Error(`Input to reshape is a SparseTensor with ${dense}\n  dense values, but the requested shape requires a multiple of ${size(out)}. inputShape=${inShape} outputShape= ${out}`);
      }
      out[unknown] = missing;
    }
    if (size(out) !== dense) {
      throw new Error(`Input to reshape is a tensor with ${dense} dense values, but the requested shape has ${size(out)}. inputShape=${inShape} outputShape=${out}`);
    }
    const strides = (s) => s.map((_, i) => size(s.slice(i + 1)));
    const [sin, sout] = [strides(inShape), strides(out)];
    const nnz = idx.shape[0];
    const result = new Int32Array(nnz * out.length);
    for (let i = 0; i < nnz; i++) {
      let flat = 0;
      for (let j = 0; j < inShape.length; j++) flat += ind[i * inShape.length + j] * sin[j];
      for (let j = 0; j < out.length; j++) {
        result[i * out.length + j] = Math.trunc(flat / sout[j]);
        flat %= sout[j];
      }
    }
    return {
      outputIndices: creation().tensor(result, [nnz, out.length], 'int32'),
      outputShape: creation().tensor1d(out, 'int32'),
    };
  });
}

// Rows of a SparseTensor with no value get one at column 0 with `defaultValue`; the entries are
// put in row order (stable within a row).
function sparseFillEmptyRows(indices, values, denseShape, defaultValue) {
  const op = 'sparseFillEmptyRows';
  return withConverted(op, [[indices, 'indices', 'int32'], [values, 'values'], [denseShape, 'denseShape', 'int32']],
    ([idx, val, dsh]) => withConverted(op, [[defaultValue, 'defaultValue', val.dtype]], ([def]) => {
      if (idx.rank !== 2) throw new Error(`Indices should be Tensor2D but received shape\n        ${shapeText(idx)}`);
      if (val.rank !== 1) throw new Error(`Values should be Tensor1D but received shape ${shapeText(val)}`);
      if (dsh.rank !== 1) throw new Error(`Dense shape should be Tensor1D but received shape ${shapeText(dsh)}`);
      if (def.rank !== 0) throw new Error(`Default value should be a scalar but received shape ${shapeText(def)}`);
      const [ind, v, dense] = [idx.dataSync(), val.dataSync(), dsh.dataSync()];
      const [count, rank, rows] = [idx.shape[0], idx.shape[1], dense[0]];
      const C = creation();
      const result = (outIdx, outVals, empty, reverse) => ({
        outputIndices: C.tensor(outIdx, [outVals.length, rank], 'int32'),
        outputValues: C.tensor(outVals, [outVals.length], val.dtype),
        emptyRowIndicator: C.tensor(Uint8Array.from(empty, Boolean), [empty.length], 'bool'),
        reverseIndexMap: C.tensor(Int32Array.from(reverse), [reverse.length], 'int32'),
      });
      if (rows === 0) {
        if (count !== 0) throw new Error(`Received SparseTensor with denseShape[0] = 0 but\n  indices.shape[0] = ${count}`);
        return result(new Int32Array(0), [], [], []);
      }
      const perRow = new Array(rows).fill(0);
      let ordered = true;
      for (let i = 0; i < count; i++) {
        const r = ind[i * rank];
        if (r < 0) throw new Error(`indices(${i}, 0) is invalid: ${r} < 0`);
        if (r >= rows) throw new Error(`indices(${i}, 0) is invalid: ${r} >= ${rows}`);
        perRow[r]++;
        if (i > 0 && r < ind[(i - 1) * rank]) ordered = false;
      }
      const empty = perRow.map((n) => n === 0);
      if (ordered && !empty.includes(true)) {
        return result(ind, Array.from(v), empty, Array.from({ length: count }, (_, i) => i));
      }
      // Row r's entries start at first[r]; an empty row gets one slot.
      const first = [];
      let total = 0;
      for (let r = 0; r < rows; r++) { first.push(total); total += Math.max(perRow[r], 1); }
      const outIdx = new Int32Array(total * rank);
      const outVals = new Array(total).fill(0);
      const filled = new Array(rows).fill(0);
      const reverse = new Array(count);
      for (let i = 0; i < count; i++) {
        const r = ind[i * rank];
        const at = first[r] + filled[r]++;
        for (let j = 0; j < rank; j++) outIdx[at * rank + j] = ind[i * rank + j];
        outVals[at] = v[i];
        reverse[i] = at;
      }
      const fill = def.dataSync()[0];
      for (let r = 0; r < rows; r++) {
        if (filled[r] === 0) {
          outIdx[first[r] * rank] = r;
          outVals[first[r]] = fill;
        }
      }
      return result(outIdx, outVals, empty, reverse);
    }));
}

const sparse = { sparseFillEmptyRows, sparseReshape, sparseSegmentMean, sparseSegmentSum };

module.exports = { sparse };
