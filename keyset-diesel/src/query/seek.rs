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

use super::small_list::SmallList;
use super::sql::{self, Emitter, Part, SeekPlan, Term};
use crate::backend::{dialect, BackendKind, Dialect, KeysetBackend};
use crate::checks::KeysetTableInQuery;
use crate::cursor::Direction;
use crate::key::KeyTuple;
use crate::keyset::{any_expression, column_index_error, Keyset, KeysetSql, NullsOrder};

/// The dialect `DB` writes keyset `K` in: [`dialect`], without row values where the backend
/// does not seek on a row value holding an expression and a key column of `K` is one
/// ([`KeyColumn::expression`](crate::query::KeyColumn::expression), known at compile time).
pub(crate) fn keyset_dialect<DB: KeysetBackend, K: Keyset>() -> Dialect {
    let mut d = dialect::<DB>();
    if !DB::EXPRESSION_ROW_VALUES && const { any_expression(K::COLUMNS) } {
        d.row_values = false;
    }
    d
}

/// [`Emitter`] over Diesel's `AstPass`.
struct Pass<'p, 'a, 'b, DB: Backend, K: Keyset> {
    out: &'p mut AstPass<'a, 'b, DB>,
    key: Option<&'b K::Key>,
}

impl<DB: KeysetBackend, K: KeysetSql<DB>> Emitter for Pass<'_, '_, '_, DB, K> {
    fn sql(&mut self, sql: &str) {
        self.out.push_sql(sql);
    }
    fn column(&mut self, index: usize) -> QueryResult<()> {
        K::walk_column(index, self.out.reborrow())
    }
    /// A cursor value, written `+?` on SQLite: SQLite plans a statement for the value bound to a
    /// bare parameter compared with an indexed column (once `ANALYZE` has written
    /// `sqlite_stat4` rows) and then plans it again at every page, since every page binds it
    /// anew; it does not read the value behind `+?` (a no-op on any value, which keeps the
    /// column's affinity and collation in the comparison) and still ranges the index on it.
    /// [SQLite: a cached statement that is planned
    /// again](crate::guide::sql#sqlite-a-cached-statement-that-is-planned-again).
    fn value(&mut self, index: usize) -> QueryResult<()> {
        let Some(key) = self.key else {
            return Err(column_index_error(index));
        };
        if matches!(DB::KIND, BackendKind::Sqlite) {
            self.out.push_sql("+");
        }
        K::walk_value(key, index, self.out.reborrow())
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
    /// The dialect the page was planned for; `None` (a predicate made with
    /// [`SeekPredicate::new`]) writes the backend's own at each pass.
    dialect: Option<Dialect>,
    /// The keyset's terms for `walk`, listed once here rather than in each of Diesel's passes
    /// over the statement.
    terms: SmallList<Term>,
    /// Whether the first arm admits the stored values a key type does not represent
    /// ([`KeyValue::unrepresented_sql`](crate::query::KeyValue::unrepresented_sql)): a cursor's
    /// seek does; a window's far end does not.
    admit_unrepresented: bool,
    /// The key's own row is included ([`Paginated::inclusive`](crate::Paginated::inclusive)):
    /// `terms` are the reversed walk's, the seek is their probe (rows at or after the key in
    /// the walk's order) and the other side's probe their seek (rows strictly before it).
    inclusive: bool,
}

impl<K: Keyset> SeekPredicate<K> {
    /// The predicate for rows after (`Forward`) or before (`Backward`) `key`, as one
    /// condition, in the backend's form.
    pub fn new(key: K::Key, walk: Direction) -> Self {
        SeekPredicate {
            key,
            walk,
            plan: SeekPlan::Single,
            dialect: None,
            terms: sql::terms(K::COLUMNS, walk),
            // Your own filter: exactly "strictly after", as documented.
            admit_unrepresented: false,
            inclusive: false,
        }
    }

    /// The predicate a page query writes in `dialect`, its arms planned once here
    /// ([`SeekPlan`]): split per key level when `per_level`.
    pub(crate) fn planned(key: K::Key, walk: Direction, dialect: Dialect, per_level: bool) -> Self {
        let terms = sql::terms(K::COLUMNS, walk);
        let plan = SeekPlan::new(&terms, &|i| KeyTuple::is_null(&key, i), dialect, per_level);
        SeekPredicate {
            key,
            walk,
            plan,
            dialect: Some(dialect),
            terms,
            admit_unrepresented: true,
            inclusive: false,
        }
    }

