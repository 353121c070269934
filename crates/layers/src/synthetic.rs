//! A synthetic classification problem for examples, tests and benchmarks: each class is a
//! random binary prototype, and each sample its class's prototype plus uniform noise, so the
//! classes are separable but not trivially so.

/// `(x: n × features, y: n × classes one-hot)`, row-major, the same for the same `seed`.
pub fn separable(n: usize, features: usize, classes: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut state = seed.wrapping_add(0x9E3779B97F4A7C15);
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 40) as f32) / (1u64 << 24) as f32
    };
    let prototypes: Vec<f32> = (0..classes * features).map(|_| if next() < 0.5 { 0.0 } else { 1.0 }).collect();
    let mut x = Vec::with_capacity(n * features);
    let mut y = vec![0f32; n * classes];
    for i in 0..n {
        let class = i % classes;
        y[i * classes + class] = 1.0;
        for f in 0..features {
            x.push(prototypes[class * features + f] * 0.6 + next() * 0.8 - 0.2);
        }
    }
    (x, y)
}
