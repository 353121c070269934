//! Recurrent layers (simpleRNN, lstm, gru). The whole sequence runs in one call: the input
//! projection of every step is one matrix product, then each step adds the recurrent product
//! and applies its gates, all through the tape, so training needs no JavaScript per step.

use crate::activations::Activation;
use crate::config::Cfg;
use crate::initializers::Initializer;
use crate::layer::{ActivityRegularizer, Builder, InputSpec, Kind, Shape};
use crate::ops::Ops;
use crate::regularizers::{Constraint, Regularizer};
use serde_json::{json, Map, Value};
use tidytensor_core::{bail, DType, Engine, Result, TensorId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Simple,
    Lstm,
    Gru,
}

impl Cell {
    /// Gates per unit: the width of the kernels is `gates * units`.
    fn gates(self) -> usize {
        match self {
            Cell::Simple => 1,
            Cell::Lstm => 4,
            Cell::Gru => 3,
        }
    }
}

pub struct Rnn {
    cell: Cell,
    units: usize,
    activation: Activation,
    recurrent_activation: Activation,
    use_bias: bool,
    kernel_init: Initializer,
    recurrent_init: Initializer,
    bias_init: Initializer,
    unit_forget_bias: bool,
    /// LSTM: whether `unitForgetBias` was given (tfjs writes `null` when not; `null` reads back
    /// as the default, false as in tfjs).
    unit_forget_bias_given: bool,
    /// LSTM and GRU: `implementation` as given (tfjs keeps it for the config only; `null` when
    /// not given).
    implementation: Option<Value>,
    regs: [Option<Regularizer>; 3],
    cons: [Option<Constraint>; 3],
    return_sequences: bool,
    return_state: bool,
    go_backwards: bool,
}

impl Rnn {
    pub fn new(c: Cfg, cell: Cell) -> Result<Rnn> {
        for key in ["dropout", "recurrentDropout"] {
            if c.f64_or(key, 0.0)? != 0.0 {
                bail!("{key} in recurrent layers is not supported by tidytensor yet");
            }
        }
        if c.bool_or("stateful", false)? {
            bail!("Stateful recurrent layers are not supported by tidytensor yet");
        }
        if cell == Cell::Gru && c.bool_or("resetAfter", false)? {
            bail!("GRU with resetAfter is not supported (tfjs does not support it either)");
        }
        let default_recurrent = if cell == Cell::Simple { "tanh" } else { "hardSigmoid" };
        Ok(Rnn {
            cell,
            units: c.positive("units")?,
            activation: match c.get("activation") {
                Some(v) => Activation::parse(Some(v))?,
                None => Activation::Tanh,
            },
            recurrent_activation: match c.get("recurrentActivation") {
                Some(v) => Activation::parse(Some(v))?,
                None => Activation::named(default_recurrent)?,
            },
            use_bias: c.bool_or("useBias", true)?,
            kernel_init: Initializer::from_cfg(c, "kernelInitializer", "glorotNormal")?,
            recurrent_init: Initializer::from_cfg(c, "recurrentInitializer", "orthogonal")?,
            bias_init: Initializer::from_cfg(c, "biasInitializer", "zeros")?,
            unit_forget_bias: cell == Cell::Lstm && c.bool_or("unitForgetBias", false)?,
            unit_forget_bias_given: c.has("unitForgetBias"),
            implementation: c.get("implementation").cloned(),
            regs: [
                Regularizer::from_cfg(c, "kernelRegularizer")?,
                Regularizer::from_cfg(c, "recurrentRegularizer")?,
                Regularizer::from_cfg(c, "biasRegularizer")?,
            ],
            cons: [
                Constraint::from_cfg(c, "kernelConstraint")?,
                Constraint::from_cfg(c, "recurrentConstraint")?,
                Constraint::from_cfg(c, "biasConstraint")?,
            ],
            return_sequences: c.bool_or("returnSequences", false)?,
            return_state: c.bool_or("returnState", false)?,
            go_backwards: c.bool_or("goBackwards", false)?,
        })
    }

