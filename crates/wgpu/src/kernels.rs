//! Kernel launchers: WGSL generation (templates in `shaders/`), pipeline keys, parameters and
//! grids. Every pipeline is keyed by op and dtypes only; shapes, strides and sizes travel as
//! parameters, so one compiled pipeline serves every shape.
//!
//! GPU element types: float32 is `f32`, int32 is `i32`, bool is `u32` (0/1, one word per
//! element; WGSL has no 8-bit storage). Kernels compute in one of two domains, `f32` or `i32`
//! (bool loads as i32), like the cpu backend's float and integer paths, and store through the
//! same conversions the cpu backend uses (JavaScript ToInt32 wrapping, `x != 0` for bool).

use std::sync::Arc;

use tidytensor_core::{bail, js_to_int32, ArgOp, BinaryOp, DType, ReduceOp, Result, Storage, UnaryOp};

use crate::device::{Gpu, RawBuf, State, WG};
use crate::WgpuStorage;

const COMMON: &str = include_str!("shaders/common.wgsl");
const MATH: &str = include_str!("shaders/math.wgsl");
const ELEMENTWISE: &str = include_str!("shaders/elementwise.wgsl");
const BINARY: &str = include_str!("shaders/binary.wgsl");
const FILL: &str = include_str!("shaders/fill.wgsl");
const STRIDED: &str = include_str!("shaders/strided.wgsl");
const CONCAT: &str = include_str!("shaders/concat.wgsl");
const GATHER: &str = include_str!("shaders/gather.wgsl");
const ONE_HOT: &str = include_str!("shaders/one_hot.wgsl");
const REDUCE_TREE: &str = include_str!("shaders/reduce_tree.wgsl");
const REDUCE_ROWS: &str = include_str!("shaders/reduce_rows.wgsl");
const ARG_ROWS: &str = include_str!("shaders/arg_rows.wgsl");
const ARG_TREE: &str = include_str!("shaders/arg_tree.wgsl");
const SOFTMAX_TREE: &str = include_str!("shaders/softmax_tree.wgsl");
const SOFTMAX_ROWS: &str = include_str!("shaders/softmax_rows.wgsl");
const MATMUL: &str = include_str!("shaders/matmul.wgsl");

/// Rows at most this long are reduced by one thread each; longer ones go through
/// workgroup trees first.
const SHORT_ROW: usize = 64;
/// Elements one tree workgroup folds per pass (16 per thread).
const TREE_CHUNK: usize = 4096;
/// Max supported rank of strided kernels (the uniform has 6 slots per list).
const MAX_RANK: usize = 6;

/// Storage element type of a dtype on the GPU.
fn sty(d: DType) -> &'static str {
    match d {
        DType::Float32 => "f32",
        DType::Int32 => "i32",
        DType::Bool => "u32",
    }
}

/// Compute domain: float or integer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dom {
    F,
    I,
}

impl Dom {
    fn of(d: DType) -> Dom {
        if d == DType::Float32 {
            Dom::F
        } else {
            Dom::I
        }
    }
    fn ty(self) -> &'static str {
        match self {
            Dom::F => "f32",
            Dom::I => "i32",
        }
    }
}

/// A full shader: common prelude, bindings, helper functions, then the kernel template.
fn shader(inputs: &[&str], output: &str, helpers: &str, body: &str) -> String {
    let mut s = COMMON.replace("$PB", &(inputs.len() + 1).to_string());
    for (i, t) in inputs.iter().enumerate() {
        s += &format!("@group(0) @binding({i}) var<storage, read> X{i}: array<{t}>;\n");
    }
    s += &format!("@group(0) @binding({}) var<storage, read_write> Y: array<{output}>;\n", inputs.len());
    s += helpers;
    s += "\n";
    s += body;
    s
}

/// `fn ld{k}(i) -> domain` reading input `k` of dtype `d`.
fn load_fn(k: usize, d: DType) -> String {
    let e = match d {
        DType::Bool => format!("i32(X{k}[i])"),
        _ => format!("X{k}[i]"),
    };
    format!("fn ld{k}(i: u32) -> {} {{ return {e}; }}\n", Dom::of(d).ty())
}

