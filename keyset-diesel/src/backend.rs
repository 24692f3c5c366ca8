//! What each backend is, in one sealed table: [`KeysetBackend`]. The ground floor: every
//! other module may ask it, it asks none of them.

use diesel::backend::{Backend, DieselReserveSpecialization};
use diesel::deserialize;
use diesel::row::NamedRow;

/// Which backend a key value is bound on ([`KeyValue::check_bind`](crate::query::KeyValue::check_bind)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// PostgreSQL (`diesel::pg::Pg`).
    Postgres,
    /// SQLite (`diesel::sqlite::Sqlite`).
    Sqlite,
    /// MySQL / MariaDB (`diesel::mysql::Mysql`).
    Mysql,
}

/// A Diesel backend keyset pagination knows how to write SQL for. Sealed: implemented for
/// `Pg` (feature `postgres`), `Sqlite` (feature `sqlite`) and `Mysql` (feature `mysql`).
///
/// | | PostgreSQL | SQLite | MySQL / MariaDB |
/// |---|---|---|---|
/// | [`ROW_VALUES`](Self::ROW_VALUES) | yes | yes | no |
/// | [`EXPRESSION_ROW_VALUES`](Self::EXPRESSION_ROW_VALUES) | yes | no | no |
/// | [`NULLS_ORDER_SYNTAX`](Self::NULLS_ORDER_SYNTAX) | yes | yes | no (`col IS NULL` term) |
/// | [`DEFERRED_JOIN`](Self::DEFERRED_JOIN) | no | no | yes |
/// | [`LEARNS_INDEX`](Self::LEARNS_INDEX) | no | no | yes |
/// | [`PARENTHESIZED_UNION`](Self::PARENTHESIZED_UNION) | yes | no (`SELECT * FROM (..)`) | yes |
/// | [`BEGIN_READ_SNAPSHOT`](Self::BEGIN_READ_SNAPSHOT) | `BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY` | `BEGIN DEFERRED` | `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY` |
/// | [`BEGIN_WRITE_SNAPSHOT`](Self::BEGIN_WRITE_SNAPSHOT) | `BEGIN ISOLATION LEVEL REPEATABLE READ` | `BEGIN IMMEDIATE` | `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; START TRANSACTION WITH CONSISTENT SNAPSHOT` |
///
/// Why each rule holds is in [the SQL guide](crate::guide::sql) (row values, NULL placement, deferred
/// joins, unions) and the [read contracts](crate::guide::read_contracts) (snapshots).
pub trait KeysetBackend: Backend + DieselReserveSpecialization + private::Sealed + 'static {
    /// Row-value comparison `(a, b) > ($1, $2)` is an index range start on this backend.
    /// False for MySQL/MariaDB, whose manuals say row comparisons other than `=` and `IN` do
    /// not use an index: every keyset there gets the expanded form
    /// `a >= $1 AND (a > $1 OR (a = $1 AND b > $2))`.
    const ROW_VALUES: bool;
    /// A row value holding an SQL expression (`(lower(name), id) > (?, ?)`) starts an index
    /// range on an expression index. False for SQLite, which scans such an index from its
    /// start: a keyset with an expression key gets the expanded form there.
    const EXPRESSION_ROW_VALUES: bool;
    /// `NULLS FIRST` / `NULLS LAST` is valid in `ORDER BY` (PostgreSQL; SQLite 3.30+). On
    /// MySQL the placement is a leading `col IS NULL` sort term instead.
    const NULLS_ORDER_SYNTAX: bool;
    /// Later pages run as a deferred join by default (see
    /// [`PageStatement`](crate::query::PageStatement)): true for MySQL/MariaDB.
    const DEFERRED_JOIN: bool;
    /// A later page that names no index (no [`Paginated::force_index`](crate::Paginated::force_index),
    /// no declared [`Keyset::INDEX`](crate::Keyset::INDEX), no
    /// [`Paginated::deferred_join`](crate::Paginated::deferred_join)) of a query on the
    /// keyset's table alone names the table's index that serves its seek, looked up in
    /// `information_schema.STATISTICS` at most once a minute per table and process: true for
    /// MySQL/MariaDB, whose optimizer otherwise often reads from the start of your filtered
    /// range ([the index a page names by
    /// itself](crate::guide::sql#the-index-a-page-names-by-itself)).
    const LEARNS_INDEX: bool;
    /// A member of `UNION ALL` may be parenthesized to carry its own `ORDER BY` and `LIMIT`
    /// (PostgreSQL, MySQL); SQLite needs `SELECT * FROM (..)` instead.
    const PARENTHESIZED_UNION: bool;
    /// Its columns hold values of several storage classes, which it orders apart (SQLite): a
    /// page statement then also reads its key columns' classes
    /// ([`KeysetError::StorageClassMismatch`](crate::KeysetError::StorageClassMismatch)).
    const STORAGE_CLASSES: bool = false;
    /// Which backend this is.
    const KIND: BackendKind;
    /// Begins a read-only transaction whose reads all see one snapshot
    /// ([`with_read_snapshot`](crate::with_read_snapshot)). PostgreSQL and SQLite take the
    /// snapshot at the first statement, MySQL/MariaDB (InnoDB) at `START TRANSACTION`.
    const BEGIN_READ_SNAPSHOT: &'static str;
    /// Begins a transaction whose reads all see one snapshot and that may write (a stored
    /// export). On SQLite it takes the write lock at once (`BEGIN IMMEDIATE`): a WAL read
    /// snapshot cannot be upgraded to a writer once another connection has committed.
    const BEGIN_WRITE_SNAPSHOT: &'static str;

    /// The text column `name` of a row read by name (`None` for NULL): what the learned index
    /// reads the index catalog with, on any connection of the backend, so that a page needs no
    /// bound of its own for the catalog's rows.
    #[doc(hidden)]
    fn text_by_name<'a>(
        row: &impl NamedRow<'a, Self>,
        name: &str,
    ) -> deserialize::Result<Option<String>>;
}

