//! Node attributes: TensorFlow `AttrValue`s as JSON (`{i: "3"}`, `{f: 0.5}`, `{b: true}`,
//! `{s: "<base64>"}`, `{type: "DT_FLOAT"}`, `{shape: {dim: [...]}}`, `{list: {...}}`), read as
//! tfjs-converter's `operation_mapper` reads them: int64s arrive as strings and go through
//! `parseInt`, strings are base64 and lower-cased, dtypes map to tfjs's four.

use serde_json::{Map, Value};
use tidytensor_core::DType;

pub type Attrs = Map<String, Value>;

/// JavaScript's `parseInt(s, 10)`: an optional sign and the leading decimal digits after any
/// leading white space; NaN when there are none.
pub fn parse_int(s: &str) -> f64 {
    let t = s.trim_start();
    let (neg, rest) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    if digits.is_empty() {
        return f64::NAN;
    }
    let v: f64 = digits.parse().unwrap_or(f64::NAN);
    if neg {
        -v
    } else {
        v
    }
}

/// A number field as tfjs reads one: JSON numbers as they are, strings through `parseInt`.
pub(crate) fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => parse_int(s),
        Value::Bool(b) => *b as u8 as f64,
        _ => f64::NAN,
    }
}

/// Standard base64 (padding and white space allowed), as `atob` decodes it.
pub fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `atob`'s refusal of `text`, if it refuses it: a character outside standard base64, or a
/// length that cannot be base64 (its texts).
fn atob_error(text: &str) -> Option<&'static str> {
    let t: Vec<u8> = text.bytes().filter(|c| !matches!(c, b' ' | b'\n' | b'\r' | b'\t' | b'\x0c')).collect();
    let mut body = &t[..];
    if body.len().is_multiple_of(4) {
        for _ in 0..2 {
            if let Some(rest) = body.strip_suffix(b"=") {
                body = rest;
            }
        }
    }
    if body.iter().any(|&c| !(c.is_ascii_alphanumeric() || c == b'+' || c == b'/')) {
        return Some("Invalid character");
    }
    (body.len() % 4 == 1).then_some("The string to be decoded is not correctly encoded.")
}

/// tfjs's `parseStringParam` of `s` fails: `atob` of its text, as JavaScript writes the value
/// (a list of char codes is not decoded; a missing one is the text "undefined").
fn string_param_error(s: Option<&Value>) -> Option<&'static str> {
    match s {
        Some(Value::Array(_)) => None,
        Some(Value::String(t)) => atob_error(t),
        None => atob_error("undefined"),
        Some(Value::Null) => atob_error("null"),
        Some(Value::Bool(b)) => atob_error(if *b { "true" } else { "false" }),
        Some(Value::Number(x)) => atob_error(&x.to_string()),
        Some(Value::Object(_)) => atob_error("[object Object]"),
    }
}

/// tfjs-converter decodes the string attributes of an op's params with `atob` as it loads the
/// graph, so one that is not base64 fails the load there: the attribute's name and `atob`'s
/// text. (Attributes tfjs does not read as strings are not decoded, there or here.)
pub(crate) fn check_strings(op: &str, attrs: &Attrs) -> Result<(), (String, &'static str)> {
    let table = crate::op_table::STRING_ATTRS;
    let first = table.partition_point(|&(o, _, _)| o < op);
    for &(_, name, list) in table[first..].iter().take_while(|&&(o, _, _)| o == op) {
        let Some(param) = attrs.get(name).filter(|v| !v.is_null()) else { continue };
        let why = if list {
            // tfjs decodes a list only when it has `list.s`.
            let values = param.get("list").and_then(|l| l.get("s")).and_then(Value::as_array);
            values.into_iter().flatten().find_map(|v| string_param_error(Some(v)))
        } else {
            string_param_error(param.get("s"))
        };
        if let Some(why) = why {
            return Err((name.to_string(), why));
        }
    }
    Ok(())
}

/// tfjs's `parseStringParam`: base64 text (or a list of char codes), each byte one character
/// (`atob`), lower-cased unless `keep_case`.
pub fn string_param(v: &Value, keep_case: bool) -> String {
    let s: String = match v {
        Value::String(t) => base64(t).unwrap_or_default().into_iter().map(char::from).collect(),
        Value::Array(codes) => {
            codes.iter().filter_map(|c| c.as_u64()).filter_map(|c| char::from_u32(c as u32)).collect()
        }
        _ => String::new(),
    };
    if keep_case {
        s
    } else {
        s.to_lowercase()
    }
}

