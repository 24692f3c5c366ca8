//! The SQL text of a keyset: ORDER BY terms and seek predicates, written through an
//! [`Emitter`] so the same code drives Diesel's `AstPass` and the unit tests below.
//!
//! Rules ([the SQL guide](crate::guide::sql#the-rules)):
//! 1. All columns in one direction on a row-value backend: one row-value comparison,
//!    `(a, b) > ($1, $2)`.
//! 2. Otherwise the factored expanded-OR form with a redundant bound on the leading group in its
//!    own direction: `a >= $1 AND (a > $1 OR (a = $1 AND (b < $2 OR (b = $2 AND c > $3))))`.
//!    On row-value backends a leading run of same-direction columns is one group, bounded by a
//!    row value; on MySQL every column is its own group.
//! 3. NULLs are never bound: a NULL key value becomes `IS NULL` / `IS NOT NULL` arms. A
//!    nullable column joins a row value only where its key value is not NULL and none of its
//!    NULLs can follow the key in that seek (they sort first, or they are the other arm of a
//!    leading NULL split), so the comparison's unknown result on a NULL drops exactly them.

use diesel::QueryResult;

use super::small_list::SmallList;
use crate::backend::Dialect;
use crate::cursor::Direction;
use crate::keyset::{KeyColumn, NullsOrder, SortDirection};

/// Where SQL goes: text, column `i` of the keyset, or a bind of key value `i`.
pub(crate) trait Emitter {
    fn sql(&mut self, sql: &str);
    fn column(&mut self, index: usize) -> QueryResult<()>;
    fn value(&mut self, index: usize) -> QueryResult<()>;
}

/// One key column's order for a given walk direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Term {
    pub direction: SortDirection,
    /// `None`: the column is not nullable.
    pub nulls: Option<NullsOrder>,
}

/// A placeholder for the unused slots of a [`Short`] list, never read.
impl Default for Term {
    fn default() -> Self {
        Term {
            direction: SortDirection::Asc,
            nulls: None,
        }
    }
}

impl Term {
    pub(crate) fn new(column: &KeyColumn, walk: Direction) -> Self {
        match walk {
            Direction::Forward => Term {
                direction: column.direction,
                nulls: column.nulls,
            },
            Direction::Backward => Term {
                direction: column.direction,
                nulls: column.nulls,
            }
            .reversed(),
        }
    }

    /// The same column in the opposite walk.
    pub(crate) fn reversed(self) -> Self {
        Term {
            direction: self.direction.reversed(),
            nulls: self.nulls.map(NullsOrder::reversed),
        }
    }

    fn strict_op(self) -> &'static str {
        match self.direction {
            SortDirection::Asc => " > ",
            SortDirection::Desc => " < ",
        }
    }

    fn inclusive_op(self) -> &'static str {
        match self.direction {
            SortDirection::Asc => " >= ",
            SortDirection::Desc => " <= ",
        }
    }
}

/// Whether `term` is ordered with a `col IS NULL` placement term before the column (which no
/// index serves: MySQL sorts every row it orders with one): a nullable column on a backend
/// without `NULLS FIRST/LAST`, placed where that backend does not put NULLs by itself. MySQL
/// sorts NULL below every value, so `ASC` already puts NULLs first and `DESC` last.
pub(crate) fn sorts_placement(term: Term, dialect: Dialect) -> bool {
    match term.nulls {
        Some(nulls) if !dialect.nulls_order_syntax => !matches!(
            (nulls, term.direction),
            (NullsOrder::First, SortDirection::Asc) | (NullsOrder::Last, SortDirection::Desc)
        ),
        _ => false,
    }
}