/// `fn conv(v) -> storage` from a domain value to the output dtype. A computed float stored
/// as bool follows Uint8Array (NaN is false); a cast to bool is `x != 0` (NaN is true).
fn conv_fn_with(from: Dom, to: DType, cast: bool) -> String {
    let e = match (from, to) {
        (Dom::F, DType::Float32) | (Dom::I, DType::Int32) => "v",
        (Dom::F, DType::Int32) => "f2i(v)",
        (Dom::F, DType::Bool) if cast => "f2b(v)",
        (Dom::F, DType::Bool) => "f2b_store(v)",
        (Dom::I, DType::Float32) => "f32(v)",
        (Dom::I, DType::Bool) => "i2b(v)",
    };
    format!("fn conv(v: {}) -> {} {{ return {e}; }}\n", from.ty(), sty(to))
}

fn conv_fn(from: Dom, to: DType) -> String {
    conv_fn_with(from, to, false)
}

/// Bits of `value` stored as `dtype` (the cpu backend's conversions).
pub(crate) fn value_bits(value: f64, dtype: DType) -> u32 {
    match dtype {
        DType::Float32 => (value as f32).to_bits(),
        DType::Int32 => js_to_int32(value) as u32,
        DType::Bool => (value != 0.0) as u32,
    }
}

/// A kernel run: the output buffer is allocated under the batch lock and handed to `record`;
/// on success it becomes a tensor storage (after the lock is released, since dropping a
/// storage takes it).
pub(crate) fn launch(
    gpu: &Arc<Gpu>,
    len: usize,
    dtype: DType,
    record: impl FnOnce(&Gpu, &mut State, &RawBuf) -> Result<()>,
) -> Result<Box<dyn Storage>> {
    let mut st = gpu.state()?;
    let out = gpu.alloc(&mut st, len as u64 * 4)?;
    let result = if len == 0 { Ok(()) } else { record(gpu, &mut st, &out) };
    let result = result.and_then(|()| gpu.maybe_flush(&mut st));
    if let Err(e) = result {
        gpu.give_back(&mut st, out);
        return Err(e);
    }
    drop(st);
    Ok(Box::new(WgpuStorage::new(gpu.clone(), out, len, dtype)))
}

fn bind(b: &RawBuf) -> (&wgpu::Buffer, u64) {
    (&b.buf, b.bytes)
}

fn sbind(s: &WgpuStorage) -> (&wgpu::Buffer, u64) {
    (&s.raw.buf, s.raw.bytes)
}

/// A 1-D launch of `n` threads in workgroups of 256.
fn run1d(
    gpu: &Gpu,
    st: &mut State,
    key: &str,
    source: impl FnOnce() -> String,
    inputs: &[(&wgpu::Buffer, u64)],
    out: (&wgpu::Buffer, u64),
    params: &[u32],
    n: usize,
    per_group: u32,
) -> Result<()> {
    let pipeline = gpu.pipeline(key, inputs.len(), source)?;
    let groups = gpu.grid((n as u64).div_ceil(per_group as u64))?;
    gpu.dispatch(st, pipeline, inputs, out, params, groups)
}

fn u32_of(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n)
        .map_err(|_| tidytensor_core::Error::new(format!("wgpu backend: {what} of {n} is too large for the GPU")))
}

// ---- fill, cast, unary, binary ----

pub(crate) fn fill_raw(gpu: &Gpu, st: &mut State, out: &RawBuf, n: usize, bits: u32) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let src = || shader(&[], "u32", "", FILL);
    run1d(gpu, st, "fill", src, &[], bind(out), &[u32_of(n, "size")?, bits], n, WG)
}

pub(crate) fn fill(gpu: &Arc<Gpu>, len: usize, value: f64, dtype: DType) -> Result<Box<dyn Storage>> {
    let bits = value_bits(value, dtype);
    launch(gpu, len, dtype, |g, st, out| fill_raw(g, st, out, len, bits))
}