/// tfjs's `parseDtypeParam`: TensorFlow's DataType (name or enum number) as a tfjs dtype;
/// `None` for the types tfjs has no dtype for.
pub fn parse_dtype(v: &Value) -> Option<DType> {
    let code = match v {
        Value::String(s) => match s.as_str() {
            "DT_FLOAT" => 1,
            "DT_DOUBLE" => 2,
            "DT_INT32" => 3,
            "DT_UINT8" => 4,
            "DT_INT8" => 6,
            "DT_STRING" => 7,
            "DT_COMPLEX64" => 8,
            "DT_INT64" => 9,
            "DT_BOOL" => 10,
            "DT_COMPLEX128" => 18,
            "DT_HALF" => 19,
            _ => 0,
        },
        Value::Number(n) => n.as_u64().unwrap_or(0),
        _ => 0,
    };
    Some(match code {
        1 | 2 | 19 => DType::Float32,
        3 | 4 | 6 | 9 => DType::Int32,
        10 => DType::Bool,
        7 => DType::String,
        8 | 18 => DType::Complex64,
        _ => return None,
    })
}

/// tfjs's `parseTensorShapeParam`: `None` for an unknown rank, -1 for an unknown dimension.
pub fn parse_shape(v: &Value) -> Option<Vec<i64>> {
    if v.get("unknownRank").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    Some(match v.get("dim").and_then(Value::as_array) {
        Some(dims) => dims.iter().map(|d| d.get("size").map_or(f64::NAN, number) as i64).collect(),
        None => Vec::new(),
    })
}

/// What [`AttrReader::string`], [`AttrReader::strings`] and [`AttrReader::numbers`] read from
/// each of a node's attributes, decoded once at load (base64 text, `parseInt` of int64
/// strings): a node runs many times, and these decodings cost more than most small ops.
#[derive(Clone, Debug, Default)]
pub struct Decoded(Vec<DecodedAttr>);

#[derive(Clone, Debug)]
struct DecodedAttr {
    name: String,
    string: Option<String>,
    strings: Option<Vec<String>>,
    numbers: Option<Vec<f64>>,
}

impl Decoded {
    pub fn of(attrs: &Attrs) -> Decoded {
        let r = AttrReader::new(attrs);
        let mut all: Vec<DecodedAttr> = attrs
            .keys()
            .map(|name| DecodedAttr {
                name: name.clone(),
                string: r.decode_string(name),
                strings: r.decode_strings(name),
                numbers: r.decode_numbers(name),
            })
            .collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        Decoded(all)
    }

    fn get(&self, name: &str) -> Option<&DecodedAttr> {
        self.0.binary_search_by(|a| a.name.as_str().cmp(name)).ok().map(|i| &self.0[i])
    }
}

/// Typed reads of one node's attributes, with tfjs-converter's defaults.
pub struct AttrReader<'a> {
    raw: &'a Attrs,
    decoded: Option<&'a Decoded>,
}

impl<'a> AttrReader<'a> {
    /// Reads `raw`, decoding on every read.
    pub fn new(raw: &'a Attrs) -> Self {
        AttrReader { raw, decoded: None }
    }

    /// Reads `raw`, taking strings and number lists from `decoded` (made of `raw`).
    pub fn with_decoded(raw: &'a Attrs, decoded: &'a Decoded) -> Self {
        AttrReader { raw, decoded: Some(decoded) }
    }
}

