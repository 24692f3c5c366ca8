//! A stored export's scope and bounds: two scopes stay apart and a token is bound to its
//! export; ending needs the export's own scope; ids, page sizes and lifetimes are checked
//! before any statement.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use keyset_diesel::export::{ExportError, ExportStore};
use keyset_diesel::token::{CursorError, SecretKey};
use keyset_diesel::CursorCodec;

use super::{ev, read_export, store, Ev, Reader, SharedDb};

/// Two exports of different scopes created at the same time on two connections hold only
/// their own rows, and a page token of one export is refused for the other.
pub fn stored_exports_of_two_scopes<C: SharedDb, R: Reader<C> + 'static>() {
    let shared = Arc::new(C::shared());
    let conn = &mut shared.connect();
    let w1: Vec<Ev> = (0..40).map(|n| ev("W1", n, i64::from(n / 3))).collect();
    let w2: Vec<Ev> = (0..25).map(|n| ev("W2", n, i64::from(n / 2))).collect();
    conn.insert_evs(&w1).expect("insert");
    conn.insert_evs(&w2).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now);
    let creators: Vec<_> = ["W1", "W2"]
        .into_iter()
        .map(|ws| {
            let (shared, store) = (shared.clone(), store.clone());
            std::thread::spawn(move || {
                R::open(&shared)
                    .create(&store, ws, &mut || C::ev_query(ws))
                    .expect("create")
            })
        })
        .collect();
    let exports: Vec<_> = creators
        .into_iter()
        .map(|t| t.join().expect("creator"))
        .collect();
    let (e1, e2) = (&exports[0], &exports[1]);
    assert_eq!((e1.rows, e2.rows), (40, 25));
    let r1 = read_export::<C, R>(&shared, &store, &e1.id, "W1", 6, |_| {});
    let r2 = read_export::<C, R>(&shared, &store, &e2.id, "W2", 6, |_| {});
    assert_eq!(r1, conn.load_evs("W1").expect("W1"));
    assert_eq!(r2, conn.load_evs("W2").expect("W2"));

    // A token of export 1 is refused for export 2 (same scope value or not).
    let reader = &mut R::open(&shared);
    let token = reader
        .page(&store, &e1.id, "W1", None, 6)
        .expect("page")
        .next_token
        .expect("a next page");
    let refused = reader
        .page(&store, &e2.id, "W2", Some(&token), 6)
        .expect_err("token of another export");
    assert!(
        matches!(refused, ExportError::Cursor(CursorError::ScopeMismatch)),
        "{refused:?}"
    );
    assert_eq!(keyset_diesel::web::Problem::from(&refused).status, 400);
    // Export 1 read under export 2's scope is unknown, with or without its own token.
    let wrong = reader
        .page(&store, &e1.id, "W2", Some(&token), 6)
        .expect_err("wrong scope");
    assert!(matches!(wrong, ExportError::Unknown), "{wrong:?}");
}

