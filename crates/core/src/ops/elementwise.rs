//! Elementwise front-ends: every op of the unary and binary tables (in `kernels.rs`), and
//! `cast`.

use super::{cast_if, pad_rank, view_of};
use crate::engine::check_size;
use crate::kernels::{self as k, BinaryGradArgs, BinaryOp, BinaryRule, DtypeRule, Grad, UnaryOp};
use crate::{bail, shape, DType, Engine, Result, TensorId};

impl Engine {
    /// Elementwise unary op with the dtype rule of its table line.
    pub fn unary(&mut self, op: UnaryOp, x: TensorId) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        match dtype {
            DType::Complex64 if op == UnaryOp::Abs => return self.complex_abs(x),
            DType::String => {
                bail!("Argument 'x' passed to '{}' must be numeric tensor, but got string tensor", op.js_name())
            }
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
        let y = self.run_kernel(op.kernel_name(), &[x], |e, backend, ins| {
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
        })?;
        if self.taping() {
            match op.grad() {
                Grad::None => {}
                Grad::Zero => {
                    let shape = self.shape(x)?.to_vec();
                    self.on_tape(&[y], &[], move |e, _| Ok(vec![Some(e.fill(&shape, 0.0, DType::Float32)?)]))?;
                }
                Grad::Input(f) | Grad::Output(f) => {
                    let save = if matches!(op.grad(), Grad::Output(_)) { y } else { x };
                    self.on_tape(&[y], &[save], move |e, g| {
                        let t = e.cast(g.saved[0], DType::Float32)?;
                        Ok(vec![Some(f(e, t, g.dy())?)])
                    })?;
                }
            }
        }
        Ok(y)
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
        let y = self.run_kernel(op.kernel_name(), &[a, b], |e, backend, ins| {
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
        })?;
        if self.taping() {
            let shapes = [self.shape(a)?.to_vec(), self.shape(b)?.to_vec()];
            match op.grad() {
                // No gradient, as in tfjs: a path through the op is an error.
                Grad::None => {}
                Grad::Zero => self.on_tape(&[y], &[], move |e, g| {
                    let mut out = Vec::with_capacity(2);
                    for (i, shape) in shapes.iter().enumerate() {
                        out.push(if g.needed[i] { Some(e.fill(shape, 0.0, DType::Float32)?) } else { None });
                    }
                    Ok(out)
                })?,
                Grad::Input(f) | Grad::Output(f) => {
                    let save = if matches!(op.grad(), Grad::Output(_)) { vec![a, b, y] } else { vec![a, b] };
                    self.on_tape(&[y], &save, move |e, g| {
                        let (a, b) = (e.cast(g.saved[0], DType::Float32)?, e.cast(g.saved[1], DType::Float32)?);
                        let needed = [g.needed[0], g.needed[1]];
                        let args = BinaryGradArgs { dy: g.dy(), a, b, y: g.saved.get(2).copied(), needed };
                        let mut out = Vec::with_capacity(2);
                        for (d, shape) in f(e, &args)?.into_iter().zip(&shapes) {
                            out.push(match d {
                                Some(d) => Some(e.sum_to_shape(d, shape)?),
                                None => None,
                            });
                        }
                        Ok(out)
                    })?;
                }
            }
        }
        Ok(y)
    }

    /// `tf.where(condition, a, b)`: `a` where `condition` is true, else `b`, all three
    /// broadcast together; `a` and `b` are upcast to a common dtype (tfjs's Select kernel).
    pub fn select(&mut self, condition: TensorId, a: TensorId, b: TensorId) -> Result<TensorId> {
        super::require_dtype("where", "condition", DType::Bool, self.dtype(condition)?)?;
        let y = self.run_kernel(k::SELECT, &[condition, a, b], |e, backend, ins| {
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
        })?;
        if self.taping() {
            let shapes = [self.shape(condition)?.to_vec(), self.shape(a)?.to_vec(), self.shape(b)?.to_vec()];
            self.on_tape(&[y], &[condition], move |e, g| {
                let c = e.cast(g.saved[0], DType::Float32)?;
                let one = e.scalar(1.0)?;
                let not_c = e.sub(one, c)?;
                let (da, db) = (e.mul(g.dy(), c)?, e.mul(g.dy(), not_c)?);
                Ok(vec![
                    Some(e.fill(&shapes[0], 0.0, DType::Float32)?),
                    Some(e.sum_to_shape(da, &shapes[1])?),
                    Some(e.sum_to_shape(db, &shapes[2])?),
                ])
            })?;
        }
        Ok(y)
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
        let y = self.run_kernel_any(k::CAST, &[x], |e, backend, ins| {
            let x = &ins[0];
            if x.dtype == dtype {
                return Ok(e.share(x.data.clone(), x.shape.to_vec(), dtype));
            }
            let storage = backend.cast(x.view(), dtype)?;
            e.output(storage, x.shape.to_vec(), dtype)
        })?;
        self.on_tape(&[y], &[], |e, g| Ok(vec![Some(e.clone_tensor(g.dy())?)]))?;
        Ok(y)
    }

