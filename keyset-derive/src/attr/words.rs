//! The words of `#[keyset(..)]`, the examples its messages show, and the option a misspelt
//! word most likely meant.

/// Every option `#[keyset(..)]` accepts.
pub const OPTIONS: &[&str] = &[
    "asc",
    "desc",
    "unique",
    "nulls_first",
    "nulls_last",
    "exact_text",
];

/// A named sort as the messages show it.
pub const SORT_EXAMPLE: &str = "#[keyset(sort(Newest(created_at(desc), id(desc))))]";
/// How the model's own keyset names its index.
pub const INDEX_EXAMPLE: &str = "#[keyset(index = \"events_feed\")]";
/// How a named sort names its index.
pub const SORT_INDEX_EXAMPLE: &str =
    "#[keyset(sort(Newest(created_at(desc), id(desc), index = \"events_newest\")))]";

/// The option closest to `given` by edit distance, if it is close enough to be a typo, or the
/// option a spelt-out word starts with (`descending` -> `desc`).
pub fn closest(given: &str) -> Option<&'static str> {
    let given = given.to_ascii_lowercase();
    OPTIONS
        .iter()
        .map(|o| (edit_distance(&given, o), *o))
        .filter(|(d, o)| *d <= (o.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o)
        .or_else(|| {
            OPTIONS
                .iter()
                .filter(|o| given.starts_with(*o))
                .max_by_key(|o| o.len())
                .copied()
        })
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_the_closest_option() {
        assert_eq!(closest("ascc"), Some("asc"));
        assert_eq!(closest("uniqe"), Some("unique"));
        assert_eq!(closest("nulls_frist"), Some("nulls_first"));
        assert_eq!(closest("DESC"), Some("desc"));
        assert_eq!(closest("descending"), Some("desc"));
        assert_eq!(closest("ascending"), Some("asc"));
        assert_eq!(closest("nulls_first_please"), Some("nulls_first"));
        assert_eq!(closest("primary_key"), None);
        assert_eq!(closest("order"), None);
    }
}
