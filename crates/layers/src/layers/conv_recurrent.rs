//! ConvLSTM2D: an LSTM whose input and recurrent products are 2-D convolutions (tfjs's
//! ConvLSTM2DCell run by ConvRNN2D), over the core's conv op. Every step's input convolution
//! is one call on the steps folded into the batch; the recurrent one runs per step.

use super::conv::conv_output_length;
use super::recurrent::{need_input, rnn_mask, CellCfg, CellType, StepMask};
use crate::config::Cfg;
use crate::layer::{ActivityRegularizer, Builder, InputSpec, Kind, MaskOut, Shape};
use serde_json::{json, Map, Value};
use tidytensor_core::ops::{ConvKind, Padding, Window};
use tidytensor_core::{bail, DType, Engine, Result, TensorId};

pub struct ConvLstm2D {
    /// ConvLSTM2DCell: one step as a layer, `apply([x, h, c])` giving `[h, h, c]`.
    cell_only: bool,
    /// The LSTM cell's options (`units` is `filters`).
    cell: CellCfg,
    filters: usize,
    kernel_size: Vec<usize>,
    strides: Vec<usize>,
    dilation: Vec<usize>,
    padding: String,
    channels_first: bool,
    return_sequences: bool,
    return_state: bool,
    go_backwards: bool,
}

/// The LSTM's four gates: the kernels' last axis holds `4 * filters`.
const GATES: usize = 4;

impl ConvLstm2D {
    pub fn new(c: Cfg) -> Result<ConvLstm2D> {
        if c.bool_or("unroll", false)? {
            bail!("Unrolling is not possible with convolutional RNNs.");
        }
        if c.bool_or("stateful", false)? {
            bail!("tidytensor: stateful ConvLSTM2D is not supported yet");
        }
        let filters = match c.get("filters") {
            None => bail!("filters is required but was not provided"),
            Some(v) => match v.as_f64() {
                Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= crate::config::MAX_INT as f64 => n as usize,
                // tfjs's LSTM cell checks `units` (its filters) first.
                _ => bail!("Expected units to be a positive integer, but got {}.", super::json_text(Some(v))),
            },
        };
        // The cell reads tfjs's LSTM options, with `units` standing for `filters`.
        let mut m = c.0.clone();
        m.insert("units".into(), json!(filters));
        let cell = CellCfg::new(Cfg(&m), CellType::Lstm)?;
        if !c.has("kernelSize") {
            bail!("kernelSize is required but was not provided");
        }
        let list = |key: &str, default: &[usize]| -> Result<Vec<usize>> {
            let v = super::normalize_array(c, key, 2, default)?;
            super::positive_list(key, &v.iter().map(|&x| json!(x)).collect::<Vec<_>>())
        };
        let padding = c.str_or("padding", "valid")?;
        if !["valid", "same", "causal"].contains(&padding.as_str()) {
            bail!("{padding} is not a valid PaddingMode.  Valid values are valid,same,causal or null/undefined.");
        }
        if padding == "causal" {
            bail!("The support for CAUSAL padding mode in conv1dWithBias is not implemented yet.");
        }
        Ok(ConvLstm2D {
            cell_only: false,
            cell,
            filters,
            kernel_size: list("kernelSize", &[])?,
            strides: list("strides", &[1, 1])?,
            dilation: list("dilationRate", &[1, 1])?,
            padding,
            channels_first: super::channels_first(c)?,
            return_sequences: c.bool_or("returnSequences", false)?,
            return_state: c.bool_or("returnState", false)?,
            go_backwards: c.bool_or("goBackwards", false)?,
        })
    }

    /// tfjs's ConvLSTM2DCell: the same options, one step.
    pub fn cell(c: Cfg) -> Result<ConvLstm2D> {
        Ok(ConvLstm2D { cell_only: true, ..ConvLstm2D::new(c)? })
    }

