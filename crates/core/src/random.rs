//! tfjs's random number generators, value for value: seedrandom's Alea generator seeded with
//! the seed's string, the Marsaglia polar method for normals (tfjs's `MPRandGauss`), and
//! Marsaglia and Tsang's method for gammas (`RandGamma`). The same seed gives the same values
//! as `@tensorflow/tfjs`, and models initialised from Rust match tfjs's.

/// JavaScript's ToUint32 of a finite number.
fn to_uint32(x: f64) -> f64 {
    x.trunc().rem_euclid(4294967296.0)
}

/// seedrandom's `Mash`: folds a string (its UTF-16 code units) into the generator state.
struct Mash {
    n: f64,
}

impl Mash {
    fn new() -> Mash {
        Mash { n: 4022871197.0 } // 0xefc8249d
    }

    fn hash(&mut self, data: &str) -> f64 {
        for unit in data.encode_utf16() {
            self.n += unit as f64;
            let mut h = 0.02519603282416938 * self.n;
            self.n = to_uint32(h);
            h -= self.n;
            h *= self.n;
            self.n = to_uint32(h);
            h -= self.n;
            self.n += h * 4294967296.0;
        }
        to_uint32(self.n) * 2.3283064365386963e-10
    }
}

/// seedrandom's Alea: uniform doubles in [0, 1).
pub(crate) struct Alea {
    s0: f64,
    s1: f64,
    s2: f64,
    c: f64,
}

impl Alea {
    pub(crate) fn new(seed: &str) -> Alea {
        let mut mash = Mash::new();
        let mut s = [mash.hash(" "), mash.hash(" "), mash.hash(" ")];
        for v in &mut s {
            *v -= mash.hash(seed);
            if *v < 0.0 {
                *v += 1.0;
            }
        }
        Alea { s0: s[0], s1: s[1], s2: s[2], c: 1.0 }
    }

    pub(crate) fn next(&mut self) -> f64 {
        let t = 2091639.0 * self.s0 + self.c * 2.3283064365386963e-10;
        self.s0 = self.s1;
        self.s1 = self.s2;
        // `t | 0`: t is below 2^31 and non-negative, so the integer cast is exact (and, unlike
        // `trunc`, a single instruction on every x86-64).
        self.c = t as i32 as f64;
        self.s2 = t - self.c;
        self.s2
    }
}

/// A seed for an unseeded generator: a random double's string, as tfjs uses `Math.random()`.
pub(crate) fn random_seed() -> String {
    use rand::{rngs::StdRng, Rng, SeedableRng};
    crate::js::number(StdRng::from_os_rng().random::<f64>())
}

/// tfjs's `MPRandGauss`: normals in pairs by the polar method; truncated ones beyond two
/// standard deviations are redrawn. `round` gives integers (Math.round) for int32 tensors.
pub(crate) struct Gauss {
    rng: Alea,
    mean: f64,
    std_dev: f64,
    truncated: bool,
    round: bool,
    next: Option<f64>,
}

impl Gauss {
    pub(crate) fn new(mean: f64, std_dev: f64, truncated: bool, round: bool, seed: &str) -> Gauss {
        Gauss { rng: Alea::new(seed), mean, std_dev, truncated, round, next: None }
    }

    /// Within two standard deviations of the mean. The bounds are ordered, so a negative
    /// standard deviation truncates too (tfjs's bounds cross and its loop never ends).
    fn valid(&self, v: f64) -> bool {
        let (a, b) = (self.mean + self.std_dev * 2.0, self.mean - self.std_dev * 2.0);
        !self.truncated || (v <= a.max(b) && v >= a.min(b))
    }

    fn convert(&self, v: f64) -> f64 {
        if self.round {
            (v + 0.5).floor()
        } else {
            v
        }
    }

