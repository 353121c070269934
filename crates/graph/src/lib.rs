//! tfjs graph models (`format: 'graph-model'`, written by tensorflowjs_converter): a TensorFlow
//! GraphDef as JSON, executed node by node through the core's ops, as tfjs-converter 4.22's
//! `GraphExecutor` executes it. Usable without JavaScript.
//!
//! - [`Graph::load`] parses the GraphDef (`graph.rs`) and its library's functions, takes
//!   ownership of one weight tensor per `Const` node (kept, so that no scope disposes them) and
//!   notes whether the graph needs control flow.
//! - [`Graph::execute`] (`exec.rs`) checks the feeds and outputs with tfjs's texts, finds the
//!   nodes the outputs need (tfjs's `getExecutionSubgraph`, refusing dynamic ops as tfjs's
//!   `execute` does), orders them (`getNodesInTopologicalOrder`), runs each node's op in a scope
//!   of its own and disposes every intermediate tensor after its last consumer ran. The outputs
//!   belong to the caller's scope; on error everything the call made is disposed.
//! - [`Graph::execute_async`] (`flow.rs`) is tfjs's `executeAsync`: the order found while
//!   running (`executeWithControlFlow`), tensors keyed by frame and iteration (tfjs's
//!   `ExecutionContext`), Switch's untaken output dead, each output freed once its readers in
//!   its frame ran; the control ops (`ops/control.rs`: frames, Switch/Merge, TensorArray and
//!   TensorList), `If`/`While` over the library's functions (parsed as graphs of their own), and
//!   the dynamic ops (`ops/dynamic.rs`: non-max suppression, Where, ListDiff) run only there.
//!   [`Graph::start`] gives the same as an [`Execution`] to resume in slices (the event loop
//!   runs between them), abortable, within [`Limits`] (call depth, loop iterations).
//! - `ops/<category>.rs`: the ops, one file per tfjs-converter executor (`arithmetic`,
//!   `basic_math`, `convolution` ...), with its attribute names and defaults (`op_table.rs`
//!   lists every op tfjs maps). Every op, composed ones included, is the core's (`tf.*` runs the
//!   same front-ends); this crate reads the node's inputs and attributes and calls it.

// `!(x > 0.0)` is meant: NaN fails the checks it guards, as it fails tfjs's.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod attr;
mod exec;
mod flow;
mod graph;
pub mod onnx;
mod op_table;
mod ops;

pub use attr::{custom_op_attrs, parse_dtype, parse_shape, AttrReader, AttrValue, Attrs, Decoded};
pub use exec::{ExecuteOptions, Executed};
pub use flow::{Execution, Limits, DEFAULT_MAX_CALL_DEPTH};
pub use graph::{Graph, GraphSource, Node, TensorSpec};
pub use ops::supported_ops;
