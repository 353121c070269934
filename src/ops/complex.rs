//! complex64 tensors and the spectral ops.

use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi]
pub fn complex(real: f64, imag: f64) -> Result<f64> {
    make(|e| e.complex(id(real), id(imag)))
}

/// `tf.real` (`imag` false) and `tf.imag`.
#[napi]
pub fn complex_part(x: f64, imag: bool) -> Result<f64> {
    make(|e| e.complex_part(id(x), imag))
}

/// `tf.spectral.fft` and `ifft` (`inverse`).
#[napi]
pub fn fft(x: f64, inverse: bool) -> Result<f64> {
    make(|e| e.fft(id(x), inverse))
}

#[napi]
pub fn rfft(x: f64, fft_length: Option<f64>) -> Result<f64> {
    make(|e| e.rfft(id(x), fft_length))
}

#[napi]
pub fn irfft(x: f64) -> Result<f64> {
    make(|e| e.irfft(id(x)))
}