    /// The input convolutions (bias included) of `xs`: one input for the whole kernel, or one
    /// per gate (each masked by its own dropout mask).
    fn input_conv(&self, e: &mut Engine, w: &[TensorId], xs: &[TensorId]) -> Result<TensorId> {
        let f = self.filters;
        let xp = if xs.len() == 1 {
            self.conv(e, xs[0], w[0], false)?
        } else {
            let mut parts = Vec::with_capacity(GATES);
            for (g, &x) in xs.iter().enumerate() {
                let k = e.slice_axis(w[0], 3, g * f, f)?;
                parts.push(self.conv(e, x, k, false)?);
            }
            e.concat(&parts, 3)?
        };
        if self.cell.use_bias {
            e.add(xp, w[2])
        } else {
            Ok(xp)
        }
    }

    /// One LSTM step from the input convolutions `xp` (`[batch, rows, cols, 4 * filters]`):
    /// the new `[h, c]`.
    fn step(
        &self,
        e: &mut Engine,
        w: &[TensorId],
        xp: TensorId,
        h: TensorId,
        c: TensorId,
        rmasks: &Option<Vec<TensorId>>,
    ) -> Result<[TensorId; 2]> {
        let f = self.filters;
        let (act, rec) = (self.cell.activation, self.cell.recurrent_activation);
        let hp = self.gates_conv(e, h, w[1], rmasks, true)?;
        let z = e.add(xp, hp)?;
        let part = |e: &mut Engine, g: usize| e.slice_axis(z, 3, g * f, f);
        let (z0, z1, z2, z3) = (part(e, 0)?, part(e, 1)?, part(e, 2)?, part(e, 3)?);
        let i = rec.apply(e, z0)?;
        let fg = rec.apply(e, z1)?;
        let g = act.apply(e, z2)?;
        let fc = e.mul(fg, c)?;
        let ig = e.mul(i, g)?;
        let c = e.add(fc, ig)?;
        let o = rec.apply(e, z3)?;
        let ac = act.apply(e, c)?;
        Ok([e.mul(o, ac)?, c])
    }

    /// ConvLSTM2DCell's call: `[x, h, c]` (4-D, the layer's data format) to `[h, h, c]`.
    fn call_cell(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        if inputs.len() != 3 {
            bail!("ConvLSTM2DCell expects 3 input Tensors (inputs, h, c), got {}.", inputs.len());
        }
        let mut t: Vec<TensorId> = inputs.to_vec();
        if self.channels_first {
            for x in &mut t {
                *x = e.transpose(*x, Some(&[0, 2, 3, 1]))?;
            }
        }
        let s = e.shape(t[0])?.to_vec();
        if s.len() != 4 {
            bail!("ConvLSTM2DCell takes inputs of rank 4, got rank {}", s.len());
        }
        let [Some(or), Some(oc)] = self.out_dims(Some(s[1]), Some(s[2])) else {
            bail!("The kernel of ConvLSTM2DCell does not fit its input of {}x{}", s[1], s[2]);
        };
        let state_shape = [s[0], or, oc, self.filters];
        for &st in &t[1..] {
            if e.shape(st)? != state_shape {
                bail!(
                    "The states of ConvLSTM2DCell must have the shape [{}]",
                    tidytensor_core::shape::fmt(&state_shape)
                );
            }
        }
        let masks = ConvLstm2D::masks(e, &s, self.cell.dropout, training)?;
        let xs = match masks {
            None => vec![t[0]],
            Some(ms) => ms.iter().map(|&m| e.mul(t[0], m)).collect::<Result<_>>()?,
        };
        let xp = self.input_conv(e, w, &xs)?;
        let rmasks = ConvLstm2D::masks(e, &state_shape, self.cell.recurrent_dropout, training)?;
        let [h, c] = self.step(e, w, xp, t[1], t[2], &rmasks)?;
        let mut out = vec![e.clone_tensor(h)?, h, c];
        if self.channels_first {
            for y in &mut out {
                *y = e.transpose(*y, Some(&[0, 3, 1, 2]))?;
            }
        }
        Ok(out)
    }

    /// `[rows, cols, channels]` of one step's input, channels-last.
    fn step_dims(&self, s: &Shape) -> (Option<usize>, Option<usize>, Option<usize>) {
        if self.channels_first {
            (s[3], s[4], s[2])
        } else {
            (s[2], s[3], s[4])
        }
    }