/// Writes `ORDER BY` terms (without the keyword) for the walk.
pub(crate) fn write_order(
    e: &mut dyn Emitter,
    terms: impl IntoIterator<Item = Term>,
    dialect: Dialect,
) -> QueryResult<()> {
    for (i, term) in terms.into_iter().enumerate() {
        if i > 0 {
            e.sql(", ");
        }
        match term.nulls {
            Some(nulls) if sorts_placement(term, dialect) => {
                // MySQL: `col IS NULL` is 0 for values and 1 for NULLs.
                e.column(i)?;
                e.sql(match nulls {
                    NullsOrder::Last => " IS NULL ASC, ",
                    NullsOrder::First => " IS NULL DESC, ",
                });
                e.column(i)?;
                e.sql(" ");
                e.sql(term.direction.keyword());
            }
            Some(nulls) if dialect.nulls_order_syntax => {
                e.column(i)?;
                e.sql(" ");
                e.sql(term.direction.keyword());
                e.sql(match nulls {
                    NullsOrder::Last => " NULLS LAST",
                    NullsOrder::First => " NULLS FIRST",
                });
            }
            _ => {
                e.column(i)?;
                e.sql(" ");
                e.sql(term.direction.keyword());
            }
        }
    }
    Ok(())
}

/// A run of key columns compared together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Group {
    start: usize,
    end: usize,
}

impl Group {
    fn len(self) -> usize {
        self.end - self.start
    }
}

/// Splits `terms` into groups compared together. On a row-value backend a run of columns in
/// one direction is one group, among them a nullable column whose key value is not NULL where no
/// NULL of it can follow the key in this seek: its NULLs sort before the key (`NULLS FIRST`), or
/// they are another arm (`values_only`, the leading column of a NULL split). There a row value
/// drops the NULL rows as they must be dropped (a comparison with NULL is never true), and the
/// index range starts at the key's full value ([the rules](crate::guide::sql#the-rules)).
fn groups(
    terms: &[Term],
    row_values: bool,
    is_null: &dyn Fn(usize) -> bool,
    values_only: bool,
) -> SmallList<Group> {
    let valued = |i: usize| match terms[i].nulls {
        None => true,
        Some(NullsOrder::First) => !is_null(i),
        Some(NullsOrder::Last) => values_only && i == 0 && !is_null(i),
    };
    let mut out: SmallList<Group> = SmallList::new();
    for (i, term) in terms.iter().enumerate() {
        let joins_previous = row_values
            && valued(i)
            && out.last().is_some_and(|g| {
                let prev = g.end - 1;
                valued(prev) && terms[prev].direction == term.direction
            });
        match out.last_mut() {
            Some(g) if joins_previous => g.end = i + 1,
            _ => out.push(Group {
                start: i,
                end: i + 1,
            }),
        }
    }
    out
}

/// Whether the seek of `terms` after a key without NULLs, on a backend with `dialect`, compares
/// a row value (two or more columns in one group): what
/// [`Paginated::expanded_seek`](crate::Paginated::expanded_seek) changes.
pub(crate) fn writes_row_value(terms: &[Term], dialect: Dialect) -> bool {
    groups(terms, dialect.row_values, &|_| false, false)
        .iter()
        .any(|g| g.len() > 1)
}

/// Whether the seek of `terms` after a key without NULLs, on a backend with `dialect`, is
/// written in the negated form ([`Dialect::negated_ties`]): what
/// [`Paginated::expanded_seek`](crate::Paginated::expanded_seek) also changes on SQLite.
pub(crate) fn writes_negated(terms: &[Term], dialect: Dialect) -> bool {
    let groups = groups(terms, dialect.row_values, &|_| false, false);
    Writer::seek(terms, &|_| false, &groups).negatable() && dialect.negated_ties
}

/// Which part of a seek a statement writes: an argument of every writer, never shared state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Arm `i` of the page's [`SeekPlan`]: rows after the key, a disjoint slice of them per
    /// arm, arms in walk order.
    Arm(usize),
    /// The rows at or before the key (the other side, the key's own row included): the
    /// one-row probe for an exact flag in the other direction.
    Probe,
}

