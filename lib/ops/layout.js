'use strict';
// Shapes and indexing: reshape, expandDims, squeeze, transpose, concat, stack, slice, gather,
// clone, and the chained reshapes (flatten, asScalar, as1D ... as5D, reshapeAs).
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { withOne, withTwo, convertList, disposeTemps, listArg, intList, axesArg, axisArg } =
  require('./args');
const { tidy } = require('../engine');
const creationOps = require('./creation');
const elementwise = require('./elementwise');
const reduce = require('./reduce');
const { scatter_util } = require('../internals/scatter_util');
const { stridedSliceInfo } = require('../internals/slice_util');

const SON = 'string_or_numeric';

// tfjs makes tensors of fractional or NaN dimensions from such shapes; they are refused here.
const notAShape = (shape) => new Error('The new shape must be a list of integers (-1 for one ' +
  `inferred dimension) but got [${shape}]`);

const reshape = (x, shape) => withOne(x, 'x', 'reshape', SON,
  (t) => wrap(native.reshape(t.id, intList(shape, notAShape))));

const expandDims = (x, axis = 0) =>
  withOne(x, 'x', 'expandDims', SON, (t) => wrap(native.expandDims(t.id, axisArg(axis, 0))));

function squeeze(x, axis) {
  return withOne(x, 'x', 'squeeze', SON, (t) => {
    const axes = axis == null || (Array.isArray(axis) && axis.length === 0) ? null : axesArg(axis);
    return wrap(native.squeeze(t.id, axes));
  });
}

// tfjs reads the entries of perm as numbers ('1' is 1) and requires them in [0, rank).
function permArg(perm, rank) {
  if (perm == null) return null;
  const list = listArg(perm);
  if (!Array.isArray(list)) throw new Error(`perm must be a list of axes but got ${perm}`);
  const p = Array.from(list, Number);
  if (p.length === rank && !p.every((a) => a >= 0 && a < rank)) {
    throw new Error(`All entries in 'perm' must be between 0 and ${rank - 1} but got ${p}`);
  }
  if (!p.every(Number.isSafeInteger)) throw new Error(`All entries in 'perm' must be integers but got ${p}`);
  return p;
}

// With `conjugate`, a complex tensor's imaginary parts change sign (tfjs's conjugate transpose).
const transpose = (x, perm, conjugate) => withOne(x, 'x', 'transpose', 'numeric', (t) => {
  const y = wrap(native.transpose(t.id, permArg(perm, t.shape.length)));
  if (!conjugate || t.dtype !== 'complex64') return y;
  // complex(real(y), -imag(y)) on the kernels: lib/ops/spectral.js sits above this module.
  const part = (imaginary) => wrap(native.complexPart(y.id, imaginary));
  return tidy(() => wrap(native.complex(part(false).id, elementwise.neg(part(true)).id)));
});

function concat(tensors, axis = 0) {
  if (tensors == null || !(tensors.length >= 1)) {
    throw new Error('Pass at least one tensor to concat');
  }
  const [ts, ids] = convertList(tensors, 'tensors', 'concat');
  try {
    return wrap(native.concat(ids, axisArg(axis, 0)));
  } finally {
    disposeTemps(tensors, ts, ts.length);
  }
}

function stack(tensors, axis = 0) {
  const [ts, ids] = convertList(tensors, 'tensors', 'stack');
  try {
    return wrap(native.stack(ids, axisArg(axis, 0)));
  } finally {
    disposeTemps(tensors, ts, ts.length);
  }
}

// tfjs's parseSliceParams: begin/size may be a number or shorter than the rank. Entries must
// be integers (tfjs slices at fractional offsets into tensors of fractional shapes).
function sliceBegin(begin, rank) {
  let out;
  if (typeof begin === 'number') {
    out = new Array(rank).fill(0);
    out[0] = begin;
  } else {
    const b = listArg(begin);
    if (!Array.isArray(b)) throw new Error(`slice() begin must be a number or a list of numbers but got ${String(begin)}`);
    out = new Array(rank);
    for (let i = 0; i < rank; i++) out[i] = i < b.length ? b[i] : 0;
    for (let i = rank; i < b.length; i++) out.push(b[i]);
  }
  for (let i = 0; i < out.length; i++) {
    if (out[i] === -1) throw new Error('slice() does not support negative begin indexing.');
    if (!Number.isSafeInteger(out[i])) {
      throw new Error(`Error in slice${rank}D: begin[${i}] must be an integer but got ${out[i]}`);
    }
  }
  return out;
}

function sliceSize(size, rank) {
  let out;
  if (size == null) {
    out = new Array(rank).fill(-1);
  } else if (typeof size === 'number') {
    out = new Array(rank).fill(-1);
    out[0] = size;
  } else {
    const s = listArg(size);
    if (!Array.isArray(s)) throw new Error(`slice() size must be a number or a list of numbers but got ${String(size)}`);
    out = s.length < rank ? s.concat(new Array(rank - s.length).fill(-1)) : s.slice();
  }
  for (let i = 0; i < out.length; i++) {
    if (!(out[i] >= 0) && out[i] !== -1) {
      throw new Error(`Negative size values should be exactly -1 but got ${out[i]} ` +
        `for the slice() size at index ${i}.`);
    }
    if (!Number.isSafeInteger(out[i])) {
      throw new Error(`Tensor must have a shape comprised of positive integers but got shape [${out}].`);
    }
  }
  return out;
}

