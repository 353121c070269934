use super::{cast_if, require_dtype, view_of};
use crate::{bail, kernels as k, shape, DType, Engine, HostData, Input, Result, TensorId, View};

impl Engine {
    /// A new tensor sharing `x`'s buffer (tfjs `clone`: no copy, one more tensor).
    pub fn clone_tensor(&mut self, x: TensorId) -> Result<TensorId> {
        let y = self.run_kernel_any(k::IDENTITY, &[x], |e, _, ins| {
            Ok(e.share(ins[0].data.clone(), ins[0].shape.to_vec(), ins[0].dtype))
        })?;
        self.on_tape(&[y], &[], |e, g| Ok(vec![Some(e.cast(g.dy(), DType::Float32)?)]))?;
        Ok(y)
    }

    /// `tf.reshape` with one optional `-1`; shares the buffer.
    pub fn reshape(&mut self, x: TensorId, new_shape: &[i64]) -> Result<TensorId> {
        let size = shape::size(self.shape(x)?);
        let mut implicit = None;
        // The product of the explicit dims, None once it overflows (no tensor has that size).
        let mut product = Some(1usize);
        for (i, &d) in new_shape.iter().enumerate() {
            if d == -1 {
                if let Some(j) = implicit {
                    bail!("Shapes can only have 1 implicit size. Found -1 at dim {j} and dim {i}");
                }
                implicit = Some(i);
            } else if d < 0 {
                bail!("Dim size must be >= 0 or -1, but got {d} at dim {i}");
            } else {
                product = product.and_then(|p| p.checked_mul(d as usize));
            }
        }
        // A zero dim makes the product 0 whatever the others (as JavaScript numbers multiply).
        let product = if new_shape.contains(&0) { Some(0) } else { product };
        let Some(product) = product else {
            bail!("Size({size}) must match the product of shape {}", shape::join_i64(new_shape));
        };
        let mut out: Vec<usize> = new_shape.iter().map(|&d| d.max(0) as usize).collect();
        if let Some(i) = implicit {
            if product == 0 || !size.is_multiple_of(product) {
                bail!("The implicit shape can't be a fractional number. Got {size} / {product}");
            }
            out[i] = size / product;
        }
        if shape::checked_size(&out) != Some(size) {
            bail!("Size({size}) must match the product of shape {}", shape::join_i64(new_shape));
        }
        if out.len() > shape::MAX_RANK {
            bail!(
                "tidytensor supports tensors up to rank {}, but got shape [{}]",
                shape::MAX_RANK,
                shape::join_i64(new_shape)
            );
        }
        let y =
            self.run_kernel_any(k::RESHAPE, &[x], |e, _, ins| Ok(e.share(ins[0].data.clone(), out, ins[0].dtype)))?;
        self.reshape_grad(x, y)?;
        Ok(y)
    }

    /// The gradient of a kernel that only gives its input another shape: dy in the input's.
    fn reshape_grad(&mut self, x: TensorId, y: TensorId) -> Result<()> {
        if !self.taping() {
            return Ok(());
        }
        let dims: Vec<i64> = self.shape(x)?.iter().map(|&d| d as i64).collect();
        self.on_tape(&[y], &[], move |e, g| Ok(vec![Some(e.reshape(g.dy(), &dims)?)]))
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
        let y =
            self.run_kernel_any(k::EXPAND_DIMS, &[x], |e, _, ins| Ok(e.share(ins[0].data.clone(), s, ins[0].dtype)))?;
        self.reshape_grad(x, y)?;
        Ok(y)
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
        match self.dtype(x)? {
            DType::String => {
                let p: Vec<i64> = perm.iter().map(|&a| a as i64).collect();
                return self.via_codes(k::TRANSPOSE, &[x], true, |e, c| e.transpose(c[0], Some(&p)));
            }
            DType::Complex64 => return self.complex_transpose(x, &perm),
            _ => {}
        }
        let y = self.run_kernel(k::TRANSPOSE, &[x], |e, backend, ins| {
            let storage = backend.transpose(ins[0].view(), &perm)?;
            e.output(storage, perm.iter().map(|&p| s[p]).collect(), ins[0].dtype)
        })?;
        if self.taping() {
            let mut inverse = vec![0i64; perm.len()];
            for (i, &p) in perm.iter().enumerate() {
                inverse[p] = i as i64;
            }
            self.on_tape(&[y], &[], move |e, g| Ok(vec![Some(e.transpose(g.dy(), Some(&inverse))?)]))?;
        }
        Ok(y)
    }

