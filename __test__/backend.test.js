'use strict';
// Backend behaviour that tfjs has no oracle for: exact memory fields, GPU memory back to its
// baseline, reads that outlive dispose, moving tensors between backends, backend selection.
// Runs on the backend named by TIDYTENSOR_BACKEND (see scripts/test-backends.js).
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const tf = require('..');

if (process.env.TIDYTENSOR_BACKEND) tf.setBackend(process.env.TIDYTENSOR_BACKEND);
const backend = tf.getBackend();
const onGpu = backend === 'wgpu';

// Everything tf.memory() reports that must come back to its value.
function counts() {
  const m = tf.memory();
  return { numTensors: m.numTensors, numDataBuffers: m.numDataBuffers, numBytes: m.numBytes,
    numBytesInGPU: m.numBytesInGPU, numBytesInBackend: m.numBytesInBackend };
}

describe(`memory on the ${backend} backend`, () => {
  it('reports exact fields', () => {
    const before = tf.memory();
    assert.equal(before.unreliable, false);
    const t = tf.tensor2d([[1, 2, 3], [4, 5, 6]]);
    const b = tf.tensor1d([true, false, true], 'bool');
    const m = tf.memory();
    assert.equal(m.numTensors - before.numTensors, 2);
    assert.equal(m.numBytes - before.numBytes, 24 + 3);
    if (onGpu) {
      // bool is one 32-bit word per element on the GPU.
      assert.equal(m.numBytesInGPU - before.numBytesInGPU, 24 + 12);
      assert.ok(m.numBytesInGPUAllocated >= m.numBytesInGPU);
      assert.ok(m.numBytesInGPUFree >= 0);
    } else {
      assert.equal(m.numBytesInBackend - before.numBytesInBackend, 24 + 3);
    }
    tf.dispose([t, b]);
    assert.deepEqual(counts(), {
      numTensors: before.numTensors, numDataBuffers: before.numDataBuffers, numBytes: before.numBytes,
      numBytesInGPU: before.numBytesInGPU, numBytesInBackend: before.numBytesInBackend,
    });
  });

  it('comes back to its baseline after 10,000 tidy iterations and after errors', () => {
    const x = tf.tensor1d([1, 2, 3, 4]);
    const base = counts();
    for (let i = 0; i < 10000; i++) tf.tidy(() => { x.mul(2).add(1).relu().sum(); });
    for (let i = 0; i < 50; i++) {
      assert.throws(() => tf.tidy(() => tf.matMul(x.reshape([2, 2]), x.reshape([4, 1]))), /matMul/);
    }
    assert.deepEqual(counts(), base);
    x.dispose();
  });

  it('does not grow the pool over a loop of varying shapes', () => {
    const allocatedAfter = [];
    for (let epoch = 0; epoch < 3; epoch++) {
      for (let n = 1; n <= 300; n += 7) {
        tf.tidy(() => tf.ones([n, 3]).matMul(tf.ones([3, n % 5 + 1])).sum().dataSync());
      }
      allocatedAfter.push(tf.memory().numBytesInGPUAllocated);
    }
    if (onGpu) assert.equal(allocatedAfter[2], allocatedAfter[1]);
  });

  it('keeps memory flat in a loop that only uploads and disposes', () => {
    // 3,000 uploads of 1 MiB: wgpu stages each upload until a submit, so uploads must count
    // toward one (this grew the process by 3 GB before).
    const data = new Float32Array(262144);
    for (let i = 0; i < 300; i++) tf.tensor(data).dispose();
    const rss = process.memoryUsage().rss;
    for (let i = 0; i < 3000; i++) tf.tensor(data).dispose();
    const grownMB = (process.memoryUsage().rss - rss) / 2 ** 20;
    assert.ok(grownMB < 256, `the process grew by ${grownMB.toFixed(0)} MiB`);
    assert.equal(tf.memory().numTensors, 0);
  });

  it('releases the pool on request', () => {
    tf.tidy(() => tf.ones([1000]).add(1).dataSync());
    tf.backend().releasePool();
    const m = tf.memory();
    if (onGpu) {
      assert.equal(m.numBytesInGPUFree, 0);
      // Allocated counts whole pool size classes, so it is at least the tensors' bytes.
      assert.ok(m.numBytesInGPUAllocated >= m.numBytesInGPU);
    }
  });
});

