//! The matrix ops tfjs composes of matMul and others: dot, outerProduct, confusionMatrix,
//! gramSchmidt, qr and basicLSTMCell, composed here of the core's front-ends in tfjs's order of
//! operations (so values, dtypes and gradients are those of tfjs's compositions). Each runs in
//! a scope of its own.

use super::NormOrd;
use crate::{bail, shape, BinaryOp, DType, Engine, ReduceOp, Result, TensorId, UnaryOp};

impl Engine {
    /// `tf.dot`: vector · vector (a scalar), matrix · vector, vector · matrix (vectors) or
    /// matrix · matrix, by matMul with the vectors reshaped as tfjs reshapes them.
    pub fn dot(&mut self, t1: TensorId, t2: TensorId) -> Result<TensorId> {
        let (s1, s2) = (self.shape(t1)?.to_vec(), self.shape(t2)?.to_vec());
        let (r1, r2) = (s1.len(), s2.len());
        if !((r1 == 1 || r1 == 2) && (r2 == 1 || r2 == 2)) {
            bail!("Error in dot: inputs must all be rank 1 or 2, but got ranks {r1} and {r2}.");
        }
        let inner1 = if r1 == 1 { s1[0] } else { s1[1] };
        let inner2 = s2[0];
        if inner1 != inner2 {
            bail!("Error in dot: inner dimensions of inputs must match, but got {inner1} and {inner2}.");
        }
        self.composed(|e| {
            let a = if r1 == 1 { e.reshape(t1, &[1, -1])? } else { t1 };
            // (tfjs reshapes a matrix t2 to its own shape: a Reshape kernel all the same.)
            let b = if r2 == 1 { e.reshape(t2, &[-1, 1])? } else { e.reshape(t2, &[s2[0] as i64, s2[1] as i64])? };
            let y = e.matmul(a, b, false, false)?;
            match (r1, r2) {
                (1, 1) => e.reshape(y, &[]),
                (2, 2) => Ok(y),
                _ => {
                    let n = shape::size(e.shape(y)?) as i64;
                    e.reshape(y, &[n])
                }
            }
        })
    }

    /// `tf.outerProduct`: the column `v1` times the row `v2`.
    pub fn outer_product(&mut self, v1: TensorId, v2: TensorId) -> Result<TensorId> {
        let (r1, r2) = (self.shape(v1)?.len(), self.shape(v2)?.len());
        if r1 != 1 || r2 != 1 {
            bail!("Error in outerProduct: inputs must be rank 1, but got ranks {r1} and {r2}.");
        }
        self.composed(|e| {
            let a = e.reshape(v1, &[-1, 1])?;
            let b = e.reshape(v2, &[1, -1])?;
            e.matmul(a, b, false, false)
        })
    }

    /// `tf.math.confusionMatrix`: the transposed one-hot labels times the one-hot
    /// predictions, int32. `num_classes` is the count given (`None` when none was), `shown`
    /// how the caller wrote it, for the error texts (JavaScript's `${numClasses}`: a value
    /// that is not a number arrives as NaN, and is refused with its own text).
    pub fn confusion_matrix(
        &mut self,
        labels: TensorId,
        predictions: TensorId,
        num_classes: Option<f64>,
        shown: &str,
    ) -> Result<TensorId> {
        let positive_int = |n: f64| n > 0.0 && n.fract() == 0.0 && n.is_finite();
        if num_classes.is_some_and(|n| !positive_int(n)) {
            bail!("If provided, numClasses must be a positive integer, but got {shown}");
        }
        let (sl, sp) = (self.shape(labels)?.to_vec(), self.shape(predictions)?.to_vec());
        if sl.len() != 1 {
            bail!("Expected the rank of labels to be 1, but got {}", sl.len());
        }
        if sp.len() != 1 {
            bail!("Expected the rank of predictions to be 1, but got {}", sp.len());
        }
        if sl[0] != sp[0] {
            bail!(
                "Mismatch in the number of examples: {} vs. {}. Labels and predictions should have the same number of elements.",
                sl[0],
                sp[0]
            );
        }
        let Some(n) = num_classes else {
            bail!("numClasses is required to be a positive integer, but got {shown}");
        };
        self.composed(|e| {
            let l = e.cast(labels, DType::Int32)?;
            let ol = e.one_hot(l, n, 1.0, 0.0, DType::Int32)?;
            let p = e.cast(predictions, DType::Int32)?;
            let op = e.one_hot(p, n, 1.0, 0.0, DType::Int32)?;
            let olt = e.transpose(ol, None)?;
            let product = e.matmul(olt, op, false, false)?;
            e.cast(product, DType::Int32)
        })
    }

    /// `tf.linalg.gramSchmidt` of a tensor: its rows (split along the first axis, as tfjs
    /// splits any rank) orthonormalised, stacked back.
    pub fn gram_schmidt(&mut self, xs: TensorId) -> Result<TensorId> {
        let rows = self.shape(xs)?.first().copied().unwrap_or(0) as f64;
        self.composed(|e| {
            let parts = e.split(xs, super::Splits::Count(rows), 0.0)?;
            let rows = parts.into_iter().map(|p| e.squeeze(p, Some(&[0]))).collect::<Result<Vec<_>>>()?;
            let ys = e.orthonormalise(&rows)?;
            e.stack(&ys, 0)
        })
    }

