//! tfjs-converter's `spectral_executor.ts`: FFT, IFFT, RFFT and IRFFT.

use super::{not_here, Ctx};
use tidytensor_core::{Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &["FFT", "IFFT", "RFFT", "IRFFT"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    match op {
        "FFT" => Ok(vec![e.fft(c.t(0)?, false)?]),
        "IFFT" => Ok(vec![e.fft(c.t(0)?, true)?]),
        // tfjs ignores fft_length.
        "RFFT" => Ok(vec![e.rfft(c.t(0)?, None)?]),
        "IRFFT" => Ok(vec![e.irfft(c.t(0)?)?]),
        _ => not_here(op),
    }
}