/// How the seek after one key is split into arms, decided once when the page is built: the
/// page query has one branch per arm, and [`write_part`] writes arm `i` from this plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SeekPlan {
    /// One arm: the whole seek.
    Single,
    /// Arms around the leading column's NULL group, when the rows after the key are values
    /// and then the NULL group (NULLs after a value cursor), or the rest of the NULL group
    /// and then the values (NULLs before, NULL cursor): a single `OR` would turn the leading
    /// column's index condition into a filter (PostgreSQL), so each arm gets its own index
    /// range. The values after a value cursor are one arm, or one arm per key level
    /// (`values_levels`, as [`SeekPlan::PerLevel`]) where the page asks for levels or the
    /// dialect splits them by column (SQLite, [`Dialect::column_levels`]); the NULL group
    /// is the arm after them.
    NullSplit {
        /// The arms holding values after the key (1 where the NULL group comes first).
        values_levels: usize,
    },
    /// One arm per key level (group of columns compared together): the levels before it
    /// equal to the key's, that level strictly after it (`a = $1 AND b > $2`), each arm an
    /// index range of its own ([long runs of ties](crate::guide::sql#long-runs-of-ties)).
    PerLevel {
        /// The number of levels (at least 2).
        levels: usize,
    },
}

impl SeekPlan {
    /// The plan for this key on a backend with `dialect`. `is_null(i)` says whether key value
    /// `i` is NULL. A leading NULL split wins over `per_level` (its values arm is split into
    /// levels instead); a keyset of one level is a single seek either way.
    pub(crate) fn new(
        terms: &[Term],
        is_null: &dyn Fn(usize) -> bool,
        dialect: Dialect,
        per_level: bool,
    ) -> Self {
        if needs_null_split(terms, is_null) {
            let values_levels = match terms.first().and_then(|t| t.nulls) {
                Some(NullsOrder::Last) if per_level || dialect.column_levels => {
                    level_groups(terms, is_null, dialect, true).len()
                }
                _ => 1,
            };
            return SeekPlan::NullSplit { values_levels };
        }
        let levels = level_groups(terms, is_null, dialect, false).len();
        if per_level && levels > 1 {
            SeekPlan::PerLevel { levels }
        } else {
            SeekPlan::Single
        }
    }

    /// How many arms (union branches) the seek has.
    pub(crate) fn arms(self) -> usize {
        match self {
            SeekPlan::Single => 1,
            SeekPlan::NullSplit { values_levels } => values_levels + 1,
            SeekPlan::PerLevel { levels } => levels,
        }
    }
}

/// The key levels of a seek split into levels: [`groups`], with one column per level where the
/// dialect ranges an index only that way ([`Dialect::column_levels`]).
fn level_groups(
    terms: &[Term],
    is_null: &dyn Fn(usize) -> bool,
    dialect: Dialect,
    values_only: bool,
) -> SmallList<Group> {
    groups(
        terms,
        dialect.row_values && !dialect.column_levels,
        is_null,
        values_only,
    )
}

fn needs_null_split(terms: &[Term], is_null: &dyn Fn(usize) -> bool) -> bool {
    terms.len() > 1
        && matches!(
            terms.first().map(|t| (t.nulls, is_null(0))),
            Some((Some(NullsOrder::Last), false)) | Some((Some(NullsOrder::First), true))
        )
}

/// The keyset's terms for a walk direction.
pub(crate) fn terms(columns: &[KeyColumn], walk: Direction) -> SmallList<Term> {
    each_term(columns, walk).collect()
}

/// The keyset's terms for a walk direction, one at a time (for [`write_order`], which needs
/// no list).
pub(crate) fn each_term(columns: &[KeyColumn], walk: Direction) -> impl Iterator<Item = Term> + '_ {
    columns.iter().map(move |c| Term::new(c, walk))
}

