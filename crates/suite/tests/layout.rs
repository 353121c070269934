//! Layout ops on every backend: the views that share a buffer (reshape, expandDims, squeeze,
//! clone), transpose, slice, concat, stack and gather against index-by-index references, on
//! every dtype and rank, with tfjs's errors.

use tidytensor_core::{DType, Engine, TensorId};
use tidytensor_suite::{
    backend_tests, bools, f32s, fails, i32s, large_len, of, random_shape, random_tensor, random_values, strides, usage,
    values,
};

const DTYPES: [DType; 3] = [DType::Float32, DType::Int32, DType::Bool];

/// Runs `op`, which must make one tensor over an existing buffer: one more tensor, no new
/// buffer and no backend memory.
fn shares(e: &mut Engine, op: impl FnOnce(&mut Engine) -> tidytensor_core::Result<TensorId>) -> TensorId {
    let before = usage(e);
    let t = op(e).unwrap();
    let after = usage(e);
    assert_eq!((after.0, after.1, after.3), (before.0 + 1, before.1, before.3), "a view shares its input's buffer");
    t
}

fn views_share_the_buffer(e: &mut Engine) {
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let six = [1., 2., 3., 4., 5., 6.];
    let r = shares(e, |e| e.reshape(x, &[3, -1]));
    assert_eq!(values(e, r, &[3, 2], DType::Float32), six);
    let c = shares(e, |e| e.clone_tensor(x));
    assert_eq!(values(e, c, &[2, 3], DType::Float32), six);
    let d = shares(e, |e| e.expand_dims(x, 1));
    assert_eq!(values(e, d, &[2, 1, 3], DType::Float32), six);
    let s = shares(e, |e| e.squeeze(d, None));
    assert_eq!(values(e, s, &[2, 3], DType::Float32), six);
    let one = shares(e, |e| e.concat(&[x], 0));
    assert_eq!(values(e, one, &[2, 3], DType::Float32), six);
    let st = shares(e, |e| e.stack(&[x], 0));
    assert_eq!(values(e, st, &[1, 2, 3], DType::Float32), six);
    let v = f32s(e, &[1., 2.], &[2]);
    let t = shares(e, |e| e.transpose(v, None));
    assert_eq!(values(e, t, &[2], DType::Float32), vec![1., 2.]);
    let flags = bools(e, &[1, 0, 1, 1], &[4]);
    let fr = shares(e, |e| e.reshape(flags, &[2, 2]));
    assert_eq!(values(e, fr, &[2, 2], DType::Bool), vec![1., 0., 1., 1.]);
    let layout_kernels = |e: &mut Engine| {
        let mark = e.start_profile();
        e.reshape(x, &[6]).unwrap();
        e.expand_dims(x, 0).unwrap();
        e.clone_tensor(x).unwrap();
        e.end_profile(mark, true).iter().map(|r| r.name).collect::<Vec<_>>()
    };
    assert_eq!(layout_kernels(e), ["Reshape", "ExpandDims", "Identity"]);
}

fn reshape_follows_tfjs(e: &mut Engine) {
    let x = i32s(e, &[1, 2, 3, 4, 5, 6], &[2, 3]);
    for (shape, want) in [(vec![-1], vec![6]), (vec![3, -1], vec![3, 2]), (vec![1, 2, -1, 1], vec![1, 2, 3, 1])] {
        let r = e.reshape(x, &shape).unwrap();
        assert_eq!(values(e, r, &want, DType::Int32), vec![1., 2., 3., 4., 5., 6.]);
    }
    let one = f32s(e, &[7.], &[1, 1]);
    let s = e.reshape(one, &[]).unwrap();
    assert_eq!(values(e, s, &[], DType::Float32), vec![7.]);
    let empty = f32s(e, &[], &[0, 3]);
    let r = e.reshape(empty, &[3, -1]).unwrap();
    assert_eq!(values(e, r, &[3, 0], DType::Float32), Vec::<f64>::new());
    fails(e, "Shapes can only have 1 implicit size. Found -1 at dim 0 and dim 1", |e| e.reshape(x, &[-1, -1]));
    fails(e, "Dim size must be >= 0 or -1, but got -2 at dim 0", |e| e.reshape(x, &[-2, 3]));
    fails(e, "The implicit shape can't be a fractional number. Got 6 / 4", |e| e.reshape(x, &[4, -1]));
    fails(e, "The implicit shape can't be a fractional number. Got 0 / 0", |e| e.reshape(empty, &[-1, 0]));
    fails(e, "Size(6) must match the product of shape 4", |e| e.reshape(x, &[4]));
    fails(e, "Size(6) must match the product of shape 2,2", |e| e.reshape(x, &[2, 2]));
    fails(e, "tidytensor supports tensors up to rank 6, but got shape [1,1,1,1,1,1,1]", |e| e.reshape(one, &[1; 7]));
}

