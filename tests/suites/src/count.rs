//! The opt-in total count (`with_total_count`), on every backend: the count
//! of the query without the seek, `ORDER BY` and `LIMIT`, equal to the oracle's row count (the
//! plain query's rows, read by SQL of its own) on every page: first and later pages, forward
//! and backward, empty pages, filtered, grouped (`GROUP BY`, `HAVING`) and `DISTINCT` queries,
//! boxed and unboxed, with and without exact flags, one seek per key level and the deferred
//! join. (The oracle property test checks the count on random tables and walks, blocking and
//! async; the async SQL test checks that the count costs no second statement.)
//!
//! Partner: `tests/models/src/count.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.

use crate::models::Read;
use crate::TestDb;
use diesel::QueryResult;
use keyset_diesel::{Cursor, Keyset, Page};
pub use keyset_test_models::count::*;

/// The ways a page is read: forward and backward, boxed or not, with exact flags, one seek per
/// key level, and the deferred join on and off.
fn reads(page_size: u32) -> Vec<Read> {
    let mut out = Vec::new();
    for backward in [false, true] {
        for boxed in [false, true] {
            for (exact, per_level, deferred) in [
                (false, false, Some(false)),
                (false, false, Some(true)),
                (true, false, None),
                (false, true, None),
            ] {
                out.push(Read {
                    boxed,
                    exact,
                    per_level,
                    deferred,
                    ..if backward {
                        Read::backward(page_size)
                    } else {
                        Read::forward(page_size)
                    }
                });
            }
        }
    }
    out
}

/// Walks with `read` from the first page (the last one read backward) to the end; returns
/// each page's ids (display order) and total count.
fn walk<K: Keyset>(
    mut read: impl FnMut(Option<Cursor<K>>) -> QueryResult<Page<K>>,
    id: impl Fn(&K) -> i64,
) -> Vec<(Vec<i64>, Option<i64>)> {
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page = read(cursor.take()).expect("a counted page");
        pages.push((page.items.iter().map(&id).collect(), page.total_count));
        match page.next_cursor() {
            Some(next) => cursor = Some(next),
            None => break,
        }
        assert!(pages.len() < 20, "the walk ends");
    }
    pages
}

/// The pages of a walk in display order, and the count each page carried (which must be the
/// same on every page).
fn flatten(mut pages: Vec<(Vec<i64>, Option<i64>)>, backward: bool) -> (Vec<Vec<i64>>, i64) {
    if backward {
        pages.reverse();
    }
    let totals: Vec<Option<i64>> = pages.iter().map(|(_, t)| *t).collect();
    let first = totals[0].expect("a count on every page");
    assert!(
        totals.iter().all(|t| *t == Some(first)),
        "the same count on every page: {totals:?}"
    );
    (pages.into_iter().map(|(ids, _)| ids).collect(), first)
}

/// The oracle's row count: the rows of `sql`, a plain query selecting `id`.
fn oracle_count<C: TestDb>(db: &mut C, sql: &str) -> i64 {
    i64::try_from(db.ids(sql).len()).expect("a small table")
}

