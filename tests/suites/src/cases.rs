//! The named fault cases of docs/CASES.md and the activity feed's change rules (rows inserted
//! or deleted between requests), generic over the backend. Each asserts the exact pages the case
//! lists; each function's doc line starts with its case id.

use crate::NextToken as _;
use keyset_diesel::{Cursor, Keyset};

use crate::db::OracleDb;
use crate::models::{
    A_asc__ID_asc, A_desc__ID_asc, A_desc__ID_desc, B_asc__ID_asc, C_desc__ID_desc, FeedEvent,
    ID_asc, Oracle, Walk,
};
use crate::oracle::{test_codec, walk_pages};
use crate::property::{run_scenario, Scenario};
use crate::{at, NewEvent, Row, TestDb};

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

fn rows_with_a(values: &[(i64, i32)]) -> Vec<Row> {
    values
        .iter()
        .map(|&(id, a)| Row { a, ..Row::new(id) })
        .collect()
}

/// docs/CASES.md C01: `grp ASC` alone cannot name a row; with the tie-breaker `id` the pages are
/// exact. (The compile-time refusal of a keyset without a unique last column is a trybuild test.)
pub fn tie_breaker_completes_a_non_unique_sort_key<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[(1, 1), (2, 1), (3, 1), (4, 2)]));
    assert_eq!(
        pages::<A_asc__ID_asc, C>(&mut db, 2),
        vec![(vec![1, 2], true), (vec![3, 4], false)]
    );
}

/// docs/CASES.md C02: `created_at DESC, id DESC`, page 3: `[5,4,3]` then `[2,1]`; 3 is not
/// repeated.
pub fn boundary_row_is_not_repeated<C: TestDb>()
where
    C_desc__ID_desc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    let rows: Vec<Row> = (1..=5)
        .map(|id| Row {
            c: at(id, 0),
            ..Row::new(id)
        })
        .collect();
    db.insert_rows(&rows);
    assert_eq!(
        pages::<C_desc__ID_desc, C>(&mut db, 3),
        vec![(vec![5, 4, 3], true), (vec![2, 1], false)]
    );
}

/// docs/CASES.md C03: rows 1..7, page 3 (LIMIT 4): the cursor is row 3, not the look-ahead row 4;
/// and with rows 1..6 the second page is full but has no next cursor.
pub fn cursor_is_the_last_row_delivered_not_the_look_ahead<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&(1..=7).map(Row::new).collect::<Vec<_>>());
    let walked = walk_pages::<ID_asc, C>(&mut db, &0, 3, false);
    assert_eq!(walked[0].next_cursor(), Some(Cursor::after((3,))));
    assert_eq!(
        pages::<ID_asc, C>(&mut db, 3),
        vec![
            (vec![1, 2, 3], true),
            (vec![4, 5, 6], true),
            (vec![7], false)
        ]
    );
    db.exec("DELETE FROM keyset_rows WHERE id = 7");
    let walked = walk_pages::<ID_asc, C>(&mut db, &0, 3, false);
    assert_eq!(walked.len(), 2);
    assert_eq!(walked[1].items.len(), 3);
    assert!(!walked[1].has_more());
    assert!(
        walked[1].next_cursor().is_none(),
        "no look-ahead row, so no cursor"
    );
}

/// docs/CASES.md C04: `v DESC, id DESC`, page 2: `[4,3]` then `[2,1]` (`v < 3`, not `v > 3`).
pub fn descending_key_seeks_below_the_cursor<C: TestDb>()
where
    A_desc__ID_desc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[(1, 1), (2, 2), (3, 3), (4, 4)]));
    assert_eq!(
        pages::<A_desc__ID_desc, C>(&mut db, 2),
        vec![(vec![4, 3], true), (vec![2, 1], false)]
    );
}

