//! Reductions over the inner axis (workgroup trees for long rows), arg-reductions, softmax.

use std::sync::Arc;

use tidytensor_core::{ArgOp, DType, ReduceOp, Result, Storage};

use super::{bind, conv_fn, fill_raw, launch, load_fn, run1d, sbind, shader, sty, u32_of, Dom};
use crate::device::{Gpu, RawBuf, WG};
use crate::WgpuStorage;

const REDUCE_TREE: &str = include_str!("../shaders/reduce/reduce_tree.wgsl");
const REDUCE_ROWS: &str = include_str!("../shaders/reduce/reduce_rows.wgsl");
const ARG_ROWS: &str = include_str!("../shaders/reduce/arg_rows.wgsl");
const ARG_TREE: &str = include_str!("../shaders/reduce/arg_tree.wgsl");
const SOFTMAX_TREE: &str = include_str!("../shaders/reduce/softmax_tree.wgsl");
const SOFTMAX_ROWS: &str = include_str!("../shaders/reduce/softmax_rows.wgsl");

/// Rows at most this long are reduced by one thread each; longer ones go through
/// workgroup trees first.
const SHORT_ROW: usize = 64;
/// Elements one tree workgroup folds per pass (16 per thread).
const TREE_CHUNK: usize = 4096;

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

pub(crate) fn reduce(
    gpu: &Arc<Gpu>,
    op: ReduceOp,
    x: &WgpuStorage,
    outer: usize,
    inner: usize,
    out: DType,
) -> Result<Box<dyn Storage>> {
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
    let n = x.len;
    let tree = inner > SHORT_ROW;
    let params = [u32_of(outer, "rows")?, u32_of(inner, "row length")?];
    launch(gpu, n, DType::Float32, |g, st, o| {
        let key = if tree { "softmax_tree" } else { "softmax_rows" };
        let src = || shader(&["f32"], "f32", "", if tree { SOFTMAX_TREE } else { SOFTMAX_ROWS });
        run1d(g, st, key, src, &[sbind(x)], bind(o), &params, outer, if tree { 1 } else { 64 })
    })
}