fn expand_dims_and_squeeze(e: &mut Engine) {
    let x = bools(e, &[1, 0, 0, 1, 1, 0], &[2, 3]);
    let v = [1., 0., 0., 1., 1., 0.];
    for (axis, shape) in
        [(0, vec![1, 2, 3]), (1, vec![2, 1, 3]), (2, vec![2, 3, 1]), (-1, vec![2, 3, 1]), (-3, vec![1, 2, 3])]
    {
        let d = e.expand_dims(x, axis).unwrap();
        assert_eq!(values(e, d, &shape, DType::Bool), v, "axis {axis}");
    }
    fails(e, "Axis must be <= rank of the tensor", |e| e.expand_dims(x, 3));
    fails(e, "Axis must be in the interval [-3, 2]", |e| e.expand_dims(x, -4));
    let y = f32s(e, &[1., 2., 3., 4., 5., 6.], &[1, 2, 1, 3]);
    for (axes, shape) in [
        (None, vec![2, 3]),
        (Some(vec![0]), vec![2, 1, 3]),
        (Some(vec![-2]), vec![1, 2, 3]),
        (Some(vec![0, 2]), vec![2, 3]),
    ] {
        let s = e.squeeze(y, axes.as_deref()).unwrap();
        assert_eq!(values(e, s, &shape, DType::Float32), vec![1., 2., 3., 4., 5., 6.], "{axes:?}");
    }
    let three = f32s(e, &[1., 2., 3., 4., 5., 6.], &[1, 2, 3]);
    let s = e.squeeze(three, None).unwrap();
    assert_eq!(values(e, s, &[2, 3], DType::Float32), vec![1., 2., 3., 4., 5., 6.]);
    fails(e, "Can't squeeze axis 1 since its dim '2' is not 1", |e| e.squeeze(y, Some(&[1])));
    fails(e, "All values in axis param must be in range [-4, 4) but got axis 4", |e| e.squeeze(y, Some(&[4])));
}

/// `x` (shape `shape`) permuted: output axis `i` is input axis `perm[i]`.
fn transpose_ref(x: &[f64], shape: &[usize], perm: &[usize]) -> Vec<f64> {
    let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let (so, si) = (strides(&out), strides(shape));
    (0..out.iter().product())
        .map(|i| x[(0..perm.len()).map(|d| (i / so[d]) % out[d] * si[perm[d]]).sum::<usize>()])
        .collect()
}

/// The identity, the reversal and a few random permutations of `rank` axes.
fn permutations(rank: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut out = vec![(0..rank).collect::<Vec<_>>(), (0..rank).rev().collect()];
    for t in 0..4 {
        let r = random_values(rank, seed + t, 0.0, 1.0);
        let mut p: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            p.swap(i, (r[i] * (i + 1) as f64) as usize);
        }
        out.push(p);
    }
    out
}

fn transpose_matches_the_reference(e: &mut Engine) {
    let n = large_len(e);
    let mut shapes: Vec<Vec<usize>> = vec![
        vec![5],
        vec![2, 3],
        vec![1, 4],
        vec![3, 1, 4],
        vec![2, 3, 4],
        vec![2, 1, 3, 2],
        vec![2, 3, 1, 2, 3],
        vec![2, 2, 3, 1, 2, 3],
        vec![0, 3, 2],
        vec![33, 20],
        vec![3, 17, 13],
        vec![n / 10, 10],
        // NCHW images to NHWC: rows of a few channels, in parallel parts.
        vec![3, n / 3],
        vec![2, 3, 9, 70],
    ];
    shapes.extend((0..6).map(|i| random_shape(520 + i, 5, 4)));
    let mut seed = 500;
    for shape in &shapes {
        for perm in permutations(shape.len(), seed) {
            let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
            let p64: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
            for dtype in DTYPES {
                seed += 1;
                let (x, xv) = random_tensor(e, dtype, shape, seed);
                let t = e.transpose(x, Some(&p64)).unwrap();
                assert_eq!(values(e, t, &out, dtype), transpose_ref(&xv, shape, &perm), "{shape:?} {perm:?} {dtype:?}");
                e.dispose(x);
                e.dispose(t);
            }
        }
    }
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let tr = e.transpose(x, None).unwrap();
    assert_eq!(values(e, tr, &[3, 2], DType::Float32), vec![1., 4., 2., 5., 3., 6.]);
    let neg = e.transpose(x, Some(&[-1, 0])).unwrap();
    assert_eq!(values(e, neg, &[3, 2], DType::Float32), vec![1., 4., 2., 5., 3., 6.]);
    fails(e, "Error in transpose: rank of input 2 must match length of perm 0.", |e| e.transpose(x, Some(&[0])));
    fails(e, "All entries in 'perm' must be between 0 and 1 but got 0,2", |e| e.transpose(x, Some(&[0, 2])));
    fails(e, "Error in transpose: perm 0,0 repeats axis 0.", |e| e.transpose(x, Some(&[0, 0])));
}

