//! The creation ops tfjs composes of other families' ops (meshgrid, dropout) and Diag, a tfjs
//! kernel that tidytensor's backends run composed.

use crate::js::number as js;
use crate::{bail, kernels as k, shape, DType, Engine, Result, TensorId, UnaryOp};

impl Engine {
    /// `tf.meshgrid` of two tensors (their values in order): `[X, Y]`, x repeated along the
    /// rows and y along the columns (`ij` false, tfjs's 'xy'), or their transposes (`ij`),
    /// made by matrix products with ones as tfjs makes them.
    pub fn meshgrid(&mut self, x: TensorId, y: TensorId, ij: bool) -> Result<Vec<TensorId>> {
        let (w, h) = (shape::size(self.shape(x)?), shape::size(self.shape(y)?));
        let (dx, dy) = (self.dtype(x)?, self.dtype(y)?);
        self.composed_many(|e| {
            if !ij {
                let xr = e.reshape(x, &[1, -1])?;
                let yc = e.reshape(y, &[-1, 1])?;
                let ones_h = e.filled(&[h, 1], 1.0, dx)?;
                let ones_w = e.filled(&[1, w], 1.0, dy)?;
                Ok(vec![e.matmul(ones_h, xr, false, false)?, e.matmul(yc, ones_w, false, false)?])
            } else {
                let xc = e.reshape(x, &[-1, 1])?;
                let yr = e.reshape(y, &[1, -1])?;
                let ones_h = e.filled(&[1, h], 1.0, dx)?;
                let ones_w = e.filled(&[w, 1], 1.0, dy)?;
                Ok(vec![e.matmul(xc, ones_h, false, false)?, e.matmul(ones_w, yr, false, false)?])
            }
        })
    }

    /// `tf.diag`: `x`'s values on the diagonal of a `[...shape, ...shape]` tensor, zeros
    /// elsewhere. One `Diag` kernel (as in tfjs, with no gradient), composed inside: each value
    /// followed by n zeros, flattened, puts value i at i (n + 1), the diagonal of n × n.
    pub fn diag(&mut self, x: TensorId) -> Result<TensorId> {
        let s = self.shape(x)?.to_vec();
        let out_shape: Vec<usize> = [&s[..], &s[..]].concat();
        if out_shape.len() > shape::MAX_RANK {
            bail!("tidytensor supports tensors up to rank {}, but got rank {}", shape::MAX_RANK, out_shape.len());
        }
        let dtype = self.dtype(x)?;
        self.check_size(&out_shape, dtype)?;
        let n = shape::size(&s);
        self.run_kernel(k::DIAG, &[x], |e, _, _| {
            let column = e.reshape(x, &[n as i64, 1])?;
            let rows = e.pad_zeros(column, &[0, 0], &[0, n])?;
            let flat = e.reshape(rows, &[-1])?;
            let square = e.slice(flat, &[0], &[(n * n) as i64])?;
            let dims: Vec<i64> = out_shape.iter().map(|&d| d as i64).collect();
            e.reshape(square, &dims)
        })
    }

    /// `tf.dropout`: `x * floor(u + keep) / keep` with `u` uniform in [0, 1) over the noise
    /// shape (drawn as `tf.randomUniform` draws for `seed`) and keep = 1 - rate, as tfjs
    /// composes it. `noise_shape` is tfjs's: `None` for x's shape; of x's rank, its missing
    /// dimensions are x's. A rate of 0 returns a clone of x.
    pub fn dropout(
        &mut self,
        x: TensorId,
        rate: f64,
        noise_shape: Option<&[Option<f64>]>,
        seed: Option<&str>,
    ) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        if dtype != DType::Float32 {
            bail!(
                "x has to be a floating point tensor since it's going to be scaled, but got a {} tensor instead.",
                dtype.name()
            );
        }
        if !(0.0..1.0).contains(&rate) {
            bail!("rate must be a float in the range [0, 1), but got {}.", js(rate));
        }
        if rate == 0.0 {
            return self.clone_tensor(x);
        }
        let s = self.shape(x)?.to_vec();
        let dims: Vec<Option<f64>> = match noise_shape {
            None => s.iter().map(|&d| Some(d as f64)).collect(),
            Some(ns) if ns.len() == s.len() => ns.iter().zip(&s).map(|(d, &x)| d.or(Some(x as f64))).collect(),
            Some(ns) => ns.to_vec(),
        };
        let noise: Option<Vec<usize>> = dims
            .iter()
            .map(|d| d.filter(|&d| d >= 0.0 && d.fract() == 0.0 && d <= 9007199254740991.0).map(|d| d as usize))
            .collect();
        let Some(noise) = noise else {
            let shown: Vec<String> = dims.iter().map(|d| d.map(js).unwrap_or_default()).collect();
            bail!("Tensor must have a shape comprised of positive integers but got shape [{}].", shown.join(","));
        };
        let keep = 1.0 - rate;
        self.composed(|e| {
            let u = e.random(&noise, super::Random::Uniform { min: 0.0, max: 1.0 }, DType::Float32, seed)?;
            let kp = e.filled(&[], keep, DType::Float32)?;
            let sum = e.add(u, kp)?;
            let mask = e.unary(UnaryOp::Floor, sum)?;
            let kp = e.filled(&[], keep, DType::Float32)?;
            let multiplier = e.div(mask, kp)?;
            e.mul(x, multiplier)
        })
    }
}
