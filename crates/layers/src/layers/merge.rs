//! Merge layers: a list of inputs to one output (concatenate, add, multiply, average,
//! maximum, minimum).

use super::one_output;
use crate::config::Cfg;
use crate::layer::{shape_text, Kind, Shape};
use crate::ops::Ops;
use serde_json::{json, Map, Value};
use tidytensor_core::{bail, BinaryOp, Engine, Result, TensorId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeOp {
    Concatenate,
    Add,
    Multiply,
    Average,
    Maximum,
    Minimum,
}

pub struct Merge {
    op: MergeOp,
    axis: i64,
}

impl Merge {
    pub fn new(op: MergeOp) -> Merge {
        Merge { op, axis: -1 }
    }
    pub fn concatenate(c: Cfg) -> Result<Merge> {
        Ok(Merge { op: MergeOp::Concatenate, axis: c.f64_or("axis", -1.0)? as i64 })
    }
}

impl Kind for Merge {
    fn class_name(&self) -> &'static str {
        match self.op {
            MergeOp::Concatenate => "Concatenate",
            MergeOp::Add => "Add",
            MergeOp::Multiply => "Multiply",
            MergeOp::Average => "Average",
            MergeOp::Maximum => "Maximum",
            MergeOp::Minimum => "Minimum",
        }
    }
    fn takes_list(&self) -> bool {
        true
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        if inputs.len() < 2 {
            bail!("A merge layer should be called on an Array of at least 2 inputs. Got {} input(s).", inputs.len());
        }
        let first = &inputs[0];
        if self.op == MergeOp::Concatenate {
            let rank = first.len() as i64;
            let axis = if self.axis < 0 { rank + self.axis } else { self.axis };
            if axis < 0 || axis >= rank {
                bail!("Invalid concatenation axis {}", self.axis);
            }
            let a = axis as usize;
            let mut out = first.clone();
            for s in &inputs[1..] {
                let same_rest = s.len() == first.len()
                    && (0..s.len()).all(|i| i == a || s[i].is_none() || first[i].is_none() || s[i] == first[i]);
                if !same_rest {
                    bail!(
                        "A `Concatenate` layer requires inputs with matching shapes except for the concat axis. Got input shapes: {}",
                        inputs.iter().map(|s| shape_text(s)).collect::<Vec<_>>().join(", ")
                    );
                }
                out[a] = match (out[a], s[a]) {
                    (Some(x), Some(y)) => match x.checked_add(y) {
                        Some(v) => Some(v),
                        None => bail!("The output of Concatenate would be too large"),
                    },
                    _ => None,
                };
            }
            return Ok(vec![out]);
        }
        for s in &inputs[1..] {
            if s.len() != first.len()
                || s.iter()
                    .zip(first)
                    .any(|(a, b)| a.is_some() && b.is_some() && a != b && *a != Some(1) && *b != Some(1))
            {
                bail!("Operands could not be broadcast together with shapes {} {}", shape_text(first), shape_text(s));
            }
        }
        let mut out = first.clone();
        for s in &inputs[1..] {
            for (o, d) in out.iter_mut().zip(s) {
                if *o == Some(1) || o.is_none() {
                    *o = *d;
                }
            }
        }
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        if self.op == MergeOp::Concatenate {
            return one_output(e.concat(inputs, self.axis));
        }
        let op = match self.op {
            MergeOp::Add | MergeOp::Average => BinaryOp::Add,
            MergeOp::Multiply => BinaryOp::Mul,
            MergeOp::Maximum => BinaryOp::Maximum,
            _ => BinaryOp::Minimum,
        };
        let mut acc = e.clone_tensor(inputs[0])?;
        for &x in &inputs[1..] {
            acc = e.binary(op, acc, x)?;
        }
        if self.op == MergeOp::Average {
            acc = e.mul_s(acc, 1.0 / inputs.len() as f64)?;
        }
        Ok(vec![acc])
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if self.op == MergeOp::Concatenate {
            m.insert("axis".into(), json!(self.axis));
        }
        m
    }
}
