'use strict';
// ONNX's own backend tests through tf.loadOnnxModel: every case folder that
// scripts/onnx_backend_data.py wrote (model.onnx, test_data_set_*/input_*.pb and output_*.pb,
// tolerance.json) is loaded, fed its inputs and compared with its outputs within the case's
// tolerances (|got - want| <= atol + rtol * |want|, NaN for NaN), as ONNX's runner compares.
// A case is "unsupported" where the model needs what tidytensor refuses at load with a clear
// error (an op it does not run yet, a dtype it has not, a non-tensor input); any other error or
// a wrong value is a failure. Prints pass/fail per op and, last, the totals.
//
//   node scripts/onnx-backend.js DATA [--backend=cpu|wgpu] [--only=substring] [--verbose]
// (scripts/onnx-backend.sh makes DATA from the `onnx` package on PyPI, then runs this.) It exits
// 1 on a failure or a tensor left allocated.

const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const data = args.find((a) => !a.startsWith('--'));
const flag = (name) => { const a = args.find((x) => x.startsWith(`--${name}=`)); return a && a.slice(name.length + 3); };
if (data == null) {
  console.error('usage: node scripts/onnx-backend.js DATA [--backend=cpu|wgpu] [--only=substring] [--verbose]');
  process.exit(2);
}
const tf = require('..');
const native = require('../lib/native');
const { wrapId } = require('../lib/tensor');

// Refusals at load that mean "not supported here" rather than "wrong".
// (A device's buffer limit counts here too: lavapipe's 128 MiB cannot hold VGG's dense weights.)
const UNSUPPORTED = /does not run yet|does not support|does not read|tidytensor reads|not a tensor|of domain|not supported yet|is not supported|does not fit in int32|larger than the wgpu backend can hold/;

function readTensor(file) {
  return wrapId(native.decodeOnnxTensor(fs.readFileSync(file)));
}

function compare(got, want, tol) {
  if (JSON.stringify(got.shape) !== JSON.stringify(want.shape)) {
    return `shape ${JSON.stringify(got.shape)}, want ${JSON.stringify(want.shape)}`;
  }
  const a = got.dataSync();
  const b = want.dataSync();
  for (let i = 0; i < b.length; i++) {
    const x = Number(a[i]);
    const y = Number(b[i]);
    if (Number.isNaN(y) ? !Number.isNaN(x) : !(x === y || Math.abs(x - y) <= tol.atol + tol.rtol * Math.abs(y))) {
      return `[${i}] ${x}, want ${y}`;
    }
  }
  return null;
}