describe(`limits on the ${backend} backend`, () => {
  it('refuses tensors larger than the backend can hold, before allocating', () => {
    const base = counts();
    for (const make of [() => tf.zeros([1e6, 1e6, 1e6]), () => tf.range(0, 1e13), () => tf.eye(1e7),
      () => tf.randomNormal([1e7, 1e7]), () => tf.ones([1e5]).reshape([1e5, 1]).add(tf.ones([1e7]))]) {
      assert.throws(() => tf.tidy(make), /is larger than the (cpu|wgpu) backend can hold|more elements than/);
    }
    assert.deepEqual(counts(), base);
  });

  it('out of memory is a JS error that names the size and the backend, and the engine goes on', () => {
    // More than the host has free, less than the backend's static limit: the memory would be
    // granted lazily and the process killed while filling it, so it is refused before.
    const total = require('node:os').totalmem();
    const base = counts();
    if (!onGpu) {
      const n = Math.floor(total / 16) - 1;
      assert.throws(() => tf.zeros([n, 4]), new RegExp('Out of memory on the cpu backend: ' +
        `a float32 tensor of shape \\[${n},4\\] needs ${n * 16} bytes, but only \\d+ bytes are available`));
      assert.throws(() => tf.eye(Math.floor(Math.sqrt(total / 4))), /Out of memory on the cpu backend/);
    }
    assert.throws(() => tf.range(0, Math.floor(total / 4) - 1),
      /Out of memory on the (cpu|wgpu) backend|larger than the wgpu backend can hold/);
    assert.deepEqual(counts(), base);
    assert.deepEqual(Array.from(tf.tidy(() => tf.ones([2]).add(1)).dataSync()), [2, 2]);
  });
});

describe(`reads on the ${backend} backend`, () => {
  it('data() started before dispose still resolves', async () => {
    let pending;
    tf.tidy(() => {
      const s = tf.scalar(5).mul(tf.tensor1d([1, 2]));
      pending = s.data();
    });
    assert.deepEqual(Array.from(await pending), [5, 10]);
  });

  it('data() and array() agree with dataSync() for every dtype', async () => {
    const ts = [tf.tensor2d([[1.5, 2], [3, -4]]), tf.tensor1d([7, -8], 'int32'), tf.tensor1d([true, false]), tf.zeros([0, 2])];
    for (const t of ts) {
      assert.deepEqual(await t.data(), t.dataSync());
      assert.deepEqual(await t.array(), t.arraySync());
    }
    tf.dispose(ts);
  });

  it('many reads in flight resolve in order of their values', async () => {
    const ts = Array.from({ length: 20 }, (_, i) => tf.fill([64], i));
    const all = await Promise.all(ts.map((t) => t.data()));
    all.forEach((v, i) => assert.equal(v[63], i));
    tf.dispose(ts);
  });

  it('data() of a disposed tensor rejects', async () => {
    const t = tf.scalar(1);
    t.dispose();
    await assert.rejects(t.data(), /Tensor is disposed/);
  });
});

