//! The statements a byte budget measured in SQL reads before its page
//! ([`Paginated::max_bytes_in_sql`](crate::Paginated::max_bytes_in_sql)): the budget's probe
//! ([`BudgetProbe`]: the page's own seek, window, order and limit, selecting only the key
//! columns and the row's size in bytes, so the rows that do not fit the budget are never
//! fetched) and, after a cursor, the total count in a statement of its own ([`CountQuery`]).
//!
//! ```sql
//! SELECT <key columns>, CAST(COALESCE(octet_length("t"."body"), 0) AS BIGINT) + ..
//! FROM <your table> WHERE <your filters> AND (<seek>) AND (<until>)
//! ORDER BY <keyset> LIMIT ?
//! ```
//!
//! The size is `octet_length` on PostgreSQL, `OCTET_LENGTH` on MySQL/MariaDB (each term
//! `CAST(.. AS SIGNED)` there, `AS BIGINT` on PostgreSQL), and `length(CAST(.. AS BLOB))` on SQLite (the bytes of the stored text, not its
//! characters). The seek is written as one condition (never split into union arms): the probe
//! reads key columns and sizes only, so its branches would save nothing worth a union.

use std::fmt;
use std::sync::Arc;

use diesel::dsl::SqlTypeOf;
use diesel::expression::Expression;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDslSupport;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType};
use diesel::QueryResult;

use super::seek::{FarBound, KeysetOrder, SeekPredicate};
use super::source::SelectParts;
use super::sql::Part;
use super::statement::{walk_class_codes, walk_count, walk_index_hint, walk_limit};
use crate::backend::{BackendKind, KeysetBackend};
use crate::error::KeysetError;
use crate::keyset::{Keyset, KeysetSql};
use crate::paginate::budget::SqlColumn;

/// The byte budget's probe (see the module docs). Loads `(key, size in bytes)`; on SQLite the
/// size carries the key columns' storage classes in its bits 32 and up (`load/classes.rs`).
pub struct BudgetProbe<Q, K: Keyset> {
    pub(crate) query: Q,
    pub(crate) seek: Option<SeekPredicate<K>>,
    pub(crate) until: Option<FarBound<K>>,
    pub(crate) order: KeysetOrder<K>,
    /// `LIMIT`: page size + 1.
    pub(crate) limit: i64,
    pub(crate) index: Option<&'static str>,
    pub(crate) columns: Arc<[SqlColumn]>,
}

impl<Q: fmt::Debug, K: Keyset> fmt::Debug for BudgetProbe<Q, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BudgetProbe")
            .field("query", &self.query)
            .field("seek", &self.seek)
            .field("until", &self.until)
            .field("limit", &self.limit)
            .field("index", &self.index)
            .field("columns", &self.columns)
            .finish()
    }
}

impl<Q, K: Keyset> QueryId for BudgetProbe<Q, K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q, K: Keyset> Query for BudgetProbe<Q, K>
where
    K::Columns: Expression,
{
    type SqlType = (SqlTypeOf<K::Columns>, BigInt);
}

impl<Q, K: Keyset> RunQueryDslSupport for BudgetProbe<Q, K> {}

impl<Q, K, DB> QueryFragment<DB> for BudgetProbe<Q, K>
where
    DB: KeysetBackend + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
    Q: SelectParts<DB>,
    K: KeysetSql<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let q = &self.query;
        if q.is_distinct(out.backend())? {
            // Rows the probe counts twice would be one row of the page.
            return Err(diesel::result::Error::QueryBuilderError(Box::new(
                KeysetError::DistinctByteBudget,
            )));
        }
        out.push_sql("SELECT ");
        for i in 0..K::COLUMNS.len() {
            K::walk_column(i, out.reborrow())?;
            out.push_sql(", ");
        }
        walk_size(&self.columns, out.reborrow())?;
        if DB::KIND == BackendKind::Sqlite {
            // The key columns' storage classes above the size (a SQLite row holds under 2^31
            // bytes): `load/classes.rs` splits them off (`classes::sizes`).
            out.push_sql(" + ");
            walk_class_codes::<DB, K>(out.reborrow())?;
            out.push_sql(" * 4294967296");
        }
        q.walk_from(out.reborrow())?;
        walk_index_hint(self.index, out.reborrow())?;
        q.walk_where(out.reborrow())?;
        if self.seek.is_some() || self.until.is_some() {
            out.push_sql(if q.has_where(out.backend())? {
                " AND ("
            } else {
                " WHERE ("
            });
            if let Some(seek) = &self.seek {
                seek.walk_part(Part::Arm(0), out.reborrow())?;
                if self.until.is_some() {
                    out.push_sql(") AND (");
                }
            }
            if let Some(until) = &self.until {
                until.walk_bound(out.reborrow())?;
            }
            out.push_sql(")");
        }
        q.walk_group(out.reborrow())?;
        out.push_sql(" ORDER BY ");
        self.order.walk_ast(out.reborrow())?;
        walk_limit(&self.limit, out)
    }
}

/// The row's size in bytes: the sum of every measured column's stored size (0 for NULL), each
/// term a 64-bit integer before the sum (PostgreSQL's `octet_length` is a 32-bit `integer`, so
/// three columns near 1 GB would overflow it).
fn walk_size<DB: KeysetBackend>(
    columns: &[SqlColumn],
    mut out: AstPass<'_, '_, DB>,
) -> QueryResult<()> {
    if columns.is_empty() {
        // The key-only probe of the other side measures nothing: a 64-bit 0.
        out.push_sql(match DB::KIND {
            BackendKind::Postgres => "CAST(0 AS BIGINT)",
            BackendKind::Mysql => "CAST(0 AS SIGNED)",
            BackendKind::Sqlite => "0",
        });
    }
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            out.push_sql(" + ");
        }
        out.push_sql(match DB::KIND {
            BackendKind::Postgres => "CAST(COALESCE(octet_length(",
            BackendKind::Mysql => "CAST(COALESCE(OCTET_LENGTH(",
            BackendKind::Sqlite => "COALESCE(length(CAST(",
        });
        for part in &c.table {
            out.push_identifier(part)?;
            out.push_sql(".");
        }
        out.push_identifier(c.column)?;
        out.push_sql(match DB::KIND {
            BackendKind::Postgres => "), 0) AS BIGINT)",
            BackendKind::Mysql => "), 0) AS SIGNED)",
            BackendKind::Sqlite => " AS BLOB)), 0)",
        });
    }
    Ok(())
}

/// The total count of a budgeted page, in a statement of its own (`SELECT COUNT(*) FROM
/// (SELECT 1 FROM <your from> WHERE <your filters> ..) AS __keyset_count`): a later page with
/// [`with_total_count`](crate::Paginated::with_total_count) would otherwise be a union whose
/// count row reads one whole, unmeasured row. Loads one `i64`.
pub struct CountQuery<Q> {
    pub(crate) query: Q,
}

impl<Q: fmt::Debug> fmt::Debug for CountQuery<Q> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountQuery")
            .field("query", &self.query)
            .finish()
    }
}

impl<Q> QueryId for CountQuery<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q> Query for CountQuery<Q> {
    type SqlType = BigInt;
}

impl<Q> RunQueryDslSupport for CountQuery<Q> {}

impl<Q, DB> QueryFragment<DB> for CountQuery<Q>
where
    DB: KeysetBackend,
    Q: SelectParts<DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        walk_count(&self.query, out)
    }
}
