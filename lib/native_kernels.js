'use strict';
// tfjs's kernel configs for tidytensor's native kernels: what tf.getKernel(name, 'cpu' | 'wgpu')
// and tf.getKernelsForBackend answer, and what tf.engine().runKernel runs. Each kernelFunc takes
// tfjs's kernel inputs and attributes ({inputs, attrs}) and runs the public op, whose kernel is
// native (the op lives once, in crates/core); this file only maps tfjs's kernel arguments.

// The tf namespace, read when a kernel runs: index.js sets it once built (setNamespace), as the
// adapters run the public ops, which sit above the registries.
let namespace = null;
const tf = () => namespace;

function setNamespace(tf) {
  namespace = tf;
}

// The ops of the core's elementwise tables (native.elementwiseOps()), under their tfjs kernel
// names: the op's name with a capital, but for mul and div; logicalXor and divNoNan have none
// (tfjs composes them: its backends register no kernel), and prelu's kernel, whose inputs are x
// and alpha, has its own adapter below.
const KERNEL_NAMES = Object.keys(require('./kernel_names'));
const KERNEL_OF = { mul: 'Multiply', div: 'RealDiv', logicalXor: null, divNoNan: null, prelu: null };
const kernelOf = (name) => (name in KERNEL_OF ? KERNEL_OF[name] :
  KERNEL_NAMES.find((k) => k.toLowerCase() === name.toLowerCase()) || null);
const table = require('./native').elementwiseOps();
const tableOps = (list) => Object.fromEntries(list.map(({ name }) => [kernelOf(name), name]).filter(([k]) => k));
const UNARY = {
  ...tableOps(table.unary),
  ZerosLike: 'zerosLike', OnesLike: 'onesLike', Identity: 'clone', Real: 'real', Imag: 'imag', ComplexAbs: 'abs',
  FFT: 'fft', IFFT: 'ifft',
};
const BINARY = { ...tableOps(table.binary), Complex: 'complex' };
const REDUCE = { Sum: 'sum', Max: 'max', Min: 'min', Mean: 'mean', Prod: 'prod', All: 'all', Any: 'any' };

