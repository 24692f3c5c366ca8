//! Rows into pages, without a database: the look-ahead row, the Relay flags and cursors, the
//! byte budget, the union's probe and count rows.

use std::sync::Arc;

use super::*;
use crate::paginate::ByteBudget;
use crate::query::RowKind;

diesel::table! { rows (id) { id -> BigInt } }

#[derive(Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_derive::Keyset)]
#[diesel(table_name = rows)]
struct Row {
    #[keyset(asc, unique)]
    id: i64,
}

#[allow(non_snake_case)]
fn Row(id: i64) -> Row {
    Row { id }
}

/// A page of `page_size` read in `walk`'s direction, after `cursor` (if any).
fn assembly(page_size: u32, walk: Direction, cursor: Option<i64>) -> Assembly<Row> {
    Assembly {
        walk,
        page_size,
        cursor: cursor.map(|id| (id,)),
        probed: false,
        budget: None,
        total: false,
        measured: None,
        flags_only: false,
        inclusive: false,
    }
}

fn page_from_rows(rows: Vec<Row>, page_size: u32) -> Page<Row> {
    assemble(
        rows,
        None,
        None,
        assembly(page_size, Direction::Forward, None),
    )
    .expect("rows in keyset order")
}

#[test]
fn look_ahead_row_is_dropped_and_cursor_is_last_delivered() {
    // The look-ahead row is never delivered: LIMIT 4 read 4 rows for page size 3.
    let page = page_from_rows((1..=4).map(Row).collect(), 3);
    assert_eq!(page.items, vec![Row(1), Row(2), Row(3)]);
    assert!(page.has_more());
    assert_eq!(page.next_cursor().unwrap().key, (3,));
    // Exactly page_size rows: no look-ahead, so no next cursor; the end cursor (the resume
    // position of a live list) is still there.
    let page = page_from_rows((4..=6).map(Row).collect(), 3);
    assert_eq!(page.items.len(), 3);
    assert!(!page.has_more() && !page.has_next_page);
    assert!(page.next_cursor().is_none());
    assert_eq!(page.end_cursor, Some(Cursor::after((6,))));
    assert_eq!(page.start_cursor, Some(Cursor::before((4,))));
    // Empty: no cursors at all.
    let page = page_from_rows(Vec::<Row>::new(), 3);
    assert!(page.is_empty() && !page.has_more() && page.next_cursor().is_none());
    assert!(page.start_cursor.is_none() && page.end_cursor.is_none());
}

/// Read backward to the start, the page still has its start cursor ("load newer" on
/// a newest-first list); the walk's own cursor is absent.
#[test]
fn backward_page_at_the_start_keeps_its_start_cursor() {
    // Walk order (backward from 3): 2, 1; no look-ahead row.
    let page = assemble(
        vec![Row(2), Row(1)],
        None,
        None,
        assembly(2, Direction::Backward, Some(3)),
    )
    .unwrap();
    assert_eq!(page.items, [Row(1), Row(2)]);
    assert!(!page.has_previous_page && page.has_next_page && !page.has_more());
    assert_eq!(page.next_cursor(), None);
    assert_eq!(page.start_cursor, Some(Cursor::before((1,))));
    assert_eq!(page.end_cursor, Some(Cursor::after((2,))));
}

/// A forward page of size 4 under a budget of `max` bytes (Row(n) weighs n bytes).
fn budgeted(max: usize, walk: Direction) -> Assembly<Row> {
    Assembly {
        budget: Some(ByteBudget {
            max,
            measure: Arc::new(|r: &Row| usize::try_from(r.id).unwrap()),
        }),
        ..assembly(4, walk, None)
    }
}

#[test]
fn the_byte_budget_stops_before_the_row_that_crosses_it() {
    // 1 + 2 + 3 = 6 fits, + 4 crosses 6.
    let page = assemble(
        (1..=5).map(Row).collect(),
        None,
        None,
        budgeted(6, Direction::Forward),
    )
    .unwrap();
    assert_eq!(page.items, [Row(1), Row(2), Row(3)]);
    assert!(page.has_more());
    assert_eq!(page.next_cursor(), Some(Cursor::after((3,))));
    // The budget never adds rows beyond the page size; the look-ahead still decides.
    let page = assemble(
        (1..=4).map(Row).collect(),
        None,
        None,
        budgeted(100, Direction::Forward),
    )
    .unwrap();
    assert_eq!(page.items.len(), 4);
    assert!(!page.has_more() && page.next_cursor().is_none());
    // The last rows fit exactly and no look-ahead row: the end.
    let page = assemble(
        vec![Row(1), Row(2)],
        None,
        None,
        budgeted(3, Direction::Forward),
    )
    .unwrap();
    assert_eq!(page.items.len(), 2);
    assert!(!page.has_more());
}

