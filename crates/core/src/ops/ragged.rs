//! The ragged ops of converted graph models: raggedGather, raggedRange, raggedTensorToTensor.
//! A ragged tensor is its flat values plus row partitions (int32 splits or row ids). The
//! partitions are index bookkeeping on the host, with tfjs's checks and texts; the values move
//! with the gather and row-scatter kernels, so they are never read back (strings too).

use crate::{bail, shape, DType, Engine, HostData, Result, TensorId};

/// `s` as tfjs prints a shape in its texts (`1,2`).
fn text(s: &[usize]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

fn int_values(e: &Engine, t: TensorId) -> Result<Vec<i64>> {
    Ok(e.read_f64(t)?.into_iter().map(|v| v as i64).collect())
}

/// The coordinates of flat position `i` in `shape`, as tfjs prints them.
fn location(mut i: usize, shape: &[usize]) -> String {
    let mut loc = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        loc[d] = if d == 0 { i } else { i % shape[d] };
        i = i.checked_div(shape[d]).unwrap_or(i);
    }
    text(&loc)
}

fn check_splits(splits: &[Vec<i64>], num_values: usize) -> Result<()> {
    for (dim, s) in splits.iter().enumerate() {
        let last = if dim == splits.len() - 1 { num_values } else { splits[dim + 1].len() } as i64;
        let (Some(&first), Some(&end)) = (s.first(), s.last()) else { bail!("Ragged splits may not be empty") };
        if first < 0 {
            bail!("Ragged splits must be non-negative");
        }
        if end > last {
            bail!("Ragged splits must not point past values");
        }
        if s.windows(2).any(|w| w[0] > w[1]) {
            bail!("Ragged splits must be sorted in ascending order");
        }
    }
    Ok(())
}

/// The partition types tfjs knows, up to the first unknown one (tfjs reads no further).
const PARTITION_TYPES: [&str; 6] =
    ["FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_LENGTHS", "ROW_SPLITS", "ROW_LIMITS", "ROW_STARTS"];

struct Partition {
    kind: String,
    data: Vec<i64>,
    len: usize,
}

fn max_width(p: &Partition) -> Result<i64> {
    let mut widest = 0;
    match p.kind.as_str() {
        "ROW_SPLITS" => {
            for w in p.data.windows(2) {
                widest = widest.max(w[1] - w[0]);
            }
        }
        "VALUE_ROWIDS" => {
            let mut run = 0;
            for i in 0..p.data.len() {
                run = if i > 0 && p.data[i] == p.data[i - 1] { run + 1 } else { 1 };
                widest = widest.max(run);
            }
        }
        other => bail!("Cannot handle partition type {other}"),
    }
    Ok(widest)
}

/// Where each element of the next level goes in the output (flat element position, -1 when it
/// is cut off), from where its parent rows go, the stride of the level and its size.
fn child_positions(e: &Engine, p: &Partition, parent: &[i64], stride: i64, size: i64) -> Result<Vec<i64>> {
    let mut out = Vec::new();
    match p.kind.as_str() {
        "ROW_SPLITS" => {
            let d = &p.data;
            if d.len().saturating_sub(1) > parent.len() {
                bail!("Row partition size is greater than output size: {} > {}", d.len() - 1, parent.len());
            }
            // The rows' lengths are the splits' (any) values: refused, not allocated, past the
            // memory there is.
            let need = d.windows(2).fold(0u64, |n, w| n.saturating_add(w[1].saturating_sub(w[0]).max(0) as u64));
            e.check_size(&[usize::try_from(need).unwrap_or(usize::MAX), 2], DType::Int32)?;
            for r in 0..d.len().saturating_sub(1) {
                let length = d[r + 1] - d[r];
                let kept = if parent[r] == -1 { 0 } else { size.min(length).max(0) };
                for j in 0..kept {
                    out.push(parent[r] + j * stride);
                }
                for _ in kept.max(0)..length.max(0) {
                    out.push(-1);
                }
            }
            if let Some(&last) = d.last() {
                if out.len() as i64 != last {
                    bail!("Invalid row split size.");
                }
            }
        }
        "VALUE_ROWIDS" => {
            let mut column = 0;
            for (i, &row) in p.data.iter().enumerate() {
                if row < 0 {
                    bail!("Got valueRowId={row}, which is negative");
                }
                if row as usize >= parent.len() {
                    if i == 0 {
                        bail!("Got currentValueRowId={row}, which is not less than {}", parent.len());
                    }
                    bail!("Got nextValueRowId={row} which is not less than {}", parent.len());
                }
                column = if i > 0 && row == p.data[i - 1] { column + 1 } else { 0 };
                let at = parent[row as usize];
                out.push(if at == -1 || column >= size { -1 } else { at + column * stride });
            }
        }
        other => bail!("Unsupported partition type: {other}"),
    }
    Ok(out)
}

