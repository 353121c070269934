//! Tensors shared between threads' engines (core's engine/sharing.rs, on the cpu backend): a
//! weight loaded by two threads is one buffer, exported values are adopted without a copy, and
//! each thread's byte counts follow what it made, wherever the last holder drops it.

use std::sync::Arc;
use tidytensor_core::{with_engine, DType, Encoding, Engine, HostData, Shared};
use tidytensor_cpu::{thread_live_bytes, CpuBackend};

fn on_new_thread<R: Send + 'static>(f: impl FnOnce(&mut Engine) -> R + Send + 'static) -> R {
    std::thread::spawn(move || {
        with_engine(|e| {
            e.register_backend(Arc::new(CpuBackend::new()));
            f(e)
        })
    })
    .join()
    .expect("thread")
}

fn bytes_of(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn a_weight_two_threads_load_is_one_buffer() {
    let values: Vec<f32> = (0..1000).map(|i| (i as f32).sin()).collect();
    let bytes = bytes_of(&values);
    let (b1, b2) = (bytes.clone(), bytes.clone());
    // Thread one keeps its weight alive (exported) while thread two loads the same values.
    let first: Shared = on_new_thread(move |e| {
        let w = e.weight(&b1, Encoding::Values, DType::Float32, &[10, 100]).unwrap();
        assert_eq!(e.memory().num_bytes_shared, 4000);
        e.export(w).unwrap()
    });
    let (same, other, shared_bytes, read) = on_new_thread(move |e| {
        let w = e.weight(&b2, Encoding::Values, DType::Float32, &[10, 100]).unwrap();
        let mut changed = b2.clone();
        changed[0] ^= 1;
        let v = e.weight(&changed, Encoding::Values, DType::Float32, &[1000]).unwrap();
        let read = e.read(w).unwrap();
        let out = (e.export(w).unwrap().data_id(), e.export(v).unwrap().data_id(), e.memory().num_bytes_shared, read);
        e.dispose(w);
        e.dispose(v);
        assert_eq!(e.memory().num_bytes_shared, 0);
        out
    });
    assert_eq!(same, first.data_id(), "the second load reuses the first thread's buffer");
    assert_ne!(other, first.data_id(), "other values are another buffer");
    assert_eq!(shared_bytes, 8000);
    assert_eq!(read, HostData::F32(values));
    // Refused: bytes that are no whole number of values, or that do not fill the shape.
    with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        assert!(e.weight(&bytes[..7], Encoding::Values, DType::Float32, &[2]).is_err());
        assert!(e.weight(&bytes[..8], Encoding::Values, DType::Float32, &[3]).is_err());
        assert!(e.weight(&bytes[..8], Encoding::Values, DType::String, &[2]).is_err());
        assert_eq!(e.memory().num_tensors, 0);
    });
}

#[test]
fn quantized_weights_are_decoded_as_tfjs_decodes_them() {
    with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        let q = [0u8, 1, 2, 255];
        let (scale, min) = (0.1, -0.3);
        let w = e.weight(&q, Encoding::Uint8 { scale, min }, DType::Float32, &[4]).unwrap();
        let want: Vec<f32> = q.iter().map(|&v| (v as f64 * scale + min) as f32).collect();
        assert_eq!(e.read(w).unwrap(), HostData::F32(want));
        // int32: rounded as Math.round rounds (halves up).
        let i = e.weight(&[0, 0, 1, 0, 3, 0], Encoding::Uint16 { scale: 0.5, min: -1.0 }, DType::Int32, &[3]).unwrap();
        assert_eq!(e.read(i).unwrap(), HostData::I32(vec![-1, 0, 1]));
        let h = e.weight(&[0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7c], Encoding::Float16, DType::Float32, &[3]).unwrap();
        assert_eq!(e.read(h).unwrap(), HostData::F32(vec![1.0, -2.0, f32::INFINITY]));
        assert!(e.weight(&[0, 0], Encoding::Float16, DType::Int32, &[1]).is_err());
        // The same bytes under another quantization are other values, not the cached ones.
        let other = e.weight(&q, Encoding::Uint8 { scale, min: 0.0 }, DType::Float32, &[4]).unwrap();
        assert_ne!(e.export(other).unwrap().data_id(), e.export(w).unwrap().data_id());
        for t in [w, i, h, other] {
            e.dispose(t);
        }
    });
}

#[test]
fn adopted_values_are_read_in_place_and_counted_where_made() {
    // Made on a thread that then ends; adopted here; dropped here.
    let (exported, made_there) = on_new_thread(|e| {
        let before = thread_live_bytes();
        let x = e.tensor(HostData::F32(vec![1.0, 2.0, 3.0]), &[3]).unwrap();
        let s = e.export(x).unwrap();
        e.dispose(x);
        (s, thread_live_bytes() - before)
    });
    assert_eq!(made_there, 12, "the buffer is alive: counted by the thread that made it");
    with_engine(|e| {
        e.register_backend(Arc::new(CpuBackend::new()));
        let start = (e.memory().num_tensors, thread_live_bytes());
        let id = exported.data_id();
        let t = e.adopt(exported);
        assert_eq!(e.read(t).unwrap(), HostData::F32(vec![1.0, 2.0, 3.0]));
        assert_eq!(e.export(t).unwrap().data_id(), id, "no copy");
        let y = e.add(t, t).unwrap();
        assert_eq!(e.read(y).unwrap(), HostData::F32(vec![2.0, 4.0, 6.0]));
        e.dispose(t);
        e.dispose(y);
        assert_eq!((e.memory().num_tensors, thread_live_bytes()), start);
    });
}
