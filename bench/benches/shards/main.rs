//! A table partitioned across PostgreSQL servers: section 1's data set (1,300,100
//! rows, tenant 1 holding 1,000,079) in a parent hash-partitioned on `id` whose two partitions
//! are `postgres_fdw` foreign tables on the shard clusters of `scripts/setup.sh` (ports 5433
//! and 5434, `KEYSET_SHARD_PORTS`). For the three keyset shapes with `.expanded_seek(true)`:
//! the page after the row at depth 1,000,000 against the first page, and the rows each shard
//! sends for one deep page (its `pg_stat_statements` rows of postgres_fdw's `FETCH`es).
//! Writes section 4c of `reports/PERFORMANCE.md` in place.
//!
//! `bash scripts/bench.sh shards` (or `cargo bench -p keyset-bench --bench shards`; not part of
//! the full run). The parent lives in schema `keyset_shards` of the test server, each shard's
//! table in schema `keyset_shards` of the shard's `test` database; loaded on the first run
//! (through the parent, about two minutes) and reused while complete.

#[path = "../pagination/data.rs"]
#[allow(dead_code)]
mod data;
#[path = "../pagination/numbers.rs"]
mod numbers;
#[allow(dead_code)]
#[path = "../pagination/schema.rs"]
mod schema;
#[path = "../pagination/section.rs"]
mod section;
#[macro_use]
#[path = "../scale/depth.rs"]
mod depth;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use keyset_diesel::{Cursor, Keyset, PaginateDsl, Paginated};

use crate::depth::{median, Depth};
use crate::numbers::group;
use crate::schema::{bench_rows, Asc, Desc, Mixed};

/// Rows in the table: section 1's data set.
const ROWS: i64 = data::ROWS;
/// Marks a complete load of this data set.
const VERSION: &str =
    "keyset-bench shards data v1: 1300100 rows, hash-partitioned on id across 2 servers";
/// The deep page's depth (rows before it).
const DEPTH: i64 = 1_000_000;
/// A depth in the middle of the tenant, where many rows follow the cursor.
const MIDDLE: i64 = 500_000;
/// Rows per page.
const PAGE: u32 = 20;
/// postgres_fdw's rows per batch: one page and the look-ahead row.
const FETCH: u32 = PAGE + 1;
/// Timed reads per page and side.
const SAMPLES: usize = 300;
/// Uncounted reads per page before timing.
const WARM_UP: usize = 20;
/// Section 1's target for a deep page: deep page / first page.
const TARGET: f64 = 1.5;
/// Servers, foreign tables and shard tables carry this schema name.
const SCHEMA: &str = "keyset_shards";

