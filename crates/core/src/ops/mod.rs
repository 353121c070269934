//! Op front-ends, one file per family: argument checks, output shapes and dtypes (the tfjs
//! 4.22 rules and error texts), then one kernel call through the engine's funnel
//! ([`crate::Engine::run_kernel`]). A kernel never sees invalid input.

mod complex;
mod conv;
mod creation;
mod creation_composed;
mod dynamic;
mod elementwise;
mod fused;
mod image;
mod layout;
mod layout_composed;
mod losses;
mod matmul;
mod matmul_composed;
mod ragged;
mod reduce;
mod reduce_composed;
mod signal;
mod sparse;
mod string_ops;
mod strings;

pub use conv::{check_pad_rounding, window_info, ConvKind, Padding, PoolKind, Rounding, Window, WindowInfo};
pub use creation::Random;
pub use dynamic::{nms_select, Nms, NmsOutputs};
pub use elementwise::BitOp;
pub use fused::Fused;
pub use image::Resize;
pub use layout_composed::{
    parse_slice_params, strided_slice_spec, validate_scatter, validate_update_shape, SliceMasks, SliceSpec, Splits,
};
pub use losses::{PairLoss, Reduction};
pub use matmul::EinsumSpec;
pub use reduce_composed::NormOrd;
pub use signal::{enclosing_power_of_two, PadValue, StftWindow};
pub use string_ops::NGrams;
pub(crate) use strings::strings_in;
pub use strings::Strings;

use crate::engine::Input;
use crate::{bail, Backend, DType, Result, Storage, View};

/// tfjs's `convertToTensor(..., 'float32')` check.
pub(crate) fn require_dtype(op: &str, arg: &str, want: DType, got: DType) -> Result<()> {
    if want != got {
        bail!("Argument '{arg}' passed to '{op}' must be {} tensor, but got {} tensor", want.name(), got.name());
    }
    Ok(())
}

/// Storage for `x` converted to `dtype`: `None` when it already has that dtype.
pub(crate) fn cast_if(backend: &dyn Backend, x: &Input, dtype: DType) -> Result<Option<Box<dyn Storage>>> {
    if x.dtype == dtype {
        Ok(None)
    } else {
        backend.cast(x.view(), dtype).map(Some)
    }
}

/// A view of `x`, or of its converted copy when there is one.
pub(crate) fn view_of<'a>(
    x: &'a Input,
    converted: &'a Option<Box<dyn Storage>>,
    shape: &'a [usize],
    dtype: DType,
) -> View<'a> {
    View { storage: converted.as_deref().unwrap_or(&*x.data.storage), shape, dtype }
}

/// `shape` with leading 1s up to `rank` (borrowed when it already has that rank).
pub(crate) fn pad_rank(shape: &[usize], rank: usize) -> std::borrow::Cow<'_, [usize]> {
    if shape.len() == rank {
        return std::borrow::Cow::Borrowed(shape);
    }
    let mut v = vec![1; rank - shape.len()];
    v.extend_from_slice(shape);
    std::borrow::Cow::Owned(v)
}
