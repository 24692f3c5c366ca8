//! The one rule for the identifiers the example stores and looks up (workspace ids, member
//! names, event ids): [`check_identifier`]. Export ids are the export store's own (32 lowercase
//! hex digits; keyset-diesel answers any other id as unknown before a query).
//!
//! Why a rule at the edge as well as exact columns: a database compares under a collation, and
//! collations call different strings equal (case, accents, and on MariaDB's `_bin` collations
//! trailing spaces). The migrations make every identifier column exact, and an id with
//! spaces at either end, control or invisible characters, or a decomposed accent is refused
//! before it reaches SQL, so that no spelling of an id another collation, a later migration or
//! a copied schema might fold into another tenant's is ever stored or looked up.

/// The longest identifier, in characters: the identifier columns are `VARCHAR(64)`.
pub const MAX_IDENTIFIER_CHARS: usize = 64;

/// Why [`check_identifier`] refused an identifier. The message never repeats the identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdentifierError {
    /// The empty string.
    #[error("the identifier is empty")]
    Empty,
    /// More than [`MAX_IDENTIFIER_CHARS`] characters.
    #[error("the identifier is longer than {MAX_IDENTIFIER_CHARS} characters")]
    TooLong,
    /// Whitespace (a space, a tab, a no-break space, any Unicode `White_Space`) at the start
    /// or the end.
    #[error("the identifier starts or ends with whitespace")]
    EdgeWhitespace,
    /// A control character (`U+0000..U+001F`, `U+007F..U+009F`) anywhere.
    #[error("the identifier holds a control character")]
    Control,
    /// A character that displays as nothing (a soft hyphen, a zero-width space or joiner, a
    /// bidirectional control, a byte order mark): the id would look like another.
    #[error("the identifier holds an invisible character")]
    Invisible,
    /// Not in Unicode normalization form C (`e` followed by U+0301 instead of `é`): the same
    /// text as its composed form, in other bytes.
    #[error("the identifier is not in Unicode normalization form C")]
    NotNfc,
}

/// Whether `id` is a canonical identifier, the only spelling the example stores or looks up:
/// 1 to [`MAX_IDENTIFIER_CHARS`] characters, no whitespace at either end, no control or
/// invisible character, in Unicode normalization form C. Whitespace inside (`Team A`) is kept.
///
/// ```
/// use keyset_feed_server::{check_identifier, IdentifierError};
///
/// assert_eq!(check_identifier("W9"), Ok(()));
/// assert_eq!(check_identifier("Caf\u{e9}"), Ok(()));
/// assert_eq!(check_identifier("W9 "), Err(IdentifierError::EdgeWhitespace));
/// assert_eq!(check_identifier("Cafe\u{301}"), Err(IdentifierError::NotNfc));
/// ```
///
/// # Errors
/// The [`IdentifierError`] of the first rule `id` breaks, in the order of its variants.
pub fn check_identifier(id: &str) -> Result<(), IdentifierError> {
    if id.is_empty() {
        return Err(IdentifierError::Empty);
    }
    if id.chars().count() > MAX_IDENTIFIER_CHARS {
        return Err(IdentifierError::TooLong);
    }
    if id.starts_with(char::is_whitespace) || id.ends_with(char::is_whitespace) {
        return Err(IdentifierError::EdgeWhitespace);
    }
    if id.chars().any(char::is_control) {
        return Err(IdentifierError::Control);
    }
    if id.chars().any(invisible) {
        return Err(IdentifierError::Invisible);
    }
    if !unicode_normalization::is_nfc(id) {
        return Err(IdentifierError::NotNfc);
    }
    Ok(())
}

/// The format characters that display as nothing: the soft hyphen, the combining grapheme
/// joiner, the Mongolian vowel separator, the zero-width space, joiners and direction marks,
/// the bidirectional embeddings, overrides and isolates, the word joiner and invisible
/// operators, and the byte order mark.
fn invisible(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{034F}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule, and its edge: what passes next to what does not.
    #[test]
    fn canonical_identifiers_only() {
        for good in [
            "W9",
            "w9",
            "member-w9",
            "Team A",
            "Caf\u{e9}",
            "\u{c5}ngstr\u{f6}m",
            "\u{6771}\u{4eac}",
            "a",
            &"x".repeat(MAX_IDENTIFIER_CHARS),
            // 64 characters of two bytes each: the limit counts characters, as VARCHAR(64).
            &"\u{e9}".repeat(MAX_IDENTIFIER_CHARS),
        ] {
            assert_eq!(check_identifier(good), Ok(()), "{good:?}");
        }
        for (bad, why) in [
            ("", IdentifierError::Empty),
            (
                &"x".repeat(MAX_IDENTIFIER_CHARS + 1),
                IdentifierError::TooLong,
            ),
            ("W9 ", IdentifierError::EdgeWhitespace),
            (" W9", IdentifierError::EdgeWhitespace),
            ("W9\t", IdentifierError::EdgeWhitespace),
            ("W9\n", IdentifierError::EdgeWhitespace),
            ("W9\u{a0}", IdentifierError::EdgeWhitespace),
            ("\u{3000}W9", IdentifierError::EdgeWhitespace),
            (" ", IdentifierError::EdgeWhitespace),
            ("W\u{0}9", IdentifierError::Control),
            ("W\u{1b}9", IdentifierError::Control),
            ("W\u{85}9", IdentifierError::Control),
            ("W9\u{200b}", IdentifierError::Invisible),
            ("W\u{ad}9", IdentifierError::Invisible),
            ("\u{feff}W9", IdentifierError::Invisible),
            ("W\u{202e}9", IdentifierError::Invisible),
            ("Cafe\u{301}", IdentifierError::NotNfc),
            ("A\u{30a}ngstr\u{f6}m", IdentifierError::NotNfc),
            // U+212B ANGSTROM SIGN is canonically U+00C5: its NFC is another character.
            ("\u{212b}", IdentifierError::NotNfc),
        ] {
            assert_eq!(check_identifier(bad), Err(why), "{bad:?}");
        }
    }

    /// The refusal never repeats the identifier (it may be logged or answered).
    #[test]
    fn refusals_do_not_echo_the_identifier() {
        let e = check_identifier("secret-name ").unwrap_err();
        assert!(!e.to_string().contains("secret-name"), "{e}");
    }
}
