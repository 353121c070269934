//! The conv family on every backend against direct f64 loops: convolutions (2-D, 3-D,
//! depthwise, strided, dilated, padded), the input gradient, pooling, argmax positions,
//! dilation and LRN; tfjs's errors; nothing left allocated.

use tidytensor_core::ops::{ConvKind, Padding, PoolKind, Window};
use tidytensor_core::{DType, Engine};
use tidytensor_suite::{assert_close, backend_tests, fails, of, random_values, values};

/// A window over `[batch, d, h, w, c]` with explicit leading pads.
#[derive(Clone, Copy)]
struct Geo {
    input: [usize; 5],
    filter: [usize; 3],
    strides: [usize; 3],
    dilations: [usize; 3],
    pad: [usize; 3],
    out: [usize; 3],
}

impl Geo {
    /// Calls `f(out pixel, tap, input pixel)` for every tap inside the input, pixels without channels.
    fn each(&self, mut f: impl FnMut(usize, usize, usize)) {
        let [b, d, h, w, _] = self.input;
        let [od, oh, ow] = self.out;
        let [fd, fh, fw] = self.filter;
        for n in 0..b {
            for (oz, oy, ox) in (0..od).flat_map(|z| (0..oh).flat_map(move |y| (0..ow).map(move |x| (z, y, x)))) {
                let opix = ((n * od + oz) * oh + oy) * ow + ox;
                for (tz, ty, tx) in (0..fd).flat_map(|z| (0..fh).flat_map(move |y| (0..fw).map(move |x| (z, y, x)))) {
                    let at = |o: usize, t: usize, a: usize| {
                        (o * self.strides[a] + t * self.dilations[a]).checked_sub(self.pad[a])
                    };
                    let (Some(iz), Some(iy), Some(ix)) = (at(oz, tz, 0), at(oy, ty, 1), at(ox, tx, 2)) else {
                        continue;
                    };
                    if iz >= d || iy >= h || ix >= w {
                        continue;
                    }
                    f(opix, (tz * fh + ty) * fw + tx, ((n * d + iz) * h + iy) * w + ix);
                }
            }
        }
    }
    fn out_pixels(&self) -> usize {
        self.input[0] * self.out.iter().product::<usize>()
    }
}

fn window<'a>(strides: &'a [f64], dilations: &'a [f64], pad: &'a Padding) -> Window<'a> {
    Window { strides, dilations, pad, rounding: None }
}

