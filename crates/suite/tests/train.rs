//! The optimizers on every backend: five steps of `sum(x² + x)` from `[1, -2, 3]` reach the
//! values @tensorflow/tfjs 4.22 reaches (computed with it, same hyperparameters), their state
//! round-trips through `weights`/`set_weights`, and steps leave only the updated values.

use tidytensor_core::train::{Optimizer, Rule, EPSILON};
use tidytensor_core::{BinaryOp, Engine, ReduceOp, TensorId, UnaryOp};
use tidytensor_suite::{assert_close, backend_tests, f32s, values};

fn loss(e: &mut Engine, x: TensorId) -> tidytensor_core::Result<TensorId> {
    let sq = e.unary(UnaryOp::Square, x)?;
    let s = e.binary(BinaryOp::Add, sq, x)?;
    e.reduce(ReduceOp::Sum, s, None, false)
}

/// One `optimizer.minimize(f)`: the gradient of every trainable variable, then the update.
fn minimize(e: &mut Engine, opt: &mut Optimizer, x: TensorId) {
    let (y, g) = e.gradients(|e| loss(e, x), &[x], None, false).unwrap();
    let name = e.variable_name(x).unwrap().to_string();
    opt.apply_gradients(e, &[(name, g[0])]).unwrap();
    e.dispose(y);
    e.dispose(g[0].unwrap());
}

fn rules() -> Vec<(Rule, f64, [f64; 3])> {
    vec![
        (Rule::Sgd, 0.1, [-0.008480027318000793, -0.9915200471878052, 0.646880030632019]),
        (
            Rule::Momentum { momentum: 0.9, nesterov: false },
            0.1,
            [-1.370629906654358, 0.3706299960613251, -2.5314698219299316],
        ),
        (
            Rule::Momentum { momentum: 0.9, nesterov: true },
            0.1,
            [-1.123576283454895, 0.12357625365257263, -1.955011248588562],
        ),
        (Rule::Adagrad { initial_accumulator: 0.1 }, 0.1, [0.6912405490875244, -1.6912405490875244, 2.682561159133911]),
        (Rule::Adadelta { rho: 0.95, epsilon: EPSILON }, 1.0, [-2.0, 1.0, -4.0]),
        (
            Rule::Adam { beta1: 0.9, beta2: 0.999, epsilon: EPSILON },
            0.1,
            [0.5043630599975586, -1.504362940788269, 2.501485824584961],
        ),
        (
            Rule::Adamax { beta1: 0.9, beta2: 0.999, epsilon: EPSILON, decay: 0.1 },
            0.1,
            [0.6025715470314026, -1.6025716066360474, 2.5878849029541016],
        ),
        (
            Rule::RmsProp { decay: 0.9, momentum: 0.5, epsilon: EPSILON, centered: false },
            0.05,
            [0.1871362328529358, -1.1871362924575806, 2.1363861560821533],
        ),
        (
            Rule::RmsProp { decay: 0.9, momentum: 0.5, epsilon: EPSILON, centered: true },
            0.05,
            [0.09660139679908752, -1.0966013669967651, 2.0251379013061523],
        ),
    ]
}

fn five_steps_match_tfjs(e: &mut Engine) {
    for (rule, lr, want) in rules() {
        let init = f32s(e, &[1.0, -2.0, 3.0], &[3]);
        let x = e.variable(init, true, None, None).unwrap();
        e.dispose(init);
        let mut opt = Optimizer::new(e, rule.clone(), lr).unwrap();
        let before = e.memory().num_tensors;
        minimize(e, &mut opt, x);
        let after_first = e.memory().num_tensors;
        for _ in 0..4 {
            minimize(e, &mut opt, x);
        }
        assert_eq!(e.memory().num_tensors, after_first, "{rule:?}: steps after the first add nothing");
        assert_eq!(after_first - before, opt.weights().len(), "{rule:?}: the first step adds the state only");
        assert_eq!(opt.iterations, 5);
        let got = values(e, x, &[3], tidytensor_core::DType::Float32);
        assert_close(&got, &want, 2e-5);
        opt.dispose(e);
        e.dispose(x);
    }
}

/// `weights` lists each kind of state for every variable (tfjs's order); a new optimizer given
/// them continues where the first one was.
fn state_round_trips(e: &mut Engine) {
    let rule = Rule::Adam { beta1: 0.9, beta2: 0.999, epsilon: EPSILON };
    let init = f32s(e, &[1.0, -2.0, 3.0], &[3]);
    let x = e.variable(init, true, Some("w"), None).unwrap();
    e.dispose(init);
    let mut a = Optimizer::new(e, rule.clone(), 0.1).unwrap();
    for _ in 0..2 {
        minimize(e, &mut a, x);
    }
    let names: Vec<String> = a.weights().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["w/m", "w/v"]);
    let mut b = Optimizer::new(e, rule, 0.1).unwrap();
    b.set_weights(e, a.iterations, &a.weights()).unwrap();
    for _ in 0..3 {
        minimize(e, &mut b, x);
    }
    let got = values(e, x, &[3], tidytensor_core::DType::Float32);
    assert_close(&got, &[0.5043630599975586, -1.504362940788269, 2.501485824584961], 2e-5);
    a.dispose(e);
    b.dispose(e);
    e.dispose(x);
}

/// State from `set_weights` that does not fit its variable is an error, not a bad read.
fn mismatched_state_is_an_error(e: &mut Engine) {
    let init = f32s(e, &[1.0, -2.0, 3.0], &[3]);
    let x = e.variable(init, true, Some("mismatch"), None).unwrap();
    e.dispose(init);
    let mut opt = Optimizer::new(e, Rule::Momentum { momentum: 0.9, nesterov: false }, 0.1).unwrap();
    let short = f32s(e, &[0.5], &[1]);
    opt.set_weights(e, 0, &[("mismatch/momentum".into(), short)]).unwrap();
    e.dispose(short);
    let before = e.memory().num_tensors;
    tidytensor_suite::fails(e, "does not match its variable", |e| {
        let (y, g) = e.gradients(|e| loss(e, x), &[x], None, false)?;
        let r = opt.apply_gradients(e, &[("mismatch".into(), g[0])]);
        e.dispose(y);
        e.dispose(g[0].unwrap());
        r
    });
    assert_eq!(e.memory().num_tensors, before);
    opt.dispose(e);
    e.dispose(x);
}

backend_tests!(five_steps_match_tfjs, state_round_trips, mismatched_state_is_an_error);
