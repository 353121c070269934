'use strict';
// tfjs's einsum_util (in tf.backend_util): the same checks and texts as tf.einsum
// (lib/ops/matmul.js).
const { util } = require('../util');

const { assert } = util;

function decodeEinsumEquation(equation, numTensors) {
  const eq = equation.replace(/\s/g, '');
  const numArrows = eq.split('->').length - 1;
  if (numArrows < 1) throw new Error('Equations without an arrow are not supported.');
  if (numArrows > 1) throw new Error('Equation must contain exactly one arrow ("->").');
  const [inputString, outputString] = eq.split('->');
  assert(inputString.indexOf('...') === -1, () => 'The ellipsis notation ("...") is not supported yet.');
  const terms = inputString.split(',');
  if (numTensors !== terms.length) throw new Error(`Expected ${terms.length} input tensors, received ${numTensors}`);
  if (terms.length > 2) throw new Error('Support for more than 2 input tensors is not implemented yet.');
  // Output labels first, in output order, then the summed labels in input order.
  const allDims = [];
  for (const label of outputString) {
    if (!terms.some((t) => t.indexOf(label) !== -1)) {
      throw new Error(`Output subscripts contain the label ${label} not present in the input subscripts.`);
    }
    if (allDims.indexOf(label) === -1) allDims.push(label);
  }
  for (const label of inputString) if (label !== ',' && allDims.indexOf(label) === -1) allDims.push(label);
  const idDims = terms.map((term) => {
    if (new Set(term.split('')).size !== term.length) {
      throw new Error(`Found duplicate axes in input component ${term}. Support for duplicate axes in input is not implemented yet.`);
    }
    return term.split('').map((label) => allDims.indexOf(label));
  });
  const summedDims = [];
  for (let i = outputString.length; i < allDims.length; ++i) summedDims.push(i);
  return { allDims, summedDims, idDims };
}

// How to lay one input out over all nDims labels: the transpose of its own axes into label
// order, and the label positions it lacks (to expand with size 1).
function getEinsumPermutation(nDims, idDims) {
  const position = new Array(nDims).fill(-1);
  idDims.forEach((dim, i) => { position[dim] = i; });
  const expandDims = [];
  for (let i = 0; i < nDims; ++i) if (position[i] === -1) expandDims.push(i);
  return { permutationIndices: position.filter((d) => d !== -1), expandDims };
}

function checkEinsumDimSizes(nDims, idDims, tensors) {
  const sizes = new Array(nDims);
  tensors.forEach((t, i) => {
    idDims[i].forEach((dim, j) => {
      if (sizes[dim] === undefined) {
        sizes[dim] = t.shape[j];
      } else {
        assert(sizes[dim] === t.shape[j], () => `Expected dimension ${sizes[dim]} at axis ${j} ` +
          `of input shaped ${JSON.stringify(t.shape)}, but got dimension ${t.shape[j]}`);
      }
    });
  });
}

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