    /// `tf.linalg.gramSchmidt` of a list of 1-D tensors: the list orthonormalised.
    pub fn gram_schmidt_list(&mut self, xs: &[TensorId]) -> Result<Vec<TensorId>> {
        let Some(&first) = xs.first() else {
            bail!("Gram-Schmidt process: input must not be null, undefined, or empty");
        };
        let dim = self.shape(first)?.first().copied();
        for &x in &xs[1..] {
            let d = self.shape(x)?.first().copied();
            if d != dim {
                bail!(
                    "Gram-Schmidt: Non-unique lengths found in the input vectors: ({} vs. {})",
                    undefined(d),
                    undefined(dim)
                );
            }
        }
        self.composed_many(|e| e.orthonormalise(xs))
    }

    /// Gram-Schmidt over `rows`: each row minus its projections on the rows before it, then
    /// divided by its euclidean norm (tfjs's order of operations). tfjs compares the count with
    /// the first row's length, undefined for a scalar (so always refused).
    fn orthonormalise(&mut self, rows: &[TensorId]) -> Result<Vec<TensorId>> {
        let dim = match rows.first() {
            Some(&r) => self.shape(r)?.first().copied(),
            None => None,
        };
        if dim.is_none_or(|d| rows.len() > d) {
            bail!(
                "Gram-Schmidt: Number of vectors ({}) exceeds number of dimensions ({}).",
                rows.len(),
                undefined(dim)
            );
        }
        let mut ys: Vec<TensorId> = Vec::with_capacity(rows.len());
        for &row in rows {
            let y = self.composed(|e| {
                let mut x = row;
                for &y in &ys {
                    let p = e.mul(y, x)?;
                    let s = e.reduce(ReduceOp::Sum, p, None, false)?;
                    let proj = e.mul(s, y)?;
                    x = e.sub(x, proj)?;
                }
                let n = e.norm(x, NormOrd::Euclidean, None, false)?;
                e.div(x, n)
            })?;
            ys.push(y);
        }
        Ok(ys)
    }

    /// `tf.linalg.qr`: `[q, r]` by Householder reflections composed of ops as tfjs composes
    /// them (float32; the reflection of column j takes the sign that avoids cancellation).
    /// Batches run as one batch of matrices (tfjs loops over them, and fails to reshape the
    /// results unless the matrices are square): `q` is `[..., m, k]`, `r` `[..., k, n]`, with
    /// k = m when `full_matrices` or m <= n, else n.
    pub fn qr(&mut self, x: TensorId, full_matrices: bool) -> Result<Vec<TensorId>> {
        let s = self.shape(x)?.to_vec();
        let rank = s.len();
        if rank < 2 {
            bail!("qr() requires input tensor to have a rank >= 2, but got rank {rank}");
        }
        let (m, n) = (s[rank - 2], s[rank - 1]);
        if rank == 2 {
            return self.composed_many(|e| e.householder(x, &[], m, n, full_matrices));
        }
        let lead = &s[..rank - 2];
        let batch = shape::size(lead);
        self.composed_many(|e| {
            let x3 = e.reshape(x, &[batch as i64, m as i64, n as i64])?;
            let qr = e.householder(x3, &[batch], m, n, full_matrices)?;
            let mut out = Vec::with_capacity(2);
            for t in qr {
                let inner = &e.shape(t)?[1..];
                let dims: Vec<i64> = lead.iter().chain(inner).map(|&d| d as i64).collect();
                out.push(e.reshape(t, &dims)?);
            }
            Ok(out)
        })
    }

