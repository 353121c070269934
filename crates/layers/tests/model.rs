//! Models on every backend: the seed-003 model (dense 784→256 relu with an l2 kernel
//! regularizer, dense 10 softmax; adam, categoricalCrossentropy, accuracy) trains on a
//! separable problem, predicts, and leaves the engine's counts where they started once
//! disposed; a second fit adds nothing.

use tidytensor_core::{Engine, HostData};
use tidytensor_layers::{json, layer, synthetic, Model};
use tidytensor_suite::{backend_tests, f32s, usage};

fn seed_model(e: &mut Engine) -> Model {
    let layers = vec![
        layer("Dense", &json!({"units": 256, "activation": "relu", "inputShape": [784], "kernelRegularizer": {"className": "L1L2", "config": {"l1": 0, "l2": 0.0001}}})).unwrap(),
        layer("Dense", &json!({"units": 10, "activation": "softmax"})).unwrap(),
    ];
    let mut m = Model::sequential(e, None, layers).unwrap();
    m.compile(e, "adam", 0.0, "categoricalCrossentropy", &["accuracy"]).unwrap();
    m
}

fn seed_model_trains_and_leaks_nothing(e: &mut Engine) {
    let before = usage(e);
    let (xv, yv) = synthetic::separable(320, 784, 10, 7);
    let x = f32s(e, &xv, &[320, 784]);
    let y = f32s(e, &yv, &[320, 10]);
    let with_data = usage(e);
    let mut m = seed_model(e);
    assert_eq!(m.count_params(e), 784 * 256 + 256 + 256 * 10 + 10);
    assert_eq!(m.metric_names(), ["loss", "acc"]);
    let first = m.fit(e, &[x], &[y], 3, 32, Some(1)).unwrap();
    let after_first = usage(e);
    let second = m.fit(e, &[x], &[y], 1, 32, Some(2)).unwrap();
    assert_eq!(usage(e), after_first, "a second fit adds nothing");
    assert!(second[0][0] < first[0][0], "the loss falls: {first:?} then {second:?}");
    let eval = m.evaluate(e, &[x], &[y], 64).unwrap();
    assert!(eval[1] > 0.9, "accuracy {}", eval[1]);
    let p = m.predict(e, &[x], 100).unwrap();
    assert_eq!(e.shape(p[0]).unwrap(), &[320, 10]);
    let HostData::F32(probs) = e.read(p[0]).unwrap() else { panic!("float32") };
    let sum: f32 = probs[..10].iter().sum();
    assert!((sum - 1.0).abs() < 1e-4, "softmax rows sum to 1: {sum}");
    e.dispose(p[0]);
    // Two layers of two weights, and adam's two slots per weight plus its two accumulated betas.
    let (_, disposed) = m.dispose(e).unwrap();
    assert_eq!(disposed, 4 + 8 + 2);
    assert_eq!(usage(e), with_data, "dispose releases every weight and the optimizer");
    e.dispose(x);
    e.dispose(y);
    assert_eq!(usage(e), before);
}

fn failed_step_leaks_nothing(e: &mut Engine) {
    let mut m = seed_model(e);
    let before = usage(e);
    let x = f32s(e, &[0.0; 2 * 5], &[2, 5]);
    let y = f32s(e, &[0.0; 2 * 10], &[2, 10]);
    let err = m.train_batch(e, &[x], &[y], tidytensor_layers::Rows::Range(0, 2), None).unwrap_err();
    assert!(err.0.contains("input expected a batch of elements where each example has shape [784]"), "{}", err.0);
    e.dispose(x);
    e.dispose(y);
    assert_eq!(usage(e), before);
    m.dispose(e).unwrap();
}

backend_tests!(seed_model_trains_and_leaks_nothing, failed_step_leaks_nothing);
