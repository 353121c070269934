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

#[cfg(test)]
mod tests {
    #[test]
    fn javascript_number_strings() {
        for (x, s) in
            [(42.0, "42"), (0.5, "0.5"), (-3.25, "-3.25"), (1e21, "1e+21"), (1.5e-7, "1.5e-7"), (1e-6, "0.000001")]
        {
            assert_eq!(super::number(x), s);
        }
        assert_eq!(super::list(&[1.0, f64::NAN, -0.5]), "1,NaN,-0.5");
    }
}