/// docs/CASES.md C05: `score DESC, id ASC`: `[5,2]`, `[3,4]`, `[1,6]`. We never append a
/// tie-breaker: the model declares it with its own direction. So `score ASC, id ASC` and
/// `score DESC, id DESC` walk in exactly reversed order, and `score DESC, id ASC` is its own,
/// declared order.
pub fn mixed_directions_keep_each_declared_direction<C: TestDb>()
where
    A_desc__ID_asc: Walk<C, Filter = i32>,
    A_asc__ID_asc: Walk<C, Filter = i32>,
    A_desc__ID_desc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[
        (1, 10),
        (2, 20),
        (3, 20),
        (4, 20),
        (5, 30),
        (6, 10),
    ]));
    assert_eq!(
        pages::<A_desc__ID_asc, C>(&mut db, 2),
        vec![(vec![5, 2], true), (vec![3, 4], true), (vec![1, 6], false)]
    );
    let flat =
        |p: Vec<(Vec<i64>, bool)>| p.into_iter().flat_map(|(ids, _)| ids).collect::<Vec<_>>();
    let asc = flat(pages::<A_asc__ID_asc, C>(&mut db, 2));
    let desc = flat(pages::<A_desc__ID_desc, C>(&mut db, 2));
    assert_eq!(asc, vec![1, 6, 2, 3, 4, 5]);
    assert_eq!(desc, vec![5, 4, 3, 2, 6, 1]);
    assert_eq!(asc.iter().rev().copied().collect::<Vec<_>>(), desc);
}

/// Pages in the backend's default form load with a static query id: Diesel's statement cache
/// finds them by the page's types (query, keyset, first or later page, direction), not by
/// their SQL text. `a ASC, id ASC`, `a DESC, id ASC` and `a DESC, id DESC` select the same
/// columns with the same filter (one Diesel query type): on one connection, in turn and twice
/// over, each keyset's forward walk, backward walk and random steps give exactly its own
/// `ORDER BY`'s rows, so no keyset and no shape runs a statement cached for another.
pub fn keysets_sharing_a_query_type_keep_their_own_statements<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
    A_desc__ID_asc: Walk<C, Filter = i32>,
    A_desc__ID_desc: Walk<C, Filter = i32>,
{
    keysets_sharing_a_query_type_on::<C>(&mut C::open());
}

/// [`keysets_sharing_a_query_type_keep_their_own_statements`] on `db`: a blocking connection,
/// or a diesel-async pair, whose own connection's statement cache is the one checked.
pub fn keysets_sharing_a_query_type_on<D: OracleDb>(db: &mut D)
where
    A_asc__ID_asc: Walk<D, Filter = i32>,
    A_desc__ID_asc: Walk<D, Filter = i32>,
    A_desc__ID_desc: Walk<D, Filter = i32>,
{
    let rows: Vec<(i64, i32)> = (1..=23)
        .map(|id| (id, i32::try_from(id % 4).unwrap()))
        .collect();
    db.db().insert_rows(&rows_with_a(&rows));
    let scenario = Scenario {
        tenant: 0,
        page_size: 3,
        boxed: false,
        exact: false,
        deferred: None,
        per_level: false,
        expanded: false,
        total: false,
        steps: vec![true, true, false, true, false, false, true, true],
    };
    for round in 1..=2 {
        let runs = [
            (
                "a ASC, id ASC",
                run_scenario::<A_asc__ID_asc, D>(db, &scenario),
            ),
            (
                "a DESC, id ASC",
                run_scenario::<A_desc__ID_asc, D>(db, &scenario),
            ),
            (
                "a DESC, id DESC",
                run_scenario::<A_desc__ID_desc, D>(db, &scenario),
            ),
        ];
        for (keyset, run) in runs {
            run.unwrap_or_else(|e| panic!("round {round}, {keyset}: {e}"));
        }
    }
}

