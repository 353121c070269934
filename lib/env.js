'use strict';
// tf.env(): tfjs 4.22's Environment (flags with lazy evaluation, set hooks, `?tfjsflags=` URL
// overrides) and the flags the @tensorflow/tfjs bundle registers, with their values under Node.
// Programs read and set these flags; tidytensor's engine does not consult them.
const util = require('util');

// Expects flags from URL in the format ?tfjsflags=FLAG1:1,FLAG2:true.
const TENSORFLOWJS_FLAGS_PREFIX = 'tfjsflags';

function isPromise(object) {
  return object && object.then && typeof object.then === 'function';
}

function getQueryParams(queryString) {
  const params = {};
  queryString.replace(/[?&]([^=?&]+)(?:=([^&]*))?/g, (s, ...t) => {
    params[decodeURIComponent(t[0])] = decodeURIComponent(t[1] || '');
    return t.join('=');
  });
  return params;
}

function parseValue(flagName, value) {
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  if (`${+lower}` === lower) return +lower;
  return value;
}

let ENV = null;

function env() {
  return ENV;
}

class Environment {
  constructor(global) {
    this.global = global;
    this.flags = {};
    this.flagRegistry = {};
    this.urlFlags = {};
    // An own property as in tfjs, whose tests replace it on the instance.
    this.getQueryParams = getQueryParams;
    this.populateURLFlags();
  }

  setPlatform(platformName, platform) {
    if (this.platform != null) {
      if (!(env().getBool('IS_TEST') || env().getBool('PROD'))) {
        console.warn(`Platform ${this.platformName} has already been set. ` +
          `Overwriting the platform with ${platformName}.`);
      }
    }
    this.platformName = platformName;
    this.platform = platform;
  }

  registerFlag(flagName, evaluationFn, setHook) {
    this.flagRegistry[flagName] = { evaluationFn, setHook };
    // The environment exists before flags are registered, so URL overrides apply here.
    if (this.urlFlags[flagName] != null) {
      const flagValue = this.urlFlags[flagName];
      if (!(env().getBool('IS_TEST') || env().getBool('PROD'))) {
        console.warn(`Setting feature override from URL ${flagName}: ${flagValue}.`);
      }
      this.set(flagName, flagValue);
    }
  }

  async getAsync(flagName) {
    if (flagName in this.flags) return this.flags[flagName];
    this.flags[flagName] = await this.evaluateFlag(flagName);
    return this.flags[flagName];
  }

  get(flagName) {
    if (flagName in this.flags) return this.flags[flagName];
    const flagValue = this.evaluateFlag(flagName);
    if (isPromise(flagValue)) {
      throw new Error(`Flag ${flagName} cannot be synchronously evaluated. ` +
        'Please use getAsync() instead.');
    }
    this.flags[flagName] = flagValue;
    return this.flags[flagName];
  }

  getNumber(flagName) { return this.get(flagName); }

  getBool(flagName) { return this.get(flagName); }

  getString(flagName) { return this.get(flagName); }

  getFlags() { return this.flags; }

  // For backwards compatibility (tfjs keeps it).
  get features() { return this.flags; }

  set(flagName, value) {
    if (this.flagRegistry[flagName] == null) {
      throw new Error(`Cannot set flag ${flagName} as it has not been registered.`);
    }
    this.flags[flagName] = value;
    if (this.flagRegistry[flagName].setHook != null) {
      this.flagRegistry[flagName].setHook(value);
    }
  }

  evaluateFlag(flagName) {
    if (this.flagRegistry[flagName] == null) {
      throw new Error(`Cannot evaluate flag '${flagName}': no evaluation function found.`);
    }
    return this.flagRegistry[flagName].evaluationFn();
  }

  // Replaces the evaluated values (a copy); hooks do not run, as in tfjs.
  setFlags(flags) {
    this.flags = Object.assign({}, flags);
  }

  reset() {
    this.flags = {};
    this.urlFlags = {};
    this.populateURLFlags();
  }

  populateURLFlags() {
    if (typeof this.global === 'undefined' || typeof this.global.location === 'undefined' ||
        typeof this.global.location.search === 'undefined') {
      return;
    }
    const urlParams = this.getQueryParams(this.global.location.search);
    if (TENSORFLOWJS_FLAGS_PREFIX in urlParams) {
      const keyValues = urlParams[TENSORFLOWJS_FLAGS_PREFIX].split(',');
      keyValues.forEach((keyValue) => {
        const [key, value] = keyValue.split(':');
        this.urlFlags[key] = parseValue(key, value);
      });
    }
  }
}

