'use strict';
// Where model artifacts come from and go to: tfjs's IOHandler contract (`load()` returns
// ModelArtifacts, `save(artifacts)` a SaveResult), the router registry that turns URL strings
// into handlers, and the handlers Node programs need: files (file://, plain paths, a model's
// directory; written as tfjs-node writes them), http(s) through Node's fetch, memory.
const fs = require('node:fs');
const nodePath = require('node:path');
const { CompositeArrayBuffer, DTYPE_VALUE_SIZE_MAP, decodeWeights, getWeightSpecs, sizeFromShape } = require('./weights');

// ---- artifacts <-> model.json --------------------------------------------------------------

const byteLengthOf = (s) => Buffer.byteLength(s, 'utf8');

// tf.io.getModelArtifactsInfoForJSON: the sizes a SaveResult reports.
function getModelArtifactsInfoForJSON(modelArtifacts) {
  if (modelArtifacts.modelTopology instanceof ArrayBuffer) {
    throw new Error('Expected JSON model topology, received ArrayBuffer.');
  }
  return {
    dateSaved: new Date(),
    modelTopologyType: 'JSON',
    modelTopologyBytes: modelArtifacts.modelTopology == null ? 0 : byteLengthOf(JSON.stringify(modelArtifacts.modelTopology)),
    weightSpecsBytes: modelArtifacts.weightSpecs == null ? 0 : byteLengthOf(JSON.stringify(modelArtifacts.weightSpecs)),
    weightDataBytes: modelArtifacts.weightData == null ? 0 : new CompositeArrayBuffer(modelArtifacts.weightData).byteLength,
  };
}

const OPTIONAL_FIELDS = ['signature', 'userDefinedMetadata', 'modelInitializer', 'initializerSignature'];

// The model.json object for artifacts whose weights are described by `manifest`.
function getModelJSONForModelArtifacts(artifacts, manifest) {
  const result = {
    modelTopology: artifacts.modelTopology,
    format: artifacts.format,
    generatedBy: artifacts.generatedBy,
    convertedBy: artifacts.convertedBy,
    weightsManifest: manifest,
  };
  for (const k of [...OPTIONAL_FIELDS, 'trainingConfig']) if (artifacts[k] != null) result[k] = artifacts[k];
  return result;
}

// tf.io.getModelArtifactsForJSONSync: artifacts from a model.json and its loaded weights.
function getModelArtifactsForJSONSync(modelJSON, weightSpecs, weightData) {
  const artifacts = {
    modelTopology: modelJSON.modelTopology,
    format: modelJSON.format,
    generatedBy: modelJSON.generatedBy,
    convertedBy: modelJSON.convertedBy,
  };
  if (modelJSON.trainingConfig != null) artifacts.trainingConfig = modelJSON.trainingConfig;
  if (modelJSON.weightsManifest != null) {
    if (!weightSpecs) throw new Error('modelJSON has weightsManifest but weightSpecs is null');
    if (!weightData) throw new Error('modelJSON has weightsManifest but weightData is null');
    artifacts.weightSpecs = weightSpecs;
    artifacts.weightData = weightData;
  }
  for (const k of OPTIONAL_FIELDS) if (modelJSON[k] != null) artifacts[k] = modelJSON[k];
  return artifacts;
}

// tf.io.getModelArtifactsForJSON: the same, loading the weights with `loadWeights(manifest)`
// (which resolves to [weightSpecs, weightData]).
async function getModelArtifactsForJSON(modelJSON, loadWeights) {
  let weightSpecs;
  let weightData;
  if (modelJSON.weightsManifest != null) [weightSpecs, weightData] = await loadWeights(modelJSON.weightsManifest);
  return getModelArtifactsForJSONSync(modelJSON, weightSpecs, weightData);
}

// ---- routers -------------------------------------------------------------------------------

const routers = { save: [], load: [] };
const registerSaveRouter = (router) => { routers.save.push(router); };
const registerLoadRouter = (router) => { routers.load.push(router); };
const handlersFor = (list, url, options) => list.map((r) => r(url, options)).filter((h) => h != null);
const getSaveHandlers = (url) => handlersFor(routers.save, url);
const getLoadHandlers = (url, loadOptions) => handlersFor(routers.load, url, loadOptions);

// ---- memory --------------------------------------------------------------------------------

const FROM_MEMORY_WARNING = 'Please call tf.io.fromMemory() with only one argument. The argument should be of type ' +
  'ModelArtifacts. The multi-argument signature of tf.io.fromMemory() has been deprecated and will be removed in a ' +
  'future release.';

