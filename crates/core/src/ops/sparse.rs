//! `tf.sparse`: the ops on SparseTensors given as indices, values and a dense shape. Their work
//! is index bookkeeping on small int32 tensors, done on the host as tfjs-core's kernels do on
//! every backend, with tfjs's checks and texts. tf.* and the graph executor share them; each is
//! one kernel call (tfjs's name) in `tf.profile`.

use crate::kernels as k;
use crate::{bail, DType, Engine, HostData, Result, TensorId};

impl Engine {
    /// `tf.sparse.sparseSegmentSum` (`mean`: `sparseSegmentMean`).
    pub fn sparse_segment_reduction(
        &mut self,
        data: TensorId,
        indices: TensorId,
        segment_ids: TensorId,
        mean: bool,
    ) -> Result<TensorId> {
        let kernel = if mean { k::SPARSE_SEGMENT_MEAN } else { k::SPARSE_SEGMENT_SUM };
        self.run_kernel_any(kernel, &[data, indices, segment_ids], |e, _, _| {
            segment_reduce(e, data, indices, segment_ids, mean)
        })
    }

    /// `tf.sparse.sparseReshape`: the indices of a SparseTensor of `input_shape` renumbered
    /// for `new_shape` (one -1 allowed), and the output shape.
    pub fn sparse_reshape(
        &mut self,
        input_indices: TensorId,
        input_shape: TensorId,
        new_shape: TensorId,
    ) -> Result<Vec<TensorId>> {
        self.run_kernel_any(k::SPARSE_RESHAPE, &[input_indices, input_shape, new_shape], |e, _, _| {
            reshape(e, input_indices, input_shape, new_shape)
        })
    }

    /// `tf.sparse.sparseFillEmptyRows`: output indices, values, the empty-row indicator and the
    /// reverse index map.
    pub fn sparse_fill_empty_rows(
        &mut self,
        indices: TensorId,
        values: TensorId,
        dense_shape: TensorId,
        default_value: TensorId,
    ) -> Result<Vec<TensorId>> {
        self.run_kernel_any(k::SPARSE_FILL_EMPTY_ROWS, &[indices, values, dense_shape, default_value], |e, _, _| {
            fill_empty_rows(e, indices, values, dense_shape, default_value)
        })
    }
}

/// tfjs's `convertToTensor(x, name, op, 'int32')` check; the shape and values.
fn int32_input(e: &Engine, id: TensorId, name: &str, op: &str) -> Result<(Vec<usize>, Vec<i64>)> {
    let dtype = e.dtype(id)?;
    if dtype != DType::Int32 {
        bail!("Argument '{name}' passed to '{op}' must be int32 tensor, but got {} tensor", dtype.name());
    }
    let v = e.read_f64(id)?.into_iter().map(|v| v as i64).collect();
    Ok((e.shape(id)?.to_vec(), v))
}

