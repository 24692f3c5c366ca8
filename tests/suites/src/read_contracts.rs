//! The read contracts of docs/READ_CONTRACTS.md under concurrent writers: a walk with a
//! high-water mark, a snapshot export, a stored export. Each test opens one database that
//! several connections share (a WAL-mode SQLite file, a PostgreSQL schema, a MySQL database),
//! runs writer threads on their own connections, and checks what the reader got.
//!
//! Writers are bounded by count and time, and the reader waits (briefly) for them between
//! pages, so every page is read after concurrent changes and each test ends in seconds.

use crate::at;
use diesel::connection::Instrumentation;
use diesel::QueryResult;
use keyset_diesel::export::{Export, ExportError, ExportPage, ExportStore, Purged};
use keyset_diesel::token::{CursorError, SecretKey};
use keyset_diesel::{with_read_snapshot, Cursor, CursorCodec, Keyset, Page, Walk};
pub use keyset_test_models::read_contracts::*;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift), so writers need no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n.max(1))) as u32
    }
}

/// Writer threads on their own connections, stopped (and joined) on drop or by [`Writers::stop`].
struct Writers {
    stop: Arc<AtomicBool>,
    ops: Arc<AtomicUsize>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// How long a writer may run at most, whatever the reader does.
const WRITER_TIME: Duration = Duration::from_secs(20);
/// How many operations a writer makes at most.
const WRITER_OPS: usize = 5_000;

impl Writers {
    fn new() -> Writers {
        Writers {
            stop: Arc::new(AtomicBool::new(false)),
            ops: Arc::new(AtomicUsize::new(0)),
            threads: Vec::new(),
        }
    }

