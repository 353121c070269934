'use strict';
// tf.image: the resizes (native kernels), flipLeftRight, cropAndResize and the colour
// conversions (composed of gathers and elementwise ops that compute what tfjs's kernels
// compute), and non-max suppression (on the host, as tfjs runs it); the checks and texts are
// tfjs's.
const native = require('../native');
const { wrap } = require('../tensor');
const { withOne, listArg } = require('./args');

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
      const gray = reduce.sum(e().mul(t.cast('float32'), weights), -1, true);
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

// out[p, c] = Σ_k weights[k][p] * image[index[k][p], c] + fillWeight[p] * fill[c]: the
// sampling that transform and rotateWithOffset compute, the positions and weights found on
// the host (they depend on the arguments, not on the values), the values gathered and summed
// on the backend. `fill` has one value, or one per channel.
function sampleTaps(img, index, weights, fillWeight, fill, outShape) {
  const [batch, h, w, c] = img.shape;
  const pixels = fillWeight.length;
  const C = creation();
  const E = e();
  const L = layout();
  return tidy(() => {
    const rows = L.reshape(img.cast('float32'), [batch * h * w, c]);
    let out = E.mul(C.tensor2d(fillWeight, [pixels, 1]), C.tensor2d(fill, [1, fill.length]));
    index.forEach((idx, k) => {
      out = E.add(out, E.mul(L.gather(rows, C.tensor1d(idx, 'int32')), C.tensor2d(weights[k], [pixels, 1])));
    });
    return L.reshape(out, outShape).cast(img.dtype);
  });
}

// tfjs's fill modes: where an input coordinate outside [0, len) reads from.
function mapCoord(v, len, mode) {
  const clamp = (x) => Math.min(Math.max(x, 0), len - 1);
  if (mode === 'nearest') return clamp(v);
  if (mode === 'reflect' || mode === 'wrap') {
    if (len <= 1) return (v < 0 || v > len - 1) ? 0 : clamp(v);
    let x = v;
    if (mode === 'reflect') {
      const sz2 = 2 * len;
      if (x < 0) {
        if (x < sz2) x = sz2 * Math.trunc(-x / sz2) + x;
        x = x < -len ? x + sz2 : -x - 1;
      } else if (x > len - 1) {
        x -= sz2 * Math.trunc(x / sz2);
        if (x >= len) x = sz2 - x - 1;
      }
    } else if (x < 0) {
      x += len * (Math.trunc(-x / (len - 1)) + 1);
    } else if (x > len - 1) {
      x -= len * Math.trunc(x / (len - 1));
    }
    return clamp(x);
  }
  return v; // 'constant': outside reads the fill value
}

// tf.image.transform: projective transforms [a0, a1, a2, b0, b1, b2, c0, c1] mapping output
// (x, y) to input ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1. Every
// image of the batch is transformed (tfjs's cpu kernel fills all but the first).
function transform(image, transforms, interpolation = 'nearest', fillMode = 'constant', fillValue = 0, outputShape) {
  const { convertToTensor } = require('../convert');
  return withOne(image, 'image', 'transform', 'float32', (img) => {
    const tt = convertToTensor(transforms, 'transforms', 'transform', 'float32');
    try {
      if (img.rank !== 4) throw new Error(`Error in transform: image must be rank 4,but got rank ${img.rank}.`);
      if (!(tt.rank === 2 && (tt.shape[0] === img.shape[0] || tt.shape[0] === 1) && tt.shape[1] === 8)) {
        throw new Error('Error in transform: Input transform should be batch x 8 or 1 x 8');
      }
      const shape = outputShape == null ? null : listArg(outputShape);
      if (shape != null && shape.length !== 2) {
        throw new Error(`Error in transform: outputShape must be [height, width] or null, but got ${outputShape}.`);
      }
      if (interpolation !== 'nearest' && interpolation !== 'bilinear') {
        throw new Error(`Error in Transform: Expect 'nearest' or 'bilinear', but got ${interpolation}`);
      }
      const [batch, h, w, c] = img.shape;
      const [oh, ow] = shape || [h, w];
      if (![oh, ow].every((d) => Number.isSafeInteger(d) && d >= 0)) {
        throw new Error(`Error in transform: outputShape must be non-negative integers, but got ${outputShape}.`);
      }
      const m = tt.dataSync();
      const pixels = batch * oh * ow;
      const taps = interpolation === 'nearest' ? 1 : 4;
      const index = Array.from({ length: taps }, () => new Int32Array(pixels));
      const weights = Array.from({ length: taps }, () => new Float32Array(pixels));
      const fillWeight = new Float32Array(pixels);
      for (let b = 0; b < batch; b++) {
        const t = tt.shape[0] === 1 ? m : m.subarray(8 * b, 8 * b + 8);
        for (let y = 0; y < oh; y++) {
          for (let x = 0; x < ow; x++) {
            const p = (b * oh + y) * ow + x;
            const k = t[6] * x + t[7] * y + 1;
            if (k === 0) { fillWeight[p] = 1; continue; }
            const ix = mapCoord((t[0] * x + t[1] * y + t[2]) / k, w, fillMode);
            const iy = mapCoord((t[3] * x + t[4] * y + t[5]) / k, h, fillMode);
            const tap = (i, yy, xx, wt) => {
              if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
                index[i][p] = (b * h + yy) * w + xx;
                weights[i][p] = wt;
              } else {
                fillWeight[p] += wt;
              }
            };
            if (taps === 1) {
              tap(0, Math.round(iy), Math.round(ix), 1);
            } else {
              const [yf, xf] = [Math.floor(iy), Math.floor(ix)];
              tap(0, yf, xf, (yf + 1 - iy) * (xf + 1 - ix));
              tap(1, yf, xf + 1, (yf + 1 - iy) * (ix - xf));
              tap(2, yf + 1, xf, (iy - yf) * (xf + 1 - ix));
              tap(3, yf + 1, xf + 1, (iy - yf) * (ix - xf));
            }
          }
        }
      }
      return sampleTaps(img, index, weights, fillWeight, [+fillValue], [batch, oh, ow, c]);
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
    const [batch, h, w, c] = img.shape;
    const cx = w * (typeof center === 'number' ? center : center[0]);
    const cy = h * (typeof center === 'number' ? center : center[1]);
    const [sin, cos] = [Math.sin(radians), Math.cos(radians)];
    const pixels = batch * h * w;
    const index = new Int32Array(pixels);
    const weight = new Float32Array(pixels);
    const fillWeight = new Float32Array(pixels);
    for (let b = 0; b < batch; b++) {
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const p = (b * h + y) * w + x;
          const sx = Math.round((x - cx) * cos - (y - cy) * sin + cx);
          const sy = Math.round((x - cx) * sin + (y - cy) * cos + cy);
          if (sx >= 0 && sx < w && sy >= 0 && sy < h) {
            index[p] = (b * h + sy) * w + sx;
            weight[p] = 1;
          } else {
            fillWeight[p] = 1;
          }
        }
      }
    }
    const fill = typeof fillValue === 'number' ? [fillValue]
      : Array.from({ length: c }, (_, k) => (k === 3 ? 255 : fillValue[k]));
    return sampleTaps(img, [index], [weight], fillWeight, fill, img.shape);
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

module.exports = { image, selectBoxes };
