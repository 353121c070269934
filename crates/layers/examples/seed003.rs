//! The seed-003 model from Rust alone: build, compile, fit, predict, dispose, and show that
//! the engine's counts return to where they started. `cargo run -p tidytensor-layers
//! --example seed003 --release [-- wgpu]`.

use tidytensor_core::{with_engine, HostData};
use tidytensor_layers::{json, layer, synthetic, Model};

fn main() -> tidytensor_core::Result<()> {
    let backend = std::env::args().nth(1).unwrap_or_else(|| "cpu".into());
    with_engine(|e| {
        tidytensor_backends::init(e)?;
        tidytensor_backends::set_backend(e, &backend)?;
        let start = e.memory();
        let (n, features, classes) = (2048, 784, 10);
        let (xv, yv) = synthetic::separable(n, features, classes, 3);
        let x = e.tensor(HostData::F32(xv), &[n, features])?;
        let y = e.tensor(HostData::F32(yv), &[n, classes])?;

        let l2 = json!({"className": "L1L2", "config": {"l1": 0, "l2": 0.0001}});
        let layers = vec![
            layer(
                "Dense",
                &json!({"units": 256, "activation": "relu", "inputShape": [features], "kernelRegularizer": l2}),
            )?,
            layer("Dense", &json!({"units": classes, "activation": "softmax"}))?,
        ];
        let mut model = Model::sequential(e, None, layers)?;
        model.compile(e, "adam", 0.0, "categoricalCrossentropy", &["accuracy"])?;
        println!("backend {backend}: {} parameters", model.count_params(e));

        let t = std::time::Instant::now();
        for (epoch, logs) in model.fit(e, &[x], &[y], 3, 128, Some(1))?.iter().enumerate() {
            println!("epoch {}: loss {:.4} acc {:.4}", epoch + 1, logs[0], logs[1]);
        }
        println!("fit: {:.0} samples/s", (3 * n) as f64 / t.elapsed().as_secs_f64());
        let scores = model.evaluate(e, &[x], &[y], 256)?;
        println!("evaluate: loss {:.4} acc {:.4}", scores[0], scores[1]);
        let p = model.predict(e, &[x], 256)?;
        println!("predict: {:?}", e.shape(p[0])?);
        e.dispose(p[0]);

        let (_, freed) = model.dispose(e)?;
        e.dispose(x);
        e.dispose(y);
        let end = e.memory();
        println!(
            "dispose freed {freed} variables; tensors {} -> {}, bytes {} -> {}",
            start.num_tensors, end.num_tensors, start.num_bytes, end.num_bytes
        );
        assert_eq!((start.num_tensors, start.num_bytes), (end.num_tensors, end.num_bytes), "leaked");
        Ok(())
    })
}
