'use strict';
// How the package installs into another project (README "Install"), in fresh temporary
// projects, from `npm pack` tarballs exactly as `npm publish` would publish them:
//   1. prebuilt: the main tarball plus the linux-x64-gnu platform tarball (`npm run
//      pack:platform`), with no Rust toolchain on PATH: installs in seconds, no compiler runs,
//      and `require('tidytensor')` computes tf.add(1, 2) = 3 with the prebuilt addon;
//   2. fallback: the main tarball alone (no prebuilt package), with cargo on PATH: the install
//      script builds the addon from the packed sources, and it works;
//   3. neither: without cargo the install fails with the documented message, and with
//      --ignore-scripts `require('tidytensor')` throws the documented loader error.
//
// Speed trick (2.): the nested build gets CARGO_TARGET_DIR=<this repo>/target, so the dependency
// crates already compiled for this repository (napi, gemm, …) are reused and only the
// workspace's own crates are recompiled; without it the test would spend minutes rebuilding
// every dependency from scratch. (Cargo locks the target directory, so a concurrent build in
// the repository simply waits. The nested build leaves its artifact in target/<triple>/release/,
// where the repository's own release build puts the same file built from the same sources.)
// 1. also runs a release build of the repository (`npm run pack:platform`): a no-op after
// `npm install` has built it.
//
// Set TIDYTENSOR_SKIP_INSTALL_TEST=1 to skip these tests.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { platformId } = require('../binding');

const ROOT = path.join(__dirname, '..');
// npm itself, run with this node: the one running `npm test`, else the one installed beside node.
const NPM_CLI = /npm-cli\.js$/.test(process.env.npm_execpath || '') ? process.env.npm_execpath
  : path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
const TIMEOUT_MS = 15 * 60 * 1000;
const SKIP = process.env.TIDYTENSOR_SKIP_INSTALL_TEST === '1' ? 'TIDYTENSOR_SKIP_INSTALL_TEST=1' : false;
const BUILD_LINE = /building from source with cargo/;

// The environment for the nested npm commands: this process may itself run under `npm test`,
// whose npm_package_* / npm_lifecycle_* / prefix variables describe this repository and must
// not leak into the temporary project. npm's cache and registry settings are kept.
function cleanEnv(extra) {
  const env = {};
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'npm_config_globalconfig']);
  for (const [k, v] of Object.entries(process.env)) {
    const lk = k.toLowerCase();
    if ((lk.startsWith('npm_') && !keep.has(lk)) || k === 'INIT_CWD' || k === 'TIDYTENSOR_BUILD_FROM_SOURCE') continue;
    env[k] = v;
  }
  return { ...env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false', ...extra };
}

// PATH without a Rust toolchain: the entries that hold cargo or rustc are dropped, and a
// directory with just node (and npm) comes first.
function pathWithoutRust(tmp) {
  const bin = path.join(tmp, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  if (fs.existsSync(NPM_CLI)) fs.symlinkSync(NPM_CLI, path.join(bin, 'npm'));
  const RUST = new Set(['cargo', 'rustc', 'cargo.exe', 'rustc.exe']);
  const hasRust = (dir) => [...RUST].some((f) => fs.existsSync(path.join(dir, f)));
  // A directory that holds Rust beside other tools (/usr/bin with Debian's rustc) is replaced
  // by a copy of its links without cargo and rustc.
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean).map((d) => {
    if (!hasRust(d)) return d;
    const copy = fs.mkdtempSync(path.join(tmp, 'path-'));
    for (const f of fs.readdirSync(d)) if (!RUST.has(f)) fs.symlinkSync(path.join(d, f), path.join(copy, f));
    return copy;
  });
  const env = cleanEnv({ PATH: [bin, ...dirs].join(path.delimiter) });
  delete env.CARGO;
  delete env.RUSTC;
  const probe = spawnSync('cargo', ['--version'], { env });
  assert.ok(probe.error && probe.error.code === 'ENOENT', 'cargo is still on the filtered PATH');
  return env;
}

function run(cmd, args, opts, { expectFail = false } = {}) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT_MS, ...opts });
  const output = `${r.stdout || ''}${r.stderr || ''}`;
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const ok = r.status === 0 && !r.error;
  const what = `${cmd} ${args.join(' ')} (in ${opts.cwd}, ${secs} s)`;
  assert.ok(ok !== expectFail, `${what} ${expectFail ? 'succeeded, expected a failure' : 'failed'}: ` +
    `${r.error ? r.error.message : 'exit ' + (r.status ?? r.signal)}\n--- output (last 6000 chars) ---\n${output.slice(-6000)}`);
  return { stdout: r.stdout, output, secs, what };
}
const npm = (args, opts, more) => run(process.execPath, [NPM_CLI, ...args], opts, more);

