//! Every kernel against a naive reference, on small and (for the threaded paths) large shapes.

use super::*;
use tidytensor_core::js_to_int32;
use tidytensor_core::shape::strides;

struct T {
    s: Box<dyn Storage>,
    shape: Vec<usize>,
    dtype: DType,
}

impl T {
    fn view(&self) -> View<'_> {
        View { storage: self.s.as_ref(), shape: &self.shape, dtype: self.dtype }
    }
}

fn be() -> CpuBackend {
    CpuBackend::new()
}

fn t(data: HostData, shape: &[usize]) -> T {
    assert_eq!(data.len(), shape.iter().product::<usize>(), "test tensor size");
    let dtype = data.dtype();
    T { s: be().upload(data).unwrap(), shape: shape.to_vec(), dtype }
}

fn f32s(v: &[f32], shape: &[usize]) -> T {
    t(HostData::F32(v.to_vec()), shape)
}

fn i32s(v: &[i32], shape: &[usize]) -> T {
    t(HostData::I32(v.to_vec()), shape)
}

fn bools(v: &[u8], shape: &[usize]) -> T {
    t(HostData::Bool(v.to_vec()), shape)
}

fn read(s: &dyn Storage, shape: &[usize], dtype: DType) -> HostData {
    be().read(View { storage: s, shape, dtype }).unwrap()
}

fn rd(s: Box<dyn Storage>, shape: &[usize], dtype: DType) -> HostData {
    read(s.as_ref(), shape, dtype)
}

/// Deterministic pseudo-random numbers (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn f32(&mut self) -> f32 {
        (self.next() % 20001) as f32 / 1000.0 - 10.0
    }
    fn i32(&mut self) -> i32 {
        (self.next() % 2001) as i32 - 1000
    }
    fn vec_f32(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }
    fn vec_i32(&mut self, n: usize) -> Vec<i32> {
        (0..n).map(|_| self.i32()).collect()
    }
    fn vec_bool(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() % 2) as u8).collect()
    }
}

fn random(rng: &mut Lcg, dtype: DType, shape: &[usize]) -> T {
    let n = shape.iter().product();
    match dtype {
        DType::Float32 => f32s(&rng.vec_f32(n), shape),
        DType::Int32 => i32s(&rng.vec_i32(n), shape),
        DType::Bool => bools(&rng.vec_bool(n), shape),
    }
}

/// Equal values, NaN equal to NaN.
fn same(a: &HostData, b: &HostData) -> bool {
    match (a, b) {
        (HostData::F32(x), HostData::F32(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p == q || (p.is_nan() && q.is_nan()))
        }
        _ => a == b,
    }
}

fn close(got: &[f32], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let g = g as f64;
        if w.is_nan() {
            assert!(g.is_nan(), "index {i}: got {g}, want NaN");
            continue;
        }
        if w.is_infinite() {
            assert_eq!(g, w, "index {i}");
            continue;
        }
        assert!((g - w).abs() <= rel * w.abs().max(1.0), "index {i}: got {g}, want {w}");
    }
}

fn f32_of(h: HostData) -> Vec<f32> {
    match h {
        HostData::F32(v) => v,
        other => panic!("expected float32, got {:?}", other.dtype()),
    }
}

fn i32_of(h: HostData) -> Vec<i32> {
    match h {
        HostData::I32(v) => v,
        other => panic!("expected int32, got {:?}", other.dtype()),
    }
}

fn to_dtype(values: impl IntoIterator<Item = f64>, dtype: DType) -> HostData {
    let v: Vec<f64> = values.into_iter().collect();
    match dtype {
        DType::Float32 => HostData::F32(v.iter().map(|&x| x as f32).collect()),
        DType::Int32 => HostData::I32(v.iter().map(|&x| js_to_int32(x)).collect()),
        DType::Bool => HostData::Bool(v.iter().map(|&x| (x != 0.0) as u8).collect()),
    }
}

// ---------------------------------------------------------------------------------------------
// upload / read / fill / cast

#[test]
fn large_buffers_are_pooled_and_released() {
    let len = crate::pool::MIN_LEN * 3 + 1; // a length no other test uses
    let x = f32s(&vec![1.0; len], &[len]);
    let y = be().unary(tidytensor_core::UnaryOp::Neg, x.view(), DType::Float32).unwrap();
    let HostData::F32(v) = y.as_any().downcast_ref::<CpuStorage>().unwrap().data() else { panic!("f32") };
    let ptr = v.as_ptr();
    drop(y);
    let again: Vec<f32> = crate::pool::take(len);
    assert_eq!(again.as_ptr(), ptr, "a freed large buffer is reused");
    crate::pool::give(again);
    assert_eq!(crate::pool::waiting::<f32>(len), 1);
    be().release_pool().unwrap();
    assert_eq!(crate::pool::waiting::<f32>(len), 0);
    let z = be().unary(tidytensor_core::UnaryOp::Abs, x.view(), DType::Float32).unwrap();
    assert_eq!(
        be().read(View { storage: &*z, shape: &[len], dtype: DType::Float32 }).unwrap(),
        HostData::F32(vec![1.0; len])
    );
}

#[test]
fn upload_read_roundtrip_and_memory() {
    let x = f32s(&[1.0, 2.0, 3.0], &[3]);
    assert_eq!(be().read(x.view()).unwrap(), HostData::F32(vec![1.0, 2.0, 3.0]));
    let b = bools(&[1, 0], &[2]);
    assert_eq!(be().read(b.view()).unwrap(), HostData::Bool(vec![1, 0]));
    let m = be().memory();
    assert!(!m.unreliable && m.reasons.is_empty());
    assert_eq!(m.fields.len(), 2);
    assert_eq!(m.fields[0].0, "numBytesInBackend");
    assert!(m.fields[0].1 >= 14.0);
    assert_eq!(m.fields[1].0, "numBytesInBackendFree");
    assert_eq!(be().name(), "cpu");
}

