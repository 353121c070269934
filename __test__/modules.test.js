'use strict';
// The package seen from another project, through its `exports` map: ES module and CommonJS
// imports at run time (one module instance, every name of the namespace a named export), and
// TypeScript type-checking both import styles under `module: nodenext` and `module: commonjs`.
// The project is a temporary folder whose node_modules/tidytensor links to this repository.
const { it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { esmSource, FILE } = require('../scripts/esm');

const ROOT = path.join(__dirname, '..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
let proj;

before(() => {
  proj = fs.mkdtempSync(path.join(os.tmpdir(), 'tidytensor-modules-'));
  fs.writeFileSync(path.join(proj, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  fs.mkdirSync(path.join(proj, 'node_modules', '@types'), { recursive: true });
  fs.symlinkSync(ROOT, path.join(proj, 'node_modules', 'tidytensor'), 'dir');
  fs.symlinkSync(path.join(ROOT, 'node_modules', '@types', 'node'), path.join(proj, 'node_modules', '@types', 'node'), 'dir');
  for (const f of fs.readdirSync(path.join(__dirname, 'types', 'modules'))) {
    fs.copyFileSync(path.join(__dirname, 'types', 'modules', f), path.join(proj, f));
  }
  fs.copyFileSync(path.join(__dirname, 'smoke', 'esm.mjs'), path.join(proj, 'esm.mjs'));
});
after(() => fs.rmSync(proj, { recursive: true, force: true }));

function run(args) {
  const r = spawnSync(process.execPath, args, { cwd: proj, encoding: 'utf8' });
  assert.equal(r.status, 0, `${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

it('index.mjs is what scripts/esm.js makes of the CommonJS namespace (npm run build:esm)', () => {
  assert.equal(fs.readFileSync(FILE, 'utf8'), esmSource());
});

it('import * as tf, import { … } and import tf: the CommonJS namespace, one engine', () => {
  assert.match(run(['esm.mjs']), /^esm: 3 passed, 0 failed$/m);
});

it('require and import in one process load one module', () => {
  const out = run(['--input-type=module', '-e', [
    "import { createRequire } from 'node:module';",
    "import * as tf from 'tidytensor';",
    "const cjs = createRequire(process.cwd() + '/').call(null, 'tidytensor');",
    'console.log(cjs === tf.default, cjs.tensor === tf.tensor, typeof tf.layers.dense);',
  ].join('\n')]);
  assert.equal(out.trim(), 'true true function');
});

it('the package.json subpath is exported; internals are not', () => {
  const out = run(['-e', [
    "console.log(require('tidytensor/package.json').name);",
    "try { require('tidytensor/lib/native'); console.log('reachable'); } catch (e) { console.log(e.code); }",
  ].join('\n')]);
  assert.equal(out.trim(), 'tidytensor\nERR_PACKAGE_PATH_NOT_EXPORTED');
});

for (const config of ['tsconfig.nodenext.json', 'tsconfig.commonjs.json']) {
  it(`TypeScript type-checks both import styles with ${config} (tsc --noEmit)`, () => {
    run([TSC, '--noEmit', '-p', config]);
  });
}
