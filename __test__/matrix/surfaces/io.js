'use strict';
// Model files and weight manifests: a small valid layers model's artifacts (two dense layers,
// zero initializers so a model without weights is deterministic too) and a tiny GraphDef, then
// generated mutations of the weight specs (each weight: missing, renamed, reshaped, retyped,
// quantized right and wrong), of the weight data (truncated, oversized, sharded, not a buffer)
// and of the topology, each loaded with tf.io.fromMemory on both libraries. A case returns the
// model's prediction on a fixed input and disposes the model, so it compares values and leaks.

const { toHalf } = require('../../helpers/float16');
const INPUT = [[1, 2], [-3, 0.5]];

// ---- the layers model ----------------------------------------------------------------------

const dense = (name, units, activation, extra) => ({
  class_name: 'Dense',
  config: {
    units, activation, use_bias: true, name, trainable: true,
    kernel_initializer: { class_name: 'Zeros', config: {} }, bias_initializer: { class_name: 'Zeros', config: {} },
    kernel_regularizer: null, bias_regularizer: null, activity_regularizer: null, kernel_constraint: null,
    bias_constraint: null, ...extra,
  },
});

const topology = () => ({
  class_name: 'Sequential',
  config: {
    name: 'io_matrix',
    layers: [dense('d1', 3, 'relu', { batch_input_shape: [null, 2], dtype: 'float32' }), dense('d2', 2, 'linear')],
  },
  keras_version: 'tfjs-layers 4.22.0',
  backend: 'tensor_flow.js',
});

const SHAPES = { 'd1/kernel': [2, 3], 'd1/bias': [3], 'd2/kernel': [3, 2], 'd2/bias': [2] };
const sizeOf = (shape) => shape.reduce((a, b) => a * b, 1);

// Deterministic float32 values, none zero, some negative.
const valuesOf = (n, seed) => Array.from({ length: n }, (_, i) => ((((i + seed) * 7) % 11) - 5 + 0.5) / 4);

const f32 = (values) => new Uint8Array(Float32Array.from(values).buffer);
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// The model's weights as entries {spec, values, bytes}: specs and data stay aligned when an
// entry is edited, removed or added.
function entries() {
  return Object.entries(SHAPES).map(([name, shape], i) => {
    const values = valuesOf(sizeOf(shape), i + 1);
    return { spec: { name, shape: shape.slice(), dtype: 'float32' }, values, bytes: f32(values) };
  });
}

const bufferOf = (u8) => u8.buffer.slice(u8.byteOffset, u8.byteOffset + u8.byteLength);

function assemble(list, extra = {}) {
  return {
    modelTopology: topology(),
    format: 'layers-model',
    generatedBy: 'TensorFlow.js tfjs-layers v4.22.0',
    convertedBy: null,
    weightSpecs: list.map((e) => e.spec),
    weightData: bufferOf(concat(list.map((e) => e.bytes))),
    ...extra,
  };
}

// Quantized bytes of `values` (min and scale chosen so the values are close).
function quantize(values, dtype) {
  const min = Math.min(...values);
  const max = Math.max(...values);
  const levels = dtype === 'uint8' ? 255 : 65535;
  const scale = (max - min) / levels;
  const q = values.map((v) => Math.round((v - min) / scale));
  const bytes = dtype === 'uint8' ? Uint8Array.from(q) : new Uint8Array(Uint16Array.from(q).buffer);
  return { bytes, min, scale };
}

