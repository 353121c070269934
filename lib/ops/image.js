'use strict';
// tf.image: the resizes (native kernels), flipLeftRight, cropAndResize and the colour
// conversions (composed of gathers and elementwise ops that compute what tfjs's kernels
// compute), and non-max suppression (on the host, as tfjs runs it); the checks and texts are
// tfjs's.
const native = require('../native');
const { wrap, wrapId } = require('../tensor');
const { withOne, listArg } = require('./args');
const { convertToTensor } = require('../convert');

const { tidy } = require('../engine');
const layoutOps = require('./layout');
const elementwise = require('./elementwise');
const reduce = require('./reduce');
const creationOps = require('./creation');

const layout = () => layoutOps;
const e = () => elementwise;
const creation = () => creationOps;

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
  // No tensor has 2^32 rows: a larger size could only fail to allocate.
  if (!s.every((d) => d < 2 ** 32)) throw new Error(`Error in ${name}: the new size ${size} is too large.`);
  return s;
}

// One native kernel each: the source rows and columns are tfjs's (crates/core/src/ops/image.rs).
function resizeNearestNeighbor(images, size, alignCorners = false, halfPixelCenters = false) {
  return withOne(images, 'images', 'resizeNearestNeighbor', 'numeric', (t) => {
    const [h, w] = resizeArgs('resizeNearestNeighbor', t, size, alignCorners, halfPixelCenters);
    if (t.dtype !== 'float32' && t.dtype !== 'int32') {
      throw new Error('`images` must have `int32` or `float32` as dtype');
    }
    return wrap(native.resize(false, t.id, h, w, !!alignCorners, !!halfPixelCenters));
  });
}

function resizeBilinear(images, size, alignCorners = false, halfPixelCenters = false) {
  return withOne(images, 'images', 'resizeBilinear', 'numeric', (t) => {
    const [h, w] = resizeArgs('resizeBilinear', t, size, alignCorners, halfPixelCenters);
    return wrap(native.resize(true, t.id, h, w, !!alignCorners, !!halfPixelCenters));
  });
}

function flipLeftRight(image) {
  return withOne(image, 'image', 'flipLeftRight', 'float32', (t) => {
    if (t.rank !== 4) throw new Error(`Error in flipLeftRight: image must be rank 4,but got rank ${t.rank}.`);
    return layout().reverse(t, 2);
  });
}

// --- Non-max suppression: on the host, as tfjs runs it (crates/core/src/ops/dynamic.rs) ---

// Converts the arguments, runs the native selection (`outputs`: 'indices', 'scores' or
// 'padded'; after awaiting the values when `async`, so no GPU read blocks), and frees the
// conversions.
function nms(op, boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma, async, outputs, pad) {
  // Only the synchronous nonMaxSuppression insists on float32 values, as in tfjs.
  const parseAs = op === 'nonMaxSuppression' && softNmsSigma === null ? 'float32' : 'numeric';
  const tb = convertToTensor(boxes, 'boxes', op, parseAs);
  let ts;
  const free = () => {
    if (tb !== boxes) tb.dispose();
    if (ts !== undefined && ts !== scores) ts.dispose();
  };
  const run = () => {
    const ids = native.nonMaxSuppression(tb.id, ts.id, Number(maxOutputSize),
      iouThreshold == null ? 0.5 : Number(iouThreshold),
      scoreThreshold == null ? Number.NEGATIVE_INFINITY : Number(scoreThreshold),
      softNmsSigma == null ? 0 : Number(softNmsSigma), outputs, !!pad);
    const [indices, second] = ids.map(wrapId);
    if (outputs === 'indices') return indices;
    if (outputs === 'scores') return { selectedIndices: indices, selectedScores: second };
    return { selectedIndices: indices, validOutputs: second };
  };
  let reading = false;
  try {
    ts = convertToTensor(scores, 'scores', op, parseAs);
    if (!async) return run();
    reading = true;
    return Promise.all([tb.data(), ts.data()]).then(run).finally(free);
  } finally {
    if (!reading) free();
  }
}

