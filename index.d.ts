// Type definitions for tidytensor: the TensorFlow.js 4.22 API subset it implements, with the
// same names and shapes as @tensorflow/tfjs-core's typings so code type-checks unchanged.

export type DataType = 'float32' | 'int32' | 'bool' | 'complex64' | 'string';
export type NumericDataType = 'float32' | 'int32' | 'bool' | 'complex64';

export interface DataTypeMap {
  float32: Float32Array;
  int32: Int32Array;
  bool: Uint8Array;
  complex64: Float32Array;
  string: string[];
}
export type DataTypeFor<T extends number | string | boolean> =
  T extends number | boolean ? NumericDataType : T extends string ? DataType : never;
export type TypedArray = Float32Array | Int32Array | Uint8Array;
export type DataValues = DataTypeMap[DataType];
export type BackendValues = Float32Array | Int32Array | Uint8Array | Uint8Array[];

export enum Rank {
  R0 = 'R0',
  R1 = 'R1',
  R2 = 'R2',
  R3 = 'R3',
  R4 = 'R4',
  R5 = 'R5',
  R6 = 'R6',
}

export interface ShapeMap {
  R0: number[];
  R1: [number];
  R2: [number, number];
  R3: [number, number, number];
  R4: [number, number, number, number];
  R5: [number, number, number, number, number];
  R6: [number, number, number, number, number, number];
}

export interface ArrayMap {
  R0: number;
  R1: number[];
  R2: number[][];
  R3: number[][][];
  R4: number[][][][];
  R5: number[][][][][];
  R6: number[][][][][][];
}

export interface RecursiveArray<T extends any> {
  [index: number]: T | RecursiveArray<T>;
}

export type ScalarLike = number | boolean | string | Uint8Array;
export type TensorLike =
  | TypedArray
  | number
  | boolean
  | string
  | RecursiveArray<number | number[] | TypedArray>
  | RecursiveArray<boolean>
  | RecursiveArray<string>
  | Uint8Array[];
export type TensorLike1D = TypedArray | number[] | boolean[] | string[] | Uint8Array[];
export type TensorLike2D = TypedArray | number[] | number[][] | boolean[] | boolean[][] |
  string[] | string[][] | Uint8Array[] | Uint8Array[][];
export type TensorLike3D = TypedArray | number[] | number[][][] | boolean[] | boolean[][][] |
  string[] | string[][][] | Uint8Array[] | Uint8Array[][][];
export type TensorLike4D = TypedArray | number[] | number[][][][] | boolean[] |
  boolean[][][][] | string[] | string[][][][] | Uint8Array[] | Uint8Array[][][][];
export type TensorLike5D = TypedArray | number[] | number[][][][][] | boolean[] |
  boolean[][][][][] | string[] | string[][][][][] | Uint8Array[] | Uint8Array[][][][][];
export type TensorLike6D = TypedArray | number[] | number[][][][][][] | boolean[] |
  boolean[][][][][][] | string[] | string[][][][][][] | Uint8Array[] | Uint8Array[][][][][];

export declare class Tensor<R extends Rank = Rank> {
  /** Unique id of this tensor (increasing). */
  readonly id: number;
  readonly shape: ShapeMap[R];
  readonly size: number;
  readonly dtype: DataType;
  readonly rankType: R;
  kept: boolean;
  readonly strides: number[];
  get rank(): number;
  get isDisposed(): boolean;

  throwIfDisposed(): void;
  data<D extends DataType = NumericDataType>(): Promise<DataTypeMap[D]>;
  dataSync<D extends DataType = NumericDataType>(): DataTypeMap[D];
  array(): Promise<ArrayMap[R]>;
  arraySync(): ArrayMap[R];
  dispose(): void;
  print(verbose?: boolean): void;
  toString(verbose?: boolean): string;
  clone<T extends Tensor>(this: T): T;
  cast<T extends this>(dtype: DataType): T;
  asType<T extends this>(this: T, dtype: DataType): T;
  toFloat<T extends Tensor>(this: T): T;
  toInt<T extends Tensor>(this: T): T;
  toBool<T extends Tensor>(this: T): T;
  bytes(): Promise<Uint8Array>;
  buffer<D extends DataType = 'float32'>(): Promise<TensorBuffer<R, D>>;
  bufferSync<D extends DataType = 'float32'>(): TensorBuffer<R, D>;
  variable(trainable?: boolean, name?: string, dtype?: DataType): Variable<R>;

  // chained ops
  add<T extends Tensor>(b: Tensor | TensorLike): T;
  sub<T extends Tensor>(b: Tensor | TensorLike): T;
  mul<T extends Tensor>(b: Tensor | TensorLike): T;
  div<T extends Tensor>(b: Tensor | TensorLike): T;
  maximum<T extends Tensor>(b: Tensor | TensorLike): T;
  minimum<T extends Tensor>(b: Tensor | TensorLike): T;
  pow<T extends Tensor>(exp: Tensor | TensorLike): T;
  floorDiv<T extends Tensor>(b: Tensor | TensorLike): T;
  squaredDifference<T extends Tensor>(b: Tensor | TensorLike): T;
  atan2<T extends Tensor>(b: Tensor | TensorLike): T;
  divNoNan<T extends Tensor>(b: Tensor | TensorLike): T;
  equal<T extends Tensor>(b: Tensor | TensorLike): T;
  greater<T extends Tensor>(b: Tensor | TensorLike): T;
  greaterEqual<T extends Tensor>(b: Tensor | TensorLike): T;
  less<T extends Tensor>(b: Tensor | TensorLike): T;
  lessEqual<T extends Tensor>(b: Tensor | TensorLike): T;
  logicalAnd<T extends Tensor>(b: Tensor | TensorLike): T;
  logicalOr<T extends Tensor>(b: Tensor | TensorLike): T;
  logicalXor<T extends Tensor>(b: Tensor | TensorLike): T;
  mod<T extends Tensor>(b: Tensor | TensorLike): T;
  notEqual<T extends Tensor>(b: Tensor | TensorLike): T;
  prelu<T extends Tensor>(alpha: Tensor | TensorLike): T;
  where<T extends Tensor>(this: T, condition: Tensor | TensorLike, x: Tensor | TensorLike): T;
  clipByValue<T extends Tensor>(this: T, min: number, max: number): T;
  leakyRelu<T extends Tensor>(this: T, alpha?: number): T;
  step<T extends Tensor>(this: T, alpha?: number): T;
  logSigmoid<T extends Tensor>(this: T): T;
  neg<T extends Tensor>(this: T): T;
  square<T extends Tensor>(this: T): T;
  sqrt<T extends Tensor>(this: T): T;
  rsqrt<T extends Tensor>(this: T): T;
  exp<T extends Tensor>(this: T): T;
  log<T extends Tensor>(this: T): T;
  abs<T extends Tensor>(this: T): T;
  relu<T extends Tensor>(this: T): T;
  sigmoid<T extends Tensor>(this: T): T;
  tanh<T extends Tensor>(this: T): T;
  acos<T extends Tensor>(this: T): T;
  acosh<T extends Tensor>(this: T): T;
  asin<T extends Tensor>(this: T): T;
  asinh<T extends Tensor>(this: T): T;
  atan<T extends Tensor>(this: T): T;
  atanh<T extends Tensor>(this: T): T;
  ceil<T extends Tensor>(this: T): T;
  cos<T extends Tensor>(this: T): T;
  cosh<T extends Tensor>(this: T): T;
  elu<T extends Tensor>(this: T): T;
  erf<T extends Tensor>(this: T): T;
  expm1<T extends Tensor>(this: T): T;
  floor<T extends Tensor>(this: T): T;
  isFinite<T extends Tensor>(this: T): T;
  isInf<T extends Tensor>(this: T): T;
  isNaN<T extends Tensor>(this: T): T;
  log1p<T extends Tensor>(this: T): T;
  logicalNot<T extends Tensor>(this: T): T;
  reciprocal<T extends Tensor>(this: T): T;
  relu6<T extends Tensor>(this: T): T;
  round<T extends Tensor>(this: T): T;
  selu<T extends Tensor>(this: T): T;
  sign<T extends Tensor>(this: T): T;
  sin<T extends Tensor>(this: T): T;
  sinh<T extends Tensor>(this: T): T;
  softplus<T extends Tensor>(this: T): T;
  tan<T extends Tensor>(this: T): T;
  unsortedSegmentSum<T extends Tensor>(this: T, segmentIds: Tensor | TensorLike, numSegments: number): T;
  depthToSpace<T extends Tensor>(this: T, blockSize: number, dataFormat?: 'NHWC' | 'NCHW'): T;
  resizeBilinear<T extends Tensor>(this: T, newShape2D: [number, number], alignCorners?: boolean,
    halfPixelCenters?: boolean): T;
  resizeNearestNeighbor<T extends Tensor>(this: T, newShape2D: [number, number], alignCorners?: boolean,
    halfFloatCenters?: boolean): T;
  batchNorm<T extends Tensor>(this: T, mean: Tensor | TensorLike, variance: Tensor | TensorLike,
    offset?: Tensor | TensorLike, scale?: Tensor | TensorLike, varianceEpsilon?: number): T;
  euclideanNorm(axis?: number | number[], keepDims?: boolean): Tensor;
  spaceToBatchND<T extends Tensor>(this: T, blockShape: number[], paddings: number[][]): T;
  batchToSpaceND<T extends Tensor>(this: T, blockShape: number[], crops: number[][]): T;
  unique<T extends Tensor>(this: T, axis?: number): { values: T; indices: Tensor };
  conv1d<T extends Tensor>(this: T, filter: Tensor | TensorLike, stride: number, pad: PaddingType,
    dataFormat?: 'NWC' | 'NCW', dilation?: number, dimRoundingMode?: 'floor' | 'round' | 'ceil'): T;
  conv2d<T extends Tensor>(this: T, filter: Tensor | TensorLike, strides: number | [number, number],
    pad: PaddingType, dataFormat?: 'NHWC' | 'NCHW', dilations?: number | [number, number],
    dimRoundingMode?: 'floor' | 'round' | 'ceil'): T;
  conv2dTranspose<T extends Tensor>(this: T, filter: Tensor | TensorLike, outputShape: number[],
    strides: number | [number, number], pad: PaddingType, dimRoundingMode?: 'floor' | 'round' | 'ceil'): T;
  depthwiseConv2d<T extends Tensor>(this: T, filter: Tensor | TensorLike, strides: number | [number, number],
    pad: PaddingType, dataFormat?: 'NHWC' | 'NCHW', dilations?: number | [number, number],
    dimRoundingMode?: 'floor' | 'round' | 'ceil'): T;
  separableConv2d<T extends Tensor>(this: T, depthwiseFilter: Tensor | TensorLike,
    pointwiseFilter: Tensor | TensorLike, strides: number | [number, number], pad: 'valid' | 'same',
    dilation?: number | [number, number], dataFormat?: 'NHWC' | 'NCHW'): T;
  dilation2d<T extends Tensor>(this: T, filter: Tensor | TensorLike, strides: number | [number, number],
    pad: 'valid' | 'same', dilations?: number | [number, number], dataFormat?: 'NHWC'): T;
  maxPool<T extends Tensor>(this: T, filterSize: number | [number, number], strides: number | [number, number],
    pad: PaddingType, dimRoundingMode?: 'floor' | 'round' | 'ceil'): T;
  avgPool<T extends Tensor>(this: T, filterSize: number | [number, number], strides: number | [number, number],
    pad: PaddingType, dimRoundingMode?: 'floor' | 'round' | 'ceil'): T;
  pool<T extends Tensor>(this: T, windowShape: number | [number, number], poolingType: 'avg' | 'max',
    padding: PaddingType, dilationRate?: number | [number, number], strides?: number | [number, number],
    dimRoundingMode?: 'floor' | 'round' | 'ceil'): T;
  localResponseNormalization<T extends Tensor>(this: T, depthRadius?: number, bias?: number, alpha?: number,
    beta?: number): T;
  matMul<T extends Tensor>(b: Tensor | TensorLike, transposeA?: boolean,
    transposeB?: boolean): T;
  sum<T extends Tensor>(axis?: number | number[] | null, keepDims?: boolean): T;
  mean<T extends Tensor>(axis?: number | number[] | null, keepDims?: boolean): T;
  max<T extends Tensor>(axis?: number | number[] | null, keepDims?: boolean): T;
  min<T extends Tensor>(axis?: number | number[] | null, keepDims?: boolean): T;
  prod<T extends Tensor>(axis?: number | number[] | null, keepDims?: boolean): T;
  all<T extends Tensor>(axis?: number | number[] | null, keepDims?: boolean): T;
  any<T extends Tensor>(axis?: number | number[] | null, keepDims?: boolean): T;
  logSumExp<T extends Tensor>(axis?: number | number[] | null, keepDims?: boolean): T;
  argMax<T extends Tensor>(axis?: number): T;
  argMin<T extends Tensor>(axis?: number): T;
  softmax<T extends Tensor>(this: T, dim?: number): T;
  logSoftmax<T extends Tensor>(this: T, axis?: number): T;
  cumsum<T extends Tensor>(this: T, axis?: number, exclusive?: boolean, reverse?: boolean): T;
  cumprod<T extends Tensor>(this: T, axis?: number, exclusive?: boolean, reverse?: boolean): T;
  norm(ord?: number | 'euclidean' | 'fro', axis?: number | number[] | null, keepDims?: boolean): Tensor;
  dot(b: Tensor | TensorLike): Tensor;
  reshape<R2 extends Rank>(newShape: ShapeMap[R2] | number[]): Tensor<R2>;
  reshapeAs<T extends Tensor>(x: T): T;
  expandDims<R2 extends Rank>(axis?: number): Tensor<R2>;
  squeeze<T extends Tensor>(axis?: number[]): T;
  transpose<T extends Tensor>(perm?: number[]): T;
  concat<T extends Tensor>(tensors: T | Array<T | TensorLike>, axis?: number): T;
  stack<T extends Tensor>(x: Tensor | Tensor[], axis?: number): Tensor;
  slice<T extends Tensor>(this: T, begin: number | number[], size?: number | number[]): T;
  gather<T extends Tensor>(this: T, indices: Tensor | TensorLike, axis?: number,
    batchDims?: number): T;
  unstack<T extends Tensor>(axis?: number): T[];
  split<T extends Tensor>(this: T, numOrSizeSplits: number | number[], axis?: number): T[];
  tile<T extends Tensor>(this: T, reps: number[]): T;
  broadcastTo(shape: number[]): Tensor;
  reverse<T extends Tensor>(this: T, axis?: number | number[]): T;
  pad<T extends Tensor>(this: T, paddings: Array<[number, number]>, constantValue?: number): T;
  mirrorPad<T extends Tensor>(this: T, paddings: Array<[number, number]>, mode: 'reflect' | 'symmetric'): T;
  oneHot(depth: number, onValue?: number, offValue?: number, dtype?: DataType): Tensor;
  zerosLike<T extends Tensor>(this: T): T;
  onesLike<T extends Tensor>(this: T): T;
  flatten<T extends Tensor>(): Tensor1D;
  asScalar<T extends Tensor>(): Scalar;
  as1D<T extends Tensor>(): Tensor1D;
  as2D<T extends Tensor>(rows: number, columns: number): Tensor2D;
  as3D<T extends Tensor>(rows: number, columns: number, depth: number): Tensor3D;
  as4D<T extends Tensor>(rows: number, columns: number, depth: number, depth2: number): Tensor4D;
  as5D<T extends Tensor>(rows: number, columns: number, depth: number, depth2: number,
    depth3: number): Tensor5D;
}

export type Scalar = Tensor<Rank.R0>;
export type Tensor1D = Tensor<Rank.R1>;
export type Tensor2D = Tensor<Rank.R2>;
export type Tensor3D = Tensor<Rank.R3>;
export type Tensor4D = Tensor<Rank.R4>;
export type Tensor5D = Tensor<Rank.R5>;
export type Tensor6D = Tensor<Rank.R6>;