#[test]
fn a_row_bigger_than_the_budget_is_delivered_alone() {
    let page = assemble(
        vec![Row(50), Row(51)],
        None,
        None,
        budgeted(10, Direction::Forward),
    )
    .unwrap();
    assert_eq!(page.items, [Row(50)]);
    assert!(page.has_more());
    assert_eq!(page.next_cursor(), Some(Cursor::after((50,))));
    // The only row left, too big: delivered, and the walk ends.
    let page = assemble(vec![Row(50)], None, None, budgeted(10, Direction::Forward)).unwrap();
    assert_eq!(page.items, [Row(50)]);
    assert!(!page.has_more() && page.next_cursor().is_none());
    // A budget of 0: one row per page.
    let page = assemble(
        vec![Row(1), Row(2)],
        None,
        None,
        budgeted(0, Direction::Forward),
    )
    .unwrap();
    assert_eq!(page.items, [Row(1)]);
    assert!(page.has_more());
}

#[test]
fn read_backward_the_budget_keeps_the_rows_nearest_the_cursor() {
    // Walk order 5, 4, 3, 2, 1 (before the cursor 6): 5 fits in 9, + 4 = 9, + 3 crosses.
    let page = assemble(
        (1..=5).rev().map(Row).collect(),
        None,
        None,
        Assembly {
            cursor: Some((6,)),
            ..budgeted(9, Direction::Backward)
        },
    )
    .unwrap();
    assert_eq!(page.items, [Row(4), Row(5)]);
    assert!(page.has_more() && page.has_previous_page);
    assert_eq!(page.next_cursor(), Some(Cursor::before((4,))));
}

#[test]
fn a_union_splits_into_page_rows_the_probe_and_the_count() {
    let (page, probe, count) = (
        RowKind::Page as i32,
        RowKind::Probe as i32,
        RowKind::Count as i32,
    );
    let loaded = vec![
        (Row(1), page, 0),
        (Row(9), probe, 0),
        (Row(2), page, 0),
        (Row(0), count, 7),
    ];
    assert_eq!(
        split_union(loaded.into_iter()),
        (vec![Row(1), Row(2)], true, 7)
    );
    let pages_only = vec![(Row(1), page, 0), (Row(2), page, 0)];
    assert_eq!(
        split_union(pages_only.into_iter()),
        (vec![Row(1), Row(2)], false, 0)
    );
    // The value written is the value read back.
    for kind in [RowKind::Page, RowKind::Probe, RowKind::Count] {
        assert_eq!(RowKind::of(kind as i32), Some(kind));
    }
    assert_eq!(RowKind::of(3), None);
}

#[test]
fn the_probe_sets_the_other_flag_exactly() {
    // Forward after 0 with a probe that found nothing: no previous page.
    let probed = Assembly {
        probed: true,
        ..assembly(2, Direction::Forward, Some(0))
    };
    let page = assemble(vec![Row(1)], Some(false), None, probed).unwrap();
    assert!(!page.has_previous_page);
    // Without a probe, a cursor means a previous page (its row was delivered before).
    let page = assemble(
        vec![Row(1)],
        None,
        None,
        assembly(2, Direction::Forward, Some(0)),
    )
    .unwrap();
    assert!(page.has_previous_page);
}

/// `flags_only`: the one row read says that a row follows in the walk's direction; no item,
/// no cursor, page size 0; the other flag as on any page.
#[test]
fn a_page_of_flags_only_delivers_no_row() {
    for walk in [Direction::Forward, Direction::Backward] {
        // Rows in walk order after the cursor: 4 forward, 7 backward.
        let (cursor, next) = match walk {
            Direction::Forward => (4, 6),
            Direction::Backward => (7, 4),
        };
        for (rows, follows) in [
            (vec![Row(5)], true),
            (vec![Row(5), Row(next)], true),
            (vec![], false),
        ] {
            let flags = Assembly {
                flags_only: true,
                ..assembly(1, walk, Some(cursor))
            };
            let page = assemble(rows, None, None, flags).expect("a page");
            assert!(page.items.is_empty());
            assert_eq!(page.has_more(), follows, "{walk:?}");
            // The other side: "there was a cursor".
            let other = match walk {
                Direction::Forward => page.has_previous_page,
                Direction::Backward => page.has_next_page,
            };
            assert!(other);
            assert_eq!(
                (page.start_cursor, page.end_cursor, page.page_size),
                (None, None, 0)
            );
        }
    }
}
