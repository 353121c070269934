//! Convolutions, pooling and the other windowed kernels over `[batch, d, h, w, channels]`
//! float32 data (see [`ConvGeom`]). 2-D convolutions run directly on AVX2/AVX-512 CPUs
//! (`direct_conv.rs`); the others are an implicit GEMM (im2col + the `gemm` crate, a block of
//! rows at a time); the input gradient is GEMM + col2im. Depthwise, pooling and the rest are direct loops, one output row per task, with the
//! channels innermost so the loops vectorise.

use rayon::prelude::*;
use tidytensor_core::{ConvGeom, PoolOp};

use crate::elementwise::Epilogue;
use crate::matmul::{sgemm, GEMM_PAR_WORK};
use crate::{pool, PAR_THRESHOLD};

/// Floats of im2col columns built at a time by the input gradient and by convolutions of few
/// rows.
const COL_BLOCK: usize = 1 << 20;
/// Rows of one forward task at least: each task reads the whole filter, which these rows
/// must amortise (32 FLOP per filter byte read).
const MIN_ROWS: usize = 64;
/// Floats of im2col columns one task of the forward convolution builds (256 KiB): they stay in
/// L2 (512 KiB to 2 MiB per core on recent CPUs) beside gemm's packed blocks. Measured on a
/// 1 MiB-L2 AMD EPYC, conv2d [1,64,64,32] * [3,3,32,64]: 128 KiB blocks ran a few percent
/// slower, 512 KiB blocks 10% slower.
const L2_COLUMNS: usize = 1 << 16;

fn gemm_par(work: usize) -> gemm::Parallelism {
    if work >= GEMM_PAR_WORK {
        gemm::Parallelism::Rayon(0)
    } else {
        gemm::Parallelism::None
    }
}

/// Output rows (`[batch, od, oh]`, each `ow * channels` long) of `out`, in parallel when the
/// output is large; `f(b, z, y, row)`. The kernels that call it are compiled for AVX2 and
/// AVX-512 too (picked at run time), and `f`, a closure defined in them, with them, so the
/// channel loops vectorise as wide as the CPU allows.
fn for_rows(out: &mut [f32], g: &ConvGeom, row_len: usize, f: impl Fn(usize, usize, usize, &mut [f32]) + Sync) {
    let [od, oh, _] = g.out_size;
    let split = |r: usize| (r / (od * oh), (r / oh) % od, r % oh);
    if out.len() >= PAR_THRESHOLD {
        out.par_chunks_mut(row_len).enumerate().for_each(|(r, row)| {
            let (b, z, y) = split(r);
            f(b, z, y, row)
        });
    } else {
        out.chunks_mut(row_len).enumerate().for_each(|(r, row)| {
            let (b, z, y) = split(r);
            f(b, z, y, row)
        });
    }
}

/// The input offsets (in pixels, `((b * d + z) * h + y) * w + x`) that output `(b, z, y, x)`
/// reads at each tap, `None` outside the input, in tap order (depth, height, width).
fn window(g: &ConvGeom, b: usize, z: usize, y: usize, x: usize, mut visit: impl FnMut(usize, Option<usize>)) {
    let [fd, fh, fw] = g.filter;
    let [d, h, w] = g.in_size;
    let mut tap = 0;
    for tz in 0..fd {
        let iz = g.input_coord(0, z, tz);
        for ty in 0..fh {
            let iy = g.input_coord(1, y, ty);
            for tx in 0..fw {
                let ix = g.input_coord(2, x, tx);
                let at = match (iz, iy, ix) {
                    (Some(iz), Some(iy), Some(ix)) => Some(((b * d + iz) * h + iy) * w + ix),
                    _ => None,
                };
                visit(tap, at);
                tap += 1;
            }
        }
    }
}

fn is_pointwise(g: &ConvGeom) -> bool {
    g.filter == [1, 1, 1] && g.strides == [1, 1, 1] && g.pad == [0, 0, 0] && g.in_size == g.out_size
}

