'use strict';
// Images: tf.node's decoders and encoders (tfjs-node's functions, argument forms and texts; the
// files are read and written natively, in src/images.rs, by TensorFlow's rules) and
// tf.browser's pixel functions (tfjs-core's fromPixels, toPixels and draw, as they run in
// Node: on {data, width, height} pixel data and canvas-like objects).
// ImageData is a browser global: tfjs names it as it is (in Node, `new ImageData` throws its
// ReferenceError, which the tests compare).
/* global ImageData */
const native = require('./native');
const { Tensor, wrap, wrapId } = require('./tensor');
const { convertToTensor } = require('./convert');
const { env } = require('./env');
const { tensor3d } = require('./ops/creation');
const { cast } = require('./ops/elementwise');

// ---- tf.node ----------------------------------------------------------------------------

const ImageType = { JPEG: 'jpeg', PNG: 'png', GIF: 'gif', BMP: 'BMP' };

// tfjs-node's getImageType: the format from the first bytes (TensorFlow's magic numbers).
function getImageType(content) {
  if (content.length > 3 && content[0] === 255 && content[1] === 216 && content[2] === 255) {
    return ImageType.JPEG;
  } else if (content.length > 4 && content[0] === 71 && content[1] === 73 && content[2] === 70 &&
      content[3] === 56) {
    return ImageType.GIF;
  } else if (content.length > 8 && content[0] === 137 && content[1] === 80 && content[2] === 78 &&
      content[3] === 71 && content[4] === 13 && content[5] === 10 && content[6] === 26 &&
      content[7] === 10) {
    return ImageType.PNG;
  } else if (content.length > 3 && content[0] === 66 && content[1] === 77) {
    return ImageType.BMP;
  }
  throw new Error('Expected image (BMP, JPEG, PNG, or GIF), but got unsupported image type');
}

const utf8 = new TextEncoder();

// The file's bytes. tfjs-node hands `contents` to tf.scalar(contents, 'string'): a typed array
// is its bytes, a string its UTF-8 encoding; anything else fails as that call fails there.
function contentBytes(contents) {
  if (contents instanceof Uint8Array) return contents;
  if (ArrayBuffer.isView(contents)) {
    return new Uint8Array(contents.buffer, contents.byteOffset, contents.byteLength);
  }
  if (typeof contents === 'string') return utf8.encode(contents);
  if (Array.isArray(contents)) {
    throw new Error('Error creating a new Scalar: value must be a primitive (number|boolean|string)');
  }
  if (typeof contents === 'number' || typeof contents === 'boolean') {
    throw new Error('Argument is not a typed-array!');
  }
  throw new Error('values passed to tensor(values) must be a number/boolean/string or an array of ' +
    'numbers/booleans/strings, or a TypedArray');
}

// An integer attribute (TensorFlow's attribute `name`). tfjs-node's binding takes a number and
// TensorFlow refuses one past int32 with this text (not wrapped: 2 ** 32 + 3 is not 3 channels);
// a fraction, NaN or Infinity, which the binding would truncate or read as 0, is refused here.
function intAttr(v, name) {
  if (typeof v !== 'number') throw new Error('Invalid napi_status: A number was expected\n');
  if (!Number.isInteger(v)) throw new Error(`Attr ${name} must be an integer, got ${v}`);
  if (v < -(2 ** 31) || v >= 2 ** 31) throw new Error(`Attr ${name} has value ${v} out of range for an int32`);
  return v;
}

// The IMAGE_MAX_PIXELS flag: the largest width x height (x frames) a decoder decodes.
function maxPixels() {
  const v = Number(env().get('IMAGE_MAX_PIXELS'));
  return Number.isNaN(v) ? 0 : v;
}

// The native decoder's arguments: the file's bytes, and the op with its attributes and the
// pixel limit.
function decodeArgs(contents, op, channels, ratio = 1, dctMethod = '', recover = false, firstFrame = false) {
  return [contentBytes(contents), {
    op, channels: intAttr(channels, 'channels'), ratio: intAttr(ratio, 'ratio'), dctMethod: String(dctMethod),
    tryRecoverTruncated: !!recover, firstFrameOnly: firstFrame, maxPixels: maxPixels(),
  }];
}

function decode(...args) {
  return wrap(native.decodeImage(...decodeArgs(...args)));
}

function decodeJpeg(contents, channels = 0, ratio = 1, fancyUpscaling = true, tryRecoverTruncated = false,
  acceptableFraction = 1, dctMethod = '') {
  return decode(contents, 'DecodeJpeg', channels, ratio, dctMethod, tryRecoverTruncated);
}

function decodePng(contents, channels = 0, dtype = 'int32') {
  if (dtype !== 'int32') throw new Error('decodeImage could only return Tensor of type `int32` for now.');
  return decode(contents, 'DecodePng', channels);
}

function decodeBmp(contents, channels = 0) {
  return decode(contents, 'DecodeBmp', channels);
}

function decodeGif(contents) {
  return decode(contents, 'DecodeGif', 0);
}

