'use strict';
// tf.image: the resizes (native kernels), flipLeftRight, cropAndResize and the colour
// conversions (composed of gathers and elementwise ops that compute what tfjs's kernels
// compute), and non-max suppression (on the host, as tfjs runs it); the checks and texts are
// tfjs's.
const native = require('../native');
const { wrap } = require('../tensor');
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

// --- Non-max suppression: tfjs runs it on the host, on the values of boxes and scores ---

// tfjs's nonMaxSuppSanityCheck: defaults, the output size capped at the number of boxes.
function nmsArgs(boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma) {
  const iou = iouThreshold == null ? 0.5 : iouThreshold;
  const minScore = scoreThreshold == null ? Number.NEGATIVE_INFINITY : scoreThreshold;
  const sigma = softNmsSigma == null ? 0 : softNmsSigma;
  const numBoxes = boxes.shape[0];
  if (!(iou >= 0 && iou <= 1)) throw new Error(`iouThreshold must be in [0, 1], but was '${iou}'`);
  if (boxes.rank !== 2) throw new Error(`boxes must be a 2D tensor, but was of rank '${boxes.rank}'`);
  if (boxes.shape[1] !== 4) throw new Error(`boxes must have 4 columns, but 2nd dimension was ${boxes.shape[1]}`);
  if (scores.rank !== 1) throw new Error('scores must be a 1D tensor');
  if (scores.shape[0] !== numBoxes) {
    throw new Error(`scores has incompatible shape with boxes. Expected ${numBoxes}, but was ${scores.shape[0]}`);
  }
  if (!(sigma >= 0 && sigma <= 1)) throw new Error(`softNmsSigma must be in [0, 1], but was '${sigma}'`);
  const max = Math.min(maxOutputSize, numBoxes);
  if (!Number.isInteger(max) || max < 0) {
    throw new Error(`maxOutputSize must be a non-negative integer, but was ${maxOutputSize}`);
  }
  return { max, iou, minScore, sigma };
}

// Intersection over union of boxes i and j ([y1, x1, y2, x2], corners in either order).
function overlap(b, i, j) {
  const box = (k) => [Math.min(b[4 * k], b[4 * k + 2]), Math.min(b[4 * k + 1], b[4 * k + 3]),
    Math.max(b[4 * k], b[4 * k + 2]), Math.max(b[4 * k + 1], b[4 * k + 3])];
  const [ay0, ax0, ay1, ax1] = box(i);
  const [by0, bx0, by1, bx1] = box(j);
  const areaA = (ay1 - ay0) * (ax1 - ax0);
  const areaB = (by1 - by0) * (bx1 - bx0);
  if (areaA <= 0 || areaB <= 0) return 0;
  const inter = Math.max(Math.min(ay1, by1) - Math.max(ay0, by0), 0) *
    Math.max(Math.min(ax1, bx1) - Math.max(ax0, bx0), 0);
  return inter / (areaA + areaB - inter);
}

// Greedy selection by score: a candidate overlapping a selected box by iou or more is dropped;
// with softNmsSigma > 0 lesser overlaps scale its score by exp(-iou² / 2σ) and it competes
// again (TensorFlow's NonMaxSuppressionV5). Ties go to the lower box index.
function selectBoxes(b, scores, { max, iou, minScore, sigma }) {
  const before = (p, q) => p.score - q.score || q.box - p.box; // ascending: best last
  const queue = [];
  for (let i = 0; i < scores.length; i++) {
    if (scores[i] > minScore) queue.push({ score: scores[i], box: i, checkedUpTo: 0 });
  }
  queue.sort(before);
  const scale = sigma > 0 ? -0.5 / sigma : 0;
  const picked = [];
  const pickedScores = [];
  while (picked.length < max && queue.length > 0) {
    const c = queue.pop();
    const original = c.score;
    if (original < minScore) break;
    let dropped = false;
    for (let j = picked.length - 1; j >= c.checkedUpTo; j--) {
      const o = overlap(b, c.box, picked[j]);
      if (o >= iou) { dropped = true; break; }
      c.score *= o <= iou ? Math.exp(scale * o * o) : 0;
      if (c.score <= minScore) break;
    }
    c.checkedUpTo = picked.length;
    if (dropped) continue;
    if (c.score === original) {
      picked.push(c.box);
      pickedScores.push(c.score);
    } else if (c.score > minScore) {
      // Back into the queue at its new place (binary search in the ascending list).
      let lo = 0;
      let hi = queue.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (before(queue[mid], c) < 0) lo = mid + 1; else hi = mid;
      }
      queue.splice(lo, 0, c);
    }
  }
  return { picked, pickedScores };
}