    /// Starts a thread that calls `op(conn, i)` for i = 0, 1, ... until stopped, counting the
    /// calls that return `true` (a write that took effect).
    fn spawn<C, F>(&mut self, shared: &Arc<Shared<C>>, mut op: F)
    where
        C: SharedDb,
        F: FnMut(&mut C, usize) -> bool + Send + 'static,
    {
        let (stop, ops, shared) = (self.stop.clone(), self.ops.clone(), shared.clone());
        self.threads.push(std::thread::spawn(move || {
            let mut conn = shared.connect();
            let start = Instant::now();
            for i in 0..WRITER_OPS {
                if stop.load(Ordering::Relaxed) || start.elapsed() > WRITER_TIME {
                    break;
                }
                if op(&mut conn, i) {
                    ops.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }));
    }

    fn count(&self) -> usize {
        self.ops.load(Ordering::Relaxed)
    }

    /// Waits (at most 2 s) until the writers made `n` more writes: called between pages, so
    /// the next page is read after concurrent changes.
    fn wait_for(&self, n: usize) {
        self.wait_at_most(n, Duration::from_secs(2));
    }

    fn wait_at_most(&self, n: usize, limit: Duration) {
        let target = self.count() + n;
        let start = Instant::now();
        while self.count() < target && start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn stop(mut self) -> usize {
        self.halt();
        self.count()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            t.join().expect("writer thread");
        }
    }
}

impl Drop for Writers {
    fn drop(&mut self) {
        self.halt();
    }
}

/// A walk as a test asks for it.
#[derive(Debug, Clone, Default)]
pub struct WalkSpec {
    /// Start after this cursor.
    pub after: Option<Cursor<Ev>>,
    /// Rows per page.
    pub page_size: u32,
    /// Bound the walk by a high-water mark.
    pub high_water_mark: bool,
}

/// What a test sees after each item of a walk: the item and the walk's mark; it returns
/// whether to read on.
pub type OnItem<'a> = dyn FnMut(QueryResult<Page<Ev>>, Option<<Ev as Keyset>::Key>) -> bool + 'a;

/// How a read-contract test reads: the blocking API on a blocking connection (the
/// connection itself), or the async API (`keyset_diesel::async_`) on a diesel-async
/// connection to the same database, driven by a runtime of its own. Every test below runs
/// both ways, with the same data, writers and checks; set-up and the oracle's plain
/// `ORDER BY` reads stay on blocking connections.
pub trait Reader<C: SharedDb>: Sized {
    /// A new reading connection to the shared database.
    fn open(shared: &Shared<C>) -> Self;
    /// Walks `workspace`'s events (`Walk` or `async_::Walk`) until it ends or `on_item`
    /// says stop; returns the walk's cursor then.
    fn walk(
        &mut self,
        workspace: &str,
        spec: WalkSpec,
        on_item: &mut OnItem<'_>,
    ) -> Option<Cursor<Ev>>;
    /// In one read snapshot (`with_read_snapshot`): `workspace`'s events in one statement
    /// (the copy, the snapshot's first statement), then a walk of them in pages of
    /// `page_size`, calling `between` after each page.
    ///
    /// # Errors
    /// The database's.
    fn snapshot(
        &mut self,
        workspace: &str,
        page_size: u32,
        between: &mut (dyn FnMut() + Send),
    ) -> QueryResult<(Vec<Ev>, Vec<Ev>)>;
    /// `ExportStore::create` of `make_query`'s rows under `(scope,)`.
    ///
    /// # Errors
    /// The store's.
    fn create(
        &mut self,
        store: &ExportStore,
        scope: &str,
        make_query: &mut (dyn FnMut() -> C::EvQuery + Send),
    ) -> Result<Export, ExportError>;
    /// `ExportStore::page`.
    ///
    /// # Errors
    /// The store's.
    fn page(
        &mut self,
        store: &ExportStore,
        id: &str,
        scope: &str,
        token: Option<&str>,
        page_size: u32,
    ) -> Result<ExportPage<Ev>, ExportError>;
    /// `ExportStore::expire`.
    ///
    /// # Errors
    /// The store's.
    fn expire(&mut self, store: &ExportStore, id: &str, scope: &str) -> Result<(), ExportError>;
    /// `ExportStore::expire_unscoped`.
    ///
    /// # Errors
    /// The store's.
    fn expire_unscoped(&mut self, store: &ExportStore, id: &str) -> Result<bool, ExportError>;
    /// `ExportStore::purge_expired`.
    ///
    /// # Errors
    /// The store's.
    fn purge(&mut self, store: &ExportStore) -> Result<Purged, ExportError>;
    /// Instruments the reading connection.
    fn instrument(&mut self, hook: impl Instrumentation);
    /// Runs `sql` on the reading connection (a session setting).
    fn session(&mut self, sql: &str);
}

impl<C: SharedDb> Reader<C> for C {
    fn open(shared: &Shared<C>) -> Self {
        shared.connect()
    }

    fn walk(
        &mut self,
        workspace: &str,
        spec: WalkSpec,
        on_item: &mut OnItem<'_>,
    ) -> Option<Cursor<Ev>> {
        let mut walk = Walk::<Ev, _, _>::new(self, || C::ev_query(workspace))
            .after(spec.after)
            .page_size(spec.page_size);
        if spec.high_water_mark {
            walk = walk.high_water_mark();
        }
        while let Some(item) = walk.next() {
            if !on_item(item, walk.mark().cloned()) {
                break;
            }
        }
        walk.cursor().cloned()
    }

    fn snapshot(
        &mut self,
        workspace: &str,
        page_size: u32,
        between: &mut (dyn FnMut() + Send),
    ) -> QueryResult<(Vec<Ev>, Vec<Ev>)> {
        with_read_snapshot(self, |conn| {
            let copy = conn.load_evs(workspace)?;
            let mut exported = Vec::new();
            for page in Walk::<Ev, _, _>::new(conn, || C::ev_query(workspace)).page_size(page_size)
            {
                exported.extend(page?.items);
                between();
            }
            Ok((copy, exported))
        })
    }

    fn create(
        &mut self,
        store: &ExportStore,
        scope: &str,
        make_query: &mut (dyn FnMut() -> C::EvQuery + Send),
    ) -> Result<Export, ExportError> {
        store.create::<Ev, _, _, _, _>(self, &(scope,), make_query)
    }

    fn page(
        &mut self,
        store: &ExportStore,
        id: &str,
        scope: &str,
        token: Option<&str>,
        page_size: u32,
    ) -> Result<ExportPage<Ev>, ExportError> {
        store.page::<Ev, _, _>(self, id, &(scope,), token, page_size)
    }

    fn expire(&mut self, store: &ExportStore, id: &str, scope: &str) -> Result<(), ExportError> {
        store.expire(self, id, &(scope,))
    }

    fn expire_unscoped(&mut self, store: &ExportStore, id: &str) -> Result<bool, ExportError> {
        store.expire_unscoped(self, id)
    }

    fn purge(&mut self, store: &ExportStore) -> Result<Purged, ExportError> {
        store.purge_expired(self)
    }

    fn instrument(&mut self, hook: impl Instrumentation) {
        self.set_instrumentation(hook);
    }

    fn session(&mut self, sql: &str) {
        diesel::connection::SimpleConnection::batch_execute(self, sql).expect("session setting");
    }
}

fn ids(rows: &[Ev]) -> Vec<String> {
    rows.iter().map(|e| e.event_id.clone()).collect()
}

fn assert_no_duplicates(rows: &[Ev], what: &str) {
    let mut seen = HashSet::new();
    for r in rows {
        assert!(seen.insert(&r.event_id), "{what}: {} twice", r.event_id);
    }
}

/// A walk follows every page in order, resumes from its cursor, and ends with an error.
pub fn walk_all_pages_and_resume<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..23).map(|n| ev("W1", n, i64::from(n / 3))).collect();
    conn.insert_evs(&rows).expect("insert");
    conn.insert_evs(&[ev("W2", 1, 0)]).expect("insert");
    let expected = conn.load_evs("W1").expect("load");
    assert_eq!(expected.len(), 23);
    let reader = &mut R::open(&shared);
    let spec = |after, page_size| WalkSpec {
        after,
        page_size,
        high_water_mark: false,
    };

