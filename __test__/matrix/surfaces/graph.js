'use strict';
// Graph structure, attribute and control-flow mutations: a small GraphDef (MatMul, BiasAdd,
// Conv2D, Relu, a reduction) with each node's inputs, op and attributes replaced by bad or
// odd values, loaded on both libraries and predicted on a fixed input; and chains of nested If
// functions of growing depth (finite: an endless recursion or loop never returns on tfjs, so it
// lives in graph_limits.test.js instead).

const { predictGraph } = require('./io');

const b64 = (s) => Buffer.from(s).toString('base64');
const T = { type: 'DT_FLOAT' };
const dims = (d) => ({ dim: d.map((size) => ({ size: String(size) })) });
const konst = (name, shape) => ({ name, op: 'Const', attr: { dtype: T, value: { tensor: { dtype: 'DT_FLOAT', tensorShape: dims(shape) } } } });

const W = [0.5, -1, 2, 0.25, 1.5, -0.5];
const B = [0.1, -0.2, 0.3];
const K = [1, -1, 0.5, 2];
const INPUT = [[1, 2], [-3, 0.5]];

// x [2, 2] -> mm = x·w [2, 3] -> ba = mm + b -> relu -> reshape [1, 2, 3, 1] -> conv 2x2 ->
// sum over axis 1.
function nodes() {
  return [
    { name: 'x', op: 'Placeholder', attr: { dtype: T, shape: { shape: dims([2, 2]) } } },
    konst('w', [2, 3]),
    konst('b', [3]),
    konst('k', [2, 2, 1, 1]),
    { name: 'mm', op: 'MatMul', input: ['x', 'w'], attr: { T, transpose_a: { b: false }, transpose_b: { b: false } } },
    { name: 'ba', op: 'BiasAdd', input: ['mm', 'b'], attr: { T, data_format: { s: b64('NHWC') } } },
    { name: 'relu', op: 'Relu', input: ['ba'], attr: { T } },
    { name: 'shape', op: 'Const', attr: { dtype: { type: 'DT_INT32' }, value: { tensor: { dtype: 'DT_INT32', tensorShape: dims([4]) } } } },
    { name: 'r', op: 'Reshape', input: ['relu', 'shape'], attr: { T, Tshape: { type: 'DT_INT32' } } },
    {
      name: 'conv', op: 'Conv2D', input: ['r', 'k'],
      attr: {
        T, data_format: { s: b64('NHWC') }, padding: { s: b64('SAME') }, strides: { list: { i: ['1', '1', '1', '1'] } },
        dilations: { list: { i: ['1', '1', '1', '1'] } }, use_cudnn_on_gpu: { b: true },
      },
    },
    { name: 'axis', op: 'Const', attr: { dtype: { type: 'DT_INT32' }, value: { tensor: { dtype: 'DT_INT32', tensorShape: {} } } } },
    { name: 'out', op: 'Sum', input: ['conv', 'axis'], attr: { T, keep_dims: { b: false }, Tidx: { type: 'DT_INT32' } } },
  ];
}

function artifacts(topology) {
  const data = new Float32Array([...W, ...B, ...K]);
  const ints = new Int32Array([1, 2, 3, 1, 1]);
  const bytes = new Uint8Array(data.byteLength + ints.byteLength);
  bytes.set(new Uint8Array(data.buffer), 0);
  bytes.set(new Uint8Array(ints.buffer), data.byteLength);
  return {
    modelTopology: topology,
    format: 'graph-model',
    weightSpecs: [
      { name: 'w', shape: [2, 3], dtype: 'float32' }, { name: 'b', shape: [3], dtype: 'float32' },
      { name: 'k', shape: [2, 2, 1, 1], dtype: 'float32' }, { name: 'shape', shape: [4], dtype: 'int32' },
      { name: 'axis', shape: [], dtype: 'int32' },
    ],
    weightData: bytes.buffer,
  };
}

function predictCase(name, topology) {
  return {
    name: `graph(${name})`,
    fn: 'loadGraphModel',
    compare: 'value',
    build(tf) {
      const a = artifacts(topology());
      return () => predictGraph(tf, a, INPUT);
    },
  };
}

