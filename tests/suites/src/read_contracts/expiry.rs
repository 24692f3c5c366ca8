//! The end of a stored export: expiry (410) until purged, then unknown (404), and a page read
//! while the export is purged between its two statements.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use keyset_diesel::export::{ExportError, Purged};

use super::{ev, ids, store, Ev, Reader, SharedDb};

/// An expired export fails with the typed error (410) until purged, then it is unknown
/// (404); purging removes its rows; another scope or a made-up id is unknown.
pub fn stored_export_expires_and_is_purged<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..12).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now);
    let make = &mut || C::ev_query("W1");
    let reader = &mut R::open(&shared);
    let a = reader.create(&store, "W1", make).expect("create a");
    let b = reader.create(&store, "W1", make).expect("create b");
    assert_ne!(a.id, b.id);
    let page = |reader: &mut R, id: &str, scope: &str| reader.page(&store, id, scope, None, 5);
    let first = page(reader, &a.id, "W1").expect("page");
    assert_eq!((first.items.len(), first.total), (5, 12));
    let other_scope = page(reader, &a.id, "W2").expect_err("another scope");
    assert!(
        matches!(other_scope, ExportError::Unknown),
        "{other_scope:?}"
    );
    let unknown = page(reader, "0123456789abcdef0123456789abcdef", "W1").expect_err("unknown");
    assert_eq!(keyset_diesel::web::Problem::from(&unknown).status, 404);

    // `expire` ends b now; a expires with time.
    reader.expire(&store, &b.id, "W1").expect("expire");
    let expired = page(reader, &b.id, "W1").expect_err("expired");
    assert!(
        matches!(expired, ExportError::Expired { .. }),
        "{expired:?}"
    );
    assert_eq!(keyset_diesel::web::Problem::from(&expired).status, 410);
    assert!(page(reader, &a.id, "W1").is_ok());
    now.store(a.expires_at, Ordering::Relaxed);
    let expired = page(reader, &a.id, "W1").expect_err("expired");
    assert!(matches!(expired, ExportError::Expired { expired_at } if expired_at == a.expires_at));

    let c = reader.create(&store, "W1", make).expect("create c");
    assert_eq!(
        reader.purge(&store).expect("purge"),
        Purged {
            exports: 2,
            rows: 24
        }
    );
    assert_eq!(reader.purge(&store).expect("purge"), Purged::default());
    for id in [&a.id, &b.id] {
        let gone = page(reader, id, "W1").expect_err("purged");
        assert!(matches!(gone, ExportError::Unknown), "{gone:?}");
    }
    assert_eq!(page(reader, &c.id, "W1").expect("c lives").total, 12);
}

/// A page read while the export is purged. A page is two statements (the
/// header, then the rows); the reader's connection instrumentation runs a purge on another
/// connection right after the header statement, so the purge lands between them every time.
/// The purger either shares the reader's clock and follows an operator's `expire` (both
/// between the statements), or runs a clock ahead of the reader's (the export has expired for it, not yet for the reader). Page 1 and a
/// page by token must be `Expired` (the header was still there when the reader looked again)
/// or `Unknown`, never an empty page with no next token next to the full total (what a client
/// takes for a finished download). A purge before the header is `Unknown`; one after the rows
/// leaves the page whole.
pub fn stored_export_read_meeting_a_purge<C: SharedDb, R: Reader<C>>() {
    use diesel::connection::InstrumentationEvent;
    use std::sync::Mutex;
    let shared = Arc::new(C::shared());
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..12).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let reader = store(&now);
    let ahead = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000 + 3_601));
    let purger = store(&ahead);
    let make = &mut || C::ev_query("W1");
    let conn = &mut R::open(&shared);

    /// When the purge runs: after the reader's `n`-th statement (0: before the page).
    #[derive(Debug, Clone, Copy)]
    enum Purge {
        ExpiredByOperator { after: usize },
        ClockAhead { after: usize },
    }
    for (purge, from_token) in [
        (Purge::ExpiredByOperator { after: 1 }, false),
        (Purge::ExpiredByOperator { after: 1 }, true),
        (Purge::ClockAhead { after: 1 }, false),
        (Purge::ClockAhead { after: 1 }, true),
        (Purge::ClockAhead { after: 0 }, false),
        (Purge::ClockAhead { after: 2 }, true),
    ] {
        let export = conn.create(&reader, "W1", make).expect("create");
        let token = from_token.then(|| {
            conn.page(&reader, &export.id, "W1", None, 5)
                .expect("page 1")
                .next_token
                .expect("page 2 exists")
        });
        let (after, purge_store, expire_first) = match purge {
            // The operator's `expire` and a purge on the reader's clock, both between the
            // reader's statements.
            Purge::ExpiredByOperator { after } => (after, reader.clone(), true),
            Purge::ClockAhead { after } => (after, purger.clone(), false),
        };
        let mut reading = R::open(&shared);
        let purged = Arc::new(Mutex::new(None::<Purged>));
        let statements = Arc::new(AtomicUsize::new(0));
        let hook = {
            let (shared, purged, statements) = (shared.clone(), purged.clone(), statements.clone());
            let purge_store = purge_store.clone();
            let id = export.id.clone();
            move |event: InstrumentationEvent<'_>| {
                let ran = match event {
                    InstrumentationEvent::FinishQuery { .. } => {
                        statements.fetch_add(1, Ordering::SeqCst) + 1
                    }
                    InstrumentationEvent::StartQuery { .. } => statements.load(Ordering::SeqCst),
                    _ => return,
                };
                let mut done = purged.lock().expect("lock");
                if ran == after && done.is_none() {
                    let mut other = shared.connect();
                    if expire_first {
                        purge_store
                            .expire(&mut other, &id, &("W1",))
                            .expect("expire");
                    }
                    *done = Some(purge_store.purge_expired(&mut other).expect("purge"));
                }
            }
        };
        reading.instrument(hook);
        let read = reading.page(&reader, &export.id, "W1", token.as_deref(), 5);
        let label = format!("{purge:?}, from a token: {from_token}");
        assert_eq!(
            *purged.lock().expect("lock"),
            Some(Purged {
                exports: 1,
                rows: 12
            }),
            "{label}: the purge ran during the read"
        );
        match (after, read) {
            (2, Ok(page)) => {
                assert_eq!(ids(&page.items), ids(&rows[5..10]), "{label}");
                assert_eq!(page.total, 12, "{label}");
            }
            (0, Err(ExportError::Unknown)) => {}
            (1, Err(ExportError::Expired { .. } | ExportError::Unknown)) => {}
            (_, other) => panic!("{label}: {other:?}"),
        }
    }
}

