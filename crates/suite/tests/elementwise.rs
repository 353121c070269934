//! Elementwise ops on every backend: each op of the core's tables against a reference, every
//! dtype, special values (NaN, ±Infinity, -0, int32 wrapping), broadcasting, tfjs's dtype
//! rules and errors, and cast.

use tidytensor_core::{js_to_int32, BinaryOp, BinaryRule, DType, DtypeRule, Engine, Grad, TensorId, UnaryOp};
use tidytensor_suite::{
    assert_close, backend_tests, bools, f32s, fails, i32s, large_len, mix, of, random_shape, random_tensor,
    random_values, store, strides, usage, values,
};

/// The reference of each unary op in f64 (what tfjs computes in JavaScript numbers); the
/// predicates give 1 for true.
fn unary_ref(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Abs => x.abs(),
        UnaryOp::Acos => x.acos(),
        UnaryOp::Acosh => x.acosh(),
        UnaryOp::Asin => x.asin(),
        UnaryOp::Asinh => x.asinh(),
        UnaryOp::Atan => x.atan(),
        UnaryOp::Atanh => x.atanh(),
        UnaryOp::Ceil => x.ceil(),
        UnaryOp::Cos => x.cos(),
        UnaryOp::Cosh => x.cosh(),
        UnaryOp::Elu => {
            if x >= 0.0 {
                x
            } else {
                x.exp() - 1.0
            }
        }
        UnaryOp::Erf => libm::erf(x),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Expm1 => x.exp_m1(),
        UnaryOp::Floor => x.floor(),
        UnaryOp::IsFinite => x.is_finite() as u8 as f64,
        UnaryOp::IsInf => x.is_infinite() as u8 as f64,
        UnaryOp::IsNaN => x.is_nan() as u8 as f64,
        UnaryOp::Log => x.ln(),
        UnaryOp::Log1p => x.ln_1p(),
        UnaryOp::LogicalNot => (x == 0.0) as u8 as f64,
        UnaryOp::Neg => -x,
        UnaryOp::Reciprocal => 1.0 / x,
        // NaN stays NaN (`x < 0 ? 0 : x`), which f64::max would not do.
        UnaryOp::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        UnaryOp::Relu6 => x.clamp(0.0, 6.0),
        UnaryOp::Round => {
            let r = x.round_ties_even();
            if r == 0.0 {
                0.0
            } else {
                r
            }
        }
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Selu => {
            if x >= 0.0 {
                1.0507009873554805 * x
            } else {
                1.7580993408473769 * (x.exp() - 1.0)
            }
        }
        UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::Sign => {
            if x < 0.0 {
                -1.0
            } else if x > 0.0 {
                1.0
            } else {
                0.0
            }
        }
        UnaryOp::Sin => x.sin(),
        UnaryOp::Sinh => x.sinh(),
        UnaryOp::Softplus => {
            let threshold = (f32::EPSILON as f64).ln() + 2.0;
            if x < threshold {
                x.exp()
            } else if x > -threshold {
                x
            } else {
                x.exp().ln_1p()
            }
        }
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Square => x * x,
        UnaryOp::Tan => x.tan(),
        UnaryOp::Tanh => x.tanh(),
    }
}

/// The `Same`-rule ops on int32 and bool: 32-bit integer arithmetic, wrapping.
fn unary_int_ref(op: UnaryOp, x: i32) -> i32 {
    match op {
        UnaryOp::Abs => x.wrapping_abs(),
        UnaryOp::Neg => x.wrapping_neg(),
        UnaryOp::Relu => x.max(0),
        UnaryOp::Square => x.wrapping_mul(x),
        other => panic!("{other:?} has no integer kernel"),
    }
}

