//! The SQL text of a keyset: ORDER BY terms and seek predicates, written through an
//! [`Emitter`] so the same code drives Diesel's `AstPass` and the unit tests below.
//!
//! Rules (docs/DESIGN.md, "The seek predicate"):
//! 1. All columns in one direction on a row-value backend: one row-value comparison,
//!    `(a, b) > ($1, $2)`.
//! 2. Otherwise the factored expanded-OR form with a redundant bound on the leading group in its
//!    own direction: `a >= $1 AND (a > $1 OR (a = $1 AND (b < $2 OR (b = $2 AND c > $3))))`.
//!    On row-value backends a leading run of same-direction columns is one group, bounded by a
//!    row value; on MySQL every column is its own group.
//! 3. NULLs are never bound: a NULL key value becomes `IS NULL` / `IS NOT NULL` arms, and a
//!    nullable column is never part of a row value.

use diesel::QueryResult;

use crate::cursor::Direction;
use crate::keyset::{KeyColumn, NullsOrder, SortDirection};

/// Where SQL goes: text, column `i` of the keyset, or a bind of key value `i`.
pub(crate) trait Emitter {
    fn sql(&mut self, sql: &str);
    fn column(&mut self, index: usize) -> QueryResult<()>;
    fn value(&mut self, index: usize) -> QueryResult<()>;
}

/// How many items a [`Short`] list keeps on the stack: a derived keyset has at most 12 key
/// columns (its key is a tuple of at most 12 values), so it has at most 12 terms and groups.
const INLINE: usize = 12;

/// A list of at most a keyset's columns (its [`Term`]s, its groups), kept on the stack up to
/// [`INLINE`] items and on the heap beyond (a hand-written keyset with more columns): the SQL
/// of a page is written in every pass Diesel makes over it (binds, cache check, text), and a
/// derived keyset's passes then allocate nothing (issue 16, section 2a of the performance
/// report: each allocation cost more than the list's work).
#[derive(Debug, Clone)]
pub(crate) enum Short<T> {
    Inline { items: [T; INLINE], len: usize },
    Heap(Vec<T>),
}

impl<T: Copy + Default> Short<T> {
    fn new() -> Self {
        Short::Inline {
            items: [T::default(); INLINE],
            len: 0,
        }
    }

    fn push(&mut self, item: T) {
        match self {
            Short::Inline { items, len } if *len < INLINE => {
                items[*len] = item;
                *len += 1;
            }
            Short::Inline { items, .. } => {
                let mut heap = items.to_vec();
                heap.push(item);
                *self = Short::Heap(heap);
            }
            Short::Heap(heap) => heap.push(item),
        }
    }
}

impl<T: Copy + Default> FromIterator<T> for Short<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Short::new();
        for item in iter {
            out.push(item);
        }
        out
    }
}

impl<T> std::ops::Deref for Short<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Short::Inline { items, len } => &items[..*len],
            Short::Heap(heap) => heap,
        }
    }
}

impl<T> std::ops::DerefMut for Short<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Short::Inline { items, len } => &mut items[..*len],
            Short::Heap(heap) => heap,
        }
    }
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

