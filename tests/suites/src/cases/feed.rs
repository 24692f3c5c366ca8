//! The activity feed's pages and change rules: the seed feed's two pages, rows inserted or
//! deleted between requests, two tenants that never leak across the filter, empty and
//! one-row tables.

use keyset_diesel::{Cursor, Keyset};

use crate::models::{FeedEvent, ID_asc, Walk};
use crate::oracle::walk_pages;
use crate::{at, NewEvent, Row, TestDb};

/// The activity feed: workspace W9's six events (e102 to e104 share one timestamp) and W7's
/// three.
pub fn feed_events() -> Vec<NewEvent> {
    [
        ("e101", "W9", 1),
        ("e102", "W9", 2),
        ("e103", "W9", 2),
        ("e104", "W9", 2),
        ("e105", "W9", 3),
        ("e106", "W9", 4),
        ("e201", "W7", 1),
        ("e202", "W7", 2),
        ("e203", "W7", 3),
    ]
    .iter()
    .map(|&(id, ws, secs)| NewEvent {
        event_id: id.to_string(),
        workspace_id: ws.to_string(),
        occurred_at: at(secs, 0),
        message: format!("event {id}"),
    })
    .collect()
}

fn event_ids(pages: &[keyset_diesel::Page<FeedEvent>]) -> Vec<Vec<String>> {
    pages
        .iter()
        .map(|p| p.items.iter().map(|e| e.event_id.clone()).collect())
        .collect()
}

fn page<C: TestDb>(
    conn: &mut C,
    workspace: &str,
    cursor: Option<Cursor<FeedEvent>>,
) -> keyset_diesel::Page<FeedEvent>
where
    FeedEvent: Walk<C, Filter = str>,
{
    FeedEvent::page(conn, workspace, cursor, 3, false).expect("page")
}

fn ids(page: &keyset_diesel::Page<FeedEvent>) -> Vec<&str> {
    page.items.iter().map(|e| e.event_id.as_str()).collect()
}

/// The activity feed: W9 with page size 3 is [e101, e102, e103] then [e104, e105, e106];
/// e104 shares e103's timestamp and is not skipped.
pub fn tied_event_starts_the_second_feed_page<C: TestDb>()
where
    FeedEvent: Walk<C, Filter = str>,
{
    let mut db = C::open();
    seed_feed_pages::<C>(&mut db);
}

/// The seed feed's two pages on `db` (blocking, or the async path's connection pair).
pub fn seed_feed_pages<D: crate::db::OracleDb>(db: &mut D)
where
    FeedEvent: Walk<D, Filter = str>,
{
    db.db().insert_events(&feed_events());
    for boxed in [false, true] {
        let pages = walk_pages::<FeedEvent, D>(db, "W9", 3, boxed);
        assert_eq!(
            event_ids(&pages),
            vec![vec!["e101", "e102", "e103"], vec!["e104", "e105", "e106"]]
        );
        assert!(pages[0].has_more() && !pages[1].has_more());
        let cursor = pages[0].next_cursor().expect("cursor after page 1");
        assert_eq!(cursor.key, (at(2, 0), "e103".to_string()));
    }
}

/// A newer event inserted between requests appears on a later page; an event arriving late
/// with a position before the cursor is not revisited (documented: live reads, no snapshot).
pub fn rows_inserted_between_requests<C: TestDb>()
where
    FeedEvent: Walk<C, Filter = str>,
{
    let mut db = C::open();
    db.insert_events(&feed_events());
    let p1 = page(&mut *db, "W9", None);
    assert_eq!(ids(&p1), ["e101", "e102", "e103"]);
    let mut late = feed_events()[0].clone();
    late.event_id = "e100".into();
    late.occurred_at = at(0, 0);
    let mut newer = feed_events()[0].clone();
    newer.event_id = "e107".into();
    newer.occurred_at = at(5, 0);
    // Same timestamp as the cursor, sorting after it: must appear.
    let mut tied = feed_events()[0].clone();
    tied.event_id = "e103b".into();
    tied.occurred_at = at(2, 0);
    db.insert_events(&[late, newer, tied]);
    let p2 = page(&mut *db, "W9", p1.next_cursor());
    assert_eq!(ids(&p2), ["e103b", "e104", "e105"]);
    let p3 = page(&mut *db, "W9", p2.next_cursor());
    assert_eq!(ids(&p3), ["e106", "e107"]);
    assert!(!p3.has_more());
}

/// Deleting the boundary row does not move the position; a deleted unseen row is not shown;
/// nothing is duplicated and no unchanged row is skipped.
pub fn deleted_boundary_row_still_marks_the_position<C: TestDb>()
where
    FeedEvent: Walk<C, Filter = str>,
{
    let mut db = C::open();
    db.insert_events(&feed_events());
    let p1 = page(&mut *db, "W9", None);
    assert_eq!(ids(&p1), ["e101", "e102", "e103"]);
    db.exec("DELETE FROM events WHERE event_id IN ('e103', 'e105')");
    let p2 = page(&mut *db, "W9", p1.next_cursor());
    assert_eq!(ids(&p2), ["e104", "e106"]);
    assert!(!p2.has_more());
}

/// Two tenants: a walk of W9 never returns W7's rows, and a cursor taken from W7's walk, used
/// in W9's query, only positions inside W9's rows (the filter is applied on every request).
pub fn tenants_never_leak_across_the_filter<C: TestDb>()
where
    FeedEvent: Walk<C, Filter = str>,
{
    let mut db = C::open();
    db.insert_events(&feed_events());
    for ws in ["W9", "W7"] {
        for page_size in [1, 2, 3, 10] {
            for page in walk_pages::<FeedEvent, C>(&mut db, ws, page_size, false) {
                assert!(page.items.iter().all(|e| e.workspace_id == ws));
            }
        }
    }
    let w7 = page(&mut *db, "W7", None);
    assert_eq!(ids(&w7), ["e201", "e202", "e203"]);
    // (12:00:02, "e202"): W9's e102-e104 share the time but sort before "e202".
    let foreign_cursor = Cursor::<FeedEvent>::after_row(&w7.items[1]);
    let w9 = page(&mut *db, "W9", Some(foreign_cursor));
    assert_eq!(ids(&w9), ["e105", "e106"]);
    assert!(w9.items.iter().all(|e| e.workspace_id == "W9"));
}

/// No rows: one empty page, no cursor. One row: one page, no cursor.
pub fn empty_and_single_row_tables<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    let empty = walk_pages::<ID_asc, C>(&mut db, &0, 2, false);
    assert_eq!(empty.len(), 1);
    assert!(empty[0].items.is_empty() && !empty[0].has_more() && empty[0].next_cursor().is_none());
    db.insert_rows(&[Row::new(42)]);
    let one = walk_pages::<ID_asc, C>(&mut db, &0, 2, true);
    assert_eq!(one.len(), 1);
    assert_eq!(
        one[0].items.iter().map(|r| r.key()).collect::<Vec<_>>(),
        [(42,)]
    );
    assert!(!one[0].has_more() && one[0].next_cursor().is_none());
}