    /// tfjs's qr2d, on matrices `[...lead, m, n]` (`lead` empty or one batch axis).
    fn householder(&mut self, x: TensorId, lead: &[usize], m: usize, n: usize, full: bool) -> Result<Vec<TensorId>> {
        let pre = lead.len();
        let at = |i: usize, j: usize| -> Vec<i64> { [vec![0; pre], vec![i as i64, j as i64]].concat() };
        let size = |a: usize, b: usize| -> Vec<i64> { [vec![-1; pre], vec![a as i64, b as i64]].concat() };
        let unit: Vec<usize> = [lead, &[1, 1]].concat();
        let perm: Vec<i64> = if pre == 0 { vec![1, 0] } else { vec![0, 2, 1] };
        let batch: Vec<i64> = lead.iter().map(|&d| d as i64).collect();
        let (row_axis, col_axis) = (pre as i64, pre as i64 + 1);
        let mut q = self.eye(m as i64, None, &batch, DType::Float32)?;
        let mut r = self.clone_tensor(x)?;
        let one = self.filled(&unit, 1.0, DType::Float32)?;
        for j in 0..m.min(n) {
            let (r_old, q_old) = (r, q);
            let next = self.tidy(|e| {
                let rj_end1 = e.slice(r, &at(j, j), &size(m - j, 1))?;
                let norm_x = if pre == 0 {
                    e.norm(rj_end1, NormOrd::Euclidean, None, false)?
                } else {
                    e.norm(rj_end1, NormOrd::Euclidean, Some(&[1, 2]), true)?
                };
                let rjj = e.slice(r, &at(j, j), &size(1, 1))?;
                let zero = e.filled(&[], 0.0, DType::Float32)?;
                let positive = e.binary(BinaryOp::Greater, rjj, zero)?;
                let (minus, plus) = (e.filled(&[1, 1], -1.0, DType::Float32)?, e.filled(&[1, 1], 1.0, DType::Float32)?);
                let s = e.select(positive, minus, plus)?;
                let s_norm = e.mul(s, norm_x)?;
                let u1 = e.sub(rjj, s_norm)?;
                let w_pre = e.div(rj_end1, u1)?;
                let w = if m - j == 1 {
                    e.clone_tensor(one)?
                } else {
                    let rest = e.slice(w_pre, &at(1, 0), &size(m - j - 1, 1))?;
                    e.concat(&[one, rest], row_axis)?
                };
                let su = e.matmul(s, u1, false, false)?;
                let su = e.div(su, norm_x)?;
                let tau = e.neg(su)?;
                // R := H R, Q := Q H.
                let rj_end_all = e.slice(r, &at(j, 0), &size(m - j, n))?;
                let tau_w = e.mul(tau, w)?;
                let w_t = e.transpose(w, Some(&perm))?;
                let wr = e.matmul(w_t, rj_end_all, false, false)?;
                let twr = e.matmul(tau_w, wr, false, false)?;
                let r_new = e.sub(rj_end_all, twr)?;
                let r = if j == 0 {
                    r_new
                } else {
                    let top = e.slice(r, &at(0, 0), &size(j, n))?;
                    e.concat(&[top, r_new], row_axis)?
                };
                let tau_w_t = e.transpose(tau_w, Some(&perm))?;
                let q_cols = e.shape(q)?[pre + 1];
                let q_all_j_end = e.slice(q, &at(0, j), &size(m, q_cols - j))?;
                let qw = e.matmul(q_all_j_end, w, false, false)?;
                let qwt = e.matmul(qw, tau_w_t, false, false)?;
                let q_new = e.sub(q_all_j_end, qwt)?;
                let q = if j == 0 {
                    q_new
                } else {
                    let left = e.slice(q, &at(0, 0), &size(m, j))?;
                    e.concat(&[left, q_new], col_axis)?
                };
                Ok(vec![r, q])
            })?;
            (r, q) = (next[0], next[1]);
            self.dispose(r_old);
            self.dispose(q_old);
        }
        if !full && m > n {
            let (q_all, r_all) = (q, r);
            q = self.slice(q_all, &at(0, 0), &size(m, n))?;
            r = self.slice(r_all, &at(0, 0), &size(n, n))?;
        }
        Ok(vec![q, r])
    }

    /// `tf.basicLSTMCell`: one step of an LSTM, `[newC, newH]`, as tfjs composes it (the gates
    /// i, j, f, o are the four column blocks of `[data, h] · kernel + bias`).
    pub fn basic_lstm_cell(
        &mut self,
        forget_bias: TensorId,
        lstm_kernel: TensorId,
        lstm_bias: TensorId,
        data: TensorId,
        c: TensorId,
        h: TensorId,
    ) -> Result<Vec<TensorId>> {
        self.composed_many(|e| {
            let combined = e.concat(&[data, h], 1)?;
            let weighted = e.matmul(combined, lstm_kernel, false, false)?;
            let res = e.add(weighted, lstm_bias)?;
            let rs = e.shape(res)?.to_vec();
            if rs.len() != 2 {
                bail!("basicLSTMCell: the gates must be a 2-D tensor, but got shape [{}]", shape::fmt(&rs));
            }
            // (tfjs slices a quarter of the columns, fractional when they are not a multiple
            // of 4: slice refuses that size.)
            let (batch, cols) = (rs[0] as f64, rs[1] as f64 / 4.0);
            let mut gate = |k: f64| e.slice_params(res, &[0.0, cols * k], &[batch, cols]);
            let (i, j, f, o) = (gate(0.0)?, gate(1.0)?, gate(2.0)?, gate(3.0)?);
            let si = e.unary(UnaryOp::Sigmoid, i)?;
            let tj = e.unary(UnaryOp::Tanh, j)?;
            let input = e.mul(si, tj)?;
            let fb = e.add(forget_bias, f)?;
            let sf = e.unary(UnaryOp::Sigmoid, fb)?;
            let kept = e.mul(c, sf)?;
            let new_c = e.add(input, kept)?;
            let tc = e.unary(UnaryOp::Tanh, new_c)?;
            let so = e.unary(UnaryOp::Sigmoid, o)?;
            let new_h = e.mul(tc, so)?;
            Ok(vec![new_c, new_h])
        })
    }
}

/// A dimension as JavaScript prints `shape[0]` (undefined for a scalar).
fn undefined(d: Option<usize>) -> String {
    d.map_or_else(|| "undefined".into(), |d| d.to_string())
}
