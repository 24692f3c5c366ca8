//! Concurrent walkers: 1, 4 and 16 threads reading pages of the big tenant at the
//! same time through a connection pool, keyset pages against OFFSET pages from the same start
//! depths. Writes section 4a of `reports/PERFORMANCE.md` in place.
//!
//! `bash scripts/bench.sh concurrency` (or `cargo bench -p keyset-bench --bench concurrency`;
//! the full `bash scripts/bench.sh` runs it too). It reads the pagination benchmark's data set
//! (PostgreSQL schema `keyset_bench`, MariaDB database `keyset_bench`), loading it first when it
//! is missing. `KEYSET_BENCH_BACKENDS=postgres` runs a subset; `KEYSET_BENCH_CONCURRENCY_SECS`
//! sets the time per configuration (default 8 s).
//!
//! A walker is one thread. It takes the next start depth of [`STARTS`] (spread evenly over the
//! tenant, in a fixed shuffled order shared by every form), then reads [`RUN`] consecutive pages
//! of [`PAGE`] rows from there, taking a connection from the pool for each page and returning
//! it after (as a request handler does), until the configuration's time is up. Keyset runs
//! start at the cursor of the row at the start depth and follow `next_cursor`; OFFSET runs read
//! `OFFSET depth + 1 + k * PAGE`, the same rows. Every page is checked to hold `PAGE` rows; the
//! first page of a sample of starts is checked equal between the forms before any timing.

#[allow(dead_code)]
#[path = "../pagination/data.rs"]
mod data;
#[path = "../pagination/numbers.rs"]
mod numbers;
#[allow(dead_code)] // Only `Asc` is walked here.
#[path = "../pagination/schema.rs"]
mod schema;
#[path = "../pagination/section.rs"]
mod section;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::r2d2::{ConnectionManager, Pool, R2D2Connection};
use keyset_diesel::{Cursor, PaginateDsl};

use crate::numbers::group;
use crate::schema::{bench_rows, Asc};

/// Rows per page.
const PAGE: u32 = 20;
/// Consecutive pages a walker reads from one start.
const RUN: u32 = 5;
/// Start depths: `STARTS` depths spread evenly over the big tenant.
const STARTS: usize = 64;
/// Threads (and pool size) per configuration.
const WALKERS: [usize; 3] = [1, 4, 16];
/// The index the `.force_index(..)` form names (the pagination benchmark's, on
/// `(tenant, at, id)`).
const INDEX: &str = "bench_rows_tenant_at_id";

/// How a walker reads its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `load_page` in the backend's default form.
    Keyset,
    /// `load_page` with `.force_index(INDEX)` (MariaDB).
    Forced,
    /// `ORDER BY at, id LIMIT 20 OFFSET n`.
    Offset,
}

impl Form {
    fn title(self) -> &'static str {
        match self {
            Form::Keyset => "keyset (default form)",
            Form::Forced => "keyset, `.force_index(..)`",
            Form::Offset => "OFFSET",
        }
    }
}

/// One start: the depth (rows before the page) and the cursor of the row at it.
type Start = (i64, Cursor<Asc>);

/// What one backend's connection reads.
trait Pages: R2D2Connection + Entries + Send + 'static {
    /// The ids of the page after `cursor`, and its next cursor.
    fn keyset(&mut self, cursor: Cursor<Asc>, form: Form) -> (Vec<i64>, Option<Cursor<Asc>>);
    /// The ids of the page at `OFFSET offset`.
    fn offset(&mut self, offset: i64) -> Vec<i64>;
    /// The key of the row at `depth` (0-based) of the big tenant.
    fn key_at(&mut self, depth: i64) -> (NaiveDateTime, i64);
}

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    value: String,
}

macro_rules! pages {
    ($conn:ty) => {
        impl Pages for $conn {
            fn keyset(
                &mut self,
                cursor: Cursor<Asc>,
                form: Form,
            ) -> (Vec<i64>, Option<Cursor<Asc>>) {
                let page = bench_rows::table
                    .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                    .select(Asc::as_select())
                    .paginate_after(Some(cursor))
                    .page_size(PAGE);
                let page = match form {
                    Form::Forced => page.force_index(INDEX),
                    _ => page,
                };
                let page = page.load_page(self).expect("keyset page");
                (
                    page.items.iter().map(|r| r.id).collect(),
                    page.next_cursor(),
                )
            }

            fn offset(&mut self, offset: i64) -> Vec<i64> {
                bench_rows::table
                    .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                    .select(Asc::as_select())
                    .order((bench_rows::at.asc(), bench_rows::id.asc()))
                    .limit(i64::from(PAGE))
                    .offset(offset)
                    .load::<Asc>(self)
                    .expect("OFFSET page")
                    .iter()
                    .map(|r| r.id)
                    .collect()
            }

            fn key_at(&mut self, depth: i64) -> (NaiveDateTime, i64) {
                bench_rows::table
                    .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                    .select((bench_rows::at, bench_rows::id))
                    .order((bench_rows::at.asc(), bench_rows::id.asc()))
                    .limit(1)
                    .offset(depth)
                    .first(self)
                    .expect("key at depth")
            }
        }
    };
}

