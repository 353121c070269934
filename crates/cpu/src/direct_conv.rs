//! Direct 2-D convolution on x86-64 with AVX-512 or AVX2 + FMA: no im2col at all.
//!
//! The input is copied once into a zero-padded buffer, so that every tap of every window lies
//! inside it. Then a tile of up to `MR` consecutive outputs of one row reads, at each tap, runs
//! of `in_channels` floats that are `stride · in_channels` apart: a strided matrix the
//! register-blocked kernel can read directly. The kernel keeps the tile (× `NR` output
//! channels) in registers over all taps and input channels, against a panel of the filter
//! packed by `NR` output channels (`[tap][in_channels][NR]`). A row splits into tiles of equal
//! size (a kernel for each size up to `MR`), so no tile row idles. The im2col route copies
//! every input value once per tap (9 times for 3×3) and multiplies the copies; this reads the
//! input where it lies.

use rayon::prelude::*;
use tidytensor_core::ConvGeom;

use crate::elementwise::Epilogue;
use crate::pool;

/// Multiply-adds below which a convolution stays on one thread.
const PAR_WORK: usize = 64 * 64 * 64;
/// Outputs per channel below which the implicit GEMM is faster: each task packs its panel of
/// the filter, and a deep layer's small image (7×7) has too few outputs to pay for that.
const MIN_OUTPUTS: usize = 128;

/// A kernel for `m` rows: `run(taps, cin, a, lda, b, c, ldc)` stores to `c[r * ldc + j]`
/// (r < m, j < NR) `Σ_t Σ_i a[taps[t] + r * lda + i] · b[(t * cin + i) * NR + j]`.
type KernelFn = unsafe fn(&[usize], usize, *const f32, usize, *const f32, *mut f32, usize);

/// This CPU's kernels: `runs[m - 1]` computes a tile of `m` rows, for every `m` up to `MR`,
/// so that a row of outputs splits into tiles of equal size with no idle rows.
#[derive(Clone, Copy)]
struct Kernel {
    nr: usize,
    runs: &'static [KernelFn],
}

impl Kernel {
    /// Every kernel this CPU can run, the widest first.
    fn available() -> Vec<Kernel> {
        let mut all = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                all.push(Kernel { nr: 32, runs: &x86::AVX512 });
            }
            if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                all.push(Kernel { nr: 16, runs: &x86::AVX2 });
            }
        }
        all
    }

    fn detect() -> Option<Kernel> {
        static KERNEL: std::sync::OnceLock<Option<Kernel>> = std::sync::OnceLock::new();
        *KERNEL.get_or_init(|| Kernel::available().first().copied())
    }
}

/// The output, written by tasks at disjoint places.
struct Out(*mut f32);
// SAFETY: every task writes only its own (row, channel panel) tiles.
unsafe impl Sync for Out {}

/// The convolution of 2-D geometry `g` (depth 1), then `ep` on each row of its output while it
/// is in cache, or `None` where this CPU has no kernel.
pub(crate) fn conv2d(x: &[f32], w: &[f32], g: &ConvGeom, ep: Option<&Epilogue>) -> Option<Vec<f32>> {
    conv2d_with(Kernel::detect()?, x, w, g, ep)
}

