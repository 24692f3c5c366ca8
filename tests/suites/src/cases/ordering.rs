//! Ordering and the boundary (docs/CASES.md, first section): a tie-breaker completes a
//! non-unique sort key, the boundary row is not repeated, the cursor is the last row
//! delivered, each column keeps its declared direction, the cursor carries every key column,
//! the first page and the seek follow one keyset; and keysets that share a query type keep
//! their own cached statements, and enum labels stored as text page in text order.

use keyset_diesel::Cursor;

use super::{pages, rows_with_a};
use crate::db::OracleDb;
use crate::models::{
    A_asc__ID_asc, A_desc__ID_asc, A_desc__ID_desc, B_asc__ID_asc, C_desc__ID_desc, ID_asc, Walk,
};
use crate::oracle::{test_codec, walk_pages};
use crate::property::{run_scenario, Scenario};
use crate::{at, Row, TestDb};

/// A sort key that is not unique: `grp ASC` alone cannot name a row; with the tie-breaker `id` the
/// pages are exact. (The compile-time refusal of a keyset without a unique last column is a
/// trybuild test.)
pub fn tie_breaker_completes_a_non_unique_sort_key<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[(1, 1), (2, 1), (3, 1), (4, 2)]));
    assert_eq!(
        pages::<A_asc__ID_asc, C>(&mut db, 2),
        vec![(vec![1, 2], true), (vec![3, 4], false)]
    );
}

/// A strict comparison: `created_at DESC, id DESC`, page 3: `[5,4,3]` then `[2,1]`; 3 is not
/// repeated.
pub fn boundary_row_is_not_repeated<C: TestDb>()
where
    C_desc__ID_desc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    let rows: Vec<Row> = (1..=5)
        .map(|id| Row {
            c: at(id, 0),
            ..Row::new(id)
        })
        .collect();
    db.insert_rows(&rows);
    assert_eq!(
        pages::<C_desc__ID_desc, C>(&mut db, 3),
        vec![(vec![5, 4, 3], true), (vec![2, 1], false)]
    );
}

/// The look-ahead row is never the cursor: rows 1..7, page 3 (LIMIT 4): the cursor is row 3,
/// not the look-ahead row 4; and with rows 1..6 the second page is full but has no next cursor.
pub fn cursor_is_the_last_row_delivered_not_the_look_ahead<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&(1..=7).map(Row::new).collect::<Vec<_>>());
    let walked = walk_pages::<ID_asc, C>(&mut db, &0, 3, false);
    assert_eq!(walked[0].next_cursor(), Some(Cursor::after((3,))));
    assert_eq!(
        pages::<ID_asc, C>(&mut db, 3),
        vec![
            (vec![1, 2, 3], true),
            (vec![4, 5, 6], true),
            (vec![7], false)
        ]
    );
    db.exec("DELETE FROM keyset_rows WHERE id = 7");
    let walked = walk_pages::<ID_asc, C>(&mut db, &0, 3, false);
    assert_eq!(walked.len(), 2);
    assert_eq!(walked[1].items.len(), 3);
    assert!(!walked[1].has_more());
    assert!(
        walked[1].next_cursor().is_none(),
        "no look-ahead row, so no cursor"
    );
}

/// The direction chooses the operator: `v DESC, id DESC`, page 2: `[4,3]` then `[2,1]` (`v < 3`,
/// not `v > 3`).
pub fn descending_key_seeks_below_the_cursor<C: TestDb>()
where
    A_desc__ID_desc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[(1, 1), (2, 2), (3, 3), (4, 4)]));
    assert_eq!(
        pages::<A_desc__ID_desc, C>(&mut db, 2),
        vec![(vec![4, 3], true), (vec![2, 1], false)]
    );
}

/// Mixed directions: `score DESC, id ASC`: `[5,2]`, `[3,4]`, `[1,6]`. We never append a
/// tie-breaker: the model declares it with its own direction. So `score ASC, id ASC` and
/// `score DESC, id DESC` walk in exactly reversed order, and `score DESC, id ASC` is its own,
/// declared order.
pub fn mixed_directions_keep_each_declared_direction<C: TestDb>()
where
    A_desc__ID_asc: Walk<C, Filter = i32>,
    A_asc__ID_asc: Walk<C, Filter = i32>,
    A_desc__ID_desc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[
        (1, 10),
        (2, 20),
        (3, 20),
        (4, 20),
        (5, 30),
        (6, 10),
    ]));
    assert_eq!(
        pages::<A_desc__ID_asc, C>(&mut db, 2),
        vec![(vec![5, 2], true), (vec![3, 4], true), (vec![1, 6], false)]
    );
    let flat =
        |p: Vec<(Vec<i64>, bool)>| p.into_iter().flat_map(|(ids, _)| ids).collect::<Vec<_>>();
    let asc = flat(pages::<A_asc__ID_asc, C>(&mut db, 2));
    let desc = flat(pages::<A_desc__ID_desc, C>(&mut db, 2));
    assert_eq!(asc, vec![1, 6, 2, 3, 4, 5]);
    assert_eq!(desc, vec![5, 4, 3, 2, 6, 1]);
    assert_eq!(asc.iter().rev().copied().collect::<Vec<_>>(), desc);
}

