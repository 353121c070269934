'use strict';
// `npm test`'s JavaScript half: runs the node:test suites once per backend — `cpu` always,
// `wgpu` when a GPU adapter (or Mesa's lavapipe) opens — so every op test runs on every backend.
// With TIDYTENSOR_REQUIRE_WGPU=1 (set by CI) a missing wgpu adapter is a failure, not a skip.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const probe = spawnSync(process.execPath, ['-e', "require('.').setBackend('wgpu').then((ok) => process.exit(ok ? 0 : 3))"], {
  cwd: root,
  encoding: 'utf8',
});
const backends = ['cpu'];
if (probe.status === 0) {
  backends.push('wgpu');
} else if (process.env.TIDYTENSOR_REQUIRE_WGPU === '1') {
  console.error(`wgpu backend unavailable but TIDYTENSOR_REQUIRE_WGPU=1:\n${probe.stderr}`);
  process.exit(1);
} else {
  console.log('# wgpu backend unavailable here (no Vulkan adapter): its JS suite is skipped');
}

for (const [i, backend] of backends.entries()) {
  console.log(`# node --test __test__/ on the ${backend} backend`);
  const env = { ...process.env, TIDYTENSOR_BACKEND: backend };
  // The tarball install test does not depend on the backend: run it once.
  if (i > 0) env.TIDYTENSOR_SKIP_INSTALL_TEST = '1';
  const run = spawnSync(process.execPath, ['--test', '__test__/'], { cwd: root, env, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status || 1);
}