#[derive(QueryableByName)]
struct Sum {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The shard clusters' ports: `KEYSET_SHARD_PORTS` (comma-separated) or 5433 and 5434.
fn shard_ports() -> Vec<u16> {
    std::env::var("KEYSET_SHARD_PORTS")
        .unwrap_or_else(|_| "5433,5434".to_string())
        .split(',')
        .map(|p| p.trim().parse().expect("KEYSET_SHARD_PORTS: ports"))
        .collect()
}

fn connect(url: &str) -> PgConnection {
    PgConnection::establish(url).unwrap_or_else(|e| {
        panic!("PostgreSQL is not reachable at {url} ({e}): run `bash scripts/setup.sh`")
    })
}

/// Rows each shard has sent in `FETCH {FETCH}` statements, cumulative.
fn rows_sent(shards: &mut [PgConnection]) -> Vec<i64> {
    shards
        .iter_mut()
        .map(|shard| {
            diesel::sql_query(format!(
                "SELECT COALESCE(SUM(rows), 0)::bigint AS n FROM public.pg_stat_statements \
                 WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                 AND query LIKE 'FETCH {FETCH} FROM %'"
            ))
            .get_result::<Sum>(shard)
            .expect("pg_stat_statements on the shard (scripts/setup.sh preloads it)")
            .n
        })
        .collect()
}

/// Creates the shard tables, the servers and the parent, and loads the data set through the
/// parent (PostgreSQL routes each row to its shard); then the keysets' indexes and `ANALYZE`
/// on each shard, and `ANALYZE` of the parent (foreign tables have no statistics otherwise).
fn load(conn: &mut PgConnection, shards: &mut [PgConnection], ports: &[u16]) {
    let modulus = shards.len();
    for shard in shards.iter_mut() {
        shard
            .batch_execute(&format!(
                "SET client_min_messages TO warning;
                 CREATE SCHEMA IF NOT EXISTS {SCHEMA}; SET search_path TO {SCHEMA};
                 DROP TABLE IF EXISTS bench_rows;
                 CREATE TABLE bench_rows (
                     id BIGINT PRIMARY KEY, tenant INTEGER NOT NULL, at TIMESTAMP NOT NULL,
                     score INTEGER NOT NULL, grade INTEGER NOT NULL, payload TEXT NOT NULL);"
            ))
            .expect("shard table");
    }
    let mut sql = String::from(
        "SET client_min_messages TO warning;
         DROP TABLE IF EXISTS bench_meta;
         DROP TABLE IF EXISTS bench_rows;
         CREATE EXTENSION IF NOT EXISTS postgres_fdw SCHEMA public;
         CREATE TABLE bench_rows (
             id BIGINT NOT NULL, tenant INTEGER NOT NULL, at TIMESTAMP NOT NULL,
             score INTEGER NOT NULL, grade INTEGER NOT NULL, payload TEXT NOT NULL)
         PARTITION BY HASH (id);",
    );
    for (n, port) in ports.iter().enumerate() {
        let server = format!("{SCHEMA}_{n}");
        let _ = write!(
            sql,
            "DROP SERVER IF EXISTS {server} CASCADE;
             CREATE SERVER {server} FOREIGN DATA WRAPPER postgres_fdw OPTIONS
                 (host '127.0.0.1', port '{port}', dbname 'test', fetch_size '{FETCH}',
                  batch_size '1000');
             CREATE USER MAPPING FOR CURRENT_USER SERVER {server} OPTIONS (user 'postgres');
             CREATE FOREIGN TABLE bench_rows_{n} PARTITION OF bench_rows
                 FOR VALUES WITH (MODULUS {modulus}, REMAINDER {n}) SERVER {server}
                 OPTIONS (schema_name '{SCHEMA}', table_name 'bench_rows');"
        );
    }
    let _ = write!(sql, "INSERT INTO bench_rows {};", data::postgres_rows(ROWS));
    conn.batch_execute(&sql).expect("load the sharded table");
    for shard in shards.iter_mut() {
        shard.batch_execute(data::INDEXES).expect("shard indexes");
        shard
            .batch_execute("VACUUM ANALYZE bench_rows")
            .expect("shard ANALYZE");
    }
    conn.batch_execute(&format!(
        "ANALYZE bench_rows;
         CREATE TABLE bench_meta (version TEXT NOT NULL);
         INSERT INTO bench_meta VALUES ('{VERSION}');"
    ))
    .expect("parent ANALYZE");
}

/// The rows each shard sends for the page after the row at `$depth` of `$model`.
macro_rules! sent {
    ($conn:expr, $shards:expr, $model:ty, $order:expr, $depth:expr) => {{
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                .select(<$model>::as_select())
        };
        let row: $model = base()
            .order($order)
            .offset($depth - 1)
            .limit(1)
            .get_result($conn)
            .expect("the row before the deep page");
        let before = rows_sent($shards);
        let page = base()
            .paginate_after(Some(Cursor::after(row.key())))
            .page_size(PAGE)
            .expanded_seek(true)
            .load_page($conn)
            .expect("deep page");
        assert_eq!(page.items.len(), PAGE as usize);
        let after = rows_sent($shards);
        after
            .iter()
            .zip(&before)
            .map(|(a, b)| a - b)
            .collect::<Vec<i64>>()
    }};
}

fn per_shard(sent: &[i64]) -> String {
    sent.iter()
        .map(|n| group(*n as u64))
        .collect::<Vec<_>>()
        .join(", ")
}

