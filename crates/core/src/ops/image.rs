//! Image resizes (`tf.image.resizeBilinear`, `resizeNearestNeighbor`): tfjs's source positions
//! for every output row and column, computed once here as [`Taps`], then one resample kernel.

use super::{cast_if, view_of};
use crate::backend::{Taps, View};
use crate::{bail, kernels as k, shape, DType, Engine, Result, TensorId};

/// How a resize picks its source values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resize {
    Bilinear,
    NearestNeighbor,
}

/// tfjs's scale from output to input positions.
fn ratio(old: usize, new: usize, align_corners: bool) -> f64 {
    if align_corners && new > 1 {
        (old - 1) as f64 / (new - 1) as f64
    } else {
        old as f64 / new as f64
    }
}

/// The source rows (or columns) of each of `new` outputs over `old` inputs, as tfjs's cpu
/// kernels compute them.
fn taps(method: Resize, old: usize, new: usize, align_corners: bool, half_pixel: bool) -> Taps {
    let r = ratio(old, new, align_corners);
    let mut t = Taps::default();
    let last = old.saturating_sub(1) as f64;
    for i in 0..new {
        let i = i as f64;
        match method {
            Resize::NearestNeighbor => {
                let src = if half_pixel { r * (i + 0.5) } else { r * i };
                // JavaScript's Math.round rounds halves up.
                let near = if align_corners { (src + 0.5).floor() } else { src.floor() };
                let near = near.min(last).max(0.0) as u32;
                t.lo.push(near);
                t.hi.push(near);
                t.frac.push(0.0);
            }
            Resize::Bilinear => {
                let src = if half_pixel { r * (i + 0.5) - 0.5 } else { r * i };
                let lo = src.floor().max(0.0);
                t.lo.push(lo as u32);
                t.hi.push(src.ceil().min(last) as u32);
                t.frac.push((src - lo) as f32);
            }
        }
    }
    t
}

impl Engine {
    /// A rank-3 or rank-4 image batch resized to `size` (`[height, width]`). Bilinear gives
    /// float32; nearest neighbour keeps float32 or int32.
    pub fn resize(
        &mut self,
        method: Resize,
        x: TensorId,
        size: [usize; 2],
        align_corners: bool,
        half_pixel: bool,
    ) -> Result<TensorId> {
        let (xs, xd) = (self.shape(x)?.to_vec(), self.dtype(x)?);
        let op = match method {
            Resize::Bilinear => "resizeBilinear",
            Resize::NearestNeighbor => "resizeNearestNeighbor",
        };
        if xs.len() != 3 && xs.len() != 4 {
            bail!("Error in {op}: x must be rank 3 or 4, but got rank {}.", xs.len());
        }
        if half_pixel && align_corners {
            bail!("Error in {op}: If halfPixelCenters is true, alignCorners must be false.");
        }
        if method == Resize::NearestNeighbor && xd == DType::Bool {
            bail!("`images` must have `int32` or `float32` as dtype");
        }
        let [b, h, w, c] = if xs.len() == 3 { [1, xs[0], xs[1], xs[2]] } else { [xs[0], xs[1], xs[2], xs[3]] };
        let c_in = c;
        let [nh, nw] = size;
        let mut out_shape = vec![b, nh, nw, c];
        if xs.len() == 3 {
            out_shape.remove(0);
        }
        let out_dtype = if method == Resize::Bilinear { DType::Float32 } else { xd };
        self.check_size(&out_shape, DType::Float32)?;
        let name = if method == Resize::Bilinear { k::RESIZE_BILINEAR } else { k::RESIZE_NEAREST_NEIGHBOR };
        let y = self.run_kernel(name, &[x], |e, backend, ins| {
            if shape::size(&out_shape) == 0 || h == 0 || w == 0 {
                // Nothing to read (tfjs reads undefined values from an empty image: NaN).
                let fill = if shape::size(&out_shape) == 0 { 0.0 } else { f64::NAN };
                return e.filled(&out_shape, fill, out_dtype);
            }
            let rows = taps(method, h, nh, align_corners, half_pixel);
            let cols = taps(method, w, nw, align_corners, half_pixel);
            let xc = cast_if(&**backend, &ins[0], DType::Float32)?;
            let xv = view_of(&ins[0], &xc, &ins[0].shape, DType::Float32);
            let mut storage = backend.resample(xv, [b, h, w, c], &rows, &cols)?;
            if out_dtype != DType::Float32 {
                storage =
                    backend.cast(View { storage: &*storage, shape: &out_shape, dtype: DType::Float32 }, out_dtype)?;
            }
            e.output(storage, out_shape.clone(), out_dtype)
        })?;
        if self.taping() {
            let x_dims: Vec<i64> = xs.iter().map(|&d| d as i64).collect();
            self.on_tape(&[y], &[], move |e, g| {
                // y = R x Cᵀ per image and channel, with R [nh, h] and C [nw, w] the
                // interpolation weights: dx = Rᵀ dy C.
                let weights = |e: &mut Engine, t: &Taps, old: usize| {
                    let mut m = vec![0f32; t.lo.len() * old];
                    for (i, ((&lo, &hi), &f)) in t.lo.iter().zip(&t.hi).zip(&t.frac).enumerate() {
                        m[i * old + lo as usize] += 1.0 - f;
                        m[i * old + hi as usize] += f;
                    }
                    e.tensor(crate::HostData::F32(m), &[t.lo.len(), old])
                };
                let r = weights(e, &taps(method, h, nh, align_corners, half_pixel), h)?;
                let c = weights(e, &taps(method, w, nw, align_corners, half_pixel), w)?;
                let dy = e.cast(g.dy(), DType::Float32)?;
                let dy = e.reshape(dy, &[b as i64, nh as i64, nw as i64, c_in as i64])?;
                let dy = e.transpose(dy, Some(&[0, 3, 1, 2]))?;
                let t = e.matmul(r, dy, true, false)?;
                let t = e.matmul(t, c, false, false)?;
                let t = e.transpose(t, Some(&[0, 2, 3, 1]))?;
                Ok(vec![Some(e.reshape(t, &x_dims)?)])
            })?;
        }
        Ok(y)
    }
}
