//! tfjs-converter's `string_executor.ts`: tf.string's n-grams, splitting, hashing and regex
//! replacement (the core's `ops/string_ops.rs`). The string attributes arrive lower-cased, as
//! tfjs reads them.

use super::{not_here, Ctx};
use tidytensor_core::ops::NGrams;
use tidytensor_core::{Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &["StaticRegexReplace", "StringNGrams", "StringSplit", "StringToHashBucketFast"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    match op {
        "StringNGrams" => {
            // Widths and padding kept to int32, as TensorFlow's attributes.
            let int32 = |v: f64| (v as i64).clamp(i32::MIN as i64, i32::MAX as i64);
            let widths = a.numbers("ngram_widths").unwrap_or_default();
            let params = NGrams {
                separator: a.string("separator").unwrap_or_default().into_bytes(),
                widths: widths.iter().map(|&w| int32(w)).collect(),
                left_pad: a.string("left_pad").unwrap_or_default().into_bytes(),
                right_pad: a.string("right_pad").unwrap_or_default().into_bytes(),
                pad_width: int32(a.number("pad_width", f64::NAN)),
                preserve_short: a.bool("preserve_short_sequences", false),
            };
            e.string_ngrams(c.t(0)?, c.t(1)?, &params)
        }
        "StringSplit" => e.string_split(c.t(0)?, c.t(1)?, a.bool("skip_empty", true)),
        "StringToHashBucketFast" => Ok(vec![e.string_to_hash_bucket_fast(c.t(0)?, a.number("num_buckets", f64::NAN))?]),
        "StaticRegexReplace" => {
            // (tfjs's new RegExp(undefined) matches the empty string.)
            let pattern = a.string("pattern").unwrap_or_default();
            let rewrite = a.string("rewrite").unwrap_or_else(|| "undefined".into());
            Ok(vec![e.static_regex_replace(c.t(0)?, &pattern, &rewrite, a.bool("replace_global", true))?])
        }
        _ => not_here(op),
    }
}
