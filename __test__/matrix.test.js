'use strict';
// The bad-input matrix: generated calls of every exported function (bad values in each argument
// position, edge values, hand-written engine cases; see matrix/cases.js), each run on
// tidytensor and on @tensorflow/tfjs 4.22 in worker processes (matrix/child.js), so a crash or
// a hang is recorded instead of taking the run down. It fails on any crash, hang, leaked tensor
// or difference from tfjs not listed in matrix/differences.js, and prints a summary line.
//
// MATRIX_FILTER=<regexp> runs only the matching cases; MATRIX_REPORT=<file> writes every
// case's record there as JSON; MATRIX_TIMEOUT_MS sets the per-case limit (15 s).
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { runMatrix } = require('./matrix/runner');
const differences = require('./matrix/differences');

function fieldMatches(pattern, value) {
  if (pattern === undefined) return true;
  if (typeof pattern === 'string') return pattern === value;
  if (pattern instanceof RegExp) return pattern.test(value);
  return !!pattern(value);
}

function chosenReason(rec, backend) {
  const d = differences.find((e) => fieldMatches(e.name, rec.name) &&
    fieldMatches(e.tfjs, rec.tfjs) && fieldMatches(e.tidytensor, rec.tidytensor) &&
    fieldMatches(e.backend, backend));
  return d ? d.reason : null;
}

test('bad-input matrix: tidytensor agrees with tfjs 4.22, never crashes, hangs or leaks',
  { timeout: 30 * 60 * 1000 }, async () => {
    const env = { ...process.env };
    // wgpu on Mesa's lavapipe wants a runtime directory.
    if (!env.XDG_RUNTIME_DIR) env.XDG_RUNTIME_DIR = '/tmp';
    const timeoutMs = Number(process.env.MATRIX_TIMEOUT_MS) || 15000;
    const { total, backend, records, restarts } = await runMatrix({ env, timeoutMs });

    const c = { agreeThrow: 0, agreeValue: 0, sameText: 0, chosen: 0, unexpected: 0, crash: 0, hang: 0, leak: 0 };
    const failures = [];
    for (let i = 0; i < total; i++) {
      const r = records[i];
      if (!r) {
        failures.push(`case ${i}: no record`);
        continue;
      }
      if (r.outcome === 'agree-throw') {
        c.agreeThrow++;
        if (r.sameText) c.sameText++;
      } else if (r.outcome === 'agree-value') {
        c.agreeValue++;
      } else if (r.outcome === 'differ') {
        r.chosen = chosenReason(r, backend);
        if (r.chosen) {
          c.chosen++;
        } else {
          c.unexpected++;
          failures.push(`DIFFER ${r.name}: ${r.detail}\n    tfjs:       ${r.tfjs}\n` +
            `    tidytensor: ${r.tidytensor}`);
        }
      } else if (r.outcome === 'crash' || r.outcome === 'hang') {
        c[r.outcome]++;
        failures.push(`${r.outcome.toUpperCase()} ${r.name}: ${r.detail}\n    ` +
          `${String(r.stderr || '').trim().split('\n').slice(-6).join('\n    ')}`);
      }
      if (r.leak) {
        c.leak++;
        failures.push(`LEAK ${r.name}: ${JSON.stringify(r.leak)} (tidytensor ${r.tidytensor})`);
      }
    }
    if (process.env.MATRIX_REPORT) {
      fs.writeFileSync(process.env.MATRIX_REPORT, JSON.stringify({ total, backend, records }, null, 1));
    }
    console.log(`matrix (${backend}): ${total} cases, ${c.agreeThrow + c.agreeValue} agree with ` +
      `tfjs 4.22 (${c.agreeThrow} both throw, ${c.agreeValue} same values; same error text in ` +
      `${c.sameText}), ${c.chosen} chosen differences, ${c.unexpected} unexpected, ` +
      `${c.crash} crashes, ${c.hang} hangs, ${c.leak} leaks` +
      `${restarts ? ` (${restarts} worker restarts)` : ''}`);
    const MAX = 400;
    assert.ok(failures.length === 0, `${failures.length} matrix failures:\n` +
      failures.slice(0, MAX).join('\n') +
      (failures.length > MAX ? `\n... and ${failures.length - MAX} more` : ''));
  });
