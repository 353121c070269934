//! Recurrent layers: the cells (SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells), the layers
//! that loop over time with them (SimpleRNN, LSTM, GRU, and RNN over any of the cells), and the
//! wrappers Bidirectional and TimeDistributed. The whole sequence runs in one native call: the
//! first cell's input projection of every step is one matrix product, then each step adds the
//! recurrent product and applies its gates, all through the tape, so training needs no
//! JavaScript per step.

use crate::activations::Activation;
use crate::config::{class_and_config, Cfg};
use crate::initializers::Initializer;
use crate::layer::{ActivityRegularizer, Builder, InputSpec, Kind, Layer, MaskOut, Shape};
use crate::ops::Ops;
use crate::regularizers::{Constraint, Regularizer};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use tidytensor_core::ops::Random;
use tidytensor_core::{bail, DType, Engine, Result, TensorId, UnaryOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellType {
    Simple,
    Lstm,
    Gru,
}

impl CellType {
    /// Gates per unit: the width of the kernels is `gates * units`.
    fn gates(self) -> usize {
        match self {
            CellType::Simple => 1,
            CellType::Lstm => 4,
            CellType::Gru => 3,
        }
    }

    fn cell_class(self) -> &'static str {
        match self {
            CellType::Simple => "SimpleRNNCell",
            CellType::Lstm => "LSTMCell",
            CellType::Gru => "GRUCell",
        }
    }

    fn of_cell_class(class: &str) -> Option<CellType> {
        match class {
            "SimpleRNNCell" | "simpleRNNCell" => Some(CellType::Simple),
            "LSTMCell" | "lstmCell" => Some(CellType::Lstm),
            "GRUCell" | "gruCell" => Some(CellType::Gru),
            _ => None,
        }
    }
}

/// A layer of these kinds needs its input first (an empty list is refused, not indexed).
pub(super) fn need_input<T>(inputs: &[T], class: &str) -> Result<()> {
    if inputs.is_empty() {
        bail!("Layer {class} expects an input tensor, but it received none.");
    }
    Ok(())
}

/// tfjs clamps the dropout rates to [0, 1].
pub(super) fn rate(c: Cfg, key: &str) -> Result<f64> {
    Ok(c.f64_or(key, 0.0)?.clamp(0.0, 1.0))
}

/// tfjs applies a dropout rate only strictly between 0 and 1.
fn active(rate: f64) -> bool {
    rate > 0.0 && rate < 1.0
}

/// One cell's options: a SimpleRNNCell, LSTMCell or GRUCell config.
pub struct CellCfg {
    ty: CellType,
    /// The cell's own name and `trainable` (written in an RNN's `cell` config).
    name: String,
    trainable: bool,
    pub(super) units: usize,
    pub(super) activation: Activation,
    pub(super) recurrent_activation: Activation,
    pub(super) use_bias: bool,
    pub(super) kernel_init: Initializer,
    pub(super) recurrent_init: Initializer,
    pub(super) bias_init: Initializer,
    /// LSTM: `None` when not given (tfjs writes `null`; it reads back as false).
    pub(super) unit_forget_bias: Option<bool>,
    /// LSTM and GRU: kept for the config only (tfjs always runs its implementation 2).
    implementation: Option<Value>,
    pub(super) regs: [Option<Regularizer>; 3],
    pub(super) cons: [Option<Constraint>; 3],
    pub(super) dropout: f64,
    pub(super) recurrent_dropout: f64,
}

impl CellCfg {
    pub fn new(c: Cfg, ty: CellType) -> Result<CellCfg> {
        if ty == CellType::Gru && c.bool_or("resetAfter", false)? {
            bail!("GRUCell does not support reset_after parameter set to true.");
        }
        let units = match c.get("units") {
            None => bail!("units is required but was not provided"),
            Some(v) => match v.as_f64() {
                Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= crate::config::MAX_INT as f64 => n as usize,
                _ => bail!("Expected units to be a positive integer, but got {}.", super::json_text(Some(v))),
            },
        };
        let default_recurrent = if ty == CellType::Simple { "tanh" } else { "hardSigmoid" };
        let class = ty.cell_class();
        Ok(CellCfg {
            ty,
            name: match c.get("name").and_then(Value::as_str) {
                Some(n) => n.to_string(),
                None => format!("{}_{}", crate::layer::snake_class(class), crate::layer::uid(class)),
            },
            trainable: c.bool_or("trainable", true)?,
            units,
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
            unit_forget_bias: if c.has("unitForgetBias") { Some(c.bool_or("unitForgetBias", false)?) } else { None },
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
            dropout: rate(c, "dropout")?,
            recurrent_dropout: rate(c, "recurrentDropout")?,
        })
    }

    /// tfjs's `stateSize`: LSTM has `[h, c]`.
    fn state_sizes(&self) -> Vec<usize> {
        if self.ty == CellType::Lstm {
            vec![self.units, self.units]
        } else {
            vec![self.units]
        }
    }

    fn width(&self) -> usize {
        self.ty.gates() * self.units
    }

    fn n_weights(&self) -> usize {
        if self.use_bias {
            3
        } else {
            2
        }
    }

