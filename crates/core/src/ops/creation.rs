use super::require_dtype;
use crate::{bail, kernels as k, shape, DType, Engine, HostData, Result, TensorId};
use rand::{rngs::StdRng, Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

/// Random distributions of `tf.randomNormal`, `tf.randomUniform` and `tf.truncatedNormal`.
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
            DType::Bool => {
                let t = value.trunc();
                (t.is_finite() && t.rem_euclid(256.0) != 0.0) as u8 as f64
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
        self.run_kernel(kernel, &[x], |e, _, ins| e.filled(&ins[0].shape, value, ins[0].dtype))
    }

    /// `tf.range(start, stop, step, dtype)`, including tfjs's handling of empty ranges.
    pub fn range(&mut self, start: f64, stop: f64, step: f64, dtype: DType) -> Result<TensorId> {
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
        if depth < 2.0 || depth.fract() != 0.0 {
            bail!("Error in oneHot: depth must be >=2, but it is {depth}");
        }
        require_dtype("oneHot", "indices", DType::Int32, self.dtype(indices)?)?;
        let depth = depth as usize;
        let mut out_shape = self.shape(indices)?.to_vec();
        out_shape.push(depth);
        self.check_size(&out_shape, dtype)?;
        self.run_kernel(k::ONE_HOT, &[indices], |e, backend, ins| {
            let storage = backend.one_hot(ins[0].view(), depth, on, off, dtype)?;
            e.output(storage, out_shape, dtype)
        })
    }

    /// Random values; `seed` makes them reproducible.
    pub fn random(&mut self, shape: &[usize], dist: Random, dtype: DType, seed: Option<f64>) -> Result<TensorId> {
        if dtype == DType::Bool {
            bail!("Unsupported data type bool");
        }
        self.check_size(shape, dtype)?;
        let mut rng = match seed {
            Some(s) => StdRng::seed_from_u64(s.to_bits()),
            None => StdRng::from_os_rng(),
        };
        let n = shape::size(shape);
        // int32 samples are rounded, as tfjs's generators do (Math.round: halves up).
        let store = |v: f64| if dtype == DType::Int32 { (v + 0.5).floor() } else { v };
        // Values straight into the output's typed vector: no f64 temporary twice its size.
        let data = match dist {
            Random::Normal { mean, std_dev } | Random::TruncatedNormal { mean, std_dev } => {
                // mean + std·z with z standard normal, truncation redrawing z beyond ±2: ends
                // for every argument (tfjs's values for infinite ones: ±Infinity, or NaN).
                let truncated = matches!(dist, Random::TruncatedNormal { .. });
                let values = (0..n).map(|_| loop {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    if !truncated || z.abs() <= 2.0 {
                        break store(mean + std_dev * z);
                    }
                });
                HostData::from_f64(dtype, values)
            }
            // As tfjs computes it: `min + (max - min) * u`, also for min > max, infinite or NaN
            // bounds (values in (max, min], or NaN).
            Random::Uniform { min, max } => {
                HostData::from_f64(dtype, (0..n).map(|_| store(min + (max - min) * rng.random::<f64>())))
            }
        };
        self.tensor(data, shape)
    }
}
