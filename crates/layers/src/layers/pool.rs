//! Pooling layers: max and average over windows (1-D and 2-D), and over all positions.

use super::conv::conv_output_length;
use super::one_output;
use crate::config::Cfg;
use crate::layer::{Kind, Shape};
use serde_json::{json, Map, Value};
use tidytensor_core::ops::{Padding, PoolKind, Window};
use tidytensor_core::{bail, Engine, ReduceOp, Result, TensorId};

pub struct Pool {
    rank: usize,
    max: bool,
    pool_size: Vec<usize>,
    strides: Vec<usize>,
    same: bool,
}

impl Pool {
    pub fn new(c: Cfg, rank: usize, max: bool) -> Result<Pool> {
        let default = vec![2; rank];
        let pool_size = c.tuple_or("poolSize", rank, &default)?;
        let strides = c.tuple_or("strides", rank, &pool_size)?;
        let padding = c.str_or("padding", "valid")?;
        if padding != "valid" && padding != "same" {
            bail!("Invalid PaddingMode: {padding}. Valid values are valid, same, causal");
        }
        if pool_size.iter().chain(&strides).any(|&v| v == 0) {
            bail!("poolSize and strides must be positive integers");
        }
        Ok(Pool { rank, max, pool_size, strides, same: padding == "same" })
    }
}

impl Kind for Pool {
    fn class_name(&self) -> &'static str {
        match (self.rank, self.max) {
            (1, true) => "MaxPooling1D",
            (1, false) => "AveragePooling1D",
            (_, true) => "MaxPooling2D",
            (_, false) => "AveragePooling2D",
        }
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = check_rank(self.class_name(), &inputs[0], self.rank)?;
        let pad = if self.same { "same" } else { "valid" };
        let mut out = vec![s[0]];
        for i in 0..self.rank {
            out.push(conv_output_length(s[1 + i], self.pool_size[i], pad, self.strides[i], 1));
        }
        out.push(s[self.rank + 1]);
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let pad = if self.same { Padding::Same } else { Padding::Valid };
        let kind = if self.max { PoolKind::Max2d } else { PoolKind::Avg2d };
        let (x, size, strides) = if self.rank == 1 {
            (e.expand_dims(inputs[0], 2)?, vec![self.pool_size[0] as f64, 1.0], vec![self.strides[0] as f64, 1.0])
        } else {
            (
                inputs[0],
                self.pool_size.iter().map(|&v| v as f64).collect(),
                self.strides.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            )
        };
        let w = Window { strides: &strides, dilations: &[1.0, 1.0], pad: &pad, rounding: None };
        let y = e.pool(kind, x, &size, &w)?;
        one_output(if self.rank == 1 { e.squeeze(y, Some(&[2])) } else { Ok(y) })
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("poolSize".into(), json!(self.pool_size));
        m.insert("padding".into(), json!(if self.same { "same" } else { "valid" }));
        m.insert("strides".into(), json!(self.strides));
        if self.rank == 2 {
            m.insert("dataFormat".into(), json!("channelsLast"));
        }
        m
    }
}

/// The mean or max over every position: `[batch, ..., channels]` to `[batch, channels]`.
pub struct Global {
    rank: usize,
    max: bool,
}

impl Global {
    pub fn new(c: Cfg, rank: usize, max: bool) -> Result<Global> {
        let format = c.str_or("dataFormat", "channelsLast")?;
        if format != "channelsLast" && format != "channels_last" {
            bail!("dataFormat '{format}' is not supported by tidytensor's pooling layers yet; use channelsLast");
        }
        Ok(Global { rank, max })
    }
}

impl Kind for Global {
    fn class_name(&self) -> &'static str {
        match (self.rank, self.max) {
            (1, true) => "GlobalMaxPooling1D",
            (1, false) => "GlobalAveragePooling1D",
            (_, true) => "GlobalMaxPooling2D",
            (_, false) => "GlobalAveragePooling2D",
        }
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = check_rank(self.class_name(), &inputs[0], self.rank)?;
        Ok(vec![vec![s[0], s[self.rank + 1]]])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let axes: Vec<i64> = (1..=self.rank as i64).collect();
        let op = if self.max { ReduceOp::Max } else { ReduceOp::Mean };
        one_output(e.reduce(op, inputs[0], Some(&axes), false))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if self.rank == 2 {
            m.insert("dataFormat".into(), json!("channelsLast"));
        }
        m
    }
}

/// A pooling input: batch, `rank` spatial axes, channels.
fn check_rank<'a>(class: &str, s: &'a Shape, rank: usize) -> Result<&'a Shape> {
    if s.len() != rank + 2 {
        bail!("Input 0 is incompatible with layer {class}: expected ndim={}, found ndim={}", rank + 2, s.len());
    }
    Ok(s)
}