function slice(x, begin, size) {
  return withOne(x, 'x', 'slice', SON, (t) => {
    const rank = t.shape.length;
    if (rank === 0) throw new Error('Slicing scalar is not possible');
    return wrap(native.slice(t.id, sliceBegin(begin, rank), sliceSize(size, rank)));
  });
}

const gather = (x, indices, axis = 0, batchDims = 0) =>
  withTwo('gather', x, 'x', 'numeric', indices, 'indices', 'int32',
    (tx, ti) => wrap(native.gather(tx.id, ti.id, axisArg(axis, 0), axisArg(batchDims, 0))));

// The gather of ops that take strings too (gatherND, unique, stridedSlice): tfjs's `gather`
// refuses string tensors, its kernel does not.
const gatherAny = (t, ti, axis) => wrap(native.gather(t.id, ti.id, axis, 0));

function clone(x) {
  if (x instanceof Tensor) return wrap(native.clone(x.id));
  // Converting a TensorLike already makes a fresh tensor of its own.
  return withOne(x, 'x', 'clone', SON, (t) => wrap(native.clone(t.id)));
}

// ---- ops tfjs runs as kernels of their own, composed here of the kernels above ----

const creation = () => creationOps;

// The pieces of x along `axis` (tfjs's Unpack).
function unstack(x, axis = 0) {
  return withOne(x, 'x', 'unstack', SON, (t) => {
    const rank = t.shape.length;
    if (!(axis >= -rank && axis < rank)) throw new Error(`Axis = ${axis} is not in [-${rank}, ${rank})`);
    const a = axisArg(axis < 0 ? axis + rank : axis);
    const size = t.shape.map((d, i) => (i === a ? 1 : d));
    const outShape = t.shape.filter((_, i) => i !== a);
    return tidy(() => {
      const out = [];
      for (let k = 0; k < t.shape[a]; k++) {
        const begin = t.shape.map((_, i) => (i === a ? k : 0));
        out.push(reshape(slice(t, begin, size), outShape));
      }
      return out;
    });
  });
}

// tfjs's prepareSplitSize: a count that divides the axis, or sizes with at most one -1.
function splitSizes(dim, numOrSizeSplits) {
  if (typeof numOrSizeSplits === 'number') {
    if (dim % numOrSizeSplits !== 0) throw new Error('Number of splits must evenly divide the axis.');
    return new Array(numOrSizeSplits).fill(dim / numOrSizeSplits);
  }
  const sizes = Array.from(listArg(numOrSizeSplits));
  if (sizes.filter((v) => v === -1).length > 1) {
    throw new Error('There should be only one negative value in split array.');
  }
  const neg = sizes.indexOf(-1);
  if (neg !== -1) sizes[neg] = dim - sizes.reduce((a, b) => (b > 0 ? a + b : a), 0);
  if (dim !== sizes.reduce((a, b) => a + b, 0)) {
    throw new Error('The sum of sizes must match the size of the axis dimension.');
  }
  if (!sizes.every((v) => Number.isSafeInteger(v) && v >= 0)) {
    throw new Error(`split sizes must be non-negative integers but got ${sizes}`);
  }
  return sizes;
}

function split(x, numOrSizeSplits, axis = 0) {
  return withOne(x, 'x', 'split', 'numeric', (t) => {
    const rank = t.shape.length;
    const a = axesArg(axis)[0];
    if (!(a >= -rank && a < rank)) {
      throw new Error(`All values in axis param must be in range [-${rank}, ${rank}) but got axis ${axis}`);
    }
    const ax = a < 0 ? a + rank : a;
    const sizes = splitSizes(t.shape[ax], numOrSizeSplits);
    return tidy(() => {
      const out = [];
      let at = 0;
      for (const n of sizes) {
        out.push(slice(t, t.shape.map((_, i) => (i === ax ? at : 0)), t.shape.map((d, i) => (i === ax ? n : d))));
        at += n;
      }
      return out;
    });
  });
}

// `t` repeated `reps[i]` times along each axis i, by concatenation.
function tileBy(t, reps) {
  let y = t;
  reps.forEach((r, axis) => {
    if (r === 1) return;
    if (r === 0) {
      y = slice(y, y.shape.map(() => 0), y.shape.map((d, i) => (i === axis ? 0 : d)));
    } else {
      y = concat(new Array(r).fill(y), axis);
    }
  });
  return y === t ? clone(t) : y;
}

function tile(x, reps) {
  return withOne(x, 'x', 'tile', SON, (t) => {
    const r = listArg(reps);
    if (!Array.isArray(r) || t.shape.length !== r.length) {
      throw new Error(`Error in transpose: rank of input ${t.shape.length} must match length of reps ${reps}.`);
    }
    if (!r.every((v) => Number.isSafeInteger(v) && v >= 0)) {
      throw new Error(`tile: reps must be non-negative integers but got ${reps}`);
    }
    return tidy(() => tileBy(t, r));
  });
}

function broadcastTo(x, shape) {
  // (tfjs names the arguments this way round in its messages)
  return withOne(x, 'broadcastTo', 'x', 'numeric', (t) => {
    const target = listArg(shape);
    require('../convert').assertShape(target);
    const xShape = t.shape;
    if (target.length < xShape.length) {
      throw new Error(`broadcastTo(): shape.length=${target.length} < input.rank=${xShape.length}.`);
    }
    const padded = new Array(target.length - xShape.length).fill(1).concat(xShape);
    const reps = target.map((d, i) => {
      if (padded[i] === d) return 1;
      if (padded[i] !== 1) throw new Error(`broadcastTo(): [${xShape}] cannot be broadcast to [${target}].`);
      return d;
    });
    return tidy(() => tileBy(reshape(t, padded), reps));
  });
}

