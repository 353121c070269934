//! Weight initializers (`tf.initializers`), drawn as tfjs draws them: the same distributions
//! with the same parameters, and the same values for the same seed.

use crate::config::{class_and_config, Cfg};
use serde_json::{json, Value};
use tidytensor_core::ops::Random;
use tidytensor_core::{bail, DType, Engine, HostData, Result, TensorId};

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Zeros,
    Ones,
    Constant(f64),
    RandomNormal { mean: f64, stddev: f64, seed: Option<String> },
    RandomUniform { min: f64, max: f64, seed: Option<String> },
    TruncatedNormal { mean: f64, stddev: f64, seed: Option<String> },
    VarianceScaling { scale: f64, mode: Fan, normal: bool, seed: Option<String> },
    Orthogonal { gain: f64, seed: Option<String> },
    Identity { gain: f64 },
}

/// Which fans VarianceScaling divides by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fan {
    In,
    Out,
    Avg,
}

fn seed_of(c: Cfg) -> Option<String> {
    c.get("seed").map(|s| match s {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

impl Initializer {
    /// From a name (`'glorotUniform'`, `'GlorotUniform'`, `'glorot_uniform'`) or a
    /// `{className, config}` object.
    pub fn parse(v: &Value) -> Result<Initializer> {
        let (class, config) = class_and_config(v)?;
        let c = Cfg::of(&config)?;
        let seed = seed_of(c);
        let vs = |scale: f64, mode: Fan, normal: bool| Initializer::VarianceScaling {
            scale,
            mode,
            normal,
            seed: seed.clone(),
        };
        let mut key = crate::config::camel(&class);
        if let Some(first) = key.get(0..1) {
            key = first.to_ascii_lowercase() + &key[1..];
        }
        Ok(match key.as_str() {
            "zeros" | "zero" => Initializer::Zeros,
            "ones" | "one" => Initializer::Ones,
            "constant" => Initializer::Constant(c.f64_or("value", 0.0)?),
            "randomNormal" => Initializer::RandomNormal {
                mean: c.f64_or("mean", 0.0)?,
                stddev: c.f64_or("stddev", 0.05)?,
                seed,
            },
            "randomUniform" => Initializer::RandomUniform {
                min: c.f64_or("minval", -0.05)?,
                max: c.f64_or("maxval", 0.05)?,
                seed,
            },
            "truncatedNormal" => Initializer::TruncatedNormal {
                mean: c.f64_or("mean", 0.0)?,
                stddev: c.f64_or("stddev", 0.05)?,
                seed,
            },
            "glorotUniform" => vs(1.0, Fan::Avg, false),
            "glorotNormal" => vs(1.0, Fan::Avg, true),
            "heUniform" => vs(2.0, Fan::In, false),
            "heNormal" => vs(2.0, Fan::In, true),
            "leCunUniform" | "lecunUniform" => vs(1.0, Fan::In, false),
            "leCunNormal" | "lecunNormal" => vs(1.0, Fan::In, true),
            "varianceScaling" => {
                let scale = c.f64_or("scale", 1.0)?;
                if scale < 0.0 {
                    bail!("scale must be a positive float. Got: {scale}");
                }
                let mode = match crate::config::camel(&c.str_or("mode", "fanIn")?).as_str() {
                    "fanIn" => Fan::In,
                    "fanOut" => Fan::Out,
                    "fanAvg" => Fan::Avg,
                    m => bail!("Invalid FanMode: {m}. Valid values are fanIn, fanOut, fanAvg"),
                };
                let normal = match c.str_or("distribution", "normal")?.as_str() {
                    "normal" | "truncatedNormal" | "truncated_normal" | "untruncated_normal" => true,
                    "uniform" => false,
                    d => bail!("Invalid Distribution: {d}. Valid values are normal, uniform"),
                };
                vs(scale, mode, normal)
            }
            "orthogonal" => Initializer::Orthogonal { gain: c.f64_or("gain", 1.0)?, seed },
            "identity" => Initializer::Identity { gain: c.f64_or("gain", 1.0)? },
            _ => bail!("Unknown initializer: {class}. This may be due to one of the following reasons:\n1. The initializer is defined in Python, in which case it needs to be ported to TensorFlow.js or your JavaScript code.\n2. The custom initializer is defined in JavaScript, but is not registered properly with tf.serialization.registerClass()."),
        })
    }

    /// The initializer in `c[key]`, else `default`.
    pub fn from_cfg(c: Cfg, key: &str, default: &str) -> Result<Initializer> {
        match c.get(key) {
            Some(v) => Initializer::parse(v),
            None => Initializer::parse(&Value::String(default.into())),
        }
    }

    /// `{className, config}` as tfjs serializes it.
    pub fn to_json(&self) -> Value {
        let seed =
            |s: &Option<String>| s.as_ref().map_or(Value::Null, |s| s.parse::<f64>().map_or(json!(s), |n| json!(n)));
        match self {
            Initializer::Zeros => json!({"className": "Zeros", "config": {}}),
            Initializer::Ones => json!({"className": "Ones", "config": {}}),
            Initializer::Constant(v) => json!({"className": "Constant", "config": {"value": v}}),
            Initializer::RandomNormal { mean, stddev, seed: s } => {
                json!({"className": "RandomNormal", "config": {"mean": mean, "stddev": stddev, "seed": seed(s)}})
            }
            Initializer::RandomUniform { min, max, seed: s } => {
                json!({"className": "RandomUniform", "config": {"minval": min, "maxval": max, "seed": seed(s)}})
            }
            Initializer::TruncatedNormal { mean, stddev, seed: s } => {
                json!({"className": "TruncatedNormal", "config": {"mean": mean, "stddev": stddev, "seed": seed(s)}})
            }
            Initializer::VarianceScaling { scale, mode, normal, seed: s } => {
                let mode = match mode {
                    Fan::In => "fanIn",
                    Fan::Out => "fanOut",
                    Fan::Avg => "fanAvg",
                };
                let distribution = if *normal { "normal" } else { "uniform" };
                // Glorot, He and LeCun are variance scalings, serialized as such (as tfjs).
                json!({"className": "VarianceScaling", "config": {"scale": scale, "mode": mode, "distribution": distribution, "seed": seed(s)}})
            }
            Initializer::Orthogonal { gain, seed: s } => {
                json!({"className": "Orthogonal", "config": {"gain": gain, "seed": seed(s)}})
            }
            Initializer::Identity { gain } => json!({"className": "Identity", "config": {"gain": gain}}),
        }
    }

    /// A new tensor of `shape` with this initializer's values.
    pub fn make(&self, e: &mut Engine, shape: &[usize], dtype: DType) -> Result<TensorId> {
        // First, so that no host table below is sized from a shape too large to hold.
        e.check_size(shape, dtype)?;
        match self {
            Initializer::Zeros => e.fill(shape, 0.0, dtype),
            Initializer::Ones => e.fill(shape, 1.0, dtype),
            // tfjs's `value * ones(shape, dtype)`: a float32 scalar times int32 or bool ones is
            // float32.
            Initializer::Constant(v) => {
                e.fill(shape, *v, if matches!(dtype, DType::Int32 | DType::Bool) { DType::Float32 } else { dtype })
            }
            Initializer::RandomNormal { mean, stddev, seed } => {
                e.random(shape, Random::Normal { mean: *mean, std_dev: *stddev }, dtype, seed.as_deref())
            }
            Initializer::RandomUniform { min, max, seed } => {
                e.random(shape, Random::Uniform { min: *min, max: *max }, dtype, seed.as_deref())
            }
            Initializer::TruncatedNormal { mean, stddev, seed } => {
                e.random(shape, Random::TruncatedNormal { mean: *mean, std_dev: *stddev }, dtype, seed.as_deref())
            }
            Initializer::VarianceScaling { scale, mode, normal, seed, .. } => {
                let (fan_in, fan_out) = fans(shape);
                let scale = scale
                    / match mode {
                        Fan::In => fan_in.max(1.0),
                        Fan::Out => fan_out.max(1.0),
                        Fan::Avg => ((fan_in + fan_out) / 2.0).max(1.0),
                    };
                let dist = if *normal {
                    Random::TruncatedNormal { mean: 0.0, std_dev: scale.sqrt() }
                } else {
                    let limit = (3.0 * scale).sqrt();
                    Random::Uniform { min: -limit, max: limit }
                };
                e.random(shape, dist, dtype, seed.as_deref())
            }
            Initializer::Orthogonal { gain, seed } => orthogonal(e, shape, *gain, seed.as_deref(), dtype),
            Initializer::Identity { gain } => {
                if shape.len() != 2 || shape[0] != shape[1] {
                    bail!("Identity matrix initializer can only be used for 2D square matrices.");
                }
                let n = shape[0];
                let mut v = vec![0f32; n * n];
                for i in 0..n {
                    v[i * n + i] = *gain as f32;
                }
                e.tensor(HostData::F32(v), shape)
            }
        }
    }
}

/// tfjs's `computeFans` (channels-last kernels).
pub fn fans(shape: &[usize]) -> (f64, f64) {
    match shape.len() {
        2 => (shape[0] as f64, shape[1] as f64),
        3..=5 => {
            let field: usize = shape[..shape.len() - 2].iter().product();
            ((shape[shape.len() - 2] * field) as f64, (shape[shape.len() - 1] * field) as f64)
        }
        _ => {
            let n = (shape.iter().product::<usize>() as f64).sqrt();
            (n, n)
        }
    }
}

/// An orthogonal matrix (reshaped to `shape`) from the QR factorisation of a normal one, signs
/// fixed by R's diagonal, as tfjs's Orthogonal (QR here by modified Gram-Schmidt in f64).
fn orthogonal(e: &mut Engine, shape: &[usize], gain: f64, seed: Option<&str>, dtype: DType) -> Result<TensorId> {
    if shape.len() < 2 {
        bail!("Shape must be at least 2D.");
    }
    if dtype != DType::Float32 {
        bail!("The Orthogonal initializer makes float32 values only, not {}", dtype.name());
    }
    let rows: usize = shape[..shape.len() - 1].iter().product();
    let cols = shape[shape.len() - 1];
    let (m, n) = (rows.max(cols), rows.min(cols));
    let a = e.random(&[m, n], Random::Normal { mean: 0.0, std_dev: 1.0 }, DType::Float32, seed)?;
    let values = e.read(a);
    e.dispose(a);
    let HostData::F32(a) = values? else { bail!("orthogonal: expected float32 values") };
    // Columns of Q, each m long.
    let mut q: Vec<Vec<f64>> = (0..n).map(|j| (0..m).map(|i| a[i * n + j] as f64).collect()).collect();
    for j in 0..n {
        for k in 0..j {
            let dot: f64 = (0..m).map(|i| q[k][i] * q[j][i]).sum();
            for i in 0..m {
                q[j][i] -= dot * q[k][i];
            }
        }
        let norm = q[j].iter().map(|x| x * x).sum::<f64>().sqrt();
        // R's diagonal is the norm (positive), so Q needs no sign change.
        for x in &mut q[j] {
            *x /= if norm > 0.0 { norm } else { 1.0 };
        }
    }
    let mut out = vec![0f32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            // Q is m x n; transposed when there are fewer rows than columns.
            let v = if rows >= cols { q[c][r] } else { q[r][c] };
            out[r * cols + c] = (gain * v) as f32;
        }
    }
    let t = e.tensor(HostData::F32(out), shape)?;
    if dtype == DType::Float32 {
        return Ok(t);
    }
    let c = e.cast(t, dtype);
    e.dispose(t);
    c
}