#[test]
fn views_that_lie_are_errors() {
    let x = f32s(&[1.0, 2.0, 3.0], &[3]);
    let bad = View { storage: x.s.as_ref(), shape: &[4], dtype: DType::Float32 };
    assert!(be().read(bad).is_err());
    let bad = View { storage: x.s.as_ref(), shape: &[3], dtype: DType::Int32 };
    assert!(be().unary(UnaryOp::Neg, bad, DType::Int32).is_err());
}

#[test]
fn fill_every_dtype() {
    assert_eq!(rd(be().fill(3, 2.5, DType::Float32).unwrap(), &[3], DType::Float32), HostData::F32(vec![2.5; 3]));
    assert_eq!(rd(be().fill(2, -7.0, DType::Int32).unwrap(), &[2], DType::Int32), HostData::I32(vec![-7; 2]));
    assert_eq!(rd(be().fill(2, 1.0, DType::Bool).unwrap(), &[2], DType::Bool), HostData::Bool(vec![1; 2]));
    assert_eq!(rd(be().fill(0, 1.0, DType::Bool).unwrap(), &[0], DType::Bool), HostData::Bool(vec![]));
}

#[test]
fn to_int32_is_js_toint32() {
    assert_eq!(js_to_int32(1.9), 1);
    assert_eq!(js_to_int32(-1.9), -1);
    assert_eq!(js_to_int32(f64::NAN), 0);
    assert_eq!(js_to_int32(f64::INFINITY), 0);
    assert_eq!(js_to_int32(f64::NEG_INFINITY), 0);
    assert_eq!(js_to_int32(2147483647.9), 2147483647);
    assert_eq!(js_to_int32(-2147483648.9), -2147483648);
    assert_eq!(js_to_int32(2147483648.0), -2147483648);
    assert_eq!(js_to_int32(4294967296.0 + 5.0), 5);
    assert_eq!(js_to_int32(-4294967296.0 - 5.5), -5);
    assert_eq!(js_to_int32(3e9), -1294967296);
    assert_eq!(js_to_int32(1e300), 0); // 1e300 is a multiple of 2^32
}

#[test]
fn casts_follow_tfjs() {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let x = f32s(&[1.5, -1.5, nan, inf, -inf, 3e9, -3e9, 0.0, -0.0], &[9]);
    let sh = &[9];
    assert_eq!(
        rd(be().cast(x.view(), DType::Int32).unwrap(), sh, DType::Int32),
        HostData::I32(vec![1, -1, 0, 0, 0, -1294967296, 1294967296, 0, 0])
    );
    assert_eq!(
        rd(be().cast(x.view(), DType::Bool).unwrap(), sh, DType::Bool),
        HostData::Bool(vec![1, 1, 1, 1, 1, 1, 1, 0, 0])
    );
    assert!(same(&rd(be().cast(x.view(), DType::Float32).unwrap(), sh, DType::Float32), &be().read(x.view()).unwrap()));
    let i = i32s(&[0, -3, 16777217, i32::MIN], &[4]);
    assert_eq!(
        rd(be().cast(i.view(), DType::Float32).unwrap(), &[4], DType::Float32),
        HostData::F32(vec![0.0, -3.0, 16777216.0, -2147483648.0])
    );
    assert_eq!(rd(be().cast(i.view(), DType::Bool).unwrap(), &[4], DType::Bool), HostData::Bool(vec![0, 1, 1, 1]));
    let b = bools(&[1, 0, 1], &[3]);
    assert_eq!(rd(be().cast(b.view(), DType::Int32).unwrap(), &[3], DType::Int32), HostData::I32(vec![1, 0, 1]));
    assert_eq!(
        rd(be().cast(b.view(), DType::Float32).unwrap(), &[3], DType::Float32),
        HostData::F32(vec![1.0, 0.0, 1.0])
    );
    // Large (threaded) cast.
    let n = 100_000;
    let big = f32s(&(0..n).map(|i| i as f32 - 0.5).collect::<Vec<_>>(), &[n]);
    let got = i32_of(rd(be().cast(big.view(), DType::Int32).unwrap(), &[n], DType::Int32));
    assert!(got.iter().enumerate().all(|(i, &v)| v == js_to_int32(i as f64 - 0.5)));
}

// ---------------------------------------------------------------------------------------------
// unary

const UNARY: [UnaryOp; 9] = [
    UnaryOp::Neg,
    UnaryOp::Square,
    UnaryOp::Sqrt,
    UnaryOp::Exp,
    UnaryOp::Log,
    UnaryOp::Abs,
    UnaryOp::Relu,
    UnaryOp::Sigmoid,
    UnaryOp::Tanh,
];

fn unary_ref(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Square => x * x,
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Abs => x.abs(),
        UnaryOp::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::Tanh => x.tanh(),
    }
}

#[test]
fn unary_float_matches_reference() {
    let mut rng = Lcg(1);
    for n in [0usize, 1, 7, 100_000] {
        let mut v = rng.vec_f32(n);
        if n > 3 {
            v[0] = f32::NAN;
            v[1] = f32::INFINITY;
            v[2] = -0.0;
        }
        let x = f32s(&v, &[n]);
        for op in UNARY {
            let got = f32_of(rd(be().unary(op, x.view(), DType::Float32).unwrap(), &[n], DType::Float32));
            let want: Vec<f64> = v.iter().map(|&a| unary_ref(op, a as f64)).collect();
            close(&got, &want, 1e-5);
        }
    }
    // NaN stays NaN through relu; sigmoid saturates.
    let x = f32s(&[f32::NAN, -100.0, 100.0], &[3]);
    let r = f32_of(rd(be().unary(UnaryOp::Relu, x.view(), DType::Float32).unwrap(), &[3], DType::Float32));
    assert!(r[0].is_nan() && r[1] == 0.0 && r[2] == 100.0);
    let s = f32_of(rd(be().unary(UnaryOp::Sigmoid, x.view(), DType::Float32).unwrap(), &[3], DType::Float32));
    assert!(s[0].is_nan() && s[1] >= 0.0 && s[1] < 1e-30 && s[2] == 1.0);
}