    /// `tf.transpose(x, perm, true)`: a complex64 tensor's transpose with its imaginary parts
    /// negated (real, imag, neg, complex, as tfjs composes it). Other dtypes, and ranks 0
    /// and 1 (which tfjs clones before it looks at `conjugate`), transpose plainly.
    pub fn conjugate_transpose(&mut self, x: TensorId, perm: Option<&[i64]>) -> Result<TensorId> {
        if self.dtype(x)? != DType::Complex64 || self.shape(x)?.len() <= 1 {
            return self.transpose(x, perm);
        }
        self.composed(|e| {
            let y = e.transpose(x, perm)?;
            let (re, im) = (e.complex_part(y, false)?, e.complex_part(y, true)?);
            let im = e.neg(im)?;
            e.complex(re, im)
        })
    }

    /// `tf.concat` along `axis`; dtypes are upcast to a common one.
    pub fn concat(&mut self, xs: &[TensorId], axis: i64) -> Result<TensorId> {
        let Some(&first) = xs.first() else { bail!("Pass at least one tensor to concat") };
        if xs.len() == 1 {
            return self.clone_tensor(first);
        }
        let shapes = xs.iter().map(|&t| self.shape(t).map(<[usize]>::to_vec)).collect::<Result<Vec<_>>>()?;
        let s0 = shapes[0].clone();
        let rank = s0.len();
        if rank == 0 {
            bail!("Error in concat: scalars cannot be concatenated; use tf.stack");
        }
        let axis = shape::axes(Some(&[axis]), rank)?[0];
        for (i, s) in shapes.iter().enumerate().skip(1) {
            if s.len() != rank {
                bail!("Error in concat{rank}D: rank of tensors[{i}] must be the same as the rank of the rest ({rank})");
            }
            for d in 0..rank {
                if d != axis && s[d] != s0[d] {
                    bail!(
                        "Error in concat{rank}D: Shape of tensors[{i}] ({}) does not match the shape of the rest ({}) along the non-concatenated axis {d}.",
                        shape::fmt(s),
                        shape::fmt(&s0)
                    );
                }
            }
        }
        let dtypes = xs.iter().map(|&t| self.dtype(t)).collect::<Result<Vec<_>>>()?;
        let dtype = dtypes.iter().copied().reduce(DType::upcast).unwrap_or(DType::Float32);
        match dtype {
            DType::String if dtypes.iter().any(|&d| d != DType::String) => {
                let other = dtypes.iter().find(|&&d| d != DType::String).map_or("", |d| d.name());
                bail!("Can not upcast string with {other}");
            }
            DType::String => return self.via_codes(k::CONCAT, xs, true, |e, c| e.concat(c, axis as i64)),
            DType::Complex64 => return self.complex_concat(xs, axis),
            _ => {}
        }
        let mut out_shape = s0.clone();
        out_shape[axis] = shapes.iter().map(|s| s[axis]).sum();
        self.check_size(&out_shape, dtype)?;
        let y = self.run_kernel(k::CONCAT, xs, |e, backend, ins| {
            if shape::size(&out_shape) == 0 {
                // Nothing to copy, however large the other dimensions.
                return e.filled(&out_shape, 0.0, dtype);
            }
            let converted = ins.iter().map(|t| cast_if(&**backend, t, dtype)).collect::<Result<Vec<_>>>()?;
            let outer = shape::size(&s0[..axis]);
            let shapes2d: Vec<[usize; 2]> = ins.iter().map(|t| [outer, shape::size(&t.shape[axis..])]).collect();
            let views: Vec<View> =
                ins.iter().zip(&converted).zip(&shapes2d).map(|((t, c), s)| view_of(t, c, s, dtype)).collect();
            let storage = backend.concat(&views, outer)?;
            e.output(storage, out_shape, dtype)
        })?;
        if !self.taping() {
            return Ok(y);
        }
        let sizes: Vec<usize> = shapes.iter().map(|s| s[axis]).collect();
        self.on_tape(&[y], &[], move |e, g| {
            // Each input's part of dy.
            let (mut begin, mut grads) = (0, Vec::with_capacity(sizes.len()));
            for (i, &n) in sizes.iter().enumerate() {
                grads.push(if g.needed[i] { Some(e.slice_axis(g.dy(), axis, begin, n)?) } else { None });
                begin += n;
            }
            Ok(grads)
        })?;
        Ok(y)
    }