function project(tmp, name) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  return dir;
}

// `require('tidytensor')` in the project computes tf.add(1, 2) = 3; prints which addon file it loaded.
const USE = "const tf = require('tidytensor');" +
  'const v = tf.add(1, 2).dataSync()[0];' +
  "if (v !== 3) { console.error('tf.add(1, 2) gave ' + v); process.exit(1); }" +
  "const addon = Object.keys(require.cache).find((f) => f.endsWith('.node'));" +
  "console.log('tf.add(1, 2) = ' + v + ' on backend ' + tf.getBackend() + ' with ' + addon);";

let tmp;
let mainTgz;
test.before(() => {
  if (SKIP) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tidytensor-install-'));
  // The main package, exactly what `npm publish` would publish.
  const packDir = path.join(tmp, 'pack');
  fs.mkdirSync(packDir);
  const pack = npm(['pack', '--json', '--pack-destination', packDir], { cwd: ROOT, env: cleanEnv() });
  const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')))[0];
  mainTgz = path.join(packDir, info.filename);
  const files = info.files.map((f) => f.path);
  for (const f of ['package.json', 'index.js', 'index.mjs', 'index.d.ts', 'binding.js', 'scripts/install.js', 'Cargo.toml', 'Cargo.lock', 'build.rs']) {
    assert.ok(files.includes(f), `the tarball lacks ${f}`);
  }
  // Every packed crate carries its sources (a `files` glob like "crates/*/src/" packs nothing).
  for (const manifest of files.filter((f) => /^crates\/[^/]+\/Cargo\.toml$/.test(f))) {
    const lib = manifest.replace('Cargo.toml', 'src/lib.rs');
    assert.ok(files.includes(lib), `the tarball has ${manifest} but not ${lib} (check "files" in package.json)`);
  }
  const stray = files.filter((f) => /^(target|node_modules|npm)\/|\.node$/.test(f));
  assert.deepEqual(stray, [], 'the tarball must not carry build outputs, node_modules or the platform packages');
});
test.after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the platform packages and optionalDependencies are in sync with napi.targets', { skip: SKIP }, () => {
  run(process.execPath, [path.join(ROOT, 'scripts', 'platforms.js'), '--check'], { cwd: ROOT });
  const pkg = require('../package.json');
  const ids = pkg.napi.targets.map((t) => require('../scripts/platforms').parseTriple(t).id);
  assert.deepEqual(ids, ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc']);
  for (const [name, version] of Object.entries(pkg.optionalDependencies)) assert.equal(version, pkg.version, name);
});