/// docs/CASES.md C19: the stage labels stored as text (SQLite's only form of an enum; a
/// `VARCHAR`/`TEXT` column elsewhere): `ORDER BY` and the seek compare the same text, so pages
/// follow text order, CUSTOMER, MEETING, NEW, PROPOSAL, SCREENING: `[5, 3]`, `[1, 4]`, `[2]`, none
/// lost or repeated. (A native enum key is not a supported key type: the derive refuses it, see
/// `fail_unsupported_key_type`; README, "Limits", for MySQL `ENUM`.)
pub fn enum_labels_stored_as_text_page_in_text_order<C: TestDb>()
where
    B_asc__ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    let stages = ["NEW", "SCREENING", "MEETING", "PROPOSAL", "CUSTOMER"];
    let rows: Vec<Row> = stages
        .iter()
        .zip(1..)
        .map(|(st, id)| Row {
            b: (*st).to_string(),
            ..Row::new(id)
        })
        .collect();
    db.insert_rows(&rows);
    assert_eq!(
        pages::<B_asc__ID_asc, C>(&mut db, 2),
        vec![(vec![5, 3], true), (vec![1, 4], true), (vec![2], false)]
    );
}

/// docs/CASES.md C22: `rank ASC, id ASC` drives the first page's ORDER BY, the predicate and the
/// cursor: `[5,2]`, `[3,1]`, `[4]`.
pub fn first_page_and_seek_follow_the_same_keyset<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
{
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[(1, 3), (2, 1), (3, 2), (4, 4), (5, 0)]));
    let walked = walk_pages::<A_asc__ID_asc, C>(&mut db, &0, 2, false);
    assert_eq!(
        walked[0].next_cursor().as_ref().map(|c| c.key),
        Some((1, 2))
    );
    assert_eq!(
        pages::<A_asc__ID_asc, C>(&mut db, 2),
        vec![(vec![5, 2], true), (vec![3, 1], true), (vec![4], false)]
    );
}

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

/// `#[keyset(version = 2)]`: a token made by the model at ordering version 1 (no attribute,
/// [`ID_asc`]) is refused by the same columns at version 2 (`ID_asc_v2`) with
/// `SortMismatch`, and the other way round; each version resumes its own tokens.
pub fn ordering_version_refuses_tokens_of_another_version<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
    crate::models::ID_asc_v2: Walk<C, Filter = i32>,
{
    use crate::models::ID_asc_v2;
    use keyset_diesel::token::CursorError;
    let mut db = C::open();
    db.insert_rows(&(1..=5).map(Row::new).collect::<Vec<_>>());
    assert_eq!(
        ID_asc_v2::sort_signature(),
        format!("{};version=2", ID_asc::sort_signature()),
        "the version enters the signature, after the columns"
    );
    let codec = test_codec(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(
        1_800_000_000,
    )));
    let v1_page = ID_asc::page(&mut *db, &0, None, 2, false).unwrap();
    let v1 = codec
        .next_token(&v1_page, &"rows")
        .unwrap()
        .expect("a next page");
    let v2_page = ID_asc_v2::page(&mut *db, &0, None, 2, false).unwrap();
    let v2 = codec
        .next_token(&v2_page, &"rows")
        .unwrap()
        .expect("a next page");
    assert_eq!(
        codec.decode::<ID_asc_v2>(&v1, &"rows"),
        Err(CursorError::SortMismatch)
    );
    assert_eq!(
        codec.decode::<ID_asc>(&v2, &"rows"),
        Err(CursorError::SortMismatch)
    );
    let v1_next = ID_asc::page(
        &mut *db,
        &0,
        Some(codec.decode(&v1, &"rows").unwrap()),
        2,
        false,
    )
    .unwrap();
    assert_eq!(
        v1_next.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        [3, 4]
    );
    let v2_next = ID_asc_v2::page(
        &mut *db,
        &0,
        Some(codec.decode(&v2, &"rows").unwrap()),
        2,
        false,
    )
    .unwrap();
    assert_eq!(
        v2_next.items.iter().map(|r| r.id).collect::<Vec<_>>(),
        [3, 4]
    );
}

