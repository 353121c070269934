//! tfjs-converter's `spectral_executor.ts` (FFT and IFFT; rfft and irfft are composed in
//! `lib/ops/spectral.js` and do not run here yet).

use super::{not_here, Ctx};
use tidytensor_core::{Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &["FFT", "IFFT"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    match op {
        "FFT" => Ok(vec![e.fft(c.t(0)?, false)?]),
        "IFFT" => Ok(vec![e.fft(c.t(0)?, true)?]),
        _ => not_here(op),
    }
}