function nonMaxSuppression(boxes, scores, maxOutputSize, iouThreshold = 0.5, scoreThreshold = Number.NEGATIVE_INFINITY) {
  return nms('nonMaxSuppression', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, null, false, 'indices');
}
async function nonMaxSuppressionAsync(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY) {
  return nms('nonMaxSuppressionAsync', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, null, true, 'indices');
}
function nonMaxSuppressionWithScore(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY, softNmsSigma = 0) {
  return nms('nonMaxSuppression', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma, false,
    'scores');
}
async function nonMaxSuppressionWithScoreAsync(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY, softNmsSigma = 0) {
  return nms('nonMaxSuppressionAsync', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma,
    true, 'scores');
}
function nonMaxSuppressionPadded(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY, padToMaxOutputSize = false) {
  return nms('nonMaxSuppression', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, 0, false, 'padded',
    padToMaxOutputSize);
}
async function nonMaxSuppressionPaddedAsync(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY, padToMaxOutputSize = false) {
  return nms('nonMaxSuppressionAsync', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, 0, true, 'padded',
    padToMaxOutputSize);
}

// --- Color conversions ---

function grayscaleToRGB(image) {
  return withOne(image, 'image', 'grayscaleToRGB', 'numeric', (t) => {
    if (t.rank < 2) throw new Error(`Error in grayscaleToRGB: images must be at least rank 2, but got rank ${t.rank}.`);
    const last = t.shape[t.rank - 1];
    if (last !== 1) {
      throw new Error(`Error in grayscaleToRGB: last dimension of a grayscale image should be size 1, but got size ${last}.`);
    }
    return layout().tile(t, [...new Array(t.rank - 1).fill(1), 3]);
  });
}

function rgbToGrayscale(image) {
  return withOne(image, 'image', 'RGBToGrayscale', 'numeric', (t) => {
    if (t.rank < 2) throw new Error(`Error in RGBToGrayscale: images must be at least rank 2, but got rank ${t.rank}.`);
    const last = t.shape[t.rank - 1];
    if (last !== 3) {
      throw new Error(`Error in RGBToGrayscale: last dimension of an RGB image should be size 3, but got size ${last}.`);
    }
    return tidy(() => {
      const weights = creation().tensor1d([0.2989, 0.5870, 0.1140]);
      const gray = reduce.sum(e().mul(t.cast('float32'), weights), -1, true);
      return gray.cast(t.dtype);
    });
  });
}

// tf.image.cropAndResize (crates/core/src/ops/image.rs: tfjs's sample positions from the
// boxes, the image values gathered and interpolated).
function cropAndResize(image, boxes, boxInd, cropSize, method = 'bilinear', extrapolationValue = 0) {
  return withOne(image, 'image', 'cropAndResize', 'numeric', (img) => {
    const tb = convertToTensor(boxes, 'boxes', 'cropAndResize', 'float32');
    let ti;
    try {
      ti = convertToTensor(boxInd, 'boxInd', 'cropAndResize', 'int32');
      const size = listArg(cropSize);
      const sizes = Array.isArray(size) || ArrayBuffer.isView(size) ? Array.from(size, Number) : [];
      return wrap(native.cropAndResize(img.id, tb.id, ti.id, sizes, String(method), +extrapolationValue));
    } finally {
      if (tb !== boxes) tb.dispose();
      if (ti !== undefined && ti !== boxInd) ti.dispose();
    }
  });
}

// tf.image.transform: projective transforms [a0, a1, a2, b0, b1, b2, c0, c1] mapping output
// (x, y) to input ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1. Every
// image of the batch is transformed (tfjs's cpu kernel fills all but the first); the taps are
// found in crates/core/src/ops/image.rs.
function transform(image, transforms, interpolation = 'nearest', fillMode = 'constant', fillValue = 0, outputShape) {
  return withOne(image, 'image', 'transform', 'float32', (img) => {
    const tt = convertToTensor(transforms, 'transforms', 'transform', 'float32');
    try {
      const shape = outputShape == null ? null : listArg(outputShape);
      if (shape != null && !(Array.isArray(shape) || ArrayBuffer.isView(shape))) {
        throw new Error(`Error in transform: outputShape must be [height, width] or null, but got ${outputShape}.`);
      }
      return wrap(native.transform(img.id, tt.id, String(interpolation), String(fillMode), +fillValue,
        shape == null ? null : Array.from(shape, Number)));
    } finally {
      if (tt !== transforms) tt.dispose();
    }
  });
}

