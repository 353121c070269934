'use strict';
// index.d.ts: a tfjs-style TypeScript program must type-check under --strict.
const { it } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

it('__test__/types/example.ts type-checks with tsc --noEmit --strict', () => {
  const root = path.join(__dirname, '..');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '-p', '__test__/types'],
    { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
