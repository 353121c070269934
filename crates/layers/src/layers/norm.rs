//! Normalization layers: batchNormalization (batch statistics while training, moving ones
//! otherwise) and layerNormalization.

use super::one_output;
use crate::config::Cfg;
use crate::initializers::Initializer;
use crate::layer::{dims, Builder, InputSpec, Kind, Shape};
use crate::ops::Ops;
use crate::regularizers::{Constraint, Regularizer};
use serde_json::{json, Map, Value};
use tidytensor_core::{bail, Engine, Result, TensorId, UnaryOp};

/// `(x - mean) / sqrt(variance + epsilon) * gamma + beta`, each optional factor absent as 1/0.
fn normalize(
    e: &mut Engine,
    x: TensorId,
    mean: TensorId,
    variance: TensorId,
    beta: Option<TensorId>,
    gamma: Option<TensorId>,
    epsilon: f64,
) -> Result<TensorId> {
    let v = e.add_s(variance, epsilon)?;
    let inv = e.unary(UnaryOp::Rsqrt, v)?;
    let inv = match gamma {
        Some(g) => e.mul(inv, g)?,
        None => inv,
    };
    let c = e.sub(x, mean)?;
    let y = e.mul(c, inv)?;
    match beta {
        Some(b) => e.add(y, b),
        None => Ok(y),
    }
}

struct Param {
    init: Initializer,
    reg: Option<Regularizer>,
    con: Option<Constraint>,
}

impl Param {
    fn new(c: Cfg, name: &str, default: &str) -> Result<Param> {
        Ok(Param {
            init: Initializer::from_cfg(c, &format!("{name}Initializer"), default)?,
            reg: Regularizer::from_cfg(c, &format!("{name}Regularizer"))?,
            con: Constraint::from_cfg(c, &format!("{name}Constraint"))?,
        })
    }
    fn write_config(&self, m: &mut Map<String, Value>, name: &str) {
        m.insert(format!("{name}Initializer"), self.init.to_json());
        m.insert(format!("{name}Regularizer"), self.reg.as_ref().map_or(Value::Null, Regularizer::to_json));
        m.insert(format!("{name}Constraint"), self.con.as_ref().map_or(Value::Null, Constraint::to_json));
    }
}

pub struct BatchNormalization {
    axis: i64,
    momentum: f64,
    epsilon: f64,
    center: bool,
    scale: bool,
    beta: Param,
    gamma: Param,
    moving_mean: Initializer,
    moving_variance: Initializer,
}

impl BatchNormalization {
    pub fn new(c: Cfg) -> Result<BatchNormalization> {
        Ok(BatchNormalization {
            // Keras files write the axis as a list of one (tfjs reads `[1]` as 1).
            axis: match c.get("axis") {
                Some(Value::Array(a)) if a.len() == 1 && a[0].is_i64() => a[0].as_i64().unwrap_or(-1),
                _ => c.f64_or("axis", -1.0)? as i64,
            },
            momentum: c.f64_or("momentum", 0.99)?,
            epsilon: c.f64_or("epsilon", 1e-3)?,
            center: c.bool_or("center", true)?,
            scale: c.bool_or("scale", true)?,
            beta: Param::new(c, "beta", "zeros")?,
            gamma: Param::new(c, "gamma", "ones")?,
            moving_mean: Initializer::from_cfg(c, "movingMeanInitializer", "zeros")?,
            moving_variance: Initializer::from_cfg(c, "movingVarianceInitializer", "ones")?,
        })
    }

    fn axis_of(&self, rank: usize) -> Result<usize> {
        let a = if self.axis < 0 { rank as i64 + self.axis } else { self.axis };
        if a < 0 || a as usize >= rank {
            bail!("Invalid axis {} for input of rank {rank}", self.axis);
        }
        Ok(a as usize)
    }
}

