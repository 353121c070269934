use super::{cast_if, require_dtype, view_of};
use crate::engine::Input;
use crate::{bail, shape, DType, Engine, HostData, Result, TensorId, View};

impl Engine {
    /// A new tensor sharing `x`'s buffer (tfjs `clone`: no copy, one more tensor).
    pub fn clone_tensor(&mut self, x: TensorId) -> Result<TensorId> {
        let (data, shape, dtype) = self.pin(x)?;
        Ok(self.share(data, shape, dtype))
    }

    /// `tf.cast`; casting to the same dtype shares the buffer like tfjs's identity.
    pub fn cast(&mut self, x: TensorId, dtype: DType) -> Result<TensorId> {
        if self.dtype(x)? == dtype {
            return self.clone_tensor(x);
        }
        let input = self.input(x)?;
        self.check_size(&input.shape, dtype)?;
        let storage = self.backend()?.cast(input.view(), dtype)?;
        self.output(storage, input.shape.clone(), dtype)
    }

    /// `tf.reshape` with one optional `-1`; shares the buffer.
    pub fn reshape(&mut self, x: TensorId, new_shape: &[i64]) -> Result<TensorId> {
        let size = shape::size(self.shape(x)?);
        let mut implicit = None;
        let mut product = 1usize;
        for (i, &d) in new_shape.iter().enumerate() {
            if d == -1 {
                if let Some(j) = implicit {
                    bail!("Shapes can only have 1 implicit size. Found -1 at dim {j} and dim {i}");
                }
                implicit = Some(i);
            } else if d < 0 {
                bail!("Dim size must be >= 0 or -1, but got {d} at dim {i}");
            } else {
                product *= d as usize;
            }
        }
        let mut out: Vec<usize> = new_shape.iter().map(|&d| d.max(0) as usize).collect();
        if let Some(i) = implicit {
            if product == 0 || !size.is_multiple_of(product) {
                bail!("The implicit shape can't be a fractional number. Got {size} / {product}");
            }
            out[i] = size / product;
        }
        if shape::size(&out) != size {
            bail!("Size({size}) must match the product of shape {}", shape::join_i64(new_shape));
        }
        if out.len() > shape::MAX_RANK {
            bail!(
                "tidytensor supports tensors up to rank {}, but got shape [{}]",
                shape::MAX_RANK,
                shape::join_i64(new_shape)
            );
        }
        let (data, _, dtype) = self.pin(x)?;
        Ok(self.share(data, out, dtype))
    }

    fn reshape_to(&mut self, x: TensorId, shape: Vec<usize>) -> Result<TensorId> {
        let s: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        self.reshape(x, &s)
    }

    /// `tf.expandDims`: inserts a dimension of 1 at `axis` (`-(rank+1) <= axis <= rank`).
    pub fn expand_dims(&mut self, x: TensorId, axis: i64) -> Result<TensorId> {
        let mut s = self.shape(x)?.to_vec();
        let rank = s.len() as i64;
        if axis > rank {
            bail!("Axis must be <= rank of the tensor");
        }
        if axis < -(rank + 1) {
            bail!("Axis must be in the interval [{}, {rank}]", -(rank + 1));
        }
        let axis = if axis < 0 { rank + axis + 1 } else { axis } as usize;
        s.insert(axis, 1);
        self.reshape_to(x, s)
    }

