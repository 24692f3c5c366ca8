//! Errors of the query builder side (the token side has [`crate::token::CursorError`]).

/// Why a page could not be built or trusted.
///
/// `load_page` returns it inside a Diesel error; get it back with [`KeysetError::from_diesel`]:
/// * inside `diesel::result::Error::QueryBuilderError` when the query is refused before any SQL
///   runs ([`InvalidPageSize`](Self::InvalidPageSize), [`AlreadyOrdered`](Self::AlreadyOrdered),
///   [`AlreadyLimited`](Self::AlreadyLimited), [`InvalidCursorKey`](Self::InvalidCursorKey));
/// * inside `diesel::result::Error::DeserializationError` when the page check finds the rows
///   read cannot make a correct page ([`TieBreakerNotUnique`](Self::TieBreakerNotUnique),
///   [`CollationEqualKeys`](Self::CollationEqualKeys),
///   [`CursorRowReturned`](Self::CursorRowReturned), [`KeyOutOfOrder`](Self::KeyOutOfOrder),
///   [`InvalidRowKey`](Self::InvalidRowKey), [`StorageClassMismatch`](Self::StorageClassMismatch)).
///   The check compares each fetched row's key with the next one, and the first with the
///   cursor, inside the `page_size + 1` rows the page query reads anyway (no extra query), so
///   it fires on the page where a walk meets the fault, instead of a page repeating or losing
///   rows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeysetError {
    /// The page size was 0. A page holds at least one row.
    #[error("invalid page size {0}: a page holds at least 1 row")]
    InvalidPageSize(u32),
    /// A boxed query already had an `ORDER BY`. Its order would be silently replaced by the
    /// keyset's, so it is refused: drop the `.order(..)` (the keyset supplies the order).
    #[error("the query already has an ORDER BY: remove .order(..), the keyset supplies the order")]
    AlreadyOrdered,
    /// A boxed query already had a `LIMIT` or `OFFSET`, which would cut pages wrongly: drop
    /// `.limit(..)` / `.offset(..)` and use `.page_size(n)`.
    #[error("the query already has a LIMIT or OFFSET: remove it and use .page_size(n)")]
    AlreadyLimited,
    /// A boxed query has PostgreSQL's `DISTINCT ON`, which keyset pages cannot page correctly:
    /// it keeps the first row of each group in the query's own order, and the page's seek
    /// would re-admit the rest of the cursor's group ([limits](crate::guide::keys_and_limits#limits)). Refused before any
    /// SQL runs (an unboxed query does not compile). Page the reduced rows instead: a
    /// `GROUP BY` with aggregates, or a view that keeps one row per group.
    #[error(
        "the query has DISTINCT ON, which keyset pages cannot page correctly: page a GROUP BY \
         or a view that keeps one row per group instead"
    )]
    DistinctOn,
    /// A page with a byte budget the database measures
    /// ([`Paginated::max_bytes_in_sql`](crate::Paginated::max_bytes_in_sql)) on a `SELECT
    /// DISTINCT` query: its budget probe would count a duplicated row once per copy, so the
    /// page could stop between two copies of one row. Refused before any SQL runs. Page the
    /// distinct rows through a `GROUP BY`, or measure in Rust with
    /// [`Paginated::max_bytes`](crate::Paginated::max_bytes).
    #[error(
        "max_bytes_in_sql cannot measure a SELECT DISTINCT query: use GROUP BY, or measure in \
         Rust with max_bytes"
    )]
    DistinctByteBudget,
    /// A byte budget ([`Paginated::max_bytes`](crate::Paginated::max_bytes) or
    /// [`max_bytes_in_sql`](crate::Paginated::max_bytes_in_sql)) or
    /// [`flags_only`](crate::Paginated::flags_only) on a query with a locking clause (`FOR
    /// UPDATE`, `SKIP LOCKED`, ..): a locking page delivers every row it locks, and these would
    /// lock rows they do not deliver (or measure rows skipped under the lock). Refused before
    /// any SQL runs: give a locking page a page size alone
    /// ([work queues](crate::guide::read_contracts#work-queues-locking-pages)).
    #[error(
        "a locking page delivers every row it locks: a byte budget or flags_only would lock \
         rows it does not deliver; give the locking query a page size alone"
    )]
    LockingPageCut,
    /// A page of a query with a locking clause (`FOR UPDATE`, `SKIP LOCKED`, ..) loaded with
    /// `load_page`. A locking page reads `LIMIT page_size` rows under the lock, so it locks
    /// exactly the rows it delivers, and reads its look-ahead with a copy of the query that
    /// takes no lock; `load_page` does not ask for a query that can be copied (a boxed query
    /// cannot), so it refuses before any SQL runs. Load the page with `load_locked_page`
    /// ([work queues](crate::guide::read_contracts#work-queues-locking-pages)).
    #[error(
        "a query with a locking clause loads its pages with load_locked_page, which locks only \
         the rows it delivers (load_page would lock its look-ahead row)"
    )]
    LockingQuery,
    /// Two rows of the page query have the same key (every key column equal): the tie-breaker
    /// is not unique in the query's rows, so a cursor cannot name one row and a walk would
    /// lose the rows sharing a key with a page's last row. Causes: a column marked `unique`
    /// without a unique constraint (a timestamp with ties), or a join that repeats each row of
    /// the keyset's table (one-to-many). Fix: end the keyset with a column unique in the
    /// query's rows (the primary key; over a join, the key of the table whose rows the join
    /// repeats), or add the unique constraint.
    #[error(
        "two rows have the same key: the tie-breaker `{tie_breaker}` is not unique in the \
         query's rows (no unique constraint, or a join repeating rows); end the keyset with a \
         column unique per row of the query, e.g. the primary key of the table the join repeats"
    )]
    TieBreakerNotUnique {
        /// The SQL name of the keyset's last column.
        tie_breaker: &'static str,
    },
    /// Two adjacent rows of the page query have keys that differ only in text column
    /// `column`, by what a collation may ignore (letter case, accents, Unicode normalization,
    /// compatibility forms, trailing spaces, characters outside the Basic Multilingual Plane):
    /// `a` / `A`, `é` / `e` + U+0301, `x` / `x `, and the column's collation calls them equal.
    /// The database sorts and seeks text under the column's collation (the crate adds no
    /// `COLLATE`); two values it calls equal make the tie-breaker not unique under it, the
    /// `ORDER BY` leaves their order open and a strict seek from one skips the other. The page
    /// asks the database about such a pair (one statement per pair, only on a page that holds
    /// one), so a collation that tells them apart (PostgreSQL's deterministic collations such
    /// as the default, SQLite `BINARY`, MariaDB's NO PAD binary ones) pages without an error;
    /// a key on an SQL expression or on a joined table's column cannot be asked about on the
    /// keyset's table, and such a pair is refused unasked, as is a pair whose earlier row is
    /// gone when the question runs ([text keys and
    /// collations](crate::guide::keys_and_limits#text-keys-and-collations)). Fix: make the
    /// tie-breaker unique under its collation (a `UNIQUE` constraint on the column refuses such
    /// pairs); for an expression key under an exact collation whose values really are
    /// distinct, say so with `#[keyset(.., exact_text)]` on the column.
    #[error(
        "two rows' keys differ only in text column `{column}` by case, accents, Unicode \
         normalization or trailing spaces, and its collation calls them equal (or the \
         database could not be asked): the tie-breaker `{tie_breaker}` is not unique under it \
         and a page could skip a row; make the tie-breaker unique under the column's \
         collation (a UNIQUE constraint), or, for a key on an expression whose collation is \
         exact, say so with #[keyset(.., exact_text)] on it"
    )]
    CollationEqualKeys {
        /// The SQL name of the text column whose values differ only that way.
        column: &'static str,
        /// The SQL name of the keyset's last column.
        tie_breaker: &'static str,
    },
    /// The first row after the cursor has the cursor's own key: the seek is strict, so the
    /// database holds a different value than the one Rust read and bound back (a key value
    /// that does not survive the round trip), and the walk would return that row again and
    /// again. Fix: store values the key field's type represents exactly (see
    /// [`KeyOutOfOrder`](Self::KeyOutOfOrder)).
    #[error(
        "the cursor's own row came back after the cursor: a key value does not survive the \
         round trip to Rust and back (e.g. a REAL in an INTEGER column read as i32, a \
         TINYINT(1) holding 2 read as bool); make the column hold only values its Rust type \
         represents (a CHECK constraint, or migrate the values) or use a Rust type that reads \
         them exactly"
    )]
    CursorRowReturned,
    /// A row came back before the previous row (or the cursor) in keyset order, though the
    /// page query orders by the keyset: key column `column` holds a value its Rust type does
    /// not represent exactly (a MariaDB `TINYINT(1)` holding 2 read as `bool`, a SQLite REAL
    /// in an INTEGER column read as `i32`, a SQLite timestamp written as text in another
    /// format), so the database's order is not the order of the values Rust reads, and a
    /// cursor bound back from them would lose or repeat rows. Checked for key types whose
    /// order Rust knows exactly (integers, floats, `bool`, bytes, timestamps, dates, times,
    /// decimals; not text, whose order is the collation's). Fix: make the column hold only values its Rust type
    /// represents (a CHECK constraint, or migrate the values), or read it with a type that
    /// represents them (an integer type for a TINYINT that holds more than 0 and 1).
    #[error(
        "rows came back out of keyset order at key column `{column}`: it holds values its Rust \
         type does not represent exactly (e.g. a TINYINT(1) holding 2 read as bool, a REAL in \
         an INTEGER column read as i32, a timestamp stored as text in another format); make the \
         column hold only values its Rust type represents (a CHECK constraint, or migrate the \
         values)"
    )]
    KeyOutOfOrder {
        /// The SQL name of the first key column where the two rows differ.
        column: &'static str,
    },
    /// SQLite only: a row's key column `column` holds a value stored in another storage class
    /// than the one its key type binds (`found`, `expected`: `"INTEGER or REAL"`, `"TEXT"`,
    /// `"BLOB"`, `"NULL"`): a REAL Julian day or an integer Unix time beside text timestamps,
    /// an integer beside text in a column declared without a type, a BLOB in a TEXT column.
    /// SQLite orders every value of one class before every value of the next (NULL, numbers,
    /// text, BLOB) and compares a value with a cursor's bind of another class the same way
    /// (unless the column's affinity converts the bind: a number in a `STRING` or `NUMERIC`
    /// column that equals the text a `String` key binds, or text in a `TEXT` column that equals
    /// the number an integer or `f64` key binds, is accepted), so a cursor bound from
    /// such a row would skip the rows between (or come back to them). The page statement reads
    /// each key column's class beside the row (`typeof`), and the page that reads such a row is
    /// refused, in either direction and at any page size, before any cursor is made from it
    /// (with [`max_bytes_in_sql`](crate::Paginated::max_bytes_in_sql), the budget's probe,
    /// whose last key that fits bounds the page, is refused the same way). Fix: keep one class in the column (a `STRICT` table, a
    /// `CHECK (typeof(col) = 'text')`), or migrate the odd values
    /// ([SQLite storage classes](crate::guide::keys_and_limits#sqlite-storage-classes)).
    #[error(
        "key column `{column}` holds a value SQLite stores as {found} where its key type binds \
         {expected}: SQLite orders each storage class apart, so a cursor bound from it would lose \
         or repeat rows; keep one class in the column (a STRICT table, or CHECK (typeof(..) = \
         ..)) or migrate the odd values (UPDATE .. SET col = <the value as {expected}>)"
    )]
    StorageClassMismatch {
        /// The SQL name of the key column.
        column: &'static str,
        /// The storage class the row holds.
        found: &'static str,
        /// The storage class the key type binds (a nullable key also accepts `NULL`).
        expected: &'static str,
    },
    /// The request's cursor holds a value that is never a key
    /// ([`KeyValue::check_key`](crate::query::KeyValue::check_key): a floating-point NaN, which
    /// the databases do not order alike), or one Diesel would not bind exactly on this backend
    /// ([`KeyValue::check_bind`](crate::query::KeyValue::check_bind): a `time::Time` with a
    /// fraction of a second on MySQL, or with 1 to 999 ns on SQLite). Refused before any SQL
    /// runs. Only a cursor built by hand can hold a NaN: pages never end on such a row
    /// ([`InvalidRowKey`](Self::InvalidRowKey)) and tokens never decode to one. A value Diesel
    /// cannot bind can end a page (it was read exactly); the next page is refused.
    #[error("the cursor's key column `{column}` holds a value that cannot be a key: {reason}")]
    InvalidCursorKey {
        /// The SQL name of the key column.
        column: &'static str,
        /// Why ([`InvalidKeyValue`](crate::query::InvalidKeyValue)'s text).
        reason: &'static str,
    },
    /// A fetched row's key holds a value that is never a key
    /// ([`KeyValue::check_key`](crate::query::KeyValue::check_key)): a NaN in a floating-point
    /// key column, which PostgreSQL stores (SQLite stores NULL instead, MySQL refuses it) and
    /// sorts after every number, where a cursor could not name it portably. The page check
    /// refuses the page that holds it. Fix: keep NaN out of the column (`CHECK (col <> 'NaN')`
    /// on PostgreSQL) or map it to NULL and declare the key `Option<f64>` with a NULL placement.
    #[error(
        "a row's key column `{column}` holds a value that cannot be a key: {reason}; keep such          values out of the column (e.g. CHECK (col <> 'NaN')) or store NULL instead"
    )]
    InvalidRowKey {
        /// The SQL name of the key column.
        column: &'static str,
        /// Why ([`InvalidKeyValue`](crate::query::InvalidKeyValue)'s text).
        reason: &'static str,
    },
}