// tfjs-core's PlatformNode: what tf.env().platform offers under Node.
class PlatformNode {
  constructor() {
    this.util = util;
    this.textEncoder = new util.TextEncoder();
  }

  fetch(path, requestInits) {
    // Node >= 18 has fetch (tfjs falls back to the node-fetch package on older Nodes).
    return env().global.fetch(path, requestInits);
  }

  now() {
    const time = process.hrtime();
    return time[0] * 1000 + time[1] / 1000000;
  }

  encode(text, encoding) {
    if (encoding !== 'utf-8' && encoding !== 'utf8') {
      throw new Error(`Node built-in encoder only supports utf-8, but got ${encoding}`);
    }
    return this.textEncoder.encode(text);
  }

  decode(bytes, encoding) {
    if (bytes.length === 0) return '';
    return new util.TextDecoder(encoding).decode(bytes);
  }

  isTypedArray(a) {
    return util.types.isFloat32Array(a) || util.types.isInt32Array(a) ||
      util.types.isUint8Array(a) || util.types.isUint8ClampedArray(a);
  }
}

// Throws as a WebGL flag's evaluation does where there is no WebGL (tfjs also logs the
// canvas error first).
function noWebGL() {
  throw new Error('Cannot get WebGL rendering context, WebGL is disabled.');
}

function thresholdHook(name, meaning) {
  return (threshold) => {
    if (!(typeof threshold === 'number')) {
      throw new Error(`${name} must be a number but got ${threshold}.`);
    }
    if (threshold < 0 && threshold !== -1) {
      throw new Error(`${name} must be -1 (indicating ${meaning}) or at least 0, ` +
        `but got ${threshold}.`);
    }
  };
}

