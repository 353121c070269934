//! Every kernel tidytensor runs, by its tfjs name, in one place (tfjs's `kernel_names.ts`):
//! each kernel call goes through the engine's funnel under one of these names, which is what
//! `tf.profile` reports and what the gradient tape keys its nodes by. The elementwise kernels
//! are tables, one line per op (JS name, kernel name, dtype rule or argument names): the line
//! is all the core needs to run the op (see ARCHITECTURE.md, "How to add an op").

use crate::DType;

macro_rules! kernel_names {
    ($($id:ident = $name:literal),* $(,)?) => {
        $(pub const $id: &str = $name;)*
    };
}

kernel_names! {
    // elementwise
    BITWISE_AND = "BitwiseAnd",
    CAST = "Cast",
    SELECT = "Select",
    // reduce
    ALL = "All",
    ANY = "Any",
    ARG_MAX = "ArgMax",
    ARG_MIN = "ArgMin",
    MAX = "Max",
    MEAN = "Mean",
    MIN = "Min",
    MOMENTS = "Moments",
    PROD = "Prod",
    CUMPROD = "Cumprod",
    CUMSUM = "Cumsum",
    SOFTMAX = "Softmax",
    SUM = "Sum",
    TOP_K = "TopK",
    // layout
    CONCAT = "Concat",
    EXPAND_DIMS = "ExpandDims",
    GATHER_V2 = "GatherV2",
    IDENTITY = "Identity",
    PACK = "Pack",
    RESHAPE = "Reshape",
    SCATTER_ND = "ScatterNd",
    SLICE = "Slice",
    TENSOR_SCATTER_UPDATE = "TensorScatterUpdate",
    TRANSPOSE = "Transpose",
    // matmul
    BATCH_MAT_MUL = "BatchMatMul",
    FUSED_MAT_MUL = "_FusedMatMul",
    // conv
    AVG_POOL = "AvgPool",
    AVG_POOL_3D = "AvgPool3D",
    CONV2D = "Conv2D",
    CONV2D_BACKPROP_INPUT = "Conv2DBackpropInput",
    CONV3D = "Conv3D",
    CONV3D_BACKPROP_INPUT_V2 = "Conv3DBackpropInputV2",
    DEPTHWISE_CONV2D_NATIVE = "DepthwiseConv2dNative",
    DILATION2D = "Dilation2D",
    FUSED_BATCH_NORM = "FusedBatchNorm",
    FUSED_CONV2D = "FusedConv2D",
    FUSED_DEPTHWISE_CONV2D = "FusedDepthwiseConv2D",
    LRN = "LRN",
    MAX_POOL = "MaxPool",
    MAX_POOL_3D = "MaxPool3D",
    MAX_POOL_WITH_ARGMAX = "MaxPoolWithArgmax",
    // dynamic (output shapes from values)
    NON_MAX_SUPPRESSION_V3 = "NonMaxSuppressionV3",
    NON_MAX_SUPPRESSION_V4 = "NonMaxSuppressionV4",
    NON_MAX_SUPPRESSION_V5 = "NonMaxSuppressionV5",
    // sparse (tf.sparse)
    SPARSE_FILL_EMPTY_ROWS = "SparseFillEmptyRows",
    SPARSE_RESHAPE = "SparseReshape",
    SPARSE_SEGMENT_MEAN = "SparseSegmentMean",
    SPARSE_SEGMENT_SUM = "SparseSegmentSum",
    // strings (tf.string)
    STATIC_REGEX_REPLACE = "StaticRegexReplace",
    STRING_NGRAMS = "StringNGrams",
    STRING_SPLIT = "StringSplit",
    STRING_TO_HASH_BUCKET_FAST = "StringToHashBucketFast",
    // complex
    COMPLEX = "Complex",
    COMPLEX_ABS = "ComplexAbs",
    FFT = "FFT",
    IFFT = "IFFT",
    IMAG = "Imag",
    REAL = "Real",
    // image
    RESIZE_BILINEAR = "ResizeBilinear",
    RESIZE_NEAREST_NEIGHBOR = "ResizeNearestNeighbor",
    // creation
    FILL = "Fill",
    LIN_SPACE = "LinSpace",
    ONE_HOT = "OneHot",
    ONES_LIKE = "OnesLike",
    RANGE = "Range",
    ZEROS_LIKE = "ZerosLike",
    // train (tidytensor's own: tfjs's optimizers run a dozen small kernels per variable)
    OPTIMIZER_STEP = "OptimizerStep",
}

