//! tfjs-converter's `string_executor.ts`: tf.string's n-grams, splitting, hashing and regex
//! replacement over the bytes of string tensors, with tfjs's checks and texts (the same as
//! `lib/ops/string.js`). The string attributes arrive lower-cased, as tfjs reads them.

use super::{not_here, values, Ctx};
use tidytensor_core::{bail, DType, Engine, HostData, Result, TensorId};

pub(crate) const OPS: &[&str] = &["StaticRegexReplace", "StringNGrams", "StringSplit", "StringToHashBucketFast"];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    match op {
        "StringNGrams" => {
            // Widths and padding kept to int32, as TensorFlow's attributes: no overflow below.
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
            ngrams(e, c, &params)
        }
        "StringSplit" => split(e, c, a.bool("skip_empty", true)),
        "StringToHashBucketFast" => {
            let x = string_input(e, c, 0, "input", "stringToHashBucketFast")?;
            let buckets = a.number("num_buckets", f64::NAN);
            // (A fraction below 1 is a bucket count of 0 to tfjs's Long: a division by zero.)
            if buckets.is_nan() || buckets < 1.0 {
                bail!("Number of buckets must be at least 1");
            }
            let shape = e.shape(x)?.to_vec();
            let out = e.read_strings(x)?.iter().map(|s| (farmhash::fingerprint64(s) % buckets as u64) as i32).collect();
            Ok(vec![e.tensor(HostData::I32(out), &shape)?])
        }
        "StaticRegexReplace" => {
            let x = string_input(e, c, 0, "input", "staticRegexReplace")?;
            let pattern = a.string("pattern").unwrap_or_else(|| "undefined".into());
            let rewrite = js_rewrite(&a.string("rewrite").unwrap_or_else(|| "undefined".into()));
            let global = a.bool("replace_global", true);
            let re = regex::Regex::new(&pattern).map_err(|err| {
                tidytensor_core::Error::new(format!("Invalid regular expression: /{pattern}/: {err}"))
            })?;
            let shape = e.shape(x)?.to_vec();
            let out = e
                .read_strings(x)?
                .iter()
                .map(|s| {
                    let s = String::from_utf8_lossy(s);
                    let limit = if global { 0 } else { 1 };
                    re.replacen(&s, limit, rewrite.as_str()).into_owned().into_bytes()
                })
                .collect();
            Ok(vec![e.strings(out, &shape)?])
        }
        _ => not_here(op),
    }
}

/// Input `i`, which must be a string tensor (tfjs's `convertToTensor(x, name, op, 'string')`).
fn string_input(e: &Engine, c: &Ctx, i: isize, name: &str, op: &str) -> Result<TensorId> {
    let id = c.t(i)?;
    let dtype = e.dtype(id)?;
    if dtype != DType::String {
        bail!("Argument '{name}' passed to '{op}' must be string tensor, but got {} tensor", dtype.name());
    }
    Ok(id)
}

/// A JavaScript replacement string (`$&`, `$1`, `$$`) in the regex crate's syntax.
fn js_rewrite(rewrite: &str) -> String {
    let mut out = String::with_capacity(rewrite.len());
    let mut chars = rewrite.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, chars.peek().copied()) {
            ('$', Some('$')) => {
                chars.next();
                out.push_str("$$");
            }
            ('$', Some('&')) => {
                chars.next();
                out.push_str("${0}");
            }
            ('$', Some(d)) if d.is_ascii_digit() && d != '0' => {
                let mut group = String::new();
                while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit() && group.len() < 2) {
                    group.push(d);
                    chars.next();
                }
                out.push_str(&format!("${{{group}}}"));
            }
            ('$', _) => out.push_str("$$"),
            (ch, _) => out.push(ch),
        }
    }
    out
}

struct NGrams {
    separator: Vec<u8>,
    widths: Vec<i64>,
    left_pad: Vec<u8>,
    right_pad: Vec<u8>,
    pad_width: i64,
    preserve_short: bool,
}