// decodeImage's op and attributes for a file (tfjs-node picks the op by its first bytes).
function imageOp(content, channels, dtype, expandAnimations) {
  if (dtype !== 'int32') throw new Error('decodeImage could only return Tensor of type `int32` for now.');
  switch (getImageType(content)) {
    case ImageType.JPEG: return ['DecodeJpeg', channels];
    case ImageType.PNG: return ['DecodePng', channels];
    // tfjs-node decodes every frame and keeps the first; the native call keeps it directly.
    case ImageType.GIF: return ['DecodeGif', 0, 1, '', false, !expandAnimations];
    default: return ['DecodeBmp', channels];
  }
}

function decodeImage(content, channels = 0, dtype = 'int32', expandAnimations = true) {
  return decode(content, ...imageOp(content, channels, dtype, expandAnimations));
}

// tf.serving.decodeImage (tidytensor's extension): tf.node.decodeImage off the JavaScript
// thread, on one of libuv's threads; a Promise of the tensor.
async function decodeImageAsync(content, channels = 0, dtype = 'int32', expandAnimations = true) {
  const args = decodeArgs(content, ...imageOp(content, channels, dtype, expandAnimations));
  return wrapId(await native.decodeImageAsync(...args));
}

// tfjs-node's encoders take the tensor's values as bytes (`new Uint8Array(await image.data())`:
// values wrap modulo 256); a numeric tensor's are converted natively. String and complex64
// tensors are refused as TensorFlow's op refuses a tensor that is not uint8 (tfjs-node encodes
// bytes that are not the values: strings read as 0, complex parts interleaved).
async function imageBytes(image, op) {
  if (image instanceof Tensor) {
    if (image.dtype === 'string' || image.dtype === 'complex64') {
      throw new Error(`cannot compute ${op} as input #0(zero-based) was expected to be a uint8 tensor ` +
        `but is a ${image.dtype} tensor`);
    }
    return native.imageBytes(image.id);
  }
  return new Uint8Array(await image.data());
}

async function encodeJpeg(image, format = '', quality = 95, progressive = false, optimizeSize = false,
  chromaDownsampling = true, densityUnit = 'in', xDensity = 300, yDensity = 300, xmpMetadata = '') {
  const data = await imageBytes(image, 'EncodeJpeg');
  return native.encodeJpeg(data, image.shape, String(format), intAttr(quality, 'quality'), !!progressive,
    !!optimizeSize, !!chromaDownsampling, String(densityUnit), intAttr(xDensity, 'x_density'),
    intAttr(yDensity, 'y_density'), String(xmpMetadata));
}

// One image: TensorFlow's EncodePng encodes each image of a batch and tfjs-node keeps the first,
// so a batch is refused rather than silently cut to its first image.
async function encodePng(image, compression = 1) {
  if (image instanceof Tensor && image.rank > 3) {
    throw new Error(`encodePng takes one image of rank 3 [height, width, channels], got shape [${image.shape}]: ` +
      'encode the images of a batch one by one');
  }
  const data = await imageBytes(image, 'EncodePng');
  return native.encodePng(data, image.shape, intAttr(compression, 'compression'));
}

const node = { decodeImage, decodeBmp, decodeGif, decodePng, decodeJpeg, encodeJpeg, encodePng };

// ---- tf.browser -------------------------------------------------------------------------

// tfjs's fromPixels, for what Node has: {data: Uint8Array, width, height} (PixelData, RGBA
// bytes) and canvas-like objects (getContext('2d').getImageData), plus ImageData where a
// library defines it globally.
function fromPixels(pixels, numChannels = 3) {
  if (numChannels > 4) {
    throw new Error('Cannot construct Tensor with more than 4 channels from pixels.');
  }
  if (pixels == null) {
    throw new Error('pixels passed to tf.browser.fromPixels() can not be null');
  }
  let isPixelData = false;
  let isImageData = false;
  let isCanvasLike = false;
  if (pixels.data instanceof Uint8Array) {
    isPixelData = true;
  } else if (typeof ImageData !== 'undefined' && pixels instanceof ImageData) {
    isImageData = true;
  } else if (pixels.getContext != null) {
    isCanvasLike = true;
  } else {
    throw new Error('pixels passed to tf.browser.fromPixels() must be either an ' +
      'HTMLVideoElement, HTMLImageElement, HTMLCanvasElement, ImageData ' +
      'in browser, or OffscreenCanvas, ImageData in webworker' +
      ' or {data: Uint32Array, width: number, height: number}, ' +
      `but was ${pixels.constructor.name}`);
  }
  const [width, height] = [pixels.width, pixels.height];
  let vals;
  if (isCanvasLike) {
    vals = pixels.getContext('2d').getImageData(0, 0, width, height).data;
  } else if (isImageData || isPixelData) {
    vals = pixels.data;
  }
  let values;
  if (numChannels === 4) {
    values = new Int32Array(vals);
  } else {
    const numPixels = width * height;
    values = new Int32Array(numPixels * numChannels);
    for (let i = 0; i < numPixels; i++) {
      for (let channel = 0; channel < numChannels; ++channel) {
        values[i * numChannels + channel] = vals[i * 4 + channel];
      }
    }
  }
  return tensor3d(values, [height, width, numChannels], 'int32');
}

