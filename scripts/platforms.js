'use strict';
// The per-platform npm packages, all derived from package.json's `napi.targets` (Rust target
// triples): npm/<platform>/package.json (the fields `napi create-npm-dirs` writes: os, cpu,
// libc, main = the .node file, files) and the main package's `optionalDependencies`, each at
// the main package's exact version, and their entries in package-lock.json. (Until a version's
// platform packages are on the registry npm cannot write those entries itself, and without them
// `npm ci` refuses the lock file; once published, `npm install` adds `resolved` and `integrity`
// to them, which this script keeps.)
//
//   node scripts/platforms.js           rewrites them (`npm run sync:platforms`; also run by
//                                       `npm version` through the "version" script)
//   node scripts/platforms.js --check   exits 1, naming the file, if any is out of date
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const ARCH = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' };
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' };

// 'x86_64-unknown-linux-gnu' -> { id: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc', ... }
function parseTriple(triple) {
  const parts = triple.split('-');
  const cpu = ARCH[parts[0]];
  const sys = parts[2] === 'darwin' ? 'darwin' : parts[2];
  const abi = parts[3] || null;
  const os = OS[sys];
  if (!cpu || !os) throw new Error(`platforms: unsupported target ${triple}`);
  const id = [os, cpu, os === 'darwin' ? null : abi].filter(Boolean).join('-');
  const libc = os === 'linux' ? (abi === 'musl' ? 'musl' : 'glibc') : null;
  return { triple, id, os, cpu, libc, dir: path.join(ROOT, 'npm', id) };
}

function platforms(pkg = readJson(path.join(ROOT, 'package.json'))) {
  return pkg.napi.targets.map((triple) => {
    const p = parseTriple(triple);
    const name = `${pkg.name}-${p.id}`;
    const nodeFile = `${pkg.napi.binaryName}.${p.id}.node`;
    const manifest = {
      name,
      version: pkg.version,
      description: `The prebuilt ${p.triple} native addon of ${pkg.name}; installed by ${pkg.name}, not used directly.`,
      cpu: [p.cpu],
      main: nodeFile,
      files: [nodeFile],
      license: pkg.license,
      engines: pkg.engines,
      os: [p.os],
      ...(p.libc ? { libc: [p.libc] } : {}),
    };
    return { ...p, name, nodeFile, manifest };
  });
}

// What the files should hold: { path: text }.
function expected() {
  const pkgFile = path.join(ROOT, 'package.json');
  const pkg = readJson(pkgFile);
  const list = platforms(pkg);
  const out = {};
  for (const p of list) out[path.join(p.dir, 'package.json')] = `${JSON.stringify(p.manifest, null, 2)}\n`;
  const optionalDependencies = Object.fromEntries(list.map((p) => [p.name, pkg.version]));
  out[pkgFile] = `${JSON.stringify({ ...pkg, optionalDependencies }, null, 2)}\n`;
  const lockFile = path.join(ROOT, 'package-lock.json');
  if (fs.existsSync(lockFile)) {
    const lock = readJson(lockFile);
    const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b, 'en')));
    lock.packages[''].optionalDependencies = sorted(optionalDependencies);
    for (const key of Object.keys(lock.packages)) {
      if (key.startsWith(`node_modules/${pkg.name}-`) && !list.some((p) => key === `node_modules/${p.name}`)) delete lock.packages[key];
    }
    for (const p of list) {
      const key = `node_modules/${p.name}`;
      const m = p.manifest;
      if (lock.packages[key] && lock.packages[key].version === m.version) continue;
      lock.packages[key] = {
        version: m.version, cpu: m.cpu, ...(m.libc ? { libc: m.libc } : {}), license: m.license, optional: true, os: m.os, engines: m.engines,
      };
    }
    lock.packages = sorted(lock.packages);
    out[lockFile] = `${JSON.stringify(lock, null, 2)}\n`;
  }
  return out;
}

module.exports = { parseTriple, platforms, expected };

if (require.main === module) {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const [file, text] of Object.entries(expected())) {
    const now = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    if (now === text) continue;
    stale.push(path.relative(ROOT, file));
    if (!check) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
  }
  if (check && stale.length) {
    console.error(`platforms: out of date (run \`npm run sync:platforms\`): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log(check ? 'platforms: in sync' : `platforms: ${stale.length ? `wrote ${stale.join(', ')}` : 'nothing to change'}`);
}