fn unary_float_ops_match_the_reference(e: &mut Engine) {
    let mut xs = random_values(300, 1, -6.0, 6.0);
    xs.extend([0.0, -0.0, 1.0, -1.0, 1e-3, 20.0, -20.0, 100.0, -100.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    let x = of(e, DType::Float32, &xs, &[xs.len()]);
    let stored: Vec<f64> = xs.iter().map(|&v| v as f32 as f64).collect();
    for &op in UnaryOp::ALL.iter().filter(|op| op.dtype_rule() != DtypeRule::Bool) {
        let y = e.unary(op, x).unwrap();
        let out = op.out_dtype(DType::Float32);
        let got = values(e, y, &[xs.len()], out);
        let want: Vec<f64> = stored.iter().map(|&v| unary_ref(op, v) as f32 as f64).collect();
        assert_close(&got, &want, 2e-6);
        e.dispose(y);
    }
    // Sigmoid saturates without overflow.
    let s = e.unary(UnaryOp::Sigmoid, x).unwrap();
    let sv = values(e, s, &[xs.len()], DType::Float32);
    let n = xs.len();
    assert!(sv[n - 4] >= 0.0 && sv[n - 4] < 1e-30 && sv[n - 5] == 1.0, "{:?}", &sv[n - 5..n - 3]);
    // Large tensors (the cpu backend's threaded path) and shapes of any rank.
    let n = large_len(e);
    let big = random_values(n, 2, -3.0, 3.0);
    let x = of(e, DType::Float32, &big, &[n / 10, 2, 5]);
    for op in [UnaryOp::Exp, UnaryOp::Tanh, UnaryOp::Neg] {
        let y = e.unary(op, x).unwrap();
        let want: Vec<f64> = big.iter().map(|&v| unary_ref(op, v as f32 as f64) as f32 as f64).collect();
        assert_close(&values(e, y, &[n / 10, 2, 5], DType::Float32), &want, 2e-6);
        e.dispose(y);
    }
}

/// neg and abs flip and clear the sign bit, zeros included.
fn unary_signs_of_zero(e: &mut Engine) {
    let x = f32s(e, &[0.0, -0.0], &[2]);
    let n = e.unary(UnaryOp::Neg, x).unwrap();
    let a = e.unary(UnaryOp::Abs, x).unwrap();
    let signs = |e: &Engine, id| -> Vec<bool> {
        values(e, id, &[2], DType::Float32).iter().map(|v| v.is_sign_negative()).collect()
    };
    assert_eq!(signs(e, n), vec![true, false]);
    assert_eq!(signs(e, a), vec![false, false]);
}

fn unary_dtype_rules(e: &mut Engine) {
    let iv = [i32::MIN, -5, -1, 0, 7, 46341, 65536, i32::MAX];
    let i = i32s(e, &iv, &[2, 4]);
    let b = bools(e, &[0, 1, 1, 0], &[4]);
    for &op in UnaryOp::ALL {
        match op.dtype_rule() {
            DtypeRule::Float => {
                fails(e, "must be float32 tensor, but got int32 tensor", |e| e.unary(op, i));
                fails(e, "must be float32 tensor, but got bool tensor", |e| e.unary(op, b));
            }
            DtypeRule::Bool => {
                fails(e, "must be bool tensor, but got int32 tensor", |e| e.unary(op, i));
                let y = e.unary(op, b).unwrap();
                assert_eq!(values(e, y, &[4], DType::Bool), vec![1.0, 0.0, 0.0, 1.0], "{op:?}");
            }
            DtypeRule::Numeric => {
                // The float formula on the value, stored as tfjs's typed arrays store it.
                let y = e.unary(op, i).unwrap();
                let want: Vec<f64> = iv.iter().map(|&v| store(DType::Int32, unary_ref(op, v as f64))).collect();
                let got = values(e, y, &[2, 4], DType::Int32);
                // wgpu computes in f32: beyond 2^24 the value itself rounds; compare the rest.
                for k in 0..iv.len() {
                    if iv[k].unsigned_abs() < 1 << 24 {
                        assert_eq!(got[k], want[k], "{op:?} of {}", iv[k]);
                    }
                }
                let y = e.unary(op, b).unwrap();
                let want: Vec<f64> =
                    [0.0, 1.0, 1.0, 0.0].iter().map(|&v| store(DType::Bool, unary_ref(op, v))).collect();
                assert_eq!(values(e, y, &[4], DType::Bool), want, "{op:?} of bool");
            }
            DtypeRule::Predicate => {
                let y = e.unary(op, i).unwrap();
                let want: Vec<f64> = iv.iter().map(|&v| unary_ref(op, v as f64)).collect();
                assert_eq!(values(e, y, &[2, 4], DType::Bool), want, "{op:?}");
                let y = e.unary(op, b).unwrap();
                let want: Vec<f64> = [0.0, 1.0, 1.0, 0.0].iter().map(|&v| unary_ref(op, v)).collect();
                assert_eq!(values(e, y, &[4], DType::Bool), want, "{op:?} of bool");
            }
            DtypeRule::IntToFloat => {
                fails(e, "Input dtype must be `int32` or `float32`.", |e| e.unary(op, b));
                let y = e.unary(op, i).unwrap();
                let want: Vec<f64> = iv.iter().map(|&v| unary_ref(op, v as f64) as f32 as f64).collect();
                assert_close(&values(e, y, &[2, 4], DType::Float32), &want, 1e-6);
            }
            DtypeRule::ToFloat => {
                let y = e.unary(op, i).unwrap();
                let want: Vec<f64> = iv.iter().map(|&v| unary_ref(op, v as f64) as f32 as f64).collect();
                assert_close(&values(e, y, &[2, 4], DType::Float32), &want, 1e-6);
                let y = e.unary(op, b).unwrap();
                let want: Vec<f64> = [0.0, 1.0, 1.0, 0.0].iter().map(|&v| unary_ref(op, v) as f32 as f64).collect();
                assert_close(&values(e, y, &[4], DType::Float32), &want, 1e-6);
            }
            DtypeRule::Same => {
                let y = e.unary(op, i).unwrap();
                let want: Vec<f64> = iv.iter().map(|&v| unary_int_ref(op, v) as f64).collect();
                assert_eq!(values(e, y, &[2, 4], DType::Int32), want, "{op:?}");
                let y = e.unary(op, b).unwrap();
                let want: Vec<f64> =
                    [0, 1, 1, 0].iter().map(|&v| store(DType::Bool, unary_int_ref(op, v) as f64)).collect();
                assert_eq!(values(e, y, &[4], DType::Bool), want, "{op:?} of bool");
            }
        }
    }
    // int32 wraps like an Int32Array.
    let y = e.unary(UnaryOp::Square, i).unwrap();
    assert_eq!(values(e, y, &[2, 4], DType::Int32), vec![0., 25., 1., 0., 49., -2147479015., 0., 1.]);
    let y = e.unary(UnaryOp::Neg, i).unwrap();
    assert_eq!(values(e, y, &[2, 4], DType::Int32)[0], i32::MIN as f64);
    let empty = f32s(e, &[], &[0, 3]);
    for &op in UnaryOp::ALL.iter().filter(|op| op.dtype_rule() != DtypeRule::Bool) {
        let y = e.unary(op, empty).unwrap();
        assert_eq!(values(e, y, &[0, 3], op.out_dtype(DType::Float32)), Vec::<f64>::new());
    }
}

/// What each binary op computes, in f64 for float32 (tfjs's JavaScript numbers) and in 32-bit
/// integers for int32 and bool (wrapping; division and pow in f64). Stored as the output dtype
/// by the caller.
fn binary_ref(op: BinaryOp, a: f64, b: f64, int: bool) -> f64 {
    let (ai, bi) = (a as i32, b as i32);
    // Integers have no -0.
    let (a, b) = if int { (ai as f64, bi as f64) } else { (a, b) };
    let nan_wins = |f: fn(f64, f64) -> f64| if a.is_nan() || b.is_nan() { f64::NAN } else { f(a, b) };
    let truth = |t: bool| t as u8 as f64;
    match op {
        BinaryOp::Add if int => ai.wrapping_add(bi) as f64,
        BinaryOp::Sub if int => ai.wrapping_sub(bi) as f64,
        BinaryOp::Mul if int => ai.wrapping_mul(bi) as f64,
        BinaryOp::SquaredDifference if int => ai.wrapping_sub(bi).wrapping_mul(ai.wrapping_sub(bi)) as f64,
        BinaryOp::Add => a + b,
        BinaryOp::Atan2 => a.atan2(b),
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::SquaredDifference => (a - b) * (a - b),
        BinaryOp::Div => a / b,
        // int32 divides as `div` does there: flooring.
        BinaryOp::DivNoNan if b == 0.0 => 0.0,
        BinaryOp::DivNoNan if int => (a / b).floor(),
        BinaryOp::DivNoNan => a / b,
        BinaryOp::Equal => truth(a == b),
        BinaryOp::NotEqual => truth(a != b),
        BinaryOp::Greater => truth(a > b),
        BinaryOp::GreaterEqual => truth(a >= b),
        BinaryOp::Less => truth(a < b),
        BinaryOp::LessEqual => truth(a <= b),
        BinaryOp::LogicalAnd => truth(a != 0.0 && b != 0.0),
        BinaryOp::LogicalOr => truth(a != 0.0 || b != 0.0),
        BinaryOp::LogicalXor => truth((a != 0.0) != (b != 0.0)),
        BinaryOp::FloorDiv => (a / b).floor(),
        BinaryOp::Maximum => nan_wins(f64::max),
        BinaryOp::Minimum => nan_wins(f64::min),
        // The remainder with the divisor's sign (JavaScript's % is fmod).
        BinaryOp::Mod if (a < 0.0) == (b < 0.0) || (a >= 0.0 && b >= 0.0) => a % b,
        BinaryOp::Mod => (a % b + b) % b,
        // JavaScript Math.pow: 1 ** NaN and (±1) ** ±Infinity are NaN.
        BinaryOp::Pow if b.is_nan() || (b.is_infinite() && a.abs() == 1.0) => f64::NAN,
        BinaryOp::Pow => a.powf(b),
        BinaryOp::Prelu => {
            if a < 0.0 {
                a * b
            } else {
                a
            }
        }
    }
}

/// The op the engine runs and the dtype it stores, for inputs of `dtype` (tfjs: int32 `div` is
/// floor division).
fn binary_plan(op: BinaryOp, dtype: DType) -> (BinaryOp, DType) {
    let run = if op == BinaryOp::Div && dtype == DType::Int32 { BinaryOp::FloorDiv } else { op };
    (run, run.out_dtype(dtype))
}

/// `f` over the numpy broadcast of `a` (shape `sa`) and `b` (shape `sb`), index by index.
fn broadcast_ref(
    a: &[f64],
    sa: &[usize],
    b: &[f64],
    sb: &[usize],
    f: impl Fn(f64, f64) -> f64,
) -> (Vec<f64>, Vec<usize>) {
    let rank = sa.len().max(sb.len());
    let pad = |s: &[usize]| [vec![1; rank - s.len()], s.to_vec()].concat();
    let (pa, pb) = (pad(sa), pad(sb));
    let out: Vec<usize> = (0..rank).map(|d| pa[d].max(pb[d]) * (pa[d].min(pb[d]) != 0) as usize).collect();
    let (ta, tb, to) = (strides(&pa), strides(&pb), strides(&out));
    let n: usize = out.iter().product();
    let v = (0..n)
        .map(|i| {
            let (mut ia, mut ib) = (0, 0);
            for d in 0..rank {
                let k = (i / to[d]) % out[d];
                ia += if pa[d] == 1 { 0 } else { k * ta[d] };
                ib += if pb[d] == 1 { 0 } else { k * tb[d] };
            }
            f(a[ia], b[ib])
        })
        .collect();
    (v, out)
}

const BROADCAST_CASES: &[(&[usize], &[usize])] = &[
    (&[], &[]),
    (&[3], &[3]),
    (&[1], &[5]),
    (&[5], &[1]),
    (&[], &[2, 3]),
    (&[2, 3], &[]),
    (&[2, 3], &[2, 1]),
    (&[2, 3], &[1, 3]),
    (&[2, 3], &[3]),
    (&[2, 1, 3], &[4, 1]),
    (&[4, 1, 5], &[1, 3, 1]),
    (&[2, 3, 4, 5], &[3, 1, 5]),
    (&[1, 2, 1, 3, 1, 2], &[2, 4, 1, 5, 1]),
    (&[0, 3], &[1, 3]),
    (&[2, 0], &[]),
    (&[30, 40], &[40]),
    (&[30, 40], &[30, 1]),
    (&[8, 1, 33], &[1, 10, 33]),
];

/// Shapes that broadcast together: `a` random, `b` its trailing dims, each kept or made 1.
fn random_broadcast_pair(seed: u64) -> (Vec<usize>, Vec<usize>) {
    let a = random_shape(seed, 4, 4);
    let r = random_values(a.len() + 1, mix(seed), 0.0, 1.0);
    let skip = (r[0] * (a.len() + 1) as f64) as usize;
    let b = a[skip..].iter().zip(&r[1..]).map(|(&d, &u)| if u < 0.4 { 1 } else { d }).collect();
    if seed.is_multiple_of(2) {
        (a, b)
    } else {
        (b, a)
    }
}

fn binary_ops_broadcast_on_every_dtype(e: &mut Engine) {
    let n = large_len(e);
    let mut cases: Vec<(Vec<usize>, Vec<usize>)> =
        BROADCAST_CASES.iter().map(|&(a, b)| (a.to_vec(), b.to_vec())).collect();
    cases.extend((0..12).map(|i| random_broadcast_pair(40 + i)));
    cases.extend([(vec![n], vec![n]), (vec![n], vec![]), (vec![n / 10, 10], vec![n / 10, 1])]);
    let mut seed = 10;
    for (sa, sb) in &cases {
        let (sa, sb) = (&sa[..], &sb[..]);
        for dtype in [DType::Float32, DType::Int32, DType::Bool] {
            seed += 2;
            let (a, av) = random_tensor(e, dtype, sa, seed);
            let (b, bv) = random_tensor(e, dtype, sb, seed + 1);
            for &op in BinaryOp::ALL {
                if op.rule() == BinaryRule::Logical && dtype != DType::Bool {
                    continue;
                }
                let (run, out) = binary_plan(op, dtype);
                let int = op.compute_dtype(dtype) != DType::Float32;
                let (want, shape) = broadcast_ref(&av, sa, &bv, sb, |x, y| store(out, binary_ref(run, x, y, int)));
                let y = e.binary(op, a, b).unwrap();
                let got = values(e, y, &shape, out);
                let tol = match (op, dtype) {
                    (_, DType::Int32 | DType::Bool) => 0.0,
                    (BinaryOp::Pow, _) => 1e-5,
                    _ => 1e-6,
                };
                assert_close(&got, &want, tol);
                e.dispose(y);
            }
            e.dispose(a);
            e.dispose(b);
        }
    }
}

fn binary_int32_semantics(e: &mut Engine) {
    let a = i32s(e, &[i32::MAX, i32::MIN, 65536, 7, 7, -7, 5, -5, 0, 2, 2, 2, -3], &[13]);
    let b = i32s(e, &[1, 1, 65536, 2, -2, 2, 0, 0, 0, 31, -1, 32, 3], &[13]);
    let mut go = |op| {
        let y = e.binary(op, a, b).unwrap();
        values(e, y, &[13], DType::Int32)
    };
    assert_eq!(go(BinaryOp::Add)[0], i32::MIN as f64, "wraps");
    assert_eq!(go(BinaryOp::Sub)[1], i32::MAX as f64);
    assert_eq!(go(BinaryOp::Mul)[2], 0.0);
    assert_eq!(go(BinaryOp::SquaredDifference)[3..6], [25.0, 81.0, 81.0]);
    assert_eq!(&go(BinaryOp::Div)[3..9], &[3., -4., -4., 0., 0., 0.], "int32 div floors; x / 0 stores 0");
    assert_eq!(&go(BinaryOp::FloorDiv)[3..9], &[3., -4., -4., 0., 0., 0.]);
    assert_eq!(&go(BinaryOp::Pow)[9..13], &[i32::MIN as f64, 0., 0., -27.]);
    assert_eq!(&go(BinaryOp::Maximum)[..4], &[i32::MAX as f64, 1., 65536., 7.]);
    assert_eq!(&go(BinaryOp::Minimum)[..4], &[1., i32::MIN as f64, 65536., 2.]);
    // Real division of the same values (as float32).
    let (fa, fb) = (e.cast(a, DType::Float32).unwrap(), e.cast(b, DType::Float32).unwrap());
    let d = e.binary(BinaryOp::Div, fa, fb).unwrap();
    let dv = values(e, d, &[13], DType::Float32);
    assert!(dv[6] == f64::INFINITY && dv[7] == f64::NEG_INFINITY && dv[8].is_nan() && dv[3] == 3.5, "{dv:?}");
    // Powers whose f64 value needs rounding before ToInt32 (up to 2^84), and negative exponents.
    let base = i32s(e, &[3, 7, 46341, -11, 2, 2, 1, -1, 0, 10], &[10]);
    let exp = i32s(e, &[20, 20, 2, 23, 83, 84, -3, -3, -1, 9], &[10]);
    let p = e.binary(BinaryOp::Pow, base, exp).unwrap();
    let want: Vec<f64> =
        [(3, 20), (7, 20), (46341, 2), (-11, 23), (2, 83), (2, 84), (1, -3), (-1, -3), (0, -1), (10, 9)]
            .iter()
            .map(|&(x, y)| js_to_int32((x as f64).powf(y as f64)) as f64)
            .collect();
    assert_eq!(values(e, p, &[10], DType::Int32), want);
}

fn binary_float_special_values(e: &mut Engine) {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let a = f32s(e, &[nan, 1.0, 1.0, -1.0, 2.0, 0.0, 3.0, -7.0, -8.0, 0.0], &[10]);
    let b = f32s(e, &[1.0, nan, inf, inf, 0.5, 0.0, nan, 2.0, 1.0 / 3.0, -3.0], &[10]);
    let mut go = |op| {
        let y = e.binary(op, a, b).unwrap();
        let dtype = if op == BinaryOp::FloorDiv { DType::Int32 } else { DType::Float32 };
        values(e, y, &[10], dtype)
    };
    let mx = go(BinaryOp::Maximum);
    assert!(mx[0].is_nan() && mx[1].is_nan() && mx[2] == f64::INFINITY && mx[6].is_nan() && mx[7] == 2.0, "{mx:?}");
    let mn = go(BinaryOp::Minimum);
    assert!(mn[0].is_nan() && mn[1].is_nan() && mn[2] == 1.0 && mn[7] == -7.0, "{mn:?}");
    let pw = go(BinaryOp::Pow);
    assert!(pw[0].is_nan() && pw[1].is_nan() && pw[2].is_nan() && pw[3].is_nan(), "{pw:?}");
    assert!((pw[4] - 2f64.sqrt()).abs() < 1e-6 && pw[5] == 1.0 && pw[7] == 49.0, "{pw:?}");
    assert!(pw[8].is_nan(), "a negative base with a fractional exponent");
    assert_eq!(pw[9], f64::INFINITY, "0 ** -3");
    let fd = go(BinaryOp::FloorDiv);
    assert_eq!(fd, vec![0., 0., 0., 0., 4., 0., 0., -4., -24., 0.], "int32: NaN and ±Infinity store as 0");
    let dv = go(BinaryOp::Div);
    assert!(dv[5].is_nan() && dv[9].is_sign_negative() && dv[9] == 0.0, "{dv:?}");
    let sd = go(BinaryOp::SquaredDifference);
    assert!(sd[0].is_nan() && sd[2] == f64::INFINITY && sd[7] == 81.0, "{sd:?}");
}

fn binary_bool_inputs(e: &mut Engine) {
    let a = bools(e, &[0, 1, 1, 0], &[4]);
    let b = bools(e, &[1, 1, 0, 0], &[4]);
    let mut go = |op, dtype| {
        let y = e.binary(op, a, b).unwrap();
        values(e, y, &[4], dtype)
    };
    assert_eq!(go(BinaryOp::Add, DType::Bool), vec![1., 1., 1., 0.], "1 + 1 is stored as true");
    assert_eq!(go(BinaryOp::Sub, DType::Bool), vec![1., 0., 1., 0.]);
    assert_eq!(go(BinaryOp::Mul, DType::Bool), vec![0., 1., 0., 0.]);
    assert_eq!(go(BinaryOp::Div, DType::Bool), vec![0., 1., 0., 0.], "1 / 0 and 0 / 0 store as false");
    assert_eq!(go(BinaryOp::Maximum, DType::Int32), vec![1., 1., 1., 0.]);
    assert_eq!(go(BinaryOp::Minimum, DType::Int32), vec![0., 1., 0., 0.]);
    assert_eq!(go(BinaryOp::Pow, DType::Bool), vec![0., 1., 1., 1.]);
}

fn binary_upcasts_and_errors(e: &mut Engine) {
    let a = i32s(e, &[1, 2, 3], &[3]);
    let b = f32s(e, &[0.5, 0.5, 0.5], &[3]);
    let y = e.binary(BinaryOp::Add, a, b).unwrap();
    assert_eq!(values(e, y, &[3], DType::Float32), vec![1.5, 2.5, 3.5]);
    let y = e.binary(BinaryOp::Sub, a, b).unwrap();
    assert_eq!(values(e, y, &[3], DType::Float32), vec![0.5, 1.5, 2.5]);
    let y = e.binary(BinaryOp::Div, a, b).unwrap();
    assert_eq!(values(e, y, &[3], DType::Float32), vec![2.0, 4.0, 6.0], "int32 with float32 is real division");
    let flags = bools(e, &[1, 0, 1], &[3]);
    let y = e.binary(BinaryOp::Add, flags, a).unwrap();
    assert_eq!(values(e, y, &[3], DType::Int32), vec![2., 2., 4.]);
    let y = e.binary(BinaryOp::Mul, b, flags).unwrap();
    assert_eq!(values(e, y, &[3], DType::Float32), vec![0.5, 0.0, 0.5]);
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let col = f32s(e, &[10., 20.], &[2, 1]);
    let s = e.binary(BinaryOp::Add, x, col).unwrap();
    assert_eq!(values(e, s, &[2, 3], DType::Float32), vec![11., 12., 13., 24., 25., 26.]);
    let c = f32s(e, &[1.0, 2.0], &[2]);
    fails(e, "Operands could not be broadcast together with shapes 3 and 2.", |e| e.binary(BinaryOp::Add, a, c));
    let r = e.reshape(x, &[3, 2]).unwrap();
    fails(e, "Operands could not be broadcast together with shapes 2,3 and 3,2.", |e| e.binary(BinaryOp::Add, x, r));
    let backend = e.backend_name().unwrap();
    let col = e.fill(&[1 << 20, 1], 1.0, DType::Float32).unwrap();
    let row = e.fill(&[1 << 20], 1.0, DType::Float32).unwrap();
    fails(e, &format!("is larger than the {backend} backend can hold"), |e| e.binary(BinaryOp::Add, col, row));
}

fn cast_follows_tfjs(e: &mut Engine) {
    let x = f32s(e, &[-1.7, 0.0, 2.5, f32::NAN], &[4]);
    let i = e.cast(x, DType::Int32).unwrap();
    assert_eq!(values(e, i, &[4], DType::Int32), vec![-1.0, 0.0, 2.0, 0.0]);
    let b = e.cast(x, DType::Bool).unwrap();
    assert_eq!(values(e, b, &[4], DType::Bool), vec![1.0, 0.0, 1.0, 1.0]);
    let before = usage(e);
    let same = e.cast(x, DType::Float32).unwrap();
    let after = usage(e);
    assert_eq!(
        (after.0, after.1, after.3),
        (before.0 + 1, before.1, before.3),
        "a cast to the same dtype shares the buffer"
    );
    e.dispose(same);
    let specials = [
        1.5,
        -1.5,
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        3e9,
        -3e9,
        0.0,
        -0.0,
        1e20,
        4294967296.0,
        6442450944.0,
        1e-40,
    ];
    let x = f32s(e, &specials, &[13]);
    let i = e.cast(x, DType::Int32).unwrap();
    let want: Vec<f64> = specials.iter().map(|&v| js_to_int32(v as f64) as f64).collect();
    assert_eq!(want[..9], [1., -1., 0., 0., 0., -1294967296., 1294967296., 0., 0.]);
    assert_eq!(values(e, i, &[13], DType::Int32), want);
    let b = e.cast(x, DType::Bool).unwrap();
    assert_eq!(values(e, b, &[13], DType::Bool), vec![1., 1., 1., 1., 1., 1., 1., 0., 0., 1., 1., 1., 1.]);
    let iv = i32s(e, &[0, -3, 16777217, i32::MIN], &[4]);
    let f = e.cast(iv, DType::Float32).unwrap();
    assert_eq!(values(e, f, &[4], DType::Float32), vec![0.0, -3.0, 16777216.0, -2147483648.0]);
    let b = e.cast(iv, DType::Bool).unwrap();
    assert_eq!(values(e, b, &[4], DType::Bool), vec![0., 1., 1., 1.]);
    let flags = bools(e, &[1, 0, 1], &[3]);
    let i = e.cast(flags, DType::Int32).unwrap();
    assert_eq!(values(e, i, &[3], DType::Int32), vec![1., 0., 1.]);
    let f = e.cast(flags, DType::Float32).unwrap();
    assert_eq!(values(e, f, &[3], DType::Float32), vec![1., 0., 1.]);
    // Large casts (the cpu backend's threaded path).
    let n = large_len(e);
    let v: Vec<f64> = (0..n).map(|i| i as f64 - 0.5 - (n / 2) as f64).collect();
    let x = of(e, DType::Float32, &v, &[n]);
    let i = e.cast(x, DType::Int32).unwrap();
    let want: Vec<f64> = v.iter().map(|&v| js_to_int32(v) as f64).collect();
    assert_eq!(values(e, i, &[n], DType::Int32), want);
    let empty = bools(e, &[], &[0]);
    let f = e.cast(empty, DType::Float32).unwrap();
    assert_eq!(values(e, f, &[0], DType::Float32), Vec::<f64>::new());
}

/// `where` picks per element, broadcasting all three inputs; a and b are upcast.
fn select_follows_the_condition(e: &mut Engine) {
    let c = bools(e, &[1, 0, 1], &[3]);
    let a = f32s(e, &[1.0, 2.0], &[2, 1]);
    let b = f32s(e, &[f32::NAN], &[]);
    let y = e.select(c, a, b).unwrap();
    let got = values(e, y, &[2, 3], DType::Float32);
    assert!(got[0] == 1.0 && got[1].is_nan() && got[2] == 1.0 && got[3] == 2.0 && got[5] == 2.0, "{got:?}");
    let ia = i32s(e, &[i32::MIN, 7, -3], &[3]);
    let ib = i32s(e, &[5], &[1]);
    let y = e.select(c, ia, ib).unwrap();
    assert_eq!(values(e, y, &[3], DType::Int32), vec![i32::MIN as f64, 5.0, -3.0], "int32 bits pass unchanged");
    let f = f32s(e, &[0.5, 0.25, -0.0], &[3]);
    let y = e.select(c, ia, f).unwrap();
    assert_eq!(values(e, y, &[3], DType::Float32), vec![i32::MIN as f64, 0.25, -3.0], "upcast to float32");
    let (n, big_c, big_a) =
        (large_len(e), random_values(large_len(e), 3, -1.0, 1.0), random_values(large_len(e), 4, -5.0, 5.0));
    let cond: Vec<u8> = big_c.iter().map(|&v| (v > 0.0) as u8).collect();
    let bc = bools(e, &cond, &[n]);
    let ba = of(e, DType::Float32, &big_a, &[n]);
    let zero = f32s(e, &[0.0], &[1]);
    let y = e.select(bc, ba, zero).unwrap();
    let want: Vec<f64> = cond.iter().zip(&big_a).map(|(&c, &v)| if c != 0 { v as f32 as f64 } else { 0.0 }).collect();
    assert_eq!(values(e, y, &[n], DType::Float32), want);
    fails(e, "Argument 'condition' passed to 'where' must be bool tensor, but got float32 tensor", |e| {
        e.select(a, a, b)
    });
    fails(e, "Operands could not be broadcast together", |e| {
        let c2 = bools(e, &[1, 0], &[2]);
        let r = e.select(c2, ia, ia);
        e.dispose(c2);
        r
    });
    let empty = bools(e, &[], &[0, 3]);
    let y = e.select(empty, a, b).unwrap_err();
    assert!(y.0.contains("could not be broadcast"), "{y:?}");
}

/// The int32 bit operations broadcast; shifts outside 0..32 give 0, or the sign for a right
/// shift; tfjs's bitwiseAnd keeps its same-shape rule.
fn bit_operations_on_int32(e: &mut Engine) {
    use tidytensor_core::ops::BitOp;
    let a = i32s(e, &[-8, 5, i32::MIN, 0x0F0F], &[2, 2]);
    let b = i32s(e, &[3, 0x00FF], &[2]);
    let cases: [(BitOp, [i32; 4]); 3] = [
        (BitOp::And, [-8 & 3, 5 & 0xFF, i32::MIN & 3, 0x0F0F & 0xFF]),
        (BitOp::Or, [-8 | 3, 5 | 0xFF, i32::MIN | 3, 0x0F0F | 0xFF]),
        (BitOp::Xor, [-8 ^ 3, 5 ^ 0xFF, i32::MIN ^ 3, 0x0F0F ^ 0xFF]),
    ];
    for (op, want) in cases {
        let y = e.bitwise(op, a, b).unwrap();
        assert_eq!(values(e, y, &[2, 2], DType::Int32), want.map(f64::from).to_vec(), "{op:?}");
    }
    let x = i32s(e, &[-8, 1, -8, 7, 1], &[5]);
    let s = i32s(e, &[1, 31, 40, -1, 32], &[5]);
    let left = e.bitwise(BitOp::LeftShift, x, s).unwrap();
    assert_eq!(values(e, left, &[5], DType::Int32), vec![-16.0, i32::MIN as f64, 0.0, 0.0, 0.0]);
    let right = e.bitwise(BitOp::RightShift, x, s).unwrap();
    assert_eq!(values(e, right, &[5], DType::Int32), vec![-4.0, 0.0, -1.0, 0.0, 0.0]);
    let not = e.bitwise_not(a).unwrap();
    assert_eq!(values(e, not, &[2, 2], DType::Int32), vec![7.0, -6.0, i32::MAX as f64, !0x0F0F_i32 as f64]);
    fails(e, "BitwiseAnd: Tensors must have the same shape. x: 2,2, y: 2", |e| e.bitwise_and(a, b));
    fails(e, "BitwiseOr: Only supports 'int32' values in tensor, found type of x: float32", |e| {
        let f = f32s(e, &[1.0], &[1]);
        let r = e.bitwise(BitOp::Or, f, b);
        e.dispose(f);
        r
    });
    fails(e, "Operands could not be broadcast together", |e| e.bitwise(BitOp::Xor, a, x));
}

/// Every op of the tables has its WGSL functions (found by name when the wgpu backend builds
/// its kernel): `<js>_f32`, and `<js>_i32` where int32 and bool compute in integers.
#[test]
fn every_table_op_has_its_wgsl_functions() {
    let wgsl = include_str!("../../wgpu/src/shaders/elementwise/ops.wgsl");
    let missing = |name: &str, ty: &str| !wgsl.contains(&format!("fn {name}_{ty}("));
    for &op in UnaryOp::ALL {
        let rule = op.dtype_rule();
        for ty in ["f32", "i32"] {
            let needed =
                if ty == "f32" { rule != DtypeRule::Bool } else { matches!(rule, DtypeRule::Same | DtypeRule::Bool) };
            assert!(!(needed && missing(op.js_name(), ty)), "ops.wgsl has no fn {}_{ty} ({op:?})", op.js_name());
        }
    }
    for &op in BinaryOp::ALL {
        for ty in ["f32", "i32"] {
            let needed = if ty == "f32" { op.rule() != BinaryRule::Logical } else { op.rule() != BinaryRule::Float };
            assert!(!(needed && missing(op.js_name(), ty)), "ops.wgsl has no fn {}_{ty} ({op:?})", op.js_name());
        }
    }
}

/// Whether a gradient matches the reference's central difference (`want`).
fn grad_close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-3 * want.abs().max(1.0)
}

/// Each op's gradient decision (its table line's `grad`): a formula matches the finite
/// differences of the op's f64 reference, `zero` gives zeros (so does the difference, away
/// from the jumps), `none` is tfjs's error.
fn table_gradients_match_finite_differences(e: &mut Engine) {
    const H: f64 = 1e-4;
    for &op in UnaryOp::ALL {
        let kernel = op.kernel_name();
        if op.dtype_rule() == DtypeRule::Bool {
            let x = bools(e, &[0, 1], &[2]);
            match op.grad() {
                Grad::None => fails(e, &format!("gradient function not found for {kernel}."), |e| grad1(e, op, x)),
                _ => assert_eq!(grad1(e, op, x).unwrap(), vec![0.0, 0.0], "{op:?}"),
            }
            e.dispose(x);
            continue;
        }
        // Points away from the kinks and jumps (0, ±0.5, integers) and where the op is defined.
        let xs: Vec<f64> = [-1.7, -0.6, 0.35, 0.8, 1.6]
            .iter()
            .map(|&v: &f64| v as f32 as f64)
            .filter(|&v| unary_ref(op, v - H).is_finite() && unary_ref(op, v + H).is_finite())
            .collect();
        assert!(!xs.is_empty(), "{op:?}: no point to differentiate at");
        let x = of(e, DType::Float32, &xs, &[xs.len()]);
        if let Grad::None = op.grad() {
            fails(e, &format!("gradient function not found for {kernel}."), |e| grad1(e, op, x));
        } else {
            let got = grad1(e, op, x).unwrap();
            for (k, &v) in xs.iter().enumerate() {
                let want = (unary_ref(op, v + H) - unary_ref(op, v - H)) / (2.0 * H);
                assert!(grad_close(got[k], want), "{op:?} at {v}: gradient {}, finite difference {want}", got[k]);
            }
        }
        e.dispose(x);
    }
    let (av, bv) = ([-1.3, 0.45, 1.7, -0.4], [0.6, -0.85, 2.3, -1.9]);
    for &op in BinaryOp::ALL {
        let kernel = op.kernel_name();
        if op.rule() == BinaryRule::Logical {
            let (a, b) = (bools(e, &[0, 1], &[2]), bools(e, &[1, 1], &[2]));
            assert!(matches!(op.grad(), Grad::None), "{op:?}: tfjs has no gradient for logical ops");
            fails(e, &format!("gradient function not found for {kernel}."), |e| grad2(e, op, a, b));
            e.dispose(a);
            e.dispose(b);
            continue;
        }
        // tfjs differentiates floorDiv as div.
        let f = if op == BinaryOp::FloorDiv { BinaryOp::Div } else { op };
        let r = |a: f64, b: f64| binary_ref(f, a, b, false);
        let pairs: Vec<(f64, f64)> = av
            .iter()
            .zip(&bv)
            .map(|(&a, &b): (&f64, &f64)| (a as f32 as f64, b as f32 as f64))
            .filter(|&(a, b)| [r(a - H, b), r(a + H, b), r(a, b - H), r(a, b + H)].iter().all(|v| v.is_finite()))
            .collect();
        assert!(!pairs.is_empty(), "{op:?}: no point to differentiate at");
        let n = pairs.len();
        let a = of(e, DType::Float32, &pairs.iter().map(|p| p.0).collect::<Vec<_>>(), &[n]);
        let b = of(e, DType::Float32, &pairs.iter().map(|p| p.1).collect::<Vec<_>>(), &[n]);
        if let Grad::None = op.grad() {
            fails(e, &format!("gradient function not found for {kernel}."), |e| grad2(e, op, a, b));
        } else {
            let got = grad2(e, op, a, b).unwrap();
            for (k, &(x, y)) in pairs.iter().enumerate() {
                let da = (r(x + H, y) - r(x - H, y)) / (2.0 * H);
                let db = (r(x, y + H) - r(x, y - H)) / (2.0 * H);
                assert!(grad_close(got[k], da), "{op:?} at ({x}, {y}): d/da {}, finite difference {da}", got[k]);
                assert!(
                    grad_close(got[n + k], db),
                    "{op:?} at ({x}, {y}): d/db {}, finite difference {db}",
                    got[n + k]
                );
            }
        }
        e.dispose(a);
        e.dispose(b);
    }
}

/// The gradient of `op(x)` with respect to x (dy of ones).
fn grad1(e: &mut Engine, op: UnaryOp, x: TensorId) -> tidytensor_core::Result<Vec<f64>> {
    let (y, g) = e.gradients(|e| e.unary(op, x), &[x], None, false)?;
    let g = g[0].expect("a gradient");
    let got = values(e, g, e.shape(g)?, DType::Float32);
    e.dispose(y);
    e.dispose(g);
    Ok(got)
}

/// The gradients of `op(a, b)` with respect to a and b, one after the other.
fn grad2(e: &mut Engine, op: BinaryOp, a: TensorId, b: TensorId) -> tidytensor_core::Result<Vec<f64>> {
    let (y, g) = e.gradients(|e| e.binary(op, a, b), &[a, b], None, false)?;
    let mut got = Vec::new();
    for g in g {
        let g = g.expect("a gradient");
        got.extend(values(e, g, e.shape(g)?, DType::Float32));
        e.dispose(g);
    }
    e.dispose(y);
    Ok(got)
}

/// tf.step in each dtype (NaN stays NaN in float32; alpha stored as the dtype stores it), one
/// Step kernel with a zero gradient; tf.logSigmoid against -softplus(-x); tf.movingAverage
/// against its formula, with tfjs's checks.
fn step_log_sigmoid_and_moving_average(e: &mut Engine) {
    let xs = [-2.0, -0.0, 0.0, 0.5, 3.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
    let x = of(e, DType::Float32, &xs, &[8]);
    let y = e.step(x, -0.25).unwrap();
    let want = [-0.25, -0.25, -0.25, 1.0, 1.0, f64::NAN, 1.0, -0.25];
    assert_close(&values(e, y, &[8], DType::Float32), &want, 0.0);
    let xi = i32s(e, &[-3, 0, 4], &[3]);
    let y = e.step(xi, -1.7).unwrap();
    assert_eq!(values(e, y, &[3], DType::Int32), vec![-1.0, -1.0, 1.0]);
    let xb = bools(e, &[1, 0], &[2]);
    let y = e.step(xb, 0.5).unwrap();
    assert_eq!(values(e, y, &[2], DType::Bool), vec![1.0, 0.0]);
    let y = e.step(xb, 2.0).unwrap();
    assert_eq!(values(e, y, &[2], DType::Bool), vec![1.0, 1.0]);
    let mark = e.start_profile();
    let y = e.step(x, 0.0).unwrap();
    let kernels: Vec<&str> = e.end_profile(mark, true).iter().map(|r| r.name).collect();
    assert_eq!(kernels, ["Step"]);
    e.dispose(y);
    let g = f32s(e, &[-1.0, 0.5, 2.0], &[3]);
    let (y, grads) = e.gradients(|e| e.step(g, 0.3), &[g], None, false).unwrap();
    assert_eq!(values(e, grads[0].unwrap(), &[3], DType::Float32), vec![0.0; 3]);
    e.dispose(y);
    e.dispose(grads[0].unwrap());

    let ls = e.log_sigmoid(x).unwrap();
    let want: Vec<f64> = xs.iter().map(|&v| -(unary_ref(UnaryOp::Softplus, -v) as f32 as f64)).collect();
    assert_close(&values(e, ls, &[8], DType::Float32), &want, 1e-6);
    let gx = f32s(e, &[-3.0, 0.0, 2.0], &[3]);
    let (y, grads) = e.gradients(|e| e.log_sigmoid(gx), &[gx], None, false).unwrap();
    let want: Vec<f64> = [-3.0f64, 0.0, 2.0].iter().map(|&v| 1.0 / (1.0 + v.exp())).collect();
    assert_close(&values(e, grads[0].unwrap(), &[3], DType::Float32), &want, 1e-6);
    e.dispose(y);
    e.dispose(grads[0].unwrap());

    let (vv, xv) = ([1.0, 2.0, -3.0], [3.0, 5.0, 1.0]);
    let v = f32s(e, &vv.map(|a| a as f32), &[3]);
    let xx = f32s(e, &xv.map(|a| a as f32), &[3]);
    let decay = f32s(e, &[0.6], &[]);
    let step = i32s(e, &[2], &[]);
    let y = e.moving_average(v, xx, decay, Some(step), true).unwrap();
    let want: Vec<f64> = vv.iter().zip(&xv).map(|(a, b)| a + (b - a) * 0.4 / (1.0 - 0.36)).collect();
    assert_close(&values(e, y, &[3], DType::Float32), &want, 1e-6);
    let y = e.moving_average(v, xx, decay, None, false).unwrap();
    let want: Vec<f64> = vv.iter().zip(&xv).map(|(a, b)| a + (b - a) * 0.4).collect();
    assert_close(&values(e, y, &[3], DType::Float32), &want, 1e-6);
    let vi = e.cast(v, DType::Int32).unwrap();
    let x2 = f32s(e, &[1.0, 2.0], &[2]);
    fails(e, "When using zeroDebias: true, step is required.", |e| e.moving_average(v, xx, decay, None, true));
    fails(e, "The dtypes of the first(int32) and second(float32) input must match", |e| {
        e.moving_average(vi, xx, decay, Some(step), true)
    });
    fails(e, "Shape mismatch in v and x", |e| e.moving_average(v, x2, decay, Some(step), true));
}

backend_tests!(
    bit_operations_on_int32,
    step_log_sigmoid_and_moving_average,
    select_follows_the_condition,
    table_gradients_match_finite_differences,
    unary_float_ops_match_the_reference,
    unary_signs_of_zero,
    unary_dtype_rules,
    binary_ops_broadcast_on_every_dtype,
    binary_int32_semantics,
    binary_float_special_values,
    binary_bool_inputs,
    binary_upcasts_and_errors,
    cast_follows_tfjs,
);