fn conv2d_with(kernel: Kernel, x: &[f32], w: &[f32], g: &ConvGeom, ep: Option<&Epilogue>) -> Option<Vec<f32>> {
    if g.in_size[0] != 1 || g.out_size[0] != 1 || g.filter[0] != 1 {
        return None;
    }
    let (mr, nr) = (kernel.runs.len(), kernel.nr);
    let (cin, cout) = (g.in_channels, g.out_channels);
    let [_, oh, ow] = g.out_size;
    let [_, fh, fw] = g.filter;
    if g.batch * oh * ow < MIN_OUTPUTS || cout * cin * fh * fw == 0 {
        return None;
    }
    let [_, h, wi] = g.in_size;
    let [_, sy, sx] = g.strides;
    let [_, dy, dx] = g.dilations;
    // The padded input: every position a tap reads, (out - 1) * stride + (filter - 1) *
    // dilation + 1 along each axis.
    let (hp, wp) = ((oh - 1) * sy + (fh - 1) * dy + 1, (ow - 1) * sx + (fw - 1) * dx + 1);
    let image = hp * wp * cin;
    let parallel = g.batch * oh * ow * cout * fh * fw * cin >= PAR_WORK;
    // An input the windows cover exactly, unpadded (a 1×1 convolution's), is read where it is.
    let exact = g.pad[1] == 0 && g.pad[2] == 0 && (hp, wp) == (h, wi);
    let mut padded = if exact { Vec::new() } else { pool::take::<f32>(g.batch * image) };
    let fill = |(row, dst): (usize, &mut [f32])| {
        let (b, py) = (row / hp, row % hp);
        let iy = py as isize - g.pad[1];
        if iy < 0 || iy as usize >= h {
            dst.fill(0.0);
            return;
        }
        let line = &x[(b * h + iy as usize) * wi * cin..][..wi * cin];
        // Padded columns px hold input column px - pad (when inside the input).
        let left = g.pad[2];
        for (px, d) in dst.chunks_exact_mut(cin).enumerate() {
            let ix = px as isize - left;
            if ix >= 0 && (ix as usize) < wi {
                d.copy_from_slice(&line[ix as usize * cin..][..cin]);
            } else {
                d.fill(0.0);
            }
        }
    };
    if parallel {
        padded.par_chunks_mut(wp * cin).enumerate().for_each(fill);
    } else {
        padded.chunks_mut(wp * cin).enumerate().for_each(fill);
    }
    let source: &[f32] = if exact { &x[..g.batch * image] } else { &padded };
    let taps = fh * fw;
    let panels = cout.div_ceil(nr);
    let panel_len = taps * cin * nr;
    // Where each tap reads, relative to the tile's first window.
    let offsets: Vec<usize> = (0..fh).flat_map(|ty| (0..fw).map(move |tx| (ty * dy * wp + tx * dx) * cin)).collect();
    let lda = sx * cin;
    // A row of ow outputs in the fewest tiles, of equal size (64 = 11 + 11 + 10 + 11 + 11 + 10).
    let tiles = ow.div_ceil(mr);
    let mut out = pool::take::<f32>(g.batch * oh * ow * cout);
    let dst = Out(out.as_mut_ptr());
    let dst = &dst;
    // Tasks: a panel of nr output channels against a run of output rows, at least 8 per thread
    // where there are rows enough.
    let out_rows = g.batch * oh;
    let threads = if parallel { rayon::current_num_threads() } else { 1 };
    let runs = (8 * threads).div_ceil(panels).clamp(1, out_rows);
    let task = |t: usize| {
        let (jp, run) = (t / runs, t % runs);
        let (j0, cols) = (jp * nr, nr.min(cout - jp * nr));
        // The task's panel of the filter, [tap][cin][nr], channels past cout zero: packed here,
        // where it stays in cache for all the task's rows. (Packed all at once up front, a deep
        // layer's megabytes of filter went out to memory and back, as slow as its few rows.)
        let mut panel = pool::take::<f32>(panel_len);
        for (tc, d) in panel.chunks_exact_mut(nr).enumerate() {
            d[..cols].copy_from_slice(&w[tc * cout + j0..][..cols]);
            d[cols..].fill(0.0);
        }
        for r in run * out_rows / runs..(run + 1) * out_rows / runs {
            let (b, y) = (r / oh, r % oh);
            let line = b * image + y * sy * wp * cin;
            for tile in 0..tiles {
                let (x0, x1) = (tile * ow / tiles, (tile + 1) * ow / tiles);
                let rows = x1 - x0;
                let a = &source[line + x0 * lda..];
                // The last tap of the last window reads up to here: inside the padded image.
                assert!(offsets[taps - 1] + (rows - 1) * lda + cin <= a.len());
                let kernel = kernel.runs[rows - 1];
                let at = (r * ow + x0) * cout + j0;
                if cols == nr {
                    // SAFETY: the reads of a lie inside it (asserted above); the panel holds
                    // taps * cin * nr floats; the tile written, rows of nr floats at stride
                    // cout, lies inside this task's output rows and channel panel, which no
                    // other task writes.
                    unsafe { kernel(&offsets, cin, a.as_ptr(), lda, panel.as_ptr(), dst.0.add(at), cout) };
                } else {
                    let mut local = [0f32; 12 * 32];
                    // SAFETY: as above, into the local tile of rows × nr (≤ 12 × 32) floats.
                    unsafe { kernel(&offsets, cin, a.as_ptr(), lda, panel.as_ptr(), local.as_mut_ptr(), nr) };
                    for i in 0..rows {
                        // SAFETY: the first cols channels of this task's own output row.
                        let d = unsafe { std::slice::from_raw_parts_mut(dst.0.add(at + i * cout), cols) };
                        d.copy_from_slice(&local[i * nr..][..cols]);
                    }
                }
            }
            if let Some(ep) = ep {
                // SAFETY: the row's outputs in this task's channels, which it has just written
                // and no other task writes.
                unsafe { ep.apply_tile(dst.0.add(r * ow * cout + j0), ow, cols, cout, j0) };
            }
        }
        pool::give(panel);
    };
    let count = panels * runs;
    if parallel {
        (0..count).into_par_iter().with_max_len(1).for_each(task);
    } else {
        (0..count).for_each(task);
    }
    pool::give(padded);
    Some(out)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::KernelFn;

    /// The AVX-512 tiles: 1 to 12 outputs × 32 channels.
    pub(super) const AVX512: [KernelFn; 12] = [
        kernel_avx512::<1>,
        kernel_avx512::<2>,
        kernel_avx512::<3>,
        kernel_avx512::<4>,
        kernel_avx512::<5>,
        kernel_avx512::<6>,
        kernel_avx512::<7>,
        kernel_avx512::<8>,
        kernel_avx512::<9>,
        kernel_avx512::<10>,
        kernel_avx512::<11>,
        kernel_avx512::<12>,
    ];

    /// The AVX2 tiles: 1 to 6 outputs × 16 channels.
    pub(super) const AVX2: [KernelFn; 6] =
        [kernel_avx2::<1>, kernel_avx2::<2>, kernel_avx2::<3>, kernel_avx2::<4>, kernel_avx2::<5>, kernel_avx2::<6>];

    /// MR outputs × 32 channels: 2·MR accumulators of 16 floats.
    ///
    /// # Safety
    /// The CPU has AVX-512F; `a` is valid at every `taps[t] + r * lda + i` (r < MR, i < cin),
    /// `b` for `taps.len() * cin * 32` floats, `c` for MR rows of 32 at stride `ldc`.
    #[target_feature(enable = "avx512f")]
    unsafe fn kernel_avx512<const MR: usize>(
        taps: &[usize],
        cin: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        let mut lo = [_mm512_setzero_ps(); MR];
        let mut hi = [_mm512_setzero_ps(); MR];
        let mut b = b;
        for &tap in taps {
            let at = a.add(tap);
            for i in 0..cin {
                let b0 = _mm512_loadu_ps(b);
                let b1 = _mm512_loadu_ps(b.add(16));
                b = b.add(32);
                for r in 0..MR {
                    let av = _mm512_set1_ps(*at.add(r * lda + i));
                    lo[r] = _mm512_fmadd_ps(av, b0, lo[r]);
                    hi[r] = _mm512_fmadd_ps(av, b1, hi[r]);
                }
            }
        }
        for r in 0..MR {
            _mm512_storeu_ps(c.add(r * ldc), lo[r]);
            _mm512_storeu_ps(c.add(r * ldc + 16), hi[r]);
        }
    }

    /// MR outputs × 16 channels: 2·MR accumulators of 8 floats.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; `a` is valid at every `taps[t] + r * lda + i` (r < MR,
    /// i < cin), `b` for `taps.len() * cin * 16` floats, `c` for MR rows of 16 at stride `ldc`.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn kernel_avx2<const MR: usize>(
        taps: &[usize],
        cin: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        let mut lo = [_mm256_setzero_ps(); MR];
        let mut hi = [_mm256_setzero_ps(); MR];
        let mut b = b;
        for &tap in taps {
            let at = a.add(tap);
            for i in 0..cin {
                let b0 = _mm256_loadu_ps(b);
                let b1 = _mm256_loadu_ps(b.add(8));
                b = b.add(16);
                for r in 0..MR {
                    let av = _mm256_broadcast_ss(&*at.add(r * lda + i));
                    lo[r] = _mm256_fmadd_ps(av, b0, lo[r]);
                    hi[r] = _mm256_fmadd_ps(av, b1, hi[r]);
                }
            }
        }
        for r in 0..MR {
            _mm256_storeu_ps(c.add(r * ldc), lo[r]);
            _mm256_storeu_ps(c.add(r * ldc + 8), hi[r]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(len: usize, seed: usize) -> Vec<f32> {
        (0..len).map(|i| ((i * 7919 + seed * 104_729) % 1999) as f32 / 1000.0 - 1.0).collect()
    }

    #[test]
    fn matches_the_implicit_gemm_on_every_geometry() {
        // (batch, in h, in w, cin, out h, out w, cout, filter, strides, dilations, pads)
        #[allow(clippy::type_complexity)]
        let cases: &[(
            usize,
            [usize; 2],
            usize,
            [usize; 2],
            usize,
            [usize; 2],
            [usize; 2],
            [usize; 2],
            [isize; 2],
        )] = &[
            (1, [9, 48], 3, [9, 48], 5, [3, 3], [1, 1], [1, 1], [1, 1]),
            (2, [11, 50], 7, [5, 24], 40, [3, 3], [2, 2], [1, 1], [0, 0]),
            (1, [12, 60], 4, [8, 52], 33, [3, 3], [1, 1], [2, 4], [0, 0]),
            (2, [8, 70], 2, [4, 24], 17, [5, 3], [2, 3], [1, 1], [2, 1]),
            // A negative pad skips input.
            (1, [10, 64], 3, [8, 60], 8, [1, 3], [1, 1], [1, 1], [-1, -1]),
            // Read in place: 1×1, unpadded, stride 1.
            (2, [12, 20], 5, [12, 20], 40, [1, 1], [1, 1], [1, 1], [0, 0]),
            // Narrow rows (one tile of 7, two of 7), channels past one panel.
            (3, [7, 7], 16, [7, 7], 70, [3, 3], [1, 1], [1, 1], [1, 1]),
            (1, [14, 14], 9, [14, 14], 33, [3, 3], [1, 1], [1, 1], [1, 1]),
        ];
        let mut tried = 0;
        for &(batch, [h, wi], cin, [oh, ow], cout, [fh, fw], [sy, sx], [dy, dx], [py, px]) in cases {
            let g = ConvGeom {
                batch,
                in_size: [1, h, wi],
                in_channels: cin,
                out_size: [1, oh, ow],
                out_channels: cout,
                filter: [1, fh, fw],
                strides: [1, sy, sx],
                dilations: [1, dy, dx],
                pad: [0, py, px],
            };
            let (x, w) = (values(batch * h * wi * cin, 1), values(fh * fw * cin * cout, 2));
            let want = crate::conv::implicit_gemm(&x, &w, &g, vec![0.0; batch * oh * ow * cout]);
            // With a bias and relu6 applied row by row, as after the whole product.
            let ep = Epilogue::new(cout, Some(&values(cout, 3)), tidytensor_core::Activation::Relu6, None);
            let mut want_fused = want.clone();
            ep.apply_all(&mut want_fused);
            for (k, kernel) in Kernel::available().into_iter().enumerate() {
                for (ep, want) in [(None, &want), (Some(&ep), &want_fused)] {
                    let got = conv2d_with(kernel, &x, &w, &g, ep).expect("a direct convolution");
                    tried += 1;
                    for (i, (a, b)) in got.iter().zip(want).enumerate() {
                        assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "case {tried}, kernel {k}: [{i}] {a} vs {b}");
                    }
                }
            }
        }
        assert_eq!(tried, 2 * cases.len() * Kernel::available().len());
    }
}