/// Backend capabilities the text depends on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dialect {
    pub row_values: bool,
    pub nulls_order_syntax: bool,
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
            Some(nulls) if !dialect.nulls_order_syntax => {
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
            Some(nulls) => {
                e.column(i)?;
                e.sql(" ");
                e.sql(term.direction.keyword());
                e.sql(match nulls {
                    NullsOrder::Last => " NULLS LAST",
                    NullsOrder::First => " NULLS FIRST",
                });
            }
            None => {
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

fn groups(terms: &[Term], row_values: bool) -> Short<Group> {
    let mut out: Short<Group> = Short::new();
    for (i, term) in terms.iter().enumerate() {
        let joins_previous = row_values
            && term.nulls.is_none()
            && out.last().is_some_and(|g| {
                let prev = terms[g.end - 1];
                prev.nulls.is_none() && prev.direction == term.direction
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

/// Whether the seek of `terms` on a backend with `dialect` compares a row value (two or more
/// columns in one group): what [`Paginated::expanded_seek`](crate::Paginated::expanded_seek)
/// changes.
pub(crate) fn writes_row_value(terms: &[Term], dialect: Dialect) -> bool {
    groups(terms, dialect.row_values)
        .iter()
        .any(|g| g.len() > 1)
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
    /// Two arms around the leading column's NULL group, when the rows after the key are
    /// values and then the NULL group (NULLs after a value cursor), or the rest of the NULL
    /// group and then the values (NULLs before, NULL cursor): a single `OR` would turn the
    /// leading column's index condition into a filter (PostgreSQL), so each arm gets its own
    /// index range.
    NullSplit,
    /// One arm per key level (group of columns compared together): the levels before it
    /// equal to the key's, that level strictly after it (`a = $1 AND b > $2`), each arm an
    /// index range of its own (docs/DESIGN.md, "Long runs of ties").
    PerLevel {
        /// The number of levels (at least 2).
        levels: usize,
    },
}

impl SeekPlan {
    /// The plan for this key on a backend with `dialect`. `is_null(i)` says whether key value
    /// `i` is NULL. A leading NULL split wins over `per_level`; a keyset of one level is a
    /// single seek either way.
    pub(crate) fn new(
        terms: &[Term],
        is_null: &dyn Fn(usize) -> bool,
        dialect: Dialect,
        per_level: bool,
    ) -> Self {
        if needs_null_split(terms, is_null) {
            return SeekPlan::NullSplit;
        }
        let levels = groups(terms, dialect.row_values).len();
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
            SeekPlan::NullSplit => 2,
            SeekPlan::PerLevel { levels } => levels,
        }
    }
}

fn needs_null_split(terms: &[Term], is_null: &dyn Fn(usize) -> bool) -> bool {
    terms.len() > 1
        && matches!(
            terms.first().map(|t| (t.nulls, is_null(0))),
            Some((Some(NullsOrder::Last), false)) | Some((Some(NullsOrder::First), true))
        )
}

/// The keyset's terms for a walk direction.
pub(crate) fn terms(columns: &[KeyColumn], walk: Direction) -> Short<Term> {
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
    let groups = groups(terms, dialect.row_values);
    match (part, plan) {
        (Part::Probe, _) => {
            // At or before the key = the seek of the reversed walk, its last column inclusive.
            let reversed: Short<Term> = terms.iter().map(|t| t.reversed()).collect();
            let groups = self::groups(&reversed, dialect.row_values);
            Writer::probe(&reversed, is_null, &groups).write_seek(e)
        }
        (Part::Arm(0), SeekPlan::Single) => Writer::seek(terms, is_null, &groups).write_seek(e),
        (Part::Arm(arm), SeekPlan::NullSplit) if arm < 2 => {
            let w = Writer::values_only(terms, is_null, &groups);
            match (terms[0].nulls, arm) {
                // NULLs after a value: first the values after it, then the NULL group.
                (Some(NullsOrder::Last), 0) => w.write_seek(e),
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
            Writer::seek(terms, is_null, &groups).write_level(e, level)
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
pub(crate) mod tests {
    use super::*;

    /// Renders columns as `c0, c1, ..` and binds as `$0, $1, ..`.
    #[derive(Default)]
    pub(crate) struct Text(pub String);

    impl Emitter for Text {
        fn sql(&mut self, sql: &str) {
            self.0.push_str(sql);
        }
        fn column(&mut self, index: usize) -> QueryResult<()> {
            self.0.push_str(&format!("c{index}"));
            Ok(())
        }
        fn value(&mut self, index: usize) -> QueryResult<()> {
            self.0.push_str(&format!("${index}"));
            Ok(())
        }
    }

    const PG: Dialect = Dialect {
        row_values: true,
        nulls_order_syntax: true,
    };
    const MYSQL: Dialect = Dialect {
        row_values: false,
        nulls_order_syntax: false,
    };

    fn terms(spec: &str) -> Vec<Term> {
        spec.split_whitespace()
            .map(|t| {
                let (dir, nulls) = t.split_once('/').unwrap_or((t, ""));
                Term {
                    direction: if dir == "a" {
                        SortDirection::Asc
                    } else {
                        SortDirection::Desc
                    },
                    nulls: match nulls {
                        "first" => Some(NullsOrder::First),
                        "last" => Some(NullsOrder::Last),
                        _ => None,
                    },
                }
            })
            .collect()
    }

    fn plan(spec: &str, nulls: &[usize], dialect: Dialect, per_level: bool) -> SeekPlan {
        SeekPlan::new(&terms(spec), &|i| nulls.contains(&i), dialect, per_level)
    }

    /// `part` of the seek planned as `plan`.
    fn written(
        spec: &str,
        nulls: &[usize],
        dialect: Dialect,
        plan: SeekPlan,
        part: Part,
    ) -> String {
        let mut t = Text::default();
        write_part(
            &mut t,
            &terms(spec),
            &|i| nulls.contains(&i),
            dialect,
            plan,
            part,
        )
        .unwrap();
        t.0
    }

    /// `part` of the seek as the page query plans it (not per level).
    fn part(spec: &str, nulls: &[usize], dialect: Dialect, part: Part) -> String {
        written(
            spec,
            nulls,
            dialect,
            plan(spec, nulls, dialect, false),
            part,
        )
    }

    /// Every arm of the per-level plan.
    fn levels(spec: &str, nulls: &[usize], dialect: Dialect) -> Vec<String> {
        let terms = terms(spec);
        let is_null = |i| nulls.contains(&i);
        let plan = plan(spec, nulls, dialect, true);
        (0..plan.arms())
            .map(|arm| {
                let mut t = Text::default();
                write_part(&mut t, &terms, &is_null, dialect, plan, Part::Arm(arm)).unwrap();
                t.0
            })
            .collect()
    }

    fn seek(spec: &str, nulls: &[usize], dialect: Dialect) -> String {
        assert_eq!(
            plan(spec, nulls, dialect, false),
            SeekPlan::Single,
            "{spec}"
        );
        part(spec, nulls, dialect, Part::Arm(0))
    }

    fn order(spec: &str, dialect: Dialect) -> String {
        let mut t = Text::default();
        write_order(&mut t, terms(spec), dialect).unwrap();
        t.0
    }

    #[test]
    fn one_direction_is_one_row_value_on_row_value_backends() {
        assert_eq!(seek("a", &[], PG), "c0 > $0");
        assert_eq!(seek("a a", &[], PG), "(c0, c1) > ($0, $1)");
        assert_eq!(seek("d d d", &[], PG), "(c0, c1, c2) < ($0, $1, $2)");
    }

    #[test]
    fn mixed_directions_use_the_factored_form_with_a_leading_bound() {
        assert_eq!(
            seek("a d a", &[], PG),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND (c1 < $1 OR (c1 = $1 AND c2 > $2))))"
        );
        assert_eq!(
            seek("d a", &[], PG),
            "c0 <= $0 AND (c0 < $0 OR (c0 = $0 AND c1 > $1))"
        );
        // A leading run sharing a direction is bounded by a row value.
        assert_eq!(
            seek("a a d", &[], PG),
            "(c0, c1) >= ($0, $1) AND ((c0, c1) > ($0, $1) OR (c0 = $0 AND c1 = $1 AND c2 < $2))"
        );
    }

    #[test]
    fn mysql_never_gets_a_row_value() {
        assert_eq!(seek("a", &[], MYSQL), "c0 > $0");
        assert_eq!(
            seek("a a", &[], MYSQL),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND c1 > $1))"
        );
        assert_eq!(
            seek("d a d", &[], MYSQL),
            "c0 <= $0 AND (c0 < $0 OR (c0 = $0 AND (c1 > $1 OR (c1 = $1 AND c2 < $2))))"
        );
    }

    #[test]
    fn null_key_values_become_is_null_arms_and_are_never_bound() {
        // docs/CASES.md C09: ASC NULLS LAST, cursor name = NULL: one arm, `IS NULL` is indexable.
        assert_eq!(seek("a/last a", &[0], PG), "(c0 IS NULL AND c1 > $1)");
        // NULLS FIRST, value cursor: the NULLs are behind, the bound holds.
        assert_eq!(
            seek("a/first a", &[], PG),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND c1 > $1))"
        );
        // A nullable column after the leading one stays inside its equality branch.
        assert_eq!(
            seek("a d/last a", &[], MYSQL),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND ((c1 < $1 OR c1 IS NULL) OR (c1 = $1 AND c2 > $2))))"
        );
        assert_eq!(
            seek("a d/first a", &[1], MYSQL),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND (c1 IS NOT NULL OR (c1 IS NULL AND c2 > $2))))"
        );
    }

    #[test]
    fn a_leading_null_group_on_the_far_side_is_its_own_arm() {
        let n = |spec: &str, nulls: &[usize]| plan(spec, nulls, PG, false).arms();
        // C10: non-null cursor, NULLs after it: the values after it, then the NULL group.
        assert_eq!(n("a/last a", &[]), 2);
        assert_eq!(
            part("a/last a", &[], PG, Part::Arm(0)),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND c1 > $1))"
        );
        assert_eq!(part("a/last a", &[], PG, Part::Arm(1)), "c0 IS NULL");
        // C11 (a): NULLS FIRST, NULL cursor: the rest of the NULL group, then the values.
        assert_eq!(n("a/first a", &[0]), 2);
        assert_eq!(
            part("a/first a", &[0], PG, Part::Arm(0)),
            "c0 IS NULL AND c1 > $1"
        );
        assert_eq!(part("a/first a", &[0], PG, Part::Arm(1)), "c0 IS NOT NULL");
        // C11 (b): DESC NULLS FIRST, NULL cursor, ASC tie-breaker.
        assert_eq!(
            part("d/first a", &[0], MYSQL, Part::Arm(0)),
            "c0 IS NULL AND c1 > $1"
        );
        // The other cases have one arm.
        assert_eq!(n("a/last a", &[0]), 1);
        assert_eq!(n("a/first a", &[]), 1);
        assert_eq!(n("a d/last a", &[]), 1);
    }

    #[test]
    fn the_probe_is_the_reversed_seek_including_the_key() {
        assert_eq!(part("a", &[], PG, Part::Probe), "(c0 < $0 OR (c0 = $0))");
        assert_eq!(
            part("a a", &[], PG, Part::Probe),
            "((c0, c1) < ($0, $1) OR (c0 = $0 AND c1 = $1))"
        );
        assert_eq!(
            part("d a", &[], MYSQL, Part::Probe),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND (c1 < $1 OR (c1 = $1))))"
        );
        // Reversed NULLS LAST is NULLS FIRST: a NULL cursor's probe is every value and the
        // NULL group up to the key.
        assert_eq!(
            part("a/last a", &[0], PG, Part::Probe),
            "(c0 IS NOT NULL OR (c0 IS NULL AND (c1 < $1 OR (c1 = $1))))"
        );
    }

    #[test]
    fn per_level_arms_are_equal_prefixes_then_one_strict_level() {
        // One level: the plain seek (nothing to split).
        assert_eq!(levels("a a", &[], PG), ["(c0, c1) > ($0, $1)"]);
        // docs/DESIGN.md, "Long runs of ties": one seek per key level.
        assert_eq!(levels("d a", &[], PG), ["c0 < $0", "c0 = $0 AND c1 > $1"]);
        assert_eq!(
            levels("a a d", &[], PG),
            ["(c0, c1) > ($0, $1)", "c0 = $0 AND c1 = $1 AND c2 < $2"]
        );
        // MySQL: every column is a level, even in one direction.
        assert_eq!(
            levels("a a", &[], MYSQL),
            ["c0 > $0", "c0 = $0 AND c1 > $1"]
        );
        // Nullable inner levels keep their NULL rules; a NULL that sorts last has nothing
        // after it.
        assert_eq!(
            levels("d a/last a", &[], PG),
            [
                "c0 < $0",
                "c0 = $0 AND (c1 > $1 OR c1 IS NULL)",
                "c0 = $0 AND c1 = $1 AND c2 > $2"
            ]
        );
        assert_eq!(
            levels("d a/last a", &[1], PG),
            [
                "c0 < $0",
                "c0 = $0 AND 1 = 0",
                "c0 = $0 AND c1 IS NULL AND c2 > $2"
            ]
        );
        // A leading NULL split keeps its two arms.
        assert_eq!(levels("a/last d a", &[], PG).len(), 2);
        // A leading NULL split wins over per level.
        assert_eq!(plan("a/last d a", &[], PG, true), SeekPlan::NullSplit);
        // An arm the plan does not have is refused, never guessed: a level past the end, a
        // level of another backend's plan (MySQL has more levels), a second arm of one seek.
        let terms = terms("a a");
        let mysql_plan = plan("a a", &[], MYSQL, true);
        assert_eq!(mysql_plan, SeekPlan::PerLevel { levels: 2 });
        for (dialect, plan, arm) in [
            (MYSQL, mysql_plan, 2),
            (PG, mysql_plan, 1),
            (PG, SeekPlan::Single, 1),
            (PG, SeekPlan::NullSplit, 2),
        ] {
            let mut t = Text::default();
            let written = write_part(&mut t, &terms, &|_| false, dialect, plan, Part::Arm(arm));
            assert!(written.is_err(), "{plan:?} arm {arm}: {}", t.0);
        }
    }

    #[test]
    fn order_by_states_null_placement_on_every_backend() {
        assert_eq!(order("a d", PG), "c0 ASC, c1 DESC");
        assert_eq!(order("a/last d", PG), "c0 ASC NULLS LAST, c1 DESC");
        assert_eq!(
            order("d/first a", MYSQL),
            "c0 IS NULL DESC, c0 DESC, c1 ASC"
        );
    }

    /// The seek written whole in one condition ([`SeekPlan::Single`] whatever the key), as
    /// the public `SeekPredicate::new` and a window's far bound write it.
    fn whole(spec: &str, nulls: &[usize], dialect: Dialect) -> String {
        written(spec, nulls, dialect, SeekPlan::Single, Part::Arm(0))
    }

    #[test]
    fn a_seek_written_whole_keeps_the_null_group_beyond_the_key() {
        // docs/CASES.md C30: `score DESC NULLS LAST, id ASC` after (20, 2) holds the NULL
        // group: no leading bound (`c0 <= $0` would drop it), `OR c0 IS NULL` in the chain.
        assert_eq!(
            whole("d/last a", &[], PG),
            "((c0 < $0 OR c0 IS NULL) OR (c0 = $0 AND c1 > $1))"
        );
        // Before (NULL, 4): the reversed terms, every value and the NULL group up to the key.
        assert_eq!(
            whole("a/first d", &[0], MYSQL),
            "(c0 IS NOT NULL OR (c0 IS NULL AND c1 < $1))"
        );
        // Split into arms, the values arm bounds only the leading column: a nullable column
        // after it keeps its NULL group in its own branch.
        assert_eq!(plan("a/last d/last a", &[], PG, false), SeekPlan::NullSplit);
        assert_eq!(
            part("a/last d/last a", &[], PG, Part::Arm(0)),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND ((c1 < $1 OR c1 IS NULL) OR (c1 = $1 AND c2 > $2))))"
        );
    }

    #[test]
    fn a_nullable_column_alone_is_one_arm() {
        // A hand-written keyset of one nullable column (the derive refuses a nullable
        // tie-breaker): nothing follows the NULL group, so there is nothing to split.
        assert_eq!(plan("a/last", &[], PG, false), SeekPlan::Single);
        assert_eq!(plan("a/first", &[0], PG, false), SeekPlan::Single);
        assert_eq!(seek("a/last", &[], PG), "(c0 > $0 OR c0 IS NULL)");
        assert_eq!(seek("a/first", &[0], PG), "c0 IS NOT NULL");
    }

    #[test]
    fn terms_follow_the_walk() {
        let columns = [
            KeyColumn {
                name: "v",
                field: "v",
                direction: SortDirection::Asc,
                nulls: Some(NullsOrder::Last),
            },
            KeyColumn {
                name: "id",
                field: "id",
                direction: SortDirection::Desc,
                nulls: None,
            },
        ];
        assert_eq!(
            super::terms(&columns, Direction::Forward).to_vec(),
            terms("a/last d")
        );
        assert_eq!(
            super::terms(&columns, Direction::Backward).to_vec(),
            terms("d/first a")
        );
    }

    #[test]
    fn short_lists_keep_every_item_past_the_inline_ones() {
        // A hand-written keyset may have more columns than a derived one: the 13th term and
        // group go to the heap, in order, and the list keeps them all.
        let many: Vec<Term> = (0..super::INLINE + 3)
            .map(|i| Term {
                direction: if i % 2 == 0 {
                    SortDirection::Asc
                } else {
                    SortDirection::Desc
                },
                nulls: None,
            })
            .collect();
        let short: super::Short<Term> = many.iter().copied().collect();
        assert!(matches!(short, super::Short::Heap(_)));
        assert_eq!(short.to_vec(), many);
        // Alternating directions: one group per column.
        let groups = super::groups(&many, true);
        assert_eq!(groups.len(), many.len());
        assert_eq!(groups.last().map(|g| g.start), Some(many.len() - 1));
        let few: super::Short<Term> = many[..3].iter().copied().collect();
        assert!(matches!(few, super::Short::Inline { len: 3, .. }));
        assert_eq!(few.to_vec(), many[..3].to_vec());
    }

    #[test]
    fn backward_terms_flip_direction_and_null_placement() {
        let col = KeyColumn {
            name: "v",
            field: "v",
            direction: SortDirection::Asc,
            nulls: Some(NullsOrder::Last),
        };
        assert_eq!(
            Term::new(&col, Direction::Backward),
            Term {
                direction: SortDirection::Desc,
                nulls: Some(NullsOrder::First)
            }
        );
    }
}
