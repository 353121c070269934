//! Convolutions and windowed ops. conv and its input gradient run the tiled GEMM of matMul
//! (`shaders/matmul/matmul.wgsl`) with loaders that read the input through an implicit im2col
//! or col2im, so no column buffer is ever made; pooling, depthwise, dilation and argmax fold
//! each output's window in one thread (`shaders/conv/window.wgsl`).

use std::sync::Arc;

use tidytensor_core::{bail, ConvGeom, DType, PoolOp, Result, Storage};

use super::elementwise::OPS;
use super::matmul::MATMUL;
use super::{bind, launch, run1d, sbind, shader, u32_of};
use crate::device::{Gpu, WG};
use crate::WgpuStorage;

const GEOMETRY: &str = include_str!("../shaders/conv/geometry.wgsl");
const IM2COL: &str = include_str!("../shaders/conv/im2col.wgsl");
const COL2IM: &str = include_str!("../shaders/conv/col2im.wgsl");
const WINDOW: &str = include_str!("../shaders/conv/window.wgsl");
const LRN: &str = include_str!("../shaders/conv/lrn.wgsl");

/// p0..p2 (the kernel's own), then the geometry at p3..p23 as `geometry.wgsl` reads it.
fn params(head: [usize; 3], g: &ConvGeom) -> Result<Vec<u32>> {
    let mut v = Vec::with_capacity(24);
    for n in head.into_iter().chain([g.batch]).chain(g.in_size).chain([g.in_channels]).chain(g.out_size) {
        v.push(u32_of(n, "conv dimension")?);
    }
    v.push(u32_of(g.out_channels, "channels")?);
    for n in g.filter.into_iter().chain(g.strides).chain(g.dilations) {
        v.push(u32_of(n, "window size")?);
    }
    for p in g.pad {
        let p = i32::try_from(p).map_err(|_| tidytensor_core::Error::new("wgpu backend: padding too large"))?;
        v.push(p as u32);
    }
    Ok(v)
}

/// A GEMM over the batch: `[m, n]` outputs per batch item, `k` deep, read by `loaders`.
fn gemm(
    gpu: &Arc<Gpu>,
    key: &str,
    loaders: &'static str,
    inputs: [&WgpuStorage; 2],
    (m, n, k): (usize, usize, usize),
    g: &ConvGeom,
) -> Result<Box<dyn Storage>> {
    let len = g.batch * m * n;
    let p = params([m, n, k], g)?;
    let max = gpu.limits.max_compute_workgroups_per_dimension as usize;
    let groups = (n.div_ceil(32), m.div_ceil(32), g.batch);
    if groups.0 > max || groups.1 > max || groups.2 > max {
        bail!(
            "wgpu backend: a convolution of [{}, {m}, {n}] outputs needs more workgroups than the GPU's grid allows",
            g.batch
        );
    }
    launch(gpu, len, DType::Float32, |gp, st, o| {
        if k == 0 {
            return super::fill_raw(gp, st, o, len, 0);
        }
        let pipeline =
            gp.pipeline(key, 2, || shader(&["f32", "f32"], "f32", &format!("{GEOMETRY}{loaders}"), MATMUL))?;
        let grid = (groups.0 as u32, groups.1 as u32, groups.2 as u32);
        gp.dispatch(st, pipeline, &[sbind(inputs[0]), sbind(inputs[1])], bind(o), &p, grid)
    })
}

pub(crate) fn conv(gpu: &Arc<Gpu>, x: &WgpuStorage, w: &WgpuStorage, g: &ConvGeom) -> Result<Box<dyn Storage>> {
    gemm(gpu, "conv", IM2COL, [x, w], (g.out_spatial(), g.out_channels, g.taps() * g.in_channels), g)
}

pub(crate) fn conv_input_grad(
    gpu: &Arc<Gpu>,
    dy: &WgpuStorage,
    w: &WgpuStorage,
    g: &ConvGeom,
) -> Result<Box<dyn Storage>> {
    gemm(gpu, "conv_input_grad", COL2IM, [dy, w], (g.in_spatial(), g.in_channels, g.taps() * g.out_channels), g)
}

