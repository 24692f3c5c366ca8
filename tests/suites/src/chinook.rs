//! The Chinook sample database (MIT licensed): real ties (invoice dates, two unit prices),
//! decimals and long text. The tests read it at run time from `data/chinook` in the shared
//! directory beside the repository ([`crate::shared_data`]); it is never copied in.
//!
//! Partner: `tests/models/src/chinook.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.
//!
//! Walks: Invoice by (invoice date DESC, invoice id DESC); Track by (unit price DESC, name ASC,
//! track id ASC), by (milliseconds ASC, track id ASC) and by composer (NULLs last, or first in
//! descending order); page sizes 1, 7 and 50. Each walk must equal the same plain `ORDER BY`:
//! [`check_all`] runs them all on one backend.

use crate::db::OracleDb;
use crate::models::Walk;
use crate::oracle::{assert_matches, walk_pages, Compared};
use crate::TestDb;
pub use keyset_test_models::chinook::*;

/// Every Chinook walk of [`check_walks`] on `conn`, with the models `S`: 412 invoices and
/// 3,503 tracks, each walk equal to the plain `ORDER BY`. The walks on the nullable composer
/// skip page size 1. `cast` as in [`check_walks`].
pub fn check_all<S: Models<C>, C: OracleDb>(conn: &mut C, cast: &str) {
    check_all_sizes::<S, C>(conn, cast, true);
}

/// [`check_all`], with page size 1 only if `single_row_pages` (one query per row: the async
/// path skips it, its pages being the blocking path's statements, checked shape by shape).
pub fn check_all_sizes<S: Models<C>, C: OracleDb>(
    conn: &mut C,
    cast: &str,
    single_row_pages: bool,
) {
    assert_eq!(
        check_walks::<S::InvoiceByDate, C>(conn, cast, single_row_pages),
        412
    );
    assert_eq!(
        check_walks::<S::TrackByPrice, C>(conn, cast, single_row_pages),
        3503
    );
    assert_eq!(
        check_walks::<S::TrackByComposer, C>(conn, cast, false),
        3503
    );
    assert_eq!(
        check_walks::<S::TrackByComposerDesc, C>(conn, cast, false),
        3503
    );
    assert_eq!(
        check_walks::<S::TrackByLength, C>(conn, cast, single_row_pages),
        3503
    );
}

/// Walks `M` over the whole table with page sizes 1 (if `single_row_pages`), 7 and 50, boxed
/// and not, forward and backward, against the plain `ORDER BY`; `cast` turns the id column
/// into a BIGINT expression (`{}` is the column). Returns the row count.
pub fn check_walks<M, C>(conn: &mut C, cast: &str, single_row_pages: bool) -> usize
where
    M: Walk<C, Filter = ()> + ChinookOracle,
    C: OracleDb,
{
    let id_expr = cast.replace("{}", M::ID);
    let expected = conn.db().ids(&format!(
        "SELECT {id_expr} AS id FROM {} ORDER BY {}",
        M::TABLE,
        crate::oracle::order_sql::<C::Db>(M::ORDER)
    ));
    assert!(
        expected.len() > 400,
        "Chinook table {} looks empty",
        M::TABLE
    );
    // Page size 1 walks the whole table one row per query; the boxed path and the backward
    // walk are covered at 7 and 50.
    for (page_size, boxed) in [(1, false), (7, false), (7, true), (50, false)] {
        if page_size == 1 && !single_row_pages {
            continue;
        }
        let pages = walk_pages::<M, C>(conn, &(), page_size, boxed);
        let compared = Compared {
            walked: pages
                .iter()
                .flat_map(|p| p.items.iter().map(M::id))
                .collect(),
            expected: expected.clone(),
            pages: pages.len(),
        };
        let context = format!(
            "{} {:?} page size {page_size} boxed {boxed}",
            <C::Db as TestDb>::NAME,
            M::ORDER
        );
        assert_matches(&compared, &context);
        if page_size == 1 {
            continue;
        }
        // Backward from the last page, following start cursors: the exact reverse.
        let how = crate::models::Read {
            boxed,
            ..crate::models::Read::backward(page_size)
        };
        let mut cursor = None;
        let mut backward: Vec<Vec<i64>> = Vec::new();
        loop {
            let page = M::read(conn, &(), cursor.take(), how).expect("backward page");
            backward.push(page.items.iter().map(M::id).collect());
            match page.next_cursor() {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let walked: Vec<i64> = backward.into_iter().rev().flatten().collect();
        assert_eq!(walked, expected, "{context}: backward walk");
    }
    expected.len()
}
