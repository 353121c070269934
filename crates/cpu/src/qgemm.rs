//! The int8 matrix product `C = A · B` (int8 operands, int32 sums) for quantized models (ONNX's
//! MatMulInteger and QLinear ops build on it).
//!
//! Where the CPU has AVX-512 VNNI or AVX-VNNI, one `vpdpbusd` multiplies 4 byte pairs per
//! 32-bit lane and adds them in, four times the multiply-adds of a float FMA of the same width.
//! It multiplies unsigned by signed bytes, so A is packed as `a + 128` (unsigned) and
//! `128 · Σ_p B[p, j]` is taken off each column at the end. Other CPUs take a plain loop that
//! the compiler vectorises.
//!
//! The loops are those of a packed float GEMM: B packed once into panels of `NR` columns, a
//! word of 4 depths per column (`[k / 4][NR]` words, the layout `vpdpbusd` reads), and each
//! task packing its own rows of A into panels of `MR` rows, `[k / 4][MR]` words.

use std::cell::RefCell;
use std::thread::LocalKey;

use rayon::prelude::*;

/// Depth of one packed block (in k): a B panel (`KC × NR` bytes, 32 KiB at NR = 32) fits in L1.
const KC: usize = 1024;
/// Multiply-adds from which the product runs on several threads.
const PAR_WORK: usize = 64 * 64 * 64;

/// `A · B` for row-major `a` (`m × k`) and `b` (`k × n`): row-major `m × n` int32, wrapping
/// on overflow (as the instructions do; it takes k beyond 2^17).
pub fn qgemm(a: &[i8], b: &[i8], (m, n, k): (usize, usize, usize)) -> Vec<i32> {
    assert!(a.len() >= m * k && b.len() >= k * n, "qgemm: operands too short");
    match Kernel::detect() {
        Some(kernel) if m * n * k > 0 => packed(a, b, (m, n, k), kernel),
        _ => plain(a, b, (m, n, k)),
    }
}

/// GOP/s (2 per multiply-add) of one `n × n × n` product of fixed pseudo-random values, for the
/// benchmarks (the int8 product has no tfjs op to time it through).
pub fn qgemm_gops(n: usize) -> f64 {
    let values = |seed: usize| (0..n * n).map(|i| ((i * 7919 + seed) % 251) as u8 as i8).collect::<Vec<i8>>();
    let (a, b) = (values(1), values(104_729));
    let start = std::time::Instant::now();
    let c = qgemm(&a, &b, (n, n, n));
    let gops = 2.0 * (n * n * n) as f64 / start.elapsed().as_secs_f64() / 1e9;
    crate::pool::give(c);
    gops
}

/// The product without VNNI: one output row per task, the columns innermost so the loop
/// vectorises (as wide as the CPU allows).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
fn plain(a: &[i8], b: &[i8], (m, n, k): (usize, usize, usize)) -> Vec<i32> {
    let mut c = vec![0i32; m * n];
    if n == 0 {
        return c;
    }
    let row = |(i, out): (usize, &mut [i32])| {
        for (p, &x) in a[i * k..(i + 1) * k].iter().enumerate() {
            let x = x as i32;
            for (o, &y) in out.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *o = o.wrapping_add(x * y as i32);
            }
        }
    };
    if m * n * k >= PAR_WORK {
        c.par_chunks_mut(n).enumerate().for_each(row);
    } else {
        c.chunks_mut(n).enumerate().for_each(row);
    }
    c
}

/// A micro-kernel: `run(kq, a, b, c, ldc, accumulate)` computes the `MR × NR` tile
/// `Σ_q Σ_t a[q * MR + r].byte(t) · b[q * NR + j].byte(t)` (unsigned bytes of a, signed of b)
/// over `q < kq` and stores it to `c[r * ldc + j]`, or adds it there when `accumulate`.
#[derive(Clone, Copy)]
struct Kernel {
    mr: usize,
    nr: usize,
    run: unsafe fn(usize, *const u32, *const u32, *mut i32, usize, bool),
}

impl Kernel {
    fn detect() -> Option<Kernel> {
        static KERNEL: std::sync::OnceLock<Option<Kernel>> = std::sync::OnceLock::new();
        *KERNEL.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx512vnni") && std::arch::is_x86_feature_detected!("avx512f") {
                    return Some(Kernel { mr: 12, nr: 32, run: x86::kernel_avx512vnni });
                }
                if std::arch::is_x86_feature_detected!("avxvnni") && std::arch::is_x86_feature_detected!("avx2") {
                    return Some(Kernel { mr: 6, nr: 16, run: x86::kernel_avxvnni });
                }
            }
            None
        })
    }
}

