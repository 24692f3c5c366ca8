//! Ten million rows on one tenant, PostgreSQL and SQLite: the page at depth
//! 5,000,000 against the first page for the three keyset shapes, and a full walk of the tenant
//! at page size 1,000 with its rows/s and peak memory. Writes section 4b of
//! `reports/PERFORMANCE.md` in place.
//!
//! `bash scripts/bench.sh scale` (or `cargo bench -p keyset-bench --bench scale`; not part of
//! the full run, whose data set is ten times smaller). The data set is the pagination
//! benchmark's generator at 13,000,130 rows, so tenant 1 holds 10,000,100 of them (PostgreSQL
//! schema `keyset_scale`, SQLite file `<target>/keyset-bench/scale.sqlite3`), loaded on the
//! first run (several minutes per backend, about 3 GB each with its indexes) and reused while
//! it is complete. With `partitioned` (selected by default), the same rows with `at` over 27
//! months in a PostgreSQL table range-partitioned by month (schema `keyset_scale_parts`): the
//! page at depth 5,000,000 against the first page, with and without `.expanded_seek(true)`,
//! written as section 4d. `KEYSET_BENCH_BACKENDS=postgres` (or `sqlite`, `partitioned`, or a
//! comma-separated list) runs a subset; each section is written only when its backends ran.
//!
//! Depth figures: [`SAMPLES`] reads of the first page and [`SAMPLES`] of the deep page,
//! alternating (so a slow moment of the machine falls on both), after [`WARM_UP`] uncounted
//! reads of each; the median of each, and their ratio. Before timing, the deep page is checked
//! equal to the same rows read by `OFFSET`.

#[allow(dead_code)]
#[path = "../pagination/alloc.rs"]
mod alloc;
#[allow(dead_code)]
#[path = "../pagination/data.rs"]
mod data;
#[path = "../pagination/dirs.rs"]
mod dirs;
#[path = "../pagination/numbers.rs"]
mod numbers;
#[allow(dead_code)] // LongTies is not measured here.
#[path = "../pagination/schema.rs"]
mod schema;
#[path = "../pagination/section.rs"]
mod section;
#[macro_use]
mod depth;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use keyset_diesel::{Cursor, Keyset, PaginateDsl, Paginated};

use crate::depth::{median, Depth};
use crate::numbers::group;
use crate::schema::{bench_rows, Asc, Desc, Mixed};

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

/// Rows in the table: 13 × 1,000,010, of which tenant 1 holds 10 of every 13.
const ROWS: i64 = 13_000_130;
/// Tenant 1's rows.
const TENANT_ROWS: i64 = 10_000_100;
/// Marks a complete load of this data set.
const VERSION: &str =
    "keyset-bench scale data v1: 13000130 rows, tenants 1-4 (10:1:1:1), ties 10/10/10000";
/// The deep page's depth (rows before it).
const DEPTH: i64 = 5_000_000;
/// Rows per page of the depth figures.
const PAGE: u32 = 20;
/// Rows per page of the full walk.
const WALK_PAGE: u32 = 1_000;
/// Timed reads per page and side.
const SAMPLES: usize = 300;
/// Uncounted reads per page before timing.
const WARM_UP: usize = 20;
/// The target: deep page / first page.
const TARGET: f64 = 1.2;
/// The partitioned table's monthly partitions (its rows fill 27 of them).
const MONTHS: u32 = 28;
/// Marks a complete load of the partitioned table.
const PART_VERSION: &str = "keyset-bench scale partitioned v1: 13000130 rows, at 70 s apart per \
     10 ties from 2024-01-01, 28 monthly partitions";
/// The partitioned table's target: deep page / first page.
const PART_TARGET: f64 = 1.3;