fn shape_text(s: &[usize]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

fn list_text(s: &[i64]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

/// Segment sums (or means) of the rows `indices` picks from `data`, by sorted `segmentIds`;
/// segments with no row are 0.
fn segment_reduce(
    e: &mut Engine,
    x: TensorId,
    indices: TensorId,
    segment_ids: TensorId,
    mean: bool,
) -> Result<TensorId> {
    let op = if mean { "sparseSegmentMean" } else { "sparseSegmentSum" };
    let (xs, xd) = (e.shape(x)?.to_vec(), e.dtype(x)?);
    if xd == DType::String {
        bail!("Argument 'data' passed to '{op}' must be numeric tensor, but got string tensor");
    }
    let (is, ind) = int32_input(e, indices, "indices", op)?;
    let (ss, ids) = int32_input(e, segment_ids, "segmentIds", op)?;
    if xs.is_empty() {
        bail!("Data should be at least 1 dimensional but received scalar");
    }
    if is.len() != 1 {
        bail!("Indices should be Tensor1D but received shape\n         {}", shape_text(&is));
    }
    if ss.len() != 1 {
        bail!("Segment ids should be Tensor1D but received shape\n         {}", shape_text(&ss));
    }
    if is[0] != ss[0] {
        bail!("segmentIds and indices should have same size.");
    }
    let data = e.read_f64(x)?;
    let rows = xs[0] as i64;
    let cols: usize = xs[1..].iter().product();
    let n = ind.len();
    let out_rows = if n > 0 { ids[n - 1] + 1 } else { 0 };
    if out_rows < 0 || (n > 0 && out_rows == 0) {
        bail!("segment ids must be >= 0");
    }
    let mut shape = vec![out_rows as usize];
    shape.extend_from_slice(&xs[1..]);
    // The last segment id sets the output's size: refused, not allocated, when too large.
    let int = xd == DType::Int32;
    e.check_size(&shape, if int { DType::Int32 } else { DType::Float32 })?;
    // As tfjs's Int32Array / Float32Array: int32 sums wrap and means truncate; float32 sums
    // round at each step.
    let out = if int {
        let sum = |a: i32, v: f64| a.wrapping_add(v as i32);
        HostData::I32(segments(&data, &ind, &ids, rows, cols, out_rows, mean, sum, |a, k| (a as f64 / k) as i32)?)
    } else {
        let sum = |a: f32, v: f64| a + v as f32;
        HostData::F32(segments(&data, &ind, &ids, rows, cols, out_rows, mean, sum, |a, k| a / k as f32)?)
    };
    e.tensor(out, &shape)
}

/// tfjs's segment reduction: the rows `ind` picks from `data` (`rows × cols`), added into
/// their sorted segments (`ids`), divided by the segment's size for a mean.
#[allow(clippy::too_many_arguments)]
fn segments<T: Copy + Default>(
    data: &[f64],
    ind: &[i64],
    ids: &[i64],
    rows: i64,
    cols: usize,
    out_rows: i64,
    mean: bool,
    add: impl Fn(T, f64) -> T,
    div: impl Fn(T, f64) -> T,
) -> Result<Vec<T>> {
    let n = ind.len();
    let mut out = vec![T::default(); out_rows as usize * cols];
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && ids[end] == ids[start] {
            end += 1;
        }
        if end < n && ids[start] >= ids[end] {
            bail!("segment ids are not increasing");
        }
        let s = ids[start];
        if s < 0 || s >= out_rows {
            bail!("Segment id {s} out of range [0, {out_rows}), possibly because segmentIds input is not sorted.");
        }
        let dst = &mut out[s as usize * cols..(s as usize + 1) * cols];
        for (i, &row) in ind.iter().enumerate().take(end).skip(start) {
            if row < 0 || row >= rows {
                bail!("Bad: indices[{i}] == {row} out of range [0, {rows})");
            }
            let src = &data[row as usize * cols..(row as usize + 1) * cols];
            dst.iter_mut().zip(src).for_each(|(d, &v)| *d = add(*d, v));
        }
        if mean {
            let count = (end - start) as f64;
            dst.iter_mut().for_each(|d| *d = div(*d, count));
        }
        start = end;
    }
    Ok(out)
}

/// The indices of a SparseTensor of `inputShape` renumbered for `newShape` (one -1 allowed).
fn reshape(
    e: &mut Engine,
    input_indices: TensorId,
    input_shape: TensorId,
    new_shape: TensorId,
) -> Result<Vec<TensorId>> {
    let op = "sparseReshape";
    let (is, ind) = int32_input(e, input_indices, "inputIndices", op)?;
    let (ish, in_shape) = int32_input(e, input_shape, "inputShape", op)?;
    let (nsh, target) = int32_input(e, new_shape, "newShape", op)?;
    if is.len() != 2 {
        bail!("Input indices should be Tensor2D but received shape\n        {}", shape_text(&is));
    }
    if ish.len() != 1 {
        bail!("Input shape should be Tensor1D but received shape {}", shape_text(&ish));
    }
    if nsh.len() != 1 {
        bail!("New shape should be Tensor1D but received shape {}", shape_text(&nsh));
    }
    // Sizes saturate and index arithmetic wraps (tfjs computes in doubles): absurd shapes give
    // a size mismatch error, never an overflow.
    let size = |s: &[i64]| s.iter().fold(1i64, |a, &d| a.saturating_mul(d));
    let dense = size(&in_shape);
    let mut out = Vec::with_capacity(target.len());
    let (mut product, mut unknown) = (1i64, None);
    for (i, &d) in target.iter().enumerate() {
        if d == -1 {
            if let Some(u) = unknown {
                bail!("only one output dimension may be -1, not both {u} and {i}");
            }
            unknown = Some(i);
            out.push(1);
        } else {
            if d < 0 {
                bail!("size {i} must be non-negative, not {d}");
            }
            product = product.saturating_mul(d);
            out.push(d);
        }
    }
    if let Some(u) = unknown {
        if product <= 0 {
            bail!("reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are non-zero");
        }
        let missing = dense / product;
        if product.saturating_mul(missing) != dense {
            bail!(
                "Input to reshape is a SparseTensor with {dense}\n  dense values, but the requested shape requires a multiple of {}. inputShape={} outputShape= {}",
                size(&out),
                list_text(&in_shape),
                list_text(&out)
            );
        }
        out[u] = missing;
    }
    if size(&out) != dense {
        bail!(
            "Input to reshape is a tensor with {dense} dense values, but the requested shape has {}. inputShape={} outputShape={}",
            size(&out),
            list_text(&in_shape),
            list_text(&out)
        );
    }
    let strides = |s: &[i64]| (0..s.len()).map(|i| size(&s[i + 1..])).collect::<Vec<i64>>();
    let (sin, sout) = (strides(&in_shape), strides(&out));
    let nnz = is[0];
    let mut result = vec![0i32; nnz * out.len()];
    for i in 0..nnz {
        let mut flat: i64 = (0..in_shape.len()).fold(0i64, |acc, j| {
            acc.wrapping_add(ind.get(i * in_shape.len() + j).copied().unwrap_or(0).wrapping_mul(sin[j]))
        });
        for (j, &st) in sout.iter().enumerate() {
            // tfjs divides by the stride as it is (a 0 stride gives NaN, read as 0 by Int32Array).
            let (q, r) = if st == 0 { (0, flat) } else { (flat.wrapping_div(st), flat.wrapping_rem(st)) };
            result[i * out.len() + j] = q as i32;
            flat = r;
        }
    }
    let rank = out.len();
    Ok(vec![
        e.tensor(HostData::I32(result), &[nnz, rank])?,
        e.tensor(HostData::I32(out.iter().map(|&d| d as i32).collect()), &[rank])?,
    ])
}

/// Rows of a SparseTensor with no value get one at column 0 with `defaultValue`; the entries are
/// put in row order (stable within a row).
fn fill_empty_rows(
    e: &mut Engine,
    indices: TensorId,
    val: TensorId,
    dense_shape: TensorId,
    def: TensorId,
) -> Result<Vec<TensorId>> {
    let op = "sparseFillEmptyRows";
    let (is, ind) = int32_input(e, indices, "indices", op)?;
    let (vs, vd) = (e.shape(val)?.to_vec(), e.dtype(val)?);
    let (dsh, dense) = int32_input(e, dense_shape, "denseShape", op)?;
    let (ds, dd) = (e.shape(def)?.to_vec(), e.dtype(def)?);
    if dd != vd {
        bail!("Argument 'defaultValue' passed to '{op}' must be {} tensor, but got {} tensor", vd.name(), dd.name());
    }
    if is.len() != 2 {
        bail!("Indices should be Tensor2D but received shape\n        {}", shape_text(&is));
    }
    if vs.len() != 1 {
        bail!("Values should be Tensor1D but received shape {}", shape_text(&vs));
    }
    if dsh.len() != 1 {
        bail!("Dense shape should be Tensor1D but received shape {}", shape_text(&dsh));
    }
    if !ds.is_empty() {
        bail!("Default value should be a scalar but received shape {}", shape_text(&ds));
    }
    let (count, rank) = (is[0], is[1]);
    let rows = dense.first().copied().unwrap_or(0);
    // The output values by where each comes from: value i, or the default (None).
    let make = |e: &mut Engine, idx: Vec<i32>, src: Vec<Option<usize>>, empty: Vec<bool>, reverse: Vec<i32>| {
        let n = src.len();
        let values = if vd == DType::String {
            let (v, d) = (e.read_strings(val)?, e.read_strings(def)?);
            let fill = d.into_iter().next().unwrap_or_default();
            let out = src.iter().map(|s| s.map_or_else(|| fill.clone(), |i| v[i].clone())).collect();
            e.strings(out, &[n])?
        } else {
            let (v, d) = (e.read_f64(val)?, e.read_f64(def)?);
            let fill = d.first().copied().unwrap_or(0.0);
            let out: Vec<f64> = src.iter().map(|s| s.map_or(fill, |i| v[i])).collect();
            e.tensor(HostData::from_f64(vd, out), &[n])?
        };
        let ne = empty.len();
        let nr = reverse.len();
        Ok::<_, crate::Error>(vec![
            e.tensor(HostData::I32(idx), &[n, rank])?,
            values,
            e.tensor(HostData::Bool(empty.into_iter().map(u8::from).collect()), &[ne])?,
            e.tensor(HostData::I32(reverse), &[nr])?,
        ])
    };
    if rows == 0 {
        if count != 0 {
            bail!("Received SparseTensor with denseShape[0] = 0 but\n  indices.shape[0] = {count}");
        }
        return make(e, Vec::new(), Vec::new(), Vec::new(), Vec::new());
    }
    if rank == 0 {
        bail!("Indices should have a column for each dimension, but have shape {}", shape_text(&is));
    }
    let rows = rows.max(0) as usize;
    // denseShape[0] sets the work: ~40 bytes a row (the counts, starts and outputs below),
    // refused before anything is allocated when more than the memory there is.
    e.check_size(&[rows, 40], DType::Bool)?;
    let mut per_row = vec![0usize; rows];
    let mut ordered = true;
    for i in 0..count {
        let r = ind[i * rank];
        if r < 0 {
            bail!("indices({i}, 0) is invalid: {r} < 0");
        }
        if r >= rows as i64 {
            bail!("indices({i}, 0) is invalid: {r} >= {rows}");
        }
        per_row[r as usize] += 1;
        if i > 0 && r < ind[(i - 1) * rank] {
            ordered = false;
        }
    }
    let empty: Vec<bool> = per_row.iter().map(|&n| n == 0).collect();
    if ordered && !empty.contains(&true) {
        let idx = ind.iter().map(|&x| x as i32).collect();
        return make(e, idx, (0..count).map(Some).collect(), empty, (0..count as i32).collect());
    }
    // Row r's entries start at first[r]; an empty row gets one slot.
    let mut first = Vec::with_capacity(rows);
    let mut total = 0;
    for &n in &per_row {
        first.push(total);
        total += n.max(1);
    }
    e.check_size(&[total, rank], DType::Int32)?;
    let mut out_idx = vec![0i32; total * rank];
    let mut out_vals: Vec<Option<usize>> = vec![None; total];
    let mut filled = vec![0usize; rows];
    let mut reverse = vec![0i32; count];
    for i in 0..count {
        let r = ind[i * rank] as usize;
        let at = first[r] + filled[r];
        filled[r] += 1;
        for j in 0..rank {
            out_idx[at * rank + j] = ind[i * rank + j] as i32;
        }
        out_vals[at] = Some(i);
        reverse[i] = at as i32;
    }
    for r in 0..rows {
        if filled[r] == 0 {
            out_idx[first[r] * rank] = r as i32;
        }
    }
    make(e, out_idx, out_vals, empty, reverse)
}