/// Writes `part` of the seek predicate planned as `plan` for the walk. `is_null(i)` says
/// whether key value `i` is NULL. `Part::Arm(0)` of a [`SeekPlan::Single`] is the whole seek:
/// rows strictly after the key in the walk's order.
///
/// # Errors
/// An arm the plan does not have (or a level this dialect does not have): a
/// `QueryBuilderError`, never a guessed predicate.
pub(crate) fn write_part(
    e: &mut dyn Emitter,
    terms: &[Term],
    is_null: &dyn Fn(usize) -> bool,
    dialect: Dialect,
    plan: SeekPlan,
    part: Part,
) -> QueryResult<()> {
    let row_values = dialect.row_values;
    let groups = groups(terms, row_values, is_null, false);
    match (part, plan) {
        (Part::Probe, _) => {
            // At or before the key = the seek of the reversed walk, its last column inclusive.
            let reversed: SmallList<Term> = terms.iter().map(|t| t.reversed()).collect();
            // Nullable columns stay out of the probe's row values (grouped as if NULL): the
            // expanded form keeps its leading bound whatever the key's NULLs.
            let groups = self::groups(&reversed, row_values, &|_| true, false);
            Writer::probe(&reversed, is_null, &groups).write_seek(e)
        }
        (Part::Arm(0), SeekPlan::Single) => {
            let w = Writer::seek(terms, is_null, &groups);
            if dialect.negated_ties && w.negatable() {
                w.write_negated(e)
            } else {
                w.write_seek(e)
            }
        }
        (Part::Arm(arm), SeekPlan::NullSplit { values_levels }) if arm <= values_levels => {
            let groups = self::groups(terms, row_values, is_null, true);
            let w = Writer::values_only(terms, is_null, &groups);
            match (terms[0].nulls, arm) {
                // NULLs after a value: first the values after it (one arm, or one per
                // level), then the NULL group.
                (Some(NullsOrder::Last), 0) if values_levels == 1 => w.write_seek(e),
                (Some(NullsOrder::Last), level) if level < values_levels => {
                    let levels = level_groups(terms, is_null, dialect, true);
                    Writer::values_only(terms, is_null, &levels).write_level(e, level)
                }
                (Some(NullsOrder::Last), _) => {
                    e.column(0)?;
                    e.sql(" IS NULL");
                    Ok(())
                }
                // NULLs before, NULL cursor: first the rest of the NULL group, then the values.
                (_, 0) => {
                    e.column(0)?;
                    e.sql(" IS NULL AND ");
                    w.write_chain(e, 1)
                }
                _ => {
                    e.column(0)?;
                    e.sql(" IS NOT NULL");
                    Ok(())
                }
            }
        }
        // A level past the plan's (or this backend's) levels is refused by `write_level`.
        (Part::Arm(level), SeekPlan::PerLevel { .. }) => {
            let levels = level_groups(terms, is_null, dialect, false);
            Writer::seek(terms, is_null, &levels).write_level(e, level)
        }
        (Part::Arm(arm), _) => Err(crate::keyset::column_index_error(arm)),
    }
}

struct Writer<'a> {
    terms: &'a [Term],
    is_null: &'a dyn Fn(usize) -> bool,
    groups: &'a [Group],
    /// Leave the leading column's NULL group out (it is another arm).
    values_only: bool,
    /// The last group compares inclusively (`>=`): the key's own row is included.
    inclusive: bool,
}

impl<'a> Writer<'a> {
    /// The seek: rows strictly after the key.
    fn seek(terms: &'a [Term], is_null: &'a dyn Fn(usize) -> bool, groups: &'a [Group]) -> Self {
        Writer {
            terms,
            is_null,
            groups,
            values_only: false,
            inclusive: false,
        }
    }

    /// The seek without the leading column's NULL group (the other arm of a NULL split).
    fn values_only(
        terms: &'a [Term],
        is_null: &'a dyn Fn(usize) -> bool,
        groups: &'a [Group],
    ) -> Self {
        Writer {
            values_only: true,
            ..Writer::seek(terms, is_null, groups)
        }
    }