fn ms(d: std::time::Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn render(depths: &[(Depth, [Vec<i64>; 2])], load: &str, took: std::time::Duration) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::SHARDS.start);
    let _ = writeln!(s, "## 4c. A table partitioned across PostgreSQL servers\n");
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh shards` (`cargo bench -p keyset-bench --bench \
         shards`; not part of the full run) on {} UTC; the run took {:.1} minutes. {load}\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M"),
        took.as_secs_f64() / 60.0
    );
    let _ = writeln!(
        s,
        "Section 1's data set ({} rows, tenant 1 holding {}) in a table hash-partitioned on \
         `id` into two `postgres_fdw` foreign tables, one on each of two more PostgreSQL 15 \
         servers on this machine (the shard clusters `scripts/setup.sh` creates), each with \
         section 1's indexes; `fetch_size` {FETCH} (page size + 1). Every page reads both \
         shards and merges their sorted rows. Pages use `.expanded_seek(true)` ([the SQL guide](../keyset-diesel/src/guide/sql.md), \
         \"Foreign tables and shards\": postgres_fdw sends no row-value comparison, so by \
         default a one-direction keyset's seek would stay local and each shard would send \
         every row before the cursor). The first page and the page after the row at depth {} \
         ({PAGE} rows) are read {SAMPLES} times each, alternating, after {WARM_UP} uncounted \
         reads of each; the figures are medians, and the deep page was first checked equal to \
         the rows `OFFSET` reads there. Rows sent: per shard, for one page after the row at \
         depth {} and one at depth {}, from the shard's `pg_stat_statements` (postgres_fdw's \
         `FETCH` statements): while many rows follow the cursor, each shard sends at most one \
         batch of {FETCH}; at depth {} only {} rows follow it, the planner expects few rows and \
         fetches all of them unsorted to sort them itself (never a row before the cursor). \
         Wall-clock times on our 2-core machine, which runs all three servers: the ratio is the \
         figure to read.\n",
        group(ROWS as u64),
        group(data::BIG_TENANT_ROWS as u64),
        group(DEPTH as u64),
        group(MIDDLE as u64),
        group(DEPTH as u64),
        group(DEPTH as u64),
        group((data::BIG_TENANT_ROWS - DEPTH) as u64)
    );
    let _ = writeln!(
        s,
        "| shape | first page | page at depth {} | deep / first | target ≤ {TARGET} | rows sent per shard, depth {} | rows sent per shard, depth {} |",
        group(DEPTH as u64),
        group(MIDDLE as u64),
        group(DEPTH as u64)
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---|---|---|");
    for (d, sent) in depths {
        let ratio = d.deep.as_secs_f64() / d.first.as_secs_f64();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {ratio:.2} | {} | {} | {} |",
            d.shape,
            ms(d.first),
            ms(d.deep),
            if ratio <= TARGET { "met" } else { "**missed**" },
            per_shard(&sent[0]),
            per_shard(&sent[1])
        );
    }
    let _ = write!(s, "\n{}", section::SHARDS.end);
    s
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here takes arguments.
    let started = Instant::now();
    let url = std::env::var("KEYSET_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
    let mut conn = connect(&url);
    conn.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS {SCHEMA}; SET search_path TO {SCHEMA}"
    ))
    .expect("schema");
    let ports = shard_ports();
    let mut shards: Vec<PgConnection> = ports
        .iter()
        .map(|port| connect(&format!("postgres://postgres@127.0.0.1:{port}/test")))
        .collect();
    let load = if data::is_complete_as(&mut conn, ROWS, VERSION) {
        "The data set was already loaded.".to_string()
    } else {
        eprintln!("[shards] loading {ROWS} rows through the parent");
        let t = Instant::now();
        load(&mut conn, &mut shards, &ports);
        format!(
            "The data set was loaded in this run ({:.1} minutes).",
            t.elapsed().as_secs_f64() / 60.0
        )
    };
    let c = &mut conn;
    let mut depths = Vec::new();
    let asc = (bench_rows::at.asc(), bench_rows::id.asc());
    let sent = [
        sent!(&mut *c, &mut shards, Asc, asc, MIDDLE),
        sent!(&mut *c, &mut shards, Asc, asc, DEPTH),
    ];
    let d = depth!(
        &mut *c,
        "postgres",
        "ASC `at, id`",
        Asc,
        asc,
        |page: Paginated<_, Asc>| page.expanded_seek(true)
    );
    depths.push((d, sent));
    let desc = (bench_rows::at.desc(), bench_rows::id.desc());
    let sent = [
        sent!(&mut *c, &mut shards, Desc, desc, MIDDLE),
        sent!(&mut *c, &mut shards, Desc, desc, DEPTH),
    ];
    let d = depth!(
        &mut *c,
        "postgres",
        "DESC `at DESC, id DESC`",
        Desc,
        desc,
        |page: Paginated<_, Desc>| page.expanded_seek(true)
    );
    depths.push((d, sent));
    let mixed = (bench_rows::score.desc(), bench_rows::id.asc());
    let sent = [
        sent!(&mut *c, &mut shards, Mixed, mixed, MIDDLE),
        sent!(&mut *c, &mut shards, Mixed, mixed, DEPTH),
    ];
    let d = depth!(
        &mut *c,
        "postgres",
        "mixed `score DESC, id ASC`",
        Mixed,
        mixed,
        |page: Paginated<_, Mixed>| page.expanded_seek(true)
    );
    depths.push((d, sent));
    let text = render(&depths, &load, started.elapsed());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, section::SHARDS.replace(&doc, &text)).expect("write PERFORMANCE.md");
    eprintln!("[shards] wrote section 4c of {}", path.display());
}
