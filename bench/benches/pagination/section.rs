//! The instruction-count section of `docs/PERFORMANCE.md` (section 2a), written by the
//! `instructions` target between two markers. The `pagination` target rewrites the rest of
//! the file and keeps this section as it finds it; the `instructions` target replaces only
//! this section.

/// The line that opens the section.
pub const START: &str = "<!-- section 2a: written by `bash scripts/bench.sh instructions` -->";
/// The line that closes it.
pub const END: &str = "<!-- end of section 2a -->";
/// The heading the section goes before when the file has none yet.
const NEXT: &str = "## 3. Tokens";

/// The section in `doc`, both markers included, if it has one.
#[allow(dead_code)] // Used by the `pagination` target only.
pub fn extract(doc: &str) -> Option<&str> {
    let start = doc.find(START)?;
    let end = start + doc[start..].find(END)? + END.len();
    Some(&doc[start..end])
}

/// `doc` with its section replaced by `section` (which starts with [`START`] and ends with
/// [`END`]); without one, `section` goes before section 3, or at the end.
#[allow(dead_code)] // Used by the `instructions` target only.
pub fn replace(doc: &str, section: &str) -> String {
    if let Some(old) = extract(doc) {
        return doc.replacen(old, section, 1);
    }
    match doc.find(NEXT) {
        Some(at) => format!("{}{section}\n\n{}", &doc[..at], &doc[at..]),
        None => format!("{}\n\n{section}\n", doc.trim_end()),
    }
}
