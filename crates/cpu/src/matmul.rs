//! Batched matrix product through the `gemm` crate; transposes are strides, never copies.

use rayon::prelude::*;
use tidytensor_core::{bail, Result};

use crate::HostData;

/// Multiply-adds above which one product is worth gemm's own threads.
const GEMM_PAR_WORK: usize = 64 * 64 * 64;

/// float32 `a` `[batch, rows, cols]` and `b` likewise (the engine's contract).
pub(crate) fn matmul(
    a: &HostData,
    a_shape: &[usize],
    b: &HostData,
    b_shape: &[usize],
    ta: bool,
    tb: bool,
) -> Result<HostData> {
    let (HostData::F32(a), HostData::F32(b)) = (a, b) else { bail!("cpu matmul: operands must be float32") };
    let (&[ba, ar, ac], &[bb, br, bc]) = (a_shape, b_shape) else { bail!("cpu matmul: operands must be 3-D") };
    let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
    let n = if tb { br } else { bc };
    let batch = if ba == 0 || bb == 0 { 0 } else { ba.max(bb) };
    let mn = m * n;
    let mut out = vec![0f32; batch * mn];
    if out.is_empty() || k == 0 {
        return Ok(HostData::F32(out));
    }
    // Element (i, p) of op(a) and (p, j) of op(b), as (row stride, column stride).
    let (a_rs, a_cs) = if ta { (1, m as isize) } else { (k as isize, 1) };
    let (b_rs, b_cs) = if tb { (1, k as isize) } else { (n as isize, 1) };
    let (a_step, b_step) = (if ba == 1 { 0 } else { m * k }, if bb == 1 { 0 } else { k * n });
    let work = m * n * k;
    let one = |i: usize, dst: &mut [f32], par: gemm::Parallelism| {
        let lhs = &a[i * a_step..i * a_step + m * k];
        let rhs = &b[i * b_step..i * b_step + k * n];
        // SAFETY: dst holds m*n values written with strides (n, 1); lhs holds the m*k values
        // of op(a) reached through (a_rs, a_cs) and rhs the k*n values of op(b) through
        // (b_rs, b_cs): every index gemm forms lies inside its slice. dst is not read
        // (read_dst = false), and the slices do not overlap (dst is freshly allocated).
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                dst.as_mut_ptr(),
                1,
                n as isize,
                false,
                lhs.as_ptr(),
                a_cs,
                a_rs,
                rhs.as_ptr(),
                b_cs,
                b_rs,
                0.0f32,
                1.0f32,
                false,
                false,
                false,
                par,
            );
        }
    };
    if work >= GEMM_PAR_WORK || batch == 1 {
        let par = if work >= GEMM_PAR_WORK { gemm::Parallelism::Rayon(0) } else { gemm::Parallelism::None };
        for (i, dst) in out.chunks_exact_mut(mn).enumerate() {
            one(i, dst, par);
        }
    } else if work * batch >= GEMM_PAR_WORK {
        // Many small products: one thread per group of matrices.
        let min = GEMM_PAR_WORK.div_ceil(work).max(1);
        out.par_chunks_exact_mut(mn)
            .enumerate()
            .with_min_len(min)
            .for_each(|(i, dst)| one(i, dst, gemm::Parallelism::None));
    } else {
        for (i, dst) in out.chunks_exact_mut(mn).enumerate() {
            one(i, dst, gemm::Parallelism::None);
        }
    }
    Ok(HostData::F32(out))
}
