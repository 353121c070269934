//! Every op front-end run on the cpu backend and on the wgpu backend with the same inputs,
//! compared: float32 within a relative tolerance (1e-5, or 1e-4 where the GPU sums in f32 in a
//! different order than the cpu backend, which sums in f64 or through gemm's blocking: large
//! matmuls, softmax and reductions of long rows), int32 and bool exactly. Inputs are created
//! on the cpu backend; the engine moves them to whichever backend is active, so the test also
//! exercises upload and readback of every dtype both ways, and every wgpu result must live in
//! GPU storage. Gather with an index out of range differs by design (an error on cpu, zeros on
//! wgpu); the suite tests it per backend.

mod common;

use tidytensor_core::ops::Random;
use tidytensor_core::{ArgOp, BinaryOp, DType, DtypeRule, Engine, HostData, ReduceOp, Result, TensorId, UnaryOp};

#[derive(Clone, Copy)]
struct Tol {
    rel: f64,
    abs: f64,
    /// Relative difference allowed between int32 results of 2^24 and more (0: exact).
    int_rel: f64,
}

const EXACT: Tol = Tol { rel: 1e-5, abs: 0.0, int_rel: 0.0 };
const LOOSE: Tol = Tol { rel: 1e-4, abs: 0.0, int_rel: 0.0 };
/// floorDiv of float32: the cpu backend divides in f64 as tfjs's does, the GPU in f32 with an
/// exact remainder check, which is exact below 2^24; beyond, f32 has no integer precision.
const QUOTIENT: Tol = Tol { rel: 1e-5, abs: 0.0, int_rel: 1.0 / 8388608.0 };
/// `Numeric` unary ops of int32: the GPU computes the float formula in f32, so beyond 2^24 the
/// value itself rounds before the op (the cpu backend computes in f64, as tfjs does).
const INT_VIA_F32: Tol = QUOTIENT;
/// Signed random matrices: sums of k products of values in [-1, 1) cancel, so a result near 0
/// carries the absolute rounding error of its terms (~k * 2^-24), whatever its own size.
const SIGNED_SUM: Tol = Tol { rel: 1e-5, abs: 1e-5, int_rel: 0.0 };

struct Diff<'a> {
    e: &'a mut Engine,
    inputs: Vec<TensorId>,
    failures: Vec<String>,
    checked: usize,
}

