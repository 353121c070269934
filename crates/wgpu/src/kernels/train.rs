//! The optimizer update (`tf.train`): one dispatch computes the new value and state of a
//! variable into one packed buffer (the rule's formula in WGSL, in tfjs's order of
//! operations), which copies then split into the output storages.

use std::sync::Arc;

use tidytensor_core::{DType, Result, StepKind, StepRule, Storage};

use super::{bind, launch, run1d, sbind, shader, u32_of};
use crate::device::{Gpu, WG};
use crate::WgpuStorage;

const STEP: &str = include_str!("../shaders/train/step.wgsl");

/// The WGSL statements of one rule: they write `Y[j * n + i]` for the value (j = 0) and each
/// piece of state.
fn body(kind: StepKind) -> &'static str {
    match kind {
        StepKind::Sgd => "    Y[i] = c(0u) * g + v;",
        StepKind::Momentum { nesterov: false } => {
            "    let a = c(1u) * X2[i] + g;\n    Y[n + i] = a;\n    Y[i] = c(0u) * a + v;"
        }
        StepKind::Momentum { nesterov: true } => {
            "    let a = c(1u) * X2[i] + g;\n    Y[n + i] = a;\n    Y[i] = c(0u) * (g + a * c(1u)) + v;"
        }
        StepKind::Adagrad => {
            "    let a = X2[i] + g * g;\n    Y[n + i] = a;\n    Y[i] = (g / sqrt(a + c(1u))) * c(0u) + v;"
        }
        StepKind::Adadelta => {
            "    let u = (sqrt(X3[i] + c(3u)) / sqrt(X2[i] + c(3u))) * g;\n\
             \x20   Y[n + i] = X2[i] * c(1u) + g * g * c(2u);\n\
             \x20   Y[2u * n + i] = X3[i] * c(1u) + u * u * c(2u);\n\
             \x20   Y[i] = u * c(0u) + v;"
        }
        StepKind::Adam => {
            "    let m = X2[i] * c(1u) + g * c(2u);\n\
             \x20   let s = X3[i] * c(3u) + g * g * c(4u);\n\
             \x20   Y[n + i] = m;\n\
             \x20   Y[2u * n + i] = s;\n\
             \x20   Y[i] = (m / c(6u) / (sqrt(s / c(7u)) + c(5u))) * c(0u) + v;"
        }
        StepKind::Adamax => {
            "    let m = X2[i] * c(1u) + g * c(2u);\n\
             \x20   let u0 = X3[i] * c(3u);\n\
             \x20   let u1 = abs(g);\n\
             \x20   var u = max(u0, u1);\n\
             \x20   if (is_nan(u0) || is_nan(u1)) { u = nan_f(); }\n\
             \x20   Y[n + i] = m;\n\
             \x20   Y[2u * n + i] = u;\n\
             \x20   Y[i] = (c(0u) / c(5u)) * (m / (u + c(4u))) + v;"
        }
        StepKind::RmsProp { centered: false } => {
            "    let ms = X2[i] * c(1u) + g * g * c(2u);\n\
             \x20   let mo = X3[i] * c(3u) + (g * c(0u)) / sqrt(ms + c(4u));\n\
             \x20   Y[n + i] = ms;\n\
             \x20   Y[2u * n + i] = mo;\n\
             \x20   Y[i] = v - mo;"
        }
        StepKind::RmsProp { centered: true } => {
            "    let ms = X2[i] * c(1u) + g * g * c(2u);\n\
             \x20   let mg = X4[i] * c(1u) + g * c(2u);\n\
             \x20   let mo = X3[i] * c(3u) + (g * c(0u)) / sqrt(ms - (mg * mg + c(4u)));\n\
             \x20   Y[n + i] = ms;\n\
             \x20   Y[2u * n + i] = mo;\n\
             \x20   Y[3u * n + i] = mg;\n\
             \x20   Y[i] = v - mo;"
        }
    }
}

pub(crate) fn optimizer_step(
    gpu: &Arc<Gpu>,
    rule: &StepRule,
    value: &WgpuStorage,
    grad: &WgpuStorage,
    state: &[&WgpuStorage],
    n: usize,
) -> Result<Vec<Box<dyn Storage>>> {
    let outputs = state.len() + 1;
    let mut params = vec![u32_of(n, "size")?];
    params.extend(rule.scalars.iter().map(|s| s.to_bits()));
    let key = format!("optimizer_step:{:?}", rule.kind);
    let inputs = 2 + state.len();
    let packed = launch(gpu, outputs * n, DType::Float32, |g, st, o| {
        let src = || shader(&vec!["f32"; inputs], "f32", "", &STEP.replace("$BODY", body(rule.kind)));
        let mut binds = vec![sbind(value), sbind(grad)];
        binds.extend(state.iter().map(|s| sbind(s)));
        run1d(g, st, &key, src, &binds, bind(o), &params, n, WG)
    })?;
    let packed: &WgpuStorage = packed.as_any().downcast_ref().expect("a wgpu storage");
    (0..outputs)
        .map(|j| {
            launch(gpu, n, DType::Float32, |g, st, o| {
                g.copy(st, &packed.raw.buf, (j * n * 4) as u64, &o.buf, 0, (n * 4) as u64);
                Ok(())
            })
        })
        .collect()
}