/// The window folds: (`init`, `step`, `finish`) bodies and the output type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fold {
    Pool(PoolOp),
    Depthwise,
    Dilation,
    Positions,
}

impl Fold {
    fn helpers(self) -> String {
        let (init, step, finish, out) = match self {
            Fold::Pool(PoolOp::Max) => (
                "Acc(-inf_f(), 0)",
                "let v = X0[pixel * p(7u) + co]; if (!is_nan(v) && v > acc.v) { return Acc(v, 0); } return acc;",
                "return acc.v;",
                "f32",
            ),
            Fold::Pool(PoolOp::Avg) => (
                "Acc(0.0, 0)",
                "return Acc(acc.v + X0[pixel * p(7u) + co], 0);",
                "return acc.v / f32(max(count, 1u));",
                "f32",
            ),
            Fold::Depthwise => (
                "Acc(0.0, 0)",
                "let c = co / (p(11u) / p(7u)); return Acc(fma(X0[pixel * p(7u) + c], X1[tap * p(11u) + co], acc.v), 0);",
                "return acc.v;",
                "f32",
            ),
            Fold::Dilation => (
                "Acc(-9007199254740992.0, 0)",
                "let v = X0[pixel * p(7u) + co] + X1[tap * p(7u) + co]; if (v > acc.v) { return Acc(v, 0); } return acc;",
                "return acc.v;",
                "f32",
            ),
            Fold::Positions => (
                "Acc(-inf_f(), -1)",
                "let v = X0[pixel * p(7u) + co]; if (!is_nan(v) && v > acc.v) { \
                 let px = select(pixel - b * p(4u) * p(5u) * p(6u), pixel, p(1u) == 1u); \
                 return Acc(v, i32(px * p(7u) + co)); } return acc;",
                "return acc.at;",
                "i32",
            ),
        };
        format!(
            "{GEOMETRY}fn init() -> Acc {{ return {init}; }}\n\
             fn step(acc: Acc, b: u32, pixel: u32, tap: u32, co: u32) -> Acc {{ {step} }}\n\
             fn finish(acc: Acc, count: u32) -> {out} {{ {finish} }}\n"
        )
    }
}

/// Runs a window fold over every output element.
pub(crate) fn window(
    gpu: &Arc<Gpu>,
    fold: Fold,
    x: &WgpuStorage,
    filter: Option<&WgpuStorage>,
    g: &ConvGeom,
    flag: bool,
) -> Result<Box<dyn Storage>> {
    let n = g.batch * g.out_spatial() * g.out_channels;
    let p = params([n, flag as usize, 0], g)?;
    let out = if fold == Fold::Positions { DType::Int32 } else { DType::Float32 };
    let inputs: Vec<&WgpuStorage> = std::iter::once(x).chain(filter).collect();
    let key = format!("window:{fold:?}");
    launch(gpu, n, out, |gp, st, o| {
        let tys = vec!["f32"; inputs.len()];
        let src = || shader(&tys, if out == DType::Int32 { "i32" } else { "f32" }, &fold.helpers(), WINDOW);
        let binds: Vec<_> = inputs.iter().map(|s| sbind(s)).collect();
        run1d(gp, st, &key, src, &binds, bind(o), &p, n, WG)
    })
}

pub(crate) fn lrn(
    gpu: &Arc<Gpu>,
    x: &WgpuStorage,
    channels: usize,
    radius: usize,
    coef: [f64; 3],
) -> Result<Box<dyn Storage>> {
    let n = x.len;
    let [bias, alpha, beta] = coef.map(|v| (v as f32).to_bits());
    let p =
        [u32_of(n, "size")?, u32_of(channels, "channels")?, u32_of(radius.min(channels), "radius")?, bias, alpha, beta];
    launch(gpu, n, DType::Float32, |gp, st, o| {
        let src = || shader(&["f32"], "f32", OPS, LRN);
        run1d(gp, st, "lrn", src, &[sbind(x)], bind(o), &p, n, WG)
    })
}
