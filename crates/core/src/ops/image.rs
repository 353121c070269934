//! tf.image. Resizes (`resizeBilinear`, `resizeNearestNeighbor`): tfjs's source positions for
//! every output row and column, computed once here as [`Taps`], then one resample kernel; the
//! colour conversions and threshold, composed as tfjs composes them.

use super::{cast_if, view_of};
use crate::backend::{Taps, View};
use crate::js::list as js_list;
use crate::{bail, kernels as k, shape, DType, Engine, HostData, Result, TensorId};

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

    /// `tf.image.cropAndResize`: the sample positions of every output pixel computed on the host from the boxes, the image values gathered and interpolated.
    #[allow(clippy::too_many_arguments)]
    pub fn crop_and_resize(
        &mut self,
        image: TensorId,
        boxes: TensorId,
        box_ind: TensorId,
        crop_size: &[f64],
        method: &str,
        extrapolation: f64,
    ) -> Result<TensorId> {
        self.composed(|e| {
            let (is, bs, ib) = (e.shape(image)?.to_vec(), e.shape(boxes)?.to_vec(), e.shape(box_ind)?.to_vec());
            let n = bs.first().copied().unwrap_or(0);
            if is.len() != 4 {
                bail!("Error in cropAndResize: image must be rank 4,but got rank {}.", is.len());
            }
            let shown = bs.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
            if bs.len() != 2 || bs[1] != 4 {
                bail!("Error in cropAndResize: boxes must be have size [{n},4] but had shape {shown}.");
            }
            if ib.len() != 1 || ib[0] != n {
                bail!("Error in cropAndResize: boxInd must be have size [{n}] but had shape {shown}.");
            }
            if crop_size.len() != 2 {
                bail!("Error in cropAndResize: cropSize must be of length 2, but got length {}.", crop_size.len());
            }
            if !(crop_size[0] >= 1.0 && crop_size[1] >= 1.0) {
                bail!("cropSize must be atleast [1,1], but was {}", js_list(crop_size));
            }
            if !crop_size.iter().all(|&v| v.fract() == 0.0 && v < 9007199254740992.0) {
                bail!("cropSize must be integers, but was {}", js_list(crop_size));
            }
            if method != "bilinear" && method != "nearest" {
                bail!("method must be bilinear or nearest, but was {method}");
            }
            let boxes_f = e.cast(boxes, DType::Float32)?;
            let bx = e.read_f64(boxes_f)?;
            let which_t = e.cast(box_ind, DType::Int32)?;
            let which = e.read_f64(which_t)?;
            let (batch, h, w, c) = (is[0], is[1], is[2], is[3]);
            let (ch, cw) = (crop_size[0] as usize, crop_size[1] as usize);
            let pixels = n * ch * cw;
            let mut corners = [vec![0i32; pixels], vec![0i32; pixels], vec![0i32; pixels], vec![0i32; pixels]];
            let (mut xl, mut yl, mut inside, mut fill) =
                (vec![0f32; pixels], vec![0f32; pixels], vec![0f32; pixels], vec![0f32; pixels]);
            let at = |lo: f64, hi: f64, i: usize, count: usize, dim: usize| -> f64 {
                let d = dim as f64 - 1.0;
                if count > 1 {
                    lo * d + i as f64 * ((hi - lo) * d / (count as f64 - 1.0))
                } else {
                    0.5 * (lo + hi) * d
                }
            };
            let (hf, wf) = (h as f64, w as f64);
            for b in 0..n {
                let bb: [f64; 4] = [
                    bx[4 * b] as f32 as f64,
                    bx[4 * b + 1] as f32 as f64,
                    bx[4 * b + 2] as f32 as f64,
                    bx[4 * b + 3] as f32 as f64,
                ];
                let [y1, x1, y2, x2] = bb;
                let wb = which[b];
                let img0 = wb * hf * wf;
                for y in 0..ch {
                    let yi = at(y1, y2, y, ch, h);
                    for x in 0..cw {
                        let p = (b * ch + y) * cw + x;
                        let xi = at(x1, x2, x, cw, w);
                        if wb < 0.0 || wb >= batch as f64 {
                            continue;
                        }
                        if yi < 0.0 || yi > hf - 1.0 || xi < 0.0 || xi > wf - 1.0 {
                            fill[p] = 1.0;
                            continue;
                        }
                        inside[p] = 1.0;
                        let (top, bottom, left, right) = if method == "bilinear" {
                            (yi.floor(), yi.ceil(), xi.floor(), xi.ceil())
                        } else {
                            // Math.round: halves up.
                            let (ry, rx) = ((yi + 0.5).floor(), (xi + 0.5).floor());
                            (ry, ry, rx, rx)
                        };
                        corners[0][p] = (img0 + top * wf + left) as i32;
                        corners[1][p] = (img0 + top * wf + right) as i32;
                        corners[2][p] = (img0 + bottom * wf + left) as i32;
                        corners[3][p] = (img0 + bottom * wf + right) as i32;
                        if method == "bilinear" {
                            xl[p] = (xi - left) as f32;
                            yl[p] = (yi - top) as f32;
                        }
                    }
                }
            }
            let img = e.cast(image, DType::Float32)?;
            let rows = e.reshape(img, &[(batch * h * w) as i64, c as i64])?;
            let mut g = Vec::with_capacity(4);
            for idx in corners {
                let t = e.tensor(HostData::I32(idx), &[pixels])?;
                g.push(e.gather(rows, t, 0, 0)?);
            }
            let col = |e: &mut Engine, v: Vec<f32>| e.tensor(HostData::F32(v), &[pixels, 1]);
            let (cxl, cyl, cin, cfill) = (col(e, xl)?, col(e, yl)?, col(e, inside)?, col(e, fill)?);
            let lerp = |e: &mut Engine, a: TensorId, b: TensorId, t: TensorId| -> Result<TensorId> {
                let d = e.sub(b, a)?;
                let d = e.mul(d, t)?;
                e.add(a, d)
            };
            let top = lerp(e, g[0], g[1], cxl)?;
            let bottom = lerp(e, g[2], g[3], cxl)?;
            let value = lerp(e, top, bottom, cyl)?;
            let v = e.mul(value, cin)?;
            let fv = e.fill(&[], extrapolation, DType::Float32)?;
            let f = e.mul(cfill, fv)?;
            let out = e.add(v, f)?;
            e.reshape(out, &[n as i64, ch as i64, cw as i64, c as i64])
        })
    }
}