// The handlers of tf.io.fromMemory / withSaveHandler (tfjs's class names, as programs print
// them): load() returns the given artifacts; save() calls the given function.
class PassthroughLoader {
  constructor(modelArtifacts) {
    this.modelArtifacts = modelArtifacts;
  }

  load() {
    return this.modelArtifacts;
  }
}

class PassthroughSaver {
  constructor(saveHandler) {
    this.saveHandler = saveHandler;
  }

  save(modelArtifacts) {
    return this.saveHandler(modelArtifacts);
  }
}

class PassthroughAsync {
  constructor(handler) {
    if (handler.load) this.load = () => Promise.resolve(handler.load());
    if (handler.save) this.save = (artifacts) => Promise.resolve(handler.save(artifacts));
  }
}

// tf.io.fromMemorySync: a handler whose load() returns the given artifacts.
function fromMemorySync(modelArtifacts, weightSpecs, weightData, trainingConfig) {
  if (arguments.length === 1 && (modelArtifacts.modelTopology != null || modelArtifacts.weightSpecs != null)) {
    return new PassthroughLoader(modelArtifacts);
  }
  console.warn(FROM_MEMORY_WARNING);
  return new PassthroughLoader(arguments.length === 1 ? { modelTopology: modelArtifacts }
    : { modelTopology: modelArtifacts, weightSpecs, weightData, trainingConfig });
}

// tf.io.fromMemory: the same with an asynchronous load().
function fromMemory(...args) {
  return new PassthroughAsync(fromMemorySync(...args));
}

// tf.io.withSaveHandler / withSaveHandlerSync: a handler whose save() calls `saveHandler`.
const withSaveHandler = (saveHandler) => new PassthroughSaver(saveHandler);
const withSaveHandlerSync = (saveHandler) => new PassthroughSaver(saveHandler);

// ---- files ---------------------------------------------------------------------------------

const FILE_SCHEME = 'file://';
const MODEL_JSON_FILENAME = 'model.json';
const WEIGHTS_BINARY_FILENAME = 'weights.bin';

// A file:// URL or a plain path, as an absolute path. What follows file:// is taken
// literally, as tfjs-node does ('file://a#b' is the file 'a#b', not a URL with a fragment).
function filePath(p) {
  return nodePath.resolve(p.startsWith(FILE_SCHEME) ? p.slice(FILE_SCHEME.length) : p);
}

function notFound(what, e) {
  if (e.code === 'ENOENT') return new Error(`${what} ${e.path} does not exist: loading failed`);
  return e;
}

// Model files on the local file system. Loads model.json (a file, or the model.json of a
// directory) and its weight files, relative to it; saves model.json + weights.bin into a
// directory, as tfjs-node's tf.io.fileSystem.
class NodeFileSystem {
  constructor(path, loadOptions = {}) {
    if (Array.isArray(path)) {
      if (path.length !== 2) throw new Error(`file paths must have a length of 2, (actual length is ${path.length}).`);
      this.path = path.map(filePath);
    } else {
      this.path = filePath(path);
    }
    if (loadOptions == null) loadOptions = {};
    this.onProgress = loadOptions.onProgress;
    this.allowedWeightFolders = allowedWeightFoldersOf(loadOptions);
  }

  async save(modelArtifacts) {
    if (Array.isArray(this.path)) throw new Error('Cannot perform saving to multiple paths.');
    await this.createOrVerifyDirectory();
    if (modelArtifacts.modelTopology instanceof ArrayBuffer) {
      throw new Error('NodeFileSystem.save() does not support saving model topology in binary format yet.');
    }
    const manifest = [{ paths: [WEIGHTS_BINARY_FILENAME], weights: modelArtifacts.weightSpecs }];
    const modelJSON = {
      modelTopology: modelArtifacts.modelTopology,
      weightsManifest: manifest,
      format: modelArtifacts.format,
      generatedBy: modelArtifacts.generatedBy,
      convertedBy: modelArtifacts.convertedBy,
    };
    for (const k of ['trainingConfig', 'signature', 'userDefinedMetadata']) {
      if (modelArtifacts[k] != null) modelJSON[k] = modelArtifacts[k];
    }
    await fs.promises.writeFile(nodePath.join(this.path, MODEL_JSON_FILENAME), JSON.stringify(modelJSON), 'utf8');
    const weights = modelArtifacts.weightData == null ? new ArrayBuffer(0) : CompositeArrayBuffer.join(modelArtifacts.weightData);
    await fs.promises.writeFile(nodePath.join(this.path, WEIGHTS_BINARY_FILENAME), Buffer.from(weights));
    return { modelArtifactsInfo: getModelArtifactsInfoForJSON(modelArtifacts) };
  }

