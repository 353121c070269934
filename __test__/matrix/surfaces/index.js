'use strict';
// Hand-built case generators for the surfaces beyond single op calls: model files and weight
// manifests (io.js), graph structure, attributes and control-flow depth (graph.js), image
// headers and corruptions (images.js), tf.data arguments and generators (data.js), the apply() of
// initializers, regularizers and constraints (configs.js). Each module
// exports `cases()`: [{ name, fn, compare, build(tf, foreign, ctx) -> () => result }], built the
// same way (same order) in every child process; `fn` names the function the case exercises.
const MODULES = ['io', 'graph', 'images', 'data', 'configs', 'layer_api'];

function surfaceCases() {
  return MODULES.flatMap((m) => require(`./${m}`).cases());
}

module.exports = { surfaceCases };