/// The WGSL `op` function of a unary op (None: identity, i.e. a cast) on domain `d`.
fn unary_op_fn(op: Option<UnaryOp>, d: Dom) -> (String, Dom) {
    use UnaryOp::*;
    let float_body = |op: UnaryOp| -> &'static str {
        match op {
            Neg => "return -x;",
            Square => "return x * x;",
            Sqrt => "if (x < 0.0) { return nan_f(); } return sqrt(x);",
            Exp => "return exp(x);",
            Log => "if (x < 0.0) { return nan_f(); } if (x == 0.0) { return -inf_f(); } if (is_inf(x)) { return x; } return log(x);",
            Abs => "return abs(x);",
            Relu => "return select(x, 0.0, x < 0.0);",
            Sigmoid => "return 1.0 / (1.0 + exp(-x));",
            Tanh => "return tanh_js(x);",
        }
    };
    match (op, d) {
        (None, d) => (format!("fn op(x: {0}) -> {0} {{ return x; }}\n", d.ty()), d),
        (Some(op), Dom::F) => (
            format!("fn op(x: f32) -> f32 {{ if (is_nan(x)) {{ return x; }} {} }}\n", float_body(op)),
            Dom::F,
        ),
        (Some(op @ (Neg | Square | Abs | Relu)), Dom::I) => {
            let e = match op {
                Neg => "-x",
                Square => "x * x",
                Abs => "abs(x)",
                _ => "max(x, 0)",
            };
            (format!("fn op(x: i32) -> i32 {{ return {e}; }}\n"), Dom::I)
        }
        (Some(op), Dom::I) => (
            format!(
                "fn opf(x: f32) -> f32 {{ if (is_nan(x)) {{ return x; }} {} }}\nfn op(x: i32) -> f32 {{ return opf(f32(x)); }}\n",
                float_body(op)
            ),
            Dom::F,
        ),
    }
}

/// Unary op, or a cast when `op` is None.
pub(crate) fn unary(gpu: &Arc<Gpu>, op: Option<UnaryOp>, x: &WgpuStorage, out: DType) -> Result<Box<dyn Storage>> {
    let xd = x.dtype;
    let n = x.len;
    if op.is_none() && xd == out {
        return launch(gpu, n, out, |g, st, o| {
            g.copy(st, &x.raw.buf, 0, &o.buf, 0, n as u64 * 4);
            Ok(())
        });
    }
    let key = format!("unary:{op:?}:{xd:?}:{out:?}");
    launch(gpu, n, out, |g, st, o| {
        let src = || {
            let (opf, rd) = unary_op_fn(op, Dom::of(xd));
            let helpers = format!("{MATH}{}{opf}{}", load_fn(0, xd), conv_fn_with(rd, out, op.is_none()));
            shader(&[sty(xd)], sty(out), &helpers, ELEMENTWISE)
        };
        run1d(g, st, &key, src, &[sbind(x)], bind(o), &[u32_of(n, "size")?], n, WG)
    })
}

fn binary_op_fn(op: BinaryOp, d: Dom) -> (String, Dom) {
    use BinaryOp::*;
    let (e, r) = match d {
        Dom::F => (
            match op {
                Add => "a + b",
                Sub => "a - b",
                Mul => "a * b",
                Div => "a / b",
                FloorDiv => "floor(a / b)",
                Maximum => "max_js(a, b)",
                Minimum => "min_js(a, b)",
                Pow => "pow_js(a, b)",
            },
            Dom::F,
        ),
        Dom::I => match op {
            Add => ("a + b", Dom::I),
            Sub => ("a - b", Dom::I),
            Mul => ("a * b", Dom::I),
            Div => ("f32(a) / f32(b)", Dom::F),
            FloorDiv => ("floordiv_i(a, b)", Dom::I),
            Maximum => ("max(a, b)", Dom::I),
            Minimum => ("min(a, b)", Dom::I),
            Pow => ("ipow(a, b)", Dom::I),
        },
    };
    (format!("fn op(a: {0}, b: {0}) -> {1} {{ return {e}; }}\n", d.ty(), r.ty()), r)
}

/// [`tidytensor_core::shape::collapse_broadcast`], with one dim of 1 when all dims are 1.
fn collapse_broadcast(a: &[usize], b: &[usize], out: &[usize]) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let (dims, xs, ys) = tidytensor_core::shape::collapse_broadcast(a, b, out);
    if dims.is_empty() {
        return (vec![1], vec![0], vec![0]);
    }
    (dims, xs, ys)
}