    /// Rows at or after the key in `terms`' order (the probe writes it on reversed terms).
    fn probe(terms: &'a [Term], is_null: &'a dyn Fn(usize) -> bool, groups: &'a [Group]) -> Self {
        Writer {
            inclusive: true,
            ..Writer::seek(terms, is_null, groups)
        }
    }
}

impl Writer<'_> {
    /// The redundant bound on the leading group (when there is more than one group and the
    /// group has one), then the chain.
    fn write_seek(&self, e: &mut dyn Emitter) -> QueryResult<()> {
        if self.groups.len() > 1 && self.write_bound(e, 0)? {
            e.sql(" AND ");
        }
        self.write_chain(e, 0)
    }

    /// Whether [`Writer::write_negated`] may write this seek: two levels (groups), no column
    /// that may hold NULL (where `NOT` of an unknown comparison is unknown too, the two forms
    /// would differ), rows strictly after the key.
    fn negatable(&self) -> bool {
        self.groups.len() == 2
            && !self.inclusive
            && !self.values_only
            && self.terms.iter().all(|t| t.nulls.is_none())
    }

    /// The seek of two levels as `bound AND NOT (level 0 equal AND level 1 at or before the
    /// key)`: `score <= ? AND NOT (score = ? AND id <= ?)` for `score DESC, id ASC`. For
    /// non-null values `NOT (score = s AND id <= i)` is `score <> s OR id > i`, so with the
    /// bound it is the expanded form's `score < s OR (score = s AND id > i)`.
    fn write_negated(&self, e: &mut dyn Emitter) -> QueryResult<()> {
        let (first, second) = (self.groups[0], self.groups[1]);
        if self.write_bound(e, 0)? {
            e.sql(" AND ");
        }
        e.sql("NOT (");
        self.write_equal(e, first)?;
        e.sql(" AND ");
        let at_or_before = self.terms[second.start].reversed().inclusive_op();
        if second.len() > 1 {
            self.write_row_compare(e, second, at_or_before)?;
        } else {
            self.write_compare(e, second.start, at_or_before)?;
        }
        e.sql(")");
        Ok(())
    }

    /// Key level `level` alone: every group before it equal to the key's, group `level`
    /// strictly after it. The levels are disjoint and together they are the chain.
    fn write_level(&self, e: &mut dyn Emitter, level: usize) -> QueryResult<()> {
        let Some(&g) = self.groups.get(level) else {
            // The page query was built for another backend's levels: refuse, never guess.
            return Err(crate::keyset::column_index_error(level));
        };
        for &before in &self.groups[..level] {
            self.write_equal(e, before)?;
            e.sql(" AND ");
        }
        // Nothing after a NULL that sorts last: `write_after` writes `1 = 0`.
        self.write_after(e, g)
    }

    /// `(g_i after) OR ((g_i equal) AND chain(i + 1))`, factored from the right.
    fn write_chain(&self, e: &mut dyn Emitter, i: usize) -> QueryResult<()> {
        let g = self.groups[i];
        let last = i + 1 == self.groups.len();
        if last && self.inclusive {
            // After or equal.
            if !self.has_after(g) {
                return self.write_equal(e, g);
            }
            // A row value (its columns hold no NULL) or a column that cannot be NULL: one
            // `>=` / `<=`, which an index reads as the end of its range. `(after OR equal)`
            // is not: PostgreSQL then reads and filters every row to the end of the range
            // when the window holds fewer rows than the limit (a byte-budgeted page's).
            let term = self.terms[g.start];
            if g.len() > 1 {
                return self.write_row_compare(e, g, term.inclusive_op());
            }
            if term.nulls.is_none() {
                return self.write_compare(e, g.start, term.inclusive_op());
            }
            e.sql("(");
            self.write_after(e, g)?;
            e.sql(" OR (");
            self.write_equal(e, g)?;
            e.sql("))");
            return Ok(());
        }
        if last {
            return self.write_after(e, g);
        }
        e.sql("(");
        if self.has_after(g) {
            self.write_after(e, g)?;
            e.sql(" OR (");
            self.write_equal(e, g)?;
            e.sql(" AND ");
            self.write_chain(e, i + 1)?;
            e.sql(")");
        } else {
            self.write_equal(e, g)?;
            e.sql(" AND ");
            self.write_chain(e, i + 1)?;
        }
        e.sql(")");
        Ok(())
    }

    /// Whether any row comes strictly after the key in group `g`: not after a NULL that
    /// sorts last.
    fn has_after(&self, g: Group) -> bool {
        let term = self.terms[g.start];
        !(term.nulls == Some(NullsOrder::Last) && (self.is_null)(g.start))
    }

    /// Rows whose group value comes strictly after the key's.
    fn write_after(&self, e: &mut dyn Emitter, g: Group) -> QueryResult<()> {
        let term = self.terms[g.start];
        if g.len() > 1 {
            return self.write_row_compare(e, g, term.strict_op());
        }
        let i = g.start;
        match (term.nulls, (self.is_null)(i)) {
            (Some(NullsOrder::First), true) => {
                e.column(i)?;
                e.sql(" IS NOT NULL");
            }
            (Some(NullsOrder::Last), false) if self.values_only && i == 0 => {
                self.write_compare(e, i, term.strict_op())?;
            }
            (Some(NullsOrder::Last), false) => {
                e.sql("(");
                self.write_compare(e, i, term.strict_op())?;
                e.sql(" OR ");
                e.column(i)?;
                e.sql(" IS NULL)");
            }
            // A NULL sorting last: nothing comes after it.
            (Some(NullsOrder::Last), true) => e.sql("1 = 0"),
            _ => self.write_compare(e, i, term.strict_op())?,
        }
        Ok(())
    }

    /// Rows whose group value equals the key's.
    fn write_equal(&self, e: &mut dyn Emitter, g: Group) -> QueryResult<()> {
        for i in g.start..g.end {
            if i > g.start {
                e.sql(" AND ");
            }
            if (self.is_null)(i) {
                e.column(i)?;
                e.sql(" IS NULL");
            } else {
                self.write_compare(e, i, " = ")?;
            }
        }
        Ok(())
    }

    /// The redundant bound on group `i` (implied by the chain, but a plain range an index can
    /// start from). Returns false when the group has no such bound.
    fn write_bound(&self, e: &mut dyn Emitter, i: usize) -> QueryResult<bool> {
        let g = self.groups[i];
        let term = self.terms[g.start];
        if g.len() > 1 {
            self.write_row_compare(e, g, term.inclusive_op())?;
            return Ok(true);
        }
        match (term.nulls, (self.is_null)(g.start)) {
            // Non-null value, NULLs (if any) before it, or left to another arm: `col >= v`
            // excludes only rows before the key.
            (None, _) | (Some(NullsOrder::First), false) => {
                self.write_compare(e, g.start, term.inclusive_op())?;
                Ok(true)
            }
            (Some(NullsOrder::Last), false) if self.values_only && g.start == 0 => {
                self.write_compare(e, g.start, term.inclusive_op())?;
                Ok(true)
            }
            // NULLs after a value, or a NULL cursor: no single range covers the rest.
            _ => Ok(false),
        }
    }

    fn write_compare(&self, e: &mut dyn Emitter, i: usize, op: &str) -> QueryResult<()> {
        e.column(i)?;
        e.sql(op);
        e.value(i)
    }

    fn write_row_compare(&self, e: &mut dyn Emitter, g: Group, op: &str) -> QueryResult<()> {
        e.sql("(");
        for i in g.start..g.end {
            if i > g.start {
                e.sql(", ");
            }
            e.column(i)?;
        }
        e.sql(")");
        e.sql(op);
        e.sql("(");
        for i in g.start..g.end {
            if i > g.start {
                e.sql(", ");
            }
            e.value(i)?;
        }
        e.sql(")");
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests;