impl KeysetError {
    /// The `KeysetError` inside a Diesel error (`QueryBuilderError` or
    /// `DeserializationError`), if that is what it carries.
    pub fn from_diesel(error: &diesel::result::Error) -> Option<&KeysetError> {
        match error {
            diesel::result::Error::QueryBuilderError(inner)
            | diesel::result::Error::DeserializationError(inner) => inner.downcast_ref(),
            _ => None,
        }
    }

    /// Whether the page check raised it (found in the rows read, not before any SQL).
    const fn found_in_rows(&self) -> bool {
        matches!(
            self,
            KeysetError::TieBreakerNotUnique { .. }
                | KeysetError::CollationEqualKeys { .. }
                | KeysetError::CursorRowReturned
                | KeysetError::KeyOutOfOrder { .. }
                | KeysetError::InvalidRowKey { .. }
                | KeysetError::StorageClassMismatch { .. }
        )
    }
}

impl From<KeysetError> for diesel::result::Error {
    /// `DeserializationError` for the page check's errors, `QueryBuilderError` for the others.
    fn from(e: KeysetError) -> Self {
        if e.found_in_rows() {
            diesel::result::Error::DeserializationError(Box::new(e))
        } else {
            diesel::result::Error::QueryBuilderError(Box::new(e))
        }
    }
}
