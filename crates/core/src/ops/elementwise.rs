//! Elementwise ops: the unary and binary op tables (one line per op: JS name, kernel name,
//! dtype rule or argument names), their front-ends, and `cast`.

use super::{cast_if, pad_rank, view_of};
use crate::{kernel_names as k, shape, DType, Engine, Result, TensorId};

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
    ($($op:ident: $js:literal, $kernel:ident, $rule:ident;)*) => {
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
                match self { $(UnaryOp::$op => k::$kernel),* }
            }
            pub fn dtype_rule(self) -> DtypeRule {
                match self { $(UnaryOp::$op => DtypeRule::$rule),* }
            }
        }
    };
}

unary_ops! {
    Abs: "abs", ABS, Same;
    Exp: "exp", EXP, ToFloat;
    Log: "log", LOG, Float;
    Neg: "neg", NEG, Same;
    Relu: "relu", RELU, Same;
    Rsqrt: "rsqrt", RSQRT, Float;
    Sigmoid: "sigmoid", SIGMOID, Float;
    Sqrt: "sqrt", SQRT, Float;
    Square: "square", SQUARE, Same;
    Tanh: "tanh", TANH, Float;
}

macro_rules! binary_ops {
    ($($op:ident: $js:literal, $kernel:ident, $a:literal, $b:literal;)*) => {
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
                match self { $(BinaryOp::$op => k::$kernel),* }
            }
            /// The names tfjs gives the two arguments in its error messages.
            pub fn arg_names(self) -> (&'static str, &'static str) {
                match self { $(BinaryOp::$op => ($a, $b)),* }
            }
        }
    };
}

binary_ops! {
    Add: "add", ADD, "a", "b";
    // Real division; `div` of two int32 tensors runs FloorDiv instead, as in tfjs.
    Div: "div", REAL_DIV, "a", "b";
    FloorDiv: "floorDiv", FLOOR_DIV, "a", "b";
    Maximum: "maximum", MAXIMUM, "a", "b";
    Minimum: "minimum", MINIMUM, "a", "b";
    Mul: "mul", MULTIPLY, "a", "b";
    Pow: "pow", POW, "base", "exp";
    SquaredDifference: "squaredDifference", SQUARED_DIFFERENCE, "a", "b";
    Sub: "sub", SUB, "a", "b";
}

impl Engine {
    /// Elementwise unary op with the dtype rule of its table line.
    pub fn unary(&mut self, op: UnaryOp, x: TensorId) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        match (op.dtype_rule(), dtype) {
            (DtypeRule::Float, DType::Float32) | (DtypeRule::Same, _) | (DtypeRule::ToFloat, DType::Float32) => {}
            (DtypeRule::Float, _) => super::require_dtype(op.js_name(), "x", DType::Float32, dtype)?,
            (DtypeRule::ToFloat, _) => {
                // tfjs's kernel converts as it goes; here the kernel gets float32 input.
                return self.run_kernel(op.kernel_name(), &[x], |e, backend, ins| {
                    let x = &ins[0];
                    let floats = backend.cast(x.view(), DType::Float32)?;
                    let view = crate::View { storage: &*floats, shape: &x.shape, dtype: DType::Float32 };
                    let storage = backend.unary(op, view)?;
                    e.output(storage, x.shape.clone(), DType::Float32)
                });
            }
        }
        self.run_kernel(op.kernel_name(), &[x], |e, backend, ins| {
            let x = &ins[0];
            let storage = backend.unary(op, x.view())?;
            e.output(storage, x.shape.clone(), x.dtype)
        })
    }

    /// Elementwise binary op with broadcasting. Inputs are upcast to a common dtype
    /// (tfjs `makeTypesMatch`); `div` of int32 is floor division; maximum/minimum of bool give
    /// int32.
    pub fn binary(&mut self, op: BinaryOp, a: TensorId, b: TensorId) -> Result<TensorId> {
        let dtype = DType::upcast(self.dtype(a)?, self.dtype(b)?);
        let out_shape = shape::broadcast(self.shape(a)?, self.shape(b)?)?;
        let (op, out) = match (op, dtype) {
            (BinaryOp::Div, DType::Int32) => (BinaryOp::FloorDiv, DType::Int32),
            (BinaryOp::Maximum | BinaryOp::Minimum, DType::Bool) => (op, DType::Int32),
            _ => (op, dtype),
        };
        self.check_size(&out_shape, out)?;
        self.run_kernel(op.kernel_name(), &[a, b], |e, backend, ins| {
            let rank = out_shape.len();
            let (sa, sb) = (pad_rank(&ins[0].shape, rank), pad_rank(&ins[1].shape, rank));
            let (ca, cb) = (cast_if(&**backend, &ins[0], dtype)?, cast_if(&**backend, &ins[1], dtype)?);
            let (va, vb) = (view_of(&ins[0], &ca, &sa, dtype), view_of(&ins[1], &cb, &sb, dtype));
            let storage = backend.binary(op, va, vb, &out_shape, out)?;
            e.output(storage, out_shape.clone(), out)
        })
    }

    /// `tf.cast`; casting to the same dtype makes a tensor sharing the buffer, like tfjs.
    pub fn cast(&mut self, x: TensorId, dtype: DType) -> Result<TensorId> {
        self.check_size(self.shape(x)?, dtype)?;
        self.run_kernel(k::CAST, &[x], |e, backend, ins| {
            let x = &ins[0];
            if x.dtype == dtype {
                return Ok(e.share(x.data.clone(), x.shape.clone(), dtype));
            }
            let storage = backend.cast(x.view(), dtype)?;
            e.output(storage, x.shape.clone(), dtype)
        })
    }
}
