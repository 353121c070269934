use super::{cast_if, view_of};
use crate::backend::View;
use crate::{bail, kernels as k, shape, BinaryOp, DType, Engine, Result, TensorId};

impl Engine {
    /// `tf.matMul`: rank ≥ 2, batch dimensions broadcast, output dtype is the inputs' upcast
    /// (int32 × int32 stays int32, as in tfjs).
    pub fn matmul(&mut self, a: TensorId, b: TensorId, transpose_a: bool, transpose_b: bool) -> Result<TensorId> {
        let (sa, sb) = (self.shape(a)?.to_vec(), self.shape(b)?.to_vec());
        if sa.len() < 2 || sb.len() < 2 {
            bail!(
                "Error in matMul: inputs must have rank >= 2, but got shapes {} and {}.",
                shape::fmt(&sa),
                shape::fmt(&sb)
            );
        }
        let (ra, rb) = (sa.len(), sb.len());
        let inner_a = if transpose_a { sa[ra - 2] } else { sa[ra - 1] };
        let inner_b = if transpose_b { sb[rb - 1] } else { sb[rb - 2] };
        let m = if transpose_a { sa[ra - 1] } else { sa[ra - 2] };
        let n = if transpose_b { sb[rb - 2] } else { sb[rb - 1] };
        if inner_a != inner_b {
            bail!(
                "Error in matMul: inner shapes ({inner_a}) and ({inner_b}) of Tensors with shapes {} and {} and transposeA={transpose_a} and transposeB={transpose_b} must match.",
                shape::fmt(&sa),
                shape::fmt(&sb)
            );
        }
        let (batch_a, batch_b) = (&sa[..ra - 2], &sb[..rb - 2]);
        let batch = shape::broadcast(batch_a, batch_b).map_err(|_| {
            crate::Error(format!(
                "Error in matMul: the batch dimensions of shapes {} and {} could not be broadcast.",
                shape::fmt(&sa),
                shape::fmt(&sb)
            ))
        })?;
        let out_dtype = DType::upcast(self.dtype(a)?, self.dtype(b)?);
        let out_shape = [&batch[..], &[m, n]].concat();
        self.check_size(&out_shape, out_dtype)?;
        let y = self.run_kernel(k::BATCH_MAT_MUL, &[a, b], |e, backend, _| {
            // The kernel broadcasts a batch of 1; other batch broadcasts are materialised first.
            let (na, nb, nout) = (shape::size(batch_a), shape::size(batch_b), shape::size(&batch));
            let a = if na != nout && na != 1 { e.broadcast_to(a, &[&batch[..], &sa[ra - 2..]].concat())? } else { a };
            let b = if nb != nout && nb != 1 { e.broadcast_to(b, &[&batch[..], &sb[rb - 2..]].concat())? } else { b };
            let (a, b) = (e.input(a)?, e.input(b)?);
            let (ca, cb) = (cast_if(&**backend, &a, DType::Float32)?, cast_if(&**backend, &b, DType::Float32)?);
            let (s3a, s3b) = (as_3d(&a.shape), as_3d(&b.shape));
            let va = view_of(&a, &ca, &s3a, DType::Float32);
            let vb = view_of(&b, &cb, &s3b, DType::Float32);
            let mut storage = backend.matmul(va, vb, transpose_a, transpose_b)?;
            if out_dtype != DType::Float32 {
                let view = View { storage: &*storage, shape: &out_shape, dtype: DType::Float32 };
                storage = backend.cast(view, out_dtype)?;
            }
            e.output(storage, out_shape.clone(), out_dtype)
        })?;
        if self.taping() {
            let (shape_a, shape_b) = (sa.to_vec(), sb.to_vec());
            self.on_tape(&[y], &[a, b], move |e, g| {
                let (a, b) = (e.cast(g.saved[0], DType::Float32)?, e.cast(g.saved[1], DType::Float32)?);
                let dy = g.dy();
                // tfjs's BatchMatMul gradient, then summed over broadcast batch dimensions.
                let (da, db) = match (transpose_a, transpose_b) {
                    (false, false) => ((dy, b, false, true), (a, dy, true, false)),
                    (false, true) => ((dy, b, false, false), (dy, a, true, false)),
                    (true, false) => ((b, dy, false, true), (a, dy, false, false)),
                    (true, true) => ((b, dy, true, true), (dy, a, true, true)),
                };
                let mut out = Vec::with_capacity(2);
                for (i, ((l, r, tl, tr), shape)) in [(da, &shape_a), (db, &shape_b)].into_iter().enumerate() {
                    out.push(if g.needed[i] {
                        let p = e.matmul(l, r, tl, tr)?;
                        Some(e.sum_to_shape(p, shape)?)
                    } else {
                        None
                    });
                }
                Ok(out)
            })?;
        }
        Ok(y)
    }

    /// A copy of `x` broadcast to `target` (multiplying by ones keeps every value, -0 and NaN included).
    pub fn broadcast_to(&mut self, x: TensorId, target: &[usize]) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        let ones = self.fill(target, 1.0, dtype)?;
        let out = self.binary(BinaryOp::Mul, x, ones);
        self.dispose(ones);
        out
    }
}

/// `[batch..., r, c]` as `[prod(batch), r, c]`.
fn as_3d(s: &[usize]) -> [usize; 3] {
    let r = s.len();
    [shape::size(&s[..r - 2]), s[r - 2], s[r - 1]]
}
