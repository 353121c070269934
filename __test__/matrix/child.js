'use strict';
// One matrix worker process: `node child.js <start> [end]` runs cases start..end-1 of the case
// list, each on tfjs (its pure-JS cpu backend) and then on tidytensor, and writes one JSON line
// per event on fd 3 (stdout and stderr stay free for whatever the libraries print):
//   {t:'hello', total, backend}   {t:'start', i, name}   {t:'phase', i, lib}
//   {t:'end', i, name, outcome, ...}   {t:'done'}
// A crash or a hang of tidytensor kills only this process; the parent records the case that
// was running and starts a new worker at the next one.
//
// TIDYTENSOR_BACKEND selects tidytensor's backend, as in __test__/helpers/setup.js.
// MATRIX_FILTER (a regular expression) keeps only the cases whose name matches.
const fs = require('node:fs');
const { buildCases } = require('./cases');
const { snapshot, diff, describe, tensorsIn } = require('./compare');

const PROTO_FD = 3;
const send = (o) => fs.writeSync(PROTO_FD, `${JSON.stringify(o)}\n`);

class Ctx {
  constructor() {
    this.mine = [];
    this.theirs = [];
  }

  own(t) { this.mine.push(t); return t; }

  alien(t) { this.theirs.push(t); return t; }

  cleanup() {
    for (const t of this.mine.concat(this.theirs)) {
      try { t.dispose(); } catch (e) { /* already disposed, or not a tensor */ }
    }
  }
}

function errorOutcome(e) {
  let message;
  let type;
  try {
    message = e instanceof Error ? e.message : String(e);
    type = e instanceof Error ? e.constructor.name : typeof e;
  } catch (e2) {
    message = '<unprintable error>';
    type = '?';
  }
  return { kind: 'throw', type, message: String(message).slice(0, 500) };
}

function mem(lib) {
  const m = lib.memory();
  return { numTensors: m.numTensors, numBytes: m.numBytes };
}

// Builds and calls the case on `lib`, awaits a Promise result, snapshots and disposes it.
async function runOn(lib, foreign, c) {
  const ctx = new Ctx();
  let outcome;
  let result;
  let made = false;
  try {
    const call = c.build(lib, foreign, ctx);
    result = call();
    made = true;
    if (result instanceof Promise) result = await result;
    let snap;
    try {
      snap = snapshot(result, c.compare);
    } catch (e) {
      snap = { T: 'unsnappable', message: errorOutcome(e).message };
    }
    outcome = { kind: 'value', snap };
  } catch (e) {
    outcome = errorOutcome(e);
  }
  if (made) {
    try {
      for (const t of tensorsIn(result)) t.dispose();
    } catch (e) { /* a throwing getter in the result */ }
  }
  ctx.cleanup();
  return outcome;
}

async function runCase(c, tt, tfjs, i) {
  const want = await runOn(tfjs, tt, c);
  send({ t: 'phase', i, lib: 'tidytensor' });
  const before = mem(tt);
  const got = await runOn(tt, tfjs, c);
  const after = mem(tt);
  const leak = after.numTensors !== before.numTensors || after.numBytes !== before.numBytes ?
    { numTensors: after.numTensors - before.numTensors, numBytes: after.numBytes - before.numBytes } :
    null;
  let outcome;
  let detail = null;
  let sameText = false;
  if (want.kind === 'throw' && got.kind === 'throw') {
    outcome = 'agree-throw';
    sameText = want.message === got.message;
  } else if (want.kind === 'throw' || got.kind === 'throw') {
    outcome = 'differ';
    detail = want.kind === 'throw' ? 'only tfjs throws' : 'only tidytensor throws';
  } else {
    detail = diff(got.snap, want.snap);
    outcome = detail ? 'differ' : 'agree-value';
  }
  return { outcome, sameText, detail, leak, tfjs: describe(want), tidytensor: describe(got) };
}

async function main() {
  const start = Number(process.argv[2] || 0);
  const end = process.argv[3] ? Number(process.argv[3]) : Infinity;
  const tfjs = require('@tensorflow/tfjs');
  await tfjs.setBackend('cpu');
  tfjs.backend().firstUse = false; // no "use tfjs-node" banner
  const tt = require('../..');
  if (process.env.TIDYTENSOR_BACKEND) await tt.setBackend(process.env.TIDYTENSOR_BACKEND);
  // deprecationWarn cases would print on every call otherwise.
  tfjs.disableDeprecationWarnings();
  tt.disableDeprecationWarnings();
  // A rejection nobody awaits is the library's business, not a crash of the matrix.
  process.on('unhandledRejection', (e) => {
    process.stderr.write(`unhandled rejection: ${e && e.message}\n`);
  });

  let cases = buildCases(tt, tfjs);
  if (process.env.MATRIX_FILTER) {
    const re = new RegExp(process.env.MATRIX_FILTER);
    cases = cases.filter((c) => re.test(c.name));
  }
  send({ t: 'hello', total: cases.length, backend: tt.getBackend() });
  for (let i = start; i < Math.min(end, cases.length); i++) {
    const c = cases[i];
    send({ t: 'start', i, name: c.name });
    const r = await runCase(c, tt, tfjs, i);
    send({ t: 'end', i, name: c.name, fn: c.fn, layer: c.layer, ...r });
  }
  send({ t: 'done' });
}

main().then(() => process.exit(0), (e) => {
  process.stderr.write(`matrix child failed: ${e && e.stack}\n`);
  process.exit(70);
});