#[test]
fn unary_int_and_bool() {
    let x = i32s(&[i32::MIN, -5, 0, 7, 65536, i32::MAX], &[6]);
    let sh = &[6];
    let go = |op, out| rd(be().unary(op, x.view(), out).unwrap(), sh, out);
    assert_eq!(go(UnaryOp::Neg, DType::Int32), HostData::I32(vec![i32::MIN, 5, 0, -7, -65536, -i32::MAX]));
    assert_eq!(go(UnaryOp::Square, DType::Int32), HostData::I32(vec![0, 25, 0, 49, 0, 1]));
    assert_eq!(go(UnaryOp::Abs, DType::Int32), HostData::I32(vec![i32::MIN, 5, 0, 7, 65536, i32::MAX]));
    assert_eq!(go(UnaryOp::Relu, DType::Int32), HostData::I32(vec![0, 0, 0, 7, 65536, i32::MAX]));
    let sq = f32_of(go(UnaryOp::Sqrt, DType::Float32));
    assert!(sq[0].is_nan() && sq[1].is_nan() && sq[2] == 0.0 && (sq[4] - 256.0).abs() < 1e-6);
    // int32 output of a float op: truncation, NaN → 0.
    assert_eq!(go(UnaryOp::Sqrt, DType::Int32), HostData::I32(vec![0, 0, 0, 2, 256, 46340]));
    assert_eq!(go(UnaryOp::Log, DType::Int32), HostData::I32(vec![0, 0, 0, 1, 11, 21]));
    let e = f32_of(go(UnaryOp::Exp, DType::Float32));
    assert!(e[0] == 0.0 && (e[3] - 7f32.exp()).abs() < 1e-2 && e[5] == f32::INFINITY);
    let b = bools(&[0, 1], &[2]);
    assert_eq!(
        rd(be().unary(UnaryOp::Neg, b.view(), DType::Int32).unwrap(), &[2], DType::Int32),
        HostData::I32(vec![0, -1])
    );
    let ex = f32_of(rd(be().unary(UnaryOp::Exp, b.view(), DType::Float32).unwrap(), &[2], DType::Float32));
    close(&ex, &[1.0, std::f64::consts::E], 1e-6);
    for op in UNARY {
        let got = rd(be().unary(op, b.view(), DType::Float32).unwrap(), &[2], DType::Float32);
        close(&f32_of(got), &[unary_ref(op, 0.0), unary_ref(op, 1.0)], 1e-6);
    }
}

// ---------------------------------------------------------------------------------------------
// binary

const BINARY: [BinaryOp; 8] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::FloorDiv,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Pow,
];

/// tfjs semantics of each op, value by value, computed in f64 and stored as `out`.
fn binary_ref(op: BinaryOp, a: f64, b: f64, int: bool) -> f64 {
    let wrap = |v: f64| js_to_int32(v) as f64;
    match op {
        BinaryOp::Add if int => (a as i32).wrapping_add(b as i32) as f64,
        BinaryOp::Sub if int => (a as i32).wrapping_sub(b as i32) as f64,
        BinaryOp::Mul if int => (a as i32).wrapping_mul(b as i32) as f64,
        BinaryOp::Add => (a as f32 + b as f32) as f64,
        BinaryOp::Sub => (a as f32 - b as f32) as f64,
        BinaryOp::Mul => (a as f32 * b as f32) as f64,
        BinaryOp::Div => a / b,
        BinaryOp::FloorDiv if int => wrap((a / b).floor()),
        BinaryOp::FloorDiv => ((a as f32 / b as f32) as f64).floor(),
        BinaryOp::Maximum => {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else {
                a.max(b)
            }
        }
        BinaryOp::Minimum => {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else {
                a.min(b)
            }
        }
        BinaryOp::Pow => {
            if b.is_nan() || (b.is_infinite() && a.abs() == 1.0) {
                f64::NAN
            } else {
                a.powf(b)
            }
        }
    }
}

/// Naive broadcast reference: per output multi-index, index each input.
fn broadcast_ref(
    a: &[f64],
    ash: &[usize],
    b: &[f64],
    bsh: &[usize],
    out: &[usize],
    f: impl Fn(f64, f64) -> f64,
) -> Vec<f64> {
    let n: usize = out.iter().product();
    let (sa, sb) = (strides(ash), strides(bsh));
    let so = strides(out);
    (0..n)
        .map(|i| {
            let (mut ia, mut ib) = (0, 0);
            for d in 0..out.len() {
                let idx = (i / so[d]) % out[d];
                if ash[d] != 1 {
                    ia += idx * sa[d];
                }
                if bsh[d] != 1 {
                    ib += idx * sb[d];
                }
            }
            f(a[ia], b[ib])
        })
        .collect()
}

fn pad(shape: &[usize], rank: usize) -> Vec<usize> {
    let mut v = vec![1; rank - shape.len()];
    v.extend_from_slice(shape);
    v
}

const BROADCAST_CASES: &[(&[usize], &[usize])] = &[
    (&[], &[]),
    (&[3], &[3]),
    (&[1], &[5]),
    (&[5], &[1]),
    (&[], &[2, 3]),
    (&[2, 3], &[2, 1]),
    (&[2, 3], &[1, 3]),
    (&[2, 3], &[3]),
    (&[2, 1, 3], &[4, 1]),
    (&[4, 1, 5], &[1, 3, 1]),
    (&[2, 3, 4, 5], &[3, 1, 5]),
    (&[1, 2, 1, 3, 1, 2], &[2, 4, 1, 5, 1]),
    (&[0, 3], &[1, 3]),
    (&[300, 400], &[400]),
    (&[300, 400], &[300, 1]),
    (&[300, 400], &[300, 400]),
    (&[300, 400], &[]),
    (&[1], &[300, 400]),
    (&[64, 1, 33], &[1, 40, 33]),
];

