//! The two pieces of a sort signature that do not come from the model's declaration: the
//! table's SQL name, read from Diesel, and the digest tokens carry.
//!
//! Diesel exposes a table's SQL name (with its schema) only as the `Debug` text of the static
//! component `diesel::table!` writes for it. [`sql_table_name`] is the one function that reads
//! that text. A Diesel release that printed it differently would change every sort signature
//! and so void every outstanding token: the tests below pin the text, and fail first.

use std::fmt::Debug;

use diesel::internal::table_macro::StaticQueryFragment;
use sha2::{Digest, Sha256};

/// The SQL name of table `T` as Diesel writes it, each part double-quoted (a `"` inside
/// doubled) and joined with `.`: `"events"`, `"archive"."events"`. What
/// [`Keyset::sql_table_name`](crate::Keyset::sql_table_name) returns for a derived keyset.
#[doc(hidden)]
pub fn sql_table_name<T>() -> String
where
    T: StaticQueryFragment,
    T::Component: Debug,
{
    sql_table_name_of(&format!("{:?}", T::STATIC_COMPONENT))
}

/// The SQL name in Diesel's `Debug` text of a table's static component: every
/// `Identifier("..")` in it, in order, each double-quoted, joined with `.`. The whole text
/// when it holds no identifier (a shape this does not know), empty for empty.
fn sql_table_name_of(component: &str) -> String {
    match table_parts_of(component) {
        Some(parts) => parts
            .iter()
            .map(|name| format!("\"{}\"", name.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join("."),
        None => component.to_string(),
    }
}

/// The parts of table `T`'s SQL name, unquoted, schema first: `["archive", "events"]`;
/// `None` when Diesel's `Debug` text holds no identifier this can read.
pub(crate) fn sql_table_parts<T>() -> Option<Vec<String>>
where
    T: StaticQueryFragment,
    T::Component: Debug,
{
    table_parts_of(&format!("{:?}", T::STATIC_COMPONENT))
}

/// Every `Identifier("..")` in `component`, in order, unescaped; `None` for none, or for a
/// string this cannot read.
fn table_parts_of(component: &str) -> Option<Vec<String>> {
    const MARK: &str = "Identifier(\"";
    let mut parts = Vec::new();
    let mut rest = component;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let (name, used) = unescape_debug_str(after)?;
        parts.push(name);
        rest = &after[used..];
    }
    (!parts.is_empty()).then_some(parts)
}

/// The string whose `Debug` text starts `text` (after its opening quote): the string and the
/// number of bytes up to and including the closing quote; `None` if it is not one.
fn unescape_debug_str(text: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, i + 1)),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                '0' => out.push('\0'),
                'u' => {
                    if chars.next()?.1 != '{' {
                        return None;
                    }
                    let mut hex = String::new();
                    loop {
                        match chars.next()?.1 {
                            '}' => break,
                            h => hex.push(h),
                        }
                    }
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other), // \\, \", \'
            },
            c => out.push(c),
        }
    }
    None
}

/// SHA-256 of a sort signature under a version label, first 16 bytes: the digest tokens carry
/// ([`Keyset::sort_signature_digest`](crate::Keyset::sort_signature_digest); the derive
/// caches it).
#[doc(hidden)]
pub fn digest(signature: &str) -> [u8; 16] {
    let digest = Sha256::new()
        .chain_update(b"keyset-diesel sort v1\0")
        .chain_update(signature.as_bytes())
        .finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    mod archive {
        diesel::table! { archive.events (id) { id -> BigInt } }
    }
    diesel::table! { events (id) { id -> BigInt } }
    diesel::table! {
        #[sql_name = "a\"b.c\\d"]
        odd (id) { id -> BigInt }
    }

    /// Diesel's `Debug` text of a table's static component, as this version prints it. If a
    /// Diesel upgrade fails this test, every sort signature (and every outstanding token)
    /// would change with it: read the name another way before upgrading.
    #[test]
    fn diesel_prints_a_tables_component_as_this_crate_reads_it() {
        let text = |c: &dyn Debug| format!("{c:?}");
        assert_eq!(
            text(<events::table as StaticQueryFragment>::STATIC_COMPONENT),
            r#"Identifier("events")"#
        );
        assert_eq!(
            text(<archive::events::table as StaticQueryFragment>::STATIC_COMPONENT),
            r#"InfixNode { lhs: Identifier("archive"), rhs: Identifier("events"), middle: "." }"#
        );
        assert_eq!(sql_table_name::<events::table>(), r#""events""#);
        assert_eq!(
            sql_table_name::<archive::events::table>(),
            r#""archive"."events""#
        );
        assert_eq!(sql_table_name::<odd::table>(), "\"a\"\"b.c\\d\"");
    }

    #[test]
    fn names_are_read_back_from_any_debug_string() {
        assert_eq!(
            sql_table_name_of(r#"Identifier("é\u{1}\"x\\y")"#),
            "\"é\u{1}\"\"x\\y\""
        );
        assert_eq!(sql_table_name_of(""), "");
        assert_eq!(sql_table_name_of("Unknown(1)"), "Unknown(1)");
        assert_eq!(
            sql_table_name_of(r#"Identifier("unterminated"#),
            r#"Identifier("unterminated"#
        );
    }

    /// The digest of a known signature, pinned: a change voids every outstanding token.
    #[test]
    fn the_digest_of_a_signature_is_pinned() {
        let hex: String =
            digest(r#"events@"events"(occurred_at:naive_datetime asc,event_id:text asc)"#)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
        assert_eq!(hex.len(), 32);
        assert_eq!(hex, PINNED_DIGEST);
    }

    /// The digest this crate has computed since its first token format (SHA-256 of the label
    /// and the signature, first 16 bytes, in hex).
    const PINNED_DIGEST: &str = "b29726d4184b518c80a19ca8774d5e32";
}