  async load() {
    return Array.isArray(this.path) ? this.loadBinaryModel() : this.loadJSONModel();
  }

  async loadJSONModel() {
    let path = this.path;
    let info = await fs.promises.stat(path).catch((e) => { throw notFound('Path', e); });
    if (info.isDirectory()) {
      path = nodePath.join(path, MODEL_JSON_FILENAME);
      info = await fs.promises.stat(path).catch((e) => { throw notFound('Path', e); });
    }
    if (!info.isFile()) throw new Error(`The path to load from must be a file: ${path}`);
    const text = await fs.promises.readFile(path, 'utf8');
    let modelJSON;
    try {
      modelJSON = JSON.parse(text);
    } catch (e) {
      throw new Error(`Failed to parse model JSON ${path}: ${e.message}`, { cause: e });
    }
    if (modelJSON == null || typeof modelJSON !== 'object' || (modelJSON.modelTopology == null && modelJSON.weightsManifest == null)) {
      throw new Error(`The JSON file ${path} contains neither model topology or manifest for weights.`);
    }
    return getModelArtifactsForJSON(modelJSON, (manifest) => this.loadWeights(manifest, path));
  }

  async loadBinaryModel() {
    const [topologyPath, manifestPath] = this.path;
    const topology = await fs.promises.stat(topologyPath).catch((e) => { throw notFound('Topology Path', e); });
    const manifestInfo = await fs.promises.stat(manifestPath).catch((e) => { throw notFound('Weight Manifest Path', e); });
    if (!topology.isFile()) throw new Error('File specified for topology is not a file!');
    if (!manifestInfo.isFile()) throw new Error('File specified for the weight manifest is not a file!');
    const modelTopology = await fs.promises.readFile(topologyPath);
    const manifest = JSON.parse(await fs.promises.readFile(manifestPath, 'utf8'));
    const [weightSpecs, weightData] = await this.loadWeights(manifest, manifestPath);
    return { modelTopology, weightSpecs, weightData };
  }

  // [specs, weight data] of a manifest whose paths are relative to `jsonPath`'s folder: every
  // path is checked (confined to the folder or the allowed ones, a regular file) before any is
  // opened, then each group's files are read for exactly the bytes its weights take.
  async loadWeights(manifest, jsonPath) {
    if (!Array.isArray(manifest)) throw new Error(`weightsManifest of ${jsonPath} must be an array`);
    const folders = await weightFolders(nodePath.dirname(jsonPath), this.allowedWeightFolders);
    const groups = [];
    for (const [g, group] of manifest.entries()) groups.push(await confineGroup(group, g, folders, jsonPath));
    const buffers = [];
    const specs = [];
    const total = groups.reduce((n, files) => n + files.length, 0);
    let done = 0;
    if (this.onProgress) this.onProgress(0);
    for (const [g, group] of manifest.entries()) {
      const read = await readGroup(group, groups[g], () => {
        if (this.onProgress) this.onProgress(++done / total);
      });
      buffers.push(...read);
      specs.push(...group.weights);
    }
    return [specs, buffers.length === 1 ? buffers[0] : buffers];
  }

  async createOrVerifyDirectory() {
    try {
      await fs.promises.mkdir(this.path, { recursive: true });
    } catch (e) {
      if (e.code !== 'EEXIST' && e.code !== 'ENOTDIR') throw e;
    }
    if ((await fs.promises.stat(this.path)).isFile()) {
      throw new Error(`Path ${this.path} exists as a file. The path must be nonexistent or point to a directory.`);
    }
  }
}

// ---- weight files, confined -----------------------------------------------------------------

// A model file names its weight files, so a hostile one could name any file the process can read
// (../../.ssh/id_rsa, /etc/shadow, a symlink to them), /dev/zero or a FIFO (read forever or block),
// or a 50 GB file. So weight files are read only from the model's folder and the folders the
// program allows (loadOptions.allowedWeightFolders), only regular files, and only the bytes the
// manifest's weights take, after checking that the files hold them.

const ALLOW_HINT = 'allow other folders with the load option allowedWeightFolders';