/// `dst.copy_from_slice(src)` for the short runs of im2col (a few channels per tap): in 8-float
/// steps the compiler inlines, where a `memcpy` call per run would cost more than the copy.
#[inline]
fn copy_short(dst: &mut [f32], src: &[f32]) {
    if dst.len() > 64 {
        dst.copy_from_slice(src);
        return;
    }
    let mut d = dst.chunks_exact_mut(8);
    let mut s = src.chunks_exact(8);
    for (d, s) in (&mut d).zip(&mut s) {
        d.copy_from_slice(s);
    }
    for (d, s) in d.into_remainder().iter_mut().zip(s.remainder()) {
        *d = *s;
    }
}

/// Rows `start..start + n` of the im2col matrix (`[rows, taps * in_channels]`). A window row
/// that lies wholly inside the input (no dilation across it) is `filter width * in_channels`
/// consecutive floats of NHWC data: one copy instead of one per tap.
fn im2col(x: &[f32], g: &ConvGeom, start: usize, col: &mut [f32]) {
    let cin = g.in_channels;
    let kdim = g.taps() * cin;
    let [od, oh, ow] = g.out_size;
    let [fd, fh, fw] = g.filter;
    let [d, h, w] = g.in_size;
    let run = fw * cin;
    let split = |r: usize| (r / (od * oh * ow), (r / (oh * ow)) % od, (r / ow) % oh, r % ow);
    let fill = |(b, z, y, xo): (usize, usize, usize, usize), row: &mut [f32]| {
        let ix0 = (xo * g.strides[2]) as isize - g.pad[2];
        let inside = g.dilations[2] == 1 && ix0 >= 0 && ix0 as usize + fw <= w;
        for tz in 0..fd {
            for ty in 0..fh {
                let dst = &mut row[(tz * fh + ty) * run..][..run];
                let (Some(iz), Some(iy)) = (g.input_coord(0, z, tz), g.input_coord(1, y, ty)) else {
                    dst.fill(0.0);
                    continue;
                };
                let line = ((b * d + iz) * h + iy) * w;
                if inside {
                    let p = line + ix0 as usize;
                    copy_short(dst, &x[p * cin..(p + fw) * cin]);
                    continue;
                }
                for (tx, tap) in dst.chunks_exact_mut(cin).enumerate() {
                    match g.input_coord(2, xo, tx) {
                        Some(ix) => copy_short(tap, &x[(line + ix) * cin..(line + ix + 1) * cin]),
                        None => tap.fill(0.0),
                    }
                }
            }
        }
    };
    // In order, stepping the output position: no divisions per row (small convolutions
    // spend more time in them than in the copies).
    let (mut b, mut z, mut y, mut xo) = split(start);
    for row in col.chunks_mut(kdim) {
        fill((b, z, y, xo), row);
        xo += 1;
        if xo == ow {
            xo = 0;
            y += 1;
            if y == oh {
                y = 0;
                z += 1;
                if z == od {
                    z = 0;
                    b += 1;
                }
            }
        }
    }
}

/// The forward convolution, then the fused ops' epilogue `ep` where there is one: a 1×1 one is
/// one GEMM; a 2-D one runs directly where the CPU has a kernel for it
/// ([`crate::direct_conv`]), which applies the epilogue to each row of outputs while it is in
/// cache; the rest go to [`implicit_gemm`].
pub(crate) fn conv(x: &[f32], w: &[f32], g: &ConvGeom, ep: Option<&Epilogue>) -> Vec<f32> {
    let (cin, cout) = (g.in_channels, g.out_channels);
    let kdim = g.taps() * cin;
    let rows = g.batch * g.out_spatial();
    let pointwise = is_pointwise(g);
    if !pointwise {
        if let Some(direct) = crate::direct_conv::conv2d(x, w, g, ep) {
            return direct;
        }
    }
    let mut out = pool::take::<f32>(rows * cout);
    if out.is_empty() {
        return out;
    }
    if kdim == 0 {
        out.fill(0.0);
    } else if pointwise {
        sgemm(&mut out, (rows, cout, cin), x, (cin, 1), w, (cout, 1), gemm_par(rows * cout * cin));
    } else {
        out = implicit_gemm(x, w, g, out);
    }
    if let Some(ep) = ep {
        ep.apply_all(&mut out);
    }
    out
}