    let mut sizes = Vec::new();
    let mut walked = Vec::new();
    reader.walk("W1", spec(None, 5), &mut |page, _| {
        let page = page.expect("page");
        sizes.push(page.len());
        walked.extend(page.items);
        true
    });
    assert_eq!(sizes, [5, 5, 5, 5, 3]);
    assert_eq!(walked, expected);

    // Two pages, then a new walk after the first walk's cursor: the rest, once.
    let mut resumed: Vec<Ev> = Vec::new();
    let cursor = reader.walk("W1", spec(None, 4), &mut |page, _| {
        resumed.extend(page.expect("page").items);
        resumed.len() < 8
    });
    assert_eq!(cursor, Some(Cursor::after(expected[7].key())));
    reader.walk("W1", spec(cursor, 6), &mut |page, _| {
        resumed.extend(page.expect("page").items);
        true
    });
    assert_eq!(resumed, expected);

    // An error is yielded once and ends the walk; the cursor stays where it was.
    let mut items = Vec::new();
    let after = Some(Cursor::after(expected[2].key()));
    let cursor = reader.walk("W1", spec(after, 0), &mut |page, _| {
        items.push(page.is_err());
        true
    });
    assert_eq!(items, [true], "one item, the error, then the end");
    assert_eq!(cursor, Some(Cursor::after(expected[2].key())));

