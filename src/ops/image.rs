//! Image resizes.

use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::Resize;

/// `tf.image.resizeBilinear` (`bilinear`) and `resizeNearestNeighbor`.
#[napi]
pub fn resize(
    bilinear: bool,
    x: f64,
    height: u32,
    width: u32,
    align_corners: bool,
    half_pixel_centers: bool,
) -> Result<f64> {
    let method = if bilinear { Resize::Bilinear } else { Resize::NearestNeighbor };
    make(|e| e.resize(method, id(x), [height as usize, width as usize], align_corners, half_pixel_centers))
}