/// The forward convolution as an implicit GEMM, into `out` (which it fills): the output rows
/// are cut into blocks whose im2col rows fit in L2 (about [`L2_COLUMNS`] floats), and each
/// block is one task that builds its columns and multiplies them by the filter on one thread
/// while they are still in cache. The column matrix never goes out to memory and back, and the
/// tasks, many more than the threads, are taken as threads come free.
pub(crate) fn implicit_gemm(x: &[f32], w: &[f32], g: &ConvGeom, mut out: Vec<f32>) -> Vec<f32> {
    let (cin, cout) = (g.in_channels, g.out_channels);
    let kdim = g.taps() * cin;
    let rows = g.batch * g.out_spatial();
    let parallel = rows * cout * kdim >= GEMM_PAR_WORK;
    let threads = if parallel { rayon::current_num_threads() } else { 1 };
    // Rows per block: at least 4 tasks per thread where there are rows enough, within L2, but
    // never under MIN_ROWS (each task reads the whole filter), and a multiple of 16.
    let block = rows.div_ceil(4 * threads).clamp(MIN_ROWS, (L2_COLUMNS / kdim).max(MIN_ROWS)).div_ceil(16) * 16;
    if parallel && rows.div_ceil(block) < 2 * threads {
        // Too few rows to share out (a deep layer's small image): gemm's threads split each
        // block's columns instead.
        let block = (COL_BLOCK / kdim).clamp(1, rows);
        let mut col = pool::take::<f32>(block * kdim);
        for start in (0..rows).step_by(block) {
            let n = block.min(rows - start);
            let col = &mut col[..n * kdim];
            col.par_chunks_mut(16 * kdim).enumerate().for_each(|(i, c)| im2col(x, g, start + 16 * i, c));
            let dst = &mut out[start * cout..(start + n) * cout];
            sgemm(dst, (n, cout, kdim), col, (kdim, 1), w, (cout, 1), gemm_par(n * cout * kdim));
        }
        pool::give(col);
        return out;
    }
    let task = |(t, dst): (usize, &mut [f32])| {
        let n = dst.len() / cout;
        // im2col writes every value: a recycled buffer needs no zeroing.
        let mut col = pool::take::<f32>(n * kdim);
        im2col(x, g, t * block, &mut col);
        sgemm(dst, (n, cout, kdim), &col, (kdim, 1), w, (cout, 1), gemm::Parallelism::None);
        pool::give(col);
    };
    if parallel {
        out.par_chunks_mut(block * cout).enumerate().with_max_len(1).for_each(task);
    } else {
        out.chunks_mut(block * cout).enumerate().for_each(task);
    }
    out
}

/// dx = col2im(dy · filterᵀ), one batch item at a time.
pub(crate) fn conv_input_grad(dy: &[f32], w: &[f32], g: &ConvGeom) -> Vec<f32> {
    let (cin, cout) = (g.in_channels, g.out_channels);
    let kdim = g.taps() * cin;
    let (rows, pixels) = (g.out_spatial(), g.in_spatial());
    let mut dx = vec![0f32; g.batch * pixels * cin];
    if dx.is_empty() || rows == 0 || kdim == 0 {
        return dx;
    }
    let [od, oh, ow] = g.out_size;
    let block = (COL_BLOCK / kdim).clamp(1, rows);
    let mut col = vec![0f32; block * kdim];
    for b in 0..g.batch {
        let dyb = &dy[b * rows * cout..(b + 1) * rows * cout];
        for start in (0..rows).step_by(block) {
            let n = block.min(rows - start);
            let col = &mut col[..n * kdim];
            // col[r, j] = sum_p dy[r, p] * w[j, p]: the filter read transposed.
            let src = &dyb[start * cout..(start + n) * cout];
            sgemm(col, (n, kdim, cout), src, (cout, 1), w, (1, cout), gemm_par(n * kdim * cout));
            for (i, row) in col.chunks(kdim).enumerate() {
                let r = start + i;
                let (z, y, x) = (r / (oh * ow), (r / ow) % oh, r % ow);
                debug_assert!(z < od);
                window(g, b, z, y, x, |tap, at| {
                    if let Some(p) = at {
                        let dst = &mut dx[p * cin..(p + 1) * cin];
                        for (d, s) in dst.iter_mut().zip(&row[tap * cin..(tap + 1) * cin]) {
                            *d += s;
                        }
                    }
                });
            }
        }
    }
    dx
}

