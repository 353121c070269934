//! The noise layers (gaussianNoise, gaussianDropout, alphaDropout): regularizers that change
//! their input while training only, the identity otherwise.

use super::one_output;
use crate::config::Cfg;
use crate::layer::{Kind, Shape};
use crate::ops::Ops;
use serde_json::{json, Map, Value};
use tidytensor_core::ops::Random;
use tidytensor_core::{BinaryOp, DType, Engine, Result, TensorId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoiseKind {
    /// `x + N(0, stddev)`.
    Gaussian,
    /// `x * N(1, sqrt(rate / (1 - rate)))`.
    GaussianDropout,
    /// Dropped values set to SELU's negative saturation, then an affine map that keeps the
    /// mean and variance (Keras's AlphaDropout).
    AlphaDropout,
}

pub struct Noise {
    kind: NoiseKind,
    /// `stddev` (Gaussian) or `rate` (the dropouts), as given: tfjs takes them unchecked and
    /// writes them back so.
    param: Option<f64>,
    /// AlphaDropout's noise shape (`null` entries take the input's size); tfjs does not write it.
    noise_shape: Option<Vec<Option<usize>>>,
}

impl Noise {
    pub fn new(c: Cfg, kind: NoiseKind) -> Result<Noise> {
        let key = if kind == NoiseKind::Gaussian { "stddev" } else { "rate" };
        let param = c.get(key).map(|_| c.f64_or(key, 0.0)).transpose()?;
        let noise_shape = if kind == NoiseKind::AlphaDropout { c.shape("noiseShape")? } else { None };
        Ok(Noise { kind, param, noise_shape })
    }

    fn normal(e: &mut Engine, shape: &[usize], mean: f64, std_dev: f64) -> Result<TensorId> {
        e.random(shape, Random::Normal { mean, std_dev }, DType::Float32, None)
    }
}

impl Kind for Noise {
    fn class_name(&self) -> &'static str {
        match self.kind {
            NoiseKind::Gaussian => "GaussianNoise",
            NoiseKind::GaussianDropout => "GaussianDropout",
            NoiseKind::AlphaDropout => "AlphaDropout",
        }
    }
    /// tfjs marks it `supportsMasking`: a mask passes through it.
    fn supports_masking(&self) -> bool {
        true
    }
    fn output_shapes(&self, inputs: &[Shape]) -> Result<Vec<Shape>> {
        Ok(vec![inputs[0].clone()])
    }
    fn call(&self, e: &mut Engine, _w: &[TensorId], inputs: &[TensorId], training: bool) -> Result<Vec<TensorId>> {
        let x = inputs[0];
        let shape = e.shape(x)?.to_vec();
        // The dropouts act for a rate strictly between 0 and 1 only (tfjs).
        let rate = self.param.unwrap_or(f64::NAN);
        let active = match self.kind {
            NoiseKind::Gaussian => true,
            _ => rate > 0.0 && rate < 1.0,
        };
        if !training || !active {
            return one_output(e.clone_tensor(x));
        }
        one_output(match self.kind {
            NoiseKind::Gaussian => {
                // tfjs's randomNormal takes an undefined stddev as 1.
                let n = Noise::normal(e, &shape, 0.0, self.param.unwrap_or(1.0))?;
                e.add(n, x)
            }
            NoiseKind::GaussianDropout => {
                let n = Noise::normal(e, &shape, 1.0, (rate / (1.0 - rate)).sqrt())?;
                e.mul(x, n)
            }
            NoiseKind::AlphaDropout => {
                let noise: Vec<usize> = match &self.noise_shape {
                    Some(n) => n.iter().zip(&shape).map(|(d, &s)| d.unwrap_or(s)).collect(),
                    None => shape.clone(),
                };
                let alpha = 1.673_263_242_354_377_3_f64;
                let scale = 1.050_700_987_355_480_5_f64;
                let alpha_p = -alpha * scale;
                let u = e.random(&noise, Random::Uniform { min: 0.0, max: 1.0 }, DType::Float32, None)?;
                let kept = e.binary_s(BinaryOp::GreaterEqual, u, rate)?;
                let kept = e.cast(kept, DType::Float32)?;
                let a = ((1.0 - rate) * (1.0 + rate * alpha_p * alpha_p)).powf(-0.5);
                let b = -a * alpha_p * rate;
                // tfjs: (x * kept + (kept - 1) * alphaP) * a + b.
                let xk = e.mul(x, kept)?;
                let dropped = e.add_s(kept, -1.0)?;
                let dropped = e.mul_s(dropped, alpha_p)?;
                let y = e.add(xk, dropped)?;
                let y = e.mul_s(y, a)?;
                e.add_s(y, b)
            }
        })
    }
    fn config(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let key = if self.kind == NoiseKind::Gaussian { "stddev" } else { "rate" };
        m.insert(key.into(), json!(self.param));
        m
    }
}
