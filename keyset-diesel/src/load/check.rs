//! The page check: the rows of one page query, compared with each other and with the cursor,
//! in the `page_size + 1` rows already fetched (no extra query). Rows with equal keys are
//! adjacent in keyset order, so a tie-breaker that is not unique in the query's rows is seen
//! wherever a walk meets it; for key types whose order Rust knows exactly
//! ([`KeyValue::exact_cmp`](crate::query::KeyValue::exact_cmp)), rows out of keyset order
//! are seen too: the sign of a key value that does not survive the round trip to Rust and
//! back.

use std::cmp::Ordering;

use crate::cursor::Direction;
use crate::error::KeysetError;
use crate::key::KeyTuple;
use crate::keyset::{column_name, KeyColumn, Keyset, NullsOrder, SortDirection};

/// How key `b` stands to key `a` in walk order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// `b` comes after `a`, or Rust cannot tell (a column whose order is the database's own).
    Fine,
    /// Every key column is equal.
    Equal,
    /// `b` comes before `a`: they differ first at key column `index`.
    Backwards(usize),
    /// Every key column is equal, or is text that differs only by what a collation may
    /// ignore: `first` is the first such text column, `columns` the set of them (bit `i` for
    /// column `i`; empty when one is past the 64th).
    MayCollateEqual { first: usize, columns: u64 },
}

fn step<K: Keyset>(a: &K::Key, b: &K::Key, walk: Direction) -> Step {
    // The first text column whose values differ only by what a collation may ignore: from
    // there on the database may call the keys equal or not, so only equality is judged.
    let mut collated: Option<usize> = None;
    let mut columns = 0u64;
    for (index, column) in K::COLUMNS.iter().enumerate() {
        let ord = match (a.is_null(index), b.is_null(index)) {
            (true, true) => Ordering::Equal,
            (a_null, b_null) if a_null != b_null => {
                // The declared NULL placement, in the declared order (`nulls` is `None` only
                // for a column declared not nullable: Rust cannot tell).
                let null_first = match column.nulls {
                    Some(NullsOrder::First) => true,
                    Some(NullsOrder::Last) => false,
                    None => return Step::Fine,
                };
                let ord = if a_null == null_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
                // Placement is declared for the forward order; only the walk reverses it.
                match walk {
                    Direction::Forward => ord,
                    Direction::Backward => ord.reverse(),
                }
            }
            _ => {
                let Some(ord) = a.exact_cmp_at(b, index) else {
                    if !column.exact_text && a.may_collate_equal_at(b, index) {
                        collated.get_or_insert(index);
                        // A keyset of more than 64 columns: no set, so no question.
                        columns = match u32::try_from(index) {
                            Ok(bit) if bit < 64 && (columns != 0 || collated == Some(index)) => {
                                columns | 1 << bit
                            }
                            _ => 0,
                        };
                        continue;
                    }
                    return Step::Fine;
                };
                let ord = match column.direction {
                    SortDirection::Asc => ord,
                    SortDirection::Desc => ord.reverse(),
                };
                match walk {
                    Direction::Forward => ord,
                    Direction::Backward => ord.reverse(),
                }
            }
        };
        match (ord, collated) {
            (Ordering::Less, _) | (Ordering::Greater, Some(_)) => return Step::Fine,
            (Ordering::Greater, None) => return Step::Backwards(index),
            (Ordering::Equal, _) => {}
        }
    }
    collated.map_or(Step::Equal, |first| Step::MayCollateEqual {
        first,
        columns,
    })
}

/// Two adjacent rows of a page whose keys are equal except for text that differs only by
/// what a collation may ignore (`Bob` and `bob`, `x` and `x  `): whether they are equal is the
/// column's collation's answer, so the database is asked
/// ([`CollationQuestion`](crate::query::CollationQuestion)). Only for text columns of the
/// keyset's table (not expressions, not a joined table's columns).
pub(crate) struct Unsure<K: Keyset> {
    /// The earlier row's key, in walk order.
    pub before: K::Key,
    /// The later row's key.
    pub after: K::Key,
    /// The text columns whose values differ that way (bit `i` for column `i`).
    pub columns: u64,
    /// The first of them, for the error.
    pub first: usize,
}