/// The data set with `at` over 27 months, in a table range-partitioned by month on `at`
/// (schema `keyset_scale_parts`): the index recipe of the SQL guide, the keysets' indexes
/// created on the parent.
fn fill_partitioned(conn: &mut PgConnection, rows: i64, version: &str) -> QueryResult<()> {
    let mut sql = String::from(
        "SET client_min_messages TO warning;
         DROP TABLE IF EXISTS bench_meta;
         DROP TABLE IF EXISTS bench_rows;
         CREATE TABLE bench_rows (
             id BIGINT NOT NULL, tenant INTEGER NOT NULL, at TIMESTAMP NOT NULL,
             score INTEGER NOT NULL, grade INTEGER NOT NULL, payload TEXT NOT NULL)
         PARTITION BY RANGE (at);",
    );
    for m in 0..MONTHS {
        let _ = write!(
            sql,
            "CREATE TABLE bench_rows_{m} PARTITION OF bench_rows FOR VALUES
                 FROM (TIMESTAMP '2024-01-01' + INTERVAL '{m} months')
                 TO (TIMESTAMP '2024-01-01' + INTERVAL '{} months');",
            m + 1
        );
    }
    let _ = write!(
        sql,
        "INSERT INTO bench_rows {}; {}",
        data::postgres_rows_from(rows, "2024-01-01 00:00:00", "70 seconds"),
        data::INDEXES
    );
    conn.batch_execute(&sql)?;
    conn.batch_execute("VACUUM ANALYZE bench_rows")?;
    conn.batch_execute(&format!(
        "CREATE TABLE bench_meta (version TEXT NOT NULL);
         INSERT INTO bench_meta VALUES ('{version}');"
    ))
}

/// The full walk's figures.
struct WalkFigures {
    backend: &'static str,
    pages: u64,
    rows: u64,
    seconds: f64,
    page_median: Duration,
    page_p99: Duration,
    heap_peak: u64,
    rss_peak: Option<u64>,
}

