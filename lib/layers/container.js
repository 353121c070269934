'use strict';
// Models run from JavaScript: the graph of layer calls of a model that holds a layer defined
// in JavaScript (a tf.layers.Layer subclass) or another model, and the training step of any
// model compiled with a JavaScript loss or metric. Each layer still runs as one call (a
// built-in layer or a nested native model is one native call); a JavaScript layer's ops are
// native and recorded on the tape, so one backward pass trains every weight. Models made of
// built-in layers alone, with losses and metrics by name, never come here: their training
// step is one native call (crates/layers' Model).
const native = require('../native');
const { Tensor, wrapId } = require('../tensor');
const { tidy, keep, dispose } = require('../engine');
const { toList } = require('./layer');
const { concat } = require('../ops/layout');

// ---- the graph -----------------------------------------------------------------------------

// The calls between a model's symbolic inputs and outputs, in an order that runs each call
// after the calls it reads from.
class Graph {
  constructor(inputs, outputs) {
    this.inputs = inputs;
    this.outputs = outputs;
    const inputNodes = inputs.map((s) => s.node);
    this.nodes = [];
    const seen = new Set();
    const visit = (node) => {
      if (seen.has(node)) return;
      seen.add(node);
      if (!inputNodes.includes(node)) {
        if (node.inputs.length === 0 || node.layer.getClassName() === 'InputLayer') {
          throw new Error(`Graph disconnected: cannot obtain value for tensor ${node.layer.name} at layer "${node.layer.name}". The following previous layers were accessed without issue: []`);
        }
        for (const i of node.inputs) visit(i.node);
      }
      this.nodes.push(node);
    };
    for (const o of outputs) visit(o.node);
    // tfjs's model.layers: every layer once, in call order.
    this.layers = [...new Set(this.nodes.map((n) => n.layer))];
    this.inputNodes = inputNodes;
  }

  // The outputs for input tensors `xs` (temporaries stay in the caller's scope). As tfjs's
  // executor: each layer gets its inputs as a list, and the first input's mask as
  // `kwargs.mask` when any input has one; a layer that supports masking gives its outputs'.
  // `untapeFrozen` (the training step, whose gradients are the trainable weights' only): a
  // call that no trainable weight reaches (a frozen base before the first trainable layer)
  // runs with the tape paused, since no gradient flows through it.
  run(xs, training, untapeFrozen = false) {
    const values = new Map();
    const masks = new Map();
    const reached = new Set();
    this.inputNodes.forEach((node, i) => values.set(node, [xs[i]]));
    const valueOf = (s) => values.get(s.node)[s.tensorIndex || 0];
    const maskOf = (s) => (masks.has(s.node) ? masks.get(s.node)[s.tensorIndex || 0] : null);
    for (const node of this.nodes) {
      if (values.has(node)) continue;
      const ins = node.inputs.map(valueOf);
      const inMasks = node.inputs.map(maskOf);
      // (predict passes no `training`, as tfjs's.)
      const kwargs = training === undefined ? { ...(node.callArgs || {}) } : { ...(node.callArgs || {}), training };
      if (inMasks.some((m) => m != null)) kwargs.mask = inMasks[0];
      const trains = node.layer.trainableWeights.length > 0 || node.inputs.some((s) => reached.has(s.node));
      if (trains) reached.add(node);
      const untaped = untapeFrozen && !trains;
      if (untaped) native.pauseTape();
      let outs;
      try {
        outs = toList(node.layer.apply(ins, kwargs));
      } finally {
        if (untaped) native.resumeTape(null, [], [], []);
      }
      values.set(node, outs);
      if (node.layer.supportsMasking) {
        const outMask = node.layer.computeMask(ins, inMasks);
        if (outMask != null) masks.set(node, outs.map(() => (Array.isArray(outMask) ? outMask[0] : outMask)));
      }
    }
    return this.outputs.map(valueOf);
  }
}

// ---- compile -------------------------------------------------------------------------------

// A loss or metric that JavaScript runs: a function (the user's), or a built-in one by name
// (crates/layers' losses and metrics, through the binding).
const lossByName = (name) => (yTrue, yPred) => wrapId(native.lossValues(name, yTrue.id, yPred.id));
const metricByName = (name) => (yTrue, yPred) => wrapId(native.metricValues(name, yTrue.id, yPred.id));

// compile's losses and metrics for the JavaScript training step, resolved as tfjs's
// handleMetrics does ('accuracy' after the loss and the output's last dimension).
function compileJS(model, losses, metrics) {
  const n = model.outputs.length;
  if (losses.length !== 1 && losses.length !== n) {
    throw new Error(`When passing an Array as loss, it should have one entry per model output. The model has ${n} output(s), but you passed loss=${losses.length} entries`);
  }
  const lossList = losses.length === 1 ? new Array(n).fill(losses[0]) : losses;
  const lossFns = lossList.map((l) => (typeof l === 'function' ? l : lossByName(checkLossName(l))));
  const outNames = model.outputNames;
  const metricFns = [];
  const names = ['loss'];
  if (n > 1) names.push(...outNames.map((o) => `${o}_loss`));
  lossList.forEach((loss, o) => {
    const shape = model.outputs[o].shape;
    for (const m of metrics) {
      let fn;
      let name;
      if (typeof m === 'function') {
        fn = m;
        name = m.name;
      } else {
        const last = shape[shape.length - 1];
        const [metricName, logName] = native.metricResolve(m, typeof loss === 'string' ? loss : null, last == null ? null : last);
        fn = metricByName(metricName);
        name = logName;
      }
      metricFns.push([o, fn]);
      names.push(n > 1 ? `${outNames[o]}_${name}` : name);
    }
  });
  // tfjs's getDedupedMetricsNames: a repeated name gets its occurrence's index.
  const count = (list, name) => list.filter((x) => x === name).length;
  const deduped = names.map((x, i) => (count(names, x) > 1 ? `${x}_${count(names.slice(0, i), x)}` : x));
  return { lossFns, metricFns, names: deduped };
}

