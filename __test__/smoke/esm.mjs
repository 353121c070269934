// The ES module half of the smoke subset: the package imported by its name, the three ways
// TensorFlow.js code imports it, all one module instance (one engine) with the CommonJS entry.
// Prints 'esm: N passed, 0 failed'; exits 1 on the first failure.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as ns from 'tidytensor';
import tf from 'tidytensor';
import { tensor, tidy, memory } from 'tidytensor';

const cjs = createRequire(import.meta.url)('tidytensor');
const checks = [
  ['the default export is the CommonJS namespace', () => assert.equal(tf, cjs)],
  ['every name of the namespace is a named export', () => {
    const named = Object.keys(ns).filter((k) => k !== 'default').sort();
    assert.deepEqual(named, Object.keys(cjs).sort());
    for (const k of named) assert.equal(ns[k], cjs[k], k);
  }],
  ['one engine: tensors made through the ES module count in the CommonJS memory()', () => {
    const before = cjs.memory().numTensors;
    const y = tidy(() => tensor([1, 2, 3]).square().sum());
    assert.equal(y.dataSync()[0], 14);
    assert.equal(cjs.memory().numTensors, before + 1);
    assert.equal(memory().numTensors, before + 1);
    y.dispose();
    assert.equal(ns.memory().numTensors, before);
  }],
];
let passed = 0;
for (const [name, fn] of checks) {
  try {
    fn();
  } catch (e) {
    console.log(`not ok ${name}: ${e && e.stack ? e.stack : e}`);
    console.log(`esm: ${passed} passed, 1 failed`);
    process.exit(1);
  }
  passed++;
  console.log(`ok ${name}`);
}
console.log(`esm: ${passed} passed, 0 failed`);
