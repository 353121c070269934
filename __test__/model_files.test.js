'use strict';
// Hostile model files: a model file names its weight files, so it may only read regular files
// inside its own folder (or folders the program allows), and only the bytes its manifest's
// weights take. A sentinel file next to the model folder proves that nothing outside is ever
// opened, whatever the manifest says ('../sentinel.bin', an absolute path, a symlink). Also the
// weight-data bugs that gave silently wrong models: shards of unequal sizes, and a float32
// weight declared int32 or bool (tfjs's error, nothing left allocated). Compared with
// @tensorflow/tfjs 4.22 (`tfo`) where it defines the behaviour.
const { it, describe, after } = require('node:test');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { tt, tfo, assert } = require('./helpers/setup');

const tmpRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tidytensor-model-files-')));
after(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let count = 0;

// ---- a small layers model, written by hand (the same artifacts for both libraries) ---------

const dense = (name, units, extra) => ({
  class_name: 'Dense',
  config: {
    units, activation: 'linear', use_bias: true, name, trainable: true,
    kernel_initializer: { class_name: 'Zeros', config: {} }, bias_initializer: { class_name: 'Zeros', config: {} },
    kernel_regularizer: null, bias_regularizer: null, activity_regularizer: null, kernel_constraint: null,
    bias_constraint: null, ...extra,
  },
});
const TOPOLOGY = {
  class_name: 'Sequential',
  config: { name: 'files', layers: [dense('d1', 3, { batch_input_shape: [null, 2], dtype: 'float32' }), dense('d2', 2)] },
  keras_version: 'tfjs-layers 4.22.0',
  backend: 'tensor_flow.js',
};
const SPECS = [
  { name: 'd1/kernel', shape: [2, 3], dtype: 'float32' },
  { name: 'd1/bias', shape: [3], dtype: 'float32' },
  { name: 'd2/kernel', shape: [3, 2], dtype: 'float32' },
  { name: 'd2/bias', shape: [2], dtype: 'float32' },
];
// 17 values, none zero (a weight read as zeros shows).
const WEIGHTS = Buffer.from(Float32Array.from({ length: 17 }, (_, i) => (i % 3 === 0 ? -1 : 1) * (0.25 + i / 8)).buffer);
const INPUT = [[1, 2], [-3, 0.5]];

const artifacts = (edit = {}) => ({
  modelTopology: JSON.parse(JSON.stringify(TOPOLOGY)),
  weightSpecs: JSON.parse(JSON.stringify(SPECS)),
  weightData: WEIGHTS.buffer.slice(WEIGHTS.byteOffset, WEIGHTS.byteOffset + WEIGHTS.byteLength),
  ...edit,
});

// The model's prediction on INPUT, as plain numbers (the model and tensors disposed).
function predict(tf, model) {
  const y = tf.tidy(() => model.predict(tf.tensor(INPUT)));
  const values = Array.from(y.dataSync());
  y.dispose();
  model.dispose();
  return values;
}

// tfjs's prediction from the artifacts with one weight buffer.
let wanted = null;
async function want() {
  if (wanted == null) wanted = predict(tfo, await tfo.loadLayersModel(tfo.io.fromMemory(artifacts())));
  return wanted;
}

function close(got, expected, what) {
  assert.equal(got.length, expected.length, `${what}: length`);
  got.forEach((g, i) => assert.ok(Math.abs(g - expected[i]) <= 1e-5 * Math.max(1, Math.abs(expected[i])),
    `${what}[${i}]: got ${g}, expected ${expected[i]}`));
}

// ---- a model folder next to a sentinel file ------------------------------------------------

// <tmp>/case-N/{model/model.json, model/weights.bin, sentinel.bin}: `manifest(paths)` edits the
// weights manifest. Returns {root, dir, json, sentinel}.
function modelFolder(paths = ['weights.bin'], { weights = WEIGHTS, specs = SPECS } = {}) {
  const root = path.join(tmpRoot, `case-${count++}`);
  const dir = path.join(root, 'model');
  fs.mkdirSync(dir, { recursive: true });
  const sentinel = path.join(root, 'sentinel.bin');
  fs.writeFileSync(sentinel, WEIGHTS);
  fs.writeFileSync(path.join(dir, 'weights.bin'), weights);
  const json = path.join(dir, 'model.json');
  fs.writeFileSync(json, JSON.stringify({
    modelTopology: TOPOLOGY, format: 'layers-model', weightsManifest: [{ paths, weights: specs }],
  }));
  return { root, dir, json, sentinel };
}

// Every path `fs` is asked to open or read while `fn` runs (the ways handlers.js could read a file).
async function openedDuring(fn) {
  const seen = [];
  const spies = [
    [fs, ['openSync', 'readFileSync', 'createReadStream', 'open', 'readFile']],
    [fs.promises, ['open', 'readFile']],
  ];
  const saved = [];
  for (const [obj, names] of spies) {
    for (const name of names) {
      const real = obj[name];
      saved.push([obj, name, real]);
      obj[name] = function spy(p, ...rest) {
        seen.push(String(p));
        return real.call(this, p, ...rest);
      };
    }
  }
  try {
    await fn();
  } finally {
    for (const [obj, name, real] of saved) obj[name] = real;
  }
  return seen;
}

// The bytes read through file handles (fs.promises.open's, as handlers.js reads weight files)
// while `fn` runs.
async function bytesReadDuring(fn) {
  const handle = await fs.promises.open(__filename);
  const proto = Object.getPrototypeOf(handle);
  await handle.close();
  const real = proto.read;
  let total = 0;
  proto.read = async function spy(...args) {
    const r = await real.apply(this, args);
    total += r.bytesRead;
    return r;
  };
  try {
    await fn();
  } finally {
    proto.read = real;
  }
  return total;
}

// Loads `what` expecting a rejection matching `patterns`; asserts that nothing outside `m.dir`
// was opened (the model.json and files inside only) and no tensor is left.
async function refused(m, load, ...patterns) {
  const before = tt.memory().numTensors;
  let error = null;
  const opened = await openedDuring(async () => {
    try {
      const model = await load();
      model.dispose();
    } catch (e) {
      error = e;
    }
  });
  assert.ok(error instanceof Error, `expected the load to be refused, it ${error == null ? 'succeeded' : `threw ${error}`}`);
  for (const p of patterns) assert.match(error.message, p);
  for (const p of opened) {
    assert.ok(p.startsWith(m.dir + path.sep), `opened ${p}, outside the model folder ${m.dir}`);
  }
  assert.ok(!opened.some((p) => p.includes('sentinel')), `the sentinel was opened: ${opened}`);
  assert.equal(tt.memory().numTensors, before, 'tensors left on tidytensor');
  return error;
}

const esc = (s) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

describe('weight files are confined to the model folder', () => {
  it('the model folder loads, with the files it opened all inside it', async () => {
    const m = modelFolder();
    let values;
    const opened = await openedDuring(async () => { values = predict(tt, await tt.loadLayersModel(`file://${m.json}`)); });
    close(values, await want(), 'prediction');
    assert.deepEqual(opened.sort(), [m.json, path.join(m.dir, 'weights.bin')].sort());
  });

  it("'..' escaping the folder is refused, naming the path and the folder, and nothing is opened", async () => {
    for (const p of ['../sentinel.bin', '../model/../sentinel.bin', 'sub/../../sentinel.bin', '..']) {
      const m = modelFolder([p]);
      const e = await refused(m, () => tt.loadLayersModel(m.json), esc(`'${p}'`), esc(m.dir), /outside the model's folder/);
      assert.match(e.message, /allowedWeightFolders/);
    }
  });

  it('an absolute path outside the folder is refused (also /dev/zero, /etc/passwd)', async () => {
    for (const p of [null, '/dev/zero', '/etc/passwd']) {
      const m = modelFolder();
      const target = p || m.sentinel;
      fs.writeFileSync(m.json, JSON.stringify({ modelTopology: TOPOLOGY, weightsManifest: [{ paths: [target], weights: SPECS }] }));
      await refused(m, () => tt.loadLayersModel(`file://${m.json}`), esc(target), /outside the model's folder/);
    }
  });

  it('a symlink inside the folder whose real path is outside is refused', async () => {
    const m = modelFolder(['link.bin']);
    fs.symlinkSync(m.sentinel, path.join(m.dir, 'link.bin'));
    await refused(m, () => tt.loadLayersModel(m.json), /'link\.bin'/, esc(`resolves to ${m.sentinel}`), /outside/);
    // A symlinked folder inside the model folder that leads out of it.
    const n = modelFolder(['out/sentinel.bin']);
    fs.symlinkSync(n.root, path.join(n.dir, 'out'));
    await refused(n, () => tt.loadLayersModel(n.json), /resolves to/, /outside/);
    // To a device.
    const d = modelFolder(['zero.bin']);
    fs.symlinkSync('/dev/zero', path.join(d.dir, 'zero.bin'));
    await refused(d, () => tt.loadLayersModel(d.json), /resolves to \/dev\/zero/);
  });

  it('a symlink that stays inside the folder loads', async () => {
    const m = modelFolder(['alias.bin']);
    fs.symlinkSync('weights.bin', path.join(m.dir, 'alias.bin'));
    close(predict(tt, await tt.loadLayersModel(m.json)), await want(), 'prediction');
  });

  it('only regular files: a directory and a FIFO are refused without opening them', async () => {
    const m = modelFolder(['sub']);
    fs.mkdirSync(path.join(m.dir, 'sub'));
    await refused(m, () => tt.loadLayersModel(m.json), /'sub'/, /not a regular file/);
    const f = modelFolder(['fifo']);
    const made = spawnSync('mkfifo', [path.join(f.dir, 'fifo')]);
    if (made.status === 0) await refused(f, () => tt.loadLayersModel(f.json), /'fifo'/, /not a regular file/);
    // /dev/zero, even from an allowed folder.
    const z = modelFolder(['/dev/zero']);
    await refused(z, () => tt.loadLayersModel(z.json, { allowedWeightFolders: ['/dev'] }), /not a regular file/);
  });

  it('a path that is not a file name is refused', async () => {
    for (const p of [3, null, '', 'a\0b']) {
      const m = modelFolder([p]);
      await refused(m, () => tt.loadLayersModel(m.json), /not a file name/);
    }
  });

  it('every path is checked before any weight file is opened', async () => {
    const m = modelFolder(['weights.bin', '../sentinel.bin']);
    const opened = await openedDuring(() => tt.loadLayersModel(m.json).catch(() => null));
    assert.deepEqual(opened, [m.json]);
  });

  it('allowedWeightFolders allows other folders (loadLayersModel, loadGraphModel, tf.io.fileSystem)', async () => {
    const m = modelFolder(['../shared/w.bin']);
    const shared = path.join(m.root, 'shared');
    fs.mkdirSync(shared);
    fs.writeFileSync(path.join(shared, 'w.bin'), WEIGHTS);
    await refused(m, () => tt.loadLayersModel(m.json), /outside the model's folder/);
    close(predict(tt, await tt.loadLayersModel(m.json, { allowedWeightFolders: [shared] })), await want(), 'allowed');
    close(predict(tt, await tt.loadLayersModel(tt.io.fileSystem(m.json, { allowedWeightFolders: [`file://${shared}`] }))),
      await want(), 'fileSystem');
    // An absolute path into an allowed folder; a symlink into it.
    const abs = modelFolder([path.join(shared, 'w.bin')]);
    await refused(abs, () => tt.loadLayersModel(abs.json), /outside/);
    close(predict(tt, await tt.loadLayersModel(abs.json, { allowedWeightFolders: [shared] })), await want(), 'absolute');
    const link = modelFolder(['link.bin']);
    fs.symlinkSync(path.join(shared, 'w.bin'), path.join(link.dir, 'link.bin'));
    await refused(link, () => tt.loadLayersModel(link.json), /resolves to/);
    close(predict(tt, await tt.loadLayersModel(link.json, { allowedWeightFolders: [shared] })), await want(), 'symlink');
    // Still confined: the sentinel is outside the allowed folders too.
    const s = modelFolder(['../sentinel.bin']);
    await refused(s, () => tt.loadLayersModel(s.json, { allowedWeightFolders: [path.join(s.root, 'nope')] }),
      /outside the model's folder .* and the allowed folders/);
    await assert.rejects(tt.loadLayersModel(m.json, { allowedWeightFolders: '/tmp' }), /allowedWeightFolders must be an array/);
  });

  it('graph models and tf.io.loadWeights are confined too', async () => {
    const m = modelFolder(['../sentinel.bin']);
    fs.writeFileSync(m.json, JSON.stringify({
      format: 'graph-model',
      modelTopology: { node: [{ name: 'x', op: 'Placeholder', attr: { dtype: { type: 'DT_FLOAT' } } }] },
      weightsManifest: [{ paths: ['../sentinel.bin'], weights: [{ name: 'w', shape: [2], dtype: 'float32' }] }],
    }));
    await refused(m, () => tt.loadGraphModel(`file://${m.json}`), /outside the model's folder/);
    const before = tt.memory().numTensors;
    await assert.rejects(tt.io.loadWeights([{ paths: ['../sentinel.bin'], weights: SPECS }], m.dir), /outside the model's folder/);
    const got = await tt.io.loadWeights([{ paths: ['weights.bin'], weights: SPECS }], m.dir);
    assert.deepEqual(Object.keys(got), SPECS.map((s) => s.name));
    tt.dispose(Object.values(got));
    assert.equal(tt.memory().numTensors, before);
  });
});

describe('weight file sizes are checked before reading', () => {
  it('a truncated file is refused before its bytes are read', async () => {
    const m = modelFolder(['weights.bin'], { weights: WEIGHTS.subarray(0, 62) });
    const read = await bytesReadDuring(() => refused(m, () => tt.loadLayersModel(m.json), /truncated/, /d2\/bias/, /hold 62 bytes/));
    assert.equal(read, 0);
  });

  it('a huge file: only the bytes the manifest needs are read', async () => {
    const m = modelFolder();
    const big = path.join(m.dir, 'weights.bin');
    fs.appendFileSync(big, Buffer.alloc(7));
    fs.truncateSync(big, 64 * 2 ** 30); // sparse: 64 GiB on paper, no disk used
    let values;
    const read = await bytesReadDuring(async () => { values = predict(tt, await tt.loadLayersModel(m.json)); });
    close(values, await want(), 'prediction');
    assert.equal(read, WEIGHTS.length, 'only the weights\' bytes are read');
  });

  it('string weights are sized by their length prefixes', async () => {
    const m = modelFolder();
    const strings = ['a', 'héllo', ''];
    const bytes = Buffer.concat(strings.flatMap((s) => {
      const b = Buffer.from(s);
      const n = Buffer.alloc(4);
      n.writeUInt32LE(b.length);
      return [n, b];
    }));
    fs.writeFileSync(path.join(m.dir, 's.bin'), Buffer.concat([bytes, Buffer.from([1, 0, 0, 0, 9, 9, 9])]));
    const specs = [{ name: 's', shape: [3], dtype: 'string' }, { name: 'i', shape: [1], dtype: 'int32' }];
    const write = (paths) => fs.writeFileSync(m.json, JSON.stringify({ modelTopology: TOPOLOGY, weightsManifest: [{ paths, weights: specs }] }));
    write(['s.bin']);
    const loaded = await tt.io.fileSystem(m.json).load();
    assert.equal(loaded.weightData.byteLength, bytes.length + 4, 'the bytes past the weights are not read');
    const got = tt.io.decodeWeights(loaded.weightData, loaded.weightSpecs);
    assert.deepEqual(got.s.dataSync().map((b) => Buffer.from(b).toString()), strings);
    assert.deepEqual(Array.from(got.i.dataSync()), [1]);
    tt.dispose(Object.values(got));
    // A length prefix past the end of the file.
    fs.writeFileSync(path.join(m.dir, 's.bin'), Buffer.from([200, 0, 0, 0, 1, 2]));
    await assert.rejects(tt.io.fileSystem(m.json).load(), /truncated: weight 's' needs bytes 0\.\.204/);
  });
});

describe('weight data read right', () => {
  it('shards of unequal sizes, weights straddling them, load the right values (tfjs 4.22 reads zeros)', async () => {
    const expected = await want();
    for (const cuts of [[4, 8], [7, 20], [0, 30], [30], [55], [1, 2, 3, 40]]) {
      const shards = [];
      let at = 0;
      for (const c of [...cuts, WEIGHTS.length]) {
        shards.push(WEIGHTS.buffer.slice(WEIGHTS.byteOffset + at, WEIGHTS.byteOffset + c));
        at = c;
      }
      const before = tt.memory().numTensors;
      close(predict(tt, await tt.loadLayersModel(tt.io.fromMemory(artifacts({ weightData: shards })))), expected, `cuts ${cuts}`);
      assert.equal(tt.memory().numTensors, before);
    }
    // tfjs divides by the first shard's size when only the last one differs: the rest reads as zeros.
    const shards = [WEIGHTS.buffer.slice(0, 4), WEIGHTS.buffer.slice(4, 8), WEIGHTS.buffer.slice(8)];
    const theirs = new tfo.io.CompositeArrayBuffer(shards);
    assert.deepEqual(Array.from(new Uint8Array(theirs.slice(20, 24))), [0, 0, 0, 0]);
    const ours = new tt.io.CompositeArrayBuffer(shards);
    assert.deepEqual(new Uint8Array(ours.slice(20, 24)), new Uint8Array(WEIGHTS.buffer.slice(20, 24)));
  });

  it('the same shards as files of unequal sizes', async () => {
    const m = modelFolder(['a.bin', 'b.bin', 'c.bin']);
    fs.writeFileSync(path.join(m.dir, 'a.bin'), WEIGHTS.subarray(0, 4));
    fs.writeFileSync(path.join(m.dir, 'b.bin'), WEIGHTS.subarray(4, 8));
    fs.writeFileSync(path.join(m.dir, 'c.bin'), WEIGHTS.subarray(8));
    close(predict(tt, await tt.loadLayersModel(m.json)), await want(), 'prediction');
  });

  it('a float32 weight declared int32 or bool is refused with tfjs\'s error, nothing left allocated', async () => {
    for (const [i, dtype] of [[0, 'int32'], [0, 'bool'], [3, 'int32'], [2, 'bool']]) {
      const specs = JSON.parse(JSON.stringify(SPECS));
      specs[i].dtype = dtype;
      // bool takes 1 byte a value: the data is cut to match.
      const bytes = dtype === 'bool' ? Buffer.concat([WEIGHTS.subarray(0, specs.slice(0, i).reduce((n, s) => n + 4 * s.shape.reduce((a, b) => a * b, 1), 0)),
        Buffer.alloc(specs[i].shape.reduce((a, b) => a * b, 1), 1), WEIGHTS.subarray(specs.slice(0, i + 1).reduce((n, s) => n + 4 * s.shape.reduce((a, b) => a * b, 1), 0))]) : WEIGHTS;
      const a = () => artifacts({ weightSpecs: JSON.parse(JSON.stringify(specs)), weightData: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) });
      const theirs = await tfo.loadLayersModel(tfo.io.fromMemory(a())).then(() => null, (e) => e.message);
      assert.equal(theirs, `dtype of the new value (${dtype}) and previous value (float32) must match`);
      const before = tt.memory();
      await assert.rejects(tt.loadLayersModel(tt.io.fromMemory(a())), { message: theirs });
      assert.deepEqual([tt.memory().numTensors, tt.memory().numBytes], [before.numTensors, before.numBytes]);
      // From files too.
      const m = modelFolder(['weights.bin'], { weights: bytes, specs });
      await refused(m, () => tt.loadLayersModel(m.json), esc(theirs));
    }
  });
});