#[test]
fn binary_broadcasting_all_ops_and_dtypes() {
    let mut rng = Lcg(7);
    for &(ash, bsh) in BROADCAST_CASES {
        let out_shape = tidytensor_core::shape::broadcast(ash, bsh).unwrap();
        let rank = out_shape.len();
        let (pa, pb) = (pad(ash, rank), pad(bsh, rank));
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            let a = random(&mut rng, dtype, &pa);
            let b = random(&mut rng, dtype, &pb);
            let av = be().read(a.view()).unwrap().to_f64();
            let bv = be().read(b.view()).unwrap().to_f64();
            for op in BINARY {
                let out = match (dtype, op) {
                    (DType::Float32, _) | (_, BinaryOp::Div) => DType::Float32,
                    _ => DType::Int32,
                };
                let int = dtype != DType::Float32;
                let got = rd(be().binary(op, a.view(), b.view(), &out_shape, out).unwrap(), &out_shape, out);
                let want =
                    to_dtype(broadcast_ref(&av, &pa, &bv, &pb, &out_shape, |x, y| binary_ref(op, x, y, int)), out);
                assert!(
                    same(&got, &want)
                        || (op == BinaryOp::Pow && dtype == DType::Float32 && {
                            close(&f32_of(got.clone()), &want.to_f64(), 1e-6);
                            true
                        }),
                    "{op:?} {dtype:?} {ash:?} {bsh:?}"
                );
            }
        }
    }
}

#[test]
fn binary_int32_semantics() {
    let a = i32s(&[i32::MAX, i32::MIN, 65536, 7, 7, -7, 5, -5, 0, 2, 2, 2, -3], &[13]);
    let b = i32s(&[1, 1, 65536, 2, -2, 2, 0, 0, 0, 31, -1, 32, 3], &[13]);
    let sh = &[13];
    let go = |op, out| rd(be().binary(op, a.view(), b.view(), sh, out).unwrap(), sh, out);
    let add = i32_of(go(BinaryOp::Add, DType::Int32));
    assert_eq!(add[0], i32::MIN);
    let sub = i32_of(go(BinaryOp::Sub, DType::Int32));
    assert_eq!(sub[1], i32::MAX);
    let mul = i32_of(go(BinaryOp::Mul, DType::Int32));
    assert_eq!(mul[2], 0);
    let fd = i32_of(go(BinaryOp::FloorDiv, DType::Int32));
    assert_eq!(&fd[3..9], &[3, -4, -4, 0, 0, 0]);
    let pw = i32_of(go(BinaryOp::Pow, DType::Int32));
    assert_eq!(&pw[9..13], &[i32::MIN, 0, 0, -27]);
    let div = f32_of(go(BinaryOp::Div, DType::Float32));
    assert!(div[6] == f32::INFINITY && div[7] == f32::NEG_INFINITY && div[8].is_nan() && div[3] == 3.5);
    let max = i32_of(go(BinaryOp::Maximum, DType::Int32));
    assert_eq!(&max[..4], &[i32::MAX, 1, 65536, 7]);
}

#[test]
fn binary_float_special_values() {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let a = f32s(&[nan, 1.0, 1.0, -1.0, 2.0, 0.0, 3.0, -7.0], &[8]);
    let b = f32s(&[1.0, nan, inf, inf, 0.5, 0.0, nan, 2.0], &[8]);
    let sh = &[8];
    let go = |op| f32_of(rd(be().binary(op, a.view(), b.view(), sh, DType::Float32).unwrap(), sh, DType::Float32));
    let mx = go(BinaryOp::Maximum);
    assert!(mx[0].is_nan() && mx[1].is_nan() && mx[2] == inf && mx[6].is_nan() && mx[7] == 2.0);
    let mn = go(BinaryOp::Minimum);
    assert!(mn[0].is_nan() && mn[1].is_nan() && mn[2] == 1.0 && mn[7] == -7.0);
    let pw = go(BinaryOp::Pow);
    assert!(pw[0].is_nan() && pw[1].is_nan() && pw[2].is_nan() && pw[3].is_nan());
    assert!((pw[4] - 2f32.sqrt()).abs() < 1e-6 && pw[5] == 1.0 && pw[7] == 49.0);
    let fd = go(BinaryOp::FloorDiv);
    assert_eq!(fd[7], -4.0);
}

#[test]
fn binary_bool_inputs() {
    let a = bools(&[0, 1, 1, 0], &[4]);
    let b = bools(&[1, 1, 0, 0], &[4]);
    let sh = &[4];
    assert_eq!(
        rd(be().binary(BinaryOp::Add, a.view(), b.view(), sh, DType::Int32).unwrap(), sh, DType::Int32),
        HostData::I32(vec![1, 2, 1, 0])
    );
    assert_eq!(
        rd(be().binary(BinaryOp::Sub, a.view(), b.view(), sh, DType::Int32).unwrap(), sh, DType::Int32),
        HostData::I32(vec![-1, 0, 1, 0])
    );
    assert_eq!(
        rd(be().binary(BinaryOp::Maximum, a.view(), b.view(), sh, DType::Bool).unwrap(), sh, DType::Bool),
        HostData::Bool(vec![1, 1, 1, 0])
    );
}

#[test]
fn binary_rejects_bad_shapes() {
    let a = f32s(&[1.0, 2.0], &[2]);
    let b = f32s(&[1.0, 2.0, 3.0], &[3]);
    assert!(be().binary(BinaryOp::Add, a.view(), b.view(), &[3], DType::Float32).is_err());
    assert!(be().binary(BinaryOp::Add, a.view(), a.view(), &[1, 2], DType::Float32).is_err());
}

// ---------------------------------------------------------------------------------------------
// matmul