/// How a unary op treats dtypes (tfjs's rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtypeRule {
    /// float32 only; another dtype is tfjs's "must be float32 tensor" error.
    Float,
    /// Any dtype in, float32 out: int32 and bool are converted before the kernel runs.
    ToFloat,
    /// float32 or int32 (converted) in, float32 out; bool is refused (tfjs's `erf`).
    IntToFloat,
    /// The output keeps the input's dtype: int32 and bool compute in integers.
    Same,
    /// The output keeps the input's dtype; int32 and bool compute the float formula on their
    /// values and store the result as tfjs's typed arrays do (int32 truncates and wraps; bool
    /// is true where the byte would be nonzero).
    Numeric,
    /// Any dtype in, bool out (`isNaN`).
    Predicate,
    /// bool only (`logicalNot`); another dtype is tfjs's "must be bool tensor" error.
    Bool,
}

macro_rules! unary_ops {
    ($($op:ident: $js:literal, $kernel:literal, $rule:ident;)*) => {
        /// Elementwise unary ops. Each backend implements every one (the compiler checks).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum UnaryOp { $($op),* }

        impl UnaryOp {
            pub const ALL: &'static [UnaryOp] = &[$(UnaryOp::$op),*];
            /// The tfjs op name (`tf.neg`), also the prefix of its WGSL functions.
            pub fn js_name(self) -> &'static str {
                match self { $(UnaryOp::$op => $js),* }
            }
            pub fn kernel_name(self) -> &'static str {
                match self { $(UnaryOp::$op => $kernel),* }
            }
            pub fn dtype_rule(self) -> DtypeRule {
                match self { $(UnaryOp::$op => DtypeRule::$rule),* }
            }
            /// The output dtype for an input of `input` (after the rule's conversion).
            pub fn out_dtype(self, input: DType) -> DType {
                match self.dtype_rule() {
                    DtypeRule::ToFloat | DtypeRule::IntToFloat => DType::Float32,
                    DtypeRule::Predicate => DType::Bool,
                    _ => input,
                }
            }
        }
    };
}

unary_ops! {
    Abs: "abs", "Abs", Same;
    Acos: "acos", "Acos", Numeric;
    Acosh: "acosh", "Acosh", Numeric;
    Asin: "asin", "Asin", Numeric;
    Asinh: "asinh", "Asinh", Numeric;
    Atan: "atan", "Atan", Numeric;
    Atanh: "atanh", "Atanh", Numeric;
    Ceil: "ceil", "Ceil", Float;
    Cos: "cos", "Cos", Float;
    Cosh: "cosh", "Cosh", Float;
    Elu: "elu", "Elu", Float;
    Erf: "erf", "Erf", IntToFloat;
    Exp: "exp", "Exp", ToFloat;
    Expm1: "expm1", "Expm1", Numeric;
    Floor: "floor", "Floor", Float;
    IsFinite: "isFinite", "IsFinite", Predicate;
    IsInf: "isInf", "IsInf", Predicate;
    IsNaN: "isNaN", "IsNan", Predicate;
    Log: "log", "Log", Float;
    Log1p: "log1p", "Log1p", Numeric;
    LogicalNot: "logicalNot", "LogicalNot", Bool;
    Neg: "neg", "Neg", Same;
    Reciprocal: "reciprocal", "Reciprocal", Numeric;
    Relu: "relu", "Relu", Same;
    Relu6: "relu6", "Relu6", Numeric;
    // Half to even.
    Round: "round", "Round", Numeric;
    Rsqrt: "rsqrt", "Rsqrt", Float;
    Selu: "selu", "Selu", Numeric;
    Sigmoid: "sigmoid", "Sigmoid", Float;
    Sign: "sign", "Sign", Numeric;
    Sin: "sin", "Sin", Float;
    Sinh: "sinh", "Sinh", Numeric;
    Softplus: "softplus", "Softplus", Numeric;
    Sqrt: "sqrt", "Sqrt", Float;
    Square: "square", "Square", Same;
    Tan: "tan", "Tan", Float;
    Tanh: "tanh", "Tanh", Float;
}

