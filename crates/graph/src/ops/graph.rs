//! tfjs-converter's `graph_executor.ts`: placeholders, identities and shape queries.

use super::scalar;
use super::{not_here, Ctx};
use tidytensor_core::{DType, Engine, HostData, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "PlaceholderWithDefault",
    "Identity",
    "StopGradient",
    "FakeQuantWithMinMaxVars",
    "IdentityN",
    "Snapshot",
    "Shape",
    "ShapeN",
    "Size",
    "Rank",
    "NoOp",
    "Print",
];

fn vector(e: &mut Engine, dims: &[usize], dtype: DType) -> Result<TensorId> {
    e.tensor(HostData::from_f64(dtype, dims.iter().map(|&d| d as f64)), &[dims.len()])
}

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    Ok(match op {
        // Not fed (a fed node does not run): the default, as it is.
        "PlaceholderWithDefault" => vec![c.t(0)?],
        // FakeQuantWithMinMaxVars: ignored, as in tfjs.
        "Identity" | "StopGradient" | "FakeQuantWithMinMaxVars" | "Snapshot" => vec![c.clone_of(e, c.t(0)?)?],
        "IdentityN" => c.tensors(0, 0).into_iter().map(|t| c.clone_of(e, t)).collect::<Result<_>>()?,
        "Shape" => {
            let s = e.shape(c.t(0)?)?.to_vec();
            vec![vector(e, &s, DType::Int32)?]
        }
        // tfjs makes ShapeN's vectors without a dtype: float32.
        "ShapeN" => c
            .tensors(0, 0)
            .into_iter()
            .map(|t| {
                let s = e.shape(t)?.to_vec();
                vector(e, &s, DType::Float32)
            })
            .collect::<Result<_>>()?,
        "Size" => {
            let n: usize = e.shape(c.t(0)?)?.iter().product();
            vec![scalar(e, n as f64, DType::Int32)?]
        }
        "Rank" => {
            let r = e.shape(c.t(0)?)?.len();
            vec![scalar(e, r as f64, DType::Int32)?]
        }
        "NoOp" => vec![scalar(e, 1.0, DType::Float32)?],
        // tfjs logs the data and passes the input on; the values are not printed here.
        "Print" => vec![c.t(0)?],
        _ => return not_here(op),
    })
}