function allowedWeightFoldersOf(loadOptions) {
  const folders = loadOptions.allowedWeightFolders;
  if (folders == null) return [];
  if (!Array.isArray(folders) || !folders.every((f) => typeof f === 'string' && f.length > 0)) {
    throw new Error(`allowedWeightFolders must be an array of folder paths, got ${JSON.stringify(folders)}`);
  }
  return folders.map(filePath);
}

// True when `file` is `folder` or lies below it (both absolute and normalized).
function isInside(file, folder) {
  const rel = nodePath.relative(folder, file);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${nodePath.sep}`) && !nodePath.isAbsolute(rel));
}

// The model's folder and the allowed ones, each as given and as its real path (symlinks
// resolved), the model's first. A folder that does not exist holds no files: a weight file named
// in it is then reported missing.
async function weightFolders(modelDir, allowed) {
  const folders = [];
  for (const dir of [modelDir, ...allowed]) {
    const real = await fs.promises.realpath(dir).catch((e) => {
      if (e.code === 'ENOENT') return dir;
      throw e;
    });
    folders.push({ dir, real });
  }
  return folders;
}

function outsideError(p, jsonPath, folders, resolved) {
  const [model, ...others] = folders;
  const where = others.length === 0 ? `the model's folder ${model.dir}`
    : `the model's folder ${model.dir} and the allowed folders ${others.map((f) => f.dir).join(', ')}`;
  return new Error(`Weight file '${p}' of ${jsonPath}${resolved ? ` resolves to ${resolved}, which is` : ' is'} outside ` +
    `${where}: refused (a model may only read weight files inside its own folder; ${ALLOW_HINT})`);
}

// The real path and size of one weight file named by a manifest, checked without opening it:
// inside an allowed folder by its path and by its real path, and a regular file.
async function confineWeightFile(p, folders, jsonPath) {
  if (typeof p !== 'string' || p.length === 0 || p.includes('\0')) {
    throw new Error(`weightsManifest of ${jsonPath} names a weight file that is not a file name: ${JSON.stringify(p)}`);
  }
  const file = nodePath.resolve(folders[0].dir, p);
  if (!folders.some((f) => isInside(file, f.dir))) throw outsideError(p, jsonPath, folders);
  const real = await fs.promises.realpath(file).catch((e) => { throw notFound('Weight file', e); });
  if (!folders.some((f) => isInside(real, f.real))) throw outsideError(p, jsonPath, folders, real);
  const info = await fs.promises.stat(real);
  if (!info.isFile()) throw new Error(`Weight file '${p}' of ${jsonPath} (${real}) is not a regular file: refused`);
  return { p, file: real, info };
}

// The checked files of weightsManifest[g].
async function confineGroup(group, g, folders, jsonPath) {
  if (group == null || !Array.isArray(group.paths) || !Array.isArray(group.weights)) {
    throw new Error(`weightsManifest[${g}] of ${jsonPath} must have an array of paths and an array of weights`);
  }
  const files = [];
  for (const p of group.paths) files.push(await confineWeightFile(p, folders, jsonPath));
  return files;
}

const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK || 0) | (fs.constants.O_NOFOLLOW || 0);

// Opens a checked file; refuses it if it was replaced since (another file, not a regular one).
async function openChecked({ p, file, info }) {
  const handle = await fs.promises.open(file, OPEN_FLAGS);
  const now = await handle.stat().catch(async (e) => { await handle.close(); throw e; });
  if (!now.isFile() || now.ino !== info.ino || now.dev !== info.dev) {
    await handle.close();
    throw new Error(`Weight file '${p}' (${file}) changed while it was checked: refused`);
  }
  return { handle, size: now.size };
}

// Reads of a group's files as one byte sequence (a window cached, for strings' length prefixes).
class GroupReader {
  constructor(opened) {
    this.opened = opened;
    this.byteLength = opened.reduce((n, f) => n + f.size, 0);
    this.cache = { start: 0, bytes: Buffer.alloc(0) };
  }