describe('threads', () => {
  it('each worker thread has its own engine', async () => {
    const { Worker } = require('node:worker_threads');
    const before = tf.memory().numTensors;
    const src = `
      const { parentPort } = require('node:worker_threads');
      const tf = require(${JSON.stringify(path.join(__dirname, '..'))});
      if (process.env.TIDYTENSOR_BACKEND) tf.setBackend(process.env.TIDYTENSOR_BACKEND);
      const kept = tf.tensor1d([1, 2, 3]);
      const s = tf.tidy(() => tf.tensor2d([[1, 2], [3, 4]]).matMul(tf.eye(2)).sum());
      parentPort.postMessage({ value: s.dataSync()[0], numTensors: tf.memory().numTensors, kept: kept.sum().dataSync()[0] });`;
    const msg = await new Promise((resolve, reject) => {
      const w = new Worker(src, { eval: true });
      w.once('message', resolve);
      w.once('error', reject);
    });
    assert.deepEqual(msg, { value: 10, numTensors: 2, kept: 6 });
    assert.equal(tf.memory().numTensors, before, "the worker's tensors are not counted here");
  });

  it('terminating a worker or exiting with reads in flight is safe', () => {
    // In a child process: this aborted the process (a read settled a Promise of a gone worker).
    const pkg = JSON.stringify(path.join(__dirname, '..'));
    const workerSrc = `
      const tf = require(${pkg});
      if (process.env.TIDYTENSOR_BACKEND) tf.setBackend(process.env.TIDYTENSOR_BACKEND);
      const t = tf.ones([1 << 18]).add(1);
      for (let i = 0; i < 20; i++) t.data();
      require('node:worker_threads').parentPort.postMessage('reading');`;
    const main = `
      const { Worker } = require('node:worker_threads');
      let n = 0;
      const once = () => {
        const w = new Worker(${JSON.stringify(workerSrc)}, { eval: true });
        w.on('message', () => w.terminate());
        w.on('exit', () => { if (++n < 5) once(); else {
          const tf = require(${pkg});
          if (process.env.TIDYTENSOR_BACKEND) tf.setBackend(process.env.TIDYTENSOR_BACKEND);
          const t = tf.ones([1 << 18]);
          for (let i = 0; i < 20; i++) t.data();
          console.log('done');
          process.exit(0);
        } });
      };
      once();`;
    const r = spawnSync(process.execPath, ['-e', main], { encoding: 'utf8', timeout: 60000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'done');
  });

  it('a tensor handle sent to another thread names no tensor there', async () => {
    const { Worker } = require('node:worker_threads');
    const t = tf.tensor1d([1, 2, 3]);
    const src = `
      const { parentPort, workerData } = require('node:worker_threads');
      const tf = require(${JSON.stringify(path.join(__dirname, '..'))});
      if (process.env.TIDYTENSOR_BACKEND) tf.setBackend(process.env.TIDYTENSOR_BACKEND);
      const own = tf.tensor1d([7, 8, 9]); // this thread's first tensor
      const revived = Object.setPrototypeOf(workerData, tf.Tensor.prototype);
      const tryIt = (f) => { try { return f(); } catch (e) { return e.message; } };
      parentPort.postMessage({
        add: tryIt(() => tf.add(revived, 1).arraySync()),
        data: tryIt(() => Array.from(revived.dataSync())),
        disposed: revived.isDisposed,
        own: Array.from(own.dataSync()),
      });`;
    const msg = await new Promise((resolve, reject) => {
      const w = new Worker(src, { eval: true, workerData: t });
      w.once('message', resolve);
      w.once('error', reject);
    });
    assert.match(msg.add, /This tensor belongs to another thread/);
    assert.match(msg.data, /This tensor belongs to another thread/);
    assert.equal(msg.disposed, true);
    assert.deepEqual(msg.own, [7, 8, 9]);
    assert.deepEqual(Array.from(t.dataSync()), [1, 2, 3]);
    t.dispose();
  });

  it("tf.memory()'s byte fields count this thread's tensors only", async () => {
    const { Worker } = require('node:worker_threads');
    const big = tf.zeros([1000, 250]); // 1 MB here, none in the worker
    const src = `
      const { parentPort } = require('node:worker_threads');
      const tf = require(${JSON.stringify(path.join(__dirname, '..'))});
      if (process.env.TIDYTENSOR_BACKEND) tf.setBackend(process.env.TIDYTENSOR_BACKEND);
      const m0 = tf.memory();
      const t = tf.ones([10]);
      const m1 = tf.memory();
      parentPort.postMessage({ m0, m1 });
      t.dispose();`;
    const { m0, m1 } = await new Promise((resolve, reject) => {
      const w = new Worker(src, { eval: true });
      w.once('message', resolve);
      w.once('error', reject);
    });
    big.dispose();
    const field = onGpu ? 'numBytesInGPU' : 'numBytesInBackend';
    assert.equal(m0.numBytes, 0);
    assert.equal(m0[field], 0);
    assert.equal(m1[field], 40);
  });
});

describe('backends', () => {
  it('tensors move between backends when used', async () => {
    const names = tf.engine().backendNames();
    assert.ok(names.includes('cpu'));
    await tf.setBackend('cpu');
    const a = tf.tensor1d([1, 2, 3]);
    const b = a.reshape([3, 1]);
    for (const name of names) {
      await tf.setBackend(name);
      const c = tf.tidy(() => a.add(b.reshape([3])).mul(2));
      assert.deepEqual(Array.from(c.dataSync()), [4, 8, 12]);
      c.dispose();
    }
    assert.deepEqual(Array.from(b.dataSync()), [1, 2, 3]);
    tf.dispose([a, b]);
    await tf.setBackend(backend);
  });

  it('unknown backends are refused, known ones report themselves', async () => {
    await assert.rejects(tf.setBackend('nope'), /Backend name 'nope' not found in registry/);
    const info = tf.backend();
    assert.equal(info.name, backend);
    if (onGpu) {
      assert.equal(typeof info.adapter, 'string');
      assert.ok(info.maxStorageBufferBindingSize > 0);
    }
  });

  it('TIDYTENSOR_BACKEND chooses the default backend', () => {
    const run = (env) => spawnSync(process.execPath, ['-e', "process.stdout.write(require('.').getBackend())"], {
      cwd: path.join(__dirname, '..'), env: { ...process.env, ...env }, encoding: 'utf8',
    });
    assert.equal(run({ TIDYTENSOR_BACKEND: 'cpu' }).stdout, 'cpu');
    const unset = run({ TIDYTENSOR_BACKEND: '' });
    assert.equal(unset.status, 0, unset.stderr);
    // No hardware adapter here means cpu; on a real GPU it is wgpu.
    assert.ok(['cpu', 'wgpu'].includes(unset.stdout));
    if (onGpu) assert.equal(run({ TIDYTENSOR_BACKEND: 'wgpu' }).stdout, 'wgpu');
  });
});
