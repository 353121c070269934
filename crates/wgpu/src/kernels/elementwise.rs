//! Elementwise kernels: cast, unary and broadcasting binary ops. The ops themselves are WGSL
//! functions in `shaders/elementwise/ops.wgsl`, named `<op>_f32` / `<op>_i32`; a kernel wraps
//! the one it needs into `fn op`.

use std::sync::Arc;

use tidytensor_core::{bail, Activation, BinaryOp, DType, DtypeRule, Result, Storage, UnaryOp};

use super::{bind, conv_fn, conv_fn_with, launch, load_fn, run1d, sbind, shader, sty, u32_of, Dom, MAX_RANK};
use crate::device::{Gpu, WG};
use crate::WgpuStorage;

pub(crate) const OPS: &str = include_str!("../shaders/elementwise/ops.wgsl");
const UNARY: &str = include_str!("../shaders/elementwise/unary.wgsl");
const BINARY: &str = include_str!("../shaders/elementwise/binary.wgsl");
const SELECT: &str = include_str!("../shaders/elementwise/select.wgsl");
const EPILOGUE: &str = include_str!("../shaders/elementwise/epilogue.wgsl");

/// Converts `x` to `out` (float→int32 is ToInt32, to bool is `x != 0`).
pub(crate) fn cast(gpu: &Arc<Gpu>, x: &WgpuStorage, out: DType) -> Result<Box<dyn Storage>> {
    let (xd, n) = (x.dtype, x.len);
    if xd == out {
        return launch(gpu, n, out, |g, st, o| {
            g.copy(st, &x.raw.buf, 0, &o.buf, 0, n as u64 * 4);
            Ok(())
        });
    }
    let key = format!("cast:{xd:?}:{out:?}");
    launch(gpu, n, out, |g, st, o| {
        let src = || {
            let d = Dom::of(xd);
            let opf = format!("fn op(x: {0}) -> {0} {{ return x; }}\n", d.ty());
            let helpers = format!("{}{opf}{}", load_fn(0, xd), conv_fn_with(d, out, true));
            shader(&[sty(xd)], sty(out), &helpers, UNARY)
        };
        run1d(g, st, &key, src, &[sbind(x)], bind(o), &[u32_of(n, "size")?], n, WG)
    })
}

/// Unary op; the output dtype is `op.out_dtype(x.dtype)`. int32 and bool compute in i32 where
/// `ops.wgsl` has the op's `_i32` function (every `Same` and `Bool` op, and `Numeric` ops whose
/// integer result is exact, such as round); everything else computes in f32 on the value and
/// stores the result as the output dtype (int32 by ToInt32, bool as a Uint8Array byte).
pub(crate) fn unary(gpu: &Arc<Gpu>, op: UnaryOp, x: &WgpuStorage) -> Result<Box<dyn Storage>> {
    let (xd, n) = (x.dtype, x.len);
    let out = op.out_dtype(xd);
    let key = format!("unary:{op:?}:{xd:?}");
    launch(gpu, n, out, |g, st, o| {
        // Built once per (op, dtype): the pipeline is cached under `key`.
        let src = || {
            let int = xd != DType::Float32
                && op.dtype_rule() != DtypeRule::Predicate
                && OPS.contains(&format!("fn {}_i32(", op.js_name()));
            let (d, load) = if int {
                (Dom::I, load_fn(0, xd))
            } else {
                (Dom::F, "fn ld0(i: u32) -> f32 { return f32(X0[i]); }\n".to_string())
            };
            let f = format!("{}_{}", op.js_name(), d.ty());
            // Float ops give NaN for NaN, except predicates and sign (0), which say otherwise.
            let nan_in_nan_out = !matches!(op.dtype_rule(), DtypeRule::Predicate) && op != UnaryOp::Sign;
            let opf = match d {
                Dom::F if nan_in_nan_out => {
                    format!("fn op(x: f32) -> f32 {{ if (is_nan(x)) {{ return x; }} return {f}(x); }}\n")
                }
                Dom::F => format!("fn op(x: f32) -> f32 {{ return {f}(x); }}\n"),
                Dom::I => format!("fn op(x: i32) -> i32 {{ return {f}(x); }}\n"),
            };
            let helpers = format!("{OPS}{load}{opf}{}", conv_fn(d, out));
            shader(&[sty(xd)], sty(out), &helpers, UNARY)
        };
        run1d(g, st, &key, src, &[sbind(x)], bind(o), &[u32_of(n, "size")?], n, WG)
    })
}

