'use strict';
// tf.env() (lib/env.js) against @tensorflow/tfjs 4.22's Environment: the flags, their values
// under Node, evaluation and set-hook semantics, URL overrides, error and warning texts.
const { describe, it } = require('node:test');
const { tfo, assert, throwsMsg } = require('./helpers/setup');
const mine = require('../lib/env');

const LIBS = [['tidytensor', mine], ['tfjs', tfo]];

// Runs fn with console.warn (and console.log, which tfjs's WebGL probes write to) captured.
function captureWarnings(fn) {
  const warn = console.warn;
  const log = console.log;
  const warnings = [];
  console.warn = (...args) => warnings.push(args.join(' '));
  console.log = () => {};
  try {
    fn();
  } finally {
    console.warn = warn;
    console.log = log;
  }
  return warnings;
}

// What `program(Environment)` returns or throws, as plain data, for comparing both libraries.
function outcome(program) {
  let result;
  const warnings = captureWarnings(() => {
    try {
      result = { value: program() };
    } catch (e) {
      result = { error: e.message };
    }
  });
  return { ...result, warnings };
}

function sameOutcome(program) {
  const want = outcome(() => program(tfo));
  const got = outcome(() => program(mine));
  assert.deepEqual(got, want);
  return got;
}

// Runs fn on a library's singleton, then puts its evaluated flags back.
function onSingleton(lib, fn) {
  const saved = Object.assign({}, lib.env().getFlags());
  try {
    return fn(lib.env());
  } finally {
    lib.env().setFlags(saved);
  }
}

