'use strict';
// tf.string: n-grams, splitting, hashing and regex replacement of string tensors. Strings
// live on the host, so these run in JavaScript over the values' bytes, as tfjs's kernels do
// on every backend.
const { readStrings } = require('../tensor');
const { withOne, withTwo } = require('./args');
const { createStrings } = require('../convert');
const creationOps = require('./creation');
const { util } = require('../util');

const creation = () => creationOps;
const utf8 = new TextEncoder();
const bytesOf = (t) => readStrings(t.id);

// The n-grams of each row of a ragged batch of tokens (`data` split at `dataSplits`), padded
// and joined with `separator` as TensorFlow's StringNGrams op; returns the n-grams and their
// row splits.
function stringNGrams(data, dataSplits, separator, nGramWidths, leftPad, rightPad, padWidth,
  preserveShortSequences) {
  return withOne(data, 'data', 'stringNGrams', 'string', (td) => {
    if (td.dtype !== 'string') throw new Error('Data must be of datatype string');
    if (td.shape.length !== 1) throw new Error(`Data must be a vector, saw: ${td.shape}`);
    return withOne(dataSplits, 'dataSplits', 'stringNGrams', 'numeric', (ts) => {
      if (ts.dtype !== 'int32') throw new Error('Data splits must be of datatype int32');
      const [grams, splits] = nGrams(bytesOf(td), ts.dataSync(), utf8.encode(separator), nGramWidths,
        utf8.encode(leftPad), utf8.encode(rightPad), padWidth, preserveShortSequences);
      return {
        nGrams: createStrings(grams, [grams.length]),
        nGramsSplits: creation().tensor(splits, [splits.length], 'int32'),
      };
    });
  });
}

function nGrams(data, splits, sep, widths, leftPad, rightPad, padWidth, preserveShort) {
  const n = data.length;
  if (splits.length > 0) {
    let prev = splits[0];
    if (prev !== 0) throw new Error(`First split value must be 0, got ${prev}`);
    for (let i = 1; i < splits.length; ++i) {
      if (!(splits[i] >= prev && splits[i] <= n)) {
        throw new Error(`Invalid split value ${splits[i]}, must be in [${prev}, ${n}]`);
      }
      prev = splits[i];
    }
    if (prev !== n) throw new Error(`Last split value must be data size. Expected ${n}, got ${prev}`);
  }
  const rows = splits.length - 1;
  const outSplits = new Int32Array(Math.max(splits.length, 0));
  if (n === 0 || splits.length === 0) return [new Array(n).fill(new Uint8Array(0)), outSplits];
  const padOf = (w) => Math.min(padWidth < 0 ? w - 1 : padWidth, w - 1);
  const count = (len, w) => Math.max(0, len + 2 * padOf(w) - w + 1);
  for (let i = 1; i <= rows; ++i) {
    const len = splits[i] - splits[i - 1];
    let k = widths.reduce((acc, w) => acc + count(len, w), 0);
    if (preserveShort && len > 0 && k === 0) k = 1;
    outSplits[i] = outSplits[i - 1] + k;
  }
  const out = new Array(outSplits[rows]);
  // The `num` n-grams of width `w` of the row starting at `start`, from out[at].
  const make = (start, at, num, w) => {
    const pad = padOf(w);
    for (let g = 0; g < num; ++g) {
      const left = Math.max(0, pad - g);
      const right = Math.max(0, pad - (num - (g + 1)));
      const tokens = w - (left + right);
      const from = start + (left > 0 ? 0 : g - pad);
      const parts = [];
      for (let k = 0; k < left; ++k) parts.push(leftPad);
      for (let k = 0; k < tokens; ++k) parts.push(data[from + k]);
      for (let k = 0; k < right; ++k) parts.push(rightPad);
      out[at + g] = join(parts, sep);
    }
  };
  for (let i = 0; i < rows; ++i) {
    let at = outSplits[i];
    const len = splits[i + 1] - splits[i];
    for (const w of widths) {
      const num = count(len, w);
      make(splits[i], at, num, w);
      at += num;
    }
    if (preserveShort && at === outSplits[i] && len > 0) make(splits[i], at, 1, len + 2 * padWidth);
  }
  return [out, outSplits];
}

function join(parts, sep) {
  const size = parts.reduce((a, p) => a + p.length, 0) + Math.max(0, parts.length - 1) * sep.length;
  const out = new Uint8Array(size);
  let at = 0;
  parts.forEach((p, i) => {
    if (i > 0) {
      out.set(sep, at);
      at += sep.length;
    }
    out.set(p, at);
    at += p.length;
  });
  return out;
}

// Splits each string of a vector at any byte of `delimiter` (each character when it is
// empty); returns the tokens as a sparse [batch, maxTokens] tensor: indices, values, shape.
function stringSplit(input, delimiter, skipEmpty = true) {
  return withTwo('stringSplit', input, 'input', 'string', delimiter, 'delimiter', 'string', (ti, tdel) => {
    if (ti.rank !== 1) throw new Error(`Input should be Tensor1D but received shape ${ti.shape}`);
    if (tdel.rank !== 0) throw new Error(`Delimiter should be a scalar but received shape ${tdel.shape}`);
    const delims = bytesOf(tdel)[0];
    const tokens = [];
    const counts = bytesOf(ti).map((s) => {
      const before = tokens.length;
      splitBytes(s, delims, skipEmpty, tokens);
      return tokens.length - before;
    });
    const indices = new Int32Array(tokens.length * 2);
    let c = 0;
    counts.forEach((k, i) => {
      for (let j = 0; j < k; ++j, ++c) {
        indices[2 * c] = i;
        indices[2 * c + 1] = j;
      }
    });
    const { tensor } = creation();
    return {
      indices: tensor(indices, [tokens.length, 2], 'int32'),
      values: createStrings(tokens, [tokens.length]),
      shape: tensor([counts.length, Math.max(0, ...counts)], [2], 'int32'),
    };
  });
}

function splitBytes(s, delims, skipEmpty, out) {
  if (s.length === 0) return;
  if (delims.length === 0) {
    for (let i = 0; i < s.length; ++i) out.push(s.subarray(i, i + 1));
    return;
  }
  let start = 0;
  for (let i = 0; i <= s.length; i++) {
    if (i === s.length || delims.includes(s[i])) {
      if (!skipEmpty || i > start) out.push(s.subarray(start, i));
      start = i + 1;
    }
  }
}

// Each string's 64-bit fingerprint modulo numBuckets (TensorFlow's StringToHashBucketFast).
function stringToHashBucketFast(input, numBuckets) {
  return withOne(input, 'input', 'stringToHashBucketFast', 'string', (t) => {
    if (numBuckets <= 0) throw new Error('Number of buckets must be at least 1');
    const values = bytesOf(t);
    const out = new Int32Array(values.length);
    for (let i = 0; i < values.length; i++) {
      out[i] = util.fingerPrint64(values[i]).modulo(numBuckets).getLowBitsUnsigned();
    }
    return creation().tensor(out, t.shape, 'int32');
  });
}

// JavaScript's String.replace with `new RegExp(pattern)` on each value.
function staticRegexReplace(input, pattern, rewrite, replaceGlobal = true) {
  return withOne(input, 'input', 'staticRegexReplace', 'string', (t) => {
    const re = new RegExp(pattern, replaceGlobal ? 'g' : '');
    return createStrings(t.dataSync().map((s) => s.replace(re, rewrite)), t.shape);
  });
}

const string = { stringNGrams, stringSplit, stringToHashBucketFast, staticRegexReplace };

module.exports = { string };
