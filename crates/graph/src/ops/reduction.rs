//! tfjs-converter's `reduction_executor.ts`.

use super::{ints, not_here, Ctx};
use tidytensor_core::{ArgOp, CumOp, Engine, ReduceOp, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "Max",
    "Mean",
    "Min",
    "Sum",
    "All",
    "Any",
    "ArgMax",
    "ArgMin",
    "Prod",
    "Cumprod",
    "Cumsum",
    "Bincount",
    "DenseBincount",
];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    let reduce = match op {
        "Max" => ReduceOp::Max,
        "Mean" => ReduceOp::Mean,
        "Min" => ReduceOp::Min,
        "Sum" => ReduceOp::Sum,
        "All" => ReduceOp::All,
        "Any" => ReduceOp::Any,
        "Prod" => ReduceOp::Prod,
        "ArgMax" | "ArgMin" => {
            let axis = ints(&[c.num(e, 1)?], "axis")?[0];
            let arg = if op == "ArgMax" { ArgOp::ArgMax } else { ArgOp::ArgMin };
            return Ok(vec![e.arg_reduce(arg, c.t(0)?, axis)?]);
        }
        "Cumsum" | "Cumprod" => {
            let axis = ints(&[c.num(e, 1)?], "axis")?[0];
            let cum = if op == "Cumsum" { CumOp::Sum } else { CumOp::Prod };
            let (exclusive, reverse) = (a.bool("exclusive", false), a.bool("reverse", false));
            return Ok(vec![e.cumulative(cum, c.t(0)?, axis, exclusive, reverse)?]);
        }
        "Bincount" => return Ok(vec![e.bincount(c.t(0)?, c.t(2)?, c.num(e, 1)?, false, false)?]),
        "DenseBincount" => {
            let binary = c.attrs().bool("binary_output", false);
            return Ok(vec![e.bincount(c.t(0)?, c.t(2)?, c.num(e, 1)?, true, binary)?]);
        }
        _ => return not_here(op),
    };
    let axes = ints(&c.nums(e, 1)?, "axis")?;
    Ok(vec![e.reduce(reduce, c.t(0)?, Some(&axes), a.bool("keep_dims", false))?])
}
