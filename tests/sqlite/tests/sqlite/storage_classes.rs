//! SQLite storage classes (`keyset_diesel::guide::keys_and_limits`, "SQLite storage
//! classes"): a key value stored in another class than its key type binds is refused with
//! `StorageClassMismatch` on the page that reads it, forward and backward, at page sizes 1 to 3,
//! with and without a byte budget measured in SQL, before any row repeats or is lost; with one
//! class stored, every walk is the `ORDER BY`.

use diesel::prelude::*;
use keyset_diesel::{Cursor, KeysetError, PaginateDsl};
use keyset_test_suites::TestDb;

diesel::table! { class_events (id) { id -> BigInt, at -> Timestamp } }
diesel::table! { class_tags (id) { id -> BigInt, label -> Text } }
diesel::table! { class_nums (id) { id -> BigInt, n -> BigInt } }
diesel::table! { class_floats (id) { id -> BigInt, n -> Double } }

/// `n ASC, id ASC`: an `f64` key over a column declared `TEXT`.
#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = class_floats)]
struct FloatText {
    #[keyset(asc)]
    n: f64,
    #[keyset(asc, unique)]
    id: i64,
}

/// `n ASC, id ASC`: an integer key over a column declared `TEXT`.
#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = class_nums)]
struct NumText {
    #[keyset(asc)]
    n: i64,
    #[keyset(asc, unique)]
    id: i64,
}

/// `at ASC, id ASC` over a `DATETIME` column (NUMERIC affinity: text that is not a number
/// stays text, a Julian day stays REAL).
#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = class_events)]
struct EventAt {
    #[keyset(asc)]
    at: chrono::NaiveDateTime,
    #[keyset(asc, unique)]
    id: i64,
}

/// `label ASC, id ASC` over a column declared without a type (any class, kept as written)
/// or as `TEXT`.
#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = class_tags)]
struct TagLabel {
    #[keyset(asc)]
    label: String,
    #[keyset(asc, unique)]
    id: i64,
}

/// Walks `$model` over its whole table forward or backward at `$size`: the ids delivered,
/// in walk order, and the error that stopped the walk (a walk of more pages than rows is a
/// failure of its own).
macro_rules! walk {
    ($conn:expr, $model:ty, $table:ident, $size:expr, $backward:expr, $budget:expr) => {{
        let mut ids: Vec<i64> = Vec::new();
        let mut cursor: Option<Cursor<$model>> = None;
        let mut error = None;
        for _ in 0..20 {
            let query = $table::table.select(<$model>::as_select());
            let paginated = if $backward {
                query.paginate_before(cursor.clone()).page_size($size)
            } else {
                query.paginate_after(cursor.clone()).page_size($size)
            };
            let read = match $budget {
                None => paginated.load_page($conn),
                // A byte budget measured in SQL: its probe bounds the page by the last
                // key that fits (`length(CAST(id AS BLOB))`: 1 byte a row here).
                Some(max) => paginated.max_bytes_in_sql(max, $table::id).load_page($conn),
            };
            let page = match read {
                Ok(page) => page,
                Err(e) => {
                    error = Some(
                        KeysetError::from_diesel(&e)
                            .cloned()
                            .unwrap_or_else(|| panic!("a typed error, got {e:?}")),
                    );
                    break;
                }
            };
            let more = if $backward {
                page.has_previous_page
            } else {
                page.has_next_page
            };
            // A backward page lists its rows in the keyset's order: the walk's is reversed.
            let mut delivered: Vec<i64> = page.items.iter().map(|r| r.id).collect();
            if $backward {
                delivered.reverse();
            }
            ids.extend(delivered);
            cursor = if $backward {
                page.start_cursor
            } else {
                page.end_cursor
            };
            if !more {
                break;
            }
        }
        (ids, error)
    }};
}