function reverse(x, axis) {
  return withOne(x, 'x', 'reverse', 'numeric', (t) => {
    const rank = t.shape.length;
    const axes = axis == null ? [...Array(rank).keys()] : axesArg(axis);
    for (const a of axes) {
      if (!(a >= -rank && a < rank)) {
        throw new Error(`All values in axis param must be in range [-${rank}, ${rank}) but got axis ${axis}`);
      }
    }
    return tidy(() => {
      let y = t;
      for (const a of new Set(axes.map((a) => (a < 0 ? a + rank : a)))) {
        const n = t.shape[a];
        if (n > 1) y = gather(y, creation().range(n - 1, -1, -1, 'int32'), a);
      }
      return y === t ? clone(t) : y;
    });
  });
}

function pad(x, paddings, constantValue = 0) {
  return withOne(x, 'x', 'pad', 'numeric', (t) => {
    if (t.shape.length === 0) throw new Error('pad(scalar) is not defined. Pass non-scalar to pad');
    const p = listArg(paddings);
    const pairs = Array.isArray(p) ? p.map(listArg) : null;
    if (!pairs || pairs.length !== t.shape.length || !pairs.every((q) => Array.isArray(q) && q.length === 2 &&
        q.every((v) => Number.isSafeInteger(v) && v >= 0))) {
      throw new Error('pad: paddings must be [before, after] pairs of non-negative integers, one ' +
        `per dimension (${t.shape.length}), but got ${JSON.stringify(paddings)}`);
    }
    return tidy(() => {
      let y = t;
      pairs.forEach(([before, after], axis) => {
        if (before === 0 && after === 0) return;
        const side = (n) => creation().fill(y.shape.map((d, i) => (i === axis ? n : d)), constantValue, t.dtype);
        y = concat([side(before), y, side(after)], axis);
      });
      return y === t ? clone(t) : y;
    });
  });
}

function mirrorPad(x, paddings, mode) {
  if (mode !== 'reflect' && mode !== 'symmetric') {
    throw new Error(`Invalid mode. Mode must be either reflect or symmetric. Got ${mode}.`);
  }
  return withOne(x, 'x', 'mirrorPad', 'numeric', (t) => {
    const rank = t.shape.length;
    if (rank === 0) throw new Error('mirrorPad(scalar) is not defined. Pass non-scalar to mirrorPad');
    const p = listArg(paddings);
    if (p.length !== rank) throw new Error(`Padding doesn't match input. Must be ${rank}. Got ${p.length}.`);
    const offset = mode === 'reflect' ? 1 : 0;
    const pairs = p.map((q, i) => {
      const pair = listArg(q);
      if (pair.length !== 2) throw new Error('Invalid number of paddings. Must be length of 2 each.');
      if (!(pair[0] >= 0 && pair[0] <= t.shape[i] - offset && pair[1] >= 0 && pair[1] <= t.shape[i] - offset)) {
        throw new Error(`Padding in dimension ${i} cannot be greater than or equal to ` +
          `${t.shape[i] - offset} or less than 0 for input of shape ${t.shape}`);
      }
      if (!pair.every(Number.isSafeInteger)) throw new Error(`mirrorPad: paddings must be integers but got ${pair}`);
      return pair;
    });
    return tidy(() => {
      let y = t;
      pairs.forEach(([before, after], axis) => {
        if (before === 0 && after === 0) return;
        const n = t.shape[axis];
        // The source row of each output row: mirrored about the edges (with or without them).
        const idx = new Int32Array(before + n + after);
        for (let k = 0; k < idx.length; k++) {
          const q = k - before;
          if (q < 0) idx[k] = mode === 'reflect' ? -q : -q - 1;
          else if (q >= n) idx[k] = mode === 'reflect' ? 2 * (n - 1) - q : 2 * n - 1 - q;
          else idx[k] = q;
        }
        y = gather(y, creation().tensor(idx, [idx.length], 'int32'), axis);
      });
      return y === t ? clone(t) : y;
    });
  });
}

// The coordinates of the true elements, [n, rank] int32 (reads the condition's values).
async function whereAsync(condition) {
  const t = require('../convert').convertToTensor(condition, 'condition', 'whereAsync', 'bool');
  try {
    const vals = await t.data();
    const rank = t.shape.length;
    const strides = t.strides;
    const coords = [];
    let n = 0;
    for (let i = 0; i < vals.length; i++) {
      if (!vals[i]) continue;
      n++;
      let r = i;
      for (let d = 0; d < rank - 1; d++) {
        coords.push(Math.floor(r / strides[d]));
        r %= strides[d];
      }
      if (rank > 0) coords.push(r);
    }
    return creation().tensor(Int32Array.from(coords), [n, rank], 'int32');
  } finally {
    if (t !== condition) t.dispose();
  }
}

