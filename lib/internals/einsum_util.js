'use strict';
// tfjs's einsum_util (in tf.backend_util): the core's einsum spec and checks, as tf.einsum
// runs them; the compute path (which tf.einsum's composition does not take) is tfjs's.
const native = require('../native');

// The equation's labels (the output's first), the summed ones and each input's: the core's
// decoding (crates/core/src/ops/matmul.rs), the one tf.einsum runs.
const decodeEinsumEquation = (equation, numTensors) => native.decodeEinsumEquation(String(equation), numTensors);

// How to lay one input out over all nDims labels: the transpose of its own axes into label
// order, and the label positions it lacks (to expand with size 1).
const getEinsumPermutation = (nDims, idDims) => native.getEinsumPermutation(nDims, Array.from(idDims));

// Every label names one size in every input that has it.
const checkEinsumDimSizes = (nDims, idDims, tensors) =>
  native.checkEinsumDimSizes(nDims, idDims.map((ids) => Array.from(ids)), tensors.map((t) => Array.from(t.shape)));

// The order to sum the labels in, and which inputs join the product at each step. As tfjs,
// the returned path is summedDims itself (with -1 pushed onto it when nothing is summed).
function getEinsumComputePath(summedDims, idDims) {
  const path = summedDims;
  if (summedDims.length === 0) path.push(-1);
  const steps = Array.from({ length: summedDims.length + 1 }, () => []);
  const used = [];
  path.forEach((dim, i) => {
    idDims.forEach((ids, term) => {
      const involved = ids.length === 0 || ids.indexOf(dim) !== -1 || dim === -1;
      if (involved && used.indexOf(term) === -1) {
        steps[i].push(term);
        used.push(term);
      }
    });
  });
  return { path, steps };
}

const isIdentityPermutation = (perm) => perm.every((dim, i) => dim === i);

module.exports = {
  checkEinsumDimSizes, decodeEinsumEquation, getEinsumComputePath, getEinsumPermutation,
  isIdentityPermutation,
};
