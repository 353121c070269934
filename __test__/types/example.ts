// Type-checked with `npx tsc --noEmit --strict -p __test__/types`: code written against the
// tfjs API must compile against tidytensor's typings.
import * as tf from 'tidytensor';

async function main(): Promise<void> {
  const a: tf.Tensor2D = tf.tensor2d([[1, 2], [3, 4]]);
  const b: tf.Tensor1D = tf.tensor1d([1, 2], 'int32');
  const s: tf.Scalar = tf.scalar(3);
  const t: tf.Tensor = tf.tensor([1, 2, 3, 4], [2, 2]);
  const f32 = tf.tensor(new Float32Array([1, 2]));

  const y = tf.tidy(() => {
    const c = a.matMul(a).add(1).square();
    return tf.sum(c, 1, true) as tf.Tensor2D;
  });
  const named = tf.tidy('named', () => ({ x: tf.relu(a), n: 5, list: [tf.neg(b)] }));
  console.log(named.n, named.x.shape, named.list[0].dtype);

  const z = tf.add(1, 2);
  const rs: tf.Tensor2D = tf.rsqrt(a);
  const sd = tf.squaredDifference(a, 1).floorDiv(2).rsqrt().toInt().toFloat().toBool();
  const buf: tf.TensorBuffer<tf.Rank.R1> = tf.buffer([2]);
  buf.set(3, 1);
  const fromBuf: tf.Tensor1D = buf.toTensor();
  const flags: boolean = tf.env().getBool('IS_NODE');
  tf.env().set('DEBUG', false);
  const bytes: Uint8Array = await a.bytes();
  const bs = a.bufferSync().get(0, 1);
  console.log(rs.shape, sd.dtype, fromBuf.size, flags, bytes.length, bs);
  tf.dispose([rs, sd, fromBuf]);
  const spectrum: tf.Tensor = tf.spectral.rfft(tf.tensor1d([1, 2, 3, 4]));
  const words = tf.string.stringSplit(tf.tensor1d(['a b', 'c']), tf.scalar(' '));
  const names: string[] = tf.tensor1d(['x', 'y']).dataSync<'string'>();
  console.log(tf.real(spectrum).shape, words.values.shape, names.length);
  const m: tf.Tensor = tf.mean(y, [0, 1]);
  const mx = a.max(-1, false);
  const am: tf.Tensor = tf.argMax(a, 1);
  const sm = tf.softmax(a);
  const r3 = a.reshape([1, 2, 2]);
  const ex = tf.expandDims(b, 0);
  const sq = tf.squeeze(ex);
  const tr = tf.transpose(a, [1, 0]);
  const cc = tf.concat([a, a], 1);
  const st = tf.stack([b, b]);
  const sl = tf.slice(a, [0, 1], [2, 1]);
  const sl2 = a.slice(1);
  const g = tf.gather(a, [1, 0]);
  const oh = tf.oneHot(tf.tensor1d([0, 1], 'int32'), 3);
  const e = tf.eye(3);
  const rn = tf.randomNormal([2, 2], 0, 1, 'float32', 42);
  const ru = tf.randomUniform([3], -1, 1);
  const ln = tf.linspace(0, 1, 5);
  const rg = tf.range(0, 10, 2, 'int32');
  const zs = tf.zeros([2, 3]);
  const os = tf.ones([2], 'bool');
  const fl = tf.fill([2], 7);
  const zl = tf.zerosLike(a);
  const cl = t.clone();
  const ca = t.cast('int32');

  const values: Float32Array | Int32Array | Uint8Array = a.dataSync();
  const asyncValues = await a.data();
  const nested = a.arraySync();
  const nestedAsync: number[][] = await a.array();
  console.log(values.length, asyncValues.length, nested[0][0], nestedAsync.length);
  console.log(a.toString(true), a.shape[0], a.rank, a.size, a.isDisposed, a.id);
  a.print();

  const v: tf.Variable<tf.Rank.R2> = tf.variable(tf.zeros([2, 2]) as tf.Tensor2D, true, 'w');
  v.assign(tf.ones([2, 2]) as tf.Tensor2D);
  console.log(v.name, v.trainable, v instanceof tf.Tensor);
  console.log(tf.engine().registeredVariables['w'] === v);

  const mem: tf.MemoryInfo = tf.memory();
  console.log(mem.numTensors, mem.numBytes, mem.numDataBuffers, mem.unreliable);

  const info: tf.ProfileInfo = await tf.profile(() => tf.square(s));
  console.log(info.newBytes, info.kernelNames, info.kernels[0]?.name);
  const timing = await tf.time(() => { tf.square(s).dispose(); });
  console.log(timing.wallMs, timing.kernelMs);

  tf.engine().startScope();
  tf.square(s);
  tf.engine().endScope();

  const dsq = tf.grad((x: tf.Tensor) => x.square().sum());
  const dx: tf.Tensor = dsq(tf.tensor1d([1, 2]));
  const { value: vg, grads: vgs } = tf.valueAndGrads((a: tf.Tensor, b: tf.Tensor) => a.mul(b).sum())([s, s]);
  const cg = tf.customGrad((x, save) => {
    (save as tf.GradSaveFunc)([x as tf.Tensor]);
    return { value: (x as tf.Tensor).square(), gradFunc: (dy, saved) => [dy.mul(saved[0].abs())] };
  });
  tf.dispose([dx, vg, ...vgs, cg(s)]);

  const wv = tf.variable(tf.tensor1d([1, 2]));
  const adam: tf.AdamOptimizer = tf.train.adam(0.01);
  const cost = adam.minimize(() => wv.square().sum(), true);
  const weights: tf.NamedTensor[] = await adam.getWeights();
  const sgd: tf.Optimizer = new tf.SGDOptimizer(0.1);
  sgd.applyGradients([{ name: wv.name, tensor: tf.ones([2]) }]);
  console.log(adam.iterations, sgd.getConfig(), weights.length);
  tf.dispose([cost!, weights[0].tensor]);
  adam.dispose();
  sgd.dispose();

  const mlp = tf.sequential({
    layers: [tf.layers.dense({ inputShape: [4], units: 8, activation: 'relu', kernelRegularizer: tf.regularizers.l2() }) ],
  });
  mlp.add(tf.layers.dense({ units: 3, activation: 'softmax' }));
  mlp.compile({ optimizer: 'adam', loss: 'categoricalCrossentropy', metrics: ['accuracy'] });
  const xs = tf.ones([2, 4]);
  const ys = tf.tensor2d([[1, 0, 0], [0, 1, 0]]);
  const hist: tf.History = await mlp.fit(xs, ys, { epochs: 1, verbose: 0, callbacks: [tf.callbacks.earlyStopping()] });
  const pred = mlp.predict(xs) as tf.Tensor;
  const inp = tf.input({ shape: [4] });
  const out = tf.layers.dense({ units: 2 }).apply(inp) as tf.SymbolicTensor;
  const fm: tf.LayersModel = tf.model({ inputs: inp, outputs: out });
  console.log(hist.history.loss, mlp.countParams(), fm.outputShape);
  tf.dispose([xs, ys, pred]);
  const saved: tf.io.SaveResult = await mlp.save(tf.io.withSaveHandler(async (a: tf.io.ModelArtifacts) =>
    ({ modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(a) })));
  const loaded: tf.LayersModel = await tf.loadLayersModel(tf.io.fromMemory({ modelTopology: mlp.toJSON(null, false) as object }));
  console.log(saved.modelArtifactsInfo.weightDataBytes, loaded.name);
  loaded.dispose();
  const freed: tf.DisposeResult = mlp.dispose();
  fm.dispose();
  console.log(freed.numDisposedVariables);

  const kept = tf.keep(tf.scalar(1));
  tf.dispose([kept, z, m, mx, am, sm, r3, ex, sq, tr, cc, st, sl, sl2, g, oh, e, rn, ru, ln, rg]);
  tf.dispose({ zs, os, fl, zl, cl, ca, f32, y, named });
  tf.disposeVariables();
  console.log(tf.getBackend(), await tf.setBackend('cpu'), tf.backend().name);
  await tf.ready();
}

