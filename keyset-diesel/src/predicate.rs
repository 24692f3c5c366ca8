//! Diesel expression nodes: [`SeekPredicate`] (the `WHERE` condition "strictly after this key")
//! and [`KeysetOrder`] (the matching `ORDER BY`). Both are written from [`Keyset::COLUMNS`], so
//! they cannot disagree.
//!
//! Their SQL text depends on runtime data (walk direction, which key values are NULL), so
//! `HAS_STATIC_QUERY_ID` is false: Diesel then caches prepared statements by SQL text, never
//! reusing a statement written for another shape.

use std::fmt;
use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::{
    is_aggregate, AppearsOnTable, Expression, SelectableExpression, ValidGrouping,
};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::query_source::AppearsInFromClause;
use diesel::sql_types::Bool;
use diesel::QueryResult;

use crate::backend::{dialect, keyset_dialect, KeysetBackend};
use crate::checks::KeysetTableInQuery;
use crate::cursor::Direction;
use crate::keyset::{column_index_error, Keyset, KeysetSql};
use crate::sql::{self, Dialect, Emitter, Part, SeekPlan, Short, Term};
use crate::value::KeyTuple;

/// [`Emitter`] over Diesel's `AstPass`.
struct Pass<'p, 'a, 'b, DB: Backend, K: Keyset> {
    out: &'p mut AstPass<'a, 'b, DB>,
    key: Option<&'b K::Key>,
}

impl<DB: Backend, K: KeysetSql<DB>> Emitter for Pass<'_, '_, '_, DB, K> {
    fn sql(&mut self, sql: &str) {
        self.out.push_sql(sql);
    }
    fn column(&mut self, index: usize) -> QueryResult<()> {
        K::walk_column(index, self.out.reborrow())
    }
    fn value(&mut self, index: usize) -> QueryResult<()> {
        match self.key {
            Some(key) => K::walk_value(key, index, self.out.reborrow()),
            None => Err(column_index_error(index)),
        }
    }
}

/// `WHERE` condition selecting the rows strictly after `key` in the keyset's order (or strictly
/// before it, walking backward). The crate docs ("The SQL") give the exact SQL per backend.
///
/// As a Diesel expression (`.filter(seek)`) it is the whole seek in one condition. A page
/// query may split it into arms, one union branch each (see
/// [`Paginated::seek_per_level`](crate::Paginated::seek_per_level)); that split is planned
/// once, when the page is built.
pub struct SeekPredicate<K: Keyset> {
    key: K::Key,
    walk: Direction,
    plan: SeekPlan,
    /// Whether the seek may be a row-value comparison where the backend seeks on one; false
    /// writes the expanded form ([`Paginated::expanded_seek`](crate::Paginated::expanded_seek)).
    row_values: bool,
    /// The keyset's terms for `walk`, listed once here rather than in each of Diesel's passes
    /// over the statement.
    terms: Short<Term>,
}

impl<K: Keyset> SeekPredicate<K> {
    /// The predicate for rows after (`Forward`) or before (`Backward`) `key`, as one
    /// condition.
    pub fn new(key: K::Key, walk: Direction) -> Self {
        SeekPredicate {
            key,
            walk,
            plan: SeekPlan::Single,
            row_values: true,
            terms: sql::terms(K::COLUMNS, walk),
        }
    }

    /// The same predicate written in the expanded form on every backend (`expanded`), or in
    /// the backend's own form (the default).
    pub(crate) fn expanded(mut self, expanded: bool) -> Self {
        self.row_values = !expanded;
        self
    }

    /// The predicate a page query writes on a backend with `dialect`: its arms planned once
    /// here ([`SeekPlan`]), split per key level when `per_level`; without row values where
    /// `dialect` has none.
    pub(crate) fn planned(key: K::Key, walk: Direction, dialect: Dialect, per_level: bool) -> Self {
        let terms = sql::terms(K::COLUMNS, walk);
        let plan = SeekPlan::new(&terms, &|i| KeyTuple::is_null(&key, i), dialect, per_level);
        SeekPredicate {
            key,
            walk,
            plan,
            row_values: dialect.row_values,
            terms,
        }
    }

    /// The dialect this predicate is written in on `DB`.
    fn dialect<DB: KeysetBackend>(&self) -> Dialect {
        let mut dialect = keyset_dialect::<DB, K>();
        dialect.row_values &= self.row_values;
        dialect
    }

    /// How many arms (union branches) the seek has.
    pub(crate) fn arms(&self) -> usize {
        self.plan.arms()
    }