/// [`KeysetBackend::text_by_name`], for a backend whose `Option<String>` reads `Nullable<Text>`.
#[cfg(any(feature = "postgres", feature = "sqlite", feature = "mysql"))]
macro_rules! text_by_name {
    () => {
        fn text_by_name<'a>(
            row: &impl NamedRow<'a, Self>,
            name: &str,
        ) -> deserialize::Result<Option<String>> {
            use diesel::sql_types::{Nullable, Text};
            NamedRow::get::<Nullable<Text>, Option<String>>(row, name)
        }
    };
}

/// The capabilities of a backend that the SQL text depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dialect {
    /// A run of key columns in one direction may be compared as a row value.
    pub row_values: bool,
    /// `NULLS FIRST` / `NULLS LAST` may be written.
    pub nulls_order_syntax: bool,
    /// A key level of a seek split into levels is one column, never a row value: SQLite
    /// ranges an index over a row value only through its ordinary columns, so a row value
    /// ending in the rowid (`id INTEGER PRIMARY KEY`) starts its range at the leading
    /// column's value, while `a = ? AND id > ?` starts at the cursor (the SQL guide, "Nullable
    /// key columns").
    pub column_levels: bool,
    /// A seek of two key levels on non-null columns is written `bound AND NOT (level 0 equal
    /// AND level 1 at or before the key)` instead of the expanded `OR`: SQLite plans an `OR`
    /// of indexable terms as a candidate union of index searches, and plans the statement
    /// again at every page once `sqlite_stat4` samples a column compared with a bare
    /// parameter (the SQL guide, "SQLite: a cached statement that is planned again"); the
    /// `NOT` form reads the same index range and costs less to plan.
    pub negated_ties: bool,
}

/// [`Dialect`] of `DB`.
pub(crate) const fn dialect<DB: KeysetBackend>() -> Dialect {
    Dialect {
        row_values: DB::ROW_VALUES,
        nulls_order_syntax: DB::NULLS_ORDER_SYNTAX,
        column_levels: matches!(DB::KIND, BackendKind::Sqlite),
        negated_ties: matches!(DB::KIND, BackendKind::Sqlite),
    }
}

mod private {
    pub trait Sealed {}
}

#[cfg(feature = "postgres")]
impl private::Sealed for diesel::pg::Pg {}
#[cfg(feature = "postgres")]
impl KeysetBackend for diesel::pg::Pg {
    const ROW_VALUES: bool = true;
    const EXPRESSION_ROW_VALUES: bool = true;
    const NULLS_ORDER_SYNTAX: bool = true;
    const DEFERRED_JOIN: bool = false;
    const LEARNS_INDEX: bool = false;
    const PARENTHESIZED_UNION: bool = true;
    const KIND: BackendKind = BackendKind::Postgres;
    const BEGIN_READ_SNAPSHOT: &'static str = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";
    const BEGIN_WRITE_SNAPSHOT: &'static str = "BEGIN ISOLATION LEVEL REPEATABLE READ";
    text_by_name!();
}

#[cfg(feature = "sqlite")]
impl private::Sealed for diesel::sqlite::Sqlite {}
#[cfg(feature = "sqlite")]
impl KeysetBackend for diesel::sqlite::Sqlite {
    const ROW_VALUES: bool = true;
    const EXPRESSION_ROW_VALUES: bool = false;
    const NULLS_ORDER_SYNTAX: bool = true;
    const DEFERRED_JOIN: bool = false;
    const LEARNS_INDEX: bool = false;
    const STORAGE_CLASSES: bool = true;
    const PARENTHESIZED_UNION: bool = false;
    const KIND: BackendKind = BackendKind::Sqlite;
    const BEGIN_READ_SNAPSHOT: &'static str = "BEGIN DEFERRED";
    const BEGIN_WRITE_SNAPSHOT: &'static str = "BEGIN IMMEDIATE";
    text_by_name!();
}

#[cfg(feature = "mysql")]
impl private::Sealed for diesel::mysql::Mysql {}
#[cfg(feature = "mysql")]
impl KeysetBackend for diesel::mysql::Mysql {
    const ROW_VALUES: bool = false;
    const EXPRESSION_ROW_VALUES: bool = false;
    const NULLS_ORDER_SYNTAX: bool = false;
    const DEFERRED_JOIN: bool = true;
    const LEARNS_INDEX: bool = true;
    const PARENTHESIZED_UNION: bool = true;
    const KIND: BackendKind = BackendKind::Mysql;
    // `WITH CONSISTENT SNAPSHOT` takes a snapshot only at REPEATABLE READ (InnoDB ignores it
    // at READ COMMITTED, a common server or session setting): the level is set for this one
    // transaction first.
    const BEGIN_READ_SNAPSHOT: &'static str = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; \
         START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY";
    const BEGIN_WRITE_SNAPSHOT: &'static str = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; \
         START TRANSACTION WITH CONSISTENT SNAPSHOT";
    text_by_name!();
}
