'use strict';
// Images: tf.browser's fromPixels/toPixels/draw against @tensorflow/tfjs, and tf.node's
// decoders and encoders against what tfjs-node (TensorFlow's kernels) gives: the expected
// values and texts below were read from @tensorflow/tfjs-node 4.22 on the same bytes. The
// PNG, BMP and GIF files are built here byte by byte (helpers at the top), so every colour
// type, layout and frame arrangement is covered without image files in the repository.
const { describe, it } = require('node:test');
const zlib = require('node:zlib');
const { tt, tfo, assert, counts } = require('./helpers/setup');
const { cases } = require('./helpers/ops');

// ---- file builders ----------------------------------------------------------------------

const CRC = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
function crc32(bytes) {
  let c = -1;
  for (const b of bytes) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
const u32be = (n) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
function chunk(type, data) {
  const body = [...Buffer.from(type, 'latin1'), ...data];
  return [...u32be(data.length), ...body, ...u32be(crc32(body))];
}
// A PNG of `rows` (packed samples per row, without the filter byte).
function png({ width, height, colorType, bitDepth = 8, rows, palette, trns }) {
  const raw = [];
  for (const r of rows) raw.push(0, ...r);
  const out = [137, 80, 78, 71, 13, 10, 26, 10,
    ...chunk('IHDR', [...u32be(width), ...u32be(height), bitDepth, colorType, 0, 0, 0])];
  if (palette) out.push(...chunk('PLTE', palette.flat()));
  if (trns) out.push(...chunk('tRNS', trns));
  out.push(...chunk('IDAT', [...zlib.deflateSync(Buffer.from(raw))]), ...chunk('IEND', []));
  return new Uint8Array(out);
}

const le = (n, bytes) => Array.from({ length: bytes }, (_, i) => (n >> (8 * i)) & 255);
// An uncompressed BMP; `pixels` are rows top to bottom (BGR, BGRA or 8-bit bytes), unpadded.
function bmp({ width, height, bpp, pixels, topDown = false, extra = 0 }) {
  const rowSize = Math.floor((bpp / 8 * width + 3) / 4) * 4;
  const data = [];
  for (const r of topDown ? pixels : pixels.slice().reverse()) {
    const row = r.slice();
    while (row.length < rowSize) row.push(0);
    data.push(...row);
  }
  const header = [66, 77, ...le(54 + data.length + extra, 4), 0, 0, 0, 0, ...le(54, 4), ...le(40, 4),
    ...le(width, 4), ...le(topDown ? -height : height, 4), 1, 0, ...le(bpp, 2), ...le(0, 4),
    ...le(data.length, 4), ...le(2835, 4), ...le(2835, 4), ...le(0, 4), ...le(0, 4)];
  return new Uint8Array([...header, ...data, ...new Array(extra).fill(0)]);
}

// GIF LZW with a clear code often enough that the code width never grows.
function lzw(indices, minCodeSize) {
  const clear = 1 << minCodeSize;
  const codes = [clear];
  indices.forEach((v, i) => {
    if (i > 0 && i % (clear - 2) === 0) codes.push(clear);
    codes.push(v);
  });
  codes.push(clear + 1);
  const bytes = [];
  let acc = 0;
  let bits = 0;
  for (const c of codes) {
    acc |= c << bits;
    bits += minCodeSize + 1;
    while (bits >= 8) {
      bytes.push(acc & 255);
      acc >>>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) bytes.push(acc & 255);
  const out = [minCodeSize];
  for (let i = 0; i < bytes.length; i += 255) {
    const b = bytes.slice(i, i + 255);
    out.push(b.length, ...b);
  }
  return [...out, 0];
}
const paletteBits = (n) => Math.max(1, Math.ceil(Math.log2(n)));
function padPalette(p) {
  const o = p.slice();
  while (o.length < 1 << paletteBits(p.length)) o.push([0, 0, 0]);
  return o;
}
// A GIF89a; frames: [{ left, top, width, height, indices, palette?, transparent?, disposal? }].
function gif({ width, height, palette, frames }) {
  const out = [...Buffer.from('GIF89a', 'latin1'), ...le(width, 2), ...le(height, 2)];
  if (palette) {
    const p = padPalette(palette);
    out.push(0x80 | (paletteBits(p.length) - 1), 0, 0, ...p.flat());
  } else {
    out.push(0, 0, 0);
  }
  for (const f of frames) {
    if (f.transparent !== undefined || f.disposal !== undefined) {
      out.push(0x21, 0xf9, 4, ((f.disposal || 0) << 2) | (f.transparent !== undefined ? 1 : 0), 10, 0,
        f.transparent || 0, 0);
    }
    out.push(0x2c, ...le(f.left || 0, 2), ...le(f.top || 0, 2), ...le(f.width, 2), ...le(f.height, 2));
    const local = f.palette ? padPalette(f.palette) : null;
    out.push(local ? 0x80 | (paletteBits(local.length) - 1) : 0);
    if (local) out.push(...local.flat());
    const n = local ? local.length : palette ? padPalette(palette).length : 2;
    out.push(...lzw(f.indices, Math.max(2, paletteBits(n))));
  }
  out.push(0x3b);
  return new Uint8Array(out);
}

// ---- helpers ------------------------------------------------------------------------------

const values = (t) => Array.from(t.dataSync());
// The decoded tensor's shape and values, disposing it.
function got(t) {
  const r = { shape: t.shape, dtype: t.dtype, values: values(t) };
  t.dispose();
  return r;
}
function expectImage(t, shape, vals) {
  const r = got(t);
  assert.equal(r.dtype, 'int32');
  assert.deepEqual(r.shape, shape);
  assert.deepEqual(r.values, vals);
}
// `fn` throws `message` and leaves the tensor count where it was.
function failsWith(fn, message) {
  const before = tt.memory().numTensors;
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.message, message);
    return true;
  });
  assert.equal(tt.memory().numTensors, before, 'tensors left behind');
}
async function rejectsWith(promise, message) {
  const before = tt.memory().numTensors;
  await assert.rejects(promise, (e) => {
    assert.equal(e.message, message);
    return true;
  });
  assert.equal(tt.memory().numTensors, before, 'tensors left behind');
}
const meanAbsDiff = (a, b) => a.reduce((s, v, i) => s + Math.abs(v - b[i]), 0) / a.length;

// A smooth test picture (JPEG-friendly), values 0-255, as a flat array [h, w, c].
function picture(h, w, c) {
  const v = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let k = 0; k < c; k++) {
        v.push(Math.round(127.5 + 127.5 * Math.sin(x / (7 + 3 * k) + y / (11 - 2 * k)) * Math.cos((x - y) / 19)));
      }
    }
  }
  return v;
}
// Every byte value, for exact round trips.
const ramp = (n) => Array.from({ length: n }, (_, i) => (i * 37 + (i >> 3)) % 256);

// ---- tf.browser ---------------------------------------------------------------------------

