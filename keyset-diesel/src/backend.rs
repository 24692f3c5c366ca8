//! What the SQL generator needs to know about each backend.

use diesel::backend::Backend;

pub use crate::kind::BackendKind;
use crate::sql::Dialect;

/// A Diesel backend keyset pagination knows how to write SQL for. Sealed: implemented for
/// `Pg` (feature `postgres`), `Sqlite` (feature `sqlite`) and `Mysql` (feature `mysql`).
pub trait KeysetBackend: Backend + private::Sealed {
    /// Row-value comparison `(a, b) > ($1, $2)` is an index range start on this backend.
    /// True for PostgreSQL and SQLite (3.15+); false for MySQL/MariaDB, whose manuals say row
    /// comparisons other than `=` and `IN` do not use an index, so there every keyset gets the
    /// expanded form `a >= $1 AND (a > $1 OR (a = $1 AND b > $2))` instead.
    const ROW_VALUES: bool;
    /// A row value holding an SQL expression (`(lower(name), id) > (?, ?)`, a key read through
    /// `select_expression`) starts an index range on an expression index. False for SQLite,
    /// which reads such a row value as a `SCAN` of the index `(lower(name), id)` from its
    /// start (the expanded form is a `SEARCH` of it), so there a keyset with an expression
    /// key gets the expanded form.
    const EXPRESSION_ROW_VALUES: bool;
    /// `NULLS FIRST` / `NULLS LAST` is valid in `ORDER BY` (PostgreSQL; SQLite 3.30+). On MySQL
    /// the placement is a leading `col IS NULL` sort term instead.
    const NULLS_ORDER_SYNTAX: bool;
    /// Later pages run as a deferred join by default (see [`PageStatement`](crate::query::PageStatement)): true for
    /// MySQL/MariaDB, whose planner otherwise reads a non-covering page from the start of the
    /// filtered range.
    const DEFERRED_JOIN: bool;
    /// A member of `UNION ALL` may be parenthesized to carry its own `ORDER BY` and `LIMIT`
    /// (PostgreSQL, MySQL); SQLite needs `SELECT * FROM (..)` instead.
    const PARENTHESIZED_UNION: bool;
    /// Which backend this is, for [`KeyValue::check_bind`](crate::query::KeyValue::check_bind).
    const KIND: BackendKind;
}

/// The capabilities of `DB` that the SQL text depends on.
pub(crate) fn dialect<DB: KeysetBackend>() -> Dialect {
    Dialect {
        row_values: DB::ROW_VALUES,
        nulls_order_syntax: DB::NULLS_ORDER_SYNTAX,
    }
}

/// The capabilities of `DB` for keyset `K`: [`dialect`], without row values where the backend
/// does not seek on a row value holding an expression and a key column of `K` is one (its
/// name is the expression's Rust text, which holds a character no column path has).
pub(crate) fn keyset_dialect<DB: KeysetBackend, K: crate::keyset::Keyset>() -> Dialect {
    let mut d = dialect::<DB>();
    if !DB::EXPRESSION_ROW_VALUES && const { crate::keyset::any_expression_name(K::COLUMNS) } {
        d.row_values = false;
    }
    d
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
    const PARENTHESIZED_UNION: bool = true;
    const KIND: BackendKind = BackendKind::Postgres;
}

#[cfg(feature = "sqlite")]
impl private::Sealed for diesel::sqlite::Sqlite {}
#[cfg(feature = "sqlite")]
impl KeysetBackend for diesel::sqlite::Sqlite {
    const ROW_VALUES: bool = true;
    const EXPRESSION_ROW_VALUES: bool = false;
    const NULLS_ORDER_SYNTAX: bool = true;
    const DEFERRED_JOIN: bool = false;
    const PARENTHESIZED_UNION: bool = false;
    const KIND: BackendKind = BackendKind::Sqlite;
}

#[cfg(feature = "mysql")]
impl private::Sealed for diesel::mysql::Mysql {}
#[cfg(feature = "mysql")]
impl KeysetBackend for diesel::mysql::Mysql {
    const ROW_VALUES: bool = false;
    const EXPRESSION_ROW_VALUES: bool = false;
    const NULLS_ORDER_SYNTAX: bool = false;
    const DEFERRED_JOIN: bool = true;
    const PARENTHESIZED_UNION: bool = true;
    const KIND: BackendKind = BackendKind::Mysql;
}
