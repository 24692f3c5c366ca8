//! The edges of a page: the Relay cursors on edge pages (docs/CASES.md C29) and the byte budget
//! (`Paginated::max_bytes`), on every backend.

use std::collections::HashMap;

use keyset_diesel::{Cursor, Keyset, Page};

use crate::models::{
    debug_len, A_asc__B_desc__ID_asc, A_asc__ID_asc, A_desc__ID_desc, ID_desc, Read, Walk,
};
use crate::oracle::oracle_sql;
use crate::{Row, TestDb};

fn ids<M: crate::models::Oracle + Keyset>(page: &Page<M>) -> Vec<i64> {
    page.items.iter().map(M::id).collect()
}

fn rows_at(pairs: &[(i64, i32)]) -> Vec<Row> {
    pairs
        .iter()
        .map(|&(id, a)| Row { a, ..Row::new(id) })
        .collect()
}

/// docs/CASES.md C29: `start_cursor` / `end_cursor` whenever the page has rows, the flags
/// unchanged, `next_cursor` absent at the end of the walk; the end cursor of the last page
/// tails a live list, the start cursor of a newest-first first page loads newer rows.
pub fn edge_pages_keep_their_relay_cursors<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
    A_desc__ID_desc: Walk<C, Filter = i32>,
{
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
        // (c) The empty table: no rows, no cursors, both flags false.
        for how in [fwd, back] {
            let empty = A_asc__ID_asc::read(&mut *db, &0, None, how).expect("empty page");
            assert!(empty.items.is_empty() && !empty.has_next_page && !empty.has_previous_page);
            assert!(empty.start_cursor.is_none() && empty.end_cursor.is_none());
            assert!(empty.next_cursor.is_none());
        }
        db.insert_rows(&rows_at(&[(1, 10), (2, 20), (3, 30), (4, 40)]));
        // (a) at ASC, id ASC.
        let p1 = A_asc__ID_asc::read(&mut *db, &0, None, fwd).expect("p1");
        assert_eq!(ids(&p1), [1, 2]);
        assert!(p1.has_next_page && !p1.has_previous_page);
        assert_eq!(p1.start_cursor, Some(Cursor::before((10, 1))));
        let p2 = A_asc__ID_asc::read(&mut *db, &0, p1.next_cursor.clone(), fwd).expect("p2");
        assert_eq!(ids(&p2), [3, 4]);
        assert!(!p2.has_next_page && !p2.has_more);
        assert_eq!(p2.next_cursor, None, "the walk is over");
        assert_eq!(
            p2.end_cursor,
            Some(Cursor::after((40, 4))),
            "the resume position"
        );
        db.insert_rows(&rows_at(&[(5, 50), (6, 60)]));
        let tail = A_asc__ID_asc::read(&mut *db, &0, p2.end_cursor.clone(), fwd).expect("tail");
        assert_eq!(ids(&tail), [5, 6], "tailing a live list");
        assert!(!tail.has_next_page);
        db.exec("DELETE FROM keyset_rows WHERE id >= 5");
        // (b) at DESC, id DESC: newest first; "load newer" from the first page's start cursor.
        let d1 = A_desc__ID_desc::read(&mut *db, &0, None, fwd).expect("d1");
        assert_eq!(ids(&d1), [4, 3]);
        assert!(!d1.has_previous_page);
        assert_eq!(d1.start_cursor, Some(Cursor::before((40, 4))));
        db.insert_rows(&rows_at(&[(5, 50), (6, 60)]));
        let newer =
            A_desc__ID_desc::read(&mut *db, &0, d1.start_cursor.clone(), back).expect("newer");
        assert_eq!(ids(&newer), [6, 5]);
        assert!(!newer.has_previous_page && newer.has_next_page);
        assert_eq!(
            newer.next_cursor, None,
            "nothing newer than 6: the backward walk is over"
        );
        assert_eq!(newer.start_cursor, Some(Cursor::before((60, 6))));
    }
}