async function booleanMaskAsync(tensor, mask, axis) {
  const conv = require('../convert').convertToTensor;
  const t = conv(tensor, 'tensor', 'boolMask');
  let m;
  try {
    m = conv(mask, 'mask', 'boolMask', 'bool');
    const from = axis == null ? 0 : axis;
    const k = m.shape.length;
    if (!(k > 0)) throw new Error('mask cannot be scalar');
    const lead = t.shape.slice(from, from + k);
    if (lead.length !== m.shape.length || lead.some((d, i) => d !== m.shape[i])) {
      throw new Error(`mask's shape must match the first K dimensions of tensor's shape, Shapes ${lead} ` +
        `and ${m.shape} must match`);
    }
    const leading = lead.reduce((a, b) => a * b, 1);
    const flat = reshape(t, t.shape.slice(0, from).concat([leading], t.shape.slice(from + k)));
    const flatMask = reshape(m, [-1]);
    const positions = await whereAsync(flatMask);
    const indices = squeeze(positions, [1]);
    const res = gather(flat, indices, from);
    for (const u of [flat, flatMask, positions, indices]) u.dispose();
    return res;
  } finally {
    if (t !== tensor) t.dispose();
    if (m !== undefined && m !== mask) m.dispose();
  }
}

// The values of x not in y, and their indices (reads both tensors' values).
async function setdiff1dAsync(x, y) {
  const conv = require('../convert').convertToTensor;
  const tx = conv(x, 'x', 'setdiff1d');
  let ty;
  try {
    ty = conv(y, 'y', 'setdiff1d');
    if (tx.dtype !== ty.dtype) {
      throw new Error(`x and y should have the same dtype, but got x (${tx.dtype}) and y (${ty.dtype}).`);
    }
    if (tx.shape.length !== 1) throw new Error(`x should be 1D tensor, but got x (${tx.shape}).`);
    if (ty.shape.length !== 1) throw new Error(`y should be 1D tensor, but got y (${ty.shape}).`);
    const [xv, yv] = [await tx.data(), await ty.data()];
    const ySet = new Set(yv);
    const keep = [];
    for (let i = 0; i < xv.length; i++) if (!ySet.has(xv[i])) keep.push(i);
    const values = xv.constructor.from(keep, (i) => xv[i]);
    return [creation().tensor(values, [keep.length], tx.dtype),
      creation().tensor(Int32Array.from(keep), [keep.length], 'int32')];
  } finally {
    if (tx !== x) tx.dispose();
    if (ty !== undefined && ty !== y) ty.dispose();
  }
}

// gatherND: the slices of x at the index tuples of the last axis of `indices` (a flat gather).
function gatherND(x, indices) {
  const conv = require('../convert').convertToTensor;
  const ti = conv(indices, 'indices', 'gatherND', 'int32');
  let tx;
  try {
    tx = conv(x, 'x', 'gatherND', SON);
    const [rank, irank] = [tx.shape.length, ti.shape.length];
    if (rank < 1) throw new Error(`tf.gatherND() expects the input to be rank 1 or higher, but the rank was ${rank}.`);
    if (irank < 1) throw new Error(`tf.gatherND() expects the indices to be rank 1 or higher, but the rank was ${irank}.`);
    const k = ti.shape[irank - 1];
    if (k > rank) throw new Error(`index innermost dimension length must be <= tensor rank; saw: ${k} vs. ${rank}`);
    if (tx.size === 0) throw new Error(`Requested more than 0 entries, but input is empty. Input shape: ${tx.shape}.`);
    const rest = tx.shape.slice(k);
    const sliceSize = rest.reduce((a, b) => a * b, 1);
    const outShape = ti.shape.slice(0, -1).concat(rest);
    const strides = tx.strides.map((s) => s / sliceSize).concat([1]).slice(0, k);
    return tidy(() => {
      const E = elementwise;
      const R = reduce;
      const flatIdx = R.sum(E.mul(ti, creation().tensor(Int32Array.from(strides), [k], 'int32')), -1);
      const rows = reshape(tx, [tx.size / sliceSize, sliceSize]);
      return reshape(gatherAny(rows, reshape(flatIdx, [-1]), 0), outShape);
    });
  } finally {
    if (ti !== indices) ti.dispose();
    if (tx !== undefined && tx !== x) tx.dispose();
  }
}

// tfjs's array_ops_util: the reshape, permutation and final shape of space <-> batch moves.
function spaceBatchShapes(shape, block, prod, toSpace) {
  const m = block.length;
  const reshaped = toSpace ? [...block, shape[0] / prod, ...shape.slice(1)] :
    [shape[0], ...block.flatMap((b, i) => [shape[i + 1] / b, b]), ...shape.slice(m + 1)];
  const perm = [];
  if (toSpace) {
    perm.push(m);
    for (let i = m + 1; i < reshaped.length; i++) {
      if (i <= 2 * m) perm.push(i, i - (m + 1));
      else perm.push(i);
    }
  } else {
    const before = [];
    const after = [];
    for (let i = 1; i < reshaped.length; i++) (i >= 2 * m + 1 || i % 2 === 1 ? after : before).push(i);
    perm.push(...before, 0, ...after);
  }
  const final = [toSpace ? shape[0] / prod : shape[0] * prod];
  for (let i = 1; i < shape.length; i++) {
    if (i <= m) final.push(toSpace ? block[i - 1] * shape[i] : shape[i] / block[i - 1]);
    else final.push(shape[i]);
  }
  return { reshaped, perm, final };
}