// Mutations of one weight entry `e` (of `list`, at index i): [label, edit(list, i) -> list].
function weightMutations() {
  const set = (fn) => (list, i) => {
    fn(list[i], list, i);
    return list;
  };
  const spec = (fn) => set((e) => fn(e.spec));
  const n = (e) => sizeOf(e.spec.shape);
  return [
    ['missing', (list, i) => list.filter((_, j) => j !== i)],
    ['spec missing, bytes kept', (list, i) => {
      if (i + 1 < list.length) list[i + 1].bytes = concat([list[i].bytes, list[i + 1].bytes]);
      return list.filter((_, j) => j !== i);
    }],
    ['bytes missing', set((e) => { e.bytes = new Uint8Array(0); })],
    ['renamed', spec((s) => { s.name = 'nope/kernel'; })],
    ['renamed to the first weight', (list, i) => { list[i].spec.name = list[i === 0 ? 1 : 0].spec.name; return list; }],
    ['with a cell name', spec((s) => { const [l, w] = s.name.split('/'); s.name = `${l}/cell/${w}`; })],
    ['name missing', spec((s) => { delete s.name; })],
    ['name a number', spec((s) => { s.name = 5; })],
    ['shape flattened', spec((s) => { s.shape = [sizeOf(s.shape)]; })],
    ['shape reversed', spec((s) => { s.shape = s.shape.slice().reverse().concat(s.shape.length === 1 ? [1] : []); })],
    ['shape bigger, data too', set((e) => { e.spec.shape = [e.spec.shape[0] + 1, ...e.spec.shape.slice(1)]; e.bytes = concat([e.bytes, f32(valuesOf(sizeOf(e.spec.shape) - e.values.length, 9))]); })],
    ['shape bigger', spec((s) => { s.shape = [s.shape[0] + 1, ...s.shape.slice(1)]; })],
    ['shape scalar', spec((s) => { s.shape = []; })],
    ['shape empty dim', spec((s) => { s.shape = [0, ...s.shape.slice(1)]; })],
    ['shape negative', spec((s) => { s.shape = [-s.shape[0], ...s.shape.slice(1)]; })],
    ['shape two negatives', spec((s) => { s.shape = s.shape.length === 1 ? [-1, -s.shape[0]] : s.shape.map((d) => -d); })],
    ['shape NaN', spec((s) => { s.shape = [NaN, ...s.shape.slice(1)]; })],
    ['shape huge', spec((s) => { s.shape = [1e9, 1e9]; })],
    ['shape 2^31', spec((s) => { s.shape = [2 ** 31]; })],
    ['shape fractional', spec((s) => { s.shape = [s.shape[0] + 0.5, ...s.shape.slice(1)]; })],
    ['shape null', spec((s) => { s.shape = null; })],
    ['shape missing', spec((s) => { delete s.shape; })],
    ['shape a string', spec((s) => { s.shape = String(s.shape); })],
    ['dtype int32', spec((s) => { s.dtype = 'int32'; })],
    ['dtype bool', set((e) => { e.spec.dtype = 'bool'; e.bytes = Uint8Array.from(e.values, (v) => (v > 0 ? 1 : 0)); })],
    ['dtype bool, float32 data', spec((s) => { s.dtype = 'bool'; })],
    ['dtype float16', set((e) => { e.spec.dtype = 'float16'; e.bytes = new Uint8Array(Uint16Array.from(e.values, toHalf).buffer); })],
    ['dtype float64', spec((s) => { s.dtype = 'float64'; })],
    ['dtype string', spec((s) => { s.dtype = 'string'; })],
    ['dtype complex64', set((e) => { e.spec.dtype = 'complex64'; e.bytes = concat([e.bytes, e.bytes]); })],
    ['dtype missing', spec((s) => { delete s.dtype; })],
    ['dtype FLOAT32', spec((s) => { s.dtype = 'FLOAT32'; })],
    ['quantized uint8', set((e) => { const q = quantize(e.values, 'uint8'); e.bytes = q.bytes; e.spec.quantization = { dtype: 'uint8', min: q.min, scale: q.scale }; })],
    ['quantized uint16', set((e) => { const q = quantize(e.values, 'uint16'); e.bytes = q.bytes; e.spec.quantization = { dtype: 'uint16', min: q.min, scale: q.scale }; })],
    ['quantized float16', set((e) => { e.bytes = new Uint8Array(Uint16Array.from(e.values, toHalf).buffer); e.spec.quantization = { dtype: 'float16' }; })],
    ['quantized uint8 without min', set((e) => { const q = quantize(e.values, 'uint8'); e.bytes = q.bytes; e.spec.quantization = { dtype: 'uint8', scale: q.scale }; })],
    ['quantized uint8 without scale', set((e) => { e.bytes = quantize(e.values, 'uint8').bytes; e.spec.quantization = { dtype: 'uint8', min: 0 }; })],
    ['quantized uint8, scale NaN', set((e) => { e.bytes = quantize(e.values, 'uint8').bytes; e.spec.quantization = { dtype: 'uint8', min: 0, scale: NaN }; })],
    ['quantized int4', set((e) => { e.bytes = new Uint8Array(Math.ceil(n(e) / 2)); e.spec.quantization = { dtype: 'int4', min: 0, scale: 1 }; })],
    ['quantization null', spec((s) => { s.quantization = null; })],
    ['quantization without dtype', spec((s) => { s.quantization = { min: 0, scale: 1 }; })],
    ['quantized float16, dtype int32', set((e) => { e.bytes = new Uint8Array(Uint16Array.from(e.values, toHalf).buffer); e.spec.dtype = 'int32'; e.spec.quantization = { dtype: 'float16' }; })],
    ['quantized uint8, dtype int32', set((e) => { const q = quantize(e.values, 'uint8'); e.bytes = q.bytes; e.spec.dtype = 'int32'; e.spec.quantization = { dtype: 'uint8', min: q.min, scale: q.scale }; })],
    ['quantized uint8, dtype bool', set((e) => { const q = quantize(e.values, 'uint8'); e.bytes = q.bytes; e.spec.dtype = 'bool'; e.spec.quantization = { dtype: 'uint8', min: q.min, scale: q.scale }; })],
    ['group optimizer', spec((s) => { s.group = 'optimizer'; })],
  ];
}