/// 2-D conv with explicit padding `[top, left]` (bottom/right chosen to give `out`).
fn check_conv2d(e: &mut Engine, g: Geo, cout: usize, seed: u64) {
    let [b, _, h, w, cin] = g.input;
    let [_, fh, fw] = g.filter;
    let xv = random_values(b * h * w * cin, seed, -1.0, 1.0);
    let wv = random_values(fh * fw * cin * cout, seed + 1, -1.0, 1.0);
    let x = of(e, DType::Float32, &xv, &[b, h, w, cin]);
    let f = of(e, DType::Float32, &wv, &[fh, fw, cin, cout]);
    let eff = |a: usize| (g.filter[a] - 1) * g.dilations[a] + 1;
    let after = |a: usize| ((g.out[a] - 1) * g.strides[a] + eff(a)).saturating_sub(g.pad[a] + g.input[a + 1]);
    let pad = Padding::Explicit(vec![
        [0.0; 2],
        [g.pad[1] as f64, after(1) as f64],
        [g.pad[2] as f64, after(2) as f64],
        [0.0; 2],
    ]);
    let (s, d) = ([g.strides[1] as f64, g.strides[2] as f64], [g.dilations[1] as f64, g.dilations[2] as f64]);
    let y = e.conv(ConvKind::Conv2d, x, f, &window(&s, &d, &pad), false).unwrap();
    let mut want = vec![0.0; g.out_pixels() * cout];
    let (xv, wv): (Vec<f64>, Vec<f64>) =
        (xv.iter().map(|&v| v as f32 as f64).collect(), wv.iter().map(|&v| v as f32 as f64).collect());
    g.each(|o, t, i| {
        for co in 0..cout {
            want[o * cout + co] += (0..cin).map(|ci| xv[i * cin + ci] * wv[(t * cin + ci) * cout + co]).sum::<f64>();
        }
    });
    let got = values(e, y, &[b, g.out[1], g.out[2], cout], DType::Float32);
    assert_close(&got, &want, 1e-4);

    // The input gradient of the same convolution: dx[i] = sum over the windows that read i.
    let dyv = random_values(want.len(), seed + 2, -1.0, 1.0);
    let dy = of(e, DType::Float32, &dyv, &[b, g.out[1], g.out[2], cout]);
    if g.dilations == [1, 1, 1] {
        let shape = [b as i64, h as i64, w as i64, cin as i64];
        let dx = e.conv_transpose(2, &shape, dy, f, &window(&s, &[1.0], &pad)).unwrap();
        let mut want = vec![0.0; b * h * w * cin];
        let dyv: Vec<f64> = dyv.iter().map(|&v| v as f32 as f64).collect();
        g.each(|o, t, i| {
            for ci in 0..cin {
                want[i * cin + ci] +=
                    (0..cout).map(|co| dyv[o * cout + co] * wv[(t * cin + ci) * cout + co]).sum::<f64>();
            }
        });
        assert_close(&values(e, dx, &[b, h, w, cin], DType::Float32), &want, 1e-4);
        e.dispose(dx);
    }
    for t in [x, f, y, dy] {
        e.dispose(t);
    }
}

fn conv2d(e: &mut Engine) {
    let geo = |input, filter, strides, dilations, pad, out| Geo { input, filter, strides, dilations, pad, out };
    check_conv2d(e, geo([1, 1, 4, 4, 1], [1, 3, 3], [1, 1, 1], [1, 1, 1], [0, 0, 0], [1, 2, 2]), 1, 1);
    check_conv2d(e, geo([2, 1, 5, 6, 3], [1, 3, 2], [1, 1, 1], [1, 1, 1], [0, 1, 0], [1, 5, 5]), 4, 2);
    check_conv2d(e, geo([2, 1, 7, 6, 2], [1, 3, 3], [1, 2, 3], [1, 1, 1], [0, 1, 1], [1, 4, 2]), 3, 3);
    check_conv2d(e, geo([1, 1, 7, 7, 2], [1, 2, 3], [1, 1, 1], [1, 2, 2], [0, 1, 2], [1, 7, 7]), 2, 4);
    check_conv2d(e, geo([3, 1, 4, 5, 5], [1, 1, 1], [1, 1, 1], [1, 1, 1], [0, 0, 0], [1, 4, 5]), 6, 5);
    // Large enough for threads and several im2col blocks on the cpu backend.
    check_conv2d(e, geo([2, 1, 40, 40, 16], [1, 3, 3], [1, 1, 1], [1, 1, 1], [0, 1, 1], [1, 40, 40]), 40, 6);
}

