'use strict';
// tf.registerOp / tf.deregisterOp: graph ops written in JavaScript, as tfjs-converter's
// custom ops. The native executor stops at a node of a registered op that tfjs's tables do
// not know (a built-in op is never overridden, as in tfjs); this module runs the op on the
// node's inputs and attributes and hands its outputs back.
const { Tensor, wrapId } = require('../tensor');
const { tidy } = require('../engine');

const registered = new Map();

// tfjs's registerOp(name, opFunc): opFunc({inputs, attrs}) gives a Tensor, a list of them, or
// a promise of either (executeAsync only).
// Keyed as tfjs's CUSTOM_OPS object keys it: by the name as a string (a symbol as itself).
const keyOf = (name) => (typeof name === 'symbol' ? name : `${name}`);

function registerOp(name, opFunc) {
  registered.set(keyOf(name), opFunc);
}

function deregisterOp(name) {
  registered.delete(keyOf(name));
}

const registeredOps = () => [...registered.keys()].filter((k) => typeof k === 'string');
const isRegistered = (op) => registered.has(op);

// Runs the custom op node `request` ({node, op, attrs: the node's attributes as tfjs decodes
// them, by crates/graph's custom_op_attrs; inputs}) of a native execution `run`, and gives its outputs to the execution. Returns
// nothing, or a promise when the op is asynchronous and `allowAsync`.
function runCustomOp(run, request, allowAsync) {
  const opFunc = registered.get(request.op);
  if (typeof opFunc !== 'function' && opFunc != null) {
    run.abort();
    throw new TypeError(`The custom op ${request.op} was registered with ${typeof opFunc}, not a function`);
  }
  const fail = (e) => {
    run.abort();
    throw e;
  };
  if (opFunc == null) fail(new TypeError(`Custom op ${request.op} is not registered.`));
  const value = { inputs: request.inputs.map(wrapId), attrs: request.attrs };
  const give = (result) => {
    const outs = Array.isArray(result) ? result : [result];
    if (!outs.every((t) => t instanceof Tensor)) {
      fail(new Error(`The custom op ${request.op} (node '${request.node}') must return a Tensor or an array of Tensors`));
    }
    run.provide(outs.map((t) => t.id));
  };
  // The op runs in a tidy (what it made and does not return goes), but for an async function,
  // whose later steps may still read what it made before its first await (tfjs never tidies
  // custom ops in executeAsync).
  const isAsync = opFunc.constructor != null && opFunc.constructor.name === 'AsyncFunction';
  const asyncError = () => new Error(`The custom op ${request.op} (node '${request.node}') is asynchronous: use model.executeAsync()`);
  if (isAsync && !allowAsync) fail(asyncError());
  let result;
  try {
    result = isAsync ? opFunc(value) : tidy(() => opFunc(value));
  } catch (e) {
    fail(e);
  }
  if (result != null && typeof result.then === 'function') {
    if (!allowAsync) fail(asyncError());
    return result.then(give, fail);
  }
  give(result);
  return undefined;
}

module.exports = { registerOp, deregisterOp, registeredOps, isRegistered, runCustomOp };
