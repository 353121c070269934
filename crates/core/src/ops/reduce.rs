use super::require_dtype;
use crate::backend::{ArgOp, CumOp, ReduceOp};
use crate::{bail, kernels as k, shape, DType, Engine, Result, TensorId};

impl ReduceOp {
    pub fn kernel_name(self) -> &'static str {
        match self {
            ReduceOp::Sum => k::SUM,
            ReduceOp::Mean => k::MEAN,
            ReduceOp::Max => k::MAX,
            ReduceOp::Min => k::MIN,
            ReduceOp::Prod => k::PROD,
            ReduceOp::All => k::ALL,
            ReduceOp::Any => k::ANY,
        }
    }
}

impl ArgOp {
    pub fn kernel_name(self) -> &'static str {
        match self {
            ArgOp::ArgMax => k::ARG_MAX,
            ArgOp::ArgMin => k::ARG_MIN,
        }
    }
}

impl Engine {
    /// sum/mean/max/min over `axes` (`None` = all). Output dtypes as in tfjs: sum of bool is
    /// int32, mean is float32, max/min keep the dtype.
    pub fn reduce(&mut self, op: ReduceOp, x: TensorId, axes: Option<&[i64]>, keep_dims: bool) -> Result<TensorId> {
        let (in_shape, dtype) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        let list = axes;
        let axes = shape::axes(list, in_shape.len())?;
        if list.is_some_and(|l| l.len() != axes.len()) {
            // tfjs computes a meaningless result; TensorFlow refuses.
            bail!("Axes contain a duplicate dimension: axis {}", shape::join_i64(list.unwrap_or_default()));
        }
        if matches!(op, ReduceOp::All | ReduceOp::Any) {
            let name = if op == ReduceOp::All { "all" } else { "any" };
            super::require_dtype(name, "x", DType::Bool, dtype)?;
        }
        let out = match (op, dtype) {
            (ReduceOp::Sum | ReduceOp::Prod, DType::Bool) => DType::Int32,
            (ReduceOp::Mean, _) => DType::Float32,
            _ => dtype,
        };
        let out_shape = reduced_shape(&in_shape, &axes, keep_dims);
        let reduced: usize = axes.iter().map(|&a| in_shape[a]).product();
        let y = self.run_kernel(op.kernel_name(), &[x], |e, backend, _| {
            if reduced == 0 && !axes.is_empty() {
                // Reducing nothing: tfjs gives 0 for sum, mean and any, 1 for prod and all, NaN
                // (0 in int dtypes) for max/min.
                let empty = match op {
                    ReduceOp::Max | ReduceOp::Min if out == DType::Float32 => f64::NAN,
                    ReduceOp::Prod | ReduceOp::All => 1.0,
                    _ => 0.0,
                };
                return e.fill(&out_shape, empty, out);
            }
            let (moved, outer, inner) = e.move_axes_last(x, &axes)?;
            let input = e.input(moved.unwrap_or(x))?;
            let storage = backend.reduce(op, input.view(), outer, inner, out)?;
            e.output(storage, out_shape.clone(), out)
        })?;
        if self.taping() && op == ReduceOp::Prod {
            let axes = axes.clone();
            self.on_tape(&[y], &[x], move |e, g| Ok(vec![Some(e.prod_grad(g.saved[0], g.dy(), &axes)?)]))?;
        }
        if self.taping() && matches!(op, ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Max | ReduceOp::Min) {
            let kept: Vec<i64> = reduced_shape(&in_shape, &axes, true).iter().map(|&d| d as i64).collect();
            let save = if matches!(op, ReduceOp::Max | ReduceOp::Min) { vec![x, y] } else { vec![] };
            self.on_tape(&[y], &save, move |e, g| {
                // dy back over the reduced axes; max and min send it to the values equal to
                // the result (tfjs's `gradForMinAndMax`), mean divides it by the count.
                let dy = e.reshape(g.dy(), &kept)?;
                let dy = e.cast(dy, DType::Float32)?;
                let dx = match op {
                    ReduceOp::Max | ReduceOp::Min => {
                        let y = e.reshape(g.saved[1], &kept)?;
                        let hit = e.mask(crate::BinaryOp::Equal, g.saved[0], y)?;
                        e.mul(dy, hit)?
                    }
                    _ => {
                        let full = e.broadcast_to(dy, &in_shape)?;
                        if op == ReduceOp::Mean {
                            let n = e.scalar(reduced as f64)?;
                            e.div(full, n)?
                        } else {
                            full
                        }
                    }
                };
                Ok(vec![Some(dx)])
            })?;
        }
        Ok(y)
    }