  // `length` bytes from `offset` (the caller keeps them within byteLength).
  async read(offset, length) {
    const c = this.cache;
    if (offset >= c.start && offset + length <= c.start + c.bytes.length) return c.bytes.subarray(offset - c.start, offset - c.start + length);
    const n = Math.min(Math.max(length, 1 << 16), this.byteLength - offset);
    const out = Buffer.alloc(n);
    let done = 0;
    let fileStart = 0;
    for (const { handle, size } of this.opened) {
      const at = offset + done - fileStart;
      if (done < n && at < size) {
        const want = Math.min(n - done, size - at);
        const { bytesRead } = await handle.read(out, done, want, at);
        if (bytesRead !== want) throw new Error('A weight file shrank while it was read');
        done += want;
      }
      fileStart += size;
    }
    this.cache = { start: offset, bytes: out };
    return out.subarray(0, length);
  }
}

function truncatedError(spec, from, to, group, bytes) {
  return new Error(`Weight data is truncated: weight '${spec.name}' needs bytes ${from}..${to} but the ` +
    `files ${JSON.stringify(group.paths)} hold ${bytes} bytes`);
}

// The bytes a group's weights take, computed as tfjs's weight loader does (values by dtype or
// quantization dtype; a string as a uint32 length and its bytes). Counting stops at a weight
// whose size is not a count of bytes (unknown dtype, bad shape): decoding refuses that one.
async function groupByteLength(group, reader) {
  let need = 0;
  for (const spec of group.weights) {
    if (spec == null || typeof spec !== 'object' || spec.shape == null) break;
    const size = sizeFromShape(spec.shape);
    let n;
    if ('quantization' in spec) {
      if (spec.quantization == null) break;
      n = size * DTYPE_VALUE_SIZE_MAP[spec.quantization.dtype];
    } else if (spec.dtype === 'string') {
      if (!Number.isSafeInteger(size) || size < 0) break;
      n = 0;
      for (let i = 0; i < size; i++) {
        if (need + n + 4 > reader.byteLength) throw truncatedError(spec, need, need + n + 4, group, reader.byteLength);
        n += 4 + (await reader.read(need + n, 4)).readUInt32LE(0);
        if (need + n > reader.byteLength) throw truncatedError(spec, need, need + n, group, reader.byteLength);
      }
    } else {
      n = size * DTYPE_VALUE_SIZE_MAP[spec.dtype];
    }
    if (!Number.isSafeInteger(n) || n < 0) break;
    if (need + n > reader.byteLength) throw truncatedError(spec, need, need + n, group, reader.byteLength);
    need += n;
  }
  return need;
}

// One ArrayBuffer per file of a checked group, holding the file's part of the bytes the group's
// weights take (bytes past them are never read). `onFile` is called after each file.
async function readGroup(group, files, onFile = () => {}) {
  const opened = [];
  try {
    for (const f of files) opened.push(await openChecked(f));
    const reader = new GroupReader(opened);
    let left = await groupByteLength(group, reader);
    const out = [];
    for (const { handle, size } of opened) {
      const bytes = new Uint8Array(Math.min(size, left));
      const { bytesRead } = bytes.length > 0 ? await handle.read(bytes, 0, bytes.length, 0) : { bytesRead: 0 };
      if (bytesRead !== bytes.length) throw new Error('A weight file shrank while it was read');
      left -= bytes.length;
      out.push(bytes.buffer);
      onFile();
    }
    return out;
  } finally {
    await Promise.all(opened.map(({ handle }) => handle.close()));
  }
}

const fileSystem = (path, loadOptions) => new NodeFileSystem(path, loadOptions);
const nodeFileSystemRouter = (url, loadOptions) => {
  if (Array.isArray(url)) {
    return url.every((u) => typeof u === 'string' && u.startsWith(FILE_SCHEME)) ? new NodeFileSystem(url, loadOptions) : null;
  }
  return typeof url === 'string' && url.startsWith(FILE_SCHEME) ? new NodeFileSystem(url, loadOptions) : null;
};

// ---- http ----------------------------------------------------------------------------------

const HTTP_SCHEME = /^https?:\/\//;
const isHTTPScheme = (url) => url.match(HTTP_SCHEME) != null;

function parseUrl(url) {
  const lastSlash = url.lastIndexOf('/');
  const lastSearchParam = url.lastIndexOf('?');
  const suffix = lastSearchParam > lastSlash ? url.substring(lastSearchParam) : '';
  return [`${url.substring(0, lastSlash)}/`, suffix];
}