describe('tf.env() (lib/env.js)', () => {
  it('starts with the flags tfjs has evaluated once loaded', () => {
    assert.deepEqual(mine.env().getFlags(), {
      IS_BROWSER: false, IS_NODE: true, DEBUG: false, CPU_HANDOFF_SIZE_THRESHOLD: 128,
      CANVAS2D_WILL_READ_FREQUENTLY_FOR_GPU: false,
    });
    const tfjsFirst = Object.keys(tfo.env().getFlags()).slice(0, 5);
    assert.deepEqual(Object.keys(mine.env().getFlags()), tfjsFirst);
  });

  it('is one singleton: env() === ENV, an Environment over the global object', () => {
    for (const [, lib] of LIBS) {
      assert.equal(lib.env(), lib.ENV);
      assert.ok(lib.env() instanceof lib.Environment);
      assert.equal(lib.env().global, globalThis);
    }
  });

  it('has the methods and fields of tfjs Environment', () => {
    const names = (o) => Object.getOwnPropertyNames(o).sort();
    assert.deepEqual(names(mine.Environment.prototype), names(tfo.Environment.prototype));
    assert.deepEqual(names(mine.env()), names(tfo.env()));
    assert.deepEqual(names(new mine.Environment({})), names(new tfo.Environment({})));
  });

  it('registers the same flags, in the same order, with the same values under Node', () => {
    const keys = Object.keys(tfo.env().flagRegistry);
    assert.equal(keys.length, 54);
    // tidytensor registers its own flags (its memory tools and safety limits) after tfjs's.
    const own = ['TRACK_ORIGINS', 'GC_BACKSTOP', 'GRAPH_MAX_CALL_DEPTH', 'GRAPH_MAX_LOOP_ITERATIONS',
      'IMAGE_MAX_PIXELS'];
    assert.deepEqual(Object.keys(mine.env().flagRegistry), [...keys, ...own]);
    for (const k of ['IS_NODE', 'IS_BROWSER', 'IS_TEST', 'DEBUG', 'PROD', 'WEBGL_CPU_FORWARD',
      'TOPK_K_CPU_HANDOFF_THRESHOLD', 'KEEP_INTERMEDIATE_TENSORS', 'ENGINE_COMPILE_ONLY']) {
      assert.ok(keys.includes(k), k);
    }
    const values = (lib) => onSingleton(lib, (e) => {
      const out = {};
      captureWarnings(() => {
        for (const k of keys) {
          try {
            out[k] = e.get(k);
          } catch (err) {
            out[k] = `throws: ${err.message}`;
          }
        }
      });
      return out;
    });
    const want = values(tfo);
    assert.deepEqual(values(mine), want);
    assert.equal(want.IS_NODE, true);
    assert.equal(want.PROD, false);
    assert.equal(want.WEBGL_VERSION, 0);
    assert.equal(want.TOPK_LAST_DIM_CPU_HANDOFF_SIZE_THRESHOLD, 100000);
    assert.equal(want.WEBGL_MAX_SIZE_FOR_NARROW_TEXTURE, Infinity);
  });

  it('refuses unregistered flags with tfjs error texts', async () => {
    for (const [, lib] of LIBS) {
      const e = lib.env();
      throwsMsg(() => e.set('NOPE', 1), 'Cannot set flag NOPE as it has not been registered.');
      throwsMsg(() => e.get('NOPE'), "Cannot evaluate flag 'NOPE': no evaluation function found.");
      throwsMsg(() => e.getBool('NOPE'),
        "Cannot evaluate flag 'NOPE': no evaluation function found.");
      await assert.rejects(e.getAsync('NOPE'),
        { message: "Cannot evaluate flag 'NOPE': no evaluation function found." });
      assert.equal('NOPE' in e.getFlags(), false);
    }
  });

  it('evaluates a flag once, lazily; set overrides it without evaluating', () => {
    const r = sameOutcome((lib) => {
      const e = new lib.Environment({});
      const calls = [];
      e.registerFlag('F1', () => { calls.push('eval'); return true; },
        (v) => calls.push(`hook ${v}`));
      e.registerFlag('F2', () => 100);
      const before = Object.keys(e.getFlags());
      const a = [e.get('F1'), e.getBool('F1'), e.getNumber('F2'), e.getString('F1')];
      e.set('F1', false);
      e.set('F2', 'text');
      return { before, a, after: [e.get('F1'), e.get('F2')], calls, flags: e.features };
    });
    assert.deepEqual(r.value, {
      before: [], a: [true, true, 100, true], after: [false, 'text'],
      calls: ['eval', 'hook false'], flags: { F1: false, F2: 'text' },
    });
  });

  it('getAsync evaluates async flags; get refuses them', async () => {
    for (const [, lib] of LIBS) {
      const e = new lib.Environment({});
      e.registerFlag('ASYNC', async () => 7);
      throwsMsg(() => e.get('ASYNC'),
        'Flag ASYNC cannot be synchronously evaluated. Please use getAsync() instead.');
      assert.equal(await e.getAsync('ASYNC'), 7);
      assert.equal(e.get('ASYNC'), 7);
    }
  });

  it('setFlags copies without hooks; reset forgets values; re-registering keeps values', () => {
    const r = sameOutcome((lib) => {
      const e = new lib.Environment({});
      let n = 0;
      const hooks = [];
      e.registerFlag('F', () => ++n, (v) => hooks.push(v));
      const src = { F: 10, OTHER: 'x' };
      e.setFlags(src);
      src.F = 11;
      const afterSet = [e.get('F'), e.getFlags() !== src, e.get('OTHER')];
      e.reset();
      const afterReset = [Object.keys(e.getFlags()).length, e.get('F'), e.get('F')];
      e.registerFlag('F', () => 'new');
      return { afterSet, afterReset, again: e.get('F'), hooks, features: e.features === e.flags };
    });
    assert.deepEqual(r.value, {
      afterSet: [10, true, 'x'], afterReset: [0, 1, 1], again: 1, hooks: [], features: true,
    });
  });

  it('takes ?tfjsflags= overrides from global.location (tfjs-core environment_test)', () => {
    const cases = [
      ['', () => false, false],
      ['?tfjsflags=FLAG1:true', () => false, true],
      ['?tfjsflags=FLAG1:false', () => true, false],
      ['?tfjsflags=FLAG1:FlagString', () => 'x', 'FlagString'],
      ['?tfjsflags=FLAG1:', () => 'FlagString', ''],
      ['?tfjsflags=FLAG1:200,FLAG2:TRUE', () => 1, 200],
    ];
    for (const [search, fn, expected] of cases) {
      const r = sameOutcome((lib) => {
        const e = new lib.Environment({ location: { search } });
        const unregistered = Object.assign({}, e.features);
        e.registerFlag('FLAG1', fn);
        e.registerFlag('FLAG2', () => false);
        return { unregistered, v: e.get('FLAG1'), v2: e.get('FLAG2') };
      });
      assert.deepEqual(r.value.unregistered, {});
      assert.equal(r.value.v, expected, search);
      assert.equal(r.value.v2, search.includes('FLAG2') ? true : false);
      if (search.includes('tfjsflags')) {
        assert.match(r.warnings[0], /^Setting feature override from URL FLAG1: /);
      }
    }
    assert.deepEqual(new mine.Environment({}).getQueryParams('?a=1&b=hi&f=animal'),
      { a: '1', b: 'hi', f: 'animal' });
    assert.deepEqual(new mine.Environment({}).getQueryParams('?a=1&b=hi&f=animal'),
      new tfo.Environment({}).getQueryParams('?a=1&b=hi&f=animal'));
  });

  it('enableDebugMode sets DEBUG with tfjs warning; enableProdMode sets PROD', () => {
    for (const [, lib] of LIBS) {
      onSingleton(lib, (e) => {
        e.reset();
        assert.deepEqual(captureWarnings(() => lib.enableProdMode()), []);
        assert.equal(e.getBool('PROD'), true);
        const w = captureWarnings(() => lib.enableDebugMode());
        assert.deepEqual(w, ['Debugging mode is ON. The output of every math call will be ' +
          'downloaded to CPU and checked for NaNs. This significantly impacts performance.']);
        assert.equal(e.getBool('DEBUG'), true);
        // Flags derived from DEBUG follow it when first read.
        assert.equal(e.getBool('CHECK_COMPUTATION_FOR_ERRORS'), true);
        assert.equal(e.getBool('TENSORLIKE_CHECK_SHAPE_CONSISTENCY'), true);
        // Turning it off is silent.
        assert.deepEqual(captureWarnings(() => e.set('DEBUG', false)), []);
      });
      assert.equal(lib.env().getBool('DEBUG'), false);
      assert.equal(lib.env().getBool('PROD'), false);
    }
  });

  it('deprecation warnings: texts and the flag that silences them', () => {
    for (const [, lib] of LIBS) {
      onSingleton(lib, () => {
        assert.deepEqual(captureWarnings(() => lib.deprecationWarn('old.')),
          ['old. You can disable deprecation warnings with tf.disableDeprecationWarnings().']);
        assert.deepEqual(captureWarnings(() => lib.disableDeprecationWarnings()),
          ['TensorFlow.js deprecation warnings have been disabled.']);
        assert.deepEqual(captureWarnings(() => lib.deprecationWarn('old.')), []);
      });
    }
  });

  it('set hooks validate as tfjs does, after storing the value', () => {
    for (const flag of ['WEBGL_FLUSH_THRESHOLD', 'WEBGL_DELETE_TEXTURE_THRESHOLD']) {
      for (const v of ['a', -2, -1, 0, 5]) {
        sameOutcome((lib) => onSingleton(lib, (e) => {
          let err = null;
          try {
            e.set(flag, v);
          } catch (x) {
            err = x.message;
          }
          return { err, stored: e.get(flag) };
        }));
      }
    }
    throwsMsg(() => onSingleton(mine, (e) => e.set('WEBGL_FLUSH_THRESHOLD', -3)),
      'WEBGL_FLUSH_THRESHOLD must be -1 (indicating never manual flush) or at least 0, ' +
      'but got -3.');
    const r = sameOutcome((lib) => onSingleton(lib, (e) => {
      e.set('KEEP_INTERMEDIATE_TENSORS', true);
      e.set('TOPOLOGICAL_SORT_CACHE_MAX_ENTRIES', 5);
      return [e.get('KEEP_INTERMEDIATE_TENSORS'), e.get('TOPOLOGICAL_SORT_CACHE_MAX_ENTRIES')];
    }));
    assert.deepEqual(r.value, [true, 5]);
    assert.match(r.warnings[0], /^Keep intermediate tensors is ON\./);
  });

  it('setPlatform warns when replacing a platform', () => {
    const r = sameOutcome((lib) => {
      const e = new lib.Environment({});
      e.setPlatform('a', { now: () => 1 });
      e.setPlatform('b', { now: () => 2 });
      return [e.platformName, e.platform.now()];
    });
    assert.deepEqual(r.value, ['b', 2]);
    assert.deepEqual(r.warnings,
      ['Platform a has already been set. Overwriting the platform with b.']);
  });

  it('has the node platform: now, encode, decode, isTypedArray', () => {
    const p = mine.env().platform;
    const q = tfo.env().platform;
    assert.equal(mine.env().platformName, 'node');
    assert.equal(tfo.env().platformName, 'node');
    assert.deepEqual(Object.getOwnPropertyNames(Object.getPrototypeOf(p)).sort(),
      Object.getOwnPropertyNames(Object.getPrototypeOf(q)).sort());
    const t0 = p.now();
    assert.equal(typeof t0, 'number');
    assert.ok(p.now() >= t0);
    assert.deepEqual(Array.from(p.encode('héllo', 'utf-8')),
      Array.from(q.encode('héllo', 'utf8')));
    assert.equal(p.decode(p.encode('héllo', 'utf8'), 'utf-8'), 'héllo');
    assert.equal(p.decode(new Uint8Array(0), 'utf-8'), '');
    throwsMsg(() => p.encode('x', 'latin1'),
      'Node built-in encoder only supports utf-8, but got latin1');
    for (const a of [new Float32Array(1), new Int32Array(1), new Uint8Array(1),
      new Uint8ClampedArray(1), new Float64Array(1), [1], null]) {
      assert.equal(p.isTypedArray(a), q.isTypedArray(a));
    }
    assert.equal(typeof p.fetch, 'function');
  });
});

