#!/usr/bin/env node
'use strict';
// `npm run bench`: runs the same workloads (bench/workloads.js) on tidytensor and its peers,
// each implementation in its own child process (bench/child.js), one after the other so they
// do not compete for the cores, and prints a table of medians and of tidytensor's speed-up
// over each peer.
//
// Options:
//   --markdown                 print the table as Markdown (for README.md) on stdout
//   --json=FILE                also write every sample to FILE
//   --from=FILE                print the table of a run saved with --json; runs nothing
//   --only=ID,ID               run only these workloads (matmul256, matmul512, matmul1024,
//                              chain, smalladd, createdispose, the nn workloads, trainstep)
//   --impls=A,B                run only these implementations (tidytensor, tfjs-cpu,
//                              tfjs-wasm, tfjs-node)
//   --tidytensor-backends=B,B  one tidytensor column per backend (each child gets
//                              TIDYTENSOR_BACKEND=B); `all`: every backend that opens on
//                              this machine (cpu, wgpu); default: the active backend
// Environment: BENCH_SAMPLES (samples per workload, >= 5), BENCH_SAMPLE_MS (target length of
// one sample), TFJS_NODE_DIR (a project where @tensorflow/tfjs-node is installed).
//
// Progress goes to stderr; only the table goes to stdout.

const { fork } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { workloads } = require('./workloads');
const { impls } = require('./impls');

function parseArgs(argv) {
  const opts = { markdown: false };
  for (const a of argv) {
    const [k, v] = a.split(/=(.*)/s);
    if (k === '--markdown') opts.markdown = true;
    else if (k === '--json') opts.json = v;
    else if (k === '--from') opts.from = v;
    else if (k === '--only') opts.only = v.split(',');
    else if (k === '--impls') opts.impls = v.split(',');
    else if (k === '--tidytensor-backends') opts.ttBackends = v.split(',');
    else if (k === '--help' || k === '-h') opts.help = true;
    else throw new Error(`unknown option ${a} (try --help)`);
  }
  return opts;
}

