'use strict';
// The implementations `npm run bench` compares. Each `load()` returns { tf, backend, version,
// notes } with the backend initialised. `available()` says whether the implementation can be
// loaded on this machine at all (an absent optional peer is skipped, not an error).

const path = require('path');
const os = require('os');

const ROOT = path.join(__dirname, '..');

// tfjs-node is optional: it is found in this package's node_modules, or in the directory
// TFJS_NODE_DIR (the DEST_DIR given to ../shared/tools/tfjs-node-from-pypi.sh, or any
// project where it is installed).
function resolveTfjsNode() {
  const paths = [ROOT];
  if (process.env.TFJS_NODE_DIR) paths.unshift(path.resolve(process.env.TFJS_NODE_DIR));
  try {
    return require.resolve('@tensorflow/tfjs-node', { paths });
  } catch {
    return null;
  }
}

function pkgVersion(name, from) {
  try {
    const file = require.resolve(`${name}/package.json`, { paths: [from || ROOT] });
    return require(file).version;
  } catch {
    return undefined;
  }
}

const impls = {
  tidytensor: {
    title: 'tidytensor',
    available: () => true,
    async load() {
      // The backend is chosen by the library itself (default, or env TIDYTENSOR_BACKEND, which
      // the parent sets per column when several tidytensor backends are benchmarked).
      const tf = require(ROOT);
      if (process.env.TIDYTENSOR_BACKEND && typeof tf.setBackend === 'function' &&
          tf.getBackend() !== process.env.TIDYTENSOR_BACKEND) {
        await tf.setBackend(process.env.TIDYTENSOR_BACKEND);
      }
      if (typeof tf.ready === 'function') await tf.ready();
      return { tf, backend: tf.getBackend(), version: require(path.join(ROOT, 'package.json')).version, notes: [] };
    },
  },
  'tfjs-cpu': {
    title: 'tfjs cpu',
    available: () => true,
    async load() {
      const tf = require('@tensorflow/tfjs');
      await tf.setBackend('cpu');
      await tf.ready();
      return { tf, backend: tf.getBackend(), version: tf.version.tfjs, notes: ['pure JavaScript kernels'] };
    },
  },
  'tfjs-wasm': {
    title: 'tfjs wasm',
    available: () => true,
    async load() {
      const tf = require('@tensorflow/tfjs');
      const wasm = require('@tensorflow/tfjs-backend-wasm');
      // In Node the .wasm binaries are read from the package's dist/ folder by file path.
      const dist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
      wasm.setWasmPaths(dist + path.sep);
      // tfjs-backend-wasm 4.22 disables its threaded build under Node
      // (WASM_HAS_MULTITHREAD_SUPPORT is false when IS_NODE; tfjs issue #3830), so XNNPACK
      // runs on one thread here; setThreadsCount has no effect on the single-threaded build.
      wasm.setThreadsCount(os.cpus().length);
      await tf.setBackend('wasm');
      await tf.ready();
      const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
      const threadsOk = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
      let threads = 1;
      try { threads = wasm.getThreadsCount(); } catch { /* not initialised */ }
      return {
        tf,
        backend: tf.getBackend(),
        version: pkgVersion('@tensorflow/tfjs-backend-wasm'),
        notes: [`${simd ? 'SIMD' : 'no SIMD'}, ${threadsOk ? threads + ' threads' : '1 thread (threads unsupported in Node)'}`],
      };
    },
  },
  // The ONNX peer (the ONNX workloads only, bench/onnx.js): its CPU build ships in the package.
  'onnxruntime-node': {
    title: 'onnxruntime-node',
    available: () => pkgVersion('onnxruntime-node') != null,
    async load() {
      const ort = require('onnxruntime-node');
      // The shim the workloads see: ONNX sessions only, no tensors of tidytensor's to count.
      const tf = { onnxruntime: ort, memory: () => ({ numTensors: 0 }) };
      return { tf, backend: 'cpu', version: pkgVersion('onnxruntime-node'), notes: ['CPU execution provider, default threads'] };
    },
  },
  'tfjs-node': {
    title: 'tfjs-node',
    available: () => resolveTfjsNode() != null,
    async load() {
      const file = resolveTfjsNode();
      const tf = require(file);
      await tf.ready();
      return {
        tf,
        backend: tf.getBackend(),
        version: tf.version && tf.version['tfjs-node'],
        notes: ['TensorFlow C library (libtensorflow)'],
      };
    },
  },
};

module.exports = { impls, resolveTfjsNode };