fn conv3d_and_depthwise(e: &mut Engine) {
    // conv3d: [1, 3, 4, 4, 2] with a 2x2x2 filter, 'valid'.
    let g = Geo {
        input: [1, 3, 4, 4, 2],
        filter: [2, 2, 2],
        strides: [1; 3],
        dilations: [1; 3],
        pad: [0; 3],
        out: [2, 3, 3],
    };
    let (xv, wv) = (random_values(96, 7, -1.0, 1.0), random_values(8 * 2 * 3, 8, -1.0, 1.0));
    let x = of(e, DType::Float32, &xv, &g.input);
    let f = of(e, DType::Float32, &wv, &[2, 2, 2, 2, 3]);
    let y = e.conv(ConvKind::Conv3d, x, f, &window(&[1.0], &[1.0], &Padding::Valid), false).unwrap();
    let (xv, wv): (Vec<f64>, Vec<f64>) =
        (xv.iter().map(|&v| v as f32 as f64).collect(), wv.iter().map(|&v| v as f32 as f64).collect());
    let mut want = vec![0.0; 18 * 3];
    g.each(|o, t, i| {
        for co in 0..3 {
            want[o * 3 + co] += (0..2).map(|ci| xv[i * 2 + ci] * wv[(t * 2 + ci) * 3 + co]).sum::<f64>();
        }
    });
    assert_close(&values(e, y, &[1, 2, 3, 3, 3], DType::Float32), &want, 1e-5);

    // depthwise, multiplier 2, 'same' with stride 2: [1, 5, 5, 3] -> [1, 3, 3, 6], pads 1.
    let g = Geo {
        input: [1, 1, 5, 5, 3],
        filter: [1, 3, 3],
        strides: [1, 2, 2],
        dilations: [1; 3],
        pad: [0, 1, 1],
        out: [1, 3, 3],
    };
    let (xv, wv) = (random_values(75, 9, -1.0, 1.0), random_values(9 * 6, 10, -1.0, 1.0));
    let xd = of(e, DType::Float32, &xv, &[1, 5, 5, 3]);
    let fd = of(e, DType::Float32, &wv, &[3, 3, 3, 2]);
    let yd = e.conv(ConvKind::Depthwise2d, xd, fd, &window(&[2.0], &[1.0], &Padding::Same), false).unwrap();
    let (xv, wv): (Vec<f64>, Vec<f64>) =
        (xv.iter().map(|&v| v as f32 as f64).collect(), wv.iter().map(|&v| v as f32 as f64).collect());
    let mut want = vec![0.0; 9 * 6];
    g.each(|o, t, i| {
        for c in 0..3 {
            for q in 0..2 {
                want[o * 6 + c * 2 + q] += xv[i * 3 + c] * wv[t * 6 + c * 2 + q];
            }
        }
    });
    assert_close(&values(e, yd, &[1, 3, 3, 6], DType::Float32), &want, 1e-5);

    // tfjs's checks.
    fails(e, "Error in conv2d: filter must be rank 4, but got rank 5.", |e| {
        e.conv(ConvKind::Conv2d, xd, f, &window(&[1.0], &[1.0], &Padding::Valid), false)
    });
    fails(e, "Error in conv2D: Either strides or dilations must be 1. Got strides 2 and dilations '2'", |e| {
        e.conv(ConvKind::Conv2d, xd, fd, &window(&[2.0], &[2.0], &Padding::Valid), false)
    });
    fails(e, "Unknown padding parameter: ", |e| {
        e.conv(ConvKind::Conv3d, x, f, &window(&[1.0], &[1.0], &Padding::Explicit(vec![])), false)
    });
    for t in [x, f, y, xd, fd, yd] {
        e.dispose(t);
    }
}

