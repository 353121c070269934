'use strict';
// Argument conversion shared by the op families: TensorLike arguments become temporary
// tensors (disposed after the op, also when it throws); numbers, lists, axes and dtypes are
// read as tfjs reads them and checked here, so that nothing reaches the native side in a form
// its converters would refuse with their own texts or truncate. Shape, dtype and axis ranges
// against the tensors are validated natively, once.
const { types } = require('node:util');
const { Tensor } = require('../tensor');
const { convertToTensor, inferDtype, isTensorLikeValue } = require('../convert');

// Converts `x` when it is not a Tensor, runs `run(t)`, then disposes the conversion.
function withOne(x, argName, opName, parseAs, run) {
  if (x instanceof Tensor) {
    // A tensor is used as it is, after tfjs's dtype check where the op names one.
    if (parseAs !== 'string_or_numeric') convertToTensor(x, argName, opName, parseAs);
    return run(x);
  }
  const t = convertToTensor(x, argName, opName, parseAs);
  try {
    return run(t);
  } finally {
    t.dispose();
  }
}

// Converts two TensorLike arguments, runs `run(ta, tb)`, then disposes the temporaries the
// conversion made, also when the second conversion or the op throws.
function withTwo(opName, a, aName, aDtype, b, bName, bDtype, run) {
  if (aDtype === 'string_or_numeric') checkStringUpcast(a, b);
  const ta = convertToTensor(a, aName, opName, aDtype);
  let tb;
  try {
    tb = convertToTensor(b, bName, opName, bDtype);
    return run(ta, tb);
  } finally {
    if (ta !== a) ta.dispose();
    if (tb !== undefined && tb !== b) tb.dispose();
  }
}

// tfjs makes a string tensor of a string argument, then cannot upcast the other argument to
// it: its error comes first.
function checkStringUpcast(a, b) {
  const dtypeOf = (x) => (x instanceof Tensor ? x.dtype :
    (x != null && isTensorLikeValue(x) ? inferDtype(x) : null));
  const [da, db] = [dtypeOf(a), dtypeOf(b)];
  if (da !== null && db !== null && (da === 'string') !== (db === 'string')) {
    throw new Error(`Can not upcast ${da} with ${db}`);
  }
}

// Converts several arguments ([value, argName, parseAs] each), runs `run(tensors)`, then
// disposes the conversions, also when a later conversion or `run` throws.
function withMany(opName, args, run) {
  const made = [];
  try {
    const tensors = args.map(([v, name, parseAs]) => {
      const t = convertToTensor(v, name, opName, parseAs);
      if (t !== v) made.push(t);
      return t;
    });
    return run(tensors);
  } finally {
    made.forEach((t) => t.dispose());
  }
}

// Converts a list argument; returns [tensors, ids]. On error, disposes what it converted.
function convertList(list, argName, fnName) {
  if (!Array.isArray(list)) {
    throw new Error(`Argument ${argName} passed to ${fnName} must be a ` +
      '`Tensor[]` or `TensorLike[]`');
  }
  const tensors = new Array(list.length);
  const ids = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    try {
      tensors[i] = convertToTensor(list[i], `${argName}[${i}]`, fnName, 'string_or_numeric');
    } catch (e) {
      disposeTemps(list, tensors, i);
      throw e;
    }
    ids[i] = tensors[i].id;
  }
  return [tensors, ids];
}

function disposeTemps(list, tensors, n) {
  for (let i = 0; i < n; i++) if (tensors[i] !== list[i]) tensors[i].dispose();
}

// A numeric argument as tfjs computes with it: a JavaScript number ('3' is 3, null 0, {} NaN).
const num = (v) => +v;

// A dtype argument: null, like undefined, means the default.
const dtypeArg = (dtype, dflt) => (dtype == null ? dflt : dtype);

function isListLike(v) {
  return v != null && typeof v === 'object' && typeof v.length === 'number';
}

// A list argument (shape, axes, perm, begin, size) as a plain array: tfjs reads typed arrays and
// Proxies of arrays as lists, and the native side takes only arrays.
function listArg(v) {
  if (Array.isArray(v) && !types.isProxy(v)) return v;
  return isListLike(v) ? Array.from(v) : v;
}

// A list of integers for the native side, or `fail(list)` is thrown.
function intList(v, fail) {
  const list = listArg(v);
  if (!Array.isArray(list) || !list.every(Number.isSafeInteger)) throw fail(list);
  return list;
}

// Axes travel to native as integers; anything else (NaN, 1.5, '0') is refused here, where it
// can still be named, instead of being truncated on the way.
function axesArg(axis) {
  if (axis == null) return null;
  const axes = typeof axis === 'number' ? [axis] : listArg(axis);
  if (!Array.isArray(axes) || !axes.every(Number.isSafeInteger)) {
    throw new Error(`All values in axis param must be integers but got axis ${axis}`);
  }
  return axes;
}

// One axis; null and undefined mean `dflt` (tfjs reads a null axis as the first one), where
// there is a default.
function axisArg(axis, dflt) {
  if (axis == null && dflt !== undefined) return dflt;
  if (!Number.isSafeInteger(axis)) throw new Error(`The axis must be an integer but got ${axis}`);
  return axis;
}

// ---- the window arguments of convolutions and pools ----

// A stride, dilation or filter-size argument as a list (a number is a list of one).
function sizes(v) {
  if (typeof v === 'number') return [v];
  const list = listArg(v);
  return Array.isArray(list) ? list.map(num) : [num(v)];
}

// The padding as [kind, values]: '#number', '#explicit' or the string given.
function padArg(pad) {
  if (typeof pad === 'number') return ['#number', [pad]];
  const list = listArg(pad);
  if (Array.isArray(list)) {
    return ['#explicit', list.flatMap((p) => {
      const pair = listArg(p);
      return Array.isArray(pair) ? [num(pair[0]), num(pair[1])] : [NaN, NaN];
    })];
  }
  return [String(pad), []];
}

const rounding = (mode) => (mode == null ? null : String(mode));

module.exports = {
  sizes, padArg, rounding,
  withOne, withTwo, withMany, convertList, disposeTemps, num, dtypeArg, listArg, intList, axesArg, axisArg,
};
