//! The page query when one seek is not enough: a union of the seek's arms (a nullable leading
//! column whose NULL group lies on the far side of the cursor, or one arm per key level with
//! [`crate::Paginated::seek_per_level`]) and, for exact flags, a one-row probe of the other
//! side, in one statement. On PostgreSQL and MySQL:
//!
//! ```sql
//! (SELECT <your select>, "t"."a" AS "__keyset_k0", "t"."id" AS "__keyset_k1", 0 AS "__keyset_kind"
//!    FROM t WHERE <your filters> AND (<seek, arm 0>) ORDER BY <keyset> LIMIT 21)
//! UNION ALL (SELECT ..., 0 AS "__keyset_kind" ... (<seek, arm 1>) ... LIMIT 21)
//! UNION ALL (SELECT ..., 1 AS "__keyset_kind" ... (<at or before the cursor>) ... LIMIT 1)
//! ORDER BY "__keyset_kind" DESC, "__keyset_k0" ASC NULLS LAST, "__keyset_k1" ASC LIMIT 22
//! ```
//!
//! (A page of 20 rows. On PostgreSQL the limits of pages of up to 100 rows are numbers in
//! the text, [`limit_is_text`]; elsewhere, and for larger pages, binds.)
//!
//! SQLite writes the arms as plain members, `SELECT .. WHERE <seek, arm 0> UNION ALL SELECT ..
//! WHERE <seek, arm 1> ORDER BY "__keyset_k0" .. LIMIT $m`: it merges them in the compound's
//! order, which each arm's index range delivers, and stops at the `LIMIT`. With a probe or a
//! count row (which read in another order) it writes each branch as `SELECT * FROM
//! (<branch>)`, its way of ordering and limiting a compound member. With [`crate::Paginated::with_total_count`] one more branch, the count
//! row, reads the first row of your query without the seek (`LIMIT 1`, `2 AS
//! "__keyset_kind"`) and carries the total count in `__keyset_total` (the other branches carry
//! `0`), so a later page has its count even when no row follows the cursor; it is read, never
//! returned. Each branch is the ordinary page statement (your filters, the arm's seek
//! predicate, the keyset's `ORDER BY`, `LIMIT page_size + 1`; on MySQL the deferred join), so
//! each keeps its own index range. The outer `ORDER BY` uses the key columns each branch
//! selects under its own aliases, so your select list may contain any names, duplicates
//! included. Each branch also selects its key columns' storage classes (`__keyset_class`,
//! read on SQLite, `0` elsewhere). The rows load as `(row, key, kind, classes)`.

use diesel::dsl::SqlTypeOf;
use diesel::expression::Expression;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDslSupport;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType, Integer};
use diesel::QueryResult;

use super::seek::{admits_unrepresented, FarBound, KeysetOrder, SeekPredicate};
use super::source::{PageSource, SelectParts};
use super::sql::{self, Emitter, Part};
use super::statement::{
    key_alias, limit_is_text, walk_limit, walk_statement, Arm, RowKind, Statement, StaticShape,
    Total, KIND_ALIAS,
};
use super::text_memo::{self, text_key, write_sql, TextKey};
use crate::backend::{dialect, KeysetBackend};
use crate::cursor::Direction;
use crate::keyset::{column_index_error, Keyset, KeysetSql, NullsOrder};

