//! The optimizer update (`tf.train`): each rule's formula, element by element, in tfjs's order
//! of float32 operations, writing the new value and state in one pass.

use tidytensor_core::{StepKind, StepRule};

use crate::pool;

/// The new value, then the new state (`state` as `train.rs` orders it).
pub(crate) fn step(rule: &StepRule, v: &[f32], g: &[f32], s: &[&[f32]]) -> Vec<Vec<f32>> {
    let n = v.len();
    let mut out: Vec<Vec<f32>> = (0..=s.len()).map(|_| pool::take::<f32>(n)).collect();
    let c = rule.scalars;
    let (head, tail) = out.split_at_mut(1);
    let value = &mut head[0];
    match rule.kind {
        StepKind::Sgd => {
            for i in 0..n {
                value[i] = c[0] * g[i] + v[i];
            }
        }
        StepKind::Momentum { nesterov } => {
            let acc = &mut tail[0];
            for i in 0..n {
                let a = c[1] * s[0][i] + g[i];
                acc[i] = a;
                value[i] = if nesterov { c[0] * (g[i] + a * c[1]) + v[i] } else { c[0] * a + v[i] };
            }
        }
        StepKind::Adagrad => {
            let acc = &mut tail[0];
            for i in 0..n {
                let a = s[0][i] + g[i] * g[i];
                acc[i] = a;
                value[i] = (g[i] / (a + c[1]).sqrt()) * c[0] + v[i];
            }
        }
        StepKind::Adadelta => {
            let (ag, au) = tail.split_at_mut(1);
            for i in 0..n {
                let update = ((s[1][i] + c[3]).sqrt() / (s[0][i] + c[3]).sqrt()) * g[i];
                ag[0][i] = s[0][i] * c[1] + g[i] * g[i] * c[2];
                au[0][i] = s[1][i] * c[1] + update * update * c[2];
                value[i] = update * c[0] + v[i];
            }
        }
        StepKind::Adam => {
            let (m, vv) = tail.split_at_mut(1);
            for i in 0..n {
                let m1 = s[0][i] * c[1] + g[i] * c[2];
                let v1 = s[1][i] * c[3] + g[i] * g[i] * c[4];
                m[0][i] = m1;
                vv[0][i] = v1;
                value[i] = (m1 / c[6] / ((v1 / c[7]).sqrt() + c[5])) * c[0] + v[i];
            }
        }
        StepKind::Adamax => {
            let (m, u) = tail.split_at_mut(1);
            for i in 0..n {
                let m1 = s[0][i] * c[1] + g[i] * c[2];
                let u0 = s[1][i] * c[3];
                let u1 = g[i].abs();
                // tfjs's maximum: NaN if either is NaN.
                let un = if u0.is_nan() || u1.is_nan() { f32::NAN } else { u0.max(u1) };
                m[0][i] = m1;
                u[0][i] = un;
                value[i] = (c[0] / c[5]) * (m1 / (un + c[4])) + v[i];
            }
        }
        StepKind::RmsProp { centered } => {
            let (ms, rest) = tail.split_at_mut(1);
            let (mom, mg) = rest.split_at_mut(1);
            for i in 0..n {
                let ms1 = s[0][i] * c[1] + g[i] * g[i] * c[2];
                let den = if centered {
                    let mg1 = s[2][i] * c[1] + g[i] * c[2];
                    mg[0][i] = mg1;
                    (ms1 - (mg1 * mg1 + c[4])).sqrt()
                } else {
                    (ms1 + c[4]).sqrt()
                };
                let m1 = s[1][i] * c[3] + (g[i] * c[0]) / den;
                ms[0][i] = ms1;
                mom[0][i] = m1;
                value[i] = v[i] - m1;
            }
        }
    }
    out
}
