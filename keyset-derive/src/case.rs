//! Names between Rust's cases: a sort's wire name, a table's default name.

/// `most_liked` -> `MostLiked`, for the example in a message.
pub fn upper_camel(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, ch) in name.chars().enumerate() {
        if ch.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(ch.to_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_and_upper_camel_case() {
        assert_eq!(snake_case("ActivityEvent") + "s", "activity_events");
        assert_eq!(snake_case("MostRecent"), "most_recent");
        assert_eq!(upper_camel("most_recent"), "MostRecent");
        assert_eq!(upper_camel("_top__liked_"), "TopLiked");
    }
}