impl Diff<'_> {
    fn input(&mut self, data: HostData, shape: &[usize]) -> TensorId {
        self.e.set_backend("cpu").unwrap();
        let id = self.e.tensor(data, shape).unwrap();
        self.e.keep(id);
        self.inputs.push(id);
        id
    }

    fn f(&mut self, v: &[f32], shape: &[usize]) -> TensorId {
        self.input(HostData::F32(v.to_vec()), shape)
    }

    fn i(&mut self, v: &[i32], shape: &[usize]) -> TensorId {
        self.input(HostData::I32(v.to_vec()), shape)
    }

    fn b(&mut self, v: &[u8], shape: &[usize]) -> TensorId {
        self.input(HostData::Bool(v.to_vec()), shape)
    }

    /// Runs `op` on cpu then on wgpu and compares results (or error messages).
    fn check(&mut self, name: &str, tol: Tol, op: impl Fn(&mut Engine) -> Result<TensorId>) {
        self.checked += 1;
        self.e.set_backend("cpu").unwrap();
        let want = op(self.e);
        self.e.set_backend("wgpu").unwrap();
        // Inputs move to the GPU first (an op on an input moves its buffer to the active
        // backend), so that the op's own GPU bytes can be counted exactly.
        for &id in &self.inputs {
            let moved = self.e.clone_tensor(id).unwrap();
            self.e.dispose(moved);
        }
        let before = (self.e.memory().num_data_buffers, common::field(self.e, "numBytesInGPU"));
        let got = op(self.e);
        let new_buffers = self.e.memory().num_data_buffers as i64 - before.0 as i64;
        let new_bytes = common::field(self.e, "numBytesInGPU") - before.1;
        // A result has a new buffer of 4 bytes per element on the GPU, or shares its input's
        // (reshape, clone, a cast to the same dtype): nothing new. A failed op leaves nothing.
        let n = got.as_ref().map_or(0, |&g| self.e.shape(g).unwrap().iter().product::<usize>());
        let allowed = if got.is_ok() { 0..=1 } else { 0..=0 };
        if !allowed.contains(&new_buffers) || new_bytes != 4.0 * (n as i64 * new_buffers) as f64 {
            self.failures.push(format!(
                "{name}: the wgpu result does not live on the GPU ({new_buffers} new buffers, {new_bytes} new GPU bytes for {n} elements)"
            ));
        }
        match (want, got) {
            (Ok(w), Ok(g)) => {
                let (ws, gs) = (self.e.shape(w).unwrap().to_vec(), self.e.shape(g).unwrap().to_vec());
                let (wd, gd) = (self.e.dtype(w).unwrap(), self.e.dtype(g).unwrap());
                if ws != gs || wd != gd {
                    self.failures.push(format!("{name}: cpu gives {wd:?} {ws:?}, wgpu gives {gd:?} {gs:?}"));
                } else {
                    let (wv, gv) = (self.e.read(w), self.e.read(g));
                    match (wv, gv) {
                        (Ok(wv), Ok(gv)) => self.compare(name, tol, &wv, &gv),
                        (a, b) => {
                            self.failures.push(format!("{name}: read failed: cpu {:?} wgpu {:?}", a.err(), b.err()))
                        }
                    }
                }
                self.e.dispose(w);
                self.e.dispose(g);
            }
            (Err(a), Err(b)) => {
                if a != b {
                    self.failures.push(format!("{name}: errors differ: cpu '{a}' wgpu '{b}'"));
                }
            }
            (Ok(w), Err(b)) => {
                self.failures.push(format!("{name}: wgpu failed: {b}"));
                self.e.dispose(w);
            }
            (Err(a), Ok(g)) => {
                self.failures.push(format!("{name}: cpu failed ({a}) but wgpu did not"));
                self.e.dispose(g);
            }
        }
    }

    fn compare(&mut self, name: &str, tol: Tol, want: &HostData, got: &HostData) {
        let bad: Vec<String> = match (want, got) {
            (HostData::F32(w), HostData::F32(g)) => w
                .iter()
                .zip(g)
                .enumerate()
                .filter(|(_, (&a, &b))| {
                    let (a, b) = (a as f64, b as f64);
                    let same = if a.is_nan() || b.is_nan() {
                        a.is_nan() && b.is_nan()
                    } else if a.is_infinite() || b.is_infinite() {
                        a == b
                    } else {
                        // 1e-37: values flushed to zero (denormals) on the GPU.
                        (a - b).abs() <= tol.rel * a.abs().max(b.abs()) + tol.abs + 1e-37
                    };
                    !same
                })
                .map(|(i, (a, b))| format!("[{i}] cpu {a:e} wgpu {b:e}"))
                .collect(),
            _ if want == got => vec![],
            (HostData::I32(w), HostData::I32(g)) => w
                .iter()
                .zip(g)
                .enumerate()
                .filter(|(_, (&a, &b))| {
                    let (a, b) = (a as f64, b as f64);
                    // The distance modulo 2^32: a value rounded across 2^31 wraps as int32.
                    let d = (a - b).abs().min(4294967296.0 - (a - b).abs());
                    a != b && !(a.abs() >= 16777216.0 && d <= tol.int_rel * a.abs())
                })
                .map(|(i, (a, b))| format!("[{i}] cpu {a} wgpu {b}"))
                .collect(),
            (HostData::Bool(w), HostData::Bool(g)) => w
                .iter()
                .zip(g)
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| format!("[{i}] cpu {a} wgpu {b}"))
                .collect(),
            _ => vec![format!("dtype mismatch {:?} vs {:?}", want.dtype(), got.dtype())],
        };
        if want.len() != got.len() {
            self.failures.push(format!("{name}: lengths differ {} vs {}", want.len(), got.len()));
        } else if !bad.is_empty() {
            let n = bad.len();
            let shown: Vec<_> = bad.into_iter().take(6).collect();
            self.failures.push(format!("{name}: {n} of {} values differ: {}", want.len(), shown.join(", ")));
        }
    }

    fn finish(self) {
        eprintln!("differential: {} checks, {} failures", self.checked, self.failures.len());
        assert!(self.failures.is_empty(), "cpu and wgpu differ:\n{}", self.failures.join("\n"));
    }
}