/// A union page query: one branch per arm of the seek's plan, plus the probe for exact flags
/// and the count row for the total count; loads `(row, key, kind, classes)` where `kind` says
/// which of the three a row is (0 for page rows, 1 for the probe row, 2 for the count row) and
/// `classes` holds the key columns' SQLite storage classes (`0` on other backends).
pub struct UnionPage<Q, K: Keyset> {
    query: Q,
    /// The seek after the cursor; `None` on a first page split around the leading column's
    /// NULL group ([`UnionPage::first_split`]) or counted in a window
    /// ([`UnionPage::first_counted`]).
    seek: Option<SeekPredicate<K>>,
    /// The arm holding the leading column's NULL group, when the arms split its values from it.
    null_arm: Option<usize>,
    /// The window's far end ([`crate::Paginated::until`]), on every arm (not the probe or
    /// the count row).
    until: Option<FarBound<K>>,
    order: KeysetOrder<K>,
    /// The `ORDER BY` of a values arm and of the NULL group's arm: `order`, or when the arms
    /// split the leading column's values from its NULL group, that of each side
    /// ([`KeysetOrder::of_split_arm`]).
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
        let null_arm = seek.null_arm();
        Self::of_arms(
            query,
            Some(seek),
            null_arm,
            order,
            probe,
            deferred,
            limit,
            count,
        )
    }

    /// The first page of a keyset whose leading column is nullable and placed where MySQL
    /// sorts it only with a `col IS NULL` term ([`sql::sorts_placement`]): the values and the
    /// NULL group as two arms, each read in its index's order (`WHERE col IS NOT NULL ORDER
    /// BY col, ..` and `WHERE col IS NULL ORDER BY ..`), where one statement ordered by the
    /// term sorts every row of your query (`Using filesort`). As a deferred join when
    /// `deferred` (its inner, index-only query ranges over the values where the direct form's
    /// `ref` access reads the NULL group first). `Err(query)` for any other
    /// keyset or backend (and for a keyset whose seek admits values its key type does not
    /// represent: its arms keep the term).
    pub(crate) fn first_split<DB: KeysetBackend>(
        query: Q,
        order: KeysetOrder<K>,
        deferred: bool,
        limit: i64,
        count: bool,
    ) -> Result<Self, Q> {
        if !splits_first_page::<DB, K>(order.walk()) {
            return Err(query);
        }
        let null_arm = match sql::terms(K::COLUMNS, order.walk())
            .first()
            .and_then(|t| t.nulls)
        {
            Some(NullsOrder::Last) => 1,
            _ => 0,
        };
        Ok(Self::of_arms(
            query,
            None,
            Some(null_arm),
            order,
            false,
            deferred,
            limit,
            count,
        ))
    }

    /// A first page with the total count inside a window ([`crate::Paginated::until`]): one
    /// arm without a seek, and the count row, which carries the count even when the window
    /// holds no row (a statement whose rows carry the count has no row to carry it then).
    pub(crate) fn first_counted(
        query: Q,
        order: KeysetOrder<K>,
        deferred: bool,
        limit: i64,
    ) -> Self {
        Self::of_arms(query, None, None, order, false, deferred, limit, true)
    }

    #[allow(clippy::too_many_arguments)] // the union's parts, each named at the three callers
    fn of_arms(
        query: Q,
        seek: Option<SeekPredicate<K>>,
        null_arm: Option<usize>,
        order: KeysetOrder<K>,
        probe: bool,
        deferred: bool,
        limit: i64,
        count: bool,
    ) -> Self {
        let arm_orders = match null_arm {
            Some(_) => [false, true].map(|null_group| order.of_split_arm(null_group)),
            None => [order; 2],
        };
        UnionPage {
            query,
            walk: order.walk(),
            seek,
            null_arm,
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
    /// [`PageStatement::static_shape`](super::PageStatement::static_shape)): its
    /// [`text_shape`](Self::text_shape) when its limits are binds ([`limit_is_text`]) and it
    /// reads the index and takes the deferred join the keyset and backend choose by default.
    pub(crate) fn static_shape<DB: KeysetBackend>(&self) -> Option<StaticShape>
    where
        Q: PageSource<K>,
    {
        let default_index = self.query.default_index();
        let default_deferred = DB::DEFERRED_JOIN && default_index.is_none();
        self.text_shape::<DB>().filter(|_| {
            !limit_is_text::<DB>(self.limit)
                && self.index == default_index
                && self.deferred == default_deferred
        })
    }

    /// The shape whose SQL text this union's types fix on `DB`, given its limit, index and
    /// deferred join, if its text is that one: a leading NULL split after a key without NULLs
    /// in the backend's own dialect, with no probe, count row or far bound (so the union's
    /// limit is its arms' limit). Decided from every field the writer reads, named one by one.
    pub(crate) fn text_shape<DB: KeysetBackend>(&self) -> Option<StaticShape> {
        let UnionPage {
            query: _,
            seek,
            null_arm: _,
            until,
            order: _,
            arm_orders: _,
            probe,
            walk,
            deferred: _,
            limit: _,
            probe_limit: _,
            outer_limit: _,
            count,
            index: _,
        } = self;
        // `order`, `arm_orders` and `null_arm` follow from `walk` and the seek's plan. A first
        // page split has no shape: its text is cached by Diesel as text.
        let seek = seek.as_ref()?;
        let fixed = until.is_none() && !*probe && !*count && seek.split_text_is_fixed::<DB>();
        fixed.then_some(match walk {
            Direction::Forward => StaticShape::SplitForward,
            Direction::Backward => StaticShape::SplitBackward,
        })
    }

    /// Whether the branches are written as plain members of one compound, without
    /// `ORDER BY` and `LIMIT` of their own: on SQLite, when every branch is an arm of the
    /// page (no probe, no count row). SQLite merges such a compound by giving each member the
    /// compound's `ORDER BY`, which each arm's index range delivers as it reads, and stops
    /// reading at the compound's `LIMIT`; a member written as `SELECT * FROM (..)` to carry
    /// its own `ORDER BY` is sorted again into a temporary B-tree before the merge
    /// ([a union merged in index
    /// order](crate::guide::sql#sqlite-a-union-merged-in-index-order)). The probe and the count row
    /// read in another order than the page, so a union holding them keeps that form.
    fn flat<DB: KeysetBackend>(&self) -> bool {
        !DB::PARENTHESIZED_UNION && !self.probe && !self.count
    }

    /// The branches, in order: every arm of the seek (a first page: the values and the NULL
    /// group when split, else one arm), then the probe, then the count row (no seek: `None`).
    fn branches(&self) -> impl Iterator<Item = Option<Part>> {
        let probe = self.probe.then_some(Some(Part::Probe));
        let count = self.count.then_some(None);
        let first_arms = if self.null_arm.is_some() { 2 } else { 1 };
        (0..self.seek.as_ref().map_or(first_arms, SeekPredicate::arms))
            .map(|i| Some(Part::Arm(i)))
            .chain(probe)
            .chain(count)
    }
}

/// Whether the first page of `K` walking `walk` on `DB` is a union of the leading column's
/// values and its NULL group ([`UnionPage::first_split`]): a leading nullable column that
/// `DB` orders only with a `col IS NULL` term, and a seek that admits no values the key type
/// does not represent.
pub(crate) fn splits_first_page<DB: KeysetBackend, K: Keyset>(walk: Direction) -> bool {
    let terms = sql::terms(K::COLUMNS, walk);
    terms.len() > 1
        && terms
            .first()
            .is_some_and(|t| sql::sorts_placement(*t, dialect::<DB>()))
        && !admits_unrepresented::<DB, K>()
}

impl<Q: std::fmt::Debug, K: Keyset> std::fmt::Debug for UnionPage<Q, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut debug = f.debug_struct("UnionPage");
        debug.field("query", &self.query);
        match &self.seek {
            Some(seek) => debug.field("seek", seek),
            // A first page split around the leading column's NULL group.
            None => debug.field("null_arm", &self.null_arm),
        };
        debug
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
    type SqlType = (Q::SqlType, SqlTypeOf<K::Columns>, Integer, Integer);
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

impl<Q: PageSource<K> + QueryId, K: Keyset + 'static> UnionPage<Q, K> {
    /// The key of this union's kept text on `DB` (`query/text_memo.rs`), where its types,
    /// limit, index and deferred join fix it.
    fn memo_key<DB: KeysetBackend + 'static>(&self) -> Option<TextKey> {
        text_key::<DB, Q, K>(
            self.text_shape::<DB>().map(|shape| shape as u8),
            self.limit,
            limit_is_text::<DB>(self.limit),
            self.index,
            self.deferred,
        )
    }
}