    /// `n` samples. Untruncated, the uniform draws and rejections run in order (they are the
    /// stream) and the logarithms, the costly part, run afterwards on all cores: the same
    /// values as `sample` one by one.
    pub(crate) fn fill(&mut self, n: usize) -> Vec<f64> {
        const MIN_PAIRS_PER_THREAD: usize = 16384;
        if self.truncated || self.next.is_some() || n < 2 * MIN_PAIRS_PER_THREAD {
            return (0..n).map(|_| self.sample()).collect();
        }
        let pairs: Vec<(f64, f64, f64)> = (0..n.div_ceil(2))
            .map(|_| loop {
                let v1 = 2.0 * self.rng.next() - 1.0;
                let v2 = 2.0 * self.rng.next() - 1.0;
                let s = v1 * v1 + v2 * v2;
                if s < 1.0 && s != 0.0 {
                    break (v1, v2, s);
                }
            })
            .collect();
        let mut out = vec![0.0; pairs.len() * 2];
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).clamp(1, 8);
        let chunk = pairs.len().div_ceil(threads).max(MIN_PAIRS_PER_THREAD);
        let this = &*self;
        std::thread::scope(|scope| {
            for (p, o) in pairs.chunks(chunk).zip(out.chunks_mut(2 * chunk)) {
                scope.spawn(move || {
                    for (&(v1, v2, s), o) in p.iter().zip(o.chunks_exact_mut(2)) {
                        let mul = (-2.0 * s.ln() / s).sqrt();
                        o[0] = this.convert(this.mean + this.std_dev * v1 * mul);
                        o[1] = this.convert(this.mean + this.std_dev * v2 * mul);
                    }
                });
            }
        });
        out.truncate(n);
        out
    }

    pub(crate) fn sample(&mut self) -> f64 {
        if let Some(v) = self.next.take() {
            return v;
        }
        let (x, y) = loop {
            let (v1, v2, s) = loop {
                let v1 = 2.0 * self.rng.next() - 1.0;
                let v2 = 2.0 * self.rng.next() - 1.0;
                let s = v1 * v1 + v2 * v2;
                if s < 1.0 && s != 0.0 {
                    break (v1, v2, s);
                }
            };
            let mul = (-2.0 * s.ln() / s).sqrt();
            let (x, y) = (self.mean + self.std_dev * v1 * mul, self.mean + self.std_dev * v2 * mul);
            // An unbounded loop for NaN bounds, as in tfjs, is cut short: NaN is the answer.
            if self.valid(x) || x.is_nan() {
                break (x, y);
            }
        };
        if self.valid(y) {
            self.next = Some(self.convert(y));
        }
        self.convert(x)
    }
}

/// tfjs's `RandGamma` (Marsaglia and Tsang): the uniform stream seeded with the seed, the
/// normal stream with the stream's first value; samples scaled by `beta`.
pub(crate) struct Gamma {
    u: Alea,
    n: Gauss,
    alpha: f64,
    beta: f64,
    d: f64,
    c: f64,
    round: bool,
}

impl Gamma {
    pub(crate) fn new(alpha: f64, beta: f64, round: bool, seed: &str) -> Gamma {
        let mut u = Alea::new(seed);
        let n = Gauss::new(0.0, 1.0, false, round, &crate::js::number(u.next()));
        let d = if alpha < 1.0 { alpha + 2.0 / 3.0 } else { alpha - 1.0 / 3.0 };
        Gamma { u, n, alpha, beta, d, c: 1.0 / (9.0 * d).sqrt(), round }
    }

    pub(crate) fn sample(&mut self) -> f64 {
        let mut v;
        loop {
            let mut x;
            loop {
                x = self.n.sample();
                v = 1.0 + self.c * x;
                if v > 0.0 || v.is_nan() {
                    break;
                }
            }
            v = v * v * v;
            let x2 = x * x;
            // tfjs's constant (Marsaglia and Tsang's is 0.0331): a slower squeeze, the same
            // distribution, and tfjs's values.
            let v0 = 1.0 - 0.331 * x2 * x2;
            let v1 = 0.5 * x2 + self.d * (1.0 - v + v.ln());
            let u = self.u.next();
            if u < v0 || u.ln() < v1 || v.is_nan() {
                break;
            }
        }
        v *= self.beta * self.d;
        if self.alpha < 1.0 {
            v *= self.u.next().powf(1.0 / self.alpha);
        }
        if self.round {
            (v + 0.5).floor()
        } else {
            v
        }
    }
}