describe('tidytensor\'s limit flags', () => {
  it('default to their values, or to the environment variable TIDYTENSOR_<flag> when it is a number', () => {
    const { spawnSync } = require('node:child_process');
    const read = (env) => JSON.parse(spawnSync(process.execPath, ['-e',
      "const e = require('./lib/env').env(); console.log(JSON.stringify(['GRAPH_MAX_CALL_DEPTH', " +
      "'GRAPH_MAX_LOOP_ITERATIONS', 'IMAGE_MAX_PIXELS'].map((f) => e.get(f))))"],
    { cwd: require('node:path').join(__dirname, '..'), env: { ...process.env, ...env }, encoding: 'utf8' }).stdout);
    assert.deepEqual(read({}), [10000, 0, 100e6]);
    assert.deepEqual(read({ TIDYTENSOR_GRAPH_MAX_CALL_DEPTH: '50', TIDYTENSOR_GRAPH_MAX_LOOP_ITERATIONS: '1e6',
      TIDYTENSOR_IMAGE_MAX_PIXELS: '4000000' }), [50, 1e6, 4e6]);
    assert.deepEqual(read({ TIDYTENSOR_GRAPH_MAX_CALL_DEPTH: 'deep', TIDYTENSOR_IMAGE_MAX_PIXELS: '-1' }), [10000, 0, 100e6]);
  });
});