impl<Q, K, DB> QueryFragment<DB> for UnionPage<Q, K>
where
    DB: KeysetBackend + HasSqlType<BigInt> + 'static,
    DB::QueryBuilder: Default,
    i64: ToSql<BigInt, DB>,
    Q: SelectParts<DB> + PageSource<K> + QueryId,
    K: KeysetSql<DB> + 'static,
{
    /// The union's SQL, kept once per thread where its types, limit, index and deferred join
    /// fix it (`query/text_memo.rs`).
    fn to_sql(&self, out: &mut DB::QueryBuilder, backend: &DB) -> QueryResult<()> {
        write_sql(self.memo_key::<DB>(), self, out, backend)
    }

    /// Kept with the text (`query/text_memo.rs`).
    fn count_binds(&self, backend: &DB) -> QueryResult<usize> {
        text_memo::count_binds(self.memo_key::<DB>(), self, backend)
    }

    /// Kept with the text (`query/text_memo.rs`).
    fn is_safe_to_cache_prepared(&self, backend: &DB) -> QueryResult<bool> {
        text_memo::is_safe_to_cache_prepared(self.memo_key::<DB>(), self, backend)
    }

    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let flat = self.flat::<DB>();
        for (i, part) in self.branches().enumerate() {
            if i > 0 {
                out.push_sql(" UNION ALL ");
            }
            if !flat {
                out.push_sql(if DB::PARENTHESIZED_UNION {
                    "("
                } else {
                    "SELECT * FROM ("
                });
            }
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
                    seek: match (&self.seek, part) {
                        (Some(seek), Some(part)) => Some(Arm::Seek(seek, part)),
                        (None, Some(Part::Arm(arm))) => self
                            .null_arm
                            .map(|null_arm| Arm::NullGroup(null_arm == arm)),
                        _ => None,
                    },
                    until: match part {
                        Some(Part::Arm(_)) => self.until.as_ref(),
                        _ => None,
                    },
                    order: match part {
                        Some(Part::Arm(arm)) => {
                            &self.arm_orders[usize::from(self.null_arm == Some(arm))]
                        }
                        _ => &self.order,
                    },
                    limit: (!flat).then_some(limit),
                    deferred: self.deferred,
                    index: self.index,
                    kind: Some(kind),
                    classes: true,
                    total,
                },
                out.reborrow(),
            )?;
            if flat {
                continue;
            }
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