fn diff(f: impl FnOnce(&mut Diff)) {
    common::with_gpu(|e, _| {
        let mut d = Diff { e, inputs: vec![], failures: vec![], checked: 0 };
        f(&mut d);
        d.finish();
    });
}

const SPECIALS: [f32; 24] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.0,
    100.0,
    -100.0,
    1e-3,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    7.25,
    1e6,
    -88.5,
    0.1,
    -0.3,
    2.0,
    10.0,
    1e-6,
    89.0,
    -1e-4,
    0.7,
];

#[test]
fn unary_ops_match_cpu() {
    diff(|d| {
        let x = d.f(&SPECIALS, &[4, 6]);
        let smooth: Vec<f32> = (0..200).map(|i| (i as f32 - 100.0) * 0.173).collect();
        let s = d.f(&smooth, &[200]);
        let ints = d.i(&[0, 1, -1, 7, -8, 46341, i32::MAX, i32::MIN, 100, -3], &[10]);
        let bools = d.b(&[0, 1, 1, 0], &[2, 2]);
        for &op in UnaryOp::ALL {
            let name = op.js_name();
            d.check(&format!("{name} specials"), EXACT, |e| e.unary(op, x));
            d.check(&format!("{name} smooth"), EXACT, |e| e.unary(op, s));
            let int_tol = if op.dtype_rule() == DtypeRule::Numeric { INT_VIA_F32 } else { EXACT };
            d.check(&format!("{name} int32"), int_tol, |e| e.unary(op, ints));
            d.check(&format!("{name} bool"), EXACT, |e| e.unary(op, bools));
        }
        let empty = d.f(&[], &[0, 3]);
        d.check("exp empty", EXACT, |e| e.unary(UnaryOp::Exp, empty));
    });
}