/// [`tidytensor_core::shape::collapse_broadcast`], with one dim of 1 when all dims are 1.
fn collapse_broadcast(a: &[usize], b: &[usize], out: &[usize]) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let (dims, xs, ys) = tidytensor_core::shape::collapse_broadcast(a, b, out);
    if dims.is_empty() {
        return (vec![1], vec![0], vec![0]);
    }
    (dims, xs, ys)
}

/// Broadcasting binary op on inputs of one dtype, padded to the output's rank; the result
/// is stored as `out`.
pub(crate) fn binary(
    gpu: &Arc<Gpu>,
    op: BinaryOp,
    a: (&WgpuStorage, &[usize]),
    b: (&WgpuStorage, &[usize]),
    out_shape: &[usize],
    out: DType,
) -> Result<Box<dyn Storage>> {
    let n: usize = out_shape.iter().product();
    let xd = a.0.dtype;
    let (dims, xs, ys) = collapse_broadcast(a.1, b.1, out_shape);
    if dims.len() > MAX_RANK {
        bail!("wgpu backend: a broadcast of rank {} is not supported (max {MAX_RANK})", dims.len());
    }
    let mut params = vec![0u32; 20];
    params[0] = u32_of(n, "size")?;
    let direct = dims.len() == 1 && xs[0] == 1 && ys[0] == 1;
    if !direct {
        params[1] = dims.len() as u32;
        for k in 0..dims.len() {
            params[2 + k] = dims[k] as u32;
            params[8 + k] = xs[k] as u32;
            params[14 + k] = ys[k] as u32;
        }
    }
    let key = format!("binary:{op:?}:{xd:?}:{out:?}");
    launch(gpu, n, out, |g, st, o| {
        let src = || {
            let d = Dom::of(xd);
            let opf = format!("fn op(a: {0}, b: {0}) -> {0} {{ return {1}_{0}(a, b); }}\n", d.ty(), op.js_name());
            let helpers = format!("{OPS}{}{}{opf}{}", load_fn(0, xd), load_fn(1, xd), conv_fn(d, out));
            shader(&[sty(xd), sty(xd)], sty(out), &helpers, BINARY)
        };
        run1d(g, st, &key, src, &[sbind(a.0), sbind(b.0)], bind(o), &params, n, WG)
    })
}

/// `tf.where` over `[cond, a, b]`, each padded to the output's rank: the output takes `a`'s
/// or `b`'s bits (one dtype), so nothing is converted.
pub(crate) fn select(
    gpu: &Arc<Gpu>,
    inputs: [(&WgpuStorage, &[usize]); 3],
    out_shape: &[usize],
) -> Result<Box<dyn Storage>> {
    let n: usize = out_shape.iter().product();
    let rank = out_shape.len();
    if rank > MAX_RANK {
        bail!("wgpu backend: where of rank {rank} is not supported (max {MAX_RANK})");
    }
    let dtype = inputs[1].0.dtype;
    let mut params = vec![0u32; 26];
    params[0] = u32_of(n, "size")?;
    params[1] = rank as u32;
    for (k, &d) in out_shape.iter().enumerate() {
        params[2 + k] = d as u32;
    }
    for (j, (_, shape)) in inputs.iter().enumerate() {
        let strides = tidytensor_core::shape::strides(shape);
        for k in 0..rank {
            params[8 + 6 * j + k] = if shape[k] == out_shape[k] { u32_of(strides[k], "stride")? } else { 0 };
        }
    }
    let key = format!("select:{dtype:?}");
    launch(gpu, n, dtype, |g, st, o| {
        let src = || shader(&[sty(DType::Bool), sty(dtype), sty(dtype)], sty(dtype), "", SELECT);
        let binds = [sbind(inputs[0].0), sbind(inputs[1].0), sbind(inputs[2].0)];
        run1d(g, st, &key, src, &binds, bind(o), &params, n, WG)
    })
}