    /// `tf.cumsum` / `tf.cumprod` along `axis` (negative counts from the end); bool sums and
    /// multiplies as int32.
    pub fn cumulative(
        &mut self,
        op: CumOp,
        x: TensorId,
        axis: i64,
        exclusive: bool,
        reverse: bool,
    ) -> Result<TensorId> {
        let (shape, dtype) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        let name = if op == CumOp::Sum { "cumsum" } else { "cumprod" };
        let a = shape::axis(name, axis, shape.len())?;
        let out = if dtype == DType::Bool { DType::Int32 } else { dtype };
        let kernel = if op == CumOp::Sum { k::CUMSUM } else { k::CUMPROD };
        let y = self.run_kernel(kernel, &[x], |e, backend, _| {
            if shape::size(&shape) == 0 {
                return e.filled(&shape, 0.0, out);
            }
            let (moved, outer, len) = e.move_axes_last(x, &[a])?;
            let input = e.input(moved.unwrap_or(x))?;
            let storage = backend.cumulative(op, input.view(), outer, len, (exclusive, reverse), out)?;
            let Some(moved) = moved else { return e.output(storage, shape.clone(), out) };
            // Back from [others..., axis] to the input's order.
            let y = e.output(storage, e.shape(moved)?.to_vec(), out)?;
            let rank = shape.len() as i64;
            let back: Vec<i64> = (0..rank)
                .map(|i| {
                    if i < a as i64 {
                        i
                    } else if i == a as i64 {
                        rank - 1
                    } else {
                        i - 1
                    }
                })
                .collect();
            e.transpose(y, Some(&back))
        })?;
        if op == CumOp::Sum {
            // Each value reaches the sums after it: the gradient runs the other way.
            self.on_tape(&[y], &[], move |e, g| {
                let dy = e.cast(g.dy(), DType::Float32)?;
                Ok(vec![Some(e.cumulative(CumOp::Sum, dy, a as i64, exclusive, !reverse)?)])
            })?;
        }
        Ok(y)
    }

    /// `tf.topk`: the `k` largest values along the last axis, sorted, and their int32 indices.
    pub fn topk(&mut self, x: TensorId, k: i64) -> Result<Vec<TensorId>> {
        let (shape, dtype) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        let Some(&last) = shape.last() else { bail!("topk() expects the input to be of rank 1 or higher") };
        if k < 0 {
            bail!("'k' passed to topk() must be >= 0 but got {k}");
        }
        if k as usize > last {
            bail!("'k' passed to topk() must be <= the last dimension ({last}) but got {k}");
        }
        let k = k as usize;
        let mut out_shape = shape.clone();
        *out_shape.last_mut().expect("rank >= 1") = k;
        self.check_size(&out_shape, dtype)?;
        self.run_kernel(k::TOP_K, &[x], |e, backend, ins| {
            let rows = shape::size(&shape[..shape.len() - 1]);
            if k == 0 || rows == 0 {
                return Ok(vec![e.filled(&out_shape, 0.0, dtype)?, e.filled(&out_shape, 0.0, DType::Int32)?]);
            }
            let (values, indices) = backend.topk(ins[0].view(), rows, last, k)?;
            Ok(vec![e.output(values, out_shape.clone(), dtype)?, e.output(indices, out_shape.clone(), DType::Int32)?])
        })
    }

    /// `tf.logSoftmax`: `x - max - log(sum(exp(x - max)))` over the last axis (`axis` -1 or the
    /// last; tfjs supports no other), composed as tfjs composes it.
    pub fn log_softmax(&mut self, x: TensorId, axis: f64) -> Result<TensorId> {
        let rank = self.shape(x)?.len() as f64;
        let a = if axis == -1.0 { rank - 1.0 } else { axis };
        if a != rank - 1.0 {
            let js = crate::js::number;
            bail!(
                "Log Softmax along a non-last dimension is not yet supported. Logits was rank {} and axis was {}",
                js(rank),
                js(a)
            );
        }
        let a = [a as i64];
        Ok(self.tidy(|e| {
            let m = e.reduce(ReduceOp::Max, x, Some(&a), true)?;
            let shifted = e.sub(x, m)?;
            let f = e.cast(shifted, DType::Float32)?;
            let ex = e.unary(crate::UnaryOp::Exp, shifted)?;
            let s = e.reduce(ReduceOp::Sum, ex, Some(&a), true)?;
            let l = e.unary(crate::UnaryOp::Log, s)?;
            Ok(vec![e.sub(f, l)?])
        })?[0])
    }