// The flags of the @tensorflow/tfjs 4.22 bundle, in its registration order: tfjs-core's
// flags.ts, tfjs-layers, tfjs-converter, then tfjs-backend-webgl's flags_webgl.ts. The
// browser and WebGL ones evaluate as they do under Node (no navigator, no WebGL context).
function registerTfjsFlags(E) {
  const isBrowser = () => (globalThis.window !== undefined && globalThis.window.document != null) ||
    (typeof WorkerGlobalScope !== 'undefined');
  const nav = () => typeof navigator !== 'undefined' && navigator != null &&
    navigator.userAgent != null;
  E.registerFlag('DEBUG', () => false, (debugValue) => {
    if (debugValue) {
      console.warn('Debugging mode is ON. The output of every math call will ' +
        'be downloaded to CPU and checked for NaNs. ' +
        'This significantly impacts performance.');
    }
    // Each kernel's outputs checked and its profile logged (lib/memory/debug.js).
    runFlagHandler('DEBUG', debugValue);
  });
  E.registerFlag('IS_BROWSER', isBrowser);
  E.registerFlag('IS_NODE', () => (typeof process !== 'undefined') &&
    (typeof process.versions !== 'undefined') &&
    (typeof process.versions.node !== 'undefined'));
  E.registerFlag('IS_CHROME', () => nav() && /Chrome/.test(navigator.userAgent) &&
    /Google Inc/.test(navigator.vendor));
  E.registerFlag('IS_SAFARI', () => nav() && /Safari/.test(navigator.userAgent) &&
    /Apple/.test(navigator.vendor));
  E.registerFlag('PROD', () => false);
  E.registerFlag('TENSORLIKE_CHECK_SHAPE_CONSISTENCY', () => E.getBool('DEBUG'));
  E.registerFlag('DEPRECATION_WARNINGS_ENABLED', () => true);
  E.registerFlag('IS_TEST', () => false);
  E.registerFlag('CHECK_COMPUTATION_FOR_ERRORS', () => E.getBool('DEBUG'));
  E.registerFlag('WRAP_TO_IMAGEBITMAP', () => false);
  E.registerFlag('CANVAS2D_WILL_READ_FREQUENTLY_FOR_GPU', () => false);
  E.registerFlag('USE_SETTIMEOUTCUSTOM', () => false);
  // tfjs-layers: its hook resizes the layers' caches; there are none here.
  E.registerFlag('TOPOLOGICAL_SORT_CACHE_MAX_ENTRIES', () => 100, () => {});
  // tfjs-converter
  E.registerFlag('KEEP_INTERMEDIATE_TENSORS', () => false, (debugValue) => {
    if (debugValue) {
      console.warn('Keep intermediate tensors is ON. This will print the values of all ' +
        'intermediate tensors during model inference. Not all models ' +
        'support this mode. For details, check e2e/benchmarks/ ' +
        'model_config.js. This significantly impacts performance.');
    }
  });
  // tfjs-backend-webgl
  const pack = () => E.getBool('WEBGL_PACK');
  E.registerFlag('HAS_WEBGL', () => E.getNumber('WEBGL_VERSION') > 0);
  E.registerFlag('WEBGL_VERSION', () => 0);
  E.registerFlag('WEBGL_CHECK_NUMERICAL_PROBLEMS', () => false);
  E.registerFlag('WEBGL_BUFFER_SUPPORTED', () => E.get('WEBGL_VERSION') === 2);
  E.registerFlag('WEBGL_CPU_FORWARD', () => true);
  E.registerFlag('WEBGL_FORCE_F16_TEXTURES', () => false);
  E.registerFlag('WEBGL_PACK', () => E.getBool('HAS_WEBGL'));
  for (const name of ['NORMALIZATION', 'CLIP', 'DEPTHWISECONV', 'BINARY_OPERATIONS',
    'UNARY_OPERATIONS', 'ARRAY_OPERATIONS', 'IMAGE_OPERATIONS', 'REDUCE']) {
    E.registerFlag(`WEBGL_PACK_${name}`, pack);
  }
  E.registerFlag('WEBGL_LAZILY_UNPACK', pack);
  E.registerFlag('WEBGL_CONV_IM2COL', pack);
  E.registerFlag('WEBGL_PACK_CONV2DTRANSPOSE', pack);
  E.registerFlag('WEBGL_MAX_TEXTURE_SIZE', noWebGL);
  E.registerFlag('WEBGL_MAX_TEXTURES_IN_SHADER', noWebGL);
  E.registerFlag('WEBGL_DISJOINT_QUERY_TIMER_EXTENSION_VERSION', () => 0);
  E.registerFlag('WEBGL_DISJOINT_QUERY_TIMER_EXTENSION_RELIABLE',
    () => E.getNumber('WEBGL_DISJOINT_QUERY_TIMER_EXTENSION_VERSION') > 0);
  E.registerFlag('WEBGL_RENDER_FLOAT32_CAPABLE', () => false);
  E.registerFlag('WEBGL_RENDER_FLOAT32_ENABLED', () =>
    (E.getBool('WEBGL_FORCE_F16_TEXTURES') ? false : E.getBool('WEBGL_RENDER_FLOAT32_CAPABLE')));
  E.registerFlag('WEBGL_DOWNLOAD_FLOAT_ENABLED', () => false);
  E.registerFlag('WEBGL_FENCE_API_ENABLED', () => false);
  E.registerFlag('WEBGL_SIZE_UPLOAD_UNIFORM',
    () => (E.getBool('WEBGL_RENDER_FLOAT32_ENABLED') ? 4 : 0));
  E.registerFlag('WEBGL_DELETE_TEXTURE_THRESHOLD', () => -1,
    thresholdHook('WEBGL_DELETE_TEXTURE_THRESHOLD', 'never delete'));
  E.registerFlag('WEBGL_FLUSH_THRESHOLD', () => -1,
    thresholdHook('WEBGL_FLUSH_THRESHOLD', 'never manual flush'));
  E.registerFlag('CPU_HANDOFF_SIZE_THRESHOLD', () => 128);
  E.registerFlag('WEBGL_USE_SHAPES_UNIFORMS', () => false);
  E.registerFlag('TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD', () => 100000);
  E.registerFlag('TOPK_K_CPU_HANDOFF_THRESHOLD', () => 128);
  E.registerFlag('WEBGL_EXP_CONV', () => false);
  E.registerFlag('SOFTWARE_WEBGL_ENABLED', () => E.getBool('IS_TEST'));
  E.registerFlag('WEBGL_MAX_SIZE_FOR_NARROW_TEXTURE', () => Infinity);
  E.registerFlag('WEBGL_AUTO_SQUARIFY_NARROW_TEXTURE_SHAPE', () => false);
  E.registerFlag('WEBGL2_ISNAN_CUSTOM', () => false);
  E.registerFlag('ENGINE_COMPILE_ONLY', () => false);
}