/// Every walk of `$model`: the ids it delivered are a prefix of the database's order
/// (`$order`, reversed for a backward walk) and it stops with `$error`; with `$error`
/// `None`, it delivers the whole order.
macro_rules! assert_walks {
    ($conn:expr, $model:ty, $table:ident, $order:expr, $error:expr) => {{
        let order: Vec<i64> = $conn.ids(&format!(
            "SELECT id FROM {} ORDER BY {}",
            stringify!($table),
            $order
        ));
        for backward in [false, true] {
            let mut order = order.clone();
            if backward {
                order.reverse();
            }
            for (size, budget) in (1..=3_u32).flat_map(|size| {
                [None, Some(2_usize), Some(1_000_000)].map(|budget| (size, budget))
            }) {
                let (ids, error) = walk!($conn, $model, $table, size, backward, budget);
                let how = format!("page size {size}, backward {backward}, budget {budget:?}");
                assert_eq!(error, $error, "{how}: {ids:?} of {order:?}");
                match &$error {
                    None => assert_eq!(ids, order, "{how}"),
                    Some(_) => assert!(
                        order.starts_with(&ids) && ids.len() < order.len(),
                        "{how}: {ids:?} is a proper prefix of {order:?}"
                    ),
                }
            }
        }
    }};
}

#[test]
fn a_julian_day_beside_text_timestamps_is_a_typed_error() {
    let mut db = diesel::SqliteConnection::open();
    db.exec("CREATE TABLE class_events (id INTEGER PRIMARY KEY, at DATETIME NOT NULL)");
    // Two Julian days before the text timestamps: the database's order (REAL before TEXT)
    // is the order of the times, so the page check saw nothing, and a cursor after row 1
    // bound as text (`at > '2023-12-30 10:00:00'`) skipped row 2, silently. (Not at noon:
    // a whole Julian day becomes an INTEGER in a NUMERIC column, as numeric a class.)
    db.exec(
        "INSERT INTO class_events VALUES (1, julianday('2023-12-30 10:00:00')), \
         (2, julianday('2023-12-31 10:00:00')), (3, '2024-01-01 10:00:00'), \
         (4, '2024-01-02 10:00:00'), (5, '2024-01-03 10:00:00')",
    );
    let conn: &mut diesel::SqliteConnection = &mut db;
    assert_eq!(
        conn.ids("SELECT id FROM class_events WHERE typeof(at) = 'real'"),
        vec![1, 2],
        "the Julian days are stored as REAL"
    );
    let error = Some(KeysetError::StorageClassMismatch {
        column: "at",
        found: "INTEGER or REAL",
        expected: "TEXT",
    });
    assert_walks!(conn, EventAt, class_events, "at ASC, id ASC", error);
    conn.exec("UPDATE class_events SET at = datetime(at) WHERE typeof(at) = 'real'");
    assert_walks!(
        conn,
        EventAt,
        class_events,
        "at ASC, id ASC",
        None::<KeysetError>
    );
}

/// A `TEXT` column read by an integer key: its affinity turns the bind 10 into `'10'`, so
/// text equal to the number's own text compares as `ORDER BY` and pages without a false
/// alarm; `'007'` (read as 7, bound as `'7'`) is refused.
#[test]
fn text_a_text_columns_affinity_makes_of_an_integer_bind_is_no_false_alarm() {
    let mut db = diesel::SqliteConnection::open();
    db.exec("CREATE TABLE class_nums (id INTEGER PRIMARY KEY, n TEXT NOT NULL)");
    db.exec("INSERT INTO class_nums VALUES (1, 30), (2, '10'), (3, 20), (4, '40'), (5, 10)");
    let conn: &mut diesel::SqliteConnection = &mut db;
    assert_walks!(
        conn,
        NumText,
        class_nums,
        "n ASC, id ASC",
        None::<KeysetError>
    );
    conn.exec("INSERT INTO class_nums VALUES (6, '007')");
    let padded = Some(KeysetError::StorageClassMismatch {
        column: "n",
        found: "TEXT",
        expected: "INTEGER or REAL",
    });
    assert_walks!(conn, NumText, class_nums, "n ASC, id ASC", padded);
}

