'use strict';
// tf.op and tf.OP_SCOPE_SUFFIX (tfjs's operation.ts), and the scope they run functions in.
const native = require('../native');
const { collectIds } = require('../engine');
const { util } = require('../util');

// Runs `fn` in a scope of its own: what it makes and does not return is freed, also when it
// throws (tidy without tidy's name argument and Promise warning).
function scoped(fn) {
  native.startScope();
  let result;
  try {
    result = fn();
  } catch (e) {
    native.endScope([]);
    throw e;
  }
  native.endScope(collectIds(result));
  return result;
}

const OP_SCOPE_SUFFIX = '__op';

// tf.op({name: fn}): fn as an op. It runs in its own scope, so the tensors it makes and does not
// return are freed; the returned function is named `name` (one trailing '_' dropped) + '__op'.
function op(f) {
  const keys = Object.keys(f);
  if (keys.length !== 1) {
    throw new Error('Please provide an object with a single key (operation name) mapping to a ' +
      `function. Got an object with ${keys.length} keys.`);
  }
  const fn = f[keys[0]];
  const opName = `${keys[0].endsWith('_') ? keys[0].slice(0, -1) : keys[0]}${OP_SCOPE_SUFFIX}`;
  const wrapped = (...args) => {
    return scoped(() => {
      const result = fn(...args);
      if (util.isPromise(result)) console.error('Cannot return a Promise inside of tidy.');
      return result;
    });
  };
  Object.defineProperty(wrapped, 'name', { value: opName, configurable: true });
  return wrapped;
}

module.exports = { OP_SCOPE_SUFFIX, op, scoped };