#[test]
fn binary_ops_match_cpu() {
    diff(|d| {
        let a = d.f(&SPECIALS, &[4, 6]);
        let b = d.f(&SPECIALS.iter().rev().copied().collect::<Vec<_>>(), &[4, 6]);
        let row = d.f(&[2.0, -3.0, 0.0, 0.5, f32::NAN, -1.0], &[6]);
        let col = d.f(&[1.5, -2.0, 3.0, 0.0], &[4, 1]);
        let scalar = d.f(&[-2.0], &[]);
        let cube = d.f(&common::values(2 * 3 * 4, 1, -3.0, 3.0), &[2, 3, 4]);
        let mid = d.f(&common::values(3, 2, -3.0, 3.0), &[3, 1]);
        let wide = d.f(&common::values(2 * 4, 3, -3.0, 3.0), &[2, 1, 4]);
        let ia = d.i(&[7, -7, 7, -7, 0, i32::MAX, i32::MIN, 5, 3, -2, 46341, 2], &[12]);
        let ib = d.i(&[2, 2, -2, -2, 0, 1, -1, 0, 4, 5, 46341, 31], &[12]);
        let ismall = d.i(&[3], &[1]);
        let ba = d.b(&[0, 0, 1, 1], &[4]);
        let bb = d.b(&[0, 1, 0, 1], &[4]);
        let bases = d.f(&[-2.0, -2.0, -8.0, 2.0, 0.0, -0.0, 1.0, -1.0, 1.5, 10.0, 0.25, -3.0], &[12]);
        let exps = d.f(&[3.0, 2.0, 1.0 / 3.0, 0.5, -1.0, -3.0, f32::NAN, f32::INFINITY, 2.5, -2.0, 10.0, 5.0], &[12]);
        use BinaryOp::*;
        for &op in BinaryOp::ALL {
            let n = op.js_name();
            let tol = if op == FloorDiv { QUOTIENT } else { EXACT };
            d.check(&format!("{n} same shape"), tol, |e| e.binary(op, a, b));
            d.check(&format!("{n} row broadcast"), EXACT, |e| e.binary(op, a, row));
            d.check(&format!("{n} column broadcast"), EXACT, |e| e.binary(op, col, a));
            d.check(&format!("{n} scalar"), EXACT, |e| e.binary(op, scalar, a));
            d.check(&format!("{n} 3-d broadcast"), EXACT, |e| e.binary(op, cube, mid));
            d.check(&format!("{n} both broadcast"), EXACT, |e| e.binary(op, mid, wide));
            d.check(&format!("{n} int32"), EXACT, |e| e.binary(op, ia, ib));
            d.check(&format!("{n} int32 scalar"), EXACT, |e| e.binary(op, ia, ismall));
            d.check(&format!("{n} bool"), EXACT, |e| e.binary(op, ba, bb));
            d.check(&format!("{n} int32 with float32"), EXACT, |e| e.binary(op, ia, bases));
            d.check(&format!("{n} bool with int32"), EXACT, |e| e.binary(op, ba, ismall));
        }
        d.check("pow bases", EXACT, |e| e.binary(Pow, bases, exps));
        // Includes results beyond 2^53 (the cpu backend rounds them to f64 before ToInt32)
        // and beyond 2^84 (0).
        let ie = d.i(&[3, 2, 0, 31, -1, -2, 5, 1, 2, 3, 4, 7, 40, 39, 20, 70, 30, 3, 33, 83, 84, 100, 55, 23], &[24]);
        let ibase =
            d.i(&[-2, 7, 0, 2, -1, 1, -3, 0, 46340, 10, -7, 3, 3, -3, 7, 2, 5, 46341, -5, 2, 2, 3, 2, -11], &[24]);
        d.check("pow int32", EXACT, |e| e.binary(Pow, ibase, ie));
        let empty = d.f(&[], &[0, 6]);
        d.check("add empty", EXACT, |e| e.binary(Add, empty, row));
        d.check("broadcast error", EXACT, |e| e.binary(Add, a, mid));
    });
}