    /// tfjs's cell `build`: kernel, recurrent_kernel and bias (LSTM's unitForgetBias puts ones
    /// in the forget gate's part).
    fn build(&self, b: &mut Builder, input_dim: usize) -> Result<()> {
        let width = self.width();
        b.add("kernel", &[input_dim, width], &self.kernel_init, self.regs[0].as_ref(), self.cons[0].as_ref(), true)?;
        b.add(
            "recurrent_kernel",
            &[self.units, width],
            &self.recurrent_init,
            self.regs[1].as_ref(),
            self.cons[1].as_ref(),
            true,
        )?;
        if self.use_bias {
            if self.ty == CellType::Lstm && self.unit_forget_bias == Some(true) && !b.fast_init {
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
        Ok(())
    }

    /// The cell's own config keys (tfjs's cell `getConfig`, less name and trainable).
    pub(super) fn own_config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let opt = |v: Option<Value>| v.unwrap_or(Value::Null);
        m.insert("units".into(), json!(self.units));
        m.insert("activation".into(), json!(self.activation.name()));
        if self.ty != CellType::Simple {
            m.insert("recurrentActivation".into(), json!(self.recurrent_activation.name()));
        }
        m.insert("useBias".into(), json!(self.use_bias));
        m.insert("kernelInitializer".into(), self.kernel_init.to_json());
        m.insert("recurrentInitializer".into(), self.recurrent_init.to_json());
        m.insert("biasInitializer".into(), self.bias_init.to_json());
        if self.ty == CellType::Lstm {
            m.insert("unitForgetBias".into(), self.unit_forget_bias.map_or(Value::Null, Value::Bool));
        }
        for (i, k) in ["kernel", "recurrent", "bias"].iter().enumerate() {
            m.insert(format!("{k}Regularizer"), opt(self.regs[i].as_ref().map(Regularizer::to_json)));
            m.insert(format!("{k}Constraint"), opt(self.cons[i].as_ref().map(Constraint::to_json)));
        }
        m.insert("activityRegularizer".into(), Value::Null);
        m.insert("dropout".into(), json!(self.dropout));
        m.insert("recurrentDropout".into(), json!(self.recurrent_dropout));
        if self.ty != CellType::Simple {
            m.insert("implementation".into(), self.implementation.clone().unwrap_or(Value::Null));
        }
        if self.ty == CellType::Gru {
            m.insert("resetAfter".into(), json!(false));
        }
        m
    }

    /// `{className, config}` of the cell, as an RNN's config writes it.
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), json!(self.name));
        m.insert("trainable".into(), json!(self.trainable));
        m.extend(self.own_config());
        json!({"className": self.ty.cell_class(), "config": Value::Object(m)})
    }

    /// tfjs's `generateDropoutMask`: `ones * floor(uniform + keep) / keep`, drawn once per call
    /// and only while training.
    pub(super) fn mask(e: &mut Engine, shape: &[usize], rate: f64, training: bool) -> Result<Option<TensorId>> {
        if !training || !active(rate) {
            return Ok(None);
        }
        let keep = 1.0 - rate;
        let u = e.random(shape, Random::Uniform { min: 0.0, max: 1.0 }, DType::Float32, None)?;
        let u = e.add_s(u, keep)?;
        let m = e.unary(UnaryOp::Floor, u)?;
        e.mul_s(m, 1.0 / keep).map(Some)
    }

    /// The input projection `x @ kernel (+ bias)` of `x` (`[rows, input_dim]`).
    fn project(&self, e: &mut Engine, w: &[TensorId], x: TensorId) -> Result<TensorId> {
        let p = e.matmul(x, w[0], false, false)?;
        if self.use_bias {
            e.add(p, w[2])
        } else {
            Ok(p)
        }
    }

    /// One step: the new states (the output is the first) from the input projection `xp`
    /// (`[batch, width]`, bias included), the previous states and the recurrent dropout mask.
    fn step(
        &self,
        e: &mut Engine,
        w: &[TensorId],
        xp: TensorId,
        states: &[TensorId],
        rmask: Option<TensorId>,
    ) -> Result<Vec<TensorId>> {
        let u = self.units;
        let rk = w[1];
        // tfjs multiplies the previous output by the recurrent mask before it is used.
        let h = match rmask {
            Some(m) => e.mul(states[0], m)?,
            None => states[0],
        };
        match self.ty {
            CellType::Simple => {
                let r = e.matmul(h, rk, false, false)?;
                let s = e.add(xp, r)?;
                Ok(vec![self.activation.apply(e, s)?])
            }
            CellType::Lstm => {
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
            CellType::Gru => {
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
                Ok(vec![e.add(zh, b)?])
            }
        }
    }
}

/// A stack of cells run as one (one cell is a stack of one): tfjs's StackedRNNCells, whose
/// states are one flat list in reverse cell order (`[h2, c2, h1, c1]`).
pub struct Stack {
    cells: Vec<CellCfg>,
    /// StackedRNNCells: its own name and trainable (None: a single cell).
    stacked: Option<(String, bool)>,
}

impl Stack {
    /// The cells of tfjs's `cell` option: one `{className, config}`, a list of them, or a
    /// StackedRNNCells.
    fn from_value(v: &Value) -> Result<Stack> {
        if let Value::Array(list) = v {
            let cells = list.iter().map(Stack::one_cell).collect::<Result<Vec<_>>>()?;
            if cells.is_empty() {
                bail!("An RNN needs at least one cell");
            }
            let class = "StackedRNNCells";
            let name = format!("{}_{}", crate::layer::snake_class(class), crate::layer::uid(class));
            return Ok(Stack { cells, stacked: Some((name, true)) });
        }
        let (class, config) = class_and_config(v)?;
        if class == "StackedRNNCells" {
            return Stack::stacked(Cfg::of(&config)?);
        }
        Ok(Stack { cells: vec![Stack::one_cell(v)?], stacked: None })
    }

    fn one_cell(v: &Value) -> Result<CellCfg> {
        let (class, config) = class_and_config(v)?;
        match CellType::of_cell_class(&class) {
            Some(ty) => CellCfg::new(Cfg::of(&config)?, ty),
            None => bail!(
                "tidytensor: an RNN cell must be a simpleRNNCell, lstmCell, gruCell or stackedRNNCells, got {class}"
            ),
        }
    }

    /// A StackedRNNCells config (`cells`: a list of `{className, config}`).
    fn stacked(c: Cfg) -> Result<Stack> {
        let Some(Value::Array(list)) = c.get("cells") else { bail!("cells is required but was not provided") };
        let cells = list.iter().map(Stack::one_cell).collect::<Result<Vec<_>>>()?;
        if cells.is_empty() {
            bail!("StackedRNNCells needs at least one cell");
        }
        let class = "StackedRNNCells";
        let name = match c.get("name").and_then(Value::as_str) {
            Some(n) => n.to_string(),
            None => format!("{}_{}", crate::layer::snake_class(class), crate::layer::uid(class)),
        };
        Ok(Stack { cells, stacked: Some((name, c.bool_or("trainable", true)?)) })
    }

    /// The flat state sizes, in tfjs's order.
    fn state_sizes(&self) -> Vec<usize> {
        self.cells.iter().rev().flat_map(CellCfg::state_sizes).collect()
    }