    // An empty range yields no page.
    let mut pages = 0;
    reader.walk("none", spec(None, 5), &mut |_, _| {
        pages += 1;
        true
    });
    assert_eq!(pages, 0);
}

/// A high-water walk ends while a writer keeps appending: it yields every row up to the mark
/// taken at its start exactly once and nothing after it; also when the mark's own row is
/// deleted during the walk.
pub fn walk_high_water_mark_under_appends<C: SharedDb, R: Reader<C>>() {
    for delete_mark in [false, true] {
        let shared = Arc::new(C::shared());
        let conn = &mut shared.connect();
        let rows: Vec<Ev> = (0..120).map(|n| ev("W1", n, i64::from(n / 4))).collect();
        conn.insert_evs(&rows).expect("insert");
        let mut writers = Writers::new();
        writers.spawn(&shared, |conn: &mut C, i| {
            // Appended after every existing row, in the walk's workspace and another one.
            let n = 100_000 + i as u32;
            let ws = if i % 5 == 4 { "W2" } else { "W1" };
            conn.insert_evs(&[ev(ws, n, 10_000 + i as i64)]).is_ok()
        });
        writers.wait_for(3);

        let mut walked = Vec::new();
        let mut mark = None;
        let mut deleted = false;
        let spec = WalkSpec {
            after: None,
            page_size: 7,
            high_water_mark: true,
        };
        R::open(&shared).walk("W1", spec, &mut |page, walk_mark| {
            walked.extend(page.expect("page").items);
            if mark.is_none() {
                mark = walk_mark;
            }
            if delete_mark && !deleted {
                let (_, id) = mark.clone().expect("a mark");
                let mut other = shared.connect();
                assert_eq!(other.delete_ev(&id).expect("delete the mark row"), 1);
                deleted = true;
            }
            writers.wait_for(2);
            true
        });
        let appended = writers.stop();
        let mark = mark.expect("a mark was taken");

        let live = shared.connect().load_evs("W1").expect("load");
        let cut = live
            .iter()
            .position(|e| e.key() > mark)
            .unwrap_or(live.len());
        let (up_to_mark, after_mark) = live.split_at(cut);
        assert!(
            after_mark.len() >= 5,
            "the writer appended behind the mark during the walk ({} rows; {appended} writes)",
            after_mark.len()
        );
        assert_no_duplicates(&walked, "high-water walk");
        assert_eq!(
            ids(&walked),
            ids(up_to_mark),
            "every row up to the mark, once, in order (mark row deleted: {delete_mark})"
        );
        assert!(walked.iter().all(|e| e.key() <= mark));
        assert!(walked.len() >= 120, "the rows that existed at the start");
    }
}

/// The walk inside [`with_read_snapshot`], while writers on other connections insert, delete
/// and update (key and non-key columns): the export is exactly the rows as they were when the
/// snapshot was taken (a copy read as the transaction's first statement), once each.
pub fn snapshot_export_under_concurrent_writes<C: SharedDb, R: Reader<C>>() {
    let shared = Arc::new(C::shared());
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..150).map(|n| ev("W1", n, i64::from(n / 3))).collect();
    conn.insert_evs(&rows).expect("insert");
    conn.insert_evs(&[ev("W2", 1, 0)]).expect("insert");

    let mut writers = Writers::new();
    // Inserts anywhere in the range, deletes of existing rows.
    writers.spawn(&shared, |conn: &mut C, i| {
        let mut rng = Rng(0x9E37_79B9 + i as u64);
        if i % 2 == 0 {
            let n = 200_000 + i as u32;
            conn.insert_evs(&[ev("W1", n, i64::from(rng.below(60)))])
                .is_ok()
        } else {
            let victim = format!("W1-{:06}", rng.below(150));
            conn.delete_ev(&victim).is_ok_and(|n| n == 1)
        }
    });
    // Updates: non-key (message) and key (occurred_at, forward and backward).
    writers.spawn(&shared, |conn: &mut C, i| {
        let mut rng = Rng(0x51_7CC1 + i as u64);
        let id = format!("W1-{:06}", rng.below(150));
        if i % 2 == 0 {
            conn.set_message(&id, &format!("changed {i}"))
                .is_ok_and(|n| n == 1)
        } else {
            conn.set_time(&id, at(i64::from(rng.below(60)), 3))
                .is_ok_and(|n| n == 1)
        }
    });
    writers.wait_for(4);