/// Where an image is read for each output pixel: up to four taps (flat pixel index and
/// weight per output pixel) and the weight of the fill value. Found on the host (they depend
/// on the arguments, not on the values); the values are gathered and summed on the backend.
struct Taps2d {
    index: Vec<Vec<i32>>,
    weights: Vec<Vec<f32>>,
    fill_weight: Vec<f32>,
}

impl Taps2d {
    fn new(taps: usize, pixels: usize) -> Taps2d {
        Taps2d {
            index: vec![vec![0; pixels]; taps],
            weights: vec![vec![0.0; pixels]; taps],
            fill_weight: vec![0.0; pixels],
        }
    }
}

/// JavaScript's `Math.round`: halves up.
fn js_round(v: f64) -> f64 {
    (v + 0.5).floor()
}

/// tfjs's fill modes: where an input coordinate outside `[0, len)` reads from.
fn map_coord(v: f64, len: usize, mode: &str) -> f64 {
    let len_f = len as f64;
    let clamp = |x: f64| x.max(0.0).min(len_f - 1.0);
    match mode {
        "nearest" => clamp(v),
        "reflect" | "wrap" => {
            if len <= 1 {
                return if v < 0.0 || v > len_f - 1.0 { 0.0 } else { clamp(v) };
            }
            let mut x = v;
            if mode == "reflect" {
                let sz2 = 2.0 * len_f;
                if x < 0.0 {
                    if x < sz2 {
                        x += sz2 * (-x / sz2).trunc();
                    }
                    x = if x < -len_f { x + sz2 } else { -x - 1.0 };
                } else if x > len_f - 1.0 {
                    x -= sz2 * (x / sz2).trunc();
                    if x >= len_f {
                        x = sz2 - x - 1.0;
                    }
                }
            } else if x < 0.0 {
                x += len_f * ((-x / (len_f - 1.0)).trunc() + 1.0);
            } else if x > len_f - 1.0 {
                x -= len_f * (x / (len_f - 1.0)).trunc();
            }
            clamp(x)
        }
        // 'constant': outside reads the fill value.
        _ => v,
    }
}