    /// The output shape of one step, channels-last: `[rows, cols, filters]`.
    fn out_dims(&self, rows: Option<usize>, cols: Option<usize>) -> [Option<usize>; 2] {
        let o = |len, i: usize| {
            conv_output_length(len, self.kernel_size[i], &self.padding, self.strides[i], self.dilation[i])
        };
        [o(rows, 0), o(cols, 1)]
    }

    /// A channels-last `[.., rows, cols, filters]` shape in the layer's data format.
    fn format(&self, batch: Option<usize>, time: Option<Option<usize>>, r: Option<usize>, c: Option<usize>) -> Shape {
        let mut s = vec![batch];
        if let Some(t) = time {
            s.push(t);
        }
        if self.channels_first {
            s.extend([Some(self.filters), r, c]);
        } else {
            s.extend([r, c, Some(self.filters)]);
        }
        s
    }

    /// `x` (`[n, rows, cols, channels]`) convolved with the kernel's gates `g0..g0 + n`.
    fn conv(&self, e: &mut Engine, x: TensorId, kernel: TensorId, recurrent: bool) -> Result<TensorId> {
        let (pad, strides, dil) = if recurrent {
            (Padding::Same, vec![1.0, 1.0], vec![1.0, 1.0])
        } else {
            let pad = if self.padding == "same" { Padding::Same } else { Padding::Valid };
            (pad, self.strides.iter().map(|&v| v as f64).collect(), self.dilation.iter().map(|&v| v as f64).collect())
        };
        let win = Window { strides: &strides, dilations: &dil, pad: &pad, rounding: None };
        e.conv(ConvKind::Conv2d, x, kernel, &win, false)
    }

    /// The four gates' convolutions of `x`, each of its own masked input when masks are given
    /// (tfjs draws one mask per gate), else one convolution with the whole kernel.
    fn gates_conv(
        &self,
        e: &mut Engine,
        x: TensorId,
        kernel: TensorId,
        masks: &Option<Vec<TensorId>>,
        recurrent: bool,
    ) -> Result<TensorId> {
        let Some(masks) = masks else { return self.conv(e, x, kernel, recurrent) };
        let f = self.filters;
        let mut parts = Vec::with_capacity(GATES);
        for (g, &m) in masks.iter().enumerate() {
            let xm = e.mul(x, m)?;
            let k = e.slice_axis(kernel, 3, g * f, f)?;
            parts.push(self.conv(e, xm, k, recurrent)?);
        }
        e.concat(&parts, 3)
    }