    let reader = &mut R::open(&shared);
    let before = Arc::new(AtomicUsize::new(usize::MAX));
    let (copy, exported) = {
        let (writers, before) = (&writers, before.clone());
        reader
            .snapshot("W1", 9, &mut || {
                // After each page: the writers' count at the first, then more writes.
                let _ = before.compare_exchange(
                    usize::MAX,
                    writers.count(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
                writers.wait_for(3);
            })
            .expect("snapshot export")
    };
    let during = writers.count() - before.load(Ordering::Relaxed).min(writers.count());
    let total = writers.stop();

    assert!(
        during >= 20,
        "writers were active during the export: {during} writes"
    );
    assert_no_duplicates(&exported, "snapshot export");
    assert_eq!(
        exported, copy,
        "the export is the snapshot's rows, content included"
    );
    let live = shared.connect().load_evs("W1").expect("load");
    assert_ne!(
        live, copy,
        "the live rows changed meanwhile ({total} writes)"
    );
}

/// The snapshot on a session whose default isolation is READ COMMITTED (a common server
/// setting; on MySQL/MariaDB `WITH CONSISTENT SNAPSHOT` alone is then ignored): a writer
/// inserts ahead of the walk after every page, and the export is still the snapshot's rows.
pub fn snapshot_holds_on_a_read_committed_session<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..30).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let reader = &mut R::open(&shared);
    match C::NAME {
        "MySQL" => reader.session("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
        "PostgreSQL" => reader
            .session("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED"),
        _ => {} // SQLite has one isolation: serializable.
    }
    let mut writer = shared.connect();
    let mut n = 0;
    let (copy, exported) = reader
        .snapshot("W1", 4, &mut || {
            n += 1;
            writer
                .insert_evs(&[ev("W1", 1_000 + n, 100 + i64::from(n))])
                .expect("insert ahead of the walk");
        })
        .expect("snapshot");
    assert_eq!(copy.len(), 30);
    assert!(n >= 7, "a write after every page ({n})");
    assert_eq!(
        exported, copy,
        "the snapshot's rows, none written during the walk"
    );
}

fn store(now: &Arc<std::sync::atomic::AtomicU64>) -> ExportStore {
    let codec = CursorCodec::builder()
        .signing_key(SecretKey::new(1, &[7; 32]).expect("key"))
        .build()
        .expect("codec");
    let now = now.clone();
    ExportStore::new(codec, Duration::from_secs(3600)).with_clock(move || {
        std::time::UNIX_EPOCH + Duration::from_secs(now.load(Ordering::Relaxed))
    })
}

/// Reads a whole stored export, one request (and one new connection) per page, calling
/// `between` before each request.
fn read_export<C: SharedDb, R: Reader<C>>(
    shared: &Shared<C>,
    store: &ExportStore,
    id: &str,
    scope: &str,
    page_size: u32,
    mut between: impl FnMut(usize),
) -> Vec<Ev> {
    let mut token: Option<String> = None;
    let mut rows: Vec<Ev> = Vec::new();
    for request in 0.. {
        between(request);
        let page = R::open(shared)
            .page(store, id, scope, token.as_deref(), page_size)
            .expect("export page");
        assert_eq!(page.first_position, rows.len() as u64 + 1);
        rows.extend(page.items);
        match page.next_token {
            Some(next) => token = Some(next),
            None => break,
        }
    }
    rows
}

/// A stored export read one request per page, on a new connection each, while the source
/// table changes before every request (inserts, deletes, key and non-key updates): it yields
/// exactly its membership at creation, content included, once each.
pub fn stored_export_is_fixed_at_creation<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..60).map(|n| ev("W1", n, i64::from(n / 2))).collect();
    conn.insert_evs(&rows).expect("insert");
    conn.insert_evs(&[ev("W2", 1, 0)]).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now);
    let copy = conn.load_evs("W1").expect("copy");
    let export = R::open(&shared)
        .create(&store, "W1", &mut || C::ev_query("W1"))
        .expect("create");
    assert_eq!(export.rows, 60);
    assert_eq!(export.id.len(), 32);
    assert_eq!(export.expires_at, 1_800_000_000 + 3600);

    let mut writer = shared.connect();
    let exported = read_export::<C, R>(&shared, &store, &export.id, "W1", 7, |i| {
        let mut rng = Rng(0xC0FF_EE00 + i as u64);
        let i = i as u32;
        writer
            .insert_evs(&[ev("W1", 300 + i, i64::from(rng.below(30)))])
            .expect("insert");
        writer
            .delete_ev(&format!("W1-{:06}", rng.below(60)))
            .expect("delete");
        writer
            .set_message(&format!("W1-{:06}", rng.below(60)), "changed")
            .expect("update");
        writer
            .set_time(
                &format!("W1-{:06}", rng.below(60)),
                at(i64::from(rng.below(30)), 5),
            )
            .expect("update key");
    });
    assert_no_duplicates(&exported, "stored export");
    assert_eq!(exported, copy, "membership, order and content at creation");
    assert_ne!(writer.load_evs("W1").expect("live"), copy);
}

