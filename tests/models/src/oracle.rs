//! The oracle: walking all pages must give exactly the rows of the same query with a plain
//! `ORDER BY` and no `LIMIT`: no gap, no duplicate, same order.

use keyset_diesel::{Cursor, Keyset, Page};

use crate::models::{Oracle, OrderTerm, Walk};
use crate::TestDb;

/// A walk next to what the oracle says.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// Ids in page order.
    pub walked: Vec<i64>,
    /// Ids of the plain `ORDER BY` query.
    pub expected: Vec<i64>,
    /// Pages read (queries run).
    pub pages: usize,
}

/// Every page of `M` with `filter`, checking the page invariants on the way:
/// at most `page_size` rows; `has_more` iff a next cursor; a page with `has_more` is full and
/// its cursor is the key of its last row; the walk ends.
pub fn walk_pages<M, C>(
    conn: &mut C,
    filter: &M::Filter,
    page_size: u32,
    boxed: bool,
) -> Vec<Page<M>>
where
    M: Walk<C>,
{
    let mut pages = Vec::new();
    let mut cursor: Option<Cursor<M>> = None;
    loop {
        let page = M::page(conn, filter, cursor.take(), page_size, boxed)
            .unwrap_or_else(|e| panic!("page {} failed: {e}", pages.len() + 1));
        check_page(&page, page_size);
        cursor = page.next_cursor();
        pages.push(page);
        if cursor.is_none() {
            return pages;
        }
        assert!(pages.len() < 100_000, "the walk does not end");
    }
}

/// The invariants every page holds.
pub fn check_page<M: Keyset>(page: &Page<M>, page_size: u32) {
    assert!(
        page.items.len() <= page_size as usize,
        "page longer than page_size"
    );
    assert_eq!(page.page_size, page_size);
    assert_eq!(
        page.has_more(),
        page.next_cursor().is_some(),
        "has_more iff next_cursor"
    );
    if let Some(cursor) = &page.next_cursor() {
        assert_eq!(
            page.items.len(),
            page_size as usize,
            "a page with more after it is full"
        );
        let last = page.items.last().expect("a page with a cursor has rows");
        assert_eq!(
            cursor.key,
            last.key(),
            "the cursor is the last row delivered"
        );
    }
}

/// Walks `M` and runs the oracle query for the same filter.
pub fn walk_and_compare<M, C>(conn: &mut C, tenant: &i32, page_size: u32, boxed: bool) -> Compared
where
    M: Walk<C, Filter = i32> + Oracle,
    C: TestDb,
{
    let pages = walk_pages::<M, C>(conn, tenant, page_size, boxed);
    let walked: Vec<i64> = pages
        .iter()
        .flat_map(|p| p.items.iter().map(M::id))
        .collect();
    let expected = conn.ids(&oracle_sql::<M, C>(&tenant.to_string()));
    Compared {
        walked,
        expected,
        pages: pages.len(),
    }
}

/// `SELECT id FROM <table> WHERE <filter column> = <value> ORDER BY <model's order>`.
pub fn oracle_sql<M: Oracle, C: TestDb>(filter_value_sql: &str) -> String {
    format!(
        "SELECT id FROM {} WHERE {} = {} ORDER BY {}",
        M::TABLE,
        M::FILTER_COLUMN,
        filter_value_sql,
        order_sql::<C>(M::ORDER)
    )
}

/// `ORDER BY` text for declared terms on backend `C`: `NULLS FIRST/LAST` where the backend
/// has the syntax, a leading `col IS NULL` term where it does not (MySQL).
pub fn order_sql<C: TestDb>(terms: &[OrderTerm]) -> String {
    terms
        .iter()
        .map(|&(col, dir, nulls)| match nulls {
            None => format!("{col} {dir}"),
            Some(nulls) if C::NULLS_SYNTAX => {
                let place = if nulls == "nulls_first" {
                    "NULLS FIRST"
                } else {
                    "NULLS LAST"
                };
                format!("{col} {dir} {place}")
            }
            Some(nulls) => {
                let first = if nulls == "nulls_first" {
                    "DESC"
                } else {
                    "ASC"
                };
                format!("{col} IS NULL {first}, {col} {dir}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Asserts a comparison: same ids, same order, nothing twice.
pub fn assert_matches(c: &Compared, context: &str) {
    let mut seen = std::collections::HashSet::new();
    for id in &c.walked {
        assert!(seen.insert(id), "{context}: id {id} delivered twice");
    }
    assert_eq!(
        c.walked, c.expected,
        "{context}: walk differs from ORDER BY"
    );
}

/// Every cursor of a walk of `M` survives a token round trip exactly
/// (`decode(encode(c)) == c`), and the seek from the decoded cursor returns the same next page
/// from the database as the original cursor. Returns the number of cursors checked.
pub fn token_round_trips<M, C>(conn: &mut C, filter: &M::Filter, page_size: u32) -> usize
where
    M: Walk<C> + Oracle,
{
    let codec = test_codec(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(
        1_800_000_000,
    )));
    let scope = ("typed", page_size);
    let mut checked = 0;
    for page in walk_pages::<M, C>(conn, filter, page_size, false) {
        let Some(cursor) = page.next_cursor() else {
            continue;
        };
        let token = codec.encode(&cursor, &scope).expect("encode");
        let decoded = codec.decode::<M>(&token, &scope).expect("decode");
        assert_eq!(decoded, cursor, "token round trip");
        let ids = |c: Cursor<M>, conn: &mut C| -> Vec<i64> {
            M::page(conn, filter, Some(c), page_size, false)
                .expect("page")
                .items
                .iter()
                .map(M::id)
                .collect()
        };
        assert_eq!(ids(decoded, conn), ids(cursor, conn));
        checked += 1;
    }
    checked
}

/// A codec for tests, its clock at `now` (Unix seconds) and a 10-minute time to live.
pub fn test_codec(now: std::sync::Arc<std::sync::atomic::AtomicU64>) -> keyset_diesel::CursorCodec {
    use std::time::{Duration, UNIX_EPOCH};
    keyset_diesel::CursorCodec::builder()
        .signing_key(
            keyset_diesel::token::SecretKey::new(1, b"keyset tests: not a real secret!").unwrap(),
        )
        .ttl(Duration::from_secs(600))
        .clock(move || {
            UNIX_EPOCH + Duration::from_secs(now.load(std::sync::atomic::Ordering::SeqCst))
        })
        .build()
        .unwrap()
}
