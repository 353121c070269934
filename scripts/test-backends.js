'use strict';
// `npm test`'s JavaScript half: runs the node:test suites once per backend — `cpu` always,
// `wgpu` when a GPU adapter (or Mesa's lavapipe) opens (scripts/backends.js) — so every op test
// runs on every backend.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { testBackends } = require('./backends');

const root = path.join(__dirname, '..');
let backends;
try {
  backends = testBackends();
} catch (e) {
  console.error(e.message);
  process.exit(1);
}

for (const [i, backend] of backends.entries()) {
  console.log(`# node --test __test__/ on the ${backend} backend`);
  const env = { ...process.env, TIDYTENSOR_BACKEND: backend };
  // The tarball install test does not depend on the backend: run it once.
  if (i > 0) env.TIDYTENSOR_SKIP_INSTALL_TEST = '1';
  const run = spawnSync(process.execPath, ['--test', '__test__/'], { cwd: root, env, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status || 1);
}
