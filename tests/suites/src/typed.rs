//! One-column keysets (plus the `id` tie-breaker) over `typed_rows`, one per supported key
//! type, and the test that pages each of them exactly: [`every_key_type_pages_exactly`].
//!
//! Partner: `tests/models/src/typed.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.
//!
//! The table's columns differ per backend (`Timestamptz` vs `TimestamptzSqlite`, `Uuid` on
//! PostgreSQL only, no `timestamptz` on MySQL), so `typed_backend!` declares the table, its
//! insertable row and its models from one column list per backend, in the modules
//! [`sqlite`], [`postgres`] and [`mysql`] (each behind its feature). The values come from the
//! functions here, adjacent at the database's precision (1 µs apart, last UUID byte, 0.0001,
//! one ulp).

pub use keyset_test_models::typed::*;

/// Every key type pages exactly, walked with several page sizes, boxed and not, through
/// tokens; `NaiveDateTime` keys 1 µs apart are read back as written (MySQL: the column is
/// `DATETIME(6)`), and `f64` / `f32` keys one ulp apart bit for bit (MariaDB `FLOAT`
/// included).
pub fn every_key_type_pages_exactly<C: TypedKeys>() {
    let mut db = C::open();
    let written = db.insert_typed_rows();
    db.check_every_key_model();
    let stored = db.stored_precise();
    assert_eq!(
        stored.timestamps, written.timestamps,
        "timestamps to the microsecond"
    );
    assert_eq!(stored.f64_bits, written.f64_bits, "f64 bit for bit");
    assert_eq!(stored.f32_bits, written.f32_bits, "f32 bit for bit");
    assert_eq!(
        stored.times, written.times,
        "times of day to the microsecond"
    );
}

/// A cursor holding a NaN (built by hand: pages never end on one, tokens never decode to one)
/// is refused before any SQL runs, boxed or not, with `KeysetError::InvalidCursorKey` naming
/// the column.
pub fn nan_cursor_is_a_typed_error<C: TypedKeys>() {
    use keyset_diesel::KeysetError;
    let mut db = C::open();
    db.insert_typed_rows();
    for boxed in [false, true] {
        let error = db
            .page_after_nan(boxed)
            .expect_err("a NaN cursor must be refused");
        assert!(
            matches!(error, diesel::result::Error::QueryBuilderError(_)),
            "{error:?}"
        );
        assert!(
            matches!(
                KeysetError::from_diesel(&error),
                Some(KeysetError::InvalidCursorKey {
                    column: "k_f64",
                    ..
                })
            ),
            "{error:?}"
        );
    }
}

/// Every `time` key type pages exactly, walked with several page sizes, boxed and not, through
/// tokens, against the database's own `ORDER BY`; the values come back as written (to the
/// microsecond; `OffsetDateTime` as the same instant).
pub fn every_time_key_type_pages_exactly<C: TimeKeys>() {
    let mut db = C::open();
    let written = db.insert_time_rows();
    db.check_every_time_model();
    assert_eq!(db.stored_time_values(), written, "time values as written");
}

/// A `time::Time` key Diesel 2.4 cannot bind on this backend (`update_sql` writes such values,
/// `refused_sql` selects their ids): the walk delivers every row up to and including the first
/// such row exactly as `ORDER BY` does, and the next page is refused before any SQL runs with
/// `KeysetError::InvalidCursorKey` naming `t_time`, instead of a seek from another value.
pub fn unbindable_time_cursor_is_a_typed_error<M, C>(update_sql: &str, refused_sql: &str)
where
    M: crate::models::Walk<C, Filter = i32> + crate::models::Oracle,
    C: TimeKeys,
{
    use keyset_diesel::KeysetError;
    let mut db = C::open();
    db.insert_time_rows();
    db.exec(update_sql);
    let refused = db.ids(refused_sql);
    assert!(!refused.is_empty(), "the update wrote unbindable values");
    let expected = db.ids(&crate::oracle::oracle_sql::<M, C>("0"));
    let first = expected
        .iter()
        .position(|id| refused.contains(id))
        .expect("a refused row in the walk");
    let (walked, error) = walk_until_error::<M, C>(&mut db);
    assert_eq!(walked, expected[..=first], "the rows before the refusal");
    assert!(
        matches!(
            KeysetError::from_diesel(&error),
            Some(KeysetError::InvalidCursorKey {
                column: "t_time",
                ..
            })
        ),
        "{error:?}"
    );
}

/// A cursor finer than the column: cursors the application builds between stored values
/// (`Cursor::after`, `Cursor::before`, `.until(..)`), at page sizes 1 to 3. A timestamp or time of
/// day 500 ns after a stored one is bound exactly on SQLite (chrono writes every digit), so the
/// page is the one Rust computes; PostgreSQL and MySQL keep microseconds and Diesel binds whole
/// ones, so the cursor is refused before any SQL with `InvalidCursorKey` naming the column (it used
/// to seek from the truncated value: `KeyOutOfOrder` blaming the stored rows, or an empty page). A
/// decimal with more digits than `NUMERIC(p,s)` keeps compares exactly on PostgreSQL and MySQL, so
/// it pages; on SQLite, which binds an `f64`, it is refused.
pub fn built_cursor_finer_than_the_column<C: TypedKeys>() {
    use keyset_diesel::KeysetError;
    let mut db = C::open();
    db.insert_typed_rows();
    let reads = db.built_cursor_reads();
    assert_eq!(
        reads.len(),
        6 * 4 * 3 * 3,
        "every model, position, page size and bound"
    );
    for read in reads {
        let column = if read.label.starts_with("Ts") {
            "k_ts"
        } else if read.label.starts_with("Time") {
            "k_time"
        } else {
            "k_dec"
        };
        let refused = match C::NAME {
            "SQLite" => column == "k_dec",
            _ => column != "k_dec",
        };
        if refused {
            let error = read.got.expect_err(&read.label);
            assert!(
                matches!(error, diesel::result::Error::QueryBuilderError(_)),
                "{}: {error:?}",
                read.label
            );
            assert!(
                matches!(
                    KeysetError::from_diesel(&error),
                    Some(KeysetError::InvalidCursorKey { column: c, .. }) if *c == column
                ),
                "{}: {error:?}",
                read.label
            );
        } else {
            let got = read.got.unwrap_or_else(|e| panic!("{}: {e:?}", read.label));
            assert_eq!(got, read.expected, "{}", read.label);
        }
    }
}
