'use strict';
// tf.io: model artifacts, their handlers and routers, and the weight format (see handlers.js
// and weights.js).
const h = require('./handlers');
const w = require('./weights');

const io = {
  browserFiles: h.browserFiles,
  browserHTTPRequest: h.browserHTTPRequest,
  CompositeArrayBuffer: w.CompositeArrayBuffer,
  concatenateArrayBuffers: w.concatenateArrayBuffers,
  copyModel: h.copyModel,
  decodeWeights: w.decodeWeights,
  decodeWeightsStream: w.decodeWeightsStream,
  encodeWeights: w.encodeWeights,
  fileSystem: h.fileSystem,
  fromMemory: h.fromMemory,
  fromMemorySync: h.fromMemorySync,
  getLoadHandlers: h.getLoadHandlers,
  getModelArtifactsForJSON: h.getModelArtifactsForJSON,
  getModelArtifactsForJSONSync: h.getModelArtifactsForJSONSync,
  getModelArtifactsInfoForJSON: h.getModelArtifactsInfoForJSON,
  getSaveHandlers: h.getSaveHandlers,
  getWeightSpecs: w.getWeightSpecs,
  http: h.http,
  isHTTPScheme: h.isHTTPScheme,
  listModels: h.listModels,
  loadWeights: h.loadWeights,
  moveModel: h.moveModel,
  registerLoadRouter: h.registerLoadRouter,
  registerSaveRouter: h.registerSaveRouter,
  removeModel: h.removeModel,
  weightsLoaderFactory: h.weightsLoaderFactory,
  withSaveHandler: h.withSaveHandler,
  withSaveHandlerSync: h.withSaveHandlerSync,
};

module.exports = { io };
