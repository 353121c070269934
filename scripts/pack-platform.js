'use strict';
// `npm run pack:platform [-- --target <rust triple>]`: release-builds the addon for this
// machine's platform (or for --target, one of package.json's napi.targets, cross-compiling)
// into its npm/<platform>/ package, then `npm pack`s that package into .tmp/pack/. The last
// line printed is the .tgz path. Release CI runs this once per target (see RELEASING.md).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { platforms } = require('./platforms');
const { platformId } = require('../binding');

const ROOT = path.join(__dirname, '..');
const argv = process.argv.slice(2);
const targetArg = argv.includes('--target') ? argv[argv.indexOf('--target') + 1] : null;
const all = platforms();
const p = targetArg ? all.find((x) => x.triple === targetArg) : all.find((x) => x.id === platformId());
if (!p) {
  console.error(`pack:platform: ${targetArg || platformId()} is not in package.json's napi.targets`);
  process.exit(1);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...opts });
  if (r.error || r.status !== 0) {
    console.error(`pack:platform: ${cmd} ${args.join(' ')} failed (${r.error ? r.error.message : `exit ${r.status}`})\n${r.stderr || ''}`);
    process.exit(1);
  }
  return r.stdout;
}

// 1. The release build (the package.json version must match the npm/ manifests).
run(process.execPath, [path.join(__dirname, 'platforms.js'), '--check'], { stdio: ['ignore', 'ignore', 'inherit'] });
const cargoArgs = ['build', '--release', '-p', 'tidytensor', '--message-format=json-render-diagnostics'];
// --target always (the host's by default), as `napi build` does: one cache, target/<triple>/release.
cargoArgs.push('--target', p.triple);
const out = run(process.env.CARGO || 'cargo', cargoArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
let lib = null;
for (const line of out.split('\n')) {
  if (!line.startsWith('{')) continue;
  const msg = JSON.parse(line);
  if (msg.reason === 'compiler-artifact' && msg.target.name === 'tidytensor' && msg.target.kind.includes('cdylib')) {
    lib = msg.filenames.find((f) => /\.(so|dylib|dll)$/.test(f)) || lib;
  }
}
if (!lib) {
  console.error('pack:platform: cargo build reported no tidytensor cdylib');
  process.exit(1);
}

// 2. Into npm/<platform>/ (the .node file is git-ignored), then pack.
fs.copyFileSync(lib, path.join(p.dir, p.nodeFile));
const dest = path.join(ROOT, '.tmp', 'pack');
fs.mkdirSync(dest, { recursive: true });
const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dest], { cwd: p.dir, shell: process.platform === 'win32' }))[0];
const tgz = path.join(dest, packed.filename);
const mb = (n) => (n / 1e6).toFixed(1);
console.log(`pack:platform: ${p.name}@${packed.version} (${p.triple}): ${p.nodeFile} ${mb(packed.unpackedSize)} MB, packed ${mb(packed.size)} MB`);
console.log(tgz);