    /// `tf.squeeze`: drops the given dimensions of size 1 (all of them when `axes` is `None`).
    pub fn squeeze(&mut self, x: TensorId, axes: Option<&[i64]>) -> Result<TensorId> {
        let s = self.shape(x)?.to_vec();
        let out = match axes {
            None => s.iter().copied().filter(|&d| d != 1).collect(),
            Some(list) => {
                let axes = shape::axes(Some(list), s.len())?;
                for &a in &axes {
                    if s[a] != 1 {
                        bail!("Can't squeeze axis {a} since its dim '{}' is not 1", s[a]);
                    }
                }
                s.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, &d)| d).collect()
            }
        };
        self.reshape_to(x, out)
    }

    /// `tf.transpose`; `perm` defaults to reversing the axes.
    pub fn transpose(&mut self, x: TensorId, perm: Option<&[i64]>) -> Result<TensorId> {
        let s = self.shape(x)?.to_vec();
        let rank = s.len();
        let perm: Vec<usize> = match perm {
            None => (0..rank).rev().collect(),
            Some(p) => {
                if p.len() != rank {
                    bail!("Error in transpose: rank of input {rank} must match length of perm {}.", shape::join_i64(p));
                }
                let mut seen = vec![false; rank];
                let mut out = Vec::with_capacity(rank);
                for &a in p {
                    let r = rank as i64;
                    if a < -r || a >= r {
                        bail!("All entries in 'perm' must be between 0 and {} but got {}", r - 1, shape::join_i64(p));
                    }
                    let a = if a < 0 { a + r } else { a } as usize;
                    if std::mem::replace(&mut seen[a], true) {
                        bail!("Error in transpose: perm {} repeats axis {a}.", shape::join_i64(p));
                    }
                    out.push(a);
                }
                out
            }
        };
        if rank <= 1 {
            return self.clone_tensor(x);
        }
        let input = self.input(x)?;
        let storage = self.backend()?.transpose(input.view(), &perm)?;
        let out_shape = perm.iter().map(|&p| s[p]).collect();
        self.output(storage, out_shape, input.dtype)
    }

    /// `tf.concat` along `axis`; dtypes are upcast to a common one.
    pub fn concat(&mut self, xs: &[TensorId], axis: i64) -> Result<TensorId> {
        let Some(&first) = xs.first() else { bail!("Pass at least one tensor to concat") };
        if xs.len() == 1 {
            return self.clone_tensor(first);
        }
        let inputs = xs.iter().map(|&t| self.input(t)).collect::<Result<Vec<Input>>>()?;
        let s0 = inputs[0].shape.clone();
        let rank = s0.len();
        if rank == 0 {
            bail!("Error in concat: scalars cannot be concatenated; use tf.stack");
        }
        let axis = shape::axes(Some(&[axis]), rank)?[0];
        for (i, t) in inputs.iter().enumerate().skip(1) {
            if t.shape.len() != rank {
                bail!("Error in concat{rank}D: rank of tensors[{i}] must be the same as the rank of the rest ({rank})");
            }
            for d in 0..rank {
                if d != axis && t.shape[d] != s0[d] {
                    bail!(
                        "Error in concat{rank}D: Shape of tensors[{i}] ({}) does not match the shape of the rest ({}) along the non-concatenated axis {d}.",
                        shape::fmt(&t.shape),
                        shape::fmt(&s0)
                    );
                }
            }
        }
        let dtype = inputs.iter().map(|t| t.dtype).reduce(DType::upcast).unwrap_or(DType::Float32);
        let mut out_shape = s0.clone();
        out_shape[axis] = inputs.iter().map(|t| t.shape[axis]).sum();
        self.check_size(&out_shape, dtype)?;
        let backend = self.backend()?;
        let converted = inputs.iter().map(|t| cast_if(&*backend, t, dtype)).collect::<Result<Vec<_>>>()?;
        let outer = shape::size(&s0[..axis]);
        let shapes2d: Vec<[usize; 2]> = inputs.iter().map(|t| [outer, shape::size(&t.shape[axis..])]).collect();
        let views: Vec<View> =
            inputs.iter().zip(&converted).zip(&shapes2d).map(|((t, c), s)| view_of(t, c, s, dtype)).collect();
        let storage = backend.concat(&views, outer)?;
        self.output(storage, out_shape, dtype)
    }

    /// `tf.stack`: tensors of one shape and dtype, joined along a new `axis`.
    pub fn stack(&mut self, xs: &[TensorId], axis: i64) -> Result<TensorId> {
        let Some(&first) = xs.first() else { bail!("Pass at least one tensor to tf.stack") };
        let (s0, d0) = (self.shape(first)?.to_vec(), self.dtype(first)?);
        for &t in &xs[1..] {
            let s = self.shape(t)?;
            if s != s0.as_slice() {
                bail!(
                    "All tensors passed to stack must have matching shapes Shapes {} and {} must match",
                    shape::fmt(&s0),
                    shape::fmt(s)
                );
            }
            if self.dtype(t)? != d0 {
                bail!("All tensors passed to stack must have matching dtypes");
            }
        }
        let rank = s0.len() as i64;
        if axis < -(rank + 1) || axis > rank {
            bail!("Axis must be in the interval [{}, {rank}]", -(rank + 1));
        }
        let mut expanded = Vec::with_capacity(xs.len());
        let mut result = Ok(0);
        for &t in xs {
            match self.expand_dims(t, axis) {
                Ok(e) => expanded.push(e),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        if result.is_ok() {
            let axis = if axis < 0 { axis + rank + 1 } else { axis };
            result = if expanded.len() == 1 {
                Ok(expanded.pop().expect("one element"))
            } else {
                self.concat(&expanded, axis)
            };
        }
        for t in expanded {
            self.dispose(t);
        }
        result
    }

    /// `tf.slice` with full-rank `begin` and `size` (`size` -1 = to the end).
    pub fn slice(&mut self, x: TensorId, begin: &[i64], size: &[i64]) -> Result<TensorId> {
        let s = self.shape(x)?.to_vec();
        let rank = s.len();
        if begin.len() != rank {
            bail!(
                "Error in slice{rank}D: Length of begin {} must match the rank of the array ({rank}).",
                shape::join_i64(begin)
            );
        }
        if size.len() != rank {
            bail!(
                "Error in slice{rank}D: Length of size {} must match the rank of the array ({rank}).",
                shape::join_i64(size)
            );
        }
        let mut b = Vec::with_capacity(rank);
        let mut z = Vec::with_capacity(rank);
        for i in 0..rank {
            if begin[i] < 0 || begin[i] as usize > s[i] {
                bail!("Error in slice{rank}D: begin[{i}] ({}) must be in [0, {}]", begin[i], s[i]);
            }
            let bi = begin[i] as usize;
            let zi = if size[i] < 0 { s[i] - bi } else { size[i] as usize };
            if bi + zi > s[i] {
                bail!(
                    "Error in slice{rank}D: begin[{i}] + size[{i}] ({}) would overflow input.shape[{i}] ({})",
                    bi + zi,
                    s[i]
                );
            }
            b.push(bi);
            z.push(zi);
        }
        let input = self.input(x)?;
        let storage = self.backend()?.slice(input.view(), &b, &z)?;
        self.output(storage, z, input.dtype)
    }

    /// `tf.gather` of int32 `indices` along `axis`; the first `batch_dims` dimensions of `x`
    /// and `indices` are batch dimensions gathered pairwise.
    pub fn gather(&mut self, x: TensorId, indices: TensorId, axis: i64, batch_dims: i64) -> Result<TensorId> {
        let input = self.input(x)?;
        let idx = self.input(indices)?;
        require_dtype("gather", "indices", DType::Int32, idx.dtype)?;
        let (xs, is) = (input.shape.clone(), idx.shape.clone());
        let rank = xs.len();
        if rank == 0 {
            bail!("gather: the input must have rank >= 1");
        }
        let axis = shape::axes(Some(&[axis]), rank)?[0];
        let b = if batch_dims < 0 { batch_dims + is.len() as i64 } else { batch_dims };
        if b < 0 || b as usize > is.len() {
            bail!("Expect batchDims in the range of [-{0}, {0}], but got {batch_dims}", is.len());
        }
        let b = b as usize;
        if b > axis {
            bail!("batchDims ({b}) must be less than or equal to axis ({axis}).");
        }
        for i in 0..b {
            if xs[i] != is[i] {
                bail!("x.shape[{i}]: {} should be equal to indices.shape[{i}]: {}.", xs[i], is[i]);
            }
        }
        let dim = xs[axis];
        let values: Vec<i64> = idx.data.backend.read(idx.view())?.to_f64().into_iter().map(|v| v as i64).collect();
        for &v in &values {
            if v < 0 || v as usize >= dim {
                bail!("GatherV2: the index value {v} is not in [0, {}]", dim as i64 - 1);
            }
        }
        let batch = shape::size(&xs[..b]);
        let outer = shape::size(&xs[b..axis]);
        let inner = shape::size(&xs[axis + 1..]);
        let mut out_shape = xs[..axis].to_vec();
        out_shape.extend_from_slice(&is[b..]);
        out_shape.extend_from_slice(&xs[axis + 1..]);
        self.check_size(&out_shape, input.dtype)?;
        let backend = self.backend()?;
        let storage = if b == 0 {
            backend.gather(input.view(), idx.view(), outer, dim, inner)?
        } else {
            // Row (batch, o, i) of the output is row ((batch * outer + o) * dim + index[batch, i])
            // of x seen as [rows, inner]: one plain gather over precomputed row numbers.
            let per_batch = values.len() / batch.max(1);
            let mut rows = Vec::with_capacity(batch * outer * per_batch);
            for bi in 0..batch {
                for o in 0..outer {
                    for &v in &values[bi * per_batch..(bi + 1) * per_batch] {
                        rows.push(((bi * outer + o) * dim + v as usize) as i32);
                    }
                }
            }
            let n = rows.len();
            let rows = backend.upload(HostData::I32(rows))?;
            let rows_view = View { storage: &*rows, shape: &[n], dtype: DType::Int32 };
            let flat = [batch * outer * dim, inner];
            let x_view = View { storage: &*input.data.storage, shape: &flat, dtype: input.dtype };
            backend.gather(x_view, rows_view, 1, batch * outer * dim, inner)?
        };
        self.output(storage, out_shape, input.dtype)
    }
}
