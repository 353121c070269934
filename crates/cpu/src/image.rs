//! Image resampling (`tf.image.resizeBilinear`, `resizeNearestNeighbor`): each output row
//! interpolates between two source rows, each of which between two source columns.

use rayon::prelude::*;
use tidytensor_core::Taps;

use crate::{pool, PAR_THRESHOLD};

/// Compiled for AVX2 and AVX-512 too and picked at run time (the row closure with it).
#[multiversion::multiversion(targets("x86_64+avx2+fma", "x86_64+avx512f+avx512bw+avx512dq+avx512vl"))]
pub(crate) fn resample(x: &[f32], shape: [usize; 4], rows: &Taps, cols: &Taps) -> Vec<f32> {
    let [batch, h, w, c] = shape;
    let (nh, nw) = (rows.lo.len(), cols.lo.len());
    let mut out = pool::take::<f32>(batch * nh * nw * c);
    if out.is_empty() {
        return out;
    }
    let row = |r: usize, dst: &mut [f32]| {
        let (n, i) = (r / nh, r % nh);
        let img = &x[n * h * w * c..(n + 1) * h * w * c];
        let (r0, r1, fr) = (rows.lo[i] as usize * w, rows.hi[i] as usize * w, rows.frac[i]);
        for (j, px) in dst.chunks_mut(c).enumerate() {
            let (c0, c1, fc) = (cols.lo[j] as usize, cols.hi[j] as usize, cols.frac[j]);
            let at = |p: usize| &img[p * c..(p + 1) * c];
            let (tl, tr, bl, br) = (at(r0 + c0), at(r0 + c1), at(r1 + c0), at(r1 + c1));
            for k in 0..c {
                let top = tl[k] + (tr[k] - tl[k]) * fc;
                let bottom = bl[k] + (br[k] - bl[k]) * fc;
                px[k] = top + (bottom - top) * fr;
            }
        }
    };
    if out.len() >= PAR_THRESHOLD {
        out.par_chunks_mut(nw * c).enumerate().for_each(|(r, dst)| row(r, dst));
    } else {
        out.chunks_mut(nw * c).enumerate().for_each(|(r, dst)| row(r, dst));
    }
    out
}