// Values an attribute may be replaced with.
const ATTR_VALUES = [
  ['{b: true}', { b: true }], ['{b: false}', { b: false }], ["{b: 'yes'}", { b: 'yes' }], ["{b: ''}", { b: '' }],
  ['{b: 1}', { b: 1 }], ['{b: 0}', { b: 0 }], ['{b: null}', { b: null }], ['{}', {}], ['null', null],
  ["{s: 'NHWC'}", { s: 'NHWC' }], ["{s: 'NHWC!'}", { s: 'NHWC!' }], ["{s: 'TkhXQw'}", { s: 'TkhXQw' }],
  ["{s: b64('NCHW')}", { s: b64('NCHW') }], ["{s: b64('VALID')}", { s: b64('VALID') }],
  ["{s: b64('BOGUS')}", { s: b64('BOGUS') }], ['{s: [78,72,87,67]}', { s: [78, 72, 87, 67] }], ['{s: 7}', { s: 7 }],
  ["{i: '2'}", { i: '2' }], ['{i: -1}', { i: -1 }], ["{i: 'x'}", { i: 'x' }], ['{f: 0.5}', { f: 0.5 }],
  ["{list: {i: ['1','2','2','1']}}", { list: { i: ['1', '2', '2', '1'] } }], ["{list: {i: ['1']}}", { list: { i: ['1'] } }],
  ["{list: {i: ['0','0','0','0']}}", { list: { i: ['0', '0', '0', '0'] } }], ['{list: {}}', { list: {} }],
  ["{list: {i: ['a','b','c','d']}}", { list: { i: ['a', 'b', 'c', 'd'] } }],
  ["{type: 'DT_INT32'}", { type: 'DT_INT32' }], ["{type: 'DT_BOGUS'}", { type: 'DT_BOGUS' }], ['{type: 3}', { type: 3 }],
];

// Per node, the attributes worth replacing.
const ATTRS = {
  mm: ['transpose_a', 'transpose_b', 'T'],
  ba: ['data_format'],
  conv: ['data_format', 'padding', 'strides', 'dilations'],
  out: ['keep_dims'],
  r: ['Tshape'],
};

function withNode(name, edit) {
  return () => {
    const list = nodes();
    const node = list.find((n) => n.name === name);
    edit(node, list);
    return { node: list, versions: { producer: 1 } };
  };
}

function attributeCases() {
  const out = [];
  for (const [node, attrs] of Object.entries(ATTRS)) {
    for (const a of attrs) {
      for (const [label, value] of ATTR_VALUES) {
        out.push(predictCase(`${node}.${a} = ${label}`, withNode(node, (n) => { n.attr[a] = value; })));
      }
      out.push(predictCase(`${node}.${a} deleted`, withNode(node, (n) => { delete n.attr[a]; })));
    }
  }
  return out;
}