    /// The whole seek after `key` as one condition in `dialect` (never split into arms), as a
    /// page's cursor writes it (admitting the values a key type does not represent).
    pub(crate) fn whole(key: K::Key, walk: Direction, dialect: Dialect) -> Self {
        SeekPredicate {
            terms: sql::terms(K::COLUMNS, walk),
            key,
            walk,
            plan: SeekPlan::Single,
            dialect: Some(dialect),
            admit_unrepresented: true,
            inclusive: false,
        }
    }

    /// The rows at or after `key` in `walk`'s order, as one condition in `dialect`: the key's
    /// own row included ([`Paginated::inclusive`](crate::Paginated::inclusive)); its other
    /// side (the probe) is the rows strictly before it.
    pub(crate) fn inclusive(key: K::Key, walk: Direction, dialect: Dialect) -> Self {
        SeekPredicate {
            terms: sql::terms(K::COLUMNS, walk.reversed()),
            key,
            walk,
            plan: SeekPlan::Single,
            dialect: Some(dialect),
            admit_unrepresented: true,
            inclusive: true,
        }
    }

    /// The dialect this predicate is written in on `DB`.
    fn dialect<DB: KeysetBackend>(&self) -> Dialect {
        self.dialect.unwrap_or_else(keyset_dialect::<DB, K>)
    }

    /// How many arms (union branches) the seek has.
    pub(crate) fn arms(&self) -> usize {
        self.plan.arms()
    }

    /// The arm holding the leading column's NULL group, when the arms split its values from
    /// it: the last arm when NULLs sort last (values first), arm 0 when they sort first.
    pub(crate) fn null_arm(&self) -> Option<usize> {
        let SeekPlan::NullSplit { values_levels } = self.plan else {
            return None;
        };
        Some(match self.terms.first().and_then(|t| t.nulls) {
            Some(NullsOrder::Last) => values_levels,
            _ => 0,
        })
    }

    /// Which side of the leading column's NULL group every row this one-arm seek admits is
    /// on: `Some(true)` when all are in it (NULLs last, a NULL cursor), `Some(false)` when
    /// none is (NULLs first, a value cursor), `None` otherwise (a split, or a leading column
    /// that is not nullable).
    pub(crate) fn one_side(&self) -> Option<bool> {
        if self.plan != SeekPlan::Single || self.terms.len() < 2 || self.inclusive {
            return None;
        }
        match (self.terms.first()?.nulls?, KeyTuple::is_null(&self.key, 0)) {
            (NullsOrder::Last, true) => Some(true),
            (NullsOrder::First, false) => Some(false),
            _ => None,
        }
    }

    /// Whether this seek's text is the one every seek of `K` in `walk`'s direction has on
    /// `DB` in the default form: one arm, the backend's own dialect (or a keyset that writes
    /// no row value either way), and no NULL in the key (a NULL is written as `IS NULL` /
    /// `IS NOT NULL` arms, with one bind fewer).
    pub(crate) fn text_is_fixed<DB: KeysetBackend>(&self) -> bool {
        let default = keyset_dialect::<DB, K>();
        let dialect = self.dialect::<DB>();
        self.plan == SeekPlan::Single
            && !self.inclusive
            && (dialect == default
                || [default, dialect].iter().all(|&d| {
                    !sql::writes_row_value(&self.terms, d) && !sql::writes_negated(&self.terms, d)
                }))
            && (0..K::COLUMNS.len()).all(|i| !KeyTuple::is_null(&self.key, i))
    }

