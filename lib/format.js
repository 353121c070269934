'use strict';
// Text rendering of tensors, matching tfjs 4.22's Tensor.toString()/print() output.

const MAX_VALS = 20; // more values than this along one axis are abbreviated with '...'
const EDGE_VALS = 3; // values shown at each end of an abbreviated axis
const SIG_DIGITS = 7;

function stridesOf(shape) {
  const rank = shape.length;
  if (rank < 2) return [];
  const strides = new Array(rank - 1);
  strides[rank - 2] = shape[rank - 1];
  for (let i = rank - 3; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

function padRight(s, width) {
  // `width` may be undefined (abbreviated 1-D tensors): then no padding, as in tfjs.
  return width > s.length ? s + ' '.repeat(width - s.length) : s;
}

const fixed = (v) => String(parseFloat(v.toFixed(SIG_DIGITS)));

// One value as tfjs prints it: a complex value is a [real, imaginary] pair, a string quoted.
function valueText(v, dtype) {
  if (Array.isArray(v)) return `${fixed(v[0])} + ${fixed(v[1])}j`;
  if (typeof v === 'string') return `'${v}'`;
  if (dtype === 'bool') return v === 0 ? 'false' : 'true';
  return fixed(v);
}

// Values one element each: a complex tensor's pairs become [real, imaginary] arrays.
function elements(vals, dtype) {
  if (dtype !== 'complex64') return vals;
  const out = new Array(vals.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = [vals[2 * i], vals[2 * i + 1]];
  return out;
}

function columnWidths(vals, shape, dtype, strides) {
  const rank = shape.length;
  const cols = strides.length ? strides[strides.length - 1] : undefined;
  const widths = new Array(cols === undefined ? 0 : cols).fill(0);
  if (rank > 1) {
    const n = vals.length;
    for (let off = 0; off < n; off += cols) {
      for (let j = 0; j < cols; j++) {
        const len = valueText(vals[off + j], dtype).length;
        if (len > widths[j]) widths[j] = len;
      }
    }
  }
  return widths;
}

function rowLines(vals, shape, dtype, strides, widths, isLast) {
  const rank = shape.length;
  const n = shape[0];
  if (rank === 0) {
    // A scalar string prints unquoted, as in tfjs.
    return [dtype === 'bool' || dtype === 'complex64' ? valueText(vals[0], dtype) : String(vals[0])];
  }
  if (rank === 1) {
    const parts = [];
    if (n > MAX_VALS) {
      for (let i = 0; i < EDGE_VALS; i++) parts.push(padRight(valueText(vals[i], dtype), widths[i]));
      parts.push('...');
      for (let i = n - EDGE_VALS; i < n; i++) parts.push(padRight(valueText(vals[i], dtype), widths[i]));
    } else {
      for (let i = 0; i < n; i++) parts.push(padRight(valueText(vals[i], dtype), widths[i]));
    }
    return ['[' + parts.join(', ') + ']'];
  }
  const subShape = shape.slice(1);
  const subStrides = strides.slice(1);
  const stride = strides[0];
  const lines = [];
  const pushRow = (i, last) => {
    const sub = vals.subarray ? vals.subarray(i * stride, (i + 1) * stride) : vals.slice(i * stride, (i + 1) * stride);
    const subLines = rowLines(sub, subShape, dtype, subStrides, widths, last);
    for (let k = 0; k < subLines.length; k++) lines.push(subLines[k]);
  };
  if (n > MAX_VALS) {
    for (let i = 0; i < EDGE_VALS; i++) pushRow(i, false);
    lines.push('...');
    for (let i = n - EDGE_VALS; i < n; i++) pushRow(i, i === n - 1);
  } else {
    for (let i = 0; i < n; i++) pushRow(i, i === n - 1);
  }
  const sep = rank === 2 ? ',' : '';
  lines[0] = '[' + (n > 0 ? lines[0] + sep : '');
  for (let i = 1; i < lines.length - 1; i++) lines[i] = ' ' + lines[i] + sep;
  let rowSep = ',\n';
  for (let i = 2; i < rank; i++) rowSep += '\n';
  lines[lines.length - 1] = ' ' + lines[lines.length - 1] + ']' + (isLast ? '' : rowSep);
  return lines;
}

function formatTensor(values, shape, dtype, verbose) {
  const vals = elements(values, dtype);
  const strides = stridesOf(shape);
  const widths = columnWidths(vals, shape, dtype, strides);
  const out = ['Tensor'];
  if (verbose) {
    out.push(`  dtype: ${dtype}`);
    out.push(`  rank: ${shape.length}`);
    out.push(`  shape: [${shape}]`);
    out.push('  values:');
  }
  out.push(rowLines(vals, shape, dtype, strides, widths, true).map((l) => '    ' + l).join('\n'));
  return out.join('\n');
}

module.exports = { formatTensor, stridesOf };