    /// `tf.moments`: the mean and the variance of `x` over `axes` (`None` = all), float32, as
    /// tfjs composes them: `mean(x)`, then `mean(square(float(x) - mean))`. With no gradient
    /// being recorded and float32 `x`, one `Moments` kernel that writes nothing but the two
    /// results (batch normalization in training runs it on every batch); else the ops
    /// themselves, which carry the gradients.
    pub fn moments(&mut self, x: TensorId, axes: Option<&[i64]>, keep_dims: bool) -> Result<(TensorId, TensorId)> {
        let (in_shape, dtype) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        let list = axes;
        let axes = shape::axes(list, in_shape.len())?;
        if list.is_some_and(|l| l.len() != axes.len()) {
            bail!("Axes contain a duplicate dimension: axis {}", shape::join_i64(list.unwrap_or_default()));
        }
        let n: usize = axes.iter().map(|&a| in_shape[a]).product();
        if self.taping() || dtype != DType::Float32 || n == 0 || shape::size(&in_shape) == 0 {
            let all: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            let kept: Vec<i64> = reduced_shape(&in_shape, &axes, true).iter().map(|&d| d as i64).collect();
            let out = self.tidy(|e| {
                let mean = e.reduce(ReduceOp::Mean, x, Some(&all), keep_dims)?;
                let m = e.reshape(mean, &kept)?;
                let xf = e.cast(x, DType::Float32)?;
                let d = e.sub(xf, m)?;
                let sq = e.unary(crate::UnaryOp::Square, d)?;
                Ok(vec![mean, e.reduce(ReduceOp::Mean, sq, Some(&all), keep_dims)?])
            })?;
            return Ok((out[0], out[1]));
        }
        let out_shape = reduced_shape(&in_shape, &axes, keep_dims);
        let mut sorted = axes.clone();
        sorted.sort_unstable();
        // One block of adjacent axes reads `x` in place as [outer, n, inner]; any other set is
        // moved last first.
        let block = sorted.windows(2).all(|w| w[1] == w[0] + 1);
        let out = self.run_kernel(k::MOMENTS, &[x], |e, backend, _| {
            let (moved, outer, inner) = if let (true, Some(&lo), Some(&last)) = (block, sorted.first(), sorted.last()) {
                (None, shape::size(&in_shape[..lo]), shape::size(&in_shape[last + 1..]))
            } else if sorted.is_empty() {
                // No axes (a scalar, or `[]`): each value its own group.
                (None, shape::size(&in_shape), 1)
            } else {
                let (moved, outer, _) = e.move_axes_last(x, &axes)?;
                (moved, outer, 1)
            };
            let input = e.input(moved.unwrap_or(x))?;
            let (mean, var) = backend.moments(input.view(), outer, n, inner)?;
            Ok(vec![
                e.output(mean, out_shape.clone(), DType::Float32)?,
                e.output(var, out_shape.clone(), DType::Float32)?,
            ])
        })?;
        Ok((out[0], out[1]))
    }

    /// argMax/argMin along one axis; int32 output without that axis.
    pub fn arg_reduce(&mut self, op: ArgOp, x: TensorId, axis: i64) -> Result<TensorId> {
        let in_shape = self.shape(x)?.to_vec();
        let axes = shape::axes(Some(&[axis]), in_shape.len())?;
        let y = self.run_kernel(op.kernel_name(), &[x], |e, backend, ins| {
            let Some(&axis) = axes.first() else {
                // A scalar: its only element is at index 0.
                return e.fill(&[], 0.0, DType::Int32);
            };
            let out_shape = reduced_shape(&in_shape, &[axis], false);
            if in_shape[axis] == 0 || shape::size(&out_shape) == 0 {
                return e.fill(&out_shape, 0.0, DType::Int32);
            }
            let outer = shape::size(&in_shape[..axis]);
            let inner = shape::size(&in_shape[axis + 1..]);
            let storage = backend.arg_reduce(op, ins[0].view(), outer, in_shape[axis], inner)?;
            e.output(storage, out_shape, DType::Int32)
        })?;
        // An index does not change with small changes of the values.
        self.zero_grad(y, x)?;
        Ok(y)
    }

