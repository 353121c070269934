//! tfjs's preprocessing layers: rescaling, centerCrop, resizing, categoryEncoding and
//! randomWidth. Images are `[batch?, height, width, channels]`; centerCrop and resizing keep an
//! int32 input's dtype where tfjs's ops do.

use super::one_output;
use crate::config::Cfg;
use crate::layer::{Kind, Shape};
use crate::ops::Ops;
use serde_json::{json, Map, Value};
use std::cell::Cell;
use tidytensor_core::ops::{Random, Resize};
use tidytensor_core::{bail, DType, Engine, HostData, ReduceOp, Result, TensorId};

/// A number of a config as JavaScript prints it in a template string.
fn js(v: f64) -> String {
    tidytensor_core::js::number(v)
}

/// A size the layer needs (`height`, `width`, `numTokens`).
fn size(c: Cfg, class: &str, key: &str) -> Result<usize> {
    if !c.has(key) {
        bail!("{key} is required but was not provided");
    }
    match c.get(key).and_then(Value::as_f64) {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= crate::config::MAX_INT as f64 => Ok(n as usize),
        _ => bail!("{class}: {key} must be a non-negative integer, got {}", super::json_text(c.get(key))),
    }
}

/// The height and width axes of an image (rank 3) or a batch of them (rank 4).
fn image_axes(class: &str, rank: usize) -> Result<[usize; 2]> {
    if rank != 3 && rank != 4 {
        bail!("{class} expects an image of rank 3 or a batch of rank 4, got rank {rank}");
    }
    Ok([rank - 3, rank - 2])
}

/// `x * scale + offset`, in float32.
pub struct Rescaling {
    scale: f64,
    offset: f64,
}

impl Rescaling {
    pub fn new(c: Cfg) -> Result<Rescaling> {
        if !c.has("scale") {
            bail!("scale is required but was not provided");
        }
        let Some(scale) = c.get("scale").and_then(Value::as_f64) else {
            bail!("Rescaling: scale must be a number, got {}", super::json_text(c.get("scale")));
        };
        Ok(Rescaling { scale, offset: c.f64_or("offset", 0.0)? })
    }
}

impl Kind for Rescaling {
    fn class_name(&self) -> &'static str {
        "Rescaling"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let y = e.mul_s(inputs[0], self.scale)?;
        one_output(e.add_s(y, self.offset))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("scale".into(), json!(self.scale));
        m.insert("offset".into(), json!(self.offset));
        m
    }
}

/// The central `height` x `width` window of each image (tfjs's nearest-neighbour
/// cropAndResize of the centred box); an image smaller than that is resized up (bilinear).
pub struct CenterCrop {
    height: usize,
    width: usize,
}

impl CenterCrop {
    pub fn new(c: Cfg) -> Result<CenterCrop> {
        Ok(CenterCrop { height: size(c, "CenterCrop", "height")?, width: size(c, "CenterCrop", "width")? })
    }
}

/// The source index of each of `crop` outputs along an axis of `len`, as tfjs's
/// nearest-neighbour cropAndResize picks it for the box `[buffer / len, (crop + buffer) / len]`
/// (its corners stored in float32): `None` where it samples outside (tfjs writes 0 there).
fn crop_taps(len: usize, crop: usize, buffer: usize) -> Vec<Option<usize>> {
    let lo = (buffer as f64 / len as f64) as f32 as f64;
    let hi = ((crop + buffer) as f64 / len as f64) as f32 as f64;
    let last = len as f64 - 1.0;
    let scale = if crop > 1 { (hi - lo) * last / (crop as f64 - 1.0) } else { 0.0 };
    (0..crop)
        .map(|i| {
            let at = if crop > 1 { lo * last + i as f64 * scale } else { 0.5 * (lo + hi) * last };
            // Math.round: halves go up.
            (at >= 0.0 && at <= last).then(|| (at + 0.5).floor() as usize)
        })
        .collect()
}

