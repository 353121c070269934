use super::fused::{run_epilogue, Fused};
use super::{cast_if, view_of};
use crate::backend::View;
use crate::engine::Input;
use crate::{bail, kernels as k, shape, Backend, BinaryOp, DType, Engine, Result, Storage, TensorId};

impl Engine {
    /// `tf.matMul`: rank ≥ 2, batch dimensions broadcast, output dtype is the inputs' upcast
    /// (int32 × int32 stays int32, as in tfjs).
    pub fn matmul(&mut self, a: TensorId, b: TensorId, transpose_a: bool, transpose_b: bool) -> Result<TensorId> {
        let plan = self.matmul_plan(a, b, transpose_a, transpose_b)?;
        let y = self.run_kernel(k::BATCH_MAT_MUL, &[a, b], |e, backend, _| {
            let storage = e.matmul_storage(&**backend, &plan, a, b, transpose_a, transpose_b, None)?;
            e.output(storage, plan.out_shape.clone(), plan.out_dtype)
        })?;
        let (sa, sb) = (plan.sa, plan.sb);
        if self.taping() {
            let (shape_a, shape_b) = (sa.to_vec(), sb.to_vec());
            self.on_tape(&[y], &[a, b], move |e, g| {
                let (a, b) = (e.cast(g.saved[0], DType::Float32)?, e.cast(g.saved[1], DType::Float32)?);
                let dy = g.dy();
                // tfjs's BatchMatMul gradient, then summed over broadcast batch dimensions.
                let (da, db) = match (transpose_a, transpose_b) {
                    (false, false) => ((dy, b, false, true), (a, dy, true, false)),
                    (false, true) => ((dy, b, false, false), (dy, a, true, false)),
                    (true, false) => ((b, dy, false, true), (a, dy, false, false)),
                    (true, true) => ((b, dy, true, true), (dy, a, true, true)),
                };
                let mut out = Vec::with_capacity(2);
                for (i, ((l, r, tl, tr), shape)) in [(da, &shape_a), (db, &shape_b)].into_iter().enumerate() {
                    out.push(if g.needed[i] {
                        let p = e.matmul(l, r, tl, tr)?;
                        Some(e.sum_to_shape(p, shape)?)
                    } else {
                        None
                    });
                }
                Ok(out)
            })?;
        }
        Ok(y)
    }

    /// tfjs's `fused.matMul`: the product, then `f`'s bias and activation, as one kernel
    /// (`_FusedMatMul`) when [`Engine::epilogue_fits`], else as tfjs composes it.
    pub fn fused_matmul(
        &mut self,
        a: TensorId,
        b: TensorId,
        transpose_a: bool,
        transpose_b: bool,
        f: &Fused,
    ) -> Result<TensorId> {
        let plan = self.matmul_plan(a, b, transpose_a, transpose_b)?;
        if !self.epilogue_fits(&plan.out_shape, plan.out_dtype, f)? {
            let y = self.matmul(a, b, transpose_a, transpose_b)?;
            return self.compose_epilogue(y, f);
        }
        let inputs: Vec<TensorId> = [a, b].into_iter().chain(f.inputs()).collect();
        self.run_kernel(k::FUSED_MAT_MUL, &inputs, |e, backend, ins| {
            let storage = e.matmul_storage(&**backend, &plan, a, b, transpose_a, transpose_b, Some((f, &ins[2..])))?;
            e.output(storage, plan.out_shape.clone(), plan.out_dtype)
        })
    }

