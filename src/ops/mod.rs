//! Ops, one module per family (the same families as the core's front-ends and the JS ops):
//! each exported function is a thin call into the engine's front-end.

mod complex;
mod conv;
mod creation;
mod dynamic;
mod elementwise;
mod image;
mod layout;
mod losses;
mod matmul;
mod ragged;
mod reduce;
mod signal;
mod sparse;
mod string_ops;