/// Pages in the backend's default form load with a static query id: Diesel's statement cache
/// finds them by the page's types (query, keyset, first or later page, direction), not by
/// their SQL text. `a ASC, id ASC`, `a DESC, id ASC` and `a DESC, id DESC` select the same
/// columns with the same filter (one Diesel query type): on one connection, in turn and twice
/// over, each keyset's forward walk, backward walk and random steps give exactly its own
/// `ORDER BY`'s rows, so no keyset and no shape runs a statement cached for another.
pub fn keysets_sharing_a_query_type_keep_their_own_statements<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
    A_desc__ID_asc: Walk<C, Filter = i32>,
    A_desc__ID_desc: Walk<C, Filter = i32>,
{
    keysets_sharing_a_query_type_on::<C>(&mut C::open());
}

/// [`keysets_sharing_a_query_type_keep_their_own_statements`] on `db`: a blocking connection,
/// or a diesel-async pair, whose own connection's statement cache is the one checked.
pub fn keysets_sharing_a_query_type_on<D: OracleDb>(db: &mut D)
where
    A_asc__ID_asc: Walk<D, Filter = i32>,
    A_desc__ID_asc: Walk<D, Filter = i32>,
    A_desc__ID_desc: Walk<D, Filter = i32>,
{
    let rows: Vec<(i64, i32)> = (1..=23)
        .map(|id| (id, i32::try_from(id % 4).unwrap()))
        .collect();
    db.db().insert_rows(&rows_with_a(&rows));
    let scenario = Scenario {
        tenant: 0,
        page_size: 3,
        boxed: false,
        exact: false,
        deferred: None,
        per_level: false,
        expanded: false,
        total: false,
        steps: vec![true, true, false, true, false, false, true, true],
    };
    for round in 1..=2 {
        let runs = [
            (
                "a ASC, id ASC",
                run_scenario::<A_asc__ID_asc, D>(db, &scenario),
            ),
            (
                "a DESC, id ASC",
                run_scenario::<A_desc__ID_asc, D>(db, &scenario),
            ),
            (
                "a DESC, id DESC",
                run_scenario::<A_desc__ID_desc, D>(db, &scenario),
            ),
        ];
        for (keyset, run) in runs {
            run.unwrap_or_else(|e| panic!("round {round}, {keyset}: {e}"));
        }
    }
}

/// Enum keys stored as text: the stage labels (SQLite's only form of an enum; a
/// `VARCHAR`/`TEXT` column elsewhere): `ORDER BY` and the seek compare the same text, so pages
/// follow text order, CUSTOMER, MEETING, NEW, PROPOSAL, SCREENING: `[5, 3]`, `[1, 4]`, `[2]`, none
/// lost or repeated. (A native enum key is not a supported key type: the derive refuses it, see
/// `fail_unsupported_key_type`; README, "Limits", for MySQL `ENUM`.)
pub fn enum_labels_stored_as_text_page_in_text_order<C: TestDb>()
where
    B_asc__ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    let stages = ["NEW", "SCREENING", "MEETING", "PROPOSAL", "CUSTOMER"];
    let rows: Vec<Row> = stages
        .iter()
        .zip(1..)
        .map(|(st, id)| Row {
            b: (*st).to_string(),
            ..Row::new(id)
        })
        .collect();
    db.insert_rows(&rows);
    assert_eq!(
        pages::<B_asc__ID_asc, C>(&mut db, 2),
        vec![(vec![5, 3], true), (vec![1, 4], true), (vec![2], false)]
    );
}

/// The predicate and the `ORDER BY` agree: `rank ASC, id ASC` drives the first page's ORDER BY, the
/// predicate and the cursor: `[5,2]`, `[3,1]`, `[4]`.
pub fn first_page_and_seek_follow_the_same_keyset<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[(1, 3), (2, 1), (3, 2), (4, 4), (5, 0)]));
    let walked = walk_pages::<A_asc__ID_asc, C>(&mut db, &0, 2, false);
    assert_eq!(
        walked[0].next_cursor().as_ref().map(|c| c.key),
        Some((1, 2))
    );
    assert_eq!(
        pages::<A_asc__ID_asc, C>(&mut db, 2),
        vec![(vec![5, 2], true), (vec![3, 1], true), (vec![4], false)]
    );
}

/// The cursor carries every key column: `received_at ASC, id ASC` gives `[2,4]`,
/// `[1,6]`, `[3,5]`; a NULL component survives a token; a component missing from a token is an
/// error, never a weaker predicate.
pub fn cursor_carries_every_key_column<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
    crate::models::NA_asc_nulls_last__ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::NA_asc_nulls_last__ID_asc;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[
        (1, 30),
        (2, 10),
        (3, 50),
        (4, 20),
        (5, 60),
        (6, 40),
    ]));
    assert_eq!(
        pages::<A_asc__ID_asc, C>(&mut db, 2),
        vec![(vec![2, 4], true), (vec![1, 6], true), (vec![3, 5], false)]
    );
    let codec = test_codec(Arc::new(AtomicU64::new(1_800_000_000)));
    let null_cursor = Cursor::<NA_asc_nulls_last__ID_asc>::after((None, 7));
    let token = codec.encode(&null_cursor, &()).unwrap();
    assert_eq!(
        codec.decode::<NA_asc_nulls_last__ID_asc>(&token, &()),
        Ok(null_cursor)
    );
    let one_column = codec.encode(&Cursor::<ID_asc>::after((7,)), &()).unwrap();
    assert!(codec.decode::<A_asc__ID_asc>(&one_column, &()).is_err());
}