const PX = () => ({ data: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 250, 251, 252, 253, 9, 10, 11, 12]), width: 2, height: 2 });
cases('tf.browser.fromPixels', [
  ['RGBA to RGB (default)', (tf) => tf.browser.fromPixels(PX())],
  ['1 channel', (tf) => tf.browser.fromPixels(PX(), 1)],
  ['4 channels', (tf) => tf.browser.fromPixels(PX(), 4)],
  ['0 channels', (tf) => tf.browser.fromPixels(PX(), 0)],
  ['5 channels', (tf) => tf.browser.fromPixels(PX(), 5)],
  ['-1 channels', (tf) => tf.browser.fromPixels(PX(), -1)],
  ['2.5 channels', (tf) => tf.browser.fromPixels(PX(), 2.5)],
  ['a Buffer', (tf) => tf.browser.fromPixels({ data: Buffer.from([9, 8, 7, 6]), width: 1, height: 1 })],
  ['Uint8ClampedArray data (not a Uint8Array)', (tf) => tf.browser.fromPixels({ data: new Uint8ClampedArray(4), width: 1, height: 1 })],
  ['null', (tf) => tf.browser.fromPixels(null)],
  ['an array', (tf) => tf.browser.fromPixels([1, 2, 3])],
  ['a canvas-like object', (tf) => tf.browser.fromPixels({
    width: 1, height: 2, getContext: () => ({ getImageData: () => ({ data: new Uint8ClampedArray([9, 8, 7, 6, 5, 4, 3, 2]) }) }),
  })],
  ['short data', (tf) => tf.browser.fromPixels({ data: new Uint8Array(4), width: 2, height: 1 })],
  ['short data, 4 channels', (tf) => tf.browser.fromPixels({ data: new Uint8Array(4), width: 2, height: 1 }, 4)],
  ['long data, 4 channels', (tf) => tf.browser.fromPixels({ data: new Uint8Array(12), width: 2, height: 1 }, 4)],
  ['no width', (tf) => tf.browser.fromPixels({ data: new Uint8Array(4) })],
  ['a string width', (tf) => tf.browser.fromPixels({ data: new Uint8Array(8), width: '2', height: 1 })],
  ['empty', (tf) => tf.browser.fromPixels({ data: new Uint8Array(0), width: 0, height: 3 })],
]);

// Runs `program(lib)` (a Promise) on both libraries: the same bytes, or the same error text.
async function sameAsync(program) {
  const run = async (lib) => {
    try {
      return { value: await program(lib) };
    } catch (e) {
      return { error: e };
    }
  };
  const want = await run(tfo);
  const before = counts(tt);
  const have = await run(tt);
  assert.deepEqual(counts(tt), before, 'tidytensor leaked');
  if (want.error) {
    assert.ok(have.error, `expected an error: ${want.error.message}`);
    assert.equal(have.error.message, want.error.message);
    assert.equal(have.error.constructor.name, want.error.constructor.name);
  } else {
    if (have.error) throw have.error;
    assert.equal(have.value.constructor.name, want.value.constructor.name);
    assert.deepEqual(Array.from(have.value), Array.from(want.value));
  }
}

describe('tf.browser.toPixels, fromPixelsAsync, draw', () => {
  const withImg = (make, ...rest) => async (tf) => {
    const img = make(tf);
    try {
      return await tf.browser.toPixels(img, ...rest);
    } finally {
      if (img instanceof tf.Tensor) img.dispose();
    }
  };
  const list = [
    ['int32 RGB', withImg((tf) => tf.tensor3d([0, 1, 2, 100, 200, 255], [1, 2, 3], 'int32'))],
    ['int32 RGBA', withImg((tf) => tf.tensor3d([0, 1, 2, 3, 100, 200, 255, 7], [2, 1, 4], 'int32'))],
    ['int32 grey rank 2', withImg((tf) => tf.tensor2d([[0, 128], [255, 3]], [2, 2], 'int32'))],
    ['int32 grey depth 1', withImg((tf) => tf.tensor3d([0, 128, 255], [1, 3, 1], 'int32'))],
    ['float32 0-1, rounded', withImg((tf) => tf.tensor3d([0, 0.5, 0.2, 1, 0.999, 0.001], [1, 2, 3]))],
    ['float32 NaN', withImg((tf) => tf.tensor2d([[NaN, 1]]))],
    ['a nested array (int32)', withImg(() => [[0.5, 1.5], [2, 255]])],
    ['float32 out of range', withImg((tf) => tf.tensor2d([[0.5, 1.2]]))],
    ['int32 out of range', withImg((tf) => tf.tensor2d([[-1, 3]], [1, 2], 'int32'))],
    ['an array out of range (its tensor freed)', withImg(() => [[300]])],
    ['rank 4', withImg((tf) => tf.zeros([1, 1, 1, 3]))],
    ['depth 2', withImg((tf) => tf.zeros([1, 1, 2]))],
    ['depth 5', withImg((tf) => tf.zeros([1, 1, 5]))],
    ['bool', withImg((tf) => tf.zeros([1, 1, 3], 'bool'))],
    ['a canvas without getContext', withImg((tf) => tf.ones([1, 1, 3]), {})],
    ['a canvas in Node (no ImageData)', withImg((tf) => tf.ones([1, 1, 3]), { getContext: () => ({ putImageData() {} }) })],
    ['fromPixelsAsync', async (tf) => {
      const t = await tf.browser.fromPixelsAsync(PX(), 1);
      try {
        return t.dataSync();
      } finally {
        t.dispose();
      }
    }],
  ];
  for (const [name, program] of list) it(name, () => sameAsync(program));

  it('toPixels of a fromPixels tensor gives the RGBA bytes back (alpha 255)', async () => {
    const t = tt.browser.fromPixels(PX(), 3);
    const bytes = await tt.browser.toPixels(t);
    t.dispose();
    assert.deepEqual(Array.from(bytes), [1, 2, 3, 255, 5, 6, 7, 255, 250, 251, 252, 255, 9, 10, 11, 255]);
  });

  it('draws on a canvas where ImageData exists (as node-canvas provides), with alpha', async () => {
    class FakeImageData {
      constructor(data, width, height) {
        Object.assign(this, { data, width, height });
      }
    }
    const drawn = (lib, options) => {
      const canvas = { puts: [], getContext(type) { return type === '2d' ? { putImageData: (d, x, y) => canvas.puts.push([d, x, y]) } : null; } };
      const img = lib.tensor3d([10, 20, 30, 40, 50, 60], [1, 2, 3], 'int32');
      try {
        lib.browser.draw(img, canvas, options);
      } finally {
        img.dispose();
      }
      return { width: canvas.width, height: canvas.height, puts: canvas.puts.map(([d, x, y]) => [Array.from(d.data), d.width, d.height, x, y]) };
    };
    globalThis.ImageData = FakeImageData;
    try {
      for (const options of [undefined, { imageOptions: { alpha: 0.5 } }]) {
        const before = counts(tt);
        assert.deepEqual(drawn(tt, options), drawn(tfo, options));
        assert.deepEqual(counts(tt), before);
      }
      const canvas = { width: 0, height: 0, getContext: () => ({ putImageData() {} }) };
      const img = tt.tensor2d([[0.5]]);
      const bytes = await tt.browser.toPixels(img, canvas);
      img.dispose();
      assert.deepEqual(Array.from(bytes), [128, 128, 128, 255]);
      assert.deepEqual([canvas.width, canvas.height], [1, 1]);
    } finally {
      delete globalThis.ImageData;
    }
  });

  it('draw fails as tfjs does in Node', () => {
    for (const [canvas, options] of [[{}, undefined], [{ getContext: () => ({}) }, undefined],
      [{ getContext: () => null }, undefined], [{ getContext: () => ({}) }, { imageOptions: { alpha: 2 } }],
      [{ getContext: () => ({}) }, { contextOptions: { contextType: 'webgl' } }]]) {
      const err = (lib) => {
        const img = lib.ones([1, 1, 3]);
        try {
          lib.browser.draw(img, canvas, options);
          return null;
        } catch (e) {
          return `${e.constructor.name}: ${e.message}`;
        } finally {
          img.dispose();
        }
      };
      assert.equal(err(tt), err(tfo));
    }
  });
});