// tidytensor's own flags, registered after tfjs's: its memory tools (lib/memory) and the
// limits on what a model file or an image can make it do (README, "Safety").
//   TRACK_ORIGINS: remember the line of code that made each tensor, for tf.leaks,
//     tf.memoryReport and the GC backstop's warning (also on with TIDYTENSOR_TRACK_ORIGINS=1).
//   GC_BACKSTOP: dispose tensors whose handles were garbage-collected while nothing held them.
//   GRAPH_MAX_CALL_DEPTH: how deep a graph model's If/While function calls may nest (10000).
//   GRAPH_MAX_LOOP_ITERATIONS: how many iterations one loop of a graph model may run (0: no
//     limit, as in tfjs).
//   IMAGE_MAX_PIXELS: the largest image (width x height) the decoders decode (100 megapixels).
// Each limit's default can be set with the environment variable TIDYTENSOR_<flag>.
const TIDYTENSOR_FLAGS = ['TRACK_ORIGINS', 'GC_BACKSTOP', 'GRAPH_MAX_CALL_DEPTH', 'GRAPH_MAX_LOOP_ITERATIONS',
  'IMAGE_MAX_PIXELS'];

// What setting DEBUG, TRACK_ORIGINS or GC_BACKSTOP does: the memory tool's switch, which that
// module (lib/memory/debug.js, origins.js, backstop.js: above this one) installs when it loads.
const flagHandlers = new Map();

function setFlagHandler(flagName, handler) {
  flagHandlers.set(flagName, handler);
}

function runFlagHandler(flagName, value) {
  const handler = flagHandlers.get(flagName);
  if (handler !== undefined) handler(value);
}

// TIDYTENSOR_TRACK_ORIGINS=1 (or true, yes, on) turns origin tracking on from the start.
function trackOriginsFromEnv() {
  const v = process.env.TIDYTENSOR_TRACK_ORIGINS;
  return v != null && /^(1|true|yes|on)$/i.test(v.trim());
}

// A limit flag's default: the environment variable TIDYTENSOR_<flag> when it holds a number.
function limitDefault(flag, fallback) {
  const v = process.env[`TIDYTENSOR_${flag}`];
  const n = v == null || v.trim() === '' ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

function registerTidytensorFlags(E) {
  E.registerFlag('TRACK_ORIGINS', () => trackOriginsFromEnv(), (on) => runFlagHandler('TRACK_ORIGINS', on));
  E.registerFlag('GC_BACKSTOP', () => false, (on) => runFlagHandler('GC_BACKSTOP', on));
  E.registerFlag('GRAPH_MAX_CALL_DEPTH', () => limitDefault('GRAPH_MAX_CALL_DEPTH', 10000));
  E.registerFlag('GRAPH_MAX_LOOP_ITERATIONS', () => limitDefault('GRAPH_MAX_LOOP_ITERATIONS', 0));
  E.registerFlag('IMAGE_MAX_PIXELS', () => limitDefault('IMAGE_MAX_PIXELS', 100e6));
}

ENV = new Environment(globalThis);
registerTfjsFlags(ENV);
registerTidytensorFlags(ENV);
// The flags @tensorflow/tfjs has evaluated once loaded, in its order, so that
// tf.env().getFlags() starts out the same.
for (const f of ['IS_BROWSER', 'IS_NODE', 'DEBUG', 'CPU_HANDOFF_SIZE_THRESHOLD',
  'CANVAS2D_WILL_READ_FREQUENTLY_FOR_GPU']) {
  ENV.get(f);
}
if (ENV.get('IS_NODE') && !ENV.get('IS_BROWSER')) ENV.setPlatform('node', new PlatformNode());

function enableProdMode() {
  env().set('PROD', true);
}

// The DEBUG flag's set hook prints tfjs's warning.
function enableDebugMode() {
  env().set('DEBUG', true);
}

function disableDeprecationWarnings() {
  env().set('DEPRECATION_WARNINGS_ENABLED', false);
  console.warn('TensorFlow.js deprecation warnings have been disabled.');
}

function deprecationWarn(msg) {
  if (env().getBool('DEPRECATION_WARNINGS_ENABLED')) {
    console.warn(msg + ' You can disable deprecation warnings with ' +
      'tf.disableDeprecationWarnings().');
  }
}

function setPlatform(platformName, platform) {
  env().setPlatform(platformName, platform);
}

module.exports = {
  env, Environment, ENV, getQueryParams, enableProdMode, enableDebugMode,
  disableDeprecationWarnings, deprecationWarn, setPlatform, PlatformNode, TIDYTENSOR_FLAGS,
  setFlagHandler, trackOriginsFromEnv,
};
