//! The deferred join: the seek runs on the keyset's index alone (a covering, index-only range
//! scan that reads page size + 1 entries), and the page's rows are then fetched by their
//! tie-breaker. The default on MySQL/MariaDB, where a page whose select list is not covered by
//! the index is otherwise planned as `ref` access on your equality filter with the seek pushed
//! into the index condition, which reads every index entry from the start of your filtered
//! range to the cursor (measured on MariaDB 10.11, 120,000 rows, depth 50,075:
//! Handler_icp_attempts 50,097 for the plain query; 20 reads with the deferred join):
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
use crate::predicate::{KeysetOrder, SeekPredicate};

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
        Ok(!self.distinct.is_noop(backend)?)
    }
}

/// A seek page as a deferred join (see the module docs).
pub struct DeferredJoin<Q, K: Keyset> {
    query: Q,
    seek: SeekPredicate<K>,
    order: KeysetOrder<K>,
    limit: i64,
}

impl<Q, K: Keyset> DeferredJoin<Q, K> {
    pub(crate) fn new(query: Q, seek: SeekPredicate<K>, order: KeysetOrder<K>, limit: i64) -> Self {
        DeferredJoin {
            query,
            seek,
            order,
            limit,
        }
    }
}

impl<Q: fmt::Debug, K: Keyset> fmt::Debug for DeferredJoin<Q, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeferredJoin")
            .field("query", &self.query)
            .field("seek", &self.seek)
            .field("order", &self.order)
            .field("limit", &self.limit)
            .finish()
    }
}

impl<Q, K: Keyset> QueryId for DeferredJoin<Q, K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query, K: Keyset> Query for DeferredJoin<Q, K> {
    type SqlType = Q::SqlType;
}

impl<Q, K: Keyset, Conn> RunQueryDsl<Conn> for DeferredJoin<Q, K> {}

impl<Q, K, DB> QueryFragment<DB> for DeferredJoin<Q, K>
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
                seek: &self.seek,
                order: &self.order,
                limit: &self.limit,
                deferred: true,
                extras: None,
            },
            out,
        )
    }
}

/// One page statement, written from the parts of the caller's query.
pub(crate) struct Statement<'b, Q, K: Keyset> {
    pub query: &'b Q,
    pub seek: &'b SeekPredicate<K>,
    pub order: &'b KeysetOrder<K>,
    pub limit: &'b i64,
    /// As a deferred join (unless the query is `DISTINCT` or locks rows).
    pub deferred: bool,
    /// For a union branch: also select every key column as `__keyset_k<i>`, and this literal
    /// as `__keyset_arm`.
    pub extras: Option<&'static str>,
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
    let and_or_where = if q.has_where(out.backend())? {
        " AND "
    } else {
        " WHERE "
    };
    let deferred = s.deferred && !q.distinct_or_locking(out.backend())?;
    let tie_breaker = K::COLUMNS.len().saturating_sub(1);
    out.push_sql("SELECT ");
    q.walk_select_list(out.reborrow())?;
    if let Some(arm) = s.extras {
        for i in 0..K::COLUMNS.len() {
            out.push_sql(", ");
            K::walk_column(i, out.reborrow())?;
            out.push_sql(" AS ");
            out.push_identifier(&key_alias(i))?;
        }
        out.push_sql(", ");
        out.push_sql(arm);
        out.push_sql(" AS ");
        out.push_identifier(ARM_ALIAS)?;
    }
    q.walk_from(out.reborrow())?;
    q.walk_where(out.reborrow())?;
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
        q.walk_where(out.reborrow())?;
        out.push_sql(and_or_where);
    }
    out.push_sql("(");
    s.seek.walk_ast(out.reborrow())?;
    out.push_sql(")");
    // ` GROUP BY .. ORDER BY <keyset> LIMIT ?`: of the seek, and again of the outer query.
    let tail = |mut out: AstPass<'_, 'b, DB>| -> QueryResult<()> {
        q.walk_group(out.reborrow())?;
        out.push_sql(" ORDER BY ");
        s.order.walk_ast(out.reborrow())?;
        out.push_sql(" LIMIT ");
        out.push_bind_param::<BigInt, i64>(s.limit)
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

/// `__keyset_k<i>`: key column `i` in a union branch's select list.
pub(crate) fn key_alias(i: usize) -> String {
    format!("__keyset_k{i}")
}

/// The union branch marker column: 0 for a page row, 1 for the probe row.
pub(crate) const ARM_ALIAS: &str = "__keyset_arm";

/// A later page's query: the direct form (your query with the seek predicate, `ORDER BY` and
/// `LIMIT`), or the deferred join.
#[derive(Debug)]
pub enum SeekQuery<B, D> {
    /// Seek predicate, `ORDER BY` and `LIMIT` added to your query.
    Direct(B),
    /// The deferred join (the default on MySQL/MariaDB).
    Deferred(D),
}

impl<B, D> QueryId for SeekQuery<B, D> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<B: Query, D: Query<SqlType = B::SqlType>> Query for SeekQuery<B, D> {
    type SqlType = B::SqlType;
}

impl<B, D, DB> QueryFragment<DB> for SeekQuery<B, D>
where
    DB: Backend,
    B: QueryFragment<DB>,
    D: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        match self {
            SeekQuery::Direct(q) => q.walk_ast(out),
            SeekQuery::Deferred(q) => q.walk_ast(out),
        }
    }
}