// Loads `artifacts()` as a layers model on `tf`; the prediction on INPUT, the model disposed.
function layersCase(name, artifacts, options) {
  return {
    name: `io.loadLayersModel(${name})`,
    fn: 'loadLayersModel',
    compare: 'value',
    build(tf) {
      const a = artifacts();
      return async () => {
        const model = await tf.loadLayersModel(tf.io.fromMemory(a), options);
        try {
          return tf.tidy(() => model.predict(tf.tensor(INPUT)));
        } finally {
          model.dispose();
        }
      };
    },
  };
}

// Splits bytes at `cuts` into ArrayBuffers.
function shards(u8, cuts) {
  const out = [];
  let at = 0;
  for (const c of [...cuts, u8.length]) {
    out.push(bufferOf(u8.subarray(at, c)));
    at = c;
  }
  return out;
}

function layersCases() {
  const out = [];
  const add = (name, artifacts, options) => out.push(layersCase(name, artifacts, options));
  add('valid', () => assemble(entries()));
  add('valid, strict false', () => assemble(entries()), { strict: false });

  for (const [label, edit] of weightMutations()) {
    for (let i = 0; i < 4; i++) {
      const weight = Object.keys(SHAPES)[i];
      add(`${weight} ${label}`, () => assemble(edit(entries(), i)));
    }
  }
  // strict false with weights missing, extra or misnamed.
  for (const [label, edit] of weightMutations().filter(([l]) => /^(missing|renamed|name missing)$/.test(l))) {
    add(`d1/bias ${label}, strict false`, () => assemble(edit(entries(), 1)), { strict: false });
  }

  // The weight list as a whole.
  const all = () => concat(entries().map((e) => e.bytes));
  const withData = (data, extra) => () => ({ ...assemble(entries(), extra), weightData: data() });
  add('weightData short by 1 byte', withData(() => bufferOf(all().subarray(0, all().length - 1))));
  add('weightData short by 4 bytes', withData(() => bufferOf(all().subarray(0, all().length - 4))));
  add('weightData half', withData(() => bufferOf(all().subarray(0, 34))));
  add('weightData empty', withData(() => new ArrayBuffer(0)));
  add('weightData 1 byte more', withData(() => bufferOf(concat([all(), new Uint8Array([7])]))));
  add('weightData 1000 bytes more', withData(() => bufferOf(concat([all(), new Uint8Array(1000).fill(255)]))));
  add('weightData null', withData(() => null));
  add('weightData undefined, specs kept', withData(() => undefined));
  add('weightData a Uint8Array', withData(() => all()));
  add('weightData a Float32Array', withData(() => new Float32Array(bufferOf(all()))));
  add('weightData a string', withData(() => 'abc'));
  add('weightData a number', withData(() => 68));
  add('weightData an empty array', withData(() => []));
  add('weightData shards of 17 bytes', withData(() => shards(all(), [17, 34, 51])));
  add('weightData shards of 1 byte', withData(() => shards(all(), Array.from({ length: 67 }, (_, i) => i + 1))));
  add('weightData shards, the last smaller', withData(() => shards(all(), [30, 60])));
  add('weightData shards, the first larger', withData(() => shards(all(), [40, 50, 60])));
  add('weightData shards, the first empty', withData(() => shards(all(), [0])));
  add('weightData shards, one empty between', withData(() => shards(all(), [20, 20])));
  add('weightData shards, the last larger', withData(() => shards(all(), [4, 8])));
  add('weightData shards of unequal sizes', withData(() => shards(all(), [5, 23, 24])));
  add('weightData shards, short', withData(() => shards(all().subarray(0, 60), [30])));
  add('weightData shards, not buffers', withData(() => [bufferOf(all()), 'x']));
  add('weightSpecs null', () => ({ ...assemble(entries()), weightSpecs: null }));
  add('weightSpecs and weightData null', () => ({ ...assemble(entries()), weightSpecs: null, weightData: null }));
  add('weightSpecs empty', () => ({ ...assemble(entries()), weightSpecs: [] }));
  add('weightSpecs empty, strict false', () => ({ ...assemble(entries()), weightSpecs: [] }), { strict: false });
  add('weightSpecs an object', () => ({ ...assemble(entries()), weightSpecs: { name: 'd1/kernel' } }));
  add('weightSpecs a string', () => ({ ...assemble(entries()), weightSpecs: 'd1/kernel' }));
  add('weightSpecs with null', () => {
    const a = assemble(entries());
    a.weightSpecs.splice(2, 0, null);
    return a;
  });
  add('weightSpecs reordered with the data', () => assemble(entries().reverse()));
  add('weightSpecs reordered, data not', () => {
    const a = assemble(entries());
    a.weightSpecs = [a.weightSpecs[1], a.weightSpecs[0], a.weightSpecs[3], a.weightSpecs[2]];
    return a;
  });
  add('a weight twice', () => {
    const list = entries();
    return assemble([...list, { ...list[0], spec: { ...list[0].spec } }]);
  });
  add('an extra weight', () => assemble([...entries(), { spec: { name: 'd3/kernel', shape: [2], dtype: 'float32' }, bytes: f32([1, 2]) }]));
  add('an extra weight, strict false', () => assemble([...entries(), { spec: { name: 'd3/kernel', shape: [2], dtype: 'float32' }, bytes: f32([1, 2]) }]), { strict: false });
  add('an extra weight of unknown dtype', () => assemble([...entries(), { spec: { name: 'x', shape: [2], dtype: 'float64' }, bytes: new Uint8Array(16) }]));
  add('an extra string weight', () => assemble([...entries(), { spec: { name: 'x', shape: [1], dtype: 'string' }, bytes: Uint8Array.from([2, 0, 0, 0, 104, 105]) }]), { strict: false });
  add('an extra string weight, length past the end', () => assemble([...entries(), { spec: { name: 'x', shape: [1], dtype: 'string' }, bytes: Uint8Array.from([200, 0, 0, 0, 104]) }]), { strict: false });

  // The topology.
  const topo = (edit, extra) => () => {
    const a = assemble(entries(), extra);
    a.modelTopology = edit(a.modelTopology);
    return a;
  };
  const layer = (i, fn) => topo((t) => { fn(t.config.layers[i]); return t; });
  add('modelTopology missing', topo(() => undefined));
  add('modelTopology null', topo(() => null));
  add('modelTopology a string', topo(() => 'Sequential'));
  add('modelTopology a number', topo(() => 5));
  add('modelTopology true', topo(() => true));
  add('modelTopology an array', topo((t) => [t]));
  add('modelTopology empty', topo(() => ({})));
  add('modelTopology an ArrayBuffer', topo(() => new ArrayBuffer(8)));
  add('modelTopology in model_config', topo((t) => ({ model_config: t })));
  add('modelTopology without keras_version', topo((t) => { delete t.keras_version; return t; }));
  add('modelTopology class_name unknown', topo((t) => { t.class_name = 'Nope'; return t; }));
  add('modelTopology class_name missing', topo((t) => { delete t.class_name; return t; }));
  add('modelTopology config missing', topo((t) => { delete t.config; return t; }));
  add('modelTopology config a layer list', topo((t) => { t.config = t.config.layers; return t; }));
  add('modelTopology layers missing', topo((t) => { delete t.config.layers; return t; }));
  add('modelTopology layers an object', topo((t) => { t.config.layers = { 0: t.config.layers[0] }; return t; }));
  add('modelTopology layers empty', topo((t) => { t.config.layers = []; return t; }));
  add('modelTopology layers empty, no weights', topo((t) => { t.config.layers = []; return t; }, { weightSpecs: undefined, weightData: undefined }));
  add('modelTopology without weights', () => ({ modelTopology: topology() }));
  add('layer class_name unknown', layer(1, (l) => { l.class_name = 'Fancy'; }));
  add('layer class_name missing', layer(0, (l) => { delete l.class_name; }));
  add('layer config null', layer(1, (l) => { l.config = null; }));
  add('layer config missing', layer(0, (l) => { delete l.config; }));
  add('layer null', topo((t) => { t.config.layers[1] = null; return t; }));
  add('layer units 4', layer(1, (l) => { l.config.units = 4; }));
  add('layer units 0', layer(1, (l) => { l.config.units = 0; }));
  add('layer units negative', layer(1, (l) => { l.config.units = -2; }));
  add('layer units a string', layer(1, (l) => { l.config.units = 'two'; }));
  add('layer activation unknown', layer(0, (l) => { l.config.activation = 'nope'; }));
  add('layer use_bias false', layer(1, (l) => { l.config.use_bias = false; }));
  add('layer dtype int32', layer(1, (l) => { l.config.dtype = 'int32'; }));
  add('first layer dtype int32', layer(0, (l) => { l.config.dtype = 'int32'; }));
  add('layer names the same', layer(1, (l) => { l.config.name = 'd1'; }));
  add('layer batch_input_shape missing', layer(0, (l) => { delete l.config.batch_input_shape; }));
  add('layer batch_input_shape wider', layer(0, (l) => { l.config.batch_input_shape = [null, 3]; }));
  add('layer batch_input_shape a string', layer(0, (l) => { l.config.batch_input_shape = 'x'; }));
  add('trainingConfig garbage', () => ({ ...assemble(entries()), trainingConfig: { loss: 'nope', optimizer_config: { class_name: 'Nope', config: {} } } }));
  add('userDefinedMetadata a string', () => ({ ...assemble(entries()), userDefinedMetadata: 'x' }));
  return out;
}