    // ---- shorthands, for gradients and composed ops ----

    /// A float32 scalar.
    pub fn scalar(&mut self, v: f64) -> Result<TensorId> {
        self.fill(&[], v, DType::Float32)
    }
    pub fn add(&mut self, a: TensorId, b: TensorId) -> Result<TensorId> {
        self.binary(BinaryOp::Add, a, b)
    }
    pub fn sub(&mut self, a: TensorId, b: TensorId) -> Result<TensorId> {
        self.binary(BinaryOp::Sub, a, b)
    }
    pub fn mul(&mut self, a: TensorId, b: TensorId) -> Result<TensorId> {
        self.binary(BinaryOp::Mul, a, b)
    }
    pub fn div(&mut self, a: TensorId, b: TensorId) -> Result<TensorId> {
        self.binary(BinaryOp::Div, a, b)
    }
    pub fn neg(&mut self, x: TensorId) -> Result<TensorId> {
        self.unary(UnaryOp::Neg, x)
    }
    /// 1.0 where `op(a, b)` holds, else 0.0 (float32).
    pub fn mask(&mut self, op: BinaryOp, a: TensorId, b: TensorId) -> Result<TensorId> {
        let m = self.binary(op, a, b)?;
        self.cast(m, DType::Float32)
    }
    /// `op(x, v)` for a float32 scalar `v`.
    pub(crate) fn with_scalar(&mut self, op: BinaryOp, x: TensorId, v: f64) -> Result<TensorId> {
        let s = self.scalar(v)?;
        self.binary(op, x, s)
    }

    // ---- ops tfjs composes of others: composed here once, for tf.*, graphs and layers ----

    /// `tf.clipByValue`: `x` within `[lo, hi]`, the bounds stored in `x`'s dtype (as tfjs's
    /// kernel stores its results); NaN stays NaN; `lo == hi` fills.
    pub fn clip_by_value(&mut self, x: TensorId, lo: f64, hi: f64) -> Result<TensorId> {
        let js = crate::js::number;
        if !(lo <= hi) {
            bail!("Error in clip: min ({}) must be less than or equal to max ({}).", js(lo), js(hi));
        }
        let (s, d) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        if lo == hi {
            return self.fill(&s, lo, d);
        }
        self.composed(|e| {
            let (a, b) = (e.fill(&[], lo, d)?, e.fill(&[], hi, d)?);
            let y = e.binary(BinaryOp::Maximum, x, a)?;
            let y = e.binary(BinaryOp::Minimum, y, b)?;
            if d == DType::Bool {
                e.cast(y, DType::Bool)
            } else {
                Ok(y)
            }
        })
    }

    /// `tf.leakyRelu`: `alpha * x` below 0, in float32 (tfjs's kernel): prelu with a scalar alpha.
    pub fn leaky_relu(&mut self, x: TensorId, alpha: f64) -> Result<TensorId> {
        self.composed(|e| {
            let a = e.fill(&[], alpha, DType::Float32)?;
            e.binary(BinaryOp::Prelu, x, a)
        })
    }

    /// `tf.step`: 1 where `x > 0`, `alpha` elsewhere, NaN where a float32 `x` is NaN, in `x`'s
    /// dtype (alpha stored as tfjs's typed arrays store it). tfjs's Step kernel, composed here of
    /// comparisons and selects inside it, so `tf.profile` shows Step; its gradient is zero.
    pub fn step(&mut self, x: TensorId, alpha: f64) -> Result<TensorId> {
        let (shape, dtype) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        // A bool tensor's bytes are a Uint8Array's: alpha wraps to a byte, then nonzero is true.
        let alpha = if dtype == DType::Bool { f64::from(crate::js_to_int32(alpha) as u8) } else { alpha };
        let y = self.run_kernel(STEP, &[x], |e, _, _| {
            let zero = e.fill(&[], 0.0, dtype)?;
            let above = e.binary(BinaryOp::Greater, x, zero)?;
            let (one, low) = (e.fill(&[], 1.0, dtype)?, e.fill(&[], alpha, dtype)?);
            let y = e.select(above, one, low)?;
            if dtype != DType::Float32 {
                return Ok(y);
            }
            let nan = e.unary(UnaryOp::IsNaN, x)?;
            let nans = e.fill(&[], f64::NAN, dtype)?;
            e.select(nan, nans, y)
        })?;
        self.on_tape(&[y], &[], move |e, _| Ok(vec![Some(e.fill(&shape, 0.0, DType::Float32)?)]))?;
        Ok(y)
    }