impl Engine {
    /// out[p, c] = Σ_k weights[k][p] * image[index[k][p], c] + fill_weight[p] * fill[c], in
    /// `image`'s dtype; `fill` has one value, or one per channel.
    fn sample_taps(&mut self, image: TensorId, taps: Taps2d, fill: &[f64], out_shape: &[usize]) -> Result<TensorId> {
        let s = self.shape(image)?.to_vec();
        let dtype = self.dtype(image)?;
        let (pixels, c) = (taps.fill_weight.len(), s[3]);
        self.composed(|e| {
            let img = e.cast(image, DType::Float32)?;
            let rows = e.reshape(img, &[(s[0] * s[1] * s[2]) as i64, c as i64])?;
            let fw = e.tensor(HostData::F32(taps.fill_weight), &[pixels, 1])?;
            let fv = e.tensor(HostData::F32(fill.iter().map(|&v| v as f32).collect()), &[1, fill.len()])?;
            let mut out = e.mul(fw, fv)?;
            for (idx, w) in taps.index.into_iter().zip(taps.weights) {
                let idx = e.tensor(HostData::I32(idx), &[pixels])?;
                let g = e.gather(rows, idx, 0, 0)?;
                let w = e.tensor(HostData::F32(w), &[pixels, 1])?;
                let term = e.mul(g, w)?;
                out = e.add(out, term)?;
            }
            let dims: Vec<i64> = out_shape.iter().map(|&d| d as i64).collect();
            let out = e.reshape(out, &dims)?;
            e.cast(out, dtype)
        })
    }

    /// `tf.image.transform`: projective transforms `[a0, a1, a2, b0, b1, b2, c0, c1]` (one, or
    /// one per image) mapping output (x, y) to input ((a0 x + a1 y + a2) / k, (b0 x + b1 y +
    /// b2) / k), k = c0 x + c1 y + 1; `output_shape` [height, width] or the input's.
    pub fn transform(
        &mut self,
        image: TensorId,
        transforms: TensorId,
        interpolation: &str,
        fill_mode: &str,
        fill_value: f64,
        output_shape: Option<&[f64]>,
    ) -> Result<TensorId> {
        let (is, ts) = (self.shape(image)?.to_vec(), self.shape(transforms)?.to_vec());
        if is.len() != 4 {
            bail!("Error in transform: image must be rank 4,but got rank {}.", is.len());
        }
        if !(ts.len() == 2 && (ts[0] == is[0] || ts[0] == 1) && ts[1] == 8) {
            bail!("Error in transform: Input transform should be batch x 8 or 1 x 8");
        }
        if let Some(shape) = output_shape.filter(|s| s.len() != 2) {
            bail!("Error in transform: outputShape must be [height, width] or null, but got {}.", js_list(shape));
        }
        if interpolation != "nearest" && interpolation != "bilinear" {
            bail!("Error in Transform: Expect 'nearest' or 'bilinear', but got {interpolation}");
        }
        let (batch, h, w, c) = (is[0], is[1], is[2], is[3]);
        let (oh, ow) = match output_shape {
            Some(s) => {
                if !s.iter().all(|&d| d >= 0.0 && d.fract() == 0.0 && d < 9007199254740992.0) {
                    bail!("Error in transform: outputShape must be non-negative integers, but got {}.", js_list(s));
                }
                (s[0] as usize, s[1] as usize)
            }
            None => (h, w),
        };
        let pixels = shape::checked_size(&[batch, oh, ow]).filter(|&p| p <= i32::MAX as usize);
        let Some(pixels) = pixels else {
            bail!("Error in transform: the output of {batch}x{oh}x{ow} pixels is too large.")
        };
        self.check_size(&[pixels, 4 * 2 + 1], DType::Float32)?;
        let m = self.read_f64(transforms)?;
        let n_taps = if interpolation == "nearest" { 1 } else { 4 };
        let mut taps = Taps2d::new(n_taps, pixels);
        let (hf, wf) = (h as f64, w as f64);
        for b in 0..batch {
            let t = if ts[0] == 1 { &m[..8] } else { &m[8 * b..8 * b + 8] };
            for y in 0..oh {
                for x in 0..ow {
                    let p = (b * oh + y) * ow + x;
                    let (xf, yf) = (x as f64, y as f64);
                    let k = t[6] * xf + t[7] * yf + 1.0;
                    if k == 0.0 {
                        taps.fill_weight[p] = 1.0;
                        continue;
                    }
                    let ix = map_coord((t[0] * xf + t[1] * yf + t[2]) / k, w, fill_mode);
                    let iy = map_coord((t[3] * xf + t[4] * yf + t[5]) / k, h, fill_mode);
                    let mut tap = |i: usize, yy: f64, xx: f64, wt: f64| {
                        if yy >= 0.0 && yy < hf && xx >= 0.0 && xx < wf {
                            taps.index[i][p] = ((b as f64 * hf + yy) * wf + xx) as i32;
                            taps.weights[i][p] = wt as f32;
                        } else {
                            taps.fill_weight[p] += wt as f32;
                        }
                    };
                    if n_taps == 1 {
                        tap(0, js_round(iy), js_round(ix), 1.0);
                    } else {
                        let (y0, x0) = (iy.floor(), ix.floor());
                        tap(0, y0, x0, (y0 + 1.0 - iy) * (x0 + 1.0 - ix));
                        tap(1, y0, x0 + 1.0, (y0 + 1.0 - iy) * (ix - x0));
                        tap(2, y0 + 1.0, x0, (iy - y0) * (x0 + 1.0 - ix));
                        tap(3, y0 + 1.0, x0 + 1.0, (iy - y0) * (ix - x0));
                    }
                }
            }
        }
        self.sample_taps(image, taps, &[fill_value], &[batch, oh, ow, c])
    }