impl Kind for CenterCrop {
    fn class_name(&self) -> &'static str {
        "CenterCrop"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let mut s = inputs[0].clone();
        let [h, w] = image_axes("CenterCrop", s.len())?;
        s[h] = Some(self.height);
        s[w] = Some(self.width);
        Ok(vec![s])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let shape = e.shape(x)?.to_vec();
        let [ha, wa] = image_axes("CenterCrop", shape.len())?;
        let (ih, iw) = (shape[ha], shape[wa]);
        // tfjs's offsets: floor of half the difference; a width offset of 0 becomes 1.
        let h_buf = if ih != self.height { (ih as f64 - self.height as f64) / 2.0 } else { 0.0 }.floor();
        let mut w_buf = if iw != self.width { (iw as f64 - self.width as f64) / 2.0 } else { 0.0 }.floor();
        if iw != self.width && w_buf == 0.0 {
            w_buf = 1.0;
        }
        if h_buf < 0.0 || w_buf < 0.0 {
            let dtype = e.dtype(x)?;
            let y = e.resize(Resize::Bilinear, x, [self.height, self.width], false, false)?;
            return one_output(e.cast(y, dtype));
        }
        let mut y = x;
        for (axis, len, crop, buffer) in [(ha, ih, self.height, h_buf), (wa, iw, self.width, w_buf)] {
            let taps = crop_taps(len, crop, buffer as usize);
            // Samples outside the image read a row (column) of zeros appended for them.
            let outside = taps.iter().any(Option::is_none);
            if outside {
                let mut after = vec![0; shape.len()];
                after[axis] = 1;
                y = e.pad_zeros(y, &vec![0; shape.len()], &after)?;
            }
            let idx: Vec<i32> = taps.iter().map(|t| t.unwrap_or(len) as i32).collect();
            let idx = e.tensor(HostData::I32(idx), &[crop])?;
            y = e.gather(y, idx, axis as i64, 0)?;
        }
        one_output(if y == x { e.clone_tensor(x) } else { Ok(y) })
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("height".into(), json!(self.height));
        m.insert("width".into(), json!(self.width));
        m
    }
    fn keeps_dtype(&self) -> bool {
        true
    }
}

/// Resizes images to `height` x `width` (bilinear or nearest).
pub struct Resizing {
    height: usize,
    width: usize,
    nearest: bool,
    crop_to_aspect_ratio: bool,
}

impl Resizing {
    pub fn new(c: Cfg) -> Result<Resizing> {
        let nearest = match c.get("interpolation") {
            None => false,
            Some(Value::String(s)) if s == "bilinear" => false,
            Some(Value::String(s)) if s == "nearest" => true,
            Some(v) => bail!(
                "Invalid interpolation parameter: {} is not implemented",
                v.as_str().map_or_else(|| v.to_string(), str::to_string)
            ),
        };
        Ok(Resizing {
            height: size(c, "Resizing", "height")?,
            width: size(c, "Resizing", "width")?,
            nearest,
            crop_to_aspect_ratio: c.get("cropToAspectRatio").is_some_and(truthy),
        })
    }
}

/// JavaScript's `Boolean(v)`.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

impl Kind for Resizing {
    fn class_name(&self) -> &'static str {
        "Resizing"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        // tfjs's computeOutputShape is [height, width, inputShape[2]], right for an unbatched
        // image only; this is the shape its call gives, batched or not.
        let mut s = inputs[0].clone();
        let [h, w] = image_axes("Resizing", s.len())?;
        s[h] = Some(self.height);
        s[w] = Some(self.width);
        Ok(vec![s])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        // tfjs passes `!cropToAspectRatio` as the resize's alignCorners (and crops nothing).
        let method = if self.nearest { Resize::NearestNeighbor } else { Resize::Bilinear };
        one_output(e.resize(method, inputs[0], [self.height, self.width], !self.crop_to_aspect_ratio, false))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("height".into(), json!(self.height));
        m.insert("width".into(), json!(self.width));
        m.insert("interpolation".into(), json!(if self.nearest { "nearest" } else { "bilinear" }));
        m.insert("cropToAspectRatio".into(), json!(self.crop_to_aspect_ratio));
        m
    }
    fn keeps_dtype(&self) -> bool {
        true
    }
}

