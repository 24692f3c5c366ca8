//! Keysets the unit tests share: three on one table, derived as a user derives them.

use crate::cursor::Cursor;

diesel::table! { feed (id) { id -> BigInt, at -> Timestamp, name -> Text } }

/// (at DESC, name ASC, id ASC): a 3-column key.
#[derive(Debug, Clone, PartialEq, keyset_derive::Keyset)]
#[diesel(table_name = feed)]
pub struct Row {
    #[keyset(desc)]
    pub at: chrono::NaiveDateTime,
    #[keyset(asc)]
    pub name: String,
    #[keyset(asc, unique)]
    pub id: i64,
}

/// The same table by `id ASC` only.
#[derive(Debug, Clone, PartialEq, keyset_derive::Keyset)]
#[diesel(table_name = feed)]
pub struct ById(
    #[keyset(asc, unique)]
    #[diesel(column_name = id)]
    pub i64,
);

/// The same table by its text column: another key type, another sort signature.
#[derive(Debug, Clone, PartialEq, keyset_derive::Keyset)]
#[diesel(table_name = feed)]
pub struct ByIdText(
    #[keyset(asc, unique)]
    #[diesel(column_name = name)]
    pub String,
);

/// `after (2025-10-10T12:00:02.123456, "e103", 103)`.
pub fn cursor() -> Cursor<Row> {
    let at = chrono::DateTime::from_timestamp(1_760_097_602, 123_456_000)
        .unwrap()
        .naive_utc();
    Cursor::after((at, "e103".to_string(), 103))
}
