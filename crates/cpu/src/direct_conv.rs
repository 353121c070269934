//! Direct 2-D convolution on x86-64 with AVX-512 or AVX2 + FMA: no im2col at all.
//!
//! The input is copied once into a zero-padded buffer, so that every tap of every window lies
//! inside it. Then a tile of `MR` consecutive outputs of one row reads, at each tap, `MR` runs
//! of `in_channels` floats that are `stride · in_channels` apart: a strided matrix the
//! register-blocked kernel can read directly. The kernel keeps the `MR × NR` tile (`NR` output
//! channels) in registers over all taps and input channels, against the filter packed into
//! panels of `NR` output channels (`[tap][in_channels][NR]`). The im2col route copies every
//! input value once per tap (9 times for 3×3) and multiplies the copies; this reads the input
//! where it lies.

use rayon::prelude::*;
use tidytensor_core::ConvGeom;

use crate::pool;

/// Multiply-adds below which a convolution stays on one thread.
const PAR_WORK: usize = 64 * 64 * 64;
/// The least share (in percent) of its tiles' rows an output row must use to be taken here.
const MIN_TILE_USE: usize = 85;

/// A kernel: `run(taps, cin, a, lda, b, c, ldc)` stores to `c[r * ldc + j]` (r < MR, j < NR)
/// `Σ_t Σ_i a[taps[t] + r * lda + i] · b[(t * cin + i) * NR + j]`.
#[derive(Clone, Copy)]
struct Kernel {
    mr: usize,
    nr: usize,
    run: unsafe fn(&[usize], usize, *const f32, usize, *const f32, *mut f32, usize),
}

impl Kernel {
    fn detect() -> Option<Kernel> {
        static KERNEL: std::sync::OnceLock<Option<Kernel>> = std::sync::OnceLock::new();
        *KERNEL.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx512f") {
                    return Some(Kernel { mr: 12, nr: 32, run: x86::kernel_avx512 });
                }
                if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                    return Some(Kernel { mr: 6, nr: 16, run: x86::kernel_avx2 });
                }
            }
            None
        })
    }
}

