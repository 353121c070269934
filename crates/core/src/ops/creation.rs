use super::require_dtype;
use crate::random::{random_seed, Alea, Gamma, Gauss};
use crate::{bail, kernels as k, shape, DType, Engine, HostData, Result, TensorId};

/// Random distributions of `tf.randomNormal`, `tf.randomUniform`, `tf.truncatedNormal` and
/// `tf.randomGamma`, drawn as tfjs draws them (see [`crate::random`]).
#[derive(Clone, Copy, Debug)]
pub enum Random {
    Normal {
        mean: f64,
        std_dev: f64,
    },
    /// Normal, redrawn until within two standard deviations of the mean.
    TruncatedNormal {
        mean: f64,
        std_dev: f64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    /// Gamma(alpha) scaled by `beta`.
    Gamma {
        alpha: f64,
        beta: f64,
    },
}

/// Ops that compute numbers refuse the string and complex64 dtypes (tfjs makes a string
/// tensor it cannot read, or throws "Unknown data type").
fn numeric(op: &str, dtype: DType) -> Result<()> {
    if !dtype.is_numeric() {
        bail!("{op} makes numbers: dtype {} is not supported (use float32, int32 or bool)", dtype.name());
    }
    Ok(())
}

impl Engine {
    /// `tf.fill`: the Fill kernel over [`Engine::filled`].
    pub fn fill(&mut self, shape: &[usize], value: f64, dtype: DType) -> Result<TensorId> {
        self.run_kernel(k::FILL, &[], |e, _, _| e.filled(shape, value, dtype))
    }

    /// `size(shape)` copies of `value`, converted to `dtype` as tfjs stores it. Not a kernel:
    /// `tf.zeros` and `tf.ones` make their tensors from values, as tfjs's do.
    pub fn filled(&mut self, shape: &[usize], value: f64, dtype: DType) -> Result<TensorId> {
        let value = match dtype {
            DType::Float32 => value as f32 as f64,
            DType::Int32 => crate::js_to_int32(value) as f64,
            // tfjs stores the value in a Uint8Array (ToUint8): NaN, ±Infinity, 0.5 and 256 are
            // false.
            DType::Bool => uint8_truthy(value),
            DType::String => bail!("A string tensor cannot be filled with the number {value}"),
            DType::Complex64 => {
                // (value, 0) pairs, as tfjs's onesLike and zerosLike of a complex tensor.
                return self.run_kernel_any(k::COMPLEX, &[], |e, _, _| {
                    let re = e.filled(shape, value, DType::Float32)?;
                    let im = e.filled(shape, 0.0, DType::Float32)?;
                    e.complex(re, im)
                });
            }
        };
        if shape.len() > shape::MAX_RANK {
            bail!("tidytensor supports tensors up to rank {}, but got rank {}", shape::MAX_RANK, shape.len());
        }
        self.check_size(shape, dtype)?;
        let storage = self.backend()?.fill(shape::size(shape), value, dtype)?;
        self.output(storage, shape.to_vec(), dtype)
    }

    /// `tf.zerosLike` / `tf.onesLike`: `value` in `x`'s shape and dtype.
    pub fn fill_like(&mut self, x: TensorId, value: f64) -> Result<TensorId> {
        let kernel = if value == 0.0 { k::ZEROS_LIKE } else { k::ONES_LIKE };
        if self.dtype(x)? == DType::String {
            let op = if value == 0.0 { "zerosLike" } else { "onesLike" };
            bail!("{op} is not supported for string tensors");
        }
        let y = self.run_kernel_any(kernel, &[x], |e, _, ins| e.filled(&ins[0].shape, value, ins[0].dtype))?;
        self.zero_grad(y, x)?;
        Ok(y)
    }

    /// Records a zero gradient for `x` (ops whose value does not vary with `x`'s values).
    pub(crate) fn zero_grad(&mut self, y: TensorId, x: TensorId) -> Result<()> {
        if !self.taping() {
            return Ok(());
        }
        let shape = self.shape(x)?.to_vec();
        self.on_tape(&[y], &[], move |e, _| Ok(vec![Some(e.fill(&shape, 0.0, DType::Float32)?)]))
    }