thread_local! {
    /// Each thread's packed B (as the caller of a product) and packed block of A (as one of its
    /// tasks), kept between products: fresh buffers would fault their pages in every time.
    static PACKED_B: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    static PACKED_A: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on `len` words of this thread's `buffer` (stale values), or of a fresh one when it
/// is in use (a thread waiting for its tasks may run a task of another product).
fn with_scratch<R>(buffer: &'static LocalKey<RefCell<Vec<u32>>>, len: usize, f: impl FnOnce(&mut [u32]) -> R) -> R {
    buffer.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            if buf.len() < len {
                *buf = vec![0; len];
            }
            f(&mut buf[..len])
        }
        Err(_) => f(&mut vec![0; len]),
    })
}

/// Four bytes as one little-endian word: the byte `vpdpbusd` multiplies first comes first.
fn quad(bytes: [i8; 4]) -> u32 {
    u32::from_le_bytes(bytes.map(|v| v as u8))
}

fn packed(a: &[i8], b: &[i8], (m, n, k): (usize, usize, usize), kernel: Kernel) -> Vec<i32> {
    let (mr, nr) = (kernel.mr, kernel.nr);
    let kq = k.div_ceil(4);
    let panels = n.div_ceil(nr);
    let parallel = m * n * k >= PAR_WORK;
    // Depth blocks, in words (4 depths each).
    let depths: Vec<(usize, usize)> = (0..kq).step_by(KC / 4).map(|q0| (q0, (KC / 4).min(kq - q0))).collect();
    // 128 · the sum of each column of B: the correction for A's shift to unsigned.
    let mut correction = vec![0i32; n];
    let column_sums = |(at, sums): (usize, &mut [i32])| {
        let j0 = at * 256;
        for p in 0..k {
            for (s, &v) in sums.iter_mut().zip(&b[p * n + j0..]) {
                *s = s.wrapping_add(128 * v as i32);
            }
        }
    };
    if parallel {
        correction.par_chunks_mut(256).enumerate().for_each(column_sums);
    } else {
        correction.chunks_mut(256).enumerate().for_each(column_sums);
    }
    // The first depth block stores every value: a recycled buffer needs no zeroing.
    let mut c = crate::pool::take::<i32>(m * n);
    with_scratch(&PACKED_B, panels * nr * kq, |bp| {
        // Packed B, depth block by depth block, each `panels` panels of `qc × nr` words; every
        // word written (depths past k and columns past n as 0).
        let pack = |(at, out): (usize, &mut [u32])| {
            let (q0, qc) = depths[at / panels];
            let j0 = (at % panels) * nr;
            let cols = nr.min(n - j0);
            let row = |p: usize| if p < k { &b[p * n + j0..p * n + j0 + cols] } else { &[] as &[i8] };
            for (q, words) in out.chunks_exact_mut(nr).enumerate().take(qc) {
                let p = 4 * (q0 + q);
                let rows = [row(p), row(p + 1), row(p + 2), row(p + 3)];
                if cols == nr && p + 4 <= k {
                    // The common case, in a form the compiler vectorises.
                    let [r0, r1, r2, r3] = rows;
                    for ((((w, &x0), &x1), &x2), &x3) in words.iter_mut().zip(r0).zip(r1).zip(r2).zip(r3) {
                        *w = quad([x0, x1, x2, x3]);
                    }
                    continue;
                }
                for (jj, w) in words.iter_mut().enumerate() {
                    let at = |t: usize| rows[t].get(jj).copied().unwrap_or(0);
                    *w = quad([at(0), at(1), at(2), at(3)]);
                }
            }
        };
        let mut parts: Vec<(usize, &mut [u32])> = Vec::with_capacity(depths.len() * panels);
        let mut rest = &mut bp[..];
        for &(_, qc) in &depths {
            for _ in 0..panels {
                let (head, tail) = rest.split_at_mut(qc * nr);
                parts.push((parts.len(), head));
                rest = tail;
            }
        }
        if parallel {
            parts.into_par_iter().for_each(pack);
        } else {
            parts.into_iter().for_each(pack);
        }
        let bp: &[u32] = bp;
        let threads = if parallel { rayon::current_num_threads() } else { 1 };
        // Row blocks: at least 4 tasks per thread where the rows allow, at most 16 panels of A.
        let mc = m.div_ceil(4 * threads).div_ceil(mr).clamp(1, 16) * mr;
        let task = |(t, block): (usize, &mut [i32])| {
            let (i0, rows) = (t * mc, block.len() / n);
            let groups = rows.div_ceil(mr);
            with_scratch(&PACKED_A, groups * mr * (KC / 4).min(kq), |ap| {
                let mut off = 0;
                for (d, &(q0, qc)) in depths.iter().enumerate() {
                    let ap = &mut ap[..groups * mr * qc];
                    pack_a(a, k, i0, rows, q0, qc, mr, ap);
                    let bq = &bp[off..off + panels * nr * qc];
                    off += panels * nr * qc;
                    for jp in 0..panels {
                        let bpanel = &bq[jp * nr * qc..(jp + 1) * nr * qc];
                        let (c0, cols) = (jp * nr, nr.min(n - jp * nr));
                        for g in 0..groups {
                            let r0 = g * mr;
                            let apanel = &ap[g * mr * qc..(g + 1) * mr * qc];
                            let rows = mr.min(rows - r0);
                            tile(kernel, qc, apanel, bpanel, &mut block[r0 * n + c0..], n, rows, cols, d > 0);
                        }
                    }
                }
            });
            for row in block.chunks_mut(n) {
                row.iter_mut().zip(&correction).for_each(|(v, s)| *v = v.wrapping_sub(*s));
            }
        };
        if parallel {
            c.par_chunks_mut(mc * n).enumerate().with_max_len(1).for_each(task);
        } else {
            c.chunks_mut(mc * n).enumerate().for_each(task);
        }
    });
    c
}

