//! tfjs-converter's `slice_join_executor.ts`.

use super::{ints, not_here, Ctx};
use tidytensor_core::ops::{SliceMasks, Splits};
use tidytensor_core::{bail, js_to_int32, DType, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "ConcatV2",
    "Concat",
    "Gather",
    "GatherV2",
    "Reverse",
    "ReverseV2",
    "Slice",
    "StridedSlice",
    "Pack",
    "Unpack",
    "Tile",
    "Split",
    "SplitV",
    "GatherNd",
    "ScatterNd",
    "SparseToDense",
    "TensorScatterUpdate",
];

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    Ok(match op {
        "ConcatV2" | "Concat" => {
            let n = a.number("N", 2.0);
            let (mut tensors, axis) =
                if op == "ConcatV2" { (c.tensors(0, -1), c.num(e, -1)?) } else { (c.tensors(1, 0), c.num(e, 0)?) };
            if n >= 0.0 && (n as usize) < tensors.len() {
                tensors.truncate(n as usize);
            }
            let axis = ints(&[axis], "axis")?[0];
            vec![e.concat(&tensors, axis)?]
        }
        "Gather" | "GatherV2" => {
            let (axis, batch_dims) = if op == "GatherV2" {
                (ints(&[c.num(e, 2)?], "axis")?[0], a.number("batch_dims", 0.0) as i64)
            } else {
                (0, 0)
            };
            let indices = e.cast(c.t(1)?, DType::Int32)?;
            vec![e.gather(c.t(0)?, indices, axis, batch_dims)?]
        }
        "Reverse" => {
            let dims = c.nums(e, 1)?;
            let axes: Vec<i64> = dims.iter().enumerate().filter(|(_, &d)| d != 0.0).map(|(i, _)| i as i64).collect();
            vec![e.reverse(c.t(0)?, Some(&axes))?]
        }
        "ReverseV2" => {
            let axes = ints(&c.nums(e, 1)?, "axis")?;
            vec![e.reverse(c.t(0)?, Some(&axes))?]
        }
        "Slice" => {
            let (begin, size) = (c.nums(e, 1)?, c.nums(e, 2)?);
            vec![e.slice_params(c.t(0)?, &begin, &size)?]
        }
        "StridedSlice" => {
            let (begin, end, strides) = (c.nums(e, 1)?, c.nums(e, 2)?, c.nums(e, 3)?);
            let mask = |name: &str| js_to_int32(a.number(name, 0.0));
            vec![e.strided_slice(
                c.t(0)?,
                &begin,
                &end,
                Some(&strides),
                SliceMasks::new(
                    ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"].map(mask),
                ),
            )?]
        }
        // tfjs reshapes inputs whose shapes differ from the first's only by ones.
        "Pack" => {
            let axis = a.number("axis", 0.0) as i64;
            let tensors = c.tensors(0, 0);
            let Some(&first) = tensors.first() else { bail!("Pass at least one tensor to tf.stack") };
            let s0 = e.shape(first)?.to_vec();
            let squeezed: Vec<usize> = s0.iter().copied().filter(|&d| d != 1).collect();
            let mut mapped = Vec::with_capacity(tensors.len());
            for t in tensors {
                let s = e.shape(t)?.to_vec();
                if s == s0 {
                    mapped.push(t);
                    continue;
                }
                if s.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>() != squeezed {
                    bail!("the input tensors shape does not match");
                }
                let dims: Vec<i64> = s0.iter().map(|&d| d as i64).collect();
                mapped.push(e.reshape(t, &dims)?);
            }
            vec![e.stack(&mapped, axis)?]
        }
        "Unpack" => e.unstack(c.t(0)?, a.number("axis", 0.0))?,
        "Tile" => {
            let reps = c.nums(e, 1)?;
            vec![e.tile(c.t(0)?, &reps)?]
        }
        "Split" => {
            let axis = c.num(e, 0)?;
            e.split(c.t(1)?, Splits::Count(a.number("num_split", 1.0)), axis)?
        }
        "SplitV" => {
            let sizes_t = c.t(1)?;
            let sizes = c.nums(e, 1)?;
            let splits = if e.shape(sizes_t)?.is_empty() {
                Splits::Count(sizes.first().copied().unwrap_or(f64::NAN))
            } else {
                Splits::Sizes(sizes)
            };
            let axis = c.num(e, 2)?;
            e.split(c.t(0)?, splits, axis)?
        }
        "GatherNd" => vec![e.gather_nd(c.t(0)?, c.t(1)?)?],
        "ScatterNd" => vec![e.scatter_nd(c.t(0)?, c.t(1)?, &c.nums(e, 2)?)?],
        "SparseToDense" => {
            // tfjs casts the default value to the values' dtype.
            let (values, default) = (c.t(2)?, c.t(3)?);
            let dtype = e.dtype(values)?;
            let default = if e.dtype(default)? == dtype { default } else { e.cast(default, dtype)? };
            vec![e.sparse_to_dense(c.t(0)?, values, &c.nums(e, 1)?, default)?]
        }
        "TensorScatterUpdate" => vec![e.tensor_scatter_update(c.t(0)?, c.t(1)?, c.t(2)?)?],
        _ => return not_here(op),
    })
}