    fn output_dim(&self) -> usize {
        self.cells.last().map_or(0, |c| c.units)
    }

    /// Builds every cell's weights for inputs of `input_dim` features (stacked cells under
    /// `RNNCell_i/`, as tfjs's nameScope names them).
    fn build(&self, b: &mut Builder, input_dim: usize) -> Result<()> {
        let mut dim = input_dim;
        for (i, cell) in self.cells.iter().enumerate() {
            if self.stacked.is_some() {
                b.scoped(&format!("RNNCell_{i}"), |b| cell.build(b, dim))?;
            } else {
                cell.build(b, dim)?;
            }
            dim = cell.units;
        }
        Ok(())
    }

    /// Each cell's slice of the weights.
    fn weights<'w>(&self, w: &'w [TensorId]) -> Vec<&'w [TensorId]> {
        let mut out = Vec::new();
        let mut at = 0;
        for c in &self.cells {
            out.push(&w[at..at + c.n_weights()]);
            at += c.n_weights();
        }
        out
    }

    /// The flat states (tfjs's order) as each cell's list.
    fn nest(&self, flat: &[TensorId]) -> Vec<Vec<TensorId>> {
        let mut rest = flat;
        let mut nested: Vec<Vec<TensorId>> = Vec::new();
        for c in self.cells.iter().rev() {
            let n = c.state_sizes().len();
            nested.push(rest[..n].to_vec());
            rest = &rest[n..];
        }
        nested.reverse();
        nested
    }

    fn flatten(nested: &[Vec<TensorId>]) -> Vec<TensorId> {
        nested.iter().rev().flatten().copied().collect()
    }

    /// The config keys of the cell(s), as an RNN writes them beside its own.
    fn own_config(&self) -> Map<String, Value> {
        match &self.stacked {
            None => self.cells[0].own_config(),
            Some(_) => {
                let mut m = Map::new();
                m.insert("cells".into(), Value::Array(self.cells.iter().map(CellCfg::to_json).collect()));
                m
            }
        }
    }

    /// `{className, config}` of the cell (an RNN's `cell`).
    fn to_json(&self) -> Value {
        match &self.stacked {
            None => self.cells[0].to_json(),
            Some((name, trainable)) => {
                let mut m = Map::new();
                m.insert("name".into(), json!(name));
                m.insert("trainable".into(), json!(trainable));
                m.extend(self.own_config());
                json!({"className": "StackedRNNCells", "config": Value::Object(m)})
            }
        }
    }

    /// The masks of one call: per cell, the input and recurrent dropout masks.
    fn masks(
        &self,
        e: &mut Engine,
        batch: usize,
        input_dim: usize,
        training: bool,
    ) -> Result<Vec<(Option<TensorId>, Option<TensorId>)>> {
        let mut dim = input_dim;
        let mut out = Vec::new();
        for c in &self.cells {
            let m = CellCfg::mask(e, &[batch, dim], c.dropout, training)?;
            let r = CellCfg::mask(e, &[batch, c.units], c.recurrent_dropout, training)?;
            out.push((m, r));
            dim = c.units;
        }
        Ok(out)
    }

    /// One step of the stack on the input `x` (`[batch, features]`), or on the first cell's
    /// projection `proj0` when it was computed for every step at once.
    fn step(
        &self,
        e: &mut Engine,
        w: &[&[TensorId]],
        x: Option<TensorId>,
        proj0: Option<TensorId>,
        states: &[Vec<TensorId>],
        masks: &[(Option<TensorId>, Option<TensorId>)],
    ) -> Result<(TensorId, Vec<Vec<TensorId>>)> {
        let mut input = x;
        let mut new_states = Vec::with_capacity(self.cells.len());
        for (i, cell) in self.cells.iter().enumerate() {
            let xp = match (i, proj0) {
                (0, Some(p)) => p,
                _ => {
                    let mut xi = input.ok_or_else(|| tidytensor_core::Error("a cell step has no input".into()))?;
                    if let Some(m) = masks[i].0 {
                        xi = e.mul(xi, m)?;
                    }
                    cell.project(e, w[i], xi)?
                }
            };
            let s = cell.step(e, w[i], xp, &states[i], masks[i].1)?;
            input = Some(s[0]);
            new_states.push(s);
        }
        let out = input.ok_or_else(|| tidytensor_core::Error("a stack without cells".into()))?;
        Ok((out, new_states))
    }

    /// Runs the stack over `x` (`[batch, steps, features]`) from the flat `initial` states:
    /// the per-step outputs (in the order they were computed) and the final flat states. A
    /// masked step (`mask` 0 there) keeps the previous output and states, as tfjs's rnn().
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        e: &mut Engine,
        w: &[TensorId],
        x: TensorId,
        initial: &[TensorId],
        mask: Option<TensorId>,
        go_backwards: bool,
        training: bool,
    ) -> Result<(Vec<TensorId>, Vec<TensorId>)> {
        let s = e.shape(x)?.to_vec();
        if s.len() != 3 {
            bail!("Input should be at least 3D, but is {}D.", s.len());
        }
        let (batch, steps, features) = (s[0], s[1], s[2]);
        if steps == 0 {
            bail!("A recurrent layer needs at least one time step");
        }
        let ws = self.weights(w);
        let masks = self.masks(e, batch, features, training)?;
        // The first cell's input projection of every step in one product (its input mask is
        // the same at every step).
        let first = &self.cells[0];
        let mut xin = x;
        if let Some(m) = masks[0].0 {
            let m3 = e.reshape(m, &[batch as i64, 1, features as i64])?;
            xin = e.mul(x, m3)?;
        }
        let flat = e.reshape(xin, &[(batch * steps) as i64, features as i64])?;
        let proj = first.project(e, ws[0], flat)?;
        let width = first.width();
        let proj = e.reshape(proj, &[batch as i64, steps as i64, width as i64])?;
        let step_mask = StepMask::new(e, mask, 3, steps)?;
        let mut states = self.nest(initial);
        let mut outputs = Vec::with_capacity(steps);
        for k in 0..steps {
            let t = if go_backwards { steps - 1 - k } else { k };
            let pt = e.slice_axis(proj, 1, t, 1)?;
            let pt = e.reshape(pt, &[batch as i64, width as i64])?;
            let (out, next) = self.step(e, &ws, None, Some(pt), &states, &masks)?;
            match &step_mask {
                None => {
                    states = next;
                    outputs.push(out);
                }
                Some(m) => {
                    // The output is the last cell's first state: flat state 0.
                    let kept = m.apply(e, t, &Stack::flatten(&states), &Stack::flatten(&next))?;
                    outputs.push(kept[0]);
                    states = self.nest(&kept);
                }
            }
        }
        Ok((outputs, Stack::flatten(&states)))
    }
}