export declare class Variable<R extends Rank = Rank> extends Tensor<R> {
  name: string;
  trainable: boolean;
  assign(newValue: Tensor<R>): void;
}

export type TensorContainer =
  | void
  | Tensor
  | string
  | number
  | boolean
  | TensorContainerObject
  | TensorContainerArray
  | Float32Array
  | Int32Array
  | Uint8Array;
export interface TensorContainerObject {
  [x: string]: TensorContainer;
}
export interface TensorContainerArray extends Array<TensorContainer> {}

export interface NamedTensorMap {
  [name: string]: Tensor;
}
export interface NamedVariableMap {
  [name: string]: Variable;
}

export interface MemoryInfo {
  numTensors: number;
  numDataBuffers: number;
  numBytes: number;
  /**
   * tidytensor: of numBytes, the bytes of model weights held once for the whole process and
   * shared with the other threads (worker_threads) that loaded the same weights.
   */
  numBytesShared: number;
  unreliable?: boolean;
  reasons?: string[];
  /** wgpu: bytes of live tensors on the GPU (bool is 4 bytes per element there). */
  numBytesInGPU?: number;
  /** wgpu: bytes of every GPU buffer the pool owns, in use or free. */
  numBytesInGPUAllocated?: number;
  /** wgpu: bytes of pooled GPU buffers no tensor holds. */
  numBytesInGPUFree?: number;
  /** cpu: bytes of live tensor storage. */
  numBytesInBackend?: number;
  /** cpu: bytes of pooled buffers no tensor holds. */
  numBytesInBackendFree?: number;
  [backendField: string]: unknown;
}

export interface KernelInfo {
  name: string;
  bytesAdded: number;
  totalBytesSnapshot: number;
  tensorsAdded: number;
  totalTensorsSnapshot: number;
  inputShapes: number[][];
  outputShapes: number[][];
  kernelTimeMs: number | { error: string };
  extraInfo: string;
}

export interface ProfileInfo {
  newBytes: number;
  newTensors: number;
  peakBytes: number;
  kernels: KernelInfo[];
  result: TensorContainer;
  kernelNames: string[];
}

export interface TimingInfo {
  kernelMs: number | { error: string };
  wallMs: number;
  [key: string]: unknown;
}

/** The active backend. On `wgpu`, the adapter and the limits that matter to tensors. */
export interface Backend {
  readonly name: 'cpu' | 'wgpu' | string;
  readonly adapter?: string;
  readonly deviceType?: string;
  readonly driver?: string;
  readonly driverInfo?: string;
  /** The graphics API wgpu uses: Vulkan, Metal, Dx12. */
  readonly api?: string;
  /** false for software adapters such as Mesa's lavapipe. */
  readonly isHardware?: boolean;
  readonly maxStorageBufferBindingSize?: number;
  readonly maxBufferSize?: number;
  readonly maxComputeWorkgroupsPerDimension?: number;
  memory(): MemoryInfo;
  numDataIds(): number;
  /** Frees the buffers kept for reuse that no tensor holds (numBytesInGPUFree, numBytesInBackendFree). */
  releasePool(): void;
}

export interface Engine {
  startScope(name?: string): void;
  endScope(result?: TensorContainer): void;
  keep<T extends Tensor>(result: T): T;
  dispose(container: TensorContainer): void;
  tidy<T extends TensorContainer>(nameOrFn: string | ScopeFn<T>, fn?: ScopeFn<T>): T;
  memory(): MemoryInfo;
  profile(query: () => TensorContainer | Promise<TensorContainer>): Promise<ProfileInfo>;
  time(query: () => void): Promise<TimingInfo>;
  disposeVariables(): void;
  readonly registeredVariables: NamedVariableMap;
  readonly backendName: string;
  readonly backend: Backend;
  backendNames(): string[];
  findBackend(name: string): { name: string } | null;
  findBackendFactory(name: string): (() => unknown) | null;
  registerBackend(name: string, factory: () => unknown, priority?: number): boolean;
  removeBackend(name: string): void;
  makeTensor(values: TensorLike, shape?: number[], dtype?: DataType): Tensor;
  disposeTensor(t: Tensor): void;
  disposeVariable(v: Variable): void;
  customGrad<T extends Tensor>(f: (...args: any[]) => { value: T; gradFunc: (dy: T, saved: Tensor[]) => Tensor | Tensor[] }): (...args: Tensor[]) => T;
  runKernel(kernelName: string, inputs: { [name: string]: Tensor }, attrs?: { [name: string]: unknown }): Tensor | Tensor[];
  setBackend(backendName: string): Promise<boolean>;
  ready(): Promise<void>;
  /** Whether a kernel run now is recorded for a gradient. */
  isTapeOn(): boolean;
  gradients<T extends Tensor>(f: () => T, xs: Tensor[], dy?: T, allowNoGradients?: boolean):
    { value: T; grads: Tensor[] };
}

export type ScopeFn<T extends TensorContainer> = () => T;

// ------------------------------------------------------------------------------------------
// Creation

export function tensor<R extends Rank>(values: TensorLike, shape?: ShapeMap[R],
  dtype?: DataType): Tensor<R>;
export function scalar(value: number | boolean | string | Uint8Array, dtype?: DataType): Scalar;
export function tensor1d(values: TensorLike1D, dtype?: DataType): Tensor1D;
export function tensor2d(values: TensorLike2D, shape?: [number, number],
  dtype?: DataType): Tensor2D;
export function tensor3d(values: TensorLike3D, shape?: [number, number, number],
  dtype?: DataType): Tensor3D;
export function tensor4d(values: TensorLike4D, shape?: [number, number, number, number],
  dtype?: DataType): Tensor4D;
export function tensor5d(values: TensorLike5D,
  shape?: [number, number, number, number, number], dtype?: DataType): Tensor5D;
export function tensor6d(values: TensorLike6D,
  shape?: [number, number, number, number, number, number], dtype?: DataType): Tensor6D;
export function zeros<R extends Rank>(shape: ShapeMap[R], dtype?: DataType): Tensor<R>;
export function ones<R extends Rank>(shape: ShapeMap[R], dtype?: DataType): Tensor<R>;
export function fill<R extends Rank>(shape: ShapeMap[R], value: number | string | boolean,
  dtype?: DataType): Tensor<R>;
export function zerosLike<T extends Tensor>(x: T | TensorLike): T;
export function onesLike<T extends Tensor>(x: T | TensorLike): T;
export function range(start: number, stop: number, step?: number,
  dtype?: 'float32' | 'int32'): Tensor1D;
export function linspace(start: number, stop: number, num: number): Tensor1D;
export function eye(numRows: number, numColumns?: number,
  batchShape?: [number] | [number, number] | [number, number, number] | null,
  dtype?: DataType): Tensor2D;
export function oneHot(indices: Tensor | TensorLike, depth: number, onValue?: number,
  offValue?: number, dtype?: DataType): Tensor;
export function randomNormal<R extends Rank>(shape: ShapeMap[R], mean?: number,
  stdDev?: number, dtype?: 'float32' | 'int32', seed?: number): Tensor<R>;
export function randomUniform<R extends Rank>(shape: ShapeMap[R], minval?: number,
  maxval?: number, dtype?: DataType, seed?: number | string): Tensor<R>;
export function truncatedNormal<R extends Rank>(shape: ShapeMap[R], mean?: number,
  stdDev?: number, dtype?: 'float32' | 'int32', seed?: number): Tensor<R>;
export function buffer<R extends Rank, D extends DataType = 'float32'>(shape: ShapeMap[R],
  dtype?: D, values?: DataTypeMap[D]): TensorBuffer<R, D>;
export function clone<T extends Tensor>(x: T | TensorLike): T;
export function cast<T extends Tensor>(x: T | TensorLike, dtype: DataType): T;
export function reshape<R extends Rank>(x: Tensor | TensorLike, shape: ShapeMap[R] | number[]):
  Tensor<R>;

// ------------------------------------------------------------------------------------------
// Operations

export function neg<T extends Tensor>(x: T | TensorLike): T;
export function square<T extends Tensor>(x: T | TensorLike): T;
export function sqrt<T extends Tensor>(x: T | TensorLike): T;
export function rsqrt<T extends Tensor>(x: T | TensorLike): T;
export function exp<T extends Tensor>(x: T | TensorLike): T;
export function log<T extends Tensor>(x: T | TensorLike): T;
export function abs<T extends Tensor>(x: T | TensorLike): T;
export function relu<T extends Tensor>(x: T | TensorLike): T;
export function sigmoid<T extends Tensor>(x: T | TensorLike): T;
export function tanh<T extends Tensor>(x: T | TensorLike): T;
export function acos<T extends Tensor>(x: T | TensorLike): T;
export function acosh<T extends Tensor>(x: T | TensorLike): T;
export function asin<T extends Tensor>(x: T | TensorLike): T;
export function asinh<T extends Tensor>(x: T | TensorLike): T;
export function atan<T extends Tensor>(x: T | TensorLike): T;
export function atanh<T extends Tensor>(x: T | TensorLike): T;
export function ceil<T extends Tensor>(x: T | TensorLike): T;
export function cos<T extends Tensor>(x: T | TensorLike): T;
export function cosh<T extends Tensor>(x: T | TensorLike): T;
export function elu<T extends Tensor>(x: T | TensorLike): T;
export function erf<T extends Tensor>(x: T | TensorLike): T;
export function expm1<T extends Tensor>(x: T | TensorLike): T;
export function floor<T extends Tensor>(x: T | TensorLike): T;
export function isFinite<T extends Tensor>(x: T | TensorLike): T;
export function isInf<T extends Tensor>(x: T | TensorLike): T;
export function isNaN<T extends Tensor>(x: T | TensorLike): T;
export function log1p<T extends Tensor>(x: T | TensorLike): T;
export function logicalNot<T extends Tensor>(x: T | TensorLike): T;
export function reciprocal<T extends Tensor>(x: T | TensorLike): T;
export function relu6<T extends Tensor>(x: T | TensorLike): T;
export function round<T extends Tensor>(x: T | TensorLike): T;
export function selu<T extends Tensor>(x: T | TensorLike): T;
export function sign<T extends Tensor>(x: T | TensorLike): T;
export function sin<T extends Tensor>(x: T | TensorLike): T;
export function sinh<T extends Tensor>(x: T | TensorLike): T;
export function softplus<T extends Tensor>(x: T | TensorLike): T;
export function tan<T extends Tensor>(x: T | TensorLike): T;
export function add<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function sub<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function mul<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function div<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function maximum<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function minimum<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function pow<T extends Tensor>(base: Tensor | TensorLike, exp: Tensor | TensorLike): T;
export function clipByValue<T extends Tensor>(x: T | TensorLike, clipValueMin: number,
  clipValueMax: number): T;
export function leakyRelu<T extends Tensor>(x: T | TensorLike, alpha?: number): T;
export function step<T extends Tensor>(x: T | TensorLike, alpha?: number): T;
export function logSigmoid<T extends Tensor>(x: T | TensorLike): T;
export function addN<T extends Tensor>(tensors: Array<T | TensorLike>): T;
export function where<T extends Tensor>(condition: Tensor | TensorLike, a: T | TensorLike,
  b: T | TensorLike): T;
export function atan2<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function divNoNan<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function equal<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function greater<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function greaterEqual<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function less<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function lessEqual<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function logicalAnd<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function logicalOr<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function logicalXor<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function mod<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function notEqual<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function prelu<T extends Tensor>(x: Tensor | TensorLike, alpha: Tensor | TensorLike): T;
export function floorDiv<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike): T;
export function squaredDifference<T extends Tensor>(a: Tensor | TensorLike,
  b: Tensor | TensorLike): T;
export function matMul<T extends Tensor>(a: Tensor | TensorLike, b: Tensor | TensorLike,
  transposeA?: boolean, transposeB?: boolean): T;
export function dot(t1: Tensor | TensorLike, t2: Tensor | TensorLike): Tensor;
export function outerProduct(v1: Tensor | TensorLike, v2: Tensor | TensorLike): Tensor;
export function sum<T extends Tensor>(x: Tensor | TensorLike, axis?: number | number[] | null,
  keepDims?: boolean): T;
export function mean<T extends Tensor>(x: Tensor | TensorLike, axis?: number | number[] | null,
  keepDims?: boolean): T;
export function max<T extends Tensor>(x: Tensor | TensorLike, axis?: number | number[] | null,
  keepDims?: boolean): T;
export function min<T extends Tensor>(x: Tensor | TensorLike, axis?: number | number[] | null,
  keepDims?: boolean): T;
export function prod<T extends Tensor>(x: Tensor | TensorLike, axis?: number | number[] | null,
  keepDims?: boolean): T;
export function all<T extends Tensor>(x: Tensor | TensorLike, axis?: number | number[] | null,
  keepDims?: boolean): T;
export function any<T extends Tensor>(x: Tensor | TensorLike, axis?: number | number[] | null,
  keepDims?: boolean): T;
export function logSumExp<T extends Tensor>(x: Tensor | TensorLike, axis?: number | number[] | null,
  keepDims?: boolean): T;
export function moments(x: Tensor | TensorLike, axis?: number | number[] | null, keepDims?: boolean):
  { mean: Tensor; variance: Tensor };
export function argMax<T extends Tensor>(x: Tensor | TensorLike, axis?: number): T;
export function argMin<T extends Tensor>(x: Tensor | TensorLike, axis?: number): T;
export function softmax<T extends Tensor>(logits: T | TensorLike, dim?: number): T;
export function logSoftmax<T extends Tensor>(logits: T | TensorLike, axis?: number): T;
export function topk<T extends Tensor>(x: T | TensorLike, k?: number, sorted?: boolean):
  { values: T; indices: T };
export function cumsum<T extends Tensor>(x: T | TensorLike, axis?: number, exclusive?: boolean,
  reverse?: boolean): T;
export function cumprod<T extends Tensor>(x: T | TensorLike, axis?: number, exclusive?: boolean,
  reverse?: boolean): T;
export function norm(x: Tensor | TensorLike, ord?: number | 'euclidean' | 'fro',
  axis?: number | number[] | null, keepDims?: boolean): Tensor;
export function expandDims<T extends Tensor>(x: Tensor | TensorLike, axis?: number): T;
export function squeeze<T extends Tensor>(x: Tensor | TensorLike, axis?: number[]): T;
export function transpose<T extends Tensor>(x: T | TensorLike, perm?: number[]): T;
export function concat<T extends Tensor>(tensors: Array<T | TensorLike>, axis?: number): T;
export function stack<T extends Tensor>(tensors: Array<T | TensorLike>, axis?: number): Tensor;
export function slice<R extends Rank, T extends Tensor<R>>(x: T | TensorLike,
  begin: number | number[], size?: number | number[]): T;
export function gather<T extends Tensor>(x: T | TensorLike, indices: Tensor | TensorLike,
  axis?: number, batchDims?: number): T;
export function unstack(x: Tensor | TensorLike, axis?: number): Tensor[];
export function split<T extends Tensor>(x: T | TensorLike, numOrSizeSplits: number | number[],
  axis?: number): T[];
export function tile<T extends Tensor>(x: T | TensorLike, reps: number[]): T;
export function broadcastTo(x: Tensor | TensorLike, shape: number[]): Tensor;
export function reverse<T extends Tensor>(x: T | TensorLike, axis?: number | number[]): T;
export function pad<T extends Tensor>(x: T | TensorLike, paddings: Array<[number, number]>,
  constantValue?: number): T;
export function mirrorPad<T extends Tensor>(x: T | TensorLike, paddings: Array<[number, number]>,
  mode: 'reflect' | 'symmetric'): T;
export function whereAsync(condition: Tensor | TensorLike): Promise<Tensor>;
export function booleanMaskAsync(tensor: Tensor | TensorLike, mask: Tensor | TensorLike,
  axis?: number): Promise<Tensor>;