function spaceToBatchND(x, blockShape, paddings) {
  return withOne(x, 'x', 'spaceToBatchND', 'numeric', (t) => {
    const block = Array.from(listArg(blockShape));
    const pads = Array.from(listArg(paddings), listArg);
    if (!(t.rank >= 1 + block.length)) {
      throw new Error(`input rank ${t.rank} should be > than [blockShape] ${block.length}`);
    }
    if (pads.length !== block.length) {
      throw new Error(`paddings.shape[0] ${pads.length} must be equal to [blockShape] ${block.length}`);
    }
    if (!t.shape.every((d, i) => i === 0 || i > block.length || (d + pads[i - 1][0] + pads[i - 1][1]) % block[i - 1] === 0)) {
      throw new Error(`input spatial dimensions ${t.shape.slice(1)} with paddings ${pads.toString()} must be ` +
        `divisible by blockShapes ${block.toString()}`);
    }
    const prod = block.reduce((a, b) => a * b, 1);
    return tidy(() => {
      const full = [[0, 0], ...pads, ...new Array(t.rank - 1 - block.length).fill([0, 0])];
      const padded = pad(t, full);
      const { reshaped, perm, final } = spaceBatchShapes(padded.shape, block, prod, false);
      return reshape(transpose(reshape(padded, reshaped), perm), final);
    });
  });
}

function batchToSpaceND(x, blockShape, crops) {
  return withOne(x, 'x', 'batchToSpaceND', 'numeric', (t) => {
    const block = Array.from(listArg(blockShape));
    const cr = Array.from(listArg(crops), listArg);
    const prod = block.reduce((a, b) => a * b, 1);
    if (!(t.rank >= 1 + block.length)) {
      throw new Error(`input rank is ${t.rank} but should be > than blockShape.length ${block.length}`);
    }
    if (cr.length !== block.length) {
      throw new Error(`crops.length is ${cr.length} but should be equal to blockShape.length  ${block.length}`);
    }
    if (t.shape[0] % prod !== 0) {
      throw new Error(`input tensor batch is ${t.shape[0]} but is not divisible by the product of ` +
        `the elements of blockShape ${block.join(' * ')} === ${prod}`);
    }
    return tidy(() => {
      const { reshaped, perm, final } = spaceBatchShapes(t.shape, block, prod, true);
      const y = reshape(transpose(reshape(t, reshaped), perm), final);
      const begin = [0, ...cr.map((c) => c[0])];
      const size = [final[0], ...cr.map((c, i) => final[i + 1] - c[0] - c[1])];
      return slice(y, begin, size);
    });
  });
}

// The distinct values (or slices along `axis`) in order of first appearance, and for each
// element the index of its value there (reads the tensor's values, as tfjs's kernel does).
function unique(x, axis = 0) {
  return withOne(x, 'x', 'unique', SON, (t) => {
    const rank = t.shape.length;
    if (rank === 0) throw new Error('The input tensor must be at least 1D');
    // tfjs's parseAxisParam: null is every axis; every axis listed must be in range; the
    // first is used.
    const axes = axis === null ? [...Array(rank).keys()] : axesArg(axis);
    if (!axes.every((a) => a >= -rank && a < rank)) {
      throw new Error(`All values in axis param must be in range [-${rank}, ${rank}) but got axis ${axis}`);
    }
    if (axes.length === 0) throw new Error('unique: the axis must name one axis, but got []');
    const ax = axes[0] < 0 ? axes[0] + rank : axes[0];
    const outer = t.shape.slice(0, ax).reduce((p, d) => p * d, 1);
    const n = t.shape[ax];
    const inner = t.shape.slice(ax + 1).reduce((p, d) => p * d, 1);
    const vals = t.dataSync();
    const seen = new Map();
    const idx = new Int32Array(n);
    const firsts = [];
    for (let i = 0; i < n; i++) {
      const parts = [];
      for (let o = 0; o < outer; o++) {
        for (let k = 0; k < inner; k++) parts.push(vals[(o * n + i) * inner + k]);
      }
      const key = t.dtype === 'string' ? JSON.stringify(parts) : parts.join(',');
      if (!seen.has(key)) {
        seen.set(key, seen.size);
        firsts.push(i);
      }
      idx[i] = seen.get(key);
    }
    const values = tidy(() => gatherAny(t, creation().tensor(Int32Array.from(firsts), [firsts.length], 'int32'), ax));
    return { values, indices: creation().tensor(idx, [n], 'int32') };
  });
}

// TensorFlow's strided-slice spec is tfjs's slice_util.sliceInfo (lib/internals/slice_util.js's
// stridedSliceInfo): each input dimension's begin, stride and length, and the final shape.
function stridedSlice(x, begin, end, strides, beginMask = 0, endMask = 0, ellipsisMask = 0,
  newAxisMask = 0, shrinkAxisMask = 0) {
  return withOne(x, 'x', 'stridedSlice', SON, (t) => {
    const masks = { beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask };
    const info = stridedSliceInfo(t.shape, Array.from(listArg(begin)), Array.from(listArg(end)),
      strides == null ? null : Array.from(listArg(strides)), masks);
    return tidy(() => {
      let y = t;
      info.lengths.forEach((len, i) => {
        const [b, s] = [info.begin[i], info.strides[i]];
        if (s === 1) {
          if (b === 0 && len === t.shape[i]) return;
          y = slice(y, y.shape.map((_, k) => (k === i ? b : 0)), y.shape.map((dim, k) => (k === i ? len : dim)));
        } else {
          const idx = Int32Array.from({ length: len }, (_, k) => b + k * s);
          y = gatherAny(y, creation().tensor(idx, [len], 'int32'), i);
        }
      });
      return reshape(y, info.finalShape);
    });
  });
}

// tfjs's scatter_nd_util.validateInput (tf.scatter_util's, lib/internals/scatter_util.js);
// returns the slice dimension (the last dimension of `indices`).
function validateScatter(updates, indices, shape) {
  scatter_util.validateInput(updates, indices, shape);
  return indices.rank > 1 ? indices.shape[indices.rank - 1] : 1;
}

