//! What one request to a stored export may cost: a page holds at most the store's byte budget
//! of stored rows (at least one row), and a creation stores at most the store's row limit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use keyset_diesel::export::{ExportError, Purged};

use super::{ev, ids, store, Ev, Reader, SharedDb};

/// The size of `row` as the store keeps it: its JSON, in bytes.
fn stored_bytes(row: &Ev) -> usize {
    serde_json::to_string(row).expect("JSON").len()
}

/// The pages a byte budget of `max_bytes` and a page size of `page_size` make of `rows`: each
/// page the longest run of rows (at most `page_size`) whose stored sizes add up to at most
/// `max_bytes`, and at least one row.
fn expected_pages(rows: &[Ev], page_size: usize, max_bytes: usize) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut rest = rows;
    while !rest.is_empty() {
        let (mut n, mut bytes) = (0, 0);
        while n < rest.len() && n < page_size {
            bytes += stored_bytes(&rest[n]);
            if n > 0 && bytes > max_bytes {
                break;
            }
            n += 1;
        }
        pages.push(ids(&rest[..n]));
        rest = &rest[n..];
    }
    pages
}

/// A stored export read under a byte budget (`max_page_bytes`): every page, from the first
/// and from each token, holds the longest run of rows whose stored JSON fits the budget (at
/// most the page size), a row bigger than the budget comes alone, a page cut by bytes has a
/// next token that starts with the first row left out, and the walk yields every row once, in
/// order. The rows' messages are of mixed sizes and partly two-byte characters, so a budget
/// that counted characters rather than bytes would cut elsewhere.
pub fn stored_export_pages_keep_the_byte_budget<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let lens = [
        40, 400, 10, 1_500, 90, 250, 700, 5, 300, 300, 300, 2_000, 20, 20,
    ];
    let rows: Vec<Ev> = (0..28u32)
        .map(|n| {
            let mut row = ev("W1", n, i64::from(n));
            let len = lens[n as usize % lens.len()];
            row.message = if n % 3 == 0 {
                "é".repeat(len)
            } else {
                "m".repeat(len)
            };
            row
        })
        .collect();
    conn.insert_evs(&rows).expect("insert");
    let rows = conn.load_evs("W1").expect("load");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let max_bytes = 1_000;
    let store = store(&now).max_page_bytes(max_bytes);
    let reader = &mut R::open(&shared);
    let export = reader
        .create(&store, "W1", &mut || C::ev_query("W1"))
        .expect("create");
    assert_eq!(export.rows, 28);

    for page_size in [1_000u32, 3] {
        let expected = expected_pages(&rows, page_size as usize, max_bytes);
        let mut pages: Vec<Vec<String>> = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = reader
                .page(&store, &export.id, "W1", token.as_deref(), page_size)
                .expect("page");
            let delivered: usize = pages.iter().map(Vec::len).sum();
            assert_eq!(page.first_position, delivered as u64 + 1);
            assert_eq!(page.total, 28);
            let bytes: usize = page.items.iter().map(stored_bytes).sum();
            assert!(
                page.items.len() == 1 || bytes <= max_bytes,
                "page size {page_size}: {bytes} bytes in {} rows",
                page.items.len()
            );
            pages.push(ids(&page.items));
            match page.next_token {
                Some(next) => token = Some(next),
                None => break,
            }
        }
        assert_eq!(pages, expected, "page size {page_size}");
        assert!(
            pages.iter().any(|p| p.len() == 1) && pages.iter().any(|p| p.len() >= 2),
            "page size {page_size}: {pages:?}"
        );
        assert_eq!(pages.concat(), ids(&rows), "every row once, in order");
    }

    // A budget of 0 bytes: one row a page; a budget above the export: the page size alone.
    let one = store.clone().max_page_bytes(0);
    let page = reader
        .page(&one, &export.id, "W1", None, 1_000)
        .expect("page");
    assert_eq!((page.items.len(), page.next_token.is_some()), (1, true));
    let all = store.clone().max_page_bytes(usize::MAX);
    let page = reader
        .page(&all, &export.id, "W1", None, 1_000)
        .expect("page");
    assert_eq!((page.items.len(), page.next_token), (28, None));
}

/// A creation over the store's row limit (`max_rows`) is `TooManyRows` (422) and stores
/// nothing: it checks each page of its walk before storing it, so with pages of 5 and a limit
/// of 12 it reads three pages of the 30 rows, copies the first two (10 rows, never one past
/// the limit) and rolls back. An export of exactly the limit is created.
pub fn stored_export_refuses_more_rows_than_max_rows<C: SharedDb, R: Reader<C>>() {
    use diesel::connection::InstrumentationEvent;
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..30).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let pages_of_5 = store(&now).create_page_size(5);
    let make = &mut || C::ev_query("W1");

    // The creating connection counts its reads of the source and its inserts of rows.
    let reader = &mut R::open(&shared);
    let (reads, inserts) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (r, i) = (reads.clone(), inserts.clone());
    reader.instrument(move |event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            let sql = query.to_string();
            if sql.starts_with("INSERT") && sql.contains("keyset_export_rows") {
                i.fetch_add(1, Ordering::SeqCst);
            } else if sql.starts_with("SELECT") && sql.contains("message") {
                // A page of the source (not the catalog read MySQL's index check makes).
                r.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    let refused = reader
        .create(&pages_of_5.clone().max_rows(12), "W1", make)
        .expect_err("over the limit");
    assert!(
        matches!(refused, ExportError::TooManyRows { limit: 12 }),
        "{refused:?}"
    );
    let problem = keyset_diesel::web::Problem::from(&refused);
    assert_eq!(
        (problem.status, problem.code.as_str()),
        (422, "export_too_large")
    );
    assert_eq!(
        (reads.load(Ordering::SeqCst), inserts.load(Ordering::SeqCst)),
        (3, 2),
        "three pages of 5 read, two stored (10 rows), then refused"
    );

    // A limit below a creation page: the walk reads one row past it, never a whole page.
    let (before_reads, before_inserts) =
        (reads.load(Ordering::SeqCst), inserts.load(Ordering::SeqCst));
    let small = pages_of_5.clone().create_page_size(1_000).max_rows(3);
    let refused = reader.create(&small, "W1", make).expect_err("over 3");
    assert!(
        matches!(refused, ExportError::TooManyRows { limit: 3 }),
        "{refused:?}"
    );
    assert_eq!(
        (
            reads.load(Ordering::SeqCst) - before_reads,
            inserts.load(Ordering::SeqCst) - before_inserts
        ),
        (1, 0),
        "one read of 4 rows, nothing stored"
    );

    // Exactly the limit: created, whole.
    let fits = reader
        .create(&pages_of_5.clone().max_rows(30), "W1", make)
        .expect("30 rows fit a limit of 30");
    assert_eq!(fits.rows, 30);
    let empty = reader
        .create(&pages_of_5.clone().max_rows(0), "W0", &mut || {
            C::ev_query("W0")
        })
        .expect("no rows fit a limit of 0");
    assert_eq!(empty.rows, 0);

    // The refused creations left nothing: a purge after every export's end finds only the two.
    let later = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000 + 7_200));
    let purged = reader.purge(&store(&later)).expect("purge");
    assert_eq!(
        purged,
        Purged {
            exports: 2,
            rows: 30
        }
    );
}
