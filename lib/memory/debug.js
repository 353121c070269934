'use strict';
// tfjs's debug mode (tf.enableDebugMode(), the DEBUG flag): every kernel's float32 outputs are
// checked for NaN and Infinity (with CHECK_COMPUTATION_FOR_ERRORS, which follows DEBUG), and
// each kernel's profile is logged, in tfjs's words and format (tfjs-core's profiler.js).
//
// The native engine times each top-level kernel while debug mode is on; when the kernel's
// output gets its JavaScript handle, the creation hook takes that record, checks the values
// and logs the line. Differences from tfjs: the check and the log happen at once, not a turn
// later; the time is the kernel's own (on wgpu the time to record the GPU work, not to finish
// it); the input-shapes column is empty (the record does not name the inputs); kernels that
// run natively without giving their outputs handles (inside model.fit, say) are not logged.
const native = require('../native');
const hooks = require('./hooks');
const { env, setFlagHandler } = require('../env');

let on = false;
// The kernel whose outputs are being wrapped, for the outputs after the first.
let last = null;

function rightPad(a, size) {
  return size <= a.length ? a : a + ' '.repeat(size - a.length);
}

// tfjs's checkComputationForErrors.
function checkComputationForErrors(vals, dtype, kernelName) {
  if (dtype !== 'float32') return false;
  for (let i = 0; i < vals.length; i++) {
    const num = vals[i];
    if (isNaN(num) || !isFinite(num)) {
      console.warn(`Found ${num} in the result of '${kernelName}'`);
      return true;
    }
  }
  return false;
}

// tfjs's Logger.logKernelProfile (Node's console ignores the %c styles, as under tfjs-node).
function logKernelProfile(name, result, timeMs, inputShapesDescription = '', extraInfo = '') {
  const time = rightPad(`${timeMs}ms`, 9);
  const paddedName = rightPad(name, 25);
  const shape = rightPad(result.shape.toString(), 14);
  console.log(`%c${paddedName}\t%c${time}\t%c${result.rank}D ${shape}\t%c${result.size}\t%c${
    inputShapesDescription}\t%c${extraInfo}`, 'font-weight:bold', 'color:red', 'color:blue',
  'color: orange', 'color: green', 'color: steelblue');
}

function onTensor(t) {
  const taken = native.takeLastKernel();
  const origin = native.tensorOrigin(t.id);
  if (origin === null) return;
  let kernel;
  if (taken !== null && taken[0] === origin.op) {
    kernel = taken;
    last = taken;
  } else if (taken === null && last !== null && last[0] === origin.op) {
    // Another output of the same kernel (TopK's indices, say).
    kernel = last;
  } else {
    // Not a kernel's output (an uploaded value, a variable's handle), or the record belongs to
    // a kernel whose outputs got no handle.
    last = null;
    return;
  }
  if (env().getBool('CHECK_COMPUTATION_FOR_ERRORS') && t.dtype === 'float32') {
    checkComputationForErrors(t.dataSync(), t.dtype, kernel[0]);
  }
  logKernelProfile(kernel[0], t, kernel[1]);
}

function setDebugMode(value) {
  value = !!value;
  if (value === on) return;
  on = value;
  last = null;
  native.setDebugMode(value);
  hooks.listen('debug', value ? onTensor : null);
}

// The DEBUG flag's switch.
setFlagHandler('DEBUG', setDebugMode);

module.exports = { setDebugMode, checkComputationForErrors, logKernelProfile };