export function setdiff1dAsync(x: Tensor | TensorLike, y: Tensor | TensorLike): Promise<[Tensor, Tensor]>;
export function stridedSlice(x: Tensor | TensorLike, begin: number[], end: number[], strides?: number[],
  beginMask?: number, endMask?: number, ellipsisMask?: number, newAxisMask?: number,
  shrinkAxisMask?: number): Tensor;
export function scatterND(indices: Tensor | TensorLike, updates: Tensor | TensorLike, shape: number[]): Tensor;
export function tensorScatterUpdate<T extends Tensor>(tensor: T | TensorLike, indices: Tensor | TensorLike,
  updates: Tensor | TensorLike): T;
export function gatherND(x: Tensor | TensorLike, indices: Tensor | TensorLike): Tensor;
export function spaceToBatchND<T extends Tensor>(x: T | TensorLike, blockShape: number[],
  paddings: number[][]): T;
export function batchToSpaceND<T extends Tensor>(x: T | TensorLike, blockShape: number[],
  crops: number[][]): T;
export function unique<T extends Tensor>(x: T | TensorLike, axis?: number): { values: T; indices: Tensor };
export function meshgrid<T extends Tensor>(x?: T | TensorLike, y?: T | TensorLike,
  options?: { indexing?: 'xy' | 'ij' }): T[];
export function diag(x: Tensor | TensorLike): Tensor;
export function randomStandardNormal(shape: number[], dtype?: 'float32' | 'int32', seed?: number): Tensor;
export function unsortedSegmentSum<T extends Tensor>(x: T | TensorLike, segmentIds: Tensor | TensorLike,
  numSegments: number): T;
export function bincount<T extends Tensor>(x: T | TensorLike, weights: Tensor | TensorLike, size: number): T;
export function denseBincount<T extends Tensor>(x: T | TensorLike, weights: Tensor | TensorLike, size: number,
  binaryOutput?: boolean): T;
export function searchSorted(sortedSequence: Tensor | TensorLike, values: Tensor | TensorLike,
  side?: 'left' | 'right'): Tensor;
export function lowerBound(sortedSequence: Tensor | TensorLike, values: Tensor | TensorLike): Tensor;
export function upperBound(sortedSequence: Tensor | TensorLike, values: Tensor | TensorLike): Tensor;
export function depthToSpace(x: Tensor | TensorLike, blockSize: number, dataFormat?: 'NHWC' | 'NCHW'): Tensor;
export function randomGamma(shape: number[], alpha: number, beta?: number, dtype?: 'float32' | 'int32',
  seed?: number): Tensor;
export function multinomial(logits: Tensor | TensorLike, numSamples: number, seed?: number,
  normalized?: boolean): Tensor;
export function concat1d(tensors: Array<Tensor | TensorLike>): Tensor;
export function concat2d(tensors: Array<Tensor | TensorLike>, axis: number): Tensor;
export function concat3d(tensors: Array<Tensor | TensorLike>, axis: number): Tensor;
export function concat4d(tensors: Array<Tensor | TensorLike>, axis: number): Tensor;
export function pad1d(x: Tensor | TensorLike, paddings: [number, number], constantValue?: number): Tensor;
export function pad2d(x: Tensor | TensorLike, paddings: Array<[number, number]>, constantValue?: number): Tensor;
export function pad3d(x: Tensor | TensorLike, paddings: Array<[number, number]>, constantValue?: number): Tensor;
export function pad4d(x: Tensor | TensorLike, paddings: Array<[number, number]>, constantValue?: number): Tensor;
export function reverse1d(x: Tensor | TensorLike): Tensor;
export function reverse2d(x: Tensor | TensorLike, axis?: number | number[]): Tensor;
export function reverse3d(x: Tensor | TensorLike, axis?: number | number[]): Tensor;
export function reverse4d(x: Tensor | TensorLike, axis?: number | number[]): Tensor;
export function slice1d(x: Tensor | TensorLike, begin: number, size: number): Tensor;
export function slice2d(x: Tensor | TensorLike, begin: [number, number], size: [number, number]): Tensor;
export function slice3d(x: Tensor | TensorLike, begin: number[], size: number[]): Tensor;
export function slice4d(x: Tensor | TensorLike, begin: number[], size: number[]): Tensor;
export function euclideanNorm(x: Tensor | TensorLike, axis?: number | number[] | null, keepDims?: boolean): Tensor;
export function print(x: Tensor, verbose?: boolean): void;
export function upcastType(typeA: DataType, typeB: DataType): DataType;
export function sumOutType(type: DataType): DataType;
export function dropout(x: Tensor | TensorLike, rate: number, noiseShape?: number[], seed?: number | string): Tensor;
export function randomUniformInt(shape: number[], minval: number, maxval: number, seed?: number | string): Tensor;
export function movingAverage<T extends Tensor>(v: T | TensorLike, x: T | TensorLike, decay: number | Tensor,
  step?: number | Tensor, zeroDebias?: boolean): T;
export function broadcastArgs(s0: Tensor | TensorLike, s1: Tensor | TensorLike): Tensor;
export function sparseToDense(sparseIndices: Tensor | TensorLike, sparseValues: Tensor | TensorLike,
  outputShape: number[], defaultValue?: number | boolean | Tensor): Tensor;
export function inTopKAsync(predictions: Tensor | TensorLike, targets: Tensor | TensorLike, k?: number): Promise<Tensor>;
export type LSTMCellFunc = (data: Tensor, c: Tensor, h: Tensor) => [Tensor, Tensor];
export function basicLSTMCell(forgetBias: Tensor | TensorLike, lstmKernel: Tensor | TensorLike,
  lstmBias: Tensor | TensorLike, data: Tensor | TensorLike, c: Tensor | TensorLike,
  h: Tensor | TensorLike): [Tensor, Tensor];
export function multiRNNCell(lstmCells: LSTMCellFunc[], data: Tensor | TensorLike, c: Array<Tensor | TensorLike>,
  h: Array<Tensor | TensorLike>): [Tensor[], Tensor[]];
export type PaddingType = 'valid' | 'same' | number | number[][];
export type Activation = 'linear' | 'relu' | 'prelu' | 'elu' | 'relu6' | 'leakyrelu' | 'sigmoid';
type Pair = number | [number, number];
type Triple = number | [number, number, number];
type Rounding = 'floor' | 'round' | 'ceil';
export function conv1d<T extends Tensor>(x: T | TensorLike, filter: Tensor | TensorLike, stride: number,
  pad: PaddingType, dataFormat?: 'NWC' | 'NCW', dilation?: number, dimRoundingMode?: Rounding): T;
export function conv2d<T extends Tensor>(x: T | TensorLike, filter: Tensor | TensorLike, strides: Pair,
  pad: PaddingType, dataFormat?: 'NHWC' | 'NCHW', dilations?: Pair, dimRoundingMode?: Rounding): T;
export function conv3d<T extends Tensor>(x: T | TensorLike, filter: Tensor | TensorLike, strides: Triple,
  pad: 'valid' | 'same', dataFormat?: 'NDHWC' | 'NCDHW', dilations?: Triple): T;
export function depthwiseConv2d<T extends Tensor>(x: T | TensorLike, filter: Tensor | TensorLike, strides: Pair,
  pad: PaddingType, dataFormat?: 'NHWC' | 'NCHW', dilations?: Pair, dimRoundingMode?: Rounding): T;
export function separableConv2d<T extends Tensor>(x: T | TensorLike, depthwiseFilter: Tensor | TensorLike,
  pointwiseFilter: Tensor | TensorLike, strides: Pair, pad: 'valid' | 'same', dilation?: Pair,
  dataFormat?: 'NHWC' | 'NCHW'): T;
export function dilation2d<T extends Tensor>(x: T | TensorLike, filter: Tensor | TensorLike, strides: Pair,
  pad: 'valid' | 'same', dilations?: Pair, dataFormat?: 'NHWC'): T;
export function conv2dTranspose<T extends Tensor>(x: T | TensorLike, filter: Tensor | TensorLike,
  outputShape: number[], strides: Pair, pad: PaddingType, dimRoundingMode?: Rounding): T;
export function conv3dTranspose<T extends Tensor>(x: T | TensorLike, filter: Tensor | TensorLike,
  outputShape: number[], strides: Triple, pad: 'valid' | 'same'): T;
export function maxPool<T extends Tensor>(x: T | TensorLike, filterSize: Pair, strides: Pair, pad: PaddingType,
  dimRoundingMode?: Rounding): T;
export function avgPool<T extends Tensor>(x: T | TensorLike, filterSize: Pair, strides: Pair, pad: PaddingType,
  dimRoundingMode?: Rounding): T;
export function maxPool3d<T extends Tensor>(x: T | TensorLike, filterSize: Triple, strides: Triple,
  pad: 'valid' | 'same' | number, dimRoundingMode?: Rounding, dataFormat?: 'NDHWC' | 'NCDHW'): T;
export function avgPool3d<T extends Tensor>(x: T | TensorLike, filterSize: Triple, strides: Triple,
  pad: 'valid' | 'same' | number, dimRoundingMode?: Rounding, dataFormat?: 'NDHWC' | 'NCDHW'): T;
export function maxPoolWithArgmax<T extends Tensor>(x: T | TensorLike, filterSize: Pair, strides: Pair,
  pad: 'valid' | 'same' | number, includeBatchInIndex?: boolean): { result: T; indexes: T };
export function pool<T extends Tensor>(input: T | TensorLike, windowShape: Pair, poolingType: 'avg' | 'max',
  pad: PaddingType, dilations?: Pair, strides?: Pair, dimRoundingMode?: Rounding): T;
export function localResponseNormalization<T extends Tensor>(x: T | TensorLike, depthRadius?: number,
  bias?: number, alpha?: number, beta?: number): T;
export namespace fused {
  interface FusedArgs {
    bias?: Tensor | TensorLike; activation?: Activation; preluActivationWeights?: Tensor;
    leakyreluAlpha?: number;
  }
  function matMul(args: FusedArgs & { a: Tensor | TensorLike; b: Tensor | TensorLike; transposeA?: boolean;
    transposeB?: boolean }): Tensor;
  function conv2d<T extends Tensor>(args: FusedArgs & { x: T | TensorLike; filter: Tensor | TensorLike;
    strides: Pair; pad: PaddingType; dataFormat?: 'NHWC' | 'NCHW'; dilations?: Pair;
    dimRoundingMode?: Rounding }): T;
  function depthwiseConv2d<T extends Tensor>(args: FusedArgs & { x: T | TensorLike; filter: Tensor | TensorLike;
    strides: Pair; pad: PaddingType; dataFormat?: 'NHWC' | 'NCHW'; dilations?: Pair;
    dimRoundingMode?: Rounding }): T;
}
export namespace test_util {
  const TEST_EPSILON_FLOAT16: number;
  function testEpsilon(): number;
  function expectArraysClose(actual: unknown, expected: unknown, epsilon?: number): void;
  function expectArraysEqual(actual: unknown, expected: unknown): void;
  function expectNumbersClose(a: number, e: number, epsilon?: number): void;
  function expectValuesInRange(actual: ArrayLike<number>, low: number, high: number): void;
  function expectPromiseToFail(fn: () => Promise<unknown>, done: { fail(): void; (): void }): void;
  function expectArrayBuffersEqual(actual: ArrayBuffer, expected: ArrayBuffer): void;
  function encodeStrings(a: unknown[]): unknown[];
  function createVideoElement(source: unknown): Promise<unknown>;
  function play(video: unknown): Promise<void>;
}
export namespace sparse {
  function sparseSegmentSum(data: Tensor | TensorLike, indices: Tensor | TensorLike,
    segmentIds: Tensor | TensorLike): Tensor;
  function sparseSegmentMean(data: Tensor | TensorLike, indices: Tensor | TensorLike,
    segmentIds: Tensor | TensorLike): Tensor;
  function sparseReshape(inputIndices: Tensor | TensorLike, inputShape: Tensor | TensorLike,
    newShape: Tensor | TensorLike): { outputIndices: Tensor; outputShape: Tensor };
  function sparseFillEmptyRows(indices: Tensor | TensorLike, values: Tensor | TensorLike,
    denseShape: Tensor | TensorLike, defaultValue: Tensor | TensorLike): {
    outputIndices: Tensor; outputValues: Tensor; emptyRowIndicator: Tensor; reverseIndexMap: Tensor };
}
export namespace image {
  function resizeNearestNeighbor<T extends Tensor>(images: T | TensorLike, size: [number, number],
    alignCorners?: boolean, halfPixelCenters?: boolean): T;
  function resizeBilinear<T extends Tensor>(images: T | TensorLike, size: [number, number],
    alignCorners?: boolean, halfPixelCenters?: boolean): T;
  function flipLeftRight<T extends Tensor>(image: T | TensorLike): T;
  function grayscaleToRGB<T extends Tensor>(image: T | TensorLike): T;
  function transform(image: Tensor | TensorLike, transforms: Tensor | TensorLike,
    interpolation?: 'nearest' | 'bilinear', fillMode?: 'constant' | 'reflect' | 'wrap' | 'nearest',
    fillValue?: number, outputShape?: [number, number]): Tensor;
  function rotateWithOffset(image: Tensor | TensorLike, radians: number,
    fillValue?: number | [number, number, number], center?: number | [number, number]): Tensor;
  function threshold(image: Tensor | TensorLike, method?: 'binary' | 'otsu', inverted?: boolean,
    threshValue?: number): Tensor;
  function rgbToGrayscale<T extends Tensor>(image: T | TensorLike): T;
  function cropAndResize(image: Tensor | TensorLike, boxes: Tensor | TensorLike, boxInd: Tensor | TensorLike,
    cropSize: [number, number], method?: 'bilinear' | 'nearest', extrapolationValue?: number): Tensor;
  function nonMaxSuppression(boxes: Tensor | TensorLike, scores: Tensor | TensorLike, maxOutputSize: number,
    iouThreshold?: number, scoreThreshold?: number): Tensor;
  function nonMaxSuppressionAsync(boxes: Tensor | TensorLike, scores: Tensor | TensorLike, maxOutputSize: number,
    iouThreshold?: number, scoreThreshold?: number): Promise<Tensor>;
  function nonMaxSuppressionWithScore(boxes: Tensor | TensorLike, scores: Tensor | TensorLike,
    maxOutputSize: number, iouThreshold?: number, scoreThreshold?: number,
    softNmsSigma?: number): { selectedIndices: Tensor; selectedScores: Tensor };
  function nonMaxSuppressionWithScoreAsync(boxes: Tensor | TensorLike, scores: Tensor | TensorLike,
    maxOutputSize: number, iouThreshold?: number, scoreThreshold?: number,
    softNmsSigma?: number): Promise<{ selectedIndices: Tensor; selectedScores: Tensor }>;
  function nonMaxSuppressionPadded(boxes: Tensor | TensorLike, scores: Tensor | TensorLike,
    maxOutputSize: number, iouThreshold?: number, scoreThreshold?: number,
    padToMaxOutputSize?: boolean): { selectedIndices: Tensor; validOutputs: Tensor };
  function nonMaxSuppressionPaddedAsync(boxes: Tensor | TensorLike, scores: Tensor | TensorLike,
    maxOutputSize: number, iouThreshold?: number, scoreThreshold?: number,
    padToMaxOutputSize?: boolean): Promise<{ selectedIndices: Tensor; validOutputs: Tensor }>;
}
export namespace signal {
  function hannWindow(windowLength: number): Tensor;
  function hammingWindow(windowLength: number): Tensor;
  function frame(signal: Tensor, frameLength: number, frameStep: number, padEnd?: boolean,
    padValue?: number): Tensor;
  function stft(signal: Tensor, frameLength: number, frameStep: number, fftLength?: number,
    windowFn?: (length: number) => Tensor): Tensor;
}
// complex64 tensors and the spectral ops.
export function complex<T extends Tensor>(real: T | TensorLike, imag: T | TensorLike): T;
export function real<T extends Tensor>(input: T | TensorLike): T;
export function imag<T extends Tensor>(input: T | TensorLike): T;
export function fft(input: Tensor): Tensor;
export function ifft(input: Tensor): Tensor;
export function rfft(input: Tensor, fftLength?: number): Tensor;
export function irfft(input: Tensor): Tensor;
export namespace spectral {
  function fft(input: Tensor): Tensor;
  function ifft(input: Tensor): Tensor;
  function rfft(input: Tensor, fftLength?: number): Tensor;
  function irfft(input: Tensor): Tensor;
}
// String tensors.
export namespace string {
  function stringNGrams(data: Tensor | TensorLike, dataSplits: Tensor | TensorLike, separator: string,
    nGramWidths: number[], leftPad: string, rightPad: string, padWidth: number,
    preserveShortSequences: boolean): { nGrams: Tensor; nGramsSplits: Tensor };
  function stringSplit(input: Tensor | TensorLike, delimiter: Tensor | TensorLike, skipEmpty?: boolean):
    { indices: Tensor; values: Tensor; shape: Tensor };
  function stringToHashBucketFast(input: Tensor | TensorLike, numBuckets: number): Tensor;
  function staticRegexReplace(input: Tensor | TensorLike, pattern: string, rewrite: string,
    replaceGlobal?: boolean): Tensor;
}
export namespace math {
  function confusionMatrix(labels: Tensor | TensorLike, predictions: Tensor | TensorLike,
    numClasses: number): Tensor;
}
export function batchNorm<T extends Tensor>(x: T | TensorLike, mean: Tensor | TensorLike,
  variance: Tensor | TensorLike, offset?: Tensor | TensorLike | null, scale?: Tensor | TensorLike | null,
  varianceEpsilon?: number): T;