fn matmul_ref(a: &[f32], ash: [usize; 3], b: &[f32], bsh: [usize; 3], ta: bool, tb: bool) -> (Vec<f64>, [usize; 3]) {
    let (m, k) = if ta { (ash[2], ash[1]) } else { (ash[1], ash[2]) };
    let n = if tb { bsh[1] } else { bsh[2] };
    let batch = if ash[0] == 0 || bsh[0] == 0 { 0 } else { ash[0].max(bsh[0]) };
    let mut out = vec![0f64; batch * m * n];
    for bi in 0..batch {
        let ab = if ash[0] == 1 { 0 } else { bi };
        let bb = if bsh[0] == 1 { 0 } else { bi };
        for i in 0..m {
            for j in 0..n {
                let mut s = 0f64;
                for p in 0..k {
                    let av = if ta { a[ab * m * k + p * m + i] } else { a[ab * m * k + i * k + p] };
                    let bv = if tb { b[bb * k * n + j * k + p] } else { b[bb * k * n + p * n + j] };
                    s += av as f64 * bv as f64;
                }
                out[bi * m * n + i * n + j] = s;
            }
        }
    }
    (out, [batch, m, n])
}

fn check_matmul(rng: &mut Lcg, ba: usize, bb: usize, m: usize, k: usize, n: usize) {
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        let ash = if ta { [ba, k, m] } else { [ba, m, k] };
        let bsh = if tb { [bb, n, k] } else { [bb, k, n] };
        let av = rng.vec_f32(ash.iter().product());
        let bv = rng.vec_f32(bsh.iter().product());
        let a = f32s(&av, &ash);
        let b = f32s(&bv, &bsh);
        let (want, osh) = matmul_ref(&av, ash, &bv, bsh, ta, tb);
        let got = f32_of(rd(be().matmul(a.view(), b.view(), ta, tb).unwrap(), &osh, DType::Float32));
        // Relative to the magnitude of the terms summed (values are in [-10, 10]).
        let scale = 100.0 * (k.max(1) as f64);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert!(
                ((*g as f64) - w).abs() <= 1e-4 * w.abs().max(1.0) + 1e-6 * scale,
                "{ba} {bb} {m} {k} {n} {ta} {tb}: {g} vs {w}"
            );
        }
    }
}

#[test]
fn matmul_matches_triple_loop() {
    let mut rng = Lcg(3);
    check_matmul(&mut rng, 1, 1, 1, 1, 1);
    check_matmul(&mut rng, 1, 1, 2, 3, 4);
    check_matmul(&mut rng, 2, 2, 3, 4, 5);
    check_matmul(&mut rng, 1, 3, 3, 4, 5);
    check_matmul(&mut rng, 3, 1, 5, 2, 3);
    check_matmul(&mut rng, 1, 1, 1, 17, 9);
    check_matmul(&mut rng, 1, 1, 9, 17, 1);
    check_matmul(&mut rng, 1, 1, 70, 80, 90);
    check_matmul(&mut rng, 2, 1, 65, 70, 66);
    check_matmul(&mut rng, 600, 600, 8, 8, 8);
    check_matmul(&mut rng, 600, 1, 8, 9, 7);
    check_matmul(&mut rng, 2, 2, 3, 0, 4); // k = 0: zeros
    check_matmul(&mut rng, 2, 2, 0, 3, 4);
    check_matmul(&mut rng, 2, 2, 3, 4, 0);
    check_matmul(&mut rng, 0, 1, 3, 4, 5);
}

#[test]
fn matmul_k0_is_zeros_and_bad_shapes_error() {
    let a = f32s(&[], &[1, 2, 0]);
    let b = f32s(&[], &[1, 0, 3]);
    assert_eq!(
        rd(be().matmul(a.view(), b.view(), false, false).unwrap(), &[1, 2, 3], DType::Float32),
        HostData::F32(vec![0.0; 6])
    );
    let c = f32s(&[1.0; 6], &[1, 2, 3]);
    assert!(be().matmul(c.view(), c.view(), false, false).is_err());
    let d = f32s(&[1.0; 12], &[2, 2, 3]);
    let e = f32s(&[1.0; 18], &[3, 3, 2]);
    assert!(be().matmul(d.view(), e.view(), false, false).is_err());
}

// ---------------------------------------------------------------------------------------------
// reductions

fn reduce_ref(op: ReduceOp, row: &[f64]) -> f64 {
    match op {
        ReduceOp::Sum => row.iter().sum(),
        ReduceOp::Mean => row.iter().sum::<f64>() / row.len() as f64,
        ReduceOp::Max => row.iter().fold(f64::NEG_INFINITY, |m, &v| if v.is_nan() || v > m { v } else { m }),
        ReduceOp::Min => row.iter().fold(f64::INFINITY, |m, &v| if v.is_nan() || v < m { v } else { m }),
    }
}

#[test]
fn reduce_matches_reference() {
    let mut rng = Lcg(11);
    for (outer, inner) in [(1, 1), (3, 4), (1, 13), (5, 1), (2, 0), (0, 3), (300, 400), (1, 200_000), (70_000, 1)] {
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            let x = random(&mut rng, dtype, &[outer, inner]);
            let xv = be().read(x.view()).unwrap().to_f64();
            for op in [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min] {
                let out = match (dtype, op) {
                    (DType::Float32, _) | (_, ReduceOp::Mean) => DType::Float32,
                    _ => DType::Int32,
                };
                let got = rd(be().reduce(op, x.view(), outer, inner, out).unwrap(), &[outer], out);
                let want: Vec<f64> = (0..outer).map(|o| reduce_ref(op, &xv[o * inner..(o + 1) * inner])).collect();
                match got {
                    HostData::F32(g) => close(&g, &want, 1e-5),
                    other => assert_eq!(other, to_dtype(want, out), "{op:?} {dtype:?} {outer}x{inner}"),
                }
            }
        }
    }
}