/// The box `[begin, begin + size)` of `x`.
fn slice_ref(x: &[f64], shape: &[usize], begin: &[usize], size: &[usize]) -> Vec<f64> {
    let (ss, si) = (strides(size), strides(shape));
    (0..size.iter().product())
        .map(|i| x[(0..shape.len()).map(|d| (begin[d] + (i / ss[d]) % size[d]) * si[d]).sum::<usize>()])
        .collect()
}

fn slice_matches_the_reference(e: &mut Engine) {
    let n = large_len(e);
    let mut cases: Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> = vec![
        (vec![], vec![], vec![]),
        (vec![5], vec![1], vec![3]),
        (vec![5], vec![0], vec![5]),
        (vec![5], vec![5], vec![0]),
        (vec![4, 5], vec![1, 0], vec![2, 5]),
        (vec![4, 5], vec![1, 2], vec![3, 2]),
        (vec![4, 5], vec![0, 2], vec![0, 2]),
        (vec![3, 4, 5], vec![1, 1, 0], vec![2, 2, 5]),
        (vec![3, 4, 5], vec![0, 0, 1], vec![3, 4, 3]),
        (vec![3, 4, 5], vec![2, 0, 0], vec![1, 4, 5]),
        (vec![2, 3, 4, 5, 2, 3], vec![1, 0, 2, 1, 0, 1], vec![1, 3, 2, 3, 2, 2]),
        (vec![n / 10, 10], vec![3, 1], vec![n / 10 - 5, 8]),
    ];
    // Random boxes of random shapes.
    for i in 0..8 {
        let shape = random_shape(620 + i, 5, 5);
        let r = random_values(2 * shape.len(), 640 + i, 0.0, 1.0);
        let begin: Vec<usize> = shape.iter().zip(&r).map(|(&d, &u)| (u * (d + 1) as f64) as usize).collect();
        let size = shape
            .iter()
            .zip(&begin)
            .zip(&r[shape.len()..])
            .map(|((&d, &b), &u)| (u * (d - b + 1) as f64) as usize)
            .collect();
        cases.push((shape, begin, size));
    }
    let mut seed = 600;
    for (shape, begin, size) in &cases {
        for dtype in DTYPES {
            seed += 1;
            let (x, xv) = random_tensor(e, dtype, shape, seed);
            let b: Vec<i64> = begin.iter().map(|&v| v as i64).collect();
            let z: Vec<i64> = size.iter().map(|&v| v as i64).collect();
            let s = e.slice(x, &b, &z).unwrap();
            assert_eq!(values(e, s, size, dtype), slice_ref(&xv, shape, begin, size), "{shape:?} {begin:?} {size:?}");
            e.dispose(x);
            e.dispose(s);
        }
    }
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let sl = e.slice(x, &[1, 1], &[1, -1]).unwrap();
    assert_eq!(values(e, sl, &[1, 2], DType::Float32), vec![5., 6.]);
    let sl = e.slice(x, &[0, 1], &[2, -1]).unwrap();
    assert_eq!(values(e, sl, &[2, 2], DType::Float32), vec![2., 3., 5., 6.]);
    fails(e, "Error in slice2D: Length of begin 0 must match the rank of the array (2).", |e| {
        e.slice(x, &[0], &[1, 1])
    });
    fails(e, "Error in slice2D: Length of size 1 must match the rank of the array (2).", |e| e.slice(x, &[0, 0], &[1]));
    fails(e, "Error in slice2D: begin[1] (4) must be in [0, 3]", |e| e.slice(x, &[0, 4], &[1, 0]));
    fails(e, "Error in slice2D: begin[1] + size[1] (4) would overflow input.shape[1] (3)", |e| {
        e.slice(x, &[0, 2], &[2, 2])
    });
}

