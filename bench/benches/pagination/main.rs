//! Keyset pagination against depth, OFFSET and hand-written SQL on PostgreSQL, SQLite and
//! MariaDB; token costs; full walks with their peak memory. Writes `reports/PERFORMANCE.md` from
//! this run's criterion estimates.
//!
//! `bash scripts/bench.sh` (set-up, then `cargo bench -p keyset-bench`). The data set is
//! loaded on the first run (PostgreSQL schema `keyset_bench`, MariaDB database
//! `keyset_bench`, SQLite file `<target>/keyset-bench/bench.sqlite3`) and reused while it is
//! complete. `KEYSET_BENCH_BACKENDS=sqlite,postgres` runs a subset; the report then says so.

#[macro_use]
mod backends;
mod alloc;
mod data;
mod dirs;
mod handwritten;
mod numbers;
mod report;
mod report_cost;
mod report_depth;
mod report_format;
mod report_notes;
mod report_targets;
mod report_why;
mod results;
mod schema;
mod section;

use std::path::PathBuf;

pub use dirs::bench_dir;
use std::time::{Duration, Instant};

use criterion::Criterion;
use diesel::prelude::*;
use keyset_diesel::token::SecretKey;
use keyset_diesel::{Cursor, CursorCodec};

use crate::results::{Measure, TokenRow};
use crate::schema::{Asc, Mixed};

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

/// Loads the data set unless it is there and complete; says which.
pub fn load<C>(conn: &mut C, loader: fn(&mut C) -> QueryResult<()>) -> String
where
    C: Connection,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, data::Version>
        + diesel::query_dsl::LoadQuery<'static, C, data::Count>,
{
    if data::is_complete(conn) {
        eprintln!("[bench] data set present and complete: reused");
        return "reused from an earlier run (version and row count checked)".to_string();
    }
    eprintln!("[bench] loading {} rows", data::ROWS);
    let started = Instant::now();
    loader(conn).expect("load the data set");
    assert!(
        data::is_complete(conn),
        "the data set is complete after loading"
    );
    let took = started.elapsed().as_secs_f64();
    eprintln!("[bench] loaded in {took:.0} s");
    format!("loaded by this run in {took:.0} s (rows, indexes, ANALYZE)")
}

fn tokens(c: &mut Criterion) -> Vec<TokenRow> {
    let codec = CursorCodec::builder()
        .signing_key(SecretKey::new(1, b"benchmark only: 32 bytes secret!").expect("key"))
        .ttl(Duration::from_secs(3600))
        .build()
        .expect("codec");
    let scope = ("bench_rows", "tenant", 1);
    let at = chrono::DateTime::from_timestamp(1_767_225_600, 0)
        .expect("time")
        .naive_utc();
    let asc = Cursor::<Asc>::after((at, 987_654));
    let mixed = Cursor::<Mixed>::after((42_424, 987_654));
    let mut rows = Vec::new();
    let mut g = c.benchmark_group("token");
    backends::fast(&mut g);
    macro_rules! token_benches {
        ($model:ty, $cursor:expr, $key:literal) => {{
            let cursor = $cursor;
            let token = codec.encode(&cursor, &scope).expect("encode");
            assert_eq!(
                codec.decode::<$model>(&token, &scope).expect("decode"),
                cursor
            );
            let row = TokenRow {
                key: $key,
                token_len: token.len(),
                encode: Measure::new("token", "encode", $key),
                decode: Measure::new("token", "decode_verify", $key),
                both: Measure::new("token", "encode_decode", $key),
            };
            g.bench_function(row.encode.id(), |b| {
                b.iter(|| {
                    codec
                        .encode(std::hint::black_box(&cursor), &scope)
                        .expect("encode")
                })
            });
            g.bench_function(row.decode.id(), |b| {
                b.iter(|| {
                    codec
                        .decode::<$model>(std::hint::black_box(&token), &scope)
                        .expect("decode")
                })
            });
            g.bench_function(row.both.id(), |b| {
                b.iter(|| {
                    let t = codec
                        .encode(std::hint::black_box(&cursor), &scope)
                        .expect("encode");
                    codec.decode::<$model>(&t, &scope).expect("decode")
                })
            });
            rows.push(row);
        }};
    }
    token_benches!(Asc, asc, "timestamp_id");
    token_benches!(Mixed, mixed, "int_id");
    g.finish();
    rows
}

fn main() {
    let started = Instant::now();
    let started_at = chrono::Utc::now();
    let load_at_start = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let output = bench_dir().join("criterion");
    // Only this run's estimates: every ratio in the report comes from one run.
    let _ = std::fs::remove_dir_all(&output);
    let mut c = Criterion::default()
        .output_directory(&output)
        .without_plots()
        .configure_from_args();
    let selected = std::env::var("KEYSET_BENCH_BACKENDS")
        .unwrap_or_else(|_| "postgres,sqlite,mysql".to_string());
    let selected: Vec<&str> = selected.split(',').map(str::trim).collect();

    let tokens = tokens(&mut c);
    let mut runs = Vec::new();
    for backend in &selected {
        let backend_started = Instant::now();
        let mut run = match *backend {
            "postgres" => backends::postgres::run(&mut c),
            "sqlite" => backends::sqlite::run(&mut c),
            "mysql" => backends::mysql::run(&mut c),
            other => panic!("unknown backend {other}: use postgres, sqlite, mysql"),
        };
        run.notes.push(format!(
            "This backend's part of the run took {:.1} minutes.",
            backend_started.elapsed().as_secs_f64() / 60.0
        ));
        runs.push(run);
    }
    c.final_summary();

    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let previous = std::fs::read_to_string(&path).unwrap_or_default();
    let text = report::render(&report::Inputs {
        output: &output,
        runs: &runs,
        tokens: &tokens,
        selected: &selected,
        started_at,
        load_at_start: load_at_start
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        took: started.elapsed(),
        instructions: section::INSTRUCTIONS.extract(&previous),
        nullable: section::NULLABLE.extract(&previous),
        peers: section::PEERS.extract(&previous),
        seaorm: section::SEAORM.extract(&previous),
        concurrency: section::CONCURRENCY.extract(&previous),
        scale: section::SCALE.extract(&previous),
        shards: section::SHARDS.extract(&previous),
        partitioned: section::PARTITIONED.extract(&previous),
        http: section::HTTP.extract(&previous),
        spider: section::SPIDER.extract(&previous),
        compile: section::COMPILE.extract(&previous),
    });
    std::fs::create_dir_all(path.parent().expect("docs")).expect("docs directory");
    std::fs::write(&path, text).expect("write reports/PERFORMANCE.md");
    eprintln!("[bench] wrote {}", path.display());
}