#[test]
fn reduce_special_cases() {
    let x = f32s(&[1.0, f32::NAN, 3.0, 4.0], &[2, 2]);
    for op in [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Mean] {
        let g = f32_of(rd(be().reduce(op, x.view(), 2, 2, DType::Float32).unwrap(), &[2], DType::Float32));
        assert!(g[0].is_nan() && !g[1].is_nan(), "{op:?}");
    }
    // Empty rows: sum 0, max -inf, min +inf, mean NaN.
    let e = f32s(&[], &[2, 0]);
    let go = |op| f32_of(rd(be().reduce(op, e.view(), 2, 0, DType::Float32).unwrap(), &[2], DType::Float32));
    assert_eq!(go(ReduceOp::Sum), vec![0.0, 0.0]);
    assert_eq!(go(ReduceOp::Max), vec![f32::NEG_INFINITY; 2]);
    assert_eq!(go(ReduceOp::Min), vec![f32::INFINITY; 2]);
    assert!(go(ReduceOp::Mean).iter().all(|v| v.is_nan()));
    // int32: sums wrap, means truncate toward zero.
    let i = i32s(&[i32::MAX, 1, -7, 0, 7, 0], &[3, 2]);
    let s = rd(be().reduce(ReduceOp::Sum, i.view(), 3, 2, DType::Int32).unwrap(), &[3], DType::Int32);
    assert_eq!(s, HostData::I32(vec![i32::MIN, -7, 7]));
    let s = rd(be().reduce(ReduceOp::Sum, i.view(), 3, 2, DType::Float32).unwrap(), &[3], DType::Float32);
    assert_eq!(s, HostData::F32(vec![2147483648.0, -7.0, 7.0]));
    let m = rd(be().reduce(ReduceOp::Mean, i.view(), 3, 2, DType::Int32).unwrap(), &[3], DType::Int32);
    assert_eq!(m, HostData::I32(vec![1073741824, -3, 3]));
    let b = bools(&[1, 1, 0, 1], &[1, 4]);
    let s = rd(be().reduce(ReduceOp::Sum, b.view(), 1, 4, DType::Int32).unwrap(), &[1], DType::Int32);
    assert_eq!(s, HostData::I32(vec![3]));
    let mx = rd(be().reduce(ReduceOp::Max, b.view(), 1, 4, DType::Bool).unwrap(), &[1], DType::Bool);
    assert_eq!(mx, HostData::Bool(vec![1]));
    assert!(be().reduce(ReduceOp::Sum, b.view(), 2, 3, DType::Int32).is_err());
}

fn arg_ref(op: ArgOp, x: &[f64], outer: usize, axis: usize, inner: usize) -> Vec<i32> {
    let mut out = vec![0; outer * inner];
    for o in 0..outer {
        for i in 0..inner {
            let mut best = x.get(o * axis * inner + i).copied().unwrap_or(0.0);
            for a in 1..axis {
                let v = x[(o * axis + a) * inner + i];
                let better = match op {
                    ArgOp::ArgMax => v > best,
                    ArgOp::ArgMin => v < best,
                };
                if better {
                    best = v;
                    out[o * inner + i] = a as i32;
                }
            }
        }
    }
    out
}

#[test]
fn arg_reduce_matches_reference() {
    let mut rng = Lcg(5);
    for (outer, axis, inner) in
        [(1, 1, 1), (2, 5, 1), (3, 4, 2), (1, 7, 5), (2, 0, 3), (0, 4, 2), (1000, 100, 1), (40, 50, 40)]
    {
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            let x = random(&mut rng, dtype, &[outer, axis, inner]);
            let xv = be().read(x.view()).unwrap().to_f64();
            for op in [ArgOp::ArgMax, ArgOp::ArgMin] {
                let got = rd(be().arg_reduce(op, x.view(), outer, axis, inner).unwrap(), &[outer, inner], DType::Int32);
                assert_eq!(
                    got,
                    HostData::I32(arg_ref(op, &xv, outer, axis, inner)),
                    "{op:?} {dtype:?} {outer} {axis} {inner}"
                );
            }
        }
    }
    // Ties keep the first index; NaN only wins when first.
    let x = f32s(&[1.0, 3.0, 3.0, f32::NAN, f32::NAN, 5.0, 2.0, 9.0], &[2, 4]);
    let g = rd(be().arg_reduce(ArgOp::ArgMax, x.view(), 2, 4, 1).unwrap(), &[2], DType::Int32);
    assert_eq!(g, HostData::I32(vec![1, 0]));
    let g = rd(be().arg_reduce(ArgOp::ArgMin, x.view(), 2, 4, 1).unwrap(), &[2], DType::Int32);
    assert_eq!(g, HostData::I32(vec![0, 0]));
}

#[test]
fn softmax_matches_reference() {
    let mut rng = Lcg(9);
    for (outer, inner) in [(1, 1), (2, 3), (4, 0), (0, 4), (3, 10), (300, 400), (1, 100_000)] {
        let v = rng.vec_f32(outer * inner);
        let x = f32s(&v, &[outer, inner]);
        let got = f32_of(rd(be().softmax(x.view(), outer, inner).unwrap(), &[outer, inner], DType::Float32));
        let mut want = vec![0f64; v.len()];
        for o in 0..outer {
            let row = &v[o * inner..(o + 1) * inner];
            let m = row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x as f64));
            let s: f64 = row.iter().map(|&x| (x as f64 - m).exp()).sum();
            for i in 0..inner {
                want[o * inner + i] = (row[i] as f64 - m).exp() / s;
            }
        }
        close(&got, &want, 1e-5);
    }
    // Large logits stay finite; a row with NaN is NaN.
    let x = f32s(&[1000.0, 1000.0, f32::NAN, 1.0], &[2, 2]);
    let g = f32_of(rd(be().softmax(x.view(), 2, 2).unwrap(), &[2, 2], DType::Float32));
    assert!(g[0] == 0.5 && g[1] == 0.5 && g[2].is_nan() && g[3].is_nan());
}

// ---------------------------------------------------------------------------------------------
// layout

fn transpose_ref<E: Copy>(x: &[E], shape: &[usize], perm: &[usize]) -> Vec<E> {
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let so = strides(&out_shape);
    let si = strides(shape);
    let n: usize = out_shape.iter().product();
    (0..n)
        .map(|i| {
            let mut off = 0;
            for d in 0..perm.len() {
                off += ((i / so[d]) % out_shape[d]) * si[perm[d]];
            }
            x[off]
        })
        .collect()
}

