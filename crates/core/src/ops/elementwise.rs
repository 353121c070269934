//! Elementwise front-ends: every op of the unary and binary tables (in `kernels.rs`), and
//! `cast`.

use super::{cast_if, pad_rank, view_of};
use crate::engine::check_size;
use crate::kernels::{self as k, BinaryOp, BinaryRule, DtypeRule, UnaryOp};
use crate::{bail, shape, DType, Engine, GradArgs, Result, TensorId};

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
            // Exp, sigmoid, tanh and elu differentiate through their output, as in tfjs.
            let from_output = matches!(op, UnaryOp::Exp | UnaryOp::Sigmoid | UnaryOp::Tanh | UnaryOp::Elu);
            let save = if from_output { y } else { x };
            self.on_tape(&[y], &[save], move |e, g| Ok(vec![Some(unary_grad(e, op, g.saved[0], g.dy())?)]))?;
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
        // Logical ops have no gradient, as in tfjs: a path through one is an error.
        if self.taping() && op.rule() != BinaryRule::Logical {
            let shapes = [self.shape(a)?.to_vec(), self.shape(b)?.to_vec()];
            let save = if op == BinaryOp::Pow { vec![a, b, y] } else { vec![a, b] };
            self.on_tape(&[y], &save, move |e, g| binary_grad(e, op, g, &shapes))?;
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
    fn with_scalar(&mut self, op: BinaryOp, x: TensorId, v: f64) -> Result<TensorId> {
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

/// The gradients of a binary kernel (tfjs's `*_grad.ts`), each summed back to its input's
/// shape over the broadcast axes. `saved`: a, b (and the output, for pow).
fn binary_grad(e: &mut Engine, op: BinaryOp, g: &GradArgs, shapes: &[Vec<usize>; 2]) -> Result<Vec<Option<TensorId>>> {
    use BinaryOp as B;
    let (dy, a, b) = (g.dy(), g.saved[0], g.saved[1]);
    let (a, b) = (e.cast(a, DType::Float32)?, e.cast(b, DType::Float32)?);
    let (da, db) = match op {
        B::Add => (g.needed[0].then_some(dy), g.needed[1].then_some(dy)),
        B::Sub => (g.needed[0].then_some(dy), if g.needed[1] { Some(e.neg(dy)?) } else { None }),
        B::Mul => {
            (if g.needed[0] { Some(e.mul(dy, b)?) } else { None }, if g.needed[1] { Some(e.mul(dy, a)?) } else { None })
        }
        B::Div | B::FloorDiv | B::DivNoNan => {
            let div = if op == B::DivNoNan { B::DivNoNan } else { B::Div };
            let da = if g.needed[0] { Some(e.binary(div, dy, b)?) } else { None };
            let db = if g.needed[1] {
                // -dy * a / b²
                let t = e.mul(dy, a)?;
                let b2 = e.unary(UnaryOp::Square, b)?;
                let q = e.binary(div, t, b2)?;
                Some(e.neg(q)?)
            } else {
                None
            };
            (da, db)
        }
        B::Pow => {
            let y = g.saved[2];
            let da = if g.needed[0] {
                // dy * b * a^(b-1)
                let b1 = e.with_scalar(B::Sub, b, 1.0)?;
                let p = e.binary(B::Pow, a, b1)?;
                let t = e.mul(b, p)?;
                Some(e.mul(dy, t)?)
            } else {
                None
            };
            let db = if g.needed[1] {
                // dy * y * log(a) where a > 0, else 0
                let pos = e.with_scalar(B::Greater, a, 0.0)?;
                let log = e.unary(UnaryOp::Log, a)?;
                let zero = e.scalar(0.0)?;
                let log = e.select(pos, log, zero)?;
                let y = e.cast(y, DType::Float32)?;
                let t = e.mul(y, log)?;
                Some(e.mul(dy, t)?)
            } else {
                None
            };
            (da, db)
        }
        B::Maximum | B::Minimum => {
            let (ta, tb) = if op == B::Maximum { (B::GreaterEqual, B::Less) } else { (B::LessEqual, B::Greater) };
            let da = if g.needed[0] { Some(e.mask(ta, a, b).and_then(|m| e.mul(dy, m))?) } else { None };
            let db = if g.needed[1] { Some(e.mask(tb, a, b).and_then(|m| e.mul(dy, m))?) } else { None };
            (da, db)
        }
        B::SquaredDifference => {
            let d = e.sub(a, b)?;
            let t = e.with_scalar(B::Mul, d, 2.0)?;
            let da = e.mul(dy, t)?;
            let db = if g.needed[1] { Some(e.neg(da)?) } else { None };
            (Some(da), db)
        }
        B::Atan2 => {
            // d/da = b / (a² + b²), d/db = -a / (a² + b²)
            let (a2, b2) = (e.unary(UnaryOp::Square, a)?, e.unary(UnaryOp::Square, b)?);
            let d = e.add(a2, b2)?;
            let da = if g.needed[0] { Some(e.div(b, d).and_then(|q| e.mul(dy, q))?) } else { None };
            let db = if g.needed[1] {
                let q = e.div(a, d)?;
                let t = e.mul(dy, q)?;
                Some(e.neg(t)?)
            } else {
                None
            };
            (da, db)
        }
        B::Mod => {
            // d/da = 1, d/db = -floor(a / b)
            let db = if g.needed[1] {
                let q = e.div(a, b)?;
                let f = e.unary(UnaryOp::Floor, q)?;
                let t = e.mul(dy, f)?;
                Some(e.neg(t)?)
            } else {
                None
            };
            (g.needed[0].then_some(dy), db)
        }
        B::Prelu => {
            // x > 0: dx = dy, dalpha = 0; else dx = dy * alpha, dalpha = dy * x.
            let pos = e.with_scalar(B::Greater, a, 0.0)?;
            let zero = e.scalar(0.0)?;
            let dx = if g.needed[0] {
                let t = e.mul(dy, b)?;
                Some(e.select(pos, dy, t)?)
            } else {
                None
            };
            let dalpha = if g.needed[1] {
                let t = e.mul(dy, a)?;
                Some(e.select(pos, zero, t)?)
            } else {
                None
            };
            (dx, dalpha)
        }
        // Comparisons: flat, so zero (tfjs differentiates only greaterEqual this way; ops
        // composed of the others here, such as leakyRelu and step, need them too).
        B::LogicalAnd | B::LogicalOr | B::LogicalXor => {
            bail!("Cannot compute gradient: gradient function not found for {}.", op.kernel_name())
        }
        B::Equal | B::NotEqual | B::Greater | B::GreaterEqual | B::Less | B::LessEqual => {
            let za = if g.needed[0] { Some(e.fill(&shapes[0], 0.0, DType::Float32)?) } else { None };
            let zb = if g.needed[1] { Some(e.fill(&shapes[1], 0.0, DType::Float32)?) } else { None };
            return Ok(vec![za, zb]);
        }
    };
    let mut out = Vec::with_capacity(2);
    for (d, shape) in [(da, &shapes[0]), (db, &shapes[1])] {
        out.push(match d {
            Some(d) => Some(e.sum_to_shape(d, shape)?),
            None => None,
        });
    }
    Ok(out)
}

/// The gradient of a unary kernel (tfjs's `*_grad.ts`); `t` is the saved input, or the
/// output for exp, sigmoid, tanh and elu.
fn unary_grad(e: &mut Engine, op: UnaryOp, t: TensorId, dy: TensorId) -> Result<TensorId> {
    use BinaryOp as B;
    use UnaryOp as U;
    let x = e.cast(t, DType::Float32)?;
    // dy * f(x)
    let times = |e: &mut Engine, f: TensorId| e.mul(dy, f);
    // dy / f(x)
    let over = |e: &mut Engine, f: TensorId| e.div(dy, f);
    // sqrt(±(1 - x²)) style denominators: sqrt(a + s * x²)
    let root = |e: &mut Engine, a: f64, s: f64| -> Result<TensorId> {
        let x2 = e.unary(U::Square, x)?;
        let t = e.with_scalar(B::Mul, x2, s)?;
        let t = e.with_scalar(B::Add, t, a)?;
        e.unary(U::Sqrt, t)
    };
    match op {
        U::Abs => {
            // tfjs: step(x, -1), 1 where x > 0, else -1.
            let pos = e.with_scalar(B::Greater, x, 0.0).and_then(|m| e.cast(m, DType::Float32))?;
            let s = e.with_scalar(B::Mul, pos, 2.0)?;
            let s = e.with_scalar(B::Sub, s, 1.0)?;
            times(e, s)
        }
        U::Acos => {
            let r = root(e, 1.0, -1.0)?;
            let q = over(e, r)?;
            e.neg(q)
        }
        U::Acosh => {
            let r = root(e, -1.0, 1.0)?;
            over(e, r)
        }
        U::Asin => {
            let r = root(e, 1.0, -1.0)?;
            over(e, r)
        }
        U::Asinh => {
            let r = root(e, 1.0, 1.0)?;
            over(e, r)
        }
        U::Atan | U::Atanh => {
            let x2 = e.unary(U::Square, x)?;
            let s = if op == U::Atan { 1.0 } else { -1.0 };
            let t = e.with_scalar(B::Mul, x2, s)?;
            let d = e.with_scalar(B::Add, t, 1.0)?;
            over(e, d)
        }
        U::Ceil | U::Floor | U::Round | U::Sign | U::IsFinite | U::IsInf | U::IsNaN | U::LogicalNot => {
            let shape = e.shape(dy)?.to_vec();
            e.fill(&shape, 0.0, DType::Float32)
        }
        U::Cos => {
            let s = e.unary(U::Sin, x)?;
            let n = e.neg(s)?;
            times(e, n)
        }
        U::Cosh => {
            let s = e.unary(U::Sinh, x)?;
            times(e, s)
        }
        U::Elu => {
            // y > 0: dy, else dy * (y + 1)
            let pos = e.with_scalar(B::Greater, x, 0.0)?;
            let y1 = e.with_scalar(B::Add, x, 1.0)?;
            let t = times(e, y1)?;
            e.select(pos, dy, t)
        }
        U::Erf => {
            // dy * 2/sqrt(pi) * exp(-x²)
            let x2 = e.unary(U::Square, x)?;
            let n = e.neg(x2)?;
            let ex = e.unary(U::Exp, n)?;
            let t = e.with_scalar(B::Mul, ex, 2.0 / std::f64::consts::PI.sqrt())?;
            times(e, t)
        }
        U::Exp => times(e, x),
        U::Expm1 => {
            let ex = e.unary(U::Exp, x)?;
            times(e, ex)
        }
        U::Log => over(e, x),
        U::Log1p => {
            let d = e.with_scalar(B::Add, x, 1.0)?;
            over(e, d)
        }
        U::Neg => e.neg(dy),
        U::Reciprocal => {
            let x2 = e.unary(U::Square, x)?;
            let q = over(e, x2)?;
            e.neg(q)
        }
        U::Relu => {
            let m = e.with_scalar(B::Greater, x, 0.0).and_then(|m| e.cast(m, DType::Float32))?;
            times(e, m)
        }
        U::Relu6 => {
            let pos = e.with_scalar(B::Greater, x, 0.0).and_then(|m| e.cast(m, DType::Float32))?;
            let le6 = e.with_scalar(B::LessEqual, x, 6.0).and_then(|m| e.cast(m, DType::Float32))?;
            let m = e.mul(pos, le6)?;
            times(e, m)
        }
        U::Rsqrt => {
            // -dy / (2 x^1.5)
            let p = e.with_scalar(B::Pow, x, 1.5)?;
            let d = e.with_scalar(B::Mul, p, 2.0)?;
            let q = over(e, d)?;
            e.neg(q)
        }
        U::Selu => {
            const SCALE: f64 = 1.050_700_987_355_480_5;
            const SCALE_ALPHA: f64 = 1.758_099_340_847_376_6;
            let pos = e.with_scalar(B::Greater, x, 0.0)?;
            let above = e.with_scalar(B::Mul, dy, SCALE)?;
            let ex = e.unary(U::Exp, x)?;
            let t = e.with_scalar(B::Mul, dy, SCALE_ALPHA)?;
            let below = e.mul(t, ex)?;
            e.select(pos, above, below)
        }
        U::Sigmoid => {
            // dy * y * (1 - y)
            let one = e.scalar(1.0)?;
            let one_minus = e.sub(one, x)?;
            let t = e.mul(x, one_minus)?;
            times(e, t)
        }
        U::Sin => {
            let c = e.unary(U::Cos, x)?;
            times(e, c)
        }
        U::Sinh => {
            let c = e.unary(U::Cosh, x)?;
            times(e, c)
        }
        U::Softplus => {
            let s = e.unary(U::Sigmoid, x)?;
            times(e, s)
        }
        U::Sqrt => {
            let r = e.unary(U::Sqrt, x)?;
            let d = e.with_scalar(B::Mul, r, 2.0)?;
            over(e, d)
        }
        U::Square => {
            let t = e.with_scalar(B::Mul, x, 2.0)?;
            times(e, t)
        }
        U::Tan => {
            let c = e.unary(U::Cos, x)?;
            let c2 = e.unary(U::Square, c)?;
            over(e, c2)
        }
        U::Tanh => {
            // dy * (1 - y²)
            let y2 = e.unary(U::Square, x)?;
            let one = e.scalar(1.0)?;
            let t = e.sub(one, y2)?;
            times(e, t)
        }
    }
}

impl Engine {
    /// `tf.bitwiseAnd`: int32 tensors of one shape, on the host from the values (the float32
    /// elementwise kernels cannot represent every int32 exactly).
    pub fn bitwise_and(&mut self, x: TensorId, y: TensorId) -> Result<TensorId> {
        let (xs, ys) = (self.shape(x)?.to_vec(), self.shape(y)?.to_vec());
        if xs != ys {
            bail!("BitwiseAnd: Tensors must have the same shape. x: {}, y: {}", shape::fmt(&xs), shape::fmt(&ys));
        }
        let (xd, yd) = (self.dtype(x)?, self.dtype(y)?);
        if xd != DType::Int32 || yd != DType::Int32 {
            bail!(
                "BitwiseAnd: Only supports 'int32' values in tensor, found type of x: {} and type of y: {}",
                xd.name(),
                yd.name()
            );
        }
        self.run_kernel_any(k::BITWISE_AND, &[x, y], |e, _, _| {
            let (a, b) = (e.read_f64(x)?, e.read_f64(y)?);
            let out = a.iter().zip(&b).map(|(&p, &q)| (p as i32) & (q as i32)).collect();
            e.tensor(crate::HostData::I32(out), &xs)
        })
    }
}