// ---- tf.node: PNG ---------------------------------------------------------------------------

describe('tf.node PNG', () => {
  it('encodePng then decodePng/decodeImage gives the values back, for 1 to 4 channels', async () => {
    for (const c of [1, 2, 3, 4]) {
      const vals = ramp(5 * 7 * c);
      const img = tt.tensor3d(vals, [5, 7, c], 'int32');
      const file = await tt.node.encodePng(img);
      img.dispose();
      assert.ok(file instanceof Uint8Array);
      assert.deepEqual(Array.from(file.slice(0, 8)), [137, 80, 78, 71, 13, 10, 26, 10]);
      expectImage(tt.node.decodePng(file), [5, 7, c], vals);
      expectImage(tt.node.decodeImage(file), [5, 7, c], vals);
      for (const level of [-1, 0, 9]) {
        const img2 = tt.tensor3d(vals, [5, 7, c], 'int32');
        const again = await tt.node.encodePng(img2, level);
        img2.dispose();
        expectImage(tt.node.decodePng(again), [5, 7, c], vals);
      }
    }
  });

  it('encodePng takes the values as bytes (modulo 256), float32 too; a batch is refused', async () => {
    const t = tt.tensor3d([1.7, 256, -1, 300], [2, 2, 1]);
    expectImage(tt.node.decodePng(await tt.node.encodePng(t)), [2, 2, 1], [1, 0, 255, 44]);
    t.dispose();
    // JavaScript's Uint8Array conversion: NaN and ±Infinity are 0, the rest truncated mod 256.
    const odd = tt.tensor3d([NaN, Infinity, -Infinity, -0.5, 1e10, -300.7, 255.9, 3e9], [2, 2, 2]);
    expectImage(tt.node.decodePng(await tt.node.encodePng(odd)), [2, 2, 2], [0, 0, 0, 0, 0, 212, 255, 0]);
    odd.dispose();
    await rejectsWith(tt.node.encodePng(odd), 'Tensor is disposed.');
    const bool = tt.tensor3d([true, false], [1, 2, 1], 'bool');
    expectImage(tt.node.decodePng(await tt.node.encodePng(bool)), [1, 2, 1], [1, 0]);
    bool.dispose();
    // tfjs-node would encode the batch's first image only.
    const b = tt.tensor4d([1, 2, 3, 4, 5, 6], [2, 1, 1, 3], 'int32');
    await rejectsWith(tt.node.encodePng(b), 'encodePng takes one image of rank 3 [height, width, channels], ' +
      'got shape [2,1,1,3]: encode the images of a batch one by one');
    b.dispose();
  });

  // Values from tfjs-node: libpng's conversions as TensorFlow sets them up.
  const RGB = png({ width: 4, height: 1, colorType: 2, rows: [[1, 2, 3, 200, 100, 50, 255, 255, 254, 17, 99, 201]] });
  const cases2 = [
    // RGB to grey: libpng's ITU-R 601 weights (9797, 19234, 3737)/32768, truncated.
    ['RGB to grey', RGB, 1, [1, 4, 1], [1, 124, 254, 86]],
    ['RGB to RGBA', RGB, 4, [1, 4, 4], [1, 2, 3, 255, 200, 100, 50, 255, 255, 255, 254, 255, 17, 99, 201, 255]],
    ['grey 1-bit', png({ width: 8, height: 1, colorType: 0, bitDepth: 1, rows: [[0b10110000]] }), 0, [1, 8, 1],
      [255, 0, 255, 255, 0, 0, 0, 0]],
    // libpng's alpha filler is (1 << bit depth) - 1: 1 for 1-bit grey, 15 for 4 bits.
    ['grey 1-bit to RGBA', png({ width: 2, height: 1, colorType: 0, bitDepth: 1, rows: [[0b10000000]] }), 4, [1, 2, 4],
      [255, 255, 255, 1, 0, 0, 0, 1]],
    ['grey 4-bit to RGBA', png({ width: 2, height: 1, colorType: 0, bitDepth: 4, rows: [[0x5f]] }), 4, [1, 2, 4],
      [85, 85, 85, 15, 255, 255, 255, 15]],
    ['palette 4-bit to RGBA', png({ width: 2, height: 1, colorType: 3, bitDepth: 4, rows: [[0x01]], palette: [[10, 20, 30], [40, 50, 60]] }),
      4, [1, 2, 4], [10, 20, 30, 15, 40, 50, 60, 15]],
    ['palette', png({ width: 2, height: 1, colorType: 3, rows: [[0, 1]], palette: [[10, 20, 30], [40, 50, 60]] }), 0, [1, 2, 3],
      [10, 20, 30, 40, 50, 60]],
    ['palette with tRNS (4 channels)', png({ width: 2, height: 1, colorType: 3, rows: [[0, 1]], palette: [[10, 20, 30], [40, 50, 60]], trns: [7] }),
      0, [1, 2, 4], [10, 20, 30, 7, 40, 50, 60, 255]],
    ['palette with tRNS to RGB', png({ width: 2, height: 1, colorType: 3, rows: [[0, 1]], palette: [[10, 20, 30], [40, 50, 60]], trns: [7] }),
      3, [1, 2, 3], [10, 20, 30, 40, 50, 60]],
    ['palette with tRNS to grey', png({ width: 2, height: 1, colorType: 3, rows: [[0, 1]], palette: [[10, 20, 30], [40, 50, 60]], trns: [7] }),
      1, [1, 2, 1], [18, 48]],
    ['grey with tRNS keeps 1 channel', png({ width: 2, height: 1, colorType: 0, rows: [[5, 9]], trns: [0, 5] }), 0, [1, 2, 1], [5, 9]],
    ['grey with tRNS to RGBA', png({ width: 2, height: 1, colorType: 0, rows: [[5, 9]], trns: [0, 5] }), 4, [1, 2, 4],
      [5, 5, 5, 0, 9, 9, 9, 255]],
    ['RGB with tRNS to RGBA', png({ width: 2, height: 1, colorType: 2, rows: [[5, 6, 7, 1, 2, 3]], trns: [0, 5, 0, 6, 0, 7] }), 4,
      [1, 2, 4], [5, 6, 7, 0, 1, 2, 3, 255]],
    ['grey+alpha', png({ width: 2, height: 1, colorType: 4, rows: [[5, 6, 7, 8]] }), 0, [1, 2, 2], [5, 6, 7, 8]],
    ['grey+alpha to grey', png({ width: 2, height: 1, colorType: 4, rows: [[5, 6, 7, 8]] }), 1, [1, 2, 1], [5, 7]],
    ['grey+alpha to RGB', png({ width: 2, height: 1, colorType: 4, rows: [[5, 6, 7, 8]] }), 3, [1, 2, 3], [5, 5, 5, 7, 7, 7]],
    ['grey+alpha to RGBA', png({ width: 2, height: 1, colorType: 4, rows: [[5, 6, 7, 8]] }), 4, [1, 2, 4], [5, 5, 5, 6, 7, 7, 7, 8]],
    // 16-bit samples keep their high byte; grey from 16-bit RGB is rounded, then cut.
    ['16-bit RGB', png({ width: 1, height: 1, colorType: 2, bitDepth: 16, rows: [[0x12, 0xff, 0x80, 0x80, 0xff, 0xff]] }), 0,
      [1, 1, 3], [18, 128, 255]],
    ['16-bit RGB to grey', png({ width: 1, height: 1, colorType: 2, bitDepth: 16, rows: [[0x12, 0xff, 0x80, 0x80, 0xff, 0xff]] }), 1,
      [1, 1, 1], [110]],
    ['16-bit grey to RGBA', png({ width: 1, height: 1, colorType: 0, bitDepth: 16, rows: [[0x12, 0xff]] }), 4, [1, 1, 4],
      [18, 18, 18, 255]],
  ];
  for (const [name, file, channels, shape, vals] of cases2) {
    it(`${name} (channels ${channels})`, () => {
      expectImage(tt.node.decodePng(file, channels), shape, vals);
      expectImage(tt.node.decodeImage(file, channels), shape, vals);
    });
  }

  it('grey from RGB follows libpng exactly over many colours', async () => {
    const vals = ramp(16 * 16 * 3).map((v, i) => (v * 7 + i) % 256);
    const img = tt.tensor3d(vals, [16, 16, 3], 'int32');
    const file = await tt.node.encodePng(img);
    img.dispose();
    const want = [];
    for (let i = 0; i < vals.length; i += 3) want.push((9797 * vals[i] + 19234 * vals[i + 1] + 3737 * vals[i + 2]) >> 15);
    expectImage(tt.node.decodePng(file, 1), [16, 16, 1], want);
  });

  it('DecodeGif gives a PNG as one frame; DecodeJpeg decodes a PNG too (TensorFlow\'s ops do)', async () => {
    expectImage(tt.node.decodeGif(RGB), [1, 1, 4, 3], [1, 2, 3, 200, 100, 50, 255, 255, 254, 17, 99, 201]);
    expectImage(tt.node.decodeJpeg(RGB), [1, 4, 3], [1, 2, 3, 200, 100, 50, 255, 255, 254, 17, 99, 201]);
  });
});

