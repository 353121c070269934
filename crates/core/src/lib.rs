//! The tidytensor engine: dtypes, shapes, the tensor registry with tfjs memory semantics
//! (scopes, keep, dispose, variables), the [`Backend`] trait and the op front-ends that
//! validate arguments before any kernel runs. It knows no backend and no JavaScript.

mod backend;
mod dtype;
mod engine;
mod error;
pub mod fingerprint;
pub mod host_memory;
pub mod js;
pub mod kernels;
pub mod ops;
pub mod random;
pub mod shape;
pub mod train;

pub use backend::{
    Activation, ArgOp, Backend, BackendMemory, BatchNormParams, Buffer, ConvGeom, CumOp, DataId, PoolOp, ReadDone,
    ReduceOp, StepKind, StepRule, Storage, Taps, View,
};
pub use dtype::{js_to_int32, numeric_only, DType, HostData};
pub use engine::{
    with_engine, BackwardStep, Encoding, Engine, GradArgs, GradFn, Gradient, Input, KernelOutputs, KernelRecord,
    Memory, ScopeId, Shared, TapeNode, TensorId, TensorInfo,
};
pub use error::{Error, Result};
pub use kernels::{BinaryOp, BinaryRule, DtypeRule, Grad, UnaryOp};
