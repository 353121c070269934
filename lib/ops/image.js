'use strict';
// tf.image: resizeNearestNeighbor, resizeBilinear and flipLeftRight, composed of gathers and
// elementwise ops that compute what tfjs's kernels compute (same source rows and columns, same
// interpolation); the checks and texts are tfjs's.
const { withOne, listArg } = require('./args');

const tidy = (f) => require('../engine').tidy(f);
const layout = () => require('./layout');
const e = () => require('./elementwise');
const creation = () => require('./creation');

// Checks shared by the resizes; returns [newHeight, newWidth].
function resizeArgs(name, t, size, alignCorners, halfPixelCenters) {
  if (t.rank !== 3 && t.rank !== 4) {
    throw new Error(`Error in ${name}: x must be rank 3 or 4, but got rank ${t.rank}.`);
  }
  const s = listArg(size);
  if (!s || s.length !== 2) throw new Error(`Error in ${name}: new shape must 2D, but got shape ${size}.`);
  if (!(halfPixelCenters === false || alignCorners === false)) {
    throw new Error(`Error in ${name}: If halfPixelCenters is true, alignCorners must be false.`);
  }
  if (!s.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new Error(`Error in ${name}: the new size must be non-negative integers, but got ${size}.`);
  }
  return s;
}

// Source positions of each output row (or column), as tfjs's kernels compute them.
function ratio(oldSize, newSize, alignCorners) {
  const inSize = alignCorners && newSize > 1 ? oldSize - 1 : oldSize;
  const outSize = alignCorners && newSize > 1 ? newSize - 1 : newSize;
  return inSize / outSize;
}

function nearestIndices(oldSize, newSize, alignCorners, halfPixelCenters) {
  const r = ratio(oldSize, newSize, alignCorners);
  const idx = new Int32Array(newSize);
  for (let k = 0; k < newSize; k++) {
    const frac = halfPixelCenters ? r * (k + 0.5) : r * k;
    let near = Math.min(oldSize - 1, alignCorners ? Math.round(frac) : Math.floor(frac));
    if (halfPixelCenters) near = Math.max(0, near);
    idx[k] = near;
  }
  return idx;
}

// [floor indices, ceil indices, fractions] of each output row (or column).
function bilinearSources(oldSize, newSize, alignCorners, halfPixelCenters) {
  const r = ratio(oldSize, newSize, alignCorners);
  const [lo, hi, frac] = [new Int32Array(newSize), new Int32Array(newSize), new Float32Array(newSize)];
  for (let k = 0; k < newSize; k++) {
    const src = halfPixelCenters ? r * (k + 0.5) - 0.5 : r * k;
    lo[k] = Math.max(0, Math.floor(src));
    hi[k] = Math.min(oldSize - 1, Math.ceil(src));
    frac[k] = src - lo[k];
  }
  return [lo, hi, frac];
}

// Runs `f` on the images as a batch, and gives the result the input's rank.
function batched(t, f) {
  return tidy(() => {
    const x = t.rank === 3 ? layout().expandDims(t, 0) : t;
    const y = f(x);
    return t.rank === 3 ? layout().squeeze(y, [0]) : y;
  });
}

const int32 = (a) => creation().tensor(a, [a.length], 'int32');

function resizeNearestNeighbor(images, size, alignCorners = false, halfPixelCenters = false) {
  return withOne(images, 'images', 'resizeNearestNeighbor', 'numeric', (t) => {
    const [h, w] = resizeArgs('resizeNearestNeighbor', t, size, alignCorners, halfPixelCenters);
    if (t.dtype !== 'float32' && t.dtype !== 'int32') {
      throw new Error('`images` must have `int32` or `float32` as dtype');
    }
    const [oldH, oldW] = t.rank === 3 ? t.shape.slice(0, 2) : t.shape.slice(1, 3);
    return batched(t, (x) => {
      const L = layout();
      const rows = L.gather(x, int32(nearestIndices(oldH, h, alignCorners, halfPixelCenters)), 1);
      return L.gather(rows, int32(nearestIndices(oldW, w, alignCorners, halfPixelCenters)), 2);
    });
  });
}

function resizeBilinear(images, size, alignCorners = false, halfPixelCenters = false) {
  return withOne(images, 'images', 'resizeBilinear', 'numeric', (t) => {
    const [h, w] = resizeArgs('resizeBilinear', t, size, alignCorners, halfPixelCenters);
    const [oldH, oldW] = t.rank === 3 ? t.shape.slice(0, 2) : t.shape.slice(1, 3);
    return batched(t, (x) => {
      const [L, E] = [layout(), e()];
      const xf = E.cast(x, 'float32');
      const [r0, r1, rf] = bilinearSources(oldH, h, alignCorners, halfPixelCenters);
      const [c0, c1, cf] = bilinearSources(oldW, w, alignCorners, halfPixelCenters);
      const colFrac = creation().tensor(cf, [1, 1, w, 1]);
      const rowFrac = creation().tensor(rf, [1, h, 1, 1]);
      // Along the columns, then between the two rows, as tfjs's kernel interpolates.
      const lerpCols = (rows) => {
        const left = L.gather(rows, int32(c0), 2);
        return E.add(left, E.mul(E.sub(L.gather(rows, int32(c1), 2), left), colFrac));
      };
      const top = lerpCols(L.gather(xf, int32(r0), 1));
      const bottom = lerpCols(L.gather(xf, int32(r1), 1));
      return E.add(top, E.mul(E.sub(bottom, top), rowFrac));
    });
  });
}

function flipLeftRight(image) {
  return withOne(image, 'image', 'flipLeftRight', 'float32', (t) => {
    if (t.rank !== 4) throw new Error(`Error in flipLeftRight: image must be rank 4,but got rank ${t.rank}.`);
    return layout().reverse(t, 2);
  });
}

const image = { resizeNearestNeighbor, resizeBilinear, flipLeftRight };

module.exports = { image };