// A loss name, checked now as tfjs-layers' losses.get checks it (resolving a metric for the
// loss reads the native loss table, with its texts).
function checkLossName(name) {
  native.metricResolve('accuracy', name, null);
  return name;
}

// ---- training and evaluation -----------------------------------------------------------------

// The per-output mean losses, their total (tfjs adds the per-sample losses, then takes one
// mean) and the metrics' means, for outputs `outs` and targets `ys` (`weights`: per output,
// per-sample weights or null).
function lossesAndMetrics(c, outs, ys, weights) {
  let total = null;
  const perOutput = [];
  c.lossFns.forEach((fn, i) => {
    let l = fn(ys[i], outs[i]);
    if (!(l instanceof Tensor)) throw new Error(`The loss function ${fn.name || ''} must return a Tensor`);
    if (weights != null && weights[i] != null) l = l.mul(weights[i]);
    perOutput.push(l.mean());
    total = total == null ? l : total.add(l);
  });
  const metrics = c.metricFns.map(([o, fn], k) => (c.lossFns.length > 1 && k < c.lossFns.length
    ? perOutput[k] : fn(ys[o], outs[o]).mean()));
  return { total: total.mean(), perOutput, metrics };
}

// The regularization penalties and added losses of every layer of the model.
function layerLosses(model) {
  const out = [];
  for (const layer of model.layers) {
    if (layer.native != null) {
      const p = layer.native.penalty();
      if (p != null) out.push(wrapId(p));
    } else if (typeof layer.calculateLosses === 'function') {
      out.push(...layer.calculateLosses());
    }
  }
  return out;
}

// One training step on batch `bx`/`by` (per-sample `weights` or null): tfjs's
// totalLossFunction minimized by the optimizer over the trainable weights. Returns the loss
// and the metrics as numbers.
function trainStep(model, c, bx, by, weights) {
  const vars = model.trainableWeights.map((w) => w.read());
  const kept = [];
  let lossValue;
  try {
    lossValue = model.optimizer.minimize(() => {
      const outs = model.forward(bx, true, true);
      const { total, perOutput, metrics } = lossesAndMetrics(c, outs, by, weights);
      for (const t of (c.lossFns.length > 1 ? perOutput : []).concat(metrics)) kept.push(keep(t));
      let loss = total;
      for (const p of layerLosses(model)) loss = loss.add(p);
      return loss;
    }, true, vars); // (no trainable weight: variableGrads's error, as in tfjs)
    return [lossValue, ...kept].map((t) => t.dataSync()[0]);
  } finally {
    dispose(kept);
    if (lossValue != null) lossValue.dispose();
  }
}

// tfjs's evaluate: the loss (without the penalties) and the metrics over every sample.
function evaluateJS(model, c, xs, ys, batchSize) {
  const n = xs[0].shape[0];
  let sums = null;
  for (let start = 0; start < n; start += batchSize) {
    const end = Math.min(n, start + batchSize);
    const values = tidy(() => {
      const bx = xs.map((x) => sliceRows(x, start, end));
      const by = ys.map((y) => sliceRows(y, start, end));
      // (evaluate passes no `training`, as tfjs's.)
      const outs = model.forward(bx, undefined);
      const { total, perOutput, metrics } = lossesAndMetrics(c, outs, by, null);
      return [total, ...(c.lossFns.length > 1 ? perOutput : []), ...metrics].map((t) => t.dataSync()[0]);
    });
    if (sums == null) sums = new Array(values.length).fill(0);
    values.forEach((v, i) => { sums[i] += v * (end - start); });
  }
  return (sums || []).map((s) => s / Math.max(1, n));
}

const sliceRows = (x, start, end) => (start === 0 && end === x.shape[0] ? x
  : x.slice([start, ...x.shape.slice(1).map(() => 0)], [end - start, ...x.shape.slice(1)]));

// predict: the outputs, `batchSize` rows at a time.
function predictJS(model, xs, batchSize) {
  return tidy(() => {
    const n = xs[0].shape[0];
    if (n <= batchSize) return model.forward(xs, undefined);
    const parts = model.outputs.map(() => []);
    for (let start = 0; start < n; start += batchSize) {
      const end = Math.min(n, start + batchSize);
      model.forward(xs.map((x) => sliceRows(x, start, end)), undefined).forEach((y, i) => parts[i].push(y));
    }
    return parts.map((p) => concat(p, 0));
  });
}

module.exports = { Graph, compileJS, trainStep, evaluateJS, predictJS, sliceRows };
