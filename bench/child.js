'use strict';
// One benchmark process: loads one implementation, runs every workload, and sends the results
// to the parent (bench/run.js) over the IPC channel, or prints them as JSON when run directly:
//
//   node bench/child.js tfjs-cpu [--only=matmul256,chain]
//
// Progress goes to stderr.

const { impls } = require('./impls');
const { runAll } = require('./workloads');

async function main() {
  const name = process.argv[2];
  const onlyArg = process.argv.find((a) => a.startsWith('--only='));
  const only = onlyArg ? onlyArg.slice('--only='.length).split(',') : undefined;
  const impl = impls[name];
  if (!impl) throw new Error(`unknown implementation '${name}' (known: ${Object.keys(impls).join(', ')})`);
  const label = name === 'tidytensor' && process.env.TIDYTENSOR_BACKEND ? `${name} ${process.env.TIDYTENSOR_BACKEND}` : name;
  const log = (msg) => process.stderr.write(`  [${label}] ${msg}\n`);
  const { tf, backend, version, notes } = await impl.load();
  log(`loaded: backend ${backend}${version ? ', version ' + version : ''}`);
  const results = await runAll(tf, { only, log });
  return { impl: name, backend, version, notes, results };
}

function send(msg) {
  if (process.send) {
    process.send(msg, () => process.exit(0));
  } else {
    process.stdout.write(JSON.stringify(msg, null, 2) + '\n');
    process.exit(0);
  }
}

main().then(send, (e) => {
  const error = String((e && e.stack) || e);
  if (process.send) {
    process.send({ impl: process.argv[2], error }, () => process.exit(1));
  } else {
    process.stderr.write(error + '\n');
    process.exit(1);
  }
});