// Converts the arguments, runs `pick(boxValues, scoreValues, args)` (synchronously, or after
// awaiting the values), and frees the conversions.
function nms(op, boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma, async, pick) {
  // Only the synchronous nonMaxSuppression insists on float32 values, as in tfjs.
  const parseAs = op === 'nonMaxSuppression' && softNmsSigma === null ? 'float32' : 'numeric';
  const { convertToTensor } = require('../convert');
  const tb = convertToTensor(boxes, 'boxes', op, parseAs);
  let ts;
  const free = () => {
    if (tb !== boxes) tb.dispose();
    if (ts !== undefined && ts !== scores) ts.dispose();
  };
  let reading = false;
  try {
    ts = convertToTensor(scores, 'scores', op, parseAs);
    const args = nmsArgs(tb, ts, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma);
    if (!async) return pick(tb.dataSync(), ts.dataSync(), args);
    reading = true;
    return Promise.all([tb.data(), ts.data()]).then(([b, s]) => pick(b, s, args)).finally(free);
  } finally {
    if (!reading) free();
  }
}

const indicesOf = ({ picked }) => creation().tensor1d(picked, 'int32');
const withScores = (r) => ({
  selectedIndices: creation().tensor1d(r.picked, 'int32'),
  selectedScores: creation().tensor1d(r.pickedScores, 'float32'),
});
const padded = (max, pad) => ({ picked }) => {
  const valid = picked.length;
  const out = pad && valid < max ? picked.concat(new Array(max - valid).fill(0)) : picked;
  return { selectedIndices: creation().tensor1d(out, 'int32'), validOutputs: creation().scalar(valid, 'int32') };
};

function nonMaxSuppression(boxes, scores, maxOutputSize, iouThreshold = 0.5, scoreThreshold = Number.NEGATIVE_INFINITY) {
  return nms('nonMaxSuppression', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, null, false,
    (b, s, a) => indicesOf(selectBoxes(b, s, a)));
}
async function nonMaxSuppressionAsync(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY) {
  return nms('nonMaxSuppressionAsync', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, 0, true,
    (b, s, a) => indicesOf(selectBoxes(b, s, a)));
}
function nonMaxSuppressionWithScore(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY, softNmsSigma = 0) {
  return nms('nonMaxSuppression', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma, false,
    (b, s, a) => withScores(selectBoxes(b, s, a)));
}
async function nonMaxSuppressionWithScoreAsync(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY, softNmsSigma = 0) {
  return nms('nonMaxSuppressionAsync', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, softNmsSigma,
    true, (b, s, a) => withScores(selectBoxes(b, s, a)));
}
function nonMaxSuppressionPadded(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY, padToMaxOutputSize = false) {
  return nms('nonMaxSuppression', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, 0, false,
    (b, s, a) => padded(a.max, padToMaxOutputSize)(selectBoxes(b, s, a)));
}
async function nonMaxSuppressionPaddedAsync(boxes, scores, maxOutputSize, iouThreshold = 0.5,
  scoreThreshold = Number.NEGATIVE_INFINITY, padToMaxOutputSize = false) {
  return nms('nonMaxSuppressionAsync', boxes, scores, maxOutputSize, iouThreshold, scoreThreshold, 0, true,
    (b, s, a) => padded(a.max, padToMaxOutputSize)(selectBoxes(b, s, a)));
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
      const gray = require('./reduce').sum(e().mul(t.cast('float32'), weights), -1, true);
      return gray.cast(t.dtype);
    });
  });
}

// tf.image.cropAndResize: the sample positions of every output pixel are computed on the host
// from the (small) boxes, as tfjs's kernel computes them; the image values are gathered and
// interpolated on the backend.
function cropAndResize(image, boxes, boxInd, cropSize, method = 'bilinear', extrapolationValue = 0) {
  const { convertToTensor } = require('../convert');
  return withOne(image, 'image', 'cropAndResize', 'numeric', (img) => {
    const tb = convertToTensor(boxes, 'boxes', 'cropAndResize', 'float32');
    let ti;
    try {
      ti = convertToTensor(boxInd, 'boxInd', 'cropAndResize', 'int32');
      const n = tb.shape[0];
      if (img.rank !== 4) throw new Error(`Error in cropAndResize: image must be rank 4,but got rank ${img.rank}.`);
      if (tb.rank !== 2 || tb.shape[1] !== 4) {
        throw new Error(`Error in cropAndResize: boxes must be have size [${n},4] but had shape ${tb.shape}.`);
      }
      if (ti.rank !== 1 || ti.shape[0] !== n) {
        throw new Error(`Error in cropAndResize: boxInd must be have size [${n}] but had shape ${tb.shape}.`);
      }
      const size = listArg(cropSize);
      if (!size || size.length !== 2) {
        throw new Error(`Error in cropAndResize: cropSize must be of length 2, but got length ${size && size.length}.`);
      }
      if (!(size[0] >= 1 && size[1] >= 1)) throw new Error(`cropSize must be atleast [1,1], but was ${cropSize}`);
      if (!size.every(Number.isSafeInteger)) throw new Error(`cropSize must be integers, but was ${cropSize}`);
      if (method !== 'bilinear' && method !== 'nearest') {
        throw new Error(`method must be bilinear or nearest, but was ${method}`);
      }
      return sampleBoxes(img, tb.dataSync(), ti.dataSync(), size, method, +extrapolationValue);
    } finally {
      if (tb !== boxes) tb.dispose();
      if (ti !== undefined && ti !== boxInd) ti.dispose();
    }
  });
}