    /// `tf.logSigmoid`: `-softplus(-x)`, as tfjs composes it (its custom gradient,
    /// `dy * sigmoid(-x)`, is what the parts' gradients give).
    pub fn log_sigmoid(&mut self, x: TensorId) -> Result<TensorId> {
        self.composed(|e| {
            let n = e.neg(x)?;
            let s = e.unary(UnaryOp::Softplus, n)?;
            e.neg(s)
        })
    }

    /// `tf.movingAverage`: `v + (x - v)(1 - decay)`, divided by `1 - decay^step` when
    /// `zero_debias` (which needs `step`), as tfjs composes it.
    pub fn moving_average(
        &mut self,
        v: TensorId,
        x: TensorId,
        decay: TensorId,
        step: Option<TensorId>,
        zero_debias: bool,
    ) -> Result<TensorId> {
        let (vd, xd) = (self.dtype(v)?, self.dtype(x)?);
        if vd != xd {
            bail!("The dtypes of the first({}) and second({}) input must match", vd.name(), xd.name());
        }
        if self.shape(v)? != self.shape(x)? {
            bail!("Shape mismatch in v and x");
        }
        let step = match (zero_debias, step) {
            (false, _) => None,
            (true, Some(s)) => Some(s),
            (true, None) => bail!("When using zeroDebias: true, step is required."),
        };
        self.composed(|e| {
            let one = e.scalar(1.0)?;
            let keep = e.sub(one, decay)?;
            let diff = e.sub(x, v)?;
            let mut update = e.mul(diff, keep)?;
            if let Some(step) = step {
                let p = e.binary(BinaryOp::Pow, decay, step)?;
                let debias = e.sub(one, p)?;
                update = e.div(update, debias)?;
            }
            e.add(v, update)
        })
    }

    /// `tf.addN`: tensors of one dtype and shape, added left to right.
    pub fn add_n(&mut self, xs: &[TensorId]) -> Result<TensorId> {
        let Some(&first) = xs.first() else { bail!("Must pass at least one tensor to tf.addN(), but got 0") };
        let (d0, s0) = (self.dtype(first)?, self.shape(first)?.to_vec());
        for &t in xs {
            if self.dtype(t)? != d0 {
                bail!("All tensors passed to tf.addN() must have the same dtype");
            }
        }
        for &t in xs {
            if self.shape(t)? != s0.as_slice() {
                bail!("All tensors passed to tf.addN() must have the same shape");
            }
        }
        if xs.len() == 1 {
            return self.clone_tensor(first);
        }
        self.composed(|e| xs[1..].iter().try_fold(first, |acc, &t| e.add(acc, t)))
    }
}

/// tfjs's Step kernel, which tidytensor composes (so no backend has it: not in kernels.rs's
/// table of backend kernels).
const STEP: &str = "Step";

// ---- helpers of the gradient formulas of the op tables (kernels.rs) ----

impl Engine {
    /// 1.0 where `op(x, v)` holds, else 0.0 (float32).
    pub(crate) fn scalar_mask(&mut self, op: BinaryOp, x: TensorId, v: f64) -> Result<TensorId> {
        let m = self.with_scalar(op, x, v)?;
        self.cast(m, DType::Float32)
    }

    /// `sqrt(a + s * x²)`, the denominators of the inverse trigonometric gradients.
    pub(crate) fn root_of(&mut self, x: TensorId, a: f64, s: f64) -> Result<TensorId> {
        let x2 = self.unary(UnaryOp::Square, x)?;
        let t = self.with_scalar(BinaryOp::Mul, x2, s)?;
        let t = self.with_scalar(BinaryOp::Add, t, a)?;
        self.unary(UnaryOp::Sqrt, t)
    }

    /// The gradient of a quotient `a / b` (`div` the division to use): dy / b, -dy * a / b².
    pub(crate) fn quotient_grad(&mut self, g: &BinaryGradArgs, div: BinaryOp) -> Result<[Option<TensorId>; 2]> {
        let da = if g.needed[0] { Some(self.binary(div, g.dy, g.b)?) } else { None };
        let db = if g.needed[1] {
            let t = self.mul(g.dy, g.a)?;
            let b2 = self.unary(UnaryOp::Square, g.b)?;
            let q = self.binary(div, t, b2)?;
            Some(self.neg(q)?)
        } else {
            None
        };
        Ok([da, db])
    }

