//! Matrix products.

use super::conv::Epilogue;
use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;

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