pub(crate) fn binary(
    gpu: &Arc<Gpu>,
    op: BinaryOp,
    a: (&WgpuStorage, &[usize]),
    b: (&WgpuStorage, &[usize]),
    out_shape: &[usize],
    out: DType,
) -> Result<Box<dyn Storage>> {
    let n: usize = out_shape.iter().product();
    if a.1.len() != out_shape.len() || b.1.len() != out_shape.len() {
        bail!(
            "wgpu binary kernel: input ranks {} and {} differ from output rank {}",
            a.1.len(),
            b.1.len(),
            out_shape.len()
        );
    }
    for i in 0..out_shape.len() {
        if (a.1[i] != out_shape[i] && a.1[i] != 1) || (b.1[i] != out_shape[i] && b.1[i] != 1) {
            bail!("wgpu binary kernel: shapes do not broadcast to the output shape");
        }
    }
    let (ad, bd) = (a.0.dtype, b.0.dtype);
    if ad != bd {
        bail!("wgpu binary kernel: inputs of different dtypes ({} and {})", ad.name(), bd.name());
    }
    let (dims, xs, ys) = collapse_broadcast(a.1, b.1, out_shape);
    if dims.len() > MAX_RANK {
        bail!("wgpu binary kernel: broadcast of rank {} is not supported (max {MAX_RANK})", dims.len());
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
    let key = format!("binary:{op:?}:{ad:?}:{out:?}");
    launch(gpu, n, out, |g, st, o| {
        let src = || {
            let (opf, rd) = binary_op_fn(op, Dom::of(ad));
            let helpers = format!("{MATH}{}{}{opf}{}", load_fn(0, ad), load_fn(1, ad), conv_fn(rd, out));
            shader(&[sty(ad), sty(ad)], sty(out), &helpers, BINARY)
        };
        run1d(g, st, &key, src, &[sbind(a.0), sbind(b.0)], bind(o), &params, n, WG)
    })
}

// ---- reductions ----

/// How one reduction accumulates: accumulator type, identity, combine, and the final
/// conversion to the output dtype.
struct Acc {
    ty: &'static str,
    bytes: u64,
    ident: &'static str,
    comb: &'static str,
    /// First pass: input element to accumulator.
    first_load: String,
    fin: String,
}

impl Acc {
    /// A reduction pass's input type and loader: the tensor itself on the first pass, the
    /// previous pass's partial results after that.
    fn stage_input(&self, first: bool, xd: DType) -> (&'static str, String) {
        if first {
            (sty(xd), self.first_load.clone())
        } else {
            (self.ty, format!("fn ld0(i: u32) -> {0} {{ return X0[i]; }}\n", self.ty))
        }
    }
}

fn acc_for(op: ReduceOp, xd: DType, out: DType) -> Acc {
    use ReduceOp::*;
    let load_i = match xd {
        DType::Bool => "i32(X0[i])",
        _ => "X0[i]",
    };
    if xd == DType::Float32 {
        let (ident, comb) = match op {
            Sum | Mean => ("0.0", "return a + b;"),
            Max => ("-inf_f()", "if (is_nan(a) || is_nan(b)) { return nan_f(); } return select(a, b, b > a);"),
            Min => ("inf_f()", "if (is_nan(a) || is_nan(b)) { return nan_f(); } return select(a, b, b < a);"),
        };
        let v = if op == Mean { "a / f32(p(4u))" } else { "a" };
        return Acc {
            ty: "f32",
            bytes: 4,
            ident,
            comb,
            first_load: "fn ld0(i: u32) -> f32 { return X0[i]; }\n".into(),
            fin: format!("{}fn fin(a: f32) -> {} {{ return conv({v}); }}\n", conv_fn(Dom::F, out), sty(out)),
        };
    }
    if op == Mean {
        // Exact 64-bit integer sums (as two u32 words), divided once at the end.
        return Acc {
            ty: "vec2<u32>",
            bytes: 8,
            ident: "vec2<u32>(0u, 0u)",
            comb: "let lo = a.x + b.x; return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));",
            first_load: format!(
                "fn ld0(i: u32) -> vec2<u32> {{ let v = {load_i}; return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0)); }}\n"
            ),
            fin: format!(
                "{}fn fin(a: vec2<u32>) -> {} {{
    let neg = (a.y >> 31u) == 1u;
    var lo = a.x;
    var hi = a.y;
    if (neg) {{ lo = ~a.x + 1u; hi = ~a.y + select(0u, 1u, lo == 0u); }}
    let m = f32(hi) * 4294967296.0 + f32(lo);
    return conv(select(m, -m, neg) / f32(p(4u)));
}}\n",
                conv_fn(Dom::F, out),
                sty(out)
            ),
        };
    }
    let (ident, comb) = match op {
        Max => ("bitcast<i32>(0x80000000u)", "return max(a, b);"),
        Min => ("2147483647", "return min(a, b);"),
        _ => ("0", "return a + b;"),
    };
    Acc {
        ty: "i32",
        bytes: 4,
        ident,
        comb,
        first_load: format!("fn ld0(i: u32) -> i32 {{ return {load_i}; }}\n"),
        fin: format!("{}fn fin(a: i32) -> {} {{ return conv(a); }}\n", conv_fn(Dom::I, out), sty(out)),
    }
}