// ---- the graph model -----------------------------------------------------------------------

const T = { type: 'DT_FLOAT' };
const constNode = (name, shape) => ({
  name, op: 'Const',
  attr: { value: { tensor: { dtype: 'DT_FLOAT', tensorShape: { dim: shape.map((d) => ({ size: String(d) })) } } }, dtype: T },
});

// x [-1, 2] -> MatMul w [2, 3] -> BiasAdd b [3] -> Relu -> Identity.
const graph = () => ({
  node: [
    { name: 'x', op: 'Placeholder', attr: { dtype: T, shape: { shape: { dim: [{ size: '-1' }, { size: '2' }] } } } },
    constNode('w', [2, 3]),
    constNode('b', [3]),
    { name: 'mm', op: 'MatMul', input: ['x', 'w'], attr: { T, transpose_a: { b: false }, transpose_b: { b: false } } },
    { name: 'add', op: 'BiasAdd', input: ['mm', 'b'], attr: { T, data_format: { s: Buffer.from('NHWC').toString('base64') } } },
    { name: 'relu', op: 'Relu', input: ['add'], attr: { T } },
    { name: 'out', op: 'Identity', input: ['relu'], attr: { T } },
  ],
  versions: { producer: 1 },
});

function graphArtifacts(edit = (a) => a) {
  const w = valuesOf(6, 1);
  const b = valuesOf(3, 2);
  return edit({
    modelTopology: graph(),
    format: 'graph-model',
    weightSpecs: [{ name: 'w', shape: [2, 3], dtype: 'float32' }, { name: 'b', shape: [3], dtype: 'float32' }],
    weightData: bufferOf(concat([f32(w), f32(b)])),
  }, { w, b });
}

