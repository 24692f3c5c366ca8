//! The SQL text rules as strings, for every dialect.

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
    column_levels: false,
    negated_ties: false,
};
const MYSQL: Dialect = Dialect {
    row_values: false,
    nulls_order_syntax: false,
    column_levels: false,
    negated_ties: false,
};
const SQLITE: Dialect = Dialect {
    row_values: true,
    nulls_order_syntax: true,
    column_levels: true,
    negated_ties: true,
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
fn written(spec: &str, nulls: &[usize], dialect: Dialect, plan: SeekPlan, part: Part) -> String {
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
fn on_sqlite_two_levels_are_negated_instead_of_an_or() {
    // SQLite plans an `OR` of indexable terms as a candidate union of index searches, at
    // every page once `sqlite_stat4` has samples: the same rows as `NOT`, the same range.
    assert_eq!(
        seek("d a", &[], SQLITE),
        "c0 <= $0 AND NOT (c0 = $0 AND c1 <= $1)"
    );
    assert_eq!(
        seek("a d", &[], SQLITE),
        "c0 >= $0 AND NOT (c0 = $0 AND c1 >= $1)"
    );
    // A run sharing a direction stays a row value on either side.
    assert_eq!(
        seek("a a d", &[], SQLITE),
        "(c0, c1) >= ($0, $1) AND NOT (c0 = $0 AND c1 = $1 AND c2 >= $2)"
    );
    assert_eq!(
        seek("d a a", &[], SQLITE),
        "c0 <= $0 AND NOT (c0 = $0 AND (c1, c2) <= ($1, $2))"
    );
    // One direction: the row value. Three levels: the expanded form.
    assert_eq!(seek("a a", &[], SQLITE), "(c0, c1) > ($0, $1)");
    assert_eq!(
        seek("a d a", &[], SQLITE),
        "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND (c1 < $1 OR (c1 = $1 AND c2 > $2))))"
    );
    // A nullable column: `NOT` of an unknown comparison is unknown too, so the expanded form.
    assert_eq!(
        seek("d a/last", &[], SQLITE),
        seek(
            "d a/last",
            &[],
            Dialect {
                negated_ties: false,
                ..SQLITE
            }
        )
    );
    assert!(!seek("d a/last", &[], SQLITE).contains("NOT"));
    // The probe (at or before the key) keeps its form.
    assert!(!part("d a", &[], SQLITE, Part::Probe).contains("NOT"));
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
    // ASC NULLS LAST, cursor name = NULL: one arm, `IS NULL` is indexable.
    assert_eq!(seek("a/last a", &[0], PG), "(c0 IS NULL AND c1 > $1)");
    // NULLS FIRST, value cursor: the NULLs are behind it, so the column joins the row value
    // (a comparison with NULL is never true: the NULL group stays out, as it must).
    assert_eq!(seek("a/first a", &[], PG), "(c0, c1) > ($0, $1)");
    // On MySQL (no row values) the bound holds.
    assert_eq!(
        seek("a/first a", &[], MYSQL),
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
    // Non-null cursor, NULLs after it: the values after it, then the NULL group.
    assert_eq!(n("a/last a", &[]), 2);
    // The values arm holds no NULL of the leading column, so where the
    // directions agree it is one row value, an index range that starts at the key (PostgreSQL
    // filtered the key's tie group column by column before).
    assert_eq!(
        part("a/last a", &[], PG, Part::Arm(0)),
        "(c0, c1) > ($0, $1)"
    );
    assert_eq!(
        part("d/last d", &[], PG, Part::Arm(0)),
        "(c0, c1) < ($0, $1)"
    );
    // Directions that differ keep the factored form with its leading bound.
    assert_eq!(
        part("a/last d", &[], PG, Part::Arm(0)),
        "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND c1 < $1))"
    );
    // No row values on MySQL.
    assert_eq!(
        part("a/last a", &[], MYSQL, Part::Arm(0)),
        "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND c1 > $1))"
    );
    assert_eq!(part("a/last a", &[], PG, Part::Arm(1)), "c0 IS NULL");
    // NULLS FIRST, NULL cursor: the rest of the NULL group, then the values.
    assert_eq!(n("a/first a", &[0]), 2);
    assert_eq!(
        part("a/first a", &[0], PG, Part::Arm(0)),
        "c0 IS NULL AND c1 > $1"
    );
    assert_eq!(part("a/first a", &[0], PG, Part::Arm(1)), "c0 IS NOT NULL");
    // DESC NULLS FIRST, NULL cursor, ASC tie-breaker.
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
fn a_nullable_column_joins_the_row_value_only_where_no_null_can_follow_the_key() {
    // Inside: NULLS FIRST with a value is after every NULL, so `(c0, c1, c2)` is exact.
    assert_eq!(seek("a a/first a", &[], PG), "(c0, c1, c2) > ($0, $1, $2)");
    // A NULL key value is never bound: its column stays on its own, as `IS NULL` arms.
    assert_eq!(
        seek("a a/first a", &[1], PG),
        "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND (c1 IS NOT NULL OR (c1 IS NULL AND c2 > $2))))"
    );
    // NULLS LAST after the leading column: the NULL group follows the key inside its tie
    // group, so the column keeps `OR c1 IS NULL` and no row value holds it.
    assert_eq!(
        seek("a a/last a", &[], PG),
        "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND ((c1 > $1 OR c1 IS NULL) OR (c1 = $1 AND c2 > $2))))"
    );
    // The probe (inclusive) keeps a nullable column out of its row values: one inclusive
    // group would be `(row < key OR row = key)`, no index range on PostgreSQL; the expanded
    // form keeps its leading bound.
    assert_eq!(
        part("a/last a", &[], PG, Part::Probe),
        "c0 <= $0 AND (c0 < $0 OR (c0 = $0 AND c1 <= $1))"
    );
    // The levels of a per-level seek follow the same groups: one level, one seek.
    assert_eq!(plan("a/first a", &[], PG, true), SeekPlan::Single);
    assert_eq!(
        plan("a/first a", &[], MYSQL, true),
        SeekPlan::PerLevel { levels: 2 }
    );
}

#[test]
fn the_probe_is_the_reversed_seek_including_the_key() {
    assert_eq!(part("a", &[], PG, Part::Probe), "c0 <= $0");
    assert_eq!(part("a a", &[], PG, Part::Probe), "(c0, c1) <= ($0, $1)");
    assert_eq!(
        part("d a", &[], MYSQL, Part::Probe),
        "c0 >= $0 AND (c0 > $0 OR (c0 = $0 AND c1 <= $1))"
    );
    // Reversed NULLS LAST is NULLS FIRST: a NULL cursor's probe is every value and the
    // NULL group up to the key.
    assert_eq!(
        part("a/last a", &[0], PG, Part::Probe),
        "(c0 IS NOT NULL OR (c0 IS NULL AND c1 <= $1))"
    );
}

#[test]
fn per_level_arms_are_equal_prefixes_then_one_strict_level() {
    // One level: the plain seek (nothing to split).
    assert_eq!(levels("a a", &[], PG), ["(c0, c1) > ($0, $1)"]);
    // Long runs of ties (the SQL guide): one seek per key level.
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
    // A leading NULL split splits its values arm into levels, the NULL group last.
    assert_eq!(
        plan("a/last d a", &[], PG, true),
        SeekPlan::NullSplit { values_levels: 3 }
    );
    assert_eq!(
        levels("a/last d a", &[], PG),
        [
            "c0 > $0",
            "c0 = $0 AND c1 < $1",
            "c0 = $0 AND c1 = $1 AND c2 > $2",
            "c0 IS NULL"
        ]
    );
    // A NULL cursor before its values (NULLs first): the rest of the NULL group, then
    // every value, as without levels.
    assert_eq!(
        plan("a/first d a", &[0], PG, true),
        SeekPlan::NullSplit { values_levels: 1 }
    );
    // An arm the plan does not have is refused, never guessed: a level past the end, a
    // level of another backend's plan (MySQL has more levels), a second arm of one seek.
    let terms = terms("a a");
    let mysql_plan = plan("a a", &[], MYSQL, true);
    assert_eq!(mysql_plan, SeekPlan::PerLevel { levels: 2 });
    for (dialect, plan, arm) in [
        (MYSQL, mysql_plan, 2),
        (PG, mysql_plan, 1),
        (PG, SeekPlan::Single, 1),
        (PG, SeekPlan::NullSplit { values_levels: 1 }, 2),
    ] {
        let mut t = Text::default();
        let written = write_part(&mut t, &terms, &|_| false, dialect, plan, Part::Arm(arm));
        assert!(written.is_err(), "{plan:?} arm {arm}: {}", t.0);
    }
}

#[test]
fn on_sqlite_a_level_is_one_column() {
    // SQLite ranges `(c0, c1) > (?, ?)` only from `c0` where `c1` is the rowid; `c0 = ? AND
    // c1 > ?` from the cursor. A later page is one row value unless the page asks for
    // levels; then each level is one column.
    assert_eq!(plan("a a", &[], SQLITE, false), SeekPlan::Single);
    assert_eq!(seek("a a", &[], SQLITE), "(c0, c1) > ($0, $1)");
    assert_eq!(
        levels("a a", &[], SQLITE),
        ["c0 > $0", "c0 = $0 AND c1 > $1"]
    );
    assert_eq!(levels("a a", &[], PG), ["(c0, c1) > ($0, $1)"]);
    // The values after a value cursor of a leading NULLS LAST column: one arm per column
    // by default, then the NULL group.
    let split = plan("a/last a", &[], SQLITE, false);
    assert_eq!(split, SeekPlan::NullSplit { values_levels: 2 });
    assert_eq!(
        (0..split.arms())
            .map(|arm| part("a/last a", &[], SQLITE, Part::Arm(arm)))
            .collect::<Vec<_>>(),
        ["c0 > $0", "c0 = $0 AND c1 > $1", "c0 IS NULL"]
    );
    // PostgreSQL keeps the values as one row value.
    assert_eq!(
        plan("a/last a", &[], PG, false),
        SeekPlan::NullSplit { values_levels: 1 }
    );
    assert_eq!(
        part("a/last a", &[], PG, Part::Arm(0)),
        "(c0, c1) > ($0, $1)"
    );
    // A NULL cursor: the rest of the NULL group, then the values (no cursor value to
    // split on).
    assert_eq!(plan("d/last a", &[0], SQLITE, false), SeekPlan::Single);
    assert_eq!(
        plan("a/first a", &[0], SQLITE, false),
        SeekPlan::NullSplit { values_levels: 1 }
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

/// The seek written whole in one condition ([`SeekPlan::Single`] whatever the key), as
/// the public `SeekPredicate::new` and a window's far bound write it.
fn whole(spec: &str, nulls: &[usize], dialect: Dialect) -> String {
    written(spec, nulls, dialect, SeekPlan::Single, Part::Arm(0))
}

#[test]
fn a_seek_written_whole_keeps_the_null_group_beyond_the_key() {
    // A nullable leading column in mixed directions: `score DESC NULLS LAST, id ASC` after (20, 2) holds the NULL
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
    assert_eq!(
        plan("a/last d/last a", &[], PG, false),
        SeekPlan::NullSplit { values_levels: 1 }
    );
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
            expression: false,
            exact_text: false,
        },
        KeyColumn {
            name: "id",
            field: "id",
            direction: SortDirection::Desc,
            nulls: None,
            expression: false,
            exact_text: false,
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
    let many: Vec<Term> = (0..super::super::small_list::INLINE + 3)
        .map(|i| Term {
            direction: if i % 2 == 0 {
                SortDirection::Asc
            } else {
                SortDirection::Desc
            },
            nulls: None,
        })
        .collect();
    let short: super::super::small_list::SmallList<Term> = many.iter().copied().collect();
    assert!(matches!(
        short,
        super::super::small_list::SmallList::Heap(_)
    ));
    assert_eq!(short.to_vec(), many);
    // Alternating directions: one group per column.
    let groups = super::groups(&many, true, &|_| false, false);
    assert_eq!(groups.len(), many.len());
    assert_eq!(groups.last().map(|g| g.start), Some(many.len() - 1));
    let few: super::super::small_list::SmallList<Term> = many[..3].iter().copied().collect();
    assert!(matches!(
        few,
        super::super::small_list::SmallList::Inline { len: 3, .. }
    ));
    assert_eq!(few.to_vec(), many[..3].to_vec());
}

#[test]
fn backward_terms_flip_direction_and_null_placement() {
    let col = KeyColumn {
        name: "v",
        field: "v",
        direction: SortDirection::Asc,
        nulls: Some(NullsOrder::Last),
        expression: false,
        exact_text: false,
    };
    assert_eq!(
        Term::new(&col, Direction::Backward),
        Term {
            direction: SortDirection::Desc,
            nulls: Some(NullsOrder::First)
        }
    );
}
