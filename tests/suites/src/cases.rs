//! The named fault cases of docs/CASES.md and the activity feed's change rules (rows inserted
//! or deleted between requests), generic over the backend. Each asserts the exact pages the case
//! lists; docs/CASES.md names each case's test.
//!
//! One file per section of docs/CASES.md in `cases/`: [`ordering`] (ordering and the boundary),
//! [`backward`] (backward pages and flags), [`nulls`], [`tokens`] (tokens and page sizes), and
//! [`feed`] (the activity feed and its change rules). The helpers below are shared by them.

use keyset_diesel::{Cursor, Keyset};

use crate::models::{Oracle, Walk};
use crate::oracle::walk_pages;
use crate::Row;

pub mod backward;
pub mod feed;
pub mod nulls;
pub mod ordering;
pub mod tokens;

/// The pages of `M` over tenant 0 as `(ids, has_more)`, walked with an unboxed query; the
/// boxed query must give the same pages.
fn pages<M, C>(conn: &mut C, page_size: u32) -> Vec<(Vec<i64>, bool)>
where
    M: Walk<C, Filter = i32> + Oracle,
{
    let mut summary = |boxed| -> Vec<(Vec<i64>, bool)> {
        walk_pages::<M, C>(conn, &0, page_size, boxed)
            .iter()
            .map(|p| (p.items.iter().map(M::id).collect(), p.has_more()))
            .collect()
    };
    let unboxed = summary(false);
    let boxed = summary(true);
    assert_eq!(unboxed, boxed, "boxed and unboxed queries page alike");
    unboxed
}

/// Rows of tenant 0 with ids and values of column `a`.
fn rows_with_a(values: &[(i64, i32)]) -> Vec<Row> {
    values
        .iter()
        .map(|&(id, a)| Row { a, ..Row::new(id) })
        .collect()
}

/// Reads a page of `M` (tenant 0).
fn read<M, C>(
    conn: &mut C,
    cursor: Option<Cursor<M>>,
    how: crate::models::Read,
) -> keyset_diesel::Page<M>
where
    M: Walk<C, Filter = i32>,
{
    M::read(conn, &0, cursor, how).expect("page")
}

/// The ids of `page`, in display order.
fn page_ids<M: Oracle + Keyset>(page: &keyset_diesel::Page<M>) -> Vec<i64> {
    page.items.iter().map(M::id).collect()
}
