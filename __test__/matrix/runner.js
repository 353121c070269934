'use strict';
// Runs the matrix in worker processes (child.js) and collects one record per case. A worker runs
// its cases one after the other; when it dies (abort, segfault, OOM kill) or a case runs past
// its timeout, the case is recorded as a crash or a hang and a new worker starts at the next
// case, so loading tfjs and tidytensor is paid once per worker plus once per crash.
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');

const CHILD = path.join(__dirname, 'child.js');
const ROOT = path.join(__dirname, '..', '..');
const STARTUP_MS = 120000; // loading both libraries and opening the device
// Workers run under a virtual memory limit (Linux), so a case that would allocate gigabytes
// fails at once in that worker instead of waking the OOM killer. MATRIX_VMEM_KB=0 lifts it.
const VMEM_KB = process.env.MATRIX_VMEM_KB != null ? Number(process.env.MATRIX_VMEM_KB) :
  (process.platform === 'linux' ? 6 * 1024 * 1024 : 0);

// Runs cases [start, end) in one worker; resolves { hello, records, stopped } where `stopped` is
// the index after the last case this worker finished (or recorded as crash/hang), or null when
// it ran to the end.
function runWorker(start, end, opts) {
  return new Promise((resolve, reject) => {
    let args = [CHILD, String(start)];
    if (end !== Infinity) args.push(String(end));
    let file = process.execPath;
    if (opts.vmemKb > 0) {
      args = ['-c', 'ulimit -v "$0" && exec "$@"', String(opts.vmemKb), file, ...args];
      file = '/bin/sh';
    }
    const child = spawn(file, args, {
      cwd: ROOT,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let tail = '';
    const keepTail = (chunk) => {
      tail = (tail + chunk.toString()).slice(-3000);
    };
    child.stdout.on('data', keepTail);
    child.stderr.on('data', keepTail);

    const records = [];
    let hello = null;
    let current = null; // { i, name, phase }
    let done = false;
    let hung = false;
    let fatal = null;
    let timer = setTimeout(() => { hung = true; child.kill('SIGKILL'); }, STARTUP_MS);
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => { hung = true; child.kill('SIGKILL'); }, opts.timeoutMs);
    };

    const rl = readline.createInterface({ input: child.stdio[3] });
    rl.on('line', (line) => {
      let m;
      try { m = JSON.parse(line); } catch (e) { return; }
      if (m.t === 'hello') {
        hello = m;
        try {
          if (opts.onHello) opts.onHello(m);
        } catch (e) {
          fatal = e;
          child.kill('SIGKILL');
        }
      } else if (m.t === 'start') {
        current = { i: m.i, name: m.name, phase: 'tfjs' };
        arm();
      } else if (m.t === 'phase') {
        if (current) current.phase = m.lib;
      } else if (m.t === 'end') {
        clearTimeout(timer);
        records.push(m);
        current = null;
        if (opts.onRecord) opts.onRecord(m);
      } else if (m.t === 'done') {
        done = true;
      }
    });

    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    // 'close' waits for the pipes, so every line the worker wrote has been read.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (fatal) {
        reject(fatal);
        return;
      }
      if (done) {
        resolve({ hello, records, stopped: null });
        return;
      }
      if (!current) {
        const e = new Error(`matrix worker exited (code ${code}, signal ${signal}) outside a case` +
          `${hello ? '' : ' before it listed the cases'}:\n${tail}`);
        e.beforeHello = !hello;
        reject(e);
        return;
      }
      records.push({
        t: 'end',
        i: current.i,
        name: current.name,
        outcome: hung ? 'hang' : 'crash',
        phase: current.phase,
        detail: hung ?
          `no result after ${opts.timeoutMs} ms (${current.phase} running)` :
          `worker died during the ${current.phase} run: exit code ${code}, signal ${signal}`,
        stderr: tail.slice(-1500),
      });
      resolve({ hello, records, stopped: current.i + 1 });
    });
  });
}

// Runs every case; returns { total, backend, records (by case index), restarts }.
async function runMatrix(opts) {
  const o = {
    timeoutMs: 15000,
    env: process.env,
    vmemKb: VMEM_KB,
    ...opts,
  };
  const records = [];
  let total = Infinity;
  let backend = null;
  let restarts = 0;
  let start = 0;
  const run = async (from, hooks) => {
    try {
      return await runWorker(from, Infinity, { ...o, ...hooks });
    } catch (e) {
      // Some GPU drivers reserve more address space than the limit allows: run without it.
      if (!e.beforeHello || !(o.vmemKb > 0)) throw e;
      console.log(`# matrix: a worker could not start under a ${o.vmemKb} KiB memory limit; ` +
        'running without it');
      o.vmemKb = 0;
      return runWorker(from, Infinity, { ...o, ...hooks });
    }
  };
  while (start < total) {
    const r = await run(start, {
      onHello(h) {
        if (total !== Infinity && h.total !== total) {
          throw new Error(`the case list changed between workers (${total} -> ${h.total}): ` +
            'was the addon rebuilt during the run?');
        }
        total = h.total;
        backend = h.backend;
      },
    });
    for (const rec of r.records) records[rec.i] = rec;
    if (r.stopped == null) break;
    start = r.stopped;
    restarts++;
  }
  return { total, backend, records, restarts };
}

module.exports = { runMatrix };