fn permutations(rank: usize, rng: &mut Lcg) -> Vec<Vec<usize>> {
    let mut out = vec![(0..rank).collect::<Vec<_>>(), (0..rank).rev().collect()];
    for _ in 0..6 {
        let mut p: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            let j = (rng.next() as usize) % (i + 1);
            p.swap(i, j);
        }
        out.push(p);
    }
    out
}

#[test]
fn transpose_matches_reference() {
    let mut rng = Lcg(13);
    let shapes: &[&[usize]] = &[
        &[],
        &[5],
        &[2, 3],
        &[1, 4],
        &[3, 1, 4],
        &[2, 3, 4],
        &[2, 1, 3, 2],
        &[2, 3, 1, 2, 3],
        &[2, 2, 3, 1, 2, 3],
        &[0, 3, 2],
        &[513, 300],
        &[3, 170, 129],
        &[2, 40, 30, 30],
    ];
    for &shape in shapes {
        for perm in permutations(shape.len(), &mut rng) {
            let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
            for dtype in [DType::Float32, DType::Int32, DType::Bool] {
                let x = random(&mut rng, dtype, shape);
                let xv = be().read(x.view()).unwrap();
                let want = match &xv {
                    HostData::F32(v) => HostData::F32(transpose_ref(v, shape, &perm)),
                    HostData::I32(v) => HostData::I32(transpose_ref(v, shape, &perm)),
                    HostData::Bool(v) => HostData::Bool(transpose_ref(v, shape, &perm)),
                };
                let got = rd(be().transpose(x.view(), &perm).unwrap(), &out_shape, dtype);
                assert_eq!(got, want, "{shape:?} {perm:?} {dtype:?}");
            }
        }
    }
    let x = f32s(&[1.0; 6], &[2, 3]);
    assert!(be().transpose(x.view(), &[0, 0]).is_err());
    assert!(be().transpose(x.view(), &[0]).is_err());
}

fn slice_ref<E: Copy>(x: &[E], shape: &[usize], begin: &[usize], size: &[usize]) -> Vec<E> {
    let n: usize = size.iter().product();
    let ss = strides(size);
    let si = strides(shape);
    (0..n)
        .map(|i| {
            let mut off = 0;
            for d in 0..shape.len() {
                off += (begin[d] + (i / ss[d]) % size[d]) * si[d];
            }
            x[off]
        })
        .collect()
}

#[test]
fn slice_matches_reference() {
    let mut rng = Lcg(17);
    let cases: &[(&[usize], &[usize], &[usize])] = &[
        (&[], &[], &[]),
        (&[5], &[1], &[3]),
        (&[5], &[0], &[5]),
        (&[4, 5], &[1, 0], &[2, 5]),
        (&[4, 5], &[1, 2], &[3, 2]),
        (&[4, 5], &[0, 2], &[0, 2]),
        (&[3, 4, 5], &[1, 1, 0], &[2, 2, 5]),
        (&[3, 4, 5], &[0, 0, 1], &[3, 4, 3]),
        (&[3, 4, 5], &[2, 0, 0], &[1, 4, 5]),
        (&[2, 3, 4, 5, 2, 3], &[1, 0, 2, 1, 0, 1], &[1, 3, 2, 3, 2, 2]),
    ];
    for &(shape, begin, size) in cases {
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            let x = random(&mut rng, dtype, shape);
            let xv = be().read(x.view()).unwrap();
            let want = match &xv {
                HostData::F32(v) => HostData::F32(slice_ref(v, shape, begin, size)),
                HostData::I32(v) => HostData::I32(slice_ref(v, shape, begin, size)),
                HostData::Bool(v) => HostData::Bool(slice_ref(v, shape, begin, size)),
            };
            let got = rd(be().slice(x.view(), begin, size).unwrap(), size, dtype);
            assert_eq!(got, want, "{shape:?} {begin:?} {size:?}");
        }
    }
    let x = f32s(&[1.0; 6], &[2, 3]);
    assert!(be().slice(x.view(), &[1, 1], &[2, 1]).is_err());
    assert!(be().slice(x.view(), &[0], &[1]).is_err());
}

#[test]
fn concat_matches_reference() {
    let a = f32s(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let b = f32s(&[5.0, 6.0, 7.0, 8.0, 9.0, 10.0], &[2, 3]);
    let c = f32s(&[], &[2, 0]);
    let got = rd(be().concat(&[a.view(), c.view(), b.view()], 2).unwrap(), &[2, 5], DType::Float32);
    assert_eq!(got, HostData::F32(vec![1.0, 2.0, 5.0, 6.0, 7.0, 3.0, 4.0, 8.0, 9.0, 10.0]));
    let got = rd(be().concat(&[a.view(), b.view()], 1).unwrap(), &[10], DType::Float32);
    assert_eq!(got, HostData::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]));
    let i = i32s(&[1, 2], &[2, 1]);
    let j = i32s(&[3, 4], &[2, 1]);
    assert_eq!(
        rd(be().concat(&[i.view(), j.view()], 2).unwrap(), &[2, 2], DType::Int32),
        HostData::I32(vec![1, 3, 2, 4])
    );
    let p = bools(&[1, 0], &[2]);
    assert_eq!(rd(be().concat(&[p.view(), p.view()], 2).unwrap(), &[4], DType::Bool), HostData::Bool(vec![1, 1, 0, 0]));
    let e = f32s(&[], &[0, 3]);
    assert_eq!(rd(be().concat(&[e.view(), e.view()], 0).unwrap(), &[0, 6], DType::Float32), HostData::F32(vec![]));
    assert!(be().concat(&[a.view(), i.view()], 2).is_err());
    assert!(be().concat(&[b.view()], 4).is_err());
    assert!(be().concat(&[], 1).is_err());
}

