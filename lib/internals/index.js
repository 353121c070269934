'use strict';
// tfjs-core's pure JavaScript helpers, one file per namespace tf exports (tf.backend_util and
// the other *_util namespaces, tf.serialization, tf.device_util, tf.kernel_impls) plus tf.op
// and the top-level helpers: the names index.js puts on tf.
const { backend_util } = require('./backend_util');
const { broadcast_util } = require('./broadcast_util');
const { gather_util } = require('./gather_util');
const { scatter_util } = require('./scatter_util');
const { slice_util } = require('./slice_util');
const { serialization } = require('./serialization');
const { device_util } = require('./device_util');
const { kernel_impls } = require('./kernel_impls');
const { OP_SCOPE_SUFFIX, op } = require('./op');
const { rand, ensureShape, enclosingPowerOfTwo, nextFrame, cosineWindow, bitwiseAnd } = require('./top_level');

module.exports = {
  backend_util, broadcast_util, gather_util, scatter_util, slice_util, serialization,
  device_util, kernel_impls, OP_SCOPE_SUFFIX, op, rand, ensureShape, enclosingPowerOfTwo,
  nextFrame, cosineWindow, bitwiseAnd,
};