    /// `tf.range(start, stop, step, dtype)`, including tfjs's handling of empty ranges.
    pub fn range(&mut self, start: f64, stop: f64, step: f64, dtype: DType) -> Result<TensorId> {
        numeric("range", dtype)?;
        if step == 0.0 {
            bail!("Cannot have a step of zero");
        }
        if dtype == DType::Bool {
            bail!("Error in range: bool dtype is not supported");
        }
        let empty = start == stop || (start < stop && step < 0.0) || (stop < start && step > 1.0);
        let n = if empty { 0 } else { ((stop - start) / step).ceil().abs() as usize };
        // tfjs flips a default step of 1 for a decreasing range, and accumulates each value
        // from the previous one in the output dtype.
        self.check_size(&[n], dtype)?;
        let step = if stop < start && step == 1.0 { -1.0 } else { step };
        self.run_kernel(k::RANGE, &[], |e, _, _| {
            // Values straight into the output's typed vector: no f64 temporary twice its size.
            let mut v = start;
            let values = (0..n).map(|i| {
                if i > 0 {
                    v += step;
                }
                v = match dtype {
                    DType::Float32 => v as f32 as f64,
                    _ => crate::js_to_int32(v) as f64,
                };
                v
            });
            e.tensor(HostData::from_f64(dtype, values), &[n])
        })
    }

    /// `tf.linspace`: `num` evenly spaced float32 values from `start` to `stop`.
    pub fn linspace(&mut self, start: f64, stop: f64, num: i64) -> Result<TensorId> {
        if num <= 0 {
            bail!("The number of values should be positive.");
        }
        let n = num as usize;
        self.check_size(&[n], DType::Float32)?;
        let step = (stop - start) / (num - 1) as f64;
        self.run_kernel(k::LIN_SPACE, &[], |e, _, _| {
            let mut values = Vec::with_capacity(n);
            let mut v = start as f32;
            for i in 0..n {
                if i > 0 {
                    v = (v as f64 + step) as f32;
                }
                values.push(v);
            }
            e.tensor(HostData::F32(values), &[n])
        })
    }

    /// `tf.eye(numRows, numColumns, batchShape, dtype)`.
    pub fn eye(&mut self, rows: i64, cols: Option<i64>, batch: &[i64], dtype: DType) -> Result<TensorId> {
        numeric("eye", dtype)?;
        let cols = cols.unwrap_or(rows);
        let mut dims = batch.to_vec();
        dims.extend([rows, cols]);
        let dims = shape::from_user(&dims)?;
        self.check_size(&dims, dtype)?;
        let c = cols as usize;
        // Ones where row == column in each matrix, straight into the output's typed vector.
        let values = (0..shape::size(&dims)).map(|i| {
            let j = i % (dims[dims.len() - 2] * c).max(1);
            if j / c == j % c {
                1.0
            } else {
                0.0
            }
        });
        self.tensor(HostData::from_f64(dtype, values), &dims)
    }

    /// `tf.oneHot(indices, depth, onValue, offValue, dtype)`; indices must be int32.
    pub fn one_hot(&mut self, indices: TensorId, depth: f64, on: f64, off: f64, dtype: DType) -> Result<TensorId> {
        numeric("oneHot", dtype)?;
        if depth < 2.0 || depth.fract() != 0.0 {
            bail!("Error in oneHot: depth must be >=2, but it is {depth}");
        }
        require_dtype("oneHot", "indices", DType::Int32, self.dtype(indices)?)?;
        let depth = depth as usize;
        let mut out_shape = self.shape(indices)?.to_vec();
        out_shape.push(depth);
        self.check_size(&out_shape, dtype)?;
        let y = self.run_kernel(k::ONE_HOT, &[indices], |e, backend, ins| {
            let storage = backend.one_hot(ins[0].view(), depth, on, off, dtype)?;
            e.output(storage, out_shape, dtype)
        })?;
        self.zero_grad(y, indices)?;
        Ok(y)
    }

