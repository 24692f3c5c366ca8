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
use crate::keyset::{column_name, Keyset, NullsOrder, SortDirection};

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
    /// ignore; `index` is the first such text column.
    MayCollateEqual(usize),
}

fn step<K: Keyset>(a: &K::Key, b: &K::Key, walk: Direction) -> Step {
    // The first text column whose values differ only by what a collation may ignore: from
    // there on the database may call the keys equal or not, so only equality is judged.
    let mut collated: Option<usize> = None;
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
    collated.map_or(Step::Equal, Step::MayCollateEqual)
}

/// Checks the fetched rows (in walk order, look-ahead row included) against each other and
/// the first against the request's cursor.
///
/// # Errors
/// [`KeysetError::TieBreakerNotUnique`] for two rows with equal keys,
/// [`KeysetError::CollationEqualKeys`] for two adjacent rows whose keys differ only in text
/// a collation may call equal,
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
) -> Result<(), KeysetError> {
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
                Step::MayCollateEqual(_) if first => {}
                Step::MayCollateEqual(index) => {
                    return Err(KeysetError::CollationEqualKeys {
                        column: column_name::<K>(index),
                        tie_breaker,
                    })
                }
                Step::Backwards(index) => return Err(out_of_order(index)),
            }
        }
        previous = Some(key);
        first = false;
    }
    Ok(())
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

    fn check(rows: &[Row], cursor: Option<Row>, walk: Direction) -> Result<(), KeysetError> {
        check_rows(rows, cursor.map(|c| c.key()).as_ref(), walk, false)
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
