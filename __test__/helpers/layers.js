'use strict';
// What the differential layer tests share: deterministic data, value comparison, and copying
// tfjs's (randomized) weights into tidytensor's layers.
const { tt, tfo, assert } = require('./setup');

const size = (shape) => shape.reduce((a, b) => a * b, 1);
const list = (x) => (Array.isArray(x) ? x : [x]);

// n values uniform in [lo, hi) from a small LCG, the same on every run.
function data(n, seed, lo = -2, hi = 2) {
  let s = (seed * 1103515245 + 12345) >>> 0;
  const v = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    v[i] = lo + (hi - lo) * (s / 4294967296);
  }
  return v;
}

// Every value within `tol` (relative, at least absolute); NaN only where a NaN is expected.
function closeTo(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: value count`);
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i]));
    if (!(d <= tol) && !(Number.isNaN(got[i]) && Number.isNaN(want[i]))) {
      assert.fail(`${what}: [${i}] got ${got[i]}, expected ${want[i]} (tolerance ${tol})`);
    }
  }
}

function compareTensors(got, want, tol, what) {
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  assert.equal(got.dtype, want.dtype, `${what}: dtype`);
  closeTo(got.dataSync(), want.dataSync(), tol, what);
}

// Deterministic weights for a tfjs layer (variances positive, so that normalizations divide
// by something).
function randomizeWeights(layer, seed) {
  const values = layer.weights.map((w, i) => {
    const positive = /variance/.test(w.name);
    return tfo.tensor(data(size(w.shape), seed + i, positive ? 0.5 : -0.8, positive ? 1.5 : 0.8), w.shape, w.dtype);
  });
  if (values.length > 0) layer.setWeights(values);
  tfo.dispose(values);
}

// tfjs's layer's (or model's) weights into ours.
function copyWeights(ours, theirs) {
  const temps = theirs.getWeights().map((w) => tt.tensor(w.dataSync(), w.shape, w.dtype));
  ours.setWeights(temps);
  tt.dispose(temps);
}

module.exports = { size, list, data, closeTo, compareTensors, randomizeWeights, copyWeights };
