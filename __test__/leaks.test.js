'use strict';
// The memory tools of lib/memory: the leak finder (tf.leaks) with origin tracking,
// tf.memoryReport, the GC backstop (in child processes run with --expose-gc) and tfjs's debug
// mode (NaN checks and kernel timings).
const { describe, it, afterEach } = require('node:test');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { tt, assert } = require('./helpers/setup');
const native = require('../lib/native');

const ROOT = path.join(__dirname, '..');
const SOURCE = fs.readFileSync(__filename, 'utf8').split('\n');
// The line of this file that holds `marker`.
const lineOf = (marker) => SOURCE.findIndex((l) => l.includes(marker)) + 1;

// Leaks the sum it makes (the line marked LEAK-A).
function leakAdd(x) {
  tt.add(x, 1); // LEAK-A
}

// Leaks a bigger product (LEAK-B) and keeps nothing else.
function leakMatMul(a) {
  tt.matMul(a, a); // LEAK-B
}

function capture(method, fn) {
  const saved = console[method];
  const calls = [];
  console[method] = (...args) => calls.push(args);
  try {
    fn();
  } finally {
    console[method] = saved;
  }
  return calls;
}

// Disposes what a report found (leaked tensors have no handle left).
function cleanUp(report) {
  for (const t of report.tensors) native.dispose(t.id);
}

afterEach(() => {
  tt.env().set('TRACK_ORIGINS', false);
});

