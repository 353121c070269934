//! Every kernel tidytensor runs, by its tfjs name, in one place (tfjs's `kernel_names.ts`):
//! each kernel call goes through the engine's funnel under one of these names, which is what
//! `tf.profile` reports and what the gradient tape keys its nodes by. The elementwise kernels
//! are tables, one line per op (JS name, kernel name, dtype rule or argument names, the
//! TensorFlow ops graph models run as it, the gradient): the line is all the core and the graph
//! executor need to run and differentiate the op (see ARCHITECTURE.md, "How to add an op").

use crate::{DType, Engine, Result, TensorId};
use BinaryOp as B;
use UnaryOp as U;

macro_rules! kernel_names {
    ($($id:ident = $name:literal),* $(,)?) => {
        $(pub const $id: &str = $name;)*
    };
}

kernel_names! {
    // elementwise
    BITWISE_AND = "BitwiseAnd",
    BITWISE_OR = "BitwiseOr",
    BITWISE_XOR = "BitwiseXor",
    INVERT = "Invert",
    LEFT_SHIFT = "LeftShift",
    RIGHT_SHIFT = "RightShift",
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
    DIAG = "Diag",
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

/// What the gradient of an elementwise op is (the `grad` of its table line).
#[derive(Clone, Copy)]
pub enum Grad<F> {
    /// None, as in tfjs: a gradient through the op is tfjs's "gradient function not found" error.
    None,
    /// Zero everywhere (the op is flat where it is defined).
    Zero,
    /// A formula of the input (cast to float32) and `dy`.
    Input(F),
    /// A formula of the output and `dy` (tfjs's exp, sigmoid, tanh and elu).
    Output(F),
}

/// A unary op's gradient formula: `(engine, x or y, dy) -> dx`.
pub type UnaryGradFn = fn(&mut Engine, TensorId, TensorId) -> Result<TensorId>;

macro_rules! unary_grad {
    ({ none }) => {
        Grad::None
    };
    ({ zero }) => {
        Grad::Zero
    };
    ({ x => $f:expr }) => {
        Grad::Input($f)
    };
    ({ y => $f:expr }) => {
        Grad::Output($f)
    };
}

macro_rules! unary_ops {
    ($($op:ident: $js:literal, $kernel:literal, $rule:ident, tf [$($tf:literal),*], grad $grad:tt;)*) => {
        /// Elementwise unary ops. Each backend implements every one (the compiler checks).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum UnaryOp { $($op),* }

        impl UnaryOp {
            pub const ALL: &'static [UnaryOp] = &[$(UnaryOp::$op),*];
            /// Every TensorFlow op the table maps (`tf [...]`), for graph models.
            pub const GRAPH_OPS: &'static [&'static str] = &[$($($tf,)*)*];
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
            /// The TensorFlow ops that graph models run as this op (empty: none maps to it).
            pub fn graph_ops(self) -> &'static [&'static str] {
                match self { $(UnaryOp::$op => &[$($tf),*]),* }
            }
            /// The op a graph model's TensorFlow op runs as, if it is one of the table's.
            pub fn from_graph_op(name: &str) -> Option<UnaryOp> {
                match name {
                    $($($tf => Some(UnaryOp::$op),)*)*
                    _ => None,
                }
            }
            /// The op's gradient.
            pub fn grad(self) -> Grad<UnaryGradFn> {
                match self { $(UnaryOp::$op => unary_grad!($grad)),* }
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

// One line per op: variant: JS name, tfjs kernel name, dtype rule, `tf [...]` the TensorFlow ops
// graph models run as it (tfjs-converter's names; `tf []`: none), `grad {...}` its gradient
// (tfjs's `*_grad.ts`): `none`, `zero`, or a formula of the input (`x => ...`, cast to float32)
// or of the output (`y => ...`) and dy.
unary_ops! {
    Abs: "abs", "Abs", Same, tf ["Abs", "ComplexAbs"], grad { x => |e, x, dy| {
        // tfjs: step(x, -1), 1 where x > 0, else -1.
        let pos = e.scalar_mask(B::Greater, x, 0.0)?;
        let s = e.with_scalar(B::Mul, pos, 2.0)?;
        let s = e.with_scalar(B::Sub, s, 1.0)?;
        e.mul(dy, s)
    } };
    Acos: "acos", "Acos", Numeric, tf ["Acos"], grad { x => |e, x, dy| {
        let r = e.root_of(x, 1.0, -1.0)?;
        let q = e.div(dy, r)?;
        e.neg(q)
    } };
    Acosh: "acosh", "Acosh", Numeric, tf ["Acosh"], grad { x => |e, x, dy| {
        let r = e.root_of(x, -1.0, 1.0)?;
        e.div(dy, r)
    } };
    Asin: "asin", "Asin", Numeric, tf ["Asin"], grad { x => |e, x, dy| {
        let r = e.root_of(x, 1.0, -1.0)?;
        e.div(dy, r)
    } };
    Asinh: "asinh", "Asinh", Numeric, tf ["Asinh"], grad { x => |e, x, dy| {
        let r = e.root_of(x, 1.0, 1.0)?;
        e.div(dy, r)
    } };
    Atan: "atan", "Atan", Numeric, tf ["Atan"], grad { x => |e, x, dy| {
        let x2 = e.unary(U::Square, x)?;
        let d = e.with_scalar(B::Add, x2, 1.0)?;
        e.div(dy, d)
    } };
    Atanh: "atanh", "Atanh", Numeric, tf ["Atanh"], grad { x => |e, x, dy| {
        let x2 = e.unary(U::Square, x)?;
        let t = e.with_scalar(B::Mul, x2, -1.0)?;
        let d = e.with_scalar(B::Add, t, 1.0)?;
        e.div(dy, d)
    } };
    Ceil: "ceil", "Ceil", Float, tf ["Ceil"], grad { zero };
    Cos: "cos", "Cos", Float, tf ["Cos"], grad { x => |e, x, dy| {
        let s = e.unary(U::Sin, x)?;
        let n = e.neg(s)?;
        e.mul(dy, n)
    } };
    Cosh: "cosh", "Cosh", Float, tf ["Cosh"], grad { x => |e, x, dy| {
        let s = e.unary(U::Sinh, x)?;
        e.mul(dy, s)
    } };
    Elu: "elu", "Elu", Float, tf ["Elu"], grad { y => |e, y, dy| {
        // y > 0: dy, else dy * (y + 1)
        let pos = e.with_scalar(B::Greater, y, 0.0)?;
        let y1 = e.with_scalar(B::Add, y, 1.0)?;
        let t = e.mul(dy, y1)?;
        e.select(pos, dy, t)
    } };
    Erf: "erf", "Erf", IntToFloat, tf ["Erf"], grad { x => |e, x, dy| {
        // dy * 2/sqrt(pi) * exp(-x²)
        let x2 = e.unary(U::Square, x)?;
        let n = e.neg(x2)?;
        let ex = e.unary(U::Exp, n)?;
        let t = e.with_scalar(B::Mul, ex, 2.0 / std::f64::consts::PI.sqrt())?;
        e.mul(dy, t)
    } };
    Exp: "exp", "Exp", ToFloat, tf ["Exp"], grad { y => |e, y, dy| e.mul(dy, y) };
    Expm1: "expm1", "Expm1", Numeric, tf ["Expm1"], grad { x => |e, x, dy| {
        let ex = e.unary(U::Exp, x)?;
        e.mul(dy, ex)
    } };
    Floor: "floor", "Floor", Float, tf ["Floor"], grad { zero };
    IsFinite: "isFinite", "IsFinite", Predicate, tf ["IsFinite"], grad { zero };
    IsInf: "isInf", "IsInf", Predicate, tf ["IsInf"], grad { zero };
    IsNaN: "isNaN", "IsNan", Predicate, tf ["IsNan"], grad { zero };
    Log: "log", "Log", Float, tf ["Log"], grad { x => |e, x, dy| e.div(dy, x) };
    Log1p: "log1p", "Log1p", Numeric, tf ["Log1p"], grad { x => |e, x, dy| {
        let d = e.with_scalar(B::Add, x, 1.0)?;
        e.div(dy, d)
    } };
    LogicalNot: "logicalNot", "LogicalNot", Bool, tf ["LogicalNot"], grad { zero };
    Neg: "neg", "Neg", Same, tf ["Neg"], grad { x => |e, _, dy| e.neg(dy) };
    Reciprocal: "reciprocal", "Reciprocal", Numeric, tf ["Reciprocal"], grad { x => |e, x, dy| {
        let x2 = e.unary(U::Square, x)?;
        let q = e.div(dy, x2)?;
        e.neg(q)
    } };
    Relu: "relu", "Relu", Same, tf ["Relu"], grad { x => |e, x, dy| {
        let m = e.scalar_mask(B::Greater, x, 0.0)?;
        e.mul(dy, m)
    } };
    Relu6: "relu6", "Relu6", Numeric, tf ["Relu6"], grad { x => |e, x, dy| {
        let pos = e.scalar_mask(B::Greater, x, 0.0)?;
        let le6 = e.scalar_mask(B::LessEqual, x, 6.0)?;
        let m = e.mul(pos, le6)?;
        e.mul(dy, m)
    } };
    // Half to even.
    Round: "round", "Round", Numeric, tf ["Round"], grad { zero };
    Rsqrt: "rsqrt", "Rsqrt", Float, tf ["Rsqrt"], grad { x => |e, x, dy| {
        // -dy / (2 x^1.5)
        let p = e.with_scalar(B::Pow, x, 1.5)?;
        let d = e.with_scalar(B::Mul, p, 2.0)?;
        let q = e.div(dy, d)?;
        e.neg(q)
    } };
    Selu: "selu", "Selu", Numeric, tf ["Selu"], grad { x => |e, x, dy| {
        const SCALE: f64 = 1.050_700_987_355_480_5;
        const SCALE_ALPHA: f64 = 1.758_099_340_847_376_6;
        let pos = e.with_scalar(B::Greater, x, 0.0)?;
        let above = e.with_scalar(B::Mul, dy, SCALE)?;
        let ex = e.unary(U::Exp, x)?;
        let t = e.with_scalar(B::Mul, dy, SCALE_ALPHA)?;
        let below = e.mul(t, ex)?;
        e.select(pos, above, below)
    } };
    Sigmoid: "sigmoid", "Sigmoid", Float, tf ["Sigmoid"], grad { y => |e, y, dy| {
        // dy * y * (1 - y)
        let one = e.scalar(1.0)?;
        let one_minus = e.sub(one, y)?;
        let t = e.mul(y, one_minus)?;
        e.mul(dy, t)
    } };
    Sign: "sign", "Sign", Numeric, tf ["Sign"], grad { zero };
    Sin: "sin", "Sin", Float, tf ["Sin"], grad { x => |e, x, dy| {
        let c = e.unary(U::Cos, x)?;
        e.mul(dy, c)
    } };
    Sinh: "sinh", "Sinh", Numeric, tf ["Sinh"], grad { x => |e, x, dy| {
        let c = e.unary(U::Cosh, x)?;
        e.mul(dy, c)
    } };
    Softplus: "softplus", "Softplus", Numeric, tf ["Softplus"], grad { x => |e, x, dy| {
        let s = e.unary(U::Sigmoid, x)?;
        e.mul(dy, s)
    } };
    Sqrt: "sqrt", "Sqrt", Float, tf ["Sqrt"], grad { x => |e, x, dy| {
        let r = e.unary(U::Sqrt, x)?;
        let d = e.with_scalar(B::Mul, r, 2.0)?;
        e.div(dy, d)
    } };
    Square: "square", "Square", Same, tf ["Square"], grad { x => |e, x, dy| {
        let t = e.with_scalar(B::Mul, x, 2.0)?;
        e.mul(dy, t)
    } };
    Tan: "tan", "Tan", Float, tf ["Tan"], grad { x => |e, x, dy| {
        let c = e.unary(U::Cos, x)?;
        let c2 = e.unary(U::Square, c)?;
        e.div(dy, c2)
    } };
    Tanh: "tanh", "Tanh", Float, tf ["Tanh"], grad { y => |e, y, dy| {
        // dy * (1 - y²)
        let y2 = e.unary(U::Square, y)?;
        let one = e.scalar(1.0)?;
        let t = e.sub(one, y2)?;
        e.mul(dy, t)
    } };
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

/// What a binary op's gradient formula reads: dy, the inputs (cast to float32), the output
/// (for `y` rows) and which inputs need a gradient.
pub struct BinaryGradArgs {
    pub dy: TensorId,
    pub a: TensorId,
    pub b: TensorId,
    /// The output, saved for `aby` rows only.
    pub y: Option<TensorId>,
    pub needed: [bool; 2],
}

/// A binary op's gradient formula: the gradients of `a` and `b` (before summing back to their
/// shapes over the broadcast axes; `None` where not needed).
pub type BinaryGradFn = fn(&mut Engine, &BinaryGradArgs) -> Result<[Option<TensorId>; 2]>;

macro_rules! binary_grad {
    ({ none }) => {
        Grad::None
    };
    ({ zero }) => {
        Grad::Zero
    };
    ({ ab => $f:expr }) => {
        Grad::Input($f)
    };
    ({ aby => $f:expr }) => {
        Grad::Output($f)
    };
}

macro_rules! binary_ops {
    ($($op:ident: $js:literal, $kernel:literal, $a:literal, $b:literal, $rule:ident, tf [$($tf:literal),*], grad $grad:tt;)*) => {
        /// Elementwise binary ops with broadcasting. Each backend implements every one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum BinaryOp { $($op),* }

        impl BinaryOp {
            pub const ALL: &'static [BinaryOp] = &[$(BinaryOp::$op),*];
            /// Every TensorFlow op the table maps (`tf [...]`), for graph models.
            pub const GRAPH_OPS: &'static [&'static str] = &[$($($tf,)*)*];
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
            /// The TensorFlow ops that graph models run as this op (empty: none maps to it).
            pub fn graph_ops(self) -> &'static [&'static str] {
                match self { $(BinaryOp::$op => &[$($tf),*]),* }
            }
            /// The op a graph model's TensorFlow op runs as, if it is one of the table's.
            pub fn from_graph_op(name: &str) -> Option<BinaryOp> {
                match name {
                    $($($tf => Some(BinaryOp::$op),)*)*
                    _ => None,
                }
            }
            /// The op's gradient (`Output`: the formula reads the output too).
            pub fn grad(self) -> Grad<BinaryGradFn> {
                match self { $(BinaryOp::$op => binary_grad!($grad)),* }
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

// As the unary table, with tfjs's argument names; a gradient formula (`ab => ...`, or
// `aby => ...` to read the output too) returns the gradients of a and b, which the front-end
// sums back to their shapes. `if_needed(g, i, f)` runs `f` only for an input that needs one.
binary_ops! {
    Add: "add", "Add", "a", "b", Upcast, tf ["Add", "AddV2"], grad { ab => |_, g| {
        Ok([g.needed[0].then_some(g.dy), g.needed[1].then_some(g.dy)])
    } };
    Atan2: "atan2", "Atan2", "a", "b", Upcast, tf ["Atan2"], grad { ab => |e, g| {
        // d/da = b / (a² + b²), d/db = -a / (a² + b²)
        let (a2, b2) = (e.unary(U::Square, g.a)?, e.unary(U::Square, g.b)?);
        let d = e.add(a2, b2)?;
        let da = if_needed(g, 0, || e.div(g.b, d).and_then(|q| e.mul(g.dy, q)))?;
        let db = if_needed(g, 1, || {
            let q = e.div(g.a, d)?;
            let t = e.mul(g.dy, q)?;
            e.neg(t)
        })?;
        Ok([da, db])
    } };
    // Real division; `div` of two int32 tensors runs FloorDiv instead, as in tfjs.
    Div: "div", "RealDiv", "a", "b", Upcast, tf ["RealDiv", "Div"], grad { ab => |e, g| e.quotient_grad(g, B::Div) };
    // a / b, and 0 where b is 0 (tfjs composes it of div, equal and where).
    DivNoNan: "divNoNan", "DivNoNan", "a", "b", Upcast, tf ["DivNoNan"], grad {
        ab => |e, g| e.quotient_grad(g, B::DivNoNan)
    };
    Equal: "equal", "Equal", "a", "b", Compare, tf ["Equal"], grad { zero };
    FloorDiv: "floorDiv", "FloorDiv", "a", "b", Int, tf ["FloorDiv"], grad { ab => |e, g| e.quotient_grad(g, B::Div) };
    // Comparisons: flat, so zero (tfjs differentiates only greaterEqual this way; ops
    // composed of the others here, such as leakyRelu and step, need them too).
    Greater: "greater", "Greater", "a", "b", Compare, tf ["Greater"], grad { zero };
    GreaterEqual: "greaterEqual", "GreaterEqual", "a", "b", Compare, tf ["GreaterEqual"], grad { zero };
    Less: "less", "Less", "a", "b", Compare, tf ["Less"], grad { zero };
    LessEqual: "lessEqual", "LessEqual", "a", "b", Compare, tf ["LessEqual"], grad { zero };
    LogicalAnd: "logicalAnd", "LogicalAnd", "a", "b", Logical, tf ["LogicalAnd"], grad { none };
    LogicalOr: "logicalOr", "LogicalOr", "a", "b", Logical, tf ["LogicalOr"], grad { none };
    // tfjs composes it of logicalAnd, logicalOr and logicalNot.
    LogicalXor: "logicalXor", "LogicalXor", "a", "b", Logical, tf [], grad { none };
    Maximum: "maximum", "Maximum", "a", "b", IntForBool, tf ["Maximum"], grad {
        ab => |e, g| e.select_grad(g, B::GreaterEqual, B::Less)
    };
    Minimum: "minimum", "Minimum", "a", "b", IntForBool, tf ["Minimum"], grad {
        ab => |e, g| e.select_grad(g, B::LessEqual, B::Greater)
    };
    // The remainder with the divisor's sign.
    Mod: "mod", "Mod", "a", "b", Upcast, tf ["Mod", "FloorMod"], grad { ab => |e, g| {
        // d/da = 1, d/db = -floor(a / b)
        let db = if_needed(g, 1, || {
            let q = e.div(g.a, g.b)?;
            let f = e.unary(U::Floor, q)?;
            let t = e.mul(g.dy, f)?;
            e.neg(t)
        })?;
        Ok([g.needed[0].then_some(g.dy), db])
    } };
    Mul: "mul", "Multiply", "a", "b", Upcast, tf ["Mul"], grad { ab => |e, g| {
        let da = if_needed(g, 0, || e.mul(g.dy, g.b))?;
        Ok([da, if_needed(g, 1, || e.mul(g.dy, g.a))?])
    } };
    NotEqual: "notEqual", "NotEqual", "a", "b", Compare, tf ["NotEqual"], grad { zero };
    Pow: "pow", "Pow", "base", "exp", Upcast, tf ["Pow"], grad { aby => |e, g| {
        let (a, b) = (g.a, g.b);
        let da = if_needed(g, 0, || {
            // dy * b * a^(b-1)
            let b1 = e.with_scalar(B::Sub, b, 1.0)?;
            let p = e.binary(B::Pow, a, b1)?;
            let t = e.mul(b, p)?;
            e.mul(g.dy, t)
        })?;
        let db = if_needed(g, 1, || {
            // dy * y * log(a) where a > 0, else 0
            let pos = e.with_scalar(B::Greater, a, 0.0)?;
            let log = e.unary(U::Log, a)?;
            let zero = e.scalar(0.0)?;
            let log = e.select(pos, log, zero)?;
            let y = e.cast(g.y.expect("pow saves its output"), DType::Float32)?;
            let t = e.mul(y, log)?;
            e.mul(g.dy, t)
        })?;
        Ok([da, db])
    } };
    Prelu: "prelu", "Prelu", "x", "alpha", Float, tf ["Prelu"], grad { ab => |e, g| {
        // x > 0: dx = dy, dalpha = 0; else dx = dy * alpha, dalpha = dy * x.
        let pos = e.with_scalar(B::Greater, g.a, 0.0)?;
        let zero = e.scalar(0.0)?;
        let dx = if_needed(g, 0, || {
            let t = e.mul(g.dy, g.b)?;
            e.select(pos, g.dy, t)
        })?;
        let dalpha = if_needed(g, 1, || {
            let t = e.mul(g.dy, g.a)?;
            e.select(pos, zero, t)
        })?;
        Ok([dx, dalpha])
    } };
    SquaredDifference: "squaredDifference", "SquaredDifference", "a", "b", Upcast, tf ["SquaredDifference"], grad {
        ab => |e, g| {
            let d = e.sub(g.a, g.b)?;
            let t = e.with_scalar(B::Mul, d, 2.0)?;
            let da = e.mul(g.dy, t)?;
            Ok([Some(da), if_needed(g, 1, || e.neg(da))?])
        }
    };
    Sub: "sub", "Sub", "a", "b", Upcast, tf ["Sub"], grad { ab => |e, g| {
        Ok([g.needed[0].then_some(g.dy), if_needed(g, 1, || e.neg(g.dy))?])
    } };
}

/// `f()` if input `i` needs a gradient.
fn if_needed(g: &BinaryGradArgs, i: usize, f: impl FnOnce() -> Result<TensorId>) -> Result<Option<TensorId>> {
    if g.needed[i] {
        f().map(Some)
    } else {
        Ok(None)
    }
}
