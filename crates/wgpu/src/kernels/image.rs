//! Image resampling: one thread per output element, the taps in a small second buffer.

use std::sync::Arc;

use tidytensor_core::{DType, Result, Storage};

use super::{bind, launch, run1d, sbind, shader, u32_of};
use crate::device::{Gpu, WG};
use crate::WgpuStorage;

const RESAMPLE: &str = include_str!("../shaders/image/resample.wgsl");

/// `taps` is the u32 table `resample.wgsl` reads (see there).
pub(crate) fn resample(
    gpu: &Arc<Gpu>,
    x: &WgpuStorage,
    taps: &WgpuStorage,
    [b, h, w, c]: [usize; 4],
    [nh, nw]: [usize; 2],
) -> Result<Box<dyn Storage>> {
    let n = b * nh * nw * c;
    let p = [n, c, nw, nh, h, w].iter().map(|&v| u32_of(v, "resize dimension")).collect::<Result<Vec<u32>>>()?;
    launch(gpu, n, DType::Float32, |g, st, o| {
        let src = || shader(&["f32", "u32"], "f32", "", RESAMPLE);
        run1d(g, st, "resample", src, &[sbind(x), sbind(taps)], bind(o), &p, n, WG)
    })
}
