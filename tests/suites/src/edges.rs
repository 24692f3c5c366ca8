//! The edges of a page: the Relay cursors on edge pages and the byte budget
//! (`Paginated::max_bytes`), on every backend.
//!
//! Partner: `tests/models/src/edges.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.

use crate::db::OracleDb;
use crate::models::{
    debug_len, A_asc__B_desc__ID_asc, A_asc__ID_asc, A_desc__ID_desc, ID_desc, Read, Walk,
};
use crate::oracle::oracle_sql;
use crate::{PlanRow, Row, TestDb};
use keyset_diesel::{Cursor, Direction, Keyset, Page};
pub use keyset_test_models::edges::*;
use std::collections::HashMap;

fn ids<M: crate::models::Oracle + Keyset>(page: &Page<M>) -> Vec<i64> {
    page.items.iter().map(M::id).collect()
}

fn rows_at(pairs: &[(i64, i32)]) -> Vec<Row> {
    pairs
        .iter()
        .map(|&(id, a)| Row { a, ..Row::new(id) })
        .collect()
}

/// Cursors on edge pages: `start_cursor` / `end_cursor` whenever the page has rows, the flags
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
            assert!(empty.next_cursor().is_none());
        }
        db.insert_rows(&rows_at(&[(1, 10), (2, 20), (3, 30), (4, 40)]));
        // (a) at ASC, id ASC.
        let p1 = A_asc__ID_asc::read(&mut *db, &0, None, fwd).expect("p1");
        assert_eq!(ids(&p1), [1, 2]);
        assert!(p1.has_next_page && !p1.has_previous_page);
        assert_eq!(p1.start_cursor, Some(Cursor::before((10, 1))));
        let p2 = A_asc__ID_asc::read(&mut *db, &0, p1.next_cursor(), fwd).expect("p2");
        assert_eq!(ids(&p2), [3, 4]);
        assert!(!p2.has_next_page && !p2.has_more());
        assert_eq!(p2.next_cursor(), None, "the walk is over");
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
            newer.next_cursor(),
            None,
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
                assert!(page.has_more(), "{what}: rows remain");
                if page_ids.len() < how.page_size as usize {
                    assert!(used + weight[next] > budget, "{what}: cut too early");
                }
            } else {
                assert!(
                    !page.has_more() && page.next_cursor().is_none(),
                    "{what}: the end"
                );
            }
        }
        // next_cursor stays exact: the last row delivered in walk order.
        if let Some(c) = &page.next_cursor() {
            let row = if how.backward {
                page.items.first()
            } else {
                page.items.last()
            };
            assert_eq!(c.key, row.expect("rows").key(), "{what}: next cursor");
        }
        cursor = page.next_cursor();
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

/// One request of a window: `after` / `before` as positions in the full display order (`None`:
/// open), read `first` (forward from `after`, bounded by `before`) or `last` (backward from
/// `before`, bounded by `after`).
#[derive(Debug, Clone, Copy)]
struct Window {
    after: Option<usize>,
    before: Option<usize>,
}