// ---- tf.node: JPEG --------------------------------------------------------------------------

describe('tf.node JPEG', () => {
  const [H, W] = [24, 32];
  const rgb = picture(H, W, 3);
  const encode = async (vals, c, ...args) => {
    const t = tt.tensor3d(vals, [H, W, c], 'int32');
    try {
      return await tt.node.encodeJpeg(t, ...args);
    } finally {
      t.dispose();
    }
  };

  it('encodeJpeg then decodeJpeg is close to the picture, with every option', async () => {
    for (const args of [[], ['rgb', 50], ['', 95, true], ['', 95, false, true], ['', 95, false, false, false],
      ['', 0], ['', 100, true, true, false, 'cm', 10, 20, '<x:xmpmeta/>']]) {
      const file = await encode(rgb, 3, ...args);
      assert.deepEqual(Array.from(file.slice(0, 3)), [255, 216, 255]);
      const r = got(tt.node.decodeJpeg(file));
      assert.deepEqual(r.shape, [H, W, 3]);
      const tol = args[1] === 0 ? 20 : args[1] === 50 ? 4 : 2.5;
      assert.ok(meanAbsDiff(r.values, rgb) < tol, `${JSON.stringify(args)}: ${meanAbsDiff(r.values, rgb)}`);
      assert.deepEqual(got(tt.node.decodeImage(file)).values, r.values);
    }
  });

  it('writes the JFIF density and the XMP packet', async () => {
    const file = Buffer.from(await encode(rgb, 3, '', 90, false, false, true, 'cm', 10, 20, '<x:xmpmeta/>'));
    const app0 = file.indexOf(Buffer.from('JFIF\0'));
    assert.ok(app0 > 0);
    // version (2 bytes), units (2 = per cm), x density, y density
    assert.deepEqual([...file.subarray(app0 + 7, app0 + 12)], [2, 0, 10, 0, 20]);
    assert.ok(file.indexOf(Buffer.from('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>')) > 0);
    const inches = Buffer.from(await encode(rgb, 3));
    const at = inches.indexOf(Buffer.from('JFIF\0'));
    assert.deepEqual([...inches.subarray(at + 7, at + 12)], [1, 1, 44, 1, 44]);
  });

  it('grey JPEGs, grey from colour (the luma plane), colour from grey', async () => {
    const grey = picture(H, W, 1);
    const file = await encode(grey, 1);
    const g = got(tt.node.decodeJpeg(file));
    assert.deepEqual(g.shape, [H, W, 1]);
    assert.ok(meanAbsDiff(g.values, grey) < 2);
    const g3 = got(tt.node.decodeJpeg(file, 3));
    assert.deepEqual(g3.shape, [H, W, 3]);
    assert.deepEqual(g3.values.filter((_, i) => i % 3 === 0), g.values);
    const colour = await encode(rgb, 3);
    const luma = got(tt.node.decodeJpeg(colour, 1));
    const want = [];
    for (let i = 0; i < rgb.length; i += 3) want.push(0.299 * rgb[i] + 0.587 * rgb[i + 1] + 0.114 * rgb[i + 2]);
    assert.deepEqual(luma.shape, [H, W, 1]);
    assert.ok(meanAbsDiff(luma.values, want) < 2);
  });

  it('ratio 2, 4 and 8 scale down (output size rounded up, as libjpeg)', async () => {
    const file = await encode(rgb, 3);
    const full = got(tt.node.decodeJpeg(file)).values;
    for (const r of [2, 4, 8]) {
      const s = got(tt.node.decodeJpeg(file, 0, r));
      assert.deepEqual(s.shape, [Math.ceil(H / r), Math.ceil(W / r), 3]);
      // The top-left block's mean.
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let y = 0; y < r; y++) for (let x = 0; x < r; x++) sum += full[(y * W + x) * 3 + c];
        assert.ok(Math.abs(s.values[c] - sum / (r * r)) <= 1);
      }
    }
    failsWith(() => tt.node.decodeJpeg(file, 0, 3), 'ratio must be 1, 2, 4, or 8, got 3');
    failsWith(() => tt.node.decodeJpeg(file, 0, 1, true, false, 1, 'FOO'),
      "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}");
    assert.deepEqual(got(tt.node.decodeJpeg(file, 0, 1, false, false, 1, 'INTEGER_ACCURATE')).values, full);
  });

  it('encodeJpeg\'s argument errors are TensorFlow\'s', async () => {
    const t3 = tt.ones([2, 3, 3], 'int32');
    const t2 = tt.ones([2, 2], 'int32');
    const t4 = tt.ones([2, 2, 4], 'int32');
    const t1 = tt.ones([2, 2, 1], 'int32');
    const e = tt.ones([0, 2, 3], 'int32');
    await rejectsWith(tt.node.encodeJpeg(t4), 'image must have 1 or 3 channels, got [2,2,4]');
    await rejectsWith(tt.node.encodeJpeg(t3, 'grayscale'), 'format grayscale expects 1 channels, got [2,3,3]');
    await rejectsWith(tt.node.encodeJpeg(t1, 'rgb'), 'format rgb expects 3 channels, got [2,2,1]');
    await rejectsWith(tt.node.encodeJpeg(t3, 'xyz'),
      'Value for attr \'format\' of "xyz" is not in the list of allowed values: "", "grayscale", "rgb"');
    await rejectsWith(tt.node.encodeJpeg(t3, '', 101), 'quality must be in [0,100], got 101');
    await rejectsWith(tt.node.encodeJpeg(t3, '', -1), 'quality must be in [0,100], got -1');
    await rejectsWith(tt.node.encodeJpeg(t3, '', 95, false, false, true, 'mm'),
      'Value for attr \'density_unit\' of "mm" is not in the list of allowed values: "in", "cm"');
    await rejectsWith(tt.node.encodeJpeg(t2), 'image must be 3-dimensional[2,2]');
    await rejectsWith(tt.node.encodeJpeg(e), 'JPEG encoding failed');
    await rejectsWith(tt.node.encodeJpeg([[[1]]]), 'image.data is not a function');
    tt.dispose([t3, t2, t4, t1, e]);
  });

  it('encodePng\'s argument errors are TensorFlow\'s', async () => {
    const t3 = tt.ones([2, 3, 3], 'int32');
    const t2 = tt.ones([2, 2], 'int32');
    const t5 = tt.ones([2, 2, 5], 'int32');
    const e = tt.ones([0, 2, 3], 'int32');
    await rejectsWith(tt.node.encodePng(t2), 'images must be at least rank 3[2,2]');
    await rejectsWith(tt.node.encodePng(t5), 'image must have 1, 2, 3, or 4 channels, got 5');
    await rejectsWith(tt.node.encodePng(t3, 10), 'compression should be in [-1,9], got 10');
    await rejectsWith(tt.node.encodePng(t3, -2), 'compression should be in [-1,9], got -2');
    await rejectsWith(tt.node.encodePng(e), 'PNG encoding failed');
    tt.dispose([t3, t2, t5, e]);
  });
});