    /// Four dropout masks of `shape` (none when not training or the rate is off).
    fn masks(e: &mut Engine, shape: &[usize], rate: f64, training: bool) -> Result<Option<Vec<TensorId>>> {
        let mut out = Vec::new();
        for _ in 0..GATES {
            match CellCfg::mask(e, shape, rate, training)? {
                Some(m) => out.push(m),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }
}

impl Kind for ConvLstm2D {
    fn class_name(&self) -> &'static str {
        if self.cell_only {
            "ConvLSTM2DCell"
        } else {
            "ConvLSTM2D"
        }
    }
    fn takes_list(&self) -> bool {
        true
    }
    fn build(&mut self, b: &mut Builder, inputs: &[Shape]) -> Result<()> {
        let s = &inputs[0];
        let rank = if self.cell_only { 4 } else { 5 };
        if s.len() != rank {
            bail!("Input 0 is incompatible with layer {}: expected ndim={rank}, found ndim={}", b.layer, s.len());
        }
        // A cell's input is one step: the time axis of the layer's is absent.
        let step: Shape =
            if self.cell_only { std::iter::once(s[0]).chain(s.iter().copied()).collect() } else { s.clone() };
        let (_, _, channels) = self.step_dims(&step);
        let Some(channels) = channels else {
            bail!("The channel dimension of the input should be defined. Found null")
        };
        let (k, f, cell) = (&self.kernel_size, self.filters, &self.cell);
        let width = GATES * f;
        b.add(
            "kernel",
            &[k[0], k[1], channels, width],
            &cell.kernel_init,
            cell.regs[0].as_ref(),
            cell.cons[0].as_ref(),
            true,
        )?;
        b.add(
            "recurrent_kernel",
            &[k[0], k[1], f, width],
            &cell.recurrent_init,
            cell.regs[1].as_ref(),
            cell.cons[1].as_ref(),
            true,
        )?;
        if cell.use_bias {
            if cell.unit_forget_bias == Some(true) && !b.fast_init {
                let i = cell.bias_init.make(b.e, &[f], DType::Float32)?;
                let one = b.e.fill(&[f], 1.0, DType::Float32)?;
                let co = cell.bias_init.make(b.e, &[2 * f], DType::Float32)?;
                let bias = b.e.concat(&[i, one, co], 0)?;
                b.add_value("bias", bias, cell.regs[2].as_ref(), cell.cons[2].as_ref(), true)?;
            } else {
                b.add("bias", &[width], &cell.bias_init, cell.regs[2].as_ref(), cell.cons[2].as_ref(), true)?;
            }
        }
        let axis = match (self.channels_first, self.cell_only) {
            (false, _) => -1,
            (true, false) => 2,
            (true, true) => 1,
        };
        b.spec =
            Some(InputSpec { ndim: Some(rank), axes: vec![(axis, channels)], first_only: true, ..Default::default() });
        Ok(())
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        need_input(inputs, self.class_name())?;
        let s = &inputs[0];
        if self.cell_only {
            if s.len() != 4 {
                bail!("Input 0 is incompatible with layer ConvLSTM2DCell: expected ndim=4, found ndim={}", s.len());
            }
            // One shape builds the cell (tfjs's `cell.build(xShape)`).
            if inputs.len() != 3 && inputs.len() != 1 {
                bail!("ConvLSTM2DCell expects 3 input Tensors (inputs, h, c), got {}.", inputs.len());
            }
            let step: Shape = std::iter::once(s[0]).chain(s.iter().copied()).collect();
            let (rows, cols, _) = self.step_dims(&step);
            let [r, c] = self.out_dims(rows, cols);
            return Ok(vec![self.format(s[0], None, r, c); 3]);
        }
        if s.len() != 5 {
            bail!("Input 0 is incompatible with layer ConvLSTM2D: expected ndim=5, found ndim={}", s.len());
        }
        let (rows, cols, _) = self.step_dims(s);
        let [r, c] = self.out_dims(rows, cols);
        let time = if self.return_sequences { Some(s[1]) } else { None };
        let mut outs = vec![self.format(s[0], time, r, c)];
        if self.return_state {
            let state = self.format(s[0], None, r, c);
            outs.extend([state.clone(), state]);
        }
        if inputs.len() != 1 && inputs.len() != 3 {
            bail!("ConvLSTM2D takes 2 initial states (h, c), got {}", inputs.len() - 1);
        }
        Ok(outs)
    }
    fn call(&self, e: &mut Engine, w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        self.call_masked(e, w, inputs, None, training)
    }
    /// The layer is an RNN (tfjs's ConvRNN2D) and supports masking; the cell does not.
    fn supports_masking(&self) -> bool {
        !self.cell_only
    }
    fn compute_mask(
        &self,
        _e: &mut Engine,
        _inputs: &[TensorId],
        masks: &[Option<TensorId>],
    ) -> Result<Option<MaskOut>> {
        if self.cell_only {
            return Ok(None);
        }
        Ok(Some(rnn_mask(masks, self.return_sequences, self.return_state, 2)))
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
        if self.cell_only {
            return self.call_cell(e, w, inputs, training);
        }
        if inputs.len() != 1 && inputs.len() != 3 {
            bail!("ConvLSTM2D takes 2 initial states (h, c), got {}", inputs.len() - 1);
        }
        let perm_last = |e: &mut Engine, x: TensorId, rank: usize| -> Result<TensorId> {
            // [b, (t,) c, h, w] as [b, (t,) h, w, c].
            let mut p: Vec<i64> = (0..rank as i64 - 3).collect();
            let r = rank as i64;
            p.extend([r - 2, r - 1, r - 3]);
            e.transpose(x, Some(&p))
        };
        let perm_first = |e: &mut Engine, y: TensorId, rank: usize| -> Result<TensorId> {
            let mut p: Vec<i64> = (0..rank as i64 - 3).collect();
            let r = rank as i64;
            p.extend([r - 1, r - 3, r - 2]);
            e.transpose(y, Some(&p))
        };
        let mut x = inputs[0];
        if self.channels_first {
            x = perm_last(e, x, 5)?;
        }
        let s = e.shape(x)?.to_vec();
        let (batch, steps, rows, cols, channels) = (s[0], s[1], s[2], s[3], s[4]);
        if steps == 0 {
            bail!("A recurrent layer needs at least one time step");
        }
        let [Some(or), Some(oc)] = self.out_dims(Some(rows), Some(cols)) else {
            bail!("The kernel of ConvLSTM2D does not fit its input of {rows}x{cols}");
        };
        let f = self.filters;
        let state_shape = [batch, or, oc, f];
        let mut states: Vec<TensorId> = if inputs.len() == 3 {
            let mut v = Vec::new();
            for &st in &inputs[1..] {
                let st = if self.channels_first { perm_last(e, st, 4)? } else { st };
                if e.shape(st)? != state_shape {
                    bail!(
                        "The initial states of ConvLSTM2D must have the shape of its state, [{}]",
                        tidytensor_core::shape::fmt(&state_shape)
                    );
                }
                v.push(st);
            }
            v
        } else {
            (0..2).map(|_| e.fill(&state_shape, 0.0, DType::Float32)).collect::<Result<_>>()?
        };
        // The input convolutions of every step at once, each gate's input masked alike at
        // every step.
        let masks = ConvLstm2D::masks(e, &[batch, 1, rows, cols, channels], self.cell.dropout, training)?;
        let folded = |e: &mut Engine, t: TensorId| {
            e.reshape(t, &[(batch * steps) as i64, rows as i64, cols as i64, channels as i64])
        };
        let xs = match &masks {
            None => vec![folded(e, x)?],
            Some(ms) => {
                let mut v = Vec::with_capacity(GATES);
                for &m in ms {
                    let xm = e.mul(x, m)?;
                    v.push(folded(e, xm)?);
                }
                v
            }
        };
        let xp = self.input_conv(e, w, &xs)?;
        let xp = e.reshape(xp, &[batch as i64, steps as i64, or as i64, oc as i64, (GATES * f) as i64])?;
        let rmasks = ConvLstm2D::masks(e, &state_shape, self.cell.recurrent_dropout, training)?;
        // tfjs's rnn() mask ([batch, steps, ...] in the layer's data format).
        let step_mask = StepMask::new(e, mask, 5, steps)?;
        let mut outputs = Vec::with_capacity(steps);
        for k in 0..steps {
            let t = if self.go_backwards { steps - 1 - k } else { k };
            let xt = e.slice_axis(xp, 1, t, 1)?;
            let xt = e.reshape(xt, &[batch as i64, or as i64, oc as i64, (GATES * f) as i64])?;
            let [h, c] = self.step(e, w, xt, states[0], states[1], &rmasks)?;
            states = match &step_mask {
                None => vec![h, c],
                Some(m) => {
                    let mut mt = m.at(e, t)?;
                    if self.channels_first {
                        mt = perm_last(e, mt, 4)?;
                    }
                    m.blend(e, mt, &states, &[h, c])?
                }
            };
            outputs.push(states[0]);
        }
        let mut out = if self.return_sequences { e.stack(&outputs, 1)? } else { e.clone_tensor(states[0])? };
        if self.channels_first {
            out = perm_first(e, out, if self.return_sequences { 5 } else { 4 })?;
        }
        let mut result = vec![out];
        if self.return_state {
            for st in states {
                result.push(if self.channels_first { perm_first(e, st, 4)? } else { st });
            }
        }
        Ok(result)
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = self.cell.own_config();
        // tfjs's ConvLSTM2DCell writes no units, and its LSTM keys that are undefined.
        m.remove("units");
        if m.get("unitForgetBias") == Some(&Value::Null) {
            m.remove("unitForgetBias");
        }
        if m.get("implementation") == Some(&Value::Null) {
            m.remove("implementation");
        }
        m.insert("filters".into(), json!(self.filters));
        m.insert("kernelSize".into(), json!(self.kernel_size));
        m.insert("padding".into(), json!(self.padding));
        m.insert("dataFormat".into(), json!(super::format_name(self.channels_first)));
        m.insert("dilationRate".into(), json!(self.dilation));
        m.insert("strides".into(), json!(self.strides));
        if self.cell_only {
            return m;
        }
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