    /// Whether this seek is a leading NULL split whose text is the one every such seek of `K`
    /// in `walk`'s direction has on `DB`: the backend's own dialect, no NULL in the key (then
    /// the split is the values after the key and the NULL group), and the values arms the
    /// page splits by default (not split into levels by `.seek_per_level(true)` where the
    /// backend keeps them one arm).
    pub(crate) fn split_text_is_fixed<DB: KeysetBackend>(&self) -> bool {
        let default = keyset_dialect::<DB, K>();
        matches!(self.plan, SeekPlan::NullSplit { .. })
            && self.dialect::<DB>() == default
            && (0..K::COLUMNS.len()).all(|i| !KeyTuple::is_null(&self.key, i))
            && self.plan == SeekPlan::new(&self.terms, &|_| false, default, false)
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
        let unrepresented = |i: usize| unrepresented_sql::<DB, K>(i);
        let admit =
            self.admit_unrepresented && part == Part::Arm(0) && admits_unrepresented::<DB, K>();
        // An inclusive seek is written on the reversed walk's terms: the rows at or after the
        // key are their probe, the rows strictly before it (the other side) their seek.
        let part = match (self.inclusive, part) {
            (true, Part::Arm(0)) => Part::Probe,
            (true, Part::Probe) => Part::Arm(0),
            (_, part) => part,
        };
        if admit {
            pass.sql("((");
        }
        sql::write_part(
            &mut pass,
            &self.terms,
            &|i| KeyTuple::is_null(key, i),
            self.dialect::<DB>(),
            self.plan,
            part,
        )?;
        if admit {
            // Rows a lossy key type cannot name are in every page query,
            // so a walk reads them again and the page check sees it.
            pass.sql(")");
            for i in 0..K::COLUMNS.len() {
                if let Some(sql) = unrepresented(i) {
                    pass.sql(" OR (");
                    pass.column(i)?;
                    pass.sql(")");
                    pass.sql(sql);
                }
            }
            pass.sql(")");
        }
        Ok(())
    }
}

/// The `unrepresented_sql` of key column `i` on `DB`
/// ([`KeyValue::unrepresented_sql`](crate::query::KeyValue::unrepresented_sql)); never for an
/// expression key (its value is 0 or 1 already).
fn unrepresented_sql<DB: KeysetBackend, K: Keyset>(i: usize) -> Option<&'static str> {
    match K::COLUMNS.get(i) {
        Some(c) if !c.expression => <K::Key as KeyTuple>::unrepresented_sql(i, DB::KIND),
        _ => None,
    }
}

/// Whether a page seek of `K` on `DB` admits the stored values a key type does not represent
/// ([lossy reads](crate::guide::keys_and_limits#values-diesel-reads-lossily)): only where the page check can see a row read again, every key column
/// exactly ordered in Rust (a text column between would let a re-read row pass as "after").
/// Such rows come from anywhere in the table, NULL group included.
pub(crate) fn admits_unrepresented<DB: KeysetBackend, K: Keyset>() -> bool {
    <K::Key as KeyTuple>::exact_order()
        && (0..K::COLUMNS.len()).any(|i| unrepresented_sql::<DB, K>(i).is_some())
}

/// The far end of a page's window: the rows strictly before a key in the walk's order
/// ([`Paginated::until`](crate::Paginated::until): the seek of the reversed walk), or the rows
/// at or before it (a [`Walk`](crate::Walk)'s high-water mark: the probe of the walk).
pub(crate) struct FarBound<K: Keyset> {
    seek: SeekPredicate<K>,
    part: Part,
}

impl<K: Keyset> FarBound<K> {
    /// The rows strictly before `key` walking `walk`, or at or before it when `inclusive`,
    /// written in `dialect`.
    pub(crate) fn new(key: K::Key, walk: Direction, inclusive: bool, dialect: Dialect) -> Self {
        let (walk, part) = if inclusive {
            (walk, Part::Probe)
        } else {
            (walk.reversed(), Part::Arm(0))
        };
        // One condition whatever the key holds: never split around a NULL group.
        FarBound {
            seek: SeekPredicate {
                terms: sql::terms(K::COLUMNS, walk),
                key,
                walk,
                plan: SeekPlan::Single,
                dialect: Some(dialect),
                admit_unrepresented: false,
                inclusive: false,
            },
            part,
        }
    }

    /// Writes the bound as one condition.
    pub(crate) fn walk_bound<'b, DB>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>
    where
        DB: KeysetBackend,
        K: KeysetSql<DB>,
    {
        self.seek.walk_part(self.part, out)
    }
}

impl<K: Keyset> fmt::Debug for FarBound<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FarBound")
            .field("key", &self.seek.key)
            .field("inclusive", &(self.part == Part::Probe))
            .finish()
    }
}