    /// One step: the new output and states from the input projection `xp` ([batch, gates *
    /// units], bias included) and the previous states.
    fn step(&self, e: &mut Engine, xp: TensorId, states: &[TensorId], rk: TensorId) -> Result<Vec<TensorId>> {
        let u = self.units;
        let h = states[0];
        match self.cell {
            Cell::Simple => {
                let r = e.matmul(h, rk, false, false)?;
                let s = e.add(xp, r)?;
                let out = self.activation.apply(e, s)?;
                Ok(vec![out])
            }
            Cell::Lstm => {
                let r = e.matmul(h, rk, false, false)?;
                let z = e.add(xp, r)?;
                let part = |e: &mut Engine, k: usize| e.slice_axis(z, 1, k * u, u);
                let (z0, z1, z2, z3) = (part(e, 0)?, part(e, 1)?, part(e, 2)?, part(e, 3)?);
                let i = self.recurrent_activation.apply(e, z0)?;
                let f = self.recurrent_activation.apply(e, z1)?;
                let g = self.activation.apply(e, z2)?;
                let fc = e.mul(f, states[1])?;
                let ig = e.mul(i, g)?;
                let c = e.add(fc, ig)?;
                let o = self.recurrent_activation.apply(e, z3)?;
                let ac = self.activation.apply(e, c)?;
                let h = e.mul(o, ac)?;
                Ok(vec![h, c])
            }
            Cell::Gru => {
                let rk_zr = e.slice_axis(rk, 1, 0, 2 * u)?;
                let rk_h = e.slice_axis(rk, 1, 2 * u, u)?;
                let inner = e.matmul(h, rk_zr, false, false)?;
                let (xz, xr, xh) =
                    (e.slice_axis(xp, 1, 0, u)?, e.slice_axis(xp, 1, u, u)?, e.slice_axis(xp, 1, 2 * u, u)?);
                let (rz, rr) = (e.slice_axis(inner, 1, 0, u)?, e.slice_axis(inner, 1, u, u)?);
                let sz = e.add(xz, rz)?;
                let z = self.recurrent_activation.apply(e, sz)?;
                let sr = e.add(xr, rr)?;
                let r = self.recurrent_activation.apply(e, sr)?;
                let rh = e.mul(r, h)?;
                let rec_h = e.matmul(rh, rk_h, false, false)?;
                let sh = e.add(xh, rec_h)?;
                let hh = self.activation.apply(e, sh)?;
                let zh = e.mul(z, h)?;
                let one_minus = e.rsub_s(1.0, z)?;
                let b = e.mul(one_minus, hh)?;
                let h = e.add(zh, b)?;
                Ok(vec![h])
            }
        }
    }
}