#[test]
fn gather_and_one_hot() {
    // x [2, 3, 2] gathered on the middle axis.
    let x = f32s(&(0..12).map(|v| v as f32).collect::<Vec<_>>(), &[2, 3, 2]);
    let idx = i32s(&[2, 0, 2, 1], &[4]);
    let got = rd(be().gather(x.view(), idx.view(), 2, 3, 2).unwrap(), &[2, 4, 2], DType::Float32);
    assert_eq!(
        got,
        HostData::F32(vec![4.0, 5.0, 0.0, 1.0, 4.0, 5.0, 2.0, 3.0, 10.0, 11.0, 6.0, 7.0, 10.0, 11.0, 8.0, 9.0])
    );
    let y = i32s(&[10, 20, 30, 40], &[4]);
    let idx2 = i32s(&[3, 3, 0], &[3]);
    assert_eq!(
        rd(be().gather(y.view(), idx2.view(), 1, 4, 1).unwrap(), &[3], DType::Int32),
        HostData::I32(vec![40, 40, 10])
    );
    let z = bools(&[1, 0, 0, 1], &[2, 2]);
    let idx3 = i32s(&[1], &[1]);
    assert_eq!(
        rd(be().gather(z.view(), idx3.view(), 1, 2, 2).unwrap(), &[1, 2], DType::Bool),
        HostData::Bool(vec![0, 1])
    );
    let none = i32s(&[], &[0]);
    assert_eq!(rd(be().gather(y.view(), none.view(), 1, 4, 1).unwrap(), &[0], DType::Int32), HostData::I32(vec![]));
    let bad = i32s(&[4], &[1]);
    assert!(be().gather(y.view(), bad.view(), 1, 4, 1).is_err());
    let neg = i32s(&[-1], &[1]);
    assert!(be().gather(y.view(), neg.view(), 1, 4, 1).is_err());

    let ind = i32s(&[0, 2, -1, 3, 1], &[5]);
    let got = rd(be().one_hot(ind.view(), 3, 1.0, 0.0, DType::Int32).unwrap(), &[5, 3], DType::Int32);
    assert_eq!(got, HostData::I32(vec![1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0]));
    let got = rd(be().one_hot(ind.view(), 2, 5.5, -1.0, DType::Float32).unwrap(), &[5, 2], DType::Float32);
    assert_eq!(got, HostData::F32(vec![5.5, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 5.5]));
    let got = rd(be().one_hot(ind.view(), 2, 1.0, 0.0, DType::Bool).unwrap(), &[5, 2], DType::Bool);
    assert_eq!(got, HostData::Bool(vec![1, 0, 0, 0, 0, 0, 0, 0, 0, 1]));
    let got = rd(be().one_hot(ind.view(), 0, 1.0, 0.0, DType::Float32).unwrap(), &[5, 0], DType::Float32);
    assert_eq!(got, HostData::F32(vec![]));
}

// ---------------------------------------------------------------------------------------------
// leaks

/// Runs every kernel (each dtype where allowed, small and large) and drops every result; the
/// bytes held by storage made on this thread must come back to where they started. Counting
/// per thread keeps tests running in parallel from disturbing the check.
#[test]
fn kernels_free_everything() {
    let start = thread_live_bytes();
    {
        // The counter sees live storage, so this test can fail.
        let probe = be().fill(1000, 1.0, DType::Float32).unwrap();
        assert_eq!(thread_live_bytes() - start, 4000);
        assert!(live_bytes() >= 4000);
        drop(probe);
        assert_eq!(thread_live_bytes(), start);

        let b = be();
        let mut rng = Lcg(21);
        for n in [12usize, 120_000] {
            for dtype in [DType::Float32, DType::Int32, DType::Bool] {
                let x = random(&mut rng, dtype, &[n / 6, 6]);
                let y = random(&mut rng, dtype, &[1, 6]);
                let idx = i32s(&[0, 5, 2], &[3]);
                let _ = b.read(x.view()).unwrap();
                for dt in [DType::Float32, DType::Int32, DType::Bool] {
                    let _ = b.cast(x.view(), dt).unwrap();
                    let _ = b.fill(n, 3.0, dt).unwrap();
                    let _ = b.one_hot(idx.view(), 4, 1.0, 0.0, dt).unwrap();
                    for op in UNARY {
                        let _ = b.unary(op, x.view(), dt).unwrap();
                    }
                    for op in BINARY {
                        let _ = b.binary(op, x.view(), y.view(), &[n / 6, 6], dt).unwrap();
                        let _ = b.binary(op, x.view(), x.view(), &[n / 6, 6], dt).unwrap();
                    }
                    for op in [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min] {
                        let _ = b.reduce(op, x.view(), n / 6, 6, dt).unwrap();
                        let _ = b.reduce(op, x.view(), 1, n, dt).unwrap();
                    }
                }
                for op in [ArgOp::ArgMax, ArgOp::ArgMin] {
                    let _ = b.arg_reduce(op, x.view(), n / 6, 6, 1).unwrap();
                    let _ = b.arg_reduce(op, x.view(), n / 12, 2, 6).unwrap();
                }
                let _ = b.softmax(x.view(), n / 6, 6).unwrap(); // casts non-float inputs internally
                let _ = b.transpose(x.view(), &[1, 0]).unwrap();
                let _ = b.slice(x.view(), &[1, 2], &[n / 6 - 1, 3]).unwrap();
                let _ = b.concat(&[x.view(), y.view()], 1).unwrap();
                let _ = b.gather(x.view(), idx.view(), n / 6, 6, 1).unwrap();
                // Errors must not leak either.
                assert!(b.gather(x.view(), i32s(&[9], &[1]).view(), n / 6, 6, 1).is_err());
            }
            let a = random(&mut rng, DType::Float32, &[3, 40, 50]);
            let c = random(&mut rng, DType::Float32, &[1, 50, 70]);
            let _ = b.matmul(a.view(), c.view(), false, false).unwrap();
            let _ = b.matmul(c.view(), a.view(), true, true).unwrap();
            let ai = random(&mut rng, DType::Int32, &[1, 2, 3]);
            let _ = b.matmul(ai.view(), ai.view(), false, true).unwrap();
        }
    }
    assert_eq!(thread_live_bytes(), start, "a kernel leaked cpu storage");
}