/// The value a reduction of an empty row gives (the cpu backend's: 0, NaN, -Inf, +Inf).
fn empty_reduce_value(op: ReduceOp) -> f64 {
    match op {
        ReduceOp::Sum => 0.0,
        ReduceOp::Mean => f64::NAN,
        ReduceOp::Max => f64::NEG_INFINITY,
        ReduceOp::Min => f64::INFINITY,
    }
}

pub(crate) fn reduce(
    gpu: &Arc<Gpu>,
    op: ReduceOp,
    x: &WgpuStorage,
    outer: usize,
    inner: usize,
    out: DType,
) -> Result<Box<dyn Storage>> {
    if outer.checked_mul(inner) != Some(x.len) {
        bail!("wgpu reduce: [{outer}, {inner}] does not match {} values", x.len);
    }
    if inner == 0 {
        let bits = value_bits(empty_reduce_value(op), out);
        return launch(gpu, outer, out, |g, st, o| fill_raw(g, st, o, outer, bits));
    }
    let xd = x.dtype;
    let acc = acc_for(op, xd, out);
    let helpers = |load: &str, fin: &str| {
        format!(
            "fn ident() -> {0} {{ return {1}; }}\nfn comb(a: {0}, b: {0}) -> {0} {{ {2} }}\n{load}{fin}",
            acc.ty, acc.ident, acc.comb
        )
    };
    launch(gpu, outer, out, |g, st, o| {
        let mut temps: Vec<RawBuf> = Vec::new();
        let mut len = inner;
        let result = (|| {
            // Tree passes until rows are short.
            while len > SHORT_ROW {
                let chunk = TREE_CHUNK.min(len.next_multiple_of(WG as usize));
                let nchunks = len.div_ceil(chunk);
                let tmp = g.alloc(st, (outer * nchunks) as u64 * acc.bytes)?;
                let first = temps.is_empty();
                let key = format!("reduce_tree:{op:?}:{xd:?}:{first}");
                let src = || {
                    let (input_ty, load) = acc.stage_input(first, xd);
                    shader(&[input_ty], acc.ty, &helpers(&load, ""), &REDUCE_TREE.replace("$ACC", acc.ty))
                };
                let input = temps.last().map(bind).unwrap_or_else(|| sbind(x));
                let params = [u32_of(outer, "rows")?, u32_of(len, "row length")?, nchunks as u32, chunk as u32];
                let pipeline = g.pipeline(&key, 1, src)?;
                let groups = g.grid((outer * nchunks) as u64)?;
                g.dispatch(st, pipeline, &[input], bind(&tmp), &params, groups)?;
                temps.push(tmp);
                len = nchunks;
            }
            let first = temps.is_empty();
            let key = format!("reduce_rows:{op:?}:{xd:?}:{out:?}:{first}");
            let src = || {
                let (input_ty, load) = acc.stage_input(first, xd);
                shader(&[input_ty], sty(out), &helpers(&load, &acc.fin), REDUCE_ROWS)
            };
            let input = temps.last().map(bind).unwrap_or_else(|| sbind(x));
            let params = [u32_of(outer, "rows")?, len as u32, 0, 0, u32_of(inner, "row length")?];
            run1d(g, st, &key, src, &[input], bind(o), &params, outer, 64)
        })();
        for t in temps {
            g.give_back(st, t);
        }
        result
    })
}