#[test]
fn matmul_matches_cpu() {
    diff(|d| {
        let mat = |d: &mut Diff, shape: &[usize], seed: u64| {
            let n: usize = shape.iter().product();
            d.f(&common::values(n, seed, -1.0, 1.0), shape)
        };
        let a = mat(d, &[3, 5], 1);
        let b = mat(d, &[5, 4], 2);
        let at = mat(d, &[5, 3], 3);
        let bt = mat(d, &[4, 5], 4);
        d.check("matmul 3x5x4", SIGNED_SUM, |e| e.matmul(a, b, false, false));
        d.check("matmul transposeA", SIGNED_SUM, |e| e.matmul(at, b, true, false));
        d.check("matmul transposeB", SIGNED_SUM, |e| e.matmul(a, bt, false, true));
        d.check("matmul both transposed", SIGNED_SUM, |e| e.matmul(at, bt, true, true));
        let ba = mat(d, &[2, 3, 5], 5);
        let bb = mat(d, &[2, 5, 4], 6);
        d.check("matmul batched", SIGNED_SUM, |e| e.matmul(ba, bb, false, false));
        let one = mat(d, &[1, 3, 5], 7);
        let four = mat(d, &[4, 5, 2], 8);
        d.check("matmul batch-1 broadcast a", SIGNED_SUM, |e| e.matmul(one, four, false, false));
        let fourb = mat(d, &[4, 3, 5], 9);
        let b2 = mat(d, &[5, 2], 10);
        d.check("matmul batch-1 broadcast b (rank 2)", SIGNED_SUM, |e| e.matmul(fourb, b2, false, false));
        let r4a = mat(d, &[2, 1, 3, 5], 11);
        let r4b = mat(d, &[1, 3, 2, 5], 12);
        d.check("matmul rank-4 batch broadcast, transposeB", SIGNED_SUM, |e| e.matmul(r4a, r4b, false, true));
        // Sizes that are not multiples of the 32x32 tile nor of 4.
        let oa = mat(d, &[33, 17], 13);
        let ob = mat(d, &[17, 65], 14);
        d.check("matmul 33x17x65", SIGNED_SUM, |e| e.matmul(oa, ob, false, false));
        let ob_t = mat(d, &[65, 17], 15);
        d.check("matmul 33x17x65 transposeB", SIGNED_SUM, |e| e.matmul(oa, ob_t, false, true));
        let oa_t = mat(d, &[17, 33], 16);
        d.check("matmul 33x17x65 transposeA", SIGNED_SUM, |e| e.matmul(oa_t, ob, true, false));
        let (s1, s2) = (d.f(&[3.0], &[1, 1]), d.f(&[-2.0], &[1, 1]));
        d.check("matmul 1x1x1", SIGNED_SUM, |e| e.matmul(s1, s2, false, false));
        // Large k: positive inputs (no cancellation), f32 sums in a different order than
        // gemm's blocks: 1e-4.
        let k = 4099;
        let la = d.f(&common::values(2 * k, 17, 0.0, 1.0), &[2, k]);
        let lb = d.f(&common::values(k * 3, 18, 0.0, 1.0), &[k, 3]);
        d.check("matmul k=4099", LOOSE, |e| e.matmul(la, lb, false, false));
        let big_a = d.f(&common::values(70 * 130, 19, 0.0, 1.0), &[70, 130]);
        let big_b = d.f(&common::values(130 * 90, 20, 0.0, 1.0), &[130, 90]);
        d.check("matmul 70x130x90", LOOSE, |e| e.matmul(big_a, big_b, false, false));
        let z0 = d.f(&[], &[2, 0]);
        let z1 = d.f(&[], &[0, 3]);
        d.check("matmul k=0", EXACT, |e| e.matmul(z0, z1, false, false));
        let ia = d.i(&[1, 2, 3, 4, 5, 6], &[2, 3]);
        let ib = d.i(&[7, 8, 9, 10, 11, 12], &[3, 2]);
        d.check("matmul int32", EXACT, |e| e.matmul(ia, ib, false, false));
        d.check("matmul inner mismatch", EXACT, |e| e.matmul(a, a, false, false));
    });
}

#[test]
fn reductions_match_cpu() {
    diff(|d| {
        let x = d.f(&common::values(2 * 3 * 4, 1, -5.0, 5.0), &[2, 3, 4]);
        let ix = d.i(&[5, -3, 7, i32::MAX, 1, 2, -8, 0, 4, 4, -1, i32::MAX], &[3, 4]);
        let bx = d.b(&[1, 0, 1, 1, 0, 0], &[2, 3]);
        let nan = d.f(&[1.0, f32::NAN, 3.0, -1.0, 2.0, 0.5], &[2, 3]);
        // Long rows take the workgroup-tree path (several passes for the longest).
        let long = d.f(&common::values(3 * 5000, 2, 0.0, 1.0), &[3, 5000]);
        let huge_row = d.f(&common::values(300_000, 3, 0.0, 1.0), &[300_000]);
        let ilong = d.i(&(0..20_000).map(|i| (i * 7919) % 100_003 - 50_000).collect::<Vec<_>>(), &[2, 10_000]);
        let blong = d.b(&(0..9_000).map(|i| (i % 3 == 0) as u8).collect::<Vec<_>>(), &[9_000]);
        let empty = d.f(&[], &[3, 0]);
        let iempty = d.i(&[], &[2, 0]);
        use ReduceOp::*;
        for op in [Sum, Mean, Max, Min] {
            let n = format!("{op:?}");
            d.check(&format!("{n} all"), EXACT, |e| e.reduce(op, x, None, false));
            d.check(&format!("{n} axis 0"), EXACT, |e| e.reduce(op, x, Some(&[0]), false));
            d.check(&format!("{n} axis -1 keepDims"), EXACT, |e| e.reduce(op, x, Some(&[-1]), true));
            d.check(&format!("{n} axes 0,2"), EXACT, |e| e.reduce(op, x, Some(&[0, 2]), false));
            d.check(&format!("{n} axis 1"), EXACT, |e| e.reduce(op, x, Some(&[1]), true));
            d.check(&format!("{n} int32"), EXACT, |e| e.reduce(op, ix, Some(&[1]), false));
            d.check(&format!("{n} int32 all"), EXACT, |e| e.reduce(op, ix, None, false));
            d.check(&format!("{n} bool"), EXACT, |e| e.reduce(op, bx, Some(&[0]), false));
            d.check(&format!("{n} NaN"), EXACT, |e| e.reduce(op, nan, Some(&[1]), false));
            d.check(&format!("{n} long rows"), LOOSE, |e| e.reduce(op, long, Some(&[1]), false));
            d.check(&format!("{n} long columns"), LOOSE, |e| e.reduce(op, long, Some(&[0]), false));
            d.check(&format!("{n} 300k"), LOOSE, |e| e.reduce(op, huge_row, None, false));
            d.check(&format!("{n} int32 long"), EXACT, |e| e.reduce(op, ilong, Some(&[1]), false));
            d.check(&format!("{n} bool long"), EXACT, |e| e.reduce(op, blong, None, false));
            d.check(&format!("{n} empty rows"), EXACT, |e| e.reduce(op, empty, Some(&[1]), false));
            d.check(&format!("{n} int32 empty rows"), EXACT, |e| e.reduce(op, iempty, Some(&[1]), false));
            d.check(&format!("{n} empty outer"), EXACT, |e| e.reduce(op, empty, Some(&[0]), false));
            d.check(&format!("{n} bad axis"), EXACT, |e| e.reduce(op, x, Some(&[3]), false));
        }
    });
}

