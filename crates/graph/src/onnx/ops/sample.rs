//! GridSample: X sampled at the normalized positions of a grid. The taps of every output point
//! depend on data-dependent coordinates and padding rules, so the sampling runs on the host in
//! f64 (following ONNX's reference step by step), which behaves the same on every backend.

use super::*;
use tidytensor_core::HostData;

/// How a sample is interpolated from its neighbours.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Nearest,
    Linear,
    Cubic,
}

/// What a tap outside X reads.
#[derive(Clone, Copy, PartialEq)]
enum PadMode {
    /// Zero.
    Zeros,
    /// The nearest edge value.
    Border,
    /// The value mirrored at the edge.
    Reflection,
}

/// One image (one batch item and channel) and how its taps are read.
struct Sampler<'a> {
    data: &'a [f64],
    dims: &'a [usize],
    strides: &'a [usize],
    /// The bounds each spatial axis's coordinates reflect at: `(min, max)`.
    borders: &'a [(f64, f64)],
    mode: Mode,
    pad: PadMode,
}

/// Reflects `x` at the nearer border until it lies within `[lo, hi]` (ONNX's `_gs_reflect`).
fn reflect(x: f64, lo: f64, hi: f64) -> f64 {
    let range = hi - lo;
    if range <= 0.0 {
        // A one-pixel axis with aligned corners: the only position there is.
        return lo;
    }
    if x < lo {
        let dx = lo - x;
        let n = (dx / range).trunc();
        let r = dx - n * range;
        if n % 2.0 == 0.0 {
            lo + r
        } else {
            hi - r
        }
    } else if x > hi {
        let dx = x - hi;
        let n = (dx / range).trunc();
        let r = dx - n * range;
        if n % 2.0 == 0.0 {
            hi - r
        } else {
            lo + r
        }
    } else {
        x
    }
}

/// Keys' cubic convolution weights (a = -0.75) of the four taps around a point `t` past the
/// second one.
fn cubic_coeffs(t: f64) -> [f64; 4] {
    let a = -0.75;
    let x = t.abs();
    let far = |x: f64| ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
    let near = |x: f64| ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    [far(x + 1.0), near(x), near(1.0 - x), far(2.0 - x)]
}

impl Sampler<'_> {
    /// The in-bounds index that tap `i` on axis `k` reads, or `None` for a zero.
    fn index(&self, i: i64, k: usize) -> Option<usize> {
        let d = self.dims[k] as i64;
        let i = match self.pad {
            PadMode::Zeros => return (0..d).contains(&i).then_some(i as usize),
            PadMode::Border => i.clamp(0, d - 1),
            PadMode::Reflection => {
                let (lo, hi) = self.borders[k];
                (reflect(i as f64, lo, hi).trunc() as i64).clamp(0, d - 1)
            }
        };
        Some(i as usize)
    }

    /// The value at position `x` (spatial order), interpolating axes `k..` from offset `base`.
    fn at(&self, x: &[f64], k: usize, base: usize) -> f64 {
        if k == self.dims.len() {
            return self.data[base];
        }
        let tap = |i: i64| match self.index(i, k) {
            Some(i) => self.at(x, k + 1, base + i * self.strides[k]),
            None => 0.0,
        };
        match self.mode {
            Mode::Nearest => tap(x[k] as i64),
            Mode::Linear => {
                let x0 = x[k].floor();
                let t = (x[k] - x0).abs();
                let i = x0 as i64;
                (1.0 - t) * tap(i) + t * tap(i.saturating_add(1))
            }
            Mode::Cubic => {
                let x0 = x[k].floor();
                let i = x0 as i64;
                let w = cubic_coeffs(x[k] - x0);
                (0..4).map(|j| w[j] * tap(i.saturating_add(j as i64 - 1))).sum()
            }
        }
    }
}