/// Inputs of shapes `shapes` concatenated along `axis`.
fn concat_ref(inputs: &[Vec<f64>], shapes: &[Vec<usize>], axis: usize) -> Vec<f64> {
    let outer: usize = shapes[0][..axis].iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        for (x, s) in inputs.iter().zip(shapes) {
            let w: usize = s[axis..].iter().product();
            out.extend_from_slice(&x[o * w..(o + 1) * w]);
        }
    }
    out
}

fn concat_matches_the_reference(e: &mut Engine) {
    let n = large_len(e);
    // (shape of the first input, axis, sizes along the axis)
    let cases: Vec<(Vec<usize>, usize, Vec<usize>)> = vec![
        (vec![4], 0, vec![4, 2, 3]),
        (vec![2, 3], 0, vec![2, 1]),
        (vec![2, 3], 1, vec![3, 0, 2]),
        (vec![2, 3, 4], 1, vec![3, 1, 2, 3, 1]),
        (vec![2, 3, 4], 2, vec![4, 4]),
        (vec![2, 1, 3, 2, 2, 3], 3, vec![2, 1]),
        (vec![0, 3], 0, vec![0, 0]),
        (vec![0, 3], 1, vec![3, 3]),
        (vec![n / 10, 10], 1, vec![10, 3]),
    ];
    let mut seed = 700;
    for (first, axis, sizes) in &cases {
        for dtype in DTYPES {
            let mut ids = vec![];
            let (mut vals, mut shapes) = (vec![], vec![]);
            for &size in sizes {
                seed += 1;
                let mut s = first.clone();
                s[*axis] = size;
                let (t, v) = random_tensor(e, dtype, &s, seed);
                ids.push(t);
                vals.push(v);
                shapes.push(s);
            }
            let mut out_shape = first.clone();
            out_shape[*axis] = sizes.iter().sum();
            for ax in [*axis as i64, *axis as i64 - first.len() as i64] {
                let c = e.concat(&ids, ax).unwrap();
                let want = concat_ref(&vals, &shapes, *axis);
                assert_eq!(values(e, c, &out_shape, dtype), want, "{first:?} axis {ax} {sizes:?} {dtype:?}");
                e.dispose(c);
            }
            ids.iter().for_each(|&t| e.dispose(t));
        }
    }
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let col = f32s(e, &[10., 20.], &[2, 1]);
    let cat = e.concat(&[x, col], 1).unwrap();
    assert_eq!(values(e, cat, &[2, 4], DType::Float32), vec![1., 2., 3., 10., 4., 5., 6., 20.]);
    // Dtypes are upcast to a common one.
    let ii = i32s(e, &[1, 2, 3, 4, 5, 6], &[2, 3]);
    let fi = f32s(e, &[0.5, 1.5, 2.5, 3.5], &[2, 2]);
    let bx = bools(e, &[1, 0, 0, 1, 1, 1], &[2, 3]);
    let c = e.concat(&[ii, fi], 1).unwrap();
    assert_eq!(values(e, c, &[2, 5], DType::Float32), vec![1., 2., 3., 0.5, 1.5, 4., 5., 6., 2.5, 3.5]);
    let c = e.concat(&[bx, ii], 0).unwrap();
    assert_eq!(values(e, c, &[4, 3], DType::Int32), vec![1., 0., 0., 1., 1., 1., 1., 2., 3., 4., 5., 6.]);
    let c = e.concat(&[bx, bx], -1).unwrap();
    assert_eq!(values(e, c, &[2, 6], DType::Bool), vec![1., 0., 0., 1., 0., 0., 1., 1., 1., 1., 1., 1.]);
    let v = f32s(e, &[1.], &[1]);
    let s = f32s(e, &[1.], &[]);
    fails(e, "Pass at least one tensor to concat", |e| e.concat(&[], 0));
    fails(e, "Error in concat: scalars cannot be concatenated; use tf.stack", |e| e.concat(&[s, s], 0));
    fails(e, "Error in concat2D: rank of tensors[1] must be the same as the rank of the rest (2)", |e| {
        e.concat(&[x, v], 0)
    });
    let r = e.reshape(x, &[3, 2]).unwrap();
    fails(e, "Error in concat2D: Shape of tensors[1] (3,2) does not match the shape of the rest (2,3) along the non-concatenated axis 1.", |e| e.concat(&[x, r], 0));
    fails(e, "All values in axis param must be in range [-2, 2) but got axis 2", |e| e.concat(&[x, x], 2));
}

