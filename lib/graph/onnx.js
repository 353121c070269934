'use strict';
// tf.loadOnnxModel(source): an ONNX model as a tf.GraphModel. The file is parsed and turned into
// a graph of the native executor by crates/graph (src/onnx); this module only gets the bytes: a
// path or file:// URL (its folder is where external data files may lie, and the only place),
// an http(s) URL (fetch), or the file's bytes.

const fs = require('node:fs');
const path = require('node:path');
const { fileURLToPath } = require('node:url');
const native = require('../native');
const { GraphModel } = require('./graph_model');

async function readSource(source, options) {
  if (source instanceof Uint8Array) return { bytes: source, folder: null };
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source), folder: null };
  if (typeof source !== 'string' || source === '') {
    throw new TypeError('tf.loadOnnxModel() needs a path, a file:// or http(s) URL, or the bytes of an .onnx file ' +
      `(a Uint8Array), but got ${source === '' ? 'an empty string' : typeof source}`);
  }
  if (/^https?:\/\//i.test(source)) {
    const fetchFunc = options.fetchFunc || fetch;
    const response = await fetchFunc(source, options.requestInit);
    if (!response.ok) throw new Error(`tf.loadOnnxModel(): request for ${source} failed with status ${response.status}`);
    return { bytes: new Uint8Array(await response.arrayBuffer()), folder: null };
  }
  const file = /^file:\/\//i.test(source) ? fileURLToPath(source) : source;
  const bytes = await fs.promises.readFile(file);
  return { bytes, folder: path.dirname(path.resolve(file)) };
}

// options: {fetchFunc, requestInit} for http(s) URLs.
async function loadOnnxModel(source, options = {}) {
  const { bytes, folder } = await readSource(source, options == null ? {} : options);
  const model = new GraphModel(typeof source === 'string' ? source : null);
  model.attachGraph(native.NativeGraph.loadOnnx(bytes, folder), { format: 'onnx' });
  return model;
}

module.exports = { loadOnnxModel };