/// The convolution of 2-D geometry `g` (depth 1), or `None` where this CPU has no kernel.
pub(crate) fn conv2d(x: &[f32], w: &[f32], g: &ConvGeom) -> Option<Vec<f32>> {
    let kernel = Kernel::detect()?;
    if g.in_size[0] != 1 || g.out_size[0] != 1 || g.filter[0] != 1 {
        return None;
    }
    let (mr, nr) = (kernel.mr, kernel.nr);
    let (cin, cout) = (g.in_channels, g.out_channels);
    let [_, oh, ow] = g.out_size;
    // Tiles run along one output row: a narrow row leaves most of its last tile idle (14
    // outputs take two tiles of 12), and the im2col route wastes nothing there.
    if g.batch * oh * ow * cout * cin == 0 || ow * 100 < ow.div_ceil(mr) * mr * MIN_TILE_USE {
        return None;
    }
    let [_, fh, fw] = g.filter;
    let [_, h, wi] = g.in_size;
    let [_, sy, sx] = g.strides;
    let [_, dy, dx] = g.dilations;
    // The padded input: every position a tap reads, (out - 1) * stride + (filter - 1) *
    // dilation + 1 along each axis.
    let (hp, wp) = ((oh - 1) * sy + (fh - 1) * dy + 1, (ow - 1) * sx + (fw - 1) * dx + 1);
    let image = hp * wp * cin;
    // Slack after the last row: a short last tile's unused rows read past its end.
    let slack = (mr * sx + 1) * cin;
    let mut padded = pool::take::<f32>(g.batch * image + slack);
    let parallel = g.batch * oh * ow * cout * fh * fw * cin >= PAR_WORK;
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
    {
        let (rows, rest) = padded.split_at_mut(g.batch * image);
        rest.fill(0.0);
        if parallel {
            rows.par_chunks_mut(wp * cin).enumerate().for_each(fill);
        } else {
            rows.chunks_mut(wp * cin).enumerate().for_each(fill);
        }
    }
    // The filter in panels of nr output channels, [tap][cin][nr], channels past cout zero.
    let taps = fh * fw;
    let panels = cout.div_ceil(nr);
    let mut packed = vec![0f32; panels * taps * cin * nr];
    for (jp, panel) in packed.chunks_exact_mut(taps * cin * nr).enumerate() {
        let (j0, cols) = (jp * nr, nr.min(cout - jp * nr));
        for (tc, dst) in panel.chunks_exact_mut(nr).enumerate() {
            dst[..cols].copy_from_slice(&w[tc * cout + j0..][..cols]);
        }
    }
    // Where each tap reads, relative to the tile's first window.
    let offsets: Vec<usize> = (0..fh).flat_map(|ty| (0..fw).map(move |tx| (ty * dy * wp + tx * dx) * cin)).collect();
    let lda = sx * cin;
    let mut out = pool::take::<f32>(g.batch * oh * ow * cout);
    let row = |(r, dst): (usize, &mut [f32])| {
        let (b, y) = (r / oh, r % oh);
        let line = b * image + y * sy * wp * cin;
        for x0 in (0..ow).step_by(mr) {
            let rows = mr.min(ow - x0);
            let a = &padded[line + x0 * lda..];
            for (jp, panel) in packed.chunks_exact(taps * cin * nr).enumerate() {
                let (j0, cols) = (jp * nr, nr.min(cout - jp * nr));
                // The last tap of the last row reads up to here (inside `padded`, with its slack).
                assert!(offsets[taps - 1] + (mr - 1) * lda + cin <= a.len());
                if rows == mr && cols == nr {
                    let c = &mut dst[x0 * cout + j0..];
                    assert!(c.len() >= (mr - 1) * cout + nr);
                    // SAFETY: the reads of a lie inside it (asserted above); the panel holds
                    // taps * cin * nr floats; the tile written, mr rows of nr at stride cout,
                    // lies inside c (asserted above).
                    unsafe { (kernel.run)(&offsets, cin, a.as_ptr(), lda, panel.as_ptr(), c.as_mut_ptr(), cout) };
                } else {
                    let mut local = [0f32; 12 * 32];
                    // SAFETY: as above, into the local tile of mr rows of nr.
                    unsafe { (kernel.run)(&offsets, cin, a.as_ptr(), lda, panel.as_ptr(), local.as_mut_ptr(), nr) };
                    for i in 0..rows {
                        dst[(x0 + i) * cout + j0..][..cols].copy_from_slice(&local[i * nr..][..cols]);
                    }
                }
            }
        }
    };
    if parallel {
        out.par_chunks_mut(ow * cout).enumerate().for_each(row);
    } else {
        out.chunks_mut(ow * cout).enumerate().for_each(row);
    }
    pool::give(padded);
    Some(out)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// 12 outputs × 32 channels: 24 accumulators of 16 floats.
    ///
    /// # Safety
    /// The CPU has AVX-512F; `a` is valid at every `taps[t] + r * lda + i` (r < 12, i < cin),
    /// `b` for `taps.len() * cin * 32` floats, `c` for 12 rows of 32 at stride `ldc`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn kernel_avx512(
        taps: &[usize],
        cin: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        let mut lo = [_mm512_setzero_ps(); 12];
        let mut hi = [_mm512_setzero_ps(); 12];
        let mut b = b;
        for &tap in taps {
            let at = a.add(tap);
            for i in 0..cin {
                let b0 = _mm512_loadu_ps(b);
                let b1 = _mm512_loadu_ps(b.add(16));
                b = b.add(32);
                for r in 0..12 {
                    let av = _mm512_set1_ps(*at.add(r * lda + i));
                    lo[r] = _mm512_fmadd_ps(av, b0, lo[r]);
                    hi[r] = _mm512_fmadd_ps(av, b1, hi[r]);
                }
            }
        }
        for r in 0..12 {
            _mm512_storeu_ps(c.add(r * ldc), lo[r]);
            _mm512_storeu_ps(c.add(r * ldc + 16), hi[r]);
        }
    }

    /// 6 outputs × 16 channels: 12 accumulators of 8 floats.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; `a` is valid at every `taps[t] + r * lda + i` (r < 6,
    /// i < cin), `b` for `taps.len() * cin * 16` floats, `c` for 6 rows of 16 at stride `ldc`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn kernel_avx2(
        taps: &[usize],
        cin: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
    ) {
        let mut lo = [_mm256_setzero_ps(); 6];
        let mut hi = [_mm256_setzero_ps(); 6];
        let mut b = b;
        for &tap in taps {
            let at = a.add(tap);
            for i in 0..cin {
                let b0 = _mm256_loadu_ps(b);
                let b1 = _mm256_loadu_ps(b.add(8));
                b = b.add(16);
                for r in 0..6 {
                    let av = _mm256_broadcast_ss(&*at.add(r * lda + i));
                    lo[r] = _mm256_fmadd_ps(av, b0, lo[r]);
                    hi[r] = _mm256_fmadd_ps(av, b1, hi[r]);
                }
            }
        }
        for r in 0..6 {
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
            (1, [8, 70], 2, [4, 24], 17, [5, 3], [2, 3], [1, 1], [2, 1]),
            // A negative pad skips input.
            (1, [10, 64], 3, [8, 60], 8, [1, 3], [1, 1], [1, 1], [-1, -1]),
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
            let Some(got) = conv2d(&x, &w, &g) else { continue };
            tried += 1;
            let want = crate::conv::implicit_gemm(&x, &w, &g, vec![0.0; batch * oh * ow * cout]);
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "case {tried}: [{i}] {a} vs {b}");
            }
        }
        assert!(tried > 0 || Kernel::detect().is_none());
    }
}
