//! GraphDef JSON for the tests, as tensorflowjs_converter writes it.

use serde_json::{json, Value};

/// A node as the converter writes one.
pub fn node(name: &str, op: &str, inputs: &[&str], attr: Value) -> Value {
    json!({"name": name, "op": op, "input": inputs, "attr": attr})
}

pub fn placeholder(name: &str, dims: &[i64], dtype: &str) -> Value {
    let dim: Vec<Value> = dims.iter().map(|d| json!({"size": d.to_string()})).collect();
    node(name, "Placeholder", &[], json!({"shape": {"shape": {"dim": dim}}, "dtype": {"type": dtype}}))
}

pub fn konst(name: &str, dtype: &str) -> Value {
    node(name, "Const", &[], json!({"dtype": {"type": dtype}}))
}

/// Standard base64, as the converter writes string attributes.
pub fn b64(s: &str) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = s.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = ((b[0] as u32) << 16) | ((b[1] as u32) << 8) | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