fn stack_follows_tfjs(e: &mut Engine) {
    let i7 = i32s(e, &[7, -7, 1], &[3]);
    let i2 = i32s(e, &[2, 2, 0], &[3]);
    let st = e.stack(&[i7, i2], 1).unwrap();
    assert_eq!(values(e, st, &[3, 2], DType::Int32), vec![7., 2., -7., 2., 1., 0.]);
    let st = e.stack(&[i7, i2], -1).unwrap();
    assert_eq!(values(e, st, &[3, 2], DType::Int32), vec![7., 2., -7., 2., 1., 0.]);
    let st = e.stack(&[i7, i2, i7], 0).unwrap();
    assert_eq!(values(e, st, &[3, 3], DType::Int32), vec![7., -7., 1., 2., 2., 0., 7., -7., 1.]);
    let (a, av) = random_tensor(e, DType::Float32, &[2, 3], 801);
    let (b, bv) = random_tensor(e, DType::Float32, &[2, 3], 802);
    let st = e.stack(&[a, b], 1).unwrap();
    let want: Vec<f64> = (0..2).flat_map(|r| [&av[r * 3..r * 3 + 3], &bv[r * 3..r * 3 + 3]].concat()).collect();
    assert_eq!(values(e, st, &[2, 2, 3], DType::Float32), want);
    let fl = bools(e, &[1, 0], &[2]);
    let st = e.stack(&[fl, fl], 1).unwrap();
    assert_eq!(values(e, st, &[2, 2], DType::Bool), vec![1., 1., 0., 0.]);
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let fx = f32s(e, &[1.], &[1]);
    fails(e, "Pass at least one tensor to tf.stack", |e| e.stack(&[], 0));
    fails(e, "All tensors passed to stack must have matching shapes Shapes 2,3 and 1 must match", |e| {
        e.stack(&[x, fx], 0)
    });
    let ix = e.cast(x, DType::Int32).unwrap();
    fails(e, "All tensors passed to stack must have matching dtypes", |e| e.stack(&[x, ix], 0));
    fails(e, "Axis must be <= rank of the tensor", |e| e.stack(&[x, x], 3));
    fails(e, "Axis must be in the interval [-3, 2]", |e| e.stack(&[x, x], -4));
}

/// tfjs gather: `x` seen as `[batch, outer, axis, inner]` and `indices` as `[batch, n]`.
fn gather_ref(x: &[f64], xs: &[usize], idx: &[f64], is: &[usize], axis: usize, b: usize) -> (Vec<f64>, Vec<usize>) {
    let batch: usize = xs[..b].iter().product();
    let outer: usize = xs[b..axis].iter().product();
    let n: usize = is[b..].iter().product();
    let inner: usize = xs[axis + 1..].iter().product();
    let mut out = Vec::new();
    for bi in 0..batch {
        for o in 0..outer {
            for j in 0..n {
                let row = (bi * outer + o) * xs[axis] + idx[bi * n + j] as usize;
                out.extend_from_slice(&x[row * inner..(row + 1) * inner]);
            }
        }
    }
    let shape = [&xs[..axis], &is[b..], &xs[axis + 1..]].concat();
    (out, shape)
}

