'use strict';
// The backends the tests run on here: `cpu` always, `wgpu` when a GPU adapter (or Mesa's
// lavapipe) opens. With TIDYTENSOR_REQUIRE_WGPU=1 (set by CI) a missing wgpu adapter is an error,
// not a skip. Used by scripts/test-backends.js and scripts/test-runtimes.js.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

function testBackends() {
  const probe = spawnSync(process.execPath, ['-e', "require('.').setBackend('wgpu').then((ok) => process.exit(ok ? 0 : 3))"], {
    cwd: path.join(__dirname, '..'),
    encoding: 'utf8',
  });
  if (probe.status === 0) return ['cpu', 'wgpu'];
  if (process.env.TIDYTENSOR_REQUIRE_WGPU === '1') {
    throw new Error(`wgpu backend unavailable but TIDYTENSOR_REQUIRE_WGPU=1:\n${probe.stderr}`);
  }
  console.log('# wgpu backend unavailable here (no Vulkan adapter): its tests are skipped');
  return ['cpu'];
}

module.exports = { testBackends };
