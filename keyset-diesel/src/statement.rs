//! The page statement: one `SELECT` written from the parts of your query ([`SelectParts`]),
//! the keyset's `ORDER BY` and `LIMIT page_size + 1`, and, on a later page, the seek
//! predicate ANDed after your filters. Every page shape is written here: the first page, a
//! later page in the direct form or as a deferred join, and each branch of a union page
//! (`crate::query::UnionPage`).
//!
//! ```sql
//! SELECT <your select> FROM <your table> WHERE <your filters> AND (<seek predicate>)
//! ORDER BY <keyset> LIMIT ?
//! ```
//!
//! The deferred join runs the seek on the keyset's index alone (a covering, index-only range
//! scan that reads page size + 1 entries), and then fetches the page's rows by their
//! tie-breaker. It is the default on MySQL/MariaDB, where a page whose select list is not
//! covered by the index is otherwise planned as `ref` access on your equality filter with the
//! seek pushed into the index condition, which reads every index entry from the start of your
//! filtered range to the cursor (measured on MariaDB 10.11, 120,000 rows, depth 50,075:
//! Handler_icp_attempts 50,097 for the direct form; 20 reads with the deferred join):
//!
//! ```sql
//! SELECT <your select> FROM <your table> WHERE <your filters> AND `t`.`id` IN (
//!     SELECT `__keyset_k`.`__keyset_tb` FROM (
//!         SELECT `t`.`id` AS `__keyset_tb` FROM <your table>
//!         WHERE <your filters> AND (<seek predicate>) ORDER BY <keyset> LIMIT ?
//!     ) AS `__keyset_k`)
//! ORDER BY <keyset> LIMIT ?
//! ```
//!
//! `t.id` is the tie-breaker (the last key column), which is unique and `NOT NULL`; with an
//! index on it (it is usually the primary key) the outer query reads exactly the page's rows.
//!
//! A `SELECT DISTINCT` query, or one with a locking clause (`FOR UPDATE`, `SKIP LOCKED`), is
//! written directly instead: duplicates would use up the inner `LIMIT`, and the inner query
//! would neither lock nor skip locked rows.

use std::fmt;

use diesel::backend::Backend;
use diesel::query_builder::{
    AstPass, BoxedSelectStatement, Query, QueryFragment, QueryId, SelectStatement,
};
use diesel::query_dsl::RunQueryDsl;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType};
use diesel::QueryResult;

use crate::backend::KeysetBackend;
use crate::keyset::{Keyset, KeysetSql};
use crate::kind::BackendKind;
use crate::predicate::{KeysetOrder, SeekPredicate};
use crate::sql::Part;

/// Renders the clauses of a select statement separately, so a page query can repeat them
/// (implemented for Diesel's `SelectStatement` and boxed select statements).
pub trait SelectParts<DB: Backend> {
    /// `DISTINCT` (if any) and the select list, without the `SELECT` keyword.
    ///
    /// # Errors
    /// What the clauses' `walk_ast` return.
    fn walk_select_list<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// ` FROM ...`.
    ///
    /// # Errors
    /// What the clause's `walk_ast` returns.
    fn walk_from<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// ` WHERE ...`, or nothing.
    ///
    /// # Errors
    /// What the clause's `walk_ast` returns.
    fn walk_where<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// Whether the statement has a `WHERE` clause.
    ///
    /// # Errors
    /// What the clause's `is_noop` returns.
    fn has_where(&self, backend: &DB) -> QueryResult<bool>;
    /// ` GROUP BY ... HAVING ...`, or nothing.
    ///
    /// # Errors
    /// What the clauses' `walk_ast` return.
    fn walk_group<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// ` FOR UPDATE ...` (a locking clause), or nothing.
    ///
    /// # Errors
    /// What the clause's `walk_ast` returns.
    fn walk_locking<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// Whether the statement is `SELECT DISTINCT` or has a locking clause: a deferred join
    /// would change its result (duplicates would use up the inner `LIMIT`; the inner query
    /// would not lock, `SKIP LOCKED` would shorten the page), so such a page is written
    /// directly.
    ///
    /// # Errors
    /// What the clauses' `is_noop` return.
    fn distinct_or_locking(&self, backend: &DB) -> QueryResult<bool>;
    /// Whether the statement is `SELECT DISTINCT` (the total count then counts distinct rows
    /// of the select list).
    ///
    /// # Errors
    /// What the clause's `is_noop` returns.
    fn is_distinct(&self, backend: &DB) -> QueryResult<bool>;
}

