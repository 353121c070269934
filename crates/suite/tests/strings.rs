//! String tensors on every backend: made and read as bytes, counted by their UTF-8 bytes, the
//! layout ops and comparisons through integer codes, and the refusal of every other kernel.

use tidytensor_core::{BinaryOp, DType, Engine, TensorId, UnaryOp};
use tidytensor_suite::{backend_tests, fails, i32s, usage, values};

fn strs(e: &mut Engine, values: &[&str], shape: &[usize]) -> TensorId {
    e.strings(values.iter().map(|s| s.as_bytes().to_vec()).collect(), shape).unwrap()
}

fn read(e: &Engine, id: TensorId) -> Vec<String> {
    e.read_strings(id).unwrap().into_iter().map(|b| String::from_utf8(b).unwrap()).collect()
}

fn bytes_are_counted_and_freed(e: &mut Engine) {
    let before = usage(e);
    let x = strs(e, &["ab", "é", ""], &[3]);
    assert_eq!(e.memory().num_bytes - before.2, 4, "UTF-8 bytes");
    assert_eq!(e.dtype(x).unwrap(), DType::String);
    let r = e.reshape(x, &[1, 3]).unwrap();
    assert_eq!(e.memory().num_bytes - before.2, 8, "bytes are counted per tensor, as tfjs counts");
    assert_eq!(e.memory().num_data_buffers - before.1, 1, "reshape shares the values");
    assert_eq!(read(e, r), ["ab", "é", ""]);
    e.dispose(x);
    e.dispose(r);
    assert_eq!(usage(e), before);
    fails(e, "should have 2 values but has 3", |e| e.strings(vec![vec![]; 3], &[2]));
}

fn layout_ops_move_strings(e: &mut Engine) {
    let x = strs(e, &["a", "b", "c", "d", "e", "f"], &[2, 3]);
    let s = e.slice(x, &[0, 1], &[2, 2]).unwrap();
    assert_eq!(
        (e.shape(s).unwrap().to_vec(), read(e, s)),
        (vec![2, 2], ["b", "c", "e", "f"].iter().map(|s| s.to_string()).collect())
    );
    let t = e.transpose(x, None).unwrap();
    assert_eq!(read(e, t), ["a", "d", "b", "e", "c", "f"]);
    let y = strs(e, &["x", "y"], &[2, 1]);
    let c = e.concat(&[x, y], 1).unwrap();
    assert_eq!(read(e, c), ["a", "b", "c", "x", "d", "e", "f", "y"]);
    let st = e.stack(&[y, y], 0).unwrap();
    assert_eq!(read(e, st), ["x", "y", "x", "y"]);
    let idx = i32s(e, &[2, 0, 2], &[3]);
    let g = e.gather(x, idx, 1, 0).unwrap();
    assert_eq!(read(e, g), ["c", "a", "c", "f", "d", "f"]);
    let empty = e.slice(x, &[0, 0], &[0, 3]).unwrap();
    assert_eq!((e.shape(empty).unwrap().to_vec(), read(e, empty).len()), (vec![0, 3], 0));
    let n = i32s(e, &[1, 2], &[2, 1]);
    fails(e, "Can not upcast string with int32", |e| e.concat(&[y, n], 0));
}

fn comparisons_follow_javascript_order(e: &mut Engine) {
    // JavaScript compares UTF-16 code units: "\u{FF61}" sorts after "😀" (a surrogate pair).
    let x = strs(e, &["b", "a", "😀", "\u{FF61}", ""], &[5]);
    let b = strs(e, &["b"], &[]);
    let eq = e.binary(BinaryOp::Equal, x, b).unwrap();
    assert_eq!(values(e, eq, &[5], DType::Bool), [1., 0., 0., 0., 0.]);
    let lt = e.binary(BinaryOp::Less, x, b).unwrap();
    assert_eq!(values(e, lt, &[5], DType::Bool), [0., 1., 0., 0., 1.]);
    let y = strs(e, &["\u{FF61}"], &[1]);
    let gt = e.binary(BinaryOp::Greater, x, y).unwrap();
    assert_eq!(values(e, gt, &[5], DType::Bool), [0., 0., 0., 0., 0.]);
    fails(e, "must be numeric tensor, but got string tensor", |e| e.binary(BinaryOp::Add, x, b));
    let n = i32s(e, &[1], &[1]);
    fails(e, "Can not upcast string with int32", |e| e.binary(BinaryOp::Equal, x, n));
}

fn other_kernels_refuse_strings(e: &mut Engine) {
    let x = strs(e, &["a"], &[1]);
    fails(e, "must be numeric tensor, but got string tensor", |e| e.unary(UnaryOp::Neg, x));
    fails(e, "does not support string tensors", |e| e.reduce(tidytensor_core::ReduceOp::Sum, x, None, false));
    fails(e, "Cannot cast a string tensor to float32", |e| e.cast(x, DType::Float32));
    fails(e, "zerosLike is not supported for string tensors", |e| e.fill_like(x, 0.0));
    fails(e, "read with read_strings", |e| e.read(x));
}

backend_tests!(
    bytes_are_counted_and_freed,
    layout_ops_move_strings,
    comparisons_follow_javascript_order,
    other_kernels_refuse_strings,
);
