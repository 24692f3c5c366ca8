//! Numbers as the reports print them.

/// `n` with thousands separators: 1,300,100.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A ratio with three significant figures at most: 1284, 15.4, 1.05.
#[allow(dead_code)] // Not every bench prints ratios.
pub fn ratio(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 10.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.2}")
    }
}