pub(crate) fn arg_reduce(
    gpu: &Arc<Gpu>,
    op: ArgOp,
    x: &WgpuStorage,
    outer: usize,
    axis: usize,
    inner: usize,
) -> Result<Box<dyn Storage>> {
    if outer.checked_mul(axis).and_then(|v| v.checked_mul(inner)) != Some(x.len) {
        bail!("wgpu argReduce: [{outer}, {axis}, {inner}] does not match {} values", x.len);
    }
    let n = outer * inner;
    if axis <= 1 {
        return launch(gpu, n, DType::Int32, |g, st, o| fill_raw(g, st, o, n, 0));
    }
    let xd = x.dtype;
    let cmp = if op == ArgOp::ArgMax { ">" } else { "<" };
    let d = Dom::of(xd);
    let vnan = if d == Dom::F { "return is_nan(v);" } else { "return false;" };
    let helpers = format!(
        "{}fn better(a: {1}, b: {1}) -> bool {{ return a {cmp} b; }}\nfn vnan(v: {1}) -> bool {{ {vnan} }}\n",
        load_fn(0, xd),
        d.ty()
    );
    let tree = axis > SHORT_ROW;
    let key = format!("arg:{op:?}:{xd:?}:{tree}");
    let params = [u32_of(n, "size")?, u32_of(axis, "axis")?, u32_of(inner, "inner size")?];
    launch(gpu, n, DType::Int32, |g, st, o| {
        let src = || {
            let body = if tree { ARG_TREE.replace("$VT", d.ty()) } else { ARG_ROWS.to_string() };
            shader(&[sty(xd)], "i32", &helpers, &body)
        };
        run1d(g, st, &key, src, &[sbind(x)], bind(o), &params, n, if tree { 1 } else { 64 })
    })
}

pub(crate) fn softmax(gpu: &Arc<Gpu>, x: &WgpuStorage, outer: usize, inner: usize) -> Result<Box<dyn Storage>> {
    if outer.checked_mul(inner) != Some(x.len) {
        bail!("wgpu softmax: [{outer}, {inner}] does not match {} values", x.len);
    }
    if x.dtype != DType::Float32 {
        bail!("wgpu softmax: expected float32 logits, got {}", x.dtype.name());
    }
    let n = x.len;
    let tree = inner > SHORT_ROW;
    let params = [u32_of(outer, "rows")?, u32_of(inner, "row length")?];
    launch(gpu, n, DType::Float32, |g, st, o| {
        let key = if tree { "softmax_tree" } else { "softmax_rows" };
        let src = || shader(&["f32"], "f32", "", if tree { SOFTMAX_TREE } else { SOFTMAX_ROWS });
        run1d(g, st, key, src, &[sbind(x)], bind(o), &params, outer, if tree { 1 } else { 64 })
    })
}

// ---- layout ----

/// Y[i] = X[offset + strided index of i over `dims`]: a buffer copy when that is contiguous.
fn strided_copy(
    gpu: &Arc<Gpu>,
    x: &WgpuStorage,
    offset: usize,
    dims: &[usize],
    strides: &[usize],
) -> Result<Box<dyn Storage>> {
    let n: usize = dims.iter().product();
    let (d, s) = tidytensor_core::shape::collapse_strided(dims, strides);
    let dtype = x.dtype;
    if d.is_empty() || (d.len() == 1 && s[0] == 1) {
        return launch(gpu, n, dtype, |g, st, o| {
            g.copy(st, &x.raw.buf, offset as u64 * 4, &o.buf, 0, n as u64 * 4);
            Ok(())
        });
    }
    if d.len() > MAX_RANK {
        bail!("wgpu backend: strided copy of rank {} is not supported (max {MAX_RANK})", d.len());
    }
    let mut params = vec![0u32; 15];
    params[0] = u32_of(n, "size")?;
    params[1] = d.len() as u32;
    params[2] = u32_of(offset, "offset")?;
    for k in 0..d.len() {
        params[3 + k] = d[k] as u32;
        params[9 + k] = s[k] as u32;
    }
    launch(gpu, n, dtype, |g, st, o| {
        let src = || shader(&["u32"], "u32", "", STRIDED);
        run1d(g, st, "strided", src, &[sbind(x)], bind(o), &params, n, WG)
    })
}