/// tfjs's rnn() mask: cast to bool, then to 0/1 floats, `[batch, steps]` widened to
/// `[batch, steps, 1]`; step `t`'s part blends new and previous values.
pub(super) struct StepMask {
    /// `[batch, steps, ...]` of 0/1 floats.
    m: TensorId,
    /// The shape of one step's part (the steps axis dropped).
    step_shape: Vec<i64>,
}

impl StepMask {
    /// The mask of an input of rank `ndim` with `steps` steps (none without a mask).
    pub(super) fn new(e: &mut Engine, mask: Option<TensorId>, ndim: usize, steps: usize) -> Result<Option<StepMask>> {
        let Some(mask) = mask else { return Ok(None) };
        let b = e.cast(mask, DType::Bool)?;
        let mut m = e.cast(b, DType::Float32)?;
        let mut shape = e.shape(m)?.to_vec();
        if shape.len() + 1 == ndim {
            m = e.expand_dims(m, -1)?;
            shape.push(1);
        }
        if shape.len() != ndim {
            let perm: Vec<String> = [1usize, 0].into_iter().chain(2..ndim).map(|d| d.to_string()).collect();
            bail!("Error in transpose: rank of input {} must match length of perm {}.", shape.len(), perm.join(","));
        }
        if shape[1] != steps {
            bail!(
                "The mask of a recurrent layer must have one value per step: {steps} steps, but the mask has shape [{}]",
                tidytensor_core::shape::fmt(&shape)
            );
        }
        let step_shape = shape.iter().enumerate().filter(|&(i, _)| i != 1).map(|(_, &d)| d as i64).collect();
        Ok(Some(StepMask { m, step_shape }))
    }

    /// Step `t`'s mask (the steps axis dropped).
    pub(super) fn at(&self, e: &mut Engine, t: usize) -> Result<TensorId> {
        let mt = e.slice_axis(self.m, 1, t, 1)?;
        e.reshape(mt, &self.step_shape)
    }

    /// `next * m + prev * (1 - m)` for each pair of previous and new values at step `t`.
    pub(super) fn apply(
        &self,
        e: &mut Engine,
        t: usize,
        prev: &[TensorId],
        next: &[TensorId],
    ) -> Result<Vec<TensorId>> {
        let mt = self.at(e, t)?;
        self.blend(e, mt, prev, next)
    }

    /// [`StepMask::apply`] with a step mask already taken (and laid out) by the caller.
    pub(super) fn blend(
        &self,
        e: &mut Engine,
        mt: TensorId,
        prev: &[TensorId],
        next: &[TensorId],
    ) -> Result<Vec<TensorId>> {
        let keep = e.rsub_s(1.0, mt)?;
        let mut out = Vec::with_capacity(next.len());
        for (&p, &n) in prev.iter().zip(next) {
            let a = e.mul(n, mt)?;
            let b = e.mul(p, keep)?;
            out.push(e.add(a, b)?);
        }
        Ok(out)
    }
}

/// tfjs's RNN.computeMask: the (first) mask for a sequence output, none for a last output,
/// and none for each returned state.
pub(super) fn rnn_mask(masks: &[Option<TensorId>], sequences: bool, state: bool, n_states: usize) -> MaskOut {
    let mask = masks.first().copied().flatten();
    let out = if sequences { mask } else { None };
    if state {
        MaskOut::List(std::iter::once(out).chain(std::iter::repeat_n(None, n_states)).collect())
    } else {
        MaskOut::One(out)
    }
}

/// The state a stateful layer keeps between calls.
#[derive(Default)]
struct Kept {
    /// The current states (kept tensors), tfjs's flat order.
    states: Vec<TensorId>,
    /// States replaced by a training call: the tape may still read them until the next call.
    old: Vec<TensorId>,
}

/// A recurrent layer: SimpleRNN, LSTM, GRU, or RNN over any cell(s).
pub struct Rnn {
    class: &'static str,
    stack: Stack,
    return_sequences: bool,
    return_state: bool,
    go_backwards: bool,
    stateful: bool,
    unroll: bool,
    /// A stateful layer's batch size (from the shape it is built for).
    batch: Option<usize>,
    kept: RefCell<Kept>,
}

impl Rnn {
    /// SimpleRNN, LSTM or GRU: the cell's options and the layer's.
    pub fn new(c: Cfg, ty: CellType) -> Result<Rnn> {
        let cell = CellCfg::new(c, ty)?;
        let class = match ty {
            CellType::Simple => "SimpleRNN",
            CellType::Lstm => "LSTM",
            CellType::Gru => "GRU",
        };
        Rnn::with(c, class, Stack { cells: vec![cell], stacked: None })
    }

    /// tfjs's RNN: `cell` is a cell's `{className, config}` or a list of them.
    pub fn generic(c: Cfg) -> Result<Rnn> {
        let Some(cell) = c.get("cell") else { bail!("cell property is missing for the constructor of RNN.") };
        Rnn::with(c, "RNN", Stack::from_value(cell)?)
    }

    fn with(c: Cfg, class: &'static str, stack: Stack) -> Result<Rnn> {
        Ok(Rnn {
            class,
            stack,
            return_sequences: c.bool_or("returnSequences", false)?,
            return_state: c.bool_or("returnState", false)?,
            go_backwards: c.bool_or("goBackwards", false)?,
            stateful: c.bool_or("stateful", false)?,
            unroll: c.bool_or("unroll", false)?,
            batch: None,
            kept: RefCell::new(Kept::default()),
        })
    }

    /// Zero states for a batch of `batch`.
    fn zeros(&self, e: &mut Engine, batch: usize) -> Result<Vec<TensorId>> {
        self.stack.state_sizes().iter().map(|&d| e.fill(&[batch, d], 0.0, DType::Float32)).collect()
    }