fn pooling(e: &mut Engine) {
    // maxPool/avgPool 3x3 'same' stride 2 over [2, 5, 4, 3]: pads 1 above, none left.
    let g = Geo {
        input: [2, 1, 5, 4, 3],
        filter: [1, 3, 3],
        strides: [1, 2, 2],
        dilations: [1; 3],
        pad: [0, 1, 0],
        out: [1, 3, 2],
    };
    let mut xv = random_values(120, 11, -1.0, 1.0);
    xv[5] = f64::NAN; // NaN never wins a max
    let x = of(e, DType::Float32, &xv, &[2, 5, 4, 3]);
    let xv: Vec<f64> = xv.iter().map(|&v| v as f32 as f64).collect();
    let w = window(&[2.0], &[1.0], &Padding::Same);
    let n = g.out_pixels() * 3;
    let (mut max, mut sum, mut count, mut at) = (vec![f64::NEG_INFINITY; n], vec![0.0; n], vec![0.0; n], vec![-1.0; n]);
    g.each(|o, _, i| {
        for c in 0..3 {
            let v = xv[i * 3 + c];
            if v > max[o * 3 + c] {
                max[o * 3 + c] = v;
                at[o * 3 + c] = ((i % 20) * 3 + c) as f64;
            }
            sum[o * 3 + c] += v;
            count[o * 3 + c] += 1.0;
        }
    });
    let avg: Vec<f64> = sum.iter().zip(&count).map(|(s, c)| s / c).collect();
    let shape = [2, 3, 2, 3];
    let y = e.pool(PoolKind::Max2d, x, &[3.0], &w).unwrap();
    assert_close(&values(e, y, &shape, DType::Float32), &max, 0.0);
    let ya = e.pool(PoolKind::Avg2d, x, &[3.0], &w).unwrap();
    let got = values(e, ya, &shape, DType::Float32);
    // The window holding the NaN averages to NaN.
    assert_close(&got, &avg, 1e-6);
    let ids = e.max_pool_with_argmax(x, &[3.0], &w, false).unwrap();
    assert_eq!(values(e, ids[1], &shape, DType::Int32), at);
    let flat = e.reshape(x, &[-1]).unwrap();
    fails(e, "Error in avgPool3d: x must be rank 5 but got rank 1.", |e| e.pool(PoolKind::Avg3d, flat, &[2.0], &w));
    let xi = e.cast(x, DType::Int32).unwrap();
    fails(e, "Argument 'x' passed to 'avgPool' must be float32 tensor, but got int32 tensor", |e| {
        e.pool(PoolKind::Avg2d, xi, &[2.0], &w)
    });
    for t in [x, y, ya, ids[0], ids[1], xi, flat] {
        e.dispose(t);
    }
}

fn lrn_and_dilation(e: &mut Engine) {
    let xv = random_values(2 * 7, 12, -2.0, 2.0);
    let x = of(e, DType::Float32, &xv, &[1, 1, 2, 7]);
    let y = e.lrn(x, 2.0, 1.5, 0.3, 0.75).unwrap();
    let xv: Vec<f64> = xv.iter().map(|&v| v as f32 as f64).collect();
    let want: Vec<f64> = (0..14usize)
        .map(|i| {
            let (row, c) = (i / 7, i % 7);
            let s: f64 = (c.saturating_sub(2)..=(c + 2).min(6)).map(|j| xv[row * 7 + j].powi(2)).sum();
            xv[i] * (1.5f64 + 0.3 * s).powf(-0.75)
        })
        .collect();
    assert_close(&values(e, y, &[1, 1, 2, 7], DType::Float32), &want, 2e-6);

    // dilation2d: max of x + filter over 2x2 windows, 'valid'.
    let x2 = of(e, DType::Float32, &[1.0, 5.0, 2.0, 0.0, -1.0, 3.0, 4.0, 2.0, 6.0], &[1, 3, 3, 1]);
    let f2 = of(e, DType::Float32, &[0.0, 1.0, -1.0, 0.5], &[2, 2, 1]);
    let d = e.conv(ConvKind::Dilation2d, x2, f2, &window(&[1.0], &[1.0], &Padding::Valid), false).unwrap();
    assert_eq!(values(e, d, &[1, 2, 2, 1], DType::Float32), vec![6.0, 5.0, 3.0, 6.5]);
    for t in [x, y, x2, f2, d] {
        e.dispose(t);
    }
}

