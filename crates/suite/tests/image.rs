//! tf.image's colour conversions and threshold on every backend: values against direct
//! references (threshold's Otsu level against a brute-force search of the between-class
//! variance), dtypes, tfjs's errors, nothing left behind.

use tidytensor_core::{DType, Engine};
use tidytensor_suite::{assert_close, backend_tests, f32s, fails, i32s, values};

const LUMA: [f64; 3] = [0.2989, 0.5870, 0.1140];

fn grayscale_and_rgb(e: &mut Engine) {
    let g = i32s(e, &[1, 2, 3, 4], &[2, 2, 1]);
    let rgb = e.grayscale_to_rgb(g).unwrap();
    assert_eq!(values(e, rgb, &[2, 2, 3], DType::Int32), vec![1., 1., 1., 2., 2., 2., 3., 3., 3., 4., 4., 4.]);
    let px = [100.0, 100.0, 100.0, 10.0, 200.0, 30.0, 0.5, 0.25, 255.0];
    let f = f32s(e, &px.map(|v| v as f32), &[3, 3]);
    let gray = e.rgb_to_grayscale(f).unwrap();
    let want: Vec<f64> = px
        .chunks(3)
        .map(|p| p.iter().zip(LUMA).map(|(&v, w)| (v * w as f32 as f64) as f32 as f64).sum::<f64>())
        .collect();
    assert_close(&values(e, gray, &[3, 1], DType::Float32), &want, 1e-6);
    // int32 truncates what float32 computed: 100 * (0.2989 + 0.5870 + 0.1140) = 99.99.
    let i = e.cast(f, DType::Int32).unwrap();
    let gray = e.rgb_to_grayscale(i).unwrap();
    assert_eq!(values(e, gray, &[3, 1], DType::Int32), vec![99.0, 123.0, 29.0]);
    let flat = f32s(e, &[1.0, 2.0], &[2]);
    let two = f32s(e, &[1.0; 4], &[2, 2]);
    fails(e, "Error in grayscaleToRGB: images must be at least rank 2, but got rank 1.", |e| e.grayscale_to_rgb(flat));
    fails(e, "Error in grayscaleToRGB: last dimension of a grayscale image should be size 1, but got size 2.", |e| {
        e.grayscale_to_rgb(two)
    });
    fails(e, "Error in RGBToGrayscale: images must be at least rank 2, but got rank 1.", |e| e.rgb_to_grayscale(flat));
    fails(e, "Error in RGBToGrayscale: last dimension of an RGB image should be size 3, but got size 2.", |e| {
        e.rgb_to_grayscale(two)
    });
}

/// The level whose split of `hist` has the largest between-class variance (f64, by brute force).
fn otsu_ref(hist: &[f64]) -> f64 {
    let total: f64 = hist.iter().sum();
    let (mut best, mut best_var) = (-1.0, 0.0);
    for i in 0..hist.len() - 1 {
        let (n1, n2): (f64, f64) = (hist[..=i].iter().sum(), hist[i + 1..].iter().sum());
        let s1: f64 = hist[..=i].iter().enumerate().map(|(k, h)| k as f64 * h).sum();
        let s2: f64 = hist[i + 1..].iter().enumerate().map(|(k, h)| (k + i + 1) as f64 * h).sum();
        let var = (n1 / total) * (n2 / total) * (s1 / n1 - s2 / n2).powi(2);
        if var > best_var {
            best_var = var;
            best = i as f64;
        }
    }
    best
}

fn threshold_binary_and_otsu(e: &mut Engine) {
    let (h, w) = (6, 7);
    let px: Vec<f64> = (0..h * w).map(|i| ((i * 37 + (i >> 3) * 11) % 256) as f64).collect();
    let img = i32s(e, &px.iter().map(|&v| v as i32).collect::<Vec<_>>(), &[h, w, 1]);
    let limit = 0.37f32 * 255.0;
    for inverted in [false, true] {
        let y = e.threshold(img, "binary", inverted, 0.37).unwrap();
        let want: Vec<f64> = px.iter().map(|&v| if ((v as f32) > limit) != inverted { 255.0 } else { 0.0 }).collect();
        assert_eq!(values(e, y, &[h, w, 1], DType::Int32), want);
    }
    let mut hist = vec![0.0; 256];
    px.iter().for_each(|&v| hist[v as usize] += 1.0);
    let level = otsu_ref(&hist);
    let y = e.threshold(img, "otsu", false, 0.5).unwrap();
    let want: Vec<f64> = px.iter().map(|&v| if v > level { 255.0 } else { 0.0 }).collect();
    assert_eq!(values(e, y, &[h, w, 1], DType::Int32), want);
    // Three channels: their luma, in float32.
    let rgb: Vec<f32> = px.iter().flat_map(|&v| [v as f32, (255.0 - v) as f32, (v / 2.0) as f32]).collect();
    let img3 = f32s(e, &rgb, &[h, w, 3]);
    let y = e.threshold(img3, "binary", true, 0.5).unwrap();
    let want: Vec<f64> = rgb
        .chunks(3)
        .map(|p| {
            let [r, g, b] = [p[0] * LUMA[0] as f32, p[1] * LUMA[1] as f32, p[2] * LUMA[2] as f32];
            if r + g + b <= 0.5f32 * 255.0 {
                255.0
            } else {
                0.0
            }
        })
        .collect();
    assert_eq!(values(e, y, &[h, w, 1], DType::Int32), want);
    let flat = f32s(e, &[1.0; 4], &[2, 2]);
    let two = f32s(e, &[1.0; 8], &[2, 2, 2]);
    let flags = e.cast(img, DType::Bool).unwrap();
    let negative = f32s(e, &[-3.0; 4], &[2, 2, 1]);
    fails(e, "Error in threshold: image must be rank 3,but got rank 2.", |e| e.threshold(flat, "binary", false, 0.5));
    fails(e, "Error in threshold: image color channel must be equal to 3 or 1but got 2.", |e| {
        e.threshold(two, "binary", false, 0.5)
    });
    fails(e, "Error in dtype: image dtype must be int32 or float32,but got dtype bool.", |e| {
        e.threshold(flags, "binary", false, 0.5)
    });
    fails(e, "Method must be binary or otsu, but was mean", |e| e.threshold(img, "mean", false, 0.5));
    fails(e, "Input x must be non-negative!", |e| e.threshold(negative, "otsu", false, 0.5));
}

backend_tests!(grayscale_and_rgb, threshold_binary_and_otsu);