    /// Replaces the kept states by copies of `states` (kept); the old ones go now, or at the
    /// next call when a training call's tape may still read them.
    fn keep_states(&self, e: &mut Engine, states: &[TensorId], defer: bool) -> Result<()> {
        let mut copies = Vec::with_capacity(states.len());
        for &s in states {
            let c = e.clone_tensor(s)?;
            e.keep(c);
            copies.push(c);
        }
        let mut k = self.kept.borrow_mut();
        let old = std::mem::replace(&mut k.states, copies);
        if defer {
            k.old.extend(old);
        } else {
            for t in old {
                e.dispose(t);
            }
        }
        Ok(())
    }

    /// tfjs's check of initial states given with the input (their count and sizes).
    fn check_states(&self, given: &[Shape]) -> Result<()> {
        let sizes = self.stack.state_sizes();
        let ok = given.len() == sizes.len() && given.iter().zip(&sizes).all(|(s, &d)| s.last() == Some(&Some(d)));
        if !ok {
            let spec: Vec<String> = given.iter().map(|s| crate::layer::shape_text(s)).collect();
            bail!(
                "An initialState was passed that is not compatible with cell.stateSize. Received stateSpec={}; However cell.stateSize is {}",
                spec.join(","),
                sizes.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
            );
        }
        Ok(())
    }

    /// The outputs of one call from `initial` states (given with the input), else the kept
    /// states (stateful) or zeros: per-step outputs and final states.
    fn run(
        &self,
        e: &mut Engine,
        w: &[TensorId],
        x: TensorId,
        given: &[TensorId],
        mask: Option<TensorId>,
        training: bool,
    ) -> Result<(Vec<TensorId>, Vec<TensorId>)> {
        let batch = *e.shape(x)?.first().unwrap_or(&0);
        let initial = if !given.is_empty() {
            let shapes: Vec<Shape> =
                given.iter().map(|&s| e.shape(s).map(crate::layer::known)).collect::<Result<_>>()?;
            self.check_states(&shapes)?;
            for (i, s) in shapes.iter().enumerate() {
                if s.len() != 2 || s[0] != Some(batch) {
                    bail!(
                        "Initial state {i} must have shape [{batch},{}] (the input's batch), got {}",
                        self.stack.state_sizes()[i],
                        crate::layer::shape_text(s)
                    );
                }
            }
            given.to_vec()
        } else if self.stateful {
            for t in std::mem::take(&mut self.kept.borrow_mut().old) {
                e.dispose(t);
            }
            let kept = self.kept.borrow().states.clone();
            if kept.is_empty() {
                let z = self.zeros(e, batch)?;
                self.keep_states(e, &z, false)?;
            }
            let kept = self.kept.borrow().states.clone();
            if e.shape(kept[0])?[0] != batch {
                bail!(
                    "Input 0 is incompatible with stateful layer: expected a batch of {} (its batch size), got {batch}.",
                    e.shape(kept[0])?[0]
                );
            }
            kept
        } else {
            self.zeros(e, batch)?
        };
        let (outs, states) = self.stack.run(e, w, x, &initial, mask, self.go_backwards, training)?;
        if self.stateful {
            self.keep_states(e, &states, training)?;
        }
        Ok((outs, states))
    }

    fn output_shape(&self, s: &Shape) -> Vec<Shape> {
        let dim = Some(self.stack.output_dim());
        let out = if self.return_sequences { vec![s[0], s[1], dim] } else { vec![s[0], dim] };
        let mut outs = vec![out];
        if self.return_state {
            outs.extend(self.stack.state_sizes().iter().map(|&d| vec![s[0], Some(d)]));
        }
        outs
    }

    fn check_rank(&self, s: &Shape) -> Result<()> {
        if s.len() != 3 {
            bail!("Input 0 is incompatible with layer {}: expected ndim=3, found ndim={}", self.class, s.len());
        }
        Ok(())
    }
}

