'use strict';
// The GC backstop (the GC_BACKSTOP flag, off by default): a tensor whose JavaScript handles
// have all been garbage-collected while it is still alive, and which nothing else holds (no
// open tidy or tidyAsync scope, not a variable), can never be disposed by the program: a
// FinalizationRegistry disposes it. tf.memory().numReclaimed counts them (the field appears
// once the backstop has been enabled), and the first reclaim warns once, naming the origins of
// what was reclaimed (the lines that made them with TRACK_ORIGINS on, else the ops) so that the
// leak can be fixed. It is a backstop, not a memory manager: the garbage collector runs when
// JavaScript memory is short, not when tensor memory is.
const native = require('../native');
const hooks = require('./hooks');
const engine = require('../engine');
const asyncScope = require('./async_scope');
const origins = require('./origins');
const { setFlagHandler } = require('../env');

let enabled = false;
let numReclaimed = 0;
// Tensors alive when the backstop was enabled may have handles it never saw: only ids above
// this one are reclaimed (the engine's ids only grow).
let lastUnseenId = Infinity;
// id -> how many registered handles wrap it; the tensor goes when the last of them does.
const handles = new Map();
const registry = new FinalizationRegistry(collected);

let warned = false;
let pending = null;

function track(t) {
  const id = t.id;
  registry.register(t, id);
  handles.set(id, (handles.get(id) || 0) + 1);
}

function collected(id) {
  const n = handles.get(id);
  if (n > 1) {
    handles.set(id, n - 1);
    return;
  }
  handles.delete(id);
  if (!enabled || id <= lastUnseenId) return;
  const o = native.tensorOrigin(id);
  if (o == null || o.scoped || o.variable || asyncScope.heldByOpenScope(id)) return;
  const origin = origins.originOf(id, o.op);
  native.dispose(id);
  numReclaimed++;
  if (!warned) note(origin, o.bytes);
}

// Gathers what one garbage collection reclaimed, for one warning after its callbacks.
function note(origin, bytes) {
  if (pending === null) {
    pending = new Map();
    queueMicrotask(warn);
  }
  const g = pending.get(origin) || { count: 0, bytes: 0 };
  g.count++;
  g.bytes += bytes;
  pending.set(origin, g);
}

function warn() {
  const groups = [...pending.entries()]
    .sort((a, b) => b[1].bytes - a[1].bytes || b[1].count - a[1].count);
  pending = null;
  warned = true;
  const total = groups.reduce((s, [, g]) => s + g.count, 0);
  const list = groups.slice(0, 10).map(([origin, g]) =>
    `  ${origin}: ${g.count} tensor${g.count === 1 ? '' : 's'}, ${origins.formatBytes(g.bytes)}`);
  if (groups.length > 10) list.push(`  ... and ${groups.length - 10} more`);
  const where = origins.isTracking() ? 'made at' : 'made by these ops';
  const hint = origins.isTracking() ? ''
    : " (tf.env().set('TRACK_ORIGINS', true) shows the lines that made them)";
  const s = total === 1 ? '' : 's';
  console.warn(`tidytensor: the GC backstop disposed ${total} tensor${s} whose ` +
    `handles were garbage-collected without dispose(), ${where}${hint}:\n${list.join('\n')}\n` +
    'Dispose them, or make them inside tf.tidy / tf.tidyAsync, to free their memory promptly. ' +
    'tf.memory().numReclaimed counts reclaimed tensors; this warning is shown once.');
}

function addReclaimed(info) {
  info.numReclaimed = numReclaimed;
}

function setBackstop(on) {
  on = !!on;
  if (on === enabled) return;
  enabled = on;
  if (on) {
    const live = native.liveTensors();
    const top = live.length === 0 ? 0 : live[live.length - 1];
    // Handles made while the backstop was off were not counted: start above them again.
    lastUnseenId = Math.max(lastUnseenId === Infinity ? 0 : lastUnseenId, top);
    engine.setMemoryExtra(addReclaimed);
  }
  hooks.listen('backstop', on ? track : null);
}

const reclaimedCount = () => numReclaimed;

// The GC_BACKSTOP flag's switch.
setFlagHandler('GC_BACKSTOP', setBackstop);

module.exports = { setBackstop, reclaimedCount };
