//! `tf.string`: n-grams, splitting, hashing and regex replacement over the bytes of string
//! tensors, on the host as tfjs's kernels run them on every backend, with tfjs's checks and
//! texts. tf.* and the graph executor share them.

use crate::fingerprint::fingerprint64;
use crate::kernels as k;
use crate::{bail, DType, Engine, HostData, Result, TensorId};

/// StringNGrams's attributes.
pub struct NGrams {
    pub separator: Vec<u8>,
    /// The n-gram widths (int32 in TensorFlow: no overflow below).
    pub widths: Vec<i64>,
    pub left_pad: Vec<u8>,
    pub right_pad: Vec<u8>,
    /// Padding tokens per side (-1: width - 1).
    pub pad_width: i64,
    pub preserve_short: bool,
}

/// tfjs's `convertToTensor(x, name, op, 'string')` check.
fn string_input(e: &Engine, x: TensorId, name: &str, op: &str) -> Result<()> {
    let dtype = e.dtype(x)?;
    if dtype != DType::String {
        bail!("Argument '{name}' passed to '{op}' must be string tensor, but got {} tensor", dtype.name());
    }
    Ok(())
}

fn shape_text(s: &[usize]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

impl Engine {
    /// `tf.string.stringNGrams`: the n-grams of each row of a ragged batch of tokens (`data`
    /// split at `splits`), padded and joined with the separator as TensorFlow's StringNGrams;
    /// the n-grams and their row splits.
    pub fn string_ngrams(&mut self, data: TensorId, splits: TensorId, p: &NGrams) -> Result<Vec<TensorId>> {
        if self.dtype(data)? != DType::String {
            bail!("Data must be of datatype string");
        }
        let ds = self.shape(data)?.to_vec();
        if ds.len() != 1 {
            bail!("Data must be a vector, saw: {}", shape_text(&ds));
        }
        if self.dtype(splits)? != DType::Int32 {
            bail!("Data splits must be of datatype int32");
        }
        self.run_kernel_any(k::STRING_NGRAMS, &[data, splits], |e, _, _| ngrams(e, data, splits, p))
    }

    /// `tf.string.stringSplit`: each string of a vector split at any byte of the delimiter
    /// (each byte when it is empty); the tokens as a sparse [batch, maxTokens] tensor: indices,
    /// values, shape.
    pub fn string_split(&mut self, x: TensorId, delimiter: TensorId, skip_empty: bool) -> Result<Vec<TensorId>> {
        string_input(self, x, "input", "stringSplit")?;
        string_input(self, delimiter, "delimiter", "stringSplit")?;
        let (xs, dls) = (self.shape(x)?.to_vec(), self.shape(delimiter)?.to_vec());
        if xs.len() != 1 {
            bail!("Input should be Tensor1D but received shape {}", shape_text(&xs));
        }
        if !dls.is_empty() {
            bail!("Delimiter should be a scalar but received shape {}", shape_text(&dls));
        }
        self.run_kernel_any(k::STRING_SPLIT, &[x, delimiter], |e, _, _| {
            let delims = e.read_strings(delimiter)?.into_iter().next().unwrap_or_default();
            let inputs = e.read_strings(x)?;
            let (mut tokens, mut indices, mut widest) = (Vec::<Vec<u8>>::new(), Vec::<i32>::new(), 0);
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
                let n = tokens.len() - before;
                widest = widest.max(n);
                for j in 0..n {
                    indices.extend([i as i32, j as i32]);
                }
            }
            let n = tokens.len();
            Ok(vec![
                e.tensor(HostData::I32(indices), &[n, 2])?,
                e.strings(tokens, &[n])?,
                e.tensor(HostData::I32(vec![inputs.len() as i32, widest as i32]), &[2])?,
            ])
        })
    }

    /// `tf.string.stringToHashBucketFast`: each string's 64-bit FarmHash fingerprint modulo
    /// `num_buckets`.
    pub fn string_to_hash_bucket_fast(&mut self, x: TensorId, num_buckets: f64) -> Result<TensorId> {
        string_input(self, x, "input", "stringToHashBucketFast")?;
        // (A fraction below 1 is a bucket count of 0 to tfjs's Long: a division by zero.)
        if !(num_buckets >= 1.0) {
            bail!("Number of buckets must be at least 1");
        }
        let buckets = num_buckets.min(u64::MAX as f64) as u64;
        self.run_kernel_any(k::STRING_TO_HASH_BUCKET_FAST, &[x], |e, _, _| {
            let shape = e.shape(x)?.to_vec();
            let out = e.read_strings(x)?.iter().map(|s| (fingerprint64(s) % buckets) as i32).collect();
            e.tensor(HostData::I32(out), &shape)
        })
    }

    /// `tf.string.staticRegexReplace`: JavaScript's `value.replace(new RegExp(pattern, g?),
    /// rewrite)` on each value (an ECMAScript regex engine, and JavaScript's `$` patterns).
    pub fn static_regex_replace(
        &mut self,
        x: TensorId,
        pattern: &str,
        rewrite: &str,
        global: bool,
    ) -> Result<TensorId> {
        string_input(self, x, "input", "staticRegexReplace")?;
        let re = regress::Regex::with_flags(pattern, if global { "g" } else { "" })
            .map_err(|err| crate::Error::new(format!("Invalid regular expression: /{pattern}/: {err}")))?;
        self.run_kernel_any(k::STATIC_REGEX_REPLACE, &[x], |e, _, _| {
            let shape = e.shape(x)?.to_vec();
            let out = e
                .read_strings(x)?
                .iter()
                .map(|s| js_replace(&re, &String::from_utf8_lossy(s), rewrite, global).into_bytes())
                .collect();
            e.strings(out, &shape)
        })
    }
}

