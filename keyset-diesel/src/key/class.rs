//! The SQLite storage class each key value type binds, and the codes a page statement's
//! `__keyset_class` column reports (written by `query/statement.rs`, read by
//! `load/classes.rs`).

/// The class codes of `__keyset_class`, three bits per key column: the value's class, or 0 for
/// a value of another class that the column's affinity compares equal to its key's bind.
pub(crate) const NULL: u8 = 1;
pub(crate) const NUMBER: u8 = 2;
pub(crate) const TEXT: u8 = 3;
pub(crate) const BLOB: u8 = 4;

/// The storage class a key type binds on SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// INTEGER or REAL (SQLite orders and compares them together).
    Number,
    /// TEXT.
    Text,
    /// BLOB.
    Blob,
}

impl Bound {
    pub(crate) const fn code(self) -> u8 {
        match self {
            Bound::Number => NUMBER,
            Bound::Text => TEXT,
            Bound::Blob => BLOB,
        }
    }
}

/// A class code's name, as SQLite's documentation writes it.
pub(crate) fn class_name(code: u8) -> &'static str {
    match code {
        NULL => "NULL",
        NUMBER => "INTEGER or REAL",
        TEXT => "TEXT",
        BLOB => "BLOB",
        _ => "an unknown class",
    }
}

/// Whether a key type with type tag `tag` binds its value's own text (`String`, `Option<String>`),
/// so that a column's numeric affinity converts the bind as it converted the stored value.
pub(crate) fn binds_text(tag: &str) -> bool {
    matches!(tag, "text" | "nullable<text>")
}

/// For a numeric key type with type tag `tag`, the SQL type (` AS INTEGER`, ` AS REAL`) that
/// reads a `TEXT` column's text as the number the key binds, so that text equal to it under
/// the column's affinity is accepted: integers and `bool` bind an INTEGER, `f64` and
/// `BigDecimal` a REAL (`'10.0'` for 10.0); `None` for `f32` (bound widened to a double, whose
/// text is not the stored one) and every other type.
pub(crate) fn text_read_as(tag: &str) -> Option<&'static str> {
    let inner = tag
        .strip_prefix("nullable<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(tag);
    match inner {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "bool" => Some(" AS INTEGER"),
        "f64" | "decimal" => Some(" AS REAL"),
        _ => None,
    }
}

/// The class a key type with type tag `tag` ([`KeyValue::type_tag`](crate::query::KeyValue::type_tag))
/// binds on SQLite, and whether it admits NULL (an `Option`); `None` for a type this crate
/// does not know the SQLite binding of (a key value type of your own under another tag), whose
/// class is not compared.
pub(crate) fn bound_class(tag: &str) -> Option<(Bound, bool)> {
    let (inner, nullable) = match tag
        .strip_prefix("nullable<")
        .and_then(|t| t.strip_suffix('>'))
    {
        Some(inner) => (inner, true),
        None => (tag, false),
    };
    let class = match inner {
        // Diesel binds timestamps, dates and times as text on SQLite.
        "text" | "naive_datetime" | "datetime_utc" | "date" | "time" => Bound::Text,
        // `bool` as an integer, `BigDecimal` as a double.
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "bool" | "f32" | "f64"
        | "decimal" => Bound::Number,
        "bytes" => Bound::Blob,
        _ => return None,
    };
    Some((class, nullable))
}