// Graph models from elsewhere: an execution ended by a signal, loops bounded by a flag.
async function boundedGraph(model: tf.GraphModel, x: tf.Tensor): Promise<void> {
  tf.env().set('GRAPH_MAX_LOOP_ITERATIONS', 100000);
  const out = await model.executeAsync(x, ['out'], { signal: AbortSignal.timeout(5000) });
  tf.dispose(out);
  tf.dispose(await model.predictAsync(x, { signal: new AbortController().signal }));
}
void boundedGraph;

// The config objects' apply, as tfjs's.
function configObjects(): void {
  const w = tf.initializers.glorotUniform({ seed: 1 }).apply([2, 3]);
  const penalty: tf.Tensor = tf.regularizers.l2({ l2: 0.1 }).apply(w);
  tf.dispose([w, penalty, tf.constraints.maxNorm({ maxValue: 1 }).apply(w)]);
}
void configObjects;

main();

// A layer of one's own, as tfjs's documentation writes it, in a model trained with a
// JavaScript loss.
class Scale extends tf.layers.Layer {
  static className = 'Scale';
  private scale?: tf.LayerVariable;

  build(inputShape: tf.Shape | tf.Shape[]): void {
    const shape = inputShape as number[];
    this.scale = this.addWeight('scale', [shape[shape.length - 1]], 'float32', tf.initializers.ones());
  }

  call(inputs: tf.Tensor | tf.Tensor[]): tf.Tensor {
    const x = Array.isArray(inputs) ? inputs[0] : inputs;
    return tf.mul(x, this.scale!.read());
  }
}
tf.serialization.registerClass(Scale);
const custom = tf.sequential({ layers: [tf.layers.dense({ units: 4, inputShape: [3] }), new Scale({})] });
custom.compile({ optimizer: 'adam', loss: (yTrue: tf.Tensor, yPred: tf.Tensor) => tf.mean(tf.square(tf.sub(yTrue, yPred)), -1) });
const spec: tf.InputSpec = new tf.InputSpec({ minNDim: 2 });
void spec;

// A custom graph op.
tf.registerOp('MyOp', (node: tf.GraphNode) => tf.mul(node.inputs[0], node.attrs.alpha as number));
tf.deregisterOp('MyOp');
