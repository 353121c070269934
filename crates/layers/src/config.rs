//! Reading a layer's config: tfjs's camelCase keys, or the snake_case keys of Keras model files,
//! with tfjs's defaults supplied by the caller.

use serde_json::{Map, Value};
use tidytensor_core::{bail, Result};

/// The largest size, count or dimension a config may give (tfjs's shapes are int32): products
/// of two such values cannot overflow, and larger tensors fail the engine's size check anyway.
pub const MAX_INT: usize = i32::MAX as usize;

/// A config object. Keys are looked up in camelCase and then in snake_case.
#[derive(Clone, Copy)]
pub struct Cfg<'a>(pub &'a Map<String, Value>);

static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();

/// `fooBar` as `foo_bar`.
pub fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `foo_bar` as `fooBar`.
pub fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut up = false;
    for c in key.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

impl<'a> Cfg<'a> {
    /// The config in `v` (an object), or an empty one for `null`.
    pub fn of(v: &'a Value) -> Result<Cfg<'a>> {
        match v {
            Value::Object(m) => Ok(Cfg(m)),
            Value::Null => Ok(Cfg(EMPTY.get_or_init(Map::new))),
            other => bail!("A layer config must be an object, got {other}"),
        }
    }

    /// The value of `key`, `None` when absent or null.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).or_else(|| self.0.get(&snake(key))).filter(|v| !v.is_null())
    }

    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn f64_or(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.as_f64().ok_or_else(|| bad(key, "a number", v)),
        }
    }

    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| bad(key, "a boolean", v)),
        }
    }

    pub fn str_or(&self, key: &str, default: &str) -> Result<String> {
        match self.get(key) {
            None => Ok(default.to_string()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(bad(key, "a string", v)),
        }
    }

    /// A positive integer that must be given.
    pub fn positive(&self, key: &str) -> Result<usize> {
        match self.get(key) {
            Some(v) => match v.as_f64() {
                Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= MAX_INT as f64 => Ok(n as usize),
                Some(n) if n >= 1.0 && n.fract() == 0.0 => Err(bad(key, "a positive integer (at most 2147483647)", v)),
                // tfjs's assertPositiveInteger texts (a list is checked element by element).
                _ => match v {
                    Value::Array(a) if a.is_empty() => bail!("{key} is unexpectedly an empty array."),
                    Value::Array(a) => {
                        let bad = a.iter().position(|x| !x.as_f64().is_some_and(|n| n >= 1.0 && n.fract() == 0.0));
                        let i = bad.unwrap_or(0);
                        bail!(
                            "Expected element {} of {key} to be a positive integer, but got {}.",
                            i + 1,
                            friendly(&a[i])
                        )
                    }
                    _ => bail!("Expected {key} to be a positive integer, but got {}.", friendly(v)),
                },
            },
            None => bail!("{key} is required but was not provided"),
        }
    }

    /// A non-negative integer, or `default`.
    pub fn usize_or(&self, key: &str, default: usize) -> Result<usize> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.as_f64() {
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= MAX_INT as f64 => Ok(n as usize),
                _ => Err(bad(key, "a non-negative integer (at most 2147483647)", v)),
            },
        }
    }

    /// An integer or a list of `n` integers (`kernelSize: 3` is `[3, 3]`), or `default`.
    pub fn tuple_or(&self, key: &str, n: usize, default: &[usize]) -> Result<Vec<usize>> {
        let v = match self.get(key) {
            None => return Ok(default.to_vec()),
            Some(v) => v,
        };
        let list: Vec<f64> = match v {
            Value::Array(a) => {
                a.iter().map(|x| x.as_f64().ok_or_else(|| bad(key, "integers", v))).collect::<Result<_>>()?
            }
            _ => vec![v.as_f64().ok_or_else(|| bad(key, "an integer or a list of integers", v))?; n],
        };
        if list.len() != n || list.iter().any(|x| *x < 0.0 || x.fract() != 0.0 || *x > MAX_INT as f64) {
            bail!("The {key} argument must be an integer or tuple of {n} integers. Received: {v}");
        }
        Ok(list.into_iter().map(|x| x as usize).collect())
    }

    /// A list of integers (may contain -1 where `signed`).
    pub fn ints(&self, key: &str) -> Result<Option<Vec<i64>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(
                a.iter().map(|x| x.as_i64().ok_or_else(|| bad(key, "a list of integers", x))).collect::<Result<_>>()?,
            )),
            Some(v) => Err(bad(key, "a list of integers", v)),
        }
    }

    /// A shape whose entries may be null (unknown).
    pub fn shape(&self, key: &str) -> Result<Option<Vec<Option<usize>>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(
                a.iter()
                    .map(|x| match x {
                        Value::Null => Ok(None),
                        _ => x
                            .as_u64()
                            .filter(|&n| n <= MAX_INT as u64)
                            .map(|n| Some(n as usize))
                            .ok_or_else(|| bad(key, "a shape (dimensions at most 2147483647)", x)),
                    })
                    .collect::<Result<_>>()?,
            )),
            Some(v) => Err(bad(key, "a shape", v)),
        }
    }

    /// A nested config (`{className, config}` objects and names are read by their modules).
    pub fn value(&self, key: &str) -> Option<&'a Value> {
        self.get(key)
    }
}

/// A value as tfjs's formatAsFriendlyString writes it: strings quoted, lists bracketed.
fn friendly(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        Value::Array(a) => format!("[{}]", a.iter().map(friendly).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

fn bad(key: &str, what: &str, v: &Value) -> tidytensor_core::Error {
    tidytensor_core::Error(format!("{key} must be {what}, got {v}"))
}

/// A `{className, config}` identifier or a bare name, as tfjs's deserializers take them:
/// `(class name, its config)`.
pub fn class_and_config(v: &Value) -> Result<(String, Value)> {
    match v {
        Value::String(s) => Ok((s.clone(), Value::Null)),
        Value::Object(m) => {
            let name = m.get("className").or_else(|| m.get("class_name")).and_then(Value::as_str);
            match name {
                Some(n) => Ok((n.to_string(), m.get("config").cloned().unwrap_or(Value::Null))),
                None => bail!("Improper config format: {v}. 'className' and 'config' must be set."),
            }
        }
        other => bail!("Expected a name or a {{className, config}} object, got {other}"),
    }
}