    /// `tf.image.rotateWithOffset`: each output pixel reads the input pixel that the rotation
    /// about `center` (fractions of the width and height) brings to it, or the fill value (one
    /// per channel, or one for all).
    pub fn rotate_with_offset(
        &mut self,
        image: TensorId,
        radians: f64,
        fill: &[f64],
        center: [f64; 2],
    ) -> Result<TensorId> {
        let s = self.shape(image)?.to_vec();
        if s.len() != 4 {
            bail!("Error in rotateWithOffset: image must be rank 4,but got rank {}.", s.len());
        }
        let (batch, h, w) = (s[0], s[1], s[2]);
        let (cx, cy) = (w as f64 * center[0], h as f64 * center[1]);
        let (sin, cos) = radians.sin_cos();
        let pixels = batch * h * w;
        let mut taps = Taps2d::new(1, pixels);
        for b in 0..batch {
            for y in 0..h {
                for x in 0..w {
                    let p = (b * h + y) * w + x;
                    let (xf, yf) = (x as f64 - cx, y as f64 - cy);
                    let sx = js_round(xf * cos - yf * sin + cx);
                    let sy = js_round(xf * sin + yf * cos + cy);
                    if sx >= 0.0 && sx < w as f64 && sy >= 0.0 && sy < h as f64 {
                        taps.index[0][p] = ((b * h) as f64 * w as f64 + sy * w as f64 + sx) as i32;
                        taps.weights[0][p] = 1.0;
                    } else {
                        taps.fill_weight[p] = 1.0;
                    }
                }
            }
        }
        self.sample_taps(image, taps, fill, &s)
    }
}

/// The luma weights of red, green and blue (CCIR 601) tfjs's colour conversions use.
const LUMA: [f32; 3] = [0.2989, 0.5870, 0.1140];

impl Engine {
    /// `tf.image.grayscaleToRGB`: the one channel of the last axis repeated three times.
    pub fn grayscale_to_rgb(&mut self, image: TensorId) -> Result<TensorId> {
        let s = self.shape(image)?.to_vec();
        if s.len() < 2 {
            bail!("Error in grayscaleToRGB: images must be at least rank 2, but got rank {}.", s.len());
        }
        let last = s[s.len() - 1];
        if last != 1 {
            bail!(
                "Error in grayscaleToRGB: last dimension of a grayscale image should be size 1, but got size {last}."
            );
        }
        let mut reps = vec![1.0; s.len()];
        reps[s.len() - 1] = 3.0;
        self.tile(image, &reps)
    }

    /// `tf.image.rgbToGrayscale`: the luma-weighted sum of the last axis's three channels,
    /// computed in float32 and stored in the image's dtype (tfjs's einsum, for ranks 2 to 6).
    pub fn rgb_to_grayscale(&mut self, image: TensorId) -> Result<TensorId> {
        let (s, dtype) = (self.shape(image)?.to_vec(), self.dtype(image)?);
        if s.len() < 2 {
            bail!("Error in RGBToGrayscale: images must be at least rank 2, but got rank {}.", s.len());
        }
        let last = s[s.len() - 1];
        if last != 3 {
            bail!("Error in RGBToGrayscale: last dimension of an RGB image should be size 3, but got size {last}.");
        }
        if s.len() > 6 {
            bail!("Not a valid tensor rank.");
        }
        self.composed(|e| {
            let floats = e.cast(image, DType::Float32)?;
            let weights = e.tensor(HostData::F32(LUMA.to_vec()), &[3])?;
            let weighted = e.mul(floats, weights)?;
            let gray = e.reduce(crate::ReduceOp::Sum, weighted, Some(&[-1]), true)?;
            e.cast(gray, dtype)
        })
    }