/// A filtered total: tenant A by `id ASC`, page size 2: pages `[1,2]`, `[3,4]`, `[5]` with total 5
/// on every page (not 5, 3, 1), forward and backward, every read shape; with `grp = 3` added, total
/// 2; tenant Z (no rows): an empty page with total 0, also after a cursor; a page after the last
/// row (empty) still carries total 5.
pub fn filtered_total_is_the_same_on_every_page<C: CountQueries>() {
    let mut db = C::open();
    create_count_items(&mut *db);
    let all_a = oracle_count(&mut *db, "SELECT id FROM count_items WHERE tenant = 'A'");
    let a_grp3 = oracle_count(
        &mut *db,
        "SELECT id FROM count_items WHERE tenant = 'A' AND grp = 3",
    );
    assert_eq!((all_a, a_grp3), (5, 2), "the seeded rows");
    for how in reads(2) {
        let id = |r: &CountItem| r.id;
        let pages = walk(|c| db.items("A", None, c, how), id);
        let (pages, total) = flatten(pages, how.backward);
        let expected: Vec<Vec<i64>> = if how.backward {
            vec![vec![1], vec![2, 3], vec![4, 5]]
        } else {
            vec![vec![1, 2], vec![3, 4], vec![5]]
        };
        assert_eq!((pages, total), (expected, all_a), "{how:?}");

        let pages = walk(|c| db.items("A", Some(3), c, how), id);
        let (pages, total) = flatten(pages, how.backward);
        assert_eq!((pages, total), (vec![vec![4, 5]], a_grp3), "{how:?}");

        // No rows: 0, on the first page and after a cursor.
        let empty = db.items("Z", None, None, how).expect("empty page");
        assert!(empty.items.is_empty());
        assert_eq!(empty.total_count, Some(0), "{how:?}");
        let after = db
            .items("Z", None, Some(Cursor::after((3,))), how)
            .expect("empty later page");
        assert_eq!(
            (after.items.len(), after.total_count),
            (0, Some(0)),
            "{how:?}"
        );

        // A later page with no rows still carries the count (the union's count row).
        let beyond = if how.backward {
            Cursor::before((0,))
        } else {
            Cursor::after((5,))
        };
        let past = db
            .items("A", None, Some(beyond), how)
            .expect("empty later page");
        assert!(past.items.is_empty(), "{how:?}");
        assert_eq!(past.total_count, Some(all_a), "{how:?}");
    }
}

/// Grouped and distinct totals: `GROUP BY grp` keyed on `grp`, page size 1: three pages (groups
/// 1, 2, 3) and total 3 (groups, not rows) on each; `HAVING count(*) >= 2`: groups 1 and 3,
/// total 2. `SELECT DISTINCT grp`: three distinct rows, total 3. Every read shape.
pub fn grouped_and_distinct_totals_count_groups_and_distinct_rows<C: CountQueries>() {
    let mut db = C::open();
    create_count_items(&mut *db);
    let groups = oracle_count(
        &mut *db,
        "SELECT grp AS id FROM count_items WHERE tenant = 'A' GROUP BY grp",
    );
    let having = oracle_count(
        &mut *db,
        "SELECT grp AS id FROM count_items WHERE tenant = 'A' GROUP BY grp HAVING COUNT(*) >= 2",
    );
    let distinct = oracle_count(
        &mut *db,
        "SELECT DISTINCT grp AS id FROM count_items WHERE tenant = 'A'",
    );
    assert_eq!((groups, having, distinct), (3, 2, 3), "the seeded rows");
    for how in reads(1) {
        let pages = walk(|c| db.groups(None, c, how), |g| g.grp);
        let (pages, total) = flatten(pages, how.backward);
        assert_eq!(
            (pages, total),
            (vec![vec![1], vec![2], vec![3]], groups),
            "{how:?}"
        );

        let pages = walk(|c| db.groups(Some(2), c, how), |g| g.grp);
        let (pages, total) = flatten(pages, how.backward);
        assert_eq!((pages, total), (vec![vec![1], vec![3]], having), "{how:?}");

        let pages = walk(|c| db.distinct_groups(c, how), |g| g.grp);
        let (pages, total) = flatten(pages, how.backward);
        assert_eq!(
            (pages, total),
            (vec![vec![1], vec![2], vec![3]], distinct),
            "{how:?}"
        );

        // A later page with no rows: still the count of groups.
        let beyond = if how.backward {
            Cursor::before((0,))
        } else {
            Cursor::after((3,))
        };
        let past = db
            .groups(None, Some(beyond), how)
            .expect("empty later page");
        assert_eq!(
            (past.items.len(), past.total_count),
            (0, Some(groups)),
            "{how:?}"
        );
    }
}
