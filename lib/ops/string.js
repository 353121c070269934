'use strict';
// tf.string: n-grams, splitting, hashing and regex replacement of string tensors, on the host
// as tfjs's kernels run them (crates/core/src/ops/string_ops.rs); this reads the arguments.
const native = require('../native');
const { wrap, wrapId } = require('../tensor');
const { withOne, withTwo } = require('./args');

// A string argument as TextEncoder reads one (undefined is empty).
const text = (v) => (v === undefined ? '' : String(v));

// The n-grams of each row of a ragged batch of tokens (`data` split at `dataSplits`), padded
// and joined with `separator` as TensorFlow's StringNGrams op; returns the n-grams and their
// row splits.
function stringNGrams(data, dataSplits, separator, nGramWidths, leftPad, rightPad, padWidth,
  preserveShortSequences) {
  return withOne(data, 'data', 'stringNGrams', 'string', (td) =>
    withOne(dataSplits, 'dataSplits', 'stringNGrams', 'numeric', (ts) => {
      const [grams, splits] = native.stringNGrams(td.id, ts.id, text(separator), Array.from(nGramWidths, Number),
        text(leftPad), text(rightPad), Number(padWidth), !!preserveShortSequences);
      return { nGrams: wrapId(grams), nGramsSplits: wrapId(splits) };
    }));
}

// Splits each string of a vector at any byte of `delimiter` (each character when it is
// empty); returns the tokens as a sparse [batch, maxTokens] tensor: indices, values, shape.
function stringSplit(input, delimiter, skipEmpty = true) {
  return withTwo('stringSplit', input, 'input', 'string', delimiter, 'delimiter', 'string', (ti, tdel) => {
    const [indices, values, shape] = native.stringSplit(ti.id, tdel.id, !!skipEmpty);
    return { indices: wrapId(indices), values: wrapId(values), shape: wrapId(shape) };
  });
}

// Each string's 64-bit fingerprint modulo numBuckets (TensorFlow's StringToHashBucketFast).
function stringToHashBucketFast(input, numBuckets) {
  return withOne(input, 'input', 'stringToHashBucketFast', 'string', (t) =>
    wrap(native.stringToHashBucketFast(t.id, Number(numBuckets))));
}

// JavaScript's String.replace with `new RegExp(pattern)` on each value.
function staticRegexReplace(input, pattern, rewrite, replaceGlobal = true) {
  return withOne(input, 'input', 'staticRegexReplace', 'string', (t) =>
    // (new RegExp(undefined) matches the empty string, as new RegExp('') does.)
    wrap(native.staticRegexReplace(t.id, pattern === undefined ? '' : String(pattern), String(rewrite),
      !!replaceGlobal)));
}

const string = { stringNGrams, stringSplit, stringToHashBucketFast, staticRegexReplace };

module.exports = { string };