impl<F, S, D, W, O, LOf, G, H, LC, DB> SelectParts<DB>
    for SelectStatement<F, S, D, W, O, LOf, G, H, LC>
where
    DB: Backend,
    S: QueryFragment<DB>,
    F: QueryFragment<DB>,
    D: QueryFragment<DB>,
    W: QueryFragment<DB>,
    G: QueryFragment<DB>,
    H: QueryFragment<DB>,
    LC: QueryFragment<DB>,
{
    fn walk_select_list<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.distinct.walk_ast(out.reborrow())?;
        self.select.walk_ast(out)
    }
    fn walk_from<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.from.walk_ast(out)
    }
    fn walk_where<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.where_clause.walk_ast(out)
    }
    fn has_where(&self, backend: &DB) -> QueryResult<bool> {
        Ok(!self.where_clause.is_noop(backend)?)
    }
    fn walk_group<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.group_by.walk_ast(out.reborrow())?;
        self.having.walk_ast(out)
    }
    fn walk_locking<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.locking.walk_ast(out)
    }
    fn distinct_or_locking(&self, backend: &DB) -> QueryResult<bool> {
        Ok(!self.distinct.is_noop(backend)? || !self.locking.is_noop(backend)?)
    }
    fn is_distinct(&self, backend: &DB) -> QueryResult<bool> {
        Ok(!self.distinct.is_noop(backend)?)
    }
}

impl<ST, QS, DB, GB> SelectParts<DB> for BoxedSelectStatement<'_, ST, QS, DB, GB>
where
    DB: Backend + diesel::backend::DieselReserveSpecialization,
    QS: QueryFragment<DB>,
{
    fn walk_select_list<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.distinct.walk_ast(out.reborrow())?;
        self.select.walk_ast(out)
    }
    fn walk_from<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.from.walk_ast(out)
    }
    fn walk_where<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.where_clause.walk_ast(out)
    }
    fn has_where(&self, backend: &DB) -> QueryResult<bool> {
        Ok(!self.where_clause.is_noop(backend)?)
    }
    fn walk_group<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.group_by.walk_ast(out.reborrow())?;
        self.having.walk_ast(out)
    }
    fn walk_locking<'b>(&'b self, _out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        // Boxed select statements have no locking clause.
        Ok(())
    }
    fn distinct_or_locking(&self, backend: &DB) -> QueryResult<bool> {
        self.is_distinct(backend)
    }
    fn is_distinct(&self, backend: &DB) -> QueryResult<bool> {
        Ok(!self.distinct.is_noop(backend)?)
    }
}

/// One page's query, for every shape but the union: the first page (no seek predicate), or a
/// later page in the direct form or as a deferred join (see the module docs). Loads the
/// model. [`crate::Paginated::into_query`] returns it inside [`PageQuery`](crate::query::PageQuery)
/// for `diesel::debug_query`.
pub struct PageStatement<Q, K: Keyset> {
    query: Q,
    seek: Option<SeekPredicate<K>>,
    /// The window's far end ([`crate::Paginated::until`]), if any.
    until: Option<SeekPredicate<K>>,
    order: KeysetOrder<K>,
    limit: i64,
    deferred: bool,
    /// Also select the total count ([`crate::Paginated::with_total_count`]).
    total: bool,
    /// The index the seek must read ([`crate::Paginated::force_index`]).
    index: Option<&'static str>,
}