/// GridSample (opsets 16, 20, 22): `X` `[N, C, D1..Dr]` sampled at `grid` `[N, H1..Hr, r]`,
/// whose last axis holds coordinates in [-1, 1] in reverse spatial order (x first).
pub(super) fn grid_sample(e: &mut Engine, c: &Ctx) -> Result<TensorId> {
    let (x, grid) = (c.t(0)?, c.t(1)?);
    let xs = e.shape(x)?.to_vec();
    let gs = e.shape(grid)?.to_vec();
    if xs.len() < 3 {
        bail!("ONNX node '{}': GridSample's X must be [N, C, D1, ...], not rank {}", c.node.name, xs.len());
    }
    let r = xs.len() - 2;
    if gs.len() != r + 2 || gs[0] != xs[0] || gs[r + 1] != r {
        bail!("ONNX node '{}': GridSample's grid must be [N, H1..H{r}, {r}] for X {:?}, not {:?}", c.node.name, xs, gs);
    }
    let mode_name =
        c.attrs().string("mode").unwrap_or_else(|| if c.opset() >= 20 { "linear" } else { "bilinear" }.into());
    let mode = match mode_name.as_str() {
        "nearest" => Mode::Nearest,
        "linear" | "bilinear" => Mode::Linear,
        "cubic" | "bicubic" => Mode::Cubic,
        m => bail!("ONNX node '{}': GridSample mode '{m}' is not supported", c.node.name),
    };
    let pad = match c.attrs().string("padding_mode").as_deref().unwrap_or("zeros") {
        "zeros" => PadMode::Zeros,
        "border" => PadMode::Border,
        "reflection" => PadMode::Reflection,
        p => bail!("ONNX node '{}': GridSample padding_mode '{p}' is not supported", c.node.name),
    };
    let align = c.int("align_corners", 0) != 0;

    let (n, ch) = (xs[0], xs[1]);
    let dims = &xs[2..];
    let out_shape: Vec<usize> = [n, ch].into_iter().chain(gs[1..=r].iter().copied()).collect();
    let points: usize = gs[1..=r].iter().product();
    let image: usize = dims.iter().product();
    if image == 0 && points > 0 && ch > 0 {
        bail!("ONNX node '{}': GridSample cannot sample an empty X {:?}", c.node.name, xs);
    }
    let mut strides = vec![1usize; r];
    for k in (0..r.saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1];
    }
    let borders: Vec<(f64, f64)> =
        dims.iter().map(|&d| if align { (0.0, d as f64 - 1.0) } else { (-0.5, d as f64 - 0.5) }).collect();

    let xv = e.read_f64(x)?;
    let gv = e.read_f64(grid)?;
    let mut out = vec![0f32; n * ch * points];
    let mut pos = vec![0f64; r];
    for b in 0..n {
        for p in 0..points {
            let g = &gv[(b * points + p) * r..][..r];
            for k in 0..r {
                // The grid lists coordinates x first: spatial axis k reads entry r - 1 - k.
                let v = g[r - 1 - k];
                let d = dims[k] as f64;
                let mut u = if align { (v + 1.0) / 2.0 * (d - 1.0) } else { ((v + 1.0) * d - 1.0) / 2.0 };
                // The reference holds positions as float32.
                u = u as f32 as f64;
                if mode == Mode::Nearest {
                    // Half to even, as PyTorch rounds.
                    u = u.round_ties_even();
                }
                let (lo, hi) = borders[k];
                if u < lo || u > hi {
                    match pad {
                        PadMode::Border => u = u.clamp(0.0, d - 1.0),
                        PadMode::Reflection => u = reflect(u, lo, hi) as f32 as f64,
                        PadMode::Zeros => {}
                    }
                }
                if mode == Mode::Nearest {
                    u = u.trunc();
                }
                pos[k] = u;
            }
            for ci in 0..ch {
                let img = (b * ch + ci) * image;
                let s = Sampler { data: &xv[img..img + image], dims, strides: &strides, borders: &borders, mode, pad };
                out[(b * ch + ci) * points + p] = s.at(&pos, 0, 0) as f32;
            }
        }
    }
    let y = e.tensor(HostData::F32(out), &out_shape)?;
    let dtype = e.dtype(x)?;
    if dtype == DType::Float32 {
        Ok(y)
    } else {
        e.cast(y, dtype)
    }
}