/// Ending an export only ever moves its end earlier (`expires_at = MIN(expires_at, now)`):
/// an export that expired with time, ended again by a store whose clock runs ahead (`expire`
/// and the operator's `expire_unscoped`), stays expired at its first end, and an export ended
/// early by a store whose clock runs behind keeps that earlier end when stores with later
/// clocks end it again. Each `expire` of an expired export succeeds (it exists).
pub fn stored_export_expire_never_moves_the_end_later<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..4).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let start = 1_800_000_000;
    let now = Arc::new(std::sync::atomic::AtomicU64::new(start));
    let reader = store(&now);
    let ahead = store(&Arc::new(std::sync::atomic::AtomicU64::new(
        start + 100_000,
    )));
    let behind = store(&Arc::new(std::sync::atomic::AtomicU64::new(start + 600)));
    let make = &mut || C::ev_query("W1");
    let conn = &mut R::open(&shared);
    let a = conn.create(&reader, "W1", make).expect("create a");
    let b = conn.create(&reader, "W1", make).expect("create b");
    assert_eq!(a.expires_at, start + 3_600);
    let ended_at = |conn: &mut R, id: &str| match conn.page(&reader, id, "W1", None, 2) {
        Err(ExportError::Expired { expired_at }) => expired_at,
        other => panic!("{id}: expected expired, got {other:?}"),
    };

    // a expires with time; a host whose clock runs ahead ends it again: still ended at its
    // own end, not readable again.
    now.store(start + 4_000, Ordering::Relaxed);
    assert_eq!(ended_at(conn, &a.id), a.expires_at);
    conn.expire(&ahead, &a.id, "W1")
        .expect("expire, clock ahead");
    assert_eq!(ended_at(conn, &a.id), a.expires_at);
    assert!(conn
        .expire_unscoped(&ahead, &a.id)
        .expect("expire_unscoped, clock ahead"));
    assert_eq!(ended_at(conn, &a.id), a.expires_at);

    // b is ended early by a host whose clock runs behind; later clocks keep that end.
    now.store(start + 700, Ordering::Relaxed);
    assert!(conn.page(&reader, &b.id, "W1", None, 2).is_ok());
    conn.expire(&behind, &b.id, "W1")
        .expect("expire, clock behind");
    assert_eq!(ended_at(conn, &b.id), start + 600);
    conn.expire(&reader, &b.id, "W1").expect("expire again");
    conn.expire(&ahead, &b.id, "W1")
        .expect("expire, clock ahead");
    assert!(conn.expire_unscoped(&ahead, &b.id).expect("unscoped"));
    assert_eq!(ended_at(conn, &b.id), start + 600);

    // Both are purged on the reader's clock past a's end.
    now.store(start + 4_000, Ordering::Relaxed);
    assert_eq!(
        conn.purge(&reader).expect("purge"),
        Purged {
            exports: 2,
            rows: 8
        }
    );
}