impl<Q, K: Keyset> PageStatement<Q, K> {
    /// A page of `query` after `seek` (none: the first page) in `order`, `LIMIT limit`, as a
    /// deferred join when `deferred` and there is a seek; with `total`, every row also
    /// carries the total count (see [`walk_count`]).
    pub(crate) fn new(
        query: Q,
        seek: Option<SeekPredicate<K>>,
        order: KeysetOrder<K>,
        limit: i64,
        deferred: bool,
        total: bool,
    ) -> Self {
        PageStatement {
            query,
            seek,
            until: None,
            order,
            limit,
            deferred,
            total,
            index: None,
        }
    }

    /// Only the rows strictly before `until` in the walk's order (the window's far end; a
    /// [`SeekPredicate`] of the reversed walk).
    pub(crate) fn until(mut self, until: Option<SeekPredicate<K>>) -> Self {
        self.until = until;
        self
    }

    /// Read the seek through this index (see [`walk_index_hint`]).
    pub(crate) fn index(mut self, index: Option<&'static str>) -> Self {
        self.index = index;
        self
    }
}

impl<Q: fmt::Debug, K: Keyset> fmt::Debug for PageStatement<Q, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageStatement")
            .field("query", &self.query)
            .field("seek", &self.seek)
            .field("until", &self.until)
            .field("order", &self.order)
            .field("limit", &self.limit)
            .field("deferred", &self.deferred)
            .field("total", &self.total)
            .field("index", &self.index)
            .finish()
    }
}

impl<Q, K: Keyset> QueryId for PageStatement<Q, K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query, K: Keyset> Query for PageStatement<Q, K> {
    type SqlType = Q::SqlType;
}

impl<Q, K: Keyset, Conn> RunQueryDsl<Conn> for PageStatement<Q, K> {}

impl<Q, K, DB> QueryFragment<DB> for PageStatement<Q, K>
where
    DB: KeysetBackend + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
    Q: SelectParts<DB>,
    K: KeysetSql<DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        walk_statement(
            Statement {
                query: &self.query,
                seek: self.seek.as_ref().map(|seek| (seek, Part::Arm(0))),
                until: self.until.as_ref(),
                order: &self.order,
                limit: &self.limit,
                deferred: self.deferred,
                index: self.index,
                extras: None,
                total: if self.total {
                    Total::Count
                } else {
                    Total::None
                },
            },
            out,
        )
    }
}

/// One page statement, written from the parts of the caller's query.
pub(crate) struct Statement<'b, Q, K: Keyset> {
    pub query: &'b Q,
    /// The seek predicate and the part of it to write; `None` on a first page.
    pub seek: Option<(&'b SeekPredicate<K>, Part)>,
    /// The window's far end, written next to the seek (`AND (<until>)`); `None` for none
    /// (and for the probe and count branches, which it does not bound).
    pub until: Option<&'b SeekPredicate<K>>,
    pub order: &'b KeysetOrder<K>,
    pub limit: &'b i64,
    /// As a deferred join (when there is a seek, unless the query is `DISTINCT` or locks
    /// rows).
    pub deferred: bool,
    /// The index the seek must read: written after the `FROM` that carries the seek (the
    /// inner one of a deferred join).
    pub index: Option<&'static str>,
    /// For a union branch: also select every key column as `__keyset_k<i>`, and this
    /// [`BranchRow`] as `__keyset_arm`.
    pub extras: Option<BranchRow>,
    /// The total count column `__keyset_total`, last in the select list, if any.
    pub total: Total,
}

/// What a statement selects as its last column, `__keyset_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Total {
    /// Nothing: no total count was asked for.
    None,
    /// The total count ([`walk_count`] as a scalar subquery).
    Count,
    /// `0`: a union branch whose rows do not carry the count (the union's count row does).
    Zero,
}

