'use strict';
// tfjs's kernel-name constants (`tf.Conv2D === 'Conv2D'`), exported at top level as tfjs
// exports them; the names the engine runs are these (crates/core/src/kernels.rs).
const NAMES = [
  'Abs', 'Acos', 'Acosh', 'Add', 'AddN', 'All', 'Any', 'ArgMax', 'ArgMin', 'Asin', 'Asinh', 'Atan',
  'Atan2', 'Atanh', 'AvgPool', 'AvgPool3D', 'AvgPool3DGrad', 'AvgPoolGrad', 'BatchMatMul',
  'BatchToSpaceND', 'Bincount', 'BitwiseAnd', 'BroadcastArgs', 'BroadcastTo', 'Cast', 'Ceil',
  'ClipByValue', 'Complex', 'ComplexAbs', 'Concat', 'Conv2D', 'Conv2DBackpropFilter',
  'Conv2DBackpropInput', 'Conv3D', 'Conv3DBackpropFilterV2', 'Conv3DBackpropInputV2', 'Cos',
  'Cosh', 'CropAndResize', 'Cumprod', 'Cumsum', 'DenseBincount', 'DepthToSpace',
  'DepthwiseConv2dNative', 'DepthwiseConv2dNativeBackpropFilter',
  'DepthwiseConv2dNativeBackpropInput', 'Diag', 'Dilation2D', 'Dilation2DBackpropFilter',
  'Dilation2DBackpropInput', 'Draw', 'Einsum', 'Elu', 'EluGrad', 'Equal', 'Erf', 'Exp',
  'ExpandDims', 'Expm1', 'FFT', 'Fill', 'FlipLeftRight', 'Floor', 'FloorDiv', 'FromPixels',
  'FusedBatchNorm', 'FusedConv2D', 'FusedDepthwiseConv2D', 'GatherNd', 'GatherV2', 'Greater',
  'GreaterEqual', 'IFFT', 'Identity', 'Imag', 'IsFinite', 'IsInf', 'IsNan', 'LRN', 'LRNGrad',
  'LeakyRelu', 'Less', 'LessEqual', 'LinSpace', 'Log', 'Log1p', 'LogSoftmax', 'LogicalAnd',
  'LogicalNot', 'LogicalOr', 'LogicalXor', 'LowerBound', 'MatrixBandPart', 'Max', 'MaxPool',
  'MaxPool3D', 'MaxPool3DGrad', 'MaxPoolGrad', 'MaxPoolWithArgmax', 'Maximum', 'Mean', 'Min',
  'Minimum', 'MirrorPad', 'Mod', 'Multinomial', 'Multiply', 'Neg', 'NonMaxSuppressionV3',
  'NonMaxSuppressionV4', 'NonMaxSuppressionV5', 'NotEqual', 'OneHot', 'OnesLike', 'Pack', 'PadV2',
  'Pool', 'Pow', 'Prelu', 'Prod', 'RaggedGather', 'RaggedRange', 'RaggedTensorToTensor', 'Range',
  'Real', 'RealDiv', 'Reciprocal', 'Relu', 'Relu6', 'Reshape', 'ResizeBilinear',
  'ResizeBilinearGrad', 'ResizeNearestNeighbor', 'ResizeNearestNeighborGrad', 'Reverse',
  'RotateWithOffset', 'Round', 'Rsqrt', 'ScatterNd', 'SearchSorted', 'Select', 'Selu', 'Sigmoid',
  'Sign', 'Sin', 'Sinh', 'Slice', 'Softmax', 'Softplus', 'SpaceToBatchND', 'SparseFillEmptyRows',
  'SparseReshape', 'SparseSegmentMean', 'SparseSegmentSum', 'SparseToDense', 'SplitV', 'Sqrt',
  'Square', 'SquaredDifference', 'StaticRegexReplace', 'Step', 'StridedSlice', 'StringNGrams',
  'StringSplit', 'StringToHashBucketFast', 'Sub', 'Sum', 'Tan', 'Tanh', 'TensorScatterUpdate',
  'Tile', 'TopK', 'Transform', 'Transpose', 'Unique', 'Unpack', 'UnsortedSegmentSum', 'UpperBound',
  'ZerosLike', '_FusedMatMul',
];

module.exports = Object.fromEntries(NAMES.map((n) => [n, n]));