export function batchNorm2d<T extends Tensor>(x: T | TensorLike, mean: Tensor | TensorLike,
  variance: Tensor | TensorLike, offset?: Tensor | TensorLike | null, scale?: Tensor | TensorLike | null,
  varianceEpsilon?: number): T;
export function batchNorm3d<T extends Tensor>(x: T | TensorLike, mean: Tensor | TensorLike,
  variance: Tensor | TensorLike, offset?: Tensor | TensorLike | null, scale?: Tensor | TensorLike | null,
  varianceEpsilon?: number): T;
export function batchNorm4d<T extends Tensor>(x: T | TensorLike, mean: Tensor | TensorLike,
  variance: Tensor | TensorLike, offset?: Tensor | TensorLike | null, scale?: Tensor | TensorLike | null,
  varianceEpsilon?: number): T;
export namespace linalg {
  function bandPart<T extends Tensor>(a: T | TensorLike, numLower: number, numUpper: number): T;
  function gramSchmidt(xs: Tensor[] | Tensor): Tensor[] | Tensor;
  function qr(x: Tensor | TensorLike, fullMatrices?: boolean): [Tensor, Tensor];
}
export function einsum(equation: string, ...tensors: Array<Tensor | TensorLike>): Tensor;

// ------------------------------------------------------------------------------------------
// Engine

export function tidy<T extends TensorContainer>(nameOrFn: string | ScopeFn<T>,
  fn?: ScopeFn<T>): T;
export function keep<T extends Tensor>(result: T): T;
export function dispose(container: TensorContainer): void;
export function memory(): MemoryInfo;
export function profile(f: () => (TensorContainer | Promise<TensorContainer>)):
  Promise<ProfileInfo>;
export function time(f: () => void): Promise<TimingInfo>;
export function engine(): Engine;
export function variable<R extends Rank>(initialValue: Tensor<R>, trainable?: boolean,
  name?: string, dtype?: DataType): Variable<R>;
export function disposeVariables(): void;

// Gradients
export function grad(f: (x: Tensor) => Tensor): (x: Tensor | TensorLike, dy?: Tensor | TensorLike) => Tensor;
export function grads(f: (...args: Tensor[]) => Tensor):
  (args: Array<Tensor | TensorLike>, dy?: Tensor | TensorLike) => Tensor[];
export function valueAndGrad<I extends Tensor, O extends Tensor>(f: (x: I) => O):
  (x: I, dy?: O) => { value: O; grad: I };
export function valueAndGrads<O extends Tensor>(f: (...args: Tensor[]) => O):
  (args: Tensor[], dy?: O) => { grads: Tensor[]; value: O };
export function variableGrads(f: () => Scalar, varList?: Variable[]):
  { value: Scalar; grads: NamedTensorMap };
export type GradSaveFunc = (save: Tensor[]) => void;
export function customGrad<T extends Tensor>(
  f: (...args: Array<Tensor | GradSaveFunc>) => { value: T; gradFunc: (dy: T, saved: Tensor[]) => Tensor | Tensor[] }):
  (...args: Tensor[]) => T;

// Optimizers (tf.train)
export interface NamedTensor { name: string; tensor: Tensor; }
export declare abstract class Optimizer extends serialization.Serializable {
  minimize(f: () => Scalar, returnCost?: boolean, varList?: Variable[]): Scalar | null;
  readonly iterations: number;
  computeGradients(f: () => Scalar, varList?: Variable[]): { value: Scalar; grads: NamedTensorMap };
  applyGradients(variableGradients: NamedTensorMap | NamedTensor[]): void;
  dispose(): void;
  saveIterations(): Promise<NamedTensor>;
  getWeights(): Promise<NamedTensor[]>;
  setWeights(weightValues: NamedTensor[]): Promise<void>;
}
export declare class SGDOptimizer extends Optimizer {
  constructor(learningRate: number);
  setLearningRate(learningRate: number): void;
  getConfig(): serialization.ConfigDict;
}
export declare class MomentumOptimizer extends Optimizer {
  constructor(learningRate: number, momentum: number, useNesterov?: boolean);
  setLearningRate(learningRate: number): void;
  getConfig(): serialization.ConfigDict;
}
export declare class AdagradOptimizer extends Optimizer {
  constructor(learningRate: number, initialAccumulatorValue?: number);
  getConfig(): serialization.ConfigDict;
}
export declare class AdadeltaOptimizer extends Optimizer {
  constructor(learningRate: number, rho: number, epsilon?: number | null);
  getConfig(): serialization.ConfigDict;
}
export declare class AdamOptimizer extends Optimizer {
  constructor(learningRate: number, beta1: number, beta2: number, epsilon?: number | null);
  getConfig(): serialization.ConfigDict;
}
export declare class AdamaxOptimizer extends Optimizer {
  constructor(learningRate: number, beta1: number, beta2: number, epsilon?: number | null, decay?: number);
  getConfig(): serialization.ConfigDict;
}
export declare class RMSPropOptimizer extends Optimizer {
  constructor(learningRate: number, decay?: number, momentum?: number, epsilon?: number | null, centered?: boolean);
  getConfig(): serialization.ConfigDict;
}
export declare class OptimizerConstructors {
  static sgd(learningRate: number): SGDOptimizer;
  static momentum(learningRate: number, momentum: number, useNesterov?: boolean): MomentumOptimizer;
  static rmsprop(learningRate: number, decay?: number, momentum?: number, epsilon?: number | null,
    centered?: boolean): RMSPropOptimizer;
  static adam(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number | null): AdamOptimizer;
  static adadelta(learningRate?: number, rho?: number, epsilon?: number | null): AdadeltaOptimizer;
  static adamax(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number | null,
    decay?: number): AdamaxOptimizer;
  static adagrad(learningRate: number, initialAccumulatorValue?: number): AdagradOptimizer;
}
export declare const train: typeof OptimizerConstructors;

// Layers and models (tf.layers, tf.sequential, tf.model; native in crates/layers)

export type Shape = Array<number | null>;
export type ActivationIdentifier = 'elu' | 'hardSigmoid' | 'linear' | 'relu' | 'relu6' | 'selu' | 'sigmoid' |
  'softmax' | 'softplus' | 'softsign' | 'tanh' | 'swish' | 'mish' | 'gelu' | 'gelu_new' | 'logSoftmax';
/** An initializer, regularizer or constraint: its class name and config. */
export declare class ConfigObject extends serialization.Serializable {
  getClassName(): string;
  getConfig(): { [key: string]: unknown };
}
export type InitializerIdentifier = 'constant' | 'glorotNormal' | 'glorotUniform' | 'heNormal' | 'heUniform' |
  'identity' | 'leCunNormal' | 'leCunUniform' | 'ones' | 'orthogonal' | 'randomNormal' | 'randomUniform' |
  'truncatedNormal' | 'varianceScaling' | 'zeros' | string;
/** The options tf.layers.* factories take (tfjs's names; each layer reads its own). */
export interface LayerArgs {
  inputShape?: Shape;
  batchInputShape?: Shape;
  batchSize?: number;
  inputDim?: number;
  inputLength?: number;
  name?: string;
  trainable?: boolean;
  dtype?: DataType;
  units?: number;
  filters?: number;
  kernelSize?: number | number[];
  strides?: number | number[];
  padding?: 'valid' | 'same' | 'causal' | number | number[] | number[][];
  dilationRate?: number | number[];
  depthMultiplier?: number;
  poolSize?: number | number[];
  activation?: ActivationIdentifier;
  recurrentActivation?: ActivationIdentifier;
  useBias?: boolean;
  rate?: number;
  targetShape?: number[];
  dims?: number[];
  n?: number;
  axis?: number | number[];
  momentum?: number;
  epsilon?: number;
  center?: boolean;
  scale?: boolean;
  outputDim?: number;
  size?: number[];
  interpolation?: 'nearest' | 'bilinear';
  maxValue?: number;
  alpha?: number;
  returnSequences?: boolean;
  returnState?: boolean;
  goBackwards?: boolean;
  unitForgetBias?: boolean;
  [key: string]: unknown;
}
export declare class SymbolicTensor {
  readonly dtype: DataType;
  readonly shape: Shape;
  readonly name: string;
  readonly rank: number;
  readonly sourceLayer: Layer | null;
}
/** A layer weight: an engine variable with the name model files know it by. */
export declare class LayerVariable {
  constructor(val: Tensor, dtype?: DataType, name?: string, trainable?: boolean, constraint?: Constraint | null);
  readonly name: string;
  readonly originalName: string;
  readonly shape: number[];
  readonly dtype: DataType;
  readonly constraint: Constraint | null;
  trainable: boolean;
  read(): Variable;
  write(value: Tensor): LayerVariable;
  dispose(): void;
}
/** What a layer expects of its inputs, checked at each `apply`. */
export declare class InputSpec {
  constructor(args: { dtype?: DataType; shape?: Shape; ndim?: number; maxNDim?: number; minNDim?: number; axes?: { [axis: number]: number } });
  dtype?: DataType;
  shape?: Shape;
  ndim?: number;
  maxNDim?: number;
  minNDim?: number;
  axes?: { [axis: number]: number };
}
export type Kwargs = { [key: string]: any };
export interface DisposeResult {
  refCountAfterDispose: number;
  numDisposedVariables: number;
}
/**
 * tf.layers.Layer: the class of every layer, and the base of layers written in JavaScript
 * (`class MyLayer extends tf.layers.Layer { build(inputShape) {...} call(inputs, kwargs) {...} }`,
 * with `static className` and tf.serialization.registerClass to save and load).
 */