impl Engine {
    /// `tf.raggedGather`: rows `indices` of the ragged tensor (`splits`, `values`); the
    /// output's splits and dense values. (tfjs reads no `outputRaggedRank`: the result has
    /// `indices.rank - 1 + splits.len()` splits.)
    pub fn ragged_gather(&mut self, splits: &[TensorId], values: TensorId, indices: TensorId) -> Result<Vec<TensorId>> {
        for &s in splits {
            super::require_dtype("raggedGather", "paramsNestedSplits", DType::Int32, self.dtype(s)?)?;
        }
        super::require_dtype("raggedGather", "indices", DType::Int32, self.dtype(indices)?)?;
        let Some(&first) = splits.first() else { bail!("paramsNestedSplits must be non empty") };
        let fs = self.shape(first)?.to_vec();
        if fs.is_empty() {
            bail!("Split tensors must not be scalars");
        }
        let num_params = fs[0] as i64 - 1;
        let is = self.shape(indices)?.to_vec();
        let ind = int_values(self, indices)?;
        for (i, &v) in ind.iter().enumerate() {
            if v < 0 || v >= num_params {
                bail!("indices[{}] = {v} is not in [0, {num_params})", location(i, &is));
            }
        }
        let ps = self.shape(values)?.to_vec();
        if ps.is_empty() {
            bail!("params.rank must be nonzero");
        }
        let sp: Vec<Vec<i64>> = splits.iter().map(|&s| int_values(self, s)).collect::<Result<_>>()?;
        check_splits(&sp, ps[0])?;
        // The outer splits are those of the dense dimensions of `indices` (all but its last),
        // uniform rows; then come those of the gathered rows, shifted to follow each other.
        // (-1 for a scalar index: its first level has no splits of its own.)
        let outer = is.len() as isize - 1;
        let mut out: Vec<Vec<i64>> = vec![vec![0]; (outer + sp.len() as isize) as usize];
        let mut rows = 1i64;
        for d in 0..outer.max(0) as usize {
            rows *= is[d] as i64;
            for r in 1..=rows {
                out[d].push(r * is[d + 1] as i64);
            }
        }
        let mut value_rows: Vec<i32> = Vec::new();
        // Split `k` of a level (the values tfjs reads; past the end is an error, not a read).
        let at = |s: &[i64], k: i64| -> Result<i64> {
            match usize::try_from(k).ok().and_then(|k| s.get(k)) {
                Some(&v) => Ok(v),
                None => bail!("Ragged splits must not point past values"),
            }
        };
        for &i in &ind {
            let (mut start, mut limit) = (i, i + 1);
            for (dim, s) in sp.iter().enumerate() {
                // None for the first level when indices is a scalar.
                if let Some(o) = usize::try_from(outer + dim as isize).ok().and_then(|k| out.get_mut(k)) {
                    let shift = o[o.len() - 1] - at(s, start)?;
                    for j in start..limit {
                        o.push(at(s, j + 1)? + shift);
                    }
                }
                (start, limit) = (at(s, start)?, at(s, limit)?);
            }
            value_rows.extend((start..limit).map(|r| r as i32));
            // Repeated indices repeat rows: refused, not allocated, past the memory there is.
            if value_rows.len() > 1 << 24 {
                self.check_size(&[value_rows.len(), 2], DType::Int32)?;
            }
        }
        self.check_size(&[value_rows.len()], DType::Int32)?;
        let mut made = Vec::with_capacity(out.len() + 1);
        let result = (|| -> Result<()> {
            for o in &out {
                made.push(self.tensor(HostData::I32(o.iter().map(|&v| v as i32).collect()), &[o.len()])?);
            }
            let n = value_rows.len();
            let rows = self.tensor(HostData::I32(value_rows), &[n])?;
            let gathered = self.gather(values, rows, 0, 0);
            self.dispose(rows);
            made.push(gathered?);
            Ok(())
        })();
        match result {
            Ok(()) => Ok(made),
            Err(err) => {
                made.into_iter().for_each(|t| self.dispose(t));
                Err(err)
            }
        }
    }