    /// `tf.image.threshold`: 255 where the grayscale of a `[height, width, 1 or 3]` image is
    /// above the threshold (at most it when `inverted`), else 0, as int32. `method` 'binary'
    /// takes `thresh_value * 255`; 'otsu' the level that maximises the between-class variance
    /// of the image's 256-bin histogram (read on the host), in tfjs's float32 steps.
    pub fn threshold(&mut self, image: TensorId, method: &str, inverted: bool, thresh_value: f64) -> Result<TensorId> {
        let (s, dtype) = (self.shape(image)?.to_vec(), self.dtype(image)?);
        if s.len() != 3 {
            bail!("Error in threshold: image must be rank 3,but got rank {}.", s.len());
        }
        if s[2] != 3 && s[2] != 1 {
            bail!("Error in threshold: image color channel must be equal to 3 or 1but got {}.", s[2]);
        }
        if dtype != DType::Int32 && dtype != DType::Float32 {
            bail!("Error in dtype: image dtype must be int32 or float32,but got dtype {}.", dtype.name());
        }
        if method != "otsu" && method != "binary" {
            bail!("Method must be binary or otsu, but was {method}");
        }
        self.composed(|e| {
            let gray = if s[2] == 3 {
                let rgb = e.split(image, super::Splits::Sizes(vec![1.0; 3]), -1.0)?;
                let mut sum: Option<TensorId> = None;
                for (&c, w) in rgb.iter().zip(LUMA) {
                    let t = e.with_scalar(crate::BinaryOp::Mul, c, w as f64)?;
                    sum = Some(match sum {
                        None => t,
                        Some(acc) => e.add(acc, t)?,
                    });
                }
                sum.ok_or_else(|| crate::Error::new("threshold: no channels"))?
            } else {
                image
            };
            let level = if method == "otsu" {
                // tfjs's bincount(cast(round(gray), 'int32'), [], 256): float32 counts.
                let rounded = e.unary(crate::UnaryOp::Round, gray)?;
                let levels = e.cast(rounded, DType::Int32)?;
                let mut hist = [0f32; 256];
                for v in e.read_f64(levels)? {
                    if v < 0.0 {
                        bail!("Input x must be non-negative!");
                    }
                    if v < 256.0 {
                        hist[v as usize] += 1.0;
                    }
                }
                otsu(&hist, s[0] as f64 * s[1] as f64)
            } else {
                thresh_value as f32 * 255.0
            };
            let level = e.tensor(HostData::F32(vec![level]), &[1])?;
            let op = if inverted { crate::BinaryOp::LessEqual } else { crate::BinaryOp::Greater };
            let above = e.binary(op, gray, level)?;
            let white = e.with_scalar(crate::BinaryOp::Mul, above, 255.0)?;
            e.cast(white, DType::Int32)
        })
    }
}

/// tfjs's Otsu level over a histogram of `total` pixels: the bin whose split maximises the
/// between-class variance (-1 when none is above 0). Each step rounds to float32 as tfjs's
/// ops store their results; sums add in f64 first, as its cpu kernel does.
fn otsu(hist: &[f32], total: f64) -> f32 {
    let f = |v: f64| v as f32 as f64;
    let total = f(total);
    let (mut best, mut best_var) = (-1.0f32, 0.0f64);
    for i in 0..hist.len() - 1 {
        let (mut n1, mut s1, mut n2, mut s2) = (0.0, 0.0, 0.0, 0.0);
        for (k, &h) in hist.iter().enumerate() {
            let (h, weighted) = (h as f64, f(h as f64 * k as f64));
            if k <= i {
                n1 += h;
                s1 += weighted;
            } else {
                n2 += h;
                s2 += weighted;
            }
        }
        let (n1, s1, n2, s2) = (f(n1), f(s1), f(n2), f(s2));
        let (w1, w2) = (f(n1 / total), f(n2 / total));
        let d = f(f(s1 / n1) - f(s2 / n2));
        let var = f(f(f(w1 * w2) * d) * d);
        // (NaN, from an empty class, never wins)
        if var > best_var {
            best_var = var;
            best = i as f32;
        }
    }
    best
}
