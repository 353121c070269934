'use strict';
// Elementwise ops. The unary and binary ops are built from the core's op tables
// (`native.elementwiseOps()`): a new op there appears here, functional and chained, with no
// line in this file.
const native = require('../native');
const { Tensor, wrap } = require('../tensor');
const { installCastMethods } = require('../casts');
const { withOne, withTwo } = require('./args');

const ops = {};
const P = Tensor.prototype;
const table = native.elementwiseOps();

table.unary.forEach(({ name, parseAs }, code) => {
  const op = (x) => (x instanceof Tensor ? wrap(native.unary(code, x.id)) :
    withOne(x, 'x', name, parseAs, (t) => wrap(native.unary(code, t.id))));
  ops[name] = op;
  P[name] = function () { return op(this); };
});

// tfjs composes divNoNan of div, whose name its argument errors carry.
const MESSAGE_NAME = { divNoNan: 'div' };

table.binary.forEach(({ name, a: aName, b: bName, parseAs }, code) => {
  const run = (ta, tb) => wrap(native.binary(code, ta.id, tb.id));
  const msgName = MESSAGE_NAME[name] || name;
  const op = (a, b) => (a instanceof Tensor && b instanceof Tensor ? run(a, b) :
    withTwo(msgName, a, aName, parseAs, b, bName, parseAs, run));
  ops[name] = op;
  P[name] = function (b) { return op(this, b); };
});

const VALID_DTYPES = ['float32', 'int32', 'bool', 'string', 'complex64'];

function cast(x, dtype) {
  return withOne(x, 'x', 'cast', 'numeric', (t) => {
    if (VALID_DTYPES.indexOf(dtype) < 0) throw new Error(`Failed to cast to unknown dtype ${dtype}`);
    if (dtype === 'string') throw new Error('Only strings can be casted to strings');
    return wrap(native.cast(t.id, dtype));
  });
}

P.cast = function (dtype) { return cast(this, dtype); };
P.asType = function (dtype) { return cast(this, dtype); };
installCastMethods(Tensor, cast);

module.exports = { ...ops, cast };
