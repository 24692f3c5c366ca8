//! Backward pages and flags: the page before a cursor is the adjacent window in display
//! order, flags and cursors are exact at the edges, and exact flags probe the other side in
//! the page's own statement.

use keyset_diesel::Cursor;

use super::{page_ids, read, rows_with_a};
use crate::models::{A_desc__ID_asc, A_desc__ID_desc, ID_asc, Walk};
use crate::{Row, TestDb};

/// The page before a cursor (`id ASC` and `id DESC`), and the `prev` steps of the descending
/// and mixed-direction orders: the page before a cursor is the adjacent window, in display order.
pub fn backward_page_is_the_adjacent_window_in_display_order<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
    crate::models::ID_desc: Walk<C, Filter = i32>,
    A_desc__ID_desc: Walk<C, Filter = i32>,
    A_desc__ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::{ID_desc, Read};
    let mut db = C::open();
    db.insert_rows(&(1..=6).map(Row::new).collect::<Vec<_>>());
    for boxed in [false, true] {
        let fwd = Read {
            boxed,
            ..Read::forward(2)
        };
        let back = Read {
            boxed,
            ..Read::backward(2)
        };
        let p1 = read::<ID_asc, C>(&mut db, None, fwd);
        let p2 = read::<ID_asc, C>(&mut db, p1.end_cursor.clone(), fwd);
        let p3 = read::<ID_asc, C>(&mut db, p2.end_cursor.clone(), fwd);
        assert_eq!(
            [page_ids(&p1), page_ids(&p2), page_ids(&p3)],
            [[1, 2], [3, 4], [5, 6]]
        );
        // `[3,4]` in display order, both flags true.
        let prev3 = read::<ID_asc, C>(&mut db, p3.start_cursor.clone(), back);
        assert_eq!(page_ids(&prev3), [3, 4]);
        assert!(prev3.has_previous_page && prev3.has_next_page);
        // The adjacent window, then the first page with has_prev false.
        let prev2 = read::<ID_asc, C>(&mut db, prev3.start_cursor.clone(), back);
        assert_eq!(page_ids(&prev2), [1, 2]);
        assert!(!prev2.has_previous_page && prev2.next_cursor().is_none());
        // The same, `id DESC`.
        let d1 = read::<ID_desc, C>(&mut db, None, fwd);
        let d2 = read::<ID_desc, C>(&mut db, d1.end_cursor.clone(), fwd);
        let d3 = read::<ID_desc, C>(&mut db, d2.end_cursor.clone(), fwd);
        assert_eq!(
            [page_ids(&d1), page_ids(&d2), page_ids(&d3)],
            [[6, 5], [4, 3], [2, 1]]
        );
        let dprev = read::<ID_desc, C>(&mut db, d3.start_cursor.clone(), back);
        assert_eq!(page_ids(&dprev), [4, 3]);
    }
    // Descending: v DESC, id DESC: prev(p2) is `[4,3]`.
    db.exec("DELETE FROM keyset_rows");
    db.insert_rows(&rows_with_a(&[(1, 1), (2, 2), (3, 3), (4, 4)]));
    let p1 = read::<A_desc__ID_desc, C>(&mut db, None, Read::forward(2));
    let p2 = read::<A_desc__ID_desc, C>(&mut db, p1.end_cursor, Read::forward(2));
    assert_eq!(page_ids(&p2), [2, 1]);
    let back = read::<A_desc__ID_desc, C>(&mut db, p2.start_cursor, Read::backward(2));
    assert_eq!(page_ids(&back), [4, 3]);
    // Mixed directions: score DESC, id ASC: prev(p3) is `[3,4]`, prev(p2) is `[5,2]`.
    db.exec("DELETE FROM keyset_rows");
    db.insert_rows(&rows_with_a(&[
        (1, 10),
        (2, 20),
        (3, 20),
        (4, 20),
        (5, 30),
        (6, 10),
    ]));
    let p1 = read::<A_desc__ID_asc, C>(&mut db, None, Read::forward(2));
    let p2 = read::<A_desc__ID_asc, C>(&mut db, p1.end_cursor, Read::forward(2));
    let p3 = read::<A_desc__ID_asc, C>(&mut db, p2.end_cursor.clone(), Read::forward(2));
    assert_eq!(page_ids(&p3), [1, 6]);
    let b3 = read::<A_desc__ID_asc, C>(&mut db, p3.start_cursor, Read::backward(2));
    assert_eq!(page_ids(&b3), [3, 4]);
    let b2 = read::<A_desc__ID_asc, C>(&mut db, p2.start_cursor, Read::backward(2));
    assert_eq!(page_ids(&b2), [5, 2]);
}