// ---- tf.node: BMP and GIF -------------------------------------------------------------------

describe('tf.node BMP (TensorFlow\'s reader)', () => {
  const B24 = bmp({ width: 2, height: 2, bpp: 24, pixels: [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]] });
  it('24-bit: BGR to RGB, bottom-up rows, padded rows', () => {
    expectImage(tt.node.decodeBmp(B24), [2, 2, 3], [3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10]);
    expectImage(tt.node.decodeImage(B24), [2, 2, 3], [3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10]);
    expectImage(tt.node.decodeBmp(B24, 4), [2, 2, 4], [3, 2, 1, 255, 6, 5, 4, 255, 9, 8, 7, 255, 12, 11, 10, 255]);
    const topDown = bmp({ width: 2, height: 2, bpp: 24, topDown: true, pixels: [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]] });
    expectImage(tt.node.decodeBmp(topDown), [2, 2, 3], [3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10]);
    const odd = bmp({ width: 3, height: 1, bpp: 24, pixels: [[1, 2, 3, 4, 5, 6, 7, 8, 9]] });
    expectImage(tt.node.decodeBmp(odd), [1, 3, 3], [3, 2, 1, 6, 5, 4, 9, 8, 7]);
  });
  it('32-bit keeps alpha; 8-bit bytes are grey values', () => {
    const b32 = bmp({ width: 1, height: 2, bpp: 32, pixels: [[1, 2, 3, 4], [5, 6, 7, 8]] });
    expectImage(tt.node.decodeBmp(b32), [2, 1, 4], [3, 2, 1, 4, 7, 6, 5, 8]);
    expectImage(tt.node.decodeBmp(b32, 3), [2, 1, 3], [3, 2, 1, 7, 6, 5]);
    const b8 = bmp({ width: 3, height: 1, bpp: 8, pixels: [[9, 200, 7]] });
    expectImage(tt.node.decodeBmp(b8), [1, 3, 1], [9, 200, 7]);
    expectImage(tt.node.decodeBmp(b8, 3), [1, 3, 3], [9, 9, 9, 200, 200, 200, 7, 7, 7]);
    expectImage(tt.node.decodeBmp(b8, 4), [1, 3, 4], [9, 9, 9, 255, 200, 200, 200, 255, 7, 7, 7, 255]);
  });
  it('fails as TensorFlow does', () => {
    failsWith(() => tt.node.decodeBmp(B24, 1), '`channels` must be 0, 3 or 4 for BMP, but got 1');
    failsWith(() => tt.node.decodeImage(B24, 1), '`channels` must be 0, 3 or 4 for BMP, but got 1');
    failsWith(() => tt.node.decodeBmp(B24, 2), '`channels` must be 0, 1, 3 or 4 but got 2');
    failsWith(() => tt.node.decodeBmp(bmp({ width: 2, height: 2, bpp: 24, extra: 2, pixels: [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]] })),
      'Input size should match (header_size + row_size * abs_height) but they differ by 2');
    failsWith(() => tt.node.decodeBmp(B24.slice(0, B24.length - 1)),
      'Input size should match (header_size + row_size * abs_height) but they differ by -1');
    failsWith(() => tt.node.decodeBmp(B24.slice(0, 20)),
      'Incomplete bmp content, requires at least 32 bytes to find the header size, width, height, and bpp, got 20 bytes');
    failsWith(() => tt.node.decodeBmp(bmp({ width: 2, height: 1, bpp: 16, pixels: [[1, 2, 3, 4]] })),
      'Number of channels inherent in the image must be 1, 3 or 4, was 2');
    failsWith(() => tt.node.decodeBmp(bmp({ width: 0, height: 1, bpp: 24, pixels: [[]] })), 'Width must be positive');
    failsWith(() => tt.node.decodeBmp(bmp({ width: 1, height: 0, bpp: 24, pixels: [] })), 'Height must be nonzero');
    for (const [f, op] of [[tt.node.decodePng, 'DecodePng'], [tt.node.decodeJpeg, 'DecodeJpeg'], [tt.node.decodeGif, 'DecodeGif']]) {
      failsWith(() => f(B24),
        `Trying to decode BMP format using a wrong op. Use \`decode_bmp\` or \`decode_image\` instead. Op used: ${op}`);
    }
  });
});

