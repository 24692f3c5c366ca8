//! Diesel expression nodes: [`SeekPredicate`] (the `WHERE` condition "strictly after this key")
//! and [`KeysetOrder`] (the matching `ORDER BY`). Both are written from [`Keyset::COLUMNS`], so
//! they cannot disagree.
//!
//! Their SQL text depends on runtime data (walk direction, which key values are NULL), so
//! `HAS_STATIC_QUERY_ID` is false: Diesel then caches prepared statements by SQL text, never
//! reusing a statement written for another shape.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use diesel::backend::Backend;
use diesel::expression::{
    is_aggregate, AppearsOnTable, Expression, SelectableExpression, ValidGrouping,
};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::query_source::AppearsInFromClause;
use diesel::sql_types::Bool;
use diesel::QueryResult;

use crate::backend::KeysetBackend;
use crate::checks::KeysetTableInQuery;
use crate::cursor::Direction;
use crate::keyset::{Keyset, KeysetSql};
use crate::sql::{self, Dialect, Emitter, Part, Term};
use crate::value::KeyTuple;

pub(crate) fn dialect<DB: KeysetBackend>() -> Dialect {
    Dialect {
        row_values: DB::ROW_VALUES,
        nulls_order_syntax: DB::NULLS_ORDER_SYNTAX,
    }
}

pub(crate) fn terms<K: Keyset>(walk: Direction) -> Vec<Term> {
    K::COLUMNS.iter().map(|c| Term::new(c, walk)).collect()
}

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
            None => Err(crate::keyset::__index_error(index)),
        }
    }
}

/// Which part of a seek ([`Part`]) the predicates sharing it render. The page query that
/// needs several parts (a union of arms, a probe) sets it before writing each branch; Diesel
/// walks the whole statement from the top in every pass, so each pass sees the same sequence.
#[derive(Debug, Default)]
pub(crate) struct PartSelector(AtomicUsize);

const PROBE: usize = usize::MAX;

impl PartSelector {
    pub(crate) fn set(&self, part: Part) {
        let value = match part {
            Part::Arm(i) => i,
            Part::Probe => PROBE,
        };
        self.0.store(value, Ordering::Relaxed);
    }

    fn get(&self) -> Part {
        match self.0.load(Ordering::Relaxed) {
            PROBE => Part::Probe,
            i => Part::Arm(i),
        }
    }
}

/// `WHERE` condition selecting the rows strictly after `key` in the keyset's order (or strictly
/// before it, walking backward). The crate docs ("The SQL") give the exact SQL per backend.
pub struct SeekPredicate<K: Keyset> {
    key: K::Key,
    walk: Direction,
    part: Arc<PartSelector>,
    /// One union arm per key level (see [`crate::Paginated::seek_per_level`]).
    per_level: bool,
}

impl<K: Keyset> SeekPredicate<K> {
    /// The predicate for rows after (`Forward`) or before (`Backward`) `key`.
    pub fn new(key: K::Key, walk: Direction) -> Self {
        SeekPredicate {
            key,
            walk,
            part: Arc::default(),
            per_level: false,
        }
    }

    /// A predicate whose part is chosen by `part` (for a union page query), split per key
    /// level when `per_level`.
    pub(crate) fn with_selector(
        key: K::Key,
        walk: Direction,
        part: Arc<PartSelector>,
        per_level: bool,
    ) -> Self {
        SeekPredicate {
            key,
            walk,
            part,
            per_level,
        }
    }

    /// How many arms the seek has for this key on a backend with `dialect` (see
    /// [`crate::sql::arm_count`]).
    pub(crate) fn arm_count(&self, dialect: Dialect) -> usize {
        let terms = terms::<K>(self.walk);
        sql::arm_count(
            &terms,
            &|i| KeyTuple::is_null(&self.key, i),
            dialect,
            self.per_level,
        )
    }
}

impl<K: Keyset> Clone for SeekPredicate<K> {
    fn clone(&self) -> Self {
        SeekPredicate {
            key: self.key.clone(),
            walk: self.walk,
            part: self.part.clone(),
            per_level: self.per_level,
        }
    }
}

impl<K: Keyset> fmt::Debug for SeekPredicate<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeekPredicate")
            .field("key", &self.key)
            .field("walk", &self.walk)
            .field("per_level", &self.per_level)
            .finish()
    }
}

impl<K: Keyset> Expression for SeekPredicate<K> {
    type SqlType = Bool;
}

/// Every key column is a column of `K::Table`, so "the key columns appear on `QS`" is "`K::Table`
/// appears once in `QS`", said with the marker trait whose message names the fix (the same
/// predicate as `PageSource`'s, so a query on the wrong table gets that message, not Diesel's
/// type mismatch on `AppearsInFromClause::Count`).
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
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        let terms = terms::<K>(self.walk);
        let mut pass = Pass::<DB, K> {
            out: &mut out,
            key: Some(&self.key),
        };
        let key = &self.key;
        sql::write_part(
            &mut pass,
            &terms,
            &|i| KeyTuple::is_null(key, i),
            dialect::<DB>(),
            self.part.get(),
            self.per_level,
        )
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
        let terms = terms::<K>(self.walk);
        let mut pass = Pass::<DB, K> {
            out: &mut out,
            key: None,
        };
        sql::write_order(&mut pass, &terms, dialect::<DB>())
    }
}