/// Walks tenant 1 (`at ASC, id ASC`) at [`WALK_PAGE`] rows per page, checking the order and
/// the count.
fn walk<C>(conn: &mut C, backend: &'static str) -> WalkFigures
where
    C: Connection,
    C::Backend: keyset_diesel::KeysetBackend,
    diesel::dsl::Select<
        diesel::dsl::Filter<bench_rows::table, diesel::dsl::Eq<bench_rows::tenant, i32>>,
        diesel::dsl::AsSelect<Asc, C::Backend>,
    >: keyset_diesel::LoadPage<'static, C, Asc>,
{
    let mut page_times: Vec<Duration> =
        Vec::with_capacity((TENANT_ROWS as usize).div_ceil(WALK_PAGE as usize) + 1);
    let heap_before = alloc::current();
    alloc::reset_peak();
    let rss_reset = alloc::reset_rss_peak();
    let rss_before = alloc::rss();
    let started = Instant::now();
    let mut cursor = None;
    let (mut pages, mut rows) = (0u64, 0u64);
    let mut last: Option<(chrono::NaiveDateTime, i64)> = None;
    loop {
        let t = Instant::now();
        let page = bench_rows::table
            .filter(bench_rows::tenant.eq(data::BIG_TENANT))
            .select(Asc::as_select())
            .paginate_after(cursor.take())
            .page_size(WALK_PAGE)
            .load_page(conn)
            .expect("walk page");
        page_times.push(t.elapsed());
        pages += 1;
        rows += page.items.len() as u64;
        for row in &page.items {
            let key = (row.at, row.id);
            assert!(last.is_none_or(|l| l < key), "walk out of order");
            last = Some(key);
        }
        cursor = page.next_cursor();
        if cursor.is_none() {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let heap_peak = alloc::peak().saturating_sub(heap_before) as u64;
    let rss_peak = match (rss_reset, rss_before, alloc::rss_peak()) {
        (true, Some(before), Some(peak)) => Some(peak.saturating_sub(before)),
        _ => None,
    };
    assert_eq!(rows, TENANT_ROWS as u64, "the walk read every row once");
    page_times.sort();
    let p99 = page_times[(page_times.len() - 1) * 99 / 100];
    let figures = WalkFigures {
        backend,
        pages,
        rows,
        seconds,
        page_median: page_times[page_times.len() / 2],
        page_p99: p99,
        heap_peak,
        rss_peak,
    };
    eprintln!(
        "[scale] {backend} walk: {rows} rows in {pages} pages, {seconds:.1} s, heap peak +{heap_peak} B, RSS peak +{rss_peak:?} B"
    );
    figures
}

fn backend_title(b: &str) -> &'static str {
    match b {
        "postgres" => "PostgreSQL",
        _ => "SQLite",
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn render(
    depths: &[Depth],
    walks: &[WalkFigures],
    loads: &[String],
    took: Duration,
    load_avg: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::SCALE.start);
    let _ = writeln!(s, "## 4b. Ten million rows on one tenant\n");
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh scale` (`cargo bench -p keyset-bench --bench scale`; \
         not part of the full run) on {} UTC; the run took {:.1} minutes (load average at the \
         start: {load_avg}). {}\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M"),
        took.as_secs_f64() / 60.0,
        loads.join(" ")
    );
    let _ = writeln!(
        s,
        "The data set is the one of section 1 at {} rows, so tenant 1 holds {} rows (PostgreSQL \
         schema `keyset_scale`; SQLite file `<target>/keyset-bench/scale.sqlite3`), with the \
         same indexes. The page after the row at depth {} and the first page ({PAGE} rows, the \
         same models and queries as section 1) are read {SAMPLES} times each, alternating, \
         after {WARM_UP} uncounted reads of each; the figures are the medians, and the deep \
         page was first checked equal to the rows `OFFSET` reads there. Wall-clock times on \
         our 2-core machine, like section 1: the ratio is the figure to read.\n",
        group(ROWS as u64),
        group(TENANT_ROWS as u64),
        group(DEPTH as u64)
    );
    let _ = writeln!(
        s,
        "| backend | shape | first page | page at depth {} | deep / first | target ≤ {TARGET} |",
        group(DEPTH as u64)
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---|");
    for d in depths {
        let ratio = d.deep.as_secs_f64() / d.first.as_secs_f64();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {ratio:.2} | {} |",
            backend_title(d.backend),
            d.shape,
            ms(d.first),
            ms(d.deep),
            if ratio <= TARGET { "met" } else { "**missed**" }
        );
    }
    let _ = writeln!(
        s,
        "\nIn this tenant each `score` value holds about 100 rows (section 1's tenant: about \
         10), and a later page of the mixed keyset reads the cursor's run of ties from its \
         start to the cursor: up to 100 index entries before the page ([the SQL guide](../keyset-diesel/src/guide/sql.md), \"Long runs \
         of ties\"). `.seek_per_level(true)` starts each level's range at the cursor instead, \
         at the price of a union of one statement per level on every later page (its first \
         page is the same statement as the row above): its row shows which costs more at this \
         run length.\n"
    );
    let _ = writeln!(
        s,
        "The full walk: every row of tenant 1 by `at ASC, id ASC`, {} rows per page, following \
         `next_cursor` from the first page to the last (each row checked after the one before \
         it, the count checked at the end). Peak heap is the growth of the Rust heap during the \
         walk (a counting allocator); peak resident set is the growth of the process's `VmHWM`, \
         which also holds the client libraries' own buffers (libpq, SQLite's page cache).\n",
        group(u64::from(WALK_PAGE))
    );
    let _ = writeln!(
        s,
        "| backend | rows | pages | time | rows/s | page median | page p99 | peak heap | peak resident set |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for w in walks {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} s | {} | {} | {} | {} | {} |",
            backend_title(w.backend),
            group(w.rows),
            group(w.pages),
            w.seconds,
            group((w.rows as f64 / w.seconds).round() as u64),
            ms(w.page_median),
            ms(w.page_p99),
            mib(w.heap_peak),
            w.rss_peak.map_or_else(|| "not measured".to_string(), mib)
        );
    }
    let _ = writeln!(
        s,
        "\nThe heap a walk needs is one page of rows and the statement's buffers: it does not \
         grow with the tenant (compare section 4's walks of 100,007 and 1,000,079 rows)."
    );
    let _ = write!(s, "{}", section::SCALE.end);
    s
}

/// Loads the data set into `conn` unless it is there; says which.
fn ensure<C>(conn: &mut C, fill: fn(&mut C, i64, &str) -> QueryResult<()>, name: &str) -> String
where
    C: Connection,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, data::Version>
        + diesel::query_dsl::LoadQuery<'static, C, data::Count>,
{
    ensure_as(conn, fill, name, VERSION)
}

/// [`ensure`] for the data set marked `version`.
fn ensure_as<C>(
    conn: &mut C,
    fill: fn(&mut C, i64, &str) -> QueryResult<()>,
    name: &str,
    version: &str,
) -> String
where
    C: Connection,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, data::Version>
        + diesel::query_dsl::LoadQuery<'static, C, data::Count>,
{
    if data::is_complete_as(conn, ROWS, version) {
        return format!("{name}: the data set was already loaded.");
    }
    eprintln!("[scale] {name}: loading {ROWS} rows");
    let started = Instant::now();
    fill(conn, ROWS, version).expect("load the data set");
    format!(
        "{name}: the data set was loaded in this run ({:.1} minutes).",
        started.elapsed().as_secs_f64() / 60.0
    )
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here takes arguments.
    let started = Instant::now();
    let load_avg = std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let selected = std::env::var("KEYSET_BENCH_BACKENDS")
        .unwrap_or_else(|_| "postgres,sqlite,partitioned".to_string());
    let (mut depths, mut walks, mut loads) = (Vec::new(), Vec::new(), Vec::new());
    let (mut parts, mut part_load) = (Vec::new(), String::new());
    for name in selected.split(',').map(str::trim) {
        match name {
            "postgres" => {
                let mut conn = pg_connect();
                conn.batch_execute(
                    "CREATE SCHEMA IF NOT EXISTS keyset_scale; SET search_path TO keyset_scale",
                )
                .expect("schema keyset_scale");
                loads.push(ensure(&mut conn, data::fill_postgres, "PostgreSQL"));
                let c = &mut conn;
                depths.push(depth!(
                    &mut *c,
                    "postgres",
                    "ASC `at, id`",
                    Asc,
                    (bench_rows::at.asc(), bench_rows::id.asc())
                ));
                depths.push(depth!(
                    &mut *c,
                    "postgres",
                    "DESC `at DESC, id DESC`",
                    Desc,
                    (bench_rows::at.desc(), bench_rows::id.desc())
                ));
                depths.push(depth!(
                    &mut *c,
                    "postgres",
                    "mixed `score DESC, id ASC`",
                    Mixed,
                    (bench_rows::score.desc(), bench_rows::id.asc())
                ));
                depths.push(depth!(
                    &mut *c,
                    "postgres",
                    "mixed, `.seek_per_level(true)`",
                    Mixed,
                    (bench_rows::score.desc(), bench_rows::id.asc()),
                    |page: keyset_diesel::Paginated<_, Mixed>| page.seek_per_level(true)
                ));
                walks.push(walk(&mut *c, "postgres"));
            }
            "sqlite" => {
                let path = dirs::bench_dir().join("scale.sqlite3");
                let mut conn =
                    SqliteConnection::establish(&path.to_string_lossy()).expect("the SQLite file");
                loads.push(ensure(&mut conn, data::fill_sqlite, "SQLite"));
                let c = &mut conn;
                depths.push(depth!(
                    &mut *c,
                    "sqlite",
                    "ASC `at, id`",
                    Asc,
                    (bench_rows::at.asc(), bench_rows::id.asc())
                ));
                depths.push(depth!(
                    &mut *c,
                    "sqlite",
                    "DESC `at DESC, id DESC`",
                    Desc,
                    (bench_rows::at.desc(), bench_rows::id.desc())
                ));
                depths.push(depth!(
                    &mut *c,
                    "sqlite",
                    "mixed `score DESC, id ASC`",
                    Mixed,
                    (bench_rows::score.desc(), bench_rows::id.asc())
                ));
                depths.push(depth!(
                    &mut *c,
                    "sqlite",
                    "mixed, `.seek_per_level(true)`",
                    Mixed,
                    (bench_rows::score.desc(), bench_rows::id.asc()),
                    |page: keyset_diesel::Paginated<_, Mixed>| page.seek_per_level(true)
                ));
                walks.push(walk(&mut *c, "sqlite"));
            }
            "partitioned" => {
                let mut conn = pg_connect();
                conn.batch_execute(
                    "CREATE SCHEMA IF NOT EXISTS keyset_scale_parts; \
                     SET search_path TO keyset_scale_parts",
                )
                .expect("schema keyset_scale_parts");
                part_load = ensure_as(
                    &mut conn,
                    fill_partitioned,
                    "PostgreSQL, partitioned",
                    PART_VERSION,
                );
                let c = &mut conn;
                let asc = (bench_rows::at.asc(), bench_rows::id.asc());
                let desc = (bench_rows::at.desc(), bench_rows::id.desc());
                let expanded_asc = |p: Paginated<_, Asc>| p.expanded_seek(true);
                let expanded_desc = |p: Paginated<_, Desc>| p.expanded_seek(true);
                parts.push(depth!(&mut *c, "postgres", "ASC `at, id`", Asc, asc));
                parts.push(depth!(
                    &mut *c,
                    "postgres",
                    "ASC `at, id`, `.expanded_seek(true)`",
                    Asc,
                    asc,
                    expanded_asc
                ));
                parts.push(depth!(
                    &mut *c,
                    "postgres",
                    "DESC `at DESC, id DESC`",
                    Desc,
                    desc
                ));
                parts.push(depth!(
                    &mut *c,
                    "postgres",
                    "DESC `at DESC, id DESC`, `.expanded_seek(true)`",
                    Desc,
                    desc,
                    expanded_desc
                ));
                parts.push(depth!(
                    &mut *c,
                    "postgres",
                    "mixed `score DESC, id ASC`",
                    Mixed,
                    (bench_rows::score.desc(), bench_rows::id.asc())
                ));
            }
            other => panic!("unknown backend {other}: use postgres, sqlite, partitioned"),
        }
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let mut doc = std::fs::read_to_string(&path).unwrap_or_default();
    if !depths.is_empty() {
        let text = render(&depths, &walks, &loads, started.elapsed(), &load_avg);
        doc = section::SCALE.replace(&doc, &text);
        eprintln!("[scale] writing section 4b");
    }
    if !parts.is_empty() {
        let text = render_partitioned(&parts, &part_load, started.elapsed(), &load_avg);
        doc = section::PARTITIONED.replace(&doc, &text);
        eprintln!("[scale] writing section 4d");
    }
    std::fs::write(&path, doc).expect("write reports/PERFORMANCE.md");
    eprintln!("[scale] wrote {}", path.display());
}

fn pg_connect() -> PgConnection {
    let url = std::env::var("KEYSET_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
    PgConnection::establish(&url).unwrap_or_else(|e| {
        panic!("PostgreSQL is not reachable at {url} ({e}): run `bash scripts/setup.sh`")
    })
}

/// Section 4d: the partitioned table's depth figures.
fn render_partitioned(depths: &[Depth], load: &str, took: Duration, load_avg: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::PARTITIONED.start);
    let _ = writeln!(
        s,
        "## 4d. Ten million rows in monthly partitions (PostgreSQL)\n"
    );
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh scale` (with section 4b; \
         `KEYSET_BENCH_BACKENDS=partitioned` writes this section alone) on {} UTC; the run took {:.1} minutes (load average at the start: {load_avg}). \
         {load}\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M"),
        took.as_secs_f64() / 60.0
    );
    let _ = writeln!(
        s,
        "Section 4b's {} rows (tenant 1: {}) with `at` 70 seconds apart per run of 10 ties from \
         2024-01-01, so they fill 27 months, in a table range-partitioned by month on `at` \
         ({MONTHS} partitions; schema `keyset_scale_parts`) with section 1's indexes created on \
         the parent (the recipe in [the SQL guide](../keyset-diesel/src/guide/sql.md), \"Partitioned tables\"). The page after the \
         row at depth {} of tenant 1 (in the 14th month) against the first page, {PAGE} rows, read as in \
         section 4b. The default seek of a one-direction keyset is a row value, which \
         PostgreSQL does not prune partitions on: each partition before the cursor is one \
         index descent that finds nothing. `.expanded_seek(true)` writes the seek with a bound \
         on `at` that prunes them. The mixed keyset leads with `score`, not the partition key: \
         every page, the first included, merges one index range from each of the 27 partitions \
         holding rows, and a later page's expanded seek starts each range at the cursor's \
         `score` and filters the rows that tie with the cursor before it (about 100 rows of \
         tenant 1 share a `score`, spread over the partitions; section 4b's mixed row pays \
         the same on one table). A keyset that leads with the partition key is the shape a \
         partitioned table pages best.\n",
        group(ROWS as u64),
        group(TENANT_ROWS as u64),
        group(DEPTH as u64)
    );
    let _ = writeln!(
        s,
        "| shape | first page | page at depth {} | deep / first | target ≤ {PART_TARGET} |",
        group(DEPTH as u64)
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---|");
    for d in depths {
        let ratio = d.deep.as_secs_f64() / d.first.as_secs_f64();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {ratio:.2} | {} |",
            d.shape,
            ms(d.first),
            ms(d.deep),
            if ratio <= PART_TARGET {
                "met"
            } else {
                "**missed**"
            }
        );
    }
    let _ = write!(s, "\n{}", section::PARTITIONED.end);
    s
}