    /// matMul's checks (tfjs's texts) and output.
    fn matmul_plan(&self, a: TensorId, b: TensorId, transpose_a: bool, transpose_b: bool) -> Result<MatmulPlan> {
        let (sa, sb) = (self.shape(a)?.to_vec(), self.shape(b)?.to_vec());
        if sa.len() < 2 || sb.len() < 2 {
            bail!(
                "Error in matMul: inputs must have rank >= 2, but got shapes {} and {}.",
                shape::fmt(&sa),
                shape::fmt(&sb)
            );
        }
        let (ra, rb) = (sa.len(), sb.len());
        let inner_a = if transpose_a { sa[ra - 2] } else { sa[ra - 1] };
        let inner_b = if transpose_b { sb[rb - 1] } else { sb[rb - 2] };
        let m = if transpose_a { sa[ra - 1] } else { sa[ra - 2] };
        let n = if transpose_b { sb[rb - 2] } else { sb[rb - 1] };
        if inner_a != inner_b {
            bail!(
                "Error in matMul: inner shapes ({inner_a}) and ({inner_b}) of Tensors with shapes {} and {} and transposeA={transpose_a} and transposeB={transpose_b} must match.",
                shape::fmt(&sa),
                shape::fmt(&sb)
            );
        }
        let batch = shape::broadcast(&sa[..ra - 2], &sb[..rb - 2]).map_err(|_| {
            crate::Error(format!(
                "Error in matMul: the batch dimensions of shapes {} and {} could not be broadcast.",
                shape::fmt(&sa),
                shape::fmt(&sb)
            ))
        })?;
        let out_dtype = DType::upcast(self.dtype(a)?, self.dtype(b)?);
        let out_shape = [&batch[..], &[m, n]].concat();
        self.check_size(&out_shape, out_dtype)?;
        Ok(MatmulPlan { sa, sb, batch, out_shape, out_dtype })
    }

    /// The product's storage (inside a kernel body), with the fused epilogue when given.
    #[allow(clippy::too_many_arguments)]
    fn matmul_storage(
        &mut self,
        backend: &dyn Backend,
        plan: &MatmulPlan,
        a: TensorId,
        b: TensorId,
        transpose_a: bool,
        transpose_b: bool,
        epilogue: Option<(&Fused, &[Input])>,
    ) -> Result<Box<dyn Storage>> {
        let (sa, sb, batch) = (&plan.sa, &plan.sb, &plan.batch);
        let (ra, rb) = (sa.len(), sb.len());
        let (batch_a, batch_b) = (&sa[..ra - 2], &sb[..rb - 2]);
        // The kernel broadcasts a batch of 1; other batch broadcasts are materialised first.
        let (na, nb, nout) = (shape::size(batch_a), shape::size(batch_b), shape::size(batch));
        let a = if na != nout && na != 1 { self.broadcast_to(a, &[&batch[..], &sa[ra - 2..]].concat())? } else { a };
        let b = if nb != nout && nb != 1 { self.broadcast_to(b, &[&batch[..], &sb[rb - 2..]].concat())? } else { b };
        let (a, b) = (self.input(a)?, self.input(b)?);
        let (ca, cb) = (cast_if(backend, &a, DType::Float32)?, cast_if(backend, &b, DType::Float32)?);
        let (s3a, s3b) = (as_3d(&a.shape), as_3d(&b.shape));
        let va = view_of(&a, &ca, &s3a, DType::Float32);
        let vb = view_of(&b, &cb, &s3b, DType::Float32);
        let mut storage = backend.matmul(va, vb, transpose_a, transpose_b)?;
        if let Some((f, extra)) = epilogue {
            storage = run_epilogue(backend, storage, &plan.out_shape, f, extra)?;
        }
        if plan.out_dtype != DType::Float32 {
            let view = View { storage: &*storage, shape: &plan.out_shape, dtype: DType::Float32 };
            storage = backend.cast(view, plan.out_dtype)?;
        }
        Ok(storage)
    }

    /// A copy of `x` broadcast to `target` (multiplying by ones keeps every value, -0 and NaN included).
    pub fn broadcast_to(&mut self, x: TensorId, target: &[usize]) -> Result<TensorId> {
        let dtype = self.dtype(x)?;
        let ones = self.fill(target, 1.0, dtype)?;
        let out = self.binary(BinaryOp::Mul, x, ones);
        self.dispose(ones);
        out
    }
}

/// `[batch..., r, c]` as `[prod(batch), r, c]`.
fn as_3d(s: &[usize]) -> [usize; 3] {
    let r = s.len();
    [shape::size(&s[..r - 2]), s[r - 2], s[r - 1]]
}

