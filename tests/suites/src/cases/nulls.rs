//! NULLs in a key: a NULL cursor value continues in the NULL group, crossing into the NULL
//! group keeps every NULL row, and pages inside the NULL group seek both ways.

use super::{page_ids, read};
use crate::models::{Oracle, Walk};
use crate::{Row, TestDb};

/// Walks `M` forward and backward with page sizes 1, 2, 3 and 5 (the rule for pages inside the NULL
/// group): each walk gives the ids in `expected` order, no duplicates; returns the forward pages at
/// `page_size`.
fn nullable_walks<M, C>(conn: &mut C, expected: &[i64], page_size: u32) -> Vec<Vec<i64>>
where
    M: Walk<C, Filter = i32> + Oracle,
    C: TestDb,
{
    use crate::models::Read;
    assert_eq!(
        conn.ids(&crate::oracle::oracle_sql::<M, C>("0")),
        expected,
        "oracle"
    );
    for size in [1, 2, 3, 5] {
        for (exact, boxed) in [(false, false), (true, true)] {
            let fwd = Read {
                exact,
                boxed,
                ..Read::forward(size)
            };
            let mut cursor = None;
            let mut walked = Vec::new();
            loop {
                let page = read::<M, C>(conn, cursor.take(), fwd);
                walked.extend(page_ids(&page));
                match page.next_cursor() {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
            assert_eq!(walked, expected, "forward, page size {size}");
            let back = Read {
                backward: true,
                ..fwd
            };
            let mut pages = Vec::new();
            let mut cursor = None;
            loop {
                let page = read::<M, C>(conn, cursor.take(), back);
                pages.push(page_ids(&page));
                match page.next_cursor() {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
            let backward: Vec<i64> = pages.into_iter().rev().flatten().collect();
            assert_eq!(backward, expected, "backward, page size {size}");
        }
    }
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page = read::<M, C>(conn, cursor.take(), Read::forward(page_size));
        pages.push(page_ids(&page));
        match page.next_cursor() {
            Some(c) => cursor = Some(c),
            None => return pages,
        }
    }
}

fn nullable_rows(values: &[(i64, Option<i32>)]) -> Vec<Row> {
    values
        .iter()
        .map(|&(id, na)| Row {
            na,
            nb: na.map(|v| {
                if v == 0 {
                    "a".to_string()
                } else {
                    v.to_string()
                }
            }),
            ..Row::new(id)
        })
        .collect()
}

/// A NULL cursor value: the page after it is the rest of the NULL group,
/// never empty. `name ASC NULLS LAST, id ASC`: `[5,1]`, `[2,3]`, `[4]`; NULLS FIRST: `[1,2]`,
/// `[3,4]`, `[5]`.
pub fn null_cursor_value_continues_in_the_null_group<C: TestDb>()
where
    crate::models::NB_asc_nulls_last__ID_asc: Walk<C, Filter = i32>,
    crate::models::NA_asc_nulls_first__ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::{NA_asc_nulls_first__ID_asc, NB_asc_nulls_last__ID_asc};
    let mut db = C::open();
    // (5,'a') and four NULL names.
    db.insert_rows(&nullable_rows(&[
        (1, None),
        (2, None),
        (3, None),
        (4, None),
        (5, Some(0)),
    ]));
    let pages = nullable_walks::<NB_asc_nulls_last__ID_asc, C>(&mut db, &[5, 1, 2, 3, 4], 2);
    assert_eq!(pages, vec![vec![5, 1], vec![2, 3], vec![4]]);
    let pages = nullable_walks::<NA_asc_nulls_first__ID_asc, C>(&mut db, &[1, 2, 3, 4, 5], 2);
    assert_eq!(pages, vec![vec![1, 2], vec![3, 4], vec![5]]);
}

/// Crossing from values into the NULL group keeps every NULL row.
/// `user_id ASC NULLS LAST`: `[1,3]`, `[2,4]`; NULLS FIRST: `[2,4]`, `[1,3]`. DESC variant:
/// `v DESC NULLS LAST, id DESC`: `[1,2]`, `[3,4]`; `NULLS FIRST`: `[4,1]`, `[2,3]`.
pub fn crossing_into_the_null_group_keeps_every_null_row<C: TestDb>()
where
    crate::models::NA_asc_nulls_last__ID_asc: Walk<C, Filter = i32>,
    crate::models::NA_asc_nulls_first__ID_asc: Walk<C, Filter = i32>,
    crate::models::NA_desc_nulls_last__ID_desc: Walk<C, Filter = i32>,
    crate::models::NA_desc_nulls_first__ID_desc: Walk<C, Filter = i32>,
{
    use crate::models::*;
    let mut db = C::open();
    db.insert_rows(&nullable_rows(&[
        (1, Some(10)),
        (2, None),
        (3, Some(20)),
        (4, None),
    ]));
    let pages = nullable_walks::<NA_asc_nulls_last__ID_asc, C>(&mut db, &[1, 3, 2, 4], 2);
    assert_eq!(pages, vec![vec![1, 3], vec![2, 4]]);
    let pages = nullable_walks::<NA_asc_nulls_first__ID_asc, C>(&mut db, &[2, 4, 1, 3], 2);
    assert_eq!(pages, vec![vec![2, 4], vec![1, 3]]);
    db.exec("DELETE FROM keyset_rows");
    db.insert_rows(&nullable_rows(&[
        (1, Some(4)),
        (2, Some(2)),
        (3, Some(1)),
        (4, None),
    ]));
    let pages = nullable_walks::<NA_desc_nulls_last__ID_desc, C>(&mut db, &[1, 2, 3, 4], 2);
    assert_eq!(pages, vec![vec![1, 2], vec![3, 4]]);
    let pages = nullable_walks::<NA_desc_nulls_first__ID_desc, C>(&mut db, &[4, 1, 2, 3], 2);
    assert_eq!(pages, vec![vec![4, 1], vec![2, 3]]);
}

/// Inside the NULL group. (a) `v ASC NULLS FIRST, id ASC`: `[1,2]`, `[3,4]`,
/// `[5]`; (b) `v DESC NULLS FIRST, id ASC`: `[1,2]`, `[3,5]`, `[4]`.
pub fn null_group_pages_in_both_seek_directions<C: TestDb>()
where
    crate::models::NA_asc_nulls_first__ID_asc: Walk<C, Filter = i32>,
    crate::models::NA_desc_nulls_first__ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::*;
    let mut db = C::open();
    db.insert_rows(&nullable_rows(&[
        (1, None),
        (2, None),
        (3, None),
        (4, Some(10)),
        (5, Some(20)),
    ]));
    let pages = nullable_walks::<NA_asc_nulls_first__ID_asc, C>(&mut db, &[1, 2, 3, 4, 5], 2);
    assert_eq!(pages, vec![vec![1, 2], vec![3, 4], vec![5]]);
    let pages = nullable_walks::<NA_desc_nulls_first__ID_asc, C>(&mut db, &[1, 2, 3, 5, 4], 2);
    assert_eq!(pages, vec![vec![1, 2], vec![3, 5], vec![4]]);
}