    /// `tf.raggedRange`: row `i` is `range(starts[i], limits[i], deltas[i])`; scalars are
    /// broadcast. The splits and the dense values.
    pub fn ragged_range(&mut self, starts: TensorId, limits: TensorId, deltas: TensorId) -> Result<Vec<TensorId>> {
        let dtype = self.dtype(starts)?;
        let mut lengths = Vec::new();
        let mut vals = Vec::new();
        for (name, t) in [("starts", starts), ("limits", limits), ("deltas", deltas)] {
            let s = self.shape(t)?.to_vec();
            if s.len() > 1 {
                bail!("{name} must be a scalar or vector");
            }
            if s.len() == 1 {
                lengths.push(s[0]);
            }
            vals.push((s.is_empty(), self.read_f64(t)?));
        }
        if lengths.iter().any(|&n| n != lengths[0]) {
            bail!("starts, limits, and deltas must have the same shape");
        }
        let rows = lengths.first().copied().unwrap_or(1);
        // Row r of a scalar input is its only value.
        let at = |k: usize, r: usize| -> f64 {
            let (scalar, v) = &vals[k];
            v.get(if *scalar { 0 } else { r }).copied().unwrap_or(f64::NAN)
        };
        let mut splits = vec![0i64; rows + 1];
        for r in 0..rows {
            let (start, limit, delta) = (at(0, r), at(1, r), at(2, r));
            if delta == 0.0 {
                bail!("Requires delta != 0");
            }
            let mut size = 0.0;
            if !((delta > 0.0 && limit < start) || (delta < 0.0 && limit > start)) {
                size = ((limit - start) / delta).abs().ceil();
                if size > i32::MAX as f64 {
                    bail!("Requires ((limit - start) / delta) <= {}", i32::MAX);
                }
            }
            splits[r + 1] = splits[r] + size as i64;
            if splits[r + 1] > i32::MAX as i64 {
                bail!("Requires ((limit - start) / delta) <= {}", i32::MAX);
            }
        }
        let total = splits[rows] as usize;
        self.check_size(&[total], dtype)?;
        let mut values = Vec::with_capacity(total);
        for r in 0..rows {
            let delta = at(2, r);
            let mut v = at(0, r);
            for _ in splits[r]..splits[r + 1] {
                values.push(v);
                v += delta;
            }
        }
        let s = self.tensor(HostData::I32(splits.iter().map(|&v| v as i32).collect()), &[rows + 1])?;
        match self.tensor(HostData::from_f64(dtype, values), &[total]) {
            Ok(v) => Ok(vec![s, v]),
            Err(err) => {
                self.dispose(s);
                Err(err)
            }
        }
    }