/// `SELECT <list> [, keys, arm] FROM .. WHERE <filters> AND (<seek>) .. ORDER BY .. LIMIT ?`,
/// or its deferred-join form (see the module docs).
pub(crate) fn walk_statement<'b, Q, K, DB>(
    s: Statement<'b, Q, K>,
    mut out: AstPass<'_, 'b, DB>,
) -> QueryResult<()>
where
    DB: KeysetBackend + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
    Q: SelectParts<DB>,
    K: KeysetSql<DB>,
{
    let q = s.query;
    let tie_breaker = K::COLUMNS.len().saturating_sub(1);
    out.push_sql("SELECT ");
    q.walk_select_list(out.reborrow())?;
    if let Some(row) = s.extras {
        for i in 0..K::COLUMNS.len() {
            out.push_sql(", ");
            K::walk_column(i, out.reborrow())?;
            out.push_sql(" AS ");
            out.push_identifier(&key_alias(i))?;
        }
        out.push_sql(", ");
        out.push_sql(row.literal());
        out.push_sql(" AS ");
        out.push_identifier(ARM_ALIAS)?;
    }
    match s.total {
        Total::None => {}
        Total::Zero => out.push_sql(", 0"),
        Total::Count => {
            out.push_sql(", (");
            walk_count(q, out.reborrow())?;
            out.push_sql(")");
        }
    }
    if s.total != Total::None {
        out.push_sql(" AS ");
        out.push_identifier(TOTAL_ALIAS)?;
    }
    let deferred = s.seek.is_some() && s.deferred && !q.distinct_or_locking(out.backend())?;
    q.walk_from(out.reborrow())?;
    if !deferred {
        walk_index_hint(s.index, out.reborrow())?;
    }
    q.walk_where(out.reborrow())?;
    if s.seek.is_some() || s.until.is_some() {
        let and_or_where = if q.has_where(out.backend())? {
            " AND "
        } else {
            " WHERE "
        };
        out.push_sql(and_or_where);
        if deferred {
            K::walk_column(tie_breaker, out.reborrow())?;
            out.push_sql(" IN (SELECT ");
            out.push_identifier("__keyset_k")?;
            out.push_sql(".");
            out.push_identifier("__keyset_tb")?;
            out.push_sql(" FROM (SELECT ");
            K::walk_column(tie_breaker, out.reborrow())?;
            out.push_sql(" AS ");
            out.push_identifier("__keyset_tb")?;
            q.walk_from(out.reborrow())?;
            walk_index_hint(s.index, out.reborrow())?;
            q.walk_where(out.reborrow())?;
            out.push_sql(and_or_where);
        }
        out.push_sql("(");
        if let Some((seek, part)) = s.seek {
            seek.walk_part(part, out.reborrow())?;
            if s.until.is_some() {
                out.push_sql(") AND (");
            }
        }
        if let Some(until) = s.until {
            until.walk_part(Part::Arm(0), out.reborrow())?;
        }
        out.push_sql(")");
    }
    // ` GROUP BY .. ORDER BY <keyset> LIMIT ?`: of the seek, and again of the outer query.
    let tail = |mut out: AstPass<'_, 'b, DB>| -> QueryResult<()> {
        q.walk_group(out.reborrow())?;
        out.push_sql(" ORDER BY ");
        s.order.walk_ast(out.reborrow())?;
        walk_limit(s.limit, out)
    };
    tail(out.reborrow())?;
    if deferred {
        out.push_sql(") AS ");
        out.push_identifier("__keyset_k")?;
        out.push_sql(")");
        tail(out.reborrow())?;
    }
    q.walk_locking(out)
}

