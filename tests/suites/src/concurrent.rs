//! Walks under concurrent writers (reports/RELIABILITY.md).
//!
//! K walker threads, each on its own connection, walk one table page by page through tokens
//! (random page size per page, forward or backward, random `deferred_join` and
//! `seek_per_level`), while W writer threads insert rows anywhere in the order, delete rows,
//! change a non-key column and, in the second variant, change a key column. Every write is one
//! autocommit statement; its writer logs it with the instants just before the statement was
//! sent and just after it returned, so its commit lies somewhere in that interval. A walk
//! records the instant before its first page read and after its last one, from the same
//! monotonic clock. After every walk, once each writer has logged past the walk's end, the
//! walk is checked against the log, reading every interval conservatively:
//!
//! * **order**: the rows, in display order, have strictly increasing keys;
//! * **real rows only**: every row read had, at some instant of the walk, the key and the
//!   message it was read with (never a row deleted before the walk started or inserted after it
//!   ended, never a key or message it never held then);
//! * **exactly once**: every row that existed with the same key for the walk's whole duration
//!   (inserted before the walk started, not deleted, its key not changed during it; non-key
//!   changes allowed) appears exactly once;
//! * **no row twice**, except what the live-read contract (README, the read contracts guide)
//!   allows: a row whose key changed during the walk may be read again after moving across the
//!   cursor, at most once per key change, and may be missed.
//!
//! Writers own disjoint rows (a row is only written by the writer that inserted it, or that
//! was dealt it at the start), so the writes to one row are sequential and the log gives each
//! row's history in order. A write that returned an error is logged as possibly applied at any
//! later instant (it never settles).
//!
//! Bounded by time (`KEYSET_SOAK_SECS` per variant, default 2) and by count
//! (`KEYSET_SOAK_MAX_WALKS` walks per walker, default 100,000). With `KEYSET_RELIABILITY_DIR`
//! set, each run appends its figures to `soak.tsv` there (scripts/reliability.sh reads it).
//! The checker itself is tested on hand-made walks (`checker_reports_each_kind_of_violation`).

use crate::at;
use crate::read_contracts::{Ev, SharedDb};
use crate::report::append_report;
use crate::NextToken as _;
use chrono::NaiveDateTime;
use diesel::QueryResult;
use keyset_diesel::token::SecretKey;
use keyset_diesel::{CursorCodec, PaginateDsl};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The workspace the walks page.
const WS: &str = "soak";
/// Rows at the start.
const INITIAL_ROWS: usize = 150;
/// Walker and writer threads.
const WALKERS: usize = 3;
const WRITERS: usize = 2;
/// A walk reading more pages than this has not ended: a violation.
const MAX_PAGES: usize = 20_000;

/// Nanoseconds since the first call in this process: the one monotonic clock of walks and writes.
pub fn now() -> u64 {
    static BASE: OnceLock<Instant> = OnceLock::new();
    let base = *BASE.get_or_init(Instant::now);
    u64::try_from(base.elapsed().as_nanos()).unwrap_or(u64::MAX - 1) + 1
}

