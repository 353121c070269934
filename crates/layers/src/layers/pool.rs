//! Pooling layers: max and average over windows (1-D, 2-D and 3-D), and over all positions.
//! Channels-first data (2-D and 3-D, as tfjs: its 1-D layers take no dataFormat) is moved to
//! channels-last around the pooling.

use super::conv::conv_output_length;
use super::{channels_first, format_name, json_text, one_output, positive_list, to_channels_first, to_channels_last};
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
    channels_first: bool,
}

impl Pool {
    /// tfjs's Pooling1D/2D/3D constructors: their defaults, checks and texts.
    pub fn new(c: Cfg, rank: usize, max: bool) -> Result<Pool> {
        let num = |v: &Value| matches!(v, Value::Number(_));
        let pool_size: Vec<Value> = match c.get("poolSize") {
            None => vec![json!(2); rank],
            Some(v) if num(v) => vec![v.clone(); rank],
            Some(Value::Array(a)) if rank > 1 || (a.len() == 1 && num(&a[0])) => a.clone(),
            Some(v) if rank == 1 => bail!(
                "poolSize for 1D convolutional layer must be a number or an Array of a single number, but received {}",
                json_text(Some(v))
            ),
            Some(v) => {
                bail!("poolSize must be a number or an Array of {rank} numbers, but received {}", json_text(Some(v)))
            }
        };
        let strides: Vec<Value> = match c.get("strides") {
            None => pool_size.clone(),
            Some(v) if num(v) => vec![v.clone(); rank],
            Some(Value::Array(a)) if rank == 1 && a.len() == 1 && num(&a[0]) => a.clone(),
            Some(Value::Array(a)) if rank > 1 => {
                if a.len() != rank {
                    bail!(
                        "If the strides property of a {rank}D pooling layer is an Array, it is expected to have a length of {rank}, but received length {}.",
                        a.len()
                    );
                }
                a.clone()
            }
            Some(v) => bail!(
                "strides for 1D convolutional layer must be a number or an Array of a single number, but received {}",
                json_text(Some(v))
            ),
        };
        let pool_size = positive_list("poolSize", &pool_size)?;
        let strides = positive_list("strides", &strides)?;
        if pool_size.len() != rank {
            bail!("poolSize must be a number or an Array of {rank} numbers, but received length {}", pool_size.len());
        }
        let padding = c.str_or("padding", "valid")?;
        if padding != "valid" && padding != "same" {
            bail!("Invalid PaddingMode: {padding}. Valid values are valid, same, causal");
        }
        // tfjs's 1-D pooling layers ignore dataFormat.
        let channels_first = rank > 1 && channels_first(c)?;
        Ok(Pool { rank, max, pool_size, strides, same: padding == "same", channels_first })
    }
}

impl Kind for Pool {
    fn class_name(&self) -> &'static str {
        match (self.rank, self.max) {
            (1, true) => "MaxPooling1D",
            (1, false) => "AveragePooling1D",
            (2, true) => "MaxPooling2D",
            (2, false) => "AveragePooling2D",
            (_, true) => "MaxPooling3D",
            (_, false) => "AveragePooling3D",
        }
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = check_rank(self.class_name(), &inputs[0], self.rank)?;
        let pad = if self.same { "same" } else { "valid" };
        let first = if self.channels_first { 2 } else { 1 };
        let mut out = s.clone();
        for i in 0..self.rank {
            out[first + i] = conv_output_length(s[first + i], self.pool_size[i], pad, self.strides[i], 1);
        }
        Ok(vec![out])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let pad = if self.same { Padding::Same } else { Padding::Valid };
        let kind = match (self.rank, self.max) {
            (3, true) => PoolKind::Max3d,
            (3, false) => PoolKind::Avg3d,
            (_, true) => PoolKind::Max2d,
            (_, false) => PoolKind::Avg2d,
        };
        let x = if self.channels_first { to_channels_last(e, inputs[0])? } else { inputs[0] };
        let (x, size, strides) = if self.rank == 1 {
            (e.expand_dims(x, 2)?, vec![self.pool_size[0] as f64, 1.0], vec![self.strides[0] as f64, 1.0])
        } else {
            (
                x,
                self.pool_size.iter().map(|&v| v as f64).collect(),
                self.strides.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            )
        };
        let w = Window { strides: &strides, dilations: &[1.0], pad: &pad, rounding: None };
        let y = e.pool(kind, x, &size, &w)?;
        let y = if self.rank == 1 { e.squeeze(y, Some(&[2]))? } else { y };
        one_output(if self.channels_first { to_channels_first(e, y) } else { Ok(y) })
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("poolSize".into(), json!(self.pool_size));
        m.insert("padding".into(), json!(if self.same { "same" } else { "valid" }));
        m.insert("strides".into(), json!(self.strides));
        if self.rank > 1 {
            m.insert("dataFormat".into(), json!(format_name(self.channels_first)));
        }
        m
    }
}

/// The mean or max over every position: `[batch, ..., channels]` to `[batch, channels]`.
pub struct Global {
    rank: usize,
    max: bool,
    /// `[batch, channels, ...]` inputs (2-D only: tfjs's 1-D layers ignore dataFormat).
    channels_first: bool,
}

impl Global {
    pub fn new(c: Cfg, rank: usize, max: bool) -> Result<Global> {
        let channels_first = rank > 1 && channels_first(c)?;
        Ok(Global { rank, max, channels_first })
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
        let channels = if self.channels_first { s[1] } else { s[self.rank + 1] };
        Ok(vec![vec![s[0], channels]])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let first = if self.channels_first { 2 } else { 1 };
        let axes: Vec<i64> = (first..first + self.rank as i64).collect();
        let op = if self.max { ReduceOp::Max } else { ReduceOp::Mean };
        one_output(e.reduce(op, inputs[0], Some(&axes), false))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        if self.rank == 2 {
            m.insert("dataFormat".into(), json!(format_name(self.channels_first)));
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