describe('tf.leaks', () => {
  it('names the file, line and function that made each leaked tensor', () => {
    tt.env().set('TRACK_ORIGINS', true);
    const x = tt.tensor1d([1, 2, 3]);
    const r = tt.leaks(() => {
      leakAdd(x);
      leakAdd(x);
    });
    assert.equal(r.numTensors, 2);
    assert.equal(r.numBytes, 24);
    const line = lineOf('// LEAK-A');
    for (const t of r.tensors) {
      assert.deepEqual(t.shape, [3]);
      assert.equal(t.dtype, 'float32');
      assert.equal(t.bytes, 12);
      assert.equal(t.op, 'Add');
      assert.equal(`${path.relative(ROOT, t.frame.file)}:${t.frame.line}`, `__test__/leaks.test.js:${line}`);
      assert.equal(t.frame.functionName, 'leakAdd');
      assert.equal(t.frame.column, SOURCE[line - 1].indexOf('add(') + 1);
      assert.equal(typeof t.id, 'number');
      assert.equal(t.scoped, false);
    }
    // Reports show the file relative to the working directory.
    const where = `${path.relative(process.cwd(), __filename)}:${line}:${r.tensors[0].frame.column}`;
    assert.equal(r.tensors[0].origin, `leakAdd (${where})`);
    assert.deepEqual(r.summary, [{ origin: r.tensors[0].origin, count: 2, bytes: 24, shapes: [[3]], ops: ['Add'] }]);
    assert.equal(r.result, undefined);
    cleanUp(r);
    tt.dispose(x);
  });

  it('does not report what fn returns; the result is returned with the report', () => {
    const x = tt.scalar(2);
    const r = tt.leaks(() => {
      const y = x.mul(3);
      return { y, list: [x.add(1), 'other'] };
    });
    assert.equal(r.numTensors, 0);
    assert.deepEqual(r.tensors, []);
    assert.deepEqual(r.summary, []);
    assert.equal(r.result.y.dataSync()[0], 6);
    assert.equal(r.result.list[0].dataSync()[0], 3);
    tt.dispose([x, r.result]);
  });

  it('reports nothing for a clean function', () => {
    const x = tt.ones([4, 4]);
    const before = tt.memory().numTensors;
    const r = tt.leaks(() => {
      tt.tidy(() => {
        tt.matMul(x, x).add(1).sum();
      });
      const t = tt.square(x);
      t.dispose();
    });
    assert.deepEqual([r.numTensors, r.numBytes, r.tensors.length, r.summary.length], [0, 0, 0, 0]);
    assert.equal(tt.memory().numTensors, before);
    tt.dispose(x);
  });

  it('follows an async fn across awaits and resolves to the report', async () => {
    tt.env().set('TRACK_ORIGINS', true);
    const x = tt.tensor1d([1, 2]);
    const p = tt.leaks(async () => {
      leakAdd(x);
      await new Promise((r) => setImmediate(r));
      leakAdd(x);
      await x.data();
      return tt.neg(x);
    });
    assert.ok(p instanceof Promise);
    const r = await p;
    assert.equal(r.numTensors, 2);
    assert.ok(r.tensors.every((t) => t.frame.line === lineOf('// LEAK-A')));
    assert.deepEqual(Array.from(r.result.dataSync()), [-1, -2]);
    cleanUp(r);
    tt.dispose([x, r.result]);
  });

  it('groups by origin, biggest first, with counts, bytes and shapes', () => {
    tt.env().set('TRACK_ORIGINS', true);
    const x = tt.tensor1d([1, 2, 3]);
    const y = tt.tensor1d([1, 2]);
    const a = tt.ones([8, 8]);
    const r = tt.leaks(() => {
      for (let i = 0; i < 3; i++) leakAdd(x);
      leakAdd(y);
      leakMatMul(a);
    });
    assert.equal(r.numTensors, 5);
    assert.equal(r.numBytes, 3 * 12 + 8 + 256);
    assert.equal(r.summary.length, 2);
    const [big, small] = r.summary;
    assert.match(big.origin, new RegExp(`^leakMatMul \\(.*leaks\\.test\\.js:${lineOf('// LEAK-B')}:\\d+\\)$`));
    assert.deepEqual([big.count, big.bytes, big.shapes, big.ops], [1, 256, [[8, 8]], ['BatchMatMul']]);
    assert.match(small.origin, new RegExp(`^leakAdd \\(.*leaks\\.test\\.js:${lineOf('// LEAK-A')}:\\d+\\)$`));
    assert.deepEqual([small.count, small.bytes, small.shapes, small.ops], [4, 44, [[3], [2]], ['Add']]);
    cleanUp(r);
    tt.dispose([x, y, a]);
  });

  it('without tracking, the origin is the kernel that made the tensor (tfjs kernel names)', () => {
    const x = tt.ones([2, 2]);
    const r = tt.leaks(() => {
      tt.add(x, x);
      tt.matMul(x, x);
      x.mul(2);
      tt.tensor([1, 2, 3]);
      tt.relu(x);
    });
    // 'Tensor': an uploaded value (the scalar 2 that mul converts is its own temporary).
    assert.deepEqual(r.tensors.map((t) => t.op), ['Add', 'BatchMatMul', 'Multiply', 'Tensor', 'Relu']);
    assert.ok(r.tensors.every((t) => t.frame === null && t.origin === t.op));
    assert.deepEqual(r.summary.map((g) => [g.origin, g.bytes]),
      [['Add', 16], ['BatchMatMul', 16], ['Multiply', 16], ['Relu', 16], ['Tensor', 12]]);
    cleanUp(r);
    tt.dispose(x);
  });

  it('marks variables and kept tensors', () => {
    const r = tt.leaks(() => {
      const v = tt.variable(tt.zeros([2]), true, 'leaks_test_v');
      tt.keep(tt.ones([1]));
      return v;
    });
    // The variable is the result; its initial value leaked, and the kept tensor is reported.
    assert.deepEqual(r.tensors.map((t) => [t.op, t.kept, t.variable]), [['Tensor', false, false], ['Tensor', true, false]]);
    cleanUp(r);
    r.result.dispose();
  });

  it('finds the user frame behind deep paths once one has been seen', () => {
    tt.env().set('TRACK_ORIGINS', true);
    const x = tt.ones([2, 3]);
    const r = tt.leaks(() => {
      for (let i = 0; i < 4; i++) tt.losses.meanSquaredError(x, x); // LEAK-C
    });
    assert.equal(r.numTensors, 4);
    // The first capture may stop inside tidytensor (then it shows the op); later ones go deeper.
    const last = r.tensors[3];
    assert.equal(last.frame && last.frame.line, lineOf('// LEAK-C'));
    cleanUp(r);
    tt.dispose(x);
  });

  it('checks its argument', () => {
    assert.throws(() => tt.leaks(42), TypeError);
  });
});

describe('tf.memoryReport', () => {
  it('prints the live tensors grouped by origin, biggest first, and returns the rows', () => {
    tt.env().set('TRACK_ORIGINS', true);
    const x = tt.tensor1d([1, 2, 3]);
    const a = tt.ones([16, 16]);
    const leaked = tt.leaks(() => {
      leakAdd(x);
      leakMatMul(a);
    });
    let rows;
    const logs = capture('log', () => { rows = tt.memoryReport(); });
    assert.equal(logs.length, 1);
    const text = logs[0].join(' ');
    const rel = path.relative(process.cwd(), __filename);
    const b = text.indexOf(`leakMatMul (${rel}:${lineOf('// LEAK-B')}:`);
    const s = text.indexOf(`leakAdd (${rel}:${lineOf('// LEAK-A')}:`);
    assert.ok(b > 0 && s > b, text);
    assert.match(text, /^tidytensor memory: \d+ tensors?, /);
    assert.match(text, /Bytes +Tensors +Shapes +Origin/);
    assert.match(text, /1\.00 KB +1 +\[16,16\] +leakMatMul/);
    // Rows: all live tensors, the most bytes first.
    const live = tt.memory();
    assert.equal(rows.reduce((n, r) => n + r.count, 0), live.numTensors);
    assert.equal(rows.reduce((n, r) => n + r.bytes, 0), live.numBytes);
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].bytes >= rows[i].bytes);
    const mm = rows.find((r) => r.origin.startsWith('leakMatMul'));
    assert.deepEqual([mm.count, mm.bytes, mm.shapes, mm.ops], [1, 1024, [[16, 16]], ['BatchMatMul']]);
    cleanUp(leaked);
    tt.dispose([x, a]);
  });
});