/// How a binary op treats dtypes (tfjs's rules). The inputs are first upcast to a common
/// dtype (`makeTypesMatch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryRule {
    /// The output has the common dtype.
    Upcast,
    /// int32 out whatever the inputs (floorDiv).
    Int,
    /// Like `Upcast`, but bool gives int32 (maximum, minimum).
    IntForBool,
    /// bool out (comparisons).
    Compare,
    /// bool inputs only, bool out; another dtype is tfjs's "must be bool tensor" error.
    Logical,
    /// Inputs converted to float32, float32 out (prelu).
    Float,
}

macro_rules! binary_ops {
    ($($op:ident: $js:literal, $kernel:literal, $a:literal, $b:literal, $rule:ident;)*) => {
        /// Elementwise binary ops with broadcasting. Each backend implements every one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum BinaryOp { $($op),* }

        impl BinaryOp {
            pub const ALL: &'static [BinaryOp] = &[$(BinaryOp::$op),*];
            /// The tfjs op name (`tf.add`), also the prefix of its WGSL functions.
            pub fn js_name(self) -> &'static str {
                match self { $(BinaryOp::$op => $js),* }
            }
            pub fn kernel_name(self) -> &'static str {
                match self { $(BinaryOp::$op => $kernel),* }
            }
            /// The names tfjs gives the two arguments in its error messages.
            pub fn arg_names(self) -> (&'static str, &'static str) {
                match self { $(BinaryOp::$op => ($a, $b)),* }
            }
            pub fn rule(self) -> BinaryRule {
                match self { $(BinaryOp::$op => BinaryRule::$rule),* }
            }
            /// The dtype the kernel computes in, for inputs whose common dtype is `common`.
            pub fn compute_dtype(self, common: DType) -> DType {
                if self.rule() == BinaryRule::Float { DType::Float32 } else { common }
            }
            /// The output dtype, for inputs whose common dtype is `common`.
            pub fn out_dtype(self, common: DType) -> DType {
                match self.rule() {
                    BinaryRule::Upcast => common,
                    BinaryRule::Int => DType::Int32,
                    BinaryRule::IntForBool if common == DType::Bool => DType::Int32,
                    BinaryRule::IntForBool => common,
                    BinaryRule::Compare | BinaryRule::Logical => DType::Bool,
                    BinaryRule::Float => DType::Float32,
                }
            }
        }
    };
}

binary_ops! {
    Add: "add", "Add", "a", "b", Upcast;
    Atan2: "atan2", "Atan2", "a", "b", Upcast;
    // Real division; `div` of two int32 tensors runs FloorDiv instead, as in tfjs.
    Div: "div", "RealDiv", "a", "b", Upcast;
    // a / b, and 0 where b is 0 (tfjs composes it of div, equal and where).
    DivNoNan: "divNoNan", "DivNoNan", "a", "b", Upcast;
    Equal: "equal", "Equal", "a", "b", Compare;
    FloorDiv: "floorDiv", "FloorDiv", "a", "b", Int;
    Greater: "greater", "Greater", "a", "b", Compare;
    GreaterEqual: "greaterEqual", "GreaterEqual", "a", "b", Compare;
    Less: "less", "Less", "a", "b", Compare;
    LessEqual: "lessEqual", "LessEqual", "a", "b", Compare;
    LogicalAnd: "logicalAnd", "LogicalAnd", "a", "b", Logical;
    LogicalOr: "logicalOr", "LogicalOr", "a", "b", Logical;
    // tfjs composes it of logicalAnd, logicalOr and logicalNot.
    LogicalXor: "logicalXor", "LogicalXor", "a", "b", Logical;
    Maximum: "maximum", "Maximum", "a", "b", IntForBool;
    Minimum: "minimum", "Minimum", "a", "b", IntForBool;
    // The remainder with the divisor's sign.
    Mod: "mod", "Mod", "a", "b", Upcast;
    Mul: "mul", "Multiply", "a", "b", Upcast;
    NotEqual: "notEqual", "NotEqual", "a", "b", Compare;
    Pow: "pow", "Pow", "base", "exp", Upcast;
    Prelu: "prelu", "Prelu", "x", "alpha", Float;
    SquaredDifference: "squaredDifference", "SquaredDifference", "a", "b", Upcast;
    Sub: "sub", "Sub", "a", "b", Upcast;
}
