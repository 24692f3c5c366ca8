//! The SQL text of a keyset: ORDER BY terms and seek predicates, written through an
//! [`Emitter`] so the same code drives Diesel's `AstPass` and the unit tests below.
//!
//! Rules (../shared/DESIGN.md, "The seek predicate"):
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

/// One key column's order for a given walk direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Term {
    pub direction: SortDirection,
    /// `None`: the column is not nullable.
    pub nulls: Option<NullsOrder>,
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
    terms: &[Term],
    dialect: Dialect,
) -> QueryResult<()> {
    for (i, term) in terms.iter().enumerate() {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Group {
    start: usize,
    end: usize,
}

impl Group {
    fn len(self) -> usize {
        self.end - self.start
    }
}

fn groups(terms: &[Term], row_values: bool) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::with_capacity(terms.len());
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

/// Which part of a seek a query renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Main arm `i` of [`arm_count`]: rows after the key, a disjoint slice of them per arm,
    /// arms in walk order.
    Arm(usize),
    /// The rows at or before the key (the other side, the key's own row included): the
    /// one-row probe for an exact flag in the other direction.
    Probe,
}

/// How many arms the seek after this key has. Two when the leading column is nullable and
/// the rows after the key are values and then the NULL group (NULLs after a value cursor), or
/// the rest of the NULL group and then the values (NULLs before, NULL cursor): a single `OR`
/// would turn the leading column's index condition into a filter (PostgreSQL), so each arm
/// gets its own index range and the page query takes the union. Otherwise, with `per_level`,
/// one arm per key level (group of columns compared together, see [`level_count`]); one
/// without.
pub(crate) fn arm_count(
    terms: &[Term],
    is_null: &dyn Fn(usize) -> bool,
    dialect: Dialect,
    per_level: bool,
) -> usize {
    match null_arms(terms, is_null) {
        1 if per_level => level_count(terms, dialect),
        n => n,
    }
}

/// The number of key levels: groups of columns the seek compares together (a leading run of
/// same-direction, non-nullable columns is one level on row-value backends; every column is
/// its own level otherwise).
pub(crate) fn level_count(terms: &[Term], dialect: Dialect) -> usize {
    groups(terms, dialect.row_values).len()
}

fn null_arms(terms: &[Term], is_null: &dyn Fn(usize) -> bool) -> usize {
    match terms.first().map(|t| (t.nulls, is_null(0))) {
        Some((Some(NullsOrder::Last), false)) | Some((Some(NullsOrder::First), true))
            if terms.len() > 1 =>
        {
            2
        }
        _ => 1,
    }
}

/// Writes `part` of the seek predicate for the walk. `is_null(i)` says whether key value `i`
/// is NULL. With one arm, `Part::Arm(0)` is the whole seek: rows strictly after the key in
/// the walk's order. With `per_level` (and no NULL split), `Part::Arm(j)` is key level `j`:
/// the levels before it equal to the key's, level `j` strictly after it
/// (`a = $1 AND b > $2`), each arm an index range of its own (../shared/DESIGN.md, "Long runs
/// of ties").
pub(crate) fn write_part(
    e: &mut dyn Emitter,
    terms: &[Term],
    is_null: &dyn Fn(usize) -> bool,
    dialect: Dialect,
    part: Part,
    per_level: bool,
) -> QueryResult<()> {
    match part {
        Part::Probe => {
            // At or before the key = the seek of the reversed walk, its last column inclusive.
            let reversed: Vec<Term> = terms.iter().map(|t| t.reversed()).collect();
            let groups = groups(&reversed, dialect.row_values);
            let w = Writer {
                terms: &reversed,
                is_null,
                groups: &groups,
                values_only: false,
                inclusive: true,
            };
            w.write_seek(e)
        }
        Part::Arm(arm) if null_arms(terms, is_null) == 2 => {
            let groups = groups(terms, dialect.row_values);
            let w = Writer {
                terms,
                is_null,
                groups: &groups,
                values_only: true,
                inclusive: false,
            };
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
        Part::Arm(level) => {
            let groups = groups(terms, dialect.row_values);
            let w = Writer {
                terms,
                is_null,
                groups: &groups,
                values_only: false,
                inclusive: false,
            };
            if per_level {
                w.write_level(e, level)
            } else {
                w.write_seek(e)
            }
        }
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

/// What "strictly after the key" means for one group.
enum After {
    /// Nothing in this group comes after the key value (a NULL that sorts last).
    Nothing,
    /// A condition to write.
    Some,
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
            return Err(crate::keyset::__index_error(level));
        };
        for &before in &self.groups[..level] {
            self.write_equal(e, before)?;
            e.sql(" AND ");
        }
        match self.after_kind(g) {
            After::Nothing => e.sql("1 = 0"),
            After::Some => self.write_after(e, g)?,
        }
        Ok(())
    }

    /// `(g_i after) OR ((g_i equal) AND chain(i + 1))`, factored from the right.
    fn write_chain(&self, e: &mut dyn Emitter, i: usize) -> QueryResult<()> {
        let g = self.groups[i];
        let last = i + 1 == self.groups.len();
        if last && self.inclusive {
            // After or equal.
            return match self.after_kind(g) {
                After::Nothing => self.write_equal(e, g),
                After::Some => {
                    e.sql("(");
                    self.write_after(e, g)?;
                    e.sql(" OR (");
                    self.write_equal(e, g)?;
                    e.sql("))");
                    Ok(())
                }
            };
        }
        if last {
            return match self.after_kind(g) {
                After::Nothing => {
                    e.sql("1 = 0");
                    Ok(())
                }
                After::Some => self.write_after(e, g),
            };
        }
        e.sql("(");
        if let After::Some = self.after_kind(g) {
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

    fn after_kind(&self, g: Group) -> After {
        let term = self.terms[g.start];
        match term.nulls {
            Some(NullsOrder::Last) if (self.is_null)(g.start) => After::Nothing,
            _ => After::Some,
        }
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
            // NULL sorting last: nothing after it (`after_kind` keeps us from getting here).
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

    fn part(spec: &str, nulls: &[usize], dialect: Dialect, part: Part) -> String {
        let mut t = Text::default();
        write_part(
            &mut t,
            &terms(spec),
            &|i| nulls.contains(&i),
            dialect,
            part,
            false,
        )
        .unwrap();
        t.0
    }
    /// Every arm of the per-level split, and their count.
    fn levels(spec: &str, nulls: &[usize], dialect: Dialect) -> Vec<String> {
        let terms = terms(spec);
        let is_null = |i| nulls.contains(&i);
        (0..arm_count(&terms, &is_null, dialect, true))
            .map(|arm| {
                let mut t = Text::default();
                write_part(&mut t, &terms, &is_null, dialect, Part::Arm(arm), true).unwrap();
                t.0
            })
            .collect()
    }

    fn seek(spec: &str, nulls: &[usize], dialect: Dialect) -> String {
        let terms = terms(spec);
        assert_eq!(
            arm_count(&terms, &|i| nulls.contains(&i), dialect, false),
            1,
            "{spec}"
        );
        part(spec, nulls, dialect, Part::Arm(0))
    }

    fn order(spec: &str, dialect: Dialect) -> String {
        let mut t = Text::default();
        write_order(&mut t, &terms(spec), dialect).unwrap();
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
        // CASES.md C09: ASC NULLS LAST, cursor name = NULL: one arm, `IS NULL` is indexable.
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
        let n = |spec: &str, nulls: &[usize]| {
            arm_count(&terms(spec), &|i| nulls.contains(&i), PG, false)
        };
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
        // DESIGN.md, "Long runs of ties": one seek per key level.
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
        // A level the statement does not have is refused.
        let mut t = Text::default();
        let terms = terms("d a");
        assert!(write_part(&mut t, &terms, &|_| false, PG, Part::Arm(2), true).is_err());
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
