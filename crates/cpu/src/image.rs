//! Image resampling (`tf.image.resizeBilinear`, `resizeNearestNeighbor`): each output row
//! interpolates between two source rows, each of which between two source columns.
//!
//! Two passes per output row: the two source rows are blended into one (contiguous, so
//! vectorised; skipped when the row weight is 0, as in every nearest-neighbour resize), then
//! each output value blends two values of that row, found through per-value index tables made
//! once per call (no per-pixel index arithmetic, whatever the channel count).

use rayon::prelude::*;
use tidytensor_core::Taps;

use crate::{pool, PAR_CHUNK, PAR_THRESHOLD};

/// Per output value of a row: the positions of its two source values within a source row,
/// and the weight of the second.
struct ColumnTable {
    lo: Vec<u32>,
    hi: Vec<u32>,
    frac: Vec<f32>,
    /// Every weight is 0: each output value copies one source value.
    exact: bool,
}

impl ColumnTable {
    fn new(cols: &Taps, c: usize) -> ColumnTable {
        let n = cols.lo.len() * c;
        let (mut lo, mut hi, mut frac) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        for j in 0..cols.lo.len() {
            for k in 0..c {
                lo.push(cols.lo[j] * c as u32 + k as u32);
                hi.push(cols.hi[j] * c as u32 + k as u32);
                frac.push(cols.frac[j]);
            }
        }
        let exact = frac.iter().all(|&f| f == 0.0);
        ColumnTable { lo, hi, frac, exact }
    }
}

/// Compiled for AVX2 and AVX-512 too and picked at run time (the row closure with it).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl", "x86_64+avx2+fma"))]
pub(crate) fn resample(x: &[f32], shape: [usize; 4], rows: &Taps, cols: &Taps) -> Vec<f32> {
    let [batch, h, w, c] = shape;
    let (nh, nw) = (rows.lo.len(), cols.lo.len());
    let mut out = pool::take::<f32>(batch * nh * nw * c);
    if out.is_empty() {
        return out;
    }
    let table = ColumnTable::new(cols, c);
    let line_len = w * c;
    assert!(x.len() >= batch * h * line_len && table.lo.len() == nw * c);
    assert!(table.lo.iter().chain(&table.hi).all(|&i| (i as usize) < line_len));
    let row = |r: usize, dst: &mut [f32], blended: &mut Vec<f32>| {
        let (n, i) = (r / nh, r % nh);
        let img = &x[n * h * line_len..(n + 1) * h * line_len];
        let line = |y: u32| &img[y as usize * line_len..(y as usize + 1) * line_len];
        let (top, fr) = (line(rows.lo[i]), rows.frac[i]);
        let src: &[f32] = if fr == 0.0 || rows.lo[i] == rows.hi[i] {
            top
        } else {
            let bottom = line(rows.hi[i]);
            blended.clear();
            blended.extend(top.iter().zip(bottom).map(|(&t, &b)| t + (b - t) * fr));
            blended
        };
        if table.exact {
            for (d, &l) in dst.iter_mut().zip(&table.lo) {
                // SAFETY: every index was checked against the row length above.
                *d = unsafe { *src.get_unchecked(l as usize) };
            }
        } else {
            for (((d, &l), &hgh), &f) in dst.iter_mut().zip(&table.lo).zip(&table.hi).zip(&table.frac) {
                // SAFETY: every index was checked against the row length above.
                let (a, b) = unsafe { (*src.get_unchecked(l as usize), *src.get_unchecked(hgh as usize)) };
                *d = a + (b - a) * f;
            }
        }
    };
    // Each value costs a few loads and flops: worth threads from far fewer values than the
    // elementwise kernels.
    if out.len() >= PAR_THRESHOLD / 8 {
        let min_rows = (PAR_CHUNK / 4).div_ceil(nw * c).max(1);
        out.par_chunks_mut(nw * c)
            .enumerate()
            .with_min_len(min_rows)
            .for_each_init(|| Vec::with_capacity(line_len), |blended, (r, dst)| row(r, dst, blended));
    } else {
        let mut blended = Vec::with_capacity(line_len);
        out.chunks_mut(nw * c).enumerate().for_each(|(r, dst)| row(r, dst, &mut blended));
    }
    out
}