// tf.image.rotateWithOffset: each output pixel reads the input pixel that the rotation about
// `center` (fractions of the width and height) brings to it, or the fill value (one per
// channel when a list; 255 in a fourth channel).
function rotateWithOffset(image, radians, fillValue = 0, center = 0.5) {
  return withOne(image, 'image', 'rotateWithOffset', 'float32', (img) => {
    if (img.rank !== 4) throw new Error(`Error in rotateWithOffset: image must be rank 4,but got rank ${img.rank}.`);
    const c = img.shape[3];
    const [cx, cy] = typeof center === 'number' ? [center, center] : [center[0], center[1]];
    const fill = typeof fillValue === 'number' ? [fillValue]
      : Array.from({ length: c }, (_, k) => (k === 3 ? 255 : fillValue[k]));
    return wrap(native.rotateWithOffset(img.id, Number(radians), fill.map(Number), Number(cx), Number(cy)));
  });
}

// tf.image.threshold: 255 where the (grayscale) image is above the threshold (at most it when
// inverted), else 0, as int32; 'otsu' picks the threshold that maximises the between-class
// variance of the 256-bin histogram, computed on the host in float32 steps as tfjs's ops do.
function threshold(image, method = 'binary', inverted = false, threshValue = 0.5) {
  return withOne(image, 'image', 'threshold', 'numeric', (t) => {
    if (t.rank !== 3) throw new Error(`Error in threshold: image must be rank 3,but got rank ${t.rank}.`);
    if (t.shape[2] !== 3 && t.shape[2] !== 1) {
      throw new Error(`Error in threshold: image color channel must be equal to 3 or 1but got ${t.shape[2]}.`);
    }
    if (t.dtype !== 'int32' && t.dtype !== 'float32') {
      throw new Error(`Error in dtype: image dtype must be int32 or float32,but got dtype ${t.dtype}.`);
    }
    if (method !== 'otsu' && method !== 'binary') throw new Error(`Method must be binary or otsu, but was ${method}`);
    const E = e();
    const C = creation();
    return tidy(() => {
      let gray = t;
      if (t.shape[2] === 3) {
        const [r, g, b] = layout().split(t, [1, 1, 1], -1);
        gray = E.add(E.add(E.mul(r, 0.2989), E.mul(g, 0.5870)), E.mul(b, 0.1140));
      }
      let limit = Math.fround(Math.fround(threshValue) * 255);
      if (method === 'otsu') {
        const hist = layout().bincount(E.round(gray).cast('int32'), C.tensor([]), 256).dataSync();
        limit = otsu(hist, t.shape[0] * t.shape[1]);
      }
      const cond = inverted ? E.lessEqual(gray, C.scalar(limit)) : E.greater(gray, C.scalar(limit));
      return E.mul(cond, 255).cast('int32');
    });
  });
}

function otsu(hist, total) {
  const f = Math.fround;
  let best = -1;
  let bestVar = 0;
  for (let i = 0; i < hist.length - 1; i++) {
    let [n1, s1, n2, s2] = [0, 0, 0, 0];
    for (let k = 0; k <= i; k++) { n1 += hist[k]; s1 += hist[k] * k; }
    for (let k = i + 1; k < hist.length; k++) { n2 += hist[k]; s2 += hist[k] * k; }
    const [wf, wb] = [f(n1 / total), f(n2 / total)];
    const d = f(f(s1 / n1) - f(s2 / n2));
    const v = f(f(f(wf * wb) * d) * d);
    if (v > bestVar) { bestVar = v; best = i; }
  }
  return best;
}

const P = require('../tensor').Tensor.prototype;
P.resizeBilinear = function (newShape2D, alignCorners, halfPixelCenters) {
  return resizeBilinear(this, newShape2D, alignCorners, halfPixelCenters);
};
P.resizeNearestNeighbor = function (newShape2D, alignCorners, halfFloatCenters) {
  return resizeNearestNeighbor(this, newShape2D, alignCorners, halfFloatCenters);
};

const image = {
  cropAndResize, transform, rotateWithOffset, threshold,
  resizeNearestNeighbor, resizeBilinear, flipLeftRight, grayscaleToRGB, rgbToGrayscale,
  nonMaxSuppression, nonMaxSuppressionAsync, nonMaxSuppressionWithScore, nonMaxSuppressionWithScoreAsync,
  nonMaxSuppressionPadded, nonMaxSuppressionPaddedAsync,
};

module.exports = { image };
