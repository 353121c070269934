'use strict';
// Where tensors come from: origin tracking, the leak finder (tf.leaks) and tf.memoryReport.
//
// Origin tracking (the TRACK_ORIGINS flag, or TIDYTENSOR_TRACK_ORIGINS=1 at load) captures a
// structured stack trace for each new tensor handle (Error.captureStackTrace, formatted only
// when a report reads it) and keeps it by tensor id. A tensor's origin is the first frame
// outside tidytensor's own files (lib/, index.js) and Node's internals: the user's line that
// made it. Without tracking a tensor's origin is the kernel that made it ('Add', 'MatMul' ...;
// 'Tensor' for uploaded values, 'Variable' for variables), which the native engine records for
// every tensor at no cost; so is the origin of a tensor made without a handle (a layer's
// weights, made natively).
//
// A captured stack holds its frames' functions and receivers (a tensor whose method made the
// new one, say) until it is read or its tensor is disposed and the stack pruned.
const path = require('node:path');
const { fileURLToPath } = require('node:url');
const native = require('../native');
const state = require('../state');
const hooks = require('./hooks');
const { collectIds } = require('../engine');
const { DTYPES } = require('../tensor');
const { setFlagHandler, trackOriginsFromEnv } = require('../env');

const ROOT = path.join(__dirname, '..', '..');
const LIB_DIR = path.join(ROOT, 'lib') + path.sep;
const INDEX_FILE = path.join(ROOT, 'index.js');

// Frames captured per tensor. Each frame costs (V8 rebuilds the inlined frames of optimized
// code), and most ops reach the user's frame within 3 to 7. Deeper paths (a loss, an
// optimizer step: up to 18) raise the depth: when a captured stack holds only tidytensor's
// and Node's frames, later captures take twice as many (see `resolve`).
const MIN_FRAMES = 8;
const MAX_FRAMES = 40;
let captureFrames = MIN_FRAMES;
// The first captures and then one in 256 are read at once, so that a deep path raises the
// depth early.
let captures = 0;

// id -> the object holding a tensor's captured stack (or, once read, its resolved frame).
const holders = new Map();
let pruneAt = 1000;
let tracking = false;

function capture(t) {
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = captureFrames;
  Error.captureStackTrace(holder, capture);
  Error.stackTraceLimit = limit;
  // The first handle of an id marks where it was made (another handle of the same id, say a
  // variable's wrapper made again, is not).
  if (!holders.has(t.id)) {
    holders.set(t.id, holder);
    if (holders.size > pruneAt) prune();
  }
  if (++captures <= 64 || (captures & 255) === 0) resolve(holder);
}

// Drops the disposed tensors' stacks once they are more than half of what is kept.
function prune() {
  for (const id of holders.keys()) if (native.isDisposed(id)) holders.delete(id);
  pruneAt = 2 * native.memory().numTensors + 1000;
}

function setTracking(on) {
  on = !!on;
  if (on === tracking) return;
  tracking = on;
  // The stacks of live tensors stay readable when tracking stops; no new ones are taken.
  if (!on) prune();
  hooks.listen('origins', on ? capture : null);
}

const isTracking = () => tracking;

// ---------------------------------------------------------------------------------------------
// Frames

const callSites = (_, sites) => sites;

function fileOf(site) {
  let file = site.getFileName() || site.getScriptNameOrSourceURL();
  if (!file) return null;
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file);
    } catch (e) {
      return file;
    }
  }
  return file;
}

function isOwnOrInternal(file) {
  return file.startsWith('node:') || file.startsWith('internal/') || file.startsWith(LIB_DIR) ||
    file === INDEX_FILE;
}

// Reads a captured stack once: holder.frame is the user's frame in it, {file, line, column,
// functionName}, or null when all the captured frames are tidytensor's or Node's (then, if the
// capture was cut short by the depth, later captures go deeper).
function resolve(holder) {
  if ('frame' in holder) return holder.frame;
  const saved = Error.prepareStackTrace;
  let sites;
  Error.prepareStackTrace = callSites;
  try {
    sites = holder.stack;
  } finally {
    Error.prepareStackTrace = saved;
  }
  // A captured stack holds its frames' functions and receivers until it is dropped.
  delete holder.stack;
  holder.frame = null;
  if (!Array.isArray(sites)) return null;
  for (const site of sites) {
    const file = fileOf(site);
    if (file === null || isOwnOrInternal(file)) continue;
    let functionName = site.getFunctionName() || site.getMethodName() || null;
    if (functionName !== null && site.isConstructor()) functionName = `new ${functionName}`;
    const line = site.getLineNumber();
    holder.frame = { file, line, column: site.getColumnNumber(), functionName };
    return holder.frame;
  }
  if (sites.length >= captureFrames && captureFrames < MAX_FRAMES) {
    captureFrames = Math.min(MAX_FRAMES, 2 * captureFrames);
  }
  return null;
}

