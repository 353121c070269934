//! Batched matrix product: 32×32 output tiles per workgroup (the tiled GEMM that the
//! convolutions share).

use std::sync::Arc;

use tidytensor_core::{bail, DType, Result, Storage};

use super::{bind, fill_raw, launch, sbind, shader, u32_of};
use crate::device::Gpu;
use crate::WgpuStorage;

pub(crate) const MATMUL: &str = include_str!("../shaders/matmul/matmul.wgsl");

/// matMul's loaders: p3..p5 are A's batch, row and k strides, p6..p8 B's batch, k and column
/// strides.
const STRIDED: &str = "fn load_a(z: u32, m: u32, k: u32) -> f32 { return X0[z * p(3u) + m * p(4u) + k * p(5u)]; }
fn load_b(z: u32, k: u32, n: u32) -> f32 { return X1[z * p(6u) + k * p(7u) + n * p(8u)]; }
";

/// float32 `a` `[batch, m|k, k|m]` and `b` `[batch, k|n, n|k]`, a batch of 1 broadcast.
pub(crate) fn matmul(
    gpu: &Arc<Gpu>,
    a: (&WgpuStorage, &[usize]),
    b: (&WgpuStorage, &[usize]),
    ta: bool,
    tb: bool,
) -> Result<Box<dyn Storage>> {
    let (&[ba, ar, ac], &[bb, br, bc]) = (a.1, b.1) else { bail!("wgpu matmul: operands must be 3-D") };
    let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
    let n = if tb { br } else { bc };
    let batch = if ba == 0 || bb == 0 { 0 } else { ba.max(bb) };
    let len = batch * m * n;
    let (a_sm, a_sk) = if ta { (1, ac) } else { (ac, 1) };
    let (b_sk, b_sn) = if tb { (1, bc) } else { (bc, 1) };
    let a_bs = if ba == 1 { 0 } else { ar * ac };
    let b_bs = if bb == 1 { 0 } else { br * bc };
    let params = [m, n, k, a_bs, a_sm, a_sk, b_bs, b_sk, b_sn]
        .iter()
        .map(|&v| u32_of(v, "matmul dimension"))
        .collect::<Result<Vec<u32>>>()?;
    let max = gpu.limits.max_compute_workgroups_per_dimension as usize;
    let groups = (n.div_ceil(32), m.div_ceil(32), batch);
    if groups.0 > max || groups.1 > max || groups.2 > max {
        bail!("wgpu matmul: [{batch}, {m}, {n}] output needs more workgroups than the GPU's grid allows");
    }
    launch(gpu, len, DType::Float32, |g, st, o| {
        if k == 0 {
            return fill_raw(g, st, o, len, 0);
        }
        let pipeline = g.pipeline("matmul", 2, || shader(&["f32", "f32"], "f32", STRIDED, MATMUL))?;
        g.dispatch(
            st,
            pipeline,
            &[sbind(a.0), sbind(b.0)],
            bind(o),
            &params,
            (groups.0 as u32, groups.1 as u32, groups.2 as u32),
        )
    })
}