/// Integer category ids as one-hot, multi-hot or count vectors of `numTokens` entries.
pub struct CategoryEncoding {
    num_tokens: usize,
    /// `int`, `oneHot`, `multiHot`, `count` or `tfIdf`.
    mode: String,
}

impl CategoryEncoding {
    pub fn new(c: Cfg) -> Result<CategoryEncoding> {
        let mode = match c.get("outputMode") {
            None => "multiHot".to_string(),
            Some(Value::String(s)) if s.is_empty() => "multiHot".to_string(),
            Some(Value::String(s)) => match s.as_str() {
                "int" | "oneHot" | "multiHot" | "count" | "tfIdf" => s.clone(),
                "one_hot" => "oneHot".into(),
                "multi_hot" => "multiHot".into(),
                "tf_idf" => "tfIdf".into(),
                _ => bail!("CategoryEncoding: outputMode must be one of int, oneHot, multiHot, count, tfIdf, got {s}"),
            },
            Some(v) => bail!("CategoryEncoding: outputMode must be a string, got {v}"),
        };
        Ok(CategoryEncoding { num_tokens: size(c, "CategoryEncoding", "numTokens")?, mode })
    }
}

impl Kind for CategoryEncoding {
    fn class_name(&self) -> &'static str {
        "CategoryEncoding"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        let mut s = inputs[0].clone();
        if s.is_empty() {
            return Ok(vec![vec![Some(self.num_tokens)]]);
        }
        if self.mode == "oneHot" && s.last() != Some(&Some(1)) {
            s.push(Some(self.num_tokens));
        } else if let Some(last) = s.last_mut() {
            *last = Some(self.num_tokens);
        }
        Ok(vec![s])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let x = if e.dtype(x)? == DType::Int32 { x } else { e.cast(x, DType::Int32)? };
        // tfjs reads the extremes on the host and refuses ids outside [0, numTokens).
        let hi = e.reduce(ReduceOp::Max, x, None, false)?;
        let lo = e.reduce(ReduceOp::Min, x, None, false)?;
        let first = |d: HostData| match d {
            HostData::I32(v) => v.first().copied().unwrap_or(0) as i64,
            _ => 0,
        };
        let (hi, lo) = (first(e.read(hi)?), first(e.read(lo)?));
        if !(hi < self.num_tokens as i64 && lo >= 0) {
            bail!("Input values must be between 0 < values <= numTokens with numTokens={}", self.num_tokens);
        }
        if self.mode == "int" {
            return one_output(e.clone_tensor(x));
        }
        let original = e.shape(x)?.to_vec();
        let mut x = x;
        if original.is_empty() {
            x = e.expand_dims(x, -1)?;
        }
        if self.mode == "oneHot" && e.shape(x)?.last() != Some(&1) {
            x = e.expand_dims(x, -1)?;
        }
        let rank = e.shape(x)?.len();
        if rank > 2 {
            bail!(
                "When outputMode is not int, maximum output rank is 2 Received outputMode {} and input shape {} which would result in output rank {rank}.",
                self.mode,
                original.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
            );
        }
        if self.mode == "tfIdf" {
            // tfjs takes count weights for 'count' only, so 'tfIdf' never has its weights.
            bail!("When outputMode is 'tfIdf', weights must be provided.");
        }
        // denseBincount: the one-hot rows of the ids, summed per row (or marked, binary).
        let hot = e.one_hot(x, self.num_tokens as f64, 1.0, 0.0, DType::Float32)?;
        let counts = e.reduce(ReduceOp::Sum, hot, Some(&[rank as i64 - 1]), false)?;
        one_output(if self.mode == "count" {
            Ok(counts)
        } else {
            let zero = e.scalar(0.0)?;
            let any = e.binary(tidytensor_core::BinaryOp::Greater, counts, zero)?;
            e.cast(any, DType::Float32)
        })
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("numTokens".into(), json!(self.num_tokens));
        m.insert("outputMode".into(), json!(self.mode));
        m
    }
    fn keeps_dtype(&self) -> bool {
        true
    }
}