// A file as reports show it: relative to the working directory when inside it.
function shortFile(file) {
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

// 'predict (src/model.js:12:15)', or 'src/model.js:12:15' for an anonymous function.
function formatFrame(frame) {
  const where = `${shortFile(frame.file)}:${frame.line}:${frame.column}`;
  return frame.functionName ? `${frame.functionName} (${where})` : where;
}

// The frame that made tensor `id`, resolved once, or null (not tracked, or no user frame).
function frameOf(id) {
  const holder = holders.get(id);
  return holder === undefined ? null : resolve(holder);
}

// What reports group tensor `id` by: its frame when tracked, else the op that made it.
function originOf(id, op) {
  const frame = frameOf(id);
  return frame === null ? op : formatFrame(frame);
}

// ---------------------------------------------------------------------------------------------
// Reports

const meta = state.meta;

// A live tensor as reports list it, or null once disposed.
function describe(id) {
  const o = native.tensorOrigin(id);
  if (o == null) return null;
  native.tensorMeta(id);
  const rank = meta[1];
  const shape = new Array(rank);
  for (let i = 0; i < rank; i++) shape[i] = meta[2 + i];
  const frame = frameOf(id);
  return {
    id,
    shape,
    dtype: DTYPES[meta[0]],
    bytes: o.bytes,
    op: o.op,
    origin: frame === null ? o.op : formatFrame(frame),
    frame,
    scoped: o.scoped,
    kept: o.kept,
    variable: o.variable,
  };
}

// Tensors grouped by origin: [{origin, count, bytes, shapes, ops}], the most bytes first (then
// the most tensors). `shapes` and `ops` list each distinct shape and op once.
function summarize(tensors) {
  const groups = new Map();
  for (const t of tensors) {
    let g = groups.get(t.origin);
    if (g === undefined) {
      g = { origin: t.origin, count: 0, bytes: 0, shapes: [], ops: [], shapeKeys: new Set() };
      groups.set(t.origin, g);
    }
    g.count++;
    g.bytes += t.bytes;
    const key = t.shape.join(',');
    if (!g.shapeKeys.has(key)) {
      g.shapeKeys.add(key);
      g.shapes.push(t.shape);
    }
    if (!g.ops.includes(t.op)) g.ops.push(t.op);
  }
  const rows = [];
  for (const g of groups.values()) {
    rows.push({ origin: g.origin, count: g.count, bytes: g.bytes, shapes: g.shapes, ops: g.ops });
  }
  rows.sort((a, b) => b.bytes - a.bytes || b.count - a.count);
  return rows;
}

function isPromise(x) {
  return x != null && typeof x.then === 'function';
}

function leakReport(before, result) {
  const was = new Set(before);
  const returned = new Set(collectIds(result));
  const tensors = [];
  let numBytes = 0;
  for (const id of native.liveTensors()) {
    if (was.has(id) || returned.has(id)) continue;
    const t = describe(id);
    if (t === null) continue;
    tensors.push(t);
    numBytes += t.bytes;
  }
  return { tensors, summary: summarize(tensors), numTensors: tensors.length, numBytes, result };
}

// tf.leaks(fn): runs fn and reports the tensors alive afterwards that were not alive before,
// except those fn returns (its result, not leaks):
//   { tensors: [{id, shape, dtype, bytes, op, origin, frame, scoped, kept, variable}],
//     summary: [{origin, count, bytes, shapes, ops}], numTensors, numBytes, result }
// For an async fn (one returning a promise) it resolves to the report once fn's promise does.
function leaks(fn) {
  if (typeof fn !== 'function') throw new TypeError('tf.leaks() needs a function to run');
  const before = native.liveTensors();
  const result = fn();
  if (isPromise(result)) return Promise.resolve(result).then((value) => leakReport(before, value));
  return leakReport(before, result);
}

function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  do {
    v /= 1024;
    u++;
  } while (v >= 1024 && u < units.length - 1);
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

function formatShapes(shapes) {
  const s = shapes.map((sh) => `[${sh.join(',')}]`).join(' ');
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

// The rows as a text table: bytes, tensors, shapes, origin (the first `max` rows).
function formatTable(rows, max = 50) {
  const more = rows.length - max;
  if (more > 0) rows = rows.slice(0, max);
  const cells = rows.map((r) =>
    [formatBytes(r.bytes), String(r.count), formatShapes(r.shapes), r.origin]);
  const head = ['Bytes', 'Tensors', 'Shapes', 'Origin'];
  const widths = head.map((h, i) => cells.reduce((w, c) => Math.max(w, c[i].length), h.length));
  const line = (c) => [c[0].padStart(widths[0]), c[1].padStart(widths[1]),
    c[2].padEnd(widths[2]), c[3]].join('  ').trimEnd();
  const out = [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
  if (more > 0) out.push(`... and ${more} more origin${more === 1 ? '' : 's'}`);
  return out.join('\n');
}

// tf.memoryReport(): prints the live tensors grouped by origin, the most bytes first (the
// first 50 origins), and returns all the rows ([{origin, count, bytes, shapes, ops}]).
function memoryReport() {
  const tensors = [];
  let numBytes = 0;
  for (const id of native.liveTensors()) {
    const t = describe(id);
    if (t === null) continue;
    tensors.push(t);
    numBytes += t.bytes;
  }
  const rows = summarize(tensors);
  const n = tensors.length;
  let text = `tidytensor memory: ${n} tensor${n === 1 ? '' : 's'}, ${formatBytes(numBytes)}`;
  if (n > 0) {
    text += `, from ${rows.length} origin${rows.length === 1 ? '' : 's'}\n${formatTable(rows)}`;
  }
  if (!tracking && holders.size === 0 && n > 0) {
    text += "\n(origins are the ops that made the tensors; tf.env().set('TRACK_ORIGINS', true) " +
      'shows the lines of code)';
  }
  console.log(text);
  return rows;
}

// The TRACK_ORIGINS flag's switch; TIDYTENSOR_TRACK_ORIGINS=1 turns it on at load.
setFlagHandler('TRACK_ORIGINS', setTracking);
if (trackOriginsFromEnv()) setTracking(true);

module.exports = {
  leaks, memoryReport, setTracking, isTracking, originOf, frameOf, formatBytes,
};
