'use strict';
// tf.registerOp / tf.deregisterOp: graph ops written in JavaScript, as tfjs-converter's
// custom ops. The native executor stops at a node of a registered op that tfjs's tables do
// not know (a built-in op is never overridden, as in tfjs); this module runs the op on the
// node's inputs and attributes and hands its outputs back.
const { Tensor, wrapId } = require('../tensor');
const { tidy } = require('../engine');

const decodeBase64 = (s) => Buffer.from(s, 'base64').toString('utf8');
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

const DTYPES = {
  DT_FLOAT: 'float32', DT_HALF: 'float32', DT_DOUBLE: 'float32', DT_INT32: 'int32', DT_INT64: 'int32',
  DT_INT8: 'int32', DT_UINT8: 'int32', DT_BOOL: 'bool', DT_STRING: 'string', DT_COMPLEX64: 'complex64',
  DT_COMPLEX128: 'complex64', 1: 'float32', 2: 'float32', 3: 'int32', 4: 'int32', 6: 'int32', 7: 'string',
  8: 'complex64', 9: 'int32', 10: 'bool', 18: 'complex64', 19: 'float32',
};
const dtypeOf = (t) => DTYPES[t] || null;
const numberOf = (v) => (typeof v === 'number' ? v : parseFloat(v));
// tfjs lower-cases string attributes (parseStringParam without keepCase).
const stringOf = (s) => (Array.isArray(s) ? String.fromCharCode(...s) : decodeBase64(s)).toLowerCase();
const shapeOf = (s) => (s.unknownRank ? undefined
  : (s.dim || []).map((d) => (typeof d.size === 'number' ? d.size : parseInt(d.size, 10))));

// A node's attributes as tfjs's NodeValueImpl.attrs decodes them, by the kind of each value.
function decodeAttrs(rawAttrs) {
  const attrs = {};
  for (const [name, v] of Object.entries(rawAttrs || {})) {
    if (v == null) continue;
    let value;
    if (v.i != null || v.f != null) value = numberOf(v.i != null ? v.i : v.f);
    else if (v.s != null) value = stringOf(v.s);
    else if (v.b != null) value = !!v.b;
    else if (v.shape != null) value = shapeOf(v.shape);
    else if (v.type != null) value = dtypeOf(v.type);
    else if (v.list != null) {
      const l = v.list;
      if (l.i != null || l.f != null) value = (l.i != null ? l.i : l.f).map(numberOf);
      else if (l.s != null) value = l.s.map(stringOf);
      else if (l.shape != null) value = l.shape.map(shapeOf);
      else if (l.b != null) value = l.b.map((b) => !!b);
      else if (l.type != null) value = l.type.map(dtypeOf);
    }
    if (value !== undefined) attrs[name] = value;
  }
  return attrs;
}

// Runs the custom op node `request` ({node, op, attrs: the node's attributes as GraphDef JSON,
// inputs}) of a native execution `run`, and gives its outputs to the execution. Returns
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
  const value = { inputs: request.inputs.map(wrapId), attrs: decodeAttrs(JSON.parse(request.attrs)) };
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

module.exports = { registerOp, deregisterOp, registeredOps, isRegistered, runCustomOp, decodeAttrs };