/// Walks window `w` of `M` to its end through the pages' own cursors with `how` (forward:
/// `paginate_after(after).until(before)`; backward: `paginate_before(before).until(after)`),
/// checking each page's flags against the window, and returns the ids in display order.
fn walk_window<M, C>(db: &mut C, all: &[M], w: Window, how: Read) -> Vec<i64>
where
    M: Walk<C, Filter = i32> + crate::models::Oracle + Keyset,
    C: TestDb,
{
    let key = |i: Option<usize>| i.map(|i| all[i].key());
    let (mut cursor, until) = if how.backward {
        (
            key(w.before).map(Cursor::before),
            key(w.after).map(Cursor::after),
        )
    } else {
        (
            key(w.after).map(Cursor::after),
            key(w.before).map(Cursor::before),
        )
    };
    let mut pages: Vec<Vec<i64>> = Vec::new();
    loop {
        let page = M::read_window(db, &0, cursor.take(), until.clone(), how)
            .unwrap_or_else(|e| panic!("{w:?} {how:?}: {e}"));
        assert!(page.items.len() <= how.page_size as usize, "{w:?} {how:?}");
        assert_eq!(
            page.has_more(),
            page.next_cursor().is_some(),
            "{w:?} {how:?}"
        );
        pages.push(ids(&page));
        if page.items.is_empty() || pages.len() > all.len() + 1 {
            assert!(
                !page.has_more(),
                "{w:?} {how:?}: an empty page with more rows"
            );
            break;
        }
        match page.next_cursor() {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    if how.backward {
        pages.reverse();
    }
    pages.concat()
}

/// The rows strictly between positions `after` and `before` of the database's own order.
fn oracle_window(order: &[i64], w: Window) -> Vec<i64> {
    let from = w.after.map_or(0, |a| a + 1);
    let to = w.before.unwrap_or(order.len());
    order.get(from..to).map(<[i64]>::to_vec).unwrap_or_default()
}

/// Windows bounded on both sides (`after` and `before` together, Relay's
/// `first` / `last`), and the seek predicate of a bound written whole: a nullable leading
/// column's NULL group beyond the bound is inside the window, never lost.
pub fn windows_bounded_on_both_sides<C: TestDb + SeekAlone>()
where
    crate::models::ID_asc: Walk<C, Filter = i32>,
    crate::models::NA_desc_nulls_last__ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::{ID_asc, NA_desc_nulls_last__ID_asc as Na};
    let mut db = C::open();
    db.insert_rows(&(0..=12).map(Row::new).collect::<Vec<_>>());
    // The case table: ids 0..12, keyset `id ASC`; position i holds id i.
    let all = ID_asc::read(&mut *db, &0, None, Read::forward(100)).expect("all rows");
    assert_eq!(ids(&all), (0..=12).collect::<Vec<_>>());
    let page = |db: &mut C, after: Option<i64>, before: Option<i64>, how: Read| {
        let key = |id: i64| (id,);
        let (cursor, until) = if how.backward {
            (
                before.map(|b| Cursor::before(key(b))),
                after.map(|a| Cursor::after(key(a))),
            )
        } else {
            (
                after.map(|a| Cursor::after(key(a))),
                before.map(|b| Cursor::before(key(b))),
            )
        };
        ID_asc::read_window(db, &0, cursor, until, how).expect("window page")
    };
    let (first, last) = (Read::forward, Read::backward);
    let p = page(&mut db, Some(3), Some(8), first(100));
    assert_eq!((ids(&p), p.has_next_page), (vec![4, 5, 6, 7], false));
    let p = page(&mut db, Some(3), Some(8), first(2));
    assert_eq!((ids(&p), p.has_next_page), (vec![4, 5], true));
    let p = page(&mut db, Some(3), Some(8), last(2));
    assert_eq!((ids(&p), p.has_previous_page), (vec![6, 7], true));
    let p = page(&mut db, None, Some(6), first(4));
    assert_eq!((ids(&p), p.has_next_page), (vec![0, 1, 2, 3], true));
    let p = page(&mut db, Some(6), None, last(4));
    assert_eq!((ids(&p), p.has_previous_page), (vec![9, 10, 11, 12], true));
    for how in [first(3), last(3)] {
        let crossed = page(&mut db, Some(8), Some(3), how);
        assert!(crossed.items.is_empty() && crossed.next_cursor().is_none());
        let met = page(&mut db, Some(5), Some(5), how);
        assert!(met.items.is_empty() && met.next_cursor().is_none());
    }
    let p = page(&mut db, Some(2), Some(10), first(7));
    assert_eq!((ids(&p), p.has_next_page), ((3..=9).collect(), false));
    assert_eq!(p.next_cursor(), None, "the window is over");
    // The total count ignores the window, also on a first page whose window holds no row
    // (before the fix: 0, the count carried by rows there are none of).
    let counted = |how: Read| Read { total: true, ..how };
    for (after, before, how) in [
        (None, Some(0), counted(first(3))),
        (Some(12), None, counted(last(3))),
        (None, Some(4), counted(first(3))),
        (Some(8), None, counted(last(3))),
        (Some(5), Some(5), counted(first(3))),
    ] {
        let p = page(&mut db, after, before, how);
        assert_eq!(p.total_count, Some(13), "{after:?}..{before:?} {how:?}");
    }

    // Composite, nullable: `na DESC NULLS LAST, id ASC`, display order 1,2,3,5,4,6.
    db.exec("DELETE FROM keyset_rows");
    let na = |id: i64, na: Option<i32>| Row { na, ..Row::new(id) };
    db.insert_rows(&[
        na(1, Some(30)),
        na(2, Some(20)),
        na(3, Some(20)),
        na(4, None),
        na(5, Some(10)),
        na(6, None),
    ]);
    let order = db.ids(&oracle_sql::<Na, C>("0"));
    assert_eq!(order, [1, 2, 3, 5, 4, 6], "the database's own order");
    let all = Na::read(&mut *db, &0, None, Read::forward(100))
        .expect("all rows")
        .items;
    assert_eq!(all.iter().map(|r| r.id).collect::<Vec<_>>(), order);
    let at = |id: i64| order.iter().position(|&i| i == id);
    let (after, before) = (at(2), at(4));
    let (after_key, before_key) = (all[at(2).unwrap()].key(), all[at(4).unwrap()].key());
    assert_eq!((after_key, before_key), ((Some(20), 2), (None, 4)));
    let w = |after, before| Window { after, before };
    let one = |db: &mut C, how: Read| {
        let (cursor, until) = if how.backward {
            (
                Some(Cursor::before(before_key)),
                Some(Cursor::after(after_key)),
            )
        } else {
            (
                Some(Cursor::after(after_key)),
                Some(Cursor::before(before_key)),
            )
        };
        Na::read_window(db, &0, cursor, until, how).expect("window page")
    };
    assert_eq!(
        walk_window(&mut *db, &all, w(after, before), first(100)),
        [3, 5]
    );
    let p = one(&mut db, first(1));
    assert_eq!((ids(&p), p.has_next_page), (vec![3], true));
    let p = one(&mut db, last(1));
    assert_eq!((ids(&p), p.has_previous_page), (vec![5], true));
    // One bound alone is the public seek predicate of the reversed walk, written whole:
    // before (NULL,4) is 1,2,3,5; after (20,2) is 3,5,4,6, its NULL rows included.
    assert_eq!(
        walk_window(&mut *db, &all, w(None, before), first(100)),
        [1, 2, 3, 5]
    );
    assert_eq!(
        walk_window(&mut *db, &all, w(after, None), last(100)),
        [3, 5, 4, 6]
    );
    // The same predicate as a filter of your own query (`.filter(SeekPredicate::new(..))`).
    assert_eq!(
        db.seek_alone((Some(20), 2), Direction::Forward),
        [3, 5, 4, 6]
    );
    assert_eq!(db.seek_alone((None, 4), Direction::Backward), [5, 3, 2, 1]);
    // Every window of the six rows (either bound open, crossed and equal bounds included),
    // both ways, page sizes 1 to 3, with each shape of page query: the walk equals the rows
    // of the database's order strictly between the bounds.
    let bounds: Vec<Option<usize>> = std::iter::once(None)
        .chain((0..order.len()).map(Some))
        .collect();
    let shapes = [
        Read::forward(1),
        Read {
            exact: true,
            total: true,
            ..Read::forward(1)
        },
        Read {
            boxed: true,
            deferred: Some(true),
            ..Read::forward(1)
        },
        Read {
            per_level: true,
            deferred: Some(false),
            ..Read::forward(1)
        },
        Read {
            expanded: true,
            exact: true,
            ..Read::forward(1)
        },
    ];
    let mut walks = 0;
    for &after in &bounds {
        for &before in &bounds {
            let window = w(after, before);
            let expected = oracle_window(&order, window);
            for shape in shapes {
                for backward in [false, true] {
                    for page_size in 1..=3 {
                        let how = Read {
                            page_size,
                            backward,
                            ..shape
                        };
                        let got = walk_window(&mut *db, &all, window, how);
                        assert_eq!(got, expected, "{window:?} {how:?}");
                        walks += 1;
                    }
                }
            }
        }
    }
    assert_eq!(walks, 7 * 7 * shapes.len() * 2 * 3);
}

/// `max_bytes_in_sql`: walks under budgets from "less than any row" to "more than any page",
/// at several page sizes, both ways, equal the plain `ORDER BY` (heavy ties, mixed
/// directions, rows of 0 to 9,998 bytes as measured); each page loads exactly the rows
/// it delivers (the rows past the budget are never fetched), holds at most the budget (or one
/// row bigger than it), is cut no earlier than the budget says, and keeps `has_more` and
/// `next_cursor` exact; with exact flags and the total count (read key-only after a cursor),
/// both exact and still no row loaded past the page. The budget measured in Rust loads rows it then drops, on the same data:
/// the counter this test reads sees the difference. A `SELECT DISTINCT` query is refused.
pub fn sql_byte_budget_fetches_only_the_rows_that_fit<C: TestDb + MeasuredRead>() {
    sql_byte_budget_fetches_only_the_rows_that_fit_on(C::open());
}

/// [`sql_byte_budget_fetches_only_the_rows_that_fit`] on `db`: a blocking connection, or a
/// pair whose pages load through diesel-async.
pub fn sql_byte_budget_fetches_only_the_rows_that_fit_on<D: OracleDb + MeasuredRead>(mut db: D) {
    let rows: Vec<PlanRow> = (1..=40)
        .map(|id| PlanRow {
            id,
            tenant: 0,
            at: crate::at(id, 0),
            score: (id % 3) as i32,
            maybe: None,
            payload: "x".repeat(if id % 7 == 0 {
                4_999
            } else {
                (id as usize * 37) % 300
            }),
        })
        .collect();
    db.db().insert_plan_rows(&rows);
    // The budget counts `payload` twice (`max_bytes_in_sql(.., payload).budget_column(payload)`).
    let weight: HashMap<i64, usize> = rows.iter().map(|r| (r.id, 2 * r.payload.len())).collect();
    let forward = db
        .db()
        .ids("SELECT id FROM plan_rows WHERE tenant = 0 ORDER BY score ASC, id DESC");
    assert_eq!(forward.len(), 40);
    let mut dropped_in_rust = 0;
    for budget in [0, 250, 900, 6_000, 1_000_000] {
        for page_size in [1, 4, 9] {
            for backward in [false, true] {
                let walk: Vec<i64> = if backward {
                    forward.iter().rev().copied().collect()
                } else {
                    forward.clone()
                };
                // Exact flags and the total count on every other walk: after a cursor they are
                // read key-only, never as whole rows.
                let exact_total = page_size == 4;
                let mut cursor = None;
                let mut walked = Vec::new();
                loop {
                    take_loaded();
                    let page = db
                        .measured_page(
                            cursor.take(),
                            backward,
                            page_size,
                            Budget::InSql(budget),
                            false,
                            exact_total,
                        )
                        .expect("page");
                    let (loaded_rows, loaded_bytes) = take_loaded();
                    let mut ids: Vec<i64> = page.items.iter().map(|m| m.id).collect();
                    let what = format!(
                        "budget {budget}, page size {page_size}, backward {backward}, page {ids:?}"
                    );
                    assert_eq!(page.page_size, page_size, "{what}: the page size asked");
                    if exact_total {
                        assert_eq!(page.total_count, Some(40), "{what}: the total count");
                        let behind = if backward {
                            page.has_next_page
                        } else {
                            page.has_previous_page
                        };
                        assert_eq!(behind, !walked.is_empty(), "{what}: the exact flag behind");
                    }
                    assert_eq!(
                        loaded_rows,
                        ids.len(),
                        "{what}: loaded only the rows delivered"
                    );
                    let delivered_b: usize = page.items.iter().map(|m| m.payload.len()).sum();
                    assert_eq!(loaded_bytes, delivered_b, "{what}");
                    assert!(!ids.is_empty() && ids.len() <= page_size as usize, "{what}");
                    let used: usize = ids.iter().map(|id| weight[id]).sum();
                    assert!(ids.len() == 1 || used <= budget, "{what}: {used} bytes");
                    if backward {
                        ids.reverse();
                    }
                    let at = walked.len() + ids.len();
                    assert_eq!(&walk[walked.len()..at], &ids[..], "{what}: the next rows");
                    match walk.get(at) {
                        Some(next) => {
                            assert!(page.has_more(), "{what}: rows remain");
                            if ids.len() < page_size as usize {
                                assert!(used + weight[next] > budget, "{what}: cut too early");
                            }
                            let last = page.next_cursor().expect("a next cursor").key;
                            assert_eq!(
                                last.1,
                                ids[ids.len() - 1],
                                "{what}: the last row delivered"
                            );
                        }
                        None => assert!(!page.has_more() && page.next_cursor().is_none(), "{what}"),
                    }
                    walked.extend(ids);
                    cursor = page.next_cursor();
                    if cursor.is_none() {
                        break;
                    }
                }
                assert_eq!(
                    walked, walk,
                    "budget {budget}, page size {page_size}: the ORDER BY"
                );
                // The same first page measured in Rust: it loads `page_size + 1` rows.
                take_loaded();
                let page = db
                    .measured_page(
                        None,
                        backward,
                        page_size,
                        Budget::InRust(budget),
                        false,
                        false,
                    )
                    .expect("page");
                let (loaded_rows, _) = take_loaded();
                dropped_in_rust += loaded_rows - page.items.len();
            }
        }
    }
    assert!(dropped_in_rust > 0, "the Rust budget loads rows it drops");
    let error = db
        .measured_page(None, false, 4, Budget::InSql(100), true, false)
        .expect_err("DISTINCT is refused");
    assert_eq!(
        keyset_diesel::KeysetError::from_diesel(&error),
        Some(&keyset_diesel::KeysetError::DistinctByteBudget)
    );
}
