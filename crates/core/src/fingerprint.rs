//! TensorFlow's Fingerprint64: Google's farmhash `Fingerprint64` (farmhashna's Hash64), for
//! `tf.util.fingerPrint64` and StringToHashBucketFast. Written here because the `farmhash`
//! crate loops once too often on inputs of a multiple of 64 bytes above 64 (128, 192 ...),
//! where its values differ from TensorFlow's and tfjs's.

const K0: u64 = 0xc3a5c85c97cb3127;
const K1: u64 = 0xb492b66fbe98f273;
const K2: u64 = 0x9ae16a3b2f90404f;

fn fetch64(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or([0; 8]))
}

fn fetch32(s: &[u8], at: usize) -> u64 {
    u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or([0; 4])) as u64
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

fn hash_len16(u: u64, v: u64, mul: u64) -> u64 {
    let a = shift_mix((u ^ v).wrapping_mul(mul));
    let b = shift_mix((v ^ a).wrapping_mul(mul));
    b.wrapping_mul(mul)
}

fn hash_len0to16(s: &[u8]) -> u64 {
    let len = s.len();
    if len >= 8 {
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch64(s, 0).wrapping_add(K2);
        let b = fetch64(s, len - 8);
        let c = b.rotate_right(37).wrapping_mul(mul).wrapping_add(a);
        let d = a.rotate_right(25).wrapping_add(b).wrapping_mul(mul);
        return hash_len16(c, d, mul);
    }
    if len >= 4 {
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch32(s, 0);
        return hash_len16((len as u64).wrapping_add(a << 3), fetch32(s, len - 4), mul);
    }
    if len > 0 {
        let y = s[0] as u64 + ((s[len >> 1] as u64) << 8);
        let z = len as u64 + ((s[len - 1] as u64) << 2);
        return shift_mix(y.wrapping_mul(K2) ^ z.wrapping_mul(K0)).wrapping_mul(K2);
    }
    K2
}

fn hash_len17to32(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K1);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    hash_len16(
        a.wrapping_add(b).rotate_right(43).wrapping_add(c.rotate_right(30)).wrapping_add(d),
        a.wrapping_add(b.wrapping_add(K2).rotate_right(18)).wrapping_add(c),
        mul,
    )
}

fn hash_len33to64(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K2);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    let y = a.wrapping_add(b).rotate_right(43).wrapping_add(c.rotate_right(30)).wrapping_add(d);
    let z = hash_len16(y, a.wrapping_add(b.wrapping_add(K2).rotate_right(18)).wrapping_add(c), mul);
    let e = fetch64(s, 16).wrapping_mul(mul);
    let f = fetch64(s, 24);
    let g = y.wrapping_add(fetch64(s, len - 32)).wrapping_mul(mul);
    let h = z.wrapping_add(fetch64(s, len - 24)).wrapping_mul(mul);
    hash_len16(
        e.wrapping_add(f).rotate_right(43).wrapping_add(g.rotate_right(30)).wrapping_add(h),
        e.wrapping_add(f.wrapping_add(a).rotate_right(18)).wrapping_add(g),
        mul,
    )
}

