#!/usr/bin/env node
'use strict';
// Issue 29's load test (README, "Serving"): autocannon POSTs one JPEG (320×240) to
// examples/serve.js on loopback, for `--duration` seconds at each concurrency, against
//   - tidytensor, batched (tf.serving.batcher) and unbatched, predictions off the JS thread;
//   - the same server on tfjs-node, predicting synchronously in the handler, as its users
//     write it (when found: TFJS_NODE_DIR or this package's node_modules; see bench/impls.js);
// and prints requests per second, latency p50/p99 and the server's event-loop lag p99 (its
// /stats), with the ratios the issue sets targets for. Then the memory of 1 and 4 worker_threads
// sharing the model's weights: each server's RSS after loading.
//
//   node bench/serve.js [--duration 10] [--concurrency 1,8,32] [--only tidytensor,tfjs-node]
// Environment: TIDYTENSOR_BACKEND picks tidytensor's backend (cpu by default here).
const { spawn } = require('node:child_process');
const path = require('node:path');
const autocannon = require('autocannon');
const { resolveTfjsNode } = require('./impls');

const ROOT = path.join(__dirname, '..');
const SERVER = path.join(ROOT, 'examples', 'serve.js');

function parseArgs(argv) {
  const o = { duration: 10, concurrency: [1, 8, 32], only: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--duration') o.duration = Number(argv[++i]);
    else if (argv[i] === '--concurrency') o.concurrency = argv[++i].split(',').map(Number);
    else if (argv[i] === '--only') o.only = argv[++i].split(',');
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return o;
}

// A server of examples/serve.js on a free port, once it listens.
function startServer(args) {
  const env = { ...process.env, TIDYTENSOR_BACKEND: process.env.TIDYTENSOR_BACKEND || 'cpu' };
  const child = spawn(process.execPath, [SERVER, '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(d));
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${err.slice(-2000)}`)));
  });
}

async function stop(server) {
  server.child.removeAllListeners('exit');
  server.child.kill();
  await new Promise((resolve) => server.child.once('exit', resolve));
}

const stats = async (url, reset) => (await fetch(`${url}/stats${reset ? '?reset=1' : ''}`)).json();

function load(url, body, connections, duration) {
  return autocannon({
    url: `${url}/classify`, method: 'POST', body, connections, duration, pipelining: 1,
    headers: { 'content-type': 'image/jpeg' },
  });
}

// One server at each concurrency: a short warm-up, then the measured run.
async function measure(name, args, image, options) {
  const server = await startServer(args);
  const rows = [];
  try {
    for (const c of options.concurrency) {
      await load(server.url, image, c, 1);
      await stats(server.url, true);
      const r = await load(server.url, image, c, options.duration);
      const s = await stats(server.url, false);
      if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      rows.push({ name, c, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, lag99: s.eventLoopLagMs.p99 });
      console.error(`${name} c=${c}: ${r.requests.average} req/s, p99 ${r.latency.p99} ms, lag p99 ${s.eventLoopLagMs.p99} ms`);
    }
  } finally {
    await stop(server);
  }
  return rows;
}

async function rssAfterLoading(workers) {
  const server = await startServer(['--workers', String(workers)]);
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return (await stats(server.url, false)).rssMB;
  } finally {
    await stop(server);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const tf = require(ROOT);
  const pixels = tf.tidy(() => tf.randomUniform([240, 320, 3], 0, 255, 'int32'));
  const image = Buffer.from(await tf.node.encodeJpeg(pixels));
  pixels.dispose();
  const want = (n) => options.only == null || options.only.includes(n);
  const runs = [];
  if (want('tidytensor')) {
    runs.push(...await measure('tidytensor batched', [], image, options));
    runs.push(...await measure('tidytensor unbatched', ['--no-batch'], image, options));
  }
  const tfjsNode = resolveTfjsNode();
  if (want('tfjs-node') && tfjsNode) {
    runs.push(...await measure('tfjs-node (sync)', ['--tf', tfjsNode, '--sync'], image, options));
  } else if (want('tfjs-node')) {
    console.error('tfjs-node not found (TFJS_NODE_DIR): its rows are left out');
  }
  const rss = want('tidytensor') ? { one: await rssAfterLoading(1), four: await rssAfterLoading(4) } : null;

  const f = (v, d = 1) => (v == null ? '–' : v.toFixed(d));
  console.log(`# Serving: examples/serve.js under autocannon, ${options.duration} s per row (${process.env.TIDYTENSOR_BACKEND || 'cpu'} backend)\n`);
  console.log('| server | concurrency | req/s | p50 ms | p99 ms | event-loop lag p99 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const r of runs) console.log(`| ${r.name} | ${r.c} | ${f(r.rps)} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.lag99, 2)} |`);
  const row = (name, c) => runs.find((r) => r.name === name && r.c === c);
  const targets = [];
  const b8 = row('tidytensor batched', 8);
  const n8 = row('tfjs-node (sync)', 8);
  if (b8) targets.push(`event-loop lag p99 at concurrency 8: ${f(b8.lag99, 2)} ms (target ≤ 5)` + (n8 ? `; tfjs-node: ${f(n8.lag99, 2)} ms` : ''));
  if (b8 && n8) {
    targets.push(`throughput at concurrency 8: ${f(b8.rps / n8.rps, 2)}× tfjs-node's (target ≥ 2×)`);
    targets.push(`p99 latency at concurrency 8: ${f(b8.p99)} ms against tfjs-node's ${f(n8.p99)} ms (target ≤)`);
  }
  const b32 = row('tidytensor batched', 32);
  const u32 = row('tidytensor unbatched', 32);
  if (b32 && u32) targets.push(`batching at concurrency 32: ${f(b32.rps / u32.rps, 2)}× unbatched (target ≥ 1.3×)`);
  if (rss) targets.push(`RSS after loading: 1 worker ${rss.one} MB, 4 workers ${rss.four} MB: ${f(rss.four / rss.one, 2)}× (target ≤ 1.5×)`);
  console.log(`\n${targets.map((t) => `- ${t}`).join('\n')}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
