//! tf.signal: the cosine windows, frame and stft.

use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::{PadValue, StftWindow};

/// tfjs's `cosineWindow` (tf.signal's Hann and Hamming windows).
#[napi]
pub fn cosine_window(window_length: f64, a: f64, b: f64) -> Result<f64> {
    make(|e| e.cosine_window(window_length, a, b))
}

#[napi]
pub fn frame(
    signal: f64,
    frame_length: f64,
    frame_step: f64,
    pad_end: bool,
    pad_value: Either<f64, String>,
) -> Result<f64> {
    let pad = match pad_value {
        Either::A(v) => PadValue::Number(v),
        Either::B(s) => PadValue::String(s.into_bytes()),
    };
    make(|e| e.frame(id(signal), frame_length, frame_step, pad_end, &pad))
}

/// `window`: "hann", "hamming", or the id of the window tensor.
#[napi]
pub fn stft(
    signal: f64,
    frame_length: f64,
    frame_step: f64,
    fft_length: Option<f64>,
    window: Either<String, f64>,
) -> Result<f64> {
    let window = match window {
        Either::A(name) if name == "hamming" => StftWindow::Hamming,
        Either::A(_) => StftWindow::Hann,
        Either::B(t) => StftWindow::Tensor(id(t)),
    };
    make(|e| e.stft(id(signal), frame_length, frame_step, fft_length, window))
}
