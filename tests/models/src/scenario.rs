//! The oracle as a property test: random tables of 0-500 rows with heavy ties (values from
//! small domains) and NULLs at a density of 0%, 10%, 50% or 100%, and a random lookup table
//! joined to them; a random keyset of 1-4 columns in every direction combination and NULL
//! placement (one of [`TestDb::row_models`]: [`ROW_MODELS`](crate::models::ROW_MODELS), with MySQL's unsigned keys on
//! MySQL, PostgreSQL's UUID and native enum keys on PostgreSQL) over integers, text,
//! timestamps, booleans, doubles and floats (one ulp apart, both zeros, the extremes, the
//! infinities where stored), decimals, bytes, times of day, the `time` crate's timestamp and
//! nullable date, a newtype, expressions
//! (`lower(b)`, `coalesce(na, 1)`, `lower(nb)`) and the joined table's columns; a random page
//! size 1-50, a tenant filter, boxed or unboxed queries, exact flags or not, deferred join or
//! direct seek (or the backend's default), one seek or one union arm per key level
//! (`seek_per_level`), the seek as a row value or expanded (`expanded_seek`), with the total
//! count or without. For each case:
//!
//! 1. walking forward from the first page gives exactly the plain `ORDER BY` query's rows;
//! 2. walking backward from the last page (`paginate_before(None)`, then each page's
//!    `start_cursor`) gives the same pages in reverse: the exact reverse of the forward walk;
//! 3. a random walk mixing forward and backward steps gives, at every step, exactly the window
//!    of the ordered rows next to the cursor, with the flags the Relay contract promises;
//! 4. opened at a row (first, middle, last): the page from it inclusive, the page up to it
//!    inclusive and the page around it (`Page::around`) are exactly their windows.

use crate::db::OracleDb;
use crate::models::{Oracle, Read, Walk};
use crate::oracle::oracle_sql;
use crate::TestDb;
use keyset_diesel::{Cursor, Keyset, Page};

/// One case's walk parameters.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub tenant: i32,
    pub page_size: u32,
    pub boxed: bool,
    pub exact: bool,
    /// `.deferred_join(..)`, `None` for the backend's default.
    pub deferred: Option<bool>,
    /// `.seek_per_level(..)`: one union arm per key level.
    pub per_level: bool,
    /// `.expanded_seek(..)`: the expanded form where the backend would write a row value.
    pub expanded: bool,
    /// `.with_total_count()`: every page's `total_count` is the oracle's row count.
    pub total: bool,
    /// Random walk: `true` a step forward (from `end_cursor`), `false` backward (from
    /// `start_cursor`).
    pub steps: Vec<bool>,
}

fn ids<M: Oracle + Keyset>(page: &Page<M>) -> Vec<i64> {
    page.items.iter().map(M::id).collect()
}

/// Checks a page read at window `[lo, hi)` of `expected`; `from_cursor` says whether the read
/// had a cursor.
fn check_window<M: Oracle + Keyset>(
    page: &Page<M>,
    expected: &[i64],
    lo: usize,
    hi: usize,
    how: Read,
    from_cursor: bool,
    what: &str,
) {
    assert_eq!(ids(page), expected[lo..hi], "{what}: rows");
    let len = expected.len();
    // The total count: the count of the filtered query, the same on every page, empty pages
    // included.
    let count = i64::try_from(len).expect("a small table");
    assert_eq!(
        page.total_count,
        how.total.then_some(count),
        "{what}: total_count"
    );
    let (exact_prev, exact_next) = (lo > 0, hi < len);
    if how.backward {
        assert_eq!(
            page.has_previous_page, exact_prev,
            "{what}: has_previous_page"
        );
        let next = if how.exact || !from_cursor {
            exact_next
        } else {
            true
        };
        assert_eq!(page.has_next_page, next, "{what}: has_next_page");
        assert_eq!(page.has_more(), page.has_previous_page, "{what}: has_more");
        let walk_on = page.start_cursor.clone().filter(|_| page.has_more());
        assert_eq!(page.next_cursor(), walk_on, "{what}: next_cursor");
    } else {
        assert_eq!(page.has_next_page, exact_next, "{what}: has_next_page");
        let prev = if how.exact || !from_cursor {
            exact_prev
        } else {
            true
        };
        assert_eq!(page.has_previous_page, prev, "{what}: has_previous_page");
        assert_eq!(page.has_more(), page.has_next_page, "{what}: has_more");
        let walk_on = page.end_cursor.clone().filter(|_| page.has_more());
        assert_eq!(page.next_cursor(), walk_on, "{what}: next_cursor");
    }
    // Edge pages keep the Relay cursors whenever the page has rows, whatever the flags say.
    assert_eq!(
        page.start_cursor.is_some(),
        !page.items.is_empty(),
        "{what}: start_cursor"
    );
    assert_eq!(
        page.end_cursor.is_some(),
        !page.items.is_empty(),
        "{what}: end_cursor"
    );
    if let (Some(c), Some(first)) = (&page.start_cursor, page.items.first()) {
        assert_eq!(c, &Cursor::before(first.key()), "{what}: start_cursor key");
    }
    if let (Some(c), Some(last)) = (&page.end_cursor, page.items.last()) {
        assert_eq!(c, &Cursor::after(last.key()), "{what}: end_cursor key");
    }
}