/// Runs the kernel on one tile: straight into `c` (row stride `ldc`) when whole, else through
/// a local tile of which `rows × cols` is kept.
#[allow(clippy::too_many_arguments)]
fn tile(
    kernel: Kernel,
    kq: usize,
    a: &[u32],
    b: &[u32],
    c: &mut [i32],
    ldc: usize,
    rows: usize,
    cols: usize,
    acc: bool,
) {
    let (mr, nr) = (kernel.mr, kernel.nr);
    assert!(a.len() >= kq * mr && b.len() >= kq * nr);
    if rows == mr && cols == nr && c.len() >= (mr - 1) * ldc + nr {
        // SAFETY: the kernel reads kq * mr words of a and kq * nr of b (checked above)
        // and writes mr rows of nr values at stride ldc, all inside c (checked above).
        unsafe { (kernel.run)(kq, a.as_ptr(), b.as_ptr(), c.as_mut_ptr(), ldc, acc) };
        return;
    }
    let mut local = [0i32; 12 * 32];
    assert!(mr * nr <= local.len());
    // SAFETY: as above, with the local tile of mr rows of nr values.
    unsafe { (kernel.run)(kq, a.as_ptr(), b.as_ptr(), local.as_mut_ptr(), nr, false) };
    for r in 0..rows {
        let row = &mut c[r * ldc..r * ldc + cols];
        let part = &local[r * nr..r * nr + cols];
        if acc {
            row.iter_mut().zip(part).for_each(|(d, s)| *d = d.wrapping_add(*s));
        } else {
            row.copy_from_slice(part);
        }
    }
}