#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
pub(crate) fn depthwise_conv(x: &[f32], w: &[f32], g: &ConvGeom) -> Vec<f32> {
    let (cin, cout) = (g.in_channels, g.out_channels);
    let mult = cout / cin.max(1);
    let ow = g.out_size[2];
    let mut out = pool::take::<f32>(g.batch * g.out_spatial() * cout);
    if out.is_empty() {
        return out;
    }
    if mult == 1 {
        depthwise_rows(x, w, g, &mut out);
        return out;
    }
    for_rows(&mut out, g, ow * cout, |b, z, y, row| {
        row.fill(0.0);
        for (xo, acc) in row.chunks_mut(cout).enumerate() {
            window(g, b, z, y, xo, |tap, at| {
                let Some(p) = at else { return };
                let xin = &x[p * cin..(p + 1) * cin];
                let wt = &w[tap * cout..(tap + 1) * cout];
                if mult == 1 {
                    for ((a, &xv), &wv) in acc.iter_mut().zip(xin).zip(wt) {
                        *a += xv * wv;
                    }
                } else {
                    for (c, &xv) in xin.iter().enumerate() {
                        let (a, wq) = (&mut acc[c * mult..(c + 1) * mult], &wt[c * mult..(c + 1) * mult]);
                        for (a, &wv) in a.iter_mut().zip(wq) {
                            *a += xv * wv;
                        }
                    }
                }
            });
        }
    });
    out
}

/// Depthwise convolution with one output channel per input channel, row by row.
fn depthwise_rows(x: &[f32], w: &[f32], g: &ConvGeom, out: &mut [f32]) {
    let ow = g.out_size[2];
    assert!(x.len() >= g.batch * g.in_spatial() * g.in_channels && w.len() >= g.taps() * g.in_channels);
    // Output columns whose every width tap lies inside the input.
    let (mut inner_lo, mut inner_hi) = (0, ow);
    for tx in 0..g.filter[2] {
        let (lo, hi) = column_range(g, tx, ow);
        (inner_lo, inner_hi) = (inner_lo.max(lo), inner_hi.min(hi));
    }
    for_rows(out, g, ow * g.in_channels, |b, z, y, row| depthwise_row(x, w, g, [b, z, y], row, inner_lo..inner_hi));
}

