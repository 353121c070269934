'use strict';
// tf.image: argument reading and one native call each (crates/core/src/ops/image.rs and
// dynamic.rs): the resizes, flipLeftRight, cropAndResize, transform, rotateWithOffset, the
// colour conversions and threshold, and non-max suppression (on the host, as tfjs runs it);
// the checks and texts are tfjs's.
const native = require('../native');
const { wrap, wrapId } = require('../tensor');
const { withOne, listArg, num } = require('./args');
const { convertToTensor } = require('../convert');

const layoutOps = require('./layout');

const layout = () => layoutOps;

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

// --- Color conversions (crates/core/src/ops/image.rs) ---

const grayscaleToRGB = (image) => withOne(image, 'image', 'grayscaleToRGB', 'numeric',
  (t) => wrap(native.grayscaleToRGB(t.id)));

const rgbToGrayscale = (image) => withOne(image, 'image', 'RGBToGrayscale', 'numeric',
  (t) => wrap(native.rgbToGrayscale(t.id)));

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
// inverted), else 0, as int32; 'otsu' picks the threshold from the image's histogram
// (crates/core/src/ops/image.rs).
const threshold = (image, method = 'binary', inverted = false, threshValue = 0.5) =>
  withOne(image, 'image', 'threshold', 'numeric',
    (t) => wrap(native.threshold(t.id, String(method), !!inverted, num(threshValue))));

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