/// Seconds per variant: `KEYSET_SOAK_SECS`, default 2.
pub fn soak_secs() -> f64 {
    std::env::var("KEYSET_SOAK_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2.0)
}

fn max_walks() -> usize {
    std::env::var("KEYSET_SOAK_MAX_WALKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// A small deterministic generator (xorshift).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A row's key: `(occurred_at, event_id)`, the keyset of [`Ev`].
type Key = (NaiveDateTime, String);

/// What one write did to a row.
#[derive(Debug, Clone)]
enum Change {
    /// Inserted with this time and message.
    Insert(NaiveDateTime, String),
    Delete,
    Message(String),
    Time(NaiveDateTime),
}

/// One write, committed somewhere in `[sent, returned]` (`returned == u64::MAX`: it failed,
/// and is read as possibly applied at any later instant).
#[derive(Debug, Clone)]
struct Write {
    change: Change,
    sent: u64,
    returned: u64,
}

/// The write log: each row's writes, in order (one writer per row).
#[derive(Default)]
struct Log {
    rows: Mutex<HashMap<String, Vec<Write>>>,
}

impl Log {
    fn push(&self, id: &str, write: Write) {
        self.rows
            .lock()
            .expect("log")
            .entry(id.to_string())
            .or_default()
            .push(write);
    }
}

/// A time with ties: 40 distinct seconds, a quarter of them with a microsecond part.
fn random_time(rng: &mut Rng) -> NaiveDateTime {
    let secs = rng.below(40) as i64;
    let micros = if rng.chance(25) {
        rng.below(3) as i64 * 250_001
    } else {
        0
    };
    at(secs, micros)
}

/// Row ids sort the same in every collation: one letter and eight digits.
fn row_id(n: u64) -> String {
    format!("r{n:08}")
}

/// Per-variant figures.
#[derive(Debug, Default, Clone)]
pub struct SoakStats {
    pub walks: u64,
    pub forward_walks: u64,
    pub pages: u64,
    pub rows_read: u64,
    pub writes: u64,
    pub write_errors: u64,
    pub reread_rows: u64,
    /// Rows that existed with one key for a whole walk, summed over walks (each had to appear
    /// exactly once).
    pub guaranteed_rows: u64,
    pub violations: u64,
    pub secs: f64,
}

struct Walked {
    start: u64,
    end: u64,
    backward: bool,
    /// Rows in display order.
    rows: Vec<(Key, String)>,
}

/// Row `id` during `[start, end]`: the states it may have been read in, whether it existed
/// with one key for the whole interval, and how many key changes may have happened in it.
struct During {
    versions: Vec<(NaiveDateTime, String)>,
    stable: bool,
    key_changes: usize,
}

fn during(history: &[Write], start: u64, end: u64) -> During {
    // Writes to one row are sequential: those settled before `start`, then those that may have
    // committed during the walk, then those sent after it ended.
    let settled = history.iter().take_while(|w| w.returned < start).count();
    let mut state = None;
    for w in &history[..settled] {
        apply(&mut state, &w.change);
    }
    let mut stable = state.is_some();
    let mut versions: Vec<(NaiveDateTime, String)> = state.iter().cloned().collect();
    let mut key_changes = 0;
    for w in history[settled..].iter().take_while(|w| w.sent <= end) {
        match w.change {
            Change::Message(_) => {}
            Change::Time(_) => {
                stable = false;
                key_changes += 1;
            }
            Change::Insert(..) | Change::Delete => stable = false,
        }
        apply(&mut state, &w.change);
        versions.extend(state.iter().cloned());
    }
    During {
        versions,
        stable,
        key_changes,
    }
}

fn apply(state: &mut Option<(NaiveDateTime, String)>, change: &Change) {
    match change {
        Change::Insert(t, m) => *state = Some((*t, m.clone())),
        Change::Delete => *state = None,
        Change::Message(m) => {
            if let Some(s) = state {
                s.1 = m.clone();
            }
        }
        Change::Time(t) => {
            if let Some(s) = state {
                s.0 = *t;
            }
        }
    }
}

/// Checks one walk against the log; returns the violations, described, and how many rows
/// the walk had to read exactly once.
fn check_walk(
    walk: &Walked,
    log: &HashMap<String, Vec<Write>>,
    key_updates: bool,
) -> (Vec<String>, u64) {
    let mut bad = Vec::new();
    let mut guaranteed = 0;
    let dir = if walk.backward { "backward" } else { "forward" };
    for pair in walk.rows.windows(2) {
        if pair[0].0 >= pair[1].0 {
            bad.push(format!(
                "{dir} walk: order: {:?} then {:?}",
                pair[0].0, pair[1].0
            ));
        }
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for ((time, id), message) in &walk.rows {
        *counts.entry(id).or_default() += 1;
        let Some(history) = log.get(id) else {
            bad.push(format!(
                "{dir} walk: row {id} is unknown (never written, or deleted before the walk)"
            ));
            continue;
        };
        let d = during(history, walk.start, walk.end);
        if !d.versions.iter().any(|(t, m)| t == time && m == message) {
            bad.push(format!(
                "{dir} walk: row {id} read as ({time}, {message:?}), never its state during the walk: {:?}",
                d.versions
            ));
        }
    }
    for (id, history) in log {
        let d = during(history, walk.start, walk.end);
        let n = counts.get(id.as_str()).copied().unwrap_or(0);
        guaranteed += u64::from(d.stable);
        if d.stable && n != 1 {
            bad.push(format!(
                "{dir} walk: row {id} existed unchanged during the walk and was read {n} times"
            ));
        }
        let allowed = if key_updates { 1 + d.key_changes } else { 1 };
        if n > allowed {
            bad.push(format!(
                "{dir} walk: row {id} read {n} times with {} key changes during the walk",
                d.key_changes
            ));
        }
    }
    (bad, guaranteed)
}

/// One walk through tokens, from the first page (or the last, backward) to the end.
fn walk_once<C: SharedDb>(
    conn: &mut C,
    codec: &CursorCodec,
    rng: &mut Rng,
    backward: bool,
    pages: &mut u64,
) -> QueryResult<Vec<Vec<Ev>>> {
    let scope = (WS,);
    let deferred = rng.chance(50);
    let per_level = rng.chance(30);
    let mut token: Option<String> = None;
    let mut read: Vec<Vec<Ev>> = Vec::new();
    loop {
        let cursor = token.as_deref().map(|t| {
            codec
                .decode::<Ev>(t, &scope)
                .unwrap_or_else(|e| panic!("a token this walk made is refused: {e}"))
        });
        let query = C::ev_query(WS);
        let paginated = match cursor {
            Some(c) => query.paginate(Some(c)),
            None if backward => query.paginate_before(None),
            None => query.paginate_after(None),
        };
        let size = 1 + rng.below(50) as u32;
        let page = paginated
            .page_size(size)
            .deferred_join(deferred)
            .seek_per_level(per_level)
            .load_page(conn)?;
        *pages += 1;
        token = codec.next_token(&page, &scope).expect("encode");
        read.push(page.items);
        if token.is_none() || read.len() > MAX_PAGES {
            break;
        }
    }
    if backward {
        read.reverse();
    }
    Ok(read)
}

fn codec() -> CursorCodec {
    CursorCodec::builder()
        .signing_key(SecretKey::new(1, &[42; 32]).expect("key"))
        .build()
        .expect("codec")
}

/// Runs the concurrent-writers check on backend `C`: `key_updates` adds writes to a key
/// column. Panics with the first violations; returns the figures.
pub fn walks_under_concurrent_writers<C: SharedDb>(key_updates: bool) -> SoakStats {
    let secs = soak_secs();
    let shared = Arc::new(C::shared());
    let log = Arc::new(Log::default());
    let mut rng = Rng::new(u64::from(std::process::id()) ^ now());
    let next_id = Arc::new(AtomicU64::new(0));

    // The initial rows, dealt to the writers round-robin.
    let mut owned: Vec<Vec<String>> = vec![Vec::new(); WRITERS];
    let mut initial = Vec::new();
    for i in 0..INITIAL_ROWS {
        let id = row_id(next_id.fetch_add(1, Ordering::Relaxed));
        let ev = Ev {
            occurred_at: random_time(&mut rng),
            event_id: id.clone(),
            workspace_id: WS.to_string(),
            message: "m0".to_string(),
        };
        log.push(
            &id,
            Write {
                change: Change::Insert(ev.occurred_at, ev.message.clone()),
                sent: 0,
                returned: 0,
            },
        );
        owned[i % WRITERS].push(id);
        initial.push(ev);
    }
    shared.connect().insert_evs(&initial).expect("initial rows");

    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicU64::new(0));
    let write_errors = Arc::new(AtomicU64::new(0));
    // Per writer: the `returned` instant of its last logged write (u64::MAX once stopped).
    let progress: Arc<Vec<AtomicU64>> = Arc::new((0..WRITERS).map(|_| AtomicU64::new(0)).collect());

    let mut writers = Vec::new();
    for (w, mut mine) in owned.into_iter().enumerate() {
        let (shared, log, stop, writes, write_errors, progress, next_id) = (
            shared.clone(),
            log.clone(),
            stop.clone(),
            writes.clone(),
            write_errors.clone(),
            progress.clone(),
            next_id.clone(),
        );
        let seed = rng.below(u64::MAX);
        writers.push(std::thread::spawn(move || {
            let mut rng = Rng::new(seed);
            let mut conn = shared.connect();
            let mut version = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let roll = rng.below(100);
                version += 1;
                let message = format!("w{w}v{version}");
                let (id, change) = if roll < 30 || mine.is_empty() {
                    let id = row_id(next_id.fetch_add(1, Ordering::Relaxed));
                    (id, Change::Insert(random_time(&mut rng), message))
                } else {
                    let i = rng.below(mine.len() as u64) as usize;
                    let change = if roll < 60 {
                        Change::Delete
                    } else if !key_updates || roll < 80 {
                        Change::Message(message)
                    } else {
                        Change::Time(random_time(&mut rng))
                    };
                    (mine[i].clone(), change)
                };
                let sent = now();
                let result = match &change {
                    Change::Insert(t, m) => conn.insert_evs(&[Ev {
                        occurred_at: *t,
                        event_id: id.clone(),
                        workspace_id: WS.to_string(),
                        message: m.clone(),
                    }]),
                    Change::Delete => conn.delete_ev(&id),
                    Change::Message(m) => conn.set_message(&id, m),
                    Change::Time(t) => conn.set_time(&id, *t),
                };
                let returned = now();
                let ok = matches!(result, Ok(1));
                log.push(
                    &id,
                    Write {
                        change: change.clone(),
                        sent,
                        returned: if ok { returned } else { u64::MAX },
                    },
                );
                progress[w].store(returned, Ordering::Release);
                if ok {
                    writes.fetch_add(1, Ordering::Relaxed);
                    match change {
                        Change::Insert(..) => mine.push(id),
                        Change::Delete => mine.retain(|m| *m != id),
                        _ => {}
                    }
                } else {
                    // Never touched again: its state stays uncertain from here on.
                    write_errors.fetch_add(1, Ordering::Relaxed);
                    mine.retain(|m| *m != id);
                }
                std::thread::sleep(Duration::from_micros(rng.below(1500)));
            }
            progress[w].store(u64::MAX, Ordering::Release);
        }));
    }

    let stats = Arc::new(Mutex::new(SoakStats::default()));
    let violations = Arc::new(Mutex::new(Vec::<String>::new()));
    let walks_left = Arc::new(AtomicUsize::new(max_walks() * WALKERS));
    // Per walker: the start of its walk in progress (u64::MAX between walks).
    let active: Arc<Vec<AtomicU64>> =
        Arc::new((0..WALKERS).map(|_| AtomicU64::new(u64::MAX)).collect());
    let started = Instant::now();
    let mut walkers = Vec::new();
    for k in 0..WALKERS {
        let (shared, log, progress, stats, violations, walks_left, active) = (
            shared.clone(),
            log.clone(),
            progress.clone(),
            stats.clone(),
            violations.clone(),
            walks_left.clone(),
            active.clone(),
        );
        let seed = rng.below(u64::MAX) ^ k as u64;
        walkers.push(std::thread::spawn(move || {
            let mut rng = Rng::new(seed);
            let mut conn = shared.connect();
            let codec = codec();
            while Instant::now() < deadline
                && walks_left
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
            {
                let backward = rng.chance(50);
                let mut pages = 0;
                active[k].store(now(), Ordering::Release);
                let start = now();
                let read = walk_once(&mut conn, &codec, &mut rng, backward, &mut pages)
                    .unwrap_or_else(|e| panic!("a page read failed under concurrent writers: {e}"));
                let end = now();
                let rows: Vec<(Key, String)> = read
                    .into_iter()
                    .flatten()
                    .map(|e| ((e.occurred_at, e.event_id), e.message))
                    .collect();
                // Every write sent before `end` is in the log once each writer logged past it.
                while progress.iter().any(|p| p.load(Ordering::Acquire) <= end) {
                    std::thread::sleep(Duration::from_micros(200));
                }
                let walked = Walked {
                    start,
                    end,
                    backward,
                    rows,
                };
                let found = {
                    let mut log = log.rows.lock().expect("log");
                    let (found, guaranteed) = check_walk(&walked, &log, key_updates);
                    // Rows deleted before every walk in progress started matter to no walk.
                    let oldest = active.iter().map(|a| a.load(Ordering::Acquire)).min();
                    let oldest = oldest.unwrap_or(0).min(start);
                    log.retain(|_, h| {
                        !h.last().is_some_and(|w| {
                            matches!(w.change, Change::Delete) && w.returned < oldest
                        })
                    });
                    (found, guaranteed)
                };
                let (found, guaranteed) = found;
                active[k].store(u64::MAX, Ordering::Release);
                let mut ids: Vec<&str> = walked.rows.iter().map(|r| r.0 .1.as_str()).collect();
                let n = ids.len();
                ids.sort_unstable();
                ids.dedup();
                let mut s = stats.lock().expect("stats");
                s.walks += 1;
                s.forward_walks += u64::from(!backward);
                s.pages += pages;
                s.rows_read += n as u64;
                s.reread_rows += (n - ids.len()) as u64;
                s.guaranteed_rows += guaranteed;
                s.violations += found.len() as u64;
                drop(s);
                violations.lock().expect("violations").extend(found);
            }
        }));
    }
    let mut walker_panic = None;
    for t in walkers {
        if let Err(e) = t.join() {
            walker_panic = Some(e);
        }
    }
    stop.store(true, Ordering::Relaxed);
    for t in writers {
        t.join().expect("writer thread");
    }
    if let Some(e) = walker_panic {
        std::panic::resume_unwind(e);
    }
    let mut stats = stats.lock().expect("stats").clone();
    stats.writes = writes.load(Ordering::Relaxed);
    stats.write_errors = write_errors.load(Ordering::Relaxed);
    stats.secs = started.elapsed().as_secs_f64();
    let variant = if key_updates {
        "inserts, deletes, non-key and key updates"
    } else {
        "inserts, deletes, non-key updates"
    };
    eprintln!("concurrent writers on {} ({variant}): {stats:?}", C::NAME);
    record(C::NAME, key_updates, &stats);
    let violations = violations.lock().expect("violations");
    assert!(
        violations.is_empty(),
        "{} violations on {}; the first: {:#?}",
        violations.len(),
        C::NAME,
        &violations[..violations.len().min(10)]
    );
    assert!(
        stats.walks >= WALKERS as u64,
        "every walker walked: {stats:?}"
    );
    assert!(stats.writes > 0, "the writers wrote: {stats:?}");
    assert!(
        stats.guaranteed_rows > 0,
        "some rows had to be read exactly once: {stats:?}"
    );
    stats
}

/// Appends the figures to `soak.tsv` (see [`append_report`]).
fn record(backend: &str, key_updates: bool, s: &SoakStats) {
    let line = format!(
        "{backend}\t{}\t{:.1}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        if key_updates { "key" } else { "nonkey" },
        s.secs,
        s.walks,
        s.forward_walks,
        s.pages,
        s.rows_read,
        s.writes,
        s.write_errors,
        s.reread_rows,
        s.guaranteed_rows,
        s.violations
    );
    append_report("soak.tsv", &line);
}

/// Walks under inserts, deletes and non-key updates.
pub fn walks_under_inserts_deletes_and_updates<C: SharedDb>() {
    let stats = walks_under_concurrent_writers::<C>(false);
    assert_eq!(stats.reread_rows, 0, "no row twice without key changes");
}

/// Walks under inserts, deletes, non-key and key updates.
pub fn walks_under_key_updates<C: SharedDb>() {
    walks_under_concurrent_writers::<C>(true);
}

/// The checker itself: a walk that repeats, drops, misorders or invents rows is reported.
/// A plain function, not a unit test of this library: the library is built without its own
/// test harness (`test = false` in its manifest, which halves its build time), so the SQLite
/// test binary runs this.
pub fn checker_reports_each_kind_of_violation() {
    let t = |s| at(s, 0);
    let w = |change, sent, returned| Write {
        change,
        sent,
        returned,
    };
    let mut log: HashMap<String, Vec<Write>> = HashMap::new();
    log.insert("a".into(), vec![w(Change::Insert(t(1), "m".into()), 0, 0)]);
    log.insert(
        "b".into(),
        vec![
            w(Change::Insert(t(2), "m".into()), 0, 0),
            w(Change::Message("n".into()), 15, 16),
        ],
    );
    // Key moved forward during the walk [10, 20].
    log.insert(
        "c".into(),
        vec![
            w(Change::Insert(t(3), "m".into()), 0, 0),
            w(Change::Time(t(9)), 12, 13),
        ],
    );
    // Inserted after the walk.
    log.insert(
        "d".into(),
        vec![w(Change::Insert(t(4), "m".into()), 30, 31)],
    );
    let row = |s, id: &str, m: &str| ((t(s), id.to_string()), m.to_string());
    let walk = |rows| Walked {
        start: 10,
        end: 20,
        backward: false,
        rows,
    };
    let good = walk(vec![
        row(1, "a", "m"),
        row(2, "b", "n"),
        row(3, "c", "m"),
        row(9, "c", "m"),
    ]);
    assert_eq!(check_walk(&good, &log, true), (Vec::<String>::new(), 2));
    // Without key updates allowed, c twice is a violation.
    assert_eq!(check_walk(&good, &log, false).0.len(), 1);
    let missing = walk(vec![row(1, "a", "m"), row(3, "c", "m")]);
    assert!(check_walk(&missing, &log, true).0[0].contains("row b existed unchanged"));
    let misordered = walk(vec![row(2, "b", "m"), row(1, "a", "m")]);
    assert!(check_walk(&misordered, &log, true).0[0].contains("order"));
    let invented = walk(vec![row(1, "a", "m"), row(2, "b", "m"), row(4, "d", "m")]);
    assert!(check_walk(&invented, &log, true)
        .0
        .iter()
        .any(|v| v.contains("row d read as")));
    let wrong_message = walk(vec![row(1, "a", "x"), row(2, "b", "m")]);
    assert!(check_walk(&wrong_message, &log, true)
        .0
        .iter()
        .any(|v| v.contains("row a read as")));
}