async function fromPixelsAsync(pixels, numChannels = 3) {
  // tfjs first tries to wrap browser images in an ImageBitmap; Node has none.
  return fromPixels(pixels, numChannels);
}

function validateImgTensor(img) {
  if (img.rank !== 2 && img.rank !== 3) {
    throw new Error(`toPixels only supports rank 2 or 3 tensors, got rank ${img.rank}.`);
  }
  const depth = img.rank === 2 ? 1 : img.shape[2];
  if (depth > 4 || depth === 2) {
    throw new Error(`toPixels only supports depth of size 1, 3 or 4 but got ${depth}`);
  }
  if (img.dtype !== 'float32' && img.dtype !== 'int32') {
    throw new Error(`Unsupported type for toPixels: ${img.dtype}. Please use float32 or int32 tensors.`);
  }
}

// The image as a tensor: a TensorLike is taken as int32, as tfjs takes it.
function imageTensor(img, fnName) {
  const $img = convertToTensor(img, 'img', fnName);
  if (img instanceof Tensor) return $img;
  try {
    return cast($img, 'int32');
  } finally {
    $img.dispose();
  }
}

// RGBA bytes of an image's values (tfjs's loop: range checks, grey repeated, alpha given).
function rgbaBytes(data, dtype, height, width, depth, alpha) {
  const multiplier = dtype === 'float32' ? 255 : 1;
  const bytes = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < height * width; ++i) {
    const rgba = [0, 0, 0, alpha];
    for (let d = 0; d < depth; d++) {
      const value = data[i * depth + d];
      if (dtype === 'float32') {
        if (value < 0 || value > 1) {
          throw new Error(`Tensor values for a float32 Tensor must be in the range [0 - 1] but encountered ${value}.`);
        }
      } else if (dtype === 'int32') {
        if (value < 0 || value > 255) {
          throw new Error(`Tensor values for a int32 Tensor must be in the range [0 - 255] but encountered ${value}.`);
        }
      }
      if (depth === 1) {
        rgba[0] = value * multiplier;
        rgba[1] = value * multiplier;
        rgba[2] = value * multiplier;
      } else {
        rgba[d] = value * multiplier;
      }
    }
    const j = i * 4;
    bytes[j + 0] = Math.round(rgba[0]);
    bytes[j + 1] = Math.round(rgba[1]);
    bytes[j + 2] = Math.round(rgba[2]);
    bytes[j + 3] = Math.round(rgba[3]);
  }
  return bytes;
}

// tfjs's toPixels: RGBA bytes, drawn on `canvas` too when one is given (in Node, an object with
// getContext('2d'), with ImageData defined globally, e.g. by node-canvas). Unlike tfjs, the
// tensor it made of a TensorLike is disposed also when it throws.
async function toPixels(img, canvas) {
  const $img = imageTensor(img, 'toPixels');
  try {
    validateImgTensor($img);
    const [height, width] = $img.shape.slice(0, 2);
    const depth = $img.rank === 2 ? 1 : $img.shape[2];
    const data = await $img.data();
    const bytes = rgbaBytes(data, $img.dtype, height, width, depth, 255);
    if (canvas != null) {
      canvas.width = width;
      canvas.height = height;
      const ctx = canvas.getContext('2d');
      const imageData = new ImageData(bytes, width, height);
      ctx.putImageData(imageData, 0, 0);
    }
    return bytes;
  } finally {
    if ($img !== img) $img.dispose();
  }
}

// tfjs's draw, as its cpu backend's Draw kernel runs it.
function draw(image, canvas, options) {
  const $img = imageTensor(image, 'draw');
  try {
    validateImgTensor($img);
    const imageOptions = options == null ? undefined : options.imageOptions;
    const alpha = (imageOptions == null ? undefined : imageOptions.alpha) || 1;
    if (alpha > 1 || alpha < 0) {
      throw new Error(`Alpha value ${alpha} is suppoed to be in range [0 - 1].`);
    }
    const contextOptions = options == null ? undefined : options.contextOptions;
    const contextType = (contextOptions == null ? undefined : contextOptions.contextType) || '2d';
    if (contextType !== '2d') {
      throw new Error(`Context type ${contextOptions.contextType} is not supported by the CPU backend.`);
    }
    const ctx = canvas.getContext(contextType, (contextOptions == null ? undefined : contextOptions.contextAttributes) || {});
    if (ctx == null) throw new Error(`Could not get the context with ${contextType} type.`);
    const [height, width] = $img.shape.slice(0, 2);
    const depth = $img.shape.length === 2 ? 1 : $img.shape[2];
    const bytes = rgbaBytes($img.dataSync(), $img.dtype, height, width, depth, 255 * alpha);
    canvas.width = width;
    canvas.height = height;
    const imageData = new ImageData(bytes, width, height);
    ctx.putImageData(imageData, 0, 0);
  } finally {
    if ($img !== image) $img.dispose();
  }
}

const browser = { draw, fromPixels, fromPixelsAsync, toPixels };

module.exports = { node, browser, decodeImageAsync };