impl<K: Keyset> Unsure<K> {
    /// The error when the database calls the two keys equal (or cannot say: the earlier row
    /// is gone).
    pub(crate) fn error(&self) -> KeysetError {
        KeysetError::CollationEqualKeys {
            column: column_name::<K>(self.first),
            tie_breaker: K::COLUMNS.last().map_or("", |c| c.name),
        }
    }
}

/// The pair of keys `before` and `after` that differ only in text columns `columns` (the
/// first: `first`) a collation may ignore, for the database to answer.
///
/// # Errors
/// [`KeysetError::CollationEqualKeys`] when a column cannot be asked about ([`askable`]).
fn unsure_pair<K: Keyset>(
    before: &K::Key,
    after: &K::Key,
    first: usize,
    columns: u64,
) -> Result<Unsure<K>, KeysetError> {
    let pair = Unsure {
        before: before.clone(),
        after: after.clone(),
        columns,
        first,
    };
    let askable = columns != 0
        && K::COLUMNS
            .iter()
            .enumerate()
            .all(|(i, c)| i >= 64 || columns & (1u64 << i) == 0 || askable(c));
    match askable {
        true => Ok(pair),
        false => Err(pair.error()),
    }
}

/// A locking page's look-ahead, read without a lock from its last row delivered *inclusive*
/// (`LIMIT 2`; the keys in `keys`, in walk order): whether a row follows, and the pairs to ask
/// about. A locking page reads no look-ahead row of its own, so a row whose key differs from
/// the last row's only in text a collation may ignore is seen here or never: the next page's
/// strict seek would skip it if the collation calls the two equal. Without a last row (an
/// empty page, whose look-ahead reads from the cursor), any key is a row that follows.
///
/// # Errors
/// [`KeysetError::TieBreakerNotUnique`] when the last row's key comes back twice;
/// [`KeysetError::CollationEqualKeys`] for a pair that cannot be asked about ([`askable`]).
pub(crate) fn look_ahead<K: Keyset>(
    last: Option<&K>,
    keys: &[(K::Key, i64)],
    walk: Direction,
) -> Result<(bool, Vec<Unsure<K>>), KeysetError> {
    let Some(last) = last.map(Keyset::key) else {
        return Ok((!keys.is_empty(), Vec::new()));
    };
    let (mut more, mut own, mut unsure) = (false, 0, Vec::new());
    for (key, _) in keys {
        match step::<K>(&last, key, walk) {
            // The last row itself; a second one is another row with its key.
            Step::Equal => own += 1,
            Step::MayCollateEqual { first, columns } => {
                unsure.push(unsure_pair(&last, key, first, columns)?);
                more = true;
            }
            Step::Fine | Step::Backwards(_) => more = true,
        }
    }
    if own > 1 {
        return Err(KeysetError::TieBreakerNotUnique {
            tie_breaker: K::COLUMNS.last().map_or("", |c| c.name),
        });
    }
    Ok((more, unsure))
}

/// Whether the database can be asked about text column `column` of `K`: a column of the
/// keyset's table, not an SQL expression nor a joined table's column (`authors::name`), whose
/// equality one statement on the keyset's table alone can test.
fn askable(column: &KeyColumn) -> bool {
    !column.expression && !column.name.contains("::")
}

