//! Batched matrix product through the `gemm` crate; transposes are strides, never copies.

use rayon::prelude::*;
use tidytensor_core::{bail, Result};

use crate::HostData;

/// Multiply-adds above which one product is worth gemm's own threads.
pub(crate) const GEMM_PAR_WORK: usize = 64 * 64 * 64;

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
    if batch * mn == 0 || k == 0 {
        return Ok(HostData::F32(vec![0f32; batch * mn]));
    }
    // Every element is written by gemm (read_dst = false): a recycled buffer will do.
    let mut out = crate::pool::take::<f32>(batch * mn);
    // Element (i, p) of op(a) and (p, j) of op(b), as (row stride, column stride).
    let (a_rs, a_cs) = if ta { (1, m) } else { (k, 1) };
    let (b_rs, b_cs) = if tb { (1, k) } else { (n, 1) };
    let (a_step, b_step) = (if ba == 1 { 0 } else { m * k }, if bb == 1 { 0 } else { k * n });
    let work = m * n * k;
    let one = |i: usize, dst: &mut [f32], par: gemm::Parallelism| {
        let lhs = &a[i * a_step..i * a_step + m * k];
        let rhs = &b[i * b_step..i * b_step + k * n];
        sgemm(dst, (m, n, k), lhs, (a_rs, a_cs), rhs, (b_rs, b_cs), par);
    };
    // Batches of products smaller than this run one product per thread, each single-threaded:
    // splitting a small product between threads costs more than it saves (measured: 256
    // products of 64³ ran at about 30 GFLOP/s with gemm's threads, 55 with threads over the batch).
    const BATCH_PAR_BELOW: usize = 256 * 256 * 256;
    let threads = rayon::current_num_threads();
    let over_batch = batch >= threads.max(2) && work < BATCH_PAR_BELOW;
    if !over_batch && (work >= GEMM_PAR_WORK || batch == 1) {
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

/// `dst` (`m × n`, row-major, overwritten) = `A · B`, where `A[i, p]` is `a[i * a_rs + p * a_cs]`
/// and `B[p, j]` is `b[p * b_rs + j * b_cs]`: transposes are strides.
pub(crate) fn sgemm(
    dst: &mut [f32],
    (m, n, k): (usize, usize, usize),
    a: &[f32],
    (a_rs, a_cs): (usize, usize),
    b: &[f32],
    (b_rs, b_cs): (usize, usize),
    par: gemm::Parallelism,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        dst[..m * n].fill(0.0);
        return;
    }
    // The last element each operand is read at must lie inside it.
    assert!(dst.len() >= m * n, "sgemm: destination too short");
    assert!((m - 1) * a_rs + (k - 1) * a_cs < a.len(), "sgemm: lhs too short");
    assert!((k - 1) * b_rs + (n - 1) * b_cs < b.len(), "sgemm: rhs too short");
    // SAFETY: dst holds m*n values written with strides (n, 1); every index gemm forms into a
    // and b is at most the last one checked above. dst is not read (read_dst = false), and it
    // does not overlap the operands (a `&mut` slice cannot alias the shared ones).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr(),
            a_cs as isize,
            a_rs as isize,
            b.as_ptr(),
            b_cs as isize,
            b_rs as isize,
            0.0f32,
            1.0f32,
            false,
            false,
            false,
            par,
        );
    }
}