    /// Writes `part` of the seek: an arm of its plan, or the probe of the other side.
    pub(crate) fn walk_part<'b, DB>(
        &'b self,
        part: Part,
        mut out: AstPass<'_, 'b, DB>,
    ) -> QueryResult<()>
    where
        DB: KeysetBackend,
        K: KeysetSql<DB>,
    {
        let key = &self.key;
        let mut pass = Pass::<DB, K> {
            out: &mut out,
            key: Some(key),
        };
        sql::write_part(
            &mut pass,
            &self.terms,
            &|i| KeyTuple::is_null(key, i),
            self.dialect::<DB>(),
            self.plan,
            part,
        )
    }
}

impl<K: Keyset> Clone for SeekPredicate<K> {
    fn clone(&self) -> Self {
        SeekPredicate {
            key: self.key.clone(),
            walk: self.walk,
            plan: self.plan,
            row_values: self.row_values,
            terms: self.terms.clone(),
        }
    }
}

impl<K: Keyset> fmt::Debug for SeekPredicate<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeekPredicate")
            .field("key", &self.key)
            .field("walk", &self.walk)
            .field("plan", &self.plan)
            .field("row_values", &self.row_values)
            .finish()
    }
}

impl<K: Keyset> Expression for SeekPredicate<K> {
    type SqlType = Bool;
}

/// "The key columns appear on `QS`" is "`K::Table` appears once in `QS`, and then every key
/// column (a joined table's too) appears on `QS`", said with the marker trait whose message
/// names the fix (the same predicate as `PageSource`'s, so a query on the wrong table gets
/// that message, not Diesel's type mismatch on `AppearsInFromClause::Count`).
impl<K: Keyset, QS> AppearsOnTable<QS> for SeekPredicate<K>
where
    Self: Expression,
    QS: AppearsInFromClause<K::Table>,
    QS::Count: KeysetTableInQuery<K, K::Table, QS>,
{
}

impl<K: Keyset, QS> SelectableExpression<QS> for SeekPredicate<K>
where
    Self: AppearsOnTable<QS>,
    K::Columns: SelectableExpression<QS>,
{
}

impl<K: Keyset, GB> ValidGrouping<GB> for SeekPredicate<K> {
    type IsAggregate = is_aggregate::No;
}

impl<K: Keyset> QueryId for SeekPredicate<K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<K, DB> QueryFragment<DB> for SeekPredicate<K>
where
    DB: KeysetBackend,
    K: KeysetSql<DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.walk_part(Part::Arm(0), out)
    }
}

/// `ORDER BY` expression for the keyset in a walk direction: every key column with its
/// direction, and its NULL placement when nullable (`NULLS FIRST/LAST`, or a leading
/// `col IS NULL` term on MySQL).
pub struct KeysetOrder<K: Keyset> {
    walk: Direction,
    _model: PhantomData<fn() -> K>,
}

impl<K: Keyset> KeysetOrder<K> {
    /// The order for walking forward (the declared order) or backward (its exact reverse).
    pub fn new(walk: Direction) -> Self {
        KeysetOrder {
            walk,
            _model: PhantomData,
        }
    }

    /// The walk direction this order is for.
    pub(crate) fn walk(&self) -> Direction {
        self.walk
    }
}

impl<K: Keyset> Clone for KeysetOrder<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: Keyset> Copy for KeysetOrder<K> {}

impl<K: Keyset> fmt::Debug for KeysetOrder<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeysetOrder")
            .field("walk", &self.walk)
            .finish()
    }
}

impl<K: Keyset> Expression for KeysetOrder<K> {
    type SqlType = diesel::expression::expression_types::NotSelectable;
}

/// As for [`SeekPredicate`].
impl<K: Keyset, QS> AppearsOnTable<QS> for KeysetOrder<K>
where
    Self: Expression,
    QS: AppearsInFromClause<K::Table>,
    QS::Count: KeysetTableInQuery<K, K::Table, QS>,
{
}

impl<K: Keyset, GB> ValidGrouping<GB> for KeysetOrder<K>
where
    K::Columns: ValidGrouping<GB>,
{
    type IsAggregate = <K::Columns as ValidGrouping<GB>>::IsAggregate;
}

impl<K: Keyset> QueryId for KeysetOrder<K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<K, DB> QueryFragment<DB> for KeysetOrder<K>
where
    DB: KeysetBackend,
    K: KeysetSql<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let mut pass = Pass::<DB, K> {
            out: &mut out,
            key: None,
        };
        sql::write_order(
            &mut pass,
            sql::each_term(K::COLUMNS, self.walk),
            dialect::<DB>(),
        )
    }
}
