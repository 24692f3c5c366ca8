//! The page query when one seek is not enough: a union of the seek's arms (a nullable leading
//! column whose NULL group lies on the far side of the cursor, or one arm per key level with
//! [`crate::Paginated::seek_per_level`]) and, for exact flags, a one-row probe of the other
//! side, in one statement. On PostgreSQL and MySQL:
//!
//! ```sql
//! (SELECT <your select>, "t"."a" AS "__keyset_k0", "t"."id" AS "__keyset_k1", 0 AS "__keyset_arm"
//!    FROM t WHERE <your filters> AND (<seek, arm 0>) ORDER BY <keyset> LIMIT $n)
//! UNION ALL (SELECT ..., 0 AS "__keyset_arm" ... (<seek, arm 1>) ... LIMIT $n)
//! UNION ALL (SELECT ..., 1 AS "__keyset_arm" ... (<at or before the cursor>) ... LIMIT 1)
//! ORDER BY "__keyset_arm" DESC, "__keyset_k0" ASC NULLS LAST, "__keyset_k1" ASC LIMIT $m
//! ```
//!
//! (SQLite writes each branch as `SELECT * FROM (<branch>)`, its way of ordering and limiting
//! a compound member.) Each branch is the ordinary page statement (your filters, the arm's seek
//! predicate, the keyset's `ORDER BY`, `LIMIT page_size + 1`; on MySQL the deferred join), so
//! each keeps its own index range. The outer `ORDER BY` uses the key columns each branch
//! selects under its own aliases, so your select list may contain any names, duplicates
//! included. The rows load as `(row, key, arm)`.

use std::marker::PhantomData;
use std::sync::Arc;

use diesel::dsl::SqlTypeOf;
use diesel::expression::Expression;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDsl;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType, Integer};
use diesel::QueryResult;

use crate::backend::KeysetBackend;
use crate::cursor::Direction;
use crate::deferred::{key_alias, walk_statement, SelectParts, Statement, ARM_ALIAS};
use crate::keyset::{Keyset, KeysetSql};
use crate::predicate::{dialect, terms, KeysetOrder, PartSelector, SeekPredicate};
use crate::sql::{self, Emitter, Part};

/// A union page query; loads `(row, key, arm)` where `arm` is 1 for the probe row.
pub struct UnionPage<Q, K: Keyset> {
    query: Q,
    seek: SeekPredicate<K>,
    order: KeysetOrder<K>,
    part: Arc<PartSelector>,
    arms: usize,
    probe: bool,
    walk: Direction,
    deferred: bool,
    /// `LIMIT` of each arm: page size + 1.
    limit: i64,
    /// `LIMIT` of the probe.
    probe_limit: i64,
    /// `LIMIT` of the union: page size + 1, + 1 with a probe.
    outer_limit: i64,
    _model: PhantomData<fn() -> K>,
}

/// How a union page is made (see [`UnionPage`]).
pub(crate) struct UnionParts<K: Keyset> {
    pub seek: SeekPredicate<K>,
    pub order: KeysetOrder<K>,
    pub part: Arc<PartSelector>,
    pub arms: usize,
    pub probe: bool,
    pub walk: Direction,
    pub deferred: bool,
    pub limit: i64,
}

impl<Q, K: Keyset> UnionPage<Q, K> {
    pub(crate) fn new(query: Q, parts: UnionParts<K>) -> Self {
        UnionPage {
            query,
            seek: parts.seek,
            order: parts.order,
            part: parts.part,
            arms: parts.arms,
            probe: parts.probe,
            walk: parts.walk,
            deferred: parts.deferred,
            limit: parts.limit,
            probe_limit: 1,
            outer_limit: parts.limit + i64::from(parts.probe),
            _model: PhantomData,
        }
    }
}

impl<Q: std::fmt::Debug, K: Keyset> std::fmt::Debug for UnionPage<Q, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnionPage")
            .field("query", &self.query)
            .field("seek", &self.seek)
            .field("arms", &self.arms)
            .field("probe", &self.probe)
            .field("walk", &self.walk)
            .field("deferred", &self.deferred)
            .field("limit", &self.limit)
            .finish()
    }
}

impl<Q, K: Keyset> QueryId for UnionPage<Q, K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query, K: Keyset> Query for UnionPage<Q, K>
where
    K::Columns: Expression,
{
    type SqlType = (Q::SqlType, SqlTypeOf<K::Columns>, Integer);
}

impl<Q, K: Keyset, Conn> RunQueryDsl<Conn> for UnionPage<Q, K> {}

/// The union's key columns by their aliases.
struct OuterColumns<'p, 'a, 'b, DB: diesel::backend::Backend> {
    out: &'p mut AstPass<'a, 'b, DB>,
}

impl<DB: diesel::backend::Backend> Emitter for OuterColumns<'_, '_, '_, DB> {
    fn sql(&mut self, sql: &str) {
        self.out.push_sql(sql);
    }
    fn column(&mut self, index: usize) -> QueryResult<()> {
        self.out.push_identifier(&key_alias(index))
    }
    fn value(&mut self, index: usize) -> QueryResult<()> {
        Err(crate::keyset::__index_error(index))
    }
}

impl<Q, K, DB> QueryFragment<DB> for UnionPage<Q, K>
where
    DB: KeysetBackend + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
    Q: SelectParts<DB>,
    K: KeysetSql<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let mut branches: Vec<Part> = (0..self.arms).map(Part::Arm).collect();
        if self.probe {
            branches.push(Part::Probe);
        }
        for (i, part) in branches.iter().enumerate() {
            if i > 0 {
                out.push_sql(" UNION ALL ");
            }
            out.push_sql(if DB::PARENTHESIZED_UNION {
                "("
            } else {
                "SELECT * FROM ("
            });
            let (limit, arm) = match part {
                Part::Probe => (&self.probe_limit, "1"),
                Part::Arm(_) => (&self.limit, "0"),
            };
            self.part.set(*part);
            let walked = walk_statement(
                Statement {
                    query: &self.query,
                    seek: &self.seek,
                    order: &self.order,
                    limit,
                    deferred: self.deferred,
                    extras: Some(arm),
                },
                out.reborrow(),
            );
            self.part.set(Part::Arm(0));
            walked?;
            out.push_sql(")");
            if !DB::PARENTHESIZED_UNION {
                out.push_sql(" AS ");
                out.push_identifier(&format!("__keyset_b{i}"))?;
            }
        }
        out.push_sql(" ORDER BY ");
        if self.probe {
            out.push_identifier(ARM_ALIAS)?;
            out.push_sql(" DESC, ");
        }
        let terms = terms::<K>(self.walk);
        sql::write_order(&mut OuterColumns { out: &mut out }, &terms, dialect::<DB>())?;
        out.push_sql(" LIMIT ");
        out.push_bind_param::<BigInt, i64>(&self.outer_limit)
    }
}