describe('tf.node GIF (giflib\'s frames, as TensorFlow composes them)', () => {
  const PAL = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [9, 9, 9]];
  const G1 = gif({ width: 2, height: 2, palette: PAL, frames: [{ width: 2, height: 2, indices: [0, 1, 2, 3] }] });
  const ONE = [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9];
  // Frame 1 covers part of the canvas (the rest black); frame 2 is transparent where index 3
  // (the previous frame shows through; disposal is ignored); frame 3 has its own palette.
  const G3 = gif({ width: 3, height: 2, palette: PAL, frames: [
    { left: 1, top: 0, width: 2, height: 1, indices: [0, 1] },
    { width: 3, height: 2, indices: [3, 3, 2, 2, 3, 1], transparent: 3, disposal: 2 },
    { left: 2, top: 1, width: 1, height: 1, indices: [0], palette: [[1, 2, 3]] },
  ] });
  const F1 = [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const F2 = [0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0, 0, 255, 0];
  const F3 = [0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0, 1, 2, 3];

  it('one frame: 4-D from decodeGif and decodeImage, 3-D without expandAnimations or from decodePng/Jpeg', () => {
    expectImage(tt.node.decodeGif(G1), [1, 2, 2, 3], ONE);
    expectImage(tt.node.decodeImage(G1), [1, 2, 2, 3], ONE);
    expectImage(tt.node.decodeImage(G1, 1), [1, 2, 2, 3], ONE); // tfjs-node passes no channels to decodeGif
    expectImage(tt.node.decodeImage(G1, 0, 'int32', false), [2, 2, 3], ONE);
    expectImage(tt.node.decodePng(G1), [2, 2, 3], ONE);
    expectImage(tt.node.decodeJpeg(G1), [2, 2, 3], ONE);
  });
  it('frames composed over the previous one; the first frame alone without expandAnimations', () => {
    expectImage(tt.node.decodeGif(G3), [3, 2, 3, 3], [...F1, ...F2, ...F3]);
    expectImage(tt.node.decodeImage(G3), [3, 2, 3, 3], [...F1, ...F2, ...F3]);
    expectImage(tt.node.decodeImage(G3, 0, 'int32', false), [2, 3, 3], F1);
  });
  it('the output is as large as the largest frame, frames clipped to it', () => {
    const g = gif({ width: 2, height: 1, palette: PAL, frames: [{ left: 1, width: 2, height: 2, indices: [0, 1, 2, 3] }] });
    expectImage(tt.node.decodeGif(g), [1, 2, 2, 3], [0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 255]);
  });
  it('keeps the frames read before the data ends', () => {
    expectImage(tt.node.decodeGif(G3.slice(0, G3.length - 8)), [2, 2, 3, 3], [...F1, ...F2]);
  });
  it('fails as TensorFlow does', () => {
    failsWith(() => tt.node.decodePng(G3),
      'Got 3 frames, but animated gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image');
    failsWith(() => tt.node.decodePng(G1, 1), 'channels must be 0 or 3 for GIF, got 1');
    failsWith(() => tt.node.decodeJpeg(G1, 4), 'channels must be 0 or 3 for GIF, got 4');
    failsWith(() => tt.node.decodeBmp(G1),
      'Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or `decode_image` instead.');
    failsWith(() => tt.node.decodeGif(G3.slice(0, 20)),
      'Invalid GIF data (size 20), failed to open gif file: No screen descriptor detected');
    failsWith(() => tt.node.decodeGif(gif({ width: 2, height: 1, palette: [[1, 1, 1], [2, 2, 2]], frames: [{ width: 2, height: 1, indices: [0, 3] }] })),
      'Invalid GIF data (size 35), found color index 3 outside of color map range 2');
    const noPalette = gif({ width: 1, height: 1, frames: [{ width: 1, height: 1, indices: [0] }] });
    failsWith(() => tt.node.decodeGif(noPalette), `Invalid GIF data (size ${noPalette.length}), missing color map`);
    assert.throws(() => tt.node.decodeGif(gif({ width: 2, height: 1, palette: PAL, frames: [] })),
      /^Error: Invalid GIF data \(size 26\), failed to slurp gif file: /);
  });
});

// ---- tf.node: bad input ---------------------------------------------------------------------