/// A stored export of 1,500 rows at the default creation page size (1,000 rows read per
/// statement, stored by several multi-row inserts each, within every backend's bind limit):
/// every position once, in order, read back in pages of 1,000.
pub fn stored_export_of_many_rows_keeps_every_position<C: SharedDb, R: Reader<C>>() {
    let shared = C::shared();
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..1_500).map(|n| ev("W1", n, i64::from(n / 5))).collect();
    conn.insert_evs(&rows).expect("insert");
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now);
    let export = R::open(&shared)
        .create(&store, "W1", &mut || C::ev_query("W1"))
        .expect("create");
    assert_eq!(export.rows, 1_500);
    let exported = read_export::<C, R>(&shared, &store, &export.id, "W1", 1_000, |_| {});
    assert_eq!(exported, conn.load_evs("W1").expect("load"));
}

/// Creating a stored export while writers move rows across its pages (key updates) and
/// change their content: the creation reads one snapshot, so the export holds every row once
/// (membership never changes: rows only move) in strictly increasing key order. Without the
/// snapshot a row moved behind the walk's position is missed and one moved ahead is read twice.
pub fn stored_export_creation_reads_one_snapshot<C: SharedDb, R: Reader<C>>() {
    let shared = Arc::new(C::shared());
    let conn = &mut shared.connect();
    let rows: Vec<Ev> = (0..80).map(|n| ev("W1", n, i64::from(n))).collect();
    conn.insert_evs(&rows).expect("insert");
    let mut writers = Writers::new();
    writers.spawn(&shared, |conn: &mut C, i| {
        let mut rng = Rng(0xABCD_0000 + i as u64);
        let id = format!("W1-{:06}", rng.below(80));
        if i % 3 == 0 {
            conn.set_message(&id, &format!("changed {i}"))
                .is_ok_and(|n| n == 1)
        } else {
            conn.set_time(
                &id,
                at(i64::from(rng.below(80)), 1 + i64::from(rng.below(900))),
            )
            .is_ok_and(|n| n == 1)
        }
    });
    writers.wait_for(3);
    let now = Arc::new(std::sync::atomic::AtomicU64::new(1_800_000_000));
    let store = store(&now).create_page_size(6);
    // The query factory runs once per page of the creation's walk: let the writers move rows
    // first. SQLite's `BEGIN IMMEDIATE` holds them off until the export is stored, so there
    // the wait is short and the writers are idle meanwhile.
    let sqlite = C::NAME == "SQLite";
    let wait = Duration::from_millis(if sqlite { 10 } else { 300 });
    let mut during = 0;
    let export = R::open(&shared)
        .create(&store, "W1", &mut || {
            let before = writers.count();
            writers.wait_at_most(3, wait);
            during += writers.count() - before;
            C::ev_query("W1")
        })
        .expect("create");
    writers.stop();
    if sqlite {
        assert!(
            during <= 1,
            "SQLite writers wait for the export ({during} writes)"
        );
    } else {
        assert!(
            during >= 10,
            "writers were active during creation ({during} writes)"
        );
    }
    let exported = read_export::<C, R>(&shared, &store, &export.id, "W1", 25, |_| {});
    assert_no_duplicates(&exported, "stored export created under writes");
    let mut got = ids(&exported);
    got.sort();
    assert_eq!(got, ids(&rows), "every row once: membership is fixed");
    assert!(
        exported.windows(2).all(|w| w[0].key() < w[1].key()),
        "in key order of one snapshot"
    );
    assert_eq!(export.rows, 80);
}

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

/// docs/CASES.md C37: a page read while the export is purged. A page is two statements (the
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

/// Issue 34 (2, 3): a stored export is ended only under its own scope (`expire` with another
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