/// ` LIMIT ?` with `limit` bound, written ` LIMIT +?` on SQLite. SQLite reads the value bound
/// to a bare `LIMIT ?` while it plans the statement, and so marks the statement to be planned
/// again whenever that parameter is bound anew: with Diesel, which binds every parameter at
/// every execution, every page would be parsed and planned again, cached statement or not
/// (counted with valgrind: 35-47% of a page's instructions on a 1,300,100-row table). `+?` is
/// the same value, which SQLite's planner does not read, so the cached statement runs as
/// prepared (unless `sqlite_stat4` samples make it plan for other parameters: docs/SQL.md).
pub(crate) fn walk_limit<'b, DB>(limit: &'b i64, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()>
where
    DB: KeysetBackend + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
{
    out.push_sql(match DB::KIND {
        BackendKind::Sqlite => " LIMIT +",
        BackendKind::Postgres | BackendKind::Mysql => " LIMIT ",
    });
    out.push_bind_param::<BigInt, i64>(limit)
}

/// The index hint after a `FROM` clause of one table, the name quoted as an identifier:
/// MySQL/MariaDB `FORCE INDEX (<index>)`, SQLite `INDEXED BY <index>`; nothing on
/// PostgreSQL, which has no index hints.
fn walk_index_hint<DB: KeysetBackend>(
    index: Option<&'static str>,
    mut out: AstPass<'_, '_, DB>,
) -> QueryResult<()> {
    let Some(index) = index else { return Ok(()) };
    match DB::KIND {
        BackendKind::Mysql => {
            out.push_sql(" FORCE INDEX (");
            out.push_identifier(index)?;
            out.push_sql(")");
        }
        BackendKind::Sqlite => {
            out.push_sql(" INDEXED BY ");
            out.push_identifier(index)?;
        }
        BackendKind::Postgres => {}
    }
    Ok(())
}

/// `SELECT COUNT(*) FROM (SELECT 1 FROM <your from> WHERE <your filters> GROUP BY ..
/// HAVING ..) AS __keyset_count`: the rows of your query without the seek, `ORDER BY` and
/// `LIMIT` (one per group with `GROUP BY`). A `SELECT DISTINCT` query counts its distinct
/// rows: the subquery keeps its `DISTINCT` select list instead of `1`.
pub(crate) fn walk_count<'b, Q, DB>(q: &'b Q, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()>
where
    DB: Backend,
    Q: SelectParts<DB>,
{
    out.push_sql("SELECT COUNT(*) FROM (SELECT ");
    if q.is_distinct(out.backend())? {
        q.walk_select_list(out.reborrow())?;
    } else {
        out.push_sql("1");
    }
    q.walk_from(out.reborrow())?;
    q.walk_where(out.reborrow())?;
    q.walk_group(out.reborrow())?;
    out.push_sql(") AS ");
    out.push_identifier("__keyset_count")
}

/// What a union branch's rows are, in its `__keyset_arm` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BranchRow {
    /// A row of the page (any arm of the seek).
    Page,
    /// The probe row of the other side.
    Probe,
    /// The count row: the first row of your query (no seek), carrying the total count, so
    /// that the count arrives even when the page itself is empty.
    Count,
}

impl BranchRow {
    /// The value of `__keyset_arm` for the probe row (page rows have 0).
    pub(crate) const PROBE: i32 = 1;
    /// The value of `__keyset_arm` for the count row.
    pub(crate) const COUNT: i32 = 2;

    fn literal(self) -> &'static str {
        match self {
            BranchRow::Page => "0",
            BranchRow::Probe => "1",
            BranchRow::Count => "2",
        }
    }
}

/// `__keyset_k<i>`: key column `i` in a union branch's select list.
pub(crate) fn key_alias(i: usize) -> String {
    format!("__keyset_k{i}")
}

/// The union branch marker column: 0 for a page row, 1 for the probe row, 2 for the count
/// row.
pub(crate) const ARM_ALIAS: &str = "__keyset_arm";

/// The total count column.
pub(crate) const TOTAL_ALIAS: &str = "__keyset_total";