    /// Softmax over the last axis (`dim` must name it, as in tfjs); float32 only.
    pub fn softmax(&mut self, logits: TensorId, dim: i64) -> Result<TensorId> {
        require_dtype("softmax", "logits", DType::Float32, self.dtype(logits)?)?;
        let rank = self.shape(logits)?.len() as i64;
        if rank == 0 {
            bail!("All values in axis param must be in range [-0, 0) but got axis {dim}");
        }
        let d = if dim == -1 { rank - 1 } else { dim };
        if d != rank - 1 {
            bail!("Softmax along a non-last dimension is not yet supported. Logits was rank {rank} and dim was {d}");
        }
        let y = self.run_kernel(k::SOFTMAX, &[logits], |e, backend, ins| {
            let x = &ins[0];
            let inner = x.shape.last().copied().unwrap_or(1);
            let outer = shape::size(&x.shape) / inner.max(1);
            let storage = backend.softmax(x.view(), outer, inner)?;
            e.output(storage, x.shape.to_vec(), DType::Float32)
        })?;
        self.on_tape(&[y], &[y], move |e, g| {
            // dy * y - sum(dy * y, last axis) * y
            let y = g.saved[0];
            let dy_y = e.mul(g.dy(), y)?;
            let s = e.reduce(ReduceOp::Sum, dy_y, Some(&[-1]), true)?;
            let t = e.mul(s, y)?;
            Ok(vec![Some(e.sub(dy_y, t)?)])
        })?;
        Ok(y)
    }

    /// The gradient of a product over `axes` (tfjs's): the axes moved last and merged into one,
    /// along which each value's gradient is dy times the product of all the others (the
    /// exclusive running products from both ends, multiplied).
    fn prod_grad(&mut self, x: TensorId, dy: TensorId, axes: &[usize]) -> Result<TensorId> {
        let x = self.cast(x, DType::Float32)?;
        let s = self.shape(x)?.to_vec();
        let rank = s.len();
        let mut perm: Vec<usize> = (0..rank).filter(|a| !axes.contains(a)).collect();
        perm.extend_from_slice(axes);
        let perm_i: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
        let moved = self.transpose(x, Some(&perm_i))?;
        let kept: Vec<i64> = perm[..rank - axes.len()].iter().map(|&a| s[a] as i64).collect();
        let merged: Vec<i64> = kept.iter().copied().chain([-1]).collect();
        let flat = self.reshape(moved, &merged)?;
        let last = kept.len() as i64;
        let before = self.cumulative(CumOp::Prod, flat, last, true, false)?;
        let after = self.cumulative(CumOp::Prod, flat, last, true, true)?;
        let others = self.mul(before, after)?;
        let dy_shape: Vec<i64> = kept.iter().copied().chain([1]).collect();
        let dy = self.reshape(dy, &dy_shape)?;
        let dy = self.cast(dy, DType::Float32)?;
        let d = self.mul(dy, others)?;
        let moved_shape: Vec<i64> = perm.iter().map(|&a| s[a] as i64).collect();
        let d = self.reshape(d, &moved_shape)?;
        let mut inverse = vec![0i64; rank];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p] = i as i64;
        }
        self.transpose(d, Some(&inverse))
    }

    /// `g` summed over the axes along which `shape` was broadcast to `g`'s shape, as `shape`
    /// (the gradient of a broadcasting op for one input; tfjs's `getReductionAxes`).
    pub fn sum_to_shape(&mut self, g: TensorId, shape: &[usize]) -> Result<TensorId> {
        let gs = self.shape(g)?.to_vec();
        let lead = gs.len().saturating_sub(shape.len());
        let axes: Vec<i64> =
            (0..gs.len()).filter(|&i| i < lead || (shape[i - lead] == 1 && gs[i] != 1)).map(|i| i as i64).collect();
        let summed = if axes.is_empty() { g } else { self.reduce(ReduceOp::Sum, g, Some(&axes), false)? };
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        self.reshape(summed, &dims)
    }

    /// Transposes `x` so that `axes` come last (when they are not already), returning the
    /// temporary copy (if any) and the `[outer, inner]` sizes.
    fn move_axes_last(&mut self, x: TensorId, axes: &[usize]) -> Result<(Option<TensorId>, usize, usize)> {
        let s = self.shape(x)?.to_vec();
        let rank = s.len();
        let inner: usize = axes.iter().map(|&a| s[a]).product();
        let outer: usize = (0..rank).filter(|a| !axes.contains(a)).map(|a| s[a]).product();
        let already_last = axes.iter().enumerate().all(|(i, &a)| a == rank - axes.len() + i);
        if already_last {
            return Ok((None, outer, inner));
        }
        let mut perm: Vec<usize> = (0..rank).filter(|a| !axes.contains(a)).collect();
        perm.extend_from_slice(axes);
        let perm: Vec<i64> = perm.into_iter().map(|p| p as i64).collect();
        Ok((Some(self.transpose(x, Some(&perm))?), outer, inner))
    }
}

fn reduced_shape(shape: &[usize], axes: &[usize], keep_dims: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| match (axes.contains(&i), keep_dims) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}