/// farmhash's WeakHashLen32WithSeeds of the 32 bytes at `at`.
fn weak_hash32(s: &[u8], at: usize, a: u64, b: u64) -> (u64, u64) {
    let (w, x, y, z) = (fetch64(s, at), fetch64(s, at + 8), fetch64(s, at + 16), fetch64(s, at + 24));
    let a = a.wrapping_add(w);
    let b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
    let c = a;
    let a = a.wrapping_add(x).wrapping_add(y);
    let b = b.wrapping_add(a.rotate_right(44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

/// TensorFlow's Fingerprint64 of `s`.
pub fn fingerprint64(s: &[u8]) -> u64 {
    let len = s.len();
    if len <= 16 {
        return hash_len0to16(s);
    }
    if len <= 32 {
        return hash_len17to32(s);
    }
    if len <= 64 {
        return hash_len33to64(s);
    }
    const SEED: u64 = 81;
    let mut x = SEED;
    let mut y = SEED.wrapping_mul(K1).wrapping_add(113);
    let mut z = shift_mix(y.wrapping_mul(K2).wrapping_add(113)).wrapping_mul(K2);
    let (mut v, mut w) = ((0u64, 0u64), (0u64, 0u64));
    x = x.wrapping_mul(K2).wrapping_add(fetch64(s, 0));
    // The 64-byte blocks before the last (partial or whole) one, then the last 64 bytes.
    let end = ((len - 1) / 64) * 64;
    let last64 = len - 64;
    let mut at = 0;
    loop {
        x = x.wrapping_add(y).wrapping_add(v.0).wrapping_add(fetch64(s, at + 8)).rotate_right(37).wrapping_mul(K1);
        y = y.wrapping_add(v.1).wrapping_add(fetch64(s, at + 48)).rotate_right(42).wrapping_mul(K1);
        x ^= w.1;
        y = y.wrapping_add(v.0).wrapping_add(fetch64(s, at + 40));
        z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
        v = weak_hash32(s, at, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
        w = weak_hash32(s, at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch64(s, at + 16)));
        std::mem::swap(&mut z, &mut x);
        at += 64;
        if at == end {
            break;
        }
    }
    let mul = K1.wrapping_add((z & 0xff) << 1);
    at = last64;
    w.0 = w.0.wrapping_add((len as u64 - 1) & 63);
    v.0 = v.0.wrapping_add(w.0);
    w.0 = w.0.wrapping_add(v.0);
    x = x.wrapping_add(y).wrapping_add(v.0).wrapping_add(fetch64(s, at + 8)).rotate_right(37).wrapping_mul(mul);
    y = y.wrapping_add(v.1).wrapping_add(fetch64(s, at + 48)).rotate_right(42).wrapping_mul(mul);
    x ^= w.1.wrapping_mul(9);
    y = y.wrapping_add(v.0.wrapping_mul(9)).wrapping_add(fetch64(s, at + 40));
    z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(mul);
    v = weak_hash32(s, at, v.1.wrapping_mul(mul), x.wrapping_add(w.0));
    w = weak_hash32(s, at + 32, z.wrapping_add(w.1), y.wrapping_add(fetch64(s, at + 16)));
    std::mem::swap(&mut z, &mut x);
    hash_len16(
        hash_len16(v.0, w.0, mul).wrapping_add(shift_mix(y).wrapping_mul(K0)).wrapping_add(z),
        hash_len16(v.1, w.1, mul).wrapping_add(x),
        mul,
    )
}

#[cfg(test)]
mod tests {
    use super::fingerprint64;

    /// Google's farmhash (through PyPI's pyfarmhash 0.5.1, `farmhash.fingerprint64`) on bytes
    /// `(i * 37 + 11) & 255`.
    #[test]
    fn matches_googles_farmhash() {
        let bytes = |n: usize| (0..n).map(|i| ((i * 37 + 11) & 255) as u8).collect::<Vec<u8>>();
        let vectors: [(usize, u64); 24] = [
            (0, 0x9ae16a3b2f90404f),
            (1, 0x4271b80e2915c76a),
            (3, 0x373a2b2a12e0c581),
            (4, 0xcc1e778137ae6d69),
            (7, 0x960838fbc6d9c975),
            (8, 0x7d507025ed4eecfd),
            (15, 0x834f200cfa7ed95f),
            (16, 0xd836480326a974d6),
            (17, 0x5cded6cb65c9dac6),
            (31, 0x52a467e87c92d522),
            (32, 0xa03300e1b2be6da7),
            (33, 0x839154ca67815696),
            (63, 0x7cf64a4bd1b2b67e),
            (64, 0x000f03eac52d3535),
            (65, 0xfb360c5023f60db6),
            (100, 0x094bb5559bbb1375),
            (127, 0xd70e348fcbf64d04),
            (128, 0x33ef435f17af1739),
            (129, 0xc30a81b637d2e4dd),
            (191, 0x2b2780b79f9bd979),
            (192, 0xe277d6ad7892dd23),
            (200, 0x51320a19a60cbd6e),
            (256, 0x10102b86eca72cdb),
            (1000, 0xc6dbd344bb8f49f4),
        ];
        for (n, want) in vectors {
            assert_eq!(fingerprint64(&bytes(n)), want, "{n} bytes");
        }
    }
}
