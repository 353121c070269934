//! Matrix products.

use super::conv::Epilogue;
use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::EinsumSpec;

#[napi]
pub fn mat_mul(a: f64, b: f64, transpose_a: bool, transpose_b: bool, epilogue: Option<Epilogue>) -> Result<f64> {
    make(|e| match epilogue.as_ref().map(Epilogue::fused).transpose()? {
        Some(f) => e.fused_matmul(id(a), id(b), transpose_a, transpose_b, &f),
        None => e.matmul(id(a), id(b), transpose_a, transpose_b),
    })
}

#[napi]
pub fn band_part(a: f64, num_lower: f64, num_upper: f64) -> Result<f64> {
    make(|e| e.band_part(id(a), num_lower, num_upper))
}

#[napi]
pub fn einsum(equation: String, tensors: Vec<f64>) -> Result<f64> {
    let ids: Vec<_> = tensors.into_iter().map(id).collect();
    make(|e| e.einsum(&equation, &ids))
}

fn js_err(e: tidytensor_core::Error) -> Error {
    Error::from_reason(e.to_string())
}

/// tf.backend_util's `decodeEinsumEquation`: the core's decoding, the one tf.einsum runs.
#[napi(object)]
pub struct EinsumDecoded {
    pub all_dims: Vec<String>,
    pub summed_dims: Vec<u32>,
    pub id_dims: Vec<Vec<u32>>,
}

#[napi]
pub fn decode_einsum_equation(equation: String, num_tensors: u32) -> Result<EinsumDecoded> {
    let s = EinsumSpec::decode(&equation, num_tensors as usize).map_err(js_err)?;
    let list = |v: &[usize]| v.iter().map(|&d| d as u32).collect::<Vec<u32>>();
    Ok(EinsumDecoded {
        all_dims: s.labels.iter().map(char::to_string).collect(),
        summed_dims: list(&s.summed),
        id_dims: s.ids.iter().map(|ids| list(ids)).collect(),
    })
}

/// A spec of `n_dims` labels with the inputs' label positions `id_dims` (tf.backend_util's
/// einsum helpers take these two, not the equation).
fn einsum_spec(n_dims: u32, id_dims: Vec<Vec<u32>>) -> EinsumSpec {
    EinsumSpec {
        labels: vec!['?'; n_dims as usize],
        summed: Vec::new(),
        ids: id_dims.into_iter().map(|ids| ids.into_iter().map(|d| d as usize).collect()).collect(),
    }
}

/// tf.backend_util's `checkEinsumDimSizes`, on the inputs' shapes.
#[napi]
pub fn check_einsum_dim_sizes(n_dims: u32, id_dims: Vec<Vec<u32>>, shapes: Vec<Vec<u32>>) -> Result<()> {
    let shapes: Vec<Vec<usize>> = shapes.into_iter().map(|s| s.into_iter().map(|d| d as usize).collect()).collect();
    einsum_spec(n_dims, id_dims).dim_sizes(&shapes).map(|_| ()).map_err(js_err)
}

#[napi(object)]
pub struct EinsumPermutation {
    pub permutation_indices: Vec<u32>,
    pub expand_dims: Vec<u32>,
}

/// tf.backend_util's `getEinsumPermutation`: how one input is laid out over all labels.
#[napi]
pub fn get_einsum_permutation(n_dims: u32, id_dims: Vec<u32>) -> EinsumPermutation {
    let (perm, expand) = einsum_spec(n_dims, vec![id_dims]).permutation(0);
    let list = |v: Vec<usize>| v.into_iter().map(|d| d as u32).collect();
    EinsumPermutation { permutation_indices: list(perm), expand_dims: list(expand) }
}

#[napi]
pub fn dot(t1: f64, t2: f64) -> Result<f64> {
    make(|e| e.dot(id(t1), id(t2)))
}

#[napi]
pub fn outer_product(v1: f64, v2: f64) -> Result<f64> {
    make(|e| e.outer_product(id(v1), id(v2)))
}

/// `num_classes`: the number given (NaN for a value that is not a number), `shown` its text.
#[napi]
pub fn confusion_matrix(labels: f64, predictions: f64, num_classes: Option<f64>, shown: String) -> Result<f64> {
    make(|e| e.confusion_matrix(id(labels), id(predictions), num_classes, &shown))
}

/// `tf.linalg.gramSchmidt` of a tensor (`list` false: `xs` is one id) or of a list of tensors.
#[napi]
pub fn gram_schmidt(xs: Vec<f64>, list: bool) -> Result<Vec<f64>> {
    let ids: Vec<_> = xs.into_iter().map(id).collect();
    super::layout::ids(|e| {
        if list {
            e.gram_schmidt_list(&ids)
        } else {
            Ok(vec![e.gram_schmidt(ids.first().copied().unwrap_or(0))?])
        }
    })
}

#[napi]
pub fn qr(x: f64, full_matrices: bool) -> Result<Vec<f64>> {
    super::layout::ids(|e| e.qr(id(x), full_matrices))
}

#[napi]
pub fn basic_lstm_cell(
    forget_bias: f64,
    lstm_kernel: f64,
    lstm_bias: f64,
    data: f64,
    c: f64,
    h: f64,
) -> Result<Vec<f64>> {
    super::layout::ids(|e| e.basic_lstm_cell(id(forget_bias), id(lstm_kernel), id(lstm_bias), id(data), id(c), id(h)))
}