/// Packs rows `i0 .. i0 + rows` of A (row length `k`), words `q0 .. q0 + qc` (4 depths each),
/// as panels of `mr` rows, `[qc][mr]` words, shifted to unsigned (`a + 128`). Depths past `k`
/// meet B's zeros, and rows past `rows` are dropped, whatever they hold.
#[allow(clippy::too_many_arguments)]
fn pack_a(a: &[i8], k: usize, i0: usize, rows: usize, q0: usize, qc: usize, mr: usize, out: &mut [u32]) {
    const SHIFT: u32 = 0x8080_8080;
    for (g, panel) in out.chunks_exact_mut(mr * qc).enumerate() {
        for r in 0..mr {
            let i = g * mr + r;
            if i >= rows {
                for q in 0..qc {
                    panel[q * mr + r] = 0;
                }
                continue;
            }
            let row = &a[(i0 + i) * k..(i0 + i + 1) * k];
            let (p0, end) = (4 * q0, (4 * (q0 + qc)).min(k));
            let mut quads = row[p0..end].chunks_exact(4);
            for (q, bytes) in (&mut quads).enumerate() {
                panel[q * mr + r] = quad([bytes[0], bytes[1], bytes[2], bytes[3]]) ^ SHIFT;
            }
            let tail = quads.remainder();
            if !tail.is_empty() {
                let mut bytes = [0i8; 4];
                bytes[..tail.len()].copy_from_slice(tail);
                panel[(end - p0) / 4 * mr + r] = quad(bytes) ^ SHIFT;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// 12 × 32 with AVX-512 VNNI: 24 accumulators of 16 sums.
    ///
    /// # Safety
    /// The CPU has AVX-512F and AVX-512 VNNI; `a` holds `kq × 12` words, `b` `kq × 32`,
    /// and `c` is valid for 12 rows of 32 values at stride `ldc`.
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub(super) unsafe fn kernel_avx512vnni(
        kq: usize,
        a: *const u32,
        b: *const u32,
        c: *mut i32,
        ldc: usize,
        acc: bool,
    ) {
        let mut lo = [_mm512_setzero_si512(); 12];
        let mut hi = [_mm512_setzero_si512(); 12];
        for q in 0..kq {
            let b0 = _mm512_loadu_si512(b.add(q * 32).cast());
            let b1 = _mm512_loadu_si512(b.add(q * 32 + 16).cast());
            for r in 0..12 {
                let av = _mm512_set1_epi32(*a.add(q * 12 + r) as i32);
                lo[r] = _mm512_dpbusd_epi32(lo[r], av, b0);
                hi[r] = _mm512_dpbusd_epi32(hi[r], av, b1);
            }
        }
        for r in 0..12 {
            let row = c.add(r * ldc);
            if acc {
                lo[r] = _mm512_add_epi32(lo[r], _mm512_loadu_si512(row.cast()));
                hi[r] = _mm512_add_epi32(hi[r], _mm512_loadu_si512(row.add(16).cast()));
            }
            _mm512_storeu_si512(row.cast(), lo[r]);
            _mm512_storeu_si512(row.add(16).cast(), hi[r]);
        }
    }

    /// 6 × 16 with AVX-VNNI: 12 accumulators of 8 sums.
    ///
    /// # Safety
    /// The CPU has AVX2 and AVX-VNNI; `a` holds `kq × 6` words, `b` `kq × 16`, and `c`
    /// is valid for 6 rows of 16 values at stride `ldc`.
    #[target_feature(enable = "avx2,avxvnni")]
    pub(super) unsafe fn kernel_avxvnni(kq: usize, a: *const u32, b: *const u32, c: *mut i32, ldc: usize, acc: bool) {
        let mut lo = [_mm256_setzero_si256(); 6];
        let mut hi = [_mm256_setzero_si256(); 6];
        for q in 0..kq {
            let b0 = _mm256_loadu_si256(b.add(q * 16).cast());
            let b1 = _mm256_loadu_si256(b.add(q * 16 + 8).cast());
            for r in 0..6 {
                let av = _mm256_set1_epi32(*a.add(q * 6 + r) as i32);
                lo[r] = _mm256_dpbusd_avx_epi32(lo[r], av, b0);
                hi[r] = _mm256_dpbusd_avx_epi32(hi[r], av, b1);
            }
        }
        for r in 0..6 {
            let row = c.add(r * ldc);
            if acc {
                lo[r] = _mm256_add_epi32(lo[r], _mm256_loadu_si256(row.cast()));
                hi[r] = _mm256_add_epi32(hi[r], _mm256_loadu_si256(row.add(8).cast()));
            }
            _mm256_storeu_si256(row.cast(), lo[r]);
            _mm256_storeu_si256(row.add(8).cast(), hi[r]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(len: usize, seed: usize) -> Vec<i8> {
        (0..len).map(|i| ((i * 7919 + seed * 104_729) % 256) as u8 as i8).collect()
    }

    fn naive(a: &[i8], b: &[i8], (m, n, k): (usize, usize, usize)) -> Vec<i32> {
        let mut c = vec![0i32; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] as i32 * b[p * n + j] as i32).sum();
            }
        }
        c
    }

    #[test]
    fn matches_the_naive_product_on_every_shape() {
        // Edges of the tiles, depths not a multiple of 4, several depth blocks, the extremes
        // -128 and 127 (bytes cover every value).
        for &(m, n, k) in &[
            (1, 1, 1),
            (12, 32, 4),
            (13, 33, 5),
            (5, 70, 2050),
            (100, 17, 3),
            (64, 64, 64),
            (0, 3, 4),
            (3, 0, 4),
            (3, 4, 0),
        ] {
            let (a, b) = (bytes(m * k, 1), bytes(k * n, 2));
            let want = naive(&a, &b, (m, n, k));
            assert_eq!(qgemm(&a, &b, (m, n, k)), want, "{m}x{n}x{k}");
            assert_eq!(plain(&a, &b, (m, n, k)), want, "plain {m}x{n}x{k}");
        }
        let (a, b) = (vec![-128i8; 40 * 1030], vec![-128i8; 1030 * 40]);
        assert_eq!(qgemm(&a, &b, (40, 40, 1030)), vec![1030 * 128 * 128; 1600]);
    }
}