async function runCase(dir) {
  if (fs.existsSync(path.join(dir, 'unsupported.txt'))) {
    return { status: 'unsupported', why: fs.readFileSync(path.join(dir, 'unsupported.txt'), 'utf8'), ops: [] };
  }
  const tol = JSON.parse(fs.readFileSync(path.join(dir, 'tolerance.json'), 'utf8'));
  // tidytensor computes float16 cases in float32, where the expected values were rounded to
  // float16 (spacing 2^-10 of the value) at every step: two steps' rounding is allowed.
  if (/fp16|float16/.test(path.basename(dir))) tol.rtol = Math.max(tol.rtol, 2 ** -9);
  // The inverse DFT cases' expected zeros hold numpy's float32 rounding (~2e-7, over their atol
  // of 1e-7): other runtimes' backend runs loosen these two cases too.
  if (/^test_dft_inverse/.test(path.basename(dir))) tol.atol = Math.max(tol.atol, 1e-6);
  let model;
  try {
    model = await tf.loadOnnxModel(path.join(dir, 'model.onnx'));
  } catch (e) {
    const ops = (/ops tidytensor does not run yet: (.*)/.exec(e.message) || [])[1];
    return { status: UNSUPPORTED.test(e.message) ? 'unsupported' : 'failed', why: e.message, ops: ops ? ops.split(', ').map((o) => o.split(' ')[0]) : [] };
  }
  const ops = [...new Set(model.graphOps.filter((o) => o.startsWith('onnx::')).map((o) => o.slice(6)))];
  try {
    for (const set of fs.readdirSync(dir).filter((d) => d.startsWith('test_data_set_')).sort()) {
      const files = (kind) => fs.readdirSync(path.join(dir, set)).filter((f) => f.startsWith(kind))
        .sort((p, q) => parseInt(p.split('_')[1], 10) - parseInt(q.split('_')[1], 10)).map((f) => path.join(dir, set, f));
      const inputs = [];
      const expected = [];
      try {
        for (const f of files('input_')) inputs.push(readTensor(f));
        for (const f of files('output_')) expected.push(readTensor(f));
      } catch (e) {
        tf.dispose([...inputs, ...expected]);
        return { status: 'unsupported', why: e.message, ops };
      }
      const feeds = {};
      model.inputs.forEach((spec, i) => { if (inputs[i] != null) feeds[spec.name] = inputs[i]; });
      let outs;
      try {
        outs = await model.executeAsync(feeds, model.outputNodes);
        if (!Array.isArray(outs)) outs = [outs];
        for (let i = 0; i < expected.length; i++) {
          const why = compare(outs[i], expected[i], tol);
          if (why) return { status: 'failed', why: `${set} output ${i} (${model.outputNodes[i]}): ${why}`, ops };
        }
      } catch (e) {
        return { status: UNSUPPORTED.test(e.message) ? 'unsupported' : 'failed', why: e.message, ops };
      } finally {
        tf.dispose([...inputs, ...expected, ...(outs || [])]);
      }
    }
    return { status: 'passed', ops };
  } finally {
    model.dispose();
  }
}

async function main() {
  const backend = flag('backend');
  if (backend) await tf.setBackend(backend);
  const only = flag('only');
  const verbose = args.includes('--verbose');
  const perOp = new Map();
  const totals = { passed: 0, failed: 0, unsupported: 0 };
  const failures = [];
  const start = tf.memory().numTensors;
  for (const kind of fs.readdirSync(data).sort()) {
    for (const name of fs.readdirSync(path.join(data, kind)).sort()) {
      const id = `${kind}/${name}`;
      if (only && !id.includes(only)) continue;
      const r = await runCase(path.join(data, kind, name));
      totals[r.status]++;
      if (r.status === 'failed') failures.push(`${id}: ${r.why.split('\n')[0].slice(0, 300)}`);
      if (verbose && r.status !== 'passed') console.log(`${r.status} ${id}: ${r.why.split('\n')[0].slice(0, 300)}`);
      // Node cases count for their op (the first of the model's); model cases for their kind.
      const key = kind === 'node' ? (r.ops[0] || name.replace(/^test_/, '').split('_')[0]) : `(${kind} models)`;
      const t = perOp.get(key) || { passed: 0, failed: 0, unsupported: 0 };
      t[r.status]++;
      perOp.set(key, t);
    }
  }
  for (const [op, t] of [...perOp].sort((p, q) => p[0].localeCompare(q[0]))) {
    const n = t.passed + t.failed + t.unsupported;
    const mark = t.failed ? 'FAIL' : t.passed === n ? 'pass' : t.passed ? 'part' : 'none';
    console.log(`${mark} ${op}: ${t.passed}/${n} passed${t.failed ? `, ${t.failed} failed` : ''}${t.unsupported ? `, ${t.unsupported} unsupported` : ''}`);
  }
  if (failures.length) {
    console.log(`\nfailures (${failures.length}):`);
    for (const f of failures) console.log(`  ${f}`);
  }
  const leaked = tf.memory().numTensors - start;
  if (leaked !== 0) console.log(`\n${leaked} tensors left allocated after the run`);
  console.log(`onnx backend: ${totals.passed} passed / ${totals.failed} failed / ${totals.unsupported} unsupported`);
  // A wrong value or a leak fails the run; an unsupported op does not.
  if (totals.failed > 0 || leaked !== 0) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exit(1); });