/// Flags at the edges: exact flags at the edges, and tables of 0 and 1 rows.
pub fn flags_and_cursors_are_exact_at_the_edges<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::Read;
    let mut db = C::open();
    for exact in [false, true] {
        let fwd = Read {
            exact,
            ..Read::forward(2)
        };
        let back = Read {
            exact,
            ..Read::backward(2)
        };
        db.exec("DELETE FROM keyset_rows");
        // 0 rows: both flags false, no cursors, both ways.
        for how in [fwd, back] {
            let empty = read::<ID_asc, C>(&mut db, None, how);
            assert!(empty.items.is_empty() && !empty.has_previous_page && !empty.has_next_page);
            assert!(empty.start_cursor.is_none() && empty.end_cursor.is_none());
        }
        // 1 row.
        db.insert_rows(&[Row::new(1)]);
        for how in [fwd, back] {
            let one = read::<ID_asc, C>(&mut db, None, how);
            assert_eq!(page_ids(&one), [1]);
            assert!(!one.has_previous_page && !one.has_next_page);
        }
        db.insert_rows(&(2..=4).map(Row::new).collect::<Vec<_>>());
        let p1 = read::<ID_asc, C>(&mut db, None, fwd);
        assert_eq!(page_ids(&p1), [1, 2]);
        assert!(!p1.has_previous_page && p1.has_next_page);
        // An edge page keeps its Relay cursors: the first page has its start cursor all the same
        // (its rows are there).
        assert_eq!(p1.start_cursor, Some(Cursor::before((1,))));
        let p2 = read::<ID_asc, C>(&mut db, p1.end_cursor.clone(), fwd);
        assert_eq!(page_ids(&p2), [3, 4]);
        assert!(p2.has_previous_page && !p2.has_next_page);
        assert!(p2.next_cursor().is_none(), "exactly 4 rows: no next cursor");
        assert_eq!(
            p2.end_cursor,
            Some(Cursor::after((4,))),
            "the end cursor is the resume position"
        );
        let b = read::<ID_asc, C>(&mut db, p2.start_cursor.clone(), back);
        assert_eq!(page_ids(&b), [1, 2]);
        assert!(!b.has_previous_page && b.next_cursor().is_none() && b.has_next_page);
        assert_eq!(b.start_cursor, Some(Cursor::before((1,))));
        let again = read::<ID_asc, C>(&mut db, b.end_cursor.clone(), fwd);
        assert_eq!(page_ids(&again), [3, 4]);
        // The last page, read backward without a cursor.
        let last = read::<ID_asc, C>(&mut db, None, back);
        assert_eq!(page_ids(&last), [3, 4]);
        assert!(last.has_previous_page && !last.has_next_page);
        assert_eq!(last.end_cursor, Some(Cursor::after((4,))));
    }
}

/// Exact flags (`exact_flags(true)`): the other side is probed in the same statement, so a
/// cursor whose side was deleted since says so; without it the flag trusts the cursor.
pub fn exact_flags_probe_the_other_side<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::Read;
    let mut db = C::open();
    let reset = |db: &mut C| {
        db.exec("DELETE FROM keyset_rows");
        db.insert_rows(&(1..=6).map(Row::new).collect::<Vec<_>>());
    };
    for exact in [false, true] {
        let fwd = Read {
            exact,
            ..Read::forward(2)
        };
        let back = Read {
            exact,
            ..Read::backward(2)
        };
        reset(&mut db);
        let p1 = read::<ID_asc, C>(&mut db, None, fwd);
        db.exec("DELETE FROM keyset_rows WHERE id <= 2");
        let p2 = read::<ID_asc, C>(&mut db, p1.end_cursor, fwd);
        assert_eq!(page_ids(&p2), [3, 4]);
        assert_eq!(p2.has_previous_page, !exact, "forward, other side deleted");
        reset(&mut db);
        let last = read::<ID_asc, C>(&mut db, None, back);
        db.exec("DELETE FROM keyset_rows WHERE id >= 5");
        let before = read::<ID_asc, C>(&mut db, last.start_cursor, back);
        assert_eq!(page_ids(&before), [3, 4]);
        assert_eq!(before.has_next_page, !exact, "backward, other side deleted");
        // An empty page after the cursor: the probe still answers.
        reset(&mut db);
        let p1 = read::<ID_asc, C>(&mut db, None, fwd);
        let p1_end = p1.end_cursor.clone();
        let p2 = read::<ID_asc, C>(&mut db, p1.end_cursor, fwd);
        db.exec("DELETE FROM keyset_rows WHERE id >= 5");
        let p3 = read::<ID_asc, C>(&mut db, p2.end_cursor.clone(), fwd);
        assert!(p3.items.is_empty() && !p3.has_next_page && p3.has_previous_page);
        // No rows, no cursors: the way back is from p2, whose rows 3 and 4 still exist.
        assert!(p3.start_cursor.is_none() && p3.end_cursor.is_none());
        let p2_again = read::<ID_asc, C>(&mut db, p1_end.clone(), fwd);
        assert_eq!(page_ids(&p2_again), [3, 4]);
        let before_p2 = read::<ID_asc, C>(&mut db, p2.start_cursor.clone(), back);
        assert_eq!(page_ids(&before_p2), [1, 2]);
        db.exec("DELETE FROM keyset_rows");
        let gone = read::<ID_asc, C>(&mut db, p2.start_cursor.map(|c| Cursor::after(c.key)), fwd);
        assert!(gone.items.is_empty() && !gone.has_next_page);
        assert_eq!(gone.has_previous_page, !exact, "everything deleted");
    }
}