// tf.io.http: model.json and weights over HTTP with fetch (Node's own, or loadOptions.fetchFunc);
// save() POSTs model.json and model.weights.bin as multipart form data, as tfjs.
class HTTPRequest {
  constructor(path, loadOptions = {}) {
    this.weightPathPrefix = loadOptions.weightPathPrefix;
    this.weightUrlConverter = loadOptions.weightUrlConverter;
    if (loadOptions.fetchFunc != null && typeof loadOptions.fetchFunc !== 'function') {
      throw new Error('Must pass a function that matches the signature of `fetch` (see ' +
        'https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API)');
    }
    this.fetch = loadOptions.fetchFunc || ((...a) => fetch(...a));
    if (path == null || !(path.length > 0)) throw new Error('URL path for http must not be null, undefined or empty.');
    if (Array.isArray(path) && path.length !== 2) {
      throw new Error(`URL paths for http must have a length of 2, (actual length is ${path.length}).`);
    }
    this.path = path;
    if (loadOptions.requestInit != null && loadOptions.requestInit.body != null) {
      throw new Error('requestInit is expected to have no pre-existing body, but has one.');
    }
    this.requestInit = loadOptions.requestInit || {};
    this.loadOptions = loadOptions;
  }

  async save(modelArtifacts) {
    if (modelArtifacts.modelTopology instanceof ArrayBuffer) {
      throw new Error('BrowserHTTPRequest.save() does not support saving model topology in binary formats yet.');
    }
    const init = { method: 'POST', ...this.requestInit, body: new FormData() };
    const manifest = [{ paths: ['./model.weights.bin'], weights: modelArtifacts.weightSpecs }];
    const modelJSON = getModelJSONForModelArtifacts(modelArtifacts, manifest);
    init.body.append('model.json', new Blob([JSON.stringify(modelJSON)], { type: 'application/json' }), 'model.json');
    if (modelArtifacts.weightData != null) {
      const weights = CompositeArrayBuffer.join(modelArtifacts.weightData);
      init.body.append('model.weights.bin', new Blob([weights], { type: 'application/octet-stream' }), 'model.weights.bin');
    }
    const response = await this.fetch(this.path, init);
    if (!response.ok) throw new Error(`BrowserHTTPRequest.save() failed due to HTTP response status ${response.status}.`);
    return { modelArtifactsInfo: getModelArtifactsInfoForJSON(modelArtifacts), responses: [response] };
  }

  async load() {
    const response = await this.fetch(this.path, this.requestInit);
    if (!response.ok) {
      throw new Error(`Request to ${this.path} failed with status code ${response.status}. Please verify this URL ` +
        'points to the model JSON of the model to load.');
    }
    let modelJSON;
    try {
      modelJSON = await response.json();
    } catch (e) {
      throw new Error(`Failed to parse model JSON of response from ${this.path}. Please make sure the server is ` +
        'serving valid JSON for this request.', { cause: e });
    }
    if (modelJSON.modelTopology == null && modelJSON.weightsManifest == null) {
      throw new Error(`The JSON from HTTP path ${this.path} contains neither model topology or manifest for weights.`);
    }
    return getModelArtifactsForJSON(modelJSON, (manifest) => this.loadWeights(manifest));
  }

  async loadWeights(manifest) {
    const weightPath = Array.isArray(this.path) ? this.path[1] : this.path;
    const [prefix, suffix] = parseUrl(weightPath);
    const pathPrefix = this.weightPathPrefix || prefix;
    const urls = [];
    for (const group of manifest) {
      for (const p of group.paths) {
        urls.push(this.weightUrlConverter != null ? await this.weightUrlConverter(p) : pathPrefix + p + suffix);
      }
    }
    const buffers = await fetchAll(urls, this.fetch, this.loadOptions);
    return [getWeightSpecs(manifest), buffers];
  }
}

// The bodies of `urls` as ArrayBuffers, reporting progress as tfjs does (fetches to 0.5,
// bodies to 1).
async function fetchAll(urls, fetchFunc, loadOptions = {}) {
  const progress = loadOptions.onProgress;
  let done = 0;
  const tick = (from, to) => (x) => {
    done++;
    if (progress) progress(from + ((to - from) * done) / urls.length);
    return x;
  };
  if (progress) progress(0);
  const step1 = tick(0, 0.5);
  const responses = await Promise.all(urls.map(async (u) => {
    const r = await fetchFunc(u, loadOptions.requestInit, { isBinary: true });
    // A weight file that failed (404 ...) must not be read as weights.
    if (r.ok === false) throw new Error(`Request to ${u} failed with status code ${r.status}: cannot load its weights`);
    return step1(r);
  }));
  done = 0;
  const step2 = tick(0.5, 1);
  return Promise.all(responses.map((r) => r.arrayBuffer().then(step2)));
}

