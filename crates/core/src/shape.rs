//! Shape arithmetic shared by the op front-ends and the backends.

use crate::{bail, Result};

/// Highest rank tidytensor accepts (the tfjs `tensor6d` limit).
pub const MAX_RANK: usize = 6;

pub fn size(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// The element count, or `None` when it overflows.
pub fn checked_size(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// Row-major strides in elements.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// tfjs prints shapes in messages as `Array.prototype.toString` does: `2,3`.
pub fn fmt(shape: &[usize]) -> String {
    shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

/// Same as [`fmt`], in brackets: `[2,3]`.
pub fn fmt_brackets(shape: &[usize]) -> String {
    format!("[{}]", fmt(shape))
}

/// The numpy/tfjs broadcast of two shapes.
pub fn broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let da = if i < rank - a.len() { 1 } else { a[i - (rank - a.len())] };
        let db = if i < rank - b.len() { 1 } else { b[i - (rank - b.len())] };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            bail!("Operands could not be broadcast together with shapes {} and {}.", fmt(a), fmt(b));
        };
    }
    Ok(out)
}

/// Resolves a possibly negative axis in `[-rank, rank)`.
pub fn axis(op: &str, axis: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        bail!("Error in {op}: axis must be in range [-{r}, {r}) but got axis {axis}.");
    }
    Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
}

/// Resolves a list of axes (`None` = all) into sorted, distinct, non-negative axes.
pub fn axes(axes: Option<&[i64]>, rank: usize) -> Result<Vec<usize>> {
    let mut out = match axes {
        None => (0..rank).collect::<Vec<_>>(),
        Some(list) => {
            let mut v = Vec::with_capacity(list.len());
            for &a in list {
                let r = rank as i64;
                if a < -r.max(1) || a >= r.max(1) {
                    bail!(
                        "All values in axis param must be in range [-{r}, {r}) but got axis {}",
                        list.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
                    );
                }
                v.push(if a < 0 { (a + r.max(1)) as usize } else { a as usize });
            }
            v
        }
    };
    out.sort_unstable();
    out.dedup();
    if rank == 0 {
        out.clear();
    }
    Ok(out)
}

/// Checks a user-given shape and returns it as `usize`s.
pub fn from_user(shape: &[i64]) -> Result<Vec<usize>> {
    if shape.len() > MAX_RANK {
        bail!("tidytensor supports tensors up to rank {MAX_RANK}, but got shape [{}]", join_i64(shape));
    }
    let dims = shape
        .iter()
        .map(|&d| {
            if d < 0 {
                bail!("Tensor must have a shape comprised of positive integers but got shape [{}].", join_i64(shape))
            } else {
                Ok(d as usize)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    if checked_size(&dims).is_none() {
        bail!("A tensor of shape [{}] has more elements than this machine can address", join_i64(shape));
    }
    Ok(dims)
}

pub fn join_i64(v: &[i64]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasts_like_numpy() {
        assert_eq!(broadcast(&[2, 1, 3], &[4, 1]).unwrap(), vec![2, 4, 3]);
        assert_eq!(broadcast(&[], &[5]).unwrap(), vec![5]);
        assert!(broadcast(&[2, 3], &[4]).unwrap_err().0.contains("2,3 and 4"));
    }

    #[test]
    fn strides_are_row_major() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(strides(&[]), Vec::<usize>::new());
    }
}
