'use strict';
// tf.grad, grads, valueAndGrad(s), variableGrads and customGrad, as tfjs's gradients.ts and
// engine.gradients/customGrad define them. The tape and the backward pass live in the native
// engine; this module runs the user's function between the tape's forward and backward
// halves, and runs a JavaScript custom gradient when the backward pass reaches one.
const native = require('./native');
const { Tensor, Variable, wrapId, variableOf } = require('./tensor');
const { convertToTensor } = require('./convert');
const { tidy } = require('./engine');
const { assert, assertShapesMatch } = require('./util').util;

// The gradient functions of the custom ops on the tape, by the number the tape knows them by;
// forgotten when the outermost gradient ends (the tape with them).
const customGradients = new Map();
let nextCustom = 1;
let openGradients = 0;

const NO_PATH = 'Cannot compute gradient of y=f(x) with respect to x. Make sure that\n' +
  '    the f you passed encloses all operations that lead from x to y.';

// tfjs's ENGINE.gradients(f, xs, dy, allowNoGradients): {value, grads}, grads[i] null where
// y does not depend on xs[i].
function gradients(f, xs, dy, allowNoGradients = false) {
  assert(xs.length > 0, () => 'gradients() received an empty list of xs.');
  if (dy != null && dy.dtype !== 'float32') {
    throw new Error(`dy must have 'float32' dtype, but has '${dy.dtype}'`);
  }
  openGradients++;
  try {
    native.forwardStart();
    let y;
    try {
      y = f();
    } catch (e) {
      native.forwardEnd(null);
      throw e;
    }
    if (!(y instanceof Tensor)) {
      native.forwardEnd(null);
      throw new Error('The result y returned by f() must be a tensor.');
    }
    native.forwardEnd(y.id);
    native.backwardStart(y.id, xs.map((x) => x.id), dy == null ? null : dy.id, allowNoGradients);
    let ok = false;
    let ids;
    try {
      for (let step = native.backwardRun(); step != null; step = native.backwardRun()) {
        native.backwardProvide(runCustomGradient(step));
      }
      ok = true;
    } finally {
      ids = native.backwardEnd(ok);
    }
    return { value: y, grads: ids.map((id) => (id == null ? null : wrapId(id))) };
  } finally {
    if (--openGradients === 0) customGradients.clear();
  }
}

// Runs the custom gradient the backward pass stopped at; returns its input gradients' ids.
function runCustomGradient(step) {
  const custom = customGradients.get(step.id);
  if (custom == null) throw new Error('Cannot compute gradient: the custom gradient is gone.');
  const dys = step.dys.map(wrapId);
  const saved = step.saved.map(wrapId);
  const res = custom.gradFunc(dys.length > 1 ? dys : dys[0], saved);
  const grads = Array.isArray(res) ? res : [res];
  assert(grads.length === custom.numInputs,
    () => 'The function f passed in customGrad(f) must return an object where `obj.gradFunc` ' +
      'is a function that returns the same number of tensors as inputs passed to f(...).');
  assert(grads.every((t) => t instanceof Tensor),
    () => 'The function f passed in customGrad(f) must return an object where `obj.gradFunc` ' +
      'is a function that returns a list of only tensors.');
  return grads.map((g, i) => (step.needed[i] ? g.id : null));
}

function checkGrads(grads) {
  if (grads.some((g) => g == null)) throw new Error(NO_PATH);
}

function grad(f) {
  assert(typeof f === 'function', () => 'The f passed in grad(f) must be a function');
  return (x, dy) => {
    const $x = convertToTensor(x, 'x', 'tf.grad', 'string_or_numeric');
    const $dy = dy != null ? convertToTensor(dy, 'dy', 'tf.grad') : null;
    return tidy(() => {
      const { value, grads: g } = gradients(() => f($x), [$x], $dy);
      if ($dy != null) {
        assertShapesMatch(value.shape, $dy.shape,
          'The shape of dy passed in grad(f)(x, dy) must match the shape returned by f(x)');
      }
      checkGrads(g);
      return g[0];
    });
  };
}

function grads(f) {
  assert(typeof f === 'function', () => 'The f passed in grads(f) must be a function');
  return (args, dy) => {
    assert(Array.isArray(args),
      () => 'The args passed in grads(f)(args) must be an array of `Tensor`s or `TensorLike`s');
    const $args = args.map((a, i) => convertToTensor(a, `args[${i}]`, 'tf.grads', 'string_or_numeric'));
    const $dy = dy != null ? convertToTensor(dy, 'dy', 'tf.grads') : null;
    return tidy(() => {
      const { value, grads: g } = gradients(() => f(...$args), $args, $dy);
      if ($dy != null) {
        assertShapesMatch(value.shape, $dy.shape,
          'The shape of dy passed in grads(f)([x1,...], dy) must match the shape returned by f([x1,...])');
      }
      checkGrads(g);
      return g;
    });
  };
}