const http = (path, loadOptions) => new HTTPRequest(path, loadOptions);
const browserHTTPRequest = http;
const httpRouter = (url, loadOptions) => {
  const isHTTP = Array.isArray(url) ? url.every((u) => isHTTPScheme(u)) : isHTTPScheme(url);
  return isHTTP ? http(url, loadOptions) : null;
};

registerSaveRouter(httpRouter);
registerLoadRouter(httpRouter);
registerSaveRouter(nodeFileSystemRouter);
registerLoadRouter(nodeFileSystemRouter);

// The one handler for a URL string: a registered router's, else (no scheme) the file system.
function handlerFor(url, kind, loadOptions) {
  const handlers = kind === 'load' ? getLoadHandlers(url, loadOptions) : getSaveHandlers(url);
  if (handlers.length > 1) {
    throw new Error(`Found more than one (${handlers.length}) ${kind} handlers for URL '${url}'`);
  }
  if (handlers.length === 1) return handlers[0];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new Error(kind === 'load' ? `Cannot find any load handlers for URL '${url}'` : `Cannot find any save handlers for URL '${url}'`);
  }
  return new NodeFileSystem(url, loadOptions);
}

// ---- weights by manifest -------------------------------------------------------------------

// tf.io.weightsLoaderFactory: a loader of (manifest, prefix, names) -> name -> tensor that
// reads the groups it needs with `fetchWeights(urls)` (-> ArrayBuffers).
function weightsLoaderFactory(fetchWeights) {
  return async (manifest, filePathPrefix = '', weightNames) => {
    const wanted = manifest.map(() => []);
    const found = weightNames != null ? weightNames.map(() => false) : [];
    const allNames = [];
    manifest.forEach((group, g) => {
      let offset = 0;
      for (const entry of group.weights) {
        const dtype = 'quantization' in entry ? entry.quantization.dtype : entry.dtype;
        const bytes = DTYPE_VALUE_SIZE_MAP[dtype] * sizeFromShape(entry.shape);
        let take = weightNames == null;
        if (weightNames != null) {
          weightNames.forEach((n, i) => {
            if (n === entry.name) {
              take = true;
              found[i] = true;
            }
          });
        }
        if (take) wanted[g].push({ entry, offset, bytes });
        allNames.push(entry.name);
        offset += bytes;
      }
    });
    if (!found.every((f) => f)) {
      const missing = weightNames.filter((_, i) => !found[i]);
      throw new Error(`Could not find weights in manifest with names: ${missing.join(', ')}. \n` +
        `Manifest JSON has weights with names: ${allNames.join(', ')}.`);
    }
    const groups = wanted.map((w, g) => (w.length > 0 ? g : -1)).filter((g) => g >= 0);
    const urls = [];
    for (const g of groups) {
      for (const p of manifest[g].paths) urls.push(filePathPrefix + (!filePathPrefix.endsWith('/') ? '/' : '') + p);
    }
    const buffers = await fetchWeights(urls);
    const out = {};
    let at = 0;
    try {
      for (const g of groups) {
        const n = manifest[g].paths.length;
        const data = new CompositeArrayBuffer(buffers.slice(at, at + n));
        at += n;
        for (const { entry, offset, bytes } of wanted[g]) {
          const t = decodeWeights(data.slice(offset, offset + bytes), [entry])[entry.name];
          if (out[entry.name] != null) out[entry.name].dispose();
          out[entry.name] = t;
        }
      }
    } catch (e) {
      for (const t of Object.values(out)) t.dispose();
      throw e;
    }
    return out;
  };
}

// tf.io.loadWeights: weights of a manifest whose files are under `filePathPrefix` (a URL or,
// in Node, a folder / file:// URL; the files are confined to it, as a model's to its folder).
function loadWeights(manifest, filePathPrefix = '', weightNames, requestInit) {
  const fetchWeights = async (urls) => {
    if (urls.every((u) => isHTTPScheme(u))) return fetchAll(urls, (...a) => fetch(...a), { requestInit });
    // The factory asks for whole groups, by URL: read each group once, confined to the prefix.
    const where = filePath(filePathPrefix);
    const folders = await weightFolders(where, []);
    const urlOf = (p) => filePathPrefix + (!filePathPrefix.endsWith('/') ? '/' : '') + p;
    const wanted = [];
    for (const [g, group] of manifest.entries()) {
      if (!group.paths.some((p) => urls.includes(urlOf(p)))) continue;
      wanted.push([group, await confineGroup(group, g, folders, `the manifest given to tf.io.loadWeights (${where})`)]);
    }
    const byUrl = new Map();
    for (const [group, files] of wanted) {
      const read = await readGroup(group, files);
      group.paths.forEach((p, i) => byUrl.set(urlOf(p), read[i]));
    }
    return urls.map((u) => byUrl.get(u));
  };
  return weightsLoaderFactory(fetchWeights)(manifest, filePathPrefix, weightNames);
}