    /// Random values, tfjs's for the same `seed` string (a random one when `None`). Uniform
    /// values are stored as tfjs's typed arrays store them (int32 truncates, bool is the
    /// byte's truthiness); the others round for int32, and refuse bool.
    pub fn random(&mut self, shape: &[usize], dist: Random, dtype: DType, seed: Option<&str>) -> Result<TensorId> {
        numeric("random", dtype)?;
        if dtype == DType::Bool && !matches!(dist, Random::Uniform { .. }) {
            bail!("Unsupported data type bool");
        }
        self.check_size(shape, dtype)?;
        let n = shape::size(shape);
        // The values are drawn on the host: normal ones as f64 (and, drawn in parallel, their
        // polar pairs, 24 bytes a pair) before the output's copy; all of it must fit.
        let per_value = match dist {
            Random::Normal { .. } | Random::TruncatedNormal { .. } => 8 + 12 + dtype.size_of(),
            Random::Uniform { .. } | Random::Gamma { .. } => dtype.size_of(),
        };
        crate::host_memory::check(n.saturating_mul(per_value), "drawing the random values")?;
        let seed = seed.map(str::to_string).unwrap_or_else(random_seed);
        let round = dtype == DType::Int32;
        // Values straight into the output's typed vector: no f64 temporary twice its size.
        let data = match dist {
            Random::Normal { mean, std_dev } | Random::TruncatedNormal { mean, std_dev } => {
                let truncated = matches!(dist, Random::TruncatedNormal { .. });
                let mut g = Gauss::new(mean, std_dev, truncated, round, &seed);
                HostData::from_f64(dtype, g.fill(n))
            }
            // `min + (max - min) * u`, also for min > max, infinite or NaN bounds.
            Random::Uniform { min, max } => {
                let mut u = Alea::new(&seed);
                let byte = dtype == DType::Bool;
                HostData::from_f64(
                    dtype,
                    (0..n).map(|_| {
                        let v = min + (max - min) * u.next();
                        if byte {
                            uint8_truthy(v)
                        } else {
                            v
                        }
                    }),
                )
            }
            Random::Gamma { alpha, beta } => {
                let mut g = Gamma::new(alpha, beta, round, &seed);
                HostData::from_f64(dtype, (0..n).map(|_| g.sample()))
            }
        };
        self.tensor(data, shape)
    }
}

/// 1 where a Uint8Array would store a nonzero byte (ToUint8): NaN, ±Infinity, 0.5 and 256
/// are 0.
fn uint8_truthy(value: f64) -> f64 {
    let t = value.trunc();
    (t.is_finite() && t.rem_euclid(256.0) != 0.0) as u8 as f64
}

impl Engine {
    /// `tf.multinomial`: `num_samples` draws per row of `logits` (probabilities when
    /// `normalized`): the index of the first cumulative probability above a uniform draw (the
    /// last outcome when none is, as tfjs's kernel answers for rows that sum to less than 1).
    /// Every row draws the same stream, as tfjs seeds each row's generator alike.
    pub fn multinomial(
        &mut self,
        logits: TensorId,
        num_samples: f64,
        seed: Option<&str>,
        normalized: bool,
    ) -> Result<TensorId> {
        let s = self.shape(logits)?.to_vec();
        let size = shape::size(&s);
        if size < 2 {
            bail!("Error in multinomial: you need at least 2 outcomes, but got {size}.");
        }
        if s.len() > 2 {
            bail!("Rank of probabilities must be 1 or 2, but is {}", s.len());
        }
        if !(num_samples >= 0.0 && num_samples.fract() == 0.0 && num_samples.is_finite()) {
            bail!("numSamples must be a non-negative integer, but got {}.", crate::js::number(num_samples));
        }
        // The draws compare every sample with every outcome: bound that product.
        if num_samples * size as f64 > i32::MAX as f64 {
            bail!("Error in multinomial: {num_samples} samples of {size} outcomes are too many.");
        }
        let samples = num_samples as usize;
        self.composed(|e| {
            let rows = if s.len() == 1 { e.reshape(logits, &[1, -1])? } else { logits };
            let rows = e.cast(rows, DType::Float32)?;
            let probs = if normalized { rows } else { e.softmax(rows, -1)? };
            let n = e.shape(probs)?[1];
            let cdf = e.cumulative(crate::CumOp::Sum, probs, 1, false, false)?;
            let cdf = e.slice_axis(cdf, 1, 0, n - 1)?;
            let u = e.random(&[1, samples], super::Random::Uniform { min: 0.0, max: 1.0 }, DType::Float32, seed)?;
            let cdf = e.expand_dims(cdf, 1)?;
            let u = e.expand_dims(u, 2)?;
            let below = e.binary(crate::BinaryOp::LessEqual, cdf, u)?;
            let below = e.cast(below, DType::Int32)?;
            let idx = e.reduce(crate::ReduceOp::Sum, below, Some(&[2]), false)?;
            if s.len() == 1 {
                e.reshape(idx, &[samples as i64])
            } else {
                Ok(idx)
            }
        })
    }
}