/// A walk of `M` under a byte budget (rows weigh their `Debug` text): every page follows the
/// budget rules, and the walk equals the plain `ORDER BY`, both ways. Returns how many pages
/// held a single row heavier than the budget.
fn budget_walks<M, C>(db: &mut C, how: Read, budget: usize) -> usize
where
    M: Walk<C, Filter = i32> + crate::models::Oracle + std::fmt::Debug,
    C: TestDb,
{
    let expected = db.ids(&oracle_sql::<M, C>("0"));
    let all = M::read(db, &0, None, Read::forward(u32::MAX)).expect("all rows");
    let weight: HashMap<i64, usize> = all.items.iter().map(|r| (r.id(), debug_len(r))).collect();
    let mut oversized_alone = 0;
    let mut pages: Vec<Vec<i64>> = Vec::new();
    let mut cursor = None;
    loop {
        let page = M::read(db, &0, cursor.take(), how).expect("page");
        let page_ids = ids(&page);
        let what = format!(
            "budget {budget}, {how:?}, page {}: {page_ids:?}",
            pages.len() + 1
        );
        assert!(
            !page_ids.is_empty() || expected.is_empty(),
            "{what}: empty page"
        );
        assert!(
            page_ids.len() <= how.page_size as usize,
            "{what}: over the page size"
        );
        let used: usize = page_ids.iter().map(|id| weight[id]).sum();
        if page_ids.len() > 1 {
            assert!(used <= budget, "{what}: {used} bytes over the budget");
        } else if used > budget {
            oversized_alone += 1;
        }
        // The page is as long as the budget allows: the next row in walk order would cross it.
        let walk_order: Vec<i64> = if how.backward {
            expected.iter().rev().copied().collect()
        } else {
            expected.clone()
        };
        let last_in_walk = if how.backward {
            page_ids.first()
        } else {
            page_ids.last()
        };
        if let Some(last) = last_in_walk {
            let at = walk_order
                .iter()
                .position(|id| id == last)
                .expect("a known row");
            if let Some(next) = walk_order.get(at + 1) {
                assert!(page.has_more, "{what}: rows remain");
                if page_ids.len() < how.page_size as usize {
                    assert!(used + weight[next] > budget, "{what}: cut too early");
                }
            } else {
                assert!(
                    !page.has_more && page.next_cursor.is_none(),
                    "{what}: the end"
                );
            }
        }
        // next_cursor stays exact: the last row delivered in walk order.
        if let Some(c) = &page.next_cursor {
            let row = if how.backward {
                page.items.first()
            } else {
                page.items.last()
            };
            assert_eq!(c.key, row.expect("rows").key(), "{what}: next cursor");
        }
        cursor = page.next_cursor.clone();
        pages.push(page_ids);
        if cursor.is_none() {
            break;
        }
        assert!(pages.len() <= expected.len() + 1, "the walk does not end");
    }
    if how.backward {
        pages.reverse();
    }
    let walked: Vec<i64> = pages.into_iter().flatten().collect();
    assert_eq!(
        walked, expected,
        "budget {budget}, {how:?}: the walk is the ORDER BY"
    );
    oversized_alone
}

/// `max_bytes`: walks under byte budgets from "less than any row" to "more than any page", at
/// several page sizes, forward and backward, boxed or not, equal the plain `ORDER BY` (heavy
/// ties in `a`, rows of very different sizes); a row heavier than the budget is delivered alone.
pub fn byte_budget_walks_equal_order_by<C: TestDb>()
where
    A_asc__B_desc__ID_asc: Walk<C, Filter = i32>,
    ID_desc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    // 45 rows: `a` in 0..3 (15-way ties), `b` 0 to 16 characters.
    let rows: Vec<Row> = (1..=45)
        .map(|id| Row {
            a: (id % 3) as i32,
            b: "x".repeat((id as usize * 7) % 17),
            ..Row::new(id)
        })
        .collect();
    db.insert_rows(&rows);
    let mut oversized = 0;
    for budget in [0, 50, 120, 300, 1_000_000] {
        for (page_size, boxed) in [(1, false), (4, true), (9, false)] {
            for backward in [false, true] {
                let how = Read {
                    boxed,
                    backward,
                    max_bytes: Some(budget),
                    ..Read::forward(page_size)
                };
                oversized += budget_walks::<A_asc__B_desc__ID_asc, C>(&mut db, how, budget);
                oversized += budget_walks::<ID_desc, C>(&mut db, how, budget);
            }
        }
    }
    assert!(
        oversized > 0,
        "some rows were heavier than the budget and delivered alone"
    );
}