// Runs one child and resolves to its message ({impl, backend, version, notes, results} or
// {error}). The child's stdout (tfjs's banners) is kept and shown only when it fails.
function runChild(implName, env, only) {
  return new Promise((resolve) => {
    const args = [implName];
    if (only) args.push(`--only=${only.join(',')}`);
    const child = fork(path.join(__dirname, 'child.js'), args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    let out = '';
    let msg = null;
    child.stdout.on('data', (d) => { out += d; });
    child.on('message', (m) => { msg = m; });
    child.on('exit', (code, signal) => {
      if (!msg) msg = { impl: implName, error: `child exited with ${signal || code} before reporting` };
      if (msg.error && out.trim()) msg.error += `\n--- child stdout ---\n${out.trim()}`;
      resolve(msg);
    });
  });
}

// The tidytensor backends that open on this machine, each probed in a throw-away process
// (a backend that cannot start, e.g. wgpu without a Vulkan adapter, is left out).
const KNOWN_BACKENDS = ['cpu', 'wgpu'];
function probeBackends(log) {
  const { spawnSync } = require('child_process');
  const ok = [];
  for (const b of KNOWN_BACKENDS) {
    const r = spawnSync(process.execPath, ['-e',
      `require(${JSON.stringify(path.join(__dirname, '..'))}).setBackend(${JSON.stringify(b)})` +
      '.then((ok) => process.exit(ok ? 0 : 3), () => process.exit(4))'], { encoding: 'utf8', timeout: 60000 });
    if (r.status === 0) ok.push(b);
    else log(`tidytensor backend ${b}: unavailable here, skipped`);
  }
  return ok;
}

function fmt(v) {
  if (v == null || !Number.isFinite(v)) return '–';
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  if (v >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}

// Speed-up of `tt` over `peer`: > 1 means tidytensor is faster.
function speedup(w, tt, peer) {
  if (tt == null || peer == null || !(tt > 0) || !(peer > 0)) return null;
  return w.higherIsBetter ? tt / peer : peer / tt;
}

function buildTable(columns, ttColumns, peerColumns) {
  const header = ['workload', 'unit', ...columns.map((c) => c.title)];
  const ratioCols = [];
  for (const t of ttColumns) {
    for (const p of peerColumns) {
      ratioCols.push({ t, p, title: ttColumns.length > 1 ? `${t.title} vs ${p.title}` : `vs ${p.title}` });
    }
  }
  header.push(...ratioCols.map((r) => r.title));
  const rows = [];
  for (const w of workloads) {
    const get = (c) => {
      const r = c.results && c.results.find((x) => x.id === w.id);
      return r && !r.error ? r.value : null;
    };
    if (columns.every((c) => !(c.results || []).some((x) => x.id === w.id))) continue;
    const row = [w.label, w.unit];
    for (const c of columns) {
      const r = c.results && c.results.find((x) => x.id === w.id);
      let cell = r ? (r.error ? 'error' : fmt(r.value)) : (c.error ? 'error' : '–');
      if (r && !r.error && r.check && r.check !== 'ok') cell += ' (!)';
      row.push(cell);
    }
    for (const { t, p } of ratioCols) {
      const s = speedup(w, get(t), get(p));
      row.push(s == null ? '–' : `${fmt(s)}×`);
    }
    rows.push(row);
  }
  return { header, rows };
}

// The op-breadth issue's targets for the cpu backend, against tfjs-node in the same run: a
// speedup over tfjs-node, capped for the GEMM workloads at a share of the machine's FMA peak
// (a rate no implementation can beat by much).
const TARGETS = {
  matmul256: { speedup: 1.2, peakShare: 0.9 },
  matmul512: { speedup: 1.2, peakShare: 0.9 },
  matmul1024: { speedup: 1.2, peakShare: 0.9 },
  batchedmatmul: { speedup: 1.5 },
  conv2d: { speedup: 1.2, peakShare: 0.85 },
  depthwise: { speedup: 2 },
  maxpool: { speedup: 2 },
  resizebilinear: { speedup: 2 },
  softmax: { speedup: 2 },
  logsumexp: { speedup: 2 },
  trainstep: { speedup: 2 },
  mlpfit: { speedup: 2 },
  predict256: { speedup: 1.5 },
  cnnfit: { speedup: 1.5 },
  customfit: { speedup: 1.5 },
  transferfit: { speedup: 1.5 },
  lstmfit: { speedup: 1.5 },
  bilstmfit: { speedup: 1.5 },
  graphmobilenet: { speedup: 1.5 },
  graphload: { speedup: 1 },
  graphsmall: { speedup: 5, fastestPeer: true },
  // Against onnxruntime-node (issue 28): at least 0.8× its speed, and load no slower.
  onnxresnet18: { speedup: 0.8, peer: 'onnxruntime-node' },
  onnxmobilenetv2: { speedup: 0.8, peer: 'onnxruntime-node' },
  onnxencoder: { speedup: 0.8, peer: 'onnxruntime-node' },
  onnxload: { speedup: 1, peer: 'onnxruntime-node' },
  seedloop: { speedup: 2 },
  loadmodel: { speedup: 2 },
  decodejpeg: { speedup: 1 },
  // Against the fastest peer in the run (tfjs's wasm backend, usually), not tfjs-node.
  predict1: { speedup: 5, fastestPeer: true },
  // Against another workload of tidytensor itself (issue 12): at most `plus` more (in the unit).
  tidyasynccall: { vs: 'tidycall', plus: 2 },
  scalardisposetracked: { vs: 'scalardispose', plus: 3 },
};

// The int8 product against the float one, in operations per second (VNNI CPUs).
const INT8_TARGET = 2.5;

function targetLines(columns, machine) {
  const peak = machine.fmaPeak;
  const tt = columns.find((c) => c.isTt && !c.error && (c.backend === 'cpu' || c.backend == null));
  const node = columns.find((c) => c.title === 'tfjs-node' && !c.error);
  if (!tt) return [];
  const peers = columns.filter((c) => !c.isTt && !c.error);
  const value = (c, id) => { const r = c.results.find((x) => x.id === id); return r && !r.error ? r.value : null; };
  const lines = [`Targets of the cpu backend against tfjs-node (or the fastest peer where said)${peak ? ` (FMA peak ${fmt(peak)} GFLOP/s on all cores)` : ''}:`];
  for (const w of workloads) {
    const t = TARGETS[w.id];
    if (t && t.vs) {
      // A target relative to another tidytensor workload: ours ≤ theirs + plus.
      const base = workloads.find((x) => x.id === t.vs);
      const [ours, theirs] = [value(tt, w.id), value(tt, t.vs)];
      if (ours == null || theirs == null) continue;
      lines.push(`  ${w.label}: ${fmt(ours)} ${w.unit} vs ${fmt(theirs)} ${w.unit} (${base ? base.id : t.vs}); ` +
        `target ≤ ${fmt(theirs + t.plus)} (+${t.plus}): ${ours <= theirs + t.plus ? 'met' : 'NOT met'}`);
      continue;
    }
    let peer = node;
    if (t && t.peer) peer = peers.find((c) => c.title === t.peer);
    if (t && t.fastestPeer) {
      const valued = peers.filter((c) => value(c, w.id) != null);
      // The best peer: the one that beats every other (speedup of it over another > 1).
      peer = valued.reduce((best, c) => (best == null || speedup(w, value(c, w.id), value(best, w.id)) > 1 ? c : best), null);
    }
    if (!t || !peer) continue;
    const [ours, theirs] = [value(tt, w.id), value(peer, w.id)];
    if (ours == null || theirs == null) continue;
    const s = speedup(w, ours, theirs);
    let goal = t.speedup;
    let why = `${t.speedup}× ${peer.title}`;
    if (t.peakShare && peak && w.higherIsBetter) {
      const capped = (t.peakShare * peak) / theirs;
      if (capped < goal) { goal = capped; why = `${Math.round(t.peakShare * 100)}% of the FMA peak`; }
    }
    const share = w.unit === 'GFLOP/s' && peak ? `, ${Math.round((100 * ours) / peak)}% of peak` : '';
    lines.push(`  ${w.label}: ${fmt(s)}× ${peer.title}${share}; target ${fmt(goal)}× (${why}): ${s >= goal ? 'met' : 'NOT met'}`);
  }
  const float = value(tt, 'matmul1024');
  if (machine.int8Samples && float) {
    const r = medianOf(machine.int8Samples) / float;
    lines.push(`  int8 matMul 1024: ${fmt(r)}× tidytensor's float matMul 1024; target ${INT8_TARGET}× (on a CPU with VNNI): ${r >= INT8_TARGET ? 'met' : 'NOT met'}`);
  }
  return lines;
}

const medianOf = (samples) => {
  const s = [...samples].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// min / median / max of samples, and max/min.
function spreadCell(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return `${fmt(s[0])} / ${fmt(medianOf(s))} / ${fmt(s[s.length - 1])} ` +
    `(max/min ${(s[s.length - 1] / s[0]).toFixed(2)}, ${s.length} samples)`;
}

// The spread of the GEMM and convolution workloads (`spread: true`): min / median / max over
// the samples of each implementation, and max/min, in the workload's unit; first the FMA
// peak's own spread (the machine's), last tidytensor's int8 product.
function spreadLines(columns, machine) {
  const lines = [];
  if (machine.fmaPeakSamples) lines.push(`  FMA peak, registers only (GFLOP/s): the machine ${spreadCell(machine.fmaPeakSamples)}`);
  for (const w of workloads.filter((x) => x.spread)) {
    const cells = [];
    for (const c of columns.filter((x) => !x.error)) {
      const r = c.results.find((x) => x.id === w.id);
      if (!r || r.error || !r.samples || !r.samples.length) continue;
      cells.push(`${c.title} ${spreadCell(r.samples)}`);
    }
    if (cells.length) lines.push(`  ${w.label} (${w.unit}): ${cells.join('; ')}`);
  }
  if (machine.int8Samples) lines.push(`  int8 matMul 1024×1024, int32 sums (GOP/s): tidytensor cpu ${spreadCell(machine.int8Samples)}`);
  return lines.length ? ['Spread (min / median / max over the samples):', ...lines] : [];
}

function printText(out, { header, rows }) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  out.push(line(header));
  out.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) out.push(line(r));
}

function printMarkdown(out, { header, rows }) {
  out.push(`| ${header.join(' | ')} |`);
  out.push(`| ${header.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`);
  for (const r of rows) out.push(`| ${r.join(' | ')} |`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    const src = fs.readFileSync(__filename, 'utf8').split('\n');
    process.stdout.write(src.slice(2, 23).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
    return 0;
  }
  const started = new Date();
  const cpus = os.cpus();
  let machine = {
    date: started.toISOString().slice(0, 10),
    cpu: cpus.length ? cpus[0].model.trim() : 'unknown CPU',
    cores: cpus.length,
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
  };
  const log = (m) => process.stderr.write(m + '\n');
  const want = opts.impls || Object.keys(impls);
  if (!opts.from) {
    log(`tidytensor benchmarks — ${started.toISOString()} — ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
    // The FMA peak, measured before any implementation runs (the GEMM targets are shares of it).
    // In 10 samples: their spread is the machine's own (registers only, no memory, no
    // threads to hand work between), the floor under any kernel's spread on it.
    try {
      const native = require('../lib/native');
      machine.fmaPeakSamples = Array.from({ length: 10 }, () => native.fmaPeakGflops(50));
      machine.fmaPeak = medianOf(machine.fmaPeakSamples);
      log(`FMA peak: ${fmt(machine.fmaPeak)} GFLOP/s on all cores`);
      // tidytensor's int8 product (no tfjs op reaches it), against its float matMul 1024.
      if (want.includes('tidytensor')) {
        native.int8MatMulGops(1024);
        machine.int8Samples = Array.from({ length: 10 }, () => native.int8MatMulGops(1024));
        log(`int8 matMul 1024: ${fmt(medianOf(machine.int8Samples))} GOP/s`);
      }
    } catch (e) {
      log(`FMA peak not measured: ${e.message}`);
    }
  }

  // The columns, in order: tidytensor (one per backend asked for), then the peers.
  const plan = [];
  if (want.includes('tidytensor')) {
    let backends = opts.ttBackends || [null];
    if (backends.includes('all')) backends = probeBackends(log);
    for (const b of backends) plan.push({ impl: 'tidytensor', env: b ? { TIDYTENSOR_BACKEND: b } : {}, backend: b });
  }
  for (const name of ['tfjs-cpu', 'tfjs-wasm', 'tfjs-node', 'onnxruntime-node']) if (want.includes(name)) plan.push({ impl: name, env: {} });
  for (const name of want) if (!impls[name]) throw new Error(`unknown implementation '${name}'`);

  let columns = [];
  let skipped = [];
  if (opts.from) {
    // Re-render a saved run (written with --json) instead of running anything.
    ({ machine, columns, skipped = [] } = JSON.parse(fs.readFileSync(opts.from, 'utf8')));
  }
  for (const p of opts.from ? [] : plan) {
    const impl = impls[p.impl];
    if (!impl.available()) {
      skipped.push(`${impl.title}: not installed, skipped (see bench/impls.js; set TFJS_NODE_DIR to a project that has it)`);
      log(`${p.impl}: not installed, skipped`);
      continue;
    }
    log(`${p.impl}${p.backend ? ' (' + p.backend + ')' : ''}: running…`);
    const t0 = Date.now();
    const msg = await runChild(p.impl, p.env, opts.only);
    log(`${p.impl}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s${msg.error ? ' — FAILED' : ''}`);
    const isTt = p.impl === 'tidytensor';
    const title = isTt ? `tidytensor ${msg.backend || p.backend || ''}`.trim() : impl.title;
    columns.push({ ...msg, title, isTt });
    if (msg.error) log(msg.error);
  }

  const notes = [];
  for (const col of columns) {
    const { title } = col;
    if (col.error) {
      notes.push(`${title}: FAILED — ${col.error.split('\n')[0]}`);
      continue;
    }
    const bits = [col.version && `v${col.version}`, `backend '${col.backend}'`, ...(col.notes || [])].filter(Boolean);
    notes.push(`${title}: ${bits.join(', ')}`);
    for (const r of col.results) {
      if (r.error) notes.push(`${title} / ${r.id}: ERROR — ${r.error.split('\n')[0]}`);
      else if (r.check && r.check !== 'ok') notes.push(`${title} / ${r.id}: WRONG RESULT (!) — ${r.check}`);
    }
  }
  notes.push(...skipped);

  const targets = targetLines(columns, machine);
  const spread = spreadLines(columns, machine);
  const ttColumns = columns.filter((c) => c.isTt && !c.error);
  const peerColumns = columns.filter((c) => !c.isTt && !c.error);
  const table = buildTable(columns, ttColumns, peerColumns);
  const out = [];
  const head = `${machine.date} · ${machine.cpu} · ${machine.cores} cores · Node ${machine.node} · ${machine.platform}`;
  if (opts.markdown) {
    out.push(`Measured ${head}. Medians of ≥ 5 samples after warm-up; ` +
      '"vs X" = how many times faster tidytensor is than X (> 1: tidytensor faster).', '');
    printMarkdown(out, table);
    out.push('');
    for (const n of notes) out.push(`- ${n}`);
    if (spread.length) out.push('', spread[0], '', ...spread.slice(1).map((l) => `- ${l.trim()}`));
    if (targets.length) out.push('', targets[0], '', ...targets.slice(1).map((l) => `- ${l.trim()}`));
  } else {
    out.push('', head, '');
    printText(out, table);
    out.push('', 'Medians of ≥ 5 samples after warm-up. "vs X": how many times faster tidytensor is than X (> 1: faster).');
    for (const n of notes) out.push(`  ${n}`);
    if (spread.length) out.push('', ...spread);
    if (targets.length) out.push('', ...targets);
  }
  process.stdout.write(out.join('\n') + '\n');
  if (!opts.from) log(`total ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`);

  if (opts.json) {
    fs.writeFileSync(opts.json, JSON.stringify({ machine, columns, skipped }, null, 2) + '\n');
    log(`samples written to ${opts.json}`);
  }
  // A failed tidytensor run, or a wrong result from it, fails the command.
  const ttBad = columns.some((c) => c.isTt && (c.error || c.results.some((r) => r.error || (r.check && r.check !== 'ok'))));
  return ttBad ? 1 : 0;
}

main().then((code) => { process.exitCode = code; }, (e) => {
  process.stderr.write(String((e && e.stack) || e) + '\n');
  process.exitCode = 2;
});
