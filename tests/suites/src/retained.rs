//! Rows the application drops after the read (`Page::retain`: authorization decided in code):
//! the walk continues past the last row **read**, `has_more` keeps its meaning, and a page
//! emptied by the application still continues, on every backend.
//!
//! The models are the edges subject's (`tests/models/src/edges.rs`); this file holds only
//! tests, generic over the backend.

use std::collections::HashSet;

use keyset_diesel::Keyset;

use crate::models::{A_asc__B_desc__ID_asc, ID_desc, Oracle, Read, Walk};
use crate::oracle::oracle_sql;
use crate::{Row, TestDb};

/// Walks `M` with `how`, dropping the rows in `hidden` from every page with `Page::retain`, and
/// checks each page against what it read. Returns the rows read and the rows kept, in display
/// order, and how many pages were emptied while more rows existed.
fn walk_retaining<M, C>(db: &mut C, how: Read, hidden: &HashSet<i64>) -> (Vec<i64>, Vec<i64>, usize)
where
    M: Walk<C, Filter = i32> + Oracle + Keyset,
    C: TestDb,
{
    let (mut read, mut kept) = (Vec::new(), Vec::new());
    let mut emptied = 0;
    let mut cursor = None;
    for n in 1.. {
        let mut page = M::read(db, &0, cursor.take(), how).expect("page");
        let what = format!("{how:?}, page {n}");
        let page_read: Vec<i64> = page.items.iter().map(M::id).collect();
        let (has_more, next, start, end) = (
            page.has_more(),
            page.next_cursor(),
            page.start_cursor.clone(),
            page.end_cursor.clone(),
        );
        let dropped = page.retain(|row| !hidden.contains(&row.id()));
        let page_kept: Vec<i64> = page.items.iter().map(M::id).collect();
        let expected_kept: Vec<i64> = page_read
            .iter()
            .copied()
            .filter(|id| !hidden.contains(id))
            .collect();
        assert_eq!(page_kept, expected_kept, "{what}: the kept rows, in order");
        assert_eq!(dropped, page_read.len() - page_kept.len(), "{what}");
        assert_eq!(page.has_more(), has_more, "{what}: has_more is the read's");
        assert_eq!(page.next_cursor(), next, "{what}: past the last row read");
        assert_eq!(
            (page.start_cursor.clone(), page.end_cursor.clone()),
            (start, end),
            "{what}: the Relay cursors are the read's"
        );
        if has_more {
            assert_eq!(
                page_read.len(),
                how.page_size as usize,
                "{what}: a full read"
            );
            if page_kept.is_empty() {
                emptied += 1;
            }
        }
        if how.backward {
            read.splice(0..0, page_read);
            kept.splice(0..0, page_kept);
        } else {
            read.extend(page_read);
            kept.extend(page_kept);
        }
        match next {
            Some(next) => cursor = Some(next),
            None => break,
        }
        assert!(n <= 200, "{what}: the walk does not end");
    }
    (read, kept, emptied)
}

/// A page whose rows the application drops continues past its last row read, forward and
/// backward, page sizes 1 to 3, with 10-way ties: every row is read exactly once in `ORDER BY`
/// order, the kept rows are `ORDER BY` less the hidden ones, and pages emptied by the
/// application (a run of nine hidden rows) do not end the walk.
pub fn retained_pages_continue_past_the_last_row_read<C: TestDb>()
where
    A_asc__B_desc__ID_asc: Walk<C, Filter = i32>,
    ID_desc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    // 30 rows: `a` in 0..3 (10-way ties), `b` in 0..4 characters.
    let rows: Vec<Row> = (1..=30)
        .map(|id| Row {
            a: (id % 3) as i32,
            b: "y".repeat((id as usize * 5) % 4),
            ..Row::new(id)
        })
        .collect();
    db.insert_rows(&rows);
    check::<A_asc__B_desc__ID_asc, C>(&mut db);
    check::<ID_desc, C>(&mut db);
}

fn check<M, C>(db: &mut C)
where
    M: Walk<C, Filter = i32> + Oracle + Keyset,
    C: TestDb,
{
    let expected = db.ids(&oracle_sql::<M, C>("0"));
    assert_eq!(expected.len(), 30);
    // Hidden: positions 9 to 17 of the display order (a run that empties whole pages) and
    // every fourth position besides.
    let hidden: HashSet<i64> = expected
        .iter()
        .enumerate()
        .filter(|&(i, _)| (9..18).contains(&i) || i % 4 == 3)
        .map(|(_, &id)| id)
        .collect();
    let visible: Vec<i64> = expected
        .iter()
        .copied()
        .filter(|id| !hidden.contains(id))
        .collect();
    for page_size in 1..=3 {
        for backward in [false, true] {
            let how = Read {
                backward,
                ..Read::forward(page_size)
            };
            let (read, kept, emptied) = walk_retaining::<M, C>(db, how, &hidden);
            assert_eq!(read, expected, "{how:?}: every row read once, in order");
            assert_eq!(kept, visible, "{how:?}: the kept rows");
            assert!(
                emptied >= 3 / page_size as usize,
                "{how:?}: {emptied} emptied pages"
            );
        }
    }
}
