//! The page query when one seek is not enough: a union of the seek's arms (a nullable leading
//! column whose NULL group lies on the far side of the cursor, or one arm per key level with
//! [`crate::Paginated::seek_per_level`]) and, for exact flags, a one-row probe of the other
//! side, in one statement. On PostgreSQL and MySQL:
//!
//! ```sql
//! (SELECT <your select>, "t"."a" AS "__keyset_k0", "t"."id" AS "__keyset_k1", 0 AS "__keyset_kind"
//!    FROM t WHERE <your filters> AND (<seek, arm 0>) ORDER BY <keyset> LIMIT $n)
//! UNION ALL (SELECT ..., 0 AS "__keyset_kind" ... (<seek, arm 1>) ... LIMIT $n)
//! UNION ALL (SELECT ..., 1 AS "__keyset_kind" ... (<at or before the cursor>) ... LIMIT 1)
//! ORDER BY "__keyset_kind" DESC, "__keyset_k0" ASC NULLS LAST, "__keyset_k1" ASC LIMIT $m
//! ```
//!
//! (SQLite writes each branch as `SELECT * FROM (<branch>)`, its way of ordering and limiting
//! a compound member.) With [`crate::Paginated::with_total_count`] one more branch, the count
//! row, reads the first row of your query without the seek (`LIMIT 1`, `2 AS
//! "__keyset_kind"`) and carries the total count in `__keyset_total` (the other branches carry
//! `0`), so a later page has its count even when no row follows the cursor; it is read, never
//! returned. Each branch is the ordinary page statement (your filters, the arm's seek
//! predicate, the keyset's `ORDER BY`, `LIMIT page_size + 1`; on MySQL the deferred join), so
//! each keeps its own index range. The outer `ORDER BY` uses the key columns each branch
//! selects under its own aliases, so your select list may contain any names, duplicates
//! included. The rows load as `(row, key, kind)`.

use diesel::dsl::SqlTypeOf;
use diesel::expression::Expression;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDslSupport;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType, Integer};
use diesel::QueryResult;

use super::seek::{FarBound, KeysetOrder, SeekPredicate};
use super::source::{PageSource, SelectParts};
use super::sql::{self, Emitter, Part};
use super::statement::{
    key_alias, walk_limit, walk_statement, RowKind, Statement, StaticShape, Total, KIND_ALIAS,
};
use crate::backend::{dialect, KeysetBackend};
use crate::cursor::Direction;
use crate::keyset::{column_index_error, Keyset, KeysetSql};

/// A union page query: one branch per arm of the seek's plan, plus the probe for exact flags
/// and the count row for the total count; loads `(row, key, kind)` where `kind` says which of
/// the three a row is (0 for page rows, 1 for the probe row, 2 for the count row).
pub struct UnionPage<Q, K: Keyset> {
    query: Q,
    seek: SeekPredicate<K>,
    /// The window's far end ([`crate::Paginated::until`]), on every arm (not the probe or
    /// the count row).
    until: Option<FarBound<K>>,
    order: KeysetOrder<K>,
    /// The `ORDER BY` of each arm: `order`, or when the arms split the leading column's values
    /// from its NULL group, that of each split arm ([`KeysetOrder::of_split_arm`]).
    arm_orders: [KeysetOrder<K>; 2],
    probe: bool,
    walk: Direction,
    deferred: bool,
    /// `LIMIT` of each arm: page size + 1.
    limit: i64,
    /// `LIMIT` of the probe.
    probe_limit: i64,
    /// `LIMIT` of the union: page size + 1, + 1 with a probe, + 1 with the count row.
    outer_limit: i64,
    /// A count row branch carrying the total count.
    count: bool,
    /// The index every branch's seek must read ([`crate::Paginated::force_index`]).
    index: Option<&'static str>,
}

impl<Q, K: Keyset> UnionPage<Q, K> {
    /// The union of `seek`'s arms (as planned) and, with `probe`, the probe, each branch
    /// `LIMIT limit` (the probe `LIMIT 1`).
    pub(crate) fn new(
        query: Q,
        seek: SeekPredicate<K>,
        order: KeysetOrder<K>,
        probe: bool,
        deferred: bool,
        limit: i64,
        count: bool,
    ) -> Self {
        let arm_orders = match seek.null_arm() {
            Some(null_arm) => [0, 1].map(|arm| order.of_split_arm(arm == null_arm)),
            None => [order; 2],
        };
        UnionPage {
            query,
            walk: order.walk(),
            seek,
            until: None,
            order,
            arm_orders,
            probe,
            deferred,
            limit,
            probe_limit: 1,
            outer_limit: limit + i64::from(probe) + i64::from(count),
            count,
            index: None,
        }
    }

