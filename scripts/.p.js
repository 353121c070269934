const tf = require('@tensorflow/tfjs'); tf.setBackend('cpu');
const un = ['sign','expm1','log1p','reciprocal','floor','ceil','round','sin','cos','tan','asin','acos','atan','sinh','cosh','asinh','acosh','atanh','erf','logSigmoid','relu6','elu','selu','softplus','step','isNaN','isInf','isFinite','leakyRelu','logicalNot','abs','neg','square','relu','exp','log','sqrt','rsqrt','sigmoid','tanh'];
for (const op of un) {
  const r = [];
  for (const [dt, vals] of [['float32', [-2.5, -0, 0.5, NaN, Infinity]], ['int32', [-3, 0, 2, 2147483647]], ['bool', [true, false]]]) {
    try { const y = tf[op](tf.tensor(vals, undefined, dt)); r.push(`${dt}->${y.dtype} ${Array.from(y.dataSync()).map(v=>+v.toFixed(4))}`); }
    catch (e) { r.push(`${dt}->THROW ${e.message.slice(0, 60)}`); }
  }
  console.log(op.padEnd(10), r.join(' | '));
}
const bin = ['mod','atan2','divNoNan','equal','notEqual','greater','greaterEqual','less','lessEqual','logicalAnd','logicalOr','logicalXor','prelu','add','sub','mul','div','floorDiv','maximum','minimum','pow','squaredDifference'];
for (const op of bin) {
  const r = [];
  for (const [dt, a, b] of [['float32', [-7.5, 7, 0, NaN, -0], [2, -2, 0, 1, 3]], ['int32', [-7, 7, 0, 5, -2147483648], [2, -2, 0, 3, -1]], ['bool', [true, false, true, false], [true, true, false, false]]]) {
    try { const y = tf[op](tf.tensor(a, undefined, dt), tf.tensor(b, undefined, dt)); r.push(`${dt}->${y.dtype} ${Array.from(y.dataSync()).map(v=>+v.toFixed(4))}`); }
    catch (e) { r.push(`${dt}->THROW ${e.message.slice(0, 60)}`); }
  }
  console.log(op.padEnd(10), r.join(' | '));
}