#[test]
fn arg_reduce_and_softmax_match_cpu() {
    diff(|d| {
        let x = d.f(&[3.0, 1.0, 3.0, -2.0, f32::NAN, 5.0, 5.0, 0.0, 1.0, 2.0, 2.0, 2.0], &[3, 4]);
        let first_nan = d.f(&[f32::NAN, 9.0, 1.0, 4.0, f32::NAN, 4.0], &[2, 3]);
        let ix = d.i(&[4, 9, 9, -1, 0, 3], &[2, 3]);
        let bx = d.b(&[0, 1, 1, 0, 0, 0], &[2, 3]);
        let mut lv = common::values(3 * 1000, 5, -1.0, 1.0);
        lv[1000 + 700] = 2.0; // ties across threads of the tree
        lv[1000 + 300] = 2.0;
        lv[2000] = f32::NAN;
        lv[2000 + 999] = 3.0;
        let long = d.f(&lv, &[3, 1000]);
        let cols = d.f(&common::values(1000 * 3, 6, -1.0, 1.0), &[1000, 3]);
        let scalar = d.f(&[1.0], &[]);
        for op in [ArgOp::ArgMax, ArgOp::ArgMin] {
            let n = format!("{op:?}");
            d.check(&format!("{n} axis 1"), EXACT, |e| e.arg_reduce(op, x, 1));
            d.check(&format!("{n} axis 0"), EXACT, |e| e.arg_reduce(op, x, 0));
            d.check(&format!("{n} NaN first"), EXACT, |e| e.arg_reduce(op, first_nan, -1));
            d.check(&format!("{n} int32"), EXACT, |e| e.arg_reduce(op, ix, 1));
            d.check(&format!("{n} bool"), EXACT, |e| e.arg_reduce(op, bx, 0));
            d.check(&format!("{n} long axis"), EXACT, |e| e.arg_reduce(op, long, 1));
            d.check(&format!("{n} long axis 0"), EXACT, |e| e.arg_reduce(op, cols, 0));
            d.check(&format!("{n} scalar"), EXACT, |e| e.arg_reduce(op, scalar, 0));
        }
        let small = d.f(&common::values(4 * 5, 7, -4.0, 4.0), &[4, 5]);
        let rows = d.f(&[1.0, 2.0, 3.0, f32::NAN, 1.0, 1.0, 1000.0, -1000.0, 0.0], &[3, 3]);
        let wide = d.f(&common::values(3 * 1000, 8, -10.0, 10.0), &[3, 1000]);
        d.check("softmax small", EXACT, |e| e.softmax(small, -1));
        d.check("softmax NaN and extremes", EXACT, |e| e.softmax(rows, -1));
        d.check("softmax long rows", LOOSE, |e| e.softmax(wide, -1));
        d.check("softmax dim error", EXACT, |e| e.softmax(small, 0));
        let v = d.f(&[0.5, 1.5, -2.0], &[3]);
        d.check("softmax 1-d", EXACT, |e| e.softmax(v, 0));
    });
}