/// docs/CASES.md C23: a cursor made for one query is refused by another (other filter value,
/// other order, other endpoint, other format version, expired) and still accepted for the
/// same filters written in another order. The page size is not bound: c1 with page size 1
/// gives `[3]`.
pub fn cursor_is_refused_by_another_query<C: TestDb>()
where
    A_desc__ID_desc: Walk<C, Filter = i32>,
    A_asc__ID_asc: Walk<C, Filter = i32>,
    FeedEvent: Walk<C, Filter = str>,
{
    use base64::Engine as _;
    use keyset_diesel::token::CursorError;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let mut db = C::open();
    // tasks(id, status, created_at): status 'a' is tenant 1, 'd' tenant 2; created_at is `a`.
    let rows: Vec<Row> = [
        (1, 1, 1),
        (2, 2, 2),
        (3, 1, 3),
        (4, 1, 4),
        (5, 2, 5),
        (6, 1, 6),
    ]
    .iter()
    .map(|&(id, tenant, a)| Row {
        tenant,
        a,
        ..Row::new(id)
    })
    .collect();
    db.insert_rows(&rows);
    let now = Arc::new(AtomicU64::new(1_800_000_000));
    let codec = test_codec(now.clone());
    let scope = |status: &'static str| {
        (
            "tasks",
            keyset_diesel::token::Unordered(vec![status]),
            keyset_diesel::token::Unordered(vec!["x", "y"]),
        )
    };
    let q1 = A_desc__ID_desc::page(&mut *db, &1, None, 2, false).unwrap();
    assert_eq!(q1.items.iter().map(|r| r.id).collect::<Vec<_>>(), [6, 4]);
    let c1 = codec.next_token(&q1, &scope("a")).unwrap().expect("c1");
    // The one valid use.
    let cursor = codec.decode::<A_desc__ID_desc>(&c1, &scope("a")).unwrap();
    let next = A_desc__ID_desc::page(&mut *db, &1, Some(cursor.clone()), 2, false).unwrap();
    assert_eq!(next.items.iter().map(|r| r.id).collect::<Vec<_>>(), [3, 1]);
    // Refused: filter status = 'd'.
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&c1, &scope("d")),
        Err(CursorError::ScopeMismatch)
    );
    // Refused: order created_at ASC.
    assert_eq!(
        codec.decode::<A_asc__ID_asc>(&c1, &scope("a")),
        Err(CursorError::SortMismatch)
    );
    // Refused: another endpoint (scope) or another table (keyset).
    let other_endpoint = (
        "projects",
        keyset_diesel::token::Unordered(vec!["a"]),
        keyset_diesel::token::Unordered(vec!["x", "y"]),
    );
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&c1, &other_endpoint),
        Err(CursorError::ScopeMismatch)
    );
    assert_eq!(
        codec.decode::<FeedEvent>(&c1, &scope("a")),
        Err(CursorError::SortMismatch)
    );
    // Refused: a v0 token where the server reads v1 (and v2).
    let mut bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&c1)
        .unwrap();
    bytes[0] = 0;
    let v0 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&bytes);
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&v0, &scope("a")),
        Err(CursorError::UnsupportedVersion)
    );
    // Accepted: the same filters with set members in another order (sets are `Unordered`).
    let reordered = (
        "tasks",
        keyset_diesel::token::Unordered(vec!["a", "a"]),
        keyset_diesel::token::Unordered(vec!["y", "x"]),
    );
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&c1, &reordered),
        Ok(cursor.clone())
    );
    // The page size is not bound: size 1 from c1 gives `[3]`.
    let smaller = A_desc__ID_desc::page(&mut *db, &1, Some(cursor), 1, false).unwrap();
    assert_eq!(smaller.items.iter().map(|r| r.id).collect::<Vec<_>>(), [3]);
    let recorded = codec
        .decode_token::<A_desc__ID_desc>(&c1, &scope("a"))
        .unwrap();
    assert_eq!(recorded.page_size, Some(2));
    // Refused: expired.
    now.store(1_800_000_600, Ordering::SeqCst);
    assert_eq!(
        codec.decode::<A_desc__ID_desc>(&c1, &scope("a")),
        Err(CursorError::Expired {
            expired_at: 1_800_000_600
        })
    );
}