impl Kind for Rnn {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let s = &inputs[0];
        if s.len() != 3 {
            bail!("Input 0 is incompatible with layer {}: expected ndim=3, found ndim={}", b.layer, s.len());
        }
        let Some(features) = s[2] else {
            bail!("The feature dimension of the inputs to a recurrent layer must be defined")
        };
        if self.stateful {
            let Some(batch) = s[0] else {
                bail!("If an RNN is stateful, it needs to know its batch size. Specify the batch size of your input tensors: \n- If using a Sequential model, specify the batch size by passing a `batchInputShape` option to your first layer.\n- If using the functional API, specify the batch size by passing a `batchShape` option to your Input layer.");
            };
            self.batch = Some(batch);
        }
        self.stack.build(b, features)?;
        let mut axes = vec![(-1, features)];
        if let Some(batch) = self.batch {
            axes.push((0, batch));
        }
        b.spec = Some(InputSpec { ndim: Some(3), axes, first_only: true, ..Default::default() });
        if let Some(batch) = self.batch {
            let z = self.zeros(b.e, batch)?;
            self.keep_states(b.e, &z, false)?;
        }
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        need_input(inputs, self.class_name())?;
        self.check_rank(&inputs[0])?;
        if inputs.len() > 1 {
            self.check_states(&inputs[1..])?;
        }
        Ok(self.output_shape(&inputs[0]))
    }
    fn takes_list(&self) -> bool {
        true
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        self.call_masked(e, w, inputs, None, training)
    }
    fn supports_masking(&self) -> bool {
        true
    }
    fn compute_mask(
        &self,
        _e: &mut Engine,
        _inputs: &[TensorId],
        masks: &[Option<TensorId>],
    ) -> Result<Option<MaskOut>> {
        Ok(Some(rnn_mask(masks, self.return_sequences, self.return_state, self.stack.state_sizes().len())))
    }
    fn call_masked(
        &self,
        e: &mut Engine,
        w: &[TensorId],
        inputs: &[TensorId],
        mask: Option<TensorId>,
        training: bool,
    ) -> Result<Vec<TensorId>> {
        need_input(inputs, self.class_name())?;
        let (outs, states) = self.run(e, w, inputs[0], &inputs[1..], mask, training)?;
        let out = if self.return_sequences {
            e.stack(&outs, 1)?
        } else {
            e.clone_tensor(*outs.last().ok_or_else(|| tidytensor_core::Error("no steps".into()))?)?
        };
        let mut result = vec![out];
        if self.return_state {
            result.extend(states);
        }
        Ok(result)
    }
    fn config(&self) -> Map<String, Value> {
        // tfjs: {...cellConfig, ...baseConfig, ...rnnConfig}.
        let mut m = self.stack.own_config();
        m.insert("returnSequences".into(), json!(self.return_sequences));
        m.insert("returnState".into(), json!(self.return_state));
        m.insert("goBackwards".into(), json!(self.go_backwards));
        m.insert("stateful".into(), json!(self.stateful));
        m.insert("unroll".into(), json!(self.unroll));
        if self.class == "RNN" {
            m.insert("cell".into(), self.stack.to_json());
        }
        m
    }
    fn activity_regularizer(&self) -> ActivityRegularizer {
        ActivityRegularizer::Null
    }
    fn stateful(&self) -> bool {
        self.stateful
    }
    fn reset_states(&self, e: &mut Engine, layer: &str, states: Option<&[TensorId]>) -> Result<()> {
        if !self.stateful {
            bail!("Cannot call resetStates() on an RNN Layer that is not stateful.");
        }
        let Some(batch) = self.batch else {
            bail!("If an RNN is stateful, it needs to know its batch size. Specify the batch size of your input tensors: \n- If using a Sequential model, specify the batch size by passing a `batchInputShape` option to your first layer.\n- If using the functional API, specify the batch size by passing a `batchShape` option to your Input layer.");
        };
        match states {
            None => {
                for t in std::mem::take(&mut self.kept.borrow_mut().old) {
                    e.dispose(t);
                }
                let z = e.tidy(|e| self.zeros(e, batch))?;
                let r = self.keep_states(e, &z, false);
                for t in z {
                    e.dispose(t);
                }
                r
            }
            Some(states) => {
                let sizes = self.stack.state_sizes();
                if states.len() != sizes.len() {
                    bail!(
                        "Layer {layer} expects {} state(s), but it received {} state value(s). Input received: {}",
                        sizes.len(),
                        states.len(),
                        states.iter().map(|_| "Tensor").collect::<Vec<_>>().join(",")
                    );
                }
                for (i, (&s, &d)) in states.iter().zip(&sizes).enumerate() {
                    let shape = e.shape(s)?.to_vec();
                    if shape != [batch, d] {
                        bail!(
                            "State {i} is incompatible with layer {layer}: expected shape={batch},{d}, received shape={}",
                            shape.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
                        );
                    }
                }
                self.keep_states(e, states, false)
            }
        }
    }
    fn dispose_state(&self, e: &mut Engine) {
        let k = std::mem::take(&mut *self.kept.borrow_mut());
        for t in k.states.into_iter().chain(k.old) {
            e.dispose(t);
        }
    }
}

/// A cell as a layer (SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells): one step,
/// `apply([x, ...states])` giving `[output, ...newStates]` as tfjs's `call`.
pub struct CellLayer {
    stack: Stack,
    class: &'static str,
}

impl CellLayer {
    pub fn new(c: Cfg, ty: CellType) -> Result<CellLayer> {
        Ok(CellLayer { stack: Stack { cells: vec![CellCfg::new(c, ty)?], stacked: None }, class: ty.cell_class() })
    }

    pub fn stacked(c: Cfg) -> Result<CellLayer> {
        Ok(CellLayer { stack: Stack::stacked(c)?, class: "StackedRNNCells" })
    }

    /// tfjs's texts for a wrong number of inputs.
    fn check_count(&self, n: usize) -> Result<()> {
        let want = 1 + self.stack.state_sizes().len();
        if n == want {
            return Ok(());
        }
        match self.class {
            "SimpleRNNCell" => bail!("SimpleRNNCell expects 2 input Tensors, got {n}."),
            "LSTMCell" => bail!("LSTMCell expects 3 input Tensors (inputs, h, c), got {n}."),
            "GRUCell" => bail!("GRUCell expects 2 input Tensors (inputs, h, c), got {n}."),
            _ => bail!("StackedRNNCells expects {want} input Tensors (inputs and states), got {n}."),
        }
    }
}

impl Kind for CellLayer {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn takes_list(&self) -> bool {
        true
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let Some(Some(features)) = inputs[0].last() else {
            bail!("The feature dimension of the inputs to an RNN cell must be defined")
        };
        self.stack.build(b, *features)
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        need_input(inputs, self.class_name())?;
        // One shape builds the cell (tfjs's `cell.build(xShape)`).
        if inputs.len() != 1 {
            self.check_count(inputs.len())?;
        }
        let batch = inputs[0].first().copied().flatten();
        // tfjs's cells return the output, then the new states (a simple cell's output twice).
        let mut outs = vec![vec![batch, Some(self.stack.output_dim())]];
        outs.extend(self.stack.state_sizes().iter().map(|&d| vec![batch, Some(d)]));
        Ok(outs)
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        need_input(inputs, self.class_name())?;
        self.check_count(inputs.len())?;
        let x = inputs[0];
        let s = e.shape(x)?.to_vec();
        if s.len() != 2 {
            bail!("An RNN cell takes inputs of rank 2 ([batch, features]), got rank {}", s.len());
        }
        let sizes = self.stack.state_sizes();
        for (i, (&st, &d)) in inputs[1..].iter().zip(&sizes).enumerate() {
            let shape = e.shape(st)?;
            if shape != [s[0], d] {
                bail!(
                    "State {i} of {} must have shape [{},{d}], got [{}]",
                    self.class,
                    s[0],
                    shape.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
                );
            }
        }
        let ws = self.stack.weights(w);
        // A standalone cell draws its dropout masks at each call (each step).
        let masks = self.stack.masks(e, s[0], s[1], training)?;
        let states = self.stack.nest(&inputs[1..]);
        let (out, next) = self.stack.step(e, &ws, Some(x), None, &states, &masks)?;
        let mut result = vec![e.clone_tensor(out)?];
        result.extend(Stack::flatten(&next));
        Ok(result)
    }
    fn config(&self) -> Map<String, Value> {
        self.stack.own_config()
    }
    fn activity_regularizer(&self) -> ActivityRegularizer {
        if self.class == "StackedRNNCells" {
            ActivityRegularizer::Absent
        } else {
            ActivityRegularizer::Null
        }
    }
}