/// An `f64` key over a `TEXT` column binds a REAL, which the column turns into `'10.0'`:
/// stored `'10.0'` pages, stored `'10'` does not (a cursor after the first `'10'` bound as
/// `'10.0'` skipped the second: the integer reading of the text let it pass, found in
/// review).
#[test]
fn float_keys_over_text_are_refused_unless_the_text_is_the_bind() {
    let mut db = diesel::SqliteConnection::open();
    db.exec("CREATE TABLE class_floats (id INTEGER PRIMARY KEY, n TEXT NOT NULL)");
    db.exec("INSERT INTO class_floats VALUES (1, '10.0'), (2, '10.0'), (3, '11.5'), (4, 12.0)");
    let conn: &mut diesel::SqliteConnection = &mut db;
    assert_walks!(
        conn,
        FloatText,
        class_floats,
        "n ASC, id ASC",
        None::<KeysetError>
    );
    conn.exec("UPDATE class_floats SET n = '10' WHERE id IN (1, 2)");
    let integral = Some(KeysetError::StorageClassMismatch {
        column: "n",
        found: "TEXT",
        expected: "INTEGER or REAL",
    });
    assert_walks!(conn, FloatText, class_floats, "n ASC, id ASC", integral);
}

#[test]
fn integers_and_blobs_beside_text_are_a_typed_error() {
    let mut db = diesel::SqliteConnection::open();
    // No declared type: every value keeps the class it was written in.
    db.exec("CREATE TABLE class_tags (id INTEGER PRIMARY KEY, label NOT NULL)");
    db.exec(
        "INSERT INTO class_tags VALUES (1, 'b'), (2, 10), (3, 'a'), (4, 'c'), (5, 20), \
         (6, '5'), (7, 'd')",
    );
    let conn: &mut diesel::SqliteConnection = &mut db;
    let integer = Some(KeysetError::StorageClassMismatch {
        column: "label",
        found: "INTEGER or REAL",
        expected: "TEXT",
    });
    // Integers before text (10, 20, '5', 'a', ..), in the order of their text too: a
    // cursor after 10 bound as text (`label > '10'`) skipped 20, silently.
    assert_walks!(conn, TagLabel, class_tags, "label ASC, id ASC", integer);
    conn.exec("UPDATE class_tags SET label = CAST(label AS TEXT)");
    assert_walks!(
        conn,
        TagLabel,
        class_tags,
        "label ASC, id ASC",
        None::<KeysetError>
    );

    // A column declared `STRING` (NUMERIC affinity) keeps `'10'` as the integer 10, and
    // converts the bind `'10'` to 10 before it compares: the seek compares as `ORDER BY`,
    // and every walk is correct, so none is refused.
    conn.exec("DROP TABLE class_tags");
    conn.exec("CREATE TABLE class_tags (id INTEGER PRIMARY KEY, label STRING NOT NULL)");
    conn.exec(
        "INSERT INTO class_tags VALUES (1, 'b'), (2, '10'), (3, 'a'), (4, 'c'), (5, 20), \
         (6, '5'), (7, 'd'), (8, 2.5)",
    );
    assert_eq!(
        conn.ids("SELECT id FROM class_tags WHERE typeof(label) <> 'text' ORDER BY id"),
        vec![2, 5, 6, 8],
        "numbers stored as numbers"
    );
    assert_walks!(
        conn,
        TagLabel,
        class_tags,
        "label ASC, id ASC",
        None::<KeysetError>
    );

    // A BLOB in a TEXT column (written as a blob: TEXT affinity converts numbers, not
    // blobs).
    conn.exec("DROP TABLE class_tags");
    conn.exec("CREATE TABLE class_tags (id INTEGER PRIMARY KEY, label TEXT NOT NULL)");
    conn.exec("INSERT INTO class_tags VALUES (1, 'b'), (2, x'63'), (3, 'a'), (4, 'c'), (5, 'e')");
    let blob = Some(KeysetError::StorageClassMismatch {
        column: "label",
        found: "BLOB",
        expected: "TEXT",
    });
    assert_walks!(conn, TagLabel, class_tags, "label ASC, id ASC", blob);
}