/// docs/CASES.md C25: page sizes through a policy with default 2 and maximum 3, rows 1..5.
pub fn page_sizes_follow_the_policy<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    use keyset_diesel::web::{PageSizeError, PageSizePolicy};
    let mut db = C::open();
    db.insert_rows(&(1..=5).map(Row::new).collect::<Vec<_>>());
    let policy = PageSizePolicy::new(2, 3).unwrap();
    let ids =
        |page: &keyset_diesel::Page<ID_asc>| page.items.iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(policy.resolve(Some("-1")), Err(PageSizeError::TooSmall));
    assert_eq!(policy.resolve(Some("0")), Err(PageSizeError::TooSmall));
    assert_eq!(policy.resolve(Some("abc")), Err(PageSizeError::NotANumber));
    assert_eq!(policy.resolve(Some("2.5")), Err(PageSizeError::NotANumber));
    let two = ID_asc::page(
        &mut *db,
        &0,
        None,
        policy.resolve(Some("2")).unwrap(),
        false,
    )
    .unwrap();
    assert_eq!((ids(&two), two.has_more()), (vec![1, 2], true));
    let three = ID_asc::page(
        &mut *db,
        &0,
        None,
        policy.resolve(Some("3")).unwrap(),
        false,
    )
    .unwrap();
    assert_eq!((ids(&three), three.has_more()), (vec![1, 2, 3], true));
    // Clamped: 1000 becomes 3, reported by the page; the next cursor continues at 4.
    let clamped = policy.clamping().resolve(Some("1000")).unwrap();
    let page = ID_asc::page(&mut *db, &0, None, clamped, false).unwrap();
    assert_eq!((ids(&page), page.page_size), (vec![1, 2, 3], 3));
    let rest = ID_asc::page(&mut *db, &0, page.next_cursor(), clamped, true).unwrap();
    assert_eq!((ids(&rest), rest.has_more()), (vec![4, 5], false));
    assert_eq!(
        policy.resolve(Some("1000")),
        Err(PageSizeError::TooLarge { max: 3 })
    );
    for huge in [i64::MAX, i64::from(u32::MAX)] {
        assert_eq!(
            policy.resolve_number(Some(huge)),
            Err(PageSizeError::TooLarge { max: 3 })
        );
        assert_eq!(policy.clamping().resolve_number(Some(huge)), Ok(3));
    }
    // No size: the default. And u32::MAX straight into the query: no overflow in LIMIT n + 1.
    let default = ID_asc::page(&mut *db, &0, None, policy.resolve(None).unwrap(), false).unwrap();
    assert_eq!(ids(&default), [1, 2]);
    let all = ID_asc::page(&mut *db, &0, None, u32::MAX, false).unwrap();
    assert_eq!((ids(&all), all.has_more()), (vec![1, 2, 3, 4, 5], false));
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

fn page_ids<M: Oracle + Keyset>(page: &keyset_diesel::Page<M>) -> Vec<i64> {
    page.items.iter().map(M::id).collect()
}