/// `[batch, ...]` merged as tfjs's Bidirectional merges its two outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Merge {
    Concat,
    Sum,
    Mul,
    Ave,
    /// `null`: both outputs, separately.
    Both,
}

/// tfjs's Bidirectional: the RNN and a copy running backwards (`forward_<name>`,
/// `backward_<name>`), outputs merged; the weights forward then backward.
pub struct Bidirectional {
    inner_class: &'static str,
    inner_name: String,
    /// The wrapped layer's config, as given (its name not prefixed).
    inner_config: Value,
    forward: Rnn,
    backward: Rnn,
    merge: Merge,
    n_forward: usize,
}

impl Bidirectional {
    pub fn new(c: Cfg) -> Result<Bidirectional> {
        let Some(layer) = c.get("layer") else { bail!("layer is required but was not provided") };
        let (class, config) = class_and_config(layer)?;
        let make = |config: &Value| -> Result<Rnn> {
            let cc = Cfg::of(config)?;
            match class.as_str() {
                "SimpleRNN" | "simpleRNN" => Rnn::new(cc, CellType::Simple),
                "LSTM" | "lstm" => Rnn::new(cc, CellType::Lstm),
                "GRU" | "gru" => Rnn::new(cc, CellType::Gru),
                "RNN" | "rnn" => Rnn::generic(cc),
                _ => {
                    bail!("tidytensor: Bidirectional wraps a recurrent layer (simpleRNN, lstm, gru, rnn), got {class}")
                }
            }
        };
        let forward = make(&config)?;
        let shell = Layer::new(Box::new(make(&config)?), Cfg::of(&config)?)?;
        let inner_name = shell.name.clone();
        let inner_config = shell.config();
        let mut back_config = config.clone();
        if let Value::Object(m) = &mut back_config {
            let gb = m.get("goBackwards").or_else(|| m.get("go_backwards")).and_then(Value::as_bool).unwrap_or(false);
            m.remove("go_backwards");
            m.insert("goBackwards".into(), json!(!gb));
        }
        let backward = make(&back_config)?;
        let merge = match c.0.get("mergeMode").or_else(|| c.0.get("merge_mode")) {
            None => Merge::Concat,
            Some(Value::Null) => Merge::Both,
            Some(Value::String(s)) => match s.as_str() {
                "concat" => Merge::Concat,
                "sum" => Merge::Sum,
                "mul" => Merge::Mul,
                "ave" => Merge::Ave,
                _ => bail!("{s} is not a valid BidirectionalMergeMode.  Valid values are sum,mul,concat,ave or null/undefined."),
            },
            Some(v) => bail!(
                "{} is not a valid BidirectionalMergeMode.  Valid values are sum,mul,concat,ave or null/undefined.",
                super::json_text(Some(v))
            ),
        };
        if c.has("weights") {
            bail!("weights support is not implemented for Bidirectional layer yet.");
        }
        Ok(Bidirectional {
            inner_class: forward.class,
            inner_name,
            inner_config,
            forward,
            backward,
            merge,
            n_forward: 0,
        })
    }

    /// Initial states come as the forward layer's, then the backward layer's.
    fn check_even(n: usize) -> Result<()> {
        if !n.is_multiple_of(2) {
            bail!("When passing `initialState` to a Bidrectional RNN, the state should be an Array containing the states of the underlying RNNs.");
        }
        Ok(())
    }

    fn merge(&self, e: &mut Engine, y: TensorId, y_rev: TensorId) -> Result<Vec<TensorId>> {
        Ok(match self.merge {
            Merge::Concat => {
                let rank = e.shape(y)?.len() as i64;
                vec![e.concat(&[y, y_rev], rank - 1)?]
            }
            Merge::Sum => vec![e.add(y, y_rev)?],
            Merge::Mul => vec![e.mul(y, y_rev)?],
            Merge::Ave => {
                let s = e.add(y, y_rev)?;
                vec![e.mul_s(s, 0.5)?]
            }
            Merge::Both => vec![y, y_rev],
        })
    }
}