/// The fused ops' epilogue, one dispatch in place on the float32 product `y` (`channels`
/// values a row): `y + bias`, then `act` (prelu's weights `alpha`), with the formulas of the
/// unary and prelu kernels. `bias` and `alpha` hold `channels` values or 1.
pub(crate) fn fused_epilogue(
    gpu: &Arc<Gpu>,
    y: &WgpuStorage,
    channels: usize,
    bias: Option<&WgpuStorage>,
    act: Activation,
    alpha: Option<&WgpuStorage>,
) -> Result<()> {
    let n = y.len;
    if n == 0 || channels == 0 {
        return Ok(());
    }
    let alpha = if act == Activation::Prelu { alpha } else { None };
    if act == Activation::Prelu && alpha.is_none() {
        bail!("wgpu backend: the fused epilogue's prelu needs its alpha");
    }
    let (act_name, leaky) = match act {
        Activation::Linear => ("linear", 0.0),
        Activation::Relu => ("relu", 0.0),
        Activation::Relu6 => ("relu6", 0.0),
        Activation::Elu => ("elu", 0.0),
        Activation::Sigmoid => ("sigmoid", 0.0),
        Activation::LeakyRelu(a) => ("leakyrelu", a),
        Activation::Prelu => ("prelu", 0.0),
    };
    let key = format!("epilogue:{}:{act_name}", bias.is_some());
    let src = || {
        let mut helpers = String::from(OPS);
        helpers += &match bias {
            Some(_) => "fn bias(v: f32, c: u32) -> f32 { return v + X0[select(0u, c, p(2u) > 1u)]; }\n".to_string(),
            None => "fn bias(v: f32, c: u32) -> f32 { return v; }\n".to_string(),
        };
        let k = bias.is_some() as usize;
        helpers += &match act {
            Activation::Linear => "fn act(v: f32, c: u32) -> f32 { return v; }\n".to_string(),
            Activation::LeakyRelu(_) => {
                "fn act(v: f32, c: u32) -> f32 { return prelu_f32(v, bitcast<f32>(p(4u))); }\n".to_string()
            }
            Activation::Prelu => {
                format!("fn act(v: f32, c: u32) -> f32 {{ return prelu_f32(v, X{k}[select(0u, c, p(3u) > 1u)]); }}\n")
            }
            // As the unary kernels: NaN in, NaN out.
            _ => format!(
                "fn act(v: f32, c: u32) -> f32 {{ if (is_nan(v)) {{ return v; }} return {act_name}_f32(v); }}\n"
            ),
        };
        let inputs: Vec<&str> = bias.iter().chain(alpha.iter()).map(|_| "f32").collect();
        shader(&inputs, "f32", &helpers, EPILOGUE)
    };
    let binds: Vec<_> = bias.iter().chain(alpha.iter()).map(|s| sbind(s)).collect();
    let params = [
        u32_of(n, "size")?,
        u32_of(channels, "channels")?,
        u32_of(bias.map_or(0, |b| b.len), "bias size")?,
        u32_of(alpha.map_or(0, |a| a.len), "alpha size")?,
        leaky.to_bits(),
    ];
    let mut st = gpu.state()?;
    run1d(gpu, &mut st, &key, src, &binds, sbind(y), &params, n, WG)?;
    gpu.maybe_flush(&mut st)
}
