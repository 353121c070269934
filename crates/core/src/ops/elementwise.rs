//! Elementwise front-ends: every op of the unary and binary tables (in `kernels.rs`), and
//! `cast`.

use super::{cast_if, pad_rank, view_of};
use crate::engine::check_size;
use crate::kernels::{self as k, BinaryOp, BinaryRule, DtypeRule, UnaryOp};
use crate::{bail, shape, DType, Engine, Result, TensorId};

impl Engine {
    /// Elementwise unary op with the dtype rule of its table line.
    pub fn unary(&mut self, op: UnaryOp, x: TensorId) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        match dtype {
            DType::Complex64 if op == UnaryOp::Abs => return self.complex_abs(x),
            DType::String => bail!("Argument 'x' passed to '{}' must be numeric tensor, but got string tensor", op.js_name()),
            _ => {}
        }
        let convert = match (op.dtype_rule(), dtype) {
            (DtypeRule::Float, _) => {
                super::require_dtype(op.js_name(), "x", DType::Float32, dtype)?;
                false
            }
            (DtypeRule::Bool, _) => {
                super::require_dtype(op.js_name(), "x", DType::Bool, dtype)?;
                false
            }
            (DtypeRule::IntToFloat, DType::Bool) => bail!("Input dtype must be `int32` or `float32`."),
            (DtypeRule::ToFloat | DtypeRule::IntToFloat, _) => dtype != DType::Float32,
            (DtypeRule::Same | DtypeRule::Numeric | DtypeRule::Predicate, _) => false,
        };
        self.run_kernel(op.kernel_name(), &[x], |e, backend, ins| {
            let x = &ins[0];
            let out = op.out_dtype(x.dtype);
            let storage = if convert {
                // tfjs's kernel converts as it goes; here the kernel gets float32 input.
                let floats = backend.cast(x.view(), DType::Float32)?;
                backend.unary(op, crate::View { storage: &*floats, shape: &x.shape, dtype: DType::Float32 })?
            } else {
                backend.unary(op, x.view())?
            };
            e.output(storage, x.shape.to_vec(), out)
        })
    }

    /// Elementwise binary op with broadcasting. Inputs are upcast to a common dtype
    /// (tfjs `makeTypesMatch`) and the output dtype follows the op's [`BinaryRule`]; `div` of
    /// int32 is floor division, as in tfjs.
    pub fn binary(&mut self, op: BinaryOp, a: TensorId, b: TensorId) -> Result<TensorId> {
        let (da, db) = (self.dtype(a)?, self.dtype(b)?);
        if da == DType::String || db == DType::String {
            return self.compare_strings(op, a, b);
        }
        if da == DType::Complex64 || db == DType::Complex64 {
            return self.complex_binary(op, a, b);
        }
        if op.rule() == BinaryRule::Logical {
            let (an, bn) = op.arg_names();
            super::require_dtype(op.js_name(), an, DType::Bool, da)?;
            super::require_dtype(op.js_name(), bn, DType::Bool, db)?;
        }
        // tfjs's `div` picks its kernel before running it.
        let op = match op {
            BinaryOp::Div if DType::upcast(da, db) == DType::Int32 => BinaryOp::FloorDiv,
            op => op,
        };
        self.run_kernel(op.kernel_name(), &[a, b], |e, backend, ins| {
            let (a, b) = (&ins[0], &ins[1]);
            let common = DType::upcast(a.dtype, b.dtype);
            let (dtype, out) = (op.compute_dtype(common), op.out_dtype(common));
            let out_shape = shape::broadcast(&a.shape, &b.shape)?;
            check_size(&**backend, &out_shape, out)?;
            let rank = out_shape.len();
            let (sa, sb) = (pad_rank(&a.shape, rank), pad_rank(&b.shape, rank));
            let (ca, cb) = (cast_if(&**backend, a, dtype)?, cast_if(&**backend, b, dtype)?);
            let (va, vb) = (view_of(a, &ca, &sa, dtype), view_of(b, &cb, &sb, dtype));
            let storage = backend.binary(op, va, vb, &out_shape, out)?;
            e.output(storage, out_shape, out)
        })
    }

    /// `tf.where(condition, a, b)`: `a` where `condition` is true, else `b`, all three
    /// broadcast together; `a` and `b` are upcast to a common dtype (tfjs's Select kernel).
    pub fn select(&mut self, condition: TensorId, a: TensorId, b: TensorId) -> Result<TensorId> {
        super::require_dtype("where", "condition", DType::Bool, self.dtype(condition)?)?;
        self.run_kernel(k::SELECT, &[condition, a, b], |e, backend, ins| {
            let (c, a, b) = (&ins[0], &ins[1], &ins[2]);
            let dtype = DType::upcast(a.dtype, b.dtype);
            let out_shape = shape::broadcast(&shape::broadcast(&c.shape, &a.shape)?, &b.shape)?;
            check_size(&**backend, &out_shape, dtype)?;
            let rank = out_shape.len();
            let (sc, sa, sb) = (pad_rank(&c.shape, rank), pad_rank(&a.shape, rank), pad_rank(&b.shape, rank));
            let (ca, cb) = (cast_if(&**backend, a, dtype)?, cast_if(&**backend, b, dtype)?);
            let vc = crate::View { storage: &*c.data.storage, shape: &sc, dtype: DType::Bool };
            let (va, vb) = (view_of(a, &ca, &sa, dtype), view_of(b, &cb, &sb, dtype));
            let storage = backend.select(vc, va, vb, &out_shape)?;
            e.output(storage, out_shape, dtype)
        })
    }

    /// `tf.cast`; casting to the same dtype makes a tensor sharing the buffer, like tfjs.
    pub fn cast(&mut self, x: TensorId, dtype: DType) -> Result<TensorId> {
        let from = self.dtype(x)?;
        if from != dtype && (from == DType::String || dtype == DType::String) {
            bail!("Cannot cast a {} tensor to {}", from.name(), dtype.name());
        }
        if from != dtype && (from == DType::Complex64 || dtype == DType::Complex64) {
            return self.complex_cast(x, dtype);
        }
        self.check_size(self.shape(x)?, dtype)?;
        self.run_kernel_any(k::CAST, &[x], |e, backend, ins| {
            let x = &ins[0];
            if x.dtype == dtype {
                return Ok(e.share(x.data.clone(), x.shape.to_vec(), dtype));
            }
            let storage = backend.cast(x.view(), dtype)?;
            e.output(storage, x.shape.to_vec(), dtype)
        })
    }
}