impl Kind for Rnn {
    fn class_name(&self) -> &'static str {
        match self.cell {
            Cell::Simple => "SimpleRNN",
            Cell::Lstm => "LSTM",
            Cell::Gru => "GRU",
        }
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let s = &inputs[0];
        if s.len() != 3 {
            bail!("Input 0 is incompatible with layer {}: expected ndim=3, found ndim={}", b.layer, s.len());
        }
        let Some(features) = s[2] else {
            bail!("The feature dimension of the inputs to a recurrent layer must be defined")
        };
        let width = self.cell.gates() * self.units;
        b.add("kernel", &[features, width], &self.kernel_init, self.regs[0].as_ref(), self.cons[0].as_ref(), true)?;
        b.add(
            "recurrent_kernel",
            &[self.units, width],
            &self.recurrent_init,
            self.regs[1].as_ref(),
            self.cons[1].as_ref(),
            true,
        )?;
        if self.use_bias {
            if self.unit_forget_bias {
                // tfjs: the initializer's values for i, ones for f, the initializer's for c and o.
                let u = self.units;
                let i = self.bias_init.make(b.e, &[u], DType::Float32)?;
                let f = b.e.fill(&[u], 1.0, DType::Float32)?;
                let co = self.bias_init.make(b.e, &[2 * u], DType::Float32)?;
                let bias = b.e.concat(&[i, f, co], 0)?;
                b.add_value("bias", bias, self.regs[2].as_ref(), self.cons[2].as_ref(), true)?;
            } else {
                b.add("bias", &[width], &self.bias_init, self.regs[2].as_ref(), self.cons[2].as_ref(), true)?;
            }
        }
        b.spec = Some(InputSpec { ndim: Some(3), axes: vec![(-1, features)], ..Default::default() });
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let s = &inputs[0];
        if s.len() != 3 {
            bail!("Input 0 is incompatible with layer {}: expected ndim=3, found ndim={}", self.class_name(), s.len());
        }
        let out = if self.return_sequences { vec![s[0], s[1], Some(self.units)] } else { vec![s[0], Some(self.units)] };
        let mut outs = vec![out];
        if self.return_state {
            let states = if self.cell == Cell::Lstm { 2 } else { 1 };
            outs.extend((0..states).map(|_| vec![s[0], Some(self.units)]));
        }
        Ok(outs)
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let s = e.shape(x)?.to_vec();
        let (batch, steps, features) = (s[0], s[1], s[2]);
        if steps == 0 {
            bail!("A recurrent layer needs at least one time step");
        }
        let width = self.cell.gates() * self.units;
        // Every step's input projection in one product: [batch * steps, width].
        let flat = e.reshape(x, &[(batch * steps) as i64, features as i64])?;
        let mut proj = e.matmul(flat, w[0], false, false)?;
        if self.use_bias {
            proj = e.add(proj, w[2])?;
        }
        let proj = e.reshape(proj, &[batch as i64, steps as i64, width as i64])?;
        let n_states = if self.cell == Cell::Lstm { 2 } else { 1 };
        let mut states: Vec<TensorId> =
            (0..n_states).map(|_| e.fill(&[batch, self.units], 0.0, DType::Float32)).collect::<Result<_>>()?;
        let mut outputs = Vec::with_capacity(if self.return_sequences { steps } else { 0 });
        for k in 0..steps {
            let t = if self.go_backwards { steps - 1 - k } else { k };
            let xt = e.slice_axis(proj, 1, t, 1)?;
            let xt = e.reshape(xt, &[batch as i64, width as i64])?;
            states = self.step(e, xt, &states, w[1])?;
            if self.return_sequences {
                outputs.push(states[0]);
            }
        }
        let out = if self.return_sequences { e.stack(&outputs, 1)? } else { e.clone_tensor(states[0])? };
        let mut result = vec![out];
        if self.return_state {
            result.extend(states);
        }
        Ok(result)
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let opt = |v: Option<Value>| v.unwrap_or(Value::Null);
        m.insert("units".into(), json!(self.units));
        m.insert("activation".into(), json!(self.activation.name()));
        if self.cell != Cell::Simple {
            m.insert("recurrentActivation".into(), json!(self.recurrent_activation.name()));
        }
        m.insert("useBias".into(), json!(self.use_bias));
        m.insert("kernelInitializer".into(), self.kernel_init.to_json());
        m.insert("recurrentInitializer".into(), self.recurrent_init.to_json());
        m.insert("biasInitializer".into(), self.bias_init.to_json());
        if self.cell == Cell::Lstm {
            let ufb = if self.unit_forget_bias_given { json!(self.unit_forget_bias) } else { Value::Null };
            m.insert("unitForgetBias".into(), ufb);
        }
        if self.cell != Cell::Simple {
            m.insert("implementation".into(), self.implementation.clone().unwrap_or(Value::Null));
        }
        if self.cell == Cell::Gru {
            m.insert("resetAfter".into(), json!(false));
        }
        for (i, k) in ["kernel", "recurrent", "bias"].iter().enumerate() {
            m.insert(format!("{k}Regularizer"), opt(self.regs[i].as_ref().map(Regularizer::to_json)));
            m.insert(format!("{k}Constraint"), opt(self.cons[i].as_ref().map(Constraint::to_json)));
        }
        m.insert("dropout".into(), json!(0));
        m.insert("recurrentDropout".into(), json!(0));
        m.insert("returnSequences".into(), json!(self.return_sequences));
        m.insert("returnState".into(), json!(self.return_state));
        m.insert("goBackwards".into(), json!(self.go_backwards));
        m.insert("stateful".into(), json!(false));
        m.insert("unroll".into(), json!(false));
        m
    }
    fn activity_regularizer(&self) -> ActivityRegularizer {
        ActivityRegularizer::Null
    }
}