/// `text.replace(re, rewrite)` with JavaScript's substitutions (`$$`, `$&`, `` $` ``, `$'`,
/// `$n`, `$nn`, `$<name>`): the first match, or every match when `global`.
fn js_replace(re: &regress::Regex, text: &str, rewrite: &str, global: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in re.find_iter(text) {
        out.push_str(&text[last..m.start()]);
        substitute(&m, text, rewrite, &mut out);
        last = m.end();
        if !global {
            break;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// ECMAScript's GetSubstitution.
fn substitute(m: &regress::Match, text: &str, rewrite: &str, out: &mut String) {
    let groups = m.captures.len();
    let group = |i: usize| m.group(i).map_or("", |r| &text[r]);
    let b = rewrite.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' || i + 1 == b.len() {
            let ch = rewrite[i..].chars().next().unwrap_or('$');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        match b[i + 1] {
            b'$' => {
                out.push('$');
                i += 2;
            }
            b'&' => {
                out.push_str(&text[m.range()]);
                i += 2;
            }
            b'`' => {
                out.push_str(&text[..m.start()]);
                i += 2;
            }
            b'\'' => {
                out.push_str(&text[m.end()..]);
                i += 2;
            }
            d @ b'0'..=b'9' => {
                let one = (d - b'0') as usize;
                let two = b.get(i + 2).filter(|c| c.is_ascii_digit()).map(|&c| one * 10 + (c - b'0') as usize);
                match two {
                    Some(n) if n >= 1 && n <= groups => {
                        out.push_str(group(n));
                        i += 3;
                    }
                    _ if one >= 1 && one <= groups => {
                        out.push_str(group(one));
                        i += 2;
                    }
                    _ => {
                        out.push('$');
                        i += 1;
                    }
                }
            }
            b'<' if m.named_groups().next().is_some() => match rewrite[i + 2..].find('>') {
                Some(end) => {
                    let name = &rewrite[i + 2..i + 2 + end];
                    out.push_str(m.named_group(name).map_or("", |r| &text[r]));
                    i += end + 3;
                }
                None => {
                    out.push('$');
                    i += 1;
                }
            },
            _ => {
                out.push('$');
                i += 1;
            }
        }
    }
}

/// The n-grams and their splits (the checks on `data` and `splits` done).
fn ngrams(e: &mut Engine, d: TensorId, s: TensorId, p: &NGrams) -> Result<Vec<TensorId>> {
    let data = e.read_strings(d)?;
    let splits: Vec<i64> = e.read_f64(s)?.into_iter().map(|v| v as i64).collect();
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

#[cfg(test)]
mod tests {
    use super::js_replace;

    #[test]
    fn replaces_as_javascript_does() {
        let re = |p: &str, g: bool| regress::Regex::with_flags(p, if g { "g" } else { "" }).unwrap();
        assert_eq!(js_replace(&re("(a)(b)?", true), "xaby a", "[$1|$2|$&|$$|$3]", true), "x[a|b|ab|$|$3]y [a||a|$|$3]");
        assert_eq!(js_replace(&re("b", false), "abcb", "<$`|$'>", false), "a<a|cb>cb");
        assert_eq!(js_replace(&re("(?<=a)b", true), "abab", "X", true), "aXaX");
        assert_eq!(js_replace(&re("(?<n>o)", true), "foo", "[$<n>]", true), "f[o][o]");
        assert_eq!(js_replace(&re("(a)", true), "a", "$10$01", true), "a0a");
    }
}