/// A stored export is ended only under its own scope (`expire` with another
/// scope is `Unknown` and changes nothing; `expire_unscoped` is the operator's form), an id
/// that is not the store's format is `Unknown` before any statement runs, a page size above
/// the store's maximum is `PageSize(TooLarge)` (or the maximum with a clamping policy), and a
/// lifetime of 0 or above the store's maximum is `InvalidLifetime` before anything is stored.
pub fn stored_export_is_scoped_and_bounded<C: SharedDb, R: Reader<C>>() {
    use diesel::connection::InstrumentationEvent;
    use keyset_diesel::export::MAX_EXPORT_LIFETIME;
    use keyset_diesel::web::{PageSizeError, PageSizePolicy};
    let shared = Arc::new(C::shared());
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..12).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now);
    let make = &mut || C::ev_query("W1");
    let conn = &mut R::open(&shared);
    let export = conn.create(&store, "W1", make).expect("create");
    let page = |store: &ExportStore, conn: &mut R, id: &str, size: u32| {
        conn.page(store, id, "W1", None, size)
    };

    // Another scope cannot end it, nor learn that it exists.
    let refused = conn
        .expire(&store, &export.id, "W2")
        .expect_err("another scope");
    assert!(matches!(refused, ExportError::Unknown), "{refused:?}");
    assert_eq!(
        page(&store, conn, &export.id, 5)
            .expect("still readable")
            .total,
        12
    );
    let unknown = conn
        .expire(&store, "0123456789abcdef0123456789abcdef", "W1")
        .expect_err("no such export");
    assert!(matches!(unknown, ExportError::Unknown), "{unknown:?}");

    // Ids that are not the store's own format are refused before any statement.
    let mut counted = R::open(&shared);
    let statements = Arc::new(AtomicUsize::new(0));
    let seen = statements.clone();
    counted.instrument(move |event: InstrumentationEvent<'_>| {
        if matches!(event, InstrumentationEvent::StartQuery { .. }) {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    });
    for id in [
        "",
        "0123456789ABCDEF0123456789ABCDEF",
        "0123456789abcdef0123456789abcde",
        "0123456789abcdef0123456789abcdef ",
        "' OR '1'='1",
        "../../etc/passwd",
    ] {
        let before = statements.load(Ordering::SeqCst);
        let read = page(&store, &mut counted, id, 5).expect_err("not an export id");
        assert!(matches!(read, ExportError::Unknown), "{id:?}: {read:?}");
        let ended = counted.expire(&store, id, "W1").expect_err("not an id");
        assert!(matches!(ended, ExportError::Unknown), "{id:?}: {ended:?}");
        assert!(!counted.expire_unscoped(&store, id).expect("unscoped"));
        assert_eq!(
            statements.load(Ordering::SeqCst),
            before,
            "{id:?}: no statement"
        );
    }

    // Page sizes: at most the policy's maximum.
    let too_large = page(&store, conn, &export.id, 1_001).expect_err("over the maximum");
    assert!(
        matches!(
            too_large,
            ExportError::PageSize(PageSizeError::TooLarge { max: 1000 })
        ),
        "{too_large:?}"
    );
    assert_eq!(keyset_diesel::web::Problem::from(&too_large).status, 400);
    let huge = page(&store, conn, &export.id, u32::MAX).expect_err("u32::MAX");
    assert!(matches!(huge, ExportError::PageSize(_)), "{huge:?}");
    assert_eq!(
        page(&store, conn, &export.id, 1_000)
            .expect("the maximum")
            .items
            .len(),
        12
    );
    let small = PageSizePolicy::new(2, 5).expect("policy");
    let clamped = store.clone().page_sizes(small.clamping());
    let first = page(&clamped, conn, &export.id, 1_000).expect("clamped");
    assert_eq!((first.items.len(), first.next_token.is_some()), (5, true));
    let rejecting = store.clone().page_sizes(small);
    assert!(matches!(
        page(&rejecting, conn, &export.id, 6),
        Err(ExportError::PageSize(PageSizeError::TooLarge { max: 5 }))
    ));

    // Lifetimes: refused before anything is stored.
    let codec = || {
        CursorCodec::builder()
            .signing_key(SecretKey::new(1, &[7; 32]).expect("key"))
            .build()
            .expect("codec")
    };
    for (ttl, max) in [
        (Duration::MAX, MAX_EXPORT_LIFETIME),
        (Duration::ZERO, MAX_EXPORT_LIFETIME),
        (
            MAX_EXPORT_LIFETIME + Duration::from_secs(1),
            MAX_EXPORT_LIFETIME,
        ),
        (Duration::from_secs(3600), Duration::from_secs(60)),
    ] {
        let bad = ExportStore::new(codec(), ttl).max_lifetime(max);
        let refused = conn
            .create(&bad, "W1", make)
            .expect_err("lifetime out of bounds");
        assert!(
            matches!(refused, ExportError::InvalidLifetime { requested_secs, max_secs }
                if requested_secs == ttl.as_secs() && max_secs == max.as_secs()),
            "{ttl:?}: {refused:?}"
        );
        assert_eq!(keyset_diesel::web::Problem::from(&refused).status, 500);
    }
    let ok = conn
        .create(&ExportStore::new(codec(), MAX_EXPORT_LIFETIME), "W1", make)
        .expect("the maximum lifetime");
    assert_eq!(ok.expires_at - ok.created_at, MAX_EXPORT_LIFETIME.as_secs());

    // The owner ends it; the operator's form reports whether an id existed.
    conn.expire(&store, &export.id, "W1").expect("expire");
    assert!(matches!(
        page(&store, conn, &export.id, 5),
        Err(ExportError::Expired { .. })
    ));
    assert!(conn.expire_unscoped(&store, &ok.id).expect("unscoped"));
    assert!(!conn
        .expire_unscoped(&store, "0123456789abcdef0123456789abcdef")
        .expect("unscoped"));
}