pub(crate) fn transpose(gpu: &Arc<Gpu>, x: &WgpuStorage, shape: &[usize], perm: &[usize]) -> Result<Box<dyn Storage>> {
    let rank = shape.len();
    let mut seen = vec![false; rank];
    if perm.len() != rank || perm.iter().any(|&p| p >= rank || std::mem::replace(&mut seen[p], true)) {
        bail!("wgpu transpose: [{}] is not a permutation of rank {rank}", tidytensor_core::shape::fmt(perm));
    }
    let strides = tidytensor_core::shape::strides(shape);
    let dims: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let st: Vec<usize> = perm.iter().map(|&p| strides[p]).collect();
    strided_copy(gpu, x, 0, &dims, &st)
}

pub(crate) fn slice(
    gpu: &Arc<Gpu>,
    x: &WgpuStorage,
    shape: &[usize],
    begin: &[usize],
    size: &[usize],
) -> Result<Box<dyn Storage>> {
    let rank = shape.len();
    if begin.len() != rank || size.len() != rank {
        bail!("wgpu slice: begin/size ranks {}/{} for rank {rank}", begin.len(), size.len());
    }
    for i in 0..rank {
        if begin[i].checked_add(size[i]).is_none_or(|e| e > shape[i]) {
            bail!("wgpu slice: box exceeds shape [{}]", tidytensor_core::shape::fmt(shape));
        }
    }
    let strides = tidytensor_core::shape::strides(shape);
    let n: usize = size.iter().product();
    let offset = if n == 0 { 0 } else { (0..rank).map(|i| begin[i] * strides[i]).sum() };
    strided_copy(gpu, x, offset, size, &strides)
}

pub(crate) fn concat(gpu: &Arc<Gpu>, inputs: &[&WgpuStorage], outer: usize) -> Result<Box<dyn Storage>> {
    let Some(first) = inputs.first() else { bail!("wgpu concat: no inputs") };
    let dtype = first.dtype;
    let mut widths = Vec::with_capacity(inputs.len());
    for s in inputs {
        if s.dtype != dtype {
            bail!("wgpu concat: inputs of different dtypes");
        }
        if outer == 0 {
            widths.push(0);
        } else if s.len % outer != 0 {
            bail!("wgpu concat: {} values do not split into {outer} rows", s.len);
        } else {
            widths.push(s.len / outer);
        }
    }
    let total: usize = widths.iter().sum();
    let n = outer * total;
    launch(gpu, n, dtype, |g, st, o| {
        let mut off = 0usize;
        for (s, &w) in inputs.iter().zip(&widths) {
            if w > 0 {
                if outer == 1 {
                    g.copy(st, &s.raw.buf, 0, &o.buf, off as u64 * 4, w as u64 * 4);
                } else {
                    let params = [u32_of(outer * w, "size")?, w as u32, u32_of(total, "size")?, off as u32];
                    let src = || shader(&["u32"], "u32", "", CONCAT);
                    run1d(g, st, "concat", src, &[sbind(s)], bind(o), &params, outer * w, WG)?;
                }
            }
            off += w;
        }
        Ok(())
    })
}