fn gather_matches_the_reference(e: &mut Engine) {
    // (x shape, indices shape, axis, batchDims)
    let cases: Vec<(Vec<usize>, Vec<usize>, usize, usize)> = vec![
        (vec![4], vec![3], 0, 0),
        (vec![4], vec![], 0, 0),
        (vec![3, 4], vec![5], 0, 0),
        (vec![3, 4], vec![2, 3], 1, 0),
        (vec![2, 3, 2], vec![4], 1, 0),
        (vec![2, 3, 4], vec![2, 3], 1, 1),
        (vec![2, 3, 4], vec![2, 5], 2, 1),
        (vec![2, 3, 4, 2], vec![2, 3, 2], 3, 2),
        (vec![2, 3, 4], vec![2, 0], 1, 1),
        (vec![40, 30], vec![50], 0, 0),
    ];
    let mut seed = 900;
    for (xs, is, axis, b) in &cases {
        for dtype in DTYPES {
            seed += 1;
            let (x, xv) = random_tensor(e, dtype, xs, seed);
            let len: usize = is.iter().product();
            let iv: Vec<f64> = random_values(len, seed, 0.0, xs[*axis] as f64).iter().map(|v| v.floor()).collect();
            let idx = of(e, DType::Int32, &iv, is);
            let (want, shape) = gather_ref(&xv, xs, &iv, is, *axis, *b);
            let g = e.gather(x, idx, *axis as i64, *b as i64).unwrap();
            assert_eq!(values(e, g, &shape, dtype), want, "{xs:?} {is:?} axis {axis} batchDims {b} {dtype:?}");
            let g = e.gather(x, idx, *axis as i64 - xs.len() as i64, *b as i64 - is.len() as i64).unwrap();
            assert_eq!(values(e, g, &shape, dtype), want, "negative axis and batchDims");
            e.dispose(x);
            e.dispose(idx);
        }
    }
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[2, 3]);
    let idx = i32s(e, &[2, 0], &[2]);
    let g = e.gather(x, idx, 1, 0).unwrap();
    assert_eq!(values(e, g, &[2, 2], DType::Float32), vec![3., 1., 6., 4.]);
    let cube = e.range(0.0, 24.0, 1.0, DType::Float32).unwrap();
    let cube = e.reshape(cube, &[2, 3, 4]).unwrap();
    let pairs = i32s(e, &[0, 2, 1, 1], &[2, 2]);
    let bg = e.gather(cube, pairs, 1, 1).unwrap();
    let want = [0., 1., 2., 3., 8., 9., 10., 11., 16., 17., 18., 19., 16., 17., 18., 19.];
    assert_eq!(values(e, bg, &[2, 2, 4], DType::Float32), want);
    let y = i32s(e, &[10, 20, 30, 40], &[4]);
    let i3 = i32s(e, &[3, 3, 0], &[3]);
    let g = e.gather(y, i3, 0, 0).unwrap();
    assert_eq!(values(e, g, &[3], DType::Int32), vec![40., 40., 10.]);
    let z = bools(e, &[1, 0, 0, 1], &[2, 2]);
    let i1 = i32s(e, &[1], &[1]);
    let g = e.gather(z, i1, 0, 0).unwrap();
    assert_eq!(values(e, g, &[1, 2], DType::Bool), vec![0., 1.]);
    let fx = f32s(e, &[1.], &[1]);
    fails(e, "Argument 'indices' passed to 'gather' must be int32 tensor, but got float32 tensor", |e| {
        e.gather(x, fx, 0, 0)
    });
    let s = f32s(e, &[1.], &[]);
    fails(e, "gather: the input must have rank >= 1", |e| e.gather(s, idx, 0, 0));
    fails(e, "All values in axis param must be in range [-2, 2) but got axis 2", |e| e.gather(x, idx, 2, 0));
    fails(e, "Expect batchDims in the range of [-1, 1], but got 2", |e| e.gather(x, idx, 1, 2));
    fails(e, "batchDims (1) must be less than or equal to axis (0).", |e| e.gather(x, idx, 0, 1));
    let i3x2 = i32s(e, &[0, 0, 0, 0, 0, 0], &[3, 2]);
    fails(e, "x.shape[0]: 2 should be equal to indices.shape[0]: 3.", |e| e.gather(x, i3x2, 1, 1));
}

/// An index outside `[0, axis)` fails with tfjs's error on every backend.
fn gather_out_of_range(e: &mut Engine) {
    let x = f32s(e, &[1., 2., 3., 4., 5., 6.], &[3, 2]);
    let bad = i32s(e, &[1, 5], &[2]);
    let negative = i32s(e, &[-1, 0], &[2]);
    let flags = bools(e, &[1, 1, 1], &[3]);
    let far = i32s(e, &[2, 3], &[2]);
    // Every backend refuses them as tfjs's cpu kernel does (a GPU would read zeros or another row).
    fails(e, "GatherV2: the index value 5 is not in [0, 2]", |e| e.gather(x, bad, 0, 0));
    fails(e, "GatherV2: the index value -1 is not in [0, 2]", |e| e.gather(x, negative, 0, 0));
    fails(e, "GatherV2: the index value 3 is not in [0, 2]", |e| e.gather(flags, far, 0, 0));
}