// Runs `body` (an async function's body) in `node --expose-gc` with `tf` loaded; it sets
// `out` (printed as JSON). Tensors are made in helpers so no stack slot keeps their handles.
function child(body) {
  const script = `
    const tf = require(${JSON.stringify(ROOT)});
    const native = require(${JSON.stringify(path.join(ROOT, 'lib', 'native'))});
    const warnings = [];
    console.warn = (...a) => warnings.push(a.join(' '));
    const turns = async (n = 5) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };
    async function collect() { for (let i = 0; i < 4; i++) { global.gc(); await turns(); } }
    function make(n, shape = [4]) { const ids = []; for (let i = 0; i < n; i++) ids.push(tf.ones(shape).id); return ids; }
    const alive = (ids) => ids.filter((id) => !native.isDisposed(id)).length;
    const out = {};
    (async () => { ${body} })().then(() => {
      out.warnings = warnings;
      console.log(JSON.stringify(out));
    }, (e) => { console.error(e); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env }, timeout: 60000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

describe('GC backstop (GC_BACKSTOP)', () => {
  it('off by default: nothing is reclaimed and tf.memory() has no numReclaimed', () => {
    const out = child(`
      const ids = make(5);
      await collect();
      out.alive = alive(ids);
      out.keys = Object.keys(tf.memory());
      out.flag = tf.env().getBool('GC_BACKSTOP');`);
    assert.equal(out.alive, 5);
    assert.ok(!out.keys.includes('numReclaimed'));
    assert.equal(out.flag, false);
    assert.deepEqual(out.warnings, []);
  });

  it('reclaims unreferenced tensors, counts them, and warns once naming the ops', () => {
    const out = child(`
      tf.env().set('GC_BACKSTOP', true);
      out.before = tf.memory().numReclaimed;
      const before = tf.memory().numTensors;
      const ids = make(5);
      await collect();
      out.alive = alive(ids);
      out.reclaimed = tf.memory().numReclaimed;
      out.numTensors = tf.memory().numTensors - before;
      const more = make(2);
      await collect();
      out.reclaimed2 = tf.memory().numReclaimed;
      out.alive2 = alive(more);`);
    assert.equal(out.before, 0);
    assert.equal(out.alive, 0);
    assert.equal(out.reclaimed, 5);
    assert.equal(out.numTensors, 0);
    assert.equal(out.reclaimed2, 7);
    assert.equal(out.alive2, 0);
    assert.equal(out.warnings.length, 1, out.warnings.join('\n'));
    assert.match(out.warnings[0], /GC backstop disposed 5 tensors/);
    assert.match(out.warnings[0], /Tensor: 5 tensors, 80 B/);
  });

  it('with origin tracking, the warning names the line that made them', () => {
    const out = child(`
      tf.env().set('TRACK_ORIGINS', true);
      tf.env().set('GC_BACKSTOP', true);
      make(3);
      await collect();
      out.reclaimed = tf.memory().numReclaimed;`);
    assert.equal(out.reclaimed, 3);
    assert.equal(out.warnings.length, 1);
    assert.match(out.warnings[0], /made at/);
    // The helper's line in the child's script ([eval]), which made the tensors.
    assert.match(out.warnings[0], /make \(\[eval\]:\d+:\d+\): 3 tensors/);
  });

  it('never reclaims referenced tensors, variables, or tensors in an open tidy or tidyAsync scope', () => {
    const out = child(`
      tf.env().set('GC_BACKSTOP', true);
      const held = [tf.ones([2]), tf.zeros([3])];
      const varIds = [];
      (function () { for (let i = 0; i < 3; i++) varIds.push(tf.variable(tf.ones([2])).id); })();
      // A tidy scope left open across awaits (engine().startScope / endScope).
      tf.engine().startScope();
      const scoped = make(4);
      await collect();
      out.scopedAlive = alive(scoped);
      tf.engine().endScope();
      out.scopedAfterEnd = alive(scoped);
      // An open tidyAsync scope.
      let inAsync;
      await tf.tidyAsync(async () => {
        inAsync = make(4);
        await collect();
        out.asyncAlive = alive(inAsync);
      });
      out.asyncAfter = alive(inAsync);
      await collect();
      out.heldAlive = held.filter((t) => !t.isDisposed).length;
      out.varsAlive = alive(varIds);
      // The variables' initial values had no other holder: they were reclaimed.
      out.reclaimed = tf.memory().numReclaimed;
      out.values = Array.from(held[0].dataSync());`);
    assert.equal(out.scopedAlive, 4);
    assert.equal(out.scopedAfterEnd, 0);
    assert.equal(out.asyncAlive, 4);
    assert.equal(out.asyncAfter, 0);
    assert.equal(out.heldAlive, 2);
    assert.equal(out.varsAlive, 3);
    assert.equal(out.reclaimed, 3);
    assert.deepEqual(out.values, [1, 1]);
  });

  it('turned off again, reclaims nothing more', () => {
    const out = child(`
      tf.env().set('GC_BACKSTOP', true);
      make(2);
      await collect();
      tf.env().set('GC_BACKSTOP', false);
      const ids = make(3);
      await collect();
      out.alive = alive(ids);
      out.reclaimed = tf.memory().numReclaimed;`);
    assert.equal(out.alive, 3);
    assert.equal(out.reclaimed, 2);
  });
});

describe('debug mode (tf.enableDebugMode)', () => {
  function debugRun(fn) {
    const warns = [];
    const logs = capture('log', () => {
      warns.push(...capture('warn', () => {
        tt.enableDebugMode();
        try {
          fn();
        } finally {
          tt.env().set('DEBUG', false);
        }
      }));
    });
    return { warns: warns.map((a) => a.join(' ')), logs };
  }

  it("warns with tfjs's text when a kernel's float32 output has NaN or Infinity", () => {
    const { warns } = debugRun(() => {
      tt.tidy(() => {
        tt.log(tt.scalar(-1));
        tt.div(tt.scalar(1), tt.scalar(0));
        tt.add(tt.scalar(1), tt.scalar(2));
        tt.sqrt(tt.tensor1d([4, -1]));
      });
    });
    assert.deepEqual(warns.slice(1), [
      "Found NaN in the result of 'Log'",
      "Found Infinity in the result of 'RealDiv'",
      "Found NaN in the result of 'Sqrt'",
    ]);
    assert.match(warns[0], /^Debugging mode is ON/);
  });

  it("logs each kernel's profile in tfjs's format", () => {
    const x = tt.ones([2, 3]);
    const { logs } = debugRun(() => {
      tt.tidy(() => {
        tt.matMul(x, x, false, true);
        tt.topk(tt.tensor1d([3, 1, 2]), 2);
      });
    });
    const lines = logs.map((a) => a[0]);
    // tfjs's Logger: '%c<name padded to 25>\t%c<time>ms<padded to 9>\t%c<rank>D <shape padded
    // to 14>\t%c<size>\t%c<input shapes>\t%c<extra>', with six styles (ignored by Node).
    const re = (name, rank, shape, size) => new RegExp(
      `^%c${name.padEnd(25)}\\t%c[0-9.e-]+ms *\\t%c${rank}D ${shape.padEnd(14)}\\t%c${size}\\t%c\\t%c$`);
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.match(lines[0], re('BatchMatMul', 2, '2,2', 4));
    assert.match(lines[1], re('TopK', 1, '2', 2));
    assert.match(lines[2], re('TopK', 1, '2', 2));
    assert.ok(logs.every((a) => a.length === 7 && a[1] === 'font-weight:bold'));
    const ms = Number(lines[0].split('\t')[1].slice(2).trim().replace(/ms$/, ''));
    assert.ok(ms >= 0 && ms < 10000);
    tt.dispose(x);
  });

  it('is off once DEBUG is false: no checks, no logs', () => {
    debugRun(() => {});
    const warns = capture('warn', () => {
      const logs = capture('log', () => tt.tidy(() => tt.log(tt.scalar(-1))));
      assert.deepEqual(logs, []);
    });
    assert.deepEqual(warns, []);
  });
});

describe('examples/leaks.js', () => {
  it('runs and shows what the README says', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'examples', 'leaks.js')], {
      cwd: ROOT, encoding: 'utf8', env: { ...process.env }, timeout: 60000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /predictLeaky x3: 3 tensor\(s\), 24 bytes leaked/);
    assert.match(r.stdout, /made at predictLeaky \(examples\/leaks\.js:\d+:\d+\)/);
    assert.match(r.stdout, /score x3 \(tidyAsync\): 0 tensor\(s\)/);
  });
});