// Index tuples to output rows (as gatherND), then the native row scatter.
function scatterRows(base, indices, updates, shape, sliceDim) {
  const rest = shape.slice(sliceDim);
  const sliceSize = rest.reduce((a, b) => a * b, 1);
  const rowStrides = new Array(sliceDim);
  for (let k = sliceDim - 1, s = 1; k >= 0; k--) {
    rowStrides[k] = s;
    s *= shape[k];
  }
  return tidy(() => {
    const E = elementwise;
    const R = reduce;
    const idx = reshape(indices, [-1, sliceDim]);
    const rows = R.sum(E.mul(idx, creation().tensor(Int32Array.from(rowStrides), [sliceDim], 'int32')), -1);
    const numRows = shape.slice(0, sliceDim).reduce((a, b) => a * b, 1);
    const u = reshape(updates, [rows.size, sliceSize]);
    const flat = wrap(native.scatterRows(base == null ? null : reshape(base, [numRows, sliceSize]).id, rows.id, u.id, numRows));
    return reshape(flat, shape);
  });
}

function scatterND(indices, updates, shape) {
  const dims = listArg(shape);
  require('../convert').assertShape(dims);
  const conv = require('../convert').convertToTensor;
  const ti = conv(indices, 'indices', 'scatterND', 'int32');
  let tu;
  try {
    tu = conv(updates, 'updates', 'scatterND');
    const sliceDim = validateScatter(tu, ti, dims);
    return scatterRows(null, ti, tu, dims, sliceDim);
  } finally {
    if (ti !== indices) ti.dispose();
    if (tu !== undefined && tu !== updates) tu.dispose();
  }
}

function tensorScatterUpdate(tensor, indices, updates) {
  const conv = require('../convert').convertToTensor;
  const temps = [];
  const c = (v, name, as) => { const t = conv(v, name, 'tensorScatterupdate', as); if (t !== v) temps.push(t); return t; };
  try {
    const tt = c(tensor, 'tensor');
    const ti = c(indices, 'indices', 'int32');
    const tu = c(updates, 'updates');
    const sliceDim = validateScatter(tu, ti, tt.shape);
    if (tt.dtype !== tu.dtype) {
      throw new Error(`tensor and updates must have the same dtype, instead they are ${tt.dtype} and ${tu.dtype}.`);
    }
    return scatterRows(tt, ti, tu, tt.shape, sliceDim);
  } finally {
    for (const t of temps) t.dispose();
  }
}

const P = Tensor.prototype;
P.spaceToBatchND = function (blockShape, paddings) { return spaceToBatchND(this, blockShape, paddings); };
P.batchToSpaceND = function (blockShape, crops) { return batchToSpaceND(this, blockShape, crops); };
P.unique = function (axis) { return unique(this, axis); };
P.unsortedSegmentSum = function (segmentIds, numSegments) { return unsortedSegmentSum(this, segmentIds, numSegments); };
P.depthToSpace = function (blockSize, dataFormat) { return depthToSpace(this, blockSize, dataFormat); };
P.stridedSlice = function (begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask) {
  return stridedSlice(this, begin, end, strides, beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask);
};
P.mirrorPad = function (paddings, mode) { return mirrorPad(this, paddings, mode); };
P.unstack = function (axis) { return unstack(this, axis); };
P.split = function (numOrSizeSplits, axis) { return split(this, numOrSizeSplits, axis); };
P.tile = function (reps) { return tile(this, reps); };
P.broadcastTo = function (shape) { return broadcastTo(this, shape); };
P.reverse = function (axis) { return reverse(this, axis); };
P.pad = function (paddings, constantValue) { return pad(this, paddings, constantValue); };
P.reshape = function (shape) { return reshape(this, shape); };
P.reshapeAs = function (x) { return reshape(this, x.shape); };
P.expandDims = function (axis) { return expandDims(this, axis); };
P.squeeze = function (axis) { return squeeze(this, axis); };
P.transpose = function (perm) { return transpose(this, perm); };
P.concat = function (x, axis) {
  return concat(x instanceof Tensor ? [this, x] : [this].concat(x), axis);
};
P.stack = function (x, axis) {
  return stack(x instanceof Tensor ? [this, x] : [this].concat(x), axis);
};
P.slice = function (begin, size) { return slice(this, begin, size); };
P.gather = function (indices, axis, batchDims) { return gather(this, indices, axis, batchDims); };
P.clone = function () { return clone(this); };
P.flatten = function () { return reshape(this, [this.size]); };
P.asScalar = function () {
  if (this.size !== 1) throw new Error('The array must have only 1 element.');
  return reshape(this, []);
};
P.as1D = function () { return reshape(this, [this.size]); };
P.as2D = function (rows, columns) { return reshape(this, [rows, columns]); };
P.as3D = function (rows, columns, depth) { return reshape(this, [rows, columns, depth]); };
P.as4D = function (rows, columns, depth, depth2) {
  return reshape(this, [rows, columns, depth, depth2]);
};
P.as5D = function (rows, columns, depth, depth2, depth3) {
  return reshape(this, [rows, columns, depth, depth2, depth3]);
};

// --- Segment sums, counts and sorted search, composed of the scatter and comparison kernels ---

const E = () => elementwise;
const R = () => reduce;