/// Registers this module's tests for backend `$db`, read through the blocking API; with
/// `async $reader`, the same tests read through `keyset_diesel::async_` by `$reader` (an
/// [`AsyncReader`](async_reader::AsyncReader) of the backend's diesel-async connection).
#[macro_export]
macro_rules! read_contract_suite {
    ($db:ty) => {
        $crate::read_contract_suite!(@tests read_contracts, $db, $db);
    };
    (async $db:ty, $reader:ty) => {
        $crate::read_contract_suite!(@tests async_read_contracts, $db, $reader);
    };
    (@tests $module:ident, $db:ty, $reader:ty) => {
        mod $module {
            use $crate::read_contracts as rc;
            #[test]
            fn walk_follows_every_page_resumes_and_ends_on_error() {
                rc::walk_all_pages_and_resume::<$db, $reader>();
            }
            #[test]
            fn walk_with_high_water_mark_ends_under_appends() {
                rc::walk_high_water_mark_under_appends::<$db, $reader>();
            }
            #[test]
            fn snapshot_export_is_the_snapshot_under_concurrent_writes() {
                rc::snapshot_export_under_concurrent_writes::<$db, $reader>();
            }
            #[test]
            fn snapshot_holds_on_a_read_committed_session() {
                rc::snapshot_holds_on_a_read_committed_session::<$db, $reader>();
            }
            #[test]
            fn stored_export_of_many_rows_keeps_every_position() {
                rc::stored_export_of_many_rows_keeps_every_position::<$db, $reader>();
            }
            #[test]
            fn stored_export_is_fixed_at_creation_across_requests() {
                rc::stored_export_is_fixed_at_creation::<$db, $reader>();
            }
            #[test]
            fn stored_export_creation_reads_one_snapshot_under_key_updates() {
                rc::stored_export_creation_reads_one_snapshot::<$db, $reader>();
            }
            #[test]
            fn stored_export_expires_410_and_purge_removes_it_404() {
                rc::stored_export_expires_and_is_purged::<$db, $reader>();
            }
            #[test]
            fn c37_stored_export_read_meeting_a_purge_is_expired_or_unknown() {
                rc::stored_export_read_meeting_a_purge::<$db, $reader>();
            }
            #[test]
            fn stored_export_is_scoped_and_bounded() {
                rc::stored_export_is_scoped_and_bounded::<$db, $reader>();
            }
            #[test]
            fn stored_exports_of_two_scopes_stay_apart_and_tokens_are_bound() {
                rc::stored_exports_of_two_scopes::<$db, $reader>();
            }
        }
    };
}

/// The [`Reader`] of the async API: a diesel-async connection and the runtime that drives it.
#[cfg(feature = "diesel-async")]
pub mod async_reader {
    use super::{OnItem, Reader, WalkSpec};
    use crate::schema::events;
    use diesel::connection::Instrumentation;
    use diesel::{ExpressionMethods, QueryDsl, QueryResult};
    use diesel_async::{AsyncConnection, RunQueryDsl, SimpleAsyncConnection};
    use keyset_diesel::async_;
    use keyset_diesel::export::{Export, ExportError, ExportPage, ExportStore, Purged};
    use keyset_diesel::Cursor;
    use keyset_test_models::read_contracts::{Ev, Shared, SharedDb};

    /// A diesel-async connection `A` to a [`Shared`] database of `C`, with its runtime.
    pub struct AsyncReader<C, A> {
        conn: A,
        runtime: tokio::runtime::Runtime,
        db: std::marker::PhantomData<fn() -> C>,
    }