describe('tf.node bad input: an Error, never a crash, nothing left behind', () => {
  let PNG;
  let JPG;
  it('setup', async () => {
    const t = tt.tensor3d(picture(16, 16, 3), [16, 16, 3], 'int32');
    PNG = await tt.node.encodePng(t);
    JPG = await tt.node.encodeJpeg(t);
    t.dispose();
  });
  it('empty input', () => {
    failsWith(() => tt.node.decodeImage(new Uint8Array(0)), 'Expected image (BMP, JPEG, PNG, or GIF), but got unsupported image type');
    for (const f of ['decodePng', 'decodeJpeg', 'decodeBmp', 'decodeGif']) {
      failsWith(() => tt.node[f](new Uint8Array(0)), 'Input is empty.');
    }
  });
  it('random bytes', () => {
    const junk = new Uint8Array(64).map((_, i) => (i * 97 + 13) % 251);
    failsWith(() => tt.node.decodeImage(junk), 'Expected image (BMP, JPEG, PNG, or GIF), but got unsupported image type');
    failsWith(() => tt.node.decodePng(junk), 'Unknown image file format. One of JPEG, PNG, GIF, BMP required.');
    // The right magic numbers, then junk.
    const fakePng = new Uint8Array([...PNG.slice(0, 8), ...junk]);
    failsWith(() => tt.node.decodeImage(fakePng), 'Invalid PNG. Failed to initialize decoder.');
    const fakeJpg = new Uint8Array([...JPG.slice(0, 3), ...junk]);
    failsWith(() => tt.node.decodeImage(fakeJpg), 'jpeg::Uncompress failed. Invalid JPEG data or crop window.');
    // (TensorFlow's text ends with giflib's reason, "Wrong record type detected".)
    assert.throws(() => tt.node.decodeImage(new Uint8Array([71, 73, 70, 56, ...junk])),
      /^Error: Invalid GIF data \(size 68\), failed to slurp gif file: /);
  });
  it('truncated files', () => {
    for (const cut of [1, 20, PNG.length >> 1]) {
      failsWith(() => tt.node.decodePng(PNG.slice(0, PNG.length - cut)), `Invalid PNG data, size ${PNG.length - cut}`);
    }
    failsWith(() => tt.node.decodePng(PNG.slice(0, 30)), 'Invalid PNG. Failed to initialize decoder.');
    // A JPEG whose data ends before its EOI marker fails (TensorFlow reads up to it) ...
    for (const cut of [1, 2, 3, 20, JPG.length >> 1, JPG.length - 10]) {
      failsWith(() => tt.node.decodeJpeg(JPG.slice(0, JPG.length - cut)), 'jpeg::Uncompress failed. Invalid JPEG data or crop window.');
      failsWith(() => tt.node.decodeImage(JPG.slice(0, JPG.length - cut)), 'jpeg::Uncompress failed. Invalid JPEG data or crop window.');
    }
    // ... unless asked to recover; bytes after it are ignored.
    const recovered = tt.node.decodeJpeg(JPG.slice(0, JPG.length - 20), 0, 1, true, true, 0.5);
    assert.deepEqual(got(recovered).shape, [16, 16, 3]);
    assert.deepEqual(got(tt.node.decodeJpeg(new Uint8Array([...JPG, 1, 2, 3]))).shape, [16, 16, 3]);
    const badCrc = PNG.slice();
    badCrc[PNG.length - 20] ^= 1;
    failsWith(() => tt.node.decodePng(badCrc), `Invalid PNG data, size ${PNG.length}`);
  });
  it('argument forms', () => {
    assert.equal(got(tt.node.decodeImage(Buffer.from(PNG))).shape.join(), '16,16,3');
    failsWith(() => tt.node.decodeImage(PNG, 0, 'float32'), 'decodeImage could only return Tensor of type `int32` for now.');
    failsWith(() => tt.node.decodePng(PNG, 0, 'float32'), 'decodeImage could only return Tensor of type `int32` for now.');
    failsWith(() => tt.node.decodePng(PNG, 2), '`channels` must be 0, 1, 3 or 4 but got 2');
    failsWith(() => tt.node.decodePng(PNG, -1), '`channels` must be 0, 1, 3 or 4 but got -1');
    failsWith(() => tt.node.decodeJpeg(JPG, 4), 'JPEG does not support 4 channels');
    failsWith(() => tt.node.decodeImage(JPG, 4), 'JPEG does not support 4 channels');
    failsWith(() => tt.node.decodeBmp(JPG),
      'Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or `decode_image` instead.');
    failsWith(() => tt.node.decodeBmp(PNG),
      'Trying to decode PNG format using DecodeBmp op. Use `decode_png` or `decode_image` instead.');
    // An array passes tfjs-node's magic-number check, then fails as tf.scalar(array, 'string').
    failsWith(() => tt.node.decodeImage(Array.from(PNG)), 'Error creating a new Scalar: value must be a primitive (number|boolean|string)');
    failsWith(() => tt.node.decodePng(Array.from(PNG)), 'Error creating a new Scalar: value must be a primitive (number|boolean|string)');
    failsWith(() => tt.node.decodePng(null), 'values passed to tensor(values) must be a number/boolean/string or an array of numbers/booleans/strings, or a TypedArray');
    failsWith(() => tt.node.decodePng('abc'), 'Unknown image file format. One of JPEG, PNG, GIF, BMP required.');
    assert.throws(() => tt.node.decodeImage(null), TypeError);
  });
  it('numeric arguments are int32 integers: never wrapped, truncated or read as 0', async () => {
    // 2 ** 32 + 3 once wrapped to 3 channels; TensorFlow refuses an attribute past int32.
    for (const f of ['decodePng', 'decodeJpeg', 'decodeBmp', 'decodeImage']) {
      const file = f === 'decodeJpeg' ? JPG : PNG;
      failsWith(() => tt.node[f](file, 2 ** 32 + 3), 'Attr channels has value 4294967299 out of range for an int32');
      failsWith(() => tt.node[f](file, -(2 ** 31) - 1), 'Attr channels has value -2147483649 out of range for an int32');
      for (const bad of [1.5, NaN, Infinity]) failsWith(() => tt.node[f](file, bad), `Attr channels must be an integer, got ${bad}`);
      failsWith(() => tt.node[f](file, '3'), 'Invalid napi_status: A number was expected\n');
    }
    failsWith(() => tt.node.decodePng(PNG, 2 ** 31), 'Attr channels has value 2147483648 out of range for an int32');
    failsWith(() => tt.node.decodePng(PNG, 2 ** 31 - 1), '`channels` must be 0, 1, 3 or 4 but got 2147483647');
    failsWith(() => tt.node.decodeJpeg(JPG, 0, 2 ** 32 + 2), 'Attr ratio has value 4294967298 out of range for an int32');
    failsWith(() => tt.node.decodeJpeg(JPG, 0, 2.5), 'Attr ratio must be an integer, got 2.5');
    assert.equal(got(tt.node.decodeJpeg(JPG, 3, 2)).shape.join(), '8,8,3');
    const img = tt.ones([2, 2, 3], 'int32');
    await rejectsWith(tt.node.encodePng(img, 2 ** 32 + 1), 'Attr compression has value 4294967297 out of range for an int32');
    await rejectsWith(tt.node.encodePng(img, 0.5), 'Attr compression must be an integer, got 0.5');
    await rejectsWith(tt.node.encodeJpeg(img, '', 2 ** 32 + 90), 'Attr quality has value 4294967386 out of range for an int32');
    await rejectsWith(tt.node.encodeJpeg(img, '', NaN), 'Attr quality must be an integer, got NaN');
    await rejectsWith(tt.node.encodeJpeg(img, '', 95, false, false, true, 'in', 1.5), 'Attr x_density must be an integer, got 1.5');
    await rejectsWith(tt.node.encodeJpeg(img, '', 95, false, false, true, 'in', 300, 2 ** 40),
      'Attr y_density has value 1099511627776 out of range for an int32');
    img.dispose();
  });
  it('encoders refuse what they would not encode as given: batches, complex64, strings', async () => {
    const batch = tt.ones([2, 2, 2, 3], 'int32');
    const complex = tt.tidy(() => tt.complex(tt.ones([2, 2, 3]), tt.zeros([2, 2, 3])));
    const strings = tt.tensor(['a', 'b'], [2, 1, 1], 'string');
    const flat = tt.zeros([2, 2], 'int32');
    await rejectsWith(tt.node.encodePng(batch), 'encodePng takes one image of rank 3 [height, width, channels], ' +
      'got shape [2,2,2,3]: encode the images of a batch one by one');
    await rejectsWith(tt.node.encodeJpeg(batch), 'image must be 3-dimensional[2,2,2,3]');
    for (const [f, op] of [['encodePng', 'EncodePng'], ['encodeJpeg', 'EncodeJpeg']]) {
      await rejectsWith(tt.node[f](complex),
        `cannot compute ${op} as input #0(zero-based) was expected to be a uint8 tensor but is a complex64 tensor`);
      await rejectsWith(tt.node[f](strings),
        `cannot compute ${op} as input #0(zero-based) was expected to be a uint8 tensor but is a string tensor`);
    }
    await rejectsWith(tt.node.encodePng(flat), 'images must be at least rank 3[2,2]');
    tt.dispose([batch, complex, strings, flat]);
  });
});