/// One output row of [`depthwise_rows`]. Each output value sums its taps in tfjs's order (so
/// the sums are tfjs's), in registers: blocks of 16 channels, and, where whole windows lie
/// within the input's width (`inner`), 4 pixels at a time, whose 4 independent sums keep the
/// adder busy (one sum alone waits on each addition) and share each load of the weights.
/// Compiled for AVX2 and AVX-512 too and picked at run time.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn depthwise_row(
    x: &[f32],
    w: &[f32],
    g: &ConvGeom,
    [b, z, y]: [usize; 3],
    row: &mut [f32],
    inner: std::ops::Range<usize>,
) {
    const L: usize = 16;
    const P: usize = 4;
    let c = g.in_channels;
    let [fd, fh, fw] = g.filter;
    let [d, h, w_in] = g.in_size;
    let (sx, dx, px0) = (g.strides[2] as isize, g.dilations[2] as isize, -g.pad[2]);
    // The input rows this output row reads: where each starts, and its first tap.
    let mut lines = Vec::with_capacity(fd * fh);
    for tz in 0..fd {
        let Some(iz) = g.input_coord(0, z, tz) else { continue };
        for ty in 0..fh {
            let Some(iy) = g.input_coord(1, y, ty) else { continue };
            lines.push((((b * d + iz) * h + iy) * w_in * c, (tz * fh + ty) * fw));
        }
    }
    // Where output column `xo` reads at width tap `tx`, if inside the input.
    let column = |xo: usize, tx: usize| {
        let ix = xo as isize * sx + px0 + tx as isize * dx;
        (ix >= 0 && ix < w_in as isize).then_some(ix as usize)
    };
    let full = c - c % L;
    // Channels `from..` of one pixel, checking every tap.
    let one_pixel = |xo: usize, from: usize, pixel: &mut [f32]| {
        for cb in (from..full).step_by(L) {
            let mut acc = [0f32; L];
            for &(line, tap0) in &lines {
                for tx in 0..fw {
                    let Some(ix) = column(xo, tx) else { continue };
                    let xv: &[f32; L] = x[line + ix * c + cb..][..L].try_into().unwrap();
                    let wv: &[f32; L] = w[(tap0 + tx) * c + cb..][..L].try_into().unwrap();
                    for k in 0..L {
                        acc[k] += xv[k] * wv[k];
                    }
                }
            }
            pixel[cb..cb + L].copy_from_slice(&acc);
        }
        let rest = &mut pixel[full.max(from)..];
        rest.fill(0.0);
        for &(line, tap0) in &lines {
            for tx in 0..fw {
                let Some(ix) = column(xo, tx) else { continue };
                let (xs, ws) = (line + ix * c + full, (tap0 + tx) * c + full);
                for ((a, &xv), &wv) in rest.iter_mut().zip(&x[xs..xs + c - full]).zip(&w[ws..ws + c - full]) {
                    *a += xv * wv;
                }
            }
        }
    };
    let mut xo = 0;
    while xo < row.len() / c.max(1) {
        if !(inner.contains(&xo) && xo + P <= inner.end) {
            one_pixel(xo, 0, &mut row[xo * c..(xo + 1) * c]);
            xo += 1;
            continue;
        }
        for cb in (0..full).step_by(L) {
            // Four accumulators by name (as an array, LLVM vectorises across them with gathers).
            let (mut a0, mut a1, mut a2, mut a3) = ([0f32; L], [0f32; L], [0f32; L], [0f32; L]);
            let step = sx as usize * c;
            for &(line, tap0) in &lines {
                for tx in 0..fw {
                    let wv: &[f32; L] = w[(tap0 + tx) * c + cb..][..L].try_into().unwrap();
                    let at = line + (xo as isize * sx + px0 + tx as isize * dx) as usize * c + cb;
                    // Pixels of `inner` read inside the input's row (`depthwise_rows` checked
                    // that `x` holds the input), so only the last of the four needs checking.
                    let pixels = &x[at..at + 3 * step + L];
                    let xv = |p: usize| -> &[f32; L] { pixels[p * step..p * step + L].try_into().unwrap() };
                    madd(&mut a0, xv(0), wv);
                    madd(&mut a1, xv(1), wv);
                    madd(&mut a2, xv(2), wv);
                    madd(&mut a3, xv(3), wv);
                }
            }
            for (p, acc) in [a0, a1, a2, a3].iter().enumerate() {
                row[(xo + p) * c + cb..][..L].copy_from_slice(acc);
            }
        }
        if full < c {
            for p in 0..P {
                one_pixel(xo + p, full, &mut row[(xo + p) * c..(xo + p + 1) * c]);
            }
        }
        xo += P;
    }
}

/// `acc += x * w`, value by value.
#[inline(always)]
fn madd<const L: usize>(acc: &mut [f32; L], x: &[f32; L], w: &[f32; L]) {
    for k in 0..L {
        acc[k] += x[k] * w[k];
    }
}

/// The outputs `lo..hi` of a row whose input column at width tap `tx` lies inside the input.
fn column_range(g: &ConvGeom, tx: usize, ow: usize) -> (usize, usize) {
    let (s, first) = (g.strides[2] as isize, (tx * g.dilations[2]) as isize - g.pad[2]);
    let w = g.in_size[2] as isize;
    // ix = xo * s + first must satisfy 0 <= ix < w.
    let lo = if first >= 0 { 0 } else { (-first + s - 1) / s };
    let hi = if w - first <= 0 { 0 } else { (w - first + s - 1) / s };
    let (lo, hi) = (lo.max(0) as usize, (hi.max(0) as usize).min(ow));
    (lo.min(hi), hi)
}

/// The max of `x + filter` over each window (tfjs starts from -2^53, `Number.MIN_SAFE_INTEGER`
/// stored as float32).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
pub(crate) fn dilation(x: &[f32], w: &[f32], g: &ConvGeom) -> Vec<f32> {
    let c = g.in_channels;
    let mut out = pool::take::<f32>(g.batch * g.out_spatial() * c);
    if out.is_empty() {
        return out;
    }
    for_rows(&mut out, g, g.out_size[2] * c, |b, z, y, row| {
        row.fill(-9007199254740991f64 as f32);
        for (xo, acc) in row.chunks_mut(c).enumerate() {
            window(g, b, z, y, xo, |tap, at| {
                let Some(p) = at else { return };
                for ((a, &xv), &wv) in acc.iter_mut().zip(&x[p * c..(p + 1) * c]).zip(&w[tap * c..(tap + 1) * c]) {
                    let v = xv + wv;
                    *a = if v > *a { v } else { *a };
                }
            });
        }
    });
    out
}