#[test]
fn layout_ops_match_cpu() {
    diff(|d| {
        let x = d.f(&common::values(2 * 3 * 4 * 5, 1, -9.0, 9.0), &[2, 3, 4, 5]);
        let ix = d.i(&(0..24).collect::<Vec<_>>(), &[2, 3, 4]);
        let bx = d.b(&[1, 0, 0, 1, 1, 1], &[2, 3]);
        let six = d.f(&common::values(2 * 3 * 2 * 2 * 3 * 2, 2, -1.0, 1.0), &[2, 3, 2, 2, 3, 2]);
        d.check("transpose default", EXACT, |e| e.transpose(x, None));
        d.check("transpose 0,2,1,3", EXACT, |e| e.transpose(x, Some(&[0, 2, 1, 3])));
        d.check("transpose 3,1,0,2", EXACT, |e| e.transpose(x, Some(&[3, 1, 0, 2])));
        d.check("transpose identity", EXACT, |e| e.transpose(x, Some(&[0, 1, 2, 3])));
        d.check("transpose int32", EXACT, |e| e.transpose(ix, Some(&[2, 0, 1])));
        d.check("transpose bool", EXACT, |e| e.transpose(bx, None));
        d.check("transpose rank 6", EXACT, |e| e.transpose(six, Some(&[5, 3, 1, 0, 4, 2])));
        d.check("transpose bad perm", EXACT, |e| e.transpose(x, Some(&[0, 0, 1, 2])));
        d.check("slice middle", EXACT, |e| e.slice(x, &[1, 1, 1, 2], &[1, 2, 2, -1]));
        d.check("slice rows (contiguous)", EXACT, |e| e.slice(x, &[1, 0, 0, 0], &[1, -1, -1, -1]));
        d.check("slice empty", EXACT, |e| e.slice(x, &[0, 1, 0, 0], &[2, 0, 4, 5]));
        d.check("slice int32", EXACT, |e| e.slice(ix, &[0, 1, 1], &[2, 2, 3]));
        d.check("slice bool", EXACT, |e| e.slice(bx, &[1, 1], &[1, 2]));
        d.check("slice overflow", EXACT, |e| e.slice(x, &[0, 0, 0, 4], &[1, 1, 1, 2]));
        let y = d.f(&common::values(2 * 3 * 2 * 5, 3, -1.0, 1.0), &[2, 3, 2, 5]);
        d.check("concat axis 2", EXACT, |e| e.concat(&[x, y, x], 2));
        d.check("concat axis 0", EXACT, |e| e.concat(&[x, x], 0));
        d.check("concat axis -1", EXACT, |e| e.concat(&[bx, bx, bx], -1));
        let fi = d.f(&[0.5, 1.5, 2.5, 3.5], &[2, 2]);
        let ii = d.i(&[1, 2, 3, 4, 5, 6], &[2, 3]);
        d.check("concat upcast int32 + float32", EXACT, |e| e.concat(&[ii, fi], 1));
        d.check("concat bool + int32", EXACT, |e| e.concat(&[bx, ii], 0));
        d.check("concat shape error", EXACT, |e| e.concat(&[x, fi], 0));
        d.check("stack axis 0", EXACT, |e| e.stack(&[ii, ii], 0));
        d.check("stack axis 2", EXACT, |e| e.stack(&[fi, fi, fi], 2));
        d.check("stack bool", EXACT, |e| e.stack(&[bx, bx], 1));
        let idx = d.i(&[2, 0, 2, 1], &[4]);
        let idx2 = d.i(&[1, 0, 1, 1, 0, 0], &[2, 3]);
        d.check("gather axis 0", EXACT, |e| e.gather(ix, idx2, 0, 0));
        d.check("gather axis 1", EXACT, |e| e.gather(x, idx, 1, 0));
        d.check("gather axis -1 int32", EXACT, |e| e.gather(ix, idx, -1, 0));
        d.check("gather bool 2-d indices", EXACT, |e| e.gather(bx, idx2, 0, 0));
        let bidx = d.i(&[2, 0, 1, 1, 0, 2], &[2, 3]);
        d.check("gather batchDims 1", EXACT, |e| e.gather(ix, bidx, 1, 1));
        d.check("gather batchDims 1 axis 2", EXACT, |e| e.gather(ix, bidx, 2, 1));
        let oh = d.i(&[0, 2, -1, 5, 1], &[5]);
        for dt in [DType::Float32, DType::Int32, DType::Bool] {
            d.check(&format!("oneHot {dt:?}"), EXACT, |e| e.one_hot(oh, 4.0, 5.5, -1.25, dt));
        }
        d.check("oneHot 2-d", EXACT, |e| e.one_hot(idx2, 3.0, 1.0, 0.0, DType::Float32));
        d.check("expandDims + squeeze", EXACT, |e| {
            let t = e.expand_dims(x, 2)?;
            e.squeeze(t, None)
        });
    });
}

