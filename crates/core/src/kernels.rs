//! Every kernel tidytensor runs, by its tfjs name, in one place (tfjs's `kernel_names.ts`):
//! each kernel call goes through the engine's funnel under one of these names, which is what
//! `tf.profile` reports and what the gradient tape keys its nodes by. The elementwise kernels
//! are tables, one line per op (JS name, kernel name, dtype rule or argument names): the line
//! is all the core needs to run the op (see ARCHITECTURE.md, "How to add an op").

macro_rules! kernel_names {
    ($($id:ident = $name:literal),* $(,)?) => {
        $(pub const $id: &str = $name;)*
    };
}

kernel_names! {
    // elementwise
    CAST = "Cast",
    // reduce
    ARG_MAX = "ArgMax",
    ARG_MIN = "ArgMin",
    MAX = "Max",
    MEAN = "Mean",
    MIN = "Min",
    SOFTMAX = "Softmax",
    SUM = "Sum",
    // layout
    CONCAT = "Concat",
    EXPAND_DIMS = "ExpandDims",
    GATHER_V2 = "GatherV2",
    IDENTITY = "Identity",
    PACK = "Pack",
    RESHAPE = "Reshape",
    SLICE = "Slice",
    TRANSPOSE = "Transpose",
    // matmul
    BATCH_MAT_MUL = "BatchMatMul",
    // creation
    FILL = "Fill",
    LIN_SPACE = "LinSpace",
    ONE_HOT = "OneHot",
    ONES_LIKE = "OnesLike",
    RANGE = "Range",
    ZEROS_LIKE = "ZerosLike",
}

/// How a unary op treats dtypes (tfjs's rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtypeRule {
    /// float32 only; another dtype is tfjs's "must be float32 tensor" error.
    Float,
    /// Any dtype in, float32 out: int32 and bool are converted before the kernel runs.
    ToFloat,
    /// The output keeps the input's dtype: int32 and bool compute in integers.
    Same,
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
        }
    };
}

unary_ops! {
    Abs: "abs", "Abs", Same;
    Exp: "exp", "Exp", ToFloat;
    Log: "log", "Log", Float;
    Neg: "neg", "Neg", Same;
    Relu: "relu", "Relu", Same;
    Rsqrt: "rsqrt", "Rsqrt", Float;
    Sigmoid: "sigmoid", "Sigmoid", Float;
    Sqrt: "sqrt", "Sqrt", Float;
    Square: "square", "Square", Same;
    Tanh: "tanh", "Tanh", Float;
}

macro_rules! binary_ops {
    ($($op:ident: $js:literal, $kernel:literal, $a:literal, $b:literal;)*) => {
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
        }
    };
}

binary_ops! {
    Add: "add", "Add", "a", "b";
    // Real division; `div` of two int32 tensors runs FloorDiv instead, as in tfjs.
    Div: "div", "RealDiv", "a", "b";
    FloorDiv: "floorDiv", "FloorDiv", "a", "b";
    Maximum: "maximum", "Maximum", "a", "b";
    Minimum: "minimum", "Minimum", "a", "b";
    Mul: "mul", "Multiply", "a", "b";
    Pow: "pow", "Pow", "base", "exp";
    SquaredDifference: "squaredDifference", "SquaredDifference", "a", "b";
    Sub: "sub", "Sub", "a", "b";
}
