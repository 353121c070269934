//! tf.image: resizes, crops, transforms, the colour conversions and threshold.

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

/// `tf.image.cropAndResize`.
#[napi]
pub fn crop_and_resize(
    image: f64,
    boxes: f64,
    box_ind: f64,
    crop_size: Vec<f64>,
    method: String,
    extrapolation_value: f64,
) -> Result<f64> {
    make(|e| e.crop_and_resize(id(image), id(boxes), id(box_ind), &crop_size, &method, extrapolation_value))
}

#[napi]
pub fn transform(
    image: f64,
    transforms: f64,
    interpolation: String,
    fill_mode: String,
    fill_value: f64,
    output_shape: Option<Vec<f64>>,
) -> Result<f64> {
    make(|e| e.transform(id(image), id(transforms), &interpolation, &fill_mode, fill_value, output_shape.as_deref()))
}

/// `tf.image.rotateWithOffset`: `fill` one value, or one per channel.
#[napi]
pub fn rotate_with_offset(image: f64, radians: f64, fill: Vec<f64>, center_x: f64, center_y: f64) -> Result<f64> {
    make(|e| e.rotate_with_offset(id(image), radians, &fill, [center_x, center_y]))
}

#[napi(js_name = "grayscaleToRGB")]
pub fn grayscale_to_rgb(image: f64) -> Result<f64> {
    make(|e| e.grayscale_to_rgb(id(image)))
}

#[napi(js_name = "rgbToGrayscale")]
pub fn rgb_to_grayscale(image: f64) -> Result<f64> {
    make(|e| e.rgb_to_grayscale(id(image)))
}

/// `tf.image.threshold` (`method`: 'binary' or 'otsu').
#[napi]
pub fn threshold(image: f64, method: String, inverted: bool, thresh_value: f64) -> Result<f64> {
    make(|e| e.threshold(id(image), &method, inverted, thresh_value))
}