function sampleBoxes(img, box, which, [ch, cw], method, fillValue) {
  const [batch, h, w, c] = img.shape;
  const n = which.length;
  const pixels = n * ch * cw;
  const corners = [0, 1, 2, 3].map(() => new Int32Array(pixels));
  const [xl, yl, inside, fill] = [0, 1, 2, 3].map(() => new Float32Array(pixels));
  // Source position along one axis of output step `i` of `count`, as tfjs's kernel has it.
  const at = (lo, hi, i, count, dim) => (count > 1
    ? lo * (dim - 1) + i * ((hi - lo) * (dim - 1) / (count - 1))
    : 0.5 * (lo + hi) * (dim - 1));
  for (let b = 0; b < n; b++) {
    const [y1, x1, y2, x2] = box.subarray(4 * b, 4 * b + 4);
    const img0 = which[b] * h * w;
    for (let y = 0; y < ch; y++) {
      const yi = at(y1, y2, y, ch, h);
      for (let x = 0; x < cw; x++) {
        const p = (b * ch + y) * cw + x;
        const xi = at(x1, x2, x, cw, w);
        if (which[b] < 0 || which[b] >= batch) continue; // the box's image does not exist: zeros
        if (yi < 0 || yi > h - 1 || xi < 0 || xi > w - 1) { fill[p] = 1; continue; }
        inside[p] = 1;
        const [top, bottom, left, right] = method === 'bilinear'
          ? [Math.floor(yi), Math.ceil(yi), Math.floor(xi), Math.ceil(xi)]
          : [Math.round(yi), Math.round(yi), Math.round(xi), Math.round(xi)];
        corners[0][p] = img0 + top * w + left;
        corners[1][p] = img0 + top * w + right;
        corners[2][p] = img0 + bottom * w + left;
        corners[3][p] = img0 + bottom * w + right;
        if (method === 'bilinear') { xl[p] = xi - left; yl[p] = yi - top; }
      }
    }
  }
  const C = creation();
  const E = e();
  const L = layout();
  return tidy(() => {
    const rows = L.reshape(img.cast('float32'), [batch * h * w, c]);
    const [tl, tr, bl, br] = corners.map((idx) => L.gather(rows, C.tensor1d(idx, 'int32')));
    const col = (v) => C.tensor2d(v, [pixels, 1]);
    const top = E.add(tl, E.mul(E.sub(tr, tl), col(xl)));
    const bottom = E.add(bl, E.mul(E.sub(br, bl), col(xl)));
    const value = E.add(top, E.mul(E.sub(bottom, top), col(yl)));
    const out = E.add(E.mul(value, col(inside)), E.mul(col(fill), C.scalar(fillValue)));
    return L.reshape(out, [n, ch, cw, c]);
  });
}

const P = require('../tensor').Tensor.prototype;
P.resizeBilinear = function (newShape2D, alignCorners, halfPixelCenters) {
  return resizeBilinear(this, newShape2D, alignCorners, halfPixelCenters);
};
P.resizeNearestNeighbor = function (newShape2D, alignCorners, halfFloatCenters) {
  return resizeNearestNeighbor(this, newShape2D, alignCorners, halfFloatCenters);
};

const image = {
  cropAndResize,
  resizeNearestNeighbor, resizeBilinear, flipLeftRight, grayscaleToRGB, rgbToGrayscale,
  nonMaxSuppression, nonMaxSuppressionAsync, nonMaxSuppressionWithScore, nonMaxSuppressionWithScoreAsync,
  nonMaxSuppressionPadded, nonMaxSuppressionPaddedAsync,
};

module.exports = { image };
