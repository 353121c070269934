use super::{cast_if, view_of};
use crate::backend::{BinaryOp, View};
use crate::{bail, shape, DType, Engine, Result, TensorId};

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
        self.check_size(&[&batch[..], &[m, n]].concat(), DType::upcast(self.dtype(a)?, self.dtype(b)?))?;
        let (na, nb, nout) = (shape::size(batch_a), shape::size(batch_b), shape::size(&batch));
        // The kernel broadcasts a batch of 1; other batch broadcasts are materialised first.
        let wide_a = if na != nout && na != 1 {
            Some(self.broadcast_to(a, &[&batch[..], &sa[ra - 2..]].concat())?)
        } else {
            None
        };
        let wide_b = if nb != nout && nb != 1 {
            match self.broadcast_to(b, &[&batch[..], &sb[rb - 2..]].concat()) {
                Ok(t) => Some(t),
                Err(e) => {
                    if let Some(t) = wide_a {
                        self.dispose(t);
                    }
                    return Err(e);
                }
            }
        } else {
            None
        };
        let result = self.matmul_3d(wide_a.unwrap_or(a), wide_b.unwrap_or(b), transpose_a, transpose_b, &batch, m, n);
        for t in [wide_a, wide_b].into_iter().flatten() {
            self.dispose(t);
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn matmul_3d(
        &mut self,
        a: TensorId,
        b: TensorId,
        ta: bool,
        tb: bool,
        batch: &[usize],
        m: usize,
        n: usize,
    ) -> Result<TensorId> {
        let a_in = self.input(a)?;
        let b_in = self.input(b)?;
        let out_dtype = DType::upcast(a_in.dtype, b_in.dtype);
        let backend = self.backend()?;
        let ca = cast_if(&*backend, &a_in, DType::Float32)?;
        let cb = cast_if(&*backend, &b_in, DType::Float32)?;
        let to3 = |s: &[usize]| {
            let r = s.len();
            vec![shape::size(&s[..r - 2]), s[r - 2], s[r - 1]]
        };
        let (s3a, s3b) = (to3(&a_in.shape), to3(&b_in.shape));
        let va = view_of(&a_in, &ca, &s3a, DType::Float32);
        let vb = view_of(&b_in, &cb, &s3b, DType::Float32);
        let mut storage = backend.matmul(va, vb, ta, tb)?;
        let mut out_shape = batch.to_vec();
        out_shape.extend([m, n]);
        if out_dtype != DType::Float32 {
            let view = View { storage: &*storage, shape: &out_shape, dtype: DType::Float32 };
            storage = backend.cast(view, out_dtype)?;
        }
        self.output(storage, out_shape, out_dtype)
    }

    /// A copy of `x` broadcast to `target` (multiplying by ones keeps every value, -0 and NaN included).
    pub(crate) fn broadcast_to(&mut self, x: TensorId, target: &[usize]) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        let ones = self.fill(target, 1.0, dtype)?;
        let out = self.binary(BinaryOp::Mul, x, ones);
        self.dispose(ones);
        out
    }
}