function valueAndGrad(f) {
  assert(typeof f === 'function', () => 'The f passed in valueAndGrad(f) must be a function');
  return (x, dy) => {
    assert(x instanceof Tensor, () => 'The x passed in valueAndGrad(f)(x) must be a tensor');
    assert(dy == null || dy instanceof Tensor,
      () => 'The dy passed in valueAndGrad(f)(x, dy) must be a tensor');
    const { grads: g, value } = gradients(() => f(x), [x], dy);
    checkGrads(g);
    return { grad: g[0], value };
  };
}

function valueAndGrads(f) {
  assert(typeof f === 'function', () => 'The f passed in valueAndGrads(f) must be a function');
  return (args, dy) => {
    assert(Array.isArray(args) && args.every((a) => a instanceof Tensor),
      () => 'The args passed in valueAndGrads(f)(args) must be array of tensors');
    assert(dy == null || dy instanceof Tensor,
      () => 'The dy passed in valueAndGrads(f)(args, dy) must be a tensor');
    const res = gradients(() => f(...args), args, dy);
    if (dy != null) {
      assertShapesMatch(res.value.shape, dy.shape,
        'The shape of dy passed in valueAndGrads(f)([x1,...], dy) must match the shape returned by f([x1,...])');
    }
    checkGrads(res.grads);
    return res;
  };
}

function variableGrads(f, varList) {
  assert(typeof f === 'function', () => 'The f passed in variableGrads(f) must be a function');
  assert(varList == null || (Array.isArray(varList) && varList.every((v) => v instanceof Variable)),
    () => 'The varList passed in variableGrads(f, varList) must be an array of variables');
  const specified = varList != null;
  if (!specified) varList = native.variables().map(([, id]) => variableOf(id));
  const nonTrainable = specified ? varList.filter((v) => !v.trainable) : null;
  const originalCount = varList.length;
  varList = varList.filter((v) => v.trainable);
  assert(varList.length > 0,
    () => 'variableGrads() expects at least one of the input variables to be trainable, but none ' +
      `of the ${originalCount} variables is trainable.`);
  const { value, grads: g } = gradients(f, varList, null, true);
  assert(g.some((t) => t != null),
    () => 'Cannot find a connection between any variable and the result of the loss function ' +
      'y=f(x). Please make sure the operations that use variables are inside the function f ' +
      'passed to minimize().');
  assert(value.rank === 0,
    () => `The f passed in variableGrads(f) must return a scalar, but it returned a rank-${value.rank} tensor`);
  const named = {};
  varList.forEach((v, i) => { if (g[i] != null) named[v.name] = g[i]; });
  if (nonTrainable != null) nonTrainable.forEach((v) => { named[v.name] = null; });
  return { value, grads: named };
}

function customGrad(f) {
  assert(typeof f === 'function', () => 'The f passed in customGrad(f) must be a function.');
  return (...inputs) => {
    assert(inputs.every((t) => t instanceof Tensor),
      () => 'The args passed in customGrad(f)(x1, x2,...) must all be tensors');
    let saved = [];
    const save = (tensors) => { saved = tensors; };
    let res;
    native.pauseTape();
    native.startScope();
    try {
      res = f(...inputs, save);
      assert(res.value instanceof Tensor,
        () => 'The function f passed in customGrad(f) must return an object where `obj.value` is a tensor');
      assert(typeof res.gradFunc === 'function',
        () => 'The function f passed in customGrad(f) must return an object where `obj.gradFunc` is a function.');
      // Checked while the tape can still be resumed below (tfjs fails on a TypeError later).
      if (!Array.isArray(saved)) throw new TypeError(`save() in customGrad(f) takes an array of tensors, but got ${String(saved)}`);
      saved.forEach((t, i) => assert(t instanceof Tensor,
        () => `save() in customGrad(f) takes an array of tensors, but element ${i} is ${String(t)}`));
    } catch (e) {
      native.endScope([]);
      native.resumeTape(null, [], [], []);
      throw e;
    }
    native.endScope([res.value.id]);
    const id = nextCustom++;
    const recorded = native.resumeTape(id, inputs.map((t) => t.id), [res.value.id], saved.map((t) => t.id));
    if (recorded) customGradients.set(id, { gradFunc: res.gradFunc, numInputs: inputs.length });
    return res.value;
  };
}

module.exports = { grad, grads, valueAndGrad, valueAndGrads, variableGrads, customGrad, gradients };