export declare class Layer extends serialization.Serializable {
  constructor(args?: LayerArgs);
  name: string;
  trainable: boolean;
  built: boolean;
  supportsMasking: boolean;
  inputSpec: InputSpec[] | null;
  readonly id: number;
  readonly dtype: DataType;
  readonly batchInputShape?: Shape;
  readonly losses: Array<() => Scalar>;
  readonly stateful: boolean;
  readonly input: SymbolicTensor | SymbolicTensor[];
  readonly output: SymbolicTensor | SymbolicTensor[];
  inboundNodes: unknown[];
  outboundNodes: unknown[];
  readonly inputShape: Shape | Shape[];
  readonly outputShape: Shape | Shape[];
  readonly weights: LayerVariable[];
  readonly trainableWeights: LayerVariable[];
  readonly nonTrainableWeights: LayerVariable[];
  getClassName(): string;
  apply(inputs: Tensor | Tensor[], kwargs?: { training?: boolean }): Tensor | Tensor[];
  apply(inputs: SymbolicTensor | SymbolicTensor[], kwargs?: { training?: boolean }): SymbolicTensor | SymbolicTensor[];
  build(inputShape: Shape | Shape[]): void;
  call(inputs: Tensor | Tensor[], kwargs: Kwargs): Tensor | Tensor[];
  computeOutputShape(inputShape: Shape | Shape[]): Shape | Shape[];
  computeMask(inputs: Tensor | Tensor[], mask?: Tensor | Tensor[]): Tensor | Tensor[] | null;
  getWeights(trainableOnly?: boolean): Tensor[];
  setWeights(weights: Tensor[]): void;
  countParams(): number;
  getConfig(): { [key: string]: unknown };
  resetStates(states?: Tensor | Tensor[]): void;
  getInputAt(nodeIndex: number): SymbolicTensor | SymbolicTensor[];
  getOutputAt(nodeIndex: number): SymbolicTensor | SymbolicTensor[];
  calculateLosses(): Scalar[];
  setFastWeightInitDuringBuild(value: boolean): void;
  dispose(): DisposeResult;
  protected addWeight(name: string, shape: Shape, dtype?: DataType, initializer?: Initializer | string,
    regularizer?: Regularizer | null, trainable?: boolean, constraint?: Constraint | null,
    getInitializerFunc?: () => Initializer): LayerVariable;
  protected addLoss(losses: (() => Scalar) | Array<() => Scalar>): void;
  protected assertInputCompatibility(inputs: Tensor | Tensor[] | SymbolicTensor | SymbolicTensor[]): void;
}
export type Logs = { [key: string]: number };
export declare class BaseCallback {
  params: { [key: string]: unknown } | null;
  model: LayersModel | null;
  setParams(params: { [key: string]: unknown }): void;
  setModel(model: LayersModel): void;
  onEpochBegin(epoch: number, logs?: Logs): Promise<void>;
  onEpochEnd(epoch: number, logs?: Logs): Promise<void>;
  onBatchBegin(batch: number, logs?: Logs): Promise<void>;
  onBatchEnd(batch: number, logs?: Logs): Promise<void>;
  onTrainBegin(logs?: Logs): Promise<void>;
  onTrainEnd(logs?: Logs): Promise<void>;
}
export declare class Callback extends BaseCallback {}
export interface CustomCallbackArgs {
  onTrainBegin?: (logs?: Logs) => void | Promise<void>;
  onTrainEnd?: (logs?: Logs) => void | Promise<void>;
  onEpochBegin?: (epoch: number, logs?: Logs) => void | Promise<void>;
  onEpochEnd?: (epoch: number, logs?: Logs) => void | Promise<void>;
  onBatchBegin?: (batch: number, logs?: Logs) => void | Promise<void>;
  onBatchEnd?: (batch: number, logs?: Logs) => void | Promise<void>;
  onYield?: (epoch: number, batch: number, logs: Logs) => void | Promise<void>;
}
export declare class CustomCallback extends BaseCallback {
  constructor(args: CustomCallbackArgs, yieldEvery?: YieldEveryOptions);
}
export declare class CallbackList {
  constructor(callbacks?: BaseCallback[], queueLength?: number);
}
export declare class History extends BaseCallback {
  epoch: number[];
  history: { [key: string]: number[] };
}
export interface EarlyStoppingCallbackArgs {
  monitor?: string;
  minDelta?: number;
  patience?: number;
  verbose?: number;
  mode?: 'auto' | 'min' | 'max';
  baseline?: number;
  restoreBestWeights?: boolean;
}
export declare class EarlyStopping extends Callback {
  constructor(args?: EarlyStoppingCallbackArgs);
}
export declare const callbacks: { earlyStopping(args?: EarlyStoppingCallbackArgs): EarlyStopping };
/** Callbacks every fit makes at or below its verbosity (tfjs's CallbackConstructorRegistry). */
export function registerCallbackConstructor(verbosityLevel: number, callbackConstructor: new () => BaseCallback): void;
export type YieldEveryOptions = 'auto' | 'batch' | 'epoch' | 'never' | number;
export interface ModelFitArgs {
  batchSize?: number;
  epochs?: number;
  verbose?: 0 | 1 | 2;
  callbacks?: BaseCallback[] | CustomCallbackArgs | CustomCallbackArgs[];
  validationSplit?: number;
  validationData?: [Tensor | Tensor[], Tensor | Tensor[]];
  shuffle?: boolean;
  classWeight?: { [classIndex: string]: number };
  initialEpoch?: number;
  yieldEvery?: YieldEveryOptions;
}
/** A loss or metric written in JavaScript: per-sample values (or their mean). */
export type LossOrMetricFn = (yTrue: Tensor, yPred: Tensor) => Tensor;
export interface ModelCompileArgs {
  optimizer: string | Optimizer;
  loss: string | LossOrMetricFn | Array<string | LossOrMetricFn> | { [outputName: string]: string | LossOrMetricFn };
  metrics?: string | LossOrMetricFn | Array<string | LossOrMetricFn> | { [outputName: string]: string | LossOrMetricFn };
}
export declare class LayersModel extends Layer {
  layers: Layer[];
  inputs: SymbolicTensor[];
  outputs: SymbolicTensor[];
  optimizer: Optimizer;
  stopTraining: boolean;
  history: History | null;
  readonly inputNames: string[];
  readonly outputNames: string[];
  compile(args: ModelCompileArgs): void;
  fit(x: Tensor | Tensor[], y: Tensor | Tensor[], args?: ModelFitArgs): Promise<History>;
  evaluate(x: Tensor | Tensor[], y: Tensor | Tensor[], args?: { batchSize?: number; verbose?: number }): Scalar | Scalar[];
  predict(x: Tensor | Tensor[], args?: { batchSize?: number; verbose?: boolean }): Tensor | Tensor[];
  /**
   * tidytensor's extension: predict() on tidytensor's serving thread, the JavaScript thread
   * free meanwhile. `args.signal`, an AbortSignal, rejects the Promise.
   */
  predictAsync(x: Tensor | Tensor[], args?: { batchSize?: number; verbose?: boolean; signal?: AbortSignal }):
    Promise<Tensor | Tensor[]>;
  predictOnBatch(x: Tensor | Tensor[]): Tensor | Tensor[];
  trainOnBatch(x: Tensor | Tensor[], y: Tensor | Tensor[]): Promise<number | number[]>;
  summary(lineLength?: number, positions?: number[], printFn?: (message?: unknown, ...rest: unknown[]) => void): void;
  getLayer(name: string): Layer;
  getLayer(index: number): Layer;
  toJSON(unused?: unknown, returnString?: boolean): string | object;
}
export declare class Sequential extends LayersModel {
  constructor(args?: { layers?: Layer[]; name?: string });
  add(layer: Layer): void;
  pop(): void;
}
export function sequential(config?: { layers?: Layer[]; name?: string }): Sequential;
export function model(args: { inputs: SymbolicTensor | SymbolicTensor[]; outputs: SymbolicTensor | SymbolicTensor[]; name?: string }): LayersModel;
export function input(config: { shape?: Shape; batchShape?: Shape; name?: string; dtype?: DataType }): SymbolicTensor;
type LayerFactory = (args?: LayerArgs) => Layer;
type MergeFactory = (args?: LayerArgs | Tensor[] | SymbolicTensor[]) => Layer | Tensor | SymbolicTensor;
/** The tf.layers factories that make one layer from its options. */
export type LayerFactoryName = 'activation' | 'alphaDropout' | 'averagePooling1d' | 'averagePooling2d' |
  'averagePooling3d' | 'avgPool1d' | 'avgPool2d' | 'avgPool3d' | 'avgPooling1d' | 'avgPooling2d' | 'avgPooling3d' |
  'batchNormalization' | 'bidirectional' | 'categoryEncoding' | 'centerCrop' | 'conv1d' | 'conv2d' |
  'conv2dTranspose' | 'conv3d' | 'conv3dTranspose' | 'convLstm2d' | 'convLstm2dCell' | 'cropping2D' | 'dense' |
  'depthwiseConv2d' | 'dot' | 'dropout' | 'elu' | 'embedding' | 'flatten' | 'gaussianDropout' | 'gaussianNoise' |
  'globalAveragePooling1d' | 'globalAveragePooling2d' | 'globalMaxPool1d' | 'globalMaxPool2d' |
  'globalMaxPooling1d' | 'globalMaxPooling2d' | 'gru' | 'gruCell' | 'inputLayer' | 'layerNormalization' |
  'leakyReLU' | 'lstm' | 'lstmCell' | 'masking' | 'maxPool1d' | 'maxPool2d' | 'maxPooling1d' | 'maxPooling2d' |
  'maxPooling3d' | 'permute' | 'prelu' | 'randomWidth' | 'reLU' | 'repeatVector' | 'rescaling' | 'reshape' |
  'resizing' | 'rnn' | 'separableConv2d' | 'simpleRNN' | 'simpleRNNCell' | 'softmax' | 'spatialDropout1d' |
  'stackedRNNCells' | 'thresholdedReLU' | 'timeDistributed' | 'upSampling2d' | 'zeroPadding2d';
/** The base of recurrent cells written in JavaScript: `stateSize`, and `call([x, ...states])` giving `[output, ...newStates]`. */
export declare class RNNCell extends Layer {
  stateSize: number | number[];
}
/** A recurrent layer over a cell (tf.layers.rnn makes one); the built-in recurrent layers are RNNs too. */
export declare class RNN extends Layer {
  constructor(args: LayerArgs & { cell: RNNCell | Layer; returnSequences?: boolean; returnState?: boolean; goBackwards?: boolean; stateful?: boolean });
  readonly cell: RNNCell | Layer;
  readonly returnSequences: boolean;
  readonly returnState: boolean;
  readonly goBackwards: boolean;
  states: Tensor[];
}
export declare const layers: {
  Layer: typeof Layer;
  RNN: typeof RNN;
  RNNCell: typeof RNNCell;
  input: typeof input;
  add: MergeFactory; average: MergeFactory; concatenate: MergeFactory; maximum: MergeFactory; minimum: MergeFactory;
  multiply: MergeFactory;
} & { [name in LayerFactoryName]: LayerFactory };
/** An initializer: `apply` gives the values it gives a weight of `shape`. */
export interface Initializer extends ConfigObject {
  apply(shape: number[], dtype?: DataType): Tensor;
}
/** A regularizer: `apply` gives its penalty of `x`. */
export interface Regularizer extends ConfigObject {
  apply(x: Tensor | TensorLike): Tensor;
}
/** A constraint: `apply` gives `w` projected by it. */
export interface Constraint extends ConfigObject {
  apply(w: Tensor | TensorLike): Tensor;
}
export declare const initializers: { [name: string]: (config?: { [key: string]: unknown }) => Initializer };
export declare const regularizers: {
  l1(config?: { l1?: number }): Regularizer;
  l2(config?: { l2?: number }): Regularizer;
  l1l2(config?: { l1?: number; l2?: number }): Regularizer;
};
export declare const constraints: { [name: string]: (config?: { [key: string]: unknown }) => Constraint };

export function getBackend(): string;
export function setBackend(backendName: string): Promise<boolean>;
export function ready(): Promise<void>;
export function backend(): Backend;
export function findBackend(name: string): { name: string } | null;
export function enableProdMode(): void;
export function enableDebugMode(): void;
export function disableDeprecationWarnings(): void;
export function deprecationWarn(msg: string): void;
export function env(): Environment;
export declare const ENV: Environment;

export type FlagValue = number | boolean | string;
export type Flags = { [featureName: string]: FlagValue };

/** tfjs's environment flags (`tf.env()`): IS_NODE, DEBUG, PROD and the rest of tfjs 4.22's. */
export declare class Environment {
  readonly global: any;
  readonly features: Flags;
  platformName: string;
  platform: any;
  constructor(global: any);
  registerFlag(flagName: string, evaluationFn: () => FlagValue | Promise<FlagValue>,
    setHook?: (value: FlagValue) => void): void;
  get(flagName: string): FlagValue;
  getAsync(flagName: string): Promise<FlagValue>;
  getNumber(flagName: string): number;
  getBool(flagName: string): boolean;
  getString(flagName: string): string;
  getFlags(): Flags;
  set(flagName: string, value: FlagValue): void;
  setFlags(flags: Flags): void;
  reset(): void;
  setPlatform(platformName: string, platform: any): void;
}
export function setPlatform(platformName: string, platform: any): void;

/** A mutable buffer of values that becomes a tensor (`tf.buffer`). */
export declare class TensorBuffer<R extends Rank = Rank, D extends DataType = 'float32'> {
  shape: ShapeMap[R];
  dtype: D;
  size: number;
  values: DataTypeMap[D];
  readonly strides: number[];
  get rank(): number;
  constructor(shape: ShapeMap[R], dtype: D, values?: DataTypeMap[D]);
  set(value: number | boolean, ...locs: number[]): void;
  get(...locs: number[]): number | boolean;
  locToIndex(locs: number[]): number;
  indexToLoc(index: number): number[];
  toTensor(): Tensor<R>;
}

export declare const version: { [packageName: string]: string };
export declare const version_core: string;
export declare const version_layers: string;
export declare const version_converter: string;

// ------------------------------------------------------------------------------------------
// Losses

export enum Reduction { NONE = 0, MEAN = 1, SUM = 2, SUM_BY_NONZERO_WEIGHTS = 3 }

export namespace losses {
  function absoluteDifference(labels: Tensor | TensorLike, predictions: Tensor | TensorLike,
    weights?: Tensor | TensorLike | null, reduction?: Reduction): Tensor;
  function computeWeightedLoss(losses: Tensor | TensorLike, weights?: Tensor | TensorLike | null,
    reduction?: Reduction): Tensor;
  function cosineDistance(labels: Tensor | TensorLike, predictions: Tensor | TensorLike, axis: number,
    weights?: Tensor | TensorLike | null, reduction?: Reduction): Tensor;
  function hingeLoss(labels: Tensor | TensorLike, predictions: Tensor | TensorLike,
    weights?: Tensor | TensorLike | null, reduction?: Reduction): Tensor;
  function huberLoss(labels: Tensor | TensorLike, predictions: Tensor | TensorLike,
    weights?: Tensor | TensorLike | null, delta?: number, reduction?: Reduction): Tensor;
  function logLoss(labels: Tensor | TensorLike, predictions: Tensor | TensorLike,
    weights?: Tensor | TensorLike | null, epsilon?: number, reduction?: Reduction): Tensor;
  function meanSquaredError(labels: Tensor | TensorLike, predictions: Tensor | TensorLike,
    weights?: Tensor | TensorLike | null, reduction?: Reduction): Tensor;
  function sigmoidCrossEntropy(multiClassLabels: Tensor | TensorLike, logits: Tensor | TensorLike,
    weights?: Tensor | TensorLike | null, labelSmoothing?: number, reduction?: Reduction): Tensor;
  function softmaxCrossEntropy(onehotLabels: Tensor | TensorLike, logits: Tensor | TensorLike,
    weights?: Tensor | TensorLike | null, labelSmoothing?: number, reduction?: Reduction): Tensor;
}

// ------------------------------------------------------------------------------------------
// tf.util, tf.tensor_util (tfjs-core) and tf.metrics (tfjs-layers)

/** A 64-bit integer as the `long` package represents it (tf.util.hexToLong, fingerPrint64). */
export interface Long {
  low: number;
  high: number;
  unsigned: boolean;
  toInt(): number;
  toNumber(): number;
  toString(radix?: number): string;
  getHighBits(): number;
  getHighBitsUnsigned(): number;
  getLowBits(): number;
  getLowBitsUnsigned(): number;
  getNumBitsAbs(): number;
  isZero(): boolean;
  eqz(): boolean;
  isNegative(): boolean;
  isPositive(): boolean;
  isOdd(): boolean;
  isEven(): boolean;
  equals(other: Long | number | string): boolean;
  eq(other: Long | number | string): boolean;
  notEquals(other: Long | number | string): boolean;
  neq(other: Long | number | string): boolean;
  ne(other: Long | number | string): boolean;
  lessThan(other: Long | number | string): boolean;
  lt(other: Long | number | string): boolean;
  lessThanOrEqual(other: Long | number | string): boolean;
  lte(other: Long | number | string): boolean;
  le(other: Long | number | string): boolean;
  greaterThan(other: Long | number | string): boolean;
  gt(other: Long | number | string): boolean;
  greaterThanOrEqual(other: Long | number | string): boolean;
  gte(other: Long | number | string): boolean;
  ge(other: Long | number | string): boolean;
  compare(other: Long | number | string): number;
  comp(other: Long | number | string): number;
  negate(): Long;
  neg(): Long;
  add(addend: Long | number | string): Long;
  subtract(subtrahend: Long | number | string): Long;
  sub(subtrahend: Long | number | string): Long;
  multiply(multiplier: Long | number | string): Long;
  mul(multiplier: Long | number | string): Long;
  divide(divisor: Long | number | string): Long;
  div(divisor: Long | number | string): Long;
  modulo(divisor: Long | number | string): Long;
  mod(divisor: Long | number | string): Long;
  rem(divisor: Long | number | string): Long;
  not(): Long;
  and(other: Long | number | string): Long;
  or(other: Long | number | string): Long;
  xor(other: Long | number | string): Long;
  shiftLeft(numBits: number | Long): Long;
  shl(numBits: number | Long): Long;
  shiftRight(numBits: number | Long): Long;
  shr(numBits: number | Long): Long;
  shiftRightUnsigned(numBits: number | Long): Long;
  shru(numBits: number | Long): Long;
  shr_u(numBits: number | Long): Long;
  toSigned(): Long;
  toUnsigned(): Long;
  toBytes(le?: boolean): number[];
  toBytesLE(): number[];
  toBytesBE(): number[];
}

export type FlatVector = boolean[] | number[] | TypedArray;