    /// `x[.., begin..begin + n, ..]` along `axis`.
    pub fn slice_axis(&mut self, x: TensorId, axis: usize, begin: usize, n: usize) -> Result<TensorId> {
        let rank = self.shape(x)?.len();
        let mut b = vec![0i64; rank];
        let mut z = vec![-1i64; rank];
        b[axis] = begin as i64;
        z[axis] = n as i64;
        self.slice(x, &b, &z)
    }

    /// `x` with `before[i]` zeros before and `after[i]` after it along each axis `i` (the
    /// gradient of a slice).
    pub fn pad_zeros(&mut self, x: TensorId, before: &[usize], after: &[usize]) -> Result<TensorId> {
        self.pad_with(x, before, after, 0.0)
    }

    /// [`Engine::pad_zeros`] with `value` instead of zeros.
    pub fn pad_with(&mut self, x: TensorId, before: &[usize], after: &[usize], value: f64) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        let mut t = x;
        for axis in 0..before.len() {
            if before[axis] == 0 && after[axis] == 0 {
                continue;
            }
            let mut parts = Vec::with_capacity(3);
            for (n, is_x) in [(before[axis], false), (0, true), (after[axis], false)] {
                if is_x {
                    parts.push(t);
                } else if n > 0 {
                    let mut s = self.shape(t)?.to_vec();
                    s[axis] = n;
                    parts.push(self.fill(&s, value, dtype)?);
                }
            }
            t = self.concat(&parts, axis as i64)?;
        }
        if t == x {
            t = self.clone_tensor(x)?;
        }
        Ok(t)
    }

    /// `tf.stack`: tensors of one shape and dtype, joined along a new `axis`.
    pub fn stack(&mut self, xs: &[TensorId], axis: i64) -> Result<TensorId> {
        let Some(&first) = xs.first() else { bail!("Pass at least one tensor to tf.stack") };
        let (s0, d0) = (self.shape(first)?.to_vec(), self.dtype(first)?);
        if axis > s0.len() as i64 {
            bail!("Axis must be <= rank of the tensor");
        }
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
        let axis = if axis < 0 { axis + rank + 1 } else { axis };
        let y = self.run_kernel_any(k::PACK, xs, |e, _, _| {
            let expanded = xs.iter().map(|&t| e.expand_dims(t, axis)).collect::<Result<Vec<_>>>()?;
            if let [one] = expanded[..] {
                return Ok(one);
            }
            e.concat(&expanded, axis)
        })?;
        if !self.taping() {
            return Ok(y);
        }
        let (n, dims) = (xs.len(), s0.iter().map(|&d| d as i64).collect::<Vec<_>>());
        self.on_tape(&[y], &[], move |e, g| {
            (0..n)
                .map(|i| {
                    if !g.needed[i] {
                        return Ok(None);
                    }
                    let part = e.slice_axis(g.dy(), axis as usize, i, 1)?;
                    Ok(Some(e.reshape(part, &dims)?))
                })
                .collect()
        })?;
        Ok(y)
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
        if self.dtype(x)? == DType::String {
            return self.via_codes(k::SLICE, &[x], true, |e, c| e.slice(c[0], begin, size));
        }
        // The slice's gradient pads dy back to x's shape (computed only while taping).
        let pads = self.taping().then(|| (b.clone(), (0..rank).map(|i| s[i] - b[i] - z[i]).collect::<Vec<usize>>()));
        let y = self.run_kernel(k::SLICE, &[x], |e, backend, ins| {
            let storage = backend.slice(ins[0].view(), &b, &z)?;
            e.output(storage, z, ins[0].dtype)
        })?;
        if let Some((before, after)) = pads {
            self.on_tape(&[y], &[], move |e, g| {
                let dy = e.cast(g.dy(), DType::Float32)?;
                Ok(vec![Some(e.pad_zeros(dy, &before, &after)?)])
            })?;
        }
        Ok(y)
    }

    /// `tf.gather` of int32 `indices` along `axis`; the first `batch_dims` dimensions of `x`
    /// and `indices` are batch dimensions gathered pairwise.
    pub fn gather(&mut self, x: TensorId, indices: TensorId, axis: i64, batch_dims: i64) -> Result<TensorId> {
        require_dtype("gather", "indices", DType::Int32, self.dtype(indices)?)?;
        let (xs, is, dtype) = (self.shape(x)?.to_vec(), self.shape(indices)?.to_vec(), self.dtype(x)?);
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
        let mut out_shape = xs[..axis].to_vec();
        out_shape.extend_from_slice(&is[b..]);
        out_shape.extend_from_slice(&xs[axis + 1..]);
        self.check_size(&out_shape, dtype)?;
        // x as [batch, outer, axis, inner], indices as [batch, n].
        let dims = [shape::size(&xs[..b]), shape::size(&xs[b..axis]), xs[axis], shape::size(&xs[axis + 1..])];
        if dtype == DType::String {
            return self
                .via_codes(k::GATHER_V2, &[x, indices], true, |e, c| e.gather(c[0], c[1], axis as i64, b as i64));
        }
        let y = self.run_kernel(k::GATHER_V2, &[x, indices], |e, backend, ins| {
            if shape::size(&out_shape) == 0 {
                return e.filled(&out_shape, 0.0, dtype);
            }
            // tfjs's kernel refuses an index outside the axis; a GPU would read zeros or another
            // row, so the indices are checked here for every backend (on a GPU, a small read).
            let bad = e.read_with(indices, |d| match d {
                HostData::I32(v) => v.iter().find(|&&i| i < 0 || i as usize >= dims[2]).copied(),
                _ => None,
            })?;
            if let Some(i) = bad {
                bail!("GatherV2: the index value {i} is not in [0, {}]", dims[2] as i64 - 1);
            }
            let storage = backend.gather(ins[0].view(), ins[1].view(), dims)?;
            e.output(storage, out_shape, dtype)
        })?;
        if self.taping() {
            let (x_dims, n) = (xs.iter().map(|&d| d as i64).collect::<Vec<_>>(), shape::size(&is[b..]));
            self.on_tape(&[y], &[indices], move |e, g| {
                // dx as rows [batch * outer * axis, inner]: dy's row (i, o, j) adds to row
                // (i * outer + o) * axis + indices[i, j].
                let [batch, outer, along, inner] = dims;
                let idx = e.reshape(g.saved[0], &[batch as i64, 1, n as i64])?;
                let starts = e.range(0.0, (batch * outer) as f64, 1.0, DType::Int32)?;
                let starts = e.reshape(starts, &[batch as i64, outer as i64, 1])?;
                let width = e.fill(&[], along as f64, DType::Int32)?;
                let starts = e.mul(starts, width)?;
                let rows = e.add(starts, idx)?;
                let rows = e.reshape(rows, &[-1])?;
                let dy = e.cast(g.dy(), DType::Float32)?;
                let updates = e.reshape(dy, &[(batch * outer * n) as i64, inner as i64])?;
                let dx = e.scatter_rows(None, rows, updates, batch * outer * along)?;
                Ok(vec![Some(e.reshape(dx, &x_dims)?), None])
            })?;
        }
        Ok(y)
    }
}

