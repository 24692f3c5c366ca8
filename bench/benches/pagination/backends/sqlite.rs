//! The SQLite run: the bundled SQLite on `<target>/keyset-bench/bench.sqlite3`, its plans
//! (`EXPLAIN QUERY PLAN`) and pragmas.

use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel::sql_types::{Integer, Text};
use diesel::sqlite::{Sqlite, SqliteConnection};

use crate::handwritten::Explain;
use crate::results::BackendRun;

#[derive(QueryableByName)]
struct One {
    #[diesel(sql_type = Text)]
    v: String,
}

fn one(conn: &mut SqliteConnection, sql: &str) -> String {
    diesel::sql_query(sql)
        .get_result::<One>(conn)
        .map(|r| r.v)
        .unwrap_or_else(|e| format!("({e})"))
}

fn explain<Q: QueryFragment<Sqlite>>(conn: &mut SqliteConnection, query: Q) -> String {
    Explain::<Q, (Integer, Integer, Integer, Text)>::new("EXPLAIN QUERY PLAN", query)
        .load::<(i32, i32, i32, String)>(conn)
        .expect("explain query plan")
        .into_iter()
        .map(|(_, _, _, detail)| detail)
        .collect::<Vec<_>>()
        .join("\n")
}

fn counters(
    conn: &mut SqliteConnection,
    run: impl FnOnce(&mut SqliteConnection),
) -> Option<String> {
    run(conn);
    None
}

/// Storage reads are counted on MariaDB only.
fn storage(_: &mut SqliteConnection) -> Option<(u64, u64)> {
    None
}

walk_fn!(SqliteConnection);

pub fn run(c: &mut criterion::Criterion) -> BackendRun {
    let path = crate::bench_dir().join("bench.sqlite3");
    let mut conn = SqliteConnection::establish(&path.to_string_lossy()).expect("SQLite file");
    let mut run = BackendRun {
        name: "sqlite",
        ..BackendRun::default()
    };
    run.load = crate::load(&mut conn, crate::data::load_sqlite);
    run.version = format!(
        "SQLite {} (bundled)",
        one(&mut conn, "SELECT sqlite_version() AS v")
    );
    run.settings
        .push(("file".to_string(), path.display().to_string()));
    for pragma in ["page_size", "cache_size", "journal_mode"] {
        let value = one(
            &mut conn,
            &format!("SELECT CAST({pragma} AS TEXT) AS v FROM pragma_{pragma}()"),
        );
        run.settings.push((pragma.to_string(), value));
    }
    backend_run!(c, &mut conn, &mut run, SqliteConnection, Sqlite);
    run
}