export namespace util {
  function arraysEqual(n1: FlatVector | null | undefined, n2: FlatVector | null | undefined): boolean;
  function arraysEqualWithNull(n1: Array<number | null> | null | undefined,
    n2: Array<number | null> | null | undefined): boolean;
  function assert(expr: boolean, msg: string | (() => string)): void;
  function assertNonNegativeIntegerDimensions(shape: number[]): void;
  function assertNonNull(a: TensorLike | null | undefined): void;
  function assertShapesMatch(shapeA: number[], shapeB: number[], errorMessagePrefix?: string): void;
  function bytesFromStringArray(arr: Uint8Array[] | null | undefined): number;
  function bytesPerElement(dtype: DataType): number;
  function checkConversionForErrors<D extends DataType>(vals: DataTypeMap[D] | number[],
    dtype: D): void;
  function clamp(min: number, x: number, max: number): number;
  function computeStrides(shape: number[]): number[];
  function convertBackendValuesAndArrayBuffer(data: BackendValues | ArrayBuffer,
    dtype: DataType): Float32Array | Int32Array | Uint8Array | Uint8Array[];
  function createScalarValue(value: DataType | number | boolean | string,
    dtype: DataType): BackendValues;
  function createShuffledIndices(n: number): Uint32Array;
  function decodeString(bytes: Uint8Array, encoding?: string): string;
  function distSquared(a: FlatVector, b: FlatVector): number;
  function encodeString(s: string, encoding?: string): Uint8Array;
  function fetch(path: string, requestInits?: RequestInit): Promise<Response>;
  function fingerPrint64(s: Uint8Array, len?: number): Long;
  function flatten<T extends number | boolean | string | Promise<number> | TypedArray>(
    arr: T | RecursiveArray<T>, result?: T[], skipTypedArray?: boolean): T[];
  function getArrayFromDType<D extends DataType>(dtype: D, size: number): DataTypeMap[D];
  function getTypedArrayFromDType<D extends NumericDataType>(dtype: D, size: number): DataTypeMap[D];
  function hasEncodingLoss(oldType: DataType, newType: DataType): boolean;
  function hexToLong(hex: string): Long;
  function indexToLoc(index: number, rank: number, strides: number[]): number[];
  function inferDtype(values: TensorLike): DataType;
  function inferFromImplicitShape(shape: number[], size: number): number[];
  function isBoolean(value: {}): boolean;
  function isFunction(f: Function): boolean;
  function isInt(a: number): boolean;
  function isNumber(value: {}): boolean;
  function isPromise(object: any): object is Promise<unknown>;
  function isScalarShape(shape: number[]): boolean;
  function isString(value: {}): value is string;
  function isTypedArray(a: {}): a is Float32Array | Int32Array | Uint8Array | Uint8ClampedArray;
  function isValidDtype(dtype: DataType): boolean;
  function locToIndex(locs: number[], rank: number, strides: number[]): number;
  function makeOnesTypedArray<D extends DataType>(size: number, dtype: D): DataTypeMap[D];
  function makeZerosNestedTypedArray<D extends DataType>(shape: number[], dtype: D): number | any[];
  function makeZerosTypedArray<D extends DataType>(size: number, dtype: D): DataTypeMap[D];
  function nearestDivisor(size: number, start: number): number;
  function nearestLargerEven(val: number): number;
  function now(): number;
  function parseAxisParam(axis: number | number[] | null | undefined, shape: number[]): number[];
  function randUniform(a: number, b: number): number;
  function repeatedTry(checkFn: () => boolean, delayFn?: (counter: number) => number,
    maxCounter?: number, scheduleFn?: (functionRef: Function, delay: number) => void): Promise<void>;
  function rightPad(a: string, size: number): string;
  function shuffle(array: any[] | Uint32Array | Int32Array | Float32Array): void;
  function shuffleCombo(array: any[] | Uint32Array | Int32Array | Float32Array,
    array2: any[] | Uint32Array | Int32Array | Float32Array): void;
  function sizeFromShape(shape: number[]): number;
  function sizeToSquarishShape(size: number): [number, number];
  function squeezeShape(shape: number[], axis?: number | number[]): { newShape: number[]; keptDims: number[] };
  function sum(arr: number[] | TypedArray): number;
  function swap<T>(object: { [index: number]: T }, left: number, right: number): void;
  function tanh(x: number): number;
  function toNestedArray(shape: number[], a: TypedArray | number[], isComplex?: boolean): number | any[];
  function toTypedArray(a: TensorLike, dtype: DataType): TypedArray;
}

export namespace tensor_util {
  function assertTypesMatch(a: Tensor, b: Tensor): void;
  function getTensorsInContainer(result: TensorContainer): Tensor[];
  function isTensorInList(tensor: Tensor, tensorList: Tensor[]): boolean;
  function makeTypesMatch<T extends Tensor>(a: T, b: T): [T, T];
}

/** Metric functions (tfjs-layers' tf.metrics); each returns a new tensor. */
export namespace metrics {
  function MAPE(yTrue: Tensor, yPred: Tensor): Tensor;
  function MSE(yTrue: Tensor, yPred: Tensor): Tensor;
  function binaryAccuracy(yTrue: Tensor, yPred: Tensor): Tensor;
  function binaryCrossentropy(yTrue: Tensor, yPred: Tensor): Tensor;
  function categoricalAccuracy(yTrue: Tensor, yPred: Tensor): Tensor;
  function categoricalCrossentropy(yTrue: Tensor, yPred: Tensor): Tensor;
  function cosineProximity(yTrue: Tensor, yPred: Tensor): Tensor;
  function mape(yTrue: Tensor, yPred: Tensor): Tensor;
  function meanAbsoluteError(yTrue: Tensor, yPred: Tensor): Tensor;
  function meanAbsolutePercentageError(yTrue: Tensor, yPred: Tensor): Tensor;
  function meanSquaredError(yTrue: Tensor, yPred: Tensor): Tensor;
  function mse(yTrue: Tensor, yPred: Tensor): Tensor;
  function precision(yTrue: Tensor, yPred: Tensor): Tensor;
  function r2Score(yTrue: Tensor, yPred: Tensor): Tensor;
  function recall(yTrue: Tensor, yPred: Tensor): Tensor;
  function sparseCategoricalAccuracy(yTrue: Tensor, yPred: Tensor): Tensor;
}

// ------------------------------------------------------------------------------------------
// tfjs-core's helper namespaces, registries and small helpers (lib/internals.js,
// lib/registry.js)

export declare const OP_SCOPE_SUFFIX: string;
/** Wraps `{name: fn}` as an op named `name__op`, run in its own scope. */
export function op<T extends Function>(f: { [name: string]: T }): T;
export function rand<R extends Rank>(shape: ShapeMap[R], randFunction: () => number,
  dtype?: DataType): Tensor<R>;
export function ensureShape<R extends Rank>(x: Tensor, shape: ShapeMap[R]): Tensor;
export function cosineWindow(windowLength: number, a: number, b: number): Tensor1D;
export function bitwiseAnd<R extends Rank>(x: Tensor, y: Tensor): Tensor<R>;
export function enclosingPowerOfTwo(value: number): number;
export function nextFrame(): Promise<void>;

/** A kernel's output: a tidytensor Tensor, or values to make one from. */
export type KernelOutput = Tensor | { values: TensorLike; shape: number[]; dtype?: DataType };
export type AttributeValue = number | number[] | boolean | boolean[] | string | string[] | NamedAttrMap;
export interface NamedAttrMap { [name: string]: AttributeValue | RecursiveArray<AttributeValue> }
export interface NamedTensorInfoMap { [name: string]: Tensor | undefined }
export type KernelFunc = (params: { inputs: NamedTensorInfoMap; backend: {}; attrs?: NamedAttrMap }) =>
  KernelOutput | KernelOutput[];
export interface KernelConfig {
  kernelName: string;
  backendName: string;
  kernelFunc: KernelFunc;
  setupFunc?: (backend: {}) => void;
  disposeFunc?: (backend: {}) => void;
}
export type GradFunc = (dy: Tensor | Tensor[], saved: Tensor[], attrs: NamedAttrMap) =>
  { [inputName: string]: () => Tensor };
export interface GradConfig {
  kernelName: string;
  inputsToSave?: string[];
  saveAllInputs?: boolean;
  outputsToSave?: boolean[];
  gradFunc: GradFunc;
}
export function registerKernel(config: KernelConfig): void;
export function unregisterKernel(kernelName: string, backendName: string): void;
export function getKernel(kernelName: string, backendName: string): KernelConfig | undefined;
export function getKernelsForBackend(backendName: string): KernelConfig[];
export function copyRegisteredKernels(registeredBackendName: string, newBackendName: string): void;
export function registerGradient(config: GradConfig): void;
export function unregisterGradient(kernelName: string): void;
export function getGradient(kernelName: string): GradConfig | undefined;
/** Records a backend factory; tidytensor's setBackend refuses such JavaScript backends. */
export function registerBackend(name: string, factory: () => KernelBackend | Promise<KernelBackend>,
  priority?: number): boolean;
export function removeBackend(name: string): void;
export function findBackendFactory(name: string): (() => KernelBackend | Promise<KernelBackend> | { name: string } | null) | null;

export interface Engine {
  /** Runs the kernel registered (registerKernel) for the active backend. */
  runKernel<T extends Tensor | Tensor[]>(kernelName: string, inputs: NamedTensorInfoMap,
    attrs?: NamedAttrMap): T;
}

export declare class KernelBackend {
  refCount(dataId: object): number;
  incRef(dataId: object): void;
  timerAvailable(): boolean;
  time(f: () => void): Promise<any>;
  read(dataId: object): Promise<BackendValues>;
  readSync(dataId: object): BackendValues;
  readToGPU(dataId: object, options?: {}): any;
  numDataIds(): number;
  disposeData(dataId: object, force?: boolean): boolean;
  write(values: BackendValues, shape: number[], dtype: DataType): object;
  move(dataId: object, values: BackendValues, shape: number[], dtype: DataType, refCount: number): void;
  createTensorFromGPUData(values: any, shape: number[], dtype: DataType): Tensor;
  memory(): { unreliable: boolean; reasons?: string[] };
  floatPrecision(): 16 | 32;
  epsilon(): number;
  dispose(): void;
}
export declare class DataStorage<T> {
  constructor(backend: KernelBackend, dataMover: { moveData(backend: KernelBackend, dataId: object): void });
  get(dataId: object): T;
  set(dataId: object, value: T): void;
  has(dataId: object): boolean;
  delete(dataId: object): boolean;
  numDataIds(): number;
}

/** A `{shape, rank, dtype, size}` view: a Tensor, or any object with those fields. */
export interface ShapeInfo { shape: number[]; rank?: number; dtype?: DataType; size?: number }
export type PadInfo = { top: number; left: number; right: number; bottom: number; type: string };
export type PadInfo3D = PadInfo & { front: number; back: number };
export type ExplicitPadding = [[number, number], [number, number], [number, number], [number, number]];
export interface Conv2DInfo {
  batchSize: number; inHeight: number; inWidth: number; inChannels: number; outHeight: number;
  outWidth: number; outChannels: number; dataFormat: 'channelsFirst' | 'channelsLast';
  strideHeight: number; strideWidth: number; dilationHeight: number; dilationWidth: number;
  filterHeight: number; filterWidth: number; effectiveFilterHeight: number;
  effectiveFilterWidth: number; padInfo: PadInfo; inShape: number[]; outShape: number[];
  filterShape: number[];
}
export interface Conv3DInfo {
  batchSize: number; inDepth: number; inHeight: number; inWidth: number; inChannels: number;
  outDepth: number; outHeight: number; outWidth: number; outChannels: number;
  dataFormat: 'channelsFirst' | 'channelsLast'; strideDepth: number; strideHeight: number;
  strideWidth: number; dilationDepth: number; dilationHeight: number; dilationWidth: number;
  filterDepth: number; filterHeight: number; filterWidth: number; effectiveFilterDepth: number;
  effectiveFilterHeight: number; effectiveFilterWidth: number; padInfo: PadInfo3D;
  inShape: number[]; outShape: number[]; filterShape: number[];
}
export interface SliceInfo {
  finalShapeSparse: number[]; finalShape: number[]; isIdentity: boolean; sliceDim0: boolean;
  isSimpleSlice: boolean; begin: number[]; end: number[]; strides: number[];
}
type ConvPad = 'valid' | 'same' | number | ExplicitPadding;
type DimRounding = 'floor' | 'round' | 'ceil' | null | undefined;
type ComplexParts = { real: Float32Array; imag: Float32Array };
type SliceUtilNamespace = typeof slice_util;

export namespace slice_util {
  function assertParamsValid(input: ShapeInfo, begin: number[], size: number[]): void;
  function computeFlatOffset(begin: number[], strides: number[]): number;
  function computeOutShape(begin: number[], end: number[], strides: number[]): number[];
  function getNormalizedAxes(inputShape: number[], ellipsisAxes: number[], numInterpolatedAxes: number,
    begin: number[], end: number[], strides: number[], beginMask: number, endMask: number,
    ellipsisMask: number): { begin: number[]; end: number[]; strides: number[] };
  function isSliceContinous(shape: number[], begin: number[], size: number[]): boolean;
  function maskToAxes(mask: number): number[];
  function parseSliceParams(x: ShapeInfo, begin: number | number[], size?: number | number[]): number[][];
  function sliceInfo(xShape: number[], begin: number[], end: number[], strides: number[] | null,
    beginMask: number, endMask: number, ellipsisMask: number, newAxisMask: number,
    shrinkAxisMask: number): SliceInfo;
  function startForAxis(beginMask: number, startIndices: number[], strides: number[],
    inputShape: number[], axis: number, ellipsisMask: number): number;
  function startIndicesWithElidedDims(beginMask: number, ellipsisInsertionIndex: number,
    numElidedAxes: number, originalBegin: number[], inputShape: number[]): number[];
  function stopForAxis(endMask: number, stopIndices: number[], strides: number[],
    inputShape: number[], axis: number, ellipsisMask: number): number;
  function stopIndicesWithElidedDims(endMask: number, ellipsisInsertionIndex: number,
    numElidedAxes: number, originalEnd: number[], inputShape: number[]): number[];
  function stridesForAxis(strides: number[], axis: number, ellipsisMask: number): number;
  function stridesWithElidedDims(strides: number[], ellipsisInsertionIndex: number,
    numElidedAxes: number, inputShape: number[]): number[];
}

export namespace broadcast_util {
  function assertAndGetBroadcastShape(shapeA: number[], shapeB: number[]): number[];
  function getBroadcastDims(inShape: number[], outShape: number[]): number[];
  function getReductionAxes(inShape: number[], outShape: number[]): number[];
}
export namespace gather_util {
  function prepareAndValidate(tensor: ShapeInfo, indices: ShapeInfo): [number[], number, number, number[]];
}
export namespace scatter_util {
  function calculateShapes(updates: ShapeInfo, indices: ShapeInfo, shape: number[]):
    { sliceRank: number; numUpdates: number; sliceSize: number; strides: number[]; outputSize: number };
  function validateInput(updates: ShapeInfo, indices: ShapeInfo, shape: number[]): void;
  function validateUpdateShape(shape: number[], indices: ShapeInfo, updates: ShapeInfo): void;
}