/// docs/CASES.md C06 and C07 (`id ASC` and `id DESC`), and the `prev` steps of C04 and C05: the
/// page before a cursor is the adjacent window, in display order.
pub fn backward_page_is_the_adjacent_window_in_display_order<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
    crate::models::ID_desc: Walk<C, Filter = i32>,
    A_desc__ID_desc: Walk<C, Filter = i32>,
    A_desc__ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::{ID_desc, Read};
    let mut db = C::open();
    db.insert_rows(&(1..=6).map(Row::new).collect::<Vec<_>>());
    for boxed in [false, true] {
        let fwd = Read {
            boxed,
            ..Read::forward(2)
        };
        let back = Read {
            boxed,
            ..Read::backward(2)
        };
        let p1 = read::<ID_asc, C>(&mut db, None, fwd);
        let p2 = read::<ID_asc, C>(&mut db, p1.end_cursor.clone(), fwd);
        let p3 = read::<ID_asc, C>(&mut db, p2.end_cursor.clone(), fwd);
        assert_eq!(
            [page_ids(&p1), page_ids(&p2), page_ids(&p3)],
            [[1, 2], [3, 4], [5, 6]]
        );
        // C06: `[3,4]` in display order, both flags true.
        let prev3 = read::<ID_asc, C>(&mut db, p3.start_cursor.clone(), back);
        assert_eq!(page_ids(&prev3), [3, 4]);
        assert!(prev3.has_previous_page && prev3.has_next_page);
        // C07: the adjacent window, then the first page with has_prev false.
        let prev2 = read::<ID_asc, C>(&mut db, prev3.start_cursor.clone(), back);
        assert_eq!(page_ids(&prev2), [1, 2]);
        assert!(!prev2.has_previous_page && prev2.next_cursor().is_none());
        // C07, DESC variant.
        let d1 = read::<ID_desc, C>(&mut db, None, fwd);
        let d2 = read::<ID_desc, C>(&mut db, d1.end_cursor.clone(), fwd);
        let d3 = read::<ID_desc, C>(&mut db, d2.end_cursor.clone(), fwd);
        assert_eq!(
            [page_ids(&d1), page_ids(&d2), page_ids(&d3)],
            [[6, 5], [4, 3], [2, 1]]
        );
        let dprev = read::<ID_desc, C>(&mut db, d3.start_cursor.clone(), back);
        assert_eq!(page_ids(&dprev), [4, 3]);
    }
    // C04: v DESC, id DESC: prev(p2) is `[4,3]`.
    db.exec("DELETE FROM keyset_rows");
    db.insert_rows(&rows_with_a(&[(1, 1), (2, 2), (3, 3), (4, 4)]));
    let p1 = read::<A_desc__ID_desc, C>(&mut db, None, Read::forward(2));
    let p2 = read::<A_desc__ID_desc, C>(&mut db, p1.end_cursor, Read::forward(2));
    assert_eq!(page_ids(&p2), [2, 1]);
    let back = read::<A_desc__ID_desc, C>(&mut db, p2.start_cursor, Read::backward(2));
    assert_eq!(page_ids(&back), [4, 3]);
    // C05: score DESC, id ASC: prev(p3) is `[3,4]`, prev(p2) is `[5,2]`.
    db.exec("DELETE FROM keyset_rows");
    db.insert_rows(&rows_with_a(&[
        (1, 10),
        (2, 20),
        (3, 20),
        (4, 20),
        (5, 30),
        (6, 10),
    ]));
    let p1 = read::<A_desc__ID_asc, C>(&mut db, None, Read::forward(2));
    let p2 = read::<A_desc__ID_asc, C>(&mut db, p1.end_cursor, Read::forward(2));
    let p3 = read::<A_desc__ID_asc, C>(&mut db, p2.end_cursor.clone(), Read::forward(2));
    assert_eq!(page_ids(&p3), [1, 6]);
    let b3 = read::<A_desc__ID_asc, C>(&mut db, p3.start_cursor, Read::backward(2));
    assert_eq!(page_ids(&b3), [3, 4]);
    let b2 = read::<A_desc__ID_asc, C>(&mut db, p2.start_cursor, Read::backward(2));
    assert_eq!(page_ids(&b2), [5, 2]);
}

