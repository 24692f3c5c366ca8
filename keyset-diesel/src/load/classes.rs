//! SQLite storage classes of a page's key values: each page statement selects them beside
//! the row (`__keyset_class`, written by `query/statement.rs`), and the load compares them with
//! the class each key type binds before the rows go on to the page check
//! ([`KeysetError::StorageClassMismatch`]). SQLite orders every value of one class apart from
//! every value of another (NULL, then numbers, then text, then BLOBs) and compares a column with
//! a bind of another class the same way, so a cursor bound from a value stored in another class
//! than its key type binds would skip rows or come back to them. PostgreSQL and MySQL pages read
//! no such column (a union page's branches write `0`)
//! (their columns hold one type): nothing to compare.

use crate::error::KeysetError;
use crate::key::class::{bound_class, class_name, Bound, NULL};
use crate::key::KeyTuple;
use crate::keyset::{column_name, Keyset};
use crate::query::shape::Unmeasured;
use crate::query::CLASS_COLUMNS;

/// The classes a page's rows are compared with, worked out at the first row that carries any
/// (on SQLite; never on the other backends).
struct Expected<K: Keyset> {
    classes: Option<Vec<Option<(Bound, bool)>>>,
    keyset: std::marker::PhantomData<K>,
}

impl<K: Keyset> Expected<K> {
    fn new() -> Self {
        Expected {
            classes: None,
            keyset: std::marker::PhantomData,
        }
    }

    /// Compares one row's class codes with the classes its key types bind.
    ///
    /// # Errors
    /// [`KeysetError::StorageClassMismatch`] for the first key column whose class differs.
    fn check(&mut self, codes: i32) -> Result<(), KeysetError> {
        if codes == 0 {
            return Ok(());
        }
        let bound = self.classes.get_or_insert_with(|| {
            (0..K::COLUMNS.len().min(CLASS_COLUMNS))
                .map(|i| bound_class(&<K::Key as KeyTuple>::type_tag(i)))
                .collect()
        });
        for (i, bound) in bound.iter().enumerate() {
            let found = u8::try_from((codes >> (3 * i)) & 0b111).unwrap_or(0);
            let Some((class, nullable)) = *bound else {
                continue;
            };
            let class = class.code();
            let agrees = found == 0 || found == class || (found == NULL && nullable);
            if !agrees {
                return Err(KeysetError::StorageClassMismatch {
                    column: column_name::<K>(i),
                    found: class_name(found),
                    expected: class_name(class),
                });
            }
        }
        Ok(())
    }
}

/// A page statement's rows without their classes, each checked.
///
/// # Errors
/// [`KeysetError::StorageClassMismatch`] for the first row holding a key value of another class.
pub(crate) fn rows<K: Keyset>(rows: Vec<(K, i32)>) -> Result<Vec<K>, KeysetError> {
    let mut bound = Expected::<K>::new();
    rows.into_iter()
        .map(|(row, codes)| bound.check(codes).map(|()| row))
        .collect()
}

/// A page statement's rows with the total count, without their classes, each checked.
///
/// # Errors
/// As [`rows`].
pub(crate) fn counted_rows<K: Keyset>(
    rows: Vec<(K, i32, i64)>,
) -> Result<Vec<(K, i64)>, KeysetError> {
    let mut bound = Expected::<K>::new();
    rows.into_iter()
        .map(|(row, codes, total)| bound.check(codes).map(|()| (row, total)))
        .collect()
}

/// A union's rows without their classes; the page rows' (kind 0) checked (the probe and count
/// rows are read, never delivered nor bound).
///
/// # Errors
/// As [`rows`].
#[allow(clippy::type_complexity)]
pub(crate) fn union<K: Keyset>(
    rows: Vec<(K, K::Key, i32, i32)>,
) -> Result<Vec<(K, K::Key, i32)>, KeysetError> {
    let mut bound = Expected::<K>::new();
    rows.into_iter()
        .map(|(row, key, kind, codes)| {
            let codes = if kind == 0 { codes } else { 0 };
            bound.check(codes).map(|()| (row, key, kind))
        })
        .collect()
}

/// A union's rows with the total count, without their classes; checked as [`union`]'s.
///
/// # Errors
/// As [`rows`].
#[allow(clippy::type_complexity)]
pub(crate) fn counted_union<K: Keyset>(
    rows: Vec<(K, K::Key, i32, i32, i64)>,
) -> Result<Vec<(K, K::Key, i32, i64)>, KeysetError> {
    let mut bound = Expected::<K>::new();
    rows.into_iter()
        .map(|(row, key, kind, codes, total)| {
            let codes = if kind == 0 { codes } else { 0 };
            bound.check(codes).map(|()| (row, key, kind, total))
        })
        .collect()
}

