'use strict';
// The package installs into another project with nothing but Node, npm and Rust: `npm pack`
// this repository, `npm install <the .tgz>` into a fresh temporary project (which runs the
// package's `install` script, a release build of the addon from the packed sources), then
// `require('tidytensor')` there computes tf.add(1, 2) = 3.
//
// Speed trick: the nested build gets CARGO_TARGET_DIR=<this repo>/target, so the dependency
// crates already compiled for this repository (napi, gemm, …) are reused and only the
// workspace's own crates are recompiled; without it the test would spend minutes rebuilding
// every dependency from scratch. (Cargo locks the target directory, so a concurrent build in
// the repository simply waits. The nested build leaves its artifact in target/release/, where
// the repository's own release build would put the same file built from the same sources.)
//
// Set TIDYTENSOR_SKIP_INSTALL_TEST=1 to skip this test.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const TIMEOUT_MS = 15 * 60 * 1000;

// The environment for the nested npm commands: this process may itself run under `npm test`,
// whose npm_package_* / npm_lifecycle_* / prefix variables describe this repository and must
// not leak into the temporary project. npm's cache and registry settings are kept.
function cleanEnv(extra) {
  const env = {};
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'npm_config_globalconfig']);
  for (const [k, v] of Object.entries(process.env)) {
    const lk = k.toLowerCase();
    if ((lk.startsWith('npm_') && !keep.has(lk)) || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  return { ...env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false', ...extra };
}

function run(cmd, args, opts) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT_MS, ...opts });
  const output = `${r.stdout || ''}${r.stderr || ''}`;
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const ok = r.status === 0 && !r.error;
  const what = `${cmd} ${args.join(' ')} (in ${opts.cwd}, ${secs} s)`;
  assert.ok(ok, `${what} failed: ${r.error ? r.error.message : 'exit ' + (r.status ?? r.signal)}\n` +
    `--- output (last 6000 chars) ---\n${output.slice(-6000)}`);
  return { stdout: r.stdout, output, secs, what };
}

test('npm pack + npm install <tgz> in a fresh project builds the addon and computes tf.add(1, 2) = 3',
  { timeout: TIMEOUT_MS },
  (t) => {
    if (process.env.TIDYTENSOR_SKIP_INSTALL_TEST === '1') {
      t.skip('TIDYTENSOR_SKIP_INSTALL_TEST=1');
      return;
    }
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tidytensor-install-'));
    try {
      // 1. Pack exactly what `npm publish` would publish.
      const packDir = path.join(tmp, 'pack');
      fs.mkdirSync(packDir);
      const pack = run(NPM, ['pack', '--json', '--pack-destination', packDir], { cwd: ROOT, env: cleanEnv() });
      const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')))[0];
      const tgz = path.join(packDir, info.filename);
      assert.ok(fs.existsSync(tgz), `npm pack did not write ${tgz}`);
      const files = info.files.map((f) => f.path);
      t.diagnostic(`packed ${files.length} files, ${(info.size / 1024).toFixed(0)} KiB: ${info.filename}`);
      for (const f of ['package.json', 'index.js', 'Cargo.toml', 'Cargo.lock', 'build.rs']) {
        assert.ok(files.includes(f), `the tarball lacks ${f}`);
      }
      // Every packed crate carries its sources (a `files` glob like "crates/*/src/" packs nothing).
      for (const manifest of files.filter((f) => /^crates\/[^/]+\/Cargo\.toml$/.test(f))) {
        const lib = manifest.replace('Cargo.toml', 'src/lib.rs');
        assert.ok(files.includes(lib), `the tarball has ${manifest} but not ${lib} (check "files" in package.json)`);
      }
      const stray = files.filter((f) => /^(target|node_modules)\/|\.node$/.test(f));
      assert.deepEqual(stray, [], 'the tarball must not carry build outputs or node_modules');

      // 2. A fresh project that installs the tarball: runs the package's install script.
      const proj = path.join(tmp, 'project');
      fs.mkdirSync(proj);
      run(NPM, ['init', '-y'], { cwd: proj, env: cleanEnv() });
      const install = run(NPM, ['install', '--no-progress', '--foreground-scripts', '--prefer-offline', tgz], {
        cwd: proj,
        env: cleanEnv({ CARGO_TARGET_DIR: path.join(ROOT, 'target') }),
      });
      t.diagnostic(`npm install <tgz>: ${install.secs} s`);
      const addon = path.join(proj, 'node_modules', 'tidytensor', 'tidytensor.node');
      assert.ok(fs.existsSync(addon), `the install script did not build ${addon}\n${install.output.slice(-4000)}`);

      // 3. Use it from the fresh project, the way a user would.
      const code = "const tf = require('tidytensor');" +
        'const v = tf.add(1, 2).dataSync()[0];' +
        "if (v !== 3) { console.error('tf.add(1, 2) gave ' + v); process.exit(1); }" +
        "console.log('tf.add(1, 2) = ' + v + ' on backend ' + tf.getBackend());";
      const use = run(process.execPath, ['-e', code], { cwd: proj, env: cleanEnv() });
      assert.match(use.stdout, /tf\.add\(1, 2\) = 3/);
      t.diagnostic(use.stdout.trim());
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