impl Kind for Bidirectional {
    fn class_name(&self) -> &'static str {
        "Bidirectional"
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let name = self.inner_name.clone();
        let fwd = &mut self.forward;
        b.scoped(&format!("forward_{name}"), |b| fwd.build(b, inputs))?;
        self.n_forward = b.weights.len();
        let bwd = &mut self.backward;
        b.scoped(&format!("backward_{name}"), |b| bwd.build(b, inputs))?;
        let features = inputs[0].get(2).copied().flatten();
        b.spec = Some(InputSpec {
            ndim: Some(3),
            axes: features.map(|f| vec![(-1, f)]).unwrap_or_default(),
            first_only: true,
            ..Default::default()
        });
        Ok(())
    }
    fn takes_list(&self) -> bool {
        true
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        need_input(inputs, self.class_name())?;
        Bidirectional::check_even(inputs.len() - 1)?;
        let given = &inputs[1..];
        if !given.is_empty() {
            self.forward.check_states(&given[..given.len() / 2])?;
            self.backward.check_states(&given[given.len() / 2..])?;
        }
        let shapes = self.forward.output_shapes(&inputs[..1])?;
        let mut out = shapes[0].clone();
        let states = &shapes[1..];
        let mut outs = match self.merge {
            Merge::Concat => {
                if let Some(Some(d)) = out.last_mut() {
                    *d *= 2;
                }
                vec![out]
            }
            Merge::Both => vec![out.clone(), out],
            _ => vec![out],
        };
        if self.forward.return_state {
            outs.extend(states.iter().cloned());
            outs.extend(states.iter().cloned());
        }
        Ok(outs)
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        self.call_masked(e, w, inputs, None, training)
    }
    fn supports_masking(&self) -> bool {
        true
    }
    /// tfjs's Bidirectional.computeMask: the mask for sequences (once per output without a
    /// merge), none for last outputs and for the states of both layers.
    fn compute_mask(
        &self,
        _e: &mut Engine,
        _inputs: &[TensorId],
        masks: &[Option<TensorId>],
    ) -> Result<Option<MaskOut>> {
        let mask = masks.first().copied().flatten();
        let out = if self.forward.return_sequences { mask } else { None };
        let mut list = if self.merge == Merge::Both { vec![out, out] } else { vec![out] };
        if self.forward.return_state {
            let n = self.forward.stack.state_sizes().len();
            list.extend(std::iter::repeat_n(None, 2 * n));
        }
        Ok(Some(if list.len() == 1 { MaskOut::One(out) } else { MaskOut::List(list) }))
    }
    /// Both layers read the mask (the backward one from the last step, as its input).
    fn call_masked(
        &self,
        e: &mut Engine,
        w: &[TensorId],
        inputs: &[TensorId],
        mask: Option<TensorId>,
        training: bool,
    ) -> Result<Vec<TensorId>> {
        need_input(inputs, self.class_name())?;
        let x = inputs[0];
        let (wf, wb) = w.split_at(self.n_forward);
        let given = &inputs[1..];
        Bidirectional::check_even(given.len())?;
        let (gf, gb) = given.split_at(given.len() / 2);
        let (fo, fs) = self.forward.run(e, wf, x, gf, mask, training)?;
        let (bo, bs) = self.backward.run(e, wb, x, gb, mask, training)?;
        let (y, y_rev) = if self.forward.return_sequences {
            // The backward layer's outputs, computed last step first, in time order.
            let rev: Vec<TensorId> = bo.iter().rev().copied().collect();
            (e.stack(&fo, 1)?, e.stack(&rev, 1)?)
        } else {
            let last = |v: &[TensorId]| v.last().copied().ok_or_else(|| tidytensor_core::Error("no steps".into()));
            (e.clone_tensor(last(&fo)?)?, e.clone_tensor(last(&bo)?)?)
        };
        let mut out = self.merge(e, y, y_rev)?;
        if self.forward.return_state {
            out.extend(fs);
            out.extend(bs);
        }
        Ok(out)
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert(
            "mergeMode".into(),
            match self.merge {
                Merge::Concat => json!("concat"),
                Merge::Sum => json!("sum"),
                Merge::Mul => json!("mul"),
                Merge::Ave => json!("ave"),
                Merge::Both => Value::Null,
            },
        );
        m.insert("layer".into(), json!({"className": self.inner_class, "config": self.inner_config}));
        m
    }
    fn stateful(&self) -> bool {
        self.forward.stateful
    }
    fn reset_states(&self, e: &mut Engine, layer: &str, _states: Option<&[TensorId]>) -> Result<()> {
        // tfjs resets both layers to zeros (the states given are ignored).
        self.forward.reset_states(e, layer, None)?;
        self.backward.reset_states(e, layer, None)
    }
    fn dispose_state(&self, e: &mut Engine) {
        self.forward.dispose_state(e);
        self.backward.dispose_state(e);
    }
}

/// tfjs's TimeDistributed: the wrapped layer applied to every step, as one call on the steps
/// folded into the batch (`[b, t, ...]` as `[b * t, ...]`). Its weights are named after the
/// wrapper, as tfjs names them.
pub struct TimeDistributed {
    inner: Box<dyn Kind>,
    inner_config: Value,
}

impl TimeDistributed {
    pub fn new(c: Cfg) -> Result<TimeDistributed> {
        let Some(layer) = c.get("layer") else { bail!("layer is required but was not provided") };
        let (class, config) = class_and_config(layer)?;
        let inner = Layer::new(super::kind(&class, Cfg::of(&config)?)?, Cfg::of(&config)?)?;
        if inner.kind.takes_list() {
            bail!("tidytensor: TimeDistributed wraps a layer of one input, got {class}");
        }
        if inner.kind.stateful() {
            bail!("tidytensor: TimeDistributed does not wrap stateful layers");
        }
        let inner_config = inner.config();
        Ok(TimeDistributed { inner: inner.kind, inner_config })
    }

    fn child_shape(s: &Shape) -> Result<Shape> {
        if s.len() < 3 {
            bail!(
                "TimeDistributed layer expects an input shape >= 3D, but received input shape {}",
                super::json_text(Some(&crate::layer::shape_json(s)))
            );
        }
        Ok(std::iter::once(s[0]).chain(s[2..].iter().copied()).collect())
    }
}

impl Kind for TimeDistributed {
    fn class_name(&self) -> &'static str {
        "TimeDistributed"
    }
    /// tfjs: the mask passes through (the layers it wraps here take no mask).
    fn supports_masking(&self) -> bool {
        true
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let child = TimeDistributed::child_shape(&inputs[0])?;
        self.inner.build(b, &[child])?;
        // The inner layer's spec is for the steps, not the sequence.
        b.spec = Some(InputSpec { min_ndim: Some(3), ..Default::default() });
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        need_input(inputs, self.class_name())?;
        let child = TimeDistributed::child_shape(&inputs[0])?;
        let out = self.inner.output_shapes(&[child])?;
        let o = &out[0];
        Ok(vec![std::iter::once(o[0]).chain(std::iter::once(inputs[0][1])).chain(o[1..].iter().copied()).collect()])
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        need_input(inputs, self.class_name())?;
        let x = inputs[0];
        let s = e.shape(x)?.to_vec();
        if s.len() < 3 {
            bail!(
                "TimeDistributed layer expects an input shape >= 3D, but received input shape [{}]",
                tidytensor_core::shape::fmt(&s)
            );
        }
        let mut folded = vec![(s[0] * s[1]) as i64];
        folded.extend(s[2..].iter().map(|&d| d as i64));
        let xf = e.reshape(x, &folded)?;
        let y = self.inner.call(e, w, &[xf], training)?;
        let ys = e.shape(y[0])?.to_vec();
        let mut back = vec![s[0] as i64, s[1] as i64];
        back.extend(ys[1..].iter().map(|&d| d as i64));
        Ok(vec![e.reshape(y[0], &back)?])
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let class = self.inner.class_name();
        m.insert("layer".into(), json!({"className": class, "config": self.inner_config}));
        m
    }
    fn keeps_dtype(&self) -> bool {
        self.inner.keeps_dtype()
    }
}