impl<K: Keyset> Clone for SeekPredicate<K> {
    fn clone(&self) -> Self {
        SeekPredicate {
            key: self.key.clone(),
            walk: self.walk,
            plan: self.plan,
            dialect: self.dialect,
            terms: self.terms.clone(),
            admit_unrepresented: self.admit_unrepresented,
            inclusive: self.inclusive,
        }
    }
}

impl<K: Keyset> fmt::Debug for SeekPredicate<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeekPredicate")
            .field("key", &self.key)
            .field("walk", &self.walk)
            .field("plan", &self.plan)
            .field("inclusive", &self.inclusive)
            .field("row_values", &self.dialect.is_none_or(|d| d.row_values))
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

/// How [`KeysetOrder`] writes the leading column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leading {
    /// With its NULL placement (when nullable).
    Placed,
    /// Without it: every row of the statement has a value there.
    Plain,
    /// Not at all: every row of the statement is NULL there.
    Omitted,
}

/// An [`Emitter`] over column indexes shifted by `skip`: terms written from the
/// `skip`-th column on.
struct Skip<'e> {
    inner: &'e mut dyn Emitter,
    skip: usize,
}

impl Emitter for Skip<'_> {
    fn sql(&mut self, sql: &str) {
        self.inner.sql(sql);
    }
    fn column(&mut self, index: usize) -> QueryResult<()> {
        self.inner.column(index + self.skip)
    }
    fn value(&mut self, index: usize) -> QueryResult<()> {
        self.inner.value(index + self.skip)
    }
}

/// `ORDER BY` expression for the keyset in a walk direction: every key column with its
/// direction, and its NULL placement when nullable (`NULLS FIRST/LAST`, or a leading
/// `col IS NULL` term on MySQL).
pub struct KeysetOrder<K: Keyset> {
    walk: Direction,
    /// How the leading column is written: in a branch of a leading NULL split, whose rows are
    /// all values or all NULL there, without its placement or not at all.
    leading: Leading,
    _model: PhantomData<fn() -> K>,
}

impl<K: Keyset> KeysetOrder<K> {
    /// The order for walking forward (the declared order) or backward (its exact reverse).
    pub fn new(walk: Direction) -> Self {
        KeysetOrder {
            walk,
            leading: Leading::Placed,
            _model: PhantomData,
        }
    }

    /// The order of one arm of a leading NULL split on MySQL/MariaDB: the rows of the values
    /// arm all have a value in the leading column, so it is written without its placement
    /// term (`col IS NULL`); the rows of the NULL arm are all NULL there, so the column is left
    /// out. The order of the arm's rows is the same, and it is the index's: with the term (or
    /// with the NULL column) MariaDB sorted every row of the arm before its `LIMIT` (`Using
    /// filesort`). PostgreSQL and SQLite keep the stated placement, which their indexes serve
    /// (on PostgreSQL, without the leading column the NULL arm was read by the primary key).
    pub(crate) fn of_split_arm(self, null_arm: bool) -> Self {
        KeysetOrder {
            leading: if null_arm {
                Leading::Omitted
            } else {
                Leading::Plain
            },
            ..self
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
        let terms = sql::each_term(K::COLUMNS, self.walk);
        // PostgreSQL and SQLite read a stated placement from the index (PostgreSQL needs it
        // to match an index declared with one); only MySQL's `col IS NULL` term sorts.
        // An arm that admits unrepresented values (lossy reads) may hold rows of the other side of the
        // split: it keeps the placement that sorts them last.
        let leading = match dialect::<DB>().nulls_order_syntax || admits_unrepresented::<DB, K>() {
            true => Leading::Placed,
            false => self.leading,
        };
        match leading {
            Leading::Placed => sql::write_order(&mut pass, terms, dialect::<DB>()),
            Leading::Plain => sql::write_order(
                &mut pass,
                terms.enumerate().map(|(i, t)| match i {
                    0 => sql::Term { nulls: None, ..t },
                    _ => t,
                }),
                dialect::<DB>(),
            ),
            Leading::Omitted => sql::write_order(
                &mut Skip {
                    inner: &mut pass,
                    skip: 1,
                },
                terms.skip(1),
                dialect::<DB>(),
            ),
        }
    }
}
