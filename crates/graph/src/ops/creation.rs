//! tfjs-converter's `creation_executor.ts`.

use super::{not_here, want_dtype, Ctx};
use tidytensor_core::js::number as js_number_string;
use tidytensor_core::ops::Random;
use tidytensor_core::{bail, DType, Engine, Result, TensorId};

pub(crate) const OPS: &[&str] = &[
    "Fill",
    "LinSpace",
    "OneHot",
    "Ones",
    "OnesLike",
    "RandomStandardNormal",
    "RandomUniform",
    "RandomUniformInt",
    "Range",
    "TruncatedNormal",
    "Zeros",
    "ZerosLike",
    "Multinomial",
];

/// A shape read from a tensor: non-negative integers.
pub(crate) fn shape_arg(v: &[f64]) -> Result<Vec<usize>> {
    if !v.iter().all(|&d| d >= 0.0 && d.fract() == 0.0 && d < 9007199254740992.0) {
        bail!("Tensor must have a shape comprised of positive integers but got shape [{}].", super::js_list(v));
    }
    Ok(v.iter().map(|&d| d as usize).collect())
}

/// The seed string tfjs's generators hash; normal draws take a falsy seed as none.
fn seed(v: f64, falsy_is_none: bool) -> Option<String> {
    (!(falsy_is_none && (v == 0.0 || v.is_nan()))).then(|| js_number_string(v))
}

pub(crate) fn run(e: &mut Engine, c: &Ctx) -> Result<Vec<TensorId>> {
    let op = c.node.op.as_str();
    let a = c.attrs();
    Ok(vec![match op {
        "Fill" => {
            let shape = shape_arg(&c.nums(e, 0)?)?;
            let value = c.num(e, 1)?;
            let dtype = want_dtype(c, "T", Some(DType::Float32))?;
            e.fill(&shape, value, dtype)?
        }
        "LinSpace" => {
            let (start, stop, num) = (c.num(e, 0)?, c.num(e, 1)?, c.num(e, 2)?);
            if num <= 0.0 {
                bail!("The number of values should be positive.");
            }
            if num.fract() != 0.0 || !num.is_finite() {
                bail!("linspace: the number of values must be an integer but got {}", js_number_string(num));
            }
            e.linspace(start, stop, num as i64)?
        }
        "OneHot" => {
            let (depth, on, off) = (c.num(e, 1)?, c.num(e, 2)?, c.num(e, 3)?);
            let dtype = want_dtype(c, "T", Some(DType::Int32))?;
            e.one_hot(c.t(0)?, depth, on, off, dtype)?
        }
        "Ones" | "Zeros" => {
            let shape = shape_arg(&c.nums(e, 0)?)?;
            let dtype = want_dtype(c, "T", Some(DType::Float32))?;
            e.filled(&shape, if op == "Ones" { 1.0 } else { 0.0 }, dtype)?
        }
        "OnesLike" => e.fill_like(c.t(0)?, 1.0)?,
        "ZerosLike" => e.fill_like(c.t(0)?, 0.0)?,
        "RandomStandardNormal" | "TruncatedNormal" => {
            let shape = shape_arg(&c.nums(e, 0)?)?;
            let dtype = want_dtype(c, "dtype", Some(DType::Float32))?;
            if dtype == DType::Bool {
                bail!("Unsupported data type bool");
            }
            let s = seed(a.number("seed", 0.0), true);
            let dist = if op == "TruncatedNormal" {
                Random::TruncatedNormal { mean: a.number("means", 0.0), std_dev: a.number("stddev", 1.0) }
            } else {
                Random::Normal { mean: 0.0, std_dev: 1.0 }
            };
            e.random(&shape, dist, dtype, s.as_deref())?
        }
        "RandomUniform" | "RandomUniformInt" => {
            let shape = shape_arg(&c.nums(e, 0)?)?;
            let dtype =
                if op == "RandomUniformInt" { DType::Int32 } else { want_dtype(c, "dtype", Some(DType::Float32))? };
            let max_default = if op == "RandomUniform" { 1.0 } else { 0.0 };
            let dist = Random::Uniform { min: a.number("minval", 0.0), max: a.number("maxval", max_default) };
            let s = seed(a.number("seed", 0.0), false);
            e.random(&shape, dist, dtype, s.as_deref())?
        }
        "Range" => {
            let (start, stop, step) = (c.num(e, 0)?, c.num(e, 1)?, c.num(e, 2)?);
            let dtype = want_dtype(c, "Tidx", Some(DType::Float32))?;
            e.range(start, stop, step, dtype)?
        }
        "Multinomial" => {
            let seed = seed(a.number("seed", f64::NAN), true);
            e.multinomial(c.t(0)?, c.num(e, 1)?, seed.as_deref(), false)?
        }
        _ => return not_here(op),
    }])
}
