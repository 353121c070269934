//! tfjs-converter's `image_executor.ts`.

use super::{not_here, Ctx};
use tidytensor_core::ops::Resize;
use tidytensor_core::{bail, DType, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] =
    &["ResizeBilinear", "ResizeNearestNeighbor", "CropAndResize", "ImageProjectiveTransformV3"];

/// The checks of `lib/ops/image.js`'s `resizeArgs`.
fn resize(e: &mut Engine, c: &Ctx, method: Resize) -> Result<TensorId> {
    let name = if method == Resize::Bilinear { "resizeBilinear" } else { "resizeNearestNeighbor" };
    let x = c.t(0)?;
    let rank = e.shape(x)?.len();
    if rank != 3 && rank != 4 {
        bail!("Error in {name}: x must be rank 3 or 4, but got rank {rank}.");
    }
    let size = c.nums(e, 1)?;
    if size.len() != 2 {
        bail!("Error in {name}: new shape must 2D, but got shape {}.", super::js_list(&size));
    }
    let (align, half) = (c.attrs().bool("align_corners", false), c.attrs().bool("half_pixel_centers", false));
    if align && half {
        bail!("Error in {name}: If halfPixelCenters is true, alignCorners must be false.");
    }
    if !size.iter().all(|&d| d >= 0.0 && d.fract() == 0.0 && d < 4294967296.0) {
        bail!("Error in {name}: the new size must be non-negative integers, but got {}.", super::js_list(&size));
    }
    if method == Resize::NearestNeighbor && !matches!(e.dtype(x)?, DType::Float32 | DType::Int32) {
        bail!("`images` must have `int32` or `float32` as dtype");
    }
    e.resize(method, x, [size[0] as usize, size[1] as usize], align, half)
}

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    Ok(vec![match op {
        "ResizeBilinear" => resize(e, c, Resize::Bilinear)?,
        "ResizeNearestNeighbor" => resize(e, c, Resize::NearestNeighbor)?,
        "CropAndResize" => {
            let size = c.nums(e, 3)?;
            let a = c.attrs();
            let method = a.string("method").unwrap_or_default();
            let extrapolation = a.number("extrapolation_value", 0.0);
            e.crop_and_resize(c.t(0)?, c.t(1)?, c.t(2)?, &size, &method, extrapolation)?
        }
        "ImageProjectiveTransformV3" => {
            let a = c.attrs();
            let interpolation = a.string("interpolation").unwrap_or_default();
            let fill_mode = a.string("fill_mode").unwrap_or_default();
            let shape = c.nums(e, 2)?;
            e.transform(c.t(0)?, c.t(1)?, &interpolation, &fill_mode, c.num(e, 3)?, Some(&shape))?
        }
        _ => return not_here(op),
    }])
}
