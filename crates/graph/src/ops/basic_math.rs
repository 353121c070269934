//! tfjs-converter's `basic_math_executor.ts`: the ops of the core's elementwise tables (each
//! table line names the TensorFlow ops it runs, `tf [...]`), and the few that are not one of
//! them.

use super::{not_here, Ctx};
use tidytensor_core::{BinaryOp, Engine, Result, TensorId, UnaryOp};

const OWN: &[&str] = &["Complex", "Real", "Imag", "ClipByValue", "LeakyRelu"];

pub(crate) const OPS: &[&str] = &with_table::<{ OWN.len() + TABLE_LEN }>(OWN);

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    match c.node.op.as_str() {
        "Complex" => Ok(vec![e.complex(c.t(0)?, c.t(1)?)?]),
        "Real" => Ok(vec![e.complex_part(c.t(0)?, false)?]),
        "Imag" => Ok(vec![e.complex_part(c.t(0)?, true)?]),
        "ClipByValue" => {
            let (lo, hi) = (c.num(e, 1)?, c.num(e, 2)?);
            Ok(vec![e.clip_by_value(c.t(0)?, lo, hi)?])
        }
        "LeakyRelu" => {
            let alpha = c.attrs().number("alpha", 0.2);
            Ok(vec![e.leaky_relu(c.t(0)?, alpha)?])
        }
        _ => table_op(e, c),
    }
}

/// How many TensorFlow ops the elementwise tables map.
pub(crate) const TABLE_LEN: usize = UnaryOp::GRAPH_OPS.len() + BinaryOp::GRAPH_OPS.len();

/// An executor's op list: its own ops, then every op of the elementwise tables (an executor
/// is only asked for the ops of its tfjs category, so the others' are never looked up there).
pub(crate) const fn with_table<const N: usize>(own: &[&'static str]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < own.len() {
        out[i] = own[i];
        i += 1;
    }
    let mut j = 0;
    while j < UnaryOp::GRAPH_OPS.len() {
        out[i] = UnaryOp::GRAPH_OPS[j];
        (i, j) = (i + 1, j + 1);
    }
    j = 0;
    while j < BinaryOp::GRAPH_OPS.len() {
        out[i] = BinaryOp::GRAPH_OPS[j];
        (i, j) = (i + 1, j + 1);
    }
    out
}

/// A node whose TensorFlow op is one of the elementwise tables'.
pub(crate) fn table_op(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    if let Some(u) = UnaryOp::from_graph_op(op) {
        return Ok(vec![e.unary(u, c.t(0)?)?]);
    }
    match BinaryOp::from_graph_op(op) {
        Some(b) => Ok(vec![e.binary(b, c.t(0)?, c.t(1)?)?]),
        None => not_here(op),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{category, kernel};
    use tidytensor_core::{BinaryOp, UnaryOp};

    /// Each TensorFlow op a table line maps is one tfjs-converter maps, to one of the
    /// executors that look the tables up, the line's op, and runs.
    #[test]
    fn the_tables_graph_ops_are_tfjs_converters() {
        let lines = UnaryOp::ALL
            .iter()
            .map(|&op| (format!("{op:?}"), op.graph_ops()))
            .chain(BinaryOp::ALL.iter().map(|&op| (format!("{op:?}"), op.graph_ops())));
        for (line, ops) in lines {
            for &tf in ops {
                let cat = category(tf);
                assert!(
                    matches!(cat, Some("basic_math" | "arithmetic" | "logical")),
                    "{line}: tfjs-converter maps {tf} to {cat:?}, not to an executor of the elementwise ops"
                );
                assert!(kernel(tf).is_some(), "{line}: {tf} does not run");
                let unary = UnaryOp::from_graph_op(tf).map(|o| format!("{o:?}"));
                let binary = BinaryOp::from_graph_op(tf).map(|o| format!("{o:?}"));
                assert_eq!(unary.or(binary).as_deref(), Some(line.as_str()), "{tf} is mapped by another line too");
            }
        }
    }
}