test('prebuilt: main + linux-x64-gnu tarballs install without Rust in seconds and work',
  { timeout: TIMEOUT_MS, skip: SKIP || (platformId() !== 'linux-x64-gnu' && 'the prebuilt test packs linux-x64-gnu') },
  (t) => {
    // The platform package, as release CI builds it (a release build; warm after `npm install`).
    const packed = run(process.execPath, [path.join(ROOT, 'scripts', 'pack-platform.js')], { cwd: ROOT, env: cleanEnv() });
    const lines = packed.stdout.trim().split('\n');
    const platformTgz = lines[lines.length - 1];
    assert.match(platformTgz, /tidytensor-linux-x64-gnu-.*\.tgz$/);
    t.diagnostic(`${lines[lines.length - 2]} (pack:platform ${packed.secs} s)`);

    const env = pathWithoutRust(tmp);
    const proj = project(tmp, 'prebuilt');
    const install = npm(['install', '--no-progress', '--foreground-scripts', '--prefer-offline', mainTgz, platformTgz], { cwd: proj, env });
    t.diagnostic(`npm install <main.tgz> <linux-x64-gnu.tgz>, no Rust on PATH: ${install.secs} s (target < 10 s)`);
    assert.doesNotMatch(install.output, BUILD_LINE, 'the install script built from source');
    assert.doesNotMatch(install.output, /EBADENGINE/, 'a normal install warns about engines');
    const pkgDir = path.join(proj, 'node_modules', 'tidytensor');
    assert.ok(!fs.existsSync(path.join(pkgDir, 'tidytensor.node')), 'a local build exists');
    for (const dir of [proj, pkgDir]) assert.ok(!fs.existsSync(path.join(dir, 'target')), `a compiler ran: ${dir}/target`);

    const use = run(process.execPath, ['-e', USE], { cwd: proj, env });
    assert.match(use.stdout, /tf\.add\(1, 2\) = 3 .*node_modules[\\/]tidytensor-linux-x64-gnu[\\/]tidytensor\.linux-x64-gnu\.node/);
    t.diagnostic(use.stdout.trim());
    // The ES module entry of the installed package (its `exports` map): the smoke subset's
    // import checks, run from the project.
    fs.copyFileSync(path.join(ROOT, '__test__', 'smoke', 'esm.mjs'), path.join(proj, 'esm.mjs'));
    const esm = run(process.execPath, ['esm.mjs'], { cwd: proj, env });
    assert.match(esm.stdout, /^esm: \d+ passed, 0 failed$/m);

    // TIDYTENSOR_BUILD_FROM_SOURCE=1 builds even though the prebuilt addon loads (here it
    // cannot: no cargo, which the install script says).
    const forced = npm(['rebuild', '--foreground-scripts', 'tidytensor'], { cwd: proj, env: { ...env, TIDYTENSOR_BUILD_FROM_SOURCE: '1' } },
      { expectFail: true });
    assert.match(forced.output, /tidytensor: TIDYTENSOR_BUILD_FROM_SOURCE is set; building from source with cargo/);
    assert.match(forced.output, /cargo was not found/);
  });

test('fallback: the main tarball alone builds the addon from source with cargo and works',
  { timeout: TIMEOUT_MS, skip: SKIP },
  (t) => {
    const proj = project(tmp, 'fallback');
    // --omit=optional: no prebuilt package, whatever the registry holds.
    const install = npm(['install', '--no-progress', '--foreground-scripts', '--prefer-offline', '--omit=optional', mainTgz], {
      cwd: proj,
      env: cleanEnv({ CARGO_TARGET_DIR: path.join(ROOT, 'target') }),
    });
    t.diagnostic(`npm install <main.tgz> (source build): ${install.secs} s`);
    assert.match(install.output, new RegExp(`tidytensor: no prebuilt addon for ${platformId()}; building from source with cargo`));
    const addon = path.join(proj, 'node_modules', 'tidytensor', 'tidytensor.node');
    assert.ok(fs.existsSync(addon), `the install script did not build ${addon}\n${install.output.slice(-4000)}`);

    const use = run(process.execPath, ['-e', USE], { cwd: proj, env: cleanEnv() });
    assert.match(use.stdout, /tf\.add\(1, 2\) = 3 .*node_modules[\\/]tidytensor[\\/]tidytensor\.node/);
    t.diagnostic(use.stdout.trim());
  });

test('neither prebuilt nor Rust: the install fails and the loader throws, with the documented messages',
  { timeout: TIMEOUT_MS, skip: SKIP },
  (t) => {
    const env = pathWithoutRust(path.join(tmp, 'norust'));
    const proj = project(tmp, 'neither');
    const args = ['install', '--no-progress', '--foreground-scripts', '--prefer-offline', '--omit=optional'];
    const failed = npm([...args, mainTgz], { cwd: proj, env }, { expectFail: true });
    assert.match(failed.output, BUILD_LINE);
    assert.match(failed.output, /tidytensor: cannot build from source: cargo was not found .*https:\/\/rustup\.rs/);

    npm([...args, '--ignore-scripts', mainTgz], { cwd: proj, env });
    const r = spawnSync(process.execPath, ['-e', "require('tidytensor')"], { cwd: proj, env, encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    const id = platformId();
    assert.match(r.stderr, new RegExp(`Error: tidytensor: no native addon could be loaded for ${id}: neither the prebuilt ` +
      `package tidytensor-${id} nor a build from source \\(.*tidytensor\\.node\\)\\. Prebuilt packages exist for ` +
      'linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, darwin-x64, darwin-arm64, win32-x64-msvc\\. To build from source, ' +
      'install Rust \\(https://rustup\\.rs\\), then run `TIDYTENSOR_BUILD_FROM_SOURCE=1 npm rebuild tidytensor`\\.'));
    t.diagnostic(r.stderr.split('\n').find((l) => l.startsWith('Error: tidytensor')));
  });