/// Checks the fetched rows (in walk order, look-ahead row included) against each other and
/// the first against the request's cursor.
///
/// # Errors
/// [`KeysetError::TieBreakerNotUnique`] for two rows with equal keys,
/// [`KeysetError::CollationEqualKeys`] for two adjacent rows whose keys differ only in text
/// a collation may call equal, in a column the database cannot be asked about (otherwise the
/// pair is returned, [`Unsure`], for the database to answer),
/// [`KeysetError::CursorRowReturned`] for a first row whose key is the cursor's (unless
/// `inclusive`: the page starts at the cursor's row),
/// [`KeysetError::KeyOutOfOrder`] for a row before its predecessor (or the cursor) in
/// keyset order; [`KeysetError::InvalidRowKey`] for a row whose key holds a value that is
/// never a key (a NaN).
pub(crate) fn check_rows<K: Keyset>(
    rows: &[K],
    cursor: Option<&K::Key>,
    walk: Direction,
    inclusive: bool,
) -> Result<Vec<Unsure<K>>, KeysetError> {
    let mut unsure = Vec::new();
    let tie_breaker = K::COLUMNS.last().map_or("", |c| c.name);
    let out_of_order = |index: usize| KeysetError::KeyOutOfOrder {
        column: column_name::<K>(index),
    };
    let mut previous = cursor.cloned();
    let mut first = true;
    for row in rows {
        let key = row.key();
        key.check_key()
            .map_err(|(index, e)| KeysetError::InvalidRowKey {
                column: column_name::<K>(index),
                reason: e.0,
            })?;
        if let Some(before) = &previous {
            match step::<K>(before, &key, walk) {
                Step::Fine => {}
                // An inclusive page starts at its cursor's own row.
                Step::Equal if first && inclusive => {}
                Step::Equal if first => return Err(KeysetError::CursorRowReturned),
                Step::Equal => return Err(KeysetError::TieBreakerNotUnique { tie_breaker }),
                // Against the cursor the strict seek has spoken: the database put the row
                // after it, so it does not call the two equal.
                Step::MayCollateEqual { .. } if first => {}
                Step::MayCollateEqual { first, columns } => {
                    unsure.push(unsure_pair(before, &key, first, columns)?);
                }
                Step::Backwards(index) => return Err(out_of_order(index)),
            }
        }
        previous = Some(key);
        first = false;
    }
    Ok(unsure)
}

#[cfg(test)]
mod tests {
    use super::*;

    diesel::table! { rows (id) { id -> BigInt, score -> Nullable<Integer>, name -> Text } }

