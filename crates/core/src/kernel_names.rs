//! tfjs's kernel names, in one place (its `kernel_names.ts`). Every kernel call goes through
//! the engine's funnel under one of these names: it is what `tf.profile` reports and what the
//! gradient tape keys its nodes by.

macro_rules! kernel_names {
    ($($id:ident = $name:literal),* $(,)?) => {
        $(pub const $id: &str = $name;)*
        /// Every kernel name tidytensor runs.
        pub const ALL: &[&str] = &[$($name),*];
    };
}

kernel_names! {
    // elementwise
    ABS = "Abs",
    ADD = "Add",
    CAST = "Cast",
    EXP = "Exp",
    FLOOR_DIV = "FloorDiv",
    LOG = "Log",
    MAXIMUM = "Maximum",
    MINIMUM = "Minimum",
    MULTIPLY = "Multiply",
    NEG = "Neg",
    POW = "Pow",
    REAL_DIV = "RealDiv",
    RELU = "Relu",
    RSQRT = "Rsqrt",
    SIGMOID = "Sigmoid",
    SQRT = "Sqrt",
    SQUARE = "Square",
    SQUARED_DIFFERENCE = "SquaredDifference",
    SUB = "Sub",
    TANH = "Tanh",
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
