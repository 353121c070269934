'use strict';
// The package's `install` script. Builds the addon from source (cargo, release profile) into
// tidytensor.node only when it must:
//   - TIDYTENSOR_BUILD_FROM_SOURCE=1, or
//   - a git checkout of the repository (development: the local build is what gets tested), or
//   - no prebuilt package (tidytensor-<platform>, an optionalDependency) loads on this machine.
// Otherwise it does nothing: a normal install takes the prebuilt addon and needs no Rust.
// The build needs only cargo (no @napi-rs/cli): build.rs (napi-build) sets the link flags, and
// the cdylib cargo writes (libtidytensor.so / .dylib, tidytensor.dll) is the addon, copied as
// tidytensor.node. CARGO_TARGET_DIR and cargo's own config are respected.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { platformId, packageName, loadPrebuilt, LOCAL } = require('../binding');

const ROOT = path.join(__dirname, '..');

function reason() {
  const force = process.env.TIDYTENSOR_BUILD_FROM_SOURCE;
  if (force && force !== '0' && force !== 'false') return 'TIDYTENSOR_BUILD_FROM_SOURCE is set';
  if (fs.existsSync(path.join(ROOT, '.git'))) return 'this is a git checkout (development)';
  const errors = [];
  if (loadPrebuilt(errors)) return null;
  return errors.length ? `the prebuilt addon does not load (${errors.join('; ')})` : `no prebuilt addon for ${platformId()}`;
}

function fail(message) {
  console.error(`tidytensor: ${message}`);
  process.exit(1);
}

function build(why) {
  console.log(`tidytensor: ${why}; building from source with cargo (a few minutes)...`);
  const cargo = process.env.CARGO || 'cargo';
  const probe = spawnSync(cargo, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    fail(`cannot build from source: cargo was not found (${probe.error ? probe.error.code : `exit ${probe.status}`}). ` +
      'Install Rust from https://rustup.rs and reinstall, or use a platform with a prebuilt package ' +
      `(${packageName('<platform>')}: ${Object.keys(require('../package.json').optionalDependencies).map((n) => n.replace('tidytensor-', '')).join(', ')}).`);
  }
  // JSON messages on stdout tell where the artifact is; progress and diagnostics go to stderr.
  // --target <host> as `napi build` does: the artifacts land in target/<triple>/release, where a
  // development build (`npx napi build --release`) keeps its cache too.
  const host = /^host: (\S+)/m.exec(spawnSync(process.env.RUSTC || 'rustc', ['-vV'], { encoding: 'utf8' }).stdout || '');
  const args = ['build', '--release', '-p', 'tidytensor', '--message-format=json-render-diagnostics'];
  if (host) args.push('--target', host[1]);
  const r = spawnSync(cargo, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error || r.status !== 0) fail(`cargo build failed (${r.error ? r.error.message : `exit ${r.status}`})`);
  let lib = null;
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const msg = JSON.parse(line);
    if (msg.reason !== 'compiler-artifact' || msg.target.name !== 'tidytensor' || !msg.target.kind.includes('cdylib')) continue;
    lib = msg.filenames.find((f) => /\.(so|dylib|dll)$/.test(f)) || lib;
  }
  if (!lib) fail('cargo build reported no tidytensor cdylib');
  // Copy, then rename over tidytensor.node: a process that has the old file loaded keeps it intact.
  const tmp = `${LOCAL}.${process.pid}.tmp`;
  fs.copyFileSync(lib, tmp);
  fs.renameSync(tmp, LOCAL);
  console.log(`tidytensor: built ${LOCAL}`);
}

const why = reason();
if (why) build(why);