pub(crate) fn gather(
    gpu: &Arc<Gpu>,
    x: &WgpuStorage,
    idx: &WgpuStorage,
    outer: usize,
    axis: usize,
    inner: usize,
) -> Result<Box<dyn Storage>> {
    if outer.checked_mul(axis).and_then(|v| v.checked_mul(inner)) != Some(x.len) {
        bail!("wgpu gather: [{outer}, {axis}, {inner}] does not match {} values", x.len);
    }
    if idx.dtype != DType::Int32 {
        bail!("wgpu gather: indices must be int32, got {}", idx.dtype.name());
    }
    let n = outer * idx.len * inner;
    let params =
        [u32_of(n, "size")?, u32_of(idx.len, "index count")?, u32_of(axis, "axis")?, u32_of(inner, "inner size")?];
    launch(gpu, n, x.dtype, |g, st, o| {
        let src = || shader(&["u32", "i32"], "u32", "", GATHER);
        run1d(g, st, "gather", src, &[sbind(x), sbind(idx)], bind(o), &params, n, WG)
    })
}

pub(crate) fn one_hot(
    gpu: &Arc<Gpu>,
    idx: &WgpuStorage,
    depth: usize,
    on: f64,
    off: f64,
    dtype: DType,
) -> Result<Box<dyn Storage>> {
    if idx.dtype != DType::Int32 {
        bail!("wgpu oneHot: indices must be int32, got {}", idx.dtype.name());
    }
    let n = idx.len * depth;
    let params = [u32_of(n, "size")?, u32_of(depth, "depth")?, value_bits(on, dtype), value_bits(off, dtype)];
    launch(gpu, n, dtype, |g, st, o| {
        let src = || shader(&["i32"], "u32", "", ONE_HOT);
        run1d(g, st, "one_hot", src, &[sbind(idx)], bind(o), &params, n, WG)
    })
}

// ---- matmul ----

pub(crate) fn matmul(
    gpu: &Arc<Gpu>,
    a: (&WgpuStorage, &[usize]),
    b: (&WgpuStorage, &[usize]),
    ta: bool,
    tb: bool,
) -> Result<Box<dyn Storage>> {
    let dims3 = |s: &[usize]| -> Result<(usize, usize, usize)> {
        if s.len() < 2 {
            bail!("wgpu matmul: operands must have rank >= 2");
        }
        let r = s.len();
        Ok((s[..r - 2].iter().product(), s[r - 2], s[r - 1]))
    };
    let (ba, ar, ac) = dims3(a.1)?;
    let (bb, br, bc) = dims3(b.1)?;
    if a.0.dtype != DType::Float32 || b.0.dtype != DType::Float32 {
        bail!("wgpu matmul: operands must be float32");
    }
    let (m, k) = if ta { (ac, ar) } else { (ar, ac) };
    let (kb, n) = if tb { (bc, br) } else { (br, bc) };
    if k != kb {
        bail!("wgpu matmul: inner dimensions differ ({k} and {kb})");
    }
    if ba != bb && ba != 1 && bb != 1 {
        bail!("wgpu matmul: batch dimensions {ba} and {bb} do not broadcast");
    }
    let batch = if ba == 0 || bb == 0 { 0 } else { ba.max(bb) };
    let len = batch * m * n;
    let (a_sm, a_sk) = if ta { (1, ac) } else { (ac, 1) };
    let (b_sk, b_sn) = if tb { (1, bc) } else { (bc, 1) };
    let a_bs = if ba == 1 { 0 } else { ar * ac };
    let b_bs = if bb == 1 { 0 } else { br * bc };
    let params = [m, n, k, a_bs, a_sm, a_sk, b_bs, b_sk, b_sn]
        .iter()
        .map(|&v| u32_of(v, "matmul dimension"))
        .collect::<Result<Vec<u32>>>()?;
    let max = gpu.limits.max_compute_workgroups_per_dimension as usize;
    let groups = (n.div_ceil(32), m.div_ceil(32), batch);
    if groups.0 > max || groups.1 > max || groups.2 > max {
        bail!("wgpu matmul: [{batch}, {m}, {n}] output needs more workgroups than the GPU's grid allows");
    }
    launch(gpu, len, DType::Float32, |g, st, o| {
        if k == 0 {
            return fill_raw(g, st, o, len, 0);
        }
        let pipeline = g.pipeline("matmul", 2, || shader(&["f32", "f32"], "f32", "", MATMUL))?;
        g.dispatch(
            st,
            pipeline,
            &[sbind(a.0), sbind(b.0)],
            bind(o),
            &params,
            (groups.0 as u32, groups.1 as u32, groups.2 as u32),
        )
    })
}