/// tf.separableConv2d: the depthwise convolution, then the 1x1 one (as composed by hand); a
/// rank-3 input is one image; tfjs's checks in its order; nothing left after an error.
fn separable_conv2d_composes_depthwise_and_pointwise(e: &mut Engine) {
    let f = DType::Float32;
    let x = of(e, f, &random_values(2 * 5 * 6 * 3, 81, -1.0, 1.0), &[2, 5, 6, 3]);
    let d = of(e, f, &random_values(2 * 2 * 3 * 2, 82, -1.0, 1.0), &[2, 2, 3, 2]);
    let p = of(e, f, &random_values(6 * 4, 83, -1.0, 1.0), &[1, 1, 6, 4]);
    let one = window(&[1.0], &[1.0], &Padding::Valid);
    for (strides, dilations, pad) in
        [([1.0], [1.0], Padding::Same), ([2.0], [1.0], Padding::Valid), ([1.0], [2.0], Padding::Same)]
    {
        let w = window(&strides, &dilations, &pad);
        let y = e.separable_conv2d(x, d, p, &w, "NHWC").unwrap();
        let dw = e.conv(ConvKind::Depthwise2d, x, d, &w, false).unwrap();
        let want = e.conv(ConvKind::Conv2d, dw, p, &one, false).unwrap();
        let shape = e.shape(want).unwrap().to_vec();
        assert_eq!(shape[3], 4);
        let want = values(e, want, &shape, f);
        assert_close(&values(e, y, &shape, f), &want, 1e-6);
    }
    // One image: the batch of one, without its batch dim.
    let same = Padding::Same;
    let w = window(&[1.0], &[1.0], &same);
    let x3 = e.reshape(x, &[10, 6, 3]).unwrap();
    let y3 = e.separable_conv2d(x3, d, p, &w, "NHWC").unwrap();
    let x4 = e.reshape(x, &[1, 10, 6, 3]).unwrap();
    let y4 = e.separable_conv2d(x4, d, p, &w, "NHWC").unwrap();
    let want = values(e, y4, &[1, 10, 6, 4], f);
    assert_eq!(values(e, y3, &[10, 6, 4], f), want);
    let p5 = of(e, f, &[0.0; 20], &[1, 1, 5, 4]);
    let p2 = of(e, f, &[0.0; 48], &[2, 1, 6, 4]);
    let flat = of(e, f, &[0.0; 24], &[6, 4]);
    let xi = e.cast(x, DType::Int32).unwrap();
    let pi = e.cast(p, DType::Int32).unwrap();
    fails(e, "separableConv2d currently does not support dataFormat NCHW; only NHWC is supported", |e| {
        e.separable_conv2d(x, d, p, &w, "NCHW")
    });
    fails(e, "Error in separableConv2d: input must be rank 4, but got rank 2.", |e| {
        e.separable_conv2d(flat, d, p, &w, "NHWC")
    });
    fails(e, "Error in separableConv2d: pointwise filter must be rank 4, but got rank 4.", |e| {
        e.separable_conv2d(x, d, flat, &w, "NHWC")
    });
    fails(e, "Error in separableConv2d: the first dimension of pointwise filter  must be 1, but got 2.", |e| {
        e.separable_conv2d(x, d, p2, &w, "NHWC")
    });
    fails(e, "Error in separableConv2d: the third dimension of pointwise filter must be 6, but got 5.", |e| {
        e.separable_conv2d(x, d, p5, &w, "NHWC")
    });
    fails(e, "Unknown dataFormat NWC", |e| e.separable_conv2d(x, d, p, &w, "NWC"));
    fails(e, "Argument 'x' passed to 'depthwiseConv2d' must be float32 tensor, but got int32 tensor", |e| {
        e.separable_conv2d(xi, d, p, &w, "NHWC")
    });
    // (after the depthwise step, as in tfjs: what it made is freed)
    fails(e, "Argument 'filter' passed to 'conv2d' must be float32 tensor, but got int32 tensor", |e| {
        e.separable_conv2d(x, d, pi, &w, "NHWC")
    });
}