    /// The gradient of maximum and minimum: dy where `to_a(a, b)` holds for a, where `to_b(a, b)`
    /// holds for b.
    pub(crate) fn select_grad(
        &mut self,
        g: &BinaryGradArgs,
        to_a: BinaryOp,
        to_b: BinaryOp,
    ) -> Result<[Option<TensorId>; 2]> {
        let da = if g.needed[0] { Some(self.mask(to_a, g.a, g.b).and_then(|m| self.mul(g.dy, m))?) } else { None };
        let db = if g.needed[1] { Some(self.mask(to_b, g.a, g.b).and_then(|m| self.mul(g.dy, m))?) } else { None };
        Ok([da, db])
    }
}

/// The bit operations of int32 values: tfjs's `bitwiseAnd`, and the rest for graph models
/// (ONNX's BitwiseOr/Xor and BitShift).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
    /// Bits past the top are dropped; a shift outside 0..32 gives 0.
    LeftShift,
    /// Arithmetic (the sign fills the top); a shift outside 0..32 gives the sign alone, -1 or 0.
    RightShift,
}

impl BitOp {
    fn kernel(self) -> &'static str {
        match self {
            BitOp::And => k::BITWISE_AND,
            BitOp::Or => k::BITWISE_OR,
            BitOp::Xor => k::BITWISE_XOR,
            BitOp::LeftShift => k::LEFT_SHIFT,
            BitOp::RightShift => k::RIGHT_SHIFT,
        }
    }

    fn apply(self, a: i32, b: i32) -> i32 {
        let shift = u32::try_from(b).ok().filter(|&s| s < 32);
        match self {
            BitOp::And => a & b,
            BitOp::Or => a | b,
            BitOp::Xor => a ^ b,
            BitOp::LeftShift => shift.map_or(0, |s| a << s),
            BitOp::RightShift => shift.map_or(a >> 31, |s| a >> s),
        }
    }
}

impl Engine {
    /// `tf.bitwiseAnd`: int32 tensors of one shape.
    pub fn bitwise_and(&mut self, x: TensorId, y: TensorId) -> Result<TensorId> {
        let (xs, ys) = (self.shape(x)?.to_vec(), self.shape(y)?.to_vec());
        if xs != ys {
            bail!("BitwiseAnd: Tensors must have the same shape. x: {}, y: {}", shape::fmt(&xs), shape::fmt(&ys));
        }
        self.bitwise(BitOp::And, x, y)
    }

    /// A bit operation of int32 tensors, broadcast numpy-style; on the host from the values (the
    /// float32 elementwise kernels cannot represent every int32 exactly).
    pub fn bitwise(&mut self, op: BitOp, x: TensorId, y: TensorId) -> Result<TensorId> {
        let name = op.kernel();
        let (xd, yd) = (self.dtype(x)?, self.dtype(y)?);
        if xd != DType::Int32 || yd != DType::Int32 {
            bail!(
                "{name}: Only supports 'int32' values in tensor, found type of x: {} and type of y: {}",
                xd.name(),
                yd.name()
            );
        }
        let out_shape = shape::broadcast(self.shape(x)?, self.shape(y)?)?;
        self.run_kernel_any(name, &[x, y], |e, _, _| {
            let (a, b) = (e.read_f64(x)?, e.read_f64(y)?);
            let (sa, sb) = (e.shape(x)?.to_vec(), e.shape(y)?.to_vec());
            let (ia, ib) = (shape::broadcast_indices(&sa, &out_shape), shape::broadcast_indices(&sb, &out_shape));
            let out = ia.zip(ib).map(|(i, j)| op.apply(a[i] as i32, b[j] as i32)).collect();
            e.tensor(crate::HostData::I32(out), &out_shape)
        })
    }

    /// Every bit of an int32 tensor flipped (`~x`), on the host.
    pub fn bitwise_not(&mut self, x: TensorId) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        if dtype != DType::Int32 {
            bail!("Invert: Only supports 'int32' values in tensor, found type of x: {}", dtype.name());
        }
        let shape = self.shape(x)?.to_vec();
        self.run_kernel_any(k::INVERT, &[x], |e, _, _| {
            let out = e.read_f64(x)?.iter().map(|&v| !(v as i32)).collect();
            e.tensor(crate::HostData::I32(out), &shape)
        })
    }
}
