//! Reductions over the inner axis (workgroup trees for long rows), arg-reductions, softmax.
//! What each reduction computes is WGSL in `shaders/reduce/acc.wgsl`; the templates beside it
//! are the passes.

use std::sync::Arc;

use tidytensor_core::{ArgOp, CumOp, DType, ReduceOp, Result, Storage};

use super::{bind, conv_fn, fill_raw, launch, load_fn, run1d, sbind, shader, sty, u32_of, Dom};
use crate::device::{Gpu, RawBuf, WG};
use crate::WgpuStorage;

const REDUCE_TREE: &str = include_str!("../shaders/reduce/reduce_tree.wgsl");
const REDUCE_ROWS: &str = include_str!("../shaders/reduce/reduce_rows.wgsl");
const ARG_ROWS: &str = include_str!("../shaders/reduce/arg_rows.wgsl");
const ARG_TREE: &str = include_str!("../shaders/reduce/arg_tree.wgsl");
const SOFTMAX_TREE: &str = include_str!("../shaders/reduce/softmax_tree.wgsl");
const SOFTMAX_ROWS: &str = include_str!("../shaders/reduce/softmax_rows.wgsl");
const CUMULATIVE: &str = include_str!("../shaders/reduce/cumulative.wgsl");
const TOPK: &str = include_str!("../shaders/reduce/topk.wgsl");
const ACC: &str = include_str!("../shaders/reduce/acc.wgsl");

/// Rows at most this long are reduced by one thread each; longer ones go through
/// workgroup trees first.
const SHORT_ROW: usize = 64;
/// Elements one tree workgroup folds per pass (16 per thread).
const TREE_CHUNK: usize = 4096;

/// How one reduction accumulates: the `<op>_<acc>_*` functions of `shaders/reduce/acc.wgsl`.
struct Acc {
    /// `<op>_<acc>`, the prefix of its WGSL functions.
    name: String,
    /// The accumulator's WGSL type and size.
    ty: &'static str,
    bytes: u64,
    /// The compute domain of the final value.
    result: Dom,
}

impl Acc {
    fn of(op: ReduceOp, xd: DType) -> Acc {
        let op_name = match op {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Prod => "prod",
            ReduceOp::All => "all",
            ReduceOp::Any => "any",
        };
        let (acc, ty, bytes, result) = match (op, xd) {
            (_, DType::Float32) => ("f32", "f32", 4, Dom::F),
            (ReduceOp::Mean, _) => ("i64", "vec2<u32>", 8, Dom::F),
            _ => ("i32", "i32", 4, Dom::I),
        };
        Acc { name: format!("{op_name}_{acc}"), ty, bytes, result }
    }

    /// The accumulator functions under the names the templates call, and a pass's loader: the
    /// tensor itself on the first pass, the previous pass's partial results after that.
    fn helpers(&self, first: bool, xd: DType) -> (&'static str, String) {
        let (t, n) = (self.ty, &self.name);
        let mut h = format!(
            "{ACC}fn ident() -> {t} {{ return {n}_ident(); }}\nfn comb(a: {t}, b: {t}) -> {t} {{ return {n}_comb(a, b); }}\n"
        );
        if first {
            let elem = if xd == DType::Bool { "i32(X0[i])" } else { "X0[i]" };
            h += &format!("fn ld0(i: u32) -> {t} {{ return {n}_from({elem}); }}\n");
            (sty(xd), h)
        } else {
            h += &format!("fn ld0(i: u32) -> {t} {{ return X0[i]; }}\n");
            (t, h)
        }
    }

    /// `fin(acc)`: the final value stored as `out`.
    fn fin(&self, out: DType) -> String {
        let (t, n) = (self.ty, &self.name);
        format!("{}fn fin(a: {t}) -> {} {{ return conv({n}_fin(a)); }}\n", conv_fn(self.result, out), sty(out))
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
    let acc = Acc::of(op, xd);
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
                    let (input_ty, helpers) = acc.helpers(first, xd);
                    shader(&[input_ty], acc.ty, &helpers, &REDUCE_TREE.replace("$ACC", acc.ty))
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
                let (input_ty, helpers) = acc.helpers(first, xd);
                shader(&[input_ty], sty(out), &(helpers + &acc.fin(out)), REDUCE_ROWS)
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
    let d = Dom::of(xd);
    let name = if op == ArgOp::ArgMax { "argMax" } else { "argMin" };
    let helpers = format!(
        "{ACC}{}fn better(a: {t}, b: {t}) -> bool {{ return {name}_{t}_better(a, b); }}\nfn vnan(v: {t}) -> bool {{ return vnan_{t}(v); }}\n",
        load_fn(0, xd),
        t = d.ty()
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

/// Running sums or products along each row of `[outer, len]`, one thread per row, accumulated
/// in the output dtype (f32, or i32 for int32 and bool input).
pub(crate) fn cumulative(
    gpu: &Arc<Gpu>,
    op: CumOp,
    x: &WgpuStorage,
    outer: usize,
    len: usize,
    (exclusive, reverse): (bool, bool),
    out: DType,
) -> Result<Box<dyn Storage>> {
    let n = x.len;
    let xd = x.dtype;
    let params = [u32_of(outer, "rows")?, u32_of(len, "row length")?, exclusive as u32, reverse as u32];
    let key = format!("cumulative:{op:?}:{xd:?}:{out:?}");
    launch(gpu, n, out, |g, st, o| {
        let src = || {
            let t = sty(out);
            let (ident, comb) = match op {
                CumOp::Sum => ("0", "a + b"),
                CumOp::Prod => ("1", "a * b"),
            };
            let helpers = format!(
                "fn ld0(i: u32) -> {t} {{ return {t}(X0[i]); }}\nfn ident() -> {t} {{ return {t}({ident}); }}\n\
                 fn comb(a: {t}, b: {t}) -> {t} {{ return {comb}; }}\n"
            );
            shader(&[sty(xd)], t, &helpers, CUMULATIVE)
        };
        run1d(g, st, &key, src, &[sbind(x)], bind(o), &params, outer, 64)
    })
}

/// The int32 indices of the `k` largest values of each row of `[rows, len]`, in `tf.topk`'s
/// order: one thread per row picks, k times, the best element after the previous pick.
pub(crate) fn topk_indices(
    gpu: &Arc<Gpu>,
    x: &WgpuStorage,
    rows: usize,
    len: usize,
    k: usize,
) -> Result<Box<dyn Storage>> {
    let xd = x.dtype;
    let params = [u32_of(rows, "rows")?, u32_of(len, "row length")?, u32_of(k, "k")?];
    let key = format!("topk:{xd:?}");
    launch(gpu, rows * k, DType::Int32, |g, st, o| {
        let src = || {
            let d = Dom::of(xd);
            let t = d.ty();
            let nan = if d == Dom::F { "is_nan(v)" } else { "false" };
            let helpers = format!("{}fn isnan_t(v: {t}) -> bool {{ return {nan}; }}\n", load_fn(0, xd));
            shader(&[sty(xd)], "i32", &helpers, &TOPK.replace("$T", t))
        };
        run1d(g, st, &key, src, &[sbind(x)], bind(o), &params, rows, 64)
    })
}
