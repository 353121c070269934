//! tf.signal: the Hann and Hamming windows, frame and stft, as tfjs computes them (the windows
//! on the host in float32, frame as one gather from the signal and its padding, stft of those
//! and rfft).

use crate::js::number as js;
use crate::{bail, shape, DType, Engine, HostData, Result, TensorId};

/// `tf.signal.frame`'s `padValue`: a number, or a string for a string signal.
#[derive(Clone, Debug)]
pub enum PadValue {
    Number(f64),
    String(Vec<u8>),
}

/// The window `tf.signal.stft` multiplies each frame by: tf.signal's Hann or Hamming window
/// of the frame's length, or a tensor (what a JavaScript `windowFn` returned).
#[derive(Clone, Copy, Debug)]
pub enum StftWindow {
    Hann,
    Hamming,
    Tensor(TensorId),
}

impl Engine {
    /// tfjs's `cosineWindow`: `a - b cos(2πi / (n + even - 1))` for i in [0, n), stored as
    /// float32, where `even` is 1 - n % 2. The length is read as a `Float32Array` reads it
    /// (truncated; NaN is 0), the formula uses it as given.
    pub fn cosine_window(&mut self, window_length: f64, a: f64, b: f64) -> Result<TensorId> {
        let n = if window_length.is_nan() { 0.0 } else { window_length.trunc() };
        if !(0.0..=9007199254740991.0).contains(&n) {
            bail!("Invalid typed array length: {}", js(window_length));
        }
        let len = n as usize;
        self.check_size(&[len], DType::Float32)?;
        let even = 1.0 - window_length % 2.0;
        let values = (0..len)
            .map(|i| {
                let arg = (2.0 * std::f64::consts::PI * i as f64) / (window_length + even - 1.0);
                (a - b * arg.cos()) as f32
            })
            .collect();
        self.tensor(HostData::F32(values), &[len])
    }

    /// `tf.signal.hannWindow`.
    pub fn hann_window(&mut self, window_length: f64) -> Result<TensorId> {
        self.cosine_window(window_length, 0.5, 0.5)
    }

    /// `tf.signal.hammingWindow`.
    pub fn hamming_window(&mut self, window_length: f64) -> Result<TensorId> {
        self.cosine_window(window_length, 0.54, 0.46)
    }

    /// `tf.signal.frame`: `[frames, frame_length]`, a frame starting every `frame_step`
    /// values while one fits; with `pad_end`, also the frames starting before the end,
    /// completed with `pad_value` (converted to the signal's dtype, as tfjs's concat stores
    /// it). No frame gives a float32 `[0, frame_length]`, as in tfjs. tfjs slices the signal
    /// by its size; a signal of another rank frames as its values in order when its inner
    /// dimensions are 1 (where tfjs's slices agree), and is refused otherwise. A step that
    /// does not advance (tfjs loops forever), negative lengths (tfjs slices to the end) and
    /// fractional lengths or steps (tfjs slices at fractional offsets) are refused.
    pub fn frame(
        &mut self,
        signal: TensorId,
        frame_length: f64,
        frame_step: f64,
        pad_end: bool,
        pad_value: &PadValue,
    ) -> Result<TensorId> {
        let s = self.shape(signal)?.to_vec();
        let dtype = self.dtype(signal)?;
        let size = shape::size(&s) as f64;
        if !(frame_length >= 0.0 && frame_length.fract() == 0.0 && frame_length.is_finite()) {
            bail!("Error in frame: frameLength must be a non-negative integer, but got {}.", js(frame_length));
        }
        // tfjs's loops: `start += frameStep` while a frame fits (or, padding, starts inside).
        let makes_frame = frame_length <= size || (pad_end && 0.0 < size);
        if frame_step <= 0.0 && makes_frame {
            bail!("Error in frame: frameStep must be a positive number, but got {}.", js(frame_step));
        }
        let mut starts: Vec<usize> = Vec::new();
        let mut start = 0.0;
        while start + frame_length <= size || (pad_end && start < size) {
            if start.fract() != 0.0 {
                bail!("Error in frame: frameStep must be an integer, but got {}.", js(frame_step));
            }
            starts.push(start as usize);
            start += frame_step;
        }
        let len = frame_length as usize;
        if starts.is_empty() {
            return self.filled(&[0, len], 0.0, DType::Float32);
        }
        let inner = shape::size(s.get(1..).unwrap_or(&[]));
        if s.len() > 1 && inner != 1 && len > 0 {
            bail!("Error in frame: signal must be a 1-D tensor, but got shape [{}].", shape::fmt(&s));
        }
        let count = starts.len();
        let out_shape = [count, len];
        self.check_size(&out_shape, dtype)?;
        let total = count.checked_mul(len).filter(|&t| t <= i32::MAX as usize);
        let Some(total) = total else {
            bail!("Error in frame: {count} frames of {len} values are too many.");
        };
        crate::host_memory::check(total.saturating_mul(4), "the frame indices")?;
        let last = starts[count - 1] + len;
        let n = size as usize;
        let pad = last.saturating_sub(n);
        if last > i32::MAX as usize {
            bail!("Error in frame: frames reaching {last} are too long.");
        }
        // Frame f is values start_f .. start_f + len of the signal followed by its padding.
        let indices: Vec<i32> = starts.iter().flat_map(|&st| (st..st + len).map(|i| i as i32)).collect();
        self.composed(|e| {
            let flat = if s.len() == 1 { signal } else { e.reshape(signal, &[n as i64])? };
            let padded = if pad > 0 {
                let fill = match pad_value {
                    PadValue::Number(v) => e.fill(&[pad], *v, dtype)?,
                    PadValue::String(v) => e.strings(vec![v.clone(); pad], &[pad])?,
                };
                e.concat(&[flat, fill], 0)?
            } else {
                flat
            };
            let at = e.tensor(HostData::I32(indices), &[total])?;
            let frames = e.gather(padded, at, 0, 0)?;
            e.reshape(frames, &[count as i64, len as i64])
        })
    }

    /// `tf.signal.stft`: the rfft (of `fft_length`, by default the smallest power of two
    /// at least `frame_length`, computed as tfjs does) of each frame times the window.
    pub fn stft(
        &mut self,
        signal: TensorId,
        frame_length: f64,
        frame_step: f64,
        fft_length: Option<f64>,
        window: StftWindow,
    ) -> Result<TensorId> {
        let fft_length = fft_length.unwrap_or_else(|| enclosing_power_of_two(frame_length));
        self.composed(|e| {
            let frames = e.frame(signal, frame_length, frame_step, false, &PadValue::Number(0.0))?;
            let none = e.shape(frames)?[0] == 0;
            let windowed = match window {
                // (No frame: tf.signal's window, of any length, would change nothing.)
                StftWindow::Hann | StftWindow::Hamming if none => frames,
                StftWindow::Hann => {
                    let w = e.hann_window(frame_length)?;
                    e.mul(frames, w)?
                }
                StftWindow::Hamming => {
                    let w = e.hamming_window(frame_length)?;
                    e.mul(frames, w)?
                }
                StftWindow::Tensor(w) => e.mul(frames, w)?,
            };
            e.rfft(windowed, Some(fft_length))
        })
    }
}

/// tfjs's `enclosingPowerOfTwo`: `2 ** ceil(log(n) / log(2))`, in the same f64 steps (which
/// give 2^30 for 2^29, as JavaScript's do).
pub fn enclosing_power_of_two(value: f64) -> f64 {
    2f64.powf((value.ln() / 2f64.ln()).ceil()).floor()
}