// tf.unsortedSegmentSum: rows of x summed by segment id; ids outside [0, numSegments) are
// dropped (tfjs's kernels compare each id with each segment).
function unsortedSegmentSum(x, segmentIds, numSegments) {
  const conv = require('../convert').convertToTensor;
  return withOne(x, 'x', 'unsortedSegmentSum', 'numeric', (tx) => {
    const ids = conv(segmentIds, 'segmentIds', 'unsortedSegmentSum', 'int32');
    try {
      if (!Number.isInteger(numSegments)) throw new Error('numSegments must be of dtype int');
      if (numSegments < 0) throw new Error(`numSegments must be non-negative, but got ${numSegments}`);
      if (ids.rank > tx.rank || ids.shape.some((d, i) => d !== tx.shape[i])) {
        throw new Error(`segmentIds.shape ${JSON.stringify(ids.shape)} must be a prefix of x.shape ${JSON.stringify(tx.shape)}`);
      }
      const rest = tx.shape.slice(ids.rank);
      // tfjs's kernels multiply by a float32 mask: the sum is float32 whatever x's dtype.
      return tidy(() => segmentScatter(reshape(ids, [-1]), reshape(tx.cast('float32'), [ids.size, ...rest]),
        numSegments, rest));
    } finally {
      if (ids !== segmentIds) ids.dispose();
    }
  });
}

// Sums rows of `rows` ([n, ...rest]) into `num` rows by the int32 `ids` ([n]), dropping ids out
// of range; the sum is the native scatter (duplicates add up).
function segmentScatter(ids, rows, num, rest) {
  const e = E();
  const valid = e.logicalAnd(e.greaterEqual(ids, 0), e.less(ids, num));
  const at = e.where(valid, ids, creation().zerosLike(ids));
  const mask = reshape(valid, [ids.size, ...rest.map(() => 1)]);
  const upd = e.where(mask, rows, creation().zerosLike(rows));
  if (num === 0 || ids.size === 0) return creation().zeros([num, ...rest], rows.dtype);
  return scatterND(reshape(at, [-1, 1]), upd, [num, ...rest]);
}

function countArgs(op, x, weights, size) {
  if (x.dtype !== 'int32') throw new Error(`Error in ${op}: input dtype must be int32, but got ${x.dtype}`);
  if (!(size >= 0)) throw new Error(`size must be non-negative, but got ${size}.`);
  if (!Number.isInteger(size)) throw new Error(`size must be an integer, but got ${size}.`);
  if (weights.size !== x.size && weights.size !== 0) {
    const what = op === 'bincount' ? 'the same size as input or' : 'the same shape as x or ';
    const xs = op === 'bincount' ? 'input shape' : 'x shape';
    throw new Error(`Error in ${op}: weights must have ${what}0-length, but got ${xs}: ${x.shape}, weights shape: ${weights.shape}.`);
  }
}

// Counts (or weight sums) of each value of x in [0, size), as the weights' dtype; values out
// of range are ignored.
function counts(x, weights, size, binary, rows) {
  const e = E();
  const flat = reshape(x, [-1]);
  const w = binary || weights.size === 0 ? creation().onesLike(flat).cast(weights.dtype) : reshape(weights, [-1]);
  let ids = flat;
  if (rows > 0) {
    // 2-D: row r's values go to segment r * size + value (out-of-range values dropped first).
    const inRange = e.logicalAnd(e.greaterEqual(flat, 0), e.less(flat, size));
    const row = e.floorDiv(creation().range(0, x.size, 1, 'int32'), creation().scalar(x.shape[1], 'int32'));
    const at = e.add(e.mul(row, creation().scalar(size, 'int32')), flat);
    ids = e.where(inRange, at, creation().fill(flat.shape, -1, 'int32'));
  }
  const total = rows > 0 ? rows * size : size;
  let out = segmentScatter(ids, w, total, []);
  if (binary) out = e.greater(out, 0).cast(weights.dtype);
  return rows > 0 ? reshape(out, [rows, size]) : out;
}

function bincount(x, weights, size) {
  return withTwo('bincount', x, 'x', 'numeric', weights, 'weights', 'numeric', (tx, tw) => {
    countArgs('bincount', tx, tw, size);
    return tidy(() => counts(tx, tw, size, false, 0));
  });
}

function denseBincount(x, weights, size, binaryOutput = false) {
  return withTwo('denseBincount', x, 'x', 'numeric', weights, 'weights', 'numeric', (tx, tw) => {
    if (tx.dtype !== 'int32') throw new Error(`Error in denseBincount: input dtype must be int32, but got ${tx.dtype}`);
    if (tx.rank > 2) throw new Error(`Error in denseBincount: input must be at most rank 2, but got rank ${tx.rank}.`);
    countArgs('denseBincount', tx, tw, size);
    return tidy(() => counts(tx, tw, size, !!binaryOutput, tx.rank === 2 ? tx.shape[0] : 0));
  });
}

// tf.searchSorted: for each value, how many entries of its row of the sorted sequence are
// below it ('left') or at most it ('right').
function searchSorted(sortedSequence, values, side = 'left') {
  return withTwo('searchSorted', sortedSequence, 'sortedSequence', 'numeric', values, 'values', 'numeric', (ts, tv) => {
    const seqLen = ts.shape[ts.rank - 1];
    const valLen = tv.shape[tv.rank - 1];
    if (ts.rank < 1) throw new Error('Sorted input argument must be at least 2-dimensional');
    return tidy(() => {
      const s2 = reshape(ts, [-1, seqLen]);
      const v2 = reshape(tv, [-1, valLen]);
      if (s2.shape[0] !== v2.shape[0]) {
        throw new Error("Leading dimension of 'sortedSequence' and 'values' must match.");
      }
      const dtype = s2.dtype === 'float32' || v2.dtype === 'float32' ? 'float32' : 'int32';
      const [a, b] = [s2.cast(dtype), v2.cast(dtype)];
      const below = side === 'right' ? E().lessEqual : E().less;
      // [rows, values, sequence] comparisons, counted along the sequence.
      const hits = below(expandDims(a, 1), expandDims(b, 2));
      return R().sum(hits.cast('int32'), 2);
    });
  });
}

