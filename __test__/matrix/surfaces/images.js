'use strict';
// Image headers and corruptions: small valid PNG, JPEG, GIF and BMP files, then each truncated,
// with bytes flipped, and with the sizes its header declares replaced (huge, zero, odd), decoded
// with each `channels`. @tensorflow/tfjs has no tf.node decoders, so there is no oracle: both
// phases of a case run tidytensor's decoder (the tfjs phase through `foreign`), which makes these
// cases checks of crashes, hangs, leaks and determinism; a header past IMAGE_MAX_PIXELS must be
// refused, which images.test.js asserts.
const zlib = require('node:zlib');

// ---- files ---------------------------------------------------------------------------------

function pngChunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
}

// A w x h RGB PNG (a gradient), with the IHDR it declares (`dw` x `dh`) and a valid CRC.
function png(w = 4, h = 3, dw = w, dh = h) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(dw >>> 0, 0);
  ihdr.writeUInt32BE(dh >>> 0, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const rows = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w * 3; x++) row[1 + x] = (x * 37 + y * 11) & 255;
    rows.push(row);
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), pngChunk('IEND', Buffer.alloc(0))]);
}

// A w x h 24-bit BMP declaring `dw` x `dh`.
function bmp(w = 3, h = 2, dw = w, dh = h) {
  const row = Math.ceil((w * 3) / 4) * 4;
  const b = Buffer.alloc(54 + row * h);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(dw | 0, 18);
  b.writeInt32LE(dh | 0, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  for (let i = 54; i < b.length; i++) b[i] = (i * 13) & 255;
  return b;
}

// A one-pixel GIF with a 2-colour palette whose screen and frame declare `dw` x `dh`.
function gif(dw = 1, dh = 1) {
  const u16 = (v) => [v & 255, (v >> 8) & 255];
  return Buffer.from([
    ...Buffer.from('GIF89a', 'latin1'), ...u16(dw), ...u16(dh), 0x80, 0, 0,
    0, 0, 0, 255, 255, 255,
    0x2c, ...u16(0), ...u16(0), ...u16(dw), ...u16(dh), 0,
    // LZW, minimum code size 2: the 3-bit codes clear (4), 0, end (5).
    2, 2, 0x44, 0x01, 0,
    0x3b,
  ]);
}

// A 4 x 3 JPEG made by tidytensor's encoder, its SOF0 size replaced by `dw` x `dh`.
async function jpeg(node, tf, dw, dh) {
  const x = tf.tensor3d(Array.from({ length: 4 * 3 * 3 }, (_, i) => (i * 29) & 255), [4, 3, 3], 'int32');
  let b;
  try {
    b = Buffer.from(await node.encodeJpeg(x));
  } finally {
    x.dispose();
  }
  const sof = b.indexOf(Buffer.from([0xff, 0xc0]));
  if (dw != null && sof >= 0) {
    b.writeUInt16BE(dh & 0xffff, sof + 5);
    b.writeUInt16BE(dw & 0xffff, sof + 7);
  }
  return b;
}

// ---- cases ---------------------------------------------------------------------------------

// The image functions of whichever library has them (tidytensor: tfjs has no tf.node).
const nodeOf = (tf, foreign) => (tf.node && tf.node.decodeImage ? tf.node : foreign.node);

function decodeCase(label, fn, bytes, args) {
  return {
    name: `node.${fn}(${label}${args.map((a) => `, ${a}`).join('')})`,
    fn: `node.${fn}`,
    compare: 'value',
    build(tf, foreign) {
      const node = nodeOf(tf, foreign);
      const data = new Uint8Array(bytes());
      return () => node[fn](data, ...args);
    },
  };
}

// tf.serving.decodeImage (tidytensor's, off the thread) against tidytensor's own synchronous
// tf.node.decodeImage, which stands for tfjs (it has neither): the same tensor or error text.
function servingCase(label, bytes, args) {
  return {
    name: `serving.decodeImage(${label}${args.map((a) => `, ${a}`).join('')})`,
    fn: 'serving.decodeImage',
    compare: 'value',
    build(tf, foreign) {
      const data = new Uint8Array(bytes());
      if (tf.serving) return () => tf.serving.decodeImage(data, ...args);
      const node = nodeOf(tf, foreign);
      return () => node.decodeImage(data, ...args);
    },
  };
}

const MUTATIONS = [
  ['valid', (b) => b],
  ['empty', () => Buffer.alloc(0)],
  ['first 8 bytes', (b) => b.subarray(0, 8)],
  ['first 20 bytes', (b) => b.subarray(0, 20)],
  ['half', (b) => b.subarray(0, b.length >> 1)],
  ['last byte cut', (b) => b.subarray(0, b.length - 1)],
  ['a byte more', (b) => Buffer.concat([b, Buffer.from([0])])],
  ['byte 12 flipped', (b) => flip(b, 12)],
  ['byte 20 flipped', (b) => flip(b, 20)],
  ['byte 30 flipped', (b) => flip(b, 30)],
  ['middle byte flipped', (b) => flip(b, b.length >> 1)],
  ['every 7th byte flipped', (b) => Buffer.from(b.map((v, i) => (i % 7 === 3 ? v ^ 0xff : v)))],
  ['zeros after the signature', (b) => Buffer.concat([b.subarray(0, 8), Buffer.alloc(b.length - 8)])],
];

function flip(b, at) {
  const c = Buffer.from(b);
  if (at < c.length) c[at] ^= 0xff;
  return c;
}

function cases() {
  const files = {
    png: (dw, dh) => png(4, 3, dw, dh),
    bmp: (dw, dh) => bmp(3, 2, dw, dh),
    gif: (dw, dh) => gif(dw, dh),
  };
  const sizes = [
    ['', undefined, undefined],
    [' declaring 20000x20000', 20000, 20000],
    [' declaring 0x3', 0, 3],
    [' declaring 65535x65535', 65535, 65535],
    [' declaring 2^31x1', 2 ** 31, 1],
    [' declaring 1x100000', 1, 100000],
  ];
  const fns = { png: 'decodePng', bmp: 'decodeBmp', gif: 'decodeGif' };
  const out = [];
  for (const [kind, make] of Object.entries(files)) {
    for (const [sizeLabel, dw, dh] of sizes) {
      for (const [label, mutate] of MUTATIONS) {
        const bytes = () => mutate(dw == null ? make() : make(dw, dh));
        const name = `${kind}${sizeLabel}, ${label}`;
        out.push(decodeCase(name, 'decodeImage', bytes, []));
        out.push(decodeCase(name, fns[kind], bytes, []));
        out.push(servingCase(name, bytes, []));
      }
      for (const channels of [0, 1, 3, 4, 2, -1, 2 ** 32 + 3, 1.5]) {
        out.push(decodeCase(`${kind}${sizeLabel}`, 'decodeImage', () => (dw == null ? make() : make(dw, dh)), [channels]));
      }
    }
  }
  for (const [sizeLabel, dw, dh] of sizes.filter(([, w]) => w == null || w < 65536)) {
    for (const [label, mutate] of MUTATIONS) {
      out.push({
        name: `node.decodeJpeg(jpeg${sizeLabel}, ${label})`,
        fn: 'node.decodeJpeg',
        compare: 'value',
        build(tf, foreign) {
          const node = nodeOf(tf, foreign);
          const lib = tf.node && tf.node.decodeImage ? tf : foreign;
          return async () => node.decodeJpeg(new Uint8Array(mutate(await jpeg(node, lib, dw, dh))));
        },
      });
    }
  }
  return out;
}

module.exports = { cases, png, bmp, gif };