impl Engine {
    /// `tf.scatterND` (`base` None: zeros, duplicates summed) and `tf.tensorScatterUpdate`
    /// (`base` given: its values, the last update of a row wins), on rows: `updates` is
    /// `[m, slice]`, `rows` int32 `[m]`, the output `[num_rows, slice]` of `updates`' dtype.
    pub fn scatter_rows(
        &mut self,
        base: Option<TensorId>,
        rows: TensorId,
        updates: TensorId,
        num_rows: usize,
    ) -> Result<TensorId> {
        require_dtype("scatterND", "indices", DType::Int32, self.dtype(rows)?)?;
        let (us, dtype) = (self.shape(updates)?.to_vec(), self.dtype(updates)?);
        let [m, slice] = us[..] else {
            bail!("scatter: updates must be [updates, slice size], got [{}]", shape::fmt(&us))
        };
        if self.shape(rows)? != [m] {
            bail!("scatter: one row index per update, got [{}] for {m} updates", shape::fmt(self.shape(rows)?));
        }
        let out_shape = vec![num_rows, slice];
        if dtype == DType::String {
            // Strings scatter as codes (see `ops::strings`); the base shares the codes.
            let (kernel, inputs) = match base {
                None => (k::SCATTER_ND, vec![rows, updates]),
                Some(b) => (k::TENSOR_SCATTER_UPDATE, vec![rows, updates, b]),
            };
            return self
                .via_codes(kernel, &inputs, true, |e, c| e.scatter_rows(c.get(2).copied(), c[0], c[1], num_rows));
        }
        if let Some(b) = base {
            if self.shape(b)? != out_shape.as_slice() || self.dtype(b)? != dtype {
                bail!("scatter: the base must be a {} [{num_rows}, {slice}] tensor", dtype.name());
            }
        }
        self.check_size(&out_shape, dtype)?;
        let (kernel, inputs) = match base {
            None => (k::SCATTER_ND, vec![rows, updates]),
            Some(b) => (k::TENSOR_SCATTER_UPDATE, vec![rows, updates, b]),
        };
        let y = self.run_kernel(kernel, &inputs, |e, backend, ins| {
            if num_rows * slice == 0 || (m == 0 && base.is_none()) {
                return e.filled(&out_shape, 0.0, dtype);
            }
            // tfjs's kernel refuses a row outside the output; a GPU would skip it, so the rows are
            // checked here for every backend (on a GPU, a small read).
            let bad = e.read_with(rows, |d| match d {
                HostData::I32(v) => v.iter().find(|&&r| r < 0 || r as usize >= num_rows).copied(),
                _ => None,
            })?;
            if let Some(r) = bad {
                bail!("Invalid indices: row {r} does not index into the {num_rows} rows of the output");
            }
            let base_view = ins.get(2).map(Input::view);
            let storage = backend.scatter(base_view, ins[0].view(), ins[1].view(), num_rows, base.is_none())?;
            e.output(storage, out_shape.clone(), dtype)
        })?;
        if base.is_none() {
            // Each update went to one row of the sum: its gradient is that row of dy.
            self.on_tape(&[y], &[rows], |e, g| {
                let dy = e.cast(g.dy(), DType::Float32)?;
                Ok(vec![None, Some(e.gather(dy, g.saved[0], 0, 0)?)])
            })?;
        }
        Ok(y)
    }
}
