//! Named sorts: one model, `#[keyset(sort(Name(..)))]` three times, one sort
//! chosen per request from the generated enum. Each sort's row type walks through tokens
//! exactly as the database's own `ORDER BY` of its columns (page sizes 1, 2 and 5, both ways,
//! plain and boxed, with and without the deferred join, exact flags or not), and a token made
//! in one sort is refused by every other with `SortMismatch`.
//!
//! Partner: `tests/models/src/named_sorts.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.

use crate::expr_keys::{codec, token_walk};
use crate::models::{Read, Walk};
use crate::NextToken as _;
use crate::{at, Row, TestDb};
use keyset_diesel::token::CursorError;
use keyset_diesel::SortChoice;
pub use keyset_test_models::named_sorts::*;

/// 90 rows over two tenants, in heavy ties on every sort column (3 values of `a`, 4 of `b`
/// differing in case, 5 times, NULLs in `na` and `nb`), ids not in insert order.
fn rows() -> Vec<Row> {
    (0..90i64)
        .map(|i| Row {
            tenant: (i % 2) as i32,
            a: (i % 3) as i32,
            b: ["a", "B", "b", "A"][(i % 4) as usize].to_string(),
            c: at(i % 5, 0),
            na: (i % 7 != 0).then_some((i % 4) as i32),
            nb: (i % 5 != 1).then(|| ["x", "y"][(i % 2) as usize].to_string()),
            ..Row::new((i * 37) % 97)
        })
        .collect()
}

/// The reads of every walk: page sizes 1, 2 and 5, both ways, plain and boxed, with and
/// without the deferred join, exact flags on the boxed reads.
fn reads() -> Vec<Read> {
    let mut out = Vec::new();
    for page_size in [1, 2, 5] {
        for backward in [false, true] {
            for boxed in [false, true] {
                for deferred in [false, true] {
                    out.push(Read {
                        backward,
                        boxed,
                        exact: boxed,
                        deferred: Some(deferred),
                        ..Read::forward(page_size)
                    });
                }
            }
        }
    }
    out
}

/// Every walk of sort row type `K` on tenant 1 equals `expected`.
fn walks_equal<C, K>(db: &mut C, expected: &[i64])
where
    K: Walk<C, Filter = i32> + std::ops::Deref<Target = Listed>,
{
    let codec = codec();
    for how in reads() {
        let ids = token_walk::<K>(
            &codec,
            how,
            |cursor, how| K::read(db, &1, cursor, how),
            |row| row.id,
        );
        assert_eq!(ids, expected, "{} {how:?}", K::sort_signature());
    }
}

/// Several orderings for one model: each named sort walks as its `ORDER BY`, and
/// tokens are bound to the sort they were made in.
pub fn named_sorts_walk_as_order_by_and_refuse_each_others_tokens<C>()
where
    C: TestDb,
    ListedByNewest: Walk<C, Filter = i32>,
    ListedByTop: Walk<C, Filter = i32>,
    ListedByUnfinished: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows());
    let db = &mut *db;
    let order = |db: &mut C, order: &str| {
        let ids = db.ids(&format!(
            "SELECT id FROM keyset_rows WHERE tenant = 1 ORDER BY {order}"
        ));
        assert_eq!(ids.len(), 45);
        ids
    };
    // Each sort as the request names it, then walked through its row type.
    for sort in ListedSort::ALL.iter().copied() {
        let parsed: ListedSort = sort.name().parse().expect("a sort's own name parses");
        assert_eq!(parsed, sort);
        match sort {
            ListedSort::Newest => {
                let expected = order(db, "c DESC, id DESC");
                walks_equal::<C, ListedByNewest>(db, &expected);
            }
            ListedSort::Top => {
                let expected = order(db, "a DESC, b ASC, id ASC");
                walks_equal::<C, ListedByTop>(db, &expected);
            }
            ListedSort::Unfinished => {
                let expected = order(db, "na IS NULL, na ASC, nb IS NOT NULL, nb DESC, id DESC");
                walks_equal::<C, ListedByUnfinished>(db, &expected);
            }
        }
    }

    // A token of each sort, decoded in every sort: its own resumes, every other refuses it.
    let codec = codec();
    let first = ListedByTop::page(db, &1, None, 2, false).expect("a page");
    let top = codec
        .next_token(&first, &"expr")
        .expect("encodes")
        .expect("more pages");
    let first = ListedByNewest::page(db, &1, None, 2, false).expect("a page");
    let newest = codec
        .next_token(&first, &"expr")
        .expect("encodes")
        .expect("more pages");
    let first = ListedByUnfinished::page(db, &1, None, 2, false).expect("a page");
    let unfinished = codec
        .next_token(&first, &"expr")
        .expect("encodes")
        .expect("more pages");
    let mismatch = |r: Result<(), CursorError>| matches!(r, Err(CursorError::SortMismatch));
    let decode_as = |token: &str, sort: ListedSort| -> Result<(), CursorError> {
        match sort {
            ListedSort::Newest => codec.decode::<ListedByNewest>(token, &"expr").map(drop),
            ListedSort::Top => codec.decode::<ListedByTop>(token, &"expr").map(drop),
            ListedSort::Unfinished => codec.decode::<ListedByUnfinished>(token, &"expr").map(drop),
        }
    };
    for (made_in, token) in [
        (ListedSort::Newest, &newest),
        (ListedSort::Top, &top),
        (ListedSort::Unfinished, &unfinished),
    ] {
        for sort in ListedSort::ALL.iter().copied() {
            let result = decode_as(token, sort);
            if sort == made_in {
                assert!(result.is_ok(), "{made_in} token in {sort}: {result:?}");
            } else {
                assert!(mismatch(result), "{made_in} token in {sort}");
            }
        }
    }
}