    /// Read every branch's seek through this index.
    pub(crate) fn index(mut self, index: Option<&'static str>) -> Self {
        self.index = index;
        self
    }

    /// Only the rows inside `until` (the window's far end), on every arm.
    pub(crate) fn until(mut self, until: Option<FarBound<K>>) -> Self {
        self.until = until;
        self
    }

    /// The shape whose SQL text this union's types fix on `DB`, if its text is that one (as
    /// [`PageStatement::static_shape`](super::PageStatement::static_shape)): a leading NULL
    /// split after a key without NULLs in the backend's own dialect, with no probe, count row
    /// or far bound, and the index and deferred join the keyset and backend choose by default.
    /// Decided from every field the writer reads, named one by one.
    pub(crate) fn static_shape<DB: KeysetBackend>(&self) -> Option<StaticShape>
    where
        Q: PageSource<K>,
    {
        let UnionPage {
            query,
            seek,
            until,
            order: _,
            arm_orders: _,
            probe,
            walk,
            deferred,
            limit: _,
            probe_limit: _,
            outer_limit: _,
            count,
            index,
        } = self;
        // `order` and `arm_orders` follow from `walk` and the seek's plan.
        let default_index = query.default_index();
        let default_deferred = DB::DEFERRED_JOIN && default_index.is_none();
        let fixed = until.is_none()
            && !*probe
            && !*count
            && *index == default_index
            && *deferred == default_deferred
            && seek.split_text_is_fixed::<DB>();
        fixed.then_some(match walk {
            Direction::Forward => StaticShape::SplitForward,
            Direction::Backward => StaticShape::SplitBackward,
        })
    }

    /// The branches, in order: every arm of the seek, then the probe, then the count row
    /// (no seek: `None`).
    fn branches(&self) -> impl Iterator<Item = Option<Part>> {
        let probe = self.probe.then_some(Some(Part::Probe));
        let count = self.count.then_some(None);
        (0..self.seek.arms())
            .map(|i| Some(Part::Arm(i)))
            .chain(probe)
            .chain(count)
    }
}

impl<Q: std::fmt::Debug, K: Keyset> std::fmt::Debug for UnionPage<Q, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnionPage")
            .field("query", &self.query)
            .field("seek", &self.seek)
            .field("until", &self.until)
            .field("probe", &self.probe)
            .field("walk", &self.walk)
            .field("deferred", &self.deferred)
            .field("limit", &self.limit)
            .field("count", &self.count)
            .field("index", &self.index)
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

impl<Q, K: Keyset> RunQueryDslSupport for UnionPage<Q, K> {}

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
        Err(column_index_error(index))
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
        for (i, part) in self.branches().enumerate() {
            if i > 0 {
                out.push_sql(" UNION ALL ");
            }
            out.push_sql(if DB::PARENTHESIZED_UNION {
                "("
            } else {
                "SELECT * FROM ("
            });
            let (limit, kind) = match part {
                Some(Part::Probe) => (&self.probe_limit, RowKind::Probe),
                Some(Part::Arm(_)) => (&self.limit, RowKind::Page),
                None => (&self.probe_limit, RowKind::Count),
            };
            let total = match (self.count, kind) {
                (false, _) => Total::None,
                (true, RowKind::Count) => Total::Count,
                (true, _) => Total::Zero,
            };
            walk_statement(
                Statement {
                    query: &self.query,
                    seek: part.map(|part| (&self.seek, part)),
                    until: match part {
                        Some(Part::Arm(_)) => self.until.as_ref(),
                        _ => None,
                    },
                    order: match part {
                        Some(Part::Arm(arm)) => self.arm_orders.get(arm).unwrap_or(&self.order),
                        _ => &self.order,
                    },
                    limit,
                    deferred: self.deferred,
                    index: self.index,
                    kind: Some(kind),
                    total,
                },
                out.reborrow(),
            )?;
            out.push_sql(")");
            if !DB::PARENTHESIZED_UNION {
                out.push_sql(" AS ");
                out.push_identifier(&format!("__keyset_b{i}"))?;
            }
        }
        out.push_sql(" ORDER BY ");
        if self.probe || self.count {
            out.push_identifier(KIND_ALIAS)?;
            out.push_sql(" DESC, ");
        }
        sql::write_order(
            &mut OuterColumns { out: &mut out },
            sql::each_term(K::COLUMNS, self.walk),
            dialect::<DB>(),
        )?;
        walk_limit(&self.outer_limit, out)
    }
}
