//! `tf.string` (crates/core/src/ops/string_ops.rs).

use super::layout::ids;
use crate::{id, make};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tidytensor_core::ops::NGrams;

/// The n-grams and their splits. `widths` and `pad_width` as TensorFlow's int32 attributes.
#[napi(js_name = "stringNGrams")]
#[allow(clippy::too_many_arguments)]
pub fn string_ngrams(
    data: f64,
    splits: f64,
    separator: String,
    widths: Vec<f64>,
    left_pad: String,
    right_pad: String,
    pad_width: f64,
    preserve_short: bool,
) -> Result<Vec<f64>> {
    let int32 = |v: f64| (v as i64).clamp(i32::MIN as i64, i32::MAX as i64);
    let p = NGrams {
        separator: separator.into_bytes(),
        widths: widths.into_iter().map(int32).collect(),
        left_pad: left_pad.into_bytes(),
        right_pad: right_pad.into_bytes(),
        pad_width: int32(pad_width),
        preserve_short,
    };
    ids(|e| e.string_ngrams(id(data), id(splits), &p))
}

/// The tokens as a sparse tensor: indices, values, shape.
#[napi]
pub fn string_split(input: f64, delimiter: f64, skip_empty: bool) -> Result<Vec<f64>> {
    ids(|e| e.string_split(id(input), id(delimiter), skip_empty))
}

#[napi]
pub fn string_to_hash_bucket_fast(input: f64, num_buckets: f64) -> Result<f64> {
    make(|e| e.string_to_hash_bucket_fast(id(input), num_buckets))
}

#[napi]
pub fn static_regex_replace(input: f64, pattern: String, rewrite: String, replace_global: bool) -> Result<f64> {
    make(|e| e.static_regex_replace(id(input), &pattern, &rewrite, replace_global))
}

/// `tf.util.fingerPrint64` of the first `len` bytes (zeros past the end, as tfjs reads them):
/// `[high, low]` 32-bit halves.
#[napi]
pub fn fingerprint64(bytes: &[u8], len: u32) -> Vec<u32> {
    let len = len as usize;
    let h = if len <= bytes.len() {
        tidytensor_core::fingerprint::fingerprint64(&bytes[..len])
    } else {
        let mut padded = bytes.to_vec();
        padded.resize(len, 0);
        tidytensor_core::fingerprint::fingerprint64(&padded)
    };
    vec![(h >> 32) as u32, h as u32]
}
