'use strict';
// The differences from tfjs 4.22 we choose (README.md, "Differences from TensorFlow.js"). A
// 'differ' case that matches an entry is counted as chosen, not as a failure. An entry matches
// when every field it has matches: `name` (the case name), `tfjs` and `tidytensor` (the one-line
// outcomes, "throws Error: ..." or "returns tensor float32 [2] [...]"), `backend` (tidytensor's
// backend). A field is a string (equal), a RegExp or a predicate.
//
// Keep it short and honest: an entry is a deliberate difference, never a bug being hidden.
module.exports = [
  {
    reason: 'tf.cosineWindow and tf.signal\'s windows read windowLength as a number (tfjs hands it to ' +
      'new Float32Array, which copies a list, typed array or iterable as the window\'s values)',
    name: /^(cosineWindow|signal\.(hannWindow|hammingWindow))\(/,
    tidytensor: /^returns tensor float32 \[0\] \[\]$/,
  },
  {
    reason: 'tf.signal\'s windows read a string windowLength as its number (tfjs\'s formula concatenates ' +
      'it: \'1\' + 0 - 1 is 9)',
    name: /^(cosineWindow|signal\.(hannWindow|hammingWindow))\('/,
    tidytensor: /^returns tensor float32/,
  },
  {
    reason: 'tf.signal.frame refuses a negative or fractional frameLength (tfjs slices with it: -1 to the ' +
      'end, a fraction at fractional offsets)',
    name: /^signal\.(frame|stft)\(/,
    tidytensor: /^throws Error: Error in frame: frameLength must be a non-negative integer/,
  },
  {
    reason: 'tf.signal.frame reads a null or list frameLength as a number, 0 (tfjs slices to the end with ' +
      'null, then fails to reshape the frames)',
    name: /^signal\.frame\(/,
    tfjs: /^throws Error: Size\(\d+\) must match the product of shape/,
    tidytensor: /^returns tensor float32 \[\d+,0\] \[\]$/,
  },
  {
    reason: 'tf.signal.stft of no frame makes no window (tfjs allocates it, failing past 2^31 values)',
    name: /^signal\.stft\(/,
    tfjs: /^throws RangeError: Array buffer allocation failed/,
    tidytensor: /^returns tensor complex64 \[0,/,
  },
  {
    reason: 'io.browserFiles takes only an array of files (tfjs slices whatever it is given: a string, a ' +
      'typed array, a tensor, whose slice is a new tensor left allocated)',
    name: /^io\.browserFiles\(/,
    tidytensor: /^throws Error: tf\.io\.browserFiles\(\) takes an array of File objects/,
  },
  {
    reason: 'datasets are instances of an unnamed subclass of tf.data.Dataset (tfjs\'s compiled class is ' +
      'named "class_1")',
    name: /^data\./,
    tfjs: /^returns \{"T":"object","ctor":"class_1"\}$/,
    tidytensor: /^returns \{"T":"object","ctor":"\?"\}$/,
  },
  {
    reason: 'layer factories given no options (undefined, null) use the defaults where tfjs throws a ' +
      'TypeError reading them',
    name: /^layers\.\w+\((undefined|null)?\)$/,
    tfjs: /^throws TypeError: Cannot read properties of (undefined|null)/,
    tidytensor: /^returns/,
  },
  {
    reason: 'a tf.layers.Layer subclass given null options uses the defaults, as the factories do (tfjs ' +
      'throws a TypeError reading them)',
    name: /^new Layer\(null\)$/,
    tfjs: /^throws TypeError: Cannot read properties of null/,
    tidytensor: /^returns/,
  },
  {
    reason: 'layer factories refuse an argument that is not an object of options (a string, number, ' +
      'list, typed array or Tensor); tfjs reads options off it, making a layer or throwing a TypeError',
    name: /^layers\./,
    tidytensor: /^throws Error: The argument of tf\.layers\.\* \(layer \w+\) must be an object of options/,
  },
  {
    reason: 'layer factories check their required options when the layer is made (dropout\'s rate, ' +
      'repeatVector\'s n ...); tfjs makes a layer that fails or computes NaN later',
    name: /^layers\./,
    tfjs: /^returns/,
    tidytensor: /^throws Error: \w+ is required but was not provided/,
  },
  {
    reason: 'a layer config\'s getters are all read when the layer is made (tfjs reads only the options it knows)',
    name: /^layers\.\w+\(\{throwing getters\}\)$/,
    tidytensor: /^throws Error: getter boom/,
  },
  {
    reason: 'ops that compute numbers refuse dtype string and complex64 (tfjs makes a string ' +
      'tensor it cannot read, or throws "Unknown data type")',
    tidytensor: /^throws Error: (\w+ makes numbers: dtype (string|complex64) is not supported|Cannot construct a complex64 tensor directly)/,
  },
  {
    reason: 'a string tensor made from numbers or booleans holds their String() (tfjs stores ' +
      'the raw values and cannot read them back)',
    tfjs: /^returns tensor string \[[^\]]*\]$/,
    tidytensor: /^returns tensor string \[[^\]]*\] \[/,
  },
  {
    reason: 'tf.real / tf.imag of a real tensor give the tensor / zeros (tfjs\'s kernels fail ' +
      'with a TypeError)',
    tfjs: /^throws TypeError: Cannot read properties of undefined \(reading '(real|imag)'\)/,
    tidytensor: /^returns tensor float32/,
  },
  {
    reason: 'ragged nested arrays always throw (tfjs checks them only in debug mode, with these texts)',
    tidytensor:
      /^throws Error: Element arr\[\d+\](\[\d+\])* (should have \d+ elements|should be a primitive|is a primitive)/,
  },
  {
    reason: 'axes must be integers: tfjs truncates or coerces 1.5, NaN, true, \'0\', [0]',
    // null and undefined mean "the default axis" in tfjs: not covered here.
    tidytensor: (s) => !/ (null|undefined)$/.test(s) &&
      /^throws Error: (All values in axis param must be integers|The axis must be an integer) but got/.test(s),
  },
  {
    reason: 'a tfjs tensor given to tidytensor is refused with a message saying how to convert it',
    tidytensor: /is a tensor of another TensorFlow\.js library/,
  },
  {
    reason: 'shapes are limited to rank 6 (MAX_RANK); tfjs has no limit',
    tidytensor: /^throws Error: tidytensor supports tensors up to rank 6/,
  },
  {
    reason: 'sizes, counts and indices that tfjs accepts and builds a malformed tensor from ' +
      '(fractional or NaN, a negative or out-of-range slice begin, a repeated perm or reduction ' +
      'axis) throw',
    tfjs: /^returns/,
    tidytensor: new RegExp('^throws Error: (' + [
      'linspace: the number of values must be an integer',
      'Error in oneHot: depth must be (>=2|an integer)',
      'The new shape must be a list of integers',
      'Error in slice\\d+D: begin\\[\\d+\\] (\\(-?\\d+\\) )?must be',
      'Tensor must have a shape comprised of positive integers',
      "Error in transpose: perm .* repeats axis", "All entries in 'perm' must be integers",
      'Axes contain a duplicate dimension',
      'numSamples must be a non-negative integer',
    ].join('|') + ')'),
  },
  {
    reason: 'a numeric argument given as a string or list is read as a number (tfjs puts it in ' +
      'the shape as it is: oneHot(x, \'3\') has shape [3,"3"])',
    tfjs: /^returns tensor \S+ \[[^\]]*["[{]/,
  },
  {
    reason: 'the same: linspace(0, 1, [3]) has 3 values (tfjs makes Float32Array([3]), one value)',
    name: /^linspace\(.*, \[\d+\]\)$/,
  },
  {
    reason: 'a typed array of axes is a list of axes (tfjs wraps it in an array and reduces ' +
      'another axis)',
    name: /^(sum|mean|max|min|prod|logSumExp)\(.*, Int32Array\[[^\]]*\]\)$/,
  },
  {
    reason: 'a null or empty dtype argument means the default (tfjs makes a tensor whose dtype ' +
      'is null, without readable values)',
    name: /, (null|'')\)$/,
    tfjs: /^returns tensor \S+ \[[^\]]*\]$/,
  },
  {
    reason: 'bool tensors hold only 0 and 1: range refuses dtype bool (tfjs ' +
      'stores 2, 3, 0.5 ... in them)',
    tfjs: /^returns tensor bool/,
    tidytensor: /^throws Error: (Error in range: bool dtype is not supported|Unsupported data type bool)/,
  },
  {
    reason: 'concat of mixed dtypes gives the wider dtype (tfjs keeps the first dtype and stores ' +
      'values it cannot hold, such as 3 in a bool tensor)',
    name: /^concat\(/,
    tfjs: /^returns tensor bool/,
    tidytensor: /^returns tensor int32/,
  },
  {
    reason: 'int32 arithmetic is exact up to int32 wrapping; tfjs\'s cpu backend computes abs, ' +
      'square and squaredDifference in float32 and loses precision beyond 2^24',
    name: /^(abs|square|squaredDifference)\(i\[/,
  },
  {
    reason: 'on wgpu, float formulas of int32 values (selu, softplus ...) compute in float32, ' +
      'so int32 values beyond 2^24 round first (the cpu backend computes in f64, as tfjs)',
    backend: 'wgpu',
    name: /^\w+\(i\[.*2147483647/,
    tfjs: /^returns tensor int32/,
    tidytensor: /^returns tensor int32/,
  },
  {
    reason: 'all over an empty axis is true (tfjs\'s kernel starts from a missing first value)',
    name: /^all\(/,
    tfjs: /^returns tensor bool .*\[0(,0)*\]$/,
    tidytensor: /^returns tensor bool .*\[1(,1)*\]$/,
  },
  {
    reason: 'bool tensors hold 0/1: tfjs\'s logSumExp of bool subtracts in bool, storing -1 as 255',
    name: /^(logSumExp|logSoftmax)\(.*(bool|b\[)/,
    tfjs: /Infinity/,
  },
  {
    reason: 'cumsum/cumprod take negative axes as TensorFlow does and refuse scalars and axes out of ' +
      'range; tfjs returns malformed tensors for those (shape [2,null], a scalar\'s cumsum 0)',
    name: /^(cumsum|cumprod)\(/,
    tidytensor: (s) => /^throws Error: Error in cum(sum|prod): axis must be in range/.test(s) ||
      /^returns tensor/.test(s),
    tfjs: /^returns tensor \S+ \[/,
  },
  {
    reason: 'pad takes one [before, after] pair of non-negative integers per dimension (tfjs builds ' +
      'malformed tensors from others); unstack needs an integer axis (tfjs returns [x] for null)',
    name: /^(pad|unstack)\(/,
    tidytensor: /^throws Error: (pad: paddings must be|The axis must be an integer)/,
    tfjs: /^returns/,
  },
  {
    reason: 'rfft takes a non-negative integer fftLength (tfjs slices or pads by any value, into shape ' +
      'errors or an empty tensor)',
    name: /^(spectral\.)?rfft\(/,
    tidytensor: /^throws Error: rfft: fftLength must be a non-negative integer/,
  },
  {
    reason: 'util.fingerPrint64 takes a length in bytes, an integer from 0 (tfjs hashes with whatever it is ' +
      'given: a string, a fraction, a negative number, into values TensorFlow never makes)',
    name: /^util\.fingerPrint64\(/,
    tidytensor: /^throws Error: fingerPrint64: len must be a length in bytes/,
  },
  {
    reason: "util.hexToLong and util.fingerPrint64 return tidytensor's own Long (the same fields and " +
      "methods; tfjs's is the long package's class, which tidytensor does not depend on)",
    name: /^util\.(hexToLong|fingerPrint64)\(/,
    tfjs: /"ctor":"Long\$1"/,
    tidytensor: /"ctor":"Long"/,
  },
  {
    reason: 'a tensor of @tensorflow/tfjs is not a tidytensor tensor: tensor_util.getTensorsInContainer ' +
      'does not collect it',
    name: /^tensor_util\.getTensorsInContainer\(foreign\)$/,
  },
  {
    reason: 'a disposed tensor is refused by every op (tfjs\'s zerosLike and onesLike read only ' +
      'its shape)',
    name: /^(zerosLike|onesLike)\(disposed\)$/,
    tidytensor: 'throws Error: Tensor is disposed.',
  },
  {
    reason: 'an empty gather result skips the index check (no values are read; on wgpu a check ' +
      'would cost a readback)',
    name: /^gather\(/,
    tfjs: /^throws Error: GatherV2: the index value/,
    tidytensor: /^returns tensor \S+ \[([^\]]*,)?0(,[^\]]*)?\] \[\]$/,
  },
  {
    reason: 'values that are not numbers or booleans (objects, tensors, Symbols) in a nested ' +
      'array are NaN or a TypeError (tfjs builds a tensor of missing values)',
    name: /^tensor\w*\(\[.*(\{\}|Symbol|t\()/,
  },
  {
    reason: 'weight data in shards of unequal sizes is read right: tfjs 4.22\'s CompositeArrayBuffer ' +
      'divides by the first shard\'s size when only the last shard differs (or the first is empty) ' +
      'and reads the bytes past the first shards as zeros',
    name: /^io\.load(Layers|Graph)Model\(weightData shards, (the first empty|the last larger)\)$/,
    tfjs: /^returns tensor/,
    tidytensor: /^returns tensor/,
  },
  {
    reason: 'a string weight whose length runs past the end of the weight data is refused as truncated ' +
      '(tfjs decodes the bytes there are)',
    name: /^io\.loadLayersModel\(an extra string weight, length past the end\)$/,
    tfjs: /^returns/,
    tidytensor: /^throws Error: Weight data is truncated: weight 'x'/,
  },
  {
    reason: 'shuffle(n, seed, false) repeats its first order on every pass, as documented (tfjs 4.22 ' +
      'reshuffles anyway)',
    name: /^dataset .*\.shuffle\([^)]*, false\)\.repeat\(/,
  },
  {
    reason: 'a batch of rows whose leaf is an array mixing tensors and numbers is built as tf.tensor ' +
      'builds it: the tensors are NaN (tfjs builds a tensor of missing values)',
    name: /^dataset (generator\((number then tensor|nested \{a: \{b: \[tensor, number\]\}\})\)|zip\(\[array\(5 tensors\), array\(0\.\.2\)\]\))\.batch\(/,
    tfjs: /^returns/,
    tidytensor: /^returns/,
  },
  {
    reason: 'a graph with a cycle is refused by execute()/predict() (tfjs 4.22 runs its nodes in a ' +
      'broken order and returns whatever it reached)',
    name: /^graph\((a cycle|self input)\)$/,
    tfjs: /^returns/,
    tidytensor: /^throws Error: The graph has a cycle through node/,
  },
  {
    reason: 'two nodes of one name are refused at load (tfjs 4.22 keeps the last silently)',
    name: /^graph\(two nodes named relu\)$/,
    tidytensor: /^throws Error: The graph has two nodes named 'relu'$/,
  },
  {
    reason: 'a weight whose manifest shape differs from its Const node\'s declared shape is refused ' +
      '(tfjs 4.22 takes the manifest\'s)',
    name: /^graph\(w Const shape \[3, 2\]\)$/,
    tidytensor: /^throws Error: The weight 'w' has shape \[2,3\] in the weights manifest, but its Const node declares shape \[3,2\]$/,
  },
  {
    reason: 'a Conv2D node without dilations runs with TensorFlow\'s default, [1, 1, 1, 1] (tfjs 4.22 ' +
      'fails reading the missing list with a TypeError)',
    name: /^graph\(conv\.dilations (= null|deleted)\)$/,
    tfjs: /^throws TypeError: Cannot read properties of undefined/,
    tidytensor: /^returns tensor/,
  },
  {
    reason: 'a complex64 constant initializer fills (value, 0) pairs (tfjs 4.22 multiplies a float ' +
      'scalar into complex ones and gives NaN parts)',
    name: /^initializers\.constant\(.*\)\.apply\(\[2,2\], "complex64"\)$/,
    tfjs: /^returns tensor complex64 .*NaN/,
    tidytensor: /^returns tensor complex64/,
  },
  {
    reason: 'an initializer refuses a dtype that is not one (tfjs\'s Identity ignores its dtype argument)',
    name: /^initializers\.identity\(.*\)\.apply\(\[2,2\], "x"\)$/,
    tidytensor: /^throws Error: Unknown data type x$/,
  },
];