/// Empty outputs cost nothing however large their other dimensions (this looped 2^40 times).
fn empty_results_do_no_work(e: &mut Engine) {
    let huge = 1usize << 40;
    let a = e.filled(&[huge, 0], 0.0, DType::Float32).unwrap();
    let c = e.concat(&[a, a], 1).unwrap();
    assert_eq!(e.shape(c).unwrap(), [huge, 0]);
    let idx = e.filled(&[huge, 0], 0.0, DType::Int32).unwrap();
    let g = e.gather(a, idx, 1, 1).unwrap();
    assert_eq!(e.shape(g).unwrap(), [huge, 0]);
    let m = e.arg_reduce(tidytensor_core::ArgOp::ArgMax, a, 0).unwrap();
    assert_eq!(e.shape(m).unwrap(), [0]);
}

/// A shape whose element count overflows is refused, not wrapped; a zero makes it empty.
fn reshape_refuses_overflowing_shapes(e: &mut Engine) {
    let x = e.filled(&[4], 1.0, DType::Float32).unwrap();
    let big = 1i64 << 62;
    fails(e, "Size(4) must match the product of shape", |e| e.reshape(x, &[big, big, 4]));
    fails(e, "Size(4) must match the product of shape", |e| e.reshape(x, &[big, -1, big]));
    let empty = e.filled(&[0], 1.0, DType::Float32).unwrap();
    let r = e.reshape(empty, &[big, big, 0]).unwrap();
    assert_eq!(e.shape(r).unwrap(), [1usize << 62, 1 << 62, 0]);
}

