//! Models in Rust: the layers of `tf.layers`, the Sequential and functional models that chain
//! them, and what training needs (initializers, regularizers, constraints, losses, metrics, one
//! training step per batch). Everything is written in the core's ops, so it runs on every
//! backend and its gradients come from the core's tape. Configs use tfjs's names (camelCase,
//! or Keras's snake_case from model files) and defaults.
//!
//! ```no_run
//! use tidytensor_layers::{json, layer, Model};
//! # fn main() -> tidytensor_core::Result<()> {
//! tidytensor_core::with_engine(|e| {
//!     tidytensor_backends::init(e)?;
//!     let mut m = Model::sequential(e, None, vec![
//!         layer("Dense", &json!({"units": 32, "activation": "relu", "inputShape": [4]}))?,
//!         layer("Dense", &json!({"units": 3, "activation": "softmax"}))?,
//!     ])?;
//!     m.compile(e, "adam", 0.0, "categoricalCrossentropy", &["accuracy"])?;
//!     m.dispose(e)?;
//!     Ok(())
//! })
//! # }
//! ```

pub mod activations;
pub mod config;
pub mod initializers;
pub mod layer;
pub mod layers;
pub mod losses;
pub mod metrics;
pub mod model;
pub mod regularizers;
pub mod synthetic;

pub use config::Cfg;
pub use layer::{Layer, LayerRef, Shape};
pub use layers::layer;
pub use model::{Model, ModelSource, Rows, Src};
pub use serde_json::json;
mod ops;
