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
                direction: column.direction.reversed(),
                nulls: column.nulls.map(NullsOrder::reversed),
            },
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

/// The seek predicate for the walk: rows strictly after the key in the walk's order.
/// `is_null(i)` says whether key value `i` is NULL.
pub(crate) fn write_seek(
    e: &mut dyn Emitter,
    terms: &[Term],
    is_null: &dyn Fn(usize) -> bool,
    dialect: Dialect,
) -> QueryResult<()> {
    let groups = groups(terms, dialect.row_values);
    let w = Writer {
        terms,
        is_null,
        groups: &groups,
    };
    if groups.len() > 1 && w.write_bound(e, 0)? {
        e.sql(" AND ");
    }
    w.write_chain(e, 0)
}

struct Writer<'a> {
    terms: &'a [Term],
    is_null: &'a dyn Fn(usize) -> bool,
    groups: &'a [Group],
}

/// What "strictly after the key" means for one group.
enum After {
    /// Nothing in this group comes after the key value (a NULL that sorts last).
    Nothing,
    /// A condition to write.
    Some,
}

impl Writer<'_> {
    /// `(g_i after) OR ((g_i equal) AND chain(i + 1))`, factored from the right.
    fn write_chain(&self, e: &mut dyn Emitter, i: usize) -> QueryResult<()> {
        let g = self.groups[i];
        let last = i + 1 == self.groups.len();
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
            // Non-null value, NULLs (if any) before it: `col >= v` excludes only rows before.
            (None, _) | (Some(NullsOrder::First), false) => {
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

    fn seek(spec: &str, nulls: &[usize], dialect: Dialect) -> String {
        let mut t = Text::default();
        write_seek(&mut t, &terms(spec), &|i| nulls.contains(&i), dialect).unwrap();
        t.0
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
        // CASES.md C09: ASC NULLS LAST, cursor name = NULL.
        assert_eq!(seek("a/last a", &[0], PG), "(c0 IS NULL AND c1 > $1)");
        // C10: non-null cursor, NULLs after it.
        assert_eq!(
            seek("a/last a", &[], PG),
            "((c0 > $0 OR c0 IS NULL) OR (c0 = $0 AND c1 > $1))"
        );
        // C11 (a): NULLS FIRST, NULL cursor.
        assert_eq!(
            seek("a/first a", &[0], PG),
            "(c0 IS NOT NULL OR (c0 IS NULL AND c1 > $1))"
        );
        // NULLS FIRST, value cursor: the NULLs are behind, the bound holds.
        assert_eq!(
            seek("a/first a", &[], PG),
            "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND c1 > $1))"
        );
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