impl Kind for BatchNormalization {
    fn class_name(&self) -> &'static str {
        "BatchNormalization"
    }
    fn sized_by_batch(&self) -> bool {
        self.axis == 0
    }
    /// tfjs marks it `supportsMasking`: a mask passes through it.
    fn supports_masking(&self) -> bool {
        true
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let s = &inputs[0];
        let axis = self.axis_of(s.len())?;
        let Some(dim) = s[axis] else {
            bail!("Axis {axis} of input tensor should have a defined dimension but the layer received an input with shape {}.", crate::layer::shape_text(s));
        };
        if self.scale {
            b.add("gamma", &[dim], &self.gamma.init, self.gamma.reg.as_ref(), self.gamma.con.as_ref(), true)?;
        }
        if self.center {
            b.add("beta", &[dim], &self.beta.init, self.beta.reg.as_ref(), self.beta.con.as_ref(), true)?;
        }
        b.add("moving_mean", &[dim], &self.moving_mean, None, None, false)?;
        b.add("moving_variance", &[dim], &self.moving_variance, None, None, false)?;
        b.spec = Some(InputSpec { ndim: Some(s.len()), axes: vec![(axis as i64, dim)], ..Default::default() });
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let shape = e.shape(x)?.to_vec();
        let axis = self.axis_of(shape.len())?;
        let mut i = 0;
        let mut next = |on: bool| {
            on.then(|| {
                i += 1;
                w[i - 1]
            })
        };
        let gamma = next(self.scale);
        let beta = next(self.center);
        let (mm, mv) = (w[i], w[i + 1]);
        // Parameters of shape [dim] broadcast against the last axis; elsewhere they are
        // reshaped to [1, .., dim, .., 1].
        let mut bshape = vec![1i64; shape.len()];
        bshape[axis] = shape[axis] as i64;
        let last = axis == shape.len() - 1;
        let bc = |e: &mut Engine, t: TensorId| if last { Ok(t) } else { e.reshape(t, &bshape) };
        let (gamma, beta) = (gamma.map(|g| bc(e, g)).transpose()?, beta.map(|b| bc(e, b)).transpose()?);
        // tfjs's batchNorm (one fused kernel when no gradient is recorded: inference, or a
        // frozen base ahead of the trained layers).
        if !training {
            let (m, v) = (bc(e, mm)?, bc(e, mv)?);
            return one_output(e.batch_norm(x, m, v, beta, gamma, self.epsilon));
        }
        let axes: Vec<i64> = (0..shape.len() as i64).filter(|&a| a != axis as i64).collect();
        let (mean, var) = e.moments(x, Some(&axes), true)?;
        // The batch's moments in the parameters' shape ([dim] for the last axis).
        let (bm, bv) = if last {
            (e.reshape(mean, &dims(&[shape[axis]]))?, e.reshape(var, &dims(&[shape[axis]]))?)
        } else {
            (mean, var)
        };
        let y = e.batch_norm(x, bm, bv, beta, gamma, self.epsilon)?;
        // The moving statistics move towards the batch's: v - (v - batch) * (1 - momentum).
        for (moving, batch) in [(mm, mean), (mv, var)] {
            let batch = e.reshape(batch, &dims(&[shape[axis]]))?;
            let d = e.sub(moving, batch)?;
            let d = e.mul_s(d, 1.0 - self.momentum)?;
            let updated = e.sub(moving, d)?;
            e.assign(moving, updated)?;
        }
        Ok(vec![y])
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("axis".into(), json!(self.axis));
        m.insert("momentum".into(), json!(self.momentum));
        m.insert("epsilon".into(), json!(self.epsilon));
        m.insert("center".into(), json!(self.center));
        m.insert("scale".into(), json!(self.scale));
        self.beta.write_config(&mut m, "beta");
        self.gamma.write_config(&mut m, "gamma");
        m.insert("movingMeanInitializer".into(), self.moving_mean.to_json());
        m.insert("movingVarianceInitializer".into(), self.moving_variance.to_json());
        m
    }
}

pub struct LayerNormalization {
    axes: Vec<i64>,
    epsilon: f64,
    center: bool,
    scale: bool,
    beta: Param,
    gamma: Param,
    axis_given_as_list: bool,
    /// The axes resolved against the input rank at build (non-negative, in the given order),
    /// which tfjs's config shows from then on (`[3]` for `axis: -1` on rank-4 inputs).
    resolved: Option<Vec<i64>>,
}