export namespace backend_util {
  const ERF_A1: number; const ERF_A2: number; const ERF_A3: number; const ERF_A4: number;
  const ERF_A5: number; const ERF_P: number; const PARALLELIZE_THRESHOLD: number;
  const SELU_SCALE: number; const SELU_SCALEALPHA: number;
  enum RowPartitionType {
    FIRST_DIM_SIZE = 0, VALUE_ROWIDS = 1, ROW_LENGTHS = 2, ROW_SPLITS = 3, ROW_LIMITS = 4, ROW_STARTS = 5,
  }
  type Activation = 'linear' | 'relu' | 'prelu' | 'elu' | 'relu6' | 'leakyrelu' | 'sigmoid';
  function applyActivation(x: Tensor, activation: Activation, preluActivationWeights?: Tensor | null,
    leakyreluAlpha?: number): Tensor;
  function getFusedDyActivation(dy: Tensor, y: Tensor, activation: Activation): Tensor;
  function getFusedBiasGradient(bias: Tensor, dyActivation: Tensor): Tensor;
  function shouldFuse(gradientDepth: number, activation: Activation): boolean;
  const assertAndGetBroadcastShape: typeof broadcast_util.assertAndGetBroadcastShape;
  const getBroadcastDims: typeof broadcast_util.getBroadcastDims;
  const getReductionAxes: typeof broadcast_util.getReductionAxes;
  function assertAxesAreInnerMostDims(msg: string, axes: number[], rank: number): void;
  function axesAreInnerMostDims(axes: number[], rank: number): boolean;
  function combineLocations(outputLoc: number[], reduceLoc: number[], axes: number[]): number[];
  function computeOutAndReduceShapes(aShape: number[], axes: number[]): [number[], number[]];
  function expandShapeToKeepDim(shape: number[], axes: number[]): number[];
  function getAxesPermutation(axes: number[], rank: number): number[] | null;
  function getUndoAxesPermutation(axes: number[]): number[];
  function getInnerMostAxes(numAxes: number, rank: number): number[];
  function assertParamsConsistent(shapes: number[][], axis: number): void;
  function computeOutShape(shapes: number[][], axis: number): number[];
  function computeConv2DInfo(inShape: number[], filterShape: number[], strides: number | number[],
    dilations: number | number[], pad: ConvPad, roundingMode?: DimRounding, depthwise?: boolean | null,
    dataFormat?: 'channelsFirst' | 'channelsLast'): Conv2DInfo;
  function computeConv3DInfo(inShape: number[], filterShape: number[], strides: number | number[],
    dilations: number | number[], pad: 'valid' | 'same' | number, depthwise?: boolean,
    dataFormat?: 'channelsFirst' | 'channelsLast', roundingMode?: DimRounding): Conv3DInfo;
  function computePool2DInfo(inShape: number[], filterSize: number | number[], strides: number | number[],
    dilations: number | number[], pad: ConvPad, roundingMode?: DimRounding,
    dataFormat?: 'channelsFirst' | 'channelsLast'): Conv2DInfo;
  function computePool3DInfo(inShape: number[], filterSize: number | number[], strides: number | number[],
    dilations: number | number[], pad: 'valid' | 'same' | number, roundingMode?: DimRounding,
    dataFormat?: 'NDHWC' | 'NCDHW'): Conv3DInfo;
  function computeDilation2DInfo(inputShape: number[], filterShape: number[], strides: number | number[],
    pad: ConvPad, dataFormat?: 'NHWC' | 'NCHW', dilations?: number | number[]): Conv2DInfo;
  function computeDefaultPad(inputShape: number[], fieldSize: number, stride: number, dilation?: number): number;
  function convertConv2DDataFormat(dataFormat: 'NHWC' | 'NCHW'): 'channelsLast' | 'channelsFirst';
  function checkPadOnDimRoundingMode(opDesc: string, pad: ConvPad, dimRoundingMode?: DimRounding): void;
  function tupleValuesAreOne(param: number | number[]): boolean;
  function eitherStridesOrDilationsAreOne(strides: number | number[], dilations: number | number[]): boolean;
  function stridesOrDilationsArePositive(values: number | number[]): boolean;
  function combineRaggedTensorToTensorShapes(raggedRank: number, shape: number[] | null,
    valueShape: number[] | null): number[];
  function getRowPartitionTypesHelper(rowPartitionTypeStrings: string[]): RowPartitionType[];
  function getRaggedRank(rowPartitionTypes: RowPartitionType[]): number;
  function validateDefaultValueShape(defaultValueShape: number[] | null, valueShape: number[] | null): void;
  function computeOptimalWindowSize(inSize: number): number;
  function getImageCenter(center: number | [number, number], imageHeight: number, imageWidth: number): [number, number];
  function getReshaped(inputShape: number[], blockShape: number[], prod: number, batchToSpace?: boolean): number[];
  function getPermuted(reshapedRank: number, blockShapeRank: number, batchToSpace?: boolean): number[];
  function getReshapedPermuted(inputShape: number[], blockShape: number[], prod: number,
    batchToSpace?: boolean): number[];
  function getSliceBeginCoords(crops: number[][], blockShape: number): number[];
  function getSliceSize(uncroppedShape: number[], crops: number[][], blockShape: number): number[];
  const prepareAndValidate: typeof gather_util.prepareAndValidate;
  const calculateShapes: typeof scatter_util.calculateShapes;
  const validateInput: typeof scatter_util.validateInput;
  const validateUpdateShape: typeof scatter_util.validateUpdateShape;
  function upcastType(typeA: DataType, typeB: DataType): DataType;
  function warn(...msg: any[]): void;
  function log(...msg: any[]): void;
  function mergeRealAndImagArrays(real: ArrayLike<number>, imag: ArrayLike<number>): Float32Array;
  function splitRealAndImagArrays(complex: ArrayLike<number>): ComplexParts;
  function complexWithEvenIndex(complex: ArrayLike<number>): ComplexParts;
  function complexWithOddIndex(complex: ArrayLike<number>): ComplexParts;
  function getComplexWithIndex(complex: ArrayLike<number>, index: number): { real: number; imag: number };
  function assignToTypedArray(data: TypedArray, real: number, imag: number, index: number): void;
  function exponents(n: number, inverse: boolean): ComplexParts;
  function exponent(k: number, n: number, inverse: boolean): { real: number; imag: number };
  function decodeEinsumEquation(equation: string, numTensors: number):
    { allDims: string[]; summedDims: number[]; idDims: number[][] };
  function getEinsumPermutation(nDims: number, idDims: number[]):
    { permutationIndices: number[]; expandDims: number[] };
  function checkEinsumDimSizes(nDims: number, idDims: number[][], tensors: ShapeInfo[]): void;
  function getEinsumComputePath(summedDims: number[], idDims: number[][]):
    { path: number[]; steps: number[][] };
  function isIdentityPermutation(perm: number[]): boolean;
  function prepareSplitSize(x: ShapeInfo, numOrSizeSplits: number[] | number, axis?: number): number[];
  function getSparseFillEmptyRowsIndicesDenseShapeMismatch(indicesLength: number): string;
  function getSparseFillEmptyRowsNegativeIndexErrorMessage(index: number, value: number): string;
  function getSparseFillEmptyRowsOutOfRangeIndexErrorMessage(index: number, value: number, limit: number): string;
  function getSparseReshapeMultipleNegativeOneOutputDimErrorMessage(dim1: number, dim2: number): string;
  function getSparseReshapeNegativeOutputDimErrorMessage(dim: number, value: number): string;
  function getSparseReshapeEmptyTensorZeroOutputDimErrorMessage(): string;
  function getSparseReshapeInputOutputMultipleErrorMessage(inputShape: number[], outputShape: number[]): string;
  function getSparseReshapeInputOutputMismatchErrorMessage(inputShape: number[], outputShape: number[]): string;
  function getSparseSegmentReductionNegativeSegmentIdsErrorMessage(): string;
  function getSparseSegmentReductionNonIncreasingSegmentIdsErrorMessage(): string;
  function getSparseSegmentReductionSegmentIdOutOfRangeErrorMessage(segmentId: number, outputRows: number): string;
  function getSparseSegmentReductionIndicesOutOfRangeErrorMessage(index: number, indexValue: number,
    inputRows: number): string;
  function fromUint8ToStringArray(vals: Uint8Array[]): string[];
  function fromStringArrayToUint8(strings: string[]): Uint8Array[];
  namespace segment_util {
    function segOpComputeOptimalWindowSize(inSize: number, numSegments: number): number;
    function computeOutShape(aShape: number[], axis: number, numSegments: number): number[];
    function collectGatherOpShapeInfo(x: ShapeInfo, indices: ShapeInfo, axis: number, batchDims: number):
      { batchSize: number; sliceSize: number; outerSize: number; dimSize: number; outputShape: number[] };
  }
  const slice_util: SliceUtilNamespace;
}

export namespace serialization {
  type ConfigDict = { [key: string]: any };
  type SerializableConstructor<T extends Serializable> = {
    new (...args: any[]): T; className: string; fromConfig: FromConfigMethod<T>;
  };
  type FromConfigMethod<T extends Serializable> =
    (cls: SerializableConstructor<T>, config: ConfigDict) => T;
  abstract class Serializable {
    getClassName(): string;
    abstract getConfig(): ConfigDict;
    static fromConfig<T extends Serializable>(cls: SerializableConstructor<T>, config: ConfigDict): T;
  }
  class SerializationMap {
    classNameMap: { [className: string]: [SerializableConstructor<Serializable>, FromConfigMethod<Serializable>] };
    static getMap(): SerializationMap;
    static register<T extends Serializable>(cls: SerializableConstructor<T>): void;
  }
  function registerClass<T extends Serializable>(cls: SerializableConstructor<T>, pkg?: string,
    name?: string): SerializableConstructor<T>;
  function getRegisteredName<T extends Serializable>(cls: SerializableConstructor<T>): string;
}

export namespace device_util {
  function isBrowser(): boolean;
  function isMobile(nav?: any): boolean;
  function mockIsMobile(value: boolean | undefined): void;
}

export namespace kernel_impls {
  function nonMaxSuppressionV3Impl(boxes: ArrayLike<number>, scores: ArrayLike<number>,
    maxOutputSize: number, iouThreshold: number, scoreThreshold: number): { selectedIndices: number[] };
  function nonMaxSuppressionV4Impl(boxes: ArrayLike<number>, scores: ArrayLike<number>,
    maxOutputSize: number, iouThreshold: number, scoreThreshold: number,
    padToMaxOutputSize: boolean): { selectedIndices: number[]; validOutputs: number };
  function nonMaxSuppressionV5Impl(boxes: ArrayLike<number>, scores: ArrayLike<number>,
    maxOutputSize: number, iouThreshold: number, scoreThreshold: number,
    softNmsSigma: number): { selectedIndices: number[]; selectedScores: number[] };
  function whereImpl(condShape: number[], condVals: ArrayLike<number | boolean>): Tensor2D;
}

// Ragged tensors (flat values plus int32 row partitions), as converted graph models use them.
export function raggedGather(paramsNestedSplits: Array<Tensor | TensorLike>, paramsDenseValues: Tensor | TensorLike,
  indices: Tensor | TensorLike, outputRaggedRank: number): { outputNestedSplits: Tensor[]; outputDenseValues: Tensor };
export function raggedRange(starts: Tensor | TensorLike, limits: Tensor | TensorLike,
  deltas: Tensor | TensorLike): { rtNestedSplits: Tensor; rtDenseValues: Tensor };
export function raggedTensorToTensor(shape: Tensor | TensorLike, values: Tensor | TensorLike,
  defaultValue: Tensor | TensorLike, rowPartitionTensors: Array<Tensor | TensorLike>,
  rowPartitionTypes: string[]): Tensor;

// tf.data (tfjs-data 4.22): datasets from arrays, generators and CSV files, and the models'
// fitDataset / evaluateDataset.
export namespace data {
  type Container<T> = ContainerObject<T> | ContainerArray<T>;
  interface ContainerObject<T> { [x: string]: Container<T> | T }
  interface ContainerArray<T> extends Array<Container<T> | T> {}
  type DatasetContainer = Container<Dataset<TensorContainer>>;
  /** A stream of `{value, done}` reads (what `Dataset.iterator()` gives). */
  interface LazyIterator<T> {
    next(): Promise<IteratorResult<T>>;
    toArray(): Promise<T[]>;
  }
  abstract class Dataset<T extends TensorContainer = TensorContainer> {
    abstract iterator(): Promise<LazyIterator<T>>;
    readonly size: number;
    static readonly MAX_BUFFER_SIZE: number;
    batch(batchSize: number, smallLastBatch?: boolean): Dataset<TensorContainer>;
    concatenate(dataset: Dataset<T>): Dataset<T>;
    filter(predicate: (value: T) => boolean): Dataset<T>;
    forEachAsync(f: (input: T) => void): Promise<void>;
    map<O extends TensorContainer>(transform: (value: T) => O): Dataset<O>;
    mapAsync<O extends TensorContainer>(transform: (value: T) => Promise<O>): Dataset<O>;
    prefetch(bufferSize: number): Dataset<T>;
    repeat(count?: number): Dataset<T>;
    skip(count: number): Dataset<T>;
    shuffle(bufferSize: number, seed?: string | number, reshuffleEachIteration?: boolean): Dataset<T>;
    take(count: number): Dataset<T>;
    toArray(): Promise<T[]>;
    toArrayForTest(): Promise<T[]>;
  }
  interface ColumnConfig {
    required?: boolean;
    dtype?: DataType;
    default?: TensorContainer;
    isLabel?: boolean;
  }
  interface CSVConfig {
    hasHeader?: boolean;
    columnNames?: string[];
    columnConfigs?: { [key: string]: ColumnConfig };
    configuredColumnsOnly?: boolean;
    delimiter?: string;
    delimWhitespace?: boolean;
  }
  /** Where bytes come from: a `file://` URL or path, another URL, or bytes. */
  class FileDataSource {
    constructor(input: string | Uint8Array, options?: { chunkSize?: number; offset?: number });
    iterator(): Promise<LazyIterator<Uint8Array>>;
  }
  class URLDataSource {
    constructor(url: string | { url: string }, fileOptions?: { chunkSize?: number; offset?: number });
    iterator(): Promise<LazyIterator<Uint8Array>>;
  }
  class TextLineDataset extends Dataset<string> {
    constructor(input: FileDataSource | URLDataSource);
    iterator(): Promise<LazyIterator<string>>;
  }
  class CSVDataset extends Dataset<TensorContainer> {
    constructor(input: FileDataSource | URLDataSource, csvConfig?: CSVConfig);
    columnNames(): Promise<string[]>;
    iterator(): Promise<LazyIterator<TensorContainer>>;
  }
  function array<T extends TensorContainer>(items: T[]): Dataset<T>;
  function zip<O extends TensorContainer>(datasets: DatasetContainer): Dataset<O>;
  /** A CSV file: a `file://` URL or a plain path (read with node:fs), or another URL. */
  function csv(source: string, csvConfig?: CSVConfig): CSVDataset;
  function func<T extends TensorContainer>(f: () => IteratorResult<T> | Promise<IteratorResult<T>>): Dataset<T>;
  function generator<T extends TensorContainer>(
    generator: () => Iterator<T> | Promise<Iterator<T>> | AsyncIterator<T>): Dataset<T>;
  function webcam(webcamVideoElement?: unknown, webcamConfig?: unknown): Promise<never>;
  function microphone(microphoneConfig?: unknown): Promise<never>;
  const version_data: string;
}
type TensorOrArrayOrMap = Tensor | Tensor[] | { [name: string]: Tensor };
export interface ModelFitDatasetArgs<T extends TensorContainer = TensorContainer> {
  batchesPerEpoch?: number;
  epochs: number;
  verbose?: 0 | 1 | 2;
  callbacks?: BaseCallback[] | CustomCallbackArgs | CustomCallbackArgs[];
  validationData?: [TensorOrArrayOrMap, TensorOrArrayOrMap] | data.Dataset<T>;
  validationBatchSize?: number;
  validationBatches?: number;
  yieldEvery?: YieldEveryOptions;
  initialEpoch?: number;
  classWeight?: { [classIndex: string]: number } | Array<{ [classIndex: string]: number }>;
}
export interface ModelEvaluateDatasetArgs {
  batches?: number;
  verbose?: 0 | 1 | 2;
}
export interface LayersModel {
  /** Trains on the `{xs, ys}` batches of a dataset; each batch's tensors are disposed after its step. */
  fitDataset<T extends TensorContainer>(dataset: data.Dataset<T>, args: ModelFitDatasetArgs<T>): Promise<History>;
  evaluateDataset<T extends TensorContainer>(dataset: data.Dataset<T>, args?: ModelEvaluateDatasetArgs): Promise<Scalar | Scalar[]>;
}

// Images (lib/images.js): tfjs-node's tf.node decoders and encoders, tfjs's tf.browser pixels.
/** Pixel data as tfjs's PixelData: RGBA bytes, four per pixel. */
export interface PixelData {
  width: number;
  height: number;
  data: Uint8Array;
}
/** An object drawn on by toPixels and draw (in Node, e.g. a node-canvas Canvas). */
export interface CanvasLike {
  width: number;
  height: number;
  getContext(contextId: string, options?: unknown): unknown;
}
export interface ImageOptions {
  alpha?: number;
}
export interface ContextOptions {
  contextType?: string;
  contextAttributes?: unknown;
}
export interface DrawOptions {
  imageOptions?: ImageOptions;
  contextOptions?: ContextOptions;
}
export namespace node {
  function decodeImage(content: Uint8Array, channels?: number, dtype?: string,
    expandAnimations?: boolean): Tensor3D | Tensor4D;
  function decodeJpeg(contents: Uint8Array, channels?: number, ratio?: number, fancyUpscaling?: boolean,
    tryRecoverTruncated?: boolean, acceptableFraction?: number, dctMethod?: string): Tensor3D;
  function decodePng(contents: Uint8Array, channels?: number, dtype?: string): Tensor3D;
  function decodeBmp(contents: Uint8Array, channels?: number): Tensor3D;
  function decodeGif(contents: Uint8Array): Tensor4D;
  function encodeJpeg(image: Tensor3D, format?: '' | 'grayscale' | 'rgb', quality?: number,
    progressive?: boolean, optimizeSize?: boolean, chromaDownsampling?: boolean, densityUnit?: 'in' | 'cm',
    xDensity?: number, yDensity?: number, xmpMetadata?: string): Promise<Uint8Array>;
  function encodePng(image: Tensor3D, compression?: number): Promise<Uint8Array>;
}
export namespace browser {
  function fromPixels(pixels: PixelData | CanvasLike, numChannels?: number): Tensor3D;
  function fromPixelsAsync(pixels: PixelData | CanvasLike, numChannels?: number): Promise<Tensor3D>;
  function toPixels(img: Tensor2D | Tensor3D | TensorLike, canvas?: CanvasLike): Promise<Uint8ClampedArray>;
  function draw(image: Tensor2D | Tensor3D | TensorLike, canvas: CanvasLike, options?: DrawOptions): void;
}