/// A byte budget's probe rows on SQLite with their storage classes split off their sizes (the
/// probe writes them in bits 32 and up, `query/budget.rs`), each checked: the rows that fit
/// bound the page (its last key is the page's far end), so a key of another class would bound
/// it in the wrong place.
///
/// # Errors
/// As [`rows`].
pub(crate) fn sizes<Q, K: Keyset>(
    _page: &Unmeasured<Q, K>,
    rows: &[(K::Key, i64)],
) -> Result<Vec<(K::Key, i64)>, KeysetError> {
    let mut bound = Expected::<K>::new();
    rows.iter()
        .map(|(key, v)| {
            let codes = i32::try_from(v >> 32).unwrap_or(-1);
            bound.check(codes).map(|()| (key.clone(), v & 0xFFFF_FFFF))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::class::{binds_text, BLOB, NUMBER, TEXT};

    diesel::table! { rows (id) { id -> Text, at -> Nullable<Text>, score -> Double } }

    #[derive(
        Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_derive::Keyset,
    )]
    #[diesel(table_name = rows)]
    struct Row {
        #[keyset(asc, nulls_last)]
        at: Option<String>,
        #[keyset(desc)]
        score: f64,
        #[keyset(asc, unique)]
        id: String,
    }

    fn row() -> Row {
        Row {
            at: None,
            score: 1.5,
            id: "a".into(),
        }
    }

    /// The code of one row: column `i`'s class in bits `3i..3i+3`.
    fn codes(classes: [u8; 3]) -> i32 {
        classes
            .iter()
            .enumerate()
            .map(|(i, c)| i32::from(*c) << (3 * i))
            .sum()
    }

    #[test]
    fn rows_of_the_classes_their_key_types_bind_pass_and_lose_their_codes() {
        let good = vec![
            (row(), codes([TEXT, NUMBER, TEXT])),
            (row(), codes([NULL, NUMBER, TEXT])),
            // PostgreSQL and MySQL write 0.
            (row(), 0),
        ];
        assert_eq!(rows(good), Ok(vec![row(), row(), row()]));
    }

    #[test]
    fn a_key_value_of_another_class_names_its_column_and_both_classes() {
        // A REAL Julian day beside text timestamps (a key read as text).
        let julian = vec![
            (row(), codes([TEXT, NUMBER, TEXT])),
            (row(), codes([NUMBER, NUMBER, TEXT])),
        ];
        assert_eq!(
            rows(julian),
            Err(KeysetError::StorageClassMismatch {
                column: "at",
                found: "INTEGER or REAL",
                expected: "TEXT",
            })
        );
        // A BLOB in the tie-breaker; a NULL in a column that is not nullable.
        assert_eq!(
            counted_rows(vec![(row(), codes([TEXT, NUMBER, BLOB]), 7)]),
            Err(KeysetError::StorageClassMismatch {
                column: "id",
                found: "BLOB",
                expected: "TEXT",
            })
        );
        assert_eq!(
            rows(vec![(row(), codes([TEXT, NULL, TEXT]))]),
            Err(KeysetError::StorageClassMismatch {
                column: "score",
                found: "NULL",
                expected: "INTEGER or REAL",
            })
        );
    }

    #[test]
    fn the_values_the_statement_found_of_the_bound_class_pass() {
        // 0: the statement found the class the key type binds (or a number a `String` key's
        // bind is converted to).
        assert!(rows(vec![(row(), 0), (row(), codes([0, 0, 0]))]).is_ok());
        assert!(rows(vec![(row(), codes([0, NUMBER, 0]))]).is_ok());
        assert!(rows(vec![(row(), codes([0, 0, NUMBER]))]).is_err());
        assert!(binds_text("nullable<text>") && !binds_text("naive_datetime"));
    }

    #[test]
    fn a_unions_probe_and_count_rows_are_not_compared() {
        let key = (None, 1.5, "a".to_string());
        let odd = codes([BLOB, TEXT, NUMBER]);
        assert!(union(vec![
            (row(), key.clone(), 1, odd),
            (row(), key.clone(), 2, odd)
        ])
        .is_ok());
        assert!(union(vec![(row(), key.clone(), 0, odd)]).is_err());
        assert!(counted_union(vec![(row(), key.clone(), 0, odd, 3)]).is_err());
        assert_eq!(
            counted_union(vec![(row(), key.clone(), 2, odd, 3)]),
            Ok(vec![(row(), key, 2, 3)])
        );
    }

    #[test]
    fn the_bound_classes_follow_the_type_tags() {
        assert_eq!(bound_class("text"), Some((Bound::Text, false)));
        assert_eq!(bound_class("nullable<i64>"), Some((Bound::Number, true)));
        assert_eq!(bound_class("naive_datetime"), Some((Bound::Text, false)));
        assert_eq!(bound_class("bool"), Some((Bound::Number, false)));
        assert_eq!(bound_class("bytes"), Some((Bound::Blob, false)));
        assert_eq!(bound_class("enum<Mood>"), None);
    }
}
