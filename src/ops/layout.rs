//! Shapes and indexing: clone, reshape, expandDims, squeeze, transpose, concat, stack, slice,
//! gather, and the layout ops tfjs composes (tile, pad, split, stridedSlice ...).

use crate::{engine, id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::{strided_slice_spec, validate_scatter, validate_update_shape, SliceMasks, Splits};
use tidytensor_core::TensorId;

#[napi]
pub fn clone(x: f64) -> Result<f64> {
    make(|e| e.clone_tensor(id(x)))
}

#[napi]
pub fn reshape(x: f64, shape: Vec<i64>) -> Result<f64> {
    make(|e| e.reshape(id(x), &shape))
}

#[napi]
pub fn expand_dims(x: f64, axis: i64) -> Result<f64> {
    make(|e| e.expand_dims(id(x), axis))
}

#[napi]
pub fn squeeze(x: f64, axes: Option<Vec<i64>>) -> Result<f64> {
    make(|e| e.squeeze(id(x), axes.as_deref()))
}

/// `tf.transpose`; `conjugate` negates a complex tensor's imaginary parts.
#[napi]
pub fn transpose(x: f64, perm: Option<Vec<i64>>, conjugate: Option<bool>) -> Result<f64> {
    if conjugate == Some(true) {
        make(|e| e.conjugate_transpose(id(x), perm.as_deref()))
    } else {
        make(|e| e.transpose(id(x), perm.as_deref()))
    }
}

#[napi]
pub fn concat(xs: Vec<f64>, axis: i64) -> Result<f64> {
    let ids: Vec<_> = xs.into_iter().map(id).collect();
    make(|e| e.concat(&ids, axis))
}

#[napi]
pub fn stack(xs: Vec<f64>, axis: i64) -> Result<f64> {
    let ids: Vec<_> = xs.into_iter().map(id).collect();
    make(|e| e.stack(&ids, axis))
}

/// `tf.slice`: begin and size as tfjs's `parseSliceParams` reads them (shorter than the rank,
/// -1 sizes).
#[napi]
pub fn slice(x: f64, begin: Vec<f64>, size: Vec<f64>) -> Result<f64> {
    make(|e| e.slice_params(id(x), &begin, &size))
}

/// `tf.scatterND` (no base) and `tf.tensorScatterUpdate` on rows (see `Engine::scatter_rows`).
#[napi]
pub fn scatter_rows(base: Option<f64>, rows: f64, updates: f64, num_rows: f64) -> Result<f64> {
    make(|e| e.scatter_rows(base.map(id), id(rows), id(updates), num_rows as usize))
}

#[napi]
pub fn gather(x: f64, indices: f64, axis: i64, batch_dims: i64) -> Result<f64> {
    make(|e| e.gather(id(x), id(indices), axis, batch_dims))
}

/// Several tensors' ids, for JavaScript to wrap (`wrapId` reads each one's shape).
pub(super) fn ids(
    f: impl FnOnce(&mut tidytensor_core::Engine) -> tidytensor_core::Result<Vec<TensorId>>,
) -> Result<Vec<f64>> {
    engine(|e| Ok(f(e)?.into_iter().map(|t| t as f64).collect()))
}

/// `[before, after]` pairs from a flat list.
fn pairs(v: &[f64]) -> Vec<[f64; 2]> {
    v.chunks(2).map(|c| [c[0], c.get(1).copied().unwrap_or(f64::NAN)]).collect()
}

/// `masks`: begin, end, ellipsis, new axis, shrink axis (tfjs's argument order).
#[napi]
pub fn strided_slice(
    x: f64,
    begin: Vec<f64>,
    end: Vec<f64>,
    strides: Option<Vec<f64>>,
    masks: Vec<i32>,
) -> Result<f64> {
    let masks = slice_masks(&masks);
    make(|e| e.strided_slice(id(x), &begin, &end, strides.as_deref(), masks))
}

/// Five masks from JavaScript (missing ones 0).
fn slice_masks(m: &[i32]) -> SliceMasks {
    SliceMasks::new(std::array::from_fn(|i| m.get(i).copied().unwrap_or(0)))
}

#[napi]
pub fn tile(x: f64, reps: Vec<f64>) -> Result<f64> {
    make(|e| e.tile(id(x), &reps))
}

/// `tf.broadcastTo`.
#[napi]
pub fn broadcast_to(x: f64, shape: Vec<f64>) -> Result<f64> {
    make(|e| e.broadcast_to_shape(id(x), &shape))
}

#[napi]
pub fn reverse(x: f64, axes: Option<Vec<i64>>) -> Result<f64> {
    make(|e| e.reverse(id(x), axes.as_deref()))
}

/// `tf.pad`: `paddings` as a flat list of `[before, after]` pairs.
#[napi]
pub fn pad(x: f64, paddings: Vec<f64>, value: f64) -> Result<f64> {
    make(|e| e.pad(id(x), &pairs(&paddings), value))
}

#[napi]
pub fn mirror_pad(x: f64, paddings: Vec<f64>, mode: String) -> Result<f64> {
    make(|e| e.mirror_pad(id(x), &pairs(&paddings), &mode))
}

/// `tf.split` into `count` equal parts, or parts of `sizes`.
#[napi]
pub fn split(x: f64, count: Option<f64>, sizes: Option<Vec<f64>>, axis: f64) -> Result<Vec<f64>> {
    let splits = match (count, sizes) {
        (_, Some(v)) => Splits::Sizes(v),
        (c, None) => Splits::Count(c.unwrap_or(f64::NAN)),
    };
    ids(|e| e.split(id(x), splits, axis))
}

#[napi]
pub fn unstack(x: f64, axis: f64) -> Result<Vec<f64>> {
    ids(|e| e.unstack(id(x), axis))
}

#[napi(js_name = "gatherND")]
pub fn gather_nd(x: f64, indices: f64) -> Result<f64> {
    make(|e| e.gather_nd(id(x), id(indices)))
}

#[napi(js_name = "spaceToBatchND")]
pub fn space_to_batch_nd(x: f64, block: Vec<f64>, paddings: Vec<f64>) -> Result<f64> {
    make(|e| e.space_to_batch_nd(id(x), &block, &pairs(&paddings)))
}

#[napi(js_name = "batchToSpaceND")]
pub fn batch_to_space_nd(x: f64, block: Vec<f64>, crops: Vec<f64>) -> Result<f64> {
    make(|e| e.batch_to_space_nd(id(x), &block, &pairs(&crops)))
}

#[napi]
pub fn depth_to_space(x: f64, block_size: f64, data_format: String) -> Result<f64> {
    make(|e| e.depth_to_space(id(x), block_size, &data_format))
}

#[napi]
pub fn broadcast_args(s0: f64, s1: f64) -> Result<f64> {
    make(|e| e.broadcast_args(id(s0), id(s1)))
}

#[napi(js_name = "scatterND")]
pub fn scatter_nd(indices: f64, updates: f64, shape: Vec<f64>) -> Result<f64> {
    make(|e| e.scatter_nd(id(indices), id(updates), &shape))
}

#[napi]
pub fn tensor_scatter_update(tensor: f64, indices: f64, updates: f64) -> Result<f64> {
    make(|e| e.tensor_scatter_update(id(tensor), id(indices), id(updates)))
}

#[napi]
pub fn sparse_to_dense(indices: f64, values: f64, shape: Vec<f64>, default_value: f64) -> Result<f64> {
    make(|e| e.sparse_to_dense(id(indices), id(values), &shape, id(default_value)))
}

/// TensorFlow's strided-slice spec made dense (`tf.slice_util.sliceInfo`; the core's one copy).
#[napi(object)]
pub struct SliceInfo {
    pub final_shape_sparse: Vec<f64>,
    pub final_shape: Vec<f64>,
    pub is_identity: bool,
    pub slice_dim0: bool,
    pub is_simple_slice: bool,
    pub begin: Vec<f64>,
    pub end: Vec<f64>,
    pub strides: Vec<f64>,
}

/// `shape`: -1 for an unknown dimension; the values unchecked (tfjs's sliceInfo).
#[napi]
pub fn slice_info(
    shape: Vec<i64>,
    begin: Vec<f64>,
    end: Vec<f64>,
    strides: Option<Vec<f64>>,
    masks: Vec<i32>,
) -> Result<SliceInfo> {
    let s = strided_slice_spec(&shape, &begin, &end, strides.as_deref(), slice_masks(&masks), false)
        .map_err(|e| Error::from_reason(e.to_string()))?;
    Ok(SliceInfo {
        final_shape_sparse: s.final_shape_sparse,
        final_shape: s.final_shape,
        is_identity: s.is_identity,
        slice_dim0: s.slice_dim0,
        is_simple_slice: s.is_simple_slice,
        begin: s.begin,
        end: s.end,
        strides: s.strides,
    })
}

/// `tf.slice_util.parseSliceParams` on a shape: the begin and size `tf.slice` runs with.
#[napi]
pub fn parse_slice_params(shape: Vec<u32>, begin: Vec<f64>, size: Vec<f64>) -> Result<Vec<Vec<f64>>> {
    let shape: Vec<usize> = shape.into_iter().map(|d| d as usize).collect();
    let (b, s) = tidytensor_core::ops::parse_slice_params(&shape, &begin, &size)
        .map_err(|e| Error::from_reason(e.to_string()))?;
    let list = |v: Vec<i64>| v.into_iter().map(|d| d as f64).collect();
    Ok(vec![list(b), list(s)])
}

/// `tf.scatter_util.validateInput` (`indices_dtype` given) or `validateUpdateShape` on shapes
/// (the core's checks of scatterND): the slice dimension.
#[napi]
pub fn scatter_validate(
    updates_shape: Vec<u32>,
    indices_shape: Vec<u32>,
    indices_dtype: Option<String>,
    shape: Vec<u32>,
) -> Result<u32> {
    let dims = |v: &[u32]| v.iter().map(|&d| d as usize).collect::<Vec<usize>>();
    let (us, is, s) = (dims(&updates_shape), dims(&indices_shape), dims(&shape));
    let r = match indices_dtype {
        Some(d) => tidytensor_core::DType::parse(&d).and_then(|d| validate_scatter(&us, &is, d, &s)),
        None => validate_update_shape(&us, &is, &s),
    };
    r.map(|d| d as u32).map_err(|e| Error::from_reason(e.to_string()))
}