/// The n-grams of each row of a ragged batch of tokens (`data` split at `dataSplits`), padded
/// and joined with the separator as TensorFlow's StringNGrams op; the n-grams and their splits.
fn ngrams(e: &mut Engine, c: &Ctx, p: &NGrams) -> Result<Vec<TensorId>> {
    let (d, s) = (c.t(0)?, c.t(1)?);
    if e.dtype(d)? != DType::String {
        bail!("Data must be of datatype string");
    }
    let ds = e.shape(d)?.to_vec();
    if ds.len() != 1 {
        bail!("Data must be a vector, saw: {}", ds.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","));
    }
    if e.dtype(s)? != DType::Int32 {
        bail!("Data splits must be of datatype int32");
    }
    let data = e.read_strings(d)?;
    let splits: Vec<i64> = values(e, s)?.into_iter().map(|v| v as i64).collect();
    let n = data.len() as i64;
    if let Some(&first) = splits.first() {
        if first != 0 {
            bail!("First split value must be 0, got {first}");
        }
        let mut prev = first;
        for &v in &splits[1..] {
            if !(v >= prev && v <= n) {
                bail!("Invalid split value {v}, must be in [{prev}, {n}]");
            }
            prev = v;
        }
        if prev != n {
            bail!("Last split value must be data size. Expected {n}, got {prev}");
        }
    }
    let rows = splits.len().saturating_sub(1);
    let mut out_splits = vec![0i32; splits.len()];
    let finish = |e: &mut Engine, grams: Vec<Vec<u8>>, out_splits: Vec<i32>| -> Result<Vec<TensorId>> {
        let (g, k) = (grams.len(), out_splits.len());
        Ok(vec![e.strings(grams, &[g])?, e.tensor(HostData::I32(out_splits), &[k])?])
    };
    if n == 0 || splits.is_empty() {
        return finish(e, vec![Vec::new(); n as usize], out_splits);
    }
    let pad_of = |w: i64| (if p.pad_width < 0 { w - 1 } else { p.pad_width }).min(w - 1);
    let count = |len: i64, w: i64| (len + 2 * pad_of(w) - w + 1).max(0);
    // How many n-grams, and how many pieces they join: refused, not made, when the widths or
    // padding ask for more than a tensor can hold.
    let (mut total, mut pieces) = (0i64, 0i64);
    for i in 1..=rows {
        let len = splits[i] - splits[i - 1];
        let mut k: i64 = 0;
        for &w in &p.widths {
            let c = count(len, w);
            k = k.saturating_add(c);
            pieces = pieces.saturating_add(c.saturating_mul(w.max(0)));
        }
        if p.preserve_short && len > 0 && k == 0 {
            k = 1;
            pieces = pieces.saturating_add(len.saturating_add(p.pad_width.saturating_mul(2)).max(0));
        }
        total = total.saturating_add(k);
        if total > i32::MAX as i64 {
            bail!("StringNGrams would make more than {} n-grams", i32::MAX);
        }
        out_splits[i] = total as i32;
    }
    e.check_size(&[total as usize], DType::Int32)?;
    e.check_size(&[usize::try_from(pieces).unwrap_or(usize::MAX)], DType::Int32)?;
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(out_splits[rows].max(0) as usize);
    // The `num` n-grams of width `w` of the row starting at `start`.
    let make = |out: &mut Vec<Vec<u8>>, start: i64, num: i64, w: i64| {
        let pad = pad_of(w);
        for g in 0..num {
            let left = (pad - g).max(0);
            let right = (pad - (num - (g + 1))).max(0);
            let tokens = w - (left + right);
            let from = start + if left > 0 { 0 } else { g - pad };
            let mut parts: Vec<&[u8]> = Vec::new();
            parts.extend((0..left).map(|_| p.left_pad.as_slice()));
            parts.extend((0..tokens).map(|k| data[(from + k) as usize].as_slice()));
            parts.extend((0..right).map(|_| p.right_pad.as_slice()));
            out.push(parts.join(p.separator.as_slice()));
        }
    };
    for i in 0..rows {
        let before = out.len();
        let len = splits[i + 1] - splits[i];
        for &w in &p.widths {
            make(&mut out, splits[i], count(len, w), w);
        }
        if p.preserve_short && out.len() == before && len > 0 {
            make(&mut out, splits[i], 1, len + 2 * p.pad_width);
        }
    }
    finish(e, out, out_splits)
}

/// Splits each string of a vector at any byte of the delimiter (each byte when it is empty);
/// the tokens as a sparse [batch, maxTokens] tensor: indices, values, shape.
fn split(e: &mut Engine, c: &Ctx, skip_empty: bool) -> Result<Vec<TensorId>> {
    let x = string_input(e, c, 0, "input", "stringSplit")?;
    let del = string_input(e, c, 1, "delimiter", "stringSplit")?;
    let (xs, dls) = (e.shape(x)?.to_vec(), e.shape(del)?.to_vec());
    let text = |s: &[usize]| s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
    if xs.len() != 1 {
        bail!("Input should be Tensor1D but received shape {}", text(&xs));
    }
    if !dls.is_empty() {
        bail!("Delimiter should be a scalar but received shape {}", text(&dls));
    }
    let delims = e.read_strings(del)?.into_iter().next().unwrap_or_default();
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    let mut indices: Vec<i32> = Vec::new();
    let mut widest = 0;
    let inputs = e.read_strings(x)?;
    for (i, s) in inputs.iter().enumerate() {
        let before = tokens.len();
        if delims.is_empty() {
            tokens.extend(s.iter().map(|&b| vec![b]));
        } else if !s.is_empty() {
            let mut start = 0;
            for j in 0..=s.len() {
                if j == s.len() || delims.contains(&s[j]) {
                    if !skip_empty || j > start {
                        tokens.push(s[start..j].to_vec());
                    }
                    start = j + 1;
                }
            }
        }
        let k = tokens.len() - before;
        widest = widest.max(k);
        for j in 0..k {
            indices.extend([i as i32, j as i32]);
        }
    }
    let n = tokens.len();
    Ok(vec![
        e.tensor(HostData::I32(indices), &[n, 2])?,
        e.strings(tokens, &[n])?,
        e.tensor(HostData::I32(vec![inputs.len() as i32, widest as i32]), &[2])?,
    ])
}

#[cfg(test)]
mod tests {
    use super::js_rewrite;

    #[test]
    fn rewrites_js_replacement_patterns() {
        assert_eq!(js_rewrite("a$1b"), "a${1}b");
        assert_eq!(js_rewrite("$&-$$-$12"), "${0}-$$-${12}");
        assert_eq!(js_rewrite("$x"), "$$x");
    }
}