const lowerBound = (sortedSequence, values) => searchSorted(sortedSequence, values, 'left');
const upperBound = (sortedSequence, values) => searchSorted(sortedSequence, values, 'right');

// tf.depthToSpace: blocks of channels moved into blockSize x blockSize spatial blocks.
function depthToSpace(x, blockSize, dataFormat = 'NHWC') {
  return withOne(x, 'x', 'depthToSpace', 'float32', (t) => {
    const nhwc = dataFormat === 'NHWC';
    const [h, w, d] = nhwc ? [t.shape[1], t.shape[2], t.shape[3]] : [t.shape[2], t.shape[3], t.shape[1]];
    if (!(blockSize > 1)) throw new Error(`blockSize should be > 1 for depthToSpace, but was: ${blockSize}`);
    if (d % (blockSize * blockSize) !== 0) {
      throw new Error(`Dimension size must be evenly divisible by ${blockSize * blockSize} but is ${d} for depthToSpace with input shape ${t.shape}`);
    }
    if (t.rank !== 4) throw new Error(`depthToSpace expects a rank-4 input, but got rank ${t.rank}.`);
    const b = blockSize;
    const c = d / (b * b);
    const n = t.shape[0];
    return tidy(() => {
      if (nhwc) {
        const y = transpose(reshape(t, [n, h, w, b, b, c]), [0, 1, 3, 2, 4, 5]);
        return reshape(y, [n, h * b, w * b, c]);
      }
      const y = transpose(reshape(t, [n, b, b, c, h, w]), [0, 3, 4, 1, 5, 2]);
      return reshape(y, [n, c, h * b, w * b]);
    });
  });
}

// tf.broadcastArgs: the broadcast of two int32 shapes, computed from their values.
function broadcastArgs(s0, s1) {
  return withTwo('broadcastArgs', s0, 's0', 'int32', s1, 's1', 'int32', (a, b) => {
    if (a.rank !== 1) throw new Error(`broadcastArgs(): first input must be a vector (rank=1). Has rank ${a.rank}`);
    if (b.rank !== 1) throw new Error(`broadcastArgs(): second input must be a vector (rank=1). Has rank ${b.rank}`);
    const [x, y] = [Array.from(a.dataSync()), Array.from(b.dataSync())];
    const n = Math.max(x.length, y.length);
    const out = [];
    for (let i = 0; i < n; i++) {
      const p = x[x.length - n + i] ?? 1;
      const q = y[y.length - n + i] ?? 1;
      if (p !== q && p !== 1 && q !== 1) {
        throw new Error(`Operands could not be broadcast together with shapes ${x} and ${y}.`);
      }
      out.push(p === 1 ? q : p);
    }
    return creation().tensor1d(out, 'int32');
  });
}

// tf.sparseToDense: defaultValue everywhere but at the indices, which take the values (the
// last of repeated indices wins), through the native scatter.
function sparseToDense(sparseIndices, sparseValues, outputShape, defaultValue = 0) {
  const { assertShape } = require('../convert');
  const { withMany } = require('./args');
  const shape = listArg(outputShape);
  assertShape(shape);
  return withMany('sparseToDense', [[sparseIndices, 'sparseIndices', 'int32'],
    [sparseValues, 'sparseValues', 'string_or_numeric']], ([ti, tv]) =>
    withMany('sparseToDense', [[defaultValue, 'defaultValue', tv.dtype]], ([td]) => {
      if (ti.rank > 2) throw new Error(`sparseIndices should be a scalar, vector, or matrix, but got shape ${ti.shape}.`);
      const numElems = ti.rank > 0 ? ti.shape[0] : 1;
      const numDims = ti.rank > 1 ? ti.shape[1] : 1;
      if (shape.length !== numDims) {
        throw new Error(`outputShape has incorrect number of elements:, ${shape.length}, should be: ${numDims}.`);
      }
      if (!(tv.rank === 0 || (tv.rank === 1 && tv.size === numElems))) {
        throw new Error(`sparseValues has incorrect shape ${tv.shape}, should be [] or [${numElems}]`);
      }
      if (tv.dtype !== td.dtype) throw new Error('sparseValues.dtype must match defaultValues.dtype');
      return tidy(() => {
        const base = creation().fill(shape, td.dataSync()[0], td.dtype);
        const values = tv.rank === 0 ? creation().fill([numElems], tv.dataSync()[0], tv.dtype) : tv;
        // Straight to the scatter: tensorScatterUpdate refuses strings, sparseToDense does not.
        return scatterRows(base, reshape(ti, [numElems, numDims]), values, shape, numDims);
      });
    }));
}

module.exports = {
  broadcastArgs, sparseToDense,
  unsortedSegmentSum, bincount, denseBincount, searchSorted, lowerBound, upperBound, depthToSpace,
  reshape, expandDims, squeeze, transpose, concat, stack, slice, gather, clone,
  unstack, split, tile, broadcastTo, reverse, pad, mirrorPad, whereAsync, booleanMaskAsync, setdiff1dAsync,
  gatherND, spaceToBatchND, batchToSpaceND, unique, stridedSlice, scatterND, tensorScatterUpdate,
};