pages!(PgConnection);
pages!(MysqlConnection);

/// What a server counts of the index entries it reads.
trait Entries {
    /// The server's counters of index entries read so far, over every connection (MariaDB:
    /// `Handler_icp_attempts` and `Handler_read_next + Handler_read_prev`; the entries read
    /// between two readings are the larger of the two differences, as the counter tests count
    /// them); `None` where the server keeps no such counter (PostgreSQL).
    fn entries(&mut self) -> Option<(u64, u64)>;
}

impl Entries for PgConnection {
    fn entries(&mut self) -> Option<(u64, u64)> {
        None
    }
}

impl Entries for MysqlConnection {
    fn entries(&mut self) -> Option<(u64, u64)> {
        let rows: Vec<Status> = diesel::sql_query(
            "SELECT CAST(VARIABLE_NAME AS CHAR) AS name, CAST(VARIABLE_VALUE AS CHAR) AS value \
             FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN \
             ('HANDLER_ICP_ATTEMPTS', 'HANDLER_READ_NEXT', 'HANDLER_READ_PREV')",
        )
        .load(self)
        .expect("global status");
        let get = |name: &str| {
            rows.iter()
                .find(|r| r.name.eq_ignore_ascii_case(name))
                .and_then(|r| r.value.parse::<u64>().ok())
                .unwrap_or(0)
        };
        Some((
            get("HANDLER_ICP_ATTEMPTS"),
            get("HANDLER_READ_NEXT") + get("HANDLER_READ_PREV"),
        ))
    }
}

/// One configuration's figures.
struct Outcome {
    backend: &'static str,
    form: Form,
    walkers: usize,
    pages: usize,
    elapsed: Duration,
    p50: Duration,
    p99: Duration,
    max: Duration,
    /// Index entries read per page, where the server counts them.
    entries_per_page: Option<f64>,
}

/// The start depths and their cursors, in the order walkers take them (a fixed shuffle, so
/// that concurrent walkers are at different depths).
fn starts<C: Pages>(conn: &mut C) -> Vec<Start> {
    let step = data::BIG_TENANT_ROWS / STARTS as i64;
    // 37 is coprime with 64: every start once per 64 runs, neighbours far apart.
    (0..STARTS)
        .map(|n| (n * 37) % STARTS)
        .map(|i| {
            let depth = i as i64 * step;
            (depth, Cursor::after(conn.key_at(depth)))
        })
        .collect()
}

/// Runs `walkers` threads reading `form` pages for `duration`.
fn measure<C: Pages>(
    backend: &'static str,
    status: &mut C,
    pool: &Pool<ConnectionManager<C>>,
    starts: &[Start],
    form: Form,
    walkers: usize,
    duration: Duration,
) -> Outcome {
    let next = AtomicUsize::new(0);
    let entries_before = status.entries();
    let started = Instant::now();
    let deadline = started + duration;
    let mut latencies: Vec<Duration> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..walkers)
            .map(|_| {
                s.spawn(|| {
                    let mut took = Vec::new();
                    while Instant::now() < deadline {
                        let (depth, start) = &starts[next.fetch_add(1, Ordering::Relaxed) % STARTS];
                        let mut cursor = start.clone();
                        for k in 0..RUN {
                            if Instant::now() >= deadline {
                                break;
                            }
                            let t = Instant::now();
                            let mut conn = pool.get().expect("a pooled connection");
                            let rows = match form {
                                Form::Offset => conn.offset(depth + 1 + i64::from(k * PAGE)).len(),
                                Form::Keyset | Form::Forced => {
                                    let (ids, next) = conn.keyset(cursor.clone(), form);
                                    cursor =
                                        next.expect("more rows after a page inside the tenant");
                                    ids.len()
                                }
                            };
                            drop(conn);
                            took.push(t.elapsed());
                            assert_eq!(rows, PAGE as usize, "a full page");
                        }
                    }
                    took
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("walker thread"))
            .collect()
    });
    let elapsed = started.elapsed();
    let entries = entries_before.zip(status.entries()).map(|(before, after)| {
        let icp = after.0.saturating_sub(before.0);
        let read = after.1.saturating_sub(before.1);
        icp.max(read) as f64 / latencies.len() as f64
    });
    latencies.sort_unstable();
    let at = |q: f64| {
        let i = ((latencies.len() as f64 * q).ceil() as usize).clamp(1, latencies.len()) - 1;
        latencies[i]
    };
    let outcome = Outcome {
        backend,
        form,
        walkers,
        pages: latencies.len(),
        elapsed,
        p50: at(0.50),
        p99: at(0.99),
        max: *latencies.last().expect("at least one page"),
        entries_per_page: entries,
    };
    eprintln!(
        "[concurrency] {backend} {} x{walkers}: {} pages in {:.1} s, p50 {:?}, p99 {:?}",
        form.title(),
        outcome.pages,
        elapsed.as_secs_f64(),
        outcome.p50,
        outcome.p99
    );
    outcome
}