// A graph model loaded from `artifacts` with `tf`, predicting `input`, then disposed.
async function predictGraph(tf, artifacts, input) {
  const model = await tf.loadGraphModel(tf.io.fromMemory(artifacts));
  try {
    return tf.tidy(() => model.predict(tf.tensor(input)));
  } finally {
    model.dispose();
  }
}

function graphCase(name, edit) {
  return {
    name: `io.loadGraphModel(${name})`,
    fn: 'loadGraphModel',
    compare: 'value',
    build(tf) {
      const a = graphArtifacts(edit);
      return () => predictGraph(tf, a, INPUT);
    },
  };
}

function graphCases() {
  const spec = (i, fn) => (a) => { fn(a.weightSpecs[i]); return a; };
  const nodes = (fn) => (a) => { fn(a.modelTopology.node); return a; };
  const data = (fn) => (a) => { a.weightData = fn(new Uint8Array(a.weightData)); return a; };
  return [
    ['valid', (a) => a],
    ['w missing', (a) => { a.weightSpecs.shift(); a.weightData = a.weightData.slice(24); return a; }],
    ['b renamed', spec(1, (s) => { s.name = 'nope'; })],
    ['w dtype int32', spec(0, (s) => { s.dtype = 'int32'; })],
    ['w dtype float64', spec(0, (s) => { s.dtype = 'float64'; })],
    ['w shape [3, 2]', spec(0, (s) => { s.shape = [3, 2]; })],
    ['w shape [2, 4]', spec(0, (s) => { s.shape = [2, 4]; })],
    ['w shape negative', spec(0, (s) => { s.shape = [-2, 3]; })],
    ['b shape huge', spec(1, (s) => { s.shape = [1e9, 1e9]; })],
    ['w quantized uint8', (a, { w }) => {
      const q = quantize(w, 'uint8');
      a.weightSpecs[0].quantization = { dtype: 'uint8', min: q.min, scale: q.scale };
      a.weightData = bufferOf(concat([q.bytes, new Uint8Array(a.weightData.slice(24))]));
      return a;
    }],
    ['w quantized int4', spec(0, (s) => { s.quantization = { dtype: 'int4', min: 0, scale: 1 }; })],
    ['weightData short', data((u) => bufferOf(u.subarray(0, 30)))],
    ['weightData empty', data(() => new ArrayBuffer(0))],
    ['weightData longer', data((u) => bufferOf(concat([u, new Uint8Array(9)])))],
    ['weightData shards, the last larger', data((u) => shards(u, [4, 8]))],
    ['weightData shards of unequal sizes', data((u) => shards(u, [10, 11, 30]))],
    ['weightData null', (a) => { a.weightData = null; return a; }],
    ['weightSpecs null', (a) => { a.weightSpecs = null; return a; }],
    ['modelTopology missing', (a) => { delete a.modelTopology; return a; }],
    ['modelTopology a string', (a) => { a.modelTopology = 'graph'; return a; }],
    ['modelTopology empty', (a) => { a.modelTopology = {}; return a; }],
    ['node missing its op', nodes((n) => { delete n[3].op; })],
    ['node op unknown', nodes((n) => { n[5].op = 'NoSuchOp'; })],
    ['node input unknown', nodes((n) => { n[3].input = ['x', 'nope']; })],
    ['node list null', (a) => { a.modelTopology.node = null; return a; }],
  ].map(([name, edit]) => graphCase(name, edit));
}

function cases() {
  return [...layersCases(), ...graphCases()];
}

module.exports = { cases, predictGraph };