// ---- model files (tf.io, tf.loadLayersModel, model.save) -------------------------------
export namespace io {
  type WeightsManifestEntry = {
    name: string; shape: number[]; dtype: 'float32' | 'int32' | 'bool' | 'string' | 'complex64';
    group?: string; quantization?: { dtype: 'uint8' | 'uint16' | 'float16'; scale?: number; min?: number };
  };
  type WeightsManifestGroupConfig = { paths: string[]; weights: WeightsManifestEntry[] };
  type WeightsManifestConfig = WeightsManifestGroupConfig[];
  type WeightData = ArrayBuffer | ArrayBuffer[];
  interface ModelArtifacts {
    modelTopology?: object | ArrayBuffer; trainingConfig?: object; weightSpecs?: WeightsManifestEntry[];
    weightData?: WeightData; format?: string; generatedBy?: string; convertedBy?: string | null;
    signature?: object; userDefinedMetadata?: { [key: string]: object }; modelInitializer?: object;
    initializerSignature?: object;
  }
  interface ModelArtifactsInfo {
    dateSaved: Date; modelTopologyType: 'JSON' | 'GraphDef'; modelTopologyBytes?: number;
    weightSpecsBytes?: number; weightDataBytes?: number;
  }
  interface SaveResult { modelArtifactsInfo: ModelArtifactsInfo; responses?: Response[]; errors?: Array<{} | string> }
  interface IOHandler { save?: (modelArtifacts: ModelArtifacts) => Promise<SaveResult>; load?: () => Promise<ModelArtifacts> }
  interface LoadOptions {
    requestInit?: RequestInit; onProgress?: (fraction: number) => void; fetchFunc?: Function; strict?: boolean;
    weightPathPrefix?: string; weightUrlConverter?: (weightFileName: string) => Promise<string>;
    /** tidytensor: folders (or file:// URLs) besides the model's own that its weight files may be read from. */
    allowedWeightFolders?: string[];
  }
  type IORouter = (url: string | string[], loadOptions?: LoadOptions) => IOHandler | null;
  type NamedTensor = { name: string; tensor: Tensor };
  type NamedTensorMap = { [name: string]: Tensor };
  class CompositeArrayBuffer {
    static join(buffers?: ArrayBuffer[] | ArrayBuffer): ArrayBuffer;
    constructor(buffers?: ArrayBuffer | ArrayBuffer[] | ArrayBufferView | ArrayBufferView[]);
    readonly byteLength: number;
    slice(start?: number, end?: number): ArrayBuffer;
  }
  function fromMemory(modelArtifacts: object | ModelArtifacts, weightSpecs?: WeightsManifestEntry[],
    weightData?: WeightData, trainingConfig?: object): IOHandler;
  function fromMemorySync(modelArtifacts: object | ModelArtifacts, weightSpecs?: WeightsManifestEntry[],
    weightData?: WeightData, trainingConfig?: object): IOHandler;
  function withSaveHandler(saveHandler: (artifacts: ModelArtifacts) => Promise<SaveResult>): IOHandler;
  function withSaveHandlerSync(saveHandler: (artifacts: ModelArtifacts) => SaveResult): IOHandler;
  function encodeWeights(tensors: NamedTensorMap | NamedTensor[], group?: string):
    Promise<{ data: ArrayBuffer; specs: WeightsManifestEntry[] }>;
  function decodeWeights(weightData: WeightData, specs: WeightsManifestEntry[]): NamedTensorMap;
  function decodeWeightsStream(weightStream: ReadableStream<ArrayBuffer>, specs: WeightsManifestEntry[]): Promise<NamedTensorMap>;
  function concatenateArrayBuffers(buffers: ArrayBuffer[] | ArrayBuffer): ArrayBuffer;
  function getModelArtifactsInfoForJSON(modelArtifacts: ModelArtifacts): ModelArtifactsInfo;
  function getModelArtifactsForJSON(modelJSON: object,
    loadWeights: (manifest: WeightsManifestConfig) => Promise<[WeightsManifestEntry[], WeightData]>): Promise<ModelArtifacts>;
  function getModelArtifactsForJSONSync(modelJSON: object, weightSpecs?: WeightsManifestEntry[], weightData?: WeightData): ModelArtifacts;
  function getWeightSpecs(weightsManifest: WeightsManifestConfig): WeightsManifestEntry[];
  function weightsLoaderFactory(fetchWeightsFunction: (fetchUrls: string[]) => Promise<ArrayBuffer[]>):
    (manifest: WeightsManifestConfig, filePathPrefix?: string, weightNames?: string[]) => Promise<NamedTensorMap>;
  function loadWeights(manifest: WeightsManifestConfig, filePathPrefix?: string, weightNames?: string[],
    requestInit?: RequestInit): Promise<NamedTensorMap>;
  function registerLoadRouter(loadRouter: IORouter): void;
  function registerSaveRouter(saveRouter: IORouter): void;
  function getLoadHandlers(url: string | string[], loadOptions?: LoadOptions): IOHandler[];
  function getSaveHandlers(url: string | string[]): IOHandler[];
  function http(path: string, loadOptions?: LoadOptions): IOHandler;
  function browserHTTPRequest(path: string, loadOptions?: LoadOptions): IOHandler;
  function isHTTPScheme(url: string): boolean;
  /** tfjs-node's file handler: model.json + weights.bin in a directory. */
  function fileSystem(path: string | string[], loadOptions?: LoadOptions): IOHandler;
  function browserFiles(files: unknown[]): IOHandler;
  function copyModel(sourceURL: string, destURL: string): Promise<ModelArtifactsInfo>;
  function moveModel(sourceURL: string, destURL: string): Promise<ModelArtifactsInfo>;
  function listModels(): Promise<{ [url: string]: ModelArtifactsInfo }>;
  function removeModel(url: string): Promise<ModelArtifactsInfo>;
}
export function loadLayersModel(pathOrIOHandler: string | io.IOHandler, options?: io.LoadOptions): Promise<LayersModel>;
export namespace models {
  function modelFromJSON(modelAndWeightsConfig: object, customObjects?: object): Promise<LayersModel>;
}
export interface LayersModel {
  save(handlerOrURL: io.IOHandler | string, config?: { trainableOnly?: boolean; includeOptimizer?: boolean }): Promise<io.SaveResult>;
  loadWeights(weights: io.NamedTensorMap, strict?: boolean): void;
  setUserDefinedMetadata(userDefinedMetadata: {}): void;
  getUserDefinedMetadata(): {};
}

// ------------------------------------------------------------------------------------------
// Serving (issue 29; lib/serving.js)

export interface BatcherOptions {
  /** The largest batch (default 32). */
  maxBatchSize?: number;
  /** How long the first request of a batch waits for others, in ms (default 2). */
  maxDelayMs?: number;
  /** How many requests may wait; more are refused (default 1024). */
  maxQueue?: number;
}

export interface Batcher {
  /**
   * One example's prediction (x without the batch dimension, or a list for a model of several
   * inputs): its outputs without the batch dimension. Rejects when the queue is full, the
   * batcher closed, or `options.signal` aborts.
   */
  predict(x: Tensor | Tensor[], options?: { signal?: AbortSignal }): Promise<Tensor | Tensor[] | NamedTensorMap>;
  /** Requests waiting (not yet in a running batch). */
  readonly pending: number;
  /** Refuses the requests waiting and any new one; a running batch finishes. */
  close(): void;
}

export declare const serving: {
  /** Gathers concurrent one-example requests into batches run with model.predictAsync. */
  batcher(model: LayersModel | GraphModel, options?: BatcherOptions): Batcher;
  /** tf.node.decodeImage off the JavaScript thread: a Promise of the int32 tensor. */
  decodeImage(content: Uint8Array, channels?: number, dtype?: 'int32', expandAnimations?: boolean): Promise<Tensor3D | Tensor4D>;
  /** What tidytensor's serving thread holds, once the work queued before has run. */
  memory(): Promise<{ numTensors: number; numBytes: number; replicas: number }>;
};

// ------------------------------------------------------------------------------------------
// tidyAsync (issue 12)

/**
 * tf.tidy across awaits: tensors made while fn's async work runs (in any continuation of it)
 * are disposed when its promise settles, except those in the resolved value, which join the
 * caller's scope (an enclosing tidyAsync's, or none at top level). Kept tensors and variables
 * survive; a rejection disposes what was collected and rethrows. Bad arguments give a rejected
 * promise.
 */
export function tidyAsync<T>(fn: () => Promise<T> | T): Promise<T>;
export function tidyAsync<T>(name: string, fn: () => Promise<T> | T): Promise<T>;

// ------------------------------------------------------------------------------------------
// Leak finder, memory report, GC backstop (issue 12; lib/memory)

/** The user's stack frame that made a tensor (origin tracking on). */
export interface TensorOriginFrame {
  /** Absolute path (a file:// URL is converted), or the script name V8 gives ('[eval]'). */
  file: string;
  line: number;
  column: number;
  functionName: string | null;
}

/** A live tensor as tf.leaks reports it. */
export interface LeakedTensor {
  id: number;
  shape: number[];
  dtype: DataType;
  bytes: number;
  /** The kernel that made it ('Add', 'BatchMatMul' ...), 'Tensor' for uploaded values, 'Variable'. */
  op: string;
  /**
   * What reports group by: 'fn (file:line:column)' (the file relative to the working directory)
   * when origin tracking recorded the tensor, else `op`.
   */
  origin: string;
  /** null when origin tracking was off when the tensor was made. */
  frame: TensorOriginFrame | null;
  /** Held by an open tidy scope (which will dispose it). */
  scoped: boolean;
  /** Passed to tf.keep. */
  kept: boolean;
  variable: boolean;
}

/** Tensors of one origin: their count, bytes, distinct shapes and ops. */
export interface OriginSummary {
  origin: string;
  count: number;
  bytes: number;
  shapes: number[][];
  ops: string[];
}

export interface LeakReport<T> {
  /** Tensors alive after fn that were not alive before, except those fn returned; by id. */
  tensors: LeakedTensor[];
  /** `tensors` grouped by origin, the most bytes first. */
  summary: OriginSummary[];
  numTensors: number;
  numBytes: number;
  /** What fn returned (its tensors are not reported). */
  result: T;
}

/**
 * Runs fn and reports the tensors it left alive (not those it returns). With origin tracking
 * on (`tf.env().set('TRACK_ORIGINS', true)` or TIDYTENSOR_TRACK_ORIGINS=1) each names the line
 * of code that made it. An async fn gives a promise of the report.
 */
export function leaks<T>(fn: () => Promise<T>): Promise<LeakReport<T>>;
export function leaks<T>(fn: () => T): LeakReport<T>;

/** Prints the live tensors grouped by origin, the most bytes first, and returns the rows. */
export function memoryReport(): OriginSummary[];

export interface MemoryInfo {
  /** Tensors the GC backstop disposed (present once GC_BACKSTOP has been enabled). */
  numReclaimed?: number;
}

// ---- graph models (tf.loadGraphModel, tf.GraphModel: tfjs-converter's format; lib/graph) ----
export interface ModelTensorInfo {
  name: string;
  /** The placeholder's shape (-1 for an unknown dimension); undefined where the node has none. */
  shape?: number[];
  dtype?: DataType;
  tfDtype?: string;
}

export declare class GraphModel<ModelURL extends string | io.IOHandler = string | io.IOHandler> {
  constructor(modelUrl: ModelURL, loadOptions?: io.LoadOptions, tfio?: object);
  readonly modelVersion: string;
  readonly inputNodes: string[];
  readonly outputNodes: string[];
  readonly inputs: ModelTensorInfo[];
  readonly outputs: ModelTensorInfo[];
  readonly weights: { [name: string]: Tensor[] };
  readonly metadata: {} | undefined;
  readonly modelSignature: {} | undefined;
  readonly modelStructuredOutputKeys: {} | undefined;
  /** Loads the artifacts through the handler, then the graph: a promise when the handler's load() is async. */
  load(): boolean | Promise<boolean>;
  loadSync(artifacts: io.ModelArtifacts): boolean;
  save(handlerOrURL: io.IOHandler | string, config?: object): Promise<io.SaveResult>;
  predict(inputs: Tensor | Tensor[] | NamedTensorMap, config?: { batchSize?: number; verbose?: boolean }):
    Tensor | Tensor[] | NamedTensorMap;
  /** `config.signal` (tidytensor's extension): an AbortSignal that ends the execution. */
  predictAsync(inputs: Tensor | Tensor[] | NamedTensorMap,
    config?: { batchSize?: number; verbose?: boolean; signal?: AbortSignal }):
    Promise<Tensor | Tensor[] | NamedTensorMap>;
  execute(inputs: Tensor | Tensor[] | NamedTensorMap, outputs?: string | string[]): Tensor | Tensor[];
  /**
   * Runs with control flow, yielding to the event loop between slices. `options.signal`
   * (tidytensor's extension): an AbortSignal that ends the execution, disposing what it made.
   */
  executeAsync(inputs: Tensor | Tensor[] | NamedTensorMap, outputs?: string | string[],
    options?: { signal?: AbortSignal }): Promise<Tensor | Tensor[]>;
  /** With the KEEP_INTERMEDIATE_TENSORS flag on: the last execution's tensors by node name. */
  getIntermediateTensors(): { [name: string]: Tensor[] } | null | undefined;
  disposeIntermediateTensors(): void;
  dispose(): void;
}

/** A graph model from a URL (file://, a plain path or directory, http(s)) or an IOHandler. */
/** What a custom graph op gets: its node's input tensors and its attributes, decoded. */
export interface GraphNode {
  inputs: Tensor[];
  attrs: { [key: string]: unknown };
}
/** A custom graph op (tfjs-converter's OpExecutor): its outputs, or a promise of them (executeAsync only). */
export type OpExecutor = (node: GraphNode) => Tensor | Tensor[] | Promise<Tensor | Tensor[]>;
/** Runs nodes of op `name` in graph models with `opFunc` (a built-in op is never replaced). */
export function registerOp(name: string, opFunc: OpExecutor): void;
export function deregisterOp(name: string): void;
export function loadGraphModel(modelUrl: string | io.IOHandler, options?: io.LoadOptions & { fromTFHub?: boolean },
  tfio?: object): Promise<GraphModel>;
/** A graph model from a synchronous IOHandler, ModelArtifacts, or [model.json object, weights]. */
export function loadGraphModelSync(modelSource: io.IOHandler | io.ModelArtifacts | [object, ArrayBuffer]): GraphModel;
/**
 * An ONNX model as a GraphModel (tidytensor; not in tfjs): `source` is a path or `file://` URL
 * (external data files are read from its folder, and only from there), an `http(s)` URL, or
 * the `.onnx` file's bytes. Inputs and outputs are named as in the file; int64 loads as int32.
 */
export function loadOnnxModel(source: string | Uint8Array | ArrayBuffer,
  options?: { fetchFunc?: typeof fetch; requestInit?: RequestInit }): Promise<GraphModel>;