/// Runs `scenario` for model `M` on the rows already in `keyset_rows`; panics with the first
/// difference from the oracle.
pub fn run_scenario<M, C>(conn: &mut C, s: &Scenario) -> Result<(), String>
where
    M: Walk<C, Filter = i32> + Oracle,
    C: OracleDb,
{
    let expected = conn
        .db()
        .ids(&oracle_sql::<M, C::Db>(&s.tenant.to_string()));
    let n = s.page_size as usize;
    let len = expected.len();
    let how = |backward| Read {
        page_size: s.page_size,
        boxed: s.boxed,
        backward,
        exact: s.exact,
        deferred: s.deferred,
        per_level: s.per_level,
        expanded: s.expanded,
        max_bytes: None,
        total: s.total,
        inclusive: false,
    };
    let read = |conn: &mut C, cursor, backward| {
        M::read(conn, &s.tenant, cursor, how(backward)).map_err(|e| e.to_string())
    };
    let read_inclusive = |conn: &mut C, cursor, backward| {
        let how = Read {
            inclusive: true,
            ..how(backward)
        };
        M::read(conn, &s.tenant, cursor, how).map_err(|e| e.to_string())
    };
    let mut keys: Vec<M::Key> = Vec::new();

    // 1. Forward from the first page.
    let mut cursor = None;
    let mut lo = 0;
    loop {
        let had_cursor = cursor.is_some();
        let page = read(conn, cursor.take(), false)?;
        let hi = (lo + n).min(len);
        check_window(
            &page,
            &expected,
            lo,
            hi,
            how(false),
            had_cursor,
            "forward walk",
        );
        keys.extend(page.items.iter().map(Keyset::key));
        match page.next_cursor() {
            Some(c) => cursor = Some(c),
            None => break,
        }
        lo = hi;
    }

    // 2. Backward from the last page: the exact reverse.
    let mut cursor = None;
    let mut hi = len;
    let mut backward_pages: Vec<Vec<i64>> = Vec::new();
    loop {
        let had_cursor = cursor.is_some();
        let page = read(conn, cursor.take(), true)?;
        let lo = hi.saturating_sub(n);
        check_window(
            &page,
            &expected,
            lo,
            hi,
            how(true),
            had_cursor,
            "backward walk",
        );
        backward_pages.push(ids(&page));
        match page.next_cursor() {
            Some(c) => cursor = Some(c),
            None => break,
        }
        hi = lo;
    }
    let reversed: Vec<i64> = backward_pages.into_iter().rev().flatten().collect();
    assert_eq!(reversed, expected, "backward walk reversed");

    // 3. A random walk from the first page.
    let mut page = read(conn, None, false)?;
    let (mut lo, mut hi): (usize, usize) = (0, n.min(len));
    for (i, &forward) in s.steps.iter().enumerate() {
        let what = format!(
            "random step {i} ({})",
            if forward { "next" } else { "previous" }
        );
        // A step only where the flag says there are rows (the edge pages' cursors alone do not).
        let next = if forward {
            page.end_cursor.clone().filter(|_| page.has_next_page)
        } else {
            page.start_cursor.clone().filter(|_| page.has_previous_page)
        };
        let Some(cursor) = next else { continue };
        page = read(conn, Some(cursor), !forward)?;
        (lo, hi) = if forward {
            (hi, (hi + n).min(len))
        } else {
            (lo.saturating_sub(n), lo)
        };
        check_window(&page, &expected, lo, hi, how(!forward), true, &what);
    }

    // 4. Opened at a row (the first, the middle, the last): from it inclusive forward, up to
    //    it inclusive backward, and the page around it (the page before it joined to the page
    //    from it), each exactly its window with exact flags in the walk's direction.
    let mut at: Vec<usize> = [0, len / 2, len.saturating_sub(1)].into();
    at.dedup();
    for i in at.into_iter().filter(|&i| i < len) {
        let key = keys[i].clone();
        let from = read_inclusive(conn, Some(Cursor::after(key.clone())), false)?;
        let from_how = Read {
            inclusive: true,
            ..how(false)
        };
        let what = format!("from row {i} inclusive");
        check_window(&from, &expected, i, (i + n).min(len), from_how, true, &what);
        let upto = read_inclusive(conn, Some(Cursor::before(key.clone())), true)?;
        let upto_how = Read {
            inclusive: true,
            ..how(true)
        };
        let what = format!("up to row {i} inclusive");
        check_window(
            &upto,
            &expected,
            (i + 1).saturating_sub(n),
            i + 1,
            upto_how,
            true,
            &what,
        );
        let before = read(conn, Some(Cursor::before(key)), true)?;
        let around = Page::around(before, from);
        let (lo, hi) = (i.saturating_sub(n), (i + n).min(len));
        let what = format!("around row {i}");
        assert_eq!(ids(&around), expected[lo..hi], "{what}: rows");
        assert_eq!(
            (around.has_previous_page, around.has_next_page),
            (lo > 0, hi < len),
            "{what}: flags"
        );
        if let (Some(first), Some(last)) = (around.items.first(), around.items.last()) {
            assert_eq!(
                around.start_cursor,
                Some(Cursor::before(first.key())),
                "{what}"
            );
            assert_eq!(around.end_cursor, Some(Cursor::after(last.key())), "{what}");
        }
    }
    Ok(())
}