/// docs/CASES.md C08: exact flags at the edges, and tables of 0 and 1 rows.
pub fn flags_and_cursors_are_exact_at_the_edges<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::Read;
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
        // 0 rows: both flags false, no cursors, both ways.
        for how in [fwd, back] {
            let empty = read::<ID_asc, C>(&mut db, None, how);
            assert!(empty.items.is_empty() && !empty.has_previous_page && !empty.has_next_page);
            assert!(empty.start_cursor.is_none() && empty.end_cursor.is_none());
        }
        // 1 row.
        db.insert_rows(&[Row::new(1)]);
        for how in [fwd, back] {
            let one = read::<ID_asc, C>(&mut db, None, how);
            assert_eq!(page_ids(&one), [1]);
            assert!(!one.has_previous_page && !one.has_next_page);
        }
        db.insert_rows(&(2..=4).map(Row::new).collect::<Vec<_>>());
        let p1 = read::<ID_asc, C>(&mut db, None, fwd);
        assert_eq!(page_ids(&p1), [1, 2]);
        assert!(!p1.has_previous_page && p1.has_next_page);
        // C29: the first page has its start cursor all the same (its rows are there).
        assert_eq!(p1.start_cursor, Some(Cursor::before((1,))));
        let p2 = read::<ID_asc, C>(&mut db, p1.end_cursor.clone(), fwd);
        assert_eq!(page_ids(&p2), [3, 4]);
        assert!(p2.has_previous_page && !p2.has_next_page);
        assert!(p2.next_cursor().is_none(), "exactly 4 rows: no next cursor");
        assert_eq!(
            p2.end_cursor,
            Some(Cursor::after((4,))),
            "C29: the resume position"
        );
        let b = read::<ID_asc, C>(&mut db, p2.start_cursor.clone(), back);
        assert_eq!(page_ids(&b), [1, 2]);
        assert!(!b.has_previous_page && b.next_cursor().is_none() && b.has_next_page);
        assert_eq!(b.start_cursor, Some(Cursor::before((1,))));
        let again = read::<ID_asc, C>(&mut db, b.end_cursor.clone(), fwd);
        assert_eq!(page_ids(&again), [3, 4]);
        // The last page, read backward without a cursor.
        let last = read::<ID_asc, C>(&mut db, None, back);
        assert_eq!(page_ids(&last), [3, 4]);
        assert!(last.has_previous_page && !last.has_next_page);
        assert_eq!(last.end_cursor, Some(Cursor::after((4,))));
    }
}

/// Exact flags (`exact_flags(true)`): the other side is probed in the same statement, so a
/// cursor whose side was deleted since says so; without it the flag trusts the cursor.
pub fn exact_flags_probe_the_other_side<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::Read;
    let mut db = C::open();
    let reset = |db: &mut C| {
        db.exec("DELETE FROM keyset_rows");
        db.insert_rows(&(1..=6).map(Row::new).collect::<Vec<_>>());
    };
    for exact in [false, true] {
        let fwd = Read {
            exact,
            ..Read::forward(2)
        };
        let back = Read {
            exact,
            ..Read::backward(2)
        };
        reset(&mut db);
        let p1 = read::<ID_asc, C>(&mut db, None, fwd);
        db.exec("DELETE FROM keyset_rows WHERE id <= 2");
        let p2 = read::<ID_asc, C>(&mut db, p1.end_cursor, fwd);
        assert_eq!(page_ids(&p2), [3, 4]);
        assert_eq!(p2.has_previous_page, !exact, "forward, other side deleted");
        reset(&mut db);
        let last = read::<ID_asc, C>(&mut db, None, back);
        db.exec("DELETE FROM keyset_rows WHERE id >= 5");
        let before = read::<ID_asc, C>(&mut db, last.start_cursor, back);
        assert_eq!(page_ids(&before), [3, 4]);
        assert_eq!(before.has_next_page, !exact, "backward, other side deleted");
        // An empty page after the cursor: the probe still answers.
        reset(&mut db);
        let p1 = read::<ID_asc, C>(&mut db, None, fwd);
        let p1_end = p1.end_cursor.clone();
        let p2 = read::<ID_asc, C>(&mut db, p1.end_cursor, fwd);
        db.exec("DELETE FROM keyset_rows WHERE id >= 5");
        let p3 = read::<ID_asc, C>(&mut db, p2.end_cursor.clone(), fwd);
        assert!(p3.items.is_empty() && !p3.has_next_page && p3.has_previous_page);
        // No rows, no cursors: the way back is from p2, whose rows 3 and 4 still exist.
        assert!(p3.start_cursor.is_none() && p3.end_cursor.is_none());
        let p2_again = read::<ID_asc, C>(&mut db, p1_end.clone(), fwd);
        assert_eq!(page_ids(&p2_again), [3, 4]);
        let before_p2 = read::<ID_asc, C>(&mut db, p2.start_cursor.clone(), back);
        assert_eq!(page_ids(&before_p2), [1, 2]);
        db.exec("DELETE FROM keyset_rows");
        let gone = read::<ID_asc, C>(&mut db, p2.start_cursor.map(|c| Cursor::after(c.key)), fwd);
        assert!(gone.items.is_empty() && !gone.has_next_page);
        assert_eq!(gone.has_previous_page, !exact, "everything deleted");
    }
}