function structureCases() {
  const same = () => ({ node: nodes(), versions: { producer: 1 } });
  const list = [
    ['valid', same],
    ['relu input missing', withNode('relu', (n) => { n.input = ['nowhere']; })],
    ['relu input :5', withNode('relu', (n) => { n.input = ['ba:5']; })],
    ['relu no inputs', withNode('relu', (n) => { delete n.input; })],
    ['relu input not a string', withNode('relu', (n) => { n.input = [7]; })],
    ['relu input a string', withNode('relu', (n) => { n.input = 'ba'; })],
    ['mm one input', withNode('mm', (n) => { n.input = ['x']; })],
    ['mm three inputs', withNode('mm', (n) => { n.input = ['x', 'w', 'b']; })],
    ['mm inputs swapped', withNode('mm', (n) => { n.input = ['w', 'x']; })],
    ['relu op unknown', withNode('relu', (n) => { n.op = 'NoSuchOp'; })],
    ['relu op empty', withNode('relu', (n) => { n.op = ''; })],
    ['relu op missing', withNode('relu', (n) => { delete n.op; })],
    ['relu op Sigmoid', withNode('relu', (n) => { n.op = 'Sigmoid'; })],
    ['relu attr null', withNode('relu', (n) => { n.attr = null; })],
    ['relu attr a list', withNode('relu', (n) => { n.attr = []; })],
    ['relu control input', withNode('relu', (n) => { n.input = ['ba', '^mm']; })],
    ['relu control input missing', withNode('relu', (n) => { n.input = ['ba', '^nowhere']; })],
    ['a cycle', withNode('mm', (n) => { n.input = ['x', 'relu']; })],
    ['self input', withNode('relu', (n) => { n.input = ['relu']; })],
    ['two nodes named relu', withNode('relu', (n, l) => { l.push({ ...n }); })],
    ['node without a name', withNode('relu', (n, l) => { l.push({ op: 'Relu', input: ['ba'], attr: { T } }); })],
    ['x shape unknown rank', withNode('x', (n) => { n.attr.shape = { shape: { unknownRank: true } }; })],
    ['x shape [-1, 2]', withNode('x', (n) => { n.attr.shape = { shape: dims([-1, 2]) }; })],
    ['x shape [3, 3]', withNode('x', (n) => { n.attr.shape = { shape: dims([3, 3]) }; })],
    ['x dtype int32', withNode('x', (n) => { n.attr.dtype = { type: 'DT_INT32' }; })],
    ['w Const shape [3, 2]', withNode('w', (n) => { n.attr.value.tensor.tensorShape = dims([3, 2]); })],
    ['node list empty', () => ({ node: [], versions: { producer: 1 } })],
    ['node not a list', () => ({ node: {}, versions: { producer: 1 } })],
    ['library functions not a list', () => ({ node: nodes(), library: { function: 7 } })],
    ['library function without signature', () => ({ node: nodes(), library: { function: [{ nodeDef: [] }] } })],
  ];
  return list.map(([label, topology]) => predictCase(label, topology));
}

// A chain of `depth` nested If functions around -a, run with executeAsync on c and a.
function nestedIfs(depth, cond) {
  const arg = (name, type) => ({ name, type });
  const signature = (name) => ({ name, inputArg: [arg('c', 'DT_BOOL'), arg('a', 'DT_FLOAT')], outputArg: [arg('r', 'DT_FLOAT')] });
  const branch = (f) => ({ then_branch: { func: { name: f } }, else_branch: { func: { name: f } } });
  const library = [];
  for (let k = 0; k < depth; k++) {
    library.push({
      signature: signature(`f${k}`),
      nodeDef: [{ name: 'if', op: 'StatelessIf', input: ['c', 'c', 'a'], attr: branch(`f${k + 1}`) }],
      ret: { r: 'if:output:0' },
    });
  }
  library.push({ signature: signature(`f${depth}`), nodeDef: [{ name: 'Neg', op: 'Neg', input: ['a'], attr: { T } }], ret: { r: 'Neg:y:0' } });
  const node = [
    { name: 'c', op: 'Placeholder', attr: { dtype: { type: 'DT_BOOL' }, shape: { shape: dims([]) } } },
    { name: 'a', op: 'Placeholder', attr: { dtype: T, shape: { shape: dims([2]) } } },
    { name: 'out', op: 'StatelessIf', input: ['c', 'c', 'a'], attr: branch('f0') },
  ];
  return {
    name: `graph(nested If functions, depth ${depth}, cond ${cond})`,
    fn: 'loadGraphModel',
    compare: 'value',
    build(tf) {
      const a = { modelTopology: { node, library: { function: library }, versions: { producer: 1 } }, format: 'graph-model', weightSpecs: [], weightData: new ArrayBuffer(0) };
      return async () => {
        const model = await tf.loadGraphModel(tf.io.fromMemory(a));
        const c = tf.scalar(cond, 'bool');
        const x = tf.tensor([1.5, -2]);
        try {
          return await model.executeAsync({ c, a: x }, 'out');
        } finally {
          tf.dispose([c, x]);
          model.dispose();
        }
      };
    },
  };
}

function depthCases() {
  const out = [];
  for (const depth of [0, 1, 2, 10, 100, 500]) {
    for (const cond of [true, false]) out.push(nestedIfs(depth, cond));
  }
  return out;
}

function cases() {
  return [...structureCases(), ...attributeCases(), ...depthCases()];
}

module.exports = { cases };
