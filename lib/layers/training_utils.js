'use strict';
// fit's arguments as fit (models.js) and fitDataset (training_dataset.js) both take them: class
// weights (tfjs's training_utils) and callbacks.
const cb = require('./callbacks');

// fit's classWeight as the training steps take it: per model output, a weight per class index
// (NaN where a class has none) or null (tfjs's standardizeClassWeights: one map, a list of one
// per output, or a map from output names).
function classWeightsOf(classWeight, outputNames) {
  if (classWeight == null) return null;
  const n = outputNames.length;
  let maps;
  if (n === 1) {
    if (Array.isArray(classWeight) && classWeight.length === 1) maps = classWeight;
    else if (typeof classWeight === 'object' && outputNames[0] in classWeight) maps = [classWeight[outputNames[0]]];
    else maps = [classWeight];
  } else if (Array.isArray(classWeight)) {
    if (classWeight.length !== n) {
      throw new Error(`Provided classWeight is an array of ${classWeight.length} element(s), but the model has ${n} outputs. Make sure a set of weights is provided for each model output.`);
    }
    maps = classWeight;
  } else if (typeof classWeight === 'object' && Object.keys(classWeight).length > 0
    && typeof classWeight[Object.keys(classWeight)[0]] === 'object') {
    maps = outputNames.map((o) => (o in classWeight ? classWeight[o] : null));
  } else {
    throw new Error(`The model has multiple (${n}) outputs, so classWeight must be either an array with ${n} elements or an object with ${outputNames} keys. Provided classWeight not understood: ${JSON.stringify(classWeight)}`);
  }
  return maps.map((cw) => {
    if (cw == null) return null;
    const max = Math.max(...Object.keys(cw).map(Number));
    return Array.from({ length: max + 1 }, (_, i) => (cw[i] == null ? NaN : cw[i]));
  });
}

// tfjs checks classWeight against every label (tfjs's standardizeWeights): the class of a
// one-hot row is its argMax, a single column or a 1-D target holds the class itself.
function checkClassWeight(y, weights) {
  if (y.rank > 2) {
    throw new Error(`Unexpected rank of target (y) tensor (${y.rank}) during handling of class weights. The rank is expected to be 1 or 2.`);
  }
  const v = y.dataSync();
  const cols = y.rank === 2 && y.shape[1] > 1 ? y.shape[1] : 1;
  for (let r = 0; r < v.length / cols; r++) {
    let c = v[r];
    if (cols > 1) {
      c = 0;
      for (let k = 1; k < cols; k++) if (v[r * cols + k] > v[r * cols + c]) c = k;
    }
    if (!Number.isInteger(c) || !(c >= 0 && c < weights.length) || Number.isNaN(weights[c])) {
      throw new Error(`classWeight must contain all classes in the training data. The class ${c} exists in the data but not in classWeight`);
    }
  }
}

// fit's `callbacks`: a callback, a list, or objects of hooks (CustomCallback).
function standardizeCallbacks(callbacks, yieldEvery) {
  if (callbacks == null) return [];
  const list = Array.isArray(callbacks) ? callbacks : [callbacks];
  return list.map((c) => (c instanceof cb.BaseCallback ? c : new cb.CustomCallback(c, yieldEvery)));
}

module.exports = { classWeightsOf, checkClassWeight, standardizeCallbacks };