/// A checked matMul: the input shapes, the broadcast batch, the output.
struct MatmulPlan {
    sa: Vec<usize>,
    sb: Vec<usize>,
    batch: Vec<usize>,
    out_shape: Vec<usize>,
    out_dtype: DType,
}

/// `tf.linalg.bandPart`'s band count: `n` rows below (or columns above) the diagonal kept; a
/// negative count keeps them all.
fn band_count(n: f64, dim: usize, what: &str, name: &str) -> Result<i64> {
    let js = crate::js::number;
    if n.fract() != 0.0 || n.is_nan() {
        bail!("bandPart(): {name} must be an integer, got {}.", js(n));
    }
    if n > dim as f64 {
        bail!("bandPart(): {name} ({}) must not be greater than the number of {what} ({dim}).", js(n));
    }
    Ok(if n < 0.0 { dim as i64 } else { n as i64 })
}

impl Engine {
    /// `tf.linalg.bandPart`: the innermost matrices with everything outside the band
    /// `-num_upper <= i - j <= num_lower` set to 0.
    pub fn band_part(&mut self, a: TensorId, num_lower: f64, num_upper: f64) -> Result<TensorId> {
        let s = self.shape(a)?.to_vec();
        if s.len() < 2 {
            bail!("bandPart(): Rank must be at least 2, got {}.", s.len());
        }
        let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
        let lower = band_count(num_lower, m, "rows", "numLower")?;
        let upper = band_count(num_upper, n, "columns", "numUpper")?;
        let dtype = self.dtype(a)?;
        self.composed(|e| {
            let i = e.range(0.0, m as f64, 1.0, DType::Int32)?;
            let i = e.reshape(i, &[-1, 1])?;
            let j = e.range(0.0, n as f64, 1.0, DType::Int32)?;
            let ij = e.sub(i, j)?;
            let lo = e.fill(&[], lower as f64, DType::Int32)?;
            let hi = e.fill(&[], -upper as f64, DType::Int32)?;
            let below = e.binary(BinaryOp::LessEqual, ij, lo)?;
            let above = e.binary(BinaryOp::GreaterEqual, ij, hi)?;
            let in_band = e.binary(BinaryOp::LogicalAnd, below, above)?;
            let zeros = e.fill(&[m, n], 0.0, dtype)?;
            e.select(in_band, a, zeros)
        })
    }

    /// `tf.einsum` for one or two tensors with tfjs's limits and texts: each input moved to
    /// the order of all labels (the output's first), multiplied with broadcasting, and summed
    /// over the labels the output lacks.
    pub fn einsum(&mut self, equation: &str, xs: &[TensorId]) -> Result<TensorId> {
        let spec = EinsumSpec::decode(equation, xs.len())?;
        let shapes = xs.iter().map(|&x| Ok(self.shape(x)?.to_vec())).collect::<Result<Vec<_>>>()?;
        let sizes = spec.dim_sizes(&shapes)?;
        let labels = &spec.labels;
        let out_len = labels.len() - spec.summed.len();
        self.composed(|e| {
            let mut product: Option<TensorId> = None;
            for (i, ids) in spec.ids.iter().enumerate() {
                let (own, _) = spec.permutation(i);
                let own: Vec<i64> = own.iter().map(|&p| p as i64).collect();
                let moved = e.transpose(xs[i], Some(&own))?;
                let dims: Vec<i64> =
                    (0..labels.len()).map(|k| if ids.contains(&k) { sizes[k] as i64 } else { 1 }).collect();
                let x = e.reshape(moved, &dims)?;
                product = Some(match product {
                    None => x,
                    Some(p) => e.mul(x, p)?,
                });
            }
            let product = product.ok_or_else(|| crate::Error::new("einsum: no input tensors"))?;
            let summed: Vec<i64> = (out_len..labels.len()).map(|k| k as i64).collect();
            if summed.is_empty() {
                Ok(product)
            } else {
                e.reduce(crate::ReduceOp::Sum, product, Some(&summed), false)
            }
        })
    }
}