#[test]
fn creation_and_casts_match_cpu() {
    diff(|d| {
        let big: Vec<f32> = vec![
            0.0,
            -0.0,
            1.5,
            -1.5,
            2.9,
            -2.9,
            2147483520.0,
            -2147483648.0,
            3e9,
            -3e9,
            1e20,
            -5e9,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            4294967296.0,
            6442450944.0,
            1e-40,
        ];
        let x = d.f(&big, &[big.len()]);
        let ix = d.i(&[0, 1, -1, i32::MAX, i32::MIN, 16777217], &[6]);
        let bx = d.b(&[0, 1, 1, 0], &[4]);
        for dt in [DType::Float32, DType::Int32, DType::Bool] {
            d.check(&format!("cast float32 -> {dt:?}"), EXACT, |e| e.cast(x, dt));
            d.check(&format!("cast int32 -> {dt:?}"), EXACT, |e| e.cast(ix, dt));
            d.check(&format!("cast bool -> {dt:?}"), EXACT, |e| e.cast(bx, dt));
            d.check(&format!("fill {dt:?}"), EXACT, |e| e.fill(&[3, 5], -7.75, dt));
            d.check(&format!("fill empty {dt:?}"), EXACT, |e| e.fill(&[0, 5], 1.0, dt));
            d.check(&format!("eye {dt:?}"), EXACT, |e| e.eye(3, Some(4), &[2], dt));
        }
        d.check("fill int32 from huge", EXACT, |e| e.fill(&[2], 3e9, DType::Int32));
        d.check("range float32", EXACT, |e| e.range(0.0, 5.0, 0.7, DType::Float32));
        d.check("range int32 descending", EXACT, |e| e.range(10.0, 1.0, -3.0, DType::Int32));
        d.check("range empty", EXACT, |e| e.range(5.0, 1.0, 1.0, DType::Float32));
        d.check("linspace", EXACT, |e| e.linspace(-1.0, 1.0, 9));
        d.check("randomNormal", EXACT, |e| {
            e.random(&[100], Random::Normal { mean: 1.0, std_dev: 2.0 }, DType::Float32, Some("3"))
        });
        d.check("truncatedNormal", EXACT, |e| {
            e.random(&[2, 50], Random::TruncatedNormal { mean: 0.0, std_dev: 1.0 }, DType::Float32, Some("4"))
        });
        d.check("randomUniform int32", EXACT, |e| {
            e.random(&[64], Random::Uniform { min: -5.0, max: 5.0 }, DType::Int32, Some("5"))
        });
        d.check("randomUniform float32", EXACT, |e| {
            e.random(&[64], Random::Uniform { min: 0.0, max: 1.0 }, DType::Float32, Some("6"))
        });
        d.check("clone", EXACT, |e| e.clone_tensor(x));
        d.check("reshape", EXACT, |e| e.reshape(ix, &[2, -1]));
    });
}