// ---- browser-only handlers ------------------------------------------------------------------

// tf.io.browserFiles reads File objects from an <input> element: Node has no FileReader.
class BrowserFiles {
  constructor(files) {
    if (files == null || files.length < 1) {
      throw new Error(`When calling browserFiles, at least 1 file is required, but received ${files}`);
    }
    if (!Array.isArray(files)) throw new Error(`tf.io.browserFiles() takes an array of File objects, got ${typeof files}`);
    this.jsonFile = files[0];
    this.weightsFiles = files.slice(1);
  }

  async load() {
    throw new Error('tf.io.browserFiles() reads browser File objects and is not available in Node; ' +
      "load model files with tf.loadLayersModel('file://path/to/model.json') instead");
  }
}

const browserFiles = (files) => new BrowserFiles(files);

// ---- model management ----------------------------------------------------------------------

const managers = {};

function parseURL(url) {
  if (url.indexOf('://') === -1) {
    throw new Error(`The url string provided does not contain a scheme. Supported schemes are: ${Object.keys(managers).join(',')}`);
  }
  return { scheme: url.split('://')[0], path: url.split('://')[1] };
}

function managerOf(scheme) {
  const m = managers[scheme];
  if (m == null) throw new Error(`Cannot find model manager for scheme '${scheme}'`);
  return m;
}

// Copies (and for move, deletes) a model between two URLs through their handlers.
async function cloneModel(sourceURL, destURL, deleteSource) {
  if (sourceURL === destURL) throw new Error(`Old path and new path are the same: '${sourceURL}'`);
  const loads = getLoadHandlers(sourceURL);
  if (loads.length === 0) throw new Error(`Copying failed because no load handler is found for source URL ${sourceURL}.`);
  if (loads.length > 1) {
    throw new Error(`Copying failed because more than one (${loads.length}) load handlers for source URL ${sourceURL}.`);
  }
  const saves = getSaveHandlers(destURL);
  if (saves.length === 0) throw new Error(`Copying failed because no save handler is found for destination URL ${destURL}.`);
  if (saves.length > 1) {
    throw new Error(`Copying failed because more than one (${loads.length}) save handlers for destination URL ${destURL}.`);
  }
  const source = parseURL(sourceURL);
  const sameMedium = source.scheme === parseURL(destURL).scheme;
  const artifacts = await loads[0].load();
  if (deleteSource && sameMedium) await managerOf(source.scheme).removeModel(source.path);
  const result = await saves[0].save(artifacts);
  if (deleteSource && !sameMedium) await managerOf(source.scheme).removeModel(source.path);
  return result.modelArtifactsInfo;
}

// tf.io.listModels / removeModel / copyModel / moveModel over registered model store managers
// (browsers register localStorage and IndexedDB; Node has none unless a program adds one).
async function listModels() {
  const out = {};
  for (const scheme of Object.keys(managers)) {
    const list = await managers[scheme].listModels();
    for (const path of Object.keys(list)) out[scheme + '://' + path] = list[path];
  }
  return out;
}

async function removeModel(url) {
  const { scheme, path } = parseURL(url);
  return managerOf(scheme).removeModel(path);
}

const copyModel = (sourceURL, destURL) => cloneModel(sourceURL, destURL, false);
const moveModel = (sourceURL, destURL) => cloneModel(sourceURL, destURL, true);

module.exports = {
  getModelArtifactsInfoForJSON, getModelJSONForModelArtifacts, getModelArtifactsForJSON, getModelArtifactsForJSONSync,
  registerSaveRouter, registerLoadRouter, getSaveHandlers, getLoadHandlers, handlerFor, fromMemory, fromMemorySync,
  withSaveHandler, withSaveHandlerSync, fileSystem, NodeFileSystem, nodeFileSystemRouter, http, browserHTTPRequest,
  isHTTPScheme, weightsLoaderFactory, loadWeights, browserFiles, listModels, removeModel, copyModel, moveModel,
};