/// An einsum equation decoded as tfjs's `decodeEinsumEquation` decodes it (tf.backend_util):
/// every label, the output's first, and which of them each input names.
#[derive(Clone, Debug, PartialEq)]
pub struct EinsumSpec {
    /// The labels: the output's in its order, then the summed ones in input order.
    pub labels: Vec<char>,
    /// The positions in `labels` of the summed labels.
    pub summed: Vec<usize>,
    /// For each input, the position in `labels` of each of its axes.
    pub ids: Vec<Vec<usize>>,
}

impl EinsumSpec {
    /// Decodes `equation` for `inputs` tensors, with tfjs's limits and texts.
    pub fn decode(equation: &str, inputs: usize) -> Result<EinsumSpec> {
        let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
        let arrows = eq.matches("->").count();
        if arrows < 1 {
            bail!("Equations without an arrow are not supported.");
        }
        if arrows > 1 {
            bail!("Equation must contain exactly one arrow (\"->\").");
        }
        let (input, output) = eq.split_once("->").unwrap_or_default();
        if input.contains("...") {
            bail!("The ellipsis notation (\"...\") is not supported yet.");
        }
        let terms: Vec<&str> = input.split(',').collect();
        if inputs != terms.len() {
            bail!("Expected {} input tensors, received {}", terms.len(), inputs);
        }
        if terms.len() > 2 {
            bail!("Support for more than 2 input tensors is not implemented yet.");
        }
        let mut labels: Vec<char> = Vec::new();
        for l in output.chars() {
            if !terms.iter().any(|t| t.contains(l)) {
                bail!("Output subscripts contain the label {l} not present in the input subscripts.");
            }
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
        let out_len = labels.len();
        for l in input.chars() {
            if l != ',' && !labels.contains(&l) {
                labels.push(l);
            }
        }
        let mut ids = Vec::with_capacity(terms.len());
        for term in &terms {
            let chars: Vec<char> = term.chars().collect();
            let mut seen = chars.clone();
            seen.sort_unstable();
            seen.dedup();
            if seen.len() != chars.len() {
                bail!(
                    "Found duplicate axes in input component {term}. Support for duplicate axes in input is not implemented yet."
                );
            }
            ids.push(chars.iter().map(|c| labels.iter().position(|l| l == c).unwrap_or(0)).collect());
        }
        Ok(EinsumSpec { summed: (out_len..labels.len()).collect(), labels, ids })
    }

    /// Each label's size, from the inputs' shapes (tfjs's `checkEinsumDimSizes`: a label names
    /// one size in every input).
    pub fn dim_sizes(&self, shapes: &[Vec<usize>]) -> Result<Vec<usize>> {
        let mut sizes: Vec<Option<usize>> = vec![None; self.labels.len()];
        for (i, (ids, shape)) in self.ids.iter().zip(shapes).enumerate() {
            if let Some(&k) = ids.iter().find(|&&k| k >= sizes.len()) {
                bail!("Input {i} of einsum names label {k}, but there are {} labels.", sizes.len());
            }
            if shape.len() != ids.len() {
                bail!("Input {i} of einsum has rank {} but its subscripts name {} axes.", shape.len(), ids.len());
            }
            for (j, &k) in ids.iter().enumerate() {
                match sizes[k] {
                    None => sizes[k] = Some(shape[j]),
                    Some(d) if d != shape[j] => bail!(
                        "Expected dimension {d} at axis {j} of input shaped [{}], but got dimension {}",
                        shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","),
                        shape[j]
                    ),
                    Some(_) => {}
                }
            }
        }
        Ok(sizes.into_iter().map(|s| s.unwrap_or(1)).collect())
    }

    /// How input `i` is laid out over all labels (tfjs's `getEinsumPermutation`): the
    /// transpose of its axes into label order, and the label positions it lacks.
    pub fn permutation(&self, i: usize) -> (Vec<usize>, Vec<usize>) {
        let ids = &self.ids[i];
        let perm = (0..self.labels.len()).filter_map(|k| ids.iter().position(|&d| d == k)).collect();
        let expand = (0..self.labels.len()).filter(|k| !ids.contains(k)).collect();
        (perm, expand)
    }
}