/// Every form and walker count on one backend, after checking the forms read the same rows.
fn backend<C: Pages>(
    name: &'static str,
    url: &str,
    forms: &[Form],
    duration: Duration,
) -> Vec<Outcome> {
    let mut conn = C::establish(url).unwrap_or_else(|e| panic!("{name} at {url}: {e}"));
    let starts = starts(&mut conn);
    for (depth, cursor) in starts.iter().step_by(8) {
        let expected = conn.offset(depth + 1);
        for form in forms.iter().filter(|f| **f != Form::Offset) {
            let (ids, _) = conn.keyset(cursor.clone(), *form);
            assert_eq!(ids, expected, "{name} {form:?} after depth {depth}");
        }
    }
    let mut out = Vec::new();
    for &walkers in &WALKERS {
        let pool = Pool::builder()
            .max_size(walkers as u32)
            .min_idle(Some(walkers as u32))
            .build(ConnectionManager::<C>::new(url))
            .expect("connection pool");
        for &form in forms {
            out.push(measure(
                name, &mut conn, &pool, &starts, form, walkers, duration,
            ));
        }
    }
    out
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

fn render(outcomes: &[Outcome], duration: Duration, took: Duration, load: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::CONCURRENCY.start);
    let _ = writeln!(s, "## 4a. Concurrent walkers\n");
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh concurrency` (`cargo bench -p keyset-bench --bench \
         concurrency`; the full run includes it) on {} UTC, load average at the start {load}; \
         the measurement took {:.1} minutes. Tenant 1 ({} rows), `at ASC, id ASC`, every \
         column selected (the `payload` text is not in the index). Each walker is a thread: it \
         takes the next of {STARTS} start depths (spread evenly from 0 to {}, in a fixed \
         shuffled order, the same for every form), reads {RUN} consecutive pages of {PAGE} rows \
         from there, and takes a connection from an r2d2 pool (as many connections as \
         walkers) for each page, as a request handler would; the latency of a page includes \
         taking the connection. Keyset pages follow `next_cursor` from the cursor of the row \
         at the start depth; OFFSET pages read the same rows with `OFFSET depth + 1 + 20k`. \
         Each configuration runs for {} s (a page under way at the end finishes and counts). \
         The machine has {} cores: beyond that, walkers wait for each other, and the \
         database's own threads share the same cores.\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M"),
        took.as_secs_f64() / 60.0,
        group(data::BIG_TENANT_ROWS as u64),
        group((data::BIG_TENANT_ROWS / STARTS as i64 * (STARTS as i64 - 1)) as u64),
        duration.as_secs(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
    );
    let _ = writeln!(
        s,
        "| backend | form | walkers | pages | pages/s | p50 page | p99 page | slowest page | \
         pages/s / OFFSET's | index entries read per page |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for o in outcomes {
        let rate = o.pages as f64 / o.elapsed.as_secs_f64();
        let offset = outcomes
            .iter()
            .find(|x| x.backend == o.backend && x.walkers == o.walkers && x.form == Form::Offset)
            .map(|x| x.pages as f64 / x.elapsed.as_secs_f64());
        let vs = match (o.form, offset) {
            (Form::Offset, _) | (_, None) => "—".to_string(),
            (_, Some(off)) => format!("{:.0}×", rate / off),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {vs} | {} |",
            match o.backend {
                "postgres" => "PostgreSQL",
                _ => "MariaDB",
            },
            o.form.title(),
            o.walkers,
            group(o.pages as u64),
            group(rate.round() as u64),
            ms(o.p50),
            ms(o.p99),
            ms(o.max),
            o.entries_per_page
                .map_or("—".to_string(), |e| group(e.round() as u64)),
        );
    }
    let forced: Vec<String> = WALKERS
        .iter()
        .filter_map(|&w| {
            let find = |form| {
                outcomes
                    .iter()
                    .find(|o| o.backend == "mysql" && o.walkers == w && o.form == form)
            };
            let (default, forced) = (find(Form::Keyset)?, find(Form::Forced)?);
            let rate = |o: &Outcome| o.pages as f64 / o.elapsed.as_secs_f64();
            Some(format!(
                "{w} walker{}: {:.1}× the pages/s, p99 {} against {}",
                if w == 1 { "" } else { "s" },
                rate(forced) / rate(default),
                ms(forced.p99),
                ms(default.p99)
            ))
        })
        .collect();
    if !forced.is_empty() {
        let _ = writeln!(
            s,
            "\nMariaDB with the index named (`.force_index(..)`, or declared on the model with \
             `#[keyset(index = \"..\")]`) against its default form (the deferred join): {}. \
             The index entries column counts what the server read per page (over every \
             connection, during the configuration): where the default form's figure is far \
             above the page size, its inner seek was planned as `ref` access reading the index \
             from the start of the tenant, the case [the SQL guide](../keyset-diesel/src/guide/sql.md) describes under \
             \"Naming the index\".",
            forced.join("; ")
        );
    }
    let _ = writeln!(
        s,
        "\nOFFSET's cost grows with the depth, so its pages/s depend on the start depths \
         (the mean depth here is half the tenant); a keyset page costs the same at every \
         depth. A configuration with few pages has a p99 that is its slowest pages: read the \
         pages column with it. SQLite is not here: one file, one writer, and its connections \
         in one process are what the single-walker figures of section 1 already measure.\n"
    );
    let _ = writeln!(s, "{}", section::CONCURRENCY.end);
    s
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here takes arguments.
    let started = Instant::now();
    let load = std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let duration = Duration::from_secs(
        std::env::var("KEYSET_BENCH_CONCURRENCY_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(8),
    );
    let selected = std::env::var("KEYSET_BENCH_BACKENDS")
        .unwrap_or_else(|_| "postgres,sqlite,mysql".to_string());
    let mut outcomes = Vec::new();
    for name in selected.split(',').map(str::trim) {
        match name {
            "postgres" => {
                let base = std::env::var("KEYSET_PG_URL")
                    .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
                let mut conn = PgConnection::establish(&base).unwrap_or_else(|e| {
                    panic!(
                        "PostgreSQL is not reachable at {base} ({e}): run `bash scripts/setup.sh`"
                    )
                });
                conn.batch_execute(
                    "CREATE SCHEMA IF NOT EXISTS keyset_bench; SET search_path TO keyset_bench",
                )
                .expect("schema keyset_bench");
                if !data::is_complete(&mut conn) {
                    eprintln!("[concurrency] PostgreSQL: loading {} rows", data::ROWS);
                    data::load_postgres(&mut conn).expect("load the data set");
                }
                drop(conn);
                // Every pooled connection reads the benchmark's schema.
                let sep = if base.contains('?') { '&' } else { '?' };
                let url = format!("{base}{sep}options=-csearch_path%3Dkeyset_bench");
                outcomes.extend(backend::<PgConnection>(
                    "postgres",
                    &url,
                    &[Form::Keyset, Form::Offset],
                    duration,
                ));
            }
            "mysql" => {
                let base = std::env::var("KEYSET_MYSQL_URL")
                    .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_string());
                let base = base.trim_end_matches('/');
                let mut admin = MysqlConnection::establish(&format!("{base}/test"))
                    .unwrap_or_else(|e| {
                        panic!("MariaDB/MySQL is not reachable at {base} ({e}): run `bash scripts/setup.sh`")
                    });
                admin
                    .batch_execute("CREATE DATABASE IF NOT EXISTS keyset_bench")
                    .expect("database keyset_bench");
                drop(admin);
                let url = format!("{base}/keyset_bench");
                let mut conn = MysqlConnection::establish(&url).expect("keyset_bench database");
                if !data::is_complete(&mut conn) {
                    eprintln!("[concurrency] MariaDB: loading {} rows", data::ROWS);
                    data::load_mysql(&mut conn).expect("load the data set");
                }
                drop(conn);
                outcomes.extend(backend::<MysqlConnection>(
                    "mysql",
                    &url,
                    &[Form::Keyset, Form::Forced, Form::Offset],
                    duration,
                ));
            }
            // One file, one process: not a concurrency case here (see the report).
            "sqlite" => {}
            other => panic!("unknown backend {other}: use postgres, mysql"),
        }
    }
    if outcomes.is_empty() {
        eprintln!("[concurrency] no PostgreSQL or MariaDB selected: nothing written");
        return;
    }
    let text = render(&outcomes, duration, started.elapsed(), &load);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, section::CONCURRENCY.replace(&doc, &text))
        .expect("write reports/PERFORMANCE.md");
    eprintln!("[concurrency] wrote section 4a of {}", path.display());
}
