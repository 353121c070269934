'use strict';
// Who is told about each new tensor handle: tidyAsync scopes, origin tracking, the GC
// backstop, debug mode. `state.onCreate` stays null while nobody listens, so that making a
// tensor then costs one comparison.
const state = require('../state');

const listeners = new Map();

// Adds (fn) or removes (null) the listener called `name`.
function listen(name, fn) {
  if (fn) listeners.set(name, fn);
  else listeners.delete(name);
  const fns = [...listeners.values()];
  state.onCreate = fns.length === 0 ? null : fns.length === 1 ? fns[0] : (t) => {
    for (let i = 0; i < fns.length; i++) fns[i](t);
  };
}

module.exports = { listen };