// kernelName -> (inputs, attrs) => Tensor | Tensor[].
const ADAPTERS = {
  ArgMax: ({ x }, { axis }) => tf().argMax(x, axis),
  ArgMin: ({ x }, { axis }) => tf().argMin(x, axis),
  Cast: ({ x }, { dtype }) => tf().cast(x, dtype),
  Reshape: ({ x }, { shape }) => tf().reshape(x, shape),
  Transpose: ({ x }, { perm }) => tf().transpose(x, perm),
  ExpandDims: ({ input }, { dim }) => tf().expandDims(input, dim),
  Tile: ({ x }, { reps }) => tf().tile(x, reps),
  Reverse: ({ x }, { dims }) => tf().reverse(x, dims),
  Slice: ({ x }, { begin, size }) => tf().slice(x, begin, size),
  StridedSlice: ({ x }, a) => tf().stridedSlice(x, a.begin, a.end, a.strides, a.beginMask, a.endMask, a.ellipsisMask,
    a.newAxisMask, a.shrinkAxisMask),
  Concat: (inputs, { axis }) => tf().concat(Array.from(inputs), axis),
  Pack: (inputs, { axis }) => tf().stack(Array.from(inputs), axis),
  Unpack: ({ value }, { axis }) => tf().unstack(value, axis),
  SplitV: ({ x }, { numOrSizeSplits, axis }) => tf().split(x, numOrSizeSplits, axis),
  AddN: (inputs) => tf().addN(Array.from(inputs)),
  PadV2: ({ x }, { paddings, constantValue }) => tf().pad(x, paddings, constantValue),
  MirrorPad: ({ x }, { paddings, mode }) => tf().mirrorPad(x, paddings, mode),
  GatherV2: ({ x, indices }, { axis, batchDims }) => tf().gather(x, indices, axis, batchDims),
  GatherNd: ({ params, indices }) => tf().gatherND(params, indices),
  Select: ({ condition, t, e }) => tf().where(condition, t, e),
  ClipByValue: ({ x }, { clipValueMin, clipValueMax }) => tf().clipByValue(x, clipValueMin, clipValueMax),
  LeakyRelu: ({ x }, { alpha }) => tf().leakyRelu(x, alpha),
  Prelu: ({ x, alpha }) => tf().prelu(x, alpha),
  Step: ({ x }, { alpha }) => tf().step(x, alpha),
  Softmax: ({ logits }, { dim }) => tf().softmax(logits, dim),
  OneHot: ({ indices }, { depth, onValue, offValue, dtype }) => tf().oneHot(indices, depth, onValue, offValue, dtype),
  Fill: (inputs, { shape, value, dtype }) => tf().fill(shape, value, dtype),
  Range: (inputs, { start, stop, step, dtype }) => tf().range(start, stop, step, dtype),
  LinSpace: (inputs, { start, stop, num }) => tf().linspace(start, stop, num),
  Cumsum: ({ x }, { axis, exclusive, reverse }) => tf().cumsum(x, axis, exclusive, reverse),
  Cumprod: ({ x }, { axis, exclusive, reverse }) => tf().cumprod(x, axis, exclusive, reverse),
  TopK: ({ x }, { k, sorted }) => {
    const { values, indices } = tf().topk(x, k, sorted);
    return [values, indices];
  },
  Einsum: (inputs, { equation }) => tf().einsum(equation, ...Array.from(inputs)),
  BatchMatMul: ({ a, b }, { transposeA, transposeB }) => tf().matMul(a, b, transposeA, transposeB),
  _FusedMatMul: ({ a, b, bias, preluActivationWeights }, at) => tf().fused.matMul({
    a, b, transposeA: at.transposeA, transposeB: at.transposeB, bias, activation: at.activation,
    preluActivationWeights, leakyreluAlpha: at.leakyreluAlpha,
  }),
  Conv2D: ({ x, filter }, a) => tf().conv2d(x, filter, a.strides, a.pad, a.dataFormat, a.dilations, a.dimRoundingMode),
  Conv3D: ({ x, filter }, a) => tf().conv3d(x, filter, a.strides, a.pad, a.dataFormat, a.dilations),
  DepthwiseConv2dNative: ({ x, filter }, a) => tf().depthwiseConv2d(x, filter, a.strides, a.pad, a.dataFormat,
    a.dilations, a.dimRoundingMode),
  FusedConv2D: ({ x, filter, bias, preluActivationWeights }, a) => tf().fused.conv2d({
    x, filter, strides: a.strides, pad: a.pad, dataFormat: a.dataFormat, dilations: a.dilations,
    dimRoundingMode: a.dimRoundingMode, bias, activation: a.activation, preluActivationWeights,
    leakyreluAlpha: a.leakyreluAlpha,
  }),
  FusedDepthwiseConv2D: ({ x, filter, bias, preluActivationWeights }, a) => tf().fused.depthwiseConv2d({
    x, filter, strides: a.strides, pad: a.pad, dataFormat: a.dataFormat, dilations: a.dilations,
    dimRoundingMode: a.dimRoundingMode, bias, activation: a.activation, preluActivationWeights,
    leakyreluAlpha: a.leakyreluAlpha,
  }),
  MaxPool: ({ x }, a) => tf().maxPool(x, a.filterSize, a.strides, a.pad, a.dimRoundingMode),
  AvgPool: ({ x }, a) => tf().avgPool(x, a.filterSize, a.strides, a.pad, a.dimRoundingMode),
  MaxPool3D: ({ x }, a) => tf().maxPool3d(x, a.filterSize, a.strides, a.pad, a.dimRoundingMode, a.dataFormat),
  AvgPool3D: ({ x }, a) => tf().avgPool3d(x, a.filterSize, a.strides, a.pad, a.dimRoundingMode, a.dataFormat),
  FusedBatchNorm: ({ x, mean, variance, offset, scale }, { varianceEpsilon }) => tf().batchNorm(x, mean, variance,
    offset, scale, varianceEpsilon),
  ResizeBilinear: ({ images }, { alignCorners, halfPixelCenters, size }) => tf().image.resizeBilinear(images, size,
    alignCorners, halfPixelCenters),
  ResizeNearestNeighbor: ({ images }, { alignCorners, halfPixelCenters, size }) => tf().image.resizeNearestNeighbor(
    images, size, alignCorners, halfPixelCenters),
  SpaceToBatchND: ({ x }, { blockShape, paddings }) => tf().spaceToBatchND(x, blockShape, paddings),
  BatchToSpaceND: ({ x }, { blockShape, crops }) => tf().batchToSpaceND(x, blockShape, crops),
  DepthToSpace: ({ x }, { blockSize, dataFormat }) => tf().depthToSpace(x, blockSize, dataFormat),
  UnsortedSegmentSum: ({ x, segmentIds }, { numSegments }) => tf().unsortedSegmentSum(x, segmentIds, numSegments),
  Diag: ({ x }) => tf().diag(x),
  LRN: ({ x }, { depthRadius, bias, alpha, beta }) => tf().localResponseNormalization(x, depthRadius, bias, alpha, beta),
};
for (const [name, op] of Object.entries(UNARY)) ADAPTERS[name] = ({ x, input }) => tf()[op](x != null ? x : input);
for (const [name, op] of Object.entries(BINARY)) ADAPTERS[name] = ({ a, b, real, imag }) => tf()[op](a != null ? a : real, b != null ? b : imag);
for (const [name, op] of Object.entries(REDUCE)) ADAPTERS[name] = ({ x }, { axis, keepDims }) => tf()[op](x, axis, keepDims);

const NAMES = Object.keys(ADAPTERS).sort();

// The kernel config of a native kernel on `backendName` (a native backend), or undefined.
function nativeKernel(kernelName, backendName) {
  const adapter = Object.prototype.hasOwnProperty.call(ADAPTERS, kernelName) ? ADAPTERS[kernelName] : null;
  if (adapter == null) return undefined;
  return { kernelName, backendName, kernelFunc: ({ inputs, attrs }) => adapter(inputs || {}, attrs || {}) };
}

module.exports = { nativeKernel, NATIVE_KERNEL_NAMES: NAMES, setNamespace };
