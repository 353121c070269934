//! Shape arithmetic shared by the op front-ends and the backends.

use crate::{bail, Result};

/// Highest rank tidytensor accepts (the tfjs `tensor6d` limit).
pub const MAX_RANK: usize = 6;

/// A shape held inline (no allocation up to [`MAX_RANK`]): what a kernel call pins per input.
pub type Dims = smallvec::SmallVec<[usize; MAX_RANK]>;

/// The element count. A zero dim makes it 0 whatever the others (an empty tensor may have
/// dims whose product overflows); otherwise a live tensor's count fits, since the engine
/// refuses larger ones, and an overflow saturates.
pub fn size(shape: &[usize]) -> usize {
    checked_size(shape).unwrap_or(usize::MAX)
}

/// The element count, or `None` when it overflows (0 when any dim is 0).
pub fn checked_size(shape: &[usize]) -> Option<usize> {
    if shape.contains(&0) {
        return Some(0);
    }
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

/// For each element of `out` (row-major), the index of the element of a tensor of shape `from`
/// that broadcasts to it (`from` must broadcast to `out`): for host loops over broadcast operands.
pub fn broadcast_indices(from: &[usize], out: &[usize]) -> impl Iterator<Item = usize> {
    let lead = out.len() - from.len();
    // The stride of each output axis in `from`: 0 where `from` is 1 (or absent) there.
    let own = strides(from);
    let steps: Vec<usize> =
        (0..out.len()).map(|i| if i < lead || from[i - lead] == 1 { 0 } else { own[i - lead] }).collect();
    let dims = out.to_vec();
    let mut at = vec![0usize; dims.len()];
    let mut index = 0usize;
    (0..size(out)).map(move |n| {
        if n > 0 {
            // Advance the odometer; `index` follows it.
            for i in (0..dims.len()).rev() {
                at[i] += 1;
                index += steps[i];
                if at[i] < dims[i] {
                    break;
                }
                index -= steps[i] * dims[i];
                at[i] = 0;
            }
        }
        index
    })
}

/// Resolves a possibly negative axis in `[-rank, rank)`.
pub fn axis(op: &str, axis: i64, rank: usize) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        bail!("Error in {op}: axis must be in range [-{r}, {r}) but got axis {axis}.");
    }
    Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
}

/// Resolves a list of axes (`None` = all) into sorted, distinct, non-negative axes. A scalar
/// has no axis to name (tfjs's range `[-0, 0)`).
pub fn axes(axes: Option<&[i64]>, rank: usize) -> Result<Vec<usize>> {
    let r = rank as i64;
    let mut out = match axes {
        None => (0..rank).collect::<Vec<_>>(),
        Some(list) => {
            if list.iter().any(|&a| a < -r || a >= r) {
                bail!("All values in axis param must be in range [-{r}, {r}) but got axis {}", join_i64(list));
            }
            list.iter().map(|&a| if a < 0 { (a + r) as usize } else { a as usize }).collect()
        }
    };
    out.sort_unstable();
    out.dedup();
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

/// Drops size-1 dims and merges neighbours that stay contiguous under `strides`: the smallest
/// loop nest that visits the same elements in the same order (for backends' strided kernels).
pub fn collapse_strided(dims: &[usize], strides: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let (mut d, mut s): (Vec<usize>, Vec<usize>) = (vec![], vec![]);
    for (&size, &stride) in dims.iter().zip(strides) {
        if size == 1 {
            continue;
        }
        if let (Some(pd), Some(ps)) = (d.last_mut(), s.last_mut()) {
            if *ps == stride * size {
                *pd *= size;
                *ps = stride;
                continue;
            }
        }
        d.push(size);
        s.push(stride);
    }
    (d, s)
}

/// The dims of a broadcast `a` (op) `b` → `out` (all of `out`'s rank) with each input's
/// strides (0 along broadcast dims); size-1 dims dropped and dims contiguous in both inputs
/// merged. Empty when every dim is 1.
pub fn collapse_broadcast(a: &[usize], b: &[usize], out: &[usize]) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let (sa, sb) = (strides(a), strides(b));
    let (mut dims, mut xs, mut ys): (Vec<usize>, Vec<usize>, Vec<usize>) = (vec![], vec![], vec![]);
    for i in 0..out.len() {
        let d = out[i];
        if d == 1 {
            continue;
        }
        let x = if a[i] == 1 { 0 } else { sa[i] };
        let y = if b[i] == 1 { 0 } else { sb[i] };
        if let (Some(pd), Some(px), Some(py)) = (dims.last_mut(), xs.last_mut(), ys.last_mut()) {
            if *px == x * d && *py == y * d {
                *pd *= d;
                *px = x;
                *py = y;
                continue;
            }
        }
        dims.push(d);
        xs.push(x);
        ys.push(y);
    }
    (dims, xs, ys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_indices_walk_the_source() {
        let v: Vec<usize> = broadcast_indices(&[3, 1], &[2, 3, 2]).collect();
        assert_eq!(v, [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]);
        let v: Vec<usize> = broadcast_indices(&[2], &[2, 2]).collect();
        assert_eq!(v, [0, 1, 0, 1]);
        assert_eq!(broadcast_indices(&[], &[]).collect::<Vec<_>>(), [0]);
        assert_eq!(broadcast_indices(&[0], &[0]).count(), 0);
    }

    #[test]
    fn broadcasts_like_numpy() {
        assert_eq!(broadcast(&[2, 1, 3], &[4, 1]).unwrap(), vec![2, 4, 3]);
        assert_eq!(broadcast(&[], &[5]).unwrap(), vec![5]);
        assert!(broadcast(&[2, 3], &[4]).unwrap_err().0.contains("2,3 and 4"));
    }

    #[test]
    fn collapses_contiguous_dims() {
        // A [2,3,4] transpose by [0,2,1]: nothing merges; by [0,1,2]: one run of 24.
        assert_eq!(collapse_strided(&[2, 4, 3], &[12, 1, 4]), (vec![2, 4, 3], vec![12, 1, 4]));
        assert_eq!(collapse_strided(&[2, 3, 4], &[12, 4, 1]), (vec![24], vec![1]));
        // [2,1,3] + [1,4,1]... padded: a=[2,1,3], b=[1,4,1] → out [2,4,3].
        assert_eq!(
            collapse_broadcast(&[2, 1, 3], &[1, 4, 1], &[2, 4, 3]),
            (vec![2, 4, 3], vec![3, 0, 1], vec![0, 1, 0])
        );
        assert_eq!(collapse_broadcast(&[2, 3], &[2, 3], &[2, 3]), (vec![6], vec![1], vec![1]));
        assert_eq!(collapse_broadcast(&[1], &[1], &[1]).0, Vec::<usize>::new());
    }

    #[test]
    fn strides_are_row_major() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(strides(&[]), Vec::<usize>::new());
    }
}
