//! Query shapes beyond one model walked over one table: boxed queries that already carry
//! `ORDER BY`/`LIMIT`/`OFFSET`, `OR` filters, `DISTINCT` over a join, two output columns of one
//! name, a page size of zero. The tests are generic over [`Queries`]; the Diesel query each one
//! runs is written once, in `impl_queries!`, and implemented for every enabled backend.
//!
//! Partner: `tests/models/src/queries.rs` declares this subject's models and instantiates their
//! pages. The split follows the crates' layers (docs/TESTING.md): this file, in the suites
//! crate, holds the tests, generic over the backend, so editing a test rebuilds no page.

use crate::joins::{posts_with_two_tags, walk_ids};
use crate::models::FeedEvent;
use crate::{at, NewEvent};
use diesel::QueryResult;
use keyset_diesel::{Cursor, KeysetError, Page};
pub use keyset_test_models::queries::*;

/// The crate's own error inside a Diesel error that must be there.
fn refusal<K: keyset_diesel::Keyset>(result: QueryResult<Page<K>>) -> Option<KeysetError> {
    match result {
        Ok(_) => panic!("must be refused"),
        Err(error) => KeysetError::from_diesel(&error).cloned(),
    }
}

/// A boxed query that already has `ORDER BY`, `LIMIT` or `OFFSET` is refused with the
/// matching [`KeysetError`]; a plain boxed query pages.
pub fn boxed_queries_with_order_limit_or_offset_are_refused<C: Queries>() {
    let mut db = C::open();
    let conn: &mut C = &mut db;
    assert_eq!(
        refusal(conn.boxed_id_asc(BoxedClause::Order)),
        Some(KeysetError::AlreadyOrdered)
    );
    assert_eq!(
        refusal(conn.boxed_id_asc(BoxedClause::Limit)),
        Some(KeysetError::AlreadyLimited)
    );
    assert_eq!(
        refusal(conn.boxed_id_asc(BoxedClause::Offset)),
        Some(KeysetError::AlreadyLimited)
    );
    assert!(conn
        .boxed_id_asc(BoxedClause::None)
        .expect("a plain boxed query pages")
        .items
        .is_empty());
}

/// Up to 20 pages of [`Queries::feed_page`] with `filter`; the event ids in page order.
fn walk_feed<C: Queries>(conn: &mut C, filter: OrFilter) -> Vec<String> {
    try_walk_feed(conn, filter).expect("page")
}

/// As [`walk_feed`], stopping at the first error.
fn try_walk_feed<C: Queries>(conn: &mut C, filter: OrFilter) -> diesel::QueryResult<Vec<String>> {
    let mut cursor: Option<Cursor<FeedEvent>> = None;
    let mut ids = Vec::new();
    for _ in 0..20 {
        let page = conn.feed_page(filter, cursor.take())?;
        ids.extend(page.items.iter().map(|e| e.event_id.clone()));
        match page.next_cursor() {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    Ok(ids)
}

/// An `OR` filter pages every row when its operands are grouped (Diesel's `.or()`, or raw SQL
/// in parentheses). Raw SQL with a top-level `OR` is the documented limit: the seek binds to
/// the second alternative only (`W9 OR (W7 AND seek)`), so W9's rows come back on every page;
/// the page check sees them come back before the cursor (`KeyOutOfOrder`).
pub fn or_filters_page_every_row_when_grouped<C: Queries>() {
    let mut db = C::open();
    db.insert_events(&crate::cases::feed::feed_events());
    db.insert_events(&[NewEvent {
        event_id: "e301".into(),
        workspace_id: "W3".into(),
        occurred_at: at(2, 0),
        message: "other".into(),
    }]);
    let conn: &mut C = &mut db;
    let oracle = conn.events_of(&["W9", "W7"]);
    assert_eq!(oracle.len(), 9);
    assert_eq!(
        walk_feed(conn, OrFilter::Grouped),
        oracle,
        "Diesel's .or() groups its operands"
    );
    assert_eq!(
        walk_feed(conn, OrFilter::Parenthesized),
        oracle,
        "raw SQL in parentheses"
    );
    let bare = try_walk_feed(conn, OrFilter::Bare);
    let refusal = bare.as_ref().err().and_then(KeysetError::from_diesel);
    assert_eq!(
        refusal,
        Some(&KeysetError::KeyOutOfOrder {
            column: "occurred_at"
        }),
        "README, Limits: raw SQL with a top-level OR: {bare:?}"
    );
}

/// `SELECT DISTINCT` over a join that multiplies each post by two tags pages every post once,
/// with and without the deferred join and exact flags.
pub fn distinct_join_pages_every_row<C: Queries>() {
    let mut db = C::open();
    posts_with_two_tags(&mut *db);
    let conn: &mut C = &mut db;
    for deferred in [false, true] {
        for exact in [false, true] {
            let ids = walk_ids(
                |cursor| {
                    conn.distinct_tagged_posts(cursor, deferred, exact)
                        .expect("page")
                },
                |p| p.id,
            );
            assert_eq!(ids, [1, 2, 3, 4, 5, 6], "deferred {deferred} exact {exact}");
        }
    }
}

/// A page whose select has two output columns named `id` (the union of exact flags and the
/// deferred join must not trip over them) pages every row.
pub fn union_pages_accept_duplicate_output_column_names<C: Queries>() {
    let mut db = C::open();
    posts_with_two_tags(&mut *db);
    let conn: &mut C = &mut db;
    for deferred in [false, true] {
        let ids = walk_ids(
            |cursor| conn.posts_with_tag_id(cursor, deferred).expect("page"),
            |p| p.id,
        );
        assert_eq!(ids, [1, 2, 3, 4, 5, 6], "deferred {deferred}");
    }
}

/// A page size of zero is refused with [`KeysetError::InvalidPageSize`].
pub fn page_size_zero_is_a_typed_error<C: Queries>() {
    let mut db = C::open();
    let error = db.id_asc_page(0).expect_err("page size 0 is refused");
    assert_eq!(
        KeysetError::from_diesel(&error),
        Some(&KeysetError::InvalidPageSize(0))
    );
}