/// Row scatter: sums (duplicates add up) into zeros, or assigns over a base (last wins).
fn scatter_rows_sum_or_assign(e: &mut Engine) {
    let rows = i32s(e, &[2, 0, 2], &[3]);
    let upd = f32s(e, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    let y = e.scatter_rows(None, rows, upd, 4).unwrap();
    assert_eq!(values(e, y, &[4, 2], DType::Float32), vec![3.0, 4.0, 0.0, 0.0, 6.0, 8.0, 0.0, 0.0]);
    let base = f32s(e, &[9.0; 8], &[4, 2]);
    let y = e.scatter_rows(Some(base), rows, upd, 4).unwrap();
    assert_eq!(values(e, y, &[4, 2], DType::Float32), vec![3.0, 4.0, 9.0, 9.0, 5.0, 6.0, 9.0, 9.0]);
    let iu = i32s(e, &[i32::MAX, 1, 5], &[3, 1]);
    let y = e.scatter_rows(None, rows, iu, 3).unwrap();
    assert_eq!(values(e, y, &[3, 1], DType::Int32), vec![1.0, 0.0, (i32::MAX as f64) + 5.0 - 4294967296.0]);
    let bu = bools(e, &[1, 0, 0], &[3, 1]);
    let y = e.scatter_rows(None, rows, bu, 3).unwrap();
    assert_eq!(values(e, y, &[3, 1], DType::Bool), vec![0.0, 0.0, 1.0]);
    let empty = f32s(e, &[], &[0, 2]);
    let none = i32s(e, &[], &[0]);
    let y = e.scatter_rows(Some(base), none, empty, 4).unwrap();
    assert_eq!(values(e, y, &[4, 2], DType::Float32), vec![9.0; 8]);
    fails(e, "one row index per update", |e| e.scatter_rows(None, none, upd, 4));
    // A row outside the output fails on every backend (a GPU would skip it).
    let outside = i32s(e, &[2, 4, 0], &[3]);
    let negative = i32s(e, &[-1, 0, 0], &[3]);
    fails(e, "Invalid indices: row 4 does not index into the 4 rows of the output", |e| {
        e.scatter_rows(None, outside, upd, 4)
    });
    fails(e, "Invalid indices: row -1 does not index into the 4 rows of the output", |e| {
        e.scatter_rows(Some(base), negative, upd, 4)
    });
}

/// tf.booleanMaskAsync (the rows at the mask's true positions, for a mask over any dims from
/// `axis`), tf.transpose's conjugate, tf.broadcastTo; tfjs's checks.
fn boolean_mask_conjugate_transpose_and_broadcast_to(e: &mut Engine) {
    let x = e.range(0.0, 24.0, 1.0, DType::Float32).unwrap();
    let x = e.reshape(x, &[2, 3, 4]).unwrap();
    let m2 = bools(e, &[1, 0, 1, 0, 0, 1], &[2, 3]);
    let y = e.boolean_mask(x, m2, 0.0).unwrap();
    let want: Vec<f64> = [0, 2, 5].iter().flat_map(|&r| (0..4).map(move |k| (r * 4 + k) as f64)).collect();
    assert_eq!(values(e, y, &[3, 4], DType::Float32), want);
    let m1 = bools(e, &[0, 1, 1, 0], &[4]);
    let y = e.boolean_mask(x, m1, 2.0).unwrap();
    let want: Vec<f64> = (0..6).flat_map(|r| [r * 4 + 1, r * 4 + 2]).map(|v| v as f64).collect();
    assert_eq!(values(e, y, &[2, 3, 2], DType::Float32), want);
    let none = bools(e, &[0, 0], &[2]);
    let y = e.boolean_mask(x, none, 0.0).unwrap();
    assert_eq!(values(e, y, &[0, 3, 4], DType::Float32), Vec::<f64>::new());
    let xi = i32s(e, &[5, 6, 7], &[3]);
    let m3 = bools(e, &[1, 0, 1], &[3]);
    let y = e.boolean_mask(xi, m3, 0.0).unwrap();
    assert_eq!(values(e, y, &[2], DType::Int32), vec![5.0, 7.0]);
    let scalar = bools(e, &[1], &[]);
    let floats = f32s(e, &[1.0, 0.0], &[2]);
    fails(e, "mask cannot be scalar", |e| e.boolean_mask(x, scalar, 0.0));
    fails(e, "mask's shape must match the first K dimensions of tensor's shape, Shapes 3 and 2 must match", |e| {
        e.boolean_mask(x, none, 1.0)
    });
    fails(e, "Size(24) must match the product of shape 2,3,NaN", |e| e.boolean_mask(x, m1, 2.5));
    fails(e, "Argument 'mask' passed to 'boolMask' must be bool tensor, but got float32 tensor", |e| {
        e.boolean_mask(x, floats, 0.0)
    });

    let re = f32s(e, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let im = f32s(e, &[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0], &[2, 3]);
    let c = e.complex(re, im).unwrap();
    let t = e.conjugate_transpose(c, None).unwrap();
    assert_eq!(e.shape(t).unwrap(), [3, 2]);
    let parts = e.read(t).unwrap().to_f64();
    assert_eq!(parts, vec![1.0, 1.0, 4.0, 4.0, 2.0, 2.0, 5.0, 5.0, 3.0, 3.0, 6.0, 6.0]);
    // Rank 1 is cloned (as tfjs does, before it looks at `conjugate`); real tensors transpose.
    let r1 = e.reshape(c, &[6]).unwrap();
    let t = e.conjugate_transpose(r1, None).unwrap();
    assert_eq!(e.read(t).unwrap().to_f64()[1], -1.0);
    let t = e.conjugate_transpose(re, Some(&[1, 0])).unwrap();
    assert_eq!(values(e, t, &[3, 2], DType::Float32), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);

    let col = f32s(e, &[1.0, 2.0, 3.0], &[3, 1]);
    let b = e.broadcast_to_shape(col, &[2.0, 3.0, 2.0]).unwrap();
    assert_eq!(values(e, b, &[2, 3, 2], DType::Float32), [1.0, 1.0, 2.0, 2.0, 3.0, 3.0].repeat(2));
    let one = f32s(e, &[7.0], &[1]);
    // tfjs clones when no dim repeats, even where a 1 meets a 0.
    let b = e.broadcast_to_shape(one, &[0.0]).unwrap();
    assert_eq!(values(e, b, &[1], DType::Float32), vec![7.0]);
    let b = e.broadcast_to_shape(one, &[2.0, 0.0]).unwrap();
    assert_eq!(values(e, b, &[2, 0], DType::Float32), Vec::<f64>::new());
    fails(e, "broadcastTo(): shape.length=1 < input.rank=2.", |e| e.broadcast_to_shape(col, &[3.0]));
    fails(e, "broadcastTo(): [3,1] cannot be broadcast to [2,4].", |e| e.broadcast_to_shape(col, &[2.0, 4.0]));
    fails(e, "Tensor must have a shape comprised of positive integers but got shape [2,-1].", |e| {
        e.broadcast_to_shape(col, &[2.0, -1.0])
    });
}

backend_tests!(
    boolean_mask_conjugate_transpose_and_broadcast_to,
    scatter_rows_sum_or_assign,
    empty_results_do_no_work,
    reshape_refuses_overflowing_shapes,
    views_share_the_buffer,
    reshape_follows_tfjs,
    expand_dims_and_squeeze,
    transpose_matches_the_reference,
    slice_matches_the_reference,
    concat_matches_the_reference,
    stack_follows_tfjs,
    gather_matches_the_reference,
    gather_out_of_range,
);