    /// `score DESC NULLS LAST, name ASC, id ASC`.
    #[derive(
        Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_derive::Keyset,
    )]
    #[diesel(table_name = rows)]
    struct Row {
        #[keyset(desc, nulls_last)]
        score: Option<i32>,
        #[keyset(asc)]
        name: String,
        #[keyset(asc, unique)]
        id: i64,
    }

    #[allow(non_snake_case)]
    fn Row(score: Option<i32>, name: &str, id: i64) -> Row {
        Row {
            score,
            name: name.to_string(),
            id,
        }
    }

    /// The page check, with a pair the database would be asked about refused as the check
    /// refuses one it cannot ask about.
    fn check(rows: &[Row], cursor: Option<Row>, walk: Direction) -> Result<(), KeysetError> {
        let unsure = check_rows(rows, cursor.map(|c| c.key()).as_ref(), walk, false)?;
        unsure.first().map_or(Ok(()), |pair| Err(pair.error()))
    }

    /// The pairs the page check leaves to the database: (earlier name, later name, columns).
    fn unsure(rows: &[Row], walk: Direction) -> Vec<(String, String, u64)> {
        check_rows(rows, None, walk, false)
            .expect("no refusal")
            .into_iter()
            .map(|pair| (pair.before.1, pair.after.1, pair.columns))
            .collect()
    }

    #[test]
    fn text_a_collation_may_call_equal_is_left_to_the_database_pair_by_pair() {
        // Two pairs on one page, each asked about its text column (`name`, bit 1) alone.
        let rows = [
            Row(Some(3), "bob", 1),
            Row(Some(3), "Bob", 1),
            Row(Some(3), "carl", 2),
            Row(Some(2), "x", 7),
            Row(Some(2), "x  ", 7),
        ];
        assert_eq!(
            unsure(&rows, Direction::Forward),
            [
                ("bob".to_string(), "Bob".to_string(), 0b010),
                ("x".to_string(), "x  ".to_string(), 0b010),
            ]
        );
        // Neighbours whose folds differ ask nothing.
        let rows = [Row(Some(3), "bob", 1), Row(Some(3), "carl", 1)];
        assert_eq!(unsure(&rows, Direction::Forward), []);
        // Equal keys are refused before any question.
        let rows = [Row(Some(3), "bob", 1), Row(Some(3), "bob", 1)];
        assert!(check_rows(&rows, None, Direction::Forward, false).is_err());
    }

    #[test]
    fn a_locking_pages_look_ahead_from_its_last_row_inclusive() {
        let last = Row(Some(3), "bob", 1);
        let keys = |rows: &[Row]| -> Vec<(<Row as Keyset>::Key, i64)> {
            rows.iter().map(|r| (r.key(), 0)).collect()
        };
        let walk = Direction::Forward;
        // The row itself and the next: more, nothing to ask.
        let (more, ask) = look_ahead(
            Some(&last),
            &keys(&[last.clone(), Row(Some(3), "carl", 1)]),
            walk,
        )
        .unwrap();
        assert!(more && ask.is_empty());
        // The row itself alone: the end.
        let (more, ask) =
            look_ahead(Some(&last), &keys(std::slice::from_ref(&last)), walk).unwrap();
        assert!(!more && ask.is_empty());
        // A neighbour whose key differs only in fold-equal text, in either order: asked.
        for rows in [
            [Row(Some(3), "Bob", 1), last.clone()],
            [last.clone(), Row(Some(3), "BOB", 1)],
        ] {
            let (more, ask) = look_ahead(Some(&last), &keys(&rows), walk).unwrap();
            assert!(more);
            assert_eq!(ask.len(), 1);
            assert_eq!((ask[0].before.1.as_str(), ask[0].columns), ("bob", 0b010));
        }
        // The last row's key twice: another row with it.
        assert!(matches!(
            look_ahead(Some(&last), &keys(&[last.clone(), last.clone()]), walk),
            Err(KeysetError::TieBreakerNotUnique { tie_breaker: "id" })
        ));
        // An empty page: any key follows the cursor.
        let (more, _) = look_ahead::<Row>(None, &keys(std::slice::from_ref(&last)), walk).unwrap();
        assert!(more);
    }

    diesel::table! { tags (id) { id -> BigInt, tag -> Text } }
    diesel::define_sql_function!(fn lower(x: diesel::sql_types::Text) -> diesel::sql_types::Text);

    /// A key on an SQL expression: no statement on the table alone can ask about it.
    #[derive(Debug, Clone, diesel::Queryable, diesel::Selectable, keyset_derive::Keyset)]
    #[diesel(table_name = tags)]
    struct Lowered {
        #[diesel(select_expression = lower(tags::tag))]
        #[diesel(select_expression_type = lower<tags::tag>)]
        #[keyset(asc)]
        tag: String,
        #[keyset(asc, unique)]
        id: i64,
    }

    #[test]
    fn text_of_an_expression_key_is_refused_without_a_question() {
        let rows = [
            Lowered {
                tag: "a".into(),
                id: 1,
            },
            Lowered {
                tag: "A".into(),
                id: 1,
            },
        ];
        assert!(matches!(
            check_rows(&rows, None, Direction::Forward, false),
            Err(KeysetError::CollationEqualKeys {
                column: "lower(tags::tag)",
                tie_breaker: "id"
            })
        ));
    }

    #[test]
    fn rows_in_keyset_order_pass_both_ways() {
        let rows = [
            Row(Some(3), "b", 1),
            Row(Some(3), "b", 2),
            Row(Some(1), "a", 9),
            Row(None, "a", 4),
            Row(None, "a", 5),
        ];
        assert_eq!(check(&rows, None, Direction::Forward), Ok(()));
        assert_eq!(
            check(&rows[1..], Some(rows[0].clone()), Direction::Forward),
            Ok(())
        );
        let mut back = rows.to_vec();
        back.reverse();
        assert_eq!(
            check(&back[1..], Some(back[0].clone()), Direction::Backward),
            Ok(())
        );
        assert_eq!(
            check(&[], Some(rows[0].clone()), Direction::Forward),
            Ok(())
        );
    }

    #[test]
    fn equal_keys_are_a_tie_breaker_that_is_not_unique() {
        let rows = [Row(Some(3), "b", 1), Row(Some(3), "b", 1)];
        assert_eq!(
            check(&rows, None, Direction::Forward),
            Err(KeysetError::TieBreakerNotUnique { tie_breaker: "id" })
        );
        assert_eq!(
            check(&rows, None, Direction::Backward),
            Err(KeysetError::TieBreakerNotUnique { tie_breaker: "id" })
        );
        let nulls = [Row(None, "b", 1), Row(None, "b", 1)];
        assert_eq!(
            check(&nulls, None, Direction::Forward),
            Err(KeysetError::TieBreakerNotUnique { tie_breaker: "id" })
        );
    }

    #[test]
    fn the_cursors_own_row_coming_back_is_a_round_trip_error() {
        let rows = [Row(Some(3), "b", 1), Row(Some(3), "b", 2)];
        assert_eq!(
            check(&rows, Some(Row(Some(3), "b", 1)), Direction::Forward),
            Err(KeysetError::CursorRowReturned)
        );
        assert_eq!(
            check(&rows[..1], Some(Row(Some(3), "b", 1)), Direction::Backward),
            Err(KeysetError::CursorRowReturned)
        );
    }

    #[test]
    fn rows_out_of_order_name_the_first_differing_column() {
        // score DESC: 1 then 3 is backwards.
        let rows = [Row(Some(1), "a", 1), Row(Some(3), "a", 2)];
        assert_eq!(
            check(&rows, None, Direction::Forward),
            Err(KeysetError::KeyOutOfOrder { column: "score" })
        );
        assert_eq!(check(&rows, None, Direction::Backward), Ok(()));
        // NULLS LAST: a NULL before a value is backwards forward, fine backward.
        let rows = [Row(None, "a", 1), Row(Some(3), "a", 2)];
        assert_eq!(
            check(&rows, None, Direction::Forward),
            Err(KeysetError::KeyOutOfOrder { column: "score" })
        );
        assert_eq!(check(&rows, None, Direction::Backward), Ok(()));
        // The tie-breaker going down inside equal leading values.
        let rows = [Row(Some(3), "a", 2), Row(Some(3), "a", 1)];
        assert_eq!(
            check(&rows, None, Direction::Forward),
            Err(KeysetError::KeyOutOfOrder { column: "id" })
        );
        // Against the cursor.
        assert_eq!(
            check(&rows[1..], Some(rows[0].clone()), Direction::Forward),
            Err(KeysetError::KeyOutOfOrder { column: "id" })
        );
    }

    #[test]
    fn text_a_collation_may_call_equal_is_refused_between_rows_not_against_the_cursor() {
        let err = |column| {
            Err(KeysetError::CollationEqualKeys {
                column,
                tie_breaker: "id",
            })
        };
        // `name` is not the tie-breaker: `id` still orders the two rows, both ways.
        let rows = [Row(Some(3), "a", 1), Row(Some(3), "A", 2)];
        assert_eq!(check(&rows, None, Direction::Forward), Ok(()));
        let rows = [Row(Some(3), "A", 2), Row(Some(3), "a", 1)];
        assert_eq!(check(&rows, None, Direction::Forward), Ok(()));
        // Equal ids after fold-equal names: the key may be equal under the collation.
        for (x, y) in [
            ("a", "A"),
            ("e\u{301}", "\u{e9}"),
            ("x", "x  "),
            ("\u{FB01}", "fi"),
            ("\u{1F600}", "\u{1F601}"),
            ("zero\u{200B}width", "ZEROWIDTH"),
        ] {
            let rows = [Row(Some(3), x, 1), Row(Some(3), y, 1)];
            assert_eq!(
                check(&rows, None, Direction::Forward),
                err("name"),
                "{x:?} {y:?}"
            );
            assert_eq!(
                check(&rows, None, Direction::Backward),
                err("name"),
                "{x:?} {y:?}"
            );
            // The first row against the cursor: the seek put it after, so it is not equal.
            assert_eq!(
                check(&rows[1..], Some(rows[0].clone()), Direction::Forward),
                Ok(())
            );
        }
        // Folds that differ are different under every collation the fold models.
        for (x, y) in [("a", "b"), ("a", " a"), ("ss", "\u{df}x"), ("a-b", "ab")] {
            let rows = [Row(Some(3), x, 1), Row(Some(3), y, 1)];
            assert_eq!(
                check(&rows, None, Direction::Forward),
                Ok(()),
                "{x:?} {y:?}"
            );
        }
    }

    #[test]
    fn text_order_is_the_collations_so_it_is_not_judged() {
        // "b" before "a" may be a collation's order: not an error; the tie-breaker after it is
        // not compared either (the rows differ already).
        let rows = [Row(Some(3), "b", 2), Row(Some(3), "a", 1)];
        assert_eq!(check(&rows, None, Direction::Forward), Ok(()));
    }
}