// ---- a decode-to-prediction pipeline --------------------------------------------------------

describe('pipeline: decode, preprocess, predict in tidy, many times, with flat memory', () => {
  it('numTensors and numBytes (and numBytesInGPU) stay flat', async () => {
    const wgpu = tt.getBackend() === 'wgpu';
    const iterations = wgpu ? 200 : 1000;
    const img = tt.tensor3d(picture(24, 32, 3), [24, 32, 3], 'int32');
    const file = await tt.node.encodePng(img);
    img.dispose();
    const pixels = { data: new Uint8Array(picture(24, 32, 4)), width: 32, height: 24 };
    const model = tt.sequential({ layers: [
      tt.layers.flatten({ inputShape: [16, 16, 3] }),
      tt.layers.dense({ units: 8, activation: 'relu' }),
      tt.layers.dense({ units: 3, activation: 'softmax' }),
    ] });
    const step = (i) => tt.tidy(() => {
      const x = i % 2 ? tt.node.decodeImage(file, 3) : tt.browser.fromPixels(pixels);
      const input = tt.image.resizeBilinear(x.toFloat().div(255), [16, 16]).expandDims(0);
      return model.predict(input).dataSync();
    });
    const memory = () => {
      const m = tt.memory();
      return { numTensors: m.numTensors, numBytes: m.numBytes, numBytesInGPU: m.numBytesInGPU };
    };
    for (let i = 0; i < 10; i++) step(i);
    const start = memory();
    let last;
    for (let i = 0; i < iterations; i++) {
      last = step(i);
      if (i % 100 === 99) assert.deepEqual(memory(), start, `after ${i + 1} iterations`);
    }
    assert.deepEqual(memory(), start);
    assert.equal(last.length, 3);
    assert.ok(Math.abs(last.reduce((a, b) => a + b, 0) - 1) < 1e-5);
    model.dispose();
  });
});

describe('mutated files: an Error or an image, never a crash or a leak', () => {
  it('random byte changes and cuts of PNG, JPEG, progressive JPEG, GIF and BMP files', async () => {
    const t = tt.tensor3d(picture(12, 10, 3), [12, 10, 3], 'int32');
    const files = [await tt.node.encodePng(t), await tt.node.encodeJpeg(t), await tt.node.encodeJpeg(t, '', 80, true),
      gif({ width: 3, height: 2, palette: [[1, 2, 3], [4, 5, 6]], frames: [{ width: 3, height: 2, indices: [0, 1, 0, 1, 1, 0] },
        { left: 1, width: 2, height: 1, indices: [1, 1], transparent: 0 }] }),
      bmp({ width: 3, height: 2, bpp: 24, pixels: [[1, 2, 3, 4, 5, 6, 7, 8, 9], [9, 8, 7, 6, 5, 4, 3, 2, 1]] })];
    t.dispose();
    let seed = 12345;
    const rand = (n) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const before = tt.memory().numTensors;
    let decoded = 0;
    for (const file of files) {
      for (let k = 0; k < 150; k++) {
        const m = file.slice(0, k % 3 === 0 ? 1 + rand(file.length) : file.length);
        for (let j = 0; j < 1 + rand(4); j++) m[rand(m.length)] = rand(256);
        try {
          tt.node.decodeImage(m).dispose();
          decoded++;
        } catch (e) {
          assert.ok(e instanceof Error);
          assert.ok(!/internal error/.test(e.message), e.message);
        }
      }
    }
    assert.equal(tt.memory().numTensors, before);
    assert.ok(decoded > 0);
  });
});

describe('IMAGE_MAX_PIXELS: a header claiming a huge image is refused before its pixels are allocated', () => {
  const { png, bmp, gif } = require('./matrix/surfaces/images');
  const limitText = /^The image is (\d+) x (\d+) pixels(?: in \d+ frames)?, more than the (\d+) pixels the IMAGE_MAX_PIXELS flag allows$/;
  const refusal = (fn) => {
    const before = tt.memory();
    try {
      fn();
    } catch (e) {
      assert.deepEqual([tt.memory().numTensors, tt.memory().numBytes], [before.numTensors, before.numBytes]);
      return e.message;
    }
    assert.fail('expected a refusal');
  };

  it('20000 x 20000 PNG, GIF and JPEG headers (the default limit, 100 megapixels)', async () => {
    assert.match(refusal(() => tt.node.decodePng(png(4, 3, 20000, 20000))), limitText);
    assert.match(refusal(() => tt.node.decodeImage(gif(20000, 20000))), limitText);
    const x = tt.tensor3d(Array.from({ length: 36 }, (_, i) => i * 7), [4, 3, 3], 'int32');
    const jpeg = Buffer.from(await tt.node.encodeJpeg(x));
    x.dispose();
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    jpeg.writeUInt16BE(20000, sof + 5);
    jpeg.writeUInt16BE(20000, sof + 7);
    const m = limitText.exec(refusal(() => tt.node.decodeJpeg(jpeg)));
    assert.deepEqual(m.slice(1), ['20000', '20000', '100000000']);
  });

  it('a lower limit refuses small images; at the limit they decode', () => {
    const old = tt.env().get('IMAGE_MAX_PIXELS');
    try {
      tt.env().set('IMAGE_MAX_PIXELS', 11);
      assert.equal(refusal(() => tt.node.decodePng(png(4, 3))),
        'The image is 4 x 3 pixels, more than the 11 pixels the IMAGE_MAX_PIXELS flag allows');
      tt.env().set('IMAGE_MAX_PIXELS', 12);
      const t = tt.node.decodePng(png(4, 3));
      assert.deepEqual(t.shape, [3, 4, 3]);
      t.dispose();
      tt.env().set('IMAGE_MAX_PIXELS', 5);
      assert.match(refusal(() => tt.node.decodeBmp(bmp(3, 2))), /3 x 2 pixels, more than the 5 pixels/);
      const g = tt.node.decodeGif(gif(1, 1));
      assert.deepEqual(g.shape, [1, 1, 1, 3]);
      g.dispose();
    } finally {
      tt.env().set('IMAGE_MAX_PIXELS', old);
    }
  });
});