    macro_rules! async_reader {
        ($db:ty, $async:ty) => {
            impl Reader<$db> for AsyncReader<$db, $async> {
                fn open(shared: &Shared<$db>) -> Self {
                    let runtime = crate::async_db::runtime();
                    let conn = runtime.block_on(async {
                        let mut conn = <$async>::establish(shared.url())
                            .await
                            .unwrap_or_else(|e| panic!("async connect to {}: {e}", shared.url()));
                        conn.batch_execute(shared.setup_sql())
                            .await
                            .expect("connection setup");
                        conn
                    });
                    AsyncReader {
                        conn,
                        runtime,
                        db: std::marker::PhantomData,
                    }
                }

                fn walk(
                    &mut self,
                    workspace: &str,
                    spec: WalkSpec,
                    on_item: &mut OnItem<'_>,
                ) -> Option<Cursor<Ev>> {
                    let conn = &mut self.conn;
                    self.runtime.block_on(async {
                        let mut walk =
                            async_::Walk::<Ev, _, _>::new(conn, || <$db>::ev_query(workspace))
                                .after(spec.after)
                                .page_size(spec.page_size);
                        if spec.high_water_mark {
                            walk = walk.high_water_mark();
                        }
                        while let Some(item) = walk.next_page().await {
                            if !on_item(item, walk.mark().cloned()) {
                                break;
                            }
                        }
                        walk.cursor().cloned()
                    })
                }

                fn snapshot(
                    &mut self,
                    workspace: &str,
                    page_size: u32,
                    between: &mut (dyn FnMut() + Send),
                ) -> QueryResult<(Vec<Ev>, Vec<Ev>)> {
                    let conn = &mut self.conn;
                    self.runtime.block_on(async_::with_read_snapshot(
                        conn,
                        async |conn: &mut $async| {
                            let copy: Vec<Ev> = <$db>::ev_query(workspace)
                                .order((events::occurred_at.asc(), events::event_id.asc()))
                                .load(conn)
                                .await?;
                            let mut exported = Vec::new();
                            let mut walk =
                                async_::Walk::<Ev, _, _>::new(conn, || <$db>::ev_query(workspace))
                                    .page_size(page_size);
                            while let Some(page) = walk.next_page().await {
                                exported.extend(page?.items);
                                between();
                            }
                            Ok((copy, exported))
                        },
                    ))
                }

                fn create(
                    &mut self,
                    store: &ExportStore,
                    scope: &str,
                    make_query: &mut (dyn FnMut() -> <$db as SharedDb>::EvQuery + Send),
                ) -> Result<Export, ExportError> {
                    let store = async_::ExportStore::from(store.clone());
                    self.runtime.block_on(store.create::<Ev, _, _, _, _>(
                        &mut self.conn,
                        &(scope,),
                        make_query,
                    ))
                }

                fn page(
                    &mut self,
                    store: &ExportStore,
                    id: &str,
                    scope: &str,
                    token: Option<&str>,
                    page_size: u32,
                ) -> Result<ExportPage<Ev>, ExportError> {
                    let store = async_::ExportStore::from(store.clone());
                    self.runtime.block_on(store.page::<Ev, _, _>(
                        &mut self.conn,
                        id,
                        &(scope,),
                        token,
                        page_size,
                    ))
                }

                fn expire(
                    &mut self,
                    store: &ExportStore,
                    id: &str,
                    scope: &str,
                ) -> Result<(), ExportError> {
                    let store = async_::ExportStore::from(store.clone());
                    self.runtime
                        .block_on(store.expire(&mut self.conn, id, &(scope,)))
                }

                fn expire_unscoped(
                    &mut self,
                    store: &ExportStore,
                    id: &str,
                ) -> Result<bool, ExportError> {
                    let store = async_::ExportStore::from(store.clone());
                    self.runtime
                        .block_on(store.expire_unscoped(&mut self.conn, id))
                }

                fn purge(&mut self, store: &ExportStore) -> Result<Purged, ExportError> {
                    let store = async_::ExportStore::from(store.clone());
                    self.runtime.block_on(store.purge_expired(&mut self.conn))
                }

                fn instrument(&mut self, hook: impl Instrumentation) {
                    self.conn.set_instrumentation(hook);
                }

                fn session(&mut self, sql: &str) {
                    self.runtime
                        .block_on(self.conn.batch_execute(sql))
                        .expect("session setting");
                }
            }
        };
    }

    #[cfg(feature = "sqlite")]
    async_reader!(
        diesel::SqliteConnection,
        diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>
    );
    #[cfg(feature = "postgres")]
    async_reader!(diesel::PgConnection, diesel_async::AsyncPgConnection);
    #[cfg(feature = "mysql")]
    async_reader!(diesel::MysqlConnection, diesel_async::AsyncMysqlConnection);
}
