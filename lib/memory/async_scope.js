'use strict';
// tf.tidyAsync(fn): tf.tidy across awaits. The scope is the async context (Node's
// AsyncLocalStorage), not a stack: every tensor handle made while fn's async work runs, in
// any continuation of it, joins that call's scope, so concurrent calls each collect their
// own. When fn's promise settles, what the scope collected is disposed, except the tensors in
// the resolved value (they join the caller's scope, or stay alive at top level), kept tensors
// and variables. tf.tidy is unchanged: inside tidyAsync it disposes its own temporaries
// synchronously, as always, and its result joins the async scope.
const { AsyncLocalStorage } = require('node:async_hooks');
const native = require('../native');
const { collectIds } = require('../engine');
const hooks = require('./hooks');

const context = new AsyncLocalStorage();
let listening = false;
// The scopes whose fn has not settled yet (the GC backstop asks them before reclaiming).
const openScopes = new Set();

// A scope's ids of disposed tensors are dropped now and then, so that a long-running scope
// (a training loop inside tidyAsync) does not grow without bound.
const PRUNE_AT = 4096;

class AsyncScope {
  constructor() {
    this.ids = new Set();
    this.pruneAt = PRUNE_AT;
  }

  add(id) {
    this.ids.add(id);
    if (this.ids.size >= this.pruneAt) {
      for (const i of this.ids) if (native.isDisposed(i)) this.ids.delete(i);
      this.pruneAt = Math.max(PRUNE_AT, 2 * this.ids.size);
    }
  }
}

function record(t) {
  const scope = context.getStore();
  if (scope !== undefined) scope.add(t.id);
}

// Disposes what `scope` collected but `keepIds` (one native call; kept tensors and variables
// stay); those join the caller's async scope.
function settle(scope, keepIds) {
  openScopes.delete(scope);
  const keep = new Set(keepIds);
  const parent = context.getStore();
  const drop = [];
  for (const id of scope.ids) {
    if (!keep.has(id)) drop.push(id);
    else if (parent !== undefined) parent.add(id);
  }
  if (drop.length > 0) native.disposeUnheld(drop);
}

function checkArgs(nameOrFn, fn) {
  if (fn == null) {
    if (typeof nameOrFn !== 'function') throw new Error('Please provide a function to tidyAsync()');
    return nameOrFn;
  }
  if (typeof nameOrFn !== 'string' && !(nameOrFn instanceof String)) {
    throw new Error('When calling with two arguments, the first argument to tidyAsync() must be a string');
  }
  if (typeof fn !== 'function') {
    throw new Error('When calling with two arguments, the 2nd argument to tidyAsync() must be a function');
  }
  return fn;
}

// tidyAsync(fn) or tidyAsync(name, fn), as tidy's arguments; resolves to fn's value. (A promise
// chain rather than an async function: fewer turns of the microtask queue per call.)
function tidyAsync(nameOrFn, fn) {
  let result;
  const scope = new AsyncScope();
  openScopes.add(scope);
  try {
    fn = checkArgs(nameOrFn, fn);
    // From the first call on, new tensors are offered to the current async scope (a lookup).
    if (!listening) {
      hooks.listen('tidyAsync', record);
      listening = true;
    }
    result = context.run(scope, fn);
  } catch (e) {
    settle(scope, []);
    return Promise.reject(e);
  }
  return Promise.resolve(result).then((value) => {
    settle(scope, collectIds(value));
    return value;
  }, (e) => {
    settle(scope, []);
    throw e;
  });
}

// Whether an open tidyAsync scope holds tensor `id` (it will dispose or hand on the tensor).
function heldByOpenScope(id) {
  for (const scope of openScopes) if (scope.ids.has(id)) return true;
  return false;
}

module.exports = { tidyAsync, heldByOpenScope };