#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
pub(crate) fn pool(op: PoolOp, x: &[f32], g: &ConvGeom) -> Vec<f32> {
    let c = g.in_channels;
    let mut out = pool::take::<f32>(g.batch * g.out_spatial() * c);
    if out.is_empty() {
        return out;
    }
    for_rows(&mut out, g, g.out_size[2] * c, |b, z, y, row| {
        for (xo, acc) in row.chunks_mut(c).enumerate() {
            match op {
                PoolOp::Max => {
                    acc.fill(f32::NEG_INFINITY);
                    window(g, b, z, y, xo, |_, at| {
                        let Some(p) = at else { return };
                        for (a, &v) in acc.iter_mut().zip(&x[p * c..(p + 1) * c]) {
                            // A select, not a branch: the loop vectorises (maxps).
                            *a = if v > *a { v } else { *a };
                        }
                    });
                }
                PoolOp::Avg => {
                    acc.fill(0.0);
                    let mut count = 0u32;
                    window(g, b, z, y, xo, |_, at| {
                        let Some(p) = at else { return };
                        count += 1;
                        for (a, &v) in acc.iter_mut().zip(&x[p * c..(p + 1) * c]) {
                            *a += v;
                        }
                    });
                    let n = count.max(1) as f32;
                    acc.iter_mut().for_each(|a| *a /= n);
                }
            }
        }
    });
    out
}

pub(crate) fn max_pool_positions(x: &[f32], g: &ConvGeom, include_batch: bool) -> Vec<i32> {
    let c = g.in_channels;
    let [od, oh, ow] = g.out_size;
    let pixels = g.batch * g.out_spatial();
    let per_batch = g.in_spatial();
    let mut out = vec![-1i32; pixels * c];
    // One output pixel at a time: its window's positions once, then every channel in a
    // contiguous run (the first maximum wins, as tfjs's kernel keeps it).
    let pixel = |pix: usize, at: &mut [i32], best: &mut Vec<f32>| {
        let (b, z, y, xo) = (pix / (od * oh * ow), (pix / (oh * ow)) % od, (pix / ow) % oh, pix % ow);
        best.clear();
        best.resize(c, f32::NEG_INFINITY);
        window(g, b, z, y, xo, |_, p| {
            let Some(p) = p else { return };
            let base = if include_batch { p } else { p - b * per_batch } * c;
            for (ch, v) in x[p * c..(p + 1) * c].iter().enumerate() {
                if *v > best[ch] {
                    best[ch] = *v;
                    at[ch] = (base + ch) as i32;
                }
            }
        });
    };
    if pixels * c >= PAR_THRESHOLD {
        out.par_chunks_mut(c).enumerate().for_each_init(Vec::new, |best, (pix, at)| pixel(pix, at, best));
    } else {
        let mut best = Vec::new();
        out.chunks_mut(c).enumerate().for_each(|(pix, at)| pixel(pix, at, &mut best));
    }
    out
}

/// Local response normalization along rows of `channels`, in f64 as tfjs computes it.
pub(crate) fn lrn(x: &[f32], channels: usize, radius: usize, bias: f64, alpha: f64, beta: f64) -> Vec<f32> {
    let mut out = pool::take::<f32>(x.len());
    let row = |(src, dst): (&[f32], &mut [f32])| {
        for c in 0..channels {
            let lo = c.saturating_sub(radius);
            let hi = (c + radius).min(channels - 1);
            let sum: f64 = src[lo..=hi].iter().map(|&v| v as f64 * v as f64).sum();
            dst[c] = (src[c] as f64 * (bias + alpha * sum).powf(-beta)) as f32;
        }
    };
    if x.len() >= PAR_THRESHOLD {
        x.par_chunks(channels).zip(out.par_chunks_mut(channels)).for_each(row);
    } else {
        x.chunks(channels).zip(out.chunks_mut(channels)).for_each(row);
    }
    out
}