impl LayerNormalization {
    pub fn new(c: Cfg) -> Result<LayerNormalization> {
        // tfjs's texts: an integer, or a list of integers.
        let (axes, list) = match c.get("axis") {
            None => (vec![-1], false),
            Some(Value::Array(a)) => {
                let ints: Option<Vec<i64>> = a.iter().map(Value::as_i64).collect();
                match ints {
                    Some(v) => (v, true),
                    None => bail!("Expected axis to be an array of integers, but received {}", Value::Array(a.clone())),
                }
            }
            Some(v @ Value::Number(_)) => match v.as_i64() {
                Some(a) => (vec![a], false),
                None => bail!("Expected axis to be an integer, but received {v}"),
            },
            Some(v) => bail!("Expected axis to be an integer or an array of integers, but received {v}"),
        };
        Ok(LayerNormalization {
            axes,
            epsilon: c.f64_or("epsilon", 1e-3)?,
            center: c.bool_or("center", true)?,
            scale: c.bool_or("scale", true)?,
            beta: Param::new(c, "beta", "zeros")?,
            gamma: Param::new(c, "gamma", "ones")?,
            axis_given_as_list: list,
            resolved: None,
        })
    }

    fn axes_of(&self, rank: usize) -> Result<Vec<usize>> {
        let mut out = Vec::new();
        for &a in &self.axes {
            let r = if a < 0 { rank as i64 + a } else { a };
            if r < 0 || r as usize >= rank {
                bail!("Invalid axis: {a}");
            }
            out.push(r as usize);
        }
        out.sort();
        if out.windows(2).any(|w| w[0] == w[1]) {
            let list: Vec<String> = self.axes.iter().map(i64::to_string).collect();
            bail!("Found duplicate axes in: {}", list.join(","));
        }
        Ok(out)
    }
}

impl Kind for LayerNormalization {
    fn class_name(&self) -> &'static str {
        "LayerNormalization"
    }
    /// tfjs marks it `supportsMasking`: a mask passes through it.
    fn supports_masking(&self) -> bool {
        true
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let s = &inputs[0];
        let axes = self.axes_of(s.len())?;
        let resolved: Vec<i64> = self.axes.iter().map(|&a| if a < 0 { a + s.len() as i64 } else { a }).collect();
        let mut pshape = Vec::new();
        for &a in &axes {
            match s[a] {
                Some(d) => pshape.push(d),
                None => bail!("Axis {a} of the input must be defined"),
            }
        }
        if self.scale {
            b.add("gamma", &pshape, &self.gamma.init, self.gamma.reg.as_ref(), self.gamma.con.as_ref(), true)?;
        }
        if self.center {
            b.add("beta", &pshape, &self.beta.init, self.beta.reg.as_ref(), self.beta.con.as_ref(), true)?;
        }
        self.resolved = Some(resolved);
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let shape = e.shape(x)?.to_vec();
        let axes = self.axes_of(shape.len())?;
        let ax: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
        let (mean, var) = e.moments(x, Some(&ax), true)?;
        let mut bshape = vec![1i64; shape.len()];
        for &a in &axes {
            bshape[a] = shape[a] as i64;
        }
        let mut i = 0;
        let mut param = |e: &mut Engine, on: bool| -> Result<Option<TensorId>> {
            if !on {
                return Ok(None);
            }
            i += 1;
            e.reshape(w[i - 1], &bshape).map(Some)
        };
        let gamma = param(e, self.scale)?;
        let beta = param(e, self.center)?;
        one_output(normalize(e, x, mean, var, beta, gamma, self.epsilon))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        // As given until built, then resolved (as tfjs).
        let axis = match &self.resolved {
            Some(r) => json!(r),
            None if self.axis_given_as_list => json!(self.axes),
            None => json!(self.axes[0]),
        };
        m.insert("axis".into(), axis);
        m.insert("epsilon".into(), json!(self.epsilon));
        m.insert("center".into(), json!(self.center));
        m.insert("scale".into(), json!(self.scale));
        self.beta.write_config(&mut m, "beta");
        self.gamma.write_config(&mut m, "gamma");
        // tfjs's LayerNormalization takes no constraints (nor writes them); tidytensor's applies
        // them, so they are written when set.
        for (name, p) in [("beta", &self.beta), ("gamma", &self.gamma)] {
            if p.con.is_none() {
                m.remove(&format!("{name}Constraint"));
            }
        }
        m
    }
}