/// Resizes each call's images to a random width: `round(width * U(1 + lower, 1 + upper))`.
/// Always random (tfjs does not look at `training`); with a seed, the draws are tfjs's.
pub struct RandomWidth {
    factor: Value,
    lower: f64,
    upper: f64,
    nearest: bool,
    /// tfjs's RandomSeed: each call draws with the seed, then increments it.
    seed: Cell<Option<f64>>,
}

impl RandomWidth {
    pub fn new(c: Cfg) -> Result<RandomWidth> {
        let factor = c.get("factor").cloned().unwrap_or(Value::Null);
        let text = |v: &Value| match v {
            Value::Array(a) => a.iter().map(|x| super::json_text(Some(x))).collect::<Vec<_>>().join(","),
            Value::Null => "undefined".into(),
            v => super::json_text(Some(v)),
        };
        let (lower, upper) = match &factor {
            Value::Array(a) if a.len() == 2 && a.iter().all(Value::is_number) => {
                (a[0].as_f64().unwrap_or(f64::NAN), a[1].as_f64().unwrap_or(f64::NAN))
            }
            Value::Number(n) if n.as_f64().is_some_and(|f| f > 0.0) => {
                let f = n.as_f64().unwrap_or(f64::NAN);
                (-f, f)
            }
            v => bail!("Invalid factor: {}. Must be positive number or tuple of 2 numbers", text(v)),
        };
        if lower < -1.0 || upper < -1.0 {
            bail!("factor must have values larger than -1. Got: {}", text(&factor));
        }
        if upper < lower {
            bail!(
                "factor cannot have upper bound less than lower bound.\n        Got upper bound: {}.\n        Got lower bound: {}\n      ",
                js(upper),
                js(lower)
            );
        }
        let nearest = match c.get("interpolation") {
            None => false,
            Some(Value::String(s)) if s == "bilinear" => false,
            Some(Value::String(s)) if s == "nearest" => true,
            Some(v) => bail!(
                "Invalid interpolation parameter: {} is not implemented",
                v.as_str().map_or_else(|| v.to_string(), str::to_string)
            ),
        };
        let seed = match c.get("seed") {
            None => None,
            Some(v) => match v.as_f64() {
                Some(s) => Some(s),
                None => bail!("RandomWidth: seed must be a number, got {v}"),
            },
        };
        Ok(RandomWidth { factor, lower, upper, nearest, seed: Cell::new(seed) })
    }
}

impl Kind for RandomWidth {
    fn class_name(&self) -> &'static str {
        "RandomWidth"
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        // The width is drawn per call: unknown.
        let mut s = inputs[0].clone();
        let [_, w] = image_axes("RandomWidth", s.len())?;
        s[w] = None;
        Ok(vec![s])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], _t: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let shape = e.shape(x)?.to_vec();
        let [ha, wa] = image_axes("RandomWidth", shape.len())?;
        let seed = self.seed.get();
        self.seed.set(seed.map(|s| s + 1.0));
        let seed_text = seed.map(js);
        let dist = Random::Uniform { min: 1.0 + self.lower, max: 1.0 + self.upper };
        let f = e.random(&[1], dist, DType::Float32, seed_text.as_deref())?;
        let HostData::F32(v) = e.read(f)? else { bail!("RandomWidth: the drawn factor is not float32") };
        let width = (v[0] as f64 * shape[wa] as f64 + 0.5).floor();
        if !(width >= 0.0) {
            bail!("RandomWidth: the drawn width {} is not a valid size", js(width));
        }
        let method = if self.nearest { Resize::NearestNeighbor } else { Resize::Bilinear };
        one_output(e.resize(method, x, [shape[ha], width as usize], false, false))
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("factor".into(), self.factor.clone());
        m.insert("interpolation".into(), json!(if self.nearest { "nearest" } else { "bilinear" }));
        m.insert("seed".into(), json!(self.seed.get()));
        m
    }
    fn keeps_dtype(&self) -> bool {
        true
    }
}