    /// `tf.raggedTensorToTensor`: the dense tensor of a ragged one (`values` and its row
    /// partitions of `types`), padded with `default_value` and cut to `shape` (-1: as the
    /// ragged tensor has it).
    pub fn ragged_tensor_to_tensor(
        &mut self,
        shape: TensorId,
        values: TensorId,
        default_value: TensorId,
        partitions: &[TensorId],
        types: &[String],
    ) -> Result<TensorId> {
        let types: Vec<&str> = types.iter().map(String::as_str).take_while(|t| PARTITION_TYPES.contains(t)).collect();
        let mut parts = Vec::with_capacity(partitions.len());
        for (i, &t) in partitions.iter().enumerate() {
            super::require_dtype("raggedTensorToTensor", &format!("tensors{i}"), DType::Int32, self.dtype(t)?)?;
            let len = self.shape(t)?.first().copied().unwrap_or(0);
            parts.push(Partition { kind: types.get(i).unwrap_or(&"").to_string(), data: int_values(self, t)?, len });
        }
        if parts.first().is_none_or(|p| p.data.is_empty()) {
            bail!("Invalid first partition input. Tensor requires at least one element.");
        }
        let Some(&first_type) = types.first() else { bail!("No row_partition_types given.") };
        let first_dim = match first_type {
            "FIRST_DIM_SIZE" => parts[0].data[0],
            "VALUE_ROWIDS" => bail!("Cannot handle VALUE_ROWIDS in first dimension."),
            "ROW_SPLITS" => parts[0].len as i64 - 1,
            other => bail!("Cannot handle type {other}"),
        };
        let first = usize::from(first_type == "FIRST_DIM_SIZE");
        let ragged_rank = types.len() - first;
        let level = |d: usize| -> Result<&Partition> {
            match parts.get(d + first) {
                Some(p) => Ok(p),
                None => bail!(
                    "rowPartitionTypes names {} partitions but rowPartitionTensors has {}",
                    types.len(),
                    parts.len()
                ),
            }
        };
        // The default value's shape against the values' element shape.
        let (ds, vs) = (self.shape(default_value)?.to_vec(), self.shape(values)?.to_vec());
        let (nd, nv) = (ds.len(), vs.len());
        if nd >= nv {
            bail!(
                "defaultValue.shape={} and ragged tensor flatValues.shape={}, are incompatible: defaultValue.rank = {nd} must be less than ragged tensor input flatValues.rank = {nv})",
                text(&ds),
                text(&vs)
            );
        }
        for i in 0..nd.min(nv - 1) {
            let (dd, vd) = (ds[i], vs[i + 1]);
            if dd != 1 && dd != vd {
                let k = i as i64 - nd as i64;
                bail!(
                    "defaultValue.shape={}, and ragged tensor input flatValues.shape={} are incompatible: defaultValue.shape[{k}] = {dd} but ragged tensor input.flatValues.shape[{k}] = {vd}",
                    text(&ds),
                    text(&vs)
                );
            }
        }
        // The requested shape: the scalar -1 is an unknown rank, -1 an unknown dimension.
        let (ss, req) = (self.shape(shape)?.to_vec(), int_values(self, shape)?);
        let requested: Option<Vec<i64>> = if ss.is_empty() {
            if req.first() != Some(&-1) {
                bail!("The only valid scalar shape tensor is the fully unknown shape specified as -1.");
            }
            None
        } else {
            if let Some(&d) = req.iter().find(|&&d| d < -1) {
                bail!("Dimension {d} must be >= -1");
            }
            Some(req)
        };
        let rank = ragged_rank + nv;
        let shown = requested.as_ref().map(|r| r.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","));
        let mut out: Vec<i64> = requested.clone().unwrap_or_else(|| vec![-1; rank]);
        if out.len() != rank {
            bail!(
                "rt input.shape and shape={} are incompatible: rt input.rank = {rank}, but shape.rank = {}",
                shown.unwrap_or_default(),
                out.len()
            );
        }
        for (i, &v) in vs.iter().enumerate().skip(1) {
            let at = ragged_rank + i;
            if out[at] < 0 {
                out[at] = v as i64;
            } else if out[at] != v as i64 {
                bail!(
                    "rt input.shape and shape={} are incompatible: rt input.shape[{at}] = {v} but shape[{at}] = {}",
                    shown.clone().unwrap_or_default(),
                    out[at]
                );
            }
        }
        if out[0] < 0 {
            out[0] = first_dim;
        }
        for d in 1..=ragged_rank {
            if out[d] < 0 {
                out[d] = max_width(level(d - 1)?)?;
            }
        }
        if let Some(&d) = out.iter().find(|&&d| d < 0) {
            bail!("Dimension {d} must be >= 0");
        }
        let dims: Vec<usize> = out.iter().map(|&d| d as usize).collect();
        let dtype = self.dtype(values)?;
        self.check_size(&dims, dtype)?;
        // strides[d]: elements (of the value element shape) per step in dimension d.
        let mut strides = vec![1i64; ragged_rank + 1];
        for d in (0..ragged_rank).rev() {
            strides[d] = strides[d + 1] * out[d + 1];
        }
        let element: Vec<usize> = dims[ragged_rank + 1..].to_vec();
        let size = shape::size(&element);
        let slots = strides[0] * out[0];
        let mut positions: Vec<i64> = Vec::new();
        if slots > 0 {
            if first_dim < 0 {
                bail!("Final length of result must be equal to firstDimension.");
            }
            // (One position per row of the first dimension, which FIRST_DIM_SIZE may make large.)
            self.check_size(&[usize::try_from(first_dim).unwrap_or(usize::MAX), 2], DType::Int32)?;
            positions = (0..first_dim).map(|r| if r < out[0] { r * strides[0] } else { -1 }).collect();
            for d in 0..ragged_rank {
                positions = child_positions(self, level(d)?, &positions, strides[d + 1], out[d + 1])?;
            }
            if positions.len() > vs[0] {
                bail!("The row partitions hold {} values but values.shape[0] = {}", positions.len(), vs[0]);
            }
        }
        self.composed(|e| {
            // The default broadcast over one element, repeated over every slot; then the values'
            // rows written at their positions.
            let element_i64: Vec<i64> = element.iter().map(|&d| d as i64).collect();
            let mut target = vec![slots.max(0) as usize];
            target.extend_from_slice(&element);
            let lead = vec![1usize; target.len() - ds.len() - 1];
            let src: Vec<usize> = [&[1][..], &lead[..], &ds[..]].concat();
            if src.iter().zip(&target).skip(1).any(|(&s, &t)| s != 1 && s != t) {
                bail!("broadcastTo(): [{}] cannot be broadcast to [{}].", text(&ds), text(&element));
            }
            let reps: Vec<f64> = src.iter().zip(&target).map(|(&s, &t)| if s == 1 { t as f64 } else { 1.0 }).collect();
            let src_i64: Vec<i64> = src.iter().map(|&d| d as i64).collect();
            let base = e.reshape(default_value, &src_i64)?;
            let base = e.tile(base, &reps)?;
            let base = e.reshape(base, &[slots.max(0), size as i64])?;
            let kept: Vec<(i32, i32)> =
                positions.iter().enumerate().filter(|(_, &p)| p >= 0).map(|(i, &p)| (i as i32, p as i32)).collect();
            let mut full = out.clone();
            full.truncate(ragged_rank + 1);
            full.extend(element_i64);
            if kept.is_empty() || size == 0 {
                return e.reshape(base, &full);
            }
            let n = kept.len();
            let src_rows = e.tensor(HostData::I32(kept.iter().map(|k| k.0).collect()), &[n])?;
            let dst_rows = e.tensor(HostData::I32(kept.iter().map(|k| k.1).collect()), &[n])?;
            let flat = e.reshape(values, &[vs[0] as i64, size as i64])?;
            let upd = e.gather(flat, src_rows, 0, 0)?;
            let y = e.scatter_rows(Some(base), dst_rows, upd, slots as usize)?;
            e.reshape(y, &full)
        })
    }
}
