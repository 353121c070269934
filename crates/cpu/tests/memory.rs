//! The cpu backend's own memory: the bytes its storages hold, and the pool that keeps large
//! freed buffers for reuse (`numBytesInBackendFree`) until `releasePool`. One test, because
//! the pool and the byte count are process-wide.

use std::sync::Arc;
use tidytensor_core::{with_engine, DType, Engine, UnaryOp};
use tidytensor_cpu::{thread_live_bytes, CpuBackend};

fn field(e: &Engine, name: &str) -> usize {
    e.memory().backend.fields.iter().find(|(n, _)| *n == name).map(|(_, v)| *v as usize).expect("field")
}

#[test]
fn live_bytes_and_the_pool_of_large_buffers() {
    with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        let m = e.memory().backend;
        assert!(!m.unreliable && m.reasons.is_empty());
        let names: Vec<&str> = m.fields.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["numBytesInBackend", "numBytesInBackendFree"]);
        e.release_pools().unwrap();
        assert_eq!(field(e, "numBytesInBackendFree"), 0);
        let start = (thread_live_bytes(), field(e, "numBytesInBackend"));
        // Above the pool's 2^14-element threshold; smaller buffers go back to the allocator.
        let len = 3 * (1 << 14) + 1;
        let bytes = len * 4;
        let x = e.fill(&[len], 1.0, DType::Float32).unwrap();
        assert_eq!(thread_live_bytes() - start.0, bytes as isize);
        assert_eq!(field(e, "numBytesInBackend") - start.1, bytes);
        let y = e.unary(UnaryOp::Neg, x).unwrap();
        e.dispose(y);
        assert_eq!(field(e, "numBytesInBackendFree"), bytes, "a freed large buffer waits in the pool");
        let z = e.unary(UnaryOp::Abs, x).unwrap();
        assert_eq!(field(e, "numBytesInBackendFree"), 0, "and is reused by the next output of its length");
        assert!(e.read(z).unwrap().to_f64().iter().all(|&v| v == 1.0));
        e.dispose(z);
        e.release_pools().unwrap();
        assert_eq!(field(e, "numBytesInBackendFree"), 0, "releasePool empties it");
        let small = e.fill(&[100], 1.0, DType::Float32).unwrap();
        e.dispose(small);
        assert_eq!(field(e, "numBytesInBackendFree"), 0, "small buffers are not pooled");
        e.dispose(x);
        e.release_pools().unwrap();
        assert_eq!((thread_live_bytes(), field(e, "numBytesInBackend")), start);
    });
}