impl AttrReader<'_> {
    fn get(&self, name: &str) -> Option<&Value> {
        self.raw.get(name).filter(|v| !v.is_null())
    }

    /// tfjs's `getNumberParam`: `i`, else `f`, else `default`.
    pub fn number(&self, name: &str, default: f64) -> f64 {
        let Some(p) = self.get(name) else { return default };
        match (p.get("i").filter(|v| !v.is_null()), p.get("f").filter(|v| !v.is_null())) {
            (Some(i), _) => number(i),
            (None, Some(f)) => number(f),
            _ => default,
        }
    }

    /// tfjs's `getNumericArrayParam`: `list.f` when it has values, else `list.i`.
    pub fn numbers(&self, name: &str) -> Option<Vec<f64>> {
        match self.decoded {
            Some(d) => d.get(name).and_then(|a| a.numbers.clone()),
            None => self.decode_numbers(name),
        }
    }

    fn decode_numbers(&self, name: &str) -> Option<Vec<f64>> {
        let p = self.get(name)?;
        let list = p.get("list");
        let pick = |key: &str| list.and_then(|l| l.get(key)).and_then(Value::as_array).filter(|a| !a.is_empty());
        Some(pick("f").or_else(|| pick("i")).map(|a| a.iter().map(number).collect()).unwrap_or_default())
    }

    /// tfjs's `getBoolParam`: `b` as it is, which the ops take by JavaScript's truthiness
    /// (`{b: 'yes'}` is true there, so here).
    pub fn bool(&self, name: &str, default: bool) -> bool {
        match self.get(name) {
            Some(p) => match p.get("b") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(Value::Number(x)) => x.as_f64().is_some_and(|x| x != 0.0 && !x.is_nan()),
                Some(Value::String(s)) => !s.is_empty(),
                Some(_) => true,
            },
            None => default,
        }
    }

    /// tfjs's `getStringParam` (lower-cased).
    pub fn string(&self, name: &str) -> Option<String> {
        match self.decoded {
            Some(d) => d.get(name).and_then(|a| a.string.clone()),
            None => self.decode_string(name),
        }
    }

    fn decode_string(&self, name: &str) -> Option<String> {
        self.get(name).map(|p| p.get("s").map_or_else(|| "undefined".to_string(), |s| string_param(s, false)))
    }

    /// tfjs's `getStringArrayParam` (lower-cased).
    pub fn strings(&self, name: &str) -> Option<Vec<String>> {
        match self.decoded {
            Some(d) => d.get(name).and_then(|a| a.strings.clone()),
            None => self.decode_strings(name),
        }
    }

    fn decode_strings(&self, name: &str) -> Option<Vec<String>> {
        let list = self.get(name)?.get("list")?.get("s")?.as_array()?;
        Some(list.iter().map(|s| string_param(s, false)).collect())
    }

    /// tfjs's `getDtypeParam`: `Some(None)` for a type tfjs has no dtype for.
    pub fn dtype(&self, name: &str) -> Option<Option<DType>> {
        self.get(name)?.get("type").filter(|t| !t.is_null()).map(parse_dtype)
    }

    /// tfjs's `getTensorShapeParam`: `Some(None)` for an unknown rank.
    pub fn shape(&self, name: &str) -> Option<Option<Vec<i64>>> {
        self.get(name)?.get("shape").filter(|s| !s.is_null()).map(parse_shape)
    }

    /// tfjs's `getFuncParam`: the name of a function attribute.
    pub fn func(&self, name: &str) -> Option<String> {
        self.get(name)?.get("func")?.get("name")?.as_str().map(str::to_string)
    }

    /// The first shape of a `list.shape` attribute (`_output_shapes`).
    pub fn first_list_shape(&self, name: &str) -> Option<Option<Vec<i64>>> {
        let first = self.get(name)?.get("list")?.get("shape")?.as_array()?.first()?;
        Some(parse_shape(first))
    }
}

/// An attribute as tfjs's `NodeValueImpl` hands it to a custom op (`tf.registerOp`'s
/// `attrs`): decoded by the kind of value the GraphDef holds.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    Number(f64),
    Numbers(Vec<f64>),
    String(String),
    Strings(Vec<String>),
    /// `b` as the GraphDef holds it, which tfjs hands over as it is.
    Bool(Value),
    Bools(Vec<Value>),
    /// `None`: an unknown rank.
    Shape(Option<Vec<i64>>),
    Shapes(Vec<Option<Vec<i64>>>),
    /// `None`: a type tfjs has no dtype for (`null`).
    DType(Option<DType>),
    DTypes(Vec<Option<DType>>),
    /// Nothing tfjs decodes (a tensor or function attribute, an empty list): `undefined`.
    Undefined,
}

