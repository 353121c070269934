'use strict';
// The exported surface against @tensorflow/tfjs 4.22: how much of tfjs's namespace (top level
// and each sub-namespace) tidytensor has, printed as one coverage line. Missing names do not
// fail (later work adds them); a name tfjs does not have fails, unless it is allowed below, and
// so does a name both have with a different `typeof`.
const { it } = require('node:test');
const { tt, tfo, assert } = require('./helpers/setup');

// tidytensor-only names: every export should be a tfjs name. Add a name here only with the
// reason it exists.
const EXTRA_ALLOWED = {
  // tf.node: tfjs-node's image codecs (decodeImage, encodePng ...), which Node programs use
  // with tfjs-node and which @tensorflow/tfjs lacks.
  top: ['node',
    // tidytensor's memory tools (lib/memory): tf.tidy across awaits, the leak finder and the
    // report of live tensors by origin; tfjs has no counterpart.
    'tidyAsync', 'leaks', 'memoryReport',
    // ONNX models as graph models (lib/graph/onnx.js); no tfjs variant reads ONNX.
    'loadOnnxModel',
    // Serving (lib/serving.js): the request batcher and the serving thread's memory; tfjs
    // predicts on the JavaScript thread only.
    'serving'],
  // tf.io.fileSystem: tfjs-node's file handler (model files on disk).
  io: ['fileSystem'],
};

// A namespace: an object of functions (tf.util, tf.losses ...), not a class instance (tf.ENV
// is an Environment; tf.version, tf.Rank and tf.Reduction hold values).
function isNamespace(v) {
  if (v == null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== null && proto !== Object.prototype) return false;
  return Object.values(v).some((f) => typeof f === 'function');
}

const pct = (n, d) => `${Math.floor((100 * n) / d)}%`;

function compare(path, want, got, allowed = []) {
  const wantKeys = Object.keys(want);
  const have = wantKeys.filter((k) => k in got);
  const extra = Object.keys(got).filter((k) => !(k in want) && !allowed.includes(k));
  const typeDiffs = have.filter((k) => typeof got[k] !== typeof want[k])
    .map((k) => `${path}.${k}: ${typeof got[k]} (tfjs: ${typeof want[k]})`);
  return { have: have.length, total: wantKeys.length, extra: extra.map((k) => `${path}.${k}`), typeDiffs };
}

it('tidytensor exports only tfjs names, with tfjs\'s kinds (coverage printed)', () => {
  const top = compare('tf', tfo, tt, EXTRA_ALLOWED.top);
  const extra = [...top.extra];
  const typeDiffs = [...top.typeDiffs];
  const parts = [`surface: ${top.have} of ${top.total} top-level names of @tensorflow/tfjs ` +
    `(${pct(top.have, top.total)})`];
  const namespaces = Object.keys(tfo).filter((k) => isNamespace(tfo[k]));
  const missing = [];
  for (const ns of namespaces) {
    if (tt[ns] == null || typeof tt[ns] !== 'object') {
      missing.push(`${ns} 0/${Object.keys(tfo[ns]).length}`);
      continue;
    }
    const c = compare(`tf.${ns}`, tfo[ns], tt[ns], EXTRA_ALLOWED[ns]);
    extra.push(...c.extra);
    typeDiffs.push(...c.typeDiffs);
    parts.push(`${ns} ${c.have}/${c.total}`);
  }
  // Printed so that CI logs show how far the surface has come.
  console.log(`${parts.join('; ')}; not yet: ${missing.join(', ')}`);
  assert.deepStrictEqual(extra, [], 'names that @tensorflow/tfjs does not export');
  assert.deepStrictEqual(typeDiffs, [], 'names whose typeof differs from tfjs');
});
