//! Numbers and lists as JavaScript prints them, for tfjs's error texts.

/// A number as JavaScript's `toString` writes it (the seed strings tfjs makes of numbers).
pub fn number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-6..1e21).contains(&a) {
        // Rust's shortest round-trip digits, as JavaScript's, in plain notation.
        return format!("{x}");
    }
    let s = format!("{x:e}");
    match s.split_once('e') {
        Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
        _ => s,
    }
}

/// A list as JavaScript's `${list}` prints it (`1,2.5,NaN`).
pub fn list(v: &[f64]) -> String {
    v.iter().map(|&x| number(x)).collect::<Vec<_>>().join(",")
}