/// Walks `M` forward and backward with page sizes 1, 2, 3 and 5 (docs/CASES.md C11's rule): each
/// walk gives the ids in `expected` order, no duplicates; returns the forward pages at `page_size`.
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

/// docs/CASES.md C09: the cursor's value is NULL: the page after it is the rest of the NULL group,
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

/// docs/CASES.md C10: crossing from values into the NULL group keeps every NULL row.
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

/// docs/CASES.md C11: inside the NULL group. (a) `v ASC NULLS FIRST, id ASC`: `[1,2]`, `[3,4]`,
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

/// docs/CASES.md C12: the cursor carries every key column: `received_at ASC, id ASC` gives `[2,4]`,
/// `[1,6]`, `[3,5]`; a NULL component survives a token; a component missing from a token is an
/// error, never a weaker predicate.
pub fn cursor_carries_every_key_column<C: TestDb>()
where
    A_asc__ID_asc: Walk<C, Filter = i32>,
    crate::models::NA_asc_nulls_last__ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::NA_asc_nulls_last__ID_asc;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;
    let mut db = C::open();
    db.insert_rows(&rows_with_a(&[
        (1, 30),
        (2, 10),
        (3, 50),
        (4, 20),
        (5, 60),
        (6, 40),
    ]));
    assert_eq!(
        pages::<A_asc__ID_asc, C>(&mut db, 2),
        vec![(vec![2, 4], true), (vec![1, 6], true), (vec![3, 5], false)]
    );
    let codec = test_codec(Arc::new(AtomicU64::new(1_800_000_000)));
    let null_cursor = Cursor::<NA_asc_nulls_last__ID_asc>::after((None, 7));
    let token = codec.encode(&null_cursor, &()).unwrap();
    assert_eq!(
        codec.decode::<NA_asc_nulls_last__ID_asc>(&token, &()),
        Ok(null_cursor)
    );
    let one_column = codec.encode(&Cursor::<ID_asc>::after((7,)), &()).unwrap();
    assert!(codec.decode::<A_asc__ID_asc>(&one_column, &()).is_err());
}

/// Tokens record the direction: `paginate` follows it; `paginate_after` / `paginate_before`
/// use only the key (a backward token used forward reads the rows after its key).
pub fn tokens_record_the_direction<C: TestDb>()
where
    ID_asc: Walk<C, Filter = i32>,
{
    use crate::models::Read;
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;
    let mut db = C::open();
    db.insert_rows(&(1..=6).map(Row::new).collect::<Vec<_>>());
    let codec = test_codec(Arc::new(AtomicU64::new(1_800_000_000)));
    let last = read::<ID_asc, C>(&mut db, None, Read::backward(2));
    assert_eq!(page_ids(&last), [5, 6]);
    let start = last.start_cursor.clone().expect("previous page");
    assert_eq!(start.direction, keyset_diesel::Direction::Backward);
    let token = codec.encode(&start, &"t").unwrap();
    let decoded = codec.decode::<ID_asc>(&token, &"t").unwrap();
    assert_eq!(decoded, start);
    let backward = if decoded.direction == keyset_diesel::Direction::Backward {
        Read::backward(2)
    } else {
        Read::forward(2)
    };
    assert_eq!(
        page_ids(&read::<ID_asc, C>(&mut db, Some(decoded.clone()), backward)),
        [3, 4]
    );
    // The same backward cursor read forward: the rows after its key (5).
    assert_eq!(
        page_ids(&read::<ID_asc, C>(&mut db, Some(decoded), Read::forward(2))),
        [6]
    );
}