/// tf.pool with dilated windows against direct loops: each output reads the taps `y + t * d`
/// (shifted back by half the dilated window for 'same'), a tap in the padding reading 0, as
/// spaceToBatchND's zero padding gives them (averages divide by the whole window).
fn dilated_pool_matches_the_reference(e: &mut Engine) {
    let (b, h, w, c) = (2, 7, 6, 3);
    let xv = random_values(b * h * w * c, 91, -1.0, 1.0);
    let x = of(e, DType::Float32, &xv, &[b, h, w, c]);
    for avg in [false, true] {
        for (f, d, same) in
            [([2, 3], [2, 1], true), ([3, 2], [2, 3], false), ([2, 2], [3, 3], true), ([1, 3], [1, 2], false)]
        {
            let (oh, ow) = if same { (h, w) } else { (h - (f[0] - 1) * d[0], w - (f[1] - 1) * d[1]) };
            let (sy, sx) =
                if same { (((f[0] - 1) * d[0] / 2) as isize, ((f[1] - 1) * d[1] / 2) as isize) } else { (0, 0) };
            let mut want = Vec::new();
            for n in 0..b {
                for y in 0..oh {
                    for xx in 0..ow {
                        for ch in 0..c {
                            let mut taps = Vec::new();
                            for ty in 0..f[0] {
                                for tx in 0..f[1] {
                                    let iy = (y + ty * d[0]) as isize - sy;
                                    let ix = (xx + tx * d[1]) as isize - sx;
                                    let inside = (0..h as isize).contains(&iy) && (0..w as isize).contains(&ix);
                                    let at = ((n * h + iy.max(0) as usize) * w + ix.max(0) as usize) * c + ch;
                                    taps.push(if inside { xv[at] as f32 as f64 } else { 0.0 });
                                }
                            }
                            want.push(if avg {
                                taps.iter().sum::<f64>() / taps.len() as f64
                            } else {
                                taps.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                            });
                        }
                    }
                }
            }
            let pad = if same { Padding::Same } else { Padding::Valid };
            let dil = [d[0] as f64, d[1] as f64];
            let win = window(&[1.0], &dil, &pad);
            let y = e.dilated_pool(avg, x, &[f[0] as f64, f[1] as f64], &win).unwrap();
            assert_close(&values(e, y, &[b, oh, ow, c], DType::Float32), &want, 1e-6);
            e.dispose(y);
        }
    }
    // Undilated: the plain pool, strides included; one image keeps its rank.
    let same = Padding::Same;
    let win = window(&[2.0], &[1.0], &same);
    let y = e.dilated_pool(false, x, &[2.0], &win).unwrap();
    let want = e.pool(PoolKind::Max2d, x, &[2.0], &win).unwrap();
    let want = values(e, want, &[b, 4, 3, c], DType::Float32);
    assert_eq!(values(e, y, &[b, 4, 3, c], DType::Float32), want);
    let x3 = e.reshape(x, &[(b * h) as i64, w as i64, c as i64]).unwrap();
    let win = window(&[1.0], &[2.0], &same);
    let y = e.dilated_pool(true, x3, &[2.0], &win).unwrap();
    assert_eq!(e.shape(y).unwrap(), [b * h, w, c]);
    let xi = e.cast(x, DType::Int32).unwrap();
    let y = e.dilated_pool(false, xi, &[2.0], &win).unwrap();
    assert_eq!(e.dtype(y).unwrap(), DType::Int32);
    fails(e, "Error in pool: Either strides or dilations must be 1. Got strides 2 and dilations '2,1'", |e| {
        e.dilated_pool(false, x, &[2.0], &window(&[2.0], &[2.0, 1.0], &same))
    });
    fails(e, "Argument 'x' passed to 'avgPool' must be float32 tensor, but got int32 tensor", |e| {
        e.dilated_pool(true, xi, &[2.0], &win)
    });
    let flat = e.reshape(x, &[(b * h * w) as i64, c as i64]).unwrap();
    fails(e, "input rank 2 should be > than [blockShape] 2", |e| e.dilated_pool(false, flat, &[2.0], &win));
    fails(e, "Error in pool: the dilated window 4294967295 is too large.", |e| {
        e.dilated_pool(false, x, &[u32::MAX as f64], &window(&[1.0], &[u32::MAX as f64], &same))
    });
}

backend_tests!(
    conv2d,
    conv3d_and_depthwise,
    pooling,
    lrn_and_dilation,
    separable_conv2d_composes_depthwise_and_pointwise,
    dilated_pool_matches_the_reference
);