/// Every attribute of a custom op node, as tfjs's `NodeValueImpl.getAttr` decodes each one:
/// `i`/`f` a number, `s` a lower-cased string, `b`, `shape`, `type`, and the lists of each.
pub fn custom_op_attrs(attrs: &Attrs) -> Vec<(String, AttrValue)> {
    let r = AttrReader::new(attrs);
    let set = |v: &Value, key: &str| v.get(key).is_some_and(|x| !x.is_null());
    let list = |v: &Value, key: &str| -> Vec<Value> {
        v.get("list").and_then(|l| l.get(key)).and_then(Value::as_array).cloned().unwrap_or_default()
    };
    attrs
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(name, v)| {
            let value = if set(v, "i") || set(v, "f") {
                AttrValue::Number(r.number(name, f64::NAN))
            } else if set(v, "s") {
                AttrValue::String(r.string(name).unwrap_or_default())
            } else if set(v, "b") {
                AttrValue::Bool(v["b"].clone())
            } else if set(v, "shape") {
                AttrValue::Shape(parse_shape(&v["shape"]))
            } else if set(v, "type") {
                AttrValue::DType(parse_dtype(&v["type"]))
            } else if let Some(l) = v.get("list").filter(|l| !l.is_null()) {
                if set(l, "i") || set(l, "f") {
                    AttrValue::Numbers(r.numbers(name).unwrap_or_default())
                } else if set(l, "s") {
                    AttrValue::Strings(r.strings(name).unwrap_or_default())
                } else if set(l, "shape") {
                    AttrValue::Shapes(list(v, "shape").iter().map(parse_shape).collect())
                } else if set(l, "b") {
                    AttrValue::Bools(list(v, "b"))
                } else if set(l, "type") {
                    AttrValue::DTypes(list(v, "type").iter().map(parse_dtype).collect())
                } else {
                    AttrValue::Undefined
                }
            } else {
                AttrValue::Undefined
            };
            (name.clone(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashMap;

    #[test]
    fn reads_attrs_as_tfjs() {
        let a = json!({
            "i": {"i": "3"}, "f": {"f": 0.5}, "b": {"b": true}, "s": {"s": "TkhXQw=="},
            "l": {"list": {"i": ["1", "2", "2", "1"]}}, "e": {"list": {}},
            "t": {"type": "DT_INT64"}, "sh": {"shape": {"dim": [{"size": "-1"}, {"size": "3"}]}},
            "u": {"shape": {"unknownRank": true}}, "ss": {"list": {"s": ["Qmlhc0FkZA==", "UmVsdQ=="]}}
        });
        let raw = a.as_object().unwrap();
        let decoded = Decoded::of(raw);
        for r in [AttrReader::new(raw), AttrReader::with_decoded(raw, &decoded)] {
            assert_eq!(r.number("i", 0.0), 3.0);
            assert_eq!(r.number("f", 0.0), 0.5);
            assert_eq!(r.number("missing", 7.0), 7.0);
            assert!(r.bool("b", false));
            assert_eq!(r.string("s").as_deref(), Some("nhwc"));
            assert_eq!(r.numbers("l"), Some(vec![1.0, 2.0, 2.0, 1.0]));
            assert_eq!(r.numbers("e"), Some(vec![]));
            assert_eq!(r.dtype("t"), Some(Some(DType::Int32)));
            assert_eq!(r.shape("sh"), Some(Some(vec![-1, 3])));
            assert_eq!(r.shape("u"), Some(None));
            assert_eq!(r.strings("ss"), Some(vec!["biasadd".to_string(), "relu".to_string()]));
            assert_eq!(r.string("missing"), None);
            assert_eq!(r.numbers("missing"), None);
        }
        let custom: HashMap<String, AttrValue> = custom_op_attrs(raw).into_iter().collect();
        assert_eq!(custom["i"], AttrValue::Number(3.0));
        assert_eq!(custom["s"], AttrValue::String("nhwc".into()));
        assert_eq!(custom["b"], AttrValue::Bool(json!(true)));
        assert_eq!(custom["l"], AttrValue::Numbers(vec![1.0, 2.0, 2.0, 1.0]));
        assert_eq!(custom["e"], AttrValue::Undefined);
        assert_eq!(custom["t"], AttrValue::DType(Some(DType::Int32)));
        assert_eq!(custom["sh"], AttrValue::Shape(Some(vec![-1, 3])));
        assert_eq!(custom["u"], AttrValue::Shape(None));
        assert_eq!(custom["ss"], AttrValue::Strings(vec!["biasadd".into(), "relu".into()]));
        assert_eq!(parse_int(" -12abc"), -12.0);
        assert!(parse_int("x").is_nan());
    }
}
