//! Matrix products.

use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi]
pub fn mat_mul(a: f64, b: f64, transpose_a: bool, transpose_b: bool) -> Result<f64> {
    make(|e| e.matmul(id(a), id(b), transpose_a, transpose_b))
}
